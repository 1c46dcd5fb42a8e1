//! The `--format json` documents of `audit`, `merge`, `train`, `train-audit` and `claims`
//! (docs/json.md): built from the results the text mode prints, in the envelope of
//! [`Json::document`]. Certified figures are decimal strings written to the digits they
//! certify; statistical figures (ε lower bounds, rates, times) are JSON numbers.

use super::Json;
use crate::compare::fmt::{fmt_num, fmt_sig};
use crate::compare::threeway::{Figure, Role, ThreeWay};
use crate::report::ReportOutcome;
use std::path::{Path, PathBuf};

/// A list of paths as strings.
pub(crate) fn paths(files: &[PathBuf]) -> Json {
    Json::Arr(
        files
            .iter()
            .map(|p| Json::str(p.display().to_string()))
            .collect(),
    )
}

fn strings(v: &[String]) -> Json {
    Json::Arr(v.iter().map(|s| Json::str(s.clone())).collect())
}

fn opt_num(x: Option<f64>) -> Json {
    x.map_or(Json::Null, Json::Num)
}

/// A certified figure's value as a decimal string: its certified digits when it has them, else
/// the CSV's 12 significant digits (a paper's plain bound); `null` when it was not computed.
fn certified_value(f: &Figure) -> Json {
    match (f.value, f.digits) {
        (Some(v), Some(d)) => Json::str(fmt_sig(v, d.clamp(1, 17) as usize)),
        (Some(v), None) => Json::str(fmt_num(v)),
        (None, _) => Json::Null,
    }
}

/// One figure: `value` a decimal string for the certified and paper figures, a number for the
/// statistical ones (the audit's lower bounds and the Gaussian-DP route).
fn figure(f: &Figure) -> Json {
    let value = match f.role {
        Role::Audit | Role::AuditStrict | Role::Gdp => opt_num(f.value),
        _ => certified_value(f),
    };
    Json::obj(vec![
        ("role", Json::str(f.role.as_str())),
        ("short", Json::str(f.short.clone())),
        ("label", Json::str(f.label.clone())),
        ("value", value),
        (
            "digits",
            f.digits.map_or(Json::Null, |d| Json::Int(u64::from(d))),
        ),
        ("note", Json::str(f.note.clone())),
    ])
}

/// The verdict word of one comparison: `VIOLATION`, `NOT RUN` or `ok`.
fn verdict(tw: &ThreeWay, not_run: &[String]) -> &'static str {
    let prefix = format!("NOT RUN: {}:", tw.spec.name);
    if !tw.violations.is_empty() {
        "VIOLATION"
    } else if not_run.iter().any(|l| l.starts_with(&prefix)) {
        "NOT RUN"
    } else {
        "ok"
    }
}

/// One spec's three-way comparison: the paper's bounds, the exact value with its digits, the
/// audit's ε_lb with its confidence, and the verdict.
fn threeway(tw: &ThreeWay, not_run: &[String]) -> Json {
    let bounds: Vec<Json> = tw
        .figures
        .iter()
        .filter(|f| matches!(f.role, Role::Bound | Role::RdpBound | Role::RdpExact))
        .map(figure)
        .collect();
    let exact = tw
        .figures
        .iter()
        .find(|f| f.role == Role::Exact && f.value.is_some())
        .or_else(|| {
            tw.figures
                .iter()
                .find(|f| f.role == Role::ExactUpper && f.value.is_some())
        })
        .or_else(|| tw.figures.iter().find(|f| f.role == Role::Exact))
        .map_or(Json::Null, figure);
    let audit = match &tw.audit {
        None => Json::Null,
        Some(a) => Json::obj(vec![
            ("eps_lb", Json::Num(a.eps_lb)),
            ("confidence", Json::Num(a.confidence)),
            ("eps_lb_strict", Json::Num(a.eps_lb_strict)),
            (
                "strict_confidence",
                Json::Num(1.0 - crate::audit::engine::STRICT_BETA),
            ),
            ("gdp_eps", opt_num(a.gdp_eps)),
            ("samples_per_side", Json::Int(a.samples)),
            (
                "details",
                Json::Obj(
                    a.details
                        .iter()
                        .map(|(k, v)| (k.clone(), Json::str(v.clone())))
                        .collect(),
                ),
            ),
        ]),
    };
    let audit_missing = tw
        .figures
        .iter()
        .find(|f| f.role == Role::Audit && f.value.is_none())
        .map_or(Json::Null, |f| Json::str(f.note.clone()));
    Json::obj(vec![
        (
            "spec",
            Json::obj(vec![
                ("name", Json::str(tw.spec.name.clone())),
                ("description", Json::str(tw.spec.description.clone())),
                ("family", Json::str(tw.spec.mechanism.family())),
                ("delta", Json::str(tw.spec.audit.delta.to_string())),
                ("seed", Json::Int(tw.spec.audit.seed)),
            ]),
        ),
        ("bounds", Json::Arr(bounds)),
        ("exact", exact),
        ("audit", audit),
        ("audit_not_run", audit_missing),
        (
            "figures",
            Json::Arr(tw.figures.iter().map(figure).collect()),
        ),
        ("violations", strings(&tw.violations)),
        ("remarks", strings(&tw.remarks)),
        ("verdict", Json::str(verdict(tw, not_run))),
    ])
}

/// The body of `dpaudit audit` (and of a merged audit): the comparison, the not-run lines,
/// the exit status the command returns and the files written.
fn audit_body(o: &ReportOutcome) -> Vec<(&'static str, Json)> {
    let result = o
        .threeways
        .first()
        .map_or(Json::Null, |tw| threeway(tw, &o.not_run));
    vec![("result", result), ("not_run", strings(&o.not_run))]
        .into_iter()
        .chain(outcome_fields(o))
        .collect()
}

/// The fields every report-like document ends with: the verdict, the exit status the command
/// returns, the summary and the files written.
fn outcome_fields(o: &ReportOutcome) -> Vec<(&'static str, Json)> {
    vec![
        (
            "verdict",
            Json::str(match o.exit_status() {
                1 => "VIOLATION",
                2 => "NOT RUN",
                _ => "ok",
            }),
        ),
        ("exit_status", Json::Int(u64::from(o.exit_status()))),
        (
            "summary",
            o.summary
                .as_ref()
                .map_or(Json::Null, |p| Json::str(p.display().to_string())),
        ),
        ("files", paths(&o.files)),
    ]
}

/// The document of `dpaudit report`: every spec's comparison, the golden verification, the
/// positive controls, what did not run, the verdict and the files written.
pub(crate) fn report(o: &ReportOutcome) -> Json {
    let pair = |p: Option<(usize, usize)>, ok: &str, bad: usize, bad_name: &str| {
        p.map_or(Json::Null, |(n, total)| {
            Json::obj(vec![
                (ok, Json::Int(n as u64)),
                ("total", Json::Int(total as u64)),
                (bad_name, Json::Int(bad as u64)),
            ])
        })
    };
    Json::document(
        "report",
        vec![
            (
                "results",
                Json::Arr(
                    o.threeways
                        .iter()
                        .map(|tw| threeway(tw, &o.not_run))
                        .collect(),
                ),
            ),
            (
                "golden",
                pair(o.golden_passed, "passed", o.golden_failures, "failed"),
            ),
            (
                "controls",
                pair(o.controls_caught, "caught", o.controls_missed, "missed"),
            ),
            ("violations", strings(&o.violations)),
            ("not_run", strings(&o.not_run)),
            ("verdict_lines", strings(&o.verdict_lines())),
        ]
        .into_iter()
        .chain(outcome_fields(o))
        .collect(),
    )
}

/// The document of `dpaudit audit SPEC`.
pub(crate) fn audit(o: &ReportOutcome) -> Json {
    Json::document("audit", audit_body(o))
}

/// The document of `dpaudit audit SPEC --shard K/N` (one shard file written).
pub(crate) fn audit_shard(spec: &str, shard: &str, samples: u64, file: &Path) -> Json {
    Json::document(
        "audit",
        vec![
            ("spec", Json::str(spec)),
            ("shard", Json::str(shard)),
            ("samples_per_side", Json::Int(samples)),
            ("files", paths(&[file.to_path_buf()])),
        ],
    )
}

/// What `dpaudit merge` merged: the kind, the shard files, their count.
fn merged_info(kind: &str, files: &[PathBuf]) -> (&'static str, Json) {
    (
        "merged",
        Json::obj(vec![
            ("kind", Json::str(kind)),
            ("shards", Json::Int(files.len() as u64)),
            ("files", paths(files)),
        ]),
    )
}

/// The document of `dpaudit merge` of an audit's shards: what was merged, then the body of
/// `dpaudit audit`.
pub(crate) fn merge_audit(shard_files: &[PathBuf], samples: u64, o: &ReportOutcome) -> Json {
    let mut body = vec![
        merged_info("audit", shard_files),
        ("samples_per_side", Json::Int(samples)),
    ];
    body.extend(audit_body(o));
    Json::document("merge", body)
}

/// The document of `dpaudit merge --check`: the shards check out.
pub(crate) fn merge_check(kind: &str, files: &[PathBuf]) -> Json {
    Json::document(
        "merge",
        vec![merged_info(kind, files), ("check", Json::Bool(true))],
    )
}

/// One row of the training-audit table.
fn suite_row(r: &crate::train::sgd::suite::SuiteResult) -> Json {
    let (claimed, source, (lo, hi)) = &r.row.claim;
    let word = |b: bool| if b { "VIOLATION" } else { "ok" };
    let reg = &r.audit.region;
    Json::obj(vec![
        ("audit", Json::str(r.row.name)),
        ("runs_per_side", Json::Int(r.row.runs)),
        (
            "pilot_runs_per_side",
            Json::Int(r.audit.pilot_runs_per_side),
        ),
        // The claim and its certified bracket: the doubles as printed in the CSV (shortest
        // round-trip form), so no digit is lost.
        ("claimed_eps", Json::str(claimed.to_string())),
        ("claim_source", Json::str(source.clone())),
        (
            "certified",
            Json::obj(vec![
                ("lo", Json::str(lo.to_string())),
                ("hi", Json::str(hi.to_string())),
            ]),
        ),
        ("eps_lb", Json::Num(r.audit.eps_lb)),
        ("confidence", Json::Num(reg.confidence)),
        ("eps_lb_strict", Json::Num(r.audit.eps_lb_strict)),
        ("eps_lb_over_claimed", Json::Num(r.audit.eps_lb / claimed)),
        (
            "region",
            Json::obj(vec![
                ("threshold", Json::Num(reg.threshold)),
                ("tail", Json::str(reg.tail.to_string())),
                ("direction", Json::str(reg.direction.to_string())),
                ("false_positives", Json::Int(reg.false_positives)),
                ("n_neg", Json::Int(reg.n_neg)),
                ("false_negatives", Json::Int(reg.false_negatives)),
                ("n_pos", Json::Int(reg.n_pos)),
            ]),
        ),
        ("verdict", Json::str(word(r.flagged))),
        ("expected", Json::str(word(r.row.should_flag))),
        ("seconds", Json::Num(r.audit.seconds)),
        ("runs_per_second", Json::Num(r.runs_per_second)),
    ])
}

/// The body of `dpaudit train-audit`: the options, the accounting notes, every row, whether
/// every verdict is the expected one, the files written.
fn train_audit_body(
    opts: &crate::train::sgd::suite::SuiteOptions,
    notes: &[String],
    results: &[crate::train::sgd::suite::SuiteResult],
    all_expected: bool,
    files: &[PathBuf],
) -> Vec<(&'static str, Json)> {
    use crate::train::sgd::suite::{DELTA, T};
    vec![
        (
            "options",
            Json::obj(vec![
                ("rows", Json::str(opts.rows.to_string())),
                ("runs", Json::Int(opts.big_runs)),
                ("control_runs", Json::Int(opts.control_runs)),
                ("seed", Json::Int(opts.seed)),
                ("delta", Json::Num(DELTA)),
                ("steps", Json::Int(T)),
            ]),
        ),
        ("notes", strings(notes)),
        ("rows", Json::Arr(results.iter().map(suite_row).collect())),
        ("all_expected", Json::Bool(all_expected)),
        ("exit_status", Json::Int(if all_expected { 0 } else { 1 })),
        ("files", paths(files)),
    ]
}

/// The document of `dpaudit train-audit`.
pub(crate) fn train_audit(
    opts: &crate::train::sgd::suite::SuiteOptions,
    notes: &[String],
    results: &[crate::train::sgd::suite::SuiteResult],
    all_expected: bool,
    files: &[PathBuf],
) -> Json {
    Json::document(
        "train-audit",
        train_audit_body(opts, notes, results, all_expected, files),
    )
}

/// The document of `dpaudit train-audit --shard K/N` (one shard file written).
pub(crate) fn train_audit_shard(shard: &str, command: &str, file: &Path) -> Json {
    Json::document(
        "train-audit",
        vec![
            ("shard", Json::str(shard)),
            ("suite", Json::str(command)),
            ("files", paths(&[file.to_path_buf()])),
        ],
    )
}

/// The document of `dpaudit merge` of a training audit's shards: what was merged, then the
/// body of `dpaudit train-audit`.
pub(crate) fn merge_train_audit(
    m: &crate::train::sgd::shard::MergedTrain,
    all_expected: bool,
    files: &[PathBuf],
) -> Json {
    let mut body = vec![merged_info("train-audit", &m.files)];
    body.extend(train_audit_body(
        &m.opts,
        &m.notes,
        &m.results,
        all_expected,
        files,
    ));
    Json::document("merge", body)
}

/// The document of `dpaudit claims`: one object per claim row, the counts per verdict, the
/// files written.
pub(crate) fn claims(rows: &[crate::compare::claims::Claim], files: &[PathBuf]) -> Json {
    use crate::compare::claims::Verdict;
    let count = |v: Verdict| rows.iter().filter(|c| c.verdict == v).count() as u64;
    let claims = rows
        .iter()
        .map(|c| {
            Json::obj(vec![
                ("id", Json::str(c.id)),
                ("source", Json::str(c.source.clone())),
                ("statement", Json::str(c.statement.clone())),
                ("figure", Json::str(c.figure.clone())),
                ("verdict", Json::str(c.verdict.to_string())),
                ("reason", Json::str(c.reason.clone())),
                ("command", Json::str(c.command.clone())),
            ])
        })
        .collect();
    Json::document(
        "claims",
        vec![
            ("claims", Json::Arr(claims)),
            (
                "counts",
                Json::obj(vec![
                    ("total", Json::Int(rows.len() as u64)),
                    ("holds", Json::Int(count(Verdict::Holds))),
                    ("false", Json::Int(count(Verdict::False))),
                    ("derivation_gap", Json::Int(count(Verdict::DerivationGap))),
                    ("misprint", Json::Int(count(Verdict::Misprint))),
                    ("not_checkable", Json::Int(count(Verdict::NotCheckable))),
                ]),
            ),
            ("files", paths(files)),
        ],
    )
}

/// The document of `dpaudit train`: the experiment, what `--quick` reduced, its results (HMB
/// Figure 1 experiments: each split's curves at the last step with their certified privacy, and
/// the paper's statements' verdicts) and the files written.
pub(crate) fn train(o: &crate::train::experiment::TrainOutcome) -> Json {
    let mut body = vec![
        ("experiment", Json::str(o.name.clone())),
        ("kind", Json::str(o.kind.clone())),
        ("quick", Json::Bool(!o.reductions.is_empty())),
        ("reduced", strings(&o.reductions)),
        ("dir", Json::str(o.dir.display().to_string())),
        (
            "summary",
            Json::str(o.dir.join("summary.md").display().to_string()),
        ),
    ];
    if let Some((spec, results)) = &o.hmb {
        body.extend(hmb(spec, results));
    }
    body.push(("files", paths(&o.files)));
    Json::document("train", body)
}

/// The results of an HMB Figure 1 experiment.
fn hmb(
    spec: &crate::train::experiment::Spec,
    results: &[crate::train::experiment::SplitResult],
) -> Vec<(&'static str, Json)> {
    use crate::train::experiment::{judge, statements, Privacy, Verdict};
    let last = |v: &[f64]| v.last().copied();
    let cert = |x: f64| Json::str(fmt_num(x));
    let privacy = |p: &Privacy| match p {
        Privacy::NonPrivate => Json::obj(vec![("kind", Json::str("non-private"))]),
        Privacy::NotCertified(why) => Json::obj(vec![
            ("kind", Json::str("not certified")),
            ("reason", Json::str(why.clone())),
        ]),
        Privacy::Certified(p) => Json::obj(vec![
            ("kind", Json::str("certified")),
            ("paper_rdp_alpha2", cert(p.paper_rdp_alpha2)),
            ("exact_rdp_alpha2", cert(p.exact_rdp_alpha2)),
            ("rdp_opt_eps", cert(p.rdp_opt_eps)),
            ("rdp_opt_alpha", Json::Num(p.rdp_opt_alpha)),
            ("exact_rdp_opt_eps", cert(p.exact_rdp_opt_eps)),
            ("exact_rdp_opt_alpha", Json::Num(p.exact_rdp_opt_alpha)),
            ("exact_eps", p.exact_eps.map_or(Json::Null, cert)),
            ("certified_eps", cert(p.certified_eps())),
        ]),
    };
    let splits = results
        .iter()
        .map(|r| {
            let curves = r
                .curves
                .iter()
                .map(|c| {
                    Json::obj(vec![
                        ("label", Json::str(c.label.clone())),
                        ("final_mean", opt_num(last(&c.mean))),
                        ("final_min", opt_num(last(&c.min))),
                        ("final_max", opt_num(last(&c.max))),
                        ("privacy", privacy(&c.privacy)),
                    ])
                })
                .collect();
            Json::obj(vec![
                ("split", Json::str(r.split.clone())),
                ("conventions", Json::str(r.conventions.name())),
                ("stem", Json::str(r.stem())),
                ("curves", Json::Arr(curves)),
                ("skipped", strings(&r.skipped)),
                ("params", strings(&r.params)),
            ])
        })
        .collect();
    let convs = spec.conventions().unwrap_or_default();
    let statements = statements()
        .iter()
        .zip(judge(results, &convs))
        .map(|(st, verdicts)| {
            Json::obj(vec![
                ("quote", Json::str(st.quote)),
                ("source", Json::str(st.source)),
                ("test", Json::str(st.test)),
                (
                    "verdicts",
                    Json::Arr(
                        convs
                            .iter()
                            .zip(verdicts)
                            .map(|(c, (v, ev))| {
                                Json::obj(vec![
                                    ("conventions", Json::str(c.name())),
                                    (
                                        "verdict",
                                        Json::str(match v {
                                            Verdict::Reproduced => "reproduced",
                                            Verdict::NotReproduced => "not reproduced",
                                            Verdict::NotCheckable => "not checkable",
                                        }),
                                    ),
                                    ("evidence", Json::str(ev)),
                                ])
                            })
                            .collect(),
                    ),
                ),
            ])
        })
        .collect();
    vec![
        (
            "spec",
            Json::obj(vec![
                ("data", Json::str(spec.data.clone())),
                ("steps", Json::Int(u64::from(spec.steps))),
                (
                    "seeds",
                    Json::Arr(spec.seeds.iter().map(|&s| Json::Int(s)).collect()),
                ),
                ("delta", Json::Num(spec.delta)),
                ("mu_reg", Json::Num(spec.mu_reg)),
            ]),
        ),
        ("splits", Json::Arr(splits)),
        ("statements", Json::Arr(statements)),
    ]
}
