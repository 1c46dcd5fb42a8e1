//! OSO-DPSGD's noise split (seed 004, Proposition 1) and the accounting of its two per-step
//! releases. The training loop itself is [`super::optim::Trainer`] with
//! [`super::optim::SgdConfig::oso`] set.
//!
//! Per step OSO releases S_t (sensitivity C_t, noise ν_g C_t) and Q_t (sensitivity 1, noise ν_q)
//! computed on the same batch. Whitened, the pair is one Gaussian vector whose mean moves by
//! (1/ν_g, 1/ν_q) when a record is added, so the pair is exactly one Gaussian query with
//! 1/ν² = 1/ν_g² + 1/ν_q² — with or without Poisson subsampling, because the record enters both
//! releases together (`docs/dpsgd.md#prop-1`).

use super::privacy::certified_eps;
use crate::error::{Error, Result};

/// Prop. 1: ν_g = (ν⁻² − ν_q⁻²)^(−1/2), the gradient's noise multiplier when the total per-step
/// multiplier is ν and the hypergradient query uses ν_q. Errors unless 0 < ν < ν_q (finite).
pub(crate) fn nu_g(nu: f64, nu_q: f64) -> Result<f64> {
    crate::error::check_positive("nu", nu)?;
    crate::error::check_positive("nu_q", nu_q)?;
    if nu_q <= nu || nu_q.is_nan() {
        return Err(Error::invalid(
            "nu_q",
            nu_q,
            &format!("> nu = {nu} (Prop. 1 needs nu^-2 - nu_q^-2 > 0)"),
        ));
    }
    // ν⁻² − ν_q⁻² = (ν_q − ν)(ν_q + ν)/(ν² ν_q²), without cancellation.
    let diff = (nu_q - nu) * (nu_q + nu) / (nu * nu * nu_q * nu_q);
    Ok(1.0 / diff.sqrt())
}

/// The inverse use of Prop. 1: the ν_q that makes ν_g = `ratio`·ν, i.e.
/// ν_q = ν/√(1 − ratio⁻²). The paper's rule of thumb is ratio = 1.01, giving ν_q ≈ 7.124 ν.
/// Errors unless ν > 0 and ratio > 1 (finite).
pub(crate) fn nu_q_for_ratio(nu: f64, ratio: f64) -> Result<f64> {
    crate::error::check_positive("nu", nu)?;
    if !(ratio > 1.0 && ratio.is_finite()) {
        return Err(Error::invalid("ratio (nu_g / nu)", ratio, "finite and > 1"));
    }
    // 1 − ratio⁻² = (ratio − 1)(ratio + 1)/ratio².
    let one_minus = (ratio - 1.0) * (ratio + 1.0) / (ratio * ratio);
    Ok(nu / one_minus.sqrt())
}

/// The accounting of OSO's two releases over T steps at δ, two ways.
#[derive(Debug, Clone, PartialEq)]
pub struct OsoAccounting {
    /// Prop. 1: one Poisson-subsampled Gaussian with multiplier ν, bracket (lower, upper).
    pub single_query: (f64, f64),
    /// The two releases accounted separately and composed: (lower, upper). For q = 1 the
    /// composition of two Gaussians is exact and equals `single_query`.
    pub heterogeneous: (f64, f64),
}

/// Accounts T steps of OSO at sampling rate q with total multiplier ν and query multiplier ν_q.
///
/// Heterogeneous route: the two releases as separate subsampled Gaussians (ν_g and ν_q),
/// composed by the certified bracket (`accounting::eps_for_delta` on a two-part schedule). For
/// q < 1 this treats the two releases as if their batches were drawn independently, which they
/// are not (docs/dpsgd.md): it is reported for comparison, and Prop. 1's single query is the
/// valid accounting.
pub fn account(q: f64, nu: f64, nu_q: f64, steps: u64, delta: f64) -> Result<OsoAccounting> {
    use crate::accounting::{eps_for_delta, ComposeOptions, Release, Schedule, SubsampledGaussian};
    use crate::scalar::Scalar;
    let ng = nu_g(nu, nu_q)?;
    let single = certified_eps(q, nu, steps, delta)?;
    let part = |sigma: f64| -> Result<(Release, u64)> {
        Ok((
            Release::Subsampled(SubsampledGaussian::new(
                Scalar::from(q),
                Scalar::from(sigma),
            )?),
            steps,
        ))
    };
    let sched = Schedule::new(vec![part(ng)?, part(nu_q)?])?;
    let b = eps_for_delta(
        &sched,
        &Scalar::from(delta),
        &ComposeOptions {
            digits: 8,
            force_inversion: false,
        },
    )?
    .value;
    Ok(OsoAccounting {
        single_query: single,
        heterogeneous: super::privacy::outward(&b),
    })
}

#[cfg(test)]
mod tests {
    use super::{nu_g, nu_q_for_ratio};

    #[test]
    fn prop1_split_round_trips_and_the_rule_of_thumb_is_7_124() {
        // √(1.0201/0.0201) = 7.1239907201718…, which the paper rounds to 7.124.
        let nq = nu_q_for_ratio(1.0, 1.01).unwrap();
        assert!((nq - 7.123_990_720_171_8).abs() < 1e-12, "{nq}");
        assert_eq!((nq * 1000.0).round() / 1000.0, 7.124);
        for nu in [0.3, 1.0, 2.5] {
            let nq = nu_q_for_ratio(nu, 1.01).unwrap();
            let ng = nu_g(nu, nq).unwrap();
            assert!((ng / nu - 1.01).abs() < 1e-13, "{ng}");
            // 1/ν² = 1/ν_g² + 1/ν_q²
            let lhs = 1.0 / (nu * nu);
            let rhs = 1.0 / (ng * ng) + 1.0 / (nq * nq);
            assert!((lhs - rhs).abs() < 1e-13 * lhs);
        }
    }

    #[test]
    fn prop1_rejects_impossible_splits() {
        assert!(nu_g(1.0, 1.0).is_err());
        assert!(nu_g(1.0, 0.5).is_err());
        assert!(nu_g(0.0, 2.0).is_err());
        assert!(nu_q_for_ratio(1.0, 1.0).is_err());
        assert!(nu_q_for_ratio(-1.0, 1.01).is_err());
        let e = nu_g(1.0, 0.5).unwrap_err().to_string();
        assert!(e.contains("nu_q") && e.contains("0.5"), "{e}");
    }
}
