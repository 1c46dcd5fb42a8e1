//! χ²_k distribution functions for one fixed k, for the profile route (docs/formulas.md §7.4,
//! "Profiles"): the same positive-term sums as [`crate::numeric::chi2`] (DLMF 8.7.1 for x < s,
//! 8.4.8 and 8.4.10/8.4.11 for x ≥ s, s = k/2, the other side as the complement of the side
//! below about ½), arranged for many calls with the same k:
//!
//! * ln Γ(s + 1) is computed once (it was about a fifth of a call);
//! * the recurrences divide by machine integers (x/(s + j) = 2x/(k + 2j)) and reuse their
//!   buffers (no allocation per term);
//! * for odd k, Q(k/2, x) for x ≥ max(k/2 + 1, 8) is Legendre's continued fraction (MPFR's
//!   erfc(√x) slows down as x grows), below that erfc(√x) is MPFR's `erfc` (the library route
//!   goes through Φ and a continued fraction).
//!
//! The library functions stay the reference: the slow route of [`super::hockey_stick_pair`]
//! uses them, and the profile route is tested against it (`tests/rgm_profile.rs`). Like them,
//! these are not certified by themselves; the caller runs on a precision ladder.

use crate::error::{Error, Result};
use rug::float::Constant;
use rug::{Assign, Float};

/// χ²_k tails with ln Γ(k/2 + 1) cached.
#[derive(Clone, Debug)]
pub(super) struct Chi2Tails {
    k: u32,
    /// ln Γ(k/2 + 1) at `lg_prec` bits.
    lg: Float,
    lg_prec: u32,
}

impl Chi2Tails {
    /// Tails of χ²_k for arguments of precision up to about `prec` bits.
    pub(super) fn new(k: u32, prec: u32) -> Result<Self> {
        if k == 0 {
            return Err(Error::invalid("k", k, "a positive integer"));
        }
        let lg_prec = prec + 160;
        let s1 = Float::with_val(lg_prec, k + 2) / 2u32;
        Ok(Chi2Tails {
            k,
            lg: s1.ln_gamma(),
            lg_prec,
        })
    }

    /// (F_k(w), 1 − F_k(w)) at the precision of `w` (w ≥ 0); the side below about ½ is summed
    /// directly, the other is its complement.
    pub(super) fn cdf_sf(&self, w: &Float) -> Result<(Float, Float)> {
        if w.is_nan() || *w < 0 {
            return Err(Error::invalid("w", w.to_f64(), "a number >= 0"));
        }
        let prec = w.prec();
        if w.is_zero() {
            return Ok((Float::new(prec), Float::with_val(prec, 1u32)));
        }
        if w.is_infinite() {
            return Ok((Float::with_val(prec, 1u32), Float::new(prec)));
        }
        let s = f64::from(self.k) / 2.0;
        let x64 = w.to_f64() / 2.0;
        // Guard bits as numeric::chi2: the exponent s ln x − x − ln Γ(s+1) has an absolute
        // rounding error of about (s |ln x| + x + s ln s)·2^-p, a relative error of the result.
        let scale = 1.0 + s * (x64.ln().abs() + 1.0) + x64 + s * (s + 1.0).ln();
        let wp = prec + 24 + scale.log2().ceil().max(0.0) as u32;
        let x = Float::with_val(wp, w) / 2u32;
        if x64 < s {
            let p = self.lower_series(&x, x64, wp);
            let q = Float::with_val(wp, 1u32 - &p);
            Ok((Float::with_val(prec, p), Float::with_val(prec, q)))
        } else if self.k % 2 == 1 && x64 >= (s + 1.0).max(8.0) {
            let q = self.upper_cf(&x, wp);
            let p = Float::with_val(wp, 1u32 - &q);
            Ok((Float::with_val(prec, p), Float::with_val(prec, q)))
        } else {
            let q = self.upper_finite(&x, wp);
            let p = Float::with_val(wp, 1u32 - &q);
            Ok((Float::with_val(prec, p), Float::with_val(prec, q)))
        }
    }

    /// P(s, x) = x^s e^{−x}/Γ(s+1) Σ_j x^j/((s+1)…(s+j)) (DLMF 8.7.1), all terms positive.
    fn lower_series(&self, x: &Float, x64: f64, wp: u32) -> Float {
        let k = self.k;
        let lg = if wp <= self.lg_prec {
            Float::with_val(wp, &self.lg)
        } else {
            (Float::with_val(wp, k + 2) / 2u32).ln_gamma()
        };
        let s = Float::with_val(wp, k) / 2u32;
        let mut expo = Float::with_val(wp, x.ln_ref());
        expo *= &s;
        expo -= x;
        expo -= &lg;
        let pref = expo.exp();
        let two_x = Float::with_val(wp, x * 2u32);
        let mut sum = Float::with_val(wp, 1u32);
        let mut term = Float::with_val(wp, 1u32);
        let sf = f64::from(k) / 2.0;
        let mut j: u32 = 1;
        loop {
            // term_j = term_{j−1} · x/(s + j) = term_{j−1} · 2x/(k + 2j)
            term *= &two_x;
            term /= k + 2 * j;
            sum += &term;
            // Once x/(s + j + 1) ≤ ½ the remaining tail is at most the current term.
            let ratio_small = 2.0 * x64 <= sf + f64::from(j + 1);
            if ratio_small
                && (term.is_zero()
                    || term.get_exp().unwrap_or(i32::MIN)
                        < sum.get_exp().unwrap_or(0) - wp as i32 - 1)
            {
                break;
            }
            j += 1;
        }
        pref * sum
    }

    /// Q(s, x) for x ≥ max(s + 1, 8) by Legendre's continued fraction (DLMF 8.9.2),
    /// Q = x^s e^{−x}/Γ(s) · 1/(x + 1 − s − 1(1 − s)/(x + 3 − s − 2(2 − s)/(x + 5 − s − …))),
    /// evaluated by modified Lentz until the update is below 2^-(wp−8) (`wp` carries 24 guard
    /// bits over the caller's precision; the update cannot resolve below 2^-wp): for odd k this replaces
    /// erfc(√x), whose MPFR evaluation slows down as x grows (it needs about (wp ln 2)²/(4x)
    /// steps; a threshold of wp/4 instead of 8 made the 31-point profile of d = 10 take 13.6 s
    /// instead of 7.6 s).
    fn upper_cf(&self, x: &Float, wp: u32) -> Float {
        let k = self.k;
        let s = Float::with_val(wp, k) / 2u32;
        // ln Γ(s) = ln Γ(s + 1) − ln s
        let lg = if wp <= self.lg_prec {
            Float::with_val(wp, &self.lg)
        } else {
            (Float::with_val(wp, k + 2) / 2u32).ln_gamma()
        };
        let mut expo = Float::with_val(wp, x.ln_ref());
        expo *= &s;
        expo -= x;
        expo -= lg;
        expo += Float::with_val(wp, s.ln_ref());
        let pref = expo.exp();
        // b_0 = x + 1 − s; a_i = −i(i − s); b_i = b_{i−1} + 2
        let mut b = Float::with_val(wp, x + 1u32) - &s;
        let tiny = Float::with_val(wp, Float::i_exp(1, -(4 * wp as i32)));
        let huge = Float::with_val(wp, tiny.recip_ref());
        let mut c = huge;
        let mut d = Float::with_val(wp, b.recip_ref());
        let mut h = d.clone();
        let tol = Float::with_val(wp, Float::i_exp(1, 8 - (wp as i32)));
        let mut an = Float::new(wp);
        let mut del = Float::new(wp);
        for i in 1u32..100_000 {
            // a_i = −i (i − s) = i (s − i)
            an.assign(&s - i);
            an *= i;
            b += 2u32;
            d *= &an;
            d += &b;
            if d.cmp_abs(&tiny) == Some(std::cmp::Ordering::Less) {
                d.assign(&tiny);
            }
            // c = a_i / c + b_i
            c.recip_mut();
            c *= &an;
            c += &b;
            if c.cmp_abs(&tiny) == Some(std::cmp::Ordering::Less) {
                c.assign(&tiny);
            }
            d.recip_mut();
            del.assign(&d * &c);
            h *= &del;
            del -= 1u32;
            if del.cmp_abs(&tol) != Some(std::cmp::Ordering::Greater) {
                break;
            }
        }
        pref * h
    }

    /// Q(k/2, x) by the finite sums (DLMF 8.4.8; 8.4.10/8.4.11 for half-integer s).
    fn upper_finite(&self, x: &Float, wp: u32) -> Float {
        let k = self.k;
        let emx = Float::with_val(wp, -x).exp();
        if k % 2 == 0 {
            crate::numeric::chi2::upper_even(k, x, emx, wp)
        } else {
            let n = (k - 1) / 2;
            let erfc = Float::with_val(wp, x.sqrt_ref()).erfc();
            if n == 0 {
                return erfc;
            }
            // term_1 = x^{1/2}/Γ(3/2) = 2√x/√π; term_{j+1} = term_j · x/(j + ½) = term_j · 2x/(2j + 1)
            let sqrt_pi = Float::with_val(wp, Constant::Pi).sqrt();
            let mut term = Float::with_val(wp, x.sqrt_ref()) * 2u32 / sqrt_pi;
            let mut sum = term.clone();
            let two_x = Float::with_val(wp, x * 2u32);
            for j in 1..n {
                term *= &two_x;
                term /= 2 * j + 1;
                sum += &term;
            }
            erfc + emx * sum
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Chi2Tails, Float};
    use crate::numeric::chi2::{chi2_cdf, chi2_sf};
    use crate::numeric::mp::agreement_digits;

    /// Agrees with the library χ² functions (docs/formulas.md §7.4) to ≥ 60 digits at 256 bits,
    /// both sides of the median, even and odd k, small and large x.
    #[test]
    fn matches_library_chi2() {
        for k in [1u32, 2, 9, 10, 99, 100, 999] {
            let t = Chi2Tails::new(k, 256).unwrap();
            let kf = f64::from(k);
            for w in [
                1e-6,
                0.3,
                0.5 * kf,
                kf - 0.5,
                kf,
                kf + 3.0,
                kf + 17.0,
                3.0 * kf + 40.0,
                1e4,
            ] {
                let wf = Float::with_val(256, w);
                let (f, q) = t.cdf_sf(&wf).unwrap();
                let (fl, ql) = (chi2_cdf(k, &wf).unwrap(), chi2_sf(k, &wf).unwrap());
                for (a, b) in [(&f, &fl), (&q, &ql)] {
                    let ag = agreement_digits(a, b);
                    assert!(ag >= 60.0, "k={k} w={w}: {a} vs {b} ({ag})");
                }
            }
        }
        assert!(Chi2Tails::new(3, 64)
            .unwrap()
            .cdf_sf(&Float::with_val(64, -1.0))
            .is_err());
    }
}
