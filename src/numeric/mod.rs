//! Numerical building blocks: stable double-precision special functions ([`f64s`]),
//! arbitrary-precision special functions over `rug::Float` ([`mp`]), arbitrary-precision
//! tanh–sinh quadrature with certified error ([`quad`]) and χ² / incomplete-gamma functions
//! ([`chi2`]).

pub mod chi2;
pub mod f64s;
pub mod mp;
pub mod quad;
