//! Audit specs that name a command instead of a family (`[mechanism] command = [...]`), their
//! runs, shard files and merge: the spec side of [`crate::audit::command`] (issue 26).
//!
//! ```toml
//! name = "numpy_gaussian"                   # optional, default: the file stem
//! description = "numpy Gaussian, σ = 1, Δ = 1"
//!
//! [mechanism]
//! command = ["python3", "../samplers/gaussian.py", "--impl", "correct", "--stdout"]
//! output = "auto"                           # optional: auto | text | npy
//! dim = 1                                   # optional: the samples' dimension, checked
//! timeout_seconds = 60                      # optional: per invocation (killed past it)
//! jobs = 2                                  # optional: invocations at once (default: cores)
//!
//! [claim]                                   # the (ε, δ) the implementation claims
//! eps = "2"
//! delta = "0.021"
//! source = "Balle & Wang 2018, Thm 8 at σ = 1"   # optional, shown in the report
//!
//! [audit]
//! samples_per_side = 20_000
//! chunk = 5_000                             # optional: samples per invocation (default 2^20)
//! seed = 1
//! confidence = 0.95                         # optional (default 0.95)
//! statistic = "value"                       # optional: audit-samples' --statistic (default auto)
//! pilot_fraction = 0.2                      # optional (default 0.2)
//! ```
//!
//! The command runs in the spec file's directory. The audit is `audit-samples`' on the two
//! sides' samples, concatenated in chunk order ([`crate::audit::command::assemble`]), so that a
//! run drawn in shards (`dpaudit audit SPEC --shard K/N`, then `dpaudit merge`) has exactly the
//! samples, and so writes exactly the files, of the unsharded run. Claims and confidence are
//! read as the nearest doubles: they meet a statistical bound computed in double precision, not a
//! certified value.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::audit::command::{
    assemble, spec_dir, ChunkPlan, ChunkSamples, Invocation, OutputFormat, SamplerCommand, Side,
};
use crate::audit::engine::{Observer, Shard};
use crate::audit::samples::{audit_samples, Dtype, SampleSet, SamplesAudit, SamplesOptions};
use crate::error::{Error, Result};
use crate::scalar::TomlNum as Num;

/// Format tag of a command-audit shard file.
#[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the shard files (cli)
pub(crate) const FORMAT: &str = "dpaudit-command-shard/1";

/// Default samples per invocation.
pub(crate) const DEFAULT_CHUNK: u64 = 1 << 20;

/// Largest number of samples per side.
pub(crate) const MAX_SAMPLES: u64 = 1 << 31;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    name: Option<String>,
    description: Option<String>,
    mechanism: RawMechanism,
    claim: RawClaim,
    audit: RawAudit,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMechanism {
    command: Vec<String>,
    output: Option<String>,
    dim: Option<i64>,
    timeout_seconds: Option<Num>,
    jobs: Option<i64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawClaim {
    eps: Num,
    delta: Num,
    source: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAudit {
    samples_per_side: i64,
    chunk: Option<i64>,
    seed: i64,
    confidence: Option<Num>,
    statistic: Option<String>,
    pilot_fraction: Option<Num>,
}

/// Names a spec file's fields in its errors.
struct Fields {
    file: String,
}

impl Fields {
    /// The error for `field` = `value`, which must be `expected`.
    fn bad(&self, field: &str, value: &dyn std::fmt::Display, expected: &str) -> Error {
        Error::invalid(&format!("{}: field {field}", self.file), value, expected)
    }

    /// The finite number `n` of `field`.
    fn num(&self, field: &str, n: &Num) -> Result<f64> {
        let t = n.text();
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| self.bad(field, &format!("{t:?}"), "a finite decimal number"))
    }
}

/// The spec's name: `name`, or the file stem of `path`; it names the output files.
fn spec_name(name: Option<String>, path: &Path, f: &Fields) -> Result<String> {
    let name = match name {
        Some(n) => n,
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        || name.starts_with('.')
    {
        return Err(f.bad(
            "name",
            &format!("{name:?}"),
            "letters, digits, '-', '_' or '.' (it names the output files)",
        ));
    }
    Ok(name)
}

impl RawMechanism {
    /// The `[mechanism]` table as the sampler command (run in the directory of `path`).
    fn command(self, path: &Path, f: &Fields) -> Result<SamplerCommand> {
        let m = self;
        let output = match &m.output {
            None => OutputFormat::Auto,
            Some(s) => s
                .parse()
                .map_err(|_| f.bad("mechanism.output", &format!("{s:?}"), "auto, text or npy"))?,
        };
        let dim = match m.dim {
            None => None,
            Some(d) if (1..=1 << 20).contains(&d) => Some(d as usize),
            Some(d) => return Err(f.bad("mechanism.dim", &d, "an integer in [1, 2^20]")),
        };
        let timeout = match &m.timeout_seconds {
            None => None,
            Some(n) => {
                let t = f.num("mechanism.timeout_seconds", n)?;
                if !(t > 0.0 && t <= 1e9) {
                    return Err(f.bad("mechanism.timeout_seconds", &t, "in (0, 1e9]"));
                }
                Some(t)
            }
        };
        let jobs = match m.jobs {
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
            Some(j) if (1..=1024).contains(&j) => j as usize,
            Some(j) => return Err(f.bad("mechanism.jobs", &j, "an integer in [1, 1024]")),
        };
        let command = SamplerCommand {
            argv: m.command,
            dir: spec_dir(path),
            output,
            dim,
            timeout,
            jobs,
        };
        if command.argv.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(f.bad(
                "mechanism.command",
                &format!("{:?}", command.argv),
                "a non-empty list: the program, then its arguments",
            ));
        }
        Ok(command)
    }
}

impl RawAudit {
    /// The `[audit]` and `[claim]` tables as the chunk plan and the audit's options.
    fn plan_and_options(
        &self,
        claim: &RawClaim,
        f: &Fields,
    ) -> Result<(ChunkPlan, SamplesOptions)> {
        let a = self;
        if !(2..=MAX_SAMPLES as i64).contains(&a.samples_per_side) {
            return Err(f.bad(
                "audit.samples_per_side",
                &a.samples_per_side,
                &format!("in [2, {MAX_SAMPLES}]"),
            ));
        }
        let chunk = match a.chunk {
            None => DEFAULT_CHUNK,
            Some(c) if c >= 1 => c as u64,
            Some(c) => return Err(f.bad("audit.chunk", &c, ">= 1")),
        };
        if a.seed < 0 {
            return Err(f.bad("audit.seed", &a.seed, ">= 0"));
        }
        let plan = ChunkPlan::new(a.samples_per_side as u64, chunk, a.seed as u64)
            .map_err(|e| f.bad("audit.chunk", &chunk, &e.to_string()))?;
        let mut options = SamplesOptions::new(
            f.num("claim.eps", &claim.eps)?,
            f.num("claim.delta", &claim.delta)?,
        );
        if let Some(c) = &a.confidence {
            options.confidence = f.num("audit.confidence", c)?;
        }
        if let Some(p) = &a.pilot_fraction {
            options.pilot_fraction = f.num("audit.pilot_fraction", p)?;
        }
        if let Some(s) = &a.statistic {
            options.statistic = s.parse().map_err(|e: Error| {
                f.bad(
                    "audit.statistic",
                    &format!("{s:?}"),
                    &format!("valid ({e})"),
                )
            })?;
        }
        options.seed = a.seed as u64;
        options
            .check()
            .map_err(|e| f.bad("claim/audit", &"(given)", &e.to_string()))?;
        Ok((plan, options))
    }
}

/// A validated command-audit spec.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandSpec {
    /// Short name (the file stem unless given): used in output file names.
    pub name: String,
    /// One-line description for the report.
    pub description: String,
    /// The file it was read from.
    pub path: PathBuf,
    /// The file's text (shard files carry it).
    pub text: String,
    /// The sampler command.
    pub command: SamplerCommand,
    /// Where the claim comes from, if the spec says.
    pub claim_source: Option<String>,
    /// Samples per side as the spec gives them, and the chunking and seed.
    pub plan: ChunkPlan,
    /// The audit's options: the claim (ε, δ), confidence, statistic, pilot fraction; the split's
    /// seed is the spec's seed.
    pub options: SamplesOptions,
}

/// Whether the TOML `text` is a command-audit spec (its `[mechanism]` has a `command`). Text
/// that is not TOML is not (the family-spec parser then reports the error).
pub(crate) fn is_command_spec(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|t| {
        t.get("mechanism")
            .and_then(|m| m.as_table())
            .is_some_and(|m| m.contains_key("command"))
    })
}

impl CommandSpec {
    /// Parses and validates a spec given as TOML text; `path` names it in messages, gives the
    /// default name (its stem) and the command's working directory (its directory).
    pub fn from_toml(text: &str, path: &Path) -> Result<CommandSpec> {
        let f = Fields {
            file: path.display().to_string(),
        };
        let raw: RawSpec = toml::from_str(text).map_err(|e| Error::Parse {
            what: "audit spec".into(),
            text: f.file.clone(),
            reason: e.to_string().trim_end().replace('\n', " | "),
        })?;
        let name = spec_name(raw.name, path, &f)?;
        let command = raw.mechanism.command(path, &f)?;
        let (plan, options) = raw.audit.plan_and_options(&raw.claim, &f)?;
        Ok(CommandSpec {
            name,
            description: raw.description.unwrap_or_default(),
            path: path.to_path_buf(),
            text: text.to_string(),
            command,
            claim_source: raw.claim.source,
            plan,
            options,
        })
    }

    /// The plan with `samples` per side instead of the spec's (same chunk and seed).
    pub fn plan_for(&self, samples: u64) -> Result<ChunkPlan> {
        if !(2..=MAX_SAMPLES).contains(&samples) {
            return Err(Error::invalid(
                "--samples",
                samples,
                &format!("in [2, {MAX_SAMPLES}]"),
            ));
        }
        ChunkPlan::new(samples, self.plan.chunk, self.plan.seed)
    }
}

/// A finished command audit: the spec, the plan it ran, both sides' samples and the audit.
#[derive(Debug, Clone)]
pub struct CommandRun {
    /// The spec.
    pub spec: CommandSpec,
    /// The plan that ran (the spec's, or `--samples`/`--quick`'s).
    pub plan: ChunkPlan,
    /// The samples on x (A) and on x′ (B), in chunk order.
    pub a: SampleSet,
    /// See `a`.
    pub b: SampleSet,
    /// The audit of A against B.
    pub audit: SamplesAudit,
}

/// Audits the chunks of a whole run (drawn in one go or merged from shards).
fn finish(spec: &CommandSpec, plan: ChunkPlan, chunks: &[ChunkSamples]) -> Result<CommandRun> {
    let (a, b) = assemble(&plan, chunks, &spec.command.display())?;
    crate::limits::check_deadline("command audit (before the statistics)")?;
    let audit = audit_samples(&a, &b, &spec.options)?;
    Ok(CommandRun {
        spec: spec.clone(),
        plan,
        a,
        b,
        audit,
    })
}

/// Runs the command for every chunk of `plan` and audits the samples.
pub fn run(spec: &CommandSpec, plan: ChunkPlan, progress: &Observer) -> Result<CommandRun> {
    let chunks = spec.command.run(&plan, Shard::WHOLE, progress)?;
    finish(spec, plan, &chunks)
}

/// One chunk as a shard file holds it: its invocation and its samples' exact bits.
#[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the shard files (cli)
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct ChunkRecord {
    side: String,
    chunk: u64,
    seed: u64,
    rows: u64,
    dim: u64,
    dtype: String,
    /// The f64 values, row-major, each as 16 hex digits of its bits (big-endian).
    values: String,
}

/// A command-audit shard file.
#[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the shard files (cli)
#[derive(Debug, Clone, Serialize, Deserialize)]
struct ShardFile {
    format: String,
    spec_path: String,
    spec_text: String,
    samples_per_side: u64,
    shard_index: u64,
    shard_count: u64,
    chunks: Vec<ChunkRecord>,
}

#[cfg(feature = "cli")]
impl ShardFile {
    /// The run this shard says it belongs to.
    fn run(&self) -> super::shards::RunKey<'_> {
        super::shards::RunKey {
            spec_text: &self.spec_text,
            samples_per_side: self.samples_per_side,
            shard_count: self.shard_count,
        }
    }
}

#[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the shard files (cli)
fn encode(c: &ChunkSamples) -> ChunkRecord {
    let mut values = String::with_capacity(16 * c.samples.values().len());
    for v in c.samples.values() {
        values.push_str(&format!("{:016x}", v.to_bits()));
    }
    ChunkRecord {
        side: c.invocation.side.name().into(),
        chunk: c.invocation.chunk,
        seed: c.invocation.seed,
        rows: c.samples.len() as u64,
        dim: c.samples.dim() as u64,
        dtype: c.samples.dtype().to_string(),
        values,
    }
}

#[cfg_attr(not(feature = "cli"), allow(dead_code))] // used by the shard files (cli)
fn decode(r: &ChunkRecord, plan: &ChunkPlan, path: &Path) -> Result<ChunkSamples> {
    let bad = |what: String| Error::Parse {
        what: "command shard file".into(),
        text: path.display().to_string(),
        reason: format!("chunk {} of side {}: {what}", r.chunk, r.side),
    };
    let side = Side::from_name(&r.side).ok_or_else(|| bad("side must be a or b".into()))?;
    if r.chunk >= plan.chunks() {
        return Err(bad(format!("beyond the run's {} chunks", plan.chunks())));
    }
    let want = Invocation {
        side,
        chunk: r.chunk,
        count: plan.count(r.chunk),
        seed: crate::audit::command::invocation_seed(plan.seed, side, r.chunk),
    };
    if r.seed != want.seed || r.rows != want.count {
        return Err(bad(format!(
            "seed {} and {} rows, but the run gives it seed {} and {} rows",
            r.seed, r.rows, want.seed, want.count
        )));
    }
    let dtype = match r.dtype.as_str() {
        "f64" => Dtype::F64,
        "f32" => Dtype::F32,
        "int" => Dtype::Int,
        other => return Err(bad(format!("unknown dtype {other:?}"))),
    };
    let n = r
        .rows
        .checked_mul(r.dim)
        .filter(|&n| n.checked_mul(16) == Some(r.values.len() as u64));
    if n.is_none() || r.dim == 0 || !r.values.is_ascii() {
        return Err(bad("values do not hold rows × dim numbers".into()));
    }
    let values = r
        .values
        .as_bytes()
        .chunks(16)
        .map(|h| {
            std::str::from_utf8(h)
                .ok()
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .map(f64::from_bits)
        })
        .collect::<Option<Vec<f64>>>()
        .ok_or_else(|| bad("values are not hexadecimal".into()))?;
    let samples = SampleSet::from_parts(
        r.dim as usize,
        values,
        dtype,
        format!("output of side {} chunk {}", r.side, r.chunk),
    )?;
    Ok(ChunkSamples {
        invocation: want,
        samples,
    })
}

/// Runs shard `shard` of the spec at `path` with `plan` and writes its file
/// `NAME.shard-K-of-N.toml` into `out` (atomically, sealed as every shard file). Returns the path.
#[cfg(feature = "cli")]
pub(crate) fn write_shard(
    spec: &CommandSpec,
    plan: ChunkPlan,
    shard: Shard,
    progress: &Observer,
    out: &Path,
) -> Result<PathBuf> {
    let chunks = spec.command.run(&plan, shard, progress)?;
    let file = ShardFile {
        format: FORMAT.into(),
        spec_path: spec.path.display().to_string(),
        spec_text: spec.text.clone(),
        samples_per_side: plan.samples_per_side,
        shard_index: shard.index,
        shard_count: shard.count,
        chunks: chunks.iter().map(encode).collect(),
    };
    super::shards::write_shard_file(
        &file,
        "command shard",
        shard,
        &out.join(super::shards::file_name(&spec.name, shard)),
    )
}

/// The shard files of one command audit, checked and read, ready to audit.
#[cfg(feature = "cli")]
#[derive(Debug)]
pub(crate) struct Merged {
    /// The spec (from the shards' copy of its text).
    pub spec: CommandSpec,
    /// The plan of the run.
    pub plan: ChunkPlan,
    /// The files read.
    pub files: Vec<PathBuf>,
    chunks: Vec<ChunkSamples>,
}

/// Reads the command-audit shard files `files` and checks that they are the N shards of one run
/// (same spec text, samples and shard count; every shard once; each holding exactly its chunks).
#[cfg(feature = "cli")]
pub(crate) fn read_shards(files: &[PathBuf]) -> Result<Merged> {
    let mut shards = Vec::with_capacity(files.len());
    for p in files {
        let f: ShardFile = super::shards::read_toml(p, "command shard file")?;
        super::shards::check_format(p, "command shard file", &f.format, FORMAT)?;
        shards.push(f);
    }
    let (first, f0) = super::shards::first_shard(&shards, files)?;
    let count = first.shard_count;
    let mut seen = vec![None::<&PathBuf>; usize::try_from(count.min(1 << 20)).unwrap_or(1)];
    for (f, p) in shards.iter().zip(files) {
        f.run().check_same(p, &first.run(), f0)?;
        let shard = Shard::new(f.shard_index, f.shard_count)?;
        match seen.get_mut(shard.index as usize) {
            Some(Some(other)) => {
                return Err(Error::invalid(
                    "shard",
                    p.display(),
                    &format!(
                        "a shard other than {} (shard {shard} twice)",
                        other.display()
                    ),
                ))
            }
            Some(slot) => *slot = Some(p),
            None => unreachable!("Shard::new checked index < count"),
        }
    }
    if let Some(k) = seen.iter().position(Option::is_none) {
        return Err(Error::invalid(
            "shards",
            format!("{} files", files.len()),
            &format!(
                "all {count} shards of the run (shard {}/{count} is missing)",
                k + 1
            ),
        ));
    }
    let spec = CommandSpec::from_toml(&first.spec_text, Path::new(&first.spec_path))?;
    let plan = spec.plan_for(first.samples_per_side)?;
    let mut chunks = Vec::new();
    for (f, p) in shards.iter().zip(files) {
        let shard = Shard::new(f.shard_index, f.shard_count)?;
        let want: Vec<(Side, u64)> = plan
            .invocations(shard)
            .iter()
            .map(|i| (i.side, i.chunk))
            .collect();
        let mut got = Vec::with_capacity(f.chunks.len());
        for r in &f.chunks {
            got.push(decode(r, &plan, p)?);
        }
        let have: Vec<(Side, u64)> = got
            .iter()
            .map(|c| (c.invocation.side, c.invocation.chunk))
            .collect();
        if have != want {
            return Err(Error::invalid(
                "shard",
                p.display(),
                &format!(
                    "exactly the {} chunks shard {shard} owns ({} found)",
                    want.len(),
                    have.len()
                ),
            ));
        }
        chunks.extend(got);
    }
    Ok(Merged {
        spec,
        plan,
        files: files.to_vec(),
        chunks,
    })
}

/// Audits merged shards: the same [`CommandRun`] as the unsharded run of the same plan.
#[cfg(feature = "cli")]
pub(crate) fn finish_merged(m: &Merged) -> Result<CommandRun> {
    finish(&m.spec, m.plan, &m.chunks)
}

#[cfg(test)]
mod tests;
