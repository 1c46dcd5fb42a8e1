//! Output files: atomic writes, and the tables written as CSV or Markdown.
//!
//! Every output goes to `name.tmp` and is then renamed over `name`, so a reader never sees a
//! half-written file and an interrupted run leaves the previous file intact. A [`Table`] quotes
//! its CSV fields through the `csv` crate, so a header or cell holding a comma stays one field.

use crate::error::{Error, Result};
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: `path.tmp`, then `rename`.
pub(crate) fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> Result<()> {
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
pub(crate) fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

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
    pub(crate) fn new<S: AsRef<str>>(header: &[S]) -> Self {
        Table {
            header: header.iter().map(|s| s.as_ref().to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// A table of `rows` with one column per `(header, cell)` pair, so that a header and the
    /// cell under it are written side by side and cannot drift apart.
    pub(crate) fn of<T>(rows: impl IntoIterator<Item = T>, columns: &[Column<T>]) -> Self {
        let header: Vec<&str> = columns.iter().map(|c| c.0).collect();
        let mut t = Table::new(&header);
        for r in rows {
            t.push(columns.iter().map(|c| (c.1)(&r)).collect());
        }
        t
    }

    /// Appends a row (must have as many fields as the header).
    pub(crate) fn push(&mut self, row: Vec<String>) {
        debug_assert_eq!(row.len(), self.header.len());
        self.rows.push(row);
    }

    /// Appends a row that fills the named columns and leaves the others empty (a note row
    /// such as a violation in a table of figures).
    pub(crate) fn push_sparse(&mut self, cells: &[(&str, String)]) {
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
    pub(crate) fn to_bytes(&self) -> Result<Vec<u8>> {
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
    pub(crate) fn markdown(&self) -> String {
        let line = |cells: &[String]| format!("| {} |\n", cells.join(" | "));
        let mut o = line(&self.header);
        o.push_str(&format!("|{}\n", "---|".repeat(self.header.len())));
        for r in &self.rows {
            o.push_str(&line(r));
        }
        o
    }

    /// Writes the table to `path` atomically.
    pub(crate) fn write(&self, path: &Path) -> Result<()> {
        write_atomic(path, &self.to_bytes()?)
    }
}

#[cfg(test)]
mod tests {
    use super::Table;

    #[test]
    fn a_table_renders_as_csv_and_markdown() {
        let rows = [(1, "a, b"), (2, "c")];
        let mut t = Table::of(
            &rows,
            &[
                ("n", |r| r.0.to_string()),
                ("label (x, y)", |r| r.1.to_string()),
            ],
        );
        t.push_sparse(&[("label (x, y)", "note".into())]);
        let csv = String::from_utf8(t.to_bytes().unwrap()).unwrap();
        assert_eq!(csv, "n,\"label (x, y)\"\n1,\"a, b\"\n2,c\n,note\n");
        assert_eq!(
            t.markdown(),
            "| n | label (x, y) |\n|---|---|\n| 1 | a, b |\n| 2 | c |\n|  | note |\n"
        );
    }
}
