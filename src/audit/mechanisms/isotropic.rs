//! The audit mechanisms of the isotropic Gaussian pairs in ℝ^d: the Relative Gaussian Mechanism
//! (HMB Def. 3) and the `gaussian_dd` pair. Both are one `Isotropic` geometry (two centres, two
//! noise scales, the statistics and their grid) with their own sampler and claim.

use super::*;
use crate::mechanisms::gaussian_dd::GaussianDdPair;
use crate::mechanisms::rgm::RgmPair;
use crate::mechanisms::IsotropicGaussian;

/// Largest dimension audited (specs accept no more): every draw is a d-vector, so a larger d is
/// refused rather than allocated.
pub(crate) const MAX_DIM: u32 = 100_000;

fn audit_dim(d: u32) -> Result<usize> {
    if d > MAX_DIM {
        return Err(Error::invalid(
            "d",
            d,
            &format!("at most {MAX_DIM} for an audit (every draw is a d-vector)"),
        ));
    }
    Ok(d as usize)
}

pub(super) fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// P = N(r1, s1² I_d) and Q = N(r2, s2² I_d) as the audit sees them: the outputs y ∈ ℝ^d and
/// their statistics. White box, the exact LLR d·log(s2/s1) − ‖y − r1‖²/(2s1²) + ‖y − r2‖²/(2s2²)
/// (the quadratic of docs/formulas.md §7.4); black box, the projection ⟨y − r1, e⟩ with
/// e = (r2 − r1)/‖r2 − r1‖ (e₁ when r1 = r2).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Isotropic {
    pub(super) r1: Vec<f64>,
    pub(super) r2: Vec<f64>,
    /// s1, s2: noise standard deviations on x and x′.
    s: [f64; 2],
    /// Unit vector along r2 − r1 (e_1 when r1 = r2).
    e: Vec<f64>,
    /// ‖r2 − r1‖.
    pub(super) dist: f64,
}

impl Isotropic {
    /// From centres of the same dimension d ≥ 1 and positive, finite sds (checked by the callers).
    fn new(r1: Vec<f64>, r2: Vec<f64>, s: [f64; 2]) -> Self {
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
        Isotropic { r1, r2, s, e, dist }
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
                *yi = c + sd * std_normal(rng);
            }
            *o = self.stat_of(stat, &y);
        }
    }

    /// The centre r_i of side `side`.
    pub(crate) fn centre(&self, side: Side) -> &[f64] {
        match side {
            Side::P => &self.r1,
            Side::Q => &self.r2,
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
    fn range(&self, stat: Statistic) -> (f64, f64) {
        self.range_for(stat, [(&self.r1, self.s[0]), (&self.r2, self.s[1])])
    }

    /// Draws `out.len()` outputs of one side with `draw` and stores their statistic.
    fn sample_with(&self, stat: Statistic, out: &mut [f64], mut draw: impl FnMut(&mut [f64])) {
        let mut y = vec![0.0; self.dim()];
        for o in out.iter_mut() {
            draw(&mut y);
            *o = self.stat_of(stat, &y);
        }
    }
}

/// The Relative Gaussian Mechanism (HMB eq. 4) on a pair of concrete query outputs r1 = R(x),
/// r2 = R(x′) ∈ ℝ^d: P = N(r1, s1² I_d), Q = N(r2, s2² I_d) with s_i² = γ‖r_i‖² + σ².
///
/// Every output is drawn by the RGM sampler as a d-vector y = r_i + s_i z and reduced at once to
/// its statistic: white box, the exact LLR d·log(s2/s1) − ‖y − r1‖²/(2s1²) + ‖y − r2‖²/(2s2²)
/// (docs/formulas.md §7.4); black box, the projection ⟨y − r1, r2 − r1⟩/‖r2 − r1‖. Claimed ε(δ):
/// the exact ε of this pair in both orders (docs/formulas.md §7.3 for d = 1, §7.4 for d > 1).
#[derive(Debug, Clone, PartialEq)]
pub struct RgmMechanism {
    pub(crate) geo: Isotropic,
    gamma: f64,
    sigma2: f64,
    n1: f64,
    n2: f64,
    /// The sampler (dist module).
    sampler: Rgm,
}

impl RgmMechanism {
    /// From the query outputs r1 = R(x), r2 = R(x′) (same dimension d ≥ 1, finite), the relative
    /// noise scale γ ≥ 0 and the baseline variance σ² ≥ 0 (HMB eq. 4; σ² = 0 is the pure
    /// relative-noise RGM, valid when both γ‖r_i‖² + σ² > 0).
    pub fn new(r1: Vec<f64>, r2: Vec<f64>, gamma: f64, sigma2: f64) -> Result<Self> {
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
        Ok(RgmMechanism {
            geo: Isotropic::new(r1, r2, s),
            gamma,
            sigma2,
            n1,
            n2,
            sampler,
        })
    }

    /// The mechanism of an RGM pair model ([`Pair::rgm`], validated there): realises the triple
    /// (n1, n2, dist) = (‖r1‖, ‖r2‖, ‖r1 − r2‖) as concrete vectors in ℝ^d, r1 = n1·e₁ and r2 in
    /// the plane of e₁, e₂. Errors for a pair of another family, or d = 1 with a non-collinear
    /// triple.
    pub fn from_pair(pair: &Pair) -> Result<Self> {
        let m = pair
            .downcast_ref::<RgmPair>()
            .ok_or_else(|| Error::Unsupported(format!("not an RGM pair: {pair}")))?;
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
    pub fn dim(&self) -> usize {
        self.geo.dim()
    }

    /// Noise standard deviations (s1, s2) on x and x′.
    pub fn noise_sds(&self) -> (f64, f64) {
        (self.geo.s[0], self.geo.s[1])
    }

    /// The exact pair (for the claimed ε and reports).
    pub fn pair(&self) -> Result<Pair> {
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

impl Mechanism for RgmMechanism {
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

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let r = self.geo.centre(side);
        self.geo.sample_with(stat, out, |y| {
            // Cannot fail: r and y have dimension d.
            let _ = self.sampler.sample_into(r, rng, y);
        });
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.geo.range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        pair_eps(&self.pair()?, delta)
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of this RGM pair, both orders (docs/formulas.md §7.3, §7.4)".into()
    }
}

/// The `gaussian_dd` pair, N(0, σ1² I_d) on x and N(dist·e₁, σ2² I_d) on x′: the d-dimensional
/// Gaussian mechanism with ℓ2 sensitivity `dist`, its noise scale allowed to differ between the
/// neighbours. Each side is drawn by its own [`IsotropicGaussian`] (the family's sampler) and
/// reduced to the statistics of [`RgmMechanism`] (the LLR, or the projection on m2 − m1).
/// Claimed ε(δ): the exact ε of the pair in both orders (docs/formulas.md §7.1, §7.3, §7.4),
/// computed from the exact parameters.
#[derive(Debug, Clone)]
pub struct GaussianDdMechanism {
    pub(super) geo: Isotropic,
    laws: [IsotropicGaussian; 2],
    pair: Pair,
}

impl GaussianDdMechanism {
    /// The mechanism of a `gaussian_dd` pair model ([`Pair::gaussian_dd`], validated there).
    /// Errors for a pair of another family or a d above 10⁵.
    pub fn from_pair(pair: &Pair) -> Result<Self> {
        let m = pair
            .downcast_ref::<GaussianDdPair>()
            .ok_or_else(|| Error::Unsupported(format!("not a gaussian_dd pair: {pair}")))?;
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
        Ok(GaussianDdMechanism {
            geo: Isotropic::new(r1, r2, s),
            laws,
            pair: pair.clone(),
        })
    }

    /// The exact pair.
    pub fn pair(&self) -> &Pair {
        &self.pair
    }
}

impl Mechanism for GaussianDdMechanism {
    fn name(&self) -> String {
        self.pair.to_string()
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let law = &self.laws[side_index(side)];
        self.geo.sample_with(stat, out, |y| {
            // Cannot fail: y has dimension d.
            let _ = law.sample_into(rng, y);
        });
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.geo.range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        pair_eps(&self.pair, delta)
    }

    fn claim_source(&self) -> String {
        self.pair.model().family().claim_source.into()
    }
}
