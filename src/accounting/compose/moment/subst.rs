//! The substitution factor of the inversion: the x-range, tail, Lipschitz and
//! integration-by-parts bounds of the add/remove factor (docs/accounting.md#composition),
//! re-derived for the likelihood ratio r₊/r₋ of the substitution pair
//! (docs/accounting.md#substitution-composition).
//!
//! Q has density φ_σ r₋ and P density φ_σ r₊, with r₊ = 1 − q + q e^{t₊}, t₊ = (x − ½)/σ²,
//! r₋ = 1 − q + q e^{t₋}, t₋ = (−x − ½)/σ², so the moment is
//! M(β) = E_Q[(r₊/r₋)^β] = ∫ φ_σ r₋^{1−β} r₊^β dx.

use super::{f64s, Mix};

/// Upper bound r^c ≤ Σ e^{ln_coef} e^{k t} for r = 1 − q + q e^t, as (ln_coef, k) pairs:
/// c ≥ 1 by convexity (Jensen), 0 ≤ c < 1 by r^c ≤ max(1, r) ≤ 1 + q e^t, c < 0 by r ≥ 1 − q.
fn power_terms(q: f64, c: f64) -> Vec<(f64, f64)> {
    if c >= 1.0 {
        vec![((-q).ln_1p(), 0.0), (q.ln(), c)]
    } else if c >= 0.0 {
        vec![(0.0, 0.0), (q.ln(), 1.0)]
    } else {
        vec![(c * (-q).ln_1p(), 0.0)]
    }
}

/// φ_σ(x) r₋^{cm} r₊^{cp} ≤ Σ e^{ln_c} φ_σ(x − μ) as (ln_c, μ) pairs: a product of the
/// [`power_terms`] is C e^{λx} with λ = (k₊ − k₋)/σ², and φ_σ(x) e^{λx} = e^{λ²σ²/2} φ_σ(x − λσ²).
fn gaussian_terms(m: &Mix, cm: f64, cp: f64) -> Vec<(f64, f64)> {
    let s2 = m.sf * m.sf;
    let mut out = Vec::new();
    for (lp, kp) in power_terms(m.qf, cp) {
        for (lm, km) in power_terms(m.qf, cm) {
            let ln_c = lp + lm - (kp + km) / (2.0 * s2) + (kp - km).powi(2) / (2.0 * s2);
            out.push((ln_c, kp - km));
        }
    }
    out
}

/// [min, max] of the centres of the bound at exponent b (with 0 and ½ included, as for
/// add/remove): the bound is monotone outside it.
pub(super) fn centre_range(m: &Mix, b: f64) -> (f64, f64) {
    let t = gaussian_terms(m, 1.0 - b, b);
    let lo = t.iter().map(|x| x.1).fold(0.0, f64::min);
    let hi = t.iter().map(|x| x.1).fold(0.5, f64::max);
    (lo, hi)
}

/// ln of a bound on hx·Σ_{x_j ∉ [xl, xr]} φ_σ(x_j) r₋^{1−b} r₊^b(x_j): Gaussian tails of the
/// [`gaussian_terms`], shifted by one step (the bound is monotone beyond the centres).
pub(super) fn ln_x_tails(m: &Mix, b: f64, xl: f64, xr: f64, hx: f64) -> f64 {
    let s = m.sf;
    let (l, r) = (xl + hx, xr - hx);
    let terms: Vec<f64> = gaussian_terms(m, 1.0 - b, b)
        .into_iter()
        .flat_map(|(ln_c, mu)| {
            [
                ln_c + f64s::log_ndtr((l - mu) / s),
                ln_c + f64s::log_ndtr(-(r - mu) / s),
            ]
        })
        .collect();
    f64s::log_sum_exp(&terms)
}

/// ln ∫ f in double precision by the trapezoid rule on the range where the Gaussian bound of
/// φ_σ r₋^{cm} r₊^{cp} is not negligible (e^{−128} beyond), with a step of min(σ/8, σ²/16):
/// the integrands here are analytic in a strip of half-width ≈ min(1, πσ²/2), so the trapezoid
/// error is far below 10⁻¹⁵ relative. `ln_f(x, ln_r_minus, ln_r_plus)` gives ln f(x).
fn ln_trapezoid(m: &Mix, cm: f64, cp: f64, ln_f: impl Fn(f64, f64, f64) -> f64) -> f64 {
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let t = gaussian_terms(m, cm, cp);
    let lo = t.iter().map(|x| x.1).fold(0.0, f64::min) - 16.0 * s - 2.0;
    let hi = t.iter().map(|x| x.1).fold(0.0, f64::max) + 16.0 * s + 2.0;
    let h = (s / 8.0).min(s2 / 16.0);
    if (hi - lo) / h > 4.0e6 {
        return f64::INFINITY;
    }
    let n = ((hi - lo) / h).ceil() as usize;
    let terms: Vec<f64> = (0..=n)
        .map(|j| {
            let x = lo + j as f64 * h;
            let lrp = (q * ((x - 0.5) / s2).exp_m1()).ln_1p();
            let lrm = (q * ((-x - 0.5) / s2).exp_m1()).ln_1p();
            ln_f(x, lrm, lrp)
        })
        .collect();
    f64s::log_sum_exp(&terms) + h.ln()
}

/// ln ∫ φ_σ r₋^{cm} r₊^{cp} dx in double precision (ln E_Q[(r₊/r₋)^b] at cm = 1 − b, cp = b).
pub(super) fn ln_j_f64(m: &Mix, cm: f64, cp: f64) -> f64 {
    let s = m.sf;
    ln_trapezoid(m, cm, cp, |x, lrm, lrp| {
        f64s::log_norm_pdf(x / s) - s.ln() + cm * lrm + cp * lrp
    })
}

/// Upper bound on |d/du M(b+iu)| / M(b) ≤ E_Q[|L| e^{bL}] / E_Q[e^{bL}], L = ln r₊ − ln r₋:
/// |L| ≤ |ln r₊| + |ln r₋| ≤ −2 ln(1−q) + q e^{t₊} + q e^{t₋}, and
/// E_Q[q e^{t±} e^{bL}] = E_Q[(r± − 1 + q) e^{bL}], i.e. J(1−b, b+1) − (1−q)J(1−b, b) and
/// J(2−b, b) − (1−q)J(1−b, b) with J(cm, cp) = ∫ φ_σ r₋^{cm} r₊^{cp}. The ratios are double
/// precision (error far below the 10⁻⁶ relative margin added).
pub(super) fn lipschitz_rel(m: &Mix, b: f64) -> f64 {
    let q = m.qf;
    let j0 = ln_j_f64(m, 1.0 - b, b);
    let rp = (ln_j_f64(m, 1.0 - b, b + 1.0) - j0).exp();
    let rm = (ln_j_f64(m, 2.0 - b, b) - j0).exp();
    (-2.0 * (-q).ln_1p() + (rp - (1.0 - q)).max(0.0) + (rm - (1.0 - q)).max(0.0) + 1e-12)
        * (1.0 + 1e-6)
}

/// ln V with |M(b+iu)| ≤ V/|u| (integration by parts in l = L(x), L strictly increasing):
/// V = TV(h), h = g/L′, g = φ_σ r₋^{1−b} r₊^b, L′ = (p₊ + p₋)/σ² with the logistic weights
/// p± = q e^{t±}/r±. Since (ln g)′ = −x/σ² − (1−b)p₋/σ² + b p₊/σ² and
/// |(ln L′)′| = |p₊(1−p₊) − p₋(1−p₋)|/(σ²(p₊+p₋)) ≤ 1/σ²,
/// TV(h) = ∫ h |(ln h)′| ≤ ∫ g (|x| + C)/(p₊ + p₋) dx, C = |1−b| + |b| + 1
/// (docs/accounting.md#substitution-composition). |x| is replaced by √(x² + 1) (smooth, larger),
/// and the double-precision trapezoid gets a 10⁻³ relative margin.
pub(super) fn ln_ibp_constant(m: &Mix, b: f64) -> f64 {
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let c = (1.0 - b).abs() + b.abs() + 1.0;
    let lq = q.ln();
    ln_trapezoid(m, 1.0 - b, b, |x, lrm, lrp| {
        let ln_pp = lq + (x - 0.5) / s2 - lrp;
        let ln_pm = lq + (-x - 0.5) / s2 - lrm;
        f64s::log_norm_pdf(x / s) - s.ln()
            + (1.0 - b) * lrm
            + b * lrp
            + ((x * x + 1.0).sqrt() + c).ln()
            - f64s::log_add_exp(ln_pp, ln_pm)
    }) + 1e-3
}
