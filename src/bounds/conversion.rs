//! Conversion of a Rényi-DP guarantee (α, ε_α) into (ε, δ)-DP, and its numerical minimisation
//! over α.
//!
//! * [`mironov`]: Mironov 2017, Prop. 3: ε = ε_α + log(1/δ)/(α−1).
//! * [`canonne_kamath_steinke`]: Canonne, Kamath & Steinke 2020, Prop. 12 (= Balle et al. 2020,
//!   Thm 21): ε = ε_α + log((α−1)/α) − (log δ + log α)/(α−1). It is always the smaller of the two:
//!   the difference is log((α−1)/α) − log(α)/(α−1) < 0 for α > 1.
//! * [`optimize_over_alpha`] (and a double-precision twin for the unit tests): min over α of either conversion of a
//!   user-supplied RDP curve (grid in log(α−1), then golden-section search). Whatever the
//!   optimiser's accuracy, the returned ε is the conversion evaluated at the returned α, so it is
//!   a valid (ε, δ) guarantee, only possibly not the smallest one.

use super::{alpha_above_one, f64chk, nonnegative};
use crate::error::{Error, Result};
use crate::numeric::mp::{certify, Certified};
use crate::scalar::Scalar;
use rug::Float;

/// Which RDP → DP conversion to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conversion {
    /// Mironov 2017, Prop. 3.
    Mironov,
    /// Canonne, Kamath & Steinke 2020, Prop. 12 / Balle et al. 2020, Thm 21.
    CanonneKamathSteinke,
}

fn check_mp(eps_alpha: &Float, alpha: &Float, delta: &Float) -> Result<()> {
    if !(eps_alpha.is_finite() && *eps_alpha >= 0) {
        return Err(Error::invalid(
            "eps_alpha",
            eps_alpha.to_f64(),
            "finite and >= 0",
        ));
    }
    if !(alpha.is_finite() && *alpha > 1) {
        return Err(Error::invalid("alpha", alpha.to_f64(), "finite and > 1"));
    }
    delta_in_unit_mp(delta)
}

/// 0 < δ < 1 for a `rug` δ (compared exactly, so a δ below the double range is inside).
fn delta_in_unit_mp(delta: &Float) -> Result<()> {
    if delta.is_finite() && *delta > 0 && *delta < 1 {
        Ok(())
    } else {
        Err(Error::invalid("delta", delta.to_f64(), "in (0, 1)"))
    }
}

/// Mironov 2017, Prop. 3, on `rug` values: ε = ε_α + log(1/δ)/(α−1), at the largest precision of
/// the arguments.
pub(crate) fn mironov_mp(eps_alpha: &Float, alpha: &Float, delta: &Float) -> Result<Float> {
    check_mp(eps_alpha, alpha, delta)?;
    let p = eps_alpha.prec().max(alpha.prec()).max(delta.prec());
    let wp = p + 16;
    let l = Float::with_val(wp, delta.ln_ref());
    let am1 = Float::with_val(wp, alpha - 1u32);
    Ok(Float::with_val(p, Float::with_val(wp, eps_alpha) - l / am1))
}

/// Canonne–Kamath–Steinke 2020, Prop. 12 on `rug` values:
/// ε = max(0, ε_α + log((α−1)/α) − (log δ + log α)/(α−1)). (A negative value means the pair is
/// (0, δ)-DP, since (ε, δ)-DP is monotone in ε; the maximum with 0 records that.)
pub(crate) fn cks_mp(eps_alpha: &Float, alpha: &Float, delta: &Float) -> Result<Float> {
    check_mp(eps_alpha, alpha, delta)?;
    let p = eps_alpha.prec().max(alpha.prec()).max(delta.prec());
    let wp = p + 16;
    let a = Float::with_val(wp, alpha);
    let am1 = Float::with_val(wp, &a - 1u32);
    let la = Float::with_val(wp, a.ln_ref());
    // log((α−1)/α) = log1p(−1/α), accurate for large α
    let lr = Float::with_val(wp, -Float::with_val(wp, a.recip_ref())).ln_1p();
    let ld = Float::with_val(wp, delta.ln_ref());
    let v = Float::with_val(wp, eps_alpha) + lr - (ld + la) / am1;
    let v = if v < 0 { Float::new(wp) } else { v };
    Ok(Float::with_val(p, v))
}

/// Applies the chosen conversion on `rug` values.
pub(crate) fn convert_mp(
    which: Conversion,
    eps_alpha: &Float,
    alpha: &Float,
    delta: &Float,
) -> Result<Float> {
    match which {
        Conversion::Mironov => mironov_mp(eps_alpha, alpha, delta),
        Conversion::CanonneKamathSteinke => cks_mp(eps_alpha, alpha, delta),
    }
}

fn certified(
    which: Conversion,
    eps_alpha: &Scalar,
    alpha: &Scalar,
    delta: &Scalar,
    digits: u32,
) -> Result<Certified> {
    nonnegative("eps_alpha", eps_alpha)?;
    alpha_above_one(alpha)?;
    delta.open_unit("delta")?;
    let what = match which {
        Conversion::Mironov => "Mironov 2017 Prop. 3",
        Conversion::CanonneKamathSteinke => "Canonne-Kamath-Steinke 2020 Prop. 12",
    };
    certify(digits, what, |p| {
        let wp = p + 16;
        let v = convert_mp(which, &eps_alpha.mp(wp), &alpha.mp(wp), &delta.mp(wp))?;
        Ok(Float::with_val(p, v))
    })
}

/// Mironov 2017, Prop. 3: an (α, ε_α)-RDP mechanism is (ε_α + log(1/δ)/(α−1), δ)-DP.
pub fn mironov(
    eps_alpha: &Scalar,
    alpha: &Scalar,
    delta: &Scalar,
    digits: u32,
) -> Result<Certified> {
    certified(Conversion::Mironov, eps_alpha, alpha, delta, digits)
}

/// Canonne, Kamath & Steinke 2020, Prop. 12 (Balle et al. 2020, Thm 21): an (α, ε_α)-RDP
/// mechanism is (ε, δ)-DP with ε = ε_α + log((α−1)/α) − (log δ + log α)/(α−1) (floored at 0).
pub fn canonne_kamath_steinke(
    eps_alpha: &Scalar,
    alpha: &Scalar,
    delta: &Scalar,
    digits: u32,
) -> Result<Certified> {
    certified(
        Conversion::CanonneKamathSteinke,
        eps_alpha,
        alpha,
        delta,
        digits,
    )
}

/// Double-precision [`mironov`].
#[cfg(test)]
pub(crate) fn mironov_f64(eps_alpha: f64, alpha: f64, delta: f64) -> Result<f64> {
    crate::error::check_nonnegative("eps_alpha", eps_alpha)?;
    f64chk::alpha(alpha)?;
    f64chk::delta(delta)?;
    Ok(eps_alpha - delta.ln() / (alpha - 1.0))
}

/// Double-precision [`canonne_kamath_steinke`].
pub(crate) fn cks_f64(eps_alpha: f64, alpha: f64, delta: f64) -> Result<f64> {
    crate::error::check_nonnegative("eps_alpha", eps_alpha)?;
    f64chk::alpha(alpha)?;
    f64chk::delta(delta)?;
    let v = eps_alpha + (-1.0 / alpha).ln_1p() - (delta.ln() + alpha.ln()) / (alpha - 1.0);
    Ok(v.max(0.0))
}

/// Applies the chosen conversion in double precision.
#[cfg(test)]
pub(crate) fn convert_f64(
    which: Conversion,
    eps_alpha: f64,
    alpha: f64,
    delta: f64,
) -> Result<f64> {
    match which {
        Conversion::Mironov => mironov_f64(eps_alpha, alpha, delta),
        Conversion::CanonneKamathSteinke => cks_f64(eps_alpha, alpha, delta),
    }
}

/// Number of grid points in log(α−1) before the golden-section refinement.
const GRID: usize = 64;

fn check_range(lo: f64, hi: f64) -> Result<()> {
    if !(lo.is_finite() && lo > 1.0) {
        return Err(Error::invalid("alpha_lo", lo, "finite and > 1"));
    }
    if !(hi.is_finite() && hi > lo) {
        return Err(Error::invalid(
            "alpha_hi",
            hi,
            &format!("finite and > alpha_lo = {lo}"),
        ));
    }
    Ok(())
}

/// Minimises the conversion `which` of the RDP curve `rdp` over α ∈ [alpha_lo, alpha_hi]
/// (1 < alpha_lo < alpha_hi, finite), in `rug` at the precision of `delta`: a 64-point grid in
/// u = log(α−1), then golden-section search on the grid cell pair around the best point until the
/// bracket in u is below 2^-(p/2) (so the minimum VALUE is accurate to about p bits when the
/// objective is smooth and unimodal there). Points where `rdp` errs are skipped (treated as +∞);
/// if all do, the first error is returned. Returns (ε, α); ε is the conversion at that α, hence a
/// valid guarantee whatever the optimiser's accuracy.
pub fn optimize_over_alpha<F>(
    mut rdp: F,
    alpha_lo: &Float,
    alpha_hi: &Float,
    delta: &Float,
    which: Conversion,
) -> Result<(Float, Float)>
where
    F: FnMut(&Float) -> Result<Float>,
{
    check_range(alpha_lo.to_f64(), alpha_hi.to_f64())?;
    delta_in_unit_mp(delta)?;
    let p = delta.prec().max(64);
    let u_lo = Float::with_val(p, alpha_lo - 1u32).ln();
    let u_hi = Float::with_val(p, alpha_hi - 1u32).ln();
    let mut first_err: Option<Error> = None;
    let mut best: Option<(Float, Float)> = None; // (eps, alpha)
    let mut eval = |u: &Float, best: &mut Option<(Float, Float)>| -> Option<Float> {
        let alpha = Float::with_val(p, u.exp_ref()) + 1u32;
        let r = rdp(&alpha).and_then(|e| convert_mp(which, &e, &alpha, delta));
        match r {
            Ok(eps) => {
                if best.as_ref().is_none_or(|(b, _)| eps < *b) {
                    *best = Some((eps.clone(), alpha));
                }
                Some(eps)
            }
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
                None
            }
        }
    };
    let width = Float::with_val(p, &u_hi - &u_lo);
    let us: Vec<Float> = (0..GRID)
        .map(|i| {
            Float::with_val(
                p,
                &u_lo + Float::with_val(p, &width * i as u32) / (GRID as u32 - 1),
            )
        })
        .collect();
    let vals: Vec<Option<Float>> = us.iter().map(|u| eval(u, &mut best)).collect();
    let Some(ibest) = (0..GRID).filter(|&i| vals[i].is_some()).min_by(|&i, &j| {
        vals[i]
            .as_ref()
            .unwrap()
            .total_cmp(vals[j].as_ref().unwrap())
    }) else {
        return Err(first_err.unwrap_or_else(|| Error::Undefined("no alpha evaluated".into())));
    };
    let mut a = us[ibest.saturating_sub(1)].clone();
    let mut b = us[(ibest + 1).min(GRID - 1)].clone();
    let tol = Float::with_val(p, Float::i_exp(1, -(p as i32) / 2));
    let inv_phi = Float::with_val(p, 5u32).sqrt() - 1u32;
    let inv_phi = Float::with_val(p, inv_phi / 2u32);
    let inf = Float::with_val(p, f64::INFINITY);
    let mut c = Float::with_val(
        p,
        &b - Float::with_val(p, &inv_phi * Float::with_val(p, &b - &a)),
    );
    let mut d = Float::with_val(
        p,
        &a + Float::with_val(p, &inv_phi * Float::with_val(p, &b - &a)),
    );
    let mut fc = eval(&c, &mut best).unwrap_or_else(|| inf.clone());
    let mut fd = eval(&d, &mut best).unwrap_or_else(|| inf.clone());
    let mut iter = 0;
    while Float::with_val(p, &b - &a) > tol && iter < 4 * p {
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = Float::with_val(
                p,
                &b - Float::with_val(p, &inv_phi * Float::with_val(p, &b - &a)),
            );
            fc = eval(&c, &mut best).unwrap_or_else(|| inf.clone());
        } else {
            a = c;
            c = d;
            fc = fd;
            d = Float::with_val(
                p,
                &a + Float::with_val(p, &inv_phi * Float::with_val(p, &b - &a)),
            );
            fd = eval(&d, &mut best).unwrap_or_else(|| inf.clone());
        }
        iter += 1;
    }
    Ok(best.expect("at least one grid point evaluated"))
}

/// Double-precision [`optimize_over_alpha`]: grid of 64 points in log(α−1), golden section to
/// 1e-10 in log(α−1). Returns (ε, α).
#[cfg(test)]
pub(crate) fn optimize_over_alpha_f64<F>(
    mut rdp: F,
    alpha_lo: f64,
    alpha_hi: f64,
    delta: f64,
    which: Conversion,
) -> Result<(f64, f64)>
where
    F: FnMut(f64) -> Result<f64>,
{
    check_range(alpha_lo, alpha_hi)?;
    f64chk::delta(delta)?;
    let (u_lo, u_hi) = ((alpha_lo - 1.0).ln(), (alpha_hi - 1.0).ln());
    let mut first_err: Option<Error> = None;
    let mut best: Option<(f64, f64)> = None;
    let mut eval = |u: f64| -> f64 {
        let alpha = 1.0 + u.exp();
        match rdp(alpha).and_then(|e| convert_f64(which, e, alpha, delta)) {
            Ok(eps) => {
                if best.is_none_or(|(b, _)| eps < b) {
                    best = Some((eps, alpha));
                }
                eps
            }
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some(e);
                }
                f64::INFINITY
            }
        }
    };
    let us: Vec<f64> = (0..GRID)
        .map(|i| u_lo + (u_hi - u_lo) * i as f64 / (GRID - 1) as f64)
        .collect();
    let vals: Vec<f64> = us.iter().map(|&u| eval(u)).collect();
    let ibest = (0..GRID)
        .min_by(|&i, &j| vals[i].total_cmp(&vals[j]))
        .unwrap_or(0);
    if !vals[ibest].is_finite() {
        return Err(first_err.unwrap_or_else(|| Error::Undefined("no alpha evaluated".into())));
    }
    let (a, b) = (us[ibest.saturating_sub(1)], us[(ibest + 1).min(GRID - 1)]);
    crate::numeric::f64s::golden_section(&mut eval, a, b, 1e-10, 200);
    best.ok_or_else(|| first_err.unwrap_or_else(|| Error::Undefined("no alpha evaluated".into())))
}

#[cfg(test)]
mod tests;
