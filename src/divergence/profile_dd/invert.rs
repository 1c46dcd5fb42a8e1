//! The whole privacy profile ε(δ) of one ordered pair at many δ (docs/formulas.md §7.4,
//! "Profiles").
//!
//! One point of the slow route ([`crate::divergence::eps_for_delta`]) runs a regula falsi in
//! which every step is a certified δ(ε) (two quadratures on a precision ladder), from scratch.
//! Here the δ points are solved in order of decreasing δ (increasing ε), and
//!
//! * each root search starts from the previous roots: ε(ln δ) is smooth, so a quadratic through
//!   the last two roots with the last slope dε/d ln δ is already close;
//! * the search steps (secant on ln δ(ε) − ln δ*) are single quadratures, not certified, at a
//!   number of digits that follows the size of the step (the quadrature still checks its own
//!   error bound);
//! * the χ² tails are [`super::tails::Chi2Tails`] (ln Γ computed once);
//! * only the final bracket is certified: δ at ε̂(1 ∓ 10^-(digits+1)) on the precision ladder,
//!   at the digits the local slope requires (δ changes over the bracket by about
//!   |d ln δ/d ln ε|·10^-(digits+1) relative, so that many digits decide the sign, plus a
//!   margin), and monotonicity of δ(ε) puts the true root in the bracket, exactly as the slow
//!   route certifies. A bracket that cannot be decided is retried with more digits and then an
//!   [`Error::Precision`]: nothing uncertified is returned.

use super::{hockey_stick_dd_diff, pair_vars, profile_at, PairVars};
use crate::divergence::{invert_profile, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::{bits_for_digits, Certified};
use crate::scalar::Scalar;
use rug::ops::Pow;
use rug::Float;

/// ε(δ) of the ordered pair (smallest ε ≥ 0 with δ(ε) ≤ δ) at every δ of `deltas`, each
/// certified to `digits` (returned in the order of `deltas`). Handles the pairs of
/// [`super::hockey_stick_pair`].
pub(crate) fn eps_profile(pair: &Pair, deltas: &[Scalar], digits: u32) -> Result<Vec<Certified>> {
    if !(1..=40).contains(&digits) {
        return Err(Error::invalid("digits", digits, "an integer in 1..=40"));
    }
    // A δ whose double underflows is refused as such: at δ = 1e-400 the profile's quadrature
    // returns 0 on a nonempty region (a precision error), so the route takes only doubles' δ.
    for dl in deltas {
        dl.open_unit_double("delta")?;
    }
    let vars = pair_vars(pair, 1024)?;
    let mut order: Vec<usize> = (0..deltas.len()).collect();
    // decreasing δ (ties keep their order): increasing ε
    order.sort_by(|&i, &j| {
        deltas[j]
            .mp(256)
            .partial_cmp(&deltas[i].mp(256))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let solver = Solver {
        vars: &vars,
        digits,
        pair,
        p: bits_for_digits(digits + 8) + 16,
    };
    let mut hist: Vec<Root> = Vec::new();
    let mut out: Vec<Option<Certified>> = vec![None; deltas.len()];
    for &i in &order {
        let (cert, root) = solver.solve(&deltas[i], &hist)?;
        if let Some(r) = root {
            hist.push(r);
        }
        out[i] = Some(cert);
    }
    Ok(out.into_iter().flatten().collect())
}

/// A solved point: ε, ln δ and the slope dε/d ln δ there (from the last secant step).
#[derive(Clone, Copy, Debug)]
struct Root {
    eps: f64,
    ln_delta: f64,
    slope: f64,
}

struct Solver<'a> {
    vars: &'a PairVars,
    digits: u32,
    pair: &'a Pair,
    /// precision of ε and ln δ in the search
    p: u32,
}

impl Solver<'_> {
    /// One quadrature of δ(ε) to `dg` digits (its own error bound checked; no ladder).
    fn delta(&self, eps: &Float, dg: u32) -> Result<Float> {
        profile_at(self.vars, eps, dg, bits_for_digits(dg), true)
    }

    /// δ(ε) certified to `dg` digits (precision ladder).
    fn certified(&self, eps: &Float, dg: u32) -> Result<Certified> {
        hockey_stick_dd_diff(self.vars, eps, dg, true)
    }

    /// ln δ(ε) − ln δ* (−∞ where δ(ε) = 0).
    fn g(&self, eps: &Float, dg: u32, ln_target: &Float) -> Result<Float> {
        let d = self.delta(eps, dg)?;
        let p = self.p;
        if d.is_zero() || d.is_sign_negative() {
            return Ok(Float::with_val(p, f64::NEG_INFINITY));
        }
        Ok(Float::with_val(p, d.ln_ref()) - ln_target)
    }

    fn fail(&self, delta: &Scalar, why: &str) -> Error {
        Error::Precision {
            narrowest: None,
            requested: self.digits,
            certified: 0,
            what: format!(
                "eps_for_delta (profile, docs/formulas.md §7.4) of {} at delta = {delta}: {why}",
                self.pair
            ),
        }
    }

    /// ε(δ) certified, and the root for the next start (None when ε = 0).
    fn solve(&self, delta: &Scalar, hist: &[Root]) -> Result<(Certified, Option<Root>)> {
        let p = self.p;
        let digits = self.digits;
        let target = delta.mp(p);
        let ln_target = Float::with_val(p, target.ln_ref());
        let yt = ln_target.to_f64();
        let tol = 10f64.powi(-(digits as i32) - 3);
        // Digits of a search step: enough to resolve a step of relative size `step`.
        let dg_max = digits + 3;
        let dg_for = |step: f64| -> u32 {
            let need = (-step.abs().max(1e-300).log10()).ceil() + 3.0;
            (need.max(4.0) as u32).min(dg_max)
        };
        // Start: extrapolate from the previous roots, else a coarse regula falsi at 4 digits.
        let (e0, slope0, acc0) = match hist {
            [] => {
                let coarse_tol = Float::with_val(p, 1e-3);
                let e = invert_profile(&target, p, &coarse_tol, |e| self.delta(e, 4))?;
                (e.to_f64(), None, 1e-3)
            }
            [r] => (r.eps + (yt - r.ln_delta) * r.slope, Some(r.slope), 1e-2),
            [.., q, r] => {
                let dy = yt - r.ln_delta;
                let h = q.ln_delta - r.ln_delta;
                // ε(y) ≈ ε_r + s (y − y_r) + c (y − y_r)², through (y_q, ε_q)
                let c = (q.eps - r.eps - r.slope * h) / (h * h);
                (r.eps + r.slope * dy + c * dy * dy, Some(r.slope), 1e-4)
            }
        };
        let mut lo: Option<Float> = None; // g > 0 there (ε too small)
        let mut hi: Option<Float> = None; // g ≤ 0 there
        let mut x0 = Float::with_val(p, e0.max(0.0));
        let mut g0 = self.g(&x0, dg_for(acc0), &ln_target)?;
        update(&mut lo, &mut hi, &x0, &g0);
        let mut x1 = match slope0 {
            Some(s) if g0.is_finite() => Float::with_val(p, &x0 - Float::with_val(p, &g0 * s)),
            _ => Float::with_val(p, &x0 * 1.001f64) + 1e-6,
        };
        let mut root: Option<(Float, f64)> = None;
        for _ in 0..60 {
            if x1.is_sign_negative() || x1.is_zero() {
                x1 = Float::new(p);
            }
            let step =
                Float::with_val(64, Float::with_val(p, &x1 - &x0) / x1.clone().max(&x0)).to_f64();
            let g1 = self.g(&x1, dg_for(step), &ln_target)?;
            update(&mut lo, &mut hi, &x1, &g1);
            if x1.is_zero() && g1.cmp0() != Some(std::cmp::Ordering::Greater) {
                root = Some((x1.clone(), f64::NAN));
                break;
            }
            let mut x2 = if g1.is_finite() && g0.is_finite() && g1 != g0 {
                let sl = Float::with_val(p, &x1 - &x0) / Float::with_val(p, &g1 - &g0);
                Float::with_val(p, &x1 - Float::with_val(p, &g1 * &sl))
            } else {
                Float::with_val(p, f64::NAN)
            };
            let inside = match (&lo, &hi) {
                (Some(l), Some(h)) => x2.is_finite() && x2 > *l && x2 < *h,
                _ => x2.is_finite(),
            };
            if !inside {
                x2 = match (&lo, &hi) {
                    (Some(l), Some(h)) => Float::with_val(p, l + h) / 2u32,
                    (Some(l), None) => Float::with_val(p, l * 2u32) + 0.25f64,
                    (None, Some(h)) => Float::with_val(p, h / 2u32),
                    (None, None) => return Err(self.fail(delta, "no bracket for the root")),
                };
            }
            if x2.is_sign_negative() {
                x2 = Float::new(p);
            }
            let diff = Float::with_val(p, &x2 - &x1).abs();
            let scale = Float::with_val(p, x2.abs_ref());
            if diff <= Float::with_val(p, &scale * tol) {
                let sl = if g1.is_finite() && g0.is_finite() && g1 != g0 {
                    Float::with_val(
                        64,
                        Float::with_val(p, &x1 - &x0) / Float::with_val(p, &g1 - &g0),
                    )
                    .to_f64()
                } else {
                    f64::NAN
                };
                root = Some((x2, sl));
                break;
            }
            if let (Some(l), Some(h)) = (&lo, &hi) {
                // bracket already below the tolerance
                let w = Float::with_val(p, h - l);
                if w <= Float::with_val(p, h * tol) {
                    root = Some((h.clone(), f64::NAN));
                    break;
                }
            }
            x0 = x1;
            g0 = g1;
            x1 = x2;
        }
        let Some((eps, slope)) = root else {
            return Err(self.fail(delta, "the root search did not converge in 60 steps"));
        };
        let cert = self.certify_root(delta, &target, &eps, slope)?;
        let next = (!eps.is_zero() && slope.is_finite()).then(|| Root {
            eps: eps.to_f64(),
            ln_delta: yt,
            slope,
        });
        Ok((cert, next))
    }

    /// Certifies ε̂: δ(ε̂(1 − h)) > δ* ≥ δ(ε̂(1 + h)) with h = 10^-(digits+1), each δ certified
    /// beyond its error (or δ(0) ≤ δ* for ε̂ = 0).
    fn certify_root(
        &self,
        delta: &Scalar,
        target: &Float,
        eps: &Float,
        slope: f64,
    ) -> Result<Certified> {
        let p = self.p;
        let digits = self.digits;
        let one = Float::with_val(p, 1u32);
        let rel = |dg: u32| Float::with_val(p, 10u32).pow(dg).recip();
        if eps.is_zero() {
            let dg = digits + 2;
            let d0 = self.certified(eps, dg)?;
            let bound = Float::with_val(p, target * Float::with_val(p, &one - rel(dg)));
            if d0.value <= bound {
                return Ok(Certified {
                    value: eps.clone(),
                    digits,
                });
            }
            return Err(self.fail(delta, "delta(0) is within its error of the target"));
        }
        let h = rel(digits + 1);
        let lo = Float::with_val(p, eps * Float::with_val(p, &one - &h));
        let hi = Float::with_val(p, eps * Float::with_val(p, &one + &h));
        // δ moves by about |d ln δ / d ln ε|·h over each half of the bracket.
        let s = if slope.is_finite() && slope != 0.0 {
            (eps.to_f64() / slope).abs()
        } else {
            1.0
        };
        let gap = (s * 10f64.powi(-(digits as i32) - 1)).max(1e-300);
        let base = ((-(gap / 4.0).log10()).ceil() as u32).clamp(4, digits + 8);
        for dg in [base, base + 2, base + 4] {
            let r = rel(dg);
            let dlo = self.certified(&lo, dg)?;
            let dhi = self.certified(&hi, dg)?;
            let lo_ok = dlo.value > Float::with_val(p, target * Float::with_val(p, &one + &r));
            let hi_ok = dhi.value <= Float::with_val(p, target * Float::with_val(p, &one - &r));
            if lo_ok && hi_ok {
                return Ok(Certified {
                    value: eps.clone(),
                    digits,
                });
            }
        }
        Err(self.fail(
            delta,
            "the certified profile does not bracket the root within 10^-(digits+1)",
        ))
    }
}

/// Records x as below (g > 0) or above (g ≤ 0) the root.
fn update(lo: &mut Option<Float>, hi: &mut Option<Float>, x: &Float, g: &Float) {
    if *g > 0 {
        if lo.as_ref().is_none_or(|l| x > l) {
            *lo = Some(x.clone());
        }
    } else if hi.as_ref().is_none_or(|h| x < h) {
        *hi = Some(x.clone());
    }
}
