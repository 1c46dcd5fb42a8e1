//! The parameter sets of the Gaussian-family models (two locations and σ, with or without a
//! support; one law for the Fisher information), their validated constructors, the registry
//! entries they share, and the parameter lookups of `dpaudit eval` rows and audit specs.

use crate::error::Result;
use crate::model::logquad::Ctx;
use crate::numeric::quad::Quadratic;
use crate::scalar::Scalar;
use rug::Float;

use super::{ends, fl};

/// The parameters shared by the Gaussian-family pairs with one scale: two locations and σ
/// (the Gaussian and stochastic-sign pairs, and with a support the clipped ones).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Shift {
    /// Location under P1.
    pub mu1: Scalar,
    /// Location under P2.
    pub mu2: Scalar,
    /// Noise standard deviation.
    pub sigma: Scalar,
}

impl Shift {
    /// Validated: finite locations, σ > 0.
    pub(crate) fn new(mu1: Scalar, mu2: Scalar, sigma: Scalar) -> Result<Self> {
        crate::model::finite("mu1", &mu1)?;
        crate::model::finite("mu2", &mu2)?;
        crate::model::positive("sigma", &sigma)?;
        Ok(Shift { mu1, mu2, sigma })
    }
    /// (mu1, mu2, sigma) in vocabulary order.
    pub(crate) fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("mu1", self.mu1.clone()),
            ("mu2", self.mu2.clone()),
            ("sigma", self.sigma.clone()),
        ]
    }
    /// The locations exchanged.
    pub(crate) fn swapped(&self) -> Self {
        Shift {
            mu1: self.mu2.clone(),
            mu2: self.mu1.clone(),
            sigma: self.sigma.clone(),
        }
    }
    /// μ1 = μ2 exactly.
    pub(crate) fn identical(&self) -> bool {
        crate::model::logquad::same(&self.mu1, &self.mu2)
    }
}

/// A clipped pair (rectified or truncated): two locations and σ, and the support [a, b].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Clipped {
    /// Locations and σ.
    pub shift: Shift,
    /// Lower end of the support.
    pub a: Scalar,
    /// Upper end of the support.
    pub b: Scalar,
}

impl Clipped {
    /// Validated: finite locations, σ > 0, a < b (all finite).
    pub(crate) fn new(
        mu1: Scalar,
        mu2: Scalar,
        sigma: Scalar,
        a: Scalar,
        b: Scalar,
    ) -> Result<Self> {
        let shift = Shift::new(mu1, mu2, sigma)?;
        crate::model::interval(&a, &b)?;
        Ok(Clipped { shift, a, b })
    }
    /// [μ1, μ2, σ, a, b].
    pub(crate) fn parts(&self) -> [&Scalar; 5] {
        let s = &self.shift;
        [&s.mu1, &s.mu2, &s.sigma, &self.a, &self.b]
    }
    /// (mu1, mu2, sigma, a, b) in vocabulary order.
    pub(crate) fn params(&self) -> Vec<(&'static str, Scalar)> {
        let mut v = self.shift.params();
        v.push(("a", self.a.clone()));
        v.push(("b", self.b.clone()));
        v
    }
    /// The locations exchanged.
    pub(crate) fn swapped(&self) -> Self {
        Clipped {
            shift: self.shift.swapped(),
            ..self.clone()
        }
    }
    /// μ1 = μ2 exactly.
    pub(crate) fn identical(&self) -> bool {
        self.shift.identical()
    }
}

/// A single law N(μ, σ²) (or a law built on it) for the Fisher information about μ.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Law {
    /// Location.
    pub mu: Scalar,
    /// Standard deviation.
    pub sigma: Scalar,
}

impl Law {
    /// (mu, sigma) in vocabulary order.
    pub(crate) fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![("mu", self.mu.clone()), ("sigma", self.sigma.clone())]
    }
}

/// A single clipped law for the Fisher information: location, σ, support [a, b].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ClippedLaw {
    /// Location.
    pub mu: Scalar,
    /// Standard deviation.
    pub sigma: Scalar,
    /// Lower end.
    pub a: Scalar,
    /// Upper end.
    pub b: Scalar,
}

impl ClippedLaw {
    /// (mu, sigma, a, b) in vocabulary order.
    pub(crate) fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("mu", self.mu.clone()),
            ("sigma", self.sigma.clone()),
            ("a", self.a.clone()),
            ("b", self.b.clone()),
        ]
    }
    /// (μ, σ, a, b) at the context precision and the log-density of the unclipped N(μ, σ²).
    pub(crate) fn at(&self, ctx: &Ctx) -> (Float, Float, Float, Float, Quadratic) {
        let (m, s) = (ctx.f(&self.mu), ctx.f(&self.sigma));
        let (af, bf) = (ctx.f(&self.a), ctx.f(&self.b));
        let q = Quadratic::log_normal(&m, &s, ctx.prec);
        (m, s, af, bf, q)
    }
    /// (μ, σ, a, b) at `p` bits, standardised ends (A, B).
    pub(crate) fn ends_at(&self, p: u32) -> (Float, Float, Float) {
        let (m, s, a, b) = (
            fl(p, &self.mu),
            fl(p, &self.sigma),
            fl(p, &self.a),
            fl(p, &self.b),
        );
        let (aa, bb) = ends(p, &m, &s, &a, &b);
        (s, aa, bb)
    }
}

impl Clipped {
    /// The pair from the registry's parameter lookup (mu1, mu2, sigma, a, b).
    pub(crate) fn looked_up(get: crate::model::ParamLookup<'_>) -> Result<Self> {
        let [mu1, mu2, sigma, a, b] =
            crate::model::looked_up(get, ["mu1", "mu2", "sigma", "a", "b"])?;
        Clipped::new(mu1, mu2, sigma, a, b)
    }
}

impl ClippedLaw {
    /// The law from the registry's parameter lookup (a, b, mu, sigma), validated (μ finite,
    /// σ > 0, a < b), as the family's location model `make`.
    pub(crate) fn located(
        get: crate::model::ParamLookup<'_>,
        make: fn(ClippedLaw) -> std::sync::Arc<dyn crate::model::LocationModel>,
    ) -> Result<std::sync::Arc<dyn crate::model::LocationModel>> {
        let (a, b) = (get.scalar("a")?, get.scalar("b")?);
        let (mu, sigma) = (get.scalar("mu")?, get.scalar("sigma")?);
        crate::model::finite("mu", &mu)?;
        crate::model::positive("sigma", &sigma)?;
        crate::model::interval(&a, &b)?;
        Ok(make(ClippedLaw { mu, sigma, a, b }))
    }
}

impl Shift {
    /// The pair from the registry's parameter lookup (mu1, mu2, sigma).
    pub(crate) fn looked_up(get: crate::model::ParamLookup<'_>) -> Result<Self> {
        let [mu1, mu2, sigma] = crate::model::looked_up(get, ["mu1", "mu2", "sigma"])?;
        Shift::new(mu1, mu2, sigma)
    }
}

impl Law {
    /// The law from the registry's parameter lookup (mu, sigma), validated (μ finite, σ > 0),
    /// as the family's location model `make`.
    pub(crate) fn located(
        get: crate::model::ParamLookup<'_>,
        make: fn(Law) -> std::sync::Arc<dyn crate::model::LocationModel>,
    ) -> Result<std::sync::Arc<dyn crate::model::LocationModel>> {
        let (mu, sigma) = (get.scalar("mu")?, get.scalar("sigma")?);
        crate::model::finite("mu", &mu)?;
        crate::model::positive("sigma", &sigma)?;
        Ok(make(Law { mu, sigma }))
    }
}

/// The registry entry of a family with two locations and one σ (Gaussian, stochastic sign): keys
/// mu1, mu2, sigma (the pair) and mu, sigma (one law), with its part in audit specs and reports `spec`.
pub(crate) const fn shift_family(
    name: &'static str,
    pair: fn(crate::model::ParamLookup<'_>) -> Result<std::sync::Arc<dyn crate::model::PairModel>>,
    location: crate::model::LocationBuilder,
    claim: crate::model::Guarantee,
    claim_source: &'static str,
    spec: crate::model::SpecForm,
) -> crate::model::Family {
    crate::model::Family {
        name,
        pair_keys: &["mu1", "mu2", "sigma"],
        input_keys: &["mu1", "mu2"],
        location_keys: &["mu", "sigma"],
        pair,
        location: Some(location),
        claim,
        claim_source,
        spec,
        noise: None,
    }
}

/// The registry entry of a clipped family (rectified, truncated): keys mu1, mu2, sigma, a, b
/// (the pair) and mu, sigma, a, b (one law); the claim is the exact ε(δ) of the pair.
pub(crate) const fn clipped_family(
    name: &'static str,
    pair: fn(crate::model::ParamLookup<'_>) -> Result<std::sync::Arc<dyn crate::model::PairModel>>,
    location: crate::model::LocationBuilder,
    claim_source: &'static str,
    spec: crate::model::SpecForm,
) -> crate::model::Family {
    crate::model::Family {
        name,
        pair_keys: &["mu1", "mu2", "sigma", "a", "b"],
        input_keys: &["mu1", "mu2"],
        location_keys: &["mu", "sigma", "a", "b"],
        pair,
        location: Some(location),
        claim: crate::model::Guarantee::Exact,
        claim_source,
        spec,
        noise: None,
    }
}
