//! The DP-SGD training loop (Abadi et al. 2016) and its OSO-DPSGD variant (Galli, Palamidessi &
//! Cucinotta, seed 004, Algorithm 1), one implementation for both, used unchanged by training,
//! utility experiments and the white-box audit (`super::audit`).
//!
//! One step t, with records r in the batch B_t and clipping threshold C_t:
//!
//! 1. **Batch.** [`Sampling::Poisson`] (default): every record independently with probability q;
//!    [`Sampling::FixedSize`]: b distinct records uniformly; [`Sampling::Shuffle`]: consecutive
//!    slices of b records of a fresh permutation per epoch.
//! 2. **Clip.** ḡ_r = g_r · min(1, C_t/‖g_r‖) (per-example gradient g_r from the [`Model`], or a
//!    fixed vector for a canary record).
//! 3. **Noise.** The released noisy sum S_t = Σ_r ḡ_r + N(0, (ν_g C_t)² I), where ν_g is the
//!    noise multiplier σ for DP-SGD and Prop. 1's ν_g for OSO.
//! 4. **OSO hypergradient query.** Q_t = Σ_r q_r + N(0, ν_q² I), q_r = g_r/‖g_r‖ if ‖g_r‖ > C_t
//!    else 0 (unit sensitivity; eq. (17)).
//! 5. **Update.** g̃_t = S_t/B̄ with B̄ = qN (Poisson; N records) or b; θ ← θ − ρ_t g̃_t. OSO then
//!    sets C_{t+1} = C_t exp(ρ_c sign(g̃_tᵀq̃_{t−1})) and ρ_{t+1} = ρ_t exp(ρ_r sign(g̃_tᵀg̃_{t−1}))
//!    (eqs. (20)–(21)), with q̃ = Q/B̄ and q̃_0 = g̃_0 = 0: post-processing of released values.
//!
//! [`Defect`] switches on one deliberate bug each, as positive controls for the audit.
//!
//! # Determinism
//! A run draws all its randomness, in a fixed order, from one [`StreamRng`] passed in by the
//! caller ([`Trainer::train`] uses `chunk_rng(seed, 0)`); a run is single-threaded and sums in
//! batch order, so the same seed gives bit-identical θ whatever the rayon pool. Parallel work
//! (audits, grids) runs whole runs in parallel, each on its own stream.

use super::model::Model;
use crate::error::{Error, Result};
use crate::mechanisms::stream::{chunk_rng, StreamRng};
use crate::train::data::Dataset;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

/// How batches are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Sampling {
    /// Each record independently with probability q ∈ (0, 1] (q = 1: full batch).
    Poisson {
        /// Sampling rate.
        q: f64,
    },
    /// b distinct records drawn uniformly without replacement, afresh every step.
    FixedSize {
        /// Batch size.
        batch: usize,
    },
    /// Shuffle once per epoch, then consecutive slices of b records.
    Shuffle {
        /// Batch size.
        batch: usize,
    },
}

/// Whether the Poisson-subsampled Gaussian accountant applies to a sampling scheme.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Coverage {
    /// The accountant's model is exactly this sampling scheme.
    Covered,
    /// Not covered; the reason.
    NotCovered(String),
}

impl Sampling {
    /// The accounting status of this scheme (see `docs/dpsgd.md#sampling`).
    pub fn coverage(&self) -> Coverage {
        match self {
            Sampling::Poisson { .. } => Coverage::Covered,
            Sampling::FixedSize { .. } => Coverage::NotCovered(
                "not covered by the Poisson accountant: a fixed-size batch is sampling without \
                 replacement; under add/remove neighbours the canary displaces another record, \
                 so the step's sensitivity is up to 2C, not C"
                    .into(),
            ),
            Sampling::Shuffle { .. } => Coverage::NotCovered(
                "not covered by the Poisson accountant: shuffled batches use every record \
                 exactly once per epoch (no amplification by random inclusion), and a record \
                 added or removed shifts the other batches"
                    .into(),
            ),
        }
    }

    /// The nominal sampling rate (q, or b/N for N records).
    pub fn rate(&self, n_records: usize) -> f64 {
        match *self {
            Sampling::Poisson { q } => q,
            Sampling::FixedSize { batch } | Sampling::Shuffle { batch } => {
                batch as f64 / n_records as f64
            }
        }
    }

    fn validate(&self, n_records: usize) -> Result<()> {
        match *self {
            Sampling::Poisson { q } => {
                if !(q > 0.0 && q <= 1.0) {
                    return Err(Error::invalid("q (sampling rate)", q, "in (0, 1]"));
                }
            }
            Sampling::FixedSize { batch } | Sampling::Shuffle { batch } => {
                if batch == 0 || batch > n_records {
                    return Err(Error::invalid(
                        "batch",
                        batch,
                        &format!("in [1, number of records = {n_records}]"),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// OSO-DPSGD's extra parameters (seed 004, Algorithm 1).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OsoParams {
    /// Noise multiplier ν_q of the hypergradient query (its sensitivity is 1).
    pub nu_q: f64,
    /// Learning rate ρ_c of log C_t.
    pub rho_c: f64,
    /// Learning rate ρ_r of log ρ_t.
    pub rho_r: f64,
}

impl OsoParams {
    /// ν_q from the rule of thumb ν_g = 1.01 ν (`super::oso::nu_q_for_ratio`) and
    /// ρ_c = ρ_r = 2.5·10⁻³, the values of seed 004's experiments.
    pub fn paper(nu: f64) -> Result<Self> {
        Ok(OsoParams {
            nu_q: super::oso::nu_q_for_ratio(nu, 1.01)?,
            rho_c: 2.5e-3,
            rho_r: 2.5e-3,
        })
    }
}

/// A deliberate implementation bug (positive controls of the audit). `None` is the correct
/// algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Defect {
    /// The correct algorithm.
    None,
    /// The gradient noise has standard deviation ν_g instead of ν_g·C_t.
    NoiseNotScaledByC,
    /// OSO only: Algorithm 1's line 13 as printed, noising Q_t with ν_g instead of ν_q.
    LiteralLine13,
    /// OSO only: C_{t+1} from g̃_tᵀ(Σ q_r/B̄) of step t − 1 without its noise.
    UnnoisedHypergradient,
}

/// The configuration of one training run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SgdConfig {
    /// Batch sampling.
    pub sampling: Sampling,
    /// Clipping threshold C (C_0 for OSO).
    pub clip: f64,
    /// Noise multiplier: σ for DP-SGD (noise std σC on the sum), the per-step total ν of
    /// Prop. 1 for OSO.
    pub noise_multiplier: f64,
    /// Number of steps T.
    pub steps: u64,
    /// Learning rate ρ (ρ_0 for OSO).
    pub lr: f64,
    /// OSO-DPSGD when set.
    pub oso: Option<OsoParams>,
    /// A deliberate bug (positive control), [`Defect::None`] otherwise.
    pub defect: Defect,
    /// The public normaliser B̄ of g̃ = S/B̄. `None`: qN for Poisson (N = the number of records
    /// trained on), b otherwise. Under add/remove neighbours N is private, and θ then depends
    /// on N beyond the noisy sums: set a fixed B̄ when N must not leak (`docs/dpsgd.md#normaliser`).
    pub batch_norm: Option<f64>,
}

impl SgdConfig {
    /// Plain DP-SGD with Poisson sampling.
    pub fn dpsgd(q: f64, clip: f64, sigma: f64, steps: u64, lr: f64) -> Self {
        SgdConfig {
            sampling: Sampling::Poisson { q },
            clip,
            noise_multiplier: sigma,
            steps,
            lr,
            oso: None,
            defect: Defect::None,
            batch_norm: None,
        }
    }

    /// Checks every field against a dataset of `n_records` records.
    pub(crate) fn validate(&self, n_records: usize) -> Result<()> {
        self.sampling.validate(n_records)?;
        crate::error::check_positive("clip", self.clip)?;
        crate::error::check_positive("noise_multiplier", self.noise_multiplier)?;
        if self.steps == 0 {
            return Err(Error::invalid("steps", 0, ">= 1"));
        }
        crate::error::check_nonnegative("lr", self.lr)?;
        if let Some(b) = self.batch_norm {
            crate::error::check_positive("batch_norm", b)?;
        }
        if let Some(o) = &self.oso {
            crate::error::check_positive("nu_q", o.nu_q)?;
            crate::error::check_nonnegative("rho_c", o.rho_c)?;
            crate::error::check_nonnegative("rho_r", o.rho_r)?;
            super::oso::nu_g(self.noise_multiplier, o.nu_q)?;
        } else if matches!(
            self.defect,
            Defect::LiteralLine13 | Defect::UnnoisedHypergradient
        ) {
            return Err(Error::invalid(
                "defect",
                format!("{:?}", self.defect),
                "an OSO configuration (this defect is in OSO's hypergradient)",
            ));
        }
        Ok(())
    }

    /// The gradient's noise multiplier ν_g: σ for DP-SGD, Prop. 1's split for OSO.
    pub fn nu_g(&self) -> Result<f64> {
        match &self.oso {
            None => Ok(self.noise_multiplier),
            Some(o) => super::oso::nu_g(self.noise_multiplier, o.nu_q),
        }
    }
}

/// What one step releases (and what the white-box adversary sees), before the update.
#[derive(Debug)]
pub struct StepView<'a> {
    /// Step index t (0-based).
    pub step: u64,
    /// θ_t, the parameters the gradients were taken at.
    pub theta: &'a [f64],
    /// C_t.
    pub clip: f64,
    /// ρ_t.
    pub lr: f64,
    /// The released noisy sum S_t = Σ ḡ_r + noise.
    pub noisy_sum: &'a [f64],
    /// OSO's released noisy Q_t.
    pub noisy_qsum: Option<&'a [f64]>,
    /// C_{t+1} as the run set it.
    pub next_clip: f64,
    /// The normaliser B̄ (g̃ = S/B̄).
    pub batch_norm: f64,
    /// The standard deviation of the noise actually added to each coordinate of S_t.
    pub noise_std: f64,
    /// The standard deviation of the noise actually added to each coordinate of Q_t (OSO).
    pub q_noise_std: f64,
    /// The number of records in the batch (private; for tests and diagnostics, never read by
    /// the audit's adversary).
    pub batch_len: usize,
}

/// Buffers of a run, reused across runs of the same shape (no allocation per step).
#[derive(Debug, Clone)]
pub struct Workspace {
    /// θ.
    pub theta: Vec<f64>,
    grad: Vec<f64>,
    scratch: Vec<f64>,
    sum: Vec<f64>,
    qsum: Vec<f64>,
    qclean_prev: Vec<f64>,
    qtilde_prev: Vec<f64>,
    gtilde_prev: Vec<f64>,
    batch: Vec<usize>,
    perm: Vec<usize>,
}

impl Workspace {
    /// Buffers for `model` and `n_records` records.
    pub(crate) fn new(model: &dyn Model, n_records: usize) -> Self {
        let p = model.n_params();
        Workspace {
            theta: vec![0.0; p],
            grad: vec![0.0; p],
            scratch: vec![0.0; model.scratch_len()],
            sum: vec![0.0; p],
            qsum: vec![0.0; p],
            qclean_prev: vec![0.0; p],
            qtilde_prev: vec![0.0; p],
            gtilde_prev: vec![0.0; p],
            batch: Vec::with_capacity(n_records),
            perm: (0..n_records).collect(),
        }
    }
}

/// sign with sign(0) = 0 (f64::signum(0.0) is 1).
#[inline]
fn sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

#[inline]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The result of [`Trainer::train`].
#[derive(Debug, Clone, PartialEq)]
pub struct TrainOutput {
    /// Final parameters θ_T.
    pub theta: Vec<f64>,
    /// C_t for t = 0, …, T.
    pub clip_path: Vec<f64>,
    /// Batch sizes |B_t|.
    pub batch_sizes: Vec<usize>,
}

/// A model, a dataset and an optional canary record, trained by DP-SGD / OSO-DPSGD.
pub struct Trainer<'a> {
    model: &'a dyn Model,
    data: &'a Dataset,
    /// A canary record whose per-example gradient is this fixed vector (any θ), e.g. M·u for a
    /// unit u and M ≥ C: its clipped gradient is then exactly C·u (a "Dirac canary").
    canary: Option<&'a [f64]>,
    cfg: &'a SgdConfig,
    nu_g: f64,
}

impl<'a> Trainer<'a> {
    /// Validates the data against the model and the configuration.
    pub fn new(
        model: &'a dyn Model,
        data: &'a Dataset,
        canary: Option<&'a [f64]>,
        cfg: &'a SgdConfig,
    ) -> Result<Self> {
        if data.d != model.n_features() {
            return Err(Error::invalid(
                "data dimension",
                data.d,
                &format!("the model's {} features", model.n_features()),
            ));
        }
        for &y in &data.y {
            model.check_label(y)?;
        }
        if let Some(c) = canary {
            if c.len() != model.n_params() {
                return Err(Error::invalid(
                    "canary gradient length",
                    c.len(),
                    &format!("the model's {} parameters", model.n_params()),
                ));
            }
            if let Some(v) = c.iter().find(|v| !v.is_finite()) {
                return Err(Error::invalid("canary gradient entry", v, "finite"));
            }
        }
        let n = data.n + usize::from(canary.is_some());
        cfg.validate(n)?;
        Ok(Trainer {
            model,
            data,
            canary,
            cfg,
            nu_g: cfg.nu_g()?,
        })
    }

    /// Number of records N (the canary included).
    pub(crate) fn n_records(&self) -> usize {
        self.data.n + usize::from(self.canary.is_some())
    }

    /// A workspace for this trainer.
    pub fn workspace(&self) -> Workspace {
        Workspace::new(self.model, self.n_records())
    }

    /// One seeded run from θ_0 = `model.init(seed)` (its own stream), randomness from
    /// `chunk_rng(seed, 0)`.
    pub fn train(&self, seed: u64) -> Result<TrainOutput> {
        let mut ws = self.workspace();
        ws.theta = self.model.init(seed);
        let mut rng = chunk_rng(seed, 0);
        let mut clip_path = vec![self.cfg.clip];
        let mut batch_sizes = Vec::with_capacity(self.cfg.steps as usize);
        self.run(&mut ws, &mut rng, &mut |v: &StepView| {
            clip_path.push(v.next_clip);
            batch_sizes.push(v.batch_len);
        });
        Ok(TrainOutput {
            theta: ws.theta,
            clip_path,
            batch_sizes,
        })
    }

    fn draw_batch(&self, ws: &mut Workspace, rng: &mut StreamRng, step: u64) {
        let n = self.n_records();
        ws.batch.clear();
        match self.cfg.sampling {
            Sampling::Poisson { q } => {
                if q >= 1.0 {
                    ws.batch.extend(0..n);
                } else {
                    for r in 0..n {
                        if rng.random::<f64>() < q {
                            ws.batch.push(r);
                        }
                    }
                }
            }
            Sampling::FixedSize { batch } => {
                // Partial Fisher–Yates: the first `batch` entries of a permutation become a
                // uniform subset, whatever the permutation was before.
                for i in 0..batch {
                    let j = rng.random_range(i..n);
                    ws.perm.swap(i, j);
                }
                ws.batch.extend_from_slice(&ws.perm[..batch]);
            }
            Sampling::Shuffle { batch } => {
                let per_epoch = n.div_ceil(batch) as u64;
                let k = (step % per_epoch) as usize;
                if k == 0 {
                    for i in (1..n).rev() {
                        let j = rng.random_range(0..=i);
                        ws.perm.swap(i, j);
                    }
                }
                let end = ((k + 1) * batch).min(n);
                ws.batch.extend_from_slice(&ws.perm[k * batch..end]);
            }
        }
    }

    /// Runs T steps from `ws.theta`, drawing from `rng`, calling `watch` with every step's
    /// release. The configuration was validated by [`Trainer::new`]; this cannot fail.
    pub fn run(&self, ws: &mut Workspace, rng: &mut StreamRng, watch: &mut dyn FnMut(&StepView)) {
        let cfg = self.cfg;
        let p = self.model.n_params();
        let n = self.n_records();
        let oso = cfg.oso;
        let mut clip = cfg.clip;
        let mut lr = cfg.lr;
        let batch_norm = cfg.batch_norm.unwrap_or(match cfg.sampling {
            Sampling::Poisson { q } => q * n as f64,
            Sampling::FixedSize { batch } | Sampling::Shuffle { batch } => batch as f64,
        });
        ws.qtilde_prev.fill(0.0);
        ws.gtilde_prev.fill(0.0);
        ws.qclean_prev.fill(0.0);
        for step in 0..cfg.steps {
            self.draw_batch(ws, rng, step);
            ws.sum.fill(0.0);
            ws.qsum.fill(0.0);
            for bi in 0..ws.batch.len() {
                let r = ws.batch[bi];
                if r < self.data.n {
                    self.model.grad(
                        &ws.theta,
                        self.data.row(r),
                        self.data.y[r],
                        &mut ws.grad,
                        &mut ws.scratch,
                    );
                } else if let Some(c) = self.canary {
                    ws.grad.copy_from_slice(c);
                }
                let norm = dot(&ws.grad, &ws.grad).sqrt();
                let f = if norm > clip { clip / norm } else { 1.0 };
                for (s, g) in ws.sum.iter_mut().zip(&ws.grad) {
                    *s += f * g;
                }
                if oso.is_some() && norm > clip {
                    for (s, g) in ws.qsum.iter_mut().zip(&ws.grad) {
                        *s += g / norm;
                    }
                }
            }
            let std = match cfg.defect {
                Defect::NoiseNotScaledByC => self.nu_g,
                _ => self.nu_g * clip,
            };
            for s in ws.sum.iter_mut() {
                let z: f64 = StandardNormal.sample(rng);
                *s += std * z;
            }
            let mut next_clip = clip;
            let mut next_lr = lr;
            let mut q_noise_std = 0.0;
            if let Some(o) = oso {
                // Keep the un-noised Q_t (used only by the UnnoisedHypergradient defect).
                let qclean: Vec<f64> = if cfg.defect == Defect::UnnoisedHypergradient {
                    ws.qsum.clone()
                } else {
                    Vec::new()
                };
                let qstd = match cfg.defect {
                    Defect::LiteralLine13 => self.nu_g,
                    _ => o.nu_q,
                };
                q_noise_std = qstd;
                for s in ws.qsum.iter_mut() {
                    let z: f64 = StandardNormal.sample(rng);
                    *s += qstd * z;
                }
                // g̃_t = S_t/B̄; hypergradient against q̃_{t−1} (or its un-noised version).
                let mut h_c = 0.0;
                let mut h_r = 0.0;
                for i in 0..p {
                    let g = ws.sum[i] / batch_norm;
                    let qprev = if cfg.defect == Defect::UnnoisedHypergradient {
                        ws.qclean_prev[i]
                    } else {
                        ws.qtilde_prev[i]
                    };
                    h_c += g * qprev;
                    h_r += g * ws.gtilde_prev[i];
                }
                next_clip = clip * (o.rho_c * sign(h_c)).exp();
                next_lr = lr * (o.rho_r * sign(h_r)).exp();
                for i in 0..p {
                    ws.gtilde_prev[i] = ws.sum[i] / batch_norm;
                    ws.qtilde_prev[i] = ws.qsum[i] / batch_norm;
                }
                if cfg.defect == Defect::UnnoisedHypergradient {
                    for (d, s) in ws.qclean_prev.iter_mut().zip(&qclean) {
                        *d = s / batch_norm;
                    }
                }
            }
            watch(&StepView {
                step,
                theta: &ws.theta,
                clip,
                lr,
                noisy_sum: &ws.sum,
                noisy_qsum: oso.map(|_| &ws.qsum[..]),
                next_clip,
                batch_norm,
                noise_std: std,
                q_noise_std,
                batch_len: ws.batch.len(),
            });
            for (t, s) in ws.theta.iter_mut().zip(&ws.sum) {
                *t -= lr * s / batch_norm;
            }
            clip = next_clip;
            lr = next_lr;
        }
    }
}

/// Fraction of `data`'s records that `model` with parameters `theta` labels correctly.
pub fn accuracy(model: &dyn Model, theta: &[f64], data: &Dataset) -> f64 {
    let mut s = vec![0.0; model.scratch_len()];
    let ok = (0..data.n)
        .filter(|&j| model.predict(theta, data.row(j), &mut s) == data.y[j])
        .count();
    ok as f64 / data.n as f64
}
