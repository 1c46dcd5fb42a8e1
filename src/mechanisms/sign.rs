//! The stochastic sign Y = sign(μ + N(0, σ²)) ∈ {−1, +1} (docs/formulas.md §3; the rectified Gaussian on
//! [0⁻, 0⁺], HG §4.1).

use super::stream::StreamRng;
use super::{mpf, ExactBernoulli, ScalarDist};
use crate::error::Result;
use crate::model::logquad::{
    add, atom_hockey, atom_kl, atom_log_term, atom_renyi, log1p_over, log_ndtr_erfc,
    log_sum_exp_val, Ctx, Val, EP,
};
use crate::model::normal::{self, Law};
use crate::model::normal::{
    atom_s_minus_1, log_atom_term, log_sum_exp, mass_diff, over_signs, pos, sign_ends, sign_logs,
    sum, Shift,
};
use crate::model::{location_model_common, pair_model_common};
use crate::model::{proper_range, AuditDraws, Statistic, Which};
use crate::model::{Family, LocationModel, OwnFisher, OwnIntegrals, Pair, PairModel, SpecForm};
use crate::numeric::mp::{log_ndtr, log_norm_pdf};
use crate::numeric::{f64s, mp};
use crate::scalar::Scalar;
use rand::distr::Distribution;
use rand::Rng;
use rug::Float;
use std::sync::Arc;

/// The stochastic sign of N(μ, σ²), returned as the `f64` −1.0 or +1.0.
///
/// # Mass function
///
/// `P(Y = +1) = Φ(μ/σ)`, `P(Y = −1) = Φ(−μ/σ)` (docs/formulas.md §3). Both masses are computed on their own
/// tail side, so the rare outcome's probability keeps its relative accuracy (e.g. Φ(−40) ≈ 3.7e−350
/// is finite in log space).
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::{stream::chunk_rng, ScalarDist, StochasticSign};
/// use rand::distr::Distribution;
///
/// let s = StochasticSign::new(0.5, 1.0).unwrap();
/// let y: f64 = s.sample(&mut chunk_rng(1, 0));
/// assert!(y == 1.0 || y == -1.0);
/// assert!((s.ln_mass(1.0).exp() - 0.691_462_461_274_013_1).abs() < 1e-15);
/// ```
///
/// # Notes
///
/// The sampler draws the less likely outcome with probability exactly `q = Φ(−|μ|/σ)` (the double
/// value of q) by comparing q with a uniform drawn 64 bits at a time (an exact Bernoulli; one `u64`
/// per sample on average). This is exact in the far tails, where `sign(μ + σZ)` with a ziggurat Z
/// would never produce the rare sign (the ziggurat cannot reach |Z| ≳ 14), and it is faster than
/// drawing a Gaussian.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StochasticSign {
    mu: f64,
    sigma: f64,
    /// Bernoulli(Φ(−|μ|/σ)) for the less likely outcome.
    rare_draw: ExactBernoulli,
    /// The less likely outcome (−1.0 when μ ≥ 0).
    rare: f64,
}

impl StochasticSign {
    /// sign(μ + N(0, σ²)) from `mu` (finite) and `sigma` (finite, > 0).
    pub fn new(mu: f64, sigma: f64) -> Result<Self> {
        super::check_location_scale(mu, "sigma", sigma)?;
        let t = mu / sigma;
        let (p_rare, rare) = if t >= 0.0 {
            (f64s::ndtr(-t), -1.0)
        } else {
            (f64s::ndtr(t), 1.0)
        };
        Ok(StochasticSign {
            mu,
            sigma,
            rare_draw: ExactBernoulli::new(p_rare),
            rare,
        })
    }

    /// The location μ.
    pub fn mu(&self) -> f64 {
        self.mu
    }

    /// The noise scale σ.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    /// P(Y = +1) = Φ(μ/σ).
    pub fn p_plus(&self) -> f64 {
        f64s::ndtr(self.mu / self.sigma)
    }

    /// Fills `out` with independent draws (±1.0), in order.
    #[inline]
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        for o in out.iter_mut() {
            *o = self.sample(rng);
        }
    }

    /// μ/σ at `wp` bits.
    fn t_mp(&self, wp: u32) -> Float {
        mpf(wp, self.mu) / mpf(wp, self.sigma)
    }
}

impl Distribution<f64> for StochasticSign {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        // Branch-free select (rare·(2b − 1)): the outcome is unpredictable, so a branch here
        // would mispredict on a large fraction of draws.
        let b = self.rare_draw.sample(rng) as u8;
        self.rare * (2.0 * f64::from(b) - 1.0)
    }
}

impl ScalarDist for StochasticSign {
    fn support(&self) -> (f64, f64) {
        (-1.0, 1.0)
    }

    fn atoms(&self) -> Vec<f64> {
        vec![-1.0, 1.0]
    }

    fn ln_mass(&self, x: f64) -> f64 {
        let t = self.mu / self.sigma;
        if x == 1.0 {
            f64s::log_ndtr(t)
        } else if x == -1.0 {
            f64s::log_ndtr(-t)
        } else {
            f64::NEG_INFINITY
        }
    }

    fn ln_mass_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let t = self.t_mp(prec + 16);
        if *x == 1 {
            Float::with_val(prec, mp::log_ndtr(&t))
        } else if *x == -1 {
            Float::with_val(prec, mp::log_ndtr(&(-t)))
        } else {
            Float::with_val(prec, f64::NEG_INFINITY)
        }
    }

    fn ln_pdf(&self, _x: f64) -> f64 {
        f64::NEG_INFINITY
    }

    fn pdf(&self, _x: f64) -> f64 {
        0.0
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        Float::with_val(x.prec(), f64::NEG_INFINITY)
    }

    fn cdf(&self, x: f64) -> f64 {
        if x < -1.0 {
            0.0
        } else if x < 1.0 {
            f64s::ndtr(-self.mu / self.sigma)
        } else {
            1.0
        }
    }

    fn sf(&self, x: f64) -> f64 {
        if x < -1.0 {
            1.0
        } else if x < 1.0 {
            f64s::ndtr(self.mu / self.sigma)
        } else {
            0.0
        }
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < -1 {
            Float::new(prec)
        } else if *x < 1 {
            let t = self.t_mp(prec + 16);
            Float::with_val(prec, mp::ndtr(&(-t)))
        } else {
            Float::with_val(prec, 1u32)
        }
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < -1 {
            Float::with_val(prec, 1u32)
        } else if *x < 1 {
            Float::with_val(prec, mp::ndtr(&self.t_mp(prec + 16)))
        } else {
            Float::new(prec)
        }
    }
}

// ------------------------------------------------------------------------------------------
// The pair model

/// sign(μ1 + N(0, σ²)) vs sign(μ2 + N(0, σ²)): the stochastic sign on neighbouring inputs
/// (HG §4.1), a law on {−1, +1} with P_i(+1) = Φ(μ_i/σ).
///
/// Closed forms (docs/formulas.md §3, §7.2): sums over the two atoms, in the S − 1 form of §1.2.
/// The quadrature route forms the atoms' masses by MPFR's `erfc` (independently of the closed
/// route's continued fraction for log Φ).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SignPair(pub Shift);

impl Pair {
    /// The stochastic-sign pair, validated (σ > 0, finite locations).
    pub fn stochastic_sign(mu1: Scalar, mu2: Scalar, sigma: Scalar) -> Result<Self> {
        Shift::new(mu1, mu2, sigma).map(|s| Pair::from(SignPair(s)))
    }
}

impl SignPair {
    fn parts(&self) -> (&Scalar, &Scalar, &Scalar) {
        (&self.0.mu1, &self.0.mu2, &self.0.sigma)
    }
}

impl SignPair {
    /// D_α in the log-space form of docs/formulas.md §9.10 (used above
    /// [`normal::LARGE_ALPHA`]): log S = log(Σ_± P1(±)^α P2(±)^{1−α}), each term in log space.
    pub(crate) fn renyi_log_space_at(&self, alpha: &Float, p: u32) -> Float {
        let am1 = Float::with_val(p, alpha - 1u32);
        let (mu1, mu2, sigma) = self.parts();
        let (x1, x2) = sign_ends(p, mu1, mu2, sigma);
        let (n1, n2) = (Float::with_val(p, -&x1), Float::with_val(p, -&x2));
        let terms = [
            log_atom_term(&log_ndtr(&x1), &log_ndtr(&x2), &am1, p),
            log_atom_term(&log_ndtr(&n1), &log_ndtr(&n2), &am1, p),
        ];
        log_sum_exp(p, &terms) / am1
    }
}

impl PairModel for SignPair {
    pair_model_common!(wrapper SignPair);

    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        let (mu1, mu2, sigma) = self.parts();
        Ok(Some(Arc::new(SignDraws::new(
            mu1.f64(),
            mu2.f64(),
            sigma.f64(),
        )?)))
    }

    fn renyi_at(&self, alpha: &Float, p: u32) -> Result<Float> {
        let am1 = Float::with_val(p, alpha - 1u32);
        let (mu1, mu2, sigma) = self.parts();
        // HG §4.1 / docs/formulas.md §3, in the S − 1 form of §1.2 (Φ(x) + Φ(−x) = 1).
        let (x1, x2) = sign_ends(p, mu1, mu2, sigma);
        if normal::large_alpha(alpha) {
            return Ok(self.renyi_log_space_at(alpha, p));
        }
        let plus = atom_s_minus_1(&x1, &x2, &am1, p);
        let minus = atom_s_minus_1(
            &Float::with_val(p, -&x1),
            &Float::with_val(p, -&x2),
            &am1,
            p,
        );
        let d = sum(p, &[&plus, &minus]).ln_1p() / am1;
        // S itself beyond MPFR's exponent range (e.g. σ ≪ |μ1 − μ2|): the log-space form.
        Ok(if d.is_finite() {
            d
        } else {
            self.renyi_log_space_at(alpha, p)
        })
    }
    fn kl_at(&self, p: u32) -> Result<Float> {
        let (mu1, mu2, sigma) = self.parts();
        Ok(over_signs(p, mu1, mu2, sigma, |y1, y2| {
            let l1 = log_ndtr(y1);
            let l2 = log_ndtr(y2);
            Float::with_val(p, l1.exp_ref()) * Float::with_val(p, &l1 - &l2)
        }))
    }
    fn hockey_at(&self, eps: &Float, p: u32) -> Result<Float> {
        let (mu1, mu2, sigma) = self.parts();
        Ok(over_signs(p, mu1, mu2, sigma, |y1, y2| {
            pos(mass_diff(&log_ndtr(y1), &log_ndtr(y2), eps, p))
        }))
    }
}

impl OwnIntegrals for SignPair {
    fn renyi(&self, ctx: &Ctx, alpha: &Scalar) -> Result<Val> {
        let p = ctx.prec;
        let al = ctx.f(alpha);
        let am1 = Float::with_val(p, &al - 1u32);
        let (mu1, mu2, sigma) = self.parts();
        let [(lp1, lp2), (lm1, lm2)] = sign_logs(ctx, mu1, mu2, sigma);
        if normal::large_alpha(&al) {
            // docs/formulas.md §9.10: log S in log space, then D = log S/(α − 1).
            let ls = log_sum_exp_val(
                ctx,
                &[
                    atom_log_term(ctx, &al, &lp1, &lp2),
                    atom_log_term(ctx, &al, &lm1, &lm2),
                ],
            );
            let e = Float::with_val(EP, &ls.e / Float::with_val(EP, &am1)) * 1.02f64;
            let v = Float::with_val(p, &ls.v / &am1);
            let e = e + Float::with_val(EP, v.abs_ref()) * ctx.ulp();
            return Ok(Val { v, e });
        }
        let sm1 = add(
            &atom_renyi(ctx, &al, &lp1, &lp2),
            &atom_renyi(ctx, &al, &lm1, &lm2),
            p,
        );
        Ok(log1p_over(ctx, &sm1, &am1))
    }
    fn kl(&self, ctx: &Ctx) -> Result<Val> {
        let (mu1, mu2, sigma) = self.parts();
        let [(lp1, lp2), (lm1, lm2)] = sign_logs(ctx, mu1, mu2, sigma);
        let a = atom_kl(ctx, &lp1, &lp2);
        let b = atom_kl(ctx, &lm1, &lm2);
        Ok(add(&a, &b, ctx.prec))
    }
    fn hockey(&self, ctx: &Ctx, eps: &Scalar) -> Result<Val> {
        let e = ctx.f(eps);
        let (mu1, mu2, sigma) = self.parts();
        let [(lp1, lp2), (lm1, lm2)] = sign_logs(ctx, mu1, mu2, sigma);
        let a = atom_hockey(ctx, &e, &lp1, &lp2);
        let b = atom_hockey(ctx, &e, &lm1, &lm2);
        Ok(add(&a, &b, ctx.prec))
    }
}

/// A single sign(μ + N(0, σ²)), for the Fisher information about μ (HG §4.1):
/// φ(μ/σ)² / (σ² Φ(μ/σ) Φ(−μ/σ)).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SignLocation(pub Law);

impl LocationModel for SignLocation {
    location_model_common!();
    fn fisher_at(&self, p: u32) -> Result<Float> {
        // HG §4.1 (docs/formulas.md §3): φ(μ/σ)² / (σ² Φ(μ/σ) Φ(−μ/σ)).
        let s = self.0.sigma.mp(p);
        let x = self.0.mu.mp(p) / &s;
        let nx = Float::with_val(p, -&x);
        let l = Float::with_val(p, &log_norm_pdf(&x) * 2u32) - log_ndtr(&x) - log_ndtr(&nx);
        Ok(l.exp() / Float::with_val(p, s.square_ref()))
    }
}

impl OwnFisher for SignLocation {
    fn fisher(&self, ctx: &Ctx) -> Result<Val> {
        let p = ctx.prec;
        let s = ctx.f(&self.0.sigma);
        let x = Float::with_val(p, ctx.f(&self.0.mu) / &s);
        let nx = Float::with_val(p, -&x);
        let lp = log_ndtr_erfc(ctx, &x);
        let lm = log_ndtr_erfc(ctx, &nx);
        // φ(x)²/(σ² Φ(x) Φ(−x)), in logs: φ from its definition.
        let two_pi = Float::with_val(p + 8, rug::float::Constant::Pi) * 2u32;
        let lphi =
            -Float::with_val(p, x.square_ref()) / 2u32 - Float::with_val(p, two_pi.ln() / 2u32);
        let ls = Float::with_val(p, s.ln_ref());
        let lt = Float::with_val(p, &lphi * 2u32) - ls * 2u32 - &lp.v - &lm.v;
        let v = Float::with_val(p, lt.exp_ref());
        let e = Float::with_val(EP, &v)
            * ((Float::with_val(EP, &lp.e) + &lm.e) * 1.02f64
                + ctx.ulp() * (8.0 + lt.to_f64().abs() + x.to_f64().powi(2)));
        Ok(Val { v, e })
    }
}

/// The stochastic sign's audit route: sign(μ_i + N(0, σ²)) ∈ {−1, +1} (docs/formulas.md §3),
/// with the parameters in double precision.
///
/// White box: LLR log(Φ(±μ1/σ)/Φ(±μ2/σ)) at ±1. Black box: the output ±1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SignDraws {
    mu1: f64,
    mu2: f64,
    sigma: f64,
    /// Samplers on x and x′ (exact Bernoulli draws of ±1).
    sampler: [StochasticSign; 2],
    /// LLR at −1 and +1.
    llr: [f64; 2],
}

impl SignDraws {
    /// Validated: finite locations, σ > 0.
    pub(crate) fn new(mu1: f64, mu2: f64, sigma: f64) -> Result<Self> {
        crate::error::check_finite("mu1", mu1)?;
        crate::error::check_finite("mu2", mu2)?;
        crate::error::check_positive("sigma", sigma)?;
        let (x1, x2) = (mu1 / sigma, mu2 / sigma);
        let ln_phi = crate::numeric::f64s::log_ndtr;
        Ok(SignDraws {
            mu1,
            mu2,
            sigma,
            sampler: [
                StochasticSign::new(mu1, sigma)?,
                StochasticSign::new(mu2, sigma)?,
            ],
            llr: [ln_phi(-x1) - ln_phi(-x2), ln_phi(x1) - ln_phi(x2)],
        })
    }
}

impl AuditDraws for SignDraws {
    fn name(&self) -> String {
        format!(
            "stochastic_sign(mu1={}, mu2={}, sigma={})",
            self.mu1, self.mu2, self.sigma
        )
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.sampler[which.index()].sample_many(rng, out);
        for o in out.iter_mut() {
            let plus = *o > 0.0;
            *o = match (stat, plus) {
                (Statistic::Black, true) => 1.0,
                (Statistic::Black, false) => -1.0,
                (Statistic::White, p) => self.llr[usize::from(p)],
            };
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            Statistic::Black => (-1.0, 1.0),
            Statistic::White => {
                let (u, v) = (self.llr[0], self.llr[1]);
                proper_range(u.min(v), u.max(v))
            }
        }
    }
}

/// The registry entry of the stochastic-sign family.
pub(crate) static FAMILY: Family = normal::shift_family(
    "stochastic_sign",
    |get| Ok(Arc::new(SignPair(Shift::looked_up(get)?))),
    |get| Law::located(get, |law| Arc::new(SignLocation(law))),
    crate::model::Guarantee::Exact,
    "exact eps(delta) of the stochastic-sign pair, both orders (docs/formulas.md §7.2)",
    SpecForm {
        bounds: Some(|p, digits| super::gaussian::dominating_bounds(p, digits, HG_BOUND)),
        profile_bounds: Some(|p, deltas| {
            super::gaussian::dominating_profile(p, deltas, "Gaussian bound: ")
        }),
        location_curve: Some(crate::model::spec_form::LocationCurve {
            legend: "stochastic sign",
            reference: false,
        }),
        ..super::gaussian::DOMINATED_SPEC
    },
);

/// The bound of a spec (a post-processing of the Gaussian mechanism's output, HG §4.1): the
/// Gaussian mechanism's of the same σ and shift, whose text leads its labels.
const HG_BOUND: &str = "Post-processing of the Gaussian mechanism (same σ and shift): ";
