//! White-box (and black-box) membership-inference audit of the DP-SGD / OSO-DPSGD training loop.
//!
//! Many seeded runs of the real [`Trainer`] on a small problem, half with a canary record and
//! half without. The canary is a "Dirac" gradient canary (Nasr et al. 2023): its per-example
//! gradient is M·u for a unit vector u = e₀ and M ≫ C, so its clipped gradient is exactly C_t·u
//! and its OSO direction vector is exactly u. The other n records are identical copies of one
//! logistic-regression example, so that everything about them is known to the adversary except,
//! under subsampling, how many of them are in a batch.
//!
//! The white-box adversary sees every step's releases (S_t and, for OSO, Q_t) and the public
//! state (θ_t, C_t, C_{t+1}), subtracts the known contribution of the other records, and sums
//! the per-step log-likelihood ratios of "canary present" against "absent"
//! (`docs/dpsgd.md#canary-statistic`):
//!
//! * full batch: LLR_t = (2 m z_t − m²)/(2 s_t²), z_t the projection on u of S_t minus the
//!   others' clipped gradients, m = C_t, s_t = ν_g C_t — the sum of projections, optimal;
//! * Poisson rate q: LLR_t = ln(1 − q + q·exp((2 m z_t − m²)/(2 s_t²))), the mixture ratio;
//! * fixed-size / shuffled batches of b: the canary displaces one other record, so the shift is
//!   Δ = C_t u − c_t (c_t the others' clipped gradient) and z_t is the projection on Δ/‖Δ‖ of
//!   S_t − b c_t, with inclusion probability b/(n + 1);
//! * OSO adds the Q_t channel (shift u, noise ν_q) to the same mixture, and a consistency check:
//!   C_{t+1} must equal C_t exp(ρ_c sign(g̃_tᵀq̃_{t−1})) recomputed from the releases; each
//!   mismatch adds `MISMATCH_WEIGHT` (it cannot happen in a correct run).
//!
//! The noise scales s_t that weight the channels are those the run applied
//! ([`StepView::noise_std`]): the auditor reads the code as well as the releases. The weights
//! change only the statistic's power, never the validity of the bound.
//!
//! The black-box adversary sees θ_T only and uses −⟨θ_T − θ_0, u⟩.
//!
//! Whatever the statistic, the bound is valid: the region is chosen on separate pilot runs and
//! evaluated on the main runs with Clopper–Pearson bounds ([`stats::audit_region`]); ε_lb ≤ ε
//! with probability ≥ the confidence. Runs are cut into chunks of `RUN_CHUNK`; chunk i of side
//! s in phase f runs on its own stream `chunk_rng(seed, stream_id(f, s, i))`, so the result is
//! bit-identical whatever the number of threads.
//!
//! # Shards
//!
//! The main runs enter the result only through two counts per side (runs, runs above the cut),
//! which add over disjoint sets of chunks; the pilot runs enter through the cut they select,
//! which needs every pilot statistic. `run_training_audit_shard` therefore runs the whole pilot
//! (the same in every shard, a tenth of the main runs in the suite) and the main chunks c with
//! c mod N = K − 1; `finish_training_audit` on the summed `MainCounts` is exactly
//! [`run_training_audit`]'s result (`train::sgd::shard`, `dpaudit train-audit --shard K/N`).

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::model::{Logistic, Model};
use super::optim::{Sampling, SgdConfig, StepView, Trainer};
use crate::audit::engine::{select_projected, stream_id, Phase, Shard, STRICT_BETA};
use crate::audit::mechanisms::Side;
use crate::audit::stats::{self, Direction, RegionAudit, Tail, ThresholdTable};
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::numeric::f64s::log_add_exp;
use crate::train::data::Dataset;

/// Runs per random stream.
pub(crate) const RUN_CHUNK: u64 = 1 << 12;

/// Score added per step whose C_{t+1} disagrees with the value recomputed from the releases.
pub(crate) const MISMATCH_WEIGHT: f64 = 1000.0;

/// Number of evenly spaced candidate thresholds taken from the pilot runs.
const MAX_CANDIDATES: usize = 4096;

/// Number of extreme pilot values (each end) that are candidate thresholds too.
const TAIL_CANDIDATES: usize = 2048;

/// The small problem an audit trains on: logistic regression with two features and a bias
/// (θ ∈ ℝ³), n identical records (x, +1), and the Dirac canary M·e₀.
#[derive(Debug, Clone)]
pub struct CanaryProblem {
    /// The model.
    pub model: Logistic,
    /// The n records without the canary.
    pub data: Dataset,
    /// The canary's per-example gradient M·u.
    pub canary: Vec<f64>,
    /// The canary direction u (unit).
    pub u: Vec<f64>,
}

impl CanaryProblem {
    /// n ≥ 1 copies of the record (x, +1), canary gradient `magnitude`·e₀.
    pub fn new(n: usize, x: [f64; 2], magnitude: f64) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid("n (records)", 0, ">= 1"));
        }
        crate::error::check_positive("canary magnitude", magnitude)?;
        let data = Dataset::new(2, x.repeat(n), vec![1.0; n])?;
        let mut canary = vec![0.0; 3];
        canary[0] = magnitude;
        Ok(CanaryProblem {
            model: Logistic::new(2)?,
            data,
            canary,
            u: vec![1.0, 0.0, 0.0],
        })
    }

    /// Records orthogonal to the canary: x = (0, 1), so every gradient has no e₀ component.
    pub fn orthogonal(n: usize) -> Result<Self> {
        Self::new(n, [0.0, 1.0], 1e6)
    }

    /// Records whose gradient points against the canary: x = (4, 0), gradient
    /// −σ(−(4w₀ + b))·(4, 0, 1), nearly −e₀ — the worst case for a batch in which the canary
    /// displaces another record.
    pub fn opposed(n: usize) -> Result<Self> {
        Self::new(n, [4.0, 0.0], 1e6)
    }
}

/// What the adversary sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum View {
    /// Every step's releases and the public state.
    WhiteBox,
    /// The final model only.
    BlackBox,
}

/// Sample sizes, confidence and seed of a training audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingAuditConfig {
    /// Main runs per side (≤ 2⁵³).
    pub runs_per_side: u64,
    /// Pilot runs per side (choose the region).
    pub pilot_runs_per_side: u64,
    /// δ of the audited guarantee.
    pub delta: f64,
    /// Confidence of ε_lb ≤ ε, in (½, 1).
    pub confidence: f64,
    /// Seed of every stream.
    pub seed: u64,
    /// Threads (a local rayon pool); None = the current pool.
    pub threads: Option<usize>,
}

impl TrainingAuditConfig {
    fn validate(&self) -> Result<()> {
        for (name, v) in [
            ("runs_per_side", self.runs_per_side),
            ("pilot_runs_per_side", self.pilot_runs_per_side),
        ] {
            if v == 0 || v > stats::MAX_COUNT {
                return Err(Error::invalid(name, v, "in [1, 2^53]"));
            }
        }
        crate::error::check_open_unit("delta", self.delta)?;
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(Error::invalid("confidence", self.confidence, "in (0.5, 1)"));
        }
        if self.threads == Some(0) {
            return Err(Error::invalid("threads", 0, ">= 1 (or unset)"));
        }
        Ok(())
    }
}

/// The outcome of a training audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainingAuditResult {
    /// ε_lb at the configured confidence.
    pub eps_lb: f64,
    /// ε_lb at confidence 1 − [`STRICT_BETA`] (the one a VIOLATION is decided on).
    pub eps_lb_strict: f64,
    /// The audited region with its counts and bounds.
    pub region: RegionAudit,
    /// Main runs per side.
    pub runs_per_side: u64,
    /// Pilot runs per side.
    pub pilot_runs_per_side: u64,
    /// Wall time in seconds (not deterministic).
    #[serde(skip)]
    pub seconds: f64,
}

/// The adversary's per-run state.
struct Adversary<'a> {
    problem: &'a CanaryProblem,
    cfg: &'a SgdConfig,
    view: View,
    grad: Vec<f64>,
    score: f64,
    qtilde_prev: Vec<f64>,
    gtilde_prev: Vec<f64>,
}

#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl<'a> Adversary<'a> {
    fn new(problem: &'a CanaryProblem, cfg: &'a SgdConfig, view: View) -> Result<Self> {
        cfg.nu_g()?;
        Ok(Adversary {
            problem,
            cfg,
            view,
            grad: vec![0.0; 3],
            score: 0.0,
            qtilde_prev: vec![0.0; 3],
            gtilde_prev: vec![0.0; 3],
        })
    }

    fn reset(&mut self) {
        self.score = 0.0;
        self.qtilde_prev.fill(0.0);
        self.gtilde_prev.fill(0.0);
    }

    /// The log-likelihood ratio of one step (white box).
    fn observe(&mut self, v: &StepView) {
        let pb = self.problem;
        let n = pb.data.n as f64;
        // The others' gradient at θ_t, clipped, and their OSO direction vector.
        pb.model.grad(
            v.theta,
            pb.data.row(0),
            pb.data.y[0],
            &mut self.grad,
            &mut [],
        );
        let norm = dot(&self.grad, &self.grad).sqrt();
        let f = if norm > v.clip { v.clip / norm } else { 1.0 };
        let c: [f64; 3] = [f * self.grad[0], f * self.grad[1], f * self.grad[2]];
        let cq: [f64; 3] = if norm > v.clip {
            [
                self.grad[0] / norm,
                self.grad[1] / norm,
                self.grad[2] / norm,
            ]
        } else {
            [0.0; 3]
        };
        let m_canary = pb.canary[0].abs().min(v.clip);
        let q_canary = if pb.canary[0].abs() > v.clip {
            1.0
        } else {
            0.0
        };
        // The noise scales the run actually applied (the auditor is white-box to the code as
        // well; a statistic's weights only affect its power, never the validity of ε_lb).
        let s_g = v.noise_std;
        let u = &pb.u;
        // (projection z, shift m) per channel, inclusion probability p.
        let (zg, mg, zq, mq, p) = match self.cfg.sampling {
            Sampling::Poisson { q } => {
                let base = if q >= 1.0 { n } else { q * n };
                let zg = dot(v.noisy_sum, u) - base * dot(&c, u);
                let zq = v
                    .noisy_qsum
                    .map(|qs| dot(qs, u) - base * dot(&cq, u))
                    .unwrap_or(0.0);
                (zg, m_canary, zq, q_canary, q)
            }
            Sampling::FixedSize { batch } | Sampling::Shuffle { batch } => {
                let b = batch as f64;
                let d: Vec<f64> = (0..3).map(|i| m_canary * u[i] - c[i]).collect();
                let md = dot(&d, &d).sqrt();
                let zg = (0..3)
                    .map(|i| (v.noisy_sum[i] - b * c[i]) * d[i])
                    .sum::<f64>()
                    / md;
                let (zq, mq) = match v.noisy_qsum {
                    Some(qs) => {
                        let dq: Vec<f64> = (0..3).map(|i| q_canary * u[i] - cq[i]).collect();
                        let mq = dot(&dq, &dq).sqrt();
                        if mq > 0.0 {
                            let z = (0..3).map(|i| (qs[i] - b * cq[i]) * dq[i]).sum::<f64>() / mq;
                            (z, mq)
                        } else {
                            (0.0, 0.0)
                        }
                    }
                    None => (0.0, 0.0),
                };
                (zg, md, zq, mq, b / (n + 1.0))
            }
        };
        let mut a = (2.0 * mg * zg - mg * mg) / (2.0 * s_g * s_g);
        if let (Some(o), Some(qs)) = (self.cfg.oso, v.noisy_qsum) {
            let s_q = v.q_noise_std;
            a += (2.0 * mq * zq - mq * mq) / (2.0 * s_q * s_q);
            // Consistency of C_{t+1} with the released values.
            let mut h_c = 0.0;
            for i in 0..3 {
                h_c += v.noisy_sum[i] / v.batch_norm * self.qtilde_prev[i];
            }
            let sgn = if h_c > 0.0 {
                1.0
            } else if h_c < 0.0 {
                -1.0
            } else {
                0.0
            };
            let expect = v.clip * (o.rho_c * sgn).exp();
            if (expect - v.next_clip).abs() > 1e-9 * expect {
                self.score += MISMATCH_WEIGHT;
            }
            for ((qp, gp), (q, s)) in self
                .qtilde_prev
                .iter_mut()
                .zip(self.gtilde_prev.iter_mut())
                .zip(qs.iter().zip(v.noisy_sum))
            {
                *qp = q / v.batch_norm;
                *gp = s / v.batch_norm;
            }
        }
        self.score += if p >= 1.0 {
            a
        } else {
            log_add_exp((-p).ln_1p(), p.ln() + a)
        };
    }
}

/// One side's trainer inputs.
fn trainer<'a>(problem: &'a CanaryProblem, cfg: &'a SgdConfig, side: Side) -> Result<Trainer<'a>> {
    let canary = match side {
        Side::P => Some(&problem.canary[..]),
        Side::Q => None,
    };
    Trainer::new(&problem.model, &problem.data, canary, cfg)
}

/// What every run of one audit is drawn from: the problem, the training configuration, the
/// adversary's view and the audit's seed.
#[derive(Clone, Copy)]
struct Runs<'a> {
    problem: &'a CanaryProblem,
    cfg: &'a SgdConfig,
    view: View,
    seed: u64,
}

impl Runs<'_> {
    /// The scores of the `len` runs of chunk `chunk` of (phase, side).
    fn chunk_scores(&self, phase: Phase, side: Side, chunk: u64, len: usize) -> Result<Vec<f64>> {
        let (problem, view) = (self.problem, self.view);
        let tr = trainer(problem, self.cfg, side)?;
        let mut ws = tr.workspace();
        let theta0 = problem.model.init(0);
        let mut adv = Adversary::new(problem, self.cfg, view)?;
        let mut rng = chunk_rng(self.seed, stream_id(phase, side, chunk));
        let mut out = Vec::with_capacity(len);
        let u = &problem.u;
        for _ in 0..len {
            ws.theta.copy_from_slice(&theta0);
            adv.reset();
            match view {
                View::WhiteBox => tr.run(&mut ws, &mut rng, &mut |v: &StepView| adv.observe(v)),
                View::BlackBox => tr.run(&mut ws, &mut rng, &mut |_: &StepView| {}),
            }
            out.push(match adv.view {
                View::WhiteBox => adv.score,
                View::BlackBox => -(dot(&ws.theta, u) - dot(&theta0, u)),
            });
        }
        Ok(out)
    }

    /// `f` of the scores of every chunk of (phase, side) that `shard` owns, n runs in all, in
    /// chunk order (chunks run in parallel; each chunk's scores depend only on its stream, so the
    /// result does not depend on the number of threads).
    fn map_scores<T: Send>(
        &self,
        phase: Phase,
        side: Side,
        n: u64,
        shard: Shard,
        f: impl Fn(Vec<f64>) -> T + Sync,
    ) -> Result<Vec<T>> {
        let chunks = n.div_ceil(RUN_CHUNK);
        let deadline = crate::limits::current();
        (0..chunks)
            .filter(|c| shard.owns(*c))
            .collect::<Vec<u64>>()
            .into_par_iter()
            .map(|c| {
                if let Some(dl) = deadline {
                    dl.check("training audit")?;
                }
                let len = (n - c * RUN_CHUNK).min(RUN_CHUNK) as usize;
                self.chunk_scores(phase, side, c, len).map(&f)
            })
            .collect()
    }
}

/// The region a training audit evaluates, chosen on the pilot runs alone: the main runs with a
/// statistic `> threshold` (tail [`Tail::Above`]) or `≤ threshold` ([`Tail::Below`]), tested in
/// `direction`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct Selected {
    /// The cut t (one of the pilot's order statistics).
    pub threshold: f64,
    /// Which side of t forms the region.
    pub tail: Tail,
    /// Which side is the positive class.
    pub direction: Direction,
}

/// What some of the main runs of a training audit found: their number per side and how many of
/// them have a statistic above [`Selected::threshold`]. Counts of disjoint sets of chunks add.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub(crate) struct MainCounts {
    /// Main runs counted per side.
    pub runs_per_side: u64,
    /// P-side (canary) runs with statistic > t.
    pub p_above: u64,
    /// Q-side runs with statistic > t.
    pub q_above: u64,
}

impl MainCounts {
    /// The counts of the union of two disjoint sets of chunks; `None` on overflow.
    #[cfg(feature = "cli")]
    pub(crate) fn checked_add(&self, o: &MainCounts) -> Option<MainCounts> {
        Some(MainCounts {
            runs_per_side: self.runs_per_side.checked_add(o.runs_per_side)?,
            p_above: self.p_above.checked_add(o.p_above)?,
            q_above: self.q_above.checked_add(o.q_above)?,
        })
    }
}

/// Runs `go` in a local pool of `threads` threads, or in the current pool.
fn in_pool<T: Send>(threads: Option<usize>, go: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    match threads {
        None => go(),
        Some(k) => rayon::ThreadPoolBuilder::new()
            .num_threads(k)
            .build()
            .map_err(|e| Error::Io(format!("cannot build a rayon pool of {k} threads: {e}")))?
            .install(go),
    }
}

/// Validates the audit configuration and the training configuration (both sides).
fn check(problem: &CanaryProblem, cfg: &SgdConfig, acfg: &TrainingAuditConfig) -> Result<()> {
    acfg.validate()?;
    trainer(problem, cfg, Side::P)?;
    trainer(problem, cfg, Side::Q)?;
    Ok(())
}

/// Runs every pilot run (both sides) and chooses the region: a function of the seed and the
/// configuration only, so every shard of an audit chooses the same region.
fn select(runs: Runs<'_>, acfg: &TrainingAuditConfig) -> Result<Selected> {
    let beta = 1.0 - acfg.confidence;
    let np = acfg.pilot_runs_per_side;
    let pilot = |side: Side| -> Result<Vec<f64>> {
        let v = runs.map_scores(Phase::Pilot, side, np, Shard::WHOLE, |s| s)?;
        let mut x: Vec<f64> = v.into_iter().flatten().collect();
        x.sort_by(f64::total_cmp);
        Ok(x)
    };
    let pp = pilot(Side::P)?;
    let pq = pilot(Side::Q)?;
    if let Some(x) = pp.iter().chain(&pq).find(|x| !x.is_finite()) {
        return Err(Error::Undefined(format!(
            "training audit: a pilot run's statistic is {x}"
        )));
    }
    // Candidate thresholds: evenly spaced order statistics of the merged pilot.
    let mut merged: Vec<f64> = pp.iter().chain(&pq).copied().collect();
    merged.sort_by(f64::total_cmp);
    // Evenly spaced order statistics, plus every value among the TAIL_CANDIDATES smallest
    // and largest (where the best regions of a tight audit lie).
    let step = merged.len().div_ceil(MAX_CANDIDATES).max(1);
    let mut cands: Vec<f64> = merged.iter().step_by(step).copied().collect();
    let k = TAIL_CANDIDATES.min(merged.len());
    cands.extend_from_slice(&merged[..k]);
    cands.extend_from_slice(&merged[merged.len() - k..]);
    cands.sort_by(f64::total_cmp);
    cands.dedup();
    let table = ThresholdTable::from_sorted(&pp, &pq, &cands)?;
    let (i, tail, direction) = select_projected(&table, acfg.runs_per_side, acfg.delta, beta);
    Ok(Selected {
        threshold: cands[i],
        tail,
        direction,
    })
}

/// Counts the main runs of the chunks `shard` owns (both sides) against the selected cut.
fn count(
    runs: Runs<'_>,
    acfg: &TrainingAuditConfig,
    sel: &Selected,
    shard: Shard,
) -> Result<MainCounts> {
    let n = acfg.runs_per_side;
    let t = sel.threshold;
    let side = |side: Side| -> Result<(u64, u64)> {
        let v = runs.map_scores(Phase::Main, side, n, shard, |s| {
            (s.len() as u64, s.iter().filter(|&&x| x > t).count() as u64)
        })?;
        Ok(v.into_iter().fold((0, 0), |(a, b), (c, d)| (a + c, b + d)))
    };
    let (runs_p, p_above) = side(Side::P)?;
    let (runs_q, q_above) = side(Side::Q)?;
    debug_assert_eq!(runs_p, runs_q);
    Ok(MainCounts {
        runs_per_side: runs_p.min(runs_q),
        p_above,
        q_above,
    })
}

/// The audit of the selected region from the main-run counts of the whole run (all chunks, e.g.
/// the sum of every shard's [`MainCounts`]): Clopper–Pearson ε_lb at the configured confidence
/// and the strict one. `seconds` is reported as is.
pub(crate) fn finish_training_audit(
    acfg: &TrainingAuditConfig,
    sel: &Selected,
    counts: &MainCounts,
    seconds: f64,
) -> Result<TrainingAuditResult> {
    acfg.validate()?;
    let n = acfg.runs_per_side;
    if counts.runs_per_side != n || counts.p_above > n || counts.q_above > n {
        return Err(Error::invalid(
            "main-run counts",
            format!(
                "{} runs per side ({} and {} above the cut)",
                counts.runs_per_side, counts.p_above, counts.q_above
            ),
            &format!("the counts of all {n} runs per side (merge every shard first)"),
        ));
    }
    let beta = 1.0 - acfg.confidence;
    let (p_in, q_in) = match sel.tail {
        Tail::Above => (counts.p_above, counts.q_above),
        Tail::Below => (n - counts.p_above, n - counts.q_above),
    };
    let region = stats::audit_region(
        sel.threshold,
        sel.tail,
        sel.direction,
        n,
        p_in,
        n,
        q_in,
        acfg.delta,
        beta,
    )?;
    let per = STRICT_BETA / 2.0;
    let strict = stats::eps_lower_bound(
        stats::cp_upper(region.false_positives, region.n_neg, per)?,
        stats::cp_upper(region.false_negatives, region.n_pos, per)?,
        acfg.delta,
    )?;
    Ok(TrainingAuditResult {
        eps_lb: region.eps_lb,
        eps_lb_strict: strict,
        region,
        runs_per_side: n,
        pilot_runs_per_side: acfg.pilot_runs_per_side,
        seconds,
    })
}

/// One shard of a training audit: every pilot run (the region's choice needs all of them; it is
/// the same in every shard) and the main runs of the chunks c with c mod N = K − 1
/// ([`Shard::owns`], as in the sampler audits). The shards' [`MainCounts`] add up to those of the
/// whole run, and [`finish_training_audit`] on the sum gives exactly [`run_training_audit`]'s
/// result.
pub(crate) fn run_training_audit_shard(
    problem: &CanaryProblem,
    cfg: &SgdConfig,
    view: View,
    acfg: &TrainingAuditConfig,
    shard: Shard,
) -> Result<(Selected, MainCounts)> {
    check(problem, cfg, acfg)?;
    in_pool(acfg.threads, || {
        let runs = Runs {
            problem,
            cfg,
            view,
            seed: acfg.seed,
        };
        let sel = select(runs, acfg)?;
        let counts = count(runs, acfg, &sel, shard)?;
        Ok((sel, counts))
    })
}

/// Audits `cfg` on `problem` with the given view (see the module docs).
pub fn run_training_audit(
    problem: &CanaryProblem,
    cfg: &SgdConfig,
    view: View,
    acfg: &TrainingAuditConfig,
) -> Result<TrainingAuditResult> {
    let start = Instant::now();
    let (sel, counts) = run_training_audit_shard(problem, cfg, view, acfg, Shard::WHOLE)?;
    finish_training_audit(acfg, &sel, &counts, start.elapsed().as_secs_f64())
}
