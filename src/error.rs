//! Typed errors shared by the whole library.
//!
//! Every variant names the offending parameter and its value, so that a message printed by the CLI
//! (or written into the `error` column of `dpaudit eval`) tells the user exactly what to fix.

use thiserror::Error;

/// The library's error type.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Error {
    /// A parameter is outside its domain (σ ≤ 0, α ≤ 1, a ≥ b, NaN, …).
    #[error("invalid parameter {name} = {value}: must be {expected}")]
    InvalidParameter {
        /// Parameter name as in the paper / the eval vocabulary.
        name: String,
        /// The offending value, as given.
        value: String,
        /// The valid range, in words.
        expected: String,
    },
    /// A theorem's validity condition does not hold for the given parameters.
    #[error("{theorem}: outside its validity range: {condition}")]
    OutsideValidity {
        /// Which result (paper, theorem, equation).
        theorem: String,
        /// The violated condition, with the values that violate it.
        condition: String,
    },
    /// A required parameter is missing.
    #[error("missing parameter {name} (needed by {needed_by})")]
    MissingParameter {
        /// Parameter name.
        name: String,
        /// What needs it.
        needed_by: String,
    },
    /// A parameter was given that the quantity/family does not take.
    #[error("unknown parameter {name} for {context} (accepted: {accepted})")]
    UnknownParameter {
        /// Parameter name.
        name: String,
        /// Quantity and family.
        context: String,
        /// The accepted parameter names.
        accepted: String,
    },
    /// A value could not be parsed.
    #[error("cannot parse {what} {text:?}: {reason}")]
    Parse {
        /// What was being parsed.
        what: String,
        /// The text.
        text: String,
        /// Why it failed.
        reason: String,
    },
    /// The requested number of digits could not be certified (with the narrowest valid bracket
    /// found, when a route found one).
    #[error(
        "cannot certify {requested} digits for {what}{}: only {certified} certified",
        narrowest_text(.narrowest)
    )]
    Precision {
        /// Digits requested.
        requested: u32,
        /// Digits that could be certified.
        certified: u32,
        /// What was computed.
        what: String,
        /// The narrowest valid bracket found, if any (its digits are `certified`).
        narrowest: Option<Box<Narrowest>>,
    },
    /// The requested method does not exist for this quantity (e.g. no closed form).
    #[error("{0}")]
    Unsupported(String),
    /// The quantity is infinite or undefined for these parameters.
    #[error("{0}")]
    Undefined(String),
    /// Input/output failure (files, CSV, TOML).
    #[error("{0}")]
    Io(String),
    /// A command dpaudit ran for the user (an audited sampler, `audit::command`) failed: it could
    /// not start, exited with a failure, printed what cannot be read as samples, or ran past its
    /// time limit.
    #[error("command {command}: {what}")]
    Command {
        /// The command line, and which invocation (side, chunk).
        command: String,
        /// What went wrong, with the end of its stderr when it said something.
        what: String,
    },
    /// A time limit (`--max-seconds`) passed before the work was done.
    #[error("time limit --max-seconds {seconds} reached: {what} stopped")]
    TimeLimit {
        /// The limit, seconds.
        seconds: f64,
        /// What was stopped.
        what: String,
    },
}

/// Shorthand result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An [`Error::InvalidParameter`].
    pub fn invalid(name: &str, value: impl std::fmt::Display, expected: &str) -> Self {
        Error::InvalidParameter {
            name: name.to_string(),
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }

    /// An [`Error::OutsideValidity`].
    pub fn outside(theorem: &str, condition: impl Into<String>) -> Self {
        Error::OutsideValidity {
            theorem: theorem.to_string(),
            condition: condition.into(),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e.to_string())
    }
}

/// Checks that `x` is finite.
pub(crate) fn check_finite(name: &str, x: f64) -> Result<f64> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(Error::invalid(name, x, "a finite number"))
    }
}

/// Checks that `x` is finite and > 0.
pub(crate) fn check_positive(name: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(Error::invalid(name, x, "finite and > 0"))
    }
}

/// Checks a dimension d ≥ 1 (the one owner of this condition: models, bounds and profiles).
pub(crate) fn check_dim(d: u32) -> Result<()> {
    if d >= 1 {
        Ok(())
    } else {
        Err(Error::invalid("d", d, "an integer >= 1"))
    }
}

/// Checks a count (steps, records, hidden units, tries) ≥ 1; returns it.
pub(crate) fn check_count<T: Copy + Default + PartialEq + std::fmt::Display>(
    name: &str,
    v: T,
) -> Result<T> {
    if v == T::default() {
        Err(Error::invalid(name, v, ">= 1"))
    } else {
        Ok(v)
    }
}

/// Checks that the slice `what` has length `len` = d.
pub(crate) fn check_len(what: &str, len: usize, d: usize) -> Result<()> {
    if len == d {
        Ok(())
    } else {
        Err(Error::invalid(
            what,
            format!("a slice of length {len}"),
            &format!("of length d = {d}"),
        ))
    }
}

/// Checks that `x` is finite and ≥ 0.
pub(crate) fn check_nonnegative(name: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x >= 0.0 {
        Ok(x)
    } else {
        Err(Error::invalid(name, x, "finite and >= 0"))
    }
}

/// Checks a < b, both finite.
pub(crate) fn check_interval(a: f64, b: f64) -> Result<()> {
    check_finite("a", a)?;
    check_finite("b", b)?;
    if a < b {
        Ok(())
    } else {
        Err(Error::invalid("a", a, &format!("< b = {b}")))
    }
}

/// Checks that the double `x` lies in the open interval (0, 1): probabilities such as ν or β, and
/// δ where it is given as a double. A δ given as a [`crate::Scalar`] is checked by
/// [`crate::Scalar::in_open_unit`] (exactly) or [`crate::Scalar::open_unit_double`].
pub(crate) fn check_open_unit(name: &str, x: f64) -> Result<f64> {
    if x.is_finite() && x > 0.0 && x < 1.0 {
        Ok(x)
    } else {
        Err(Error::invalid(name, x, "in (0, 1)"))
    }
}

/// Names a fieldless enum's variants: `as_str` (each variant's name) and `Display`; with a
/// parameter name, also `NAMES` (in declaration order) and `FromStr`, which reads each name and
/// its aliases and rejects anything else with an [`Error::InvalidParameter`] naming the parameter
/// and listing `NAMES`.
macro_rules! named_enum {
    ($ty:ident { $($var:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        impl $ty {
            /// The variant's name (what `Display` prints).
            pub fn as_str(&self) -> &'static str {
                match self {
                    $($ty::$var => $name),+
                }
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
    ($ty:ident, $param:literal, { $($var:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        $crate::error::named_enum!($ty { $($var => $name),+ });

        impl $ty {
            /// Every variant's name, in declaration order.
            pub(crate) const NAMES: &'static [&'static str] = &[$($name),+];
        }

        impl std::str::FromStr for $ty {
            type Err = $crate::error::Error;
            fn from_str(s: &str) -> $crate::error::Result<Self> {
                match s {
                    $($name $(| $alias)* => Ok($ty::$var),)+
                    other => Err($crate::error::Error::invalid(
                        $param,
                        other,
                        &format!("one of {}", Self::NAMES.join(", ")),
                    )),
                }
            }
        }
    };
}
pub(crate) use named_enum;

/// A refusal's narrowest bracket: valid, with fewer digits than asked; its ends rounded outward
/// to 9 significant digits.
#[derive(Debug, Clone, PartialEq)]
pub struct Narrowest {
    /// The lower end (rounded down).
    pub lo: String,
    /// The upper end (rounded up).
    pub hi: String,
    /// The route that computed it.
    pub route: String,
}

/// The message's part for a refusal's bracket: " [lo, hi] (route)", or nothing.
fn narrowest_text(n: &Option<Box<Narrowest>>) -> String {
    n.as_ref().map_or(String::new(), |n| {
        format!(" [{}, {}] ({})", n.lo, n.hi, n.route)
    })
}
