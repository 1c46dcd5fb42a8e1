//! The Poisson-subsampled Gaussian (one DP-SGD step, add/remove neighbour with the record):
//! X ~ (1−q)·N(0, σ²) + q·N(1, σ²) (Mironov, Talwar & Zhang 2019, §3), the law P of
//! `docs/accounting.md#model`. Densities and cdf are the two-component mixture of
//! [`super::Gaussian`]s, mixed in log space; the sampler draws the Bernoulli(q) inclusion bit from
//! 53 uniform bits, then the Gaussian.

use super::{u01, Gaussian, ScalarDist};
use crate::error::{Error, Result};
use crate::numeric::mp;
use rand::distr::Distribution;
use rand::Rng;
use rug::Float;

/// (1−q)·N(0, σ²) + q·N(1, σ²), q ∈ (0, 1], σ > 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubsampledGaussian {
    q: f64,
    absent: Gaussian,
    present: Gaussian,
}

impl SubsampledGaussian {
    /// Validates q ∈ (0, 1] and σ > 0.
    pub fn new(q: f64, sigma: f64) -> Result<Self> {
        if !(q.is_finite() && q > 0.0 && q <= 1.0) {
            return Err(Error::invalid("q", q, "in (0, 1]"));
        }
        Ok(SubsampledGaussian {
            q,
            absent: Gaussian::new(0.0, sigma)?,
            present: Gaussian::new(1.0, sigma)?,
        })
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

/// One step of DP-SGD as a neighbouring pair: the mixture P = (1−q)·N(0, σ²) + q·N(1, σ²) (the
/// dataset with the record) against Q = N(0, σ²) (without it). Family `subsampled_gaussian` is
/// the remove order D(P ‖ Q); `subsampled_gaussian_add` the add order D(Q ‖ P)
/// (docs/accounting.md, docs/formulas.md §11). Divergences come from the generic quadrature route
/// of the model layer; the accountant's binomial closed form stays in [`crate::accounting`],
/// which cross-checks it against this route in its tests.
#[derive(Clone, Debug)]
pub struct SubsampledPair {
    q: crate::scalar::Scalar,
    sigma: crate::scalar::Scalar,
    add: bool,
    mixture: SubsampledGaussian,
    base: Gaussian,
}

impl SubsampledPair {
    /// The validated pair (q ∈ (0, 1], σ > 0); `add` selects the order D(Q ‖ P).
    pub fn new(q: crate::scalar::Scalar, sigma: crate::scalar::Scalar, add: bool) -> Result<Self> {
        let mixture = SubsampledGaussian::new(q.f64(), sigma.f64())?;
        let base = Gaussian::new(0.0, sigma.f64())?;
        Ok(SubsampledPair {
            q,
            sigma,
            add,
            mixture,
            base,
        })
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

    /// The remove-order log-ratio ln(P/Q)(x) = ln((1−q) + q·e^{(2x−1)/(2σ²)}) in f64.
    fn llr_remove(&self, x: f64) -> f64 {
        self.mixture.ln_pdf(x) - self.base.ln_pdf(x)
    }
}

impl crate::model::PairModel for SubsampledPair {
    fn family(&self) -> &'static crate::model::ModelFamily {
        if self.add {
            &FAMILY_ADD
        } else {
            &FAMILY
        }
    }
    fn params(&self) -> Vec<(&'static str, crate::scalar::Scalar)> {
        vec![("q", self.q.clone()), ("sigma", self.sigma.clone())]
    }
    fn swapped(&self) -> std::sync::Arc<dyn crate::model::PairModel> {
        std::sync::Arc::new(SubsampledPair {
            add: !self.add,
            ..self.clone()
        })
    }
    fn identical(&self) -> bool {
        false
    }
    fn ln_pdf_mp(&self, which: crate::model::Which, x: &Float) -> Float {
        let mixture_side = match which {
            crate::model::Which::P1 => !self.add,
            crate::model::Which::P2 => self.add,
        };
        if mixture_side {
            self.ln_mixture(x)
        } else {
            Float::with_val(x.prec(), self.ln_normal(x, 0))
        }
    }
    fn breakpoints(&self, prec: u32) -> Vec<Float> {
        // The component means: the tails are integrated from there outwards.
        vec![Float::new(prec), Float::with_val(prec, 1u32)]
    }
    fn llr_level(&self, c: &Float) -> Vec<Float> {
        // Remove order: ln((1−q) + q e^{(2x−1)/(2σ²)}) = c ⟺ x = σ² ln((e^c − (1−q))/q) + ½,
        // which exists iff e^c > 1 − q (the log-ratio is increasing). Add order: level −c.
        let p = c.prec() + 32;
        let c = if self.add {
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
    fn tail_scale(&self) -> f64 {
        self.sigma.f64()
    }
    fn sample_many(
        &self,
        which: crate::model::Which,
        rng: &mut super::stream::StreamRng,
        out: &mut [f64],
    ) {
        let mixture_side = match which {
            crate::model::Which::P1 => !self.add,
            crate::model::Which::P2 => self.add,
        };
        if mixture_side {
            self.mixture.sample_many(rng, out)
        } else {
            self.base.sample_many(rng, out)
        }
    }
    fn llr(&self, x: f64) -> f64 {
        let l = self.llr_remove(x);
        if self.add {
            -l
        } else {
            l
        }
    }
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }
    fn llr_range(&self) -> (f64, f64) {
        // The log-ratio is unbounded above; the audit grid covers ±12σ around the means.
        let s = self.sigma.f64();
        let (a, b) = (self.llr(-12.0 * s), self.llr(1.0 + 12.0 * s));
        (a.min(b), a.max(b))
    }
}

fn build_remove(
    get: crate::model::ParamLookup<'_>,
) -> Result<std::sync::Arc<dyn crate::model::PairModel>> {
    Ok(std::sync::Arc::new(SubsampledPair::new(
        get("q")?,
        get("sigma")?,
        false,
    )?))
}

fn build_add(
    get: crate::model::ParamLookup<'_>,
) -> Result<std::sync::Arc<dyn crate::model::PairModel>> {
    Ok(std::sync::Arc::new(SubsampledPair::new(
        get("q")?,
        get("sigma")?,
        true,
    )?))
}

/// No per-step published claim: a DP-SGD guarantee is a composition over steps, computed by
/// [`crate::accounting`] (`dpaudit` reports it there, not as a single-step bound).
fn no_claim(_pair: &dyn crate::model::PairModel, _delta: f64) -> Result<f64> {
    Err(Error::Unsupported(
        "the subsampled Gaussian has no single-step published claim; its guarantee is a \
         composition computed by the accountant"
            .into(),
    ))
}

/// Registry entry: one DP-SGD step, remove order D(P ‖ Q).
pub static FAMILY: crate::model::ModelFamily = crate::model::ModelFamily {
    name: "subsampled_gaussian",
    pair_keys: &["q", "sigma"],
    input_keys: &[],
    location_keys: &[],
    pair: build_remove,
    location: None,
    claim: no_claim,
    claim_source: "none (a DP-SGD guarantee is a composition: see the accountant)",
};

/// Registry entry: one DP-SGD step, add order D(Q ‖ P).
pub static FAMILY_ADD: crate::model::ModelFamily = crate::model::ModelFamily {
    name: "subsampled_gaussian_add",
    pair_keys: &["q", "sigma"],
    input_keys: &[],
    location_keys: &[],
    pair: build_add,
    location: None,
    claim: no_claim,
    claim_source: "none (a DP-SGD guarantee is a composition: see the accountant)",
};
