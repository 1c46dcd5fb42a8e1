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
//! designer **claims** ([`Mechanism::claimed_eps`]).
//!
//! Every family is audited by one generic [`ModelMechanism`] ([`for_pair`]): its draws and
//! statistics are the family's audit route ([`crate::model::AuditDraws`], in the family's file),
//! its claim is the family's registry entry ([`crate::model::Guarantee`]: a published bound, or
//! the exact ε(δ) of the pair in both orders). [`GaussianMechanism`] builds the Gaussian's from
//! (Δ, σ) directly; [`super::controls`] wraps family routes with deliberate bugs.

use rand::distr::Distribution;
use rand_distr::StandardNormal;
use serde::{Deserialize, Serialize};

pub(crate) use super::engine::Grid;
use crate::divergence::Pair;
use crate::error::Result;
use crate::mechanisms::gaussian::GaussianDraws;
use crate::model::{AuditDraws, Which};
use crate::scalar::Scalar;

/// The generator every audit stream uses: ChaCha8 (portable, reproducible, fast), as in
/// [`crate::mechanisms::stream`].
pub use crate::mechanisms::stream::StreamRng;

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

/// Which test statistic the audit thresholds (defined with the models' audit route).
pub use crate::model::Statistic;

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
            bin_batched(self, side, stat, rng, grid, n, counts)
        }
    }
}

/// The default [`Mechanism::bin_statistic`]: draws in batches of [`BIN_BATCH`] through
/// [`Mechanism::sample_statistic`] and counts each statistic into `counts[grid.index(t)]`.
pub(crate) fn bin_batched<M: Mechanism + ?Sized>(
    mech: &M,
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
        mech.sample_statistic(side, stat, rng, b);
        for &t in b.iter() {
            counts[grid.index(t)] += 1;
        }
        left -= m;
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

/// 0 for P, 1 for Q.
#[inline]
pub(crate) fn side_index(side: Side) -> usize {
    match side {
        Side::P => 0,
        Side::Q => 1,
    }
}

// ---------------------------------------------------------------------------------------------
// Gaussian

/// The Gaussian mechanism on a pair at distance `sensitivity`: P = N(0, σ²), Q = N(Δ, σ²).
///
/// Its draws and statistics are the Gaussian family's audit route
/// ([`crate::mechanisms::gaussian::GaussianDraws`]: LLR (Δ/σ²)(Δ/2 − y), fused sampling loop);
/// its claim is the family's registry entry (the exact ε(δ) of Balle & Wang 2018, Thm 8). This
/// type builds it from (Δ, σ) directly and lets the positive controls sample it with another σ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GaussianMechanism {
    draws: GaussianDraws,
}

/// The model's side of an audit side: P on x is P1, Q on x′ is P2.
pub(crate) fn which(side: Side) -> Which {
    [Which::P1, Which::P2][side_index(side)]
}

impl GaussianMechanism {
    /// Validated constructor: Δ > 0 and σ > 0, both finite.
    pub fn new(sensitivity: f64, sigma: f64) -> Result<Self> {
        Ok(GaussianMechanism {
            draws: GaussianDraws::new(sensitivity, sigma)?,
        })
    }

    /// Δ.
    pub fn sensitivity(&self) -> f64 {
        self.draws.sensitivity()
    }

    /// σ.
    pub fn sigma(&self) -> f64 {
        self.draws.sigma()
    }

    /// The mean of the output on `side`.
    pub fn mean(&self, side: Side) -> f64 {
        self.draws.mean(which(side))
    }

    /// Fills `out` with the statistic of y = mean + `noise_sigma`·Z.
    #[inline]
    pub(crate) fn fill(
        &self,
        side: Side,
        stat: Statistic,
        noise_sigma: f64,
        rng: &mut StreamRng,
        out: &mut [f64],
    ) {
        self.draws.fill(which(side), stat, noise_sigma, rng, out)
    }

    /// The fused hot loop with noise `noise_sigma`: slot = clamp(a + b·Z) with the statistic's
    /// affine map and the grid's scale folded into (a, b).
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
        let (c0, c1) = self.draws.affine_in_z(which(side), stat, noise_sigma);
        bin_affine_normal(c0, c1, rng, grid, n, counts)
    }
}

/// Counts n statistics c0 + c1·Z (one ziggurat draw each) into `counts` with the grid's scale
/// folded in: one draw, one multiply-add and one increment per sample, no buffer.
#[inline]
pub(crate) fn bin_affine_normal(
    c0: f64,
    c1: f64,
    rng: &mut StreamRng,
    grid: &Grid,
    n: usize,
    counts: &mut [u32],
) {
    let (s0, s1) = grid.fold_affine(c0, c1);
    for _ in 0..n {
        counts[grid.slot_of_scaled(s0 + s1 * std_normal(rng))] += 1;
    }
}

impl Mechanism for GaussianMechanism {
    fn name(&self) -> String {
        self.draws.name()
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.fill(side, stat, self.sigma(), rng, out)
    }

    bin_statistic_fn! {
        |self, side, stat, rng, grid, n, counts| {
            self.bin_fused(side, stat, self.sigma(), rng, grid, n, counts)
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.draws.statistic_range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        check_delta(delta)?;
        Pair::gaussian(
            Scalar::from(0u32),
            self.sensitivity().into(),
            self.sigma().into(),
        )?
        .claimed_eps(delta)
    }

    fn claim_source(&self) -> String {
        crate::mechanisms::gaussian::FAMILY.claim_source.into()
    }
}

mod model;
pub use model::ModelMechanism;

/// The audit mechanism of a pair of any family: the family's audit route
/// ([`crate::model::Pair::audit_draws`]: its sampler and statistics, for outputs of any shape)
/// and the claim of its registry entry.
pub fn for_pair(pair: &Pair) -> Result<Box<dyn Mechanism>> {
    Ok(Box::new(ModelMechanism::new(pair.clone())?))
}

#[cfg(test)]
mod tests;
