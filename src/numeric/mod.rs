//! Numerical building blocks: stable double-precision special functions ([`f64s`]),
//! arbitrary-precision special functions over `rug::Float` ([`mp`]), arbitrary-precision
//! tanh–sinh quadrature with certified error ([`quad`]), χ² / incomplete-gamma functions
//! ([`chi2`]), the incomplete beta function and binomial tails ([`beta`]) and a per-row time
//! limit ([`deadline`]).

pub mod beta;
pub mod chi2;
pub mod deadline;
pub mod f64s;
pub mod mp;
pub mod quad;
