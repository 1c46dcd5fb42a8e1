//! Seeded audits of the Gaussian mechanism (sensitivity 1, σ = 5, δ = 1e-5).
//!
//! The exact ε(1e-5) = 0.72552175085779582692 comes from mpmath (dps 50, bisection on the
//! Balle–Wang profile Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ), μ = 0.2), not from the code under test.
//! The timing tests are `#[ignore]`d: speed is shown by `cargo bench --bench audit`.

use dpaudit::audit::engine::{run_audit, AuditConfig, AuditResult, Selection};
use dpaudit::audit::mechanisms::{GaussianMechanism, Statistic};
use dpaudit::{Pair, Scalar};

/// Exact ε(δ = 1e-5) of the Gaussian mechanism with Δ/σ = 0.2 (mpmath, dps 50).
const EXACT: f64 = 0.725_521_750_857_795_8;

fn mech() -> GaussianMechanism {
    GaussianMechanism::new(1.0, 5.0).unwrap()
}

fn show(r: &AuditResult) {
    eprintln!(
        "{} n={} eps_lb={:.5} ({:.4} of exact) region={:?}/{:?} t={:.4} FP={} FN={} gdp_eps={:.5} wall={:.3}s rate={:.3e}/s threads={}",
        r.mechanism,
        r.samples_per_side,
        r.eps_lb,
        r.eps_lb / EXACT,
        r.region.tail,
        r.region.direction,
        r.region.threshold,
        r.region.false_positives,
        r.region.false_negatives,
        r.gdp.eps_lb_gdp,
        r.timing.wall_seconds,
        r.timing.samples_per_second,
        r.timing.threads
    );
}

/// 10^7 draws per side (pilot 10^6), both statistics, confidence 0.999: ε_lb ≤ exact fails with
/// probability ≤ 1e-3 (Clopper–Pearson coverage with held-out selection). The lower end: at
/// this size and confidence the best single region gives ≈ 0.83 × exact on average (oracle
/// threshold, Wilson approximation); held-out selection on 10^6 pilot draws reached
/// 0.769–0.816 × exact over seeds 1–6 (mean 0.793, sd 0.016), so 0.70 × exact is a > 5σ margin.
#[test]
fn gaussian_audit_is_valid_and_tight() {
    for stat in [Statistic::White, Statistic::Black] {
        let cfg = AuditConfig {
            samples_per_side: 10_000_000,
            selection: Selection::HeldOut {
                pilot_samples: 1_000_000,
            },
            confidence: 0.999,
            statistic: stat,
            seed: 20240601,
            ..AuditConfig::default()
        };
        let r = run_audit(&mech(), &cfg).unwrap();
        show(&r);
        assert!((r.claimed_eps.unwrap() - EXACT).abs() < 1e-9);
        assert!(r.eps_lb <= EXACT, "eps_lb {} > exact {EXACT}", r.eps_lb);
        assert!(r.eps_lb >= 0.7 * EXACT, "eps_lb {} < 0.7 exact", r.eps_lb);
        assert!(!r.flagged);
        // GDP route (assumption holds for the Gaussian): same confidence semantics.
        assert!(r.gdp.eps_lb_gdp <= EXACT, "gdp {}", r.gdp.eps_lb_gdp);
    }
}

/// Bonferroni selection over all 4·4097 statements is valid too (and looser than held-out).
#[test]
fn gaussian_audit_bonferroni() {
    let cfg = AuditConfig {
        samples_per_side: 5_000_000,
        selection: Selection::Bonferroni,
        confidence: 0.999,
        seed: 3,
        ..AuditConfig::default()
    };
    let r = run_audit(&mech(), &cfg).unwrap();
    show(&r);
    assert!(r.eps_lb <= EXACT && r.eps_lb > 0.5 * EXACT, "{}", r.eps_lb);
    assert_eq!(r.region.family_size, 4 * 4097);
}

/// Same seed, 1 thread vs 2 threads: identical deterministic outcome (every field but the wall
/// times, histograms included).
#[test]
fn deterministic_across_thread_counts() {
    let base = AuditConfig {
        samples_per_side: 3_000_000,
        selection: Selection::HeldOut {
            pilot_samples: 1_500_000,
        },
        seed: 99,
        bins: 512,
        ..AuditConfig::default()
    };
    let one = run_audit(
        &mech(),
        &AuditConfig {
            threads: Some(1),
            ..base.clone()
        },
    )
    .unwrap();
    let two = run_audit(
        &mech(),
        &AuditConfig {
            threads: Some(2),
            ..base.clone()
        },
    )
    .unwrap();
    assert_eq!(one.timing.threads, 1);
    assert_eq!(two.timing.threads, 2);
    assert!(one.same_outcome(&two));
    assert_eq!(one.histograms, two.histograms);
    // A different seed changes the samples.
    let other = run_audit(&mech(), &AuditConfig { seed: 100, ..base }).unwrap();
    assert_ne!(other.histograms, one.histograms);
}

/// Timing of the targets (run with `--ignored --nocapture`; 10^9 only with PERF_BIG=1):
/// 10^8 per side (pilot 10^7) and 10^9 per side (pilot 5·10^7), white box, seed 1.
#[test]
#[ignore]
fn perf_targets() {
    for (n, pilot) in [(100_000_000u64, 10_000_000u64), (1_000_000_000, 50_000_000)] {
        let cfg = AuditConfig {
            samples_per_side: n,
            selection: Selection::HeldOut {
                pilot_samples: pilot,
            },
            seed: 1,
            ..AuditConfig::default()
        };
        let r = run_audit(&mech(), &cfg).unwrap();
        show(&r);
        if std::env::var("PERF_BIG").is_err() {
            break;
        }
    }
}

#[test]
#[ignore]
fn perf_raw_vs_engine_1thread() {
    use rand::distr::Distribution;
    use rand::SeedableRng;
    use std::time::Instant;
    let n = 50_000_000usize;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut buf = vec![0.0f64; 2048];
    let t = Instant::now();
    let mut s = 0.0;
    let mut u = 0u64;
    for _ in 0..n / 2048 {
        for _ in 0..2048 {
            u = u.wrapping_add(rand::Rng::next_u64(&mut rng));
        }
        s += buf[7];
    }
    eprintln!(
        "raw u64: {:.3e}/s ({s} {u})",
        n as f64 / t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    for _ in 0..n / 2048 {
        for o in buf.iter_mut() {
            *o = rand_distr::StandardNormal.sample(&mut rng);
        }
        s += buf[7];
    }
    eprintln!(
        "raw normal: {:.3e}/s ({s})",
        n as f64 / t.elapsed().as_secs_f64()
    );
    let cfg = AuditConfig {
        samples_per_side: n as u64 / 2,
        selection: Selection::Bonferroni,
        threads: Some(1),
        ..AuditConfig::default()
    };
    let r = run_audit(&mech(), &cfg).unwrap();
    show(&r);
}

#[test]
#[ignore]
fn selection_quality() {
    let n: u64 = std::env::var("SQ_N")
        .map(|s| s.parse().unwrap())
        .unwrap_or(10_000_000);
    for conf in [0.95, 0.999] {
        let mut v = Vec::new();
        for seed in 1..=6 {
            let cfg = AuditConfig {
                samples_per_side: n,
                selection: Selection::HeldOut {
                    pilot_samples: n / 10,
                },
                confidence: conf,
                seed,
                ..AuditConfig::default()
            };
            let r = run_audit(&mech(), &cfg).unwrap();
            v.push(r.eps_lb / EXACT);
        }
        let m = v.iter().sum::<f64>() / v.len() as f64;
        eprintln!("conf {conf}: mean {m:.4} {v:.4?}");
    }
}

/// The audit of the d-dimensional tests: 10^6 draws per side (pilot 2·10^5), δ = 1e-3,
/// confidence 0.999.
fn d_dim_config(statistic: Statistic, seed: u64) -> AuditConfig {
    AuditConfig {
        samples_per_side: 1_000_000,
        selection: Selection::HeldOut {
            pilot_samples: 200_000,
        },
        delta: 1e-3,
        confidence: 0.999,
        statistic,
        seed,
        bins: 1024,
        ..AuditConfig::default()
    }
}

/// The RGM with γ = 0 in d = 5 is the Gaussian mechanism with sensitivity ‖r1 − r2‖ = 1 and
/// σ = 1: exact ε(1e-3) = 3.1386705485829392 (mpmath, Balle–Wang profile at μ = 1). This checks
/// the d-dimensional LLR and the projection statistic against an independent closed form.
/// Confidence 0.999 (false failure of the upper check ≤ 1e-3); the lower check (≥ 0.7 × exact)
/// has a margin: the best single region at 10^6 draws gives ≈ 0.91 × exact (oracle threshold,
/// Wilson approximation); this seed gives 0.875 × exact.
#[test]
fn rgm_without_relative_noise_is_the_gaussian_mechanism() {
    use dpaudit::audit::mechanisms::for_pair;
    const EXACT_RGM: f64 = 3.138_670_548_582_939_2;
    let s = Scalar::from;
    let pair = Pair::rgm(5, s(0.0), s(1.0), s(3.0), s(3.5), s(1.0)).unwrap();
    let m = for_pair(&pair).unwrap();
    for stat in [Statistic::White, Statistic::Black] {
        let r = run_audit(m.as_ref(), &d_dim_config(stat, 5)).unwrap();
        eprintln!(
            "{} {stat}: eps_lb {:.4} claim {:?}",
            r.mechanism, r.eps_lb, r.claimed_eps
        );
        assert!((r.claimed_eps.unwrap() - EXACT_RGM).abs() < 1e-5);
        assert!(
            r.eps_lb <= EXACT_RGM && r.eps_lb >= 0.7 * EXACT_RGM,
            "{}",
            r.eps_lb
        );
    }
}

/// The `gaussian_dd` pair with σ1 = σ2 = 1, ‖m1 − m2‖ = 1 in d = 5 is the same Gaussian mechanism
/// as above (exact ε(1e-3) = 3.1386705485829392, mpmath), now drawn by the family's own
/// `IsotropicGaussian` sampler; with σ2 = 1.2 the variances differ and the claim is the certified
/// profile route's ε (docs/formulas.md §7.4), which the audit may approach but never exceed. Same
/// confidence and lower margin (0.7 × claim) as the RGM test; this seed gives 0.899 × exact for
/// σ2 = 1, and 0.765 (white) and 0.720 (black: the projection is not the optimal statistic when the
/// variances differ) × claim for σ2 = 1.2.
#[test]
fn gaussian_dd_audit_matches_the_gaussian_mechanism() {
    use dpaudit::audit::mechanisms::for_pair;
    const EXACT_GAUSS: f64 = 3.138_670_548_582_939_2;
    let s = Scalar::from;
    for (sigma2, exact) in [(1.0, Some(EXACT_GAUSS)), (1.2, None)] {
        let pair = Pair::gaussian_dd(s(1.0), s(1.0), s(sigma2), 5).unwrap();
        let m = for_pair(&pair).unwrap();
        for stat in [Statistic::White, Statistic::Black] {
            let r = run_audit(m.as_ref(), &d_dim_config(stat, 6)).unwrap();
            let claim = r.claimed_eps.unwrap();
            eprintln!(
                "{} {stat}: eps_lb {:.4} claim {claim:.6}",
                r.mechanism, r.eps_lb
            );
            if let Some(e) = exact {
                assert!((claim - e).abs() < 1e-5, "{claim}");
            }
            assert!(
                r.eps_lb <= claim && r.eps_lb >= 0.7 * claim,
                "{}: {} vs {claim}",
                r.mechanism,
                r.eps_lb
            );
        }
    }
}
