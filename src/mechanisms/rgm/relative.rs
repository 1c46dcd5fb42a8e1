//! The RGM's relative-noise hook ([`crate::model::noise::RelativeNoise`]): what HMB's two-node
//! private gradient descent takes from the family (`docs/training.md`).
//!
//! * the noise: r + N(0, (γ‖r‖² + σ²) I_d) (HMB Def. 3), drawn with `rand_distr::StandardNormal`
//!   one coordinate after the other ([`super::Rgm`]);
//! * the calibration of (γ, σ²) for a per-step Rényi target (α, ε) by HMB Theorem 1 (eq. (5)
//!   solved for γ, σ² = γR²/η² as in eq. (6), Theorem 1's σ² condition checked);
//! * the per-run guarantee of T steps: Theorem 1 per step at α = 2 and composed through eq. (45)
//!   at (η, γ/T, T d); the exact worst case over neighbouring datasets ([`super::RgmWorstCase`],
//!   docs/formulas.md §5.4) at α = 2 and composed, converted at an optimised α.

use super::worst_case::{rgm_worst_case_dp_eps, RgmWorstCase};
use super::Rgm;
use crate::error::{Error, Result};
use crate::mechanisms::stream::StreamRng;
use crate::model::noise::{
    NoiseHooks, RelativeLaw, RelativeNoise, RelativeParams, RelativeRunPrivacy,
};
use crate::scalar::Scalar;
use rand_distr::{Distribution, StandardNormal};

/// The RGM's registry hook.
pub(super) static NOISE: NoiseHooks = NoiseHooks {
    centred_draw: None,
    relative: Some(&RgmNoise),
    coordinate: None,
};

/// The RGM as a relative noise.
struct RgmNoise;

impl RelativeLaw for Rgm {
    fn sample_into(&self, r: &[f64], rng: &mut StreamRng, out: &mut [f64]) -> Result<()> {
        Rgm::sample_into(self, r, rng, out)
    }
}

impl RelativeNoise for RgmNoise {
    fn label(&self) -> &'static str {
        "RGM"
    }

    fn law(&self, gamma: f64, sigma2: f64, d: usize) -> Result<Box<dyn RelativeLaw>> {
        Ok(Box::new(Rgm::new(gamma, sigma2, d)?))
    }

    fn sd(&self, gamma: f64, sigma2: f64, norm2: f64) -> f64 {
        let v = gamma * norm2 + sigma2;
        v.sqrt()
    }

    fn draw(&self, sd: f64, rng: &mut StreamRng, out: &mut [f64]) {
        for o in out.iter_mut() {
            let z: f64 = StandardNormal.sample(rng);
            *o = sd * z;
        }
    }

    fn calibrate(&self, eta: f64, r_rel: f64, d: u32, alpha: f64, eps: f64) -> Result<(f64, f64)> {
        theorem1_parameters(eta, r_rel, d, alpha, eps)
    }

    fn run_privacy(
        &self,
        p: &RelativeParams,
        steps: u32,
        delta: f64,
        digits: u32,
    ) -> Result<RelativeRunPrivacy> {
        let eta = Scalar::from(p.eta);
        let wc = RgmWorstCase::new(
            &eta,
            &Scalar::from(p.gamma),
            &Scalar::from(p.sigma2),
            &Scalar::from(p.r_rel),
            p.d,
        )?;
        let exact2 = wc.renyi(&Scalar::from(2.0), digits)?;
        let (exact_opt, exact_alpha) =
            rgm_worst_case_dp_eps(&wc, steps, &Scalar::from(delta), digits)?;
        let per_step = crate::mechanisms::rgm::bounds::theorem1_eps(
            &eta,
            &Scalar::from(p.gamma),
            p.d,
            &Scalar::from(2.0),
            digits,
        )?;
        let paper_dp = self.composed_eps(p.eta, p.gamma, p.d, steps, delta, digits)?;
        Ok(RelativeRunPrivacy {
            paper_step_rdp2: per_step.to_f64(),
            exact_step_rdp2: exact2.to_f64(),
            paper_dp,
            exact_dp: (exact_opt.to_f64(), exact_alpha),
        })
    }

    /// HMB eq. (45) at (η, γ/T, T d): Theorem 1's ε(α) composed over T steps is eq. (5) with χ
    /// replaced by Tχ, i.e. with (γ, d) replaced by (γ/T, T d), so its α-optimised conversion is
    /// [`crate::mechanisms::rgm::bounds::optimized_dp_eps`] there.
    fn composed_eps(
        &self,
        eta: f64,
        gamma: f64,
        d: u32,
        steps: u32,
        delta: f64,
        digits: u32,
    ) -> Result<(f64, f64)> {
        let td = d
            .checked_mul(steps)
            .ok_or_else(|| Error::invalid("steps", steps, "with d * steps < 2^32"))?;
        let (eps, alpha) = crate::mechanisms::rgm::bounds::optimized_dp_eps(
            &Scalar::from(eta),
            &Scalar::from(gamma / f64::from(steps)),
            td,
            &Scalar::from(delta),
            digits,
        )?;
        Ok((eps.to_f64(), alpha.to_f64()))
    }
}

/// γ and σ² of RGM for a per-step (α, ε) target by HMB Theorem 1.
///
/// Eq. (5) is linear in 1/γ: with c = η(2+η) and D = d(2+η)²(1+η)²,
/// ε = αη²/(2γ) · (1 + γD)/(1 − c(α−1)) ⟺ 1/γ = [2ε(1 − c(α−1)) − αη²D] / (αη²),
/// so γ = αη² / [2ε(1 − c(α−1)) − αη²D], which exists iff the bracket is positive (else the
/// d-term alone exceeds ε: an `OutsideValidity` error). σ² = γ R_rel²/η² (the choice of HMB
/// eq. (6)), which satisfies Theorem 1's condition σ² ≥ γη⁻²[1−η(α−1)]R² for every α ≥ 1.
fn theorem1_parameters(eta: f64, r_rel: f64, d: u32, a: f64, e: f64) -> Result<(f64, f64)> {
    if !(eta > 0.0 && eta.is_finite()) {
        return Err(Error::invalid("eta", eta, "finite and > 0"));
    }
    if a.is_nan() || a <= 1.0 {
        return Err(Error::invalid("alpha", a, "> 1"));
    }
    if e.is_nan() || e <= 0.0 {
        return Err(Error::invalid("eps", e, "> 0"));
    }
    let c = eta * (2.0 + eta);
    let range = 1.0 - c * (a - 1.0);
    if range <= 0.0 {
        return Err(Error::outside(
            "HMB Theorem 1",
            format!("eta(2+eta)(alpha-1) < 1 fails: eta = {eta}, alpha = {a}"),
        ));
    }
    let dd = d as f64 * (2.0 + eta).powi(2) * (1.0 + eta).powi(2);
    let bracket = 2.0 * e * range - a * eta * eta * dd;
    if bracket <= 0.0 {
        return Err(Error::outside(
            "HMB Theorem 1, eq. (5) solved for gamma",
            format!(
                "the d-term alpha eta^2 d (2+eta)^2 (1+eta)^2 / (2(1 - eta(2+eta)(alpha-1))) alone \
                 exceeds eps = {e} (eta = {eta}, d = {d}, alpha = {a})"
            ),
        ));
    }
    let gamma = a * eta * eta / bracket;
    // σ² = γR²/η², rounded up until the condition σ² ≥ γR²/η² holds exactly for the doubles
    // the mechanism uses (the check belongs to the RGM's bounds; a rounded-down quotient would miss it).
    let mut sigma2 = gamma * r_rel * r_rel / (eta * eta);
    let (g, es, r) = (Scalar::from(gamma), Scalar::from(eta), Scalar::from(r_rel));
    for _ in 0..8 {
        if crate::mechanisms::rgm::bounds::theorem1_sigma2_holds_for_all_alpha(
            &es,
            &r,
            &g,
            &Scalar::from(sigma2),
        )
        .0
        {
            return Ok((gamma, sigma2));
        }
        // next_up (Rust 1.86) by hand for the MSRV: for a finite σ² ≥ 0 the next bit pattern is
        // the next double up (a non-finite σ² never meets the check and ends in the error below).
        sigma2 = f64::from_bits(sigma2.to_bits() + 1);
    }
    Err(Error::invalid(
        "R_rel",
        r_rel,
        "finite and >= 0 (sigma^2 = gamma R^2 / eta^2 not representable)",
    ))
}
