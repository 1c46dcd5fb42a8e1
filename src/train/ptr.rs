//! Enforcing relative sensitivity (HMB §5.3–5.4): clipping by Prop. 1, the Propose-Test-Release
//! step of Prop. 2, and the Gaussian-features parameters of Prop. 3.
//!
//! * [`clip_prop1`]: X̃_i = R_c X_i / max(R_c, (‖X_i‖² X_iᵀC⁻²X_i)^{1/4}) (HMB Prop. 1);
//!   [`clip_prop3`]: X̃_i = R_c X_i / max(R_c, (X_iᵀC⁻¹X_i)^{1/2}) (the clipping of Prop. 3).
//! * [`delta_plus`]: with M = Ã − ρC (Ã = X̃X̃ᵀ/n + μ_reg I), Δ = 0 if M is not positive
//!   definite; otherwise Δ ≥ Δ₊ = the least number of records whose scores
//!   s_i = X̃_iᵀM⁻¹X̃_i sum to at least n (HMB Prop. 2 and eqs. (63)–(68)): sort the scores
//!   decreasingly and count. If all n scores sum to less than n, Δ₊ = n.
//! * [`ptr_test`]: Δ̂ = Δ₊ + Lap(1/ε); release (accept) iff Δ̂ > −log(δ)/ε — the test *as printed*
//!   ([`PtrRule::AsPrinted`]). It is **not certified**: Δ₊ is not 1-Lipschitz under replacing one
//!   record ([`prop2_search`] finds jumps of dozens; `docs/claims.md#proposition-2`), so the
//!   noisy test is not ε-DP.
//! * [`sound_statistic`] and [`run_ptr`] ([`PtrRule::Sound`], the default): S(D) =
//!   n(λ_min(C^{−1/2}ÃC^{−1/2}) − ρ)/R_c², which has global sensitivity ≤ 1 when every clipped
//!   record satisfies X̃ᵀC⁻¹X̃ ≤ R_c² (Weyl's inequality on the rank-one updates; proof in
//!   `docs/claims.md#the-sound-ptr`); accept iff S + Lap(1/ε) > 1 + log(1/δ)/ε. Only this rule
//!   enters a certified total ([`total_guarantee`]).
//! * [`prop1_search`], [`prop2_search`], [`prop3_acceptance`]: the seeded searches and the
//!   simulation behind the claims rows of HMB Props. 1–3 (issue 22).
//! * [`prop3`]: μ_reg = 4‖Σ‖R_c²√(log(2d/ν)/n), ρ = ρ̄/2 (eq. (12), [`crate::bounds::rho`]) and
//!   η² = 6κ_Σ R_c⁴/(ρ²n²).
//!
//! The noise of the test is one draw of a registry family's centred law at scale 1/ε
//! ([`ScalarNoise`], the family's hook [`crate::model::NoiseHooks::centred_draw`]): the same law
//! whose divergences and audits dpaudit certifies. The paper's Lap(1/ε) is the family named
//! `ptr_noise` in `experiments/hmb_noise.toml` ([`super::dpgd::hmb_noise`]), which
//! [`prop3_acceptance`] uses; the other functions take the noise as an argument. The total
//! guarantee adds the composed bound of the gradient descent's relative noise
//! ([`crate::model::noise::RelativeNoise::composed_eps`]). See `docs/training.md#ptr`.

use super::data::Dataset;
use crate::bounds::rho;
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use crate::model::noise::{RelativeFamily, ScalarNoise};
use crate::scalar::Scalar;
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, StandardNormal};

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

/// PTR's test (HMB Prop. 2 (ii)–(iii)): Δ̂ = Δ₊ + `noise` at scale 1/ε (the paper: Lap(1/ε)) from
/// `chunk_rng(seed, stream)`; returns (Δ̂, accepted = Δ̂ > −log(δ)/ε).
pub fn ptr_test(
    noise: ScalarNoise,
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
    let hat = delta_plus as f64 + noise.draw(&mut rng, 1.0 / eps)?;
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

/// The total guarantee of PTR followed by T steps with the relative noise `noise` (HMB Prop. 2):
/// (ε_PTR + ε_GD, δ_PTR + δ_GD), with ε_GD the family's composed bound of T steps converted at
/// δ_GD with α optimised ([`crate::model::noise::RelativeNoise::composed_eps`]; the RGM: the T-fold
/// composition of Theorem 1, HMB eq. (45) at (η, γ/T, T d); see [`super::privacy`]).
///
/// Only [`PtrRule::Sound`] is certified: with [`PtrRule::AsPrinted`] this returns an error (the
/// paper's Δ₊ test is not ε-DP, `docs/claims.md#proposition-2`). The η passed in must itself be
/// valid for the proposed ρ: Prop. 3's η (κ_Σ factor) is; Prop. 1's η² = 6R_c⁴/(ρ²n²) is only
/// for C commuting with Ã — for a general C use 6κ_C R_c⁴/(ρ²n²) (`docs/claims.md#proposition-1`).
#[allow(clippy::too_many_arguments)]
pub fn total_guarantee(
    rule: PtrRule,
    noise: RelativeFamily,
    eps_ptr: f64,
    delta_ptr: f64,
    eta: f64,
    gamma: f64,
    d: u32,
    steps: u32,
    delta_gd: f64,
) -> Result<(f64, f64)> {
    if rule != PtrRule::Sound {
        return Err(Error::Unsupported(
            "ptr = \"as_printed\" is not certified: HMB's Delta_+ has global sensitivity > 1, so its \
             Laplace test is not eps-DP (docs/claims.md#proposition-2); use ptr = \"sound\""
                .to_string(),
        ));
    }
    crate::error::check_count("steps", steps)?;
    let (e, _) = noise
        .noise
        .composed_eps(eta, gamma, d, steps, delta_gd, 15)?;
    Ok((eps_ptr + e, delta_ptr + delta_gd))
}

/// Which PTR test to run: `ptr = "sound"` (default) or `ptr = "as_printed"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PtrRule {
    /// S(D) + Lap(1/ε) > 1 + log(1/δ)/ε with the 1-Lipschitz [`sound_statistic`] (certified).
    #[default]
    Sound,
    /// HMB Prop. 2 as printed: Δ₊ + Lap(1/ε) > −log(δ)/ε (NOT certified).
    AsPrinted,
}

impl PtrRule {
    /// Whether a guarantee built on this rule may be called certified.
    pub fn certified(self) -> bool {
        self == PtrRule::Sound
    }
}

/// λ_min(L⁻¹ M L⁻ᵀ) with C = LLᵀ: the least generalized eigenvalue of (M, C).
fn gen_lambda_min(m: &DMatrix<f64>, c: &DMatrix<f64>) -> Result<f64> {
    let l = c
        .clone()
        .cholesky()
        .ok_or_else(|| Error::invalid("C", "not positive definite", "symmetric positive definite"))?
        .l();
    let li = l
        .try_inverse()
        .ok_or_else(|| Error::invalid("C", "singular", "symmetric positive definite"))?;
    let w = &li * m * li.transpose();
    let w = (&w + w.transpose()) * 0.5;
    Ok(SymmetricEigen::new(w).eigenvalues.min())
}

/// Ã = X̃ᵀX̃/n + μ_reg I.
fn a_tilde(data: &Dataset, mu_reg: f64) -> DMatrix<f64> {
    let xm = DMatrix::from_row_slice(data.n, data.d, &data.x);
    let mut a = xm.tr_mul(&xm) / data.n as f64;
    for k in 0..data.d {
        a[(k, k)] += mu_reg;
    }
    a
}

/// The sound PTR statistic S(D) = n(λ_min(C^{−1/2}ÃC^{−1/2}) − ρ)/R_c² (module docs).
///
/// Its global sensitivity under replacing one record is ≤ 1 provided every record satisfies
/// X̃ᵀC⁻¹X̃ ≤ R_c² (true after [`clip_prop3`], and after [`clip_prop1`] since
/// X̃ᵀC⁻¹X̃ ≤ ‖X̃‖‖C⁻¹X̃‖ ≤ R_c²); a record violating it is an error, not a silent loss of the
/// guarantee. S(D) > 0 iff Ã − ρC is positive definite, and S(D) > 1 implies that every
/// neighbour's Ã′ − ρC is.
pub fn sound_statistic(
    data: &Dataset,
    mu_reg: f64,
    rho: f64,
    c: &DMatrix<f64>,
    rc: f64,
) -> Result<f64> {
    check_rc(rc)?;
    let ci = inverse(c, data.d)?;
    for j in 0..data.n {
        let x = DVector::from_column_slice(data.row(j));
        let q = x.dot(&(&ci * &x));
        if q > rc * rc * (1.0 + 1e-9) {
            return Err(Error::invalid(
                &format!("record {j}: X^T C^-1 X"),
                q,
                "<= R_c^2 (clip the records first)",
            ));
        }
    }
    let lam = gen_lambda_min(&a_tilde(data, mu_reg), c)?;
    Ok(data.n as f64 * (lam - rho) / (rc * rc))
}

/// What one PTR run returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PtrOutcome {
    /// The rule used.
    pub rule: PtrRule,
    /// The statistic before noise (S(D), or Δ₊ for the as-printed rule).
    pub statistic: f64,
    /// The statistic plus the noise at scale 1/ε (the paper: Lap(1/ε)).
    pub noisy: f64,
    /// The acceptance threshold: 1 + log(1/δ)/ε (sound) or −log(δ)/ε (as printed).
    pub threshold: f64,
    /// Whether the test accepts (noisy > threshold).
    pub accepted: bool,
}

/// Runs one PTR test with `rule` on clipped data (the draw of `noise` at scale 1/ε from
/// `chunk_rng(seed, stream)`).
///
/// Sound: if S has sensitivity ≤ 1, the accept bit is ε-DP, and a dataset with S(D) ≤ 1 (some
/// neighbour possibly failing Ã′ ⪰ ρC) is accepted with probability ≤ ½δ.
#[allow(clippy::too_many_arguments)]
pub fn run_ptr(
    noise: ScalarNoise,
    rule: PtrRule,
    data: &Dataset,
    mu_reg: f64,
    rho: f64,
    c: &DMatrix<f64>,
    rc: f64,
    eps: f64,
    delta: f64,
    seed: u64,
    stream: u64,
) -> Result<PtrOutcome> {
    if !(eps > 0.0 && eps.is_finite()) {
        return Err(Error::invalid("eps", eps, "finite and > 0"));
    }
    crate::error::check_open_unit("delta", delta)?;
    let (statistic, threshold) = match rule {
        PtrRule::Sound => (
            sound_statistic(data, mu_reg, rho, c, rc)?,
            1.0 - delta.ln() / eps,
        ),
        PtrRule::AsPrinted => (delta_plus(data, mu_reg, rho, c)? as f64, -delta.ln() / eps),
    };
    let mut rng = chunk_rng(seed, stream);
    let noisy = statistic + noise.draw(&mut rng, 1.0 / eps)?;
    Ok(PtrOutcome {
        rule,
        statistic,
        noisy,
        threshold,
        accepted: noisy > threshold,
    })
}

// ---------------------------------------------------------------------------------------------
// Seeded searches behind the claims rows (issue 22 items 3 and 4)
// ---------------------------------------------------------------------------------------------

/// A random symmetric positive definite d×d matrix Q diag(c) Qᵀ with log10 c uniform on
/// [−log10 κ_max, 0] and Q orthogonal (QR of a Gaussian matrix).
fn random_spd(rng: &mut impl RngExt, d: usize, kappa_max: f64) -> DMatrix<f64> {
    let g = DMatrix::<f64>::from_fn(d, d, |_, _| StandardNormal.sample(rng));
    let q = g.qr().q();
    let c = DVector::from_fn(d, |_, _| {
        10f64.powf(-rng.random::<f64>() * kappa_max.log10())
    });
    &q * DMatrix::from_diagonal(&c) * q.transpose()
}

fn gauss_vec(rng: &mut impl Rng, d: usize) -> DVector<f64> {
    DVector::from_fn(d, |_, _| StandardNormal.sample(rng))
}

/// Scales x onto Prop. 1's clip boundary ‖x‖²xᵀC⁻²x = R_c⁴ (x ≠ 0).
fn to_clip_boundary(x: &DVector<f64>, ci: &DMatrix<f64>, rc: f64) -> DVector<f64> {
    let q = (x.norm_squared() * (ci * x).norm_squared()).powf(0.25);
    x * (rc / q)
}

/// The families of C searched for Proposition 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CFamily {
    /// C = I.
    Identity,
    /// C diagonal and every record on a coordinate axis, so Ã and C commute.
    Commuting,
    /// C = Q diag(c) Qᵀ random, condition number up to 10³.
    General,
}

/// The worst case found by [`prop1_search`].
#[derive(Clone, Debug, PartialEq)]
pub struct Prop1Witness {
    /// Trial index (with the search's seed, it regenerates the case).
    pub trial: u64,
    /// Dimension and records.
    pub d: usize,
    /// Records.
    pub n: usize,
    /// Eigenvalues of C.
    pub c_eigs: Vec<f64>,
    /// κ(C).
    pub kappa_c: f64,
    /// ρ = λ_min(C^{−1/2}ÃC^{−1/2}) (the largest ρ with Ã ⪰ ρC).
    pub rho: f64,
    /// sup_θ ‖∇f − ∇f′‖² / (η²‖∇f‖²) at Prop. 1's η² = 6R_c⁴/(ρ²n²).
    pub ratio: f64,
    /// The same ratio at the corrected η² = 6κ_C R_c⁴/(ρ²n²).
    pub ratio_corrected: f64,
}

/// What [`prop1_search`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Prop1Search {
    /// Trials run.
    pub trials: u64,
    /// Neighbour pairs evaluated.
    pub pairs: u64,
    /// The case with the largest ratio at Prop. 1's η.
    pub worst: Prop1Witness,
    /// The largest ratio at the corrected η over all pairs.
    pub worst_corrected: f64,
}

/// Seeded search for the largest sup_θ ‖∇f(θ) − ∇f′(θ)‖²/(η²‖∇f(θ)‖²) at HMB Prop. 1's η.
///
/// Each trial draws d ∈ {2, 3, 5}, n ∈ [d + 2, 30], C from `family`, Gaussian records in a
/// random subspace of dimension k ∈ [1, d], shaped like C in half the trials (axis-aligned for
/// [`CFamily::Commuting`]), clipped by
/// [`clip_prop1`] (R_c = 1), labels 0 (so b = b′ = 0 and the
/// absolute term R_rel vanishes: ∇f(θ) = Ãθ, ∇f − ∇f′ = (X_jX_jᵀ − x′x′ᵀ)θ/n), μ_reg = 10⁻³ and
/// ρ the largest value Prop. 1's premise Ã ⪰ ρC allows. The supremum over θ is exact:
/// ‖(X_jX_jᵀ − x′x′ᵀ)Ã⁻¹‖² (operator norm) over n²η². Every record j is replaced by x′ = 0, by a
/// random clipped record, and by the clip-boundary x′ maximising ‖x′‖²x′ᵀÃ⁻²x′ (the top
/// eigenvector of CÃ⁻²C, mapped by C).
pub fn prop1_search(family: CFamily, trials: u64, seed: u64) -> Result<Prop1Search> {
    let rc = 1.0;
    let mut worst: Option<Prop1Witness> = None;
    let mut worst_corrected = 0.0f64;
    let mut pairs = 0u64;
    for t in 0..trials {
        let mut rng = chunk_rng(seed, t);
        let d = [2usize, 3, 5][rng.random_range(0..3)];
        let n = rng.random_range(d + 2..=30);
        let c = match family {
            CFamily::Identity => DMatrix::identity(d, d),
            CFamily::Commuting => DMatrix::from_diagonal(&DVector::from_fn(d, |_, _| {
                10f64.powf(-rng.random::<f64>() * 3.0)
            })),
            CFamily::General => random_spd(&mut rng, d, 1e3),
        };
        // Records in a random subspace of dimension k ∈ [1, d]: k < d leaves directions where
        // only μ_reg holds Ã up, where Ã and C are least alike.
        let k = rng.random_range(1..=d);
        let mut mix = DMatrix::<f64>::from_fn(d, k, |_, _| StandardNormal.sample(&mut rng));
        if rng.random::<bool>() {
            // Records shaped like C (C^{1/2} times a Gaussian), as when C estimates a covariance.
            let e = SymmetricEigen::new(c.clone());
            let half = &e.eigenvectors
                * DMatrix::from_diagonal(&e.eigenvalues.map(f64::sqrt))
                * e.eigenvectors.transpose();
            mix = half * mix;
        }
        let mut x = Vec::with_capacity(n * d);
        for _ in 0..n {
            let v = if family == CFamily::Commuting {
                let mut v = DVector::zeros(d);
                v[rng.random_range(0..d)] =
                    3.0 * <StandardNormal as Distribution<f64>>::sample(&StandardNormal, &mut rng);
                v
            } else {
                &mix * gauss_vec(&mut rng, k) * 3.0
            };
            x.extend(v.iter());
        }
        let raw = Dataset::new(d, x, vec![0.0; n])?;
        let data = clip_prop1(&raw, &c, rc)?;
        let a = a_tilde(&data, 1e-3);
        let rho = gen_lambda_min(&a, &c)?;
        let ai = a
            .clone()
            .try_inverse()
            .ok_or_else(|| Error::invalid("A~", "singular", "invertible"))?;
        let ci = inverse(&c, d)?;
        let cev = SymmetricEigen::new(c.clone()).eigenvalues;
        let kappa_c = cev.max() / cev.min();
        let cand_dir = {
            let m = &c * &ai * &ai * &c;
            let e = SymmetricEigen::new((&m + m.transpose()) * 0.5);
            let k = e.eigenvalues.imax();
            // max over x of xᵀÃ⁻²x / xᵀC⁻²x is at x = Cz, z the top eigenvector of CÃ⁻²C.
            &c * e.eigenvectors.column(k)
        };
        let mut cands = vec![DVector::zeros(d), to_clip_boundary(&cand_dir, &ci, rc)];
        cands.push(to_clip_boundary(&gauss_vec(&mut rng, d), &ci, rc));
        // η² n² = 6R_c⁴/ρ².
        let eta2n2 = 6.0 * rc.powi(4) / (rho * rho);
        for j in 0..n {
            let xj = DVector::from_column_slice(data.row(j));
            for xp in &cands {
                let diff = (&xj * xj.transpose() - xp * xp.transpose()) * &ai;
                let op = diff.singular_values().max();
                let ratio = op * op / eta2n2;
                pairs += 1;
                worst_corrected = worst_corrected.max(ratio / kappa_c);
                if worst.as_ref().is_none_or(|w| ratio > w.ratio) {
                    worst = Some(Prop1Witness {
                        trial: t,
                        d,
                        n,
                        c_eigs: cev.iter().copied().collect(),
                        kappa_c,
                        rho,
                        ratio,
                        ratio_corrected: ratio / kappa_c,
                    });
                }
            }
        }
    }
    let worst = worst.ok_or_else(|| Error::invalid("trials", trials, "at least 1"))?;
    Ok(Prop1Search {
        trials,
        pairs,
        worst,
        worst_corrected,
    })
}

/// One replace-one neighbour pair of [`prop2_search`].
#[derive(Clone, Debug, PartialEq)]
pub struct Prop2Pair {
    /// Trial index (with the search's seed, it regenerates the case).
    pub trial: u64,
    /// Dimension.
    pub d: usize,
    /// Records.
    pub n: usize,
    /// μ_reg.
    pub mu_reg: f64,
    /// ρ.
    pub rho: f64,
    /// (Δ₊(D), Δ₊(D′)).
    pub delta_plus: (usize, usize),
    /// (S(D), S(D′)).
    pub stat: (f64, f64),
}

impl Prop2Pair {
    /// |Δ₊(D) − Δ₊(D′)|.
    pub fn dplus_jump(&self) -> f64 {
        (self.delta_plus.0 as f64 - self.delta_plus.1 as f64).abs()
    }

    /// |S(D) − S(D′)|.
    pub fn stat_jump(&self) -> f64 {
        (self.stat.0 - self.stat.1).abs()
    }
}

/// What [`prop2_search`] returns.
#[derive(Clone, Debug, PartialEq)]
pub struct Prop2Search {
    /// Trials run.
    pub trials: u64,
    /// Neighbour pairs evaluated.
    pub pairs: u64,
    /// The pair with the largest |Δ₊(D) − Δ₊(D′)|.
    pub worst_dplus: Prop2Pair,
    /// The pair with the largest |S(D) − S(D′)|.
    pub worst_stat: Prop2Pair,
}

/// Seeded search over replace-one neighbours for the largest jump of HMB's Δ₊ and of the sound
/// statistic S.
///
/// Each trial draws d ∈ {2, 3, 5}, n ∈ [10, 60], C = I or random (κ ≤ 10²), R_c = 1, records
/// Gaussian in a random subspace of dimension k ∈ [1, d] (k < d leaves directions where only
/// μ_reg holds Ã up), clipped by [`clip_prop1`], μ_reg = 10^U(−5, −1) and
/// ρ = f·λ_min(C^{−1/2}ÃC^{−1/2}) with f ∈ {0.5, 0.9, 0.99, 0.999, 0.99999}. Neighbours replace
/// record 0 or the top-score record by 0, by a random clipped record, or by the clip-boundary
/// record along the weakest direction of (Ã − ρC, C).
pub fn prop2_search(trials: u64, seed: u64) -> Result<Prop2Search> {
    let rc = 1.0;
    let mut worst_d: Option<Prop2Pair> = None;
    let mut worst_s: Option<Prop2Pair> = None;
    let mut pairs = 0u64;
    for t in 0..trials {
        let mut rng = chunk_rng(seed, t);
        let d = [2usize, 3, 5][rng.random_range(0..3)];
        let n = rng.random_range(10..=60);
        let c = if rng.random::<bool>() {
            DMatrix::identity(d, d)
        } else {
            random_spd(&mut rng, d, 1e2)
        };
        let ci = inverse(&c, d)?;
        let k = rng.random_range(1..=d);
        let basis = DMatrix::<f64>::from_fn(d, k, |_, _| StandardNormal.sample(&mut rng));
        let mut x = Vec::with_capacity(n * d);
        for _ in 0..n {
            let v = &basis * gauss_vec(&mut rng, k) * 2.0;
            x.extend(v.iter());
        }
        let data = clip_prop1(&Dataset::new(d, x, vec![0.0; n])?, &c, rc)?;
        let mu_reg = 10f64.powf(-1.0 - 4.0 * rng.random::<f64>());
        let a = a_tilde(&data, mu_reg);
        let frac = [0.5, 0.9, 0.99, 0.999, 0.99999][rng.random_range(0..5)];
        let rho = frac * gen_lambda_min(&a, &c)?;
        // The weakest direction of (Ã − ρC, C): C⁻¹-orthonormal bottom eigenvector.
        let weak = {
            let l = c.clone().cholesky().expect("C is SPD").l();
            let li = l.clone().try_inverse().expect("L invertible");
            let m = &a - &c * rho;
            let w = &li * m * li.transpose();
            let e = SymmetricEigen::new((&w + w.transpose()) * 0.5);
            let k = e.eigenvalues.imin();
            li.transpose() * e.eigenvectors.column(k)
        };
        let top = match ptr_scores(&data, mu_reg, rho, &c)? {
            Some(s) => (0..n).max_by(|&i, &j| s[i].total_cmp(&s[j])).unwrap_or(0),
            None => 0,
        };
        let base = (
            delta_plus(&data, mu_reg, rho, &c)?,
            sound_statistic(&data, mu_reg, rho, &c, rc)?,
        );
        let cands = [
            DVector::zeros(d),
            to_clip_boundary(&gauss_vec(&mut rng, d), &ci, rc),
            to_clip_boundary(&weak, &ci, rc),
        ];
        for j in [0, top] {
            for xp in &cands {
                let mut x2 = data.x.clone();
                x2[j * d..(j + 1) * d].copy_from_slice(xp.as_slice());
                let nb = Dataset::new(d, x2, vec![0.0; n])?;
                let p = Prop2Pair {
                    trial: t,
                    d,
                    n,
                    mu_reg,
                    rho,
                    delta_plus: (base.0, delta_plus(&nb, mu_reg, rho, &c)?),
                    stat: (base.1, sound_statistic(&nb, mu_reg, rho, &c, rc)?),
                };
                pairs += 1;
                if worst_d
                    .as_ref()
                    .is_none_or(|w| p.dplus_jump() > w.dplus_jump())
                {
                    worst_d = Some(p.clone());
                }
                if worst_s
                    .as_ref()
                    .is_none_or(|w| p.stat_jump() > w.stat_jump())
                {
                    worst_s = Some(p);
                }
            }
        }
    }
    let none = || Error::invalid("trials", trials, "at least 1");
    Ok(Prop2Search {
        trials,
        pairs,
        worst_dplus: worst_d.ok_or_else(none)?,
        worst_stat: worst_s.ok_or_else(none)?,
    })
}

/// The recorded witness that Δ₊ is not 1-Lipschitz (`docs/claims.md#proposition-2`): d = 2,
/// C = I, R_c = 1, ρ = ½, μ_reg = ρ + R_c²/(2n²); D has all n records equal to e₁, D′ replaces
/// record 0 by e₂. Ã − ρC = diag(1 + R_c²/(2n²), R_c²/(2n²)) ≻ 0 and no removal of records makes
/// it singular, yet Δ₊(D) = n and Δ₊(D′) = 2. Returns (D, D′, μ_reg, ρ, C, R_c).
pub fn prop2_witness(n: usize) -> Result<(Dataset, Dataset, f64, f64, DMatrix<f64>, f64)> {
    if n < 3 {
        return Err(Error::invalid("n", n, "at least 3"));
    }
    let (rc, rho) = (1.0, 0.5);
    let mu_reg = rho + rc * rc / (2.0 * (n * n) as f64);
    let x: Vec<f64> = (0..n).flat_map(|_| [1.0, 0.0]).collect();
    let mut x2 = x.clone();
    x2[0] = 0.0;
    x2[1] = 1.0;
    Ok((
        Dataset::new(2, x, vec![0.0; n])?,
        Dataset::new(2, x2, vec![0.0; n])?,
        mu_reg,
        rho,
        DMatrix::identity(2, 2),
        rc,
    ))
}

/// What [`prop3_acceptance`] returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prop3Acceptance {
    /// Records per dataset.
    pub n: usize,
    /// Datasets drawn.
    pub trials: u64,
    /// Accepted by the test as printed (Δ₊).
    pub accepted_as_printed: u64,
    /// Accepted by the sound test (S).
    pub accepted_sound: u64,
    /// Datasets on which the event of Prop. 3 (Ã ⪰ ρ̄Σ) held.
    pub premise_held: u64,
    /// Prop. 3's parameters at this n.
    pub params: Prop3,
}

/// Prop. 3 by simulation: `trials` seeded Gaussian datasets N(0, Σ), Σ AR(1) with correlation
/// `corr` ([`crate::train::data::synthetic`], seed `seed + t`), clipped by [`clip_prop3`], run
/// through both PTR tests at Prop. 3's μ_reg and ρ, with the paper's noise
/// ([`super::dpgd::hmb_noise`]: `ptr_noise`, drawn from `chunk_rng(seed, t)`).
#[allow(clippy::too_many_arguments)]
pub fn prop3_acceptance(
    d: usize,
    corr: f64,
    rc: f64,
    nu: f64,
    eps: f64,
    delta: f64,
    n: usize,
    trials: u64,
    seed: u64,
) -> Result<Prop3Acceptance> {
    use super::data::{ar1_covariance, synthetic, SyntheticSpec};
    let noise = super::dpgd::hmb_noise()?.1;
    let sigma = DMatrix::from_row_slice(d, d, &ar1_covariance(d, corr));
    let p = prop3(&sigma, rc, nu, n, eps, delta)?;
    let rho_bar = 2.0 * p.rho;
    let mut out = Prop3Acceptance {
        n,
        trials,
        accepted_as_printed: 0,
        accepted_sound: 0,
        premise_held: 0,
        params: p,
    };
    let spec = SyntheticSpec {
        corr,
        ..SyntheticSpec::with_size(n, d)
    };
    for t in 0..trials {
        let data = clip_prop3(&synthetic(&spec, seed.wrapping_add(t))?, &sigma, rc)?;
        let a = a_tilde(&data, p.mu_reg);
        if gen_lambda_min(&a, &sigma)? >= rho_bar {
            out.premise_held += 1;
        }
        for rule in [PtrRule::AsPrinted, PtrRule::Sound] {
            let o = run_ptr(
                noise, rule, &data, p.mu_reg, p.rho, &sigma, rc, eps, delta, seed, t,
            )?;
            if o.accepted {
                match rule {
                    PtrRule::AsPrinted => out.accepted_as_printed += 1,
                    PtrRule::Sound => out.accepted_sound += 1,
                }
            }
        }
    }
    Ok(out)
}
