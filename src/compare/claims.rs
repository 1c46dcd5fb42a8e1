//! The seed-claims table (issue 11 §3): every quantitative or checkable claim of the five seed
//! files, with dpaudit's own figure for it and a verdict.
//!
//! The rows are data: the TOML files of `claims/` (compiled in; `data`), each row its id,
//! source, statement, the `dpaudit eval` rows that reproduce its figure, the grids and texts its
//! decision reads, and the name of that decision (`decide = "…"`: a generic shape of `shapes` or
//! a claim's own analysis in the per-source modules). The decisions name no family: they evaluate
//! the row's eval rows by `dpaudit eval` itself or through the registry (`figures`).
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
use crate::error::Result;
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::ops::Pow;
use rug::Float;
use serde::Serialize;

/// Digits certified for every figure of the table (modest, to keep [`claims_only`] fast).
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
    /// dpaudit's figure, computed when [`claims_only`] runs.
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

pub(crate) use data::ClaimRow;
use data::Command;

/// The computation that decides a row; a row's `decide = "…"` names it.
#[derive(Clone, Copy)]
pub(super) enum Decide {
    /// From the row's data and the crate's bounds, divergences and accounting.
    Direct(fn(&ClaimRow) -> Outcome),
    /// From the simulated Theorem 2 cases, computed once for every row that needs them.
    Thm2(fn(&ClaimRow, &[Thm2Case]) -> Outcome),
}

/// The values of a row's `{name}` placeholders: (name, decimal text).
pub(super) type Vars = Vec<(&'static str, String)>;

/// A named decision: what `decide = "name"` in a row of `claims/*.toml` refers to.
pub(super) struct Decider {
    /// Its name in the data.
    pub name: &'static str,
    /// The computation.
    pub decide: Decide,
    /// Values the decision computes for the `{name}` placeholders of its eval rows' params (as
    /// decimal text, for the printed command).
    pub vars: Option<fn() -> Vars>,
}

impl Decider {
    /// A decision without placeholders.
    pub(super) const fn direct(name: &'static str, f: fn(&ClaimRow) -> Outcome) -> Decider {
        Decider {
            name,
            decide: Decide::Direct(f),
            vars: None,
        }
    }
}

/// Every named decision: the generic shapes, then each source's analyses.
const DECIDERS: &[&[Decider]] = &[
    shapes::DECIDERS,
    hmb::DECIDERS,
    hmb_alg::DECIDERS,
    hg::DECIDERS,
    seed002::DECIDERS,
    oso::DECIDERS,
];

impl ClaimRow {
    /// The command's text.
    fn command(&self) -> String {
        match &self.command {
            Command::Only => hmb_alg::only_cmd(&self.id),
            Command::Eval => {
                let vars = self.decide.vars.map(|f| f()).unwrap_or_default();
                let rows: Vec<_> = self
                    .eval
                    .iter()
                    .map(|r| {
                        let params = figures::fill(&r.params, &vars);
                        (
                            r.id.as_str(),
                            r.quantity.as_str(),
                            r.family.as_str(),
                            params,
                        )
                    })
                    .collect();
                eval_cmd(&rows)
            }
            Command::None(why) => why.clone(),
        }
    }

    /// Computes the row; an error of the computation (or of the Theorem 2 simulation it rests
    /// on) becomes a "not checkable here" row.
    fn compute(&'static self, thm2: Option<&Result<Vec<Thm2Case>>>) -> Claim {
        let outcome = match self.decide.decide {
            Decide::Direct(f) => f(self),
            Decide::Thm2(f) => match thm2 {
                Some(Ok(cases)) => f(self, cases),
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
            id: &self.id,
            source: self.source.clone(),
            statement: self.statement.clone(),
            figure,
            verdict,
            reason,
            command: self.command(),
        }
    }
}

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
    let table = data::table()?;
    let wanted: Vec<&'static ClaimRow> = table
        .iter()
        .filter(|r| only.is_none_or(|id| id == r.id))
        .collect();
    if let (Some(id), true) = (only, wanted.is_empty()) {
        let known: Vec<&str> = table.iter().map(|r| r.id.as_str()).collect();
        return Err(crate::error::Error::invalid(
            "--only",
            id,
            &format!("one of the claim ids: {}", known.join(", ")),
        ));
    }
    let needs_thm2 = wanted
        .iter()
        .any(|r| matches!(r.decide.decide, Decide::Thm2(_)));
    let thm2 = needs_thm2.then(thm2_cases);
    let rows = wanted.iter().map(|r| r.compute(thm2.as_ref())).collect();
    Ok(Claims {
        rows,
        thm2: thm2.and_then(|c| c.ok()),
    })
}

mod data;
mod figures;
mod hg;
mod hmb;
pub(crate) mod hmb_alg;
mod oso;
mod seed002;
mod shapes;

use hmb_alg::thm2_cases;
pub(crate) use hmb_alg::Thm2Case;

#[cfg(test)]
mod tests;
