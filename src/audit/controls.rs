//! Positive controls: deliberately broken implementations that an audit must catch.
//!
//! Each control pairs the **specification** of a correct mechanism with a buggy sampler. The
//! specification supplies the claimed ε(δ) (the correct mechanism's exact value on the pair),
//! the white-box statistic (the designed log-likelihood ratio: the auditor knows the design, not
//! the bug) and the black-box statistic; the buggy sampler supplies the outputs. An audit
//! *catches* a control when its ε_lb exceeds the claim at the stated confidence
//! ([`super::engine::AuditResult::flagged`]); the correct counterpart (the specification itself,
//! audited with the same configuration) must not be flagged.
//!
//! * [`HalvedSigmaGaussian`]: the engine's Gaussian mechanism (from (Δ, σ)) whose σ is silently
//!   halved; an audit spec may inject it as its test-only `fault = "halved_sigma"`.
//! * [`BrokenSampler`]: a family's own controls, listed in its registry entry
//!   (`crate::model::SpecForm::controls`) and built in its file from its draws
//!   ([`crate::model::BrokenDraws`]); [`registered`] lists them in registry order. The
//!   mechanisms' files document each one (a sampler that scales its noise by a stale norm, a
//!   rejection sampler that gives up and clamps).

use super::engine::Grid;
use super::mechanisms::{
    bin_statistic_fn, which, GaussianMechanism, Mechanism, ModelMechanism, Side, Statistic,
    StreamRng,
};
use crate::error::Result;
use crate::model::spec_form::Control;
use crate::model::{AuditDraws, BrokenDraws, Family};
use std::sync::Arc;

/// The Gaussian mechanism with its noise standard deviation silently halved: claims the
/// privacy of N(·, σ²) noise, samples with σ/2.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HalvedSigmaGaussian {
    spec: GaussianMechanism,
}

impl HalvedSigmaGaussian {
    /// The broken version of `GaussianMechanism::new(sensitivity, sigma)`.
    pub fn new(sensitivity: f64, sigma: f64) -> Result<Self> {
        Ok(HalvedSigmaGaussian {
            spec: GaussianMechanism::new(sensitivity, sigma)?,
        })
    }

    /// The correct counterpart (the specification).
    pub fn correct(&self) -> GaussianMechanism {
        self.spec
    }
}

/// The [`Mechanism`] methods a control takes from its specification `self.spec`: the statistic's
/// range and the claimed ε(δ), with the claim's source marked as the specification's.
macro_rules! spec_range_and_claim {
    () => {
        fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
            self.spec.statistic_range(stat)
        }

        fn claimed_eps(&self, delta: f64) -> Result<f64> {
            self.spec.claimed_eps(delta)
        }

        fn claim_source(&self) -> String {
            format!("claimed by the specification: {}", self.spec.claim_source())
        }
    };
}

impl Mechanism for HalvedSigmaGaussian {
    fn name(&self) -> String {
        format!("halved_sigma_{}", self.spec.name())
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.spec
            .fill(side, stat, self.spec.sigma() / 2.0, rng, out)
    }

    bin_statistic_fn! {
        |self, side, stat, rng, grid, n, counts| {
            self.spec
                .bin_fused(side, stat, self.spec.sigma() / 2.0, rng, grid, n, counts)
        }
    }

    spec_range_and_claim!();
}

/// A family's broken sampler ([`BrokenDraws`]) as an audit mechanism: it claims the correct
/// mechanism's privacy and draws from the broken sampler.
pub struct BrokenSampler {
    spec: ModelMechanism,
    broken: Arc<dyn AuditDraws>,
}

impl BrokenSampler {
    /// The control of `parts` (from a family's file, e.g. a registry `Control`'s `build`).
    pub fn new(parts: BrokenDraws) -> Self {
        BrokenSampler {
            spec: ModelMechanism::with_draws(parts.pair, parts.correct),
            broken: parts.broken,
        }
    }

    /// The correct counterpart (the specification, with the family's correct sampler).
    pub fn correct(&self) -> &ModelMechanism {
        &self.spec
    }
}

impl Mechanism for BrokenSampler {
    fn name(&self) -> String {
        self.broken.name()
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.broken.draw_statistics(which(side), stat, rng, out)
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        self.broken.statistic_range(stat)
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.spec.claimed_eps(delta)
    }

    fn claim_source(&self) -> String {
        format!("claimed by the specification: {}", self.spec.claim_source())
    }
}

/// Every registry family's positive controls, in registry order.
pub fn registered() -> impl Iterator<Item = (&'static Family, &'static Control)> {
    crate::model::FAMILIES
        .iter()
        .flat_map(|f| f.spec.controls.iter().map(move |c| (*f, c)))
}

#[cfg(test)]
mod tests {
    use super::{BrokenSampler, HalvedSigmaGaussian, Mechanism, Side, StreamRng};
    use crate::mechanisms::{rgm::stale_norm, truncated::capped_rejection};
    use rand::SeedableRng;

    #[test]
    fn constructors_validate() {
        assert!(HalvedSigmaGaussian::new(1.0, -1.0).is_err());
        assert!(stale_norm(vec![1.0], vec![2.0], vec![1.0, 2.0], 1.0, 1.0).is_err());
        assert!(stale_norm(vec![1.0], vec![2.0], vec![f64::NAN], 1.0, 1.0).is_err());
        assert!(capped_rejection(-2.0, -1.0, 1.0, 0.0, 1.0, 0).is_err());
    }

    /// The registry lists the controls of the report, in its order (seeds 102, 103).
    #[test]
    fn registry_lists_the_family_controls() {
        let seeds: Vec<u64> = super::registered().map(|(_, c)| c.seed).collect();
        assert_eq!(seeds, [102, 103]);
        for (f, c) in super::registered() {
            let m = BrokenSampler::new((c.build)().unwrap());
            assert!(
                m.correct().name().starts_with(f.name),
                "{} vs {}",
                m.name(),
                f.name
            );
        }
    }

    /// The capped sampler puts mass ≈ (1 − Z)^K on a: for μ = −2, σ = 1, [0, 1], K = 100 that
    /// is 0.114950 (mpmath: (1 − (Φ(3) − Φ(2)))^100 times the share below a, 0.99862).
    #[test]
    fn capped_rejection_shifts_mass_to_the_end() {
        let c = BrokenSampler::new(capped_rejection(-2.0, -1.0, 1.0, 0.0, 1.0, 100).unwrap());
        let mut rng = StreamRng::seed_from_u64(5);
        let n = 200_000;
        let mut out = vec![0.0; n];
        c.sample_statistic(Side::P, crate::model::Statistic::Black, &mut rng, &mut out);
        let at_a = out.iter().filter(|&&y| y == 0.0).count() as f64 / n as f64;
        let expect = 0.114950472661 * (1.0 - 0.00137941789730);
        // sd of the proportion ≈ 7.1e-4; 6 sd ⇒ false-failure probability < 1e-8.
        assert!((at_a - expect).abs() < 6.0 * 7.1e-4, "{at_a} vs {expect}");
    }
}
