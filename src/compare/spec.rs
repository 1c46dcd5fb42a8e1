//! Audit specifications: the `audits/*.toml` files that name a mechanism, a neighbouring pair
//! and the settings of a Monte Carlo audit.
//!
//! A spec is parsed with serde/toml into raw tables (unknown top-level keys and `[audit]` keys are
//! rejected by serde), then validated into the typed [`AuditSpec`]. Every problem is an [`Error`]
//! whose message names the file and the field (`audits/x.toml: field audit.delta = 2: must be in
//! (0, 1)`); nothing panics on bad input. Numbers may be written as TOML numbers or as strings;
//! strings keep the exact decimal (`"1.001"` is 1.001, not the nearest double), which is what the
//! certified routes use.
//!
//! ```toml
//! name = "gaussian"                       # optional, default: the file stem
//! description = "Gaussian mechanism, sensitivity 1"
//!
//! [mechanism]
//! family = "gaussian"                     # any family of the registry with a neighbouring pair
//! sigma = "5"                             # the family's keys that are not inputs (+ its extra keys)
//!
//! [pair]                                  # the family's input keys (e.g. mu1, mu2)
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
//! One generic form serves every family of the registry ([`crate::model::FAMILIES`]):
//! [`MechanismSpec`] is `{ family, params }`. The family's vocabulary decides the sections: its
//! input keys ([`Family::input_keys`]) form `[pair]`, its other pair keys `[mechanism]`, and its
//! registry data (`crate::model::SpecForm`, owned by its file in `crate::mechanisms`) adds
//! the `[mechanism]` keys of its papers' bounds (e.g. the RGM's relative sensitivity `eta`, `R`
//! of HMB Def. 2 and an optional Rényi order `alpha`), the rule each key is checked by (its
//! message names the field), and a check across keys (e.g. HMB Def. 2 and Theorem 1's σ²; a
//! support a < b), run before the pair is built. A family without such data shows its published
//! guarantee ([`crate::model::Guarantee`]) as its three-way bound. The subsampled Gaussian has no
//! spec: its pair is fixed by the neighbouring relation, and DP-SGD is audited as a training loop
//! (`dpaudit train-audit`).

use crate::audit::controls::HalvedSigmaGaussian;
use crate::audit::engine::{AuditConfig, Observer, Selection};
use crate::audit::mechanisms::{Mechanism, Statistic};
use crate::divergence::Pair;
use crate::error::{Error, Result};
use crate::model::spec_form::KeyRule;
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

/// The mechanism of a spec: a registered family and its validated `[mechanism]` parameters — one
/// generic form for every family.
#[derive(Clone, Debug, PartialEq)]
pub struct MechanismSpec {
    /// The registry entry.
    pub family: &'static Family,
    /// The `[mechanism]` parameters: the family's pair keys that are not inputs, then the extra
    /// keys of its papers' bounds (`crate::model::SpecForm::extra_keys`; an absent optional key
    /// is left out).
    pub params: Vec<(&'static str, Scalar)>,
}

impl MechanismSpec {
    /// The family name as in the `eval` vocabulary.
    pub fn family(&self) -> &'static str {
        self.family.name
    }
}

/// The neighbouring pair of a spec: the family's input keys, in vocabulary order.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSpec {
    /// The `[pair]` values.
    pub inputs: Vec<(&'static str, Scalar)>,
}

impl PairSpec {
    /// The value of input `key`, if the family has it.
    pub fn get(&self, key: &str) -> Option<&Scalar> {
        self.inputs.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
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
    pub(crate) fn engine(self, samples: u64) -> Selection {
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

    /// The value of `key` in `table` (section `section`) checked by its rule; `None` for an
    /// absent optional key.
    fn value(
        &self,
        section: &str,
        key: &'static str,
        table: &RawTable,
        family: &Family,
    ) -> Result<Option<Scalar>> {
        let field = format!("{section}.{key}");
        let rule = family.spec.rule(key);
        let Some(n) = table.get(key) else {
            return match rule {
                Some(KeyRule::OptionalOrder) => Ok(None),
                _ => Err(self.missing(&field, family.name)),
            };
        };
        let s = match rule {
            Some(KeyRule::Dim(max)) => return self.dim(&field, n, max).map(Some),
            _ => self.scalar(&field, n)?,
        };
        let ok = match rule {
            Some(KeyRule::Positive) => s.mp(256) > 0,
            Some(KeyRule::NonNegative) => s.mp(256) >= 0,
            Some(KeyRule::OptionalOrder) => s.mp(256) > 1,
            Some(KeyRule::Dim(_)) | None => true,
        };
        if ok {
            return Ok(Some(s));
        }
        let expected = match rule {
            Some(KeyRule::Positive) => "> 0",
            Some(KeyRule::OptionalOrder) => "> 1",
            _ => ">= 0",
        };
        Err(self.invalid(&field, &s, expected))
    }

    /// A dimension: a TOML integer in [1, max].
    fn dim(&self, field: &str, n: &Num, max: u32) -> Result<Scalar> {
        match n {
            Num::Int(d) if *d >= 1 && *d <= i64::from(max) => Ok(Scalar::from(*d as u32)),
            _ => Err(self.invalid(field, n.text(), &format!("an integer in [1, {max}]"))),
        }
    }

    /// Refuses every key of `table` (section `section`) that the family does not take.
    fn only(&self, section: &str, table: &RawTable, takes: &[&str], family: &str) -> Result<()> {
        match table.keys().find(|k| !takes.contains(&k.as_str())) {
            Some(k) => Err(self.unexpected(&format!("{section}.{k}"), family)),
            None => Ok(()),
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
        let mut raw: RawSpec = toml::from_str(text).map_err(|e| Error::Parse {
            what: "audit spec".into(),
            text: file.clone(),
            reason: e.to_string().trim_end().replace('\n', " | "),
        })?;
        let name = spec_name(&ctx, raw.name, path)?;
        let family = spec_family(&ctx, raw.mechanism.remove("family"))?;
        let mechanism = mechanism_section(&ctx, &raw.mechanism, family)?;
        let pair = pair_section(&ctx, &raw.pair, family)?;
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

    /// The checks across sections: the family's own (e.g. HMB Def. 2 and Theorem 1's σ² for the
    /// RGM, a < b for a support), then building the divergence pair and the sampler (the
    /// remaining validation: triangle inequalities, the samplers' own limits …), and refusing
    /// equal laws.
    fn check_across_sections(&self, ctx: &Ctx<'_>) -> Result<()> {
        if let Some(check) = self.mechanism.family.spec.check {
            self.with_params(check)
                .map_err(|i| ctx.invalid(i.field, i.value, &i.expected))?;
        }
        let file = ctx.file.to_string();
        let wrap = |e: Error| Error::Parse {
            what: "audit spec".into(),
            text: file.clone(),
            reason: format!("[mechanism]/[pair]: {e}"),
        };
        let built = self.divergence_pair().map_err(wrap)?;
        if !self.has_locations() && built.model().identical() {
            return Err(ctx.invalid(
                "pair",
                &built,
                "two different laws (a neighbouring pair with equal output laws has ε = 0)",
            ));
        }
        self.mechanism().map_err(wrap)?;
        Ok(())
    }

    /// Whether the pair is two locations `mu1`, `mu2` (checked different when read).
    fn has_locations(&self) -> bool {
        self.mechanism.family.input_keys == ["mu1", "mu2"]
    }

    /// Calls `f` with the spec's values as the family's spec functions read them.
    pub(crate) fn with_params<R>(
        &self,
        f: impl FnOnce(&model::spec_form::SpecParams<'_>) -> R,
    ) -> R {
        let values: Vec<(&'static str, Scalar)> = self
            .mechanism
            .params
            .iter()
            .chain(&self.pair.inputs)
            .cloned()
            .collect();
        let shift = self.shift();
        f(&model::spec_form::SpecParams {
            values: &values,
            shift: &shift,
            delta: &self.audit.delta,
        })
    }

    /// The pair of output distributions (P on x, Q on x′) as the numerical core's [`Pair`],
    /// built by the family's registry constructor.
    pub fn divergence_pair(&self) -> Result<Pair> {
        let family = self.mechanism.family;
        let lookup = |k: &str| -> Result<Scalar> {
            self.pair
                .inputs
                .iter()
                .chain(&self.mechanism.params)
                .find(|(n, _)| *n == k)
                .map(|(_, x)| x.clone())
                .ok_or_else(|| Error::MissingParameter {
                    name: k.into(),
                    needed_by: format!("mechanism family {}", family.name),
                })
        };
        (family.pair)(&lookup).map(Pair::new)
    }

    /// The audit engine's mechanism for this spec (the sampler of the pair, in double precision).
    pub fn mechanism(&self) -> Result<Box<dyn Mechanism>> {
        if self.audit.fault == Some(Fault::HalvedSigma) {
            return self.halved_sigma();
        }
        crate::audit::mechanisms::for_pair(&self.divergence_pair()?)
    }

    /// The injected fault `halved_sigma`: a Gaussian mechanism on the spec's two locations that
    /// samples with σ/2 (only for a pair that is the Gaussian mechanism: an isotropic normal pair
    /// on two locations).
    fn halved_sigma(&self) -> Result<Box<dyn Mechanism>> {
        let gaussian = self.has_locations()
            && self.divergence_pair()?.model().normal().is_some()
            && self.mechanism.params.len() == 1;
        match self.mechanism.params.first() {
            Some(("sigma", sigma)) if gaussian => Ok(Box::new(HalvedSigmaGaussian::new(
                self.shift().f64(),
                sigma.f64(),
            )?)),
            _ => Err(Error::Unsupported(format!(
                "{}: injected fault halved_sigma needs the Gaussian mechanism (an isotropic \
                 normal pair on two locations with one sigma), not family {}",
                self.path.display(),
                self.mechanism.family()
            ))),
        }
    }

    /// The engine's configuration for this spec with `samples` main draws per side.
    pub(crate) fn audit_config(&self, samples: u64, progress: Observer) -> AuditConfig {
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

    /// |μ1 − μ2| for a pair of locations (the sensitivity the Gaussian comparison uses), else the
    /// input `dist` (0 if the family has none).
    pub fn shift(&self) -> Scalar {
        match (self.pair.get("mu1"), self.pair.get("mu2")) {
            (Some(mu1), Some(mu2)) => {
                let p = 256;
                Scalar::from_float(&Float::with_val(p, mu1.mp(p) - mu2.mp(p)).abs())
            }
            _ => self
                .pair
                .get("dist")
                .map_or_else(|| Scalar::from(0.0), Clone::clone),
        }
    }
}

mod checks;
pub use checks::load_dir;

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

/// The family named by `mechanism.family`: one of the registry's families with a `[pair]`.
fn spec_family(ctx: &Ctx<'_>, name: Option<Num>) -> Result<&'static Family> {
    let Some(name) = name else {
        return Err(Error::MissingParameter {
            name: format!("{}: field mechanism.family", ctx.file),
            needed_by: "every audit spec".into(),
        });
    };
    let text = name.text();
    match (&name, spec_families().find(|f| f.name == text)) {
        (Num::Text(_), Some(family)) => Ok(family),
        _ => {
            let names: Vec<&str> = spec_families().map(|f| f.name).collect();
            Err(ctx.invalid(
                "mechanism.family",
                format!("{text:?}"),
                &format!("one of {}", names.join(", ")),
            ))
        }
    }
}

/// The `[mechanism]` section of `family`: its pair keys that are not inputs, then the extra keys
/// of its papers' bounds, each checked by its rule ([`crate::model::SpecForm::rules`]).
fn mechanism_section(
    ctx: &Ctx<'_>,
    m: &RawTable,
    family: &'static Family,
) -> Result<MechanismSpec> {
    let keys: Vec<&'static str> = family
        .pair_keys
        .iter()
        .filter(|k| !family.input_keys.contains(k))
        .chain(family.spec.extra_keys)
        .copied()
        .collect();
    ctx.only("mechanism", m, &keys, family.name)?;
    let mut params = Vec::new();
    for k in keys {
        if let Some(v) = ctx.value("mechanism", k, m, family)? {
            params.push((k, v));
        }
    }
    Ok(MechanismSpec { family, params })
}

/// The `[pair]` section of `family`: its input keys; two locations `mu1`, `mu2` must differ.
fn pair_section(ctx: &Ctx<'_>, p: &RawTable, family: &'static Family) -> Result<PairSpec> {
    ctx.only("pair", p, family.input_keys, family.name)?;
    let mut inputs = Vec::new();
    for &k in family.input_keys {
        if let Some(v) = ctx.value("pair", k, p, family)? {
            inputs.push((k, v));
        }
    }
    let pair = PairSpec { inputs };
    if let (Some(mu1), Some(mu2)) = (pair.get("mu1"), pair.get("mu2")) {
        if mu1 == mu2 {
            return Err(ctx.invalid(
                "pair.mu2",
                mu2,
                "different from pair.mu1 (a neighbouring pair with equal outputs has ε = 0)",
            ));
        }
    }
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
use raw::{Num, RawAudit, RawSpec, RawTable};

#[cfg(test)]
mod tests;
