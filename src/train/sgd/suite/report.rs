//! The suite's report: `dpsgd_audit.md` (with timings) and `dpsgd_audit.csv` (without), built
//! row by row as results arrive (`dpaudit train-audit`, and the merge of its shards).

use super::{
    fields, markdown_line, run_row, suite_rows, SuiteOptions, SuiteResult, DELTA, MARKDOWN_HEADER,
    T,
};
use crate::error::{Error, Result};
use crate::fsio::write_atomic;
use std::path::{Path, PathBuf};

fn create_dir(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| Error::Io(format!("{}: {e}", out.display())))
}

/// The CSV header.
pub(crate) const CSV_HEADER: &str = "audit,runs_per_side,claimed_eps,claim_source,certified_lo,certified_hi,eps_lb,eps_lb_strict,verdict,expected";

/// One CSV line (deterministic: no timings).
pub(crate) fn csv_line(r: &SuiteResult) -> String {
    let (name, runs, claimed, source, (lo, hi), lb, strict, got, want) = fields(r);
    format!("\"{name}\",{runs},{claimed},\"{source}\",{lo},{hi},{lb},{strict},{got},{want}")
}

/// The report's two texts: `dpsgd_audit.md` (with timings) and `dpsgd_audit.csv` (without).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Report {
    /// The Markdown page.
    pub markdown: String,
    /// The CSV table.
    pub csv: String,
    /// Whether every verdict is the expected one.
    pub all_expected: bool,
}

/// The Markdown page up to (and including) the audit table's header: `produced_by` is the text
/// after "Produced by " (the command, in backticks).
pub(crate) fn markdown_head(
    opts: &SuiteOptions,
    notes: &[String],
    produced_by: &str,
) -> Result<String> {
    let mut md = format!(
        "# DP-SGD / OSO-DPSGD training-loop audits\n\nProduced by {produced_by}; seed {}, δ = {DELTA}, \
         T = {T}. VIOLATION when the strict (1 − 10⁻⁶) ε_lb exceeds the claimed ε \
         (`docs/dpsgd.md`).\n\n",
        opts.seed
    );
    for n in notes {
        md.push_str(&format!("    {n}\n"));
    }
    md.push_str("\n## Seed 002's claims (ε = 2, δ = 1e-5, T = 10, n = 100)\n\n");
    md.push_str(&crate::train::sgd::seed002::markdown(
        &crate::train::sgd::seed002::claims(2.0, DELTA, T, 100)?,
    ));
    md.push_str(&format!("\n## Audits\n\n{MARKDOWN_HEADER}\n"));
    Ok(md)
}

/// Adds one result to the report's texts.
pub(crate) fn push_result(report: &mut Report, res: &SuiteResult) {
    report.markdown.push_str(&markdown_line(res));
    report.markdown.push('\n');
    report.csv.push_str(&csv_line(res));
    report.csv.push('\n');
    report.all_expected &= res.flagged == res.row.should_flag;
}

/// An empty report: the Markdown head and the CSV header.
pub(crate) fn new_report(
    opts: &SuiteOptions,
    notes: &[String],
    produced_by: &str,
) -> Result<Report> {
    Ok(Report {
        markdown: markdown_head(opts, notes, produced_by)?,
        csv: format!("{CSV_HEADER}\n"),
        all_expected: true,
    })
}

/// Writes `dpsgd_audit.md` and `dpsgd_audit.csv` into `out` (created if needed; each file written
/// atomically); returns them.
pub(crate) fn write_files(out: &Path, report: &Report) -> Result<Vec<PathBuf>> {
    create_dir(out)?;
    let mdp = out.join("dpsgd_audit.md");
    let csvp = out.join("dpsgd_audit.csv");
    write_atomic(&mdp, report.markdown.as_bytes())?;
    write_atomic(&csvp, report.csv.as_bytes())?;
    Ok(vec![mdp, csvp])
}

/// What [`write_report`] ran and wrote.
#[derive(Debug, Clone)]
pub(crate) struct SuiteRun {
    /// Whether every verdict is the expected one.
    pub all_expected: bool,
    /// The files written.
    pub files: Vec<PathBuf>,
    /// The accounting notes.
    pub notes: Vec<String>,
    /// Every row's result, in table order.
    pub results: Vec<SuiteResult>,
}

/// Runs the suite and writes `dpsgd_audit.md` (with timings) and `dpsgd_audit.csv` (without)
/// into `out`, printing the table's header and then each Markdown line to stderr as it
/// completes (under a bar counting the rows, on a terminal: `progress`).
pub(crate) fn write_report(
    out: &Path,
    opts: &SuiteOptions,
    command: &str,
    progress: bool,
) -> Result<SuiteRun> {
    create_dir(out)?;
    let (rows, notes) = suite_rows(opts)?;
    let mut report = new_report(opts, &notes, &format!("`{command}`"))?;
    let lines =
        crate::report::progress::Lines::new("train-audit rows", rows.len() as u64, progress);
    // The table's header first, so the lines printed as rows complete can be read.
    lines.line(MARKDOWN_HEADER);
    let mut results = Vec::with_capacity(rows.len());
    for r in &rows {
        let res = run_row(r, opts.seed)?;
        lines.line(&markdown_line(&res));
        lines.advance();
        push_result(&mut report, &res);
        results.push(res);
    }
    drop(lines);
    let files = write_files(out, &report)?;
    Ok(SuiteRun {
        all_expected: report.all_expected,
        files,
        notes,
        results,
    })
}
