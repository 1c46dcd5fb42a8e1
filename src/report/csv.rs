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

    /// Appends a row (must have as many fields as the header).
    pub fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len());
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

    /// Writes the table to `path` atomically.
    pub fn write(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes()?)
    }
}

impl crate::compare::golden::GoldenSummary {
    /// The CSV table of every row (deterministic: no timings).
    pub fn table(&self) -> Table {
        let mut t = Table::new(&[
            "file",
            "id",
            "quantity",
            "family",
            "params",
            "golden_value",
            "golden_digits",
            "requested_digits",
            "computed_value",
            "certified_digits",
            "agreement_digits",
            "status",
            "error",
        ]);
        for c in &self.checks {
            let (val, dig, err) = match &c.computed {
                Ok((v, d)) => (v.clone(), d.to_string(), String::new()),
                Err(e) => (String::new(), String::new(), e.to_string()),
            };
            let agree = if c.agreement.is_infinite() {
                "exact".to_string()
            } else {
                fmt_sig(c.agreement, 4)
            };
            t.push(vec![
                c.file.clone(),
                c.row.id.clone(),
                c.row.quantity.clone(),
                c.row.family.clone(),
                c.row.params.clone(),
                c.golden.clone(),
                c.golden_digits.to_string(),
                c.requested.to_string(),
                val,
                dig,
                agree,
                if c.passed() { "pass" } else { "FAIL" }.to_string(),
                err,
            ]);
        }
        for u in &self.unreadable {
            t.push(vec![
                u.clone(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                String::new(),
                "FAIL".into(),
                "unreadable row".into(),
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
