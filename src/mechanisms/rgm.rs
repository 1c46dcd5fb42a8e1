//! The Relative Gaussian Mechanism RGM_{γ,σ} (Hendrikx, Mangold & Bellet, AISTATS 2024, "HMB"):
//! a query value r ∈ ℝ^d released with noise whose variance grows with ‖r‖².
//!
//! Besides the law, the pair and its registry entry, the family owns HMB's analysis over
//! neighbouring datasets: the exact worst case of Lemma 2 over every admissible pair
//! ([`RgmWorstCase`], `worst_case`), and the relative-noise hook the training algorithms take
//! it through (`relative`: Theorem 1's calibration of (γ, σ²), the per-run guarantee and eq. (45)).

use super::gaussian_dd::{audit_dim, norm, IsoGeometry};
use super::stream::StreamRng;
use super::{mpf, IsotropicGaussian};
use crate::error::{check_dim, check_len, check_nonnegative, Error, Result};
use crate::model::logquad::{same, Ctx};
use crate::model::normal::{Gauss, Isotropic, NormalPair, Variances};
use crate::model::pair_model_common;
use crate::model::spec_form::{
    fmt_sig, BoundCurve, BoundValue, ExactRdp, KeyRule, Panels, PaperBound, ProfileFigure,
    RdpBound, RenyiPanel, RenyiStyle, RowCheck, RowQuantity, SpecIssue, SpecParams,
};
use crate::model::{looked_up, named, nonnegative, Family, Pair, PairModel, ParamLookup};
use crate::model::{AuditDraws, SpecForm, Statistic, Which};
use crate::numeric::f64s;
use crate::scalar::Scalar;
use rand::Rng;
use rug::Float;
use std::sync::Arc;

pub mod bounds;
mod relative;
mod worst_case;

pub use worst_case::{rgm_worst_case_dp_eps, rgm_worst_case_renyi, RgmWorstCase};

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
/// use dpaudit::mechanisms::{stream::chunk_rng, Rgm};
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
/// Sampling computes σ_r once per call and draws N(r, σ_r² I_d) with the isotropic Gaussian's
/// sampler: the d coordinates r_i + σ_r Z_i with Z_i from `rand_distr::StandardNormal` (ZIGNOR
/// ziggurat, Doornik 2005).
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
    pub(crate) fn output_var(&self, r: &[f64]) -> f64 {
        let n2: f64 = r.iter().map(|x| x * x).sum();
        self.gamma * n2 + self.sigma2
    }

    /// The per-coordinate output standard deviation √(γ‖r‖² + σ²).
    pub fn output_sd(&self, r: &[f64]) -> f64 {
        self.output_var(r).sqrt()
    }

    /// σ_r² at `prec` bits, with r, γ and σ² converted exactly.
    pub(crate) fn output_var_mp(&self, r: &[f64], prec: u32) -> Float {
        let wp = prec + 16 + (usize::BITS - r.len().leading_zeros());
        let mut n2 = Float::new(wp);
        for &x in r {
            n2 += mpf(wp, x).square();
        }
        Float::with_val(prec, n2 * mpf(wp, self.gamma) + mpf(wp, self.sigma2))
    }

    /// The output law N(r, σ_r² I_d) given the query value r (length d, finite).
    pub fn output_dist(&self, r: &[f64]) -> Result<IsotropicGaussian> {
        check_len("r", r.len(), self.d)?;
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
        check_len("r", r.len(), self.d)?;
        check_len("out", out.len(), self.d)?;
        super::gaussian_dd::draw_isotropic(r, self.output_sd(r), rng, out);
        Ok(())
    }

    /// log p(y | r) = −(d/2) ln(2πσ_r²) − ‖y − r‖²/(2σ_r²). Errors on a length mismatch.
    pub fn ln_pdf(&self, r: &[f64], y: &[f64]) -> Result<f64> {
        check_len("r", r.len(), self.d)?;
        check_len("y", y.len(), self.d)?;
        let var = self.output_var(r);
        let sq: f64 = y.iter().zip(r).map(|(a, b)| (a - b) * (a - b)).sum();
        let d = self.d as f64;
        Ok(-0.5 * sq / var - d * (0.5 * var.ln() + f64s::LN_SQRT_2PI))
    }

    /// [`Rgm::ln_pdf`] at the precision of `y[0]` (r, γ, σ² converted exactly).
    pub fn ln_pdf_mp(&self, r: &[f64], y: &[Float]) -> Result<Float> {
        check_len("r", r.len(), self.d)?;
        check_len("y", y.len(), self.d)?;
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

// ------------------------------------------------------------------------------------------
// The pair model

/// The RGM's output laws on neighbouring inputs (HMB Def. 3): N(r1, (γ n1² + σ²) I_d) vs
/// N(r2, (γ n2² + σ²) I_d), with n_i = ‖r_i‖ and ‖r1 − r2‖ = `dist`. Variance ratios are formed
/// from the norms (docs/formulas.md §4), never as differences of the variances.
///
/// Closed forms: HMB Lemma 2, eq. (13) (D_α, KL); δ(ε) as for [`super::gaussian_dd::GaussianDdPair`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RgmPair {
    /// Dimension.
    pub(crate) d: u32,
    /// Relative noise scale γ.
    pub(crate) gamma: Scalar,
    /// Baseline variance σ² (the eval key `sigma2`).
    pub(crate) sigma2: Scalar,
    /// ‖r1‖.
    pub(crate) n1: Scalar,
    /// ‖r2‖.
    pub(crate) n2: Scalar,
    /// ‖r1 − r2‖.
    pub(crate) dist: Scalar,
}

impl Pair {
    /// The RGM pair, validated: γ ≥ 0, σ² ≥ 0 with both output variances γn_i² + σ² > 0 (σ² = 0
    /// is the pure relative-noise RGM), norms ≥ 0, and the triangle inequalities
    /// |n1 − n2| ≤ dist ≤ n1 + n2 that any two vectors satisfy.
    pub fn rgm(
        d: u32,
        gamma: Scalar,
        sigma2: Scalar,
        n1: Scalar,
        n2: Scalar,
        dist: Scalar,
    ) -> Result<Self> {
        check_dim(d)?;
        for (name, v) in [("gamma", &gamma), ("n1", &n1), ("n2", &n2), ("dist", &dist)] {
            nonnegative(name, v)?;
        }
        // σ² = 0 is the pure relative-noise RGM: valid whenever both output variances
        // γ n_i² + σ² are positive (a zero variance is a point mass, whose divergences from a
        // different law are infinite or undefined).
        nonnegative("sigma2", &sigma2)?;
        for (name, n) in [("n1", &n1), ("n2", &n2)] {
            let v = Float::with_val(512, gamma.mp(512) * n.mp(512).square()) + sigma2.mp(512);
            if v <= 0 {
                return Err(Error::invalid(
                    "sigma2",
                    &sigma2,
                    &format!(
                        "> 0 when gamma {name}^2 = 0 (the output variance gamma {name}^2 + sigma2 \
                         must be > 0; with gamma = {gamma}, {name} = {n} the output is a point \
                         mass)"
                    ),
                ));
            }
        }
        let p = 512;
        let (a, b, c) = (n1.mp(p), n2.mp(p), dist.mp(p));
        let lo = Float::with_val(p, &a - &b).abs();
        let hi = Float::with_val(p, &a + &b);
        // Decimal inputs are rounded to 512 bits: an equality such as dist = |n1 − n2| given in
        // decimals must not fail on that rounding (slack 2^-480 relative).
        let slack = Float::with_val(p, &hi * Float::with_val(p, Float::i_exp(1, -480)));
        if c < Float::with_val(p, &lo - &slack) || c > Float::with_val(p, &hi + &slack) {
            return Err(Error::invalid(
                "dist",
                &dist,
                &format!(
                    "within [|n1 - n2|, n1 + n2] = [{}, {}] (no such vectors exist otherwise)",
                    lo.to_f64(),
                    hi.to_f64()
                ),
            ));
        }
        Ok(Pair::from(RgmPair {
            d,
            gamma,
            sigma2,
            n1,
            n2,
            dist,
        }))
    }
}

impl PairModel for RgmPair {
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        let d = Scalar::from(self.d);
        let values = [
            &d,
            &self.gamma,
            &self.sigma2,
            &self.n1,
            &self.n2,
            &self.dist,
        ];
        named(FAMILY.pair_keys, &values)
    }
    fn swapped(&self) -> Arc<dyn PairModel> {
        Arc::new(RgmPair {
            n1: self.n2.clone(),
            n2: self.n1.clone(),
            ..self.clone()
        })
    }
    fn identical(&self) -> bool {
        self.dist.f64() == 0.0 && same(&self.n1, &self.n2)
    }
    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        Ok(Some(Arc::new(RgmDraws::from_pair(self)?)))
    }
    pair_model_common!(own, normal);
}

impl RgmPair {
    /// γ, ‖r1‖, ‖r2‖ and the output variances σ_i² = γ n_i² + σ² at `p` bits.
    fn at(&self, p: u32) -> [Float; 5] {
        let g = self.gamma.mp(p);
        let (a, b) = (self.n1.mp(p), self.n2.mp(p));
        let base = self.sigma2.mp(p);
        let s1 = Float::with_val(p, &g * Float::with_val(p, a.square_ref())) + &base;
        let s2 = Float::with_val(p, &g * Float::with_val(p, b.square_ref())) + &base;
        [g, a, b, s1, s2]
    }
}

impl NormalPair for RgmPair {
    fn gauss(&self, p: u32) -> Gauss {
        let [g, a, b, s1, s2] = self.at(p);
        // u = γ (n2 − n1)(n2 + n1) / σ1²: no cancellation between the two variances.
        let u = Float::with_val(p, &b - &a) * Float::with_val(p, &b + &a) * &g / &s1;
        Gauss {
            dist: self.dist.mp(p),
            s1sq: s1,
            s2sq: s2,
            u,
            d: self.d,
        }
    }
    fn variances(&self, hp: u32) -> Option<Variances> {
        let [g, a, b, s1, s2] = self.at(hp);
        Some(Variances {
            s1,
            s2,
            diff: Float::with_val(hp, &a - &b) * Float::with_val(hp, &a + &b) * &g,
            dist: self.dist.mp(hp),
            d: self.d,
        })
    }
    fn needs_profile(&self) -> bool {
        self.d > 1 && !same(&self.n1, &self.n2) && self.gamma.f64() != 0.0
    }
}

impl Isotropic for RgmPair {
    fn sds(&self, ctx: &Ctx) -> (Float, Float, Float, u32) {
        let p = ctx.prec;
        let g = ctx.f(&self.gamma);
        let s2 = ctx.f(&self.sigma2);
        let v1 = Float::with_val(p, ctx.f(&self.n1).square_ref()) * &g + &s2;
        let v2 = Float::with_val(p, ctx.f(&self.n2).square_ref()) * &g + &s2;
        (v1.sqrt(), v2.sqrt(), ctx.f(&self.dist), self.d)
    }
    fn ratio_minus_one(&self) -> f64 {
        let (g, n1, n2) = (self.gamma.f64(), self.n1.f64(), self.n2.f64());
        let v1 = g * n1 * n1 + self.sigma2.f64();
        g * (n2 - n1) * (n2 + n1) / v1
    }
}

/// The Relative Gaussian Mechanism (HMB eq. 4) on a pair of concrete query outputs r1 = R(x),
/// r2 = R(x′) ∈ ℝ^d: P = N(r1, s1² I_d), Q = N(r2, s2² I_d) with s_i² = γ‖r_i‖² + σ².
///
/// Every output is drawn by the RGM sampler as a d-vector y = r_i + s_i z and reduced at once to
/// its statistic: white box, the exact LLR d·log(s2/s1) − ‖y − r1‖²/(2s1²) + ‖y − r2‖²/(2s2²)
/// (docs/formulas.md §7.4); black box, the projection ⟨y − r1, r2 − r1⟩/‖r2 − r1‖.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RgmDraws {
    pub(crate) geo: IsoGeometry,
    gamma: f64,
    sigma2: f64,
    n1: f64,
    n2: f64,
    /// The sampler.
    sampler: Rgm,
}

impl RgmDraws {
    /// From the query outputs r1 = R(x), r2 = R(x′) (same dimension d ≥ 1, finite), the relative
    /// noise scale γ ≥ 0 and the baseline variance σ² ≥ 0 (HMB eq. 4; σ² = 0 is the pure
    /// relative-noise RGM, valid when both γ‖r_i‖² + σ² > 0).
    pub(crate) fn new(r1: Vec<f64>, r2: Vec<f64>, gamma: f64, sigma2: f64) -> Result<Self> {
        if r1.is_empty() {
            return Err(Error::invalid(
                "r1",
                "empty",
                "a vector of dimension d >= 1",
            ));
        }
        if r2.len() != r1.len() {
            return Err(Error::invalid(
                "r2",
                format!("dimension {}", r2.len()),
                &format!("the dimension of r1 ({})", r1.len()),
            ));
        }
        for (name, v) in [("r1", &r1), ("r2", &r2)] {
            if let Some(x) = v.iter().find(|x| !x.is_finite()) {
                return Err(Error::invalid(name, x, "finite coordinates"));
            }
        }
        check_nonnegative("gamma", gamma)?;
        check_nonnegative("sigma2", sigma2)?;
        let (n1, n2) = (norm(&r1), norm(&r2));
        let s = [
            (gamma * n1 * n1 + sigma2).sqrt(),
            (gamma * n2 * n2 + sigma2).sqrt(),
        ];
        // The output standard deviations must be positive and finite: σ² = 0 (pure relative
        // noise) is fine unless a query value is 0, whose output would be a point mass.
        for (name, v) in [("r1", s[0]), ("r2", s[1])] {
            if !(v.is_finite() && v > 0.0) {
                return Err(Error::invalid(
                    "sigma2",
                    sigma2,
                    &format!(
                        "such that the output variance gamma ||{name}||^2 + sigma2 is finite and > 0 \
                         (it is {}; zero is a point mass)",
                        v * v
                    ),
                ));
            }
        }
        let sampler = Rgm::new(gamma, sigma2, r1.len())?;
        Ok(RgmDraws {
            geo: IsoGeometry::new(r1, r2, s),
            gamma,
            sigma2,
            n1,
            n2,
            sampler,
        })
    }

    /// The audit route of an RGM pair model ([`Pair::rgm`], validated there): realises the triple
    /// (n1, n2, dist) = (‖r1‖, ‖r2‖, ‖r1 − r2‖) as concrete vectors in ℝ^d, r1 = n1·e₁ and r2 in
    /// the plane of e₁, e₂. Errors for a pair of another family, or d = 1 with a non-collinear
    /// triple.
    pub(crate) fn from_pair(m: &RgmPair) -> Result<Self> {
        let d = audit_dim(m.d)?;
        let (n1, n2, dist) = (m.n1.f64(), m.n2.f64(), m.dist.f64());
        let (gamma, sigma2) = (m.gamma.f64(), m.sigma2.f64());
        let mut r1 = vec![0.0; d];
        let mut r2 = vec![0.0; d];
        r1[0] = n1;
        if n1 == 0.0 {
            r2[0] = n2;
        } else {
            // r2 = (x, y): x from the law of cosines.
            let x = (n1 * n1 + n2 * n2 - dist * dist) / (2.0 * n1);
            let mut y2 = (n2 * n2 - x * x).max(0.0);
            // Collinear pairs given in decimals (n1 = 100, n2 = 101.26, dist = 1.26) leave a
            // rounding residue of a few ulps of n2²: that is y = 0, not a second dimension.
            if y2 <= 64.0 * f64::EPSILON * n2 * n2 {
                y2 = 0.0;
            }
            r2[0] = x;
            if y2 > 0.0 {
                if d < 2 {
                    return Err(Error::invalid(
                        "dist",
                        dist,
                        &format!("|n1 - n2| or n1 + n2 when d = 1 (n1 = {n1}, n2 = {n2})"),
                    ));
                }
                r2[1] = y2.sqrt();
            }
        }
        Self::new(r1, r2, gamma, sigma2)
    }

    /// Dimension d.
    pub(crate) fn dim(&self) -> usize {
        self.geo.dim()
    }

    /// The exact pair of these doubles (the claim of a positive control built from vectors).
    pub(crate) fn pair(&self) -> Result<Pair> {
        let d = u32::try_from(self.dim()).map_err(|_| Error::invalid("d", self.dim(), "< 2^32"))?;
        // The norms and distance are rounded doubles; clamp the distance into the triangle
        // interval that the exact vectors satisfy.
        let lo = (self.n1 - self.n2).abs();
        let hi = self.n1 + self.n2;
        Pair::rgm(
            d,
            Scalar::from(self.gamma),
            Scalar::from(self.sigma2),
            Scalar::from(self.n1),
            Scalar::from(self.n2),
            Scalar::from(self.geo.dist.clamp(lo, hi)),
        )
    }
}

impl AuditDraws for RgmDraws {
    fn name(&self) -> String {
        format!(
            "rgm(d={}, gamma={}, sigma2={}, n1={}, n2={}, dist={})",
            self.dim(),
            self.gamma,
            self.sigma2,
            self.n1,
            self.n2,
            self.geo.dist
        )
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let r = self.geo.centre(which);
        self.geo.sample_with(stat, out, |y| {
            // Cannot fail: r and y have dimension d.
            let _ = self.sampler.sample_into(r, rng, y);
        });
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.geo.range(stat)
    }
}

/// The RGM's positive control (`FAMILY.spec.controls`, `crate::audit::controls`): an RGM whose
/// noise scale on each side is taken from the output on the next dataset of a leave-one-out
/// chain x ⊃ x′ ⊃ x″: M(x) = r1 + N(0, (γ‖r2‖² + σ²)I), M(x′) = r2 + N(0, (γ‖r3‖² + σ²)I), while
/// the claim is that of the correct RGM on (r1, r2). The plain swap (each side using the other's
/// norm) mirrors the correct pair through (r1 + r2)/2, so no pair audit could catch it; along the
/// chain the variance on x′ is too small when ‖r3‖ < ‖r2‖.
struct StaleNormDraws {
    correct: RgmDraws,
    r3: Vec<f64>,
    /// Noise sds actually used on x and x′.
    sd: [f64; 2],
}

impl AuditDraws for StaleNormDraws {
    fn name(&self) -> String {
        let n3 = self.r3.iter().map(|x| x * x).sum::<f64>().sqrt();
        format!("stale_norm_{} [n3={n3}]", self.correct.name())
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let geo = &self.correct.geo;
        geo.fill_with(geo.centre(which), self.sd[which.index()], stat, rng, out)
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        let geo = &self.correct.geo;
        geo.range_for(stat, [(&geo.r1, self.sd[0]), (&geo.r2, self.sd[1])])
    }
}

/// The stale-norm RGM on r1 = R(x), r2 = R(x′), r3 = R(x″) (same dimension, finite), γ ≥ 0,
/// σ² > 0: the broken sampler and the correct RGM on (r1, r2) whose privacy it claims.
pub fn stale_norm(
    r1: Vec<f64>,
    r2: Vec<f64>,
    r3: Vec<f64>,
    gamma: f64,
    sigma2: f64,
) -> Result<crate::model::BrokenDraws> {
    if r3.len() != r1.len() {
        return Err(Error::invalid(
            "r3",
            format!("dimension {}", r3.len()),
            &format!("the dimension of r1 ({})", r1.len()),
        ));
    }
    if let Some(x) = r3.iter().find(|x| !x.is_finite()) {
        return Err(Error::invalid("r3", x, "finite coordinates"));
    }
    check_nonnegative("gamma", gamma)?;
    crate::error::check_positive("sigma2", sigma2)?;
    let sq = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
    let sd = [
        (gamma * sq(&r2) + sigma2).sqrt(),
        (gamma * sq(&r3) + sigma2).sqrt(),
    ];
    let correct = RgmDraws::new(r1, r2, gamma, sigma2)?;
    Ok(crate::model::BrokenDraws {
        pair: correct.pair()?,
        correct: Arc::new(correct.clone()),
        broken: Arc::new(StaleNormDraws { correct, r3, sd }),
    })
}

/// The report's instance of [`stale_norm`].
const CONTROLS: &[crate::model::spec_form::Control] = &[crate::model::spec_form::Control {
    description:
        "RGM (d = 1, γ = 1, σ² = 1, r1 = 10, r2 = 9) scaling its noise by the norm of the \
                  next dataset in a leave-one-out chain (r3 = 7)",
    seed: 102,
    build: || stale_norm(vec![10.0], vec![9.0], vec![7.0], 1.0, 1.0),
}];

fn build_pair(get: ParamLookup<'_>) -> Result<Arc<dyn PairModel>> {
    let d = get.dim("d")?;
    let keys = ["gamma", "sigma2", "n1", "n2", "dist"];
    let [gamma, sigma2, n1, n2, dist] = looked_up(get, keys)?;
    Ok(Pair::rgm(d, gamma, sigma2, n1, n2, dist)?.shared())
}

/// The registry entry of the RGM pair family.
pub(crate) static FAMILY: Family = Family {
    name: "rgm",
    pair_keys: &["d", "gamma", "sigma2", "n1", "n2", "dist"],
    input_keys: &["n1", "n2", "dist"],
    location_keys: &[],
    pair: build_pair,
    location: None,
    claim: crate::model::Guarantee::Exact,
    claim_source: "exact eps(delta) of this RGM pair, both orders (docs/formulas.md §7.3, §7.4)",
    spec: SPEC,
    noise: Some(&relative::NOISE),
};

// ---- Audit specs, the three-way comparison, the report and `dpaudit eval` (`FAMILY.spec`) ----

/// The RGM's part in specs and reports: HMB's relative sensitivity (η, R) (Def. 2) and an
/// optional Rényi order α as extra `[mechanism]` keys, Def. 2 and Theorem 1's σ² checked on the
/// spec, HMB's bounds (Corollary 1, eq. (45), Theorem 1) as functions of the spec's parameters,
/// and the exact D_α of Lemma 2 where it is finite.
const SPEC: SpecForm = SpecForm {
    rules: &[
        ("d", KeyRule::Dim(super::gaussian_dd::MAX_DIM)),
        ("gamma", KeyRule::Positive),
        ("sigma2", KeyRule::NonNegative),
        ("eta", KeyRule::Positive),
        ("R", KeyRule::NonNegative),
        ("alpha", KeyRule::OptionalOrder),
        ("n1", KeyRule::NonNegative),
        ("n2", KeyRule::NonNegative),
        ("dist", KeyRule::NonNegative),
    ],
    extra_keys: &["eta", "R", "alpha"],
    check: Some(spec_check),
    bounds: Some(spec_bounds),
    profile_bounds: Some(profile_bounds),
    rdp_bound: Some(RdpBound {
        name: "HMB Theorem 1",
        eps: |p, alpha| {
            crate::mechanisms::rgm::bounds::theorem1_eps_f64(
                p.f64("eta"),
                p.f64("gamma"),
                p.dim("d"),
                alpha,
            )
        },
        alpha_sup: Some(theorem1_alpha_sup),
        legends: |p| {
            let d = p.dim("d");
            (
                format!("exact D_α, d = {d}"),
                format!("HMB Thm 1 eq. (5), d = {d}"),
            )
        },
    }),
    exact_rdp: Some(ExactRdp {
        alpha_max,
        source: "HMB Lemma 2",
    }),
    panels: Some(Panels {
        profile: &ProfileFigure {
            stem: "profile_rgm",
            title: "Privacy profile ε(δ): Relative Gaussian Mechanism",
            caption: "Privacy profiles of the RGM pairs: exact vs HMB bounds vs audit",
        },
        renyi: Some(&RenyiPanel {
            style: RenyiStyle::BoundPerSpec,
            title: "RGM pairs: exact D_α (HMB Lemma 2) vs Theorem 1",
        }),
    }),
    describe: Some(|p| {
        let v = |k: &str| p.get(k).map_or_else(String::new, ToString::to_string);
        format!(
            "d = {}, γ = {}, σ² = {}, relative sensitivity (η, R) = ({}, {})",
            p.dim("d"),
            v("gamma"),
            v("sigma2"),
            v("eta"),
            v("R")
        )
    }),
    describe_pair: Some(|p| {
        let v = |k: &str| p.get(k).map_or_else(String::new, ToString::to_string);
        format!(
            "‖r1‖ = {}, ‖r2‖ = {}, ‖r1 − r2‖ = {}",
            v("n1"),
            v("n2"),
            v("dist")
        )
    }),
    location_curve: None,
    row_check: Some(RowCheck {
        keys: &["eta", "R"],
        check: row_check,
    }),
    quantities: &[
        RowQuantity {
            name: "rgm_theorem1_eps",
            keys: &["eta", "gamma", "d", "alpha"],
            what: "an RGM bound",
            eval: |p, digits, _| {
                let (eta, gamma) = (p.scalar("eta")?, p.scalar("gamma")?);
                let (d, alpha) = (p.dim("d")?, p.scalar("alpha")?);
                crate::mechanisms::rgm::bounds::theorem1_eps(&eta, &gamma, d, &alpha, digits)
            },
        },
        RowQuantity {
            name: "rgm_corollary1_eps",
            keys: &["eta", "gamma", "d", "delta"],
            what: "an RGM bound",
            eval: |p, digits, _| {
                let (eta, gamma) = (p.scalar("eta")?, p.scalar("gamma")?);
                let (d, delta) = (p.dim("d")?, p.scalar("delta")?);
                crate::mechanisms::rgm::bounds::corollary1_eps(&eta, &gamma, d, &delta, digits)
            },
        },
        rgm_bound("rgm_optimized_dp_eps", OPT_KEYS, optimized_value::<false>),
        // HMB's further formulas, for the seed-claims table (`dpaudit claims`, claims/*.toml).
        rgm_bound("rgm_optimized_dp_alpha", OPT_KEYS, optimized_value::<true>),
        RowQuantity {
            name: "rgm_theorem1_alpha_sup",
            keys: &["eta"],
            what: "an RGM bound",
            eval: |p, digits, _| {
                crate::mechanisms::rgm::bounds::theorem1_alpha_sup(&p.scalar("eta")?, digits)
            },
        },
        RowQuantity {
            name: "rgm_eq6_eps",
            keys: &["eps_star", "eta", "d", "alpha"],
            what: "an RGM bound",
            eval: |p, digits, _| {
                let (es, eta) = (p.scalar("eps_star")?, p.scalar("eta")?);
                let (d, alpha) = (p.dim("d")?, p.scalar("alpha")?);
                crate::mechanisms::rgm::bounds::eq6_eps(&es, &eta, d, &alpha, digits)
            },
        },
        RowQuantity {
            name: "rgm_lemma1_ratio_max",
            keys: &["eta"],
            what: "an RGM bound",
            eval: |p, digits, _| {
                crate::mechanisms::rgm::bounds::lemma1_ratio_bounds(&p.scalar("eta")?, digits)
                    .map(|(_, hi)| hi)
            },
        },
        rgm_bound("rgm_tcdp_rho", TCDP_KEYS, tcdp_value::<false, false>),
        rgm_bound("rgm_tcdp_omega", TCDP_KEYS, tcdp_value::<false, true>),
        rgm_bound("rgm_gss_tcdp_rho", TCDP_KEYS, tcdp_value::<true, false>),
        rgm_bound("rgm_gss_tcdp_omega", TCDP_KEYS, tcdp_value::<true, true>),
        RowQuantity {
            name: "rgm_worst_case_renyi",
            keys: &["eta", "gamma", "sigma2", "R", "d", "alpha"],
            what: "the RGM's exact worst case over neighbouring datasets (HMB Lemma 2)",
            eval: |p, digits, _| {
                let (eta, gamma) = (p.scalar("eta")?, p.scalar("gamma")?);
                let (sigma2, r) = (p.scalar("sigma2")?, p.scalar("R")?);
                let wc = RgmWorstCase::new(&eta, &gamma, &sigma2, &r, p.dim("d")?)?;
                wc.renyi(&p.scalar("alpha")?, digits)
            },
        },
    ],
    controls: CONTROLS,
};

/// The keys of eq. (45) optimised over α.
const OPT_KEYS: &[&str] = &["eta", "gamma", "d", "delta"];
/// The keys of the tCDP forms.
const TCDP_KEYS: &[&str] = &["eta", "gamma", "d"];

/// A paper quantity of HMB ("an RGM bound").
const fn rgm_bound(
    name: &'static str,
    keys: &'static [&'static str],
    eval: fn(ParamLookup<'_>, u32, bool) -> Result<crate::numeric::mp::Certified>,
) -> RowQuantity {
    RowQuantity {
        name,
        keys,
        what: "an RGM bound",
        eval,
    }
}

/// Eq. (45) minimised over α (HMB App. A.5): the ε, or the minimising α* if `ALPHA`.
fn optimized_value<const ALPHA: bool>(
    p: ParamLookup<'_>,
    digits: u32,
    _quadrature: bool,
) -> Result<crate::numeric::mp::Certified> {
    let (eta, gamma) = (p.scalar("eta")?, p.scalar("gamma")?);
    let (d, delta) = (p.dim("d")?, p.scalar("delta")?);
    let (eps, alpha) =
        crate::mechanisms::rgm::bounds::optimized_dp_eps(&eta, &gamma, d, &delta, digits)?;
    Ok(if ALPHA { alpha } else { eps })
}

/// ρ (or ω if `OMEGA`) of HMB's tCDP form of §4.1 (or of App. A.6, Proposition 4, if `GSS`).
fn tcdp_value<const GSS: bool, const OMEGA: bool>(
    p: ParamLookup<'_>,
    digits: u32,
    _quadrature: bool,
) -> Result<crate::numeric::mp::Certified> {
    use crate::mechanisms::rgm::bounds::TcdpForm;
    let form = if GSS {
        TcdpForm::GaussianSmoothSensitivity
    } else {
        TcdpForm::Theorem1
    };
    let (eta, gamma) = (p.scalar("eta")?, p.scalar("gamma")?);
    let t = crate::mechanisms::rgm::bounds::tcdp(form, &eta, &gamma, p.dim("d")?, digits)?;
    Ok(if OMEGA { t.omega } else { t.rho })
}

/// The spec's values of `keys`, in order (`None` if one is absent: the reader has required them).
fn spec_values<const N: usize>(p: &SpecParams<'_>, keys: [&str; N]) -> Option<[Scalar; N]> {
    let mut out: [Scalar; N] = std::array::from_fn(|_| Scalar::from(0u32));
    for (o, k) in out.iter_mut().zip(keys) {
        *o = p.get(k)?.clone();
    }
    Some(out)
}

/// The spec's checks: the pair satisfies the relative sensitivity (HMB Def. 2, eq. (3):
/// ‖r1 − r2‖² ≤ η² min(‖r1‖², ‖r2‖²) + R², decided by
/// [`crate::mechanisms::rgm::bounds::relative_sensitivity_holds`]), and σ² meets Theorem 1's condition
/// σ² ≥ γ η⁻² [1 − η(α − 1)] R² for every α ≥ 1 in its range, i.e. σ² ≥ γ R² / η² (the α = 1
/// end, [`crate::mechanisms::rgm::bounds::theorem1_sigma2_holds_for_all_alpha`]).
fn spec_check(p: &SpecParams<'_>) -> std::result::Result<(), SpecIssue> {
    let keys = ["eta", "R", "n1", "n2", "dist", "gamma", "sigma2"];
    let Some([eta, r, n1, n2, dist, gamma, sigma2]) = spec_values(p, keys) else {
        return Ok(());
    };
    if !crate::mechanisms::rgm::bounds::relative_sensitivity_holds(&eta, &r, &n1, &n2, &dist) {
        return Err(SpecIssue {
            field: "pair.dist",
            value: dist.to_string(),
            expected: format!(
                "admissible for the relative sensitivity (HMB Def. 2, eq. (3)): dist² = {} must be \
                 <= eta² min(n1, n2)² + R² = {}",
                dist.f64().powi(2),
                eta.f64().powi(2) * n1.f64().min(n2.f64()).powi(2) + r.f64().powi(2)
            ),
        });
    }
    let (holds, min) = crate::mechanisms::rgm::bounds::theorem1_sigma2_holds_for_all_alpha(
        &eta, &r, &gamma, &sigma2,
    );
    if holds {
        Ok(())
    } else {
        Err(SpecIssue {
            field: "mechanism.sigma2",
            value: sigma2.to_string(),
            expected: format!(
                ">= gamma R² / eta² = {} (HMB Theorem 1's condition sigma² >= gamma eta⁻² \
                 [1 - eta (alpha - 1)] R² at alpha = 1)",
                min
            ),
        })
    }
}

/// HMB's bounds on an RGM spec at its δ: Corollary 1, eq. (44); eq. (45) optimised over α; and
/// at that α (or the spec's) Theorem 1's RDP ε(α), shown beside the exact D_α (Lemma 2, eq. (13)).
fn spec_bounds(p: &SpecParams<'_>, digits: u32) -> Vec<PaperBound> {
    let Some([eta, gamma]) = spec_values(p, ["eta", "gamma"]) else {
        return Vec::new();
    };
    let (d, delta, alpha) = (p.dim("d"), p.delta, p.get("alpha"));
    let mut out = vec![PaperBound {
        rdp_at: None,
        short: "Cor. 1 eq. (44)",
        label: "HMB Corollary 1, eq. (44)".into(),
        value: crate::mechanisms::rgm::bounds::corollary1_eps(&eta, &gamma, d, delta, digits)
            .map(BoundValue::Certified),
        note: String::new(),
    }];
    let mut alpha_used: Option<Scalar> = alpha.cloned();
    let (value, note) =
        match crate::mechanisms::rgm::bounds::optimized_dp_eps(&eta, &gamma, d, delta, digits) {
            Ok((c, a)) => {
                if alpha_used.is_none() {
                    alpha_used = Some(Scalar::from_float(&a.value));
                }
                let note = format!("α* = {}", fmt_sig(a.to_f64(), 8));
                (Ok(BoundValue::Certified(c)), note)
            }
            Err(e) => (Err(e), String::new()),
        };
    out.push(PaperBound {
        rdp_at: None,
        short: "eq. (45) opt.",
        label: "HMB eq. (45) (Thm 1 + Mironov conversion), minimised over α".into(),
        value,
        note,
    });
    if let Some(a) = alpha_used {
        let how = if alpha.is_some() {
            "α from the spec"
        } else {
            "α* of eq. (45)"
        };
        out.push(PaperBound {
            value: crate::mechanisms::rgm::bounds::theorem1_eps(&eta, &gamma, d, &a, digits)
                .map(BoundValue::Certified),
            note: format!("α = {} ({how})", fmt_sig(a.f64(), 8)),
            rdp_at: Some((
                a,
                "exact D_α of the pair (HMB Lemma 2, eq. (13)), max of both orders",
            )),
            short: "Thm 1 ε(α)",
            label: "HMB Theorem 1, eq. (5): RDP ε(α)".into(),
        });
    }
    out
}

/// HMB's (ε, δ) bounds as curves over δ: Corollary 1, eq. (44) and eq. (45) optimised over α.
fn profile_bounds(p: &SpecParams<'_>, deltas: &[f64]) -> Vec<BoundCurve> {
    use rayon::prelude::*;
    let (eta, gamma, d) = (p.f64("eta"), p.f64("gamma"), p.dim("d"));
    let cor: Vec<(f64, f64)> = deltas
        .par_iter()
        .filter_map(|&dl| {
            crate::mechanisms::rgm::bounds::corollary1_eps_f64(eta, gamma, d, dl)
                .ok()
                .map(|e| (dl, e))
        })
        .collect();
    let opt: Vec<(f64, f64)> = deltas
        .par_iter()
        .filter_map(|&dl| {
            crate::mechanisms::rgm::bounds::optimized_dp_eps_f64(eta, gamma, d, dl)
                .ok()
                .map(|(e, _)| (dl, e))
        })
        .collect();
    vec![
        BoundCurve {
            label: "HMB Cor. 1, eq. (44)".into(),
            points: cor,
            colour: 1,
        },
        BoundCurve {
            label: "HMB eq. (45), optimised α".into(),
            points: opt,
            colour: 3,
        },
    ]
}

/// The supremum of Theorem 1's α-range, (1 + η)² / (2η + η²) (HMB Theorem 1, eq. (5)).
fn theorem1_alpha_sup(p: &SpecParams<'_>) -> f64 {
    let e = p.f64("eta");
    (1.0 + e).powi(2) / (2.0 * e + e * e)
}

/// Largest α at which the RGM pair's D_α is finite: σ_α² = α σ2² + (1 − α) σ1² > 0 in both
/// orders (HMB Lemma 2), capped at 10⁴.
fn alpha_max(p: &SpecParams<'_>) -> f64 {
    let g = p.f64("gamma");
    let s = p.f64("sigma2");
    let v1 = g * p.f64("n1").powi(2) + s;
    let v2 = g * p.f64("n2").powi(2) + s;
    let (lo, hi) = (v1.min(v2), v1.max(v2));
    if hi > lo {
        // α lo + (1 − α) hi > 0  ⇔  α < hi / (hi − lo)
        return (hi / (hi - lo) * (1.0 - 1e-9)).min(1e4);
    }
    1e4
}

/// The check of an `rgm` row of `dpaudit eval` with (eta, R): the relative sensitivity of
/// HMB Def. 2 ([`crate::mechanisms::rgm::bounds::check_relative_sensitivity`]); both or neither.
fn row_check(get: &dyn Fn(&str) -> Result<Option<Scalar>>, pair: &Pair) -> Result<()> {
    match (get("eta")?, get("R")?) {
        (None, None) => Ok(()),
        (Some(eta), Some(r)) => match pair.downcast_ref::<RgmPair>() {
            Some(RgmPair { n1, n2, dist, .. }) => {
                crate::mechanisms::rgm::bounds::check_relative_sensitivity(&eta, &r, n1, n2, dist)
            }
            None => Ok(()),
        },
        _ => Err(Error::MissingParameter {
            name: "eta and R (give both or neither)".into(),
            needed_by: "the relative-sensitivity check of family rgm".into(),
        }),
    }
}
