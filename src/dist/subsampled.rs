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
