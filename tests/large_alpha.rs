//! Issue 23, "silent wrong numbers": no infinity or NaN is ever reported as a certified value.
//!
//! The reproducers (truncated at α = 1e100 printed −inf, rectified and stochastic sign at
//! α = 1e10 printed +inf, all "certified to 15 digits") now give finite values by the closed form
//! (their digits are checked against golden/large_alpha.csv by tests/golden.rs) and either the same
//! value or a refusal in the user's terms by quadrature. D_α of unequal-variance Gaussians is
//! genuinely +∞ beyond σ1²/(σ1² − σ2²): refused with that order, not printed as `inf`.
use dpaudit::divergence::Method;
use dpaudit::eval::{evaluate, EvalOptions, Row};
use dpaudit::numeric::mp::agreement_digits;

fn row(quantity: &str, family: &str, params: &str) -> Row {
    Row {
        line: 2,
        id: "t".into(),
        quantity: quantity.into(),
        family: family.into(),
        params: params.into(),
    }
}

fn opts(method: Method) -> EvalOptions {
    EvalOptions {
        digits: 15,
        method,
        max_seconds: None,
    }
}

const REPRODUCERS: [(&str, &str); 3] = [
    ("truncated", "mu1=0;mu2=0.5;sigma=1;a=0;b=1;alpha=1e100"),
    ("rectified", "mu1=0;mu2=0.5;sigma=1;a=0;b=1;alpha=1e10"),
    ("stochastic_sign", "mu1=0;mu2=0.5;sigma=1;alpha=1e10"),
];

#[test]
fn issue_23_reproducers_are_finite_and_the_routes_agree_or_refuse_clearly() {
    for (family, params) in REPRODUCERS {
        let r = row("renyi", family, params);
        let closed = evaluate(&r, &opts(Method::ClosedForm))
            .unwrap_or_else(|e| panic!("{family} {params}: closed form failed: {e}"));
        assert!(closed.value.is_finite(), "{family}: {}", closed.value);
        assert_eq!(closed.digits, 15);
        // Bounded by D_∞ ≤ 0.483 for these pairs (the atom ratio log(Φ(0)/Φ(−0.5))), and > 0.2.
        let v = closed.value.to_f64();
        assert!(v > 0.2 && v < 0.4828, "{family}: {v}");
        match evaluate(&r, &opts(Method::Quadrature)) {
            Ok(q) => {
                let agree = agreement_digits(&q.value, &closed.value);
                assert!(agree >= 14.7, "{family}: routes agree to {agree:.1} digits");
            }
            Err(dpaudit::Error::Unsupported(m)) => {
                assert!(
                    m.starts_with("renyi by quadrature: alpha = ")
                        && m.contains("use --method closed-form"),
                    "{family}: {m}"
                );
            }
            Err(e) => panic!("{family}: quadrature neither agreed nor refused clearly: {e}"),
        }
    }
}

#[test]
fn infinite_renyi_of_unequal_variances_is_refused_with_the_critical_order() {
    // σ1 = 1.5, σ2 = 1: σ_α² = α − 2.25(α − 1) ≤ 0 from α = 2.25/1.25 = 1.8 on.
    let params = |alpha: &str| format!("dist=1;sigma1=1.5;sigma2=1;d=7;alpha={alpha}");
    for method in [Method::Auto, Method::ClosedForm, Method::Quadrature] {
        for alpha in ["2", "1e3", "1e300"] {
            match evaluate(&row("renyi", "gaussian_dd", &params(alpha)), &opts(method)) {
                Err(e) => {
                    let m = e.to_string();
                    assert!(
                        m.contains(&format!("renyi is +infinity at alpha = {alpha}"))
                            && m.contains("= 1.800000"),
                        "{method:?} {alpha}: {m}"
                    );
                }
                Ok(c) => panic!("{method:?} alpha {alpha}: certified {}", c.value),
            }
        }
        let below = evaluate(&row("renyi", "gaussian_dd", &params("1.7")), &opts(method))
            .unwrap_or_else(|e| panic!("{method:?}: {e}"));
        assert!(below.value.is_finite() && below.value > 0);
    }
}

#[test]
fn a_divergence_beyond_the_exponent_range_is_computed_not_printed_as_inf() {
    // σ = 1e-100: P2(−1) = Φ(−1e100) ≈ e^{−5e199}, so D_2 ≈ 5e199 (S = e^{5e199} has no MPFR
    // representation; the log-space form has). D_2 = log(Φ(0)²/Φ(1e100) + Φ(0)²/Φ(−1e100)).
    let r = row(
        "renyi",
        "stochastic_sign",
        "mu1=0;mu2=1;sigma=1e-100;alpha=2",
    );
    let c = evaluate(&r, &opts(Method::ClosedForm)).unwrap();
    let v = c.value.to_f64();
    // −log Φ(−t) = t²/2 + log t + log √(2π) + O(1/t²) with t = 1e100; minus log 4.
    let want = 5e199;
    assert!((v - want).abs() <= 1e-14 * want, "{v}");
}

#[test]
fn no_certified_value_is_negative_or_non_finite_on_extreme_rows() {
    // Rows that printed inf, -inf or a negative value before issue 23 (quadrature at σ = 1e100
    // lost the 1e-200 divergence to rounding and "certified" −7.6e-29).
    let rows = [
        ("renyi", "laplace", "mu1=0;mu2=1.3;scale=0.7;alpha=1e10"),
        ("renyi", "gaussian", "mu1=0;mu2=1;sigma=1e100;alpha=2"),
        (
            "renyi",
            "gaussian_dd",
            "dist=1;sigma1=1e100;sigma2=1e100;d=7;alpha=2",
        ),
        (
            "renyi",
            "stochastic_sign",
            "mu1=0;mu2=1;sigma=1;alpha=1e300",
        ),
        ("fisher", "stochastic_sign", "mu=1e100;sigma=1"),
    ];
    for (q, f, p) in rows {
        for method in [Method::ClosedForm, Method::Quadrature] {
            if let Ok(c) = evaluate(&row(q, f, p), &opts(method)) {
                assert!(
                    c.value.is_finite() && c.value >= 0,
                    "{q} {f} {p} {method:?}: certified {}",
                    c.value
                );
            }
        }
    }
}
