//! Benchmarks of the quadrature route: truncated-Gaussian Rényi divergence at 30, 50 and 100
//! digits, for a central pair (μ = 0.3, 1.3 on [−1, 1], σ = 1, α = 2; the target is
//! ≤ 0.6 / 1.4 / 3.7 ms) and a far-tail pair (μ = 10, 11: 9σ beyond b).

use criterion::{criterion_group, criterion_main, Criterion};
use dpaudit::divergence::{self, Method, Pair};
use dpaudit::Scalar;
use std::hint::black_box;

fn sc(s: &str) -> Scalar {
    s.parse().unwrap()
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

criterion_group!(benches, bench);
criterion_main!(benches);
