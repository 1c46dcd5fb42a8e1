//! Exact privacy profile (hockey-stick divergence) of d-dimensional isotropic Gaussians with
//! unequal variances, e.g. the output pairs of the Relative Gaussian Mechanism (docs/formulas.md §7.4).
//!
//! P = N(0, σ1² I_d), Q = N(Δe₁, σ2² I_d). Write x = (t, y), t ~ N(0, σ1²),
//! W = ‖y‖²/σ1² ~ χ²_k with k = d − 1. The privacy loss is L = ℓ(t) + κW with
//! ℓ(t) = d log(σ2/σ1) − t²/(2σ1²) + (t − Δ)²/(2σ2²), κ = (σ1²/σ2² − 1)/2, c = 1 + 2κ, and
//! (docs/formulas.md §7.4)
//!
//! δ(ε) = ∫ φ_{σ1}(t) h(t) dt, h(t) = E_W[(1 − e^{ε − L}) 1{L > ε}],
//!
//! with h in closed form through χ²_k distribution functions at w0 = (ε − ℓ(t))/κ:
//! Q_k(w0) − e^{ε−ℓ}c^{−k/2}Q_k(c w0) (κ > 0, w0 > 0), 1 − e^{ε−ℓ}c^{−k/2} (κ > 0, w0 ≤ 0),
//! F_k(w0) − e^{ε−ℓ}c^{−k/2}F_k(c w0) (κ < 0, w0 > 0), 0 (κ < 0, w0 ≤ 0). For κ = 0 or d = 1,
//! h = (1 − e^{ε−ℓ})_+.
//!
//! **Numerics.** κ and ln c are formed from σ1² − σ2² (for the RGM from γ(n1 − n2)(n1 + n2),
//! docs/formulas.md §4), never from a difference of rounded variances. The cancellation in h (up to about
//! log2(1/|κ|) bits) is paid for with guard bits, and its size is passed to the quadrature's
//! rounding floor. The t-axis is split at the ≤ 2 roots of ℓ(t) = ε (where h changes formula and,
//! for odd k, has a square-root branch point: those pieces use tanh–sinh, the others
//! Gauss–Legendre), with breakpoints every σ1/2 and a geometric grading towards each root on the
//! width κ(k + 10√k + 20)/|ℓ′| over which h switches. The range is cut at ±T with the explicit
//! bound ∫_{|t|>T} φ_{σ1} h ≤ 2Φ(−T/σ1) (h ≤ 1), chosen from a coarse first pass so that it is
//! below 10^-(digits+3) of δ; the bound is added to the error.
//!
//! **Certification.** The quadrature's own error bound (all pieces plus the tail) must be below
//! 10^-(digits+1) relative, else [`Error::Precision`]; the whole evaluation is wrapped in
//! [`mp::certify`] (two precisions) so that rounding and cancellation in h are caught.
//!
//! **Nearly equal variances.** For d ≥ 2 and 0 < |κ| < 10⁻³ the one-point δ(ε) integrates in
//! the other order, χ² variable outside and the normal cdf of the quadratic region inside
//! (module `w_outer`), which has no switch at the roots: κ ≈ 1e-12 at 20 digits in ≈ 0.1 s
//! instead of about a minute (docs/formulas.md §7.4, "Nearly equal variances").
//!
//! **Profiles.** [`eps_profile`] (module `invert`) computes ε(δ) at many δ with the same
//! integral and the same bracket certificate, sharing the root searches between points; its
//! quadratures use the χ² tails of module `tails`, pieces of 2σ1 where h switches slowly, and
//! the substitution t = r ± u² at the roots for odd k ≤ 15 (docs/formulas.md §7.4, "Profiles").

use super::Pair;
use crate::error::{Error, Result};
use crate::model::Variances;
use crate::numeric::chi2::{chi2_cdf, chi2_sf};
use crate::numeric::f64s;
use crate::numeric::mp::{self, certify, Certified};
use crate::numeric::quad::{
    gl_start, integrate, ln_abs_f64, ln_add, sort_breakpoints, sum_same_sign, FnIntegrand, Point,
    QuadOptions, QuadResult, Rule,
};
use crate::scalar::Scalar;
use rug::Float;

const LN_10: f64 = std::f64::consts::LN_10;

/// δ(ε) = ∫(p1 − e^ε p2)_+ for N(μ1, σ1² I_d) vs N(μ2, σ2² I_d), ‖μ1 − μ2‖ = dist, any d ≥ 1 (docs/formulas.md §7.4).
///
/// `s1sq`, `s2sq` are the variances σ1², σ2² (taken as exact at their precision); certified to
/// `digits` significant digits (an exact 0 when the region {L > ε} is empty).
#[cfg(test)]
pub(crate) fn hockey_stick_dd(
    s1sq: &Float,
    s2sq: &Float,
    dist: &Float,
    d: u32,
    eps: &Float,
    digits: u32,
) -> Result<Certified> {
    let hp = s1sq.prec().max(s2sq.prec()) + 64;
    let v = Variances {
        s1: s1sq.clone(),
        s2: s2sq.clone(),
        diff: Float::with_val(hp, s1sq - s2sq),
        dist: dist.clone(),
        d,
    };
    hockey_stick_dd_diff(&v, eps, digits, false)
}

/// [`hockey_stick_dd`] for the isotropic Gaussian pairs (`gaussian_dd`, `rgm`). For the RGM,
/// σ_i² = γ n_i² + σ² and σ1² − σ2² = γ(n1 − n2)(n1 + n2) are formed from the norms (docs/formulas.md §4).
pub(crate) fn hockey_stick_pair(pair: &Pair, eps: &Scalar, digits: u32) -> Result<Certified> {
    crate::error::check_finite("eps", eps.f64())?;
    let hp = mp::bits_for_digits(digits).max(256) * 4;
    let v = pair_vars(pair, hp)?;
    hockey_stick_dd_diff(&v, &eps.mp(hp), digits, false)
}

/// σ1², σ2², σ1² − σ2², ‖μ1 − μ2‖ and d of an isotropic Gaussian pair at `hp` bits, as the
/// model forms them ([`crate::model::NormalPair::variances`]; for the RGM, σ_i² = γ n_i² + σ² and
/// σ1² − σ2² = γ(n1 − n2)(n1 + n2) from the norms, docs/formulas.md §4).
type PairVars = Variances;

/// The variances of `pair`, or the error for a pair that is not an isotropic Gaussian pair.
fn pair_vars(pair: &Pair, hp: u32) -> Result<PairVars> {
    pair.model()
        .normal()
        .and_then(|n| n.variances(hp))
        .ok_or_else(|| {
            Error::Unsupported(format!(
                "profile_dd handles gaussian_dd and rgm pairs only, not {pair}"
            ))
        })
}

/// δ(ε) of the pair with variances `v`, certified to `digits` (the χ²-outer route where it is the
/// faster one, else the t-outer one; `fast`: the latter with the fast χ² tails).
fn hockey_stick_dd_diff(v: &Variances, eps: &Float, digits: u32, fast: bool) -> Result<Certified> {
    let (s1sq, s2sq, diff, dist, d) = (&v.s1, &v.s2, &v.diff, &v.dist, v.d);
    if !(s1sq.is_finite() && *s1sq > 0) {
        return Err(Error::invalid("s1sq", s1sq.to_f64(), "a finite number > 0"));
    }
    if !(s2sq.is_finite() && *s2sq > 0) {
        return Err(Error::invalid("s2sq", s2sq.to_f64(), "a finite number > 0"));
    }
    if !(dist.is_finite() && *dist >= 0) {
        return Err(Error::invalid(
            "dist",
            dist.to_f64(),
            "a finite number >= 0",
        ));
    }
    crate::error::check_dim(d)?;
    if !eps.is_finite() {
        return Err(Error::invalid("eps", eps.to_f64(), "a finite number"));
    }
    if digits == 0 {
        return Err(Error::invalid("digits", digits, "an integer >= 1"));
    }
    let what = format!(
        "hockey-stick divergence of d-dim. Gaussians (docs/formulas.md §7.4): s1sq = {}, s2sq = {}, \
         dist = {}, d = {d}, eps = {}",
        s1sq.to_f64(),
        s2sq.to_f64(),
        dist.to_f64(),
        eps.to_f64()
    );
    if !fast && use_w_outer(s2sq, diff, d) {
        return certify(digits, &what, |p| w_outer::w_outer_at(v, eps, digits, p));
    }
    certify(digits, &what, |p| profile_at(v, eps, digits, p, fast))
}

/// Whether the one-point δ(ε) takes the χ²-outer route (module `w_outer`): d ≥ 2 and
/// 0 < |κ| < [`W_OUTER_KAPPA`], where the t-outer integrand switches over a width ∝ |κ| at
/// each root of ℓ = ε (docs/formulas.md §7.4, "Nearly equal variances").
fn use_w_outer(s2sq: &Float, diff: &Float, d: u32) -> bool {
    if d < 2 || diff.is_zero() {
        return false;
    }
    let kappa = Float::with_val(64, diff / s2sq).to_f64().abs() / 2.0;
    kappa < W_OUTER_KAPPA
}

/// |κ| below which the one-point route integrates over the χ² variable outside (measured:
/// docs/formulas.md §7.4).
const W_OUTER_KAPPA: f64 = 1e-3;

/// The t-part of the privacy loss, ℓ(t) − ε = a t² + b t + l0, with κ, c = 1 + 2κ and ln c, at
/// `wp` bits from σ1², σ2² and σ1² − σ2² (never a difference of rounded variances;
/// docs/formulas.md §7.4). Shared by the t-outer and χ²-outer routes.
struct Loss {
    /// σ1², σ2² and Δ at `wp` bits.
    s1: Float,
    s2: Float,
    dist: Float,
    kappa: Float,
    ln_c: Float,
    c: Float,
    a: Float,
    b: Float,
    l0: Float,
}

impl Loss {
    fn new(vars: [&Float; 3], dist: &Float, d: u32, eps: &Float, wp: u32) -> Loss {
        let [s1sq, s2sq, diff] = vars;
        let s1 = Float::with_val(wp, s1sq);
        let s2 = Float::with_val(wp, s2sq);
        let df = Float::with_val(wp, diff);
        let dl = Float::with_val(wp, dist);
        let two_k = Float::with_val(wp, &df / &s2);
        let kappa = Float::with_val(wp, &two_k / 2u32);
        let ln_c = Float::with_val(wp, two_k.ln_1p_ref());
        let c = Float::with_val(wp, &two_k + 1u32);
        let a = Float::with_val(wp, &df / Float::with_val(wp, &s1 * &s2)) / 2u32;
        let b = -Float::with_val(wp, &dl / &s2);
        let q0 = Float::with_val(wp, dl.square_ref()) / Float::with_val(wp, &s2 * 2u32);
        let dhalf_ln_c = Float::with_val(wp, &ln_c * d) / 2u32;
        let l0 = Float::with_val(wp, &q0 - &dhalf_ln_c) - Float::with_val(wp, eps);
        Loss {
            s1,
            s2,
            dist: dl,
            kappa,
            ln_c,
            c,
            a,
            b,
            l0,
        }
    }
}

/// Constants of ℓ(t) = a t² + b t + q0 − (d/2) ln c, at the working precision.
struct Setup {
    /// working precision of h (quadrature precision + guard bits)
    wp: u32,
    k: u32,
    /// κ = (σ1² − σ2²)/(2σ2²)
    kappa: Float,
    /// c = 1 + 2κ
    c: Float,
    a: Float,
    b: Float,
    /// q0 − (d/2) ln c − ε: ℓ(t) − ε = a t² + b t + l0
    l0: Float,
    /// ½ ln c: ε − ℓ − (k/2) ln c = −(ℓ − ε) − (k/2) ln c
    khalf_ln_c: Float,
    /// −ln √(2π) − ½ ln σ1²
    lphi0: Float,
    /// 1/(2σ1²)
    inv2s1: Float,
    /// whether h has the χ² form (κ ≠ 0 and k ≥ 1)
    chi: bool,
    /// χ² tails of the profile route (ln Γ cached); `None`: the library's [`chi2_cdf`]/[`chi2_sf`]
    tails: Option<Chi2Tails>,
}

impl Setup {
    /// ℓ(t) − ε at working precision.
    fn lme(&self, t: &Float) -> Float {
        let wp = self.wp;
        let mut v = Float::with_val(wp, &self.a * t);
        v += &self.b;
        v *= t;
        v += &self.l0;
        v
    }

    /// (h(t), cancellation ratio Σ|terms|/h) at working precision; h ≥ 0 up to rounding.
    fn h(&self, t: &Float) -> Result<(Float, f64)> {
        let wp = self.wp;
        let t = Float::with_val(wp, t);
        let lme = self.lme(&t);
        // g = ε − ℓ − (k/2) ln c
        let g = Float::with_val(wp, -&lme) - &self.khalf_ln_c;
        if !self.chi {
            if lme > 0 {
                let h = -Float::with_val(wp, g.exp_m1_ref());
                return Ok((h, 1.0));
            }
            return Ok((Float::new(wp), 1.0));
        }
        let w0 = Float::with_val(wp, -&lme) / &self.kappa;
        let pos = self.kappa > 0;
        if w0 <= 0 {
            if pos {
                let h = -Float::with_val(wp, g.exp_m1_ref());
                return Ok((h, 1.0));
            }
            return Ok((Float::new(wp), 1.0));
        }
        let cw = Float::with_val(wp, &self.c * &w0);
        let (t1, t2) = match (&self.tails, pos) {
            (Some(tl), true) => (tl.cdf_sf(&w0)?.1, tl.cdf_sf(&cw)?.1),
            (Some(tl), false) => (tl.cdf_sf(&w0)?.0, tl.cdf_sf(&cw)?.0),
            (None, true) => (chi2_sf(self.k, &w0)?, chi2_sf(self.k, &cw)?),
            (None, false) => (chi2_cdf(self.k, &w0)?, chi2_cdf(self.k, &cw)?),
        };
        let t2 = t2 * g.exp();
        let h = Float::with_val(wp, &t1 - &t2);
        let ratio = if h > 0 {
            Float::with_val(64, Float::with_val(wp, &t1 + &t2) / &h).to_f64()
        } else {
            f64::INFINITY
        };
        Ok((h, ratio))
    }

    /// log(φ_{σ1}(t) h(t)) at `qp` bits, and the rounding magnitude for [`Point::mag`].
    fn log_integrand(&self, t: &Float, qp: u32) -> Result<(Float, f64)> {
        let (h, ratio) = self.h(t)?;
        if h <= 0 {
            return Ok((Float::with_val(qp, f64::NEG_INFINITY), 0.0));
        }
        let wp = self.wp;
        let mut l = Float::with_val(wp, h.ln_ref());
        let t2 = Float::with_val(wp, t.square_ref()) * &self.inv2s1;
        let t2f = t2.to_f64();
        l -= t2;
        l += &self.lphi0;
        let mag = 2.0 + t2f + 16.0 * ratio * (f64::from(qp) - f64::from(wp)).exp2();
        Ok((Float::with_val(qp, l), mag))
    }
}

/// Real roots of a t² + b t + l0 = 0 (sorted).
fn roots(a: &Float, b: &Float, l0: &Float, wp: u32) -> Vec<Float> {
    if a.is_zero() {
        if b.is_zero() {
            return vec![];
        }
        return vec![-Float::with_val(wp, l0 / b)];
    }
    let disc = Float::with_val(wp, b.square_ref()) - Float::with_val(wp, a * l0) * 4u32;
    if disc <= 0 {
        return vec![];
    }
    let sq = disc.sqrt();
    let qq = if b.is_sign_negative() {
        Float::with_val(wp, &sq - b) / 2u32
    } else {
        -Float::with_val(wp, &sq + b) / 2u32
    };
    let r1 = Float::with_val(wp, &qq / a);
    let r2 = Float::with_val(wp, l0 / &qq);
    if r1 < r2 {
        vec![r1, r2]
    } else {
        vec![r2, r1]
    }
}

/// One piece [a, b] of the t-axis; `root_end` if an end is a root of ℓ = ε.
struct Piece {
    a: Float,
    b: Float,
    root_end: bool,
    /// coarse log-size estimate and log-drop (max − min of the log-integrand at 3 points)
    est: f64,
    drop: f64,
}

/// An interval of the t-axis where h can be > 0 (`None`: unbounded on that side).
type Region = (Option<Float>, Option<Float>);

/// δ at quadrature precision `qp` with its own error check (10^-(digits+1) relative);
/// `fast`: the χ² tails of [`tails::Chi2Tails`] instead of the library's.
fn profile_at(v: &Variances, eps: &Float, digits: u32, qp: u32, fast: bool) -> Result<Float> {
    let guard = guard_bits(v, qp);
    let wp = qp + 24 + guard;
    let (st, sigma1) = setup(v, eps, wp, fast)?;
    let rts = roots(&st.a, &st.b, &st.l0, wp);
    let regions = positive_regions(&st, &rts);
    if regions.is_empty() {
        return Ok(Float::new(qp));
    }
    let rts64: Vec<f64> = rts.iter().map(|r| r.to_f64()).collect();
    let graded = graded_breakpoints(&st, &rts, sigma1);
    // The profile route (`fast`) uses pieces of 2σ1 where h switches on a scale ≥ σ1/2 at
    // every root (no graded breakpoints): fewer, higher Gauss–Legendre orders, fewer nodes in
    // all for the smooth Gaussian envelope. Otherwise (and in the single-point route) σ1/2.
    let wide = fast && graded.is_empty();
    let coarse_prec = 64;
    let st_c = Setup {
        wp: coarse_prec + 24 + guard,
        ..clone_setup(&st)
    };
    let coarse = |t: &Float| -> Result<f64> {
        let (l, _) = st_c.log_integrand(t, coarse_prec)?;
        Ok(l.to_f64())
    };
    let grid = Grid {
        st: &st,
        regions: &regions,
        rts: &rts,
        rts64: &rts64,
        graded: &graded,
        sigma1,
        wide,
    };
    let tol_ln = -f64::from(digits + 3) * LN_10;
    let (mut pieces, dhat_ln, tmax) = cover(&grid, &coarse, tol_ln)?;
    // Tail mass outside [−T, T] (only where regions extend past ±T).
    let tail_ln = (2f64).ln() + f64s::log_ndtr(-tmax / sigma1);
    // Main pass: pieces largest first, each relative to the running total.
    pieces.sort_by(|x, y| {
        y.est
            .partial_cmp(&x.est)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let npieces = pieces.len().max(1) as f64;
    let qdigits = f64::from(digits) + 2.0 + npieces.log10();
    let ref_ln = dhat_ln - LN_10;
    let mut parts: Vec<QuadResult> = Vec::new();
    let mut total_ln = ref_ln;
    for pc in &pieces {
        if pc.a >= pc.b {
            continue;
        }
        let q = integrate_piece(&st, pc, &rts64, fast, qp, qdigits, total_ln)?;
        total_ln = ln_add(total_ln, q.log_abs.to_f64());
        parts.push(q);
    }
    let res = sum_same_sign(&parts, qp);
    let tail_relevant = regions.iter().any(|(lo, hi)| {
        lo.as_ref().is_none_or(|l| l.to_f64() < -tmax)
            || hi.as_ref().is_none_or(|h| h.to_f64() > tmax)
    });
    checked_value(&res, tail_ln, tail_relevant, digits)
}

/// Guard bits for the cancellation in h (≈ log2(1/|κ|)) and the exponents.
fn guard_bits(v: &Variances, qp: u32) -> u32 {
    let kap64 = {
        let hp = qp + 64;
        let v = Float::with_val(hp, &v.diff / &v.s2) / 2u32;
        ln_abs_f64(&v) / std::f64::consts::LN_2
    };
    if kap64.is_finite() && kap64 < 0.0 {
        (-kap64).ceil().min(f64::from(8 * qp)) as u32
    } else {
        0
    }
}

/// The integrand's constants at working precision `wp`, and σ1 (`fast`: with the χ² tails of
/// [`Chi2Tails`]).
fn setup(v: &Variances, eps: &Float, wp: u32, fast: bool) -> Result<(Setup, f64)> {
    let (s1sq, s2sq, diff, dist, d) = (&v.s1, &v.s2, &v.diff, &v.dist, v.d);
    let k = d - 1;
    let Loss {
        s1,
        kappa,
        ln_c,
        c,
        a,
        b,
        l0,
        ..
    } = Loss::new([s1sq, s2sq, diff], dist, d, eps, wp);
    let khalf_ln_c = Float::with_val(wp, &ln_c * k) / 2u32;
    let lphi0 = -mp::ln_sqrt_2pi(wp) - Float::with_val(wp, s1.ln_ref()) / 2u32;
    let inv2s1 = Float::with_val(wp, Float::with_val(wp, &s1 * 2u32).recip_ref());
    let chi = k >= 1 && !kappa.is_zero();
    let st = Setup {
        wp,
        k,
        kappa,
        c,
        a,
        b,
        l0,
        khalf_ln_c,
        lphi0,
        inv2s1,
        chi,
        tails: if fast && chi {
            Some(Chi2Tails::new(k, wp)?)
        } else {
            None
        },
    };
    Ok((st, s1.to_f64().sqrt()))
}

/// The intervals where h can be > 0: everywhere for κ > 0 with the χ² form, else where
/// ℓ − ε > 0, decided by sampling between the roots `rts`.
fn positive_regions(st: &Setup, rts: &[Float]) -> Vec<Region> {
    let wp = st.wp;
    let everywhere = st.chi && st.kappa > 0;
    let mut regions: Vec<Region> = Vec::new();
    if everywhere {
        regions.push((None, None));
        return regions;
    }
    let mut ends: Vec<Option<Float>> = vec![None];
    ends.extend(rts.iter().cloned().map(Some));
    ends.push(None);
    for w in ends.windows(2) {
        let mid = match (&w[0], &w[1]) {
            (None, None) => Float::new(wp),
            (None, Some(r)) => Float::with_val(wp, r - 1u32),
            (Some(l), None) => Float::with_val(wp, l + 1u32),
            (Some(l), Some(r)) => Float::with_val(wp, l + r) / 2u32,
        };
        if st.lme(&mid) > 0 {
            regions.push((w[0].clone(), w[1].clone()));
        }
    }
    regions
}

/// Graded breakpoints towards each root (width of the switch of h), out to σ1/2.
fn graded_breakpoints(st: &Setup, rts: &[Float], sigma1: f64) -> Vec<Float> {
    let mut graded: Vec<Float> = Vec::new();
    for r in rts {
        let r64 = r.to_f64();
        if !r64.is_finite() {
            continue;
        }
        let slope = (2.0 * st.a.to_f64() * r64 + st.b.to_f64()).abs();
        let kf = f64::from(st.k);
        let w = if st.chi {
            st.kappa.to_f64().abs() * (kf + 10.0 * kf.sqrt() + 20.0) / slope
        } else {
            f64::INFINITY
        };
        let mut off = w;
        while off.is_finite() && off < sigma1 / 2.0 {
            for sgn in [-1.0, 1.0] {
                graded.push(Float::with_val(st.wp, r) + sgn * off);
            }
            off *= 4.0;
        }
    }
    graded
}

/// Where the t-axis is cut into pieces: the regions, the roots of ℓ = ε (also as f64, to
/// recognise a piece's root ends), the graded breakpoints, σ1 and the piece width rule.
struct Grid<'a> {
    st: &'a Setup,
    regions: &'a [Region],
    rts: &'a [Float],
    rts64: &'a [f64],
    graded: &'a [Float],
    sigma1: f64,
    /// pieces of 2σ1 (else σ1/2)
    wide: bool,
}

/// Pieces on [−T, T] ∩ regions with their coarse estimates, T enlarged until the tail is
/// negligible (`tol_ln` relative to the estimated δ̂): (pieces, ln δ̂, T).
fn cover(
    g: &Grid,
    coarse: &impl Fn(&Float) -> Result<f64>,
    tol_ln: f64,
) -> Result<(Vec<Piece>, f64, f64)> {
    let sigma1 = g.sigma1;
    let mut tmax = 12.0 * sigma1;
    let mut iter = 0;
    loop {
        let mut pieces = pieces_within(g, tmax)?;
        let mut dhat_ln = estimate(&mut pieces, coarse, g.st.wp)?;
        if !dhat_ln.is_finite() {
            // every coarse node is 0: rely on the peak estimates
            dhat_ln = pieces
                .iter()
                .map(|p| p.est)
                .fold(f64::NEG_INFINITY, f64::max);
        }
        if !dhat_ln.is_finite() {
            if iter >= 3 {
                return Ok((pieces, dhat_ln, tmax));
            }
            tmax *= 2.0;
            iter += 1;
            continue;
        }
        // tail bound 2Φ(−T/σ1) ≤ e^{tol_ln} δ̂ / 10
        let need = -(tol_ln + dhat_ln - LN_10);
        let t_new = sigma1 * (2.0 * need.max(1.0)).sqrt();
        if t_new <= tmax || iter >= 4 {
            if t_new < tmax {
                tmax = t_new.max(sigma1);
                clip(&mut pieces, tmax, g.st.wp);
            }
            return Ok((pieces, dhat_ln, tmax));
        }
        tmax = t_new;
        iter += 1;
    }
}

/// The pieces of [−T, T] ∩ regions between the breakpoints (estimates not yet made).
fn pieces_within(g: &Grid, tmax: f64) -> Result<Vec<Piece>> {
    let wp = g.st.wp;
    let sigma1 = g.sigma1;
    let mut pieces = Vec::new();
    for (lo, hi) in g.regions {
        let lo_t = Float::with_val(wp, -tmax);
        let hi_t = Float::with_val(wp, tmax);
        let lo = match lo {
            Some(l) if *l > lo_t => l.clone(),
            _ => lo_t,
        };
        let hi = match hi {
            Some(h) if *h < hi_t => h.clone(),
            _ => hi_t,
        };
        if lo >= hi {
            continue;
        }
        let (lo64, hi64) = (lo.to_f64(), hi.to_f64());
        let step = if g.wide {
            (2.0 * sigma1).min((hi64 - lo64) / 4.0)
        } else {
            (sigma1 / 2.0).min((hi64 - lo64) / 8.0)
        };
        let mut pts: Vec<Float> = vec![lo.clone(), hi.clone()];
        let j0 = (lo64 / step).floor() as i64 + 1;
        let j1 = (hi64 / step).ceil() as i64 - 1;
        for j in j0..=j1 {
            let x = Float::with_val(wp, j as f64 * step);
            if x > lo && x < hi {
                pts.push(x);
            }
        }
        for r in g.rts.iter().chain(g.graded.iter()) {
            if *r > lo && *r < hi {
                pts.push(r.clone());
            }
        }
        sort_breakpoints(&mut pts)?;
        for w in pts.windows(2) {
            let (pa, pb) = (&w[0], &w[1]);
            let is_root = |x: &Float| {
                let x64 = x.to_f64();
                g.rts64.contains(&x64)
            };
            pieces.push(Piece {
                a: pa.clone(),
                b: pb.clone(),
                root_end: g.st.chi && (is_root(pa) || is_root(pb)),
                est: 0.0,
                drop: 0.0,
            });
        }
    }
    Ok(pieces)
}

/// Sets each piece's coarse log-size estimate and log-drop from the log-integrand at its ends
/// and midpoint; returns the Simpson-like estimate of ln δ̂ (−∞ if every node is 0).
fn estimate(pieces: &mut [Piece], coarse: &impl Fn(&Float) -> Result<f64>, wp: u32) -> Result<f64> {
    let mut dhat_ln = f64::NEG_INFINITY;
    for pc in pieces.iter_mut() {
        let m = Float::with_val(wp, &pc.a + &pc.b) / 2u32;
        let vals = [coarse(&pc.a)?, coarse(&m)?, coarse(&pc.b)?];
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let width = Float::with_val(64, &pc.b - &pc.a).to_f64();
        pc.est = hi + width.ln();
        pc.drop = if lo.is_finite() { hi - lo } else { 60.0 };
        // Simpson-like size estimate for the total
        let s = ln_add(ln_add(vals[0], vals[1] + 4f64.ln()), vals[2]) + (width / 6.0).ln();
        dhat_ln = ln_add(dhat_ln, s);
    }
    Ok(dhat_ln)
}

/// Cuts the pieces to [−T, T].
fn clip(pieces: &mut Vec<Piece>, tmax: f64, wp: u32) {
    let cut_lo = Float::with_val(wp, -tmax);
    let cut_hi = Float::with_val(wp, tmax);
    pieces.retain(|p| p.b > cut_lo && p.a < cut_hi);
    for p in pieces.iter_mut() {
        if p.a < cut_lo {
            p.a = cut_lo.clone();
        }
        if p.b > cut_hi {
            p.b = cut_hi.clone();
        }
    }
}

/// The quadrature of one piece at `qp` bits, to `qdigits` relative to the running total
/// (ln `total_ln`).
fn integrate_piece(
    st: &Setup,
    pc: &Piece,
    rts64: &[f64],
    fast: bool,
    qp: u32,
    qdigits: f64,
    total_ln: f64,
) -> Result<QuadResult> {
    let k = st.k;
    let mut o = QuadOptions::new(qp, qdigits);
    o.log_ref = Some(total_ln);
    o.max_level = 9;
    let need = if pc.est.is_finite() && total_ln.is_finite() {
        (qdigits - (total_ln - pc.est) / LN_10).clamp(2.0, qdigits)
    } else {
        qdigits
    };
    // Profile route: at a root end with odd k, h has a square-root branch point; with
    // t = r ± u² the integrand 2u φ h is analytic in u, so Gauss–Legendre applies instead of
    // tanh–sinh (docs/formulas.md §7.4, "Profiles"). (The far end r ± U², U = √(b − a)
    // rounded, moves by ≤ 2^-qp (b − a): far below the piece's error target.) Only for
    // k ≤ 15: for larger k the branch term (t − r)^{k/2} is mild, tanh–sinh in t handles it,
    // and u^k would pile the integrand at the far end of the u-piece.
    let is_root = |x: &Float| rts64.contains(&x.to_f64());
    let sub: Option<(Float, bool)> = if fast && pc.root_end && k % 2 == 1 && k <= 15 {
        match (is_root(&pc.a), is_root(&pc.b)) {
            (true, false) => Some((pc.a.clone(), true)),
            (false, true) => Some((pc.b.clone(), false)),
            _ => None,
        }
    } else {
        None
    };
    let rule = if sub.is_some() {
        let width = Float::with_val(qp, &pc.b - &pc.a);
        Rule::GaussLegendre {
            a: Float::new(qp),
            b: width.sqrt(),
            n0: gl_start(need, pc.drop),
        }
    } else if pc.root_end && k % 2 == 1 {
        Rule::TanhSinh {
            a: Float::with_val(qp, &pc.a),
            b: Float::with_val(qp, &pc.b),
        }
    } else {
        Rule::GaussLegendre {
            a: Float::with_val(qp, &pc.a),
            b: Float::with_val(qp, &pc.b),
            n0: gl_start(need, pc.drop),
        }
    };
    let mut err_h: Option<Error> = None;
    let mut f = FnIntegrand(|x: &Float, pt: &mut Point| {
        let r = match &sub {
            None => st.log_integrand(x, qp),
            Some((root, up)) => {
                let u2 = Float::with_val(st.wp, x.square_ref());
                let t = if *up {
                    Float::with_val(st.wp, root + &u2)
                } else {
                    Float::with_val(st.wp, root - &u2)
                };
                st.log_integrand(&t, qp).map(|(l, mag)| {
                    let jac = Float::with_val(qp, Float::with_val(qp, x * 2u32).ln_ref());
                    (l + jac, mag)
                })
            }
        };
        match r {
            Ok((l, mag)) => {
                pt.log_env = l;
                pt.mag = mag;
            }
            Err(e) => {
                err_h = Some(e);
                pt.log_env = Float::with_val(qp, f64::NEG_INFINITY);
            }
        }
    });
    let q = integrate(&mut f, &rule, &o)?;
    if let Some(e) = err_h.take() {
        return Err(e);
    }
    Ok(q)
}

/// The summed pieces' value, if its error bound (plus the tail bound ln `tail_ln` when
/// `tail_relevant`: the regions extend past ±T) is below 10^-(digits+1) relative.
fn checked_value(
    res: &QuadResult,
    tail_ln: f64,
    tail_relevant: bool,
    digits: u32,
) -> Result<Float> {
    let val = res.value();
    let val_ln = ln_abs_f64(&val);
    let err_ln = if tail_relevant {
        ln_add(res.log_abs_err, tail_ln)
    } else {
        res.log_abs_err
    };
    if !val_ln.is_finite() {
        return Err(Error::Precision {
            narrowest: None,
            requested: digits,
            certified: 0,
            what: "profile_dd: the quadrature of δ(ε) returned 0 on a nonempty region".into(),
        });
    }
    let rel_log10 = (err_ln - val_ln) / LN_10;
    if rel_log10 > -f64::from(digits + 1) {
        return Err(Error::Precision {
            narrowest: None,
            requested: digits,
            certified: (-rel_log10).max(0.0).floor() as u32,
            what: format!(
                "profile_dd: quadrature error bound 10^{rel_log10:.1} relative (tail {:.1})",
                (tail_ln - val_ln) / LN_10
            ),
        });
    }
    Ok(val)
}

fn clone_setup(st: &Setup) -> Setup {
    Setup {
        wp: st.wp,
        k: st.k,
        kappa: st.kappa.clone(),
        c: st.c.clone(),
        a: st.a.clone(),
        b: st.b.clone(),
        l0: st.l0.clone(),
        khalf_ln_c: st.khalf_ln_c.clone(),
        lphi0: st.lphi0.clone(),
        inv2s1: st.inv2s1.clone(),
        chi: st.chi,
        tails: st.tails.clone(),
    }
}

mod invert;
mod tails;
mod w_outer;

pub(crate) use invert::eps_profile;
use tails::Chi2Tails;

#[cfg(test)]
mod tests;
