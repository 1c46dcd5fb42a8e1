//! End-to-end tests of the `dpaudit` binary: exit statuses, error messages, files written, and
//! the determinism of the CSV output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpaudit"))
}

/// A fresh temporary directory for one test (removed by the test on success).
fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dpaudit-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("the binary runs")
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
    // RGM in d = 10 has no closed-form profile: the exact ε(δ) comes certified from the MATH.md
    // §7.4 route (divergence::profile_dd), not the RDP-converted upper bound.
    assert!(csv.contains("rgm_d10,rgm,1e-5,exact,exact,"), "{csv}");
    assert!(!csv.contains("rgm_d10,rgm,1e-5,exact_upper_bound"), "{csv}");
    std::fs::remove_dir_all(&dir).unwrap();
}
