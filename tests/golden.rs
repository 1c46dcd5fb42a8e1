//! The golden tables: every row of `golden/*.csv` (independent mpmath values, see
//! `golden/README.md`) is evaluated by BOTH routes — closed form and quadrature — at
//! k = min(row digits, 30) requested digits, and must
//! 1. be certified to exactly k digits (never fewer: that is an error, never more: that is a lie),
//! 2. agree with the golden value to k digits: |ours − golden| / |golden| < 10^-k + 10^-g, i.e.
//!    agreement ≥ k − log₁₀ 2 when the golden value certifies g ≥ k digits.
//!
//! Quantities without a quadrature route (the papers' algebraic bounds) are checked by their one
//! route; closed form and quadrature must also agree with each other.

use dpaudit::divergence::Method;
use dpaudit::eval::{evaluate, EvalOptions, Row};
use dpaudit::numeric::mp::agreement_digits;
use rug::Float;
use std::path::Path;

struct Golden {
    file: String,
    row: Row,
    value: String,
    digits: u32,
}

fn load() -> Vec<Golden> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("golden/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let mut rdr = csv::Reader::from_path(&f).unwrap();
        let headers = rdr.headers().unwrap().clone();
        assert_eq!(
            headers.iter().collect::<Vec<_>>(),
            ["id", "quantity", "family", "params", "value", "digits", "source"],
            "{}",
            f.display()
        );
        for (i, rec) in rdr.records().enumerate() {
            let r = rec.unwrap();
            out.push(Golden {
                file: f.file_name().unwrap().to_string_lossy().into_owned(),
                row: Row {
                    line: i + 2,
                    id: r[0].to_string(),
                    quantity: r[1].to_string(),
                    family: r[2].to_string(),
                    params: r[3].to_string(),
                },
                value: r[4].to_string(),
                digits: r[5].parse().unwrap(),
            });
        }
    }
    out
}

fn is_integral(quantity: &str) -> bool {
    matches!(
        quantity,
        "renyi" | "kl" | "fisher" | "hockey_stick_delta" | "eps_for_delta" | "rho_bar"
    )
}

#[test]
fn golden_tables_agree_by_both_routes() {
    let rows = load();
    assert!(rows.len() >= 100, "only {} golden rows", rows.len());
    let mut failures = Vec::new();
    let mut checked = [0usize; 2];
    let mut unsupported = Vec::new();
    for g in &rows {
        let k = g.digits.min(30);
        let prec = 400;
        let want = Float::with_val(prec, Float::parse(&g.value).unwrap());
        let mut values = Vec::new();
        for (mi, method) in [Method::ClosedForm, Method::Quadrature]
            .into_iter()
            .enumerate()
        {
            if method == Method::Quadrature && !is_integral(&g.row.quantity) {
                continue;
            }
            let opts = EvalOptions { digits: k, method };
            match evaluate(&g.row, &opts) {
                Ok(c) => {
                    checked[mi] += 1;
                    let agree = agreement_digits(&c.value, &want);
                    let need = f64::from(k) - 2f64.log10();
                    if c.digits != k || agree < need {
                        failures.push(format!(
                            "{}:{} {} {:?}: certified {} of {k}, agrees with golden to {agree:.1} \
                             (value {} vs {})",
                            g.file,
                            g.row.line,
                            g.row.id,
                            method,
                            c.digits,
                            c.value.to_string_radix(10, Some(40)),
                            g.value
                        ));
                    }
                    values.push(c.value);
                }
                Err(dpaudit::Error::Unsupported(m)) => {
                    unsupported.push(format!("{} {:?}: {m}", g.row.id, method))
                }
                Err(e) => failures.push(format!(
                    "{}:{} {} {:?}: error {e}",
                    g.file, g.row.line, g.row.id, method
                )),
            }
        }
        if values.len() == 2 {
            let agree = agreement_digits(&values[0], &values[1]);
            if agree < f64::from(k) - 2f64.log10() {
                failures.push(format!(
                    "{} closed form and quadrature disagree: {agree:.1} digits",
                    g.row.id
                ));
            }
        }
    }
    eprintln!(
        "golden: {} rows; closed-form checked {}, quadrature checked {}; unsupported {}",
        rows.len(),
        checked[0],
        checked[1],
        unsupported.len()
    );
    for u in &unsupported {
        eprintln!("  unsupported: {u}");
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
