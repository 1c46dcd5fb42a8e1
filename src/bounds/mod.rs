//! The papers' closed-form privacy bounds, in arbitrary precision, with their validity
//! conditions checked rather than assumed.
//!
//! * The Relative Gaussian Mechanism's bounds (Hendrikx, Mangold & Bellet, AISTATS 2024, "HMB":
//!   Lemma 1, Theorem 1 eq. (5) and its σ² condition, eq. (6), Corollary 1 eq. (44), the eq. (45)
//!   conversion minimised over α in closed form, relative sensitivity (Def. 2, eq. (3)) and the
//!   tCDP forms of HMB §4.1 / Appendix A.6) belong to the RGM family:
//!   [`crate::mechanisms::rgm::bounds`], built on the helpers here.
//! * [`gaussian`]: the Gaussian mechanism: RDP (Mironov 2017 Prop. 7) and the exact privacy
//!   profile δ(ε) of Balle & Wang 2018 Thm 8 with its inverse ε(δ).
//! * [`conversion`]: RDP → (ε, δ)-DP (Mironov 2017 Prop. 3; Canonne–Kamath–Steinke 2020 Prop. 12),
//!   and a numerical minimisation over α.
//! * [`rho`]: HMB's ρ̄(d, R_c) of eq. (74) (through χ² distribution functions and, independently,
//!   by radial quadrature) and ρ = ρ̄/2 of eq. (12).
//!
//! Every high-precision function takes exact [`Scalar`] parameters and a number of requested
//! `digits`, evaluates on the precision ladder `crate::numeric::mp::certify`, and returns a
//! [`crate::numeric::mp::Certified`] value. Domain errors (η ≤ 0, δ ∉ (0, 1), α ≤ 1, …) are
//! [`Error::InvalidParameter`]; a theorem applied outside its stated range is
//! [`Error::OutsideValidity`], whose message quotes the violated inequality with its values.
//! Small `*_f64` fast paths exist for plotting; they perform the same checks.

pub mod conversion;
pub mod gaussian;
pub mod rho;
#[cfg(test)]
pub(crate) mod test_support;

use crate::error::{Error, Result};
use crate::numeric::mp::bits_for_digits;
use crate::scalar::Scalar;
use rug::Float;

/// Precision (bits) at which validity conditions are decided: at least 256 bits, and more when
/// many digits are requested.
pub(crate) fn check_prec(digits: u32) -> u32 {
    bits_for_digits(digits).max(256) + 64
}

/// `lhs ≥ rhs` decided at the precision of the operands, counting values equal up to rounding
/// (relative 2^-(p−16)) as equal, so that a condition met with equality by exact decimal inputs
/// (e.g. σ² given as exactly its minimum) is accepted.
pub(crate) fn ge_tol(lhs: &Float, rhs: &Float) -> bool {
    if lhs >= rhs {
        return true;
    }
    let p = lhs.prec().min(rhs.prec());
    let scale = Float::with_val(p, lhs.abs_ref()).max(&Float::with_val(p, rhs.abs_ref()));
    let tol = scale * Float::with_val(p, Float::i_exp(1, 16 - p as i32));
    Float::with_val(p, rhs - lhs) <= tol
}

/// `lhs < rhs` strictly, with a margin beyond rounding (relative 2^-(p−16)): values equal up to
/// rounding do NOT satisfy a strict inequality.
pub(crate) fn lt_strict(lhs: &Float, rhs: &Float) -> bool {
    !ge_tol(lhs, rhs)
}

/// Checks that a parameter is finite and > 0.
pub(crate) fn positive(name: &str, x: &Scalar) -> Result<()> {
    let v = x.mp(64);
    if v.is_finite() && v > 0 {
        Ok(())
    } else {
        Err(Error::invalid(name, x, "finite and > 0"))
    }
}

/// Checks that a parameter is finite and ≥ 0.
pub(crate) fn nonnegative(name: &str, x: &Scalar) -> Result<()> {
    let v = x.mp(64);
    if v.is_finite() && v >= 0 {
        Ok(())
    } else {
        Err(Error::invalid(name, x, "finite and >= 0"))
    }
}

/// Checks α > 1 (exactly, at 256 bits: α = 1 + 10⁻⁴⁰ given as decimal text is accepted).
pub(crate) fn alpha_above_one(alpha: &Scalar) -> Result<()> {
    let v = alpha.mp(256);
    if v.is_finite() && v > 1 {
        Ok(())
    } else {
        Err(Error::invalid("alpha", alpha, "finite and > 1"))
    }
}

/// Short decimal rendering of a Float for error messages (12 significant digits).
pub(crate) fn show(x: &Float) -> String {
    let f = x.to_f64();
    if f.is_finite() && f != 0.0 && (f.abs() < 1e-300 || f.abs() > 1e300) {
        x.to_string_radix(10, Some(12))
    } else {
        format!("{:.11e}", f)
            .parse::<f64>()
            .map(|v| format!("{v}"))
            .unwrap_or_else(|_| x.to_string_radix(10, Some(12)))
    }
}

/// f64 validity helpers for the fast paths.
pub(crate) mod f64chk {
    use crate::error::{Error, Result};

    /// finite and > 0
    pub(crate) fn positive(name: &str, x: f64) -> Result<()> {
        crate::error::check_positive(name, x).map(|_| ())
    }
    /// 0 < δ < 1
    pub(crate) fn delta(delta: f64) -> Result<()> {
        crate::error::check_open_unit("delta", delta).map(|_| ())
    }
    /// α > 1
    pub(crate) fn alpha(alpha: f64) -> Result<()> {
        if alpha.is_finite() && alpha > 1.0 {
            Ok(())
        } else {
            Err(Error::invalid("alpha", alpha, "finite and > 1"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{alpha_above_one, ge_tol, lt_strict, positive, show, Error, Float, Scalar};

    #[test]
    fn tolerant_comparisons() {
        let p = 300;
        let a = Float::with_val(p, 1u32) / 3u32;
        let b = Float::with_val(p, 3u32).recip();
        assert!(ge_tol(&a, &b) && ge_tol(&b, &a));
        assert!(!lt_strict(&a, &b));
        let c = Float::with_val(p, &a + Float::with_val(p, Float::i_exp(1, -200)));
        assert!(lt_strict(&a, &c) && !ge_tol(&a, &c));
    }

    #[test]
    fn domain_checks_name_the_parameter() {
        let e = "1"
            .parse::<Scalar>()
            .unwrap()
            .open_unit("delta")
            .unwrap_err();
        assert!(matches!(e, Error::InvalidParameter { ref name, .. } if name == "delta"));
        assert!(alpha_above_one(&"1".parse().unwrap()).is_err());
        assert!(alpha_above_one(&"1.0000000000000000000000000000001".parse().unwrap()).is_ok());
        assert!(positive("eta", &Scalar::from(f64::NAN)).is_err());
        assert!(positive("eta", &"0".parse().unwrap()).is_err());
        assert!(crate::error::check_dim(0).is_err());
        assert!(crate::error::check_dim(1).is_ok());
    }

    #[test]
    fn show_is_short() {
        let x = Float::with_val(200, 1u32) / 3u32;
        assert_eq!(show(&x), "0.333333333333");
    }
}
