use super::{
    for_pair, AuditDraws, GaussianMechanism, Mechanism, ModelMechanism, Pair, Result, Scalar, Side,
    Statistic, StreamRng, Which,
};
use crate::mechanisms::gaussian_dd::norm;
use crate::mechanisms::rectified::RectifiedDraws;
use crate::mechanisms::rgm::{RgmDraws, RgmPair};
use crate::mechanisms::sign::SignDraws;
use crate::mechanisms::truncated::TruncatedDraws;
use crate::mechanisms::Bounded;
use rand::SeedableRng;

/// The RGM audit route of the pair (d, ‖r1‖, ‖r2‖, ‖r1 − r2‖, γ, σ²) given in doubles.
fn rgm_from_norms(d: u32, n1: f64, n2: f64, dist: f64, g: f64, s2: f64) -> Result<RgmDraws> {
    let s = Scalar::from;
    let pair = Pair::rgm(d, s(g), s(s2), s(n1), s(n2), s(dist))?;
    RgmDraws::from_pair(pair.downcast_ref::<RgmPair>().unwrap())
}

fn bounded(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64) -> Result<Bounded> {
    Bounded::new(mu1, mu2, sigma, a, b)
}

fn rng() -> StreamRng {
    StreamRng::seed_from_u64(1)
}

#[test]
fn constructors_reject_bad_input() {
    assert!(GaussianMechanism::new(0.0, 1.0).is_err());
    assert!(GaussianMechanism::new(1.0, f64::NAN).is_err());
    assert!(RgmDraws::new(vec![], vec![], 1.0, 1.0).is_err());
    assert!(RgmDraws::new(vec![1.0], vec![1.0, 2.0], 1.0, 1.0).is_err());
    assert!(RgmDraws::new(vec![1.0], vec![2.0], -1.0, 1.0).is_err());
    assert!(rgm_from_norms(3, 1.0, 1.0, 3.0, 1.0, 1.0).is_err());
    assert!(rgm_from_norms(1, 1.0, 1.0, 1.0, 1.0, 1.0).is_err());
    assert!(bounded(0.0, 1.0, 1.0, 1.0, 0.0).is_err());
    // Far tails are fine with the family's sampler.
    assert!(TruncatedDraws::new(bounded(-40.0, -39.0, 1.0, 0.0, 1.0).unwrap()).is_ok());
    assert!(SignDraws::new(0.0, 1.0, 0.0).is_err());
}

#[test]
fn rgm_from_norms_realises_the_triple() {
    let m = rgm_from_norms(5, 3.0, 4.0, 5.0, 0.1, 1.0).unwrap();
    assert!((norm(&m.geo.r1) - 3.0).abs() < 1e-12);
    assert!((norm(&m.geo.r2) - 4.0).abs() < 1e-12);
    assert!((m.geo.dist - 5.0).abs() < 1e-12);
    let m1 = rgm_from_norms(1, 3.0, 4.0, 1.0, 0.1, 1.0).unwrap();
    assert_eq!(m1.geo.r2, vec![4.0]);
}

/// The RGM white-box statistic equals the closed-form 1-D log-density ratio.
#[test]
fn rgm_llr_matches_log_density_ratio() {
    let m = RgmDraws::new(vec![1.0], vec![2.5], 0.3, 0.7).unwrap();
    let [s1, s2] = m.geo.s;
    for y in [-3.0, 0.0, 1.7, 9.0] {
        let lp = -0.5 * ((y - 1.0) / s1).powi(2) - s1.ln();
        let lq = -0.5 * ((y - 2.5) / s2).powi(2) - s2.ln();
        assert!((m.geo.stat_of(Statistic::White, &[y]) - (lp - lq)).abs() < 1e-12);
    }
}

/// The rectified atoms' LLRs lie outside the interior range (so they get their own bins),
/// and every statistic lands within or beyond the stated range consistently.
#[test]
fn rectified_atoms_outside_interior_range() {
    let m = RectifiedDraws::new(bounded(0.3, 1.3, 1.0, 0.0, 1.0).unwrap()).unwrap();
    let (lo, hi) = m.statistic_range(Statistic::White);
    assert!(m.atom_llr.iter().all(|&l| l < lo || l > hi));
    let (lo, _) = m.statistic_range(Statistic::Black);
    assert!(m.stat_of(Statistic::Black, 0.0) < lo);
    let mut out = vec![0.0; 1000];
    m.draw_statistics(Which::P1, Statistic::White, &mut rng(), &mut out);
    assert!(out.iter().all(|x| x.is_finite()));
}

#[test]
fn samples_are_reproducible() {
    let g = GaussianMechanism::new(1.0, 5.0).unwrap();
    let mut a = vec![0.0; 100];
    let mut b = vec![0.0; 100];
    g.sample_statistic(Side::Q, Statistic::White, &mut rng(), &mut a);
    g.sample_statistic(Side::Q, Statistic::White, &mut rng(), &mut b);
    assert_eq!(a, b);
}

/// Claimed ε of the Gaussian at σ = 5, δ = 1e-5: 0.72552 (brief; Balle–Wang profile).
#[test]
fn gaussian_claim() {
    let g = GaussianMechanism::new(1.0, 5.0).unwrap();
    let e = g.claimed_eps(1e-5).unwrap();
    assert!((e - 0.72552).abs() < 1e-5, "{e}");
}

/// The `gaussian_dd` audit route's white-box statistic is the log-density ratio of its two
/// samplers, and the mechanism refuses a dimension it will not allocate.
#[test]
fn gaussian_dd_llr_and_refusals() {
    use crate::mechanisms::IsotropicGaussian;
    let sc = |x: &str| x.parse::<Scalar>().unwrap();
    let pair = Pair::gaussian_dd(sc("0.8"), sc("1.3"), sc("0.9"), 3).unwrap();
    let m = ModelMechanism::new(pair.clone()).unwrap();
    let geo = &crate::mechanisms::gaussian_dd::GaussianDdDraws::of_pair(&pair)
        .unwrap()
        .geo;
    let p = IsotropicGaussian::new(vec![0.0; 3], 1.3).unwrap();
    let q = IsotropicGaussian::new(vec![0.8, 0.0, 0.0], 0.9).unwrap();
    for y in [[0.0, 0.0, 0.0], [1.0, -2.0, 0.5], [-4.0, 3.0, 7.0]] {
        let want = p.ln_pdf(&y).unwrap() - q.ln_pdf(&y).unwrap();
        let got = geo.stat_of(Statistic::White, &y);
        assert!(
            (got - want).abs() < 1e-12 * want.abs().max(1.0),
            "{got} vs {want}"
        );
    }
    assert_eq!(m.name(), pair.to_string());
    let huge = Pair::gaussian_dd(sc("1"), sc("1"), sc("1"), 2_000_000).unwrap();
    let e = for_pair(&huge).err().expect("refused").to_string();
    assert!(e.contains("at most 100000 "), "{e}");
}
