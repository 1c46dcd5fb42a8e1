//! DP-SGD steps per second on the digits MLP (64-32-10, Poisson q = 0.05, batches of ~72) and
//! the training audit's runs per second (full-batch DP-GD, T = 10, 4 records + canary).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dpaudit::train::sgd::audit::{run_training_audit, CanaryProblem, TrainingAuditConfig, View};
use dpaudit::train::sgd::digits;
use dpaudit::train::sgd::model::Mlp;
use dpaudit::train::sgd::optim::{OsoParams, SgdConfig, Trainer};
use std::hint::black_box;
use std::path::Path;

fn bench(c: &mut Criterion) {
    let data = digits::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/digits.csv"))
        .expect("data/digits.csv");
    let (train, _) = digits::split_every(&data, 5).unwrap();
    let model = Mlp::new(64, 32, 10).unwrap();
    let mut g = c.benchmark_group("dpsgd_digits_mlp");
    g.sample_size(10);
    let steps = 100u64;
    g.throughput(Throughput::Elements(steps));
    let sgd = SgdConfig::dpsgd(0.05, 1.0, 1.0, steps, 0.5);
    g.bench_function("dpsgd_100_steps", |b| {
        let tr = Trainer::new(&model, &train, None, &sgd).unwrap();
        b.iter(|| black_box(tr.train(1).unwrap()))
    });
    let oso = SgdConfig {
        oso: Some(OsoParams::paper(1.0).unwrap()),
        ..sgd.clone()
    };
    g.bench_function("oso_100_steps", |b| {
        let tr = Trainer::new(&model, &train, None, &oso).unwrap();
        b.iter(|| black_box(tr.train(1).unwrap()))
    });
    g.finish();

    let mut g = c.benchmark_group("dpsgd_audit");
    g.sample_size(10);
    let runs = 100_000u64;
    let pilot = 10_000u64;
    g.throughput(Throughput::Elements(2 * (runs + pilot)));
    let pb = CanaryProblem::orthogonal(4).unwrap();
    let cfg = SgdConfig {
        batch_norm: Some(4.0),
        ..SgdConfig::dpsgd(1.0, 1.0, 6.305, 10, 0.5)
    };
    let acfg = TrainingAuditConfig {
        runs_per_side: runs,
        pilot_runs_per_side: pilot,
        delta: 1e-5,
        confidence: 0.95,
        seed: 0,
        threads: None,
    };
    g.bench_function("dpgd_white_box_runs", |b| {
        b.iter(|| black_box(run_training_audit(&pb, &cfg, View::WhiteBox, &acfg).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
