//! The machine-readable output of `--format json` (`docs/json.md`): one document shape shared by
//! the commands that support it, written by a small value type (no dependency). Certified
//! numbers are decimal strings, so no digit is lost to a double; counts and times are numbers.

use crate::accounting::Bracket;
use std::fmt::Write as _;

pub(crate) mod commands;

/// Version of the document shape (`"schema"` field); bumped on an incompatible change.
pub(crate) const SCHEMA: &str = "dpaudit/1";

/// A JSON value.
#[derive(Clone, Debug)]
pub(crate) enum Json {
    /// null (a figure that was not computed).
    Null,
    /// true / false
    Bool(bool),
    /// A finite number (non-finite values are written as null).
    Num(f64),
    /// An integer.
    Int(u64),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, keys in the given order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// An object from (key, value) pairs.
    pub(crate) fn obj(pairs: Vec<(&str, Json)>) -> Json {
        Json::Obj(pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }

    /// A string value.
    pub(crate) fn str(s: impl Into<String>) -> Json {
        Json::Str(s.into())
    }

    /// A certified bracket: `{"lo", "hi", "mid", "digits", "rel_width"}`, the ends as decimal
    /// strings with `sig` significant digits (rounded outwards is not needed: the strings carry
    /// enough digits that the bracket's ends are exact to far below its width).
    pub(crate) fn bracket(b: &Bracket, sig: usize) -> Json {
        let d = b.digits();
        Json::obj(vec![
            ("lo", Json::str(b.lo.to_string_radix(10, Some(sig)))),
            ("hi", Json::str(b.hi.to_string_radix(10, Some(sig)))),
            (
                "mid",
                Json::str(b.mid().to_string_radix(10, Some(d.max(1) as usize))),
            ),
            ("digits", Json::Int(u64::from(d))),
            ("rel_width", Json::Num(b.rel_width())),
        ])
    }

    /// The document every command writes on success: schema, command, ok = true, and `body`'s
    /// fields.
    pub(crate) fn document(command: &str, body: Vec<(&str, Json)>) -> Json {
        let mut v = vec![
            ("schema", Json::str(SCHEMA)),
            ("command", Json::str(command)),
            ("ok", Json::Bool(true)),
        ];
        v.extend(body);
        Json::obj(v)
    }

    /// The document written on an error (the command then exits with status 2).
    pub(crate) fn error(command: &str, message: &str) -> Json {
        Json::obj(vec![
            ("schema", Json::str(SCHEMA)),
            ("command", Json::str(command)),
            ("ok", Json::Bool(false)),
            ("error", Json::str(message)),
        ])
    }

    fn write(&self, o: &mut String, indent: usize) {
        let pad = |o: &mut String, n: usize| o.extend(std::iter::repeat_n(' ', n));
        match self {
            Json::Null => o.push_str("null"),
            Json::Bool(b) => o.push_str(if *b { "true" } else { "false" }),
            Json::Num(x) if x.is_finite() => {
                let _ = write!(o, "{x:e}");
            }
            Json::Num(_) => o.push_str("null"),
            Json::Int(i) => {
                let _ = write!(o, "{i}");
            }
            Json::Str(s) => escape(o, s),
            Json::Arr(a) if a.is_empty() => o.push_str("[]"),
            Json::Arr(a) => {
                o.push_str("[\n");
                for (i, v) in a.iter().enumerate() {
                    pad(o, indent + 2);
                    v.write(o, indent + 2);
                    o.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
                }
                pad(o, indent);
                o.push(']');
            }
            Json::Obj(m) if m.is_empty() => o.push_str("{}"),
            Json::Obj(m) => {
                o.push_str("{\n");
                for (i, (k, v)) in m.iter().enumerate() {
                    pad(o, indent + 2);
                    escape(o, k);
                    o.push_str(": ");
                    v.write(o, indent + 2);
                    o.push_str(if i + 1 < m.len() { ",\n" } else { "\n" });
                }
                pad(o, indent);
                o.push('}');
            }
        }
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut o = String::new();
        self.write(&mut o, 0);
        f.write_str(&o)
    }
}

fn escape(o: &mut String, s: &str) {
    o.push('"');
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            '\n' => o.push_str("\\n"),
            '\r' => o.push_str("\\r"),
            '\t' => o.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
}

#[cfg(test)]
mod tests {
    use super::Json;

    #[test]
    fn strings_are_escaped_and_numbers_finite() {
        let j = Json::obj(vec![
            ("a", Json::str("x\"y\\z\n\u{1}")),
            ("b", Json::Num(f64::NAN)),
            ("c", Json::Arr(vec![Json::Int(3), Json::Num(0.5)])),
        ]);
        let s = j.to_string();
        assert!(s.contains(r#""a": "x\"y\\z\n\u0001""#), "{s}");
        assert!(s.contains(r#""b": null"#));
        assert!(s.contains("5e-1"));
    }
}
