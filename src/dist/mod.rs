//! Distributions of the Gaussian family, one module each: parameters (validated), log-density or
//! log-mass in `f64` and in `rug::Float`, cdf, and a seeded sampler.

pub mod gaussian;
pub mod gaussian_dd;
pub mod rectified;
pub mod rgm;
pub mod sign;
pub mod truncated;
