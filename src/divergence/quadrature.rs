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
//! **Certification.** Every integral comes with an absolute error bound; the bounds are propagated
//! through the final formula by first-order bounds with a 2 % margin (the perturbations are below
//! 10^-(digits) so second-order terms are negligible), rounding of the formula itself is covered
//! by a 2^-(prec−8) relative term. The value is certified to `digits` if the propagated bound is
//! below 10^-digits relative; otherwise the integrals are redone with more digits, the increase
//! being the observed deficit (cancellation: α → 1, D ≪ 1, far tails, d = 1000), at most four times
//! before [`Error::Precision`].
//!
//! **Conventions.** D_α is +∞ when σ_α² = ασ2² + (1−α)σ1² ≤ 0 (GaussianDd, Rgm): returned as a
//! `Certified` with value +∞ (docs/formulas.md §4), not an error. Identical distributions give an exact 0.
//! The hockey-stick divergence of d-dimensional Gaussians with σ1 ≠ σ2 and d > 1 needs χ²
//! distribution functions (docs/formulas.md §7.4): delegated to [`super::profile_dd`].

use super::{check_alpha, Location, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::{bits_for_digits, Certified};
use crate::numeric::quad::{self, Factor, QuadOptions, QuadResult, Quadratic};
use crate::scalar::Scalar;
use rug::Float;

/// Precision of error-bound arithmetic.
const EP: u32 = 64;

/// A value with an absolute error bound.
#[derive(Clone, Debug)]
struct Val {
    v: Float,
    e: Float,
}

impl Val {
    fn exact(v: Float) -> Self {
        Val {
            v,
            e: Float::new(EP),
        }
    }
}

/// Working context: precision and the digits each integral must reach.
struct Ctx {
    prec: u32,
    digits: f64,
}

impl Ctx {
    fn new(target: f64) -> Self {
        let prec = bits_for_digits(target.ceil() as u32) + 16;
        Ctx {
            prec,
            digits: target,
        }
    }

    fn opts(&self) -> QuadOptions {
        QuadOptions::new(self.prec, self.digits)
    }

    fn f(&self, s: &Scalar) -> Float {
        s.mp(self.prec)
    }

    /// Relative rounding unit with margin for the final formula.
    fn ulp(&self) -> Float {
        Float::with_val(EP, Float::i_exp(1, -(self.prec as i32) + 8))
    }
}

/// e^x as a low-precision error value (x is a natural log, may be −∞).
fn err_exp(x: f64) -> Float {
    Float::with_val(EP, x).exp()
}

/// The integral as a signed value with absolute error.
fn val_of(q: &QuadResult) -> Val {
    Val {
        v: q.value(),
        e: err_exp(q.log_abs_err) * 1.02f64,
    }
}

/// log of a positive integral with the absolute error of the log: −ln(1 − rel).
fn log_of(q: &QuadResult) -> Result<Val> {
    let rel = err_exp(q.log_abs_err - q.log_abs.to_f64());
    if rel >= 0.5 || q.log_abs.is_infinite() {
        return Err(Error::Precision {
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
fn certified<F>(digits: u32, what: &str, f: F) -> Result<Certified>
where
    F: FnMut(&Ctx) -> Result<Val>,
{
    certified_guard(digits, 0.0, what, f)
}

/// [`certified`] with `guard` extra digits in the first attempt (known cancellation).
fn certified_guard<F>(digits: u32, guard: f64, what: &str, mut f: F) -> Result<Certified>
where
    F: FnMut(&Ctx) -> Result<Val>,
{
    let mut target = f64::from(digits) + 2.0 + guard;
    let mut best = 0.0f64;
    for _ in 0..4 {
        let ctx = Ctx::new(target);
        let r = match f(&ctx) {
            Ok(r) => r,
            Err(Error::Precision { .. }) => {
                if let Some(limit) = crate::numeric::deadline::expired() {
                    return Err(Error::Precision {
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
        if r.v.is_infinite() || r.e.is_zero() {
            return Ok(Certified { value: r.v, digits });
        }
        if r.v.is_zero() {
            // Zero with a non-zero error bound: no relative digits.
            break;
        }
        let rel = Float::with_val(EP, &r.e / r.v.clone().abs());
        let got = -rel.log10().to_f64();
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
        requested: digits,
        certified: best.max(0.0).floor() as u32,
        what: what.to_string(),
    })
}

fn same(a: &Scalar, b: &Scalar) -> bool {
    a.mp(2048) == b.mp(2048)
}

// ------------------------------------------------------------------------------------------
// Building blocks

/// ∫_u^v exp(q)·g (None = infinite end).
fn integral(
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
fn integral_ranges(
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
fn log_mass(ctx: &Ctx, mu: &Float, sigma: &Float, x: &Float, lower: bool) -> Result<Val> {
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
fn log_ndtr_erfc(ctx: &Ctx, x: &Float) -> Val {
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
fn atom_renyi(ctx: &Ctx, alpha: &Float, l1: &Val, l2: &Val) -> Val {
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

/// The atom term of KL: P1·(l1 − l2).
fn atom_kl(ctx: &Ctx, l1: &Val, l2: &Val) -> Val {
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
fn atom_hockey(ctx: &Ctx, eps: &Float, l1: &Val, l2: &Val) -> Val {
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
fn positive_part(ctx: &Ctx, x: Val) -> Val {
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

fn add(a: &Val, b: &Val, prec: u32) -> Val {
    Val {
        v: Float::with_val(prec, &a.v + &b.v),
        e: Float::with_val(EP, &a.e + &b.e),
    }
}

/// LLR(x) = log p1(x) − log p2(x) as polynomial coefficients (c0, c1, c2), with the magnitudes
/// of the terms that formed them (near-equal variances cancel in every coefficient).
struct Llr {
    c: Vec<Float>,
    mag: Vec<f64>,
}

fn llr(q1: &Quadratic, q2: &Quadratic, prec: u32) -> Llr {
    Llr {
        c: (0..3)
            .map(|i| Float::with_val(prec, &q1.c[i] - &q2.c[i]))
            .collect(),
        mag: (0..3).map(|i| q1.mag[i] + q2.mag[i]).collect(),
    }
}

/// Real roots of c0 + c1 x + c2 x² = e, sorted (numerically stable formula).
fn roots(c: &[Float], e: &Float, prec: u32) -> Vec<Float> {
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
fn int_times_llr(
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
fn combine_logs(parts: &[(Float, Val)], div: &Float, prec: u32) -> Val {
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

/// (σ1, σ2, Δ) of GaussianDd / Rgm at the context precision.
fn dd_params(ctx: &Ctx, pair: &Pair) -> Option<(Float, Float, Float, u32)> {
    let p = ctx.prec;
    match pair {
        Pair::GaussianDd {
            dist,
            sigma1,
            sigma2,
            d,
        } => Some((ctx.f(sigma1), ctx.f(sigma2), ctx.f(dist), *d)),
        Pair::Rgm { .. } => {
            let (d, [gamma, sigma2, n1, n2, dist]) = pair.rgm_parts()?;
            let g = ctx.f(gamma);
            let s2 = ctx.f(sigma2);
            let v1 = Float::with_val(p, ctx.f(n1).square_ref()) * &g + &s2;
            let v2 = Float::with_val(p, ctx.f(n2).square_ref()) * &g + &s2;
            Some((v1.sqrt(), v2.sqrt(), ctx.f(dist), d))
        }
        _ => None,
    }
}

fn identical(pair: &Pair) -> bool {
    match pair {
        Pair::Model(m) => m.0.identical(),
        Pair::Gaussian { mu1, mu2, .. }
        | Pair::Rectified { mu1, mu2, .. }
        | Pair::Truncated { mu1, mu2, .. }
        | Pair::StochasticSign { mu1, mu2, .. } => same(mu1, mu2),
        Pair::GaussianDd {
            dist,
            sigma1,
            sigma2,
            ..
        } => dist.f64() == 0.0 && same(sigma1, sigma2),
        Pair::Rgm { n1, n2, dist, .. } => dist.f64() == 0.0 && same(n1, n2),
    }
}

/// An exact zero certified to `digits` (every divergence of a pair with P1 = P2).
fn zero(digits: u32) -> Certified {
    Certified {
        value: Float::new(bits_for_digits(digits)),
        digits,
    }
}

/// A rectified or truncated pair at the context precision: locations, σ, the support [a, b] and
/// the log-densities q1, q2 of the unclipped normals N(μ_i, σ²).
struct Clip {
    q1: Quadratic,
    q2: Quadratic,
    m: [Float; 2],
    s: Float,
    a: Float,
    b: Float,
}

impl Clip {
    fn of(ctx: &Ctx, pair: &Pair) -> Clip {
        let p = ctx.prec;
        let [mu1, mu2, sigma, a, b] = pair.clip_parts().expect("a rectified or truncated pair");
        let s = ctx.f(sigma);
        let (m1, m2) = (ctx.f(mu1), ctx.f(mu2));
        let (a, b) = (ctx.f(a), ctx.f(b));
        let q1 = Quadratic::log_normal(&m1, &s, p);
        let q2 = Quadratic::log_normal(&m2, &s, p);
        let m = [m1, m2];
        Clip { q1, q2, m, s, a, b }
    }

    /// ∫_a^b e^q over the support.
    fn mass(&self, ctx: &Ctx, q: &Quadratic) -> Result<QuadResult> {
        integral(ctx, q, &Factor::One, Some(&self.a), Some(&self.b), &[])
    }

    /// `acc` plus `atom(log P1, log P2)` of the rectified family's atoms at a, then at b.
    fn add_atoms(&self, ctx: &Ctx, acc: Val, atom: impl Fn(&Val, &Val) -> Val) -> Result<Val> {
        let p = ctx.prec;
        let [m1, m2] = &self.m;
        let l1a = log_mass(ctx, m1, &self.s, &self.a, true)?;
        let l2a = log_mass(ctx, m2, &self.s, &self.a, true)?;
        let l1b = log_mass(ctx, m1, &self.s, &self.b, false)?;
        let l2b = log_mass(ctx, m2, &self.s, &self.b, false)?;
        let acc = add(&acc, &atom(&l1a, &l2a), p);
        Ok(add(&acc, &atom(&l1b, &l2b), p))
    }
}

/// The log-densities of N(μ1, σ²) and N(μ2, σ²).
fn gauss_q(ctx: &Ctx, mu1: &Scalar, mu2: &Scalar, sigma: &Scalar) -> (Quadratic, Quadratic) {
    let p = ctx.prec;
    let s = ctx.f(sigma);
    let q1 = Quadratic::log_normal(&ctx.f(mu1), &s, p);
    let q2 = Quadratic::log_normal(&ctx.f(mu2), &s, p);
    (q1, q2)
}

/// [(log P1(+1), log P2(+1)), (log P1(−1), log P2(−1))] of a stochastic-sign pair:
/// P_i(+1) = Φ(μ_i/σ), P_i(−1) = Φ(−μ_i/σ).
fn sign_logs(ctx: &Ctx, mu1: &Scalar, mu2: &Scalar, sigma: &Scalar) -> [(Val, Val); 2] {
    let p = ctx.prec;
    let s = ctx.f(sigma);
    let x1 = Float::with_val(p, ctx.f(mu1) / &s);
    let x2 = Float::with_val(p, ctx.f(mu2) / &s);
    let (n1, n2) = (Float::with_val(p, -&x1), Float::with_val(p, -&x2));
    [
        (log_ndtr_erfc(ctx, &x1), log_ndtr_erfc(ctx, &x2)),
        (log_ndtr_erfc(ctx, &n1), log_ndtr_erfc(ctx, &n2)),
    ]
}

// ------------------------------------------------------------------------------------------
// Rényi

/// Rényi divergence D_α(P1 ‖ P2) = log(∫ p1^α p2^{1−α})/(α − 1) by quadrature, certified to
/// `digits` (docs/formulas.md §0.1; GaussianDd and Rgm by the Fubini/rotation reduction of docs/formulas.md §4:
/// D = [log I(Δ) + (d−1) log I(0)]/(α−1)). +∞ (as a value) when σ_α² ≤ 0.
pub fn renyi(pair: &Pair, alpha: &Scalar, digits: u32) -> Result<Certified> {
    check_alpha(alpha)?;
    if let Pair::Model(m) = pair {
        return model::renyi(m, alpha, digits);
    }
    if identical(pair) {
        return Ok(zero(digits));
    }
    let what = format!("quadrature Rényi divergence (alpha = {alpha}) of {pair}");
    // The integrals' errors are divided by α − 1: start with log10(1/(α−1)) more digits.
    let guard = (-(alpha.f64() - 1.0).log10()).max(0.0) + variance_guard(pair);
    certified_guard(digits, guard, &what, |ctx| renyi_at(ctx, pair, alpha))
}

fn renyi_at(ctx: &Ctx, pair: &Pair, alpha: &Scalar) -> Result<Val> {
    let p = ctx.prec;
    let al = ctx.f(alpha);
    let one_m = Float::with_val(p, 1u32) - &al;
    let am1 = Float::with_val(p, &al - 1u32);
    match pair {
        Pair::Model(_) => Err(model::generic_only()),
        Pair::Gaussian { mu1, mu2, sigma } => {
            let (q1, q2) = gauss_q(ctx, mu1, mu2, sigma);
            let qa = Quadratic::combine(&al, &q1, &one_m, &q2, p);
            let j = log_of(&integral(ctx, &qa, &Factor::One, None, None, &[])?)?;
            Ok(combine_logs(&[(Float::with_val(p, 1u32), j)], &am1, p))
        }
        Pair::GaussianDd { .. } | Pair::Rgm { .. } => {
            let (s1, s2, dist, d) = dd_params(ctx, pair).unwrap();
            let var_a = Float::with_val(p, s2.square_ref()) * &al
                + Float::with_val(p, s1.square_ref()) * &one_m;
            if var_a <= 0 {
                return Ok(Val::exact(Float::with_val(p, f64::INFINITY)));
            }
            let zero = Float::new(p);
            let q2 = Quadratic::log_normal(&zero, &s2, p);
            let i_c = |c: &Float| -> Result<Val> {
                let q1 = Quadratic::log_normal(c, &s1, p);
                let qa = Quadratic::combine(&al, &q1, &one_m, &q2, p);
                log_of(&integral(ctx, &qa, &Factor::One, None, None, &[])?)
            };
            let mut parts = vec![(Float::with_val(p, 1u32), i_c(&dist)?)];
            if d > 1 {
                parts.push((Float::with_val(p, d - 1), i_c(&zero)?));
            }
            Ok(combine_logs(&parts, &am1, p))
        }
        Pair::Truncated { .. } => {
            let c = Clip::of(ctx, pair);
            let qa = Quadratic::combine(&al, &c.q1, &one_m, &c.q2, p);
            let j = log_of(&c.mass(ctx, &qa)?)?;
            let z1 = log_of(&c.mass(ctx, &c.q1)?)?;
            let z2 = log_of(&c.mass(ctx, &c.q2)?)?;
            // D = [log J − α log Z1 + (α−1) log Z2]/(α−1)  (normalised densities p_i/Z_i).
            Ok(combine_logs(
                &[
                    (Float::with_val(p, 1u32), j),
                    (Float::with_val(p, -&al), z1),
                    (am1.clone(), z2),
                ],
                &am1,
                p,
            ))
        }
        Pair::Rectified { .. } => {
            let c = Clip::of(ctx, pair);
            let qa = Quadratic::combine(&al, &c.q1, &one_m, &c.q2, p);
            let j = val_of(&c.mass(ctx, &qa)?);
            let z1 = val_of(&c.mass(ctx, &c.q1)?);
            // S − 1 = (J − Z1) + Σ_atoms P1·expm1((α−1) log(P1/P2))   (docs/formulas.md §1.2)
            let sm1 = Val {
                v: Float::with_val(p, &j.v - &z1.v),
                e: Float::with_val(EP, &j.e + &z1.e),
            };
            let sm1 = c.add_atoms(ctx, sm1, |l1, l2| atom_renyi(ctx, &al, l1, l2))?;
            Ok(log1p_over(ctx, &sm1, &am1))
        }
        Pair::StochasticSign { mu1, mu2, sigma } => {
            let [(lp1, lp2), (lm1, lm2)] = sign_logs(ctx, mu1, mu2, sigma);
            let sm1 = add(
                &atom_renyi(ctx, &al, &lp1, &lp2),
                &atom_renyi(ctx, &al, &lm1, &lm2),
                p,
            );
            Ok(log1p_over(ctx, &sm1, &am1))
        }
    }
}

/// log1p(x)/k with the error of x propagated (|d log1p/dx| = 1/(1+x)).
fn log1p_over(ctx: &Ctx, x: &Val, k: &Float) -> Val {
    let p = ctx.prec;
    let mut l = Float::with_val(p, &x.v);
    l.ln_1p_mut();
    let one_p = Float::with_val(EP, 1u32) + Float::with_val(EP, &x.v) - &x.e;
    let ke = Float::with_val(EP, k.abs_ref());
    let e = Float::with_val(EP, &x.e / &one_p) / &ke * 1.02f64
        + Float::with_val(EP, l.abs_ref()) / &ke * ctx.ulp();
    Val { v: l / k, e }
}

mod model;

mod fisher;
pub use fisher::*;

mod hockey;
pub use hockey::*;

mod kl;
pub use kl::*;

#[cfg(test)]
mod tests;
