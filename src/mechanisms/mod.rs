//! The mechanism families, one file each: the laws (parameters, validated; log-density or
//! log-mass in `f64` and in `rug::Float`; cdf; a seeded sampler), the neighbouring pair as a
//! model of [`crate::model`] (closed forms, its own certified integrals), the audit route
//! ([`crate::model::AuditDraws`]), and the family's registry entry `FAMILY` with its privacy
//! claim as data. [`crate::model::FAMILIES`] lists them.
//!
//! | module | law | sampler |
//! |---|---|---|
//! | [`gaussian`] | N(μ, σ²) | ziggurat (`rand_distr::StandardNormal`) |
//! | [`gaussian_dd`] | N(m, σ² I_d) | ziggurat, coordinate-wise |
//! | [`rgm`] | RGM_{γ,σ}: r + N(0, (γ‖r‖² + σ²) I_d), HMB Def. 3 eq. (4) | ziggurat |
//! | [`rectified`] | clip(N(μ, σ²), a, b), HG Def. 3.1 | clamp; exact part-selection far out |
//! | [`truncated`] | N(μ, σ²) conditioned on [a, b], HG Def. 3.2 | normal / uniform / Rayleigh rejection |
//! | [`sign`] | sign(μ + N(0, σ²)) ∈ {−1, +1} | exact Bernoulli(Φ(−|μ|/σ)) |
//! | [`laplace`] | Lap(μ, b) | sign bit and `rand_distr::Exp1` |
//! | [`subsampled`] | the Poisson-subsampled Gaussian mixture (remove, add, substitution) | — |
//! | [`discrete_gaussian`] | N_Z(μ, σ²) on the integers (CKS 2020) | exact: CKS Algorithms 1–3 on rationals |
//! | [`gen_gaussian`] | GG(μ, α, p) ∝ exp(−(\|x − μ\|/α)^p), p ≥ 1 (Liu 2019) | sign bit and `rand_distr::Gamma`(1/p)^{1/p} |
//!
//! Every scalar law implements [`ScalarDist`] (densities, atoms, cdf and survival function in
//! both precisions), which is what the shared consistency test runs over, and
//! [`rand::distr::Distribution<f64>`] plus an inherent `sample_many(rng, out)` batch sampler.
//!
//! Randomness: the crate's generator is [`stream::StreamRng`] (ChaCha8); [`stream::chunk_rng`]
//! gives each fixed-size chunk of a long run its own stream, so the output does not depend on how
//! chunks are assigned to threads.

use crate::error::{check_finite, check_interval, check_positive, Result};
use crate::model::Which;
use rand::Rng;
use rug::Float;

/// The accessors `mu`, `sigma` and `bounds` of the clipped laws (parent N(μ, σ²), interval
/// [a, b]), with the doc line of `bounds` given.
macro_rules! clipped_accessors {
    ($bounds_doc:literal) => {
        /// The location μ of the parent Gaussian.
        pub fn mu(&self) -> f64 {
            self.mu
        }

        /// The scale σ of the parent Gaussian.
        pub fn sigma(&self) -> f64 {
            self.sigma
        }

        #[doc = $bounds_doc]
        pub fn bounds(&self) -> (f64, f64) {
            (self.a, self.b)
        }
    };
}

pub mod discrete_gaussian;
pub mod gaussian;
pub mod gaussian_dd;
pub mod gen_gaussian;
pub mod laplace;
pub mod rectified;
pub mod rgm;
pub mod sign;
pub mod stream;
pub mod subsampled;
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
    /// Atom locations, increasing (empty for a continuous law, the default).
    fn atoms(&self) -> Vec<f64> {
        Vec::new()
    }
    /// log P(X = x): finite at the atoms, −∞ elsewhere (the default: −∞ everywhere, no atoms).
    fn ln_mass(&self, _x: f64) -> f64 {
        f64::NEG_INFINITY
    }
    /// [`ScalarDist::ln_mass`] at the precision of `x` (the default: −∞, no atoms).
    fn ln_mass_mp(&self, x: &Float) -> Float {
        Float::with_val(x.prec(), f64::NEG_INFINITY)
    }
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

/// Checks the parameters of a location-scale law: the location `mu` finite, the scale (named
/// `scale_name` in errors) finite and > 0.
pub(crate) fn check_location_scale(mu: f64, scale_name: &str, scale: f64) -> Result<()> {
    check_finite("mu", mu)?;
    check_positive(scale_name, scale)?;
    Ok(())
}

/// Checks the parameters of a clipped law (μ finite, σ > 0, a < b finite) and returns the
/// standardised ends ((a − μ)/σ, (b − μ)/σ).
pub(crate) fn standardised_ends(mu: f64, sigma: f64, a: f64, b: f64) -> Result<(f64, f64)> {
    check_location_scale(mu, "sigma", sigma)?;
    check_interval(a, b)?;
    Ok(((a - mu) / sigma, (b - mu) / sigma))
}

/// The parameters of a bounded-support pair in double precision, as its audit route uses them:
/// locations μ1 (on x), μ2 (on x′), scale σ and support [a, b] (the rectified and truncated
/// families).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Bounded {
    /// Location on x.
    pub(crate) mu1: f64,
    /// Location on x′.
    pub(crate) mu2: f64,
    /// Noise standard deviation.
    pub(crate) sigma: f64,
    /// Lower end of the support.
    pub(crate) a: f64,
    /// Upper end of the support.
    pub(crate) b: f64,
}

impl Bounded {
    /// Validated: finite locations, σ > 0, a < b finite.
    pub(crate) fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        check_finite("mu1", mu1)?;
        check_finite("mu2", mu2)?;
        check_positive("sigma", sigma)?;
        check_interval(a, b)?;
        Ok(Bounded {
            mu1,
            mu2,
            sigma,
            a,
            b,
        })
    }

    /// The doubles of a clipped pair's parameters.
    pub(crate) fn of(c: &crate::model::normal::Clipped) -> Result<Self> {
        let s = &c.shift;
        Bounded::new(
            s.mu1.f64(),
            s.mu2.f64(),
            s.sigma.f64(),
            c.a.f64(),
            c.b.f64(),
        )
    }

    /// The location on `which`.
    pub(crate) fn mu(&self, which: Which) -> f64 {
        [self.mu1, self.mu2][which.index()]
    }

    /// Interior log-ratio slope k and offset c: log(p_{μ1}/p_{μ2})(y) = c + k·y with
    /// k = (μ1 − μ2)/σ², c = −k(μ1 + μ2)/2 (docs/formulas.md §7.2).
    pub(crate) fn interior_llr(&self) -> (f64, f64) {
        let k = (self.mu1 - self.mu2) / (self.sigma * self.sigma);
        (-k * (self.mu1 + self.mu2) / 2.0, k)
    }

    /// The samplers on x and x′, built by `make(μ, σ, a, b)`.
    pub(crate) fn samplers<T>(&self, make: fn(f64, f64, f64, f64) -> Result<T>) -> Result<[T; 2]> {
        Ok([
            make(self.mu1, self.sigma, self.a, self.b)?,
            make(self.mu2, self.sigma, self.a, self.b)?,
        ])
    }

    /// `family(mu1=…, mu2=…, sigma=…, a=…, b=…)` with the doubles.
    pub(crate) fn name(&self, family: &str) -> String {
        format!(
            "{family}(mu1={}, mu2={}, sigma={}, a={}, b={})",
            self.mu1, self.mu2, self.sigma, self.a, self.b
        )
    }
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
    if p.is_nan() || p <= 0.0 {
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
        if p.is_nan() || p <= 0.0 {
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
    use super::{bernoulli_exact, ExactBernoulli};
    use crate::numeric::f64s::ln_mills;
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
    #[allow(clippy::excessive_precision)] // mpmath digits kept as produced
    fn mills_ratio_reference() {
        // mpmath 1.3, dps 40: log(ncdf(-t)/npdf(t)) at t = 1 and t = 40.
        let r1 = -0.422_083_111_804_590_763_990_f64;
        let r40 = -3.689_503_480_549_115_424_83_f64;
        assert!((ln_mills(1.0) - r1).abs() < 1e-15, "{}", ln_mills(1.0));
        assert!((ln_mills(40.0) - r40).abs() < 1e-14, "{}", ln_mills(40.0));
    }
}
