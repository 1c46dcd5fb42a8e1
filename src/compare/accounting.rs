//! The accounting page's data: ε against the number of steps T for the Poisson-subsampled
//! Gaussian (certified bracket and RDP route), the peers' committed figures beside it, and seed
//! 002's σ calibration against the calibrated σ. Computed here; `report::accounting` only
//! formats it.

use super::figure::{Legend, Panel, PlotFigure, Series, Style};
use crate::accounting::{
    calibrate_sigma, eps_for_delta, rdp_route, ComposeOptions, Schedule, SubsampledGaussian, Target,
};
use crate::bounds::conversion::Conversion;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use std::path::Path;

/// One T of the curve.
#[derive(Clone, Debug)]
pub(crate) struct CurveRow {
    /// Steps.
    pub steps: u64,
    /// Certified bracket ends.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Digits the bracket's width certifies.
    pub digits: u32,
    /// RDP route (Canonne–Kamath–Steinke, continuous α).
    pub rdp: f64,
    /// Its order.
    pub rdp_alpha: f64,
    /// Wall time of the bracket, seconds.
    pub seconds: f64,
}

/// A peer's figure from `benches/peers_accounting.csv`.
#[derive(Clone, Debug)]
pub(crate) struct PeerRow {
    /// Case name.
    pub case: String,
    /// q, σ, T.
    pub q: f64,
    /// σ.
    pub sigma: f64,
    /// T.
    pub steps: u64,
    /// Tool and setting.
    pub method: String,
    /// ε (or the error text).
    pub eps: String,
    /// PRV's bracket, when given.
    pub bracket: Option<(f64, f64)>,
    /// dpaudit's bracket at the same case, computed now.
    pub ours: Option<(f64, f64)>,
}

impl PeerRow {
    /// Whether dpaudit's bracket is consistent with the peer's figure: inside the peer's
    /// bracket (PRV), at or above an optimistic estimate, at or below an upper bound (RDP,
    /// pessimistic PLD); `None` when the peer gave no figure or dpaudit has no bracket.
    pub(crate) fn consistent(&self) -> Option<bool> {
        let (lo, hi) = self.ours?;
        let eps = self.eps.parse::<f64>().ok();
        match (eps, self.bracket) {
            (_, Some((a, b))) => Some(a <= lo && hi <= b),
            (Some(e), None) if self.method.contains("optimistic") => Some(e <= lo),
            (Some(e), None) => Some(hi <= e),
            (None, None) => None,
        }
    }
}

/// Seed 002's σ calibration against the calibrated one.
#[derive(Clone, Debug)]
pub(crate) struct Calibration {
    /// Setting.
    pub setting: String,
    /// σ by the notes' formula.
    pub notes_sigma: f64,
    /// Smallest σ meeting the target, sensitivity L/n (the notes').
    pub needed_notes_sens: f64,
    /// Smallest σ meeting the target, sensitivity 2L/n (replacement).
    pub needed_replacement: f64,
}

impl Calibration {
    /// Whether the notes' σ meets the target with their own sensitivity L/n.
    pub(crate) fn notes_hold(&self) -> bool {
        self.notes_sigma >= self.needed_notes_sens
    }
}

/// Everything on the accounting page.
#[derive(Clone, Debug)]
pub(crate) struct AccountingPage {
    /// q, σ, δ of the curve.
    pub q: f64,
    /// σ.
    pub sigma: f64,
    /// δ.
    pub delta: f64,
    /// The curve.
    pub curve: Vec<CurveRow>,
    /// Peers.
    pub peers: Vec<PeerRow>,
    /// Package versions line of the peers' CSV.
    pub peer_versions: String,
    /// Seed 002's σ calibration.
    pub calibration: Calibration,
}

/// Steps of the curve: 10³ … 10⁶, three per decade.
pub(crate) const CURVE_STEPS: [u64; 10] = [
    1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000,
];

fn bracket_of(
    q: &str,
    sigma: &str,
    steps: u64,
    delta: &Scalar,
) -> Result<crate::accounting::Composed> {
    let m = SubsampledGaussian::new(q.parse()?, sigma.parse()?)?;
    eps_for_delta(
        &Schedule::homogeneous(&m, steps)?,
        delta,
        &ComposeOptions {
            digits: 12,
            force_inversion: false,
        },
    )
}

/// Computes the page (q = 0.01, σ = 1, δ = 1e-5, the headline case), reading the peers'
/// figures from `peers_csv`.
pub(crate) fn accounting_page(peers_csv: &Path) -> Result<AccountingPage> {
    let (q, sigma) = ("0.01", "1");
    let delta: Scalar = "1e-5".parse()?;
    let mut curve = Vec::new();
    for &steps in &CURVE_STEPS {
        let t0 = std::time::Instant::now();
        let c = bracket_of(q, sigma, steps, &delta)?;
        let seconds = t0.elapsed().as_secs_f64();
        let m = SubsampledGaussian::new(q.parse()?, sigma.parse()?)?;
        let r = rdp_route(
            &Schedule::homogeneous(&m, steps)?,
            &delta,
            None,
            Conversion::CanonneKamathSteinke,
            10,
        )?;
        curve.push(CurveRow {
            steps,
            lo: c.value.lo.to_f64(),
            hi: c.value.hi.to_f64(),
            digits: c.value.digits(),
            rdp: r.eps.to_f64(),
            rdp_alpha: r.alpha.f64(),
            seconds,
        });
    }
    // The peers' figures are optional (a report run outside the repository has none).
    let text = std::fs::read_to_string(peers_csv).unwrap_or_default();
    let mut lines = text.lines();
    let peer_versions = lines
        .next()
        .unwrap_or("")
        .replace(",#", ";")
        .trim_start_matches("# ")
        .to_string();
    let mut peers = Vec::new();
    for line in lines.skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < 10 || f[5].starts_with("dpaudit") {
            continue;
        }
        let parse = |i: usize, what: &str| -> Result<f64> {
            f[i].parse::<f64>().map_err(|_| {
                Error::invalid(
                    what,
                    format!("{:?} in {}", f[i], peers_csv.display()),
                    "a number",
                )
            })
        };
        let bracket = match (f[7].parse::<f64>(), f[8].parse::<f64>()) {
            (Ok(a), Ok(b)) => Some((a, b)),
            _ => None,
        };
        peers.push(PeerRow {
            case: f[0].to_string(),
            q: parse(1, "q")?,
            sigma: parse(2, "sigma")?,
            steps: parse(3, "steps")? as u64,
            method: f[5].to_string(),
            eps: f[6].to_string(),
            bracket,
            ours: None,
        });
    }
    // dpaudit's bracket at every peer case (computed once per case).
    let mut done: Vec<(String, (f64, f64))> = Vec::new();
    for p in peers.iter_mut() {
        if let Some((_, b)) = done.iter().find(|(c, _)| *c == p.case) {
            p.ours = Some(*b);
            continue;
        }
        let c = bracket_of(
            &format!("{}", p.q),
            &format!("{}", p.sigma),
            p.steps,
            &delta,
        )?;
        let b = (c.value.lo.to_f64(), c.value.hi.to_f64());
        done.push((p.case.clone(), b));
        p.ours = Some(b);
    }
    Ok(AccountingPage {
        q: 0.01,
        sigma: 1.0,
        delta: 1e-5,
        curve,
        peers,
        peer_versions,
        calibration: seed002_calibration()?,
    })
}

/// Seed 002's DP-GD setting (L = 1, n = 1000, T = 100, ε = 1, δ = 1e-5, full batch): the notes'
/// σ = L√(T ln(1/δ))/(nε) against the smallest σ that meets (1, 1e-5), found by
/// `calibrate_sigma` on the exact (q = 1) composition, for sensitivity L/n and 2L/n.
fn seed002_calibration() -> Result<Calibration> {
    let delta: Scalar = "1e-5".parse()?;
    let notes = (100.0f64 * (1e5f64).ln()).sqrt() / 1000.0;
    let c = calibrate_sigma(&Target::add_remove(1.0, delta)?, &"1".parse()?, 100, 1e-6)?;
    Ok(Calibration {
        setting: "L = 1, n = 1000, T = 100 full-batch steps, eps = 1, delta = 1e-5".into(),
        notes_sigma: notes,
        needed_notes_sens: c.sigma * 1e-3,
        needed_replacement: c.sigma * 2e-3,
    })
}

impl AccountingPage {
    /// ε against T: the certified bracket (its midpoint; the width is invisible at this scale),
    /// the RDP route, and the peers' figures at their T.
    pub(crate) fn figure(&self) -> PlotFigure {
        let ours: Vec<(f64, f64)> = self
            .curve
            .iter()
            .map(|r| (r.steps as f64, 0.5 * (r.lo + r.hi)))
            .collect();
        let rdp: Vec<(f64, f64)> = self.curve.iter().map(|r| (r.steps as f64, r.rdp)).collect();
        let mut series = vec![
            Series::new("dpaudit certified bracket", ours, Style::Line, 0),
            Series::new("RDP route (CKS, continuous alpha)", rdp, Style::Dashed, 1),
        ];
        let at = |pred: &dyn Fn(&PeerRow) -> bool| -> Vec<(f64, f64)> {
            self.peers
                .iter()
                .filter(|p| p.q == self.q && p.sigma == self.sigma && pred(p))
                .filter_map(|p| p.eps.parse::<f64>().ok().map(|e| (p.steps as f64, e)))
                .collect()
        };
        series.push(Series::new(
            "PRV (eps_error 0.01)",
            at(&|p| p.method.starts_with("PRV")),
            Style::Markers,
            2,
        ));
        series.push(Series::new(
            "dp_accounting PLD pessimistic",
            at(&|p| p.method.contains("pessimistic")),
            Style::Crosses,
            3,
        ));
        series.push(Series::new(
            "dp_accounting PLD optimistic",
            at(&|p| p.method.contains("optimistic")),
            Style::Markers,
            4,
        ));
        PlotFigure {
            title: format!(
                "DP-SGD: eps(delta = {}) of T steps, q = {}, sigma = {}",
                self.delta, self.q, self.sigma
            ),
            panels: vec![Panel {
                title: "eps against steps".into(),
                x_label: "steps T".into(),
                y_label: "eps".into(),
                log_x: true,
                log_y: false,
                legend: Legend::UpperLeft,
                series,
            }],
        }
    }
}
