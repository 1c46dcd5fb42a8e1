use super::{
    check_lemma1_setup, check_theorem1_setup, corollary1_eps, corollary1_eps_f64, eq6_eps,
    lemma1_ratio_bounds, lemma1_sigma2_min, optimized_dp_eps, optimized_dp_eps_f64,
    relative_sensitivity_holds, tcdp, theorem1_alpha_sup, theorem1_eps, theorem1_eps_f64,
    theorem1_sigma2_min, Error, Float, Scalar, TcdpForm, COR1, THM1, THM1_SIGMA,
};
use crate::bounds::test_support::{agree, f, s};
use crate::numeric::mp::agreement_digits;

// Reference values below: mpmath 1.3.0, mp.dps = 60, evaluating the printed formulas of HMB
// (eq. (5), (44), (45) minimised by findroot on g'(α) = 0) — independent of this code.

#[test]
fn theorem1_matches_math_table() {
    // docs/formulas.md §5.2 table rows (η, γ, d, α) and eq. (5) at 40 digits (mpmath, dps 60); the
    // table itself prints 6 digits: 0.0106257, 0.0383898, 0.329219, 0.145658, 0.917640.
    let rows = [
        (
            "0.01",
            "0.01",
            1,
            "2",
            "0.0106257073180936830288804980100010205123",
        ),
        (
            "0.01",
            "0.01",
            10,
            "5",
            "0.03838980537733797303175293605915615484993",
        ),
        (
            "0.1",
            "0.1",
            3,
            "2",
            "0.3292189873417721518987341772151898734177",
        ),
        (
            "0.001",
            "1e-4",
            1000,
            "20",
            "0.1456578976715860292458998670451911212384",
        ),
        (
            "0.05",
            "1",
            100,
            "1.5",
            "0.9176395750988142292490118577075098814229",
        ),
    ];
    for (eta, gamma, d, alpha, want) in rows {
        let e = theorem1_eps(&s(eta), &s(gamma), d, &s(alpha), 40).unwrap();
        assert!(
            agree(&e, want) >= 39.0,
            "{eta} {gamma} {d} {alpha}: {}",
            e.value
        );
        let fast = theorem1_eps_f64(
            eta.parse().unwrap(),
            gamma.parse().unwrap(),
            d,
            alpha.parse().unwrap(),
        )
        .unwrap();
        assert!((fast / e.to_f64() - 1.0).abs() < 1e-14);
    }
}

#[test]
fn paper_example_corollary1_and_eq45() {
    // docs/formulas.md §5.3 (mpmath): the paper prints "ε ≈ 0.86".
    let (eta, gamma, delta) = (s("1e-3"), s("1e-4"), s("1e-8"));
    let c = corollary1_eps(&eta, &gamma, 10, &delta, 38).unwrap();
    assert!(
        agree(&c, "0.87014673572318505892543930225914588240") >= 37.0,
        "{}",
        c.value
    );
    let (e, a) = optimized_dp_eps(&eta, &gamma, 10, &delta, 20).unwrap();
    assert!(agree(&e, "0.65067524988341781706") >= 19.5, "{}", e.value);
    assert!(agree(&a, "54.978832699664917815") >= 19.5, "{}", a.value);
    // mpmath findroot on g'(α) (40 digits).
    let (e40, a40) = optimized_dp_eps(&eta, &gamma, 10, &delta, 40).unwrap();
    assert!(agree(&e40, "0.6506752498834178170645168792579447085992") >= 39.0);
    assert!(agree(&a40, "54.97883269966491781469828840259463682097") >= 39.0);
    let (ef, af) = optimized_dp_eps_f64(1e-3, 1e-4, 10, 1e-8).unwrap();
    assert!(
        (ef - 0.650_675_249_883_417_8).abs() < 1e-13 && (af - 54.978_832_699_664_92).abs() < 1e-9
    );
    assert!(
        (corollary1_eps_f64(1e-3, 1e-4, 10, 1e-8).unwrap() - 0.870_146_735_723_185_1).abs() < 1e-14
    );
}

#[test]
fn paper_example_eq45_by_golden_section() {
    // Independent route to the eq. (45) optimum: numerical minimisation (grid + golden
    // section in rug) of g(α) = ε₅(α) + log(1/δ)/(α−1) over Theorem 1's range.
    use crate::bounds::conversion::{optimize_over_alpha, Conversion};
    let (eta, gamma, delta) = (s("1e-3"), s("1e-4"), s("1e-8"));
    let p = 256;
    let sup = theorem1_alpha_sup(&eta, 40).unwrap().value;
    let lo = Float::with_val(p, Float::parse("1.000001").unwrap());
    let hi = Float::with_val(p, &sup - 1e-6);
    let (num, alpha) = optimize_over_alpha(
        |a| {
            let a_s: Scalar = a.to_string_radix(10, Some(80)).parse().unwrap();
            theorem1_eps(&eta, &gamma, 10, &a_s, 40).map(|c| c.value)
        },
        &lo,
        &hi,
        &delta.mp(p),
        Conversion::Mironov,
    )
    .unwrap();
    let want = f(p, "0.6506752498834178170645168792579447085992");
    assert!(agreement_digits(&num, &want) >= 38.0, "{num}");
    assert!(agreement_digits(&alpha, &f(p, "54.97883269966491781469828840259463682097")) >= 18.0);
}

#[test]
fn more_corollary_and_eq45_points() {
    // (η, γ, d, δ): Cor. 1 (first disjunct holds), eq. (45) min and α*; mpmath dps 60.
    let c = corollary1_eps(&s("0.01"), &s("1e-3"), 5, &s("1e-5"), 38).unwrap();
    assert!(agree(&c, "2.27002438974300620187332064457291204426") >= 37.0);
    let (e, a) = optimized_dp_eps(&s("0.01"), &s("1e-3"), 5, &s("1e-5"), 38).unwrap();
    assert!(agree(&e, "1.830751806558512577826206595391279658878") >= 37.0);
    assert!(agree(&a, "12.44920331017130559473064019227185720382") >= 37.0);
    // Corollary 1's assumption fails here (both disjuncts), eq. (45) is still available.
    let err = corollary1_eps(&s("0.1"), &s("0.01"), 2, &s("1e-3"), 30).unwrap_err();
    assert!(
        matches!(err, Error::OutsideValidity { ref theorem, .. } if theorem == COR1),
        "{err}"
    );
    let (e, a) = optimized_dp_eps(&s("0.1"), &s("0.01"), 2, &s("1e-3"), 38).unwrap();
    assert!(agree(&e, "6.305246944021425718155546904176476351053") >= 37.0);
    assert!(agree(&a, "2.918151009214186263876738617943477184496") >= 37.0);
}

#[test]
fn validity_errors_have_the_right_variant() {
    // α at and beyond (1+η)²/(2η+η²) = 1 + 1/(η(2+η)); η = 0.1: sup = 1 + 1/0.21.
    let e = theorem1_eps(&s("0.1"), &s("0.1"), 3, &s("6"), 30).unwrap_err();
    assert!(
        matches!(e, Error::OutsideValidity { ref theorem, ref condition }
        if theorem == THM1 && condition.contains("eta(2+eta)(alpha-1) < 1")),
        "{e}"
    );
    // η = 0.5: c = 1.25, sup α = 1.8 exactly; α = 1.8 must be rejected (strict).
    assert!(matches!(
        theorem1_eps(&s("0.5"), &s("1"), 1, &s("1.8"), 30),
        Err(Error::OutsideValidity { .. })
    ));
    assert!(theorem1_eps(&s("0.5"), &s("1"), 1, &s("1.79"), 30).is_ok());
    assert!(matches!(
        theorem1_eps_f64(0.5, 1.0, 1, 1.9),
        Err(Error::OutsideValidity { .. })
    ));
    // plain domain errors
    for (eta, gamma, d, alpha) in [
        ("0", "1", 1, "1.5"),
        ("0.1", "-1", 1, "1.5"),
        ("0.1", "1", 0, "1.5"),
        ("0.1", "1", 1, "1"),
    ] {
        assert!(
            matches!(
                theorem1_eps(&s(eta), &s(gamma), d, &s(alpha), 30),
                Err(Error::InvalidParameter { .. })
            ),
            "{eta} {gamma} {d} {alpha}"
        );
    }
    for bad in ["1", "1.5", "0", "-0.1"] {
        let e = corollary1_eps(&s("1e-3"), &s("1e-4"), 10, &s(bad), 30).unwrap_err();
        assert!(
            matches!(e, Error::InvalidParameter { ref name, .. } if name == "delta"),
            "{bad}: {e}"
        );
        assert!(optimized_dp_eps(&s("1e-3"), &s("1e-4"), 10, &s(bad), 30).is_err());
    }
    assert!(matches!(
        eq6_eps(&s("1"), &s("0.5"), 1, &s("2"), 30),
        Err(Error::OutsideValidity { .. })
    ));
    assert!(matches!(
        corollary1_eps_f64(0.1, 0.01, 2, 1e-3),
        Err(Error::OutsideValidity { .. })
    ));
}

#[test]
fn corollary1_second_disjunct_alone_suffices() {
    // γ = 0.1 violates 1/γ ≥ 4(2+η)² log(1/δ) (10 < 111.6); d ≥ 4 log(1/δ)/(1+η)² = 27.08 decides.
    assert!(corollary1_eps(&s("0.01"), &s("0.1"), 100, &s("1e-3"), 30).is_ok());
    assert!(corollary1_eps(&s("0.01"), &s("0.1"), 20, &s("1e-3"), 30).is_err());
}

#[test]
fn sigma2_conditions() {
    let (eta, gamma, r, alpha) = (s("0.1"), s("0.5"), s("2"), s("3"));
    // γ η⁻² [1 − η(α−1)] R² = 0.5·100·0.8·4 = 160 exactly.
    let m = theorem1_sigma2_min(&eta, &r, &gamma, &alpha, 40).unwrap();
    assert!(agree(&m, "160") >= 39.0);
    // Lemma 1: γ(1+1/η)R²/(2η+η²) = 0.5·11·4/0.21 = 104.761904…
    let l = lemma1_sigma2_min(&eta, &r, &gamma, 40).unwrap();
    assert!(agree(&l, "104.7619047619047619047619047619047619047619") >= 39.0);
    assert!(check_theorem1_setup(&eta, &r, &gamma, &s("160"), &alpha).is_ok());
    let e = check_theorem1_setup(&eta, &r, &gamma, &s("159.999"), &alpha).unwrap_err();
    assert!(
        matches!(e, Error::OutsideValidity { ref theorem, .. } if theorem == THM1_SIGMA),
        "{e}"
    );
    assert!(check_lemma1_setup(&eta, &r, &gamma, &s("104.77")).is_ok());
    assert!(matches!(
        check_lemma1_setup(&eta, &r, &gamma, &s("104.76")),
        Err(Error::OutsideValidity { .. })
    ));
    let (lo, hi) = lemma1_ratio_bounds(&s("0.1"), 40).unwrap();
    assert!(
        agree(&hi, "1.21") >= 39.0
            && agree(&lo, "0.8264462809917355371900826446280991735537") >= 39.0
    );
    let sup = theorem1_alpha_sup(&s("0.5"), 40).unwrap();
    assert!(agree(&sup, "1.8") >= 39.0);
}

#[test]
fn relative_sensitivity_both_directions() {
    let (eta, r) = (s("0.1"), s("1"));
    // dist² = 1 + 0.01·min(n²): with n1 = 10, n2 = 20, min = 100 → bound 2.
    assert!(relative_sensitivity_holds(
        &eta,
        &r,
        &s("10"),
        &s("20"),
        &s("1.41421356")
    ));
    assert!(!relative_sensitivity_holds(
        &eta,
        &r,
        &s("10"),
        &s("20"),
        &s("1.4143")
    ));
    // the same pair in the other order: symmetric
    assert!(!relative_sensitivity_holds(
        &eta,
        &r,
        &s("20"),
        &s("10"),
        &s("1.4143")
    ));
    // exact boundary: dist² = 2 exactly with dist = √2 is not decimal; use R = 0, η = 0.5:
    assert!(relative_sensitivity_holds(
        &s("0.5"),
        &s("0"),
        &s("4"),
        &s("6"),
        &s("2")
    ));
    assert!(!relative_sensitivity_holds(
        &s("0.5"),
        &s("0"),
        &s("4"),
        &s("6"),
        &s("2.000001")
    ));
    assert!(!relative_sensitivity_holds(
        &s("-0.5"),
        &s("0"),
        &s("4"),
        &s("6"),
        &s("1")
    ));
}

#[test]
fn tcdp_forms_paper_example() {
    let (eta, gamma) = (s("1e-3"), s("1e-4"));
    let t = tcdp(TcdpForm::Theorem1, &eta, &gamma, 10, 30).unwrap();
    // ρ = χ = 0.01004012013006001 exactly; ω = 1 + 1/(2·0.002001) (mpmath).
    assert!(agree(&t.rho, "0.01004012013006001") >= 29.0);
    assert!(agree(&t.omega, "250.8750624687656171914042978510744627686") >= 29.0);
    let g = tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &gamma, 1, 30).unwrap();
    assert!(agree(&g.rho, "0.010004") >= 29.0 && agree(&g.omega, "250") >= 29.0);
    assert!(matches!(
        tcdp(TcdpForm::GaussianSmoothSensitivity, &eta, &gamma, 10, 30),
        Err(Error::OutsideValidity { .. })
    ));
    assert!(matches!(
        tcdp(
            TcdpForm::GaussianSmoothSensitivity,
            &s("0.25"),
            &gamma,
            1,
            30
        ),
        Err(Error::OutsideValidity { .. })
    ));
    // The Theorem-1 tCDP statement really bounds eq. (5) on (1, ω): ε(α) ≤ ρα.
    for a in ["1.5", "10", "100", "250.8"] {
        let e = theorem1_eps(&eta, &gamma, 10, &s(a), 30).unwrap();
        let bound = Float::with_val(200, &t.rho.value * s(a).mp(200));
        assert!(e.value <= bound, "alpha={a}");
    }
}
