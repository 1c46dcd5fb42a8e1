//! The one-dimensional Gaussian N(μ, σ²): the Gaussian mechanism's output law and the reference
//! sampler every other sampler is benchmarked against.

use super::{ln_mp, mpf, ScalarDist};
use crate::error::Result;
use crate::numeric::{f64s, mp};
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;

/// The [normal distribution](https://en.wikipedia.org/wiki/Normal_distribution) N(μ, σ²).
///
/// # Density function
///
/// `p(x) = exp(−(x − μ)² / (2σ²)) / (σ √(2π))`, cdf `Φ((x − μ)/σ)`.
///
/// # Example
///
/// ```
/// use dpaudit::dist::{stream::chunk_rng, Gaussian, ScalarDist};
/// use rand::distr::Distribution;
///
/// let g = Gaussian::new(1.0, 2.0).unwrap();
/// let mut rng = chunk_rng(42, 0);
/// let x: f64 = g.sample(&mut rng);
/// assert!(x.is_finite());
/// assert!((g.cdf(1.0) - 0.5).abs() < 1e-16);
/// assert!(Gaussian::new(0.0, -1.0).is_err());
/// ```
///
/// # Notes
///
/// Sampling is μ + σZ with Z from `rand_distr::StandardNormal`, the ZIGNOR variant of the
/// ziggurat method (J. A. Doornik, *An Improved Ziggurat Method to Generate Normal Random
/// Samples*, 2005). The cdf is evaluated on the tail side (`Φ(−z)` for the survival function),
/// never as `1 − Φ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    mu: f64,
    sigma: f64,
    ln_sigma: f64,
}

impl Gaussian {
    /// N(μ, σ²) from the mean `mu` (finite) and the standard deviation `sigma` (finite, > 0).
    pub fn new(mu: f64, sigma: f64) -> Result<Self> {
        super::check_location_scale(mu, "sigma", sigma)?;
        Ok(Gaussian {
            mu,
            sigma,
            ln_sigma: sigma.ln(),
        })
    }

    /// The mean μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// The standard deviation σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Fills `out` with independent draws (μ + σZ, Z by ziggurat), in order.
    #[inline]
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            let z: f64 = StandardNormal.sample(rng);
            *o = self.mu + self.sigma * z;
        }
    }

    /// The standardised point (x − μ)/σ at `wp` bits.
    fn z_mp(&self, x: &Float, wp: u32) -> Float {
        let d = Float::with_val(wp, x - mpf(wp, self.mu));
        d / mpf(wp, self.sigma)
    }
}

impl Distribution<f64> for Gaussian {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let z: f64 = StandardNormal.sample(rng);
        self.mu + self.sigma * z
    }
}

impl ScalarDist for Gaussian {
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        f64s::log_norm_pdf((x - self.mu) / self.sigma) - self.ln_sigma
    }

    fn pdf(&self, x: f64) -> f64 {
        f64s::norm_pdf((x - self.mu) / self.sigma) / self.sigma
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let z = self.z_mp(x, prec + 16);
        Float::with_val(prec, mp::log_norm_pdf(&z) - ln_mp(prec + 16, self.sigma))
    }

    fn cdf(&self, x: f64) -> f64 {
        if x.is_infinite() {
            // (f64s::ndtr(−∞) is NaN: its erfcx continued fraction does not handle ∞.)
            return if x > 0.0 { 1.0 } else { 0.0 };
        }
        f64s::ndtr((x - self.mu) / self.sigma)
    }

    fn sf(&self, x: f64) -> f64 {
        if x.is_infinite() {
            return if x > 0.0 { 0.0 } else { 1.0 };
        }
        f64s::ndtr((self.mu - x) / self.sigma)
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        Float::with_val(prec, mp::ndtr(&self.z_mp(x, prec + 16)))
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let z = self.z_mp(x, prec + 16);
        Float::with_val(prec, mp::ndtr(&(-z)))
    }
}
