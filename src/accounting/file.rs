//! Schedule files for `dpaudit account`: a heterogeneous composition written in TOML, and the
//! computation the command prints (certified bracket, RDP route, optimal order) as plain data.
//!
//! ```toml
//! delta = "1e-5"            # ε(δ) is computed; or eps = "2" for δ(ε); both may be given
//! digits = 12               # optional, significant digits of the bracket (default 12)
//! orders = [2, 4, 8, 16]    # optional α grid for the RDP route (default: continuous α)
//!
//! [[release]]
//! kind = "subsampled_gaussian"   # or "gaussian"
//! q = "0.01"
//! sigma = "1.0"
//! count = 10000
//! ```
//!
//! Numbers may be TOML numbers or decimal strings, all read as exact decimals by
//! [`crate::scalar::TomlNum`] (`"1e-5"` and the TOML float 1e-5 are both 10⁻⁵; write decimals
//! longer than 15 significant digits as strings).

use super::compose::{self, ComposeOptions, Composed, RdpRoute, Release, Schedule};
use super::SubsampledGaussian;
use crate::bounds::conversion::Conversion;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use serde::Deserialize;
use std::path::Path;

/// Every number of a schedule file is read by the crate's one TOML number reader.
use crate::scalar::TomlNum as Num;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReleaseSpec {
    kind: String,
    q: Option<Num>,
    sigma: Num,
    count: Option<u64>,
    /// DP-SGD bookkeeping (instead of q and count): q = batch_size / dataset_size (the expected
    /// batch under Poisson sampling), count = ⌈epochs · dataset_size / batch_size⌉.
    dataset_size: Option<u64>,
    batch_size: Option<u64>,
    epochs: Option<Num>,
    /// "add_remove" (default) or "substitution"; a schedule uses one relation throughout.
    neighbours: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    delta: Option<Num>,
    eps: Option<Num>,
    digits: Option<u32>,
    orders: Option<Vec<Num>>,
    release: Vec<ReleaseSpec>,
}

/// A parsed schedule file.
#[derive(Clone, Debug)]
pub struct AccountSpec {
    /// The composition.
    pub schedule: Schedule,
    /// δ at which ε(δ) is wanted.
    pub delta: Option<Scalar>,
    /// ε at which δ(ε) is wanted.
    pub eps: Option<Scalar>,
    /// Significant digits of the bracket.
    pub digits: u32,
    /// α grid of the RDP route (None: continuous α).
    pub orders: Option<Vec<Scalar>>,
    /// What the DP-SGD bookkeeping computed, one line per release that used it (echoed).
    pub bookkeeping: Vec<String>,
}

pub use super::calibrate::dpsgd_q_steps;

impl ReleaseSpec {
    /// The `[[release]]` table number `i` as a release and its number of steps; the DP-SGD
    /// bookkeeping it used, if any, is echoed in `bookkeeping`.
    fn release(&self, i: usize, bookkeeping: &mut Vec<String>) -> Result<(Release, u64)> {
        let (q_spec, count) = self.steps(i, bookkeeping)?;
        let sigma = self.sigma.scalar("sigma")?;
        let substitution = match self.neighbours.as_deref() {
            None | Some("add_remove") => false,
            Some("substitution") => true,
            Some(other) => {
                return Err(Error::invalid(
                    &format!("release[{i}].neighbours"),
                    format!("{other:?}"),
                    "\"add_remove\" or \"substitution\"",
                ))
            }
        };
        let rel = match self.kind.as_str() {
            "gaussian" => {
                if self.batch_size.is_some() && self.batch_size != self.dataset_size {
                    return Err(Error::invalid(
                        &format!("release[{i}].batch_size"),
                        self.batch_size.unwrap_or(0),
                        "equal to dataset_size for kind = \"gaussian\" (full batch; use \
                         kind = \"subsampled_gaussian\")",
                    ));
                }
                if self.q.is_some() {
                    return Err(Error::invalid(
                        &format!("release[{i}].q"),
                        "given",
                        "absent for kind = \"gaussian\"",
                    ));
                }
                if substitution {
                    // N(1, σ²) against N(−1, σ²): the q = 1 substitution release.
                    Release::Substitution(SubsampledGaussian::new(Scalar::from(1.0), sigma)?)
                } else {
                    Release::Gaussian { sigma }
                }
            }
            "subsampled_gaussian" => {
                let q = q_spec.clone().ok_or_else(|| Error::MissingParameter {
                    name: "q".into(),
                    needed_by: format!("release[{i}] (subsampled_gaussian)"),
                })?;
                let m = SubsampledGaussian::new(q, sigma)?;
                if substitution {
                    Release::Substitution(m)
                } else {
                    Release::Subsampled(m)
                }
            }
            other => {
                return Err(Error::invalid(
                    &format!("release[{i}].kind"),
                    format!("{other:?}"),
                    "\"gaussian\" or \"subsampled_gaussian\"",
                ))
            }
        };
        Ok((rel, count))
    }

    /// q (if given or computed) and the number of steps: `q` and `count`, or the bookkeeping of
    /// `dataset_size`, `batch_size` and `epochs`.
    fn steps(&self, i: usize, bookkeeping: &mut Vec<String>) -> Result<(Option<Scalar>, u64)> {
        let key = format!("release[{i}].");
        let books = (self.dataset_size, self.batch_size, self.epochs.as_ref());
        Ok(match (books, self.count) {
            ((None, None, None), Some(c)) => {
                (self.q.as_ref().map(|q| q.scalar("q")).transpose()?, c)
            }
            ((None, None, None), None) => {
                return Err(Error::MissingParameter {
                    name: "count (or dataset_size, batch_size and epochs)".into(),
                    needed_by: format!("release[{i}]"),
                })
            }
            ((Some(n), Some(b), Some(ep)), None) if self.q.is_none() => {
                let ep = ep.scalar("epochs")?;
                let (q, t) = dpsgd_q_steps(n, b, &ep, &key)?;
                bookkeeping.push(format!(
                    "release[{i}]: dataset_size = {n}, batch_size = {b} (expected, Poisson), \
                     epochs = {ep} -> q = {q} (40 digits), steps = {t}"
                ));
                (Some(q), t)
            }
            _ => {
                return Err(Error::invalid(
                    &format!("release[{i}]"),
                    "mixed keys",
                    "either q and count, or dataset_size, batch_size and epochs (all three)",
                ))
            }
        })
    }
}

impl AccountSpec {
    /// Parses TOML text (`what` names the source in errors).
    pub fn parse(text: &str, what: &str) -> Result<AccountSpec> {
        let f: FileSpec = toml::from_str(text).map_err(|e| Error::Parse {
            what: "schedule file".into(),
            text: what.to_string(),
            reason: e.to_string().trim_end().replace('\n', " | "),
        })?;
        let mut parts = Vec::new();
        let mut bookkeeping = Vec::new();
        if f.release.len() > 10_000 {
            return Err(Error::invalid(
                "release",
                format!("{} entries", f.release.len()),
                "at most 10000 releases",
            ));
        }
        for (i, r) in f.release.iter().enumerate() {
            parts.push(r.release(i, &mut bookkeeping)?);
        }
        let delta = f.delta.as_ref().map(|d| d.scalar("delta")).transpose()?;
        let eps = f.eps.as_ref().map(|e| e.scalar("eps")).transpose()?;
        if delta.is_none() && eps.is_none() {
            return Err(Error::MissingParameter {
                name: "delta (or eps)".into(),
                needed_by: what.to_string(),
            });
        }
        let orders = f
            .orders
            .as_ref()
            .map(|o| {
                o.iter()
                    .map(|a| a.scalar("orders"))
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?;
        let digits = f.digits.unwrap_or(12);
        if !(1..=50).contains(&digits) {
            return Err(Error::invalid("digits", digits, "in [1, 50]"));
        }
        Ok(AccountSpec {
            schedule: Schedule::new(parts)?,
            delta,
            eps,
            digits,
            orders,
            bookkeeping,
        })
    }

    /// Reads and parses a file.
    pub(crate) fn from_file(path: &Path) -> Result<AccountSpec> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
        AccountSpec::parse(&text, &path.display().to_string())
    }
}

/// What `dpaudit account` computed.
#[derive(Clone, Debug)]
pub struct Accounted {
    /// ε(δ) bracket, when δ was given.
    pub eps: Option<Composed>,
    /// δ(ε) bracket, when ε was given.
    pub delta: Option<Composed>,
    /// RDP route (Canonne–Kamath–Steinke conversion) at δ.
    pub rdp_cks: Option<RdpRoute>,
    /// RDP route (Mironov 2017 Prop. 3) at δ.
    pub rdp_mironov: Option<RdpRoute>,
    /// The RDP routes that failed (an order whose moment cannot be certified, the time limit
    /// reached after the brackets): the conversion and the error. A comparison, so its failure
    /// leaves the certified brackets standing.
    pub rdp_refused: Vec<(Conversion, Error)>,
    /// Wall time of the bracket, seconds.
    pub bracket_seconds: f64,
}

/// Runs the computations of a schedule file, within `max_seconds` when given (past it, a
/// computation fails with [`Error::Precision`] instead of running on).
pub fn account(spec: &AccountSpec, max_seconds: Option<f64>) -> Result<Accounted> {
    crate::numeric::deadline::with_limit(max_seconds, || account_inner(spec))
}

fn account_inner(spec: &AccountSpec) -> Result<Accounted> {
    let opts = ComposeOptions {
        digits: spec.digits,
        force_inversion: false,
    };
    let t0 = std::time::Instant::now();
    // The certified bracket at the requested point, when the point is given.
    let bracket = |at: &Option<Scalar>, f: fn(&Schedule, &Scalar, &ComposeOptions) -> _| {
        at.as_ref().map(|x| f(&spec.schedule, x, &opts)).transpose()
    };
    let eps = bracket(&spec.delta, compose::eps_for_delta)?;
    let delta = bracket(&spec.eps, compose::delta_for_eps)?;
    let bracket_seconds = t0.elapsed().as_secs_f64();
    let mut rdp_refused = Vec::new();
    let mut route = |c: Conversion| -> Option<RdpRoute> {
        let d = spec.delta.as_ref()?;
        match compose::rdp_route(&spec.schedule, d, spec.orders.as_deref(), c, spec.digits) {
            Ok(r) => Some(r),
            Err(e) => {
                rdp_refused.push((c, e));
                None
            }
        }
    };
    let rdp_cks = route(Conversion::CanonneKamathSteinke);
    let rdp_mironov = route(Conversion::Mironov);
    Ok(Accounted {
        eps,
        delta,
        rdp_cks,
        rdp_mironov,
        rdp_refused,
        bracket_seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::{AccountSpec, Release};

    /// dataset_size / batch_size / epochs give q = B/N and T = ⌈epochs·N/B⌉, echoed; bad or mixed
    /// keys are errors naming key, value and limit.
    #[test]
    fn dpsgd_bookkeeping() {
        let ok = "delta = \"1e-5\"\n[[release]]\nkind = \"subsampled_gaussian\"\nsigma = \"1.1\"\n\
                  dataset_size = 60000\nbatch_size = 256\nepochs = 60\n";
        let s = AccountSpec::parse(ok, "t").unwrap();
        let (r, n) = &s.schedule.parts()[0];
        assert_eq!(*n, 14063); // 60 · 60000 / 256 = 14062.5
        let Release::Subsampled(m) = r else {
            panic!("{r}")
        };
        assert_eq!(
            m.q().to_string(),
            "4.266666666666666666666666666666666666667e-3"
        );
        assert!(s.bookkeeping[0].contains("steps = 14063"));
        let bad = |text: &str, want: &str| {
            let e = AccountSpec::parse(text, "t").unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        };
        bad(
            &ok.replace("batch_size = 256", "batch_size = 70000"),
            "batch_size = 70000",
        );
        bad(
            &ok.replace("epochs = 60", "epochs = 1e12"),
            "at most 1e12 steps",
        );
        bad(
            &ok.replace("epochs = 60", "epochs = 60\nq = \"0.1\""),
            "mixed keys",
        );
        bad(&ok.replace("epochs = 60\n", ""), "mixed keys");
        bad(
            &ok.replace("sigma = \"1.1\"", "sigma = \"1.7976931348623157e308\""),
            "at most 1e8",
        );
    }
}
