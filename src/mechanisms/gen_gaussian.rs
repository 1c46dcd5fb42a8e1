//! The generalized Gaussian (exponential-power) mechanism GG(μ, α, p): density
//! f(x) = p/(2αΓ(1/p)) · exp(−(|x − μ|/α)^p) with shape p ≥ 1 (F. Liu, "Generalized Gaussian
//! mechanism for differential privacy", IEEE TKDE 31(4), 2019). p = 1 is the Laplace law
//! Lap(μ, α); p = 2 is the Gaussian N(μ, α²/2). In `dpaudit eval` the scale α is called `scale`
//! (the key `alpha` is the Rényi order) and the shape `p`.
//!
//! This file is the whole family (docs/architecture.md, "Adding a family"): the single law
//! ([`GenGaussian`], f64 and `rug` densities, cdf and survival function by the regularized
//! incomplete gamma function, a seeded sampler), the neighbouring pair ([`GenGaussianPair`],
//! integrated by the generic quadrature route of [`crate::model::LinePair`] and audited through
//! its sampler and exact log-likelihood ratio), the location model for the Fisher information,
//! and the registry entry `FAMILY`. Formulas: docs/formulas.md §15.
//!
//! * cdf: with z = (x − μ)/α, P(X > x) = ½ Q(1/p, z^p) for z ≥ 0 and P(X ≤ x) = ½ Q(1/p, |z|^p)
//!   for z ≤ 0 (Q the regularized upper incomplete gamma function: substitute u = t^p in
//!   ∫_z^∞ e^{−t^p} dt); each tail is computed on its own side.
//! * Sampling: X = μ + α·S·G^{1/p}, S a fair sign and G ~ Gamma(1/p, 1) (|Z|^p ~ Gamma(1/p, 1) by
//!   the same substitution).
//! * The log-likelihood ratio of P1 = GG(μ1, α, p) against P2 = GG(μ2, α, p) is
//!   ℓ(x) = (|x − μ2|^p − |x − μ1|^p)/α^p: for p > 1 strictly monotone on ℝ (decreasing when
//!   μ1 < μ2) with range ℝ, so each level is crossed once and no pure ε exists; for p = 1 it is
//!   Laplace's, clipped to ±|μ1 − μ2|/α.
//! * Closed forms: p = 1 and p = 2 only (Laplace, Mironov 2017 Table II; Gaussian, Mironov 2017
//!   Prop. 7 and Balle & Wang 2018 Thm 8 at σ² = α²/2); other shapes have no closed form for D_α,
//!   KL or δ(ε) and go to quadrature. Fisher information about μ, any p ≥ 1:
//!   I = (p²/α²) E|Z|^{2p−2} = (p²/α²) Γ(2 − 1/p)/Γ(1/p), from E|Z|^k = Γ((k+1)/p)/Γ(1/p).
//! * Claim: the pair's exact ε(δ) ([`Guarantee::Exact`]). GG noise with p ≥ 1 is symmetric and
//!   log-concave; for such noise in one dimension the exact privacy profile is the necessary and
//!   sufficient (ε, δ) condition (Vinterbo, "Differential privacy for symmetric log-concave
//!   mechanisms", AISTATS 2022; its §4 on higher dimensions is withdrawn by the author). Liu's
//!   (ε, δ)-probabilistic-DP scale bound for p > 1 is not encoded (its statement was not
//!   available to check); for p = 1 the exact ε(δ) tends to Liu's/DMNS's pure ε = |μ1 − μ2|/α.

use super::stream::StreamRng;
use super::ScalarDist;
use crate::error::{Error, Result};
use crate::model::normal::{gauss_hockey, gauss_kl, gauss_renyi, Gauss};
use crate::model::{
    Family, FisherIntegrals, Guarantee, Integrals, LineLocation, LinePair, LocationModel,
    PairModel, ParamLookup, Which,
};
use crate::numeric::gamma::gamma_q;
use crate::scalar::Scalar;
use rand::Rng;
use rand_distr::{Distribution, Gamma};
use rug::ops::Pow;
use rug::Float;
use std::any::Any;
use std::sync::{Arc, Mutex};

/// The largest shape p accepted. Beyond it the law is close to uniform on [μ − α, μ + α] with
/// walls of width ≈ α/p, which the generic quadrature's tail map (decay length α) resolves only
/// slowly; 20 keeps every quantity within the route's default limits.
pub const MAX_SHAPE: f64 = 20.0;

/// Checks the shape: finite, 1 ≤ p ≤ [`MAX_SHAPE`] (the exact decimal, compared at 256 bits).
fn check_shape(p: &Scalar) -> Result<f64> {
    let v = p.to_double("p")?;
    let x = p.mp(256);
    if !v.is_finite() || x < 1 || x > MAX_SHAPE {
        return Err(Error::invalid(
            "p",
            p,
            &format!("finite, >= 1 and <= {MAX_SHAPE} (the shape of the generalized Gaussian)"),
        ));
    }
    Ok(v)
}

/// Checks the shape given as a double.
fn check_shape_f64(p: f64) -> Result<()> {
    if !(p.is_finite() && (1.0..=MAX_SHAPE).contains(&p)) {
        return Err(Error::invalid(
            "p",
            p,
            &format!("finite, >= 1 and <= {MAX_SHAPE} (the shape of the generalized Gaussian)"),
        ));
    }
    Ok(())
}

/// ln(p/(2αΓ(1/p))) at `prec` bits.
fn ln_norm_mp(prec: u32, scale: &Float, shape: &Float) -> Float {
    let wp = prec + 16;
    let inv = Float::with_val(wp, shape.recip_ref());
    let lg = Float::with_val(wp, inv.ln_gamma_ref());
    let two_a = Float::with_val(wp, scale * 2u32);
    let v = Float::with_val(wp, shape.ln_ref()) - two_a.ln() - lg;
    Float::with_val(prec, v)
}

/// ½ Q(1/p, u^p) = P(Z > u) for u ≥ 0 and Z the standard GG(0, 1, p), at the precision of `u`
/// ([`gamma_q`]: an error when its continued fraction does not converge).
fn half_q(u: &Float, shape: &Float) -> Result<Float> {
    let prec = u.prec();
    let wp = prec + 24;
    let s = Float::with_val(wp, shape.recip_ref());
    let x = Float::with_val(wp, u.pow(Float::with_val(wp, shape)));
    Ok(Float::with_val(prec, gamma_q(&s, &x)? / 2u32))
}

/// P(X > x) (`upper`) or P(X ≤ x) of GG(μ, α, p), each from the side it is small on, at the
/// precision of `x`.
fn tail_mp(x: &Float, mu: &Float, scale: &Float, shape: &Float, upper: bool) -> Result<Float> {
    let prec = x.prec();
    let wp = prec + 16;
    let mut z = Float::with_val(wp, x - mu) / scale;
    if !upper {
        z = -z;
    }
    if z >= 0 {
        Ok(Float::with_val(prec, half_q(&z, shape)?))
    } else {
        let t = half_q(&Float::with_val(wp, -z), shape)?;
        Ok(Float::with_val(prec, 1u32 - t))
    }
}

/// [`tail_mp`], or NaN when the incomplete gamma cannot be computed ([`ScalarDist`]'s tails
/// have no error channel; a NaN is never a certified value).
fn tail_or_nan(x: &Float, mu: &Float, scale: &Float, shape: &Float, upper: bool) -> Float {
    tail_mp(x, mu, scale, shape, upper).unwrap_or_else(|_| Float::with_val(x.prec(), f64::NAN))
}

/// (|x − μ|/α)^p at the precision of `x` (working at +16 bits).
fn power_mp(x: &Float, mu: &Float, scale: &Float, shape: &Float) -> Float {
    let wp = x.prec() + 16;
    let z = Float::with_val(wp, x - mu).abs() / scale;
    Float::with_val(wp, z.pow(shape))
}

/// The generalized Gaussian law GG(μ, α, p) with f64 parameters.
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::{gen_gaussian::GenGaussian, stream::chunk_rng, ScalarDist};
///
/// let gg = GenGaussian::new(0.0, 2.0, 1.5).unwrap();
/// assert!((gg.cdf(0.0) - 0.5).abs() < 1e-16);
/// let mut out = [0.0; 4];
/// gg.sample_many(&mut chunk_rng(7, 0), &mut out);
/// assert!(out.iter().all(|x| x.is_finite()));
/// assert!(GenGaussian::new(0.0, 1.0, 0.5).is_err());
/// ```
///
/// # Notes
///
/// Sampling is μ ± α·G^{1/p} with a fair sign bit and G ~ Gamma(1/p, 1) from `rand_distr::Gamma`
/// (Marsaglia–Tsang, with its boost for shapes below 1). The f64 cdf and survival function are
/// the multiple-precision ones ([`ScalarDist::cdf_mp`]) at 64 bits, rounded (the incomplete gamma
/// function by its series or continued fraction, docs/formulas.md §15.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenGaussian {
    mu: f64,
    scale: f64,
    shape: f64,
    gamma: Gamma<f64>,
    ln_norm: f64,
}

impl GenGaussian {
    /// GG(μ, α, p) from the location `mu` (finite), the scale `scale` (finite, > 0) and the shape
    /// `shape` (1 ≤ p ≤ [`MAX_SHAPE`]).
    pub fn new(mu: f64, scale: f64, shape: f64) -> Result<Self> {
        super::check_location_scale(mu, "scale", scale)?;
        check_shape_f64(shape)?;
        let gamma = Gamma::new(1.0 / shape, 1.0)
            .map_err(|e| Error::invalid("p", shape, &format!("a valid Gamma(1/p) shape: {e}")))?;
        let ln_norm = ln_norm_mp(64, &Float::with_val(64, scale), &Float::with_val(64, shape));
        Ok(GenGaussian {
            mu,
            scale,
            shape,
            gamma,
            ln_norm: ln_norm.to_f64(),
        })
    }

    /// The location μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// The scale α.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The shape p.
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// Fills `out` with independent draws, in order (one sign bit, then one Gamma(1/p) draw each).
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            *o = self.sample(rng);
        }
    }

    fn params_mp(&self, prec: u32) -> (Float, Float, Float) {
        (
            Float::with_val(prec, self.mu),
            Float::with_val(prec, self.scale),
            Float::with_val(prec, self.shape),
        )
    }
}

impl Distribution<f64> for GenGaussian {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let negative = rng.next_u32() & 1 == 1;
        let g: f64 = self.gamma.sample(rng);
        let step = self.scale * g.powf(1.0 / self.shape);
        if negative {
            self.mu - step
        } else {
            self.mu + step
        }
    }
}

impl ScalarDist for GenGaussian {
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    fn ln_pdf(&self, x: f64) -> f64 {
        self.ln_norm - ((x - self.mu).abs() / self.scale).powf(self.shape)
    }
    fn pdf(&self, x: f64) -> f64 {
        self.ln_pdf(x).exp()
    }
    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let (mu, a, p) = self.params_mp(x.prec() + 16);
        let v = ln_norm_mp(x.prec() + 16, &a, &p) - power_mp(x, &mu, &a, &p);
        Float::with_val(x.prec(), v)
    }
    fn cdf(&self, x: f64) -> f64 {
        self.cdf_mp(&Float::with_val(64, x)).to_f64()
    }
    fn sf(&self, x: f64) -> f64 {
        self.sf_mp(&Float::with_val(64, x)).to_f64()
    }
    fn cdf_mp(&self, x: &Float) -> Float {
        let (mu, a, p) = self.params_mp(x.prec() + 16);
        tail_or_nan(x, &mu, &a, &p, false)
    }
    fn sf_mp(&self, x: &Float) -> Float {
        let (mu, a, p) = self.params_mp(x.prec() + 16);
        tail_or_nan(x, &mu, &a, &p, true)
    }
}

/// The normalising constant ln(p/(2αΓ(1/p))) of the last precision asked for (the quadrature
/// route asks for thousands of log-densities at one precision; Γ at that precision is the costly
/// part).
#[derive(Debug, Default)]
struct NormCache(Mutex<Option<(u32, Float)>>);

impl Clone for NormCache {
    fn clone(&self) -> Self {
        NormCache::default()
    }
}

impl NormCache {
    fn get(&self, prec: u32, scale: &Scalar, shape: &Scalar) -> Float {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((p, v)) = slot.as_ref() {
            if *p == prec {
                return v.clone();
            }
        }
        let v = ln_norm_mp(prec, &scale.mp(prec + 16), &shape.mp(prec + 16));
        *slot = Some((prec, v.clone()));
        v
    }
}

/// The neighbouring pair GG(μ1, α, p) vs GG(μ2, α, p).
#[derive(Clone, Debug)]
pub struct GenGaussianPair {
    mu1: Scalar,
    mu2: Scalar,
    scale: Scalar,
    shape: Scalar,
    laws: [GenGaussian; 2],
    norm: NormCache,
}

impl GenGaussianPair {
    /// The validated pair (finite locations, scale > 0, 1 ≤ p ≤ [`MAX_SHAPE`]); errors name the
    /// parameter and its value.
    pub(crate) fn new(mu1: Scalar, mu2: Scalar, scale: Scalar, shape: Scalar) -> Result<Self> {
        crate::model::finite("mu1", &mu1)?;
        crate::model::finite("mu2", &mu2)?;
        crate::model::positive("scale", &scale)?;
        let p = check_shape(&shape)?;
        let laws = [
            GenGaussian::new(mu1.f64(), scale.f64(), p)?,
            GenGaussian::new(mu2.f64(), scale.f64(), p)?,
        ];
        Ok(GenGaussianPair {
            mu1,
            mu2,
            scale,
            shape,
            laws,
            norm: NormCache::default(),
        })
    }

    fn law(&self, which: Which) -> &GenGaussian {
        &self.laws[which.index()]
    }

    fn is_shape(&self, p: u32) -> bool {
        self.shape.mp(256) == p
    }

    /// The Laplace pair Lap(μ1, α) vs Lap(μ2, α) (p = 1).
    fn laplace(&self) -> Result<super::laplace::LaplacePair> {
        super::laplace::LaplacePair::new(self.mu1.clone(), self.mu2.clone(), self.scale.clone())
    }

    /// The Gaussian pair N(μ1, α²/2) vs N(μ2, α²/2) (p = 2) as closed-form parameters at `p` bits.
    fn gauss(&self, p: u32) -> Gauss {
        let a = self.scale.mp(p);
        let s2 = Float::with_val(p, a.square_ref()) / 2u32;
        Gauss {
            dist: Float::with_val(p, self.mu1.mp(p) - self.mu2.mp(p)).abs(),
            s1sq: s2.clone(),
            s2sq: s2,
            u: Float::new(p),
            d: 1,
        }
    }

    /// ℓ(x) = ln p1(x) − ln p2(x) = (|x − μ2|^p − |x − μ1|^p)/α^p and its derivative, at `wp` bits.
    fn llr_and_slope(&self, x: &Float, wp: u32) -> (Float, Float) {
        let (m1, m2) = (self.mu1.mp(wp), self.mu2.mp(wp));
        let (a, p) = (self.scale.mp(wp), self.shape.mp(wp));
        let pm1 = Float::with_val(wp, &p - 1u32);
        let part = |m: &Float| -> (Float, Float) {
            let d = Float::with_val(wp, x - m);
            let z = Float::with_val(wp, d.abs_ref()) / &a;
            let zp = Float::with_val(wp, (&z).pow(&p));
            // d/dx |x − m|^p/α^p = p·sign(x − m)·|z|^{p−1}/α
            let mut slope = Float::with_val(wp, z.pow(&pm1)) * &p / &a;
            if d < 0 {
                slope = -slope;
            }
            (zp, slope)
        };
        let (v1, s1) = part(&m1);
        let (v2, s2) = part(&m2);
        (v2 - v1, s2 - s1)
    }

    /// The point where ℓ(x) = c for p > 1 (ℓ strictly monotone): a bracket grown by doubling,
    /// then Newton steps kept inside the bracket (bisection when a step leaves it or stalls),
    /// to the last bit of `wp`.
    fn level_point(&self, c: &Float, wp: u32) -> Float {
        let (m1, m2) = (self.mu1.mp(wp), self.mu2.mp(wp));
        let decreasing = m1 < m2;
        let (lo0, hi0) = if decreasing { (m1, m2) } else { (m2, m1) };
        // h(x) = ±(ℓ(x) − c), increasing in x.
        let h = |x: &Float| -> (Float, Float) {
            let (l, s) = self.llr_and_slope(x, wp);
            let v = Float::with_val(wp, l - c);
            if decreasing {
                (-v, -s)
            } else {
                (v, s)
            }
        };
        let a = self.scale.mp(wp);
        let (mut lo, mut hi) = (lo0, hi0);
        let mut w = a.clone();
        while h(&lo).0 > 0 {
            lo -= &w;
            w *= 2u32;
        }
        let mut w = a.clone();
        while h(&hi).0 < 0 {
            hi += &w;
            w *= 2u32;
        }
        let mut x = Float::with_val(wp, &lo + &hi) / 2u32;
        for _ in 0..(4 * wp + 64) {
            let (v, s) = h(&x);
            if v.is_zero() {
                return x;
            }
            if v < 0 {
                lo.clone_from(&x);
            } else {
                hi.clone_from(&x);
            }
            let width = Float::with_val(wp, &hi - &lo);
            let scale = Float::with_val(wp, x.abs_ref()).max(&a);
            if width <= scale * Float::with_val(wp, Float::i_exp(1, 4 - wp as i32)) {
                break;
            }
            let newton = if s > 0 {
                Some(Float::with_val(wp, &x - Float::with_val(wp, &v / &s)))
            } else {
                None
            };
            x = match newton {
                Some(n) if n > lo && n < hi => {
                    if Float::with_val(wp, &n - &x).abs() < Float::with_val(wp, &width / 2u32) {
                        n
                    } else {
                        Float::with_val(wp, &lo + &hi) / 2u32
                    }
                }
                _ => Float::with_val(wp, &lo + &hi) / 2u32,
            };
        }
        x
    }

    /// The f64 log-likelihood ratio at `x`.
    fn llr_f64(&self, x: f64) -> f64 {
        let [l1, l2] = &self.laws;
        ((x - l2.mu).abs() / l1.scale).powf(l1.shape)
            - ((x - l1.mu).abs() / l1.scale).powf(l1.shape)
    }
}

impl PairModel for GenGaussianPair {
    fn family(&self) -> &'static Family {
        &FAMILY
    }
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("mu1", self.mu1.clone()),
            ("mu2", self.mu2.clone()),
            ("scale", self.scale.clone()),
            ("p", self.shape.clone()),
        ]
    }
    fn swapped(&self) -> Arc<dyn PairModel> {
        Arc::new(GenGaussianPair {
            mu1: self.mu2.clone(),
            mu2: self.mu1.clone(),
            scale: self.scale.clone(),
            shape: self.shape.clone(),
            laws: [self.laws[1], self.laws[0]],
            norm: NormCache::default(),
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

    /// p = 1: Mironov 2017 Table II (the Laplace pair); p = 2: Mironov 2017 Prop. 7,
    /// D_α = αΔ²/α_s² with σ² = α_s²/2; no closed form otherwise.
    fn renyi_at(&self, alpha: &Float, p: u32) -> Result<Float> {
        if self.is_shape(1) {
            return self.laplace()?.renyi_at(alpha, p);
        }
        if self.is_shape(2) {
            return Ok(gauss_renyi(&self.gauss(p + 16), alpha, p));
        }
        Err(self.no_closed_form("renyi"))
    }
    /// p = 1: t + expm1(−t); p = 2: Δ²/α²; no closed form otherwise.
    fn kl_at(&self, p: u32) -> Result<Float> {
        if self.is_shape(1) {
            return self.laplace()?.kl_at(p);
        }
        if self.is_shape(2) {
            return Ok(gauss_kl(&self.gauss(p + 16), p));
        }
        Err(self.no_closed_form("kl"))
    }
    /// p = 1: −expm1((ε − t)/2) for ε < t (DMNS); p = 2: Balle & Wang 2018, Thm 8, at
    /// σ = α/√2; no closed form otherwise.
    fn hockey_at(&self, eps: &Float, p: u32) -> Result<Float> {
        if self.is_shape(1) {
            return self.laplace()?.hockey_at(eps, p);
        }
        if self.is_shape(2) {
            return gauss_hockey(&self.gauss(p + 16), eps, p);
        }
        Err(self.no_closed_form("hockey_stick_delta"))
    }
}

impl LinePair for GenGaussianPair {
    fn ln_pdf_mp(&self, which: Which, x: &Float) -> Float {
        let wp = x.prec() + 16;
        let mu = match which {
            Which::P1 => &self.mu1,
            Which::P2 => &self.mu2,
        };
        let c = self.norm.get(wp, &self.scale, &self.shape);
        let v = c - power_mp(x, &mu.mp(wp), &self.scale.mp(wp), &self.shape.mp(wp));
        Float::with_val(x.prec(), v)
    }
    /// The kinks at μ1, μ2 (|x − μ|^p is not analytic there unless p is an even integer), and a
    /// ladder at 1, 2, 4, …, 32 scales beyond them on each side: at large Rényi orders the tilted
    /// integrand p1^α p2^{1−α} peaks far outside [μ1, μ2] (docs/formulas.md §15.5), and a finite
    /// piece lets the route split it at its decay scale instead of leaving a narrow peak deep in
    /// the mapped tail.
    fn breakpoints(&self, prec: u32) -> Vec<Float> {
        let (a, b) = (self.mu1.mp(prec), self.mu2.mp(prec));
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let s = self.scale.mp(prec);
        let mut out = Vec::with_capacity(14);
        for k in (0..6).rev() {
            out.push(Float::with_val(
                prec,
                &lo - Float::with_val(prec, &s * (1u32 << k)),
            ));
        }
        out.push(lo.clone());
        if hi > lo {
            out.push(hi.clone());
        }
        for k in 0..6 {
            out.push(Float::with_val(
                prec,
                &hi + Float::with_val(prec, &s * (1u32 << k)),
            ));
        }
        out
    }
    fn llr_level(&self, c: &Float) -> Vec<Float> {
        if self.identical() {
            return Vec::new();
        }
        let wp = c.prec() + 16;
        if self.is_shape(1) {
            // Laplace: ±t outside [min μ, max μ], linear inside (see laplace.rs).
            let (m1, m2, b) = (self.mu1.mp(wp), self.mu2.mp(wp), self.scale.mp(wp));
            let t = Float::with_val(wp, &m1 - &m2).abs() / &b;
            if Float::with_val(wp, c.abs_ref()) >= t {
                return Vec::new();
            }
            let mid = Float::with_val(wp, &m1 + &m2) / 2u32;
            let half = Float::with_val(wp, c * &b) / 2u32;
            let x = if m2 > m1 { mid - half } else { mid + half };
            return vec![Float::with_val(c.prec(), x)];
        }
        vec![Float::with_val(c.prec(), self.level_point(c, wp))]
    }
    fn tail_scale(&self) -> f64 {
        self.scale.f64()
    }

    fn sample_many(&self, which: Which, rng: &mut StreamRng, out: &mut [f64]) {
        self.law(which).sample_many(rng, out)
    }
    fn llr(&self, x: f64) -> f64 {
        self.llr_f64(x)
    }
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    /// p = 1: [−t, t]. p > 1 the ratio is unbounded; the range given is that of the outputs
    /// within (72)^{1/p} scales of the locations, where each density has fallen by e^{−72} (the
    /// Gaussian's 12σ): outputs beyond fall in the histogram's under/overflow bins.
    fn llr_range(&self) -> (f64, f64) {
        let [l1, l2] = &self.laws;
        if l1.shape == 1.0 {
            let t = (l1.mu - l2.mu).abs() / l1.scale;
            return (-t, t);
        }
        let w = l1.scale * 72f64.powf(1.0 / l1.shape);
        let (lo, hi) = (l1.mu.min(l2.mu) - w, l1.mu.max(l2.mu) + w);
        let (a, b) = (self.llr_f64(lo), self.llr_f64(hi));
        (a.min(b), a.max(b))
    }
}

/// A single GG(μ, α, p), for the Fisher information about μ.
#[derive(Clone, Debug)]
pub(crate) struct GenGaussianLocation {
    mu: Scalar,
    scale: Scalar,
    shape: Scalar,
}

impl LocationModel for GenGaussianLocation {
    fn family(&self) -> &'static Family {
        &FAMILY
    }
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("mu", self.mu.clone()),
            ("scale", self.scale.clone()),
            ("p", self.shape.clone()),
        ]
    }
    fn integrals(&self) -> FisherIntegrals<'_> {
        FisherIntegrals::Line(self)
    }
    /// I(μ) = (p²/α²) Γ(2 − 1/p)/Γ(1/p) (docs/formulas.md §15.3).
    fn fisher_at(&self, p: u32) -> Result<Float> {
        let wp = p + 16;
        let (a, s) = (self.scale.mp(wp), self.shape.mp(wp));
        let inv = Float::with_val(wp, s.recip_ref());
        let num = Float::with_val(wp, 2u32 - &inv).gamma();
        let den = inv.gamma();
        let ratio = Float::with_val(wp, &s / &a).square();
        Ok(Float::with_val(p, ratio * num / den))
    }
}

impl LineLocation for GenGaussianLocation {
    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let wp = x.prec() + 16;
        let (mu, a, s) = (self.mu.mp(wp), self.scale.mp(wp), self.shape.mp(wp));
        let v = ln_norm_mp(wp, &a, &s) - power_mp(x, &mu, &a, &s);
        Float::with_val(x.prec(), v)
    }
    /// (∂_μ ln f)² = (p/α)² |z|^{2p−2}, z = (x − μ)/α.
    fn score_sq_mp(&self, x: &Float) -> Float {
        let wp = x.prec() + 16;
        let (mu, a, s) = (self.mu.mp(wp), self.scale.mp(wp), self.shape.mp(wp));
        let z = Float::with_val(wp, x - &mu).abs() / &a;
        let e = Float::with_val(wp, &s * 2u32) - 2u32;
        let zz = Float::with_val(wp, z.pow(&e));
        let ratio = Float::with_val(wp, &s / &a).square();
        Float::with_val(x.prec(), ratio * zz)
    }
    fn breakpoints(&self, prec: u32) -> Vec<Float> {
        vec![self.mu.mp(prec)]
    }
    fn tail_scale(&self) -> f64 {
        self.scale.f64()
    }
}

fn build_pair(get: ParamLookup<'_>) -> Result<Arc<dyn PairModel>> {
    Ok(Arc::new(GenGaussianPair::new(
        get.scalar("mu1")?,
        get.scalar("mu2")?,
        get.scalar("scale")?,
        get.scalar("p")?,
    )?))
}

fn build_location(get: ParamLookup<'_>) -> Result<Arc<dyn LocationModel>> {
    let (mu, scale, shape) = (get.scalar("mu")?, get.scalar("scale")?, get.scalar("p")?);
    crate::model::finite("mu", &mu)?;
    crate::model::positive("scale", &scale)?;
    check_shape(&shape)?;
    Ok(Arc::new(GenGaussianLocation { mu, scale, shape }))
}

/// The registry entry of the generalized Gaussian family.
pub(crate) static FAMILY: Family = Family {
    name: "gen_gaussian",
    pair_keys: &["mu1", "mu2", "scale", "p"],
    input_keys: &["mu1", "mu2"],
    location_keys: &["mu", "scale", "p"],
    pair: build_pair,
    location: Some(build_location),
    claim: Guarantee::Exact,
    claim_source: "exact eps(delta) of the pair, both orders: for symmetric log-concave noise \
                   (GG, p >= 1) the necessary and sufficient (eps, delta) condition (Vinterbo, \
                   AISTATS 2022); p = 1 is Laplace, pure eps = |mu1 - mu2|/scale (Liu 2019)",
    spec: crate::model::SpecForm::GENERIC,
    noise: None,
};

#[cfg(test)]
mod tests {
    use super::{
        Arc, Family, Float, GenGaussian, GenGaussianLocation, GenGaussianPair, LinePair,
        LocationModel, Result, Scalar, ScalarDist, Which,
    };
    use crate::divergence::{self, Method};
    use crate::mechanisms::stream::chunk_rng;
    use crate::model::Pair;
    use crate::numeric::mp::agreement_digits;

    fn sc(s: &str) -> Scalar {
        s.parse().unwrap()
    }

    fn pair(m1: &str, m2: &str, a: &str, p: &str) -> Pair {
        Pair::from(GenGaussianPair::new(sc(m1), sc(m2), sc(a), sc(p)).unwrap())
    }

    fn by_registry(family: &str, kv: &[(&str, &str)]) -> Pair {
        let values: Vec<(&str, Scalar)> = kv.iter().map(|(k, v)| (*k, sc(v))).collect();
        Family::by_name(family).unwrap().pair_from(&values).unwrap()
    }

    #[test]
    fn bad_parameters_are_refused_naming_parameter_and_value() {
        let err = |m1: &str, m2: &str, a: &str, p: &str| {
            GenGaussianPair::new(sc(m1), sc(m2), sc(a), sc(p))
                .unwrap_err()
                .to_string()
        };
        for (bad, name, (m1, m2, a, p)) in [
            ("0", "scale", ("0", "1", "0", "2")),
            ("-2", "scale", ("0", "1", "-2", "2")),
            ("0.999", "p", ("0", "1", "1", "0.999")),
            ("0.5", "p", ("0", "1", "1", "0.5")),
            ("20.5", "p", ("0", "1", "1", "20.5")),
            ("1e400", "mu1", ("1e400", "1", "1", "2")),
            ("1e400", "mu2", ("0", "1e400", "1", "2")),
        ] {
            let e = err(m1, m2, a, p);
            assert!(e.contains(name) && e.contains(bad), "{e}");
        }
        assert!(GenGaussianPair::new(sc("0"), sc("1"), sc("1"), sc("20")).is_ok());
        assert!(GenGaussianPair::new(sc("0"), sc("1"), sc("1"), sc("1")).is_ok());
        for (mu, a, p) in [
            (f64::NAN, 1.0, 2.0),
            (0.0, 0.0, 2.0),
            (0.0, 1.0, f64::INFINITY),
        ] {
            assert!(GenGaussian::new(mu, a, p).is_err());
        }
        // Through the registry, as `dpaudit eval` builds it: a missing key is named.
        let f = Family::by_name("gen_gaussian").unwrap();
        let e = f
            .pair_from(&[("mu1", sc("0")), ("mu2", sc("1")), ("scale", sc("1"))])
            .unwrap_err()
            .to_string();
        assert!(e.contains('p'), "{e}");
        let loc = (f.location.unwrap())(&|k: &str| -> Result<Scalar> {
            Ok(sc(match k {
                "mu" => "0",
                "scale" => "1",
                _ => "0.7",
            }))
        });
        let e = loc.unwrap_err().to_string();
        assert!(e.contains("p") && e.contains("0.7"), "{e}");
    }

    /// cdf + sf = 1, the cdf at μ is ½, the mp cdf is the integral of the density (checked by
    /// the crate's quadrature-independent trapezoid on a fine grid to 1e-9), and the f64 forms
    /// agree with the mp ones; far tails keep their relative accuracy (no 1 − cdf).
    #[test]
    fn cdf_and_sf_are_consistent_with_the_density() {
        for (mu, a, p) in [
            (0.0, 1.0, 1.5),
            (2.0, 0.5, 3.0),
            (-1.0, 2.0, 1.0),
            (0.3, 1.2, 7.0),
        ] {
            let g = GenGaussian::new(mu, a, p).unwrap();
            assert!((g.cdf(mu) - 0.5).abs() < 1e-15);
            for x in [mu - 3.0 * a, mu - 0.4 * a, mu + 0.1 * a, mu + 2.5 * a] {
                assert!((g.cdf(x) + g.sf(x) - 1.0).abs() < 1e-15, "{x}");
                if g.ln_pdf(x) > -700.0 {
                    let lp = g.ln_pdf(x);
                    assert!((lp - g.pdf(x).ln()).abs() < 1e-13 * (1.0 + lp.abs()));
                }
                let xm = Float::with_val(128, x);
                let lp = g.ln_pdf(x);
                assert!((g.ln_pdf_mp(&xm).to_f64() - lp).abs() < 1e-13 * (1.0 + lp.abs()));
                // ∫_{mu}^{x} pdf by composite Simpson on 20000 panels vs cdf(x) − ½.
                let n = 20_000;
                let h = (x - mu) / n as f64;
                let mut s = g.pdf(mu) + g.pdf(x);
                for i in 1..n {
                    let w = if i % 2 == 1 { 4.0 } else { 2.0 };
                    s += w * g.pdf(mu + i as f64 * h);
                }
                let integral = s * h / 3.0;
                assert!((g.cdf(x) - 0.5 - integral).abs() < 1e-9, "{x}: {integral}");
            }
            // Far upper tail: P(X > μ + 30α) = ½Q(1/p, 30^p) > 0, never rounded to 0 via 1 − cdf.
            let far = g.sf(mu + 30.0 * a);
            let ln_q = g.sf_mp(&Float::with_val(256, mu + 30.0 * a)).ln().to_f64();
            assert!(far > 0.0 || ln_q < -745.0, "{far}");
            assert!(g.cdf(mu - 30.0 * a) == g.sf(mu + 30.0 * a));
        }
        // p = 1 is Laplace: sf = ½e^{−z}.
        let g = GenGaussian::new(0.0, 2.0, 1.0).unwrap();
        assert!((g.sf(3.0) - 0.5 * (-1.5f64).exp()).abs() < 1e-16);
    }

    /// Seeded, cheap: E(X − μ)² = α²Γ(3/p)/Γ(1/p) within 6 standard errors (using E Z⁴ =
    /// Γ(5/p)/Γ(1/p)), the mean within 6 standard errors, and a KS distance to the exact cdf
    /// below the DKW bound at false-failure 1e-6.
    #[test]
    fn sampler_moments_and_ks_against_the_exact_cdf() {
        let n = 40_000usize;
        for (seed, (mu, a, p)) in [
            (1u64, (0.0, 1.0, 1.5)),
            (2, (3.0, 2.0, 4.0)),
            (3, (-1.0, 0.5, 1.0)),
        ] {
            let g = GenGaussian::new(mu, a, p).unwrap();
            let mut out = vec![0.0; n];
            g.sample_many(&mut chunk_rng(seed, 0), &mut out);
            let gm = |x: f64| Float::with_val(64, x).gamma().to_f64();
            let m2 = a * a * gm(3.0 / p) / gm(1.0 / p);
            let m4 = a.powi(4) * gm(5.0 / p) / gm(1.0 / p);
            let mean = out.iter().sum::<f64>() / n as f64;
            assert!(
                (mean - mu).abs() < 6.0 * (m2 / n as f64).sqrt(),
                "mean {mean}"
            );
            let s2 = out.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / n as f64;
            let se = ((m4 - m2 * m2) / n as f64).sqrt();
            assert!((s2 - m2).abs() < 6.0 * se, "p {p}: {s2} vs {m2}");
            out.sort_by(|x, y| x.partial_cmp(y).unwrap());
            let mut d = 0f64;
            for (i, x) in out.iter().enumerate() {
                let f = g.cdf(*x);
                d = d
                    .max((f - i as f64 / n as f64).abs())
                    .max(((i + 1) as f64 / n as f64 - f).abs());
            }
            let crit = ((2.0f64 / 1e-6).ln() / (2.0 * n as f64)).sqrt();
            assert!(d < crit, "p {p}: KS {d} >= {crit}");
            // The test has teeth: the same draws against the scale 1.25α fail it.
            let wrong = GenGaussian::new(mu, 1.25 * a, p).unwrap();
            let dw = out
                .iter()
                .enumerate()
                .map(|(i, x)| (wrong.cdf(*x) - i as f64 / n as f64).abs())
                .fold(0f64, f64::max);
            assert!(dw > crit, "p {p}: wrong scale not detected ({dw})");
        }
    }

    #[test]
    fn sampler_is_deterministic() {
        let pr = GenGaussianPair::new(sc("1"), sc("2"), sc("0.7"), sc("2.5")).unwrap();
        let (mut a, mut b) = (vec![0.0; 1000], vec![0.0; 1000]);
        pr.sample_many(Which::P2, &mut chunk_rng(11, 4), &mut a);
        pr.sample_many(Which::P2, &mut chunk_rng(11, 4), &mut b);
        assert_eq!(a, b);
        pr.sample_many(Which::P2, &mut chunk_rng(11, 5), &mut b);
        assert_ne!(a, b);
    }

    /// p = 2 is the Gaussian family at σ = α/√2, through each family's own routes: the GG
    /// quadrature against the gaussian closed forms (σ given to 50 digits of 1/√2 for α = 1, an
    /// error of < 1e-50 relative, far below the 30 digits compared).
    #[test]
    fn p2_agrees_with_the_gaussian_family() {
        let sigma = "0.70710678118654752440084436210484903928483593768847";
        let gg = pair("0", "0.8", "1", "2");
        let ga = by_registry(
            "gaussian",
            &[("mu1", "0"), ("mu2", "0.8"), ("sigma", sigma)],
        );
        for alpha in ["1.5", "4"] {
            let a = sc(alpha);
            let q = divergence::renyi(&gg, &a, 30, Method::Quadrature).unwrap();
            let c = divergence::renyi(&ga, &a, 30, Method::ClosedForm).unwrap();
            assert!(
                agreement_digits(&q.value, &c.value) >= 29.5,
                "renyi {alpha}"
            );
        }
        for eps in ["0", "0.3", "1.2"] {
            let e = sc(eps);
            let q = divergence::hockey_stick(&gg, &e, 30, Method::Quadrature).unwrap();
            let c = divergence::hockey_stick(&ga, &e, 30, Method::ClosedForm).unwrap();
            assert!(agreement_digits(&q.value, &c.value) >= 29.5, "hockey {eps}");
            // GG's own p = 2 closed form too.
            let own = divergence::hockey_stick(&gg, &e, 30, Method::ClosedForm).unwrap();
            assert!(
                agreement_digits(&own.value, &c.value) >= 29.5,
                "own hockey {eps}"
            );
        }
    }

    /// p = 1 is the Laplace family: the GG quadrature against the laplace closed forms.
    #[test]
    fn p1_agrees_with_the_laplace_family() {
        let gg = pair("0.5", "-1", "2", "1");
        let lp = by_registry("laplace", &[("mu1", "0.5"), ("mu2", "-1"), ("scale", "2")]);
        for alpha in ["1.001", "3"] {
            let a = sc(alpha);
            let q = divergence::renyi(&gg, &a, 30, Method::Quadrature).unwrap();
            let c = divergence::renyi(&lp, &a, 30, Method::ClosedForm).unwrap();
            assert!(
                agreement_digits(&q.value, &c.value) >= 29.5,
                "renyi {alpha}"
            );
        }
        let q = divergence::kl(&gg, 30, Method::Quadrature).unwrap();
        let c = divergence::kl(&lp, 30, Method::ClosedForm).unwrap();
        assert!(agreement_digits(&q.value, &c.value) >= 29.5, "kl");
        for eps in ["0", "0.5"] {
            let e = sc(eps);
            let q = divergence::hockey_stick(&gg, &e, 30, Method::Quadrature).unwrap();
            let c = divergence::hockey_stick(&lp, &e, 30, Method::ClosedForm).unwrap();
            assert!(agreement_digits(&q.value, &c.value) >= 29.5, "hockey {eps}");
        }
    }

    /// The Fisher closed form against the generic quadrature of E[score²], and its special cases
    /// 1/α² (p = 1) and 2/α² = 1/σ² (p = 2).
    #[test]
    fn fisher_closed_form_matches_quadrature() {
        for (mu, a, p) in [
            ("0", "1", "1.5"),
            ("2", "0.5", "3"),
            ("-1", "2", "1.1"),
            ("0", "1", "9"),
        ] {
            let loc = crate::model::Location::from_model(Arc::new(GenGaussianLocation {
                mu: sc(mu),
                scale: sc(a),
                shape: sc(p),
            }));
            let c = divergence::fisher(&loc, 25, Method::ClosedForm).unwrap();
            let q = divergence::fisher(&loc, 25, Method::Quadrature).unwrap();
            assert!(agreement_digits(&c.value, &q.value) >= 24.5, "{loc}");
        }
        let loc = |p: &str| GenGaussianLocation {
            mu: sc("0"),
            scale: sc("2"),
            shape: sc(p),
        };
        assert!((loc("1").fisher_at(64).unwrap().to_f64() - 0.25).abs() < 1e-18);
        assert!((loc("2").fisher_at(64).unwrap().to_f64() - 0.5).abs() < 1e-18);
    }

    /// The level points of the log-likelihood ratio are where ℓ = c, on both orders of the pair
    /// and for levels inside and beyond ±(Δ/α)^p.
    #[test]
    fn llr_level_points_solve_the_level() {
        for (m1, m2, a, p) in [
            ("0", "1", "1", "1.5"),
            ("2", "-1", "2", "4"),
            ("0", "3", "0.5", "1.1"),
        ] {
            let pr = GenGaussianPair::new(sc(m1), sc(m2), sc(a), sc(p)).unwrap();
            for c in [-50.0f64, -3.0, -0.2, 0.0, 0.7, 5.0, 200.0] {
                let cf = Float::with_val(200, c);
                let xs = pr.llr_level(&cf);
                assert_eq!(xs.len(), 1, "{c}");
                let (l, _) = pr.llr_and_slope(&xs[0], 260);
                let err = Float::with_val(200, l - &cf).abs().to_f64();
                assert!(
                    err <= 1e-50 * (1.0 + c.abs()),
                    "{m1} {m2} {a} {p} c {c}: {err}"
                );
                // f64 statistic agrees at the point.
                let x = xs[0].to_f64();
                assert!((pr.llr(x) - c).abs() < 1e-9 * (1.0 + c.abs()) * (1.0 + x.abs()).powf(4.0));
            }
        }
    }

    /// `audit::mechanisms::for_pair` audits a GG pair through its line route: a small seeded
    /// white-box audit gives a lower bound below the claimed (exact) ε(δ), deterministically.
    #[test]
    fn the_audit_engine_takes_a_gg_pair() {
        use crate::audit::engine::{run_audit, AuditConfig, Selection};
        let pr = pair("0", "1", "1", "1.5");
        let mech = crate::audit::mechanisms::for_pair(&pr).unwrap();
        let cfg = AuditConfig {
            samples_per_side: 200_000,
            delta: 1e-3,
            selection: Selection::HeldOut {
                pilot_samples: 50_000,
            },
            bins: 512,
            threads: Some(1),
            ..AuditConfig::default()
        };
        let r = run_audit(mech.as_ref(), &cfg).unwrap();
        let claim = r.claimed_eps.expect("exact claim");
        let exact = divergence::eps_for_delta(&pr, &sc("0.001"), 6, Method::Auto).unwrap();
        let sw = divergence::eps_for_delta(&pr.swapped(), &sc("0.001"), 6, Method::Auto).unwrap();
        assert!((claim - exact.value.to_f64().max(sw.value.to_f64())).abs() < 1e-5);
        assert!(
            !r.flagged && r.eps_lb > 0.5 * claim && r.eps_lb < claim,
            "{} vs {claim}",
            r.eps_lb
        );
        let again = run_audit(
            mech.as_ref(),
            &AuditConfig {
                threads: Some(2),
                ..cfg
            },
        )
        .unwrap();
        assert!(r.same_outcome(&again));
    }
}
