//! The isotropic Gaussian N(m, σ² I_d) in ℝ^d: the output law of the d-dimensional Gaussian
//! mechanism and, with σ depending on the query value, of the RGM (HMB Lemma 2; docs/formulas.md §4).

use super::mpf;
use crate::error::{check_finite, check_positive, Error, Result};
use crate::numeric::{f64s, mp};
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;

/// The isotropic multivariate normal N(m, σ² I_d).
///
/// # Density function
///
/// `p(x) = (2πσ²)^{−d/2} exp(−‖x − m‖² / (2σ²))`.
///
/// # Example
///
/// ```
/// use dpaudit::dist::{stream::chunk_rng, IsotropicGaussian};
///
/// let g = IsotropicGaussian::new(vec![0.0, 1.0, 2.0], 0.5).unwrap();
/// let mut y = [0.0; 3];
/// g.sample_into(&mut chunk_rng(9, 0), &mut y).unwrap();
/// assert!(g.ln_pdf(&y).unwrap().is_finite());
/// assert!(g.sample_into(&mut chunk_rng(9, 0), &mut [0.0; 2]).is_err());
/// ```
///
/// # Notes
///
/// Coordinates are drawn independently as m_i + σZ_i with Z_i from `rand_distr::StandardNormal`
/// (ZIGNOR ziggurat, Doornik 2005), in coordinate order.
#[derive(Clone, Debug, PartialEq)]
pub struct IsotropicGaussian {
    mean: Vec<f64>,
    sigma: f64,
    ln_sigma: f64,
}

impl IsotropicGaussian {
    /// N(mean, σ² I_d) with d = `mean.len()` ≥ 1, every coordinate finite, `sigma` finite and > 0.
    pub fn new(mean: Vec<f64>, sigma: f64) -> Result<Self> {
        if mean.is_empty() {
            return Err(Error::invalid("d", 0, "a dimension >= 1"));
        }
        for (i, &m) in mean.iter().enumerate() {
            check_finite(&format!("mean[{i}]"), m)?;
        }
        check_positive("sigma", sigma)?;
        Ok(IsotropicGaussian {
            mean,
            sigma,
            ln_sigma: sigma.ln(),
        })
    }

    /// The dimension d.
    pub fn dim(&self) -> usize {
        self.mean.len()
    }

    /// The mean vector m.
    pub fn mean(&self) -> &[f64] {
        &self.mean
    }

    /// The per-coordinate standard deviation σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    fn check_dim(&self, what: &str, len: usize) -> Result<()> {
        if len == self.dim() {
            Ok(())
        } else {
            Err(Error::invalid(
                what,
                format!("a slice of length {len}"),
                &format!("of length d = {}", self.dim()),
            ))
        }
    }

    /// log p(x) = −d ln(σ√(2π)) − ‖x − m‖²/(2σ²). Errors if `x.len() ≠ d`.
    pub fn ln_pdf(&self, x: &[f64]) -> Result<f64> {
        self.check_dim("x", x.len())?;
        let sq: f64 = x
            .iter()
            .zip(&self.mean)
            .map(|(xi, mi)| {
                let z = (xi - mi) / self.sigma;
                z * z
            })
            .sum();
        let d = self.dim() as f64;
        Ok(-0.5 * sq - d * (self.ln_sigma + f64s::LN_SQRT_2PI))
    }

    /// [`IsotropicGaussian::ln_pdf`] at the precision of `x[0]` (parameters converted exactly).
    pub fn ln_pdf_mp(&self, x: &[Float]) -> Result<Float> {
        self.check_dim("x", x.len())?;
        let prec = x[0].prec();
        let wp = prec + 16 + (usize::BITS - self.dim().leading_zeros());
        let mut sq = Float::new(wp);
        for (xi, &mi) in x.iter().zip(&self.mean) {
            let dlt = Float::with_val(wp, xi - mpf(wp, mi));
            sq += dlt.square();
        }
        let s = mpf(wp, self.sigma);
        let s2 = Float::with_val(wp, s.square_ref());
        let d = self.dim() as u32;
        let norm = (Float::with_val(wp, s.ln()) + mp::ln_sqrt_2pi(wp)) * d;
        Ok(Float::with_val(prec, -(sq / s2) / 2u32 - norm))
    }

    /// Writes one draw into `out` (length d); errors if `out.len() ≠ d`.
    #[inline]
    pub fn sample_into<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) -> Result<()> {
        self.check_dim("out", out.len())?;
        for (o, m) in out.iter_mut().zip(&self.mean) {
            let z: f64 = StandardNormal.sample(rng);
            *o = m + self.sigma * z;
        }
        Ok(())
    }

    /// Fills `out` (length a multiple of d) with consecutive independent draws, each d
    /// coordinates long. Errors if `out.len()` is not a multiple of d.
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) -> Result<()> {
        let d = self.dim();
        if out.len() % d != 0 {
            return Err(Error::invalid(
                "out",
                format!("a slice of length {}", out.len()),
                &format!("of length a multiple of d = {d}"),
            ));
        }
        for chunk in out.chunks_exact_mut(d) {
            for (o, m) in chunk.iter_mut().zip(&self.mean) {
                let z: f64 = StandardNormal.sample(rng);
                *o = m + self.sigma * z;
            }
        }
        Ok(())
    }
}

impl Distribution<Vec<f64>> for IsotropicGaussian {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        let mut v = vec![0.0; self.dim()];
        // Cannot fail: `v` has length d.
        let _ = self.sample_into(rng, &mut v);
        v
    }
}
