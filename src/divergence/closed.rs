//! The closed-form route: every divergence of docs/formulas.md evaluated in `rug::Float` on the precision
//! ladder of [`crate::numeric::mp::certify`].
//!
//! MPFR's exponent range makes e^4950 × 10^-2150 harmless, so the only enemy left is
//! cancellation; the ladder re-evaluates at higher precision until two precisions agree to the
//! requested digits, so a cancelling form costs time, never correctness.
//!
//! | quantity | family | source |
//! |---|---|---|
//! | D_α, KL, δ(ε), Fisher | Gaussian | Mironov 2017 Prop. 7; Balle & Wang 2018 Thm 8 (docs/formulas.md §7.1) |
//! | D_α, KL | isotropic Gaussians, RGM pairs | HMB Lemma 2, eq. (13), stable ℓ-form (docs/formulas.md §4) |
//! | δ(ε) | unequal variances, d = 1 | docs/formulas.md §7.3 |
//! | D_α, KL, Fisher, δ(ε) | rectified | HG Lemma 4.4 eq. (5), Lemma 4.1 eq. (4) (docs/formulas.md §1, §7.2) |
//! | D_α, KL, Fisher, δ(ε) | truncated | HG Lemma 4.7 eq. (6), Lemma 4.1 eq. (3) (docs/formulas.md §2, §7.2) |
//! | D_α, KL, Fisher, δ(ε) | stochastic sign | HG §4.1 (docs/formulas.md §3, §7.2) |

use super::{check_alpha, Location, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::{certify, log_ndtr, log_ndtr_diff, log_norm_pdf, Certified};
use crate::scalar::Scalar;
use rug::Float;

fn fl(p: u32, s: &Scalar) -> Float {
    s.mp(p)
}

/// φ(x).
fn phi_pdf(x: &Float) -> Float {
    log_norm_pdf(x).exp()
}

/// Φ(v) − Φ(u) computed on the tail side (0 when v ≤ u).
fn phi_mass(u: &Float, v: &Float) -> Float {
    if u >= v {
        return Float::new(u.prec().max(v.prec()));
    }
    log_ndtr_diff(u, v).exp()
}

/// Correctly rounded sum of all terms (MPFR `mpfr_sum`): no term is ever absorbed by a larger
/// one that later cancels, which a precision ladder could not detect.
fn sum(p: u32, terms: &[&Float]) -> Float {
    Float::with_val(p, Float::sum(terms.iter().copied()))
}

/// e^{l}·expm1(r): a probability times expm1 of a log-ratio, the building block of the S − 1
/// forms (docs/formulas.md §1.2).
fn p1_times_expm1(l: &Float, r: &Float, p: u32) -> Float {
    Float::with_val(p, l.exp_ref()) * Float::with_val(p, r.exp_m1_ref())
}

fn infinite(p: u32) -> Float {
    Float::with_val(p, f64::INFINITY)
}

/// Standardised endpoints (a − μ)/σ, (b − μ)/σ.
fn ends(p: u32, mu: &Float, sigma: &Float, a: &Float, b: &Float) -> (Float, Float) {
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
fn lemma2_log_term(p: u32, alpha: &Float, u: &Float, d: u32) -> Float {
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
struct Clip {
    m1: Float,
    m2: Float,
    s: Float,
    a: Float,
    b: Float,
    a1: Float,
    b1: Float,
    a2: Float,
    b2: Float,
}

fn clip(pair: &Pair, p: u32) -> Clip {
    let [mu1, mu2, sigma, a, b] = pair.clip_parts().expect("a rectified or truncated pair");
    let (m1, m2, s, a, b) = (fl(p, mu1), fl(p, mu2), fl(p, sigma), fl(p, a), fl(p, b));
    let (a1, b1) = ends(p, &m1, &s, &a, &b);
    let (a2, b2) = ends(p, &m2, &s, &a, &b);
    Clip {
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

/// P1(atom)·expm1((α−1) log(P1(atom)/P2(atom))) for an atom of mass Φ(x1) under P1 and Φ(x2)
/// under P2: an atom's share of S − 1 (docs/formulas.md §1.2), with `am1` = α − 1.
fn atom_s_minus_1(x1: &Float, x2: &Float, am1: &Float, p: u32) -> Float {
    let l1 = log_ndtr(x1);
    let l2 = log_ndtr(x2);
    let r = Float::with_val(p, &l1 - &l2) * am1;
    p1_times_expm1(&l1, &r, p)
}

/// Standardised locations μ1/σ, μ2/σ of a stochastic-sign pair.
fn sign_ends(p: u32, mu1: &Scalar, mu2: &Scalar, sigma: &Scalar) -> (Float, Float) {
    let s = fl(p, sigma);
    let x1 = fl(p, mu1) / &s;
    let x2 = fl(p, mu2) / &s;
    (x1, x2)
}

/// Σ over the atoms +1 (y = x) and −1 (y = −x) of a stochastic-sign pair of `term(y1, y2)`.
fn over_signs(
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
struct Gauss {
    dist: Float,
    s1sq: Float,
    s2sq: Float,
    u: Float,
    d: u32,
}

fn gauss_of(pair: &Pair, p: u32) -> Option<Gauss> {
    match pair {
        Pair::Gaussian { mu1, mu2, sigma } => {
            let s = fl(p, sigma);
            Some(Gauss {
                dist: Float::with_val(p, fl(p, mu1) - fl(p, mu2)).abs(),
                s1sq: Float::with_val(p, s.square_ref()),
                s2sq: Float::with_val(p, s.square_ref()),
                u: Float::new(p),
                d: 1,
            })
        }
        Pair::GaussianDd {
            dist,
            sigma1,
            sigma2,
            d,
        } => {
            let s1 = Float::with_val(p, fl(p, sigma1).square_ref());
            let s2 = Float::with_val(p, fl(p, sigma2).square_ref());
            let u = Float::with_val(p, &s2 - &s1) / &s1;
            Some(Gauss {
                dist: fl(p, dist),
                s1sq: s1,
                s2sq: s2,
                u,
                d: *d,
            })
        }
        Pair::Rgm { .. } => {
            let (d, [gamma, sigma2, n1, n2, dist]) = pair.rgm_parts()?;
            let g = fl(p, gamma);
            let (a, b) = (fl(p, n1), fl(p, n2));
            let base = fl(p, sigma2);
            let s1 = Float::with_val(p, &g * Float::with_val(p, a.square_ref())) + &base;
            let s2 = Float::with_val(p, &g * Float::with_val(p, b.square_ref())) + &base;
            // u = γ (n2 − n1)(n2 + n1) / σ1²: no cancellation between the two variances.
            let u = Float::with_val(p, &b - &a) * Float::with_val(p, &b + &a) * &g / &s1;
            Some(Gauss {
                dist: fl(p, dist),
                s1sq: s1,
                s2sq: s2,
                u,
                d,
            })
        }
        _ => None,
    }
}

/// HMB Lemma 2, eq. (13): D_α(N(μ1,σ1²I_d) ‖ N(μ2,σ2²I_d)) = αΔ²/(2σ_α²) + d/(α−1)·log(σ1^{1−α}σ2^α/σ_α),
/// σ_α² = ασ2² + (1−α)σ1² = σ1²(1 + αu); +∞ when σ_α² ≤ 0.
fn gauss_renyi(g: &Gauss, alpha: &Float, p: u32) -> Float {
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
fn gauss_kl(g: &Gauss, p: u32) -> Float {
    let quad = Float::with_val(p, g.dist.square_ref()) / Float::with_val(p, &g.s2sq * 2u32);
    // r − 1 = −u/(1+u);  r − 1 − log r = v − log1p(v) with v = r − 1.
    let v = Float::with_val(p + 16, -&g.u) / Float::with_val(p + 16, &g.u + 1u32);
    let t = Float::with_val(p + 16, &v - Float::with_val(p + 16, v.ln_1p_ref()));
    quad + Float::with_val(p, t * g.d / 2u32)
}

/// Rényi divergence D_α(P1 ‖ P2) by its closed form, certified to `digits`.
pub fn renyi(pair: &Pair, alpha: &Scalar, digits: u32) -> Result<Certified> {
    check_alpha(alpha)?;
    certify(digits, "renyi (closed form)", |p| renyi_at(pair, alpha, p))
}

/// D_α at working precision `p` (uncertified; see [`renyi`]).
pub fn renyi_at(pair: &Pair, alpha: &Scalar, p: u32) -> Result<Float> {
    let al = fl(p, alpha);
    if let Pair::Model(m) = pair {
        return m.0.renyi_at(&al, p);
    }
    let am1 = Float::with_val(p, &al - 1u32);
    if let Some(g) = gauss_of(pair, p) {
        return Ok(gauss_renyi(&g, &al, p));
    }
    match pair {
        Pair::Rectified { .. } => {
            let c = clip(pair, p);
            // HG Lemma 4.4, eq. (5) (docs/formulas.md §1.2) in its S − 1 form: the P1-masses sum to one, so
            // S − 1 = [e^E Z(m) − Z(μ1)] + Σ_atoms P1(atom)·expm1((α−1) log(P1(atom)/P2(atom))),
            // E = α(α−1)δ²/(2σ²). Nothing is ever added to 1, so no term is absorbed.
            let delta = Float::with_val(p, &c.m1 - &c.m2);
            let m = Float::with_val(p, &al * &delta) + &c.m2;
            let (am, bm) = ends(p, &m, &c.s, &c.a, &c.b);
            let expo = Float::with_val(p, &al * &am1) * Float::with_val(p, delta.square_ref())
                / (Float::with_val(p, c.s.square_ref()) * 2u32);
            let lz1 = log_ndtr_diff(&c.a1, &c.b1);
            let interior = p1_times_expm1(
                &lz1,
                &sum(p, &[&expo, &log_ndtr_diff(&am, &bm), &-lz1.clone()]),
                p,
            );
            let atom_a = atom_s_minus_1(&c.a1, &c.a2, &am1, p);
            let atom_b = atom_s_minus_1(
                &Float::with_val(p, -&c.b1),
                &Float::with_val(p, -&c.b2),
                &am1,
                p,
            );
            let s_minus_1 = sum(p, &[&interior, &atom_a, &atom_b]);
            Ok(s_minus_1.ln_1p() / am1)
        }
        Pair::Truncated { .. } => {
            let c = clip(pair, p);
            // HG Lemma 4.7, eq. (6) (docs/formulas.md §2.2): αδ²/(2σ²) + (L(m) − αL(μ1))/(α−1) + L(μ2).
            let delta = Float::with_val(p, &c.m1 - &c.m2);
            let m = Float::with_val(p, &al * &delta) + &c.m2;
            let lz = |mu: &Float| {
                let (u, v) = ends(p, mu, &c.s, &c.a, &c.b);
                log_ndtr_diff(&u, &v)
            };
            let first = Float::with_val(p, &al * Float::with_val(p, delta.square_ref()))
                / (Float::with_val(p, c.s.square_ref()) * 2u32);
            // (L(m) − αL(μ1))/(α−1) = (L(m) − L(μ1))/(α−1) − L(μ1)
            let l1 = lz(&c.m1);
            let mid = Float::with_val(p, lz(&m) - &l1) / &am1;
            Ok(sum(p, &[&first, &mid, &-l1, &lz(&c.m2)]))
        }
        Pair::StochasticSign { mu1, mu2, sigma } => {
            // HG §4.1 / docs/formulas.md §3, in the S − 1 form of §1.2 (Φ(x) + Φ(−x) = 1).
            let (x1, x2) = sign_ends(p, mu1, mu2, sigma);
            let plus = atom_s_minus_1(&x1, &x2, &am1, p);
            let minus = atom_s_minus_1(
                &Float::with_val(p, -&x1),
                &Float::with_val(p, -&x2),
                &am1,
                p,
            );
            Ok(sum(p, &[&plus, &minus]).ln_1p() / am1)
        }
        _ => unreachable!("Gaussian-type pairs handled above"),
    }
}

/// KL(P1 ‖ P2) by its closed form, certified to `digits`.
pub fn kl(pair: &Pair, digits: u32) -> Result<Certified> {
    certify(digits, "kl (closed form)", |p| kl_at(pair, p))
}

/// KL at working precision `p`.
pub fn kl_at(pair: &Pair, p: u32) -> Result<Float> {
    if let Pair::Model(m) = pair {
        return m.0.kl_at(p);
    }
    if let Some(g) = gauss_of(pair, p) {
        return Ok(gauss_kl(&g, p));
    }
    match pair {
        Pair::Rectified { .. } => {
            let c = clip(pair, p);
            // docs/formulas.md §1.3.
            let d_s = Float::with_val(p, &c.m1 - &c.m2) / &c.s;
            let la1 = log_ndtr(&c.a1);
            let la2 = log_ndtr(&c.a2);
            let lb1 = log_ndtr(&Float::with_val(p, -&c.b1));
            let lb2 = log_ndtr(&Float::with_val(p, -&c.b2));
            let atom_a = Float::with_val(p, la1.exp_ref()) * Float::with_val(p, &la1 - &la2);
            let atom_b = Float::with_val(p, lb1.exp_ref()) * Float::with_val(p, &lb1 - &lb2);
            let lin = Float::with_val(p, &d_s * (phi_pdf(&c.a1) - phi_pdf(&c.b1)));
            let quad = Float::with_val(p, d_s.square_ref()) / 2u32 * phi_mass(&c.a1, &c.b1);
            Ok(sum(p, &[&atom_a, &atom_b, &lin, &quad]))
        }
        Pair::Truncated { .. } => {
            let c = clip(pair, p);
            // docs/formulas.md §2.3.
            let d_s = Float::with_val(p, &c.m1 - &c.m2) / &c.s;
            let lz1 = log_ndtr_diff(&c.a1, &c.b1);
            let lz2 = log_ndtr_diff(&c.a2, &c.b2);
            // (φ(A1) − φ(B1))/Z1 with the ratio formed in log space.
            let ratio = Float::with_val(p, (log_norm_pdf(&c.a1) - &lz1).exp())
                - Float::with_val(p, (log_norm_pdf(&c.b1) - &lz1).exp());
            let first = Float::with_val(p, d_s.square_ref()) / 2u32;
            let lin = Float::with_val(p, &d_s * ratio);
            Ok(sum(p, &[&first, &lin, &lz2, &-lz1]))
        }
        Pair::StochasticSign { mu1, mu2, sigma } => Ok(over_signs(p, mu1, mu2, sigma, |y1, y2| {
            let l1 = log_ndtr(y1);
            let l2 = log_ndtr(y2);
            Float::with_val(p, l1.exp_ref()) * Float::with_val(p, &l1 - &l2)
        })),
        _ => unreachable!("Gaussian-type pairs handled above"),
    }
}

/// Fisher information about the location, closed form, certified to `digits`.
pub fn fisher(loc: &Location, digits: u32) -> Result<Certified> {
    certify(digits, "fisher (closed form)", |p| fisher_at(loc, p))
}

/// Fisher information at working precision `p`.
pub fn fisher_at(loc: &Location, p: u32) -> Result<Float> {
    match loc {
        Location::Model(m) => m.0.fisher_at(p),
        Location::Gaussian { sigma, .. } => {
            let s = fl(p, sigma);
            Ok(Float::with_val(p, s.square_ref()).recip())
        }
        Location::Rectified { mu, sigma, a, b } => {
            // HG Lemma 4.1, eq. (4) (docs/formulas.md §1.1):
            // σ² I_R = Φ(B) − Φ(A) + Aφ(A) − Bφ(B) + φ(A)²/Φ(A) + φ(B)²/Φ(−B).
            let (m, s, a, b) = (fl(p, mu), fl(p, sigma), fl(p, a), fl(p, b));
            let (aa, bb) = ends(p, &m, &s, &a, &b);
            let nbb = Float::with_val(p, -&bb);
            let la = log_norm_pdf(&aa);
            let lb = log_norm_pdf(&bb);
            let atom_a = Float::with_val(p, (Float::with_val(p, &la * 2u32) - log_ndtr(&aa)).exp());
            let atom_b =
                Float::with_val(p, (Float::with_val(p, &lb * 2u32) - log_ndtr(&nbb)).exp());
            let lin_a = Float::with_val(p, &aa * la.exp());
            let lin_b = -Float::with_val(p, &bb * lb.exp());
            let total = sum(p, &[&phi_mass(&aa, &bb), &lin_a, &lin_b, &atom_a, &atom_b]);
            Ok(total / Float::with_val(p, s.square_ref()))
        }
        Location::Truncated { mu, sigma, a, b } => {
            // HG Lemma 4.1, eq. (3) (docs/formulas.md §2.1):
            // σ² I_T = 1 + (Aφ(A) − Bφ(B))/Z − ((φ(A) − φ(B))/Z)².
            let (m, s, a, b) = (fl(p, mu), fl(p, sigma), fl(p, a), fl(p, b));
            let (aa, bb) = ends(p, &m, &s, &a, &b);
            let lz = log_ndtr_diff(&aa, &bb);
            let ra = Float::with_val(p, (log_norm_pdf(&aa) - &lz).exp());
            let rb = Float::with_val(p, (log_norm_pdf(&bb) - &lz).exp());
            let lin_a = Float::with_val(p, &aa * &ra);
            let lin_b = -Float::with_val(p, &bb * &rb);
            let sq = -Float::with_val(p, &ra - &rb).square();
            let one = Float::with_val(p, 1u32);
            let total = sum(p, &[&one, &lin_a, &lin_b, &sq]);
            Ok(total / Float::with_val(p, s.square_ref()))
        }
        Location::StochasticSign { mu, sigma } => {
            // HG §4.1 (docs/formulas.md §3): φ(μ/σ)² / (σ² Φ(μ/σ) Φ(−μ/σ)).
            let s = fl(p, sigma);
            let x = fl(p, mu) / &s;
            let nx = Float::with_val(p, -&x);
            let l = Float::with_val(p, &log_norm_pdf(&x) * 2u32) - log_ndtr(&x) - log_ndtr(&nx);
            Ok(l.exp() / Float::with_val(p, s.square_ref()))
        }
    }
}

/// Checks that ε is finite and ≥ 0.
pub fn check_eps(eps: &Scalar) -> Result<()> {
    if !eps.f64().is_finite() || eps.f64() < 0.0 {
        return Err(Error::invalid("eps", eps, "finite and >= 0"));
    }
    Ok(())
}

/// Hockey-stick divergence δ(ε) = ∫(p1 − e^ε p2)_+ (this ordered pair), closed form, certified.
pub fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32) -> Result<Certified> {
    check_eps(eps)?;
    certify(digits, "hockey_stick_delta (closed form)", |p| {
        hockey_stick_at(pair, &eps.mp(p), p)
    })
}

/// P1 mass minus e^ε times P2 mass of a region, both given as logs: e^{l1} − e^{ε + l2}
/// = −e^{l1}·expm1(ε + l2 − l1). Masses ≈ 1 (far-tail atoms) keep their tiny complements
/// (docs/formulas.md §7.2, "atom with mass ≈ 1").
fn mass_diff(l1: &Float, l2: &Float, eps: &Float, p: u32) -> Float {
    let r = sum(p, &[eps, l2, &-l1.clone()]);
    -p1_times_expm1(l1, &r, p)
}

fn pos(x: Float) -> Float {
    if x.is_sign_negative() || x.is_nan() {
        Float::new(x.prec())
    } else {
        x
    }
}

/// Balle–Wang Thm 8 (docs/formulas.md §7.1) for ‖μ1 − μ2‖ = `dist`: the one implementation in
/// [`crate::bounds::gaussian::log_dp_delta_mp`] (log form, no e^ε), with μ = dist/σ.
fn balle_wang(dist: &Float, sigma: &Float, eps: &Float, p: u32) -> Float {
    if dist.is_zero() {
        return Float::new(p);
    }
    let mu = Float::with_val(p, dist / sigma);
    pos(crate::bounds::gaussian::log_dp_delta_mp(&mu, eps).exp())
}

/// Unequal-variance 1-D Gaussians (docs/formulas.md §7.3): L(t) = log(σ2/σ1) − t²/(2σ1²) + (t−Δ)²/(2σ2²),
/// P = N(0, σ1²), Q = N(Δ, σ2²); δ = Σ over intervals where L > ε of P-mass − e^ε Q-mass.
fn unequal_1d(dist: &Float, s1sq: &Float, s2sq: &Float, eps: &Float, p: u32) -> Float {
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
fn interior_region(
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

/// δ(ε) at working precision `p` (uncertified; see [`hockey_stick`]).
pub fn hockey_stick_at(pair: &Pair, eps: &Float, p: u32) -> Result<Float> {
    if let Pair::Model(m) = pair {
        return m.0.hockey_at(eps, p);
    }
    if let Some(g) = gauss_of(pair, p) {
        let equal = g.u.is_zero();
        if equal {
            let s = Float::with_val(p, g.s1sq.sqrt_ref());
            return Ok(balle_wang(&g.dist, &s, eps, p));
        }
        if g.d == 1 {
            return Ok(unequal_1d(&g.dist, &g.s1sq, &g.s2sq, eps, p));
        }
        return Err(Error::Unsupported(
            "hockey_stick_delta closed form: unequal-variance Gaussians in d > 1 have none \
             (docs/formulas.md §7.4); use --method quadrature"
                .into(),
        ));
    }
    match pair {
        Pair::Rectified { .. } => {
            let c = clip(pair, p);
            let atom_a = pos(mass_diff(&log_ndtr(&c.a1), &log_ndtr(&c.a2), eps, p));
            let atom_b = pos(mass_diff(
                &log_ndtr(&Float::with_val(p, -&c.b1)),
                &log_ndtr(&Float::with_val(p, -&c.b2)),
                eps,
                p,
            ));
            let mut total = atom_a + atom_b;
            if let Some((u, v)) = interior_region(&c.m1, &c.m2, &c.s, &c.a, &c.b, eps, p) {
                let (u1, v1) = ends(p, &c.m1, &c.s, &u, &v);
                let (u2, v2) = ends(p, &c.m2, &c.s, &u, &v);
                total += pos(mass_diff(
                    &log_ndtr_diff(&u1, &v1),
                    &log_ndtr_diff(&u2, &v2),
                    eps,
                    p,
                ));
            }
            Ok(total)
        }
        Pair::Truncated { .. } => {
            let c = clip(pair, p);
            let lz1 = log_ndtr_diff(&c.a1, &c.b1);
            let lz2 = log_ndtr_diff(&c.a2, &c.b2);
            // f1 > e^ε f2 ⟺ L > ε' = ε + log Z1 − log Z2.
            let eps_eff = Float::with_val(p, eps + &lz1) - &lz2;
            match interior_region(&c.m1, &c.m2, &c.s, &c.a, &c.b, &eps_eff, p) {
                None => Ok(Float::new(p)),
                Some((u, v)) => {
                    let (u1, v1) = ends(p, &c.m1, &c.s, &u, &v);
                    let (u2, v2) = ends(p, &c.m2, &c.s, &u, &v);
                    let l1 = log_ndtr_diff(&u1, &v1) - &lz1;
                    let l2 = log_ndtr_diff(&u2, &v2) - &lz2;
                    Ok(pos(mass_diff(&l1, &l2, eps, p)))
                }
            }
        }
        Pair::StochasticSign { mu1, mu2, sigma } => Ok(over_signs(p, mu1, mu2, sigma, |y1, y2| {
            pos(mass_diff(&log_ndtr(y1), &log_ndtr(y2), eps, p))
        })),
        _ => unreachable!("Gaussian-type pairs handled above"),
    }
}
