//! Adapters from the report to the rest of the crate: the papers' bounds ([`crate::bounds`]) and
//! the Monte Carlo engine ([`crate::audit`]). Keeping every call in one file keeps the report
//! independent of how those modules spell their APIs.

use crate::audit::spec::AuditSpec;
use crate::bounds::{self, conversion::Conversion};
use crate::error::{Error, Result};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::Float;

/// Digits certified for the figures of the three-way table.
pub const DIGITS: u32 = 12;

/// ε(δ) of the Gaussian mechanism with sensitivity `shift` and noise `sigma` from its RDP curve
/// α·shift²/(2σ²) (Mironov 2017, Prop. 7) converted with Canonne–Kamath–Steinke 2020, Prop. 12,
/// minimised over α. Returns (ε, α*).
pub fn gaussian_cks(shift: &Scalar, sigma: &Scalar, delta: &Scalar) -> Result<(f64, f64)> {
    cks_of_curve(
        |a| {
            let c = bounds::gaussian::rdp_eps(shift, sigma, &Scalar::from_float(a), DIGITS)?;
            Ok(c.value)
        },
        1.0 + 1e-4,
        1e5,
        delta,
    )
}

/// The Gaussian mechanism's exact ε(δ) by Balle & Wang 2018, Thm 8, certified.
pub fn gaussian_bw(shift: &Scalar, sigma: &Scalar, delta: &Scalar) -> Result<Certified> {
    let pair = crate::divergence::Pair::gaussian(Scalar::from(0u32), shift.clone(), sigma.clone())?;
    crate::divergence::eps_for_delta(&pair, delta, DIGITS, crate::divergence::Method::ClosedForm)
}

/// HMB Corollary 1, eq. (44).
pub fn rgm_corollary1(eta: &Scalar, gamma: &Scalar, d: u32, delta: &Scalar) -> Result<Certified> {
    crate::bounds::rgm::corollary1_eps(eta, gamma, d, delta, DIGITS)
}

/// HMB eq. (45) minimised over α: (ε, α*).
pub fn rgm_eq45(
    eta: &Scalar,
    gamma: &Scalar,
    d: u32,
    delta: &Scalar,
) -> Result<(Certified, Certified)> {
    crate::bounds::rgm::optimized_dp_eps(eta, gamma, d, delta, DIGITS)
}

/// HMB Theorem 1, eq. (5) at α.
pub fn rgm_theorem1(eta: &Scalar, gamma: &Scalar, d: u32, alpha: &Scalar) -> Result<Certified> {
    crate::bounds::rgm::theorem1_eps(eta, gamma, d, alpha, DIGITS)
}

/// HMB Theorem 1 in double precision (plots); `None` outside its α-range.
pub fn rgm_theorem1_f64(eta: f64, gamma: f64, d: u32, alpha: f64) -> Option<f64> {
    bounds::rgm::theorem1_eps_f64(eta, gamma, d, alpha).ok()
}

/// HMB Corollary 1, eq. (44), in double precision (plots); `None` outside its assumption.
pub fn rgm_corollary1_f64(eta: f64, gamma: f64, d: u32, delta: f64) -> Option<f64> {
    bounds::rgm::corollary1_eps_f64(eta, gamma, d, delta).ok()
}

/// HMB eq. (45) minimised over α, in double precision (plots).
pub fn rgm_eq45_f64(eta: f64, gamma: f64, d: u32, delta: f64) -> Option<f64> {
    bounds::rgm::optimized_dp_eps_f64(eta, gamma, d, delta)
        .ok()
        .map(|(e, _)| e)
}

/// An RDP curve converted with Canonne–Kamath–Steinke and minimised over α ∈ [lo, hi]; `rdp`
/// returns D_α at the precision of its argument. Returns (ε, α*).
pub fn cks_of_curve<F>(rdp: F, lo: f64, hi: f64, delta: &Scalar) -> Result<(f64, f64)>
where
    F: FnMut(&Float) -> Result<Float>,
{
    let (e, a) = bounds::conversion::optimize_over_alpha(
        rdp,
        &Float::with_val(OPT_BITS, lo),
        &Float::with_val(OPT_BITS, hi),
        &delta.mp(OPT_BITS),
        Conversion::CanonneKamathSteinke,
    )?;
    Ok((e.to_f64(), a.to_f64()))
}

/// Working precision of the α-optimisations (the value is a valid bound at any accuracy).
const OPT_BITS: u32 = 128;

/// The outcome of one Monte Carlo audit, as the report shows it.
#[derive(Clone, Debug)]
pub struct AuditOutcome {
    /// Assumption-free lower bound on ε at the spec's δ.
    pub eps_lb: f64,
    /// Its confidence.
    pub confidence: f64,
    /// The Gaussian-DP route's ε (valid only if the trade-off curve is Gaussian).
    pub gdp_eps: Option<f64>,
    /// Further deterministic details (name, value) for the CSV: counts, threshold, rates.
    pub details: Vec<(String, String)>,
    /// Samples drawn per side.
    pub samples: u64,
}

/// Runs the spec's audit with `samples` per side.
pub fn run_audit(spec: &AuditSpec, samples: u64, progress: bool) -> Result<AuditOutcome> {
    let _ = (spec, samples, progress);
    Err(Error::Unsupported(
        "audit engine (audit::engine) not available yet".into(),
    ))
}

/// A positive control: a deliberately broken mechanism with the ε it claims.
#[derive(Clone, Debug)]
pub struct ControlOutcome {
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
}

/// Runs every positive control with `samples` per side.
pub fn run_controls(samples: u64, progress: bool) -> Result<Vec<ControlOutcome>> {
    let _ = (samples, progress);
    Err(Error::Unsupported(
        "positive controls (audit::controls) not available yet".into(),
    ))
}

/// Canonne–Kamath–Steinke 2020, Prop. 12 in double precision (plots).
pub fn cks_f64(eps_alpha: f64, alpha: f64, delta: f64) -> Result<f64> {
    bounds::conversion::cks_f64(eps_alpha, alpha, delta)
}
