//! Limits checked before allocation and time limits honoured (issue 23's reproducers): each of
//! these inputs used to crash dpaudit (capacity overflow, allocator abort) or run for minutes
//! without progress; each must now end with exit status 2, within seconds, with a message that
//! names the key, the value and the limit.

mod common;

use common::bin;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_dir("limits", name)
}

/// Runs `dpaudit args…`; asserts exit status 2 within `secs` seconds and that stderr contains
/// every needle; returns stderr.
fn refused(args: &[&str], secs: f64, needles: &[&str]) -> String {
    let t0 = Instant::now();
    let o = bin().args(args).output().unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    assert!(wall < secs, "{args:?} took {wall:.1} s: {e}");
    for n in needles {
        assert!(e.contains(n), "{args:?}: expected {n:?} in {e}");
    }
    e
}

fn breast_cancer() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/breast_cancer.csv")
        .display()
        .to_string()
}

/// A two-node experiment on `data` with `steps`, one seed and one split.
fn spec(dir: &Path, name: &str, data: &str, steps: &str) -> String {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "name = \"lim\"\ndata = \"{data}\"\nsteps = {steps}\nseeds = [1]\nsplits = [\"random\"]\n\
             noise = \"rgm\"\n"
        ),
    )
    .unwrap();
    p.display().to_string()
}

#[test]
fn libsvm_indices_are_refused_at_their_line() {
    let dir = tmp_dir("svm");
    let out = dir.join("out").display().to_string();
    for (name, body, value) in [
        (
            "u64.svm",
            "1 18446744073709551615:1\n",
            "18446744073709551615",
        ),
        ("4e9.svm", "1 4000000000:1\n", "4000000000"),
        ("1e8.svm", "1 1:1\n-1 100000000:1\n", "100000000"),
    ] {
        std::fs::write(dir.join(name), body).unwrap();
        let s = spec(&dir, "s.toml", &dir.join(name).display().to_string(), "3");
        let e = refused(&["train", &s, "--out", &out], 10.0, &["<= 16777216"]);
        assert!(
            e.contains(&format!("index = {value}")) && e.contains("LIBSVM line"),
            "{e}"
        );
    }
    // Within the index limit but not within memory: n x d dense doubles.
    std::fs::write(dir.join("wide.svm"), "1 16000000:1\n".repeat(5000)).unwrap();
    let s = spec(
        &dir,
        "s.toml",
        &dir.join("wide.svm").display().to_string(),
        "3",
    );
    refused(
        &["train", &s, "--out", &out],
        10.0,
        &["n x d = 5000 x 16000000", "fit in memory"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Found by the fuzz campaign (seed 2): a data file of 10^4 features passed the n x d check,
/// then the ridge problems' n x d copies and d x d Gram matrices aborted the allocator under
/// `ulimit -v 8G`. The estimate now counts them.
#[test]
fn ridge_copies_and_gram_matrices_are_counted() {
    let dir = tmp_dir("gram");
    let out = dir.join("out").display().to_string();
    let rows: String = (0..8)
        .map(|j| format!("{} {}:1\n", if j % 2 == 0 { 1 } else { -1 }, 10488 - j))
        .collect();
    std::fs::write(dir.join("wide.svm"), rows).unwrap();
    let s = spec(
        &dir,
        "s.toml",
        &dir.join("wide.svm").display().to_string(),
        "3",
    );
    // 4 Gram matrices of 10488² doubles are 3.5 GB: refused under a 1 GB budget.
    let o = bin()
        .args(["train", &s, "--out", &out])
        .env("DPAUDIT_MAX_MEMORY", "1000000000")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("steps = 3") && e.contains("fit in memory"),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn experiment_sizes_work_and_time_are_checked() {
    let dir = tmp_dir("exp");
    let out = dir.join("out").display().to_string();
    let data = breast_cancer();
    // 10^9 steps: the curves alone would need 80 GB.
    let s = spec(&dir, "a.toml", &data, "1_000_000_000");
    refused(
        &["train", &s, "--out", &out],
        10.0,
        &["steps = 1000000000", "fit in memory", "GiB"],
    );
    // 10^8 steps fit in memory but would run for hours: refused unless --yes …
    let s = spec(&dir, "b.toml", &data, "100000000");
    refused(
        &["train", &s, "--out", &out],
        10.0,
        &["would run for about", "gradient coordinates", "--yes"],
    );
    // … and with --yes, --max-seconds stops it.
    refused(
        &["train", &s, "--out", &out, "--yes", "--max-seconds", "1"],
        30.0,
        &["time limit --max-seconds 1 reached"],
    );
    refused(
        &["train", &s, "--out", &out, "--max-seconds=-1"],
        10.0,
        &["max-seconds = -1"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_audit_sizes_and_time_are_checked() {
    let dir = tmp_dir("ta");
    let out = dir.join("out").display().to_string();
    refused(
        &[
            "train-audit",
            "--rows",
            "first",
            "--runs",
            "9007199254740992",
            "--out",
            &out,
        ],
        60.0,
        &["--runs = 9007199254740992", "fit in memory"],
    );
    refused(
        &[
            "train-audit",
            "--rows",
            "first",
            "--runs",
            "1000000000",
            "--out",
            &out,
        ],
        60.0,
        &["would run for about", "training runs", "--yes"],
    );
    refused(
        &[
            "train-audit",
            "--rows",
            "first",
            "--runs",
            "1000000000",
            "--out",
            &out,
            "--yes",
            "--max-seconds",
            "3",
        ],
        60.0,
        &["time limit"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
