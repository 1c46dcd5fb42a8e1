//! Distributions of the Gaussian family, one module each: parameters (validated), log-density or
//! log-mass in `f64` and in `rug::Float`, cdf, and a seeded sampler.
//!
//! | module | law | sampler |
//! |---|---|---|
//! | [`gaussian`] | N(μ, σ²) | ziggurat (`rand_distr::StandardNormal`) |
//! | [`gaussian_dd`] | N(m, σ² I_d) | ziggurat, coordinate-wise |
//! | [`rgm`] | RGM_{γ,σ}: r + N(0, (γ‖r‖² + σ²) I_d), HMB Def. 3 eq. (4) | ziggurat |
//! | [`rectified`] | clip(N(μ, σ²), a, b), HG Def. 3.1 | clamp; exact part-selection far out |
//! | [`truncated`] | N(μ, σ²) conditioned on [a, b], HG Def. 3.2 | normal / uniform / Rayleigh rejection |
//! | [`sign`] | sign(μ + N(0, σ²)) ∈ {−1, +1} | exact Bernoulli(Φ(−|μ|/σ)) |
//!
//! Every scalar law implements [`ScalarDist`] (densities, atoms, cdf and survival function in
//! both precisions), which is what the shared consistency test runs over, and
//! [`rand::distr::Distribution<f64>`] plus an inherent `sample_many(rng, out)` batch sampler.
//!
//! Randomness: the crate's generator is [`stream::StreamRng`] (ChaCha8); [`stream::chunk_rng`]
//! gives each fixed-size chunk of a long run its own stream, so the output does not depend on how
//! chunks are assigned to threads.

use rand::Rng;
use rug::Float;

pub mod gaussian;
pub mod gaussian_dd;
pub mod rectified;
pub mod rgm;
pub mod sign;
pub mod stream;
pub mod truncated;

pub use gaussian::Gaussian;
pub use gaussian_dd::IsotropicGaussian;
pub use rectified::Rectified;
pub use rgm::Rgm;
pub use sign::StochasticSign;
pub use truncated::Truncated;

/// The common face of the one-dimensional laws: a continuous part with a (log-)density, finitely
/// many atoms, and the cdf / survival function, each in `f64` and in `rug::Float`.
///
/// Conventions: [`ScalarDist::ln_pdf`] is the log-density of the absolutely continuous part with
/// respect to Lebesgue measure (−∞ where there is none, everywhere for a purely discrete law);
/// [`ScalarDist::ln_mass`] is log P(X = x) (−∞ off the atoms). The law is
/// `pdf(x) dx + Σ_atoms P(X = t) δ_t`, and `cdf(x) = P(X ≤ x)`, `sf(x) = P(X > x)`, each computed
/// on its own tail side so that small values keep their relative accuracy. The `_mp` variants
/// work at the precision of their argument, with the parameters converted exactly from `f64`.
pub trait ScalarDist {
    /// Closed hull [lo, hi] of the support (lo or hi may be infinite).
    fn support(&self) -> (f64, f64);
    /// Atom locations, increasing (empty for a continuous law).
    fn atoms(&self) -> Vec<f64>;
    /// log P(X = x): finite at the atoms, −∞ elsewhere.
    fn ln_mass(&self, x: f64) -> f64;
    /// [`ScalarDist::ln_mass`] at the precision of `x`.
    fn ln_mass_mp(&self, x: &Float) -> Float;
    /// Log-density of the continuous part (−∞ outside its support).
    fn ln_pdf(&self, x: f64) -> f64;
    /// Density of the continuous part, by the direct formula (may underflow to 0 in far tails,
    /// where [`ScalarDist::ln_pdf`] stays finite).
    fn pdf(&self, x: f64) -> f64;
    /// [`ScalarDist::ln_pdf`] at the precision of `x`.
    fn ln_pdf_mp(&self, x: &Float) -> Float;
    /// P(X ≤ x).
    fn cdf(&self, x: f64) -> f64;
    /// P(X > x), computed on the upper-tail side (never as 1 − cdf).
    fn sf(&self, x: f64) -> f64;
    /// [`ScalarDist::cdf`] at the precision of `x`.
    fn cdf_mp(&self, x: &Float) -> Float;
    /// [`ScalarDist::sf`] at the precision of `x`.
    fn sf_mp(&self, x: &Float) -> Float;
}

/// A uniform double in [0, 1) with 53 random bits (the top bits of one `u64`).
#[inline(always)]
pub(crate) fn u01<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// Draws `true` with probability exactly `p` (the double `p`, not a 2⁻⁵³-grid rounding of it).
///
/// Compares an infinite-precision uniform U = 0.b₁b₂b₃… with p, 64 bits at a time: the first
/// word decides unless it equals the first 64 bits of p, which has probability 2⁻⁶⁴ per word;
/// since scaling by 2⁶⁴ is exact in binary floating point, subnormal and tiny p are handled
/// exactly too. Expected cost: one `u64`.
#[inline]
pub(crate) fn bernoulli_exact<R: Rng + ?Sized>(rng: &mut R, p: f64) -> bool {
    // `!(p > 0.0)` also catches NaN.
    if !(p > 0.0) {
        return false;
    }
    if p >= 1.0 {
        return true;
    }
    const TWO64: f64 = 18_446_744_073_709_551_616.0;
    let mut t = p;
    loop {
        let k = rng.next_u64();
        let scaled = t * TWO64; // exact; < 2^64 because t < 1
        let ip = scaled.floor();
        let ipu = ip as u64;
        if k < ipu {
            return true;
        }
        if k > ipu {
            return false;
        }
        t = scaled - ip; // exact
        if t == 0.0 {
            return false;
        }
    }
}

/// A Bernoulli(p) sampler, exact for the double `p`, with the first 64-bit comparison threshold
/// precomputed: one `u64` and one integer comparison per draw, falling back to
/// [`bernoulli_exact`] on the remainder with probability 2⁻⁶⁴.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ExactBernoulli {
    /// ⌊p·2⁶⁴⌋ (u64::MAX for p ≥ 1).
    first: u64,
    /// p·2⁶⁴ − ⌊p·2⁶⁴⌋ ∈ [0, 1) (1 for p ≥ 1).
    rest: f64,
}

impl ExactBernoulli {
    /// Bernoulli(p); p ≤ 0 or NaN never succeeds, p ≥ 1 always does.
    pub(crate) fn new(p: f64) -> Self {
        if !(p > 0.0) {
            ExactBernoulli {
                first: 0,
                rest: 0.0,
            }
        } else if p >= 1.0 {
            ExactBernoulli {
                first: u64::MAX,
                rest: 1.0,
            }
        } else {
            let scaled = p * 18_446_744_073_709_551_616.0; // exact
            let ip = scaled.floor();
            ExactBernoulli {
                first: ip as u64,
                rest: scaled - ip,
            }
        }
    }

    /// One draw: U < p for U uniform on [0, 1) with unbounded precision.
    #[inline(always)]
    pub(crate) fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        let k = rng.next_u64();
        if k != self.first {
            k < self.first
        } else {
            bernoulli_exact(rng, self.rest)
        }
    }
}

/// √(π/2).
const SQRT_PI_2: f64 = 1.253_314_137_315_500_3;

/// ln R(t), where R(t) = Φ(−t)/φ(t) = √(π/2)·erfcx(t/√2) is the Mills ratio (MATH.md §0.1).
#[inline]
pub(crate) fn ln_mills(t: f64) -> f64 {
    (SQRT_PI_2 * crate::numeric::f64s::erfcx(t * std::f64::consts::FRAC_1_SQRT_2)).ln()
}

/// ln(Φ(v) − Φ(u)) for u < v, to full relative accuracy for every interval, wide or narrow,
/// central or far in a tail. Intervals straddling 0 use ½(erf(v/√2) + erf(−u/√2)), a sum of
/// two non-negative terms; one-sided intervals are mirrored to [p, q] ⊂ [0, ∞) and written as
/// Φ(−p)·(1 − Φ(−q)/Φ(−p)) with the ratio from [`ln_tail_ratio`] (MATH.md §9 recipe 1, including
/// its narrow-interval caveat, which the hazard quadrature removes).
pub(crate) fn ln_ndtr_interval(u: f64, v: f64) -> f64 {
    use crate::numeric::f64s::{log1mexp, log_ndtr};
    use std::f64::consts::FRAC_1_SQRT_2;
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

/// Positive nodes and weights of the 10-point Gauss–Legendre rule on [−1, 1] (mpmath, dps 40).
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

/// `x` as a `Float` at `prec` bits, exactly when `prec ≥ 53`.
#[inline]
pub(crate) fn mpf(prec: u32, x: f64) -> Float {
    Float::with_val(prec, x)
}

/// ln σ at `prec` bits (σ converted exactly).
pub(crate) fn ln_mp(prec: u32, x: f64) -> Float {
    Float::with_val(prec + 8, x).ln()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Exact Bernoulli (both forms): count successes for p = 0.3 and for a subnormal p (never true in 10⁵
    /// draws: P ≈ 1e−5·10⁻³⁰⁸). Binomial 6-sigma band for p = 0.3 (false failure ≈ 2e−9).
    #[test]
    fn bernoulli_exact_frequencies() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let n = 200_000;
        let k = (0..n).filter(|_| bernoulli_exact(&mut rng, 0.3)).count() as f64;
        let sd = (n as f64 * 0.3 * 0.7).sqrt();
        assert!((k - 0.3 * n as f64).abs() < 6.0 * sd, "k = {k}");
        assert!((0..100_000).all(|_| !bernoulli_exact(&mut rng, 5e-320)));
        assert!((0..1000).all(|_| bernoulli_exact(&mut rng, 1.0)));
        assert!((0..1000).all(|_| !bernoulli_exact(&mut rng, 0.0)));
        assert!(!bernoulli_exact(&mut rng, f64::NAN));
        // The precomputed sampler: same law.
        let b = ExactBernoulli::new(0.3);
        let k = (0..n).filter(|_| b.sample(&mut rng)).count() as f64;
        assert!((k - 0.3 * n as f64).abs() < 6.0 * sd, "k = {k}");
        let (one, zero, tiny) = (
            ExactBernoulli::new(1.0),
            ExactBernoulli::new(0.0),
            ExactBernoulli::new(5e-320),
        );
        assert!((0..1000).all(|_| one.sample(&mut rng) && !zero.sample(&mut rng)));
        assert!((0..100_000).all(|_| !tiny.sample(&mut rng)));
        assert!(!ExactBernoulli::new(f64::NAN).sample(&mut rng));
    }

    /// ln R(t) against mpmath (dps 40): log(ncdf(-t)/npdf(t)), independent of this code.
    #[test]
    fn mills_ratio_reference() {
        // mpmath 1.3, dps 40: log(ncdf(-t)/npdf(t)) at t = 1 and t = 40.
        let r1 = -0.422_083_111_804_590_763_990_f64;
        let r40 = -3.689_503_480_549_115_424_83_f64;
        assert!((ln_mills(1.0) - r1).abs() < 1e-15, "{}", ln_mills(1.0));
        assert!((ln_mills(40.0) - r40).abs() < 1e-14, "{}", ln_mills(40.0));
    }
}
