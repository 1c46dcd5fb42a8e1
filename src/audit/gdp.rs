//! The Gaussian-DP route of an audit. **Its ε is valid only under the assumption that the
//! mechanism's trade-off curve is Gaussian** (the mechanism is exactly μ-GDP for some μ, as the
//! Gaussian mechanism is); every result says so in [`GdpAudit::assumption`].
//!
//! A mechanism is μ-GDP when every test of P against Q has FNR ≥ T_μ(FPR) with
//! T_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2019, Def. 2.6). Hence for any test
//! μ ≥ Φ⁻¹(1 − FPR) − Φ⁻¹(FNR), and with Clopper–Pearson upper bounds on both rates
//! μ_lb = Φ⁻¹(1 − fpr_ub) − Φ⁻¹(fnr_ub) is a lower confidence bound on the GDP parameter of
//! *any* mechanism (this part needs no assumption). The step to ε assumes the trade-off curve is
//! exactly T_μ*: then ε(δ) is the root of the μ-GDP profile
//! δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2019, Cor. 2.13), which increases
//! with μ, so ε_{μ_lb}(δ) ≤ ε_{μ*}(δ). For a mechanism whose trade-off curve is not Gaussian
//! (e.g. bounded-support mechanisms, whose curves meet the axes) this ε can exceed the true one.
//!
//! Because the GDP route extrapolates the whole curve from a test at moderate FPR, it gives much
//! tighter (assumption-laden) bounds than the direct ε_lb of [`super::stats`], which needs
//! FPR ≈ δ-scale regions to be tight.

use serde::{Deserialize, Serialize};

use super::stats::{
    check_audit_beta, held_out_record, region_record, search_best, CpCache, Direction, RegionAudit,
    ThresholdTable,
};
use crate::error::{Error, Result};
use crate::numeric::f64s::{gaussian_eps_for_delta, ndtri_upper};

/// The label carried by every [`GdpAudit`].
pub(crate) const GDP_ASSUMPTION: &str =
    "assumes Gaussian trade-off (GDP): eps_lb_gdp is a lower bound \
on epsilon only if the mechanism's trade-off curve is exactly T_mu for some mu (mu_lb itself \
needs no assumption)";

/// μ = Φ⁻¹(1 − fpr_ub) − Φ⁻¹(fnr_ub) (Dong, Roth & Su 2019, Def. 2.6 inverted), computed as
/// `ndtri_upper(fpr_ub) + ndtri_upper(fnr_ub)` so that tiny rates keep full precision. Negative
/// when the rates lie above the trade-off diagonal (no evidence); the callers clamp at 0.
fn mu_raw(fpr_ub: f64, fnr_ub: f64) -> f64 {
    ndtri_upper(fpr_ub) + ndtri_upper(fnr_ub)
}

/// ε(δ) of a μ-GDP mechanism, 0 for μ = 0 (Dong, Roth & Su 2019, Cor. 2.13, inverted in ε).
///
/// Errors: μ not finite or < 0, δ not in (0, 1).
pub(crate) fn gdp_eps_for_delta(mu: f64, delta: f64) -> Result<f64> {
    if !(mu.is_finite() && mu >= 0.0) {
        return Err(Error::invalid("mu", mu, "finite and >= 0"));
    }
    crate::error::check_open_unit("delta", delta)?;
    if mu == 0.0 {
        return Ok(0.0);
    }
    Ok(gaussian_eps_for_delta(mu, delta))
}

/// Result of the GDP route. **Assumes a Gaussian trade-off curve** (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GdpAudit {
    /// Always `GDP_ASSUMPTION`.
    pub assumption: String,
    /// Always true: ε_lb_gdp rests on the Gaussian-trade-off assumption.
    pub assumes_gaussian_tradeoff: bool,
    /// The chosen region (direction P vs Q) with its counts, Clopper–Pearson bounds and its
    /// assumption-free ε_lb.
    pub region: RegionAudit,
    /// Lower confidence bound on μ (no assumption needed).
    pub mu_lb: f64,
    /// δ at which ε is reported.
    pub delta: f64,
    /// ε_{μ_lb}(δ): a lower bound on ε(δ) with probability ≥ 1 − β, *if* the trade-off is
    /// Gaussian.
    pub eps_lb_gdp: f64,
}

fn finish(region: RegionAudit, delta: f64) -> Result<GdpAudit> {
    let mu_lb = mu_raw(region.fpr_ub, region.fnr_ub).max(0.0);
    let eps_lb_gdp = if mu_lb.is_finite() {
        gdp_eps_for_delta(mu_lb, delta)?
    } else {
        f64::INFINITY
    };
    Ok(GdpAudit {
        assumption: GDP_ASSUMPTION.to_string(),
        assumes_gaussian_tradeoff: true,
        region,
        mu_lb,
        delta,
        eps_lb_gdp,
    })
}

fn check_gdp_delta(delta: f64) -> Result<f64> {
    crate::error::check_open_unit("delta", delta)
}

/// GDP audit with the region chosen on the same samples: the threshold and tail maximising
/// μ_lb, with Bonferroni over the 4m proportions P(S), P(Sᶜ), Q(S), Q(Sᶜ) of the m thresholds
/// (β/(4m) each; the direction is immaterial for μ, since T_μ is symmetric).
/// **Assumes a Gaussian trade-off** for `eps_lb_gdp`.
///
/// Cost: for a Gaussian-like mechanism the point estimate of μ is nearly the same at every
/// threshold, so the lazy search prunes little: 2¹⁶ bins at N = 10⁹ take ~3 s (the ε search
/// of [`super::stats::best_region`] ~0.2 s). Pass a coarser table to go faster.
///
/// Errors: invalid table, δ not in (0, 1), β not in (0, ½).
pub fn gdp_best_region(table: &ThresholdTable, delta: f64, beta: f64) -> Result<GdpAudit> {
    let (_, region) = gdp_best_indexed(table, delta, beta)?;
    finish(region, delta)
}

fn gdp_best_indexed(table: &ThresholdTable, delta: f64, beta: f64) -> Result<(usize, RegionAudit)> {
    table.validate()?;
    check_gdp_delta(delta)?;
    check_audit_beta(beta)?;
    let family = 4 * table.len() as u64;
    let mut cache = CpCache::new(beta / family as f64);
    let (i, tail, dir, _) = search_best(table, &[Direction::PvsQ], &mut cache, mu_raw)?;
    let region = region_record(table, i, tail, dir, delta, &mut cache, family, 1.0 - beta)?;
    Ok((i, region))
}

/// GDP audit with held-out selection: threshold and tail chosen on `select` (by
/// [`gdp_best_region`]), μ_lb evaluated on the independent split `evaluate` with both bounds at
/// β/2. **Assumes a Gaussian trade-off** for `eps_lb_gdp`.
///
/// Errors: invalid tables, different thresholds, δ not in (0, 1), β not in (0, ½).
pub fn gdp_held_out(
    select: &ThresholdTable,
    evaluate: &ThresholdTable,
    delta: f64,
    beta: f64,
) -> Result<GdpAudit> {
    // The GDP search runs in direction P vs Q only: the chosen region's direction is PvsQ.
    let region = held_out_record(select, evaluate, delta, beta, gdp_best_indexed)?;
    finish(region, delta)
}

#[cfg(test)]
mod tests {
    use super::{
        gaussian_eps_for_delta, gdp_best_region, gdp_eps_for_delta, mu_raw, ndtri_upper, GdpAudit,
        ThresholdTable, GDP_ASSUMPTION,
    };
    use crate::audit::stats::{cp_upper, Tail};

    #[test]
    fn mu_lower_bound_value() {
        // mpmath dps 40: Φ⁻¹(1 − 1e-3) − Φ⁻¹(0.3) = 3.614632818875854325578689
        let m = mu_raw(1e-3, 0.3);
        assert!(((m - 3.614_632_818_875_854) / m).abs() < 1e-14, "{m}");
        // Rates above the trade-off diagonal give no evidence (the callers clamp at 0).
        assert!(mu_raw(0.6, 0.6) < 0.0);
    }

    #[test]
    fn eps_from_mu_inverts_the_profile() {
        assert_eq!(gdp_eps_for_delta(0.0, 1e-5).unwrap(), 0.0);
        let e = gdp_eps_for_delta(1.0, 1e-5).unwrap();
        let d = crate::numeric::f64s::gaussian_delta(1.0, e);
        assert!(((d - 1e-5) / 1e-5).abs() < 1e-9);
        assert!(gdp_eps_for_delta(-1.0, 1e-5).is_err());
        assert!(gdp_eps_for_delta(1.0, 0.0).is_err());
    }

    #[test]
    fn result_is_labelled_and_consistent() {
        // Two well-separated samples on a small grid.
        let p: Vec<f64> = (1..=2000).map(|i| 2.0 + i as f64 / 2000.0).collect();
        let q: Vec<f64> = (0..2000).map(|i| i as f64 / 1000.0).collect();
        let th = [0.5, 1.0, 1.5, 2.0, 2.5];
        let t = ThresholdTable::from_sorted(&p, &q, &th).unwrap();
        let g = gdp_best_region(&t, 1e-5, 0.05).unwrap();
        assert!(g.assumes_gaussian_tradeoff);
        assert_eq!(g.assumption, GDP_ASSUMPTION);
        assert!(g.assumption.contains("assumes Gaussian trade-off (GDP)"));
        // Threshold 2.0, above: FP = 0 of 2000 Q, FN = 0 of 2000 P.
        assert_eq!(g.region.threshold, 2.0);
        assert_eq!(g.region.tail, Tail::Above);
        let ub = cp_upper(0, 2000, 0.05 / 20.0).unwrap();
        assert_eq!((g.region.fpr_ub, g.region.fnr_ub), (ub, ub));
        assert_eq!(g.mu_lb, 2.0 * ndtri_upper(ub));
        assert_eq!(g.eps_lb_gdp, gaussian_eps_for_delta(g.mu_lb, 1e-5));
        let text = toml::to_string(&g).unwrap();
        let back: GdpAudit = toml::from_str(&text).unwrap();
        assert_eq!(g, back);
    }
}
