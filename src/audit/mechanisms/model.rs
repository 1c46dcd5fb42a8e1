//! The audit mechanism of any [`crate::model`] family: the model's sampler plus a statistic (its
//! exact log-likelihood ratio, white-box, or the output itself, black-box). The privacy claim
//! comes from the family's registry entry, never from the sampler.

use super::{proper_range, side_index, Mechanism, Side, Statistic, StreamRng};
use crate::error::Result;
use crate::model::{describe, PairModel, Which};
use std::sync::Arc;

/// Decay lengths beyond the outermost breakpoints covered by the black-box histogram grid.
const GRID_SCALES: f64 = 40.0;

/// A [`PairModel`] audited through its sampler.
#[derive(Debug, Clone)]
pub struct ModelMechanism {
    pair: Arc<dyn PairModel>,
}

impl ModelMechanism {
    /// The mechanism of a model pair.
    pub fn new(pair: Arc<dyn PairModel>) -> Self {
        ModelMechanism { pair }
    }
}

impl Mechanism for ModelMechanism {
    fn name(&self) -> String {
        describe(self.pair.family().name, &self.pair.params())
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let which = [Which::P1, Which::P2][side_index(side)];
        self.pair.sample_many(which, rng, out);
        if stat == Statistic::White {
            for o in out.iter_mut() {
                *o = self.pair.llr(*o);
            }
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::White => {
                let (lo, hi) = self.pair.llr_range();
                proper_range(lo, hi)
            }
            Statistic::Black => {
                let cuts = self.pair.breakpoints(64);
                let w = GRID_SCALES * self.pair.tail_scale();
                let first = cuts.first().map_or(0.0, |c| c.to_f64());
                let last = cuts.last().map_or(0.0, |c| c.to_f64());
                let (s0, s1) = self.pair.support();
                proper_range((first - w).max(s0), (last + w).min(s1))
            }
        }
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        (self.pair.family().claim)(self.pair.as_ref(), delta)
    }

    fn claim_source(&self) -> String {
        self.pair.family().claim_source.into()
    }
}
