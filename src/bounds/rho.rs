//! HMB's ρ̄(d, R_c) (eq. (74)) and ρ = ρ̄/2 (eq. (12)): the factor by which clipping Gaussian
//! features at Mahalanobis radius R_c shrinks their covariance (HMB Appendix B, Prop. 3).
//!
//! ρ̄(d, R_c) = 1/(d(2π)^{d/2}) ∫_{ℝ^d} min(‖u‖², R_c²) e^{−‖u‖²/2} du = E[min(χ²_d, R_c²)]/d.
//!
//! Two independent routes:
//! * [`rho_bar`]: closed form through x f_{χ²_d}(x) = d f_{χ²_{d+2}}(x) (MATH.md §6):
//!   ρ̄ = P(d/2+1, R_c²/2) + (R_c²/d) Q(d/2, R_c²/2), with the cancellation-free incomplete gamma
//!   functions of [`crate::numeric::chi2`] (Q taken directly, never 1 − P);
//! * [`rho_bar_quadrature`]: the radial integral
//!   ρ̄ = (1/d)[∫_0^{R_c} r² f(r) dr + R_c² ∫_{R_c}^∞ f(r) dr], f(r) = r^{d−1}e^{−r²/2}/(2^{d/2−1}Γ(d/2)),
//!   by composite tanh–sinh quadrature written here (unit panels, the infinite tail truncated
//!   with an explicit bound). It shares no formula with the closed form beyond f.

use super::{dim, positive};
use crate::error::{Error, Result};
use crate::numeric::chi2::{gamma_p_half, gamma_q_half};
use crate::numeric::mp::{certify, Certified};
use crate::scalar::Scalar;
use rug::float::Constant;
use rug::Float;

/// HMB eq. (74) in closed form: ρ̄(d, R_c) = P(d/2+1, R_c²/2) + (R_c²/d) Q(d/2, R_c²/2)
/// (MATH.md §6). ρ̄ ∈ (0, 1], ≈ R_c²/d for R_c² ≪ d, → 1 as R_c → ∞.
pub fn rho_bar(d: u32, rc: &Scalar, digits: u32) -> Result<Certified> {
    dim(d)?;
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
pub fn rho_bar_f64(d: u32, rc: f64) -> Result<f64> {
    dim(d)?;
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

    /// r^{extra} f(r), r > 0.
    fn eval(&self, r: &Float, extra: u32) -> Float {
        let wp = r.prec();
        let pow = self.d - 1 + extra;
        let mut l =
            Float::with_val(wp, &self.log_norm) - Float::with_val(wp, r.square_ref()) / 2u32;
        if pow > 0 {
            l += Float::with_val(wp, r.ln_ref()) * pow;
        }
        l.exp()
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

/// tanh–sinh quadrature of `f` over [a, b] (finite) at precision `wp`: levels h = 2^-k until two
/// successive levels agree to 2^-(wp−12) relative, or `abs_tol` absolute. Nodes are placed by
/// their distance to the nearer endpoint, (b−a)/(1+e^{2|s|}) with s = (π/2) sinh t, so no
/// precision is lost near the ends.
fn tanh_sinh<F: Fn(&Float) -> Float>(
    f: &F,
    a: &Float,
    b: &Float,
    wp: u32,
    abs_tol: &Float,
) -> Result<Float> {
    let pi_half = Float::with_val(wp, Constant::Pi) / 2u32;
    let half_len = Float::with_val(wp, b - a) / 2u32;
    let len = Float::with_val(wp, b - a);
    // t_max with (π/2) sinh t_max = 2 (wp + 40) ln 2: weights beyond are < 2^-(4 wp)
    let t_max = (2.0 * (f64::from(wp) + 40.0) * std::f64::consts::LN_2
        / std::f64::consts::FRAC_PI_2)
        .asinh();
    // contribution of node t (and its mirror −t): weight·(f(left node) + f(right node))
    let pair = |t: &Float| -> Float {
        let sh = Float::with_val(wp, t.sinh_ref());
        let ch = Float::with_val(wp, t.cosh_ref());
        let s = Float::with_val(wp, &pi_half * &sh);
        // distance to the nearer endpoint for node at +t: (b−a)/(1+e^{2s})
        let e2s = Float::with_val(wp, Float::with_val(wp, &s * 2u32).exp());
        let dist = Float::with_val(wp, &len / Float::with_val(wp, &e2s + 1u32));
        // weight: (b−a)/2 · (π/2) cosh t / cosh²(s)
        let cs = Float::with_val(wp, s.cosh_ref());
        let w = Float::with_val(wp, &half_len * &pi_half) * ch / cs.square();
        let right = Float::with_val(wp, b - &dist);
        let left = Float::with_val(wp, a + &dist);
        if t.is_zero() {
            w * f(&right)
        } else {
            w * (f(&right) + f(&left))
        }
    };
    // level 0: h = 1, t = 0, 1, 2, …
    let mut h = Float::with_val(wp, 1u32);
    let mut sum = Float::new(wp);
    let mut j = 0u32;
    loop {
        let t = Float::with_val(wp, j);
        if t.to_f64() > t_max {
            break;
        }
        sum += pair(&t);
        j += 1;
    }
    let mut prev = Float::with_val(wp, &sum * &h);
    let tol_rel = Float::with_val(wp, Float::i_exp(1, 12 - wp as i32));
    for _level in 1..=16 {
        h /= 2u32;
        // add the odd multiples of the new h
        let mut k = 1u32;
        loop {
            let t = Float::with_val(wp, &h * k);
            if t.to_f64() > t_max {
                break;
            }
            sum += pair(&t);
            k += 2;
        }
        let cur = Float::with_val(wp, &sum * &h);
        let diff = Float::with_val(wp, &cur - &prev).abs();
        let scale = Float::with_val(wp, cur.abs_ref());
        if diff <= Float::with_val(wp, &scale * &tol_rel) || diff <= *abs_tol {
            return Ok(cur);
        }
        prev = cur;
    }
    Err(Error::Precision {
        requested: wp,
        certified: 0,
        what: "tanh-sinh quadrature did not converge in 16 levels".into(),
    })
}

/// HMB eq. (74) by direct radial quadrature (independent of [`rho_bar`]):
/// ρ̄ = (1/d)[∫_0^{R_c} r² f(r) dr + R_c² ∫_{R_c}^∞ f(r) dr] with f the density of ‖u‖,
/// u ~ N(0, I_d); composite tanh–sinh on panels of width ≤ 1, the tail truncated where the bound
/// ∫_T^∞ f ≤ f(T)/(T − (d−1)/T) falls below 2^-(wp+20) of the accumulated integral. Certified on
/// the precision ladder (each rung converges the quadrature to its own precision).
pub fn rho_bar_quadrature(d: u32, rc: &Scalar, digits: u32) -> Result<Certified> {
    dim(d)?;
    positive("rc", rc)?;
    certify(digits, "HMB eq. (74) rho_bar (radial quadrature)", |p| {
        let wp = p + 24;
        let rad = Radial::new(d, wp);
        let rcf = rc.mp(wp);
        let negligible = Float::with_val(wp, Float::i_exp(1, -(wp as i32) - 20));
        // Inner part: ∫_0^{R_c} r² f(r) dr on unit panels.
        let n_in = rcf.to_f64().ceil().max(1.0) as u32;
        let step = Float::with_val(wp, &rcf / n_in);
        let g2 = |r: &Float| rad.eval(r, 2);
        let mut inner = Float::new(wp);
        // Absolute tolerance per panel: relative to E[min(χ², R_c²)] ≥ tiny; panels far below the
        // peak converge in the first levels anyway, so use 0 (pure relative criterion).
        let zero = Float::new(wp);
        for i in 0..n_in {
            let a = Float::with_val(wp, &step * i);
            let b = if i + 1 == n_in {
                rcf.clone()
            } else {
                Float::with_val(wp, &step * (i + 1))
            };
            inner += tanh_sinh(&g2, &a, &b, wp, &zero)?;
        }
        // Outer part: ∫_{R_c}^∞ f(r) dr, unit panels until the tail bound is negligible.
        let g0 = |r: &Float| rad.eval(r, 0);
        let mut outer = Float::new(wp);
        let mut a = rcf.clone();
        let mode = f64::from(d - 1).sqrt();
        for _ in 0..100_000 {
            let b = Float::with_val(wp, &a + 1u32);
            outer += tanh_sinh(&g0, &a, &b, wp, &zero)?;
            a = b;
            if a.to_f64() > mode + 1.0 {
                if let Some(tb) = rad.tail_bound(&a) {
                    if tb <= Float::with_val(wp, &outer * &negligible) {
                        break;
                    }
                }
            }
        }
        let total = inner + outer * Float::with_val(wp, rcf.square_ref());
        Ok(Float::with_val(p, total / d))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::mp::agreement_digits;

    fn s(x: &str) -> Scalar {
        x.parse().unwrap()
    }
    fn agree(c: &Certified, want: &str) -> f64 {
        agreement_digits(
            &c.value,
            &Float::with_val(c.value.prec(), Float::parse(want).unwrap()),
        )
    }

    /// (d, R_c, ρ̄): mpmath 1.3.0 at dps 60 from gammainc(d/2+1, 0, R_c²/2, regularized=True)
    /// + R_c²/d · gammainc(d/2, R_c²/2, inf, regularized=True); the first is MATH.md §6's value.
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
        // MATH.md §6: ρ̄(22, 7) = 0.99988564330762334849, ρ = 0.49994282165381167425.
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
