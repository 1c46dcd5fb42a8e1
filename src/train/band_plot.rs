//! The min–max band plot of the training outputs (`dpaudit train`'s convergence curves and the
//! HG reports' figures): per series a filled band at 20 % opacity and a line with a legend entry,
//! written as SVG atomically (`NAME.tmp.svg`, then rename).

use crate::error::{Error, Result};
use plotters::coord::ranged1d::{AsRangedCoord, Ranged, ValueFormatter};
use plotters::prelude::*;
use std::path::Path;

/// One plotted series: its legend label, the closed band polygon and the line.
pub(super) struct Band<C> {
    /// Legend label.
    pub label: String,
    /// The band's outline: the upper edge, then the lower edge backwards.
    pub band: Vec<C>,
    /// The line drawn over the band.
    pub line: Vec<C>,
}

/// The chart's frame: caption and its font size, the y-label area's width and the axis labels.
pub(super) struct Frame<'a> {
    /// Caption.
    pub title: &'a str,
    /// Caption font size.
    pub title_size: u32,
    /// Width of the y-label area.
    pub y_label_area: u32,
    /// x-axis label.
    pub x_desc: &'a str,
    /// y-axis label.
    pub y_desc: &'a str,
}

/// Draws `bands` on the axes `x` × `y` into the 800 × 500 SVG `path`.
pub(super) fn plot_bands<X, Y>(
    path: &Path,
    frame: &Frame<'_>,
    x: X,
    y: Y,
    bands: Vec<Band<(X::Value, Y::Value)>>,
) -> Result<()>
where
    X: AsRangedCoord,
    Y: AsRangedCoord,
    X::CoordDescType: Ranged + ValueFormatter<X::Value>,
    Y::CoordDescType: Ranged + ValueFormatter<Y::Value>,
    X::Value: Clone + 'static,
    Y::Value: Clone + 'static,
{
    let err = |e: &dyn std::fmt::Display| Error::Io(format!("{}: {e}", path.display()));
    crate::report::plots::register_font()?;
    let tmp = path.with_extension("tmp.svg");
    {
        let root = SVGBackend::new(&tmp, (800, 500)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut ch = ChartBuilder::on(&root)
            .caption(frame.title, ("sans-serif", frame.title_size))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(frame.y_label_area)
            .build_cartesian_2d(x, y)
            .map_err(|e| err(&e))?;
        ch.configure_mesh()
            .x_desc(frame.x_desc)
            .y_desc(frame.y_desc)
            .draw()
            .map_err(|e| err(&e))?;
        for (i, b) in bands.into_iter().enumerate() {
            let col = Palette99::pick(i).to_rgba();
            ch.draw_series(std::iter::once(Polygon::new(b.band, col.mix(0.2).filled())))
                .map_err(|e| err(&e))?;
            ch.draw_series(LineSeries::new(b.line, col.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(b.label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col));
        }
        ch.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    std::fs::rename(&tmp, path).map_err(|e| err(&e))
}

/// A tick label of a log₁₀ axis drawn as a linear axis over log₁₀ of the data: "1e-4" on a power
/// of ten, otherwise the value to 2 significant digits (never a float artefact such as
/// `0.30000000000000004`).
pub(super) fn log_tick_label(v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-9 {
        match r as i32 {
            0 => "1".into(),
            1 => "10".into(),
            k => format!("1e{k}"),
        }
    } else {
        let x = 10f64.powf(v);
        if (1e-2..1e4).contains(&x) {
            crate::compare::fmt::fmt_sig(x, 2)
        } else {
            // 2 significant digits in scientific notation, as the powers of ten: 1.5e-4, 2e-4.
            let s = format!("{x:.1e}");
            s.replacen(".0e", "e", 1)
        }
    }
}

/// A tick label of an integer-valued linear axis (steps): the nearest integer, or the value to
/// 3 significant digits between integers.
pub(super) fn int_tick_label(v: f64) -> String {
    let r = v.round();
    if (v - r).abs() < 1e-9 {
        format!("{}", r as i64)
    } else {
        crate::compare::fmt::fmt_sig(v, 3)
    }
}

/// Draws `bands` (points (t, log₁₀ value)) on t ∈ [0, `t_max`] × a log₁₀ y axis spanning
/// `y` (log₁₀ units) into `DIR/STEM.svg` and `DIR/STEM.png` (1000 × 600, atomically), with
/// integer step labels and [`log_tick_label`]s.
pub(super) fn plot_log_bands(
    dir: &Path,
    stem: &str,
    frame: &Frame<'_>,
    t_max: usize,
    y: (f64, f64),
    bands: &[Band<(f64, f64)>],
) -> Result<()> {
    crate::report::plots::register_font()?;
    let size = (1000, 600);
    let svg_path = dir.join(format!("{stem}.svg"));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        draw_log_bands(&root, frame, t_max, y, bands)
            .map_err(|e| Error::Io(format!("{}: {e}", svg_path.display())))?;
        root.present()
            .map_err(|e| Error::Io(format!("{}: {e}", svg_path.display())))?;
    }
    crate::fsio::write_atomic(&svg_path, svg.as_bytes())?;
    // The PNG encoder picks the format from the extension: write `STEM.png.tmp.png`, rename.
    let png = dir.join(format!("{stem}.png"));
    let tmp = dir.join(format!("{stem}.png.tmp.png"));
    let err = |e: &dyn std::fmt::Display| Error::Io(format!("{}: {e}", png.display()));
    {
        let root = BitMapBackend::new(&tmp, size).into_drawing_area();
        draw_log_bands(&root, frame, t_max, y, bands).map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    std::fs::rename(&tmp, &png).map_err(|e| err(&e))
}

fn draw_log_bands<DB: DrawingBackend>(
    root: &DrawingArea<DB, plotters::coord::Shift>,
    frame: &Frame<'_>,
    t_max: usize,
    (y0, y1): (f64, f64),
    bands: &[Band<(f64, f64)>],
) -> std::result::Result<(), String>
where
    DB::ErrorType: 'static,
{
    let e = |x: &dyn std::fmt::Debug| format!("plot: {x:?}");
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut ch = ChartBuilder::on(root)
        .caption(frame.title, ("sans-serif", frame.title_size))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(frame.y_label_area)
        .build_cartesian_2d(0f64..t_max as f64, y0..y1)
        .map_err(|x| e(&x))?;
    let decades = (y1.floor() - y0.ceil()) as i64 + 1;
    let y_labels = if decades >= 2 {
        (decades as usize).min(12)
    } else {
        6
    };
    let xfmt = |v: &f64| int_tick_label(*v);
    let yfmt = |v: &f64| log_tick_label(*v);
    ch.configure_mesh()
        .x_desc(frame.x_desc)
        .y_desc(frame.y_desc)
        .axis_desc_style(("sans-serif", 17))
        .label_style(("sans-serif", 15))
        .x_labels(t_max.clamp(1, 10))
        .y_labels(y_labels)
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .light_line_style(TRANSPARENT)
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(|x| e(&x))?;
    for (i, b) in bands.iter().enumerate() {
        let col = Palette99::pick(i).to_rgba();
        ch.draw_series(std::iter::once(Polygon::new(
            b.band.clone(),
            col.mix(0.2).filled(),
        )))
        .map_err(|x| e(&x))?;
        ch.draw_series(LineSeries::new(b.line.clone(), col.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(b.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    ch.configure_series_labels()
        .label_font(("sans-serif", 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|x| e(&x))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{int_tick_label, log_tick_label};

    /// Tick labels carry no float artefacts: powers of ten print as 1e-k, others to 2 digits.
    #[test]
    fn tick_labels_are_readable() {
        assert_eq!(log_tick_label(-4.0), "1e-4");
        assert_eq!(log_tick_label(-4.0 + 1e-12), "1e-4");
        assert_eq!(log_tick_label(0.0), "1");
        assert_eq!(log_tick_label(0.3f64.log10()), "0.3");
        assert_eq!(log_tick_label((0.1f64 + 0.2).log10()), "0.3");
        assert_eq!(log_tick_label(1.5e-4f64.log10()), "1.5e-4");
        assert_eq!(log_tick_label(2e-4f64.log10()), "2e-4");
        assert_eq!(log_tick_label(3e5f64.log10()), "3e5");
        assert_eq!(int_tick_label(0.1 * 3.0 * 100.0), "30");
        assert_eq!(int_tick_label(2.5), "2.5");
    }
}
