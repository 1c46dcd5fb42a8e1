//! Tests of the seed-claims table: size, unique ids, pinned verdicts, no empty cells.

use super::{claims, claims_only, hmb_alg};
use std::collections::HashSet;

/// The pinned verdict of every row: a changed verdict, or a row that appears or disappears,
/// fails [`verdicts_are_pinned`].
const EXPECTED: &[(&str, &str)] = &[
    ("hmb-cor1-example", "misprint"),
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
    ("hmb-a6-second-tcdp", "derivation gap"),
    ("hmb-a6-eq50", "holds"),
    ("hmb-a6-gss-d1", "holds"),
    ("hmb-a6-gss-dimension", "holds"),
    ("hmb-a6-gss-eta", "false"),
    ("hmb-a6-factor2", "false"),
    ("hmb-eq12-rho", "holds"),
    ("hmb-eq74-remark", "holds"),
    ("hmb-thm2-eq8", "false"),
    ("hmb-thm2-step-d1", "false"),
    ("hmb-thm2-corrected", "holds"),
    ("hmb-eq56-convex", "false"),
    ("hmb-prop1-general-c", "false"),
    ("hmb-prop2-ptr", "false"),
    ("dpaudit-sound-ptr", "holds"),
    ("hmb-prop3-boundary", "derivation gap"),
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
    ("s002-sensitivity", "false"),
    ("s002-rdp-conversion", "holds"),
    ("s002-sigma-calibration", "false"),
    ("s002-alpha-choice", "false"),
    ("s002-sgd-sensitivity", "holds"),
    ("s002-subsampling", "false"),
    ("s002-advanced-composition", "false"),
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

#[test]
fn every_command_uses_the_binary() {
    for c in claims() {
        assert!(
            c.command.starts_with("dpaudit claims --only ")
                || c.command.contains("| dpaudit eval -")
                || c.command.starts_with("none ("),
            "row {}: {}",
            c.id,
            c.command
        );
    }
}

#[test]
fn only_computes_one_row_and_rejects_unknown_ids() {
    let c = claims_only(Some("hmb-prop1-general-c")).unwrap();
    assert_eq!(c.rows.len(), 1);
    assert!(c.thm2.is_none());
    let err = claims_only(Some("nope")).err().unwrap().to_string();
    assert!(err.contains("hmb-thm2-eq8"), "{err}");
    // The simulated rows are the table's hmb_alg rows, in table order.
    let ids: Vec<&str> = claims()
        .iter()
        .map(|c| c.id)
        .filter(|i| hmb_alg::ROWS.iter().any(|r| r.id == *i))
        .collect();
    let table: Vec<&str> = hmb_alg::ROWS.iter().map(|r| r.id).collect();
    assert_eq!(ids, table);
}
