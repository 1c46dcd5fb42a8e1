//! Regularised incomplete gamma functions P(s, x), Q(s, x) and χ² distribution functions, over
//! `rug::Float`, for the orders χ²_k needs: s = k/2 with k a positive integer (integer and
//! half-integer s).
//!
//! Each value is computed from a sum of positive terms, so nothing cancels:
//!
//! * for x < s, the lower series
//!   P(s, x) = x^s e^{−x}/Γ(s+1) · Σ_{j≥0} x^j / ((s+1)(s+2)…(s+j))  (DLMF 8.7.1), and Q = 1 − P;
//! * for x ≥ s, the finite sums (DLMF 8.4.8, 8.4.10 / 8.4.11)
//!   Q(n, x) = e^{−x} Σ_{j<n} x^j/j!   (integer n),
//!   Q(n+½, x) = erfc(√x) + e^{−x} Σ_{j=1}^{n} x^{j−½}/Γ(j+½)   (half-integer),
//!   and P = 1 − Q.
//!
//! The side that is computed directly is the one below about ½ (the median of Gamma(s) is close
//! to s), so the complement 1 − (value ≤ ~½) never loses more than a bit, and both tails keep full
//! relative accuracy (e.g. Q(500, 5000) ≈ 9.4·10⁻¹⁴⁵⁸, P(500, 50) ≈ 5.4·10⁻³⁰⁷). erfc(√x) is
//! taken as 2Φ(−√(2x)) through [`crate::numeric::mp::ndtr`], whose far tail is a continued
//! fraction.
//!
//! These routines work at the precision of `x` plus internal guard bits; they do not certify.
//! Callers wrap them in [`crate::numeric::mp::certify`].

use crate::error::{Error, Result};
use crate::numeric::mp;
use rug::float::Constant;
use rug::Float;

/// Guard bits for the exponent s·ln x − x − ln Γ(s+1) and the sums: its absolute rounding error
/// is about (s |ln x| + x + s ln s)·2^-p, a relative error of the result.
fn working_prec(prec: u32, s: f64, x: f64) -> u32 {
    let scale = 1.0 + s * (x.abs().ln().abs() + 1.0) + x + s * (s + 1.0).ln();
    prec + 32 + scale.log2().ceil().max(0.0) as u32
}

fn check_args(k: u32, x: &Float) -> Result<()> {
    if k == 0 {
        return Err(Error::invalid("k (= 2s)", k, "a positive integer"));
    }
    if x.is_nan() || *x < 0 {
        return Err(Error::invalid("x", x.to_f64(), "a number >= 0"));
    }
    Ok(())
}

/// Terms summed between two looks at the time limit ([`crate::numeric::deadline`]): the sums
/// below run over up to k/2 terms (5·10⁶ for the d = 10⁷ profiles of `gaussian_dd`).
const DEADLINE_STRIDE: u32 = 1 << 12;

/// [`Error::TimeLimit`] if this thread's time limit has passed (checked every
/// [`DEADLINE_STRIDE`] terms `j`).
fn check_time(j: u32, k: f64) -> Result<()> {
    if j % DEADLINE_STRIDE == 0 {
        if let Some(seconds) = crate::numeric::deadline::expired() {
            return Err(Error::TimeLimit {
                seconds,
                what: format!("the incomplete-gamma sum of order {k}"),
            });
        }
    }
    Ok(())
}

/// P(s, x) by the lower series (all terms positive; converges for every x ≥ 0, fast for x < s).
#[cfg(test)]
fn lower_series(s: &Float, x: &Float, wp: u32) -> Float {
    lower_series_timed(s, x, wp).expect("no time limit outside with_limit")
}

/// [`lower_series`], stopping at this thread's time limit.
fn lower_series_timed(s: &Float, x: &Float, wp: u32) -> Result<Float> {
    // prefactor x^s e^{-x} / Γ(s+1)
    let s1 = Float::with_val(wp, s + 1u32);
    let lg = s1.ln_gamma();
    let lx = Float::with_val(wp, x.ln_ref());
    let expo = Float::with_val(wp, s * &lx) - x - lg;
    let pref = expo.exp();
    let mut sum = Float::with_val(wp, 1u32);
    let mut term = Float::with_val(wp, 1u32);
    let tol = Float::with_val(wp, Float::i_exp(1, -(wp as i32)));
    let mut j: u32 = 1;
    loop {
        let denom = Float::with_val(wp, s + j);
        term *= x;
        term /= &denom;
        sum += &term;
        // Once the ratio x/(s+j+1) ≤ 1/2 the remaining tail is at most the current term.
        let ratio_small = Float::with_val(wp, x * 2u32) <= Float::with_val(wp, s + (j + 1));
        if ratio_small && term <= Float::with_val(wp, &sum * &tol) {
            break;
        }
        j += 1;
        check_time(j, s.to_f64())?;
    }
    Ok(pref * sum)
}

/// Q(k/2, x) for even k by the finite sum e^{−x} Σ_{j<k/2} x^j/j! (DLMF 8.4.8, all terms
/// positive), with e^{−x} given.
pub(crate) fn upper_even(k: u32, x: &Float, emx: Float, wp: u32) -> Float {
    emx * even_sum(k, x, wp, |_| Ok(())).expect("the check never fails")
}

/// Σ_{j<k/2} x^j/j! for even k, calling `check(j)` after each term (the time limit).
fn even_sum(k: u32, x: &Float, wp: u32, mut check: impl FnMut(u32) -> Result<()>) -> Result<Float> {
    let n = k / 2;
    let mut term = Float::with_val(wp, 1u32);
    let mut sum = Float::with_val(wp, 1u32);
    for j in 1..n {
        term *= x;
        term /= j;
        sum += &term;
        check(j)?;
    }
    Ok(sum)
}

/// Q(k/2, x) by the finite sums (all terms positive).
#[cfg(test)]
fn upper_finite(k: u32, x: &Float, wp: u32) -> Float {
    upper_finite_timed(k, x, wp).expect("no time limit outside with_limit")
}

/// Q(k/2, x) by the finite sums, stopping at this thread's time limit.
fn upper_finite_timed(k: u32, x: &Float, wp: u32) -> Result<Float> {
    let emx = Float::with_val(wp, -x).exp();
    if k % 2 == 0 {
        Ok(emx * even_sum(k, x, wp, |j| check_time(j, f64::from(k) / 2.0))?)
    } else {
        let n = (k - 1) / 2;
        // erfc(√x) = 2 Φ(−√(2x))
        let arg = -Float::with_val(wp, x * 2u32).sqrt();
        let erfc = mp::ndtr(&arg) * 2u32;
        if n == 0 {
            return Ok(erfc);
        }
        // term_1 = x^{1/2} / Γ(3/2) = 2 √x / √π ; term_{j+1} = term_j · x / (j + 1/2)
        let sqrt_pi = Float::with_val(wp, Constant::Pi).sqrt();
        let mut term = Float::with_val(wp, x.sqrt_ref()) * 2u32 / sqrt_pi;
        let mut sum = term.clone();
        for j in 1..n {
            let jh = Float::with_val(wp, j) + 0.5f64;
            term *= x;
            term /= &jh;
            sum += &term;
            check_time(j, f64::from(k) / 2.0)?;
        }
        Ok(erfc + emx * sum)
    }
}

/// Both regularised incomplete gamma functions (P(k/2, x), Q(k/2, x)) at the precision of `x`.
/// The smaller-than-about-½ side is summed directly; the other is its complement.
pub(crate) fn gamma_pq_half(k: u32, x: &Float) -> Result<(Float, Float)> {
    check_args(k, x)?;
    let prec = x.prec();
    if x.is_zero() {
        return Ok((Float::new(prec), Float::with_val(prec, 1u32)));
    }
    if x.is_infinite() {
        return Ok((Float::with_val(prec, 1u32), Float::new(prec)));
    }
    let s_f64 = f64::from(k) / 2.0;
    let wp = working_prec(prec, s_f64, x.to_f64());
    let s = Float::with_val(wp, k) / 2u32;
    let xw = Float::with_val(wp, x);
    if xw < s {
        let p = lower_series_timed(&s, &xw, wp)?;
        let q = Float::with_val(wp, 1u32 - &p);
        Ok((Float::with_val(prec, p), Float::with_val(prec, q)))
    } else {
        let q = upper_finite_timed(k, &xw, wp)?;
        let p = Float::with_val(wp, 1u32 - &q);
        Ok((Float::with_val(prec, p), Float::with_val(prec, q)))
    }
}

/// Regularised lower incomplete gamma P(k/2, x) = γ(k/2, x)/Γ(k/2) (DLMF 8.2.4).
pub(crate) fn gamma_p_half(k: u32, x: &Float) -> Result<Float> {
    gamma_pq_half(k, x).map(|(p, _)| p)
}

/// Regularised upper incomplete gamma Q(k/2, x) = Γ(k/2, x)/Γ(k/2) = 1 − P(k/2, x), computed
/// without forming 1 − P when Q is the small side.
pub(crate) fn gamma_q_half(k: u32, x: &Float) -> Result<Float> {
    gamma_pq_half(k, x).map(|(_, q)| q)
}

/// χ²_k cumulative distribution function F_k(x) = P(k/2, x/2), at the precision of `x`.
pub(crate) fn chi2_cdf(k: u32, x: &Float) -> Result<Float> {
    let half = Float::with_val(x.prec(), x / 2u32);
    gamma_p_half(k, &half)
}

/// χ²_k survival function 1 − F_k(x) = Q(k/2, x/2), at the precision of `x` (never 1 − cdf).
pub(crate) fn chi2_sf(k: u32, x: &Float) -> Result<Float> {
    let half = Float::with_val(x.prec(), x / 2u32);
    gamma_q_half(k, &half)
}

#[cfg(test)]
mod tests {
    use super::{chi2_cdf, chi2_sf, gamma_pq_half, lower_series, upper_finite, Float};
    use crate::numeric::mp::{agreement_digits, bits_for_digits};

    fn parse(prec: u32, s: &str) -> Float {
        Float::with_val(prec, Float::parse(s).unwrap())
    }

    /// (2s, x, P(s, x), Q(s, x)). Reference values: mpmath 1.3.0 at mp.dps = 60, printed to 50
    /// digits, P = gammainc(s, 0, x, regularized=True) and Q = gammainc(s, x, inf,
    /// regularized=True), each computed directly (not as 1 − the other). Independent of this code.
    const REFS: &[(u32, &str, &str, &str)] = &[
        (
            1,
            "0.01",
            "0.1124629160182848922032750717439683832216962991597",
            "0.8875370839817151077967249282560316167783037008403",
        ),
        (
            1,
            "2",
            "0.95449973610364158559943472566693312505644755259664",
            "0.045500263896358414400565274333066874943552447403357",
        ),
        (
            1,
            "50",
            "0.9999999999999999999999847602939516789478680533135",
            "1.5239706048321052131946686503198616727008066555914e-23",
        ),
        (
            2,
            "3",
            "0.95021293163213605702065758434993822336830040781158",
            "0.049787068367863942979342415650061776631699592188423",
        ),
        (
            10,
            "0.1",
            "0.000000076678016861893089230097365433990396480617489462815",
            "0.99999992332198313810691076990263456600960351938251",
        ),
        (
            22,
            "24.5",
            "0.99920087043132985684516671394581702051479448245713",
            "0.00079912956867014315483328605418297948520551754286995",
        ),
        (
            24,
            "24.5",
            "0.99810576381376712055494257615201025118419794147216",
            "0.0018942361862328794450574238479897488158020585278421",
        ),
        (
            1000,
            "500",
            "0.50594714617076035804704795744120580328027354256343",
            "0.49405285382923964195295204255879419671972645743657",
        ),
        (
            1000,
            "400",
            "0.00000081093810787991597856854670699738509206300678909147",
            "0.99999918906189212008402143145329300261490793699321",
        ),
        (
            1000,
            "650",
            "0.99999999961102635005131475232301351199054189500751",
            "0.00000000038897364994868524767698648800945810499248627852423",
        ),
        (
            1002,
            "500",
            "0.48810887830124857903777381423139060549993680960604",
            "0.51189112169875142096222618576860939450006319039396",
        ),
        (
            1000,
            "5000",
            "1",
            "9.3720461027573124792688689508088230688391575534789e-1458",
        ),
        (
            1000,
            "50",
            "5.3643869635226485101922374154613778954035843578109e-307",
            "1",
        ),
        (
            7,
            "0.001",
            "0.0000000000027165516671667903882763720719578911399174291744116",
            "0.99999999999728344833283320961172362792804210886008",
        ),
        (
            15,
            "100",
            "0.99999999999999999999999999999999978753288001068114",
            "2.1246711998931886081259428138374804994372466957281e-34",
        ),
        (
            3,
            "700",
            "1",
            "2.9456193610163087457397932080725338989081897924532e-303",
        ),
    ];

    #[test]
    fn matches_mpmath_to_48_digits_including_tails_and_d1000() {
        let prec = bits_for_digits(50);
        for (k, x, p_ref, q_ref) in REFS {
            let xf = parse(prec, x);
            let (p, q) = gamma_pq_half(*k, &xf).unwrap();
            let (pr, qr) = (parse(prec, p_ref), parse(prec, q_ref));
            // The references are printed to 50 significant digits; values equal to 1 at that
            // printing are checked through their (exact-to-50-digits) complement.
            if *p_ref != "1" {
                let a = agreement_digits(&p, &pr);
                assert!(a >= 48.0, "P({k}/2, {x}): {a:.1} digits, got {p}");
            }
            if *q_ref != "1" {
                let a = agreement_digits(&q, &qr);
                assert!(a >= 48.0, "Q({k}/2, {x}): {a:.1} digits, got {q}");
            }
        }
    }

    #[test]
    fn chi2_wrappers_halve_x() {
        let prec = 200;
        // χ²_22 at 49 = P(11, 24.5)
        let c = chi2_cdf(22, &parse(prec, "49")).unwrap();
        let want = parse(prec, REFS[5].2);
        assert!(agreement_digits(&c, &want) >= 48.0);
        let s = chi2_sf(22, &parse(prec, "49")).unwrap();
        let want = parse(prec, REFS[5].3);
        assert!(agreement_digits(&s, &want) >= 48.0);
    }

    #[test]
    fn edge_cases_and_bad_input() {
        let prec = 100;
        let (p, q) = gamma_pq_half(5, &Float::new(prec)).unwrap();
        assert!(p.is_zero() && q == 1u32);
        let (p, q) = gamma_pq_half(5, &Float::with_val(prec, f64::INFINITY)).unwrap();
        assert!(p == 1u32 && q.is_zero());
        assert!(gamma_pq_half(0, &Float::with_val(prec, 1u32)).is_err());
        assert!(gamma_pq_half(3, &Float::with_val(prec, -1i32)).is_err());
        assert!(gamma_pq_half(3, &Float::with_val(prec, f64::NAN)).is_err());
    }

    #[test]
    fn both_routes_agree_at_the_switch_point() {
        // At x = s both routes are valid: compare the lower series with the finite sum.
        let prec = 300;
        for k in [1u32, 2, 7, 22, 1000, 1001] {
            let wp = prec + 40;
            let s = Float::with_val(wp, k) / 2u32;
            let p = lower_series(&s, &s, wp);
            let q = upper_finite(k, &s, wp);
            let sum = Float::with_val(wp, &p + &q);
            let one = Float::with_val(wp, 1u32);
            assert!(agreement_digits(&sum, &one) > 85.0, "k={k}: P+Q={sum}");
        }
    }
}
