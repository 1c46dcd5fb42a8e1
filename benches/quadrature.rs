//! Benchmarks of the quadrature route: truncated-Gaussian Rényi divergence at 30, 50 and 100
//! digits, for a central pair (μ = 0.3, 1.3 on [−1, 1], σ = 1, α = 2; the target is
//! ≤ 0.6 / 1.4 / 3.7 ms) and a far-tail pair (μ = 10, 11: 9σ beyond b). And the whole exact
//! privacy profile of the report's RGM pairs (audits/rgm_d10.toml, rgm_d100.toml): 31 δ
//! log-spaced in [1e-12, 0.1], both orders, 8 certified digits per point (issue 11 §4: ≤ 10 s
//! each). `cargo bench --bench quadrature -- rgm_profile --test` runs each once.

use criterion::{criterion_group, criterion_main, Criterion};
use dpaudit::compare::curves::{exact_profile_dd, log_grid};
use dpaudit::divergence::{self, Method, Pair};
use dpaudit::Scalar;
use std::hint::black_box;

fn sc(s: &str) -> Scalar {
    s.parse().unwrap()
}

/// The pair of audits/rgm_d{d}.toml.
fn rgm_pair(d: u32) -> Pair {
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

fn bench_profiles(c: &mut Criterion) {
    let deltas = log_grid(1e-12, 0.1, 31);
    let mut g = c.benchmark_group("rgm_profile");
    g.sample_size(10);
    for d in [10u32, 100] {
        let pair = rgm_pair(d);
        g.bench_function(format!("rgm_profile_d{d}"), |b| {
            b.iter(|| exact_profile_dd(black_box(&pair), &deltas, 8).unwrap())
        });
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let central = Pair::truncated(sc("0.3"), sc("1.3"), sc("1"), sc("-1"), sc("1")).unwrap();
    let far = Pair::truncated(sc("10"), sc("11"), sc("1"), sc("-1"), sc("1")).unwrap();
    let alpha = sc("2");
    for digits in [30u32, 50, 100] {
        // Warm the node cache outside the measurement.
        divergence::renyi(&central, &alpha, digits, Method::Quadrature).unwrap();
        divergence::renyi(&far, &alpha, digits, Method::Quadrature).unwrap();
        c.bench_function(&format!("truncated_renyi_central_{digits}"), |b| {
            b.iter(|| {
                divergence::renyi(
                    black_box(&central),
                    black_box(&alpha),
                    digits,
                    Method::Quadrature,
                )
                .unwrap()
            })
        });
        c.bench_function(&format!("truncated_renyi_far9_{digits}"), |b| {
            b.iter(|| {
                divergence::renyi(
                    black_box(&far),
                    black_box(&alpha),
                    digits,
                    Method::Quadrature,
                )
                .unwrap()
            })
        });
    }
}

criterion_group!(benches, bench, bench_profiles);
criterion_main!(benches);
