//! Divergences and information between the output distributions of a mechanism on two
//! neighbouring inputs: Rényi D_α, KL, the hockey-stick divergence δ(ε) (privacy profile) and its
//! inverse ε(δ), and the Fisher information about the location.
//!
//! Two independent routes compute every quantity: `closed` certifies each model's closed forms
//! (docs/formulas.md: HG Lemmas 4.1/4.4/4.7, HMB Lemma 2 eq. (13), Balle–Wang Thm 8, Mironov
//! Table II) in log space on a precision ladder; `quadrature` integrates the defining integrals
//! with arbitrary-precision tanh–sinh (generically for a law on the line, by the model's own
//! integrals for the Gaussian-family laws). Both return a [`Certified`] value. Every function
//! takes a [`Pair`] or [`Location`]: a handle to any family's model ([`crate::model`]).

pub(crate) mod closed;
pub(crate) mod profile_dd;
pub(crate) mod quadrature;

use crate::error::{Error, Result};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::ops::Pow;

pub use crate::model::{Location, Pair};

/// Checks the Rényi order: finite and α > 1 (the orders RDP uses; α → 1 is `kl`).
pub(crate) fn check_alpha(alpha: &Scalar) -> Result<()> {
    let a = alpha.f64();
    if !a.is_finite() || alpha.mp(256) <= 1 {
        return Err(Error::invalid(
            "alpha",
            alpha,
            "finite and > 1 (use kl for the limit alpha -> 1)",
        ));
    }
    Ok(())
}

/// Shorthand re-export so callers need only this module.
pub type Value = Certified;

/// Which route computes a quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// The closed form where one exists, else quadrature.
    #[default]
    Auto,
    /// Numerical integration of the defining integral.
    Quadrature,
    /// The closed form (an error where none exists).
    ClosedForm,
}

crate::error::named_enum!(Method, "method", {
    Auto => "auto",
    Quadrature => "quadrature",
    ClosedForm => "closed-form" | "closed_form",
});

/// Runs the closed form, or quadrature, per `method`; `auto` falls back to quadrature where no
/// closed form exists.
fn route<T>(
    method: Method,
    closed: impl FnOnce() -> Result<T>,
    quad: impl FnOnce() -> Result<T>,
) -> Result<T> {
    match method {
        Method::ClosedForm => closed(),
        Method::Quadrature => quad(),
        Method::Auto => match closed() {
            Err(Error::Unsupported(_)) | Err(Error::Precision { .. }) => quad(),
            other => other,
        },
    }
}

/// Rényi divergence D_α(P1 ‖ P2), certified to `digits`.
pub fn renyi(pair: &Pair, alpha: &Scalar, digits: u32, method: Method) -> Result<Certified> {
    check_alpha(alpha)?;
    route(
        method,
        || closed::renyi(pair, alpha, digits),
        || quadrature::renyi(pair, alpha, digits),
    )
}

/// KL(P1 ‖ P2), certified to `digits`.
pub fn kl(pair: &Pair, digits: u32, method: Method) -> Result<Certified> {
    route(
        method,
        || closed::kl(pair, digits),
        || quadrature::kl(pair, digits),
    )
}

/// Fisher information about the location, certified to `digits`.
pub fn fisher(loc: &Location, digits: u32, method: Method) -> Result<Certified> {
    route(
        method,
        || closed::fisher(loc, digits),
        || quadrature::fisher(loc, digits),
    )
}

/// Hockey-stick divergence δ(ε) = ∫(p1 − e^ε p2)_+ of the ordered pair, certified to `digits`.
pub fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32, method: Method) -> Result<Certified> {
    closed::check_eps(eps)?;
    route(
        method,
        || closed::hockey_stick(pair, eps, digits),
        || quadrature::hockey_stick(pair, eps, digits),
    )
}

/// The privacy profile's inverse: the smallest ε ≥ 0 with δ(ε) ≤ `delta` for the ordered pair,
/// certified to `digits` (root of the certified profile on a precision ladder).
pub fn eps_for_delta(
    pair: &Pair,
    delta: &Scalar,
    digits: u32,
    method: Method,
) -> Result<Certified> {
    // δ enters only as a multiple-precision target, so any exact δ in (0, 1) is taken, 1e-400 too.
    delta.open_unit("delta")?;
    route(
        method,
        || {
            crate::numeric::mp::certify(digits, "eps_for_delta (closed form)", |p| {
                let tol = rug::Float::with_val(p, rug::Float::i_exp(1, -(p as i32) + 4));
                invert_profile(&delta.mp(p), p, &tol, |e| {
                    closed::hockey_stick_at(pair, e, p)
                })
            })
        },
        || eps_for_delta_quadrature(pair, delta, digits),
    )
}

/// The privacy profile ε(δ) of the ordered pair at every δ of `deltas` (each the smallest ε ≥ 0
/// with δ(ε) ≤ δ, certified to `digits`, in the order of `deltas`), for the pairs without a closed
/// form for δ(ε): `gaussian_dd` and `rgm` in any d (docs/formulas.md §7.4, "Profiles"). Each point
/// is certified as [`eps_for_delta`] certifies it (a bracket of certified δ values); the points
/// share their root searches, so a whole curve costs a few certified points.
pub fn eps_profile(pair: &Pair, deltas: &[Scalar], digits: u32) -> Result<Vec<Certified>> {
    profile_dd::eps_profile(pair, deltas, digits)
}

/// ε(δ) by quadrature, certified by bracketing: the root ε̂ of the quadrature profile is found at
/// `digits + 4` digits, then δ is evaluated (certified) at ε̂(1 ∓ 10^-(digits+1)); since δ(ε) is
/// nonincreasing, δ(lo) > target ≥ δ(hi) (beyond their certified errors) puts the true ε in
/// (lo, hi], so ε̂ carries `digits` digits. One quadrature precision, no ladder.
fn eps_for_delta_quadrature(pair: &Pair, delta: &Scalar, digits: u32) -> Result<Certified> {
    use rug::Float;
    let inner = digits + 4;
    let p = crate::numeric::mp::bits_for_digits(inner) + 16;
    let target = delta.mp(p);
    let hs = |e: &Float| -> Result<Float> {
        quadrature::hockey_stick(pair, &Scalar::from_float(e), inner)
            .map(|c| Float::with_val(p, &c.value))
    };
    let rel = Float::with_val(p, Float::i_exp(1, 0)) / Float::with_val(p, 10u32).pow(inner);
    let fail = |why: &str| Error::Precision {
        narrowest: None,
        requested: digits,
        certified: 0,
        what: format!("eps_for_delta (quadrature): {why}"),
    };
    // The profile values carry `inner` digits: locate the root to 10^-(digits+2), well inside
    // the bracket checked below.
    let tol = Float::with_val(p, 1u32) / Float::with_val(p, 10u32).pow(digits + 2);
    let root = invert_profile(&target, p, &tol, hs)?;
    if root.is_zero() {
        // δ(0) ≤ target must hold beyond the certified error of δ(0).
        let d0 = hs(&root)?;
        if Float::with_val(p, &d0 * (Float::with_val(p, 1u32) + &rel)) <= target {
            return Ok(Certified {
                value: root,
                digits,
            });
        }
        return Err(fail("delta(0) is within its error of the target"));
    }
    let h = Float::with_val(p, 1u32) / Float::with_val(p, 10u32).pow(digits + 1);
    let lo = Float::with_val(p, &root * (Float::with_val(p, 1u32) - &h));
    let hi = Float::with_val(p, &root * (Float::with_val(p, 1u32) + &h));
    let dlo = hs(&lo)?;
    let dhi = hs(&hi)?;
    let dlo_min = Float::with_val(p, &dlo * (Float::with_val(p, 1u32) - &rel));
    let dhi_max = Float::with_val(p, &dhi * (Float::with_val(p, 1u32) + &rel));
    if dlo_min > target && dhi_max <= target {
        Ok(Certified {
            value: root,
            digits,
        })
    } else {
        Err(fail("the profile is too flat to bracket the root"))
    }
}

/// Smallest ε ≥ 0 with f(ε) ≤ target for a nonincreasing profile f: bracket by doubling, then
/// Illinois regula falsi on log f − log target, with bisection where f vanishes; stops when the
/// bracket is below `rel_tol` relative (pass about the relative accuracy of f: iterating below it
/// only chases rounding noise). Errors if no ε ≤ 2^40 reaches the target.
pub(crate) fn invert_profile<F>(
    target: &rug::Float,
    p: u32,
    rel_tol: &rug::Float,
    mut f: F,
) -> Result<rug::Float>
where
    F: FnMut(&rug::Float) -> Result<rug::Float>,
{
    use rug::Float;
    let zero = Float::new(p);
    if f(&zero)? <= *target {
        return Ok(zero);
    }
    let ltarget = Float::with_val(p, target.ln_ref());
    let g = |v: Float| -> Float {
        if v.is_zero() || v.is_sign_negative() {
            Float::with_val(p, f64::NEG_INFINITY)
        } else {
            Float::with_val(p, v.ln() - &ltarget)
        }
    };
    let mut lo = Float::new(p);
    let mut glo = g(f(&lo)?);
    let mut hi = Float::with_val(p, 1u32);
    let mut ghi = g(f(&hi)?);
    while ghi > 0 {
        lo.clone_from(&hi);
        glo.clone_from(&ghi);
        hi *= 2u32;
        if hi > Float::with_val(p, Float::i_exp(1, 40)) {
            return Err(Error::Undefined(format!(
                "no eps <= 2^40 reaches delta = {}",
                target.to_f64()
            )));
        }
        ghi = g(f(&hi)?);
    }
    let tol = Float::with_val(p, rel_tol);
    let mut side = 0i32;
    for _ in 0..(8 * p) {
        let width = Float::with_val(p, &hi - &lo);
        if width <= Float::with_val(p, &hi * &tol) {
            break;
        }
        let mid = if ghi.is_finite() && glo.is_finite() && ghi < 0 {
            // regula falsi point, kept strictly inside the bracket
            let x = Float::with_val(
                p,
                &lo - Float::with_val(p, &glo * &width) / (Float::with_val(p, &ghi - &glo)),
            );
            let margin = Float::with_val(p, &width / 64u32);
            if x <= Float::with_val(p, &lo + &margin) || x >= Float::with_val(p, &hi - &margin) {
                Float::with_val(p, &lo + &hi) / 2u32
            } else {
                x
            }
        } else {
            Float::with_val(p, &lo + &hi) / 2u32
        };
        let gm = g(f(&mid)?);
        if gm.is_zero() {
            return Ok(mid);
        }
        if gm > 0 {
            lo = mid;
            glo = gm;
            if side == -1 {
                ghi /= 2u32;
            }
            side = -1;
        } else {
            hi = mid;
            ghi = gm;
            if side == 1 {
                glo /= 2u32;
            }
            side = 1;
        }
    }
    Ok(hi)
}

/// The exact ε(δ) of a pair, maximised over both orders, to [`CLAIM_DIGITS`] digits from the
/// certified closed forms (or quadrature where there is none): the privacy the designer of a
/// correct mechanism claims on this pair (the registry's `claim` of the Gaussian-family pairs).
pub(crate) fn exact_claim(pair: &Pair, delta: f64) -> Result<f64> {
    crate::error::check_open_unit("delta", delta)?;
    let d = Scalar::from(delta);
    let e1 = eps_for_delta(pair, &d, CLAIM_DIGITS, Method::Auto)?;
    let e2 = eps_for_delta(&pair.swapped(), &d, CLAIM_DIGITS, Method::Auto)?;
    Ok(e1.value.to_f64().max(e2.value.to_f64()))
}

/// Digits to which claimed ε values are certified (a claim is compared with a Monte Carlo lower
/// bound, so a few digits suffice).
pub const CLAIM_DIGITS: u32 = 6;
