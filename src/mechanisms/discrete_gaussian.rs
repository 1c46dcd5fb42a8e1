//! The discrete Gaussian N_Z(μ, σ²): the law on the integers with mass
//! P(X = x) = e^{−(x−μ)²/(2σ²)} / Z, Z = Σ_{k∈ℤ} e^{−(k−μ)²/(2σ²)} (Canonne, Kamath & Steinke,
//! *The Discrete Gaussian for Differential Privacy*, NeurIPS 2020, "CKS" below, Def. 1).
//!
//! This file is the whole family: parameters and validation, the exact sampler (CKS Algorithms
//! 1–3), the neighbouring pair N_Z(μ1, σ²) vs N_Z(μ2, σ²) with its two certified routes, the
//! single law for the Fisher information about μ, the paper's claims as data, and the registry
//! entry `FAMILY` (docs/formulas.md §14).
//!
//! **Parameters.** `mu1`, `mu2` are integers (|μ| ≤ 2⁵³, given as exact decimals: `3`, `-12`,
//! `1e3`): the mechanism releases q(x) + Y for an integer-valued query q, and CKS's privacy
//! statements are for integer shifts. A non-integer centre is refused with an error naming the
//! parameter. `sigma` is an exact decimal in [0.01, 10⁴] (the certified sums add O(σ) terms; the
//! lower end keeps e^{−1/(2σ²)} far inside MPFR's exponent range). The Fisher information takes a
//! single law N_Z(μ, σ²) whose `mu` may be any decimal (the mass is defined for real μ).
//!
//! **Two routes** (docs/formulas.md §14), organised differently:
//!
//! * the *closed* route ([`PairModel::renyi_at`], …; certified by the precision ladder) uses the
//!   theta-function forms: with integer centres both laws share Z = θ(0), θ(y) = Σ_k e^{−(k−y)²/(2σ²)},
//!   so KL = Δ²/(2σ²) exactly, D_α = αΔ²/(2σ²) + log(θ(αΔ)/θ(0))/(α − 1) (Δ = μ1 − μ2), with
//!   θ(y)/θ(0) − 1 by Poisson summation for σ ≥ 1/2 (a rapidly converging cosine series) and by
//!   direct summation below; δ(ε) is CKS Theorem 7's expression
//!   δ = P[Y > εσ²/|Δ| − |Δ|/2] − e^ε P[Y > εσ²/|Δ| + |Δ|/2], Y ~ N_Z(0, σ²);
//! * the *sum* route (`OwnIntegrals`: the quadrature route of `eval`) adds the defining series
//!   term by term from the log-masses — Σ p1·expm1((α−1)·LLR) (or log Σ p1^α p2^{1−α} when S ≫ 1),
//!   Σ p1·LLR, Σ_{LLR > ε} p1·(1 − e^{ε−LLR}), the normaliser Z summed the same way — each term
//!   with its rounding error, and the two tails outside the summation window bounded by geometric
//!   series of the Gaussian envelopes (docs/formulas.md §14.3). The ladder of
//!   `model::logquad::certified` certifies the total.
//!
//! **Claims as data** ([`CLAIMS`]): CKS's concentrated-DP statement (Δ²/(2σ²)-CDP, i.e.
//! D_α ≤ αΔ²/(2σ²) for integer Δ, which [`cks_renyi_bound`] evaluates) is the family's registry
//! guarantee, converted to (ε, δ) by ε = ρ + 2√(ρ log(1/δ)) (Bun & Steinke 2016, Prop. 1.3);
//! CKS Theorem 7's exact δ(ε) is the closed route itself ([`cks_delta`]), checked against the sums
//! in the tests.
//!
//! **Audits.** The pair implements the registry's audit route ([`AuditDraws`]): exact draws,
//! reduced to the log-likelihood ratio (white box) or the output (black box);
//! `audits/discrete_gaussian.toml` audits it against CKS's claim.

use crate::error::{Error, Result};
use crate::mechanisms::stream::StreamRng;
use crate::model::logquad::{add, log1p_over, positive_part, Ctx, Val, EP};
use crate::model::{
    proper_range, AuditDraws, Family, FisherIntegrals, Guarantee, Integrals, LocationModel,
    OwnFisher, OwnIntegrals, Pair, PairModel, ParamLookup, Statistic, Which,
};
use crate::scalar::Scalar;
use rand::Rng;
use rug::float::Constant;
use rug::{Float, Integer};
use std::any::Any;
use std::sync::Arc;

/// Smallest σ accepted.
const SIGMA_MIN: f64 = 0.01;
/// Largest σ accepted (the certified sums add O(σ) terms).
const SIGMA_MAX: f64 = 1e4;
/// Largest |μ| accepted (integers exact in a double).
const MU_MAX: f64 = 9_007_199_254_740_992.0;
/// Largest number of terms a certified sum may add before it refuses.
const MAX_TERMS: i64 = 50_000_000;

// ------------------------------------------------------------------------------------------
// Parameters

/// An integer centre: an exact decimal that is an integer of magnitude ≤ 2⁵³.
fn integer_centre(name: &str, x: &Scalar) -> Result<i64> {
    crate::model::finite(name, x)?;
    let v = x.mp(4096);
    if v.is_integer() && v.to_f64().abs() <= MU_MAX {
        Ok(v.to_f64() as i64)
    } else {
        Err(Error::invalid(
            name,
            x,
            "an integer of magnitude <= 2^53 (the discrete Gaussian mechanism adds integer noise \
             to an integer-valued query; CKS's privacy statements are for integer shifts)",
        ))
    }
}

/// σ: finite, in [0.01, 10⁴].
fn check_sigma(sigma: &Scalar) -> Result<f64> {
    crate::model::positive("sigma", sigma)?;
    let s = sigma.f64();
    if !(SIGMA_MIN..=SIGMA_MAX).contains(&s) {
        return Err(Error::invalid(
            "sigma",
            sigma,
            "in [0.01, 10000] (the certified sums add O(sigma) terms)",
        ));
    }
    Ok(s)
}

/// The exact rational value (numerator, denominator > 0) of a decimal text `[-]d*[.d*][e[±]d+]`.
fn decimal_rational(text: &str) -> Option<(Integer, Integer)> {
    let t = text.trim();
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (neg, mant) = match mant.strip_prefix('-') {
        Some(m) => (true, m),
        None => (false, mant.strip_prefix('+').unwrap_or(mant)),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    let digits = format!("{int}{frac}");
    let mut num = Integer::from_str_radix(&digits, 10).ok()?;
    let scale = exp - i32::try_from(frac.len()).ok()?;
    let mut den = Integer::from(1u32);
    if scale >= 0 {
        num *= Integer::from(Integer::u_pow_u(10, scale.unsigned_abs()));
    } else {
        den = Integer::from(Integer::u_pow_u(10, scale.unsigned_abs()));
    }
    if neg {
        num = -num;
    }
    Some((num, den))
}

// ------------------------------------------------------------------------------------------
// The exact sampler (CKS Algorithms 1–3)

/// A uniform integer in [0, n) (n ≥ 1), by rejection on the bit length of n − 1: the draws
/// depend only on the generator's stream, so a seeded run is reproducible.
fn uniform_below(rng: &mut StreamRng, n: &Integer) -> Integer {
    let bits = Integer::from(n - 1u32).significant_bits();
    if bits == 0 {
        return Integer::new();
    }
    loop {
        let mut x = Integer::new();
        for _ in 0..bits.div_ceil(64) {
            x <<= 64;
            x += rng.next_u64();
        }
        x.keep_bits_mut(bits);
        if x < *n {
            return x;
        }
    }
}

/// Bernoulli(num/den), 0 ≤ num ≤ den, exactly.
fn bernoulli_ratio(rng: &mut StreamRng, num: &Integer, den: &Integer) -> bool {
    uniform_below(rng, den) < *num
}

/// Bernoulli(exp(−γ)) for the rational γ = num/den ≥ 0, exactly (CKS Algorithm 1): for γ ≤ 1,
/// draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first A_k = 0 and return whether that k is
/// odd; for γ > 1, ⌊γ⌋ successes of Bernoulli(e^{−1}) and one of Bernoulli(e^{−(γ−⌊γ⌋)}).
fn bernoulli_exp_neg(rng: &mut StreamRng, num: &Integer, den: &Integer) -> bool {
    if *num <= *den {
        let mut k = Integer::from(1u32);
        loop {
            let dk = Integer::from(den * &k);
            if !bernoulli_ratio(rng, num, &dk) {
                return k.is_odd();
            }
            k += 1u32;
        }
    }
    let (whole, rest) = num.clone().div_rem_floor(den.clone());
    let one = Integer::from(1u32);
    let mut k = Integer::new();
    while k < whole {
        if !bernoulli_exp_neg(rng, &one, &one) {
            return false;
        }
        k += 1u32;
    }
    bernoulli_exp_neg(rng, &rest, den)
}

/// The discrete Laplace law Lap_Z(t), P(X = x) ∝ e^{−|x|/t}, for an integer scale t ≥ 1, exactly
/// (CKS Algorithm 2 with s = 1).
fn discrete_laplace(rng: &mut StreamRng, t: &Integer) -> Integer {
    let one = Integer::from(1u32);
    loop {
        let u = uniform_below(rng, t);
        if !bernoulli_exp_neg(rng, &u, t) {
            continue;
        }
        let mut v = Integer::new();
        while bernoulli_exp_neg(rng, &one, &one) {
            v += 1u32;
        }
        let x = &u + Integer::from(t * &v);
        let negative = rng.next_u32() & 1 == 1;
        if negative && x == 0 {
            continue;
        }
        return if negative { -x } else { x };
    }
}

/// The exact sampler of N_Z(0, σ²) (CKS Algorithm 3), σ² an exact rational: with t = ⌊σ⌋ + 1,
/// draw Y ~ Lap_Z(t) and accept it with probability exp(−(|Y| − σ²/t)²/(2σ²)); every step is
/// exact rational arithmetic, so the law of the output is exactly N_Z(0, σ²).
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::discrete_gaussian::DiscreteGaussianSampler;
/// use dpaudit::mechanisms::stream::chunk_rng;
///
/// let s = DiscreteGaussianSampler::new(&"1.5".parse().unwrap()).unwrap();
/// let mut out = [0i64; 8];
/// s.sample_many(0, &mut chunk_rng(7, 0), &mut out);
/// assert!(out.iter().all(|x| x.abs() < 100));
/// assert!(DiscreteGaussianSampler::new(&"0".parse().unwrap()).is_err());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct DiscreteGaussianSampler {
    /// σ² = num/den, exactly.
    num: Integer,
    den: Integer,
    /// ⌊σ⌋ + 1.
    t: Integer,
}

impl DiscreteGaussianSampler {
    /// The sampler for the exact decimal σ (finite, in [0.01, 10⁴]).
    pub fn new(sigma: &Scalar) -> Result<Self> {
        check_sigma(sigma)?;
        let (n, d) = decimal_rational(&sigma.to_string())
            .ok_or_else(|| Error::invalid("sigma", sigma, "a decimal number"))?;
        let num = Integer::from(n.square_ref());
        let den = Integer::from(d.square_ref());
        // ⌊σ⌋ = ⌊√⌊σ²⌋⌋ (for real x ≥ 0, k ≤ √x ⟺ k² ≤ ⌊x⌋).
        let t = Integer::from(&num / &den).sqrt() + 1u32;
        Ok(DiscreteGaussianSampler { num, den, t })
    }

    /// One draw of N_Z(0, σ²).
    pub fn sample(&self, rng: &mut StreamRng) -> Integer {
        loop {
            let y = discrete_laplace(rng, &self.t);
            // γ = (|Y| − σ²/t)²/(2σ²) = (|Y|·den·t − num)² / (2·num·den·t²).
            let dt = Integer::from(&self.den * &self.t);
            let a = Integer::from(y.abs_ref()) * &dt - &self.num;
            let g_num = a.square();
            let g_den = Integer::from(&self.num * &dt) * &self.t * 2u32;
            if bernoulli_exp_neg(rng, &g_num, &g_den) {
                return y;
            }
        }
    }

    /// Fills `out` with independent draws of `mu` + N_Z(0, σ²), in order (a draw beyond the i64
    /// range, of probability below e^{−2⁶²/σ}, saturates).
    pub fn sample_many(&self, mu: i64, rng: &mut StreamRng, out: &mut [i64]) {
        for o in out.iter_mut() {
            let y = self.sample(rng) + mu;
            *o = y
                .to_i64()
                .unwrap_or(if y < 0 { i64::MIN } else { i64::MAX });
        }
    }
}

// ------------------------------------------------------------------------------------------
// Certified sums: terms with their errors, tails by geometric series

/// A Gaussian envelope |x − c|^k·e^{l − (x − c)²/(2σ²)} (k = `power`) of a sum's terms, for the
/// tail bounds outside the summation window.
struct Envelope {
    /// Log of the envelope's Gaussian peak.
    l: f64,
    /// Centre.
    c: f64,
    /// The power k of the factor |x − c|^k (0: none).
    power: i32,
}

impl Envelope {
    /// A bound of the envelope summed over the integers x ≥ x0 = c + u0 (`u0` > 0): from x0 on,
    /// consecutive terms shrink by at most r = (1 + 1/u0)^k·e^{−u0/σ²} (the Gaussian ratio is
    /// e^{−(2u+1)/(2σ²)} at distance u ≥ u0), so the sum is at most the first term over 1 − r.
    fn side(&self, u0: f64, s2: f64) -> Result<Float> {
        if u0 <= 0.0 {
            return Err(tail_error());
        }
        let r = (1.0 + 1.0 / u0).powi(self.power) * (-u0 / s2).exp();
        if r >= 0.999 {
            return Err(tail_error());
        }
        let first = Float::with_val(EP, self.l - u0 * u0 / (2.0 * s2)).exp() * u0.powi(self.power);
        Ok(first / (1.0 - r) * 1.02f64)
    }
    /// The bound of Σ_{x ≥ hi + 1}.
    fn upper(&self, hi: i64, s2: f64) -> Result<Float> {
        self.side((hi + 1) as f64 - self.c, s2)
    }
    /// The bound of Σ_{x ≤ lo − 1} (by symmetry of the envelope).
    fn lower(&self, lo: i64, s2: f64) -> Result<Float> {
        self.side(self.c - (lo - 1) as f64, s2)
    }
    /// Both tails outside [lo, hi].
    fn tails(&self, lo: i64, hi: i64, s2: f64) -> Result<Float> {
        Ok(self.lower(lo, s2)? + self.upper(hi, s2)?)
    }
}

fn tail_error() -> Error {
    Error::Precision {
        narrowest: None,
        requested: 1,
        certified: 0,
        what: "a discrete Gaussian sum (window too narrow for its tail bound)".into(),
    }
}

/// The half-width K of a summation window: beyond K from its centre an envelope has fallen by
/// e^{−K²/(2σ²)} < 2^{−(prec + 40)}/(1 + σ²) relative to its peak.
fn half_width(prec: u32, sigma: f64) -> f64 {
    let nats = (f64::from(prec) + 40.0) * std::f64::consts::LN_2 + (1.0 + sigma * sigma).ln();
    (sigma * (2.0 * nats).sqrt()).ceil() + 2.0
}

/// Largest |centre| of a summation window: the centres are placed in f64, which must keep them
/// to well within one lattice step.
const CENTRE_MAX: f64 = 1_099_511_627_776.0;

/// The integer window [lo, hi] around the centres, refused when it is too long or its centres
/// are too far out (e.g. the peak αμ1 + (1 − α)μ2 of p1^α p2^{1−α} at α = 10³⁰⁰, or the edge of
/// the hockey-stick region at a huge ε): the closed route takes those.
fn window(ctx: &Ctx, sigma: f64, lo_c: f64, hi_c: f64) -> Result<(i64, i64)> {
    if !(lo_c.abs() <= CENTRE_MAX && hi_c.abs() <= CENTRE_MAX) {
        return Err(Error::Unsupported(format!(
            "a discrete Gaussian sum centred at {:.3e}: beyond the {CENTRE_MAX:e} the sums place \
             exactly; use --method closed-form",
            if lo_c.abs() > hi_c.abs() { lo_c } else { hi_c }
        )));
    }
    let k = half_width(ctx.prec, sigma);
    let (lo, hi) = ((lo_c - k).floor(), (hi_c + k).ceil());
    if hi - lo > MAX_TERMS as f64 {
        return Err(Error::Unsupported(format!(
            "a discrete Gaussian sum over {:.3e} terms (more than {MAX_TERMS}): the parameters \
             spread the sum too far",
            hi - lo
        )));
    }
    Ok((lo as i64, hi as i64))
}

/// A term e^{expo}·f with relative rounding error ulp·(8 + |expo| + extra) plus the error of
/// log Z carried by every mass (a common factor 1/Z).
fn term(ctx: &Ctx, v: Float, expo: f64, extra: f64, ln_z: &Val) -> Val {
    let mag = Float::with_val(EP, v.abs_ref());
    let e = Float::with_val(EP, &mag * ctx.ulp()) * (8.0 + expo.abs() + extra)
        + Float::with_val(EP, &mag * &ln_z.e) * 1.02f64;
    Val { v, e }
}

/// (x − c)²/(2σ²) at the working precision (x an integer, c a real centre).
fn quad(ctx: &Ctx, x: i64, c: &Float, two_s2: &Float) -> Float {
    let d = Float::with_val(ctx.prec, Float::with_val(ctx.prec, x) - c);
    Float::with_val(ctx.prec, d.square_ref()) / two_s2
}

/// The parameters of a law at the working precision: σ² doubled, as a Float.
fn two_s2(ctx: &Ctx, sigma: &Scalar) -> Float {
    let s = ctx.f(sigma);
    Float::with_val(ctx.prec, s.square_ref()) * 2u32
}

/// log Z(c) = log Σ_k e^{−(k−c)²/(2σ²)} with its absolute error (the normaliser, summed).
fn ln_z_sum(ctx: &Ctx, c: &Scalar, sigma: &Scalar) -> Result<Val> {
    let s = sigma.f64();
    let cf = ctx.f(c);
    let t2 = two_s2(ctx, sigma);
    let (lo, hi) = window(ctx, s, c.f64(), c.f64())?;
    let none = Val::exact(Float::new(EP));
    let mut acc = Val::exact(Float::new(ctx.prec));
    for x in lo..=hi {
        let q = quad(ctx, x, &cf, &t2);
        let v = Float::with_val(ctx.prec, -&q).exp();
        acc = add(&acc, &term(ctx, v, q.to_f64(), 0.0, &none), ctx.prec);
    }
    let env = Envelope {
        l: 0.0,
        c: c.f64(),
        power: 0,
    };
    let e = Float::with_val(EP, &acc.e) + env.tails(lo, hi, s * s)?;
    let lz = Float::with_val(ctx.prec, acc.v.ln_ref());
    let rel = Float::with_val(EP, &e / &acc.v);
    let e = rel * 1.02f64 + Float::with_val(EP, lz.abs_ref()) * ctx.ulp();
    Ok(Val { v: lz, e })
}

// ------------------------------------------------------------------------------------------
// The pair model

/// N_Z(μ1, σ²) vs N_Z(μ2, σ²): the discrete Gaussian mechanism on neighbouring inputs (integer
/// centres; see the module docs for both routes).
#[derive(Clone, Debug)]
pub struct DiscreteGaussianPair {
    mu1: Scalar,
    mu2: Scalar,
    sigma: Scalar,
    m1: i64,
    m2: i64,
    sampler: DiscreteGaussianSampler,
}

impl DiscreteGaussianPair {
    /// The validated pair: integer `mu1`, `mu2` (|μ| ≤ 2⁵³), `sigma` in [0.01, 10⁴].
    pub(crate) fn new(mu1: Scalar, mu2: Scalar, sigma: Scalar) -> Result<Self> {
        let m1 = integer_centre("mu1", &mu1)?;
        let m2 = integer_centre("mu2", &mu2)?;
        let sampler = DiscreteGaussianSampler::new(&sigma)?;
        Ok(DiscreteGaussianPair {
            mu1,
            mu2,
            sigma,
            m1,
            m2,
            sampler,
        })
    }

    /// Fills `out` with independent draws of P1 (`first`) or P2, exactly (CKS Algorithm 3).
    pub fn sample_many(&self, first: bool, rng: &mut StreamRng, out: &mut [i64]) {
        let mu = if first { self.m1 } else { self.m2 };
        self.sampler.sample_many(mu, rng, out)
    }

    /// Δ = μ1 − μ2 (exact: both are integers ≤ 2⁵³).
    fn delta(&self) -> i64 {
        self.m1 - self.m2
    }

    /// Δ²/(2σ²) at `p` bits: KL, and the CDP parameter ρ of CKS.
    fn rho(&self, p: u32) -> Float {
        let d = Float::with_val(p, self.delta());
        let s = self.sigma.mp(p);
        Float::with_val(p, d.square_ref()) / (Float::with_val(p, s.square_ref()) * 2u32)
    }
}

/// ln p1 − ln p2 = Δ·(2x − μ1 − μ2)/(2σ²) at x (the normalisers cancel: integer centres).
fn llr_at(ctx: &Ctx, x: i64, m1: i64, m2: i64, two_s2: &Float) -> Float {
    let k = Float::with_val(
        ctx.prec,
        2 * i128::from(x) - i128::from(m1) - i128::from(m2),
    );
    Float::with_val(ctx.prec, k * (m1 - m2)) / two_s2
}

impl PairModel for DiscreteGaussianPair {
    fn family(&self) -> &'static Family {
        &FAMILY
    }
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![
            ("mu1", self.mu1.clone()),
            ("mu2", self.mu2.clone()),
            ("sigma", self.sigma.clone()),
        ]
    }
    fn swapped(&self) -> Arc<dyn PairModel> {
        let mut s = self.clone();
        std::mem::swap(&mut s.mu1, &mut s.mu2);
        std::mem::swap(&mut s.m1, &mut s.m2);
        Arc::new(s)
    }
    fn identical(&self) -> bool {
        self.m1 == self.m2
    }
    fn integrals(&self) -> Integrals<'_> {
        Integrals::Own(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        Ok(Some(Arc::new(self.clone())))
    }

    /// D_α = αΔ²/(2σ²) + log(θ(αΔ)/θ(0))/(α − 1) (docs/formulas.md §14.2).
    fn renyi_at(&self, alpha: &Float, p: u32) -> Result<Float> {
        let d = self.delta();
        let lead = Float::with_val(p, alpha * self.rho(p + 16));
        if d == 0 {
            return Ok(Float::new(p));
        }
        // θ has period 1: θ(μ2 + αΔ) = θ(frac(αΔ)); the fraction needs the bits of αΔ's integer
        // part on top of p.
        let wp = p + 32 + (alpha.to_f64() * d.abs() as f64).abs().log2().max(0.0) as u32;
        let ad = Float::with_val(wp, alpha * d);
        let y = Float::with_val(wp, &ad - Float::with_val(wp, ad.floor_ref()));
        let r = theta_ratio_m1(&y, &self.sigma, p + 16)?;
        let am1 = Float::with_val(p + 16, alpha - 1u32);
        Ok(Float::with_val(p, lead + r.ln_1p() / am1))
    }

    /// KL = Δ²/(2σ²) exactly: E_{P1}\[X\] = μ1 by symmetry (docs/formulas.md §14.2).
    fn kl_at(&self, p: u32) -> Result<Float> {
        Ok(Float::with_val(p, self.rho(p + 16)))
    }

    /// δ(ε) by CKS Theorem 7. δ > 0 for every ε when μ1 ≠ μ2 (the log-likelihood ratio is
    /// unbounded), so a zero is an underflow of the exponent range (and a NaN, e^ε·0 with e^ε
    /// overflowing, the same): refused.
    fn hockey_at(&self, eps: &Float, p: u32) -> Result<Float> {
        let v = cks_delta(self, eps, p)?;
        if !v.is_finite() || (v.is_zero() && !self.identical()) {
            return Err(Error::Undefined(format!(
                "hockey_stick_delta of {}: delta(eps = {}) > 0 is outside the exponent range",
                crate::model::describe(FAMILY.name, &self.params()),
                eps.to_f64()
            )));
        }
        Ok(v)
    }
}

/// The audit route: exact draws (CKS Algorithm 3), reduced to the log-likelihood ratio
/// Δ(2x − μ1 − μ2)/(2σ²) (white box) or the output x itself (black box), in f64. The exact
/// sampler works on `rug` integers, so unlike the trait's other implementations it allocates
/// per output (exactness over speed).
impl AuditDraws for DiscreteGaussianPair {
    fn name(&self) -> String {
        crate::model::describe(FAMILY.name, &self.params())
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let mu = [self.m1, self.m2][which.index()];
        let s2 = self.sigma.f64().powi(2);
        let (d, sum) = ((self.m1 - self.m2) as f64, (self.m1 + self.m2) as f64);
        for o in out.iter_mut() {
            let x = (self.sampler.sample(rng) + mu).to_f64();
            *o = match stat {
                Statistic::Black => x,
                Statistic::White => d * (2.0 * x - sum) / (2.0 * s2),
            };
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        // Outputs within 12σ + 1 of the centres (the rest falls in the under/overflow bins).
        let w = crate::model::GRID_SIGMAS * self.sigma.f64() + 1.0;
        let (lo, hi) = (
            self.m1.min(self.m2) as f64 - w,
            self.m1.max(self.m2) as f64 + w,
        );
        match stat {
            Statistic::Black => proper_range(lo, hi),
            Statistic::White => {
                let s2 = self.sigma.f64().powi(2);
                let (d, sum) = ((self.m1 - self.m2) as f64, (self.m1 + self.m2) as f64);
                let (u, v) = (
                    d * (2.0 * lo - sum) / (2.0 * s2),
                    d * (2.0 * hi - sum) / (2.0 * s2),
                );
                proper_range(u.min(v), u.max(v))
            }
        }
    }
}

/// θ(y)/θ(0) − 1 for y in [0, 1), θ(y) = Σ_k e^{−(k−y)²/(2σ²)}, at `p` bits: by Poisson summation
/// θ(y) = σ√(2π)·(1 + 2Σ_{k≥1} q^{k²} cos 2πky), q = e^{−2π²σ²}, so the ratio − 1 is
/// −4Σ q^{k²} sin²(πky) / (1 + 2Σ q^{k²}) (no cancellation) for σ ≥ 1/2; by the direct sums
/// below (where q is no longer small).
fn theta_ratio_m1(y: &Float, sigma: &Scalar, p: u32) -> Result<Float> {
    if y.is_zero() {
        return Ok(Float::new(p));
    }
    let wp = p + 32;
    let s = sigma.mp(wp);
    let stop = Float::with_val(EP, Float::i_exp(1, -(wp as i32) - 8));
    if sigma.f64() >= 0.5 {
        let pi = Float::with_val(wp, Constant::Pi);
        let pi2 = Float::with_val(wp, pi.square_ref());
        let lq = -(Float::with_val(wp, s.square_ref()) * pi2 * 2u32);
        let (mut num, mut den) = (Float::new(wp), Float::with_val(wp, 1u32));
        for k in 1u32..100_000 {
            let qk = Float::with_val(wp, &lq * (k * k)).exp();
            let sn = (Float::with_val(wp, &pi * y) * k).sin();
            num += Float::with_val(wp, sn.square_ref()) * &qk;
            den += Float::with_val(wp, &qk * 2u32);
            // The remaining terms are below q^{(k+1)²}·Σ_j q^{j(2k+1)+…} ≤ 2·q^{(k+1)²}.
            let next = Float::with_val(wp, &lq * ((k + 1) * (k + 1))).exp();
            if Float::with_val(EP, &next * 4u32) < Float::with_val(EP, &num * &stop) {
                return Ok(Float::with_val(p, -(num * 4u32) / den));
            }
        }
        return Err(Error::Precision {
            narrowest: None,
            requested: 1,
            certified: 0,
            what: "the theta series of the discrete Gaussian".into(),
        });
    }
    // σ < 1/2: θ(y) and θ(0) over k ∈ [−K, K + 1], where the envelope has fallen below 2^{−wp}.
    let two_s2 = Float::with_val(wp, s.square_ref()) * 2u32;
    let k = half_width(wp, sigma.f64()) as i64;
    let (mut ty, mut t0) = (Float::new(wp), Float::new(wp));
    for j in -k..=k + 1 {
        let jf = Float::with_val(wp, j);
        let dy = Float::with_val(wp, &jf - y);
        ty += Float::with_val(wp, -(Float::with_val(wp, dy.square_ref()) / &two_s2)).exp();
        t0 += Float::with_val(wp, -(Float::with_val(wp, jf.square_ref()) / &two_s2)).exp();
    }
    Ok(Float::with_val(p, (ty - &t0) / t0))
}

/// P[Y > t] for Y ~ N_Z(0, σ²) at `wp` bits, given Z = θ(0): the tail summed on its small side
/// (P[Y > t] = 1 − P[Y ≥ −t] for t < 0, by symmetry).
fn dg_tail(t: &Float, sigma: f64, two_s2: &Float, z: &Float, wp: u32) -> Float {
    let upper = |n: Float| -> Float {
        // Σ_{y ≥ n} e^{−y²/(2σ²)} / Z for n ≥ 0 (terms decrease; stop below 2^{−wp−40} of the sum,
        // the rest being at most the last term over 1 − e^{−y/σ²}).
        let mut sum = Float::new(wp);
        let mut y = n;
        let stop = Float::with_val(wp, Float::i_exp(1, -(wp as i32) - 40));
        loop {
            let tm = Float::with_val(wp, -(Float::with_val(wp, y.square_ref()) / two_s2)).exp();
            sum += &tm;
            let ratio = Float::with_val(wp, -Float::with_val(wp, &y / two_s2) * 2u32).exp();
            let gap = Float::with_val(wp, 1u32) - ratio;
            if y > sigma && tm < Float::with_val(wp, &sum * &stop) * gap || sum.is_zero() {
                break;
            }
            y += 1u32;
        }
        sum / z
    };
    if *t >= 0 {
        upper(Float::with_val(wp, t.floor_ref()) + 1u32)
    } else {
        let n = Float::with_val(wp, -t).ceil();
        Float::with_val(wp, 1u32) - upper(n)
    }
}

/// CKS Theorem 7: the exact δ(ε) of N_Z(μ1, σ²) vs N_Z(μ2, σ²), integer Δ = |μ1 − μ2| ≥ 1,
/// δ = P[Y > εσ²/Δ − Δ/2] − e^ε P[Y > εσ²/Δ + Δ/2], Y ~ N_Z(0, σ²), at `p` bits (uncertified:
/// the closed route certifies it on the precision ladder). Symmetric in the order of the pair.
pub fn cks_delta(pair: &DiscreteGaussianPair, eps: &Float, p: u32) -> Result<Float> {
    let d = pair.delta().unsigned_abs();
    let wp = p + 32;
    if d == 0 {
        let mut v = Float::with_val(p, eps.exp_m1_ref());
        v = -v;
        return Ok(if v < 0 { Float::new(p) } else { v });
    }
    let sigma = pair.sigma.f64();
    let s = pair.sigma.mp(wp);
    let s2 = Float::with_val(wp, s.square_ref());
    let two_s2 = Float::with_val(wp, &s2 * 2u32);
    let e = Float::with_val(wp, eps);
    let a = Float::with_val(wp, &e * &s2) / d - Float::with_val(wp, d) / 2u32;
    let b = Float::with_val(wp, &a + d);
    // Z = θ(0) = 1 + 2Σ_{k≥1} e^{−k²/(2σ²)} (its tail from k = 1 is P[Y > 0]·Z).
    let one = Float::with_val(wp, 1u32);
    let half_z = dg_tail(&Float::new(wp), sigma, &two_s2, &one, wp);
    let z = Float::with_val(wp, &half_z * 2u32) + 1u32;
    let ta = dg_tail(&a, sigma, &two_s2, &z, wp);
    let tb = dg_tail(&b, sigma, &two_s2, &z, wp);
    Ok(Float::with_val(
        p,
        ta - Float::with_val(wp, e.exp_ref()) * tb,
    ))
}

/// CKS's Rényi bound for integer shifts: D_α ≤ αΔ²/(2σ²) (the pair is Δ²/(2σ²)-concentrated
/// DP), at `p` bits. Equality holds when αΔ is an integer (then θ(αΔ) = θ(0)).
pub fn cks_renyi_bound(pair: &DiscreteGaussianPair, alpha: &Float, p: u32) -> Float {
    Float::with_val(p, alpha * pair.rho(p + 16))
}

impl OwnIntegrals for DiscreteGaussianPair {
    fn renyi(&self, ctx: &Ctx, alpha: &Scalar) -> Result<Val> {
        let p = ctx.prec;
        let (m1, m2) = (self.m1, self.m2);
        let s = self.sigma.f64();
        let t2 = two_s2(ctx, &self.sigma);
        let ln_z = ln_z_sum(ctx, &Scalar::from(0u32), &self.sigma)?;
        let a = ctx.f(alpha);
        let am1 = Float::with_val(p, &a - 1u32);
        let (af, d) = (alpha.f64(), (m1 - m2) as f64);
        // The peak of p1^α p2^{1−α}: m = αμ1 + (1 − α)μ2 (used for the window and tail bound).
        let m = m1 as f64 + (af - 1.0) * d;
        let lift = af * (af - 1.0) * d * d / (2.0 * s * s);
        let (c1, c2) = (ctx.f(&self.mu1), ctx.f(&self.mu2));
        if lift < 1.0 {
            // S − 1 = Σ p1·expm1((α − 1)·LLR): the sum stays accurate when S ≈ 1.
            let (lo, hi) = window(ctx, s, (m1 as f64).min(m), (m1 as f64).max(m))?;
            let mut acc = Val::exact(Float::new(p));
            for x in lo..=hi {
                let q1 = quad(ctx, x, &c1, &t2);
                let lp1 = Float::with_val(p, -&q1) - &ln_z.v;
                let arg = Float::with_val(p, &am1 * llr_at(ctx, x, m1, m2, &t2));
                let v = Float::with_val(p, lp1.exp_ref()) * Float::with_val(p, arg.exp_m1_ref());
                let extra = 2.0 * arg.to_f64().abs() + 1.0;
                acc = add(&acc, &term(ctx, v, lp1.to_f64(), extra, &ln_z), p);
            }
            let lz = -ln_z.v.to_f64();
            let tails = Envelope {
                l: lz,
                c: m1 as f64,
                power: 0,
            }
            .tails(lo, hi, s * s)?
                + Envelope {
                    l: lz + lift,
                    c: m,
                    power: 0,
                }
                .tails(lo, hi, s * s)?;
            acc.e += tails;
            return Ok(log1p_over(ctx, &acc, &am1));
        }
        // log S = log Σ e^{α ln p1 + (1−α) ln p2}, summed relative to the largest term.
        let (lo, hi) = window(ctx, s, m, m)?;
        let expo = |x: i64| -> (Float, f64) {
            let q1 = quad(ctx, x, &c1, &t2);
            let q2 = quad(ctx, x, &c2, &t2);
            let mag = (Float::with_val(EP, &a * &q1) + Float::with_val(EP, &am1 * &q2)).to_f64();
            let v = Float::with_val(p, &am1 * &q2) - Float::with_val(p, &a * &q1);
            (v, mag)
        };
        let top = expo(m.round() as i64).0;
        let mut acc = Val::exact(Float::new(p));
        for x in lo..=hi {
            let (v, mag) = expo(x);
            let t = Float::with_val(p, Float::with_val(p, &v - &top).exp_ref());
            let none = Val::exact(Float::new(EP));
            acc = add(&acc, &term(ctx, t, 0.0, 2.0 * mag, &none), p);
        }
        let env = Envelope {
            l: lift - top.to_f64(),
            c: m,
            power: 0,
        };
        acc.e += env.tails(lo, hi, s * s)?;
        let ls = Float::with_val(p, acc.v.ln_ref()) + &top - &ln_z.v;
        let e_ls = Float::with_val(EP, &acc.e / &acc.v) * 1.02f64
            + &ln_z.e
            + Float::with_val(EP, ls.abs_ref()) * ctx.ulp() * 4u32;
        let v = Float::with_val(p, &ls / &am1);
        let e = e_ls / Float::with_val(EP, &am1) * 1.02f64
            + Float::with_val(EP, v.abs_ref()) * ctx.ulp();
        Ok(Val { v, e })
    }

    fn kl(&self, ctx: &Ctx) -> Result<Val> {
        let p = ctx.prec;
        let (m1, m2) = (self.m1, self.m2);
        let s = self.sigma.f64();
        let t2 = two_s2(ctx, &self.sigma);
        let ln_z = ln_z_sum(ctx, &Scalar::from(0u32), &self.sigma)?;
        let c1 = ctx.f(&self.mu1);
        let (lo, hi) = window(ctx, s, m1 as f64, m1 as f64)?;
        let mut acc = Val::exact(Float::new(p));
        for x in lo..=hi {
            let q1 = quad(ctx, x, &c1, &t2);
            let lp1 = Float::with_val(p, -&q1) - &ln_z.v;
            let llr = llr_at(ctx, x, m1, m2, &t2);
            let v = Float::with_val(p, lp1.exp_ref()) * llr;
            acc = add(&acc, &term(ctx, v, lp1.to_f64(), 4.0, &ln_z), p);
        }
        // |LLR(x)| ≤ |Δ|·|x − μ1|/σ² + Δ²/(2σ²).
        let d = (m1 - m2) as f64;
        let lz = -ln_z.v.to_f64();
        let lin = Envelope {
            l: lz,
            c: m1 as f64,
            power: 1,
        }
        .tails(lo, hi, s * s)?;
        let flat = Envelope {
            l: lz,
            c: m1 as f64,
            power: 0,
        }
        .tails(lo, hi, s * s)?;
        acc.e += lin * (d.abs() / (s * s)) + flat * (d * d / (2.0 * s * s));
        Ok(acc)
    }

    fn hockey(&self, ctx: &Ctx, eps: &Scalar) -> Result<Val> {
        let p = ctx.prec;
        // By the reflection x → −x, take μ1 > μ2: then {LLR > ε} = {x > x⋆},
        // x⋆ = (μ1 + μ2)/2 + εσ²/Δ.
        let (m1, m2) = if self.m1 > self.m2 {
            (self.m1, self.m2)
        } else {
            (-self.m1, -self.m2)
        };
        let s = self.sigma.f64();
        let t2 = two_s2(ctx, &self.sigma);
        let ln_z = ln_z_sum(ctx, &Scalar::from(0u32), &self.sigma)?;
        let e = ctx.f(eps);
        let d = (m1 - m2) as f64;
        let xstar = (m1 + m2) as f64 / 2.0 + eps.f64() * s * s / d;
        let k = half_width(p, s);
        let lo = xstar.floor().max(m1 as f64 - k);
        let (_, hi) = window(ctx, s, lo.max(m1 as f64), lo.max(m1 as f64))?;
        let lo = lo as i64;
        let c1 = Float::with_val(p, m1);
        let mut acc = Val::exact(Float::new(p));
        for x in lo..=hi {
            let llr = llr_at(ctx, x, m1, m2, &t2);
            let z = Float::with_val(p, &e - &llr);
            let g = -Float::with_val(p, z.exp_m1_ref());
            let q1 = quad(ctx, x, &c1, &t2);
            let lp1 = Float::with_val(p, -&q1) - &ln_z.v;
            let p1 = Float::with_val(p, lp1.exp_ref());
            let v = Float::with_val(p, &p1 * &g);
            // |∂g/∂z| = e^z: the absolute error of g is ulp·(4 + |ε| + |LLR|)·max(1, e^z).
            let ez = z.to_f64().exp().max(1.0);
            let eg = Float::with_val(EP, &p1)
                * ctx.ulp()
                * ((4.0 + e.to_f64().abs()) * ez)
                * (1.0 + llr.to_f64().abs());
            let mut t = term(ctx, v, lp1.to_f64(), 0.0, &ln_z);
            t.e += eg;
            acc = add(&acc, &positive_part(ctx, t), p);
        }
        // Terms outside [lo, hi] are below p1's: its upper tail, and its lower one when the
        // region {x > x⋆} reaches below the window.
        let env = Envelope {
            l: -ln_z.v.to_f64(),
            c: m1 as f64,
            power: 0,
        };
        acc.e += env.upper(hi, s * s)?;
        if xstar.floor() < m1 as f64 - k {
            acc.e += env.lower(lo, s * s)?;
        }
        Ok(acc)
    }
}

// ------------------------------------------------------------------------------------------
// A single law, for the Fisher information about μ

/// A single N_Z(μ, σ²), μ any decimal, for the Fisher information about μ:
/// I(μ) = Var_μ(X)/σ⁴ (the law is an exponential family in μ/σ² with sufficient statistic X;
/// docs/formulas.md §14.4).
#[derive(Clone, Debug)]
pub(crate) struct DiscreteGaussianLocation {
    mu: Scalar,
    sigma: Scalar,
}

impl LocationModel for DiscreteGaussianLocation {
    fn family(&self) -> &'static Family {
        &FAMILY
    }
    fn params(&self) -> Vec<(&'static str, Scalar)> {
        vec![("mu", self.mu.clone()), ("sigma", self.sigma.clone())]
    }
    fn integrals(&self) -> FisherIntegrals<'_> {
        FisherIntegrals::Own(self)
    }
    /// I(μ) = 1/σ² + (log θ)''(μ) with θ's Poisson series (σ ≥ 1/2): with
    /// g(μ) = 1 + 2Σ q^{k²} cos 2πkμ, I = 1/σ² + g''/g − (g'/g)² (docs/formulas.md §14.4); by
    /// direct raw moments below σ = 1/2.
    fn fisher_at(&self, p: u32) -> Result<Float> {
        if self.sigma.f64() < 0.5 {
            return Ok(self.fisher_raw_moments(p));
        }
        let wp = p + 32;
        let s = self.sigma.mp(wp);
        let s2 = Float::with_val(wp, s.square_ref());
        let mu = self.mu.mp(wp);
        let pi = Float::with_val(wp, Constant::Pi);
        let lq = -(Float::with_val(wp, &s2 * Float::with_val(wp, pi.square_ref())) * 2u32);
        let (mut g, mut g1, mut g2) = (Float::with_val(wp, 1u32), Float::new(wp), Float::new(wp));
        let stop = Float::with_val(wp, Float::i_exp(1, -(wp as i32) - 8));
        for k in 1u32..100_000 {
            let qk = Float::with_val(wp, &lq * (k * k)).exp();
            let w = Float::with_val(wp, &pi * 2u32) * k;
            let (sn, cs) = Float::with_val(wp, &w * &mu).sin_cos(Float::new(wp));
            g += Float::with_val(wp, &qk * &cs) * 2u32;
            g1 -= Float::with_val(wp, &qk * &sn) * Float::with_val(wp, &w * 2u32);
            g2 -= Float::with_val(wp, &qk * &cs) * Float::with_val(wp, w.square_ref()) * 2u32;
            let next = Float::with_val(wp, &lq * ((k + 1) * (k + 1))).exp();
            let scale = Float::with_val(wp, (k + 2) * (k + 2)) * 1000u32;
            if Float::with_val(wp, &next * scale) < stop {
                let r1 = Float::with_val(wp, &g1 / &g);
                let v = s2.recip() + Float::with_val(wp, &g2 / &g) - r1.square();
                return Ok(Float::with_val(p, v));
            }
        }
        Err(Error::Precision {
            narrowest: None,
            requested: 1,
            certified: 0,
            what: "the theta series of the discrete Gaussian".into(),
        })
    }
}

impl DiscreteGaussianLocation {
    /// σ < 1/2: I = (θ2/θ − (θ1/θ)²)/σ⁴ with θ_j = Σ_k (k − μ)^j e^{−(k−μ)²/(2σ²)} summed directly
    /// over k ∈ [μ − K, μ + K] (one pass of raw moments; the sum route takes two central passes).
    fn fisher_raw_moments(&self, p: u32) -> Float {
        let wp = p + 32;
        let s = self.sigma.mp(wp);
        let s2 = Float::with_val(wp, s.square_ref());
        let two_s2 = Float::with_val(wp, &s2 * 2u32);
        let mu = self.mu.mp(wp);
        let k = half_width(wp, self.sigma.f64()) as i64;
        let c = self.mu.f64().round() as i64;
        let (mut t0, mut t1, mut t2) = (Float::new(wp), Float::new(wp), Float::new(wp));
        for x in c - k..=c + k {
            let d = Float::with_val(wp, Float::with_val(wp, x) - &mu);
            let d2 = Float::with_val(wp, d.square_ref());
            let w = Float::with_val(wp, -Float::with_val(wp, &d2 / &two_s2)).exp();
            t1 += Float::with_val(wp, &w * &d);
            t2 += Float::with_val(wp, &w * &d2);
            t0 += w;
        }
        let m1 = Float::with_val(wp, &t1 / &t0);
        let var = Float::with_val(wp, &t2 / &t0) - m1.square();
        Float::with_val(p, var / s2.square())
    }
}

impl OwnFisher for DiscreteGaussianLocation {
    /// Var(X)/σ⁴ by two passes over the masses: the mean, then Σ p(x)(x − mean)².
    fn fisher(&self, ctx: &Ctx) -> Result<Val> {
        let p = ctx.prec;
        let s = self.sigma.f64();
        let t2 = two_s2(ctx, &self.sigma);
        let ln_z = ln_z_sum(ctx, &self.mu, &self.sigma)?;
        let c = ctx.f(&self.mu);
        let (lo, hi) = window(ctx, s, self.mu.f64(), self.mu.f64())?;
        let mass = |x: i64| -> (Float, f64) {
            let lp = -quad(ctx, x, &c, &t2) - &ln_z.v;
            (Float::with_val(p, lp.exp_ref()), lp.to_f64())
        };
        // Pass 1: the mean offset E[X − μ] (its error moves pass 2 only at second order).
        let mut mean = Float::new(p);
        for x in lo..=hi {
            let (m, _) = mass(x);
            mean += m * Float::with_val(p, Float::with_val(p, x) - &c);
        }
        let centre = Float::with_val(p, &c + &mean);
        let mut acc = Val::exact(Float::new(p));
        for x in lo..=hi {
            let (m, lp) = mass(x);
            let dx = Float::with_val(p, Float::with_val(p, x) - &centre);
            let v = m * Float::with_val(p, dx.square_ref());
            acc = add(&acc, &term(ctx, v, lp, 8.0, &ln_z), p);
        }
        // The tails: (x − centre)² ≤ 2(x − μ)² + 2·(centre − μ)².
        let sq = Envelope {
            l: -ln_z.v.to_f64(),
            c: self.mu.f64(),
            power: 2,
        };
        let flat = Envelope { power: 0, ..sq };
        let m2 = 2.0 * mean.to_f64().powi(2);
        acc.e += sq.tails(lo, hi, s * s)? * 2u32 + flat.tails(lo, hi, s * s)? * m2;
        // Σ p(x)(x − c̃)² = Var + (c̃ − E X)²: the first pass's error enters squared; it is at
        // most ulp·(16 + K²)·K·(number of terms) plus the tails (a generous bound).
        let k = half_width(p, s);
        let e_mean = Float::with_val(EP, ctx.ulp() * (16.0 + k * k) * k * (hi - lo + 1) as f64)
            + flat.tails(lo, hi, s * s)? * (k + 1.0);
        acc.e += Float::with_val(EP, e_mean.square_ref());
        // Var/σ⁴.
        let s4 = Float::with_val(p, ctx.f(&self.sigma).square_ref()).square();
        let v = Float::with_val(p, &acc.v / &s4);
        let e = Float::with_val(EP, &acc.e / &s4) * 1.02f64
            + Float::with_val(EP, v.abs_ref()) * ctx.ulp() * 8u32;
        Ok(Val { v, e })
    }
}

// ------------------------------------------------------------------------------------------
// Published claims, registry entry

/// A published statement about the discrete Gaussian mechanism, as data: what it says, where it
/// comes from, when it holds.
#[derive(Clone, Copy, Debug)]
pub struct Claim {
    /// The statement.
    pub statement: &'static str,
    /// Its source.
    pub source: &'static str,
    /// Its validity conditions.
    pub validity: &'static str,
}

/// CKS's privacy statements about the discrete Gaussian mechanism q(x) + N_Z(0, σ²).
pub const CLAIMS: [Claim; 2] = [
    Claim {
        statement: "Delta^2/(2 sigma^2)-concentrated DP: D_alpha <= alpha Delta^2/(2 sigma^2) \
                    for every alpha > 1 (cks_renyi_bound); as (eps, delta): eps = rho + \
                    2 sqrt(rho log(1/delta)), rho = Delta^2/(2 sigma^2) (Bun & Steinke 2016, \
                    Prop. 1.3)",
        source: "Canonne, Kamath & Steinke, NeurIPS 2020, Sec. 2 (concentrated DP)",
        validity: "integer sensitivity Delta = |mu1 - mu2| (integer centres), sigma > 0",
    },
    Claim {
        statement: "exact delta(eps) = P[Y > eps sigma^2/Delta - Delta/2] - e^eps P[Y > eps \
                    sigma^2/Delta + Delta/2], Y ~ N_Z(0, sigma^2) (cks_delta)",
        source: "Canonne, Kamath & Steinke, NeurIPS 2020, Theorem 7",
        validity: "integer Delta >= 1, eps >= 0",
    },
];

fn build_pair(get: ParamLookup<'_>) -> Result<Arc<dyn PairModel>> {
    Ok(Arc::new(DiscreteGaussianPair::new(
        get.scalar("mu1")?,
        get.scalar("mu2")?,
        get.scalar("sigma")?,
    )?))
}

fn build_location(get: ParamLookup<'_>) -> Result<Arc<dyn LocationModel>> {
    let (mu, sigma) = (get.scalar("mu")?, get.scalar("sigma")?);
    crate::model::finite("mu", &mu)?;
    check_sigma(&sigma)?;
    Ok(Arc::new(DiscreteGaussianLocation { mu, sigma }))
}

/// The registry guarantee: CKS's Δ²/(2σ²)-CDP converted to (ε, δ) (first entry of [`CLAIMS`]).
fn claim(pair: &Pair, delta: f64) -> Result<f64> {
    crate::error::check_open_unit("delta", delta)?;
    let dg = pair
        .downcast_ref::<DiscreteGaussianPair>()
        .ok_or_else(|| Error::Unsupported(format!("not a discrete Gaussian pair: {pair}")))?;
    let rho = dg.rho(64).to_f64();
    Ok(rho + 2.0 * (rho * (1.0 / delta).ln()).sqrt())
}

/// The registry entry of the discrete Gaussian family.
pub(crate) static FAMILY: Family = Family {
    name: "discrete_gaussian",
    pair_keys: &["mu1", "mu2", "sigma"],
    input_keys: &["mu1", "mu2"],
    location_keys: &["mu", "sigma"],
    pair: build_pair,
    location: Some(build_location),
    claim: Guarantee::Published(claim),
    claim_source: "discrete Gaussian: Delta^2/(2 sigma^2)-CDP (Canonne, Kamath & Steinke 2020), \
                   eps = rho + 2 sqrt(rho log(1/delta)) (Bun & Steinke 2016)",
    spec: crate::model::SpecForm::GENERIC,
    noise: None,
};

#[cfg(test)]
mod tests {
    use super::{
        cks_renyi_bound, decimal_rational, Arc, DiscreteGaussianLocation, DiscreteGaussianPair,
        DiscreteGaussianSampler, Error, Float, Pair, Scalar, CLAIMS, FAMILY,
    };
    use crate::divergence::{self, Method};
    use crate::mechanisms::stream::chunk_rng;
    use crate::numeric::mp::agreement_digits;

    fn sc(s: &str) -> Scalar {
        s.parse().unwrap()
    }

    fn pair(m1: &str, m2: &str, s: &str) -> Pair {
        Pair::from(DiscreteGaussianPair::new(sc(m1), sc(m2), sc(s)).unwrap())
    }

    #[test]
    fn decimal_text_is_read_as_an_exact_rational() {
        let q = |t: &str| decimal_rational(t).map(|(n, d)| (n.to_string(), d.to_string()));
        assert_eq!(q("1.25"), Some(("125".into(), "100".into())));
        assert_eq!(q("-3e2"), Some(("-300".into(), "1".into())));
        assert_eq!(q("2.5e-3"), Some(("25".into(), "10000".into())));
        assert_eq!(q(".5"), Some(("5".into(), "10".into())));
        assert_eq!(q("abc"), None);
        assert_eq!(q("1.2.3"), None);
    }

    #[test]
    fn bad_parameters_are_refused_naming_parameter_and_value() {
        let err = |m1: &str, m2: &str, s: &str| {
            DiscreteGaussianPair::new(sc(m1), sc(m2), sc(s))
                .unwrap_err()
                .to_string()
        };
        let e = err("0.5", "1", "1");
        assert!(e.contains("mu1") && e.contains("0.5"), "{e}");
        let e = err("0", "1e17", "1");
        assert!(e.contains("mu2") && e.contains("1e17"), "{e}");
        for bad in ["0", "-1", "0.001", "20000"] {
            let e = err("0", "1", bad);
            assert!(e.contains("sigma") && e.contains(bad), "{e}");
        }
        assert!(DiscreteGaussianPair::new(sc("-4"), sc("1e3"), sc("0.01")).is_ok());
    }

    /// χ² of `n` seeded draws of N_Z(0, σ²) against the exact masses (cells with expected count
    /// < 5 pooled into the two tails), against the Wilson–Hilferty χ² quantile at z = 4.26
    /// (upper tail ≈ 10⁻⁵): a sampler off by a few percent in any cell fails.
    fn chi_square(sigma: &str, seed: u64, n: usize) -> (f64, f64) {
        let s = DiscreteGaussianSampler::new(&sc(sigma)).unwrap();
        let mut out = vec![0i64; n];
        s.sample_many(0, &mut chunk_rng(seed, 0), &mut out);
        let sf = sc(sigma).f64();
        let w = |x: i64| (-(x as f64).powi(2) / (2.0 * sf * sf)).exp();
        let kmax = (sf * 12.0).ceil() as i64 + 2;
        let z: f64 = (-kmax..=kmax).map(w).sum();
        // Cells: x in [-c, c] with expected ≥ 5, pooled tails beyond.
        let mut c = 0i64;
        while (n as f64) * w(c + 1) / z >= 5.0 {
            c += 1;
        }
        let mut counts = vec![0f64; (2 * c + 3) as usize];
        for &x in &out {
            let cell = (x.clamp(-c - 1, c + 1) + c + 1) as usize;
            counts[cell] += 1.0;
        }
        let mut stat = 0.0;
        for (i, obs) in counts.iter().enumerate() {
            let x = i as i64 - c - 1;
            let p = if x.abs() <= c {
                w(x) / z
            } else {
                ((c + 1)..=kmax).map(w).sum::<f64>() / z
            };
            let e = n as f64 * p;
            stat += (obs - e).powi(2) / e;
        }
        let k = (counts.len() - 1) as f64;
        let a = 2.0 / (9.0 * k);
        (stat, k * (1.0 - a + 4.26 * a.sqrt()).powi(3))
    }

    #[test]
    fn exact_sampler_follows_the_discrete_gaussian_law() {
        // σ < 1 (t = 1), σ with a fractional σ² (t = 2), and a wider law (t = 4).
        for (sigma, seed) in [("0.7", 1u64), ("1.5", 2), ("3.3", 3)] {
            let (stat, crit) = chi_square(sigma, seed, 20_000);
            assert!(stat < crit, "sigma {sigma}: chi2 {stat:.1} >= {crit:.1}");
        }
    }

    #[test]
    fn chi_square_check_rejects_a_wrong_law() {
        // The same draws judged against σ = 1.6 instead of 1.5: the test has teeth.
        let s = DiscreteGaussianSampler::new(&sc("1.6")).unwrap();
        let mut a = vec![0i64; 8];
        s.sample_many(0, &mut chunk_rng(2, 0), &mut a);
        let (stat, crit) = chi_square("1.6", 2, 20_000);
        assert!(stat < crit);
        let wrong = DiscreteGaussianSampler::new(&sc("1.5")).unwrap();
        let mut out = vec![0i64; 20_000];
        wrong.sample_many(0, &mut chunk_rng(9, 0), &mut out);
        let var: f64 = out.iter().map(|&x| (x as f64).powi(2)).sum::<f64>() / 20_000.0;
        // Var N_Z(0, 1.5²) ≈ 2.25, not 2.56.
        assert!((var - 2.25).abs() < 0.1, "variance {var}");
    }

    #[test]
    fn sampler_is_deterministic_and_centred() {
        let p = DiscreteGaussianPair::new(sc("5"), sc("-3"), sc("2")).unwrap();
        let (mut a, mut b) = (vec![0i64; 1000], vec![0i64; 1000]);
        p.sample_many(true, &mut chunk_rng(11, 4), &mut a);
        p.sample_many(true, &mut chunk_rng(11, 4), &mut b);
        assert_eq!(a, b);
        let mean = a.iter().sum::<i64>() as f64 / 1000.0;
        assert!((mean - 5.0).abs() < 0.3, "mean {mean}");
        p.sample_many(false, &mut chunk_rng(11, 5), &mut b);
        let mean = b.iter().sum::<i64>() as f64 / 1000.0;
        assert!((mean + 3.0).abs() < 0.3, "mean {mean}");
    }

    /// CKS Theorem 7 (the closed route) against the term-by-term sums of (p1 − e^ε p2)_+.
    #[test]
    fn cks_theorem7_delta_matches_the_certified_sums() {
        for (m1, m2, s) in [("0", "1", "1"), ("3", "-2", "2.5"), ("7", "4", "0.4")] {
            let pr = pair(m1, m2, s);
            for eps in ["0", "0.3", "1", "4"] {
                let e = sc(eps);
                let a = divergence::hockey_stick(&pr, &e, 25, Method::ClosedForm).unwrap();
                let b = divergence::hockey_stick(&pr, &e, 25, Method::Quadrature).unwrap();
                let ag = agreement_digits(&a.value, &b.value);
                assert!(ag >= 24.5, "{pr} eps {eps}: {ag:.1} digits");
                let sw = divergence::hockey_stick(&pr.swapped(), &e, 25, Method::Quadrature);
                assert!(agreement_digits(&sw.unwrap().value, &b.value) >= 24.5);
            }
        }
    }

    /// CKS's bound D_α ≤ αΔ²/(2σ²) holds for the certified sums, with equality when αΔ is an
    /// integer; KL = Δ²/(2σ²).
    #[test]
    fn renyi_sums_respect_the_cks_bound_with_equality_at_integer_alpha_delta() {
        let p = 256;
        for (m1, m2, s) in [("0", "1", "1"), ("2", "5", "0.8"), ("-1", "1", "3")] {
            let pr = pair(m1, m2, s);
            let dg = pr.downcast_ref::<DiscreteGaussianPair>().unwrap();
            for alpha in ["1.001", "1.5", "2", "3.25", "10"] {
                let a = sc(alpha);
                let d = divergence::renyi(&pr, &a, 25, Method::Quadrature).unwrap();
                let bound = cks_renyi_bound(dg, &a.mp(p), p);
                let ad = a.mp(p) * dg.delta();
                if ad.is_integer() {
                    let ag = agreement_digits(&d.value, &bound);
                    assert!(
                        ag >= 24.5,
                        "{pr} alpha {alpha}: equality case, {ag:.1} digits"
                    );
                } else {
                    // Below the bound by about 4e^{−2π²σ²}sin²(παΔ)/(α − 1): within the
                    // certified digits at σ = 3 (e^{−178}), clearly below it at σ ≤ 1.
                    let slack = Float::with_val(p, &bound * 1e-24);
                    assert!(
                        d.value < bound + slack,
                        "{pr} alpha {alpha}: above the CKS bound"
                    );
                    if dg.sigma.f64() <= 1.0 {
                        let ag = agreement_digits(&d.value, &cks_renyi_bound(dg, &a.mp(p), p));
                        assert!(
                            ag < 20.0,
                            "{pr} alpha {alpha}: the gap to the bound vanished"
                        );
                    }
                }
                let c = divergence::renyi(&pr, &a, 25, Method::ClosedForm).unwrap();
                assert!(
                    agreement_digits(&c.value, &d.value) >= 24.5,
                    "{pr} alpha {alpha}"
                );
            }
            let kl = divergence::kl(&pr, 25, Method::Quadrature).unwrap();
            assert!(agreement_digits(&kl.value, &dg.rho(p)) >= 24.5, "{pr} kl");
        }
    }

    /// Far-out sums (the peak of p1^α p2^{1−α} at α = 10³⁰⁰, the hockey-stick edge at ε = 10¹⁶)
    /// are refused as unsupported, never summed around a misplaced centre; the closed route
    /// takes them.
    #[test]
    fn far_out_sums_are_refused_and_the_closed_route_takes_them() {
        let pr = pair("0", "1", "0.7");
        let a = sc("1e300");
        let q = divergence::renyi(&pr, &a, 20, Method::Quadrature);
        assert!(matches!(q, Err(Error::Unsupported(_))), "{q:?}");
        let c = divergence::renyi(&pr, &a, 20, Method::ClosedForm).unwrap();
        let dg = pr.downcast_ref::<DiscreteGaussianPair>().unwrap();
        let bound = cks_renyi_bound(dg, &a.mp(2048), 2048);
        // D = αΔ²/(2σ²) + log(θ(αΔ)/θ(0))/(α − 1): the second term is below 10⁻³⁰⁰ here.
        let ag = agreement_digits(&c.value, &bound);
        assert!(
            c.value.is_finite() && ag >= 19.5,
            "{} vs bound: {ag:.1}",
            c.value
        );
        let e = sc("1e16");
        let q = divergence::hockey_stick(&pr, &e, 20, Method::Quadrature);
        assert!(matches!(q, Err(Error::Unsupported(_))), "{q:?}");
        // δ(10¹⁶) ≈ e^{−10³¹} > 0 is below every exponent range: refused, not certified as 0.
        let c = divergence::hockey_stick(&pr, &e, 20, Method::ClosedForm);
        assert!(matches!(c, Err(Error::Undefined(_))), "{c:?}");
    }

    #[test]
    fn fisher_routes_agree_on_both_sides_of_sigma_one_half() {
        for (mu, s) in [("0", "1"), ("0.3", "0.7"), ("2.5", "0.3"), ("0.1", "0.2")] {
            let loc = crate::model::Location::from_model(Arc::new(DiscreteGaussianLocation {
                mu: sc(mu),
                sigma: sc(s),
            }));
            let a = divergence::fisher(&loc, 25, Method::ClosedForm).unwrap();
            let b = divergence::fisher(&loc, 25, Method::Quadrature).unwrap();
            let ag = agreement_digits(&a.value, &b.value);
            assert!(ag >= 24.5, "{loc}: {ag:.1} digits");
        }
    }

    #[test]
    fn claims_are_data_and_the_registry_guarantee_is_the_cdp_conversion() {
        assert!(CLAIMS[1].source.contains("Theorem 7"));
        let pr = pair("0", "1", "2");
        let eps = FAMILY.claim.eps(&pr, 1e-5).unwrap();
        let rho: f64 = 1.0 / 8.0;
        assert!((eps - (rho + 2.0 * (rho * 1e5f64.ln()).sqrt())).abs() < 1e-12);
        // The claim bounds the exact ε(δ).
        let exact = divergence::eps_for_delta(&pr, &sc("1e-5"), 10, Method::Auto).unwrap();
        assert!(exact.value.to_f64() < eps);
    }
}
