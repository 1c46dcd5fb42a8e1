//! The seed-claims table (issue 11 §3): every quantitative or checkable claim of the five seed
//! files, with dpaudit's own figure for it and a verdict.
//!
//! `claims` recomputes every row from the crate (bounds, certified divergences, accounting):
//! nothing but the sources' *stated* numbers is typed in, and each verdict is a comparison of a
//! computed figure with what the source states (a number at the precision of its printed digits,
//! or an inequality). A row whose computation errors gets `Verdict::NotCheckable` with the
//! error as its reason; `claims` never panics. The rows are plain serde-serialisable data for
//! the `claims` command and the report (`reports/claims.md` and a CSV), which format them.
//!
//! Sources: seed 003 (HMB, the Relative Gaussian Mechanism), 001 (Hu & Guo, bounded-support
//! Gaussian), 002 (informal DP-SGD notes), 004 (OSO-DPSGD); see `docs/formulas.md` §5, §8, §11–§13.

use crate::compare::fmt::fmt_sig;
use crate::divergence::{self, Method, Pair};
use crate::error::Result;
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::ops::Pow;
use rug::Float;
use serde::Serialize;

/// Digits certified for every figure of the table (modest, to keep [`claims`] fast).
pub const DIGITS: u32 = 15;

/// Working precision (bits) of the comparisons made here.
const P: u32 = 256;

/// The verdict on one claim (the taxonomy of `docs/claims.md#verdicts`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The computed figure agrees with the claim (to its stated digits / the inequality holds),
    /// and nothing we checked in its derivation is wrong.
    Holds,
    /// The claim is false: a counterexample (exact figure) or a statistically significant
    /// violation (an interval entirely on the wrong side), with the witness in the row.
    False,
    /// A step of the derivation is invalid, but the stated result survives every check we can
    /// run (the row says which check).
    DerivationGap,
    /// A typo or rounding slip; the row gives the corrected figure.
    Misprint,
    /// dpaudit cannot compute what is needed to decide (reason given).
    NotCheckable,
}

// The texts used in the table.
crate::error::named_enum!(Verdict {
    Holds => "holds",
    False => "false",
    DerivationGap => "derivation gap",
    Misprint => "misprint",
    NotCheckable => "not checkable here",
});

/// One row of the claims table.
#[derive(Clone, Debug, Serialize)]
pub struct Claim {
    /// Stable identifier, e.g. `hmb-cor1-example`.
    pub id: &'static str,
    /// Where the claim is stated: seed file, section, equation.
    pub source: String,
    /// What the source claims (quoted or paraphrased, with its number).
    pub statement: String,
    /// dpaudit's figure, computed when [`claims`] runs.
    pub figure: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Why, with the numbers.
    pub reason: String,
    /// A shell command that reproduces the figure.
    pub command: String,
}

/// What a row's computation returns: (figure, verdict, reason).
type Outcome = Result<(String, Verdict, String)>;

/// One row of the table as data: the claim, where it is made, how to reproduce dpaudit's
/// figure, and the computation that decides it.
pub(super) struct ClaimRow {
    /// Stable identifier (the `--only` key).
    pub id: &'static str,
    /// Where the claim is stated: seed file, section, equation.
    pub source: &'static str,
    /// What the source claims.
    pub statement: &'static str,
    /// The shell command that reproduces the figure.
    pub command: Command,
    /// The computation that decides the claim.
    pub decide: Decide,
}

/// The shell command of a row.
pub(super) enum Command {
    /// `dpaudit claims --only ID`: the figure is the table's own computation.
    Only,
    /// `printf '…' | dpaudit eval -` of these rows (id, quantity, family, params).
    Eval(&'static [(&'static str, &'static str, &'static str, &'static str)]),
    /// A command whose parameters are computed (e.g. a derived σ as decimal text).
    Built(fn() -> String),
    /// No command reproduces the figure; the text says why.
    None(&'static str),
}

/// The computation that decides a row.
#[derive(Clone, Copy)]
pub(super) enum Decide {
    /// From the crate's bounds, divergences and accounting alone.
    Direct(fn() -> Outcome),
    /// From the simulated Theorem 2 cases, computed once for every row that needs them.
    Thm2(fn(&[Thm2Case]) -> Outcome),
}

impl ClaimRow {
    /// The command's text.
    fn command(&self) -> String {
        match &self.command {
            Command::Only => hmb_alg::only_cmd(self.id),
            Command::Eval(rows) => eval_cmd(rows),
            Command::Built(f) => f(),
            Command::None(why) => why.to_string(),
        }
    }

    /// Computes the row; an error of the computation (or of the Theorem 2 simulation it rests
    /// on) becomes a "not checkable here" row.
    fn compute(&self, thm2: Option<&Result<Vec<Thm2Case>>>) -> Claim {
        let outcome = match self.decide {
            Decide::Direct(f) => f(),
            Decide::Thm2(f) => match thm2 {
                Some(Ok(cases)) => f(cases),
                Some(Err(e)) => Err(crate::error::Error::Undefined(format!(
                    "Theorem 2 simulation failed: {e}"
                ))),
                None => Err(crate::error::Error::Undefined("not computed".into())),
            },
        };
        let (figure, verdict, reason) = match outcome {
            Ok(t) => t,
            Err(e) => (
                "not computed (error)".to_string(),
                Verdict::NotCheckable,
                format!("the computation failed: {e}"),
            ),
        };
        Claim {
            id: self.id,
            source: self.source.to_string(),
            statement: self.statement.to_string(),
            figure,
            verdict,
            reason,
            command: self.command(),
        }
    }
}

/// The whole table in its stable order: HMB, HMB §5 by simulation, HG, seed 002, OSO.
const TABLE: [&[ClaimRow]; 5] = [hmb::ROWS, hmb_alg::ROWS, hg::ROWS, seed002::ROWS, oso::ROWS];

/// Parses a decimal literal (all literals here are valid).
fn sc(s: &str) -> Scalar {
    s.parse().expect("decimal literal")
}

/// A Float at the working precision.
fn fl(x: f64) -> Float {
    Float::with_val(P, x)
}

/// 15 significant digits.
fn n(x: &Float) -> String {
    fmt_sig(x.to_f64(), 15)
}

/// 6 significant digits (for reasons).
fn n6(x: &Float) -> String {
    fmt_sig(x.to_f64(), 6)
}

/// A certified value with its digits.
fn cert(c: &Certified) -> String {
    format!("{} ({} digits certified)", n(&c.value), c.digits)
}

/// Whether `x` rounds to the stated number `stated` printed with `decimals` decimals:
/// |x − stated| ≤ ½·10^−decimals.
fn rounds_to(x: &Float, stated: &str, decimals: i32) -> bool {
    let s = Float::with_val(P, Float::parse(stated).expect("decimal literal"));
    let half = Float::with_val(P, 10u32).pow(-decimals) / 2u32;
    Float::with_val(P, x - &s).abs() <= half
}

/// `a ≤ b·(1 + 10⁻¹²)`: an inequality between certified values, allowing for their rounding.
fn le(a: &Float, b: &Float) -> bool {
    let slack = Float::with_val(P, b.abs_ref()) * fl(1e-12);
    *a <= Float::with_val(P, b + slack)
}

/// [`Verdict::Holds`] if the claim holds, else [`Verdict::False`].
fn verdict(holds: bool) -> Verdict {
    if holds {
        Verdict::Holds
    } else {
        Verdict::False
    }
}

/// `printf '…' | dpaudit eval -` for the given rows (id, quantity, family, params).
fn eval_cmd(rows: &[(&str, &str, &str, impl AsRef<str>)]) -> String {
    let mut s = String::from("printf 'id,quantity,family,params\\n");
    for (id, q, fam, params) in rows {
        s.push_str(&format!("{id},{q},{fam},{}\\n", params.as_ref()));
    }
    s.push_str("' | dpaudit eval -");
    s
}

/// Decimal text of a Float (for commands): 40 significant digits.
fn dec(x: &Float) -> String {
    x.to_string_radix(10, Some(40))
}

/// The exact D_α of both orders of an RGM pair (n1, n2, dist), the larger one.
fn rgm_max_renyi(
    d: u32,
    gamma: &str,
    sigma2: &str,
    n1: &str,
    n2: &str,
    dist: &str,
    alpha: &Scalar,
) -> Result<Certified> {
    let pair = Pair::rgm(d, sc(gamma), sc(sigma2), sc(n1), sc(n2), sc(dist))?;
    let a = divergence::renyi(&pair, alpha, DIGITS, Method::Auto)?;
    let b = divergence::renyi(&pair.swapped(), alpha, DIGITS, Method::Auto)?;
    Ok(if a.value >= b.value { a } else { b })
}

/// Every row of the seed-claims table, computed now (seconds in release mode).
///
/// Rows are in a stable order (HMB, HMB §5 by simulation, HG, seed 002, OSO); ids are unique. A
/// row whose computation fails is returned with [`Verdict::NotCheckable`] and the error as its
/// reason.
#[cfg(test)]
pub(crate) fn claims() -> Vec<Claim> {
    claims_only(None).map(|c| c.rows).unwrap_or_default()
}

/// The claims with the Theorem 2 simulation table behind rows `hmb-thm2-*`.
pub struct Claims {
    /// The rows.
    pub rows: Vec<Claim>,
    /// The Theorem 2 cases (None when no `hmb-thm2-*` row was asked for).
    pub thm2: Option<Vec<Thm2Case>>,
}

/// The rows (all, or only the row `only`); an unknown id is an error naming the known ids.
/// The simulations of HMB §5 run only for the rows asked for.
pub fn claims_only(only: Option<&str>) -> Result<Claims> {
    let wanted: Vec<&ClaimRow> = TABLE
        .iter()
        .flat_map(|rows| rows.iter())
        .filter(|r| only.is_none_or(|id| id == r.id))
        .collect();
    if let (Some(id), true) = (only, wanted.is_empty()) {
        let known: Vec<&str> = TABLE
            .iter()
            .flat_map(|rows| rows.iter().map(|r| r.id))
            .collect();
        return Err(crate::error::Error::invalid(
            "--only",
            id,
            &format!("one of the claim ids: {}", known.join(", ")),
        ));
    }
    let needs_thm2 = wanted.iter().any(|r| matches!(r.decide, Decide::Thm2(_)));
    let thm2 = needs_thm2.then(thm2_cases);
    let rows = wanted.iter().map(|r| r.compute(thm2.as_ref())).collect();
    Ok(Claims {
        rows,
        thm2: thm2.and_then(|c| c.ok()),
    })
}

mod hg;
mod hmb;
pub(crate) mod hmb_alg;
mod oso;
mod seed002;

use hmb_alg::thm2_cases;
pub(crate) use hmb_alg::Thm2Case;

#[cfg(test)]
mod tests;
