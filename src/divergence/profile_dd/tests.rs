use super::{
    certify, hockey_stick_dd, hockey_stick_pair, pair_vars, profile_at, w_outer, Certified, Float,
    Pair, Scalar, Variances,
};
use crate::divergence::{closed, Method};
use crate::numeric::mp::agreement_digits;

fn f(x: &str) -> Float {
    Float::with_val(512, Float::parse(x).unwrap())
}
/// The variances of a pair given as σ1², σ2², σ1² − σ2², ‖μ1 − μ2‖ and d.
fn vars(s1: &Float, s2: &Float, diff: &Float, dist: &Float, d: u32) -> Variances {
    let (s1, s2, diff, dist) = (s1.clone(), s2.clone(), diff.clone(), dist.clone());
    Variances {
        s1,
        s2,
        diff,
        dist,
        d,
    }
}

fn sc(x: &str) -> Scalar {
    x.parse().unwrap()
}

/// Two values each certified to `digits` significant digits agree to `digits − log10 2` (each
/// error is at most half a unit in the last certified digit).
fn assert_agree(a: &Float, b: &Float, digits: u32, what: &str) {
    let ag = agreement_digits(a, b);
    assert!(
        ag >= f64::from(digits) - 2f64.log10(),
        "{what}: agreement {ag} ({a} vs {b})"
    );
}

/// Balle–Wang's δ(0.5) for Δ = 0.7, σ = 1.3, d = 10 (closed form, 30 digits), and the variances
/// σ² = 1.69 and (1.3 (1 + 1e-12))² of the κ → 0 tests.
fn balle_wang_and_near_variances() -> (Certified, Float, Float) {
    let bw_pair = Pair::gaussian_dd(sc("0.7"), sc("1.3"), sc("1.3"), 10).unwrap();
    let bw = closed::hockey_stick(&bw_pair, &sc("0.5"), 30).unwrap();
    let s2 = Float::with_val(512, f("1.3") * f("1.000000000001")).square();
    (bw, f("1.69"), s2)
}

/// κ → 0 in both orders, σ2 = 1.3 (1 + 1e-12) against σ1 = 1.3 (κ ≈ −2e-12) and mirrored
/// (κ ≈ +2e-12), d = 10, ε = 0.5, 20 digits. Both take the χ²-outer route (module `w_outer`).
/// References: mpmath, route C of `golden/generate_profile_dd.py` (χ² variable outer, normal cdf
/// inside) at dps 60 and dps 80 with a finer grid, agreeing to 59.7 digits (mirrored) and 59.8
/// (plain). Route C is an independent implementation of the same derivation as `w_outer`; the
/// derivation itself is checked against the t-outer route in [`routes_agree_near_equal_variances`]
/// and, at κ ≈ 1e-12, in the ignored [`kappa_to_zero_routes_agree_slow`]. Equal variances give
/// Balle–Wang's closed form, and the near-equal pairs sit within 1e-10 relative of it.
#[test]
fn kappa_to_zero_is_balle_wang() {
    let (bw, s, s2) = balle_wang_and_near_variances();
    let eq = hockey_stick_dd(&s, &s, &f("0.7"), 10, &f("0.5"), 30).unwrap();
    assert!(
        agreement_digits(&eq.value, &bw.value) >= 29.0,
        "{} {}",
        eq.value,
        bw.value
    );
    for (s1sq, s2sq, want) in [
        (
            &s,
            &s2,
            "0.064416132756836561865461654979349639284607441829094",
        ),
        (
            &s2,
            &s,
            "0.0644161327574327110239376625754891960307887737515",
        ),
    ] {
        let v = hockey_stick_dd(s1sq, s2sq, &f("0.7"), 10, &f("0.5"), 20).unwrap();
        assert_agree(&v.value, &f(want), 20, "against mpmath");
        // δ moves by O(1e-12) relative (d·u² and u terms): 10 to 16 digits of Balle–Wang.
        let ag_bw = agreement_digits(&v.value, &bw.value);
        assert!(
            (10.0..16.0).contains(&ag_bw),
            "agreement with Balle–Wang {ag_bw}"
        );
    }
}

/// The two routes (t outer with χ² tails inside; χ² variable outer with normal cdfs inside) are
/// different derivations of δ(ε); where both are cheap (|κ| = 1e-3, at the switch between
/// them) they must agree to the 20 digits each certifies, in both orders and at a δ of 6e-2 and
/// of 4e-9.
#[test]
fn routes_agree_near_equal_variances() {
    let s2 = f("1.69");
    for kap in ["1e-3", "-1e-3"] {
        let s1 = Float::with_val(512, &s2 * Float::with_val(512, f(kap) * 2u32 + 1u32));
        let diff = Float::with_val(512, &s1 - &s2);
        for eps in ["0.5", "3"] {
            let (e, dl) = (f(eps), f("0.7"));
            let v = vars(&s1, &s2, &diff, &dl, 10);
            let w = certify(20, "w", |p| w_outer::w_outer_at(&v, &e, 20, p)).unwrap();
            let t = certify(20, "t", |p| profile_at(&v, &e, 20, p, false)).unwrap();
            assert_agree(&w.value, &t.value, 20, &format!("κ {kap}, ε {eps}"));
        }
    }
}

/// The mirrored order with κ ≈ 1e-6 (σ1 = 1.3 (1 + 1e-6) > σ2 = 1.3, d = 10, ε = 0.5), against an
/// independent mpmath value: routes A (incomplete gamma, t outer) and C (χ² variable outer, no
/// incomplete gamma) of `golden/generate_profile_dd.py` at dps 60, which agree to 57 digits.
#[test]
fn kappa_small_mirrored() {
    let s1 = Float::with_val(512, f("1.3") * f("1.000001")).square();
    let v = hockey_stick_dd(&s1, &f("1.69"), &f("0.7"), 10, &f("0.5"), 12).unwrap();
    let want = f("0.06441634441310479659023844942153346578436");
    assert_agree(&v.value, &want, 12, "against mpmath");
}

/// κ ≈ 1e-12, both orders: the t-outer route (whose integrand switches over a width ≈ 1e-11
/// at each root: 49 s for both orders on the 2-core machine) agrees with the χ²-outer route
/// that the one-point δ(ε) now takes (≈ 0.1 s). Run with `--ignored`.
#[test]
#[ignore]
fn kappa_to_zero_routes_agree_slow() {
    let (_, s, s2) = balle_wang_and_near_variances();
    for (a, b) in [(&s, &s2), (&s2, &s)] {
        let diff = Float::with_val(512, a - b);
        let (e, dl) = (f("0.5"), f("0.7"));
        let v = vars(a, b, &diff, &dl, 10);
        let t = certify(20, "t", |p| profile_at(&v, &e, 20, p, false)).unwrap();
        let w = hockey_stick_dd(a, b, &dl, 10, &e, 20).unwrap();
        assert_agree(&w.value, &t.value, 20, "t outer vs chi2 outer");
    }
}

/// d = 1 with unequal variances against the exact 1-D closed form (docs/formulas.md §7.3).
#[test]
fn d1_matches_closed_form() {
    for (s1, s2) in [("1", "1.5"), ("1.5", "1")] {
        let p = Pair::gaussian_dd(sc("1"), sc(s1), sc(s2), 1).unwrap();
        let cf = closed::hockey_stick(&p, &sc("0.5"), 30).unwrap();
        let v = hockey_stick_pair(&p, &sc("0.5"), 30).unwrap();
        assert!(
            agreement_digits(&v.value, &cf.value) >= 29.0,
            "{} {}",
            v.value,
            cf.value
        );
    }
}

/// Independent mpmath references (python3 + mpmath, docs/formulas.md §7.4 with mpmath's `gammainc`,
/// dps 80, t-quadrature split every σ1/4 on ±24σ1 and at the roots; script ref74.py). The d = 7
/// (σ1² = 1, σ2² = 2.25) value was cross-checked by a 2-D route without incomplete gamma
/// functions (t × χ_7 radial density, nested mpmath quad at dps 20): 0.460730225670759.
#[test]
fn mpmath_references_d7_d1000() {
    let cases = [
        (
            "1",
            "2.25",
            7,
            "0.46073022567075893064805627951737226304181125780611",
        ),
        (
            "2.25",
            "1",
            7,
            "0.52112104165757999387346550696215228170010064949906",
        ),
        (
            "1",
            "1.01",
            1000,
            "0.24624526389884419262642713313633183497107193894915",
        ),
        (
            "1.01",
            "1",
            1000,
            "0.24815619819086167032183611812909035304952381934566",
        ),
    ];
    for (s1, s2, d, want) in cases {
        let v = hockey_stick_dd(&f(s1), &f(s2), &f("1"), d, &f("0.5"), 30).unwrap();
        let ag = agreement_digits(&v.value, &f(want));
        assert!(
            ag >= 30.0,
            "s1sq={s1} s2sq={s2} d={d}: {} vs {want} ({ag})",
            v.value
        );
    }
}

/// HMB-style RGM pair (d = 10, γ = 0.01, σ² = 1, n = 10 vs 10.1, ‖r1 − r2‖ = 0.1): both
/// orders through `divergence::hockey_stick(.., Auto)`, and ε(δ = 1e-5) below the RDP → DP
/// conversion ε_RDP(α) + log(1/δ)/(α − 1) of the exact Lemma-2 Rényi divergence (Mironov Prop. 3).
#[test]
fn rgm_pair_profile_and_eps() {
    let mk =
        |a: &str, b: &str| Pair::rgm(10, sc("0.01"), sc("1"), sc(a), sc(b), sc("0.1")).unwrap();
    for (a, b) in [("10", "10.1"), ("10.1", "10")] {
        let pair = mk(a, b);
        let mut prev = f64::INFINITY;
        for e in ["0.1", "1"] {
            let v = crate::divergence::hockey_stick(&pair, &sc(e), 20, Method::Auto).unwrap();
            let x = v.to_f64();
            if a == "10" && e == "1" {
                // σ1 < σ2 (κ < 0): L ≤ max ℓ = q0 + (d/2) ln(σ2²/σ1²) + b²/(4|a|) ≈ 0.2988 < 1
                // (hand computation from docs/formulas.md §7.4), so the region is empty: exact 0.
                assert!(v.value.is_zero(), "delta(1) = {x}");
                continue;
            }
            assert!(x > 0.0 && x < prev, "delta({e}) = {x}");
            prev = x;
            // the 20-digit and 12-digit values agree
            let w = hockey_stick_pair(&pair, &sc(e), 12).unwrap();
            assert!(agreement_digits(&w.value, &v.value) >= 12.0);
        }
        let delta = 1e-5f64;
        let eps = crate::divergence::eps_for_delta(&pair, &sc("0.00001"), 8, Method::Auto)
            .unwrap()
            .to_f64();
        assert!(eps > 0.0);
        // δ(ε(δ)) = δ
        let back = hockey_stick_pair(&pair, &Scalar::from_float(&Float::with_val(64, eps)), 8)
            .unwrap()
            .to_f64();
        assert!((back / delta - 1.0).abs() < 1e-6, "{back}");
        for alpha in ["2", "5", "20", "100"] {
            let r = crate::divergence::renyi(&pair, &sc(alpha), 15, Method::Auto)
                .unwrap()
                .to_f64();
            let al: f64 = alpha.parse().unwrap();
            let bound = r + (1.0 / delta).ln() / (al - 1.0);
            assert!(eps <= bound, "alpha {alpha}: eps {eps} > RDP bound {bound}");
        }
    }
}

/// The report's RGM pair in d = 100 (κ ≈ ∓0.008, both orders): the profile route's quadrature
/// (t outer, `fast`) and the χ²-outer route agree at δ ≈ 1e-2 and ≈ 1e-32, 12 digits each
/// (measured: 17.4–17.6 digits of agreement; on the d = 10 pair too, at ε ∈ {0.05, 0.5, 2, 5}).
#[test]
fn routes_agree_on_the_rgm_pair() {
    let pair = Pair::rgm(
        100,
        sc("0.001"),
        sc("5.625"),
        sc("100"),
        sc("101.25"),
        sc("1.25"),
    )
    .unwrap();
    for p in [pair.clone(), pair.swapped()] {
        let v = pair_vars(&p, 1024).unwrap();
        for eps in ["0.5", "5"] {
            let e = f(eps);
            let t = certify(12, "t", |pp| profile_at(&v, &e, 12, pp, true)).unwrap();
            let w = certify(12, "w", |pp| w_outer::w_outer_at(&v, &e, 12, pp)).unwrap();
            assert_agree(&t.value, &w.value, 12, &format!("ε {eps}"));
        }
    }
}
