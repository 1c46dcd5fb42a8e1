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

/// The law of the per-coordinate noise on a box [a, b]: one of HG's two bounded-support
/// families, each its registry [`Family`](crate::model::Family) ([`BoxLaw::family`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxLaw {
    /// clip(N(μ, σ²), a, b) per coordinate (HG Def. 3.1).
    Rectified,
    /// N(μ, σ²) conditioned on [a, b] per coordinate (HG Def. 3.2).
    Truncated,
}

impl BoxLaw {
    /// The family's registry entry.
    pub fn family(self) -> &'static crate::model::Family {
        match self {
            BoxLaw::Rectified => &crate::mechanisms::rectified::FAMILY,
            BoxLaw::Truncated => &crate::mechanisms::truncated::FAMILY,
        }
    }

    /// The pair of the family at locations `mu1`, `mu2`, scale `sigma` on [a, b], built and
    /// validated by its registry entry.
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
        self.family().pair_from(&values)
    }
}

/// A per-coordinate mechanism on a box: σ_i and [a_i, b_i] for each coordinate.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxMechanism {
    /// The law of the noise on the box (rectified or truncated).
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
            let pair = self.family.pair(m1, m2, s, a, b)?;
            terms.push(divergence::renyi(&pair, &al, digits + 1, Method::Auto)?);
        }
        sum_certified(terms, digits)
    }

    /// Diagonal of the Fisher information matrix at location `mu` (HG Prop. 5.1).
    pub fn fisher_diag(&self, mu: &[f64], digits: u32) -> Result<Vec<Certified>> {
        self.check_len("mu", mu)?;
        let fam = self.family.family().name;
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
pub(crate) fn sum_certified(terms: Vec<Certified>, digits: u32) -> Result<Certified> {
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

fn std_phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

fn std_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// E[(clip(μ + σZ, a, b) − μ)²], Z ~ N(0, 1), in closed form: with l = (a−μ)/σ, u = (b−μ)/σ,
/// (a−μ)²Φ(l) + (b−μ)²(1 − Φ(u)) + σ²([Φ(u) − Φ(l)] − [uφ(u) − lφ(l)]).
pub fn rectified_mse(mu: f64, sigma: f64, a: f64, b: f64) -> f64 {
    let (l, u) = ((a - mu) / sigma, (b - mu) / sigma);
    let lead = (a - mu).powi(2) * std_phi(l) + (b - mu).powi(2) * std_phi(-u);
    let mid = (std_phi(u) - std_phi(l)) - (u * std_pdf(u) - l * std_pdf(l));
    lead + sigma * sigma * mid
}

/// One row of the mean-estimation comparison (HG §6.1, Figure 2's shape): at noise σ, the MSE and
/// per-instance RDP at order α of the Gaussian and of the rectified mechanism on the box
/// [lo, hi]^d, for the mean of `data` (values clipped to [−1, 1]; replace-one sensitivity 2/n per
/// coordinate, neighbour locations clamped to [−1, 1], the worse direction per coordinate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanRow {
    /// σ.
    pub sigma: f64,
    /// Gaussian MSE d σ².
    pub mse_gauss: f64,
    /// Gaussian RDP α d (2/n)² / (2σ²).
    pub rdp_gauss: f64,
    /// Rectified MSE (closed form, summed over coordinates).
    pub mse_rect: f64,
    /// Rectified per-instance RDP (HG Prop. 5.1, certified to 10 digits).
    pub rdp_rect: f64,
}

/// Computes a [`MeanRow`] for the mean `m` (coordinates in [−1, 1]) of n records.
pub fn mean_estimation_row(
    m: &[f64],
    n: usize,
    sigma: f64,
    lo: f64,
    hi: f64,
    alpha: f64,
) -> Result<MeanRow> {
    let d = m.len();
    let h = 2.0 / n as f64;
    if !(sigma > 0.0 && sigma.is_finite() && lo < hi && n > 0) {
        return Err(Error::invalid(
            "sigma, lo, hi, n",
            format!("{sigma}, {lo}, {hi}, {n}"),
            "sigma > 0, lo < hi, n >= 1",
        ));
    }
    let mut rdp = 0.0;
    for &mi in m {
        let one = BoxMechanism::new(BoxLaw::Rectified, vec![sigma], vec![lo], vec![hi])?;
        let up = one.renyi(&[mi], &[(mi + h).min(1.0)], alpha, 10)?.to_f64();
        let dn = one.renyi(&[mi], &[(mi - h).max(-1.0)], alpha, 10)?.to_f64();
        rdp += up.max(dn);
    }
    Ok(MeanRow {
        sigma,
        mse_gauss: d as f64 * sigma * sigma,
        rdp_gauss: alpha * d as f64 * h * h / (2.0 * sigma * sigma),
        mse_rect: m.iter().map(|&mi| rectified_mse(mi, sigma, lo, hi)).sum(),
        rdp_rect: rdp,
    })
}

/// The σ at which the rectified mechanism's MSE equals `target` (bisection on log σ; the MSE
/// increases with σ on the range used here). Errors if not bracketed in [1e-6, 1e3].
pub fn rectified_sigma_for_mse(m: &[f64], lo: f64, hi: f64, target: f64) -> Result<f64> {
    let f = |s: f64| {
        m.iter()
            .map(|&mi| rectified_mse(mi, s, lo, hi))
            .sum::<f64>()
    };
    let (a, b) = (1e-6, 1e3);
    if f(a) > target || f(b) < target {
        return Err(Error::invalid(
            "target MSE",
            target,
            "reachable by the rectified mechanism",
        ));
    }
    // No width stop: all 200 halvings.
    super::log_bisect(a, b, None, |mid| Ok(f(mid) < target))
}

/// The noise of a per-coordinate release: Gaussian (unbounded, the baseline) or one of the
/// bounded families on a box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noise {
    /// N(μ, σ²) per coordinate.
    Gaussian,
    /// A bounded family on [a_i, b_i] per coordinate.
    Bounded(BoxLaw),
}

impl Noise {
    /// Short name used in reports and CSV files.
    pub fn name(&self) -> &'static str {
        match self {
            Noise::Gaussian => crate::mechanisms::gaussian::FAMILY.name,
            Noise::Bounded(law) => law.family().name,
        }
    }
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
        let pair = match noise {
            Noise::Gaussian => Pair::gaussian(s1, s2, s)?,
            Noise::Bounded(law) => law.pair(s1, s2, s, Scalar::from(a), Scalar::from(b))?,
        };
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
