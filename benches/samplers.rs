//! Sampler throughput (samples per second) next to the raw baseline: `rand_distr::StandardNormal`
//! (ziggurat) on the same ChaCha8 generator, in the same run. Every benchmark fills a buffer of
//! `N` doubles per iteration, so `Throughput::Elements(N)` makes criterion report samples/s
//! directly (coordinates/s for the d-dimensional RGM).
//!
//! Run briefly with
//! `cargo bench --bench samplers -- --warm-up-time 1 --measurement-time 2`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dpaudit::mechanisms::stream::chunk_rng;
use dpaudit::mechanisms::{Gaussian, Rectified, Rgm, StochasticSign, Truncated};
use rand::distr::Distribution;
use rand_distr::StandardNormal;
use std::hint::black_box;

const N: usize = 10_000;

fn samplers(c: &mut Criterion) {
    let mut g = c.benchmark_group("samplers");
    g.throughput(Throughput::Elements(N as u64));
    let mut buf = vec![0.0f64; N];

    let mut rng = chunk_rng(1, 0);
    g.bench_function("baseline StandardNormal", |b| {
        b.iter(|| {
            for o in buf.iter_mut() {
                *o = StandardNormal.sample(&mut rng);
            }
            black_box(&buf);
        })
    });

    let gauss = Gaussian::new(0.5, 2.0).unwrap();
    g.bench_function("Gaussian", |b| {
        b.iter(|| {
            gauss.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let rect = Rectified::new(0.3, 1.0, -1.0, 1.0).unwrap();
    g.bench_function("Rectified [-1,1], mu=0.3", |b| {
        b.iter(|| {
            rect.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let t_c = Truncated::new(0.0, 1.0, -1.0, 1.0).unwrap();
    g.bench_function("Truncated central [-1,1]", |b| {
        b.iter(|| {
            t_c.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let t_40 = Truncated::new(-40.0, 1.0, 0.0, 1.0).unwrap();
    g.bench_function("Truncated 40sigma below a", |b| {
        b.iter(|| {
            t_40.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let t_40s = Truncated::new(-40.0, 1.0, 0.0, 0.05).unwrap();
    g.bench_function("Truncated 40sigma, short [0,0.05]", |b| {
        b.iter(|| {
            t_40s.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let t_40i = Truncated::new(-40.0, 1.0, 0.0, 0.02).unwrap();
    g.bench_function("Truncated 40sigma, short [0,0.02]", |b| {
        b.iter(|| {
            t_40i.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let t_1000 = Truncated::new(1001.0, 1.0, 0.0, 1.0).unwrap();
    g.bench_function("Truncated 1000sigma above b", |b| {
        b.iter(|| {
            t_1000.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    let sign = StochasticSign::new(0.3, 1.0).unwrap();
    g.bench_function("StochasticSign", |b| {
        b.iter(|| {
            sign.sample_many(&mut rng, &mut buf);
            black_box(&buf);
        })
    });

    for d in [10usize, 1000] {
        let m = Rgm::new(0.5, 1.0, d).unwrap();
        let r: Vec<f64> = (0..d).map(|i| (i as f64).sin()).collect();
        g.bench_function(format!("RGM d={d} (per coordinate)"), |b| {
            b.iter(|| {
                for y in buf.chunks_exact_mut(d) {
                    m.sample_into(&r, &mut rng, y).unwrap();
                }
                black_box(&buf);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, samplers);
criterion_main!(benches);
