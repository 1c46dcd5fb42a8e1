//! HG Prop. 5.1 (per-coordinate accounting) against direct d-dimensional quadrature of the joint
//! Rényi integral, d = 2 and 3, truncated Gaussian noise on a box; and the FIL diagonal.

use dpaudit::divergence::{self, Location, Method};
use dpaudit::train::hg::{BoxLaw, BoxMechanism};
use dpaudit::Scalar;
use quadrature::double_exponential::integrate;

fn phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// Joint density of independent truncated Gaussians at x.
fn joint(m: &BoxMechanism, mu: &[f64], x: &[f64]) -> f64 {
    (0..x.len())
        .map(|i| {
            let s = m.sigma[i];
            let z = phi((m.b[i] - mu[i]) / s) - phi((m.a[i] - mu[i]) / s);
            let u = (x[i] - mu[i]) / s;
            (-0.5 * u * u).exp() / ((2.0 * std::f64::consts::PI).sqrt() * s * z)
        })
        .product()
}

/// D_α by nested double-exponential quadrature over the whole box (the joint integrand, not
/// factorised).
fn direct(m: &BoxMechanism, mu1: &[f64], mu2: &[f64], alpha: f64) -> f64 {
    let d = mu1.len();
    fn nest(m: &BoxMechanism, mu1: &[f64], mu2: &[f64], alpha: f64, x: &[f64], d: usize) -> f64 {
        let k = x.len();
        if k == d {
            let p = joint(m, mu1, x);
            let q = joint(m, mu2, x);
            return p.powf(alpha) * q.powf(1.0 - alpha);
        }
        integrate(
            |t| {
                let mut y = x.to_vec();
                y.push(t);
                nest(m, mu1, mu2, alpha, &y, d)
            },
            m.a[k],
            m.b[k],
            1e-13,
        )
        .integral
    }
    nest(m, mu1, mu2, alpha, &[], d).ln() / (alpha - 1.0)
}

#[test]
fn prop51_sum_matches_direct_quadrature_d2_d3() {
    let m2 = BoxMechanism::new(
        BoxLaw::by_name("truncated").unwrap(),
        vec![0.7, 1.3],
        vec![-1.0, -0.5],
        vec![1.0, 2.0],
    )
    .unwrap();
    let (mu1, mu2) = ([0.2, -0.3], [-0.4, 0.9]);
    for alpha in [1.5, 2.0, 4.0] {
        let s = m2.renyi(&mu1, &mu2, alpha, 20).unwrap().to_f64();
        let q = direct(&m2, &mu1, &mu2, alpha);
        assert!((s - q).abs() < 1e-9 * s, "d=2 alpha={alpha}: {s} vs {q}");
    }
    let m3 = BoxMechanism::new(
        BoxLaw::by_name("truncated").unwrap(),
        vec![0.5, 1.0, 2.0],
        vec![-1.0, 0.0, -2.0],
        vec![1.0, 1.0, 1.0],
    )
    .unwrap();
    let (mu1, mu2) = ([0.0, 0.2, 0.5], [0.3, 0.9, -1.0]);
    let s = m3.renyi(&mu1, &mu2, 2.0, 20).unwrap().to_f64();
    let q = direct(&m3, &mu1, &mu2, 2.0);
    assert!((s - q).abs() < 1e-8 * s, "d=3: {s} vs {q}");
}

#[test]
fn fisher_diagonal_is_the_one_dimensional_fisher_information_per_coordinate() {
    let m = BoxMechanism::new(
        BoxLaw::by_name("rectified").unwrap(),
        vec![0.5, 2.0],
        vec![-1.0, 0.0],
        vec![1.0, 3.0],
    )
    .unwrap();
    let diag = m.fisher_diag(&[0.3, 2.5], 20).unwrap();
    let loc = Location::new(
        "rectified",
        Scalar::from(2.5),
        Scalar::from(2.0),
        Some((Scalar::from(0.0), Scalar::from(3.0))),
    )
    .unwrap();
    let q = divergence::fisher(&loc, 12, Method::Quadrature).unwrap();
    assert!((diag[1].to_f64() - q.to_f64()).abs() < 1e-11 * q.to_f64());
    // The rectified Fisher information is below the Gaussian's 1/σ² (HG Lemma 4.1).
    assert!(diag[0].to_f64() < 1.0 / 0.25 && diag[1].to_f64() < 1.0 / 4.0);
    assert!(m
        .renyi(&[0.0], &[0.0, 1.0], 2.0, 10)
        .unwrap_err()
        .to_string()
        .contains("mu1"));
}
