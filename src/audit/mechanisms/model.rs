//! The audit mechanism of any [`crate::model`] family: the model's sampler plus a statistic (its
//! exact log-likelihood ratio, white-box, or the output itself, black-box). The privacy claim
//! comes from the family's registry entry, never from the sampler.

use super::{proper_range, side_index, Mechanism, Side, Statistic, StreamRng};
use crate::error::{Error, Result};
use crate::model::{LinePair, Pair, Which};

/// Decay lengths beyond the outermost breakpoints covered by the black-box histogram grid.
const GRID_SCALES: f64 = 40.0;

/// A pair of laws on the line ([`LinePair`]) audited through its sampler.
#[derive(Debug, Clone)]
pub struct ModelMechanism {
    pair: Pair,
}

impl ModelMechanism {
    /// The mechanism of a model pair on the line (an [`Error::Unsupported`] for a family that
    /// integrates itself: it has its own audit mechanism).
    pub fn new(pair: Pair) -> Result<Self> {
        if pair.line().is_none() {
            return Err(Error::Unsupported(format!(
                "{pair}: not a law on the line; audited by its own mechanism"
            )));
        }
        Ok(ModelMechanism { pair })
    }

    fn line(&self) -> &dyn LinePair {
        self.pair.line().expect("checked in ModelMechanism::new")
    }
}

impl Mechanism for ModelMechanism {
    fn name(&self) -> String {
        self.pair.to_string()
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let which = [Which::P1, Which::P2][side_index(side)];
        self.line().sample_many(which, rng, out);
        if stat == Statistic::White {
            for o in out.iter_mut() {
                *o = self.line().llr(*o);
            }
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::White => {
                let (lo, hi) = self.line().llr_range();
                proper_range(lo, hi)
            }
            Statistic::Black => {
                let cuts = self.line().breakpoints(64);
                let w = GRID_SCALES * self.line().tail_scale();
                let first = cuts.first().map_or(0.0, |c| c.to_f64());
                let last = cuts.last().map_or(0.0, |c| c.to_f64());
                let (s0, s1) = self.line().support();
                proper_range((first - w).max(s0), (last + w).min(s1))
            }
        }
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.pair.model().family().claim.eps(&self.pair, delta)
    }

    fn claim_source(&self) -> String {
        self.pair.model().family().claim_source.into()
    }
}
