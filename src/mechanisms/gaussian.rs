//! The one-dimensional Gaussian N(μ, σ²): the Gaussian mechanism's output law and the reference
//! sampler every other sampler is benchmarked against.

use super::stream::StreamRng;
use super::{ln_mp, mpf, ScalarDist};
use crate::error::{Error, Result};
use crate::model::logquad::{combine_logs, int_times_llr, integral, log_of, val_of, Ctx, Val};
use crate::model::noise::CoordinateNoise;
use crate::model::normal::Law;
use crate::model::normal::{self, Gauss, NormalPair, Orders, Shift};
use crate::model::spec_form::{
    cks_min, cks_of_curve, conversion_alphas, fmt_sig, BoundCurve, BoundValue, KeyRule, Panels,
    PaperBound, ProfileFigure, RdpBound, RenyiPanel, RenyiStyle, RowQuantity, SpecParams,
};
use crate::model::{location_model_common, pair_model_common};
use crate::model::{AuditDraws, Statistic, Which, GRID_SIGMAS};
use crate::model::{Family, LocationModel, OwnFisher, OwnIntegrals, Pair, PairModel, SpecForm};
use crate::numeric::quad::{Factor, Quadratic};
use crate::numeric::{f64s, mp};
use crate::scalar::Scalar;
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;
use std::sync::Arc;

/// The [normal distribution](https://en.wikipedia.org/wiki/Normal_distribution) N(μ, σ²).
///
/// # Density function
///
/// `p(x) = exp(−(x − μ)² / (2σ²)) / (σ √(2π))`, cdf `Φ((x − μ)/σ)`.
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::{stream::chunk_rng, Gaussian, ScalarDist};
/// use rand::distr::Distribution;
///
/// let g = Gaussian::new(1.0, 2.0).unwrap();
/// let mut rng = chunk_rng(42, 0);
/// let x: f64 = g.sample(&mut rng);
/// assert!(x.is_finite());
/// assert!((g.cdf(1.0) - 0.5).abs() < 1e-16);
/// assert!(Gaussian::new(0.0, -1.0).is_err());
/// ```
///
/// # Notes
///
/// Sampling is μ + σZ with Z from `rand_distr::StandardNormal`, the ZIGNOR variant of the
/// ziggurat method (J. A. Doornik, *An Improved Ziggurat Method to Generate Normal Random
/// Samples*, 2005). The cdf is evaluated on the tail side (`Φ(−z)` for the survival function),
/// never as `1 − Φ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gaussian {
    mu: f64,
    sigma: f64,
    ln_sigma: f64,
}

impl Gaussian {
    /// N(μ, σ²) from the mean `mu` (finite) and the standard deviation `sigma` (finite, > 0).
    pub fn new(mu: f64, sigma: f64) -> Result<Self> {
        super::check_location_scale(mu, "sigma", sigma)?;
        Ok(Gaussian {
            mu,
            sigma,
            ln_sigma: sigma.ln(),
        })
    }

    /// The mean μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// The standard deviation σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// Fills `out` with independent draws (μ + σZ, Z by ziggurat), in order.
    #[inline]
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            let z: f64 = StandardNormal.sample(rng);
            *o = self.mu + self.sigma * z;
        }
    }

    /// The standardised point (x − μ)/σ at `wp` bits.
    fn z_mp(&self, x: &Float, wp: u32) -> Float {
        let d = Float::with_val(wp, x - mpf(wp, self.mu));
        d / mpf(wp, self.sigma)
    }
}

impl Distribution<f64> for Gaussian {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        let z: f64 = StandardNormal.sample(rng);
        self.mu + self.sigma * z
    }
}

impl ScalarDist for Gaussian {
    fn support(&self) -> (f64, f64) {
        (f64::NEG_INFINITY, f64::INFINITY)
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        f64s::log_norm_pdf((x - self.mu) / self.sigma) - self.ln_sigma
    }

    fn pdf(&self, x: f64) -> f64 {
        f64s::norm_pdf((x - self.mu) / self.sigma) / self.sigma
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let z = self.z_mp(x, prec + 16);
        Float::with_val(prec, mp::log_norm_pdf(&z) - ln_mp(prec + 16, self.sigma))
    }

    fn cdf(&self, x: f64) -> f64 {
        if x.is_infinite() {
            // (f64s::ndtr(−∞) is NaN: its erfcx continued fraction does not handle ∞.)
            return if x > 0.0 { 1.0 } else { 0.0 };
        }
        f64s::ndtr((x - self.mu) / self.sigma)
    }

    fn sf(&self, x: f64) -> f64 {
        if x.is_infinite() {
            return if x > 0.0 { 0.0 } else { 1.0 };
        }
        f64s::ndtr((self.mu - x) / self.sigma)
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        Float::with_val(prec, mp::ndtr(&self.z_mp(x, prec + 16)))
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let z = self.z_mp(x, prec + 16);
        Float::with_val(prec, mp::ndtr(&(-z)))
    }
}

// ------------------------------------------------------------------------------------------
// The pair model

/// N(μ1, σ²) vs N(μ2, σ²): the Gaussian mechanism on neighbouring inputs.
///
/// Closed forms (docs/formulas.md §7.1, §4): D_α = αΔ²/(2σ²) (Mironov 2017, Prop. 7), KL =
/// Δ²/(2σ²), δ(ε) by Balle & Wang 2018, Thm 8. The quadrature route integrates the log-quadratic
/// integrands in closed-form shape (`numeric::quad::gaussian`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GaussianPair(pub Shift);

impl Pair {
    /// The Gaussian pair N(μ1, σ²) vs N(μ2, σ²), validated (σ > 0, finite locations).
    pub fn gaussian(mu1: Scalar, mu2: Scalar, sigma: Scalar) -> Result<Self> {
        Shift::new(mu1, mu2, sigma).map(|s| Pair::from(GaussianPair(s)))
    }
}

impl PairModel for GaussianPair {
    pair_model_common!(wrapper GaussianPair, normal);

    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        let p = 256;
        let shift = Float::with_val(p, self.0.mu1.mp(p) - self.0.mu2.mp(p)).abs();
        let sensitivity = Scalar::from_float(&shift).f64();
        Ok(Some(Arc::new(GaussianDraws::new(
            sensitivity,
            self.0.sigma.f64(),
        )?)))
    }
}

/// The Gaussian mechanism's audit route on a pair at distance Δ = |μ1 − μ2| (rounded once from
/// the exact difference): P1 = N(0, σ²), P2 = N(Δ, σ²), which the shift and reflection
/// y ↦ ±(y − μ1) map the pair to without changing its log-likelihood ratio.
///
/// White box, the LLR (Δ/σ²)(Δ/2 − y), affine in y; black box, y. Each output is one ziggurat
/// draw, so the statistic is c0 + c1·Z ([`AuditDraws::affine_normal`]) and the engine fuses
/// drawing and binning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GaussianDraws {
    sensitivity: f64,
    sigma: f64,
}

impl GaussianDraws {
    /// Validated: Δ > 0 and σ > 0, both finite.
    pub(crate) fn new(sensitivity: f64, sigma: f64) -> Result<Self> {
        crate::error::check_positive("sensitivity", sensitivity)?;
        crate::error::check_positive("sigma", sigma)?;
        Ok(GaussianDraws { sensitivity, sigma })
    }

    /// Δ.
    pub(crate) fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// σ.
    pub(crate) fn sigma(&self) -> f64 {
        self.sigma
    }

    /// The mean of the output on `which`.
    pub(crate) fn mean(&self, which: Which) -> f64 {
        match which {
            Which::P1 => 0.0,
            Which::P2 => self.sensitivity,
        }
    }

    /// The statistic of an output `y` as the affine map `a + b·y`: returns (a, b).
    pub(crate) fn affine(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::Black => (0.0, 1.0),
            Statistic::White => {
                let k = self.sensitivity / (self.sigma * self.sigma);
                (k * self.sensitivity / 2.0, -k)
            }
        }
    }

    /// (c0, c1) such that the statistic of y = mean + `noise_sigma`·Z is c0 + c1·Z.
    pub(crate) fn affine_in_z(
        &self,
        which: Which,
        stat: Statistic,
        noise_sigma: f64,
    ) -> (f64, f64) {
        let (a, b) = self.affine(stat);
        // stat = a + b (m + s z) = (a + b m) + (b s) z.
        (a + b * self.mean(which), b * noise_sigma)
    }

    /// Fills `out` with the statistic of y = mean + `noise_sigma`·Z: one ziggurat draw and one
    /// fused affine map per output.
    #[inline]
    pub(crate) fn fill(
        &self,
        which: Which,
        stat: Statistic,
        noise_sigma: f64,
        rng: &mut StreamRng,
        out: &mut [f64],
    ) {
        let (c0, c1) = self.affine_in_z(which, stat, noise_sigma);
        for o in out.iter_mut() {
            let z: f64 = StandardNormal.sample(rng);
            *o = c0 + c1 * z;
        }
    }
}

impl AuditDraws for GaussianDraws {
    fn name(&self) -> String {
        format!(
            "gaussian(sensitivity={}, sigma={})",
            self.sensitivity, self.sigma
        )
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.fill(which, stat, self.sigma, rng, out)
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        let w = GRID_SIGMAS * self.sigma;
        let (y0, y1) = (-w, self.sensitivity + w);
        let (a, b) = self.affine(stat);
        let (s0, s1) = (a + b * y0, a + b * y1);
        (s0.min(s1), s0.max(s1))
    }

    fn affine_normal(&self, which: Which, stat: Statistic) -> Option<(f64, f64)> {
        Some(self.affine_in_z(which, stat, self.sigma))
    }
}

impl NormalPair for GaussianPair {
    fn gauss(&self, p: u32) -> Gauss {
        let s = self.0.sigma.mp(p);
        Gauss {
            dist: Float::with_val(p, self.0.mu1.mp(p) - self.0.mu2.mp(p)).abs(),
            s1sq: Float::with_val(p, s.square_ref()),
            s2sq: Float::with_val(p, s.square_ref()),
            u: Float::new(p),
            d: 1,
        }
    }
}

impl OwnIntegrals for GaussianPair {
    fn renyi(&self, ctx: &Ctx, alpha: &Scalar) -> Result<Val> {
        let p = ctx.prec;
        let Orders { al, one_m, am1 } = Orders::at(ctx, alpha);
        let (q1, q2) = normal::gauss_q(ctx, &self.0.mu1, &self.0.mu2, &self.0.sigma);
        let qa = Quadratic::combine(&al, &q1, &one_m, &q2, p);
        let j = log_of(&integral(ctx, &qa, &Factor::One, None, None, &[])?)?;
        Ok(combine_logs(&[(Float::with_val(p, 1u32), j)], &am1, p))
    }
    fn kl(&self, ctx: &Ctx) -> Result<Val> {
        let (q1, q2) = normal::gauss_q(ctx, &self.0.mu1, &self.0.mu2, &self.0.sigma);
        int_times_llr(ctx, &q1, &q2, None)
    }
    fn hockey(&self, ctx: &Ctx, eps: &Scalar) -> Result<Val> {
        let (q1, q2) = normal::gauss_q(ctx, &self.0.mu1, &self.0.mu2, &self.0.sigma);
        normal::region(ctx, (&q1, &q2), &ctx.f(eps), None)
    }
}

/// A single N(μ, σ²), for the Fisher information about μ: 1/σ².
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GaussianLocation(pub Law);

impl LocationModel for GaussianLocation {
    location_model_common!();
    fn fisher_at(&self, p: u32) -> Result<Float> {
        Ok(self.0.sigma.mp(p).square().recip())
    }
}

impl OwnFisher for GaussianLocation {
    fn fisher(&self, ctx: &Ctx) -> Result<Val> {
        let (m, s) = (ctx.f(&self.0.mu), ctx.f(&self.0.sigma));
        let q = Quadratic::log_normal(&m, &s, ctx.prec);
        Ok(val_of(&integral(
            ctx,
            &q,
            &normal::score2(ctx, &m, &s),
            None,
            None,
            &[],
        )?))
    }
}

/// The published guarantee of the Gaussian mechanism on this pair: the exact ε(δ) of
/// Balle & Wang 2018, Thm 8 (the calibration it is designed by), in double precision.
fn claim(pair: &Pair, delta: f64) -> Result<f64> {
    let g = pair
        .downcast_ref::<GaussianPair>()
        .ok_or_else(|| Error::Unsupported(format!("not a Gaussian pair: {pair}")))?;
    crate::error::check_open_unit("delta", delta)?;
    let sens = (g.0.mu1.f64() - g.0.mu2.f64()).abs();
    Ok(f64s::gaussian_eps_for_delta(sens / g.0.sigma.f64(), delta))
}

/// The registry entry of the Gaussian family.
pub(crate) static FAMILY: Family = normal::shift_family(
    "gaussian",
    |get| Ok(Arc::new(GaussianPair(Shift::looked_up(get)?))),
    |get| Law::located(get, |law| Arc::new(GaussianLocation(law))),
    crate::model::Guarantee::Published(claim),
    "exact eps(delta) of the Gaussian mechanism (Balle & Wang 2018, Thm 8)",
    SpecForm {
        bounds: Some(|p, digits| dominating_bounds(p, digits, "")),
        profile_bounds: Some(|p, deltas| dominating_profile(p, deltas, "")),
        rdp_bound: Some(RdpBound {
            legends: |_| {
                (
                    "exact D_α (closed form)".into(),
                    "α·Δ²/(2σ²) (Mironov Prop. 7)".into(),
                )
            },
            ..DOMINATING_RDP
        }),
        panels: Some(Panels {
            profile: &ProfileFigure {
                stem: "profile_gaussian",
                title: "Privacy profile ε(δ): Gaussian mechanism",
                caption: "Privacy profile of the Gaussian mechanism: exact vs bounds vs audit",
            },
            renyi: Some(&RenyiPanel {
                style: RenyiStyle::FormulaPerSpec,
                title: "Gaussian mechanism: D_α = α·Δ²/(2σ²)",
            }),
        }),
        quantities: &[RowQuantity {
            name: "rho_bar",
            keys: &["d", "Rc"],
            what: "ρ̄(d, R_c) of HMB eq. (74), a Gaussian-noise quantity",
            eval: |p, digits, quadrature| {
                let (d, rc) = (p.dim("d")?, p.scalar("Rc")?);
                if quadrature {
                    crate::bounds::rho::rho_bar_quadrature(d, &rc, digits)
                } else {
                    crate::bounds::rho::rho_bar(d, &rc, digits)
                }
            },
        }],
        location_curve: Some(crate::model::spec_form::LocationCurve {
            legend: "Gaussian",
            reference: true,
        }),
        ..DOMINATED_SPEC
    },
)
.with_noise(&NOISE);

/// The family's noise for the training algorithms: its law per coordinate (HG §5–6).
static NOISE: crate::model::NoiseHooks =
    crate::model::NoiseHooks::per_coordinate(&COORDINATE_NOISE);

/// The Gaussian as the per-coordinate noise of a release (`train::hg`; HG §5–6, where it is the
/// baseline the bounded families are compared with, `docs/training.md#hg-mean-estimation`):
/// N(μ, σ²) on the whole line (the box is ignored), so E[(X − μ)²] = σ² at every μ, the MSE has
/// no σ → ∞ limit (+∞), and Σ_i σ² equals a target at σ = √(target/d).
static COORDINATE_NOISE: CoordinateNoise = CoordinateNoise {
    display: "Gaussian",
    sample: |mu, sigma, _, _, rng, out| {
        Gaussian::new(mu, sigma)?.sample_many(rng, out);
        Ok(())
    },
    mse: |_, sigma, _, _| Ok(sigma * sigma),
    saturation_mse: |_, _, _| f64::INFINITY,
    sigma_for_mse: Some(|mu, _, target| (target / mu.len() as f64).sqrt()),
};

// ---- The Gaussian mechanism as a bound on others (audit specs, three-way, report) ----
//
// A spec of the Gaussian mechanism, and of every mechanism a paper bounds by the Gaussian
// mechanism of the same σ and shift (HG: the rectified and truncated Gaussian, Prop. 4.6 and
// Thm 4.9; the stochastic sign, a post-processing), shows the Gaussian mechanism's bounds: its RDP
// curve α·Δ²/(2σ²) (Mironov 2017, Prop. 7) converted with Canonne–Kamath–Steinke 2020, Prop. 12,
// and Balle & Wang 2018, Thm 8 (exact for the Gaussian mechanism).

/// [`DOMINATED_SPEC`] for a law clipped to a support [`a`, `b`] (HG's rectified and truncated
/// Gaussian): the support checked (a < b) and described; the family file adds its theorem's
/// `bounds` and its `location_curve`.
pub(crate) const CLIPPED_SPEC: SpecForm = SpecForm {
    profile_bounds: Some(|p, deltas| dominating_profile(p, deltas, "Gaussian bound: ")),
    check: Some(crate::model::spec_form::support_check),
    describe: Some(|p| {
        let v = |k: &str| p.get(k).map_or_else(String::new, ToString::to_string);
        format!("σ = {}, support [{}, {}]", v("sigma"), v("a"), v("b"))
    }),
    ..DOMINATED_SPEC
};

/// The spec form of a mechanism bounded by the Gaussian mechanism of its σ (`sigma` > 0) and its
/// pair's shift: its family file sets `bounds` and `profile_bounds` with its theorem's text
/// ([`dominating_bounds`], [`dominating_profile`]).
pub(crate) const DOMINATED_SPEC: SpecForm = SpecForm {
    rules: &[("sigma", KeyRule::Positive)],
    rdp_bound: Some(DOMINATING_RDP),
    panels: Some(Panels {
        profile: &BOUNDED_PROFILE,
        renyi: Some(&BOUNDED_RENYI),
    }),
    describe: Some(|p| {
        format!(
            "σ = {}",
            p.get("sigma").map_or_else(String::new, ToString::to_string)
        )
    }),
    ..SpecForm::GENERIC
};

/// The privacy-profile figure of the mechanisms HG bounds by the Gaussian mechanism.
static BOUNDED_PROFILE: ProfileFigure = ProfileFigure {
    stem: "profile_bounded",
    title: "Privacy profile ε(δ): bounded-support mechanisms vs the Gaussian bound",
    caption: "Privacy profiles of the rectified, truncated and sign mechanisms against the \
              Gaussian bound",
};

/// Their D_α panel: each exact D_α beside the Gaussian mechanism's of the same σ and shift.
static BOUNDED_RENYI: RenyiPanel = RenyiPanel {
    style: RenyiStyle::SharedReference,
    title: "Bounded support vs Gaussian (HG Prop. 4.6, Thm 4.9)",
};

/// The Gaussian mechanism's RDP curve α·Δ²/(2σ²) (Mironov 2017, Prop. 7) at the spec's σ and
/// shift Δ, as the bound of a mechanism it dominates.
const DOMINATING_RDP: RdpBound = RdpBound {
    name: "the Gaussian mechanism's RDP (Mironov 2017, Prop. 7)",
    eps: |p, alpha| {
        let mu = p.shift.f64() / p.f64("sigma");
        Ok(alpha * mu * mu / 2.0)
    },
    alpha_sup: None,
    legends: |p| {
        let (sigma, shift) = (p.f64("sigma"), p.shift.f64());
        (
            String::new(),
            format!("Gaussian, σ = {sigma}, Δ = {shift} (HG bound)"),
        )
    },
};

/// The Gaussian mechanism's (ε, δ) bounds at the spec's σ, shift and δ: its RDP curve → CKS
/// (optimised over α) and Balle–Wang; labels led by `prefix`, the theorem that reduces the
/// spec's mechanism to the Gaussian one (empty for the Gaussian mechanism itself).
pub(crate) fn dominating_bounds(p: &SpecParams<'_>, digits: u32, prefix: &str) -> Vec<PaperBound> {
    let Some(sigma) = p.get("sigma") else {
        return Vec::new();
    };
    let (shift, delta) = (p.shift, p.delta);
    let cks = cks_of_curve(
        |a| {
            let c = crate::bounds::gaussian::rdp_eps(shift, sigma, &Scalar::from_float(a), digits)?;
            Ok(c.value)
        },
        1.0 + 1e-4,
        1e5,
        delta,
    );
    let (value, note) = match cks {
        Ok((e, a)) => (Ok(BoundValue::Plain(e)), format!("α* = {}", fmt_sig(a, 6))),
        Err(e) => (Err(e), String::new()),
    };
    // Balle & Wang 2018, Thm 8: the certified exact ε(δ) of the Gaussian pair (0, Δ, σ).
    let bw = Pair::gaussian(Scalar::from(0u32), shift.clone(), sigma.clone()).and_then(|pair| {
        crate::divergence::eps_for_delta(
            &pair,
            delta,
            digits,
            crate::divergence::Method::ClosedForm,
        )
    });
    vec![
        PaperBound {
            rdp_at: None,
            short: "RDP→CKS",
            label: format!(
                "{prefix}RDP α·Δ²/(2σ²) (Mironov 2017 Prop. 7) → (ε,δ) by Canonne–Kamath–Steinke \
                 2020 Prop. 12, optimised over α"
            ),
            value,
            note,
        },
        PaperBound {
            rdp_at: None,
            short: "Balle–Wang",
            label: format!("{prefix}Balle–Wang 2018 Thm 8 (exact for the Gaussian mechanism)"),
            value: bw.map(BoundValue::Certified),
            note: String::new(),
        },
    ]
}

/// The Gaussian mechanism's bounds as curves over δ at the spec's σ and shift: its RDP curve →
/// CKS and Balle–Wang, legends led by `prefix`.
pub(crate) fn dominating_profile(
    p: &SpecParams<'_>,
    deltas: &[f64],
    prefix: &str,
) -> Vec<BoundCurve> {
    let (shift, sigma) = (p.shift.f64(), p.f64("sigma"));
    let mu = shift / sigma;
    let curve: Vec<(f64, f64)> = conversion_alphas(1e4)
        .iter()
        .map(|&a| (a, a * mu * mu / 2.0))
        .collect();
    let cks: Vec<(f64, f64)> = deltas
        .iter()
        .filter_map(|&d| cks_min(&curve, d).map(|e| (d, e)))
        .collect();
    let bw: Vec<(f64, f64)> = deltas
        .iter()
        .filter_map(|&d| {
            crate::bounds::gaussian::dp_eps_f64(shift, sigma, d)
                .ok()
                .map(|e| (d, e))
        })
        .collect();
    vec![
        BoundCurve {
            label: format!("{prefix}RDP → CKS (optimised α)"),
            points: cks,
            colour: 1,
        },
        BoundCurve {
            label: format!("{prefix}Balle–Wang (exact for Gaussian)"),
            points: bw,
            colour: 3,
        },
    ]
}
