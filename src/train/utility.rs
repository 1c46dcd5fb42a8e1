//! HMB Theorem 2 (eq. (8)) and eq. (56), the utility of gradient descent with HMB's relative
//! noise, checked by seeded simulation (issue 22 item 2; derivation of the corrected bounds in
//! `docs/claims.md#theorem-2`).
//!
//! On a quadratic f(θ) = ½(θ − θ*)ᵀA(θ − θ*) (A symmetric positive semi-definite), the iteration
//! (7) θ_{t+1} = θ_t − τ RGM_{γ,σ}(∇f(θ_t)) reads, for the error e_t = θ_t − θ*,
//! e_{t+1} = (I − τA)e_t − τξ_t with ξ_t ~ N(0, (γ‖Ae_t‖² + σ²) I_d) (HMB Def. 3: the variance is
//! added to *each* of the d coordinates). [`simulate_with`] draws `runs` independent trajectories
//! with the sampler of a registry family's relative noise
//! ([`crate::model::noise::RelativeNoise::law`]; [`simulate`]: the noise HMB define the iteration
//! with, named in `experiments/hmb_noise.toml`), run r from `chunk_rng(seed, r)` (bit-identical
//! whatever the thread count), in A's eigenbasis (the noise is isotropic, so the law of the error's
//! norm is rotation-invariant; O(d) per step), and returns E‖e_T‖² and E[f(ē_T) − f*] (ē_T the average of
//! e_0 … e_{T−1}, the iterate of eq. (56)) with normal-approximation confidence intervals.
//! [`exact_mse`] is an independent route to E‖e_T‖²: the second-moment recursion
//! P_{t+1} = (I − τA)P_t(I − τA) + τ²(γ tr(AP_tA) + σ²) I, E‖e_t‖² = tr P_t.
//!
//! The bounds compared (μ = λ_min(A), L = λ_max(A)):
//! * HMB eq. (8): (1 − τμ)^T ‖e_0‖² + τσ²/μ, for τ ≤ (L + γ)⁻¹ (main text) or τ ≤ ((1 + γ)L)⁻¹
//!   (proof, App. B.1);
//! * corrected: (1 − τμ)^T ‖e_0‖² + τdσ²/μ for τ ≤ ((1 + dγ)L)⁻¹ (E‖ξ‖² = d(γ‖∇f‖² + σ²));
//! * HMB eq. (56): ‖e_0‖²/(2τT) + τσ²/2, corrected ‖e_0‖²/(2τT) + τdσ²/2 (same step condition).

use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::model::noise::RelativeFamily;
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use rayon::prelude::*;

/// The step-size readings of Theorem 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepRule {
    /// τ = (L + γ)⁻¹ (HMB §5.1, statement of Theorem 2).
    MainText,
    /// τ = ((1 + γ)L)⁻¹ (HMB App. B.1, proof of Theorem 2).
    Proof,
    /// τ = ((1 + dγ)L)⁻¹ (the corrected condition, `docs/claims.md#theorem-2`).
    Corrected,
}

impl StepRule {
    /// The three rules, in table order.
    pub(crate) const ALL: [StepRule; 3] =
        [StepRule::MainText, StepRule::Proof, StepRule::Corrected];

    /// A short name for tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StepRule::MainText => "1/(L+gamma)",
            StepRule::Proof => "1/((1+gamma)L)",
            StepRule::Corrected => "1/((1+d gamma)L)",
        }
    }

    /// The step size for smoothness `l`, relative noise `gamma` and dimension `d`.
    pub(crate) fn tau(self, l: f64, gamma: f64, d: usize) -> f64 {
        match self {
            StepRule::MainText => 1.0 / (l + gamma),
            StepRule::Proof => 1.0 / ((1.0 + gamma) * l),
            StepRule::Corrected => 1.0 / ((1.0 + d as f64 * gamma) * l),
        }
    }
}

/// One gradient-descent setting with relative noise on a quadratic.
#[derive(Clone, Debug)]
pub struct GdSetting {
    /// The Hessian A (symmetric positive semi-definite).
    pub a: DMatrix<f64>,
    /// The initial error e_0 = θ_0 − θ*.
    pub e0: DVector<f64>,
    /// γ of the relative noise.
    pub gamma: f64,
    /// σ² of the relative noise.
    pub sigma2: f64,
    /// Step size τ.
    pub tau: f64,
    /// Number of steps T.
    pub steps: usize,
}

/// An estimate with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Sample mean.
    pub mean: f64,
    /// Standard error of the mean.
    pub se: f64,
    /// Lower end of the interval mean − z·se.
    pub lo: f64,
    /// Upper end of the interval mean + z·se.
    pub hi: f64,
}

impl Estimate {
    fn of(xs: &[f64], z: f64) -> Estimate {
        let n = xs.len() as f64;
        let mean = xs.iter().sum::<f64>() / n;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
        let se = (var / n).sqrt();
        Estimate {
            mean,
            se,
            lo: mean - z * se,
            hi: mean + z * se,
        }
    }
}

/// The two-sided normal quantile used for every interval here: z = 3.2905 (99.9 %).
pub(crate) const Z999: f64 = 3.290_526_731_491_926;

/// What [`simulate`] returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimResult {
    /// E‖θ_T − θ*‖² (99.9 % interval).
    pub mse: Estimate,
    /// E[f(θ̄_T) − f*] with θ̄_T = (1/T) Σ_{k<T} θ_k (99.9 % interval).
    pub avg_subopt: Estimate,
    /// Runs drawn.
    pub runs: usize,
}

impl GdSetting {
    fn check(&self) -> Result<usize> {
        let d = self.a.nrows();
        if d == 0 || self.a.ncols() != d || self.e0.len() != d {
            return Err(Error::invalid(
                "A",
                format!(
                    "{}x{} with e0 of length {}",
                    d,
                    self.a.ncols(),
                    self.e0.len()
                ),
                "square, matching e0",
            ));
        }
        if !(self.tau > 0.0 && self.tau.is_finite()) {
            return Err(Error::invalid("tau", self.tau, "finite and > 0"));
        }
        crate::error::check_count("steps", self.steps as u64)?;
        Ok(d)
    }

    /// λ_min(A) and λ_max(A).
    pub(crate) fn spectrum(&self) -> (f64, f64) {
        let ev = SymmetricEigen::new(self.a.clone()).eigenvalues;
        (ev.min(), ev.max())
    }

    /// HMB eq. (8) at T (noise term multiplied by `dim_factor`: 1 as printed, d corrected).
    pub(crate) fn eq8(&self, dim_factor: f64) -> f64 {
        let (mu, _) = self.spectrum();
        (1.0 - self.tau * mu).powi(self.steps as i32) * self.e0.norm_squared()
            + dim_factor * self.tau * self.sigma2 / mu
    }

    /// HMB eq. (56) at T (noise term multiplied by `dim_factor`).
    pub(crate) fn eq56(&self, dim_factor: f64) -> f64 {
        self.e0.norm_squared() / (2.0 * self.tau * self.steps as f64)
            + dim_factor * self.tau * self.sigma2 / 2.0
    }
}

/// [`simulate_with`] the relative noise HMB's iteration (7) is defined with
/// ([`super::dpgd::hmb_noise`], `experiments/hmb_noise.toml`).
pub fn simulate(s: &GdSetting, runs: usize, seed: u64) -> Result<SimResult> {
    simulate_with(super::dpgd::hmb_noise()?.0, s, runs, seed)
}

/// Seeded simulation of `runs` trajectories with the relative noise of `noise` (module docs).
/// Errors on a malformed setting or fewer than 2 runs.
pub fn simulate_with(
    noise: RelativeFamily,
    s: &GdSetting,
    runs: usize,
    seed: u64,
) -> Result<SimResult> {
    let d = s.check()?;
    if runs < 2 {
        return Err(Error::invalid("runs", runs, "at least 2"));
    }
    let law = noise.noise.law(s.gamma, s.sigma2, d)?;
    // The noise is isotropic, so the error's law is rotation-invariant: run in A's eigenbasis
    // (e' = Qᵀe, ‖Ae‖ = ‖Λe'‖, f(θ) − f* = ½ Σ λ_k e'_k²), O(d) per step.
    let eig = SymmetricEigen::new(s.a.clone());
    let lam: Vec<f64> = eig.eigenvalues.iter().copied().collect();
    let e0 = eig.eigenvectors.tr_mul(&s.e0);
    let per_run: Vec<(f64, f64)> = (0..runs)
        .into_par_iter()
        .map(|r| -> Result<(f64, f64)> {
            let mut rng = chunk_rng(seed, r as u64);
            let mut e: Vec<f64> = e0.iter().copied().collect();
            let mut sum = vec![0.0; d];
            let mut g = vec![0.0; d];
            let mut out = vec![0.0; d];
            for _ in 0..s.steps {
                for k in 0..d {
                    sum[k] += e[k];
                    g[k] = lam[k] * e[k];
                }
                law.sample_into(&g, &mut rng, &mut out)?;
                for (ek, ok) in e.iter_mut().zip(&out) {
                    *ek -= s.tau * ok;
                }
            }
            let t = s.steps as f64;
            let sub = 0.5 * (0..d).map(|k| lam[k] * (sum[k] / t).powi(2)).sum::<f64>();
            Ok((e.iter().map(|x| x * x).sum(), sub))
        })
        .collect::<Result<_>>()?;
    let mse: Vec<f64> = per_run.iter().map(|p| p.0).collect();
    let sub: Vec<f64> = per_run.iter().map(|p| p.1).collect();
    Ok(SimResult {
        mse: Estimate::of(&mse, Z999),
        avg_subopt: Estimate::of(&sub, Z999),
        runs,
    })
}

/// E‖θ_T − θ*‖² exactly, by the second-moment recursion of the module docs (no sampling).
pub fn exact_mse(s: &GdSetting) -> Result<f64> {
    let d = s.check()?;
    let m = DMatrix::identity(d, d) - &s.a * s.tau;
    let a2 = &s.a * &s.a;
    let mut p = &s.e0 * s.e0.transpose();
    for _ in 0..s.steps {
        let noise = s.tau * s.tau * (s.gamma * (&a2 * &p).trace() + s.sigma2);
        p = &m * &p * &m;
        for k in 0..d {
            p[(k, k)] += noise;
        }
    }
    Ok(p.trace())
}

/// A diagonal test quadratic of dimension d: eigenvalues geometric from `mu` to `l`
/// (d = 1: the single eigenvalue `l`), with e_0 = (1, …, 1)/√d (‖e_0‖ = 1).
pub(crate) fn geometric_quadratic(d: usize, mu: f64, l: f64) -> (DMatrix<f64>, DVector<f64>) {
    let ev: Vec<f64> = (0..d)
        .map(|k| {
            if d == 1 {
                l
            } else {
                mu * (l / mu).powf(k as f64 / (d - 1) as f64)
            }
        })
        .collect();
    (
        DMatrix::from_diagonal(&DVector::from_vec(ev)),
        DVector::from_element(d, 1.0 / (d as f64).sqrt()),
    )
}

#[cfg(test)]
mod tests {
    use super::{exact_mse, geometric_quadratic, simulate, GdSetting, StepRule};

    #[test]
    fn simulation_interval_covers_the_exact_second_moment() {
        // Two independent routes to E‖e_T‖²: sampling and the moment recursion.
        for (d, rule) in [(1, StepRule::MainText), (10, StepRule::Proof)] {
            let (a, e0) = geometric_quadratic(d, 1.0, 4.0);
            let s = GdSetting {
                tau: rule.tau(4.0, 0.5, d),
                a,
                e0,
                gamma: 0.5,
                sigma2: 1.0,
                steps: 40,
            };
            let sim = simulate(&s, 4000, 5).unwrap();
            let ex = exact_mse(&s).unwrap();
            assert!(
                sim.mse.lo <= ex && ex <= sim.mse.hi,
                "d = {d}: exact {ex} outside [{}, {}]",
                sim.mse.lo,
                sim.mse.hi
            );
        }
    }

    #[test]
    fn rejects_bad_settings() {
        let (a, e0) = geometric_quadratic(2, 1.0, 4.0);
        let s = GdSetting {
            a,
            e0,
            gamma: 0.5,
            sigma2: 1.0,
            tau: -1.0,
            steps: 3,
        };
        assert!(simulate(&s, 10, 1).unwrap_err().to_string().contains("tau"));
    }
}
