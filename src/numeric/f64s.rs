//! Stable double-precision special functions: Φ, log Φ, erfcx, log-diff-exp and the normal quantile.
//!
//! These are the fast paths used by samplers, audits and plots. They never form `1 − Φ(x)` for
//! x > 0 nor `Φ(v) − Φ(u)` by subtraction on the wrong side of 0 (docs/formulas.md §9, recipe 1), and they
//! use `libm` (≈1 ulp) rather than statrs' `erf` (≈1e-10).

use std::f64::consts::{FRAC_1_SQRT_2, LN_2, PI};

/// ln(√(2π)).
pub(crate) const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

/// Standard normal density φ(x).
pub(crate) fn norm_pdf(x: f64) -> f64 {
    (-0.5 * x * x - LN_SQRT_2PI).exp()
}

/// log φ(x).
pub(crate) fn log_norm_pdf(x: f64) -> f64 {
    -0.5 * x * x - LN_SQRT_2PI
}

/// Exact product of two doubles as `hi + lo` (Dekker/FMA).
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let hi = a * b;
    let lo = a.mul_add(b, -hi);
    (hi, lo)
}

/// exp(−x²/2) with the square formed exactly, so the relative error stays ≈ 1 ulp even at x = 38.
pub(crate) fn exp_neg_half_sq(x: f64) -> f64 {
    let (hi, lo) = two_prod(x, x);
    (-0.5 * hi).exp() * (-0.5 * lo).exp()
}

/// Scaled complementary error function erfcx(z) = exp(z²)·erfc(z).
///
/// For z < 0.5 it is computed from `libm::erfc` with the exact square; for larger z by the
/// Laplace continued fraction erfc(z) = exp(−z²)/√π · 1/(z + (1/2)/(z + 1/(z + (3/2)/(z + …)))),
/// evaluated by the modified Lentz method.
pub(crate) fn erfcx(z: f64) -> f64 {
    if z.is_nan() {
        return f64::NAN;
    }
    if z < 2.0 {
        if z < -26.7 {
            return f64::INFINITY;
        }
        let (hi, lo) = two_prod(z, z);
        return libm::erfc(z) * hi.exp() * lo.exp();
    }
    // Lentz on K = z + a1/(z + a2/(z + ...)), a_k = k/2.
    let tiny = 1e-300;
    let mut f = z;
    let mut c = z;
    let mut d = 0.0;
    for k in 1..500 {
        let a = k as f64 * 0.5;
        d = z + a * d;
        if d.abs() < tiny {
            d = tiny;
        }
        c = z + a / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    1.0 / (f * PI.sqrt())
}

/// Standard normal cdf Φ(x), accurate in relative terms in the lower tail.
pub fn ndtr(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_infinite() {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    if x < -3.0 {
        // Φ(x) = ½ erfcx(−x/√2) exp(−x²/2): no underflow until the true value does.
        0.5 * erfcx(-x * FRAC_1_SQRT_2) * exp_neg_half_sq(x)
    } else {
        0.5 * libm::erfc(-x * FRAC_1_SQRT_2)
    }
}

/// log Φ(x), finite for every finite x (≈ −x²/2 − log(−x√(2π)) far in the lower tail).
pub(crate) fn log_ndtr(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x.is_infinite() {
        return if x > 0.0 { 0.0 } else { f64::NEG_INFINITY };
    }
    if x > 3.0 {
        (-ndtr(-x)).ln_1p()
    } else if x > -3.0 {
        ndtr(x).ln()
    } else {
        (0.5 * erfcx(-x * FRAC_1_SQRT_2)).ln() - 0.5 * x * x
    }
}

/// log(1 − eˣ) for x ≤ 0 (Mächler's switch at −ln 2).
pub(crate) fn log1mexp(x: f64) -> f64 {
    if x > 0.0 {
        f64::NAN
    } else if x > -LN_2 {
        (-x.exp_m1()).ln()
    } else {
        (-x.exp()).ln_1p()
    }
}

/// log(eᵃ + eᵇ).
pub(crate) fn log_add_exp(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let m = a.max(b);
    m + (-(a - b).abs()).exp().ln_1p()
}

/// log Σ exp(xᵢ).
pub(crate) fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if m.is_infinite() {
        return m;
    }
    m + xs.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}

/// √(π/2).
const SQRT_PI_2: f64 = 1.253_314_137_315_500_3;

/// ln R(t), where R(t) = Φ(−t)/φ(t) = √(π/2)·erfcx(t/√2) is the Mills ratio (docs/formulas.md §0.1).
#[inline]
pub(crate) fn ln_mills(t: f64) -> f64 {
    (SQRT_PI_2 * erfcx(t * std::f64::consts::FRAC_1_SQRT_2)).ln()
}

/// ln(Φ(v) − Φ(u)) for u < v, to full relative accuracy for every interval, wide or narrow,
/// central or far in a tail. Intervals straddling 0 use ½(erf(v/√2) + erf(−u/√2)), a sum of
/// two non-negative terms; one-sided intervals are mirrored to [p, q] ⊂ [0, ∞) and written as
/// Φ(−p)·(1 − Φ(−q)/Φ(−p)) with the ratio from [`ln_tail_ratio`] (docs/formulas.md §9 recipe 1, including
/// its narrow-interval caveat, which the hazard quadrature removes).
pub(crate) fn log_ndtr_diff(u: f64, v: f64) -> f64 {
    if u >= v || u.is_nan() || v.is_nan() {
        return f64::NEG_INFINITY;
    }
    if u < 0.0 && v > 0.0 {
        let s = libm::erf(v * FRAC_1_SQRT_2) + libm::erf(-u * FRAC_1_SQRT_2);
        (0.5 * s).ln()
    } else if u >= 0.0 {
        log_ndtr(-u) + log1mexp(ln_tail_ratio(u, v - u))
    } else {
        log_ndtr(v) + log1mexp(ln_tail_ratio(-v, v - u))
    }
}

/// Positive nodes and weights of the 10-point Gauss–Legendre rule on [−1, 1] (mpmath, dps 40;
/// digits kept as produced).
#[allow(clippy::excessive_precision)]
const GL10: [(f64, f64); 5] = [
    (0.973_906_528_517_171_720_08, 0.066_671_344_308_688_137_594),
    (0.865_063_366_688_984_510_73, 0.149_451_349_150_580_593_15),
    (0.679_409_568_299_024_406_23, 0.219_086_362_515_982_044),
    (0.433_395_394_129_247_190_8, 0.269_266_719_309_996_355_09),
    (0.148_874_338_981_631_210_88, 0.295_524_224_714_752_870_17),
];

/// The Gaussian hazard λ(s) = φ(s)/Φ(−s) = 1/R(s).
#[inline]
fn hazard(s: f64) -> f64 {
    (-ln_mills(s)).exp()
}

/// log(Φ(−l−t)/Φ(−l)) = −∫_l^{l+t} λ(s) ds for l ≥ 0, t ≥ 0.
///
/// For t ≤ 1 the hazard integral is taken by 10-point Gauss–Legendre (λ is analytic, with its
/// nearest complex singularities ≳ 3 away from the real half-line, so the rule is exact to
/// rounding), which keeps full relative accuracy as t → 0: the closed form
/// −t(t + 2l)/2 + ln R(l + t) − ln R(l) would lose ≈ log₁₀(1/(t·l)) digits to the difference of
/// the two ln R. For t > 1 the closed form is used (its value is ≤ −0.8, no cancellation).
pub(crate) fn ln_tail_ratio(l: f64, t: f64) -> f64 {
    if t == 0.0 {
        return 0.0;
    }
    if t.is_infinite() {
        return f64::NEG_INFINITY;
    }
    if t <= 1.0 {
        let h = 0.5 * t;
        let c = l + h;
        let s: f64 = GL10
            .iter()
            .map(|&(x, w)| w * (hazard(c - h * x) + hazard(c + h * x)))
            .sum();
        -h * s
    } else {
        -0.5 * t * (t + 2.0 * l) + ln_mills(l + t) - ln_mills(l)
    }
}

/// Φ(v) − Φ(u) for u < v, computed on the tail side.
pub(crate) fn ndtr_diff(u: f64, v: f64) -> f64 {
    if u >= v {
        0.0
    } else if v <= 0.0 || u >= 0.0 {
        log_ndtr_diff(u, v).exp()
    } else {
        1.0 - ndtr(u) - ndtr(-v)
    }
}

/// Normal quantile from the lower tail: the x with Φ(x) = p, for 0 < p < 1.
///
/// A rational starting value (Abramowitz–Stegun 26.2.23) refined by Newton steps on log Φ, which
/// converge to full double precision in ≤ 4 steps; relative accuracy holds deep in the tail
/// (p down to the smallest subnormal).
pub(crate) fn ndtri(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if p > 0.5 {
        return -ndtri_upper(p);
    }
    let lp = p.ln();
    let t = (-2.0 * lp).sqrt();
    let mut x = -(t
        - (2.515517 + 0.802853 * t + 0.010328 * t * t)
            / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t));
    refine_log(&mut x, lp);
    x
}

/// The x with 1 − Φ(x) = q (upper-tail quantile), accurate for tiny q; equals −ndtri(q).
pub fn ndtri_upper(q: f64) -> f64 {
    if q > 0.5 {
        // q > ½: lower tail of the mirror; 1 − q is exact enough here (q ≤ 1).
        let p = 1.0 - q;
        if p <= 0.0 {
            return f64::NEG_INFINITY;
        }
        return ndtri(p).abs() * if q > 0.5 { -1.0 } else { 1.0 };
    }
    -ndtri(q)
}

/// Newton on g(x) = log Φ(x) − log p (g is concave and increasing: monotone convergence).
fn refine_log(x: &mut f64, lp: f64) {
    for _ in 0..50 {
        let l = log_ndtr(*x);
        let g = l - lp;
        // d/dx log Φ(x) = φ(x)/Φ(x)
        let slope = (log_norm_pdf(*x) - l).exp();
        let step = g / slope;
        *x -= step;
        if step.abs() <= 1e-15 * x.abs().max(1e-300) {
            break;
        }
    }
}

/// The Gaussian mechanism's privacy profile δ(ε) for sensitivity/σ ratio `mu` = Δ/σ (also the
/// μ-GDP profile, Dong–Roth–Su 2019 Cor. 2.13), Balle & Wang 2018 Thm 8, in the erfcx form of
/// docs/formulas.md §7.1 that never forms e^ε.
pub(crate) fn gaussian_delta(mu: f64, eps: f64) -> f64 {
    let x = mu / 2.0 - eps / mu;
    let y = x - mu;
    if x >= 0.0 {
        // δ = Φ(x) − e^ε Φ(y); both terms moderate.
        let e = eps.exp();
        let v = ndtr(x) - e * ndtr(y);
        return v.max(0.0);
    }
    // φ(x)√(π/2)[erfcx(−x/√2) − erfcx(−y/√2)]
    let s = (PI / 2.0).sqrt();
    norm_pdf(x) * s * (erfcx(-x * FRAC_1_SQRT_2) - erfcx(-y * FRAC_1_SQRT_2)).max(0.0)
}

/// Inverse of [`gaussian_delta`] in ε: the smallest ε ≥ 0 with δ(ε) ≤ `delta` (bisection on a
/// bracket, to a relative tolerance of 1e-13).
pub(crate) fn gaussian_eps_for_delta(mu: f64, delta: f64) -> f64 {
    if gaussian_delta(mu, 0.0) <= delta {
        return 0.0;
    }
    let mut lo = 0.0;
    let mut hi = 1.0;
    while gaussian_delta(mu, hi) > delta {
        lo = hi;
        hi *= 2.0;
        if hi > 1e12 {
            return f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if gaussian_delta(mu, mid) > delta {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi {
            break;
        }
    }
    hi
}

#[cfg(test)]
mod tests;

/// Golden-section search for the minimum of a unimodal `f` on [lo, hi]: narrows the interval
/// until it is shorter than `tol` or after `max_iter` steps, and returns the final interval.
pub(crate) fn golden_section(
    mut f: impl FnMut(f64) -> f64,
    mut lo: f64,
    mut hi: f64,
    tol: f64,
    max_iter: usize,
) -> (f64, f64) {
    let r = 0.5 * (5f64.sqrt() - 1.0);
    let (mut c, mut d) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut fc, mut fd) = (f(c), f(d));
    let mut iter = 0;
    while hi - lo > tol && iter < max_iter {
        if fc < fd {
            hi = d;
            d = c;
            fd = fc;
            c = hi - r * (hi - lo);
            fc = f(c);
        } else {
            lo = c;
            c = d;
            fc = fd;
            d = lo + r * (hi - lo);
            fd = f(d);
        }
        iter += 1;
    }
    (lo, hi)
}
