//! The Markdown summary of a report (`summary.md`, or `<spec>.md` for a single audit).
//!
//! Wall times appear only here (never in the CSVs, which must be identical across runs).

use super::csv::{fmt_num, fmt_sig, Table};
use super::golden::GoldenSummary;
use super::sources::ControlOutcome;
use super::threeway::{Figure, Role, ThreeWay};
use crate::scalar::Scalar;
use std::fmt::Write;
use std::time::Duration;

/// The overview's audit cell: the lower bound with its confidence, and the strict bound that
/// decides a violation.
fn audit_cell(tw: &ThreeWay) -> String {
    let audit = joined(tw, &[Role::Audit]);
    let conf = match &tw.audit {
        Some(a) if audit != "—" && audit != "n/a" => {
            format!(" ({}%)", fmt_sig(a.confidence * 100.0, 4))
        }
        _ => String::new(),
    };
    let strict = tw
        .figures
        .iter()
        .find(|f| f.role == Role::AuditStrict && f.value.is_some())
        .map(|f| format!("<br>{} (1 − 10⁻⁶, decides a violation)", value(f)))
        .unwrap_or_default();
    format!("{audit}{conf}{strict}")
}

/// Everything the summary shows.
pub(crate) struct SummaryInput<'a> {
    /// The title line.
    pub title: &'a str,
    /// The command that produced it.
    pub command: &'a str,
    /// Three-way results with the wall time of each.
    pub results: &'a [(ThreeWay, Duration)],
    /// "NOT RUN: …" lines: checks that should have run and did not.
    pub not_run: &'a [String],
    /// Golden verification, if run (Err: why not).
    pub golden: Option<&'a crate::Result<GoldenSummary>>,
    /// Positive controls, if run (Err: why not).
    pub controls: Option<&'a crate::Result<Vec<ControlOutcome>>>,
    /// Plot stems (PNG and SVG written next to the summary), with captions.
    pub plots: &'a [(String, String)],
    /// Total wall time.
    pub total: Duration,
}

pub(crate) use crate::compare::sources::control_caught;

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|")
}

fn value(f: &Figure) -> String {
    match f.value {
        Some(v) => fmt_num(v),
        None => "n/a".into(),
    }
}

fn joined(tw: &ThreeWay, roles: &[Role]) -> String {
    let v: Vec<String> = tw
        .figures
        .iter()
        .filter(|f| roles.contains(&f.role))
        .map(|f| {
            if roles.len() > 1
                || tw
                    .figures
                    .iter()
                    .filter(|g| roles.contains(&g.role))
                    .count()
                    > 1
            {
                format!("{} ({})", value(f), f.short)
            } else {
                value(f)
            }
        })
        .collect();
    if v.is_empty() {
        "—".into()
    } else {
        v.join("<br>")
    }
}

/// `k1 = v1, k2 = v2, …` of a model family's spec parameters.
fn assignments(params: &[(&str, Scalar)]) -> String {
    let parts: Vec<String> = params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    parts.join(", ")
}

/// The spec's parameters and pair, as its family describes them
/// ([`crate::model::SpecForm::describe`]; by default `k = v, …`, and `μ = a vs b` for two
/// locations).
fn pair_text(tw: &ThreeWay) -> String {
    let s = &tw.spec;
    let form = &s.mechanism.family.spec;
    let (mech, pair) = s.with_params(|p| {
        (
            form.describe.map(|f| f(p)),
            form.describe_pair.map(|f| f(p)),
        )
    });
    let pair = pair.unwrap_or_else(|| match (s.pair.get("mu1"), s.pair.get("mu2")) {
        (Some(mu1), Some(mu2)) => format!("μ = {mu1} vs {mu2}"),
        _ => assignments(&s.pair.inputs),
    });
    let mech = mech.unwrap_or_else(|| assignments(&s.mechanism.params));
    format!("{mech}; pair {pair}")
}

/// Renders the summary.
pub(crate) fn render(inp: &SummaryInput) -> String {
    let mut o = String::new();
    render_intro(&mut o, inp);
    render_verdict(&mut o, inp);
    render_overview(&mut o, inp);
    render_per_mechanism(&mut o, inp);
    render_controls(&mut o, inp);
    render_golden(&mut o, inp);
    render_plots(&mut o, inp);
    o
}

/// The title and the introduction.
fn render_intro(o: &mut String, inp: &SummaryInput) {
    let _ = writeln!(o, "# {}\n", inp.title);
    let _ = writeln!(
        o,
        "Produced by `{}`. For every audited mechanism, three numbers at the spec's δ: the \
         paper's closed-form **bound**, the **exact** ε(δ) of the neighbouring pair computed to \
         certified digits, and the Monte Carlo **audit lower bound** with its confidence. A sound \
         mechanism with a sound bound satisfies audit ≤ exact ≤ bound; every failure of that \
         order is printed as a `VIOLATION` line. The audit column shows the lower bound at the \
         spec's confidence and, beside it, the same bound at confidence 1 − 10⁻⁶: a \
         `VIOLATION` of audit ≤ exact is decided on the latter, so each of the {} audits below \
         raises a false alarm with probability ≤ 10⁻⁶ and the whole report with probability \
         ≤ {}·10⁻⁶. The GDP column extrapolates the audit under the assumption that the \
         trade-off curve is Gaussian and is not a guarantee.\n",
        inp.command,
        inp.results.len(),
        inp.results.len()
    );
}

/// The verdict: violations, specs not run, golden and control counts, wall time.
fn render_verdict(o: &mut String, inp: &SummaryInput) {
    let violations: Vec<&String> = inp
        .results
        .iter()
        .flat_map(|(t, _)| t.violations.iter())
        .collect();
    let _ = writeln!(o, "## Verdict\n");
    if violations.is_empty() {
        let _ = writeln!(
            o,
            "- **No VIOLATION** in {} specs (audit ≤ exact ≤ bound everywhere it was computed).",
            inp.results.len()
        );
    } else {
        let _ = writeln!(o, "- **{} VIOLATION(S)**:\n", violations.len());
        for v in &violations {
            let _ = writeln!(o, "  - `{v}`");
        }
    }
    for n in inp.not_run {
        let _ = writeln!(o, "- **{n}** (no verdict for it: not run is not clean)");
    }
    if let Some(g) = inp.golden {
        match g {
            Ok(g) => {
                let _ = writeln!(
                    o,
                    "- Golden verification: **{} / {}** rows agree with the independent values \
                     to at least their certified digits{}.",
                    g.passed(),
                    g.checks.len(),
                    if g.failures().is_empty() && g.unreadable.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " ({} failures, {} unreadable rows: see below)",
                            g.failures().len(),
                            g.unreadable.len()
                        )
                    }
                );
            }
            Err(e) => {
                let _ = writeln!(o, "- Golden verification: not run ({e}).");
            }
        }
    }
    if let Some(c) = inp.controls {
        match c {
            Ok(c) => {
                let caught = c.iter().filter(|x| control_caught(x)).count();
                let _ = writeln!(
                    o,
                    "- Positive controls (broken mechanisms): **{caught} / {}** caught.",
                    c.len()
                );
            }
            Err(e) => {
                let _ = writeln!(o, "- Positive controls: not run ({e}).");
            }
        }
    }
    let _ = writeln!(
        o,
        "- Wall time: {:.1} s (wall times appear only in this file; the CSVs are deterministic).\n",
        inp.total.as_secs_f64()
    );
}

/// The overview table.
fn render_overview(o: &mut String, inp: &SummaryInput) {
    let _ = writeln!(o, "## Overview\n");
    let overview = Table::of(
        inp.results,
        &[
            ("spec", |r| r.0.spec.name.clone()),
            ("mechanism", |r| md_escape(&r.0.spec.description)),
            ("δ", |r| r.0.spec.audit.delta.to_string()),
            ("bound", |r| md_escape(&joined(&r.0, &[Role::Bound]))),
            ("exact", |r| {
                md_escape(&joined(&r.0, &[Role::Exact, Role::ExactUpper]))
            }),
            ("audit lower bound (confidence)", |r| audit_cell(&r.0)),
            ("GDP (assumes Gaussian)", |r| joined(&r.0, &[Role::Gdp])),
        ],
    );
    o.push_str(&overview.markdown());
    let _ = writeln!(
        o,
        "\n\"≥ exact\" marks an upper bound on the exact ε (the exact RDP curve converted with \
         Canonne–Kamath–Steinke), shown where no certified ε(δ) is available.\n"
    );
}

/// One section per spec: its figures, violations and remarks.
fn render_per_mechanism(o: &mut String, inp: &SummaryInput) {
    let _ = writeln!(o, "## Per mechanism\n");
    for (tw, wall) in inp.results {
        let s = &tw.spec;
        let _ = writeln!(o, "### {}\n", s.name);
        if !s.description.is_empty() {
            let _ = writeln!(o, "{}.\n", s.description);
        }
        let _ = writeln!(
            o,
            "Spec `{}`: {}; δ = {}; audit: {} samples per side, confidence {}, seed {}. Wall \
             time {:.1} s.\n",
            s.path.display(),
            pair_text(tw),
            s.audit.delta,
            tw.audit
                .as_ref()
                .map_or(s.audit.samples_per_side, |a| a.samples),
            s.audit.confidence,
            s.audit.seed,
            wall.as_secs_f64()
        );
        let figures = Table::of(
            &tw.figures,
            &[
                ("figure", |f| f.role.as_str().into()),
                ("value", |f| value(f)),
                ("certified digits", |f| {
                    f.digits.map_or("—".into(), |d| d.to_string())
                }),
                ("source", |f| md_escape(&f.label)),
                ("note", |f| md_escape(&f.note)),
            ],
        );
        let _ = writeln!(o, "{}", figures.markdown());
        for v in &tw.violations {
            let _ = writeln!(o, "**{v}**\n");
        }
        for r in &tw.remarks {
            let _ = writeln!(o, "- {}", md_escape(r));
        }
        if !tw.remarks.is_empty() {
            let _ = writeln!(o);
        }
    }
}

/// The positive controls.
fn render_controls(o: &mut String, inp: &SummaryInput) {
    if let Some(Ok(c)) = inp.controls {
        let _ = writeln!(o, "## Positive controls\n");
        let _ = writeln!(
            o,
            "Deliberately broken mechanisms that claim a privacy level they do not have. Here the \
             audit is EXPECTED to exceed the claim: \"caught\" means it did, \"MISSED\" that the \
             audit failed to detect the bug.\n"
        );
        let controls = Table::of(
            c,
            &[
                ("control", |x| x.name.clone()),
                ("what is broken", |x| md_escape(&x.description)),
                ("δ", |x| fmt_num(x.delta)),
                ("claimed ε", |x| fmt_num(x.claimed_eps)),
                ("audit ε_lb (confidence)", |x| {
                    format!(
                        "{} ({}%)<br>{} (1 − 10⁻⁶, decides)",
                        fmt_num(x.eps_lb),
                        fmt_sig(x.confidence * 100.0, 4),
                        fmt_num(x.eps_lb_strict)
                    )
                }),
                ("verdict", |x| {
                    if control_caught(x) {
                        "caught"
                    } else {
                        "**MISSED**"
                    }
                    .into()
                }),
            ],
        );
        let _ = writeln!(o, "{}", controls.markdown());
    }
}

/// The golden verification.
fn render_golden(o: &mut String, inp: &SummaryInput) {
    if let Some(Ok(g)) = inp.golden {
        let _ = writeln!(o, "## Golden verification\n");
        let _ = writeln!(
            o,
            "Every row of {} was evaluated with `eval::evaluate` at its digits capped at {}, and \
             compared with the independent golden value. Full table: `golden.csv`.\n",
            g.files
                .iter()
                .map(|f| format!("`golden/{f}`"))
                .collect::<Vec<_>>()
                .join(", "),
            g.checks.iter().map(|c| c.requested).max().unwrap_or(0)
        );
        let mut per_file: Vec<(String, usize, usize)> = Vec::new();
        for c in &g.checks {
            match per_file.iter_mut().find(|(f, _, _)| *f == c.file) {
                Some(e) => {
                    e.1 += 1;
                    e.2 += usize::from(c.passed());
                }
                None => per_file.push((c.file.clone(), 1, usize::from(c.passed()))),
            }
        }
        let tables = Table::of(
            &per_file,
            &[
                ("table", |r| r.0.clone()),
                ("rows", |r| r.1.to_string()),
                ("pass", |r| r.2.to_string()),
            ],
        );
        let _ = writeln!(o, "{}", tables.markdown());
        let fails = g.failures();
        if !fails.is_empty() || !g.unreadable.is_empty() {
            let _ = writeln!(o, "Failures:\n");
            for c in fails.iter().take(100) {
                let why = match &c.computed {
                    Ok((v, d)) => format!(
                        "computed {v} (certified {d} digits) agrees with golden {} to only {} digits",
                        c.golden,
                        fmt_sig(c.agreement, 3)
                    ),
                    Err(e) => e.to_string(),
                };
                let _ = writeln!(
                    o,
                    "- `{}` {} ({} {} `{}`): {}",
                    c.file,
                    c.row.id,
                    c.row.quantity,
                    c.row.family,
                    c.row.params,
                    md_escape(&why)
                );
            }
            if fails.len() > 100 {
                let _ = writeln!(o, "- … and {} more (see golden.csv)", fails.len() - 100);
            }
            for u in &g.unreadable {
                let _ = writeln!(o, "- {u}");
            }
            let _ = writeln!(o);
        }
    }
}

/// The plots.
fn render_plots(o: &mut String, inp: &SummaryInput) {
    if !inp.plots.is_empty() {
        let _ = writeln!(o, "## Plots\n");
        for (stem, caption) in inp.plots {
            let _ = writeln!(
                o,
                "**{caption}** ([SVG]({stem}.svg), [data]({stem}.csv))\n\n![{caption}]({stem}.png)\n"
            );
        }
    }
}
