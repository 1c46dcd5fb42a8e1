//! The audit's result records: [`AuditResult`] (deterministic, serialisable), its flat
//! [`AuditRow`] for CSV, and the non-deterministic [`Timing`].

use super::*;

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
/// mechanism and the [`AuditConfig`] (thread count excluded); the wall time is in
/// [`AuditResult::timing`], which is skipped by serde.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditResult {
    /// [`Mechanism::name`].
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
    /// The lower bound on ε(δ) of the same region and counts at confidence 1 − [`STRICT_BETA`]
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

/// One flat, deterministic CSV row of an [`AuditResult`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRow {
    /// Mechanism name.
    pub mechanism: String,
    /// `white` or `black`.
    pub statistic: String,
    /// Selection rule.
    pub selection: String,
    /// Main draws per side.
    pub samples_per_side: u64,
    /// Pilot draws per side.
    pub pilot_samples_per_side: u64,
    /// Seed.
    pub seed: u64,
    /// δ.
    pub delta: f64,
    /// Confidence.
    pub confidence: f64,
    /// Bins.
    pub bins: usize,
    /// ε lower bound.
    pub eps_lb: f64,
    /// Claimed ε (empty if unavailable).
    pub claimed_eps: Option<f64>,
    /// ε_lb > claimed.
    pub flagged: bool,
    /// `above` (T ≥ threshold) or `below` (T < threshold).
    pub tail: String,
    /// `P_vs_Q` or `Q_vs_P`.
    pub direction: String,
    /// Threshold (grid edge).
    pub threshold: f64,
    /// Positive-class draws.
    pub n_pos: u64,
    /// Negative-class draws.
    pub n_neg: u64,
    /// Negative-class draws in the region.
    pub false_positives: u64,
    /// Positive-class draws outside the region.
    pub false_negatives: u64,
    /// Clopper–Pearson upper bound on the FPR.
    pub fpr_ub: f64,
    /// Clopper–Pearson upper bound on the FNR.
    pub fnr_ub: f64,
    /// Point estimate of ε for the region (not a bound).
    pub eps_point: f64,
    /// GDP route: μ lower bound (assumption-free).
    pub gdp_mu_lb: f64,
    /// GDP route: ε lower bound **assuming a Gaussian trade-off**.
    pub gdp_eps_lb_assuming_gaussian_tradeoff: f64,
}

impl AuditResult {
    /// The flat CSV row (deterministic fields only).
    pub fn row(&self) -> AuditRow {
        let r = &self.region;
        AuditRow {
            mechanism: self.mechanism.clone(),
            statistic: self.statistic.to_string(),
            selection: self.selection.to_string(),
            samples_per_side: self.samples_per_side,
            pilot_samples_per_side: self.pilot_samples_per_side,
            seed: self.seed,
            delta: self.delta,
            confidence: self.confidence,
            bins: self.bins,
            eps_lb: self.eps_lb,
            claimed_eps: self.claimed_eps,
            flagged: self.flagged,
            tail: match r.tail {
                Tail::Above => "above",
                Tail::Below => "below",
            }
            .into(),
            direction: match r.direction {
                Direction::PvsQ => "P_vs_Q",
                Direction::QvsP => "Q_vs_P",
            }
            .into(),
            threshold: r.threshold,
            n_pos: r.n_pos,
            n_neg: r.n_neg,
            false_positives: r.false_positives,
            false_negatives: r.false_negatives,
            fpr_ub: r.fpr_ub,
            fnr_ub: r.fnr_ub,
            eps_point: r.eps_point,
            gdp_mu_lb: self.gdp.mu_lb,
            gdp_eps_lb_assuming_gaussian_tradeoff: self.gdp.eps_lb_gdp,
        }
    }

    /// Writes rows (with a header) as CSV.
    pub fn write_csv<W: std::io::Write>(results: &[AuditResult], w: W) -> Result<()> {
        let mut wr = csv::Writer::from_writer(w);
        for r in results {
            wr.serialize(r.row())
                .map_err(|e| Error::Io(format!("writing audit CSV: {e}")))?;
        }
        wr.flush()?;
        Ok(())
    }

    /// This result with its wall-clock figures replaced (to compare two runs field by field).
    pub fn with_timing(mut self, timing: Timing) -> AuditResult {
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
