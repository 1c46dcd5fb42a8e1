//! A small plot renderer on top of plotters: a figure is one or more panels side by side, each
//! with named series (lines, dashed lines, markers) on linear or log₁₀ axes. Every figure is
//! written as SVG and PNG (and its data as CSV by the caller), atomically.
//!
//! Text is drawn with the DejaVu Sans font bundled in `assets/` (embedded with `include_bytes!`
//! and registered with plotters' `ab_glyph` backend), so no system font is needed at run time.
//! Log axes are drawn as linear axes over log₁₀ of the data with tick labels 10^k, which keeps a
//! single chart type for all four axis combinations.

use super::csv::{fmt_sig, tmp_path, write_atomic, Table};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::Path;
use std::sync::Once;

/// The bundled font (DejaVu Sans; license in `assets/README.md`).
static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
/// The family name the font is registered under.
const FAMILY: &str = "sans-serif";

static REGISTER: Once = Once::new();

/// Registers the bundled font with plotters (idempotent).
pub(crate) fn register_font() -> Result<()> {
    let mut res = Ok(());
    REGISTER.call_once(|| {
        res = plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
            .map_err(|_| Error::Io("bundled font assets/DejaVuSans.ttf is not a valid TTF".into()));
    });
    res
}

pub(crate) use crate::compare::figure::{Legend, Panel, PlotFigure, Style};

impl PlotFigure {
    /// The figure's data as a CSV table `panel,series,x,y` (deterministic).
    pub(crate) fn table(&self) -> Table {
        let mut t = Table::new(&["panel", "series", "x", "y"]);
        for p in &self.panels {
            for s in &p.series {
                for &(x, y) in &s.points {
                    t.push(vec![
                        p.title.clone(),
                        s.name.clone(),
                        fmt_sig(x, 12),
                        fmt_sig(y, 12),
                    ]);
                }
            }
        }
        t
    }
}

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),  // blue
    RGBColor(214, 39, 40),   // red
    RGBColor(44, 160, 44),   // green
    RGBColor(255, 127, 14),  // orange
    RGBColor(148, 103, 189), // purple
    RGBColor(140, 86, 75),   // brown
    RGBColor(0, 0, 0),       // black
    RGBColor(23, 190, 207),  // cyan
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// Pixel size of one panel.
const PANEL_W: u32 = 640;
const PANEL_H: u32 = 480;
const TITLE_H: u32 = 40;

/// Renders `fig` to `dir/stem.svg` and `dir/stem.png` (atomically) and its data to
/// `dir/stem.csv`.
pub(crate) fn render(fig: &PlotFigure, dir: &Path, stem: &str) -> Result<()> {
    register_font()?;
    let (rows, cols) = grid(fig.panels.len());
    let size = (PANEL_W * cols as u32, PANEL_H * rows as u32 + TITLE_H);
    // SVG into a string, then an atomic write.
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw(fig, &root)?;
        root.present().map_err(plot_err)?;
    }
    write_atomic(&dir.join(format!("{stem}.svg")), svg.as_bytes())?;
    // PNG: the encoder picks the format from the extension, so the temporary file is
    // `stem.png.tmp.png`; then rename.
    let png = dir.join(format!("{stem}.png"));
    let mut tmp = tmp_path(&png).into_os_string();
    tmp.push(".png");
    let tmp = std::path::PathBuf::from(tmp);
    {
        let root = BitMapBackend::new(&tmp, size).into_drawing_area();
        draw(fig, &root)?;
        root.present().map_err(plot_err)?;
    }
    std::fs::rename(&tmp, &png)
        .map_err(|e| Error::Io(format!("cannot rename {}: {e}", tmp.display())))?;
    fig.table().write(&dir.join(format!("{stem}.csv")))
}

fn plot_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Io(format!("plot: {e:?}"))
}

fn tr(v: f64, log: bool) -> Option<f64> {
    if log {
        (v > 0.0 && v.is_finite()).then(|| v.log10())
    } else {
        v.is_finite().then_some(v)
    }
}

/// Data range of the transformed coordinates, padded.
fn range(vals: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let w = if log { 0.5 } else { lo.abs().max(1.0) * 0.1 };
        return (lo - w, hi + w);
    }
    let pad = (hi - lo) * 0.04;
    (lo - pad, hi + pad)
}

fn tick_label(v: f64, log: bool) -> String {
    if log {
        let r = v.round();
        if (v - r).abs() < 1e-9 {
            let k = r as i32;
            match k {
                0 => "1".into(),
                1 => "10".into(),
                -1 => "0.1".into(),
                _ => format!("1e{k}"),
            }
        } else {
            fmt_sig(10f64.powf(v), 2)
        }
    } else {
        fmt_sig(v, 4)
    }
}

/// Rows and columns of the panel grid: at most [`MAX_COLUMNS`] per row.
fn grid(n: usize) -> (usize, usize) {
    let n = n.max(1);
    let cols = n.min(MAX_COLUMNS);
    (n.div_ceil(cols), cols)
}

/// Panels per row.
const MAX_COLUMNS: usize = 3;

/// Number of tick labels: on a log axis one per decade (so that ticks fall on powers of ten),
/// at most 12; on a linear axis 8.
fn label_count(lo: f64, hi: f64, log: bool) -> usize {
    if log {
        let decades = (hi.floor() - lo.ceil()) as i64 + 1;
        if decades >= 2 {
            return (decades as usize).min(12);
        }
    }
    8
}

fn draw<DB: DrawingBackend>(fig: &PlotFigure, root: &DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(plot_err)?;
    let (top, body) = root.split_vertically(TITLE_H);
    top.titled(&fig.title, (FAMILY, 24).into_font())
        .map_err(plot_err)?;
    let areas = body.split_evenly(grid(fig.panels.len()));
    for (panel, area) in fig.panels.iter().zip(areas.iter()) {
        draw_panel(panel, area)?;
    }
    Ok(())
}

fn draw_panel<DB: DrawingBackend>(p: &Panel, area: &DrawingArea<DB, Shift>) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let pts: Vec<Vec<(f64, f64)>> = p
        .series
        .iter()
        .map(|s| {
            s.points
                .iter()
                .filter_map(|&(x, y)| Some((tr(x, p.log_x)?, tr(y, p.log_y)?)))
                .collect()
        })
        .collect();
    let (x0, x1) = range(pts.iter().flatten().map(|q| q.0), p.log_x);
    let (y0, y1) = range(pts.iter().flatten().map(|q| q.1), p.log_y);
    let mut chart = ChartBuilder::on(area)
        .caption(&p.title, (FAMILY, 17).into_font())
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(plot_err)?;
    let (lx, ly) = (p.log_x, p.log_y);
    let xfmt = move |v: &f64| tick_label(*v, lx);
    let yfmt = move |v: &f64| tick_label(*v, ly);
    chart
        .configure_mesh()
        .x_desc(p.x_label.as_str())
        .y_desc(p.y_label.as_str())
        .axis_desc_style((FAMILY, 15).into_font())
        .label_style((FAMILY, 13).into_font())
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .x_labels(label_count(x0, x1, p.log_x))
        .y_labels(label_count(y0, y1, p.log_y))
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(plot_err)?;
    for (s, pts) in p.series.iter().zip(pts) {
        if pts.is_empty() {
            continue;
        }
        let c = color(s.color);
        let anno = match s.style {
            Style::Line => chart
                .draw_series(LineSeries::new(pts, c.stroke_width(2)))
                .map_err(plot_err)?,
            Style::Dashed => chart
                .draw_series(DashedLineSeries::new(pts, 8, 5, c.stroke_width(2)))
                .map_err(plot_err)?,
            Style::Markers => chart
                .draw_series(pts.into_iter().map(move |q| Circle::new(q, 6, c.filled())))
                .map_err(plot_err)?,
            Style::Crosses => chart
                .draw_series(
                    pts.into_iter()
                        .map(move |q| Cross::new(q, 7, c.stroke_width(3))),
                )
                .map_err(plot_err)?,
        };
        let style = s.style;
        anno.label(s.name.as_str())
            .legend(move |(x, y)| match style {
                Style::Line | Style::Dashed => {
                    PathElement::new(vec![(x, y), (x + 22, y)], c.stroke_width(2)).into_dyn()
                }
                Style::Markers => Circle::new((x + 11, y), 5, c.filled()).into_dyn(),
                Style::Crosses => Cross::new((x + 11, y), 6, c.stroke_width(3)).into_dyn(),
            });
    }
    let pos = match p.legend {
        Legend::UpperLeft => SeriesLabelPosition::UpperLeft,
        Legend::UpperRight => SeriesLabelPosition::UpperRight,
        Legend::LowerRight => SeriesLabelPosition::LowerRight,
        Legend::LowerMiddle => SeriesLabelPosition::LowerMiddle,
    };
    chart
        .configure_series_labels()
        .position(pos)
        .label_font((FAMILY, 13).into_font())
        .background_style(WHITE.mix(0.85))
        .border_style(RGBColor(160, 160, 160))
        .draw()
        .map_err(plot_err)?;
    Ok(())
}

#[cfg(test)]
mod tests;
