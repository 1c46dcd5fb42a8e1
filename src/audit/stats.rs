//! The statistics of membership-inference audits, in f64.
//!
//! An audit draws `n_p` outputs of a mechanism on an input x (distribution P) and `n_q` on a
//! neighbour x′ (distribution Q), fixes a rejection region S, counts how many of each sample
//! fall in S, bounds the two error rates from above with one-sided Clopper–Pearson intervals and
//! turns the bounds into a lower bound on ε (Jagielski, Ullman & Oprea, NeurIPS 2020, §3;
//! Nasr et al., IEEE S&P 2021, §4). This module holds everything that is not mechanism-specific:
//!
//! * the binomial tails and the regularised incomplete beta function I_x(a, b)
//!   ([`beta_inc`], [`binom_cdf`], [`binom_sf`] and their logarithms), accurate in *relative*
//!   terms in both tails for counts up to 2⁵³ (tested against mpmath up to N = 10⁹);
//! * Clopper–Pearson bounds ([`cp_upper`], [`cp_lower`], [`cp_interval`]) by a bracketed,
//!   iteration-capped root search (statrs 0.19's Beta `inverse_cdf` does not return for small
//!   counts with large N, statrs issue #435, and its Beta `cdf` is inaccurate near the mean for
//!   huge shapes, #434: statrs is not used here);
//! * the ε lower bound [`eps_lower_bound`] and the serialisable per-region record
//!   [`RegionAudit`];
//! * threshold selection over a [`ThresholdTable`] (built from sorted samples or from
//!   histograms with cumulative counts): [`best_region`] (Bonferroni over every candidate) and
//!   [`held_out_region`] (choose on one split, evaluate on another).
//!
//! # Conventions
//! T is a scalar test statistic. For a threshold t the region is S = {T > t} ([`Tail::Above`])
//! or its complement S = {T ≤ t} ([`Tail::Below`]). In direction [`Direction::PvsQ`] the
//! *positive* class is P: a false positive is a Q-sample inside S, a false negative a P-sample
//! outside S, and (ε, δ)-DP gives P(S) ≤ e^ε Q(S) + δ, i.e.
//! ε ≥ ln((1 − δ − FNR)/FPR) with FPR = Q(S), FNR = 1 − P(S). [`Direction::QvsP`] swaps the
//! roles of P and Q (the neighbouring relation is symmetric).
//!
//! # Confidence
//! Every reported ε_lb rests on a family of one-sided Clopper–Pearson upper bounds, each at level
//! β/B where B is the number of bounds in the family; by the union bound all B hold together with
//! probability ≥ 1 − β, and then every ε_lb computed from them (and their maximum) is ≤ the true
//! ε. A single pre-chosen region in one direction needs B = 2; a search over m thresholds (both
//! tails, both directions) uses the four proportions P(S), P(Sᶜ), Q(S), Q(Sᶜ) of each threshold,
//! B = 4m. Candidate thresholds must be fixed before the samples are seen (a grid, or histogram
//! bin edges), or chosen on a held-out split.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::numeric::f64s::{log1mexp, ndtri_upper};

/// Largest sample size accepted: counts are converted to f64 exactly.
pub const MAX_COUNT: u64 = 1 << 53;

/// Iteration cap of the incomplete-beta continued fraction. Far from the mean it needs tens of
/// steps; at the mean about √a/9 (11 582 at a = b = 10¹⁰, 0.2 ms); reaching the cap is reported
/// as an error.
const CF_MAX_ITER: usize = 2_000_000;

/// Iteration cap of the Clopper–Pearson root search (Illinois steps plus bisection fallbacks).
const ROOT_MAX_ITER: usize = 400;

/// Level at which the CP root search accepts g = ln(tail) − ln β as zero: the binomial tails are
/// accurate to a few 10⁻¹⁴ relative (see the tests), so a smaller residual carries no information.
const G_TOL: f64 = 1e-14;

/// ln √(2π).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

// ---------------------------------------------------------------------------------------------
// Incomplete beta function
// ---------------------------------------------------------------------------------------------

/// Stirling remainder c(z) = lnΓ(z) − [(z − ½) ln z − z + ½ ln 2π].
///
/// Asymptotic series (Abramowitz–Stegun 6.1.41) for z ≥ 15 (truncation error < 2·10⁻¹⁶ there);
/// below, from `libm::lgamma`, where the terms are small enough that the difference is accurate
/// to a few 10⁻¹⁵ in absolute terms.
fn stirling_remainder(z: f64) -> f64 {
    if z >= 15.0 {
        let r = 1.0 / z;
        let r2 = r * r;
        r * (1.0 / 12.0
            - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0 - r2 / 1188.0))))
    } else {
        libm::lgamma(z) - ((z - 0.5) * z.ln() - z + LN_SQRT_2PI)
    }
}

/// Loader's deviance term bd0(x, m) = x ln(x/m) + m − x ≥ 0, given the deviation d = x − m
/// computed accurately by the caller (Loader 2000, "Fast and accurate computation of binomial
/// probabilities"). For |d| < 0.1(x + m) the series in v = d/(x + m),
/// bd0 = d·v + 2x Σ_{j≥1} v^{2j+1}/(2j + 1), has no cancellation.
fn bd0(x: f64, m: f64, d: f64) -> f64 {
    if x == 0.0 {
        return m;
    }
    if d.abs() < 0.1 * (x + m) {
        let v = d / (x + m);
        let v2 = v * v;
        let mut s = d * v;
        let mut ej = 2.0 * x * v;
        for j in 1..1000 {
            ej *= v2;
            let s1 = s + ej / (2 * j + 1) as f64;
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        s
    } else {
        x * (x / m).ln() - d
    }
}

/// ln[x^a y^b / B(a, b)] with y = 1 − x, and the deviation d_a = a − (a + b)x.
///
/// Saddle-point form (the generalisation of Loader's dbinom to real a, b):
/// ln[x^a y^b / B(a,b)] = −bd0(a, sx) − bd0(b, sy) + ½ ln(ab/(2πs)) − [c(a) + c(b) − c(s)],
/// s = a + b, c the Stirling remainder. No term is of the size of a or b, so there is no
/// cancellation even for a, b ~ 10¹⁰ (where lnΓ differences would lose ~6 digits). The
/// deviation is formed from whichever of x, y is ≤ ½ (the one known to full relative precision).
fn ln_beta_kernel(a: f64, b: f64, x: f64, y: f64) -> (f64, f64) {
    let s = a + b;
    let (d_a, m_a, d_b, m_b) = if x <= y {
        let d_a = (-s).mul_add(x, a);
        (d_a, a - d_a, -d_a, b + d_a)
    } else {
        let d_b = (-s).mul_add(y, b);
        (-d_b, a + d_b, d_b, b - d_b)
    };
    let ln_k = -bd0(a, m_a, d_a) - bd0(b, m_b, d_b) + 0.5 * ((a / s).ln() + b.ln())
        - LN_SQRT_2PI
        - (stirling_remainder(a) + stirling_remainder(b) - stirling_remainder(s));
    (ln_k, d_a)
}

/// The continued fraction of I_x(a, b) in the λ-form of DiDonato & Morris (1992, ACM TOMS 708,
/// routine BFRAC), λ = a − (a + b)x ≥ 0 (x at or below the mean a/(a+b)): returns r with
/// I_x(a, b) = x^a y^b / B(a, b) · r. Every partial numerator and denominator is a sum of
/// positive terms (for n < b), so nothing cancels even when y = 1 − x is close to 1 and a, b
/// are huge — unlike the textbook form (DLMF 8.17.22), whose odd terms 1 − (a+m)(a+b+m)y/(…)
/// lose ~|log₁₀ x| digits there. Capped at [`CF_MAX_ITER`] steps (an error).
fn beta_frac(a: f64, b: f64, x: f64, y: f64, lambda: f64) -> Result<f64> {
    const EPS: f64 = 1e-15;
    let c = lambda + 1.0;
    let c0 = b / a;
    let c1 = 1.0 / a + 1.0;
    let yp1 = y + 1.0;
    let mut n = 0.0;
    let mut p = 1.0;
    let mut s = a + 1.0;
    let mut an = 0.0;
    let mut bn = 1.0;
    let mut anp1 = 1.0;
    let mut bnp1 = c / c1;
    let mut r = c1 / c;
    for _ in 0..CF_MAX_ITER {
        n += 1.0;
        let t = n / a;
        let w = n * (b - n) * x;
        let e = a / s;
        let alpha = p * (p + c0) * e * e * (w * x);
        let e = (t + 1.0) / (c1 + t + t);
        let beta = n + w / s + e * (c + n * yp1);
        p = t + 1.0;
        s += 2.0;
        let t = alpha * an + beta * anp1;
        an = anp1;
        anp1 = t;
        let t = alpha * bn + beta * bnp1;
        bn = bnp1;
        bnp1 = t;
        let r0 = r;
        r = anp1 / bnp1;
        if (r - r0).abs() <= EPS * r {
            return Ok(r);
        }
        an /= bnp1;
        bn /= bnp1;
        anp1 = r;
        bnp1 = 1.0;
    }
    Err(Error::Undefined(format!(
        "incomplete beta continued fraction did not converge in {CF_MAX_ITER} steps \
         for a = {a}, b = {b}, x = {x}"
    )))
}

/// (ln I_x(a,b), ln(1 − I_x(a,b))) with y = 1 − x supplied (both to full relative precision).
///
/// Closed forms for a = 1 (I = 1 − y^b) and b = 1 (I = x^a). Otherwise the continued fraction
/// is applied on the side of the mean where λ ≥ 0: to I_x(a, b) when x ≤ a/(a+b), else to
/// I_y(b, a) = 1 − I_x(a, b) (DLMF 8.17.4). That side is the smaller tail; the other is
/// log1mexp of it.
fn ln_beta_inc_xy(a: f64, b: f64, x: f64, y: f64) -> Result<(f64, f64)> {
    if x <= 0.0 {
        return Ok((f64::NEG_INFINITY, 0.0));
    }
    if y <= 0.0 {
        return Ok((0.0, f64::NEG_INFINITY));
    }
    let ln_x = if x <= y { x.ln() } else { (-y).ln_1p() };
    let ln_y = if y <= x { y.ln() } else { (-x).ln_1p() };
    if a == 1.0 {
        let up = b * ln_y;
        return Ok((log1mexp(up), up));
    }
    if b == 1.0 {
        let lo = a * ln_x;
        return Ok((lo, log1mexp(lo)));
    }
    let (ln_k, d_a) = ln_beta_kernel(a, b, x, y);
    if d_a >= 0.0 {
        let r = beta_frac(a, b, x, y, d_a)?;
        let lo = (ln_k + r.ln()).min(0.0);
        Ok((lo, log1mexp(lo)))
    } else {
        let r = beta_frac(b, a, y, x, -d_a)?;
        let up = (ln_k + r.ln()).min(0.0);
        Ok((log1mexp(up), up))
    }
}

fn check_shape(name: &str, v: f64) -> Result<f64> {
    if v.is_finite() && v > 0.0 && v <= 1e15 {
        Ok(v)
    } else {
        Err(Error::invalid(name, v, "finite, > 0 and <= 1e15"))
    }
}

fn check_unit(name: &str, x: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&x) {
        Ok(x)
    } else {
        Err(Error::invalid(name, x, "in [0, 1]"))
    }
}

/// The regularised incomplete beta function and its complement, (I_x(a, b), 1 − I_x(a, b)),
/// each accurate in relative terms (≈10⁻¹³ or better for a, b ≤ 10¹⁰; see the tests).
///
/// I_x(a, b) = B(x; a, b)/B(a, b), DLMF 8.17.2. Computed by the continued fraction of
/// DiDonato & Morris (1992, TOMS 708, BFRAC) on the side of the mean where it has no
/// cancellation, with the prefactor x^a(1−x)^b/B(a,b) in the saddle-point form of Loader (2000),
/// which has no cancellation for huge a and b. Errors: a or b not in (0, 1e15], x not in [0, 1].
pub fn beta_inc(a: f64, b: f64, x: f64) -> Result<(f64, f64)> {
    let (lo, up) = ln_beta_inc(a, b, x)?;
    Ok((lo.exp(), up.exp()))
}

/// (ln I_x(a, b), ln(1 − I_x(a, b))): as [`beta_inc`], in logs (no underflow).
pub fn ln_beta_inc(a: f64, b: f64, x: f64) -> Result<(f64, f64)> {
    check_shape("a", a)?;
    check_shape("b", b)?;
    check_unit("x", x)?;
    ln_beta_inc_xy(a, b, x, 1.0 - x)
}

fn check_counts(k: u64, n: u64) -> Result<(f64, f64)> {
    if n == 0 || n > MAX_COUNT {
        return Err(Error::invalid("n", n, "in [1, 2^53]"));
    }
    if k > n {
        return Err(Error::invalid("k", k, &format!("<= n = {n}")));
    }
    Ok((k as f64, n as f64))
}

/// (ln P(X ≤ k), ln P(X > k)) for X ~ Bin(n, x) with y = 1 − x supplied.
/// P(X > k) = I_x(k + 1, n − k) (DLMF 8.17.5).
fn ln_binom_tails_xy(k: f64, n: f64, x: f64, y: f64) -> Result<(f64, f64)> {
    if k >= n {
        return Ok((0.0, f64::NEG_INFINITY));
    }
    let (ln_sf, ln_cdf) = ln_beta_inc_xy(k + 1.0, n - k, x, y)?;
    Ok((ln_cdf, ln_sf))
}

/// (ln P(X ≤ k), ln P(X > k)) for X ~ Bin(n, p): both tails in logs, each accurate in relative
/// terms. Errors: n = 0 or n > 2⁵³, k > n, p not in [0, 1].
pub fn ln_binom_tails(k: u64, n: u64, p: f64) -> Result<(f64, f64)> {
    let (kf, nf) = check_counts(k, n)?;
    check_unit("p", p)?;
    ln_binom_tails_xy(kf, nf, p, 1.0 - p)
}

/// Binomial cdf P(X ≤ k), X ~ Bin(n, p), accurate in relative terms in the lower tail
/// (= I_{1−p}(n − k, k + 1), DLMF 8.17.5).
pub fn binom_cdf(k: u64, n: u64, p: f64) -> Result<f64> {
    Ok(ln_binom_tails(k, n, p)?.0.exp())
}

/// Binomial survival function P(X > k), X ~ Bin(n, p), accurate in relative terms in the upper
/// tail (= I_p(k + 1, n − k), DLMF 8.17.5).
pub fn binom_sf(k: u64, n: u64, p: f64) -> Result<f64> {
    Ok(ln_binom_tails(k, n, p)?.1.exp())
}

// ---------------------------------------------------------------------------------------------
// Clopper–Pearson
// ---------------------------------------------------------------------------------------------

fn check_beta(name: &str, beta: f64) -> Result<f64> {
    if beta > 0.0 && beta < 1.0 {
        Ok(beta)
    } else {
        Err(Error::invalid(name, beta, "in (0, 1)"))
    }
}

/// Root of a monotone function g on the bracket [a, b], g(a) and g(b) of opposite signs (either
/// may be ±∞): the Illinois method (Dowell & Jarratt 1971; regula falsi whose retained end has
/// its value halved), with a bisection step whenever an end value is infinite and plain
/// bisection after 100 steps, so the bracket always shrinks. Stops when the bracket is narrower
/// than `tol`, or when |g| ≤ `ftol` (g's own rounding level: the root is then as accurate as g
/// allows), or after [`ROOT_MAX_ITER`] steps (an error).
fn bracketed_root(
    g: impl Fn(f64) -> Result<f64>,
    mut a: f64,
    mut fa: f64,
    mut b: f64,
    mut fb: f64,
    tol: f64,
    ftol: f64,
) -> Result<f64> {
    for it in 0..ROOT_MAX_ITER {
        // Never ask for less than 2 ulps of the bracket's magnitude.
        let floor = 4.0 * f64::EPSILON * a.abs().max(b.abs());
        if (b - a).abs() <= tol.max(floor) {
            return Ok(b);
        }
        let mut c = if fa.is_finite() && fb.is_finite() && it < 100 {
            b - fb * (b - a) / (fb - fa)
        } else {
            0.5 * (a + b)
        };
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        if !(c > lo && c < hi) {
            c = 0.5 * (a + b);
            if !(c > lo && c < hi) {
                // adjacent doubles: the bracket cannot shrink further.
                return Ok(b);
            }
        }
        let fc = g(c)?;
        if fc.is_nan() {
            return Err(Error::Undefined(format!(
                "Clopper–Pearson root search: NaN tail at u = {c}"
            )));
        }
        if fc.abs() <= ftol {
            return Ok(c);
        }
        if (fc > 0.0) != (fb > 0.0) {
            a = b;
            fa = fb;
        } else {
            fa *= 0.5;
        }
        b = c;
        fb = fc;
    }
    Err(Error::Undefined(format!(
        "Clopper–Pearson root search did not converge in {ROOT_MAX_ITER} steps"
    )))
}

/// ln P(Bin(n, e^u) ≤ k) and ln P(Bin(n, e^u) > k), with 1 − e^u = −expm1(u) exact to 1 ulp.
fn ln_tails_at(k: f64, n: f64, u: f64) -> Result<(f64, f64)> {
    ln_binom_tails_xy(k, n, u.exp(), -u.exp_m1())
}

/// Upper confidence width multiplier used to place the first bracket end.
fn z_of(beta: f64) -> f64 {
    ndtri_upper(beta).max(0.0) + 1.0
}

/// One-sided Clopper–Pearson upper bound: the p with P(Bin(n, p) ≤ k) = β, i.e. the (1 − β)
/// quantile of Beta(k + 1, n − k) (Clopper & Pearson 1934). P(p_true > bound) ≤ β.
///
/// k = 0: 1 − β^{1/n}, computed as −expm1(ln β / n); k = n: 1. Otherwise a bracketed
/// Illinois/bisection search in u = ln p (at most 400 steps) until the bracket is 2 ulps wide
/// or |ln P(X ≤ k) − ln β| ≤ 10⁻¹⁴, the tail's own accuracy: relative accuracy ~10⁻¹⁴ in p
/// (1.3·10⁻¹⁴ worst against mpmath for n ≤ 10⁹).
/// Errors: n = 0 or > 2⁵³, k > n, β not in (0, 1).
pub fn cp_upper(k: u64, n: u64, beta: f64) -> Result<f64> {
    let (kf, nf) = check_counts(k, n)?;
    check_beta("beta", beta)?;
    if k == n {
        return Ok(1.0);
    }
    let lb = beta.ln();
    if k == 0 {
        return Ok(-(lb / nf).exp_m1());
    }
    // g(u) = ln P(X ≤ k) − ln β, decreasing in u.
    let g = |u: f64| -> Result<f64> { Ok(ln_tails_at(kf, nf, u)?.0 - lb) };
    // At p = k/n the cdf is ≥ ½ (k is a median), so g > 0 when β < ½.
    let mut u_lo = (kf / nf).ln();
    let mut g_lo = g(u_lo)?;
    let mut step = 1.0;
    let mut guard = 0;
    while g_lo <= 0.0 {
        // only for β ≥ ½: move down.
        u_lo -= step;
        step *= 2.0;
        g_lo = g(u_lo)?;
        guard += 1;
        if guard > 60 || u_lo < -745.0 {
            return Err(Error::Undefined(format!(
                "cp_upper: no lower bracket for k = {k}, n = {n}, beta = {beta}"
            )));
        }
    }
    let z = z_of(beta);
    let mut u_hi = (((kf + 1.0 + z * (kf + 1.0).sqrt() + z * z) / nf).min(1.0)).ln();
    let mut g_hi = g(u_hi)?;
    guard = 0;
    step = (u_hi - u_lo).max(1e-3);
    while g_hi > 0.0 {
        u_lo = u_hi;
        g_lo = g_hi;
        u_hi = (u_hi + step).min(0.0);
        step *= 2.0;
        g_hi = g(u_hi)?;
        guard += 1;
        if guard > 200 {
            return Err(Error::Undefined(format!(
                "cp_upper: no upper bracket for k = {k}, n = {n}, beta = {beta}"
            )));
        }
    }
    let tol = 4e-16;
    let u = bracketed_root(g, u_lo, g_lo, u_hi, g_hi, tol, G_TOL)?;
    Ok(u.exp())
}

/// One-sided Clopper–Pearson lower bound: the p with P(Bin(n, p) ≥ k) = β, i.e. the β quantile
/// of Beta(k, n − k + 1) (Clopper & Pearson 1934). P(p_true < bound) ≤ β.
///
/// k = 0: 0; k = n: β^{1/n}. Otherwise a bracketed, capped search as in [`cp_upper`].
/// Errors: n = 0 or > 2⁵³, k > n, β not in (0, 1).
pub fn cp_lower(k: u64, n: u64, beta: f64) -> Result<f64> {
    let (kf, nf) = check_counts(k, n)?;
    check_beta("beta", beta)?;
    if k == 0 {
        return Ok(0.0);
    }
    let lb = beta.ln();
    if k == n {
        return Ok((lb / nf).exp());
    }
    // g(u) = ln P(X ≥ k) − ln β = ln P(X > k − 1) − ln β, increasing in u.
    let g = |u: f64| -> Result<f64> { Ok(ln_tails_at(kf - 1.0, nf, u)?.1 - lb) };
    let mut u_hi = (kf / nf).ln();
    let mut g_hi = g(u_hi)?;
    let mut guard = 0;
    while g_hi <= 0.0 {
        // only for β ≥ ½: move up towards p = 1.
        u_hi *= 0.5;
        g_hi = g(u_hi)?;
        guard += 1;
        if guard > 200 {
            return Err(Error::Undefined(format!(
                "cp_lower: no upper bracket for k = {k}, n = {n}, beta = {beta}"
            )));
        }
    }
    let z = z_of(beta);
    let rel = 1.0 - (z * kf.sqrt() + z * z) / kf;
    let mut step = -(rel.max(1e-3)).ln();
    let mut u_lo = u_hi - step;
    let mut g_lo = g(u_lo)?;
    guard = 0;
    while g_lo >= 0.0 {
        u_hi = u_lo;
        g_hi = g_lo;
        step *= 2.0;
        u_lo -= step;
        g_lo = g(u_lo)?;
        guard += 1;
        if guard > 60 || u_lo < -1e4 {
            return Err(Error::Undefined(format!(
                "cp_lower: no lower bracket for k = {k}, n = {n}, beta = {beta}"
            )));
        }
    }
    let tol = 4e-16;
    let u = bracketed_root(g, u_lo, g_lo, u_hi, g_hi, tol, G_TOL)?;
    Ok(u.exp())
}

/// Two-sided Clopper–Pearson interval at confidence `conf`: (cp_lower(k, n, (1 − conf)/2),
/// cp_upper(k, n, (1 − conf)/2)). Errors: as [`cp_upper`], `conf` not in (0, 1).
pub fn cp_interval(k: u64, n: u64, conf: f64) -> Result<(f64, f64)> {
    check_beta("conf", conf)?;
    let half = 0.5 * (1.0 - conf);
    Ok((cp_lower(k, n, half)?, cp_upper(k, n, half)?))
}

// ---------------------------------------------------------------------------------------------
// The ε lower bound and the per-region record
// ---------------------------------------------------------------------------------------------

/// Raw ln((1 − δ − fnr)/fpr), possibly negative or −∞; no validation.
fn eps_raw(fpr_ub: f64, fnr_ub: f64, delta: f64) -> f64 {
    let t = delta + fnr_ub;
    if t >= 1.0 {
        return f64::NEG_INFINITY;
    }
    (-t).ln_1p() - fpr_ub.ln()
}

/// The ε lower bound max(0, ln((1 − δ − fnr_ub)/fpr_ub)) from upper bounds on the false-positive
/// and false-negative rates of one test (Kairouz, Oh & Viswanath 2015, Thm 2.1; the audit form
/// of Jagielski et al. 2020, §3, and Nasr et al. 2021, §4). ln(1 − δ − fnr_ub) is taken as
/// log1p(−(δ + fnr_ub)); a non-positive numerator gives 0.
///
/// Errors: fpr_ub not in (0, 1], fnr_ub not in [0, 1], δ not in [0, 1).
pub fn eps_lower_bound(fpr_ub: f64, fnr_ub: f64, delta: f64) -> Result<f64> {
    if !(fpr_ub > 0.0 && fpr_ub <= 1.0) {
        return Err(Error::invalid("fpr_ub", fpr_ub, "in (0, 1]"));
    }
    check_unit("fnr_ub", fnr_ub)?;
    check_delta(delta)?;
    Ok(eps_raw(fpr_ub, fnr_ub, delta).max(0.0))
}

fn check_delta(delta: f64) -> Result<f64> {
    if (0.0..1.0).contains(&delta) {
        Ok(delta)
    } else {
        Err(Error::invalid("delta", delta, "in [0, 1)"))
    }
}

/// Which side of the threshold t forms the region S.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tail {
    /// S = {T > t} (for histograms: the bins after the cut).
    Above,
    /// S = {T ≤ t} (for histograms: the bins before the cut).
    Below,
}

/// Which sample is the positive class, i.e. which DP inequality is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// P(S) ≤ e^ε Q(S) + δ: positives are the P-samples (mechanism on x).
    PvsQ,
    /// Q(S) ≤ e^ε P(S) + δ: positives are the Q-samples (mechanism on x′).
    QvsP,
}

/// The audit of one region in one direction: counts, Clopper–Pearson bounds and ε_lb.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionAudit {
    /// Threshold t of the region (for histograms: the bin edge at the cut).
    pub threshold: f64,
    /// Side of t forming S.
    pub tail: Tail,
    /// Which sample is positive.
    pub direction: Direction,
    /// Number of positive-class samples.
    pub n_pos: u64,
    /// Number of negative-class samples.
    pub n_neg: u64,
    /// Negative-class samples inside S.
    pub false_positives: u64,
    /// Positive-class samples outside S.
    pub false_negatives: u64,
    /// Clopper–Pearson upper bound on FPR = (negative distribution)(S).
    pub fpr_ub: f64,
    /// Clopper–Pearson upper bound on FNR = 1 − (positive distribution)(S).
    pub fnr_ub: f64,
    /// Level of each one-sided bound (β divided by the family size).
    pub beta_per_bound: f64,
    /// Number of Clopper–Pearson bounds in the Bonferroni family.
    pub family_size: u64,
    /// Confidence 1 − β with which ε_lb ≤ ε holds.
    pub confidence: f64,
    /// δ of the (ε, δ) guarantee being audited.
    pub delta: f64,
    /// max(0, ln((1 − δ − fnr_ub)/fpr_ub)).
    pub eps_lb: f64,
    /// Point estimate ln((1 − δ − FN/n_pos)/(FP/n_neg)) (not a bound; +∞ when FP = 0).
    pub eps_point: f64,
}

/// Counts of the samples above every candidate threshold: the sufficient statistic of a
/// threshold search. Build it from sorted samples ([`ThresholdTable::from_sorted`]) or from
/// histograms on a fixed grid ([`ThresholdTable::from_histogram`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThresholdTable {
    /// Number of P-samples.
    pub n_p: u64,
    /// Number of Q-samples.
    pub n_q: u64,
    /// Candidate thresholds, fixed before looking at the samples.
    pub thresholds: Vec<f64>,
    /// P-samples with T > `thresholds[i]`.
    pub p_above: Vec<u64>,
    /// Q-samples with T > `thresholds[i]`.
    pub q_above: Vec<u64>,
}

fn check_sorted(name: &str, v: &[f64]) -> Result<()> {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Err(Error::invalid(
            name,
            format!("NaN at index {i}"),
            "free of NaN",
        ));
    }
    if let Some(i) = v.windows(2).position(|w| w[0] > w[1]) {
        return Err(Error::invalid(
            name,
            format!("{} > {} at index {i}", v[i], v[i + 1]),
            "sorted ascending",
        ));
    }
    Ok(())
}

impl ThresholdTable {
    /// From two ascending-sorted sample vectors of the statistic and candidate thresholds
    /// (chosen without looking at these samples). O(m log n). Errors: empty or unsorted samples,
    /// NaN, no thresholds, NaN thresholds, more than 2⁵³ samples.
    pub fn from_sorted(p_sorted: &[f64], q_sorted: &[f64], thresholds: &[f64]) -> Result<Self> {
        check_sorted("p_sorted", p_sorted)?;
        check_sorted("q_sorted", q_sorted)?;
        if p_sorted.is_empty() {
            return Err(Error::invalid("p_sorted", "empty", "non-empty"));
        }
        if q_sorted.is_empty() {
            return Err(Error::invalid("q_sorted", "empty", "non-empty"));
        }
        if thresholds.is_empty() {
            return Err(Error::invalid("thresholds", "empty", "non-empty"));
        }
        if let Some(t) = thresholds.iter().find(|t| t.is_nan()) {
            return Err(Error::invalid("thresholds", t, "free of NaN"));
        }
        let above = |v: &[f64], t: f64| (v.len() - v.partition_point(|&x| x <= t)) as u64;
        Ok(ThresholdTable {
            n_p: p_sorted.len() as u64,
            n_q: q_sorted.len() as u64,
            thresholds: thresholds.to_vec(),
            p_above: thresholds.iter().map(|&t| above(p_sorted, t)).collect(),
            q_above: thresholds.iter().map(|&t| above(q_sorted, t)).collect(),
        })
    }

    /// From per-bin counts on a common grid of B bins ordered by increasing statistic, with the
    /// B + 1 bin edges (±∞ allowed for overflow bins). The candidates are the B − 1 interior
    /// cuts: cut j (1 ≤ j < B) has threshold `edges[j]` and counts "above" = bins j..B. O(B) by
    /// cumulative sums. Errors: length mismatch, B < 2, zero total count, NaN edges.
    pub fn from_histogram(p_counts: &[u64], q_counts: &[u64], edges: &[f64]) -> Result<Self> {
        let b = p_counts.len();
        if b < 2 {
            return Err(Error::invalid("p_counts.len()", b, ">= 2 bins"));
        }
        if q_counts.len() != b {
            return Err(Error::invalid(
                "q_counts.len()",
                q_counts.len(),
                &format!("equal to p_counts.len() = {b}"),
            ));
        }
        if edges.len() != b + 1 {
            return Err(Error::invalid(
                "edges.len()",
                edges.len(),
                &format!("number of bins + 1 = {}", b + 1),
            ));
        }
        if let Some(e) = edges.iter().find(|e| e.is_nan()) {
            return Err(Error::invalid("edges", e, "free of NaN"));
        }
        let total = |c: &[u64], name: &str| -> Result<u64> {
            let t = c.iter().try_fold(0u64, |s, &x| s.checked_add(x));
            match t {
                Some(t) if t > 0 && t <= MAX_COUNT => Ok(t),
                _ => Err(Error::invalid(name, "total count", "in [1, 2^53]")),
            }
        };
        let n_p = total(p_counts, "p_counts")?;
        let n_q = total(q_counts, "q_counts")?;
        let suffix = |c: &[u64]| {
            let mut out = vec![0u64; b - 1];
            let mut acc = 0u64;
            for j in (1..b).rev() {
                acc += c[j];
                out[j - 1] = acc;
            }
            out
        };
        Ok(ThresholdTable {
            n_p,
            n_q,
            thresholds: edges[1..b].to_vec(),
            p_above: suffix(p_counts),
            q_above: suffix(q_counts),
        })
    }

    /// Number of candidate thresholds m.
    pub fn len(&self) -> usize {
        self.thresholds.len()
    }

    /// True when there is no candidate.
    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty()
    }

    /// Validates the invariants (for tables built by hand or deserialised).
    pub fn validate(&self) -> Result<()> {
        let m = self.thresholds.len();
        if m == 0 {
            return Err(Error::invalid("thresholds", "empty", "non-empty"));
        }
        if self.p_above.len() != m || self.q_above.len() != m {
            return Err(Error::invalid(
                "p_above/q_above length",
                format!("{}/{}", self.p_above.len(), self.q_above.len()),
                &format!("equal to thresholds.len() = {m}"),
            ));
        }
        check_counts(0, self.n_p).map_err(|_| Error::invalid("n_p", self.n_p, "in [1, 2^53]"))?;
        check_counts(0, self.n_q).map_err(|_| Error::invalid("n_q", self.n_q, "in [1, 2^53]"))?;
        if let Some(&c) = self.p_above.iter().find(|&&c| c > self.n_p) {
            return Err(Error::invalid(
                "p_above",
                c,
                &format!("<= n_p = {}", self.n_p),
            ));
        }
        if let Some(&c) = self.q_above.iter().find(|&&c| c > self.n_q) {
            return Err(Error::invalid(
                "q_above",
                c,
                &format!("<= n_q = {}", self.n_q),
            ));
        }
        Ok(())
    }

    /// The counts of one statement: (false positives, n_neg, false negatives, n_pos).
    pub fn statement_counts(&self, i: usize, tail: Tail, dir: Direction) -> (u64, u64, u64, u64) {
        let (pa, qa) = (self.p_above[i], self.q_above[i]);
        let (p_in, q_in) = match tail {
            Tail::Above => (pa, qa),
            Tail::Below => (self.n_p - pa, self.n_q - qa),
        };
        match dir {
            Direction::PvsQ => (q_in, self.n_q, self.n_p - p_in, self.n_p),
            Direction::QvsP => (p_in, self.n_p, self.n_q - q_in, self.n_q),
        }
    }
}

/// Clopper–Pearson upper bounds, memoised on (k, n) (the same counts recur across thresholds).
pub(crate) struct CpCache {
    beta: f64,
    map: HashMap<(u64, u64), f64>,
}

impl CpCache {
    pub(crate) fn new(beta: f64) -> Self {
        CpCache {
            beta,
            map: HashMap::new(),
        }
    }

    pub(crate) fn upper(&mut self, k: u64, n: u64) -> Result<f64> {
        if let Some(&v) = self.map.get(&(k, n)) {
            return Ok(v);
        }
        let v = cp_upper(k, n, self.beta)?;
        self.map.insert((k, n), v);
        Ok(v)
    }
}

/// Builds the record of statement (i, tail, dir) with per-bound level `beta_per_bound`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn region_record(
    table: &ThresholdTable,
    i: usize,
    tail: Tail,
    dir: Direction,
    delta: f64,
    cache: &mut CpCache,
    family_size: u64,
    confidence: f64,
) -> Result<RegionAudit> {
    let (fp, n_neg, fnc, n_pos) = table.statement_counts(i, tail, dir);
    let fpr_ub = cache.upper(fp, n_neg)?;
    let fnr_ub = cache.upper(fnc, n_pos)?;
    Ok(RegionAudit {
        threshold: table.thresholds[i],
        tail,
        direction: dir,
        n_pos,
        n_neg,
        false_positives: fp,
        false_negatives: fnc,
        fpr_ub,
        fnr_ub,
        beta_per_bound: cache.beta,
        family_size,
        confidence,
        delta,
        eps_lb: eps_raw(fpr_ub, fnr_ub, delta).max(0.0),
        eps_point: eps_raw(fp as f64 / n_neg as f64, fnc as f64 / n_pos as f64, delta),
    })
}

/// All four (tail, direction) statements of a threshold.
pub const STATEMENT_KINDS: [(Tail, Direction); 4] = [
    (Tail::Above, Direction::PvsQ),
    (Tail::Below, Direction::PvsQ),
    (Tail::Above, Direction::QvsP),
    (Tail::Below, Direction::QvsP),
];

/// Maximises `score(fpr_ub, fnr_ub)` over the statements (i, tail, dir) with dir in `dirs`,
/// exactly but lazily: `score` must be non-increasing in both arguments, so
/// score(max(FP/n_neg, cp_upper(0, n_neg)), max(FN/n_pos, cp_upper(0, n_pos))) bounds each
/// statement's exact score from above (cp_upper(k, n) ≥ max(k/n, cp_upper(0, n)) for β < ½);
/// statements are evaluated in decreasing order of that bound until it falls to the best exact
/// score found. Returns (i, tail, dir, exact score).
pub(crate) fn search_best(
    table: &ThresholdTable,
    dirs: &[Direction],
    cache: &mut CpCache,
    score: impl Fn(f64, f64) -> f64,
) -> Result<(usize, Tail, Direction, f64)> {
    let cp0_p = cache.upper(0, table.n_p)?;
    let cp0_q = cache.upper(0, table.n_q)?;
    let mut cands: Vec<(f64, usize, Tail, Direction)> = Vec::with_capacity(4 * table.len());
    for i in 0..table.len() {
        for &(tail, dir) in STATEMENT_KINDS.iter().filter(|(_, d)| dirs.contains(d)) {
            let (fp, n_neg, fnc, n_pos) = table.statement_counts(i, tail, dir);
            let (cp0_neg, cp0_pos) = match dir {
                Direction::PvsQ => (cp0_q, cp0_p),
                Direction::QvsP => (cp0_p, cp0_q),
            };
            let fpr = (fp as f64 / n_neg as f64).max(cp0_neg);
            let fnr = (fnc as f64 / n_pos as f64).max(cp0_pos);
            let bound = score(fpr, fnr);
            cands.push((
                if bound.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    bound
                },
                i,
                tail,
                dir,
            ));
        }
    }
    cands.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut best: Option<(usize, Tail, Direction, f64)> = None;
    for &(bound, i, tail, dir) in &cands {
        if let Some(b) = best {
            if bound <= b.3 {
                break;
            }
        }
        let (fp, n_neg, fnc, n_pos) = table.statement_counts(i, tail, dir);
        let s = score(cache.upper(fp, n_neg)?, cache.upper(fnc, n_pos)?);
        let s = if s.is_nan() { f64::NEG_INFINITY } else { s };
        if best.is_none_or(|b| s > b.3) {
            best = Some((i, tail, dir, s));
        }
    }
    best.ok_or_else(|| Error::invalid("thresholds", "empty", "non-empty"))
}

/// Checks β and returns it.
pub(crate) fn check_audit_beta(beta: f64) -> Result<f64> {
    check_beta("beta", beta)?;
    if beta >= 0.5 {
        return Err(Error::invalid("beta", beta, "< 0.5 (confidence above 50%)"));
    }
    Ok(beta)
}

/// The audit of one region chosen in advance, in one direction: both Clopper–Pearson bounds at
/// level β/2 (family of 2), so that ε_lb ≤ ε with probability ≥ 1 − β.
///
/// `p_in`, `q_in`: the P- and Q-samples inside S (out of `n_p`, `n_q`). Errors: counts out of
/// range, δ not in [0, 1), β not in (0, ½).
#[allow(clippy::too_many_arguments)]
pub fn audit_region(
    threshold: f64,
    tail: Tail,
    direction: Direction,
    n_p: u64,
    p_in: u64,
    n_q: u64,
    q_in: u64,
    delta: f64,
    beta: f64,
) -> Result<RegionAudit> {
    check_delta(delta)?;
    check_audit_beta(beta)?;
    check_counts(p_in, n_p)?;
    check_counts(q_in, n_q)?;
    // Express the region as "above" counts of a one-threshold table.
    let (p_above, q_above) = match tail {
        Tail::Above => (p_in, q_in),
        Tail::Below => (n_p - p_in, n_q - q_in),
    };
    let table = ThresholdTable {
        n_p,
        n_q,
        thresholds: vec![threshold],
        p_above: vec![p_above],
        q_above: vec![q_above],
    };
    let mut cache = CpCache::new(beta / 2.0);
    region_record(&table, 0, tail, direction, delta, &mut cache, 2, 1.0 - beta)
}

/// The best region of a threshold search, with Bonferroni correction over the whole family:
/// every threshold of `table` in both tails and both directions, i.e. the 4m proportions
/// P(S), P(Sᶜ), Q(S), Q(Sᶜ), each bounded at level β/(4m). With probability ≥ 1 − β all hold,
/// so the maximal ε_lb returned is ≤ ε. The thresholds must not depend on the samples.
///
/// Errors: invalid table, δ not in [0, 1), β not in (0, ½).
pub fn best_region(table: &ThresholdTable, delta: f64, beta: f64) -> Result<RegionAudit> {
    Ok(best_region_indexed(table, delta, beta)?.1)
}

/// [`best_region`] and the index of the chosen threshold in `table`.
fn best_region_indexed(
    table: &ThresholdTable,
    delta: f64,
    beta: f64,
) -> Result<(usize, RegionAudit)> {
    table.validate()?;
    check_delta(delta)?;
    check_audit_beta(beta)?;
    let family = 4 * table.len() as u64;
    let mut cache = CpCache::new(beta / family as f64);
    let (i, tail, dir, _) = search_best(
        table,
        &[Direction::PvsQ, Direction::QvsP],
        &mut cache,
        |fpr, fnr| eps_raw(fpr, fnr, delta),
    )?;
    let record = region_record(table, i, tail, dir, delta, &mut cache, family, 1.0 - beta)?;
    Ok((i, record))
}

/// Checks that two tables share their thresholds (bit for bit).
pub(crate) fn check_same_thresholds(
    select: &ThresholdTable,
    evaluate: &ThresholdTable,
) -> Result<()> {
    if select.thresholds.len() != evaluate.thresholds.len()
        || select
            .thresholds
            .iter()
            .zip(&evaluate.thresholds)
            .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err(Error::invalid(
            "evaluate.thresholds",
            "different from select.thresholds",
            "the same thresholds as the selection split",
        ));
    }
    Ok(())
}

/// Held-out threshold selection: the region and direction are chosen on `select` (by the
/// Bonferroni-corrected ε_lb of [`best_region`] on that split, a choice criterion only), then
/// audited on the independent split `evaluate` with the full β (family of 2 bounds, β/2 each).
/// Both tables must have the same thresholds.
///
/// Errors: invalid tables, thresholds differ, δ not in [0, 1), β not in (0, ½).
pub fn held_out_region(
    select: &ThresholdTable,
    evaluate: &ThresholdTable,
    delta: f64,
    beta: f64,
) -> Result<RegionAudit> {
    evaluate.validate()?;
    check_same_thresholds(select, evaluate)?;
    let (i, chosen) = best_region_indexed(select, delta, beta)?;
    let mut cache = CpCache::new(beta / 2.0);
    region_record(
        evaluate,
        i,
        chosen.tail,
        chosen.direction,
        delta,
        &mut cache,
        2,
        1.0 - beta,
    )
}

#[cfg(test)]
// The mpmath reference values are pasted with all 20 printed digits, as produced.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;

    fn rel(a: f64, b: f64) -> f64 {
        if a == b {
            0.0
        } else {
            ((a - b) / b).abs()
        }
    }

    // Binomial tails (k, n, p, P(X <= k), P(X > k)). Provenance: mpmath 1.3.0 at dps 50, by
    // explicit summation of the pmf (pmf(k) from mp.loggamma, then the ratio recurrence outward
    // until the terms fall below 1e-45 of the sum) — an independent algorithm from the continued
    // fraction used here. p is the exact double written (Python repr of the float).
    const TAILS: &[(u64, u64, f64, f64, f64)] = &[
        (
            0,
            10,
            0.3,
            2.824752490000000448e-2,
            9.7175247509999999552e-1,
        ),
        (
            0,
            10,
            0.7,
            5.904900000000008741e-6,
            9.9999409509999999999e-1,
        ),
        (
            1,
            10,
            0.3,
            1.4930834590000001728e-1,
            8.5069165409999998272e-1,
        ),
        (
            1,
            10,
            0.7,
            1.4368590000000018356e-4,
            9.9985631409999999982e-1,
        ),
        (
            5,
            10,
            0.3,
            9.5265101260000000816e-1,
            4.7348987399999991838e-2,
        ),
        (
            5,
            10,
            0.7,
            1.5026833260000007618e-1,
            8.4973166739999992382e-1,
        ),
        (
            9,
            10,
            0.7,
            9.7175247510000001792e-1,
            2.8247524899999982079e-2,
        ),
        (
            5,
            10,
            0.01,
            9.9999999979710605874e-1,
            2.028939412600000252e-10,
        ),
        (
            0,
            1000,
            0.003,
            4.9563082823155555069e-2,
            9.5043691717684444493e-1,
        ),
        (
            0,
            1000,
            0.03,
            5.9119978336200887433e-14,
            9.9999999999994088002e-1,
        ),
        (
            1,
            1000,
            0.003,
            1.9869974126795662659e-1,
            8.0130025873204337341e-1,
        ),
        (
            1,
            1000,
            0.03,
            1.8875729165692179548e-12,
            9.9999999999811242708e-1,
        ),
        (
            5,
            1000,
            0.003,
            9.1638506970692551505e-1,
            8.3614930293074484954e-2,
        ),
        (
            5,
            1000,
            0.03,
            1.6363377318515680652e-8,
            9.9999998363662268148e-1,
        ),
        (
            999,
            1000,
            0.997,
            9.5043691717684457429e-1,
            4.9563082823155425713e-2,
        ),
        (
            995,
            1000,
            0.997,
            1.8448401357601135398e-1,
            8.1551598642398864602e-1,
        ),
        (
            500,
            1000,
            0.40513167019494867,
            9.9999999942947080241e-1,
            5.7052919759029522327e-10,
        ),
        (
            500,
            1000,
            0.5316227766016838,
            2.4369132866808504255e-2,
            9.7563086713319149574e-1,
        ),
        (
            5,
            1000,
            0.0001,
            9.9999999874347648806e-1,
            1.2565235119430200155e-9,
        ),
        (
            0,
            1000000,
            3e-06,
            4.9786844326112294512e-2,
            9.5021315567388770549e-1,
        ),
        (
            0,
            1000000,
            3e-05,
            9.3534129016388014953e-14,
            9.9999999999990646587e-1,
        ),
        (
            1,
            1000000,
            3e-06,
            1.9914782538739236567e-1,
            8.0085217461260763433e-1,
        ),
        (
            1,
            1000000,
            3e-05,
            2.8996421827496405322e-12,
            9.9999999999710035782e-1,
        ),
        (
            5,
            1000000,
            3e-06,
            9.160823604256913822e-1,
            8.3917639574308617801e-2,
        ),
        (
            5,
            1000000,
            3e-05,
            2.2566382484409162414e-8,
            9.9999997743361751559e-1,
        ),
        (
            999999,
            1000000,
            0.999997,
            9.502131556726552093e-1,
            4.9786844327344790704e-2,
        ),
        (
            999995,
            1000000,
            0.999997,
            1.8473650342434152013e-1,
            8.1526349657565847987e-1,
        ),
        (
            500000,
            1000000,
            0.497,
            9.9999999901980520794e-1,
            9.8019479206341543809e-10,
        ),
        (
            500000,
            1000000,
            0.501,
            2.2804041698682974724e-2,
            9.7719595830131702528e-1,
        ),
        (
            5,
            1000000,
            1.0000000000000001e-07,
            9.9999999872511978144e-1,
            1.2748802185646583067e-9,
        ),
        (
            0,
            100000000,
            3e-08,
            4.9787066127445885375e-2,
            9.5021293387255411463e-1,
        ),
        (
            0,
            100000000,
            3e-07,
            9.3575808596231514934e-14,
            9.9999999999990642419e-1,
        ),
        (
            1,
            100000000,
            3e-08,
            1.9914826899061961405e-1,
            8.0085173100938038595e-1,
        ),
        (
            1,
            100000000,
            3e-07,
            2.9008509086657068567e-12,
            9.9999999999709914909e-1,
        ),
        (
            5,
            100000000,
            3e-08,
            9.1608206099326103665e-1,
            8.3917939006738963352e-2,
        ),
        (
            5,
            100000000,
            3e-07,
            2.2573416404609993728e-8,
            9.9999997742658359539e-1,
        ),
        (
            99999999,
            100000000,
            0.99999997,
            9.5021293407031072903e-1,
            4.9787065929689270973e-2,
        ),
        (
            99999995,
            100000000,
            0.99999997,
            1.8473675362318607195e-1,
            8.1526324637681392805e-1,
        ),
        (
            50000000,
            100000000,
            0.4997,
            9.9999999901402313111e-1,
            9.8597686888598253708e-10,
        ),
        (
            50000000,
            100000000,
            0.5001,
            2.2755530234748451787e-2,
            9.7724446976525154821e-1,
        ),
        (
            5,
            100000000,
            1e-09,
            9.9999999872510149251e-1,
            1.2748985074921623022e-9,
        ),
        (
            0,
            1000000000,
            3e-09,
            4.9787068143822136373e-2,
            9.5021293185617786363e-1,
        ),
        (
            0,
            1000000000,
            3e-08,
            9.3576187579107269557e-14,
            9.9999999999990642381e-1,
        ),
        (
            1,
            1000000000,
            3e-09,
            1.9914827302337215914e-1,
            8.0085172697662784086e-1,
        ),
        (
            1,
            1000000000,
            3e-08,
            2.9008618991708964531e-12,
            9.999999999970991381e-1,
        ),
        (
            5,
            1000000000,
            3e-09,
            9.1608205827115299372e-1,
            8.3917941728847006279e-2,
        ),
        (
            5,
            1000000000,
            3e-08,
            2.2573480358018915903e-8,
            9.9999997742651964198e-1,
        ),
        (
            999999999,
            1000000000,
            0.999999997,
            9.5021293315942944263e-1,
            4.9787066840570557368e-2,
        ),
        (
            999999995,
            1000000000,
            0.999999997,
            1.8473675962265506075e-1,
            8.1526324037734493925e-1,
        ),
        (
            500000000,
            1000000000,
            0.4999051316701949,
            9.9999999901360481019e-1,
            9.8639518981232058717e-10,
        ),
        (
            500000000,
            1000000000,
            0.5000316227766016,
            2.2751839211657912607e-2,
            9.7724816078834208739e-1,
        ),
        (
            5,
            1000000000,
            1e-10,
            9.9999999872510132624e-1,
            1.2748986737560278884e-9,
        ),
    ];

    #[test]
    fn binomial_tails_match_mpmath() {
        let mut worst: f64 = 0.0;
        for &(k, n, p, cdf, sf) in TAILS {
            let c = binom_cdf(k, n, p).unwrap();
            let s = binom_sf(k, n, p).unwrap();
            let (e1, e2) = (rel(c, cdf), rel(s, sf));
            worst = worst.max(e1).max(e2);
            assert!(
                e1 < 1e-10 && e2 < 1e-10,
                "k={k} n={n} p={p}: cdf {c} vs {cdf} ({e1:.1e}), sf {s} vs {sf} ({e2:.1e})"
            );
        }
        eprintln!("binomial tails: worst relative error {worst:.2e}");
    }

    // (a, b, x, I_x(a,b), 1 − I_x(a,b)). Provenance: mpmath 1.3.0 dps 50, mp.betainc(a, b, 0, x,
    // regularized=True) and mp.betainc(a, b, x, 1, ...) for the first six and the non-integer
    // (200.5, 100.25) rows (cross-checked by mp.quad to 1e-10); for the integer-shape rows
    // (1e4, 3e4) and (5e8+1, 5e8), where betainc's hypergeometric series fails, by
    // I_x(a, b) = P(Bin(a+b−1, x) ≥ a) summed explicitly as for TAILS.
    const BETA: &[(f64, f64, f64, f64, f64)] = &[
        (
            2.5,
            3.7,
            0.3,
            3.190031752843086985e-1,
            6.809968247156913015e-1,
        ),
        (
            0.5,
            0.5,
            0.01,
            6.3768560858519848583e-2,
            9.3623143914148015142e-1,
        ),
        (
            1.0,
            1000000.0,
            1e-06,
            6.3212074276835488907e-1,
            3.6787925723164511093e-1,
        ),
        (
            30.0,
            20.0,
            0.9,
            9.9999998430545400064e-1,
            1.5694545999361938977e-8,
        ),
        (
            200.5,
            100.25,
            0.5,
            2.5335041852640781001e-9,
            9.9999999746649581474e-1,
        ),
        (
            200.5,
            100.25,
            0.7,
            8.9145087359632458981e-1,
            1.0854912640367541019e-1,
        ),
        (10000.0, 30000.0, 0.2, 9.9607674290180792767e-131, 1.0),
        (
            10000.0,
            30000.0,
            0.26,
            9.9999768466753747943e-1,
            2.315332462520565578e-6,
        ),
        (
            500000001.0,
            500000000.0,
            0.4999,
            1.269553759603475749e-10,
            9.9999999987304462404e-1,
        ),
    ];

    // Clopper–Pearson bounds (k, n, β, cp_lower(k, n, β), cp_upper(k, n, β)). Provenance: mpmath
    // 1.3.0 at dps 50: the exact binomial tails by explicit summation (as for TAILS), inverted by
    // mp.findroot (Anderson–Björck on a verified bracket in log p, tol 1e-44); k = 0 and k = n by
    // the closed forms 1 − β^(1/n) and β^(1/n).
    const CP: &[(u64, u64, f64, f64, f64)] = &[
        (0, 10, 0.05, 0.0, 2.5886555089305228268e-1),
        (
            1,
            10,
            0.05,
            5.1161968918237011347e-3,
            3.9416330243650478172e-1,
        ),
        (
            3,
            10,
            0.05,
            8.7264433914150306368e-2,
            6.0662421610541342555e-1,
        ),
        (
            5,
            10,
            0.05,
            2.2244110100812907857e-1,
            7.7755889899187092143e-1,
        ),
        (
            9,
            10,
            0.05,
            6.0583669756349521828e-1,
            9.9488380310817629887e-1,
        ),
        (10, 10, 0.05, 7.4113444910694771732e-1, 1.0),
        (0, 10, 1e-6, 0.0, 7.4881135684904198889e-1),
        (
            1,
            10,
            1e-6,
            1.0000004500002850002e-7,
            8.3008535985885635873e-1,
        ),
        (
            3,
            10,
            1e-6,
            2.0346356340910570672e-3,
            9.2789802971840026404e-1,
        ),
        (
            5,
            10,
            1e-6,
            2.1255601405590602137e-2,
            9.7874439859440939786e-1,
        ),
        (
            9,
            10,
            1e-6,
            1.6991464014114364127e-1,
            9.9999989999995499997e-1,
        ),
        (10, 10, 1e-6, 2.5118864315095801111e-1, 1.0),
        (0, 1000, 0.05, 0.0, 2.9912495450952962443e-3),
        (
            1,
            1000,
            0.05,
            5.129197890901780815e-5,
            4.7349935754997776983e-3,
        ),
        (
            5,
            1000,
            0.05,
            1.972153141805247142e-3,
            1.0484076911415653719e-2,
        ),
        (
            10,
            1000,
            0.05,
            5.4351401447067733352e-3,
            1.6903175120562505538e-2,
        ),
        (
            500,
            1000,
            0.05,
            4.7351773123569120446e-1,
            5.2648226876430879554e-1,
        ),
        (
            995,
            1000,
            0.05,
            9.8951592308858434628e-1,
            9.9802784685819475286e-1,
        ),
        (
            999,
            1000,
            0.05,
            9.952650064245002223e-1,
            9.9994870802109098219e-1,
        ),
        (1000, 1000, 0.05, 9.9700875045490470376e-1, 1.0),
        (0, 1000, 1e-6, 0.0, 1.3720514368789528427e-2),
        (
            1,
            1000,
            1e-6,
            1.0000004995003328337e-9,
            1.655816417474412694e-2,
        ),
        (
            5,
            1000,
            1e-6,
            1.6938763240095261968e-4,
            2.5154702455158587671e-2,
        ),
        (
            10,
            1000,
            1e-6,
            1.2817742280059354911e-3,
            3.4009775995208000417e-2,
        ),
        (
            500,
            1000,
            1e-6,
            4.2479050725463652968e-1,
            5.7520949274536347032e-1,
        ),
        (
            995,
            1000,
            1e-6,
            9.7484529754484141233e-1,
            9.9983061236759904738e-1,
        ),
        (
            999,
            1000,
            1e-6,
            9.8344183582525587306e-1,
            9.999999989999995005e-1,
        ),
        (1000, 1000, 1e-6, 9.8627948563121047157e-1, 1.0),
        (0, 1000000, 0.05, 0.0, 2.9957277863525444061e-6),
        (
            1,
            1000000,
            0.05,
            5.1293293072049531354e-8,
            4.743855638206810495e-6,
        ),
        (
            5,
            1000000,
            0.05,
            1.9701515676180150854e-6,
            1.0513005929398719274e-5,
        ),
        (
            10000,
            1000000,
            0.05,
            9.8368883981143349911e-3,
            1.0165213982092064239e-2,
        ),
        (
            500000,
            1000000,
            0.05,
            4.991770739494770517e-1,
            5.008229260505229483e-1,
        ),
        (
            999995,
            1000000,
            0.05,
            9.9998948699407060128e-1,
            9.9999802984843238198e-1,
        ),
        (
            999999,
            1000000,
            0.05,
            9.9999525614436179319e-1,
            9.9999994870670692795e-1,
        ),
        (1000000, 1000000, 0.05, 9.9999700427221364746e-1, 1.0),
        (0, 1000000, 1e-6, 0.0, 1.3815415124237774551e-5),
        (
            1,
            1000000,
            1e-6,
            1.0000004999998333331e-12,
            1.6688289884029307379e-5,
        ),
        (
            5,
            1000000,
            1e-6,
            1.6906332545712496406e-7,
            2.5412366701671699834e-5,
        ),
        (
            10000,
            1000000,
            1e-6,
            9.5340675366052434744e-3,
            1.0481044128686954033e-2,
        ),
        (
            500000,
            1000000,
            1e-6,
            4.9762280187287197635e-1,
            5.0237719812712802365e-1,
        ),
        (
            999995,
            1000000,
            1e-6,
            9.999745876332983283e-1,
            9.9999983093667454288e-1,
        ),
        (
            999999,
            1000000,
            1e-6,
            9.9998331171011597069e-1,
            9.999999999989999995e-1,
        ),
        (1000000, 1000000, 1e-6, 9.9998618458487576223e-1, 1.0),
        (0, 100000000, 0.05, 0.0, 2.9957322286819321675e-8),
        (
            1,
            100000000,
            0.05,
            5.1293294374395523183e-10,
            4.7438644295886490493e-8,
        ),
        (
            5,
            100000000,
            0.05,
            1.9701495880550751751e-8,
            1.0513034618947892596e-7,
        ),
        (
            1000000,
            100000000,
            0.05,
            9.9836393866212370953e-3,
            1.0016381564362203132e-2,
        ),
        (
            50000000,
            100000000,
            0.05,
            4.9991775231941441779e-1,
            5.0008224768058558221e-1,
        ),
        (
            99999995,
            100000000,
            0.05,
            9.9999989486965381052e-1,
            9.9999998029850411945e-1,
        ),
        (
            99999999,
            100000000,
            0.05,
            9.9999995256135570411e-1,
            9.9999999948706705626e-1,
        ),
        (100000000, 100000000, 0.05, 9.9999997004267771318e-1, 1.0),
        (0, 100000000, 1e-6, 0.0, 1.3815509603622658167e-7),
        (
            1,
            100000000,
            1e-6,
            1.0000005000003283336e-14,
            1.6688419481785146485e-7,
        ),
        (
            5,
            100000000,
            1e-6,
            1.6906300485982587726e-9,
            2.5412623475745203133e-7,
        ),
        (
            1000000,
            100000000,
            1e-6,
            9.9527744522245988305e-3,
            1.0047376458746221687e-2,
        ),
        (
            50000000,
            100000000,
            1e-6,
            4.9976232379857928035e-1,
            5.0023767620142071965e-1,
        ),
        (
            99999995,
            100000000,
            1e-6,
            9.9999974587376524255e-1,
            9.999999983093699514e-1,
        ),
        (
            99999999,
            100000000,
            1e-6,
            9.9999983311580518215e-1,
            9.9999999999998999999e-1,
        ),
        (100000000, 100000000, 1e-6, 9.9999986184490396377e-1, 1.0),
        (0, 1000000000, 0.05, 0.0, 2.9957322690667850705e-9),
        (
            1,
            1000000000,
            0.05,
            5.1293294386235032402e-11,
            4.7438645095103853599e-9,
        ),
        (
            5,
            1000000000,
            0.05,
            1.9701495700590844955e-9,
            1.0513034879762168495e-8,
        ),
        (
            10000000,
            1000000000,
            0.05,
            9.9948251360977652525e-3,
            1.0005176958446773013e-2,
        ),
        (
            500000000,
            1000000000,
            0.05,
            4.999739920806303161e-1,
            5.000260079193696839e-1,
        ),
        (
            999999995,
            1000000000,
            0.05,
            9.9999998948696512024e-1,
            9.9999999802985042994e-1,
        ),
        (
            999999999,
            1000000000,
            0.05,
            9.9999999525613549049e-1,
            9.9999999994870670561e-1,
        ),
        (1000000000, 1000000000, 0.05, 9.9999999700426773093e-1, 1.0),
        (0, 1000000000, 1e-6, 0.0, 1.3815510462530108555e-8),
        (
            1,
            1000000000,
            1e-6,
            1.0000005000003328336e-15,
            1.6688420659952436473e-8,
        ),
        (
            5,
            1000000000,
            1e-6,
            1.6906300194531211282e-10,
            2.5412625810068009756e-8,
        ),
        (
            10000000,
            1000000000,
            1e-6,
            9.9850507434248540048e-3,
            1.0014964346076108379e-2,
        ),
        (
            500000000,
            1000000000,
            1e-6,
            4.9992484126293788829e-1,
            5.0007515873706211171e-1,
        ),
        (
            999999995,
            1000000000,
            1e-6,
            9.9999997458737418993e-1,
            9.9999999983093699805e-1,
        ),
        (
            999999999,
            1000000000,
            1e-6,
            9.9999998331157934005e-1,
            9.99999999999999e-1,
        ),
        (1000000000, 1000000000, 1e-6, 9.9999998618448953747e-1, 1.0),
    ];

    #[test]
    fn clopper_pearson_matches_mpmath() {
        let mut worst: f64 = 0.0;
        for &(k, n, beta, lo, up) in CP {
            let l = cp_lower(k, n, beta).unwrap_or_else(|e| panic!("{k} {n} {beta}: {e}"));
            let u = cp_upper(k, n, beta).unwrap();
            let (el, eu) = (rel(l, lo), rel(u, up));
            worst = worst.max(el).max(eu);
            assert!(
                el < 1e-10 && eu < 1e-10,
                "k={k} n={n} beta={beta}: lower {l:e} vs {lo:e} ({el:.1e}), upper {u:e} vs {up:e} ({eu:.1e})"
            );
        }
        eprintln!("Clopper–Pearson: worst relative error {worst:.2e}");
    }

    #[test]
    fn incomplete_beta_matches_mpmath() {
        for &(a, b, x, lo, up) in BETA {
            let (l, u) = beta_inc(a, b, x).unwrap();
            assert!(
                rel(l, lo) < 1e-11,
                "I_{x}({a},{b}) = {l} vs {lo}: {:.1e}",
                rel(l, lo)
            );
            assert!(
                rel(u, up) < 1e-11,
                "1-I_{x}({a},{b}) = {u} vs {up}: {:.1e}",
                rel(u, up)
            );
        }
    }

    // statrs 0.19's Beta(1, 1e7).inverse_cdf(1e-6) never returns (statrs #435); that quantile
    // is cp_lower(1, 1e7, 1e-6) = 1 − (1 − β)^(1/n). mpmath dps 40: 1.000000500000283333533e-13.
    #[test]
    fn statrs_435_case_is_fast_and_right() {
        let v = cp_lower(1, 10_000_000, 1e-6).unwrap();
        assert!(rel(v, 1.000000500000283333533333e-13) < 1e-12, "{v:e}");
    }

    // Beta(a, a) is symmetric about ½, so I_½(a, a) = ½ exactly, for any a: a check near the
    // mean for huge shapes, where statrs 0.19's Beta cdf is wrong (statrs #434).
    #[test]
    fn huge_shapes_at_the_mean() {
        for a in [1e3, 1e6, 5e8, 5e9, 1e10] {
            let (lo, up) = beta_inc(a, a, 0.5).unwrap();
            assert!(
                rel(lo, 0.5) < 1e-12 && rel(up, 0.5) < 1e-12,
                "a={a}: {lo} {up}"
            );
        }
    }

    // I_x(a, b) = 1 − I_{1−x}(b, a) (DLMF 8.17.4); x dyadic so that 1 − x is exact.
    #[test]
    fn reflection_symmetry() {
        for &(a, b) in &[
            (2.0, 7.0),
            (0.7, 3.2),
            (1e4, 2e4),
            (3e7, 1e9),
            (1.0, 1e9),
            (5.0, 1.0),
        ] {
            for x in [0.0009765625, 0.125, 0.3125, 0.5, 0.96875] {
                let (l1, u1) = beta_inc(a, b, x).unwrap();
                let (l2, u2) = beta_inc(b, a, 1.0 - x).unwrap();
                assert!(
                    rel(l1, u2) < 1e-12 || (l1 < 1e-300 && u2 < 1e-300),
                    "{a} {b} {x}"
                );
                assert!(
                    rel(u1, l2) < 1e-12 || (u1 < 1e-300 && l2 < 1e-300),
                    "{a} {b} {x}"
                );
            }
        }
    }

    // Consistency up to N = 10^10 (the stated range): the bounds solve their defining equations
    // where p is representable to full relative precision in 1 − p as well (p ≤ ½); above, a
    // double near 1 cannot carry 1 − p to 10⁻⁹, so the reflection cp_upper(k) = 1 − cp_lower(n − k)
    // is checked instead. (Not an independent oracle; the tails are checked against mpmath above.)
    #[test]
    fn bounds_solve_their_equations_up_to_1e10() {
        let n = 10_000_000_000u64;
        for k in [0u64, 1, 5, 1000, n / 3, n - 5, n - 1] {
            for beta in [0.05, 1e-9] {
                if k < n {
                    let u = cp_upper(k, n, beta).unwrap();
                    if u <= 0.5 {
                        let f = binom_cdf(k, n, u).unwrap();
                        assert!(rel(f, beta) < 1e-9, "upper k={k}: F = {f:e}");
                    } else {
                        let l = cp_lower(n - k, n, beta).unwrap();
                        assert!((u - (1.0 - l)).abs() <= 2.0 * f64::EPSILON, "k={k}");
                    }
                }
                if k > 0 {
                    let l = cp_lower(k, n, beta).unwrap();
                    if l <= 0.5 {
                        let g = binom_sf(k - 1, n, l).unwrap();
                        assert!(rel(g, beta) < 1e-9, "lower k={k}: G = {g:e}");
                    }
                    assert!(l <= cp_upper(k, n, beta).unwrap());
                }
            }
        }
    }

    #[test]
    fn two_sided_interval_splits_the_level() {
        let (l, u) = cp_interval(5, 1000, 0.9).unwrap();
        // From the CP table: β = 0.05 on each side.
        assert!(rel(l, 1.972153141805247142e-3) < 1e-12);
        assert!(rel(u, 1.0484076911415653719e-2) < 1e-12);
    }

    #[test]
    fn eps_lower_bound_values() {
        // mpmath dps 40: ln((1 − 1e-5 − 0.3)/1e-3) = 6.551066049227077170701
        let e = eps_lower_bound(1e-3, 0.3, 1e-5).unwrap();
        assert!(rel(e, 6.551_066_049_227_077) < 1e-15);
        assert_eq!(eps_lower_bound(0.5, 0.5, 0.0).unwrap(), 0.0);
        assert_eq!(eps_lower_bound(0.01, 0.99, 0.02).unwrap(), 0.0);
        assert_eq!(eps_lower_bound(1e-3, 1.0, 0.0).unwrap(), 0.0);
    }

    fn invalid_name(e: Error) -> String {
        match e {
            Error::InvalidParameter { name, .. } => name,
            other => panic!("expected InvalidParameter, got {other:?}"),
        }
    }

    #[test]
    fn invalid_inputs_are_errors_naming_the_parameter() {
        assert_eq!(invalid_name(cp_upper(5, 3, 0.05).unwrap_err()), "k");
        assert_eq!(invalid_name(cp_upper(0, 0, 0.05).unwrap_err()), "n");
        assert_eq!(invalid_name(cp_lower(1, 3, 0.0).unwrap_err()), "beta");
        assert_eq!(invalid_name(cp_lower(1, 3, f64::NAN).unwrap_err()), "beta");
        assert_eq!(invalid_name(cp_interval(1, 3, 1.0).unwrap_err()), "conf");
        assert_eq!(
            invalid_name(cp_upper(1, MAX_COUNT + 1, 0.1).unwrap_err()),
            "n"
        );
        assert_eq!(invalid_name(beta_inc(-1.0, 2.0, 0.5).unwrap_err()), "a");
        assert_eq!(
            invalid_name(beta_inc(1.0, f64::INFINITY, 0.5).unwrap_err()),
            "b"
        );
        assert_eq!(invalid_name(beta_inc(1.0, 2.0, 1.5).unwrap_err()), "x");
        assert_eq!(invalid_name(binom_cdf(1, 10, -0.1).unwrap_err()), "p");
        assert_eq!(
            invalid_name(eps_lower_bound(0.0, 0.1, 0.0).unwrap_err()),
            "fpr_ub"
        );
        assert_eq!(
            invalid_name(eps_lower_bound(0.1, 1.1, 0.0).unwrap_err()),
            "fnr_ub"
        );
        assert_eq!(
            invalid_name(eps_lower_bound(0.1, 0.1, 1.0).unwrap_err()),
            "delta"
        );
        let e = audit_region(0.0, Tail::Above, Direction::PvsQ, 10, 3, 10, 1, 0.0, 0.7);
        assert_eq!(invalid_name(e.unwrap_err()), "beta");
        let e = ThresholdTable::from_sorted(&[2.0, 1.0], &[0.0], &[0.5]);
        assert_eq!(invalid_name(e.unwrap_err()), "p_sorted");
        let e = ThresholdTable::from_sorted(&[1.0], &[0.0], &[f64::NAN]);
        assert_eq!(invalid_name(e.unwrap_err()), "thresholds");
        let e = ThresholdTable::from_histogram(&[1, 2], &[1, 2], &[0.0, 1.0]);
        assert_eq!(invalid_name(e.unwrap_err()), "edges.len()");
        let e = ThresholdTable::from_histogram(&[0, 0], &[1, 2], &[0.0, 1.0, 2.0]);
        assert_eq!(invalid_name(e.unwrap_err()), "p_counts");
        let a = ThresholdTable::from_sorted(&[1.0], &[0.0], &[0.5]).unwrap();
        let b = ThresholdTable::from_sorted(&[1.0], &[0.0], &[0.25]).unwrap();
        assert_eq!(
            invalid_name(held_out_region(&a, &b, 0.0, 0.05).unwrap_err()),
            "evaluate.thresholds"
        );
    }

    #[test]
    fn single_region_uses_a_family_of_two() {
        // 1000 P-samples, 700 inside S; 1000 Q-samples, 20 inside S; P vs Q.
        let r = audit_region(
            1.5,
            Tail::Above,
            Direction::PvsQ,
            1000,
            700,
            1000,
            20,
            1e-5,
            0.05,
        )
        .unwrap();
        assert_eq!((r.false_positives, r.false_negatives), (20, 300));
        assert_eq!(r.family_size, 2);
        let fpr = cp_upper(20, 1000, 0.025).unwrap();
        let fnr = cp_upper(300, 1000, 0.025).unwrap();
        assert_eq!((r.fpr_ub, r.fnr_ub), (fpr, fnr));
        assert_eq!(r.eps_lb, eps_lower_bound(fpr, fnr, 1e-5).unwrap());
        // The same region read as its complement in the other direction: Q vs P, S = {T ≤ t}
        // has FP = P-samples in S = 300, FN = Q-samples outside S = 20.
        let c = audit_region(
            1.5,
            Tail::Below,
            Direction::QvsP,
            1000,
            300,
            1000,
            980,
            1e-5,
            0.05,
        )
        .unwrap();
        assert_eq!((c.false_positives, c.false_negatives), (300, 20));
    }

    #[test]
    fn lazy_search_equals_exhaustive_search() {
        // Deterministic pseudo-samples: P shifted by 0.8.
        let mut x = 0.123_456_789_f64;
        let mut next = || {
            x = (x * 997.0 + 0.1).fract();
            x
        };
        let mut p: Vec<f64> = (0..3000).map(|_| 0.8 + next() + next() + next()).collect();
        let mut q: Vec<f64> = (0..3000).map(|_| next() + next() + next()).collect();
        p.sort_by(f64::total_cmp);
        q.sort_by(f64::total_cmp);
        let th: Vec<f64> = (0..60).map(|i| 0.05 * i as f64).collect();
        let t = ThresholdTable::from_sorted(&p, &q, &th).unwrap();
        let best = best_region(&t, 1e-3, 0.05).unwrap();
        let level = 0.05 / (4.0 * th.len() as f64);
        let mut exhaustive = f64::NEG_INFINITY;
        for i in 0..t.len() {
            for &(tail, dir) in STATEMENT_KINDS.iter() {
                let (fp, nn, fnc, np) = t.statement_counts(i, tail, dir);
                let e = eps_raw(
                    cp_upper(fp, nn, level).unwrap(),
                    cp_upper(fnc, np, level).unwrap(),
                    1e-3,
                );
                exhaustive = exhaustive.max(e);
            }
        }
        assert_eq!(best.eps_lb, exhaustive.max(0.0));
        assert!(best.eps_lb > 0.0);
    }

    #[test]
    fn region_audit_serde_roundtrip() {
        let r = audit_region(
            0.5,
            Tail::Below,
            Direction::QvsP,
            500,
            120,
            400,
            300,
            1e-6,
            0.01,
        )
        .unwrap();
        let text = toml::to_string(&r).unwrap();
        let back: RegionAudit = toml::from_str(&text).unwrap();
        assert_eq!(r, back);
    }
}
