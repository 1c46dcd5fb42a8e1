//! Tests of the seed-claims table: size, unique ids, pinned verdicts, no empty cells.

use super::data::{load, parse_file, FILES};
use super::{claims, claims_only};
use crate::error::Error;
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
    // The simulated rows are the rows of their data file, in table order.
    let sim = load().unwrap();
    let table: Vec<&str> = sim
        .iter()
        .filter(|r| r.file == "claims/seed003_hmb_sim.toml")
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(table.len(), 8);
    let ids: Vec<&str> = claims()
        .iter()
        .map(|c| c.id)
        .filter(|i| table.contains(i))
        .collect();
    assert_eq!(ids, table);
}

#[test]
fn every_data_row_parses() {
    let mut n = 0;
    for (file, text) in FILES {
        let rows = parse_file(file, text).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(!rows.is_empty(), "{file}: no rows");
        n += rows.len();
    }
    assert_eq!(load().unwrap().len(), n);
    assert_eq!(n, EXPECTED.len());
}

/// A row of a data file with one eval row of the given quantity and family.
fn one_row(decide: &str, quantity: &str, family: &str) -> String {
    format!(
        "[[claim]]\nid = \"x-row\"\nsource = \"s\"\nstatement = \"t\"\ndecide = \"{decide}\"\n\
         command = \"eval\"\n[[claim.eval]]\nid = \"e\"\nquantity = \"{quantity}\"\n\
         family = \"{family}\"\nparams = \"mu1=0;mu2=1;sigma=1;alpha=2\"\n"
    )
}

/// The typed error of parsing `text` as a data file: its message must name the file and the row.
fn parse_error(text: &str) -> String {
    match parse_file("claims/test.toml", text) {
        Err(e @ Error::Parse { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("claims/test.toml"), "{msg}");
            msg
        }
        Err(e) => panic!("not a parse error: {e:?}"),
        Ok(_) => panic!("accepted: {text}"),
    }
}

#[test]
fn a_bad_row_is_a_typed_error_naming_file_and_row() {
    // The good row parses; each mutation of it is refused, naming the row.
    assert_eq!(
        parse_file(
            "claims/test.toml",
            &one_row("max-ratio", "renyi", "gaussian")
        )
        .unwrap()
        .len(),
        1
    );
    for (text, what) in [
        (
            one_row("max-ratio", "renyi", "no_such_family"),
            "no_such_family",
        ),
        (
            one_row("max-ratio", "no_such_quantity", "gaussian"),
            "no_such_quantity",
        ),
        (
            one_row("no-such-decision", "renyi", "gaussian"),
            "no-such-decision",
        ),
        (
            one_row("max-ratio", "renyi", "gaussian")
                .replace("command = \"eval\"", "command = \"sometimes\""),
            "sometimes",
        ),
    ] {
        let msg = parse_error(&text);
        assert!(msg.contains("row x-row"), "{msg}");
        assert!(msg.contains(what), "{msg}");
    }
    // Malformed TOML and unknown keys name the file.
    parse_error("[[claim]]\nid = ");
    let msg = parse_error(&one_row("max-ratio", "renyi", "gaussian").replace("source", "sauce"));
    assert!(msg.contains("sauce"), "{msg}");
}
