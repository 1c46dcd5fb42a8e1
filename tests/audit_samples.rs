//! `dpaudit audit-samples` and `dpaudit::audit::samples`: black-box audits of sample files
//! (issue 26). Samples are generated here with seeded Rust samplers, written to temporary .npy
//! and .csv files and read back, as a user's numpy sampler output would be.
//!
//! The claims are closed forms: the Gaussian mechanism N(μ, σ²) with sensitivity Δ = 1 is
//! (ε, δ)-DP iff δ ≥ Φ(−εσ + 1/(2σ)) − e^ε Φ(−εσ − 1/(2σ)) (Balle & Wang 2018, Thm 8). For
//! σ = 1, ε = 2 this is δ ≥ 0.0209236 (python: `Phi(-1.5) - exp(2)*Phi(-2.5)` with
//! `Phi = lambda x: 0.5*erfc(-x/sqrt(2))`), so the claim (2, 0.021) is true for σ = 1; for
//! σ = 0.5 the same ε needs δ ≥ 0.33190, so the claim is false by a wide margin.

use dpaudit::audit::samples::{audit_samples, SampleSet, SampleStatistic, SamplesOptions, Verdict};
use dpaudit::mechanisms::stream::chunk_rng;
use dpaudit::mechanisms::Gaussian;
use rand::Rng;
use std::path::{Path, PathBuf};
use std::process::Command;

fn tmp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dpaudit-samples-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn gaussian(mu: f64, sigma: f64, n: usize, stream: u64) -> Vec<f64> {
    let mut out = vec![0.0; n];
    Gaussian::new(mu, sigma)
        .unwrap()
        .sample_many(&mut chunk_rng(26, stream), &mut out);
    out
}

fn write_csv(path: &Path, d: usize, values: &[f64]) {
    let mut s = String::from("# seeded test samples\n");
    s += &(0..d)
        .map(|j| format!("x{j}"))
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    for row in values.chunks(d) {
        s += &row
            .iter()
            .map(|v| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(",");
        s.push('\n');
    }
    std::fs::write(path, s).unwrap();
}

/// The claim (ε, δ) = (2, 0.021), true for σ = 1 and false for σ = 0.5 (module docs).
fn claim() -> SamplesOptions {
    SamplesOptions::new(2.0, 0.021)
}

const N: usize = 20_000;

#[test]
fn wrong_scale_gaussian_is_a_violation_and_the_correct_one_is_not() {
    let dir = tmp_dir("scale");
    // Wrong scale: σ/2 = 0.5 where σ = 1 is claimed; written as .npy.
    let (wa, wb) = (dir.join("wrong_a.npy"), dir.join("wrong_b.npy"));
    SampleSet::from_rows(1, gaussian(0.0, 0.5, N, 1))
        .unwrap()
        .write_npy(&wa)
        .unwrap();
    SampleSet::from_rows(1, gaussian(1.0, 0.5, N, 2))
        .unwrap()
        .write_npy(&wb)
        .unwrap();
    let wrong = audit_samples(
        &SampleSet::read(&wa).unwrap(),
        &SampleSet::read(&wb).unwrap(),
        &claim(),
    )
    .unwrap();
    assert_eq!(wrong.statistic, SampleStatistic::Value);
    assert_eq!(wrong.verdict, Verdict::Violation, "{wrong:#?}");
    assert!(wrong.eps_lb_strict > 2.0 && wrong.eps_lb >= wrong.eps_lb_strict);
    assert_eq!(
        (wrong.n_a, wrong.pilot_a, wrong.main_a),
        (N as u64, 4000, 16000)
    );
    // Correct scale, written as CSV with a header.
    let (ca, cb) = (dir.join("ok_a.csv"), dir.join("ok_b.csv"));
    write_csv(&ca, 1, &gaussian(0.0, 1.0, N, 3));
    write_csv(&cb, 1, &gaussian(1.0, 1.0, N, 4));
    let (sa, sb) = (SampleSet::read(&ca).unwrap(), SampleSet::read(&cb).unwrap());
    assert_eq!(sa.len(), N);
    let ok = audit_samples(&sa, &sb, &claim()).unwrap();
    assert_eq!(ok.verdict, Verdict::Ok, "{ok:#?}");
    assert!(ok.eps_lb <= 2.0, "{ok:#?}");
    // The correct one still shows a positive lower bound: the statistic sees the shift.
    assert!(ok.eps_lb > 0.5, "{ok:#?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn vectors_use_the_projection_and_norm_statistics() {
    // d = 3, mean shift (1, 0, 0)/σ: wrong scale σ = 0.5 is caught by the pilot projection.
    let d = 3;
    let shifted = |mu: f64, sigma: f64, stream: u64| {
        let mut v = gaussian(0.0, sigma, N * d, stream);
        for row in v.chunks_mut(d) {
            row[0] += mu;
        }
        SampleSet::from_rows(d, v).unwrap()
    };
    let wrong = audit_samples(&shifted(0.0, 0.5, 5), &shifted(1.0, 0.5, 6), &claim()).unwrap();
    assert_eq!(wrong.statistic, SampleStatistic::Projection);
    assert_eq!(wrong.verdict, Verdict::Violation, "{wrong:#?}");
    assert_eq!(
        wrong.fit_a + wrong.main_a,
        N as u64 - (wrong.pilot_a - wrong.fit_a)
    );
    let ok = audit_samples(&shifted(0.0, 1.0, 7), &shifted(1.0, 1.0, 8), &claim()).unwrap();
    assert_eq!(ok.verdict, Verdict::Ok, "{ok:#?}");
    let mut o = claim();
    o.statistic = SampleStatistic::Norm;
    let n = audit_samples(&shifted(0.0, 1.0, 7), &shifted(1.0, 1.0, 8), &o).unwrap();
    assert_eq!(
        (n.statistic, n.verdict),
        (SampleStatistic::Norm, Verdict::Ok)
    );
    // value and score need one column.
    o.statistic = SampleStatistic::Value;
    let e = audit_samples(&shifted(0.0, 1.0, 7), &shifted(1.0, 1.0, 8), &o).unwrap_err();
    assert!(e.to_string().contains("d = 3"), "{e}");
}

/// The naive floating-point Laplace sampler μ + b·(−ln U)·s (Mironov 2012): the exact-bits
/// statistic tells μ = 0 from μ = 1 at b = 10 (claimed ε = Δ/b = 0.1) although the value
/// statistic cannot, and a sampler snapped to the grid 2⁻²⁰ passes both.
#[test]
fn exact_bits_catches_the_naive_laplace_sampler() {
    let naive = |mu: f64, n: usize, stream: u64| {
        let mut rng = chunk_rng(2012, stream);
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let u = 1.0 - (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let s = if rng.next_u64() >> 63 == 0 { 1.0 } else { -1.0 };
            v.push(mu + 10.0 * (-u.ln()) * s);
        }
        v
    };
    // 20,000 per side: 4,000 pilot (2,000 fit + 2,000 choice), 16,000 main.
    let n = 20_000;
    let mut o = SamplesOptions::new(0.1, 1e-6);
    let (a, b) = (naive(0.0, n, 1), naive(1.0, n, 2));
    let (sa, sb) = (
        SampleSet::from_rows(1, a.clone()).unwrap(),
        SampleSet::from_rows(1, b.clone()).unwrap(),
    );
    let by_value = audit_samples(&sa, &sb, &o).unwrap();
    assert_eq!(by_value.verdict, Verdict::Ok, "{by_value:#?}");
    o.statistic = SampleStatistic::ExactBits;
    let by_bits = audit_samples(&sa, &sb, &o).unwrap();
    assert_eq!(by_bits.verdict, Verdict::Violation, "{by_bits:#?}");
    assert!(by_bits.eps_lb_strict > 1.0, "{by_bits:#?}");
    // Snapped to multiples of 2^-20: post-processing of the (up to rounding) exact mechanism.
    let snap = |v: Vec<f64>| {
        let g = (1u64 << 20) as f64;
        SampleSet::from_rows(1, v.into_iter().map(|x| (x * g).round() / g).collect()).unwrap()
    };
    let snapped = audit_samples(&snap(a), &snap(b), &o).unwrap();
    assert_eq!(snapped.verdict, Verdict::Ok, "{snapped:#?}");
}

/// `bytes` with the first occurrence of `from` replaced by `to`.
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let i = bytes.windows(from.len()).position(|w| w == from).unwrap();
    [&bytes[..i], to, &bytes[i + from.len()..]].concat()
}

#[test]
fn unreadable_files_are_refused_with_file_and_position() {
    let dir = tmp_dir("bad");
    let good = dir.join("good.npy");
    SampleSet::from_rows(2, vec![1.0, 2.0, 3.0, 4.0])
        .unwrap()
        .write_npy(&good)
        .unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let msg = |name: &str, b: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, b).unwrap();
        let e = SampleSet::read(&p).unwrap_err().to_string();
        assert!(e.contains(name), "{e}");
        e
    };
    let mut bad = bytes.clone();
    bad[0] = b'P';
    assert!(msg("magic.npy", &bad).contains("bad magic"));
    let e = msg("trunc.npy", &bytes[..bytes.len() - 1]);
    assert!(
        e.contains("truncated") && e.contains("needs 32 data bytes, the file has 31"),
        "{e}"
    );
    let e = msg("short.npy", &bytes[..20]);
    assert!(
        e.contains("truncated") && e.contains("header length"),
        "{e}"
    );
    let e = msg("dtype.npy", &replace(&bytes, b"<f8", b"<c8"));
    assert!(e.contains("'descr'") && e.contains("<c8"), "{e}");
    // Same header length: one character more in the shape, one padding space less.
    let e = msg(
        "shape.npy",
        &replace(&replace(&bytes, b"(2, 2)", b"(2,2,1)"), b" \n", b"\n"),
    );
    assert!(e.contains("'shape'") && e.contains("3 dimensions"), "{e}");
    // CSV: a bad cell is reported by line and column, and every bad line is found.
    let csv = dir.join("cells.csv");
    std::fs::write(&csv, "a,b\n1,2\n3,x4\n5,6\n7\n").unwrap();
    let e = SampleSet::read(&csv).unwrap_err().to_string();
    assert!(e.contains("line 3, column 2: \"x4\""), "{e}");
    assert!(e.contains("line 5: 1 columns, expected 2"), "{e}");
    let e = SampleSet::read(dir.join("samples.bin"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown extension"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn mismatched_dimensions_and_small_files_are_errors() {
    let a = SampleSet::from_rows(2, vec![0.0; 200]).unwrap();
    let b = SampleSet::from_rows(1, vec![0.0; 100]).unwrap();
    let e = audit_samples(&a, &b, &claim()).unwrap_err().to_string();
    assert!(
        e.contains("dimension of B") && e.contains("dimension of A (2"),
        "{e}"
    );
    let tiny = SampleSet::from_rows(1, vec![0.0]).unwrap();
    let e = audit_samples(&tiny, &tiny, &claim())
        .unwrap_err()
        .to_string();
    assert!(e.contains("samples of A"), "{e}");
    let mut o = claim();
    o.pilot_fraction = 1.0;
    let e = audit_samples(&b, &b, &o).unwrap_err().to_string();
    assert!(e.contains("pilot-fraction"), "{e}");
    let e = "nonsense"
        .parse::<SampleStatistic>()
        .unwrap_err()
        .to_string();
    assert!(e.contains("statistic"), "{e}");
}

#[test]
fn same_seed_same_result_other_seed_other_split() {
    let a = SampleSet::from_rows(1, gaussian(0.0, 1.0, 4000, 9)).unwrap();
    let b = SampleSet::from_rows(1, gaussian(1.0, 1.0, 4000, 10)).unwrap();
    let o = claim();
    let r1 = audit_samples(&a, &b, &o).unwrap();
    let r2 = audit_samples(&a, &b, &o).unwrap();
    assert_eq!(r1, r2);
    let mut o2 = claim();
    o2.seed = 1;
    let r3 = audit_samples(&a, &b, &o2).unwrap();
    assert_ne!(r1.region, r3.region);
}

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dpaudit"))
}

#[test]
fn cli_exit_statuses_and_deterministic_json() {
    let dir = tmp_dir("cli");
    let (wa, wb) = (dir.join("wa.npy"), dir.join("wb.npy"));
    SampleSet::from_rows(1, gaussian(0.0, 0.5, 5000, 11))
        .unwrap()
        .write_npy(&wa)
        .unwrap();
    SampleSet::from_rows(1, gaussian(1.0, 0.5, 5000, 12))
        .unwrap()
        .write_npy(&wb)
        .unwrap();
    let (ca, cb) = (dir.join("ca.csv"), dir.join("cb.csv"));
    write_csv(&ca, 1, &gaussian(0.0, 1.0, 5000, 13));
    write_csv(&cb, 1, &gaussian(1.0, 1.0, 5000, 14));
    let run = |a: &Path, b: &Path, out: &Path, extra: &[&str]| {
        bin()
            .arg("audit-samples")
            .arg(a)
            .arg(b)
            .args(["--eps", "2", "--delta", "0.021", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap()
    };
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    // A VIOLATION: exit 1, files written.
    let (o1, o2) = (dir.join("out1"), dir.join("out2"));
    let v = run(&wa, &wb, &o1, &["--format", "json"]);
    assert_eq!(v.status.code(), Some(1), "{}", text(&v.stderr));
    let json = text(&v.stdout);
    assert!(
        json.contains("\"command\": \"audit-samples\"")
            && json.contains("\"verdict\": \"VIOLATION\""),
        "{json}"
    );
    assert!(o1.join("audit-samples.md").exists() && o1.join("audit-samples.csv").exists());
    // Same files and seed: byte-identical JSON, CSV and Markdown (the command line differs only
    // in --out, which the Markdown quotes).
    let v2 = run(&wa, &wb, &o2, &["--format", "json", "--seed", "0"]);
    assert_eq!(v.stdout, v2.stdout);
    assert_eq!(
        std::fs::read(o1.join("audit-samples.csv")).unwrap(),
        std::fs::read(o2.join("audit-samples.csv")).unwrap()
    );
    // Correct sampler: exit 0.
    let ok = run(&ca, &cb, &dir.join("out3"), &[]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).starts_with("ok:"), "{}", text(&ok.stdout));
    // Bad input: exit 2 with a message naming the problem.
    let bad = run(&ca, &dir.join("missing.npy"), &dir.join("out4"), &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("missing.npy"),
        "{}",
        text(&bad.stderr)
    );
    let bad = run(&ca, &cb, &dir.join("out4"), &["--confidence", "2"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad.stderr).contains("confidence"),
        "{}",
        text(&bad.stderr)
    );
    let two = dir.join("two.csv");
    write_csv(&two, 2, &gaussian(0.0, 1.0, 200, 15));
    let bad = run(&ca, &two, &dir.join("out4"), &["--format", "json"]);
    assert_eq!(bad.status.code(), Some(2));
    let j = text(&bad.stdout);
    assert!(
        j.contains("\"ok\": false") && j.contains("dimension of B"),
        "{j}"
    );
    assert!(!dir.join("out4").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
