//! The two-node private gradient descent of HMB Appendix C.
//!
//! Each node i holds a part of the data and a local ridge objective f_i (HMB eq. (9)); at step t
//! it releases a gradient g_t⁽ⁱ⁾ at θ_t and both nodes update, HMB eq. (79):
//! θ_{t+1} = θ_t − τ · ½ (g_t⁽¹⁾ + g_t⁽²⁾), with τ = 0.5 / max_i λ_max(A⁽ⁱ⁾), θ_0 = 0.
//! The objective is F = ½(f_1 + f_2); runs report F(θ_t) − F* for t = 0..=T.
//!
//! Releases ([`Release`]): non-private (eq. (80)); clipped Gaussian (eqs. (81)–(82)): per-record
//! gradients clipped at c_i, averaged, plus N(0, σ_i² I) with σ_i² = α c_i² / (ε N_i²); relative
//! noise (eq. (83), HMB's RGM): ḡ plus the noise of a registry family with a relative-noise hook
//! ([`crate::model::noise::RelativeNoise`], the experiment's `noise`), its (γ_i, σ_i²) calibrated
//! by the family (see [`noise_parameters`]). Splits ([`Split`]) follow HMB §5.5.
//!
//! [`Conventions`] selects, where HMB's App. C text and the authors' public code (GitHub
//! `HadrienHx/RGM`, commit 953a4314b63a31dd5d0eb5caf407eaf7390e350c) differ, whose clip threshold
//! and RGM noise form a run uses; [`Split::Tilt`] is that code's construction of the 'bias'
//! split (`docs/training.md#the-authors-code-conventions`).
//!
//! Determinism: the split draws from `chunk_rng(seed, 0)`, node i's noise at step t from
//! `chunk_rng(seed, 1 + 2t + i)`; clipped sums are computed per fixed block of records in
//! parallel and added in block order, so runs are bit-identical whatever the thread count.

use super::data::Dataset;
use super::ridge::{RelSens, Ridge};
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::model::noise::{RelativeFamily, ScalarNoise};
use nalgebra::DVector;
use rand::seq::SliceRandom;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use std::borrow::Cow;

/// Records per block in the clipped-gradient sum (fixed, for thread-count independence).
const BLOCK: usize = 8192;

/// Whose conventions a run follows where HMB's App. C text and the authors' code differ
/// (`docs/training.md#the-authors-code-conventions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conventions {
    /// HMB App. C as printed: c_i = max_j ‖∇f_ij(θ_i*)‖ (C.1); RGM noise variance
    /// γ‖ḡ‖² + σ² (eq. (83)) with γ, σ² from Theorem 1 and η, R_rel from eqs. (10)–(11).
    Paper,
    /// The authors' repository `HadrienHx/RGM` at commit 953a431 (`noisers.py`):
    /// the threshold c_i = √(Σ_j ‖∇f_ij(θ_i*)‖²) (`autoset_clipping_threshold` takes the norm of
    /// the whole matrix of per-record gradients), and an RGM noise whose *standard deviation* is
    /// γ‖ḡ‖ + σ with γ = δ√(α/ε), σ = R√(α/ε), δ = max_j ‖X_j − X̄‖‖A⁻¹(X_j − X̄)‖/N (centred
    /// features, no constant factor) and R = δ‖b‖ + max_j ‖y_j X_j‖/N (`UnboundedNoiser`).
    AuthorsCode,
}

impl Conventions {
    /// The name used in experiment files and outputs.
    pub fn name(self) -> &'static str {
        match self {
            Conventions::Paper => "paper",
            Conventions::AuthorsCode => "authors_code",
        }
    }

    /// Parses `paper` or `authors_code`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "paper" => Ok(Conventions::Paper),
            "authors_code" => Ok(Conventions::AuthorsCode),
            _ => Err(Error::invalid("conventions", s, "paper or authors_code")),
        }
    }
}

/// The relative-sensitivity constants the authors' code computes (`UnboundedNoiser.get_delta`,
/// `get_R_star`), see [`Conventions::AuthorsCode`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CodeRel {
    /// δ = max_j ‖X_j − X̄‖ ‖A⁻¹(X_j − X̄)‖ / N (the code's stand-in for η).
    pub delta: f64,
    /// R = δ‖b‖ + max_j ‖y_j X_j‖ / N (the code's stand-in for R_rel).
    pub r_star: f64,
}

/// How the records are shared between the two nodes (HMB §5.5).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Split {
    /// Uniformly random halves.
    Random,
    /// 50 random records per node, then every remaining positive label to node 1 and every
    /// remaining negative one to node 2.
    Label,
    /// Random halves, and the linear term +⟨B, θ⟩ added to f_1 and −⟨B, θ⟩ to f_2 (F unchanged),
    /// with B = `magnitude` · (1, …, 1)/√d. HMB do not state B; the magnitude is ours.
    Bias {
        /// ‖B‖.
        magnitude: f64,
    },
    /// The authors' code's 'bias' split (`main.py`'s `tilt`, `model.py`'s
    /// `TiltedLinearRegression`): random halves, node 1 unchanged and node 2's objective
    /// translated, f_2(θ) = f(θ − t) with t = `per_coordinate` · (1, …, 1) (the code's
    /// commented-out setting is 100). F changes with t; every per-record gradient is taken at
    /// θ − t, so the clip thresholds and sensitivity constants are those of the untranslated
    /// problem.
    Tilt {
        /// Each coordinate of t.
        per_coordinate: f64,
    },
}

/// A gradient release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Release {
    /// Exact local gradient, eq. (80).
    NonPrivate,
    /// Clipped Gaussian, eqs. (81)–(82), at threshold `factor` · c_i with
    /// c_i = max_j ‖∇f_ij(θ_i*)‖ (the paper's 'Clip low/—/high' are factors 0.1, 1, 10).
    Clip {
        /// Multiple of c_i.
        factor: f64,
    },
    /// The relative noise of a registry family, eq. (83) (HMB: the relative Gaussian mechanism).
    Relative(RelativeFamily),
    /// Clipped Gaussian at `factor` · c_i, but with σ calibrated so that the exact composed
    /// guarantee of `steps` steps is (`eps`, `delta`) (Balle–Wang, see [`super::privacy`]):
    /// clipping at equal *certified* (ε, δ) instead of the paper's equal RDP at α = 2.
    ClipMatched {
        /// Multiple of c_i.
        factor: f64,
        /// Target composed ε.
        eps: f64,
        /// δ.
        delta: f64,
        /// Number of steps T the target covers.
        steps: u32,
    },
}

/// Per-step Rényi target (α, ε) of HMB §5.5: α = 2, ε = 0.1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RdpTarget {
    /// Order α.
    pub alpha: f64,
    /// Per-step ε.
    pub eps: f64,
}

impl Default for RdpTarget {
    fn default() -> Self {
        RdpTarget {
            alpha: 2.0,
            eps: 0.1,
        }
    }
}

/// One node: its data, objective and local constants.
#[derive(Debug, Clone)]
pub struct Node {
    /// Local data.
    pub data: Dataset,
    /// Local objective f_i.
    pub ridge: Ridge,
    /// Local optimum θ_i*.
    pub theta_star: DVector<f64>,
    /// The clip threshold c_i the node's conventions set at its optimum (per-record gradients
    /// including regulariser and bias): max_j ‖∇f_ij(θ_i*)‖ (paper) or √(Σ_j ‖∇f_ij(θ_i*)‖²)
    /// (authors' code).
    pub clip_c: f64,
    /// η_i, R_rel,i (HMB eqs. (10)–(11)).
    pub rel: RelSens,
    /// The translation t of [`Split::Tilt`]: the node's objective is f(θ − t) (None: f(θ)).
    pub shift: Option<DVector<f64>>,
    /// Whose conventions set `clip_c` and the RGM noise.
    pub conventions: Conventions,
    /// The authors' code's (δ, R) ([`Conventions::AuthorsCode`] only).
    pub code_rel: Option<CodeRel>,
}

/// The two-node problem: nodes, τ, and the global optimum of F = ½(f_1 + f_2).
#[derive(Debug, Clone)]
pub struct TwoNode {
    /// The two nodes.
    pub nodes: [Node; 2],
    /// Step size τ = 0.5 / max_i λ_max(A⁽ⁱ⁾).
    pub tau: f64,
    /// Global objective F (A = ½(A⁽¹⁾ + A⁽²⁾), b likewise, no bias: the two biases cancel).
    pub global: Ridge,
    /// argmin F.
    pub theta_star: DVector<f64>,
}

/// Per-record gradient ∇f_ij(θ) = X_j(X_jᵀθ − y_j) + μ_reg θ + B_i.
fn record_gradient(
    node_ridge: &Ridge,
    data: &Dataset,
    j: usize,
    theta: &DVector<f64>,
) -> DVector<f64> {
    let g = Ridge::record_loss_gradient(data, j, theta.as_slice());
    DVector::from_vec(g) + theta * node_ridge.mu_reg + &node_ridge.bias
}

impl Node {
    fn new(
        data: Dataset,
        mu_reg: f64,
        bias: DVector<f64>,
        shift: Option<DVector<f64>>,
        conventions: Conventions,
    ) -> Result<Self> {
        let ridge = Ridge::new(&data, mu_reg)?.with_bias(bias)?;
        // θ* of the untranslated objective: the per-record gradients at the (translated) optimum.
        let theta_star = ridge.theta_star()?;
        let norms = (0..data.n).map(|j| record_gradient(&ridge, &data, j, &theta_star).norm());
        let clip_c = match conventions {
            Conventions::Paper => norms.fold(0.0, f64::max),
            Conventions::AuthorsCode => norms.map(|v| v * v).sum::<f64>().sqrt(),
        };
        let rel = ridge.relative_sensitivity(&data)?;
        let code_rel = match conventions {
            Conventions::Paper => None,
            Conventions::AuthorsCode => Some(code_rel(&ridge, &data)?),
        };
        let theta_star = match &shift {
            Some(t) => theta_star + t,
            None => theta_star,
        };
        Ok(Node {
            data,
            ridge,
            theta_star,
            clip_c,
            rel,
            shift,
            conventions,
            code_rel,
        })
    }

    /// The point at which the untranslated objective is evaluated: θ, or θ − t under a tilt.
    fn at<'a>(&self, theta: &'a DVector<f64>) -> Cow<'a, DVector<f64>> {
        match &self.shift {
            Some(t) => Cow::Owned(theta - t),
            None => Cow::Borrowed(theta),
        }
    }

    /// The node's exact local gradient ∇f_i(θ).
    pub(crate) fn gradient(&self, theta: &DVector<f64>) -> DVector<f64> {
        self.ridge.gradient(&self.at(theta))
    }

    /// (1/N) Σ_j clip_c(∇f_ij(θ)), summed in fixed blocks in block order.
    fn clipped_mean(&self, theta: &DVector<f64>, c: f64) -> DVector<f64> {
        let theta = &*self.at(theta);
        let n = self.data.n;
        let parts: Vec<DVector<f64>> = (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|blk| {
                let mut s = DVector::zeros(self.data.d);
                for j in blk * BLOCK..((blk + 1) * BLOCK).min(n) {
                    let g = record_gradient(&self.ridge, &self.data, j, theta);
                    let nrm = g.norm();
                    s += if nrm > c { g * (c / nrm) } else { g };
                }
                s
            })
            .collect();
        let mut tot = DVector::zeros(self.data.d);
        for p in parts {
            tot += p;
        }
        tot / n as f64
    }
}

/// The authors' code's (δ, R) of `ridge` on `data` ([`CodeRel`]).
fn code_rel(ridge: &Ridge, data: &Dataset) -> Result<CodeRel> {
    let ch = ridge
        .a
        .clone()
        .cholesky()
        .ok_or_else(|| Error::Undefined("ridge: A is not positive definite".into()))?;
    let (n, d) = (data.n, data.d);
    let mut mean = DVector::zeros(d);
    for j in 0..n {
        mean += DVector::from_column_slice(data.row(j));
    }
    mean /= n as f64;
    let (mut delta, mut by) = (0.0f64, 0.0f64);
    for j in 0..n {
        let x = DVector::from_column_slice(data.row(j));
        let c = &x - &mean;
        delta = delta.max(c.norm() * ch.solve(&c).norm());
        by = by.max(data.y[j].abs() * x.norm());
    }
    let delta = delta / n as f64;
    Ok(CodeRel {
        delta,
        r_star: delta * ridge.b.norm() + by / n as f64,
    })
}

impl TwoNode {
    /// Splits `data` between two nodes by `split` (seeded) and precomputes everything, with the
    /// paper's conventions.
    pub fn new(data: &Dataset, mu_reg: f64, split: Split, seed: u64) -> Result<Self> {
        Self::with_conventions(data, mu_reg, split, seed, Conventions::Paper)
    }

    /// [`TwoNode::new`] with the clip threshold and RGM noise of `conventions`.
    pub fn with_conventions(
        data: &Dataset,
        mu_reg: f64,
        split: Split,
        seed: u64,
        conventions: Conventions,
    ) -> Result<Self> {
        if data.n < 4 {
            return Err(Error::invalid(
                "n",
                data.n,
                "at least 4 records for two nodes",
            ));
        }
        let mut rng = chunk_rng(seed, 0);
        let mut idx: Vec<usize> = (0..data.n).collect();
        idx.shuffle(&mut rng);
        let d = data.d;
        let (i1, i2, b): (Vec<usize>, Vec<usize>, f64) = match split {
            Split::Random => {
                let h = data.n / 2;
                (idx[..h].to_vec(), idx[h..].to_vec(), 0.0)
            }
            Split::Bias { magnitude } => {
                if !magnitude.is_finite() {
                    return Err(Error::invalid("bias magnitude", magnitude, "finite"));
                }
                let h = data.n / 2;
                (idx[..h].to_vec(), idx[h..].to_vec(), magnitude)
            }
            Split::Tilt { per_coordinate } => {
                if !per_coordinate.is_finite() {
                    return Err(Error::invalid("tilt", per_coordinate, "finite"));
                }
                let h = data.n / 2;
                (idx[..h].to_vec(), idx[h..].to_vec(), 0.0)
            }
            Split::Label => {
                let seedn = 50.min(data.n / 4);
                let mut a = idx[..seedn].to_vec();
                let mut bb = idx[seedn..2 * seedn].to_vec();
                for &j in &idx[2 * seedn..] {
                    if data.y[j] > 0.0 {
                        a.push(j);
                    } else {
                        bb.push(j);
                    }
                }
                (a, bb, 0.0)
            }
        };
        let bvec = DVector::from_element(d, b / (d as f64).sqrt());
        let tilt = match split {
            Split::Tilt { per_coordinate } => Some(DVector::from_element(d, per_coordinate)),
            _ => None,
        };
        let n1 = Node::new(data.subset(&i1)?, mu_reg, bvec.clone(), None, conventions)?;
        let n2 = Node::new(data.subset(&i2)?, mu_reg, -bvec, tilt.clone(), conventions)?;
        let lmax = n1.ridge.spectrum().l.max(n2.ridge.spectrum().l);
        let tau = 0.5 / lmax;
        let mut global = n1.ridge.clone();
        global.a = (&n1.ridge.a + &n2.ridge.a) * 0.5;
        global.b = (&n1.ridge.b + &n2.ridge.b) * 0.5;
        if let Some(t) = &tilt {
            // ∇f_2(θ) = A⁽²⁾(θ − t) − b⁽²⁾: node 2's linear term is b⁽²⁾ + A⁽²⁾t.
            global.b += (&n2.ridge.a * t) * 0.5;
        }
        global.bias = DVector::zeros(d);
        global.n = data.n;
        let theta_star = global.theta_star()?;
        Ok(TwoNode {
            nodes: [n1, n2],
            tau,
            global,
            theta_star,
        })
    }

    /// Runs T steps of eq. (79) with `release` and returns F(θ_t) − F* for t = 0..=T.
    pub fn run(
        &self,
        release: Release,
        target: RdpTarget,
        steps: usize,
        seed: u64,
    ) -> Result<Vec<f64>> {
        let params: Vec<NodeNoise> = self
            .nodes
            .iter()
            .map(|nd| NodeNoise::for_node(nd, release, target))
            .collect::<Result<_>>()?;
        let d = self.global.d;
        let mut theta = DVector::zeros(d);
        let mut out = Vec::with_capacity(steps + 1);
        out.push(self.global.suboptimality(&theta, &self.theta_star));
        for t in 0..steps {
            crate::limits::check_deadline("two-node DP-GD training")?;
            let mut step = DVector::zeros(d);
            for (i, (nd, p)) in self.nodes.iter().zip(&params).enumerate() {
                let mut rng = chunk_rng(seed, 1 + 2 * t as u64 + i as u64);
                let (g, sd, relative) = match *p {
                    NodeNoise::None => (nd.gradient(&theta), 0.0, None),
                    NodeNoise::Clip { c, sigma2 } => {
                        (nd.clipped_mean(&theta, c), sigma2.sqrt(), None)
                    }
                    NodeNoise::Relative {
                        noise,
                        gamma,
                        sigma2,
                    } => {
                        let g = nd.gradient(&theta);
                        let sd = noise.noise.sd(gamma, sigma2, g.norm_squared());
                        (g, sd, Some(noise))
                    }
                    NodeNoise::CodeRelative {
                        noise,
                        gamma,
                        sigma,
                    } => {
                        let g = nd.gradient(&theta);
                        let sd = gamma * g.norm() + sigma;
                        (g, sd, Some(noise))
                    }
                };
                let noise = match relative {
                    Some(f) => {
                        let mut v = vec![0.0; d];
                        f.noise.draw(sd, &mut rng, &mut v);
                        DVector::from_vec(v)
                    }
                    None => DVector::from_fn(d, |_, _| {
                        let z: f64 = StandardNormal.sample(&mut rng);
                        sd * z
                    }),
                };
                step += g + noise;
            }
            theta -= step * (0.5 * self.tau);
            let s = self.global.suboptimality(&theta, &self.theta_star);
            if !s.is_finite() {
                return Err(Error::Undefined(format!(
                    "two-node GD diverged at step {} (release {release:?})",
                    t + 1
                )));
            }
            out.push(s);
        }
        Ok(out)
    }
}

/// The noise parameters one node uses for a release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum NodeNoise {
    /// No noise.
    None,
    /// Clipping threshold and Gaussian variance (eq. (82)).
    Clip {
        /// Threshold c.
        c: f64,
        /// σ² = α c² / (ε N²).
        sigma2: f64,
    },
    /// Relative-noise parameters (calibrated by the family: HMB Theorem 1 for the RGM).
    Relative {
        /// The family.
        noise: RelativeFamily,
        /// γ.
        gamma: f64,
        /// σ².
        sigma2: f64,
    },
    /// The authors' code's form of the relative noise: per-coordinate standard deviation
    /// γ‖ḡ‖ + σ.
    CodeRelative {
        /// The family whose noise is drawn at that standard deviation.
        noise: RelativeFamily,
        /// γ = δ√(α/ε).
        gamma: f64,
        /// σ = R√(α/ε) (a standard deviation).
        sigma: f64,
    },
}

impl NodeNoise {
    /// Noise parameters of node `nd` for `release` at the per-step target.
    pub(crate) fn for_node(nd: &Node, release: Release, target: RdpTarget) -> Result<Self> {
        let n = nd.data.n as f64;
        Ok(match release {
            Release::NonPrivate => NodeNoise::None,
            Release::Clip { factor } => {
                if !(factor > 0.0 && factor.is_finite()) {
                    return Err(Error::invalid("clip factor", factor, "finite and > 0"));
                }
                let c = factor * nd.clip_c;
                NodeNoise::Clip {
                    c,
                    sigma2: target.alpha * c * c / (target.eps * n * n),
                }
            }
            Release::ClipMatched {
                factor,
                eps,
                delta,
                steps,
            } => {
                if !(factor > 0.0 && factor.is_finite()) {
                    return Err(Error::invalid("clip factor", factor, "finite and > 0"));
                }
                let c = factor * nd.clip_c;
                let sens = (steps as f64).sqrt() * 2.0 * c / n;
                let sigma = gaussian_sigma_for(sens, eps, delta)?;
                NodeNoise::Clip {
                    c,
                    sigma2: sigma * sigma,
                }
            }
            Release::Relative(noise) => match (nd.conventions, nd.code_rel) {
                (Conventions::AuthorsCode, Some(cr)) => {
                    // `UnboundedNoiser.initialize_params`: with δ > 1 the code sets its flag
                    // off and `get_new_param` returns θ unchanged (no update at all).
                    if cr.delta.is_nan() || cr.delta > 1.0 {
                        return Err(Error::outside(
                            "the authors' code (HadrienHx/RGM noisers.py, UnboundedNoiser)",
                            format!(
                                "delta = {} > 1: the code switches the RGM off (no update)",
                                cr.delta
                            ),
                        ));
                    }
                    let k = (target.alpha / target.eps).sqrt();
                    NodeNoise::CodeRelative {
                        noise,
                        gamma: cr.delta * k,
                        sigma: cr.r_star * k,
                    }
                }
                _ => {
                    let (gamma, sigma2) =
                        noise_parameters(noise, nd.rel, nd.data.d as u32, target)?;
                    NodeNoise::Relative {
                        noise,
                        gamma,
                        sigma2,
                    }
                }
            },
        })
    }
}

/// The σ at which the Gaussian mechanism of sensitivity `sens` is exactly (ε, δ)-DP
/// (Balle–Wang Thm. 8, inverted by bisection on log σ to relative width 1e-14; ε(δ) decreases
/// in σ). The caller's accounting re-certifies the result with the multi-precision route.
pub(crate) fn gaussian_sigma_for(sens: f64, eps: f64, delta: f64) -> Result<f64> {
    if !(eps > 0.0 && eps.is_finite()) {
        return Err(Error::invalid("eps", eps, "finite and > 0"));
    }
    let f = |s: f64| crate::bounds::gaussian::dp_eps_f64(sens, s, delta);
    let (lo, hi) = (sens * 1e-6, sens * 1e6);
    if f(lo)? < eps || f(hi)? > eps {
        return Err(Error::invalid(
            "eps",
            eps,
            "reachable by a Gaussian sigma in [1e-6, 1e6] x sensitivity",
        ));
    }
    super::log_bisect(lo, hi, Some(1e-14), |mid| Ok(f(mid)? > eps))
}

/// γ and σ² of `noise` for the per-step target (α, ε) at node relative sensitivity `rel` in
/// dimension d, calibrated by the family (the RGM: HMB Theorem 1, eq. (5) solved for γ and
/// σ² = γR²/η² as in eq. (6), Theorem 1's σ² condition checked); an error naming the violated
/// condition when the target cannot be met.
pub fn noise_parameters(
    noise: RelativeFamily,
    rel: RelSens,
    d: u32,
    target: RdpTarget,
) -> Result<(f64, f64)> {
    noise
        .noise
        .calibrate(rel.eta, rel.r_rel, d, target.alpha, target.eps)
}

/// The noises HMB define their algorithms with, looked up in the registry: the relative noise of
/// the private gradient descent (`noise`, Def. 3 and eq. (7)) and the noise of
/// propose-test-release's test (`ptr_noise`, Prop. 2). They are data (`experiments/hmb_noise.toml`),
/// for the callers that follow the paper's definitions (Theorem 2's simulation, Props. 2–3);
/// an experiment file names its own `noise`.
pub fn hmb_noise() -> Result<(RelativeFamily, ScalarNoise)> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Noises {
        noise: String,
        ptr_noise: String,
    }
    let n: Noises =
        toml::from_str(include_str!("../../experiments/hmb_noise.toml")).map_err(|e| {
            Error::Parse {
                what: "experiments/hmb_noise.toml".into(),
                text: String::new(),
                reason: e.to_string(),
            }
        })?;
    Ok((
        RelativeFamily::named("noise", &n.noise)?,
        ScalarNoise::named("ptr_noise", &n.ptr_noise)?,
    ))
}
