//! The audit mechanism of any [`crate::model`] family: the family's audit route
//! ([`AuditDraws`]: its sampler and statistics, for outputs of any shape) and the privacy claim
//! of its registry entry, never of the sampler.

use super::{bin_affine_normal, bin_batched, which, Grid};
use super::{Mechanism, Side, Statistic, StreamRng};
use crate::error::Result;
use crate::model::{AuditDraws, Pair};
use std::sync::Arc;

/// A pair of any family audited through its [`AuditDraws`].
#[derive(Clone)]
pub struct ModelMechanism {
    pair: Pair,
    draws: Arc<dyn AuditDraws>,
}

impl std::fmt::Debug for ModelMechanism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ModelMechanism({})", self.pair)
    }
}

impl ModelMechanism {
    /// The mechanism of a model pair (an [`crate::error::Error::Unsupported`] for a family
    /// without an audit route).
    pub fn new(pair: Pair) -> Result<Self> {
        let draws = pair.audit_draws()?;
        Ok(ModelMechanism { pair, draws })
    }

    /// The mechanism of `pair` drawn by `draws` (a positive control's specification, drawn from
    /// its own doubles).
    pub(crate) fn with_draws(pair: Pair, draws: Arc<dyn AuditDraws>) -> Self {
        ModelMechanism { pair, draws }
    }

    /// The exact pair.
    pub fn pair(&self) -> &Pair {
        &self.pair
    }
}

impl Mechanism for ModelMechanism {
    fn name(&self) -> String {
        self.draws.name()
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.draws.draw_statistics(which(side), stat, rng, out)
    }

    bin_statistic_fn! {
        /// The fused loop of the Gaussian-noise hook ([`AuditDraws::affine_normal`]): one
        /// ziggurat draw, one multiply-add and one increment per output, no buffer; otherwise
        /// batches of [`AuditDraws::draw_statistics`].
        |self, side, stat, rng, grid, n, counts| {
            match self.draws.affine_normal(which(side), stat) {
                Some((c0, c1)) => bin_affine_normal(c0, c1, rng, grid, n, counts),
                None => bin_batched(self, side, stat, rng, grid, n, counts),
            }
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.draws.statistic_range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.pair.claimed_eps(delta)
    }

    fn claim_source(&self) -> String {
        self.pair.model().family().claim_source.into()
    }
}
