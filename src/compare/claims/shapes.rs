//! Generic decisions, reusable by any row whose data has their shape (`decide = "…"`):
//!
//! * `max-ratio`: an ordering D(first eval row) ≤ D(second eval row), decided by the largest
//!   ratio of the two rows' quantity over the grid `supports` (a, b, σ) × ordered pairs of
//!   distinct `mus` × `alphas`; holds if it is ≤ 1. Texts: `ratio` (its name), `reason`.
//! * `max-scaled-fisher`: a Fisher information at most the Gaussian's 1/σ², decided by the
//!   largest σ² I(μ) of the first eval row's law over `supports` × `mus`. Text: `reason`.
//!
//! In a `reason`, `{max}` is the largest value to 15 digits and `{max6}` to 6.

use super::figures::fill;
use super::{le, n, n6, verdict, ClaimRow, Decider, Outcome, P};
use crate::error::Result;
use crate::scalar::Scalar;
use rug::Float;

/// The decisions of this file.
pub(super) const DECIDERS: &[Decider] = &[
    Decider::direct("max-ratio", max_ratio),
    Decider::direct("max-scaled-fisher", max_scaled_fisher),
];

/// The support triples (a, b, σ) of the row's grid `supports`.
fn supports(row: &ClaimRow) -> Result<Vec<[Scalar; 3]>> {
    row.tuples("supports")?
        .iter()
        .map(|t| match t.as_slice() {
            [a, b, s] => Ok([a.parse()?, b.parse()?, s.parse()?]),
            _ => Err(crate::error::Error::invalid(
                "supports",
                format!("{t:?}"),
                "triples [a, b, sigma]",
            )),
        })
        .collect()
}

/// The outcome of a largest value that must be at most 1: figure `{head} = {max} over {k}
/// {what}`, the verdict, and the row's reason.
fn at_most_one(row: &ClaimRow, head: &str, worst: &Float, k: usize, what: &str) -> Outcome {
    let reason = fill(
        row.text("reason")?,
        &[("max", n(worst)), ("max6", n6(worst))],
    );
    Ok((
        format!("{head} = {} over {k} {what}", n(worst)),
        verdict(le(worst, &Float::with_val(P, 1u32))),
        reason,
    ))
}

fn max_ratio(row: &ClaimRow) -> Outcome {
    let (first, second) = match row.eval.as_slice() {
        [f, s, ..] => (f.id.as_str(), s.id.as_str()),
        _ => {
            return Err(crate::error::Error::Undefined(format!(
                "row {}: max-ratio needs two eval rows",
                row.id
            )))
        }
    };
    let (mus, alphas) = (row.list("mus")?, row.scalars("alphas")?);
    let mut worst = Float::with_val(P, 0u32);
    let mut count = 0;
    for [a, b, s] in supports(row)? {
        for m1 in mus {
            for m2 in mus {
                if m1 == m2 {
                    continue;
                }
                for al in &alphas {
                    let set = [
                        ("mu1", m1.parse::<Scalar>()?),
                        ("mu2", m2.parse::<Scalar>()?),
                        ("sigma", s.clone()),
                        ("a", a.clone()),
                        ("b", b.clone()),
                        ("alpha", al.clone()),
                    ];
                    let f = row.figure_at(first, &set)?;
                    let g = row.figure_at(second, &set)?;
                    let r = Float::with_val(P, &f.value / &g.value);
                    if r > worst {
                        worst = r;
                    }
                    count += 1;
                }
            }
        }
    }
    at_most_one(
        row,
        &format!("max {}", row.text("ratio")?),
        &worst,
        count,
        "cases",
    )
}

fn max_scaled_fisher(row: &ClaimRow) -> Outcome {
    let first = row.eval.first().map(|r| r.id.as_str()).unwrap_or_default();
    let mus = row.scalars("mus")?;
    let mut worst = Float::with_val(P, 0u32);
    let mut k = 0;
    for [a, b, s] in supports(row)? {
        for mu in &mus {
            let set = [
                ("mu", mu.clone()),
                ("sigma", s.clone()),
                ("a", a.clone()),
                ("b", b.clone()),
            ];
            let i = row.figure_at(first, &set)?;
            let r = Float::with_val(P, &i.value * s.mp(P).square());
            if r > worst {
                worst = r;
            }
            k += 1;
        }
    }
    at_most_one(row, "max sigma^2 I", &worst, k, "points")
}
