//! Audit specifications: the `audits/*.toml` files that name a mechanism, a neighbouring pair
//! and the settings of a Monte Carlo audit.
//!
//! A spec is parsed with serde/toml into raw structs (unknown keys are rejected), then validated
//! into the typed [`AuditSpec`]. Every problem is an [`Error`] whose message names the file and
//! the field (`audits/x.toml: field audit.delta = 2: must be in (0, 1)`); nothing panics on bad
//! input. Numbers may be written as TOML numbers or as strings; strings keep the exact decimal
//! (`"1.001"` is 1.001, not the nearest double), which is what the certified routes use.
//!
//! ```toml
//! name = "gaussian"                       # optional, default: the file stem
//! description = "Gaussian mechanism, sensitivity 1"
//!
//! [mechanism]
//! family = "gaussian"                     # gaussian | gaussian_dd | rgm | rectified | truncated | stochastic_sign | laplace
//! sigma = "5"
//!
//! [pair]                                  # the neighbouring pair: mu1, mu2 (rgm: n1, n2, dist; gaussian_dd: dist)
//! mu1 = "0"
//! mu2 = "1"
//!
//! [audit]
//! samples_per_side = 1_000_000
//! delta = "1e-5"
//! confidence = 0.95
//! seed = 1
//! statistic = "white"                     # optional: white (LLR, default) | black (output)
//! selection = "held_out"                  # optional
//! ```
//!
//! The RGM (HMB Def. 3) takes `d`, `gamma`, `sigma2` and the relative sensitivity `eta`, `R`
//! (HMB Def. 2) in `[mechanism]`, and the pair as the norms `n1 = ‖r1‖`, `n2 = ‖r2‖` and the
//! distance `dist = ‖r1 − r2‖`. The spec is rejected unless the pair satisfies the relative
//! sensitivity (HMB eq. (3)) and σ² meets Theorem 1's minimum (HMB Thm 1,
//! σ² ≥ γ η⁻² [1 − η(α − 1)] R², whose largest value over α ≥ 1 is γ R²/η² at α = 1).
//!
//! The other families of the registry ([`crate::model::FAMILIES`]) are read from their `eval`
//! vocabulary: the keys that describe the neighbouring inputs form `[pair]`, the rest
//! `[mechanism]` — Laplace takes `scale` and the pair `mu1`, `mu2`; `gaussian_dd` takes `sigma1`,
//! `sigma2` (the two output standard deviations) and `d`, and the pair `dist = ‖m1 − m2‖`. Such a
//! family's three-way bound is its published guarantee ([`crate::model::Guarantee`]); one whose
//! guarantee is its exact ε (`gaussian_dd`) shows the exact and audit figures only. The
//! subsampled Gaussian has no spec: its pair is fixed by the neighbouring relation, and DP-SGD is
//! audited as a training loop (`dpaudit train-audit`).

use crate::audit::controls::HalvedSigmaGaussian;
use crate::audit::engine::{AuditConfig, Observer, Selection};
use crate::audit::mechanisms::{Mechanism, Statistic};
use crate::divergence::Pair;
use crate::error::{Error, Result};
use crate::model::{self, Family};
use crate::scalar::Scalar;
use rug::Float;
use serde::Deserialize;
use std::path::{Path, PathBuf};
/// A fault injected on purpose so that the test suite can drive the report's failure paths end
/// to end. Reachable only in builds with the `fault-injection` feature, which only the crate's
/// own tests enable (through its dev-dependency on itself); in every other build a spec with a
/// `fault` key is rejected as an unknown field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The Gaussian sampler draws with σ/2 while the exact and bound figures use σ: the audit
    /// must exceed the exact ε and the report must print a VIOLATION.
    HalvedSigma,
    /// The audit is configured with zero samples, which the engine refuses: the report must say
    /// that the audit did not run.
    AuditError,
}

/// The mechanism of a spec with its validated parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum MechanismSpec {
    /// Gaussian mechanism N(μ, σ²) (the pair's |μ1 − μ2| is the sensitivity).
    Gaussian {
        /// Noise standard deviation σ.
        sigma: Scalar,
    },
    /// Relative Gaussian Mechanism (HMB Def. 3): r + N(0, (γ‖r‖² + σ²) I_d).
    Rgm {
        /// Dimension d.
        d: u32,
        /// Relative noise scale γ.
        gamma: Scalar,
        /// Baseline variance σ².
        sigma2: Scalar,
        /// Relative sensitivity η (HMB Def. 2).
        eta: Scalar,
        /// Absolute part R of the relative sensitivity (HMB Def. 2).
        r: Scalar,
        /// Optional Rényi order at which Theorem 1 is reported (default: the α* of eq. (45)).
        alpha: Option<Scalar>,
    },
    /// Rectified Gaussian clip(μ + N(0, σ²), a, b) (HG Def. 3.1).
    Rectified {
        /// Noise standard deviation σ.
        sigma: Scalar,
        /// Lower end of the support.
        a: Scalar,
        /// Upper end of the support.
        b: Scalar,
    },
    /// Truncated Gaussian N(μ, σ²) conditioned on [a, b] (HG Def. 3.2).
    Truncated {
        /// Noise standard deviation σ.
        sigma: Scalar,
        /// Lower end of the support.
        a: Scalar,
        /// Upper end of the support.
        b: Scalar,
    },
    /// Stochastic sign: sign(μ + N(0, σ²)) (HG §4.1).
    StochasticSign {
        /// Noise standard deviation σ.
        sigma: Scalar,
    },
    /// A family of [`crate::model`] (e.g. Laplace), with its `[mechanism]` parameters.
    Model {
        /// The registry entry.
        family: &'static Family,
        /// The `[mechanism]` parameters, in the family's vocabulary order.
        params: Vec<(&'static str, Scalar)>,
    },
}

impl MechanismSpec {
    /// The family name as in the `eval` vocabulary.
    pub fn family(&self) -> &'static str {
        match self {
            MechanismSpec::Gaussian { .. } => "gaussian",
            MechanismSpec::Rgm { .. } => "rgm",
            MechanismSpec::Rectified { .. } => "rectified",
            MechanismSpec::Truncated { .. } => "truncated",
            MechanismSpec::StochasticSign { .. } => "stochastic_sign",
            MechanismSpec::Model { family, .. } => family.name,
        }
    }

    /// The noise σ of the Gaussian mechanism that this one post-processes or restricts (HG: the
    /// bounded-support mechanisms are compared with N(μ, σ²)); `None` for the RGM.
    pub fn base_sigma(&self) -> Option<&Scalar> {
        match self {
            MechanismSpec::Gaussian { sigma }
            | MechanismSpec::Rectified { sigma, .. }
            | MechanismSpec::Truncated { sigma, .. }
            | MechanismSpec::StochasticSign { sigma } => Some(sigma),
            MechanismSpec::Rgm { .. } | MechanismSpec::Model { .. } => None,
        }
    }
}

/// The neighbouring pair of a spec.
#[derive(Clone, Debug, PartialEq)]
pub enum PairSpec {
    /// Scalar locations μ1 (input x) and μ2 (neighbour x′).
    Locations {
        /// Location on x.
        mu1: Scalar,
        /// Location on x′.
        mu2: Scalar,
    },
    /// RGM query values given by ‖r1‖, ‖r2‖ and ‖r1 − r2‖.
    Norms {
        /// ‖r1‖.
        n1: Scalar,
        /// ‖r2‖.
        n2: Scalar,
        /// ‖r1 − r2‖.
        dist: Scalar,
    },
    /// The input keys of a model family (e.g. `gaussian_dd`'s `dist`), in vocabulary order.
    Inputs(Vec<(&'static str, Scalar)>),
}

/// How an audit chooses its rejection region (the engine's [`Selection`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SelectionRule {
    /// Chosen on separate pilot draws (`PILOT_FRACTION` of the main draws per side), then
    /// evaluated on the main draws (default).
    #[default]
    HeldOut,
    /// Every threshold searched on the main draws with a Bonferroni correction.
    Bonferroni,
}

/// Pilot draws of a held-out audit, as a fraction of the main draws (at least [`MIN_PILOT`]).
pub(crate) const PILOT_FRACTION: u64 = 10;
/// Fewest pilot draws per side.
pub(crate) const MIN_PILOT: u64 = 1_000;

impl SelectionRule {
    /// The engine's selection for `samples` main draws per side.
    pub fn engine(self, samples: u64) -> Selection {
        match self {
            SelectionRule::HeldOut => Selection::HeldOut {
                pilot_samples: (samples / PILOT_FRACTION).max(MIN_PILOT),
            },
            SelectionRule::Bonferroni => Selection::Bonferroni,
        }
    }
}

/// Settings of the Monte Carlo audit.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditSettings {
    /// Samples drawn on each side of the pair.
    pub samples_per_side: u64,
    /// The δ at which ε is bounded.
    pub delta: Scalar,
    /// Confidence of the lower bound, in (0, 1).
    pub confidence: f64,
    /// Seed of the deterministic sampler.
    pub seed: u64,
    /// Test statistic: the designed mechanism's log-likelihood ratio (`"white"`, the default) or
    /// a plain output statistic (`"black"`).
    pub statistic: Statistic,
    /// How the audit's rejection region is chosen.
    pub selection: SelectionRule,
    /// Test-only injected fault (always `None` without the `fault-injection` feature).
    pub fault: Option<Fault>,
}

/// A validated audit specification.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditSpec {
    /// Short name (the file stem unless given): used in output file names.
    pub name: String,
    /// One-line description for the report.
    pub description: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// The mechanism.
    pub mechanism: MechanismSpec,
    /// The neighbouring pair.
    pub pair: PairSpec,
    /// The audit settings.
    pub audit: AuditSettings,
}

/// Largest number of samples per side accepted (memory and time guard).
pub(crate) const MAX_SAMPLES: u64 = 1 << 34;
/// Largest dimension accepted: the audit mechanisms' limit.
pub(crate) use crate::mechanisms::gaussian_dd::MAX_DIM;

/// The families an audit spec can name: every family of the registry with neighbouring inputs
/// (a `[pair]`). The subsampled Gaussian has none (its relation fixes the pair); DP-SGD is audited
/// as a training loop (`dpaudit train-audit`).
fn spec_families() -> impl Iterator<Item = &'static Family> {
    model::FAMILIES
        .iter()
        .copied()
        .filter(|f| !f.input_keys.is_empty())
}

/// Context for error messages: the file.
struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn invalid(&self, field: &str, value: impl std::fmt::Display, expected: &str) -> Error {
        Error::invalid(&format!("{}: field {field}", self.file), value, expected)
    }

    fn missing(&self, field: &str, family: &str) -> Error {
        Error::MissingParameter {
            name: format!("{}: field {field}", self.file),
            needed_by: format!("mechanism family {family:?}"),
        }
    }

    fn unexpected(&self, field: &str, family: &str) -> Error {
        Error::invalid(
            &format!("{}: field {field}", self.file),
            "(given)",
            &format!("absent: mechanism family {family:?} does not take it"),
        )
    }

    fn scalar(&self, field: &str, n: &Num) -> Result<Scalar> {
        let t = n.text();
        t.parse::<Scalar>()
            .map_err(|_| self.invalid(field, format!("{t:?}"), "a finite decimal number"))
    }

    fn req(&self, field: &str, n: &Option<Num>, family: &str) -> Result<Scalar> {
        match n {
            Some(n) => self.scalar(field, n),
            None => Err(self.missing(field, family)),
        }
    }

    fn positive(&self, field: &str, n: &Option<Num>, family: &str) -> Result<Scalar> {
        let s = self.req(field, n, family)?;
        if s.mp(256) > 0 {
            Ok(s)
        } else {
            Err(self.invalid(field, &s, "> 0"))
        }
    }

    fn dim(&self, d: Option<i64>, family: &str) -> Result<u32> {
        match d {
            Some(d) if d >= 1 && d <= i64::from(MAX_DIM) => Ok(d as u32),
            Some(d) => {
                Err(self.invalid("mechanism.d", d, &format!("an integer in [1, {MAX_DIM}]")))
            }
            None => Err(self.missing("mechanism.d", family)),
        }
    }

    fn nonneg(&self, field: &str, n: &Option<Num>, family: &str) -> Result<Scalar> {
        let s = self.req(field, n, family)?;
        if s.mp(256) >= 0 {
            Ok(s)
        } else {
            Err(self.invalid(field, &s, ">= 0"))
        }
    }
}

impl AuditSpec {
    /// Reads and validates a spec file.
    pub fn from_file(path: &Path) -> Result<AuditSpec> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Io(format!("cannot read audit spec {}: {e}", path.display())))?;
        Self::from_toml(&text, path)
    }

    /// Parses and validates a spec given as TOML text; `path` names it in messages and gives the
    /// default name (its stem).
    pub fn from_toml(text: &str, path: &Path) -> Result<AuditSpec> {
        let file = path.display().to_string();
        let ctx = Ctx { file: &file };
        let raw: RawSpec = toml::from_str(text).map_err(|e| Error::Parse {
            what: "audit spec".into(),
            text: file.clone(),
            reason: e.to_string().trim_end().replace('\n', " | "),
        })?;
        let name = spec_name(&ctx, raw.name, path)?;
        let mechanism = mechanism_section(&ctx, &raw.mechanism)?;
        let fam = raw.mechanism.family.as_str();
        let pair = pair_section(&ctx, &raw.pair, &mechanism, fam)?;
        let spec = AuditSpec {
            name,
            description: raw.description.unwrap_or_default(),
            path: path.to_path_buf(),
            mechanism,
            pair,
            audit: audit_section(&ctx, &raw.audit)?,
        };
        spec.check_across_sections(&ctx)?;
        Ok(spec)
    }

    /// The checks across sections: builds the divergence pair and the sampler (the remaining
    /// validation: triangle inequalities, the samplers' own limits …), refuses equal laws, and
    /// checks the RGM's relative sensitivity and Theorem 1's σ² (HMB Def. 2, Thm 1).
    fn check_across_sections(&self, ctx: &Ctx<'_>) -> Result<()> {
        let file = ctx.file.to_string();
        // Builds the divergence pair and the sampler: runs the remaining validation (triangle
        // inequalities, the samplers' own limits …).
        let wrap = |e: Error| Error::Parse {
            what: "audit spec".into(),
            text: file.clone(),
            reason: format!("[mechanism]/[pair]: {e}"),
        };
        let built = self.divergence_pair().map_err(wrap)?;
        if matches!(self.pair, PairSpec::Inputs(_)) && built.model().identical() {
            return Err(ctx.invalid(
                "pair",
                &built,
                "two different laws (a neighbouring pair with equal output laws has ε = 0)",
            ));
        }
        if let (
            MechanismSpec::Rgm {
                gamma,
                sigma2,
                eta,
                r,
                ..
            },
            PairSpec::Norms { n1, n2, dist },
        ) = (&self.mechanism, &self.pair)
        {
            check_relative_sensitivity(ctx, eta, r, n1, n2, dist)?;
            check_theorem1_sigma2(ctx, gamma, sigma2, eta, r)?;
        }
        self.mechanism().map_err(wrap)?;
        Ok(())
    }

    /// The pair of output distributions (P on x, Q on x′) as the numerical core's [`Pair`].
    pub fn divergence_pair(&self) -> Result<Pair> {
        match (&self.mechanism, &self.pair) {
            (MechanismSpec::Gaussian { sigma }, PairSpec::Locations { mu1, mu2 }) => {
                Pair::gaussian(mu1.clone(), mu2.clone(), sigma.clone())
            }
            (MechanismSpec::StochasticSign { sigma }, PairSpec::Locations { mu1, mu2 }) => {
                Pair::stochastic_sign(mu1.clone(), mu2.clone(), sigma.clone())
            }
            (MechanismSpec::Rectified { sigma, a, b }, PairSpec::Locations { mu1, mu2 }) => {
                Pair::rectified(
                    mu1.clone(),
                    mu2.clone(),
                    sigma.clone(),
                    a.clone(),
                    b.clone(),
                )
            }
            (MechanismSpec::Truncated { sigma, a, b }, PairSpec::Locations { mu1, mu2 }) => {
                Pair::truncated(
                    mu1.clone(),
                    mu2.clone(),
                    sigma.clone(),
                    a.clone(),
                    b.clone(),
                )
            }
            (
                MechanismSpec::Rgm {
                    d, gamma, sigma2, ..
                },
                PairSpec::Norms { n1, n2, dist },
            ) => Pair::rgm(
                *d,
                gamma.clone(),
                sigma2.clone(),
                n1.clone(),
                n2.clone(),
                dist.clone(),
            ),
            (
                MechanismSpec::Model { family, params },
                pair @ (PairSpec::Locations { .. } | PairSpec::Inputs(_)),
            ) => {
                let inputs: Vec<(&str, &Scalar)> = match pair {
                    PairSpec::Locations { mu1, mu2 } => vec![("mu1", mu1), ("mu2", mu2)],
                    PairSpec::Inputs(v) => v.iter().map(|(k, x)| (*k, x)).collect(),
                    PairSpec::Norms { .. } => Vec::new(),
                };
                let lookup = |k: &str| -> Result<Scalar> {
                    inputs
                        .iter()
                        .copied()
                        .chain(params.iter().map(|(n, x)| (*n, x)))
                        .find(|(n, _)| *n == k)
                        .map(|(_, x)| x.clone())
                        .ok_or_else(|| Error::MissingParameter {
                            name: k.into(),
                            needed_by: format!("mechanism family {}", family.name),
                        })
                };
                (family.pair)(&lookup).map(Pair::new)
            }
            _ => Err(Error::Unsupported(format!(
                "{}: the pair does not fit mechanism family {}",
                self.path.display(),
                self.mechanism.family()
            ))),
        }
    }

    /// The audit engine's mechanism for this spec (the sampler of the pair, in double precision).
    /// The RGM pair is realised as r1 = n1·e₁ and r2 in the plane of e₁, e₂.
    pub fn mechanism(&self) -> Result<Box<dyn Mechanism>> {
        match (self.audit.fault, &self.mechanism) {
            (None, _) => {}
            (Some(Fault::AuditError), _) => {}
            (Some(Fault::HalvedSigma), MechanismSpec::Gaussian { sigma }) => {
                return Ok(Box::new(HalvedSigmaGaussian::new(
                    self.shift().f64(),
                    sigma.f64(),
                )?))
            }
            (Some(Fault::HalvedSigma), m) => {
                return Err(Error::Unsupported(format!(
                    "{}: injected fault halved_sigma needs family gaussian, not {}",
                    self.path.display(),
                    m.family()
                )))
            }
        }
        crate::audit::mechanisms::for_pair(&self.divergence_pair()?)
    }

    /// The engine's configuration for this spec with `samples` main draws per side.
    pub fn audit_config(&self, samples: u64, progress: Observer) -> AuditConfig {
        AuditConfig {
            samples_per_side: if self.audit.fault == Some(Fault::AuditError) {
                0
            } else {
                samples
            },
            delta: self.audit.delta.f64(),
            confidence: self.audit.confidence,
            seed: self.audit.seed,
            statistic: self.audit.statistic,
            selection: self.audit.selection.engine(samples),
            progress,
            ..AuditConfig::default()
        }
    }

    /// |μ1 − μ2| for location pairs (the sensitivity the Gaussian comparison uses); ‖r1 − r2‖
    /// for the RGM; the input `dist` of a family given by its inputs (0 if it has none).
    pub fn shift(&self) -> Scalar {
        match &self.pair {
            PairSpec::Locations { mu1, mu2 } => {
                let p = 256;
                Scalar::from_float(&Float::with_val(p, mu1.mp(p) - mu2.mp(p)).abs())
            }
            PairSpec::Norms { dist, .. } => dist.clone(),
            PairSpec::Inputs(v) => v
                .iter()
                .find(|(k, _)| *k == "dist")
                .map_or_else(|| Scalar::from(0.0), |(_, x)| x.clone()),
        }
    }
}

mod checks;
pub(crate) use checks::*;

/// The spec's name: `name`, else the file stem; it names output files, so only ASCII letters,
/// digits, '_' and '-'.
fn spec_name(ctx: &Ctx<'_>, name: Option<String>, path: &Path) -> Result<String> {
    let name = match name {
        Some(n) => n,
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "audit".into()),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(ctx.invalid(
            "name",
            format!("{name:?}"),
            "non-empty, only ASCII letters, digits, '_' and '-' (it names output files)",
        ));
    }
    Ok(name)
}

/// The `[mechanism]` section: the family and its parameters, validated. The Gaussian-family laws
/// carry their bounds' parameters; every other registered family is read from its vocabulary.
fn mechanism_section(ctx: &Ctx<'_>, m: &RawMechanism) -> Result<MechanismSpec> {
    let fam = m.family.as_str();
    // Every `[mechanism]` key given must be one the family takes (checked in the order of
    // `RawMechanism::present`).
    let only = |allowed: &[&str]| -> Result<()> {
        for (k, given) in m.present() {
            if given && !allowed.contains(&k) {
                return Err(ctx.unexpected(&format!("mechanism.{k}"), fam));
            }
        }
        Ok(())
    };
    let mechanism = match fam {
        "gaussian" | "stochastic_sign" => {
            only(&["sigma"])?;
            let sigma = ctx.positive("mechanism.sigma", &m.sigma, fam)?;
            if fam == "gaussian" {
                MechanismSpec::Gaussian { sigma }
            } else {
                MechanismSpec::StochasticSign { sigma }
            }
        }
        "rectified" | "truncated" => {
            only(&["sigma", "a", "b"])?;
            let sigma = ctx.positive("mechanism.sigma", &m.sigma, fam)?;
            let a = ctx.req("mechanism.a", &m.a, fam)?;
            let b = ctx.req("mechanism.b", &m.b, fam)?;
            if a.mp(256) >= b.mp(256) {
                return Err(ctx.invalid("mechanism.a", &a, &format!("< mechanism.b = {b}")));
            }
            if fam == "rectified" {
                MechanismSpec::Rectified { sigma, a, b }
            } else {
                MechanismSpec::Truncated { sigma, a, b }
            }
        }
        "rgm" => {
            only(&["d", "gamma", "sigma2", "eta", "R", "alpha"])?;
            let d = ctx.dim(m.d, fam)?;
            let gamma = ctx.positive("mechanism.gamma", &m.gamma, fam)?;
            let sigma2 = ctx.nonneg("mechanism.sigma2", &m.sigma2, fam)?;
            let eta = ctx.positive("mechanism.eta", &m.eta, fam)?;
            let r = ctx.nonneg("mechanism.R", &m.r, fam)?;
            let alpha = match &m.alpha {
                Some(n) => {
                    let a = ctx.scalar("mechanism.alpha", n)?;
                    if a.mp(256) <= 1 {
                        return Err(ctx.invalid("mechanism.alpha", &a, "> 1"));
                    }
                    Some(a)
                }
                None => None,
            };
            MechanismSpec::Rgm {
                d,
                gamma,
                sigma2,
                eta,
                r,
                alpha,
            }
        }
        // The Gaussian-family laws above carry their bounds' parameters; every other family
        // of the registry with neighbouring inputs is read from its vocabulary: its input keys
        // form `[pair]`, its other keys `[mechanism]`.
        other => match spec_families().find(|f| f.name == other) {
            Some(family) => {
                let takes =
                    |k: &str| family.pair_keys.contains(&k) && !family.input_keys.contains(&k);
                let keys: Vec<&'static str> = family
                    .pair_keys
                    .iter()
                    .copied()
                    .filter(|k| takes(k))
                    .collect();
                only(&keys)?;
                let fields = m.fields();
                let mut params = Vec::new();
                for k in keys {
                    let field = format!("mechanism.{k}");
                    let v = if k == "d" {
                        Scalar::from(ctx.dim(m.d, fam)?)
                    } else {
                        match fields.iter().find(|(n, _)| *n == k).and_then(|(_, v)| *v) {
                            Some(v) => ctx.scalar(&field, v)?,
                            None => return Err(ctx.missing(&field, fam)),
                        }
                    };
                    params.push((k, v));
                }
                MechanismSpec::Model { family, params }
            }
            None => {
                let names: Vec<&str> = spec_families().map(|f| f.name).collect();
                return Err(ctx.invalid(
                    "mechanism.family",
                    format!("{other:?}"),
                    &format!("one of {}", names.join(", ")),
                ));
            }
        },
    };
    Ok(mechanism)
}

/// The `[pair]` section of a spec whose mechanism is `mechanism` (family `fam`): the input keys
/// of a registered family, the RGM's norms, or two different locations.
fn pair_section(
    ctx: &Ctx<'_>,
    p: &RawPair,
    mechanism: &MechanismSpec,
    fam: &str,
) -> Result<PairSpec> {
    let unused = |present: &[(&str, bool)]| -> Result<()> {
        for (f, p) in present {
            if *p {
                return Err(ctx.unexpected(f, fam));
            }
        }
        Ok(())
    };
    let inputs = match &mechanism {
        MechanismSpec::Model { family, .. } if family.input_keys != ["mu1", "mu2"] => {
            Some(family.input_keys)
        }
        _ => None,
    };
    let pair = if let Some(keys) = inputs {
        let mut values = Vec::new();
        for (k, v) in p.fields() {
            let field = format!("pair.{k}");
            if keys.contains(&k) {
                values.push((k, ctx.req(&field, v, fam)?));
            } else if v.is_some() {
                return Err(ctx.unexpected(&field, fam));
            }
        }
        PairSpec::Inputs(values)
    } else if let MechanismSpec::Rgm { .. } = mechanism {
        unused(&[("pair.mu1", p.mu1.is_some()), ("pair.mu2", p.mu2.is_some())])?;
        PairSpec::Norms {
            n1: ctx.nonneg("pair.n1", &p.n1, fam)?,
            n2: ctx.nonneg("pair.n2", &p.n2, fam)?,
            dist: ctx.nonneg("pair.dist", &p.dist, fam)?,
        }
    } else {
        unused(&[
            ("pair.n1", p.n1.is_some()),
            ("pair.n2", p.n2.is_some()),
            ("pair.dist", p.dist.is_some()),
        ])?;
        let mu1 = ctx.req("pair.mu1", &p.mu1, fam)?;
        let mu2 = ctx.req("pair.mu2", &p.mu2, fam)?;
        if mu1 == mu2 {
            return Err(ctx.invalid(
                "pair.mu2",
                &mu2,
                "different from pair.mu1 (a neighbouring pair with equal outputs has ε = 0)",
            ));
        }
        PairSpec::Locations { mu1, mu2 }
    };
    Ok(pair)
}

/// The `[audit]` section: sample size, δ, confidence, statistic, selection rule, seed (and the
/// injected fault of the `fault-injection` feature).
fn audit_section(ctx: &Ctx<'_>, a: &RawAudit) -> Result<AuditSettings> {
    let samples_per_side = if a.samples_per_side >= 2 && a.samples_per_side as u64 <= MAX_SAMPLES {
        a.samples_per_side as u64
    } else {
        return Err(ctx.invalid(
            "audit.samples_per_side",
            a.samples_per_side,
            &format!("an integer in [2, {MAX_SAMPLES}]"),
        ));
    };
    let delta = ctx.scalar("audit.delta", &a.delta)?;
    if !delta.in_open_unit() {
        return Err(ctx.invalid("audit.delta", &delta, "in (0, 1)"));
    }
    let conf = ctx.scalar("audit.confidence", &a.confidence)?.f64();
    if !(conf > 0.5 && conf < 1.0) {
        return Err(ctx.invalid("audit.confidence", conf, "in (0.5, 1), e.g. 0.95"));
    }
    let statistic = match &a.statistic {
        None => Statistic::default(),
        Some(t) => t.parse::<Statistic>().map_err(|_| {
            ctx.invalid(
                "audit.statistic",
                format!("{t:?}"),
                "one of \"white\", \"black\"",
            )
        })?,
    };
    let selection = match a.selection.as_deref() {
        None | Some("held_out") | Some("held-out") => SelectionRule::HeldOut,
        Some("bonferroni") => SelectionRule::Bonferroni,
        Some(t) => {
            return Err(ctx.invalid(
                "audit.selection",
                format!("{t:?}"),
                "one of \"held_out\", \"bonferroni\"",
            ))
        }
    };
    if a.seed < 0 {
        return Err(ctx.invalid("audit.seed", a.seed, "an integer >= 0"));
    }
    #[cfg(feature = "fault-injection")]
    let fault = match a.fault.as_deref() {
        None => None,
        Some("halved_sigma") => Some(Fault::HalvedSigma),
        Some("audit_error") => Some(Fault::AuditError),
        Some(t) => {
            return Err(ctx.invalid(
                "audit.fault",
                format!("{t:?}"),
                "one of \"halved_sigma\", \"audit_error\"",
            ))
        }
    };
    #[cfg(not(feature = "fault-injection"))]
    let fault = None;
    Ok(AuditSettings {
        samples_per_side,
        delta,
        confidence: conf,
        seed: a.seed as u64,
        statistic,
        selection,
        fault,
    })
}

mod raw;
use raw::{Num, RawAudit, RawMechanism, RawPair, RawSpec};

#[cfg(test)]
mod tests;
