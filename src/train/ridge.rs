//! Ridge regression, HMB eq. (9): f(θ) = (1/n) Σ_j ½(X_jᵀθ − y_j)² + (μ_reg/2)‖θ‖² (+ ⟨B, θ⟩ for
//! the 'bias' split of HMB §5.5, a linear term that leaves every per-record difference unchanged).
//!
//! With A = (1/n) X Xᵀ + μ_reg I and b = (1/n) X y: ∇f(θ) = Aθ − b + B, θ* = A⁻¹(b − B), and
//! f(θ) − f(θ*) = ½ (θ − θ*)ᵀ A (θ − θ*) exactly (used for suboptimality, so no cancellation).
//!
//! Linear algebra is nalgebra (already in the dependency tree through statrs, so no new
//! compiled dependency): Cholesky for the solve (A is symmetric positive definite when
//! μ_reg > 0) and the symmetric eigen-decomposition for L = λ_max(A), μ = λ_min(A), κ = L/μ.
//! At d ≤ a few hundred these dense routines are exact to rounding and fast; faer would only pay
//! off at much larger d.
//!
//! Relative sensitivity (HMB Def. 2, eqs. (10)–(11); `docs/training.md#relative-sensitivity`):
//! replacing record 0 by 0′ changes the gradient by (g₀(θ) − g₀′(θ))/n with
//! g_j(θ) = X_j(X_jᵀθ − y_j), and eq. (10) gives
//! ‖∇f − ∇f′‖² ≤ η²‖∇f(θ)‖² + R_rel² with
//! η² = 6 max_j ‖X_j‖² X_jᵀA⁻²X_j / n²  and  R_rel = 2√3 max_j ‖g_j(θ*)‖ / n,
//! where the maxima run over the records present (the data-dependent choice of HMB App. C.2; for
//! a DP guarantee they must be enforced by clipping and PTR, HMB Props. 1–2). Unlike the paper we
//! keep the constant factors (3 from (a+b+c)² ≤ 3(a²+b²+c²), and 2 for the two records).

use super::data::Dataset;
use crate::error::{Error, Result};
use nalgebra::{DMatrix, DVector, SymmetricEigen};

/// A ridge objective with its sufficient statistics.
#[derive(Debug, Clone)]
pub struct Ridge {
    /// Records.
    pub n: usize,
    /// Dimension.
    pub d: usize,
    /// μ_reg.
    pub mu_reg: f64,
    /// A = (1/n) X Xᵀ + μ_reg I.
    pub a: DMatrix<f64>,
    /// b = (1/n) X y.
    pub b: DVector<f64>,
    /// Linear bias term B (zero unless the 'bias' split adds it).
    pub bias: DVector<f64>,
}

/// Spectral summary of A.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spectrum {
    /// L = λ_max(A).
    pub l: f64,
    /// μ = λ_min(A).
    pub mu: f64,
    /// κ = L/μ.
    pub kappa: f64,
}

/// Data-dependent relative-sensitivity constants (module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RelSens {
    /// η.
    pub eta: f64,
    /// R_rel.
    pub r_rel: f64,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl Ridge {
    /// Builds A and b from `data` (μ_reg > 0 required, so that A is positive definite).
    pub fn new(data: &Dataset, mu_reg: f64) -> Result<Self> {
        if !(mu_reg > 0.0 && mu_reg.is_finite()) {
            return Err(Error::invalid("mu_reg", mu_reg, "finite and > 0"));
        }
        let (n, d) = (data.n, data.d);
        let xm = DMatrix::from_row_slice(n, d, &data.x); // n × d: row j is X_jᵀ
        let yv = DVector::from_column_slice(&data.y);
        let mut a = xm.tr_mul(&xm) / n as f64;
        for k in 0..d {
            a[(k, k)] += mu_reg;
        }
        let b = xm.tr_mul(&yv) / n as f64;
        Ok(Ridge {
            n,
            d,
            mu_reg,
            a,
            b,
            bias: DVector::zeros(d),
        })
    }

    /// Same objective with the linear term ⟨B, θ⟩ added.
    pub fn with_bias(mut self, bias: DVector<f64>) -> Result<Self> {
        if bias.len() != self.d {
            return Err(Error::invalid("bias.len()", bias.len(), "the dimension d"));
        }
        self.bias = bias;
        Ok(self)
    }

    /// f(θ) (direct formula; use [`Ridge::suboptimality`] for f(θ) − f*).
    pub fn objective(&self, data: &Dataset, theta: &DVector<f64>) -> f64 {
        let th = theta.as_slice();
        let loss: f64 = (0..data.n)
            .map(|j| 0.5 * (dot(data.row(j), th) - data.y[j]).powi(2))
            .sum::<f64>()
            / data.n as f64;
        loss + 0.5 * self.mu_reg * theta.norm_squared() + self.bias.dot(theta)
    }

    /// ∇f(θ) = Aθ − b + B.
    pub fn gradient(&self, theta: &DVector<f64>) -> DVector<f64> {
        &self.a * theta - &self.b + &self.bias
    }

    /// θ* = A⁻¹(b − B) by Cholesky.
    pub fn theta_star(&self) -> Result<DVector<f64>> {
        let ch = self
            .a
            .clone()
            .cholesky()
            .ok_or_else(|| Error::Undefined("ridge: A is not positive definite".into()))?;
        Ok(ch.solve(&(&self.b - &self.bias)))
    }

    /// f(θ) − f(θ*) = ½ (θ − θ*)ᵀ A (θ − θ*).
    pub fn suboptimality(&self, theta: &DVector<f64>, theta_star: &DVector<f64>) -> f64 {
        let e = theta - theta_star;
        0.5 * e.dot(&(&self.a * &e))
    }

    /// L, μ and κ from the symmetric eigen-decomposition of A.
    pub fn spectrum(&self) -> Spectrum {
        let ev = SymmetricEigen::new(self.a.clone()).eigenvalues;
        let l = ev.max();
        let mu = ev.min();
        Spectrum {
            l,
            mu,
            kappa: l / mu,
        }
    }

    /// Per-record loss gradient g_j(θ) = X_j(X_jᵀθ − y_j) (without regulariser and bias).
    pub(crate) fn record_loss_gradient(data: &Dataset, j: usize, theta: &[f64]) -> Vec<f64> {
        let r = dot(data.row(j), theta) - data.y[j];
        data.row(j).iter().map(|x| x * r).collect()
    }

    /// η and R_rel of eqs. (10)–(11) for this dataset (module docs).
    pub fn relative_sensitivity(&self, data: &Dataset) -> Result<RelSens> {
        let ch = self
            .a
            .clone()
            .cholesky()
            .ok_or_else(|| Error::Undefined("ridge: A is not positive definite".into()))?;
        let theta_star = self.theta_star()?;
        let ts = theta_star.as_slice();
        let (mut worst_eta2, mut worst_g) = (0.0f64, 0.0f64);
        for j in 0..data.n {
            let xj = DVector::from_column_slice(data.row(j));
            let ainv_x = ch.solve(&xj);
            // ‖X_j‖² X_jᵀ A⁻² X_j = ‖X_j‖² ‖A⁻¹X_j‖² (A symmetric).
            worst_eta2 = worst_eta2.max(xj.norm_squared() * ainv_x.norm_squared());
            let g = Self::record_loss_gradient(data, j, ts);
            worst_g = worst_g.max(dot(&g, &g).sqrt());
        }
        let n = data.n as f64;
        Ok(RelSens {
            eta: (6.0 * worst_eta2).sqrt() / n,
            r_rel: 2.0 * 3f64.sqrt() * worst_g / n,
        })
    }
}
