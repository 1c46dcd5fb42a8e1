//! Quadrature route (placeholder until the quadrature branch lands).
use super::{Location, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;

/// Placeholder.
pub fn renyi(_pair: &Pair, _alpha: &Scalar, _digits: u32) -> Result<Certified> {
    Err(Error::Unsupported("quadrature route not built yet".into()))
}
/// Placeholder.
pub fn kl(_pair: &Pair, _digits: u32) -> Result<Certified> {
    Err(Error::Unsupported("quadrature route not built yet".into()))
}
/// Placeholder.
pub fn hockey_stick(_pair: &Pair, _eps: &Scalar, _digits: u32) -> Result<Certified> {
    Err(Error::Unsupported("quadrature route not built yet".into()))
}
/// Placeholder.
pub fn fisher(_loc: &Location, _digits: u32) -> Result<Certified> {
    Err(Error::Unsupported("quadrature route not built yet".into()))
}
