//! Helpers shared by the unit tests of the bounds.

use crate::numeric::mp::{agreement_digits, Certified};
use crate::scalar::Scalar;
use rug::Float;

/// A decimal parameter.
pub(crate) fn s(x: &str) -> Scalar {
    x.parse().unwrap()
}

/// A decimal reference value at `prec` bits.
pub(crate) fn f(prec: u32, x: &str) -> Float {
    Float::with_val(prec, Float::parse(x).unwrap())
}

/// Significant digits on which `c` agrees with the decimal reference `want`.
pub(crate) fn agree(c: &Certified, want: &str) -> f64 {
    agreement_digits(&c.value, &f(c.value.prec(), want))
}
