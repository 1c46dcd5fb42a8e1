//! Audits (in progress)

pub mod mechanisms;
pub mod spec;
