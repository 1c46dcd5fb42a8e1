use super::Truncated;

/// log Z against mpmath 1.3 at dps 50: log(ncdf(B) − ncdf(A)) (as ncdf(−A) − ncdf(−B) when A > 0) for
/// (μ, σ, a, b), independent of
/// this code.
#[test]
#[allow(clippy::excessive_precision)] // mpmath digits kept as produced
fn ln_normaliser_reference() {
    let cases: &[(f64, f64, f64, f64, f64)] = &[
        // (mu, sigma, a, b, log Z)
        (0.0, 1.0, -1.0, 1.0, -0.381_715_146_302_126_072_3),
        (-40.0, 1.0, 0.0, 1.0, -804.608_442_013_753_788_2),
        (1000.0, 1.0, -1.0, 1.0, -499_008.325_694_313_853_7),
    ];
    for &(mu, s, a, b, want) in cases {
        let t = Truncated::new(mu, s, a, b).unwrap();
        let got = t.ln_normaliser();
        assert!(
            ((got - want) / want).abs() < 1e-15,
            "mu={mu}: {got} vs {want}"
        );
    }
}

#[test]
fn method_choice_and_acceptance() {
    let far = Truncated::new(-40.0, 1.0, 0.0, 1.0).unwrap();
    assert_eq!(far.method_name(), "rayleigh");
    assert!(far.acceptance_rate() > 0.999);
    let far2 = Truncated::new(1040.0, 1.0, 0.0, 1000.0).unwrap();
    assert_eq!(far2.method_name(), "rayleigh");
    let central = Truncated::new(0.0, 1.0, -3.0, 3.0).unwrap();
    assert_eq!(central.method_name(), "normal");
    let narrow = Truncated::new(0.0, 1.0, 0.1, 0.2).unwrap();
    assert_eq!(narrow.method_name(), "uniform");
    // The acceptance rate is the analytic expected acceptance of the method the cost model
    // picks, not a timing (speed is measured by `cargo bench --bench samplers`). The cost
    // model trades acceptance for cheaper tries, so its worst case over positions and widths
    // is a property of the model; it is pinned here to three digits (≈ 0.227, at long
    // one-sided intervals starting ≈ 0.75σ beyond μ) so that a change of the model has to
    // change this line deliberately instead of sliding a floor (it was 0.35, then 0.25).
    let mut worst = 1.0f64;
    for i in -60..=60 {
        let a = i as f64 * 0.05;
        for w in [1e-6, 0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 50.0] {
            let t = Truncated::new(0.0, 1.0, a, a + w).unwrap();
            worst = worst.min(t.acceptance_rate());
            let m = Truncated::new(0.0, 1.0, -a - w, -a).unwrap();
            assert_eq!(
                t.acceptance_rate(),
                m.acceptance_rate(),
                "mirror a={a} w={w}"
            );
        }
    }
    assert!((0.226..0.228).contains(&worst), "worst acceptance {worst}");
}

#[test]
fn rejects_bad_parameters() {
    assert!(Truncated::new(f64::NAN, 1.0, 0.0, 1.0).is_err());
    assert!(Truncated::new(0.0, 0.0, 0.0, 1.0).is_err());
    assert!(Truncated::new(0.0, 1.0, 1.0, 1.0).is_err());
    assert!(Truncated::new(0.0, 1.0, 0.0, f64::INFINITY).is_err());
    assert!(Truncated::new(-1e300, 1e-10, 0.0, 1.0).is_err());
}
