//! The `dpaudit` command line.

use clap::{Parser, Subcommand};
use dpaudit::divergence::Method;
use dpaudit::eval::{self, EvalOptions};
use dpaudit::report::{self, ReportOptions};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

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

#[derive(Subcommand)]
enum Command {
    /// Evaluate rows `id,quantity,family,params` of a CSV file (or `-` for stdin) to certified digits.
    Eval {
        /// Significant digits to certify.
        #[arg(long, default_value_t = 30)]
        digits: u32,
        /// auto | quadrature | closed-form
        #[arg(long, default_value = "auto")]
        method: String,
        /// Input CSV.
        input: PathBuf,
    },
    /// Run every audit spec, the golden verification and the positive controls; write the
    /// three-way report (Markdown, CSV, SVG and PNG plots).
    ///
    /// Exit status: 0 when clean; 1 when a VIOLATION, a failing golden row or a missed positive
    /// control was found; 2 on an error (bad spec, unreadable directory, …).
    Report {
        /// Output directory.
        #[arg(long, default_value = "reports")]
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
    },
    /// Run one training experiment (HMB App. C two-node DP-GD): writes
    /// OUT/NAME/{SPLIT.csv, SPLIT.svg, summary.md}. Exit status 0, or 2 on an error.
    Train {
        /// The experiment spec (TOML), e.g. experiments/figure1_synthetic.toml.
        spec: PathBuf,
        /// Output directory.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// Run one audit spec and write its three-way comparison and privacy-profile plot.
    ///
    /// Writes NAME.md, NAME.csv, NAME_audit.csv and NAME_profile.{svg,png,csv} into --out.
    /// Exit status: 0 when clean; 1 on a VIOLATION; 2 on an error.
    Audit {
        /// The spec (TOML).
        spec: PathBuf,
        /// Output directory.
        #[arg(long, default_value = "reports")]
        out: PathBuf,
        /// Quick run: 1/20 of the spec's samples.
        #[arg(long)]
        quick: bool,
        /// Samples per side (overrides the spec).
        #[arg(long)]
        samples: Option<u64>,
    },
}

/// Prints what a report found; exit status 1 if it found a VIOLATION, a failing golden row or a
/// missed positive control, else 0.
fn finish(
    outcome: dpaudit::Result<dpaudit::report::ReportOutcome>,
    out: &std::path::Path,
) -> ExitCode {
    match outcome {
        Err(e) => fail(e),
        Ok(o) => {
            for v in &o.violations {
                eprintln!("{v}");
            }
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
            eprintln!(
                "dpaudit: wrote {} files to {}",
                o.files.len(),
                out.display()
            );
            if o.clean() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
    }
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("dpaudit {}", args.join(" "))
}

fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("dpaudit: error: {msg}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Train { spec, out } => match dpaudit::train::experiment::run_file(&spec, &out) {
            Ok(md) => {
                println!("{md}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        },
        Command::Eval {
            digits,
            method,
            input,
        } => {
            let method: Method = match method.parse() {
                Ok(m) => m,
                Err(e) => return fail(e),
            };
            let opts = EvalOptions { digits, method };
            if digits == 0 || digits > eval::MAX_DIGITS {
                return fail(format!(
                    "invalid parameter digits = {digits}: must be in [1, {}]",
                    eval::MAX_DIGITS
                ));
            }
            let stdout = std::io::stdout();
            let mut stderr = std::io::stderr();
            let res = if input.as_os_str() == "-" {
                eval::run(std::io::stdin().lock(), stdout.lock(), &mut stderr, &opts)
            } else {
                match std::fs::File::open(&input) {
                    Ok(f) => eval::run(
                        std::io::BufReader::new(f),
                        stdout.lock(),
                        &mut stderr,
                        &opts,
                    ),
                    Err(e) => return fail(format!("cannot open {}: {e}", input.display())),
                }
            };
            match res {
                Ok(s) if s.failed > 0 => {
                    eprintln!("dpaudit: {} of {} rows failed", s.failed, s.rows);
                    ExitCode::from(2)
                }
                Ok(_) => ExitCode::SUCCESS,
                Err(e) => fail(e),
            }
        }
        Command::Report {
            out,
            specs,
            golden,
            quick,
            samples,
        } => {
            if samples == Some(0) || samples == Some(1) {
                return fail("invalid parameter samples = 0 or 1: must be >= 2");
            }
            let opts = ReportOptions {
                out: out.clone(),
                specs_dir: specs,
                golden_dir: golden,
                quick,
                samples,
                progress: std::io::stderr().is_terminal(),
                command: command_line(),
            };
            let outcome = report::run_report(&opts);
            // Quick training experiment (HMB App. C on the committed breast-cancer table).
            if let Err(e) = dpaudit::train::experiment::run_quick(&out) {
                return fail(e);
            }
            finish(outcome, &out)
        }
        Command::Audit {
            spec,
            out,
            quick,
            samples,
        } => {
            if samples == Some(0) || samples == Some(1) {
                return fail("invalid parameter samples = 0 or 1: must be >= 2");
            }
            let opts = ReportOptions {
                out: out.clone(),
                quick,
                samples,
                progress: std::io::stderr().is_terminal(),
                command: command_line(),
                ..ReportOptions::default()
            };
            finish(report::run_single(&spec, &opts), &out)
        }
    }
}
