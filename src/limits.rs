//! Resource limits checked before work starts: memory estimates against what the machine can
//! hold, and a wall-clock deadline for long loops (training runs, training audits).
//!
//! Every input surface (data files, experiment and audit specs, shard files) sizes what it is
//! about to allocate with checked arithmetic and calls [`check_memory`] first, so a request that
//! would exceed memory is refused with an error naming the key, its value and the limit, instead
//! of being aborted by the allocator. Long loops call [`check_deadline`] between units of work
//! (a training step, a chunk of training runs): past the limit set by [`with_deadline`] (the
//! CLI's `--max-seconds`) they stop with [`Error::TimeLimit`].

use crate::error::{Error, Result};
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The memory one request may use when the machine's available memory cannot be read
/// (non-Linux): 8 GiB.
const FALLBACK_MEMORY: u64 = 8 << 30;

/// Bytes of memory available to a new allocation: `DPAUDIT_MAX_MEMORY` (bytes) if set, else
/// `MemAvailable` of `/proc/meminfo` (else 8 GiB), and no more than the address space left
/// under this process's limit (`ulimit -v`: `Max address space` of `/proc/self/limits` less
/// `VmSize` of `/proc/self/status`).
pub(crate) fn available_memory() -> u64 {
    if let Some(v) = std::env::var("DPAUDIT_MAX_MEMORY")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
    {
        return v;
    }
    let kb = |text: &str, key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|r| r.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|k| k.saturating_mul(1024))
    };
    let machine = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| kb(&t, "MemAvailable:"))
        .unwrap_or(FALLBACK_MEMORY);
    let limit = std::fs::read_to_string("/proc/self/limits")
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("Max address space"))
                .and_then(|r| r.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
        });
    let used = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| kb(&t, "VmSize:"))
        .unwrap_or(0);
    match limit {
        Some(l) => machine.min(l.saturating_sub(used)),
        None => machine,
    }
}

/// Human-readable bytes (GiB/MiB/KiB, one decimal).
pub(crate) fn fmt_bytes(b: u128) -> String {
    let f = b as f64;
    if f >= (1u64 << 30) as f64 {
        format!("{:.1} GiB", f / (1u64 << 30) as f64)
    } else if f >= (1u64 << 20) as f64 {
        format!("{:.1} MiB", f / (1u64 << 20) as f64)
    } else {
        format!("{:.1} KiB", f / 1024.0)
    }
}

/// Refuses a request of `bytes` (`None`: it overflows 128 bits) when it exceeds the available
/// memory. `key` and `value` name the input that sized it, `what` what would be allocated.
pub fn check_memory(
    key: &str,
    value: impl std::fmt::Display,
    what: &str,
    bytes: Option<u128>,
) -> Result<()> {
    let avail = available_memory();
    match bytes {
        Some(b) if b <= u128::from(avail) => Ok(()),
        Some(b) => Err(Error::invalid(
            key,
            value,
            &format!(
                "small enough to fit in memory ({what} would need {}, more than the {} \
                 available)",
                fmt_bytes(b),
                fmt_bytes(u128::from(avail))
            ),
        )),
        None => Err(Error::invalid(
            key,
            value,
            &format!("small enough to fit in memory ({what} would need more than 2^128 bytes)"),
        )),
    }
}

/// `a · b · …` in 128 bits, `None` on overflow.
pub fn product(factors: &[u128]) -> Option<u128> {
    factors.iter().try_fold(1u128, |acc, &f| acc.checked_mul(f))
}

/// Refuses `value` of `key` above `max`.
pub(crate) fn check_max(key: &str, value: u128, max: u128) -> Result<()> {
    if value > max {
        Err(Error::invalid(key, value, &format!("<= {max}")))
    } else {
        Ok(())
    }
}

/// A wall-clock deadline: the instant and the limit in seconds it came from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deadline {
    at: Instant,
    seconds: f64,
}

impl Deadline {
    /// The error once the deadline has passed; `what` says what was stopped.
    pub(crate) fn check(&self, what: &str) -> Result<()> {
        if Instant::now() >= self.at {
            Err(Error::TimeLimit {
                seconds: self.seconds,
                what: what.to_string(),
            })
        } else {
            Ok(())
        }
    }

    /// Time left before the deadline (zero once it has passed).
    pub(crate) fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }

    /// The limit in seconds this deadline came from.
    pub(crate) fn seconds(&self) -> f64 {
        self.seconds
    }
}

thread_local! {
    static DEADLINE: Cell<Option<Deadline>> = const { Cell::new(None) };
}

/// Runs `f` with a deadline `seconds` from now on this thread (`None`: no limit), restoring the
/// previous one afterwards. Work that fans out to other threads takes [`current`] with it.
pub fn with_deadline<T>(seconds: Option<f64>, f: impl FnOnce() -> T) -> T {
    let new = seconds
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(|s| Deadline {
            at: Instant::now() + Duration::from_secs_f64(s.min(1e9)),
            seconds: s,
        });
    let old = DEADLINE.with(|d| d.replace(new));
    let out = f();
    DEADLINE.with(|d| d.set(old));
    out
}

/// This thread's deadline, to hand to worker threads.
pub fn current() -> Option<Deadline> {
    DEADLINE.with(|d| d.get())
}

/// The time limits of one thread — the loop deadline of [`with_deadline`] and the certified
/// computations' limit (`numeric::deadline`) — taken into worker threads. Both are
/// thread-local, so work fanned out with rayon runs without any limit unless its closures run
/// under [`Carried::run`]: a report's certified curves computed on rayon's threads used to go on
/// for seconds past `audit --max-seconds`.
#[derive(Debug, Clone, Copy)]
#[cfg_attr(not(feature = "cli"), allow(dead_code))] // its users (the report's curves) are cli-only
pub(crate) struct Carried {
    deadline: Option<Deadline>,
    numeric: Option<(Instant, f64)>,
}

/// This thread's limits, to carry into worker threads.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) fn carry() -> Carried {
    Carried {
        deadline: current(),
        numeric: crate::numeric::deadline::current(),
    }
}

impl Carried {
    /// Runs `f` on the calling (worker) thread under the carried limits, restoring that
    /// thread's own limits afterwards.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    pub(crate) fn run<T>(&self, f: impl FnOnce() -> T) -> T {
        crate::numeric::deadline::within(self.numeric, || {
            let old = DEADLINE.with(|d| d.replace(self.deadline));
            let out = f();
            DEADLINE.with(|d| d.set(old));
            out
        })
    }
}

/// [`Error::TimeLimit`] once this thread's deadline (if any) has passed.
pub fn check_deadline(what: &str) -> Result<()> {
    match current() {
        Some(d) => d.check(what),
        None => Ok(()),
    }
}

/// Checks a `--max-seconds` value: finite and > 0.
pub fn check_max_seconds(s: Option<f64>) -> Result<()> {
    match s {
        Some(v) if !(v.is_finite() && v > 0.0) => {
            Err(Error::invalid("--max-seconds", v, "finite and > 0"))
        }
        _ => Ok(()),
    }
}

/// Work estimated before a long command starts: a count of elementary operations and the
/// seconds they are expected to take on one core.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// What is counted (e.g. "gradient coordinates").
    pub unit: &'static str,
    /// How many.
    pub work: f64,
    /// Expected seconds.
    pub seconds: f64,
}

/// Work above this many expected seconds needs `--yes`.
pub const CONFIRM_SECONDS: f64 = 3600.0;

impl Estimate {
    /// `work` units at `rate` units per second.
    pub(crate) fn new(unit: &'static str, work: f64, rate: f64) -> Self {
        Estimate {
            unit,
            work,
            seconds: work / rate,
        }
    }

    /// Refuses an estimate over [`CONFIRM_SECONDS`] unless `yes`.
    pub fn confirm(&self, what: &str, yes: bool) -> Result<()> {
        if yes || self.seconds <= CONFIRM_SECONDS {
            return Ok(());
        }
        Err(Error::Unsupported(format!(
            "{what} would run for about {} (estimated work {:.2e} {}); rerun with --yes to \
             start it anyway (and --max-seconds to bound it)",
            fmt_seconds(self.seconds),
            self.work,
            self.unit
        )))
    }
}

/// "2.5 h", "12 min", "40 s".
pub(crate) fn fmt_seconds(s: f64) -> String {
    if s >= 86400.0 * 365.0 {
        format!("{:.1e} years", s / (86400.0 * 365.0))
    } else if s >= 86400.0 {
        format!("{:.1} days", s / 86400.0)
    } else if s >= 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s >= 60.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{s:.0} s")
    }
}

#[cfg(test)]
mod tests {
    use super::{
        carry, check_deadline, check_memory, current, product, with_deadline, Duration, Error,
        Estimate,
    };

    #[test]
    fn memory_check_names_key_value_and_need() {
        let e = check_memory("steps", 7, "the curves", Some(u128::MAX)).unwrap_err();
        let m = e.to_string();
        assert!(m.starts_with("invalid parameter steps = 7"), "{m}");
        assert!(m.contains("the curves would need"), "{m}");
        assert!(check_memory("n", 1, "x", Some(8)).is_ok());
        assert!(check_memory("n", 1, "x", None).is_err());
        assert_eq!(product(&[u128::MAX, 2]), None);
        assert_eq!(product(&[3, 4]), Some(12));
    }

    #[test]
    fn carried_limits_reach_worker_threads() {
        with_deadline(Some(1e-9), || {
            crate::numeric::deadline::with_limit(Some(1e-9), || {
                std::thread::sleep(Duration::from_millis(2));
                let lim = carry();
                let (plain, carried) = std::thread::spawn(move || {
                    let plain = (
                        check_deadline("x").is_ok(),
                        crate::numeric::deadline::expired(),
                    );
                    let carried = lim.run(|| {
                        (
                            check_deadline("x").is_ok(),
                            crate::numeric::deadline::expired(),
                        )
                    });
                    // The worker's own (absent) limits are restored.
                    assert!(check_deadline("x").is_ok());
                    (plain, carried)
                })
                .join()
                .unwrap();
                assert_eq!(plain, (true, None));
                assert_eq!(carried, (false, Some(1e-9)));
            })
        });
    }

    #[test]
    fn deadline_is_scoped_and_stops_work() {
        assert!(check_deadline("x").is_ok());
        with_deadline(Some(1e-9), || {
            std::thread::sleep(Duration::from_millis(2));
            let e = check_deadline("training").unwrap_err();
            assert!(matches!(e, Error::TimeLimit { .. }), "{e}");
            assert!(current().is_some());
        });
        assert!(check_deadline("x").is_ok());
    }

    #[test]
    fn long_estimates_need_yes() {
        let e = Estimate::new("steps", 1e12, 1e6);
        assert!(e.confirm("train", true).is_ok());
        let m = e.confirm("train", false).unwrap_err().to_string();
        assert!(m.contains("--yes") && m.contains("days"), "{m}");
        assert!(Estimate::new("steps", 10.0, 1e6)
            .confirm("t", false)
            .is_ok());
    }
}
