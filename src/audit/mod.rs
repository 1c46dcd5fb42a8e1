//! Audits (in progress)
