//! Private gradient descent from the papers, reproduced with certified privacy accounting.
//!
//! This module is for running the training experiments of Hendrikx, Mangold & Bellet (AISTATS
//! 2024, "HMB", §5 and Appendix C) and reporting, for every run, the privacy it actually has:
//!
//! * [`data`]: a dense dataset type, CSV and LIBSVM/svmlight readers, a seeded synthetic
//!   generator at ijcnn1 scale with Gaussian features of a chosen covariance (the model of HMB
//!   Prop. 3), column standardisation.
//! * [`ridge`]: ridge regression (HMB eq. (9)): exact gradients, θ* by a linear solve, A, b, L, μ,
//!   κ, and the data-dependent relative-sensitivity constants η and R_rel of HMB eqs. (10)–(11).
//! * [`dpgd`]: the two-node gradient descent of HMB Appendix C (eq. (79)) with the non-private
//!   (80), clipped-Gaussian (81)–(82) and Relative-Gaussian (83) gradient releases, and the
//!   'random', 'label' and 'bias' splits.
//! * [`privacy`]: each run's guarantee three ways (paper's RDP at α = 2 summed over steps, RDP
//!   optimised over α, exact composed (ε, δ) where one exists), and for the RGM the exact
//!   worst case over admissible pairs beside Theorem 1.
//! * [`ptr`]: HMB Props. 1–3 (clipping, Propose-Test-Release, Gaussian features), the sound PTR
//!   statistic and the seeded searches behind the Prop. 1–2 claims rows.
//! * [`utility`]: HMB Theorem 2 and eq. (56) (utility of RGM gradient descent) by simulation.
//! * [`hg`], [`hg_mean`], [`hg_gd`]: Hu & Guo's per-coordinate bounded-support noise (Prop. 5.1
//!   accounting), the §6.1 mean-estimation comparison and the §5 full-batch GD; `hg_report` and
//!   `experiment` (with the `cli` feature) run the experiment files behind `dpaudit train`.
//!
//! * [`sgd`]: DP-SGD and OSO-DPSGD on real models and data, and the white-box audit of the
//!   training loop (`docs/dpsgd.md`).
//!
//! Derivations and choices are written up in `docs/training.md`.

#[cfg(feature = "cli")]
mod band_plot;
pub mod data;
pub mod dpgd;
#[cfg(feature = "cli")]
pub mod experiment;
pub mod hg;
pub mod hg_gd;
pub mod hg_mean;
#[cfg(feature = "cli")]
pub mod hg_report;
pub mod privacy;
pub mod ptr;
pub mod ridge;
pub mod sgd;
pub mod utility;

/// Bisection on a log scale: narrows [lo, hi] by geometric midpoints (at most 200 times, or until
/// hi/lo − 1 < `rel` when given), moving `lo` up where `up(mid)` holds and `hi` down elsewhere; returns `hi`.
pub(crate) fn log_bisect(
    mut lo: f64,
    mut hi: f64,
    rel: Option<f64>,
    mut up: impl FnMut(f64) -> crate::error::Result<bool>,
) -> crate::error::Result<f64> {
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if up(mid)? {
            lo = mid;
        } else {
            hi = mid;
        }
        if rel.is_some_and(|rel| hi / lo - 1.0 < rel) {
            break;
        }
    }
    Ok(hi)
}
