//! Bounds (placeholder until the bounds branch lands).
pub mod rgm;
pub mod rho;
