//! The small-T route of the composition bracket (`accounting::compose`, nested integration for
//! T ≤ 2, docs/accounting.md#small-t) against independent mpmath references
//! (`golden/accounting/small_t.csv`, from `golden/generate_small_t.py`: a 2-D integral organised
//! differently, at dps 40 and 60, 25 digits certified by their agreement).

use dpaudit::accounting::{delta_for_eps, eps_for_delta, ComposeOptions, Schedule};
use dpaudit::accounting::{Bracket, SubsampledGaussian};
use dpaudit::Scalar;
use rug::Float;

fn s(x: &str) -> Scalar {
    x.parse().unwrap()
}

struct Row {
    quantity: String,
    q: String,
    sigma: String,
    steps: u64,
    param: String,
    value: Float,
    digits: i32,
}

fn golden() -> Vec<Row> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/golden/accounting/small_t.csv"
    ))
    .unwrap();
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
fn contains(b: &Bracket, x: &Float, ref_digits: i32) -> bool {
    let tol = Float::with_val(256, x.abs_ref()) * Float::with_val(256, 10f64.powi(-ref_digits));
    let lo = Float::with_val(256, x - &tol);
    let hi = Float::with_val(256, x + &tol);
    b.lo <= hi && lo <= b.hi
}

/// Every golden row: the 20-digit bracket of the small-T route must contain the mpmath value
/// (and certify 20 digits). q = 0.5, σ = 2, T = 2 is the case; the others are the
/// q = 0.01 corner where the inversion needed more than 2·10⁵ nodes.
#[test]
fn small_t_brackets_contain_the_mpmath_reference() {
    let rows = golden();
    assert!(rows.len() >= 5);
    for r in rows {
        let m = SubsampledGaussian::new(s(&r.q), s(&r.sigma)).unwrap();
        let sched = Schedule::homogeneous(&m, r.steps).unwrap();
        let opts = ComposeOptions {
            digits: 20,
            force_inversion: false,
        };
        let c = match r.quantity.as_str() {
            "delta_for_eps" => delta_for_eps(&sched, &s(&r.param), &opts),
            "eps_for_delta" => eps_for_delta(&sched, &s(&r.param), &opts),
            other => panic!("unknown quantity {other}"),
        }
        .unwrap();
        assert_eq!(c.route, "small-T nested integration");
        assert!(
            contains(&c.value, &r.value, r.digits),
            "{} q={} sigma={} T={} {}: [{}, {}] misses {}",
            r.quantity,
            r.q,
            r.sigma,
            r.steps,
            r.param,
            c.value.lo,
            c.value.hi,
            r.value
        );
        assert!(c.value.digits() >= 20, "{} digits", c.value.digits());
    }
}

/// The double-precision nested route (T = 2 at ≤ 8 digits, docs/accounting.md#small-t3) on every
/// T = 2 golden row at 6 and 8 digits: the bracket certifies them and contains the reference.
#[test]
fn small_t_double_precision_route_contains_the_mpmath_reference() {
    let rows: Vec<Row> = golden().into_iter().filter(|r| r.steps == 2).collect();
    assert!(rows.len() >= 4);
    for r in rows {
        let m = SubsampledGaussian::new(s(&r.q), s(&r.sigma)).unwrap();
        let sched = Schedule::homogeneous(&m, r.steps).unwrap();
        for d in [6, 8] {
            let opts = ComposeOptions {
                digits: d,
                force_inversion: false,
            };
            let c = match r.quantity.as_str() {
                "delta_for_eps" => delta_for_eps(&sched, &s(&r.param), &opts),
                "eps_for_delta" => eps_for_delta(&sched, &s(&r.param), &opts),
                other => panic!("unknown quantity {other}"),
            }
            .unwrap();
            assert_eq!(c.route, "small-T nested integration (double precision)");
            assert!(c.value.digits() >= d, "{} digits of {d}", c.value.digits());
            assert!(
                contains(&c.value, &r.value, r.digits),
                "{} q={} sigma={} {} at {d} digits: [{}, {}] misses {}",
                r.quantity,
                r.q,
                r.sigma,
                r.param,
                c.value.lo,
                c.value.hi,
                r.value
            );
        }
    }
}

/// The route answers far in the tails: δ(ε) near 1e-260 (q = 0.01, σ = 1, T = 2, ε = 40) with
/// the requested digits, and an ε(δ) for δ = 1 − 1e-12 that is certified (here ε = 0: δ(0), the
/// total variation distance, is below it).
#[test]
fn small_t_far_tails() {
    let m = SubsampledGaussian::new(s("0.01"), s("1")).unwrap();
    let sched = Schedule::homogeneous(&m, 2).unwrap();
    let opts = ComposeOptions {
        digits: 8,
        force_inversion: false,
    };
    let c = delta_for_eps(&sched, &s("40"), &opts).unwrap();
    assert!(c.value.digits() >= 8);
    let v = c.value.mid().to_f64();
    assert!(v > 0.0 && v < 1e-250, "{v}");
    let e = eps_for_delta(&sched, &s("0.999999999999"), &opts).unwrap();
    assert_eq!(e.value.hi, 0);
}
