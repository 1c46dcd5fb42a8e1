//! The certified ε that DP-SGD runs and audits are compared against.
//!
//! One entry point, [`certified_eps`], returning a bracket (lower, upper) on the exact ε(δ) of
//! T Poisson-subsampled Gaussian steps:
//!
//! * q = 1: the exact value, both ends equal (`accounting::full_batch_eps`: T full-batch steps
//!   are one Gaussian mechanism with μ = √T/σ);
//! * q < 1: the certified two-sided composition bracket of `accounting::eps_for_delta`
//!   (docs/accounting.md#composition), at 8 digits, its ends rounded outwards to f64.

use crate::accounting::{
    eps_for_delta, full_batch_eps, ComposeOptions, Schedule, SubsampledGaussian,
};
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// Certified digits asked of the accountant.
const DIGITS: u32 = 8;

/// (ε_lower, ε_upper) for T steps of the Poisson-subsampled Gaussian with rate q, noise
/// multiplier σ, at δ: a certified bracket on the exact ε(δ), its ends rounded outwards to f64.
pub fn certified_eps(q: f64, sigma: f64, steps: u64, delta: f64) -> Result<(f64, f64)> {
    if !(q > 0.0 && q <= 1.0) {
        return Err(Error::invalid("q (sampling rate)", q, "in (0, 1]"));
    }
    crate::error::check_positive("sigma", sigma)?;
    if steps == 0 {
        return Err(Error::invalid("steps", 0, ">= 1"));
    }
    crate::error::check_open_unit("delta", delta)?;
    if q == 1.0 {
        let e = full_batch_eps(&Scalar::from(sigma), steps, &Scalar::from(delta), DIGITS)?;
        let v = e.to_f64();
        return Ok((v, v));
    }
    let m = SubsampledGaussian::new(Scalar::from(q), Scalar::from(sigma))?;
    let b = eps_for_delta(
        &Schedule::homogeneous(&m, steps)?,
        &Scalar::from(delta),
        &ComposeOptions {
            digits: DIGITS,
            force_inversion: false,
        },
    )?
    .value;
    Ok(outward(&b))
}

/// The bracket's ends rounded outwards to f64 (one ulp each way).
pub(crate) fn outward(b: &crate::accounting::Bracket) -> (f64, f64) {
    let (lo, hi) = (b.lo.to_f64(), b.hi.to_f64());
    let down = if lo > 0.0 {
        f64::from_bits(lo.to_bits() - 1)
    } else {
        0.0
    };
    (down, f64::from_bits(hi.to_bits() + 1))
}

/// The σ for which T full-batch steps have exact ε(δ) = `target` (to 1e-10 relative), by
/// bisection on the Gaussian mechanism's μ = √T/σ.
pub fn full_batch_sigma_for(target: f64, steps: u64, delta: f64) -> Result<f64> {
    crate::error::check_positive("target eps", target)?;
    if steps == 0 {
        return Err(Error::invalid("steps", 0, ">= 1"));
    }
    crate::error::check_open_unit("delta", delta)?;
    use crate::numeric::f64s::gaussian_eps_for_delta;
    let mu = crate::train::log_bisect(1e-6, 1e3, Some(1e-12), |mu| {
        Ok(gaussian_eps_for_delta(mu, delta) < target)
    })?;
    Ok((steps as f64).sqrt() / mu)
}
