//! The certified privacy of a two-node DP-GD run, three ways side by side
//! (`docs/training.md#privacy-accounting`).
//!
//! A record held by node i is touched only by node i's T releases, so a run's guarantee is the
//! worse of the two nodes' T-fold compositions. Neighbouring datasets replace one record.
//!
//! * **Clipped Gaussian** (eqs. (81)–(82)): replacing a record moves the clipped mean by at most
//!   Δ = 2c/N, so one step is the Gaussian mechanism with sensitivity Δ and noise σ. Its RDP is
//!   αΔ²/(2σ²) (Mironov 2017, Prop. 7). T full-batch steps compose *exactly* to one Gaussian
//!   mechanism with μ = √T Δ/σ (the privacy-loss random variables are Gaussian and add), so the
//!   exact composed ε(δ) is Balle & Wang (2018) Thm. 8 at sensitivity √T Δ, certified by
//!   [`crate::bounds::gaussian::dp_eps`]. The RDP route optimised over α is
//!   min_α Tα Δ²/(2σ²) + log(1/δ)/(α−1) = ρ + 2√(ρ log(1/δ)) with ρ = TΔ²/(2σ²).
//! * **RGM** (eq. (83)): per step, Theorem 1 (eq. (5)) ε(α); the paper's accounting is T·ε(2).
//!   Composed over T, Tε(α) with ε(α) = (χ/2) α / (1 − η(2+η)(α−1)) and
//!   χ = η²/γ + η²d(2+η)²(1+η)² is the same function with χ replaced by Tχ, i.e. with (γ, d)
//!   replaced by (γ/T, T d); so the α-optimised conversion of the composition is exactly
//!   [`crate::bounds::rgm::optimized_dp_eps`]`(η, γ/T, T d, δ)` (HMB eq. (45), closed form).
//!   No exact composed (ε, δ) is available for RGM (no closed-form privacy-loss distribution).
//!
//! Note on the paper's eq. (82): σ² = αc²/(εN²) gives per-step RDP αΔ²/(2σ²) = 2ε with the
//! replace-one Δ = 2c/N (and ε/2 with the add/remove Δ = c/N); the guarantee reported here is the
//! one the noise actually gives, not the nominal ε.

use super::dpgd::{Node, NodeNoise, RdpTarget, Release};
use crate::bounds::{gaussian, rgm};
use crate::error::Result;
use crate::scalar::Scalar;

/// Digits certified for every ε reported here.
pub const DIGITS: u32 = 12;

/// A run's guarantee, three ways.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunPrivacy {
    /// Paper's accounting: per-step RDP at α = 2 summed over T steps (an RDP ε at α = 2).
    pub paper_rdp_alpha2: f64,
    /// (ε, δ) from the RDP route, α optimised.
    pub rdp_opt_eps: f64,
    /// Exact composed (ε, δ), when a certified exact route exists (clipped Gaussian).
    pub exact_eps: Option<f64>,
    /// The α at which the RDP route is optimal.
    pub rdp_opt_alpha: f64,
}

/// The guarantee of node `nd` running `release` for `steps` steps, at δ.
pub fn node_privacy(
    nd: &Node,
    release: Release,
    target: RdpTarget,
    steps: u32,
    delta: f64,
) -> Result<Option<RunPrivacy>> {
    let t = steps as f64;
    let lnd = -delta.ln();
    match NodeNoise::for_node(nd, release, target)? {
        NodeNoise::None => Ok(None),
        NodeNoise::Clip { c, sigma2 } => {
            let sens = 2.0 * c / nd.data.n as f64;
            let sigma = sigma2.sqrt();
            let rho = t * sens * sens / (2.0 * sigma2);
            let exact = gaussian::dp_eps(
                &Scalar::from(t.sqrt() * sens),
                &Scalar::from(sigma),
                &Scalar::from(delta),
                DIGITS,
            )?;
            Ok(Some(RunPrivacy {
                paper_rdp_alpha2: t * gaussian::rdp_eps_f64(sens, sigma, 2.0)?,
                rdp_opt_eps: rho + 2.0 * (rho * lnd).sqrt(),
                exact_eps: Some(exact.to_f64()),
                rdp_opt_alpha: 1.0 + (lnd / rho).sqrt(),
            }))
        }
        NodeNoise::Rgm { gamma, .. } => {
            let eta = Scalar::from(nd.rel.eta);
            let d = nd.data.d as u32;
            let per_step =
                rgm::theorem1_eps(&eta, &Scalar::from(gamma), d, &Scalar::from(2.0), DIGITS)?;
            let (eps, alpha) = rgm::optimized_dp_eps(
                &eta,
                &Scalar::from(gamma / t),
                d * steps,
                &Scalar::from(delta),
                DIGITS,
            )?;
            Ok(Some(RunPrivacy {
                paper_rdp_alpha2: t * per_step.to_f64(),
                rdp_opt_eps: eps.to_f64(),
                exact_eps: None,
                rdp_opt_alpha: alpha.to_f64(),
            }))
        }
    }
}

/// The run's guarantee: the worse node, field by field.
pub fn run_privacy(
    nodes: &[Node; 2],
    release: Release,
    target: RdpTarget,
    steps: u32,
    delta: f64,
) -> Result<Option<RunPrivacy>> {
    let a = node_privacy(&nodes[0], release, target, steps, delta)?;
    let b = node_privacy(&nodes[1], release, target, steps, delta)?;
    Ok(match (a, b) {
        (Some(a), Some(b)) => Some(if a.rdp_opt_eps >= b.rdp_opt_eps { a } else { b }),
        _ => None,
    })
}
