//! Seed 002's informal DP-SGD claims, each with the exact figure and a verdict
//! (`docs/dpsgd.md#seed-002`).
//!
//! 1. **σ calibration for DP-GD**: noise σ = L√(T ln(1/δ))/(nε) on the average gradient (whose
//!    sensitivity the notes take as L/n) is claimed to give (ε, δ)-DP. In units of the
//!    sensitivity that is the noise multiplier ν = √(T ln(1/δ))/ε; T such steps are exactly the
//!    Gaussian mechanism with μ = √T/ν, whose exact ε(δ) we compute.
//! 2. **Replacement sensitivity**: the notes define neighbours as datasets that differ in one
//!    point (replacement) and use Δ₂ = L/n. Replacing g by −g moves the average by 2L/n, so the
//!    same σ is the multiplier ν/2 for the true sensitivity.
//! 3. **Subsampling shortcut**: an (ε, δ) mechanism on a 1/n sample is said to be about
//!    (ε/n, δ/n)-DP. Poisson sampling at rate q gives exactly ln(1 + q(e^ε − 1)) (Balle, Barthe &
//!    Gaboardi 2018, Thm 9), which the shortcut understates by up to (e^ε − 1)/ε (checked at
//!    ε = min(ε, 1), the notes' own range).
//! 4. **Advanced composition**: T steps of (ε/√T, δ) are said to compose to (ε, Tδ). Dwork,
//!    Rothblum & Vadhan 2010 (Thm III.3) give, for any δ′ > 0,
//!    ε_T = √(2T ln(1/δ′))·ε₀ + Tε₀(e^{ε₀} − 1) with ε₀ = ε/√T, at δ_T = Tδ + δ′.

use super::privacy::certified_eps;
use crate::error::Result;

/// One checked claim.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Claim002 {
    /// What is claimed.
    pub claim: String,
    /// The claimed ε.
    pub claimed: f64,
    /// The exact (or, for advanced composition, the theorem's) ε.
    pub actual: f64,
    /// How `actual` was obtained.
    pub how: String,
    /// "holds" when actual ≤ claimed, "fails" otherwise.
    pub verdict: &'static str,
}

fn verdict(actual: f64, claimed: f64) -> &'static str {
    if actual <= claimed {
        "holds"
    } else {
        "fails"
    }
}

/// The four claims at target ε, δ and T steps (q = 1/n with n = `n` for the shortcut;
/// δ′ = δ for advanced composition).
pub(crate) fn claims(eps: f64, delta: f64, steps: u64, n: u64) -> Result<Vec<Claim002>> {
    crate::error::check_positive("eps", eps)?;
    crate::error::check_open_unit("delta", delta)?;
    if steps == 0 {
        return Err(crate::error::Error::invalid("steps", 0, ">= 1"));
    }
    if n < 2 {
        return Err(crate::error::Error::invalid("n", n, ">= 2"));
    }
    let t = steps as f64;
    let nu = (t * (1.0 / delta).ln()).sqrt() / eps;
    let (_, exact) = certified_eps(1.0, nu, steps, delta)?;
    let (_, exact_rep) = certified_eps(1.0, nu / 2.0, steps, delta)?;
    let q = 1.0 / n as f64;
    // The notes state the shortcut for ε ≤ 1: checked at min(ε, 1).
    let e_sub = eps.min(1.0);
    let amp = (q * e_sub.exp_m1()).ln_1p();
    let e0 = eps / t.sqrt();
    let adv = (2.0 * t * (1.0 / delta).ln()).sqrt() * e0 + t * e0 * e0.exp_m1();
    Ok(vec![
        Claim002 {
            claim: format!(
                "sigma = L sqrt(T ln(1/delta))/(n eps) gives (eps, delta): nu = {nu:.4}, T = {steps}, delta = {delta:e}"
            ),
            claimed: eps,
            actual: exact,
            how: "exact: T full-batch steps = Gaussian mechanism, mu = sqrt(T)/nu".into(),
            verdict: verdict(exact, eps),
        },
        Claim002 {
            claim: format!(
                "replacement neighbours with sensitivity L/n (true: 2L/n), same sigma (nu = {nu:.4})"
            ),
            claimed: eps,
            actual: exact_rep,
            how: "exact at multiplier nu/2".into(),
            verdict: verdict(exact_rep, eps),
        },
        Claim002 {
            claim: format!(
                "subsampling at q = 1/{n}: (eps, delta) becomes about (q eps, q delta), at eps = {e_sub}"
            ),
            claimed: q * e_sub,
            actual: amp,
            how: "exact Poisson amplification ln(1 + q(e^eps - 1))".into(),
            verdict: verdict(amp, q * e_sub),
        },
        Claim002 {
            claim: format!(
                "advanced composition: {steps} steps of (eps/sqrt(T), delta) give (eps, T delta)"
            ),
            claimed: eps,
            actual: adv,
            how: format!("Dwork-Rothblum-Vadhan at delta' = {delta:e} (total delta T delta + delta')"),
            verdict: verdict(adv, eps),
        },
    ])
}

/// The claims as a Markdown table.
pub(crate) fn markdown(rows: &[Claim002]) -> String {
    crate::fsio::Table::of(
        rows,
        &[
            ("seed 002 claim", |r| r.claim.clone()),
            ("claimed ε", |r| format!("{:.6}", r.claimed)),
            ("actual ε", |r| format!("{:.6}", r.actual)),
            ("how", |r| r.how.clone()),
            ("verdict", |r| r.verdict.to_string()),
        ],
    )
    .markdown()
}

#[cfg(test)]
mod tests {
    use super::claims;

    #[test]
    fn seed_002_claims_fail_where_expected() {
        let c = claims(2.0, 1e-5, 10, 100).unwrap();
        // ν = √(10 ln 10⁵)/2 = √115.129…/2 = 5.36493… (independent arithmetic).
        assert!(c[0].claim.contains("nu = 5.3649"), "{}", c[0].claim);
        // The f64 Gaussian route (numeric::f64s) agrees with the certified one to 1e-9.
        let mu = 10f64.sqrt() / ((10.0 * 1e5f64.ln()).sqrt() / 2.0);
        let f = crate::numeric::f64s::gaussian_eps_for_delta(mu, 1e-5);
        assert!((c[0].actual - f).abs() < 1e-9 * f, "{} vs {f}", c[0].actual);
        assert_eq!(c[0].verdict, "fails");
        assert!(c[1].actual > c[0].actual && c[1].verdict == "fails");
        // Checked at ε = 1 (the notes' range): ln(1 + 0.01(e − 1)) = ln(1.0171828182845905).
        assert!((c[2].actual - 1.017_182_818_284_590_5f64.ln()).abs() < 1e-15);
        assert!((c[2].claimed - 0.01).abs() < 1e-18);
        assert_eq!(c[2].verdict, "fails");
        // ε₀ = 2/√10: √(2·10·ln 10⁵)·ε₀ + 10 ε₀ (e^{ε₀} − 1).
        let e0 = 2.0 / 10f64.sqrt();
        let adv = (20.0 * 1e5f64.ln()).sqrt() * e0 + 10.0 * e0 * e0.exp_m1();
        assert!((c[3].actual - adv).abs() < 1e-12 * adv);
        assert_eq!(c[3].verdict, "fails");
        assert!(claims(0.0, 1e-5, 10, 100).is_err());
        assert!(claims(1.0, 1e-5, 10, 1).is_err());
    }
}
