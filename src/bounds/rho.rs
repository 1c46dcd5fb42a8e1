//! HMB's ρ̄(d, R_c) (eq. (74)) and ρ = ρ̄/2 (eq. (12)): the factor by which clipping Gaussian
//! features at Mahalanobis radius R_c shrinks their covariance (HMB Appendix B, Prop. 3).
//!
//! ρ̄(d, R_c) = 1/(d(2π)^{d/2}) ∫_{ℝ^d} min(‖u‖², R_c²) e^{−‖u‖²/2} du = E[min(χ²_d, R_c²)]/d.
//!
//! Two independent routes:
//! * [`rho_bar`]: closed form through x f_{χ²_d}(x) = d f_{χ²_{d+2}}(x) (docs/formulas.md §6):
//!   ρ̄ = P(d/2+1, R_c²/2) + (R_c²/d) Q(d/2, R_c²/2), with the cancellation-free incomplete gamma
//!   functions of `numeric::chi2` (Q taken directly, never 1 − P);
//! * [`rho_bar_quadrature`]: the radial integral
//!   ρ̄ = (1/d)[∫_0^{R_c} r² f(r) dr + R_c² ∫_{R_c}^∞ f(r) dr], f(r) = r^{d−1}e^{−r²/2}/(2^{d/2−1}Γ(d/2)),
//!   by the crate's log-space quadrature on unit panels (`numeric::quad`), the infinite
//!   tail truncated with an explicit bound. It shares no formula with the closed form beyond f.

use super::positive;
use crate::error::{check_dim, Error, Result};
use crate::numeric::chi2::{gamma_p_half, gamma_q_half};
use crate::numeric::mp::{certify, Certified};
use crate::numeric::quad::{split, FnIntegrand, PieceRule, Point, QuadOptions};
use crate::scalar::Scalar;
use rug::float::Constant;
use rug::Assign;
use rug::Float;

/// HMB eq. (74) in closed form: ρ̄(d, R_c) = P(d/2+1, R_c²/2) + (R_c²/d) Q(d/2, R_c²/2)
/// (docs/formulas.md §6). ρ̄ ∈ (0, 1], ≈ R_c²/d for R_c² ≪ d, → 1 as R_c → ∞.
pub fn rho_bar(d: u32, rc: &Scalar, digits: u32) -> Result<Certified> {
    check_dim(d)?;
    positive("rc", rc)?;
    certify(digits, "HMB eq. (74) rho_bar", |p| {
        let wp = p + 16;
        let rc2 = rc.mp(wp).square();
        let x = Float::with_val(wp, &rc2 / 2u32);
        let pp = gamma_p_half(d + 2, &x)?;
        let q = gamma_q_half(d, &x)?;
        Ok(Float::with_val(p, pp + rc2 / d * q))
    })
}

/// HMB eq. (12): ρ = ρ̄/2 (the proposal ρ = βρ̄ with β = 1/2).
pub fn rho(d: u32, rc: &Scalar, digits: u32) -> Result<Certified> {
    let r = rho_bar(d, rc, digits)?;
    Ok(Certified {
        value: r.value / 2u32,
        digits: r.digits,
    })
}

/// Double-precision [`rho_bar`] (through the same incomplete gamma functions at 64 bits).
#[cfg(test)]
pub(crate) fn rho_bar_f64(d: u32, rc: f64) -> Result<f64> {
    check_dim(d)?;
    crate::error::check_positive("rc", rc)?;
    let prec = 80;
    let rc2 = Float::with_val(prec, rc).square();
    let x = Float::with_val(prec, &rc2 / 2u32);
    let v = gamma_p_half(d + 2, &x)? + rc2 / d * gamma_q_half(d, &x)?;
    Ok(v.to_f64())
}

/// log of the radial density of ‖u‖, u ~ N(0, I_d): log f(r) = (d−1) log r − r²/2 − (d/2−1) log 2
/// − log Γ(d/2), plus `extra_pow`·log r.
struct Radial {
    d: u32,
    log_norm: Float,
}

impl Radial {
    fn new(d: u32, wp: u32) -> Self {
        let half_d = Float::with_val(wp, d) / 2u32;
        let lg = Float::with_val(wp, half_d.ln_gamma_ref());
        let ln2 = Float::with_val(wp, Constant::Log2);
        let log_norm = -(Float::with_val(wp, &half_d - 1u32) * ln2) - lg;
        Radial { d, log_norm }
    }

    /// log(r^{extra} f(r)), r > 0 (−∞ at r = 0 when the power is positive).
    fn log_eval(&self, r: &Float, extra: u32) -> Float {
        let wp = r.prec();
        let pow = self.d - 1 + extra;
        let mut l =
            Float::with_val(wp, &self.log_norm) - Float::with_val(wp, r.square_ref()) / 2u32;
        if pow > 0 {
            l += Float::with_val(wp, r.ln_ref()) * pow;
        }
        l
    }

    /// r^{extra} f(r), r > 0.
    fn eval(&self, r: &Float, extra: u32) -> Float {
        self.log_eval(r, extra).exp()
    }

    /// Upper bound on ∫_T^∞ f(r) dr for T² > d−1: f(T)/(T − (d−1)/T) (f is log-concave beyond
    /// the mode, with log-slope ≤ (d−1)/T − T there).
    fn tail_bound(&self, t: &Float) -> Option<Float> {
        let wp = t.prec();
        let kappa = Float::with_val(
            wp,
            t - Float::with_val(wp, Float::with_val(wp, self.d - 1) / t),
        );
        if kappa <= 0 {
            return None;
        }
        Some(self.eval(t, 0) / kappa)
    }
}

/// ∫ over consecutive panels [x_i, x_{i+1}] of r^extra f(r), by the crate's log-space
/// Gauss–Legendre quadrature ([`crate::numeric::quad::split`]: pieces integrated largest-first,
/// each relative to the running total, with an error bound). Accepted only when the bound is
/// below 2^-(wp−24) relative; the precision ladder of the caller then checks the rounding.
fn panels(rad: &Radial, extra: u32, xs: &[Float], wp: u32) -> Result<Float> {
    let mut integrand = FnIntegrand(|r: &Float, pt: &mut Point| {
        pt.log_env.assign(rad.log_eval(r, extra));
    });
    let digits = (f64::from(wp) - 24.0) * std::f64::consts::LOG10_2;
    let res = split(
        &mut integrand,
        xs,
        &QuadOptions::new(wp, digits),
        PieceRule::GaussLegendre,
    )?;
    if res.log10_rel_err() > -digits {
        return Err(Error::Precision {
            narrowest: None,
            requested: digits as u32,
            certified: (-res.log10_rel_err()).max(0.0) as u32,
            what: "rho_bar radial quadrature".into(),
        });
    }
    Ok(res.value())
}

/// HMB eq. (74) by direct radial quadrature (independent of [`rho_bar`]):
/// ρ̄ = (1/d)[∫_0^{R_c} r² f(r) dr + R_c² ∫_{R_c}^∞ f(r) dr] with f the density of ‖u‖,
/// u ~ N(0, I_d); log-space Gauss–Legendre on panels of width ≤ 1, the infinite range truncated at T where ∫_T^∞ f ≤ f(T)/(T − (d−1)/T) is below
/// 2^-(wp+20) of the integral. Certified on the precision ladder (each rung converges the
/// quadrature to its own precision).
pub fn rho_bar_quadrature(d: u32, rc: &Scalar, digits: u32) -> Result<Certified> {
    check_dim(d)?;
    positive("rc", rc)?;
    certify(digits, "HMB eq. (74) rho_bar (radial quadrature)", |p| {
        let wp = p + 24;
        let rad = Radial::new(d, wp);
        let rcf = rc.mp(wp);
        // Inner part: ∫_0^{R_c} r² f(r) dr; r^{d+1} e^{−r²/2} has its mode at √(d+1).
        let n_in = rcf.to_f64().ceil().max(1.0) as u32;
        let step = Float::with_val(wp, &rcf / n_in);
        let mut xs: Vec<Float> = (0..n_in).map(|i| Float::with_val(wp, &step * i)).collect();
        xs.push(rcf.clone());
        let inner = panels(&rad, 2, &xs, wp)?;
        // Outer part: ∫_{R_c}^T f(r) dr; r^{d−1} e^{−r²/2} has its mode at √(d−1). T: unit
        // steps beyond max(R_c, mode + 1) until the tail bound is below 2^-(wp+40) of a lower
        // bound on the integral (the first unit panel's value bounds it from below).
        let mode = Float::with_val(wp, d - 1).sqrt();
        let first = panels(
            &rad,
            0,
            &[rcf.clone(), Float::with_val(wp, &rcf + 1u32)],
            wp,
        )?;
        let negligible = Float::with_val(wp, Float::i_exp(1, -(wp as i32) - 40));
        let mut t_end = Float::with_val(wp, &rcf + 1u32);
        let mut steps = 0;
        loop {
            if t_end > Float::with_val(wp, &mode + 1u32) {
                if let Some(tb) = rad.tail_bound(&t_end) {
                    if tb <= Float::with_val(wp, &first * &negligible) {
                        break;
                    }
                }
            }
            t_end += 1u32;
            steps += 1;
            if steps > 1_000_000 {
                return Err(Error::Undefined(
                    "rho_bar quadrature: no truncation point".into(),
                ));
            }
        }
        let n_out = Float::with_val(wp, &t_end - &rcf).to_f64().round() as u32;
        let xs: Vec<Float> = (0..=n_out).map(|i| Float::with_val(wp, &rcf + i)).collect();
        let outer = panels(&rad, 0, &xs, wp)?;
        let total = inner + outer * Float::with_val(wp, rcf.square_ref());
        Ok(Float::with_val(p, total / d))
    })
}

#[cfg(test)]
mod tests {
    use super::{rho, rho_bar, rho_bar_f64, rho_bar_quadrature, Error};
    use crate::bounds::test_support::{agree, s};
    use crate::numeric::mp::agreement_digits;

    /// (d, R_c, ρ̄): mpmath 1.3.0 at dps 60 from gammainc(d/2+1, 0, R_c²/2, regularized=True)
    /// + R_c²/d · gammainc(d/2, R_c²/2, inf, regularized=True); the first is docs/formulas.md §6's value.
    const REFS: &[(u32, &str, &str)] = &[
        (22, "7", "0.999885643307623348490707622363599614583064776"),
        (1, "0.5", "0.185128365146720177681876474315988956715088083"),
        (
            1000,
            "30",
            "0.899848991195811626564592351490735582206011482",
        ),
        (
            1000,
            "31.6",
            "0.981441045021020704384845841320771548741425437",
        ),
        (
            1000,
            "40",
            "0.999999999999999999999999999999990838362131276",
        ),
        (5, "10", "0.999999999999999999978231705018359697864335091"),
        (
            3,
            "0.001",
            "3.33333333297871804896549952299722233273860891e-7",
        ),
        (2, "1", "0.393469340287366576396200465008819546558081865"),
        (7, "2.5", "0.741483281735866753192074548180320328472072848"),
    ];

    #[test]
    fn closed_form_matches_mpmath() {
        for (d, rc, want) in REFS {
            let c = rho_bar(*d, &s(rc), 42).unwrap();
            assert!(agree(&c, want) >= 42.0, "d={d} rc={rc}: {}", c.value);
        }
        // docs/formulas.md §6: ρ̄(22, 7) = 0.99988564330762334849, ρ = 0.49994282165381167425.
        let r = rho(22, &s("7"), 20).unwrap();
        assert!(agree(&r, "0.49994282165381167425") >= 19.5);
        let f = rho_bar_f64(22, 7.0).unwrap();
        assert!((f - 0.999_885_643_307_623_3).abs() < 1e-15);
    }

    #[test]
    fn quadrature_agrees_with_closed_form() {
        for (d, rc, _) in REFS {
            let q = rho_bar_quadrature(*d, &s(rc), 32).unwrap();
            let c = rho_bar(*d, &s(rc), 40).unwrap();
            let a = agreement_digits(&q.value, &c.value);
            assert!(
                a >= 30.0,
                "d={d} rc={rc}: {a:.1} digits ({} vs {})",
                q.value,
                c.value
            );
        }
    }

    #[test]
    fn domain_errors() {
        assert!(matches!(
            rho_bar(0, &s("1"), 20),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            rho_bar(3, &s("0"), 20),
            Err(Error::InvalidParameter { .. })
        ));
        assert!(matches!(
            rho_bar_quadrature(3, &s("-1"), 20),
            Err(Error::InvalidParameter { .. })
        ));
    }
}
