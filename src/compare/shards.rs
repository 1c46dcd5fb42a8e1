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
//! The same `dpaudit merge` takes the shard files of the training-audit suite
//! (`dpaudit train-audit --shard K/N`, [`crate::train::sgd::shard`]): `shard_kind` tells the
//! two apart by their `format` field, and refuses a mix.

use crate::audit::engine::{merge_draws, AuditDraws, Shard};
use crate::compare::spec::AuditSpec;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Format tag written into every shard file.
pub(crate) const FORMAT: &str = "dpaudit-shard/1";

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

/// Reads and parses the TOML shard file `path`; `what` names the kind of file in errors.
pub(crate) fn read_toml<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Io(format!("cannot read shard {}: {e}", path.display())))?;
    toml::from_str(&text).map_err(|e| Error::Parse {
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

/// Reads, checks and merges the shard files in `dirs`.
pub(crate) fn merge(dirs: &[PathBuf]) -> Result<Merged> {
    let files = find_shards(dirs)?;
    let shards: Vec<ShardFile> = files.iter().map(|p| read_shard(p)).collect::<Result<_>>()?;
    let first = &shards[0];
    for (f, p) in shards.iter().zip(&files).skip(1) {
        let differs = if f.spec_text != first.spec_text {
            Some("spec (text, seed or settings)")
        } else if f.samples_per_side != first.samples_per_side {
            Some("samples per side")
        } else {
            None
        };
        if let Some(what) = differs {
            return Err(Error::invalid(
                "shard",
                p.display(),
                &format!(
                    "the same {what} as {} (shards of different runs do not merge)",
                    files[0].display()
                ),
            ));
        }
    }
    let draws: Vec<AuditDraws> = shards.iter().map(|s| s.draws.clone()).collect();
    let merged = merge_draws(&draws)?;
    let spec = AuditSpec::from_toml(&first.spec_text, Path::new(&first.spec_path))?;
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
            other => {
                return Err(Error::Parse {
                    what: "shard file".into(),
                    text: p.display().to_string(),
                    reason: format!(
                        "format {other:?}, expected {FORMAT:?} or {:?}",
                        crate::train::sgd::shard::FORMAT
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
                        "of the same kind as {} (a {} shard; mechanism- and training-audit \
                         shards do not merge)",
                        p0.display(),
                        match k0 {
                            ShardKind::Mechanism => "mechanism-audit",
                            ShardKind::Training => "training-audit",
                        }
                    ),
                ))
            }
            Some(_) => {}
        }
    }
    kind.map(|(k, _)| k)
        .ok_or_else(|| Error::invalid("shards", "none", "at least one shard file"))
}
