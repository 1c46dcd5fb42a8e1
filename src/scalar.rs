//! Exact real parameters.
//!
//! A [`Scalar`] is a real parameter that remembers how it was given. Parsed from text (`"1.001"`) it
//! is the exact decimal, rounded afresh at whatever precision a high-precision routine asks for; built
//! from an `f64` it is that binary number exactly. This matters: a double-precision α = 1.001 is
//! 1.000999999999999889…, which moves a 60-digit Rényi divergence in its 14th digit (docs/formulas.md §9.9).

use crate::error::{Error, Result};
use rug::Float;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// A real parameter: an exact decimal (from text) or an exact binary64 value.
#[derive(Clone, Debug)]
pub struct Scalar {
    approx: f64,
    decimal: Option<Arc<str>>,
}

impl Scalar {
    /// The nearest `f64` (used by samplers and the fast double-precision paths).
    pub fn f64(&self) -> f64 {
        self.approx
    }

    /// The value rounded to `prec` bits (exact when the precision suffices).
    pub fn mp(&self, prec: u32) -> Float {
        match &self.decimal {
            Some(text) => Float::with_val(
                prec,
                Float::parse(text.as_ref()).expect("validated at construction"),
            ),
            None => Float::with_val(prec, self.approx),
        }
    }

    /// A scalar holding `x` (enough decimal digits to round-trip at `x`'s precision).
    pub fn from_float(x: &Float) -> Scalar {
        Scalar {
            approx: x.to_f64(),
            decimal: Some(Arc::from(x.to_string_radix(10, None).as_str())),
        }
    }

    /// Whether 0 < x < 1 exactly (compared at 256 bits, so δ = 10⁻⁴⁰⁰ given as decimal text is
    /// inside). The one owner of the "in (0, 1)" condition on exact parameters such as δ.
    pub(crate) fn in_open_unit(&self) -> bool {
        let v = self.mp(256);
        v.is_finite() && v > 0 && v < 1
    }

    /// The nearest double, or an [`Error::InvalidParameter`] naming `name` when that double has
    /// lost the value: a decimal whose magnitude overflows to ±∞ (above about 1.8e308) or
    /// underflows to 0 (below about 4.9e-324). For the parameters that double-precision code
    /// (samplers, the double-precision routes) uses, so that `sigma = 1e-400` is refused as out of
    /// range rather than as "sigma = 0".
    pub(crate) fn to_double(&self, name: &str) -> Result<f64> {
        let x = self.approx;
        // Only a double of 0 or ±∞ can have lost its decimal: the text is parsed only then.
        let lost = (x == 0.0 || x.is_infinite()) && self.decimal.is_some() && {
            let v = self.mp(64);
            (x.is_infinite() && v.is_finite()) || (x == 0.0 && !v.is_zero())
        };
        if lost {
            return Err(Error::invalid(
                name,
                self,
                "of magnitude between 4.9e-324 and 1.8e308 (it is used in double precision)",
            ));
        }
        Ok(x)
    }

    /// The double of a parameter that must lie in (0, 1), such as δ on a double-precision route:
    /// "in (0, 1)" is decided exactly ([`Scalar::in_open_unit`]), then the double must keep the
    /// value ([`Scalar::to_double`]).
    pub(crate) fn open_unit_double(&self, name: &str) -> Result<f64> {
        self.open_unit(name)?;
        self.to_double(name)
    }

    /// [`Scalar::in_open_unit`] as a check: an [`Error::InvalidParameter`] naming `name` outside
    /// (0, 1). For routes that use the value in multiple precision only.
    pub(crate) fn open_unit(&self, name: &str) -> Result<()> {
        if self.in_open_unit() {
            Ok(())
        } else {
            Err(Error::invalid(name, self, "in (0, 1)"))
        }
    }

    /// Whether the parameter came from decimal text.
    pub fn is_decimal(&self) -> bool {
        self.decimal.is_some()
    }
}

/// A number as a TOML file may write it: an integer, a float, or a string holding a decimal.
///
/// The one reader of numbers in dpaudit's TOML inputs (`docs/accounting.md#numbers`):
/// [`TomlNum::scalar`] turns each form into an exact decimal [`Scalar`] — a string is read
/// exactly as written (`"1e-5"` is 10⁻⁵), an integer exactly, and a TOML float as the shortest
/// decimal that round-trips to the same double (Rust's `Display` of `f64`), which is what the
/// user typed whenever they typed at most 15 significant digits (`1e-5` is 10⁻⁵, not the double
/// 1.00000000000000008180305391403130954586231382563710212708e-5). Longer decimals must be
/// written as strings to be kept exactly.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(untagged)]
pub enum TomlNum {
    /// A TOML integer.
    Int(i64),
    /// A TOML float.
    Float(f64),
    /// A string holding a decimal number.
    Text(String),
}

impl TomlNum {
    /// The decimal text the number stands for (see the type's documentation).
    pub fn text(&self) -> String {
        match self {
            TomlNum::Int(i) => i.to_string(),
            // `Display` of f64 is the shortest decimal that round-trips; it writes every digit
            // of the integer part (309 for 1.8e308) and every leading zero of a tiny value, so
            // past 24 characters the same shortest digits are written in scientific notation
            // (`{:e}`): the same decimal, readable in messages and reports.
            TomlNum::Float(f) => {
                let plain = format!("{f}");
                if plain.len() > 24 {
                    format!("{f:e}")
                } else {
                    plain
                }
            }
            TomlNum::Text(s) => s.clone(),
        }
    }

    /// The number as an exact decimal; an [`Error::InvalidParameter`] naming `key` when it is not
    /// a finite decimal (a non-numeric string, NaN or ±∞).
    pub fn scalar(&self, key: &str) -> Result<Scalar> {
        let t = self.text();
        t.parse::<Scalar>()
            .map_err(|_| Error::invalid(key, format!("{t:?}"), "a finite decimal number"))
    }
}

impl From<f64> for Scalar {
    fn from(x: f64) -> Self {
        Scalar {
            approx: x,
            decimal: None,
        }
    }
}

impl From<u32> for Scalar {
    fn from(x: u32) -> Self {
        Scalar::from(f64::from(x))
    }
}

impl FromStr for Scalar {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        let parse_err = |reason: &str| Error::Parse {
            what: "number".into(),
            text: s.to_string(),
            reason: reason.to_string(),
        };
        if t.is_empty() {
            return Err(parse_err("empty"));
        }
        let valid = Float::parse(t).map_err(|e| parse_err(&e.to_string()))?;
        let probe = Float::with_val(64, valid);
        if !probe.is_finite() {
            return Err(parse_err("not a finite number"));
        }
        let approx: f64 = t
            .parse::<f64>()
            .map_err(|e| parse_err(&e.to_string()))
            .or_else(|_| Ok::<f64, Error>(probe.to_f64()))?;
        Ok(Scalar {
            approx,
            decimal: Some(Arc::from(t)),
        })
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.decimal {
            Some(t) => f.write_str(t),
            None => write!(f, "{}", self.approx),
        }
    }
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Self) -> bool {
        self.mp(256) == other.mp(256)
    }
}

#[cfg(test)]
mod tests {
    use super::{Float, Scalar, TomlNum};

    #[test]
    fn huge_and_tiny_toml_floats_are_written_in_scientific_notation() {
        // The same decimal either way: `{:e}` gives the shortest round-trip digits too.
        for (f, text) in [
            (1.7976931348623157e308, "1.7976931348623157e308"),
            (5e-324, "5e-324"),
            (1e-5, "0.00001"),
            (123456.5, "123456.5"),
        ] {
            let t = TomlNum::Float(f).text();
            assert_eq!(t, text);
            assert_eq!(t.parse::<f64>().unwrap(), f);
        }
    }

    #[test]
    fn decimal_is_exact_at_any_precision() {
        let a: Scalar = "1.001".parse().unwrap();
        let hi = a.mp(400);
        let from_double = Float::with_val(400, 1.001f64);
        assert_ne!(hi, from_double, "decimal must not go through f64");
        let back = Float::with_val(400, Float::parse("1.001").unwrap());
        assert_eq!(hi, back);
        assert_eq!(a.f64(), 1.001);
    }

    #[test]
    fn toml_numbers_are_exact_decimals() {
        let read = |v: TomlNum| v.scalar("x").unwrap();
        // A TOML float is the decimal the user typed, not the nearest double.
        let f = read(TomlNum::Float(1e-5));
        assert_eq!(
            f.mp(300),
            Float::with_val(300, Float::parse("1e-5").unwrap())
        );
        assert_ne!(f.mp(300), Float::with_val(300, 1e-5f64));
        assert_eq!(
            read(TomlNum::Text("0.1".into())).mp(300),
            read(TomlNum::Float(0.1)).mp(300)
        );
        // Integers beyond 2^53 stay exact.
        let big = read(TomlNum::Int(9_007_199_254_740_993));
        assert_eq!(big.mp(128), Float::with_val(128, 9_007_199_254_740_993i64));
        for bad in [
            TomlNum::Float(f64::NAN),
            TomlNum::Float(f64::INFINITY),
            TomlNum::Text("abc".into()),
        ] {
            let e = bad.scalar("sigma").unwrap_err().to_string();
            assert!(e.contains("sigma"), "{e}");
        }
    }

    #[test]
    fn rejects_garbage_and_non_finite() {
        for bad in ["", "abc", "nan", "inf", "-inf", "1e", "--1"] {
            assert!(bad.parse::<Scalar>().is_err(), "{bad:?} accepted");
        }
    }
}
