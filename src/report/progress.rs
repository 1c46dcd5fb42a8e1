//! The terminal progress bar: an [`Observer`] for the audit engine that draws an `indicatif` bar
//! on stderr, only when stderr is a terminal and the `CI` variable is unset (quiet in CI and in
//! pipes). The engine itself knows nothing of terminals.

use crate::compare::{Observer, Progress};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

/// Whether a bar should be drawn: asked for, stderr is a terminal, `CI` unset.
pub(crate) fn wanted(asked: bool) -> bool {
    asked && std::env::var_os("CI").is_none() && std::io::stderr().is_terminal()
}

struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
        self.0.set_position(0);
    }
    fn advance(&self, n: u64) {
        self.0.inc(n);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

/// A bar labelled `what` if [`wanted`]`(asked)`, else no observer.
pub(crate) fn bar(what: &str, asked: bool) -> Observer {
    if !wanted(asked) {
        return Observer::none();
    }
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
    let template = format!(
        "{{spinner}} {what} [{{elapsed_precise}}] {{wide_bar}} {{human_pos}}/{{human_len}} \
         ({{per_sec}}, eta {{eta}})"
    );
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    Observer::new(Bar(bar))
}

/// Lines printed on stderr under a bar counting `what` (e.g. the training audit's table rows as
/// they complete): with a bar (only when [`wanted`]) the lines are printed above it, so the two
/// do not garble each other; without one, plain `eprintln!`.
pub(crate) struct Lines(Option<ProgressBar>);

impl Lines {
    /// A bar of `total` steps labelled `what` if [`wanted`]`(asked)`, else plain lines.
    pub(crate) fn new(what: &str, total: u64, asked: bool) -> Lines {
        if !wanted(asked) {
            return Lines(None);
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        let template =
            format!("{{spinner}} {what} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(250));
        Lines(Some(bar))
    }

    /// Prints `line` on stderr (above the bar, if any).
    pub(crate) fn line(&self, line: &str) {
        match &self.0 {
            Some(b) => b.suspend(|| eprintln!("{line}")),
            None => eprintln!("{line}"),
        }
    }

    /// One step done.
    pub(crate) fn advance(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
