//! The `dpaudit` command line.

use clap::{Parser, Subcommand};
use dpaudit::divergence::Method;
use dpaudit::eval::{self, EvalOptions};
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
    }
}
