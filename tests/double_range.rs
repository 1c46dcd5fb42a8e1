//! Parameters beyond the range of a double (|x| below 4.9e-324 or above 1.8e308), given as
//! decimal text: where a route works in multiple precision it takes them; where they reach a
//! double (model parameters, which the samplers use; δ in the composition and the χ² profile) the
//! refusal says so and shows the value as given, never the 0 or inf its double rounds to.

use dpaudit::{divergence, Method, Pair, Scalar};

fn sc(x: &str) -> Scalar {
    x.parse().unwrap()
}

/// ε(δ = 1e-400) of the Gaussian pair μ = 1: the root of Φ(1/2 − ε) − e^ε Φ(−1/2 − ε) = 1e-400,
/// 43.2219132034561060264743345221883… (mpmath 1.3, 60 digits, `findroot` on the log of the
/// profile: on the profile itself its absolute tolerance takes any point below 1e-300 for a root).
#[test]
fn eps_for_delta_takes_a_delta_below_the_double_range() {
    const EXACT: f64 = 43.221_913_203_456_106;
    let delta = sc("1e-400");
    for pair in [
        Pair::gaussian(sc("0"), sc("1"), sc("1")).unwrap(),
        Pair::gaussian_dd(sc("1"), sc("1"), sc("1"), 3).unwrap(),
    ] {
        for method in [Method::ClosedForm, Method::Quadrature] {
            let e = divergence::eps_for_delta(&pair, &delta, 15, method).unwrap();
            assert!(e.digits >= 15);
            let rel = (e.value.to_f64() - EXACT).abs() / EXACT;
            assert!(rel < 1e-15, "{pair} {method:?}: {}", e.value);
        }
    }
    // The χ² profile route of the d-dimensional pairs bounds its integrands in doubles: it
    // refuses such a δ, and says why.
    let dd = Pair::gaussian_dd(sc("1"), sc("1"), sc("1"), 3).unwrap();
    let e = divergence::eps_profile(&dd, &[sc("1e-5"), delta], 15).unwrap_err();
    assert!(
        e.to_string()
            .contains("delta = 1e-400: must be of magnitude"),
        "{e}"
    );
    // Outside (0, 1) exactly is still refused, however small the excess.
    let pair = Pair::gaussian(sc("0"), sc("1"), sc("1")).unwrap();
    for bad in ["0", "-1e-400", "1", "1.0000000000000000000001"] {
        let e = divergence::eps_for_delta(&pair, &sc(bad), 15, Method::Auto).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("invalid parameter delta = {bad}: must be in (0, 1)")
        );
    }
}

#[test]
fn model_parameters_beyond_the_double_range_are_refused_as_such() {
    for (sigma, mu2) in [("1e-400", "1"), ("1e400", "1"), ("1", "-1e400")] {
        let e = Pair::gaussian(sc("0"), sc(mu2), sc(sigma))
            .unwrap_err()
            .to_string();
        let (name, value) = if sigma == "1" {
            ("mu2", mu2)
        } else {
            ("sigma", sigma)
        };
        assert_eq!(
            e,
            format!(
                "invalid parameter {name} = {value}: must be of magnitude between 4.9e-324 and \
                 1.8e308 (it is used in double precision)"
            )
        );
    }
    // Subnormal doubles and exact zeros keep their values.
    assert!(Pair::gaussian(sc("-0"), sc("1e-320"), sc("1")).is_ok());
}

#[test]
fn the_composition_refuses_a_delta_its_doubles_cannot_hold() {
    use dpaudit::accounting::compose::{eps_for_delta, ComposeOptions, Release, Schedule};
    let sched = Schedule::new(vec![(Release::Gaussian { sigma: sc("10") }, 10)]).unwrap();
    let opts = ComposeOptions::default();
    let e = eps_for_delta(&sched, &sc("1e-400"), &opts)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "invalid parameter delta = 1e-400: must be of magnitude between 4.9e-324 and 1.8e308 \
         (it is used in double precision)"
    );
    let e = eps_for_delta(&sched, &sc("2"), &opts)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "invalid parameter delta = 2: must be in (0, 1)");
}
