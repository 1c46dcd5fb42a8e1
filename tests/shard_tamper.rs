//! Tampered shard files are refused by `dpaudit merge` (exit status 2, naming the file and what
//! does not match), for both kinds of shards: an edited spec (even edited consistently in every
//! shard), an edited shard count (the values that used to panic or abort the allocator), a
//! truncated file (a partial copy from a cluster node), a shard from another run, and, with
//! `DPAUDIT_SHARD_KEY`, a shard whose digest was recomputed after an edit. Each case fails this
//! test if `merge` accepts it (exit status 0 or 1) or crashes (any other status).

mod common;

use common::text;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The binary, with no shard key from the environment.
fn bin() -> Command {
    let mut c = common::bin();
    c.env_remove("DPAUDIT_SHARD_KEY");
    c
}

fn tmp_dir(name: &str) -> PathBuf {
    common::fresh_dir("tamper", name)
}

/// The file's seal lines (comment, digest, optional MAC) and its body.
fn split_seal(t: &str) -> (Vec<&str>, &str) {
    let mut head = Vec::new();
    let mut rest = t;
    for _ in 0..3 {
        let (l, r) = rest.split_once('\n').unwrap();
        if head.len() < 2 || l.starts_with("mac = ") {
            head.push(l);
            rest = r;
        }
    }
    (head, rest)
}

/// What someone who knows the format but not the key does after editing: recompute the SHA-256
/// digest of the body (the stale MAC line, if any, is kept).
fn reseal(t: &str) -> String {
    use sha2::Digest;
    let (head, body) = split_seal(t);
    let d: String = sha2::Sha256::digest(body.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut out = format!("{}\ndigest = \"sha256:{d}\"\n", head[0]);
    if let Some(m) = head.get(2) {
        out.push_str(m);
        out.push('\n');
    }
    out.push_str(body);
    out
}

/// Merges `files` (with `key` as DPAUDIT_SHARD_KEY if given); asserts exit status 2, that nothing
/// was written, and that the message names `needle`; returns the message.
fn refused(files: &[PathBuf], key: Option<&str>, out: &Path, needle: &str) -> String {
    let mut c = bin();
    if let Some(k) = key {
        c.env("DPAUDIT_SHARD_KEY", k);
    }
    let o: Output = c
        .arg("merge")
        .args(files)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "merge accepted or crashed: {e}");
    assert!(e.contains(needle), "expected {needle:?} in: {e}");
    assert!(!e.contains("panicked"), "{e}");
    assert!(!out.exists(), "a refused merge wrote {}", out.display());
    e
}

/// Writes `t` to `dir/name` (creating `dir`) and returns the path.
fn put(dir: &Path, name: &str, t: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, t).unwrap();
    p
}

fn truncated(t: &str, n: usize) -> String {
    t[..t.len() - n].to_string()
}

#[test]
fn tampered_mechanism_shards_are_refused() {
    let dir = tmp_dir("mech");
    let spec_text = |seed: u32| {
        format!(
            "name = \"tp\"\n[mechanism]\nfamily = \"gaussian\"\nsigma = \"1\"\n\
             [pair]\nmu1 = \"0\"\nmu2 = \"1\"\n\
             [audit]\nsamples_per_side = 2200000\ndelta = \"1e-5\"\nconfidence = 0.95\n\
             seed = {seed}\n"
        )
    };
    let shard_of = |seed: u32, k: u32, key: Option<&str>, sub: &str| {
        let d = dir.join(sub);
        let spec = put(&d, "tp.toml", &spec_text(seed));
        let mut c = bin();
        if let Some(key) = key {
            c.env("DPAUDIT_SHARD_KEY", key);
        }
        let o = c
            .arg("audit")
            .arg(&spec)
            .args(["--shard", &format!("{k}/2"), "--out"])
            .arg(&d)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        d.join(format!("tp.shard-{k}-of-2.toml"))
    };
    let good = [shard_of(3, 1, None, "good"), shard_of(3, 2, None, "good")];
    let read = |p: &PathBuf| std::fs::read_to_string(p).unwrap();
    let (t1, t2) = (read(&good[0]), read(&good[1]));
    assert!(t1.contains("sigma = \"1\""), "{t1}");
    // The untouched shards merge (so every refusal below is the tampering's doing).
    let o = bin()
        .arg("merge")
        .args(&good)
        .arg("--out")
        .arg(dir.join("ok"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));

    let out = dir.join("refused");
    // The spec edited consistently in every shard (sigma, then the seed).
    for (from, to) in [("sigma = \"1\"", "sigma = \"2\""), ("seed = 3", "seed = 5")] {
        let e1 = put(
            &dir.join("edited"),
            "tp.shard-1-of-2.toml",
            &t1.replace(from, to),
        );
        let e2 = put(
            &dir.join("edited"),
            "tp.shard-2-of-2.toml",
            &t2.replace(from, to),
        );
        refused(&[e1, e2], None, &out, "integrity digest mismatch");
    }
    // Edited shard counts: each used to panic (index out of bounds, capacity overflow) or abort
    // the allocator. Refused by the digest, and still refused, without a crash, when the digest
    // was recomputed.
    for count in ["1", "18446744073709551615", "4611686018427387904"] {
        let edited = t2.replace("count = 2", &format!("count = {count}"));
        let p = put(&dir.join("count"), "tp.shard-2-of-2.toml", &edited);
        refused(&[good[0].clone(), p.clone()], None, &out, "digest mismatch");
        std::fs::write(&p, reseal(&edited)).unwrap();
        refused(&[good[0].clone(), p], None, &out, "shard");
    }
    // Samples per side (the run's, after the spec text) edited and re-digested: in one shard
    // it no longer matches the other; in both, the histograms no longer hold each shard's share.
    let edit_samples = |t: &str| {
        let i = t.rfind("samples_per_side = 2200000").unwrap();
        reseal(&format!(
            "{}samples_per_side = 2000000{}",
            &t[..i],
            &t[i + 26..]
        ))
    };
    let p2 = put(
        &dir.join("samples"),
        "tp.shard-2-of-2.toml",
        &edit_samples(&t2),
    );
    refused(
        &[good[0].clone(), p2.clone()],
        None,
        &out,
        "samples per side",
    );
    let p1 = put(
        &dir.join("samples"),
        "tp.shard-1-of-2.toml",
        &edit_samples(&t1),
    );
    refused(&[p1, p2], None, &out, "histograms holding its share");
    // Truncated by 3 bytes (a partial copy).
    let p = put(
        &dir.join("trunc"),
        "tp.shard-2-of-2.toml",
        &truncated(&t2, 3),
    );
    refused(&[good[0].clone(), p], None, &out, "digest mismatch");
    // A shard of another run (another seed).
    let other = shard_of(4, 2, None, "other");
    refused(
        &[good[0].clone(), other],
        None,
        &out,
        "shards of different runs do not merge",
    );
    // A file with no seal (an older format or hand-written).
    let p = put(
        &dir.join("noseal"),
        "tp.shard-2-of-2.toml",
        split_seal(&t2).1,
    );
    refused(&[good[0].clone(), p], None, &out, "no integrity seal");

    // With a key: shards written under it merge under it; an edit with a recomputed digest is
    // refused by the MAC; a shard without a MAC, or merged without the key, is refused.
    let k1 = shard_of(3, 1, Some("s3cret"), "keyed");
    let k2 = shard_of(3, 2, Some("s3cret"), "keyed");
    let o = bin()
        .env("DPAUDIT_SHARD_KEY", "s3cret")
        .arg("merge")
        .args([&k1, &k2])
        .arg("--out")
        .arg(dir.join("keyed_ok"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let kt2 = read(&k2);
    let forged = reseal(&kt2.replace("sigma = \"1\"", "sigma = \"2\""));
    let kt1 = reseal(&read(&k1).replace("sigma = \"1\"", "sigma = \"2\""));
    let f1 = put(&dir.join("forged"), "tp.shard-1-of-2.toml", &kt1);
    let f2 = put(&dir.join("forged"), "tp.shard-2-of-2.toml", &forged);
    refused(&[f1, f2], Some("s3cret"), &out, "keyed MAC mismatch");
    refused(
        &[k1.clone(), k2.clone()],
        Some("other key"),
        &out,
        "MAC mismatch",
    );
    refused(
        &[k1.clone(), k2.clone()],
        None,
        &out,
        "set DPAUDIT_SHARD_KEY",
    );
    refused(&good, Some("s3cret"), &out, "no keyed MAC");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tampered_training_audit_shards_are_refused() {
    let dir = tmp_dir("train");
    let shard_of = |k: u32, seed: &str, key: Option<&str>, sub: &str| {
        let d = dir.join(sub);
        let mut c = bin();
        if let Some(key) = key {
            c.env("DPAUDIT_SHARD_KEY", key);
        }
        let o = c
            .args(["train-audit", "--rows", "first", "--runs", "20000"])
            .args(["--seed", seed, "--shard", &format!("{k}/2"), "--out"])
            .arg(&d)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
        d.join(format!("dpsgd_audit.shard-{k}-of-2.toml"))
    };
    let good = [
        shard_of(1, "9", None, "good"),
        shard_of(2, "9", None, "good"),
    ];
    let o = bin()
        .arg("merge")
        .args(&good)
        .arg("--out")
        .arg(dir.join("ok"))
        .output()
        .unwrap();
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{}",
        text(&o.stderr)
    );
    let t2 = std::fs::read_to_string(&good[1]).unwrap();
    let out = dir.join("refused");
    // Truncated by its last 3 bytes: it used to merge and turn an `ok` row into a VIOLATION.
    let p = put(
        &dir.join("trunc"),
        "dpsgd_audit.shard-2-of-2.toml",
        &truncated(&t2, 3),
    );
    refused(&[good[0].clone(), p], None, &out, "digest mismatch");
    // An edited count, digest not recomputed.
    let line = t2.lines().find(|l| l.starts_with("p_above = ")).unwrap();
    let edited = t2.replacen(line, "p_above = 0", 1);
    let p = put(&dir.join("count"), "dpsgd_audit.shard-2-of-2.toml", &edited);
    refused(&[good[0].clone(), p], None, &out, "digest mismatch");
    // An edited shard count, re-digested: refused without a crash.
    for count in ["1", "18446744073709551615", "4611686018427387904"] {
        let edited = reseal(&t2.replace("count = 2", &format!("count = {count}")));
        let p = put(&dir.join("count"), "dpsgd_audit.shard-2-of-2.toml", &edited);
        refused(&[good[0].clone(), p], None, &out, "shard");
    }
    // A shard of another run.
    let other = shard_of(2, "10", None, "other");
    refused(
        &[good[0].clone(), other],
        None,
        &out,
        "seed (10 here, 9 there)",
    );
    // Keyed: an edited count with a recomputed digest is refused by the MAC.
    let k1 = shard_of(1, "9", Some("k"), "keyed");
    let k2 = shard_of(2, "9", Some("k"), "keyed");
    let kt2 = std::fs::read_to_string(&k2).unwrap();
    let line = kt2.lines().find(|l| l.starts_with("p_above = ")).unwrap();
    let forged = reseal(&kt2.replacen(line, "p_above = 0", 1));
    let p = put(
        &dir.join("forged"),
        "dpsgd_audit.shard-2-of-2.toml",
        &forged,
    );
    refused(&[k1.clone(), p], Some("k"), &out, "keyed MAC mismatch");
    refused(&[k1, k2], None, &out, "set DPAUDIT_SHARD_KEY");
    std::fs::remove_dir_all(&dir).unwrap();
}
