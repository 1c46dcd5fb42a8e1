use super::{
    draw_audit, finish_audit, histograms, merge_draws, run_audit, stream_id, AuditConfig,
    AuditDraws, Grid, Instant, Mechanism, Observer, Phase, Selection, Shard, Side, Statistic,
    CHUNK,
};
use crate::audit::mechanisms::GaussianMechanism;

#[test]
fn shards_sum_to_the_whole_run_exactly() {
    let mech = GaussianMechanism::new(1.0, 1.0).unwrap();
    let cfg = AuditConfig {
        samples_per_side: 3 * CHUNK + 12_345,
        selection: Selection::HeldOut {
            pilot_samples: CHUNK + 7,
        },
        bins: 256,
        ..AuditConfig::default()
    };
    let whole = draw_audit(&mech, &cfg, Shard::WHOLE).unwrap();
    let parts: Vec<AuditDraws> = (0..3)
        .map(|k| draw_audit(&mech, &cfg, Shard::new(k, 3).unwrap()).unwrap())
        .collect();
    // Each shard draws only its own chunks; shard 3/3 owns chunk 2 of the main phase only.
    assert!(parts.iter().all(|p| p.main.p.iter().sum::<u64>() > 0));
    let merged = merge_draws(&parts).unwrap();
    assert_eq!(merged.main, whole.main);
    assert_eq!(merged.pilot, whole.pilot);
    let t = Instant::now();
    let a = finish_audit(&mech, &cfg, &whole, t).unwrap();
    let b = finish_audit(&mech, &cfg, &merged, t).unwrap();
    assert!(a.same_outcome(&b));
    assert_eq!(a, run_audit(&mech, &cfg).unwrap().with_timing(a.timing));
    // Bad merges are refused with the shard named.
    let e = merge_draws(&parts[..2]).unwrap_err().to_string();
    assert!(e.contains("shard 3/3 is missing"), "{e}");
    let dup = vec![parts[0].clone(), parts[0].clone(), parts[1].clone()];
    let e = merge_draws(&dup).unwrap_err().to_string();
    assert!(e.contains("1/3") && e.contains("twice"), "{e}");
    let other = draw_audit(&mech, &cfg, Shard::new(0, 2).unwrap()).unwrap();
    let e = merge_draws(&[parts[0].clone(), other])
        .unwrap_err()
        .to_string();
    assert!(e.contains("same run (3 shards)"), "{e}");
    assert!(finish_audit(&mech, &cfg, &parts[0], t).is_err());
    // Parsing K/N.
    assert_eq!("2/3".parse::<Shard>().unwrap(), Shard::new(1, 3).unwrap());
    for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
}

#[test]
fn grid_indexing() {
    let g = Grid::new(0.0, 4.0, 4).unwrap();
    assert_eq!(g.index(-1e300), 0);
    assert_eq!(g.index(-0.1), 0);
    assert_eq!(g.index(0.0), 1);
    assert_eq!(g.index(0.999), 1);
    assert_eq!(g.index(1.0), 2);
    assert_eq!(g.index(3.999), 4);
    assert_eq!(g.index(4.0), 5);
    assert_eq!(g.index(f64::INFINITY), 5);
    assert_eq!(g.index(f64::NAN), 0);
    assert_eq!(
        g.edges(),
        vec![f64::NEG_INFINITY, 0.0, 1.0, 2.0, 3.0, 4.0, f64::INFINITY]
    );
    assert!(Grid::new(1.0, 1.0, 4).is_err());
}

#[test]
fn stream_ids_are_distinct() {
    let ids = [
        stream_id(Phase::Main, Side::P, 0),
        stream_id(Phase::Main, Side::Q, 0),
        stream_id(Phase::Pilot, Side::P, 0),
        stream_id(Phase::Pilot, Side::Q, 0),
        stream_id(Phase::Main, Side::P, 1),
    ];
    for i in 0..ids.len() {
        for j in 0..i {
            assert_ne!(ids[i], ids[j]);
        }
    }
}

#[test]
fn config_validation() {
    let ok = AuditConfig::default();
    assert!(ok.validate().is_ok());
    for bad in [
        AuditConfig {
            samples_per_side: 0,
            ..ok.clone()
        },
        AuditConfig {
            delta: 0.0,
            ..ok.clone()
        },
        AuditConfig {
            confidence: 0.4,
            ..ok.clone()
        },
        AuditConfig {
            bins: 1,
            ..ok.clone()
        },
        AuditConfig {
            threads: Some(0),
            ..ok.clone()
        },
        AuditConfig {
            selection: Selection::HeldOut { pilot_samples: 0 },
            ..ok.clone()
        },
    ] {
        assert!(bad.validate().is_err(), "{bad:?}");
    }
}

/// The histogram totals equal the requested sample counts, including a short last chunk.
#[test]
fn histogram_totals() {
    let g = GaussianMechanism::new(1.0, 1.0).unwrap();
    let (lo, hi) = g.statistic_range(Statistic::Black);
    let grid = Grid::new(lo, hi, 64).unwrap();
    let n = CHUNK + 12345;
    let h = histograms(
        &g,
        Statistic::Black,
        &grid,
        7,
        Phase::Main,
        n,
        &Observer::none(),
    );
    assert_eq!(h.p.iter().sum::<u64>(), n);
    assert_eq!(h.q.iter().sum::<u64>(), n);
}

#[test]
fn small_audit_runs() {
    let g = GaussianMechanism::new(1.0, 1.0).unwrap();
    let cfg = AuditConfig {
        samples_per_side: 200_000,
        selection: Selection::HeldOut {
            pilot_samples: 50_000,
        },
        bins: 256,
        delta: 1e-3,
        ..AuditConfig::default()
    };
    let r = run_audit(&g, &cfg).unwrap();
    let exact = r.claimed_eps.unwrap();
    assert!(r.eps_lb <= exact, "{} > {exact}", r.eps_lb);
    assert!(r.eps_lb > 0.0);
    let b = run_audit(
        &g,
        &AuditConfig {
            selection: Selection::Bonferroni,
            ..cfg
        },
    )
    .unwrap();
    assert!(b.eps_lb <= exact && b.eps_lb > 0.0);
}
