//! Number formatting shared by the comparison's notes and the report's tables.

/// Formats a double for tables: 12 significant digits, plain notation in [1e-4, 1e6), otherwise
/// scientific; "inf"/"nan" spelled out.
pub(crate) fn fmt_num(x: f64) -> String {
    fmt_sig(x, 12)
}

/// Formats a double with `sig` significant digits (see [`fmt_num`]).
pub(crate) use crate::model::spec_form::fmt_sig;
