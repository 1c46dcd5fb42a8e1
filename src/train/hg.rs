//! Per-coordinate accounting of Hu & Guo ("HG") §5, Prop. 5.1: noise added independently per
//! coordinate on a box support B = ×_i [a_i, b_i] (rectified or truncated Gaussian per
//! coordinate). The output coordinates are independent, so the per-instance Rényi divergence is
//! the sum of the 1-D divergences and the Fisher information matrix is diagonal with the 1-D
//! Fisher informations (`docs/training.md#hg-per-coordinate-accounting`). Each 1-D term comes
//! from the crate's certified routes ([`crate::divergence`]).

use crate::divergence::{self, Location, Method, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::Float;

/// Per-coordinate noise family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// clip(N(μ, σ²), a, b) per coordinate (HG Def. 3.1).
    Rectified,
    /// N(μ, σ²) conditioned on [a, b] per coordinate (HG Def. 3.2).
    Truncated,
}

/// A per-coordinate mechanism on a box: σ_i and [a_i, b_i] for each coordinate.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMechanism {
    /// Family.
    pub family: Family,
    /// Per-coordinate standard deviations.
    pub sigma: Vec<f64>,
    /// Per-coordinate lower ends.
    pub a: Vec<f64>,
    /// Per-coordinate upper ends.
    pub b: Vec<f64>,
}

impl BoxMechanism {
    /// Checks that all per-coordinate vectors have the same non-zero length.
    pub fn new(family: Family, sigma: Vec<f64>, a: Vec<f64>, b: Vec<f64>) -> Result<Self> {
        if sigma.is_empty() || sigma.len() != a.len() || sigma.len() != b.len() {
            return Err(Error::invalid(
                "sigma/a/b lengths",
                format!("{}/{}/{}", sigma.len(), a.len(), b.len()),
                "equal and >= 1",
            ));
        }
        Ok(BoxMechanism {
            family,
            sigma,
            a,
            b,
        })
    }

    fn check_len(&self, name: &str, v: &[f64]) -> Result<()> {
        if v.len() != self.sigma.len() {
            return Err(Error::invalid(
                name,
                format!("length {}", v.len()),
                &format!("length d = {}", self.sigma.len()),
            ));
        }
        Ok(())
    }

    /// Per-instance RDP of order α between the outputs at locations `mu1` and `mu2` (HG Prop.
    /// 5.1): Σ_i D_α(coordinate i), each certified to `digits`; the sum of non-negative terms
    /// keeps the smallest certified relative precision, minus one digit for the summation.
    pub fn renyi(&self, mu1: &[f64], mu2: &[f64], alpha: f64, digits: u32) -> Result<Certified> {
        self.check_len("mu1", mu1)?;
        self.check_len("mu2", mu2)?;
        let al = Scalar::from(alpha);
        let mut terms = Vec::with_capacity(mu1.len());
        for i in 0..mu1.len() {
            let (m1, m2) = (Scalar::from(mu1[i]), Scalar::from(mu2[i]));
            let (s, a, b) = (
                Scalar::from(self.sigma[i]),
                Scalar::from(self.a[i]),
                Scalar::from(self.b[i]),
            );
            let pair = match self.family {
                Family::Rectified => Pair::rectified(m1, m2, s, a, b)?,
                Family::Truncated => Pair::truncated(m1, m2, s, a, b)?,
            };
            terms.push(divergence::renyi(&pair, &al, digits + 1, Method::Auto)?);
        }
        sum_certified(terms, digits)
    }

    /// Diagonal of the Fisher information matrix at location `mu` (HG Prop. 5.1).
    pub fn fisher_diag(&self, mu: &[f64], digits: u32) -> Result<Vec<Certified>> {
        self.check_len("mu", mu)?;
        let fam = match self.family {
            Family::Rectified => "rectified",
            Family::Truncated => "truncated",
        };
        (0..mu.len())
            .map(|i| {
                let loc = Location::new(
                    fam,
                    Scalar::from(mu[i]),
                    Scalar::from(self.sigma[i]),
                    Some((Scalar::from(self.a[i]), Scalar::from(self.b[i]))),
                )?;
                divergence::fisher(&loc, digits, Method::Auto)
            })
            .collect()
    }
}

/// Sum of non-negative certified terms (relative error of the sum ≤ the largest term's).
fn sum_certified(terms: Vec<Certified>, digits: u32) -> Result<Certified> {
    let min_digits = terms.iter().map(|t| t.digits).min().unwrap_or(digits + 1);
    if min_digits < digits + 1 {
        return Err(Error::Precision {
            requested: digits,
            certified: min_digits.saturating_sub(1),
            what: "HG Prop. 5.1 per-coordinate Renyi sum".into(),
        });
    }
    let prec = terms.iter().map(|t| t.value.prec()).max().unwrap_or(64) + 32;
    let mut s = Float::with_val(prec, 0);
    for t in &terms {
        s += &t.value;
    }
    Ok(Certified { value: s, digits })
}
