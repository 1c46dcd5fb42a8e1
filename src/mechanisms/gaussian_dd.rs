//! The isotropic Gaussian N(m, σ² I_d) in ℝ^d: the output law of the d-dimensional Gaussian
//! mechanism and, with σ depending on the query value, of the RGM (HMB Lemma 2; docs/formulas.md §4).

use super::mpf;
use super::stream::StreamRng;
use crate::error::{check_dim, check_finite, check_len, check_positive, Error, Result};
use crate::model::logquad::{same, Ctx};
use crate::model::normal::{Gauss, Isotropic, NormalPair, Variances};
use crate::model::pair_model_common;
use crate::model::{looked_up, named, nonnegative, positive, Family, Pair, PairModel, ParamLookup};
use crate::model::{proper_range, AuditDraws, Statistic, Which, GRID_SIGMAS};
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
        draw_isotropic(&self.mean, self.sigma, rng, out);
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
            draw_isotropic(&self.mean, self.sigma, rng, chunk);
        }
        Ok(())
    }
}

/// One draw of N(`mean`, `sd`² I_d) into `out` (same length as `mean`): coordinate i is
/// mean_i + sd·Z_i with Z_i from `rand_distr::StandardNormal`, in order. The one isotropic
/// sampler: [`IsotropicGaussian`] and the RGM ([`super::Rgm`], whose sd depends on the query
/// value) both draw through it.
#[inline]
pub(crate) fn draw_isotropic<R: Rng + ?Sized>(mean: &[f64], sd: f64, rng: &mut R, out: &mut [f64]) {
    for (o, m) in out.iter_mut().zip(mean) {
        let z: f64 = StandardNormal.sample(rng);
        *o = m + sd * z;
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
pub(crate) struct GaussianDdPair {
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
    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        Ok(Some(Arc::new(GaussianDdDraws::new(self)?)))
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

/// Largest dimension audited (specs accept no more): every draw is a d-vector, so a larger d is
/// refused rather than allocated.
pub(crate) const MAX_DIM: u32 = 100_000;

pub(crate) fn audit_dim(d: u32) -> Result<usize> {
    if d > MAX_DIM {
        return Err(Error::invalid(
            "d",
            d,
            &format!("at most {MAX_DIM} for an audit (every draw is a d-vector)"),
        ));
    }
    Ok(d as usize)
}

pub(crate) fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// P1 = N(r1, s1² I_d) and P2 = N(r2, s2² I_d) as an audit sees them (the `gaussian_dd` and RGM
/// families' audit routes): the outputs y ∈ ℝ^d and
/// their statistics. White box, the exact LLR d·log(s2/s1) − ‖y − r1‖²/(2s1²) + ‖y − r2‖²/(2s2²)
/// (the quadratic of docs/formulas.md §7.4); black box, the projection ⟨y − r1, e⟩ with
/// e = (r2 − r1)/‖r2 − r1‖ (e₁ when r1 = r2).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IsoGeometry {
    pub(crate) r1: Vec<f64>,
    pub(crate) r2: Vec<f64>,
    /// s1, s2: noise standard deviations on x and x′.
    pub(crate) s: [f64; 2],
    /// Unit vector along r2 − r1 (e_1 when r1 = r2).
    e: Vec<f64>,
    /// ‖r2 − r1‖.
    pub(crate) dist: f64,
}

impl IsoGeometry {
    /// From centres of the same dimension d ≥ 1 and positive, finite sds (checked by the callers).
    pub(crate) fn new(r1: Vec<f64>, r2: Vec<f64>, s: [f64; 2]) -> Self {
        let diff: Vec<f64> = r2.iter().zip(&r1).map(|(b, a)| b - a).collect();
        let dist = norm(&diff);
        let mut e = vec![0.0; r1.len()];
        if dist > 0.0 {
            for (ei, di) in e.iter_mut().zip(&diff) {
                *ei = di / dist;
            }
        } else {
            e[0] = 1.0;
        }
        IsoGeometry { r1, r2, s, e, dist }
    }

    /// Dimension d.
    pub(crate) fn dim(&self) -> usize {
        self.r1.len()
    }

    /// The designed mechanism's statistic of an output `y` (a d-vector).
    #[inline]
    pub(crate) fn stat_of(&self, stat: Statistic, y: &[f64]) -> f64 {
        match stat {
            Statistic::Black => y
                .iter()
                .zip(&self.r1)
                .zip(&self.e)
                .map(|((yi, ri), ei)| (yi - ri) * ei)
                .sum(),
            Statistic::White => {
                let (mut q1, mut q2) = (0.0, 0.0);
                for ((yi, a), b) in y.iter().zip(&self.r1).zip(&self.r2) {
                    q1 += (yi - a) * (yi - a);
                    q2 += (yi - b) * (yi - b);
                }
                let (s1, s2) = (self.s[0], self.s[1]);
                self.dim() as f64 * (s2 / s1).ln() - q1 / (2.0 * s1 * s1) + q2 / (2.0 * s2 * s2)
            }
        }
    }

    /// Fills `out` with the designed statistic of outputs y = `centre` + `sd`·Z ∈ ℝ^d.
    pub(crate) fn fill_with(
        &self,
        centre: &[f64],
        sd: f64,
        stat: Statistic,
        rng: &mut StreamRng,
        out: &mut [f64],
    ) {
        let mut y = vec![0.0; self.dim()];
        for o in out.iter_mut() {
            for (yi, c) in y.iter_mut().zip(centre) {
                let z: f64 = StandardNormal.sample(rng);
                *yi = c + sd * z;
            }
            *o = self.stat_of(stat, &y);
        }
    }

    /// The centre r_i of side `which`.
    pub(crate) fn centre(&self, which: Which) -> &[f64] {
        match which {
            Which::P1 => &self.r1,
            Which::P2 => &self.r2,
        }
    }

    /// Range of the designed statistic when y = `centre_i` + sd_i·Z on the two sides (any
    /// centres and sds, so that broken samplers can reuse it): the LLR is
    /// const + κ_i‖Z‖² + λ_i Z₁ along a rotated basis; ‖Z‖² is taken in
    /// [d − 12√(2d), d + 12√(2d) + 144] and Z₁ in [−12, 12], and each term is bounded separately.
    pub(crate) fn range_for(&self, stat: Statistic, sides: [(&[f64], f64); 2]) -> (f64, f64) {
        let d = self.dim() as f64;
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (c, sd) in sides {
            match stat {
                Statistic::Black => {
                    let m: f64 = c
                        .iter()
                        .zip(&self.r1)
                        .zip(&self.e)
                        .map(|((ci, ri), ei)| (ci - ri) * ei)
                        .sum();
                    lo = lo.min(m - GRID_SIGMAS * sd);
                    hi = hi.max(m + GRID_SIGMAS * sd);
                }
                Statistic::White => {
                    // y = c + sd z: ‖y − r_j‖² = sd²‖z‖² + 2 sd ⟨z, c − r_j⟩ + ‖c − r_j‖².
                    let (s1, s2) = (self.s[0], self.s[1]);
                    let (w1, w2) = (1.0 / (2.0 * s1 * s1), 1.0 / (2.0 * s2 * s2));
                    let sub =
                        |r: &[f64]| -> Vec<f64> { c.iter().zip(r).map(|(a, b)| a - b).collect() };
                    let (u1, u2) = (sub(&self.r1), sub(&self.r2));
                    let konst =
                        d * (s2 / s1).ln() - w1 * norm(&u1).powi(2) + w2 * norm(&u2).powi(2);
                    let kappa = sd * sd * (w2 - w1);
                    // linear term 2 sd ⟨z, w2 u2 − w1 u1⟩: |.| ≤ 12 · 2 sd ‖w2 u2 − w1 u1‖.
                    let lin: Vec<f64> = u1.iter().zip(&u2).map(|(a, b)| w2 * b - w1 * a).collect();
                    let lam = 2.0 * sd * norm(&lin) * GRID_SIGMAS;
                    let wlo = (d - GRID_SIGMAS * (2.0 * d).sqrt()).max(0.0);
                    let whi = d + GRID_SIGMAS * (2.0 * d).sqrt() + GRID_SIGMAS * GRID_SIGMAS;
                    let (k0, k1) = (kappa * wlo, kappa * whi);
                    lo = lo.min(konst + k0.min(k1) - lam);
                    hi = hi.max(konst + k0.max(k1) + lam);
                }
            }
        }
        proper_range(lo, hi)
    }

    /// The statistic's range for the designed pair.
    pub(crate) fn range(&self, stat: Statistic) -> (f64, f64) {
        self.range_for(stat, [(&self.r1, self.s[0]), (&self.r2, self.s[1])])
    }

    /// Draws `out.len()` outputs of one side with `draw` and stores their statistic.
    pub(crate) fn sample_with(
        &self,
        stat: Statistic,
        out: &mut [f64],
        mut draw: impl FnMut(&mut [f64]),
    ) {
        let mut y = vec![0.0; self.dim()];
        for o in out.iter_mut() {
            draw(&mut y);
            *o = self.stat_of(stat, &y);
        }
    }
}

/// The `gaussian_dd` family's audit route: N(0, σ1² I_d) on x and N(dist·e₁, σ2² I_d) on x′,
/// each side drawn by its own [`IsotropicGaussian`] and reduced to the statistics of
/// [`IsoGeometry`] (the LLR, or the projection on m2 − m1).
#[derive(Debug, Clone)]
pub(crate) struct GaussianDdDraws {
    pub(crate) geo: IsoGeometry,
    laws: [IsotropicGaussian; 2],
    name: String,
}

impl GaussianDdDraws {
    /// From the pair's parameters; errors for a d above [`MAX_DIM`].
    fn new(m: &GaussianDdPair) -> Result<Self> {
        let d = audit_dim(m.d)?;
        // The model holds parameters whose doubles are finite (σ_i > 0); the samplers check again.
        let dist = m.dist.f64();
        let s = [m.sigma1.f64(), m.sigma2.f64()];
        let r1 = vec![0.0; d];
        let mut r2 = vec![0.0; d];
        r2[0] = dist;
        let laws = [
            IsotropicGaussian::new(r1.clone(), s[0])?,
            IsotropicGaussian::new(r2.clone(), s[1])?,
        ];
        Ok(GaussianDdDraws {
            geo: IsoGeometry::new(r1, r2, s),
            laws,
            name: crate::model::describe(FAMILY.name, &m.params()),
        })
    }

    /// The audit route of a `gaussian_dd` pair (`None` for another family's pair).
    #[cfg(test)]
    pub(crate) fn of_pair(pair: &Pair) -> Option<Self> {
        pair.downcast_ref::<GaussianDdPair>()
            .and_then(|m| Self::new(m).ok())
    }
}

impl AuditDraws for GaussianDdDraws {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let law = &self.laws[which.index()];
        self.geo.sample_with(stat, out, |y| {
            // Cannot fail: y has dimension d.
            let _ = law.sample_into(rng, y);
        });
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.geo.range(stat)
    }
}

fn build_pair(get: ParamLookup<'_>) -> Result<Arc<dyn PairModel>> {
    let [dist, sigma1, sigma2] = looked_up(get, ["dist", "sigma1", "sigma2"])?;
    Ok(Pair::gaussian_dd(dist, sigma1, sigma2, get.dim("d")?)?.shared())
}

/// The registry entry of the `gaussian_dd` family.
pub(crate) static FAMILY: Family = Family {
    name: "gaussian_dd",
    pair_keys: &["dist", "sigma1", "sigma2", "d"],
    input_keys: &["dist"],
    location_keys: &[],
    pair: build_pair,
    location: None,
    claim: crate::model::Guarantee::Exact,
    claim_source: "exact eps(delta) of the pair, both orders (docs/formulas.md §7.1, §7.3, §7.4)",
    spec: crate::model::SpecForm {
        rules: &[("d", crate::model::spec_form::KeyRule::Dim(MAX_DIM))],
        ..crate::model::SpecForm::GENERIC
    },
    noise: None,
};
