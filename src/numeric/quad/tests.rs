use super::{
    gaussian, tanh_sinh, Assign, Error, Factor, Float, FnIntegrand, Point, QuadOptions, QuadResult,
    Quadratic, Result,
};

fn f(prec: u32, s: &str) -> Float {
    Float::with_val(prec, Float::parse(s).unwrap())
}

fn agree(a: &Float, b: &Float) -> f64 {
    crate::numeric::mp::agreement_digits(a, b)
}

// Reference values: python3 mpmath 1.3, mp.dps = 60, from erf/erfc closed forms
// (independent of this quadrature).
// ln ∫_{-1}^{1} N(x; 0.3, 1) dx = ln(Φ(0.7) − Φ(−1.3))
const LN_Z_03: &str = "-0.413644674954883611467726630086508901129959273940869140790534";

/// ∫_{-1}^{1} N(x; 0.3, 1) dx by [`gaussian`] at `prec` bits with the options `o`.
fn ln_z_03(prec: u32, o: &QuadOptions) -> Result<QuadResult> {
    let q = Quadratic::log_normal(&f(prec, "0.3"), &f(prec, "1"), prec);
    gaussian(
        &q,
        &Factor::One,
        Some(&f(prec, "-1")),
        Some(&f(prec, "1")),
        &[],
        o,
    )
}

#[test]
fn truncated_normaliser_30_50_100_digits() {
    for digits in [30u32, 50, 100] {
        let prec = crate::numeric::mp::bits_for_digits(digits + 2);
        let o = QuadOptions::new(prec, f64::from(digits) + 1.0);
        let r = ln_z_03(prec, &o).unwrap();
        let want = f(prec, LN_Z_03);
        let got_digits = agree(&r.log_abs, &want);
        let claimed = -r.log10_rel_err();
        eprintln!(
            "digits {digits}: agree {got_digits:.1} claimed {claimed:.1} evals {} exps {} level {}",
            r.evaluations, r.exps, r.level
        );
        assert!(claimed >= f64::from(digits));
        assert!(got_digits >= claimed.min(60.0) - 0.5);
    }
}

// mpmath, dps 80: log(ncdf(-3)), log(ncdf(-40)), log(sqrt(2π)(Φ(1) − Φ(0))).
const LN_TAIL_3: &str = "-6.60772622151034954327607708325151443878076702416331367619993";
const LN_TAIL_40: &str = "-804.608442013753788166606832918609936200149631998777923179648";
const LN_TS: &str = "-0.155923793657398639911085392563217733835711065266287735667544";

#[test]
fn half_infinite_tails_and_whole_line() {
    let prec = crate::numeric::mp::bits_for_digits(50);
    let zero = Float::new(prec);
    let one = Float::with_val(prec, 1u32);
    let q = Quadratic::log_normal(&zero, &one, prec);
    let o = QuadOptions::new(prec, 45.0);
    for (x, want) in [("3", LN_TAIL_3), ("40", LN_TAIL_40)] {
        let r = gaussian(&q, &Factor::One, Some(&f(prec, x)), None, &[], &o).unwrap();
        let a = agree(&r.log_abs, &f(prec, want));
        assert!(-r.log10_rel_err() >= 45.0 && a >= 45.0, "tail {x}: {a}");
    }
    // ∫_ℝ N(x; 1, 1) = 1 by the truncated trapezoid.
    let q1 = Quadratic::log_normal(&one, &one, prec);
    let r = gaussian(&q1, &Factor::One, None, None, &[], &o).unwrap();
    assert!(r.log_abs.to_f64().abs() < 1e-44, "{}", r.log_abs);
    assert!(r.log10_rel_err() <= -45.0);
}

#[test]
fn tanh_sinh_smooth_integrand() {
    let prec = crate::numeric::mp::bits_for_digits(40);
    let mut fi = FnIntegrand(|x: &Float, pt: &mut Point| {
        pt.log_env.assign(x.square_ref());
        pt.log_env /= -2i32;
    });
    let o = QuadOptions::new(prec, 35.0);
    let r = tanh_sinh(&mut fi, &Float::new(prec), &Float::with_val(prec, 1u32), &o).unwrap();
    let a = agree(&r.log_abs, &f(prec, LN_TS));
    assert!(-r.log10_rel_err() >= 35.0 && a >= 35.0, "{a}");
}

#[test]
fn impossible_request_is_a_precision_error() {
    // 100 digits with no refinement allowed (no error estimate possible): never a guess.
    let prec = crate::numeric::mp::bits_for_digits(100);
    let mut o = QuadOptions::new(prec, 100.0);
    o.max_level = 0;
    let r = ln_z_03(prec, &o);
    assert!(matches!(r, Err(Error::Precision { .. })), "{r:?}");
    // The same with the precision too low for the digits asked.
    let o = QuadOptions::new(64, 40.0);
    let r = ln_z_03(64, &o);
    assert!(matches!(r, Err(Error::Precision { .. })), "{r:?}");
}
