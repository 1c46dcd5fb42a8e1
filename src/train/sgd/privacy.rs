//! The certified ε that DP-SGD runs and audits are compared against.
//!
//! One entry point, [`certified_eps`], returning a bracket (lower, upper) on the exact ε(δ) of
//! T Poisson-subsampled Gaussian steps:
//!
//! * q = 1: the exact value, both ends equal (`accounting::full_batch_eps`: T full-batch steps
//!   are one Gaussian mechanism with μ = √T/σ);
//! * q < 1: upper = the RDP route (`accounting::rdp_eps_for_delta`, certified RDP of both
//!   orders, Canonne–Kamath–Steinke conversion) minimised over the fixed grid [`ORDERS`]: every
//!   order gives a valid guarantee, so the minimum is one. (`accounting::rdp_eps_optimal`
//!   optimises over continuous α and is ~0.2 % lower, but takes about a minute per call here
//!   because every step of its search certifies a quadrature; the grid takes seconds.) lower = 0, i.e. **no certified lower end is available yet**: an audit's ε_lb can
//!   be compared with the upper end only, and a ratio ε_lb/upper understates the audit's
//!   tightness by the slack of the RDP conversion.

use crate::accounting::{full_batch_eps, rdp_eps_for_delta, SubsampledGaussian};
use crate::bounds::conversion::Conversion;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// Certified digits asked of the accountant.
const DIGITS: u32 = 6;

/// The Rényi orders of the RDP route for q < 1.
pub const ORDERS: &[f64] = &[
    1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0, 20.0, 24.0, 32.0, 48.0,
    64.0,
];

/// (ε_lower_known, ε_upper) for T steps of the Poisson-subsampled Gaussian with rate q,
/// noise multiplier σ, at δ. See the module docs for what each end is. The upper end is
/// rounded up to the next f64 so that it stays an upper bound after rounding.
// TODO(bracket): for q < 1, rewire to the certified two-sided composition bracket of
// `src/accounting/` when it lands (the lower end is a labelled 0 until then).
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
    let orders: Vec<Scalar> = ORDERS.iter().map(|&a| Scalar::from(a)).collect();
    let r = rdp_eps_for_delta(
        &m,
        steps,
        &Scalar::from(delta),
        &orders,
        Conversion::CanonneKamathSteinke,
        DIGITS,
    )?;
    // One ulp up (f64::next_up needs Rust 1.86; the MSRV is 1.85).
    let hi = r.eps.to_f64();
    Ok((0.0, f64::from_bits(hi.to_bits() + 1)))
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
