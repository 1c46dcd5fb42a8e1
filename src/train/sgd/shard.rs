//! The training-audit suite drawn in shards on many machines, then merged.
//!
//! `dpaudit train-audit --shard K/N` runs, for every row of the suite, the whole pilot (the cut
//! is chosen on all pilot runs, so every shard chooses the same one) and the main runs of the
//! chunks c with c mod N = K − 1 ([`Shard::owns`], as in the sampler audits), and writes
//! `dpsgd_audit.shard-K-of-N.toml`: the suite's options, a fingerprint of the whole
//! configuration, the crate version, the shard, and per row the selected cut with this shard's
//! main-run counts (`MainCounts`: runs, and runs above the cut, per side).
//!
//! Why counts suffice: a row's result depends on its main runs only through the numbers of P-
//! and Q-runs inside the selected region, and those add over disjoint chunks. The pilot, which
//! needs every statistic, is not split: each shard repeats it (a tenth of a row's main runs, at
//! least 10⁴ per side), which bounds the speed-up of N shards at 1.1/(0.1 + 1/N) (6.8 for
//! N = 16).
//!
//! `dpaudit merge DIR…` recognises these files by their `format` (mechanism-audit shards have
//! another) and checks that they belong together: same format and crate version, same options
//! (rows, runs, control runs, seed), same fingerprint (recomputed from the options by this
//! build), same cut in every shard for every row, every shard of 1..=N exactly once, and main-run
//! counts that cover every run. It then writes `dpsgd_audit.csv`, byte-identical to the unsharded
//! `dpaudit train-audit` with the same options, and `dpsgd_audit.md`, identical but for its
//! "Produced by" line (which names the equivalent unsharded command and the merge) and the
//! timing columns (seconds and runs/s summed over the shards).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::audit::{finish_training_audit, run_training_audit_shard, MainCounts, Selected};
use super::suite::{
    audit_config, new_report, push_result, suite_rows, suite_rows_only, write_files, Report,
    SuiteOptions, SuiteResult, SuiteRow, DELTA, T,
};
use crate::audit::engine::Shard;
use crate::audit::stats::{Direction, Tail};
use crate::compare::shards::{check_format, read_toml, write_shard_file};
use crate::error::{Error, Result};

/// Format tag of a training-audit shard file.
pub(crate) const FORMAT: &str = "dpaudit-train-shard/2";

/// The stem of the shard files and of the merged report.
pub(crate) const STEM: &str = "dpsgd_audit";

/// One row of a shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RowShard {
    /// The row's name.
    pub name: String,
    /// Main runs per side of the whole row.
    pub runs_per_side: u64,
    /// Pilot runs per side (every shard runs all of them).
    pub pilot_runs_per_side: u64,
    /// The selected cut, for reading; [`RowShard::threshold_bits`] is the exact value.
    pub threshold: f64,
    /// The selected cut's IEEE-754 bits, 16 hex digits.
    pub threshold_bits: String,
    /// The selected tail.
    pub tail: Tail,
    /// The selected direction.
    pub direction: Direction,
    /// This shard's main-run counts.
    pub counts: MainCounts,
    /// Wall time of this row in this shard, seconds (pilot included; not deterministic).
    pub seconds: f64,
    /// Runs this shard trained for the row, both sides, pilot included.
    pub runs_trained: u64,
}

impl RowShard {
    /// The selected region, with the exact cut.
    pub(crate) fn selected(&self) -> Result<Selected> {
        let bits = u64::from_str_radix(&self.threshold_bits, 16).map_err(|e| Error::Parse {
            what: "threshold_bits".into(),
            text: self.threshold_bits.clone(),
            reason: e.to_string(),
        })?;
        Ok(Selected {
            threshold: f64::from_bits(bits),
            tail: self.tail,
            direction: self.direction,
        })
    }
}

/// The content of one training-audit shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TrainShardFile {
    /// [`FORMAT`].
    pub format: String,
    /// The version of the dpaudit that wrote it.
    pub version: String,
    /// [`fingerprint`] of the suite's configuration.
    pub fingerprint: String,
    /// `--rows`.
    pub rows: String,
    /// `--runs`.
    pub runs: u64,
    /// `--control-runs`.
    pub control_runs: u64,
    /// σ of the q = 0.1 rows.
    pub sigma_q: f64,
    /// `--seed`.
    pub seed: u64,
    /// Which shard.
    pub shard: Shard,
    /// Every row of the suite, in order.
    pub row: Vec<RowShard>,
}

impl TrainShardFile {
    /// The suite options it was drawn with.
    pub(crate) fn options(&self) -> Result<SuiteOptions> {
        Ok(SuiteOptions {
            big_runs: self.runs,
            control_runs: self.control_runs,
            sigma_q: self.sigma_q,
            seed: self.seed,
            rows: self.rows.parse()?,
        })
    }
}

/// FNV-1a, 64 bits: a stable digest (not a cryptographic one) to tell configurations apart.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The text the fingerprint digests: crate version, δ, T, run chunk, seed, and every row's name,
/// problem, training configuration, view, claim, runs, expected verdict and audit configuration.
pub(crate) fn configuration_text(opts: &SuiteOptions, rows: &[SuiteRow]) -> String {
    let mut s = format!(
        "dpaudit {}\ndelta {DELTA:?}\nT {T}\nrun_chunk {}\nseed {}\nrows {}\nruns {}\ncontrol_runs {}\nsigma_q {:?}\n",
        env!("CARGO_PKG_VERSION"),
        super::audit::RUN_CHUNK,
        opts.seed,
        opts.rows,
        opts.big_runs,
        opts.control_runs,
        opts.sigma_q
    );
    for r in rows {
        s.push_str(&format!(
            "{:?} | {:?} | {:?} | {:?} | {:?} | {} | {} | {:?}\n",
            r.name,
            r.problem,
            r.cfg,
            r.view,
            r.claim,
            r.runs,
            r.should_flag,
            audit_config(r, opts.seed)
        ));
    }
    s
}

/// The fingerprint of a suite configuration: 16 hex digits of FNV-1a over
/// `configuration_text`.
pub(crate) fn fingerprint(opts: &SuiteOptions, rows: &[SuiteRow]) -> String {
    format!("{:016x}", fnv1a(configuration_text(opts, rows).as_bytes()))
}

/// The file name of shard `shard`.
pub(crate) fn file_name(shard: Shard) -> String {
    format!("{STEM}.shard-{}-of-{}.toml", shard.index + 1, shard.count)
}

/// Runs shard `shard` of the suite: every row's pilot and its main chunks of the shard.
/// `progress` receives each row as it completes.
pub(crate) fn draw_shard(
    opts: &SuiteOptions,
    shard: Shard,
    progress: &mut dyn FnMut(&RowShard),
) -> Result<TrainShardFile> {
    let rows = suite_rows_only(opts)?;
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let acfg = audit_config(r, opts.seed);
        let t0 = Instant::now();
        let (sel, counts) = run_training_audit_shard(&r.problem, &r.cfg, r.view, &acfg, shard)?;
        let row = RowShard {
            name: r.name.to_string(),
            runs_per_side: acfg.runs_per_side,
            pilot_runs_per_side: acfg.pilot_runs_per_side,
            threshold: sel.threshold,
            threshold_bits: format!("{:016x}", sel.threshold.to_bits()),
            tail: sel.tail,
            direction: sel.direction,
            counts,
            seconds: t0.elapsed().as_secs_f64(),
            runs_trained: 2 * (acfg.pilot_runs_per_side + counts.runs_per_side),
        };
        progress(&row);
        out.push(row);
    }
    Ok(TrainShardFile {
        format: FORMAT.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        fingerprint: fingerprint(opts, &rows),
        rows: opts.rows.to_string(),
        runs: opts.big_runs,
        control_runs: opts.control_runs,
        sigma_q: opts.sigma_q,
        seed: opts.seed,
        shard,
        row: out,
    })
}

/// Runs shard `shard` of the suite and writes its file into `out` (created if needed) atomically.
/// Returns the path written.
pub(crate) fn write_shard(
    opts: &SuiteOptions,
    shard: Shard,
    out: &Path,
    progress: &mut dyn FnMut(&RowShard),
) -> Result<PathBuf> {
    let file = draw_shard(opts, shard, progress)?;
    write_shard_file(&file, "training shard", shard, &out.join(file_name(shard)))
}

/// Reads one training-audit shard file (format checked).
pub(crate) fn read_shard(path: &Path) -> Result<TrainShardFile> {
    let what = "training-audit shard file";
    let f: TrainShardFile = read_toml(path, what)?;
    check_format(path, what, &f.format, FORMAT)?;
    Ok(f)
}

/// A validated, merged set of training-audit shards.
#[derive(Debug, Clone)]
pub(crate) struct MergedTrain {
    /// The suite's options.
    pub opts: SuiteOptions,
    /// The accounting notes of the suite.
    pub notes: Vec<String>,
    /// Every row's result, as the unsharded run computes it (timings summed over the shards).
    pub results: Vec<SuiteResult>,
    /// The number of shards.
    pub count: u64,
    /// The shard files read.
    pub files: Vec<PathBuf>,
}

/// The error for a shard that does not belong with the first one.
fn differs(p: &Path, first: &Path, what: &str) -> Error {
    Error::invalid(
        "shard",
        p.display(),
        &format!(
            "the same {what} as {} (shards of different runs do not merge)",
            first.display()
        ),
    )
}

/// Reads the training-audit shard files `files` and checks them against each other (seal,
/// version, options, fingerprint, shard count, every shard once, rows, pilot cuts, counts);
/// returns them with every row's selected region, summed counts, seconds and runs trained.
fn read_and_check(files: &[PathBuf]) -> Result<(Vec<TrainShardFile>, RowSums)> {
    let shards: Vec<TrainShardFile> = files.iter().map(|p| read_shard(p)).collect::<Result<_>>()?;
    let (first, f0) = match (shards.first(), files.first()) {
        (Some(s), Some(p)) => (s, p),
        _ => return Err(Error::invalid("shards", "none", "at least one shard file")),
    };
    let here = env!("CARGO_PKG_VERSION");
    for (f, p) in shards.iter().zip(files) {
        // A well-formed K/N (1 <= K <= N <= 2^20) before anything is sized by N.
        Shard::new(f.shard.index, f.shard.count)?;
        if f.version != here {
            return Err(Error::invalid(
                "shard",
                p.display(),
                &format!(
                    "written by this dpaudit version {here} (it was written by {})",
                    f.version
                ),
            ));
        }
        let what = if f.seed != first.seed {
            Some(format!("seed ({} here, {} there)", f.seed, first.seed))
        } else if f.rows != first.rows {
            Some(format!("rows ({} here, {} there)", f.rows, first.rows))
        } else if f.runs != first.runs || f.control_runs != first.control_runs {
            Some(format!(
                "runs and control runs ({}/{} here, {}/{} there)",
                f.runs, f.control_runs, first.runs, first.control_runs
            ))
        } else if f.fingerprint != first.fingerprint {
            Some(format!(
                "configuration (fingerprint {} here, {} there)",
                f.fingerprint, first.fingerprint
            ))
        } else if f.shard.count != first.shard.count {
            Some(format!(
                "shard count ({} here, {} there)",
                f.shard.count, first.shard.count
            ))
        } else {
            None
        };
        if let Some(w) = what {
            return Err(differs(p, f0, &w));
        }
    }
    let count = first.shard.count;
    let mut seen: Vec<Option<&PathBuf>> = vec![None; count as usize];
    for (f, p) in shards.iter().zip(files) {
        let slot = seen.get_mut(f.shard.index as usize).ok_or_else(|| {
            Error::invalid("shard", f.shard, &format!("K/N with K <= N = {count}"))
        })?;
        if let Some(prev) = slot {
            return Err(Error::invalid(
                "shard",
                f.shard,
                &format!(
                    "given once (it was given twice: {} and {})",
                    prev.display(),
                    p.display()
                ),
            ));
        }
        *slot = Some(p);
    }
    if let Some(i) = seen.iter().position(|s| s.is_none()) {
        return Err(Error::invalid(
            "shards",
            format!("{} of {count} given", shards.len()),
            &format!("all of 1..={count} (shard {}/{count} is missing)", i + 1),
        ));
    }
    // The rows, shard against shard (cheap; before the accounting that rebuilds the suite).
    let mut sums = Vec::with_capacity(first.row.len());
    for (i, r0) in first.row.iter().enumerate() {
        let sel = r0.selected()?;
        let (mut total, mut seconds, mut trained) = (MainCounts::default(), 0.0, 0u64);
        for (f, p) in shards.iter().zip(files) {
            let rs = f
                .row
                .get(i)
                .filter(|rs| {
                    f.row.len() == first.row.len()
                        && rs.name == r0.name
                        && rs.runs_per_side == r0.runs_per_side
                        && rs.pilot_runs_per_side == r0.pilot_runs_per_side
                })
                .ok_or_else(|| differs(p, f0, &format!("rows (row {} is {:?})", i + 1, r0.name)))?;
            let s = rs.selected()?;
            if s.threshold.to_bits() != sel.threshold.to_bits()
                || s.tail != sel.tail
                || s.direction != sel.direction
            {
                return Err(differs(
                    p,
                    f0,
                    &format!("pilot selection for row {:?}", r0.name),
                ));
            }
            total = total.checked_add(&rs.counts).ok_or_else(|| {
                Error::invalid("shard", p.display(), "main-run counts that add up")
            })?;
            seconds += rs.seconds;
            trained = trained.saturating_add(rs.runs_trained);
        }
        sums.push((sel, total, seconds, trained));
    }
    Ok((shards, sums))
}

/// Every row's selected region, summed main-run counts, seconds and runs trained.
type RowSums = Vec<(Selected, MainCounts, f64, u64)>;

/// The checks of [`merge`] that need no suite rebuilt: what `dpaudit merge --check` runs.
pub(crate) fn check(files: &[PathBuf]) -> Result<()> {
    read_and_check(files).map(|_| ())
}

/// Reads, checks and merges the training-audit shard files `files` (see the module docs).
pub(crate) fn merge(files: &[PathBuf]) -> Result<MergedTrain> {
    let (shards, sums) = read_and_check(files)?;
    let (first, f0) = match (shards.first(), files.first()) {
        (Some(s), Some(p)) => (s, p),
        _ => return Err(Error::invalid("shards", "none", "at least one shard file")),
    };
    let count = first.shard.count;
    // The suite itself, rebuilt by this build from the options: it must be the shards' suite.
    let opts = first.options()?;
    let (rows, notes) = suite_rows(&opts)?;
    let fp = fingerprint(&opts, &rows);
    if fp != first.fingerprint {
        return Err(differs(
            f0,
            Path::new("this dpaudit build"),
            &format!("configuration (fingerprint {} vs {fp})", first.fingerprint),
        ));
    }
    if rows.len() != first.row.len() || rows.iter().zip(&first.row).any(|(r, rs)| r.name != rs.name)
    {
        return Err(differs(
            f0,
            Path::new("this dpaudit build"),
            "rows (names and order)",
        ));
    }
    let mut results = Vec::with_capacity(rows.len());
    for (r, (sel, total, seconds, trained)) in rows.iter().zip(sums) {
        let acfg = audit_config(r, opts.seed);
        let audit = finish_training_audit(&acfg, &sel, &total, seconds).map_err(|e| {
            Error::invalid(
                "shards",
                format!("row {:?}", r.name),
                &format!("shards that cover every main run once: {e}"),
            )
        })?;
        results.push(SuiteResult {
            flagged: audit.eps_lb_strict > r.claim.0,
            audit,
            row: r.clone(),
            runs_per_second: trained as f64 / seconds.max(1e-12),
        });
    }
    Ok(MergedTrain {
        opts,
        notes,
        results,
        count,
        files: files.to_vec(),
    })
}

/// The report of a merged suite: the unsharded run's texts, but for the "Produced by" line
/// (the equivalent `dpaudit train-audit` command and `command`, the merge) and the timings.
pub(crate) fn merged_report(m: &MergedTrain, command: &str) -> Result<Report> {
    let produced = format!(
        "`{}` (merged from {} shards by `{command}`; seconds and runs/s summed over the shards, \
         each of which also ran the pilot)",
        m.opts.command_line(),
        m.count
    );
    let mut report = new_report(&m.opts, &m.notes, &produced)?;
    for r in &m.results {
        push_result(&mut report, r);
    }
    Ok(report)
}

/// Writes the merged report into `out`; returns whether every verdict is the expected one and
/// the files written.
pub(crate) fn write_merged(
    m: &MergedTrain,
    out: &Path,
    command: &str,
) -> Result<(bool, Vec<PathBuf>)> {
    let report = merged_report(m, command)?;
    let files = write_files(out, &report)?;
    Ok((report.all_expected, files))
}

#[cfg(test)]
mod tests {
    use super::{finish_training_audit, fnv1a, run_training_audit_shard, MainCounts, Shard};
    use crate::train::sgd::audit::{run_training_audit, CanaryProblem, TrainingAuditConfig, View};
    use crate::train::sgd::optim::SgdConfig;

    #[test]
    fn fnv1a_matches_the_reference_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    /// The counts of three shards add up to those of the whole run, and finishing on the sum
    /// gives the unsharded result exactly; an incomplete sum is refused.
    #[test]
    fn shard_counts_sum_to_the_unsharded_audit() {
        let pb = CanaryProblem::orthogonal(4).unwrap();
        let mut cfg = SgdConfig::dpsgd(0.5, 1.0, 2.0, 3, 0.5);
        cfg.batch_norm = Some(2.0);
        let acfg = TrainingAuditConfig {
            runs_per_side: 3 * super::super::audit::RUN_CHUNK + 123,
            pilot_runs_per_side: 5000,
            delta: 1e-5,
            confidence: 0.95,
            seed: 17,
            threads: Some(2),
        };
        let whole = run_training_audit(&pb, &cfg, View::WhiteBox, &acfg).unwrap();
        let mut total = MainCounts::default();
        let mut sels = Vec::new();
        for k in 0..3 {
            let one = TrainingAuditConfig {
                threads: Some(1),
                ..acfg.clone()
            };
            let (sel, c) = run_training_audit_shard(
                &pb,
                &cfg,
                View::WhiteBox,
                &one,
                Shard::new(k, 3).unwrap(),
            )
            .unwrap();
            assert!(c.runs_per_side > 0);
            total = total.checked_add(&c).unwrap();
            sels.push(sel);
        }
        assert!(sels
            .iter()
            .all(|s| s.threshold.to_bits() == sels[0].threshold.to_bits()));
        assert_eq!(total.runs_per_side, acfg.runs_per_side);
        let merged = finish_training_audit(&acfg, &sels[0], &total, 0.0).unwrap();
        assert_eq!(merged.region, whole.region);
        assert_eq!(merged.eps_lb.to_bits(), whole.eps_lb.to_bits());
        assert_eq!(
            merged.eps_lb_strict.to_bits(),
            whole.eps_lb_strict.to_bits()
        );
        assert!(whole.eps_lb > 0.0, "{whole:?}");
        let short = MainCounts {
            runs_per_side: total.runs_per_side - 1,
            ..total
        };
        let e = finish_training_audit(&acfg, &sels[0], &short, 0.0).unwrap_err();
        assert!(e.to_string().contains("merge every shard"), "{e}");
    }
}
