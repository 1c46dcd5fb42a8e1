//! Mechanisms on a neighbouring pair, as the audit engine sees them.
//!
//! A [`Mechanism`] stands for one mechanism run on two neighbouring inputs x and x′. Its output
//! law on x is P (the [`Side::P`] side), on x′ it is Q ([`Side::Q`]). The engine never sees the
//! outputs themselves, only a scalar **test statistic** of each output, drawn in batches from a
//! seeded generator:
//!
//! * [`Statistic::White`] (white box): the exact log-likelihood ratio log(dP/dQ)(y) of the
//!   mechanism **as designed**, evaluated at the output y that the implementation produced. For a
//!   correct implementation this is the Neyman–Pearson optimal statistic, so thresholding it
//!   reaches the exact ε(δ) (docs/formulas.md §7: H_{e^ε}(P‖Q) = P(L > ε) − e^ε Q(L > ε)). For a broken
//!   implementation ([`super::controls`]) the statistic is still the designer's LLR: the auditor
//!   knows the specification, not the bug.
//! * [`Statistic::Black`] (black box): a plain statistic of the output: the output itself for the
//!   one-dimensional mechanisms, the projection ⟨y − r1, r2 − r1⟩/‖r2 − r1‖ for the RGM.
//!
//! Atoms (the rectified mechanism's clipping points, the stochastic sign's two values) produce
//! ties in the statistic; the engine's histograms count them in one bin, so a threshold either
//! takes a whole atom or none of it. The black-box statistic of the rectified mechanism relabels
//! the lower atom below the support so that each atom has a bin of its own (a one-to-one
//! function of the output, hence still a black-box statistic).
//!
//! Each mechanism reports the range of its statistic that matters ([`Mechanism::statistic_range`],
//! the engine's histogram grid: ±12σ around the pair for the Gaussian) and the privacy its
//! designer **claims** ([`Mechanism::claimed_eps`]): for the mechanisms here, the exact ε(δ) of
//! the correct mechanism on this pair, maximised over both orders (Balle & Wang 2018, Thm 8 for
//! the Gaussian; the closed forms of docs/formulas.md §7.2–7.3 through [`crate::divergence`] for the
//! others).

use rand::distr::Distribution;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

use super::engine::Grid;
use crate::dist::{Rectified, Rgm, StochasticSign, Truncated};
use crate::divergence::{self, Method, Pair};
use crate::error::{
    check_finite, check_interval, check_nonnegative, check_positive, Error, Result,
};
use crate::numeric::f64s::{gaussian_eps_for_delta, log_ndtr};
use crate::scalar::Scalar;

/// The generator every audit stream uses: ChaCha8 (portable, reproducible, fast), as in
/// [`crate::dist::stream`].
pub use crate::dist::stream::StreamRng;

/// Digits to which claimed ε values are certified (a claim is compared with a Monte Carlo lower
/// bound, so a few digits suffice).
pub const CLAIM_DIGITS: u32 = 6;

/// Half-width of the statistic grid in noise standard deviations (tails beyond it fall in the
/// under/overflow bins, which the threshold search still uses).
pub const GRID_SIGMAS: f64 = 12.0;

/// Which neighbouring input a batch of outputs comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    /// The mechanism on x: output law P.
    P,
    /// The mechanism on the neighbour x′: output law Q.
    Q,
}

/// Which test statistic the audit thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Statistic {
    /// The designed mechanism's exact log-likelihood ratio log(dP/dQ)(y).
    #[default]
    White,
    /// A plain output statistic (the output itself in 1-D; a projection for the RGM).
    Black,
}

impl std::fmt::Display for Statistic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Statistic::White => "white",
            Statistic::Black => "black",
        })
    }
}

impl std::str::FromStr for Statistic {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "white" | "white-box" | "llr" => Ok(Statistic::White),
            "black" | "black-box" | "output" => Ok(Statistic::Black),
            other => Err(Error::invalid("statistic", other, "one of white, black")),
        }
    }
}

/// A mechanism on a fixed neighbouring pair (x, x′), as a source of test statistics.
///
/// Implementations must be deterministic functions of the generator's output: the engine's
/// reproducibility across thread counts rests on it.
pub trait Mechanism: Sync {
    /// A short name with the parameters, e.g. `gaussian(sensitivity=1, sigma=5)`.
    fn name(&self) -> String;

    /// Fills `out` with independent draws of the statistic `stat` of the mechanism's output on
    /// side `side`, consuming `rng` in a fixed order.
    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]);

    /// The range `(lo, hi)`, lo < hi, of the statistic that the histogram grid should resolve.
    fn statistic_range(&self, stat: Statistic) -> (f64, f64);

    /// The privacy claimed for this mechanism at `delta`: the ε such that the designer asserts
    /// (ε, δ)-DP on this pair in both orders.
    fn claimed_eps(&self, delta: f64) -> Result<f64>;

    /// What [`Mechanism::claimed_eps`] is (the source of the claim), for reports.
    fn claim_source(&self) -> String;

    /// Draws `n` statistics on `side` (consuming `rng` exactly as [`Mechanism::sample_statistic`]
    /// would for the same total, in batches of [`BIN_BATCH`]) and counts them into
    /// `counts[grid.index(t)]`. The engine's hot loop; mechanisms may override it with a fused
    /// loop that draws, maps and bins without a buffer, as long as the counts are a
    /// deterministic function of the generator's output.
    fn bin_statistic(
        &self,
        side: Side,
        stat: Statistic,
        rng: &mut StreamRng,
        grid: &Grid,
        n: usize,
        counts: &mut [u32],
    ) {
        let mut buf = [0.0f64; BIN_BATCH];
        let mut left = n;
        while left > 0 {
            let m = left.min(BIN_BATCH);
            let b = &mut buf[..m];
            self.sample_statistic(side, stat, rng, b);
            for &t in b.iter() {
                counts[grid.index(t)] += 1;
            }
            left -= m;
        }
    }
}

/// Batch length of the default [`Mechanism::bin_statistic`].
pub const BIN_BATCH: usize = 512;

impl<M: Mechanism + ?Sized> Mechanism for &M {
    fn name(&self) -> String {
        (**self).name()
    }
    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        (**self).sample_statistic(side, stat, rng, out)
    }
    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        (**self).statistic_range(stat)
    }
    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        (**self).claimed_eps(delta)
    }
    fn claim_source(&self) -> String {
        (**self).claim_source()
    }
    fn bin_statistic(
        &self,
        side: Side,
        stat: Statistic,
        rng: &mut StreamRng,
        grid: &Grid,
        n: usize,
        counts: &mut [u32],
    ) {
        (**self).bin_statistic(side, stat, rng, grid, n, counts)
    }
}

/// One standard normal draw (ziggurat, `rand_distr::StandardNormal`).
#[inline(always)]
pub(crate) fn std_normal(rng: &mut StreamRng) -> f64 {
    StandardNormal.sample(rng)
}

/// Checks δ ∈ (0, 1).
pub(crate) fn check_delta(delta: f64) -> Result<f64> {
    crate::error::check_open_unit("delta", delta)
}

/// The exact ε(δ) of a pair, maximised over both orders, from the certified closed forms (or
/// quadrature where there is none) of [`crate::divergence`].
pub(crate) fn pair_eps(pair: &Pair, delta: f64) -> Result<f64> {
    check_delta(delta)?;
    let d = Scalar::from(delta);
    let e1 = divergence::eps_for_delta(pair, &d, CLAIM_DIGITS, Method::Auto)?;
    let e2 = divergence::eps_for_delta(&pair.swapped(), &d, CLAIM_DIGITS, Method::Auto)?;
    Ok(e1.value.to_f64().max(e2.value.to_f64()))
}

/// 0 for P, 1 for Q.
#[inline]
pub(crate) fn side_index(side: Side) -> usize {
    match side {
        Side::P => 0,
        Side::Q => 1,
    }
}

/// A range with lo < hi: widens a degenerate one (e.g. a constant LLR) to ±1 around it.
fn proper_range(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, lo + 1.0)
    }
}

// ---------------------------------------------------------------------------------------------
// Gaussian

/// The Gaussian mechanism on a pair at distance `sensitivity`: P = N(0, σ²), Q = N(Δ, σ²).
///
/// LLR: log(dP/dQ)(y) = (Δ/σ²)(Δ/2 − y), affine in y. Claimed ε(δ): the exact profile inverse
/// (Balle & Wang 2018, Thm 8; docs/formulas.md §7.1) via [`gaussian_eps_for_delta`] with μ = Δ/σ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianMechanism {
    sensitivity: f64,
    sigma: f64,
}

impl GaussianMechanism {
    /// Validated constructor: Δ > 0 and σ > 0, both finite.
    pub fn new(sensitivity: f64, sigma: f64) -> Result<Self> {
        check_positive("sensitivity", sensitivity)?;
        check_positive("sigma", sigma)?;
        Ok(GaussianMechanism { sensitivity, sigma })
    }

    /// Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The mean of the output on `side`.
    pub fn mean(&self, side: Side) -> f64 {
        match side {
            Side::P => 0.0,
            Side::Q => self.sensitivity,
        }
    }

    /// The statistic of an output `y` as the affine map `a + b·y`: returns (a, b).
    pub(crate) fn affine(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::Black => (0.0, 1.0),
            Statistic::White => {
                let k = self.sensitivity / (self.sigma * self.sigma);
                (k * self.sensitivity / 2.0, -k)
            }
        }
    }

    /// Fills `out` with the statistic of y = mean + `noise_sigma`·Z (the engine's hot loop:
    /// one ziggurat draw and one fused affine map per sample).
    #[inline]
    pub(crate) fn fill(
        &self,
        side: Side,
        stat: Statistic,
        noise_sigma: f64,
        rng: &mut StreamRng,
        out: &mut [f64],
    ) {
        let (a, b) = self.affine(stat);
        // stat = a + b (m + s z) = (a + b m) + (b s) z.
        let c0 = a + b * self.mean(side);
        let c1 = b * noise_sigma;
        for o in out.iter_mut() {
            *o = c0 + c1 * std_normal(rng);
        }
    }
}

impl GaussianMechanism {
    /// The fused hot loop: slot = clamp(a + b·Z) with the statistic's affine map and the grid's
    /// scale folded into (a, b); one ziggurat draw, one multiply-add and one increment per
    /// sample, no buffer.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn bin_fused(
        &self,
        side: Side,
        stat: Statistic,
        noise_sigma: f64,
        rng: &mut StreamRng,
        grid: &Grid,
        n: usize,
        counts: &mut [u32],
    ) {
        let (a, b) = self.affine(stat);
        let c0 = a + b * self.mean(side);
        let c1 = b * noise_sigma;
        let (s0, s1) = grid.fold_affine(c0, c1);
        for _ in 0..n {
            counts[grid.slot_of_scaled(s0 + s1 * std_normal(rng))] += 1;
        }
    }
}

impl Mechanism for GaussianMechanism {
    fn name(&self) -> String {
        format!(
            "gaussian(sensitivity={}, sigma={})",
            self.sensitivity, self.sigma
        )
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.fill(side, stat, self.sigma, rng, out)
    }

    fn bin_statistic(
        &self,
        side: Side,
        stat: Statistic,
        rng: &mut StreamRng,
        grid: &Grid,
        n: usize,
        counts: &mut [u32],
    ) {
        self.bin_fused(side, stat, self.sigma, rng, grid, n, counts)
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        let w = GRID_SIGMAS * self.sigma;
        let (y0, y1) = (-w, self.sensitivity + w);
        let (a, b) = self.affine(stat);
        let (s0, s1) = (a + b * y0, a + b * y1);
        (s0.min(s1), s0.max(s1))
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        Ok(gaussian_eps_for_delta(self.sensitivity / self.sigma, delta))
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the Gaussian mechanism (Balle & Wang 2018, Thm 8)".into()
    }
}

// ---------------------------------------------------------------------------------------------
// RGM

/// The Relative Gaussian Mechanism (HMB eq. 4) on a pair of concrete query outputs r1 = R(x),
/// r2 = R(x′) ∈ ℝ^d: P = N(r1, s1² I_d), Q = N(r2, s2² I_d) with s_i² = γ‖r_i‖² + σ².
///
/// Every output is drawn as a d-vector y = r_i + s_i z and reduced to its statistic at once:
/// white box, the exact LLR d·log(s2/s1) − ‖y − r1‖²/(2s1²) + ‖y − r2‖²/(2s2²) (the quadratic
/// of docs/formulas.md §7.4), computed from y; black box, the projection ⟨y − r1, e⟩ with
/// e = (r2 − r1)/‖r2 − r1‖. Claimed ε(δ): the exact ε of this pair in both orders (docs/formulas.md
/// §7.3 for d = 1; §7.4 by quadrature for d > 1, available once the quadrature route is).
#[derive(Debug, Clone, PartialEq)]
pub struct RgmMechanism {
    r1: Vec<f64>,
    r2: Vec<f64>,
    gamma: f64,
    sigma2: f64,
    /// s1, s2: noise standard deviations on x and x′.
    s: [f64; 2],
    /// Unit vector along r2 − r1 (e_1 when r1 = r2).
    e: Vec<f64>,
    /// ‖r2 − r1‖.
    dist: f64,
    n1: f64,
    n2: f64,
    /// The sampler (dist module).
    sampler: Rgm,
}

fn norm(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

impl RgmMechanism {
    /// From the query outputs r1 = R(x), r2 = R(x′) (same dimension d ≥ 1, finite), the relative
    /// noise scale γ ≥ 0 and the baseline variance σ² > 0 (HMB eq. 4).
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
        check_positive("sigma2", sigma2)?;
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
        let (n1, n2) = (norm(&r1), norm(&r2));
        let s = [
            (gamma * n1 * n1 + sigma2).sqrt(),
            (gamma * n2 * n2 + sigma2).sqrt(),
        ];
        for (name, v) in [("s1", s[0]), ("s2", s[1])] {
            check_positive(name, v)?;
        }
        let sampler = Rgm::new(gamma, sigma2, r1.len())?;
        Ok(RgmMechanism {
            r1,
            r2,
            gamma,
            sigma2,
            s,
            e,
            dist,
            n1,
            n2,
            sampler,
        })
    }

    /// Realises the triple (n1, n2, dist) = (‖r1‖, ‖r2‖, ‖r1 − r2‖) as concrete vectors in ℝ^d:
    /// r1 = n1·e₁ and r2 in the plane of e₁, e₂. Errors when no such vectors exist (triangle
    /// inequality, or d = 1 with a non-collinear triple).
    pub fn from_norms(
        d: usize,
        n1: f64,
        n2: f64,
        dist: f64,
        gamma: f64,
        sigma2: f64,
    ) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("d", d, "an integer >= 1"));
        }
        let d32 = u32::try_from(d).map_err(|_| Error::invalid("d", d, "at most 2^32 - 1"))?;
        // Validates the triangle inequality and the signs.
        Pair::rgm(
            d32,
            Scalar::from(gamma),
            Scalar::from(sigma2),
            Scalar::from(n1),
            Scalar::from(n2),
            Scalar::from(dist),
        )?;
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
        self.r1.len()
    }

    /// Noise standard deviations (s1, s2) on x and x′.
    pub fn noise_sds(&self) -> (f64, f64) {
        (self.s[0], self.s[1])
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
            Scalar::from(self.dist.clamp(lo, hi)),
        )
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
            self.dist
        )
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let r = self.centre(side);
        let mut y = vec![0.0; self.dim()];
        for o in out.iter_mut() {
            // Cannot fail: r and y have dimension d.
            let _ = self.sampler.sample_into(r, rng, &mut y);
            *o = self.stat_of(stat, &y);
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.range_for(stat, [(&self.r1, self.s[0]), (&self.r2, self.s[1])])
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        pair_eps(&self.pair()?, delta)
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of this RGM pair, both orders (docs/formulas.md §7.3, §7.4)".into()
    }
}

// ---------------------------------------------------------------------------------------------
// Rectified and truncated

/// Parameters shared by the rectified and truncated mechanisms: locations μ1 (on x), μ2 (on x′),
/// scale σ and support [a, b].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounded {
    /// Location on x.
    pub mu1: f64,
    /// Location on x′.
    pub mu2: f64,
    /// Noise standard deviation.
    pub sigma: f64,
    /// Lower end of the support.
    pub a: f64,
    /// Upper end of the support.
    pub b: f64,
}

impl Bounded {
    /// Validated: finite locations, σ > 0, a < b finite.
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
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

    /// The location on `side`.
    pub(crate) fn mu(&self, side: Side) -> f64 {
        match side {
            Side::P => self.mu1,
            Side::Q => self.mu2,
        }
    }

    /// Interior log-ratio slope k and offset c: log(p_{μ1}/p_{μ2})(y) = c + k·y with
    /// k = (μ1 − μ2)/σ², c = −k(μ1 + μ2)/2 (docs/formulas.md §7.2).
    fn interior_llr(&self) -> (f64, f64) {
        let k = (self.mu1 - self.mu2) / (self.sigma * self.sigma);
        (-k * (self.mu1 + self.mu2) / 2.0, k)
    }

    fn fmt_params(&self) -> String {
        format!(
            "mu1={}, mu2={}, sigma={}, a={}, b={}",
            self.mu1, self.mu2, self.sigma, self.a, self.b
        )
    }
}

/// The rectified Gaussian mechanism clip(μ_i + N(0, σ²), a, b) (HG Def. 3.1; docs/formulas.md §1).
///
/// White box: the LLR is c + k·y inside (a, b) and log(Φ(A1)/Φ(A2)), log(Φ(−B1)/Φ(−B2)) at the
/// atoms a and b (computed once, in log space). Black box: the output, with the lower atom
/// relabelled to a − (b − a) so that it has a bin of its own (the upper atom sits on the grid's
/// upper end and is alone in the overflow bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RectifiedMechanism {
    p: Bounded,
    /// Samplers on x and x′ (dist module).
    sampler: [Rectified; 2],
    /// LLR at the atoms a and b.
    atom_llr: [f64; 2],
}

impl RectifiedMechanism {
    /// Validated constructor (see [`Bounded::new`]).
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        let p = Bounded::new(mu1, mu2, sigma, a, b)?;
        let z = |x: f64, m: f64| (x - m) / sigma;
        let atom_a = log_ndtr(z(a, mu1)) - log_ndtr(z(a, mu2));
        let atom_b = log_ndtr(-z(b, mu1)) - log_ndtr(-z(b, mu2));
        Ok(RectifiedMechanism {
            p,
            sampler: [
                Rectified::new(mu1, sigma, a, b)?,
                Rectified::new(mu2, sigma, a, b)?,
            ],
            atom_llr: [atom_a, atom_b],
        })
    }

    /// The parameters.
    pub fn params(&self) -> Bounded {
        self.p
    }

    /// The designed statistic of an output y ∈ [a, b].
    #[inline]
    pub(crate) fn stat_of(&self, stat: Statistic, y: f64) -> f64 {
        let p = &self.p;
        match stat {
            Statistic::Black => {
                if y <= p.a {
                    p.a - (p.b - p.a)
                } else {
                    y
                }
            }
            Statistic::White => {
                if y <= p.a {
                    self.atom_llr[0]
                } else if y >= p.b {
                    self.atom_llr[1]
                } else {
                    let (c, k) = p.interior_llr();
                    c + k * y
                }
            }
        }
    }
}

impl Mechanism for RectifiedMechanism {
    fn name(&self) -> String {
        format!("rectified({})", self.p.fmt_params())
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.sampler[side_index(side)].sample_many(rng, out);
        for o in out.iter_mut() {
            *o = self.stat_of(stat, *o);
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            // Interior [a, b): the relabelled lower atom falls below, the upper atom at b in
            // the overflow bin.
            Statistic::Black => (self.p.a, self.p.b),
            // Interior LLR range; the atoms' LLRs are more extreme (the Mills-ratio ordering)
            // and fall in the under/overflow bins.
            Statistic::White => {
                let (c, k) = self.p.interior_llr();
                let (u, v) = (c + k * self.p.a, c + k * self.p.b);
                proper_range(u.min(v), u.max(v))
            }
        }
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        let p = &self.p;
        pair_eps(
            &Pair::rectified(
                p.mu1.into(),
                p.mu2.into(),
                p.sigma.into(),
                p.a.into(),
                p.b.into(),
            )?,
            delta,
        )
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the rectified pair, both orders (docs/formulas.md §7.2)".into()
    }
}

/// The truncated Gaussian mechanism: N(μ_i, σ²) conditioned on [a, b] (HG Def. 3.2; docs/formulas.md §2).
///
/// White box: the LLR c + k·y + log(Z(μ2)/Z(μ1)) (docs/formulas.md §7.2), affine on [a, b]. Black box:
/// the output. Sampling: the exact sampler of [`crate::dist::Truncated`] (fast at any location,
/// including far outside [a, b]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruncatedMechanism {
    p: Bounded,
    /// Samplers on x and x′ (dist module).
    sampler: [Truncated; 2],
    /// log Z(μ2) − log Z(μ1).
    ln_z_ratio: f64,
}

impl TruncatedMechanism {
    /// Validated constructor (see [`Bounded::new`]; also errors where the dist module's
    /// sampler cannot represent Z(μ_i)).
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        let p = Bounded::new(mu1, mu2, sigma, a, b)?;
        let sampler = [
            Truncated::new(mu1, sigma, a, b)?,
            Truncated::new(mu2, sigma, a, b)?,
        ];
        let ln_z_ratio = sampler[1].ln_normaliser() - sampler[0].ln_normaliser();
        if !ln_z_ratio.is_finite() {
            return Err(Error::invalid(
                "mu1, mu2",
                format!("{mu1}, {mu2}"),
                "locations whose normalisers Z(mu) are representable in log space",
            ));
        }
        Ok(TruncatedMechanism {
            p,
            sampler,
            ln_z_ratio,
        })
    }

    /// The parameters.
    pub fn params(&self) -> Bounded {
        self.p
    }

    /// The designed statistic of an output y.
    #[inline]
    pub(crate) fn stat_of(&self, stat: Statistic, y: f64) -> f64 {
        match stat {
            Statistic::Black => y,
            Statistic::White => {
                let (c, k) = self.p.interior_llr();
                c + k * y + self.ln_z_ratio
            }
        }
    }

    pub(crate) fn range(&self, stat: Statistic) -> (f64, f64) {
        let (u, v) = (self.stat_of(stat, self.p.a), self.stat_of(stat, self.p.b));
        proper_range(u.min(v), u.max(v))
    }

    pub(crate) fn claim(&self, delta: f64) -> Result<f64> {
        let p = &self.p;
        pair_eps(
            &Pair::truncated(
                p.mu1.into(),
                p.mu2.into(),
                p.sigma.into(),
                p.a.into(),
                p.b.into(),
            )?,
            delta,
        )
    }
}

impl Mechanism for TruncatedMechanism {
    fn name(&self) -> String {
        format!("truncated({})", self.p.fmt_params())
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.sampler[side_index(side)].sample_many(rng, out);
        for o in out.iter_mut() {
            *o = self.stat_of(stat, *o);
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.claim(delta)
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the truncated pair, both orders (docs/formulas.md §7.2)".into()
    }
}

// ---------------------------------------------------------------------------------------------
// Stochastic sign

/// The stochastic sign sign(μ_i + N(0, σ²)) ∈ {−1, +1} (docs/formulas.md §3).
///
/// White box: LLR log(Φ(±μ1/σ)/Φ(±μ2/σ)) at ±1. Black box: the output ±1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SignMechanism {
    mu1: f64,
    mu2: f64,
    sigma: f64,
    /// Samplers on x and x′ (dist module; exact Bernoulli draws of ±1).
    sampler: [StochasticSign; 2],
    /// LLR at −1 and +1.
    llr: [f64; 2],
}

impl SignMechanism {
    /// Validated: finite locations, σ > 0.
    pub fn new(mu1: f64, mu2: f64, sigma: f64) -> Result<Self> {
        check_finite("mu1", mu1)?;
        check_finite("mu2", mu2)?;
        check_positive("sigma", sigma)?;
        let (x1, x2) = (mu1 / sigma, mu2 / sigma);
        Ok(SignMechanism {
            mu1,
            mu2,
            sigma,
            sampler: [
                StochasticSign::new(mu1, sigma)?,
                StochasticSign::new(mu2, sigma)?,
            ],
            llr: [log_ndtr(-x1) - log_ndtr(-x2), log_ndtr(x1) - log_ndtr(x2)],
        })
    }
}

impl Mechanism for SignMechanism {
    fn name(&self) -> String {
        format!(
            "stochastic_sign(mu1={}, mu2={}, sigma={})",
            self.mu1, self.mu2, self.sigma
        )
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.sampler[side_index(side)].sample_many(rng, out);
        for o in out.iter_mut() {
            let plus = *o > 0.0;
            *o = match (stat, plus) {
                (Statistic::Black, true) => 1.0,
                (Statistic::Black, false) => -1.0,
                (Statistic::White, p) => self.llr[usize::from(p)],
            };
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::Black => (-1.0, 1.0),
            Statistic::White => {
                let (u, v) = (self.llr[0], self.llr[1]);
                proper_range(u.min(v), u.max(v))
            }
        }
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        pair_eps(
            &Pair::stochastic_sign(self.mu1.into(), self.mu2.into(), self.sigma.into())?,
            delta,
        )
    }

    fn claim_source(&self) -> String {
        "exact eps(delta) of the stochastic-sign pair, both orders (docs/formulas.md §7.2)".into()
    }
}

mod model;
pub use model::ModelMechanism;

#[cfg(test)]
mod tests;
