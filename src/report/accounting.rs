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
    let mut t = Table::new(&[
        "steps",
        "eps_lo",
        "eps_hi",
        "digits",
        "rdp_cks_eps",
        "rdp_alpha",
    ]);
    for r in &page.curve {
        t.push(vec![
            r.steps.to_string(),
            fmt_sig(r.lo, 15),
            fmt_sig(r.hi, 15),
            r.digits.to_string(),
            fmt_sig(r.rdp, 12),
            fmt_sig(r.rdp_alpha, 7),
        ]);
    }
    let p = out.join("accounting.csv");
    t.write(&p)?;
    files.push(p);
    let mut pt = Table::new(&[
        "case",
        "q",
        "sigma",
        "steps",
        "method",
        "eps",
        "eps_lo",
        "eps_hi",
        "dpaudit_lo",
        "dpaudit_hi",
    ]);
    for r in &page.peers {
        let (blo, bhi) = r.bracket.map_or((String::new(), String::new()), |(a, b)| {
            (fmt_sig(a, 12), fmt_sig(b, 12))
        });
        let (olo, ohi) = r.ours.map_or((String::new(), String::new()), |(a, b)| {
            (fmt_sig(a, 15), fmt_sig(b, 15))
        });
        pt.push(vec![
            r.case.clone(),
            fmt_sig(r.q, 12),
            fmt_sig(r.sigma, 12),
            r.steps.to_string(),
            r.method.clone(),
            r.eps.clone(),
            blo,
            bhi,
            olo,
            ohi,
        ]);
    }
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
    let _ = writeln!(
        o,
        "| T | certified bracket | digits | RDP route (CKS) | at alpha | RDP excess | time (s) |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|");
    for r in &page.curve {
        let _ = writeln!(
            o,
            "| {} | [{}, {}] | {} | {} | {} | +{:.1} % | {:.2} |",
            r.steps,
            fmt_sig(r.lo, 13),
            fmt_sig(r.hi, 13),
            r.digits,
            fmt_sig(r.rdp, 8),
            fmt_sig(r.rdp_alpha, 5),
            100.0 * (r.rdp / r.hi - 1.0),
            r.seconds
        );
    }
    let _ = writeln!(
        o,
        "\n## Peers (committed figures, `benches/peers_accounting.py`; {})\n",
        page.peer_versions
    );
    if page.peers.is_empty() {
        let _ = writeln!(o, "No peer figures found (benches/peers_accounting.csv).");
    } else {
        let _ = writeln!(
            o,
            "| case | q | sigma | T | tool | eps | its bracket | dpaudit bracket | consistent |"
        );
        let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
        for r in &page.peers {
            let (olo, ohi) = r.ours.unwrap_or((f64::NAN, f64::NAN));
            let eps = r.eps.parse::<f64>().ok();
            let consistent = match (eps, r.bracket) {
                (_, Some((a, b))) => (a <= olo && ohi <= b).to_string(),
                (Some(e), None) if r.method.contains("optimistic") => (e <= olo).to_string(),
                (Some(e), None) => (ohi <= e).to_string(),
                (None, _) => "peer failed".into(),
            };
            let br = r.bracket.map_or(String::new(), |(a, b)| {
                format!("[{}, {}]", fmt_sig(a, 7), fmt_sig(b, 7))
            });
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | [{}, {}] | {} |",
                r.case,
                fmt_sig(r.q, 6),
                fmt_sig(r.sigma, 6),
                r.steps,
                r.method,
                eps.map_or(r.eps.clone(), |e| fmt_sig(e, 9)),
                br,
                fmt_sig(olo, 13),
                fmt_sig(ohi, 13),
                consistent
            );
        }
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
        if c.notes_sigma >= c.needed_notes_sens { "holds" } else { "fails" },
        100.0 * c.notes_sigma / c.needed_notes_sens
    );
    o
}
