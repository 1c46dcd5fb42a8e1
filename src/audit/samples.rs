//! Black-box audits of a user's own sampler output: two files of mechanism outputs drawn on
//! neighbouring inputs (A on x, B on x′) → a lower bound ε_lb on ε(δ) at a stated confidence,
//! checked against a claimed (ε, δ) (issue 26).
//!
//! The statistics are those of [`super::stats`], as in `dpaudit audit`'s held-out route: each
//! file's samples are split by a seeded permutation into a *pilot* part and a *main* part; the
//! test statistic T (and, for the fitted statistics, its parameters), the candidate thresholds,
//! the region's tail and its direction (A vs B or B vs A) are chosen on the pilot only
//! ([`super::stats::held_out_region`]); the single chosen region is then audited on the main
//! parts with two one-sided Clopper–Pearson bounds at level β/2 each, so that ε_lb ≤ ε(δ) holds
//! with probability ≥ 1 − β whatever the pilot did (Jagielski, Ullman & Oprea 2020, §3; Nasr et
//! al. 2021, §4). The verdict follows the engine's convention: `VIOLATION` when the same
//! region's bound at confidence 1 − [`super::engine::STRICT_BETA`] exceeds the claimed ε.
//!
//! # Statistics ([`SampleStatistic`])
//!
//! * `value`: T = x (one column);
//! * `score`: T = x, a score the user computed (e.g. a log-likelihood ratio), one column;
//! * `norm`: T = ‖x‖₂ (any d);
//! * `projection`: T = ⟨x − (m_A + m_B)/2, m_A − m_B⟩ with the means m_A, m_B of the pilot's
//!   first half (any d);
//! * `exact-bits`: a categorical statistic on the **floating-point representation**: each
//!   coordinate's sign, exponent and number of trailing zero bits of the mantissa form a
//!   category (the trailing zeros say on which grid 2^-k the value lies, and the lowest bit's
//!   parity shows round-to-even ties); the pilot's first half estimates every category's
//!   log-ratio ln(p_A(c)/p_B(c)) (each count plus [`PSEUDO_COUNT`]; 0 for a category seen in
//!   neither), and T is the sum of the log-ratios of a sample's coordinates. It sees what the others cannot: outputs that only one side can
//!   produce, or low-order bits whose distribution depends on the input (Mironov, CCS 2012). It
//!   tests the floating-point *implementation*, not the idealised mechanism: a textbook
//!   `mu + noise` sampler in floating point has such artefacts and may truthfully fail it;
//! * `auto`: `value` for d = 1, `projection` for d > 1.
//!
//! With the fitted statistics (`projection`, `exact-bits`) the pilot is cut in two halves:
//! the first fits T, the second chooses the threshold, so that the choice is not made on the
//! samples that fitted T.

use std::collections::BTreeMap;
use std::path::Path;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::engine::{strict_eps_lb, STRICT_BETA};
use super::stats::{held_out_region, RegionAudit, ThresholdTable, MAX_COUNT};
use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;

mod read;

/// Pseudo-count added to both sides' counts of an `exact-bits` category before its log-ratio is
/// taken: a category seen a few times on one side only scores little, one seen often scores much.
pub const PSEUDO_COUNT: f64 = 5.0;

/// Largest number of candidate thresholds taken from the pilot (evenly spaced among the pilot's
/// distinct statistic values).
pub(crate) const MAX_THRESHOLDS: usize = 256;

/// The type the samples had in their file (values are held as f64, converted exactly).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// 64-bit floats (CSV, `<f8`).
    F64,
    /// 32-bit floats (`<f4`); `exact-bits` reads their f32 representation.
    F32,
    /// Integers (`<i8` within ±2⁵³, `<i4`).
    Int,
}

crate::error::named_enum!(Dtype {
    F64 => "f64",
    F32 => "f32",
    Int => "int",
});

/// A set of n samples of dimension d, row-major, with where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleSet {
    d: usize,
    values: Vec<f64>,
    dtype: Dtype,
    source: String,
}

impl SampleSet {
    /// Samples from row-major values (n rows of `d` coordinates; f64). Errors: d = 0, no
    /// values, a length that is not a multiple of d, more than 2⁵³ rows.
    pub fn from_rows(d: usize, values: Vec<f64>) -> Result<SampleSet> {
        SampleSet::build(d, values, Dtype::F64, "rows".into())
    }

    /// Samples from row-major values of the given type, named `source` (as a reader builds them).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))] // command shards (cli)
    pub(crate) fn from_parts(
        d: usize,
        values: Vec<f64>,
        dtype: Dtype,
        source: String,
    ) -> Result<SampleSet> {
        SampleSet::build(d, values, dtype, source)
    }

    pub(super) fn build(d: usize, values: Vec<f64>, dtype: Dtype, source: String) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("d", 0, ">= 1"));
        }
        if values.is_empty() {
            return Err(Error::invalid(
                "samples",
                format!("{source}: none"),
                "at least one row",
            ));
        }
        if values.len() % d != 0 {
            return Err(Error::invalid(
                "values.len()",
                values.len(),
                &format!("a multiple of d = {d}"),
            ));
        }
        if (values.len() / d) as u64 > MAX_COUNT {
            return Err(Error::invalid("rows", values.len() / d, "<= 2^53"));
        }
        Ok(SampleSet {
            d,
            values,
            dtype,
            source,
        })
    }

    /// Reads a file by its extension: `.csv`/`.txt` (one sample per line, d comma-separated
    /// columns, optional header line, `#` comments) or `.npy` (`<f8`, `<f4`, `<i8`, `<i4`, or
    /// big-endian; shape (n,) or (n, d); C order). See `docs/samples.md`.
    pub fn read(path: impl AsRef<Path>) -> Result<SampleSet> {
        read::read_path(path.as_ref())
    }

    /// Parses a program's output: NumPy `.npy` bytes when they start with the format's magic
    /// string (or when `npy` is `Some(true)`), else CSV text as [`SampleSet::read`] reads a file
    /// (`Some(false)` insists on text). `name` names the output in errors (it takes the place of
    /// a file name: "line 3, column 1" is a line of the output).
    pub(crate) fn parse_output(bytes: &[u8], name: &str, npy: Option<bool>) -> Result<SampleSet> {
        read::parse_output(bytes, name, npy)
    }

    /// The values, row-major (n rows of [`SampleSet::dim`] coordinates).
    #[cfg_attr(not(feature = "cli"), allow(dead_code))] // command shards (cli)
    pub(crate) fn values(&self) -> &[f64] {
        &self.values
    }

    /// The rows of `parts`, in order, as one set named `source`. Errors: no part, or parts of
    /// different dimensions or types (each named).
    pub(crate) fn concat(parts: &[SampleSet], source: String) -> Result<SampleSet> {
        let Some(first) = parts.first() else {
            return Err(Error::invalid(
                "samples",
                format!("{source}: none"),
                "at least one row",
            ));
        };
        let mut values = Vec::with_capacity(parts.iter().map(|p| p.values.len()).sum());
        for p in parts {
            if p.d != first.d || p.dtype != first.dtype {
                return Err(Error::invalid(
                    "samples",
                    format!("{} (d = {}, {})", p.source, p.d, p.dtype),
                    &format!(
                        "the dimension and type of {} (d = {}, {})",
                        first.source, first.d, first.dtype
                    ),
                ));
            }
            values.extend_from_slice(&p.values);
        }
        SampleSet::build(first.d, values, first.dtype, source)
    }

    /// Writes the samples as a `.npy` file (version 1.0, `<f8`), atomically.
    pub fn write_npy(&self, path: impl AsRef<Path>) -> Result<()> {
        crate::fsio::write_atomic(path.as_ref(), read::npy_bytes(self.d, &self.values))
    }

    /// Number of samples n.
    pub fn len(&self) -> usize {
        self.values.len() / self.d
    }

    /// True when there is no sample (never, for a constructed set).
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Dimension d of each sample.
    pub fn dim(&self) -> usize {
        self.d
    }

    /// Sample `i` (its d coordinates).
    pub fn row(&self, i: usize) -> &[f64] {
        &self.values[i * self.d..(i + 1) * self.d]
    }

    /// The type the values had in their file.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// Where the samples came from (a path, or `rows`).
    pub fn source(&self) -> &str {
        &self.source
    }
}

/// The test statistic of a samples audit (see the module docs for what each sees).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SampleStatistic {
    /// `value` for d = 1, `projection` for d > 1.
    Auto,
    /// The sample itself (d = 1).
    Value,
    /// A precomputed score, thresholded as given (d = 1).
    Score,
    /// The Euclidean norm.
    Norm,
    /// The projection on the difference of the pilot means.
    Projection,
    /// Pilot-learned log-ratios of floating-point categories (sign, exponent, low bits).
    ExactBits,
}

crate::error::named_enum!(SampleStatistic, "statistic", {
    Auto => "auto",
    Value => "value",
    Score => "score",
    Norm => "norm",
    Projection => "projection",
    ExactBits => "exact-bits" | "exact_bits" | "bits",
});

/// The options of [`audit_samples`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SamplesOptions {
    /// Claimed ε (≥ 0).
    pub eps: f64,
    /// Claimed δ, in [0, 1).
    pub delta: f64,
    /// Confidence 1 − β of ε_lb ≤ ε(δ), in (½, 1).
    pub confidence: f64,
    /// Fraction of each file's samples in the pilot, in (0, 1).
    pub pilot_fraction: f64,
    /// The test statistic.
    pub statistic: SampleStatistic,
    /// Seed of the pilot/main split.
    pub seed: u64,
}

impl SamplesOptions {
    /// The claim (ε, δ) with the defaults: 95 % confidence, 20 % pilot, `auto`, seed 0.
    pub fn new(eps: f64, delta: f64) -> SamplesOptions {
        SamplesOptions {
            eps,
            delta,
            confidence: 0.95,
            pilot_fraction: 0.2,
            statistic: SampleStatistic::Auto,
            seed: 0,
        }
    }

    /// The options' own checks (claim, confidence, pilot fraction), as [`audit_samples`] runs
    /// them first.
    pub(crate) fn check(&self) -> Result<()> {
        self.validate()
    }

    fn validate(&self) -> Result<()> {
        if !(self.eps.is_finite() && self.eps >= 0.0) {
            return Err(Error::invalid("eps", self.eps, "finite and >= 0"));
        }
        if !(0.0..1.0).contains(&self.delta) {
            return Err(Error::invalid("delta", self.delta, "in [0, 1)"));
        }
        if !(self.confidence > 0.5 && self.confidence < 1.0) {
            return Err(Error::invalid("confidence", self.confidence, "in (0.5, 1)"));
        }
        if !(self.pilot_fraction > 0.0 && self.pilot_fraction < 1.0) {
            return Err(Error::invalid(
                "pilot-fraction",
                self.pilot_fraction,
                "in (0, 1)",
            ));
        }
        Ok(())
    }
}

/// `ok` or `VIOLATION`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    /// The strict bound does not exceed the claimed ε.
    #[serde(rename = "ok")]
    Ok,
    /// The bound at confidence 1 − [`STRICT_BETA`] exceeds the claimed ε: the claim is refuted.
    #[serde(rename = "VIOLATION")]
    Violation,
}

crate::error::named_enum!(Verdict {
    Ok => "ok",
    Violation => "VIOLATION",
});

/// The outcome of [`audit_samples`]: plain data, a deterministic function of the two sample
/// sets and the options.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SamplesAudit {
    /// Where A came from.
    pub source_a: String,
    /// Where B came from.
    pub source_b: String,
    /// Dimension d.
    pub dim: usize,
    /// A's type in its file.
    pub dtype_a: Dtype,
    /// B's type in its file.
    pub dtype_b: Dtype,
    /// The claimed ε.
    pub eps_claimed: f64,
    /// The claimed δ.
    pub delta: f64,
    /// Confidence 1 − β of `eps_lb`.
    pub confidence: f64,
    /// The statistic asked for.
    pub statistic_requested: SampleStatistic,
    /// The statistic used (`auto` resolved).
    pub statistic: SampleStatistic,
    /// How the statistic was fitted on the pilot (means, categories), in words.
    pub statistic_detail: String,
    /// Seed of the split.
    pub seed: u64,
    /// Fraction of each file in the pilot.
    pub pilot_fraction: f64,
    /// The split, in words.
    pub split: String,
    /// Samples in A.
    pub n_a: u64,
    /// Samples in B.
    pub n_b: u64,
    /// A's pilot samples (fit + choice).
    pub pilot_a: u64,
    /// B's pilot samples (fit + choice).
    pub pilot_b: u64,
    /// A's pilot samples that fitted the statistic (0 when it needs no fit).
    pub fit_a: u64,
    /// B's pilot samples that fitted the statistic.
    pub fit_b: u64,
    /// A's main samples.
    pub main_a: u64,
    /// B's main samples.
    pub main_b: u64,
    /// Candidate thresholds taken from the pilot.
    pub thresholds: u64,
    /// The region chosen on the pilot, audited on the main parts (P = A, Q = B).
    pub region: RegionAudit,
    /// Lower bound on ε(δ) at `confidence`.
    pub eps_lb: f64,
    /// The same region's bound at confidence 1 − [`STRICT_BETA`]: the verdict's figure.
    pub eps_lb_strict: f64,
    /// Confidence of `eps_lb_strict`.
    pub strict_confidence: f64,
    /// `VIOLATION` iff `eps_lb_strict` > `eps_claimed`.
    pub verdict: Verdict,
}

/// Stream ids of the two sides' split permutations (ChaCha8 under the options' seed).
const SPLIT_STREAM: [u64; 2] = [0x5a4d_0000_0000_0001, 0x5a4d_0000_0000_0002];

/// Indices 0..n in the seeded order of side `side` (Fisher–Yates; each index drawn as
/// ⌊u·(i+1)/2⁶⁴⌋ from one 64-bit word, a bias below n/2⁶⁴).
fn permutation(n: usize, seed: u64, side: usize) -> Vec<usize> {
    let mut rng = chunk_rng(seed, SPLIT_STREAM[side]);
    let mut idx: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        let j = ((u128::from(rng.next_u64()) * (i as u128 + 1)) >> 64) as usize;
        idx.swap(i, j);
    }
    idx
}

/// One side's parts: (fit, choose, main) index lists.
struct Parts {
    fit: Vec<usize>,
    choose: Vec<usize>,
    main: Vec<usize>,
}

fn split(set: &SampleSet, opts: &SamplesOptions, side: usize, fitted: bool) -> Result<Parts> {
    let n = set.len();
    let name = ["A", "B"][side];
    let min_pilot = if fitted { 2 } else { 1 };
    let pilot = ((opts.pilot_fraction * n as f64).ceil() as usize).max(min_pilot);
    if pilot + 1 > n {
        return Err(Error::invalid(
            &format!("samples of {name} ({})", set.source),
            n,
            &format!(
                "at least {} (a pilot of {pilot} at pilot-fraction {} and one main sample)",
                pilot + 1,
                opts.pilot_fraction
            ),
        ));
    }
    let perm = permutation(n, opts.seed, side);
    let fit_n = if fitted { pilot.div_ceil(2) } else { 0 };
    Ok(Parts {
        fit: perm[..fit_n].to_vec(),
        choose: perm[fit_n..pilot].to_vec(),
        main: perm[pilot..].to_vec(),
    })
}

/// A fitted statistic: maps a sample to T.
enum Fitted {
    First,
    Norm,
    Projection {
        centre: Vec<f64>,
        w: Vec<f64>,
    },
    Bits {
        f32: bool,
        score: BTreeMap<u64, f64>,
    },
}

/// The category of coordinate `j` of value `x`: (j, sign, exponent, trailing zero bits of the
/// mantissa), read from the f32 representation for f32 data.
fn category(j: usize, x: f64, f32: bool) -> u64 {
    let (sign_exp, mant, width) = if f32 {
        let b = u64::from((x as f32).to_bits());
        (b >> 23, b & ((1 << 23) - 1), 23)
    } else {
        let b = x.to_bits();
        (b >> 52, b & ((1 << 52) - 1), 52)
    };
    let tz = if mant == 0 {
        width
    } else {
        u64::from(mant.trailing_zeros())
    };
    ((j as u64) << 20) | (sign_exp << 6) | tz
}

/// ‖x‖₂ scaled by its largest |coordinate| (no overflow or underflow of the squares).
fn norm(x: &[f64]) -> f64 {
    let m = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if m == 0.0 || !m.is_finite() {
        return m;
    }
    m * x.iter().map(|v| (v / m) * (v / m)).sum::<f64>().sqrt()
}

impl Fitted {
    fn eval(&self, x: &[f64]) -> f64 {
        match self {
            Fitted::First => x[0],
            Fitted::Norm => norm(x),
            Fitted::Projection { centre, w } => x
                .iter()
                .zip(centre)
                .zip(w)
                .map(|((v, c), w)| (v - c) * w)
                .sum(),
            Fitted::Bits { f32, score } => (0..x.len())
                .map(|j| score.get(&category(j, x[j], *f32)).copied().unwrap_or(0.0))
                .sum(),
        }
    }
}

fn mean(set: &SampleSet, idx: &[usize]) -> Vec<f64> {
    let mut m = vec![0.0; set.d];
    let n = idx.len() as f64;
    for &i in idx {
        for (a, v) in m.iter_mut().zip(set.row(i)) {
            *a += v / n;
        }
    }
    m
}

/// Fits `stat` on the fit parts (A: `fa`, B: `fb`); returns the statistic and its description.
fn fit(
    stat: SampleStatistic,
    a: &SampleSet,
    b: &SampleSet,
    fa: &[usize],
    fb: &[usize],
) -> Result<(Fitted, String)> {
    Ok(match stat {
        SampleStatistic::Value | SampleStatistic::Score => (Fitted::First, "T = x".into()),
        SampleStatistic::Norm => (Fitted::Norm, "T = ||x||_2".into()),
        SampleStatistic::Projection => {
            let (ma, mb) = (mean(a, fa), mean(b, fb));
            if ma.iter().chain(&mb).any(|v| !v.is_finite()) {
                return Err(Error::invalid(
                    "statistic",
                    "projection",
                    "finite pilot means (the samples hold inf or huge values; try norm or exact-bits)",
                ));
            }
            let centre: Vec<f64> = ma.iter().zip(&mb).map(|(x, y)| 0.5 * x + 0.5 * y).collect();
            let w: Vec<f64> = ma.iter().zip(&mb).map(|(x, y)| x - y).collect();
            let detail = format!(
                "T = <x - (m_A + m_B)/2, m_A - m_B>, means of {} + {} fit samples, ||m_A - m_B|| = {:.6e}",
                fa.len(),
                fb.len(),
                norm(&w)
            );
            (Fitted::Projection { centre, w }, detail)
        }
        SampleStatistic::ExactBits => {
            if a.dtype != b.dtype {
                return Err(Error::invalid(
                    "statistic",
                    "exact-bits",
                    &format!(
                        "files of one type (A is {}, B is {}: their bit patterns differ by type alone)",
                        a.dtype, b.dtype
                    ),
                ));
            }
            let f32 = a.dtype == Dtype::F32;
            let mut counts: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
            for (set, idx, side) in [(a, fa, 0), (b, fb, 1)] {
                for &i in idx {
                    for (j, &v) in set.row(i).iter().enumerate() {
                        let c = counts.entry(category(j, v, f32)).or_default();
                        if side == 0 {
                            c.0 += 1;
                        } else {
                            c.1 += 1;
                        }
                    }
                }
            }
            let (na, nb) = (fa.len() as f64 + 1.0, fb.len() as f64 + 1.0);
            let score: BTreeMap<u64, f64> = counts
                .iter()
                .map(|(&k, &(ca, cb))| {
                    let s = ((ca as f64 + PSEUDO_COUNT) / na).ln()
                        - ((cb as f64 + PSEUDO_COUNT) / nb).ln();
                    (k, s)
                })
                .collect();
            let only_a = counts.values().filter(|c| c.1 == 0).count();
            let only_b = counts.values().filter(|c| c.0 == 0).count();
            let detail = format!(
                "T = sum over coordinates of ln((n_A(c) + {PSEUDO_COUNT}) / (n_B(c) + {PSEUDO_COUNT})) (sample sizes adjusted), c = ({}sign, exponent, trailing zero bits of the mantissa); {} categories from {} + {} fit samples ({only_a} seen in A only, {only_b} in B only)",
                if f32 { "f32 " } else { "" },
                counts.len(),
                fa.len(),
                fb.len()
            );
            (Fitted::Bits { f32, score }, detail)
        }
        SampleStatistic::Auto => {
            return Err(Error::invalid(
                "statistic",
                "auto",
                "resolved to a statistic before fitting",
            ))
        }
    })
}

/// T over the samples `idx` of `set`, sorted ascending; errors on NaN (naming the file and row).
fn sorted_stat(f: &Fitted, set: &SampleSet, idx: &[usize], name: &str) -> Result<Vec<f64>> {
    let mut t = Vec::with_capacity(idx.len());
    for &i in idx {
        let v = f.eval(set.row(i));
        if v.is_nan() {
            return Err(Error::invalid(
                &format!("sample {} of {name} ({})", i + 1, set.source),
                format!("{:?}", set.row(i)),
                "a sample whose statistic is a number (NaN or inf - inf in the data; \
                 --statistic exact-bits reads NaN as a category)",
            ));
        }
        t.push(v);
    }
    t.sort_by(f64::total_cmp);
    Ok(t)
}

/// At most [`MAX_THRESHOLDS`] thresholds: the distinct values of the choice samples, evenly
/// spaced in rank when there are more.
fn thresholds(ta: &[f64], tb: &[f64]) -> Vec<f64> {
    let mut all: Vec<f64> = ta.iter().chain(tb).copied().collect();
    all.sort_by(f64::total_cmp);
    all.dedup_by(|x, y| x.to_bits() == y.to_bits() || (*x == 0.0 && *y == 0.0));
    let u = all.len();
    if u <= MAX_THRESHOLDS {
        return all;
    }
    let m = MAX_THRESHOLDS;
    let mut out: Vec<f64> = (0..m).map(|k| all[k * (u - 1) / (m - 1)]).collect();
    out.dedup_by(|x, y| x.to_bits() == y.to_bits());
    out
}

/// Audits the claim `opts` (ε, δ) from samples `a` (mechanism on x, the P side) and `b` (on
/// x′, the Q side); see the module docs. Errors: invalid options, A and B of different
/// dimensions, a statistic that does not fit the data (value/score on d > 1, NaN under a
/// numeric statistic), too few samples for the split.
pub fn audit_samples(a: &SampleSet, b: &SampleSet, opts: &SamplesOptions) -> Result<SamplesAudit> {
    opts.validate()?;
    if a.d != b.d {
        return Err(Error::invalid(
            "dimension of B",
            format!("{} ({})", b.d, b.source),
            &format!("equal to the dimension of A ({}, {})", a.d, a.source),
        ));
    }
    let d = a.d;
    let stat = match opts.statistic {
        SampleStatistic::Auto if d == 1 => SampleStatistic::Value,
        SampleStatistic::Auto => SampleStatistic::Projection,
        s @ (SampleStatistic::Value | SampleStatistic::Score) if d != 1 => {
            return Err(Error::invalid(
                "statistic",
                s,
                &format!("used on one column (the samples have d = {d}; use norm, projection or exact-bits)"),
            ))
        }
        s => s,
    };
    let fitted = matches!(
        stat,
        SampleStatistic::Projection | SampleStatistic::ExactBits
    );
    let pa = split(a, opts, 0, fitted)?;
    let pb = split(b, opts, 1, fitted)?;
    crate::limits::check_deadline("audit-samples (split)")?;
    let (f, detail) = fit(stat, a, b, &pa.fit, &pb.fit)?;
    let ca = sorted_stat(&f, a, &pa.choose, "A")?;
    let cb = sorted_stat(&f, b, &pb.choose, "B")?;
    let ma = sorted_stat(&f, a, &pa.main, "A")?;
    let mb = sorted_stat(&f, b, &pb.main, "B")?;
    crate::limits::check_deadline("audit-samples (statistic)")?;
    let th = thresholds(&ca, &cb);
    let select = ThresholdTable::from_sorted(&ca, &cb, &th)?;
    let evaluate = ThresholdTable::from_sorted(&ma, &mb, &th)?;
    let beta = 1.0 - opts.confidence;
    let region = held_out_region(&select, &evaluate, opts.delta, beta)?;
    let eps_lb = region.eps_lb;
    let eps_lb_strict = strict_eps_lb(&region)?;
    let verdict = if eps_lb_strict > opts.eps {
        Verdict::Violation
    } else {
        Verdict::Ok
    };
    let pilot = |p: &Parts| (p.fit.len() + p.choose.len()) as u64;
    let split = format!(
        "each file permuted by ChaCha8 (seed {}, streams {:#x}/{:#x}); the first ceil({} n) samples of each permutation are the pilot{}, the rest the main part",
        opts.seed,
        SPLIT_STREAM[0],
        SPLIT_STREAM[1],
        opts.pilot_fraction,
        if fitted {
            " (its first half fits the statistic, its second half chooses the region)"
        } else {
            " (it chooses the region)"
        }
    );
    Ok(SamplesAudit {
        source_a: a.source.clone(),
        source_b: b.source.clone(),
        dim: d,
        dtype_a: a.dtype,
        dtype_b: b.dtype,
        eps_claimed: opts.eps,
        delta: opts.delta,
        confidence: opts.confidence,
        statistic_requested: opts.statistic,
        statistic: stat,
        statistic_detail: detail,
        seed: opts.seed,
        pilot_fraction: opts.pilot_fraction,
        split,
        n_a: a.len() as u64,
        n_b: b.len() as u64,
        pilot_a: pilot(&pa),
        pilot_b: pilot(&pb),
        fit_a: pa.fit.len() as u64,
        fit_b: pb.fit.len() as u64,
        main_a: pa.main.len() as u64,
        main_b: pb.main.len() as u64,
        thresholds: th.len() as u64,
        region,
        eps_lb,
        eps_lb_strict,
        strict_confidence: 1.0 - STRICT_BETA,
        verdict,
    })
}

#[cfg(test)]
mod tests;
