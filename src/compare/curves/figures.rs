//! The data of the report's plots. Which plots a spec appears in, and the paper bounds drawn
//! there, are its family's registry data ([`crate::model::spec_form::Panels`],
//! [`crate::model::SpecForm::profile_bounds`], [`crate::model::spec_form::RdpBound`]); this
//! module names no family.
//!
//! 1. Privacy profile ε(δ) of a spec's pair: exact (certified at `CURVE_DIGITS` digits; for a
//!    family whose pair may have no closed-form δ(ε) ([`crate::model::spec_form::ExactRdp`]), by
//!    the χ² quadrature of docs/formulas.md §7.4 through [`exact_profile_dd`], with the exact RDP
//!    curve converted with CKS beside it, labelled as an upper bound), the family's bounds, and
//!    the audit's points.
//! 2. D_α against α: exact against each family's RDP bound, in the panel its family names.
//! 3. The shape of Hu & Guo's Figure 1: Fisher information and per-instance RDP D_α(μ ‖ μ + h)
//!    against the location μ for the families of that figure (closed forms at `CURVE_DIGITS`
//!    digits, in parallel).

use super::{delta_grid, exact_profile_dd, log_grid};
use crate::compare::figure::{Legend, Panel, PlotFigure, Series, Style};
use crate::compare::spec::AuditSpec;
use crate::compare::threeway::{alpha_max, Role, ThreeWay};
use crate::divergence::{self, Location, Method, Pair};
use crate::error::Result;
use crate::model::spec_form::{
    self, cks_min, conversion_alphas, RdpBound, RenyiPanel, RenyiStyle, SpecParams,
};
use crate::model::Family;
use crate::scalar::Scalar;
use rayon::prelude::*;

/// Digits certified for plotted points (far more than a plot resolves; keeps them cheap).
pub(crate) const CURVE_DIGITS: u32 = 8;

/// Label of the exact profile of an RGM pair in d > 1 (certified, by quadrature).
pub(crate) const EXACT_DD_LABEL: &str = "exact ε(δ) (χ² quadrature, §7.4)";

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

/// The exact privacy profile of a spec's pair on `deltas`: its closed form, or for a family whose
/// pair may have none ([`crate::model::spec_form::ExactRdp`]) the certified χ² quadrature
/// profile and the upper bound exact D_α → CKS.
fn exact_profile_series(spec: &AuditSpec, deltas: &[f64], series: &mut Vec<Series>) {
    if let Ok(pair) = spec.divergence_pair() {
        let lim = crate::limits::carry();
        let exact: Vec<(f64, f64)> = deltas
            .par_iter()
            .filter_map(|&d| lim.run(|| eps_curve_point(&pair, d).map(|e| (d, e))))
            .collect();
        if exact.len() == deltas.len() {
            series.push(Series::new("exact ε(δ)", exact, Style::Line, 0));
        } else if spec.mechanism.family.spec.exact_rdp.is_some() {
            // No closed form: the certified χ² quadrature profile (docs/formulas.md §7.4).
            if let Ok(dd) = exact_profile_dd(&pair, deltas, CURVE_DIGITS) {
                series.push(Series::new(EXACT_DD_LABEL, dd, Style::Line, 0));
            }
            let curve: Vec<(f64, f64)> = conversion_alphas(alpha_max(spec))
                .into_par_iter()
                .filter_map(|a| lim.run(|| renyi_f64_both(&pair, a).map(|d| (a, d))))
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

/// The paper's bounds on a spec's profile, as its family draws them
/// ([`crate::model::SpecForm::profile_bounds`]).
fn bound_profile_series(spec: &AuditSpec, deltas: &[f64], series: &mut Vec<Series>) {
    if let Some(curves) = spec.mechanism.family.spec.profile_bounds {
        for c in spec.with_params(|p| curves(p, deltas)) {
            series.push(Series::new(&c.label, c.points, Style::Dashed, c.colour));
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

/// D_α vs α: one panel per [`RenyiPanel`] that the registry's families name and the specs fill,
/// in the order of their styles (then of the registry); specs whose families name the same panel
/// share it.
pub(crate) fn renyi_figure(specs: &[&AuditSpec]) -> PlotFigure {
    let mut panels: Vec<&'static RenyiPanel> = Vec::new();
    for f in crate::model::FAMILIES {
        if let Some(p) = f.spec.panels.as_ref().and_then(|p| p.renyi) {
            if !panels.iter().any(|q| q.title == p.title) {
                panels.push(p);
            }
        }
    }
    panels.sort_by_key(|p| p.style);
    PlotFigure {
        title: "Rényi divergence D_α of the audited pairs against α".into(),
        panels: panels
            .into_iter()
            .filter_map(|p| renyi_panel(p, specs))
            .collect(),
    }
}

/// The spec's family's RDP bound, if its family names `panel`.
fn rdp_in(spec: &AuditSpec, panel: &RenyiPanel) -> Option<RdpBound> {
    let form = &spec.mechanism.family.spec;
    let named = form.panels.as_ref().and_then(|p| p.renyi)?;
    (named.title == panel.title).then_some(form.rdp_bound?)
}

/// One D_α panel with its specs (`None` without any).
fn renyi_panel(panel: &RenyiPanel, specs: &[&AuditSpec]) -> Option<Panel> {
    let mine: Vec<(&AuditSpec, RdpBound)> = specs
        .iter()
        .filter_map(|s| rdp_in(s, panel).map(|r| (*s, r)))
        .collect();
    if mine.is_empty() {
        return None;
    }
    let (series, legend) = match panel.style {
        RenyiStyle::BoundPerSpec => (bound_per_spec(&mine), Legend::UpperLeft),
        RenyiStyle::FormulaPerSpec => (formula_per_spec(&mine), Legend::UpperLeft),
        RenyiStyle::SharedReference => (shared_reference(&mine), Legend::LowerRight),
    };
    let y_label = if panel.style == RenyiStyle::FormulaPerSpec {
        "D_α"
    } else {
        "D_α (max of both orders)"
    };
    Some(Panel {
        title: panel.title.into(),
        x_label: "α".into(),
        y_label: y_label.into(),
        log_x: true,
        log_y: true,
        legend,
        series,
    })
}

/// The RDP bound's value at every α of `alphas` where it is defined.
fn bound_curve(
    s: &AuditSpec,
    rdp: &RdpBound,
    alphas: impl Iterator<Item = f64>,
) -> Vec<(f64, f64)> {
    s.with_params(|p: &SpecParams<'_>| {
        alphas
            .filter_map(|a| (rdp.eps)(p, a).ok().map(|v| (a, v)))
            .collect()
    })
}

/// The exact D_α (max of both orders) at every α of `alphas` where it is finite.
fn exact_curve(pair: &Pair, alphas: &[f64]) -> Vec<(f64, f64)> {
    let lim = crate::limits::carry();
    alphas
        .par_iter()
        .filter_map(|&a| lim.run(|| renyi_f64_both(pair, a).map(|v| (a, v))))
        .collect()
}

/// Per spec, the exact D_α and the RDP bound (same colour) over 80 % of the bound's α-range:
/// beyond, a bound whose denominator vanishes at the range's end (HMB eq. (5)) would flatten
/// every other curve.
fn bound_per_spec(specs: &[(&AuditSpec, RdpBound)]) -> Vec<Series> {
    let mut series = Vec::new();
    for (i, (s, rdp)) in specs.iter().enumerate() {
        let Ok(pair) = s.divergence_pair() else {
            continue;
        };
        let sup = rdp.alpha_sup.map_or(1e4, |f| s.with_params(f));
        let hi = 1.0 + 0.8 * (sup.min(alpha_max(s)) - 1.0);
        let alphas: Vec<f64> = log_grid(1e-2, hi - 1.0, 120)
            .into_iter()
            .map(|t| 1.0 + t)
            .collect();
        let (exact_legend, bound_legend) = s.with_params(|p| (rdp.legends)(p));
        let bound = bound_curve(s, rdp, alphas.iter().copied());
        series.push(Series::new(
            &exact_legend,
            exact_curve(&pair, &alphas),
            Style::Line,
            i,
        ));
        series.push(Series::new(&bound_legend, bound, Style::Dashed, i));
    }
    series
}

/// Per spec, the exact D_α (line) and the RDP bound's formula (markers), α ∈ [1.01, 1000].
fn formula_per_spec(specs: &[(&AuditSpec, RdpBound)]) -> Vec<Series> {
    let alphas = log_grid(1.01, 1000.0, 120);
    let mut series = Vec::new();
    for (i, (s, rdp)) in specs.iter().enumerate() {
        let Ok(pair) = s.divergence_pair() else {
            continue;
        };
        let (exact_legend, bound_legend) = s.with_params(|p| (rdp.legends)(p));
        let formula = bound_curve(s, rdp, alphas.iter().step_by(8).copied());
        series.push(Series::new(
            &format!("{}: {exact_legend}", s.name),
            exact_curve(&pair, &alphas),
            Style::Line,
            2 * i,
        ));
        series.push(Series::new(
            &format!("{}: {bound_legend}", s.name),
            formula,
            Style::Markers,
            2 * i + 1,
        ));
    }
    series
}

/// One dashed reference curve per distinct RDP bound (its legend names it), then each spec's
/// exact D_α, α ∈ [1.01, 100].
fn shared_reference(specs: &[(&AuditSpec, RdpBound)]) -> Vec<Series> {
    let alphas = log_grid(1.01, 100.0, 100);
    let mut series = Vec::new();
    let mut refs: Vec<String> = Vec::new();
    for (i, (s, rdp)) in specs.iter().enumerate() {
        let Ok(pair) = s.divergence_pair() else {
            continue;
        };
        let (_, reference) = s.with_params(|p| (rdp.legends)(p));
        if !refs.contains(&reference) {
            let curve = bound_curve(s, rdp, alphas.iter().copied());
            series.push(Series::new(&reference, curve, Style::Dashed, 6));
            refs.push(reference);
        }
        series.push(Series::new(
            &s.name,
            exact_curve(&pair, &alphas),
            Style::Line,
            i,
        ));
    }
    series
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

/// The families of the figure, in registry order, with their curves
/// ([`crate::model::SpecForm::location_curve`]).
fn figure_families() -> Vec<(&'static str, spec_form::LocationCurve)> {
    crate::model::FAMILIES
        .iter()
        .filter_map(|f| f.spec.location_curve.map(|c| (f.name, c)))
        .collect()
}

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
    let lim = crate::limits::carry();
    let sweep = |f: fn(&str, f64, &LocationSweep) -> Result<f64>| -> Vec<Series> {
        let mut others = 0;
        figure_families()
            .into_iter()
            .map(|(fam, curve)| {
                let pts: Vec<(f64, f64)> = mus
                    .par_iter()
                    .filter_map(|&m| lim.run(|| f(fam, m, w).ok().map(|v| (m, v))))
                    .collect();
                if curve.reference {
                    Series::new(curve.legend, pts, Style::Dashed, 6)
                } else {
                    others += 1;
                    Series::new(curve.legend, pts, Style::Line, others - 1)
                }
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
