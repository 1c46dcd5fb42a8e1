//! # dpaudit
//!
//! Certified-precision privacy accounting and Monte Carlo auditing for Gaussian-family
//! differential-privacy mechanisms: the Gaussian mechanism, the Relative Gaussian Mechanism
//! (Hendrikx, Mangold & Bellet, AISTATS 2024, "HMB"), the rectified and truncated Gaussian and the
//! stochastic sign (Hu & Guo, "HG").
//!
//! For each mechanism dpaudit puts three numbers side by side: the paper's closed-form bound
//! ([`bounds`]), the exact value from arbitrary-precision integration ([`divergence`], every result
//! carrying its certified digits), and an empirical lower bound from seeded membership-inference
//! audits ([`audit`]). Lower bound ≤ exact ≤ bound must hold; a violation is reported loudly.
//!
//! Formulas follow `MATH.md` of the project's shared notes; every closed form cites its paper and
//! equation.

pub mod audit;
pub mod bounds;
pub mod dist;
pub mod divergence;
pub mod error;
pub mod eval;
pub mod numeric;
pub mod report;
pub mod scalar;

pub use error::{Error, Result};
pub use scalar::Scalar;
