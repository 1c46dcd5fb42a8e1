//! Positive controls: deliberately broken implementations that an audit must catch.
//!
//! Each control wraps the **specification** of a correct mechanism (from
//! [`super::mechanisms`]) and a buggy sampler. The specification supplies the claimed ε(δ) (the
//! correct mechanism's exact value on the pair), the white-box statistic (the designed
//! log-likelihood ratio: the auditor knows the design, not the bug) and the black-box statistic;
//! the buggy sampler supplies the outputs. An audit *catches* a control when its ε_lb exceeds the
//! claim at the stated confidence ([`super::engine::AuditResult::flagged`]); the correct
//! counterpart (the specification itself, audited with the same configuration) must not be
//! flagged.
//!
//! * [`HalvedSigmaGaussian`]: the Gaussian mechanism whose σ is silently halved.
//! * [`StaleNormRgm`]: an RGM whose noise scale on x is computed from the output on the *other*
//!   dataset. For a pair (x, x′) where each side uses the other's norm, P = N(r1, s2²I) and
//!   Q = N(r2, s1²I) are the correct pair mirrored through (r1 + r2)/2 (y ↦ r1 + r2 − y maps
//!   them to Q and P), so **no pair audit can catch that version**: both orders together have
//!   exactly the correct privacy profile. The bug shows along a chain x ⊃ x′ ⊃ x″ of
//!   neighbours (leave-one-out: the implementation scales M(x) by ‖R(x′)‖ and M(x′) by
//!   ‖R(x″)‖): the audited pair (x, x′) then has P = N(r1, (γ‖r2‖² + σ²)I),
//!   Q = N(r2, (γ‖r3‖² + σ²)I), whose variance on x′ is too small when ‖r3‖ < ‖r2‖.
//! * [`CappedRejectionTruncated`]: a truncated-Gaussian sampler that gives up after
//!   `max_tries` rejected proposals and returns the last proposal clamped into [a, b]. Far in
//!   the tail (small acceptance Z(μ)) this shifts mass (1 − Z(μ))^max_tries onto the nearest
//!   end, a mass that differs by orders of magnitude between neighbouring μ.

use super::engine::Grid;
use super::mechanisms::{
    bin_statistic_fn, std_normal, which, GaussianMechanism, Mechanism, ModelMechanism, Side,
    Statistic, StreamRng,
};
use crate::error::{check_nonnegative, check_positive, Error, Result};
use crate::mechanisms::rgm::RgmDraws;
use crate::mechanisms::truncated::TruncatedDraws;
use crate::mechanisms::Bounded;
use crate::model::Pair;
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

/// An RGM whose noise scale is taken from the output on the other dataset of a leave-one-out
/// chain x ⊃ x′ ⊃ x″ (see the module docs for why the plain pair swap is undetectable):
/// M(x) = r1 + N(0, (γ‖r2‖² + σ²)I), M(x′) = r2 + N(0, (γ‖r3‖² + σ²)I), while the claim is that
/// of the correct RGM on (r1, r2).
#[derive(Debug, Clone)]
pub struct StaleNormRgm {
    spec: ModelMechanism,
    draws: RgmDraws,
    r3: Vec<f64>,
    /// Noise sds actually used on x and x′.
    sd: [f64; 2],
}

impl StaleNormRgm {
    /// r1 = R(x), r2 = R(x′), r3 = R(x″) (same dimension), γ ≥ 0, σ² > 0.
    pub fn new(r1: Vec<f64>, r2: Vec<f64>, r3: Vec<f64>, gamma: f64, sigma2: f64) -> Result<Self> {
        if r3.len() != r1.len() {
            return Err(Error::invalid(
                "r3",
                format!("dimension {}", r3.len()),
                &format!("the dimension of r1 ({})", r1.len()),
            ));
        }
        if let Some(x) = r3.iter().find(|x| !x.is_finite()) {
            return Err(Error::invalid("r3", x, "finite coordinates"));
        }
        check_nonnegative("gamma", gamma)?;
        check_positive("sigma2", sigma2)?;
        let sq = |v: &[f64]| v.iter().map(|x| x * x).sum::<f64>();
        let sd = [
            (gamma * sq(&r2) + sigma2).sqrt(),
            (gamma * sq(&r3) + sigma2).sqrt(),
        ];
        let draws = RgmDraws::new(r1, r2, gamma, sigma2)?;
        Ok(StaleNormRgm {
            spec: ModelMechanism::with_draws(draws.pair()?, Arc::new(draws.clone())),
            draws,
            r3,
            sd,
        })
    }

    /// The correct counterpart (the specification on (r1, r2)).
    pub fn correct(&self) -> &ModelMechanism {
        &self.spec
    }

    fn sd(&self, side: Side) -> f64 {
        match side {
            Side::P => self.sd[0],
            Side::Q => self.sd[1],
        }
    }
}

impl Mechanism for StaleNormRgm {
    fn name(&self) -> String {
        let n3 = self.r3.iter().map(|x| x * x).sum::<f64>().sqrt();
        format!("stale_norm_{} [n3={n3}]", self.spec.name())
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let geo = &self.draws.geo;
        geo.fill_with(geo.centre(which(side)), self.sd(side), stat, rng, out)
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        let geo = &self.draws.geo;
        geo.range_for(stat, [(&geo.r1, self.sd[0]), (&geo.r2, self.sd[1])])
    }

    fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.spec.claimed_eps(delta)
    }

    fn claim_source(&self) -> String {
        format!("claimed by the specification: {}", self.spec.claim_source())
    }
}

/// A truncated-Gaussian sampler that stops after `max_tries` rejected proposals from
/// N(μ, σ²) and returns the last proposal clamped into [a, b] (so the mass (1 − Z(μ))^max_tries
/// lands on an end point), while claiming the exact truncated mechanism's privacy.
#[derive(Debug, Clone)]
pub struct CappedRejectionTruncated {
    spec: ModelMechanism,
    draws: TruncatedDraws,
    max_tries: u32,
}

impl CappedRejectionTruncated {
    /// The broken version of the truncated mechanism on (μ1, μ2, σ, [a, b]); `max_tries ≥ 1`.
    pub fn new(mu1: f64, mu2: f64, sigma: f64, a: f64, b: f64, max_tries: u32) -> Result<Self> {
        crate::error::check_count("max_tries", max_tries)?;
        let draws = TruncatedDraws::new(Bounded::new(mu1, mu2, sigma, a, b)?)?;
        let pair = Pair::truncated(mu1.into(), mu2.into(), sigma.into(), a.into(), b.into())?;
        Ok(CappedRejectionTruncated {
            spec: ModelMechanism::with_draws(pair, Arc::new(draws)),
            draws,
            max_tries,
        })
    }

    /// The correct counterpart (the specification, with an exact sampler).
    pub fn correct(&self) -> &ModelMechanism {
        &self.spec
    }

    #[inline]
    fn draw(&self, side: Side, rng: &mut StreamRng) -> f64 {
        let p = self.draws.p;
        let m = p.mu(which(side));
        let mut y = m;
        for _ in 0..self.max_tries {
            y = m + p.sigma * std_normal(rng);
            if y >= p.a && y <= p.b {
                return y;
            }
        }
        // The bug: give up and clamp the last proposal.
        y.clamp(p.a, p.b)
    }
}

impl Mechanism for CappedRejectionTruncated {
    fn name(&self) -> String {
        format!("capped_rejection[{}]_{}", self.max_tries, self.spec.name())
    }

    fn sample_statistic(&self, side: Side, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        for o in out.iter_mut() {
            *o = self.draws.stat_of(stat, self.draw(side, rng));
        }
    }

    spec_range_and_claim!();
}

#[cfg(test)]
mod tests {
    use super::{CappedRejectionTruncated, HalvedSigmaGaussian, Side, StaleNormRgm, StreamRng};
    use rand::SeedableRng;

    #[test]
    fn constructors_validate() {
        assert!(HalvedSigmaGaussian::new(1.0, -1.0).is_err());
        assert!(StaleNormRgm::new(vec![1.0], vec![2.0], vec![1.0, 2.0], 1.0, 1.0).is_err());
        assert!(StaleNormRgm::new(vec![1.0], vec![2.0], vec![f64::NAN], 1.0, 1.0).is_err());
        assert!(CappedRejectionTruncated::new(-2.0, -1.0, 1.0, 0.0, 1.0, 0).is_err());
    }

    /// The capped sampler puts mass ≈ (1 − Z)^K on a: for μ = −2, σ = 1, [0, 1], K = 100 that
    /// is 0.114950 (mpmath: (1 − (Φ(3) − Φ(2)))^100 times the share below a, 0.99862).
    #[test]
    fn capped_rejection_shifts_mass_to_the_end() {
        let c = CappedRejectionTruncated::new(-2.0, -1.0, 1.0, 0.0, 1.0, 100).unwrap();
        let mut rng = StreamRng::seed_from_u64(5);
        let n = 200_000;
        let at_a = (0..n).filter(|_| c.draw(Side::P, &mut rng) == 0.0).count() as f64 / n as f64;
        let expect = 0.114950472661 * (1.0 - 0.00137941789730);
        // sd of the proportion ≈ 7.1e-4; 6 sd ⇒ false-failure probability < 1e-8.
        assert!((at_a - expect).abs() < 6.0 * 7.1e-4, "{at_a} vs {expect}");
    }
}
