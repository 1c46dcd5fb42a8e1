//! HG §6.1 mean estimation: rectified MSE closed form against Monte Carlo, and the privacy cost
//! of the rectified mechanism against the Gaussian at equal MSE (the "up to 30 %" claim).

use dpaudit::dist::stream::chunk_rng;
use dpaudit::train::hg::{mean_estimation_row, rectified_mse, rectified_sigma_for_mse};
use rand::RngExt;
use rand_distr::StandardNormal;

#[test]
fn rectified_mse_closed_form_matches_monte_carlo() {
    let mut rng = chunk_rng(5, 0);
    for (mu, s, a, b) in [
        (0.2, 0.7, -1.0, 1.0),
        (0.9, 2.0, -0.5, 1.5),
        (0.0, 0.1, -1.0, 1.0),
    ] {
        let n = 400_000;
        let mut acc = 0.0;
        let mut acc2 = 0.0;
        for _ in 0..n {
            let z: f64 = rng.sample(StandardNormal);
            let e = ((mu + s * z) as f64).clamp(a, b) - mu;
            acc += e * e;
            acc2 += e.powi(4);
        }
        let mc = acc / n as f64;
        let se = ((acc2 / n as f64 - mc * mc) / n as f64).sqrt();
        let cf = rectified_mse(mu, s, a, b);
        assert!(
            (mc - cf).abs() < 5.0 * se,
            "mu {mu} s {s}: MC {mc} ± {se} vs {cf}"
        );
    }
}

#[test]
fn mean_estimation_privacy_at_equal_mse() {
    // d = 10, n = 100 records with coordinates uniform in [−1, 1] (5 seeds); α = 2.
    // Support [−1 + s, 1 + s] with biasedness s ∈ {0, 0.5, 1}; Gaussian σ ∈ {0.3, 0.6, 1.0}.
    let (d, n, alpha) = (10usize, 100usize, 2.0);
    let mut best: f64 = 0.0;
    for shift in [0.0, 0.5, 1.0] {
        for sg in [0.3, 0.6, 1.0] {
            let mut red = Vec::new();
            for seed in 0..5u64 {
                let mut rng = chunk_rng(seed, 0);
                let mut m = vec![0.0; d];
                for _ in 0..n {
                    for v in m.iter_mut() {
                        *v += (2.0 * rng.random::<f64>() - 1.0) / n as f64;
                    }
                }
                let (lo, hi) = (-1.0 + shift, 1.0 + shift);
                let g = mean_estimation_row(&m, n, sg, lo, hi, alpha).unwrap();
                let sr = rectified_sigma_for_mse(&m, lo, hi, g.mse_gauss);
                let r = match sr {
                    // σ_R > 100: the target MSE is at the rectified mechanism's saturation (output
                    // almost always on the box corners); the comparison is degenerate, skipped.
                    Ok(sr) if sr <= 100.0 => mean_estimation_row(&m, n, sr, lo, hi, alpha).unwrap(),
                    _ => continue,
                };
                assert!((r.mse_rect - g.mse_gauss).abs() < 1e-9 * g.mse_gauss);
                red.push(1.0 - r.rdp_rect / g.rdp_gauss);
            }
            if !red.is_empty() {
                let mean = red.iter().sum::<f64>() / red.len() as f64;
                eprintln!(
                    "shift {shift} sigma_G {sg}: {} seeds, mean RDP reduction at equal MSE {:.1} %",
                    red.len(),
                    100.0 * mean
                );
                best = best.max(mean);
                if shift == 0.0 && sg == 0.3 {
                    // Rectification almost never triggers (the box is 3σ from the mean): the
                    // two mechanisms must nearly coincide.
                    assert!(mean.abs() < 0.05, "{mean}");
                }
            } else {
                eprintln!(
                    "shift {shift} sigma_G {sg}: Gaussian MSE below the rectified bias floor"
                );
            }
        }
    }
    eprintln!("largest mean reduction: {:.1} %", 100.0 * best);
}
