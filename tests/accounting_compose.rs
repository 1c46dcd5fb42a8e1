//! The certified composition bracket (`accounting::compose`, docs/accounting.md#composition):
//! exact cases, independent routes, the peers' figures, calibration and bad input.

use dpaudit::accounting::{
    self, calibrate_sigma, composed_rdp, delta_for_eps, eps_for_delta, full_batch_eps, rdp_route,
    ComposeOptions, Order, Release, Schedule, SubsampledGaussian, Target,
};
use dpaudit::bounds::conversion::Conversion;
use dpaudit::Scalar;
use rug::ops::Pow;
use rug::Float;

fn s(x: &str) -> Scalar {
    x.parse().unwrap()
}

fn sg(q: &str, sigma: &str) -> SubsampledGaussian {
    SubsampledGaussian::new(s(q), s(sigma)).unwrap()
}

fn opts(digits: u32, force: bool) -> ComposeOptions {
    ComposeOptions {
        digits,
        force_inversion: force,
    }
}

fn contains(b: &accounting::Bracket, x: &Float) -> bool {
    b.lo <= *x && *x <= b.hi
}

/// q = 1 is exactly the Gaussian mechanism with mu = sqrt(T)/sigma: the general inversion route,
/// forced, must bracket the closed form (Balle & Wang 2018, Thm 8) with >= 30 digits.
#[test]
fn full_batch_inversion_agrees_with_the_closed_form_to_30_digits() {
    let exact = full_batch_eps(&s("10"), 1000, &s("1e-5"), 40).unwrap();
    let sched = Schedule::new(vec![(Release::Gaussian { sigma: s("10") }, 1000)]).unwrap();
    let b = eps_for_delta(&sched, &s("1e-5"), &opts(32, true)).unwrap();
    assert_eq!(b.route, "mgf inversion");
    assert!(
        contains(&b.value, &exact.value),
        "{:?} vs {}",
        b.value,
        exact.value
    );
    assert!(b.value.digits() >= 30, "only {} digits", b.value.digits());
    // The same through the subsampled release with q = 1 (merged into the Gaussian factor).
    let c = eps_for_delta(
        &Schedule::homogeneous(&sg("1", "10"), 1000).unwrap(),
        &s("1e-5"),
        &opts(32, false),
    )
    .unwrap();
    assert!(contains(&c.value, &exact.value));
}

/// Heterogeneous Gaussian releases compose to one Gaussian with 1/sigma^2 = sum T_j/sigma_j^2.
#[test]
fn heterogeneous_gaussians_match_the_merged_gaussian() {
    let parts = vec![
        (Release::Gaussian { sigma: s("2") }, 3),
        (Release::Gaussian { sigma: s("5") }, 7),
    ];
    let sched = Schedule::new(parts).unwrap();
    let forced = delta_for_eps(&sched, &s("1.5"), &opts(25, true)).unwrap();
    let closed = delta_for_eps(&sched, &s("1.5"), &opts(25, false)).unwrap();
    assert_eq!(closed.route, "gaussian closed form");
    assert!(
        contains(&forced.value, &closed.value.mid()),
        "{:?} vs {:?}",
        forced.value,
        closed.value
    );
    assert!(forced.value.digits() >= 22);
}

/// Checks the certified ε bracket [lo, hi] of `case` against one peer figure `v` of `method`:
/// inside PRV's bracket `prv`, at most a pessimistic PLD or an RDP value, at least an optimistic
/// PLD value. Returns whether the figure was one of these.
fn check_peer(case: &str, method: &str, v: f64, prv: Option<(f64, f64)>, lo: f64, hi: f64) -> bool {
    if let Some((plo, phi)) = prv {
        assert!(
            plo <= lo && hi <= phi,
            "{case}: [{lo}, {hi}] not inside PRV [{plo}, {phi}]"
        );
    } else if method.contains("pessimistic") || method.contains("RDP") {
        assert!(hi <= v, "{case}: {hi} above {method} {v}");
    } else if method.contains("optimistic") {
        assert!(
            v <= lo,
            "{case}: {method} {v} above the certified lower end {lo}"
        );
    } else {
        return false;
    }
    true
}

/// Tiny q at T = 100 (docs/accounting.md#damping; no answer within 30 s before): the 6-digit
/// brackets against the peers' figures of the grid survey (benches/peers_accounting_grid.csv,
/// dp_accounting 0.6.0 and prv-accountant 0.2.0, one run): below dp_accounting's pessimistic PLD
/// (an upper bound by construction; at σ = 0.6 it is only 6·10⁻⁷ relative above the certified
/// upper end, so a bracket shifted up in its 7th digit fails), above the optimistic PLD, inside
/// PRV's bracket.
#[test]
fn tiny_q_brackets_agree_with_the_grid_peers() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/peers_accounting_grid.csv"
    ))
    .unwrap();
    for (case, sigma) in [
        ("q0.001_s0.6_T100", "0.6"),
        ("q0.001_s2.0_T100", "2"),
        ("q0.001_s5.0_T100", "5"),
    ] {
        let b = eps_for_delta(
            &Schedule::homogeneous(&sg("0.001", sigma), 100).unwrap(),
            &s("1e-5"),
            &opts(6, false),
        )
        .unwrap()
        .value;
        assert!(b.digits() >= 6, "{case}: {} digits", b.digits());
        let (lo, hi) = (b.lo.to_f64(), b.hi.to_f64());
        let mut checked = 0;
        for line in text.lines().filter(|l| l.starts_with(&format!("{case},"))) {
            let f: Vec<&str> = line.split(',').collect();
            let (method, Ok(v)) = (f[6], f[7].parse::<f64>()) else {
                continue;
            };
            let prv = method
                .starts_with("PRV")
                .then(|| (f[8].parse().unwrap(), f[9].parse().unwrap()));
            checked += usize::from(check_peer(case, method, v, prv, lo, hi));
        }
        assert_eq!(checked, 3, "{case}: the grid CSV lacks the peers' rows");
    }
}

/// The peers' committed figures (benches/peers_accounting.csv): the certified bracket lies inside
/// PRV's bracket, below dp_accounting's pessimistic PLD and above its optimistic PLD, and below
/// the RDP route. Also the width target at T = 1e5 (relative width <= 1e-5).
#[test]
fn brackets_agree_with_the_peers_figures() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/benches/peers_accounting.csv"
    ))
    .unwrap();
    let mut checked = 0;
    for (case, q, sigma, steps) in [
        ("q0.01_s1_T1e4", "0.01", "1.0", 10_000u64),
        ("abadi_mnist", "0.004266666666666667", "1.1", 14_063),
        ("opacus_test", "0.04", "1.5", 2250),
        ("q0.01_s1_T1e5", "0.01", "1.0", 100_000),
        ("prv36_q0.125_s0.8_T1000", "0.125", "0.8", 1000),
        ("prv42_q0.2_s1_T1000", "0.2", "1", 1000),
    ] {
        let b = eps_for_delta(
            &Schedule::homogeneous(&sg(q, sigma), steps).unwrap(),
            &s("1e-5"),
            &opts(12, false),
        )
        .unwrap()
        .value;
        assert!(b.rel_width() <= 1e-10, "{case}: width {}", b.rel_width());
        for line in text.lines().filter(|l| l.starts_with(&format!("{case},"))) {
            let f: Vec<&str> = line.split(',').collect();
            let (method, eps) = (f[5], f[6].parse::<f64>());
            let Ok(eps) = eps else { continue };
            let (lo, hi) = (b.lo.to_f64(), b.hi.to_f64());
            let prv = method
                .starts_with("PRV")
                .then(|| (f[7].parse().unwrap(), f[8].parse().unwrap()));
            checked += usize::from(check_peer(case, method, eps, prv, lo, hi));
        }
    }
    assert!(checked >= 18, "only {checked} peer figures checked");
}

/// Single-step RDP from the inversion's moments against the golden mpmath values
/// (golden/accounting/subsampled_rdp.csv, 40 digits), at integer and fractional alpha, to >= 30
/// digits.
#[test]
fn composed_rdp_matches_the_mpmath_goldens() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/golden/accounting/subsampled_rdp.csv"
    ))
    .unwrap();
    let mut n = 0;
    for line in text.lines().skip(1).filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(',').collect();
        let (q, sigma, alpha, order, value, gdigits) = (f[0], f[1], f[2], f[3], f[4], f[5]);
        let m = sg(q, sigma);
        let sched = Schedule::homogeneous(&m, 1).unwrap();
        let b = composed_rdp(&sched, &s(alpha), 32).unwrap();
        let golden = Float::with_val(200, Float::parse(value).unwrap());
        // composed_rdp is the mechanism's RDP (max over both orders): it equals the golden of
        // the larger order and is >= the other.
        let other = accounting::renyi(
            &m,
            &s(alpha),
            if order == "remove" {
                Order::Add
            } else {
                Order::Remove
            },
            20,
        )
        .unwrap();
        // The golden certifies `gdigits` digits: it stands for [g(1 − 10^−d), g(1 + 10^−d)].
        let tol = Float::with_val(200, 10f64.powi(-gdigits.parse::<i32>().unwrap())) * &golden;
        let (glo, ghi) = (
            Float::with_val(200, &golden - &tol),
            Float::with_val(200, &golden + &tol),
        );
        if golden >= other.value {
            assert!(b.lo <= ghi && glo <= b.hi, "{line}: {:?}", b);
            assert!(b.digits() >= 30, "{line}: {} digits", b.digits());
            n += 1;
        } else {
            assert!(b.lo >= golden);
        }
    }
    assert!(n >= 5, "only {n} rows compared");
}

/// eps(delta) and delta(eps) are inverse: delta(eps_mid) brackets delta.
#[test]
fn eps_and_delta_round_trip() {
    let sched = Schedule::homogeneous(&sg("0.02", "0.9"), 3000).unwrap();
    let e = eps_for_delta(&sched, &s("1e-6"), &opts(15, false))
        .unwrap()
        .value;
    let mid = Scalar::from_float(&e.mid());
    let d = delta_for_eps(&sched, &mid, &opts(15, false)).unwrap().value;
    let target = Float::with_val(64, Float::parse("1e-6").unwrap());
    let rel = ((d.mid().to_f64() - 1e-6) / 1e-6).abs();
    assert!(rel < 1e-9, "delta(eps(1e-6)) = {:?}", d);
    assert!(d.lo.to_f64() <= target.to_f64() * (1.0 + 1e-9));
}

/// The RDP route reproduces Opacus' test value on Opacus' default orders (7.32911117143), and
/// the continuous optimum is no larger.
#[test]
fn rdp_route_reproduces_opacus_on_its_orders() {
    let sched = Schedule::homogeneous(&sg("0.04", "1.5"), 2250).unwrap();
    let orders = accounting::opacus_default_orders();
    let grid = rdp_route(
        &sched,
        &s("1e-5"),
        Some(&orders),
        Conversion::CanonneKamathSteinke,
        14,
    )
    .unwrap();
    // Opacus quotes 12 significant digits of a float64 computation.
    assert!(
        (grid.eps.to_f64() - 7.32911117143).abs() < 1e-10,
        "{}",
        grid.eps.value
    );
    // The independent single-step route (binomial closed form) agrees on the integer orders.
    let m = sg("0.04", "1.5");
    let ints: Vec<Scalar> = (2..64).map(|a| Scalar::from(f64::from(a))).collect();
    let old = accounting::rdp_eps_for_delta(
        &m,
        2250,
        &s("1e-5"),
        &ints,
        Conversion::CanonneKamathSteinke,
        14,
    )
    .unwrap();
    let grid = rdp_route(
        &sched,
        &s("1e-5"),
        Some(&ints),
        Conversion::CanonneKamathSteinke,
        14,
    )
    .unwrap();
    let diff = Float::with_val(128, &grid.eps.value - &old.eps.value)
        .abs()
        .to_f64();
    assert!(
        diff < 1e-13 * 7.33,
        "{} vs {}",
        grid.eps.value,
        old.eps.value
    );
    let cont = rdp_route(
        &sched,
        &s("1e-5"),
        None,
        Conversion::CanonneKamathSteinke,
        14,
    )
    .unwrap();
    assert!(cont.eps.value <= grid.eps.value);
    let b = eps_for_delta(&sched, &s("1e-5"), &opts(12, false))
        .unwrap()
        .value;
    assert!(
        b.hi < cont.eps.value,
        "the exact bracket is below every RDP conversion"
    );
}

/// Calibration round trip: sigma meets the target (eps_hi <= target) and sigma*(1 - 1e-4) does
/// not (eps_lo > target).
#[test]
fn calibration_round_trip() {
    let (q, steps, target) = (s("0.01"), 2000u64, 1.0);
    let t = Target::add_remove(target, s("1e-5")).unwrap();
    let c = calibrate_sigma(&t, &q, steps, 5e-5).unwrap();
    assert!(c.eps.hi.to_f64() <= target);
    let below = SubsampledGaussian::new(q.clone(), Scalar::from(c.sigma * (1.0 - 1e-4))).unwrap();
    let b = eps_for_delta(
        &Schedule::homogeneous(&below, steps).unwrap(),
        &s("1e-5"),
        &opts(12, false),
    )
    .unwrap();
    assert!(
        b.value.lo.to_f64() > target,
        "sigma {} - 1e-4 still meets the target: {:?}",
        c.sigma,
        b.value
    );
}

/// The peers' failure cases (PRV/Opacus "discrete mean differs", prv_accountant#36/#42) give a
/// certified bracket below the RDP route; delta as small as 1e-300 works.
#[test]
fn peer_failure_cases_and_tiny_delta() {
    for (q, sigma, steps, delta) in [
        ("0.125", "0.8", 1000u64, "1e-5"),
        ("0.2", "1", 1000, "1e-5"),
        ("0.01", "1", 10_000, "1e-300"),
    ] {
        let sched = Schedule::homogeneous(&sg(q, sigma), steps).unwrap();
        let b = eps_for_delta(&sched, &s(delta), &opts(12, false))
            .unwrap()
            .value;
        assert!(b.digits() >= 12, "{q} {sigma} {steps} {delta}: {:?}", b);
        let r = rdp_route(
            &sched,
            &s(delta),
            None,
            Conversion::CanonneKamathSteinke,
            10,
        )
        .unwrap();
        assert!(
            b.hi < r.eps.value,
            "{q} {sigma}: bracket {:?} above RDP {}",
            b,
            r.eps.value
        );
    }
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let sched = Schedule::homogeneous(&sg("0.01", "1"), 100).unwrap();
    for d in ["0", "1", "-1e-5", "2"] {
        assert!(
            eps_for_delta(&sched, &s(d), &opts(10, false)).is_err(),
            "delta {d}"
        );
    }
    for e in ["-1", "1e9"] {
        assert!(
            delta_for_eps(&sched, &s(e), &opts(10, false)).is_err(),
            "eps {e}"
        );
    }
    assert!(Schedule::new(vec![]).is_err());
    assert!(Schedule::homogeneous(&sg("0.01", "1"), 0).is_err());
    assert!(Schedule::new(vec![(Release::Gaussian { sigma: s("-1") }, 3)]).is_err());
    assert!(SubsampledGaussian::new(s("0"), s("1")).is_err());
    assert!(Target::add_remove(-1.0, s("1e-5")).is_err());
    assert!(Target::add_remove(1.0, s("1")).is_err());
    let t = Target::add_remove(1.0, s("1e-5")).unwrap();
    assert!(calibrate_sigma(&t, &s("0.01"), 100, 0.0).is_err());
    assert!(composed_rdp(&sched, &s("1"), 10).is_err());
}

mod robustness {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;

    /// The grid point of the log-scale draws: (schedule, σ, T); q = 1 when `full`.
    fn grid_point(lq: f64, ls: f64, lt: f64, full: bool) -> (Schedule, f64, u64) {
        let q = if full { 1.0 } else { 10f64.powf(lq) };
        let sigma = 10f64.powf(ls);
        let steps = 10f64.powf(lt).round().max(1.0) as u64;
        let m = SubsampledGaussian::new(Scalar::from(q), Scalar::from(sigma)).unwrap();
        (Schedule::homogeneous(&m, steps).unwrap(), sigma, steps)
    }

    /// An ε(δ) answer is an honest bracket (lo <= hi, lo >= 0, and for q = 1 containing the
    /// closed form) or a clear typed error.
    fn honest_eps(
        r: dpaudit::Result<accounting::Composed>,
        full: bool,
        sigma: f64,
        steps: u64,
        delta: &Scalar,
    ) -> Result<(), TestCaseError> {
        match r {
            Ok(c) => {
                prop_assert!(c.value.lo <= c.value.hi && c.value.lo >= 0);
                if full {
                    let exact = full_batch_eps(&Scalar::from(sigma), steps, delta, 20).unwrap();
                    prop_assert!(
                        contains(&c.value, &exact.value),
                        "{:?} vs {}",
                        c.value,
                        exact.value
                    );
                }
            }
            Err(err) => {
                let msg = err.to_string();
                prop_assert!(
                    matches!(
                        err,
                        dpaudit::Error::Precision { .. } | dpaudit::Error::InvalidParameter { .. }
                    ),
                    "{msg}"
                );
            }
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 8, failure_persistence: None, .. ProptestConfig::default() })]

        /// Across the grid (q from 1e-6 to 1, sigma from 0.3 to 100, T up to 1e6, delta
        /// from 1e-300 to 0.5, eps up to 100): either an honest bracket (lo <= hi, lo >= 0, and
        /// for q = 1 containing the closed form) or a clear typed error, within a time limit.
        #[test]
        fn a_bracket_or_a_clear_error(
            lq in -6.0f64..0.0,
            ls in (0.3f64).log10()..2.0,
            lt in 0.0f64..6.0,
            ld in -300.0f64..(0.5f64).log10(),
            e in 0.0f64..100.0,
            full in proptest::bool::weighted(0.2),
        ) {
            let (sched, sigma, steps) = grid_point(lq, ls, lt, full);
            let delta = Scalar::from(10f64.powf(ld));
            let r = accounting::with_time_limit(Some(3.0), || eps_for_delta(&sched, &delta, &opts(10, false)));
            honest_eps(r, full, sigma, steps, &delta)?;
            let d = accounting::with_time_limit(Some(3.0), || delta_for_eps(&sched, &Scalar::from(e), &opts(10, false)));
            if let Ok(c) = d {
                prop_assert!(c.value.lo <= c.value.hi && c.value.lo >= 0);
                prop_assert!(c.value.hi <= 1.0000001);
            }
        }

        /// δ near 1 (1 − δ from 10⁻¹⁵ to 0.49, the complementary inversion's side,
        /// docs/accounting.md#complement) over the same grid: an honest bracket or a clear typed
        /// error within the time limit; at q = 1 the general route is forced and must contain
        /// the Gaussian closed form.
        #[test]
        fn near_one_a_bracket_or_a_clear_error(
            lq in -6.0f64..0.0,
            ls in (0.3f64).log10()..2.0,
            lt in 0.0f64..6.0,
            lg in -15.0f64..(0.49f64).log10(),
            full in proptest::bool::weighted(0.3),
        ) {
            let (sched, sigma, steps) = grid_point(lq, ls, lt, full);
            let delta = Scalar::from(1.0 - 10f64.powf(lg));
            let r = accounting::with_time_limit(Some(3.0), || eps_for_delta(&sched, &delta, &opts(8, full)));
            honest_eps(r, full, sigma, steps, &delta)?;
        }
    }
}

/// Calibrating a very small target (dp_accounting ran out of memory calibrating eps = 0.01,
/// google/dpsynth#71): the bracket's cost does not grow with sigma.
#[test]
fn calibrates_a_tiny_epsilon() {
    let t = Target::add_remove(0.01, s("1e-5")).unwrap();
    let c = calibrate_sigma(&t, &s("0.01"), 1000, 1e-2).unwrap();
    assert!(c.eps.hi.to_f64() <= 0.01 && c.eps_below.lo.to_f64() > 0.01);
    assert!(c.sigma > 50.0 && c.sigma < 120.0, "sigma {}", c.sigma);
}

/// Regression (found by the proptest above): q ≈ 0.774, σ = 1, T = 255,479, ε = 0 gave the
/// bracket [0, 2.5e57] as a success. A δ bracket must certify its digits (relative width) or be a
/// `Precision` error, and never exceed 1.
/// q = 0.01, σ = 5, T = 1000, ε(10⁻⁵⁰) once panicked (a trial damping gave the moment an
/// inverted x-range, and its node count wrapped into a capacity overflow); the range is now
/// refused and the search goes on. The answer lies below the RDP route's.
#[test]
fn an_inverted_moment_range_is_refused_not_a_panic() {
    let sched = Schedule::homogeneous(&sg("0.01", "5"), 1000).unwrap();
    let b = eps_for_delta(&sched, &s("1e-50"), &opts(6, false))
        .unwrap()
        .value;
    assert!(b.digits() >= 6, "{b:?}");
    let r = rdp_route(
        &sched,
        &s("1e-50"),
        None,
        Conversion::CanonneKamathSteinke,
        6,
    )
    .unwrap();
    assert!(
        b.hi < r.eps.value && b.lo > 0.9,
        "{b:?} vs RDP {}",
        r.eps.value
    );
}

/// A bracket's digits are counted in its own precision: ends below 1e-308 (δ far in the tail)
/// once underflowed a double to a width of 0, read as 60 digits.
#[test]
fn digits_of_a_bracket_below_the_double_range() {
    let b = |lo: &str, hi: &str| accounting::Bracket {
        lo: Float::with_val(128, Float::parse(lo).unwrap()),
        hi: Float::with_val(128, Float::parse(hi).unwrap()),
    };
    let wide = b("1e-400", "2e-400");
    assert_eq!(wide.digits(), 0, "{wide:?}");
    assert!((wide.rel_width() - 2.0 / 3.0).abs() < 1e-12);
    let seven = b("5.61442142e-456", "5.61442233e-456");
    assert_eq!(seven.digits(), 7, "{seven:?}");
    assert_eq!(b("3e-500", "3e-500").digits(), 60);
    assert_eq!(b("0", "1e-400").rel_width(), 2.0);
}

#[test]
fn a_delta_bracket_certifies_its_digits_or_errs() {
    let q = 10f64.powf(-0.11106997913990646);
    let m = SubsampledGaussian::new(Scalar::from(q), s("1")).unwrap();
    let sched = Schedule::homogeneous(&m, 255_479).unwrap();
    let r = accounting::with_time_limit(Some(30.0), || {
        delta_for_eps(&sched, &s("0"), &opts(10, false))
    });
    match r {
        Ok(c) => {
            assert!(c.value.hi <= 1 && c.value.lo <= c.value.hi, "{:?}", c.value);
            assert!(c.value.rel_width() <= 2e-10, "{:?}", c.value);
        }
        Err(e) => assert!(matches!(e, dpaudit::Error::Precision { .. }), "{e}"),
    }
}

/// An everyday calibration (ε = 3 at q = 0.01, T = 1000, δ = 1e-5) stays clear of σ = 0.5, where
/// the add/remove inversion is slow (38 s) and, with a smaller probe budget, did not certify (the
/// search once halved onto it and failed).
#[test]
fn calibration_does_not_step_into_the_failing_region() {
    let t = Target::add_remove(3.0, s("1e-5")).unwrap();
    let c = calibrate_sigma(&t, &s("0.01"), 1000, 1e-2).unwrap();
    assert!(c.eps.hi.to_f64() <= 3.0 && c.eps_below.lo.to_f64() > 3.0);
    assert!(c.sigma > 0.7 && c.sigma < 0.9, "{}", c.sigma);
}

/// Batch-size calibration (N = 1000 records, 10 epochs, σ = 1, (3, 1e-5)-DP): B meets the target
/// and B + 1 does not, re-checked here with q and T computed by hand (q = B/N,
/// T = ⌈10·N/B⌉) and fresh brackets, so a bookkeeping slip in the library fails the test.
#[test]
fn batch_size_calibration_round_trip() {
    let (n, target) = (1000u64, 3.0);
    let t = Target::add_remove(target, s("1e-5")).unwrap();
    let c = accounting::calibrate_batch_size(&t, n, &s("10"), &s("1")).unwrap();
    let bracket = |b: u64| {
        let steps = (10 * n).div_ceil(b);
        let m = SubsampledGaussian::new(s(&format!("{}", b as f64 / n as f64)), s("1")).unwrap();
        eps_for_delta(
            &Schedule::homogeneous(&m, steps).unwrap(),
            &s("1e-5"),
            &opts(12, false),
        )
        .unwrap()
        .value
    };
    assert_eq!(c.steps, (10 * n).div_ceil(c.batch_size));
    let at = bracket(c.batch_size);
    assert!(at.hi.to_f64() <= target, "B = {}: {:?}", c.batch_size, at);
    let (next, ..) = c.next.clone().expect("some batch size misses the target");
    assert_eq!(next, c.batch_size + 1);
    let above = bracket(next);
    assert!(above.lo.to_f64() > target, "B + 1 = {next}: {:?}", above);
}

/// ε(δ) = 0 exactly when δ is at least the composition's total variation distance (δ(0)), by the
/// coupling bound 1 − Π(1 − TV_i)^{n_i} (docs/accounting.md#tv-settle). At T = 1 the bound is
/// the exact total variation — erf(1/(2√2σ)) for the Gaussian (0.3829249 at σ = 1), q times it
/// subsampled, q·erf(1/(√2σ)) under substitution (0.3413447 at q = 0.5) — so δ just above it is
/// answered 0 by the bound, and δ just below it is not (the Gaussian's closed form gives ε > 0;
/// under substitution δ = 0.34134 is not tried here: the inversion takes 33 s to refuse it).
/// q = 0.001, σ = 0.6, T = 10 at δ = 1 − 10⁻¹² was refused before stop 43.
#[test]
fn eps_is_zero_above_the_total_variation() {
    let tv = "total variation bound";
    let gauss = Schedule::new(vec![(Release::Gaussian { sigma: s("1") }, 1)]).unwrap();
    let above = eps_for_delta(&gauss, &s("0.38293"), &opts(6, false)).unwrap();
    assert_eq!(above.route, tv);
    assert!(above.value.lo == 0 && above.value.hi == 0);
    let below = eps_for_delta(&gauss, &s("0.38292"), &opts(6, false)).unwrap();
    assert_ne!(below.route, tv);
    assert!(below.value.lo > 0, "eps {:?}", below.value.lo);
    let sub = Schedule::homogeneous(&sg("0.5", "1"), 1).unwrap();
    assert_eq!(
        eps_for_delta(&sub, &s("0.19147"), &opts(6, false))
            .unwrap()
            .route,
        tv
    );
    if let Ok(c) = eps_for_delta(&sub, &s("0.19146"), &opts(6, false)) {
        assert!(c.route != tv && c.value.hi > 0, "{}", c.route);
    }
    let subst = Schedule::homogeneous_substitution(&sg("0.5", "1"), 1).unwrap();
    assert_eq!(
        eps_for_delta(&subst, &s("0.34135"), &opts(6, false))
            .unwrap()
            .route,
        tv
    );
    let tiny = Schedule::homogeneous(&sg("0.001", "0.6"), 10).unwrap();
    let c = eps_for_delta(&tiny, &s("0.999999999999"), &opts(6, false)).unwrap();
    assert_eq!(c.route, tv);
    // A composition whose total variation is above δ: not settled (q = 1, σ = 0.6, T = 1000 is
    // the Gaussian mechanism with μ = 52.7, ε(1 − 10⁻¹²) ≈ 1017 by its closed form).
    let wide = Schedule::new(vec![(Release::Gaussian { sigma: s("0.6") }, 1000)]).unwrap();
    let c = eps_for_delta(&wide, &s("0.999999999999"), &opts(6, false)).unwrap();
    assert!(
        c.route != tv && c.value.lo > 1000,
        "{} {:?}",
        c.route,
        c.value.lo
    );
}

/// ε(δ) for δ > 0.99 reads the complementary inversion first, 1 − δ(ε) on a line 0 < Re s < 1
/// (docs/accounting.md#complement); δ = 0.6 the direct one. Against the Gaussian closed form (the general route forced
/// on q = 1, σ = 10 and σ = 0.6, T = 1000, i.e. μ = 3.16 and 52.7) at δ from 0.6 to 1 − 10⁻¹²,
/// to 20 digits.
#[test]
fn eps_near_one_agrees_with_the_gaussian_closed_form() {
    for sigma in ["10", "0.6"] {
        let sched = Schedule::new(vec![(Release::Gaussian { sigma: s(sigma) }, 1000)]).unwrap();
        for delta in ["0.6", "0.999999", "0.999999999999"] {
            let exact = full_batch_eps(&s(sigma), 1000, &s(delta), 30).unwrap();
            let b = eps_for_delta(&sched, &s(delta), &opts(20, true)).unwrap();
            let route = if delta == "0.6" {
                "mgf inversion"
            } else {
                "mgf inversion of 1 - delta"
            };
            assert_eq!(b.route, route);
            assert!(
                contains(&b.value, &exact.value),
                "sigma {sigma}, delta {delta}: {:?} vs {}",
                b.value,
                exact.value
            );
            assert!(b.value.digits() >= 20, "only {} digits", b.value.digits());
        }
    }
}

/// The near-1 refusal of stop 43 (q = 0.5, σ = 1, T = 1000, δ = 1 − 10⁻¹²; PLD's two estimates
/// 9.5 and 53.3) against an independent mpmath inversion (golden/generate_near_one.py →
/// golden/accounting/near_one.csv: 20 digits, dps 25 and 35 agreeing to 4·10⁻²¹), at 6 and 12
/// digits: the bracket must meet the reference's interval (its recorded digits ± half a unit of
/// the last, which the 12-digit bracket, 10⁻¹⁸ wide, is far narrower than); and the
/// complementary route against the direct one at δ = 0.995 (δ(ε) by the direct inversion at
/// both ends of the complementary ε bracket must straddle δ).
#[test]
fn eps_near_one_contains_the_mpmath_reference() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/golden/accounting/near_one.csv"
    ))
    .unwrap();
    let mut rows = csv::Reader::from_reader(text.as_bytes());
    let head = rows.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let mut seen = 0;
    for row in rows.records() {
        let row = row.unwrap();
        let m = sg(&row[col("q")], &row[col("sigma")]);
        let steps: u64 = row[col("steps")].parse().unwrap();
        let eps = Float::with_val(256, Float::parse(&row[col("eps_remove")]).unwrap());
        let digits: i32 = row[col("digits")].parse().unwrap();
        // Half a unit of the last recorded significant digit.
        let lead = eps.clone().abs().log10().floor().to_f64() as i32;
        let half = Float::with_val(256, 10f64).pow(lead - digits + 1) / 2u32;
        let (lo, hi) = (
            Float::with_val(256, &eps - &half),
            Float::with_val(256, &eps + &half),
        );
        let sched = Schedule::homogeneous(&m, steps).unwrap();
        let delta = s(&row[col("delta")]);
        for want in [6, 12] {
            let b = eps_for_delta(&sched, &delta, &opts(want, false)).unwrap();
            assert_eq!(b.route, "mgf inversion of 1 - delta");
            assert!(
                b.value.lo <= hi && lo <= b.value.hi,
                "{want} digits: {:?} vs [{lo}, {hi}]",
                b.value
            );
            assert!(b.value.digits() >= want);
        }
        seen += 1;
    }
    assert_eq!(seen, 1);
    let sched = Schedule::homogeneous(&sg("0.5", "1"), 1000).unwrap();
    let delta = s("0.995");
    let b = eps_for_delta(&sched, &delta, &opts(8, false)).unwrap();
    assert_eq!(b.route, "mgf inversion of 1 - delta");
    let d = Float::with_val(256, Float::parse("0.995").unwrap());
    let at = |e: &Float| {
        let x = s(&e.to_string_radix(10, Some(30)));
        delta_for_eps(&sched, &x, &opts(10, true)).unwrap().value
    };
    assert!(at(&b.value.lo).hi >= d, "delta(eps_lo) below 0.995");
    assert!(at(&b.value.hi).lo <= d, "delta(eps_hi) above 0.995");
}

/// Small σ at small q (σ = 0.3, T = 1000, δ = 10⁻⁵): the discretised route answers ε(δ) first
/// where T·q < 1 (q = 10⁻⁴), and the inversion, which since its tail cut bounds its tail there,
/// where T·q ≥ 1 (q = 0.01; until stop 53 the discretised route went first at every T·q, and
/// before stop 44 it was the inversion's fallback) — docs/accounting.md#small-sigma. dp_accounting
/// 0.6.0's PLD at 10⁻⁴ on this machine: pessimistic (Connect-the-Dots, an upper bound on ε) and
/// optimistic, 8.209974126768543 and 8.193398322168818 at q = 10⁻⁴ (stop 53), 69.81571191584709
/// and 69.76210313413003 at q = 0.01 (stop 44): each certified bracket must reach below the first
/// and above the second.
#[test]
fn small_sigma_eps_takes_the_route_by_t_q() {
    for (q, route, pess, opt) in [
        (
            "1e-4",
            "discretised convolution (double precision)",
            8.209974126768543,
            8.193398322168818,
        ),
        (
            "0.01",
            "mgf inversion",
            69.81571191584709,
            69.76210313413003,
        ),
    ] {
        let sched = Schedule::homogeneous(&sg(q, "0.3"), 1000).unwrap();
        let c = accounting::with_time_limit(Some(60.0), || {
            eps_for_delta(&sched, &s("1e-5"), &opts(6, false))
        })
        .unwrap();
        assert_eq!(c.route, route, "q = {q}");
        assert!(c.value.digits() >= 6, "q = {q}: {:?}", c.value);
        assert!(c.value.lo.to_f64() <= pess, "q = {q}: {:?}", c.value);
        assert!(c.value.hi.to_f64() >= opt, "q = {q}: {:?}", c.value);
    }
}

/// Where dp_accounting's PLD is off (docs/accounting.md#peer-discrepancy): q = 0.3, σ = 0.3,
/// T = 1000. An independent brute force (benches/brute_force_pld.py at h = 5·10⁻⁴: the step's
/// exact P-masses, every loss rounded up or down, one FFT of 2²⁷ points that does not wrap)
/// brackets the remove direction's ε(δ), which is the mechanism's (the add direction's loss is
/// at most −ln(1 − q) per step, 357 in all): δ = 0.9 in [1052.814812, 1053.314812], δ = 0.51 in
/// [1161.617236, 1162.117236]. The certified 6-digit bracket must lie inside; dp_accounting
/// 0.6.0's PLD at 10⁻⁴ (optimistic 1054.0383, pessimistic 1054.0877 at δ = 0.9) does not: its ε
/// search drops e^{ε−L}, which underflows above ε ≈ 708.
#[test]
fn eps_lies_inside_the_brute_force_where_pld_is_off() {
    let sched = Schedule::homogeneous(&sg("0.3", "0.3"), 1000).unwrap();
    for (delta, lo, hi) in [
        ("0.9", 1052.814812, 1053.314812),
        ("0.51", 1161.617236, 1162.117236),
    ] {
        let b = eps_for_delta(&sched, &s(delta), &opts(6, false)).unwrap();
        let (l, h) = (b.value.lo.to_f64(), b.value.hi.to_f64());
        assert!(b.value.digits() >= 6, "{delta}: [{l}, {h}]");
        assert!(
            lo <= l && h <= hi,
            "{delta}: [{l}, {h}] outside [{lo}, {hi}]"
        );
    }
}

/// A release whose Rényi divergence is far below its moment's error (q = 10⁻⁶, σ = 10⁸: D_α is
/// about 10⁻²⁸ at α ≈ 10⁴, the moment's bracket 10⁻¹⁹ wide): the composed RDP's lower end stays
/// at or above 0 (D_α ≥ 0) and the RDP route converts it — `account` failed there with "invalid
/// parameter eps_alpha = -3.5e-19" until stop 46. Mironov's conversion is then D + ln(1/δ)/(α − 1)
/// with D negligible: the closed form of the second term, to 10⁻⁹.
#[test]
fn rdp_far_below_its_error_is_not_negative() {
    let sched = Schedule::homogeneous(&sg("1e-6", "100000000"), 1000).unwrap();
    let alpha = "9898.129059";
    let b = composed_rdp(&sched, &s(alpha), 6).unwrap();
    assert!(b.lo >= 0 && b.hi >= b.lo, "[{}, {}]", b.lo, b.hi);
    let r = rdp_route(
        &sched,
        &s("1e-5"),
        Some(&[s(alpha)]),
        Conversion::Mironov,
        6,
    )
    .unwrap();
    let want = 1e5f64.ln() / (9898.129059 - 1.0);
    let got = r.eps.to_f64();
    assert!((got - want).abs() <= 1e-9 * want, "{got} vs {want}");
}

/// q = 1e-4, sigma = 0.6, T = 300, eps(1e-5): the inversion's tail bound ran out of probes
/// ("decays too slowly ... u = 3.83e3") until the step-part bound (docs/accounting.md#step-part)
/// closed it: forced, it must certify 6 digits and lie inside the discretised route's 5-digit
/// bracket (an independent route: the PLD convolution with its pessimistic/optimistic pair).
#[test]
fn small_sigma_tiny_q_inversion_meets_the_discretised_bracket() {
    let sched = Schedule::homogeneous(&sg("0.0001", "0.6"), 300).unwrap();
    let delta = s("1e-5");
    let inv = eps_for_delta(&sched, &delta, &opts(6, true)).unwrap();
    assert_eq!(inv.route, "mgf inversion");
    assert!(inv.value.digits() >= 6, "{:?}", inv.value);
    let pld = eps_for_delta(&sched, &delta, &opts(5, false)).unwrap();
    assert!(pld.route.contains("discretised"), "{}", pld.route);
    assert!(
        pld.value.lo <= inv.value.lo && inv.value.hi <= pld.value.hi,
        "inversion {:?} outside the discretised {:?}",
        inv.value,
        pld.value
    );
}

/// q = 1e-6, sigma = 0.5, T = 1e6, eps(1e-5): refused until stop 50 ("decays too slowly", u =
/// 1.5e3: the uniform part claimed T·ln ρ ≈ −1.1 at u = 1.2e3 where the truth is about −40); the
/// quadratic part's walk (docs/accounting.md#quadratic-part) closes the tail where the nodes
/// stop. The answer must certify 6 digits and lie inside dp_accounting 0.6's PLD bracket
/// (`from_gaussian_mechanism`, discretisation 1e-4, composed 1e6 times: optimistic 0,
/// pessimistic 0.039376; a peer's figure, 0 digits) and below the RDP route's epsilon.
#[test]
fn tiny_q_small_sigma_tail_is_closed_by_the_quadratic_part() {
    let sched = Schedule::homogeneous(&sg("0.000001", "0.5"), 1_000_000).unwrap();
    let c = eps_for_delta(&sched, &s("1e-5"), &opts(6, false)).unwrap();
    assert!(c.value.digits() >= 6, "{:?}", c.value);
    assert!(
        c.value.lo > 0 && c.value.hi < 0.0394,
        "outside PLD's [0, 0.0394]: {:?}",
        c.value
    );
    let rdp = rdp_route(
        &sched,
        &s("1e-5"),
        None,
        Conversion::CanonneKamathSteinke,
        6,
    )
    .unwrap();
    assert!(
        c.value.hi < rdp.eps.value,
        "{:?} vs RDP {}",
        c.value,
        rdp.eps.value
    );
}

/// Tiny T·q at σ ≥ 0.5 (q = 10⁻⁶, σ = 0.8, T = 1000: ε(10⁻⁵) ≈ 4.03·10⁻⁵, far below the loss's
/// range): the discretised route goes first and answers with its hits (docs/accounting.md#hits);
/// until stop 54 the inversion went first and refused after 30 s with no digit. Round trip
/// through the δ(ε) passes (by their own hits at each ε): δ at the bracket's lower end reaches
/// 10⁻⁵ from above, at its upper end from below.
#[test]
fn tiny_tq_takes_the_discretised_route_first() {
    let sched = Schedule::homogeneous(&sg("1e-6", "0.8"), 1000).unwrap();
    let b = accounting::with_time_limit(Some(60.0), || {
        eps_for_delta(&sched, &s("1e-5"), &opts(6, false))
    })
    .unwrap();
    assert_eq!(b.route, "discretised convolution (double precision)");
    assert!(b.value.digits() >= 6, "{:?}", b.value);
    let target = Float::with_val(64, Float::parse("1e-5").unwrap());
    let at = |e: &Float| {
        let x = s(&e.to_string_radix(10, Some(20)));
        accounting::with_time_limit(Some(60.0), || delta_for_eps(&sched, &x, &opts(6, false)))
            .unwrap()
    };
    let (lo, hi) = (at(&b.value.lo), at(&b.value.hi));
    assert_eq!(lo.route, "discretised convolution (double precision)");
    assert!(lo.value.hi >= target, "delta(eps_lo) = {:?}", lo.value);
    assert!(hi.value.lo <= target, "delta(eps_hi) = {:?}", hi.value);
}
