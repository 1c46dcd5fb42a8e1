//! Per-coordinate accounting of Hu & Guo ("HG") §5, Prop. 5.1: noise added independently per
//! coordinate on a box support B = ×_i [a_i, b_i] (a registry family whose law has a support,
//! [`BoxLaw`]: HG's rectified and truncated Gaussians), and the noise laws of HG's experiments
//! ([`Noise`]: any registry family with per-coordinate noise, named in the experiment file and
//! looked up in the registry; this module names none). The output coordinates are independent,
//! so the per-instance Rényi divergence is the sum of the 1-D divergences and the Fisher
//! information matrix is diagonal with the 1-D Fisher informations (`docs/training.md#hg-per-coordinate-accounting`). Each 1-D term comes
//! from the crate's certified routes ([`crate::divergence`]).

use crate::divergence::{self, Location, Method, Pair};
use crate::error::{Error, Result};
use crate::mechanisms::stream::StreamRng;
use crate::model::noise::CoordinateNoise;
use crate::model::{Family, FAMILIES};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::Float;
use std::fmt;

/// The law of the per-coordinate noise of a release (HG §5–6): a registry family with a
/// [`CoordinateNoise`] entry (its draws and closed-form MSE), named by the experiment's `noises`
/// and found with [`Noise::by_name`]. Its single law is on a box [a, b] when the family's law
/// has a support ([`Noise::box_law`]), else on the whole line (the box is then ignored).
#[derive(Clone, Copy)]
pub struct Noise {
    family: &'static Family,
    hooks: &'static CoordinateNoise,
}

impl Noise {
    /// The noise of `family`; an error naming the family if it has no per-coordinate noise.
    pub fn new(family: &'static Family) -> Result<Noise> {
        match family.noise.and_then(|n| n.coordinate) {
            Some(hooks) => Ok(Noise { family, hooks }),
            None => Err(Error::invalid(
                "noise",
                family.name,
                &format!(
                    "a family with per-coordinate noise ({})",
                    names(Noise::all())
                ),
            )),
        }
    }

    /// The noise of the registry family called `name` (errors as [`Noise::named`] with the key
    /// `noise`).
    pub fn by_name(name: &str) -> Result<Noise> {
        Noise::named("noise", name)
    }

    /// The noise of the registry family called `name`, given as the value of the spec key
    /// `key`: an error naming the key and the value if `name` is not a registry family or its
    /// family has no per-coordinate noise.
    pub fn named(key: &str, name: &str) -> Result<Noise> {
        Family::by_name(name)
            .ok()
            .and_then(|f| Noise::new(f).ok())
            .ok_or_else(|| {
                Error::invalid(
                    key,
                    format!("{name:?}"),
                    &format!(
                        "a registry family with per-coordinate noise ({})",
                        names(Noise::all())
                    ),
                )
            })
    }

    /// Every registry family with per-coordinate noise, in registry order.
    pub fn all() -> impl Iterator<Item = Noise> {
        FAMILIES.iter().filter_map(|&family| {
            family
                .noise
                .and_then(|n| n.coordinate)
                .map(|hooks| Noise { family, hooks })
        })
    }

    /// The family's registry entry.
    pub fn family(&self) -> &'static Family {
        self.family
    }

    /// The family's name (reports and CSV files).
    pub fn name(&self) -> &'static str {
        self.family.name
    }

    /// Its name in running text ("Gaussian", "rectified").
    pub fn display(&self) -> &'static str {
        self.hooks.display
    }

    /// The noise as a law on a box, if its family's law has a support (location keys `a`, `b`).
    pub fn box_law(self) -> Option<BoxLaw> {
        let keys = self.family.location_keys;
        (keys.contains(&"a") && keys.contains(&"b")).then_some(BoxLaw(self))
    }

    /// The pair of the family at locations `mu1`, `mu2`, scale `sigma` (on [a, b] for a law on
    /// a box), built and validated by its registry entry.
    pub fn pair(
        self,
        mu1: Scalar,
        mu2: Scalar,
        sigma: Scalar,
        a: Scalar,
        b: Scalar,
    ) -> Result<Pair> {
        let values = [
            ("mu1", mu1),
            ("mu2", mu2),
            ("sigma", sigma),
            ("a", a),
            ("b", b),
        ];
        self.family.pair_from(&values)
    }

    /// The single law of the family at location `mu`, scale `sigma` (on [a, b] for a law on a
    /// box), for its Fisher information.
    pub fn location(self, mu: Scalar, sigma: Scalar, a: Scalar, b: Scalar) -> Result<Location> {
        let support = self.box_law().map(|_| (a, b));
        Location::new(self.name(), mu, sigma, support)
    }

    /// Fills `out` with draws of the law at (μ, σ, [a, b]) from `rng`, in order (the family's
    /// sampler).
    pub fn sample(
        self,
        mu: f64,
        sigma: f64,
        (a, b): (f64, f64),
        rng: &mut StreamRng,
        out: &mut [f64],
    ) -> Result<()> {
        (self.hooks.sample)(mu, sigma, a, b, rng, out)
    }

    /// E[(X − μ)²] of one coordinate in closed form (the family's), after checking μ finite,
    /// σ > 0 and a < b finite (errors name the parameter).
    pub fn mse(self, mu: f64, sigma: f64, a: f64, b: f64) -> Result<f64> {
        check_one(mu, sigma, a, b)?;
        (self.hooks.mse)(mu, sigma, a, b)
    }

    /// The σ → ∞ limit of [`Noise::mse`] at (μ, [a, b]): the largest MSE of the law (+∞ for a
    /// law on the whole line).
    pub fn saturation_mse(self, mu: f64, a: f64, b: f64) -> f64 {
        (self.hooks.saturation_mse)(mu, a, b)
    }

    /// The σ at which Σ_i MSE(μ_i, σ) equals `target`, where the family has it in closed form.
    pub(crate) fn sigma_for_mse_closed(
        self,
        mu: &[f64],
        ab: (f64, f64),
        target: f64,
    ) -> Option<f64> {
        self.hooks.sigma_for_mse.map(|f| f(mu, ab, target))
    }
}

impl PartialEq for Noise {
    fn eq(&self, other: &Self) -> bool {
        self.family == other.family
    }
}

impl Eq for Noise {}

impl fmt::Debug for Noise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Noise({})", self.name())
    }
}

impl From<BoxLaw> for Noise {
    fn from(law: BoxLaw) -> Noise {
        law.0
    }
}

/// The names of `noises`, comma-separated (error messages).
fn names(noises: impl Iterator<Item = Noise>) -> String {
    noises.map(|n| n.name()).collect::<Vec<_>>().join(", ")
}

/// Checks one coordinate's parameters: μ finite, σ finite and > 0, [a, b] finite with a < b.
fn check_one(mu: f64, sigma: f64, a: f64, b: f64) -> Result<()> {
    if !mu.is_finite() {
        return Err(Error::invalid("mu", mu, "finite"));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(Error::invalid("sigma", sigma, "finite and > 0"));
    }
    if !(a < b && a.is_finite() && b.is_finite()) {
        return Err(Error::invalid(
            "support [a, b]",
            format!("[{a}, {b}]"),
            "finite, a < b",
        ));
    }
    Ok(())
}

/// The law of the per-coordinate noise on a box [a, b] (HG's bounded-support families): a
/// [`Noise`] whose family's law has a support, found with [`BoxLaw::by_name`].
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BoxLaw(Noise);

impl BoxLaw {
    /// The law on a box of the registry family called `name` (errors as [`BoxLaw::named`] with
    /// the key `noise`).
    pub fn by_name(name: &str) -> Result<BoxLaw> {
        BoxLaw::named("noise", name)
    }

    /// The law on a box of the registry family called `name`, given as the value of the spec
    /// key `key`: an error naming the key and the value if `name` is not a registry family with
    /// per-coordinate noise on a box.
    pub fn named(key: &str, name: &str) -> Result<BoxLaw> {
        let expected = || {
            format!(
                "a registry family with per-coordinate noise on a box ({})",
                names(BoxLaw::all().map(Noise::from))
            )
        };
        Noise::named(key, name)
            .map_err(|_| Error::invalid(key, format!("{name:?}"), &expected()))?
            .box_law()
            .ok_or_else(|| Error::invalid(key, format!("{name:?}"), &expected()))
    }

    /// Every registry family with per-coordinate noise on a box, in registry order.
    pub fn all() -> impl Iterator<Item = BoxLaw> {
        Noise::all().filter_map(Noise::box_law)
    }

    /// The family's registry entry.
    pub fn family(self) -> &'static Family {
        self.0.family
    }

    /// The family's name.
    pub fn name(self) -> &'static str {
        self.0.name()
    }
}

impl fmt::Debug for BoxLaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BoxLaw({})", self.name())
    }
}

/// A per-coordinate mechanism on a box: σ_i and [a_i, b_i] for each coordinate.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMechanism {
    /// The law of the noise on the box (HG: rectified or truncated).
    pub family: BoxLaw,
    /// Per-coordinate standard deviations.
    pub sigma: Vec<f64>,
    /// Per-coordinate lower ends.
    pub a: Vec<f64>,
    /// Per-coordinate upper ends.
    pub b: Vec<f64>,
}

impl BoxMechanism {
    /// Checks that all per-coordinate vectors have the same non-zero length.
    pub fn new(family: BoxLaw, sigma: Vec<f64>, a: Vec<f64>, b: Vec<f64>) -> Result<Self> {
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
            let pair = Noise::from(self.family).pair(m1, m2, s, a, b)?;
            terms.push(divergence::renyi(&pair, &al, digits + 1, Method::Auto)?);
        }
        sum_certified(terms, digits)
    }

    /// Diagonal of the Fisher information matrix at location `mu` (HG Prop. 5.1).
    pub fn fisher_diag(&self, mu: &[f64], digits: u32) -> Result<Vec<Certified>> {
        self.check_len("mu", mu)?;
        let noise = Noise::from(self.family);
        (0..mu.len())
            .map(|i| {
                let loc = noise.location(
                    Scalar::from(mu[i]),
                    Scalar::from(self.sigma[i]),
                    Scalar::from(self.a[i]),
                    Scalar::from(self.b[i]),
                )?;
                divergence::fisher(&loc, digits, Method::Auto)
            })
            .collect()
    }
}

/// Sum of non-negative certified terms (relative error of the sum ≤ the largest term's).
pub(crate) fn sum_certified(terms: Vec<Certified>, digits: u32) -> Result<Certified> {
    let min_digits = terms.iter().map(|t| t.digits).min().unwrap_or(digits + 1);
    if min_digits < digits + 1 {
        return Err(Error::Precision {
            narrowest: None,
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

/// The per-instance RDP of order α of one per-coordinate release at location `mu`, against the
/// worst replace-one neighbour (`docs/training.md#hg-per-coordinate-gradient-descent`): one
/// record moves each coordinate of the released location by at most `h`, and the location stays
/// in [`lo`, `hi`]; so coordinate i's neighbour location lies in
/// [max(μ_i − h, lo), min(μ_i + h, hi)]. The Rényi divergence D_α(M(μ_i) ‖ M(μ_i′)) is
/// non-increasing in μ_i′ below μ_i and non-decreasing above (proved for the truncated family,
/// HG Lemma 4.8; for the Gaussian it is α(μ_i − μ_i′)²/(2σ²); observed numerically for the
/// rectified family), so the worst μ_i′ is one of the two ends, and by HG Prop. 5.1 the bound is
/// Σ_i max(D_α(μ_i → lower end), D_α(μ_i → upper end)). Each 1-D term is certified to
/// `digits + 1` digits by [`divergence::renyi`] (a term whose neighbour end equals μ_i is 0);
/// coordinates are evaluated in parallel and summed in index order.
///
/// Returns the certified sum and the per-coordinate worst terms (the latter rounded to f64, for
/// display and tests).
#[allow(clippy::too_many_arguments)]
pub(crate) fn worst_neighbour_renyi(
    noise: Noise,
    sigma: f64,
    box_ab: (f64, f64),
    mu: &[f64],
    h: f64,
    range: (f64, f64),
    alpha: f64,
    digits: u32,
) -> Result<(Certified, Vec<f64>)> {
    use rayon::prelude::*;
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(Error::invalid("sigma", sigma, "finite and > 0"));
    }
    if !(h >= 0.0 && h.is_finite()) {
        return Err(Error::invalid(
            "h (sensitivity per coordinate)",
            h,
            "finite and >= 0",
        ));
    }
    if !(range.0 < range.1 && range.0.is_finite() && range.1.is_finite()) {
        return Err(Error::invalid(
            "location range",
            format!("[{}, {}]", range.0, range.1),
            "finite with lo < hi",
        ));
    }
    if mu.is_empty() {
        return Err(Error::invalid("mu", "[]", "at least one coordinate"));
    }
    if let Some(m) = mu.iter().find(|m| !(range.0..=range.1).contains(*m)) {
        return Err(Error::invalid(
            "mu",
            m,
            &format!("inside the location range [{}, {}]", range.0, range.1),
        ));
    }
    let al = Scalar::from(alpha);
    divergence::check_alpha(&al)?;
    let (a, b) = box_ab;
    let one = |m1: f64, m2: f64| -> Result<Option<Certified>> {
        if m1 == m2 {
            return Ok(None);
        }
        let (s1, s2, s) = (Scalar::from(m1), Scalar::from(m2), Scalar::from(sigma));
        let pair = noise.pair(s1, s2, s, Scalar::from(a), Scalar::from(b))?;
        divergence::renyi(&pair, &al, digits + 1, Method::Auto).map(Some)
    };
    let per: Vec<Option<Certified>> = mu
        .par_iter()
        .map(|&m| {
            let lo = one(m, (m - h).max(range.0))?;
            let hi = one(m, (m + h).min(range.1))?;
            Ok(match (lo, hi) {
                (Some(x), Some(y)) => Some(if y.value > x.value { y } else { x }),
                (x, y) => x.or(y),
            })
        })
        .collect::<Result<_>>()?;
    let display = per
        .iter()
        .map(|t| t.as_ref().map_or(0.0, |c| c.to_f64()))
        .collect();
    let terms: Vec<Certified> = per.into_iter().flatten().collect();
    if terms.is_empty() {
        let prec = 64;
        return Ok((
            Certified {
                value: Float::with_val(prec, 0),
                digits,
            },
            display,
        ));
    }
    Ok((sum_certified(terms, digits)?, display))
}
