//! Building blocks of the normal distribution shared by the Gaussian-family models
//! ([`crate::mechanisms::gaussian`], [`crate::mechanisms::gaussian_dd`], [`crate::mechanisms::rgm`],
//! [`crate::mechanisms::rectified`], [`crate::mechanisms::truncated`], [`crate::mechanisms::sign`]): the log-space
//! closed-form pieces (Φ masses on the tail side, the S − 1 atom terms, Balle–Wang, the
//! unequal-variance profile in d = 1, HMB Lemma 2) and the quadrature pieces (the unclipped
//! log-densities of a clipped pair, the sign probabilities by MPFR `erfc`), and [`NormalPair`],
//! the view of an isotropic Gaussian pair in ℝ^d that the χ² profile route consumes.
//!
//! MPFR's exponent range makes e^4950 × 10^-2150 harmless, so the only enemy of the closed forms
//! is cancellation; the precision ladder of [`crate::numeric::mp::certify`] re-evaluates at higher
//! precision until two precisions agree, so a cancelling form costs time, never correctness.

use super::logquad::{
    add, combine_logs, hockey_region, int_times_llr, integral, llr, log_mass, log_ndtr_erfc,
    log_of, Ctx, Val, EP,
};
use crate::error::Result;
use crate::numeric::mp::{
    ln_mills_ratio, log1mexp, log_add_exp, log_ndtr, log_ndtr_diff, log_norm_pdf,
};
use crate::numeric::quad::{Factor, QuadResult, Quadratic};
use crate::scalar::Scalar;
use rug::Float;

pub(crate) fn fl(p: u32, s: &Scalar) -> Float {
    s.mp(p)
}

/// φ(x).
pub(crate) fn phi_pdf(x: &Float) -> Float {
    log_norm_pdf(x).exp()
}

/// Φ(v) − Φ(u) computed on the tail side (0 when v ≤ u).
pub(crate) fn phi_mass(u: &Float, v: &Float) -> Float {
    if u >= v {
        return Float::new(u.prec().max(v.prec()));
    }
    log_ndtr_diff(u, v).exp()
}

/// Correctly rounded sum of all terms (MPFR `mpfr_sum`): no term is ever absorbed by a larger
/// one that later cancels, which a precision ladder could not detect.
pub(crate) fn sum(p: u32, terms: &[&Float]) -> Float {
    Float::with_val(p, Float::sum(terms.iter().copied()))
}

/// e^{l}·expm1(r): a probability times expm1 of a log-ratio, the building block of the S − 1
/// forms (docs/formulas.md §1.2).
pub(crate) fn p1_times_expm1(l: &Float, r: &Float, p: u32) -> Float {
    Float::with_val(p, l.exp_ref()) * Float::with_val(p, r.exp_m1_ref())
}

pub(crate) fn infinite(p: u32) -> Float {
    Float::with_val(p, f64::INFINITY)
}

/// Standardised endpoints (a − μ)/σ, (b − μ)/σ.
pub(crate) fn ends(p: u32, mu: &Float, sigma: &Float, a: &Float, b: &Float) -> (Float, Float) {
    (
        Float::with_val(p, a - mu) / sigma,
        Float::with_val(p, b - mu) / sigma,
    )
}

/// ℓ(x) = log1p(x) − x.
///
/// The combination `d[α ℓ(u) − ℓ(αu)] / (2(α − 1))` of HMB eq. (13) (docs/formulas.md §4) is evaluated by
/// its power series when |αu| ≤ 1/2: Σ_{k≥2} (−1)^k α (1 + α + … + α^{k−2}) u^k / k, in which the
/// O(u) parts and the 1/(α−1) have cancelled analytically, so small η and α → 1 lose nothing.
pub(crate) fn lemma2_log_term(p: u32, alpha: &Float, u: &Float, d: u32) -> Float {
    let wp = p + 16;
    let au = Float::with_val(wp, alpha * u);
    let half = Float::with_val(wp, 0.5);
    if au.clone().abs() <= half && u.clone().abs() <= half {
        // geometric partial sums g_k = 1 + α + … + α^{k−2}
        let mut sum = Float::new(wp);
        let mut g = Float::with_val(wp, 1u32);
        let mut apow = Float::with_val(wp, alpha);
        let mut upow = Float::with_val(wp, u * u);
        let tol = Float::with_val(wp, Float::i_exp(1, -(wp as i32)));
        for k in 2u32..100_000 {
            let term = Float::with_val(wp, alpha * &g) * &upow / k;
            let signed = if k % 2 == 0 {
                term.clone()
            } else {
                -term.clone()
            };
            sum += &signed;
            if term.abs() <= Float::with_val(wp, sum.abs_ref()) * &tol {
                break;
            }
            g += &apow;
            apow *= alpha;
            upow *= u;
        }
        return Float::with_val(p, sum * d / 2u32);
    }
    let ell = |x: &Float| -> Float { Float::with_val(wp, x.ln_1p_ref()) - x };
    let num = Float::with_val(wp, alpha * ell(u)) - ell(&au);
    let den = Float::with_val(wp, alpha - 1u32) * 2u32;
    Float::with_val(p, num / den * d)
}

/// A rectified or truncated pair at precision `p`: locations, scale, support [a, b] and the
/// standardised ends of the support under P1 (a1, b1) and P2 (a2, b2).
pub(crate) struct ClipClosed {
    pub(crate) m1: Float,
    pub(crate) m2: Float,
    pub(crate) s: Float,
    pub(crate) a: Float,
    pub(crate) b: Float,
    pub(crate) a1: Float,
    pub(crate) b1: Float,
    pub(crate) a2: Float,
    pub(crate) b2: Float,
}

impl ClipClosed {
    /// The pair (μ1, μ2, σ, a, b) at `p` bits.
    pub(crate) fn new(parts: [&Scalar; 5], p: u32) -> ClipClosed {
        let [mu1, mu2, sigma, a, b] = parts;
        let (m1, m2, s, a, b) = (fl(p, mu1), fl(p, mu2), fl(p, sigma), fl(p, a), fl(p, b));
        let (a1, b1) = ends(p, &m1, &s, &a, &b);
        let (a2, b2) = ends(p, &m2, &s, &a, &b);
        ClipClosed {
            m1,
            m2,
            s,
            a,
            b,
            a1,
            b1,
            a2,
            b2,
        }
    }

    /// The order-α quantities both closed forms start from: α − 1, δ = μ1 − μ2 and the tilted
    /// location m = αμ1 + (1 − α)μ2 = μ2 + αδ (the closed-form side of `ClipQuad::tilted`).
    pub(crate) fn tilt(&self, alpha: &Float, p: u32) -> Tilt {
        let delta = Float::with_val(p, &self.m1 - &self.m2);
        let m = Float::with_val(p, alpha * &delta) + &self.m2;
        Tilt {
            am1: Float::with_val(p, alpha - 1u32),
            delta,
            m,
        }
    }
}

impl ClipClosed {
    /// log J, J = ∫_a^b N(x; μ1, σ²)^α N(x; μ2, σ²)^{1−α} dx, in log space for any α > 1
    /// (docs/formulas.md §9.10). The integrand is e^E·φ((x − m)/σ)/σ with E = α(α−1)δ²/(2σ²):
    /// * m inside [a, b]: log J = E + log(Φ((b − m)/σ) − Φ((a − m)/σ));
    /// * m outside, x⋆ the end nearer m, t and t_far the distances of the near and far end from
    ///   m in units of σ: log J = G(x⋆) + ln σ + ln R(t) + log1mexp(−w(t + t_far)/2 + ln R(t_far)
    ///   − ln R(t)), where G(x⋆) = ℓ1(x⋆) + (α − 1)(ℓ1(x⋆) − ℓ2(x⋆)) is the log-integrand at x⋆
    ///   (ℓ_i the log-densities), R the Mills ratio and w = (b − a)/σ.
    ///
    /// In the second form E and −t²/2 (each ≈ α²δ²/(2σ²): 10¹⁹⁹ at α = 10¹⁰⁰) have cancelled
    /// analytically, so every term is O(α) and nothing leaves the exponent range.
    pub(crate) fn log_tilted_mass(&self, alpha: &Float, p: u32) -> Float {
        let Tilt { am1, delta, m } = self.tilt(alpha, p);
        let s = &self.s;
        if m >= self.a && m <= self.b {
            let e = Float::with_val(p, alpha * &am1) * Float::with_val(p, delta.square_ref())
                / (Float::with_val(p, s.square_ref()) * 2u32);
            let (am, bm) = ends(p, &m, s, &self.a, &self.b);
            return Float::with_val(p, e + log_ndtr_diff(&am, &bm));
        }
        let (xs, t, t_far) = if m < self.a {
            (
                &self.a,
                Float::with_val(p, &self.a - &m) / s,
                Float::with_val(p, &self.b - &m) / s,
            )
        } else {
            (
                &self.b,
                Float::with_val(p, &m - &self.b) / s,
                Float::with_val(p, &m - &self.a) / s,
            )
        };
        // ℓ1(x⋆) and the log-likelihood ratio ℓ1(x⋆) − ℓ2(x⋆) = δ(2x⋆ − μ1 − μ2)/(2σ²).
        let z1 = Float::with_val(p, xs - &self.m1) / s;
        let l1 = Float::with_val(p, log_norm_pdf(&z1) - Float::with_val(p, s.ln_ref()));
        let mid = Float::with_val(p, xs * 2u32) - &self.m1 - &self.m2;
        let llr = Float::with_val(p, &delta * mid) / (Float::with_val(p, s.square_ref()) * 2u32);
        let g = Float::with_val(p, &am1 * llr) + l1;
        let w = Float::with_val(p, &self.b - &self.a) / s;
        let r = ln_mills_ratio(&t);
        let r_far = ln_mills_ratio(&t_far);
        let inner = -(Float::with_val(p, &t + &t_far) * w) / 2u32 + r_far - &r;
        sum(
            p,
            &[&g, &Float::with_val(p, s.ln_ref()), &r, &log1mexp(&inner)],
        )
    }
}

/// Orders above which the Rényi closed forms of the rectified, truncated and stochastic-sign pairs
/// switch from their S − 1 forms (which keep small divergences exact) to the log-space forms of
/// docs/formulas.md §9.10. Both are exact for every α; the S − 1 forms hold S = e^{(α−1)D}
/// itself, which leaves MPFR's exponent range once (α − 1)D ≳ 7·10⁸ (α = 10¹⁰, D = 0.48 gave +∞).
/// `closed_large_alpha_forms_agree_with_s_minus_1_forms` checks the two against each other.
pub(crate) const LARGE_ALPHA: u32 = 10_000;

/// Whether `alpha` takes the log-space forms (see [`LARGE_ALPHA`]).
pub(crate) fn large_alpha(alpha: &Float) -> bool {
    *alpha > LARGE_ALPHA
}

/// log(P1^α P2^{1−α}) = l1 + (α − 1)(l1 − l2) for an atom with log-masses l1, l2: an atom's
/// share of S in log space (`am1` = α − 1).
pub(crate) fn log_atom_term(l1: &Float, l2: &Float, am1: &Float, p: u32) -> Float {
    let d = Float::with_val(p, l1 - l2);
    Float::with_val(p, d * am1) + l1
}

/// log Σ e^{x_i} of finite or −∞ terms.
pub(crate) fn log_sum_exp(p: u32, terms: &[Float]) -> Float {
    let mut acc = Float::with_val(p, f64::NEG_INFINITY);
    for t in terms {
        acc = log_add_exp(&acc, t);
    }
    Float::with_val(p, acc)
}

/// See [`ClipClosed::tilt`].
pub(crate) struct Tilt {
    /// α − 1.
    pub(crate) am1: Float,
    /// δ = μ1 − μ2.
    pub(crate) delta: Float,
    /// m = μ2 + αδ.
    pub(crate) m: Float,
}

/// P1(atom)·expm1((α−1) log(P1(atom)/P2(atom))) for an atom of mass Φ(x1) under P1 and Φ(x2)
/// under P2: an atom's share of S − 1 (docs/formulas.md §1.2), with `am1` = α − 1.
pub(crate) fn atom_s_minus_1(x1: &Float, x2: &Float, am1: &Float, p: u32) -> Float {
    let l1 = log_ndtr(x1);
    let l2 = log_ndtr(x2);
    let r = Float::with_val(p, &l1 - &l2) * am1;
    p1_times_expm1(&l1, &r, p)
}

/// Standardised locations μ1/σ, μ2/σ of a stochastic-sign pair.
pub(crate) fn sign_ends(p: u32, mu1: &Scalar, mu2: &Scalar, sigma: &Scalar) -> (Float, Float) {
    let s = fl(p, sigma);
    let x1 = fl(p, mu1) / &s;
    let x2 = fl(p, mu2) / &s;
    (x1, x2)
}

/// Σ over the atoms +1 (y = x) and −1 (y = −x) of a stochastic-sign pair of `term(y1, y2)`.
pub(crate) fn over_signs(
    p: u32,
    mu1: &Scalar,
    mu2: &Scalar,
    sigma: &Scalar,
    term: impl Fn(&Float, &Float) -> Float,
) -> Float {
    let (x1, x2) = sign_ends(p, mu1, mu2, sigma);
    let mut total = Float::new(p);
    for sign in [1i32, -1] {
        let y1 = Float::with_val(p, &x1 * sign);
        let y2 = Float::with_val(p, &x2 * sign);
        total += term(&y1, &y2);
    }
    total
}

/// Variances and the variance ratio u = σ2²/σ1² − 1 of a Gaussian-type pair, with u formed from
/// the norms for RGM pairs (docs/formulas.md §4, "compute u from the norms").
pub struct Gauss {
    /// ‖μ1 − μ2‖.
    pub dist: Float,
    /// σ1².
    pub s1sq: Float,
    /// σ2².
    pub s2sq: Float,
    /// σ2²/σ1² − 1, formed without cancellation where the family allows it.
    pub u: Float,
    /// Dimension.
    pub d: u32,
}

/// HMB Lemma 2, eq. (13): D_α(N(μ1,σ1²I_d) ‖ N(μ2,σ2²I_d)) = αΔ²/(2σ_α²) + d/(α−1)·log(σ1^{1−α}σ2^α/σ_α),
/// σ_α² = ασ2² + (1−α)σ1² = σ1²(1 + αu); +∞ when σ_α² ≤ 0.
pub(crate) fn gauss_renyi(g: &Gauss, alpha: &Float, p: u32) -> Float {
    let one_plus = Float::with_val(p, alpha * &g.u) + 1u32;
    if one_plus <= 0 {
        return infinite(p);
    }
    let s_alpha = Float::with_val(p, &g.s1sq * &one_plus);
    let quad =
        Float::with_val(p, alpha * Float::with_val(p, g.dist.square_ref())) / (s_alpha * 2u32);
    quad + lemma2_log_term(p, alpha, &g.u, g.d)
}

/// KL(N(μ1,σ1²I_d) ‖ N(μ2,σ2²I_d)) = Δ²/(2σ2²) + (d/2)(r − 1 − log r), r = σ1²/σ2² (docs/formulas.md §4).
pub(crate) fn gauss_kl(g: &Gauss, p: u32) -> Float {
    let quad = Float::with_val(p, g.dist.square_ref()) / Float::with_val(p, &g.s2sq * 2u32);
    // r − 1 = −u/(1+u);  r − 1 − log r = v − log1p(v) with v = r − 1.
    let v = Float::with_val(p + 16, -&g.u) / Float::with_val(p + 16, &g.u + 1u32);
    let t = Float::with_val(p + 16, &v - Float::with_val(p + 16, v.ln_1p_ref()));
    quad + Float::with_val(p, t * g.d / 2u32)
}

/// P1 mass minus e^ε times P2 mass of a region, both given as logs: e^{l1} − e^{ε + l2}
/// = −e^{l1}·expm1(ε + l2 − l1). Masses ≈ 1 (far-tail atoms) keep their tiny complements
/// (docs/formulas.md §7.2, "atom with mass ≈ 1").
pub(crate) fn mass_diff(l1: &Float, l2: &Float, eps: &Float, p: u32) -> Float {
    let r = sum(p, &[eps, l2, &-l1.clone()]);
    -p1_times_expm1(l1, &r, p)
}

pub(crate) fn pos(x: Float) -> Float {
    if x.is_sign_negative() || x.is_nan() {
        Float::new(x.prec())
    } else {
        x
    }
}

/// Balle–Wang Thm 8 (docs/formulas.md §7.1) for ‖μ1 − μ2‖ = `dist`: the one implementation in
/// [`crate::bounds::gaussian::log_dp_delta_mp`] (log form, no e^ε), with μ = dist/σ.
pub(crate) fn balle_wang(dist: &Float, sigma: &Float, eps: &Float, p: u32) -> Float {
    if dist.is_zero() {
        return Float::new(p);
    }
    let mu = Float::with_val(p, dist / sigma);
    pos(crate::bounds::gaussian::log_dp_delta_mp(&mu, eps).exp())
}

/// Unequal-variance 1-D Gaussians (docs/formulas.md §7.3): L(t) = log(σ2/σ1) − t²/(2σ1²) + (t−Δ)²/(2σ2²),
/// P = N(0, σ1²), Q = N(Δ, σ2²); δ = Σ over intervals where L > ε of P-mass − e^ε Q-mass.
pub(crate) fn unequal_1d(dist: &Float, s1sq: &Float, s2sq: &Float, eps: &Float, p: u32) -> Float {
    let wp = p + 32;
    let s1 = Float::with_val(wp, s1sq.sqrt_ref());
    let s2 = Float::with_val(wp, s2sq.sqrt_ref());
    // L(t) − ε = A t² + B t + C.
    let inv1 = Float::with_val(wp, s1sq.recip_ref());
    let inv2 = Float::with_val(wp, s2sq.recip_ref());
    let qa = Float::with_val(wp, &inv2 - &inv1) / 2u32;
    let qb = -Float::with_val(wp, dist * &inv2);
    let qc = Float::with_val(wp, s2sq / s1sq).ln() / 2u32
        + Float::with_val(wp, dist.square_ref()) * &inv2 / 2u32
        - eps;
    // Intervals (lo, hi) where the quadratic is > 0.
    let neg_inf = Float::with_val(wp, f64::NEG_INFINITY);
    let pos_inf = Float::with_val(wp, f64::INFINITY);
    let mut regions: Vec<(Float, Float)> = Vec::new();
    if qa.is_zero() {
        // linear: B t + C > 0
        if qb.is_zero() {
            if qc > 0 {
                regions.push((neg_inf, pos_inf));
            }
        } else {
            let root = -Float::with_val(wp, &qc / &qb);
            if qb > 0 {
                regions.push((root, pos_inf));
            } else {
                regions.push((neg_inf, root));
            }
        }
    } else {
        let disc = Float::with_val(wp, qb.square_ref()) - Float::with_val(wp, &qa * &qc) * 4u32;
        if disc <= 0 {
            if qa > 0 {
                regions.push((neg_inf, pos_inf));
            }
        } else {
            let sq = disc.sqrt();
            // numerically stable roots
            let qq = if qb.is_sign_negative() {
                Float::with_val(wp, &sq - &qb) / 2u32
            } else {
                -Float::with_val(wp, &sq + &qb) / 2u32
            };
            let r1 = Float::with_val(wp, &qq / &qa);
            let r2 = Float::with_val(wp, &qc / &qq);
            let (lo, hi) = if r1 < r2 { (r1, r2) } else { (r2, r1) };
            if qa > 0 {
                regions.push((neg_inf, lo));
                regions.push((hi, pos_inf));
            } else {
                regions.push((lo, hi));
            }
        }
    }
    let mut total = Float::new(wp);
    for (lo, hi) in regions {
        let u1 = Float::with_val(wp, &lo / &s1);
        let v1 = Float::with_val(wp, &hi / &s1);
        let u2 = Float::with_val(wp, &lo - dist) / &s2;
        let v2 = Float::with_val(wp, &hi - dist) / &s2;
        total += mass_diff(&log_ndtr_diff(&u1, &v1), &log_ndtr_diff(&u2, &v2), eps, wp);
    }
    pos(Float::with_val(p, total))
}

/// The region of the interior where the (equal-variance) log-ratio exceeds `eps_eff`:
/// (a, min(b, x⋆)) if μ1 < μ2, (max(a, x⋆), b) if μ1 > μ2, empty if μ1 = μ2 and eps_eff ≥ 0
/// (docs/formulas.md §7.2). Returns None when empty.
pub(crate) fn interior_region(
    m1: &Float,
    m2: &Float,
    s: &Float,
    a: &Float,
    b: &Float,
    eps_eff: &Float,
    p: u32,
) -> Option<(Float, Float)> {
    let delta = Float::with_val(p, m1 - m2);
    if delta.is_zero() {
        return if eps_eff.is_sign_negative() && !eps_eff.is_zero() {
            Some((a.clone(), b.clone()))
        } else {
            None
        };
    }
    let xstar = Float::with_val(p, m1 + m2) / 2u32
        + Float::with_val(p, eps_eff * Float::with_val(p, s.square_ref())) / &delta;
    let (u, v) = if delta.is_sign_negative() {
        (a.clone(), if &xstar < b { xstar } else { b.clone() })
    } else {
        (if &xstar > a { xstar } else { a.clone() }, b.clone())
    };
    if v > u {
        Some((u, v))
    } else {
        None
    }
}

/// δ(ε) of a Gaussian-type pair at working precision `p`: Balle–Wang for equal variances, the
/// 1-D unequal-variance form in d = 1; none in d > 1 (docs/formulas.md §7.4).
pub(crate) fn gauss_hockey(g: &Gauss, eps: &Float, p: u32) -> Result<Float> {
    let equal = g.u.is_zero();
    if equal {
        let s = Float::with_val(p, g.s1sq.sqrt_ref());
        return Ok(balle_wang(&g.dist, &s, eps, p));
    }
    if g.d == 1 {
        return Ok(unequal_1d(&g.dist, &g.s1sq, &g.s2sq, eps, p));
    }
    Err(crate::error::Error::Unsupported(
        "hockey_stick_delta closed form: unequal-variance Gaussians in d > 1 have none \
         (docs/formulas.md §7.4); use --method quadrature"
            .into(),
    ))
}

// ------------------------------------------------------------------------------------------
// Quadrature pieces

/// A rectified or truncated pair at the context precision: locations, σ, the support [a, b] and
/// the log-densities q1, q2 of the unclipped normals N(μ_i, σ²).
pub(crate) struct ClipQuad {
    pub(crate) q1: Quadratic,
    pub(crate) q2: Quadratic,
    pub(crate) m: [Float; 2],
    pub(crate) s: Float,
    pub(crate) a: Float,
    pub(crate) b: Float,
}

impl ClipQuad {
    /// The pair (μ1, μ2, σ, a, b) at the context precision.
    pub(crate) fn of(ctx: &Ctx, parts: [&Scalar; 5]) -> ClipQuad {
        let p = ctx.prec;
        let [mu1, mu2, sigma, a, b] = parts;
        let s = ctx.f(sigma);
        let (m1, m2) = (ctx.f(mu1), ctx.f(mu2));
        let (a, b) = (ctx.f(a), ctx.f(b));
        let q1 = Quadratic::log_normal(&m1, &s, p);
        let q2 = Quadratic::log_normal(&m2, &s, p);
        let m = [m1, m2];
        ClipQuad { q1, q2, m, s, a, b }
    }

    /// The pair, the order α and the log-density α·q1 + (1 − α)·q2 of the Rényi integrand (the
    /// unclipped normals), at the context precision.
    pub(crate) fn tilted(
        ctx: &Ctx,
        parts: [&Scalar; 5],
        alpha: &Scalar,
    ) -> (ClipQuad, Orders, Quadratic) {
        let o = Orders::at(ctx, alpha);
        let c = ClipQuad::of(ctx, parts);
        let qa = Quadratic::combine(&o.al, &c.q1, &o.one_m, &c.q2, ctx.prec);
        (c, o, qa)
    }

    /// ∫_a^b e^q over the support.
    pub(crate) fn mass(&self, ctx: &Ctx, q: &Quadratic) -> Result<QuadResult> {
        integral(ctx, q, &Factor::One, Some(&self.a), Some(&self.b), &[])
    }

    /// `acc` plus `atom(log P1, log P2)` of the rectified family's atoms at a, then at b.
    pub(crate) fn add_atoms(
        &self,
        ctx: &Ctx,
        acc: Val,
        atom: impl Fn(&Val, &Val) -> Val,
    ) -> Result<Val> {
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
pub(crate) fn gauss_q(
    ctx: &Ctx,
    mu1: &Scalar,
    mu2: &Scalar,
    sigma: &Scalar,
) -> (Quadratic, Quadratic) {
    let p = ctx.prec;
    let s = ctx.f(sigma);
    let q1 = Quadratic::log_normal(&ctx.f(mu1), &s, p);
    let q2 = Quadratic::log_normal(&ctx.f(mu2), &s, p);
    (q1, q2)
}

/// [(log P1(+1), log P2(+1)), (log P1(−1), log P2(−1))] of a stochastic-sign pair:
/// P_i(+1) = Φ(μ_i/σ), P_i(−1) = Φ(−μ_i/σ).
pub(crate) fn sign_logs(ctx: &Ctx, mu1: &Scalar, mu2: &Scalar, sigma: &Scalar) -> [(Val, Val); 2] {
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

/// The Rényi order at the context precision: α, 1 − α and α − 1.
pub(crate) struct Orders {
    /// α.
    pub(crate) al: Float,
    /// 1 − α.
    pub(crate) one_m: Float,
    /// α − 1.
    pub(crate) am1: Float,
}

impl Orders {
    /// α, 1 − α, α − 1 at the precision of `ctx`.
    pub(crate) fn at(ctx: &Ctx, alpha: &Scalar) -> Orders {
        let p = ctx.prec;
        let al = ctx.f(alpha);
        let one_m = Float::with_val(p, 1u32) - &al;
        let am1 = Float::with_val(p, &al - 1u32);
        Orders { al, one_m, am1 }
    }
}

/// ∫ over {LLR > ε} ∩ support of p1·(1 − e^{ε − LLR}) for the log-densities q1, q2 (the whole
/// line when `support` is None).
pub(crate) fn region(
    ctx: &Ctx,
    q: (&Quadratic, &Quadratic),
    e: &Float,
    support: Option<(&Float, &Float)>,
) -> Result<Val> {
    let (u, v) = support.unzip();
    let l = llr(q.0, q.1, ctx.prec);
    hockey_region(ctx, q.0, &l, e, e.to_f64().abs(), u, v)
}

/// D_α of N(Δe₁, σ1² I_d) ‖ N(0, σ2² I_d) by the Fubini/rotation reduction of docs/formulas.md
/// §4: D = [log I(Δ) + (d−1) log I(0)]/(α−1); +∞ when σ_α² = ασ2² + (1−α)σ1² ≤ 0.
pub(crate) fn dd_renyi(ctx: &Ctx, sds: (Float, Float, Float, u32), alpha: &Scalar) -> Result<Val> {
    let p = ctx.prec;
    let Orders { al, one_m, am1 } = Orders::at(ctx, alpha);
    let (s1, s2, dist, d) = sds;
    let var_a =
        Float::with_val(p, s2.square_ref()) * &al + Float::with_val(p, s1.square_ref()) * &one_m;
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

/// KL of N(Δe₁, σ1² I_d) ‖ N(0, σ2² I_d): the 1-D KL along the mean difference plus (d−1) times
/// the KL of the centred marginals (additivity over independent coordinates).
pub(crate) fn dd_kl(ctx: &Ctx, sds: (Float, Float, Float, u32)) -> Result<Val> {
    let p = ctx.prec;
    let (s1, s2, dist, d) = sds;
    let zero = Float::new(p);
    let q2 = Quadratic::log_normal(&zero, &s2, p);
    let q1 = Quadratic::log_normal(&dist, &s1, p);
    let mut acc = int_times_llr(ctx, &q1, &q2, None)?;
    if d > 1 && s1 != s2 {
        let q10 = Quadratic::log_normal(&zero, &s1, p);
        let k0 = int_times_llr(ctx, &q10, &q2, None)?;
        let dm1 = Float::with_val(p, d - 1);
        acc = add(
            &acc,
            &Val {
                v: Float::with_val(p, &k0.v * &dm1),
                e: Float::with_val(EP, &k0.e * &dm1),
            },
            p,
        );
    }
    Ok(acc)
}

/// δ(ε) of N(Δ, σ1²) ‖ N(0, σ2²) (the d = 1 or equal-variance reduction of an isotropic pair).
pub(crate) fn dd_hockey(ctx: &Ctx, sds: (Float, Float, Float, u32), eps: &Scalar) -> Result<Val> {
    let p = ctx.prec;
    let (s1, s2, dist, _) = sds;
    let q1 = Quadratic::log_normal(&dist, &s1, p);
    let q2 = Quadratic::log_normal(&Float::new(p), &s2, p);
    region(ctx, (&q1, &q2), &ctx.f(eps), None)
}

/// Extra working digits for Gaussian pairs with near-equal variances, u = σ2²/σ1² − 1 (in
/// double precision): the combined quadratic's leading coefficient is a difference
/// 1/σ1² − 1/σ2² of relative size u, so the rounding of the variances is amplified by 1/|u|
/// (docs/formulas.md §9 recipe 6). The golden row `ext-ren-rgm-006` (u ≈ 2e-7) was certified 1.2
/// digits too optimistically without it.
pub(crate) fn variance_guard(u: f64) -> f64 {
    if u == 0.0 || !u.is_finite() {
        0.0
    } else {
        (-u.abs().log10()).max(0.0)
    }
}

/// σ1², σ2², σ1² − σ2² (formed without cancellation where the family allows it), ‖μ1 − μ2‖ and
/// the dimension of an isotropic Gaussian pair, at a given precision.
pub struct Variances {
    /// σ1².
    pub s1: Float,
    /// σ2².
    pub s2: Float,
    /// σ1² − σ2².
    pub diff: Float,
    /// ‖μ1 − μ2‖.
    pub dist: Float,
    /// Dimension.
    pub d: u32,
}

/// An isotropic Gaussian pair N(μ1, σ1² I_d) ‖ N(μ2, σ2² I_d) (the Gaussian, `gaussian_dd` and RGM
/// models): the parameters the closed forms of HMB Lemma 2 and the χ² profile route of
/// docs/formulas.md §7.4 consume, each formed as the family forms it best.
pub trait NormalPair {
    /// The closed-form parameters at `p` bits.
    fn gauss(&self, p: u32) -> Gauss;
    /// The variances at `hp` bits, for the χ² profile route (None for a family without one: the
    /// one-dimensional Gaussian's profile is Balle–Wang's closed form).
    fn variances(&self, _hp: u32) -> Option<Variances> {
        None
    }
    /// Whether δ(ε) needs the χ² profile route (d > 1 and unequal variances).
    fn needs_profile(&self) -> bool {
        false
    }
}

/// The squared score of N(μ, σ²) about μ, ((x − μ)/σ²)², as a polynomial factor in x.
pub(crate) fn score2(ctx: &Ctx, mu: &Float, s: &Float) -> Factor {
    let p = ctx.prec;
    let s4 = Float::with_val(p, s.square_ref()).square();
    Factor::poly(vec![
        Float::with_val(p, mu.square_ref()) / &s4,
        Float::with_val(p, mu * -2i32) / &s4,
        Float::with_val(p, s4.recip_ref()),
    ])
}

/// An isotropic Gaussian pair in ℝ^d as its own quadrature sees it: (σ1, σ2, ‖μ1 − μ2‖, d) at the
/// context precision and u = σ2²/σ1² − 1 in double precision (for the guard digits).
pub(crate) trait Isotropic: Send + Sync {
    /// (σ1, σ2, Δ, d) at the context precision.
    fn sds(&self, ctx: &Ctx) -> (Float, Float, Float, u32);
    /// σ2²/σ1² − 1 in double precision.
    fn ratio_minus_one(&self) -> f64;
}

impl<T: Isotropic> crate::model::OwnIntegrals for T {
    fn guard(&self) -> f64 {
        variance_guard(self.ratio_minus_one())
    }
    fn renyi(&self, ctx: &Ctx, alpha: &Scalar) -> Result<Val> {
        dd_renyi(ctx, self.sds(ctx), alpha)
    }
    fn kl(&self, ctx: &Ctx) -> Result<Val> {
        dd_kl(ctx, self.sds(ctx))
    }
    fn hockey(&self, ctx: &Ctx, eps: &Scalar) -> Result<Val> {
        dd_hockey(ctx, self.sds(ctx), eps)
    }
}

mod params;
pub(crate) use params::{clipped_family, shift_family, Clipped, ClippedLaw, Law, Shift};
