//! Readers of a user's sample files: CSV (one sample per row) and NumPy `.npy` (a strict reader
//! of the format's versions 1.0, 2.0 and 3.0). Both size what they will allocate against
//! [`crate::limits::check_memory`] before allocating, and refuse anything they cannot read
//! exactly with an error naming the file and the line and column (CSV) or the byte offset and
//! header field (`.npy`).

use std::path::Path;

use super::{Dtype, SampleSet};
use crate::error::{Error, Result};

/// Bad rows listed in one CSV error before "… and N more".
const MAX_LISTED: usize = 20;

/// Largest integer magnitude an `i8` column may hold: beyond 2⁵³ an integer has no exact f64.
const MAX_EXACT_INT: i64 = 1 << 53;

/// An I/O or format error about `path`.
fn file_error(path: &Path, what: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {what}", path.display()))
}

/// The whole file, after checking that `factor` × its size fits in memory (the text itself and
/// the f64 values it can hold).
fn read_bytes(path: &Path, factor: u128) -> Result<Vec<u8>> {
    let meta =
        std::fs::metadata(path).map_err(|e| file_error(path, format!("cannot read: {e}")))?;
    if !meta.is_file() {
        return Err(file_error(path, "not a regular file"));
    }
    let size = u128::from(meta.len());
    crate::limits::check_memory(
        "sample file",
        path.display(),
        "reading it",
        size.checked_mul(factor),
    )?;
    std::fs::read(path).map_err(|e| file_error(path, format!("cannot read: {e}")))
}

/// Reads `path` as CSV or `.npy` by its extension (`.csv`, `.txt`, `.npy`; case-insensitive).
pub(super) fn read_path(path: &Path) -> Result<SampleSet> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    match ext.as_deref() {
        Some("npy") => {
            let bytes = read_bytes(path, 2)?;
            parse_npy(&bytes, path)
        }
        Some("csv" | "txt") => {
            // ≤ 1 value per 2 bytes of text ("0\n"): 8 bytes each, i.e. 4 × the size.
            let bytes = read_bytes(path, 5)?;
            let text = std::str::from_utf8(&bytes).map_err(|e| {
                file_error(
                    path,
                    format!("not UTF-8 text (byte offset {})", e.valid_up_to()),
                )
            })?;
            parse_csv(text, path)
        }
        _ => Err(file_error(
            path,
            "unknown extension: expected .csv, .txt (CSV) or .npy (NumPy)",
        )),
    }
}

/// Parses a program's output (see [`SampleSet::parse_output`]).
pub(super) fn parse_output(bytes: &[u8], name: &str, npy: Option<bool>) -> Result<SampleSet> {
    let path = Path::new(name);
    let is_npy = npy.unwrap_or_else(|| bytes.starts_with(NPY_MAGIC));
    if is_npy {
        return parse_npy(bytes, path);
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        file_error(
            path,
            format!(
                "not UTF-8 text (byte offset {}){}",
                e.valid_up_to(),
                if bytes.starts_with(NPY_MAGIC) {
                    ""
                } else {
                    "; a .npy output must start with the magic string \\x93NUMPY"
                }
            ),
        )
    })?;
    parse_csv(text, path)
}

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

/// Parses CSV text: one sample per line, its d coordinates separated by commas; blank lines and
/// lines starting with `#` are skipped; the first non-skipped line is a header if **none** of its
/// cells parses as a number (otherwise it is data). Every row must have the same number of
/// cells. A cell is a Rust/Python float literal (`1.5`, `-2e-3`, `inf`, `nan`). Every bad cell
/// of the file is found (up to [`MAX_LISTED`] listed, by line and column) and the file refused:
/// a sample dropped because it did not parse could be the very output that tells the sides
/// apart.
pub(super) fn parse_csv(text: &str, path: &Path) -> Result<SampleSet> {
    let mut d: Option<usize> = None;
    let mut values: Vec<f64> = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    let mut bad_count = 0usize;
    let mut seen_first = false;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if !seen_first {
            seen_first = true;
            if cells.iter().all(|c| c.parse::<f64>().is_err()) {
                d = Some(cells.len());
                continue;
            }
        }
        let want = *d.get_or_insert(cells.len());
        let mut note = |msg: String| {
            bad_count += 1;
            if bad.len() < MAX_LISTED {
                bad.push(msg);
            }
        };
        if cells.len() != want {
            note(format!(
                "line {line_no}: {} columns, expected {want}",
                cells.len()
            ));
            continue;
        }
        for (j, c) in cells.iter().enumerate() {
            match c.parse::<f64>() {
                Ok(v) => values.push(v),
                Err(_) => note(format!(
                    "line {line_no}, column {}: {c:?} is not a number",
                    j + 1
                )),
            }
        }
    }
    if bad_count > 0 {
        let more = if bad_count > bad.len() {
            format!("; … and {} more", bad_count - bad.len())
        } else {
            String::new()
        };
        return Err(file_error(
            path,
            format!(
                "{bad_count} bad cell(s) or row(s), file refused: {}{more}",
                bad.join("; ")
            ),
        ));
    }
    let d = d.unwrap_or(0);
    if values.is_empty() || d == 0 {
        return Err(file_error(path, "no samples (no data row)"));
    }
    SampleSet::build(d, values, Dtype::F64, path.display().to_string())
}

// ---------------------------------------------------------------------------------------------
// NumPy .npy
// ---------------------------------------------------------------------------------------------

/// The `.npy` magic string.
const NPY_MAGIC: &[u8] = b"\x93NUMPY";

/// Parses the bytes of a `.npy` file (format versions 1.0, 2.0, 3.0: magic, version, header
/// length (u16 for 1.0, u32 for 2.0/3.0, little-endian), a Python dict literal with exactly the
/// keys `descr`, `fortran_order`, `shape`, then the data). Accepted: `descr` one of `<f8`,
/// `<f4`, `<i8`, `<i4` or their big-endian `>` forms (converted); `fortran_order` False;
/// `shape` `(n,)` or `(n, d)` with n, d ≥ 1; the data exactly n·d·itemsize bytes. `i8` values
/// beyond ±2⁵³ (no exact f64) are refused.
pub(super) fn parse_npy(bytes: &[u8], path: &Path) -> Result<SampleSet> {
    let err = |offset: usize, what: String| file_error(path, format!("byte {offset}: {what}"));
    if bytes.len() < 8 || &bytes[..6] != NPY_MAGIC {
        return Err(err(
            0,
            "bad magic: not a .npy file (expected \\x93NUMPY)".into(),
        ));
    }
    let (major, minor) = (bytes[6], bytes[7]);
    let (len_size, utf8) = match (major, minor) {
        (1, 0) => (2usize, false),
        (2, 0) => (4, false),
        (3, 0) => (4, true),
        _ => {
            return Err(err(
                6,
                format!("format version {major}.{minor} (supported: 1.0, 2.0, 3.0)"),
            ))
        }
    };
    let start = 8 + len_size;
    if bytes.len() < start {
        return Err(err(8, "truncated: no header length".into()));
    }
    let header_len = if len_size == 2 {
        usize::from(u16::from_le_bytes([bytes[8], bytes[9]]))
    } else {
        u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize
    };
    let data_start = start
        .checked_add(header_len)
        .filter(|&e| e <= bytes.len())
        .ok_or_else(|| {
            err(
                8,
                format!(
                    "truncated: header length {header_len} runs past the end of the file ({} bytes)",
                    bytes.len()
                ),
            )
        })?;
    let raw = &bytes[start..data_start];
    let header = if utf8 {
        std::str::from_utf8(raw).map_err(|_| err(start, "header is not UTF-8".into()))?
    } else {
        if !raw.is_ascii() {
            return Err(err(start, "header is not ASCII (version 1.0/2.0)".into()));
        }
        std::str::from_utf8(raw).map_err(|_| err(start, "header is not ASCII".into()))?
    };
    let h = NpyHeader::parse(header).map_err(|m| err(start, format!("header: {m}")))?;
    let (n, d) = h.shape;
    let size = h.dtype.itemsize();
    let count = n.checked_mul(d);
    let need = count.and_then(|c| c.checked_mul(size));
    crate::limits::check_memory(
        "npy shape",
        format!("({n}, {d}) in {}", path.display()),
        "the samples",
        count.map(|c| c as u128 * 8),
    )?;
    let need = need.ok_or_else(|| err(start, format!("shape ({n}, {d}) overflows")))?;
    let data = &bytes[data_start..];
    if data.len() < need {
        return Err(err(
            data_start + data.len(),
            format!(
                "truncated: shape ({n}, {d}) of {} needs {need} data bytes, the file has {}",
                h.dtype.descr(),
                data.len()
            ),
        ));
    }
    if data.len() > need {
        return Err(err(
            data_start + need,
            format!(
                "{} bytes after the data of shape ({n}, {d}) of {}",
                data.len() - need,
                h.dtype.descr()
            ),
        ));
    }
    let mut values = Vec::with_capacity(n * d);
    for (k, c) in data.chunks_exact(size).enumerate() {
        values.push(h.dtype.decode(c).map_err(|m| {
            err(
                data_start + k * size,
                format!("element {k} (row {}, column {}): {m}", k / d + 1, k % d + 1),
            )
        })?);
    }
    let dtype = match h.dtype.kind {
        Kind::F8 => Dtype::F64,
        Kind::F4 => Dtype::F32,
        Kind::I8 | Kind::I4 => Dtype::Int,
    };
    SampleSet::build(d, values, dtype, path.display().to_string())
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    F8,
    F4,
    I8,
    I4,
}

#[derive(Clone, Copy, PartialEq, Debug)]
struct NpyDtype {
    kind: Kind,
    big: bool,
}

impl NpyDtype {
    fn parse(s: &str) -> std::result::Result<Self, String> {
        let (big, rest) = match s.as_bytes().first() {
            Some(b'<') => (false, &s[1..]),
            Some(b'>') => (true, &s[1..]),
            _ => {
                return Err(format!(
                    "descr {s:?} not supported (expected '<f8', '<f4', '<i8', '<i4' or big-endian '>…')"
                ))
            }
        };
        let kind = match rest {
            "f8" => Kind::F8,
            "f4" => Kind::F4,
            "i8" => Kind::I8,
            "i4" => Kind::I4,
            _ => {
                return Err(format!(
                    "descr {s:?} not supported (expected f8, f4, i8 or i4)"
                ))
            }
        };
        Ok(NpyDtype { kind, big })
    }

    fn itemsize(self) -> usize {
        match self.kind {
            Kind::F8 | Kind::I8 => 8,
            Kind::F4 | Kind::I4 => 4,
        }
    }

    fn descr(self) -> String {
        let k = match self.kind {
            Kind::F8 => "f8",
            Kind::F4 => "f4",
            Kind::I8 => "i8",
            Kind::I4 => "i4",
        };
        format!("{}{k}", if self.big { '>' } else { '<' })
    }

    fn decode(self, c: &[u8]) -> std::result::Result<f64, String> {
        let mut b8 = [0u8; 8];
        let mut b4 = [0u8; 4];
        let n = c.len();
        if n == 8 {
            b8.copy_from_slice(c);
            if self.big {
                b8.reverse();
            }
        } else {
            b4.copy_from_slice(c);
            if self.big {
                b4.reverse();
            }
        }
        Ok(match self.kind {
            Kind::F8 => f64::from_le_bytes(b8),
            Kind::F4 => f64::from(f32::from_le_bytes(b4)),
            Kind::I4 => f64::from(i32::from_le_bytes(b4)),
            Kind::I8 => {
                let v = i64::from_le_bytes(b8);
                if !(-MAX_EXACT_INT..=MAX_EXACT_INT).contains(&v) {
                    return Err(format!("integer {v} beyond ±2^53 has no exact f64"));
                }
                v as f64
            }
        })
    }
}

/// The three fields of a `.npy` header.
struct NpyHeader {
    dtype: NpyDtype,
    shape: (usize, usize),
}

impl NpyHeader {
    /// Parses `{'descr': '<f8', 'fortran_order': False, 'shape': (n, d), }` (any key order,
    /// trailing comma and space/newline padding allowed; nothing else).
    fn parse(h: &str) -> std::result::Result<Self, String> {
        let body = h.trim_end_matches([' ', '\n', '\0']).trim();
        let inner = body
            .strip_prefix('{')
            .and_then(|b| b.strip_suffix('}'))
            .ok_or_else(|| format!("not a dict literal: {body:?}"))?;
        let mut descr = None;
        let mut fortran = None;
        let mut shape = None;
        let mut rest = inner.trim();
        while !rest.is_empty() {
            let (key, after) =
                quoted(rest).ok_or_else(|| format!("expected a quoted key at {rest:?}"))?;
            let after = after
                .trim_start()
                .strip_prefix(':')
                .ok_or_else(|| format!("expected ':' after key {key:?}"))?
                .trim_start();
            let after = match key {
                "descr" => {
                    let (v, a) = quoted(after).ok_or_else(|| {
                        format!("field 'descr': expected a quoted dtype string at {after:?}")
                    })?;
                    descr = Some(NpyDtype::parse(v).map_err(|m| format!("field 'descr': {m}"))?);
                    a
                }
                "fortran_order" => {
                    let (v, a) = if let Some(a) = after.strip_prefix("False") {
                        (false, a)
                    } else if let Some(a) = after.strip_prefix("True") {
                        (true, a)
                    } else {
                        return Err(format!(
                            "field 'fortran_order': expected True or False at {after:?}"
                        ));
                    };
                    fortran = Some(v);
                    a
                }
                "shape" => {
                    let close = after
                        .find(')')
                        .filter(|_| after.starts_with('('))
                        .ok_or_else(|| format!("field 'shape': expected a tuple at {after:?}"))?;
                    shape = Some(parse_shape(&after[1..close])?);
                    &after[close + 1..]
                }
                other => {
                    return Err(format!(
                        "unexpected key {other:?} (expected descr, fortran_order, shape)"
                    ))
                }
            };
            let after = after.trim_start();
            rest = match after.strip_prefix(',') {
                Some(a) => a.trim_start(),
                None if after.is_empty() => after,
                None => return Err(format!("expected ',' or '}}' at {after:?}")),
            };
        }
        let dtype = descr.ok_or("missing field 'descr'")?;
        match fortran {
            None => return Err("missing field 'fortran_order'".into()),
            Some(true) => {
                return Err("field 'fortran_order': True is not supported (save a C-ordered array: np.ascontiguousarray)".into())
            }
            Some(false) => {}
        }
        let shape = shape.ok_or("missing field 'shape'")?;
        Ok(NpyHeader { dtype, shape })
    }
}

/// A '…' or "…" string at the start of `s`: (content, rest).
fn quoted(s: &str) -> Option<(&str, &str)> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let end = s[1..].find(q)? + 1;
    Some((&s[1..end], &s[end + 1..]))
}

/// `n,` / `n, d` / `n, d,` → (n, d) with d = 1 for one dimension; n, d ≥ 1.
fn parse_shape(s: &str) -> std::result::Result<(usize, usize), String> {
    let dims: Vec<&str> = s
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let num = |t: &str| {
        t.trim_end_matches('L')
            .parse::<usize>()
            .map_err(|_| format!("field 'shape': {t:?} is not a dimension"))
    };
    let (n, d) = match dims.as_slice() {
        [n] => (num(n)?, 1),
        [n, d] => (num(n)?, num(d)?),
        _ => {
            return Err(format!(
                "field 'shape': ({s}) has {} dimensions (expected (n,) or (n, d))",
                dims.len()
            ))
        }
    };
    if n == 0 || d == 0 {
        return Err(format!("field 'shape': ({s}) is empty (need n, d >= 1)"));
    }
    Ok((n, d))
}

/// The bytes of a `.npy` file (version 1.0, `<f8`, C order) holding `values` as an (n, d) array
/// (d = 1 written as shape (n,)): what [`SampleSet::write_npy`] writes.
pub(super) fn npy_bytes(d: usize, values: &[f64]) -> Vec<u8> {
    let n = values.len() / d.max(1);
    let shape = if d == 1 {
        format!("({n},)")
    } else {
        format!("({n}, {d})")
    };
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    // Pad so that magic + version + length + header is a multiple of 64, ending in '\n'.
    let unpadded = 10 + header.len() + 1;
    header.extend(std::iter::repeat_n(' ', (64 - unpadded % 64) % 64));
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + 8 * values.len());
    out.extend_from_slice(NPY_MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}
