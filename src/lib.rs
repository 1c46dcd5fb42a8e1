//! # dpaudit
//!
//! Certified-precision privacy accounting and Monte Carlo auditing for Gaussian-family
//! differential-privacy mechanisms: the Gaussian mechanism, the Relative Gaussian Mechanism
//! (Hendrikx, Mangold & Bellet, AISTATS 2024, "HMB"), the rectified and truncated Gaussian and the
//! stochastic sign (Hu & Guo, "HG"), and the Laplace mechanism.
//!
//! For each mechanism dpaudit puts three numbers side by side: the paper's closed-form bound
//! ([`bounds`]), the exact value from arbitrary-precision integration ([`divergence`], every result
//! carrying its certified digits), and an empirical lower bound from seeded membership-inference
//! audits ([`audit`]). Lower bound ≤ exact ≤ bound must hold; a violation is reported loudly.
//!
//! Each mechanism is described once, by a model ([`model`]: parameters, densities, sampler);
//! divergences, bounds and audits consume it. The nouns a user needs are re-exported here:
//! [`Scalar`] (an exact decimal parameter), [`Pair`] and [`Location`] (what a divergence is
//! taken of), [`Method`], [`Certified`] (a value with the digits it certifies), [`Family`],
//! [`PairModel`], [`Mechanism`], [`GaussianMechanism`], [`AuditConfig`], [`Selection`],
//! [`run_audit`], [`AuditResult`], [`Observer`] (progress, supplied by the caller), [`Statistic`],
//! [`Error`] and [`Result`].
//!
//! # 1. A certified divergence
//!
//! The Rényi divergence of order 2 between two truncated Gaussians (HG Lemma 4.7), certified to
//! 30 digits by its closed form, and the same value by quadrature:
//!
//! ```
//! use dpaudit::{divergence, Method, Pair, Scalar};
//!
//! let s = |t: &str| t.parse::<Scalar>().unwrap();
//! let pair = Pair::truncated(s("0.3"), s("1.3"), s("1"), s("-1"), s("1"))?;
//! let d = divergence::renyi(&pair, &s("2"), 30, Method::ClosedForm)?;
//! assert_eq!(d.digits, 30);
//! assert!((d.to_f64() - 0.280452068443273).abs() < 1e-14);
//! let q = divergence::renyi(&pair, &s("2"), 30, Method::Quadrature)?;
//! assert!(dpaudit::numeric::mp::agreement_digits(&q.value, &d.value) >= 30.0);
//! // Bad parameters are typed errors that name the parameter, never panics:
//! let err = Pair::truncated(s("0"), s("1"), s("-2"), s("-1"), s("1")).unwrap_err();
//! assert!(err.to_string().contains("sigma = -2"));
//! # Ok::<(), dpaudit::Error>(())
//! ```
//!
//! # 2. A paper's bound, with its validity check
//!
//! HMB Theorem 1 (eq. (5)) bounds the RGM's Rényi DP for 1 < α < (1+η)²/(2η+η²); outside that
//! range, or when σ² is below the theorem's minimum, the call is an error that quotes the
//! condition:
//!
//! ```
//! use dpaudit::{mechanisms::rgm::bounds as rgm, Scalar};
//!
//! let s = |t: &str| t.parse::<Scalar>().unwrap();
//! let (eta, gamma, r, sigma2) = (s("0.1"), s("0.01"), s("1"), s("10"));
//! rgm::check_theorem1_setup(&eta, &r, &gamma, &sigma2, &s("2"))?;
//! let eps = rgm::theorem1_eps(&eta, &gamma, 10, &s("2"), 20)?;
//! assert!(eps.to_f64() > 0.0 && eps.digits == 20);
//! // α = 6 is outside the theorem's range for η = 0.1 (sup ≈ 5.76):
//! let err = rgm::theorem1_eps(&eta, &gamma, 10, &s("6"), 20).unwrap_err();
//! assert!(err.to_string().contains("outside its validity range"));
//! # Ok::<(), dpaudit::Error>(())
//! ```
//!
//! # 3. A seeded audit
//!
//! A white-box membership-inference audit of the Gaussian mechanism (sensitivity 1, σ = 1), built
//! from the same [`Pair`] as its exact value: the lower bound holds with 95 % confidence, stays
//! below the exact ε(δ), and the same seed gives the same result bit for bit:
//!
//! ```
//! use dpaudit::audit::mechanisms::for_pair;
//! use dpaudit::{divergence, run_audit, AuditConfig, Method, Pair, Scalar, Selection};
//!
//! let s = |t: &str| t.parse::<Scalar>().unwrap();
//! let pair = Pair::gaussian(s("0"), s("1"), s("1"))?;
//! let mech = for_pair(&pair)?; // the model's sampler plus its log-likelihood ratio
//! let cfg = AuditConfig {
//!     samples_per_side: 200_000,
//!     delta: 1e-3,
//!     seed: 7,
//!     selection: Selection::HeldOut { pilot_samples: 20_000 },
//!     ..AuditConfig::default()
//! };
//! let audit = run_audit(mech.as_ref(), &cfg)?;
//! let exact = divergence::eps_for_delta(&pair, &s("0.001"), 10, Method::ClosedForm)?;
//! assert!(audit.eps_lb > 0.0 && audit.eps_lb <= exact.to_f64());
//! assert_eq!(run_audit(mech.as_ref(), &cfg)?.eps_lb, audit.eps_lb);
//! # Ok::<(), dpaudit::Error>(())
//! ```
//!
//! # Features
//!
//! `cli` (default) adds the command line ([`cli`], which `src/main.rs` only calls) and the
//! crate-private `report` module that formats the comparison into Markdown, CSV and plots
//! (clap, indicatif, plotters, sha2/hmac for shard files), with the comparison's report-only
//! parts (plot data, golden verification, positive controls, shards). Audit specs, the
//! three-way comparison and the seed-claims table ([`compare`]) are in the library either way:
//! `cargo build --lib --no-default-features` builds the library without the command line.
//!
//! Formulas are restated, with derivations and stable-evaluation notes, in the repository's
//! `docs/formulas.md`; every closed form cites its paper and equation and the section of that
//! reference it implements.

#![deny(missing_docs)]
// Public only what the crate exports (docs/library.md); test modules may keep their helpers `pub`.
#![cfg_attr(not(test), deny(unreachable_pub))]

pub mod accounting;
pub mod audit;
pub mod bounds;
#[cfg(feature = "cli")]
pub mod cli;
pub mod compare;
pub mod divergence;
pub mod error;
pub mod eval;
// Not gated on `cli`: `audit::samples::SampleSet::write_npy` writes through it in the library
// alone (`--no-default-features`, the Python package's build); the tables are only used by `cli`.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
pub(crate) mod fsio;
pub mod limits;
pub mod mechanisms;
pub mod model;
pub mod numeric;
#[cfg(feature = "cli")]
pub(crate) mod report;
pub mod scalar;
pub mod train;

pub use audit::engine::{run_audit, AuditConfig, AuditResult, Observer, Selection};
pub use audit::mechanisms::{GaussianMechanism, Mechanism, Statistic};
pub use divergence::{Location, Method, Pair};
pub use error::{Error, Result};
pub use model::{Family, PairModel, FAMILIES};
pub use numeric::mp::Certified;
pub use scalar::Scalar;
