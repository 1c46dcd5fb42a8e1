//! Bounds for the Relative Gaussian Mechanism of Hendrikx, Mangold & Bellet (AISTATS 2024,
//! "HMB"): RGM_{γ,σ}(R)(x) = R(x) + N(0, (γ‖R(x)‖² + σ²) I_d) (HMB Def. 3, eq. (4)) for queries
//! with (η, R_rel)-relative L2 sensitivity (HMB Def. 2, eq. (3)).
//!
//! Contents (docs/formulas.md §5):
//! * [`relative_sensitivity_holds`]: Def. 2, eq. (3), in its symmetric form;
//! * [`lemma1_ratio_bounds`], [`lemma1_sigma2_min`], [`check_lemma1_setup`]: HMB Lemma 1;
//! * [`theorem1_eps`] (eq. (5)), [`theorem1_alpha_sup`], [`theorem1_sigma2_min`],
//!   [`check_theorem1_setup`]: HMB Theorem 1 and its two conditions;
//! * [`eq6_eps`]: HMB eq. (6) (Theorem 1 with γ = αη²/(2ε⋆), σ² = γη⁻²R²);
//! * [`corollary1_eps`]: HMB Corollary 1, eq. (44), with its validity condition;
//! * [`optimized_dp_eps`]: HMB eq. (45) minimised over α in closed form (docs/formulas.md §5.3);
//! * `tcdp`: the truncated-CDP forms of HMB §4.1 and Appendix A.6.
//!
//! Arguments come in one order throughout, so that no two same-typed parameters trade places
//! between functions: η and R_rel (the query's relative sensitivity), then γ and σ² (the noise),
//! then d, then α or δ, then the digits.
//!
//! Conditions are checked at ≥ 320 bits on the exact parameters; violations return
//! [`Error::OutsideValidity`] naming the theorem and the inequality with its values.

use crate::bounds::{
    alpha_above_one, check_prec, f64chk, ge_tol, lt_strict, nonnegative, positive, show,
};
use crate::error::{check_dim, Error, Result};
use crate::numeric::mp::{certify, Certified};
use crate::scalar::Scalar;
use rug::Float;

const THM1: &str = "HMB Theorem 1, eq. (5)";
const THM1_SIGMA: &str = "HMB Theorem 1 (sigma^2 condition)";
const LEMMA1: &str = "HMB Lemma 1";
const EQ6: &str = "HMB eq. (6)";
const COR1: &str = "HMB Corollary 1, eq. (44)";
const EQ45: &str = "HMB eq. (45) (Mironov Prop. 3 applied to Theorem 1)";

/// c = η(2+η) at the precision of `eta`.
fn c_of(eta: &Float) -> Float {
    let p = eta.prec();
    Float::with_val(p, eta * Float::with_val(p, eta + 2u32))
}

/// D = d (2+η)² (1+η)² at the precision of `eta`: the dimension factor of eq. (5).
fn dim_factor(eta: &Float, d: u32) -> Float {
    let p = eta.prec();
    let a = Float::with_val(p, eta + 2u32).square();
    let b = Float::with_val(p, eta + 1u32).square();
    a * b * d
}

/// Checks the α-range of Theorem 1: α > 1 and η(2+η)(α−1) < 1, i.e.
/// α < (1+η)²/(2η+η²) (HMB Theorem 1; eqs. (14)–(15)).
fn check_alpha_range(eta: &Scalar, alpha: &Scalar, theorem: &str) -> Result<()> {
    alpha_above_one(alpha)?;
    let p = check_prec(0);
    let e = eta.mp(p);
    let a = alpha.mp(p);
    let lhs = Float::with_val(p, c_of(&e) * Float::with_val(p, &a - 1u32));
    let one = Float::with_val(p, 1u32);
    if lt_strict(&lhs, &one) {
        Ok(())
    } else {
        let sup = Float::with_val(p, Float::with_val(p, &e + 1u32).square() / c_of(&e));
        Err(Error::outside(
            theorem,
            format!(
                "eta(2+eta)(alpha-1) < 1, i.e. alpha < (1+eta)^2/(2 eta + eta^2) = {}: \
                 eta = {eta}, alpha = {alpha}, eta(2+eta)(alpha-1) = {}",
                show(&sup),
                show(&lhs)
            ),
        ))
    }
}

/// HMB Def. 2, eq. (3), in the symmetric form the paper notes below it: a pair of outputs with
/// norms n1 = ‖R(x)‖, n2 = ‖R(y)‖ at distance `dist` = ‖R(x) − R(y)‖ is admissible iff
/// dist² ≤ η² min(n1², n2²) + R_rel² (both directions of eq. (3)). Decided at 320 bits with
/// equality up to rounding counted as admissible. Returns `false` for negative or non-finite
/// inputs (never panics).
pub fn relative_sensitivity_holds(
    eta: &Scalar,
    r_rel: &Scalar,
    n1: &Scalar,
    n2: &Scalar,
    dist: &Scalar,
) -> bool {
    if nonnegative("eta", eta).is_err()
        || nonnegative("r_rel", r_rel).is_err()
        || nonnegative("n1", n1).is_err()
        || nonnegative("n2", n2).is_err()
        || nonnegative("dist", dist).is_err()
    {
        return false;
    }
    let p = check_prec(0);
    let (a, b) = (n1.mp(p), n2.mp(p));
    let m = if a < b { a } else { b };
    let rhs = Float::with_val(p, eta.mp(p).square() * m.square()) + r_rel.mp(p).square();
    let lhs = dist.mp(p).square();
    ge_tol(&rhs, &lhs)
}

/// HMB Def. 2, eq. (3) as a check: η and R finite and ≥ 0, and
/// ‖r1 − r2‖² ≤ η² min(‖r1‖², ‖r2‖²) + R² (decided by [`relative_sensitivity_holds`]); on failure
/// [`Error::OutsideValidity`] quoting the values.
pub(crate) fn check_relative_sensitivity(
    eta: &Scalar,
    r_rel: &Scalar,
    n1: &Scalar,
    n2: &Scalar,
    dist: &Scalar,
) -> Result<()> {
    for (name, v) in [("eta", eta), ("R", r_rel)] {
        if !(v.f64().is_finite() && v.f64() >= 0.0) {
            return Err(Error::invalid(name, v, "finite and >= 0"));
        }
    }
    if relative_sensitivity_holds(eta, r_rel, n1, n2, dist) {
        return Ok(());
    }
    Err(Error::outside(
        "HMB Def. 2, eq. (3) (relative L2 sensitivity)",
        format!(
            "dist^2 <= eta^2 min(n1^2, n2^2) + R^2 fails for dist = {dist}, n1 = {n1}, n2 = {n2}, \
             eta = {eta}, R = {r_rel}"
        ),
    ))
}

/// Whether σ² meets HMB Theorem 1's noise condition σ² ≥ γ η⁻² [1 − η(α − 1)] R² at every α of
/// its range, i.e. σ² ≥ γ R²/η² (the α = 1 end), with the same decimal-rounding tolerance as
/// every other validity check here. Returns the minimum as well, for messages.
pub fn theorem1_sigma2_holds_for_all_alpha(
    eta: &Scalar,
    r_rel: &Scalar,
    gamma: &Scalar,
    sigma2: &Scalar,
) -> (bool, f64) {
    let p = check_prec(0);
    let min = Float::with_val(p, gamma.mp(p) * r_rel.mp(p).square()) / eta.mp(p).square();
    (ge_tol(&sigma2.mp(p), &min), min.to_f64())
}

/// HMB Lemma 1: the bounds (1+η)⁻², (1+η)² on the variance ratio
/// (γ‖R(x)‖²+σ²)/(γ‖R(y)‖²+σ²) that hold when σ² ≥ [`lemma1_sigma2_min`].
pub fn lemma1_ratio_bounds(eta: &Scalar, digits: u32) -> Result<(Certified, Certified)> {
    positive("eta", eta)?;
    let lo = certify(digits, "HMB Lemma 1 lower ratio", |p| {
        let e = eta.mp(p + 16);
        Ok(Float::with_val(p, (e + 1u32).square().recip()))
    })?;
    let hi = certify(digits, "HMB Lemma 1 upper ratio", |p| {
        let e = eta.mp(p + 16);
        Ok(Float::with_val(p, (e + 1u32).square()))
    })?;
    Ok((lo, hi))
}

/// The domain of the noise conditions (Lemma 1, Theorem 1): η > 0, γ > 0, R_rel ≥ 0.
fn noise_domain(eta: &Scalar, gamma: &Scalar, r_rel: &Scalar) -> Result<()> {
    positive("eta", eta)?;
    positive("gamma", gamma)?;
    nonnegative("r_rel", r_rel).map(|_| ())
}

/// HMB Lemma 1's condition: the minimal baseline variance σ² = γ(1+η⁻¹)R_rel²/(2η+η²)
/// (= γR²/η² · (1+η)/(2+η), HMB eq. (16)).
pub fn lemma1_sigma2_min(
    eta: &Scalar,
    r_rel: &Scalar,
    gamma: &Scalar,
    digits: u32,
) -> Result<Certified> {
    noise_domain(eta, gamma, r_rel)?;
    certify(digits, "HMB Lemma 1 sigma^2 minimum", |p| {
        let wp = p + 16;
        let e = eta.mp(wp);
        let num = Float::with_val(
            wp,
            gamma.mp(wp) * (Float::with_val(wp, e.recip_ref()) + 1u32),
        ) * r_rel.mp(wp).square();
        Ok(Float::with_val(p, num / c_of(&e)))
    })
}

/// Checks Lemma 1's condition σ² ≥ γ(1+η⁻¹)R_rel²/(2η+η²) for a setup; on failure returns
/// [`Error::OutsideValidity`] quoting both sides.
pub fn check_lemma1_setup(
    eta: &Scalar,
    r_rel: &Scalar,
    gamma: &Scalar,
    sigma2: &Scalar,
) -> Result<()> {
    nonnegative("sigma2", sigma2)?;
    let min = lemma1_sigma2_min(eta, r_rel, gamma, 40)?;
    let s2 = sigma2.mp(min.value.prec());
    if ge_tol(&s2, &min.value) {
        Ok(())
    } else {
        Err(Error::outside(
            LEMMA1,
            format!(
                "sigma^2 >= gamma (1 + 1/eta) R^2 / (2 eta + eta^2) = {}: sigma^2 = {sigma2}",
                show(&min.value)
            ),
        ))
    }
}

/// The supremum (1+η)²/(2η+η²) of the α-range of HMB Theorem 1 (excluded: the bound (5) is
/// infinite there).
pub fn theorem1_alpha_sup(eta: &Scalar, digits: u32) -> Result<Certified> {
    positive("eta", eta)?;
    certify(digits, "HMB Theorem 1 alpha supremum", |p| {
        let e = eta.mp(p + 16);
        Ok(Float::with_val(
            p,
            Float::with_val(p + 16, &e + 1u32).square() / c_of(&e),
        ))
    })
}

/// HMB Theorem 1's condition on the baseline noise: the minimal
/// σ² = γ η⁻² [1 − η(α−1)] R_rel². Checks the α-range first (it also guarantees Lemma 1's
/// condition, HMB eq. (17)).
pub fn theorem1_sigma2_min(
    eta: &Scalar,
    r_rel: &Scalar,
    gamma: &Scalar,
    alpha: &Scalar,
    digits: u32,
) -> Result<Certified> {
    noise_domain(eta, gamma, r_rel)?;
    check_alpha_range(eta, alpha, THM1)?;
    certify(digits, "HMB Theorem 1 sigma^2 minimum", |p| {
        let wp = p + 16;
        let e = eta.mp(wp);
        let am1 = Float::with_val(wp, alpha.mp(wp) - 1u32);
        let bracket = Float::with_val(wp, 1u32 - Float::with_val(wp, &e * &am1));
        let v =
            gamma.mp(wp) / Float::with_val(wp, e.square_ref()) * bracket * r_rel.mp(wp).square();
        Ok(Float::with_val(p, v))
    })
}

/// Checks a full Theorem 1 setup (η, R_rel, γ, σ², α): the domain (η, γ, σ² > 0, R_rel ≥ 0,
/// α > 1), the α-range η(2+η)(α−1) < 1, the σ² condition σ² ≥ γη⁻²[1−η(α−1)]R_rel², and
/// Lemma 1's condition (implied by the others, HMB eq. (17); checked anyway).
pub fn check_theorem1_setup(
    eta: &Scalar,
    r_rel: &Scalar,
    gamma: &Scalar,
    sigma2: &Scalar,
    alpha: &Scalar,
) -> Result<()> {
    nonnegative("sigma2", sigma2)?;
    let min = theorem1_sigma2_min(eta, r_rel, gamma, alpha, 40)?;
    let s2 = sigma2.mp(min.value.prec());
    if !ge_tol(&s2, &min.value) {
        return Err(Error::outside(
            THM1_SIGMA,
            format!(
                "sigma^2 >= gamma eta^-2 [1 - eta(alpha-1)] R^2 = {}: sigma^2 = {sigma2} \
                 (eta = {eta}, gamma = {gamma}, alpha = {alpha}, R = {r_rel})",
                show(&min.value)
            ),
        ));
    }
    check_lemma1_setup(eta, r_rel, gamma, sigma2)
}

/// HMB Theorem 1, eq. (5): RGM_{γ,σ} is (α, ε)-RDP with
/// ε = αη²/(2γ) · [1 + γ d (2+η)²(1+η)²] / [1 − η(α−1)(2+η)],
/// for 1 < α < (1+η)²/(2η+η²) (checked) and σ² ≥ γη⁻²[1−η(α−1)]R_rel² (not a parameter here:
/// check it with [`check_theorem1_setup`]).
pub fn theorem1_eps(
    eta: &Scalar,
    gamma: &Scalar,
    d: u32,
    alpha: &Scalar,
    digits: u32,
) -> Result<Certified> {
    mechanism_domain(eta, gamma, d)?;
    check_alpha_range(eta, alpha, THM1)?;
    certify(digits, THM1, |p| {
        let wp = p + 16;
        let (e, g, a) = (eta.mp(wp), gamma.mp(wp), alpha.mp(wp));
        let num = Float::with_val(wp, &g * dim_factor(&e, d)) + 1u32;
        let den = 1u32 - Float::with_val(wp, c_of(&e) * Float::with_val(wp, &a - 1u32));
        let lead = Float::with_val(wp, &a * Float::with_val(wp, e.square_ref())) / (g * 2u32);
        Ok(Float::with_val(p, lead * num / den))
    })
}

/// η > 0, γ > 0 and d ≥ 1, checked in that order (η before γ, as the messages have always
/// reported them).
fn mechanism_domain(eta: &Scalar, gamma: &Scalar, d: u32) -> Result<()> {
    positive("eta", eta)?;
    positive("gamma", gamma)?;
    check_dim(d)
}

/// [`mechanism_domain`] for the double-precision fast paths.
fn mechanism_domain_f64(eta: f64, gamma: f64, d: u32) -> Result<()> {
    f64chk::positive("eta", eta)?;
    f64chk::positive("gamma", gamma)?;
    check_dim(d)
}

/// The domain shared by Theorem 1's eq. (5) and eq. (6): η > 0, d ≥ 1, and α inside
/// the theorem's range (`what` names the result in the error).
fn eq5_domain(eta: &Scalar, d: u32, alpha: &Scalar, what: &str) -> Result<()> {
    positive("eta", eta)?;
    check_dim(d)?;
    check_alpha_range(eta, alpha, what)
}

/// Double-precision fast path of [`theorem1_eps`] (same checks, for plots).
pub fn theorem1_eps_f64(eta: f64, gamma: f64, d: u32, alpha: f64) -> Result<f64> {
    mechanism_domain_f64(eta, gamma, d)?;
    f64chk::alpha(alpha)?;
    let c = eta * (2.0 + eta);
    let den = 1.0 - c * (alpha - 1.0);
    if den <= 0.0 {
        return Err(Error::outside(
            THM1,
            format!(
                "eta(2+eta)(alpha-1) < 1: eta = {eta}, alpha = {alpha}, eta(2+eta)(alpha-1) = {}",
                c * (alpha - 1.0)
            ),
        ));
    }
    let df = f64::from(d) * (2.0 + eta).powi(2) * (1.0 + eta).powi(2);
    Ok(alpha * eta * eta / (2.0 * gamma) * (1.0 + gamma * df) / den)
}

/// HMB eq. (6): the RDP ε of the RGM when γ = αη²/(2ε⋆) and σ² = γη⁻²R_rel² (noise set as if
/// the relative bound were a local sensitivity for a target ε⋆):
/// ε = ε⋆/(1 − η(α−1)(2+η)) + α d η²(2+η)²(1+η)² / (2(1 − η(α−1)(2+η))).
/// Same α-range as Theorem 1 (checked).
pub fn eq6_eps(
    eps_star: &Scalar,
    eta: &Scalar,
    d: u32,
    alpha: &Scalar,
    digits: u32,
) -> Result<Certified> {
    positive("eps_star", eps_star)?;
    eq5_domain(eta, d, alpha, EQ6)?;
    certify(digits, EQ6, |p| {
        let wp = p + 16;
        let (e, es, a) = (eta.mp(wp), eps_star.mp(wp), alpha.mp(wp));
        let den = 1u32 - Float::with_val(wp, c_of(&e) * Float::with_val(wp, &a - 1u32));
        let t1 = Float::with_val(wp, &es / &den);
        let t2 = Float::with_val(wp, &a * Float::with_val(wp, e.square_ref())) * dim_factor(&e, d)
            / (den * 2u32);
        Ok(Float::with_val(p, t1 + t2))
    })
}

/// χ = η²/γ + η² d (2+η)²(1+η)² (HMB Corollary 1) at the precision of `e`.
fn chi_of(e: &Float, g: &Float, d: u32) -> Float {
    let p = e.prec();
    let e2 = Float::with_val(p, e.square_ref());
    Float::with_val(p, &e2 / g) + e2 * dim_factor(e, d)
}

/// Checks Corollary 1's stated assumption: 1/γ ≥ 4(2+η)² log(1/δ) or d ≥ 4 log(1/δ)/(1+η)².
fn check_corollary1(eta: &Scalar, gamma: &Scalar, d: u32, delta: &Scalar) -> Result<()> {
    let p = check_prec(0);
    let (e, g) = (eta.mp(p), gamma.mp(p));
    let l = Float::with_val(p, delta.mp(p).recip().ln());
    let inv_g = Float::with_val(p, g.recip_ref());
    let rhs1 = Float::with_val(p, Float::with_val(p, &e + 2u32).square() * &l) * 4u32;
    let d_f = Float::with_val(p, d);
    let rhs2 = Float::with_val(p, &l * 4u32) / Float::with_val(p, &e + 1u32).square();
    if ge_tol(&inv_g, &rhs1) || ge_tol(&d_f, &rhs2) {
        Ok(())
    } else {
        Err(Error::outside(
            COR1,
            format!(
                "1/gamma >= 4(2+eta)^2 log(1/delta) or d >= 4 log(1/delta)/(1+eta)^2: \
                 1/gamma = {} < {}, and d = {d} < {} (eta = {eta}, gamma = {gamma}, delta = {delta})",
                show(&inv_g),
                show(&rhs1),
                show(&rhs2)
            ),
        ))
    }
}

/// HMB Corollary 1, eq. (44): RGM_{γ,σ} is (ε, δ)-DP with ε = χ + 2√(χ log(1/δ)),
/// χ = η²/γ + η² d (2+η)²(1+η)², under the stated assumption
/// 1/γ ≥ 4(2+η)² log(1/δ) or d ≥ 4 log(1/δ)/(1+η)² (checked) and Theorem 1's σ² condition.
///
/// The proof (HMB eq. (48)) only needs the weaker 1/(4γ(2+η)²) + (1+η)²d/4 ≥ log(1/δ); the
/// check enforces the assumption as the corollary states it. δ must lie in (0, 1) (δ = 1 is
/// allowed by the paper but trivial).
///
/// Paper example (η = 10⁻³, d = 10, δ = 10⁻⁸, γ = 100η²): ε = 0.870146735723185…; the paper
/// prints "ε ≈ 0.86", which is the 2√(χ log(1/δ)) = 0.8601… term alone (docs/formulas.md §5.3). The
/// last line of HMB (47) also misprints 2√(χ log(1/δ)) as 2√χ log(1/δ).
pub fn corollary1_eps(
    eta: &Scalar,
    gamma: &Scalar,
    d: u32,
    delta: &Scalar,
    digits: u32,
) -> Result<Certified> {
    mechanism_domain(eta, gamma, d)?;
    delta.open_unit("delta")?;
    check_corollary1(eta, gamma, d, delta)?;
    certify(digits, COR1, |p| {
        let wp = p + 16;
        let chi = chi_of(&eta.mp(wp), &gamma.mp(wp), d);
        let l = Float::with_val(wp, delta.mp(wp).recip().ln());
        let root = Float::with_val(wp, &chi * &l).sqrt();
        Ok(Float::with_val(p, chi + root * 2u32))
    })
}

/// Double-precision fast path of [`corollary1_eps`] (same checks at double precision).
pub(crate) fn corollary1_eps_f64(eta: f64, gamma: f64, d: u32, delta: f64) -> Result<f64> {
    mechanism_domain_f64(eta, gamma, d)?;
    f64chk::delta(delta)?;
    let l = -delta.ln();
    let ok1 = 1.0 / gamma >= 4.0 * (2.0 + eta).powi(2) * l;
    let ok2 = f64::from(d) >= 4.0 * l / (1.0 + eta).powi(2);
    if !(ok1 || ok2) {
        return Err(Error::outside(
            COR1,
            format!(
                "1/gamma >= 4(2+eta)^2 log(1/delta) or d >= 4 log(1/delta)/(1+eta)^2: \
                 eta = {eta}, gamma = {gamma}, d = {d}, delta = {delta}"
            ),
        ));
    }
    let chi =
        eta * eta / gamma + eta * eta * f64::from(d) * (2.0 + eta).powi(2) * (1.0 + eta).powi(2);
    Ok(chi + 2.0 * (chi * l).sqrt())
}

/// t* = √L / (√(K(1+c)) + c√L) with K = χ/2, c = η(2+η), L = log(1/δ) (docs/formulas.md §5.3).
fn t_star(e: &Float, g: &Float, d: u32, l: &Float) -> (Float, Float, Float) {
    let p = e.prec();
    let k = chi_of(e, g, d) / 2u32;
    let c = c_of(e);
    let sl = Float::with_val(p, l.sqrt_ref());
    let a = Float::with_val(p, &k * Float::with_val(p, &c + 1u32)).sqrt();
    let t = Float::with_val(p, &sl / (a + Float::with_val(p, &c * &sl)));
    (t, k, c)
}

/// HMB eq. (45) minimised over α in closed form: with g(α) = ε(α) + log(1/δ)/(α−1) (ε(α) of
/// Theorem 1, eq. (5); Mironov 2017 Prop. 3), K = χ/2, c = η(2+η), L = log(1/δ) and t = α−1,
/// g′ = 0 at t* = √L/(√(K(1+c)) + c√L), which lies inside Theorem 1's range t < 1/c for every
/// δ ∈ (0, 1); the minimum is ε₄₅ = K(1+t*)/(1−ct*) + L/t* (docs/formulas.md §5.3; g is convex in t).
/// Returns (ε₄₅, α* = 1 + t*). Theorem 1's σ² condition must hold at α*; σ² ≥ γR²/η² suffices
/// for every α.
///
/// Paper example (η = 10⁻³, d = 10, δ = 10⁻⁸, γ = 10⁻⁴): ε₄₅ = 0.650675249883417817… at
/// α* = 54.978832699664917814…, against 0.8701… from Corollary 1.
pub fn optimized_dp_eps(
    eta: &Scalar,
    gamma: &Scalar,
    d: u32,
    delta: &Scalar,
    digits: u32,
) -> Result<(Certified, Certified)> {
    mechanism_domain(eta, gamma, d)?;
    delta.open_unit("delta")?;
    let eps = certify(digits, EQ45, |p| {
        let wp = p + 16;
        let e = eta.mp(wp);
        let l = Float::with_val(wp, delta.mp(wp).recip().ln());
        let (t, k, c) = t_star(&e, &gamma.mp(wp), d, &l);
        let den = 1u32 - Float::with_val(wp, &c * &t);
        let v = k * Float::with_val(wp, &t + 1u32) / den + l / t;
        Ok(Float::with_val(p, v))
    })?;
    let alpha = certify(digits, "HMB eq. (45) optimal alpha", |p| {
        let wp = p + 16;
        let l = Float::with_val(wp, delta.mp(wp).recip().ln());
        let (t, _, _) = t_star(&eta.mp(wp), &gamma.mp(wp), d, &l);
        Ok(Float::with_val(p, t + 1u32))
    })?;
    Ok((eps, alpha))
}

/// Double-precision fast path of [`optimized_dp_eps`]: (ε₄₅, α*).
pub fn optimized_dp_eps_f64(eta: f64, gamma: f64, d: u32, delta: f64) -> Result<(f64, f64)> {
    mechanism_domain_f64(eta, gamma, d)?;
    f64chk::delta(delta)?;
    let l = -delta.ln();
    let chi =
        eta * eta / gamma + eta * eta * f64::from(d) * (2.0 + eta).powi(2) * (1.0 + eta).powi(2);
    let k = chi / 2.0;
    let c = eta * (2.0 + eta);
    let t = l.sqrt() / ((k * (1.0 + c)).sqrt() + c * l.sqrt());
    Ok((k * (1.0 + t) / (1.0 - c * t) + l / t, 1.0 + t))
}

/// Which truncated-CDP statement of HMB to evaluate. A mechanism is (ρ, ω)-tCDP
/// (Bun, Dwork, Rothblum & Steinke 2018) if D_α ≤ ρα for every α ∈ (1, ω).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TcdpForm {
    /// HMB §4.1 (paragraph "Truncated Concentrated DP" after eq. (5)): Theorem 1 turned into
    /// (η²[γ⁻¹ + d(2+η)²(1+η)²], 1 + (2η(2+η))⁻¹)-tCDP, i.e. ρ = χ of Corollary 1. Valid because
    /// for α−1 ≤ 1/(2η(2+η)) the denominator of eq. (5) is ≥ 1/2, so ε(α) ≤ αχ (HMB eq. (46)).
    Theorem1,
    /// HMB Appendix A.6, eqs. (49)–(51) with Proposition 4 (Bun et al. 2018, Gaussian smooth
    /// sensitivity): Δ_g = 2η, Δ_f² = η²/γ, giving (4η² + η²/γ, 1/(4η))-tCDP when
    /// σ² = γη⁻²R_rel² (σ² ≥ γη⁻²R_rel² gives eq. (51) as well). Proposition 4 is the scalar
    /// mechanism: only d = 1 (checked), and only meaningful if ω = 1/(4η) > 1 (checked).
    GaussianSmoothSensitivity,
}

/// A (ρ, ω)-tCDP guarantee.
#[derive(Clone, Debug, PartialEq)]
pub struct Tcdp {
    /// ρ: D_α ≤ ρα.
    pub rho: Certified,
    /// ω: for α ∈ (1, ω).
    pub omega: Certified,
}

/// The tCDP forms of HMB §4.1 / Appendix A.6 (see [`TcdpForm`]).
///
/// Not implemented: the A.6 sentence "Alternatively, … a (η²/γ + η²d(2+η)²/2], 1 + (2η(2+η))⁻¹)-tCDP
/// result". Its ρ lacks the (1+η)² factor and halves the d-term relative to the §4.1 statement
/// ([`TcdpForm::Theorem1`]); eliminating α from eq. (5) as that sentence describes gives the §4.1
/// form, so the A.6 variant is a typo (and its justification "α−1 < (2η+η²)⁻¹ ⇒ [·]⁻¹ ≤ 2" needs
/// α−1 ≤ (2(2η+η²))⁻¹, which is the ω used).
pub fn tcdp(form: TcdpForm, eta: &Scalar, gamma: &Scalar, d: u32, digits: u32) -> Result<Tcdp> {
    mechanism_domain(eta, gamma, d)?;
    match form {
        TcdpForm::Theorem1 => {
            let rho = certify(digits, "HMB tCDP (Theorem 1) rho", |p| {
                let wp = p + 16;
                Ok(Float::with_val(p, chi_of(&eta.mp(wp), &gamma.mp(wp), d)))
            })?;
            let omega = certify(digits, "HMB tCDP (Theorem 1) omega", |p| {
                let wp = p + 16;
                let c2 = c_of(&eta.mp(wp)) * 2u32;
                Ok(Float::with_val(p, c2.recip() + 1u32))
            })?;
            Ok(Tcdp { rho, omega })
        }
        TcdpForm::GaussianSmoothSensitivity => {
            const A6: &str = "HMB Appendix A.6, Proposition 4 (Bun et al. 2018)";
            if d != 1 {
                return Err(Error::outside(
                    A6,
                    format!("d = 1 (Proposition 4 is the scalar Gaussian smooth sensitivity mechanism): d = {d}"),
                ));
            }
            let p = check_prec(0);
            let omega_chk = Float::with_val(p, eta.mp(p) * 4u32).recip();
            if !lt_strict(&Float::with_val(p, 1u32), &omega_chk) {
                return Err(Error::outside(
                    A6,
                    format!(
                        "omega = 1/(4 eta) > 1 for a non-empty guarantee: eta = {eta}, 1/(4 eta) = {}",
                        show(&omega_chk)
                    ),
                ));
            }
            let rho = certify(digits, "HMB tCDP (A.6) rho", |p| {
                let wp = p + 16;
                let e2 = eta.mp(wp).square();
                let v = Float::with_val(wp, &e2 * 4u32) + Float::with_val(wp, &e2 / gamma.mp(wp));
                Ok(Float::with_val(p, v))
            })?;
            let omega = certify(digits, "HMB tCDP (A.6) omega", |p| {
                let wp = p + 16;
                Ok(Float::with_val(p, (eta.mp(wp) * 4u32).recip()))
            })?;
            Ok(Tcdp { rho, omega })
        }
    }
}

#[cfg(test)]
mod tests;
