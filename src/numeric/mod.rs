//! Numerical building blocks: stable double-precision special functions ([`f64s`]),
//! arbitrary-precision special functions over `rug::Float` ([`mp`]), arbitrary-precision
//! tanh–sinh quadrature with certified error (`quad`), χ² / incomplete-gamma functions
//! (`chi2`), the incomplete beta function and binomial tails (`beta`) and a per-row time
//! limit (`deadline`); the last four are crate-internal and reached through `divergence`,
//! `bounds` and `audit`.

pub(crate) mod beta;
pub(crate) mod chi2;
pub(crate) mod deadline;
pub mod f64s;
pub mod mp;
pub(crate) mod quad;
