//! The data of the report's plots.
//!
//! 1. Privacy profile ε(δ) of a spec's pair: exact (certified at `CURVE_DIGITS` digits; for an
//!    RGM pair in d > 1, whose δ(ε) has no closed form, by the χ² quadrature of
//!    docs/formulas.md §7.4 through [`exact_profile_dd`], with the exact RDP curve converted with
//!    CKS beside it, labelled as an upper bound), the paper's bounds, and the audit's points.
//! 2. D_α against α: exact (HMB Lemma 2) vs Theorem 1 for the RGM pairs; the Gaussian mechanism
//!    (exact vs Mironov's α·Δ²/(2σ²)); the bounded-support pairs vs the Gaussian of the same σ.
//! 3. The shape of Hu & Guo's Figure 1: Fisher information and per-instance RDP D_α(μ ‖ μ + h)
//!    against the location μ for the rectified and truncated Gaussian and the stochastic sign,
//!    against the Gaussian mechanism (closed forms at `CURVE_DIGITS` digits, in parallel).

use super::figure::{Legend, Panel, PlotFigure, Series, Style};
use super::sources;
use super::threeway::{rgm_alpha_max, Role, ThreeWay};
use crate::bounds::rgm;
use crate::compare::spec::{AuditSpec, MechanismSpec};
use crate::divergence::{self, Location, Method, Pair};
use crate::error::Result;
use crate::mechanisms::rgm::RgmPair;
use crate::model::Family;
use crate::scalar::Scalar;
use rayon::prelude::*;

/// Digits certified for plotted points (far more than a plot resolves; keeps them cheap).
pub(crate) const CURVE_DIGITS: u32 = 8;

/// Label of the exact profile of an RGM pair in d > 1 (certified, by quadrature).
pub(crate) const EXACT_DD_LABEL: &str = "exact ε(δ) (χ² quadrature, §7.4)";

/// δ grid of the privacy profiles: 10⁻¹² … 10⁻¹, `per_decade` points per decade.
pub fn delta_grid(per_decade: u32) -> Vec<f64> {
    let k = per_decade.max(1);
    (0..=11 * k)
        .map(|i| 10f64.powf(-12.0 + f64::from(i) / f64::from(k)))
        .collect()
}

/// log-spaced grid of `n` points from `lo` to `hi` (both > 0).
pub fn log_grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let (a, b) = (lo.ln(), hi.ln());
    (0..n)
        .map(|i| (a + (b - a) * i as f64 / (n - 1) as f64).exp())
        .collect()
}

/// α grid of the CKS conversions of RDP curves: α − 1 log-spaced in [10⁻³, hi − 1].
fn conversion_alphas(hi: f64) -> Vec<f64> {
    log_grid(1e-3, (hi - 1.0).max(2e-3), 400)
        .into_iter()
        .map(|t| 1.0 + t)
        .collect()
}

/// min over the grid of CKS(D_α, α, δ) for a tabulated RDP curve.
fn cks_min(curve: &[(f64, f64)], delta: f64) -> Option<f64> {
    curve
        .iter()
        .filter_map(|&(a, d)| sources::cks_f64(d, a, delta).ok())
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))))
}

/// D_α in double precision (closed form at 64 bits), max of both orders.
fn renyi_f64_both(pair: &Pair, alpha: f64) -> Option<f64> {
    let a = Scalar::from(alpha);
    let x = divergence::closed::renyi_at(pair, &a, 96).ok()?.to_f64();
    let y = divergence::closed::renyi_at(&pair.swapped(), &a, 96)
        .ok()?
        .to_f64();
    let m = x.max(y);
    m.is_finite().then_some(m)
}

/// Certified ε(δ) at [`CURVE_DIGITS`], max of both orders, by the closed forms only (fast; the
/// RGM in d > 1 with unequal variances has none: see [`exact_profile_dd`]).
fn eps_curve_point(pair: &Pair, delta: f64) -> Option<f64> {
    let d = Scalar::from(delta);
    let a = divergence::eps_for_delta(pair, &d, CURVE_DIGITS, Method::ClosedForm).ok()?;
    let b =
        divergence::eps_for_delta(&pair.swapped(), &d, CURVE_DIGITS, Method::ClosedForm).ok()?;
    Some(a.to_f64().max(b.to_f64()))
}

/// Certified ε(δ) at every δ of `deltas`, max of both orders, for a `gaussian_dd` or `rgm` pair
/// in any d: the whole profile of each order by [`divergence::eps_profile`] (docs/formulas.md §7.4,
/// "Profiles"), the two orders on two threads (each order is solved sequentially, so the result
/// does not depend on the thread count). Every point carries `digits` certified digits; a point
/// that cannot be certified is an error.
pub fn exact_profile_dd(pair: &Pair, deltas: &[f64], digits: u32) -> Result<Vec<(f64, f64)>> {
    let ds: Vec<Scalar> = deltas.iter().map(|&d| Scalar::from(d)).collect();
    let swapped = pair.swapped();
    let (a, b) = rayon::join(
        || divergence::eps_profile(pair, &ds, digits),
        || divergence::eps_profile(&swapped, &ds, digits),
    );
    let (a, b) = (a?, b?);
    Ok(deltas
        .iter()
        .zip(a.iter().zip(&b))
        .map(|(&d, (x, y))| (d, x.to_f64().max(y.to_f64())))
        .collect())
}

/// The privacy-profile panel of one spec, `per_decade` δ points per decade.
pub(crate) fn profile_panel(tw: &ThreeWay, per_decade: u32) -> Panel {
    let spec = &tw.spec;
    let deltas = delta_grid(per_decade);
    let mut series = Vec::new();
    exact_profile_series(spec, &deltas, &mut series);
    bound_profile_series(spec, &deltas, &mut series);
    audited_points(tw, &mut series);
    Panel {
        title: if spec.description.is_empty() {
            spec.name.clone()
        } else {
            short(&spec.description)
        },
        x_label: "δ".into(),
        y_label: "ε(δ)".into(),
        log_x: true,
        log_y: false,
        legend: Legend::UpperRight,
        series,
    }
}

/// The exact privacy profile of a spec's pair on `deltas`: its closed form, or for an RGM pair in
/// d > 1 the certified χ² quadrature profile and the upper bound exact D_α → CKS.
fn exact_profile_series(spec: &AuditSpec, deltas: &[f64], series: &mut Vec<Series>) {
    if let Ok(pair) = spec.divergence_pair() {
        let exact: Vec<(f64, f64)> = deltas
            .par_iter()
            .filter_map(|&d| eps_curve_point(&pair, d).map(|e| (d, e)))
            .collect();
        if exact.len() == deltas.len() {
            series.push(Series::new("exact ε(δ)", exact, Style::Line, 0));
        } else if pair.downcast_ref::<RgmPair>().is_some() {
            // d > 1: no closed form; the certified χ² quadrature profile (docs/formulas.md §7.4).
            if let Ok(dd) = exact_profile_dd(&pair, deltas, CURVE_DIGITS) {
                series.push(Series::new(EXACT_DD_LABEL, dd, Style::Line, 0));
            }
            let curve: Vec<(f64, f64)> = conversion_alphas(rgm_alpha_max(spec))
                .into_par_iter()
                .filter_map(|a| renyi_f64_both(&pair, a).map(|d| (a, d)))
                .collect();
            let up: Vec<(f64, f64)> = deltas
                .iter()
                .filter_map(|&d| cks_min(&curve, d).map(|e| (d, e)))
                .collect();
            series.push(Series::new(
                "upper bound on exact: exact D_α → CKS",
                up,
                Style::Dashed,
                0,
            ));
        }
    }
}

/// The papers' bounds on a spec's profile: HMB's for the RGM, the Gaussian mechanism's (RDP →
/// CKS, Balle–Wang) for the Gaussian and the laws HG bounds by it.
fn bound_profile_series(spec: &AuditSpec, deltas: &[f64], series: &mut Vec<Series>) {
    match &spec.mechanism {
        MechanismSpec::Rgm { d, gamma, eta, .. } => {
            let cor: Vec<(f64, f64)> = deltas
                .par_iter()
                .filter_map(|&dl| {
                    rgm::corollary1_eps_f64(eta.f64(), gamma.f64(), *d, dl)
                        .ok()
                        .map(|e| (dl, e))
                })
                .collect();
            let opt: Vec<(f64, f64)> = deltas
                .par_iter()
                .filter_map(|&dl| {
                    rgm::optimized_dp_eps_f64(eta.f64(), gamma.f64(), *d, dl)
                        .ok()
                        .map(|(e, _)| (dl, e))
                })
                .collect();
            series.push(Series::new("HMB Cor. 1, eq. (44)", cor, Style::Dashed, 1));
            series.push(Series::new(
                "HMB eq. (45), optimised α",
                opt,
                Style::Dashed,
                3,
            ));
        }
        m => {
            if let Some(sigma) = m.base_sigma() {
                let mu = spec.shift().f64() / sigma.f64();
                let alphas = conversion_alphas(1e4);
                let curve: Vec<(f64, f64)> =
                    alphas.iter().map(|&a| (a, a * mu * mu / 2.0)).collect();
                let cks: Vec<(f64, f64)> = deltas
                    .iter()
                    .filter_map(|&d| cks_min(&curve, d).map(|e| (d, e)))
                    .collect();
                let bw: Vec<(f64, f64)> = deltas
                    .iter()
                    .filter_map(|&d| {
                        crate::bounds::gaussian::dp_eps_f64(spec.shift().f64(), sigma.f64(), d)
                            .ok()
                            .map(|e| (d, e))
                    })
                    .collect();
                let what = if matches!(m, MechanismSpec::Gaussian { .. }) {
                    ""
                } else {
                    "Gaussian bound: "
                };
                series.push(Series::new(
                    &format!("{what}RDP → CKS (optimised α)"),
                    cks,
                    Style::Dashed,
                    1,
                ));
                series.push(Series::new(
                    &format!("{what}Balle–Wang (exact for Gaussian)"),
                    bw,
                    Style::Dashed,
                    3,
                ));
            }
        }
    }
}

/// The single points at the audited δ: the exact ε (when no exact curve is drawn), the audit's
/// ε_lb and its GDP-route figure.
fn audited_points(tw: &ThreeWay, series: &mut Vec<Series>) {
    let spec = &tw.spec;
    let delta = spec.audit.delta.f64();
    let has_curve = series.first().is_some_and(|s| s.name == "exact ε(δ)");
    for f in &tw.figures {
        if let (Some(v), Role::Exact, false) = (f.value, f.role, has_curve) {
            series.push(Series::new(
                "exact ε at the audited δ",
                vec![(delta, v)],
                Style::Markers,
                0,
            ));
        }
        if let (Some(v), Role::Audit) = (f.value, f.role) {
            series.push(Series::new(
                &format!(
                    "audit ε_lb ({}% conf.)",
                    tw.audit.as_ref().map_or(95.0, |a| a.confidence * 100.0)
                ),
                vec![(delta, v)],
                Style::Markers,
                2,
            ));
        }
        if let (Some(v), Role::Gdp) = (f.value, f.role) {
            series.push(Series::new(
                "audit, GDP route (assumes Gaussian)",
                vec![(delta, v)],
                Style::Crosses,
                4,
            ));
        }
    }
}

fn short(s: &str) -> String {
    if s.chars().count() > 66 {
        let mut t: String = s.chars().take(63).collect();
        t.push('…');
        t
    } else {
        s.to_string()
    }
}

/// Privacy-profile figure for a set of spec results (one panel each).
pub(crate) fn profile_figure(title: &str, tws: &[&ThreeWay], per_decade: u32) -> PlotFigure {
    PlotFigure {
        title: title.into(),
        panels: tws.iter().map(|t| profile_panel(t, per_decade)).collect(),
    }
}

/// D_α vs α: RGM pairs (exact vs Theorem 1), Gaussian specs (exact vs α·Δ²/(2σ²)), and the
/// bounded-support specs vs the Gaussian of the same σ and shift.
pub(crate) fn renyi_figure(specs: &[&AuditSpec]) -> PlotFigure {
    let panels = [
        rgm_renyi_panel(specs),
        gaussian_renyi_panel(specs),
        bounded_renyi_panel(specs),
    ];
    PlotFigure {
        title: "Rényi divergence D_α of the audited pairs against α".into(),
        panels: panels.into_iter().flatten().collect(),
    }
}

/// The RGM specs' exact D_α against HMB Theorem 1 (`None` without RGM specs).
fn rgm_renyi_panel(specs: &[&AuditSpec]) -> Option<Panel> {
    let rgm: Vec<&AuditSpec> = specs
        .iter()
        .copied()
        .filter(|s| matches!(s.mechanism, MechanismSpec::Rgm { .. }))
        .collect();
    if rgm.is_empty() {
        return None;
    }
    let mut series = Vec::new();
    for (i, s) in rgm.iter().enumerate() {
        let (MechanismSpec::Rgm { d, gamma, eta, .. }, Ok(pair)) =
            (&s.mechanism, s.divergence_pair())
        else {
            continue;
        };
        let (e, g) = (eta.f64(), gamma.f64());
        let sup = (1.0 + e).powi(2) / (2.0 * e + e * e);
        // up to 80% of Theorem 1's α-range: beyond, eq. (5)'s denominator
        // 1 − η(2+η)(α−1) → 0 and the bound's blow-up would flatten every other curve.
        let hi = 1.0 + 0.8 * (sup.min(rgm_alpha_max(s)) - 1.0);
        let alphas = log_grid(1e-2, hi - 1.0, 120);
        let exact: Vec<(f64, f64)> = alphas
            .par_iter()
            .filter_map(|&t| renyi_f64_both(&pair, 1.0 + t).map(|v| (1.0 + t, v)))
            .collect();
        let bound: Vec<(f64, f64)> = alphas
            .iter()
            .filter_map(|&t| {
                rgm::theorem1_eps_f64(e, g, *d, 1.0 + t)
                    .ok()
                    .map(|v| (1.0 + t, v))
            })
            .collect();
        series.push(Series::new(
            &format!("exact D_α, d = {d}"),
            exact,
            Style::Line,
            i,
        ));
        series.push(Series::new(
            &format!("HMB Thm 1 eq. (5), d = {d}"),
            bound,
            Style::Dashed,
            i,
        ));
    }
    Some(Panel {
        title: "RGM pairs: exact D_α (HMB Lemma 2) vs Theorem 1".into(),
        x_label: "α".into(),
        y_label: "D_α (max of both orders)".into(),
        log_x: true,
        log_y: true,
        legend: Legend::UpperLeft,
        series,
    })
}

/// The Gaussian specs' exact D_α against α·Δ²/(2σ²) (`None` without Gaussian specs).
fn gaussian_renyi_panel(specs: &[&AuditSpec]) -> Option<Panel> {
    let gauss: Vec<&AuditSpec> = specs
        .iter()
        .copied()
        .filter(|s| matches!(s.mechanism, MechanismSpec::Gaussian { .. }))
        .collect();
    if gauss.is_empty() {
        return None;
    }
    let mut series = Vec::new();
    for (i, s) in gauss.iter().enumerate() {
        let Ok(pair) = s.divergence_pair() else {
            continue;
        };
        let mu = s.shift().f64() / s.mechanism.base_sigma().map_or(1.0, Scalar::f64);
        let alphas = log_grid(1.01, 1000.0, 120);
        let exact: Vec<(f64, f64)> = alphas
            .par_iter()
            .filter_map(|&a| renyi_f64_both(&pair, a).map(|v| (a, v)))
            .collect();
        let formula: Vec<(f64, f64)> = alphas
            .iter()
            .step_by(8)
            .map(|&a| (a, a * mu * mu / 2.0))
            .collect();
        series.push(Series::new(
            &format!("{}: exact D_α (closed form)", s.name),
            exact,
            Style::Line,
            2 * i,
        ));
        series.push(Series::new(
            &format!("{}: α·Δ²/(2σ²) (Mironov Prop. 7)", s.name),
            formula,
            Style::Markers,
            2 * i + 1,
        ));
    }
    Some(Panel {
        title: "Gaussian mechanism: D_α = α·Δ²/(2σ²)".into(),
        x_label: "α".into(),
        y_label: "D_α".into(),
        log_x: true,
        log_y: true,
        legend: Legend::UpperLeft,
        series,
    })
}

/// The bounded-support and stochastic-sign specs' exact D_α against the Gaussian mechanism's
/// (HG's bound; `None` without such specs).
fn bounded_renyi_panel(specs: &[&AuditSpec]) -> Option<Panel> {
    let bounded: Vec<&AuditSpec> = specs
        .iter()
        .copied()
        .filter(|s| {
            matches!(
                s.mechanism,
                MechanismSpec::Rectified { .. }
                    | MechanismSpec::Truncated { .. }
                    | MechanismSpec::StochasticSign { .. }
            )
        })
        .collect();
    if bounded.is_empty() {
        return None;
    }
    let alphas = log_grid(1.01, 100.0, 100);
    let mut series = Vec::new();
    let mut refs: Vec<(f64, f64)> = Vec::new();
    for (i, s) in bounded.iter().enumerate() {
        let Ok(pair) = s.divergence_pair() else {
            continue;
        };
        let sigma = s.mechanism.base_sigma().map_or(1.0, Scalar::f64);
        let key = (sigma, s.shift().f64());
        if !refs.contains(&key) {
            refs.push(key);
            let mu = key.1 / key.0;
            series.push(Series::new(
                &format!("Gaussian, σ = {}, Δ = {} (HG bound)", key.0, key.1),
                alphas.iter().map(|&a| (a, a * mu * mu / 2.0)).collect(),
                Style::Dashed,
                6,
            ));
        }
        let exact: Vec<(f64, f64)> = alphas
            .par_iter()
            .filter_map(|&a| renyi_f64_both(&pair, a).map(|v| (a, v)))
            .collect();
        series.push(Series::new(&s.name, exact, Style::Line, i));
    }
    Some(Panel {
        title: "Bounded support vs Gaussian (HG Prop. 4.6, Thm 4.9)".into(),
        x_label: "α".into(),
        y_label: "D_α (max of both orders)".into(),
        log_x: true,
        log_y: true,
        legend: Legend::LowerRight,
        series,
    })
}

/// Parameters of the Hu & Guo Figure-1 style plot.
#[derive(Clone, Debug)]
pub(crate) struct LocationSweep {
    /// Noise σ.
    pub sigma: f64,
    /// Support [a, b] of the rectified and truncated mechanisms.
    pub support: (f64, f64),
    /// Locations μ: from, to, points.
    pub mu: (f64, f64, usize),
    /// Rényi order of the per-instance RDP.
    pub alpha: f64,
    /// Shift h of the per-instance RDP D_α(μ ‖ μ + h).
    pub h: f64,
}

impl Default for LocationSweep {
    fn default() -> Self {
        LocationSweep {
            sigma: 1.0,
            support: (-1.0, 1.0),
            mu: (-4.0, 4.0, 201),
            alpha: 2.0,
            h: 0.1,
        }
    }
}

/// The families of the figure (HG Figure 1's), with their legends.
const FIGURE_FAMILIES: [(&str, &str); 4] = [
    ("gaussian", "Gaussian"),
    ("rectified", "rectified Gaussian"),
    ("truncated", "truncated Gaussian"),
    ("stochastic_sign", "stochastic sign"),
];

fn fisher_at(fam: &str, mu: f64, w: &LocationSweep) -> Result<f64> {
    let takes_support = Family::by_name(fam)?.location_keys.contains(&"a");
    let support = takes_support.then(|| (Scalar::from(w.support.0), Scalar::from(w.support.1)));
    let loc = Location::new(fam, Scalar::from(mu), Scalar::from(w.sigma), support)?;
    Ok(divergence::fisher(&loc, CURVE_DIGITS, Method::ClosedForm)?.to_f64())
}

fn pir_at(fam: &str, mu: f64, w: &LocationSweep) -> Result<f64> {
    let (m1, m2, s) = (
        Scalar::from(mu),
        Scalar::from(mu + w.h),
        Scalar::from(w.sigma),
    );
    let (a, b) = (Scalar::from(w.support.0), Scalar::from(w.support.1));
    let values = [("mu1", m1), ("mu2", m2), ("sigma", s), ("a", a), ("b", b)];
    let pair = Family::by_name(fam)?.pair_from(&values)?;
    Ok(divergence::renyi(
        &pair,
        &Scalar::from(w.alpha),
        CURVE_DIGITS,
        Method::ClosedForm,
    )?
    .to_f64())
}

/// The Fisher information and per-instance RDP against μ (HG Figure 1's shape).
pub(crate) fn location_figure(w: &LocationSweep) -> PlotFigure {
    let (lo, hi, n) = w.mu;
    let mus: Vec<f64> = (0..n)
        .map(|i| lo + (hi - lo) * i as f64 / (n - 1) as f64)
        .collect();
    let sweep = |f: fn(&str, f64, &LocationSweep) -> Result<f64>| -> Vec<Series> {
        FIGURE_FAMILIES
            .iter()
            .enumerate()
            .map(|(i, (fam, label))| {
                let pts: Vec<(f64, f64)> = mus
                    .par_iter()
                    .filter_map(|&m| f(fam, m, w).ok().map(|v| (m, v)))
                    .collect();
                let style = if i == 0 { Style::Dashed } else { Style::Line };
                Series::new(label, pts, style, if i == 0 { 6 } else { i - 1 })
            })
            .collect()
    };
    let sup = format!("[{}, {}]", w.support.0, w.support.1);
    PlotFigure {
        title: format!(
            "Privacy vs location (shape of Hu & Guo, Fig. 1): σ = {}, support {sup}",
            w.sigma
        ),
        panels: vec![
            Panel {
                title: "Fisher information loss I(μ)".into(),
                x_label: "location μ".into(),
                y_label: "I(μ)".into(),
                log_x: false,
                log_y: true,
                legend: Legend::LowerMiddle,
                series: sweep(fisher_at),
            },
            Panel {
                title: format!("per-instance RDP D_{}(μ ‖ μ + {})", w.alpha, w.h),
                x_label: "location μ".into(),
                y_label: format!("D_{}", w.alpha),
                log_x: false,
                log_y: true,
                legend: Legend::LowerMiddle,
                series: sweep(pir_at),
            },
        ],
    }
}

#[cfg(test)]
mod tests;
