//! Number formatting shared by the comparison's notes and the report's tables.

/// Formats a double for tables: 12 significant digits, plain notation in [1e-4, 1e6), otherwise
/// scientific; "inf"/"nan" spelled out.
pub(crate) fn fmt_num(x: f64) -> String {
    fmt_sig(x, 12)
}

/// Formats a double with `sig` significant digits (see [`fmt_num`]).
pub(crate) fn fmt_sig(x: f64, sig: usize) -> String {
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
