//! A per-thread time limit for certified computations.
//!
//! `dpaudit eval --max-seconds S` gives each row S seconds. The precision ladder
//! ([`crate::numeric::mp::certify`]) and the quadrature ([`crate::numeric::quad::integrate`])
//! call [`expired`] between their steps; past the limit they stop with
//! [`crate::Error::Precision`], which reports the digits reached so far ("could not certify N
//! digits (reached M)"). The check is cooperative, so a row stops within one ladder step or one
//! quadrature level of its limit, never in the middle of an MPFR operation.

use std::cell::Cell;
use std::time::{Duration, Instant};

thread_local! {
    static DEADLINE: Cell<Option<(Instant, f64)>> = const { Cell::new(None) };
}

/// Runs `f` with a time limit of `seconds` on this thread (`None`: no limit), restoring the
/// previous limit afterwards.
pub(crate) fn with_limit<T>(seconds: Option<f64>, f: impl FnOnce() -> T) -> T {
    let new = seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| (Instant::now() + Duration::from_secs_f64(s), s));
    let old = DEADLINE.with(|d| d.replace(new));
    let out = f();
    DEADLINE.with(|d| d.set(old));
    out
}

/// This thread's limit (instant and seconds), to carry into worker threads
/// ([`crate::limits::carry`]).
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn current() -> Option<(Instant, f64)> {
    DEADLINE.with(|d| d.get())
}

/// Runs `f` under the limit `limit` as [`current`] gave it (the same instant, not a new one),
/// restoring this thread's limit afterwards.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn within<T>(limit: Option<(Instant, f64)>, f: impl FnOnce() -> T) -> T {
    let old = DEADLINE.with(|d| d.replace(limit));
    let out = f();
    DEADLINE.with(|d| d.set(old));
    out
}

/// `Some(limit in seconds)` when this thread's time limit passes within `after` from now: a
/// step that expects to take `after` asks before it starts (the discretised composition's
/// passes, whose FFTs cannot stop midway).
pub(crate) fn expires_within(after: Duration) -> Option<f64> {
    DEADLINE.with(|d| {
        d.get()
            .and_then(|(t, s)| (Instant::now() + after >= t).then_some(s))
    })
}

/// `Some(limit in seconds)` once this thread's time limit has passed.
pub(crate) fn expired() -> Option<f64> {
    expires_within(Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::{expired, expires_within, with_limit, Duration};

    #[test]
    fn limit_is_scoped_and_restored() {
        assert!(expired().is_none());
        with_limit(Some(1e-9), || {
            std::thread::sleep(Duration::from_millis(2));
            assert_eq!(expired(), Some(1e-9));
            with_limit(None, || assert!(expired().is_none()));
            assert!(expired().is_some());
        });
        assert!(expired().is_none());
    }

    #[test]
    fn a_step_longer_than_the_time_left_is_refused_before_it_starts() {
        assert!(expires_within(Duration::from_secs(1000)).is_none());
        with_limit(Some(100.0), || {
            assert!(expired().is_none());
            assert!(expires_within(Duration::from_secs(1)).is_none());
            assert_eq!(expires_within(Duration::from_secs(101)), Some(100.0));
        });
    }
}
