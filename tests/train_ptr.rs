//! Tests of HMB Props. 1–3 in `dpaudit::train::ptr`: Δ₊ against brute force, clipping, the
//! Laplace draw, Prop. 3's PTR acceptance over 1000 seeded Gaussian datasets, the sound PTR
//! statistic's sensitivity (recorded witness and seeded search; the paper's Δ₊ must fail the same
//! check), and Prop. 1's ratio for C = I and commuting C.

use dpaudit::mechanisms::stream::chunk_rng;
use dpaudit::train::data::{ar1_covariance, synthetic, Dataset, SyntheticSpec};
use dpaudit::train::ptr::{
    clip_prop1, clip_prop3, delta_plus, prop1_search, prop2_search, prop2_witness, prop3,
    ptr_scores, ptr_test, run_ptr, sound_statistic, total_guarantee, CFamily, PtrRule,
};
use nalgebra::{DMatrix, SymmetricEigen};

fn gauss(n: usize, d: usize, seed: u64) -> Dataset {
    synthetic(&SyntheticSpec::with_size(n, d), seed).unwrap()
}

/// Smallest k such that some k-subset of `s` sums to at least `target` (n + 1 if none).
fn brute_min_subset(s: &[f64], target: f64) -> usize {
    let n = s.len();
    let mut best = n + 1;
    for mask in 1u32..(1 << n) {
        let k = mask.count_ones() as usize;
        if k >= best {
            continue;
        }
        let sum: f64 = (0..n).filter(|i| mask >> i & 1 == 1).map(|i| s[i]).sum();
        if sum >= target {
            best = k;
        }
    }
    best
}

/// Smallest k such that removing some k records makes Ã − ρC − (1/n)Σ X_iX_iᵀ not positive
/// definite (the true quantity bounded in HMB eq. (64)); n + 1 if none.
fn brute_true_delta(data: &Dataset, mu: f64, rho: f64, c: &DMatrix<f64>) -> usize {
    let (n, d) = (data.n, data.d);
    let xm = DMatrix::from_row_slice(n, d, &data.x);
    let mut m = xm.tr_mul(&xm) / n as f64 - c * rho;
    for k in 0..d {
        m[(k, k)] += mu;
    }
    let mut best = n + 1;
    for mask in 0u32..(1 << n) {
        let k = mask.count_ones() as usize;
        if k >= best {
            continue;
        }
        let mut mm = m.clone();
        for i in (0..n).filter(|i| mask >> i & 1 == 1) {
            let r = xm.row(i).transpose();
            mm -= &r * r.transpose() / n as f64;
        }
        if SymmetricEigen::new(mm).eigenvalues.min() <= 0.0 {
            best = k;
        }
    }
    best
}

#[test]
fn delta_plus_matches_brute_force_and_lower_bounds_the_true_distance() {
    let c = DMatrix::identity(2, 2);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..6 {
        let data = gauss(10, 2, seed);
        let xm = DMatrix::from_row_slice(10, 2, &data.x);
        let lmin = SymmetricEigen::new(xm.tr_mul(&xm) / 10.0).eigenvalues.min();
        for frac in [0.0, 0.5, 0.9, 0.97, 0.995] {
            let rho = frac * (lmin + 0.01);
            let dp = delta_plus(&data, 0.01, rho, &c).unwrap();
            let s = ptr_scores(&data, 0.01, rho, &c).unwrap().unwrap();
            let brute = brute_min_subset(&s, 10.0).min(10);
            assert_eq!(dp, brute, "seed {seed}, rho {rho}");
            let truth = brute_true_delta(&data, 0.01, rho, &c);
            assert!(
                truth >= dp,
                "seed {seed}, rho {rho}: true {truth} < Delta+ {dp}"
            );
            seen.insert(dp);
        }
        // ρ beyond λ_min(Ã): Ã − ρC is not positive definite, Δ₊ = 0.
        assert_eq!(
            delta_plus(&data, 0.01, 1.01 * (lmin + 0.01), &c).unwrap(),
            0
        );
    }
    assert!(
        seen.len() >= 3,
        "the cases exercise several values of Delta+: {seen:?}"
    );
}

#[test]
fn clipping_enforces_prop1_and_prop3_bounds_and_keeps_small_records() {
    let data = gauss(500, 4, 3);
    let c = DMatrix::from_row_slice(4, 4, &ar1_covariance(4, 0.5));
    let ci = c.clone().try_inverse().unwrap();
    let rc = 1.5;
    let p1 = clip_prop1(&data, &c, rc).unwrap();
    let p3 = clip_prop3(&data, &c, rc).unwrap();
    let mut untouched = 0;
    for j in 0..data.n {
        let x = nalgebra::DVector::from_column_slice(data.row(j));
        let x1 = nalgebra::DVector::from_column_slice(p1.row(j));
        let x3 = nalgebra::DVector::from_column_slice(p3.row(j));
        assert!(x1.norm_squared() * (&ci * &x1).norm_squared() <= rc.powi(4) * (1.0 + 1e-12));
        assert!(x3.dot(&(&ci * &x3)) <= rc * rc * (1.0 + 1e-12));
        if x.norm_squared() * (&ci * &x).norm_squared() <= rc.powi(4) {
            assert_eq!(x, x1);
            untouched += 1;
        }
    }
    assert!(untouched > 0 && untouched < data.n);
    assert!(clip_prop1(&data, &c, -1.0)
        .unwrap_err()
        .to_string()
        .contains("R_c = -1"));
}

#[test]
fn laplace_draw_has_the_laplace_moments() {
    // Lap(0, b): mean 0, E|X| = b, Var = 2b². 2e5 draws: standard errors ≈ 0.0032b, 0.0022b.
    let b = 0.7;
    let mut rng = chunk_rng(11, 0);
    let n = 200_000;
    let lap = laplace();
    let xs: Vec<f64> = (0..n).map(|_| lap.draw(&mut rng, b).unwrap()).collect();
    let mean = xs.iter().sum::<f64>() / n as f64;
    let mabs = xs.iter().map(|x| x.abs()).sum::<f64>() / n as f64;
    assert!(
        mean.abs() < 5.0 * (2.0f64).sqrt() * b / (n as f64).sqrt(),
        "{mean}"
    );
    assert!((mabs - b).abs() < 5.0 * b / (n as f64).sqrt(), "{mabs}");
    assert!(lap.draw(&mut rng, 0.0).is_err());
}

#[test]
fn prop3_ptr_acceptance_over_1000_gaussian_datasets() {
    // d = 3, Σ AR(1) r = 0.5, R_c² = 2d, ν = 0.1, PTR budget ε = 1, δ = 1e-5; n = the least n
    // Prop. 3 allows. The paper claims acceptance with probability ≥ 1 − ν.
    let (d, rc, nu, eps, delta) = (3usize, 6f64.sqrt(), 0.1, 1.0, 1e-5);
    let sigma = DMatrix::from_row_slice(d, d, &ar1_covariance(d, 0.5));
    let n_min = prop3(&sigma, rc, nu, 1, eps, delta).unwrap().n_min;
    for n in [n_min.ceil() as usize, 10_000] {
        let p = prop3(&sigma, rc, nu, n, eps, delta).unwrap();
        let trials = 1000;
        let mut accepted = 0;
        for t in 0..trials {
            let data = clip_prop3(&gauss(n, d, 1000 + t + n as u64 * 10_000), &sigma, rc).unwrap();
            let dp = delta_plus(&data, p.mu_reg, p.rho, &sigma).unwrap();
            if ptr_test(laplace(), dp, eps, delta, 77, t).unwrap().1 {
                accepted += 1;
            }
        }
        let frac = accepted as f64 / trials as f64;
        eprintln!("Prop. 3 PTR: n = {n}, mu_reg = {:.4}, rho = {:.6}, eta = {:.4}, accepted {accepted}/{trials} = {frac}", p.mu_reg, p.rho, p.eta);
        assert!(
            frac >= 1.0 - nu,
            "acceptance {frac} < 1 - nu = {}",
            1.0 - nu
        );
    }
}

#[test]
fn total_guarantee_adds_ptr_to_the_composed_rgm_bound() {
    use dpaudit::mechanisms::rgm::bounds::optimized_dp_eps_f64;
    let (e, d) =
        total_guarantee(PtrRule::Sound, rgm(), 1.0, 1e-6, 1e-3, 1e-4, 22, 40, 1e-5).unwrap();
    // Independent route: the f64 fast path of eq. (45) at (η, γ/T, T d).
    let (e45, _) = optimized_dp_eps_f64(1e-3, 1e-4 / 40.0, 22 * 40, 1e-5).unwrap();
    assert!((e - 1.0 - e45).abs() < 1e-9 * e45, "{e} vs 1 + {e45}");
    assert_eq!(d, 1e-6 + 1e-5);
}

#[test]
fn composition_identity_t_eps_equals_eq5_at_gamma_over_t_and_t_d() {
    // privacy.rs composes Theorem 1 over T as eq. (5) at (γ/T, T d); check the identity directly.
    use dpaudit::mechanisms::rgm::bounds::theorem1_eps_f64;
    for (eta, gamma, d, t) in [(1e-3, 1e-4, 22u32, 40u32), (0.01, 0.3, 5, 7)] {
        for alpha in [1.5, 2.0, 10.0] {
            let lhs = t as f64 * theorem1_eps_f64(eta, gamma, d, alpha).unwrap();
            let rhs = theorem1_eps_f64(eta, gamma / t as f64, d * t, alpha).unwrap();
            assert!((lhs - rhs).abs() < 1e-12 * lhs, "{lhs} vs {rhs}");
        }
    }
}

#[test]
fn as_printed_ptr_gives_no_certified_total() {
    let err = total_guarantee(
        PtrRule::AsPrinted,
        rgm(),
        1.0,
        1e-6,
        1e-3,
        1e-4,
        22,
        40,
        1e-5,
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("not certified"), "{err}");
    assert!(PtrRule::Sound.certified() && !PtrRule::AsPrinted.certified());
    assert_eq!(PtrRule::default(), PtrRule::Sound);
}

/// The largest |stat(D) − stat(D′)| on the recorded witnesses (n = 10, 50, 200) of
/// `prop2_witness`: D has n records e₁, D′ replaces one by e₂, Ã − ρI ≻ 0 on both.
fn jump_on_witness(stat: impl Fn(&Dataset, f64, f64, &DMatrix<f64>, f64) -> f64) -> f64 {
    let mut worst = 0.0f64;
    for n in [10, 50, 200] {
        let (a, b, mu, rho, c, rc) = prop2_witness(n).unwrap();
        worst = worst.max((stat(&a, mu, rho, &c, rc) - stat(&b, mu, rho, &c, rc)).abs());
    }
    worst
}

#[test]
fn sound_statistic_has_sensitivity_at_most_one_on_the_recorded_witness() {
    let jump = jump_on_witness(|x, mu, rho, c, rc| sound_statistic(x, mu, rho, c, rc).unwrap());
    assert!(jump <= 1.0 + 1e-9, "sound statistic jumped by {jump}");
}

#[test]
fn the_papers_delta_plus_fails_the_same_sensitivity_check() {
    // The mutation: the same check with HMB's Δ₊ as the statistic must fail (jump n − 2).
    let jump = jump_on_witness(|x, mu, rho, c, _| delta_plus(x, mu, rho, c).unwrap() as f64);
    assert!(jump > 1.0, "Delta_+ jumped only by {jump}");
    assert_eq!(jump, 198.0);
}

#[test]
fn seeded_search_finds_delta_plus_jumps_but_no_sound_jump_above_one() {
    let s = prop2_search(300, 22).unwrap();
    eprintln!("{s:?}");
    assert!(s.worst_stat.stat_jump() <= 1.0 + 1e-9, "{:?}", s.worst_stat);
    assert!(s.worst_dplus.dplus_jump() > 1.0, "{:?}", s.worst_dplus);
}

#[test]
fn sound_ptr_rejects_unclipped_records_and_accepts_far_from_the_boundary() {
    let data = gauss(200, 3, 4);
    let c = DMatrix::identity(3, 3);
    let err = sound_statistic(&data, 0.1, 0.5, &c, 1.0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("clip the records first"), "{err}");
    let clipped = clip_prop3(&data, &c, 2.0).unwrap();
    let o = run_ptr(
        laplace(),
        PtrRule::Sound,
        &clipped,
        0.1,
        0.05,
        &c,
        2.0,
        1.0,
        1e-5,
        3,
        0,
    )
    .unwrap();
    assert!(o.statistic > 20.0 && o.accepted, "{o:?}");
    assert_eq!(o.threshold, 1.0 + 1e-5f64.ln().abs());
    // ρ above λ_min: S < 0, rejected.
    let o = run_ptr(
        laplace(),
        PtrRule::Sound,
        &clipped,
        0.1,
        5.0,
        &c,
        2.0,
        1.0,
        1e-5,
        3,
        0,
    )
    .unwrap();
    assert!(o.statistic < 0.0 && !o.accepted, "{o:?}");
}

#[test]
fn prop1_ratio_never_exceeds_one_for_identity_or_commuting_c() {
    for fam in [CFamily::Identity, CFamily::Commuting] {
        let s = prop1_search(fam, 300, 8).unwrap();
        eprintln!("{fam:?}: {:?}", s.worst);
        assert!(s.worst.ratio <= 1.0, "{fam:?}: {:?}", s.worst);
    }
}

#[test]
fn prop1_ratio_exceeds_one_for_some_general_c_but_not_at_the_corrected_eta() {
    let s = prop1_search(CFamily::General, 300, 8).unwrap();
    eprintln!("{:?}", s.worst);
    assert!(s.worst.ratio > 1.0, "{:?}", s.worst);
    assert!(s.worst_corrected <= 1.0, "{}", s.worst_corrected);
}

/// HMB Prop. 2's Lap(1/ε) noise: the Laplace family of the registry.
fn laplace() -> dpaudit::model::noise::ScalarNoise {
    dpaudit::model::noise::ScalarNoise::named("ptr_noise", "laplace").unwrap()
}

/// HMB's relative Gaussian mechanism, from the registry.
fn rgm() -> dpaudit::model::noise::RelativeFamily {
    dpaudit::model::noise::RelativeFamily::named("noise", "rgm").unwrap()
}
