//! The Gaussian mechanism M(x) = f(x) + N(0, σ² I) with L2 sensitivity Δ: its Rényi-DP curve and
//! its exact privacy profile.
//!
//! * [`rdp_eps`]: ε(α) = αΔ²/(2σ²) (Mironov 2017, Prop. 7).
//! * [`dp_delta`]: δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (Balle & Wang 2018, Thm 8),
//!   evaluated in log space as log δ = log Φ(x) + log1mexp(ε + log Φ(y) − log Φ(x)) with
//!   x = μ/2 − ε/μ, y = x − μ, μ = Δ/σ. Since e^ε φ(y) = φ(x), the argument of log1mexp is the log
//!   of a ratio of Mills ratios, of moderate size even when ε is in the thousands: e^ε is never
//!   formed (docs/formulas.md §7.1; far-tail log Φ by continued fraction, `crate::numeric::mp::log_ndtr`).
//! * [`dp_eps`]: the inverse ε(δ), by safeguarded Newton iteration on log δ(ε) inside a bracket,
//!   using dδ/dε = −e^ε Φ(y).
//!
//! Everything depends on Δ and σ only through μ = Δ/σ.

use super::{alpha_above_one, f64chk, nonnegative, positive};
use crate::error::{Error, Result};
use crate::numeric::f64s;
use crate::numeric::mp::{certify, log1mexp, log_ndtr, Certified};
use crate::scalar::Scalar;
use rug::Float;

/// Sensitivity Δ > 0 and noise σ > 0 (in that order).
fn mechanism(sensitivity: &Scalar, sigma: &Scalar) -> Result<()> {
    positive("sensitivity", sensitivity)?;
    positive("sigma", sigma)
}

/// [`mechanism`] for the double-precision fast paths.
fn mechanism_f64(sensitivity: f64, sigma: f64) -> Result<()> {
    f64chk::positive("sensitivity", sensitivity)?;
    f64chk::positive("sigma", sigma)
}

/// Mironov 2017, Prop. 7: the Gaussian mechanism is (α, αΔ²/(2σ²))-RDP for every α > 1.
pub fn rdp_eps(
    sensitivity: &Scalar,
    sigma: &Scalar,
    alpha: &Scalar,
    digits: u32,
) -> Result<Certified> {
    mechanism(sensitivity, sigma)?;
    alpha_above_one(alpha)?;
    certify(digits, "Gaussian RDP (Mironov 2017 Prop. 7)", |p| {
        let wp = p + 16;
        let mu = sensitivity.mp(wp) / sigma.mp(wp);
        Ok(Float::with_val(p, alpha.mp(wp) * mu.square() / 2u32))
    })
}

/// Double-precision [`rdp_eps`].
#[cfg(test)]
pub(crate) fn rdp_eps_f64(sensitivity: f64, sigma: f64, alpha: f64) -> Result<f64> {
    mechanism_f64(sensitivity, sigma)?;
    f64chk::alpha(alpha)?;
    let mu = sensitivity / sigma;
    Ok(alpha * mu * mu / 2.0)
}

/// (log δ(ε), log Φ(y)) for the Gaussian mechanism with μ = Δ/σ > 0 and ε ≥ 0 (Balle & Wang
/// 2018, Thm 8, in log space), at the precision of `mu`.
fn log_delta_parts(mu: &Float, eps: &Float) -> (Float, Float) {
    let p = mu.prec();
    let wp = p + 16;
    let e_over_mu = Float::with_val(wp, eps / mu);
    let half = Float::with_val(wp, mu / 2u32);
    let x = Float::with_val(wp, &half - &e_over_mu);
    let y = -Float::with_val(wp, &half + &e_over_mu);
    let lx = log_ndtr(&x);
    let ly = log_ndtr(&y);
    let r = Float::with_val(wp, eps + &ly) - &lx;
    // r < 0 mathematically; rounding can only push it to ≥ 0 when δ is below the working
    // precision's resolution, in which case log1mexp returns −∞ or NaN and the ladder refuses to
    // certify.
    let ld = Float::with_val(wp, &lx + log1mexp(&r));
    (Float::with_val(p, ld), Float::with_val(p, ly))
}

/// log δ(ε) of the Gaussian mechanism with μ = Δ/σ (Balle & Wang 2018, Thm 8), at the precision of
/// `mu`; no e^ε is formed.
pub(crate) fn log_dp_delta_mp(mu: &Float, eps: &Float) -> Float {
    log_delta_parts(mu, eps).0
}

/// Balle & Wang 2018, Thm 8: the exact privacy profile
/// δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ), ε ≥ 0, in the log form of docs/formulas.md §7.1.
pub fn dp_delta(
    sensitivity: &Scalar,
    sigma: &Scalar,
    eps: &Scalar,
    digits: u32,
) -> Result<Certified> {
    mechanism(sensitivity, sigma)?;
    nonnegative("eps", eps)?;
    certify(digits, "Gaussian delta(eps) (Balle-Wang 2018 Thm 8)", |p| {
        let wp = p + 16;
        let mu = Float::with_val(wp, sensitivity.mp(wp) / sigma.mp(wp));
        let ld = log_dp_delta_mp(&mu, &eps.mp(wp));
        Ok(Float::with_val(p, ld.exp()))
    })
}

/// Double-precision [`dp_delta`] (the erfcx form, `f64s::gaussian_delta`).
#[cfg(test)]
pub(crate) fn dp_delta_f64(sensitivity: f64, sigma: f64, eps: f64) -> Result<f64> {
    mechanism_f64(sensitivity, sigma)?;
    crate::error::check_nonnegative("eps", eps)?;
    Ok(f64s::gaussian_delta(sensitivity / sigma, eps))
}

/// ε(δ) at the precision of `mu`: the smallest ε ≥ 0 with δ(ε) ≤ δ (0 when δ(0) ≤ δ).
/// Safeguarded Newton on h(ε) = log δ(ε) − log δ_target, h′(ε) = −e^{ε + log Φ(y) − log δ(ε)},
/// within a bracket that every step keeps.
pub(crate) fn dp_eps_mp(mu: &Float, delta: &Float) -> Result<Float> {
    let p = mu.prec();
    let ld_t = Float::with_val(p, delta.ln_ref());
    let h = |e: &Float| -> (Float, Float) {
        let (ld, ly) = log_delta_parts(mu, e);
        let hv = Float::with_val(p, &ld - &ld_t);
        // h'(ε) = −exp(ε + ly − ld)
        let dh = -Float::with_val(p, Float::with_val(p, e + &ly) - &ld).exp();
        (hv, dh)
    };
    let zero = Float::new(p);
    let (h0, _) = h(&zero);
    if h0 <= 0 {
        return Ok(zero);
    }
    // Start from the double-precision inverse when it is usable.
    let guess = f64s::gaussian_eps_for_delta(mu.to_f64(), delta.to_f64());
    let mut lo = Float::new(p);
    let mut hi = Float::with_val(
        p,
        if guess.is_finite() && guess > 0.0 {
            guess * 1.25 + 1e-3
        } else {
            1.0
        },
    );
    let mut n = 0;
    loop {
        let (hv, _) = h(&hi);
        if hv.is_nan() {
            return Err(Error::Undefined(format!(
                "Gaussian eps(delta): log delta undefined at eps = {}",
                hi.to_f64()
            )));
        }
        if hv <= 0 {
            break;
        }
        lo.clone_from(&hi);
        hi *= 2u32;
        n += 1;
        if n > 2000 {
            return Err(Error::Undefined(
                "Gaussian eps(delta): no bracket found".into(),
            ));
        }
    }
    let mut x = if guess.is_finite() && guess > lo.to_f64() && guess < hi.to_f64() {
        Float::with_val(p, guess)
    } else {
        Float::with_val(p, &lo + &hi) / 2u32
    };
    let tol = Float::with_val(p, Float::i_exp(1, -(p as i32) - 4));
    for _ in 0..(4 * p + 100) {
        let (hv, dh) = h(&x);
        if hv.is_zero() {
            return Ok(x);
        }
        if hv > 0 {
            lo.clone_from(&x);
        } else {
            hi.clone_from(&x);
        }
        let step = Float::with_val(p, &hv / &dh);
        let mut next = Float::with_val(p, &x - &step);
        if !step.is_finite() || next <= lo || next >= hi {
            next = Float::with_val(p, &lo + &hi) / 2u32;
        }
        let scale = Float::with_val(p, x.abs_ref()).max(&Float::with_val(p, 1u32));
        let moved = Float::with_val(p, &next - &x).abs();
        x = next;
        let width = Float::with_val(p, &hi - &lo);
        if moved <= Float::with_val(p, &scale * &tol) || width <= Float::with_val(p, &scale * &tol)
        {
            return Ok(x);
        }
    }
    Err(Error::Undefined(
        "Gaussian eps(delta): root finding did not converge".into(),
    ))
}

/// The exact ε(δ) of the Gaussian mechanism: the inverse of [`dp_delta`] in ε (Balle & Wang
/// 2018, Thm 8), certified on the precision ladder. Returns 0 when δ ≥ δ(0) = 1 − 2Φ(−Δ/(2σ)).
pub fn dp_eps(
    sensitivity: &Scalar,
    sigma: &Scalar,
    delta: &Scalar,
    digits: u32,
) -> Result<Certified> {
    mechanism(sensitivity, sigma)?;
    delta.open_unit("delta")?;
    certify(digits, "Gaussian eps(delta) (Balle-Wang 2018 Thm 8)", |p| {
        let wp = p + 16;
        let mu = Float::with_val(wp, sensitivity.mp(wp) / sigma.mp(wp));
        let e = dp_eps_mp(&mu, &delta.mp(wp))?;
        Ok(Float::with_val(p, e))
    })
}

/// Double-precision [`dp_eps`] (`f64s::gaussian_eps_for_delta`, bisection to 1e-13).
pub(crate) fn dp_eps_f64(sensitivity: f64, sigma: f64, delta: f64) -> Result<f64> {
    mechanism_f64(sensitivity, sigma)?;
    f64chk::delta(delta)?;
    Ok(f64s::gaussian_eps_for_delta(sensitivity / sigma, delta))
}

#[cfg(test)]
mod tests {
    use super::{dp_delta, dp_delta_f64, dp_eps, rdp_eps, rdp_eps_f64, Error};
    use crate::bounds::test_support::{agree, s};

    // (Δ, σ, ε, δ): mpmath 1.3.0 at dps 60, ncdf(Δ/(2σ) − εσ/Δ) − exp(ε) ncdf(−Δ/(2σ) − εσ/Δ)
    // evaluated literally (mpmath does not overflow) — independent of this code.
    const DELTAS: &[(&str, &str, &str, &str)] = &[
        (
            "1",
            "0.02",
            "1560",
            "2.50408036568241717657825578325498310304408692e-10",
        ),
        (
            "1",
            "1",
            "1",
            "0.12693673750664394580082962475776688041508065",
        ),
        (
            "1",
            "0.5",
            "3",
            "0.18381307654447215597010727020143692071534397",
        ),
        (
            "1",
            "5",
            "0.01",
            "0.0751305824360244192854710663056662483061569924",
        ),
        (
            "2",
            "3",
            "0",
            "0.26111731963647272345441543586085283334349126",
        ),
        (
            "1",
            "0.1",
            "20",
            "0.998029181465427633537601252528745550868879959",
        ),
    ];

    #[test]
    fn delta_matches_mpmath_including_eps_1560() {
        for (d, sg, e, want) in DELTAS {
            let c = dp_delta(&s(d), &s(sg), &s(e), 42).unwrap();
            assert!(agree(&c, want) >= 41.0, "({d},{sg},{e}): {}", c.value);
            let f =
                dp_delta_f64(d.parse().unwrap(), sg.parse().unwrap(), e.parse().unwrap()).unwrap();
            assert!((f / c.to_f64() - 1.0).abs() < 1e-11, "f64 {f}");
        }
    }

    #[test]
    fn eps_inverts_delta_matches_mpmath() {
        // mpmath findroot on log(δ(ε)) − log(δ_target), dps 60.
        let cases = [
            (
                "1",
                "1",
                "1e-5",
                "4.37717809568122462765011629324201091315343852",
            ),
            (
                "1",
                "2",
                "1e-10",
                "3.09943033024319605064015941107396202749241334",
            ),
            (
                "1",
                "0.3",
                "1e-6",
                "20.7812222565381646460241134087589534630740484",
            ),
        ];
        for (d, sg, dl, want) in cases {
            let c = dp_eps(&s(d), &s(sg), &s(dl), 42).unwrap();
            assert!(agree(&c, want) >= 41.0, "({d},{sg},{dl}): {}", c.value);
        }
        // δ = 0.5 ≥ δ(0) = 1 − 2Φ(−0.1) ≈ 0.0797: ε = 0.
        let z = dp_eps(&s("1"), &s("5"), &s("0.5"), 30).unwrap();
        assert!(z.value.is_zero());
        // round trip at ε = 1560
        let e = dp_eps(
            &s("1"),
            &s("0.02"),
            &s("2.50408036568241717657825578325498310304408692e-10"),
            40,
        )
        .unwrap();
        assert!(agree(&e, "1560") >= 40.0, "{}", e.value);
    }

    #[test]
    fn rdp_and_errors() {
        let r = rdp_eps(&s("2"), &s("4"), &s("3"), 40).unwrap();
        assert!(agree(&r, "0.375") >= 40.0);
        assert!(matches!(
            rdp_eps(&s("2"), &s("0"), &s("3"), 40),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            dp_eps(&s("1"), &s("1"), &s("1"), 40),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            dp_delta(&s("1"), &s("1"), &s("-1"), 40),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(rdp_eps_f64(1.0, 1.0, 1.0).is_err());
    }
}
