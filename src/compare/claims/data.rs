//! The claims table as data: the TOML files of the top-level `claims/` folder, compiled in with
//! `include_str!` (so `dpaudit claims` runs from any directory), parsed and checked into
//! [`ClaimRow`]s. A row holds what the source states (id, source, statement), how its figure is
//! reproduced (its `dpaudit eval` rows or another command), the data its decision reads (named
//! eval rows, grids, texts) and the name of the decision; the families it is about are names in
//! the data, looked up in the registry. A malformed file or row is a typed error naming the file
//! and the row (docs/claims.md, "The table as data").

use super::{Decide, DECIDERS};
use crate::error::{Error, Result};
use crate::eval::{parse_params, Quantity};
use crate::model::Family;
use crate::scalar::Scalar;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The data files in table order: (name, text).
pub(super) const FILES: &[(&str, &str)] = &[
    (
        "claims/seed003_hmb.toml",
        include_str!("../../../claims/seed003_hmb.toml"),
    ),
    (
        "claims/seed003_hmb_sim.toml",
        include_str!("../../../claims/seed003_hmb_sim.toml"),
    ),
    (
        "claims/seed001_hg.toml",
        include_str!("../../../claims/seed001_hg.toml"),
    ),
    (
        "claims/seed002_notes.toml",
        include_str!("../../../claims/seed002_notes.toml"),
    ),
    (
        "claims/seed004_oso.toml",
        include_str!("../../../claims/seed004_oso.toml"),
    ),
];

/// One file: its `[[claim]]` rows.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileToml {
    claim: Vec<RowToml>,
}

/// One `[[claim]]` as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RowToml {
    id: String,
    source: String,
    statement: String,
    decide: String,
    command: String,
    #[serde(default)]
    why: Option<String>,
    #[serde(default)]
    eval: Vec<EvalRow>,
    #[serde(default)]
    rows: Vec<EvalRow>,
    #[serde(default)]
    grid: BTreeMap<String, Grid>,
    #[serde(default)]
    text: BTreeMap<String, String>,
}

/// A `dpaudit eval` row of a claim: what the decision evaluates, and (for the rows of `eval`)
/// the reproducing command. `{name}` in `params` is a value the decision computes
/// ([`super::Decider::vars`]).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EvalRow {
    /// The row's id (the decision looks it up by it).
    pub id: String,
    /// Its quantity, by its `dpaudit eval` name.
    pub quantity: String,
    /// Its family, by its registry name.
    pub family: String,
    /// `key=value;…`.
    pub params: String,
}

/// A grid a claim sweeps: a list of decimals, or of tuples of decimals.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Grid {
    /// `["-3", "0.3", …]`.
    List(Vec<String>),
    /// `[["-1", "1", "1"], …]`.
    Tuples(Vec<Vec<String>>),
}

/// How a row's figure is reproduced.
pub(super) enum Command {
    /// `dpaudit claims --only ID`: the figure is the table's own computation.
    Only,
    /// `printf '…' | dpaudit eval -` of the row's `eval` rows.
    Eval,
    /// No command reproduces the figure; the text says why.
    None(String),
}

/// One row of the table as data.
pub(crate) struct ClaimRow {
    /// The file it is written in.
    pub file: &'static str,
    /// Stable identifier (the `--only` key).
    pub id: String,
    /// Where the claim is stated: seed file, section, equation.
    pub source: String,
    /// What the source claims.
    pub statement: String,
    /// How the figure is reproduced.
    pub(super) command: Command,
    /// The decision, by name.
    pub(super) decide: &'static super::Decider,
    /// The rows of the reproducing command.
    pub eval: Vec<EvalRow>,
    /// Further rows the decision evaluates (not in the command).
    pub rows: Vec<EvalRow>,
    /// The grids the decision sweeps, by name.
    pub grid: BTreeMap<String, Grid>,
    /// Texts of the decision's reasons, by name.
    pub text: BTreeMap<String, String>,
}

/// The error of a malformed file or row: names the file, the row and the offending text.
fn bad(file: &str, id: &str, text: &str, reason: impl Into<String>) -> Error {
    Error::Parse {
        what: format!("row {id} of {file}:"),
        text: text.to_string(),
        reason: reason.into(),
    }
}

/// Checks one eval row: a registered family, a `dpaudit eval` quantity, `key=value` params.
fn check_eval_row(file: &str, id: &str, r: &EvalRow) -> Result<()> {
    let what = |reason: String| bad(file, id, &r.id, reason);
    Family::by_name(&r.family).map_err(|e| what(format!("eval row {:?}: {e}", r.id)))?;
    r.quantity
        .parse::<Quantity>()
        .map_err(|e| what(format!("eval row {:?}: {e}", r.id)))?;
    parse_params(&r.params).map_err(|e| what(format!("eval row {:?}: {e}", r.id)))?;
    Ok(())
}

/// Parses one file's text into rows, checking every row.
pub(super) fn parse_file(file: &'static str, text: &str) -> Result<Vec<ClaimRow>> {
    let parsed: FileToml = toml::from_str(text).map_err(|e| Error::Parse {
        what: "claims data file".into(),
        text: file.to_string(),
        reason: e.to_string(),
    })?;
    let mut out = Vec::new();
    for r in parsed.claim {
        let id = r.id.clone();
        let decide = DECIDERS
            .iter()
            .flat_map(|d| d.iter())
            .find(|d| d.name == r.decide)
            .ok_or_else(|| bad(file, &id, &r.decide, "unknown decision (decide = …)"))?;
        let command = match (r.command.as_str(), &r.why) {
            ("only", None) => Command::Only,
            ("eval", None) if !r.eval.is_empty() => Command::Eval,
            ("eval", None) => {
                return Err(bad(file, &id, "eval", "command = \"eval\" needs eval rows"))
            }
            ("none", Some(why)) => Command::None(why.clone()),
            (other, _) => return Err(bad(
                file,
                &id,
                other,
                "command must be \"only\", \"eval\" (with eval rows) or \"none\" (with why = …)",
            )),
        };
        for e in r.eval.iter().chain(&r.rows) {
            check_eval_row(file, &id, e)?;
        }
        for (name, g) in &r.grid {
            let cells: Vec<&String> = match g {
                Grid::List(v) => v.iter().collect(),
                Grid::Tuples(v) => v.iter().flatten().collect(),
            };
            for c in cells {
                c.parse::<Scalar>()
                    .map_err(|_| bad(file, &id, c, format!("grid {name}: not a decimal")))?;
            }
        }
        if matches!(decide.decide, Decide::Thm2(_)) && !matches!(command, Command::Only) {
            return Err(bad(
                file,
                &id,
                &r.command,
                "a simulated row's command is \"only\"",
            ));
        }
        out.push(ClaimRow {
            file,
            id,
            source: r.source,
            statement: r.statement,
            command,
            decide,
            eval: r.eval,
            rows: r.rows,
            grid: r.grid,
            text: r.text,
        });
    }
    Ok(out)
}

/// Every row of every file, in table order; ids are unique.
pub(super) fn load() -> Result<Vec<ClaimRow>> {
    let mut rows: Vec<ClaimRow> = Vec::new();
    for (file, text) in FILES {
        for r in parse_file(file, text)? {
            if rows.iter().any(|o| o.id == r.id) {
                return Err(bad(file, &r.id, &r.id, "duplicate id"));
            }
            rows.push(r);
        }
    }
    Ok(rows)
}

/// The table, parsed once.
pub(super) fn table() -> Result<&'static [ClaimRow]> {
    static TABLE: OnceLock<Vec<ClaimRow>> = OnceLock::new();
    if let Some(t) = TABLE.get() {
        return Ok(t);
    }
    let rows = load()?;
    Ok(TABLE.get_or_init(|| rows))
}
