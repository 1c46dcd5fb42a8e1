//! Benchmarks of the accounting module: single-step subsampled-Gaussian Rényi divergence at 30
//! digits (binomial closed form at integer α, quadrature at fractional α, both orders), and the
//! exact full-batch composition ε(δ).

use criterion::{criterion_group, criterion_main, Criterion};
use dpaudit::accounting::{self, Order, SubsampledGaussian};
use dpaudit::Scalar;
use std::hint::black_box;

fn sc(s: &str) -> Scalar {
    s.parse().unwrap()
}

fn bench(c: &mut Criterion) {
    let m = SubsampledGaussian::new(sc("0.01"), sc("1")).unwrap();
    let (a_int, a_frac) = (sc("32"), sc("9.5"));
    c.bench_function("subsampled_renyi_binomial_a32_30", |b| {
        b.iter(|| accounting::renyi(black_box(&m), &a_int, Order::Remove, 30).unwrap())
    });
    c.bench_function("subsampled_renyi_quad_remove_a9.5_30", |b| {
        b.iter(|| accounting::renyi(black_box(&m), &a_frac, Order::Remove, 30).unwrap())
    });
    c.bench_function("subsampled_renyi_quad_add_a9.5_30", |b| {
        b.iter(|| accounting::renyi(black_box(&m), &a_frac, Order::Add, 30).unwrap())
    });
    let (sigma, delta) = (sc("10"), sc("1e-5"));
    c.bench_function("full_batch_eps_T1000_30", |b| {
        b.iter(|| accounting::full_batch_eps(black_box(&sigma), 1000, &delta, 30).unwrap())
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench
}
criterion_main!(benches);
