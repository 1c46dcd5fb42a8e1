//! Golden verification: every row of `golden/*.csv` (header
//! `id,quantity,family,params,value,digits,source`, values computed independently with mpmath)
//! is evaluated with [`eval::evaluate`] at the row's digits capped at `MAX_GOLDEN_DIGITS`, and
//! the agreement with the golden value is compared with the digits the code certified.
//!
//! A row passes when the computation succeeds and the number of agreeing significant digits is at
//! least the number certified (the golden values carry far more digits than are asked for, so
//! their own error does not count). A row whose computation fails, or whose value disagrees
//! beyond its certified digits, is a failure and is listed.

use crate::error::{Error, Result};
use crate::eval::{self, EvalOptions, Row};
use crate::numeric::mp::agreement_digits;
use rayon::prelude::*;
use rug::Float;
use std::path::{Path, PathBuf};

/// Digits requested of the code for a golden row: the row's digits, capped here.
pub(crate) const MAX_GOLDEN_DIGITS: u32 = 30;

/// Why a golden row has no computed value.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum RowFailure {
    /// The evaluation failed.
    #[error("line {line}: {error}")]
    Eval {
        /// The row's line in its file.
        line: usize,
        /// The evaluation's error.
        error: Error,
    },
    /// The table's own value does not parse as a number.
    #[error("golden value {value:?} unreadable: {reason}")]
    Unreadable {
        /// The value as written in the table.
        value: String,
        /// The parser's message.
        reason: String,
    },
}

/// One checked golden row.
#[derive(Clone, Debug)]
pub(crate) struct GoldenCheck {
    /// The file (name only).
    pub file: String,
    /// The row (id, quantity, family, params).
    pub row: Row,
    /// Digits the table claims for its value.
    pub golden_digits: u32,
    /// Digits requested of the code.
    pub requested: u32,
    /// The golden value (text).
    pub golden: String,
    /// The computed value and its certified digits, or why there is none.
    pub computed: std::result::Result<(String, u32), RowFailure>,
    /// Agreement in significant digits between computed and golden values.
    pub agreement: f64,
}

impl GoldenCheck {
    /// Whether the row passes: computed, and agreement ≥ certified digits.
    pub(crate) fn passed(&self) -> bool {
        match &self.computed {
            Ok((_, digits)) => self.agreement >= f64::from(*digits),
            Err(_) => false,
        }
    }
}

/// The outcome of a golden verification.
#[derive(Clone, Debug, Default)]
pub(crate) struct GoldenSummary {
    /// Files read.
    pub files: Vec<String>,
    /// Every checked row, in file then row order.
    pub checks: Vec<GoldenCheck>,
    /// Rows that could not be read (file, line, message).
    pub unreadable: Vec<String>,
}

impl GoldenSummary {
    /// Number of passing rows.
    pub(crate) fn passed(&self) -> usize {
        self.checks.iter().filter(|c| c.passed()).count()
    }

    /// The failing rows.
    pub(crate) fn failures(&self) -> Vec<&GoldenCheck> {
        self.checks.iter().filter(|c| !c.passed()).collect()
    }
}

/// The `*.csv` files of `dir`, sorted.
pub(crate) fn golden_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let rd = std::fs::read_dir(dir).map_err(|e| {
        Error::Io(format!(
            "cannot list golden tables in {}: {e}",
            dir.display()
        ))
    })?;
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "csv"))
        .collect();
    v.sort();
    Ok(v)
}

struct GoldenRow {
    file: String,
    row: Row,
    value: String,
    digits: u32,
}

fn read_file(path: &Path, unreadable: &mut Vec<String>) -> Result<Vec<GoldenRow>> {
    let file = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read(path)
        .map_err(|e| Error::Io(format!("cannot read {}: {e}", path.display())))?;
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(text.as_slice());
    let mut out = Vec::new();
    for rec in rdr.records() {
        match rec {
            Ok(r) => {
                let line = r.position().map(|p| p.line() as usize).unwrap_or(0);
                let f = |k: usize| r.get(k).unwrap_or("").to_string();
                if r.len() < 6 {
                    unreadable.push(format!(
                        "{file}:{line}: expected id,quantity,family,params,value,digits,source"
                    ));
                    continue;
                }
                let digits = match f(5).parse::<u32>() {
                    Ok(d) if d >= 1 => d,
                    _ => {
                        unreadable.push(format!("{file}:{line}: bad digits {:?}", f(5)));
                        continue;
                    }
                };
                out.push(GoldenRow {
                    file: file.clone(),
                    row: Row {
                        line,
                        id: f(0),
                        quantity: f(1),
                        family: f(2),
                        params: f(3),
                    },
                    value: f(4),
                    digits,
                });
            }
            Err(e) => unreadable.push(format!("{file}: unreadable CSV record: {e}")),
        }
    }
    Ok(out)
}

/// Verifies every golden table in `dir` (rows evaluated in parallel; output in file order).
/// `cap` caps the digits requested (at most [`MAX_GOLDEN_DIGITS`]).
pub(crate) fn verify_dir(dir: &Path, cap: u32) -> Result<GoldenSummary> {
    let cap = cap.clamp(1, MAX_GOLDEN_DIGITS);
    let files = golden_files(dir)?;
    let mut unreadable = Vec::new();
    let mut rows = Vec::new();
    for f in &files {
        rows.extend(read_file(f, &mut unreadable)?);
    }
    // The rows run on rayon's threads: they take the caller's time limits with them (the limits
    // are thread-local; `report --max-seconds 1` used to go on for 30 s here).
    let limits = crate::limits::carry();
    let checks: Vec<GoldenCheck> = rows
        .into_par_iter()
        .map(|g| limits.run(|| check_row(g, cap)))
        .collect();
    Ok(GoldenSummary {
        files: files
            .iter()
            .map(|f| {
                f.file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect(),
        checks,
        unreadable,
    })
}

fn check_row(g: GoldenRow, cap: u32) -> GoldenCheck {
    let requested = g.digits.min(cap);
    let opts = EvalOptions {
        digits: requested,
        ..EvalOptions::default()
    };
    let golden_f = Float::parse(&g.value).map(|v| Float::with_val(512, v));
    let (computed, agreement) = match (eval::evaluate(&g.row, &opts), golden_f) {
        (Ok(c), Ok(gv)) => {
            let agree = agreement_digits(&c.value, &gv);
            (
                Ok((eval::format_value(&c.value, c.digits), c.digits)),
                agree,
            )
        }
        (Err(error), _) => (
            Err(RowFailure::Eval {
                line: g.row.line,
                error,
            }),
            0.0,
        ),
        (_, Err(e)) => (
            Err(RowFailure::Unreadable {
                value: g.value.clone(),
                reason: e.to_string(),
            }),
            0.0,
        ),
    };
    GoldenCheck {
        file: g.file,
        row: g.row,
        golden_digits: g.digits,
        requested,
        golden: g.value,
        computed,
        agreement,
    }
}

#[cfg(test)]
mod tests {
    use super::verify_dir;

    #[test]
    fn verifies_a_small_table_and_reports_failures() {
        let dir = std::env::temp_dir().join(format!("dpaudit-golden-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Values: mpmath dps 50. Gaussian D_2(N(0,1)‖N(1,1)) = α/2 = 1 exactly; KL = 1/2 exactly.
        // The third row's value is deliberately wrong in its 8th digit; the fourth is malformed.
        std::fs::write(
            dir.join("t.csv"),
            "id,quantity,family,params,value,digits,source\n\
             a,renyi,gaussian,mu1=0;mu2=1;sigma=1;alpha=2,1.0,60,exact\n\
             b,kl,gaussian,mu1=0;mu2=1;sigma=1,0.5,60,exact\n\
             c,kl,gaussian,mu1=0;mu2=1;sigma=1,0.50000001,20,wrong on purpose\n\
             d,kl,gaussian,mu1=0;mu2=1;sigma=0,0.5,20,bad sigma\n",
        )
        .unwrap();
        let s = verify_dir(&dir, 30).unwrap();
        assert_eq!(s.checks.len(), 4);
        assert_eq!(s.passed(), 2);
        let fails: Vec<&str> = s.failures().iter().map(|c| c.row.id.as_str()).collect();
        assert_eq!(fails, ["c", "d"]);
        assert_eq!(s.checks[0].requested, 30);
        assert_eq!(s.checks[2].requested, 20);
        assert!(s.table().to_bytes().unwrap().len() > 100);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
