//! The comparison's figures that take more than one call of [`crate::bounds`] or
//! [`crate::audit`]: RDP curves converted to (ε, δ), the audits of specs (whole, or in shards for
//! parallel runs) and the positive controls.

use crate::audit::engine::{self, Observer};
use crate::compare::spec::AuditSpec;
use crate::error::Result;

/// Digits certified for the figures of the three-way table.
pub(crate) const DIGITS: u32 = 12;

/// An RDP curve converted with Canonne–Kamath–Steinke and minimised over α ∈ [lo, hi].
pub(crate) use crate::model::spec_form::cks_of_curve;

/// The outcome of one Monte Carlo audit, as the report shows it.
#[derive(Clone, Debug)]
pub struct AuditOutcome {
    /// Assumption-free lower bound on ε at the spec's δ.
    pub eps_lb: f64,
    /// The same bound at confidence 1 − [`engine::STRICT_BETA`]: a VIOLATION is decided on it.
    pub eps_lb_strict: f64,
    /// Its confidence.
    pub confidence: f64,
    /// The Gaussian-DP route's ε (valid only if the trade-off curve is Gaussian).
    pub gdp_eps: Option<f64>,
    /// Further deterministic details (name, value) for the CSV: counts, threshold, rates.
    pub details: Vec<(String, String)>,
    /// Samples drawn per side.
    pub samples: u64,
}

/// Runs the spec's audit with `samples` per side (the engine: seeded, chunked, deterministic).
pub fn run_audit(spec: &AuditSpec, samples: u64, progress: Observer) -> Result<AuditOutcome> {
    let mech = spec.mechanism()?;
    let cfg = spec.audit_config(samples, progress);
    outcome(&engine::run_audit(mech.as_ref(), &cfg)?)
}

/// Draws shard `shard` of the spec's audit with `samples` per side.
#[cfg(feature = "cli")]
pub(crate) fn draw_shard(
    spec: &AuditSpec,
    samples: u64,
    shard: engine::Shard,
    progress: Observer,
) -> Result<engine::AuditDraws> {
    let mech = spec.mechanism()?;
    let cfg = spec.audit_config(samples, progress);
    engine::draw_audit(mech.as_ref(), &cfg, shard)
}

/// The spec's audit finished from the merged draws of all its shards: the same result as
/// [`run_audit`] with the same `samples`.
#[cfg(feature = "cli")]
pub(crate) fn audit_from_draws(
    spec: &AuditSpec,
    samples: u64,
    draws: &engine::AuditDraws,
) -> Result<AuditOutcome> {
    let mech = spec.mechanism()?;
    let cfg = spec.audit_config(samples, crate::audit::engine::Observer::none());
    outcome(&engine::finish_audit(
        mech.as_ref(),
        &cfg,
        draws,
        std::time::Instant::now(),
    )?)
}

fn outcome(r: &engine::AuditResult) -> Result<AuditOutcome> {
    let g = &r.region;
    let f = |x: f64| super::fmt::fmt_num(x);
    let details = vec![
        ("mechanism".to_string(), r.mechanism.clone()),
        ("statistic".into(), r.statistic.to_string()),
        ("selection".into(), r.selection.to_string()),
        (
            "pilot_samples_per_side".into(),
            r.pilot_samples_per_side.to_string(),
        ),
        ("bins".into(), r.bins.to_string()),
        ("confidence".into(), r.confidence.to_string()),
        ("delta".into(), f(r.delta)),
        ("region_tail".into(), g.tail.to_string()),
        ("region_direction".into(), g.direction.to_string()),
        ("region_threshold".into(), f(g.threshold)),
        ("n_pos".into(), g.n_pos.to_string()),
        ("n_neg".into(), g.n_neg.to_string()),
        ("false_positives".into(), g.false_positives.to_string()),
        ("false_negatives".into(), g.false_negatives.to_string()),
        ("fpr_upper".into(), f(g.fpr_ub)),
        ("fnr_upper".into(), f(g.fnr_ub)),
        ("eps_point_estimate".into(), f(g.eps_point)),
        ("eps_lb".into(), f(r.eps_lb)),
        ("eps_lb_strict".into(), f(r.eps_lb_strict)),
        ("gdp_mu_lb".into(), f(r.gdp.mu_lb)),
        (
            "gdp_eps_assuming_gaussian_tradeoff".into(),
            f(r.gdp.eps_lb_gdp),
        ),
        (
            "engine_claimed_eps".into(),
            r.claimed_eps.map(f).unwrap_or_default(),
        ),
        ("engine_claim_source".into(), r.claim_source.clone()),
        ("engine_flagged".into(), r.flagged.to_string()),
    ];
    Ok(AuditOutcome {
        eps_lb: r.eps_lb,
        eps_lb_strict: r.eps_lb_strict,
        confidence: r.confidence,
        gdp_eps: Some(r.gdp.eps_lb_gdp),
        details,
        samples: r.samples_per_side,
    })
}

/// A positive control: a deliberately broken mechanism with the ε it claims.
#[cfg(feature = "cli")]
#[derive(Clone, Debug)]
pub(crate) struct ControlOutcome {
    /// Name of the control.
    pub name: String,
    /// What is broken.
    pub description: String,
    /// The ε the broken mechanism claims at δ.
    pub claimed_eps: f64,
    /// The δ.
    pub delta: f64,
    /// The audit's lower bound.
    pub eps_lb: f64,
    /// Its confidence.
    pub confidence: f64,
    /// The lower bound at confidence 1 − [`engine::STRICT_BETA`]: a control counts as caught
    /// only if this one exceeds the claim (the same test as a VIOLATION).
    pub eps_lb_strict: f64,
}

/// δ of the positive controls.
#[cfg(feature = "cli")]
pub(crate) const CONTROL_DELTA: f64 = 1e-3;
/// Confidence of the positive controls' audits.
#[cfg(feature = "cli")]
pub(crate) const CONTROL_CONFIDENCE: f64 = 0.95;

/// Runs every positive control of [`crate::audit::controls`] with `samples` per side (white-box
/// statistic, held-out selection, fixed seeds). The parameters are those of the engine's own
/// control tests, where the broken mechanisms' true ε exceeds the claim by ≥ 1.8.
/// `progress` makes the observer of each control's audit.
#[cfg(feature = "cli")]
pub(crate) fn run_controls(
    samples: u64,
    progress: &dyn Fn() -> Observer,
) -> Result<Vec<ControlOutcome>> {
    use crate::audit::controls::{registered, BrokenSampler, HalvedSigmaGaussian};
    use crate::audit::engine::AuditConfig;
    use crate::audit::mechanisms::{Mechanism, Statistic};
    use crate::error::Error;
    // The engine's own Gaussian mechanism with σ halved, then the families' controls.
    let mut controls: Vec<(Box<dyn Mechanism>, &str, u64)> = vec![(
        Box::new(HalvedSigmaGaussian::new(1.0, 2.0)?),
        "Gaussian mechanism (Δ = 1) claiming σ = 2 but sampling with σ = 1",
        101,
    )];
    for (_, c) in registered() {
        controls.push((
            Box::new(BrokenSampler::new((c.build)()?)),
            c.description,
            c.seed,
        ));
    }
    controls
        .iter()
        .map(|(m, what, seed)| {
            let cfg = AuditConfig {
                samples_per_side: samples,
                delta: CONTROL_DELTA,
                confidence: CONTROL_CONFIDENCE,
                seed: *seed,
                statistic: Statistic::White,
                selection: crate::compare::spec::SelectionRule::HeldOut.engine(samples),
                progress: progress(),
                ..AuditConfig::default()
            };
            let r = engine::run_audit(m.as_ref(), &cfg)?;
            Ok(ControlOutcome {
                name: r.mechanism.clone(),
                description: (*what).to_string(),
                claimed_eps: r.claimed_eps.ok_or_else(|| {
                    Error::Undefined(format!("no claimed eps for control {}", r.mechanism))
                })?,
                delta: CONTROL_DELTA,
                eps_lb: r.eps_lb,
                confidence: r.confidence,
                eps_lb_strict: r.eps_lb_strict,
            })
        })
        .collect()
}

/// Verdict of a positive control: the audit's strict lower bound (confidence 1 − 1e-6, the
/// VIOLATION test) is expected to exceed the claim.
#[cfg(feature = "cli")]
pub(crate) fn control_caught(c: &ControlOutcome) -> bool {
    c.eps_lb_strict > c.claimed_eps
}
