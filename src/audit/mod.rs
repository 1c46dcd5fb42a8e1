//! Audits (in progress)

pub mod mechanisms;
