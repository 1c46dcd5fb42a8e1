//! Enforcing relative sensitivity (HMB §5.3–5.4): clipping by Prop. 1, the Propose-Test-Release
//! step of Prop. 2, and the Gaussian-features parameters of Prop. 3.
//!
//! * [`clip_prop1`]: X̃_i = R_c X_i / max(R_c, (‖X_i‖² X_iᵀC⁻²X_i)^{1/4}) (HMB Prop. 1);
//!   [`clip_prop3`]: X̃_i = R_c X_i / max(R_c, (X_iᵀC⁻¹X_i)^{1/2}) (the clipping of Prop. 3).
//! * [`delta_plus`]: with M = Ã − ρC (Ã = X̃X̃ᵀ/n + μ_reg I), Δ = 0 if M is not positive
//!   definite; otherwise Δ ≥ Δ₊ = the least number of records whose scores
//!   s_i = X̃_iᵀM⁻¹X̃_i sum to at least n (HMB Prop. 2 and eqs. (63)–(68)): sort the scores
//!   decreasingly and count. If all n scores sum to less than n, Δ₊ = n.
//! * [`ptr_test`]: Δ̂ = Δ₊ + Lap(1/ε); release (accept) iff Δ̂ > −log(δ)/ε.
//! * [`prop3`]: μ_reg = 4‖Σ‖R_c²√(log(2d/ν)/n), ρ = ρ̄/2 (eq. (12), [`crate::bounds::rho`]) and
//!   η² = 6κ_Σ R_c⁴/(ρ²n²).
//!
//! The Laplace draw is the crate's Laplace model ([`crate::dist::laplace::Laplace`]: a fair sign
//! bit times an Exp(1) ziggurat draw, exact in the tails), the same law whose divergences and
//! audits dpaudit certifies. See `docs/training.md#ptr`.

use super::data::Dataset;
use crate::bounds::rho;
use crate::dist::stream::chunk_rng;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector, SymmetricEigen};

fn rows_scaled(data: &Dataset, scale: impl Fn(&DVector<f64>) -> f64) -> Result<Dataset> {
    let mut x = Vec::with_capacity(data.x.len());
    for j in 0..data.n {
        let xj = DVector::from_column_slice(data.row(j));
        let s = scale(&xj);
        x.extend(xj.iter().map(|v| v * s));
    }
    Dataset::new(data.d, x, data.y.clone())
}

fn check_rc(rc: f64) -> Result<()> {
    if !(rc > 0.0 && rc.is_finite()) {
        return Err(Error::invalid("R_c", rc, "finite and > 0"));
    }
    Ok(())
}

fn inverse(c: &DMatrix<f64>, d: usize) -> Result<DMatrix<f64>> {
    if c.nrows() != d || c.ncols() != d {
        return Err(Error::invalid(
            "C",
            format!("{}x{}", c.nrows(), c.ncols()),
            "d x d",
        ));
    }
    c.clone()
        .cholesky()
        .map(|ch| ch.inverse())
        .ok_or_else(|| Error::invalid("C", "not positive definite", "symmetric positive definite"))
}

/// HMB Prop. 1 clipping with matrix C (symmetric positive definite).
pub fn clip_prop1(data: &Dataset, c: &DMatrix<f64>, rc: f64) -> Result<Dataset> {
    check_rc(rc)?;
    let ci = inverse(c, data.d)?;
    rows_scaled(data, |x| {
        let cx = &ci * x;
        let q = (x.norm_squared() * cx.norm_squared()).powf(0.25);
        rc / rc.max(q)
    })
}

/// HMB Prop. 3 clipping with C = Σ: ‖X̃_i‖_{C⁻¹} ≤ R_c.
pub fn clip_prop3(data: &Dataset, c: &DMatrix<f64>, rc: f64) -> Result<Dataset> {
    check_rc(rc)?;
    let ci = inverse(c, data.d)?;
    rows_scaled(data, |x| {
        let q = x.dot(&(&ci * x)).sqrt();
        rc / rc.max(q)
    })
}

/// The scores s_i = X̃_iᵀ(Ã − ρC)⁻¹X̃_i, or None when Ã − ρC is not positive definite.
pub fn ptr_scores(
    data: &Dataset,
    mu_reg: f64,
    rho: f64,
    c: &DMatrix<f64>,
) -> Result<Option<Vec<f64>>> {
    let d = data.d;
    let xm = DMatrix::from_row_slice(data.n, d, &data.x);
    let mut m = xm.tr_mul(&xm) / data.n as f64 - c * rho;
    for k in 0..d {
        m[(k, k)] += mu_reg;
    }
    let Some(ch) = m.cholesky() else {
        return Ok(None);
    };
    Ok(Some(
        (0..data.n)
            .map(|j| {
                let xj = DVector::from_column_slice(data.row(j));
                xj.dot(&ch.solve(&xj))
            })
            .collect(),
    ))
}

/// Δ₊ of HMB Prop. 2 (module docs).
pub fn delta_plus(data: &Dataset, mu_reg: f64, rho: f64, c: &DMatrix<f64>) -> Result<usize> {
    let Some(mut s) = ptr_scores(data, mu_reg, rho, c)? else {
        return Ok(0);
    };
    s.sort_by(|a, b| b.total_cmp(a));
    let n = data.n as f64;
    let mut acc = 0.0;
    for (k, v) in s.iter().enumerate() {
        acc += v;
        if acc >= n {
            return Ok(k + 1);
        }
    }
    Ok(data.n)
}

/// One Lap(0, b) draw from the crate's Laplace model; `b` must be finite and > 0.
pub fn laplace_draw(rng: &mut impl rand::Rng, b: f64) -> Result<f64> {
    let mut x = [0.0];
    crate::dist::laplace::Laplace::new(0.0, b)?.sample_many(rng, &mut x);
    Ok(x[0])
}

/// PTR's test (HMB Prop. 2 (ii)–(iii)): Δ̂ = Δ₊ + Lap(1/ε) from `chunk_rng(seed, stream)`;
/// returns (Δ̂, accepted = Δ̂ > −log(δ)/ε).
pub fn ptr_test(
    delta_plus: usize,
    eps: f64,
    delta: f64,
    seed: u64,
    stream: u64,
) -> Result<(f64, bool)> {
    if !(eps > 0.0 && eps.is_finite()) {
        return Err(Error::invalid("eps", eps, "finite and > 0"));
    }
    crate::error::check_open_unit("delta", delta)?;
    let mut rng = chunk_rng(seed, stream);
    let hat = delta_plus as f64 + laplace_draw(&mut rng, 1.0 / eps)?;
    Ok((hat, hat > -delta.ln() / eps))
}

/// The parameters of HMB Prop. 3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prop3 {
    /// μ_reg = 4‖Σ‖R_c²√(log(2d/ν)/n).
    pub mu_reg: f64,
    /// ρ = ρ̄(d, R_c)/2, eq. (12).
    pub rho: f64,
    /// η with η² = 6κ_Σ R_c⁴/(ρ²n²).
    pub eta: f64,
    /// The least n allowed by Prop. 3: max(4 log(2d/ν)/9, −log(δ)R_c²/(2ε)).
    pub n_min: f64,
}

/// HMB Prop. 3's parameters for covariance Σ, R_c, ν, n and the PTR budget (ε, δ).
pub fn prop3(
    sigma: &DMatrix<f64>,
    rc: f64,
    nu: f64,
    n: usize,
    eps: f64,
    delta: f64,
) -> Result<Prop3> {
    check_rc(rc)?;
    crate::error::check_open_unit("nu", nu)?;
    let d = sigma.nrows();
    let ev = SymmetricEigen::new(sigma.clone()).eigenvalues;
    let (l, m) = (ev.max(), ev.min());
    if m.is_nan() || m <= 0.0 {
        return Err(Error::invalid(
            "Sigma",
            "not positive definite",
            "positive definite",
        ));
    }
    let lg = (2.0 * d as f64 / nu).ln();
    let rho = rho::rho(d as u32, &Scalar::from(rc), 15)?.to_f64();
    let nf = n as f64;
    Ok(Prop3 {
        mu_reg: 4.0 * l * rc * rc * (lg / nf).sqrt(),
        rho,
        eta: (6.0 * (l / m)).sqrt() * rc * rc / (rho * nf),
        n_min: (4.0 * lg / 9.0).max(-delta.ln() * rc * rc / (2.0 * eps)),
    })
}

/// The total guarantee of PTR followed by T RGM steps (HMB Prop. 2):
/// (ε_PTR + ε_RGM, δ_PTR + δ_RGM), with ε_RGM the T-fold composition of Theorem 1 converted
/// at δ_RGM with α optimised (HMB eq. (45) at (η, γ/T, T d); see [`super::privacy`]).
pub fn total_guarantee(
    eps_ptr: f64,
    delta_ptr: f64,
    eta: f64,
    gamma: f64,
    d: u32,
    steps: u32,
    delta_rgm: f64,
) -> Result<(f64, f64)> {
    crate::error::check_count("steps", steps)?;
    let (e, _) = crate::bounds::rgm::optimized_dp_eps(
        &Scalar::from(eta),
        &Scalar::from(gamma / steps as f64),
        d * steps,
        &Scalar::from(delta_rgm),
        15,
    )?;
    Ok((eps_ptr + e.to_f64(), delta_ptr + delta_rgm))
}
