//! The seed-claims table: every quantitative or checkable claim of the five source documents,
//! with dpaudit's computed figure, a verdict and the command that reproduces it, written as
//! `claims.md` and `claims.csv`. The rows are computed by [`crate::compare::claims`]; this module
//! only formats them.

use super::csv::{write_atomic, Table};
use crate::compare::claims::{Claim, Verdict};
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

/// The count per verdict: `N claims: H hold, F fail, M misprints, X not checkable here`.
pub(crate) fn claims_summary(claims: &[Claim]) -> String {
    let count = |v: Verdict| claims.iter().filter(|c| c.verdict == v).count();
    format!(
        "{} claims: {} hold, {} fail, {} misprints, {} not checkable here",
        claims.len(),
        count(Verdict::Holds),
        count(Verdict::Fails),
        count(Verdict::Misprint),
        count(Verdict::NotCheckable)
    )
}

/// The Markdown page of the claims, with a count per verdict.
pub(crate) fn claims_markdown(claims: &[Claim], command: &str) -> String {
    let mut s = String::new();
    s.push_str("# The seed claims, checked\n\n");
    s.push_str(&format!(
        "Produced by `{command}`. One row per quantitative or checkable claim of the source \
         documents (`../shared/seeds`): where it is stated, dpaudit's figure (computed when this \
         page was written, never typed in), a verdict and the command that reproduces the \
         figure.\n\n"
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
    s
}

/// Computes the claims and writes `claims.md` and `claims.csv` into `out`; returns the claims
/// and the files written.
pub(crate) fn write_claims(out: &Path, command: &str) -> Result<(Vec<Claim>, Vec<PathBuf>)> {
    std::fs::create_dir_all(out)
        .map_err(|e| crate::error::Error::Io(format!("cannot create {}: {e}", out.display())))?;
    let claims = crate::compare::claims::claims();
    let csv = out.join("claims.csv");
    claims_table(&claims).write(&csv)?;
    let md = out.join("claims.md");
    write_atomic(&md, claims_markdown(&claims, command).as_bytes())?;
    Ok((claims, vec![md, csv]))
}
