//! The Relative Gaussian Mechanism RGM_{γ,σ} (Hendrikx, Mangold & Bellet, AISTATS 2024, "HMB"):
//! a query value r ∈ ℝ^d released with noise whose variance grows with ‖r‖².

use super::{mpf, IsotropicGaussian};
use crate::error::{check_nonnegative, Error, Result};
use crate::numeric::f64s;
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;

/// The Relative Gaussian Mechanism: given r = 𝓡(x) ∈ ℝ^d, output
/// `r + N(0, (γ‖r‖² + σ²) I_d)` (HMB Def. 3, eq. (4); docs/formulas.md §5.1).
///
/// # Density function
///
/// Given r, the output is isotropic Gaussian with mean r and per-coordinate variance
/// `σ_r² = γ‖r‖² + σ²`: `p(y | r) = (2πσ_r²)^{−d/2} exp(−‖y − r‖²/(2σ_r²))`.
///
/// # Example
///
/// ```
/// use dpaudit::dist::{stream::chunk_rng, Rgm};
///
/// let m = Rgm::new(0.5, 1.0, 2).unwrap(); // γ = 0.5, baseline variance σ² = 1, d = 2
/// let r = [3.0, 4.0];
/// assert!((m.output_sd(&r) - (0.5f64 * 25.0 + 1.0).sqrt()).abs() < 1e-15);
/// let mut y = [0.0; 2];
/// m.sample_into(&r, &mut chunk_rng(11, 0), &mut y).unwrap();
/// ```
///
/// # Notes
///
/// Sampling computes σ_r once per call and draws the d coordinates as r_i + σ_r Z_i with Z_i from
/// `rand_distr::StandardNormal` (ZIGNOR ziggurat, Doornik 2005).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgm {
    gamma: f64,
    sigma2: f64,
    d: usize,
}

impl Rgm {
    /// RGM with relative scale `gamma` (γ ≥ 0, finite), baseline variance `sigma2` (σ² ≥ 0,
    /// finite; not both zero) and dimension `d` ≥ 1. σ² = 0 is the pure relative-noise RGM.
    pub fn new(gamma: f64, sigma2: f64, d: usize) -> Result<Self> {
        check_nonnegative("gamma", gamma)?;
        check_nonnegative("sigma2", sigma2)?;
        if gamma == 0.0 && sigma2 == 0.0 {
            return Err(Error::invalid(
                "sigma2",
                sigma2,
                "> 0 when gamma = 0 (no noise at all)",
            ));
        }
        if d == 0 {
            return Err(Error::invalid("d", d, "a dimension >= 1"));
        }
        Ok(Rgm { gamma, sigma2, d })
    }

    /// γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// The baseline variance σ².
    pub fn sigma2(&self) -> f64 {
        self.sigma2
    }

    /// The dimension d.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// The per-coordinate output variance σ_r² = γ‖r‖² + σ² (HMB eq. (4)).
    pub fn output_var(&self, r: &[f64]) -> f64 {
        let n2: f64 = r.iter().map(|x| x * x).sum();
        self.gamma * n2 + self.sigma2
    }

    /// The per-coordinate output standard deviation √(γ‖r‖² + σ²).
    pub fn output_sd(&self, r: &[f64]) -> f64 {
        self.output_var(r).sqrt()
    }

    /// σ_r² at `prec` bits, with r, γ and σ² converted exactly.
    pub fn output_var_mp(&self, r: &[f64], prec: u32) -> Float {
        let wp = prec + 16 + (usize::BITS - r.len().leading_zeros());
        let mut n2 = Float::new(wp);
        for &x in r {
            n2 += mpf(wp, x).square();
        }
        Float::with_val(prec, n2 * mpf(wp, self.gamma) + mpf(wp, self.sigma2))
    }

    fn check_dim(&self, what: &str, len: usize) -> Result<()> {
        if len == self.d {
            Ok(())
        } else {
            Err(Error::invalid(
                what,
                format!("a slice of length {len}"),
                &format!("of length d = {}", self.d),
            ))
        }
    }

    /// The output law N(r, σ_r² I_d) given the query value r (length d, finite).
    pub fn output_dist(&self, r: &[f64]) -> Result<IsotropicGaussian> {
        self.check_dim("r", r.len())?;
        IsotropicGaussian::new(r.to_vec(), self.output_sd(r))
    }

    /// Writes one draw r + N(0, σ_r² I_d) into `out`. Errors if `r` or `out` is not of length d.
    #[inline]
    pub fn sample_into<R: Rng + ?Sized>(
        &self,
        r: &[f64],
        rng: &mut R,
        out: &mut [f64],
    ) -> Result<()> {
        self.check_dim("r", r.len())?;
        self.check_dim("out", out.len())?;
        let sd = self.output_sd(r);
        for (o, ri) in out.iter_mut().zip(r) {
            let z: f64 = StandardNormal.sample(rng);
            *o = ri + sd * z;
        }
        Ok(())
    }

    /// log p(y | r) = −(d/2) ln(2πσ_r²) − ‖y − r‖²/(2σ_r²). Errors on a length mismatch.
    pub fn ln_pdf(&self, r: &[f64], y: &[f64]) -> Result<f64> {
        self.check_dim("r", r.len())?;
        self.check_dim("y", y.len())?;
        let var = self.output_var(r);
        let sq: f64 = y.iter().zip(r).map(|(a, b)| (a - b) * (a - b)).sum();
        let d = self.d as f64;
        Ok(-0.5 * sq / var - d * (0.5 * var.ln() + f64s::LN_SQRT_2PI))
    }

    /// [`Rgm::ln_pdf`] at the precision of `y[0]` (r, γ, σ² converted exactly).
    pub fn ln_pdf_mp(&self, r: &[f64], y: &[Float]) -> Result<Float> {
        self.check_dim("r", r.len())?;
        self.check_dim("y", y.len())?;
        let prec = y[0].prec();
        let wp = prec + 16 + (usize::BITS - self.d.leading_zeros());
        let var = self.output_var_mp(r, wp);
        let mut sq = Float::new(wp);
        for (yi, &ri) in y.iter().zip(r) {
            sq += Float::with_val(wp, yi - mpf(wp, ri)).square();
        }
        let half_ln_var = Float::with_val(wp, var.ln_ref()) / 2u32;
        let norm = (half_ln_var + crate::numeric::mp::ln_sqrt_2pi(wp)) * (self.d as u32);
        Ok(Float::with_val(prec, -(sq / var) / 2u32 - norm))
    }
}
