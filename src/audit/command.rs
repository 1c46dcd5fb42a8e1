//! Audits of a sampler that is a program: dpaudit runs the user's command, in any language, to
//! draw the samples of a black-box audit ([`super::samples`]) itself, seeded and chunked so that
//! the run is reproducible and can be sharded like a built-in audit (issue 26).
//!
//! # The protocol (docs/samples.md#command)
//!
//! Each side's `samples_per_side` draws are cut into chunks of `chunk` draws (the last one
//! shorter). For chunk `c` of side `s` (`a`: the mechanism on x, `b`: on the neighbour x′)
//! dpaudit runs the command once, in the spec file's directory, with standard input closed and:
//!
//! | environment variable | placeholder in an argument | value |
//! |---|---|---|
//! | `DPAUDIT_SIDE` | `{side}` | `a` or `b` |
//! | `DPAUDIT_COUNT` | `{count}` | the number of samples to print |
//! | `DPAUDIT_SEED` | `{seed}` | a seed in [0, 2⁶³) for this invocation only ([`invocation_seed`]) |
//! | `DPAUDIT_CHUNK` | `{chunk}` | c, from 0 |
//!
//! The command prints exactly `DPAUDIT_COUNT` samples on standard output, either as text (one
//! sample per line, d comma-separated numbers: the CSV of `audit-samples`; `%.17g` keeps doubles
//! exact) or as the bytes of a `.npy` file (told apart by the format's magic string), and exits
//! with status 0. Anything it writes on standard error is shown when it fails.
//!
//! The seed of an invocation is a function of the spec's seed, the side and the chunk only, so a
//! deterministic command gives the same samples whichever machine, shard or thread runs the
//! chunk; chunk c belongs to shard K of N when c mod N = K − 1, as in `dpaudit audit`.
//!
//! # Failures
//!
//! A command that cannot start, exits with a failure or a signal, runs past the spec's
//! per-invocation `timeout_seconds` or the run's `--max-seconds` (it is killed), prints fewer or
//! more samples than asked, prints what is neither a `.npy` file nor CSV numbers (the line and
//! column are named), or changes dimension or type between chunks is an error naming the command,
//! the side and the chunk ([`Error::Command`]). Nothing is written by the run then, so the
//! outputs of earlier runs stay as they were.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rand::Rng;
use rayon::prelude::*;

use super::engine::{Observer, Shard};
use super::samples::SampleSet;
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;

/// Largest number of chunks per side.
pub const MAX_CHUNKS: u64 = 1 << 20;

/// Bytes of a failing command's standard error quoted in the error (its end).
const STDERR_TAIL: usize = 2000;

/// Stream-id namespace of the invocation seeds (ChaCha8 under the spec's seed): distinct from the
/// audit engine's (bits 62–63 flags, chunk below) and from the sample split's.
const SEED_STREAM: u64 = 0x434d_0000_0000_0000;

/// The side of a neighbouring pair an invocation samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// The mechanism on x (file A of `audit-samples`).
    A,
    /// The mechanism on the neighbour x′ (file B).
    B,
}

impl Side {
    /// Both sides, A first.
    pub const BOTH: [Side; 2] = [Side::A, Side::B];

    /// `a` or `b`: the value of `DPAUDIT_SIDE`.
    pub fn name(self) -> &'static str {
        match self {
            Side::A => "a",
            Side::B => "b",
        }
    }

    fn index(self) -> u64 {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }

    /// The side called `a` or `b`.
    pub(crate) fn from_name(s: &str) -> Option<Side> {
        match s {
            "a" => Some(Side::A),
            "b" => Some(Side::B),
            _ => None,
        }
    }
}

/// What the command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    /// `.npy` bytes when they start with its magic string, text otherwise.
    Auto,
    /// CSV text only.
    Text,
    /// `.npy` bytes only.
    Npy,
}

crate::error::named_enum!(OutputFormat, "output", {
    Auto => "auto",
    Text => "text",
    Npy => "npy",
});

/// A sampler command and how to run it.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplerCommand {
    /// Program and arguments (placeholders `{side}`, `{count}`, `{seed}`, `{chunk}` substituted).
    pub argv: Vec<String>,
    /// Working directory of every invocation.
    pub dir: PathBuf,
    /// What the command prints.
    pub output: OutputFormat,
    /// The dimension d its samples must have, if stated.
    pub dim: Option<usize>,
    /// Per-invocation time limit in seconds (the command is killed past it).
    pub timeout: Option<f64>,
    /// Invocations run at once (≥ 1).
    pub jobs: usize,
}

/// The draws of one audit: samples per side, chunk size and seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPlan {
    /// Samples drawn on each side.
    pub samples_per_side: u64,
    /// Samples per invocation (the last chunk of a side may be shorter).
    pub chunk: u64,
    /// The run's seed, from which every invocation's seed derives.
    pub seed: u64,
}

impl ChunkPlan {
    /// Validated: samples ≥ 2, chunk ≥ 1, at most [`MAX_CHUNKS`] chunks per side.
    pub fn new(samples_per_side: u64, chunk: u64, seed: u64) -> Result<ChunkPlan> {
        if samples_per_side < 2 {
            return Err(Error::invalid("samples_per_side", samples_per_side, ">= 2"));
        }
        if chunk == 0 {
            return Err(Error::invalid("chunk", 0, ">= 1"));
        }
        let plan = ChunkPlan {
            samples_per_side,
            chunk,
            seed,
        };
        if plan.chunks() > MAX_CHUNKS {
            return Err(Error::invalid(
                "chunk",
                chunk,
                &format!(
                    "large enough for at most {MAX_CHUNKS} chunks per side ({samples_per_side} \
                     samples need chunk >= {})",
                    samples_per_side.div_ceil(MAX_CHUNKS)
                ),
            ));
        }
        Ok(plan)
    }

    /// Chunks per side.
    pub(crate) fn chunks(&self) -> u64 {
        self.samples_per_side.div_ceil(self.chunk)
    }

    /// Samples in chunk `c`.
    pub(crate) fn count(&self, c: u64) -> u64 {
        self.chunk.min(
            self.samples_per_side
                .saturating_sub(c.saturating_mul(self.chunk)),
        )
    }

    /// The invocations of shard `shard`: both sides' chunks it owns, side A first, each side's
    /// chunks in order.
    pub(crate) fn invocations(&self, shard: Shard) -> Vec<Invocation> {
        Side::BOTH
            .iter()
            .flat_map(|&side| {
                (0..self.chunks())
                    .filter(move |&c| shard.owns(c))
                    .map(move |c| Invocation {
                        side,
                        chunk: c,
                        count: self.count(c),
                        seed: invocation_seed(self.seed, side, c),
                    })
            })
            .collect()
    }
}

/// The seed handed to chunk `chunk` of side `side` under the run's `seed`: the first 64-bit word
/// of the ChaCha8 stream `SEED_STREAM | side << 32 | chunk` keyed by `seed`, top bit cleared (so
/// that it fits a signed 64-bit integer, as NumPy and most languages' seeds do).
pub fn invocation_seed(seed: u64, side: Side, chunk: u64) -> u64 {
    let stream = SEED_STREAM | (side.index() << 32) | (chunk & 0xffff_ffff);
    chunk_rng(seed, stream).next_u64() >> 1
}

/// One run of the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invocation {
    /// The side it samples.
    pub side: Side,
    /// Its chunk index on that side.
    pub chunk: u64,
    /// Samples it must print.
    pub count: u64,
    /// Its seed ([`invocation_seed`]).
    pub seed: u64,
}

/// The samples one invocation printed.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkSamples {
    /// The invocation.
    pub invocation: Invocation,
    /// Its samples (exactly `invocation.count` rows).
    pub samples: SampleSet,
}

impl SamplerCommand {
    /// Validated: a non-empty program, a working directory that exists, jobs ≥ 1, a positive
    /// finite timeout.
    pub(crate) fn validate(&self) -> Result<()> {
        if self.argv.first().is_none_or(|p| p.trim().is_empty()) {
            return Err(Error::invalid(
                "command",
                format!("{:?}", self.argv),
                "a non-empty list: the program, then its arguments",
            ));
        }
        if !self.dir.is_dir() {
            return Err(Error::invalid(
                "command working directory",
                self.dir.display(),
                "an existing directory",
            ));
        }
        if self.jobs == 0 {
            return Err(Error::invalid("jobs", 0, ">= 1"));
        }
        if let Some(t) = self.timeout {
            if !(t.is_finite() && t > 0.0) {
                return Err(Error::invalid("timeout_seconds", t, "finite and > 0"));
            }
        }
        if let Some(0) = self.dim {
            return Err(Error::invalid("dim", 0, ">= 1"));
        }
        Ok(())
    }

    /// The command line as text (arguments with spaces quoted), for messages and reports.
    pub(crate) fn display(&self) -> String {
        self.argv
            .iter()
            .map(|a| {
                if a.is_empty() || a.contains(|c: char| c.is_whitespace() || c == '\'') {
                    format!("'{}'", a.replace('\'', "'\\''"))
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The arguments of `inv` (placeholders substituted).
    fn args(&self, inv: &Invocation) -> Vec<String> {
        self.argv
            .iter()
            .map(|a| {
                a.replace("{side}", inv.side.name())
                    .replace("{count}", &inv.count.to_string())
                    .replace("{seed}", &inv.seed.to_string())
                    .replace("{chunk}", &inv.chunk.to_string())
            })
            .collect()
    }

    /// Runs every invocation of `plan` in shard `shard`, at most `jobs` at once, and returns
    /// their samples in the order of [`ChunkPlan::invocations`] (whatever order they finished
    /// in). The first failure in that order is returned. `progress` counts samples.
    pub(crate) fn run(
        &self,
        plan: &ChunkPlan,
        shard: Shard,
        progress: &Observer,
    ) -> Result<Vec<ChunkSamples>> {
        self.validate()?;
        let invs = plan.invocations(shard);
        progress.start(invs.iter().map(|i| i.count).sum());
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.jobs)
            .build()
            .map_err(|e| Error::Io(format!("cannot start {} worker threads: {e}", self.jobs)))?;
        let limits = crate::limits::carry();
        let failed = std::sync::atomic::AtomicBool::new(false);
        let results: Vec<Result<ChunkSamples>> = pool.install(|| {
            invs.par_iter()
                .map(|inv| {
                    if failed.load(std::sync::atomic::Ordering::Relaxed) {
                        return Err(Error::Command {
                            command: self.display(),
                            what: "not run: an earlier invocation failed".into(),
                        });
                    }
                    let r = limits.run(|| self.run_one(inv));
                    match &r {
                        Ok(c) => progress.advance(c.invocation.count),
                        Err(_) => failed.store(true, std::sync::atomic::Ordering::Relaxed),
                    }
                    r
                })
                .collect()
        });
        progress.finish();
        // The first real failure (an invocation skipped after it is not the cause).
        let mut skipped = None;
        let mut out = Vec::with_capacity(results.len());
        for r in results {
            match r {
                Ok(c) => out.push(c),
                Err(Error::Command { what, command }) if what.starts_with("not run:") => {
                    skipped.get_or_insert(Error::Command { command, what });
                }
                Err(e) => return Err(e),
            }
        }
        match skipped {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Runs one invocation and reads its samples.
    pub(crate) fn run_one(&self, inv: &Invocation) -> Result<ChunkSamples> {
        let label = format!(
            "{} (side {}, chunk {}, {} samples, seed {})",
            self.display(),
            inv.side.name(),
            inv.chunk,
            inv.count,
            inv.seed
        );
        let fail = |what: String| Error::Command {
            command: label.clone(),
            what,
        };
        crate::limits::check_deadline(&format!("command {label}"))?;
        let args = self.args(inv);
        let mut child = self.spawn(inv, &args).map_err(|e| {
            fail(format!(
                "cannot start {:?} (working directory {}): {e}",
                args[0],
                self.dir.display()
            ))
        })?;
        let cap = output_cap(inv.count, self.dim);
        let (stdout, stderr) = read_pipes(&mut child, cap);
        let status = self.wait(&mut child, &label, &fail)?;
        let err_text = stderr
            .and_then(|h| h.join().ok())
            .map(|b| tail(&b))
            .unwrap_or_default();
        let said = if err_text.is_empty() {
            String::new()
        } else {
            format!("; its standard error ends:\n{err_text}")
        };
        if !status.success() {
            let how = match status.code() {
                Some(c) => format!("exited with status {c}"),
                None => format!("was killed ({status})"),
            };
            return Err(fail(format!("{how}{said}")));
        }
        let out = match stdout.map(|h| h.join()) {
            Some(Ok(Ok(b))) => b,
            Some(Ok(Err(e))) => return Err(fail(format!("cannot read its output: {e}"))),
            _ => return Err(fail("cannot read its output".into())),
        };
        self.samples_from(inv, &out, cap, &said, &fail)
    }

    /// Starts the command of `inv` (`args`: the program and its arguments) with the
    /// `DPAUDIT_*` variables set, standard output and error piped.
    fn spawn(&self, inv: &Invocation, args: &[String]) -> std::io::Result<Child> {
        Command::new(&args[0])
            .args(&args[1..])
            .current_dir(&self.dir)
            .env("DPAUDIT_SIDE", inv.side.name())
            .env("DPAUDIT_COUNT", inv.count.to_string())
            .env("DPAUDIT_SEED", inv.seed.to_string())
            .env("DPAUDIT_CHUNK", inv.chunk.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    }

    /// Waits for `child`, killing it past the per-call timeout or the run's time limit.
    fn wait(
        &self,
        child: &mut Child,
        label: &str,
        fail: &dyn Fn(String) -> Error,
    ) -> Result<ExitStatus> {
        let started = Instant::now();
        let per_call = self.timeout.map(Duration::from_secs_f64);
        loop {
            match child.try_wait() {
                Ok(Some(st)) => return Ok(st),
                Ok(None) => {}
                Err(e) => return Err(fail(format!("cannot wait for it: {e}"))),
            }
            let over_call = per_call.is_some_and(|t| started.elapsed() >= t);
            let over_run = crate::limits::current().filter(|d| d.remaining().is_zero());
            if over_call || over_run.is_some() {
                let _ = child.kill();
                let _ = child.wait();
                if let Some(d) = over_run {
                    return Err(Error::TimeLimit {
                        seconds: d.seconds(),
                        what: format!("command {label} (killed)"),
                    });
                }
                return Err(fail(format!(
                    "did not finish within timeout_seconds = {} (killed)",
                    self.timeout.unwrap_or(0.0)
                )));
            }
            let waited = started.elapsed();
            std::thread::sleep(if waited < Duration::from_millis(50) {
                Duration::from_millis(1)
            } else {
                Duration::from_millis(10)
            });
        }
    }

    /// The samples `inv`'s command printed (`out`, at most `cap` bytes): as many as asked, of the
    /// spec's dimension; `said` is the end of its standard error, for the messages.
    fn samples_from(
        &self,
        inv: &Invocation,
        out: &[u8],
        cap: u64,
        said: &str,
        fail: &dyn Fn(String) -> Error,
    ) -> Result<ChunkSamples> {
        if out.len() as u64 > cap {
            return Err(fail(format!(
                "printed more than {cap} bytes for {} samples{said}",
                inv.count
            )));
        }
        if out.is_empty() {
            return Err(fail(format!(
                "printed nothing (expected {} samples on standard output){said}",
                inv.count
            )));
        }
        let name = format!("output of side {} chunk {}", inv.side.name(), inv.chunk);
        let npy = match self.output {
            OutputFormat::Auto => None,
            OutputFormat::Text => Some(false),
            OutputFormat::Npy => Some(true),
        };
        let samples = SampleSet::parse_output(out, &name, npy).map_err(|e| fail(e.to_string()))?;
        if samples.len() as u64 != inv.count {
            return Err(fail(format!(
                "printed {} samples, expected {} (DPAUDIT_COUNT)",
                samples.len(),
                inv.count
            )));
        }
        if let Some(d) = self.dim {
            if samples.dim() != d {
                return Err(fail(format!(
                    "printed samples of dimension {}, the spec says dim = {d}",
                    samples.dim()
                )));
            }
        }
        Ok(ChunkSamples {
            invocation: *inv,
            samples,
        })
    }
}

/// The threads reading a child's standard output (capped) and standard error.
type Pipes = (
    Option<JoinHandle<std::io::Result<Vec<u8>>>>,
    Option<JoinHandle<Vec<u8>>>,
);

/// Reads both pipes of `child` on their own threads (a full pipe would block the child); the
/// output is capped at `cap` + 1 bytes (what `count` samples can take, so a runaway command
/// cannot fill memory), the rest drained.
fn read_pipes(child: &mut Child, cap: u64) -> Pipes {
    let stdout = child.stdout.take().map(|mut s| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let r = (&mut s).take(cap + 1).read_to_end(&mut buf);
            // Drain the rest so the child is not blocked on a full pipe.
            let _ = std::io::copy(&mut s, &mut std::io::sink());
            r.map(|_| buf)
        })
    });
    let stderr = child.stderr.take().map(|mut s| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = s.read_to_end(&mut buf);
            buf
        })
    });
    (stdout, stderr)
}

/// The most output bytes accepted for `count` samples: 64 bytes per coordinate (a `%.17g`
/// double and its separator take at most 25) with d = 1 unless stated, plus 1 MiB of slack for
/// a header or `.npy` header, at most 2⁴⁰.
fn output_cap(count: u64, dim: Option<usize>) -> u64 {
    let d = dim.unwrap_or(64).max(1) as u64;
    count
        .saturating_mul(d)
        .saturating_mul(64)
        .saturating_add(1 << 20)
        .min(1 << 40)
}

/// The end of a command's standard error, as text (at most [`STDERR_TAIL`] bytes, at a
/// character boundary), trimmed.
fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let t = text.trim_end();
    if t.len() <= STDERR_TAIL {
        return t.trim_start_matches('\n').to_string();
    }
    let mut start = t.len() - STDERR_TAIL;
    while !t.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &t[start..])
}

/// Each side's samples of a whole run, in chunk order: the A and B sets of the audit. Errors if a
/// chunk is missing or given twice, or the chunks differ in dimension or type (each named).
pub fn assemble(
    plan: &ChunkPlan,
    chunks: &[ChunkSamples],
    command: &str,
) -> Result<(SampleSet, SampleSet)> {
    let mut sides = Vec::with_capacity(2);
    for side in Side::BOTH {
        let mut mine: Vec<&ChunkSamples> = chunks
            .iter()
            .filter(|c| c.invocation.side == side)
            .collect();
        mine.sort_by_key(|c| c.invocation.chunk);
        for (want, c) in mine.iter().enumerate() {
            if c.invocation.chunk != want as u64 {
                return Err(Error::invalid(
                    "chunks",
                    format!("side {} chunk {}", side.name(), c.invocation.chunk),
                    &format!("chunk {want} (each chunk exactly once)"),
                ));
            }
        }
        if mine.len() as u64 != plan.chunks() {
            return Err(Error::invalid(
                "chunks",
                format!("{} on side {}", mine.len(), side.name()),
                &format!("{} (every chunk of the run)", plan.chunks()),
            ));
        }
        let parts: Vec<SampleSet> = mine.iter().map(|c| c.samples.clone()).collect();
        sides.push(SampleSet::concat(
            &parts,
            format!(
                "side {} of {command} ({} chunks)",
                side.name(),
                plan.chunks()
            ),
        )?);
    }
    let b = sides.pop().expect("two sides");
    let a = sides.pop().expect("two sides");
    Ok((a, b))
}

/// The directory of a spec file (its commands' working directory): `.` for a bare file name.
pub(crate) fn spec_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

#[cfg(test)]
mod tests;
