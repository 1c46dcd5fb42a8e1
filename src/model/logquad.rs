//! The certified log-space quadrature kit shared by the Gaussian-family models: values with
//! absolute error bounds ([`Val`]), the working context ([`Ctx`]), the deficit-driven ladder
//! ([`certified`]), Gaussian-envelope integrals split at the roots of a log-likelihood ratio, and
//! the atom terms of Rényi, KL and hockey-stick sums.
//!
//! **Certification.** Every integral comes with an absolute error bound; the bounds are propagated
//! through the final formula by first-order bounds with a 2 % margin (the perturbations are below
//! 10^-(digits) so second-order terms are negligible), rounding of the formula itself is covered
//! by a 2^-(prec−8) relative term. The value is certified to `digits` if the propagated bound is
//! below 10^-digits relative; otherwise the integrals are redone with more digits, the increase
//! being the observed deficit (cancellation: α → 1, D ≪ 1, far tails, d = 1000), at most four times
//! before [`Error::Precision`].

use crate::error::{Error, Result};
use crate::numeric::mp::{bits_for_digits, Certified};
use crate::numeric::quad::{self, Factor, QuadOptions, QuadResult, Quadratic};
use crate::scalar::Scalar;
use rug::Float;

/// Precision of error-bound arithmetic.
pub(crate) const EP: u32 = 64;

/// A value with an absolute error bound.
#[derive(Clone, Debug)]
pub(crate) struct Val {
    pub(crate) v: Float,
    pub(crate) e: Float,
}

impl Val {
    pub(crate) fn exact(v: Float) -> Self {
        Val {
            v,
            e: Float::new(EP),
        }
    }
}

/// Working context: precision and the digits each integral must reach.
pub(crate) struct Ctx {
    pub(crate) prec: u32,
    pub(crate) digits: f64,
}

impl Ctx {
    pub(crate) fn new(target: f64) -> Self {
        let prec = bits_for_digits(target.ceil() as u32) + 16;
        Ctx {
            prec,
            digits: target,
        }
    }

    pub(crate) fn opts(&self) -> QuadOptions {
        QuadOptions::new(self.prec, self.digits)
    }

    pub(crate) fn f(&self, s: &Scalar) -> Float {
        s.mp(self.prec)
    }

    /// Relative rounding unit with margin for the final formula.
    pub(crate) fn ulp(&self) -> Float {
        Float::with_val(EP, Float::i_exp(1, -(self.prec as i32) + 8))
    }
}

/// e^x as a low-precision error value (x is a natural log, may be −∞).
pub(crate) fn err_exp(x: f64) -> Float {
    Float::with_val(EP, x).exp()
}

/// The integral as a signed value with absolute error.
pub(crate) fn val_of(q: &QuadResult) -> Val {
    Val {
        v: q.value(),
        e: err_exp(q.log_abs_err) * 1.02f64,
    }
}

/// log of a positive integral with the absolute error of the log: −ln(1 − rel).
pub(crate) fn log_of(q: &QuadResult) -> Result<Val> {
    let rel = err_exp(q.log_abs_err - q.log_abs.to_f64());
    if rel >= 0.5 || q.log_abs.is_infinite() {
        return Err(Error::Precision {
            narrowest: None,
            requested: 1,
            certified: 0,
            what: "an integral (relative error ≥ 1/2)".into(),
        });
    }
    let one_m = Float::with_val(EP, 1u32) - &rel;
    let e = -one_m.ln() * 1.02f64;
    Ok(Val {
        v: q.log_abs.clone(),
        e,
    })
}

/// Runs `f(target_digits)` (value and absolute error) and certifies `digits`, raising the target
/// by the observed deficit until the bound is met (at most four attempts).
pub(crate) fn certified<F>(digits: u32, what: &str, f: F) -> Result<Certified>
where
    F: FnMut(&Ctx) -> Result<Val>,
{
    certified_guard(digits, 0.0, what, f)
}

/// Results below this size are cross-checked at a higher precision by [`certified_guard`].
const SMALL: f64 = 1e-6;

/// [`certified`] with `guard` extra digits in the first attempt (known cancellation).
pub(crate) fn certified_guard<F>(digits: u32, guard: f64, what: &str, mut f: F) -> Result<Certified>
where
    F: FnMut(&Ctx) -> Result<Val>,
{
    let mut target = f64::from(digits) + 2.0 + guard;
    let mut best = 0.0f64;
    for _ in 0..4 {
        let ctx = Ctx::new(target);
        // MPFR's underflow flag (numeric::mp::check_range): a 0 that underflowed is refused.
        let (r, under, over) = crate::numeric::mp::with_range_flags(|| f(&ctx));
        if let Ok(r) = &r {
            crate::numeric::mp::check_range(&r.v, ctx.prec, under, over, what)?;
        }
        let r = match r {
            Ok(r) => r,
            Err(Error::Precision { .. }) => {
                if let Some(limit) = crate::numeric::deadline::expired() {
                    return Err(Error::Precision {
                        narrowest: None,
                        requested: digits,
                        certified: best.max(0.0).floor() as u32,
                        what: format!("{what} (time limit of {limit} s reached)"),
                    });
                }
                // A quadrature hit its rounding floor: more bits.
                target += 10.0 + 0.25 * f64::from(digits);
                if target > 4.0 * f64::from(digits) + 400.0 {
                    break;
                }
                continue;
            }
            Err(e) => return Err(e),
        };
        if r.v.is_zero() && r.e.is_zero() {
            // An exact 0 must be 0 again with 20 more digits (a value absorbed by the
            // arithmetic at one precision, e.g. the Gaussian δ ≈ 3.5e-101 at σ = 1e100, is not).
            let r2 = f(&Ctx::new(ctx.digits + 20.0))?;
            if !r2.v.is_zero() {
                target += 20.0;
                continue;
            }
        }
        if r.v.is_infinite() || r.e.is_zero() {
            return Ok(Certified { value: r.v, digits });
        }
        if r.v.is_zero() {
            // Zero with a non-zero error bound: no relative digits.
            break;
        }
        let rel = Float::with_val(EP, &r.e / r.v.clone().abs());
        let mut got = -rel.log10().to_f64();
        if got >= f64::from(digits) && r.v.clone().abs() < SMALL {
            // The integrals' error estimates are relative to the integrals (≈ 1 when the
            // divergence is small), and they can miss an absolute floor (σ = 1e8: the Rényi
            // integral's 7e-29 made 9.99999999999298e-17 of 1e-16, "certified" to 15 digits):
            // harmless for a result near 1, fatal for one far below it. Such a result must also
            // be reproduced, within the two bounds, by integrals asked for 20 more digits (other
            // nodes, more bits).
            let hi = Ctx::new(ctx.digits + 20.0);
            let r2 = f(&hi)?;
            let gap = Float::with_val(EP, &r.v - &r2.v).abs();
            if gap > Float::with_val(EP, &r.e + &r2.e) {
                got = if r2.v.is_zero() {
                    0.0
                } else {
                    -Float::with_val(EP, &gap / r2.v.clone().abs())
                        .log10()
                        .to_f64()
                };
            }
        }
        if got >= f64::from(digits) {
            return Ok(Certified { value: r.v, digits });
        }
        best = best.max(got);
        target += (f64::from(digits) - got).max(0.0) + 3.0;
        if target > 4.0 * f64::from(digits) + 400.0 {
            break;
        }
    }
    Err(Error::Precision {
        narrowest: None,
        requested: digits,
        certified: best.max(0.0).floor() as u32,
        what: what.to_string(),
    })
}

/// Exact equality of two parameters (at 2048 bits: the decimal inputs are compared, not their
/// double-precision roundings).
pub(crate) fn same(a: &Scalar, b: &Scalar) -> bool {
    a.mp(2048) == b.mp(2048)
}

// ------------------------------------------------------------------------------------------
// Building blocks

/// ∫_u^v exp(q)·g (None = infinite end).
pub(crate) fn integral(
    ctx: &Ctx,
    q: &Quadratic,
    g: &Factor,
    u: Option<&Float>,
    v: Option<&Float>,
    extra: &[Float],
) -> Result<QuadResult> {
    quad::gaussian(q, g, u, v, extra, &ctx.opts())
}

/// Σ over ranges of ∫ exp(q)·g (a signed sum; g has constant sign on each range). The ranges are
/// integrated in decreasing order of their envelope maximum, each only relative to the running
/// total (a range far out in the tail, e.g. beyond the second root of a log-likelihood ratio of
/// near-equal variances, costs nothing and cannot spoil the precision).
pub(crate) fn integral_ranges(
    ctx: &Ctx,
    q: &Quadratic,
    g: &Factor,
    ranges: &[(Option<Float>, Option<Float>)],
) -> Result<Val> {
    let p = ctx.prec;
    let (m, _) = q.peak_scale();
    let peak = q.peak_value();
    let mut order: Vec<(usize, f64)> = ranges
        .iter()
        .enumerate()
        .map(|(i, (u, v))| {
            let lo = u.as_ref().map_or(f64::NEG_INFINITY, |x| x.to_f64());
            let hi = v.as_ref().map_or(f64::INFINITY, |x| x.to_f64());
            let x = m.clamp(lo, hi);
            (i, if x == m { peak } else { q.eval64(x) })
        })
        .collect();
    order.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    let mut acc = Val::exact(Float::new(p));
    let mut total_ln = f64::NEG_INFINITY;
    for (i, _) in order {
        let (u, v) = &ranges[i];
        let mut o = ctx.opts();
        if total_ln.is_finite() {
            o.log_ref = Some(total_ln);
            o.digits += 1.0;
        }
        let r = quad::gaussian(q, g, u.as_ref(), v.as_ref(), &[], &o)?;
        total_ln = quad::ln_add(total_ln, r.log_abs.to_f64());
        acc = add(&acc, &val_of(&r), p);
    }
    Ok(acc)
}

/// log of P(X ≤ x) (lower = true) or P(X ≥ x) for X ~ N(μ, σ²), by integrating the density over
/// the smaller side and forming masses ≈ 1 as log1p(−tail).
pub(crate) fn log_mass(
    ctx: &Ctx,
    mu: &Float,
    sigma: &Float,
    x: &Float,
    lower: bool,
) -> Result<Val> {
    let q = Quadratic::log_normal(mu, sigma, ctx.prec);
    // The tail side: the side away from μ.
    let tail_is_lower = x <= mu;
    let tail = if tail_is_lower {
        integral(ctx, &q, &Factor::One, None, Some(x), &[])?
    } else {
        integral(ctx, &q, &Factor::One, Some(x), None, &[])?
    };
    if tail_is_lower == lower {
        log_of(&tail)
    } else {
        // log(1 − t)
        let t = val_of(&tail);
        let mut l = Float::with_val(ctx.prec, -&t.v);
        l.ln_1p_mut();
        let one_m = Float::with_val(EP, 1u32) - Float::with_val(EP, &t.v) - &t.e;
        let e = Float::with_val(EP, &t.e / &one_m) * 1.02f64
            + Float::with_val(EP, l.abs_ref()) * ctx.ulp();
        Ok(Val { v: l, e })
    }
}

/// log Φ(x) by MPFR erfc, with its error: Φ(x) = erfc(−x/√2)/2, and log1p(−erfc(x/√2)/2) for
/// x > 0 (stochastic sign).
pub(crate) fn log_ndtr_erfc(ctx: &Ctx, x: &Float) -> Val {
    let wp = ctx.prec + 16;
    let sqrt2 = Float::with_val(wp, 2u32).sqrt();
    let neg = *x <= 0;
    let z = if neg {
        Float::with_val(wp, -x) / &sqrt2
    } else {
        Float::with_val(wp, x) / &sqrt2
    };
    let t = z.erfc() / 2u32;
    let ulp = ctx.ulp();
    let xf = x.to_f64().abs();
    // Error from the rounding of x itself (|δx| ≤ |x|·ulp): d log Φ/dx = λ(−x) ≤ |x| + 1 for
    // x ≤ 0, and φ(x)/Φ(x) ≤ 2φ(x) for x > 0 (the far upper tail, where log Φ ≈ −Φ(−x) is tiny).
    let ex = if neg {
        Float::with_val(EP, xf * (xf + 2.0)) * &ulp
    } else {
        let phi = Float::with_val(EP, -xf * xf / 2.0).exp() * 0.4f64;
        phi * (2.0 * xf + 1.0) * &ulp
    };
    if neg {
        let l = Float::with_val(ctx.prec, t.ln_ref());
        let e = (Float::with_val(EP, l.abs_ref()) + 2u32) * &ulp + ex;
        Val { v: l, e }
    } else {
        let mut l = Float::with_val(ctx.prec, -&t);
        l.ln_1p_mut();
        let e = (Float::with_val(EP, l.abs_ref()) + Float::with_val(EP, &t) * 2u32) * &ulp + ex;
        Val { v: l, e }
    }
}

/// The atom term of S − 1 in the Rényi sum: P1·expm1((α−1)(l1 − l2)) = P1^α P2^{1−α} − P1, with
/// l_i = log P_i.
pub(crate) fn atom_renyi(ctx: &Ctx, alpha: &Float, l1: &Val, l2: &Val) -> Val {
    let p = ctx.prec;
    let am1 = Float::with_val(p, alpha - 1u32);
    let d = Float::with_val(p, &l1.v - &l2.v) * &am1;
    let em1 = Float::with_val(p, d.exp_m1_ref());
    let p1 = Float::with_val(p, l1.v.exp_ref());
    let v = Float::with_val(p, &p1 * &em1);
    // A = P1^α P2^{1−α} = P1 (1 + expm1): ∂/∂l1 = αA − P1, ∂/∂l2 = −(α−1)A.
    let a = Float::with_val(EP, &p1) * (Float::with_val(EP, &em1) + 1u32);
    let p1e = Float::with_val(EP, &p1);
    let alpha_e = Float::with_val(EP, alpha);
    let d1 = Float::with_val(EP, &alpha_e * &a) + &p1e;
    let d2 = Float::with_val(EP, &am1) * &a;
    let e = (d1 * &l1.e + d2 * &l2.e) * 1.02f64
        + Float::with_val(EP, v.abs_ref()) * ctx.ulp() * (1.0 + d.to_f64().abs());
    Val { v, e }
}

/// log(P1^α P2^{1−α}) = l1 + (α − 1)(l1 − l2) of an atom with log-masses l1, l2 (errors
/// included): an atom's share of S in log space, for the large-α forms (docs/formulas.md §9.10).
pub(crate) fn atom_log_term(ctx: &Ctx, alpha: &Float, l1: &Val, l2: &Val) -> Val {
    let p = ctx.prec;
    let am1 = Float::with_val(p, alpha - 1u32);
    let d = Float::with_val(p, &l1.v - &l2.v);
    let v = Float::with_val(p, d * &am1) + &l1.v;
    // ∂/∂l1 = α, ∂/∂l2 = −(α − 1).
    let e = (Float::with_val(EP, alpha) * &l1.e + Float::with_val(EP, &am1) * &l2.e) * 1.02f64
        + Float::with_val(EP, v.abs_ref()) * ctx.ulp() * 4u32;
    Val { v, e }
}

/// log Σ e^{x_i} of log-values with absolute errors: log-sum-exp is 1-Lipschitz in the largest
/// input error, plus the rounding of the result.
pub(crate) fn log_sum_exp_val(ctx: &Ctx, terms: &[Val]) -> Val {
    let p = ctx.prec;
    let mut acc = Float::with_val(p, f64::NEG_INFINITY);
    let mut e = Float::new(EP);
    for t in terms {
        acc = crate::numeric::mp::log_add_exp(&acc, &t.v);
        if t.e > e {
            e.clone_from(&t.e);
        }
    }
    let e = e * 1.02f64 + Float::with_val(EP, acc.abs_ref()) * ctx.ulp() * 4u32;
    Val { v: acc, e }
}

/// The atom term of KL: P1·(l1 − l2).
pub(crate) fn atom_kl(ctx: &Ctx, l1: &Val, l2: &Val) -> Val {
    let p = ctx.prec;
    let p1 = Float::with_val(p, l1.v.exp_ref());
    let d = Float::with_val(p, &l1.v - &l2.v);
    let v = Float::with_val(p, &p1 * &d);
    let p1e = Float::with_val(EP, &p1);
    let de = Float::with_val(EP, d.abs_ref());
    let e = (Float::with_val(EP, &p1e * (de + 1u32)) * &l1.e + &p1e * &l2.e) * 1.02f64
        + Float::with_val(EP, v.abs_ref()) * ctx.ulp();
    Val { v, e }
}

/// The atom term of the hockey-stick: (P1 − e^ε P2)_+ = (e^{l1}·(−expm1(ε + l2 − l1)))_+, as an
/// interval [lo, hi] clipped at 0, returned as midpoint ± half-width.
pub(crate) fn atom_hockey(ctx: &Ctx, eps: &Float, l1: &Val, l2: &Val) -> Val {
    let p = ctx.prec;
    let z = Float::with_val(p, eps + &l2.v) - &l1.v;
    let mut g = Float::with_val(p, z.exp_m1_ref());
    g = -g;
    let p1 = Float::with_val(p, l1.v.exp_ref());
    let v = Float::with_val(p, &p1 * &g);
    // ∂/∂l1 = P1, ∂/∂l2 = −e^{ε} P2 = −P1 e^{z}.
    let p1e = Float::with_val(EP, &p1);
    let ez = Float::with_val(EP, z.exp_ref());
    let e = (Float::with_val(EP, &p1e * &l1.e) + Float::with_val(EP, &p1e * &ez) * &l2.e) * 1.02f64
        + Float::with_val(EP, v.abs_ref()) * ctx.ulp() * (1.0 + z.to_f64().abs());
    positive_part(ctx, Val { v, e })
}

/// (x)_+ of an uncertain value: the interval [max(v−e,0), max(v+e,0)] as midpoint ± half-width.
pub(crate) fn positive_part(ctx: &Ctx, x: Val) -> Val {
    let p = ctx.prec;
    let e = Float::with_val(p, &x.e);
    let lo = Float::with_val(p, &x.v - &e);
    let hi = Float::with_val(p, &x.v + &e);
    if lo >= 0 {
        x
    } else if hi <= 0 {
        Val::exact(Float::new(p))
    } else {
        let mid = Float::with_val(p, &hi / 2u32);
        Val {
            v: mid.clone(),
            e: Float::with_val(EP, &mid) * 1.01f64,
        }
    }
}

pub(crate) fn add(a: &Val, b: &Val, prec: u32) -> Val {
    Val {
        v: Float::with_val(prec, &a.v + &b.v),
        e: Float::with_val(EP, &a.e + &b.e),
    }
}

/// LLR(x) = log p1(x) − log p2(x) as polynomial coefficients (c0, c1, c2), with the magnitudes
/// of the terms that formed them (near-equal variances cancel in every coefficient).
pub(crate) struct Llr {
    pub(crate) c: Vec<Float>,
    pub(crate) mag: Vec<f64>,
}

pub(crate) fn llr(q1: &Quadratic, q2: &Quadratic, prec: u32) -> Llr {
    Llr {
        c: (0..3)
            .map(|i| Float::with_val(prec, &q1.c[i] - &q2.c[i]))
            .collect(),
        mag: (0..3).map(|i| q1.mag[i] + q2.mag[i]).collect(),
    }
}

/// Real roots of c0 + c1 x + c2 x² = e, sorted (numerically stable formula).
pub(crate) fn roots(c: &[Float], e: &Float, prec: u32) -> Vec<Float> {
    let c0 = Float::with_val(prec, &c[0] - e);
    let c1 = &c[1];
    let c2 = &c[2];
    if c2.is_zero() {
        if c1.is_zero() {
            return vec![];
        }
        return vec![-(Float::with_val(prec, &c0 / c1))];
    }
    let disc = Float::with_val(prec, c1.square_ref()) - Float::with_val(prec, c2 * &c0) * 4u32;
    if disc <= 0 {
        return vec![];
    }
    let sq = disc.sqrt();
    // q = −(c1 + sign(c1)√disc)/2; roots q/c2 and c0/q.
    let qv = if *c1 >= 0 {
        -(Float::with_val(prec, c1 + &sq)) / 2u32
    } else {
        -(Float::with_val(prec, c1 - &sq)) / 2u32
    };
    let mut r = vec![
        Float::with_val(prec, &qv / c2),
        Float::with_val(prec, &c0 / &qv),
    ];
    r.sort_by(|a, b| a.total_cmp(b));
    r
}

/// ∫ p1·LLR over the support [u, v] (None = the whole line), LLR = log(p1/p2) of the
/// log-densities q1, q2, split at the roots of LLR: a signed value.
pub(crate) fn int_times_llr(
    ctx: &Ctx,
    q1: &Quadratic,
    q2: &Quadratic,
    support: Option<(&Float, &Float)>,
) -> Result<Val> {
    let p = ctx.prec;
    let l = &llr(q1, q2, p);
    let (u, v) = support.unzip();
    let zero = Float::new(p);
    let rs: Vec<Float> = roots(&l.c, &zero, p)
        .into_iter()
        .filter(|r| u.is_none_or(|u| r > u) && v.is_none_or(|v| r < v))
        .collect();
    let mut ends: Vec<Option<Float>> = vec![u.cloned()];
    for r in rs {
        ends.push(Some(r));
    }
    ends.push(v.cloned());
    let g = Factor::Poly {
        c: l.c.clone(),
        mag: l.mag.clone(),
    };
    let ranges: Vec<(Option<Float>, Option<Float>)> = ends
        .windows(2)
        .map(|w| (w[0].clone(), w[1].clone()))
        .collect();
    integral_ranges(ctx, q1, &g, &ranges)
}

/// Certified value of a log-domain sum Σ k_i·log I_i divided by `div`.
pub(crate) fn combine_logs(parts: &[(Float, Val)], div: &Float, prec: u32) -> Val {
    let mut v = Float::new(prec);
    let mut e = Float::new(EP);
    for (k, l) in parts {
        v += Float::with_val(prec, k * &l.v);
        e += Float::with_val(EP, k.abs_ref()) * &l.e;
    }
    let scale = Float::with_val(EP, div.abs_ref());
    let vmag = Float::with_val(EP, v.abs_ref());
    Val {
        v: v / div,
        e: e / &scale * 1.01f64
            + vmag / scale * Float::with_val(EP, Float::i_exp(1, -(prec as i32) + 8)),
    }
}

/// An exact zero certified to `digits` (every divergence of a pair with P1 = P2).
pub(crate) fn zero(digits: u32) -> Certified {
    Certified {
        value: Float::new(bits_for_digits(digits)),
        digits,
    }
}

/// log1p(x)/k with the error of x propagated (|d log1p/dx| = 1/(1+x)).
pub(crate) fn log1p_over(ctx: &Ctx, x: &Val, k: &Float) -> Val {
    let p = ctx.prec;
    let mut l = Float::with_val(p, &x.v);
    l.ln_1p_mut();
    let one_p = Float::with_val(EP, 1u32) + Float::with_val(EP, &x.v) - &x.e;
    let ke = Float::with_val(EP, k.abs_ref());
    let e = Float::with_val(EP, &x.e / &one_p) / &ke * 1.02f64
        + Float::with_val(EP, l.abs_ref()) / &ke * ctx.ulp();
    Val { v: l / k, e }
}

/// The windows [w0, w1] between consecutive roots of LLR − e (None = ±∞) on which LLR > e,
/// decided by a sample point inside each.
pub(crate) fn above(l: &[Float], e: &Float, p: u32) -> Vec<[Option<Float>; 2]> {
    let rs = roots(l, e, p);
    let mut ends: Vec<Option<Float>> = vec![None];
    for r in &rs {
        ends.push(Some(r.clone()));
    }
    ends.push(None);
    let mut out = Vec::new();
    for w in ends.windows(2) {
        // A point inside (w0, w1).
        let inside = match (&w[0], &w[1]) {
            (Some(x0), Some(x1)) => Float::with_val(p, x0 + x1) / 2u32,
            (Some(x0), None) => Float::with_val(p, x0 + 1u32),
            (None, Some(x1)) => Float::with_val(p, x1 - 1u32),
            (None, None) => Float::new(p),
        };
        let mut val = Float::with_val(p, &l[2] * &inside);
        val += &l[1];
        val *= &inside;
        val += &l[0];
        if val <= *e {
            continue;
        }
        out.push([w[0].clone(), w[1].clone()]);
    }
    out
}

/// ∫ over {LLR > e} ∩ [u, v] of p1·(1 − e^{e − LLR}) (None = infinite), split at the roots.
pub(crate) fn hockey_region(
    ctx: &Ctx,
    q1: &Quadratic,
    llr_: &Llr,
    e: &Float,
    emag: f64,
    u: Option<&Float>,
    v: Option<&Float>,
) -> Result<Val> {
    let l = &llr_.c;
    let mut ranges: Vec<(Option<Float>, Option<Float>)> = Vec::new();
    let g = Factor::OneMinusExp {
        e: e.clone(),
        emag,
        l: l.to_vec(),
        mag: llr_.mag.clone(),
    };
    for w in above(l, e, ctx.prec) {
        // Intersect with [u, v].
        let lo = match (&w[0], u) {
            (Some(x), Some(u)) => Some(if x > u { x.clone() } else { u.clone() }),
            (Some(x), None) => Some(x.clone()),
            (None, u) => u.cloned(),
        };
        let hi = match (&w[1], v) {
            (Some(x), Some(v)) => Some(if x < v { x.clone() } else { v.clone() }),
            (Some(x), None) => Some(x.clone()),
            (None, v) => v.cloned(),
        };
        if let (Some(a), Some(b)) = (&lo, &hi) {
            if a >= b {
                continue;
            }
        }
        ranges.push((lo, hi));
    }
    integral_ranges(ctx, q1, &g, &ranges)
}

/// ∫_{R ∩ [a, b]} p1 with R = {LLR > e} (an upper bound helper for the truncated family).
pub(crate) fn hockey_mass(
    ctx: &Ctx,
    q1: &Quadratic,
    l: &[Float],
    e: &Float,
    a: &Float,
    b: &Float,
) -> Result<Float> {
    let p = ctx.prec;
    let mut total = Float::new(p);
    for w in above(l, e, p) {
        let lo = match &w[0] {
            Some(x) if x > a => x.clone(),
            _ => a.clone(),
        };
        let hi = match &w[1] {
            Some(x) if x < b => x.clone(),
            _ => b.clone(),
        };
        if lo >= hi {
            continue;
        }
        let q = integral(ctx, q1, &Factor::One, Some(&lo), Some(&hi), &[])?;
        let v = val_of(&q);
        total += v.v + Float::with_val(p, &v.e);
    }
    Ok(total)
}
