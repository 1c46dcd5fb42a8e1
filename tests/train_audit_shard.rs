//! `dpaudit train-audit --shard K/N` in N separate processes, then `dpaudit merge`: the merged
//! `dpsgd_audit.csv` is byte-identical to the unsharded run's, `dpsgd_audit.md` too but for its
//! "Produced by" line and timing columns, and bad merges are refused with exit status 2.

mod common;

use common::{bin, text};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};

fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_dir("tas", name)
}

/// The suite at a small size: 20 000 runs per side are 5 chunks of 4096, so each of 3 shards
/// owns main runs of every row (1 or 2 chunks), and line 13's 60 000 runs are 15 chunks.
const SIZE: [&str; 4] = ["--runs", "20000", "--control-runs", "20000"];

fn spawn(args: &[&str], out: &Path) -> Child {
    bin()
        .arg("train-audit")
        .args(SIZE)
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// What someone who knows the format does after editing a shard: recompute the SHA-256 digest of
/// the body (the seal's first two lines), so that the field checks behind the digest are tested.
fn reseal(t: &str) -> String {
    use sha2::Digest;
    let (comment, rest) = t.split_once('\n').unwrap();
    let (_digest, body) = rest.split_once('\n').unwrap();
    let d: String = sha2::Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("{comment}\ndigest = \"sha256:{d}\"\n{body}")
}

fn done(c: Child) -> Output {
    c.wait_with_output().expect("the binary runs")
}

/// The Markdown without its "Produced by" line and with the two timing columns (seconds,
/// runs/s) of the audit table blanked: everything else must be identical.
fn comparable_md(md: &str) -> String {
    md.lines()
        .filter(|l| !l.starts_with("Produced by "))
        .map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            if l.starts_with("| ") && cells.len() == 11 && !l.starts_with("| audit |") {
                format!("{} | - | - |", cells[..9].join(" | "))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn sharded_training_audit_merges_to_the_unsharded_result() {
    let dir = tmp_dir("main");
    let whole = dir.join("whole");
    let shards = dir.join("shards");
    let other = dir.join("other");
    // Every process at once, as on a cluster (the machine has 2 cores; they share them).
    let mut kids = vec![spawn(&[], &whole)];
    for k in 1..=3 {
        kids.push(spawn(&["--shard", &format!("{k}/3")], &shards));
    }
    kids.push(spawn(&["--shard", "3/3", "--seed", "10"], &other));
    let outs: Vec<Output> = kids.into_iter().map(done).collect();
    // The unsharded run's exit status (1: at 2·10⁴ runs some positive controls are missed).
    let whole_status = outs[0].status.code();
    assert!(
        matches!(whole_status, Some(0 | 1)),
        "{}",
        text(&outs[0].stderr)
    );
    for (k, o) in outs.iter().enumerate().skip(1) {
        assert_eq!(o.status.code(), Some(0), "shard {k}: {}", text(&o.stderr));
    }
    for k in 1..=3 {
        assert!(shards
            .join(format!("dpsgd_audit.shard-{k}-of-3.toml"))
            .is_file());
    }
    assert!(text(&outs[1].stderr).contains("shard 1/3"));

    let merged = dir.join("merged");
    let o = bin()
        .arg("merge")
        .arg(&shards)
        .arg("--out")
        .arg(&merged)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), whole_status, "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.contains("merging 3 shards of `dpaudit train-audit --rows all --runs 20000 --control-runs 20000 --seed 9`"), "{e}");

    let a = std::fs::read(whole.join("dpsgd_audit.csv")).unwrap();
    let b = std::fs::read(merged.join("dpsgd_audit.csv")).unwrap();
    assert_eq!(text(&a).lines().count(), 12, "{}", text(&a));
    assert_eq!(
        a,
        b,
        "dpsgd_audit.csv differs between the sharded and the unsharded run:\n{}\n{}",
        text(&a),
        text(&b)
    );
    let ma = std::fs::read_to_string(whole.join("dpsgd_audit.md")).unwrap();
    let mb = std::fs::read_to_string(merged.join("dpsgd_audit.md")).unwrap();
    assert!(
        mb.contains(
            "Produced by `dpaudit train-audit --rows all --runs 20000 --control-runs 20000 \
             --seed 9` (merged from 3 shards by `dpaudit merge"
        ),
        "{mb}"
    );
    assert_eq!(comparable_md(&ma), comparable_md(&mb));
    // The comparison is not vacuous: the table's eleven audit lines are in it.
    assert_eq!(comparable_md(&mb).matches(" | - | - |").count(), 11);

    let merge_err = |args: &[PathBuf]| {
        let o = bin()
            .arg("merge")
            .args(args)
            .arg("--out")
            .arg(dir.join("bad"))
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert!(!dir.join("bad").join("dpsgd_audit.csv").exists());
        text(&o.stderr)
    };
    let s = |k: u32| shards.join(format!("dpsgd_audit.shard-{k}-of-3.toml"));
    // A missing shard.
    let e = merge_err(&[s(1), s(3)]);
    assert!(e.contains("shard 2/3 is missing"), "{e}");
    // A duplicate: the same shard in two directories.
    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(s(2), copy.join("dpsgd_audit.shard-2-of-3.toml")).unwrap();
    let e = merge_err(&[shards.clone(), copy.clone()]);
    assert!(e.contains("2/3") && e.contains("twice"), "{e}");
    // A shard of another seed.
    let e = merge_err(&[s(1), s(2), other.join("dpsgd_audit.shard-3-of-3.toml")]);
    assert!(
        e.contains("seed (9 here, 10 there)")
            && e.contains("shards of different runs do not merge"),
        "{e}"
    );
    // A shard of another configuration: the same options, another fingerprint.
    let body = std::fs::read_to_string(s(3)).unwrap();
    let fp = body
        .lines()
        .find(|l| l.starts_with("fingerprint = "))
        .unwrap()
        .to_string();
    let forged = dir.join("forged");
    std::fs::create_dir_all(&forged).unwrap();
    let f3 = forged.join("dpsgd_audit.shard-3-of-3.toml");
    std::fs::write(
        &f3,
        reseal(&body.replace(&fp, "fingerprint = \"0123456789abcdef\"")),
    )
    .unwrap();
    let e = merge_err(&[s(1), s(2), f3.clone()]);
    assert!(e.contains("configuration (fingerprint"), "{e}");
    // Other run counts.
    std::fs::write(
        &f3,
        reseal(&body.replace("control_runs = 20000", "control_runs = 30000")),
    )
    .unwrap();
    let e = merge_err(&[s(1), s(2), f3.clone()]);
    assert!(e.contains("runs and control runs"), "{e}");
    // A shard whose pilot chose another cut (a different build or a nondeterministic run).
    let line = body
        .lines()
        .find(|l| l.starts_with("threshold_bits = "))
        .unwrap()
        .to_string();
    std::fs::write(
        &f3,
        reseal(&body.replacen(&line, "threshold_bits = \"0000000000000000\"", 1)),
    )
    .unwrap();
    let e = merge_err(&[s(1), s(2), f3.clone()]);
    assert!(e.contains("pilot selection"), "{e}");
    // A malformed shard number (N past 2^20): refused before anything is sized by N.
    std::fs::write(
        &f3,
        reseal(&body.replace("count = 3", "count = 1000000000000")),
    )
    .unwrap();
    let e = merge_err(&[s(1), s(2), f3.clone()]);
    assert!(e.contains("shard count"), "{e}");
    // A mechanism-audit shard among training-audit shards.
    std::fs::write(
        &f3,
        reseal(&format!(
            "{}\ndigest = \"\"\nformat = \"dpaudit-shard/2\"\nspec_path = \"x.toml\"\n",
            body.lines().next().unwrap()
        )),
    )
    .unwrap();
    let e = merge_err(&[s(1), s(2), f3.clone()]);
    assert!(
        e.contains("do not merge") && e.contains("training-audit"),
        "{e}"
    );
    // Bad K/N.
    let o = bin()
        .args(["train-audit", "--shard", "4/3", "--out"])
        .arg(dir.join("bad"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("shard"), "{}", text(&o.stderr));
    std::fs::remove_dir_all(&dir).unwrap();
}
