use super::{
    canonne_kamath_steinke, mironov, mironov_f64, optimize_over_alpha, optimize_over_alpha_f64,
    Conversion, Float,
};
use crate::bounds::test_support::s;
use crate::numeric::mp::agreement_digits;

#[test]
fn conversions_match_mpmath() {
    // mpmath 1.3.0, dps 60: eps_a + log(1/delta)/(a-1) and
    // eps_a + log((a-1)/a) - (log(delta) + log(a))/(a-1), for (eps_a, a, delta) = (1, 2, 1e-5)
    // and (0.3, 11.5, 1e-10).
    let cases = [
        (
            "1",
            "2",
            "1e-5",
            "12.5129254649702284200899572734218210380055074431",
            "11.1266311038503378012554930305054679018545071744",
        ),
        (
            "0.3",
            "11.5",
            "1e-10",
            "2.49293818380385303239808709969939448342962046536",
            "2.16936192603915449224531122822137812780830303978",
        ),
    ];
    for (e, a, d, m, c) in cases {
        let mv = mironov(&s(e), &s(a), &s(d), 45).unwrap();
        let cv = canonne_kamath_steinke(&s(e), &s(a), &s(d), 45).unwrap();
        let p = mv.value.prec();
        assert!(
            agreement_digits(&mv.value, &Float::with_val(p, Float::parse(m).unwrap())) >= 44.0,
            "{}",
            mv.value
        );
        assert!(
            agreement_digits(&cv.value, &Float::with_val(p, Float::parse(c).unwrap())) >= 44.0,
            "{}",
            cv.value
        );
        assert!(cv.value < mv.value);
    }
}

#[test]
fn bad_inputs_are_errors() {
    assert!(mironov(&s("1"), &s("1"), &s("0.1"), 20).is_err());
    assert!(mironov(&s("-1"), &s("2"), &s("0.1"), 20).is_err());
    assert!(canonne_kamath_steinke(&s("1"), &s("2"), &s("1"), 20).is_err());
    assert!(mironov_f64(1.0, 2.0, 0.0).is_err());
    let p = 100;
    let one = Float::with_val(p, 1u32);
    let r = optimize_over_alpha(
        |_| Ok(one.clone()),
        &Float::with_val(p, 0.5),
        &Float::with_val(p, 10),
        &Float::with_val(p, 0.1),
        Conversion::Mironov,
    );
    assert!(r.is_err());
}

#[test]
fn optimizer_finds_gaussian_optimum() {
    // Gaussian RDP ε_α = α μ²/2 with Mironov: min over α of α μ²/2 + L/(α−1) is at
    // α* = 1 + √(2L)/μ with value μ²/2 + μ√(2L) (calculus).
    let p = 200;
    let mu = Float::with_val(p, Float::parse("0.5").unwrap());
    let delta = Float::with_val(p, Float::parse("1e-6").unwrap());
    let l = Float::with_val(p, delta.ln_ref()).abs();
    let want_alpha = Float::with_val(p, Float::with_val(p, &l * 2u32).sqrt() / &mu) + 1u32;
    let want_eps = Float::with_val(p, mu.square_ref()) / 2u32
        + Float::with_val(p, &mu * Float::with_val(p, &l * 2u32).sqrt());
    let (eps, alpha) = optimize_over_alpha(
        |a| Ok(Float::with_val(p, a * Float::with_val(p, mu.square_ref())) / 2u32),
        &Float::with_val(p, 1.01),
        &Float::with_val(p, 1000),
        &delta,
        Conversion::Mironov,
    )
    .unwrap();
    assert!(
        agreement_digits(&eps, &want_eps) > 55.0,
        "{eps} vs {want_eps}"
    );
    assert!(agreement_digits(&alpha, &want_alpha) > 25.0);
    let (ef, af) =
        optimize_over_alpha_f64(|a| Ok(a * 0.125), 1.01, 1000.0, 1e-6, Conversion::Mironov)
            .unwrap();
    assert!((ef / want_eps.to_f64() - 1.0).abs() < 1e-14);
    assert!((af / want_alpha.to_f64() - 1.0).abs() < 1e-6);
}
