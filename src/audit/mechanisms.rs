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
//!   one-dimensional mechanisms, the projection ⟨y − r1, r2 − r1⟩/‖r2 − r1‖ for the RGM and
//!   `gaussian_dd`.
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
use crate::divergence::Pair;
use crate::error::{
    check_finite, check_interval, check_nonnegative, check_positive, Error, Result,
};
use crate::mechanisms::{Rectified, Rgm, StochasticSign, Truncated};
use crate::numeric::f64s::{gaussian_eps_for_delta, log_ndtr};
use crate::scalar::Scalar;

/// The generator every audit stream uses: ChaCha8 (portable, reproducible, fast), as in
/// [`crate::mechanisms::stream`].
pub use crate::mechanisms::stream::StreamRng;

pub use crate::divergence::CLAIM_DIGITS;

/// Half-width of the statistic grid in noise standard deviations (tails beyond it fall in the
/// under/overflow bins, which the threshold search still uses).
pub(crate) const GRID_SIGMAS: f64 = 12.0;

/// Which neighbouring input a batch of outputs comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Side {
    /// The mechanism on x: output law P.
    P,
    /// The mechanism on the neighbour x′: output law Q.
    Q,
}

/// A [`Mechanism::bin_statistic`] with the given body, its parameters named by the caller: one
/// spelling of the signature for the trait's default and the implementations that override it.
macro_rules! bin_statistic_fn {
    ($(#[$doc:meta])* |$this:ident, $side:ident, $stat:ident, $rng:ident, $grid:ident, $n:ident, $counts:ident| $body:block) => {
        $(#[$doc])*
        fn bin_statistic(
            &$this, $side: Side, $stat: Statistic, $rng: &mut StreamRng, $grid: &Grid, $n: usize,
            $counts: &mut [u32],
        ) $body
    };
}
pub(crate) use bin_statistic_fn;

/// Which test statistic the audit thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Statistic {
    /// The designed mechanism's exact log-likelihood ratio log(dP/dQ)(y).
    #[default]
    White,
    /// A plain output statistic (the output itself in 1-D; a projection for the RGM).
    Black,
}

crate::error::named_enum!(Statistic, "statistic", {
    White => "white" | "white-box" | "llr",
    Black => "black" | "black-box" | "output",
});

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

    bin_statistic_fn! {
        /// Draws `n` statistics on `side` (consuming `rng` exactly as [`Mechanism::sample_statistic`]
        /// would for the same total, in batches of `BIN_BATCH`) and counts them into
        /// `counts[grid.index(t)]`. The engine's hot loop; mechanisms may override it with a fused
        /// loop that draws, maps and bins without a buffer, as long as the counts are a
        /// deterministic function of the generator's output.
        |self, side, stat, rng, grid, n, counts| {
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
}

/// Batch length of the default [`Mechanism::bin_statistic`].
pub(crate) const BIN_BATCH: usize = 512;

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
    bin_statistic_fn! {
        |self, side, stat, rng, grid, n, counts| {
            (**self).bin_statistic(side, stat, rng, grid, n, counts)
        }
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

pub(crate) use crate::divergence::exact_claim as pair_eps;

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
/// (Balle & Wang 2018, Thm 8; docs/formulas.md §7.1) via `gaussian_eps_for_delta` with μ = Δ/σ.
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

    bin_statistic_fn! {
        |self, side, stat, rng, grid, n, counts| {
            self.bin_fused(side, stat, self.sigma, rng, grid, n, counts)
        }
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

mod model;
pub use model::ModelMechanism;

/// The audit mechanism of a pair model: the model's sampler (in double precision) and the
/// statistic of its family. The Gaussian-family laws have mechanisms of their own (fused sampling
/// loops, atoms binned apart, the d-vectors of the RGM and `gaussian_dd` reduced to their statistics); a law on
/// the line ([`crate::model::LinePair`]) is audited by the generic [`ModelMechanism`].
pub fn for_pair(pair: &Pair) -> Result<Box<dyn Mechanism>> {
    use crate::mechanisms::{gaussian::GaussianPair, gaussian_dd::GaussianDdPair};
    use crate::mechanisms::{rectified::RectifiedPair, rgm::RgmPair};
    use crate::mechanisms::{sign::SignPair, truncated::TruncatedPair};
    let any = pair.model().as_any();
    let f = Scalar::f64;
    if let Some(GaussianPair(s)) = any.downcast_ref() {
        let p = 256;
        let shift = rug::Float::with_val(p, s.mu1.mp(p) - s.mu2.mp(p)).abs();
        let sens = Scalar::from_float(&shift).f64();
        return Ok(Box::new(GaussianMechanism::new(sens, f(&s.sigma))?));
    }
    if let Some(SignPair(s)) = any.downcast_ref() {
        let m = SignMechanism::new(f(&s.mu1), f(&s.mu2), f(&s.sigma))?;
        return Ok(Box::new(m));
    }
    let clipped = |c: &crate::model::normal::Clipped| {
        let s = &c.shift;
        [f(&s.mu1), f(&s.mu2), f(&s.sigma), f(&c.a), f(&c.b)]
    };
    if let Some(RectifiedPair(c)) = any.downcast_ref() {
        let [m1, m2, s, a, b] = clipped(c);
        return Ok(Box::new(RectifiedMechanism::new(m1, m2, s, a, b)?));
    }
    if let Some(TruncatedPair(c)) = any.downcast_ref() {
        let [m1, m2, s, a, b] = clipped(c);
        return Ok(Box::new(TruncatedMechanism::new(m1, m2, s, a, b)?));
    }
    if any.downcast_ref::<RgmPair>().is_some() {
        return Ok(Box::new(RgmMechanism::from_pair(pair)?));
    }
    if any.downcast_ref::<GaussianDdPair>().is_some() {
        return Ok(Box::new(GaussianDdMechanism::from_pair(pair)?));
    }
    Ok(Box::new(ModelMechanism::new(pair.clone())?))
}

mod bounded;
pub use bounded::*;

mod isotropic;
pub use isotropic::*;

#[cfg(test)]
mod tests;
