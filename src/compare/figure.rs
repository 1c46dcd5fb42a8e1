//! The data of a figure (panels of named series), built by [`super::curves`] and drawn by the
//! report's renderer.

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// Solid line.
    Line,
    /// Dashed line.
    Dashed,
    /// Markers only (filled circles).
    Markers,
    /// Markers only (crosses), for a second kind of point.
    Crosses,
}

/// A named series.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    /// Legend text.
    pub name: String,
    /// Points (x, y) in data units; non-finite points (and non-positive ones on log axes) are
    /// skipped.
    pub points: Vec<(f64, f64)>,
    /// Drawing style.
    pub style: Style,
    /// Index into the palette.
    pub color: usize,
}

impl Series {
    /// A series.
    pub(crate) fn new(name: &str, points: Vec<(f64, f64)>, style: Style, color: usize) -> Series {
        Series {
            name: name.into(),
            points,
            style,
            color,
        }
    }
}

/// Where the legend goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Legend {
    /// Upper left corner.
    UpperLeft,
    /// Upper right corner.
    UpperRight,
    /// Lower right corner.
    LowerRight,
    /// Bottom, centred.
    LowerMiddle,
}

/// One chart.
#[derive(Clone, Debug)]
pub(crate) struct Panel {
    /// Caption above the chart.
    pub title: String,
    /// x-axis label.
    pub x_label: String,
    /// y-axis label.
    pub y_label: String,
    /// log₁₀ x axis.
    pub log_x: bool,
    /// log₁₀ y axis.
    pub log_y: bool,
    /// Legend position.
    pub legend: Legend,
    /// The series.
    pub series: Vec<Series>,
}

/// A figure: panels side by side under a common title.
#[derive(Clone, Debug)]
pub(crate) struct PlotFigure {
    /// Title over all panels.
    pub title: String,
    /// The panels, left to right.
    pub panels: Vec<Panel>,
}
