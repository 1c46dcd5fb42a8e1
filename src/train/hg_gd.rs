//! Full-batch private gradient descent with per-coordinate noise (Hu & Guo, "HG", §5–6):
//! L2-regularised logistic regression, per-record gradients clipped per coordinate to [−C, C]
//! (HG §5.1 clip per coordinate so that the box accounting of Prop. 5.1 applies), the
//! full-batch mean of the clipped gradients released with per-coordinate noise of a registry
//! family ([`Noise`]; HG's Gaussian, rectified or truncated noise), a law on a box on
//! [−C, C]^d (which contains every possible clipped mean), and each run's per-instance RDP
//! composed over the steps. `docs/training.md#hg-per-coordinate-gradient-descent`.
//!
//! Objective F(θ) = (1/n) Σ_j log(1 + exp(−y_j x_jᵀθ)) + (λ/2)‖θ‖², labels ±1, θ_0 = 0.
//! Step t: g_t = (1/n) Σ_j clip(∇ℓ_j(θ_t), −C, C) (per coordinate), ĝ_t = M(g_t) (the noisy
//! release), θ_{t+1} = θ_t − η (ĝ_t + λθ_t) (the regulariser's gradient is data-independent:
//! post-processing).
//!
//! Accounting (per-run, per-instance): at each step, `worst_neighbour_renyi` at the location
//! g_t with shift h = 2C/n (replacing one record moves each coordinate of the clipped mean by at
//! most 2C/n) and location range [−C, C]: an upper bound on D_α(M(g_t) ‖ M(g_t′)) over every
//! replace-one neighbour of the data at the realised iterate θ_t (HG Prop. 5.1, worst direction
//! per coordinate). The run's RDP at α is the sum over the T steps (RDP composes additively at
//! fixed α), each term certified.
//!
//! FIL (HG §4.1 and Prop. 5.1): the Fisher information matrix of one release about its location is
//! diag(I_1(g_1), …, I_d(g_d)) with the certified 1-D Fisher informations; the per-step figure is
//! the worst local quadratic form over one replacement, max ΔᵀIΔ = Σ_i δ_i² I_i(g_i) with δ_i the
//! larger of the two shifts a replacement can make in coordinate i (2C/n, clamped to the box as
//! for the RDP), the second-order term of 2·KL (for the Gaussian Σ_i δ_i²/σ²), summed over the
//! steps.
//!
//! Determinism: the noise of step t comes from `chunk_rng(seed, t)` with one crate-sampler draw
//! per coordinate in index order (the same stream for all three mechanisms); gradients are summed
//! sequentially in record order; the accounting evaluates coordinates in parallel but sums them
//! in index order. Runs are bit-identical whatever the thread count.

use super::data::Dataset;
use super::hg::{sum_certified, worst_neighbour_renyi, Noise};
use crate::error::{check_count, Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::numeric::mp::Certified;

/// log(1 + e^x) without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// 1/(1 + e^{−x}) without overflow.
fn logistic(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

fn check_theta(data: &Dataset, theta: &[f64]) -> Result<()> {
    if theta.len() != data.d {
        return Err(Error::invalid(
            "theta",
            format!("length {}", theta.len()),
            &format!("length d = {}", data.d),
        ));
    }
    Ok(())
}

/// F(θ) = (1/n) Σ_j log(1 + exp(−y_j x_jᵀθ)) + (λ/2)‖θ‖².
pub fn loss(data: &Dataset, theta: &[f64], lambda: f64) -> Result<f64> {
    check_theta(data, theta)?;
    let d = data.d;
    let mut s = 0.0;
    for j in 0..data.n {
        let x = &data.x[j * d..(j + 1) * d];
        let z: f64 = x.iter().zip(theta).map(|(a, b)| a * b).sum();
        s += softplus(-data.y[j] * z);
    }
    Ok(s / data.n as f64 + 0.5 * lambda * theta.iter().map(|v| v * v).sum::<f64>())
}

/// ∇F(θ), exact (no clipping): (1/n) Σ_j −y_j σ(−y_j x_jᵀθ) x_j + λθ.
pub fn gradient(data: &Dataset, theta: &[f64], lambda: f64) -> Result<Vec<f64>> {
    let mut g = clipped_mean_gradient(data, theta, f64::INFINITY)?;
    for (gi, t) in g.iter_mut().zip(theta) {
        *gi += lambda * t;
    }
    Ok(g)
}

/// (1/n) Σ_j clip(∇ℓ_j(θ), −C, C), per coordinate, with ∇ℓ_j(θ) = −y_j σ(−y_j x_jᵀθ) x_j (the
/// data-dependent part of the gradient, without the regulariser). `clip` may be +∞ (no clipping).
pub fn clipped_mean_gradient(data: &Dataset, theta: &[f64], clip: f64) -> Result<Vec<f64>> {
    check_theta(data, theta)?;
    if clip.is_nan() || clip <= 0.0 {
        return Err(Error::invalid("clip", clip, "> 0"));
    }
    let d = data.d;
    let mut g = vec![0.0; d];
    for j in 0..data.n {
        let x = &data.x[j * d..(j + 1) * d];
        let z: f64 = x.iter().zip(theta).map(|(a, b)| a * b).sum();
        let w = -data.y[j] * logistic(-data.y[j] * z);
        for (gi, xi) in g.iter_mut().zip(x) {
            *gi += (w * xi).clamp(-clip, clip);
        }
    }
    for gi in g.iter_mut() {
        *gi /= data.n as f64;
    }
    Ok(g)
}

/// A run's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GdConfig {
    /// The release: `None` for the non-private clipped gradient, else the noise.
    pub noise: Option<Noise>,
    /// Noise σ per coordinate (ignored when non-private).
    pub sigma: f64,
    /// Per-coordinate clip C; the box is [−C, C]^d.
    pub clip: f64,
    /// Steps T.
    pub steps: usize,
    /// Step size η.
    pub lr: f64,
    /// λ.
    pub lambda: f64,
    /// Rényi order α of the accounting.
    pub alpha: f64,
    /// Certified digits of the run's RDP.
    pub digits: u32,
}

impl GdConfig {
    /// Checks every parameter, naming the first bad one.
    pub(crate) fn validate(&self) -> Result<()> {
        if !(self.clip > 0.0 && self.clip.is_finite()) {
            return Err(Error::invalid("clip", self.clip, "finite and > 0"));
        }
        if self.noise.is_some() && !(self.sigma > 0.0 && self.sigma.is_finite()) {
            return Err(Error::invalid("sigma", self.sigma, "finite and > 0"));
        }
        check_count("steps", self.steps)?;
        if !(self.lr > 0.0 && self.lr.is_finite()) {
            return Err(Error::invalid("lr", self.lr, "finite and > 0"));
        }
        if !(self.lambda >= 0.0 && self.lambda.is_finite()) {
            return Err(Error::invalid("lambda", self.lambda, "finite and >= 0"));
        }
        check_rdp_settings(self.alpha, self.digits)
    }
}

/// The Rényi order α (finite, > 1) and the certified digits (1..=30) of an HG RDP account.
pub(crate) fn check_rdp_settings(alpha: f64, digits: u32) -> Result<()> {
    if !(alpha > 1.0 && alpha.is_finite()) {
        return Err(Error::invalid("alpha", alpha, "finite and > 1"));
    }
    if digits == 0 || digits > 30 {
        return Err(Error::invalid("digits", digits, "1..=30"));
    }
    Ok(())
}

/// One run's trajectory and privacy.
#[derive(Debug, Clone)]
pub struct GdRun {
    /// F(θ_t), t = 0..=T.
    pub loss: Vec<f64>,
    /// The iterates θ_0..θ_{T−1} at which gradients were released.
    pub iterates: Vec<Vec<f64>>,
    /// Per-step per-instance RDP bound at α (f64, for display); empty when non-private.
    pub step_rdp: Vec<f64>,
    /// The run's RDP at α: Σ_t of the certified per-step bounds, to `digits` (None when
    /// non-private).
    pub rdp: Option<Certified>,
    /// The run's FIL figure Σ_t h²·Σ_i I_i(g_{t,i}), to `digits` (None when non-private).
    pub fil: Option<Certified>,
}

/// Draws the release M(g) with the noise family's sampler on the box [−C, C], one draw per
/// coordinate in index order.
fn release(
    noise: Noise,
    g: &[f64],
    sigma: f64,
    clip: f64,
    rng: &mut crate::mechanisms::stream::StreamRng,
) -> Result<Vec<f64>> {
    let mut out = vec![0.0; g.len()];
    for (o, &m) in out.iter_mut().zip(g) {
        noise.sample(m, sigma, (-clip, clip), rng, std::slice::from_mut(o))?;
    }
    Ok(out)
}

/// Per-step accounting: the certified bound of one release at the clipped mean `g` (to
/// `digits` digits) and its per-coordinate terms.
pub fn step_rdp(
    noise: Noise,
    g: &[f64],
    n: usize,
    cfg: &GdConfig,
    digits: u32,
) -> Result<(Certified, Vec<f64>)> {
    check_count("n", n)?;
    let c = cfg.clip;
    worst_neighbour_renyi(
        noise,
        cfg.sigma,
        (-c, c),
        g,
        2.0 * c / n as f64,
        (-c, c),
        cfg.alpha,
        digits,
    )
}

/// Per-step FIL figure Σ_i δ_i² I_i(g_i), δ_i = max(min(h, C − g_i), min(h, g_i + C)) with
/// h = 2C/n, each Fisher information certified to `digits` + 1 digits by
/// [`crate::divergence::fisher`] at location g_i (see the module documentation).
pub(crate) fn step_fil(
    noise: Noise,
    g: &[f64],
    n: usize,
    cfg: &GdConfig,
    digits: u32,
) -> Result<Certified> {
    use crate::divergence::{fisher, Method};
    use crate::scalar::Scalar;
    check_count("n", n)?;
    let c = cfg.clip;
    let h = 2.0 * c / n as f64;
    let terms = g
        .iter()
        .map(|&m| {
            let loc = noise.location(
                Scalar::from(m),
                Scalar::from(cfg.sigma),
                Scalar::from(-c),
                Scalar::from(c),
            )?;
            let i = fisher(&loc, digits + 1, Method::Auto)?;
            // δ² as a product of doubles is exact at ≥ 106 bits: the certified digits carry over.
            let delta = h.min(c - m).max(h.min(m + c));
            let p = i.value.prec().max(128);
            let d2 = rug::Float::with_val(p, delta) * delta;
            Ok(Certified {
                value: rug::Float::with_val(p, &i.value * d2),
                digits: i.digits,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    sum_certified(terms, digits)
}

/// Runs T steps from θ_0 = 0 with the noise of `seed` (see the module documentation).
pub fn run(data: &Dataset, cfg: &GdConfig, seed: u64) -> Result<GdRun> {
    cfg.validate()?;
    if data.n == 0 || data.d == 0 {
        return Err(Error::invalid(
            "data",
            format!("{} x {}", data.n, data.d),
            "n >= 1 and d >= 1",
        ));
    }
    let mut theta = vec![0.0; data.d];
    let mut losses = vec![loss(data, &theta, cfg.lambda)?];
    let mut iterates = Vec::with_capacity(cfg.steps);
    let mut steps = Vec::new();
    let mut terms = Vec::new();
    let mut fils = Vec::new();
    for t in 0..cfg.steps {
        crate::limits::check_deadline("hg_gd training")?;
        let g = clipped_mean_gradient(data, &theta, cfg.clip)?;
        let ghat = match cfg.noise {
            None => g.clone(),
            Some(noise) => {
                let (c, _) = step_rdp(noise, &g, data.n, cfg, cfg.digits + 1)?;
                steps.push(c.to_f64());
                terms.push(c);
                fils.push(step_fil(noise, &g, data.n, cfg, cfg.digits + 1)?);
                release(
                    noise,
                    &g,
                    cfg.sigma,
                    cfg.clip,
                    &mut chunk_rng(seed, t as u64),
                )?
            }
        };
        iterates.push(theta.clone());
        for (th, gh) in theta.iter_mut().zip(&ghat) {
            *th -= cfg.lr * (gh + cfg.lambda * *th);
        }
        losses.push(loss(data, &theta, cfg.lambda)?);
    }
    let (rdp, fil) = match cfg.noise {
        None => (None, None),
        Some(_) => (
            Some(sum_certified(terms, cfg.digits)?),
            Some(sum_certified(fils, cfg.digits)?),
        ),
    };
    Ok(GdRun {
        loss: losses,
        iterates,
        step_rdp: steps,
        rdp,
        fil,
    })
}
