//! Orderings the papers prove, checked as properties over random parameters (proptest).
//!
//! Each property is a theorem: a failure is a bug in an implementation (or in the theorem).
//! Values come from the closed-form route at 20 certified digits and are compared as `rug`
//! floats (never rounded to f64 first); comparisons allow only the certified error (relative
//! 1e-18: two values each within 1e-20 relative), never more.

use dpaudit::divergence::{self, Location, Method, Pair};
use dpaudit::Scalar;
use proptest::prelude::*;
use rug::float::Constant;
use rug::Float;

const DIGITS: u32 = 20;
/// Slack for comparing two values each certified to 20 digits.
const REL: f64 = 1e-18;
/// Working precision of the comparisons (the certified values carry more than 20 digits).
const PREC: u32 = 160;

fn s(x: f64) -> Scalar {
    Scalar::from(x)
}

fn fl(x: f64) -> Float {
    Float::with_val(PREC, x)
}

fn renyi(pair: &Pair, alpha: f64) -> Float {
    fl(0.0)
        + divergence::renyi(pair, &s(alpha), DIGITS, Method::ClosedForm)
            .unwrap()
            .value
}

fn kl(pair: &Pair) -> Float {
    fl(0.0)
        + divergence::kl(pair, DIGITS, Method::ClosedForm)
            .unwrap()
            .value
}

/// a ≤ b up to the certified error, in `rug` precision.
fn le(a: &Float, b: &Float) -> bool {
    let m = Float::with_val(PREC, a.abs_ref()).max(&Float::with_val(PREC, b.abs_ref()));
    *a <= Float::with_val(PREC, b + m * REL)
}

/// Locations up to 15σ from a support [a, a + w].
fn bounded() -> impl Strategy<Value = (f64, f64, f64, f64, f64)> {
    (
        -15.0f64..15.0,
        -15.0f64..15.0,
        0.1f64..4.0,
        -3.0f64..3.0,
        0.01f64..8.0,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

    /// D_α ≥ 0 and nondecreasing in α (van Erven & Harremoës 2014, Thm 3), for every family.
    #[test]
    fn renyi_nonnegative_and_monotone_in_alpha(
        (m1, m2, sigma, a, w) in bounded(),
        a1 in 1.001f64..20.0, da in 0.0f64..30.0,
    ) {
        let b = a + w;
        let pairs = [
            Pair::gaussian(s(m1), s(m2), s(sigma)).unwrap(),
            Pair::rectified(s(m1), s(m2), s(sigma), s(a), s(b)).unwrap(),
            Pair::truncated(s(m1), s(m2), s(sigma), s(a), s(b)).unwrap(),
            Pair::stochastic_sign(s(m1), s(m2), s(sigma)).unwrap(),
        ];
        for p in &pairs {
            let lo = renyi(p, a1);
            let hi = renyi(p, a1 + da);
            prop_assert!(lo >= 0.0, "{p:?}: D_{a1} = {lo}");
            prop_assert!(le(&lo, &hi), "{p:?}: D_{a1} = {lo} > D_{} = {hi}", a1 + da);
            let k = kl(p);
            prop_assert!(k >= 0.0 && le(&k, &lo), "{p:?}: KL = {k}, D_{a1} = {lo}");
        }
    }

    /// Data processing (HG Prop. 4.6): rectified ≤ Gaussian; truncated ≤ Gaussian for every pair
    /// (HG Thm 4.9, docs/formulas.md §8.2); sign ≤ rectified when a < 0 < b (post-processing, §8.3).
    #[test]
    fn bounded_support_never_exceeds_gaussian(
        (m1, m2, sigma, a, w) in bounded(), alpha in 1.001f64..50.0,
    ) {
        let b = a + w;
        let g = renyi(&Pair::gaussian(s(m1), s(m2), s(sigma)).unwrap(), alpha);
        let r = renyi(&Pair::rectified(s(m1), s(m2), s(sigma), s(a), s(b)).unwrap(), alpha);
        let t = renyi(&Pair::truncated(s(m1), s(m2), s(sigma), s(a), s(b)).unwrap(), alpha);
        prop_assert!(le(&r, &g), "rectified {r} > gaussian {g}");
        prop_assert!(le(&t, &g), "truncated {t} > gaussian {g}");
        if a < 0.0 && b > 0.0 {
            let sg = renyi(&Pair::stochastic_sign(s(m1), s(m2), s(sigma)).unwrap(), alpha);
            prop_assert!(le(&sg, &r), "sign {sg} > rectified {r}");
        }
    }

    /// Fisher information of the bounded mechanisms ≤ 1/σ² (HG Thm 4.2); sign ≤ 2/(πσ²).
    #[test]
    fn fisher_information_bounds(mu in -45.0f64..45.0, sigma in 0.1f64..4.0, a in -3.0f64..3.0, w in 0.01f64..8.0) {
        let b = a + w;
        let cap = Float::with_val(PREC, fl(sigma).square_ref()).recip();
        for fam in ["rectified", "truncated"] {
            let loc = Location::new(fam, s(mu), s(sigma), Some((s(a), s(b)))).unwrap();
            let i = fl(0.0) + divergence::fisher(&loc, DIGITS, Method::ClosedForm).unwrap().value;
            prop_assert!(i >= 0.0 && le(&i, &cap), "{fam} I = {i}, 1/σ² = {cap}");
        }
        let loc = Location::new("stochastic_sign", s(mu), s(sigma), None).unwrap();
        let i = fl(0.0) + divergence::fisher(&loc, DIGITS, Method::ClosedForm).unwrap().value;
        let sign_cap = Float::with_val(PREC, 2u32) / Float::with_val(PREC, Constant::Pi) * &cap;
        prop_assert!(le(&i, &sign_cap), "sign I = {i}");
    }

    /// The privacy profile is a valid DP curve: δ(ε) ∈ [0, 1], nonincreasing in ε, and Mironov's
    /// Prop. 3 holds with exact quantities: δ(D_α + log(1/δ₀)/(α−1)) ≤ δ₀ (docs/formulas.md §7.5).
    #[test]
    fn profile_is_consistent_with_rdp(
        (m1, m2, sigma, a, w) in bounded(), alpha in 1.5f64..20.0, e1 in 0.0f64..3.0, de in 0.0f64..3.0,
        ld in 2.0f64..12.0,
    ) {
        let b = a + w;
        let d0 = 10f64.powf(-ld);
        for p in [
            Pair::gaussian(s(m1), s(m2), s(sigma)).unwrap(),
            Pair::rectified(s(m1), s(m2), s(sigma), s(a), s(b)).unwrap(),
            Pair::truncated(s(m1), s(m2), s(sigma), s(a), s(b)).unwrap(),
            Pair::stochastic_sign(s(m1), s(m2), s(sigma)).unwrap(),
        ] {
            let h = |e: &Scalar| fl(0.0) + divergence::hockey_stick(&p, e, DIGITS, Method::ClosedForm).unwrap().value;
            let (h1, h2) = (h(&s(e1)), h(&s(e1 + de)));
            prop_assert!((0.0..=1.0).contains(&h1) && le(&h2, &h1), "{p:?}: δ({e1}) = {h1}, δ({}) = {h2}", e1 + de);
            // ε = D_α + ln(1/δ₀)/(α − 1), formed in rug and passed exactly (no f64 rounding of ε).
            let eps = renyi(&p, alpha) - Float::with_val(PREC, fl(d0).ln_ref()) / (alpha - 1.0);
            let he = h(&Scalar::from_float(&eps));
            prop_assert!(le(&he, &fl(d0)), "{p:?}: δ({eps}) = {he} > {d0}");
        }
    }

    /// HMB Lemma 2: the isotropic formula equals the sum of d one-dimensional divergences
    /// (the d−1 coordinates with equal means plus the one carrying the distance).
    #[test]
    fn lemma2_is_additive_over_coordinates(dist in 0.0f64..5.0, s1 in 0.5f64..2.0, r in 0.8f64..1.25, d in 1u32..50, alpha in 1.01f64..3.0) {
        let s2 = s1 * r;
        let sa2 = alpha * s2 * s2 + (1.0 - alpha) * s1 * s1;
        prop_assume!(sa2 > 0.05);
        let full = renyi(&Pair::gaussian_dd(s(dist), s(s1), s(s2), d).unwrap(), alpha);
        let one = renyi(&Pair::gaussian_dd(s(dist), s(s1), s(s2), 1).unwrap(), alpha);
        let zero = renyi(&Pair::gaussian_dd(s(0.0), s(s1), s(s2), 1).unwrap(), alpha);
        let sum = Float::with_val(PREC, &one + zero * f64::from(d - 1));
        // Each value carries 20 certified digits: the sum of d − 1 equal terms and one more is
        // within (d + 1)·1e-20 relative of its exact value, far below 1e-16.
        let gap = Float::with_val(PREC, &full - &sum).abs();
        prop_assert!(gap <= Float::with_val(PREC, full.abs_ref()) * 1e-16, "{full} vs {sum}");
    }
}

mod rgm {
    use super::*;
    use dpaudit::mechanisms::rgm::bounds::{
        lemma1_ratio_bounds, lemma1_sigma2_min, relative_sensitivity_holds, theorem1_alpha_sup,
        theorem1_eps, theorem1_sigma2_min,
    };

    /// An admissible RGM setup: (η, R, γ, d, α) inside Theorem 1's range, σ² at or above both
    /// Theorem 1's and Lemma 1's minimum, and a pair (n1, n2, dist) satisfying the relative
    /// sensitivity (HMB Def. 2, eq. (3)) in both directions and the triangle inequalities.
    #[allow(clippy::type_complexity)]
    fn setup() -> impl Strategy<Value = (f64, f64, f64, u32, f64, f64, f64, f64, f64, f64)> {
        (
            1e-3f64..0.3,                              // eta
            0.0f64..2.0,                               // R
            1e-4f64..1.0,                              // gamma
            1u32..200,                                 // d
            0.0f64..0.98,                              // alpha fraction of the range
            prop_oneof![Just(0.0f64), 0.0f64..3.0],    // sigma² slack (0: at its minimum)
            prop_oneof![0.0f64..100.0, 100.0f64..1e6], // n1 (the supremum is approached as n1 grows)
            // dist as a fraction of the allowed distance; half the cases on the boundary,
            // where the supremum over pairs is attained (docs/formulas.md §5.2)
            prop_oneof![Just(1.0f64), 0.0f64..1.0],
            // where n2 lies within the triangle; +1 (n2 = n1 + dist) is the worst case
            prop_oneof![Just(1.0f64), -1.0f64..1.0],
        )
            .prop_map(|(eta, r, gamma, d, frac, slack, n1, tdist, s)| {
                let sup = theorem1_alpha_sup(&Scalar::from(eta), 17).unwrap().to_f64();
                let alpha = 1.0 + frac * (sup - 1.0);
                let dist = tdist * (eta * eta * n1 * n1 + r * r).sqrt();
                let n2 = (n1 + s * dist).max(0.0);
                (eta, r, gamma, d, alpha, slack, n1, n2, dist, sup)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

        /// Exact D_α (HMB Lemma 2) of every admissible pair ≤ HMB Theorem 1, eq. (5), both orders.
        #[test]
        fn exact_rgm_divergence_within_theorem1(
            (eta, r, gamma, d, alpha, slack, n1, n2, dist, _sup) in setup(),
        ) {
            let (se, sr, sg, sa) = (s(eta), s(r), s(gamma), s(alpha));
            prop_assume!(alpha > 1.0 + 1e-9);
            prop_assume!(relative_sensitivity_holds(&se, &sr, &s(n1), &s(n2), &s(dist)));
            let m1 = theorem1_sigma2_min(&se, &sr, &sg, &sa, 17).unwrap().to_f64();
            let m2 = lemma1_sigma2_min(&se, &sr, &sg, 17).unwrap().to_f64();
            let sigma2 = m1.max(m2).max(1e-3) * (1.0 + slack);
            let bound = fl(0.0) + theorem1_eps(&se, &sg, d, &sa, DIGITS).unwrap().value;
            let pair = Pair::rgm(d, sg.clone(), s(sigma2), s(n1), s(n2), s(dist));
            prop_assume!(pair.is_ok()); // f64 rounding of n2 can leave the triangle
            let pair = pair.unwrap();
            for p in [pair.clone(), pair.swapped()] {
                let exact = renyi(&p, alpha);
                prop_assert!(le(&exact, &bound), "{p:?}: D_{alpha} = {exact} > Theorem 1 {bound}");
            }
        }

        /// HMB Lemma 1: with σ² above its minimum, every admissible pair has variance ratio
        /// σ1²/σ2² within [(1+η)^-2, (1+η)^2].
        #[test]
        fn lemma1_variance_ratio(
            (eta, r, gamma, _d, _alpha, slack, n1, n2, dist, _sup) in setup(),
        ) {
            let (se, sr, sg) = (s(eta), s(r), s(gamma));
            prop_assume!(relative_sensitivity_holds(&se, &sr, &s(n1), &s(n2), &s(dist)));
            let sigma2 = lemma1_sigma2_min(&se, &sr, &sg, 17).unwrap().to_f64().max(1e-3) * (1.0 + slack);
            let (lo, hi) = lemma1_ratio_bounds(&se, 17).unwrap();
            let ratio = (gamma * n1 * n1 + sigma2) / (gamma * n2 * n2 + sigma2);
            prop_assert!(ratio >= lo.to_f64() * (1.0 - 1e-12) && ratio <= hi.to_f64() * (1.0 + 1e-12),
                "ratio {ratio} outside [{}, {}]", lo.to_f64(), hi.to_f64());
        }
    }
}
