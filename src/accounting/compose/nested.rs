//! The small-T route: T = 1 and T = 2 steps of one Poisson-subsampled Gaussian (add/remove
//! neighbours) by the closed-form single-step profile and one nested integral
//! (docs/accounting.md#small-t).
//!
//! For one direction with dominating pair (P, Q) and loss L, the composition of two steps has
//! δ₂(ε) = E_P[δ₁(ε − L(X))] (condition on the first step: E_{Q×Q}[(e^{L₁+L₂} − e^ε)_+] =
//! E_Q[e^{L₁} δ₁(ε − L₁)]). δ₁ is a closed form in Gaussian tails at the level point of the
//! increasing log-ratio, so δ₂ is a one-dimensional integral over x of a positive integrand,
//! evaluated by the crate's tanh–sinh quadrature (`numeric::quad`, error estimate from two
//! successive levels) on the precision ladder; the part of the line where the second step cannot
//! matter (remove direction, ε − L(x) ≤ ln(1 − q)) is a closed form, and the cut left tail is
//! bounded in closed form. This is the standard of the single-step values of `dpaudit eval`, not
//! the a-priori error bounds of the inversion: the docs say so.

use super::nested64::Kern;
use super::{
    bits_for_digits, precision_error, Bracket, Composed, Dir, Error, Float, Mix, Release, Result,
    Scalar, Schedule, SubsampledGaussian, LN_10,
};
use crate::numeric::mp::{certify, log1mexp, log_ndtr, log_norm_pdf, Certified};
use crate::numeric::quad::{self, LogIntegrand, Point, QuadOptions};

/// One subsampled-Gaussian step in one direction, at a working precision.
struct Step {
    q: Float,
    sigma: Float,
    /// ln(1 − q).
    ln1mq: Float,
    ln_q: Float,
    add: bool,
    prec: u32,
}

impl Step {
    fn new(q: &Float, sigma: &Float, add: bool, prec: u32) -> Step {
        let q = Float::with_val(prec, q);
        let ln1mq = Float::with_val(prec, (-q.clone()).ln_1p());
        let ln_q = Float::with_val(prec, q.ln_ref());
        Step {
            sigma: Float::with_val(prec, sigma),
            q,
            ln1mq,
            ln_q,
            add,
            prec,
        }
    }

    /// ln r(x) = log1p(q·expm1(t)), t = (x − ½)/σ².
    fn ell(&self, x: &Float) -> Float {
        let p = self.prec;
        let t = self.t_of(x);
        let e = Float::with_val(p, t.exp_m1_ref()) * &self.q;
        Float::with_val(p, e.ln_1p_ref())
    }

    fn t_of(&self, x: &Float) -> Float {
        let p = self.prec;
        let s2 = Float::with_val(p, self.sigma.square_ref());
        Float::with_val(p, x - 0.5f64) / s2
    }

    /// x at which t(x) = t.
    fn x_of_t(&self, t: &Float) -> Float {
        let p = self.prec;
        let s2 = Float::with_val(p, self.sigma.square_ref());
        Float::with_val(p, t * s2) + 0.5f64
    }

    /// ln Φ̄(z) = ln Φ(−z).
    fn ln_upper(&self, z: &Float) -> Float {
        log_ndtr(&Float::with_val(self.prec, -z))
    }

    /// ln δ₁(c) of the remove direction, E_Q[(r − e^c)_+]; finite for every real c.
    /// For e^c ≤ 1 − q it is ln(1 − e^c); otherwise, with e^{t*} = (e^c − (1 − q))/q and
    /// x* = x(t*), δ₁ = q[Φ̄((x* − 1)/σ) − e^{t*} Φ̄(x*/σ)].
    fn ln_delta1_remove(&self, c: &Float) -> Float {
        let p = self.prec;
        if *c <= self.ln1mq {
            if c.is_sign_negative() {
                return log1mexp(c);
            }
            // Only when q = 0, which the model refuses.
            return Float::with_val(p, f64::NEG_INFINITY);
        }
        // ln(e^c − (1 − q)) − ln q.
        let ts = Float::with_val(
            p,
            crate::numeric::mp::log_diff_exp(c, &self.ln1mq) - &self.ln_q,
        );
        self.ln_upper_pair(&ts)
    }

    /// ln q[Φ̄((x − 1)/σ) − e^{t} Φ̄(x/σ)] at x = x(t).
    fn ln_upper_pair(&self, t: &Float) -> Float {
        let p = self.prec;
        let x = self.x_of_t(t);
        let a = self.ln_upper(&(Float::with_val(p, &x - 1u32) / &self.sigma));
        let b = self.ln_upper(&(Float::with_val(p, &x / &self.sigma)));
        let d = Float::with_val(p, t + &b) - &a;
        Float::with_val(p, &self.ln_q + &a) + log1mexp(&d)
    }

    /// ln δ₁(c) of the add direction, E_P[(Q/P − e^c)_+] = E_Q[(1 − e^c r)_+]: −∞ when
    /// e^{−c} ≤ 1 − q; otherwise, with e^{t°} = (e^{−c} − (1 − q))/q and x° = x(t°),
    /// δ₁ = e^c q[e^{t°} Φ(x°/σ) − Φ((x° − 1)/σ)].
    fn ln_delta1_add(&self, c: &Float) -> Float {
        let p = self.prec;
        let mc = Float::with_val(p, -c);
        if mc <= self.ln1mq {
            return Float::with_val(p, f64::NEG_INFINITY);
        }
        let t = Float::with_val(
            p,
            crate::numeric::mp::log_diff_exp(&mc, &self.ln1mq) - &self.ln_q,
        );
        let x = self.x_of_t(&t);
        let a = log_ndtr(&(Float::with_val(p, &x / &self.sigma)));
        let b = log_ndtr(&(Float::with_val(p, &x - 1u32) / &self.sigma));
        let d = Float::with_val(p, &b - &t) - &a;
        Float::with_val(p, c + &self.ln_q) + &t + &a + log1mexp(&d)
    }

    /// ln δ₁(c) of this step's direction.
    fn ln_delta1(&self, c: &Float) -> Float {
        if self.add {
            self.ln_delta1_add(c)
        } else {
            self.ln_delta1_remove(c)
        }
    }
}

/// The two-step integrand in log space, with the double-precision estimate that lets the
/// quadrature skip negligible pieces.
struct Integrand<'a> {
    st: &'a Step,
    /// The same step in double precision (`nested64::Kern`): the quadrature's skip estimate,
    /// never part of a certificate.
    s64: Kern,
    eps: &'a Float,
    eps64: f64,
    ln_sigma: Float,
}

impl LogIntegrand for Integrand<'_> {
    fn eval(&mut self, x: &Float, pt: &mut Point) {
        let p = self.st.prec;
        let st = self.st;
        let z = Float::with_val(p, x / &st.sigma);
        let l = st.ell(x);
        let mut env = Float::with_val(p, log_norm_pdf(&z) - &self.ln_sigma);
        let c = if st.add {
            Float::with_val(p, self.eps + &l)
        } else {
            env += &l;
            Float::with_val(p, self.eps - &l)
        };
        let d1 = st.ln_delta1(&c);
        pt.mag = env.to_f64().abs() + d1.to_f64().abs().min(1e300) + 64.0;
        env += &d1;
        pt.log_env = env;
        pt.has_factor = false;
    }

    fn estimate(&self, x: f64) -> Option<f64> {
        let v = self.s64.ln_integrand(self.eps64, x);
        Some(if v.is_nan() { f64::INFINITY } else { v + 1.0 })
    }
}

/// ln of the certified-to-`digits` δ_T(ε) of one direction for T ∈ {1, 2} at working precision
/// `p`, or a precision error when the quadrature cannot reach the target.
fn ln_delta_at(
    q: &Float,
    sigma: &Float,
    add: bool,
    steps: u64,
    eps: &Float,
    digits: f64,
    p: u32,
) -> Result<Float> {
    let st = Step::new(q, sigma, add, p);
    let eps = Float::with_val(p, eps);
    if steps == 1 {
        return Ok(st.ln_delta1(&eps));
    }
    debug_assert_eq!(steps, 2);
    let sf = st.sigma.to_f64();
    // Upper end of the integral: remove, the kink x_k where ε − ℓ(x) = ln(1 − q) (beyond it the
    // integrand is φ(x)(r(x) − e^ε), integrated in closed form); add, the point x_a where
    // ε + ℓ(x) = −ln(1 − q) (beyond it δ₁^add = 0).
    let (x_end, ln_closed) = if add {
        // r(x_a) = e^{−ε}/(1 − q): t_a = ln(e^{−ε}/(1−q) − (1 − q)) − ln q.
        let l = Float::with_val(p, -&eps) - &st.ln1mq;
        if l <= st.ln1mq {
            // ε ≥ −2 ln(1 − q): the two-step add loss never exceeds ε.
            return Ok(Float::with_val(p, f64::NEG_INFINITY));
        }
        let t = Float::with_val(
            p,
            crate::numeric::mp::log_diff_exp(&l, &st.ln1mq) - &st.ln_q,
        );
        (st.x_of_t(&t), Float::with_val(p, f64::NEG_INFINITY))
    } else {
        let l = Float::with_val(p, &eps - &st.ln1mq);
        let t = Float::with_val(
            p,
            crate::numeric::mp::log_diff_exp(&l, &st.ln1mq) - &st.ln_q,
        );
        let xk = st.x_of_t(&t);
        // ∫_{x_k}^∞ φ_σ (r − e^ε) = q[Φ̄((x_k − 1)/σ) − e^{t_ε} Φ̄(x_k/σ)], e^{t_ε} = (e^ε − 1 + q)/q.
        let te = Float::with_val(
            p,
            crate::numeric::mp::log_diff_exp(&eps, &st.ln1mq) - &st.ln_q,
        );
        let a = st.ln_upper(&(Float::with_val(p, &xk - 1u32) / &st.sigma));
        let b = st.ln_upper(&(Float::with_val(p, &xk / &st.sigma)));
        let d = Float::with_val(p, &te + &b) - &a;
        let closed = Float::with_val(p, &st.ln_q + &a) + log1mexp(&d);
        (xk, closed)
    };
    let xe = x_end.to_f64();
    let mut integrand = Integrand {
        st: &st,
        s64: Kern::new(st.q.to_f64(), sf, add),
        eps: &eps,
        eps64: eps.to_f64(),
        ln_sigma: Float::with_val(p, st.sigma.ln_ref()),
    };
    let mut k = 12.0f64;
    for _ in 0..8 {
        // Left cut x_lo: the integrand is at most φ_σ(x) there (r ≤ 1 for x ≤ ½, δ₁ ≤ 1).
        let x_lo = (-k * sf).min(xe - sf);
        let ln_tail = crate::numeric::f64s::log_ndtr(x_lo / sf);
        // Breakpoints every σ (and at 0, ½, 1 when inside).
        let mut pts: Vec<Float> = Vec::new();
        let n = ((xe - x_lo) / sf).ceil().clamp(1.0, 4000.0) as usize;
        for i in 0..n {
            pts.push(Float::with_val(
                p,
                x_lo + (xe - x_lo) * (i as f64) / (n as f64),
            ));
        }
        pts.push(Float::with_val(
            p,
            &x_end - 0.25 * sf.min((xe - x_lo) / (n as f64)),
        ));
        pts.push(x_end.clone());
        let mut opts = QuadOptions::new(p, digits + 1.0);
        opts.max_level = 10;
        // Gauss–Legendre on the pieces where the integrand is analytic; tanh–sinh on the last,
        // whose end x_end is a point where the level point of δ₁ runs off to −∞ (δ₁ is smooth
        // but not analytic there, with structure on every scale of ln(x_end − x)).
        let main = quad::split(
            &mut integrand,
            &pts[..pts.len() - 1],
            &opts,
            quad::PieceRule::GaussLegendre,
        )?;
        let mut o2 = opts.clone();
        o2.log_ref = Some(main.log_abs.to_f64());
        let last = quad::tanh_sinh(
            &mut integrand,
            &pts[pts.len() - 2],
            &pts[pts.len() - 1],
            &o2,
        )?;
        let r = quad::sum_same_sign(&[main, last], p);
        let ln_total = crate::numeric::mp::log_add_exp(&r.log_abs, &ln_closed);
        let lt = ln_total.to_f64();
        let ln_err = quad::ln_add(r.log_abs_err, ln_tail);
        if ln_err - lt <= -digits * LN_10 {
            return Ok(ln_total);
        }
        if ln_tail - lt <= -(digits + 1.0) * LN_10 {
            return Err(Error::Precision {
                narrowest: None,
                requested: digits as u32,
                certified: ((lt - ln_err) / LN_10).max(0.0) as u32,
                what: "two-step delta (nested quadrature)".into(),
            });
        }
        k *= 1.5;
    }
    Err(Error::Precision {
        narrowest: None,
        requested: digits as u32,
        certified: 0,
        what: "two-step delta (nested quadrature, left tail)".into(),
    })
}

/// Extra digits the ladder and the quadrature carry beyond the bracket's.
const GUARD: u32 = 3;

/// Certified δ_T(ε) of one direction (as its logarithm): the precision ladder on
/// [`ln_delta_at`] (two working precisions must agree on δ to `digits` + GUARD digits), with
/// the quadrature's error estimate (≤ 10^-(digits+GUARD) of δ) inside each evaluation. None when
/// δ = 0 exactly (add direction, ε at or beyond the largest two-step loss).
fn ln_delta_certified(m: &Mix, steps: u64, eps: &Float, digits: u32) -> Result<Option<Certified>> {
    let d = digits + GUARD;
    let mut zero = false;
    let c = certify(d, "small-T delta", |p| {
        let v = ln_delta_at(&m.q, &m.sigma, m.flip, steps, eps, f64::from(d), p + 16)?;
        if v.is_infinite() && v.is_sign_negative() {
            zero = true;
        }
        Ok(Float::with_val(p, v.exp_ref()))
    });
    if zero {
        return Ok(None);
    }
    let c = c?;
    Ok(Some(Certified {
        value: Float::with_val(c.value.prec(), c.value.ln_ref()),
        digits: c.digits,
    }))
}

/// δ(ε) bracket of one direction from its certified logarithm: relative error ≤ 2·10^-(digits+GUARD)
/// (the ladder's agreement on ln δ plus the quadrature's estimate), widened to 10^-(digits+1).
fn bracket_of(c: &Option<Certified>, digits: u32, prec: u32) -> Bracket {
    match c {
        None => Bracket::point(Float::new(prec)),
        Some(c) => {
            let v = Float::with_val(prec, c.value.exp_ref());
            let w = Float::with_val(prec, -f64::from(digits + 1) * LN_10).exp() * &v;
            Bracket {
                lo: Float::with_val(prec, &v - &w),
                hi: Float::with_val(prec, &v + &w).min(&Float::with_val(prec, 1u32)),
            }
        }
    }
}

/// Whether the small-T route applies: one subsampled Gaussian (add/remove, q < 1) run once or
/// twice, or three times when at most [`super::nested64::MAX_DIGITS`] digits are asked for (the
/// double-precision route of `nested64.rs`).
pub(super) fn applies(sched: &Schedule, digits: u32) -> Option<(SubsampledGaussian, u64)> {
    match sched.parts() {
        [(Release::Subsampled(m), n)]
            if m.q().f64() < 1.0
                && (*n <= 2 || (*n == 3 && digits <= super::nested64::MAX_DIGITS)) =>
        {
            Some((m.clone(), *n))
        }
        _ => None,
    }
}

/// ln δ₁(c) of one step in MPFR at `prec` bits, as a double (the reference of
/// `nested64`'s tests).
#[cfg(test)]
pub(super) fn ln_delta1_mpfr(q: f64, s: f64, add: bool, c: f64, prec: u32) -> f64 {
    let st = Step::new(
        &Float::with_val(prec, q),
        &Float::with_val(prec, s),
        add,
        prec,
    );
    st.ln_delta1(&Float::with_val(prec, c)).to_f64()
}

/// δ(ε) of both directions by the small-T route.
pub(super) fn delta_for_eps(
    m: &SubsampledGaussian,
    steps: u64,
    eps: &Scalar,
    digits: u32,
) -> Result<Composed> {
    let prec = bits_for_digits(digits + 12) + 32;
    let e = eps.mp(prec);
    let mut out = Vec::new();
    for dir in [Dir::Remove, Dir::Add] {
        let mix = Mix::new(m, steps, dir, prec);
        let c = ln_delta_certified(&mix, steps, &e, digits)?;
        out.push(bracket_of(&c, digits, prec));
    }
    Ok(composed(out, "small-T nested integration"))
}

/// Both directions' brackets (remove, add) as the mechanism's answer by the route `route`.
pub(super) fn composed(mut out: Vec<Bracket>, route: &'static str) -> Composed {
    let ad = out.pop().expect("two directions");
    let rm = out.pop().expect("two directions");
    Composed {
        value: Bracket::max(&rm, &ad),
        remove: rm,
        add: ad,
        route,
        saddle: f64::NAN,
        moment_evals: 0,
    }
}

/// ε(δ) of both directions by the small-T route: a root search on δ(ε) at a few digits, then
/// the two ends certified: δ_hi(ε_hi) ≤ δ ≤ δ_lo(ε_lo).
pub(super) fn eps_for_delta(
    m: &SubsampledGaussian,
    steps: u64,
    delta: &Scalar,
    digits: u32,
) -> Result<Composed> {
    let prec = bits_for_digits(digits + 12) + 32;
    let dl = delta.mp(prec);
    let ln_target = Float::with_val(prec, dl.ln_ref()).to_f64();
    let mut out = Vec::new();
    for dir in [Dir::Remove, Dir::Add] {
        let mix = Mix::new(m, steps, dir, prec);
        out.push(eps_one(&mix, steps, &dl, ln_target, digits, prec)?);
    }
    Ok(composed(out, "small-T nested integration"))
}

/// Root of the decreasing ln δ(ε) = `ln_target` in double precision: a bracket [lo, 2^k] by
/// doubling from 1 (k ≤ 12), then Illinois steps until the bracket is shorter than
/// `tol[0]`·max(hi, `tol[1]`) or |f − target| < `tol[2]`, at most `max_iter` steps. Shared by the
/// MPFR route here and the double-precision one of `nested64.rs`.
pub(super) fn illinois_root(
    f: impl Fn(f64) -> Result<f64>,
    ln_target: f64,
    delta: &Float,
    tol: [f64; 3],
    max_iter: usize,
) -> Result<f64> {
    let (mut lo, mut flo) = (0.0f64, f(0.0)?);
    let mut hi = 1.0f64;
    let mut fhi = f(hi)?;
    let mut grow = 0;
    while fhi > ln_target {
        lo = hi;
        flo = fhi;
        hi *= 2.0;
        fhi = f(hi)?;
        grow += 1;
        if grow > 12 {
            return Err(Error::invalid(
                "delta",
                delta.to_f64(),
                "attainable: eps(delta) > 4096",
            ));
        }
    }
    let mut e = 0.5 * (lo + hi);
    let mut side = 0i8;
    for _ in 0..max_iter {
        if hi - lo <= tol[0] * hi.max(tol[1]) {
            break;
        }
        let cand = if flo.is_finite() && fhi.is_finite() {
            lo + (flo - ln_target) * (hi - lo) / (flo - fhi)
        } else {
            0.5 * (lo + hi)
        };
        e = if cand > lo && cand < hi {
            cand
        } else {
            0.5 * (lo + hi)
        };
        let fe = f(e)?;
        if fe > ln_target {
            lo = e;
            flo = fe;
            if side == 1 {
                fhi = ln_target + 0.5 * (fhi - ln_target);
            }
            side = 1;
        } else {
            hi = e;
            fhi = fe;
            if side == -1 {
                flo = ln_target + 0.5 * (flo - ln_target);
            }
            side = -1;
        }
        if (fe - ln_target).abs() < tol[2] {
            break;
        }
    }
    Ok(e)
}

fn eps_one(
    m: &Mix,
    steps: u64,
    delta: &Float,
    ln_target: f64,
    digits: u32,
    prec: u32,
) -> Result<Bracket> {
    let zero = Float::new(prec);
    let s64 = Kern::new(m.qf, m.sf, m.flip);
    let f = |e: f64| s64.ln_delta_simpson(steps, e);
    // ε = 0 when δ(0) ≤ δ (certified; only tried when the double-precision value is close).
    if f(0.0) <= ln_target + 1.0 {
        let at0 = bracket_of(&ln_delta_certified(m, steps, &zero, digits)?, digits, prec);
        if at0.hi <= *delta {
            return Ok(Bracket::point(zero));
        }
    }
    // Double-precision root of ln δ(ε) = ln δ (decreasing).
    let e = illinois_root(|e| Ok(f(e)), ln_target, delta, [1e-14, 1e-3, 1e-13], 200)?;
    // The double-precision root is good to ≈ 10⁻¹⁰ where the integrand is smooth on the Simpson
    // grid, not always (tiny q): it is refined on the certified values.
    let hstep = 1e-5 * e.max(1e-3);
    let slope = (f(e + hstep) - f(e - hstep)) / (2.0 * hstep);
    // δ's digits for the ends: ε(1 ± η) moves ln δ by ε·|d ln δ/dε|·η, so where that product is
    // small (ε just below the total variation's level, e.g. T = 1, q = 0.5, σ = 1, δ = 0.1914:
    // ε ≈ 1.2·10⁻⁴, ε·|d ln δ/dε| ≈ 2·10⁻⁴) δ needs correspondingly more digits than ε.
    let sens = e * slope.abs();
    let extra = if sens.is_finite() && sens > 0.0 && sens < 1.0 {
        (-sens.log10()).ceil() as u32
    } else {
        0
    };
    let dd = (digits + 2 + extra).min(60);
    let mut e_mp = Float::with_val(prec, e);
    let eta0 = 10f64.powi(-(digits as i32)) / 4.0;
    if slope.is_finite() && slope < 0.0 {
        // Newton, then secant steps on the certified ln δ until the step is far below the
        // bracket's half-width.
        let ln_d = Float::with_val(prec, delta.ln_ref());
        let mut slope = Float::with_val(prec, slope);
        let mut prev: Option<(Float, Float)> = None;
        for _ in 0..8 {
            let Some(c) = ln_delta_certified(m, steps, &e_mp, dd)? else {
                break;
            };
            let lv = Float::with_val(prec, &c.value);
            if let Some((pe, pl)) = &prev {
                let de = Float::with_val(prec, &e_mp - pe);
                if !de.is_zero() {
                    slope = Float::with_val(prec, &lv - pl) / de;
                }
            }
            let step = Float::with_val(prec, &lv - &ln_d) / &slope;
            prev = Some((e_mp.clone(), lv));
            e_mp -= &step;
            let small = Float::with_val(prec, &e_mp * (eta0 / 16.0)).abs();
            if step.abs() <= small {
                break;
            }
        }
    }
    // Certify the two ends at ε(1 ± η): the ε-bracket's relative half-width is η.
    let mut eta = eta0;
    for _ in 0..3 {
        let w = Float::with_val(prec, &e_mp * eta);
        let ehi = Float::with_val(prec, &e_mp + &w);
        let elo = Float::with_val(prec, &e_mp - &w).max(&zero);
        let bh = bracket_of(&ln_delta_certified(m, steps, &ehi, dd)?, dd, prec);
        let bl = bracket_of(&ln_delta_certified(m, steps, &elo, dd)?, dd, prec);
        if bh.hi <= *delta && bl.lo >= *delta {
            return Ok(Bracket { lo: elo, hi: ehi });
        }
        eta *= 2.0;
    }
    Err(precision_error(
        digits,
        0,
        "small-T route: could not certify the eps bracket",
    ))
}
