//! The training-loop audits of issue 9, measured: full-batch DP-GD tightness at 10⁷ runs per
//! side, DP-SGD at q = 0.1, OSO-DPSGD, the positive controls and the black-box view
//! (`dpaudit::train::sgd::suite`; the CLI equivalent is `dpaudit train-audit`).
//!
//! `cargo run --release --example dpsgd_audit -- [runs_per_side] [control_runs_per_side]
//! [all|first|rest] [sigma_q]` (defaults 10⁷, 10⁶, all, 1.2; `first`: the full-batch row only,
//! `rest`: all but the two 10⁷ rows). Prints one Markdown table row per audit.

use dpaudit::train::sgd::suite::{
    markdown_line, run_row, suite_rows, SuiteOptions, MARKDOWN_HEADER,
};
use std::time::Instant;

fn main() -> dpaudit::error::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let mut opts = SuiteOptions::default();
    if let Some(s) = args.get(1) {
        opts.big_runs = s.parse().expect("runs_per_side");
    }
    if let Some(s) = args.get(2) {
        opts.control_runs = s.parse().expect("control_runs_per_side");
    }
    if let Some(s) = args.get(3) {
        opts.rows = s.parse()?;
    }
    if let Some(s) = args.get(4) {
        opts.sigma_q = s.parse().expect("sigma_q");
    }
    let t_acc = Instant::now();
    let (rows, notes) = suite_rows(&opts)?;
    for n in notes {
        eprintln!("{n}");
    }
    eprintln!("accounting: {:.1} s", t_acc.elapsed().as_secs_f64());
    println!("{MARKDOWN_HEADER}");
    for r in &rows {
        println!("{}", markdown_line(&run_row(r, opts.seed)?));
    }
    Ok(())
}
