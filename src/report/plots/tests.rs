use super::{render, tick_label, Legend, Panel, PlotFigure, Style};
use crate::compare::figure::Series;

#[test]
fn renders_svg_png_and_csv_without_system_fonts() {
    let dir = std::env::temp_dir().join(format!("dpaudit-plot-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fig = PlotFigure {
        title: "test".into(),
        panels: vec![Panel {
            title: "p".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: true,
            log_y: false,
            legend: Legend::UpperRight,
            series: vec![
                Series::new("a", vec![(1e-3, 1.0), (1.0, 2.0)], Style::Line, 0),
                Series::new("b", vec![(1e-2, 1.5), (-1.0, 3.0)], Style::Markers, 1),
            ],
        }],
    };
    render(&fig, &dir, "t").unwrap();
    let svg = std::fs::read_to_string(dir.join("t.svg")).unwrap();
    assert!(svg.starts_with("<svg"));
    let png = std::fs::read(dir.join("t.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert_eq!(
        std::fs::read_to_string(dir.join("t.csv"))
            .unwrap()
            .lines()
            .count(),
        5
    );
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        3,
        "no temporary files left"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn log_tick_labels() {
    assert_eq!(tick_label(-5.0, true), "1e-5");
    assert_eq!(tick_label(0.0, true), "1");
    assert_eq!(tick_label(2.5, false), "2.5");
}
