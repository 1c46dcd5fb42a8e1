use super::{fisher, hockey_stick, kl, renyi, Certified, Float, Location, Pair, Result, Scalar};
use crate::numeric::mp::agreement_digits;

/// Reference values: python3 + mpmath 1.3 at mp.dps = 200 from the closed forms of docs/formulas.md
/// (§1.2, §1.3, §2.2, §2.3, §3, §4, §7.1–7.3, §1.1, §2.1; the far-tail rectified values by the
/// log1p(S − 1) form of §1.2) — independent of this quadrature. Printed to 60 digits.
const REFS: &[(&str, &str)] = &[
    // mpmath at dps 700 (the Φ differences near 1 cancel to 1e-367).
    (
        "hs_trunc_neg41",
        "0.018367224637733154727752768171966278240362408696368783572855",
    ),
    (
        "hs_trunc_far41_05",
        "0.00000000000942125137677753571529448380324907542014217196660472680263711",
    ),
    ("renyi_gauss_2", "1.0"),
    ("renyi_gauss_1.001", "0.5005"),
    ("renyi_gauss_100", "50.0"),
    (
        "renyi_dd_2",
        "15.9961491541777147888904024293031441318161422317774538461349",
    ),
    (
        "renyi_dd_1.001",
        "8.95441424034998264000850579165353410449786619824798303909944",
    ),
    ("renyi_dd_eq_d1000", "1.0"),
    (
        "renyi_rgm_2",
        "0.12499962500568749424999359378309368668235579168626798660216",
    ),
    (
        "kl_rgm",
        "0.0624998750026249991666607916794166561666580059934590131240499",
    ),
    (
        "kl_dd",
        "8.94654344068849640758848691712872858424172894500783554887617",
    ),
    (
        "renyi_rect_2",
        "0.927043939520382757492235340210632977391956344369592084187808",
    ),
    (
        "renyi_trunc_2",
        "0.280452068443273486889771499626612640593372529149940075235895",
    ),
    (
        "renyi_rect_1.001",
        "0.458123692710558698935939297734199366300459434739632154077952",
    ),
    (
        "renyi_trunc_1.001",
        "0.13628061163127675851277496033842722978417731572810341305185",
    ),
    (
        "renyi_rect_100",
        "2.17657061880604098415130705854439140939361541797485748935466",
    ),
    (
        "renyi_trunc_100",
        "1.16315114553769821384622022938905591079053521308549888395446",
    ),
    (
        "renyi_rect_far9",
        "0.00000000000000169080669823578098992915540023729922553920303953393006484056",
    ),
    (
        "renyi_trunc_far9",
        "0.0115759071413239115180383120269797353477904909997232822005114",
    ),
    (
        "renyi_trunc_far41",
        "0.000592946065915759665744647849164713625041504484064274889830803",
    ),
    (
        "renyi_trunc_far41_1.001",
        "0.00029196554237677366211322308853494884619111093757888411740781",
    ),
    (
        "renyi_rect_far9_1.001",
        "0.00000000000000000097678271283812911316385357943826579255296063111455413527783",
    ),
    (
        "renyi_sign_2",
        "0.657989584661980960772579762922934201934965812368369326349688",
    ),
    (
        "renyi_sign_far",
        "0.000000000000000621870360220507405025967472449745628728984685849541595836818",
    ),
    (
        "renyi_sign_1.001",
        "0.290412279301293788730262842890760587237941687591196934354031",
    ),
    ("kl_gauss", "0.5"),
    (
        "kl_rect",
        "0.457624726022684837200911829920256072295660125259321842441907",
    ),
    (
        "kl_rect_far9",
        "0.000000000000000000971555556721511672499417724266745787463708116782513328507565",
    ),
    (
        "kl_trunc",
        "0.136137041688337101635354853956401243347411097325254298831136",
    ),
    (
        "kl_trunc_far41",
        "0.000291669152005762530504712174400277850802897510533500179921254",
    ),
    (
        "kl_sign",
        "0.290049631462549404243823112060933804880127675987213122626434",
    ),
    (
        "hs_gauss",
        "0.126936737506643945800829624757766880415080650112001322330656",
    ),
    (
        "hs_gauss_small",
        "0.000000000000000000975741178716486892647611476568930420381925403927104910497332",
    ),
    (
        "hs_rect",
        "0.238421708134876628318156163154351502445851583260286216685087",
    ),
    (
        "hs_rect_rev",
        "0.218980802032483809690579661189200704455389095761854667255797",
    ),
    (
        "hs_trunc",
        "0.0728212863893580781015996245059321239725017735447188660481624",
    ),
    (
        "hs_trunc_far9",
        "0.0343736360575594835716260327705054255163889754292100523383646",
    ),
    (
        "hs_sign",
        "0.275107497391400814474054748570488753678314132319316081256493",
    ),
    (
        "hs_uneq_d1",
        "0.105202993424536765727235767278977955159748231375271906891",
    ),
    (
        "hs_uneq_d1_rev",
        "0.263485792348124887475364132710882721356990507001019032094194",
    ),
    (
        "fi_rect",
        "0.926221023019974096788884575066827528403058850069830754367924",
    ),
    (
        "fi_rect_far41",
        "1.54682081489898446545810365562776677642926956510123536407276e-364",
    ),
    (
        "fi_trunc",
        "0.28713111695212162205577440246959977662504662530475604333784",
    ),
    (
        "fi_trunc_far9",
        "0.011514784017457053695441986756555093040789854980260258540255",
    ),
    (
        "fi_sign",
        "0.616088851346015185584269821005197022286861363756126308176848",
    ),
    (
        "fi_sign_far",
        "0.00000000000000000936335550917441744254648249965429516469677980927527518497139",
    ),
    (
        "renyi_rect_far41",
        "9.93774897905012022834086415920596346717218984607724904094204e-350",
    ),
    (
        "fi_trunc_far41",
        "0.000592771137478699354928098165315398128832677574329253973186576",
    ),
    (
        "kl_rect_far41",
        "3.72453771649646035430311930123426285047575028200439236112087e-366",
    ),
];

fn reference(key: &str) -> Float {
    let s = REFS
        .iter()
        .find(|(k, _)| *k == key)
        .unwrap_or_else(|| panic!("no reference {key}"))
        .1;
    Float::with_val(400, Float::parse(s).unwrap())
}

fn sc(s: &str) -> Scalar {
    s.parse().unwrap()
}

/// Asserts that `got` certifies ≥ `want_digits` digits and agrees with the reference to at
/// least the certified digits (capped at the 58 digits the reference carries).
fn check(key: &str, got: Result<Certified>, want_digits: u32) {
    let got = got.unwrap_or_else(|e| panic!("{key}: {e}"));
    let r = reference(key);
    let agree = agreement_digits(&got.value, &r);
    eprintln!("{key}: certified {} agree {agree:.1}", got.digits);
    assert!(
        got.digits >= want_digits,
        "{key}: only {} digits",
        got.digits
    );
    assert!(
        agree >= f64::from(got.digits.min(58)),
        "{key}: certified {} but agrees to {agree:.1} ({})",
        got.digits,
        got.value.to_string_radix(10, Some(40))
    );
}

fn gauss(m1: &str, m2: &str, s: &str) -> Pair {
    Pair::gaussian(sc(m1), sc(m2), sc(s)).unwrap()
}
fn rect(m1: &str, m2: &str) -> Pair {
    Pair::rectified(sc(m1), sc(m2), sc("1"), sc("-1"), sc("1")).unwrap()
}
fn trunc(m1: &str, m2: &str) -> Pair {
    Pair::truncated(sc(m1), sc(m2), sc("1"), sc("-1"), sc("1")).unwrap()
}
fn sign(m1: &str, m2: &str) -> Pair {
    Pair::stochastic_sign(sc(m1), sc(m2), sc("1")).unwrap()
}

/// Cost diagnostic (no assertions; `cargo test --release --lib cost_truncated -- --ignored
/// --nocapture`): MPFR exp timing and exponentials per truncated Rényi evaluation.
#[test]
#[ignore]
fn cost_truncated() {
    for prec in [150u32, 218, 380] {
        let mut x = Float::with_val(prec, 0.123456789);
        let mut acc = Float::new(prec);
        let t = std::time::Instant::now();
        for _ in 0..20000 {
            x += 1e-5;
            let y = Float::with_val(prec, x.exp_ref());
            acc += y;
        }
        eprintln!(
            "exp at {prec} bits: {:.3} us",
            t.elapsed().as_secs_f64() / 20000.0 * 1e6
        );
    }
    for (m1, m2) in [("0.3", "1.3"), ("10", "11")] {
        for digits in [30u32, 50, 100] {
            let p = trunc(m1, m2);
            renyi(&p, &sc("2"), digits).unwrap();
            let n0 = crate::numeric::quad::exp_count();
            let t = std::time::Instant::now();
            let reps = 50;
            for _ in 0..reps {
                renyi(&p, &sc("2"), digits).unwrap();
            }
            let dt = t.elapsed().as_secs_f64() / f64::from(reps);
            let n = (crate::numeric::quad::exp_count() - n0) / reps as usize;
            eprintln!("{m1},{m2} digits {digits}: {:.3} ms, {n} exps", dt * 1e3);
        }
    }
}

/// N(Δ = 1, σ1 = 1) vs σ2 = 1.1 in d = 1000.
fn dd_1000() -> Pair {
    Pair::gaussian_dd(sc("1"), sc("1"), sc("1.1"), 1000).unwrap()
}

/// An RGM pair (d = 10, γ = σ² = 1, dist = 0.5) whose norms n1, n2 differ in the 7th digit.
fn rgm_near() -> Pair {
    Pair::rgm(
        10,
        sc("1"),
        sc("1"),
        sc("1.000001"),
        sc("1.000002"),
        sc("0.5"),
    )
    .unwrap()
}

/// Checks the quadrature Rényi divergence of order `alpha` against the reference `name` at
/// `digits`.
fn check_renyi(name: &str, pair: &Pair, alpha: &str, digits: u32) {
    check(name, renyi(pair, &sc(alpha), digits), digits);
}

#[test]
fn renyi_gaussian_and_dd() {
    for al in ["2", "1.001", "100"] {
        check(
            &format!("renyi_gauss_{al}"),
            renyi(&gauss("0", "1", "1"), &sc(al), 30),
            30,
        );
    }
    let dd = dd_1000();
    check("renyi_dd_2", renyi(&dd, &sc("2"), 30), 30);
    check("renyi_dd_1.001", renyi(&dd, &sc("1.001"), 30), 30);
    let eq = Pair::gaussian_dd(sc("1"), sc("1"), sc("1"), 1000).unwrap();
    check("renyi_dd_eq_d1000", renyi(&eq, &sc("2"), 30), 30);
    // n1, n2 differ in the 7th digit.
    let rgm = rgm_near();
    check("renyi_rgm_2", renyi(&rgm, &sc("2"), 30), 30);
    // σ_α² ≤ 0: +∞.
    let inf = Pair::gaussian_dd(sc("1"), sc("2"), sc("1"), 3).unwrap();
    assert!(renyi(&inf, &sc("5"), 30).unwrap().value.is_infinite());
}

#[test]
fn renyi_bounded_families() {
    for al in ["2", "1.001", "100"] {
        check_renyi(&format!("renyi_rect_{al}"), &rect("0.3", "1.3"), al, 30);
        check_renyi(&format!("renyi_trunc_{al}"), &trunc("0.3", "1.3"), al, 30);
    }
    check_renyi("renyi_rect_far9", &rect("10", "11"), "2", 30);
    check_renyi("renyi_rect_far9_1.001", &rect("10", "11"), "1.001", 30);
    check_renyi("renyi_trunc_far9", &trunc("10", "11"), "2", 30);
    check_renyi("renyi_rect_far41", &rect("42", "43"), "2", 30);
    check_renyi("renyi_trunc_far41", &trunc("42", "43"), "2", 30);
    check_renyi("renyi_trunc_far41_1.001", &trunc("42", "43"), "1.001", 30);
    check_renyi("renyi_sign_2", &sign("0.3", "1.3"), "2", 30);
    check_renyi("renyi_sign_1.001", &sign("0.3", "1.3"), "1.001", 30);
    check_renyi("renyi_sign_far", &sign("-9", "-8"), "2", 30);
}

#[test]
fn renyi_50_digits() {
    check_renyi("renyi_trunc_2", &trunc("0.3", "1.3"), "2", 50);
    check_renyi("renyi_rect_2", &rect("0.3", "1.3"), "2", 50);
    check_renyi("renyi_dd_2", &dd_1000(), "2", 50);
}

/// Checks the quadrature KL divergence against the reference `name` at 30 digits.
fn check_kl(name: &str, pair: &Pair) {
    check(name, kl(pair, 30), 30);
}

#[test]
fn kl_all_families() {
    check_kl("kl_gauss", &gauss("0", "1", "1"));
    let dd = dd_1000();
    check_kl("kl_dd", &dd);
    let rgm = rgm_near();
    check_kl("kl_rgm", &rgm);
    check_kl("kl_rect", &rect("0.3", "1.3"));
    check_kl("kl_rect_far9", &rect("10", "11"));
    check_kl("kl_rect_far41", &rect("42", "43"));
    check_kl("kl_trunc", &trunc("0.3", "1.3"));
    check_kl("kl_trunc_far41", &trunc("42", "43"));
    check_kl("kl_sign", &sign("0.3", "1.3"));
}

/// Checks the quadrature δ(ε) against the reference `name` at 30 digits.
fn check_hs(name: &str, pair: &Pair, eps: &str) {
    check(name, hockey_stick(pair, &sc(eps), 30), 30);
}

#[test]
fn hockey_stick_all_families() {
    check_hs("hs_gauss", &gauss("0", "1", "1"), "1");
    check_hs("hs_gauss_small", &gauss("0", "1", "1"), "9");
    check_hs("hs_rect", &rect("0.3", "1.3"), "0.5");
    check_hs("hs_rect_rev", &rect("1.3", "0.3"), "0.5");
    check_hs("hs_trunc", &trunc("0.3", "1.3"), "0.5");
    check_hs("hs_trunc_far9", &trunc("10", "11"), "0.01");
    check_hs("hs_sign", &sign("0.3", "1.3"), "0.1");
    check_hs("hs_trunc_neg41", &trunc("-42", "-40"), "0");
    check_hs("hs_trunc_far41_05", &trunc("42", "43"), "0.5");
    let u = Pair::gaussian_dd(sc("1"), sc("1"), sc("1.5"), 1).unwrap();
    check_hs("hs_uneq_d1", &u, "0.5");
    let u = Pair::gaussian_dd(sc("1"), sc("1.5"), sc("1"), 1).unwrap();
    check_hs("hs_uneq_d1_rev", &u, "0.5");
    let u = Pair::gaussian_dd(sc("1"), sc("1.5"), sc("1"), 7).unwrap();
    // d > 1 with unequal variances: the χ² route of profile_dd (tested there).
    assert!(hockey_stick(&u, &sc("0.5"), 30).is_ok());
}

#[test]
fn fisher_all_families() {
    // The Fisher information of the law `fam` at location `mu` (σ = 1, support [−1, 1]) against
    // the reference `name` at 30 digits.
    let check_fi = |name: &str, fam: &str, mu: &str| {
        let support = (fam == "rectified" || fam == "truncated").then(|| (sc("-1"), sc("1")));
        let loc = Location::new(fam, sc(mu), sc("1"), support).unwrap();
        check(name, fisher(&loc, 30), 30);
    };
    let g = Location::new("gaussian", sc("0.3"), sc("2"), None).unwrap();
    let c = fisher(&g, 30).unwrap();
    assert!(agreement_digits(&c.value, &Float::with_val(200, 0.25)) >= 30.0);
    check_fi("fi_rect", "rectified", "0.3");
    check_fi("fi_rect_far41", "rectified", "42");
    check_fi("fi_trunc", "truncated", "0.3");
    check_fi("fi_trunc_far9", "truncated", "10");
    check_fi("fi_trunc_far41", "truncated", "42");
    check_fi("fi_sign", "stochastic_sign", "0.3");
    check_fi("fi_sign_far", "stochastic_sign", "-9");
}
