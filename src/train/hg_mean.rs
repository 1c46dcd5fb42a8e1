//! Private mean estimation with per-coordinate noise (Hu & Guo, "HG", §6.1 and Figure 2's shape;
//! HG compare the Gaussian with the rectified and truncated Gaussians, the noise laws being
//! registry families named by the experiment, [`Noise`]): closed-form MSE of each mechanism (the
//! family's own, [`Noise::mse`]), per-instance RDP through the certified routes (HG Prop. 5.1
//! with the worst replace-one neighbour per coordinate), the MSE-against-RDP curves over a σ
//! grid, and the privacy cost of the bounded mechanisms at equal MSE with a reference noise.
//! Settings and derivations: `docs/training.md#hg-mean-estimation`.
//!
//! Data: n records with coordinates N(0, s_d²) clipped to [−1, 1]; the released location is their
//! mean m ∈ [−1, 1]^d (replace-one: each coordinate moves by at most 2/n). The box is
//! [c − w, c + w]^d; the biasedness is c, the distance between the box centre and the
//! population mean 0 (HG §6.1 defines it as the distance between the location parameter and the
//! rectification centre). Seed k draws its data from `chunk_rng(k, 0)`.

use super::hg::{worst_neighbour_renyi, BoxLaw, Noise};
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::numeric::mp::Certified;

/// MSE of the released vector: Σ_i E[(X_i − m_i)²], each term the noise family's closed form
/// ([`Noise::mse`]; `docs/training.md#hg-mean-estimation`).
pub fn mse(noise: Noise, m: &[f64], sigma: f64, a: f64, b: f64) -> Result<f64> {
    m.iter().map(|&mi| noise.mse(mi, sigma, a, b)).sum()
}

/// The σ → ∞ limit of [`mse`] (the largest MSE the noise can have; [`Noise::saturation_mse`]
/// summed over the coordinates): finite for a law on a box, infinite on the whole line.
pub fn saturation_mse(noise: Noise, m: &[f64], a: f64, b: f64) -> f64 {
    m.iter().map(|&mi| noise.saturation_mse(mi, a, b)).sum()
}

/// The σ at which [`mse`] equals `target`: in closed form where the family has one (the
/// Gaussian's √(target/d)); otherwise a bisection on log σ over [1e-6, 1e3] (200 halvings).
/// `Ok(None)` when the target is outside
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
    if let Some(s) = noise.sigma_for_mse_closed(m, (a, b), target) {
        return Ok(Some(s));
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

/// The mean of `n` records with `d` coordinates N(0, data_sd²) clipped to [−1, 1], each
/// coordinate data_sd·Z with Z one ziggurat standard normal draw (`rand_distr::StandardNormal`)
/// from `chunk_rng(seed, 0)`, record by record (the data model, not a mechanism's noise).
pub fn mean_data(seed: u64, n: usize, d: usize, data_sd: f64) -> Result<Vec<f64>> {
    if n == 0 || d == 0 {
        return Err(Error::invalid("n, d", format!("{n}, {d}"), ">= 1"));
    }
    crate::error::check_positive("data_sd", data_sd)?;
    let mut rng = chunk_rng(seed, 0);
    let mut row = vec![0.0; d];
    let mut m = vec![0.0; d];
    for j in 0..n {
        // `--max-seconds` covers data generation too (n = 10^9 records is minutes).
        if j % 4096 == 0 {
            crate::limits::check_deadline("hg_mean data generation")?;
        }
        for x in row.iter_mut() {
            let z: f64 = rand_distr::Distribution::sample(&rand_distr::StandardNormal, &mut rng);
            *x = data_sd * z;
        }
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

/// One bounded mechanism at equal MSE with the reference noise (HG: the Gaussian) of σ_G, on one
/// dataset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EqualMse {
    /// The reference's MSE dσ_G² is not reachable by the bounded family (at or beyond its
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

/// The reduction in privacy cost at equal MSE on one dataset: the reference noise's RDP at σ_G
/// and each compared bounded family's [`EqualMse`].
#[derive(Debug, Clone, PartialEq)]
pub struct ReductionPoint {
    /// The reference's RDP at σ_G.
    pub rdp_reference: f64,
    /// Target MSE (the reference's at σ_G) divided by each compared family's saturation MSE, in
    /// the order of the compared families.
    pub target_over_saturation: Vec<f64>,
    /// Each compared family's [`EqualMse`], in order.
    pub bounded: Vec<EqualMse>,
}

/// Computes a [`ReductionPoint`] for the mean `m` of `n` records on the box [a, b]^d: the
/// `reference` noise (HG: the Gaussian) at σ_G against each of the `compared` laws on the box.
#[allow(clippy::too_many_arguments)]
pub fn reduction_point(
    reference: Noise,
    compared: &[BoxLaw],
    m: &[f64],
    n: usize,
    sigma_g: f64,
    ab: (f64, f64),
    alpha: f64,
    digits: u32,
) -> Result<ReductionPoint> {
    let target = mse(reference, m, sigma_g, ab.0, ab.1)?;
    let rdp_reference = mean_rdp(reference, m, n, sigma_g, ab, alpha, digits)?.to_f64();
    let mut bounded = vec![EqualMse::Unreachable; compared.len()];
    let mut ratio = vec![0.0; compared.len()];
    for (k, &law) in compared.iter().enumerate() {
        let noise = Noise::from(law);
        ratio[k] = target / saturation_mse(noise, m, ab.0, ab.1);
        if let Some(s) = sigma_for_mse(noise, m, ab.0, ab.1, target)? {
            let rdp = mean_rdp(noise, m, n, s, ab, alpha, digits)?.to_f64();
            bounded[k] = EqualMse::At { sigma: s, rdp };
        }
    }
    Ok(ReductionPoint {
        rdp_reference,
        target_over_saturation: ratio,
        bounded,
    })
}
