//! The Monte Carlo audit engine: samples a [`Mechanism`] on both sides of its neighbouring pair,
//! streams the test statistic into histograms, selects a rejection region and turns
//! Clopper–Pearson bounds on its error rates into a lower bound ε_lb on ε(δ) that holds with the
//! stated confidence (Jagielski, Ullman & Oprea 2020, §3; Nasr et al. 2021, §4).
//!
//! # Determinism
//!
//! The samples of one side are cut into chunks of [`CHUNK`] draws; chunk `i` of side `s` in
//! phase `f` (main or pilot) is drawn from its own ChaCha8 stream: key from `seed`
//! (`SeedableRng::seed_from_u64`), stream id `stream_id(f, s, i)`. Each chunk's histogram
//! therefore depends only on `(seed, f, s, i)`, and the totals are sums of integers: the result
//! is bit-identical whatever the number of threads or the order in which rayon runs the chunks.
//! Only [`AuditResult::timing`] varies between runs; it is kept out of the serialised record.
//!
//! # Histograms and thresholds
//!
//! No sample is stored. Each statistic value t goes to one of `bins + 2` slots on a fixed grid
//! over the mechanism's [`Mechanism::statistic_range`] `[lo, hi)`: slot 0 for t < lo, slot k
//! (1 ≤ k ≤ bins) for t ∈ [lo + (k−1)w, lo + kw), slot bins + 1 for t ≥ hi, with w = (hi −
//! lo)/bins. The index is computed branch-free as `clamp((t − lo)·(1/w) + 1, 0, bins + 1)`
//! truncated. Candidate regions are the unions of slots above or below a cut: `{T ≥ e_j}` or
//! `{T < e_j}` for the grid edges e_j (the [`Tail::Above`]/[`Tail::Below`] regions of
//! [`super::stats`], whose convention `T > t` differs from ours only on the edge itself, a
//! set the binning map assigns consistently). The grid is fixed before any sample is drawn.
//!
//! # Threshold selection and confidence
//!
//! * [`Selection::HeldOut`] (default): `pilot_samples` extra draws per side, from separate
//!   streams, choose the cut, tail and direction (P vs Q or Q vs P) by a *projected* criterion:
//!   the ε_lb the region would get at the main sample size, with the pilot's rates estimated
//!   conservatively (one-σ Wilson upper bounds) and the main-size bounds approximated by
//!   Wilson's formula. Being a function of the pilot only, the choice is independent of the
//!   main samples, which then audit that single region with both Clopper–Pearson bounds at
//!   level β/2 ([`stats::audit_region`]): ε_lb ≤ ε with probability ≥ 1 − β.
//! * [`Selection::Bonferroni`]: no pilot; the best of all 4(bins + 1) statements on the main
//!   samples, every bound at level β/(4(bins + 1)) ([`stats::best_region`]).
//!
//! The Gaussian-DP route ([`super::gdp`]) is reported beside ε_lb in [`AuditResult::gdp`]; its ε
//! rests on the assumption that the trade-off curve is Gaussian and is never used for ε_lb.

use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::gdp::{gdp_best_region, gdp_held_out};
use super::mechanisms::{Mechanism, Side, Statistic, StreamRng};
use super::stats::{self, Direction, RegionAudit, Tail, ThresholdTable, MAX_COUNT};
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::numeric::f64s::ndtri_upper;

/// Samples per chunk (one ChaCha8 stream each). Part of the definition of a seeded run: changing
/// it changes the samples.
pub const CHUNK: u64 = 1 << 20;

/// Error probability of the strict lower bound [`AuditResult::eps_lb_strict`], the one a
/// `VIOLATION` is decided on: a correct mechanism's strict bound exceeds its true ε with
/// probability ≤ 1e-6 per audit.
pub const STRICT_BETA: f64 = 1e-6;

/// Largest number of bins accepted.
pub(crate) const MAX_BINS: usize = 1 << 22;

/// The phase a stream belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Phase {
    /// The samples that evaluate the region (and, with Bonferroni, select it).
    Main,
    /// The held-out samples that select the region.
    Pilot,
}

/// The ChaCha stream id of chunk `chunk` of side `side` in phase `phase`:
/// bit 63 = phase (pilot), bit 62 = side (Q), bits 0–61 = chunk index.
pub(crate) fn stream_id(phase: Phase, side: Side, chunk: u64) -> u64 {
    let f = match phase {
        Phase::Main => 0u64,
        Phase::Pilot => 1,
    };
    let s = match side {
        Side::P => 0u64,
        Side::Q => 1,
    };
    (f << 63) | (s << 62) | (chunk & ((1u64 << 62) - 1))
}

/// The generator of one stream: ChaCha8 keyed by `seed_from_u64(seed)`, stream id `stream`,
/// word position 0 ([`crate::mechanisms::stream::chunk_rng`]).
pub(crate) fn stream_rng(seed: u64, stream: u64) -> StreamRng {
    chunk_rng(seed, stream)
}

/// How the rejection region is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Selection {
    /// Choose on `pilot_samples` separate draws per side, evaluate on the main samples.
    HeldOut {
        /// Pilot draws per side.
        pilot_samples: u64,
    },
    /// Search every statement on the main samples with a Bonferroni correction.
    Bonferroni,
}

impl std::fmt::Display for Selection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Selection::HeldOut { pilot_samples } => write!(f, "held-out(pilot={pilot_samples})"),
            Selection::Bonferroni => f.write_str("bonferroni"),
        }
    }
}

/// The parameters of an audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditConfig {
    /// Main draws per side (≤ 2⁵³).
    pub samples_per_side: u64,
    /// δ of the audited (ε, δ) guarantee, in (0, 1).
    pub delta: f64,
    /// Confidence 1 − β of ε_lb ≤ ε, in (½, 1).
    pub confidence: f64,
    /// Seed of every stream.
    pub seed: u64,
    /// White- or black-box statistic.
    pub statistic: Statistic,
    /// Region selection.
    pub selection: Selection,
    /// Number of regular histogram bins (2 ≤ bins ≤ `MAX_BINS`).
    pub bins: usize,
    /// Number of threads (a local rayon pool); `None` uses the current pool.
    pub threads: Option<usize>,
    /// Receives the progress of the draws (the caller decides how to show it; the default
    /// shows nothing). Not part of the audit's identity: ignored by `==` and serde.
    #[serde(skip)]
    pub progress: Observer,
}

impl Default for AuditConfig {
    /// 10⁷ draws per side, δ = 10⁻⁵, 95 % confidence, white box, held-out selection on 10⁶
    /// pilot draws, 4096 bins.
    fn default() -> Self {
        AuditConfig {
            samples_per_side: 10_000_000,
            delta: 1e-5,
            confidence: 0.95,
            seed: 0,
            statistic: Statistic::White,
            selection: Selection::HeldOut {
                pilot_samples: 1_000_000,
            },
            bins: 4096,
            threads: None,
            progress: Observer::none(),
        }
    }
}

impl AuditConfig {
    /// Checks every field.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.samples_per_side == 0 || self.samples_per_side > MAX_COUNT {
            return Err(Error::invalid(
                "samples_per_side",
                self.samples_per_side,
                "in [1, 2^53]",
            ));
        }
        crate::error::check_open_unit("delta", self.delta)?;
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(Error::invalid("confidence", self.confidence, "in (0.5, 1)"));
        }
        if self.bins < 2 || self.bins > MAX_BINS {
            return Err(Error::invalid(
                "bins",
                self.bins,
                &format!("in [2, {MAX_BINS}]"),
            ));
        }
        if let Some(0) = self.threads {
            return Err(Error::invalid("threads", 0, ">= 1 (or unset)"));
        }
        if let Selection::HeldOut { pilot_samples } = self.selection {
            if pilot_samples == 0 || pilot_samples > MAX_COUNT {
                return Err(Error::invalid(
                    "pilot_samples",
                    pilot_samples,
                    "in [1, 2^53]",
                ));
            }
        }
        Ok(())
    }
}

/// The fixed histogram grid: `bins` regular bins on [lo, hi) plus under- and overflow.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    lo: f64,
    hi: f64,
    bins: usize,
    /// bins / (hi − lo).
    scale: f64,
    /// bins + 1, the overflow slot, as f64.
    top: f64,
}

impl Grid {
    /// Validated: finite lo < hi, 1 ≤ bins ≤ `MAX_BINS`.
    pub fn new(lo: f64, hi: f64, bins: usize) -> Result<Self> {
        crate::error::check_interval(lo, hi)?;
        if bins == 0 || bins > MAX_BINS {
            return Err(Error::invalid("bins", bins, &format!("in [1, {MAX_BINS}]")));
        }
        let scale = bins as f64 / (hi - lo);
        if !scale.is_finite() || scale <= 0.0 {
            return Err(Error::invalid(
                "statistic range",
                format!("[{lo}, {hi})"),
                "wide enough for the bins to have a positive, finite width",
            ));
        }
        Ok(Grid {
            lo,
            hi,
            bins,
            scale,
            top: (bins + 1) as f64,
        })
    }

    /// Number of slots (bins + 2).
    pub fn slots(&self) -> usize {
        self.bins + 2
    }

    /// The slot of a statistic value (NaN goes to the underflow slot).
    #[inline(always)]
    pub fn index(&self, t: f64) -> usize {
        self.slot_of_scaled((t - self.lo) * self.scale + 1.0)
    }

    /// For a statistic t = c0 + c1·z: the coefficients (s0, s1) with
    /// (t − lo)·scale + 1 = s0 + s1·z, for [`Grid::slot_of_scaled`].
    #[inline]
    pub(crate) fn fold_affine(&self, c0: f64, c1: f64) -> (f64, f64) {
        ((c0 - self.lo) * self.scale + 1.0, c1 * self.scale)
    }

    /// The slot of a value already mapped to (t − lo)·scale + 1.
    #[inline(always)]
    pub(crate) fn slot_of_scaled(&self, x: f64) -> usize {
        // `f64::max` returns 0.0 for NaN, so c ∈ [0, bins + 1] is finite and in range of u32
        // (bins ≤ MAX_BINS = 2^22): the unchecked truncation is exact and skips the saturation
        // checks of `as` in the hot loop.
        let c = x.max(0.0).min(self.top);
        // SAFETY: c is finite, non-negative and below 2^23, representable in u32.
        unsafe { c.to_int_unchecked::<u32>() as usize }
    }

    /// The slot edges: −∞, lo, lo + w, …, hi, +∞ (slots + 1 values).
    pub fn edges(&self) -> Vec<f64> {
        let w = (self.hi - self.lo) / self.bins as f64;
        let mut e = Vec::with_capacity(self.bins + 3);
        e.push(f64::NEG_INFINITY);
        e.extend((0..=self.bins).map(|k| {
            if k == self.bins {
                self.hi
            } else {
                self.lo + k as f64 * w
            }
        }));
        e.push(f64::INFINITY);
        e
    }
}

/// Adds `b` into `a` slot by slot.
fn add_into(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

/// Per-slot counts of both sides of one phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Histograms {
    /// Counts of the P-side statistic per slot.
    pub p: Vec<u64>,
    /// Counts of the Q-side statistic per slot.
    pub q: Vec<u64>,
}

/// One shard of an audit's chunk streams: shard `index` (0-based) of `count` draws exactly the
/// chunks c with c mod count = index, on both sides and in both phases. Every chunk has its own
/// stream (see [`stream_id`]), so the shards' histograms are disjoint parts of the unsharded
/// ones, and their sums are the unsharded histograms exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawShard")]
pub(crate) struct Shard {
    /// 0-based shard index, < `count`.
    pub index: u64,
    /// Number of shards, ≥ 1.
    pub count: u64,
}

impl Shard {
    /// The whole run (one shard).
    pub(crate) const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Validated: 1 ≤ count ≤ 2^20, index < count.
    pub(crate) fn new(index: u64, count: u64) -> Result<Self> {
        if count == 0 || count > 1 << 20 {
            return Err(Error::invalid("shard count", count, "in [1, 2^20]"));
        }
        if index >= count {
            return Err(Error::invalid(
                "shard",
                format!("{}/{count}", index + 1),
                &format!("K/N with 1 <= K <= N = {count}"),
            ));
        }
        Ok(Shard { index, count })
    }

    /// Whether chunk `c` belongs to this shard.
    #[inline]
    pub(crate) fn owns(&self, chunk: u64) -> bool {
        chunk % self.count == self.index
    }
}

/// A shard as written in a file, validated by [`Shard::new`] when read: a file cannot smuggle in
/// an index past its count or a count that sizes an allocation.
#[derive(Deserialize)]
struct RawShard {
    index: u64,
    count: u64,
}

impl TryFrom<RawShard> for Shard {
    type Error = Error;
    fn try_from(r: RawShard) -> Result<Self> {
        Shard::new(r.index, r.count)
    }
}

impl Shard {
    /// The draws of this shard out of `m` draws per side: the sizes of the chunks it owns.
    pub(crate) fn share(&self, m: u64) -> u64 {
        let chunks = m.div_ceil(CHUNK);
        // Chunks index, index + count, …: at most 2^53 / 2^20 of them.
        (self.index..chunks)
            .step_by(self.count.max(1) as usize)
            .map(|c| (m - c * CHUNK).min(CHUNK))
            .sum()
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;
    /// `K/N` with 1 ≤ K ≤ N (1-based, as batch schedulers number array tasks from 1 or 0:
    /// see the job examples).
    fn from_str(t: &str) -> Result<Self> {
        let bad = || Error::invalid("shard", t, "K/N with integers 1 <= K <= N");
        let (k, n) = t.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 {
            return Err(bad());
        }
        Shard::new(k - 1, n)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// Draws `n` statistics per side in phase `phase` and bins them, in parallel on the current
/// rayon pool, chunk by chunk (see the module docs for why the result is thread-independent).
pub fn histograms<M: Mechanism + ?Sized>(
    mech: &M,
    stat: Statistic,
    grid: &Grid,
    seed: u64,
    phase: Phase,
    n: u64,
    bar: &Observer,
) -> Histograms {
    let draws = Draws {
        mech,
        stat,
        grid,
        seed,
        shard: Shard::WHOLE,
        bar,
        deadline: crate::limits::current(),
    };
    draws.histograms(phase, n)
}

/// What the draws of one audit shard are made from: the mechanism, the statistic binned on
/// `grid`, the seed, the shard's chunks, the progress observer and the caller's `--max-seconds`
/// deadline (checked before each chunk; rayon's threads do not see the caller's thread-local one).
struct Draws<'a, M: ?Sized> {
    mech: &'a M,
    stat: Statistic,
    grid: &'a Grid,
    seed: u64,
    shard: Shard,
    bar: &'a Observer,
    deadline: Option<crate::limits::Deadline>,
}

impl<M: Mechanism + ?Sized> Draws<'_, M> {
    /// [`histograms`] restricted to the chunks of the shard. Past the deadline the remaining
    /// chunks are skipped (the caller turns that into [`Error::TimeLimit`], see `draw_in_pool`).
    fn histograms(&self, phase: Phase, n: u64) -> Histograms {
        let (mech, stat, grid, seed, shard, bar) = (
            self.mech, self.stat, self.grid, self.seed, self.shard, self.bar,
        );
        let expired = || self.deadline.is_some_and(|d| d.check("").is_err());
        let n_chunks = n.div_ceil(CHUNK);
        let slots = grid.slots();
        let tasks: Vec<u64> = (0..2 * n_chunks)
            .filter(|t| shard.owns(t % n_chunks))
            .collect();
        let (p, q) = tasks
            .into_par_iter()
            .fold(
                || (vec![0u64; slots], vec![0u64; slots], vec![0u32; slots]),
                |(mut hp, mut hq, mut local), task| {
                    if expired() {
                        return (hp, hq, local);
                    }
                    let (side, chunk) = if task < n_chunks {
                        (Side::P, task)
                    } else {
                        (Side::Q, task - n_chunks)
                    };
                    let len = (n - chunk * CHUNK).min(CHUNK);
                    let mut rng = stream_rng(seed, stream_id(phase, side, chunk));
                    // u32 slot counts per chunk (CHUNK < 2^32): half the cache footprint of u64.
                    local.fill(0);
                    mech.bin_statistic(side, stat, &mut rng, grid, len as usize, &mut local);
                    let h = match side {
                        Side::P => &mut hp,
                        Side::Q => &mut hq,
                    };
                    for (x, &c) in h.iter_mut().zip(&local) {
                        *x += u64::from(c);
                    }
                    bar.advance(len);
                    (hp, hq, local)
                },
            )
            .map(|(hp, hq, _)| (hp, hq))
            .reduce(
                || (vec![0u64; slots], vec![0u64; slots]),
                |(mut ap, mut aq), (bp, bq)| {
                    add_into(&mut ap, &bp);
                    add_into(&mut aq, &bq);
                    (ap, aq)
                },
            );
        Histograms { p, q }
    }
}

/// Wilson score upper bound for k successes in n at normal quantile z (a cheap stand-in for
/// Clopper–Pearson, used only to rank candidate regions).
fn wilson_upper(k: f64, n: f64, z: f64) -> f64 {
    let p = k / n;
    let z2 = z * z;
    let c = p + z2 / (2.0 * n);
    let r = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).max(0.0).sqrt();
    ((c + r) / (1.0 + z2 / n)).min(1.0)
}

/// Held-out selection: the statement (cut, tail, direction) of the pilot table maximising the
/// projected ε_lb at the main sample sizes `(n_p, n_q)` and level β/2 per bound. Rates are
/// estimated from the pilot by one-σ Wilson upper bounds (so that cuts where the pilot has few
/// counts are not favoured by noise). Returns (cut index, tail, direction). Also the training
/// audits' selection (`train::sgd::audit`).
pub(crate) fn select_projected(
    pilot: &ThresholdTable,
    n_main: u64,
    delta: f64,
    beta: f64,
) -> (usize, Tail, Direction) {
    let z = ndtri_upper(beta / 2.0);
    let nm = n_main as f64;
    let mut best = (0usize, Tail::Above, Direction::PvsQ, f64::NEG_INFINITY);
    for i in 0..pilot.len() {
        for &(tail, dir) in crate::audit::stats::STATEMENT_KINDS.iter() {
            let (fp, n_neg, fnc, n_pos) = pilot.statement_counts(i, tail, dir);
            let r_fp = wilson_upper(fp as f64, n_neg as f64, 1.0);
            let r_fn = wilson_upper(fnc as f64, n_pos as f64, 1.0);
            let fpr_ub = wilson_upper(r_fp * nm, nm, z);
            let fnr_ub = wilson_upper(r_fn * nm, nm, z);
            let num = 1.0 - delta - fnr_ub;
            if num <= 0.0 || fpr_ub <= 0.0 {
                continue;
            }
            let score = num.ln() - fpr_ub.ln();
            if score > best.3 {
                best = (i, tail, dir, score);
            }
        }
    }
    (best.0, best.1, best.2)
}

/// The ε lower bound of `region`'s counts at confidence 1 − [`STRICT_BETA`], with the region's
/// own family size (2 for a held-out region, 4m for a Bonferroni search over m thresholds):
/// valid for the same reason as the region's own bound.
pub(crate) fn strict_eps_lb(region: &RegionAudit) -> Result<f64> {
    let per_bound = STRICT_BETA / region.family_size as f64;
    let fpr = stats::cp_upper(region.false_positives, region.n_neg, per_bound)?;
    let fnr = stats::cp_upper(region.false_negatives, region.n_pos, per_bound)?;
    stats::eps_lower_bound(fpr, fnr, region.delta)
}

/// Runs an audit of `mech` with `cfg` (see the module docs). Errors on an invalid configuration
/// or grid; the claimed ε is computed but its failure is not an error (`claimed_eps = None`).
pub fn run_audit<M: Mechanism + ?Sized>(mech: &M, cfg: &AuditConfig) -> Result<AuditResult> {
    let start = Instant::now();
    let draws = draw_audit(mech, cfg, Shard::WHOLE)?;
    finish_audit(mech, cfg, &draws, start)
}

/// The sampled part of an audit, or of one shard of it: the pilot and main histograms.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AuditDraws {
    /// Which chunks these are.
    pub shard: Shard,
    /// Pilot histograms (held-out selection only).
    pub pilot: Option<Histograms>,
    /// Main histograms.
    pub main: Histograms,
    /// Sampling wall time in seconds (not part of any deterministic output).
    #[serde(skip)]
    pub sampling_seconds: f64,
    /// Threads that drew them (not part of any deterministic output).
    #[serde(skip)]
    pub threads: usize,
}

/// Draws the chunks of `shard` for an audit of `mech` with `cfg` (in `cfg.threads` threads).
pub(crate) fn draw_audit<M: Mechanism + ?Sized>(
    mech: &M,
    cfg: &AuditConfig,
    shard: Shard,
) -> Result<AuditDraws> {
    cfg.validate()?;
    // The caller's deadline, taken here: `pool.install` runs on another thread.
    let deadline = crate::limits::current();
    match cfg.threads {
        None => draw_in_pool(mech, cfg, shard, deadline),
        Some(t) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| Error::Io(format!("cannot build a rayon pool of {t} threads: {e}")))?;
            pool.install(|| draw_in_pool(mech, cfg, shard, deadline))
        }
    }
}

fn pilot_samples(cfg: &AuditConfig) -> u64 {
    match cfg.selection {
        Selection::HeldOut { pilot_samples } => pilot_samples,
        Selection::Bonferroni => 0,
    }
}

fn draw_in_pool<M: Mechanism + ?Sized>(
    mech: &M,
    cfg: &AuditConfig,
    shard: Shard,
    deadline: Option<crate::limits::Deadline>,
) -> Result<AuditDraws> {
    let (lo, hi) = mech.statistic_range(cfg.statistic);
    let grid = Grid::new(lo, hi, cfg.bins)?;
    let n = cfg.samples_per_side;
    let pilot_n = pilot_samples(cfg);
    let share = |m: u64| shard.share(m);
    let bar = &cfg.progress;
    bar.start(2 * (share(n) + share(pilot_n)));
    let t0 = Instant::now();
    let draws = Draws {
        mech,
        stat: cfg.statistic,
        grid: &grid,
        seed: cfg.seed,
        shard,
        bar,
        deadline,
    };
    let stop = |d: &Draws<'_, M>| match d.deadline {
        Some(dl) => dl.check("the audit's sampling"),
        None => Ok(()),
    };
    let pilot = (pilot_n > 0).then(|| draws.histograms(Phase::Pilot, pilot_n));
    stop(&draws)?;
    let main = draws.histograms(Phase::Main, n);
    bar.finish();
    stop(&draws)?;
    Ok(AuditDraws {
        shard,
        pilot,
        main,
        sampling_seconds: t0.elapsed().as_secs_f64(),
        threads: rayon::current_num_threads(),
    })
}

/// Sums the draws of shards 1/N … N/N into the draws of the whole run. Errors on shards of
/// different counts, a missing shard, a shard given twice, or histograms of different shapes.
#[cfg(feature = "cli")]
pub(crate) fn merge_draws(parts: &[AuditDraws]) -> Result<AuditDraws> {
    let first = parts
        .first()
        .ok_or_else(|| Error::invalid("shards", "none", "at least one shard"))?;
    let count = Shard::new(first.shard.index, first.shard.count)?.count;
    let mut seen = vec![false; count as usize];
    for p in parts {
        Shard::new(p.shard.index, p.shard.count)?;
        if p.shard.count != count {
            return Err(Error::invalid(
                "shard",
                p.shard,
                &format!("a shard of the same run ({count} shards)"),
            ));
        }
        let slot = seen.get_mut(p.shard.index as usize).ok_or_else(|| {
            Error::invalid("shard", p.shard, &format!("K/N with K <= N = {count}"))
        })?;
        if *slot {
            return Err(Error::invalid(
                "shard",
                p.shard,
                "given once (it was given twice)",
            ));
        }
        *slot = true;
        if p.pilot.is_some() != first.pilot.is_some()
            || p.main.p.len() != first.main.p.len()
            || p.main.q.len() != first.main.q.len()
        {
            return Err(Error::invalid(
                "shard",
                p.shard,
                "histograms of the same shape as the other shards",
            ));
        }
    }
    if let Some(i) = seen.iter().position(|s| !s) {
        return Err(Error::invalid(
            "shards",
            format!("{} of {count} given", parts.len()),
            &format!("all of 1..={count} (shard {}/{count} is missing)", i + 1),
        ));
    }
    let add = |a: &mut Histograms, b: &Histograms| -> Result<()> {
        for (x, y) in [(&mut a.p, &b.p), (&mut a.q, &b.q)] {
            for (u, v) in x.iter_mut().zip(y) {
                *u = u.checked_add(*v).ok_or_else(|| {
                    Error::invalid("shard histograms", "counts", "sums below 2^64")
                })?;
            }
        }
        Ok(())
    };
    let zero = |h: &Histograms| Histograms {
        p: vec![0; h.p.len()],
        q: vec![0; h.q.len()],
    };
    let mut main = zero(&first.main);
    let mut pilot = first.pilot.as_ref().map(zero);
    let mut secs = 0.0;
    for p in parts {
        add(&mut main, &p.main)?;
        if let (Some(a), Some(b)) = (pilot.as_mut(), p.pilot.as_ref()) {
            add(a, b)?;
        }
        secs += p.sampling_seconds;
    }
    Ok(AuditDraws {
        shard: Shard::WHOLE,
        pilot,
        main,
        sampling_seconds: secs,
        threads: parts.iter().map(|p| p.threads).max().unwrap_or(1),
    })
}

/// The statistics of an audit from the draws of the whole run (`draws.shard` must be
/// [`Shard::WHOLE`]; merge shards first). `start` is when the audit began (for the wall time).
pub(crate) fn finish_audit<M: Mechanism + ?Sized>(
    mech: &M,
    cfg: &AuditConfig,
    draws: &AuditDraws,
    start: Instant,
) -> Result<AuditResult> {
    cfg.validate()?;
    if draws.shard != Shard::WHOLE {
        return Err(Error::invalid(
            "draws",
            format!("shard {}", draws.shard),
            "the whole run (merge the shards first)",
        ));
    }
    let beta = 1.0 - cfg.confidence;
    let (lo, hi) = mech.statistic_range(cfg.statistic);
    let grid = Grid::new(lo, hi, cfg.bins)?;
    let edges = grid.edges();
    let n = cfg.samples_per_side;
    let pilot_n = pilot_samples(cfg);
    let (pilot, main) = (&draws.pilot, &draws.main);
    let counts_ok = |h: &Histograms, m: u64| {
        h.p.len() == grid.slots()
            && h.q.len() == grid.slots()
            && h.p.iter().sum::<u64>() == m
            && h.q.iter().sum::<u64>() == m
    };
    if !counts_ok(main, n) || pilot.as_ref().is_some_and(|h| !counts_ok(h, pilot_n)) {
        return Err(Error::invalid(
            "draws",
            "histograms of another grid or sample size",
            "the histograms of this configuration",
        ));
    }
    let sampling = draws.sampling_seconds;
    let main_table = ThresholdTable::from_histogram(&main.p, &main.q, &edges)?;
    let (region, gdp) = match &pilot {
        None => (
            stats::best_region(&main_table, cfg.delta, beta)?,
            gdp_best_region(&main_table, cfg.delta, beta)?,
        ),
        Some(ph) => {
            let pilot_table = ThresholdTable::from_histogram(&ph.p, &ph.q, &edges)?;
            let (i, tail, dir) = select_projected(&pilot_table, n, cfg.delta, beta);
            let p_above = main_table.p_above[i];
            let q_above = main_table.q_above[i];
            let (p_in, q_in) = match tail {
                Tail::Above => (p_above, q_above),
                Tail::Below => (n - p_above, n - q_above),
            };
            let region = stats::audit_region(
                main_table.thresholds[i],
                tail,
                dir,
                n,
                p_in,
                n,
                q_in,
                cfg.delta,
                beta,
            )?;
            let gdp = gdp_held_out(&pilot_table, &main_table, cfg.delta, beta)?;
            (region, gdp)
        }
    };
    let (claimed_eps, claim_source) = match mech.claimed_eps(cfg.delta) {
        Ok(e) => (Some(e), mech.claim_source()),
        Err(e) => (None, format!("unavailable: {e}")),
    };
    let eps_lb = region.eps_lb;
    let eps_lb_strict = strict_eps_lb(&region)?;
    let flagged = claimed_eps.is_some_and(|c| eps_lb > c);
    let drawn = 2 * (n + pilot_n);
    Ok(AuditResult {
        mechanism: mech.name(),
        statistic: cfg.statistic,
        selection: cfg.selection,
        samples_per_side: n,
        pilot_samples_per_side: pilot_n,
        seed: cfg.seed,
        delta: cfg.delta,
        confidence: cfg.confidence,
        bins: cfg.bins,
        grid: (lo, hi),
        eps_lb,
        eps_lb_strict,
        region,
        gdp,
        claimed_eps,
        claim_source,
        flagged,
        histograms: main.clone(),
        timing: Timing {
            wall_seconds: start.elapsed().as_secs_f64(),
            sampling_seconds: sampling,
            samples_per_second: drawn as f64 / sampling.max(1e-12),
            threads: draws.threads,
        },
    })
}

mod result;
pub use result::{AuditResult, Timing};

mod progress;
pub use progress::{Observer, Progress};

#[cfg(test)]
mod tests;
