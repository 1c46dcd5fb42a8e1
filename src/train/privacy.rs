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
//! * **Relative noise** (eq. (83)): the family's hook
//!   ([`crate::model::noise::RelativeNoise::run_privacy`]) gives the paper's per-step bound at
//!   α = 2 (the paper's accounting is T·ε(2)), the paper's bound composed over T and converted at
//!   an optimised α, and beside it the **exact** per-step worst case over every admissible pair
//!   composed as T·D*(α) and converted likewise. For HMB's RGM: Theorem 1 (eq. (5)); composed over
//!   T, Tε(α) with ε(α) = (χ/2) α / (1 − η(2+η)(α−1)) and χ = η²/γ + η²d(2+η)²(1+η)² is the same
//!   function with χ replaced by Tχ, i.e. with (γ, d) replaced by (γ/T, T d), so the conversion
//!   is HMB eq. (45) at (η, γ/T, T d) (closed form); the worst case D*(α) is docs/formulas.md
//!   §5.4. No exact composed (ε, δ) is available for the RGM (the privacy-loss distribution of
//!   unequal-variance Gaussians has no closed form), so its tightest certified ε is that RDP
//!   route.
//!
//! Note on the paper's eq. (82): σ² = αc²/(εN²) gives per-step RDP αΔ²/(2σ²) = 2ε with the
//! replace-one Δ = 2c/N (and ε/2 with the add/remove Δ = c/N); the guarantee reported here is the
//! one the noise actually gives, not the nominal ε.

use super::dpgd::{Node, NodeNoise, RdpTarget, Release};
use crate::bounds::gaussian;
use crate::error::Result;
use crate::model::noise::RelativeParams;
use crate::numeric::mp::certify;
use crate::scalar::Scalar;
use rug::Float;

/// Digits certified for every ε reported here.
pub(crate) const DIGITS: u32 = 12;

/// A run's guarantee, three ways, with the paper's bound and the exact worst case side by side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunPrivacy {
    /// Paper's accounting: per-step RDP at α = 2 summed over T steps (an RDP ε at α = 2).
    pub paper_rdp_alpha2: f64,
    /// The exact worst-case RDP at α = 2 of the T steps: T·sup over admissible pairs of D_2
    /// (Gaussian: the same as the paper's; relative noise: the family's worst case, for the RGM
    /// docs/formulas.md §5.4, below Theorem 1).
    pub exact_rdp_alpha2: f64,
    /// (ε, δ) from the RDP route on the paper's per-step bound, α optimised.
    pub rdp_opt_eps: f64,
    /// The α at which that route is optimal.
    pub rdp_opt_alpha: f64,
    /// (ε, δ) from the RDP route on the exact worst-case RDP, α optimised (Gaussian: equal to
    /// `rdp_opt_eps`).
    pub exact_rdp_opt_eps: f64,
    /// The α used for `exact_rdp_opt_eps`.
    pub exact_rdp_opt_alpha: f64,
    /// Exact composed (ε, δ), when a certified exact route exists (clipped Gaussian).
    pub exact_eps: Option<f64>,
}

impl RunPrivacy {
    /// The tightest certified ε of the run: the exact composed ε where it exists, else the RDP
    /// route on the exact worst case.
    pub fn certified_eps(&self) -> f64 {
        self.exact_eps
            .unwrap_or(self.exact_rdp_opt_eps)
            .min(self.exact_rdp_opt_eps)
    }
}

/// The guarantee of node `nd` running `release` for `steps` steps, at δ.
pub(crate) fn node_privacy(
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
            let (sens_s, sigma_s) = (Scalar::from(sens), Scalar::from(sigma));
            let rdp2 =
                t * gaussian::rdp_eps(&sens_s, &sigma_s, &Scalar::from(2.0), DIGITS)?.to_f64();
            // min_α Tα Δ²/(2σ²) + ln(1/δ)/(α−1) = ρ + 2√(ρ ln(1/δ)) at α = 1 + √(ln(1/δ)/ρ),
            // certified (any α gives a valid guarantee, and this is the exact minimum).
            let opt = certify(DIGITS, "Gaussian RDP route optimised over alpha", |p| {
                let wp = p + 16;
                let mu = Float::with_val(wp, sens_s.mp(wp) / sigma_s.mp(wp));
                let rho = Float::with_val(wp, mu.square_ref()) * steps / 2u32;
                let l = Scalar::from(delta).mp(wp).recip().ln();
                let root = Float::with_val(wp, &rho * &l).sqrt() * 2u32;
                Ok(Float::with_val(p, rho + root))
            })?
            .to_f64();
            let alpha = 1.0 + (lnd / rho).sqrt();
            Ok(Some(RunPrivacy {
                paper_rdp_alpha2: rdp2,
                exact_rdp_alpha2: rdp2,
                rdp_opt_eps: opt,
                rdp_opt_alpha: alpha,
                exact_rdp_opt_eps: opt,
                exact_rdp_opt_alpha: alpha,
                exact_eps: Some(exact.to_f64()),
            }))
        }
        NodeNoise::CodeRelative { noise, .. } => Err(crate::error::Error::Unsupported(format!(
            "no certified accountant for the authors' code's {} noise (standard deviation \
             gamma*|g| + sigma, HadrienHx/RGM noisers.py): it is not HMB Definition 3's \
             variance gamma*|g|^2 + sigma^2, so Theorem 1 does not cover it",
            noise.noise.label()
        ))),
        NodeNoise::Relative {
            noise,
            gamma,
            sigma2,
        } => {
            let p = RelativeParams {
                eta: nd.rel.eta,
                r_rel: nd.rel.r_rel,
                gamma,
                sigma2,
                d: nd.data.d as u32,
            };
            let q = noise.noise.run_privacy(&p, steps, delta, DIGITS)?;
            Ok(Some(RunPrivacy {
                paper_rdp_alpha2: t * q.paper_step_rdp2,
                exact_rdp_alpha2: t * q.exact_step_rdp2,
                rdp_opt_eps: q.paper_dp.0,
                rdp_opt_alpha: q.paper_dp.1,
                exact_rdp_opt_eps: q.exact_dp.0,
                exact_rdp_opt_alpha: q.exact_dp.1,
                exact_eps: None,
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
        (Some(a), Some(b)) => {
            // Each figure is a guarantee only as the worse node's; orders follow their ε.
            let (rdp_opt_eps, rdp_opt_alpha) = if a.rdp_opt_eps >= b.rdp_opt_eps {
                (a.rdp_opt_eps, a.rdp_opt_alpha)
            } else {
                (b.rdp_opt_eps, b.rdp_opt_alpha)
            };
            let (exact_rdp_opt_eps, exact_rdp_opt_alpha) =
                if a.exact_rdp_opt_eps >= b.exact_rdp_opt_eps {
                    (a.exact_rdp_opt_eps, a.exact_rdp_opt_alpha)
                } else {
                    (b.exact_rdp_opt_eps, b.exact_rdp_opt_alpha)
                };
            Some(RunPrivacy {
                paper_rdp_alpha2: a.paper_rdp_alpha2.max(b.paper_rdp_alpha2),
                exact_rdp_alpha2: a.exact_rdp_alpha2.max(b.exact_rdp_alpha2),
                rdp_opt_eps,
                rdp_opt_alpha,
                exact_rdp_opt_eps,
                exact_rdp_opt_alpha,
                exact_eps: match (a.exact_eps, b.exact_eps) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    _ => None,
                },
            })
        }
        _ => None,
    })
}
