//! The audit's result records: [`AuditResult`] (deterministic, serialisable) and the
//! non-deterministic [`Timing`]. Flat tables of a result are the report's business
//! (`compare::sources` lists its fields for `audits.csv`).

use super::{Histograms, Selection};
use crate::audit::gdp::GdpAudit;
use crate::audit::mechanisms::Statistic;
use crate::audit::stats::RegionAudit;
use serde::{Deserialize, Serialize};

/// Wall-clock figures of a run: **not** deterministic, hence kept out of the serialised record.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Timing {
    /// Wall time of the whole audit, seconds.
    pub wall_seconds: f64,
    /// Wall time of the sampling (both phases), seconds.
    pub sampling_seconds: f64,
    /// Statistics drawn (both sides, both phases) per second of sampling.
    pub samples_per_second: f64,
    /// Threads of the rayon pool that ran the audit.
    pub threads: usize,
}

/// The outcome of an audit. Every serialised field is a deterministic function of the
/// mechanism and the [`AuditConfig`](super::AuditConfig) (thread count excluded); the wall time is in
/// [`AuditResult::timing`], which is skipped by serde.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditResult {
    /// [`Mechanism::name`](crate::audit::mechanisms::Mechanism::name).
    pub mechanism: String,
    /// The statistic thresholded.
    pub statistic: Statistic,
    /// The selection rule.
    pub selection: Selection,
    /// Main draws per side.
    pub samples_per_side: u64,
    /// Pilot draws per side (0 with Bonferroni).
    pub pilot_samples_per_side: u64,
    /// Seed.
    pub seed: u64,
    /// δ.
    pub delta: f64,
    /// Confidence 1 − β of ε_lb ≤ ε.
    pub confidence: f64,
    /// Regular bins of the grid.
    pub bins: usize,
    /// Grid range [lo, hi) of the statistic.
    pub grid: (f64, f64),
    /// The lower bound on ε(δ), holding with probability ≥ `confidence`.
    pub eps_lb: f64,
    /// The lower bound on ε(δ) of the same region and counts at confidence 1 − [`STRICT_BETA`](super::STRICT_BETA)
    /// (each Clopper–Pearson bound at `STRICT_BETA / family_size`): what a `VIOLATION` is
    /// decided on, so that a correct mechanism is flagged with probability ≤ 1e-6.
    pub eps_lb_strict: f64,
    /// The audited region: threshold, tail, direction, counts, Clopper–Pearson bounds.
    pub region: RegionAudit,
    /// The Gaussian-DP route. **Its `eps_lb_gdp` assumes a Gaussian trade-off curve.**
    pub gdp: GdpAudit,
    /// The mechanism's claimed ε(δ) (None if it could not be computed, see `claim_source`).
    pub claimed_eps: Option<f64>,
    /// Where the claim comes from, or why it is unavailable.
    pub claim_source: String,
    /// ε_lb > claimed ε: the claim is refuted at the stated confidence.
    pub flagged: bool,
    /// Main-phase histograms (slot counts), for diagnostics.
    pub histograms: Histograms,
    /// Wall time etc. (not serialised: varies between runs).
    #[serde(skip)]
    pub timing: Timing,
}

impl AuditResult {
    /// This result with its wall-clock figures replaced (to compare two runs field by field).
    #[cfg(test)]
    pub(crate) fn with_timing(mut self, timing: Timing) -> AuditResult {
        self.timing = timing;
        self
    }

    /// True when the deterministic content of two results is identical (timing ignored).
    pub fn same_outcome(&self, other: &AuditResult) -> bool {
        let mut a = self.clone();
        a.timing = other.timing;
        &a == other
    }
}
