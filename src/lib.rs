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
//! # Example
//!
//! The Rényi divergence of order 2 between two truncated Gaussians (HG Lemma 4.7), certified to
//! 30 digits by its closed form:
//!
//! ```
//! use dpaudit::divergence::{self, Method, Pair};
//! use dpaudit::Scalar;
//!
//! let s = |t: &str| t.parse::<Scalar>().unwrap();
//! let pair = Pair::truncated(s("0.3"), s("1.3"), s("1"), s("-1"), s("1"))?;
//! let d = divergence::renyi(&pair, &s("2"), 30, Method::ClosedForm)?;
//! assert_eq!(d.digits, 30);
//! assert!((d.to_f64() - 0.280452068443273).abs() < 1e-14);
//! // Bad parameters are typed errors that name the parameter, never panics:
//! let err = Pair::truncated(s("0"), s("1"), s("-2"), s("-1"), s("1")).unwrap_err();
//! assert!(err.to_string().contains("sigma = -2"));
//! # Ok::<(), dpaudit::Error>(())
//! ```
//!
//! Formulas are restated, with derivations and stable-evaluation notes, in the repository's
//! `docs/formulas.md`; every closed form cites its paper and equation and the section of that
//! reference it implements.

pub mod accounting;
pub mod audit;
pub mod bounds;
#[cfg(feature = "cli")]
pub mod compare;
pub mod dist;
pub mod divergence;
pub mod error;
pub mod eval;
pub mod fsio;
pub mod model;
pub mod numeric;
#[cfg(feature = "cli")]
pub mod report;
pub mod scalar;
pub mod train;

pub use error::{Error, Result};
pub use scalar::Scalar;
