// The mpmath reference values are pasted with all 20 printed digits, as produced.
#![allow(clippy::excessive_precision)]
use super::{
    audit_region, best_region, beta_inc, binom_cdf, binom_sf, cp_interval, cp_lower, cp_upper,
    eps_lower_bound, eps_raw, held_out_region, Direction, Error, RegionAudit, Tail, ThresholdTable,
    MAX_COUNT, STATEMENT_KINDS,
};

fn rel(a: f64, b: f64) -> f64 {
    if a == b {
        0.0
    } else {
        ((a - b) / b).abs()
    }
}

// Binomial tails (k, n, p, P(X <= k), P(X > k)). Provenance: mpmath 1.3.0 at dps 50, by
// explicit summation of the pmf (pmf(k) from mp.loggamma, then the ratio recurrence outward
// until the terms fall below 1e-45 of the sum) — an independent algorithm from the continued
// fraction used here. p is the exact double written (Python repr of the float).
const TAILS: &[(u64, u64, f64, f64, f64)] = &[
    (
        0,
        10,
        0.3,
        2.824752490000000448e-2,
        9.7175247509999999552e-1,
    ),
    (
        0,
        10,
        0.7,
        5.904900000000008741e-6,
        9.9999409509999999999e-1,
    ),
    (
        1,
        10,
        0.3,
        1.4930834590000001728e-1,
        8.5069165409999998272e-1,
    ),
    (
        1,
        10,
        0.7,
        1.4368590000000018356e-4,
        9.9985631409999999982e-1,
    ),
    (
        5,
        10,
        0.3,
        9.5265101260000000816e-1,
        4.7348987399999991838e-2,
    ),
    (
        5,
        10,
        0.7,
        1.5026833260000007618e-1,
        8.4973166739999992382e-1,
    ),
    (
        9,
        10,
        0.7,
        9.7175247510000001792e-1,
        2.8247524899999982079e-2,
    ),
    (
        5,
        10,
        0.01,
        9.9999999979710605874e-1,
        2.028939412600000252e-10,
    ),
    (
        0,
        1000,
        0.003,
        4.9563082823155555069e-2,
        9.5043691717684444493e-1,
    ),
    (
        0,
        1000,
        0.03,
        5.9119978336200887433e-14,
        9.9999999999994088002e-1,
    ),
    (
        1,
        1000,
        0.003,
        1.9869974126795662659e-1,
        8.0130025873204337341e-1,
    ),
    (
        1,
        1000,
        0.03,
        1.8875729165692179548e-12,
        9.9999999999811242708e-1,
    ),
    (
        5,
        1000,
        0.003,
        9.1638506970692551505e-1,
        8.3614930293074484954e-2,
    ),
    (
        5,
        1000,
        0.03,
        1.6363377318515680652e-8,
        9.9999998363662268148e-1,
    ),
    (
        999,
        1000,
        0.997,
        9.5043691717684457429e-1,
        4.9563082823155425713e-2,
    ),
    (
        995,
        1000,
        0.997,
        1.8448401357601135398e-1,
        8.1551598642398864602e-1,
    ),
    (
        500,
        1000,
        0.40513167019494867,
        9.9999999942947080241e-1,
        5.7052919759029522327e-10,
    ),
    (
        500,
        1000,
        0.5316227766016838,
        2.4369132866808504255e-2,
        9.7563086713319149574e-1,
    ),
    (
        5,
        1000,
        0.0001,
        9.9999999874347648806e-1,
        1.2565235119430200155e-9,
    ),
    (
        0,
        1000000,
        3e-06,
        4.9786844326112294512e-2,
        9.5021315567388770549e-1,
    ),
    (
        0,
        1000000,
        3e-05,
        9.3534129016388014953e-14,
        9.9999999999990646587e-1,
    ),
    (
        1,
        1000000,
        3e-06,
        1.9914782538739236567e-1,
        8.0085217461260763433e-1,
    ),
    (
        1,
        1000000,
        3e-05,
        2.8996421827496405322e-12,
        9.9999999999710035782e-1,
    ),
    (
        5,
        1000000,
        3e-06,
        9.160823604256913822e-1,
        8.3917639574308617801e-2,
    ),
    (
        5,
        1000000,
        3e-05,
        2.2566382484409162414e-8,
        9.9999997743361751559e-1,
    ),
    (
        999999,
        1000000,
        0.999997,
        9.502131556726552093e-1,
        4.9786844327344790704e-2,
    ),
    (
        999995,
        1000000,
        0.999997,
        1.8473650342434152013e-1,
        8.1526349657565847987e-1,
    ),
    (
        500000,
        1000000,
        0.497,
        9.9999999901980520794e-1,
        9.8019479206341543809e-10,
    ),
    (
        500000,
        1000000,
        0.501,
        2.2804041698682974724e-2,
        9.7719595830131702528e-1,
    ),
    (
        5,
        1000000,
        1.0000000000000001e-07,
        9.9999999872511978144e-1,
        1.2748802185646583067e-9,
    ),
    (
        0,
        100000000,
        3e-08,
        4.9787066127445885375e-2,
        9.5021293387255411463e-1,
    ),
    (
        0,
        100000000,
        3e-07,
        9.3575808596231514934e-14,
        9.9999999999990642419e-1,
    ),
    (
        1,
        100000000,
        3e-08,
        1.9914826899061961405e-1,
        8.0085173100938038595e-1,
    ),
    (
        1,
        100000000,
        3e-07,
        2.9008509086657068567e-12,
        9.9999999999709914909e-1,
    ),
    (
        5,
        100000000,
        3e-08,
        9.1608206099326103665e-1,
        8.3917939006738963352e-2,
    ),
    (
        5,
        100000000,
        3e-07,
        2.2573416404609993728e-8,
        9.9999997742658359539e-1,
    ),
    (
        99999999,
        100000000,
        0.99999997,
        9.5021293407031072903e-1,
        4.9787065929689270973e-2,
    ),
    (
        99999995,
        100000000,
        0.99999997,
        1.8473675362318607195e-1,
        8.1526324637681392805e-1,
    ),
    (
        50000000,
        100000000,
        0.4997,
        9.9999999901402313111e-1,
        9.8597686888598253708e-10,
    ),
    (
        50000000,
        100000000,
        0.5001,
        2.2755530234748451787e-2,
        9.7724446976525154821e-1,
    ),
    (
        5,
        100000000,
        1e-09,
        9.9999999872510149251e-1,
        1.2748985074921623022e-9,
    ),
    (
        0,
        1000000000,
        3e-09,
        4.9787068143822136373e-2,
        9.5021293185617786363e-1,
    ),
    (
        0,
        1000000000,
        3e-08,
        9.3576187579107269557e-14,
        9.9999999999990642381e-1,
    ),
    (
        1,
        1000000000,
        3e-09,
        1.9914827302337215914e-1,
        8.0085172697662784086e-1,
    ),
    (
        1,
        1000000000,
        3e-08,
        2.9008618991708964531e-12,
        9.999999999970991381e-1,
    ),
    (
        5,
        1000000000,
        3e-09,
        9.1608205827115299372e-1,
        8.3917941728847006279e-2,
    ),
    (
        5,
        1000000000,
        3e-08,
        2.2573480358018915903e-8,
        9.9999997742651964198e-1,
    ),
    (
        999999999,
        1000000000,
        0.999999997,
        9.5021293315942944263e-1,
        4.9787066840570557368e-2,
    ),
    (
        999999995,
        1000000000,
        0.999999997,
        1.8473675962265506075e-1,
        8.1526324037734493925e-1,
    ),
    (
        500000000,
        1000000000,
        0.4999051316701949,
        9.9999999901360481019e-1,
        9.8639518981232058717e-10,
    ),
    (
        500000000,
        1000000000,
        0.5000316227766016,
        2.2751839211657912607e-2,
        9.7724816078834208739e-1,
    ),
    (
        5,
        1000000000,
        1e-10,
        9.9999999872510132624e-1,
        1.2748986737560278884e-9,
    ),
];

/// Checks two computed values against their references to 1e-10 relative (`what` names the
/// case) and folds their relative errors into `worst`.
fn check_two(worst: &mut f64, got: [f64; 2], want: [f64; 2], what: &dyn Fn() -> String) {
    let e = [rel(got[0], want[0]), rel(got[1], want[1])];
    *worst = worst.max(e[0]).max(e[1]);
    assert!(
        e[0] < 1e-10 && e[1] < 1e-10,
        "{}: {got:?} vs {want:?} (relative errors {e:?})",
        what()
    );
}

#[test]
fn binomial_tails_match_mpmath() {
    let mut worst: f64 = 0.0;
    for &(k, n, p, cdf, sf) in TAILS {
        let got = [binom_cdf(k, n, p).unwrap(), binom_sf(k, n, p).unwrap()];
        check_two(&mut worst, got, [cdf, sf], &|| {
            format!("k={k} n={n} p={p}: cdf, sf")
        });
    }
    eprintln!("binomial tails: worst relative error {worst:.2e}");
}

// (a, b, x, I_x(a,b), 1 − I_x(a,b)). Provenance: mpmath 1.3.0 dps 50, mp.betainc(a, b, 0, x,
// regularized=True) and mp.betainc(a, b, x, 1, ...) for the first six and the non-integer
// (200.5, 100.25) rows (cross-checked by mp.quad to 1e-10); for the integer-shape rows
// (1e4, 3e4) and (5e8+1, 5e8), where betainc's hypergeometric series fails, by
// I_x(a, b) = P(Bin(a+b−1, x) ≥ a) summed explicitly as for TAILS.
const BETA: &[(f64, f64, f64, f64, f64)] = &[
    (
        2.5,
        3.7,
        0.3,
        3.190031752843086985e-1,
        6.809968247156913015e-1,
    ),
    (
        0.5,
        0.5,
        0.01,
        6.3768560858519848583e-2,
        9.3623143914148015142e-1,
    ),
    (
        1.0,
        1000000.0,
        1e-06,
        6.3212074276835488907e-1,
        3.6787925723164511093e-1,
    ),
    (
        30.0,
        20.0,
        0.9,
        9.9999998430545400064e-1,
        1.5694545999361938977e-8,
    ),
    (
        200.5,
        100.25,
        0.5,
        2.5335041852640781001e-9,
        9.9999999746649581474e-1,
    ),
    (
        200.5,
        100.25,
        0.7,
        8.9145087359632458981e-1,
        1.0854912640367541019e-1,
    ),
    (10000.0, 30000.0, 0.2, 9.9607674290180792767e-131, 1.0),
    (
        10000.0,
        30000.0,
        0.26,
        9.9999768466753747943e-1,
        2.315332462520565578e-6,
    ),
    (
        500000001.0,
        500000000.0,
        0.4999,
        1.269553759603475749e-10,
        9.9999999987304462404e-1,
    ),
];

// Clopper–Pearson bounds (k, n, β, cp_lower(k, n, β), cp_upper(k, n, β)). Provenance: mpmath
// 1.3.0 at dps 50: the exact binomial tails by explicit summation (as for TAILS), inverted by
// mp.findroot (Anderson–Björck on a verified bracket in log p, tol 1e-44); k = 0 and k = n by
// the closed forms 1 − β^(1/n) and β^(1/n).
// The rows live in `clopper_pearson.tsv`, one (k, n, β, lower, upper) a line, tab-separated, the
// numbers exactly as mpmath printed them (parsed to the same doubles as Rust literals).
fn cp_rows() -> Vec<(u64, u64, f64, f64, f64)> {
    let rows: Vec<_> = include_str!("clopper_pearson.tsv")
        .lines()
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            assert_eq!(f.len(), 5, "bad row {line:?}");
            let num = |i: usize| f[i].parse::<f64>().unwrap();
            (
                f[0].parse().unwrap(),
                f[1].parse().unwrap(),
                num(2),
                num(3),
                num(4),
            )
        })
        .collect();
    assert_eq!(rows.len(), 76);
    rows
}

#[test]
fn clopper_pearson_matches_mpmath() {
    let mut worst: f64 = 0.0;
    for (k, n, beta, lo, up) in cp_rows() {
        let l = cp_lower(k, n, beta).unwrap_or_else(|e| panic!("{k} {n} {beta}: {e}"));
        let u = cp_upper(k, n, beta).unwrap();
        let what = || format!("k={k} n={n} beta={beta}: lower, upper");
        check_two(&mut worst, [l, u], [lo, up], &what);
    }
    eprintln!("Clopper–Pearson: worst relative error {worst:.2e}");
}

#[test]
fn incomplete_beta_matches_mpmath() {
    for &(a, b, x, lo, up) in BETA {
        let (l, u) = beta_inc(a, b, x).unwrap();
        assert!(
            rel(l, lo) < 1e-11,
            "I_{x}({a},{b}) = {l} vs {lo}: {:.1e}",
            rel(l, lo)
        );
        assert!(
            rel(u, up) < 1e-11,
            "1-I_{x}({a},{b}) = {u} vs {up}: {:.1e}",
            rel(u, up)
        );
    }
}

// statrs 0.19's Beta(1, 1e7).inverse_cdf(1e-6) never returns (statrs #435); that quantile
// is cp_lower(1, 1e7, 1e-6) = 1 − (1 − β)^(1/n). mpmath dps 40: 1.000000500000283333533e-13.
#[test]
fn statrs_435_case_is_fast_and_right() {
    let v = cp_lower(1, 10_000_000, 1e-6).unwrap();
    assert!(rel(v, 1.000000500000283333533333e-13) < 1e-12, "{v:e}");
}

// Beta(a, a) is symmetric about ½, so I_½(a, a) = ½ exactly, for any a: a check near the
// mean for huge shapes, where statrs 0.19's Beta cdf is wrong (statrs #434).
#[test]
fn huge_shapes_at_the_mean() {
    for a in [1e3, 1e6, 5e8, 5e9, 1e10] {
        let (lo, up) = beta_inc(a, a, 0.5).unwrap();
        assert!(
            rel(lo, 0.5) < 1e-12 && rel(up, 0.5) < 1e-12,
            "a={a}: {lo} {up}"
        );
    }
}

// I_x(a, b) = 1 − I_{1−x}(b, a) (DLMF 8.17.4); x dyadic so that 1 − x is exact.
#[test]
fn reflection_symmetry() {
    for &(a, b) in &[
        (2.0, 7.0),
        (0.7, 3.2),
        (1e4, 2e4),
        (3e7, 1e9),
        (1.0, 1e9),
        (5.0, 1.0),
    ] {
        for x in [0.0009765625, 0.125, 0.3125, 0.5, 0.96875] {
            let (l1, u1) = beta_inc(a, b, x).unwrap();
            let (l2, u2) = beta_inc(b, a, 1.0 - x).unwrap();
            assert!(
                rel(l1, u2) < 1e-12 || (l1 < 1e-300 && u2 < 1e-300),
                "{a} {b} {x}"
            );
            assert!(
                rel(u1, l2) < 1e-12 || (u1 < 1e-300 && l2 < 1e-300),
                "{a} {b} {x}"
            );
        }
    }
}

// Consistency up to N = 10^10 (the stated range): the bounds solve their defining equations
// where p is representable to full relative precision in 1 − p as well (p ≤ ½); above, a
// double near 1 cannot carry 1 − p to 10⁻⁹, so the reflection cp_upper(k) = 1 − cp_lower(n − k)
// is checked instead. (Not an independent oracle; the tails are checked against mpmath above.)
#[test]
fn bounds_solve_their_equations_up_to_1e10() {
    let n = 10_000_000_000u64;
    for k in [0u64, 1, 5, 1000, n / 3, n - 5, n - 1] {
        for beta in [0.05, 1e-9] {
            if k < n {
                let u = cp_upper(k, n, beta).unwrap();
                if u <= 0.5 {
                    let f = binom_cdf(k, n, u).unwrap();
                    assert!(rel(f, beta) < 1e-9, "upper k={k}: F = {f:e}");
                } else {
                    let l = cp_lower(n - k, n, beta).unwrap();
                    assert!((u - (1.0 - l)).abs() <= 2.0 * f64::EPSILON, "k={k}");
                }
            }
            if k > 0 {
                let l = cp_lower(k, n, beta).unwrap();
                if l <= 0.5 {
                    let g = binom_sf(k - 1, n, l).unwrap();
                    assert!(rel(g, beta) < 1e-9, "lower k={k}: G = {g:e}");
                }
                assert!(l <= cp_upper(k, n, beta).unwrap());
            }
        }
    }
}

#[test]
fn two_sided_interval_splits_the_level() {
    let (l, u) = cp_interval(5, 1000, 0.9).unwrap();
    // From the CP table: β = 0.05 on each side.
    assert!(rel(l, 1.972153141805247142e-3) < 1e-12);
    assert!(rel(u, 1.0484076911415653719e-2) < 1e-12);
}

#[test]
fn eps_lower_bound_values() {
    // mpmath dps 40: ln((1 − 1e-5 − 0.3)/1e-3) = 6.551066049227077170701
    let e = eps_lower_bound(1e-3, 0.3, 1e-5).unwrap();
    assert!(rel(e, 6.551_066_049_227_077) < 1e-15);
    assert_eq!(eps_lower_bound(0.5, 0.5, 0.0).unwrap(), 0.0);
    assert_eq!(eps_lower_bound(0.01, 0.99, 0.02).unwrap(), 0.0);
    assert_eq!(eps_lower_bound(1e-3, 1.0, 0.0).unwrap(), 0.0);
}

fn invalid_name(e: Error) -> String {
    match e {
        Error::InvalidParameter { name, .. } => name,
        other => panic!("expected InvalidParameter, got {other:?}"),
    }
}

#[test]
fn invalid_inputs_are_errors_naming_the_parameter() {
    assert_eq!(invalid_name(cp_upper(5, 3, 0.05).unwrap_err()), "k");
    assert_eq!(invalid_name(cp_upper(0, 0, 0.05).unwrap_err()), "n");
    assert_eq!(invalid_name(cp_lower(1, 3, 0.0).unwrap_err()), "beta");
    assert_eq!(invalid_name(cp_lower(1, 3, f64::NAN).unwrap_err()), "beta");
    assert_eq!(invalid_name(cp_interval(1, 3, 1.0).unwrap_err()), "conf");
    assert_eq!(
        invalid_name(cp_upper(1, MAX_COUNT + 1, 0.1).unwrap_err()),
        "n"
    );
    assert_eq!(invalid_name(beta_inc(-1.0, 2.0, 0.5).unwrap_err()), "a");
    assert_eq!(
        invalid_name(beta_inc(1.0, f64::INFINITY, 0.5).unwrap_err()),
        "b"
    );
    assert_eq!(invalid_name(beta_inc(1.0, 2.0, 1.5).unwrap_err()), "x");
    assert_eq!(invalid_name(binom_cdf(1, 10, -0.1).unwrap_err()), "p");
    assert_eq!(
        invalid_name(eps_lower_bound(0.0, 0.1, 0.0).unwrap_err()),
        "fpr_ub"
    );
    assert_eq!(
        invalid_name(eps_lower_bound(0.1, 1.1, 0.0).unwrap_err()),
        "fnr_ub"
    );
    assert_eq!(
        invalid_name(eps_lower_bound(0.1, 0.1, 1.0).unwrap_err()),
        "delta"
    );
    let e = audit_region(0.0, Tail::Above, Direction::PvsQ, 10, 3, 10, 1, 0.0, 0.7);
    assert_eq!(invalid_name(e.unwrap_err()), "beta");
    let e = ThresholdTable::from_sorted(&[2.0, 1.0], &[0.0], &[0.5]);
    assert_eq!(invalid_name(e.unwrap_err()), "p_sorted");
    let e = ThresholdTable::from_sorted(&[1.0], &[0.0], &[f64::NAN]);
    assert_eq!(invalid_name(e.unwrap_err()), "thresholds");
    let e = ThresholdTable::from_histogram(&[1, 2], &[1, 2], &[0.0, 1.0]);
    assert_eq!(invalid_name(e.unwrap_err()), "edges.len()");
    let e = ThresholdTable::from_histogram(&[0, 0], &[1, 2], &[0.0, 1.0, 2.0]);
    assert_eq!(invalid_name(e.unwrap_err()), "p_counts");
    let a = ThresholdTable::from_sorted(&[1.0], &[0.0], &[0.5]).unwrap();
    let b = ThresholdTable::from_sorted(&[1.0], &[0.0], &[0.25]).unwrap();
    assert_eq!(
        invalid_name(held_out_region(&a, &b, 0.0, 0.05).unwrap_err()),
        "evaluate.thresholds"
    );
}

#[test]
fn single_region_uses_a_family_of_two() {
    // 1000 P-samples, 700 inside S; 1000 Q-samples, 20 inside S; P vs Q.
    let r = audit_region(
        1.5,
        Tail::Above,
        Direction::PvsQ,
        1000,
        700,
        1000,
        20,
        1e-5,
        0.05,
    )
    .unwrap();
    assert_eq!((r.false_positives, r.false_negatives), (20, 300));
    assert_eq!(r.family_size, 2);
    let fpr = cp_upper(20, 1000, 0.025).unwrap();
    let fnr = cp_upper(300, 1000, 0.025).unwrap();
    assert_eq!((r.fpr_ub, r.fnr_ub), (fpr, fnr));
    assert_eq!(r.eps_lb, eps_lower_bound(fpr, fnr, 1e-5).unwrap());
    // The same region read as its complement in the other direction: Q vs P, S = {T ≤ t}
    // has FP = P-samples in S = 300, FN = Q-samples outside S = 20.
    let c = audit_region(
        1.5,
        Tail::Below,
        Direction::QvsP,
        1000,
        300,
        1000,
        980,
        1e-5,
        0.05,
    )
    .unwrap();
    assert_eq!((c.false_positives, c.false_negatives), (300, 20));
}

#[test]
fn lazy_search_equals_exhaustive_search() {
    // Deterministic pseudo-samples: P shifted by 0.8.
    let mut x = 0.123_456_789_f64;
    let mut next = || {
        x = (x * 997.0 + 0.1).fract();
        x
    };
    let mut p: Vec<f64> = (0..3000).map(|_| 0.8 + next() + next() + next()).collect();
    let mut q: Vec<f64> = (0..3000).map(|_| next() + next() + next()).collect();
    p.sort_by(f64::total_cmp);
    q.sort_by(f64::total_cmp);
    let th: Vec<f64> = (0..60).map(|i| 0.05 * i as f64).collect();
    let t = ThresholdTable::from_sorted(&p, &q, &th).unwrap();
    let best = best_region(&t, 1e-3, 0.05).unwrap();
    let level = 0.05 / (4.0 * th.len() as f64);
    let mut exhaustive = f64::NEG_INFINITY;
    for i in 0..t.len() {
        for &(tail, dir) in STATEMENT_KINDS.iter() {
            let (fp, nn, fnc, np) = t.statement_counts(i, tail, dir);
            let e = eps_raw(
                cp_upper(fp, nn, level).unwrap(),
                cp_upper(fnc, np, level).unwrap(),
                1e-3,
            );
            exhaustive = exhaustive.max(e);
        }
    }
    assert_eq!(best.eps_lb, exhaustive.max(0.0));
    assert!(best.eps_lb > 0.0);
}

#[test]
fn region_audit_serde_roundtrip() {
    let r = audit_region(
        0.5,
        Tail::Below,
        Direction::QvsP,
        500,
        120,
        400,
        300,
        1e-6,
        0.01,
    )
    .unwrap();
    let text = toml::to_string(&r).unwrap();
    let back: RegionAudit = toml::from_str(&text).unwrap();
    assert_eq!(r, back);
}
