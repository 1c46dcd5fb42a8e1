//! Numerical building blocks: stable double-precision special functions ([`f64s`]),
//! arbitrary-precision special functions over `rug::Float` ([`mp`]), arbitrary-precision
//! tanh–sinh quadrature with certified error (`quad`), χ² / incomplete-gamma functions
//! (`chi2`: s = k/2; `gamma`: Q(s, x) for 0 < s ≤ 1, the generalized Gaussian's tails), the
//! incomplete beta function and binomial tails (`beta`) and a per-row time limit (`deadline`);
//! the last five are crate-internal and reached through `divergence`, `bounds`, `audit` and
//! `mechanisms`.

pub(crate) mod beta;
pub(crate) mod chi2;
pub(crate) mod deadline;
pub mod f64s;
pub(crate) mod gamma;
pub mod mp;
pub(crate) mod quad;
