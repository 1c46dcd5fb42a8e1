//! Audits (in progress)
pub mod spec;
