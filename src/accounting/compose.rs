//! Certified composition of Gaussian-family releases: a two-sided bracket on δ(ε) and ε(δ) of a
//! T-fold (or heterogeneous) composition, through the moment generating function of the privacy
//! loss. Derivation, error terms and why they are rigorous: `docs/accounting.md#composition`.
//!
//! For one neighbour direction with dominating pair (P, Q) and privacy loss L = log(dP/dQ), the
//! hockey-stick divergence is a call-option price, δ(ε) = E_Q[(e^L − e^ε)_+], and its Laplace
//! inversion along Re s = a > 1 gives
//!
//! δ(ε) = (1/2π) ∫_ℝ M(a+iu) e^{−(a−1+iu)ε} / ((a+iu)(a−1+iu)) du,  M(s) = E_Q[(dP/dQ)^s],
//!
//! where a composition multiplies the M of its parts. M is evaluated at complex s in `rug`
//! (closed form for the Gaussian, a trapezoid rule on ℝ for the subsampled Gaussian, whose sum
//! is done in double precision with an a-priori rounding bound at ≤ 10 requested digits:
//! docs/accounting.md#fast-inner), the
//! u-integral by the trapezoid rule on ℝ. Every error term is bounded a priori and added:
//! the discretisation of both trapezoids by the strip theorem of Trefethen & Weideman (SIAM Rev.
//! 56 (2014), Thm 5.1) with closed-form bounds on the integrand in the strip, truncated x-ranges by
//! closed-form Gaussian tails, the u-tail by a Lipschitz bound on |M| between probes and an
//! integration-by-parts decay bound beyond them, rounding by running error bounds. There is no
//! convolution and no discretised loss, so nothing grows with T except the exponent.
//!
//! The dispatcher sends some schedules to other routes first: an exactly Gaussian one to the
//! closed form, T ≤ 3 subsampled steps to nested integration (`nested`, `nested64`), and the
//! tiny-q corner at T ≥ 4 and ≤ 8 digits to a discretised convolution (`pld`,
//! docs/accounting.md#discretised). Every route returns a two-sided bracket.

use super::SubsampledGaussian;
use crate::bounds::gaussian::{dp_eps_mp, log_dp_delta_mp};
use crate::error::{Error, Result};
use crate::numeric::f64s;
use crate::numeric::mp::bits_for_digits;
use crate::scalar::Scalar;
use rug::float::Constant;
use rug::{Complex, Float};
use std::f64::consts::{LN_10, LN_2, PI};

mod invert;
mod moment;
mod nested;
mod nested64;
mod pld;
mod rdp;
use invert::{
    chernoff_upper, ln_moment_total_f64, ln_saddle_objective, pole_gap, saddle, saddle_complement,
    scan_dampings, shift, Inversion,
};
use moment::{
    lipschitz_rel, ln_cut_loss, ln_expm1, ln_float, ln_ibp_constant, ln_moment_f64, quad_part,
    sinc_gap, step_deficit, step_parts, uniform_parts, MixEval,
};
pub use rdp::{composed_rdp, rdp_route, RdpRoute};

/// Largest noise multiplier of a subsampled release (q < 1) the bracket accepts.
pub(crate) const MAX_SUBSAMPLED_SIGMA: f64 = 1e8;
/// Up to this many requested digits the inner x-sums are done in double precision with an
/// a-priori rounding bound (docs/accounting.md#fast-inner); beyond, in MPFR.
const FAST_DIGITS: u32 = 10;
/// Cap on the nodes of one x-quadrature grid.
const MAX_GRID: f64 = 1.0e6;
/// Cap on the probes of the u-tail bound.
const MAX_PROBES: usize = 20_000;
/// Cap on the nodes of the u-trapezoid.
const MAX_NODES: u64 = 16_384;
/// Largest x-grid the u-trapezoid's nodes may use before the tail bound must take over.
const NODE_GRID: f64 = 2.0e5;
/// Cap on the x-nodes summed over all probes of one tail bound (2·10⁷: enough for add/remove at
/// q = 0.01, σ = 0.5, T = 1000, whose far-out bound starts near u ≈ 2,100; docs/accounting.md, Limits).
const PROBE_WORK: f64 = 2.0e8;

/// One kind of release in a schedule (sensitivity 1, add/remove neighbours).
#[derive(Clone, Debug)]
pub enum Release {
    /// The Gaussian mechanism N(0, σ²) against N(1, σ²): noise multiplier σ.
    Gaussian {
        /// Noise multiplier σ > 0.
        sigma: Scalar,
    },
    /// The Poisson-subsampled Gaussian (see [`SubsampledGaussian`]).
    Subsampled(SubsampledGaussian),
    /// The Poisson-subsampled Gaussian under substitution (replace-one) neighbours, clip norm 1:
    /// (1−q)N(0, σ²) + qN(1, σ²) against (1−q)N(0, σ²) + qN(−1, σ²), a symmetric pair
    /// (`docs/accounting.md#substitution`). Rényi DP, the RDP route and the two-sided
    /// δ(ε)/ε(δ) bracket support it for every q (q = 1 is exactly the Gaussian mechanism with
    /// sensitivity 2; `docs/accounting.md#substitution-composition` for q < 1).
    Substitution(SubsampledGaussian),
}

impl std::fmt::Display for Release {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Release::Gaussian { sigma } => write!(f, "gaussian(sigma={sigma})"),
            Release::Subsampled(m) => {
                write!(f, "subsampled_gaussian(q={}, sigma={})", m.q(), m.sigma())
            }
            Release::Substitution(m) => write!(
                f,
                "subsampled_gaussian(q={}, sigma={}, neighbours=substitution)",
                m.q(),
                m.sigma()
            ),
        }
    }
}

/// A composition: each release applied `count` times, in any order (composition commutes).
#[derive(Clone, Debug)]
pub struct Schedule {
    parts: Vec<(Release, u64)>,
}

impl Schedule {
    /// Validates the parts: at least one, every count ≥ 1, total steps ≤ 10¹².
    pub fn new(parts: Vec<(Release, u64)>) -> Result<Self> {
        if parts.is_empty() {
            return Err(Error::invalid("schedule", "[]", "at least one release"));
        }
        let mut total: u64 = 0;
        for (r, n) in &parts {
            if *n == 0 {
                return Err(Error::invalid(&format!("count of {r}"), n, ">= 1"));
            }
            match r {
                Release::Gaussian { sigma } => {
                    let s = sigma.f64();
                    if !(s.is_finite() && s > 0.0) {
                        return Err(Error::invalid("sigma", sigma, "finite and > 0"));
                    }
                }
                // Checked before any allocation or search: the x-ranges of the moment scale
                // with σ (σ = 1.8e308 made them infinite and the search never ended). Beyond
                // the limit the release is essentially free (even the unsubsampled Gaussian has
                // μ = √T/σ ≤ 10⁻² at 10¹² steps), and kind = "gaussian" gives its certified
                // closed form, an upper bound.
                Release::Subsampled(m) | Release::Substitution(m)
                    if m.q().f64() < 1.0 && m.sigma().f64() > MAX_SUBSAMPLED_SIGMA =>
                {
                    return Err(Error::invalid(
                        &format!("sigma of {r}"),
                        m.sigma(),
                        &format!(
                            "at most {MAX_SUBSAMPLED_SIGMA:e} for a subsampled release (a larger \
                             sigma is essentially no privacy loss: kind = \"gaussian\" with the \
                             same sigma gives a certified upper bound)"
                        ),
                    ));
                }
                _ => {}
            }
            total = total.saturating_add(*n);
        }
        let subst = parts
            .iter()
            .filter(|(r, _)| matches!(r, Release::Substitution(_)))
            .count();
        if subst != 0 && subst != parts.len() {
            return Err(Error::invalid(
                "neighbours",
                "mixed",
                "one neighbouring relation for the whole schedule (all add_remove or all \
                 substitution)",
            ));
        }
        if total > 1_000_000_000_000 {
            return Err(Error::invalid("steps", total, "at most 1e12 in all"));
        }
        Ok(Schedule { parts })
    }

    /// T steps of one subsampled Gaussian.
    pub fn homogeneous(m: &SubsampledGaussian, steps: u64) -> Result<Self> {
        Schedule::new(vec![(Release::Subsampled(m.clone()), steps)])
    }

    /// T steps of one subsampled Gaussian under substitution neighbours.
    pub fn homogeneous_substitution(m: &SubsampledGaussian, steps: u64) -> Result<Self> {
        Schedule::new(vec![(Release::Substitution(m.clone()), steps)])
    }

    /// Whether some release is under substitution neighbours (then all are).
    pub fn is_substitution(&self) -> bool {
        self.parts
            .iter()
            .any(|(r, _)| matches!(r, Release::Substitution(_)))
    }

    /// The parts.
    pub fn parts(&self) -> &[(Release, u64)] {
        &self.parts
    }

    /// Total number of releases.
    pub fn steps(&self) -> u64 {
        self.parts.iter().map(|(_, n)| n).sum()
    }

    /// The factors of one neighbour direction; Gaussian parts (and q = 1) are merged into one
    /// Gaussian factor with 1/σ² = Σ T_j/σ_j².
    fn factors(&self, order: Dir, prec: u32) -> Vec<Factor> {
        let mut inv_s2 = Float::new(prec);
        let mut out = Vec::new();
        for (r, n) in &self.parts {
            match r {
                Release::Gaussian { sigma } => {
                    let s = sigma.mp(prec);
                    inv_s2 += Float::with_val(prec, *n) / Float::with_val(prec, s.square_ref());
                }
                Release::Subsampled(m) if m.q().mp(prec) == 1 => {
                    let s = m.sigma().mp(prec);
                    inv_s2 += Float::with_val(prec, *n) / Float::with_val(prec, s.square_ref());
                }
                Release::Subsampled(m) => out.push(Factor::Mix(Mix::new(m, *n, order, prec))),
                // q = 1: N(1, σ²) against N(−1, σ²), the Gaussian mechanism with sensitivity 2,
                // i.e. 1/σ'² = 4/σ².
                Release::Substitution(m) if m.q().mp(prec) == 1 => {
                    let s = m.sigma().mp(prec);
                    inv_s2 += Float::with_val(prec, *n * 4) / Float::with_val(prec, s.square_ref());
                }
                Release::Substitution(m) => out.push(Factor::Mix(Mix::substitution(m, *n, prec))),
            }
        }
        if !inv_s2.is_zero() {
            out.push(Factor::Gauss { inv_s2 });
        }
        out
    }

    fn mu_if_gaussian(&self, prec: u32) -> Option<Float> {
        let f = self.factors(Dir::Remove, prec);
        match f.as_slice() {
            [Factor::Gauss { inv_s2 }] => Some(Float::with_val(prec, inv_s2.sqrt_ref())),
            _ => None,
        }
    }
}

/// A certified two-sided bracket [lo, hi] ∋ the exact value.
#[derive(Clone, Debug, PartialEq)]
pub struct Bracket {
    /// Lower end.
    pub lo: Float,
    /// Upper end.
    pub hi: Float,
}

impl Bracket {
    /// Midpoint.
    pub fn mid(&self) -> Float {
        let p = self.lo.prec().max(self.hi.prec());
        Float::with_val(p, &self.lo + &self.hi) / 2u32
    }

    /// Width relative to the midpoint (0 for a point, ∞ when the midpoint is 0).
    pub fn rel_width(&self) -> f64 {
        // In the brackets' precision: far-tail ends (δ below 1e-308) would underflow a double,
        // and a width read as 0 would claim every digit.
        let p = self.lo.prec().max(self.hi.prec());
        let w = Float::with_val(p, &self.hi - &self.lo);
        let m = self.mid().abs();
        if w.is_zero() {
            0.0
        } else if m.is_zero() {
            f64::INFINITY
        } else {
            Float::with_val(p, w / m).to_f64()
        }
    }

    /// Significant digits of the midpoint that the width certifies: ⌊−log₁₀(width/2/|mid|)⌋.
    pub fn digits(&self) -> u32 {
        let r = self.rel_width() / 2.0;
        if r == 0.0 {
            return 60;
        }
        (-r.log10()).floor().clamp(0.0, 60.0) as u32
    }

    fn point(x: Float) -> Bracket {
        Bracket {
            lo: x.clone(),
            hi: x,
        }
    }

    /// The bracket of a value certified to `c.digits` significant digits: |x − v| < 10^−d·|v|.
    fn from_certified(c: &crate::numeric::mp::Certified) -> Bracket {
        let p = c.value.prec();
        let ten = Float::with_val(p, 10u32);
        let r = Float::with_val(p, -Float::with_val(p, c.digits)) * ten.ln();
        let w = Float::with_val(p, r.exp() * Float::with_val(p, c.value.abs_ref()));
        Bracket {
            lo: Float::with_val(p, &c.value - &w),
            hi: Float::with_val(p, &c.value + &w),
        }
    }

    fn max(a: &Bracket, b: &Bracket) -> Bracket {
        Bracket {
            lo: a.lo.clone().max(&b.lo),
            hi: a.hi.clone().max(&b.hi),
        }
    }
}

/// Result of a composition query: the mechanism's bracket (worst case over the two neighbour
/// directions) and each direction's.
#[derive(Clone, Debug)]
pub struct Composed {
    /// The mechanism: remove and add directions combined (max).
    pub value: Bracket,
    /// Remove direction, D(P^T‖Q^T).
    pub remove: Bracket,
    /// Add direction, D(Q^T‖P^T).
    pub add: Bracket,
    /// How it was computed: "gaussian closed form", "mgf inversion", "mgf inversion of
    /// 1 - delta" ([`COMPLEMENT_ROUTE`]), "total variation bound" ([`TV_ROUTE`]), "small-T
    /// nested integration" (or its double-precision form) or "discretised convolution (double
    /// precision)".
    pub route: &'static str,
    /// Damping (saddle) a of the remove direction's inversion (NaN for the closed form).
    pub saddle: f64,
    /// Evaluations of a single-step moment M(s) at complex s (a cost measure).
    pub moment_evals: usize,
}

impl Composed {
    /// An exactly Gaussian schedule: both directions are the same closed-form value.
    fn closed_form(c: &crate::numeric::mp::Certified) -> Composed {
        let b = Bracket::from_certified(c);
        Composed {
            value: b.clone(),
            remove: b.clone(),
            add: b,
            route: "gaussian closed form",
            saddle: f64::NAN,
            moment_evals: 0,
        }
    }
}

/// Options for [`delta_for_eps`] / [`eps_for_delta`].
#[derive(Clone, Debug)]
pub struct ComposeOptions {
    /// Target significant digits of δ (the ε bracket follows; 20 by default).
    pub digits: u32,
    /// Use the MGF inversion whatever the schedule: even when it is exactly Gaussian, and where
    /// the small-T or the discretised route would answer (tests the general route against the
    /// closed form and the other routes against it).
    pub force_inversion: bool,
}

impl Default for ComposeOptions {
    fn default() -> Self {
        ComposeOptions {
            digits: 20,
            force_inversion: false,
        }
    }
}

/// Which neighbour direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dir {
    Remove,
    Add,
}

/// One subsampled-Gaussian factor M(s)^count of one direction: remove uses β = s, add β = 1 − s
/// in E_Q[r^β] (docs/accounting.md#single-step).
#[derive(Clone, Debug)]
struct Mix {
    q: Float,
    sigma: Float,
    qf: f64,
    sf: f64,
    count: u64,
    flip: bool,
    /// Substitution neighbours: the pair (1−q)N(0,σ²)+qN(1,σ²) vs (1−q)N(0,σ²)+qN(−1,σ²), whose
    /// likelihood ratio is r₊/r₋ (docs/accounting.md#substitution-composition). The pair is
    /// symmetric, so both directions use the same (unflipped) factor.
    subst: bool,
    /// The analytic cut of the loss's right tail (remove direction only; set by the inversion,
    /// docs/accounting.md#tail-cut): the step's law weighted by w(x) = 1/(1 + e^{λ(x − x_c)}).
    cut: Option<Cut>,
}

/// The weight w(x) = 1/(1 + e^{λ(x − x_c)}) of a cut factor (docs/accounting.md#tail-cut): in
/// (0, 1) on ℝ, analytic with |w(x + iy)| ≤ (2/√3)·w(x) on the strip |y| ≤ π/(3λ), and
/// w(x) ≤ e^{−λ(x − x_c)}, 1 − w(x) ≤ min(1, e^{λ(x − x_c)}).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cut {
    xc: f64,
    lam: f64,
}

#[derive(Clone, Debug)]
enum Factor {
    /// exp(s(s−1)/(2σ²)) with 1/σ² = inv_s2 (count already folded in).
    Gauss {
        inv_s2: Float,
    },
    Mix(Mix),
}

impl Mix {
    fn new(m: &SubsampledGaussian, count: u64, dir: Dir, prec: u32) -> Mix {
        Mix {
            q: m.q().mp(prec),
            sigma: m.sigma().mp(prec),
            qf: m.q().f64(),
            sf: m.sigma().f64(),
            count,
            flip: dir == Dir::Add,
            subst: false,
            cut: None,
        }
    }

    /// A substitution factor (the same in both directions: the pair is symmetric).
    fn substitution(m: &SubsampledGaussian, count: u64, prec: u32) -> Mix {
        Mix {
            subst: true,
            ..Mix::new(m, count, Dir::Remove, prec)
        }
    }

    fn describe(&self) -> String {
        let dir = if self.subst {
            "substitution"
        } else if self.flip {
            "add"
        } else {
            "remove"
        };
        format!(
            "subsampled_gaussian(q={}, sigma={}, {dir})",
            self.qf, self.sf
        )
    }

    /// The same factor without its tail cut.
    fn uncut(&self) -> Mix {
        Mix {
            cut: None,
            ..self.clone()
        }
    }

    /// Real part b of β for s = a + iu.
    fn b(&self, a: f64) -> f64 {
        if self.flip {
            1.0 - a
        } else {
            a
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Public entry points.
// ---------------------------------------------------------------------------------------------

fn check_eps(eps: &Scalar) -> Result<f64> {
    let e = eps.f64();
    if !(e.is_finite() && (0.0..=1000.0).contains(&e)) {
        return Err(Error::invalid("eps", eps, "finite, in [0, 1000]"));
    }
    Ok(e)
}

/// δ in (0, 1) as a double (the composition works with δ in f64; a δ that underflows is refused).
fn check_delta(delta: &Scalar) -> Result<f64> {
    delta.open_unit_double("delta")
}

fn working_prec(digits: u32, sched: &Schedule) -> u32 {
    bits_for_digits(digits + 12) + 32 + (sched.steps() as f64).log2().ceil() as u32
}

fn ln_rel_for(digits: u32) -> f64 {
    ln_rel_extra(digits, 6.0)
}

/// The inversion's relative target for δ at `digits` requested digits plus `extra` guard digits.
fn ln_rel_extra(digits: u32, extra: f64) -> f64 {
    -(f64::from(digits) + extra) * LN_10
}

/// Guard digits of the inversion's first try at ≤ [`FAST_DIGITS`] requested digits: a δ
/// bracket 10^−(d+2) wide certifies d digits of δ, and of ε(δ) whenever ε·|d ln δ/dε| ≥ 0.04,
/// which holds on most points of the grid survey; when the answer falls short, the direction is
/// computed again with more ([`with_guard`], docs/accounting.md#guard-digits).
const FIRST_GUARD: f64 = 2.0;

/// One direction by `at(extra guard digits, first try's bracket)`: first with [`FIRST_GUARD`]
/// when at most [`FAST_DIGITS`] digits are asked for; when that certifies k digits too few,
/// again with k + 1 more guard digits (if fewer than 6); finally with 6 (unless the time limit
/// has passed). The first try's bracket, when it has a digit, is passed on as a start.
fn with_guard(
    digits: u32,
    at: impl Fn(f64, Option<&Bracket>) -> Result<DirBracket>,
) -> Result<DirBracket> {
    let expired = || crate::numeric::deadline::expired().is_some();
    if digits <= FAST_DIGITS {
        let (next, first) = match at(FIRST_GUARD, None) {
            Ok(b) if b.0.digits() >= digits => return Ok(b),
            // Short by k digits: k more guard digits and one spare; a bracket with a digit is
            // the retry's start.
            Ok(b) => {
                let k = digits - b.0.digits();
                let first = (b.0.digits() >= 1).then_some(b.0);
                (FIRST_GUARD + f64::from(k) + 1.0, first)
            }
            Err(e) if expired() => return Err(e),
            Err(_) => (6.0, None),
        };
        if next < 6.0 {
            match at(next, first.as_ref()) {
                Ok(b) if b.0.digits() >= digits => return Ok(b),
                Err(e) if expired() => return Err(e),
                _ => {}
            }
        }
        return at(6.0, first.as_ref());
    }
    at(6.0, None)
}

fn precision_error(digits: u32, got: u32, what: &str) -> Error {
    Error::Precision {
        narrowest: None,
        requested: digits,
        certified: got,
        what: what.to_string(),
    }
}

/// δ(ε) of one direction as a bracket.
fn delta_dir(factors: &[Factor], eps: &Float, digits: u32, prec: u32) -> Result<DirBracket> {
    with_guard(digits, |extra, _| {
        delta_dir_at(factors, eps, digits, prec, extra)
    })
}

/// [`delta_dir`] with `extra` guard digits in the inversion's target.
fn delta_dir_at(
    factors: &[Factor],
    eps: &Float,
    digits: u32,
    prec: u32,
    extra: f64,
) -> Result<DirBracket> {
    let inv = Inversion::build(
        factors,
        eps.to_f64(),
        ln_rel_extra(digits, extra),
        prec,
        digits <= FAST_DIGITS,
        None,
    )?;
    let (v, ln_err, _) = inv.delta(eps);
    // The requested digits must be certified by the bound itself: relative error ≤ 10^-digits
    // (a bracket that merely contains δ, e.g. [0, 1e57], is not an answer).
    let ln_v = if v > 0 {
        moment::ln_float(&v)
    } else {
        f64::NEG_INFINITY
    };
    let got = ((ln_v - ln_err) / LN_10).floor();
    // NaN (v = 0 with an infinite error) counts as uncertified too.
    if got.is_nan() || got < f64::from(digits) {
        return Err(precision_error(
            digits,
            got.clamp(0.0, f64::from(digits)) as u32,
            "composition: the delta bracket",
        ));
    }
    let lo = shift(&v, ln_err, false, prec).max(&Float::new(prec));
    // δ(ε) ≤ 1 for every ε ≥ 0 (a difference of a probability and a non-negative term).
    let hi = shift(&v, ln_err, true, prec).min(&Float::with_val(prec, 1u32));
    Ok((Bracket { lo, hi }, inv.moment_evals, inv.a))
}

/// Certified δ(ε) of the composition, both directions, to `digits` significant digits where δ is
/// not negligible.
pub fn delta_for_eps(sched: &Schedule, eps: &Scalar, opts: &ComposeOptions) -> Result<Composed> {
    delta_for_eps_inner(sched, eps, opts)
        .and_then(|c| enough_digits(c, opts.digits, "delta(eps)"))
        .map_err(|e| user_digits(e, opts.digits))
}

/// The answer only if its bracket certifies the digits asked for: a route that ran out of
/// budget may return a wider bracket than asked (it contains the value, but 0 digits of it are
/// not an answer to a request for 6; `account --q 0.001 --steps 3` returned exit 0 with such a
/// bracket). A point (width 0) certifies every digit.
fn enough_digits(c: Composed, digits: u32, what: &str) -> Result<Composed> {
    let got = c.value.digits();
    if got >= digits.min(60) {
        return Ok(c);
    }
    Err(Error::Precision {
        requested: digits,
        certified: got,
        what: format!("the composition's {what} bracket"),
        narrowest: Some(Box::new(crate::error::Narrowest {
            lo: c
                .value
                .lo
                .to_string_radix_round(10, Some(9), rug::float::Round::Down),
            hi: c
                .value
                .hi
                .to_string_radix_round(10, Some(9), rug::float::Round::Up),
            route: c.route.to_string(),
        })),
    })
}

/// A precision error in the user's terms: the digits they asked for, not an internal target
/// (guard digits, a search at fewer digits, or 0 from a step that has no digit count).
fn user_digits(mut e: Error, digits: u32) -> Error {
    if let Error::Precision {
        requested,
        certified,
        ..
    } = &mut e
    {
        *requested = digits;
        *certified = (*certified).min(digits.saturating_sub(1));
    }
    e
}

fn delta_for_eps_inner(sched: &Schedule, eps: &Scalar, opts: &ComposeOptions) -> Result<Composed> {
    check_eps(eps)?;
    if let (false, Some((m, t))) = (opts.force_inversion, nested::applies(sched, opts.digits)) {
        if t >= 2 && opts.digits <= nested64::MAX_DIGITS {
            return nested64::delta_for_eps(&m, t as u32, eps, opts.digits.clamp(1, 60));
        }
        return nested::delta_for_eps(&m, t, eps, opts.digits.clamp(1, 60));
    }
    let mut fallback = None;
    // First where measured faster (`pld::applies`), and at any σ where T·q is at most
    // `pld::TINY_TQ` (docs/accounting.md#hits).
    let first = pld::applies(sched, opts.digits, true).or_else(|| {
        pld::accepts(sched, opts.digits).filter(|(m, t)| m.q().f64() * (*t as f64) <= pld::TINY_TQ)
    });
    let need = opts.digits.min(60);
    let discretised = |m: &SubsampledGaussian, t: u64, blocks: bool| {
        pld::delta_for_eps(sched, m, t, eps, opts.digits.clamp(1, 60), blocks)
    };
    if let (false, Some((m, t))) = (opts.force_inversion, &first) {
        match discretised(m, *t, false) {
            Ok(c) if c.value.digits() >= need => return Ok(c),
            Ok(c) => fallback = Some(c),
            Err(_) => {}
        }
    }
    let closed = |mu: &Float, p: u32| Ok(Float::with_val(p, log_dp_delta_mp(mu, &eps.mp(p)).exp()));
    let inverted = compose_both(
        sched,
        eps,
        opts,
        "Gaussian composition delta",
        closed,
        delta_dir,
        true,
    );
    // When the inversion falls short too (far tails at tiny q, where its integrand decays
    // slowly), the discretised route tries again composing by blocks of the largest step from
    // its first pass (docs/accounting.md#blocks), for any T ≥ 4 subsampled release: slower than
    // one tilt where one suffices, which is why it is not the first try.
    let short = !matches!(&inverted, Ok(c) if c.value.digits() >= need);
    if let (false, true, Some((m, t))) = (
        opts.force_inversion,
        short,
        pld::accepts(sched, opts.digits),
    ) {
        let got = fallback.as_ref().map_or(0, |c: &Composed| c.value.digits());
        match discretised(&m, t, true) {
            Ok(c) if c.value.digits() > got => fallback = Some(c),
            _ => {}
        }
    }
    better_of(inverted, fallback)
}

/// The inversion's answer, or the discretised route's narrower bracket that fell short of the
/// digits (then [`enough_digits`] reports it, with its digits, rather than the inversion's
/// failure: `account --q 0.001 --sigma 5 --steps 1000 --eps 0.1` said "only 0 certified" where
/// the discretised route had certified 2), or its bracket of as many digits where the inversion
/// has none (below the floor, [0, 2·10⁻³⁰⁰]), or whenever the inversion's refusal carries no
/// bracket (its digit count alone bounds nothing: stop 50's step part gives the inversion 1 digit
/// of δ(30) ≈ e^{−15000} at q = 0.01, σ = 5, T = 100, and the refusal still reports the route's
/// certified [0, 2·10⁻³⁰⁰]).
fn better_of(inverted: Result<Composed>, fallback: Option<Composed>) -> Result<Composed> {
    let Some(f) = fallback else {
        return inverted;
    };
    let got = match &inverted {
        Ok(c) => c.value.digits(),
        Err(Error::Precision { certified, .. }) => *certified,
        Err(_) => 0,
    };
    let bare = matches!(
        &inverted,
        Err(Error::Precision {
            narrowest: None,
            ..
        })
    );
    // At equal digits (none, below the route's floor of 10⁻³⁰⁰), the route's bracket still bounds
    // δ from above where the inversion has no bracket to report.
    if f.value.digits() > got || bare || (f.value.digits() == got && inverted.is_err()) {
        Ok(f)
    } else {
        inverted
    }
}

/// One direction's bracket, with the moment evaluations it took and the saddle point.
type DirBracket = (Bracket, usize, f64);

/// The profile point of the composition at `x` (ε for δ(ε), δ for ε(δ)), both directions: the
/// certified Gaussian closed form `closed(μ, precision)` (named `what`) when the schedule
/// composes to a Gaussian and inversion is not forced; otherwise `dir` on each direction's
/// factors, the larger bracket (`x_is_eps`: the query is δ(ε)).
#[allow(clippy::too_many_arguments)]
fn compose_both(
    sched: &Schedule,
    x: &Scalar,
    opts: &ComposeOptions,
    what: &str,
    closed: impl Fn(&Float, u32) -> Result<Float>,
    dir: fn(&[Factor], &Float, u32, u32) -> Result<DirBracket>,
    x_is_eps: bool,
) -> Result<Composed> {
    let digits = opts.digits.clamp(1, 60);
    let prec = working_prec(digits, sched);
    if !opts.force_inversion {
        if let Some(mu) = sched.mu_if_gaussian(prec + 64) {
            let c =
                crate::numeric::mp::certify(digits, what, |p| closed(&Float::with_val(p, &mu), p))?;
            return Ok(Composed::closed_form(&c));
        }
    }
    // δ carries 64 bits more than the working precision: its rounding error then bounds cleanly
    // (`rounding_pair`), and 1 − δ keeps its relative accuracy for δ near 1.
    let x = x.mp(if x_is_eps { prec } else { prec + GUARD_BITS });
    let (rm, n1, a) = dir(&sched.factors(Dir::Remove, prec), &x, digits, prec)?;
    // Substitution pairs are symmetric: the add direction is the same composition.
    let (ad, n2, _) = if sched.is_substitution() {
        (rm.clone(), 0, a)
    } else if let Some(b) = add_direction_by_its_range(sched, &x, &rm, x_is_eps, prec) {
        (b, 0, a)
    } else {
        add_direction(sched, &x, &rm, x_is_eps, digits, prec, dir)?
    };
    Ok(Composed {
        value: Bracket::max(&rm, &ad),
        remove: rm,
        add: ad,
        // The remove direction's line: between the poles for the complementary inversion.
        route: if a > 0.0 && a < 1.0 {
            COMPLEMENT_ROUTE
        } else {
            "mgf inversion"
        },
        saddle: a,
        moment_evals: n1 + n2,
    })
}

/// The add direction, as cheaply as it settles the mechanism's value (the larger of the two
/// directions; docs/accounting.md#add-scout): the certified Chernoff bound [0, bound] when it is
/// below the remove direction's lower end; for ε(δ), [0, ε_lo of the remove direction] when a
/// one-digit δ_add there is at most δ; else `dir` to [`ADD_SCOUT_DIGITS`] digits when that
/// bracket is below it; else `dir` at the requested digits.
fn add_direction(
    sched: &Schedule,
    x: &Float,
    rm: &Bracket,
    x_is_eps: bool,
    digits: u32,
    prec: u32,
    dir: fn(&[Factor], &Float, u32, u32) -> Result<DirBracket>,
) -> Result<DirBracket> {
    let factors = sched.factors(Dir::Add, prec);
    // The Chernoff bound costs one certified real moment.
    if let Ok(Some(up)) = chernoff_upper(&factors, x.to_f64(), x_is_eps, rm.lo.to_f64(), prec) {
        let hi = Float::with_val(prec, up);
        if hi <= rm.lo {
            let lo = Float::new(prec);
            return Ok((Bracket { lo, hi }, 0, 0.0));
        }
    }
    if !x_is_eps && rm.lo > 0 {
        // ε(δ): ε_add ≤ ε_lo of the remove direction iff δ_add(ε_lo) ≤ δ (δ_add is
        // non-increasing), first by the discretised route's upper pair (one FFT where it
        // reaches), else by one δ(ε) inversion at a known ε, to one digit.
        let settled = if pld::add_settles(sched, &rm.lo, x) {
            Some((0, 0.0))
        } else if near_one(x) {
            complement_settles(&factors, &rm.lo, x, prec)
        } else {
            match delta_dir(&factors, &rm.lo, 1, prec) {
                Ok((b, n, a)) if b.hi <= rounding_pair(x, false).0 => Some((n, a)),
                _ => None,
            }
        };
        if let Some((n, a)) = settled {
            let lo = Float::new(prec);
            return Ok((
                Bracket {
                    lo,
                    hi: rm.lo.clone(),
                },
                n,
                a,
            ));
        }
    }
    if digits > ADD_SCOUT_DIGITS {
        if let Ok(b) = dir(&factors, x, ADD_SCOUT_DIGITS, prec) {
            if b.0.hi < rm.lo {
                return Ok(b);
            }
        }
        if let Some(limit) = crate::numeric::deadline::expired() {
            return Err(precision_error(
                digits,
                0,
                &format!("composition (time limit of {limit} s reached)"),
            ));
        }
    }
    dir(&factors, x, digits, prec)
}

/// Whether δ(ε) ≤ δ is certified for δ > 1/2 by one complementary inversion at ε, to one digit
/// of 1 − δ(ε): its lower end at least 1 − δ. Some((moment evaluations, damping)) if so.
fn complement_settles(
    factors: &[Factor],
    eps: &Float,
    delta: &Float,
    prec: u32,
) -> Option<(usize, f64)> {
    let (_, gamma) = rounding_pair(delta, true);
    let inv = Inversion::build_complement(
        factors,
        eps.to_f64().max(1e-6),
        ln_rel_extra(1, 0.0),
        prec,
        true,
        Some(ln_float(&gamma)),
    )
    .ok()?;
    let (v, ln_err, _) = inv.complement(eps);
    (shift(&v, ln_err, false, prec) >= gamma).then_some((inv.moment_evals, inv.a))
}

/// Digits of the add direction's first, cheap computation ([`add_direction`]).
const ADD_SCOUT_DIGITS: u32 = 2;

/// Upper bound (rounded up) on the add direction's privacy loss, −Σ T_j ln(1 − q_j), when every
/// release is a subsampled Gaussian with q < 1 under add/remove neighbours (the add loss of one
/// step is −ln r(x) ≤ −ln(1 − q), since r ≥ 1 − q); None when some release is Gaussian (its loss
/// is unbounded) or the schedule is under substitution.
fn add_loss_max(sched: &Schedule, prec: u32) -> Option<Float> {
    let mut acc = Float::new(prec);
    for (r, n) in sched.parts() {
        match r {
            Release::Subsampled(m) if m.q().mp(prec) < 1 => {
                let q = m.q().mp(prec);
                let l = -Float::with_val(prec, (-q).ln_1p());
                acc += l * Float::with_val(prec, *n);
            }
            _ => return None,
        }
    }
    // A relative margin far above the few roundings of this sum.
    let margin = Float::with_val(prec, &acc >> (prec as i32 - 16));
    Some(acc + margin)
}

/// The add direction without computing it, when its bounded range settles it (docs/accounting.md,
/// "The add direction's range"): its loss is at most ε_max = −Σ T_j ln(1 − q_j), so δ_add(ε) = 0
/// exactly for ε ≥ ε_max, and ε_add(δ) ∈ [0, ε_max] for every δ > 0 — which leaves the mechanism's
/// ε(δ) = max(ε_remove, ε_add) equal to the remove direction's when its certified ε_lo ≥ ε_max.
/// None when the add direction must be computed.
fn add_direction_by_its_range(
    sched: &Schedule,
    x: &Float,
    rm: &Bracket,
    x_is_eps: bool,
    prec: u32,
) -> Option<Bracket> {
    let emax = add_loss_max(sched, prec)?;
    if x_is_eps {
        (*x >= emax).then(|| Bracket::point(Float::new(prec)))
    } else {
        (rm.lo >= emax).then(|| Bracket {
            lo: Float::new(prec),
            hi: emax,
        })
    }
}

/// ε(δ) of one direction: [ε_lo, ε_hi] with δ_lower(ε_lo) ≥ δ ≥ δ_upper(ε_hi). Above δ = 1/2
/// the complementary inversion of 1 − δ(ε) ([`eps_dir_complement_at`]) serves too: first from
/// [`COMPLEMENT_FIRST`] on, where the direct inversion cannot resolve 1 − δ, second below it; the
/// second is tried when the first falls short of the digits (and, for the direct one, only while
/// 1 − δ ≥ 10⁻⁴), and the narrower bracket is kept (docs/accounting.md#complement).
fn eps_dir(factors: &[Factor], delta: &Float, digits: u32, prec: u32) -> Result<DirBracket> {
    let direct = || {
        with_guard(digits, |extra, first| {
            eps_dir_at(factors, delta, digits, prec, extra, first)
        })
    };
    if *delta <= 0.5f64 {
        return direct();
    }
    let comp = || {
        with_guard(digits, |extra, first| {
            eps_dir_complement_at(factors, delta, digits, prec, extra, first)
        })
    };
    let got = |r: &Result<DirBracket>| r.as_ref().map_or(0, |b| b.0.digits());
    let near = near_one(delta);
    let first = if near { comp() } else { direct() };
    if got(&first) >= digits
        || (near && *delta > 0.9999f64)
        || crate::numeric::deadline::expired().is_some()
    {
        return first;
    }
    let second = if near { direct() } else { comp() };
    if got(&second) > got(&first) || first.is_err() && second.is_ok() {
        second
    } else {
        first
    }
}

/// δ from which on (the double nearest 0.99, so the decimal 0.99 included) ε(δ) tries the
/// complementary inversion first: the sweep of
/// docs/accounting.md#complement (q ∈ [0.001, 0.5], σ ∈ [0.6, 5], T ∈ [10, 10⁵]) had every
/// δ ≤ 0.99 answered by the direct inversion, and small σ at small T (q = 0.9, σ = 0.3, T = 4,
/// δ = 0.51) answered by it in 4.8 s where the complement certifies 3 digits in 17 s.
const COMPLEMENT_FIRST: f64 = 0.99;

/// Whether ε(δ) is searched on 1 − δ(ε) first (docs/accounting.md#complement): near δ = 1 the
/// complement is the small number, and a relative error on it is the finer one. 1 − δ is exact
/// in binary floating point above 1/2 (Sterbenz).
fn near_one(delta: &Float) -> bool {
    *delta >= COMPLEMENT_FIRST
}

/// ε(δ) of one direction for δ > 1/2 from the complementary inversion ([`Inversion::complement`],
/// docs/accounting.md#complement): with γ = 1 − δ and 1 − δ(ε) non-decreasing in ε,
/// [ε_lo, ε_hi] with (1 − δ)_upper(ε_lo) ≤ γ ≤ (1 − δ)_lower(ε_hi). The start is the largest of
/// the bounds ε ≥ (ln γ − ln Π M(a)^T)/(1 − a), a ∈ (0, 1), from 1 − δ(ε) = E_Q[min(R, e^ε)]
/// ≤ Π M(a)^T e^{(1−a)ε} (min(x, y) ≤ x^a y^{1−a}).
fn eps_dir_complement_at(
    factors: &[Factor],
    delta: &Float,
    digits: u32,
    prec: u32,
    extra: f64,
    first: Option<&Bracket>,
) -> Result<DirBracket> {
    let gamma = Float::with_val(delta.prec(), 1u32 - delta);
    let ln_gamma = ln_float(&gamma);
    let mut eps0 = match first {
        Some(b) => b.mid().to_f64(),
        None => (1..64)
            .map(|k| {
                let a = f64::from(k) / 64.0;
                (ln_gamma - ln_moment_total_f64(factors, a)) / (1.0 - a)
            })
            .filter(|v| v.is_finite())
            .fold(0.0, f64::max),
    };
    let ln_rel = ln_rel_extra(digits, extra);
    let mut evals = 0;
    for pass in 0..4 {
        let inv = Inversion::build_complement(
            factors,
            eps0.max(1e-6),
            ln_rel,
            prec,
            digits <= FAST_DIGITS,
            Some(ln_gamma),
        )?;
        evals += inv.moment_evals;
        let read = |e: &Float| inv.complement(e);
        let e = solve_monotone(&read, &gamma, true, eps0, prec)?;
        let ef = e.to_f64();
        let a_here = saddle_complement(factors, ef.max(1e-6));
        if (a_here - inv.a).abs() > 0.25 * pole_gap(inv.a) && pass < 3 {
            eps0 = ef;
            continue;
        }
        return certified_ends(&read, delta, true, &e, prec, digits).map(|b| (b, evals, inv.a));
    }
    Err(unsettled(digits))
}

/// [`certify_ends`] against the rounding interval of δ (or of 1 − δ, `complement`), or the
/// error of an ε bracket that could not be certified.
fn certified_ends(
    read: &dyn Fn(&Float) -> (Float, f64, Float),
    delta: &Float,
    complement: bool,
    e: &Float,
    prec: u32,
    digits: u32,
) -> Result<Bracket> {
    certify_ends(read, &rounding_pair(delta, complement), complement, e, prec)
        .ok_or_else(|| precision_error(digits, 0, "composition: could not certify the eps bracket"))
}

/// The error of an ε(δ) search whose damping kept moving.
fn unsettled(digits: u32) -> Error {
    precision_error(digits, 0, "composition: damping did not settle")
}

/// Bits of δ beyond the working precision in an ε(δ) query ([`compose_both`]).
const GUARD_BITS: u32 = 64;

/// [lo, hi] around the exact decimal δ (`complement`: around 1 − δ) from its rounding `d` to
/// p = d.prec() bits (to nearest, so |δ − d| ≤ 2^−p·|d|, and ≤ 2^−p for 1/2 < d < 1, where
/// 1 − d is exact by Sterbenz's lemma), with directed roundings.
fn rounding_pair(d: &Float, complement: bool) -> (Float, Float) {
    use rug::float::Round;
    let p = d.prec();
    let (centre, r) = if complement {
        (
            Float::with_val(p, 1u32 - d),
            Float::with_val(p, Float::i_exp(1, -(p as i32))),
        )
    } else {
        let r = Float::with_val(p, d >> (p as i32 - 1)).abs();
        (d.clone(), r)
    };
    let lo = Float::with_val_round(p + 8, &centre - &r, Round::Down).0;
    let hi = Float::with_val_round(p + 8, &centre + &r, Round::Up).0;
    (lo, hi)
}

/// [ε_lo, ε_hi] around a root estimate `e` of a monotone reading ĝ(ε) = (value, ln of its error
/// bound, derivative) at `target` (`increasing`: g non-decreasing in ε): the ends are pushed out
/// from e ± 2·err/|ĝ′| (at least a few ulps) until g_upper(ε_lo) ≤ target ≤ g_lower(ε_hi) for
/// an increasing g, g_lower(ε_lo) ≥ target ≥ g_upper(ε_hi) for a decreasing one; ε = 0 exactly
/// when e = 0 and g at 0 is certified on the far side of the target. None after 60 widenings.
fn certify_ends(
    read: &dyn Fn(&Float) -> (Float, f64, Float),
    (t_lo, t_hi): &(Float, Float),
    increasing: bool,
    e: &Float,
    prec: u32,
) -> Option<Bracket> {
    let zero = Float::new(prec);
    // Whether ε is at or above the root: g certified past every target in [t_lo, t_hi] at ε.
    let past = |x: &Float| {
        let (v, err, _) = read(x);
        if increasing {
            shift(&v, err, false, prec) >= *t_hi
        } else {
            shift(&v, err, true, prec) <= *t_lo
        }
    };
    // Whether ε is at or below the root.
    let before = |x: &Float| {
        let (v, err, _) = read(x);
        if increasing {
            shift(&v, err, true, prec) <= *t_lo
        } else {
            shift(&v, err, false, prec) >= *t_hi
        }
    };
    if *e == zero && past(&zero) {
        return Some(Bracket::point(zero));
    }
    let ef = e.to_f64();
    let (_, ln_err, dv) = read(e);
    let ln_slope = ln_float(&Float::with_val(prec, dv.abs_ref()));
    // η = 2·err/|g′|, at least a few ulps of ε.
    let ulp = (ef.abs().max(1e-300)).ln() - f64::from(prec - 8) * LN_2;
    let mut eta = Float::with_val(prec, (LN_2 + ln_err - ln_slope).max(ulp)).exp();
    for _ in 0..60 {
        let hi = Float::with_val(prec, e + &eta);
        let lo = Float::with_val(prec, e - &eta).max(&zero);
        if past(&hi) && (lo == zero || before(&lo)) {
            return Some(Bracket { lo, hi });
        }
        eta *= 4u32;
    }
    None
}

/// [`eps_dir`] with `extra` guard digits in the inversion's target; `first` is the bracket of a
/// try with fewer guard digits, if any (the start of the search off the saddle).
fn eps_dir_at(
    factors: &[Factor],
    delta: &Float,
    digits: u32,
    prec: u32,
    extra: f64,
    first: Option<&Bracket>,
) -> Result<DirBracket> {
    let ln_delta = delta.to_f64().ln();
    // Start: the Chernoff/saddle estimate ε₀ = min_a [ln Π M(a)^T − ln(a(a−1)) − ln δ]/(a − 1).
    let mut eps0 = scan_dampings(|a| (ln_saddle_objective(factors, a, 0.0) - ln_delta) / (a - 1.0))
        .map_or(f64::INFINITY, |(v, _)| v)
        .max(0.0);
    let mut evals = 0;
    let mut ln_rel = ln_rel_extra(digits, extra);
    for pass in 0..4 {
        // Off the saddle the Chernoff start can be far from ε(δ) while the error terms depend
        // strongly on ε: a 3-digit scout finds ε first (docs/accounting.md#damping).
        if let (0, Some(b)) = (pass, first) {
            // A retry with more guard digits: the first try's answer is the start.
            eps0 = b.mid().to_f64();
        }
        let scout =
            pass == 0 && first.is_none() && Inversion::off_saddle(factors, eps0.max(1e-6), ln_rel);
        let inv = Inversion::build(
            factors,
            eps0.max(1e-6),
            if scout { ln_rel_extra(3, 0.0) } else { ln_rel },
            prec,
            digits <= FAST_DIGITS,
            Some(ln_delta),
        )?;
        evals += inv.moment_evals;
        let read = |e: &Float| inv.delta(e);
        let e = solve_monotone(&read, delta, false, eps0, prec)?;
        let ef = e.to_f64();
        let a_here = saddle(factors, ef.max(1e-6));
        let moved = if inv.a == inv.a_saddle {
            (a_here - inv.a_saddle).abs() > 0.25 * (inv.a_saddle - 1.0)
        } else {
            (ef - eps0).abs() * (inv.a + inv.d_hi - 1.0) > 1.0
        };
        if scout {
            // The δ accuracy a d-digit ε bracket needs is about 10^−d·ε·|d ln δ/dε|/4
            // (docs/accounting.md#guard-digits): when the scout's slope says the guard digits
            // fall short, the target is tightened now rather than after a failed try.
            let (v, _, dv) = inv.delta(&e);
            let k = ef * dv.to_f64().abs() / v.to_f64();
            if k.is_finite() && k > 0.0 {
                ln_rel = ln_rel.min(-f64::from(digits + 1) * LN_10 + (k / 4.0).ln());
            }
        }
        if !scout && moved && pass < 3 {
            // The damping moved with ε, but this inversion's error terms are read at the ε
            // asked (they grow off its design point, not fail): where its ends already carry
            // the digits, the re-planned pass is not needed (q = 10⁻⁶, σ = 0.6, T = 10⁶: the
            // cut pass from the Chernoff start, 2,376 nodes, certifies 8 digits; the re-planned
            // one took 3,368 more).
            if let Ok(b) = certified_ends(&read, delta, false, &e, prec, digits) {
                if b.digits() >= digits {
                    return Ok((b, evals, inv.a));
                }
            }
        }
        if scout || (moved && pass < 3) {
            eps0 = ef;
            continue;
        }
        // Certify the two ends: δ_upper(ε_hi) ≤ δ ≤ δ_lower(ε_lo) (ε = 0 exactly when
        // δ_upper(0) ≤ δ).
        return certified_ends(&read, delta, false, &e, prec, digits).map(|b| (b, evals, inv.a));
    }
    Err(unsettled(digits))
}

/// Root of ĝ(ε) = target for a monotone reading ĝ (δ̂(ε), decreasing, or 1 − δ̂(ε),
/// `increasing`) by Newton steps on ln ĝ, safeguarded by bisection inside a bracket [lo, hi]
/// with ε = lo short of the root and hi not; 0 when ε = 0 is not short of it.
fn solve_monotone(
    read: &dyn Fn(&Float) -> (Float, f64, Float),
    target: &Float,
    increasing: bool,
    eps0: f64,
    prec: u32,
) -> Result<Float> {
    let zero = Float::new(prec);
    let short = |v: &Float| {
        if increasing {
            *v < *target
        } else {
            *v > *target
        }
    };
    let above = |e: &Float| -> bool { short(&read(e).0) };
    if !above(&zero) {
        return Ok(zero);
    }
    let mut lo = zero.clone();
    let mut hi = Float::with_val(prec, eps0.max(1e-3));
    let mut grow = 0;
    while above(&hi) {
        lo = hi.clone();
        hi *= 2u32;
        grow += 1;
        if grow > 30 {
            let delta = if increasing {
                1.0 - target.to_f64()
            } else {
                target.to_f64()
            };
            return Err(Error::invalid(
                "delta",
                delta,
                "attainable: eps(delta) > 1e9",
            ));
        }
    }
    let ln_target = Float::with_val(prec, target.ln_ref());
    let mut e = Float::with_val(prec, &lo + &hi) / 2u32;
    let tol = Float::with_val(prec, 1u32) >> (prec - 8);
    for _ in 0..400 {
        let (v, _, dv) = read(&e);
        if short(&v) {
            lo = e.clone();
        } else {
            hi = e.clone();
        }
        let width = Float::with_val(prec, &hi - &lo);
        if width <= Float::with_val(prec, &tol * Float::with_val(prec, 1u32 + hi.clone().abs())) {
            break;
        }
        let mut next = if v > 0 && dv != 0 && (dv > 0) == increasing {
            let lv = Float::with_val(prec, v.ln_ref());
            let r = Float::with_val(prec, &lv - &ln_target);
            let step = Float::with_val(prec, &r * &v) / &dv;
            Float::with_val(prec, &e - &step)
        } else {
            Float::with_val(prec, &lo + &hi) / 2u32
        };
        if next <= lo || next >= hi {
            next = Float::with_val(prec, &lo + &hi) / 2u32;
        }
        let moved = Float::with_val(prec, &next - &e).abs();
        e = next;
        if moved <= Float::with_val(prec, &tol * Float::with_val(prec, 1u32 + e.clone().abs())) {
            break;
        }
    }
    Ok(e)
}

/// The route of an ε(δ) with δ > 1/2 answered by the complementary inversion
/// ([`eps_dir_complement_at`], docs/accounting.md#complement).
pub const COMPLEMENT_ROUTE: &str = "mgf inversion of 1 - delta";

/// The route of an ε(δ) answered by [`tv_settles`].
pub const TV_ROUTE: &str = "total variation bound";

/// Working precision of [`tv_upper`].
const PREC_TV: u32 = 256;

/// An upper bound on the composition's total variation distance, δ(0) of either direction (the
/// hockey-stick divergence at ε = 0 is the total variation, symmetric in the pair):
/// TV(⊗P_i, ⊗Q_i) ≤ 1 − Π_i (1 − TV_i)^{n_i} (couple each release's pair to agree with
/// probability 1 − TV_i, independently). For a release N(0, σ²) against N(1, σ²),
/// TV = erf(1/(2√2·σ)); Poisson-subsampled, the mixture's difference from N(0, σ²) is q times
/// the Gaussian pair's, so q·erf(1/(2√2·σ)); under substitution, q·TV(N(1, σ²), N(−1, σ²)) =
/// q·erf(1/(√2·σ)) (docs/accounting.md#tv-settle). At [`PREC_TV`] bits with correctly rounded
/// operations (a few dozen, each within 2⁻²⁵⁶ relative), then 2⁻²⁰⁰ added: an upper bound.
fn tv_upper(sched: &Schedule) -> Float {
    use rug::ops::Pow;
    let p = PREC_TV;
    let erf_at = |sigma: &Scalar, scale: u32| {
        // erf(scale/(2√2·σ)) with scale 1 or 2.
        let den = Float::with_val(p, 8u32).sqrt() * sigma.mp(p);
        (Float::with_val(p, scale) / den).erf()
    };
    let mut keep = Float::with_val(p, 1u32);
    for (r, n) in sched.parts() {
        let tv = match r {
            Release::Gaussian { sigma } => erf_at(sigma, 1),
            Release::Subsampled(m) => m.q().mp(p) * erf_at(m.sigma(), 1),
            Release::Substitution(m) => m.q().mp(p) * erf_at(m.sigma(), 2),
        };
        let one_minus = Float::with_val(p, 1u32) - tv;
        keep *= one_minus.pow(Float::with_val(p, *n));
    }
    Float::with_val(p, 1u32) - keep + Float::with_val(p, -200f64).exp2()
}

/// Whether ε(δ) = 0 exactly: the composition's δ(0) is certified at most δ ([`tv_upper`]
/// against δ rounded down by a relative 2⁻²⁰⁰). A query with δ at or above the total variation
/// (δ near 1, or small T and q) is answered without a route (q = 0.001, σ = 0.6, T = 10 at
/// δ = 1 − 10⁻¹² was refused before stop 43: the inversion cannot bound its tail there).
fn tv_settles(sched: &Schedule, delta: &Scalar) -> bool {
    let p = PREC_TV;
    let d = delta.mp(p);
    let d_low = Float::with_val(
        p,
        &d * (Float::with_val(p, 1u32) - Float::with_val(p, -200f64).exp2()),
    );
    tv_upper(sched) <= d_low
}

/// Certified ε(δ) of the composition: [ε_lo, ε_hi] ∋ ε(δ) for the mechanism (worst direction).
pub fn eps_for_delta(sched: &Schedule, delta: &Scalar, opts: &ComposeOptions) -> Result<Composed> {
    eps_for_delta_inner(sched, delta, opts)
        .and_then(|c| enough_digits(c, opts.digits, "eps(delta)"))
        .map_err(|e| user_digits(e, opts.digits))
}

fn eps_for_delta_inner(
    sched: &Schedule,
    delta: &Scalar,
    opts: &ComposeOptions,
) -> Result<Composed> {
    check_delta(delta)?;
    if !opts.force_inversion && tv_settles(sched, delta) {
        let zero = || Bracket::point(Float::new(PREC_TV));
        return Ok(Composed {
            value: zero(),
            remove: zero(),
            add: zero(),
            route: TV_ROUTE,
            saddle: f64::NAN,
            moment_evals: 0,
        });
    }
    if let (false, Some((m, t))) = (opts.force_inversion, nested::applies(sched, opts.digits)) {
        if t >= 2 && opts.digits <= nested64::MAX_DIGITS {
            let r = nested64::eps_for_delta(sched, &m, t as u32, delta, opts.digits.clamp(1, 60));
            // The double-precision route resolves δ to about 8 digits; an ε just below the total
            // variation's level (tiny ε, where δ must be resolved far beyond ε's digits) is
            // left to the MPFR route (T ≤ 2), which takes δ's digits from that sensitivity.
            let short = matches!(&r, Err(Error::Precision { .. }));
            if !short || t > 2 || crate::numeric::deadline::expired().is_some() {
                return r;
            }
        }
        return nested::eps_for_delta(&m, t, delta, opts.digits.clamp(1, 60));
    }
    let mut fallback = None;
    let need = opts.digits.min(60);
    let digits = opts.digits.clamp(1, 60);
    // The discretised route's tries (docs/accounting.md#discrete-complement): read for 1 − δ(ε)
    // from δ = 1/2 (its errors relative to 1 − δ), else directly.
    let near_one = pld::takes_near_one(delta);
    let df = delta.f64();
    // From 1/2 to 0.99 both readings apply: the direct one (with its fine core at large T) when
    // the complement falls short.
    let discretised = |m: &SubsampledGaussian, t: u64, fallback_range: bool| {
        let direct = || pld::eps_for_delta(sched, m, t, delta, digits, fallback_range);
        match near_one.then(|| pld::eps_near_one(sched, m, t, delta, digits)) {
            None => direct(),
            Some(Ok(c)) if c.value.digits() >= need => Ok(c),
            Some(c) if pld::takes_delta(df, fallback_range) => better_of(direct(), c.ok()),
            Some(c) => c,
        }
    };
    let accepted = pld::accepts(sched, opts.digits).filter(|_| !opts.force_inversion);
    // First, where it is measured faster: inside `pld::applies` for δ in its first range, and at
    // small σ (below SMALL_SIGMA) for δ ≥ 1/2 it takes and, below 1/2, where T·q is below
    // SMALL_SIGMA_MAX_TQ: there the inversion cannot bound its tail (docs/accounting.md#small-sigma);
    // at any σ below 1/2 where T·q is at most TINY_TQ (docs/accounting.md#hits).
    let small = accepted.as_ref().is_some_and(|(m, t)| {
        let tq = m.q().f64() * (*t as f64);
        (m.sigma().f64() < pld::SMALL_SIGMA && (near_one || tq < pld::SMALL_SIGMA_MAX_TQ))
            || (tq <= pld::TINY_TQ && !near_one)
    });
    let first = (!opts.force_inversion)
        .then(|| pld::applies(sched, opts.digits, false))
        .flatten()
        .filter(|_| pld::takes_delta(df, false))
        .or_else(|| {
            accepted
                .clone()
                .filter(|_| small && (near_one || pld::takes_delta(df, true)))
        });
    if let Some((m, t)) = &first {
        match discretised(m, *t, true) {
            Ok(c) if c.value.digits() >= need => return Ok(c),
            Ok(c) => fallback = Some(c),
            Err(_) => {}
        }
    }
    let closed = |mu: &Float, p: u32| Ok(Float::with_val(p, dp_eps_mp(mu, &delta.mp(p))?));
    let inverted = compose_both(
        sched,
        delta,
        opts,
        "Gaussian composition eps",
        closed,
        eps_dir,
        false,
    );
    // Where the inversion falls short (small σ at small q, whose characteristic function decays
    // too slowly to bound its tail), the discretised route tries at any T ≥ 4 it accepts, for
    // 10⁻²⁸⁰ ≤ δ ≤ 0.99 directly, and from δ = 1/2 to 1 − 10⁻²⁸⁰ for 1 − δ
    // (docs/accounting.md#limits) — not where its first try ran already (the same computation;
    // only that try sets `fallback`).
    let short = !matches!(&inverted, Ok(c) if c.value.digits() >= need);
    let takes = near_one || pld::takes_delta(df, true);
    if let (true, None, true, Some((m, t))) = (short, &first, takes, accepted) {
        if crate::numeric::deadline::expired().is_none() {
            if let Ok(c) = discretised(&m, t, true) {
                fallback = Some(c);
            }
        }
    }
    better_of(inverted, fallback)
}
