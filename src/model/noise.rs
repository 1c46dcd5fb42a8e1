//! What the training algorithms take from a family's noise: the optional registry hook
//! `Family::noise` (`NoiseHooks`).
//!
//! * HMB's two-node private gradient descent (`crate::train::dpgd`), its utility simulation
//!   (`crate::train::utility`) and its privacy accounts (`crate::train::privacy`) take their noise
//!   from a family with a [`RelativeNoise`]: noise in ℝ^d whose scale grows with the released
//!   vector, calibrated for a per-step Rényi target, with a certified per-run guarantee (the
//!   paper's bound and the exact worst case over neighbouring datasets) and the paper's composed
//!   (ε, δ) bound that propose-test-release adds its own ε and δ to.
//! * Propose-test-release (`crate::train::ptr`) adds one draw of a family's centred law on the
//!   line to its test statistic ([`NoiseHooks::centred_draw`]).
//! * Hu & Guo's per-coordinate experiments (`crate::train::hg`, `hg_gd`, `hg_mean`) add the
//!   family's single law to each coordinate of a released vector ([`CoordinateNoise`]).
//!
//! An experiment names the family (`noise = "…"`, `ptr_noise = "…"`); [`RelativeFamily::named`]
//! and [`ScalarNoise::named`] look it up in the registry and refuse, with an error naming the
//! key and the value, an unknown family or one without the hook.

use super::Family;
use crate::error::{Error, Result};
use crate::mechanisms::stream::StreamRng;
use std::fmt;

/// A family's noise as the training algorithms use it; every field optional.
#[derive(Clone, Copy)]
pub struct NoiseHooks {
    /// One draw of the family's centred law on the line at scale `b` (finite, > 0), consuming
    /// `rng` in a fixed order; an error for an invalid scale.
    pub centred_draw: Option<fn(f64, &mut StreamRng) -> Result<f64>>,
    /// The family's relative noise in ℝ^d.
    pub relative: Option<&'static dyn RelativeNoise>,
    /// The family's single law as per-coordinate noise.
    pub coordinate: Option<&'static CoordinateNoise>,
}

impl NoiseHooks {
    /// The hooks of a family whose only part is its law per coordinate (HG §5–6).
    pub(crate) const fn per_coordinate(law: &'static CoordinateNoise) -> NoiseHooks {
        NoiseHooks {
            centred_draw: None,
            relative: None,
            coordinate: Some(law),
        }
    }
}

/// A family's single law as the noise added to each coordinate of a released vector (Hu & Guo,
/// "HG", §5–6: [`crate::train::hg`], `docs/training.md#hg-mean-estimation`): the law at location
/// μ and scale σ, on the box [a, b] when the family's law has a support (location keys `a`,
/// `b`; an unbounded law ignores the box), drawn with the family's sampler, and its mean
/// squared error about μ in closed form. Every function takes parameters its caller has
/// validated (μ finite, σ > 0, a < b finite).
#[derive(Clone, Copy, Debug)]
pub struct CoordinateNoise {
    /// Its name in running text of the training reports ("Gaussian", "rectified").
    pub display: &'static str,
    /// Fills the slice with draws of the law at (μ, σ, a, b) from the stream, in order.
    pub sample: NoiseSampler,
    /// E[(X − μ)²] of the law at (μ, σ, a, b).
    pub mse: fn(f64, f64, f64, f64) -> Result<f64>,
    /// The σ → ∞ limit of `mse` at (μ, a, b): the largest MSE the law can have (+∞ for a law
    /// without a support).
    pub saturation_mse: fn(f64, f64, f64) -> f64,
    /// The σ at which Σ_i `mse`(μ_i, σ, a, b) equals a target, where the law has it in closed
    /// form (arguments: the μ_i, the box (a, b), the target); `None`: found by bisection on σ.
    pub sigma_for_mse: Option<SigmaForMse>,
}

/// [`CoordinateNoise::sample`]: (μ, σ, a, b, stream, out).
pub type NoiseSampler = fn(f64, f64, f64, f64, &mut StreamRng, &mut [f64]) -> Result<()>;

/// [`CoordinateNoise::sigma_for_mse`]: (the μ_i, the box (a, b), the target MSE) → σ.
pub type SigmaForMse = fn(&[f64], (f64, f64), f64) -> f64;

/// The parameters of one node's relative noise: its relative sensitivity (η, R) (HMB Def. 2),
/// the noise's (γ, σ²) and the dimension d.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelativeParams {
    /// η.
    pub eta: f64,
    /// R (R_rel of HMB eq. (11)).
    pub r_rel: f64,
    /// γ.
    pub gamma: f64,
    /// σ².
    pub sigma2: f64,
    /// d.
    pub d: u32,
}

/// The certified guarantee of T releases of a relative noise, per node: the paper's bound and
/// the exact worst case over the neighbouring datasets it admits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RelativeRunPrivacy {
    /// The paper's per-step Rényi bound at α = 2.
    pub paper_step_rdp2: f64,
    /// The exact per-step worst case at α = 2.
    pub exact_step_rdp2: f64,
    /// (ε, α): the paper's bound composed over T steps, converted to (ε, δ) at an optimised α.
    pub paper_dp: (f64, f64),
    /// (ε, α): the exact worst case composed over T steps, converted at an optimised α.
    pub exact_dp: (f64, f64),
}

/// A sampler of released values r + noise at fixed (γ, σ², d).
pub trait RelativeLaw: Send + Sync {
    /// Writes one draw of r + noise into `out`; an error when `r` or `out` is not of length d.
    fn sample_into(&self, r: &[f64], rng: &mut StreamRng, out: &mut [f64]) -> Result<()>;
}

/// Noise in ℝ^d whose per-coordinate scale grows with the norm of the released vector (HMB's
/// relative mechanisms): what HMB's private gradient descent needs from it.
pub trait RelativeNoise: Send + Sync {
    /// The mechanism's short name in tables, legends and messages.
    fn label(&self) -> &'static str;
    /// The validated law at (γ, σ²) in dimension d, as a sampler of r + noise.
    fn law(&self, gamma: f64, sigma2: f64, d: usize) -> Result<Box<dyn RelativeLaw>>;
    /// The per-coordinate standard deviation of the noise at (γ, σ²) on a released vector of
    /// squared norm `norm2`.
    fn sd(&self, gamma: f64, sigma2: f64, norm2: f64) -> f64;
    /// Fills `out` with the noise of per-coordinate standard deviation `sd` (one draw per
    /// coordinate, in order).
    fn draw(&self, sd: f64, rng: &mut StreamRng, out: &mut [f64]);
    /// (γ, σ²) meeting the per-step Rényi target (α, ε) at relative sensitivity (η, R) in
    /// dimension d, by the paper's theorem; an error naming the violated condition when none does.
    fn calibrate(&self, eta: f64, r_rel: f64, d: u32, alpha: f64, eps: f64) -> Result<(f64, f64)>;
    /// The certified guarantee of `steps` releases at δ (to `digits` digits).
    fn run_privacy(
        &self,
        p: &RelativeParams,
        steps: u32,
        delta: f64,
        digits: u32,
    ) -> Result<RelativeRunPrivacy>;
    /// (ε, α): the paper's bound composed over `steps` releases at (η, γ, d), converted to
    /// (ε, δ) at an optimised α (to `digits` digits).
    fn composed_eps(
        &self,
        eta: f64,
        gamma: f64,
        d: u32,
        steps: u32,
        delta: f64,
        digits: u32,
    ) -> Result<(f64, f64)>;
}

/// A registered family with one of its noise hooks (`H`): [`RelativeFamily`] (the relative
/// noise an experiment names with `noise`), [`ScalarNoise`] (a centred law, `ptr_noise`).
#[derive(Clone, Copy)]
pub struct WithHook<H> {
    /// The registry entry.
    pub family: &'static Family,
    /// Its hook.
    pub noise: H,
}

/// A registered family with a relative noise.
pub type RelativeFamily = WithHook<&'static dyn RelativeNoise>;

/// A registered family with a centred law on the line (one draw at a scale).
pub type ScalarNoise = WithHook<fn(f64, &mut StreamRng) -> Result<f64>>;

impl<H: Copy> WithHook<H> {
    /// The hook `pick` selects from `family`'s hooks, or an error naming `key` and the family,
    /// which must have `what`.
    fn lookup(
        key: &str,
        family: &'static Family,
        pick: fn(&NoiseHooks) -> Option<H>,
        what: &str,
    ) -> Result<Self> {
        match family.noise.and_then(pick) {
            Some(noise) => Ok(WithHook { family, noise }),
            None => Err(Error::invalid(
                key,
                family.name,
                &format!("a registered family with {what} (registry hook Family::noise)"),
            )),
        }
    }
}

impl RelativeFamily {
    /// The family's relative noise, or an error naming `key` and the family.
    pub fn of(key: &str, family: &'static Family) -> Result<Self> {
        Self::lookup(key, family, |h| h.relative, "a relative noise")
    }

    /// The registered family `name` with a relative noise, or an error naming `key` and `name`.
    pub fn named(key: &str, name: &str) -> Result<Self> {
        Self::of(key, registered(key, name)?)
    }
}

impl ScalarNoise {
    /// The family's centred law, or an error naming `key` and the family.
    pub fn of(key: &str, family: &'static Family) -> Result<Self> {
        Self::lookup(key, family, |h| h.centred_draw, "a centred law on the line")
    }

    /// The registered family `name` with a centred law, or an error naming `key` and `name`.
    pub fn named(key: &str, name: &str) -> Result<Self> {
        Self::of(key, registered(key, name)?)
    }

    /// One draw of the centred law at scale `b` (finite, > 0).
    pub fn draw(&self, rng: &mut StreamRng, b: f64) -> Result<f64> {
        (self.noise)(b, rng)
    }
}

impl<H> fmt::Debug for WithHook<H> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "noise({})", self.family.name)
    }
}

impl<H> PartialEq for WithHook<H> {
    fn eq(&self, other: &Self) -> bool {
        self.family == other.family
    }
}

/// The registered family `name`, or an error naming `key` and `name`.
fn registered(key: &str, name: &str) -> Result<&'static Family> {
    super::family(name).ok_or_else(|| {
        Error::invalid(
            key,
            format!("{name:?}"),
            "the name of a registered family (dpaudit eval's families)",
        )
    })
}
