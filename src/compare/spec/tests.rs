use super::{load_dir, AuditSpec, Float, PairSpec, Path, Result};

fn parse(text: &str) -> Result<AuditSpec> {
    AuditSpec::from_toml(text, Path::new("audits/t.toml"))
}

const GAUSS: &str = r#"
    [mechanism]
    family = "gaussian"
    sigma = 5
    [pair]
    mu1 = "0"
    mu2 = 1
    [audit]
    samples_per_side = 1000
    delta = 1e-5
    confidence = 0.95
    seed = 7
"#;

#[test]
fn parses_a_gaussian_spec_with_exact_decimals() {
    let s = parse(GAUSS).unwrap();
    assert_eq!(s.name, "t");
    assert_eq!(s.audit.samples_per_side, 1000);
    assert_eq!(s.audit.seed, 7);
    // 1e-5 written as a TOML float reads back as the exact decimal 0.00001
    let exact = Float::with_val(300, Float::parse("0.00001").unwrap());
    assert_eq!(s.audit.delta.mp(300), exact);
    assert!(s
        .divergence_pair()
        .unwrap()
        .downcast_ref::<crate::mechanisms::gaussian::GaussianPair>()
        .is_some());
}

fn err_of(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

/// Each case edits `base` (replace `from` by `to`; the edit must apply) and names the words the
/// parse error must contain.
fn assert_errors(base: &str, cases: &[(&str, &str, &[&str])]) {
    for (from, to, words) in cases {
        assert!(base.contains(from), "the case {from:?} does not apply");
        let e = err_of(&base.replace(from, to));
        assert!(
            words.iter().all(|w| e.contains(w)),
            "{from:?} -> {to:?}: {e}"
        );
    }
}

#[test]
fn errors_name_file_and_field() {
    assert_errors(
        GAUSS,
        &[
            (
                "delta = 1e-5",
                "delta = 2",
                &["audits/t.toml", "audit.delta"],
            ),
            ("sigma = 5", "sigma = -1", &["mechanism.sigma"]),
            ("sigma = 5", "sigma = \"abc\"", &["mechanism.sigma", "abc"]),
            ("seed = 7", "seed = 7\nsedd = 3", &["audits/t.toml", "sedd"]),
            // (An unknown family; `laplace` was the example until it became a model family.)
            (
                "family = \"gaussian\"",
                "family = \"cauchy\"",
                &["mechanism.family", "cauchy", "laplace"],
            ),
            ("confidence = 0.95", "confidence = 1", &["audit.confidence"]),
            (
                "samples_per_side = 1000",
                "samples_per_side = -3",
                &["audit.samples_per_side"],
            ),
            ("mu2 = 1", "mu2 = 0", &["pair.mu2"]),
            ("sigma = 5", "sigma = 5\na = 0", &["mechanism.a"]),
            (
                "seed = 7",
                "seed = 7\nstatistic = \"grey\"",
                &["audit.statistic", "grey"],
            ),
            (
                "seed = 7",
                "seed = 7\nselection = \"best\"",
                &["audit.selection", "best"],
            ),
        ],
    );
    let e = err_of("not toml at all [");
    assert!(e.contains("audits/t.toml"), "{e}");
}

const RGM: &str = r#"
    [mechanism]
    family = "rgm"
    d = 10
    gamma = "0.001"
    sigma2 = "5.625"
    eta = "0.01"
    R = "0.75"
    [pair]
    n1 = "100"
    n2 = "101.25"
    dist = "1.25"
    [audit]
    samples_per_side = 1000
    delta = "1e-5"
    confidence = 0.95
    seed = 1
"#;

#[test]
fn rgm_spec_checks_relative_sensitivity_and_sigma2() {
    // dist² = 1.5625 = eta² n1² + R² exactly: admissible at equality.
    let s = parse(RGM).unwrap();
    let pair = s.divergence_pair().unwrap();
    assert_eq!(
        pair.downcast_ref::<crate::mechanisms::rgm::RgmPair>()
            .unwrap()
            .d,
        10
    );
    let e = err_of(
        &RGM.replace("dist = \"1.25\"", "dist = \"1.26\"")
            .replace("n2 = \"101.25\"", "n2 = \"101.26\""),
    );
    assert!(e.contains("pair.dist") && e.contains("Def. 2"), "{e}");
    assert_errors(
        RGM,
        &[
            // sigma² minimum is gamma R²/eta² = 5.625 exactly
            (
                "sigma2 = \"5.625\"",
                "sigma2 = \"5.6249\"",
                &["mechanism.sigma2", "Theorem 1"],
            ),
            // triangle inequality violated: no such vectors
            ("n2 = \"101.25\"", "n2 = \"110\"", &["dist"]),
            ("d = 10", "d = 0", &["mechanism.d"]),
            ("eta = \"0.01\"\n", "", &["mechanism.eta"]),
        ],
    );
}

#[test]
fn bounded_families_need_a_support() {
    let t = GAUSS.replace("family = \"gaussian\"", "family = \"rectified\"");
    let e = err_of(&t);
    assert!(e.contains("mechanism.a"), "{e}");
    let t2 = t.replace("sigma = 5", "sigma = 5\na = 1\nb = -1");
    let e = err_of(&t2);
    assert!(
        e.contains("mechanism.a") && e.contains("mechanism.b"),
        "{e}"
    );
    let t3 = t.replace("sigma = 5", "sigma = 5\na = -1\nb = 1");
    assert_eq!(parse(&t3).unwrap().mechanism.family.name, "rectified");
}

#[test]
fn shipped_specs_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("audits");
    let specs = load_dir(&dir).unwrap();
    assert!(specs.len() >= 8, "{} specs", specs.len());
    for s in &specs {
        s.mechanism().unwrap();
    }
}

/// The Gaussian spec with the mechanism swapped for a Laplace of scale 0.5.
fn laplace() -> String {
    GAUSS.replace(
        "family = \"gaussian\"\n    sigma = 5",
        "family = \"laplace\"\n    scale = \"0.5\"",
    )
}

/// A model family parses through the registry: its `[mechanism]` keys come from the family's
/// vocabulary, the pair is the model pair, and the sampler is the model's.
#[test]
fn parses_a_laplace_spec_through_the_registry() {
    let spec = laplace();
    assert!(spec.contains("laplace"));
    let s = parse(&spec).unwrap();
    assert_eq!(s.mechanism.family(), "laplace");
    let pair = s.divergence_pair().unwrap();
    assert_eq!(pair.to_string(), "laplace(mu1=0, mu2=1, scale=0.5)");
    let m = s.mechanism().unwrap();
    assert_eq!(m.name(), "laplace(mu1=0, mu2=1, scale=0.5)");
    // Published claim: pure ε = |μ1 − μ2|/b = 2.
    assert_eq!(m.claimed_eps(1e-5).unwrap(), 2.0);
}

#[test]
fn laplace_spec_errors_name_the_field() {
    let no_scale = laplace().replace("scale = \"0.5\"", "");
    let e = err_of(&no_scale);
    assert!(e.contains("mechanism.scale"), "{e}");
    let with_sigma = laplace().replace("scale = \"0.5\"", "scale = \"0.5\"\n    sigma = 1");
    let e = err_of(&with_sigma);
    assert!(
        e.contains("mechanism.sigma") && e.contains("does not take it"),
        "{e}"
    );
    let bad_scale = laplace().replace("scale = \"0.5\"", "scale = \"-1\"");
    let e = err_of(&bad_scale);
    assert!(e.contains("scale = -1"), "{e}");
    let unknown = laplace().replace("\"laplace\"", "\"laplacian\"");
    let e = err_of(&unknown);
    assert!(e.contains("laplace") && e.contains("laplacian"), "{e}");
}

/// The Gaussian spec with the mechanism swapped for the `gaussian_dd` pair: its `[mechanism]` keys
/// are its vocabulary's non-input keys, its `[pair]` its one input, `dist`.
fn gauss_dd() -> String {
    GAUSS
        .replace(
            "family = \"gaussian\"\n    sigma = 5",
            "family = \"gaussian_dd\"\n    sigma1 = \"1\"\n    sigma2 = \"1.2\"\n    d = 5",
        )
        .replace("mu1 = \"0\"\n    mu2 = 1", "dist = \"1\"")
}

/// A family whose input is not a pair of locations parses through the registry too, into the
/// same model pair and the family's own audit mechanism; it has no published bound.
#[test]
fn parses_a_gaussian_dd_spec_through_the_registry() {
    let spec = gauss_dd();
    assert!(spec.contains("gaussian_dd") && spec.contains("dist"));
    let s = parse(&spec).unwrap();
    assert_eq!(s.mechanism.family(), "gaussian_dd");
    assert_eq!(
        s.pair,
        PairSpec {
            inputs: vec![("dist", "1".parse().unwrap())]
        }
    );
    assert_eq!(s.shift().f64(), 1.0);
    let pair = s.divergence_pair().unwrap();
    assert_eq!(
        pair.to_string(),
        "gaussian_dd(dist=1, sigma1=1, sigma2=1.2, d=5)"
    );
    let m = s.mechanism().unwrap();
    assert_eq!(m.name(), pair.to_string());
    assert!(crate::compare::threeway::bounds(&s).is_empty());
    assert_errors(
        &spec,
        &[
            ("sigma1 = \"1\"\n", "", &["mechanism.sigma1", "gaussian_dd"]),
            ("d = 5", "d = 0", &["mechanism.d", "[1, 100000]"]),
            (
                "dist = \"1\"",
                "dist = \"1\"\n    mu1 = 0",
                &["pair.mu1", "does not take it"],
            ),
            ("dist = \"1\"", "", &["pair.dist", "missing"]),
            ("dist = \"1\"", "dist = \"-1\"", &["dist = -1", ">= 0"]),
            // Equal laws: nothing to audit.
            (
                "sigma2 = \"1.2\"\n    d = 5\n    [pair]\n    dist = \"1\"",
                "sigma2 = \"1\"\n    d = 5\n    [pair]\n    dist = \"0\"",
                &["field pair", "two different laws"],
            ),
            (
                "family = \"gaussian_dd\"",
                "family = \"subsampled_gaussian\"",
                &[
                    "one of gaussian, gaussian_dd, rgm",
                    "laplace",
                    "\"subsampled_gaussian\"",
                ],
            ),
        ],
    );
}

/// The RGM's extra `[mechanism]` keys come from its registry data (`SpecForm::extra_keys`): the
/// optional Rényi order `alpha` is kept when given, checked > 1, and left out when absent.
#[test]
fn rgm_extra_keys_come_from_the_family() {
    let s = parse(RGM).unwrap();
    assert!(s.mechanism.params.iter().all(|(k, _)| *k != "alpha"));
    let keys: Vec<&str> = s.mechanism.params.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, ["d", "gamma", "sigma2", "eta", "R"]);
    let with = RGM.replace("R = \"0.75\"", "R = \"0.75\"\n    alpha = \"3\"");
    let s = parse(&with).unwrap();
    let alpha = s.mechanism.params.iter().find(|(k, _)| *k == "alpha");
    assert_eq!(alpha.map(|(_, v)| v.to_string()), Some("3".to_string()));
    assert_errors(
        &with,
        &[
            (
                "alpha = \"3\"",
                "alpha = \"1\"",
                &["mechanism.alpha", "> 1"],
            ),
            ("d = 10", "d = \"10\"", &["mechanism.d", "an integer"]),
            ("R = \"0.75\"", "R = \"-1\"", &["mechanism.R", ">= 0"]),
            ("n1 = \"100\"", "n1 = \"-100\"", &["pair.n1", ">= 0"]),
        ],
    );
}

/// A key that the family does not take is refused, naming the field and the family, in either
/// section; a spec without a family names the missing field.
#[test]
fn keys_outside_the_family_are_refused() {
    assert_errors(
        GAUSS,
        &[
            (
                "sigma = 5",
                "sigma = 5\n    eta = 1",
                &["mechanism.eta", "does not take it", "gaussian"],
            ),
            (
                "mu2 = 1",
                "mu2 = 1\n    dist = 1",
                &["pair.dist", "does not take it"],
            ),
            (
                "family = \"gaussian\"\n",
                "",
                &["mechanism.family", "missing"],
            ),
            (
                "family = \"gaussian\"",
                "family = 3",
                &["mechanism.family", "one of"],
            ),
        ],
    );
}
