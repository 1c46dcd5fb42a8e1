//! Audit throughput (statistics drawn and binned per second) for the Gaussian mechanism
//! (sensitivity 1, σ = 5), beside the raw baseline in the same run: `rand_distr::StandardNormal`
//! (ziggurat) on the same ChaCha8 generator filling a buffer. `Throughput::Elements` makes
//! criterion report samples/s directly.
//!
//! * `baseline StandardNormal, 1 thread` vs `engine bin_statistic, 1 thread`: the per-core cost
//!   of the engine's hot loop (draw, affine map, bin) against drawing alone;
//! * `baseline StandardNormal, all threads` vs `run_audit 10^7/side, all threads`: the whole
//!   audit (both sides, pilot, selection, Clopper–Pearson, GDP route, claim) against parallel
//!   drawing alone.
//!
//! Run briefly with `cargo bench --bench audit -- --warm-up-time 1 --measurement-time 5`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dpaudit::audit::engine::{run_audit, AuditConfig, Grid, Selection, CHUNK};
use dpaudit::audit::mechanisms::{GaussianMechanism, Mechanism, Side, Statistic};
use dpaudit::mechanisms::stream::{chunk_rng, fill_chunked};
use rand::distr::Distribution;
use rand_distr::StandardNormal;
use std::hint::black_box;

fn audit(c: &mut Criterion) {
    let mech = GaussianMechanism::new(1.0, 5.0).unwrap();
    let n = CHUNK as usize;

    let mut g = c.benchmark_group("audit_1thread");
    g.throughput(Throughput::Elements(n as u64));
    let mut buf = vec![0.0f64; n];
    let mut rng = chunk_rng(1, 0);
    g.bench_function("baseline StandardNormal, 1 thread", |b| {
        b.iter(|| {
            for o in buf.iter_mut() {
                *o = StandardNormal.sample(&mut rng);
            }
            black_box(&buf);
        })
    });
    let (lo, hi) = mech.statistic_range(Statistic::White);
    let grid = Grid::new(lo, hi, 4096).unwrap();
    let mut counts = vec![0u32; grid.slots()];
    g.bench_function("engine bin_statistic, 1 thread", |b| {
        b.iter(|| {
            counts.fill(0);
            mech.bin_statistic(Side::P, Statistic::White, &mut rng, &grid, n, &mut counts);
            black_box(&counts);
        })
    });
    g.finish();

    let per_side: u64 = 10_000_000;
    let pilot: u64 = 1_000_000;
    let total = 2 * (per_side + pilot);
    let mut g = c.benchmark_group("audit_all_threads");
    g.sample_size(10);
    g.throughput(Throughput::Elements(total));
    let mut big = vec![0.0f64; total as usize];
    g.bench_function("baseline StandardNormal, all threads", |b| {
        b.iter(|| {
            fill_chunked(1, &mut big, n, |rng, c| {
                for o in c.iter_mut() {
                    *o = StandardNormal.sample(rng);
                }
            })
            .unwrap();
            black_box(&big);
        })
    });
    drop(big);
    let cfg = AuditConfig {
        samples_per_side: per_side,
        selection: Selection::HeldOut {
            pilot_samples: pilot,
        },
        ..AuditConfig::default()
    };
    g.bench_function("run_audit 10^7/side (pilot 10^6), all threads", |b| {
        b.iter(|| black_box(run_audit(&mech, &cfg).unwrap().eps_lb))
    });
    g.finish();
}

criterion_group!(benches, audit);
criterion_main!(benches);
