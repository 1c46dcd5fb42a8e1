//! The report's CSV tables (built on [`crate::fsio::Table`]) and its number formats.
//!
//! Every file is written to `name.tmp` (PNG: `name.tmp.png`, since the encoder picks the format
//! from the extension) and then renamed over `name`, so a reader never sees a half-written file
//! and an interrupted run leaves the previous file intact. CSV tables hold figures only (no
//! timestamps, no timings), so two runs with the same seeds write byte-identical CSVs.

pub(crate) use crate::compare::fmt::{fmt_num, fmt_sig};
pub(crate) use crate::fsio::{tmp_path, write_atomic, Table};

impl crate::compare::golden::GoldenSummary {
    /// The CSV table of every row (deterministic: no timings).
    pub(crate) fn table(&self) -> Table {
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
    use super::{fmt_num, fmt_sig, tmp_path, Table};

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
