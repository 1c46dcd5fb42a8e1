//! Progress observers: the engine reports how many draws are done to an [`Observer`] supplied by
//! the caller, and knows nothing of terminals.

/// An observer of long-running work: told the total number of draws, then each completed chunk.
/// The engine calls it from worker threads; it must not influence the results.
pub trait Progress: Send + Sync {
    /// The work is about to start: `total` units.
    fn start(&self, _total: u64) {}
    /// `n` more units are done.
    fn advance(&self, _n: u64) {}
    /// The work is over.
    fn finish(&self) {}
}

/// An optional shared [`Progress`] observer (none by default).
#[derive(Clone, Default)]
pub struct Observer(Option<std::sync::Arc<dyn Progress>>);

impl Observer {
    /// No observer.
    pub fn none() -> Self {
        Observer(None)
    }

    /// Wraps an observer.
    pub fn new(p: impl Progress + 'static) -> Self {
        Observer(Some(std::sync::Arc::new(p)))
    }

    /// Tells the observer, if any, that `total` units of work start.
    pub(crate) fn start(&self, total: u64) {
        if let Some(p) = &self.0 {
            p.start(total)
        }
    }

    /// Tells the observer, if any, that `n` more units are done.
    pub(crate) fn advance(&self, n: u64) {
        if let Some(p) = &self.0 {
            p.advance(n)
        }
    }

    /// Tells the observer, if any, that the work is finished.
    pub(crate) fn finish(&self) {
        if let Some(p) = &self.0 {
            p.finish()
        }
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Observer(..)"
        } else {
            "Observer(none)"
        })
    }
}

impl PartialEq for Observer {
    /// Observers never distinguish two configurations.
    fn eq(&self, _other: &Self) -> bool {
        true
    }
}
