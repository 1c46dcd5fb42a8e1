//! The HG experiments behind `dpaudit train` (`kind = "hg_mean"` and `kind = "hg_gd"`): specs,
//! runners, SVG plots with min/max bands, a CSV beside every plot and `summary.md`, written into
//! `<out>/<name>/`. See `docs/training.md#hg-mean-estimation` and
//! `docs/training.md#hg-per-coordinate-gradient-descent`.

use super::band_plot::{plot_bands, Band, Frame};
use super::data::Dataset;
use super::hg::{BoxLaw, Noise};
use super::hg_gd::{self, GdConfig};
use super::hg_mean::{self, EqualMse};
use crate::audit::engine::Observer;
use crate::error::{check_positive, Error, Result};
use crate::fsio::{write_atomic, Table};
use rayon::prelude::*;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::Path;

fn default_digits() -> u32 {
    10
}
fn default_alpha() -> f64 {
    2.0
}
fn default_true() -> bool {
    true
}
/// The default `noises`: every registry family with per-coordinate noise, in registry order.
fn default_noises() -> Vec<String> {
    Noise::all().map(|n| n.name().to_string()).collect()
}

/// The noises named by `names` (the spec key `noises`), looked up in the registry: at least one,
/// distinct, each a registry family with per-coordinate noise (errors name the key and value).
fn resolve_noises(names: &[String]) -> Result<Vec<Noise>> {
    if names.is_empty() {
        return Err(Error::invalid("noises", "[]", "at least one noise family"));
    }
    if let Some((k, dup)) = names
        .iter()
        .enumerate()
        .find(|(k, n)| names[..*k].contains(n))
    {
        return Err(Error::invalid(
            "noises",
            format!("{dup:?} (entry {})", k + 1),
            "distinct families",
        ));
    }
    names.iter().map(|n| Noise::named("noises", n)).collect()
}

/// "A", "A or B", "A, B or C": the noises' display names in running text.
fn or_list(noises: &[Noise]) -> String {
    let names: Vec<&str> = noises.iter().map(|n| n.display()).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

fn parse<T: for<'de> Deserialize<'de>>(table: toml::Table, what: &str) -> Result<T> {
    toml::Value::Table(table)
        .try_into()
        .map_err(|e: toml::de::Error| Error::Parse {
            what: what.into(),
            text: String::new(),
            reason: e.to_string(),
        })
}

/// An experiment's name (its output directory): non-empty, ASCII letters, digits, '_' and '-'.
pub(super) fn check_name(name: &str) -> Result<()> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(Error::invalid(
            "name",
            name,
            "non-empty, only ASCII letters, digits, '_' and '-'",
        ));
    }
    Ok(())
}

/// At least one seed.
pub(super) fn check_seeds(seeds: &[u64]) -> Result<()> {
    if seeds.is_empty() {
        return Err(Error::invalid("seeds", "[]", "at least one seed"));
    }
    Ok(())
}

fn positive(name: &str, v: f64) -> Result<()> {
    check_positive(name, v).map(|_| ())
}

fn io(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

/// One plotted series: label and points (x, y_min, y_mid, y_max).
struct Series {
    label: String,
    pts: Vec<(f64, f64, f64, f64)>,
}

/// Lines at y_mid with a filled min–max band, on linear axes (callers pass log10 values for
/// log plots and say so in the axis label).
fn plot(path: &Path, title: &str, xdesc: &str, ydesc: &str, series: &[Series]) -> Result<()> {
    let all = || series.iter().flat_map(|s| s.pts.iter());
    let fin = |v: &f64| v.is_finite();
    let xs: Vec<f64> = all().map(|p| p.0).filter(fin).collect();
    let ys: Vec<f64> = all().flat_map(|p| [p.1, p.3]).filter(fin).collect();
    let range = |v: &[f64]| {
        let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let pad = if hi > lo { 0.03 * (hi - lo) } else { 1.0 };
        (lo - pad, hi + pad)
    };
    let (x0, x1) = range(&xs);
    let (y0, y1) = range(&ys);
    let bands = series
        .iter()
        .map(|s| {
            let ok: Vec<_> = s
                .pts
                .iter()
                .filter(|p| {
                    p.0.is_finite() && p.1.is_finite() && p.2.is_finite() && p.3.is_finite()
                })
                .collect();
            Band {
                label: s.label.clone(),
                band: ok
                    .iter()
                    .map(|p| (p.0, p.3))
                    .chain(ok.iter().rev().map(|p| (p.0, p.1)))
                    .collect(),
                line: ok.iter().map(|p| (p.0, p.2)).collect(),
            }
        })
        .collect();
    let frame = Frame {
        title,
        title_size: 18,
        y_label_area: 60,
        x_desc: xdesc,
        y_desc: ydesc,
    };
    plot_bands(path, &frame, x0..x1, y0..y1, bands)
}

fn min_mean_max(v: &[f64]) -> (f64, f64, f64) {
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (lo, v.iter().sum::<f64>() / v.len() as f64, hi)
}

// ---------------------------------------------------------------------------------------------
// Mean estimation (HG §6.1)

/// Largest `points` of an hg_mean grid.
const MAX_POINTS: u128 = 1 << 20;

/// Certified per-coordinate RDP terms per second (one core), for [`MeanSpec::estimate`]:
/// measured on experiments/hg_mean.toml.
const MEAN_RATE: f64 = 1e3;

/// Gradient coordinates per second of hg_gd (one core), for [`GdSpec::estimate`], counting a
/// certified per-step RDP term as [`GD_CERTIFY_COST`] coordinates: measured on
/// experiments/hg_gd.toml.
const GD_RATE: f64 = 1e8;

/// The cost of one certified per-coordinate RDP term, in gradient coordinates.
const GD_CERTIFY_COST: f64 = 1e5;

/// `kind = "hg_mean"`: HG §6.1 mean estimation.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeanSpec {
    /// Name (output directory).
    pub name: String,
    /// Dimension d.
    pub d: usize,
    /// Records n.
    pub n: usize,
    /// Standard deviation of the data before clipping to [−1, 1].
    pub data_sd: f64,
    /// Half-width w of the box [c − w, c + w]^d.
    pub half_width: f64,
    /// Biasedness values c (box centres).
    pub shifts: Vec<f64>,
    /// Smallest σ of the curves' grid.
    pub sigma_min: f64,
    /// Largest σ of the grid.
    pub sigma_max: f64,
    /// Grid points (log-spaced).
    pub points: usize,
    /// σ_G of the reference noise (the first of `noises`) in the equal-MSE table.
    pub compare_sigmas: Vec<f64>,
    /// Seeds (one dataset each).
    pub seeds: Vec<u64>,
    /// The noise laws, registry families with per-coordinate noise (default: all of them, in
    /// registry order): the first is the reference of the equal-MSE table (HG: the Gaussian),
    /// the others laws on the box compared with it (HG: rectified, truncated).
    #[serde(default = "default_noises")]
    pub noises: Vec<String>,
    /// Rényi order.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Certified digits of every RDP value.
    #[serde(default = "default_digits")]
    pub digits: u32,
}

impl MeanSpec {
    /// The noises of the curves, in order (the first is the reference).
    pub fn noise_laws(&self) -> Result<Vec<Noise>> {
        resolve_noises(&self.noises)
    }

    /// The laws on the box compared with the reference at equal MSE: `noises` after the first.
    pub fn compared(&self) -> Result<Vec<BoxLaw>> {
        resolve_noises(&self.noises)?;
        self.noises[1..]
            .iter()
            .map(|n| BoxLaw::named("noises", n))
            .collect()
    }

    /// Checks every field, naming the first bad one.
    pub(crate) fn validate(&self) -> Result<()> {
        check_name(&self.name)?;
        if self.d == 0 || self.n == 0 {
            return Err(Error::invalid(
                "d, n",
                format!("{}, {}", self.d, self.n),
                ">= 1",
            ));
        }
        positive("data_sd", self.data_sd)?;
        positive("half_width", self.half_width)?;
        positive("sigma_min", self.sigma_min)?;
        positive("sigma_max", self.sigma_max)?;
        if self.sigma_max <= self.sigma_min {
            return Err(Error::invalid("sigma_max", self.sigma_max, "> sigma_min"));
        }
        if self.points < 2 {
            return Err(Error::invalid("points", self.points, ">= 2"));
        }
        if self.shifts.is_empty() || self.shifts.iter().any(|s| !s.is_finite()) {
            return Err(Error::invalid(
                "shifts",
                format!("{:?}", self.shifts),
                "finite, at least one",
            ));
        }
        for &s in &self.compare_sigmas {
            positive("compare_sigmas", s)?;
        }
        check_seeds(&self.seeds)?;
        self.compared()?;
        hg_gd::check_rdp_settings(self.alpha, self.digits)
    }

    /// The work of the experiment (certified per-coordinate RDP terms: shifts × points × noises
    /// × seeds × d, plus the equal-MSE table), after checking that its data fit in memory.
    pub fn estimate(&self) -> Result<crate::limits::Estimate> {
        use crate::limits::{check_max, check_memory, product};
        check_max("points", self.points as u128, MAX_POINTS)?;
        check_max("d", self.d as u128, u128::from(super::data::MAX_FEATURES))?;
        let seeds = self.seeds.len() as u128;
        check_memory(
            "d",
            self.d,
            "the seeds' mean vectors and curves",
            product(&[self.d as u128, 8, seeds + 2]).and_then(|a| {
                let noises = self.noises.len() as u128;
                product(&[
                    self.points as u128,
                    self.shifts.len() as u128,
                    noises,
                    16,
                    seeds,
                ])
                .and_then(|b| a.checked_add(b))
            }),
        )?;
        let terms = self.shifts.len() as f64
            * (self.points + 4 * self.compare_sigmas.len()) as f64
            * self.noises.len() as f64
            * self.seeds.len() as f64
            * self.d as f64
            + self.seeds.len() as f64 * self.n as f64 * self.d as f64 / 100.0;
        Ok(crate::limits::Estimate::new(
            "certified RDP terms",
            terms,
            MEAN_RATE,
        ))
    }

    /// The σ grid (log-spaced, `points` values from `sigma_min` to `sigma_max`).
    pub fn grid(&self) -> Vec<f64> {
        let (l0, l1) = (self.sigma_min.ln(), self.sigma_max.ln());
        (0..self.points)
            .map(|k| (l0 + (l1 - l0) * k as f64 / (self.points - 1) as f64).exp())
            .collect()
    }

    fn data(&self) -> Result<Vec<Vec<f64>>> {
        self.seeds
            .iter()
            .map(|&s| hg_mean::mean_data(s, self.n, self.d, self.data_sd))
            .collect()
    }
}

/// One cell of the equal-MSE table: (shift, σ_G, family) over the seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct ReductionCell {
    /// Biasedness c.
    pub shift: f64,
    /// The reference noise's σ_G.
    pub sigma_g: f64,
    /// The law of the noise on the box compared with the reference.
    pub family: BoxLaw,
    /// Per seed: the reduction 1 − RDP_bounded/RDP_reference at equal MSE (None: unreachable).
    pub reductions: Vec<Option<f64>>,
    /// Per seed: the target MSE over the family's saturation MSE.
    pub target_over_saturation: Vec<f64>,
    /// Per seed: the bounded mechanism's σ at equal MSE (None: unreachable).
    pub sigmas: Vec<Option<f64>>,
}

impl ReductionCell {
    /// Mean reduction over the seeds where the MSE was reached (None if none).
    pub fn mean(&self) -> Option<f64> {
        let v: Vec<f64> = self.reductions.iter().flatten().copied().collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }
}

/// The equal-MSE reduction table of a [`MeanSpec`] (rows shift × σ_G × compared family, in that
/// order).
pub fn reduction_table(spec: &MeanSpec) -> Result<Vec<ReductionCell>> {
    spec.validate()?;
    let reference = spec.noise_laws()?[0];
    let compared = spec.compared()?;
    let data = spec.data()?;
    let mut out = Vec::new();
    for &c in &spec.shifts {
        let ab = (c - spec.half_width, c + spec.half_width);
        for &sg in &spec.compare_sigmas {
            let pts: Vec<_> = data
                .iter()
                .map(|m| {
                    let (n, alpha, digits) = (spec.n, spec.alpha, spec.digits);
                    hg_mean::reduction_point(reference, &compared, m, n, sg, ab, alpha, digits)
                })
                .collect::<Result<_>>()?;
            for (k, &family) in compared.iter().enumerate() {
                let mut cell = ReductionCell {
                    shift: c,
                    sigma_g: sg,
                    family,
                    reductions: Vec::new(),
                    target_over_saturation: Vec::new(),
                    sigmas: Vec::new(),
                };
                for p in &pts {
                    cell.target_over_saturation
                        .push(p.target_over_saturation[k]);
                    match p.bounded[k] {
                        EqualMse::Unreachable => {
                            cell.reductions.push(None);
                            cell.sigmas.push(None);
                        }
                        EqualMse::At { sigma, rdp } => {
                            cell.reductions.push(Some(1.0 - rdp / p.rdp_reference));
                            cell.sigmas.push(Some(sigma));
                        }
                    }
                }
                out.push(cell);
            }
        }
    }
    Ok(out)
}

/// The CSV of a reduction table (the committed `reduction.csv`).
pub fn reduction_csv(cells: &[ReductionCell]) -> String {
    let mut csv = String::from(
        "shift,sigma_gauss,family,seeds_reached,seeds,reduction_mean,reduction_min,reduction_max,\
         target_over_saturation_mean\n",
    );
    for c in cells {
        let r: Vec<f64> = c.reductions.iter().flatten().copied().collect();
        let (lo, mean, hi) = if r.is_empty() {
            (f64::NAN, f64::NAN, f64::NAN)
        } else {
            min_mean_max(&r)
        };
        let (_, ts, _) = min_mean_max(&c.target_over_saturation);
        let _ = writeln!(
            csv,
            "{},{},{},{},{},{:.6},{:.6},{:.6},{:.6}",
            c.shift,
            c.sigma_g,
            c.family.name(),
            r.len(),
            c.reductions.len(),
            mean,
            lo,
            hi,
            ts
        );
    }
    csv
}

/// Per (shift, σ, mechanism): MSE and RDP over the seeds.
struct CurvePoint {
    sigma: f64,
    mse: Vec<f64>,
    rdp: Vec<f64>,
}

fn mean_curves(
    spec: &MeanSpec,
    noises: &[Noise],
    data: &[Vec<f64>],
    c: f64,
    progress: &Observer,
) -> Result<Vec<Vec<CurvePoint>>> {
    let ab = (c - spec.half_width, c + spec.half_width);
    let grid = spec.grid();
    noises
        .iter()
        .map(|&noise| {
            let deadline = crate::limits::current();
            grid.par_iter()
                .map(|&s| {
                    if let Some(dl) = deadline {
                        dl.check("hg_mean curves")?;
                    }
                    let mut p = CurvePoint {
                        sigma: s,
                        mse: Vec::new(),
                        rdp: Vec::new(),
                    };
                    for m in data {
                        p.mse.push(hg_mean::mse(noise, m, s, ab.0, ab.1)?);
                        p.rdp.push(
                            hg_mean::mean_rdp(noise, m, spec.n, s, ab, spec.alpha, spec.digits)?
                                .to_f64(),
                        );
                    }
                    progress.advance(1);
                    Ok(p)
                })
                .collect()
        })
        .collect()
}

fn fmt_cell(c: &ReductionCell) -> String {
    let r: Vec<f64> = c.reductions.iter().flatten().copied().collect();
    let (_, ts, _) = min_mean_max(&c.target_over_saturation);
    if r.is_empty() {
        return format!("unreachable ({:.2})", ts);
    }
    let (lo, mean, hi) = min_mean_max(&r);
    let miss = if r.len() < c.reductions.len() {
        format!(", {}/{} seeds", r.len(), c.reductions.len())
    } else {
        String::new()
    };
    format!(
        "{:.1} % ({:.1}–{:.1}{miss}; {:.2})",
        100.0 * mean,
        100.0 * lo,
        100.0 * hi,
        ts
    )
}

/// Runs a [`MeanSpec`] and writes `<out>/<name>/`: per shift `curves_c<shift>.{csv,svg}`
/// (MSE against RDP), `reduction.csv` and `summary.md`; returns the summary.
pub(crate) fn run_mean(spec: &MeanSpec, out: &Path, progress: &Observer) -> Result<String> {
    spec.validate()?;
    let dir = out.join(&spec.name);
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let noises = spec.noise_laws()?;
    let compared = spec.compared()?;
    let data = spec.data()?;
    // Progress: one unit per σ point of each curve (shifts × mechanisms × points).
    progress.start((spec.shifts.len() * noises.len() * spec.points) as u64);
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# HG §6.1 mean estimation `{}`\n\n\
         d = {}, n = {} records, coordinates N(0, {}²) clipped to [−1, 1]; seeds {:?} (one \
         dataset each). Box [c − {w}, c + {w}]^d with biasedness c ∈ {:?}. Per-instance RDP at \
         α = {} against the worst replace-one neighbour (HG Prop. 5.1, each coordinate's worse \
         direction), every 1-D term certified to {} digits (printed in f64). MSE in closed form. \
         Curves: mean over seeds, band min–max over seeds.\n",
        spec.name,
        spec.d,
        spec.n,
        spec.data_sd,
        spec.seeds,
        spec.shifts,
        spec.alpha,
        spec.digits,
        w = spec.half_width
    );
    for &c in &spec.shifts {
        let curves = mean_curves(spec, &noises, &data, c, progress)?;
        let stem = format!("curves_c{c}");
        let mut csv =
            String::from("mechanism,sigma,mse_mean,mse_min,mse_max,rdp_mean,rdp_min,rdp_max\n");
        let mut series = Vec::new();
        for (noise, pts) in noises.iter().zip(&curves) {
            let mut s = Series {
                label: noise.name().into(),
                pts: Vec::new(),
            };
            for p in pts {
                let (ml, mm, mh) = min_mean_max(&p.mse);
                let (rl, rm, rh) = min_mean_max(&p.rdp);
                let _ = writeln!(
                    csv,
                    "{},{:e},{:e},{:e},{:e},{:e},{:e},{:e}",
                    noise.name(),
                    p.sigma,
                    mm,
                    ml,
                    mh,
                    rm,
                    rl,
                    rh
                );
                s.pts.push((mm.log10(), rl.log10(), rm.log10(), rh.log10()));
            }
            series.push(s);
        }
        write_atomic(&dir.join(format!("{stem}.csv")), &csv)?;
        plot(
            &dir.join(format!("{stem}.svg")),
            &format!("{}: biasedness c = {c}, alpha = {}", spec.name, spec.alpha),
            "log10 MSE",
            "log10 per-instance RDP",
            &series,
        )?;
        let _ = writeln!(md, "* c = {c}: [plot]({stem}.svg), [csv]({stem}.csv)");
    }
    progress.finish();
    let cells = reduction_table(spec)?;
    write_atomic(&dir.join("reduction.csv"), reduction_csv(&cells))?;
    let _ = writeln!(
        md,
        "\n## Privacy cost at equal MSE ([csv](reduction.csv))\n\n\
         Each cell: mean over seeds of 1 − RDP_bounded / RDP_Gauss with the bounded mechanism's σ \
         set so that its MSE equals the {r}'s dσ_G² (min–max over seeds; then the target \
         MSE divided by the bounded family's saturation MSE, its σ → ∞ limit: near 1 the \
         bounded output is almost independent of the data and the comparison degenerates). \
         'unreachable': the {r}'s MSE is at or beyond the family's saturation.\n",
        r = noises[0].display()
    );
    for &family in &compared {
        let _ = write!(md, "### {}\n\n", family.name());
        let mut header = vec!["c \\ σ_G".to_string()];
        header.extend(spec.compare_sigmas.iter().map(|s| s.to_string()));
        let mut table = Table::new(&header);
        for &c in &spec.shifts {
            let mut row = vec![c.to_string()];
            row.extend(
                cells
                    .iter()
                    .filter(|x| x.shift == c && x.family == family)
                    .map(fmt_cell),
            );
            table.push(row);
        }
        md.push_str(&table.markdown());
        md.push('\n');
    }
    write_atomic(&dir.join("summary.md"), &md)?;
    Ok(md)
}

// ---------------------------------------------------------------------------------------------
// Per-coordinate GD (HG §5)

/// `kind = "hg_gd"`: HG §5 full-batch GD with per-coordinate noise.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct GdSpec {
    /// Name (output directory).
    pub name: String,
    /// A `.csv` table, label in column 0 (±1), relative to the spec's directory.
    pub data: String,
    /// Standardise the feature columns (default true).
    #[serde(default = "default_true")]
    pub standardize: bool,
    /// Per-coordinate clip C.
    pub clip: f64,
    /// λ.
    pub lambda: f64,
    /// Step size η.
    pub lr: f64,
    /// Steps T.
    pub steps: usize,
    /// Noise σ per coordinate (one plot each; the same σ for every noise).
    pub sigmas: Vec<f64>,
    /// Seeds.
    pub seeds: Vec<u64>,
    /// The noise laws, registry families with per-coordinate noise (default: all of them, in
    /// registry order); the first is the reference of the reductions.
    #[serde(default = "default_noises")]
    pub noises: Vec<String>,
    /// Rényi order.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Certified digits.
    #[serde(default = "default_digits")]
    pub digits: u32,
}

impl GdSpec {
    fn config(&self, noise: Option<Noise>, sigma: f64) -> GdConfig {
        GdConfig {
            noise,
            sigma,
            clip: self.clip,
            steps: self.steps,
            lr: self.lr,
            lambda: self.lambda,
            alpha: self.alpha,
            digits: self.digits,
        }
    }

    /// Checks every field, naming the first bad one.
    pub(crate) fn validate(&self) -> Result<()> {
        check_name(&self.name)?;
        check_seeds(&self.seeds)?;
        if self.sigmas.is_empty() {
            return Err(Error::invalid("sigmas", "[]", "at least one sigma"));
        }
        let first = resolve_noises(&self.noises)?[0];
        for &s in &self.sigmas {
            self.config(Some(first), s).validate()?;
        }
        Ok(())
    }

    /// The work of the experiment on `data` (gradient coordinates and certified per-step RDP
    /// terms over all runs), after checking that its per-run curves fit in memory.
    pub(crate) fn estimate(&self, data: &Dataset) -> Result<crate::limits::Estimate> {
        use crate::limits::{check_memory, product};
        let noises = self.noises.len() as u128;
        let runs = 1 + noises * self.sigmas.len() as u128 * self.seeds.len() as u128;
        let steps = self.steps as u128 + 1;
        // Per run: losses, per-step RDP and FIL, iterates (d each), and the certified terms.
        check_memory(
            "steps",
            self.steps,
            &format!("the curves and iterates of {runs} runs"),
            product(&[runs, steps, 8 * (data.d as u128 + 4) + 64]),
        )?;
        let work =
            runs as f64 * self.steps as f64 * data.d as f64 * (data.n as f64 + GD_CERTIFY_COST);
        Ok(crate::limits::Estimate::new(
            "gradient coordinates",
            work,
            GD_RATE,
        ))
    }

    /// The dataset, read and standardised as specified (`base` resolves a relative path).
    pub(crate) fn dataset(&self, base: &Path) -> Result<Dataset> {
        let mut data = Dataset::read_csv(&base.join(&self.data), 0)?;
        if self.standardize {
            data.standardize();
        }
        Ok(data)
    }
}

/// Runs a [`GdSpec`] and writes `<out>/<name>/`: per σ `loss_sigma<σ>.{csv,svg}` (F(θ_t), min–max
/// over seeds) and `rdp_sigma<σ>.{csv,svg}` (the composed per-instance RDP after t steps), and
/// `summary.md`; returns the summary.
pub(crate) fn run_gd(
    spec: &GdSpec,
    base: &Path,
    out: &Path,
    progress: &Observer,
) -> Result<String> {
    spec.validate()?;
    let noises = resolve_noises(&spec.noises)?;
    let data = spec.dataset(base)?;
    // Progress: one unit per training step of every run (the non-private one, then σ × noise ×
    // seed), advanced after each run.
    let runs = 1 + spec.sigmas.len() * noises.len() * spec.seeds.len();
    progress.start((runs as u64).saturating_mul(spec.steps as u64));
    let dir = out.join(&spec.name);
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    let mut md = gd_header(spec, &noises, &data);
    let np = hg_gd::run(&data, &spec.config(None, 1.0), 0)?;
    progress.advance(spec.steps as u64);
    let _ = writeln!(
        md,
        "Non-private clipped GD: F(θ_T) = {:.6} (F(θ_0) = {:.6}).\n",
        np.loss[spec.steps], np.loss[0]
    );
    for &sigma in &spec.sigmas {
        let runs = gd_runs(spec, &noises, &data, sigma, progress)?;
        let stem = format!("sigma{sigma}");
        write_gd_loss(&dir, spec, sigma, &stem, &np, &runs)?;
        write_gd_rdp(&dir, spec, sigma, &stem, &runs)?;
        let _ = writeln!(
            md,
            "## σ = {sigma} ([loss](loss_{stem}.svg), [csv](loss_{stem}.csv); \
             [RDP](rdp_{stem}.svg), [csv](rdp_{stem}.csv))\n"
        );
        md.push_str(&gd_table(spec, &runs).markdown());
        md.push('\n');
    }
    progress.finish();
    write_atomic(&dir.join("summary.md"), &md)?;
    Ok(md)
}

/// The runs at one σ: per noise of the spec, one run per seed.
type GdRuns = Vec<(Noise, Vec<hg_gd::GdRun>)>;

/// The summary's heading and setting paragraph.
fn gd_header(spec: &GdSpec, noises: &[Noise], data: &Dataset) -> String {
    let mut md = String::new();
    let _ = writeln!(
        md,
        "# HG §5 per-coordinate full-batch GD `{}`\n\n\
         Data `{}` ({} × {}{}); L2-regularised logistic regression, λ = {}, η = {}, T = {} steps, \
         θ_0 = 0; per-record gradients clipped per coordinate to [−{c}, {c}]; the full-batch mean \
         released with {} noise of the same σ per coordinate (box \
         [−{c}, {c}]^d). Seeds {:?}. Per-run per-instance RDP at α = {}: Σ over steps of the \
         worst-replace-one-neighbour bound at that step's iterate (HG Prop. 5.1), each step \
         certified, the total to {} digits. Curves: min–max band over seeds, line at the mean.\n",
        spec.name,
        spec.data,
        data.n,
        data.d,
        if spec.standardize {
            ", standardised"
        } else {
            ""
        },
        spec.lambda,
        spec.lr,
        spec.steps,
        or_list(noises),
        spec.seeds,
        spec.alpha,
        spec.digits,
        c = spec.clip
    );
    md
}

/// Every noise's runs at `sigma`, one per seed, each advancing `progress` by its steps.
fn gd_runs(
    spec: &GdSpec,
    noises: &[Noise],
    data: &Dataset,
    sigma: f64,
    progress: &Observer,
) -> Result<GdRuns> {
    let mut runs = Vec::new();
    for &noise in noises {
        let cfg = spec.config(Some(noise), sigma);
        let rs: Vec<_> = spec
            .seeds
            .iter()
            .map(|&s| {
                let r = hg_gd::run(data, &cfg, s);
                progress.advance(spec.steps as u64);
                r
            })
            .collect::<Result<_>>()?;
        runs.push((noise, rs));
    }
    Ok(runs)
}

/// Min, mean and max over seeds of F(θ_t).
fn loss_stats(rs: &[hg_gd::GdRun], t: usize) -> (f64, f64, f64) {
    min_mean_max(&rs.iter().map(|r| r.loss[t]).collect::<Vec<_>>())
}

/// The CSV header `t[,first]` followed by min, mean and max columns per noise.
fn band_header(first: &str, runs: &GdRuns) -> String {
    let mut csv = format!("t{first}");
    for (noise, _) in runs {
        let _ = write!(csv, ",{0} min,{0} mean,{0} max", noise.name());
    }
    csv.push('\n');
    csv
}

/// `loss_<stem>.{csv,svg}`: the non-private loss and each noise's band over seeds.
fn write_gd_loss(
    dir: &Path,
    spec: &GdSpec,
    sigma: f64,
    stem: &str,
    np: &hg_gd::GdRun,
    runs: &GdRuns,
) -> Result<()> {
    let mut csv = band_header(",non-private", runs);
    let mut series = vec![Series {
        label: "non-private (clipped)".into(),
        pts: np
            .loss
            .iter()
            .enumerate()
            .map(|(t, &v)| (t as f64, v, v, v))
            .collect(),
    }];
    for (noise, rs) in runs {
        series.push(Series {
            label: noise.name().into(),
            pts: (0..=spec.steps)
                .map(|t| {
                    let (l, m, h) = loss_stats(rs, t);
                    (t as f64, l, m, h)
                })
                .collect(),
        });
    }
    for t in 0..=spec.steps {
        let _ = write!(csv, "{t},{:e}", np.loss[t]);
        for (_, rs) in runs {
            let (l, m, h) = loss_stats(rs, t);
            let _ = write!(csv, ",{l:e},{m:e},{h:e}");
        }
        csv.push('\n');
    }
    write_atomic(&dir.join(format!("loss_{stem}.csv")), &csv)?;
    plot(
        &dir.join(format!("loss_{stem}.svg")),
        &format!("{}: sigma = {sigma}, clip = {}", spec.name, spec.clip),
        "step t",
        "F(theta_t)",
        &series,
    )
}

/// The composed RDP after t = 0, 1, …, T steps of one run.
fn cumulative_rdp(r: &hg_gd::GdRun) -> Vec<f64> {
    let mut acc = 0.0;
    let mut v = vec![0.0];
    for s in &r.step_rdp {
        acc += s;
        v.push(acc);
    }
    v
}

/// `rdp_<stem>.{csv,svg}`: each noise's composed RDP after t steps, band over seeds.
fn write_gd_rdp(dir: &Path, spec: &GdSpec, sigma: f64, stem: &str, runs: &GdRuns) -> Result<()> {
    let mut csv = band_header("", runs);
    let cums: Vec<Vec<Vec<f64>>> = runs
        .iter()
        .map(|(_, rs)| rs.iter().map(cumulative_rdp).collect())
        .collect();
    let cstat =
        |k: usize, t: usize| min_mean_max(&cums[k].iter().map(|v| v[t]).collect::<Vec<_>>());
    let mut series = Vec::new();
    for (k, (noise, _)) in runs.iter().enumerate() {
        series.push(Series {
            label: noise.name().into(),
            pts: (0..=spec.steps)
                .map(|t| {
                    let (l, m, h) = cstat(k, t);
                    (t as f64, l, m, h)
                })
                .collect(),
        });
    }
    for t in 0..=spec.steps {
        let _ = write!(csv, "{t}");
        for k in 0..runs.len() {
            let (l, m, h) = cstat(k, t);
            let _ = write!(csv, ",{l:e},{m:e},{h:e}");
        }
        csv.push('\n');
    }
    write_atomic(&dir.join(format!("rdp_{stem}.csv")), &csv)?;
    plot(
        &dir.join(format!("rdp_{stem}.svg")),
        &format!("{}: composed per-instance RDP, sigma = {sigma}", spec.name),
        "step t",
        &format!("RDP at alpha = {}", spec.alpha),
        &series,
    )
}

/// The summary's table at one σ: final loss, per-run RDP and FIL per noise, with the mean
/// reductions against the first noise (HG: the Gaussian).
fn gd_table(spec: &GdSpec, runs: &GdRuns) -> Table {
    let mut table = Table::new(&[
        "mechanism".to_string(),
        "F(θ_T) min".into(),
        "F(θ_T) max".into(),
        format!("per-run RDP(α = {}) min", spec.alpha),
        "max".into(),
        format!("mean reduction vs {}", runs[0].0.display()),
        "per-run FIL min".into(),
        "max".into(),
        "mean FIL reduction".into(),
    ]);
    let gauss: Vec<f64> = runs[0]
        .1
        .iter()
        .map(|r| r.rdp.as_ref().map_or(f64::NAN, |c| c.to_f64()))
        .collect();
    for (noise, rs) in runs {
        let (ll, _, lh) = loss_stats(rs, spec.steps);
        let eps: Vec<f64> = rs
            .iter()
            .map(|r| r.rdp.as_ref().map_or(f64::NAN, |c| c.to_f64()))
            .collect();
        let (el, _, eh) = min_mean_max(&eps);
        let red: Vec<f64> = eps.iter().zip(&gauss).map(|(e, g)| 1.0 - e / g).collect();
        let (_, rm, _) = min_mean_max(&red);
        let fil = |r: &hg_gd::GdRun| r.fil.as_ref().map_or(f64::NAN, |c| c.to_f64());
        let fils: Vec<f64> = rs.iter().map(fil).collect();
        let (fl, _, fh) = min_mean_max(&fils);
        let fred: Vec<f64> = fils
            .iter()
            .zip(runs[0].1.iter().map(fil))
            .map(|(f, g)| 1.0 - f / g)
            .collect();
        let (_, fm, _) = min_mean_max(&fred);
        table.push(vec![
            noise.name().into(),
            format!("{ll:.6}"),
            format!("{lh:.6}"),
            format!("{el:.6e}"),
            format!("{eh:.6e}"),
            format!("{:.1} %", 100.0 * rm),
            format!("{fl:.6e}"),
            format!("{fh:.6e}"),
            format!("{:.1} %", 100.0 * fm),
        ]);
    }
    table
}

/// Runs an HG experiment spec (already parsed to a TOML table, `kind` removed) of the given kind.
/// Refuses one that would run over an hour unless `yes` (limits on memory are checked
/// whatever `yes`).
pub(crate) fn run_table(
    kind: &str,
    table: toml::Table,
    base: &Path,
    out: &Path,
    yes: bool,
    progress: &Observer,
) -> Result<String> {
    match kind {
        "hg_mean" => {
            let spec = parse::<MeanSpec>(table, "hg_mean spec")?;
            spec.validate()?;
            spec.estimate()?
                .confirm(&format!("experiment {:?}", spec.name), yes)?;
            run_mean(&spec, out, progress)
        }
        "hg_gd" => {
            let spec = parse::<GdSpec>(table, "hg_gd spec")?;
            spec.validate()?;
            let data = spec.dataset(base)?;
            spec.estimate(&data)?
                .confirm(&format!("experiment {:?}", spec.name), yes)?;
            run_gd(&spec, base, out, progress)
        }
        _ => Err(Error::invalid("kind", kind, "hmb, hg_mean or hg_gd")),
    }
}

/// Parses a `kind = "hg_mean"` spec from TOML text (the `kind` key is accepted and checked).
pub fn parse_mean_spec(text: &str) -> Result<MeanSpec> {
    let mut t: toml::Table = toml::from_str(text).map_err(|e| Error::Parse {
        what: "hg_mean spec".into(),
        text: String::new(),
        reason: e.to_string(),
    })?;
    match t.remove("kind") {
        Some(toml::Value::String(k)) if k == "hg_mean" => {}
        other => return Err(Error::invalid("kind", format!("{other:?}"), "\"hg_mean\"")),
    }
    let s: MeanSpec = parse(t, "hg_mean spec")?;
    s.validate()?;
    Ok(s)
}
