//! The quadrature route: every divergence from its defining integral, independently of the
//! closed forms of [`super::closed`].
//!
//! Each density is written from its definition as a log-quadratic (log N(x; μ, σ²) and
//! α·log p1 + (1−α)·log p2 coefficient-wise) and integrated with [`crate::numeric::quad`]
//! (Gauss–Legendre pieces with breakpoints on the decay scale, truncated trapezoid on ℝ with an
//! explicit Gaussian tail bound). Atoms of the rectified family are tail integrals of the Gaussian
//! density (masses ≈ 1 are formed as 1 − tail, docs/formulas.md §9.8); the stochastic sign uses MPFR's
//! `erfc` (never `crate::numeric::mp::ndtr`, so the route stays independent of the closed route's
//! continued fraction).
//!
//! **Who integrates.** A model on the line ([`Integrals::Line`]) is integrated generically from its
//! log-densities (`model`); the Gaussian-family models integrate themselves ([`Integrals::Own`],
//! their files in [`crate::mechanisms`]) with the kit of `crate::model::logquad`.
//!
//! **Certification.** Every integral comes with an absolute error bound; the bounds are propagated
//! through the final formula by first-order bounds with a 2 % margin (the perturbations are below
//! 10^-(digits) so second-order terms are negligible), rounding of the formula itself is covered
//! by a 2^-(prec−8) relative term. The value is certified to `digits` if the propagated bound is
//! below 10^-digits relative; otherwise the integrals are redone with more digits, the increase
//! being the observed deficit (cancellation: α → 1, D ≪ 1, far tails, d = 1000), at most four times
//! before [`crate::error::Error::Precision`].
//!
//! **Conventions.** D_α is +∞ when σ_α² = ασ2² + (1−α)σ1² ≤ 0 (GaussianDd, Rgm): returned as a
//! `Certified` with value +∞ (docs/formulas.md §4), not an error. Identical distributions give an exact 0.
//! The hockey-stick divergence of d-dimensional Gaussians with σ1 ≠ σ2 and d > 1 needs χ²
//! distribution functions (docs/formulas.md §7.4): delegated to [`super::profile_dd`].

use super::{check_alpha, Location, Pair};
use crate::error::{Error, Result};
use crate::model::logquad::{certified, certified_guard, zero};
use crate::model::{FisherIntegrals, Integrals};
use crate::numeric::mp::{bits_for_digits, Certified};
use crate::scalar::Scalar;
use rug::Float;

mod model;

/// Rényi divergence D_α(P1 ‖ P2) = log(∫ p1^α p2^{1−α})/(α − 1) by quadrature, certified to
/// `digits` (docs/formulas.md §0.1; GaussianDd and Rgm by the Fubini/rotation reduction of
/// docs/formulas.md §4: D = [log I(Δ) + (d−1) log I(0)]/(α−1)). +∞ (as a value) when σ_α² ≤ 0.
pub(crate) fn renyi(pair: &Pair, alpha: &Scalar, digits: u32) -> Result<Certified> {
    check_alpha(alpha)?;
    renyi_integrals(pair, alpha, digits).map_err(|e| beyond_resolution(e, pair, alpha))
}

/// The integrator's own refusals ("quadratic coefficient c2 = 0", "breakpoints = 1") are not
/// the user's parameters: at very large α the integrand p1^α p2^{1−α} is a boundary layer of
/// width ≈ σ/(α|μ1 − μ2|), or its coefficients α·c1 + (1 − α)·c2 cancel below the working
/// precision, and the tanh–sinh/Gauss–Legendre pieces cannot be placed. Such a row is refused
/// in the user's terms (docs/formulas.md §9.10); the closed forms take large α in log space.
fn beyond_resolution(e: Error, pair: &Pair, alpha: &Scalar) -> Error {
    match e {
        Error::InvalidParameter { ref name, .. }
            if name.starts_with("quadratic coefficient") || name == "breakpoints" =>
        {
            Error::Unsupported(format!(
                "renyi by quadrature: alpha = {alpha} is beyond what the quadrature route can \
                 resolve for {pair} (the integrand p1^alpha p2^(1-alpha) is concentrated on a \
                 scale the integrator cannot place its nodes on); use --method closed-form, \
                 which evaluates large alpha in log space (docs/formulas.md §9.10)"
            ))
        }
        other => other,
    }
}

fn renyi_integrals(pair: &Pair, alpha: &Scalar, digits: u32) -> Result<Certified> {
    let own = match pair.model().integrals() {
        Integrals::Line(line) => return model::renyi(pair, line, alpha, digits),
        Integrals::Own(own) => own,
    };
    if pair.model().identical() {
        return Ok(zero(digits));
    }
    let what = format!("quadrature Rényi divergence (alpha = {alpha}) of {pair}");
    // The integrals' errors are divided by α − 1: start with log10(1/(α−1)) more digits.
    let guard = (-(alpha.f64() - 1.0).log10()).max(0.0) + own.guard();
    certified_guard(digits, guard, &what, |ctx| own.renyi(ctx, alpha))
}

/// KL(P1 ‖ P2) = ∫ p1 log(p1/p2) by quadrature (split at the roots of the log-likelihood ratio),
/// plus atom terms P1·log(P1/P2), certified to `digits`. GaussianDd and Rgm: the 1-D KL along the
/// mean difference plus (d−1) times the KL of the centred marginals (additivity over independent
/// coordinates).
pub(crate) fn kl(pair: &Pair, digits: u32) -> Result<Certified> {
    let own = match pair.model().integrals() {
        Integrals::Line(line) => return model::kl(pair, line, digits),
        Integrals::Own(own) => own,
    };
    if pair.model().identical() {
        return Ok(zero(digits));
    }
    let what = format!("quadrature KL divergence of {pair}");
    certified_guard(digits, own.guard(), &what, |ctx| own.kl(ctx))
}

/// Hockey-stick divergence δ(ε) = ∫ (p1 − e^ε p2)_+ (+ atoms (P1 − e^ε P2)_+) by quadrature of
/// p1·(1 − e^{ε − LLR}) over the region {LLR > ε}, whose ends are the analytic crossing points
/// (docs/formulas.md §7), certified to `digits`. d-dimensional Gaussians with σ1 ≠ σ2 and d > 1:
/// the semi-analytic χ² route of [`crate::divergence::profile_dd`] (docs/formulas.md §7.4).
pub(crate) fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32) -> Result<Certified> {
    crate::error::check_finite("eps", eps.f64())?;
    let own = match pair.model().integrals() {
        Integrals::Line(line) => return model::hockey_stick(pair, line, eps, digits),
        Integrals::Own(own) => own,
    };
    if pair.model().normal().is_some_and(|n| n.needs_profile()) {
        // χ² route of docs/formulas.md §7.4.
        return crate::divergence::profile_dd::hockey_stick_pair(pair, eps, digits);
    }
    if pair.model().identical() {
        // δ = (1 − e^ε)_+
        let p = bits_for_digits(digits) + 16;
        let e = eps.mp(p);
        let mut v = Float::with_val(p, e.exp_m1_ref());
        v = -v;
        if v < 0 {
            v = Float::new(p);
        }
        return Ok(Certified { value: v, digits });
    }
    let what = format!("quadrature hockey-stick divergence (eps = {eps}) of {pair}");
    certified(digits, &what, |ctx| own.hockey(ctx, eps))
}

/// Fisher information about the location, I(μ) = E[(∂_μ log p)²] with atoms counted as
/// (∂_μ P(atom))²/P(atom) (docs/formulas.md §0.1, §1.1, §2.1, §3), by quadrature, certified to
/// `digits`. Truncated: Var_T(X)/σ⁴ by two passes (mean, then Σ w (x − x̄)²; docs/formulas.md §9
/// recipe 4).
pub(crate) fn fisher(loc: &Location, digits: u32) -> Result<Certified> {
    match loc.model().integrals() {
        FisherIntegrals::Line(line) => model::fisher(loc, line, digits),
        FisherIntegrals::Own(own) => {
            let what = format!("quadrature Fisher information of {loc}");
            certified(digits, &what, |ctx| own.fisher(ctx))
        }
    }
}

#[cfg(test)]
mod tests;
