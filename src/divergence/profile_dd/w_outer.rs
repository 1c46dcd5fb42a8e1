//! The χ²-outer route for δ(ε) of unequal-variance Gaussians in ℝ^d, for variances so close
//! that the t-outer route of the parent module meets a near-discontinuity (docs/formulas.md §7.4,
//! "Nearly equal variances").
//!
//! Write δ(ε) = P(L > ε) − e^ε Q(L > ε) and condition on the radial part instead of on t. Under
//! P, W = ‖y‖²/σ1² ~ χ²_k and L = ℓ(t) + κW with t ~ N(0, σ1²); under Q, W = W′/c with
//! W′ ~ χ²_k and t ~ N(Δ, σ2²). Given W, {L > ε} is {ℓ(t) > ε − κW}, a region bounded by the
//! ≤ 2 roots of a quadratic, whose Gaussian probability is a sum or difference of normal cdfs:
//!
//! δ(ε) = ∫₀^∞ f_k(w) G_P(ε − κw) dw − e^ε ∫₀^∞ f_k(w) G_Q(ε − κw/c) dw,
//!
//! G_P(s) = Pr_{t∼N(0,σ1²)}[ℓ(t) > s], G_Q(s) = Pr_{t∼N(Δ,σ2²)}[ℓ(t) > s].
//!
//! With w = u² both integrands are the χ_k density times G, analytic in u except where the two
//! roots merge (u* = √w*, a square-root branch point, beyond which G is 0 or 1). As κ → 0 the
//! integrands become flat in u (G_P(ε − κu²) moves by O(κu²)), so the quadrature gets easier
//! exactly where the t-outer route gets harder: its integrand switches over a width ∝ κ at each
//! root of ℓ = ε.
//!
//! **Certification.** Each integral is a sum of positive pieces (Gauss–Legendre of unit width in
//! u, tanh–sinh on a piece that ends at a branch point), cut at U with the explicit tail bound
//! Pr[χ²_k > U²] ≥ both truncated tails (G ≤ 1). The difference is computed with guard bits for
//! its cancellation ρ = (I_P + e^ε I_Q)/δ, measured by a coarse pass; the quadrature errors and
//! tails must total ≤ 10^-(digits+1) δ, else [`Error::Precision`]. The caller wraps this in the
//! precision ladder ([`crate::numeric::mp::certify`]).

use crate::error::{Error, Result};
use crate::model::Variances;
use crate::numeric::mp::{log_add_exp, log_ndtr, log_ndtr_diff};
use crate::numeric::quad::{
    gl_start, integrate, ln_abs_f64, ln_add, sort_breakpoints, FnIntegrand, Point, QuadOptions,
    QuadResult, Rule,
};
use rug::Float;

const LN_10: f64 = std::f64::consts::LN_10;

/// ℓ(t) − ε = a t² + b t + l0 and the two Gaussian laws of t, at working precision.
struct Quadratic {
    wp: u32,
    k: u32,
    /// ℓ(t) − ε = a t² + b t + l0, κ and c (its `s1`, `s2` are the variances).
    loss: super::Loss,
    /// σ1 and σ2 (t ~ N(0, σ1²) under P, N(Δ, σ2²) under Q).
    s1: Float,
    s2: Float,
    /// ln 2 − (k/2) ln 2 − ln Γ(k/2): the log-constant of the χ_k density 2u f_k(u²).
    ln_chi_const: Float,
}

/// Which side of the difference: P(L > ε) or Q(L > ε).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    P,
    Q,
}

impl Quadratic {
    /// κ_eff: the coefficient of w in the threshold (κ under P, κ/c under Q).
    fn kappa_eff(&self, side: Side) -> Float {
        match side {
            Side::P => self.loss.kappa.clone(),
            Side::Q => Float::with_val(self.wp, &self.loss.kappa / &self.loss.c),
        }
    }

    /// w* where the roots of a t² + b t + l0 + κ_eff w merge (None if they never do for w > 0).
    fn w_star(&self, side: Side) -> Option<Float> {
        let wp = self.wp;
        let disc0 = Float::with_val(wp, self.loss.b.square_ref())
            - Float::with_val(wp, &self.loss.a * &self.loss.l0) * 4u32;
        let den = Float::with_val(wp, &self.loss.a * self.kappa_eff(side)) * 4u32;
        let w = Float::with_val(wp, &disc0 / &den);
        (w > 0 && w.is_finite()).then_some(w)
    }

    /// ln G(ε − κ_eff u²): the log-probability of {ℓ(t) > ε − κ_eff u²} under the side's law
    /// of t.
    fn ln_g(&self, side: Side, u: &Float) -> Float {
        let wp = self.wp;
        let w = Float::with_val(wp, u.square_ref());
        let c0 = Float::with_val(
            wp,
            &self.loss.l0 + Float::with_val(wp, self.kappa_eff(side) * &w),
        );
        let rts = super::roots(&self.loss.a, &self.loss.b, &c0, wp);
        let pos = self.loss.a > 0;
        if rts.len() < 2 {
            // No sign change: {a t² + b t + c0 > 0} is all of ℝ (a > 0) or empty (a < 0).
            return Float::with_val(wp, if pos { 0.0 } else { f64::NEG_INFINITY });
        }
        let (m, s) = match side {
            Side::P => (Float::new(wp), &self.s1),
            Side::Q => (self.loss.dist.clone(), &self.s2),
        };
        let z = |r: &Float| Float::with_val(wp, Float::with_val(wp, r - &m) / s);
        let (z1, z2) = (z(&rts[0]), z(&rts[1]));
        if pos {
            // outside the roots: Φ(z1) + Φ(−z2)
            log_add_exp(&log_ndtr(&z1), &log_ndtr(&Float::with_val(wp, -&z2)))
        } else {
            // between the roots: Φ(z2) − Φ(z1)
            log_ndtr_diff(&z1, &z2)
        }
    }

    /// ln of the integrand χ_k(u) G(ε − κ_eff u²) and its rounding magnitude.
    fn ln_integrand(&self, side: Side, u: &Float, qp: u32) -> (Float, f64) {
        let wp = self.wp;
        let u = Float::with_val(wp, u);
        let lg = self.ln_g(side, &u);
        if lg.is_infinite() {
            return (Float::with_val(qp, f64::NEG_INFINITY), 0.0);
        }
        let u2 = Float::with_val(wp, u.square_ref()) / 2u32;
        let mut l = Float::with_val(wp, &self.ln_chi_const - &u2);
        let mut mag = 4.0 + u2.to_f64() + lg.to_f64().abs();
        if self.k > 1 {
            let lu = Float::with_val(wp, u.ln_ref()) * (self.k - 1);
            mag += lu.to_f64().abs();
            l += lu;
        }
        l += lg;
        (Float::with_val(qp, l), mag)
    }
}

/// δ at quadrature precision `qp` by the χ²-outer route (module docs). Requires k = d − 1 ≥ 1
/// and σ1² ≠ σ2².
pub(super) fn w_outer_at(v: &Variances, eps: &Float, digits: u32, qp: u32) -> Result<Float> {
    let (vars, dist, d) = ([&v.s1, &v.s2, &v.diff], &v.dist, v.d);
    let diff = vars[2];
    let k = d - 1;
    if k == 0 || diff.is_zero() {
        return Err(Error::Unsupported(
            "profile_dd: the χ²-outer route needs d ≥ 2 and unequal variances".into(),
        ));
    }
    // Empty region: κ < 0 and ℓ(t) < ε for every t give L < ε. For a < 0 the merge point w*
    // = disc0/(4aκ) has a positive denominator, so "no w* > 0" is "no real root at w = 0".
    let q0 = setup(vars, dist, d, eps, 128)?;
    if q0.loss.a < 0 && q0.w_star(Side::P).is_none() {
        return Ok(Float::new(qp));
    }
    // Coarse pass (8 digits, then more if the difference cancels): δ̂ and the cancellation ρ.
    let mut coarse_digits = 8.0;
    let mut u_max = f64::from(k).sqrt() + 10.0;
    let mut coarse = None;
    for _ in 0..4 {
        let q = setup(vars, dist, d, eps, 96 + 64 * (coarse_digits as u32 / 16))?;
        let (ip, iq) = (
            side_integral(&q, Side::P, u_max, coarse_digits, None, q.wp)?,
            side_integral(&q, Side::Q, u_max, coarse_digits, None, q.wp)?,
        );
        let (lp, lq) = (ip.log_abs.to_f64(), iq.log_abs.to_f64() + eps.to_f64());
        let dv = Float::with_val(
            q.wp,
            ip.value() - Float::with_val(q.wp, eps.exp_ref()) * iq.value(),
        );
        let ld = ln_abs_f64(&dv);
        let rho_log10 = (ln_add(lp, lq) - ld) / LN_10;
        let tail_ok =
            tail_ln(k, u_max) + eps.to_f64().max(0.0) - ld < -f64::from(digits + 3) * LN_10;
        if dv > 0 && rho_log10 + 3.0 < coarse_digits && tail_ok {
            coarse = Some((ld, rho_log10, ln_add(lp, lq)));
            break;
        }
        if !tail_ok && ld.is_finite() {
            // grow U until Pr[χ²_k > U²] e^{max(ε,0)} ≤ 10^-(digits+3) δ̂
            while tail_ln(k, u_max) + eps.to_f64().max(0.0) - ld >= -f64::from(digits + 3) * LN_10
                && u_max < 1e4
            {
                u_max += 2.0;
            }
        }
        coarse_digits += 16.0;
    }
    let Some((ld, rho_log10, lsum)) = coarse else {
        return Err(Error::Precision {
            narrowest: None,
            requested: digits,
            certified: 0,
            what: "profile_dd (χ²-outer route): δ is not resolved from the difference \
                   P(L > ε) − e^ε Q(L > ε) at 56 digits"
                .into(),
        });
    };
    let guard = (rho_log10.max(0.0) * 3.33).ceil() as u32;
    let q = setup(vars, dist, d, eps, qp + 32 + guard)?;
    let qd = f64::from(digits) + 2.0 + rho_log10.max(0.0) + 0.5;
    let ip = side_integral(&q, Side::P, u_max, qd, Some(lsum), qp + guard)?;
    // e^ε I_Q enters the difference: its reference size is e^{lsum − ε}.
    let iq = side_integral(
        &q,
        Side::Q,
        u_max,
        qd,
        Some(lsum - eps.to_f64()),
        qp + guard,
    )?;
    let wp = q.wp;
    let val = Float::with_val(
        wp,
        ip.value() - Float::with_val(wp, eps.exp_ref()) * iq.value(),
    );
    let err_ln = ln_add(
        ln_add(ip.log_abs_err, iq.log_abs_err + eps.to_f64()),
        tail_ln(k, u_max) + eps.to_f64().max(0.0),
    );
    let val_ln = ln_abs_f64(&val);
    let rel_log10 = (err_ln - val_ln) / LN_10;
    if val <= 0 || rel_log10 > -f64::from(digits + 1) {
        return Err(Error::Precision {
            narrowest: None,
            requested: digits,
            certified: (-rel_log10).max(0.0).floor() as u32,
            what: format!(
                "profile_dd (χ²-outer route): error bound 10^{rel_log10:.1} relative \
                 (coarse δ̂ = e^{ld:.2})"
            ),
        });
    }
    Ok(Float::with_val(qp, val))
}

/// ln Pr[χ²_k > U²] (f64; bounds the truncated part of either integral).
fn tail_ln(k: u32, u_max: f64) -> f64 {
    let x = Float::with_val(128, u_max * u_max);
    crate::numeric::chi2::chi2_sf(k, &x)
        .map(|v| ln_abs_f64(&v))
        .unwrap_or(f64::INFINITY)
}

fn setup(vars: [&Float; 3], dist: &Float, d: u32, eps: &Float, wp: u32) -> Result<Quadratic> {
    let k = d - 1;
    let loss = super::Loss::new(vars, dist, d, eps, wp);
    let half_k = Float::with_val(wp, k) / 2u32;
    let ln2 = Float::with_val(wp, rug::float::Constant::Log2);
    let ln_chi_const = Float::with_val(wp, &ln2 - Float::with_val(wp, &half_k * &ln2))
        - Float::with_val(wp, half_k.ln_gamma_ref());
    if !(loss.a.is_finite() && loss.l0.is_finite() && ln_chi_const.is_finite()) {
        return Err(Error::Undefined(
            "profile_dd (χ²-outer route): the parameters overflow the working precision".into(),
        ));
    }
    Ok(Quadratic {
        wp,
        k,
        s1: Float::with_val(wp, loss.s1.sqrt_ref()),
        s2: Float::with_val(wp, loss.s2.sqrt_ref()),
        loss,
        ln_chi_const,
    })
}

/// ∫₀^U χ_k(u) G(ε − κ_eff u²) du for one side, to `digits` relative to max(I, e^log_ref), at
/// quadrature precision `qp`: unit pieces (Gauss–Legendre), and tanh–sinh on the piece that ends
/// at the branch point u* (where the roots merge; beyond it G is 0 or 1).
fn side_integral(
    q: &Quadratic,
    side: Side,
    u_max: f64,
    digits: f64,
    log_ref: Option<f64>,
    qp: u32,
) -> Result<QuadResult> {
    let wp = q.wp;
    let ustar = q.w_star(side).map(|w| w.sqrt());
    // Where G ≡ 0 beyond u* (a < 0), the integral stops there.
    let mut hi = Float::with_val(wp, u_max);
    if let Some(us) = &ustar {
        if q.loss.a < 0 && *us < hi {
            hi = us.clone();
        }
    }
    let mut pts: Vec<Float> = vec![Float::new(wp), hi.clone()];
    let n = hi.to_f64().ceil() as i64;
    for j in 1..n {
        let x = Float::with_val(wp, j);
        if x < hi {
            pts.push(x);
        }
    }
    if let Some(us) = &ustar {
        if *us > 0 && *us < hi {
            pts.push(us.clone());
        }
    }
    sort_breakpoints(&mut pts)?;
    let npieces = (pts.len() - 1).max(1) as f64;
    let pd = digits + npieces.log10();
    let mut parts = Vec::new();
    let mut total_ln = log_ref.unwrap_or(f64::NEG_INFINITY);
    for w in pts.windows(2) {
        let (pa, pb) = (&w[0], &w[1]);
        let at_branch = ustar.as_ref().is_some_and(|us| pa == us || pb == us);
        let (la, lm, lb) = {
            let m = Float::with_val(wp, pa + pb) / 2u32;
            let e = |x: &Float| q.ln_integrand(side, x, 64).0.to_f64();
            (e(pa), e(&m), e(pb))
        };
        let est = la.max(lm).max(lb);
        let low = la.min(lm).min(lb);
        let drop = if low.is_finite() { est - low } else { 60.0 };
        let mut o = QuadOptions::new(qp, pd);
        if total_ln.is_finite() {
            o.log_ref = Some(total_ln);
        }
        o.max_level = 10;
        let need = if total_ln.is_finite() && est.is_finite() {
            (pd - (total_ln - est) / LN_10).clamp(2.0, pd)
        } else {
            pd
        };
        let rule = if at_branch {
            Rule::TanhSinh {
                a: Float::with_val(qp, pa),
                b: Float::with_val(qp, pb),
            }
        } else {
            Rule::GaussLegendre {
                a: Float::with_val(qp, pa),
                b: Float::with_val(qp, pb),
                n0: gl_start(need, drop),
            }
        };
        let mut f = FnIntegrand(|x: &Float, pt: &mut Point| {
            let (l, mag) = q.ln_integrand(side, x, qp);
            pt.log_env = l;
            pt.mag = mag;
        });
        let r = integrate(&mut f, &rule, &o)?;
        total_ln = ln_add(total_ln, r.log_abs.to_f64());
        parts.push(r);
    }
    Ok(crate::numeric::quad::sum_same_sign(&parts, qp))
}
