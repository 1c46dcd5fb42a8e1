//! Output files: atomic writes and the CSV tables of a report.
//!
//! Every file is written to `name.tmp` (PNG: `name.tmp.png`, since the encoder picks the format
//! from the extension) and then renamed over `name`, so a reader never sees a half-written file
//! and an interrupted run leaves the previous file intact. CSV tables hold figures only (no
//! timestamps, no timings), so two runs with the same seeds write byte-identical CSVs.

pub(crate) use crate::compare::fmt::{fmt_num, fmt_sig};
use crate::error::{Error, Result};
use std::path::Path;

pub(crate) use crate::fsio::{tmp_path, write_atomic};

/// One column of [`Table::of`]: its header and how a row shows in it.
pub(crate) type Column<T> = (&'static str, fn(&T) -> String);

/// A CSV table built in memory and written atomically.
#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table with this header.
    pub fn new(header: &[&str]) -> Self {
        Table {
            header: header.iter().map(|s| s.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// A table of `rows` with one column per `(header, cell)` pair, so that a header and the
    /// cell under it are written side by side and cannot drift apart.
    pub fn of<T>(rows: impl IntoIterator<Item = T>, columns: &[Column<T>]) -> Self {
        let header: Vec<&str> = columns.iter().map(|c| c.0).collect();
        let mut t = Table::new(&header);
        for r in rows {
            t.push(columns.iter().map(|c| (c.1)(&r)).collect());
        }
        t
    }

    /// Appends a row (must have as many fields as the header).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len());
        self.rows.push(row);
    }

    /// Appends a row that fills the named columns and leaves the others empty (a note row
    /// such as a violation in a table of figures).
    pub fn push_sparse(&mut self, cells: &[(&str, String)]) {
        debug_assert!(cells
            .iter()
            .all(|(k, _)| self.header.iter().any(|h| h == k)));
        let row = self
            .header
            .iter()
            .map(|h| {
                cells
                    .iter()
                    .find(|(k, _)| k == h)
                    .map(|(_, v)| v.clone())
                    .unwrap_or_default()
            })
            .collect();
        self.rows.push(row);
    }

    /// The CSV text.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&self.header)
            .map_err(|e| Error::Io(e.to_string()))?;
        for r in &self.rows {
            w.write_record(r).map_err(|e| Error::Io(e.to_string()))?;
        }
        w.into_inner().map_err(|e| Error::Io(e.to_string()))
    }

    /// The table as Markdown: the header row, its `|---|` rule, then one line per row. Cells go
    /// in as they are: a cell that may hold `|` or a newline must be escaped by the caller.
    pub fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let mut o = line(&self.header);
        o.push_str(&format!("|{}\n", "---|".repeat(self.header.len())));
        for r in &self.rows {
            o.push_str(&line(r));
        }
        o
    }

    /// Writes the table to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes()?)
    }
}

impl crate::compare::golden::GoldenSummary {
    /// The CSV table of every row (deterministic: no timings).
    pub fn table(&self) -> Table {
        let mut t = Table::of(
            &self.checks,
            &[
                ("file", |c| c.file.clone()),
                ("id", |c| c.row.id.clone()),
                ("quantity", |c| c.row.quantity.clone()),
                ("family", |c| c.row.family.clone()),
                ("params", |c| c.row.params.clone()),
                ("golden_value", |c| c.golden.clone()),
                ("golden_digits", |c| c.golden_digits.to_string()),
                ("requested_digits", |c| c.requested.to_string()),
                ("computed_value", |c| {
                    c.computed
                        .as_ref()
                        .map_or(String::new(), |(v, _)| v.clone())
                }),
                ("certified_digits", |c| {
                    c.computed
                        .as_ref()
                        .map_or(String::new(), |(_, d)| d.to_string())
                }),
                ("agreement_digits", |c| {
                    if c.agreement.is_infinite() {
                        "exact".to_string()
                    } else {
                        fmt_sig(c.agreement, 4)
                    }
                }),
                ("status", |c| {
                    if c.passed() { "pass" } else { "FAIL" }.into()
                }),
                ("error", |c| {
                    c.computed
                        .as_ref()
                        .err()
                        .map_or(String::new(), |e| e.to_string())
                }),
            ],
        );
        for u in &self.unreadable {
            t.push_sparse(&[
                ("file", u.clone()),
                ("status", "FAIL".into()),
                ("error", "unreadable row".into()),
            ]);
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn number_format() {
        assert_eq!(fmt_num(0.5), "0.5");
        assert_eq!(fmt_num(1.0 / 3.0), "0.333333333333");
        assert_eq!(fmt_num(1234.5678), "1234.5678");
        assert_eq!(fmt_num(1.5e-7), "1.5e-7");
        assert_eq!(fmt_num(0.0), "0");
        assert_eq!(fmt_num(f64::INFINITY), "inf");
        assert_eq!(fmt_sig(2.0 / 3.0, 4), "0.6667");
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_tmp() {
        let dir = std::env::temp_dir().join(format!("dpaudit-csv-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.csv");
        let mut t = Table::new(&["a", "b"]);
        t.push(vec!["1".into(), "x,y".into()]);
        t.write(&p).unwrap();
        t.write(&p).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "a,b\n1,\"x,y\"\n");
        assert!(!tmp_path(&p).exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
