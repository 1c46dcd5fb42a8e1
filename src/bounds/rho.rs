//! placeholder
use crate::error::{Error, Result};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
/// placeholder
pub fn rho_bar(_: u32, _: &Scalar, _: u32) -> Result<Certified> {
    Err(Error::Unsupported("not yet".into()))
}
/// placeholder
pub fn rho_bar_quadrature(_: u32, _: &Scalar, _: u32) -> Result<Certified> {
    Err(Error::Unsupported("not yet".into()))
}
