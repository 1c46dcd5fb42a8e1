//! The rectified Gaussian R(μ, σ, [a, b]) = clip(N(μ, σ²), a, b) (HG Def. 3.1, docs/formulas.md §1): a
//! density on (a, b) plus atoms at a and b.

use super::{ln_mp, mpf, ExactBernoulli, ScalarDist, Truncated};
use crate::error::Result;
use crate::numeric::{f64s, mp};
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;

/// Beyond this many σ between μ and [a, b] the sampler stops clamping a ziggurat draw and picks the
/// part (near atom / interior / far atom) by exact Bernoulli draws instead: the interior and the
/// far atom then have probability < Φ(−8) ≈ 6e−16, a region the ziggurat represents poorly and
/// not at all beyond ≈ 14σ.
const FAR: f64 = 8.0;

/// How samples are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Regime {
    /// clamp(μ + σZ, a, b).
    Clamp,
    /// μ more than [`FAR`]σ outside [a, b]: the near atom unless an exact Bernoulli(`p_leave`)
    /// says otherwise; then the far atom with probability `p_far`, else the interior.
    Far {
        near: f64,
        far: f64,
        p_leave: ExactBernoulli,
        p_far: ExactBernoulli,
    },
}

/// The [rectified Gaussian](https://en.wikipedia.org/wiki/Rectified_Gaussian_distribution)
/// R(μ, σ, [a, b]): the law of clip(μ + σZ, a, b), Z ~ N(0, 1).
///
/// # Density function
///
/// With A = (a − μ)/σ, B = (b − μ)/σ (HG Def. 3.1; docs/formulas.md §1):
/// * atom at a with mass `Φ(A)`, atom at b with mass `Φ(−B)`;
/// * density `φ((x − μ)/σ)/σ` on the open interval (a, b);
/// * cdf `Φ((x − μ)/σ)` on [a, b), jumping to 1 at b.
///
/// # Example
///
/// ```
/// use dpaudit::dist::{stream::chunk_rng, Rectified, ScalarDist};
/// use rand::distr::Distribution;
///
/// let r = Rectified::new(0.0, 1.0, -1.0, 1.0).unwrap();
/// let x: f64 = r.sample(&mut chunk_rng(5, 0));
/// assert!((-1.0..=1.0).contains(&x));
/// // atom at b = 1: Φ(−1)
/// assert!((r.ln_mass(1.0).exp() - 0.158_655_253_931_457_05).abs() < 1e-16);
/// ```
///
/// # Notes
///
/// Sampling clamps a ziggurat draw (`rand_distr::StandardNormal`, Doornik 2005) to [a, b], which
/// is the definition. When μ lies more than 8σ outside [a, b] the law is the near atom except
/// with probability < 6·10⁻¹⁶; there the sampler draws the part exactly (an exact Bernoulli with
/// the tail probability, then the far atom with probability Φ(far)/Φ(near), else an exact
/// [`Truncated`] draw), so it remains exact at any distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rectified {
    mu: f64,
    sigma: f64,
    a: f64,
    b: f64,
    ln_sigma: f64,
    regime: Regime,
    interior: Option<Truncated>,
}

impl Rectified {
    /// R(μ, σ, [a, b]) from `mu` (finite), `sigma` (finite, > 0) and `a < b` (finite).
    pub fn new(mu: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        let (alpha, beta) = super::standardised_ends(mu, sigma, a, b)?;
        // Near atom `near`, left with probability Φ(x_near) (x_near = −A or B); far atom given
        // that: Φ(x_far)/Φ(x_near).
        let far_regime = |near: f64, far: f64, x_near: f64, x_far: f64| {
            let p_leave = f64s::ndtr(x_near);
            let p_far = (f64s::log_ndtr(x_far) - f64s::log_ndtr(x_near)).exp();
            let r = Regime::Far {
                near,
                far,
                p_leave: ExactBernoulli::new(p_leave),
                p_far: ExactBernoulli::new(p_far),
            };
            (r, Truncated::new(mu, sigma, a, b).ok())
        };
        let (regime, interior) = if alpha > FAR {
            // Near atom a; leave it with P(X > a) = Φ(−A); far atom b given that: Φ(−B)/Φ(−A).
            far_regime(a, b, -alpha, -beta)
        } else if beta < -FAR {
            far_regime(b, a, beta, alpha)
        } else {
            (Regime::Clamp, None)
        };
        Ok(Rectified {
            mu,
            sigma,
            a,
            b,
            ln_sigma: sigma.ln(),
            regime,
            interior,
        })
    }

    clipped_accessors!("The clipping interval [a, b].");

    /// log P(X = a) = log Φ((a − μ)/σ).
    pub fn ln_mass_a(&self) -> f64 {
        f64s::log_ndtr((self.a - self.mu) / self.sigma)
    }

    /// log P(X = b) = log Φ((μ − b)/σ).
    pub fn ln_mass_b(&self) -> f64 {
        f64s::log_ndtr((self.mu - self.b) / self.sigma)
    }

    /// Fills `out` with independent draws, in order.
    #[inline]
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        match self.regime {
            Regime::Clamp => {
                for o in out.iter_mut() {
                    let z: f64 = StandardNormal.sample(rng);
                    *o = (self.mu + self.sigma * z).clamp(self.a, self.b);
                }
            }
            Regime::Far { .. } => {
                for o in out.iter_mut() {
                    *o = self.sample(rng);
                }
            }
        }
    }

    /// (x − μ)/σ at `wp` bits from the exact parameters.
    fn z_mp(&self, x: &Float, wp: u32) -> Float {
        Float::with_val(wp, x - mpf(wp, self.mu)) / mpf(wp, self.sigma)
    }
}

impl Distribution<f64> for Rectified {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self.regime {
            Regime::Clamp => {
                let z: f64 = StandardNormal.sample(rng);
                (self.mu + self.sigma * z).clamp(self.a, self.b)
            }
            Regime::Far {
                near,
                far,
                p_leave,
                p_far,
            } => {
                if !p_leave.sample(rng) {
                    near
                } else if p_far.sample(rng) {
                    far
                } else {
                    match &self.interior {
                        Some(t) => t.sample(rng),
                        // Only when Z(μ) is not representable even in log space, in which case
                        // p_leave underflowed to 0 and this branch is unreachable.
                        None => near,
                    }
                }
            }
        }
    }
}

impl ScalarDist for Rectified {
    fn support(&self) -> (f64, f64) {
        (self.a, self.b)
    }

    fn atoms(&self) -> Vec<f64> {
        vec![self.a, self.b]
    }

    fn ln_mass(&self, x: f64) -> f64 {
        if x == self.a {
            self.ln_mass_a()
        } else if x == self.b {
            self.ln_mass_b()
        } else {
            f64::NEG_INFINITY
        }
    }

    fn ln_mass_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let wp = prec + 16;
        if *x == self.a {
            Float::with_val(prec, mp::log_ndtr(&self.z_mp(&mpf(wp, self.a), wp)))
        } else if *x == self.b {
            let z = self.z_mp(&mpf(wp, self.b), wp);
            Float::with_val(prec, mp::log_ndtr(&(-z)))
        } else {
            Float::with_val(prec, f64::NEG_INFINITY)
        }
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        if x > self.a && x < self.b {
            f64s::log_norm_pdf((x - self.mu) / self.sigma) - self.ln_sigma
        } else {
            f64::NEG_INFINITY
        }
    }

    fn pdf(&self, x: f64) -> f64 {
        if x > self.a && x < self.b {
            f64s::norm_pdf((x - self.mu) / self.sigma) / self.sigma
        } else {
            0.0
        }
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if !(*x > self.a && *x < self.b) {
            return Float::with_val(prec, f64::NEG_INFINITY);
        }
        let wp = prec + 16;
        let z = self.z_mp(x, wp);
        Float::with_val(prec, mp::log_norm_pdf(&z) - ln_mp(wp, self.sigma))
    }

    fn cdf(&self, x: f64) -> f64 {
        if x < self.a {
            0.0
        } else if x < self.b {
            f64s::ndtr((x - self.mu) / self.sigma)
        } else {
            1.0
        }
    }

    fn sf(&self, x: f64) -> f64 {
        if x < self.a {
            1.0
        } else if x < self.b {
            f64s::ndtr((self.mu - x) / self.sigma)
        } else {
            0.0
        }
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < self.a {
            Float::new(prec)
        } else if *x < self.b {
            Float::with_val(prec, mp::ndtr(&self.z_mp(x, prec + 16)))
        } else {
            Float::with_val(prec, 1u32)
        }
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < self.a {
            Float::with_val(prec, 1u32)
        } else if *x < self.b {
            let z = self.z_mp(x, prec + 16);
            Float::with_val(prec, mp::ndtr(&(-z)))
        } else {
            Float::new(prec)
        }
    }
}
