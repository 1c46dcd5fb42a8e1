//! The closed-form route: each model's closed forms ([`crate::model::PairModel::renyi_at`], …),
//! evaluated in `rug::Float` on the precision ladder of [`crate::numeric::mp::certify`].
//!
//! MPFR's exponent range makes e^4950 × 10^-2150 harmless, so the only enemy left is
//! cancellation; the ladder re-evaluates at higher precision until two precisions agree to the
//! requested digits, so a cancelling form costs time, never correctness. The forms themselves
//! live with their families in [`crate::dist`]:
//!
//! | quantity | family | source |
//! |---|---|---|
//! | D_α, KL, δ(ε), Fisher | Gaussian | Mironov 2017 Prop. 7; Balle & Wang 2018 Thm 8 (docs/formulas.md §7.1) |
//! | D_α, KL | isotropic Gaussians, RGM pairs | HMB Lemma 2, eq. (13), stable ℓ-form (docs/formulas.md §4) |
//! | δ(ε) | unequal variances, d = 1 | docs/formulas.md §7.3 |
//! | D_α, KL, Fisher, δ(ε) | rectified | HG Lemma 4.4 eq. (5), Lemma 4.1 eq. (4) (docs/formulas.md §1, §7.2) |
//! | D_α, KL, Fisher, δ(ε) | truncated | HG Lemma 4.7 eq. (6), Lemma 4.1 eq. (3) (docs/formulas.md §2, §7.2) |
//! | D_α, KL, Fisher, δ(ε) | stochastic sign | HG §4.1 (docs/formulas.md §3, §7.2) |

use super::{check_alpha, Location, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::{certify, Certified};
use crate::scalar::Scalar;
use rug::Float;

/// Rényi divergence D_α(P1 ‖ P2) by its closed form, certified to `digits`.
pub fn renyi(pair: &Pair, alpha: &Scalar, digits: u32) -> Result<Certified> {
    check_alpha(alpha)?;
    certify(digits, "renyi (closed form)", |p| renyi_at(pair, alpha, p))
}

/// D_α at working precision `p` (uncertified; see [`renyi`]).
pub(crate) fn renyi_at(pair: &Pair, alpha: &Scalar, p: u32) -> Result<Float> {
    pair.model().renyi_at(&alpha.mp(p), p)
}

/// KL(P1 ‖ P2) by its closed form, certified to `digits`.
pub fn kl(pair: &Pair, digits: u32) -> Result<Certified> {
    certify(digits, "kl (closed form)", |p| pair.model().kl_at(p))
}

/// Fisher information about the location, closed form, certified to `digits`.
pub fn fisher(loc: &Location, digits: u32) -> Result<Certified> {
    certify(digits, "fisher (closed form)", |p| loc.model().fisher_at(p))
}

/// Checks that ε is finite and ≥ 0.
pub(crate) fn check_eps(eps: &Scalar) -> Result<()> {
    if !eps.f64().is_finite() || eps.f64() < 0.0 {
        return Err(Error::invalid("eps", eps, "finite and >= 0"));
    }
    Ok(())
}

/// Hockey-stick divergence δ(ε) = ∫(p1 − e^ε p2)_+ (this ordered pair), closed form, certified.
pub fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32) -> Result<Certified> {
    check_eps(eps)?;
    certify(digits, "hockey_stick_delta (closed form)", |p| {
        hockey_stick_at(pair, &eps.mp(p), p)
    })
}

/// δ(ε) at working precision `p` (uncertified; see [`hockey_stick`]).
pub(crate) fn hockey_stick_at(pair: &Pair, eps: &Float, p: u32) -> Result<Float> {
    pair.model().hockey_at(eps, p)
}
