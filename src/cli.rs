//! The `dpaudit` command line (feature `cli`): argument parsing, the subcommands' wiring and the
//! exit-status convention (0 nothing found, 1 a finding, 2 an error or a check that did not run).
//! The binary `src/main.rs` only calls [`main`]. Nothing is computed here: the subcommands call
//! the library and present its results; what this module decides is which exit status a result
//! earns (`finish`, `train_audit_exit`) and whether progress may be drawn (stderr a terminal).

use crate::bounds::conversion::Conversion;
use crate::divergence::Method;
use crate::eval::{self, EvalOptions};
use crate::report::{self, ReportOptions};
use clap::{Parser, Subcommand};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where commands write when `--out` is not given: a directory of its own in the current
/// directory (ignored by the repository's .gitignore), never the committed `reports/`.
const DEFAULT_OUT: &str = "dpaudit-out";

#[derive(Parser)]
#[command(
    name = "dpaudit",
    version,
    about = "Certified privacy accounting and audits for Gaussian-family DP mechanisms"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// One subsampled-Gaussian release given by flags: `--q` and `--steps`, or the DP-SGD
/// bookkeeping `--dataset-size`, `--batch-size` and `--epochs`.
#[derive(clap::Args, Clone, Debug, Default)]
struct ReleaseFlags {
    /// Sampling rate q (Poisson).
    #[arg(long)]
    q: Option<String>,
    /// Noise multiplier σ.
    #[arg(long)]
    sigma: Option<String>,
    /// Number of steps T.
    #[arg(long)]
    steps: Option<u64>,
    /// Dataset size N (bookkeeping: q = batch_size / N).
    #[arg(long)]
    dataset_size: Option<u64>,
    /// Expected batch size under Poisson sampling.
    #[arg(long)]
    batch_size: Option<u64>,
    /// Epochs (steps = ⌈epochs · N / batch_size⌉).
    #[arg(long)]
    epochs: Option<String>,
    /// add_remove | substitution
    #[arg(long)]
    neighbours: Option<String>,
}

impl ReleaseFlags {
    /// The release as a TOML `[[release]]` table (values checked to be numbers first, so the
    /// text cannot be anything but a table); `need_count` false leaves the step count out.
    fn toml(&self, need_sigma: bool) -> crate::Result<String> {
        use crate::Error;
        let num = |k: &str, v: &str| -> crate::Result<String> {
            v.parse::<crate::Scalar>()
                .map(|_| format!("{k} = \"{v}\"\n"))
                .map_err(|_| Error::invalid(k, format!("{v:?}"), "a finite decimal number"))
        };
        let mut t = String::from("[[release]]\nkind = \"subsampled_gaussian\"\n");
        match &self.sigma {
            Some(sg) => t += &num("sigma", sg)?,
            None if need_sigma => {
                return Err(Error::MissingParameter {
                    name: "--sigma".into(),
                    needed_by: "the release".into(),
                })
            }
            None => t += "sigma = \"1\"\n",
        }
        if let Some(q) = &self.q {
            t += &num("q", q)?;
        }
        if let Some(n) = self.steps {
            t += &format!("count = {n}\n");
        }
        if let Some(n) = self.dataset_size {
            t += &format!("dataset_size = {n}\n");
        }
        if let Some(n) = self.batch_size {
            t += &format!("batch_size = {n}\n");
        }
        if let Some(e) = &self.epochs {
            t += &num("epochs", e)?;
        }
        match self.neighbours.as_deref() {
            None => {}
            Some(n @ ("add_remove" | "substitution")) => t += &format!("neighbours = \"{n}\"\n"),
            Some(other) => {
                return Err(Error::invalid(
                    "neighbours",
                    format!("{other:?}"),
                    "add_remove or substitution",
                ))
            }
        }
        Ok(t)
    }

    fn given(&self) -> bool {
        self.q.is_some()
            || self.sigma.is_some()
            || self.steps.is_some()
            || self.dataset_size.is_some()
            || self.batch_size.is_some()
            || self.epochs.is_some()
            || self.neighbours.is_some()
    }
}

fn check_format(format: &str) -> Result<bool, String> {
    match format {
        "text" => Ok(false),
        "json" => Ok(true),
        other => Err(format!(
            "invalid parameter --format = {other:?}: must be text or json"
        )),
    }
}

/// Prints an error as text (stderr) or as a JSON error document (stdout), exit status 2.
fn fail_as(json: bool, command: &str, msg: impl std::fmt::Display) -> ExitCode {
    if json {
        println!("{}", report::json::Json::error(command, &msg.to_string()));
        ExitCode::from(2)
    } else {
        fail(msg)
    }
}

/// [`fail_as`] for a library error: a refusal that carries its narrowest bracket (a precision
/// error with [`crate::error::Narrowest`]) adds it to the JSON error document as `refused`
/// (docs/json.md), so scripts need not parse the message.
fn fail_error(json: bool, command: &str, e: &crate::error::Error) -> ExitCode {
    use report::json::Json;
    match e {
        crate::error::Error::Precision {
            requested,
            certified,
            narrowest: Some(n),
            ..
        } if json => {
            let mut doc = Json::error(command, &e.to_string());
            if let Json::Obj(v) = &mut doc {
                v.push((
                    "refused".to_string(),
                    Json::obj(vec![
                        ("requested_digits", Json::Int(u64::from(*requested))),
                        ("certified_digits", Json::Int(u64::from(*certified))),
                        (
                            "bracket",
                            Json::obj(vec![("lo", Json::str(&n.lo)), ("hi", Json::str(&n.hi))]),
                        ),
                        ("route", Json::str(&n.route)),
                    ]),
                ));
            }
            println!("{doc}");
            ExitCode::from(2)
        }
        _ => fail_as(json, command, e),
    }
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate rows `id,quantity,family,params` of a CSV file (or `-` for stdin) to certified digits.
    Eval(EvalArgs),
    /// Run every audit spec, the golden verification and the positive controls; write the
    /// three-way report (Markdown, CSV, SVG and PNG plots).
    ///
    /// Exit status: 0 when everything ran and nothing was found; 1 when a VIOLATION, a failing
    /// golden row or a missed positive control was found; 2 on an error (bad spec, unreadable
    /// directory, …) or when a check did not run (an audit that failed, an exact value that
    /// could not be computed, golden verification or controls that could not run: "NOT RUN").
    Report(ReportArgs),
    /// Run one training experiment (HMB App. C two-node DP-GD): writes
    /// OUT/NAME/{SPLIT.csv, SPLIT.svg, SPLIT.png, summary.md} (SPLIT_authors_code.* under the
    /// authors' code's conventions). Exit status 0, or 2 on an error.
    Train(TrainArgs),
    /// Audit DP-SGD and OSO-DPSGD through the training loop (Dirac-canary white-box audits,
    /// black-box view, positive controls): writes dpsgd_audit.md and dpsgd_audit.csv into --out.
    /// Exit status 0 when every verdict is the expected one, 1 otherwise, 2 on an error.
    TrainAudit(TrainAuditArgs),
    /// Run one audit spec and write its three-way comparison and privacy-profile plot.
    ///
    /// Writes NAME.md, NAME.csv, NAME_audit.csv and NAME_profile.{svg,png,csv} into --out.
    /// Exit status: 0 when clean; 1 on a VIOLATION; 2 on an error or when the audit or the
    /// exact value could not be computed ("NOT RUN").
    ///
    /// A spec may name your own sampler as a command instead of a family (`[mechanism] command =
    /// [...]`, a `[claim]` section; docs/samples.md#command): dpaudit runs it once per chunk of
    /// each side with DPAUDIT_SIDE, DPAUDIT_COUNT and DPAUDIT_SEED set, reads the samples it
    /// prints (text or .npy), audits them as `audit-samples` does and writes NAME.md, NAME.csv,
    /// NAME_a.npy and NAME_b.npy.
    Audit(AuditArgs),
    /// Black-box audit of a claimed (ε, δ) from two files of your own sampler's outputs: A drawn
    /// on an input x, B on a neighbour x′ (CSV: one sample per line, d columns, optional header;
    /// or NumPy .npy of shape (n,) or (n, d)). Each file is split (seeded) into a pilot, which
    /// chooses the statistic's region, and a main part, which certifies ε_lb (docs/samples.md).
    ///
    /// Writes audit-samples.md and audit-samples.csv into --out. Exit status: 0 when the strict
    /// bound does not exceed the claimed ε; 1 on a VIOLATION; 2 on an error (unreadable file,
    /// mismatched dimensions, bad flag).
    AuditSamples(AuditSamplesArgs),
    /// Check the quantitative claims of the five source documents: writes claims.md and
    /// claims.csv (source, dpaudit's computed figure, verdict, reproducing command) into --out,
    /// and prints each row computed. Exit status 0, or 2 on an error (an unknown --only id).
    /// `report` writes the same files.
    Claims(ClaimsArgs),
    /// Certified accounting of a composition written in TOML (see examples/account/*.toml):
    /// prints the two-sided bracket on ε(δ) and/or δ(ε), the RDP route with its optimal order,
    /// and each neighbour direction. Exit status 0, or 2 on an error.
    ///
    /// One-offs without a file: `dpaudit account --q 0.01 --sigma 1 --steps 1000 --delta 1e-5`,
    /// or with DP-SGD bookkeeping `--dataset-size 60000 --batch-size 256 --epochs 60` instead of
    /// `--q` and `--steps` (q = batch/dataset, steps = ⌈epochs·dataset/batch⌉, echoed).
    Account(AccountArgs),
    /// Calibrate DP-SGD to a target (ε, δ) on the certified bracket: the smallest noise
    /// multiplier (`--solve sigma`, give --steps or --epochs) or the largest step count
    /// (`--solve steps`, give --sigma), and the certified round trip (ε bracket at the answer,
    /// and at the next σ or T, which misses the target). Add/remove neighbours.
    Calibrate(CalibrateArgs),
    /// Merge the shard files of one audit (from `dpaudit audit SPEC --shard K/N`) and write the
    /// same outputs as the unsharded `dpaudit audit SPEC` (byte-identical CSVs; for a command
    /// spec, every file byte-identical); or, told apart by the files' format, those of one
    /// training-audit suite (`dpaudit train-audit --shard K/N`) and write the unsharded
    /// `dpaudit train-audit`'s dpsgd_audit.{md,csv}.
    ///
    /// Refuses shards of different specs, configurations, seeds or sample sizes, a missing shard,
    /// a shard given twice and a mix of the two kinds (exit 2). Otherwise exit statuses as for
    /// `audit`, or `train-audit`.
    Merge(MergeArgs),
}

impl Command {
    /// The subcommand's `--format`.
    fn format(&self) -> &str {
        match self {
            Command::Eval(a) => &a.format,
            Command::Report(a) => &a.format,
            Command::Train(a) => &a.format,
            Command::TrainAudit(a) => &a.format,
            Command::Audit(a) => &a.format,
            Command::AuditSamples(a) => &a.format,
            Command::Claims(a) => &a.format,
            Command::Account(a) => &a.format,
            Command::Calibrate(a) => &a.format,
            Command::Merge(a) => &a.format,
        }
    }
}

// The arguments of `dpaudit eval`.
#[derive(clap::Args)]
struct EvalArgs {
    /// Significant digits to certify.
    #[arg(long, default_value_t = 30)]
    digits: u32,
    /// auto | quadrature | closed-form
    #[arg(long, default_value = "auto")]
    method: String,
    /// Time limit per row, seconds: a row that cannot be certified in time fails with
    /// "could not certify N digits (reached M)" and the other rows go on.
    #[arg(long, default_value_t = crate::eval::DEFAULT_MAX_SECONDS)]
    max_seconds: f64,
    /// text (CSV) | json (docs/json.md)
    #[arg(long, default_value = "text")]
    format: String,
    /// Input CSV.
    input: PathBuf,
}

// The arguments of `dpaudit report`.
#[derive(clap::Args)]
struct ReportArgs {
    /// Output directory (default dpaudit-out; the committed showcase is regenerated with
    /// `--out reports`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Directory of the audit specs.
    #[arg(long, default_value = "audits")]
    specs: PathBuf,
    /// Directory of the golden tables.
    #[arg(long, default_value = "golden")]
    golden: PathBuf,
    /// Quick run: 1/20 of the samples, golden digits capped at 15.
    #[arg(long)]
    quick: bool,
    /// Samples per side for every audit (overrides the specs).
    #[arg(long)]
    samples: Option<u64>,
    /// Time limit in seconds for the whole report: past it the report stops with an error
    /// (exit 2). The report's files are written only once the audits, golden tables and
    /// controls have all finished in time; the quick training experiment runs after them.
    #[arg(long)]
    max_seconds: Option<f64>,
    /// text | json (docs/json.md; the files are written either way)
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit train`.
#[derive(clap::Args)]
struct TrainArgs {
    /// The experiment spec (TOML), e.g. experiments/figure1_synthetic.toml.
    spec: PathBuf,
    /// Output directory (default dpaudit-out; the committed showcase is regenerated with
    /// `--out reports`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Time limit in seconds: training stops with an error once it has passed.
    #[arg(long, allow_negative_numbers = true)]
    max_seconds: Option<f64>,
    /// Start even when the estimated work exceeds an hour.
    #[arg(long)]
    yes: bool,
    /// Reduced run: only the spec's first seed, at most 10 steps, at most 10,000 synthetic
    /// records (`n`), at most 5 grid points (`points`, hg_mean); written to OUT/NAME_quick/
    /// (docs/training.md).
    #[arg(long)]
    quick: bool,
    /// text (the Markdown summary) | json (docs/json.md; the files are written either way).
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit train-audit`.
#[derive(clap::Args)]
struct TrainAuditArgs {
    /// Output directory (default dpaudit-out; the committed showcase is regenerated with
    /// `--out reports`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Runs per side of the two tightness rows.
    #[arg(long, default_value_t = 10_000_000, allow_negative_numbers = true)]
    runs: u64,
    /// Runs per side of the other rows.
    #[arg(long, default_value_t = 1_000_000, allow_negative_numbers = true)]
    control_runs: u64,
    /// Which rows: all, first (full-batch tightness only) or rest.
    #[arg(long, default_value = "all")]
    rows: String,
    /// Seed of every audit.
    #[arg(long, default_value_t = 9, allow_negative_numbers = true)]
    seed: u64,
    /// Run only shard K of N (1 <= K <= N): every row's pilot and the main-run chunks c with
    /// c mod N = K - 1; writes dpsgd_audit.shard-K-of-N.toml into --out (exit 0 once
    /// written). Combine the N files with `dpaudit merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Time limit in seconds: the audit stops with an error once it has passed.
    #[arg(long, allow_negative_numbers = true)]
    max_seconds: Option<f64>,
    /// Start even when the estimated work exceeds an hour.
    #[arg(long)]
    yes: bool,
    /// text (the table on stderr) | json (every row on stdout, docs/json.md).
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit audit`.
#[derive(clap::Args)]
struct AuditArgs {
    /// The spec (TOML).
    spec: PathBuf,
    /// Output directory (default dpaudit-out; the committed showcase is regenerated with
    /// `--out reports`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Quick run: 1/20 of the spec's samples.
    #[arg(long)]
    quick: bool,
    /// Samples per side (overrides the spec).
    #[arg(long, allow_negative_numbers = true)]
    samples: Option<u64>,
    /// Draw only shard K of N of the audit's chunk streams (1 <= K <= N) and write
    /// NAME.shard-K-of-N.toml into --out; combine the N files with `dpaudit merge`.
    #[arg(long, value_name = "K/N")]
    shard: Option<String>,
    /// Time limit in seconds (sampling, exact values and plots): past it the audit stops
    /// with an error (exit 2) and writes nothing, so earlier outputs stay as they were.
    #[arg(long, allow_negative_numbers = true)]
    max_seconds: Option<f64>,
    /// text | json (docs/json.md; the files are written either way).
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit audit-samples`.
#[derive(clap::Args)]
struct AuditSamplesArgs {
    /// Samples of the mechanism on x (.csv, .txt or .npy).
    a: PathBuf,
    /// Samples of the mechanism on the neighbour x′ (same dimension as A).
    b: PathBuf,
    #[command(flatten)]
    flags: SamplesFlags,
    /// Output directory (default dpaudit-out).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// text | json (docs/json.md; the files are written either way).
    #[arg(long, default_value = "text")]
    format: String,
    /// Time limit in seconds: past it the audit stops with an error (exit 2), writing nothing.
    #[arg(long)]
    max_seconds: Option<f64>,
}

// The arguments of `dpaudit claims`.
#[derive(clap::Args)]
struct ClaimsArgs {
    /// Output directory (default dpaudit-out; the committed showcase is regenerated with
    /// `--out reports`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Compute and write only the row with this id (e.g. hmb-thm2-eq8).
    #[arg(long, value_name = "ID")]
    only: Option<String>,
    /// text | json (every row on stdout, docs/json.md; the files are written either way).
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit account`.
#[derive(clap::Args)]
struct AccountArgs {
    /// The schedule file (omit it to give one release by flags).
    schedule: Option<PathBuf>,
    #[command(flatten)]
    release: ReleaseFlags,
    /// δ at which ε(δ) is wanted (flags mode).
    #[arg(long)]
    delta: Option<String>,
    /// ε at which δ(ε) is wanted (flags mode).
    #[arg(long)]
    eps: Option<String>,
    /// Significant digits of the bracket (flags mode; default 12).
    #[arg(long)]
    digits: Option<u32>,
    /// Time limit in seconds (a computation past it fails with "could not certify").
    #[arg(long, default_value_t = 300.0)]
    max_seconds: f64,
    /// text | json (docs/json.md)
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit calibrate`.
#[derive(clap::Args)]
struct CalibrateArgs {
    /// sigma | steps | batch_size (give --dataset-size, --epochs and --sigma)
    #[arg(long)]
    solve: String,
    /// Target ε.
    #[arg(long)]
    target_eps: f64,
    /// Target δ.
    #[arg(long)]
    delta: String,
    #[command(flatten)]
    release: ReleaseFlags,
    /// Relative tolerance of σ (--solve sigma).
    #[arg(long, default_value_t = 1e-3)]
    rel_tol: f64,
    /// Largest step count searched (--solve steps).
    #[arg(long, default_value_t = 1_000_000)]
    max_steps: u64,
    /// Time limit in seconds.
    #[arg(long, default_value_t = 300.0)]
    max_seconds: f64,
    /// text | json (docs/json.md)
    #[arg(long, default_value = "text")]
    format: String,
}

// The arguments of `dpaudit merge`.
#[derive(clap::Args)]
struct MergeArgs {
    /// Directories (or files) holding the shard files.
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// Output directory (default dpaudit-out; the committed showcase is regenerated with
    /// `--out reports`).
    #[arg(long, default_value = DEFAULT_OUT)]
    out: PathBuf,
    /// Only check the shards (seals, every field against the other shards, counts) and
    /// exit 0 if they would merge; nothing is computed or written.
    #[arg(long)]
    check: bool,
    /// text | json (what was merged, then the unsharded command's document; docs/json.md).
    #[arg(long, default_value = "text")]
    format: String,
}

/// Prints what a report found; exit status 1 if it found a VIOLATION, a failing golden row or a
/// missed positive control, else 2 if a check did not run, else 0.
fn finish(outcome: crate::Result<crate::report::ReportOutcome>, out: &std::path::Path) -> ExitCode {
    match outcome {
        Err(e) => fail(e),
        Ok(o) => {
            if o.golden_failures > 0 {
                eprintln!(
                    "dpaudit: {} golden rows failed (see {}/golden.csv)",
                    o.golden_failures,
                    out.display()
                );
            }
            if o.controls_missed > 0 {
                eprintln!("dpaudit: {} positive controls MISSED", o.controls_missed);
            }
            for line in o.verdict_lines() {
                eprintln!("dpaudit: {line}");
            }
            ExitCode::from(o.exit_status())
        }
    }
}

/// [`finish`], and in JSON mode the document `doc` builds from the outcome on stdout (an error:
/// the error document, exit status 2).
fn finish_as(
    json: bool,
    command: &str,
    outcome: crate::Result<crate::report::ReportOutcome>,
    out: &Path,
    doc: impl FnOnce(&crate::report::ReportOutcome) -> report::json::Json,
) -> ExitCode {
    match (&outcome, json) {
        (Err(e), true) => return fail_as(true, command, e),
        (Ok(o), true) => println!("{}", doc(o)),
        _ => {}
    }
    finish(outcome, out)
}

/// `--shard K/N`, an error naming the flag.
fn parse_shard(t: &str) -> crate::Result<crate::audit::engine::Shard> {
    t.parse().map_err(|_: crate::Error| {
        crate::Error::invalid("--shard", t, "K/N with integers 1 <= K <= N")
    })
}

/// `dpaudit audit SPEC --shard K/N`: draws one shard and writes its file.
fn run_shard(
    spec: &std::path::Path,
    shard: &str,
    out: &std::path::Path,
    quick: bool,
    samples: Option<u64>,
    json: bool,
) -> ExitCode {
    let fail = |e: crate::Error| fail_as(json, "audit", e);
    let shard: crate::audit::engine::Shard = match parse_shard(shard) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let parsed = match crate::compare::spec::AuditSpec::from_file(spec) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let opts = ReportOptions {
        quick,
        samples,
        ..ReportOptions::default()
    };
    let n = opts.samples_for(&parsed);
    let progress = report::progress::bar("audit", std::io::stderr().is_terminal());
    match report::shards::write_shard(spec, n, shard, progress, out) {
        Ok(p) => {
            if json {
                let doc =
                    report::json::commands::audit_shard(&parsed.name, &shard.to_string(), n, &p);
                println!("{doc}");
            }
            eprintln!(
                "dpaudit: shard {shard} of {} ({n} samples per side in all): wrote {}",
                parsed.name,
                p.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

/// The text of `spec` if it is a command-audit spec (`[mechanism] command = [...]`); `None` for
/// a family spec or a file that cannot be read (the family route reports that).
fn command_spec_text(spec: &Path) -> Option<String> {
    let text = std::fs::read_to_string(spec).ok()?;
    crate::compare::command::is_command_spec(&text).then_some(text)
}

/// `dpaudit audit SPEC` on a command spec: the whole run, or one shard's file.
fn command_audit(
    path: &Path,
    text: &str,
    out: &Path,
    (quick, samples): (bool, Option<u64>),
    shard: Option<&str>,
    json: bool,
) -> ExitCode {
    use crate::compare::command::{self, CommandSpec};
    let fail = |e: crate::Error| fail_as(json, "audit", e);
    let spec = match CommandSpec::from_toml(text, path) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let n = samples.unwrap_or(if quick {
        (spec.plan.samples_per_side / 20).max(2)
    } else {
        spec.plan.samples_per_side
    });
    let plan = match spec.plan_for(n) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let progress = report::progress::bar("audit", std::io::stderr().is_terminal());
    if let Some(k) = shard {
        let res = parse_shard(k)
            .and_then(|sh| command::write_shard(&spec, plan, sh, &progress, out).map(|p| (sh, p)));
        return match res {
            Ok((sh, p)) => {
                if json {
                    println!(
                        "{}",
                        report::json::commands::audit_shard(
                            &path.display().to_string(),
                            &sh.to_string(),
                            n,
                            &p
                        )
                    );
                }
                eprintln!(
                    "dpaudit: shard {sh} of {} ({n} samples per side in all): wrote {}",
                    spec.name,
                    p.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    command_audit_exit(command::run(&spec, plan, &progress), out, json, None)
}

/// Writes a command audit's files and prints its verdict: exit 0 (ok), 1 (VIOLATION) or 2.
fn command_audit_exit(
    run: crate::Result<crate::compare::command::CommandRun>,
    out: &Path,
    json: bool,
    merged: Option<&[PathBuf]>,
) -> ExitCode {
    let command = if merged.is_some() { "merge" } else { "audit" };
    let fail = |e: crate::Error| fail_as(json, command, e);
    let run = match run {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    let files = match report::command::write(&run, out) {
        Ok(f) => f,
        Err(e) => return fail(e),
    };
    let a = &run.audit;
    if json {
        println!("{}", report::command::json(&run, &files, merged));
    } else {
        println!(
        "{}: {}: eps_lb = {} (confidence {}), strict eps_lb = {}, claimed eps = {} (delta = {}); statistic {}, {} samples per side",
        run.spec.name,
        a.verdict,
        a.eps_lb,
        a.confidence,
        a.eps_lb_strict,
        a.eps_claimed,
        a.delta,
        a.statistic,
        run.plan.samples_per_side
    );
    }
    for f in files {
        eprintln!("dpaudit: wrote {}", f.display());
    }
    if a.verdict == crate::audit::samples::Verdict::Violation {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A count given by `flag`: refused outside [lo, hi], the message naming the flag.
fn check_flag_range(flag: &str, v: u64, lo: u64, hi: u64) -> crate::Result<()> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(crate::Error::invalid(
            flag,
            v,
            &format!("an integer in [{lo}, {hi}]"),
        ))
    }
}

/// `--samples`: the same range as a spec's `audit.samples_per_side`.
fn check_samples(samples: Option<u64>) -> crate::Result<()> {
    let max = crate::compare::spec::MAX_SAMPLES;
    match samples {
        Some(n) if !(2..=max).contains(&n) => Err(crate::Error::invalid(
            "--samples",
            n,
            &format!("an integer in [2, {max}]"),
        )),
        _ => Ok(()),
    }
}

/// The options of `report` and `audit`: output, quick mode, samples (checked), a progress bar on
/// a terminal, and the command line for the summary.
fn run_options(out: &Path, quick: bool, samples: Option<u64>) -> crate::Result<ReportOptions> {
    check_samples(samples)?;
    Ok(ReportOptions {
        out: out.to_path_buf(),
        quick,
        samples,
        progress: std::io::stderr().is_terminal(),
        command: command_line(),
        ..ReportOptions::default()
    })
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("dpaudit {}", args.join(" "))
}

/// The training audit's files and exit status: 0 when every verdict is the expected one, 1
/// otherwise, 2 on an error; in JSON mode its document (or the error document) on stdout.
fn train_audit_exit(
    res: crate::Result<(bool, Vec<PathBuf>, report::json::Json)>,
    json: bool,
    command: &str,
) -> ExitCode {
    match res {
        Ok((ok, files, doc)) => {
            if json {
                println!("{doc}");
            }
            for f in files {
                eprintln!("dpaudit: wrote {}", f.display());
            }
            if ok {
                ExitCode::SUCCESS
            } else {
                eprintln!("dpaudit: a verdict differs from the expected one");
                ExitCode::from(1)
            }
        }
        Err(e) => fail_as(json, command, e),
    }
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("dpaudit: error: {msg}");
    ExitCode::from(2)
}

/// Runs `f` under a `--max-seconds` limit: the training loops' deadline
/// ([`crate::limits::with_deadline`]) and the certified computations' one.
fn with_limits<T>(max_seconds: Option<f64>, f: impl FnOnce() -> T) -> T {
    crate::numeric::deadline::with_limit(max_seconds, || {
        crate::limits::with_deadline(max_seconds, f)
    })
}

/// `dpaudit train-audit`, whole or one shard.
fn train_audit(
    opts: crate::Result<crate::train::sgd::suite::SuiteOptions>,
    shard: Option<String>,
    out: &Path,
    json: bool,
) -> ExitCode {
    use crate::train::sgd::suite::write_report;
    if let Some(k) = shard {
        use crate::train::sgd::shard::{write_shard, RowShard};
        let written = parse_shard(&k).and_then(|sh| {
            let o = opts?;
            let mut show = |r: &RowShard| {
                eprintln!(
                    "dpaudit: shard {sh}: {}: {} of {} main runs per side ({:.1} s)",
                    r.name, r.counts.runs_per_side, r.runs_per_side, r.seconds
                )
            };
            write_shard(&o, sh, out, &mut show).map(|p| (sh, o, p))
        });
        return match written {
            Ok((sh, o, p)) => {
                if json {
                    let doc = report::json::commands::train_audit_shard(
                        &sh.to_string(),
                        &o.command_line(),
                        &p,
                    );
                    println!("{doc}");
                }
                eprintln!(
                    "dpaudit: shard {sh} of `{}`: wrote {}",
                    o.command_line(),
                    p.display()
                );
                ExitCode::SUCCESS
            }
            Err(e) => fail_as(json, "train-audit", e),
        };
    }
    let run = opts.and_then(|o| {
        let r = write_report(out, &o, &command_line(), true)?;
        let doc =
            report::json::commands::train_audit(&o, &r.notes, &r.results, r.all_expected, &r.files);
        Ok((r.all_expected, r.files, doc))
    });
    train_audit_exit(run, json, "train-audit")
}

/// The flags of `audit-samples` that become [`crate::audit::samples::SamplesOptions`].
#[derive(clap::Args, Clone, Debug)]
struct SamplesFlags {
    /// Claimed ε.
    #[arg(long)]
    eps: String,
    /// Claimed δ.
    #[arg(long)]
    delta: String,
    /// Confidence of ε_lb, in (0.5, 1).
    #[arg(long, default_value = "0.95")]
    confidence: String,
    /// auto | value | score | norm | projection | exact-bits (docs/samples.md).
    #[arg(long, default_value = "auto")]
    statistic: String,
    /// Fraction of each file used as the pilot, in (0, 1).
    #[arg(long, default_value = "0.2")]
    pilot_fraction: String,
    /// Seed of the pilot/main split.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

impl SamplesFlags {
    /// The options, each number parsed with an error naming its flag.
    fn options(&self) -> crate::Result<crate::audit::samples::SamplesOptions> {
        let num = |flag: &str, v: &str| {
            v.trim()
                .parse::<f64>()
                .map_err(|_| crate::Error::invalid(flag, format!("{v:?}"), "a decimal number"))
        };
        let mut o = crate::audit::samples::SamplesOptions::new(
            num("--eps", &self.eps)?,
            num("--delta", &self.delta)?,
        );
        o.confidence = num("--confidence", &self.confidence)?;
        o.pilot_fraction = num("--pilot-fraction", &self.pilot_fraction)?;
        o.statistic = self.statistic.parse()?;
        o.seed = self.seed;
        Ok(o)
    }
}

/// `dpaudit audit-samples`: reads both files, audits, writes the report into `out`.
fn run_audit_samples(
    a: &Path,
    b: &Path,
    opts: &crate::audit::samples::SamplesOptions,
    out: &Path,
) -> crate::Result<(crate::audit::samples::SamplesAudit, Vec<PathBuf>)> {
    use crate::audit::samples::{audit_samples, SampleSet};
    let sa = SampleSet::read(a)?;
    crate::limits::check_deadline("audit-samples (reading A)")?;
    let sb = SampleSet::read(b)?;
    crate::limits::check_deadline("audit-samples (reading B)")?;
    let audit = audit_samples(&sa, &sb, opts)?;
    let files = report::samples::write(&audit, out, &command_line())?;
    Ok((audit, files))
}

/// Parses the command line, runs the subcommand and returns its exit status.
pub fn main() -> ExitCode {
    run_args(std::env::args_os())
}

/// [`main`] on the given arguments (the first is the program name): the command line run
/// in-process, as the fuzz driver (`examples/fuzz_cli.rs`) does.
pub fn run_args<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    // Every subcommand's first check: its --format.
    let json = match check_format(cli.command.format()) {
        Ok(j) => j,
        Err(e) => return fail(e),
    };
    match cli.command {
        Command::Claims(a) => a.run(json),
        Command::TrainAudit(a) => a.run(json),
        Command::Train(a) => a.run(json),
        Command::Eval(a) => a.run(json),
        Command::Report(a) => a.run(json),
        Command::Audit(a) => a.run(json),
        Command::AuditSamples(a) => a.run(json),
        Command::Account(a) => a.run(json),
        Command::Calibrate(a) => a.run(json),
        Command::Merge(a) => a.run(json),
    }
}

impl ClaimsArgs {
    /// Runs `dpaudit claims` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let ClaimsArgs { out, only, .. } = self;
        match report::claims::write_claims(&out, &command_line(), only.as_deref()) {
            Ok((claims, files)) => {
                if json {
                    println!("{}", report::json::commands::claims(&claims, &files));
                } else if only.is_some() {
                    for c in &claims {
                        println!(
                        "{}\n  source:    {}\n  statement: {}\n  figure:    {}\n  verdict:   {}\n  reason:    {}\n  command:   {}",
                        c.id, c.source, c.statement, c.figure, c.verdict, c.reason, c.command
                    );
                    }
                }
                eprintln!("dpaudit: {}", report::claims::claims_summary(&claims));
                for f in files {
                    eprintln!("dpaudit: wrote {}", f.display());
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail_as(json, "claims", e),
        }
    }
}

impl TrainAuditArgs {
    /// Runs `dpaudit train-audit` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let TrainAuditArgs {
            out,
            runs,
            control_runs,
            rows,
            seed,
            shard,
            max_seconds,
            yes,
            ..
        } = self;
        use crate::train::sgd::suite::{estimate, SuiteOptions};
        let fail = |e: crate::Error| fail_as(json, "train-audit", e);
        // The flags first, by their names, before any work (the suite's own checks name
        // its fields, e.g. runs_per_side).
        for (flag, v) in [("--runs", runs), ("--control-runs", control_runs)] {
            if let Err(e) = check_flag_range(flag, v, 1, 1 << 53) {
                return fail(e);
            }
        }
        let opts = rows
            .parse()
            .map_err(|_: crate::Error| {
                crate::Error::invalid("--rows", &rows, "one of all, first, rest")
            })
            .map(|rows| SuiteOptions {
                big_runs: runs,
                control_runs,
                rows,
                seed,
                ..SuiteOptions::default()
            });
        let sh: Option<crate::audit::engine::Shard> =
            match shard.as_deref().map(parse_shard).transpose() {
                Ok(sh) => sh,
                Err(e) => return fail(e),
            };
        if let Err(e) = crate::limits::check_max_seconds(max_seconds) {
            return fail(e);
        }
        // The limit covers the estimate too (it builds the suite, certified accounting).
        with_limits(max_seconds, || {
            let checked = opts.as_ref().map_err(Clone::clone).and_then(|o| {
                let est = estimate(o, sh.map_or(1, |s| s.count))?;
                est.confirm("train-audit", yes)?;
                Ok(est)
            });
            match checked {
                Ok(est) => eprintln!(
                    "dpaudit: train-audit: estimated work {:.2e} {} (about {})",
                    est.work,
                    est.unit,
                    crate::limits::fmt_seconds(est.seconds)
                ),
                Err(e) => return fail(e),
            }
            train_audit(opts, shard, &out, json)
        })
    }
}

impl TrainArgs {
    /// Runs `dpaudit train` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let TrainArgs {
            spec,
            out,
            max_seconds,
            yes,
            quick,
            ..
        } = self;
        if let Err(e) = crate::limits::check_max_seconds(max_seconds) {
            return fail_as(json, "train", e);
        }
        let bar = report::progress::bar("train", true);
        let res = with_limits(max_seconds, || {
            crate::train::experiment::run_file_outcome(&spec, &out, &bar, yes, quick)
        });
        match res {
            Ok(o) => {
                for r in &o.reductions {
                    eprintln!("dpaudit: --quick: {r}");
                }
                if json {
                    println!("{}", report::json::commands::train(&o));
                } else {
                    println!("{}", o.markdown);
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail_as(json, "train", e),
        }
    }
}

impl EvalArgs {
    /// Runs `dpaudit eval` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let EvalArgs {
            digits,
            method,
            max_seconds,
            input,
            ..
        } = self;
        let fail = |e: String| fail_as(json, "eval", e);
        let method: Method = match method.parse() {
            Ok(m) => m,
            Err(e) => return fail(format!("{e}")),
        };
        if !(max_seconds.is_finite() && max_seconds > 0.0) {
            return fail(format!(
                "invalid parameter max-seconds = {max_seconds}: must be finite and > 0"
            ));
        }
        let opts = EvalOptions {
            digits,
            method,
            max_seconds: Some(max_seconds),
        };
        if digits == 0 || digits > eval::MAX_DIGITS {
            return fail(format!(
                "invalid parameter digits = {digits}: must be in [1, {}]",
                eval::MAX_DIGITS
            ));
        }
        let stdout = std::io::stdout();
        let mut stderr = std::io::stderr();
        // JSON: the CSV is written to memory and turned into the document.
        let mut csv_out: Vec<u8> = Vec::new();
        let sink: Box<dyn std::io::Write> = if json {
            Box::new(&mut csv_out)
        } else {
            Box::new(stdout.lock())
        };
        let res = if input.as_os_str() == "-" {
            eval::run(std::io::stdin().lock(), sink, &mut stderr, &opts)
        } else {
            match std::fs::File::open(&input) {
                Ok(f) => eval::run(std::io::BufReader::new(f), sink, &mut stderr, &opts),
                Err(e) => return fail(format!("cannot open {}: {e}", input.display())),
            }
        };
        match res {
            Ok(s) => {
                if json {
                    match eval_json(&csv_out, digits, s.rows, s.failed) {
                        Ok(doc) => println!("{doc}"),
                        Err(e) => return fail(format!("{e}")),
                    }
                }
                if s.failed > 0 {
                    eprintln!("dpaudit: {} of {} rows failed", s.failed, s.rows);
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                }
            }
            Err(e) => fail(format!("{e}")),
        }
    }
}

impl ReportArgs {
    /// Runs `dpaudit report` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let ReportArgs {
            out,
            specs,
            golden,
            quick,
            samples,
            max_seconds,
            ..
        } = self;
        let opts = match run_options(&out, quick, samples)
            .and_then(|o| crate::limits::check_max_seconds(max_seconds).map(|()| o))
        {
            Ok(o) => ReportOptions {
                specs_dir: specs,
                golden_dir: golden,
                ..o
            },
            Err(e) => return fail_as(json, "report", e),
        };
        with_limits(max_seconds, || {
            let mut outcome = report::run_report(&opts);
            // Quick training experiment (HMB App. C on the committed breast-cancer table). If
            // it cannot run, that is a NOT RUN line of the report, not a reason to hide its
            // verdict; past the time limit the whole report is an error.
            let bar = report::progress::bar("train", opts.progress);
            if let Err(e) = crate::train::experiment::run_quick(&out, &bar) {
                match (&e, outcome.as_mut()) {
                    (crate::Error::TimeLimit { .. }, Ok(_)) => outcome = Err(e),
                    (_, Ok(o)) => o
                        .not_run
                        .push(format!("NOT RUN: quick training experiment: {e}")),
                    (_, Err(_)) => {}
                }
            }
            if let Ok(o) = &outcome {
                if let Some(limit) = max_seconds.filter(|_| {
                    o.not_run
                        .iter()
                        .any(|l| l.contains("time limit --max-seconds"))
                }) {
                    outcome = Err(crate::Error::TimeLimit {
                        seconds: limit,
                        what: "report".into(),
                    });
                }
            }
            finish_as(
                json,
                "report",
                outcome,
                &out,
                report::json::commands::report,
            )
        })
    }
}

impl AuditArgs {
    /// Runs `dpaudit audit` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let AuditArgs {
            spec,
            out,
            quick,
            samples,
            shard,
            max_seconds,
            ..
        } = self;
        let opts = match run_options(&out, quick, samples)
            .and_then(|o| crate::limits::check_max_seconds(max_seconds).map(|()| o))
            .and_then(|o| {
                shard
                    .as_deref()
                    .map_or(Ok(()), |k| parse_shard(k).map(|_| ()))
                    .map(|()| o)
            }) {
            Ok(o) => o,
            Err(e) => return fail_as(json, "audit", e),
        };
        with_limits(max_seconds, || {
            if let Some(text) = command_spec_text(&spec) {
                return command_audit(&spec, &text, &out, (quick, samples), shard.as_deref(), json);
            }
            if let Some(k) = shard {
                return run_shard(&spec, &k, &out, quick, samples, json);
            }
            let outcome = report::run_single(&spec, &opts);
            finish_as(json, "audit", outcome, &out, report::json::commands::audit)
        })
    }
}

impl AuditSamplesArgs {
    /// Runs `dpaudit audit-samples` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let AuditSamplesArgs {
            a,
            b,
            flags,
            out,
            max_seconds,
            ..
        } = self;
        let res = crate::limits::check_max_seconds(max_seconds)
            .and_then(|()| flags.options())
            .and_then(|opts| with_limits(max_seconds, || run_audit_samples(&a, &b, &opts, &out)));
        match res {
            Err(e) => fail_as(json, "audit-samples", e),
            Ok((audit, files)) => {
                if json {
                    println!("{}", report::samples::json(&audit));
                } else {
                    println!(
                        "{}: eps_lb = {} (confidence {}), strict eps_lb = {}, claimed eps = {} (delta = {}); statistic {}, region {} {} {:e}, main {} + {} samples",
                        audit.verdict,
                        audit.eps_lb,
                        audit.confidence,
                        audit.eps_lb_strict,
                        audit.eps_claimed,
                        audit.delta,
                        audit.statistic,
                        audit.region.direction,
                        audit.region.tail,
                        audit.region.threshold,
                        audit.main_a,
                        audit.main_b
                    );
                }
                for f in files {
                    eprintln!("dpaudit: wrote {}", f.display());
                }
                if audit.verdict == crate::audit::samples::Verdict::Violation {
                    ExitCode::from(1)
                } else {
                    ExitCode::SUCCESS
                }
            }
        }
    }
}

impl AccountArgs {
    /// Runs `dpaudit account` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let AccountArgs {
            schedule,
            release,
            delta,
            eps,
            digits,
            max_seconds,
            ..
        } = self;
        let spec = match (
            &schedule,
            release.given() || delta.is_some() || eps.is_some(),
        ) {
            (Some(path), false) if digits.is_none() => {
                crate::accounting::file::AccountSpec::from_file(path)
            }
            (Some(_), _) => {
                return fail_as(
                    json,
                    "account",
                    "give either a schedule file or flags (--q, --sigma, --steps, --delta, \
                     ...), not both",
                )
            }
            (None, _) => account_flags(&release, &delta, &eps, digits),
        };
        let spec = match spec {
            Ok(s) => s,
            Err(e) => return fail_as(json, "account", e),
        };
        match crate::accounting::file::account(&spec, Some(max_seconds)) {
            Ok(a) if json => {
                println!("{}", account_json(&spec, &a));
                ExitCode::SUCCESS
            }
            Ok(a) => {
                print!("{}", render_account(&spec, &a));
                ExitCode::SUCCESS
            }
            Err(e) => fail_error(json, "account", &e),
        }
    }
}

impl CalibrateArgs {
    /// Runs `dpaudit calibrate` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let CalibrateArgs {
            solve,
            target_eps,
            delta,
            release,
            rel_tol,
            max_steps,
            max_seconds,
            ..
        } = self;
        match crate::accounting::with_time_limit(Some(max_seconds), || {
            calibrate(&solve, target_eps, &delta, &release, rel_tol, max_steps)
        }) {
            Ok((text, doc)) => {
                if json {
                    println!("{doc}");
                } else {
                    print!("{text}");
                }
                ExitCode::SUCCESS
            }
            Err(e) => fail_as(json, "calibrate", e),
        }
    }
}

impl MergeArgs {
    /// Runs `dpaudit merge` and returns its exit status.
    fn run(self, json: bool) -> ExitCode {
        let MergeArgs {
            dirs, out, check, ..
        } = self;
        use report::json::commands as jc;
        use report::shards::{find_shards, shard_kind, ShardKind};
        let fail = |e: crate::Error| fail_as(json, "merge", e);
        let kind = find_shards(&dirs).and_then(|f| Ok((shard_kind(&f)?, f)));
        if check {
            let checked = kind.and_then(|(k, files)| match k {
                ShardKind::Mechanism => report::shards::merge(&dirs).map(|m| ("audit", m.files)),
                ShardKind::Training => {
                    crate::train::sgd::shard::check(&files).map(|_| ("train-audit", files))
                }
                ShardKind::Command => {
                    crate::compare::command::read_shards(&files).map(|_| ("command-audit", files))
                }
            });
            return match checked {
                Ok((k, files)) => {
                    if json {
                        println!("{}", jc::merge_check(k, &files));
                    }
                    eprintln!("dpaudit: {} shards check out: they merge", files.len());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(e),
            };
        }
        match kind {
            Err(e) => return fail(e),
            Ok((ShardKind::Mechanism, _)) => {}
            Ok((ShardKind::Command, files)) => {
                use crate::compare::command;
                let res = command::read_shards(&files).and_then(|m| {
                    eprintln!(
                        "dpaudit: merging {} shards of {} ({} samples per side)",
                        m.files.len(),
                        m.spec.name,
                        m.plan.samples_per_side
                    );
                    command::finish_merged(&m)
                });
                return command_audit_exit(res, &out, json, Some(&files));
            }
            Ok((ShardKind::Training, files)) => {
                use crate::train::sgd::shard;
                let m = match shard::merge(&files) {
                    Ok(m) => m,
                    Err(e) => return fail(e),
                };
                eprintln!(
                    "dpaudit: merging {} shards of `{}`",
                    m.files.len(),
                    m.opts.command_line()
                );
                eprintln!("{}", crate::train::sgd::suite::MARKDOWN_HEADER);
                for r in &m.results {
                    eprintln!("{}", crate::train::sgd::suite::markdown_line(r));
                }
                let written = shard::write_merged(&m, &out, &command_line())
                    .map(|(ok, files)| (ok, files.clone(), jc::merge_train_audit(&m, ok, &files)));
                return train_audit_exit(written, json, "merge");
            }
        }
        let merged = match report::shards::merge(&dirs) {
            Ok(m) => m,
            Err(e) => return fail(e),
        };
        eprintln!(
            "dpaudit: merging {} shards of {} ({} samples per side)",
            merged.files.len(),
            merged.spec.name,
            merged.samples
        );
        let opts = ReportOptions {
            out: out.clone(),
            command: command_line(),
            ..ReportOptions::default()
        };
        let outcome = report::run_merged(&merged, &opts);
        finish_as(json, "merge", outcome, &out, |o| {
            jc::merge_audit(&merged.files, merged.samples, o)
        })
    }
}

/// The text name of an RDP conversion.
fn rdp_name(c: Conversion) -> &'static str {
    match c {
        Conversion::CanonneKamathSteinke => "Canonne-Kamath-Steinke",
        Conversion::Mironov => "Mironov Prop. 3",
    }
}

/// The JSON key of an RDP conversion (docs/json.md).
fn rdp_key(c: Conversion) -> &'static str {
    match c {
        Conversion::CanonneKamathSteinke => "canonne_kamath_steinke",
        Conversion::Mironov => "mironov_prop3",
    }
}

/// The text `dpaudit account` prints.
fn render_account(
    spec: &crate::accounting::file::AccountSpec,
    a: &crate::accounting::file::Accounted,
) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let parts: Vec<String> = spec
        .schedule
        .parts()
        .iter()
        .map(|(r, n)| format!("{n} x {r}"))
        .collect();
    for b in &spec.bookkeeping {
        let _ = writeln!(o, "bookkeeping: {b}");
    }
    let _ = writeln!(
        o,
        "schedule: {} ({} releases, {} neighbours)",
        parts.join(" + "),
        spec.schedule.steps(),
        if spec.schedule.is_substitution() {
            "substitution"
        } else {
            "add/remove"
        }
    );
    let show = |b: &crate::accounting::Bracket| {
        format!(
            "[{}, {}] (midpoint {}, {} digits, relative width {:.1e})",
            b.lo.to_string_radix(10, Some(spec.digits as usize + 3)),
            b.hi.to_string_radix(10, Some(spec.digits as usize + 3)),
            b.mid()
                .to_string_radix(10, Some(b.digits().max(1) as usize)),
            b.digits(),
            b.rel_width()
        )
    };
    if let (Some(d), Some(c)) = (&spec.delta, &a.eps) {
        let _ = writeln!(o, "eps(delta = {d}): {}", show(&c.value));
        let _ = writeln!(o, "  remove direction: {}", show(&c.remove));
        let _ = writeln!(o, "  add direction:    {}", show(&c.add));
        let _ = writeln!(o, "  route: {}", c.route);
    }
    if let (Some(e), Some(c)) = (&spec.eps, &a.delta) {
        let _ = writeln!(o, "delta(eps = {e}): {}", show(&c.value));
        let _ = writeln!(o, "  route: {}", c.route);
    }
    let grid = if spec.orders.is_some() {
        "on the given orders"
    } else {
        "optimised over alpha"
    };
    for (name, r) in [
        (rdp_name(Conversion::CanonneKamathSteinke), &a.rdp_cks),
        (rdp_name(Conversion::Mironov), &a.rdp_mironov),
    ] {
        if let Some(r) = r {
            let _ = writeln!(
                o,
                "RDP route ({name}, {grid}): eps = {} at alpha = {} ({} digits)",
                r.eps.value.to_string_radix(10, Some(12)),
                r.alpha,
                r.eps.digits
            );
        }
    }
    for (c, e) in &a.rdp_refused {
        let _ = writeln!(
            o,
            "RDP route ({}, {grid}): not computed (the brackets above stand): {e}",
            rdp_name(*c)
        );
    }
    let _ = writeln!(o, "bracket time: {:.2} s", a.bracket_seconds);
    o
}

/// The schedule of `dpaudit account` given by flags (one release).
fn account_flags(
    release: &ReleaseFlags,
    delta: &Option<String>,
    eps: &Option<String>,
    digits: Option<u32>,
) -> crate::Result<crate::accounting::file::AccountSpec> {
    use crate::Error;
    let mut t = String::new();
    for (k, v) in [("delta", delta), ("eps", eps)] {
        if let Some(v) = v {
            v.parse::<crate::Scalar>()
                .map_err(|_| Error::invalid(k, format!("{v:?}"), "a finite decimal number"))?;
            t += &format!("{k} = \"{v}\"\n");
        }
    }
    if let Some(d) = digits {
        t += &format!("digits = {d}\n");
    }
    t += &release.toml(true)?;
    crate::accounting::file::AccountSpec::parse(&t, "the command-line flags")
}

/// `dpaudit calibrate`: (text, JSON document).
fn calibrate(
    solve: &str,
    target_eps: f64,
    delta: &str,
    release: &ReleaseFlags,
    rel_tol: f64,
    max_steps: u64,
) -> crate::Result<(String, report::json::Json)> {
    use crate::accounting::Target;
    use crate::Error;
    use report::json::Json;
    use std::fmt::Write as _;
    let d: crate::Scalar = delta
        .parse()
        .map_err(|_| Error::invalid("delta", format!("{delta:?}"), "a finite decimal number"))?;
    let target = Target::add_remove(target_eps, d)?;
    if release
        .neighbours
        .as_deref()
        .is_some_and(|n| n != "add_remove")
    {
        return Err(Error::invalid(
            "neighbours",
            release.neighbours.clone().unwrap_or_default(),
            "add_remove (calibration under substitution: use the library's Target::new)",
        ));
    }
    if solve == "batch_size" {
        return calibrate_batch(target_eps, delta, &target, release);
    }
    let (spec, q, steps) = calibrate_release(solve == "steps", release)?;
    let mut o = String::new();
    for b in &spec.bookkeeping {
        let _ = writeln!(o, "bookkeeping: {b}");
    }
    let _ = writeln!(
        o,
        "target: ({target_eps}, {delta})-DP, add/remove neighbours, q = {q}"
    );
    let mut body = vec![
        (
            "target",
            Json::obj(vec![
                ("eps", Json::Num(target_eps)),
                ("delta", Json::str(delta)),
                ("neighbours", Json::str("add_remove")),
            ]),
        ),
        ("q", Json::str(q.to_string())),
        (
            "bookkeeping",
            Json::Arr(
                spec.bookkeeping
                    .iter()
                    .map(|b| Json::str(b.clone()))
                    .collect(),
            ),
        ),
        ("solve", Json::str(solve)),
    ];
    let out = (target_eps, &mut o, &mut body);
    match solve {
        "sigma" => solve_sigma(&target, &q, steps, rel_tol, out)?,
        "steps" => solve_steps(&target, &q, &spec, max_steps, out)?,
        other => {
            return Err(Error::invalid(
                "solve",
                format!("{other:?}"),
                "sigma, steps or batch_size",
            ))
        }
    }
    Ok((o, Json::document("calibrate", body)))
}

/// The calibration's body: its text lines and its JSON fields, with the target ε they name.
type CalibrateOut<'a> = (
    f64,
    &'a mut String,
    &'a mut Vec<(&'static str, report::json::Json)>,
);

/// A bracket as `dpaudit calibrate` prints it (12 significant digits).
fn show(b: &crate::accounting::Bracket) -> String {
    format!(
        "[{}, {}]",
        b.lo.to_string_radix(10, Some(12)),
        b.hi.to_string_radix(10, Some(12))
    )
}

/// The release `dpaudit calibrate` solves over, from the flags through the same bookkeeping as
/// schedule files: the parsed spec, its q and its number of steps (one step, or one epoch, when
/// solving for the steps).
fn calibrate_release(
    solving_steps: bool,
    release: &ReleaseFlags,
) -> crate::Result<(crate::accounting::file::AccountSpec, crate::Scalar, u64)> {
    use crate::Error;
    let mut r = release.clone();
    if solving_steps && r.steps.is_none() && r.epochs.is_none() {
        // Only q is needed: one step, or one epoch through the bookkeeping.
        if r.dataset_size.is_some() || r.batch_size.is_some() {
            r.epochs = Some("1".into());
        } else {
            r.steps = Some(1);
        }
    }
    if !solving_steps && r.sigma.is_some() {
        return Err(Error::invalid(
            "sigma",
            r.sigma.clone().unwrap_or_default(),
            "absent when solving for sigma",
        ));
    }
    let mut t = String::from("delta = \"0.5\"\n");
    t += &r.toml(solving_steps)?;
    let spec = crate::accounting::file::AccountSpec::parse(&t, "the command-line flags")?;
    let (q, steps) = match spec.schedule.parts() {
        [(crate::accounting::Release::Subsampled(m), n)] => (m.q().clone(), *n),
        _ => {
            return Err(Error::invalid(
                "release",
                "given",
                "one subsampled_gaussian release with q < 1 (give --q or --dataset-size and \
                 --batch-size)",
            ))
        }
    };
    Ok((spec, q, steps))
}

/// `dpaudit calibrate --solve sigma`: the smallest σ for `steps` steps at rate `q`.
fn solve_sigma(
    target: &crate::accounting::Target,
    q: &crate::Scalar,
    steps: u64,
    rel_tol: f64,
    (target_eps, o, body): CalibrateOut,
) -> crate::Result<()> {
    use report::json::Json;
    use std::fmt::Write as _;
    let c = crate::accounting::calibrate_sigma(target, q, steps, rel_tol)?;
    let _ = writeln!(o, "steps: {steps}");
    let _ = writeln!(
        o,
        "sigma = {} : eps(delta) in {} <= {target_eps} (certified)",
        c.sigma,
        show(&c.eps)
    );
    let _ = writeln!(
        o,
        "round trip: sigma = {} (relative tolerance {rel_tol}) gives eps(delta) in {} > \
         {target_eps}",
        c.sigma_below,
        show(&c.eps_below)
    );
    let _ = writeln!(o, "evaluations: {}", c.evaluations);
    body.extend([
        ("steps", Json::Int(steps)),
        ("sigma", Json::Num(c.sigma)),
        ("eps", Json::bracket(&c.eps, 17)),
        ("sigma_below", Json::Num(c.sigma_below)),
        ("eps_below", Json::bracket(&c.eps_below, 17)),
        ("evaluations", Json::Int(c.evaluations as u64)),
    ]);
    Ok(())
}

/// `dpaudit calibrate --solve steps`: the most steps at the release's σ and rate `q`.
fn solve_steps(
    target: &crate::accounting::Target,
    q: &crate::Scalar,
    spec: &crate::accounting::file::AccountSpec,
    max_steps: u64,
    (target_eps, o, body): CalibrateOut,
) -> crate::Result<()> {
    use report::json::Json;
    use std::fmt::Write as _;
    let sigma = spec.schedule.parts()[0].0.clone();
    let crate::accounting::Release::Subsampled(m) = sigma else {
        unreachable!("matched above")
    };
    let (n, b, b_next) = crate::accounting::calibrate_steps(target, q, m.sigma(), max_steps)?;
    let _ = writeln!(o, "sigma: {}", m.sigma());
    let _ = writeln!(
        o,
        "steps = {n} : eps(delta) in {} <= {target_eps} (certified)",
        show(&b)
    );
    if n < max_steps {
        let _ = writeln!(
            o,
            "round trip: steps = {} gives eps(delta) in {} > {target_eps}",
            n + 1,
            show(&b_next)
        );
    } else {
        let _ = writeln!(o, "(the search stopped at --max-steps {max_steps})");
    }
    body.extend([
        ("sigma", Json::str(m.sigma().to_string())),
        ("steps", Json::Int(n)),
        ("eps", Json::bracket(&b, 17)),
        ("steps_next", Json::Int(n + 1)),
        ("eps_next", Json::bracket(&b_next, 17)),
        ("max_steps", Json::Int(max_steps)),
    ]);
    Ok(())
}

/// `dpaudit calibrate --solve batch_size`: the largest expected batch size for --epochs epochs
/// over --dataset-size records at --sigma (text, JSON document).
fn calibrate_batch(
    target_eps: f64,
    delta: &str,
    target: &crate::accounting::Target,
    r: &ReleaseFlags,
) -> crate::Result<(String, report::json::Json)> {
    use crate::Error;
    use report::json::Json;
    use std::fmt::Write as _;
    let need = |name: &str, ok: bool| -> crate::Result<()> {
        if ok {
            Ok(())
        } else {
            Err(Error::MissingParameter {
                name: format!("--{name}"),
                needed_by: "--solve batch_size".into(),
            })
        }
    };
    need("dataset-size", r.dataset_size.is_some())?;
    need("epochs", r.epochs.is_some())?;
    need("sigma", r.sigma.is_some())?;
    for (name, given) in [
        ("batch_size", r.batch_size.is_some()),
        ("q", r.q.is_some()),
        ("steps", r.steps.is_some()),
    ] {
        if given {
            return Err(Error::invalid(
                name,
                "given",
                "absent when solving for batch_size",
            ));
        }
    }
    let num = |k: &str, v: &str| -> crate::Result<crate::Scalar> {
        v.parse()
            .map_err(|_| Error::invalid(k, format!("{v:?}"), "a finite decimal number"))
    };
    let n = r.dataset_size.unwrap_or(0);
    let epochs = num("epochs", r.epochs.as_deref().unwrap_or(""))?;
    let sigma = num("sigma", r.sigma.as_deref().unwrap_or(""))?;
    let c = crate::accounting::calibrate_batch_size(target, n, &epochs, &sigma)?;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "target: ({target_eps}, {delta})-DP, add/remove neighbours, dataset_size = {n}, epochs = \
         {epochs}, sigma = {sigma}"
    );
    let _ = writeln!(
        o,
        "batch_size = {} (expected, Poisson) -> q = {}, steps = {} : eps(delta) in {} <= \
         {target_eps} (certified)",
        c.batch_size,
        c.q,
        c.steps,
        show(&c.eps)
    );
    match &c.next {
        Some((b, q, t, e)) => {
            let _ = writeln!(
                o,
                "round trip: batch_size = {b} -> q = {q}, steps = {t} gives eps(delta) in {} > \
                 {target_eps}",
                show(e)
            );
        }
        None => {
            let _ = writeln!(o, "(every batch size up to dataset_size meets the target)");
        }
    }
    let _ = writeln!(o, "evaluations: {}", c.evaluations);
    let mut body = vec![
        (
            "target",
            Json::obj(vec![
                ("eps", Json::Num(target_eps)),
                ("delta", Json::str(delta)),
                ("neighbours", Json::str("add_remove")),
            ]),
        ),
        ("solve", Json::str("batch_size")),
        ("dataset_size", Json::Int(n)),
        ("epochs", Json::str(epochs.to_string())),
        ("sigma", Json::str(sigma.to_string())),
        ("batch_size", Json::Int(c.batch_size)),
        ("q", Json::str(c.q.to_string())),
        ("steps", Json::Int(c.steps)),
        ("eps", Json::bracket(&c.eps, 17)),
    ];
    if let Some((b, q, t, e)) = &c.next {
        body.extend([
            ("batch_size_next", Json::Int(*b)),
            ("q_next", Json::str(q.to_string())),
            ("steps_next", Json::Int(*t)),
            ("eps_next", Json::bracket(e, 17)),
        ]);
    }
    body.push(("evaluations", Json::Int(c.evaluations as u64)));
    Ok((o, Json::document("calibrate", body)))
}

/// The JSON document of `dpaudit eval` (docs/json.md) from the CSV that `eval::run` wrote: one
/// object per row, in input order; `ok` is false when a row failed (exit status 2).
fn eval_json(
    csv_text: &[u8],
    digits: u32,
    rows: usize,
    failed: usize,
) -> crate::Result<report::json::Json> {
    use report::json::Json;
    let mut rdr = csv::Reader::from_reader(csv_text);
    let mut out = Vec::new();
    for rec in rdr.records() {
        let rec = rec.map_err(|e| crate::Error::Io(e.to_string()))?;
        let f = |i: usize| rec.get(i).unwrap_or("").to_string();
        let mut o = vec![
            ("id", Json::str(f(0))),
            ("quantity", Json::str(f(1))),
            ("family", Json::str(f(2))),
            ("params", Json::str(f(3))),
        ];
        if f(6).is_empty() {
            o.push(("value", Json::str(f(4))));
            o.push(("digits", Json::Int(f(5).parse().unwrap_or(0))));
        } else {
            o.push(("error", Json::str(f(6))));
        }
        out.push(Json::obj(o));
    }
    let body = vec![
        ("digits", Json::Int(u64::from(digits))),
        ("rows", Json::Arr(out)),
        ("failed", Json::Int(failed as u64)),
    ];
    let mut doc = Json::document("eval", body);
    if failed > 0 {
        if let Json::Obj(v) = &mut doc {
            for (k, val) in v.iter_mut() {
                if k == "ok" {
                    *val = Json::Bool(false);
                }
            }
            v.insert(
                3,
                (
                    "error".to_string(),
                    Json::str(format!("{failed} of {rows} rows failed")),
                ),
            );
        }
    }
    Ok(doc)
}

/// The JSON document of `dpaudit account` (docs/json.md).
fn account_json(
    spec: &crate::accounting::file::AccountSpec,
    a: &crate::accounting::file::Accounted,
) -> report::json::Json {
    use report::json::Json;
    let sig = spec.digits as usize + 3;
    let parts: Vec<Json> = spec
        .schedule
        .parts()
        .iter()
        .map(|(r, n)| {
            Json::obj(vec![
                ("release", Json::str(r.to_string())),
                ("count", Json::Int(*n)),
            ])
        })
        .collect();
    let composed = |quantity: &str, at: String, c: &crate::accounting::Composed| {
        Json::obj(vec![
            ("quantity", Json::str(quantity)),
            ("at", Json::str(at)),
            ("value", Json::bracket(&c.value, sig)),
            ("remove", Json::bracket(&c.remove, sig)),
            ("add", Json::bracket(&c.add, sig)),
            ("route", Json::str(c.route)),
        ])
    };
    let mut results = Vec::new();
    if let (Some(d), Some(c)) = (&spec.delta, &a.eps) {
        results.push(composed("eps_for_delta", d.to_string(), c));
    }
    if let (Some(e), Some(c)) = (&spec.eps, &a.delta) {
        results.push(composed("delta_for_eps", e.to_string(), c));
    }
    let mut rdp = Vec::new();
    let rdp_refused = a
        .rdp_refused
        .iter()
        .map(|(c, e)| {
            Json::obj(vec![
                ("conversion", Json::str(rdp_key(*c))),
                ("error", Json::str(e.to_string())),
            ])
        })
        .collect();
    for (name, r) in [
        (rdp_key(Conversion::CanonneKamathSteinke), &a.rdp_cks),
        (rdp_key(Conversion::Mironov), &a.rdp_mironov),
    ] {
        if let Some(r) = r {
            rdp.push(Json::obj(vec![
                ("conversion", Json::str(name)),
                ("eps", Json::str(r.eps.value.to_string_radix(10, Some(sig)))),
                ("digits", Json::Int(u64::from(r.eps.digits))),
                ("alpha", Json::str(r.alpha.to_string())),
            ]));
        }
    }
    Json::document(
        "account",
        vec![
            (
                "schedule",
                Json::obj(vec![
                    ("parts", Json::Arr(parts)),
                    ("steps", Json::Int(spec.schedule.steps())),
                    (
                        "neighbours",
                        Json::str(if spec.schedule.is_substitution() {
                            "substitution"
                        } else {
                            "add_remove"
                        }),
                    ),
                    (
                        "bookkeeping",
                        Json::Arr(
                            spec.bookkeeping
                                .iter()
                                .map(|b| Json::str(b.clone()))
                                .collect(),
                        ),
                    ),
                ]),
            ),
            ("digits", Json::Int(u64::from(spec.digits))),
            ("results", Json::Arr(results)),
            ("rdp", Json::Arr(rdp)),
            ("rdp_refused", Json::Arr(rdp_refused)),
            ("seconds", Json::Num(a.bracket_seconds)),
        ],
    )
}
