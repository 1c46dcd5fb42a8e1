//! The report of a command audit (`dpaudit audit SPEC` on a spec that names a command, or
//! `dpaudit merge` of its shards): `NAME.md`, `NAME.csv` (the row of `audit-samples`), and the
//! samples themselves, `NAME_a.npy` and `NAME_b.npy`, so that they can be audited again with
//! other statistics. Presentation only; nothing here depends on how the run was sharded, so a
//! merged run writes byte-identical files.

use std::path::{Path, PathBuf};

use super::csv::{fmt_num, write_atomic};
use super::json::Json;
use crate::compare::command::CommandRun;
use crate::error::{Error, Result};

/// The Markdown report.
pub(crate) fn markdown(run: &CommandRun) -> String {
    let s = &run.spec;
    let p = &run.plan;
    let mut o = format!("# Command audit: {}\n\n", s.name);
    if !s.description.is_empty() {
        o.push_str(&format!("{}\n\n", s.description));
    }
    o.push_str("| | |\n|---|---|\n");
    o.push_str(&format!(
        "| command | `{}` |\n",
        s.command.display().replace('`', "'")
    ));
    o.push_str(&format!(
        "| working directory | the spec's: `{}` |\n",
        s.command.dir.display()
    ));
    o.push_str(&format!(
        "| samples per side | {} in {} chunks of ≤ {} (one invocation each), seed {} |\n",
        p.samples_per_side,
        p.chunks(),
        p.chunk,
        p.seed
    ));
    o.push_str(
        "| protocol | `DPAUDIT_SIDE` (a: on x, b: on x′), `DPAUDIT_COUNT`, `DPAUDIT_SEED`, \
         `DPAUDIT_CHUNK` (docs/samples.md#command) |\n",
    );
    o.push_str(&format!(
        "| claim | (ε, δ) = ({}, {}){} |\n\n",
        fmt_num(s.options.eps),
        fmt_num(s.options.delta),
        s.claim_source
            .as_deref()
            .map(|c| format!(": {c}"))
            .unwrap_or_default()
    ));
    o.push_str(&format!(
        "Reproduce: `dpaudit audit {} --samples {}` (or in shards: `--shard K/N` on N machines, \
         then `dpaudit merge`). The samples are in `{n}_a.npy` and `{n}_b.npy`: `dpaudit \
         audit-samples {n}_a.npy {n}_b.npy --eps {} --delta {} --statistic …` audits them \
         again with another statistic.\n\n",
        s.path.display(),
        p.samples_per_side,
        fmt_num(s.options.eps),
        fmt_num(s.options.delta),
        n = s.name
    ));
    // The audit itself, as `audit-samples` reports it, without its title and command line.
    let body = super::samples::markdown(&run.audit, "");
    match body.find("**Verdict:") {
        Some(i) => o.push_str(&body[i..]),
        None => o.push_str(&body),
    }
    o
}

/// Writes `NAME.md`, `NAME.csv`, `NAME_a.npy` and `NAME_b.npy` into `out` (created if missing),
/// each atomically; returns the paths written.
pub(crate) fn write(run: &CommandRun, out: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", out.display())))?;
    let name = &run.spec.name;
    let md = out.join(format!("{name}.md"));
    let csv = out.join(format!("{name}.csv"));
    let a = out.join(format!("{name}_a.npy"));
    let b = out.join(format!("{name}_b.npy"));
    run.a.write_npy(&a)?;
    run.b.write_npy(&b)?;
    super::samples::table(&run.audit).write(&csv)?;
    write_atomic(&md, markdown(run))?;
    Ok(vec![md, csv, a, b])
}

/// The `--format json` document of a command audit (docs/json.md#audit-of-a-command): the
/// command and its plan, then the fields of `audit-samples`' document, then the files written;
/// `merged` (the shard files) makes it `dpaudit merge`'s document, as for other audits.
pub(crate) fn json(run: &CommandRun, files: &[PathBuf], merged: Option<&[PathBuf]>) -> Json {
    let s = &run.spec;
    let p = &run.plan;
    let mut body = Vec::new();
    if let Some(shards) = merged {
        body.push((
            "merged",
            Json::obj(vec![
                ("kind", Json::str("command-audit")),
                ("shards", Json::Int(shards.len() as u64)),
                ("files", super::json::commands::paths(shards)),
            ]),
        ));
    }
    body.extend([
        ("spec", Json::str(s.path.display().to_string())),
        ("name", Json::str(s.name.clone())),
        (
            "argv",
            Json::Arr(
                s.command
                    .argv
                    .iter()
                    .map(|a| Json::str(a.clone()))
                    .collect(),
            ),
        ),
        (
            "working_directory",
            Json::str(s.command.dir.display().to_string()),
        ),
        ("samples_per_side", Json::Int(p.samples_per_side)),
        ("chunk", Json::Int(p.chunk)),
        ("chunks", Json::Int(p.chunks())),
        (
            "claim_source",
            s.claim_source.clone().map_or(Json::Null, Json::str),
        ),
    ]);
    let mut out = match super::samples::json(&run.audit) {
        Json::Obj(fields) => fields,
        other => vec![("audit".to_string(), other)],
    };
    // The samples document's own envelope is replaced by this command's.
    out.retain(|(k, _)| !matches!(k.as_str(), "schema" | "command" | "ok"));
    let mut doc = match Json::document(if merged.is_some() { "merge" } else { "audit" }, body) {
        Json::Obj(fields) => fields,
        _ => unreachable!("a document is an object"),
    };
    doc.extend(out);
    doc.push(("files".to_string(), super::json::commands::paths(files)));
    Json::Obj(doc)
}
