//! Writes the accounting page (`accounting.md`, its CSVs and the ε-against-T figure) from the
//! data of [`crate::compare::accounting`].

use super::csv::{fmt_sig, write_atomic, Table};
use super::plots::render;
use crate::compare::accounting::AccountingPage;
use crate::error::Result;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Writes the page into `out`; returns the files written.
pub(crate) fn write_accounting(
    out: &Path,
    page: &AccountingPage,
    command: &str,
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    // No wall times in the CSV: report CSVs are byte-identical from run to run.
    let t = Table::of(
        &page.curve,
        &[
            ("steps", |r| r.steps.to_string()),
            ("eps_lo", |r| fmt_sig(r.lo, 15)),
            ("eps_hi", |r| fmt_sig(r.hi, 15)),
            ("digits", |r| r.digits.to_string()),
            ("rdp_cks_eps", |r| fmt_sig(r.rdp, 12)),
            ("rdp_alpha", |r| fmt_sig(r.rdp_alpha, 7)),
        ],
    );
    let p = out.join("accounting.csv");
    t.write(&p)?;
    files.push(p);
    let pt = Table::of(
        &page.peers,
        &[
            ("case", |r| r.case.clone()),
            ("q", |r| fmt_sig(r.q, 12)),
            ("sigma", |r| fmt_sig(r.sigma, 12)),
            ("steps", |r| r.steps.to_string()),
            ("method", |r| r.method.clone()),
            ("eps", |r| r.eps.clone()),
            ("eps_lo", |r| bracket_end(r.bracket, false, 12)),
            ("eps_hi", |r| bracket_end(r.bracket, true, 12)),
            ("dpaudit_lo", |r| bracket_end(r.ours, false, 15)),
            ("dpaudit_hi", |r| bracket_end(r.ours, true, 15)),
        ],
    );
    let p = out.join("accounting_peers.csv");
    pt.write(&p)?;
    files.push(p);
    render(&page.figure(), out, "accounting_eps_vs_T")?;
    for ext in ["svg", "png", "csv"] {
        files.push(out.join(format!("accounting_eps_vs_T.{ext}")));
    }
    let p = out.join("accounting.md");
    write_atomic(&p, markdown(page, command).as_bytes())?;
    files.push(p);
    Ok(files)
}

/// The lower (`hi` false) or upper end of a bracket to `digits` significant digits, empty when
/// there is no bracket.
fn bracket_end(b: Option<(f64, f64)>, hi: bool, digits: usize) -> String {
    b.map_or(String::new(), |(lo, h)| {
        fmt_sig(if hi { h } else { lo }, digits)
    })
}

fn markdown(page: &AccountingPage, command: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "# DP-SGD accounting\n");
    let _ = writeln!(
        o,
        "Command: `{command}`. Method and error bounds: `docs/accounting.md#composition`.\n"
    );
    let _ = writeln!(
        o,
        "## eps(delta = {}) of T steps of the Poisson-subsampled Gaussian, q = {}, sigma = {}\n",
        page.delta, page.q, page.sigma
    );
    let _ = writeln!(o, "![eps against T](accounting_eps_vs_T.svg)\n");
    let curve = Table::of(
        &page.curve,
        &[
            ("T", |r| r.steps.to_string()),
            ("certified bracket", |r| {
                format!("[{}, {}]", fmt_sig(r.lo, 13), fmt_sig(r.hi, 13))
            }),
            ("digits", |r| r.digits.to_string()),
            ("RDP route (CKS)", |r| fmt_sig(r.rdp, 8)),
            ("at alpha", |r| fmt_sig(r.rdp_alpha, 5)),
            ("RDP excess", |r| {
                format!("+{:.1} %", 100.0 * (r.rdp / r.hi - 1.0))
            }),
            ("time (s)", |r| format!("{:.2}", r.seconds)),
        ],
    );
    o.push_str(&curve.markdown());
    let _ = writeln!(
        o,
        "\n## Peers (committed figures, `benches/peers_accounting.py`; {})\n",
        page.peer_versions
    );
    if page.peers.is_empty() {
        let _ = writeln!(o, "No peer figures found (benches/peers_accounting.csv).");
    } else {
        let peers = Table::of(
            &page.peers,
            &[
                ("case", |r| r.case.clone()),
                ("q", |r| fmt_sig(r.q, 6)),
                ("sigma", |r| fmt_sig(r.sigma, 6)),
                ("T", |r| r.steps.to_string()),
                ("tool", |r| r.method.clone()),
                ("eps", |r| {
                    r.eps
                        .parse::<f64>()
                        .map_or(r.eps.clone(), |e| fmt_sig(e, 9))
                }),
                ("its bracket", |r| {
                    r.bracket.map_or(String::new(), |(a, b)| {
                        format!("[{}, {}]", fmt_sig(a, 7), fmt_sig(b, 7))
                    })
                }),
                ("dpaudit bracket", |r| {
                    let (lo, hi) = r.ours.unwrap_or((f64::NAN, f64::NAN));
                    format!("[{}, {}]", fmt_sig(lo, 13), fmt_sig(hi, 13))
                }),
                ("consistent", |r| {
                    r.consistent()
                        .map_or("peer failed".into(), |c| c.to_string())
                }),
            ],
        );
        o.push_str(&peers.markdown());
        let _ = writeln!(
            o,
            "\n\"consistent\": dpaudit's bracket lies inside PRV's bracket, below an upper bound (RDP, pessimistic PLD), above dp_accounting's optimistic PLD."
        );
    }
    let c = &page.calibration;
    let _ = writeln!(o, "\n## Seed 002's sigma calibration\n");
    let _ = writeln!(
        o,
        "Setting: {}. The notes' sigma = L sqrt(T ln(1/delta))/(n eps) = {}. The smallest sigma that meets (1, 1e-5) exactly (calibrated on the certified composition) is {} with the notes' sensitivity L/n, and {} with the replacement sensitivity 2L/n. Verdict: **{}** — the notes' sigma is {:.1} % of the sigma needed with their own sensitivity (claims table row `s002-sigma-calibration`).",
        c.setting,
        fmt_sig(c.notes_sigma, 6),
        fmt_sig(c.needed_notes_sens, 6),
        fmt_sig(c.needed_replacement, 6),
        if c.notes_hold() { "holds" } else { "fails" },
        100.0 * c.notes_sigma / c.needed_notes_sens
    );
    o
}
