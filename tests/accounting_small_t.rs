//! The small-T route of the composition bracket (`accounting::compose`, nested integration for
//! T ≤ 2, docs/accounting.md#small-t) against independent mpmath references
//! (`golden/accounting/small_t.csv`, from `golden/generate_small_t.py`: a 2-D integral organised
//! differently, at dps 40 and 60, 25 digits certified by their agreement).

mod common;

use common::accounting::{compute, contains, rows, s, Row};
use dpaudit::accounting::SubsampledGaussian;
use dpaudit::accounting::{delta_for_eps, eps_for_delta, ComposeOptions, Schedule};

fn golden() -> Vec<Row> {
    rows("small_t.csv")
}

/// Every golden row: the 20-digit bracket of the small-T route must contain the mpmath value
/// (and certify 20 digits). q = 0.5, σ = 2, T = 2 is the case; the others are the
/// q = 0.01 corner where the inversion needed more than 2·10⁵ nodes.
#[test]
fn small_t_brackets_contain_the_mpmath_reference() {
    let rows = golden();
    assert!(rows.len() >= 5);
    for r in rows {
        let c = compute(&r, 20, false);
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
        for d in [6, 8] {
            let c = compute(&r, d, false);
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

/// One step's δ(ε) of the mechanism in closed form (docs/accounting.md#single-step, written
/// here afresh with rug): remove q·Φ̄(x* − 1) − (e^ε − 1 + q)·Φ̄(x*) with r(x*) = e^ε, add
/// Φ(x_a) − e^ε((1 − q)Φ(x_a) + qΦ(x_a − 1)) with r(x_a) = e^{−ε} (0 when e^{−ε} ≤ 1 − q),
/// r(x) = 1 − q + q·e^{(x − 1/2)/σ²}; the larger of the two.
fn one_step_delta(q: &str, sigma: &str, eps: &rug::Float) -> rug::Float {
    use rug::Float;
    let p = 256;
    let q = Float::with_val(p, Float::parse(q).unwrap());
    let s = Float::with_val(p, Float::parse(sigma).unwrap());
    let s2 = Float::with_val(p, s.square_ref());
    let e = Float::with_val(p, eps);
    let phi =
        |x: &Float| (Float::with_val(p, x / Float::with_val(p, 2f64).sqrt()).erf() + 1u32) / 2u32;
    let one_q = Float::with_val(p, 1u32 - &q);
    let level = |t: &Float| {
        Float::with_val(
            p,
            &s2 * Float::with_val(p, (Float::with_val(p, t - &one_q)) / &q).ln(),
        ) + 0.5f64
    };
    let ee = Float::with_val(p, e.exp_ref());
    let xs = level(&ee);
    let rm = Float::with_val(p, &q * (1u32 - phi(&Float::with_val(p, &xs - 1u32))))
        - Float::with_val(p, &ee - &one_q) * (1u32 - phi(&xs));
    let em = Float::with_val(p, (-e.clone()).exp());
    let ad = if em <= one_q {
        Float::new(p)
    } else {
        let xa = level(&em);
        let inner = Float::with_val(p, &one_q * phi(&xa))
            + Float::with_val(p, &q * phi(&Float::with_val(p, &xa - 1u32)));
        phi(&xa) - ee * inner
    };
    rm.max(&ad)
}

/// ε(δ) just below one step's total variation (q = 0.5, σ = 1: δ(0) = 0.19146246…), where ε is
/// tiny and δ must be resolved far beyond ε's digits (refused before stop 44: "could not certify
/// the eps bracket"): the closed form at the bracket's ends must straddle δ.
#[test]
fn one_step_eps_just_below_the_total_variation() {
    for delta in ["0.191462", "0.19146", "0.1914"] {
        let sched =
            Schedule::homogeneous(&SubsampledGaussian::new(s("0.5"), s("1")).unwrap(), 1).unwrap();
        let opts = ComposeOptions {
            digits: 6,
            force_inversion: false,
        };
        let c = eps_for_delta(&sched, &s(delta), &opts).unwrap();
        let d = rug::Float::with_val(256, rug::Float::parse(delta).unwrap());
        assert!(c.value.digits() >= 6);
        assert!(c.value.lo > 0, "{delta}: eps = 0");
        assert!(
            one_step_delta("0.5", "1", &c.value.lo) >= d,
            "{delta}: delta(eps_lo) below"
        );
        assert!(
            one_step_delta("0.5", "1", &c.value.hi) <= d,
            "{delta}: delta(eps_hi) above"
        );
    }
}
