//! The exact worst case of the RGM over HMB Def. 2's admissible pairs (docs/formulas.md §5.4):
//! checked against the earlier numerical maximisation recorded in docs/formulas.md §5.2, against
//! the pairwise closed form (HMB Lemma 2) on seeded admissible pairs, against Theorem 1, and for
//! its conversion to (ε, δ).

use dpaudit::divergence;
use dpaudit::mechanisms::rgm::bounds as rgm;
use dpaudit::mechanisms::rgm::{rgm_worst_case_dp_eps, rgm_worst_case_renyi, RgmWorstCase};
use dpaudit::{Error, Method, Pair, Scalar};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha20Rng;

fn s(x: f64) -> Scalar {
    Scalar::from(x)
}

fn sd(t: &str) -> Scalar {
    t.parse().unwrap()
}

/// (η, R, γ, d, α, table value, σ² = γR²/η² written out): docs/formulas.md §5.2, "Audit of Theorem 1" — the maximum of the
/// exact D_α found by a numerical search over feasible (n1, n2, Δ) in mpmath (6 significant
/// digits), before the closed form existed.
const TABLE: [(&str, &str, &str, u32, &str, f64, &str); 5] = [
    ("0.01", "0", "0.01", 1, "2", 0.0104072, "0"),
    ("0.01", "1", "0.01", 10, "5", 0.0324530, "100"),
    ("0.1", "1", "0.1", 3, "2", 0.194235, "10"),
    ("0.001", "1", "0.0001", 1000, "20", 0.124467, "100"),
    ("0.05", "0.5", "1", 100, "1.5", 0.383955, "100"),
];

#[test]
fn reproduces_the_earlier_numerical_maximisation() {
    for (eta, r, gamma, d, alpha, table, sig2) in TABLE {
        let sig2 = sd(sig2);
        let v = rgm_worst_case_renyi(&sd(eta), &sd(gamma), &sig2, &sd(r), d, &sd(alpha), 20)
            .unwrap()
            .to_f64();
        // The table rounds to 6 significant digits: within half a unit of the 6th.
        let unit = 10f64.powf(table.abs().log10().floor() - 5.0);
        assert!(
            (v - table).abs() <= 0.5 * unit,
            "eta {eta} R {r} gamma {gamma} d {d} alpha {alpha}: {v} vs table {table}"
        );
    }
}

/// Seeded admissible pairs (both orders, norms 1e-3..1e8, σ² at and above its minimum): the
/// certified pairwise divergence never exceeds the worst case, and the collinear boundary pair at
/// norm 1e12 comes within 1e-9 (relative) of it: the supremum is approached, not just bounded.
/// (Both sides are certified to 15 digits at least, hence the 1e-13 slack at the top.)
#[test]
fn bounds_every_admissible_pair_and_is_approached_far_out() {
    let mut rng = ChaCha20Rng::seed_from_u64(20261123);
    for (eta, r, gamma, d, alpha, _, sig2_min) in TABLE {
        let (e, rr): (f64, f64) = (eta.parse().unwrap(), r.parse().unwrap());
        let g = sd(gamma);
        let al = sd(alpha);
        for kappa in [1.0, 2.0] {
            let sig2_min = sd(sig2_min);
            let sig2 = if kappa == 1.0 {
                sig2_min
            } else {
                s(sig2_min.f64() * kappa)
            };
            let star = rgm_worst_case_renyi(&sd(eta), &g, &sig2, &sd(r), d, &al, 15)
                .unwrap()
                .to_f64();
            for _ in 0..60 {
                let n1: f64 = 10f64.powf(rng.random_range(-3.0..8.0));
                let dmax = (e * e * n1 * n1 + rr * rr).sqrt();
                let up = rng.random_bool(0.5);
                let n2 = if up {
                    n1 + rng.random::<f64>() * dmax
                } else {
                    (n1 - rng.random::<f64>() * dmax).max(1e-3)
                };
                let m = n1.min(n2);
                let dist = (e * e * m * m + rr * rr).sqrt().min(n1 + n2) * (1.0 - 1e-12);
                if (n1 - n2).abs() > dist {
                    continue;
                }
                let pair = Pair::rgm(d, g.clone(), sig2.clone(), s(n1), s(n2), s(dist)).unwrap();
                let v = divergence::renyi(&pair, &al, 12, Method::ClosedForm)
                    .unwrap()
                    .to_f64();
                assert!(
                    v <= star * (1.0 + 1e-11),
                    "pair ({n1}, {n2}, {dist}) gives {v} > worst case {star}"
                );
            }
            // Far out on the boundary, the larger norm under P (case A of §5.4).
            let m = 1e12;
            let dist = (e * e * m * m + rr * rr).sqrt();
            let pair = Pair::rgm(d, g.clone(), sig2.clone(), s(m + dist), s(m), s(dist)).unwrap();
            let far = divergence::renyi(&pair, &al, 15, Method::ClosedForm)
                .unwrap()
                .to_f64();
            assert!(
                far <= star * (1.0 + 1e-13) && (star - far) / star < 1e-9,
                "eta {eta}: far pair {far} vs worst case {star}"
            );
        }
    }
}

/// Theorem 1 bounds the exact worst case at every admissible order (so it is never violated),
/// and outside Theorem 1's α-range the worst case is infinite.
#[test]
fn theorem1_is_above_it_and_its_range_is_where_it_is_finite() {
    for eta in ["1e-4", "0.003", "0.05", "0.2"] {
        for gamma in ["1e-3", "0.1", "3"] {
            for d in [1u32, 22, 1000] {
                let sup = rgm::theorem1_alpha_sup(&sd(eta), 30).unwrap().to_f64();
                let wc = RgmWorstCase::new(&sd(eta), &sd(gamma), &s(0.0), &s(0.0), d).unwrap();
                for frac in [1e-6, 0.01, 0.3, 0.9, 0.999] {
                    let alpha = s(1.0 + frac * (sup - 1.0));
                    let exact = wc.renyi(&alpha, 15).unwrap().to_f64();
                    let bound = rgm::theorem1_eps(&sd(eta), &sd(gamma), d, &alpha, 15)
                        .unwrap()
                        .to_f64();
                    assert!(
                        exact > 0.0 && exact <= bound,
                        "eta {eta} gamma {gamma} d {d} alpha {}: exact {exact} > Theorem 1 {bound}",
                        alpha
                    );
                }
                let beyond = wc.renyi(&s(sup * (1.0 + 1e-9)), 15).unwrap();
                assert!(beyond.value.is_infinite(), "eta {eta}: {}", beyond.value);
            }
        }
    }
}

/// The composed conversion: a valid (ε, δ) no larger than Theorem 1's optimised conversion of the
/// same composition (HMB eq. (45) at (η, γ/T, Td)), and the chosen order is a minimum of the
/// conversion on a grid of orders.
#[test]
fn composed_conversion_is_below_theorem1s_and_minimal_on_a_grid() {
    for (eta, gamma, d, steps) in [("0.003", "0.02", 22u32, 40u32), ("0.01", "0.5", 10, 1000)] {
        let wc = RgmWorstCase::new(&sd(eta), &sd(gamma), &s(0.0), &s(0.0), d).unwrap();
        let delta = sd("1e-5");
        let (eps, alpha) = rgm_worst_case_dp_eps(&wc, steps, &delta, 12).unwrap();
        let t = f64::from(steps);
        let g = sd(gamma).f64();
        let (thm, _) = rgm::optimized_dp_eps(&sd(eta), &s(g / t), d * steps, &delta, 12).unwrap();
        assert!(
            eps.to_f64() < thm.to_f64(),
            "{} vs {}",
            eps.to_f64(),
            thm.to_f64()
        );
        let sup = rgm::theorem1_alpha_sup(&sd(eta), 20).unwrap().to_f64();
        let l = -(1e-5f64).ln();
        for i in 1..200 {
            let a = 1.0 + (sup - 1.0) * f64::from(i) / 200.0;
            let at = t * wc.renyi(&s(a), 15).unwrap().to_f64() + l / (a - 1.0);
            assert!(
                eps.to_f64() <= at * (1.0 + 1e-9),
                "alpha {a}: {at} < {} at {alpha}",
                eps.to_f64()
            );
        }
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let one = s(1.0);
    // σ² below γR²/η².
    let e = RgmWorstCase::new(&sd("0.1"), &sd("0.1"), &sd("9.99"), &one, 3).unwrap_err();
    assert!(matches!(e, Error::OutsideValidity { .. }), "{e}");
    assert!(e.to_string().contains("sigma2"), "{e}");
    RgmWorstCase::new(&sd("0.1"), &sd("0.1"), &sd("10"), &one, 3).unwrap();
    for (eta, gamma, sig2, r, d) in [
        (0.0, 0.1, 1.0, 0.0, 3),
        (f64::NAN, 0.1, 1.0, 0.0, 3),
        (0.1, 0.0, 1.0, 0.0, 3),
        (0.1, 0.1, -1.0, 0.0, 3),
        (0.1, 0.1, 1.0, f64::INFINITY, 3),
        (0.1, 0.1, 1.0, 0.0, 0),
    ] {
        let e = RgmWorstCase::new(&s(eta), &s(gamma), &s(sig2), &s(r), d).unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { .. }), "{e}");
    }
    let wc = RgmWorstCase::new(&sd("0.1"), &sd("0.1"), &one, &s(0.0), 3).unwrap();
    for a in [1.0, 0.5, f64::NAN] {
        assert!(matches!(
            wc.renyi(&s(a), 10),
            Err(Error::InvalidParameter { .. })
        ));
    }
    for dl in [0.0, 1.0, f64::NAN] {
        assert!(rgm_worst_case_dp_eps(&wc, 10, &s(dl), 10).is_err());
    }
    assert!(rgm_worst_case_dp_eps(&wc, 0, &sd("1e-5"), 10).is_err());
}
