//! Curves over δ and α that the comparison and the plots share: the δ and α grids and the
//! certified privacy profile of a pair in any dimension ([`exact_profile_dd`]). The plots built
//! from them (with the `cli` feature) are in `figures`.

use crate::divergence::{self, Pair};
use crate::error::Result;
use crate::model::spec_form;
use crate::scalar::Scalar;

#[cfg(feature = "cli")]
mod figures;
#[cfg(feature = "cli")]
pub(crate) use figures::{location_figure, profile_figure, renyi_figure, LocationSweep};

/// δ grid of the privacy profiles: 10⁻¹² … 10⁻¹, `per_decade` points per decade.
pub fn delta_grid(per_decade: u32) -> Vec<f64> {
    let k = per_decade.max(1);
    (0..=11 * k)
        .map(|i| 10f64.powf(-12.0 + f64::from(i) / f64::from(k)))
        .collect()
}

/// log-spaced grid of `n` points from `lo` to `hi` (both > 0).
pub fn log_grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    spec_form::log_grid(lo, hi, n)
}

/// Certified ε(δ) at every δ of `deltas`, max of both orders, for a `gaussian_dd` or `rgm` pair
/// in any d: the whole profile of each order by [`divergence::eps_profile`] (docs/formulas.md §7.4,
/// "Profiles"), the two orders on two threads (each order is solved sequentially, so the result
/// does not depend on the thread count). Every point carries `digits` certified digits; a point
/// that cannot be certified is an error.
pub fn exact_profile_dd(pair: &Pair, deltas: &[f64], digits: u32) -> Result<Vec<(f64, f64)>> {
    let ds: Vec<Scalar> = deltas.iter().map(|&d| Scalar::from(d)).collect();
    let swapped = pair.swapped();
    let lim = crate::limits::carry();
    let (a, b) = rayon::join(
        || lim.run(|| divergence::eps_profile(pair, &ds, digits)),
        || lim.run(|| divergence::eps_profile(&swapped, &ds, digits)),
    );
    let (a, b) = (a?, b?);
    Ok(deltas
        .iter()
        .zip(a.iter().zip(&b))
        .map(|(&d, (x, y))| (d, x.to_f64().max(y.to_f64())))
        .collect())
}

#[cfg(test)]
mod tests;
