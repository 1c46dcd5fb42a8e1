//! The rectified Gaussian R(μ, σ, [a, b]) = clip(N(μ, σ²), a, b) (HG Def. 3.1, docs/formulas.md §1): a
//! density on (a, b) plus atoms at a and b.

use super::stream::StreamRng;
use super::{ln_mp, mpf, Bounded, ExactBernoulli, ScalarDist, Truncated};
use crate::error::Result;
use crate::model::logquad::{
    add, atom_hockey, atom_kl, atom_renyi, int_times_llr, integral, log1p_over, log_mass, val_of,
    Ctx, Val, EP,
};
use crate::model::noise::CoordinateNoise;
use crate::model::normal::{
    self, atom_s_minus_1, ends, interior_region, log_atom_term, log_sum_exp, mass_diff,
    p1_times_expm1, phi_mass, phi_pdf, pos, sum, ClipClosed, ClipQuad, Clipped, ClippedLaw, Orders,
    Tilt,
};
use crate::model::{location_model_common, pair_model_common};
use crate::model::{proper_range, AuditDraws, Statistic, Which};
use crate::model::{Family, LocationModel, OwnFisher, OwnIntegrals, PairModel, SpecForm};
use crate::numeric::mp::{log_ndtr, log_ndtr_diff, log_norm_pdf};
use crate::numeric::{f64s, mp};
use crate::scalar::Scalar;
use rand::distr::Distribution;
use rand::Rng;
use rand_distr::StandardNormal;
use rug::Float;
use std::sync::Arc;

/// Beyond this many σ between μ and [a, b] the sampler stops clamping a ziggurat draw and picks the
/// part (near atom / interior / far atom) by exact Bernoulli draws instead: the interior and the
/// far atom then have probability < Φ(−8) ≈ 6e−16, a region the ziggurat represents poorly and
/// not at all beyond ≈ 14σ.
const FAR: f64 = 8.0;

/// How samples are drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Regime {
    /// clamp(μ + σZ, a, b).
    Clamp,
    /// μ more than [`FAR`]σ outside [a, b]: the near atom unless an exact Bernoulli(`p_leave`)
    /// says otherwise; then the far atom with probability `p_far`, else the interior.
    Far {
        near: f64,
        far: f64,
        p_leave: ExactBernoulli,
        p_far: ExactBernoulli,
    },
}

/// The [rectified Gaussian](https://en.wikipedia.org/wiki/Rectified_Gaussian_distribution)
/// R(μ, σ, [a, b]): the law of clip(μ + σZ, a, b), Z ~ N(0, 1).
///
/// # Density function
///
/// With A = (a − μ)/σ, B = (b − μ)/σ (HG Def. 3.1; docs/formulas.md §1):
/// * atom at a with mass `Φ(A)`, atom at b with mass `Φ(−B)`;
/// * density `φ((x − μ)/σ)/σ` on the open interval (a, b);
/// * cdf `Φ((x − μ)/σ)` on [a, b), jumping to 1 at b.
///
/// # Example
///
/// ```
/// use dpaudit::mechanisms::{stream::chunk_rng, Rectified, ScalarDist};
/// use rand::distr::Distribution;
///
/// let r = Rectified::new(0.0, 1.0, -1.0, 1.0).unwrap();
/// let x: f64 = r.sample(&mut chunk_rng(5, 0));
/// assert!((-1.0..=1.0).contains(&x));
/// // atom at b = 1: Φ(−1)
/// assert!((r.ln_mass(1.0).exp() - 0.158_655_253_931_457_05).abs() < 1e-16);
/// ```
///
/// # Notes
///
/// Sampling clamps a ziggurat draw (`rand_distr::StandardNormal`, Doornik 2005) to [a, b], which
/// is the definition. When μ lies more than 8σ outside [a, b] the law is the near atom except
/// with probability < 6·10⁻¹⁶; there the sampler draws the part exactly (an exact Bernoulli with
/// the tail probability, then the far atom with probability Φ(far)/Φ(near), else an exact
/// [`Truncated`] draw), so it remains exact at any distance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rectified {
    mu: f64,
    sigma: f64,
    a: f64,
    b: f64,
    ln_sigma: f64,
    regime: Regime,
    interior: Option<Truncated>,
}

impl Rectified {
    /// R(μ, σ, [a, b]) from `mu` (finite), `sigma` (finite, > 0) and `a < b` (finite).
    pub fn new(mu: f64, sigma: f64, a: f64, b: f64) -> Result<Self> {
        let (alpha, beta) = super::standardised_ends(mu, sigma, a, b)?;
        // Near atom `near`, left with probability Φ(x_near) (x_near = −A or B); far atom given
        // that: Φ(x_far)/Φ(x_near).
        let far_regime = |near: f64, far: f64, x_near: f64, x_far: f64| {
            let p_leave = f64s::ndtr(x_near);
            let p_far = (f64s::log_ndtr(x_far) - f64s::log_ndtr(x_near)).exp();
            let r = Regime::Far {
                near,
                far,
                p_leave: ExactBernoulli::new(p_leave),
                p_far: ExactBernoulli::new(p_far),
            };
            (r, Truncated::new(mu, sigma, a, b).ok())
        };
        let (regime, interior) = if alpha > FAR {
            // Near atom a; leave it with P(X > a) = Φ(−A); far atom b given that: Φ(−B)/Φ(−A).
            far_regime(a, b, -alpha, -beta)
        } else if beta < -FAR {
            far_regime(b, a, beta, alpha)
        } else {
            (Regime::Clamp, None)
        };
        Ok(Rectified {
            mu,
            sigma,
            a,
            b,
            ln_sigma: sigma.ln(),
            regime,
            interior,
        })
    }

    clipped_accessors!("The clipping interval [a, b].");

    /// log P(X = a) = log Φ((a − μ)/σ).
    pub(crate) fn ln_mass_a(&self) -> f64 {
        f64s::log_ndtr((self.a - self.mu) / self.sigma)
    }

    /// log P(X = b) = log Φ((μ − b)/σ).
    pub(crate) fn ln_mass_b(&self) -> f64 {
        f64s::log_ndtr((self.mu - self.b) / self.sigma)
    }

    /// Fills `out` with independent draws, in order.
    #[inline]
    pub fn sample_many<R: Rng + ?Sized>(&self, rng: &mut R, out: &mut [f64]) {
        match self.regime {
            Regime::Clamp => {
                for o in out.iter_mut() {
                    let z: f64 = StandardNormal.sample(rng);
                    *o = (self.mu + self.sigma * z).clamp(self.a, self.b);
                }
            }
            Regime::Far { .. } => {
                for o in out.iter_mut() {
                    *o = self.sample(rng);
                }
            }
        }
    }

    /// (x − μ)/σ at `wp` bits from the exact parameters.
    fn z_mp(&self, x: &Float, wp: u32) -> Float {
        Float::with_val(wp, x - mpf(wp, self.mu)) / mpf(wp, self.sigma)
    }
}

impl Distribution<f64> for Rectified {
    #[inline]
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        match self.regime {
            Regime::Clamp => {
                let z: f64 = StandardNormal.sample(rng);
                (self.mu + self.sigma * z).clamp(self.a, self.b)
            }
            Regime::Far {
                near,
                far,
                p_leave,
                p_far,
            } => {
                if !p_leave.sample(rng) {
                    near
                } else if p_far.sample(rng) {
                    far
                } else {
                    match &self.interior {
                        Some(t) => t.sample(rng),
                        // Only when Z(μ) is not representable even in log space, in which case
                        // p_leave underflowed to 0 and this branch is unreachable.
                        None => near,
                    }
                }
            }
        }
    }
}

impl ScalarDist for Rectified {
    fn support(&self) -> (f64, f64) {
        (self.a, self.b)
    }

    fn atoms(&self) -> Vec<f64> {
        vec![self.a, self.b]
    }

    fn ln_mass(&self, x: f64) -> f64 {
        if x == self.a {
            self.ln_mass_a()
        } else if x == self.b {
            self.ln_mass_b()
        } else {
            f64::NEG_INFINITY
        }
    }

    fn ln_mass_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        let wp = prec + 16;
        if *x == self.a {
            Float::with_val(prec, mp::log_ndtr(&self.z_mp(&mpf(wp, self.a), wp)))
        } else if *x == self.b {
            let z = self.z_mp(&mpf(wp, self.b), wp);
            Float::with_val(prec, mp::log_ndtr(&(-z)))
        } else {
            Float::with_val(prec, f64::NEG_INFINITY)
        }
    }

    fn ln_pdf(&self, x: f64) -> f64 {
        if x > self.a && x < self.b {
            f64s::log_norm_pdf((x - self.mu) / self.sigma) - self.ln_sigma
        } else {
            f64::NEG_INFINITY
        }
    }

    fn pdf(&self, x: f64) -> f64 {
        if x > self.a && x < self.b {
            f64s::norm_pdf((x - self.mu) / self.sigma) / self.sigma
        } else {
            0.0
        }
    }

    fn ln_pdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if !(*x > self.a && *x < self.b) {
            return Float::with_val(prec, f64::NEG_INFINITY);
        }
        let wp = prec + 16;
        let z = self.z_mp(x, wp);
        Float::with_val(prec, mp::log_norm_pdf(&z) - ln_mp(wp, self.sigma))
    }

    fn cdf(&self, x: f64) -> f64 {
        if x < self.a {
            0.0
        } else if x < self.b {
            f64s::ndtr((x - self.mu) / self.sigma)
        } else {
            1.0
        }
    }

    fn sf(&self, x: f64) -> f64 {
        if x < self.a {
            1.0
        } else if x < self.b {
            f64s::ndtr((self.mu - x) / self.sigma)
        } else {
            0.0
        }
    }

    fn cdf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < self.a {
            Float::new(prec)
        } else if *x < self.b {
            Float::with_val(prec, mp::ndtr(&self.z_mp(x, prec + 16)))
        } else {
            Float::with_val(prec, 1u32)
        }
    }

    fn sf_mp(&self, x: &Float) -> Float {
        let prec = x.prec();
        if *x < self.a {
            Float::with_val(prec, 1u32)
        } else if *x < self.b {
            let z = self.z_mp(x, prec + 16);
            Float::with_val(prec, mp::ndtr(&(-z)))
        } else {
            Float::new(prec)
        }
    }
}

// ------------------------------------------------------------------------------------------
// The pair model

/// clip(N(μ1, σ²), a, b) vs clip(N(μ2, σ²), a, b): the rectified Gaussian mechanism on
/// neighbouring inputs (HG Def. 3.1), a density on (a, b) plus atoms at a and b.
///
/// Closed forms: HG Lemma 4.4, eq. (5) (D_α, in its S − 1 form, docs/formulas.md §1.2), KL
/// (docs/formulas.md §1.3), δ(ε) (docs/formulas.md §7.2), Fisher information HG Lemma 4.1, eq. (4)
/// (docs/formulas.md §1.1). The quadrature route integrates the interior and adds the atoms as
/// Gaussian tail masses.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RectifiedPair(pub(crate) Clipped);

impl crate::model::Pair {
    /// The rectified pair, validated (σ > 0, a < b, all finite).
    pub fn rectified(
        mu1: Scalar,
        mu2: Scalar,
        sigma: Scalar,
        a: Scalar,
        b: Scalar,
    ) -> Result<Self> {
        Clipped::new(mu1, mu2, sigma, a, b).map(|c| crate::model::Pair::from(RectifiedPair(c)))
    }
}

impl RectifiedPair {
    /// D_α in the log-space form of docs/formulas.md §9.10 (used above
    /// [`normal::LARGE_ALPHA`]): log S = log(J + Σ_atoms P1^α P2^{1−α}), each term in log space.
    pub(crate) fn renyi_log_space_at(&self, alpha: &Float, p: u32) -> Float {
        let c = ClipClosed::new(self.0.parts(), p);
        let am1 = Float::with_val(p, alpha - 1u32);
        let (nb1, nb2) = (Float::with_val(p, -&c.b1), Float::with_val(p, -&c.b2));
        let terms = [
            c.log_tilted_mass(alpha, p),
            log_atom_term(&log_ndtr(&c.a1), &log_ndtr(&c.a2), &am1, p),
            log_atom_term(&log_ndtr(&nb1), &log_ndtr(&nb2), &am1, p),
        ];
        log_sum_exp(p, &terms) / am1
    }
}

impl PairModel for RectifiedPair {
    pair_model_common!(wrapper RectifiedPair);

    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        Ok(Some(Arc::new(RectifiedDraws::new(Bounded::of(&self.0)?)?)))
    }

    fn renyi_at(&self, alpha: &Float, p: u32) -> Result<Float> {
        let al = alpha;
        let c = ClipClosed::new(self.0.parts(), p);
        if normal::large_alpha(al) {
            return Ok(self.renyi_log_space_at(al, p));
        }
        let Tilt { am1, delta, m } = c.tilt(al, p);
        // HG Lemma 4.4, eq. (5) (docs/formulas.md §1.2) in its S − 1 form: the P1-masses sum to one, so
        // S − 1 = [e^E Z(m) − Z(μ1)] + Σ_atoms P1(atom)·expm1((α−1) log(P1(atom)/P2(atom))),
        // E = α(α−1)δ²/(2σ²). Nothing is ever added to 1, so no term is absorbed.
        let (am, bm) = ends(p, &m, &c.s, &c.a, &c.b);
        let expo = Float::with_val(p, al * &am1) * Float::with_val(p, delta.square_ref())
            / (Float::with_val(p, c.s.square_ref()) * 2u32);
        let lz1 = log_ndtr_diff(&c.a1, &c.b1);
        let interior = p1_times_expm1(
            &lz1,
            &sum(p, &[&expo, &log_ndtr_diff(&am, &bm), &-lz1.clone()]),
            p,
        );
        let atom_a = atom_s_minus_1(&c.a1, &c.a2, &am1, p);
        let atom_b = atom_s_minus_1(
            &Float::with_val(p, -&c.b1),
            &Float::with_val(p, -&c.b2),
            &am1,
            p,
        );
        let s_minus_1 = sum(p, &[&interior, &atom_a, &atom_b]);
        let d = Float::with_val(p, s_minus_1.ln_1p_ref()) / am1;
        // S itself beyond MPFR's exponent range (e.g. σ ≪ |μ1 − μ2|): the log-space form.
        Ok(if d.is_finite() {
            d
        } else {
            self.renyi_log_space_at(al, p)
        })
    }
    fn kl_at(&self, p: u32) -> Result<Float> {
        let c = ClipClosed::new(self.0.parts(), p);
        // docs/formulas.md §1.3.
        let d_s = Float::with_val(p, &c.m1 - &c.m2) / &c.s;
        let la1 = log_ndtr(&c.a1);
        let la2 = log_ndtr(&c.a2);
        let lb1 = log_ndtr(&Float::with_val(p, -&c.b1));
        let lb2 = log_ndtr(&Float::with_val(p, -&c.b2));
        let atom_a = Float::with_val(p, la1.exp_ref()) * Float::with_val(p, &la1 - &la2);
        let atom_b = Float::with_val(p, lb1.exp_ref()) * Float::with_val(p, &lb1 - &lb2);
        let lin = Float::with_val(p, &d_s * (phi_pdf(&c.a1) - phi_pdf(&c.b1)));
        let quad = Float::with_val(p, d_s.square_ref()) / 2u32 * phi_mass(&c.a1, &c.b1);
        Ok(sum(p, &[&atom_a, &atom_b, &lin, &quad]))
    }
    fn hockey_at(&self, eps: &Float, p: u32) -> Result<Float> {
        let c = ClipClosed::new(self.0.parts(), p);
        let atom_a = pos(mass_diff(&log_ndtr(&c.a1), &log_ndtr(&c.a2), eps, p));
        let atom_b = pos(mass_diff(
            &log_ndtr(&Float::with_val(p, -&c.b1)),
            &log_ndtr(&Float::with_val(p, -&c.b2)),
            eps,
            p,
        ));
        let mut total = atom_a + atom_b;
        if let Some((u, v)) = interior_region(&c.m1, &c.m2, &c.s, &c.a, &c.b, eps, p) {
            let (u1, v1) = ends(p, &c.m1, &c.s, &u, &v);
            let (u2, v2) = ends(p, &c.m2, &c.s, &u, &v);
            total += pos(mass_diff(
                &log_ndtr_diff(&u1, &v1),
                &log_ndtr_diff(&u2, &v2),
                eps,
                p,
            ));
        }
        Ok(total)
    }
}

impl OwnIntegrals for RectifiedPair {
    fn renyi(&self, ctx: &Ctx, alpha: &Scalar) -> Result<Val> {
        let p = ctx.prec;
        let (c, Orders { al, am1, .. }, qa) = ClipQuad::tilted(ctx, self.0.parts(), alpha);
        let j = val_of(&c.mass(ctx, &qa)?);
        let z1 = val_of(&c.mass(ctx, &c.q1)?);
        // S − 1 = (J − Z1) + Σ_atoms P1·expm1((α−1) log(P1/P2))   (docs/formulas.md §1.2)
        let sm1 = Val {
            v: Float::with_val(p, &j.v - &z1.v),
            e: Float::with_val(EP, &j.e + &z1.e),
        };
        let sm1 = c.add_atoms(ctx, sm1, |l1, l2| atom_renyi(ctx, &al, l1, l2))?;
        Ok(log1p_over(ctx, &sm1, &am1))
    }
    fn kl(&self, ctx: &Ctx) -> Result<Val> {
        let c = ClipQuad::of(ctx, self.0.parts());
        let acc = int_times_llr(ctx, &c.q1, &c.q2, Some((&c.a, &c.b)))?;
        c.add_atoms(ctx, acc, |l1, l2| atom_kl(ctx, l1, l2))
    }
    fn hockey(&self, ctx: &Ctx, eps: &Scalar) -> Result<Val> {
        let e = ctx.f(eps);
        let c = ClipQuad::of(ctx, self.0.parts());
        let acc = normal::region(ctx, (&c.q1, &c.q2), &e, Some((&c.a, &c.b)))?;
        c.add_atoms(ctx, acc, |l1, l2| atom_hockey(ctx, &e, l1, l2))
    }
}

/// A single clip(N(μ, σ²), a, b), for the Fisher information about μ (HG Lemma 4.1, eq. (4)).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RectifiedLocation(pub(crate) ClippedLaw);

impl LocationModel for RectifiedLocation {
    location_model_common!();
    fn fisher_at(&self, p: u32) -> Result<Float> {
        // HG Lemma 4.1, eq. (4) (docs/formulas.md §1.1):
        // σ² I_R = Φ(B) − Φ(A) + Aφ(A) − Bφ(B) + φ(A)²/Φ(A) + φ(B)²/Φ(−B).
        let (s, aa, bb) = self.0.ends_at(p);
        let nbb = Float::with_val(p, -&bb);
        let la = log_norm_pdf(&aa);
        let lb = log_norm_pdf(&bb);
        let atom_a = Float::with_val(p, (Float::with_val(p, &la * 2u32) - log_ndtr(&aa)).exp());
        let atom_b = Float::with_val(p, (Float::with_val(p, &lb * 2u32) - log_ndtr(&nbb)).exp());
        let lin_a = Float::with_val(p, &aa * la.exp());
        let lin_b = -Float::with_val(p, &bb * lb.exp());
        let total = sum(p, &[&phi_mass(&aa, &bb), &lin_a, &lin_b, &atom_a, &atom_b]);
        Ok(total / Float::with_val(p, s.square_ref()))
    }
}

impl OwnFisher for RectifiedLocation {
    fn fisher(&self, ctx: &Ctx) -> Result<Val> {
        let p = ctx.prec;
        let (m, s, af, bf, q) = self.0.at(ctx);
        let mut acc = val_of(&integral(
            ctx,
            &q,
            &normal::score2(ctx, &m, &s),
            Some(&af),
            Some(&bf),
            std::slice::from_ref(&m),
        )?);
        // Atoms: (∂_μ P)²/P = p(end)²/P (the derivative of a Gaussian mass with respect to
        // its location is ∓ the density at the end).
        for (end, lower) in [(&af, true), (&bf, false)] {
            let lp = log_mass(ctx, &m, &s, end, lower)?;
            let mut ld = Float::with_val(p, &q.c[2] * end);
            ld += &q.c[1];
            ld *= end;
            ld += &q.c[0];
            let lt = Float::with_val(p, &ld * 2u32) - &lp.v;
            let t = Float::with_val(p, lt.exp_ref());
            let te = Float::with_val(EP, &t)
                * (Float::with_val(EP, &lp.e) * 1.02f64
                    + ctx.ulp() * (4.0 + lt.to_f64().abs() + 4.0 * q.mag[0]));
            acc = add(&acc, &Val { v: t, e: te }, p);
        }
        Ok(acc)
    }
}

/// The rectified mechanism's audit route clip(μ_i + N(0, σ²), a, b) (HG Def. 3.1;
/// docs/formulas.md §1), with the parameters in double precision.
///
/// White box: the LLR is c + k·y inside (a, b) and log(Φ(A1)/Φ(A2)), log(Φ(−B1)/Φ(−B2)) at the
/// atoms a and b (computed once, in log space). Black box: the output, with the lower atom
/// relabelled to a − (b − a) so that it has a bin of its own (the upper atom sits on the grid's
/// upper end and is alone in the overflow bin).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct RectifiedDraws {
    p: Bounded,
    /// Samplers on x and x′.
    sampler: [Rectified; 2],
    /// LLR at the atoms a and b.
    pub(crate) atom_llr: [f64; 2],
}

impl RectifiedDraws {
    /// From validated parameters (errors where a sampler cannot be built).
    pub(crate) fn new(p: Bounded) -> Result<Self> {
        let z = |x: f64, m: f64| (x - m) / p.sigma;
        let atom_a = f64s::log_ndtr(z(p.a, p.mu1)) - f64s::log_ndtr(z(p.a, p.mu2));
        let atom_b = f64s::log_ndtr(-z(p.b, p.mu1)) - f64s::log_ndtr(-z(p.b, p.mu2));
        Ok(RectifiedDraws {
            p,
            sampler: p.samplers(Rectified::new)?,
            atom_llr: [atom_a, atom_b],
        })
    }

    /// The designed statistic of an output y ∈ [a, b].
    #[inline]
    pub(crate) fn stat_of(&self, stat: Statistic, y: f64) -> f64 {
        let p = &self.p;
        match stat {
            Statistic::Black => {
                if y <= p.a {
                    p.a - (p.b - p.a)
                } else {
                    y
                }
            }
            Statistic::White => {
                if y <= p.a {
                    self.atom_llr[0]
                } else if y >= p.b {
                    self.atom_llr[1]
                } else {
                    let (c, k) = p.interior_llr();
                    c + k * y
                }
            }
        }
    }
}

impl AuditDraws for RectifiedDraws {
    fn name(&self) -> String {
        self.p.name("rectified")
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        self.sampler[which.index()].sample_many(rng, out);
        for o in out.iter_mut() {
            *o = self.stat_of(stat, *o);
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        match stat {
            // Interior [a, b): the relabelled lower atom falls below, the upper atom at b in
            // the overflow bin.
            Statistic::Black => (self.p.a, self.p.b),
            // Interior LLR range; the atoms' LLRs are more extreme (the Mills-ratio ordering)
            // and fall in the under/overflow bins.
            Statistic::White => {
                let (c, k) = self.p.interior_llr();
                let (u, v) = (c + k * self.p.a, c + k * self.p.b);
                proper_range(u.min(v), u.max(v))
            }
        }
    }
}

/// The registry entry of the rectified family.
pub(crate) static FAMILY: Family = normal::clipped_family(
    "rectified",
    |get| Ok(Arc::new(RectifiedPair(Clipped::looked_up(get)?))),
    |get| ClippedLaw::located(get, |law| Arc::new(RectifiedLocation(law))),
    "exact eps(delta) of the rectified pair, both orders (docs/formulas.md §7.2)",
    SpecForm {
        bounds: Some(|p, digits| super::gaussian::dominating_bounds(p, digits, HG_BOUND)),
        location_curve: Some(crate::model::spec_form::LocationCurve {
            legend: "rectified Gaussian",
            reference: false,
        }),
        ..super::gaussian::CLIPPED_SPEC
    },
)
.with_noise(&NOISE);

/// The family's noise for the training algorithms: its law per coordinate (HG §5–6).
static NOISE: crate::model::NoiseHooks =
    crate::model::NoiseHooks::per_coordinate(&COORDINATE_NOISE);

/// The rectified Gaussian as the per-coordinate noise of a release on a box [a, b] (`train::hg`;
/// HG §5–6, `docs/training.md#hg-mean-estimation`): drawn by [`Rectified`], its MSE about μ in
/// closed form ([`mse`]), and its σ → ∞ limit ½((a − μ)² + (b − μ)²) (all mass on the two ends).
static COORDINATE_NOISE: CoordinateNoise = CoordinateNoise {
    display: "rectified",
    sample: |mu, sigma, a, b, rng, out| {
        Rectified::new(mu, sigma, a, b)?.sample_many(rng, out);
        Ok(())
    },
    mse: |mu, sigma, a, b| Ok(mse(mu, sigma, a, b)),
    saturation_mse: |mu, a, b| 0.5 * ((a - mu).powi(2) + (b - mu).powi(2)),
    sigma_for_mse: None,
};

/// Φ(x), for [`mse`].
fn std_phi(x: f64) -> f64 {
    0.5 * libm::erfc(-x / std::f64::consts::SQRT_2)
}

/// φ(x), for [`mse`].
fn std_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// E[(clip(μ + σZ, a, b) − μ)²], Z ~ N(0, 1), in closed form (HG Def. 3.1's law;
/// `docs/training.md#hg-mean-estimation`): with l = (a − μ)/σ, u = (b − μ)/σ,
/// (a − μ)²Φ(l) + (b − μ)²(1 − Φ(u)) + σ²([Φ(u) − Φ(l)] − [uφ(u) − lφ(l)]) (the two atoms, and
/// the second moment of the Gaussian on (l, u) by parts). Parameters as [`Rectified::new`]'s,
/// checked by the caller.
fn mse(mu: f64, sigma: f64, a: f64, b: f64) -> f64 {
    let (l, u) = ((a - mu) / sigma, (b - mu) / sigma);
    let lead = (a - mu).powi(2) * std_phi(l) + (b - mu).powi(2) * std_phi(-u);
    let mid = (std_phi(u) - std_phi(l)) - (u * std_pdf(u) - l * std_pdf(l));
    lead + sigma * sigma * mid
}

/// The bound of a spec (HG Prop. 4.6: the rectified Gaussian's ε(δ) is at most the Gaussian
/// mechanism's of the same σ and shift), whose text leads its labels.
const HG_BOUND: &str = "HG Prop. 4.6 (≤ Gaussian mechanism, same σ and shift): ";
