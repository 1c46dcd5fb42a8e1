//! The exact worst case of the Relative Gaussian Mechanism's Rényi divergence over *every* pair of
//! outputs that HMB Def. 2 admits, in closed form (docs/formulas.md §5.4), and its T-fold
//! composition converted to (ε, δ).
//!
//! HMB Theorem 1 (eq. (5)) bounds D_α of the RGM over the admissible pairs; this module computes the
//! supremum itself. With σ² ≥ γR²/η² the divergence of an admissible pair is at most a function of
//! the variance ratio alone, and the supremum over pairs is the larger of two one-variable
//! functions at the extreme ratio (1+η)², approached as both norms grow without bound:
//!
//! * D*(α) = max(g_A, g_B), K = αη²/(2γ), c = η(2+η), L_A = 1 − c(α−1), L_B = 1 + cα;
//! * g_A = K/L_A − d·ln(1+η) − d·ln(L_A)/(2(α−1))  (the output with the larger norm is P);
//! * g_B = K/L_B + d·[2α·ln(1+η) − ln(L_B)]/(2(α−1))  (the larger norm is Q);
//! * D*(α) = +∞ when c(α−1) ≥ 1: Theorem 1's α-range is exactly where the worst case is finite.
//!
//! Theorem 1's mean term K/L_A is attained exactly; its dimension term is an upper bound on the
//! d-terms above (≈ 2αη²d against ≈ αη²d for small η: the factor ½ of HMB App. A.4). Rényi
//! divergences of composed independent releases add, and the adversary may present the worst pair
//! at every step, so the composed worst case is T·D*(α), and Mironov (2017) Prop. 3 converts it to (ε, δ) at any α of
//! the range: [`rgm_worst_case_dp_eps`] certifies that conversion at an α chosen by a search
//! (every α gives a valid guarantee; the search only makes it small).
//!
//! This is the RGM family's own analysis over neighbouring datasets (HMB Lemma 2 / Theorem 1), in
//! its file; training takes it through the family's relative-noise hook (`super::relative`).

use crate::error::{Error, Result};
use crate::numeric::f64s;
use crate::numeric::mp::{certify, Certified};
use crate::scalar::Scalar;
use rug::Float;

const WHAT: &str = "exact worst-case RGM divergence (docs/formulas.md §5.4)";

/// Parameters of an RGM and its relative sensitivity (HMB Def. 2–3), validated for the
/// worst-case formulas: η > 0, γ > 0, σ² ≥ 0, R ≥ 0, all finite, d ≥ 1 and σ² ≥ γR²/η² (the
/// hypothesis of docs/formulas.md §5.4, decided by
/// [`crate::mechanisms::rgm::bounds::theorem1_sigma2_holds_for_all_alpha`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RgmWorstCase {
    eta: Scalar,
    gamma: Scalar,
    d: u32,
}

impl RgmWorstCase {
    /// Validates the parameters (see the type's documentation).
    pub fn new(
        eta: &Scalar,
        gamma: &Scalar,
        sigma2: &Scalar,
        r_rel: &Scalar,
        d: u32,
    ) -> Result<Self> {
        for (name, v, strict) in [
            ("eta", eta, true),
            ("gamma", gamma, true),
            ("sigma2", sigma2, false),
            ("R", r_rel, false),
        ] {
            let x = v.f64();
            if !x.is_finite() || x < 0.0 || (strict && x == 0.0) {
                return Err(Error::invalid(
                    name,
                    v,
                    if strict {
                        "finite and > 0"
                    } else {
                        "finite and >= 0"
                    },
                ));
            }
        }
        if d == 0 {
            return Err(Error::invalid("d", d, ">= 1"));
        }
        // σ² ≥ γR²/η²: the check Theorem 1's noise condition uses (bounds owns it; equality up
        // to the rounding of decimal inputs counts as met, see bounds::ge_tol).
        let (holds, min) = crate::mechanisms::rgm::bounds::theorem1_sigma2_holds_for_all_alpha(
            eta, r_rel, gamma, sigma2,
        );
        if !holds {
            return Err(Error::outside(
                WHAT,
                format!(
                    "sigma2 >= gamma R^2 / eta^2 = {min:e} fails: sigma2 = {sigma2}, gamma = {gamma}, \
                     R = {r_rel}, eta = {eta}"
                ),
            ));
        }
        Ok(RgmWorstCase {
            eta: eta.clone(),
            gamma: gamma.clone(),
            d,
        })
    }

    /// The supremum over admissible pairs of D_α(P ‖ Q), certified to `digits`; +∞ when
    /// η(2+η)(α−1) ≥ 1.
    pub fn renyi(&self, alpha: &Scalar, digits: u32) -> Result<Certified> {
        let a = alpha.f64();
        if !(a.is_finite() && a > 1.0) {
            return Err(Error::invalid("alpha", alpha, "finite and > 1"));
        }
        certify(digits, WHAT, |p| Ok(self.renyi_at(alpha, p)))
    }

    fn renyi_at(&self, alpha: &Scalar, p: u32) -> Float {
        let wp = p + 32;
        let e = self.eta.mp(wp);
        let al = alpha.mp(wp);
        let t = Float::with_val(wp, &al - 1u32);
        let c = Float::with_val(wp, &e * Float::with_val(wp, &e + 2u32));
        let ct = Float::with_val(wp, &c * &t);
        if ct >= 1u32 {
            return Float::with_val(p, f64::INFINITY);
        }
        let k = Float::with_val(wp, &al * Float::with_val(wp, e.square_ref()))
            / (self.gamma.mp(wp) * 2u32);
        let d = Float::with_val(wp, self.d);
        let ln1e = Float::with_val(wp, e.ln_1p_ref());
        let half_over_t = Float::with_val(wp, d.clone() / (t.clone() * 2u32));
        // g_A = K/L_A − d ln(1+η) − d ln(L_A)/(2t), L_A = 1 − ct.
        let la = Float::with_val(wp, 1u32 - &ct);
        let ln_la = Float::with_val(wp, (-ct).ln_1p_ref());
        let ga = Float::with_val(wp, &k / &la)
            - Float::with_val(wp, &d * &ln1e)
            - Float::with_val(wp, &half_over_t * &ln_la);
        // g_B = K/L_B + d [2α ln(1+η) − ln(L_B)]/(2t), L_B = 1 + cα.
        let ca = Float::with_val(wp, &c * &al);
        let lb = Float::with_val(wp, &ca + 1u32);
        let ln_lb = Float::with_val(wp, ca.ln_1p_ref());
        let gb = Float::with_val(wp, &k / &lb)
            + half_over_t * (Float::with_val(wp, &al * &ln1e) * 2u32 - ln_lb);
        Float::with_val(p, if ga >= gb { ga } else { gb })
    }

    /// Double-precision D*(α) for searches (not certified; +∞ outside the range).
    fn renyi_f64(&self, alpha: f64) -> f64 {
        let (e, g, d) = (self.eta.f64(), self.gamma.f64(), f64::from(self.d));
        let t = alpha - 1.0;
        let c = e * (2.0 + e);
        if c * t >= 1.0 {
            return f64::INFINITY;
        }
        let k = alpha * e * e / (2.0 * g);
        let ln1e = e.ln_1p();
        let ga = k / (1.0 - c * t) - d * ln1e - d * (-c * t).ln_1p() / (2.0 * t);
        let gb = k / (1.0 + c * alpha) + d * (2.0 * alpha * ln1e - (c * alpha).ln_1p()) / (2.0 * t);
        ga.max(gb)
    }

    /// The largest finite order: α < 1 + 1/(η(2+η)).
    fn alpha_sup(&self) -> f64 {
        let e = self.eta.f64();
        1.0 + 1.0 / (e * (2.0 + e))
    }
}

/// Convenience: [`RgmWorstCase::new`] then [`RgmWorstCase::renyi`].
pub fn rgm_worst_case_renyi(
    eta: &Scalar,
    gamma: &Scalar,
    sigma2: &Scalar,
    r_rel: &Scalar,
    d: u32,
    alpha: &Scalar,
    digits: u32,
) -> Result<Certified> {
    RgmWorstCase::new(eta, gamma, sigma2, r_rel, d)?.renyi(alpha, digits)
}

/// The (ε, δ) guarantee of `steps` composed RGM releases from their exact worst-case RDP:
/// ε = T·D*(α) + ln(1/δ)/(α−1) (Mironov 2017, Prop. 3) at an order α chosen by a golden-section
/// search on ln(α−1) in double precision, then certified to `digits` at that α (stored as the
/// double the search returned). Returns (ε, α). Any α of the range gives a valid guarantee.
pub fn rgm_worst_case_dp_eps(
    wc: &RgmWorstCase,
    steps: u32,
    delta: &Scalar,
    digits: u32,
) -> Result<(Certified, f64)> {
    let dl = delta.open_unit_double("delta")?;
    if steps == 0 {
        return Err(Error::invalid("steps", steps, ">= 1"));
    }
    let tf = f64::from(steps);
    let l = -dl.ln();
    let objective = |lt: f64| {
        let t = lt.exp();
        tf * wc.renyi_f64(1.0 + t) + l / t
    };
    let hi = (wc.alpha_sup() - 1.0).ln() - 1e-12;
    let lo = hi.min(0.0) - 40.0;
    let (lt, _) = f64s::golden_section(objective, lo, hi, 1e-10, 400);
    let alpha = 1.0 + lt.exp();
    if !(alpha > 1.0 && alpha < wc.alpha_sup()) {
        return Err(Error::Undefined(format!(
            "{WHAT}: no order inside (1, {}) found",
            wc.alpha_sup()
        )));
    }
    let al = Scalar::from(alpha);
    let eps = certify(
        digits,
        "RDP of the exact worst case converted (Mironov Prop. 3)",
        |p| {
            let wp = p + 32;
            let dstar = wc.renyi_at(&al, wp);
            let lnd = delta.mp(wp).recip().ln();
            let t = Float::with_val(wp, al.mp(wp) - 1u32);
            Ok(Float::with_val(p, dstar * steps + lnd / t))
        },
    )?;
    Ok((eps, alpha))
}
