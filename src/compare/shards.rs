//! Shard files: one audit drawn in pieces on many machines, then merged.
//!
//! `dpaudit audit SPEC --shard K/N` draws only shard K of the audit's deterministic chunk streams
//! (see [`crate::audit::engine::Shard`]) and writes `NAME.shard-K-of-N.toml`. That file carries
//! everything the merge needs: the spec's text and path, the samples per side, the shard, and
//! its partial histograms. `dpaudit merge DIR…` reads every shard file in the directories and
//! checks that they belong together:
//! - the same spec text;
//! - the same samples per side;
//! - the same shard count;
//! - every shard present exactly once.
//!
//! It then sums the histograms and finishes the audit. Because every chunk has its own
//! stream, the sum equals the unsharded run's histograms exactly, and the merged CSVs are
//! byte-identical to those of `dpaudit audit SPEC` without `--shard`.
//!
//! # Integrity
//!
//! A shard file may come back from a machine, a copy or a user one does not fully trust: a
//! partial copy, an edited count or an edited spec would otherwise merge into a result that was
//! never computed. Every shard file therefore starts with a seal ([`seal`]):
//!
//! ```text
//! # dpaudit shard file: the digest covers every byte after the seal lines; do not edit.
//! digest = "sha256:<64 hex digits>"
//! mac = "hmac-sha256:<64 hex digits>"      (only when DPAUDIT_SHARD_KEY was set)
//! <the body: format, spec or options, seed, shard K/N, counts, histograms>
//! ```
//!
//! The digest (SHA-256 of the body) binds the spec, the configuration, the seed, the shard index
//! and count and the payload: a truncated or edited file is refused by [`unseal`], naming the
//! file. A digest can be recomputed by whoever edits the file; the optional keyed MAC
//! (HMAC-SHA256 under the bytes of `DPAUDIT_SHARD_KEY`) cannot without the key. When the
//! variable is set at merge time, every shard must carry a valid MAC; a shard that carries a MAC
//! is refused when it is unset (it cannot be verified).
//!
//! The same `dpaudit merge` takes the shard files of the training-audit suite
//! (`dpaudit train-audit --shard K/N`, [`crate::train::sgd::shard`]): `shard_kind` tells the
//! two apart by their `format` field, and refuses a mix.

use crate::audit::engine::{merge_draws, AuditDraws, Shard};
use crate::compare::spec::AuditSpec;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format tag written into every shard file.
pub(crate) const FORMAT: &str = "dpaudit-shard/2";

/// The first line of every sealed shard file.
const SEAL_COMMENT: &str =
    "# dpaudit shard file: the digest covers every byte after the seal lines; do not edit.";

/// The environment variable holding the key of the shard MAC.
pub(crate) const KEY_VAR: &str = "DPAUDIT_SHARD_KEY";

/// Largest shard file read: 1 GiB (a shard holds at most 2 × (2^22 + 2) histogram counts).
const MAX_SHARD_BYTES: u64 = 1 << 30;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// SHA-256 of `body`, lower-case hex.
fn digest(body: &str) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(body.as_bytes()))
}

/// The shard key from [`KEY_VAR`]: `None` when unset, an error when set but empty.
fn shard_key() -> Result<Option<Vec<u8>>> {
    match std::env::var_os(KEY_VAR) {
        None => Ok(None),
        Some(k) if k.is_empty() => Err(Error::invalid(
            KEY_VAR,
            "\"\"",
            "a non-empty key (or unset, for no MAC)",
        )),
        Some(k) => Ok(Some(k.as_encoded_bytes().to_vec())),
    }
}

/// HMAC-SHA256 of `body` under `key`, lower-case hex.
fn mac(key: &[u8], body: &str) -> String {
    use hmac::Mac;
    let mut m = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(key)
        .expect("HMAC takes keys of any length");
    m.update(body.as_bytes());
    hex(&m.finalize().into_bytes())
}

/// `body` with its seal prepended: the digest line, and the MAC line when `key` is given.
pub(crate) fn seal(body: &str, key: Option<&[u8]>) -> String {
    let mut s = format!("{SEAL_COMMENT}\ndigest = \"sha256:{}\"\n", digest(body));
    if let Some(k) = key {
        s.push_str(&format!("mac = \"hmac-sha256:{}\"\n", mac(k, body)));
    }
    s.push_str(body);
    s
}

/// Checks the seal of the shard file `path` (text `text`) and returns its body; `key` is the
/// MAC key in force ([`KEY_VAR`]). Errors name the file and what does not match.
pub(crate) fn unseal<'a>(path: &Path, text: &'a str, key: Option<&[u8]>) -> Result<&'a str> {
    let bad = |reason: String| Error::Parse {
        what: "shard file".into(),
        text: path.display().to_string(),
        reason,
    };
    let line = |t: &'a str| t.split_once('\n').unwrap_or((t, ""));
    let (first, rest) = line(text);
    if first != SEAL_COMMENT {
        return Err(bad(
            "no integrity seal on its first line (not a shard file of this dpaudit version, or \
             edited)"
                .into(),
        ));
    }
    let (dline, rest) = line(rest);
    let want = dline
        .strip_prefix("digest = \"sha256:")
        .and_then(|d| d.strip_suffix('"'))
        .ok_or_else(|| bad("no digest line after the seal comment".into()))?;
    let (mline, after_mac) = line(rest);
    let (given_mac, body) = match mline
        .strip_prefix("mac = \"hmac-sha256:")
        .and_then(|d| d.strip_suffix('"'))
    {
        Some(m) => (Some(m), after_mac),
        None => (None, rest),
    };
    let got = digest(body);
    if got != want {
        return Err(bad(format!(
            "integrity digest mismatch: the file says sha256:{want} but its content hashes to \
             sha256:{got} (the file was truncated or edited after it was written)"
        )));
    }
    match (key, given_mac) {
        (None, None) => {}
        (Some(k), Some(m)) => {
            use hmac::Mac;
            let mut h = <hmac::Hmac<sha2::Sha256> as hmac::Mac>::new_from_slice(k)
                .expect("HMAC takes keys of any length");
            h.update(body.as_bytes());
            let tag: Vec<u8> = (0..m.len() / 2)
                .map(|i| u8::from_str_radix(m.get(2 * i..2 * i + 2).unwrap_or("zz"), 16))
                .collect::<std::result::Result<_, _>>()
                .map_err(|_| bad("a MAC that is not hex".into()))?;
            // Constant-time comparison.
            h.verify_slice(&tag).map_err(|_| {
                bad(format!(
                    "keyed MAC mismatch under {KEY_VAR} (written with another key, or edited \
                     and re-digested)"
                ))
            })?;
        }
        (Some(_), None) => {
            return Err(bad(format!(
                "no keyed MAC, but {KEY_VAR} is set: every shard must be written with the key"
            )))
        }
        (None, Some(_)) => {
            return Err(bad(format!(
                "it carries a keyed MAC: set {KEY_VAR} to the key it was written with to \
                 verify it"
            )))
        }
    }
    Ok(body)
}

/// The content of one shard file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ShardFile {
    /// [`FORMAT`].
    pub format: String,
    /// The spec's path as given to `dpaudit audit` (names the spec in messages).
    pub spec_path: String,
    /// The spec file's text, verbatim: shards of different specs or seeds never merge.
    pub spec_text: String,
    /// Main draws per side of the whole run.
    pub samples_per_side: u64,
    /// This shard's draws.
    pub draws: AuditDraws,
}

/// A validated, merged set of shards.
#[derive(Debug, Clone)]
pub(crate) struct Merged {
    /// The spec (parsed from the shards' common text).
    pub spec: AuditSpec,
    /// Main draws per side.
    pub samples: u64,
    /// The summed draws of the whole run.
    pub draws: AuditDraws,
    /// The shard files read.
    pub files: Vec<PathBuf>,
}

/// The file name of shard `shard` of spec `name`.
pub(crate) fn file_name(name: &str, shard: Shard) -> String {
    format!("{name}.shard-{}-of-{}.toml", shard.index + 1, shard.count)
}

/// Draws shard `shard` of the spec at `spec_path` with `samples` per side and writes its file
/// into `out` (atomically). Returns the path written.
pub(crate) fn write_shard(
    spec_path: &Path,
    samples: u64,
    shard: Shard,
    progress: crate::audit::engine::Observer,
    out: &Path,
) -> Result<PathBuf> {
    let text = std::fs::read_to_string(spec_path).map_err(|e| {
        Error::Io(format!(
            "cannot read audit spec {}: {e}",
            spec_path.display()
        ))
    })?;
    let spec = AuditSpec::from_toml(&text, spec_path)?;
    let draws = super::sources::draw_shard(&spec, samples, shard, progress)?;
    let file = ShardFile {
        format: FORMAT.into(),
        spec_path: spec_path.display().to_string(),
        spec_text: text,
        samples_per_side: samples,
        draws,
    };
    write_shard_file(
        &file,
        "shard",
        shard,
        &out.join(file_name(&spec.name, shard)),
    )
}

/// Serialises shard `shard`'s `file` as TOML and writes it atomically to `path`, creating its
/// directory; `what` names the kind of shard in errors.
pub(crate) fn write_shard_file<T: Serialize>(
    file: &T,
    what: &str,
    shard: Shard,
    path: &Path,
) -> Result<PathBuf> {
    let body = toml::to_string(file)
        .map_err(|e| Error::Io(format!("cannot serialise {what} {shard}: {e}")))?;
    let body = seal(&body, shard_key()?.as_deref());
    let out = path.parent().unwrap_or(Path::new(""));
    std::fs::create_dir_all(out).map_err(|e| {
        Error::Io(format!(
            "cannot create output directory {}: {e}",
            out.display()
        ))
    })?;
    crate::fsio::write_atomic(path, body.as_bytes())?;
    Ok(path.to_path_buf())
}

/// Reads the TOML shard file `path`, checks its seal ([`unseal`], under the key of
/// [`KEY_VAR`]) and parses its body; `what` names the kind of file in errors.
pub(crate) fn read_toml<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::Io(format!("cannot read shard {}: {e}", path.display())))?
        .len();
    if len > MAX_SHARD_BYTES {
        return Err(Error::invalid(
            "shard file size",
            format!("{len} bytes ({})", path.display()),
            &format!("<= {MAX_SHARD_BYTES} bytes"),
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read shard {}: {e}", path.display())))?;
    let body = unseal(path, &text, shard_key()?.as_deref())?;
    toml::from_str(body).map_err(|e| Error::Parse {
        what: what.into(),
        text: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// Fails unless the shard file `path` (of the kind `what`) has the format tag `expected`.
pub(crate) fn check_format(path: &Path, what: &str, format: &str, expected: &str) -> Result<()> {
    if format != expected {
        return Err(Error::Parse {
            what: what.into(),
            text: path.display().to_string(),
            reason: format!("format {format:?}, expected {expected:?}"),
        });
    }
    Ok(())
}

/// Reads one shard file.
pub(crate) fn read_shard(path: &Path) -> Result<ShardFile> {
    let f: ShardFile = read_toml(path, "shard file")?;
    check_format(path, "shard file", &f.format, FORMAT)?;
    Ok(f)
}

/// Every `*.shard-*-of-*.toml` file in `dirs` (a file path is taken as is), sorted.
pub(crate) fn find_shards(dirs: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for d in dirs {
        if d.is_file() {
            out.push(d.clone());
            continue;
        }
        let rd = std::fs::read_dir(d)
            .map_err(|e| Error::Io(format!("cannot list shards in {}: {e}", d.display())))?;
        for e in rd.flatten() {
            let p = e.path();
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| n.contains(".shard-") && n.ends_with(".toml")) {
                out.push(p);
            }
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(Error::Io(format!(
            "no shard files (*.shard-K-of-N.toml) in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(out)
}

impl ShardFile {
    /// The run this shard says it belongs to.
    fn run(&self) -> RunKey<'_> {
        RunKey {
            spec_text: &self.spec_text,
            samples_per_side: self.samples_per_side,
            shard_count: self.draws.shard.count,
        }
    }
}

/// The first shard and its file; an error when there is none.
pub(crate) fn first_shard<'a, T>(
    shards: &'a [T],
    files: &'a [PathBuf],
) -> Result<(&'a T, &'a PathBuf)> {
    match (shards.first(), files.first()) {
        (Some(s), Some(p)) => Ok((s, p)),
        _ => Err(Error::invalid("shards", "none", "at least one shard file")),
    }
}

/// The run a shard file says it belongs to: shards merge only when these agree (mechanism and
/// command-audit shards alike).
pub(crate) struct RunKey<'a> {
    /// The spec's text (with its seed and settings).
    pub(crate) spec_text: &'a str,
    /// Samples per side of the whole run.
    pub(crate) samples_per_side: u64,
    /// The number of shards of the run.
    pub(crate) shard_count: u64,
}

impl RunKey<'_> {
    /// An error naming `file` when its run (`self`) is not the run of `first`, read from `f0`.
    pub(crate) fn check_same(&self, file: &Path, first: &RunKey, f0: &Path) -> Result<()> {
        let differs = if self.spec_text != first.spec_text {
            "spec (text, seed or settings)".to_string()
        } else if self.samples_per_side != first.samples_per_side {
            format!(
                "samples per side ({} here, {} there)",
                self.samples_per_side, first.samples_per_side
            )
        } else if self.shard_count != first.shard_count {
            format!(
                "shard count ({} here, {} there)",
                self.shard_count, first.shard_count
            )
        } else {
            return Ok(());
        };
        Err(Error::invalid(
            "shard",
            file.display(),
            &format!(
                "the same {differs} as {} (shards of different runs do not merge)",
                f0.display()
            ),
        ))
    }
}

/// Reads, checks and merges the shard files in `dirs`.
pub(crate) fn merge(dirs: &[PathBuf]) -> Result<Merged> {
    let files = find_shards(dirs)?;
    let shards: Vec<ShardFile> = files.iter().map(|p| read_shard(p)).collect::<Result<_>>()?;
    let (first, f0) = first_shard(&shards, &files)?;
    for (f, p) in shards.iter().zip(&files).skip(1) {
        f.run().check_same(p, &first.run(), f0)?;
    }
    let spec = AuditSpec::from_toml(&first.spec_text, Path::new(&first.spec_path))?;
    // Every shard drew exactly its share of the run's main and pilot draws (checked before the
    // histograms are summed, naming the file).
    let n = first.samples_per_side;
    if !(2..=crate::compare::spec::MAX_SAMPLES).contains(&n) {
        return Err(Error::invalid(
            "samples_per_side",
            format!("{n} ({})", f0.display()),
            &format!("in [2, {}]", crate::compare::spec::MAX_SAMPLES),
        ));
    }
    let pilot_n = match spec
        .audit_config(n, crate::audit::engine::Observer::none())
        .selection
    {
        crate::audit::engine::Selection::HeldOut { pilot_samples } => pilot_samples,
        crate::audit::engine::Selection::Bonferroni => 0,
    };
    for (f, p) in shards.iter().zip(&files) {
        let sh = f.draws.shard;
        let sums = |h: &crate::audit::engine::Histograms| {
            let s = |v: &[u64]| v.iter().try_fold(0u64, |a, &b| a.checked_add(b));
            (s(&h.p), s(&h.q))
        };
        let want = sh.share(n);
        let main = sums(&f.draws.main);
        let pilot_ok = match &f.draws.pilot {
            None => pilot_n == 0,
            Some(h) => sums(h) == (Some(sh.share(pilot_n)), Some(sh.share(pilot_n))),
        };
        if main != (Some(want), Some(want)) || !pilot_ok {
            return Err(Error::invalid(
                "shard",
                p.display(),
                &format!(
                    "histograms holding its share of the run (shard {sh} of {n} draws per side \
                     owns {want} main draws per side; found {:?} and {:?})",
                    main.0, main.1
                ),
            ));
        }
    }
    let draws: Vec<AuditDraws> = shards.iter().map(|s| s.draws.clone()).collect();
    let merged = merge_draws(&draws)?;
    Ok(Merged {
        spec,
        samples: first.samples_per_side,
        draws: merged,
        files,
    })
}

/// The two kinds of shard files `dpaudit merge` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ShardKind {
    /// `dpaudit audit SPEC --shard K/N` ([`FORMAT`]).
    Mechanism,
    /// `dpaudit train-audit --shard K/N` ([`crate::train::sgd::shard::FORMAT`]).
    Training,
    /// `dpaudit audit SPEC --shard K/N` on a command spec ([`super::command::FORMAT`]).
    Command,
}

impl ShardKind {
    /// The kind in words, for messages.
    fn name(self) -> &'static str {
        match self {
            ShardKind::Mechanism => "mechanism-audit",
            ShardKind::Training => "training-audit",
            ShardKind::Command => "command-audit",
        }
    }
}

/// The kind of every shard file in `files`, read from their `format` field; an error for an
/// unknown format or a mix of kinds.
pub(crate) fn shard_kind(files: &[PathBuf]) -> Result<ShardKind> {
    #[derive(Deserialize)]
    struct Tag {
        format: String,
    }
    let mut kind: Option<(ShardKind, &PathBuf)> = None;
    for p in files {
        let tag: Tag = read_toml(p, "shard file")?;
        let k = match tag.format.as_str() {
            FORMAT => ShardKind::Mechanism,
            crate::train::sgd::shard::FORMAT => ShardKind::Training,
            super::command::FORMAT => ShardKind::Command,
            other => {
                return Err(Error::Parse {
                    what: "shard file".into(),
                    text: p.display().to_string(),
                    reason: format!(
                        "format {other:?}, expected {FORMAT:?}, {:?} or {:?}",
                        crate::train::sgd::shard::FORMAT,
                        super::command::FORMAT
                    ),
                })
            }
        };
        match kind {
            None => kind = Some((k, p)),
            Some((k0, p0)) if k0 != k => {
                return Err(Error::invalid(
                    "shard",
                    p.display(),
                    &format!(
                        "of the same kind as {} (that is a {} shard, this a {} shard; shards \
                         of different kinds of audit do not merge)",
                        p0.display(),
                        k0.name(),
                        k.name()
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    kind.map(|(k, _)| k)
        .ok_or_else(|| Error::invalid("shards", "none", "at least one shard file"))
}
