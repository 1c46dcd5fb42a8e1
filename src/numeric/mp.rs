//! Arbitrary-precision special functions over `rug::Float`, and the precision ladder that
//! certifies digits.
//!
//! Every function works at the precision of its argument. Far-tail values of Φ are taken in log
//! space through the Laplace continued fraction for the Mills ratio instead of MPFR's `erfc`,
//! which costs 1–5 ms per call for arguments 20–30 at 256 bits (and far more deeper out); the
//! continued fraction's convergents bracket the true value, so its stopping rule is a certified
//! error bound.

use crate::error::{Error, Result};
use rug::float::Constant;
use rug::Float;

/// Guard bits added on top of the bits that the requested digits need.
pub(crate) const GUARD_BITS: u32 = 32;

/// log₂ 10.
pub(crate) const LOG2_10: f64 = std::f64::consts::LOG2_10;

/// Working precision (bits) for `digits` significant decimal digits plus [`GUARD_BITS`].
pub(crate) fn bits_for_digits(digits: u32) -> u32 {
    (f64::from(digits) * LOG2_10).ceil() as u32 + GUARD_BITS
}

/// A high-precision value with the number of significant decimal digits it certifies.
#[derive(Clone, Debug, PartialEq)]
pub struct Certified {
    /// The value.
    pub value: Float,
    /// Certified significant digits (relative error < 10^-digits).
    pub digits: u32,
}

impl Certified {
    /// The value rounded to f64.
    pub fn to_f64(&self) -> f64 {
        self.value.to_f64()
    }

    /// The guard every reported certified value passes (`dpaudit eval`, `report`'s golden
    /// verification and three-way tables): the value itself if it is a finite number, otherwise
    /// an [`Error::Undefined`] naming `what` and saying why. Two precisions that agree on ±∞
    /// or NaN have certified nothing: an overflow or a 0·∞ looks exactly like that.
    pub fn finite(self, what: &str) -> Result<Certified> {
        if self.value.is_finite() {
            return Ok(self);
        }
        let shown = if self.value.is_nan() {
            "NaN"
        } else if self.value.is_sign_negative() {
            "-infinity"
        } else {
            "+infinity"
        };
        Err(Error::Undefined(format!(
            "{what} evaluated to {shown}, which is not a finite number: refused (dpaudit \
             certifies finite values only)"
        )))
    }
}

/// Number of significant decimal digits on which `a` and `b` agree: −log₁₀(|a−b| / |b|).
/// Returns +∞ when they are identical (including equal infinities).
pub fn agreement_digits(a: &Float, b: &Float) -> f64 {
    if a == b {
        return f64::INFINITY;
    }
    if !a.is_finite() || !b.is_finite() || b.is_zero() {
        return 0.0;
    }
    let prec = a.prec().max(b.prec());
    let diff = Float::with_val(prec, a - b).abs();
    let scale = Float::with_val(prec, b.abs_ref());
    let r = Float::with_val(64, &diff / &scale);
    (-r.log10().to_f64()).max(0.0)
}

/// Whether MPFR raised its underflow (or overflow) flag while `f` ran, with `f`'s result. The
/// flags are per thread (MPFR is built thread-safe) and sticky: they are cleared before `f` and
/// set again afterwards if they were set before, so a caller's own check is not disturbed.
pub(crate) fn with_range_flags<T>(f: impl FnOnce() -> T) -> (T, bool, bool) {
    use gmp_mpfr_sys::mpfr;
    // SAFETY: these MPFR calls only read or write the calling thread's exception flags.
    let (u0, o0) = unsafe { (mpfr::underflow_p() != 0, mpfr::overflow_p() != 0) };
    unsafe {
        mpfr::clear_underflow();
        mpfr::clear_overflow();
    }
    let out = f();
    // SAFETY: as above.
    let (u, o) = unsafe { (mpfr::underflow_p() != 0, mpfr::overflow_p() != 0) };
    unsafe {
        if u0 {
            mpfr::set_underflow();
        }
        if o0 {
            mpfr::set_overflow();
        }
    }
    (out, u, o)
}

/// Refuses a value whose digits an underflow may have taken: zero, or within `prec` bits of the
/// smallest exponent, when MPFR's underflow or overflow flag was raised while computing it. Two
/// precisions that both underflow agree exactly (0 = 0), so the ladder alone cannot see it; a
/// true value below 2^emin (≈ 10^-323228497) cannot be printed, so it is refused, never shown
/// as a certified 0.
pub(crate) fn check_range(
    v: &Float,
    prec: u32,
    underflow: bool,
    overflow: bool,
    what: &str,
) -> Result<()> {
    if !(underflow || overflow) || !v.is_finite() {
        return Ok(());
    }
    let near_min = v.is_zero()
        || v.get_exp()
            .is_some_and(|e| i64::from(e) < i64::from(rug::float::exp_min()) + i64::from(prec));
    if !near_min {
        return Ok(());
    }
    let emin = f64::from(rug::float::exp_min());
    Err(Error::Undefined(format!(
        "{what} is smaller than the smallest positive number dpaudit can represent (about \
         1e{:.0}): the computation underflowed to {}, which is not its value; refused (dpaudit \
         does not print an underflowed result as certified)",
        (emin * std::f64::consts::LOG10_2).floor(),
        if v.is_zero() {
            "0"
        } else {
            "a number near that limit"
        }
    )))
}

/// Evaluates `f(prec)` on a ladder of precisions until two successive evaluations agree to
/// `digits` significant digits, then returns the more precise value, certified to the agreement
/// (capped at `digits`). Rounding error, cancellation and far-tail loss all show up as
/// disagreement between precisions. Gives up with [`Error::Precision`] after the working precision
/// has grown sixteen-fold. A zero is certified only at the top of the ladder (every precision up
/// to sixteen-fold gave exactly 0). A value that MPFR's underflow (or overflow) flag says may have lost
/// its digits to the exponent range (a 0 or a number near 2^emin) is refused with
/// [`Error::Undefined`] (`check_range`).
pub(crate) fn certify<F>(digits: u32, what: &str, mut f: F) -> Result<Certified>
where
    F: FnMut(u32) -> Result<Float>,
{
    let mut f = |p: u32| -> Result<Float> {
        let (v, u, o) = with_range_flags(|| f(p));
        let v = v?;
        check_range(&v, p, u, o, what)?;
        Ok(v)
    };
    let base = bits_for_digits(digits);
    let mut prec = base;
    let mut prev = f(prec)?;
    let mut best = 0.0f64;
    while prec <= 16 * base {
        // Doubling (not +50%): a term absorbed at both precisions of a too-close pair would
        // make them agree on a wrong value; the closed forms avoid absorption by construction
        // (exact sums, expm1/log1p forms), the wide step is a second line of defence.
        let next_prec = 2 * prec + 32;
        if let Some(limit) = super::deadline::expired() {
            return Err(Error::Precision {
                narrowest: None,
                requested: digits,
                certified: best.floor() as u32,
                what: format!("{what} (time limit of {limit} s reached)"),
            });
        }
        let next = f(next_prec)?;
        // Two zeros are no evidence before the top of the ladder: a positive value absorbed at
        // both precisions (log(1 + x) with x below their resolution, e.g. the stochastic sign
        // at sigma = 1e100) is 0 at both. A true zero stays 0 up to 16 times the base precision.
        let absorbed = prev.is_zero() && next.is_zero() && next_prec <= 16 * base;
        let agree = if absorbed {
            0.0
        } else {
            agreement_digits(&next, &prev)
        };
        if agree >= f64::from(digits) {
            return Ok(Certified {
                value: next,
                digits,
            });
        }
        best = best.max(agree);
        prev = next;
        prec = next_prec;
    }
    Err(Error::Precision {
        narrowest: None,
        requested: digits,
        certified: best.floor() as u32,
        what: what.to_string(),
    })
}

/// ln √(2π) at `prec` bits.
pub(crate) fn ln_sqrt_2pi(prec: u32) -> Float {
    let two_pi = Float::with_val(prec + 8, Constant::Pi) * 2u32;
    Float::with_val(prec, two_pi.ln() / 2u32)
}

/// log φ(x) = −x²/2 − ln √(2π).
pub(crate) fn log_norm_pdf(x: &Float) -> Float {
    let prec = x.prec();
    let sq = Float::with_val(prec + 8, x.square_ref());
    Float::with_val(prec, -sq / 2u32 - ln_sqrt_2pi(prec + 8))
}

/// Threshold below which log Φ(x) uses the continued fraction (t = −x ≥ this).
const CF_THRESHOLD: f64 = 5.0;

/// ln R(t) where R(t) = Φ(−t)/φ(t) is the Mills ratio, for t ≥ [`CF_THRESHOLD`]: the Laplace
/// continued fraction R(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))) by modified Lentz. Successive
/// convergents bracket R, so stopping when the relative update is below 2^-(p+8) bounds the error.
fn ln_mills_ratio_cf(t: &Float, prec: u32) -> Option<Float> {
    let wp = prec + 16;
    let t = Float::with_val(wp, t);
    let tiny = Float::with_val(wp, Float::i_exp(1, -(wp as i32) * 4));
    // f = b0 + a1/(b1 + a2/(b2 + …)) with b_k = t, a_k = k  (K = t + 1/(t + 2/(t + …))).
    let mut f = t.clone();
    let mut c = t.clone();
    let mut d = Float::new(wp);
    let eps = Float::with_val(wp, Float::i_exp(1, -(prec as i32) - 8));
    let max_iter = 200_000u32;
    for k in 1..max_iter {
        // d = b + a d ; c = b + a / c
        d *= k;
        d += &t;
        if d.clone().abs() < tiny {
            d.clone_from(&tiny);
        }
        let mut cn = Float::with_val(wp, k) / &c;
        cn += &t;
        if cn.clone().abs() < tiny {
            cn.clone_from(&tiny);
        }
        c = cn;
        d.recip_mut();
        let delta = Float::with_val(wp, &c * &d);
        f *= &delta;
        let dev = (delta - 1u32).abs();
        if dev < eps {
            // R = 1/K
            return Some(Float::with_val(prec, -f.ln()));
        }
    }
    None
}

/// ln R(t), R(t) = Φ(−t)/φ(t) the Mills ratio, for t ≥ 0 at the precision of `t`, without forming
/// Φ(−t) or φ(t): finite for every finite t (R(t) ≈ 1/t for t ≫ 1, so t = 10³⁰⁰ is fine). The
/// large-α Rényi forms use it to take the e^{−t²/2} of a far tail out analytically
/// (docs/formulas.md §9.10).
pub(crate) fn ln_mills_ratio(t: &Float) -> Float {
    let prec = t.prec();
    if t.to_f64() >= CF_THRESHOLD {
        if let Some(lr) = ln_mills_ratio_cf(t, prec + 16) {
            return Float::with_val(prec, lr);
        }
    }
    // 0 ≤ t < 5 (or a continued fraction that did not converge): no cancellation to fear.
    let wp = prec + 16;
    let neg = Float::with_val(wp, -t);
    let z = Float::with_val(wp, t) / Float::with_val(wp, 2u32).sqrt();
    let lphi = Float::with_val(wp, (z.erfc() / 2u32).ln());
    Float::with_val(prec, lphi - log_norm_pdf(&neg))
}

/// log Φ(x) at the precision of `x`, finite for every finite x.
pub(crate) fn log_ndtr(x: &Float) -> Float {
    let prec = x.prec();
    if x.is_infinite() {
        return if x.is_sign_negative() {
            Float::with_val(prec, f64::NEG_INFINITY)
        } else {
            Float::new(prec)
        };
    }
    if *x >= 0 {
        // log(1 − Φ(−x)) = log1p(−Φ(−x)).
        let neg = Float::with_val(prec + 16, -x);
        let tail = ndtr(&neg);
        return Float::with_val(prec, (-tail).ln_1p());
    }
    if x.to_f64() <= -CF_THRESHOLD {
        let t = Float::with_val(prec + 16, -x);
        if let Some(lr) = ln_mills_ratio_cf(&t, prec + 16) {
            let lp = log_norm_pdf(&Float::with_val(prec + 16, x));
            return Float::with_val(prec, lp + lr);
        }
    }
    let wp = prec + 16;
    let z = Float::with_val(wp, -x) / Float::with_val(wp, 2u32).sqrt();
    let v = z.erfc() / 2u32;
    Float::with_val(prec, v.ln())
}

/// Φ(x) at the precision of `x`, relatively accurate in both tails.
pub fn ndtr(x: &Float) -> Float {
    let prec = x.prec();
    if x.is_infinite() {
        return Float::with_val(prec, if x.is_sign_negative() { 0u32 } else { 1u32 });
    }
    if x.to_f64() <= -CF_THRESHOLD {
        return Float::with_val(prec, log_ndtr(x).exp());
    }
    let wp = prec + 16;
    let z = Float::with_val(wp, -x) / Float::with_val(wp, 2u32).sqrt();
    Float::with_val(prec, z.erfc() / 2u32)
}

/// log(1 − eˣ) for x ≤ 0 (−∞ at x = 0).
pub(crate) fn log1mexp(x: &Float) -> Float {
    let prec = x.prec();
    let ln2 = Float::with_val(prec, Constant::Log2);
    if *x > -ln2 {
        let e = Float::with_val(prec + 8, x.exp_m1_ref());
        Float::with_val(prec, (-e).ln())
    } else {
        let e = Float::with_val(prec + 8, x.exp_ref());
        Float::with_val(prec, (-e).ln_1p())
    }
}

/// log(eᵃ + eᵇ).
pub(crate) fn log_add_exp(a: &Float, b: &Float) -> Float {
    let prec = a.prec().max(b.prec());
    if a.is_infinite() && a.is_sign_negative() {
        return Float::with_val(prec, b);
    }
    if b.is_infinite() && b.is_sign_negative() {
        return Float::with_val(prec, a);
    }
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    let d = Float::with_val(prec + 8, lo - hi);
    Float::with_val(prec, d.exp().ln_1p() + hi)
}

/// log(eᵃ − eᵇ) for a ≥ b.
pub(crate) fn log_diff_exp(a: &Float, b: &Float) -> Float {
    let prec = a.prec().max(b.prec());
    if b.is_infinite() && b.is_sign_negative() {
        return Float::with_val(prec, a);
    }
    let d = Float::with_val(prec, b - a);
    Float::with_val(prec, log1mexp(&d) + a)
}

/// log(Φ(v) − Φ(u)) for u < v (either may be ±∞), evaluated on the tail side: one-sided intervals
/// through log Φ and log1mexp, straddling ones as log1p(−Φ(u) − Φ(−v)) (docs/formulas.md §9 recipe 1).
pub(crate) fn log_ndtr_diff(u: &Float, v: &Float) -> Float {
    let prec = u.prec().max(v.prec());
    if u >= v {
        return Float::with_val(prec, f64::NEG_INFINITY);
    }
    if *v <= 0 {
        let lv = log_ndtr(&Float::with_val(prec, v));
        let lu = log_ndtr(&Float::with_val(prec, u));
        log_diff_exp(&lv, &lu)
    } else if *u >= 0 {
        let lu = log_ndtr(&Float::with_val(prec, -u));
        let lv = log_ndtr(&Float::with_val(prec, -v));
        log_diff_exp(&lu, &lv)
    } else {
        let wp = prec + 8;
        let pu = ndtr(&Float::with_val(wp, u));
        let pv = ndtr(&Float::with_val(wp, -v));
        Float::with_val(prec, (-(pu + pv)).ln_1p())
    }
}

#[cfg(test)]
mod tests {
    use super::{
        agreement_digits, bits_for_digits, certify, log_diff_exp, log_ndtr, log_ndtr_diff, Error,
        Float,
    };

    fn parse(prec: u32, s: &str) -> Float {
        Float::with_val(prec, Float::parse(s).unwrap())
    }

    // References: mpmath 1.3.0, mp.dps = 60: log(ncdf(x)) — independent of this code.
    const REFS: &[(&str, &str)] = &[
        (
            "-1",
            "-1.84102164500926350577078307323252902154767190882327352500757",
        ),
        (
            "-5",
            "-15.0649983939887257360837047918967256050677126253466826953526",
        ),
        (
            "-5.5",
            "-17.7793763526252605105944255987410995442555081205924786470485",
        ),
        (
            "-30",
            "-454.321243956343197107355771337644965656351088337301219228124",
        ),
        (
            "-1000",
            "-500007.826694812184309806167549184608234395286728222909121664",
        ),
        (
            "3",
            "-0.00135080996474819379884111049051738009272934829377594922211186",
        ),
    ];

    #[test]
    fn log_ndtr_matches_mpmath_to_55_digits() {
        for (x, want) in REFS {
            let prec = bits_for_digits(55);
            let got = log_ndtr(&parse(prec, x));
            let want = parse(prec, want);
            let agree = agreement_digits(&got, &want);
            assert!(agree >= 55.0, "x={x}: {agree} digits ({got})");
        }
    }

    #[test]
    fn continued_fraction_agrees_with_erfc_at_switch() {
        let prec = 200;
        let x = parse(prec, "-5.25");
        let cf = log_ndtr(&x);
        let z = Float::with_val(prec + 32, -&x) / Float::with_val(prec + 32, 2u32).sqrt();
        let direct = Float::with_val(prec, (z.erfc() / 2u32).ln());
        assert!(agreement_digits(&cf, &direct) > 55.0);
    }

    #[test]
    fn log_ndtr_diff_far_tail_and_straddle() {
        let prec = 256;
        // Φ(−40) − Φ(−41): a far-tail interval of width 1.
        let got = log_ndtr_diff(&parse(prec, "-41"), &parse(prec, "-40"));
        let direct = log_diff_exp(
            &log_ndtr(&parse(prec, "-40")),
            &log_ndtr(&parse(prec, "-41")),
        );
        assert!(agreement_digits(&got, &direct) > 70.0);
        let mirror = log_ndtr_diff(&parse(prec, "40"), &parse(prec, "41"));
        assert!(agreement_digits(&got, &mirror) > 70.0);
        let s = log_ndtr_diff(&parse(prec, "-1"), &parse(prec, "1")).exp();
        let want = parse(
            prec,
            "0.682689492137085897170465091264075844955825933453208781974789",
        );
        assert!(agreement_digits(&s, &want) > 58.0);
    }

    #[test]
    fn certify_detects_cancellation_and_succeeds_with_more_bits() {
        // (1 + 1e-40) − 1 needs > 133 bits: the ladder climbs until it is exact.
        let c = certify(30, "test", |p| {
            let one = Float::with_val(p, 1u32);
            let x = Float::with_val(p, Float::parse("1e-40").unwrap());
            Ok(Float::with_val(p, &one + &x) - one)
        })
        .unwrap();
        assert_eq!(c.digits, 30);
        assert!((c.value.to_f64() - 1e-40).abs() < 1e-50);
    }

    #[test]
    fn certify_refuses_what_it_cannot_certify() {
        // A "computation" whose result keeps changing with precision is never certified.
        let r = certify(30, "unstable", |p| Ok(Float::with_val(p, p)));
        assert!(matches!(r, Err(Error::Precision { .. })));
    }
}
