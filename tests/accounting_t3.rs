//! The composition bracket at T = 3 — the double-precision nested route (≤ 8 digits,
//! docs/accounting.md#small-t3) and the inversion with double-precision inner sums
//! (docs/accounting.md#fast-inner) — against independent mpmath references
//! (`golden/accounting/t3.csv`, from `golden/generate_t3.py`: 3-D integrals, the two-step inner
//! integral of `golden/generate_small_t.py` under an outer `mpmath.quad`, each row at two
//! precisions whose agreement certifies the digits recorded), and the add direction settled by
//! its bounded range.

use dpaudit::accounting::{delta_for_eps, eps_for_delta, ComposeOptions, Schedule};
use dpaudit::accounting::{Bracket, SubsampledGaussian};
use dpaudit::Scalar;
use rug::Float;

fn s(x: &str) -> Scalar {
    x.parse().unwrap()
}

/// (q, sigma, steps, eps, value, digits) of the δ(ε) rows.
fn golden() -> Vec<(String, String, u64, String, Float, i32)> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/golden/accounting/t3.csv"
    ))
    .unwrap();
    text.lines()
        .filter(|l| l.starts_with("delta_for_eps"))
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[1].into(),
                f[2].into(),
                f[3].parse().unwrap(),
                f[4].into(),
                Float::with_val(256, Float::parse(f[5]).unwrap()),
                f[6].parse().unwrap(),
            )
        })
        .collect()
}

/// Whether the reference, widened by its own certified digits, meets the bracket.
fn contains(b: &Bracket, x: &Float, ref_digits: i32) -> bool {
    let tol = Float::with_val(256, x.abs_ref()) * Float::with_val(256, 10f64.powi(-ref_digits));
    let lo = Float::with_val(256, x - &tol);
    let hi = Float::with_val(256, x + &tol);
    b.lo <= hi && lo <= b.hi
}

/// q = 0.01, σ = 1, T = 3, δ(0.3) by the inversion (forced): before the double-precision inner
/// sums this case got no answer within 30 s. The 4-digit bracket (about 10⁻⁵ relative wide) must
/// contain the 20-digit reference; moving the reference in its 4th digit (7.1062… → 7.1072…) makes
/// the test fail (checked).
#[test]
fn t3_small_q_inversion_contains_the_mpmath_reference() {
    let rows = golden();
    let (q, sigma, steps, eps, value, digits) = rows
        .iter()
        .find(|r| r.0 == "0.01" && r.3 == "0.3")
        .cloned()
        .expect("the q = 0.01 row");
    let m = SubsampledGaussian::new(s(&q), s(&sigma)).unwrap();
    let sched = Schedule::homogeneous(&m, steps).unwrap();
    let opts = ComposeOptions {
        digits: 4,
        force_inversion: true,
    };
    let c = delta_for_eps(&sched, &s(&eps), &opts).unwrap();
    assert_eq!(c.route, "mgf inversion");
    assert!(c.value.digits() >= 4, "{} digits", c.value.digits());
    assert!(
        contains(&c.value, &value, digits),
        "[{}, {}] misses {value}",
        c.value.lo,
        c.value.hi
    );
    // The add direction's loss is at most −3 ln(0.99) < 0.031 < ε: it is exactly 0.
    assert_eq!(c.add.hi, 0);
}

/// Every T = 3 row by the default route, the double-precision nested integration, at 4, 6 and 8
/// digits: each bracket certifies its digits and contains the reference. Its 8-digit brackets
/// are about 8·10⁻¹⁰ relative wide: a reference moved by 5 units of its 9th digit fails the test
/// (checked on the q = 0.01 row: 7.10623554861… → 7.10623555361… fails; → 7.10623554961… still
/// passes).
#[test]
fn t3_nested_route_contains_the_mpmath_references() {
    let rows = golden();
    assert!(rows.len() >= 3, "{} rows", rows.len());
    for (q, sigma, steps, eps, value, digits) in rows {
        let m = SubsampledGaussian::new(s(&q), s(&sigma)).unwrap();
        let sched = Schedule::homogeneous(&m, steps).unwrap();
        for d in [4, 6, 8] {
            let opts = ComposeOptions {
                digits: d,
                force_inversion: false,
            };
            let c = delta_for_eps(&sched, &s(&eps), &opts).unwrap();
            assert_eq!(c.route, "small-T nested integration (double precision)");
            assert!(c.value.digits() >= d, "{} digits of {d}", c.value.digits());
            assert!(
                contains(&c.value, &value, digits),
                "q={q} sigma={sigma} T={steps} eps={eps} at {d} digits: [{}, {}] misses {value}",
                c.value.lo,
                c.value.hi
            );
        }
    }
}

/// The add direction's loss is at most −T ln(1 − q) (10.05 at q = 0.01, T = 1000): δ_add(ε) = 0
/// exactly beyond it (the add direction used to fail there, "needs more than 2e5 quadrature
/// nodes" at ε = 40), and ε_add(δ) ≤ it.
#[test]
fn add_direction_settled_by_its_range() {
    let m = SubsampledGaussian::new(s("0.01"), s("1")).unwrap();
    let sched = Schedule::homogeneous(&m, 1000).unwrap();
    let opts = ComposeOptions {
        digits: 6,
        force_inversion: false,
    };
    let c = delta_for_eps(&sched, &s("12"), &opts).unwrap();
    assert_eq!(c.add.lo, 0);
    assert_eq!(c.add.hi, 0);
    assert!(c.value.digits() >= 6);
    assert_eq!(c.value, c.remove);
    let v = c.value.mid().to_f64();
    assert!(v > 0.0 && v < 1e-6, "{v}");
    // ε(δ) with the remove direction above the add range: q = 0.1, T = 10, ε(1e-5) ≈ 2.8545 >
    // ε_max = −10 ln(0.9) ≈ 1.0536.
    let m = SubsampledGaussian::new(s("0.1"), s("1")).unwrap();
    let sched = Schedule::homogeneous(&m, 10).unwrap();
    let c = eps_for_delta(&sched, &s("1e-5"), &opts).unwrap();
    // ε_max = −10 ln(1 − 1/10) at 256 bits (closed form); the bracket's end must not be below it.
    let q = Float::with_val(256, Float::parse("0.1").unwrap());
    let emax = Float::with_val(256, -Float::with_val(256, (-q).ln_1p()) * 10u32);
    assert_eq!(c.add.lo, 0);
    let gap = Float::with_val(256, &c.add.hi - &emax).to_f64();
    assert!((0.0..1e-12).contains(&gap), "{} vs {emax}: {gap}", c.add.hi);
    assert_eq!(c.value, c.remove);
    assert!(c.value.digits() >= 6);
    let v = c.value.mid().to_f64();
    assert!(v > 2.8545 && v < 2.8546, "{v}");
}

fn account(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_dpaudit"))
        .arg("account")
        .args(args)
        .output()
        .unwrap()
}

/// A bracket that does not certify the digits asked for is an error, not an answer: q = 0.001,
/// σ = 1, T = 3 at 6 digits used to come back with exit status 0 and a 0-digit bracket from the
/// inversion. T = 3 now has the nested route (6 certified digits, exit 0); the inversion's failure
/// is checked at T = 10, where it still cannot reach 6 digits within the limit.
#[test]
fn too_few_digits_is_a_precision_error_not_an_answer() {
    let o = account(&[
        "--q", "0.001", "--sigma", "1", "--steps", "3", "--delta", "1e-5", "--digits", "6",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("6 digits"), "{out}");
    let o = account(&[
        "--q",
        "0.001",
        "--sigma",
        "1",
        "--steps",
        "10",
        "--delta",
        "1e-5",
        "--digits",
        "6",
        "--max-seconds",
        "8",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    // The inversion cannot reach 6 digits here today (docs/accounting.md, Limits); when a route
    // does, this test must be changed to check the digits of the answer.
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot certify 6 digits"), "{err}");
}
