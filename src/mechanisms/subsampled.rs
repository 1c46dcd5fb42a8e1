//! The Poisson-subsampled Gaussian (one DP-SGD step, add/remove neighbour with the record):
//! X ~ (1−q)·N(0, σ²) + q·N(1, σ²) (Mironov, Talwar & Zhang 2019, §3), the law P of
//! `docs/accounting.md#model`. Densities and cdf are the two-component mixture of
//! [`super::Gaussian`]s, mixed in log space; the sampler draws the Bernoulli(q) inclusion bit from
//! 53 uniform bits, then the Gaussian.

use super::{u01, Gaussian, ScalarDist};
use crate::error::{Error, Result};
use crate::numeric::mp;
use crate::scalar::Scalar;
use rand::distr::Distribution;
use rand::Rng;
use rug::Float;

/// (1−q)·N(0, σ²) + q·N(1, σ²), q ∈ (0, 1], σ > 0: the law, and the Poisson-subsampled
/// Gaussian mechanism's parameters (re-exported as `crate::accounting::SubsampledGaussian`, the
/// one type of both; its exact parameters feed the certified routes).
#[derive(Clone, Debug, PartialEq)]
pub struct SubsampledGaussian {
    q: f64,
    absent: Gaussian,
    present: Gaussian,
    /// q and σ exactly as given (decimal text or a double).
    exact_q: Scalar,
    exact_sigma: Scalar,
}

impl SubsampledGaussian {
    /// Validates q ∈ (0, 1] and σ ∈ (0, ∞) (`Scalar::from(f64)` for doubles).
    pub fn new(exact_q: Scalar, exact_sigma: Scalar) -> Result<Self> {
        let (q, sf) = (exact_q.f64(), exact_sigma.f64());
        if !(q.is_finite() && q > 0.0 && q <= 1.0) {
            return Err(Error::invalid("q", q, "in (0, 1]"));
        }
        if !(sf.is_finite() && sf > 0.0) {
            return Err(Error::invalid("sigma", sf, "finite and > 0"));
        }
        Ok(SubsampledGaussian {
            q,
            absent: Gaussian::new(0.0, sf)?,
            present: Gaussian::new(1.0, sf)?,
            exact_q,
            exact_sigma,
        })
    }

    /// The sampling rate q, exactly as given.
    pub fn q(&self) -> &Scalar {
        &self.exact_q
    }

    /// The noise multiplier σ, exactly as given.
    pub fn sigma(&self) -> &Scalar {
        &self.exact_sigma
    }

    /// Fills `out` with independent draws.
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            *o = self.sample(rng);
        }
    }

    fn mix(&self, a: f64, b: f64) -> f64 {
        // log((1−q)e^a + q e^b)
        let la = (-self.q).ln_1p() + a;
        let lb = self.q.ln() + b;
        let m = la.max(lb);
        if m == f64::NEG_INFINITY {
            return m;
        }
        m + ((la - m).exp() + (lb - m).exp()).ln()
    }

    fn mix_mp(&self, a: &Float, b: &Float) -> Float {
        let p = a.prec();
        let q = Float::with_val(p + 16, self.q);
        let l1q = Float::with_val(p + 16, -&q).ln_1p();
        let la = Float::with_val(p + 16, a + l1q);
        let lb = Float::with_val(p + 16, b + q.ln());
        Float::with_val(p, mp::log_add_exp(&la, &lb))
    }
}

impl Distribution<f64> for SubsampledGaussian {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        if u01(rng) < self.q {
            self.present.sample(rng)
        } else {
            self.absent.sample(rng)
        }
    }
}

impl ScalarDist for SubsampledGaussian {
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        self.mix(self.absent.ln_pdf(x), self.present.ln_pdf(x))
    }

    fn pdf(&self, x: f64) -> f64 {
        (1.0 - self.q) * self.absent.pdf(x) + self.q * self.present.pdf(x)
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        self.mix_mp(&self.absent.ln_pdf_mp(x), &self.present.ln_pdf_mp(x))
    }

    fn cdf(&self, x: f64) -> f64 {
        (1.0 - self.q) * self.absent.cdf(x) + self.q * self.present.cdf(x)
    }

    fn sf(&self, x: f64) -> f64 {
        (1.0 - self.q) * self.absent.sf(x) + self.q * self.present.sf(x)
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let p = x.prec();
        let a = Float::with_val(p + 16, self.absent.cdf_mp(x).ln_ref());
        let b = Float::with_val(p + 16, self.present.cdf_mp(x).ln_ref());
        Float::with_val(p, self.mix_mp(&a, &b).exp_ref())
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let p = x.prec();
        let a = Float::with_val(p + 16, self.absent.sf_mp(x).ln_ref());
        let b = Float::with_val(p + 16, self.present.sf_mp(x).ln_ref());
        Float::with_val(p, self.mix_mp(&a, &b).exp_ref())
    }
}

// ---------------------------------------------------------------------------------------------
// The neighbouring pair, as a model family of `crate::model`

/// One of the three laws a one-step pair is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Law {
    /// (1−q)·N(0, σ²) + q·N(1, σ²): the dataset with the record.
    Mixture,
    /// (1−q)·N(0, σ²) + q·N(−1, σ²): the mixture reflected, the record replaced by its antipode.
    Reflected,
    /// N(0, σ²): the dataset without the record.
    Base,
}

/// Marker of the add/remove neighbour relation of [`SubsampledStep`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct AddRemove;

/// Marker of the substitution (replace-one) neighbour relation of [`SubsampledStep`].
#[derive(Clone, Copy, Debug)]
pub struct Substitution;

/// One DP-SGD step as a neighbouring pair (P1, P2) of laws drawn from the mixture
/// (1−q)·N(0, σ²) + q·N(1, σ²), its reflection and N(0, σ²); the marker `N` is the neighbour
/// relation (`AddRemove`: `SubsampledPair`, [`Substitution`]: [`SubsampledSubstPair`]).
/// Divergences come from the generic quadrature route of the model layer; the accountant's
/// binomial closed form stays in [`crate::accounting`], which cross-checks it against this route
/// in its tests.
#[derive(Clone, Debug)]
pub struct SubsampledStep<N> {
    q: crate::scalar::Scalar,
    sigma: crate::scalar::Scalar,
    p1: Law,
    p2: Law,
    mixture: SubsampledGaussian,
    base: Gaussian,
    neighbours: std::marker::PhantomData<N>,
}

/// One step of DP-SGD as a neighbouring pair: the mixture P = (1−q)·N(0, σ²) + q·N(1, σ²) (the
/// dataset with the record) against Q = N(0, σ²) (without it). Family `subsampled_gaussian` is
/// the remove order D(P ‖ Q); `subsampled_gaussian_add` the add order D(Q ‖ P)
/// (docs/accounting.md, docs/formulas.md §11).
pub(crate) type SubsampledPair = SubsampledStep<AddRemove>;

/// One DP-SGD step under substitution (replace-one) neighbours, clip norm 1: the record's
/// contribution u is replaced by v with ‖u‖, ‖v‖ ≤ 1, and the pair is
/// P = (1−q)·N(0, σ²) + q·N(1, σ²) against Q = (1−q)·N(0, σ²) + q·N(−1, σ²)
/// (docs/accounting.md#substitution: the antipodal case u = −v, attained in one dimension; the
/// same pair as dp_accounting's `REPLACE_ONE` for a Poisson-sampled Gaussian).
///
/// The pair is symmetric: Q is the law of −X for X ~ P, so D(P‖Q) = D(Q‖P) for every
/// divergence, and one order (family `subsampled_gaussian_subst`) suffices. The log-ratio
/// ln r₊(x) − ln r₊(−x), r₊(x) = 1 − q + q·e^{(2x−1)/(2σ²)}, is increasing and odd.
pub type SubsampledSubstPair = SubsampledStep<Substitution>;

impl SubsampledPair {
    /// The validated pair (q ∈ (0, 1], σ > 0); `add` selects the order D(Q ‖ P).
    pub(crate) fn new(
        q: crate::scalar::Scalar,
        sigma: crate::scalar::Scalar,
        add: bool,
    ) -> Result<Self> {
        let (p1, p2) = if add {
            (Law::Base, Law::Mixture)
        } else {
            (Law::Mixture, Law::Base)
        };
        SubsampledStep::with_laws(q, sigma, p1, p2)
    }
}

impl SubsampledSubstPair {
    /// The validated pair (q ∈ (0, 1], σ > 0).
    pub fn new(q: crate::scalar::Scalar, sigma: crate::scalar::Scalar) -> Result<Self> {
        SubsampledStep::with_laws(q, sigma, Law::Mixture, Law::Reflected)
    }
}

impl<N> SubsampledStep<N> {
    fn with_laws(
        q: crate::scalar::Scalar,
        sigma: crate::scalar::Scalar,
        p1: Law,
        p2: Law,
    ) -> Result<Self> {
        let mixture = SubsampledGaussian::new(q.clone(), sigma.clone())?;
        let base = Gaussian::new(0.0, sigma.f64())?;
        Ok(SubsampledStep {
            q,
            sigma,
            p1,
            p2,
            mixture,
            base,
            neighbours: std::marker::PhantomData,
        })
    }

    /// Substitution neighbours: one side is the reflected mixture.
    fn substitution(&self) -> bool {
        self.p1 == Law::Reflected || self.p2 == Law::Reflected
    }

    fn law(&self, which: crate::model::Which) -> Law {
        match which {
            crate::model::Which::P1 => self.p1,
            crate::model::Which::P2 => self.p2,
        }
    }

    /// ln of the mixture density at the precision of `x`, from the exact q and σ.
    fn ln_mixture(&self, x: &Float) -> Float {
        let wp = x.prec() + 16;
        let q = self.q.mp(wp);
        let la = Float::with_val(wp, Float::with_val(wp, 1u32 - &q).ln()) + self.ln_normal(x, 0);
        let lb = Float::with_val(wp, q.ln_ref()) + self.ln_normal(x, 1);
        Float::with_val(x.prec(), mp::log_add_exp(&la, &lb))
    }

    /// ln N(x; μ, σ²) at the precision of `x` + 16 bits, for μ ∈ {0, 1}.
    fn ln_normal(&self, x: &Float, mu: u32) -> Float {
        let wp = x.prec() + 16;
        let s = self.sigma.mp(wp);
        let z = Float::with_val(wp, x - mu) / &s;
        mp::log_norm_pdf(&z) - s.ln()
    }

    /// ln of `law`'s density at x in f64.
    fn ln_pdf_f64(&self, law: Law, x: f64) -> f64 {
        match law {
            Law::Mixture => self.mixture.ln_pdf(x),
            Law::Reflected => self.mixture.ln_pdf(-x),
            Law::Base => self.base.ln_pdf(x),
        }
    }

    /// Add/remove level points: ln((1−q) + q e^{(2x−1)/(2σ²)}) = c ⟺
    /// x = σ² ln((e^c − (1−q))/q) + ½, which exists iff e^c > 1 − q (the remove-order log-ratio
    /// is increasing). Add order: level −c.
    fn llr_level_add_remove(&self, c: &Float) -> Vec<Float> {
        let p = c.prec() + 32;
        let c = if self.p1 == Law::Base {
            Float::with_val(p, -c)
        } else {
            Float::with_val(p, c)
        };
        let q = self.q.mp(p);
        let e = Float::with_val(p, c.exp_ref()) - Float::with_val(p, 1u32 - &q);
        if e <= 0 {
            return Vec::new();
        }
        let s2 = Float::with_val(p, self.sigma.mp(p).square_ref());
        let x = Float::with_val(p, (e / q).ln() * s2) + Float::with_val(p, 0.5);
        vec![Float::with_val(c.prec() - 32, x)]
    }

    /// Substitution level points. With y = e^{x/σ²} and k = e^{−1/(2σ²)}: r₊(x) = 1−q + qky,
    /// r₊(−x) = 1−q + qk/y, and r₊(x) = e^c r₊(−x) ⟺ qk·y² + B·y − e^c·qk = 0 with
    /// B = (1−q)(1 − e^c). Its roots have product −e^c < 0: exactly one is positive, taken in the
    /// form without cancellation. The swapped pair's log-ratio is llr(−x): its level point is −x.
    fn llr_level_substitution(&self, c: &Float) -> Vec<Float> {
        let p = c.prec() + 32;
        let q = self.q.mp(p);
        let s2 = Float::with_val(p, self.sigma.mp(p).square_ref());
        let k = Float::with_val(p, Float::with_val(p, -0.5f64) / &s2).exp();
        let qk = Float::with_val(p, &q * &k);
        let ec = Float::with_val(p, c.exp_ref());
        let b = Float::with_val(p, 1u32 - &q) * Float::with_val(p, 1u32 - &ec);
        let four_qk2_ec = Float::with_val(p, qk.square_ref()) * &ec * 4u32;
        let disc = (Float::with_val(p, b.square_ref()) + four_qk2_ec).sqrt();
        let y = if b >= 0 {
            Float::with_val(p, &qk * &ec) * 2u32 / Float::with_val(p, &b + &disc)
        } else {
            Float::with_val(p, &disc - &b) / Float::with_val(p, &qk * 2u32)
        };
        if !(y.is_finite() && y > 0) {
            return Vec::new();
        }
        let x = Float::with_val(p, y.ln() * s2);
        let x = if self.p1 == Law::Reflected { -x } else { x };
        vec![Float::with_val(c.prec(), x)]
    }
}

impl<N: Clone + std::fmt::Debug + Send + Sync + 'static> crate::model::PairModel
    for SubsampledStep<N>
{
    fn family(&self) -> &'static crate::model::Family {
        match (self.p1, self.p2) {
            (Law::Mixture, Law::Base) => &FAMILY,
            (Law::Base, _) => &FAMILY_ADD,
            _ => &FAMILY_SUBST,
        }
    }
    fn params(&self) -> Vec<(&'static str, crate::scalar::Scalar)> {
        vec![("q", self.q.clone()), ("sigma", self.sigma.clone())]
    }
    fn swapped(&self) -> std::sync::Arc<dyn crate::model::PairModel> {
        std::sync::Arc::new(SubsampledStep {
            p1: self.p2,
            p2: self.p1,
            ..self.clone()
        })
    }
    fn identical(&self) -> bool {
        false
    }
    fn integrals(&self) -> crate::model::Integrals<'_> {
        crate::model::Integrals::Line(self)
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl<N: Clone + std::fmt::Debug + Send + Sync + 'static> crate::model::LinePair
    for SubsampledStep<N>
{
    fn ln_pdf_mp(&self, which: crate::model::Which, x: &Float) -> Float {
        match self.law(which) {
            Law::Mixture => self.ln_mixture(x),
            Law::Reflected => self.ln_mixture(&Float::with_val(x.prec(), -x)),
            Law::Base => Float::with_val(x.prec(), self.ln_normal(x, 0)),
        }
    }
    fn breakpoints(&self, prec: u32) -> Vec<Float> {
        // The component means: the tails are integrated from there outwards.
        let means = vec![Float::new(prec), Float::with_val(prec, 1u32)];
        if self.substitution() {
            [vec![Float::with_val(prec, -1i32)], means].concat()
        } else {
            means
        }
    }
    fn llr_level(&self, c: &Float) -> Vec<Float> {
        if self.substitution() {
            self.llr_level_substitution(c)
        } else {
            self.llr_level_add_remove(c)
        }
    }
    fn tail_scale(&self) -> f64 {
        self.sigma.f64()
    }
    fn sample_many(
        &self,
        which: crate::model::Which,
        rng: &mut super::stream::StreamRng,
        out: &mut [f64],
    ) {
        match self.law(which) {
            Law::Mixture => self.mixture.sample_many(rng, out),
            Law::Reflected => {
                self.mixture.sample_many(rng, out);
                for o in out.iter_mut() {
                    *o = -*o;
                }
            }
            Law::Base => self.base.sample_many(rng, out),
        }
    }
    fn llr(&self, x: f64) -> f64 {
        self.ln_pdf_f64(self.p1, x) - self.ln_pdf_f64(self.p2, x)
    }
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    fn llr_range(&self) -> (f64, f64) {
        // The log-ratio is unbounded above (substitution: both ways); the audit grid covers
        // 12σ beyond the component means.
        let s = self.sigma.f64();
        let lo = if self.substitution() {
            -(1.0 + 12.0 * s)
        } else {
            -12.0 * s
        };
        let (a, b) = (self.llr(lo), self.llr(1.0 + 12.0 * s));
        (a.min(b), a.max(b))
    }
}

/// The registry's constructor of each family: the pair of `family` from the looked-up q and σ.
fn build(
    family: &crate::model::Family,
    get: crate::model::ParamLookup<'_>,
) -> Result<std::sync::Arc<dyn crate::model::PairModel>> {
    let (q, sigma) = (get.scalar("q")?, get.scalar("sigma")?);
    Ok(if family.name == FAMILY_SUBST.name {
        std::sync::Arc::new(SubsampledSubstPair::new(q, sigma)?)
    } else {
        std::sync::Arc::new(SubsampledPair::new(
            q,
            sigma,
            family.name == FAMILY_ADD.name,
        )?)
    })
}

fn build_remove(
    get: crate::model::ParamLookup<'_>,
) -> Result<std::sync::Arc<dyn crate::model::PairModel>> {
    build(&FAMILY, get)
}

fn build_add(
    get: crate::model::ParamLookup<'_>,
) -> Result<std::sync::Arc<dyn crate::model::PairModel>> {
    build(&FAMILY_ADD, get)
}

fn build_subst(
    get: crate::model::ParamLookup<'_>,
) -> Result<std::sync::Arc<dyn crate::model::PairModel>> {
    build(&FAMILY_SUBST, get)
}

/// A one-step registry entry: pair keys q and σ, no location model, no single-step claim.
const fn family(
    name: &'static str,
    pair: fn(crate::model::ParamLookup<'_>) -> Result<std::sync::Arc<dyn crate::model::PairModel>>,
) -> crate::model::Family {
    crate::model::Family {
        name,
        pair_keys: &["q", "sigma"],
        input_keys: &[],
        location_keys: &[],
        pair,
        location: None,
        claim: crate::model::Guarantee::Unavailable(
            "the subsampled Gaussian has no single-step published claim; its guarantee is a \
             composition computed by the accountant",
        ),
        claim_source: "none (a DP-SGD guarantee is a composition: see the accountant)",
        spec: crate::model::SpecForm::GENERIC,
        noise: None,
    }
}

/// Registry entry: one DP-SGD step, remove order D(P ‖ Q).
pub(crate) static FAMILY: crate::model::Family = family("subsampled_gaussian", build_remove);

/// Registry entry: one DP-SGD step, add order D(Q ‖ P).
pub(crate) static FAMILY_ADD: crate::model::Family = family("subsampled_gaussian_add", build_add);

/// Registry entry: one DP-SGD step under substitution neighbours (symmetric pair).
pub(crate) static FAMILY_SUBST: crate::model::Family =
    family("subsampled_gaussian_subst", build_subst);
