//! Unit tests of the training loop that need crate-private numerics.

use super::model::Logistic;
use super::optim::{Sampling, SgdConfig, Trainer};
use crate::numeric::chi2::chi2_sf;
use crate::train::data::Dataset;
use rug::Float;

#[test]
fn poisson_batch_sizes_are_binomial_chi2() {
    let n = 50usize;
    let q = 0.2;
    let data = Dataset::new(1, vec![0.5; n], vec![1.0; n]).unwrap();
    let model = Logistic::new(1).unwrap();
    let cfg = SgdConfig::dpsgd(q, 1.0, 1.0, 20_000, 0.0);
    let out = Trainer::new(&model, &data, None, &cfg)
        .unwrap()
        .train(11)
        .unwrap();
    let mut counts = vec![0f64; n + 1];
    for &b in &out.batch_sizes {
        counts[b] += 1.0;
    }
    // Binomial(50, 0.2) probabilities, cells pooled until each expects ≥ 5.
    let total = out.batch_sizes.len() as f64;
    let mut pmf = vec![0f64; n + 1];
    let mut c = 1.0f64;
    for (k, pk) in pmf.iter_mut().enumerate() {
        if k > 0 {
            c = c * (n - k + 1) as f64 / k as f64;
        }
        *pk = c * q.powi(k as i32) * (1.0 - q).powi((n - k) as i32);
    }
    let (mut obs, mut exp) = (Vec::new(), Vec::new());
    let (mut o, mut e) = (0.0, 0.0);
    for k in 0..=n {
        o += counts[k];
        e += pmf[k] * total;
        if e >= 5.0 && (pmf[k + 1..].iter().sum::<f64>() * total >= 5.0) {
            obs.push(o);
            exp.push(e);
            o = 0.0;
            e = 0.0;
        }
    }
    *obs.last_mut().unwrap() += o;
    *exp.last_mut().unwrap() += e;
    let stat: f64 = obs
        .iter()
        .zip(&exp)
        .map(|(o, e)| (o - e) * (o - e) / e)
        .sum();
    let dof = (obs.len() - 1) as u32;
    let p = chi2_sf(dof, &Float::with_val(64, stat)).unwrap().to_f64();
    assert!(p > 1e-6, "chi2 = {stat} on {dof} dof, p = {p}");
    // Fixed-size batches have exactly b records; shuffled ones cover each record once an epoch.
    let fixed = SgdConfig {
        sampling: Sampling::FixedSize { batch: 7 },
        ..cfg.clone()
    };
    let out = Trainer::new(&model, &data, None, &fixed)
        .unwrap()
        .train(1)
        .unwrap();
    assert!(out.batch_sizes.iter().all(|&b| b == 7));
    let shuf = SgdConfig {
        sampling: Sampling::Shuffle { batch: 7 },
        steps: 16,
        ..cfg.clone()
    };
    let out = Trainer::new(&model, &data, None, &shuf)
        .unwrap()
        .train(1)
        .unwrap();
    assert_eq!(
        out.batch_sizes,
        vec![7, 7, 7, 7, 7, 7, 7, 1, 7, 7, 7, 7, 7, 7, 7, 1]
    );
}
