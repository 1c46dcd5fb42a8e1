//! The regularised upper incomplete gamma function Q(s, x) = Γ(s, x)/Γ(s) for 0 < s ≤ 1 and
//! x ≥ 0, over `rug::Float` (DLMF 8.2.4, 8.7.1, 8.9.2). The generalized Gaussian's tails are
//! ½ Q(1/p, u^p) (`crate::mechanisms::gen_gaussian`).
//!
//! MPFR's `gamma_inc` is not used: it is very slow for large x (minutes at x = 30⁷).
//!
//! * x < 40: the series P(s, x) = x^s e^{−x}/Γ(s) · Σ_{n≥0} x^n/(s(s+1)…(s+n)) (all terms
//!   positive), then Q = 1 − P with x/ln 2 extra bits for the cancellation (Q ≥ e^{−x}/…);
//! * x ≥ 40: Legendre's continued fraction Γ(s, x) = x^s e^{−x}/(x + 1 − s − 1(1 − s)/(x + 3 − s −
//!   2(2 − s)/(x + 5 − s − …))), modified Lentz, to 2^{−wp} per step, at most
//!   [`MAX_CF_TERMS`] terms: a fraction that has not converged by then is an
//!   [`Error::Precision`], never a value.
//!
//! The routine works at the precision of `x` plus internal guard bits; it does not certify.

use crate::error::{Error, Result};
use rug::Float;

/// The most terms of Legendre's continued fraction evaluated before giving up with an error.
/// For 0 < s ≤ 1 and x ≥ 40 each term gains about log2(x) bits, so a few hundred terms reach
/// thousands of bits; the cap only guards against a non-converging fraction.
pub(crate) const MAX_CF_TERMS: u32 = 100_000;

/// Q(s, x) = Γ(s, x)/Γ(s) for 0 < s ≤ 1, x ≥ 0, at the precision of `x` (module docs). Errors
/// name `s` or `x` when they are out of range, and the continued fraction that did not converge
/// in [`MAX_CF_TERMS`] terms.
pub(crate) fn gamma_q(s: &Float, x: &Float) -> Result<Float> {
    gamma_q_capped(s, x, MAX_CF_TERMS)
}

/// [`gamma_q`] with at most `cap` terms of the continued fraction.
fn gamma_q_capped(s: &Float, x: &Float, cap: u32) -> Result<Float> {
    if !(s.is_finite() && *s > 0 && *s <= 1) {
        return Err(Error::invalid("s", s.to_f64(), "a number in (0, 1]"));
    }
    if !(x.is_finite() && *x >= 0) {
        return Err(Error::invalid("x", x.to_f64(), "a finite number >= 0"));
    }
    let prec = x.prec();
    if x.is_zero() {
        return Ok(Float::with_val(prec, 1u32));
    }
    let series = *x < 40;
    let extra = if series {
        (x.to_f64() * 1.45) as u32 + 8
    } else {
        0
    };
    let wp = prec + 32 + extra;
    let (s, x) = (Float::with_val(wp, s), Float::with_val(wp, x));
    let ln_pref = Float::with_val(wp, &s * Float::with_val(wp, x.ln_ref()))
        - &x
        - Float::with_val(wp, s.ln_gamma_ref());
    let pref = ln_pref.exp();
    let tol = Float::with_val(wp, Float::i_exp(1, -(wp as i32)));
    if series {
        let mut term = Float::with_val(wp, s.recip_ref());
        let mut sum = term.clone();
        let mut n = 0u32;
        loop {
            n += 1;
            term *= &x;
            term /= Float::with_val(wp, &s + n);
            sum += &term;
            if n as f64 > x.to_f64() && term < Float::with_val(wp, &sum * &tol) {
                break;
            }
        }
        let p = pref * sum;
        return Ok(Float::with_val(prec, 1u32 - p));
    }
    let tiny = Float::with_val(wp, Float::i_exp(1, -(4 * wp as i32)));
    let mut b = Float::with_val(wp, &x + 1u32) - &s;
    let mut c = Float::with_val(wp, tiny.recip_ref());
    let mut d = Float::with_val(wp, b.recip_ref());
    let mut h = d.clone();
    for i in 1..=cap {
        let an = -Float::with_val(wp, Float::with_val(wp, i - &s) * i);
        b += 2u32;
        d = Float::with_val(wp, &an * &d) + &b;
        if Float::with_val(wp, d.abs_ref()) < tiny {
            d.clone_from(&tiny);
        }
        c = Float::with_val(wp, &an / &c) + &b;
        if Float::with_val(wp, c.abs_ref()) < tiny {
            c.clone_from(&tiny);
        }
        d.recip_mut();
        let del = Float::with_val(wp, &d * &c);
        h *= &del;
        if Float::with_val(wp, del - 1u32).abs() < tol {
            return Ok(Float::with_val(prec, pref * h));
        }
    }
    Err(Error::Precision {
        narrowest: None,
        requested: (f64::from(prec) * std::f64::consts::LOG10_2) as u32,
        certified: 0,
        what: format!(
            "the incomplete gamma Q(s = {}, x = {}): Legendre's continued fraction did not \
             converge in {cap} terms",
            s.to_f64(),
            x.to_f64()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::{gamma_q, gamma_q_capped};
    use crate::error::Error;
    use crate::numeric::mp::agreement_digits;
    use rug::Float;

    fn parse(prec: u32, s: &str) -> Float {
        Float::with_val(prec, Float::parse(s).unwrap())
    }

    /// Q(s, x) on both sides of the series/continued-fraction switch at x = 40, against
    /// independent references: the closed forms Q(1, x) = e^{−x} and Q(½, x) = erfc(√x) (MPFR's
    /// exp and erfc), and MPFR's own `gamma_inc` at s = 1/3 (moderate x, where it is fast).
    #[test]
    fn matches_closed_forms_and_mpfr() {
        let prec = 200;
        for x in ["0.001", "0.7", "3", "39.5", "40.5", "300", "1e6"] {
            let xf = parse(prec, x);
            let one = gamma_q(&Float::with_val(prec, 1u32), &xf).unwrap();
            let want = Float::with_val(prec, -&xf).exp();
            assert!(agreement_digits(&one, &want) >= 55.0, "s = 1, x = {x}");
            let half = gamma_q(&Float::with_val(prec, 0.5), &xf).unwrap();
            let want = Float::with_val(prec, xf.sqrt_ref()).erfc();
            assert!(agreement_digits(&half, &want) >= 55.0, "s = 1/2, x = {x}");
        }
        let third = Float::with_val(prec, 3u32).recip();
        for x in ["0.5", "3", "39.5", "41"] {
            let xf = parse(prec, x);
            let ours = gamma_q(&third, &xf).unwrap();
            let mpfr = Float::with_val(prec, third.gamma_inc_ref(&xf)) / third.clone().gamma();
            assert!(agreement_digits(&ours, &mpfr) >= 55.0, "s = 1/3, x = {x}");
        }
        assert_eq!(gamma_q(&third, &Float::new(prec)).unwrap(), 1);
    }

    /// A continued fraction stopped at its cap is a typed precision error naming the function
    /// and the cap, not the partial value: at x = 40.5 and 200 bits, 3 terms are far too few
    /// (each gains about log2(40.5) ≈ 5.3 bits).
    #[test]
    fn continued_fraction_cap_is_an_error() {
        let prec = 200;
        let third = Float::with_val(prec, 3u32).recip();
        let x = parse(prec, "40.5");
        let err = gamma_q_capped(&third, &x, 3).unwrap_err();
        assert!(
            matches!(err, Error::Precision { certified: 0, .. }),
            "{err}"
        );
        let text = err.to_string();
        assert!(text.contains("did not converge in 3 terms"), "{text}");
        assert!(text.contains("x = 40.5"), "{text}");
        // The same call with the production cap converges.
        assert!(gamma_q_capped(&third, &x, super::MAX_CF_TERMS).is_ok());
    }

    /// s outside (0, 1] and x < 0 or NaN are errors naming the argument.
    #[test]
    fn bad_arguments_name_the_argument() {
        let prec = 64;
        let x = Float::with_val(prec, 1u32);
        for s in [0.0, -0.5, 1.5, f64::NAN] {
            let e = gamma_q(&Float::with_val(prec, s), &x)
                .unwrap_err()
                .to_string();
            assert!(e.contains("parameter s = "), "{e}");
        }
        for xv in [-1.0, f64::NAN, f64::INFINITY] {
            let e = gamma_q(&Float::with_val(prec, 0.5), &Float::with_val(prec, xv))
                .unwrap_err()
                .to_string();
            assert!(e.contains("parameter x = "), "{e}");
        }
    }
}
