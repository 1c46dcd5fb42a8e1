//! Tests of the seed-claims table: size, unique ids, pinned verdicts, no empty cells.

use super::*;
use std::collections::HashSet;

/// The pinned verdict of every row: a changed verdict, or a row that appears or disappears,
/// fails [`verdicts_are_pinned`].
const EXPECTED: &[(&str, &str)] = &[
    ("hmb-cor1-example", "fails"),
    ("hmb-cor1-example-condition", "holds"),
    ("hmb-eq45-example", "holds"),
    ("hmb-eq47-misprint", "misprint"),
    ("hmb-thm1-exact", "holds"),
    ("hmb-thm1-worst-case", "holds"),
    ("hmb-thm1-range", "holds"),
    ("hmb-thm1-eps-lower", "holds"),
    ("hmb-eq6", "holds"),
    ("hmb-a4-tightness", "holds"),
    ("hmb-tcdp-s41", "holds"),
    ("hmb-a6-second-tcdp", "fails"),
    ("hmb-a6-eq50", "holds"),
    ("hmb-a6-gss-d1", "holds"),
    ("hmb-a6-gss-dimension", "holds"),
    ("hmb-a6-gss-eta", "fails"),
    ("hmb-a6-factor2", "fails"),
    ("hmb-eq12-rho", "holds"),
    ("hmb-eq74-remark", "holds"),
    ("hg-prop46-rectified", "holds"),
    ("hg-thm49-truncated", "holds"),
    ("hg-sign-postprocessing", "holds"),
    ("hg-thm42-rectified", "holds"),
    ("hg-thm42-truncated", "holds"),
    ("hg-sign-fil", "holds"),
    ("hg-eq4-wide-support", "holds"),
    ("hg-lemma48-monotone", "holds"),
    ("hg-prop51-per-coordinate", "holds"),
    ("hg-30pct", "not checkable here"),
    ("s002-sensitivity", "fails"),
    ("s002-rdp-conversion", "holds"),
    ("s002-sigma-calibration", "fails"),
    ("s002-alpha-choice", "fails"),
    ("s002-sgd-sensitivity", "holds"),
    ("s002-subsampling", "fails"),
    ("s002-advanced-composition", "fails"),
    ("s002-dpsgd-sigma", "not checkable here"),
    ("oso-prop1", "holds"),
    ("oso-rule-of-thumb", "holds"),
    ("oso-alg1-line13", "misprint"),
];

#[test]
fn verdicts_are_pinned() {
    let rows = claims();
    let got: Vec<(&str, String)> = rows.iter().map(|c| (c.id, c.verdict.to_string())).collect();
    for c in &rows {
        println!("{} | {} | {} | {}", c.id, c.verdict, c.figure, c.reason);
    }
    let want: Vec<(&str, String)> = EXPECTED.iter().map(|(i, v)| (*i, v.to_string())).collect();
    assert_eq!(got, want, "claims table verdicts changed");
}

#[test]
fn at_least_25_rows_with_unique_ids_and_no_empty_cells() {
    let rows = claims();
    assert!(rows.len() >= 25, "only {} rows", rows.len());
    let mut seen = HashSet::new();
    for c in &rows {
        assert!(seen.insert(c.id), "duplicate id {}", c.id);
        for (name, v) in [
            ("source", &c.source),
            ("statement", &c.statement),
            ("figure", &c.figure),
            ("reason", &c.reason),
            ("command", &c.command),
        ] {
            assert!(!v.trim().is_empty(), "row {}: empty {name}", c.id);
        }
    }
}

/// Recomputes and prints one row (`CLAIM=<id>`), or all rows: the command of the rows whose
/// figure needs a library call without an `eval` quantity.
#[test]
fn print_claim() {
    let want = std::env::var("CLAIM").ok();
    for c in claims() {
        if want.as_deref().is_none_or(|w| w == c.id) {
            println!(
                "{}\n  source:    {}\n  statement: {}\n  figure:    {}\n  verdict:   {}\n  reason:    {}\n  command:   {}",
                c.id, c.source, c.statement, c.figure, c.verdict, c.reason, c.command
            );
        }
    }
}
