//! The report of `dpaudit audit-samples`: a [`SamplesAudit`] as Markdown
//! (`audit-samples.md`), one CSV row (`audit-samples.csv`) and the `--format json` document
//! (`docs/json.md`). Presentation only: every figure comes from
//! [`crate::audit::samples::audit_samples`]. No timings are written, so two runs on the same
//! files with the same seed write byte-identical files.

use std::path::{Path, PathBuf};

use super::csv::{fmt_num, write_atomic, Table};
use super::json::Json;
use crate::audit::samples::{SamplesAudit, Verdict};
use crate::error::{Error, Result};

/// File stem of the written files.
pub(crate) const STEM: &str = "audit-samples";

type Col = crate::fsio::Column<SamplesAudit>;

/// The CSV columns (one row per audit).
const COLUMNS: &[Col] = &[
    ("file_a", |a| a.source_a.clone()),
    ("file_b", |a| a.source_b.clone()),
    ("dim", |a| a.dim.to_string()),
    ("dtype_a", |a| a.dtype_a.to_string()),
    ("dtype_b", |a| a.dtype_b.to_string()),
    ("eps_claimed", |a| fmt_num(a.eps_claimed)),
    ("delta", |a| fmt_num(a.delta)),
    ("confidence", |a| fmt_num(a.confidence)),
    ("statistic", |a| a.statistic.to_string()),
    ("seed", |a| a.seed.to_string()),
    ("pilot_fraction", |a| fmt_num(a.pilot_fraction)),
    ("n_a", |a| a.n_a.to_string()),
    ("n_b", |a| a.n_b.to_string()),
    ("pilot_a", |a| a.pilot_a.to_string()),
    ("pilot_b", |a| a.pilot_b.to_string()),
    ("fit_a", |a| a.fit_a.to_string()),
    ("fit_b", |a| a.fit_b.to_string()),
    ("main_a", |a| a.main_a.to_string()),
    ("main_b", |a| a.main_b.to_string()),
    ("thresholds", |a| a.thresholds.to_string()),
    ("threshold", |a| format!("{:e}", a.region.threshold)),
    ("tail", |a| a.region.tail.to_string()),
    ("direction", |a| direction(a).to_string()),
    ("false_positives", |a| a.region.false_positives.to_string()),
    ("false_negatives", |a| a.region.false_negatives.to_string()),
    ("fpr_ub", |a| fmt_num(a.region.fpr_ub)),
    ("fnr_ub", |a| fmt_num(a.region.fnr_ub)),
    ("eps_lb", |a| fmt_num(a.eps_lb)),
    ("eps_lb_strict", |a| fmt_num(a.eps_lb_strict)),
    ("verdict", |a| a.verdict.to_string()),
];

/// The direction in the files' names: `A_vs_B` (P = A) or `B_vs_A`.
fn direction(a: &SamplesAudit) -> &'static str {
    match a.region.direction {
        crate::audit::stats::Direction::PvsQ => "A_vs_B",
        crate::audit::stats::Direction::QvsP => "B_vs_A",
    }
}

/// The region in words: `T > t` or `T <= t`.
fn region_text(a: &SamplesAudit) -> String {
    let op = match a.region.tail {
        crate::audit::stats::Tail::Above => ">",
        crate::audit::stats::Tail::Below => "<=",
    };
    format!("T {op} {:e}", a.region.threshold)
}

/// The one-row CSV table.
pub(crate) fn table(a: &SamplesAudit) -> Table {
    Table::of(std::iter::once(a.clone()), COLUMNS)
}

/// The Markdown report.
pub(crate) fn markdown(a: &SamplesAudit, command: &str) -> String {
    let r = &a.region;
    let (pos, neg) = match r.direction {
        crate::audit::stats::Direction::PvsQ => ("A", "B"),
        crate::audit::stats::Direction::QvsP => ("B", "A"),
    };
    let mut o = String::new();
    o.push_str("# Black-box audit of sample files\n\n");
    o.push_str(&format!("Command: `{}`\n\n", command.replace('`', "'")));
    o.push_str(&format!(
        "**Verdict: {}** — claimed (ε, δ) = ({}, {}); ε_lb = {} at confidence {}; strict ε_lb = {} at confidence 1 − 1e-6 (the verdict's figure: `VIOLATION` iff it exceeds the claimed ε).\n\n",
        a.verdict,
        fmt_num(a.eps_claimed),
        fmt_num(a.delta),
        fmt_num(a.eps_lb),
        fmt_num(a.confidence),
        fmt_num(a.eps_lb_strict),
    ));
    if a.verdict == Verdict::Ok && a.eps_lb > a.eps_claimed {
        o.push_str(
            "Note: ε_lb exceeds the claim at the stated confidence but the strict bound does not: \
             suspicious, not a violation; rerun with more samples.\n\n",
        );
    }
    o.push_str("| | A (mechanism on x) | B (mechanism on x′) |\n|---|---|---|\n");
    o.push_str(&format!("| file | `{}` | `{}` |\n", a.source_a, a.source_b));
    o.push_str(&format!("| type | {} | {} |\n", a.dtype_a, a.dtype_b));
    o.push_str(&format!(
        "| samples (d = {}) | {} | {} |\n",
        a.dim, a.n_a, a.n_b
    ));
    o.push_str(&format!(
        "| pilot (fit + choice) | {} ({} + {}) | {} ({} + {}) |\n",
        a.pilot_a,
        a.fit_a,
        a.pilot_a - a.fit_a,
        a.pilot_b,
        a.fit_b,
        a.pilot_b - a.fit_b
    ));
    o.push_str(&format!("| main | {} | {} |\n\n", a.main_a, a.main_b));
    o.push_str(&format!(
        "Statistic: `{}` (asked: `{}`): {}.\n\nSplit: {}.\n\n",
        a.statistic, a.statistic_requested, a.statistic_detail, a.split
    ));
    o.push_str(&format!(
        "Region chosen on the pilot among {} thresholds (both tails, both directions): S = {{{}}}, positives = {pos}: \
         (ε, δ)-DP requires P_{pos}(S) ≤ e^ε P_{neg}(S) + δ.\n\n",
        a.thresholds,
        region_text(a)
    ));
    o.push_str("| on the main part | value |\n|---|---|\n");
    o.push_str(&format!(
        "| {neg} samples in S (false positives) | {} of {} |\n",
        r.false_positives, r.n_neg
    ));
    o.push_str(&format!(
        "| {pos} samples outside S (false negatives) | {} of {} |\n",
        r.false_negatives, r.n_pos
    ));
    o.push_str(&format!(
        "| FPR upper bound (Clopper–Pearson, β/2) | {} |\n",
        fmt_num(r.fpr_ub)
    ));
    o.push_str(&format!(
        "| FNR upper bound (Clopper–Pearson, β/2) | {} |\n",
        fmt_num(r.fnr_ub)
    ));
    o.push_str(&format!(
        "| point estimate ln((1 − δ − FNR)/FPR) | {} |\n",
        fmt_num(r.eps_point)
    ));
    o.push_str(&format!(
        "| ε_lb (confidence {}) | {} |\n",
        fmt_num(a.confidence),
        fmt_num(a.eps_lb)
    ));
    o.push_str(&format!(
        "| ε_lb strict (confidence 1 − 1e-6) | {} |\n\n",
        fmt_num(a.eps_lb_strict)
    ));
    o.push_str(
        "ε_lb ≤ ε(δ) holds with the stated confidence whatever the pilot chose: the region is fixed \
         before the main samples are counted (docs/samples.md). A statistic sees only what it \
         measures: `ok` means this statistic found no evidence at this sample size, not that the \
         sampler is private.\n",
    );
    o
}

/// The `--format json` document (`docs/json.md`, `audit-samples`).
pub(crate) fn json(a: &SamplesAudit) -> Json {
    let r = &a.region;
    let side = |n: u64, pilot: u64, fit: u64, main: u64, file: &str, dtype: String| {
        Json::obj(vec![
            ("file", Json::str(file)),
            ("dtype", Json::str(dtype)),
            ("n", Json::Int(n)),
            ("pilot", Json::Int(pilot)),
            ("fit", Json::Int(fit)),
            ("main", Json::Int(main)),
        ])
    };
    Json::document(
        "audit-samples",
        vec![
            (
                "claim",
                Json::obj(vec![
                    ("eps", Json::Num(a.eps_claimed)),
                    ("delta", Json::Num(a.delta)),
                ]),
            ),
            ("confidence", Json::Num(a.confidence)),
            ("dim", Json::Int(a.dim as u64)),
            (
                "a",
                side(
                    a.n_a,
                    a.pilot_a,
                    a.fit_a,
                    a.main_a,
                    &a.source_a,
                    a.dtype_a.to_string(),
                ),
            ),
            (
                "b",
                side(
                    a.n_b,
                    a.pilot_b,
                    a.fit_b,
                    a.main_b,
                    &a.source_b,
                    a.dtype_b.to_string(),
                ),
            ),
            ("statistic", Json::str(a.statistic.to_string())),
            (
                "statistic_requested",
                Json::str(a.statistic_requested.to_string()),
            ),
            ("statistic_detail", Json::str(a.statistic_detail.clone())),
            ("seed", Json::Int(a.seed)),
            ("pilot_fraction", Json::Num(a.pilot_fraction)),
            ("split", Json::str(a.split.clone())),
            ("thresholds", Json::Int(a.thresholds)),
            (
                "region",
                Json::obj(vec![
                    ("threshold", Json::Num(r.threshold)),
                    ("tail", Json::str(r.tail.to_string())),
                    ("direction", Json::str(direction(a))),
                    ("false_positives", Json::Int(r.false_positives)),
                    ("n_neg", Json::Int(r.n_neg)),
                    ("false_negatives", Json::Int(r.false_negatives)),
                    ("n_pos", Json::Int(r.n_pos)),
                    ("fpr_ub", Json::Num(r.fpr_ub)),
                    ("fnr_ub", Json::Num(r.fnr_ub)),
                ]),
            ),
            ("eps_lb", Json::Num(a.eps_lb)),
            ("eps_lb_strict", Json::Num(a.eps_lb_strict)),
            ("strict_confidence", Json::Num(a.strict_confidence)),
            ("verdict", Json::str(a.verdict.to_string())),
        ],
    )
}

/// Writes `audit-samples.md` and `audit-samples.csv` into `out` (created if missing),
/// atomically; returns the paths written.
pub(crate) fn write(a: &SamplesAudit, out: &Path, command: &str) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", out.display())))?;
    let md = out.join(format!("{STEM}.md"));
    let csv = out.join(format!("{STEM}.csv"));
    write_atomic(&md, markdown(a, command))?;
    table(a).write(&csv)?;
    Ok(vec![md, csv])
}
