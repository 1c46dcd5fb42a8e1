//! The stochastic sign Y = sign(μ + N(0, σ²)) ∈ {−1, +1} (docs/formulas.md §3; the rectified Gaussian on
//! [0⁻, 0⁺], HG §4.1).

use super::{mpf, ExactBernoulli, ScalarDist};
use crate::error::Result;
use crate::numeric::{f64s, mp};
use rand::distr::Distribution;
use rand::Rng;
use rug::Float;

/// The stochastic sign of N(μ, σ²), returned as the `f64` −1.0 or +1.0.
///
/// # Mass function
///
/// `P(Y = +1) = Φ(μ/σ)`, `P(Y = −1) = Φ(−μ/σ)` (docs/formulas.md §3). Both masses are computed on their own
/// tail side, so the rare outcome's probability keeps its relative accuracy (e.g. Φ(−40) ≈ 3.7e−350
/// is finite in log space).
///
/// # Example
///
/// ```
/// use dpaudit::dist::{stream::chunk_rng, ScalarDist, StochasticSign};
/// use rand::distr::Distribution;
///
/// let s = StochasticSign::new(0.5, 1.0).unwrap();
/// let y: f64 = s.sample(&mut chunk_rng(1, 0));
/// assert!(y == 1.0 || y == -1.0);
/// assert!((s.ln_mass(1.0).exp() - 0.691_462_461_274_013_1).abs() < 1e-15);
/// ```
///
/// # Notes
///
/// The sampler draws the less likely outcome with probability exactly `q = Φ(−|μ|/σ)` (the double
/// value of q) by comparing q with a uniform drawn 64 bits at a time (an exact Bernoulli; one `u64`
/// per sample on average). This is exact in the far tails, where `sign(μ + σZ)` with a ziggurat Z
/// would never produce the rare sign (the ziggurat cannot reach |Z| ≳ 14), and it is faster than
/// drawing a Gaussian.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StochasticSign {
    mu: f64,
    sigma: f64,
    /// Bernoulli(Φ(−|μ|/σ)) for the less likely outcome.
    rare_draw: ExactBernoulli,
    /// The less likely outcome (−1.0 when μ ≥ 0).
    rare: f64,
}

impl StochasticSign {
    /// sign(μ + N(0, σ²)) from `mu` (finite) and `sigma` (finite, > 0).
    pub fn new(mu: f64, sigma: f64) -> Result<Self> {
        super::check_location_scale(mu, "sigma", sigma)?;
        let t = mu / sigma;
        let (p_rare, rare) = if t >= 0.0 {
            (f64s::ndtr(-t), -1.0)
        } else {
            (f64s::ndtr(t), 1.0)
        };
        Ok(StochasticSign {
            mu,
            sigma,
            rare_draw: ExactBernoulli::new(p_rare),
            rare,
        })
    }

    /// The location μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// The noise scale σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// P(Y = +1) = Φ(μ/σ).
    pub fn p_plus(&self) -> f64 {
        f64s::ndtr(self.mu / self.sigma)
    }

    /// Fills `out` with independent draws (±1.0), in order.
    #[inline]
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            *o = self.sample(rng);
        }
    }

    /// μ/σ at `wp` bits.
    fn t_mp(&self, wp: u32) -> Float {
        mpf(wp, self.mu) / mpf(wp, self.sigma)
    }
}

impl Distribution<f64> for StochasticSign {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        // Branch-free select (rare·(2b − 1)): the outcome is unpredictable, so a branch here
        // would mispredict on a large fraction of draws.
        let b = self.rare_draw.sample(rng) as u8;
        self.rare * (2.0 * f64::from(b) - 1.0)
    }
}

impl ScalarDist for StochasticSign {
    fn support(&self) -> (f64, f64) {
        (-1.0, 1.0)
    }

    fn atoms(&self) -> Vec<f64> {
        vec![-1.0, 1.0]
    }

    fn ln_mass(&self, x: f64) -> f64 {
        let t = self.mu / self.sigma;
        if x == 1.0 {
            f64s::log_ndtr(t)
        } else if x == -1.0 {
            f64s::log_ndtr(-t)
        } else {
            f64::NEG_INFINITY
        }
    }

    fn ln_mass_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let t = self.t_mp(prec + 16);
        if *x == 1 {
            Float::with_val(prec, mp::log_ndtr(&t))
        } else if *x == -1 {
            Float::with_val(prec, mp::log_ndtr(&(-t)))
        } else {
            Float::with_val(prec, f64::NEG_INFINITY)
        }
    }

    fn ln_pdf(&self, _x: f64) -> f64 {
        f64::NEG_INFINITY
    }

    fn pdf(&self, _x: f64) -> f64 {
        0.0
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        Float::with_val(x.prec(), f64::NEG_INFINITY)
    }

    fn cdf(&self, x: f64) -> f64 {
        if x < -1.0 {
            0.0
        } else if x < 1.0 {
            f64s::ndtr(-self.mu / self.sigma)
        } else {
            1.0
        }
    }

    fn sf(&self, x: f64) -> f64 {
        if x < -1.0 {
            1.0
        } else if x < 1.0 {
            f64s::ndtr(self.mu / self.sigma)
        } else {
            0.0
        }
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < -1 {
            Float::new(prec)
        } else if *x < 1 {
            let t = self.t_mp(prec + 16);
            Float::with_val(prec, mp::ndtr(&(-t)))
        } else {
            Float::with_val(prec, 1u32)
        }
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < -1 {
            Float::with_val(prec, 1u32)
        } else if *x < 1 {
            Float::with_val(prec, mp::ndtr(&self.t_mp(prec + 16)))
        } else {
            Float::new(prec)
        }
    }
}
