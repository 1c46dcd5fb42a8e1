//! The mpmath reference rows of `golden/accounting/*.csv` (columns quantity, q, sigma, steps,
//! param, value, digits, source) and the checks of the accounting tests on them.

use dpaudit::accounting::{delta_for_eps, eps_for_delta, ComposeOptions, Schedule};
use dpaudit::accounting::{Bracket, Composed, SubsampledGaussian};
use dpaudit::Scalar;
use rug::Float;

/// A decimal parameter.
pub fn s(x: &str) -> Scalar {
    x.parse().unwrap()
}

/// One reference row.
#[derive(Clone)]
pub struct Row {
    pub quantity: String,
    pub q: String,
    pub sigma: String,
    pub steps: u64,
    pub param: String,
    pub value: Float,
    pub digits: i32,
}

/// The rows of `golden/accounting/{file}` (comment and header lines skipped).
pub fn rows(file: &str) -> Vec<Row> {
    let path = format!("{}/golden/accounting/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("quantity"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Row {
                quantity: f[0].into(),
                q: f[1].into(),
                sigma: f[2].into(),
                steps: f[3].parse().unwrap(),
                param: f[4].into(),
                value: Float::with_val(256, Float::parse(f[5]).unwrap()),
                digits: f[6].parse().unwrap(),
            }
        })
        .collect()
}

/// Whether the reference, widened by its own certified digits, meets the bracket.
pub fn contains(b: &Bracket, x: &Float, ref_digits: i32) -> bool {
    let tol = Float::with_val(256, x.abs_ref()) * Float::with_val(256, 10f64.powi(-ref_digits));
    let lo = Float::with_val(256, x - &tol);
    let hi = Float::with_val(256, x + &tol);
    b.lo <= hi && lo <= b.hi
}

/// The row's quantity computed by the library's dispatcher at `digits` digits.
pub fn compute(r: &Row, digits: u32, force_inversion: bool) -> Composed {
    let m = SubsampledGaussian::new(s(&r.q), s(&r.sigma)).unwrap();
    let sched = Schedule::homogeneous(&m, r.steps).unwrap();
    let opts = ComposeOptions {
        digits,
        force_inversion,
    };
    match r.quantity.as_str() {
        "delta_for_eps" => delta_for_eps(&sched, &s(&r.param), &opts),
        "eps_for_delta" => eps_for_delta(&sched, &s(&r.param), &opts),
        other => panic!("unknown quantity {other}"),
    }
    .unwrap()
}
