#![allow(clippy::excessive_precision)] // reference digits kept as mpmath printed them
use super::{
    erfcx, gaussian_delta, gaussian_eps_for_delta, log_ndtr, log_ndtr_diff, ndtr, ndtri,
    ndtri_upper, PI,
};

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

// Reference values: mpmath 1.3.0 at dps 40 (ncdf, log(ncdf), erfc(z)*exp(z^2)), computed
// independently of this code.
#[test]
fn ndtr_reference_values() {
    assert!(rel(ndtr(-1.0), 0.15865525393145705142) < 2e-16);
    assert!(rel(ndtr(-10.0), 7.619853024160526066e-24) < 1e-14);
    // Subnormal result: only ~8 significant digits are representable there.
    assert!(rel(ndtr(-38.0), 2.8854283600687843084e-316) < 1e-7);
    assert!(rel(ndtr(2.0), 0.9772498680518207928) < 2e-16);
}

#[test]
fn log_ndtr_far_tail() {
    assert!(rel(log_ndtr(-40.0), -804.608442013754) < 1e-13);
    assert!(rel(log_ndtr(-1e5), -5000000012.431863998275) < 1e-15);
    assert!(rel(log_ndtr(10.0), -7.619853024160526070e-24) < 1e-14);
}

#[test]
fn erfcx_continuity_and_tail() {
    for z in [1.9, 1.99, 2.0, 2.01, 5.0, 30.0, 1e5] {
        let a = erfcx(z);
        let asym = 1.0 / (z * PI.sqrt()) * (1.0 - 0.5 / (z * z) + 0.75 / z.powi(4));
        assert!(rel(a, asym) < 2.0 / z.powi(6) + 1e-15, "z={z}");
    }
    assert!(rel(erfcx(1.99), erfcx(2.0)) < 0.01);
    assert!(rel(erfcx(2.0), 0.25539567631050574) < 2e-15);
}

#[test]
fn quantile_inverts_cdf() {
    for p in [1e-300, 1e-50, 1e-10, 0.001, 0.1, 0.3, 0.5, 0.7, 0.999] {
        let x = ndtri(p);
        assert!(rel(ndtr(x), p) < 1e-13, "p={p} x={x}");
    }
    for q in [1e-300, 1e-20, 0.01, 0.4] {
        let x = ndtri_upper(q);
        assert!(rel(ndtr(-x), q) < 1e-13, "q={q}");
    }
}

#[test]
fn log_ndtr_diff_sides() {
    // Φ(−8)−Φ(−9) and the mirror
    let v = log_ndtr_diff(-9.0, -8.0).exp();
    let w = log_ndtr_diff(8.0, 9.0).exp();
    assert!(rel(v, 6.2198319858658302829e-16) < 1e-13);
    assert!(rel(v, w) < 1e-15);
    assert!(rel(log_ndtr_diff(-1.0, 1.0).exp(), 0.68268949213708589717) < 1e-15);
}

#[test]
fn gaussian_profile_known_value() {
    // Δ = 1, σ = 5: ε(δ = 1e-5) = 0.72552... (issue 3 brief; Balle–Wang).
    let e = gaussian_eps_for_delta(0.2, 1e-5);
    assert!((e - 0.72552).abs() < 1e-5, "{e}");
    // Overflow-free at ε = 1560, Δ/σ = 50 (docs/formulas.md §7.1: δ = 2.504e-10).
    let d = gaussian_delta(50.0, 1560.0);
    assert!(rel(d, 2.504e-10) < 1e-3, "{d}");
}
