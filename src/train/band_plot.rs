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
