//! Reports: the presentation of [`crate::compare`]'s results — the three-way comparison
//! bound | exact | audit for every audit spec, the golden verification, the positive controls
//! and the plots — as Markdown, CSV, SVG and PNG. This module formats and writes; every number
//! it shows is computed in [`crate::compare`], and it calls nothing in `divergence`, `bounds` or
//! `audit`.
//!
//! * [`csv`]: atomic writes and deterministic tables; [`markdown`]: `summary.md`;
//! * [`plots`]: the renderer (bundled font, SVG + PNG) of [`crate::compare::figure`] data;
//! * [`progress`]: the terminal progress bar handed to the audit engine as an observer;
//! * [`claims`]: the seed-claims table (`claims.md`, `claims.csv`);
//! * [`samples`]: the report of `dpaudit audit-samples` (a [`crate::audit::samples::SamplesAudit`]).
//!
//! Entry points: [`run_report`] (`dpaudit report`) and [`run_single`] (`dpaudit audit`).
//! Two runs with the same specs (seeds) write byte-identical CSV files; wall times appear only in
//! the Markdown.

pub(crate) mod accounting;
pub(crate) mod claims;
pub(crate) mod command;
pub(crate) mod csv;
pub(crate) mod json;
pub(crate) mod markdown;
pub(crate) mod plots;
pub(crate) mod progress;
pub(crate) mod samples;

pub(crate) use crate::compare::{curves, golden, shards, sources, threeway};

use crate::compare::spec::{self, AuditSpec};
use crate::error::{Error, Result};
use csv::{fmt_num, write_atomic, Table};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use threeway::ThreeWay;

/// Options of `dpaudit report` / `dpaudit audit`.
#[derive(Clone, Debug)]
pub(crate) struct ReportOptions {
    /// Output directory (created if missing).
    pub out: PathBuf,
    /// Directory of the audit specs (`report` only).
    pub specs_dir: PathBuf,
    /// Directory of the golden tables (`report` only); skipped with a note if absent.
    pub golden_dir: PathBuf,
    /// Quick mode: 1/20 of the samples (at least [`QUICK_MIN_SAMPLES`]), golden digits capped
    /// at 15.
    pub quick: bool,
    /// Samples per side for every audit, overriding the specs.
    pub samples: Option<u64>,
    /// Show progress bars (only on a terminal).
    pub progress: bool,
    /// The command line, quoted in the summary.
    pub command: String,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            out: PathBuf::from("reports"),
            specs_dir: PathBuf::from("audits"),
            golden_dir: PathBuf::from("golden"),
            quick: false,
            samples: None,
            progress: false,
            command: "dpaudit report".into(),
        }
    }
}

/// Fewest samples per side in quick mode.
pub(crate) const QUICK_MIN_SAMPLES: u64 = 20_000;
/// Samples per side of each positive control (quick mode: 1/10).
pub(crate) const CONTROL_SAMPLES: u64 = 200_000;

impl ReportOptions {
    /// Samples per side for a spec.
    pub(crate) fn samples_for(&self, spec: &AuditSpec) -> u64 {
        if let Some(n) = self.samples {
            return n;
        }
        let n = spec.audit.samples_per_side;
        if self.quick {
            (n / 20).max(QUICK_MIN_SAMPLES).min(n)
        } else {
            n
        }
    }

    /// δ points per decade of the privacy-profile plots (quick: 1).
    fn per_decade(&self) -> u32 {
        if self.quick {
            1
        } else {
            2
        }
    }

    fn golden_cap(&self) -> u32 {
        if self.quick {
            15
        } else {
            golden::MAX_GOLDEN_DIGITS
        }
    }
}

/// What a report found.
#[derive(Clone, Debug, Default)]
pub(crate) struct ReportOutcome {
    /// All `VIOLATION: …` lines.
    pub violations: Vec<String>,
    /// Golden rows that failed.
    pub golden_failures: usize,
    /// Positive controls the audit missed.
    pub controls_missed: usize,
    /// Checks that should have run and did not (an audit that failed, an exact value that could
    /// not be computed, golden verification or controls that could not run), one line each.
    pub not_run: Vec<String>,
    /// Golden rows that agree, out of the rows checked (None: not run or not part of the command).
    pub golden_passed: Option<(usize, usize)>,
    /// Positive controls caught, out of those run (None: not run or not part of the command).
    pub controls_caught: Option<(usize, usize)>,
    /// Number of specs compared.
    pub specs: usize,
    /// The spec that took longest, with its wall time in seconds.
    pub slowest: Option<(String, f64)>,
    /// The Markdown summary written.
    pub summary: Option<PathBuf>,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// The three-way comparisons, one per spec (for `--format json`).
    pub threeways: Vec<ThreeWay>,
}

impl ReportOutcome {
    /// The short verdict for the terminal: VIOLATION and NOT RUN lines, then one line with the
    /// counts (golden rows, controls), the slowest spec and where the report is.
    pub(crate) fn verdict_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.violations.clone();
        out.extend(self.not_run.iter().cloned());
        let mut parts = vec![if self.violations.is_empty() {
            format!("no VIOLATION in {} spec(s)", self.specs)
        } else {
            format!(
                "{} VIOLATION(S) in {} spec(s)",
                self.violations.len(),
                self.specs
            )
        }];
        if let Some((p, t)) = self.golden_passed {
            parts.push(format!("golden {p}/{t} rows agree"));
        }
        if let Some((c, t)) = self.controls_caught {
            parts.push(format!("positive controls {c}/{t} caught"));
        }
        if let Some((name, secs)) = &self.slowest {
            parts.push(format!("slowest spec {name} ({secs:.1} s)"));
        }
        out.push(format!("verdict: {}", parts.join("; ")));
        if let Some(p) = &self.summary {
            out.push(format!(
                "report: {} ({} files in {})",
                p.display(),
                self.files.len(),
                p.parent()
                    .map_or_else(String::new, |d| d.display().to_string())
            ));
        }
        out
    }

    /// Whether a VIOLATION, a failing golden row or a missed positive control was found.
    pub(crate) fn found_something(&self) -> bool {
        !self.violations.is_empty() || self.golden_failures > 0 || self.controls_missed > 0
    }

    /// The command's exit status: 1 when something was found (VIOLATION, failing golden row,
    /// missed control); else 2 when a check did not run ("not run" is never reported as clean);
    /// else 0.
    pub(crate) fn exit_status(&self) -> u8 {
        if self.found_something() {
            1
        } else if !self.not_run.is_empty() {
            2
        } else {
            0
        }
    }
}

/// The spec with the longest wall time.
fn slowest(results: &[(ThreeWay, Duration)]) -> Option<(String, f64)> {
    results
        .iter()
        .max_by(|a, b| a.1.cmp(&b.1))
        .map(|(t, d)| (t.spec.name.clone(), d.as_secs_f64()))
}

/// The "NOT RUN" lines of a set of three-way comparisons: a spec whose audit was asked for but
/// gave no figure, or whose exact value could not be computed, cannot support a verdict.
fn not_run_lines(tws: &[&ThreeWay]) -> Vec<String> {
    let mut out = Vec::new();
    for tw in tws {
        let missing = |role: threeway::Role| {
            tw.figures
                .iter()
                .find(|f| f.role == role && f.value.is_none())
                .map(|f| f.note.clone())
        };
        let has = |role: threeway::Role| {
            tw.figures
                .iter()
                .any(|f| f.role == role && f.value.is_some())
        };
        if tw.audit.is_none() {
            let why = missing(threeway::Role::Audit).unwrap_or_else(|| "no audit figure".into());
            out.push(format!("NOT RUN: {}: audit: {why}", tw.spec.name));
        }
        if !has(threeway::Role::Exact) && !has(threeway::Role::ExactUpper) {
            let why = missing(threeway::Role::Exact).unwrap_or_else(|| "no exact figure".into());
            out.push(format!("NOT RUN: {}: exact value: {why}", tw.spec.name));
        }
    }
    out
}

fn ensure_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| {
        Error::Io(format!(
            "cannot create output directory {}: {e}",
            dir.display()
        ))
    })
}

/// The privacy-profile figures the registry's families name, each once, in registry order.
fn profile_figures() -> Vec<&'static crate::model::spec_form::ProfileFigure> {
    let mut figures: Vec<&'static crate::model::spec_form::ProfileFigure> = Vec::new();
    for f in crate::model::FAMILIES {
        if let Some(p) = &f.spec.panels {
            if !figures.iter().any(|g| g.stem == p.profile.stem) {
                figures.push(p.profile);
            }
        }
    }
    figures
}

/// The CSV of the three-way figures (deterministic).
pub(crate) fn threeway_table(results: &[&ThreeWay]) -> Table {
    let mut t = Table::new(&[
        "spec", "family", "delta", "role", "figure", "value", "digits", "source", "note",
    ]);
    for tw in results {
        for f in &tw.figures {
            t.push(vec![
                tw.spec.name.clone(),
                tw.spec.mechanism.family().into(),
                tw.spec.audit.delta.to_string(),
                f.role.as_str().into(),
                f.short.clone(),
                f.value.map(fmt_num).unwrap_or_default(),
                f.digits.map(|d| d.to_string()).unwrap_or_default(),
                f.label.clone(),
                f.note.clone(),
            ]);
        }
        for v in &tw.violations {
            t.push_sparse(&[
                ("spec", tw.spec.name.clone()),
                ("family", tw.spec.mechanism.family().into()),
                ("delta", tw.spec.audit.delta.to_string()),
                ("role", "VIOLATION".into()),
                ("note", v.clone()),
            ]);
        }
    }
    t
}

/// The CSV of the audits' details (counts, thresholds; deterministic).
pub(crate) fn audit_details_table(results: &[&ThreeWay]) -> Table {
    let mut t = Table::new(&["spec", "key", "value"]);
    for tw in results {
        if let Some(a) = &tw.audit {
            t.push(vec![
                tw.spec.name.clone(),
                "samples_per_side".into(),
                a.samples.to_string(),
            ]);
            t.push(vec![
                tw.spec.name.clone(),
                "seed".into(),
                tw.spec.audit.seed.to_string(),
            ]);
            for (k, v) in &a.details {
                t.push(vec![tw.spec.name.clone(), k.clone(), v.clone()]);
            }
        }
    }
    t
}

fn controls_table(c: &[sources::ControlOutcome]) -> Table {
    Table::of(
        c,
        &[
            ("control", |x| x.name.clone()),
            ("description", |x| x.description.clone()),
            ("delta", |x| fmt_num(x.delta)),
            ("claimed_eps", |x| fmt_num(x.claimed_eps)),
            ("eps_lb", |x| fmt_num(x.eps_lb)),
            ("confidence", |x| x.confidence.to_string()),
            ("eps_lb_strict", |x| fmt_num(x.eps_lb_strict)),
            ("verdict", |x| {
                if markdown::control_caught(x) {
                    "caught"
                } else {
                    "MISSED"
                }
                .into()
            }),
        ],
    )
}

/// Runs the three-way comparison of each spec, in order, with its wall time.
fn run_specs(specs: &[AuditSpec], opts: &ReportOptions) -> Vec<(ThreeWay, Duration)> {
    specs
        .iter()
        .map(|s| {
            if opts.progress {
                eprintln!("dpaudit: {} ({})", s.name, s.description);
            }
            let t = Instant::now();
            let bar = progress::bar("audit", opts.progress);
            let tw = threeway::three_way(s, Some(opts.samples_for(s)), bar);
            (tw, t.elapsed())
        })
        .collect()
}

fn write_plot(
    fig: &plots::PlotFigure,
    out: &Path,
    stem: &str,
    caption: &str,
    plots_list: &mut Vec<(String, String)>,
    files: &mut Vec<PathBuf>,
) -> Result<()> {
    if fig.panels.is_empty() {
        return Ok(());
    }
    plots::render(fig, out, stem)?;
    for ext in ["svg", "png", "csv"] {
        files.push(out.join(format!("{stem}.{ext}")));
    }
    plots_list.push((stem.into(), caption.into()));
    Ok(())
}

/// `dpaudit report`: every spec in `opts.specs_dir`, the golden verification, the positive
/// controls and all plots, written to `opts.out`.
pub(crate) fn run_report(opts: &ReportOptions) -> Result<ReportOutcome> {
    let t0 = Instant::now();
    let specs = spec::load_dir(&opts.specs_dir)?;
    if specs.is_empty() {
        return Err(Error::Io(format!(
            "no audit specs (*.toml) in {}",
            opts.specs_dir.display()
        )));
    }
    ensure_dir(&opts.out)?;
    let results = run_specs(&specs, opts);
    let control_samples = if opts.quick {
        CONTROL_SAMPLES / 10
    } else {
        CONTROL_SAMPLES
    };
    if opts.progress {
        eprintln!("dpaudit: positive controls");
    }
    let bar = || progress::bar("control", opts.progress);
    let controls = sources::run_controls(opts.samples.unwrap_or(control_samples), &bar);
    let golden = if opts.golden_dir.is_dir() {
        if opts.progress {
            eprintln!(
                "dpaudit: golden verification ({})",
                opts.golden_dir.display()
            );
        }
        golden::verify_dir(&opts.golden_dir, opts.golden_cap())
    } else {
        Err(Error::Io(format!(
            "no golden directory {}",
            opts.golden_dir.display()
        )))
    };
    if opts.progress {
        eprintln!("dpaudit: plots");
    }
    let out = &opts.out;
    let mut files = Vec::new();
    let mut plot_list = Vec::new();
    let tws: Vec<&ThreeWay> = results.iter().map(|(t, _)| t).collect();
    write_plots(opts, &tws, &specs, &mut plot_list, &mut files)?;
    write_tables(out, &tws, &controls, &golden, &mut files)?;
    if opts.progress {
        eprintln!("dpaudit: seed claims");
    }
    let mut accounting_not_run: Option<String> = None;
    let (_, claim_files) = claims::write_claims(out, &opts.command, None)?;
    files.extend(claim_files);
    if opts.progress {
        eprintln!("dpaudit: accounting page");
    }
    let page =
        crate::compare::accounting::accounting_page(Path::new("benches/peers_accounting.csv"));
    match page {
        Ok(p) => files.extend(accounting::write_accounting(out, &p, &opts.command)?),
        Err(e) => accounting_not_run = Some(format!("NOT RUN: accounting page: {e}")),
    }
    let mut not_run = not_run_lines(&tws);
    not_run.extend(accounting_not_run.take());
    if let Err(e) = &golden {
        not_run.push(format!("NOT RUN: golden verification: {e}"));
    }
    if let Err(e) = &controls {
        not_run.push(format!("NOT RUN: positive controls: {e}"));
    }
    let md = markdown::render(&markdown::SummaryInput {
        title: "dpaudit report",
        command: &opts.command,
        results: &results,
        not_run: &not_run,
        golden: Some(&golden),
        controls: Some(&controls),
        plots: &plot_list,
        total: t0.elapsed(),
    });
    let p = out.join("summary.md");
    write_atomic(&p, md.as_bytes())?;
    files.push(p);
    Ok(outcome(
        &results, &tws, not_run, &golden, &controls, out, files,
    ))
}

/// The report's plots: the privacy-profile figures that the specs' families name (registry
/// data, [`crate::model::spec_form::Panels`]), D_α against α and HG's location figure, listed in
/// `plot_list` and `files`.
fn write_plots(
    opts: &ReportOptions,
    tws: &[&ThreeWay],
    specs: &[AuditSpec],
    plot_list: &mut Vec<(String, String)>,
    files: &mut Vec<PathBuf>,
) -> Result<()> {
    let out = &opts.out;
    let profile_of = |t: &ThreeWay| {
        let panels = t.spec.mechanism.family.spec.panels.as_ref();
        panels.map(|p| p.profile.stem)
    };
    for fig in profile_figures() {
        let members: Vec<&ThreeWay> = tws
            .iter()
            .copied()
            .filter(|t| profile_of(t) == Some(fig.stem))
            .collect();
        let figure = curves::profile_figure(fig.title, &members, opts.per_decade());
        crate::limits::check_deadline("the report's privacy-profile curves")?;
        write_plot(&figure, out, fig.stem, fig.caption, plot_list, files)?;
    }
    let specs_ref: Vec<&AuditSpec> = specs.iter().collect();
    let figure = curves::renyi_figure(&specs_ref);
    crate::limits::check_deadline("the report's Rényi curves")?;
    write_plot(
        &figure,
        out,
        "renyi_alpha",
        "D_α against α: exact vs Theorem 1 (RGM), Gaussian, bounded support",
        plot_list,
        files,
    )?;
    let figure = curves::location_figure(&curves::LocationSweep::default());
    crate::limits::check_deadline("the report's location curves")?;
    write_plot(
        &figure,
        out,
        "location",
        "Fisher information and per-instance RDP against the location (Hu & Guo, Fig. 1)",
        plot_list,
        files,
    )?;
    Ok(())
}

/// The report's CSV tables: three-way rows, audit details, controls and golden checks (those
/// that ran).
fn write_tables(
    out: &Path,
    tws: &[&ThreeWay],
    controls: &Result<Vec<sources::ControlOutcome>>,
    golden: &Result<golden::GoldenSummary>,
    files: &mut Vec<PathBuf>,
) -> Result<()> {
    let p = out.join("threeway.csv");
    threeway_table(tws).write(&p)?;
    files.push(p);
    let p = out.join("audits.csv");
    audit_details_table(tws).write(&p)?;
    files.push(p);
    if let Ok(c) = &controls {
        let p = out.join("controls.csv");
        controls_table(c).write(&p)?;
        files.push(p);
    }
    if let Ok(g) = &golden {
        let p = out.join("golden.csv");
        g.table().write(&p)?;
        files.push(p);
    }
    Ok(())
}

/// The outcome of a report run: what was found, what did not run, the files written.
fn outcome(
    results: &[(ThreeWay, Duration)],
    tws: &[&ThreeWay],
    not_run: Vec<String>,
    golden: &Result<golden::GoldenSummary>,
    controls: &Result<Vec<sources::ControlOutcome>>,
    out: &Path,
    files: Vec<PathBuf>,
) -> ReportOutcome {
    ReportOutcome {
        violations: tws.iter().flat_map(|t| t.violations.clone()).collect(),
        not_run,
        golden_failures: golden
            .as_ref()
            .map_or(0, |g| g.failures().len() + g.unreadable.len()),
        controls_missed: controls.as_ref().map_or(0, |c| {
            c.iter().filter(|x| !markdown::control_caught(x)).count()
        }),
        golden_passed: golden
            .as_ref()
            .ok()
            .map(|g| (g.passed(), g.checks.len() + g.unreadable.len())),
        controls_caught: controls.as_ref().ok().map(|c| {
            (
                c.iter().filter(|x| markdown::control_caught(x)).count(),
                c.len(),
            )
        }),
        specs: results.len(),
        slowest: slowest(results),
        summary: Some(out.join("summary.md")),
        files,
        threeways: results.iter().map(|(t, _)| t.clone()).collect(),
    }
}

/// `dpaudit audit SPEC.toml`: one spec, written to `opts.out` as `<name>.md`, `<name>.csv`,
/// `<name>_audit.csv` and the privacy-profile plot `<name>_profile.{svg,png,csv}`.
pub(crate) fn run_single(spec_path: &Path, opts: &ReportOptions) -> Result<ReportOutcome> {
    let t0 = Instant::now();
    let spec = AuditSpec::from_file(spec_path)?;
    ensure_dir(&opts.out)?;
    let results = run_specs(std::slice::from_ref(&spec), opts);
    // Past `--max-seconds` the figures are incomplete: an error, and nothing written.
    crate::limits::check_deadline(&format!("dpaudit audit {}", spec.name))?;
    write_single(&spec, results, opts, t0)
}

/// `dpaudit merge`: the outputs of `dpaudit audit` for a spec whose audit was drawn in shards
/// (see [`shards`]): byte-identical CSVs to the unsharded run.
pub(crate) fn run_merged(merged: &shards::Merged, opts: &ReportOptions) -> Result<ReportOutcome> {
    let t0 = Instant::now();
    ensure_dir(&opts.out)?;
    let audit = sources::audit_from_draws(&merged.spec, merged.samples, &merged.draws);
    let tw = threeway::three_way_with(&merged.spec, Some(audit));
    write_single(&merged.spec, vec![(tw, t0.elapsed())], opts, t0)
}

fn write_single(
    spec: &AuditSpec,
    results: Vec<(ThreeWay, Duration)>,
    opts: &ReportOptions,
    t0: Instant,
) -> Result<ReportOutcome> {
    let tws: Vec<&ThreeWay> = results.iter().map(|(t, _)| t).collect();
    let out = &opts.out;
    let mut files = Vec::new();
    let mut plot_list = Vec::new();
    let stem = format!("{}_profile", spec.name);
    let figure = curves::profile_figure(
        &format!("Privacy profile ε(δ): {}", spec.name),
        &tws,
        opts.per_decade(),
    );
    // The curves are computed on rayon's threads under the command's limits (a point past the
    // limit is left out): past `--max-seconds`, the command stops here and writes nothing.
    crate::limits::check_deadline("the report's privacy-profile curves")?;
    write_plot(
        &figure,
        out,
        &stem,
        "Privacy profile: exact vs bounds vs audit",
        &mut plot_list,
        &mut files,
    )?;
    let p = out.join(format!("{}.csv", spec.name));
    threeway_table(&tws).write(&p)?;
    files.push(p);
    let p = out.join(format!("{}_audit.csv", spec.name));
    audit_details_table(&tws).write(&p)?;
    files.push(p);
    let not_run = not_run_lines(&tws);
    let md = markdown::render(&markdown::SummaryInput {
        title: &format!("dpaudit audit: {}", spec.name),
        command: &opts.command,
        results: &results,
        not_run: &not_run,
        golden: None,
        controls: None,
        plots: &plot_list,
        total: t0.elapsed(),
    });
    let p = out.join(format!("{}.md", spec.name));
    write_atomic(&p, md.as_bytes())?;
    files.push(p);
    Ok(ReportOutcome {
        violations: tws.iter().flat_map(|t| t.violations.clone()).collect(),
        not_run,
        specs: results.len(),
        slowest: slowest(&results),
        summary: Some(out.join(format!("{}.md", spec.name))),
        files,
        threeways: results.iter().map(|(t, _)| t.clone()).collect(),
        ..ReportOutcome::default()
    })
}
