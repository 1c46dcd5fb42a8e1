//! `dpaudit audit` on a spec that names a command (issue 26): a plain-Python sampler (no numpy:
//! `examples/samplers/stdlib_gaussian.py`, needs `python3` on PATH) audited whole and in two
//! shards, merged byte-identical; a scale bug caught; a crash, a hang and garbage refused with
//! exit status 2 and nothing written.

mod common;

use common::text;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The binary, with no terminal progress and no shard key from the environment.
fn bin() -> Command {
    let mut c = common::bin();
    c.env("CI", "1").env_remove("DPAUDIT_SHARD_KEY");
    c
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn tmp(name: &str) -> PathBuf {
    common::fresh_dir("cmd", name)
}

fn run(args: &[&str]) -> (i32, String, String) {
    let o = bin().current_dir(root()).args(args).output().unwrap();
    (
        o.status.code().unwrap_or(-1),
        text(&o.stdout),
        text(&o.stderr),
    )
}

const SPEC: &str = "examples/commands/stdlib_gaussian.toml";
const FILES: [&str; 4] = [
    "stdlib_gaussian.md",
    "stdlib_gaussian.csv",
    "stdlib_gaussian_a.npy",
    "stdlib_gaussian_b.npy",
];

#[test]
fn two_shards_merge_byte_identical_to_the_whole_run() {
    let d = tmp("shards");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let (whole, s1, s2, merged) = (
        d.join("whole"),
        d.join("s1"),
        d.join("s2"),
        d.join("merged"),
    );
    let (code, out, err) = run(&["audit", SPEC, "--samples", "6000", "--out", &s(&whole)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("stdlib_gaussian: ok"), "{out}");
    for (k, dir) in [("1/2", &s1), ("2/2", &s2)] {
        let (code, _, err) = run(&[
            "audit",
            SPEC,
            "--samples",
            "6000",
            "--shard",
            k,
            "--out",
            &s(dir),
        ]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = run(&["merge", &s(&s1), &s(&s2), "--out", &s(&merged)]);
    assert_eq!(code, 0, "{err}");
    for f in FILES {
        let a = std::fs::read(whole.join(f)).unwrap();
        let b = std::fs::read(merged.join(f)).unwrap();
        assert!(
            a == b,
            "{f} differs between the whole run and the merged shards"
        );
    }
    // One shard alone, or the same shard twice, does not merge.
    let (code, _, err) = run(&["merge", &s(&s1), "--out", &s(&d.join("m1"))]);
    assert_eq!(code, 2);
    assert!(err.contains("shard 2/2 is missing"), "{err}");
    let copy = d.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(
        s1.join("stdlib_gaussian.shard-1-of-2.toml"),
        copy.join("x.shard-1-of-2.toml"),
    )
    .unwrap();
    let (code, _, err) = run(&["merge", &s(&s1), &s(&copy), "--out", &s(&d.join("m2"))]);
    assert_eq!(code, 2);
    assert!(err.contains("twice"), "{err}");
    // An edited shard is refused by its seal.
    let p = s2.join("stdlib_gaussian.shard-2-of-2.toml");
    let text = std::fs::read_to_string(&p).unwrap();
    let i = text.find("values = \"").unwrap() + 10;
    let mut bytes = text.into_bytes();
    bytes[i] = if bytes[i] == b'4' { b'3' } else { b'4' };
    std::fs::write(&p, bytes).unwrap();
    let (code, _, err) = run(&["merge", &s(&s1), &s(&s2), "--out", &s(&d.join("m3"))]);
    assert_eq!(code, 2);
    assert!(err.contains("digest mismatch"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_scale_bug_is_a_violation() {
    let d = tmp("bug");
    let (code, out, err) = run(&[
        "audit",
        "examples/commands/stdlib_gaussian_wrong_scale.toml",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("VIOLATION"), "{out}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// A spec in `dir` running `command` (a TOML array) for 2 × 1000 samples.
fn spec(dir: &Path, command: &str) -> PathBuf {
    let p = dir.join("spec.toml");
    std::fs::write(
        &p,
        format!(
            "name = \"bad\"\n[mechanism]\ncommand = {command}\n[claim]\neps = \"2\"\n\
             delta = \"0.021\"\n[audit]\nsamples_per_side = 2000\nchunk = 1000\nseed = 1\n"
        ),
    )
    .unwrap();
    p
}

#[test]
fn a_crash_a_hang_or_garbage_is_an_error_and_writes_nothing() {
    let d = tmp("bad");
    let out = d.join("out");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("bad.md"), "an earlier report\n").unwrap();
    let sampler = root().join("examples/samplers/stdlib_gaussian.py");
    let cases = [
        (
            format!(
                "[\"python3\", {:?}, \"--fail-on-chunk\", \"1\"]",
                sampler.to_str().unwrap()
            ),
            "exited with status 3",
        ),
        (
            "[\"sleep\", \"60\"]".to_string(),
            "time limit --max-seconds 2",
        ),
        (
            "[\"sh\", \"-c\", \"echo 0.5; echo NaN-ish\"]".to_string(),
            "line 2, column 1",
        ),
        ("[\"/nonexistent/sampler\"]".to_string(), "cannot start"),
    ];
    for (command, want) in cases {
        let p = spec(&d, &command);
        let t = std::time::Instant::now();
        let (code, _, err) = run(&[
            "audit",
            p.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--max-seconds",
            "2",
        ]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(err.contains(want), "{command}: {err}");
        assert!(t.elapsed().as_secs_f64() < 30.0, "{command}");
        assert_eq!(
            std::fs::read_to_string(out.join("bad.md")).unwrap(),
            "an earlier report\n"
        );
        assert!(!out.join("bad.csv").exists());
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn json_documents_of_a_command_audit_and_its_merge() {
    let d = tmp("json");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let spec = "examples/commands/stdlib_gaussian_wrong_scale.toml";
    let (code, out, err) = run(&["audit", spec, "--format", "json", "--out", &s(&d.join("w"))]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["command"], "audit");
    assert_eq!(v["ok"], true);
    assert_eq!(v["verdict"], "VIOLATION");
    assert_eq!(v["samples_per_side"], 4000);
    assert_eq!(v["chunks"], 4);
    assert!(v["eps_lb_strict"].as_f64().unwrap() > 2.0);
    assert_eq!(v["files"].as_array().unwrap().len(), 4);
    for k in ["1/2", "2/2"] {
        let (code, out, err) = run(&[
            "audit",
            spec,
            "--shard",
            k,
            "--format",
            "json",
            "--out",
            &s(&d.join("s")),
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["shard"], k);
    }
    let (code, out, err) = run(&[
        "merge",
        &s(&d.join("s")),
        "--format",
        "json",
        "--out",
        &s(&d.join("m")),
    ]);
    assert_eq!(code, 1, "{err}");
    let m: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(m["command"], "merge");
    assert_eq!(m["merged"]["kind"], "command-audit");
    assert_eq!(m["merged"]["shards"], 2);
    assert_eq!(m["eps_lb_strict"], v["eps_lb_strict"]);
    let (code, out, _) = run(&[
        "audit",
        "examples/commands/nonexistent.toml",
        "--format",
        "json",
    ]);
    assert_eq!(code, 2);
    let e: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(e["ok"], false);
    std::fs::remove_dir_all(&d).unwrap();
}
