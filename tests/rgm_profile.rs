//! The whole exact privacy profile of the report's RGM pairs in d = 10 and d = 100
//! (`divergence::eps_profile`, docs/formulas.md §7.4 "Profiles") against two independent
//! references: the slow certified route (`divergence::eps_for_delta`: a regula falsi of certified
//! quadratures with the library χ² functions and σ1/2 pieces, one point at a time) and, for equal
//! variances, Balle–Wang's closed form (docs/formulas.md §7.1). Speed is measured by
//! `cargo bench --bench quadrature` (rgm_profile_d10, rgm_profile_d100), not here.

use dpaudit::compare::curves::{delta_grid, exact_profile_dd, log_grid};
use dpaudit::divergence::{self, Method, Pair};
use dpaudit::numeric::mp::agreement_digits;
use dpaudit::{Error, Scalar};

fn sc(s: &str) -> Scalar {
    s.parse().unwrap()
}

/// The pair of `audits/rgm_d10.toml` / `audits/rgm_d100.toml` (γ = 0.001, σ² = 5.625,
/// ‖r1‖ = 100, ‖r2‖ = 101.25, ‖r1 − r2‖ = 1.25).
fn audit_pair(d: u32) -> Pair {
    Pair::rgm(
        d,
        sc("0.001"),
        sc("5.625"),
        sc("100"),
        sc("101.25"),
        sc("1.25"),
    )
    .unwrap()
}

/// 31 log-spaced δ in [1e-12, 0.1].
fn deltas31() -> Vec<Scalar> {
    log_grid(1e-12, 0.1, 31)
        .into_iter()
        .map(Scalar::from)
        .collect()
}

const DIGITS: u32 = 8;

/// Both values certify `DIGITS` digits, so they agree to DIGITS − log10(2).
fn assert_agree(what: &str, fast: &rug::Float, slow: &rug::Float) {
    let ag = agreement_digits(fast, slow);
    eprintln!(
        "{what}: {} vs {} ({ag:.2} digits)",
        fast.to_f64(),
        slow.to_f64()
    );
    assert!(
        ag >= f64::from(DIGITS) - 2f64.log10(),
        "{what}: profile {fast} vs slow route {slow} ({ag:.2} digits)"
    );
}

/// d = 10 and d = 100, both orders: 31 certified points each, nonincreasing in δ, and three of
/// them (δ = 1e-12, the middle, 0.1, alternating orders) against the slow certified route.
#[test]
fn profile_agrees_with_slow_route() {
    let deltas = deltas31();
    for d in [10u32, 100] {
        let pairs = [audit_pair(d), audit_pair(d).swapped()];
        for (o, pair) in pairs.iter().enumerate() {
            let prof = divergence::eps_profile(pair, &deltas, DIGITS).unwrap();
            assert_eq!(prof.len(), 31);
            for (i, w) in prof.windows(2).enumerate() {
                assert!(w[0].digits == DIGITS && w[1].digits == DIGITS);
                assert!(
                    w[1].value <= w[0].value && w[1].value > 0,
                    "d={d} order {o}: eps not decreasing at {i}: {} then {}",
                    w[0].value,
                    w[1].value
                );
            }
            for i in [0usize, 15, 30] {
                if (i / 15) % 2 != o {
                    continue;
                }
                let slow =
                    divergence::eps_for_delta(pair, &deltas[i], DIGITS, Method::Auto).unwrap();
                assert_agree(
                    &format!("d={d} order {o} delta={}", deltas[i]),
                    &prof[i].value,
                    &slow.value,
                );
            }
        }
    }
}

/// Equal variances (κ = 0, any d): the profile is the Gaussian mechanism's, whose ε(δ) is
/// Balle–Wang's closed form (docs/formulas.md §7.1), an independent route.
#[test]
fn equal_variances_are_balle_wang() {
    let dd = Pair::gaussian_dd(sc("1.25"), sc("3.9"), sc("3.9"), 10).unwrap();
    let g = Pair::gaussian(sc("0"), sc("1.25"), sc("3.9")).unwrap();
    let deltas: Vec<Scalar> = ["1e-12", "3e-9", "1e-5", "0.01", "0.1"]
        .iter()
        .map(|s| sc(s))
        .collect();
    let prof = divergence::eps_profile(&dd, &deltas, DIGITS).unwrap();
    for (dl, p) in deltas.iter().zip(&prof) {
        let bw = divergence::eps_for_delta(&g, dl, 20, Method::ClosedForm).unwrap();
        assert_agree(&format!("delta={dl}"), &p.value, &bw.value);
    }
}

/// The report's curve: the max of both orders at its 23 δ, and at the audited δ = 1e-5 the
/// three-way table's exact figure (README: 1.3302 for d = 10, 1.4015 for d = 100).
#[test]
fn report_curve_points() {
    for (d, at_audit) in [(10u32, 1.3302), (100, 1.4015)] {
        let grid = delta_grid(2);
        let curve = exact_profile_dd(&audit_pair(d), &grid, DIGITS).unwrap();
        assert_eq!(curve.len(), grid.len());
        let (_, e) = curve
            .iter()
            .copied()
            .find(|(dl, _)| (dl / 1e-5 - 1.0).abs() < 1e-9)
            .unwrap();
        assert!((e - at_audit).abs() < 5e-5, "d={d}: {e} vs {at_audit}");
    }
}

/// Bad input is a typed error naming the parameter and its value.
#[test]
fn profile_rejects_bad_input() {
    let p = audit_pair(10);
    for bad in ["0", "1", "-1e-5"] {
        let e = divergence::eps_profile(&p, &[sc("1e-5"), sc(bad)], 8).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("delta") && msg.contains(bad),
            "delta = {bad}: {msg}"
        );
    }
    let e = divergence::eps_profile(&p, &[sc("1e-5")], 0).unwrap_err();
    assert!(e.to_string().contains("digits"), "{e}");
    let g = Pair::gaussian(sc("0"), sc("1"), sc("1")).unwrap();
    assert!(matches!(
        divergence::eps_profile(&g, &[sc("1e-5")], 8),
        Err(Error::Unsupported(_))
    ));
    assert!(divergence::eps_profile(&p, &[], 8).unwrap().is_empty());
}
