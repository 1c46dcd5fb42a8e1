//! The issue-9 suite of training-loop audits as a library function: full-batch DP-GD tightness,
//! DP-SGD at q = 0.1, OSO-DPSGD, the black-box view, the four positive controls and the
//! normaliser finding, each with its claimed ε, certified bracket, ε_lb and verdict. Used by
//! `dpaudit train-audit` and `examples/dpsgd_audit.rs`; explained in `docs/dpsgd.md`.

use std::time::Instant;

use super::audit::{
    run_training_audit, CanaryProblem, TrainingAuditConfig, TrainingAuditResult, View,
};
use super::optim::{Defect, OsoParams, Sampling, SgdConfig};
use super::oso;
use super::privacy::{certified_eps, full_batch_sigma_for};
use crate::error::{Error, Result};

/// δ of every audit of the suite.
pub(crate) const DELTA: f64 = 1e-5;
/// Steps T of every run of the suite.
pub(crate) const T: u64 = 10;

// The report writers (`dpsgd_audit.md`, `dpsgd_audit.csv`), for `dpaudit train-audit` and the
// shard merge.
#[cfg(feature = "cli")]
mod report;
#[cfg(feature = "cli")]
pub(crate) use report::{new_report, push_result, write_files, write_report, Report};

/// Which rows to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowSelection {
    /// Every row.
    All,
    /// The full-batch tightness row only.
    First,
    /// Every row but the two large ones (full-batch and q = 0.1 white box).
    Rest,
}

// The names `--rows` takes.
crate::error::named_enum!(RowSelection, "rows", {
    All => "all",
    First => "first",
    Rest => "rest",
});

/// The suite's sizes and parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteOptions {
    /// Runs per side of the two white-box tightness rows (10⁷ in the issue).
    pub big_runs: u64,
    /// Runs per side of every other row (line 13 gets 3×).
    pub control_runs: u64,
    /// σ of the q = 0.1 rows.
    pub sigma_q: f64,
    /// Seed of every audit.
    pub seed: u64,
    /// Which rows.
    pub rows: RowSelection,
}

impl Default for SuiteOptions {
    fn default() -> Self {
        SuiteOptions {
            big_runs: 10_000_000,
            control_runs: 1_000_000,
            sigma_q: 1.2,
            seed: 9,
            rows: RowSelection::All,
        }
    }
}

/// One audit of the suite, before it runs.
#[derive(Debug, Clone)]
pub struct SuiteRow {
    /// What is audited.
    pub name: &'static str,
    /// The problem trained on.
    pub problem: CanaryProblem,
    /// The training configuration.
    pub cfg: SgdConfig,
    /// White or black box.
    pub view: View,
    /// (claimed ε, the claim's source, certified bracket (lower, upper)).
    pub claim: (f64, String, (f64, f64)),
    /// Runs per side.
    pub runs: u64,
    /// Whether a correct auditor must flag it.
    pub should_flag: bool,
}

/// One audit's outcome.
#[derive(Debug, Clone)]
pub struct SuiteResult {
    /// The row.
    pub row: SuiteRow,
    /// The audit.
    pub audit: TrainingAuditResult,
    /// Whether the strict ε_lb exceeds the claimed ε.
    pub flagged: bool,
    /// Runs per second (both sides, pilot included).
    pub runs_per_second: f64,
}

/// The rows of the suite and notes on the accounting (σ's, OSO's two accountings).
pub fn suite_rows(opts: &SuiteOptions) -> Result<(Vec<SuiteRow>, Vec<String>)> {
    build_rows(opts, true)
}

/// The rows of the suite without the notes: skips the OSO heterogeneous accountings, which only
/// the notes show (what a shard needs; the rows are those of [`suite_rows`]).
pub(crate) fn suite_rows_only(opts: &SuiteOptions) -> Result<Vec<SuiteRow>> {
    Ok(build_rows(opts, false)?.0)
}

fn build_rows(opts: &SuiteOptions, with_notes: bool) -> Result<(Vec<SuiteRow>, Vec<String>)> {
    crate::error::check_positive("sigma_q", opts.sigma_q)?;
    let mut notes = Vec::new();
    let acc = Accounting::new(opts.sigma_q, &mut notes)?;
    if with_notes {
        notes.push(acc.oso_note()?);
    }
    let cf = Configs::new(&acc)?;
    let mut rows: Vec<SuiteRow> = Vec::new();
    if opts.rows != RowSelection::Rest {
        rows.push(row(
            "DP-GD, q = 1, white box",
            &cf.pb4,
            cf.dpgd.clone(),
            View::WhiteBox,
            exact(acc.full),
            opts.big_runs,
            false,
        ));
    }
    if opts.rows == RowSelection::All {
        rows.push(row(
            "DP-SGD, q = 0.1, white box",
            &cf.pb9,
            cf.dpsgd.clone(),
            View::WhiteBox,
            rdp(acc.sgd),
            opts.big_runs,
            false,
        ));
    }
    if opts.rows != RowSelection::First {
        rows.extend(comparison_rows(&acc, &cf, opts.control_runs));
        rows.extend(control_rows(&acc, &cf, opts.control_runs)?);
    }
    Ok((rows, notes))
}

/// The σ's of the suite and their certified ε brackets at δ = [`DELTA`] after [`T`] steps.
struct Accounting {
    /// σ of the full-batch rows (calibrated to ε = 2, rounded to 4 decimals).
    sigma: f64,
    /// σ of the q = 0.1 rows.
    sigma_q: f64,
    /// The full-batch bracket (exact).
    full: (f64, f64),
    /// The q = 0.1 bracket.
    sgd: (f64, f64),
}

impl Accounting {
    /// Computes the brackets, noting each in `notes`.
    fn new(sigma_q: f64, notes: &mut Vec<String>) -> Result<Accounting> {
        let sigma = full_batch_sigma_for(2.0, T, DELTA)?;
        let sigma = (sigma * 1e4).round() / 1e4;
        let full = certified_eps(1.0, sigma, T, DELTA)?;
        notes.push(format!(
            "full batch: sigma = {sigma}, exact eps(1e-5) = {:.6}",
            full.1
        ));
        let sgd = certified_eps(0.1, sigma_q, T, DELTA)?;
        notes.push(format!(
            "q = 0.1: sigma = {sigma_q}, certified eps bracket [{:.6}, {:.6}]",
            sgd.0, sgd.1
        ));
        Ok(Accounting {
            sigma,
            sigma_q,
            full,
            sgd,
        })
    }

    /// The note on OSO's two accountings; checks that Prop. 1's equals the DP-SGD bracket.
    fn oso_note(&self) -> Result<String> {
        let (sigma, sigma_q) = (self.sigma, self.sigma_q);
        // Prop. 1: OSO's two releases are one Gaussian mechanism with multiplier ν, so its claim
        // is `certified_eps(q, ν, …)`, already computed (`oso::account`'s `single_query`).
        let (oso_full_eps, oso_q_eps) = (self.full, self.sgd);
        let acc_full = oso::account(1.0, sigma, OsoParams::paper(sigma)?.nu_q, T, DELTA)?;
        let acc_q = oso::account(0.1, sigma_q, OsoParams::paper(sigma_q)?.nu_q, T, DELTA)?;
        if acc_full.single_query != oso_full_eps || acc_q.single_query != oso_q_eps {
            return Err(Error::Undefined(format!(
                "OSO accounting: Prop. 1 brackets {:?} and {:?} differ from the DP-SGD ones",
                acc_full.single_query, acc_q.single_query
            )));
        }
        Ok(format!(
            "OSO q = 1: Prop. 1 {:?}, heterogeneous {:?}; q = 0.1: Prop. 1 {:?}, heterogeneous {:?}",
            acc_full.single_query, acc_full.heterogeneous, acc_q.single_query, acc_q.heterogeneous
        ))
    }
}

/// The problems and the four audited configurations, each with a fixed, public normaliser B̄
/// (see the last row for why).
struct Configs {
    pb4: CanaryProblem,
    pb9: CanaryProblem,
    dpgd: SgdConfig,
    dpsgd: SgdConfig,
    oso_full: SgdConfig,
    oso_q: SgdConfig,
}

impl Configs {
    fn new(acc: &Accounting) -> Result<Configs> {
        let (sigma, sigma_q) = (acc.sigma, acc.sigma_q);
        let oso_full = SgdConfig {
            oso: Some(OsoParams::paper(sigma)?),
            ..SgdConfig::dpsgd(1.0, 1.0, sigma, T, 0.5)
        };
        let oso_q = SgdConfig {
            oso: Some(OsoParams::paper(sigma_q)?),
            ..SgdConfig::dpsgd(0.1, 1.0, sigma_q, T, 0.5)
        };
        let pb4 = CanaryProblem::orthogonal(4)?;
        let pb9 = CanaryProblem::orthogonal(9)?;
        Ok(Configs {
            pb4,
            pb9,
            dpgd: fixed(SgdConfig::dpsgd(1.0, 1.0, sigma, T, 0.5), 4.0),
            dpsgd: fixed(SgdConfig::dpsgd(0.1, 1.0, sigma_q, T, 0.5), 1.0),
            oso_full: fixed(oso_full, 4.0),
            oso_q: fixed(oso_q, 1.0),
        })
    }
}

/// `c` with the fixed normaliser B̄ = `b`.
fn fixed(mut c: SgdConfig, b: f64) -> SgdConfig {
    c.batch_norm = Some(b);
    c
}

/// `c` with the defect `d`.
fn with(c: &SgdConfig, d: Defect) -> SgdConfig {
    SgdConfig {
        defect: d,
        ..c.clone()
    }
}

/// The claim of a full-batch row: the exact ε.
fn exact(e: (f64, f64)) -> (f64, String, (f64, f64)) {
    (e.1, "exact (q = 1)".to_string(), e)
}

/// The claim of a subsampled row: the upper end of the certified bracket.
fn rdp(e: (f64, f64)) -> (f64, String, (f64, f64)) {
    (e.1, "certified bracket (q < 1)".to_string(), e)
}

/// One row.
fn row(
    name: &'static str,
    problem: &CanaryProblem,
    cfg: SgdConfig,
    view: View,
    claim: (f64, String, (f64, f64)),
    runs: u64,
    should_flag: bool,
) -> SuiteRow {
    SuiteRow {
        name,
        problem: problem.clone(),
        cfg,
        view,
        claim,
        runs,
        should_flag,
    }
}

/// The black-box views and OSO-DPSGD under Prop. 1's accounting (none should be flagged).
fn comparison_rows(acc: &Accounting, cf: &Configs, runs: u64) -> [SuiteRow; 4] {
    let (full, sgd) = (acc.full, acc.sgd);
    let (oso_full_eps, oso_q_eps) = (full, sgd);
    [
        row(
            "DP-GD, q = 1, black box (final model)",
            &cf.pb4,
            cf.dpgd.clone(),
            View::BlackBox,
            exact(full),
            runs,
            false,
        ),
        row(
            "DP-SGD, q = 0.1, black box (final model)",
            &cf.pb9,
            cf.dpsgd.clone(),
            View::BlackBox,
            rdp(sgd),
            runs,
            false,
        ),
        row(
            "OSO-DPSGD, q = 1 (Prop. 1)",
            &cf.pb4,
            cf.oso_full.clone(),
            View::WhiteBox,
            exact(oso_full_eps),
            runs,
            false,
        ),
        row(
            "OSO-DPSGD, q = 0.1 (Prop. 1)",
            &cf.pb9,
            cf.oso_q.clone(),
            View::WhiteBox,
            rdp(oso_q_eps),
            runs,
            false,
        ),
    ]
}

/// The four positive controls and the normaliser finding (each must be flagged).
fn control_rows(acc: &Accounting, cf: &Configs, runs: u64) -> Result<[SuiteRow; 5]> {
    let (full, sgd) = (acc.full, acc.sgd);
    let oso_full_eps = full;
    Ok([
        row(
            "control: noise not multiplied by C (C = 4)",
            &cf.pb4,
            SgdConfig {
                clip: 4.0,
                ..with(&cf.dpgd, Defect::NoiseNotScaledByC)
            },
            View::WhiteBox,
            exact(full),
            runs,
            true,
        ),
        row(
            "control: fixed-size batch (b = 1 of 10) accounted as Poisson q = 0.1",
            &CanaryProblem::opposed(9)?,
            SgdConfig {
                sampling: Sampling::FixedSize { batch: 1 },
                ..cf.dpsgd.clone()
            },
            View::WhiteBox,
            rdp(sgd),
            runs,
            true,
        ),
        row(
            "control: OSO literal line 13 (Q noised with nu_g)",
            &cf.pb4,
            with(&cf.oso_full, Defect::LiteralLine13),
            View::WhiteBox,
            exact(oso_full_eps),
            // its leak is a factor ≈ 1.4 in μ (true ε ≈ 3): 3× the runs for the strict bound
            3 * runs,
            true,
        ),
        row(
            "control: OSO C_t from the un-noised hypergradient",
            &cf.pb4,
            with(&cf.oso_full, Defect::UnnoisedHypergradient),
            View::WhiteBox,
            exact(oso_full_eps),
            runs,
            true,
        ),
        row(
            "finding: DP-GD with the default normaliser B̄ = qN (N private), black box",
            &cf.pb4,
            SgdConfig {
                batch_norm: None,
                ..cf.dpgd.clone()
            },
            View::BlackBox,
            exact(full),
            runs,
            true,
        ),
    ])
}

impl SuiteOptions {
    /// The `dpaudit train-audit` command line that runs this suite.
    pub fn command_line(&self) -> String {
        let mut c = format!(
            "dpaudit train-audit --rows {} --runs {} --control-runs {} --seed {}",
            self.rows, self.big_runs, self.control_runs, self.seed
        );
        if self.sigma_q != SuiteOptions::default().sigma_q {
            c.push_str(&format!(" (sigma_q = {})", self.sigma_q));
        }
        c
    }
}

/// Training runs per second of the suite on two cores (both sides, pilot included), for
/// [`estimate`]: the slowest rows of reports/dpsgd_audit.md run 2.4·10⁵ runs/s.
const RUN_RATE: f64 = 2e5;

/// The work of the suite (or of one of `shards` shards of it): training runs, both sides, pilots
/// included; after checking that every row's pilot scores (kept in memory to choose the cut)
/// fit in memory.
pub fn estimate(opts: &SuiteOptions, shards: u64) -> Result<crate::limits::Estimate> {
    let count = shards.max(1);
    let mut runs = 0.0;
    let mut pilot_max = 0u64;
    for r in suite_rows_only(opts)? {
        let a = audit_config(&r, opts.seed);
        runs += 2.0 * (a.pilot_runs_per_side as f64 + a.runs_per_side.div_ceil(count) as f64);
        pilot_max = pilot_max.max(a.pilot_runs_per_side);
    }
    // Both sides' pilot scores, and a sorted copy.
    // Named as the command line names it: the larger of --runs and --control-runs sized it.
    let (flag, runs_of) = if opts.big_runs >= opts.control_runs {
        ("--runs", opts.big_runs)
    } else {
        ("--control-runs", opts.control_runs)
    };
    crate::limits::check_memory(
        flag,
        runs_of,
        "the pilot scores of a row",
        crate::limits::product(&[u128::from(pilot_max), 2 * 8 * 2]),
    )?;
    Ok(crate::limits::Estimate::new(
        "training runs",
        runs,
        RUN_RATE,
    ))
}

/// The audit configuration of a row: its runs per side, a pilot of a tenth of them (at least
/// 10⁴), δ = [`DELTA`], 95 % confidence, `seed`.
pub(crate) fn audit_config(row: &SuiteRow, seed: u64) -> TrainingAuditConfig {
    TrainingAuditConfig {
        runs_per_side: row.runs,
        pilot_runs_per_side: (row.runs / 10).max(10_000),
        delta: DELTA,
        confidence: 0.95,
        seed,
        threads: None,
    }
}

/// Runs one row.
pub fn run_row(row: &SuiteRow, seed: u64) -> Result<SuiteResult> {
    let acfg = audit_config(row, seed);
    let t0 = Instant::now();
    let audit = run_training_audit(&row.problem, &row.cfg, row.view, &acfg)?;
    let secs = t0.elapsed().as_secs_f64();
    let total = 2 * (acfg.runs_per_side + acfg.pilot_runs_per_side);
    Ok(SuiteResult {
        flagged: audit.eps_lb_strict > row.claim.0,
        audit,
        row: row.clone(),
        runs_per_second: total as f64 / secs.max(1e-12),
    })
}

fn verdict(flag: bool) -> &'static str {
    if flag {
        "VIOLATION"
    } else {
        "ok"
    }
}

/// The Markdown table header.
pub const MARKDOWN_HEADER: &str = "| audit | runs/side | claimed ε (source) | certified bracket | ε_lb 95 % | ε_lb/claimed | ε_lb strict | verdict | expected | seconds | runs/s |\n|---|---|---|---|---|---|---|---|---|---|---|";

/// One Markdown table line.
pub fn markdown_line(r: &SuiteResult) -> String {
    let (name, runs, claimed, source, (lo, hi), lb, strict, got, want) = fields(r);
    format!(
        "| {name} | {runs} | {claimed:.4} ({source}) | [{lo:.4}, {hi:.4}] | {lb:.4} | {:.3} | \
         {strict:.4} | {got} | {want} | {:.1} | {:.3e} |",
        lb / claimed,
        r.audit.seconds,
        r.runs_per_second,
    )
}

/// The fields both table lines print: audit name, runs per side, claimed ε, the claim's source,
/// certified bracket, ε_lb, strict ε_lb, verdict and expected verdict.
#[allow(clippy::type_complexity)]
fn fields(r: &SuiteResult) -> (&str, u64, f64, &str, (f64, f64), f64, f64, &str, &str) {
    let (claimed, source, bracket) = &r.row.claim;
    (
        r.row.name,
        r.row.runs,
        *claimed,
        source,
        *bracket,
        r.audit.eps_lb,
        r.audit.eps_lb_strict,
        verdict(r.flagged),
        verdict(r.row.should_flag),
    )
}
