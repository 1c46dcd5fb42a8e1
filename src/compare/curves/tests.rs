use super::{location_figure, LocationSweep};

#[test]
fn location_sweep_orders_match_hg() {
    // HG Thm 4.2 / Prop. 4.6 / Thm 4.9 (docs/formulas.md §8): every bounded mechanism is below the
    // Gaussian, pointwise, for the Fisher information and the per-instance RDP.
    let w = LocationSweep {
        mu: (-4.0, 4.0, 17),
        ..LocationSweep::default()
    };
    let fig = location_figure(&w);
    for panel in &fig.panels {
        let g = &panel.series[0];
        assert_eq!(g.points.len(), 17, "{}", panel.title);
        for s in &panel.series[1..] {
            assert_eq!(s.points.len(), 17, "{} {}", panel.title, s.name);
            for (p, q) in s.points.iter().zip(&g.points) {
                assert!(
                    p.1 <= q.1 * (1.0 + 1e-9),
                    "{} {} at {}",
                    panel.title,
                    s.name,
                    p.0
                );
            }
        }
    }
    // independent value: Gaussian FIL is 1/σ² = 1; sign FIL at μ = 0 is 2/(πσ²).
    let sign = &fig.panels[0].series[3];
    let at0 = sign.points.iter().find(|p| p.0.abs() < 1e-12).unwrap().1;
    assert!((at0 - 2.0 / std::f64::consts::PI).abs() < 1e-7, "{at0}");
}
