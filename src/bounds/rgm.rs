//! placeholder
use crate::error::{Error, Result};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
/// placeholder
pub fn theorem1_eps(_: &Scalar, _: &Scalar, _: u32, _: &Scalar, _: u32) -> Result<Certified> {
    Err(Error::Unsupported("not yet".into()))
}
/// placeholder
pub fn corollary1_eps(_: &Scalar, _: &Scalar, _: u32, _: &Scalar, _: u32) -> Result<Certified> {
    Err(Error::Unsupported("not yet".into()))
}
/// placeholder
pub fn optimized_dp_eps(
    _: &Scalar,
    _: &Scalar,
    _: u32,
    _: &Scalar,
    _: u32,
) -> Result<(Certified, Certified)> {
    Err(Error::Unsupported("not yet".into()))
}
/// placeholder
pub fn check_relative_sensitivity(
    _: &Scalar,
    _: &Scalar,
    _: &Scalar,
    _: &Scalar,
    _: &Scalar,
) -> Result<()> {
    Err(Error::Unsupported("not yet".into()))
}
