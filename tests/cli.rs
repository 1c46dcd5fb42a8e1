//! End-to-end tests of the `dpaudit` binary: exit statuses, error messages, files written, and
//! the determinism of the CSV output.

mod common;

use common::{bin, run, text};
use std::path::{Path, PathBuf};
use std::process::Output;

/// A fresh temporary directory for one test (removed by the test on success).
fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_dir("cli", name)
}

#[test]
fn eval_with_good_and_bad_rows_exits_2_and_computes_the_good_ones() {
    let dir = tmp_dir("eval");
    let input = dir.join("rows.csv");
    // Expected values are exact: D_2(N(0,1) ‖ N(1,1)) = α/2 = 1 and KL = 1/2.
    std::fs::write(
        &input,
        "id,quantity,family,params\n\
         good1,renyi,gaussian,mu1=0;mu2=1;sigma=1;alpha=2\n\
         bad1,renyi,gaussian,mu1=0;mu2=1;sigma=-1;alpha=2\n\
         bad2,nonsense,gaussian,mu1=0\n\
         good2,kl,gaussian,mu1=0;mu2=1;sigma=1\n",
    )
    .unwrap();
    let out = run(bin().args(["eval", "--digits", "20"]).arg(&input));
    assert_eq!(out.status.code(), Some(2), "stderr: {}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    let good1 = lines.iter().find(|l| l.starts_with("good1,")).unwrap();
    assert!(good1.contains(",1.0000000000000000000"), "{good1}");
    let good2 = lines.iter().find(|l| l.starts_with("good2,")).unwrap();
    assert!(good2.contains(",5.0000000000000000000"), "{good2}");
    let bad1 = lines.iter().find(|l| l.starts_with("bad1,")).unwrap();
    assert!(bad1.contains("sigma"), "{bad1}");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("2 of 4 rows failed"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_spec_exits_2_with_a_message_naming_file_and_field() {
    let dir = tmp_dir("badspec");
    let spec = dir.join("broken.toml");
    std::fs::write(
        &spec,
        "[mechanism]\nfamily = \"gaussian\"\nsigma = \"5\"\n[pair]\nmu1 = 0\nmu2 = 1\n\
         [audit]\nsamples_per_side = 1000\ndelta = 1.5\nconfidence = 0.95\nseed = 1\n",
    )
    .unwrap();
    let out = run(bin()
        .arg("audit")
        .arg(&spec)
        .arg("--out")
        .arg(dir.join("out")));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("dpaudit: error: "), "{stderr}");
    assert!(
        stderr.contains("broken.toml") && stderr.contains("audit.delta"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    // A syntax error and a missing file are clear errors too.
    std::fs::write(&spec, "[mechanism\nfamily = 3").unwrap();
    let out = run(bin().arg("audit").arg(&spec));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("broken.toml"));
    let out = run(bin().arg("audit").arg(dir.join("missing.toml")));
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("missing.toml"));
    assert!(!dir.join("out").exists(), "nothing written for a bad spec");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn audit_into(spec: &Path, out: &Path) -> Output {
    run(bin().arg("audit").arg(spec).arg("--out").arg(out))
}

#[test]
fn audit_writes_files_and_identical_csv_across_runs() {
    let dir = tmp_dir("audit");
    let spec = dir.join("tiny_sign.toml");
    std::fs::write(
        &spec,
        "name = \"tiny_sign\"\ndescription = \"stochastic sign, tiny audit\"\n\
         [mechanism]\nfamily = \"stochastic_sign\"\nsigma = \"1\"\n\
         [pair]\nmu1 = \"-0.5\"\nmu2 = \"0.5\"\n\
         [audit]\nsamples_per_side = 20000\ndelta = \"1e-5\"\nconfidence = 0.95\nseed = 3\n",
    )
    .unwrap();
    let (a, b) = (dir.join("a"), dir.join("b"));
    for d in [&a, &b] {
        let out = audit_into(&spec, d);
        assert!(
            out.status.code() == Some(0),
            "status {:?}, stderr: {}",
            out.status.code(),
            text(&out.stderr)
        );
    }
    for f in [
        "tiny_sign.md",
        "tiny_sign.csv",
        "tiny_sign_audit.csv",
        "tiny_sign_profile.svg",
        "tiny_sign_profile.png",
        "tiny_sign_profile.csv",
    ] {
        assert!(a.join(f).is_file(), "{f} missing");
    }
    let leftovers: Vec<_> = std::fs::read_dir(&a)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    for f in [
        "tiny_sign.csv",
        "tiny_sign_audit.csv",
        "tiny_sign_profile.csv",
    ] {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(!x.is_empty());
        assert_eq!(x, y, "{f} differs between two runs with the same seed");
    }
    // The exact ε of this pair (independent: mpmath, log((Φ(0.5) − 1e-5)/Φ(−0.5))) is in the CSV.
    let csv = text(&std::fs::read(a.join("tiny_sign.csv")).unwrap());
    assert!(csv.contains(",exact,exact,0.806950884099,"), "{csv}");
    assert!(!csv.contains("VIOLATION"), "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn report_rejects_a_missing_spec_directory() {
    let dir = tmp_dir("nospecs");
    let out = run(bin()
        .args(["report", "--quick", "--specs"])
        .arg(dir.join("none"))
        .arg("--out")
        .arg(dir.join("out")));
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.starts_with("dpaudit: error: ") && stderr.contains("none"),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn quick_report_on_a_small_spec_set_writes_everything() {
    let dir = tmp_dir("report");
    let (specs, golden, out) = (dir.join("specs"), dir.join("golden"), dir.join("out"));
    std::fs::create_dir_all(&specs).unwrap();
    std::fs::create_dir_all(&golden).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for s in ["stochastic_sign.toml", "rgm_d10.toml"] {
        std::fs::copy(root.join("audits").join(s), specs.join(s)).unwrap();
    }
    // Golden rows with exact values: KL(N(0,1) ‖ N(1,1)) = 1/2; the second row is wrong on
    // purpose (0.6) and must be listed as a failure, making the exit status 1.
    std::fs::write(
        golden.join("g.csv"),
        "id,quantity,family,params,value,digits,source\n\
         ok,kl,gaussian,mu1=0;mu2=1;sigma=1,0.5,60,exact\n\
         wrong,kl,gaussian,mu1=0;mu2=1;sigma=1,0.6,60,wrong on purpose\n",
    )
    .unwrap();
    let out_run = run(bin()
        .args(["report", "--quick", "--samples", "50000", "--specs"])
        .arg(&specs)
        .arg("--golden")
        .arg(&golden)
        .arg("--out")
        .arg(&out));
    let stderr = text(&out_run.stderr);
    assert_eq!(out_run.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.contains("1 golden rows failed"), "{stderr}");
    assert!(
        stderr.contains(
            "dpaudit: verdict: no VIOLATION in 2 spec(s); golden 1/2 rows agree; positive \
             controls 3/3 caught; slowest spec "
        ),
        "{stderr}"
    );
    for f in [
        "summary.md",
        "threeway.csv",
        "audits.csv",
        "controls.csv",
        "golden.csv",
        "profile_rgm.png",
        "profile_bounded.svg",
        "renyi_alpha.png",
        "location.png",
        "location.csv",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let md = text(&std::fs::read(out.join("summary.md")).unwrap());
    assert!(md.contains("**1 / 2** rows agree"), "{md}");
    assert!(md.contains("wrong"), "failure listed");
    assert!(md.contains("No VIOLATION"), "{md}");
    assert!(md.contains("3 / 3** caught"), "{md}");
    let csv = text(&std::fs::read(out.join("threeway.csv")).unwrap());
    // RGM in d = 10 has no closed-form profile: the exact ε(δ) comes certified from the docs/formulas.md
    // §7.4 route (divergence::profile_dd), not the RDP-converted upper bound.
    assert!(csv.contains("rgm_d10,rgm,1e-5,exact,exact,"), "{csv}");
    assert!(!csv.contains("rgm_d10,rgm,1e-5,exact_upper_bound"), "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A Gaussian spec (σ = 2, sensitivity 1, δ = 1e-3) with an optional test-only fault. The exact
/// ε(1e-3) of the pair is 1.35227624480255 (mpmath, dps 30: root of the μ = 0.5 Balle–Wang
/// profile Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ); with σ halved the sampler's pair has μ = 1 and
/// ε(1e-3) = 3.13867, so 200,000 draws per side put the audit's lower bound well above the exact
/// figure.
fn gaussian_spec(dir: &Path, name: &str, fault: Option<&str>) -> PathBuf {
    spec_file(
        dir,
        name,
        "family = \"gaussian\"\nsigma = \"2\"",
        "mu1 = \"0\"\nmu2 = \"1\"",
        fault,
    )
}

/// Writes `dir/name.toml`: the given `[mechanism]` and `[pair]` lines, 200,000 draws per side at
/// δ = 1e-3, confidence 0.95, seed 7, and an optional injected fault.
fn spec_file(dir: &Path, name: &str, mechanism: &str, pair: &str, fault: Option<&str>) -> PathBuf {
    let spec = dir.join(format!("{name}.toml"));
    let fault = fault.map_or(String::new(), |f| format!("fault = \"{f}\"\n"));
    std::fs::write(
        &spec,
        format!(
            "name = \"{name}\"\ndescription = \"{name}\"\n\
             [mechanism]\n{mechanism}\n[pair]\n{pair}\n\
             [audit]\nsamples_per_side = 200000\ndelta = \"1e-3\"\nconfidence = 0.95\n\
             seed = 7\n{fault}"
        ),
    )
    .unwrap();
    spec
}

/// The numeric `value` of the threeway CSV row with `role`.
fn figure(csv: &str, role: &str) -> Option<f64> {
    csv.lines()
        .find(|l| l.split(',').nth(3) == Some(role))
        .and_then(|l| l.split(',').nth(5))
        .and_then(|v| v.parse().ok())
}

/// Checks the threeway CSV at `path` of the Gaussian mechanism with sensitivity 1, σ = 2 at
/// δ = 1e-3: exact ε = 1.35227624480 (Balle–Wang, mpmath) and a positive audit lower bound below
/// it. Returns the CSV.
fn gaussian_sigma2_figures(path: &Path) -> String {
    let csv = text(&std::fs::read(path).unwrap());
    let exact = figure(&csv, "exact").expect("numeric exact figure");
    let lb = figure(&csv, "audit_lower_bound").expect("numeric audit lower bound");
    assert!((exact - 1.352_276_244_80).abs() < 1e-10, "exact {exact}");
    assert!(
        lb > 0.0 && lb <= exact,
        "audit lower bound {lb}, exact {exact}"
    );
    csv
}

#[test]
fn correct_audit_exits_0_with_a_numeric_lower_bound_below_exact() {
    let dir = tmp_dir("clean");
    let spec = gaussian_spec(&dir, "gauss_ok", None);
    let out = audit_into(&spec, &dir.join("out"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(
        !stderr.contains("VIOLATION:") && !stderr.contains("NOT RUN"),
        "{stderr}"
    );
    // The terminal verdict.
    assert!(
        stderr.contains("dpaudit: verdict: no VIOLATION in 1 spec(s); slowest spec gauss_ok")
            && stderr.contains("gauss_ok.md (6 files in"),
        "{stderr}"
    );
    gaussian_sigma2_figures(&dir.join("out/gauss_ok.csv"));
    let md = text(&std::fs::read(dir.join("out/gauss_ok.md")).unwrap());
    assert!(md.contains("No VIOLATION"), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A registry family specced by its vocabulary: `gaussian_dd` in d = 3 with σ1 = σ2 = 2 and
/// ‖m1 − m2‖ = 1 is the Gaussian mechanism of the test above (same exact ε, by rotation
/// invariance), audited by its own sampler; its guarantee is its exact ε, so no bound row.
#[test]
fn a_gaussian_dd_spec_audits_through_the_registry() {
    let dir = tmp_dir("gdd");
    let spec = spec_file(
        &dir,
        "gdd",
        "family = \"gaussian_dd\"\nsigma1 = \"2\"\nsigma2 = \"2\"\nd = 3",
        "dist = \"1\"",
        None,
    );
    let out = audit_into(&spec, &dir.join("out"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let csv = gaussian_sigma2_figures(&dir.join("out/gdd.csv"));
    assert!(figure(&csv, "bound").is_none(), "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn injected_bias_exits_1_and_prints_the_violation_everywhere() {
    let dir = tmp_dir("violation");
    let spec = gaussian_spec(&dir, "gauss_biased", Some("halved_sigma"));
    let out = audit_into(&spec, &dir.join("out"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("VIOLATION: gauss_biased: audit lower bound")
            && stderr.contains("> exact ε 1.3522762448"),
        "{stderr}"
    );
    let md = text(&std::fs::read(dir.join("out/gauss_biased.md")).unwrap());
    assert!(md.contains("VIOLATION(S)**"), "{md}");
    assert!(
        md.contains("`VIOLATION: gauss_biased: audit lower bound"),
        "{md}"
    );
    assert!(!md.contains("No VIOLATION"), "{md}");
    let csv = text(&std::fs::read(dir.join("out/gauss_biased.csv")).unwrap());
    assert!(
        csv.contains("gauss_biased,gaussian,1e-3,VIOLATION,"),
        "{csv}"
    );
    let lb = figure(&csv, "audit_lower_bound").unwrap();
    assert!(lb > 1.352_276_244_80, "biased audit lower bound {lb}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_audit_that_fails_is_not_run_and_exits_2() {
    let dir = tmp_dir("notrun");
    let spec = gaussian_spec(&dir, "gauss_broken", Some("audit_error"));
    let out = audit_into(&spec, &dir.join("out"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    assert!(
        stderr.contains("NOT RUN: gauss_broken: audit:") && stderr.contains("samples_per_side = 0"),
        "{stderr}"
    );
    let md = text(&std::fs::read(dir.join("out/gauss_broken.md")).unwrap());
    assert!(md.contains("NOT RUN: gauss_broken: audit"), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_report_without_its_golden_check_is_not_clean() {
    let dir = tmp_dir("nogolden");
    let (specs, out) = (dir.join("specs"), dir.join("out"));
    std::fs::create_dir_all(&specs).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        root.join("audits/stochastic_sign.toml"),
        specs.join("stochastic_sign.toml"),
    )
    .unwrap();
    let o = run(bin()
        .args(["report", "--quick", "--samples", "50000", "--specs"])
        .arg(&specs)
        .arg("--golden")
        .arg(dir.join("no-such-golden"))
        .arg("--out")
        .arg(&out));
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("NOT RUN: golden verification"), "{stderr}");
    let md = text(&std::fs::read(out.join("summary.md")).unwrap());
    assert!(md.contains("NOT RUN: golden verification"), "{md}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_argument_errors_exit_2_with_a_message() {
    let dir = tmp_dir("args");
    let rows = dir.join("rows.csv");
    std::fs::write(
        &rows,
        "id,quantity,family,params\nk,kl,gaussian,mu1=0;mu2=1;sigma=1\n",
    )
    .unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "eval".into(),
                "--method".into(),
                "bogus".into(),
                rows.display().to_string(),
            ],
            "bogus",
        ),
        (
            vec![
                "eval".into(),
                "--digits".into(),
                "0".into(),
                rows.display().to_string(),
            ],
            "digits = 0",
        ),
        (
            vec!["eval".into(), dir.join("missing.csv").display().to_string()],
            "missing.csv",
        ),
        (
            vec![
                "audit".into(),
                "audits/gaussian.toml".into(),
                "--samples".into(),
                "0".into(),
            ],
            "samples = 0",
        ),
        (
            vec![
                "audit".into(),
                "audits/gaussian.toml".into(),
                "--samples".into(),
                "1".into(),
            ],
            "samples = 1",
        ),
        (
            vec![
                "report".into(),
                "--samples".into(),
                "100000000000000000".into(),
            ],
            "samples = 100000000000000000",
        ),
    ];
    for (args, needle) in cases {
        let o = run(bin()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(&args)
            .env("DPAUDIT_TEST_OUT", &dir));
        let stderr = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_reads_stdin() {
    use std::io::Write;
    let mut child = bin()
        .args(["eval", "--digits", "20", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"id,quantity,family,params\nk,kl,gaussian,mu1=0;mu2=1;sigma=1\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    // KL(N(0,1) ‖ N(1,1)) = 1/2 exactly.
    assert!(
        text(&o.stdout).contains("k,kl,gaussian,mu1=0;mu2=1;sigma=1,5.0000000000000000000"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn quick_audit_runs_a_twentieth_of_the_samples() {
    let dir = tmp_dir("quick");
    let spec = dir.join("tiny_sign.toml");
    std::fs::write(
        &spec,
        "name = \"tiny_sign\"\n[mechanism]\nfamily = \"stochastic_sign\"\nsigma = \"1\"\n\
         [pair]\nmu1 = \"-0.5\"\nmu2 = \"0.5\"\n\
         [audit]\nsamples_per_side = 1000000\ndelta = \"1e-5\"\nconfidence = 0.95\nseed = 3\n",
    )
    .unwrap();
    let o = run(bin()
        .arg("audit")
        .arg(&spec)
        .arg("--quick")
        .arg("--out")
        .arg(dir.join("out")));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let details = text(&std::fs::read(dir.join("out/tiny_sign_audit.csv")).unwrap());
    assert!(
        details.contains("tiny_sign,samples_per_side,50000\n"),
        "{details}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `audit --shard K/N` in N separate processes, then `merge`: the CSVs are byte-identical to the
/// unsharded run's, and bad merges are refused with a clear error.
#[test]
fn sharded_audit_merges_to_the_unsharded_result() {
    let dir = tmp_dir("shards");
    let spec_text = |seed: u32| {
        format!(
            "name = \"sh_sign\"\n[mechanism]\nfamily = \"stochastic_sign\"\nsigma = \"1\"\n\
             [pair]\nmu1 = \"-0.5\"\nmu2 = \"0.5\"\n\
             [audit]\nsamples_per_side = 3500000\ndelta = \"1e-5\"\nconfidence = 0.95\n\
             seed = {seed}\n"
        )
    };
    let spec = dir.join("sh_sign.toml");
    std::fs::write(&spec, spec_text(3)).unwrap();
    // 3.5e6 draws per side are 4 chunks of 2^20: every shard of 3 draws something.
    let whole = dir.join("whole");
    let o = audit_into(&spec, &whole);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let shards = dir.join("shards");
    for k in 1..=3 {
        let o = run(bin()
            .arg("audit")
            .arg(&spec)
            .args(["--shard", &format!("{k}/3"), "--out"])
            .arg(&shards));
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        assert!(shards
            .join(format!("sh_sign.shard-{k}-of-3.toml"))
            .is_file());
    }
    let merged = dir.join("merged");
    let o = run(bin().arg("merge").arg(&shards).arg("--out").arg(&merged));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    for f in ["sh_sign.csv", "sh_sign_audit.csv", "sh_sign_profile.csv"] {
        let a = std::fs::read(whole.join(f)).unwrap();
        let b = std::fs::read(merged.join(f)).unwrap();
        assert!(!a.is_empty());
        assert_eq!(
            a, b,
            "{f} differs between the sharded and the unsharded run"
        );
    }
    let merge_err = |args: Vec<PathBuf>| {
        let o = run(bin()
            .arg("merge")
            .args(&args)
            .arg("--out")
            .arg(dir.join("bad")));
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        text(&o.stderr)
    };
    let s = |k: u32| shards.join(format!("sh_sign.shard-{k}-of-3.toml"));
    // A missing shard.
    let e = merge_err(vec![s(1), s(3)]);
    assert!(e.contains("shard 2/3 is missing"), "{e}");
    // A duplicate (the same shard in two places).
    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(s(2), copy.join("sh_sign.shard-2-of-3.toml")).unwrap();
    let e = merge_err(vec![shards.clone(), copy]);
    assert!(e.contains("2/3") && e.contains("twice"), "{e}");
    // A shard of another seed.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let spec4 = other.join("sh_sign.toml");
    std::fs::write(&spec4, spec_text(4)).unwrap();
    let o = run(bin()
        .arg("audit")
        .arg(&spec4)
        .args(["--shard", "3/3", "--out"])
        .arg(&other));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let e = merge_err(vec![s(1), s(2), other.join("sh_sign.shard-3-of-3.toml")]);
    assert!(e.contains("shards of different runs do not merge"), "{e}");
    // A bad K/N.
    let o = run(bin().arg("audit").arg(&spec).args(["--shard", "4/3"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("shard"), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A row that cannot be certified quickly (found by fuzzing: it used to run for minutes) fails at
/// its time limit with the digits it reached, and the other rows are still computed. The row's
/// closed form now takes 20 ms (its S = e^{(α−1)D} overflowed before the log-space fallback of
/// docs/formulas.md §9.10; the value 498466761812.0130940294807802611348 agrees with two mpmath
/// routes), so the quadrature route, which still needs minutes, is the slow one here.
#[test]
fn eval_rows_stop_at_their_time_limit() {
    let dir = tmp_dir("maxsec");
    let rows = dir.join("rows.csv");
    std::fs::write(
        &rows,
        "id,quantity,family,params\n\
         slow,renyi,rectified,mu1=8.0012;mu2=40;sigma=6.54256e-5;a=-42.72;b=40.39;alpha=1000\n\
         k,kl,gaussian,mu1=0;mu2=1;sigma=1\n",
    )
    .unwrap();
    let o = run(bin()
        .args(["eval", "--method", "quadrature", "--max-seconds", "2"])
        .arg(&rows));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let slow = stdout.lines().find(|l| l.starts_with("slow,")).unwrap();
    assert!(
        slow.contains("cannot certify 30 digits") && slow.contains("time limit of 2 s reached"),
        "{slow}"
    );
    assert!(
        stdout.contains("k,kl,gaussian,mu1=0;mu2=1;sigma=1,5.0000000000000000000"),
        "{stdout}"
    );
    let o = run(bin().args(["eval", "--max-seconds", "0"]).arg(&rows));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("max-seconds = 0"),
        "{}",
        text(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `dpaudit claims` writes the seed-claims table as Markdown and CSV, byte-identical across runs,
/// and states the verdict counts on the terminal.
#[test]
fn claims_writes_the_table_deterministically() {
    let (a, b) = (tmp_dir("claims_a"), tmp_dir("claims_b"));
    for d in [&a, &b] {
        let o = run(bin().args(["claims", "--out"]).arg(d));
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains(" claims: "), "{}", text(&o.stderr));
    }
    let csv_a = std::fs::read(a.join("claims.csv")).unwrap();
    assert_eq!(csv_a, std::fs::read(b.join("claims.csv")).unwrap());
    let csv = String::from_utf8(csv_a).unwrap();
    assert!(csv.starts_with("id,source,statement,figure,verdict,reason,command\n"));
    assert!(csv.lines().count() > 25, "{csv}");
    let md = std::fs::read_to_string(a.join("claims.md")).unwrap();
    assert!(
        md.contains("hmb-cor1-example") && md.contains("**false**") && !md.contains("**fails**"),
        "{md}"
    );
    assert!(
        !md.contains("shared/seeds"),
        "claims.md cites a path outside the repository"
    );
    // Every row's command uses the binary, never cargo test.
    assert!(!csv.contains("cargo test"), "{csv}");
    for d in [&a, &b] {
        let _ = std::fs::remove_dir_all(d);
    }
}

/// `dpaudit claims --only ID` computes and prints that row alone; an unknown id exits with 2.
#[test]
fn claims_only_writes_one_row_and_rejects_unknown_ids() {
    let dir = tmp_dir("claims_only");
    let o = run(bin()
        .args(["claims", "--only", "hmb-prop2-ptr", "--out"])
        .arg(&dir));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("verdict:   false"),
        "{}",
        text(&o.stdout)
    );
    let csv = std::fs::read_to_string(dir.join("claims.csv")).unwrap();
    assert_eq!(csv.lines().count(), 2, "{csv}");
    let o = run(bin()
        .args(["claims", "--only", "no-such-row", "--out"])
        .arg(&dir));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("hmb-thm2-eq8"),
        "{}",
        text(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn audit_past_max_seconds_exits_2_and_leaves_earlier_outputs_as_they_were() {
    // Issue 23: `audit` had no --max-seconds (a fuzzed spec ran 177 s).
    let dir = tmp_dir("audit-limit");
    let spec = gaussian_spec(&dir, "lim", None);
    let out = dir.join("out");
    let o = run(bin()
        .arg("audit")
        .arg(&spec)
        .args(["--samples", "20000", "--out"])
        .arg(&out));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let before: Vec<(PathBuf, Vec<u8>)> = ["lim.csv", "lim_audit.csv", "lim.md"]
        .iter()
        .map(|f| (out.join(f), std::fs::read(out.join(f)).unwrap()))
        .collect();
    // 2^34 samples per side would take minutes: stopped at the limit, nothing written.
    let t0 = std::time::Instant::now();
    let o = run(bin()
        .arg("audit")
        .arg(&spec)
        .args(["--samples", "17179869184", "--max-seconds", "1", "--out"])
        .arg(&out));
    let secs = t0.elapsed().as_secs_f64();
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("time limit --max-seconds 1 reached"), "{err}");
    assert!(secs < 30.0, "{secs} s");
    for (p, b) in before {
        assert_eq!(std::fs::read(&p).unwrap(), b, "{} changed", p.display());
    }
    let o = run(bin()
        .arg("audit")
        .arg(&spec)
        .args(["--max-seconds", "0", "--out"])
        .arg(&out));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("max-seconds = 0"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flags_are_checked_by_name_before_any_work() {
    // Issue 26 item 5: `--runs 0` reported "runs_per_side" after estimating the work, and
    // `--control-runs 0` started the suite.
    let dir = tmp_dir("flags");
    let out = dir.join("out");
    for (flag, want) in [
        ("--runs", "invalid parameter --runs = 0"),
        ("--control-runs", "invalid parameter --control-runs = 0"),
    ] {
        let t0 = std::time::Instant::now();
        let o = run(bin().args(["train-audit", flag, "0", "--out"]).arg(&out));
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{err}");
        assert!(!err.contains("estimated work"), "{err}");
        assert!(t0.elapsed().as_secs_f64() < 5.0);
    }
    let o = run(bin()
        .args(["audit", "audits/gaussian.toml", "--samples", "1", "--out"])
        .arg(&out));
    assert!(
        text(&o.stderr).contains("--samples = 1"),
        "{}",
        text(&o.stderr)
    );
    assert!(!out.exists(), "nothing written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn without_out_commands_write_to_dpaudit_out_not_reports() {
    let dir = tmp_dir("default-out");
    let spec = gaussian_spec(&dir, "d", None);
    let o = run(bin()
        .current_dir(&dir)
        .arg("audit")
        .arg(&spec)
        .args(["--samples", "20000"]));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(dir.join("dpaudit-out").join("d.csv").exists());
    assert!(!dir.join("reports").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
