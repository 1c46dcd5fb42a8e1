//! Private mean estimation with per-coordinate Gaussian, rectified and truncated noise (Hu & Guo,
//! "HG", §6.1 and Figure 2's shape): closed-form MSE of each mechanism, per-instance RDP through
//! the certified routes (HG Prop. 5.1 with the worst replace-one neighbour per coordinate), the
//! MSE-against-RDP curves over a σ grid, and the privacy cost of the bounded mechanisms at equal
//! MSE. Settings and derivations: `docs/training.md#hg-mean-estimation`.
//!
//! Data: n records with coordinates N(0, s_d²) clipped to [−1, 1]; the released location is their
//! mean m ∈ [−1, 1]^d (replace-one: each coordinate moves by at most 2/n). The box is
//! [c − w, c + w]^d; the biasedness is c, the distance between the box centre and the
//! population mean 0 (HG §6.1 defines it as the distance between the location parameter and the
//! rectification centre). Seed k draws its data from `chunk_rng(k, 0)`.

use super::hg::{worst_neighbour_renyi, BoxLaw, Noise};
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::mechanisms::Gaussian;
use crate::numeric::mp::Certified;

fn check_one(mu: f64, sigma: f64, a: f64, b: f64) -> Result<()> {
    if !mu.is_finite() {
        return Err(Error::invalid("mu", mu, "finite"));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(Error::invalid("sigma", sigma, "finite and > 0"));
    }
    if !(a < b && a.is_finite() && b.is_finite()) {
        return Err(Error::invalid(
            "support [a, b]",
            format!("[{a}, {b}]"),
            "finite, a < b",
        ));
    }
    Ok(())
}

/// E[(X − μ)²] for X ~ N(μ, σ²) conditioned on [a, b] (HG Def. 3.2), in closed form: with
/// l = (a − μ)/σ, u = (b − μ)/σ and Z = Φ(u) − Φ(l),
/// σ² (1 + (l φ(l) − u φ(u)) / Z)
/// (the second moment of a truncated standard normal; `docs/training.md#hg-mean-estimation`).
/// ln Z comes from `crate::numeric::f64s::log_ndtr_diff` (full relative accuracy in either
/// tail), so the support may lie far from μ. Errors (naming the parameter) on non-finite μ,
/// σ ≤ 0 or a ≥ b.
pub fn truncated_mse(mu: f64, sigma: f64, a: f64, b: f64) -> Result<f64> {
    check_one(mu, sigma, a, b)?;
    let (l, u) = ((a - mu) / sigma, (b - mu) / sigma);
    // ln Z to full relative accuracy on either side of the mode, then x φ(x)/Z = x e^{ln φ(x) − ln Z}.
    let ln_z = crate::numeric::f64s::log_ndtr_diff(l, u);
    if !ln_z.is_finite() {
        return Err(Error::invalid(
            "support [a, b]",
            format!("[{a}, {b}] with mu = {mu}, sigma = {sigma}"),
            "with a representable normaliser ln Z",
        ));
    }
    let ln_c = 0.5 * (2.0 * std::f64::consts::PI).ln();
    let term = |x: f64| x * (-0.5 * x * x - ln_c - ln_z).exp();
    Ok(sigma * sigma * (1.0 + term(l) - term(u)))
}

/// Per-coordinate MSE E[(X − μ)²] of one coordinate under `noise` (Gaussian σ²; rectified by
/// [`super::hg::rectified_mse`]; truncated by [`truncated_mse`]).
pub(crate) fn coord_mse(noise: Noise, mu: f64, sigma: f64, a: f64, b: f64) -> Result<f64> {
    check_one(mu, sigma, a, b)?;
    match noise {
        Noise::Gaussian => Ok(sigma * sigma),
        Noise::Bounded(BoxLaw::Rectified) => Ok(super::hg::rectified_mse(mu, sigma, a, b)),
        Noise::Bounded(BoxLaw::Truncated) => truncated_mse(mu, sigma, a, b),
    }
}

/// MSE of the released vector: Σ_i E[(X_i − m_i)²].
pub fn mse(noise: Noise, m: &[f64], sigma: f64, a: f64, b: f64) -> Result<f64> {
    m.iter().map(|&mi| coord_mse(noise, mi, sigma, a, b)).sum()
}

/// The σ → ∞ limit of [`mse`] for a bounded family (the largest MSE it can have): rectified
/// ½((a − m_i)² + (b − m_i)²) per coordinate (all mass on the two ends), truncated
/// (b − a)²/12 + ((a + b)/2 − m_i)² (uniform on [a, b]). Infinite for the Gaussian.
pub fn saturation_mse(noise: Noise, m: &[f64], a: f64, b: f64) -> f64 {
    m.iter()
        .map(|&mi| match noise {
            Noise::Gaussian => f64::INFINITY,
            Noise::Bounded(BoxLaw::Rectified) => 0.5 * ((a - mi).powi(2) + (b - mi).powi(2)),
            Noise::Bounded(BoxLaw::Truncated) => {
                (b - a).powi(2) / 12.0 + (0.5 * (a + b) - mi).powi(2)
            }
        })
        .sum()
}

/// The σ at which [`mse`] equals `target`: √(target/d) for the Gaussian; for a bounded family a
/// bisection on log σ over [1e-6, 1e3] (200 halvings). `Ok(None)` when the target is outside
/// the family's reachable range on that bracket (at or above saturation, or below the bias
/// floor). Errors if the bisection's end point misses the target by more than 1e-9 relative
/// (the MSE would not be monotone in σ).
pub fn sigma_for_mse(noise: Noise, m: &[f64], a: f64, b: f64, target: f64) -> Result<Option<f64>> {
    if !(target > 0.0 && target.is_finite()) {
        return Err(Error::invalid("target MSE", target, "finite and > 0"));
    }
    if m.is_empty() {
        return Err(Error::invalid("m", "[]", "at least one coordinate"));
    }
    if noise == Noise::Gaussian {
        return Ok(Some((target / m.len() as f64).sqrt()));
    }
    let f = |s: f64| mse(noise, m, s, a, b);
    let (lo, hi) = (1e-6, 1e3);
    if f(lo)? >= target || f(hi)? <= target {
        return Ok(None);
    }
    let s = super::log_bisect(lo, hi, None, |mid| Ok(f(mid)? < target))?;
    let got = f(s)?;
    if (got - target).abs() > 1e-9 * target {
        return Err(Error::invalid(
            "target MSE",
            target,
            &format!("reached by bisection (got {got} at sigma = {s})"),
        ));
    }
    Ok(Some(s))
}

/// The mean of `n` records with `d` coordinates N(0, data_sd²) clipped to [−1, 1], drawn with
/// the crate's Gaussian sampler from `chunk_rng(seed, 0)` (record by record).
pub fn mean_data(seed: u64, n: usize, d: usize, data_sd: f64) -> Result<Vec<f64>> {
    if n == 0 || d == 0 {
        return Err(Error::invalid("n, d", format!("{n}, {d}"), ">= 1"));
    }
    let g = Gaussian::new(0.0, data_sd)?;
    let mut rng = chunk_rng(seed, 0);
    let mut row = vec![0.0; d];
    let mut m = vec![0.0; d];
    for j in 0..n {
        // `--max-seconds` covers data generation too (n = 10^9 records is minutes).
        if j % 4096 == 0 {
            crate::limits::check_deadline("hg_mean data generation")?;
        }
        g.sample_many(&mut rng, &mut row);
        for (mi, x) in m.iter_mut().zip(&row) {
            *mi += x.clamp(-1.0, 1.0);
        }
    }
    for mi in m.iter_mut() {
        *mi /= n as f64;
    }
    Ok(m)
}

/// Per-instance RDP of order α of releasing the mean `m` of `n` records in [−1, 1]^d with
/// `noise` at σ on the box [a, b]^d: `worst_neighbour_renyi` with shift 2/n and location range
/// [−1, 1].
pub fn mean_rdp(
    noise: Noise,
    m: &[f64],
    n: usize,
    sigma: f64,
    (a, b): (f64, f64),
    alpha: f64,
    digits: u32,
) -> Result<Certified> {
    if n == 0 {
        return Err(Error::invalid("n", 0, ">= 1"));
    }
    worst_neighbour_renyi(
        noise,
        sigma,
        (a, b),
        m,
        2.0 / n as f64,
        (-1.0, 1.0),
        alpha,
        digits,
    )
    .map(|(c, _)| c)
}

/// One mechanism at equal MSE with a Gaussian of noise σ_G, on one dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EqualMse {
    /// The Gaussian's MSE dσ_G² is not reachable by the bounded family (at or beyond its
    /// saturation MSE, or below its bias floor).
    Unreachable,
    /// Reached at σ with certified RDP `rdp` (shown in f64).
    At {
        /// The bounded mechanism's σ.
        sigma: f64,
        /// Its per-instance RDP.
        rdp: f64,
    },
}

/// The reduction in privacy cost at equal MSE on one dataset: the Gaussian's RDP at σ_G and each
/// bounded family's [`EqualMse`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReductionPoint {
    /// Gaussian RDP at σ_G.
    pub rdp_gauss: f64,
    /// Target MSE dσ_G² divided by each family's saturation MSE ([rectified, truncated]).
    pub target_over_saturation: [f64; 2],
    /// [rectified, truncated].
    pub bounded: [EqualMse; 2],
}

/// Computes a [`ReductionPoint`] for the mean `m` of `n` records on the box [a, b]^d.
pub fn reduction_point(
    m: &[f64],
    n: usize,
    sigma_g: f64,
    ab: (f64, f64),
    alpha: f64,
    digits: u32,
) -> Result<ReductionPoint> {
    let target = mse(Noise::Gaussian, m, sigma_g, ab.0, ab.1)?;
    let rdp_gauss = mean_rdp(Noise::Gaussian, m, n, sigma_g, ab, alpha, digits)?.to_f64();
    let fams = [BoxLaw::Rectified, BoxLaw::Truncated];
    let mut bounded = [EqualMse::Unreachable; 2];
    let mut ratio = [0.0; 2];
    for (k, fam) in fams.into_iter().enumerate() {
        let noise = Noise::Bounded(fam);
        ratio[k] = target / saturation_mse(noise, m, ab.0, ab.1);
        if let Some(s) = sigma_for_mse(noise, m, ab.0, ab.1, target)? {
            let rdp = mean_rdp(noise, m, n, s, ab, alpha, digits)?.to_f64();
            bounded[k] = EqualMse::At { sigma: s, rdp };
        }
    }
    Ok(ReductionPoint {
        rdp_gauss,
        target_over_saturation: ratio,
        bounded,
    })
}
