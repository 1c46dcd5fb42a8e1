//! The Laplace mechanism Lap(μ, b): density e^{−|x−μ|/b}/(2b). HMB Prop. 2 needs it for the
//! propose-test-release step (Δ̂ = Δ₊ + Lap(1/ε)).
//!
//! This file is the whole family: the single law ([`Laplace`], f64 and `rug` densities, cdf,
//! sampler), the neighbouring pair ([`LaplacePair`], closed forms of docs/formulas.md §10) and
//! the location model for the Fisher information (`LaplaceLocation`), registered as
//! `FAMILY`. Everything else (generic quadrature, eval, audit specs, reports) comes from
//! [`crate::model`].
//!
//! Closed forms for P1 = Lap(μ1, b), P2 = Lap(μ2, b), t = |μ1 − μ2|/b (docs/formulas.md §10):
//!
//! * Rényi, α > 1 (Mironov 2017, *Rényi Differential Privacy*, Table II):
//!   D_α = (1/(α−1)) log[α/(2α−1) e^{(α−1)t} + (α−1)/(2α−1) e^{−αt}], evaluated as
//!   t + log1p((α−1)/(2α−1) · expm1(−(2α−1)t))/(α−1), which never overflows for large t;
//! * KL = t + e^{−t} − 1 = t + expm1(−t);
//! * δ(ε) = −expm1((ε − t)/2) for 0 ≤ ε < t, and 0 for ε ≥ t (pure t-DP);
//! * Fisher information about μ: 1/b² (the score is sign(x − μ)/b).
//!
//! Small t cancels in the Rényi and KL forms (both are O(t²)); the certifying precision ladder
//! sees that cancellation as disagreement between precisions and raises the precision.

use super::stream::StreamRng;
use super::ScalarDist;
use crate::error::Result;
use crate::model::{
    Family, FisherIntegrals, Integrals, LineLocation, LinePair, LocationModel, Pair, PairModel,
    ParamLookup, Which,
};
use crate::scalar::Scalar;
use rand::Rng;
use rand_distr::{Distribution, Exp1};
use rug::Float;
use std::any::Any;
use std::sync::Arc;

/// The Laplace law Lap(μ, b) with f64 parameters.
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::{laplace::Laplace, stream::chunk_rng, ScalarDist};
///
/// let lap = Laplace::new(0.0, 2.0).unwrap();
/// assert!((lap.cdf(0.0) - 0.5).abs() < 1e-16);
/// let mut out = [0.0; 4];
/// lap.sample_many(&mut chunk_rng(7, 0), &mut out);
/// assert!(out.iter().all(|x| x.is_finite()));
/// assert!(Laplace::new(0.0, 0.0).is_err());
/// ```
///
/// Sampling is μ ± b·E with a fair sign bit and E ~ Exp(1) from `rand_distr::Exp1` (ziggurat,
/// unbounded tails); the cdf is evaluated on its tail side (½e^{−|x−μ|/b}), never as 1 − tail.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Laplace {
    mu: f64,
    scale: f64,
}

impl Laplace {
    /// Lap(μ, b) from the location `mu` (finite) and the scale `scale` (finite, > 0).
    pub fn new(mu: f64, scale: f64) -> Result<Self> {
        super::check_location_scale(mu, "scale", scale)?;
        Ok(Laplace { mu, scale })
    }

    /// Fills `out` with independent draws, in order (one sign bit and one Exp(1) draw each).
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            let negative = rng.next_u32() & 1 == 1;
            let e: f64 = Exp1.sample(rng);
            let step = self.scale * e;
            *o = if negative {
                self.mu - step
            } else {
                self.mu + step
            };
        }
    }

    fn tail(&self, x: f64, upper: bool) -> f64 {
        // P(X > x) for upper, P(X ≤ x) otherwise, from the side it is small on.
        let z = (x - self.mu) / self.scale;
        let z = if upper { z } else { -z };
        if z >= 0.0 {
            0.5 * (-z).exp()
        } else {
            -0.5 * z.exp_m1() + 0.5
        }
    }
}

impl ScalarDist for Laplace {
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    fn ln_pdf(&self, x: f64) -> f64 {
        -(x - self.mu).abs() / self.scale - (2.0 * self.scale).ln()
    }
    fn pdf(&self, x: f64) -> f64 {
        (-(x - self.mu).abs() / self.scale).exp() / (2.0 * self.scale)
    }
    fn ln_pdf_mp(&self, x: &Float) -> Float {
        ln_pdf(
            x,
            &Float::with_val(x.prec() + 16, self.mu),
            &self.scale_mp(x),
        )
    }
    fn cdf(&self, x: f64) -> f64 {
        self.tail(x, false)
    }
    fn sf(&self, x: f64) -> f64 {
        self.tail(x, true)
    }
    fn cdf_mp(&self, x: &Float) -> Float {
        tail_mp(x, self.mu, self.scale, false)
    }
    fn sf_mp(&self, x: &Float) -> Float {
        tail_mp(x, self.mu, self.scale, true)
    }
}

impl Laplace {
    fn scale_mp(&self, x: &Float) -> Float {
        Float::with_val(x.prec() + 16, self.scale)
    }
}

fn tail_mp(x: &Float, mu: f64, scale: f64, upper: bool) -> Float {
    let p = x.prec();
    let wp = p + 16;
    let mut z = Float::with_val(wp, x - Float::with_val(wp, mu)) / Float::with_val(wp, scale);
    if !upper {
        z = -z;
    }
    let half = Float::with_val(wp, 0.5);
    if z >= 0 {
        Float::with_val(p, (-z).exp() * &half)
    } else {
        // 1 − ½e^{z} with z < 0.
        let t = Float::with_val(wp, z.exp() * &half);
        Float::with_val(p, 1 - t)
    }
}

/// log of e^{−|x−μ|/b}/(2b) at the precision of `x`.
fn ln_pdf(x: &Float, mu: &Float, b: &Float) -> Float {
    let p = x.prec();
    let wp = p + 16;
    let d = Float::with_val(wp, x - mu).abs() / b;
    let two_b = Float::with_val(wp, b * 2u32);
    Float::with_val(p, -d - two_b.ln())
}

/// The neighbouring pair Lap(μ1, b) vs Lap(μ2, b).
#[derive(Clone, Debug)]
pub struct LaplacePair {
    mu1: Scalar,
    mu2: Scalar,
    scale: Scalar,
    laws: [Laplace; 2],
}

impl LaplacePair {
    /// The validated pair (finite locations, scale > 0).
    pub fn new(mu1: Scalar, mu2: Scalar, scale: Scalar) -> Result<Self> {
        let laws = [
            Laplace::new(mu1.f64(), scale.f64())?,
            Laplace::new(mu2.f64(), scale.f64())?,
        ];
        Ok(LaplacePair {
            mu1,
            mu2,
            scale,
            laws,
        })
    }

    fn law(&self, which: Which) -> &Laplace {
        match which {
            Which::P1 => &self.laws[0],
            Which::P2 => &self.laws[1],
        }
    }

    /// t = |μ1 − μ2|/b at `p` bits.
    fn t(&self, p: u32) -> Float {
        let d = Float::with_val(p, self.mu1.mp(p) - self.mu2.mp(p)).abs();
        d / self.scale.mp(p)
    }
}

impl PairModel for LaplacePair {
    fn family(&self) -> &'static Family {
        &FAMILY
    }
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("mu1", self.mu1.clone()),
            ("mu2", self.mu2.clone()),
            ("scale", self.scale.clone()),
        ]
    }
    fn swapped(&self) -> Arc<dyn PairModel> {
        let (a, b) = (self.mu1.clone(), self.mu2.clone());
        Arc::new(LaplacePair {
            mu1: b,
            mu2: a,
            scale: self.scale.clone(),
            laws: [self.laws[1], self.laws[0]],
        })
    }
    fn identical(&self) -> bool {
        self.mu1.mp(2048) == self.mu2.mp(2048)
    }
    fn integrals(&self) -> Integrals<'_> {
        Integrals::Line(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn renyi_at(&self, alpha: &Float, p: u32) -> Result<Float> {
        let wp = p + 16;
        let t = self.t(wp);
        let am1 = Float::with_val(wp, alpha - 1u32);
        let tam1 = Float::with_val(wp, alpha * 2u32) - 1u32;
        let e = Float::with_val(wp, -Float::with_val(wp, &tam1 * &t)).exp_m1();
        let inner = Float::with_val(wp, &am1 / &tam1) * e;
        let d = t + inner.ln_1p() / am1;
        Ok(Float::with_val(p, d))
    }
    fn kl_at(&self, p: u32) -> Result<Float> {
        let wp = p + 16;
        let t = self.t(wp);
        let e = Float::with_val(wp, -&t).exp_m1();
        Ok(Float::with_val(p, t + e))
    }
    fn hockey_at(&self, eps: &Float, p: u32) -> Result<Float> {
        let wp = p + 16;
        let t = self.t(wp);
        if Float::with_val(wp, eps) >= t {
            return Ok(Float::new(p));
        }
        let h = Float::with_val(wp, eps - t) / 2u32;
        Ok(Float::with_val(p, -h.exp_m1()))
    }
}

impl LinePair for LaplacePair {
    fn ln_pdf_mp(&self, which: Which, x: &Float) -> Float {
        let wp = x.prec() + 16;
        let mu = match which {
            Which::P1 => &self.mu1,
            Which::P2 => &self.mu2,
        };
        ln_pdf(x, &mu.mp(wp), &self.scale.mp(wp))
    }
    fn breakpoints(&self, prec: u32) -> Vec<Float> {
        let (a, b) = (self.mu1.mp(prec), self.mu2.mp(prec));
        if a < b {
            vec![a, b]
        } else if b < a {
            vec![b, a]
        } else {
            vec![a]
        }
    }
    fn llr_level(&self, c: &Float) -> Vec<Float> {
        // ln p1 − ln p2 = (|x − μ2| − |x − μ1|)/b: ±t outside [min μ, max μ], linear inside,
        // so each level c in (−t, t) is crossed once, at x = (μ1 + μ2)/2 − sgn(μ2 − μ1)·c·b/2.
        let p = c.prec() + 16;
        let t = self.t(p);
        if self.identical() || Float::with_val(p, c.abs_ref()) >= t {
            return Vec::new();
        }
        let (m1, m2, b) = (self.mu1.mp(p), self.mu2.mp(p), self.scale.mp(p));
        let mid = Float::with_val(p, &m1 + &m2) / 2u32;
        let half = Float::with_val(p, c * &b) / 2u32;
        let x = if m2 > m1 { mid - half } else { mid + half };
        vec![Float::with_val(c.prec(), x)]
    }
    fn tail_scale(&self) -> f64 {
        self.scale.f64()
    }

    fn sample_many(&self, which: Which, rng: &mut StreamRng, out: &mut [f64]) {
        self.law(which).sample_many(rng, out)
    }
    fn llr(&self, x: f64) -> f64 {
        let [l1, l2] = &self.laws;
        ((x - l2.mu).abs() - (x - l1.mu).abs()) / l1.scale
    }
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    fn llr_range(&self) -> (f64, f64) {
        let t = (self.laws[0].mu - self.laws[1].mu).abs() / self.laws[0].scale;
        (-t, t)
    }
}

/// A single Lap(μ, b), for the Fisher information about μ.
#[derive(Clone, Debug)]
pub(crate) struct LaplaceLocation {
    mu: Scalar,
    scale: Scalar,
}

impl LocationModel for LaplaceLocation {
    fn family(&self) -> &'static Family {
        &FAMILY
    }
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![("mu", self.mu.clone()), ("scale", self.scale.clone())]
    }
    fn integrals(&self) -> FisherIntegrals<'_> {
        FisherIntegrals::Line(self)
    }
    fn fisher_at(&self, p: u32) -> Result<Float> {
        let b = self.scale.mp(p + 16);
        Ok(Float::with_val(p, b.square().recip()))
    }
}

impl LineLocation for LaplaceLocation {
    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let wp = x.prec() + 16;
        ln_pdf(x, &self.mu.mp(wp), &self.scale.mp(wp))
    }
    fn score_sq_mp(&self, x: &Float) -> Float {
        let b = self.scale.mp(x.prec() + 16);
        Float::with_val(x.prec(), b.square().recip())
    }
    fn breakpoints(&self, prec: u32) -> Vec<Float> {
        vec![self.mu.mp(prec)]
    }
    fn tail_scale(&self) -> f64 {
        self.scale.f64()
    }
}

fn build_pair(get: ParamLookup<'_>) -> Result<Arc<dyn PairModel>> {
    Ok(Arc::new(LaplacePair::new(
        get.scalar("mu1")?,
        get.scalar("mu2")?,
        get.scalar("scale")?,
    )?))
}

fn build_location(get: ParamLookup<'_>) -> Result<Arc<dyn LocationModel>> {
    let (mu, scale) = (get.scalar("mu")?, get.scalar("scale")?);
    Laplace::new(mu.f64(), scale.f64())?;
    Ok(Arc::new(LaplaceLocation { mu, scale }))
}

/// The published guarantee: Lap(Δ/ε) is ε-DP with ε = |μ1 − μ2|/b (Dwork, McSherry, Nissim &
/// Smith 2006, Prop. 1), at every δ ≥ 0.
fn claim(pair: &Pair, delta: f64) -> Result<f64> {
    crate::error::check_open_unit("delta", delta)?;
    let lap = pair
        .downcast_ref::<LaplacePair>()
        .ok_or_else(|| crate::error::Error::Unsupported(format!("not a Laplace pair: {pair}")))?;
    Ok(lap.llr_range().1)
}

/// The registry entry of the Laplace family.
pub(crate) static FAMILY: Family = Family {
    name: "laplace",
    pair_keys: &["mu1", "mu2", "scale"],
    input_keys: &["mu1", "mu2"],
    location_keys: &["mu", "scale"],
    pair: build_pair,
    location: Some(build_location),
    claim: crate::model::Guarantee::Published(claim),
    claim_source: "Laplace mechanism: eps = |mu1 - mu2|/b (DMNS 2006, pure DP)",
    spec: crate::model::SpecForm::GENERIC,
    noise: Some(&NOISE),
};

/// Laplace noise for the training algorithms: one centred draw Lap(0, b) (propose-test-release's
/// noisy test, HMB Prop. 2), the same law and sampler whose divergences and audits dpaudit
/// certifies (a fair sign bit times an Exp(1) ziggurat draw, exact in the tails).
static NOISE: crate::model::NoiseHooks = crate::model::NoiseHooks {
    centred_draw: Some(centred_draw),
    relative: None,
    coordinate: None,
};

/// One Lap(0, b) draw; `b` must be finite and > 0.
fn centred_draw(b: f64, rng: &mut StreamRng) -> Result<f64> {
    let mut x = [0.0];
    Laplace::new(0.0, b)?.sample_many(rng, &mut x);
    Ok(x[0])
}
