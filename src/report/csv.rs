//! Output files: atomic writes and the CSV tables of a report.
//!
//! Every file is written to `name.tmp` (PNG: `name.tmp.png`, since the encoder picks the format
//! from the extension) and then renamed over `name`, so a reader never sees a half-written file
//! and an interrupted run leaves the previous file intact. CSV tables hold figures only (no
//! timestamps, no timings), so two runs with the same seeds write byte-identical CSVs.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: `path.tmp`, then `rename`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = tmp_path(path);
    std::fs::write(&tmp, bytes)
        .map_err(|e| Error::Io(format!("cannot write {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(|e| {
        Error::Io(format!(
            "cannot rename {} to {}: {e}",
            tmp.display(),
            path.display()
        ))
    })
}

/// `dir/name.tmp` for `dir/name`.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// A CSV table built in memory and written atomically.
#[derive(Clone, Debug, Default)]
pub struct Table {
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

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
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

/// Formats a double for tables: 12 significant digits, plain notation in [1e-4, 1e6), otherwise
/// scientific; "inf"/"nan" spelled out.
pub fn fmt_num(x: f64) -> String {
    fmt_sig(x, 12)
}

/// Formats a double with `sig` significant digits (see [`fmt_num`]).
pub fn fmt_sig(x: f64, sig: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-4..1e6).contains(&a) {
        let mag = a.log10().floor() as i32;
        let decimals = (sig as i32 - 1 - mag).max(0) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{x:.prec$e}", prec = sig - 1);
        // trim zeros of the mantissa: 1.50000e-7 -> 1.5e-7
        match s.split_once('e') {
            Some((m, e)) if m.contains('.') => {
                format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
            }
            _ => s,
        }
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
