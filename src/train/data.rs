//! Datasets for the training experiments: a dense row-major table with ±1 (or real) labels,
//! readers for CSV and LIBSVM/svmlight files, and a seeded synthetic generator.
//!
//! The synthetic generator draws features X_j ~ N(0, Σ) with the AR(1) (Toeplitz) covariance
//! Σ_kl = r^|k−l| — the Gaussian-features model of HMB Prop. 3 — and labels
//! y_j = sign(⟨w, X_j⟩ + ξ_j) with a seeded direction w and ξ_j ~ N(0, noise²). See
//! `docs/training.md#data`.

use crate::error::{Error, Result};
use crate::mechanisms::stream::chunk_rng;
use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};
use rayon::prelude::*;
use std::path::Path;

/// Largest dimension (feature index) of a dense dataset: 2^24. Data are stored densely, so a
/// LIBSVM file whose largest index is 4·10⁹ would need 32 GB per record; such files are refused
/// at the offending line before anything is allocated.
pub const MAX_FEATURES: u64 = 1 << 24;

/// Reads a data file as text after checking that it, and the table parsed from it (at most 5
/// bytes per byte of text: an f64 per two characters, plus the text), fit in memory.
fn read_data_file(path: &Path) -> Result<String> {
    let len = std::fs::metadata(path).map_err(|e| io_err(path, e))?.len();
    crate::limits::check_memory(
        "data file size",
        format!("{len} bytes ({})", path.display()),
        "the file and the table parsed from it",
        Some(u128::from(len) * 5),
    )?;
    std::fs::read_to_string(path).map_err(|e| io_err(path, e))
}

/// Refuses a dense table of `n` records of dimension `d` that exceeds [`MAX_FEATURES`] or the
/// available memory (`copies` tables of `n·d` doubles: the data and the copies training makes).
pub(crate) fn check_table_size(n: usize, d: usize, copies: u128) -> Result<()> {
    crate::limits::check_max("d (dimension)", d as u128, u128::from(MAX_FEATURES))?;
    crate::limits::check_memory(
        "n x d",
        format!("{n} x {d}"),
        "the dense data",
        crate::limits::product(&[n as u128, d as u128, 8, copies]),
    )
}

/// Records per random stream in [`synthetic`] (output is independent of the thread count).
const SYNTH_CHUNK: usize = 4096;

/// A dense dataset: `n` records of dimension `d`, row-major in `x`, labels in `y`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// Number of records.
    pub n: usize,
    /// Dimension.
    pub d: usize,
    /// Features, row-major (`x[j*d + k]` is feature k of record j).
    pub x: Vec<f64>,
    /// Labels.
    pub y: Vec<f64>,
}

fn io_err(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

fn parse_f64(what: &str, text: &str) -> Result<f64> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|e: std::num::ParseFloatError| Error::Parse {
            what: what.to_string(),
            text: text.to_string(),
            reason: e.to_string(),
        })?;
    if !v.is_finite() {
        return Err(Error::Parse {
            what: what.to_string(),
            text: text.to_string(),
            reason: "not finite".into(),
        });
    }
    Ok(v)
}

impl Dataset {
    /// Builds a dataset, checking shapes and finiteness.
    pub fn new(d: usize, x: Vec<f64>, y: Vec<f64>) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("d", 0, "a dimension >= 1"));
        }
        if y.is_empty() {
            return Err(Error::invalid("n", 0, "at least one record"));
        }
        if x.len() != d * y.len() {
            return Err(Error::invalid(
                "x.len()",
                x.len(),
                &format!("n * d = {} * {d}", y.len()),
            ));
        }
        if let Some(v) = x.iter().chain(&y).find(|v| !v.is_finite()) {
            return Err(Error::invalid("data value", v, "finite"));
        }
        Ok(Dataset {
            n: y.len(),
            d,
            x,
            y,
        })
    }

    /// Record `j`'s features.
    pub fn row(&self, j: usize) -> &[f64] {
        &self.x[j * self.d..(j + 1) * self.d]
    }

    /// The sub-dataset of the given record indices (in that order).
    pub fn subset(&self, idx: &[usize]) -> Result<Self> {
        let mut x = Vec::with_capacity(idx.len() * self.d);
        let mut y = Vec::with_capacity(idx.len());
        for &j in idx {
            if j >= self.n {
                return Err(Error::invalid(
                    "record index",
                    j,
                    &format!("< n = {}", self.n),
                ));
            }
            x.extend_from_slice(self.row(j));
            y.push(self.y[j]);
        }
        Dataset::new(self.d, x, y)
    }

    /// Standardises every column to mean 0 and (population) standard deviation 1; constant
    /// columns are only centred.
    pub fn standardize(&mut self) {
        let (n, d) = (self.n as f64, self.d);
        for k in 0..d {
            let mean = (0..self.n).map(|j| self.x[j * d + k]).sum::<f64>() / n;
            let var = (0..self.n)
                .map(|j| (self.x[j * d + k] - mean).powi(2))
                .sum::<f64>()
                / n;
            let sd = if var > 0.0 { var.sqrt() } else { 1.0 };
            for j in 0..self.n {
                self.x[j * d + k] = (self.x[j * d + k] - mean) / sd;
            }
        }
    }

    /// Reads a CSV table with a header line; column `label_col` is the label, every other
    /// column a feature. Errors name the line and column that fail to parse.
    pub fn read_csv(path: &Path, label_col: usize) -> Result<Self> {
        let text = read_data_file(path)?;
        Self::parse_csv(&text, label_col)
    }

    /// [`Dataset::read_csv`] on text already in memory.
    pub fn parse_csv(text: &str, label_col: usize) -> Result<Self> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(true)
            .from_reader(text.as_bytes());
        let (mut x, mut y, mut d) = (Vec::new(), Vec::new(), None);
        for (i, rec) in rdr.records().enumerate() {
            let line = i + 2;
            let rec = rec.map_err(|e| Error::Io(format!("CSV line {line}: {e}")))?;
            if label_col >= rec.len() {
                return Err(Error::invalid(
                    "label_col",
                    label_col,
                    &format!("< number of columns {} (line {line})", rec.len()),
                ));
            }
            let width = rec.len() - 1;
            if *d.get_or_insert(width) != width {
                return Err(Error::Parse {
                    what: format!("CSV line {line}"),
                    text: format!("{} columns", rec.len()),
                    reason: format!("expected {} columns", d.unwrap_or(0) + 1),
                });
            }
            for (c, field) in rec.iter().enumerate() {
                let v = parse_f64(&format!("CSV line {line} column {}", c + 1), field)?;
                if c == label_col {
                    y.push(v);
                } else {
                    x.push(v);
                }
            }
        }
        Dataset::new(d.unwrap_or(0), x, y)
    }

    /// Reads a LIBSVM/svmlight file (`label idx:val idx:val …`, 1-based indices, `#` comments).
    /// The dimension is the largest index seen, or `dim` if given (then larger indices are
    /// errors).
    pub fn read_libsvm(path: &Path, dim: Option<usize>) -> Result<Self> {
        let text = read_data_file(path)?;
        Self::parse_libsvm(&text, dim)
    }

    /// [`Dataset::read_libsvm`] on text already in memory. Indices above [`MAX_FEATURES`] are
    /// refused at their line, and the dense table is sized (against the available memory)
    /// before it is allocated.
    pub fn parse_libsvm(text: &str, dim: Option<usize>) -> Result<Self> {
        if let Some(dm) = dim {
            crate::limits::check_max("d", dm as u128, u128::from(MAX_FEATURES))?;
        }
        let mut rows: Vec<Vec<(usize, f64)>> = Vec::new();
        let mut y = Vec::new();
        let mut dmax = 0usize;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let body = raw.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let mut toks = body.split_whitespace();
            let label = toks.next().unwrap_or("");
            y.push(parse_f64(&format!("LIBSVM line {line} label"), label)?);
            let mut row = Vec::new();
            for tok in toks {
                let (k, v) = tok.split_once(':').ok_or_else(|| Error::Parse {
                    what: format!("LIBSVM line {line} entry"),
                    text: tok.to_string(),
                    reason: "expected index:value".into(),
                })?;
                let idx: u64 = k.parse().map_err(|_| Error::Parse {
                    what: format!("LIBSVM line {line} index"),
                    text: k.to_string(),
                    reason: format!("expected an integer in [1, {MAX_FEATURES}]"),
                })?;
                if idx > MAX_FEATURES {
                    return Err(Error::invalid(
                        &format!("LIBSVM line {line} index"),
                        idx,
                        &format!("<= {MAX_FEATURES} (the largest dimension of dense data)"),
                    ));
                }
                let idx = idx as usize;
                if idx == 0 {
                    return Err(Error::Parse {
                        what: format!("LIBSVM line {line} index"),
                        text: k.to_string(),
                        reason: "indices are 1-based".into(),
                    });
                }
                if let Some(dm) = dim {
                    if idx > dm {
                        return Err(Error::invalid(
                            &format!("LIBSVM line {line} index"),
                            idx,
                            &format!("<= dim = {dm}"),
                        ));
                    }
                }
                dmax = dmax.max(idx);
                row.push((idx - 1, parse_f64(&format!("LIBSVM line {line} value"), v)?));
            }
            rows.push(row);
        }
        let d = dim.unwrap_or(dmax);
        check_table_size(rows.len(), d, 1)?;
        let mut x = vec![0.0; rows.len() * d];
        for (j, row) in rows.iter().enumerate() {
            for &(k, v) in row {
                x[j * d + k] = v;
            }
        }
        Dataset::new(d, x, y)
    }
}

/// Parameters of the synthetic generator (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SyntheticSpec {
    /// Records (the paper's ijcnn1: 141,691).
    pub n: usize,
    /// Dimension (ijcnn1: 22).
    pub d: usize,
    /// AR(1) correlation r of Σ_kl = r^|k−l|, in (−1, 1).
    pub corr: f64,
    /// Standard deviation of the label noise ξ.
    pub label_noise: f64,
}

impl SyntheticSpec {
    /// n records of dimension d with the default r = 0.5 and label noise 0.5.
    pub fn with_size(n: usize, d: usize) -> Self {
        SyntheticSpec {
            n,
            d,
            corr: 0.5,
            label_noise: 0.5,
        }
    }

    /// The ijcnn1-scale default: n = 141,691, d = 22, r = 0.5, label noise 0.5.
    pub fn ijcnn1_scale() -> Self {
        Self::with_size(141_691, 22)
    }
}

/// Draws one AR(1) Gaussian feature vector: x_0 = z_0, x_k = r x_{k−1} + √(1−r²) z_k, which has
/// exactly the covariance Σ_kl = r^|k−l|.
fn ar1_row(rng: &mut impl rand::Rng, r: f64, out: &mut [f64]) {
    let s = (1.0 - r * r).sqrt();
    let mut prev = 0.0;
    for (k, o) in out.iter_mut().enumerate() {
        let z: f64 = StandardNormal.sample(rng);
        *o = if k == 0 { z } else { r * prev + s * z };
        prev = *o;
    }
}

/// Seeded synthetic dataset with Gaussian features N(0, Σ), Σ_kl = r^|k−l|, and ±1 labels
/// (module docs). Bit-identical for a given seed whatever the number of threads: records are
/// drawn in chunks of 4096 from `chunk_rng(seed, 1 + chunk)`; stream 0 draws w.
pub fn synthetic(spec: &SyntheticSpec, seed: u64) -> Result<Dataset> {
    if spec.n == 0 {
        return Err(Error::invalid("n", spec.n, "at least 1"));
    }
    if spec.d == 0 {
        return Err(Error::invalid("d", spec.d, "at least 1"));
    }
    check_table_size(spec.n, spec.d, 1)?;
    if spec.corr.is_nan() || spec.corr.abs() >= 1.0 {
        return Err(Error::invalid("corr", spec.corr, "in (-1, 1)"));
    }
    if !(spec.label_noise >= 0.0 && spec.label_noise.is_finite()) {
        return Err(Error::invalid("label_noise", spec.label_noise, ">= 0"));
    }
    let d = spec.d;
    let mut wrng = chunk_rng(seed, 0);
    let w: Vec<f64> = (0..d).map(|_| StandardNormal.sample(&mut wrng)).collect();
    let mut x = vec![0.0; spec.n * d];
    let mut y = vec![0.0; spec.n];
    // `--max-seconds` (a thread-local deadline, taken to rayon's threads): chunks past it are
    // skipped and the generation fails with the time-limit error below.
    let deadline = crate::limits::current();
    let expired = || deadline.is_some_and(|dl| dl.check("").is_err());
    x.par_chunks_mut(SYNTH_CHUNK * d)
        .zip(y.par_chunks_mut(SYNTH_CHUNK))
        .enumerate()
        .for_each(|(c, (xc, yc))| {
            if expired() {
                return;
            }
            let mut rng = chunk_rng(seed, 1 + c as u64);
            for (row, yj) in xc.chunks_mut(d).zip(yc.iter_mut()) {
                ar1_row(&mut rng, spec.corr, row);
                let xi: f64 = rng.sample(StandardNormal);
                let s: f64 =
                    row.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() + spec.label_noise * xi;
                *yj = if s >= 0.0 { 1.0 } else { -1.0 };
            }
        });
    if let Some(dl) = deadline {
        dl.check("synthetic data generation")?;
    }
    Dataset::new(d, x, y)
}

/// The covariance Σ_kl = r^|k−l| of [`synthetic`], row-major d×d.
pub fn ar1_covariance(d: usize, r: f64) -> Vec<f64> {
    let mut s = vec![0.0; d * d];
    for k in 0..d {
        for l in 0..d {
            s[k * d + l] = r.powi((k as i32 - l as i32).abs());
        }
    }
    s
}
