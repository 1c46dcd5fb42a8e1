//! The seed-claims table: every quantitative or checkable claim of the five source documents,
//! with dpaudit's computed figure, a verdict and the command that reproduces it, written as
//! `claims.md` and `claims.csv`. The rows are computed by [`crate::compare::claims`]; this module
//! only formats them.

use super::csv::{write_atomic, Table};
use crate::compare::claims::{Claim, Thm2Case, Verdict};
use crate::compare::fmt::fmt_sig;
use crate::error::Result;
use std::path::{Path, PathBuf};

/// The CSV table of the claims (deterministic: no timings).
pub(crate) fn claims_table(claims: &[Claim]) -> Table {
    Table::of(
        claims,
        &[
            ("id", |c| c.id.to_string()),
            ("source", |c| c.source.clone()),
            ("statement", |c| c.statement.clone()),
            ("figure", |c| c.figure.clone()),
            ("verdict", |c| c.verdict.to_string()),
            ("reason", |c| c.reason.clone()),
            ("command", |c| c.command.clone()),
        ],
    )
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The count per verdict: `N claims: H hold, F false, G derivation gaps, M misprints, X not
/// checkable here`.
pub(crate) fn claims_summary(claims: &[Claim]) -> String {
    let count = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
    format!(
        "{} claims: {} hold, {} false, {} derivation gaps, {} misprints, {} not checkable here",
        claims.len(),
        count(Verdict::Holds),
        count(Verdict::False),
        count(Verdict::DerivationGap),
        count(Verdict::Misprint),
        count(Verdict::NotCheckable)
    )
}

/// The Theorem 2 table: one line per (problem, d, step rule).
pub(crate) fn thm2_table(cases: &[Thm2Case]) -> Table {
    Table::of(
        cases,
        &[
            ("problem", |c| c.problem.to_string()),
            ("d", |c| c.d.to_string()),
            ("step rule", |c| c.rule.name().to_string()),
            ("mu", |c| fmt_sig(c.mu, 4)),
            ("L", |c| fmt_sig(c.l, 4)),
            ("tau", |c| fmt_sig(c.tau, 4)),
            ("T", |c| c.steps.to_string()),
            ("runs", |c| c.sim.runs.to_string()),
            ("E||theta_T - theta*||^2", |c| fmt_sig(c.sim.mse.mean, 5)),
            ("99.9% interval", |c| {
                format!(
                    "[{}, {}]",
                    fmt_sig(c.sim.mse.lo, 5),
                    fmt_sig(c.sim.mse.hi, 5)
                )
            }),
            ("exact", |c| fmt_sig(c.exact, 5)),
            ("eq. (8)", |c| fmt_sig(c.eq8, 5)),
            ("eq. (8) verdict", |c| {
                judge(c.sim.mse.lo, c.sim.mse.hi, c.eq8)
            }),
            ("corrected", |c| fmt_sig(c.corrected, 5)),
            ("corrected verdict", |c| {
                if c.rule == crate::train::utility::StepRule::Corrected {
                    judge(c.sim.mse.lo, c.sim.mse.hi, c.corrected)
                } else {
                    "(premise not met)".to_string()
                }
            }),
        ],
    )
}

/// The verdict of a bound from an interval: violated / respected / within the interval.
fn judge(lo: f64, hi: f64, bound: f64) -> String {
    if lo > bound {
        "violated".into()
    } else if hi <= bound {
        "respected".into()
    } else {
        "bound inside interval (not violated)".into()
    }
}

/// The Markdown page of the claims, with a count per verdict (and the Theorem 2 table when
/// given).
pub(crate) fn claims_markdown(
    claims: &[Claim],
    thm2: Option<&[Thm2Case]>,
    command: &str,
) -> String {
    let mut s = String::new();
    s.push_str("# The seed claims, checked\n\n");
    s.push_str(&format!(
        "Produced by `{command}`. One row per quantitative or checkable claim of the source \
         documents (seed 001: Hu & Guo, *Privacy Amplification for the Gaussian Mechanism via \
         Bounded Support*; 002: informal notes on DP-SGD; 003: Hendrikx, Mangold & Bellet, *The \
         Relative Gaussian Mechanism and its Application to Private Gradient Descent*, AISTATS \
         2024 (HMB); 004: Galli, Palamidessi & Cucinotta, *Online Sensitivity Optimization in \
         Differentially Private Learning*): where it is stated, dpaudit's figure (computed when this \
         page was written, never typed in), a verdict and the command that reproduces the \
         figure. Verdicts: `holds`, `false` (counterexample or significant violation, witness \
         in the row), `derivation gap` (a proof step is invalid, the result survives our checks), \
         `misprint` (typo or rounding, corrected figure given), `not checkable here` (why); see \
         docs/claims.md.\n\n"
    ));
    s.push_str(&format!("{}.\n\n", claims_summary(claims)));
    let table = Table::of(
        claims,
        &[
            ("id", |c| c.id.to_string()),
            ("where", |c| md_cell(&c.source)),
            ("claim", |c| md_cell(&c.statement)),
            ("dpaudit's figure", |c| md_cell(&c.figure)),
            ("verdict", |c| format!("**{}**", c.verdict)),
            ("why", |c| md_cell(&c.reason)),
            ("reproduce", |c| {
                format!("`{}`", md_cell(&c.command).replace('`', "'"))
            }),
        ],
    );
    s.push_str(&table.markdown());
    if let Some(cases) = thm2 {
        s.push_str(
            "\n## HMB Theorem 2 by simulation (rows hmb-thm2-*)\n\n\
             Seeded RGM gradient descent (seed 22), E||theta_T - theta*||^2 with its 99.9% interval, \
             the exact second moment, HMB eq. (8) and the corrected bound (noise term times d, valid \
             for tau <= 1/((1 + d gamma)L); docs/claims.md). gamma = 0.5. A bound is violated when the \
             whole interval lies above it.\n\n",
        );
        s.push_str(&thm2_table(cases).markdown());
    }
    s
}

/// Computes the claims (all, or only the row `only`) and writes `claims.md` and `claims.csv`
/// into `out`; returns the claims and the files written.
pub(crate) fn write_claims(
    out: &Path,
    command: &str,
    only: Option<&str>,
) -> Result<(Vec<Claim>, Vec<PathBuf>)> {
    let c = crate::compare::claims::claims_only(only)?;
    std::fs::create_dir_all(out)
        .map_err(|e| crate::error::Error::Io(format!("cannot create {}: {e}", out.display())))?;
    let csv = out.join("claims.csv");
    claims_table(&c.rows).write(&csv)?;
    let md = out.join("claims.md");
    write_atomic(
        &md,
        claims_markdown(&c.rows, c.thm2.as_deref(), command).as_bytes(),
    )?;
    Ok((c.rows, vec![md, csv]))
}
