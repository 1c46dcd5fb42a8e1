//! The comparison: everything the report shows, computed as plain data.
//!
//! Data flows one way: models → divergences / bounds → audit → **comparison** → report. This
//! module is the single place that turns an audit spec into the three numbers dpaudit puts side
//! by side — the paper's bound, the certified exact value, the audit's lower bound — with their
//! checks and `VIOLATION` verdicts ([`threeway`]), and that computes the plots' data
//! ([`curves`], [`figure`]), the golden verification (`golden`), the positive controls
//! ([`sources`]) and sharded audits (`shards`). `crate::report` only formats these results
//! into Markdown, CSV and plots; it calls nothing in `divergence`, `bounds` or `audit`.
//!
//! Audit specs (`audits/*.toml`, [`spec`]) parse into the same models the rest of the crate
//! uses.

#[cfg(feature = "cli")]
pub(crate) mod accounting;
pub mod claims;
pub mod command;
pub mod curves;
#[cfg(feature = "cli")]
pub mod figure;
pub(crate) mod fmt;
#[cfg(feature = "cli")]
pub(crate) mod golden;
#[cfg(feature = "cli")]
pub(crate) mod shards;
pub mod sources;
pub mod spec;
pub mod threeway;

pub use crate::audit::engine::{Observer, Progress, STRICT_BETA};
