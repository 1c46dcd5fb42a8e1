//! Timing of the two-node DP-GD of HMB App. C at the paper's scale (n = 141,691, d = 22):
//! one 40-step run per release (target: ≤ 2 s for a run; the setup — split, A, θ*, η — is
//! benchmarked separately).

use criterion::{criterion_group, criterion_main, Criterion};
use dpaudit::train::data::{synthetic, SyntheticSpec};
use dpaudit::train::dpgd::{RdpTarget, Release, Split, TwoNode};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let data = synthetic(&SyntheticSpec::ijcnn1_scale(), 0).unwrap();
    let mut g = c.benchmark_group("train_two_node_n141691_d22");
    g.sample_size(10);
    g.bench_function("setup_random_split", |b| {
        b.iter(|| black_box(TwoNode::new(&data, 0.03, Split::Random, 1).unwrap()))
    });
    let tn = TwoNode::new(&data, 0.03, Split::Random, 1).unwrap();
    let rgm = dpaudit::model::noise::RelativeFamily::named("noise", "rgm").unwrap();
    for (name, rel) in [
        ("40_steps_clip_c", Release::Clip { factor: 1.0 }),
        ("40_steps_rgm", Release::Relative(rgm)),
        ("40_steps_nonprivate", Release::NonPrivate),
    ] {
        g.bench_function(name, |b| {
            b.iter(|| black_box(tn.run(rel, RdpTarget::default(), 40, 7).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
