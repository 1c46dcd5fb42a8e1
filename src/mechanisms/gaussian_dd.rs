//! The isotropic Gaussian N(m, σ² I_d) in ℝ^d: the output law of the d-dimensional Gaussian
//! mechanism and, with σ depending on the query value, of the RGM (HMB Lemma 2; docs/formulas.md §4).

use super::mpf;
use crate::error::{check_dim, check_finite, check_len, check_positive, Error, Result};
use crate::model::logquad::{same, Ctx};
use crate::model::normal::{Gauss, Isotropic, NormalPair, Variances};
use crate::model::pair_model_common;
use crate::model::{
    looked_up, named, nonnegative, positive, ModelFamily, Pair, PairModel, ParamLookup,
};
use crate::numeric::{f64s, mp};
use crate::scalar::Scalar;
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;
use std::sync::Arc;

/// The isotropic multivariate normal N(m, σ² I_d).
///
/// # Density function
///
/// `p(x) = (2πσ²)^{−d/2} exp(−‖x − m‖² / (2σ²))`.
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::{stream::chunk_rng, IsotropicGaussian};
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

    /// log p(x) = −d ln(σ√(2π)) − ‖x − m‖²/(2σ²). Errors if `x.len() ≠ d`.
    pub fn ln_pdf(&self, x: &[f64]) -> Result<f64> {
        check_len("x", x.len(), self.dim())?;
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
        check_len("x", x.len(), self.dim())?;
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
        check_len("out", out.len(), self.dim())?;
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

// ------------------------------------------------------------------------------------------
// The pair model

/// N(μ1, σ1² I_d) vs N(μ2, σ2² I_d) with ‖μ1 − μ2‖ = `dist` (HMB Lemma 2).
///
/// Closed forms: D_α and KL by HMB Lemma 2, eq. (13), in its stable ℓ-form (docs/formulas.md §4);
/// δ(ε) by Balle & Wang 2018, Thm 8 for σ1 = σ2 and docs/formulas.md §7.3 in d = 1. The quadrature
/// route reduces to one dimension by rotation (docs/formulas.md §4), and δ(ε) with σ1 ≠ σ2 in
/// d > 1 goes by the χ² profile route of docs/formulas.md §7.4.
#[derive(Clone, Debug, PartialEq)]
pub struct GaussianDdPair {
    /// ‖μ1 − μ2‖.
    pub(crate) dist: Scalar,
    /// Standard deviation under P1.
    pub(crate) sigma1: Scalar,
    /// Standard deviation under P2.
    pub(crate) sigma2: Scalar,
    /// Dimension.
    pub(crate) d: u32,
}

impl Pair {
    /// The isotropic d-dimensional Gaussian pair, validated (σ_i > 0, dist ≥ 0, d ≥ 1).
    pub fn gaussian_dd(dist: Scalar, sigma1: Scalar, sigma2: Scalar, d: u32) -> Result<Self> {
        nonnegative("dist", &dist)?;
        positive("sigma1", &sigma1)?;
        positive("sigma2", &sigma2)?;
        check_dim(d)?;
        Ok(Pair::from(GaussianDdPair {
            dist,
            sigma1,
            sigma2,
            d,
        }))
    }
}

impl PairModel for GaussianDdPair {
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        let d = Scalar::from(self.d);
        named(
            FAMILY.pair_keys,
            &[&self.dist, &self.sigma1, &self.sigma2, &d],
        )
    }
    fn swapped(&self) -> Arc<dyn PairModel> {
        Arc::new(GaussianDdPair {
            sigma1: self.sigma2.clone(),
            sigma2: self.sigma1.clone(),
            ..self.clone()
        })
    }
    fn identical(&self) -> bool {
        self.dist.f64() == 0.0 && same(&self.sigma1, &self.sigma2)
    }
    pair_model_common!(own, normal);
}

impl NormalPair for GaussianDdPair {
    fn gauss(&self, p: u32) -> Gauss {
        let s1 = Float::with_val(p, self.sigma1.mp(p).square_ref());
        let s2 = Float::with_val(p, self.sigma2.mp(p).square_ref());
        let u = Float::with_val(p, &s2 - &s1) / &s1;
        Gauss {
            dist: self.dist.mp(p),
            s1sq: s1,
            s2sq: s2,
            u,
            d: self.d,
        }
    }
    fn variances(&self, hp: u32) -> Option<Variances> {
        let (a, b) = (self.sigma1.mp(hp), self.sigma2.mp(hp));
        Some(Variances {
            s1: Float::with_val(hp, a.square_ref()),
            s2: Float::with_val(hp, b.square_ref()),
            diff: Float::with_val(hp, &a - &b) * Float::with_val(hp, &a + &b),
            dist: self.dist.mp(hp),
            d: self.d,
        })
    }
    fn needs_profile(&self) -> bool {
        self.d > 1 && !same(&self.sigma1, &self.sigma2)
    }
}

impl Isotropic for GaussianDdPair {
    fn sds(&self, ctx: &Ctx) -> (Float, Float, Float, u32) {
        (
            ctx.f(&self.sigma1),
            ctx.f(&self.sigma2),
            ctx.f(&self.dist),
            self.d,
        )
    }
    fn ratio_minus_one(&self) -> f64 {
        let r = self.sigma2.f64() / self.sigma1.f64();
        r * r - 1.0
    }
}

fn build_pair(get: ParamLookup<'_>) -> Result<Arc<dyn PairModel>> {
    let [dist, sigma1, sigma2] = looked_up(get, ["dist", "sigma1", "sigma2"])?;
    Ok(Pair::gaussian_dd(dist, sigma1, sigma2, get.dim("d")?)?.shared())
}

/// The registry entry of the `gaussian_dd` family.
pub(crate) static FAMILY: ModelFamily = ModelFamily {
    name: "gaussian_dd",
    pair_keys: &["dist", "sigma1", "sigma2", "d"],
    input_keys: &["dist"],
    location_keys: &[],
    pair: build_pair,
    location: None,
    claim: crate::model::Guarantee::Exact,
    claim_source: "exact eps(delta) of the pair, both orders (docs/formulas.md §7.1, §7.3, §7.4)",
};
