//! No input makes the library panic: random `dpaudit eval` rows (well-formed and garbage) and
//! random arguments to the public constructors must return `Ok` or a typed `Err`.

use dpaudit::divergence::{Location, Pair};
use dpaudit::eval::{evaluate, parse_params, EvalOptions, Row};
use dpaudit::Scalar;
use proptest::prelude::*;

/// 400 cases per property from a fixed seed, so CI time is reproducible; set `DPAUDIT_FUZZ_SEED`
/// to explore other inputs (a failure prints the minimal input, which then reproduces with the
/// same seed).
fn config() -> ProptestConfig {
    let seed = std::env::var("DPAUDIT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_261_122u64);
    ProptestConfig {
        cases: 400,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..ProptestConfig::default()
    }
}

const QUANTITIES: &[&str] = &[
    "renyi",
    "kl",
    "fisher",
    "hockey_stick_delta",
    "eps_for_delta",
    "rgm_theorem1_eps",
    "rgm_corollary1_eps",
    "rgm_optimized_dp_eps",
    "rgm_optimized_dp_alpha",
    "rgm_theorem1_alpha_sup",
    "rgm_eq6_eps",
    "rgm_lemma1_ratio_max",
    "rgm_tcdp_rho",
    "rgm_tcdp_omega",
    "rgm_gss_tcdp_rho",
    "rgm_gss_tcdp_omega",
    "rgm_worst_case_renyi",
    "rho_bar",
    "bogus",
    "",
];
const FAMILIES: &[&str] = &[
    "gaussian",
    "gaussian_dd",
    "rgm",
    "rectified",
    "truncated",
    "stochastic_sign",
    "nope",
    "",
];
const KEYS: &[&str] = &[
    "mu1", "mu2", "mu", "sigma", "sigma1", "sigma2", "a", "b", "d", "dist", "gamma", "n1", "n2",
    "eta", "R", "alpha", "eps", "delta", "Rc", "eps_star", "zzz", "",
];
const VALUES: &[&str] = &[
    "0", "1", "-1", "2", "0.5", "1.001", "100", "1e-300", "1e300", "-1e300", "nan", "inf", "-inf",
    "", "abc", "1e-8", "0.001", "41", "-41", "1000", "3.5", "1e400", "-0", "7", "1e-30",
];

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(VALUES).prop_map(str::to_string),
        2 => (-50.0f64..50.0).prop_map(|x| format!("{x}")),
        1 => "[ -~]{0,8}",
    ]
}

fn params() -> impl Strategy<Value = String> {
    proptest::collection::vec((proptest::sample::select(KEYS), value()), 0..9).prop_map(|kv| {
        kv.into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(";")
    })
}

/// Well-formed rows: a valid (quantity, family) with exactly its keys, random values.
fn structured_row() -> impl Strategy<Value = (String, String, String)> {
    let combos: Vec<(&str, &str, Vec<&str>)> = vec![
        ("renyi", "gaussian", vec!["mu1", "mu2", "sigma", "alpha"]),
        (
            "renyi",
            "rectified",
            vec!["mu1", "mu2", "sigma", "a", "b", "alpha"],
        ),
        (
            "renyi",
            "truncated",
            vec!["mu1", "mu2", "sigma", "a", "b", "alpha"],
        ),
        (
            "renyi",
            "stochastic_sign",
            vec!["mu1", "mu2", "sigma", "alpha"],
        ),
        (
            "renyi",
            "gaussian_dd",
            vec!["dist", "sigma1", "sigma2", "d", "alpha"],
        ),
        (
            "renyi",
            "rgm",
            vec!["d", "gamma", "sigma2", "n1", "n2", "dist", "alpha"],
        ),
        ("kl", "truncated", vec!["mu1", "mu2", "sigma", "a", "b"]),
        (
            "kl",
            "rgm",
            vec!["d", "gamma", "sigma2", "n1", "n2", "dist", "eta", "R"],
        ),
        ("fisher", "rectified", vec!["mu", "sigma", "a", "b"]),
        ("fisher", "truncated", vec!["mu", "sigma", "a", "b"]),
        ("fisher", "stochastic_sign", vec!["mu", "sigma"]),
        (
            "hockey_stick_delta",
            "gaussian",
            vec!["mu1", "mu2", "sigma", "eps"],
        ),
        (
            "hockey_stick_delta",
            "rectified",
            vec!["mu1", "mu2", "sigma", "a", "b", "eps"],
        ),
        (
            "hockey_stick_delta",
            "truncated",
            vec!["mu1", "mu2", "sigma", "a", "b", "eps"],
        ),
        (
            "hockey_stick_delta",
            "gaussian_dd",
            vec!["dist", "sigma1", "sigma2", "d", "eps"],
        ),
        (
            "eps_for_delta",
            "gaussian",
            vec!["mu1", "mu2", "sigma", "delta"],
        ),
        (
            "eps_for_delta",
            "stochastic_sign",
            vec!["mu1", "mu2", "sigma", "delta"],
        ),
        (
            "rgm_theorem1_eps",
            "rgm",
            vec!["eta", "gamma", "d", "alpha"],
        ),
        (
            "rgm_corollary1_eps",
            "rgm",
            vec!["eta", "gamma", "d", "delta"],
        ),
        (
            "rgm_optimized_dp_eps",
            "rgm",
            vec!["eta", "gamma", "d", "delta"],
        ),
        ("rho_bar", "gaussian", vec!["d", "Rc"]),
    ];
    proptest::sample::select(combos).prop_flat_map(|(q, f, keys)| {
        let n = keys.len();
        (
            Just(q.to_string()),
            Just(f.to_string()),
            proptest::collection::vec(
                prop_oneof![
                    3 => proptest::sample::select(VALUES).prop_map(str::to_string),
                    3 => (0.0f64..5.0).prop_map(|x| format!("{x}")),
                    1 => (1u32..200).prop_map(|x| x.to_string()),
                ],
                n,
            )
            .prop_map(move |vals| {
                keys.iter()
                    .zip(vals)
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(";")
            }),
        )
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn well_formed_rows_never_panic((q, f, p) in structured_row(), digits in 1u32..25) {
        let row = Row { line: 1, id: "x".into(), quantity: q, family: f, params: p };
        let _ = evaluate(&row, &EvalOptions { digits, ..EvalOptions::default() });
    }

    #[test]
    fn eval_rows_never_panic(
        q in proptest::sample::select(QUANTITIES),
        f in proptest::sample::select(FAMILIES),
        p in prop_oneof![3 => params(), 1 => "[ -~]{0,40}"],
        digits in 1u32..25,
    ) {
        let row = Row { line: 1, id: "x".into(), quantity: q.into(), family: f.into(), params: p };
        let _ = evaluate(&row, &EvalOptions { digits, ..EvalOptions::default() });
    }

    #[test]
    fn parse_params_never_panics(s in "[ -~]{0,60}") {
        let _ = parse_params(&s);
    }

    #[test]
    fn constructors_never_panic(
        x in proptest::array::uniform5(prop_oneof![
            Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY), Just(0.0), Just(-0.0),
            Just(1e308), Just(-1e-320), -1e3f64..1e3,
        ]),
        d in 0u32..5,
    ) {
        let sc = |i: usize| Scalar::from(x[i]);
        let _ = Pair::gaussian(sc(0), sc(1), sc(2));
        let _ = Pair::rectified(sc(0), sc(1), sc(2), sc(3), sc(4));
        let _ = Pair::truncated(sc(0), sc(1), sc(2), sc(3), sc(4));
        let _ = Pair::stochastic_sign(sc(0), sc(1), sc(2));
        let _ = Pair::gaussian_dd(sc(0), sc(1), sc(2), d);
        let _ = Pair::rgm(d, sc(0), sc(1), sc(2), sc(3), sc(4));
        for fam in ["gaussian", "rectified", "truncated", "stochastic_sign", "other"] {
            let _ = Location::new(fam, sc(0), sc(1), Some((sc(2), sc(3))));
            let _ = Location::new(fam, sc(0), sc(1), None);
        }
    }
}
