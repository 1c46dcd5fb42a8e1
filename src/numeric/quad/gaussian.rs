//! Integrals of exp(quadratic)·factor over finite, half-infinite and infinite intervals: the
//! Gaussian-family integrands of the quadrature route, cut on the decay scale (docs/formulas.md
//! §9.8) and integrated largest piece first.

use super::{
    gaussian_tail_ln_bound, horner, integrate, ln_add, sort_breakpoints, split, LogIntegrand,
    PieceRule, Point, QuadOptions, QuadResult, Rule, LN_10,
};
use crate::error::{Error, Result};
use rug::float::Constant;
use rug::ops::NegAssign;
use rug::{Assign, Float};

// ------------------------------------------------------------------------------------------
// Integrals of exp(quadratic) · factor

/// A log-quadratic envelope log f(x) = c0 + c1·x + c2·x² with c2 < 0, with f64 magnitudes of the
/// terms that formed each coefficient (for the rounding floor).
#[derive(Clone, Debug)]
pub(crate) struct Quadratic {
    /// Coefficients c0, c1, c2.
    pub c: [Float; 3],
    /// Magnitudes |terms| that were summed into each coefficient (≥ |c_i|).
    pub mag: [f64; 3],
}

impl Quadratic {
    /// log N(x; μ, σ²) = −ln σ − ln√(2π) − (x − μ)²/(2σ²), as coefficients, at `prec`.
    pub(crate) fn log_normal(mu: &Float, sigma: &Float, prec: u32) -> Self {
        let wp = prec;
        let s2 = Float::with_val(wp, sigma.square_ref());
        let inv = Float::with_val(wp, s2.recip_ref()) / 2u32; // 1/(2σ²)
        let c2 = Float::with_val(wp, -&inv);
        let c1 = Float::with_val(wp, mu * &inv) * 2u32;
        let two_pi = Float::with_val(wp + 8, Constant::Pi) * 2u32;
        let ln_sqrt_2pi = Float::with_val(wp, two_pi.ln() / 2u32);
        let mu2 = Float::with_val(wp, mu.square_ref()) * &inv;
        let lns = Float::with_val(wp, sigma.ln_ref());
        let m0 = mu2.to_f64().abs() + lns.to_f64().abs() + 1.0;
        let c0 = -mu2 - lns - ln_sqrt_2pi;
        let mag = [m0, c1.to_f64().abs(), c2.to_f64().abs()];
        Quadratic {
            c: [c0, c1, c2],
            mag,
        }
    }

    /// w1·q1 + w2·q2 (coefficient-wise), e.g. α·log p1 + (1−α)·log p2.
    pub(crate) fn combine(
        w1: &Float,
        q1: &Quadratic,
        w2: &Float,
        q2: &Quadratic,
        prec: u32,
    ) -> Self {
        let w1a = w1.to_f64().abs();
        let w2a = w2.to_f64().abs();
        let c: [Float; 3] = std::array::from_fn(|i| {
            let a = Float::with_val(prec, w1 * &q1.c[i]);
            let b = Float::with_val(prec, w2 * &q2.c[i]);
            a + b
        });
        let mag = std::array::from_fn(|i| w1a * q1.mag[i] + w2a * q2.mag[i] + 1e-300);
        Quadratic { c, mag }
    }

    /// Peak m = −c1/(2c2) and scale s = 1/√(−2c2) in f64 (c2 must be < 0).
    pub(crate) fn peak_scale(&self) -> (f64, f64) {
        let c1 = self.c[1].to_f64();
        let c2 = self.c[2].to_f64();
        (-c1 / (2.0 * c2), 1.0 / (-2.0 * c2).sqrt())
    }

    /// Value at the peak, ln of the envelope maximum, computed at full precision then rounded.
    pub(crate) fn peak_value(&self) -> f64 {
        let p = self.c[0].prec();
        let t = Float::with_val(p, self.c[1].square_ref()) / Float::with_val(p, &self.c[2] * 4u32);
        Float::with_val(p, &self.c[0] - t).to_f64()
    }

    /// f64 evaluation.
    pub(crate) fn eval64(&self, x: f64) -> f64 {
        self.c[0].to_f64() + x * (self.c[1].to_f64() + x * self.c[2].to_f64())
    }
}

/// Linear factor g(x) multiplying the envelope; it must not change sign on each interval it is
/// integrated over (the caller passes its roots as breakpoints).
#[derive(Clone, Debug)]
pub(crate) enum Factor {
    /// g = 1.
    One,
    /// g(x) = Σ c_i x^i (degree ≤ 2).
    Poly {
        /// Coefficients c_0, c_1, c_2.
        c: Vec<Float>,
        /// Magnitudes of the terms that formed each coefficient (≥ |c_i|): the rounding error of
        /// c_i is at most 4·mag_i·2^-prec. This matters when c_i is a difference of nearly equal
        /// numbers (log-likelihood ratios of near-equal variances).
        mag: Vec<f64>,
    },
    /// g(x) = 1 − exp(e − L(x)) with L(x) = Σ l_i x^i (the positive part of p1 − e^ε p2 on
    /// {L > e}); 0 ≤ g ≤ 1 there.
    OneMinusExp {
        /// The threshold e.
        e: Float,
        /// Magnitude of the terms that formed e (≥ |e|).
        emag: f64,
        /// Coefficients of the quadratic L.
        l: Vec<Float>,
        /// Magnitudes of the terms that formed each l_i (≥ |l_i|).
        mag: Vec<f64>,
    },
}

impl Factor {
    /// A polynomial factor whose coefficients carry only their own rounding.
    pub(crate) fn poly(c: Vec<Float>) -> Self {
        let mag = c.iter().map(|x| x.to_f64().abs()).collect();
        Factor::Poly { c, mag }
    }

    /// |g(x)| ≤ k0 + k1|x| + k2 x² (f64 coefficients).
    fn bound(&self) -> [f64; 3] {
        match self {
            Factor::One => [1.0, 0.0, 0.0],
            Factor::OneMinusExp { .. } => [1.0, 0.0, 0.0],
            Factor::Poly { c: p, .. } => {
                let mut k = [0.0; 3];
                for (i, c) in p.iter().enumerate().take(3) {
                    k[i] = c.to_f64().abs() * 1.000001;
                }
                k
            }
        }
    }
}

/// The integrand exp(q(x))·g(x) of [`gaussian`], in log space.
pub(super) struct QuadFactorIntegrand<'a> {
    /// The log-quadratic envelope.
    pub(super) q: &'a Quadratic,
    /// Its coefficients in f64, for the node-skipping estimate.
    pub(super) c: [f64; 3],
    /// The factor g.
    pub(super) factor: &'a Factor,
    /// Scratch value for the factor's argument.
    pub(super) tmp: Float,
}

impl LogIntegrand for QuadFactorIntegrand<'_> {
    fn eval(&mut self, x: &Float, pt: &mut Point) {
        // Horner: c0 + x (c1 + x c2)
        let xf = x.to_f64().abs();
        pt.log_env.assign(&self.q.c[2] * x);
        pt.log_env += &self.q.c[1];
        pt.log_env *= x;
        pt.log_env += &self.q.c[0];
        pt.mag = self.q.mag[0] + xf * (2.0 * self.q.mag[1] + 3.0 * xf * self.q.mag[2]);
        match self.factor {
            Factor::One => {}
            Factor::Poly { c: p, mag } => {
                pt.has_factor = true;
                let n = p.len();
                let m = horner(&mut pt.factor, p, mag, x, xf);
                let v = pt.factor.to_f64().abs();
                pt.fmag = if v > 0.0 {
                    4.0 * n as f64 * m / v
                } else {
                    1e300
                };
            }
            Factor::OneMinusExp { e, emag, l, mag } => {
                pt.has_factor = true;
                let m = horner(&mut self.tmp, l, mag, x, xf);
                // g = −expm1(e − L)
                self.tmp -= e;
                self.tmp.neg_assign();
                let arg = self.tmp.to_f64().abs();
                pt.factor.assign(self.tmp.exp_m1_ref());
                pt.factor.neg_assign();
                // Absolute error of the argument ≈ (m + |e|)·2^-p·4.
                // On the region z = e − L ≤ 0 and the relative error of −expm1(z) caused by an
                // argument error η is η·e^z/|expm1 z| = η/expm1(|z|).
                let z = arg.max(1e-300);
                let fm = 4.0 * (m + emag.max(e.to_f64().abs())) / z.exp_m1();
                pt.fmag = 8.0 + fm.min(1e300);
            }
        }
    }

    fn estimate(&self, x: f64) -> Option<f64> {
        let env = self.c[0] + x * (self.c[1] + x * self.c[2]);
        let k = self.factor.bound();
        let ax = x.abs();
        Some(env + (k[0] + ax * (k[1] + ax * k[2])).ln() + 1.0)
    }
}

/// Drop levels (nats below the envelope maximum) at which [`gaussian`] puts breakpoints.
pub(super) const DROPS: [f64; 6] = [24.0, 96.0, 384.0, 1536.0, 6144.0, 24576.0];

/// ∫_u^v exp(q(x))·g(x) dx for a concave log-quadratic envelope q (c2 < 0) and a factor g of
/// constant sign on each interval between the given `extra` breakpoints (which must include the
/// roots of g inside (u, v)). `u = None` means −∞, `v = None` means +∞.
///
/// The range is cut where the Gaussian tail bound ([`gaussian_tail_ln_bound`]) of the remainder
/// is below 10^-(digits+3) of the result (checked after integrating; the bound is added to the
/// error). The whole line uses the trapezoidal [`Rule::Line`]; otherwise the range is split at
/// the drop levels 24, 96, 384, … nats below the envelope maximum and at `extra`, and each piece
/// is integrated by Gauss–Legendre with an order chosen from its digits and its log-variation.
pub(crate) fn gaussian(
    q: &Quadratic,
    factor: &Factor,
    u: Option<&Float>,
    v: Option<&Float>,
    extra: &[Float],
    opts: &QuadOptions,
) -> Result<QuadResult> {
    let prec = opts.prec;
    if q.c[2] >= 0 {
        return Err(Error::invalid(
            "quadratic coefficient c2",
            q.c[2].to_f64(),
            "< 0 (integrable Gaussian envelope)",
        ));
    }
    if let (Some(u), Some(v)) = (u, v) {
        if u >= v {
            return Ok(QuadResult::zero(prec));
        }
    }
    let env = Envelope::new(q, factor, u, v);
    let c64 = [q.c[0].to_f64(), q.c[1].to_f64(), q.c[2].to_f64()];
    let mut integrand = QuadFactorIntegrand {
        q,
        c: c64,
        factor,
        tmp: Float::new(prec),
    };
    let (m, s) = (env.m, env.s);
    let mut drop_max = (opts.digits + 6.0) * LN_10 + 2.0 * (1.0 + m.abs() / s).ln() + 10.0;
    let mut attempt = 0;
    loop {
        attempt += 1;
        let cut = env.cut(drop_max);
        let total = if u.is_none() && v.is_none() {
            whole_line(&mut integrand, &env, &cut, opts)?
        } else {
            let pts = env.breakpoints(&cut, u, v, extra, drop_max, prec)?;
            let mut o = opts.clone();
            o.log_sup = Some(env.envmax + env.fac_at(cut.lo.abs().max(cut.hi.abs())) + 1.0);
            split(&mut integrand, &pts, &o, PieceRule::GaussLegendre)?
        };
        // The truncation must be negligible relative to the result.
        let tail_ln = cut.tail_ln;
        let res_ln = total
            .log_abs
            .to_f64()
            .max(opts.log_ref.unwrap_or(f64::NEG_INFINITY));
        if tail_ln <= res_ln - (opts.digits + 3.0) * LN_10 || attempt >= 4 {
            let mut t = total;
            t.log_abs_err = ln_add(t.log_abs_err, tail_ln);
            return Ok(t);
        }
        drop_max += (tail_ln - (res_ln - (opts.digits + 3.0) * LN_10)).max(10.0) + 10.0;
    }
}

/// The envelope of a [`gaussian`] integral in f64: its peak m, scale s and peak value, the
/// factor's bound, the range (u, v) and where on it the envelope is largest.
struct Envelope {
    m: f64,
    s: f64,
    peak: f64,
    kb: [f64; 3],
    u64v: Option<f64>,
    v64v: Option<f64>,
    /// where the envelope is largest on the range, and its value there
    xmax: f64,
    envmax: f64,
}

/// The effective range [lo, hi] of one attempt, whether each end was cut short of the range,
/// and the Gaussian tail bound (log) of what was cut off.
struct Cut {
    lo: f64,
    hi: f64,
    clipped_lo: bool,
    clipped_hi: bool,
    tail_ln: f64,
}

impl Envelope {
    fn new(q: &Quadratic, factor: &Factor, u: Option<&Float>, v: Option<&Float>) -> Envelope {
        let (m, s) = q.peak_scale();
        let peak = q.peak_value();
        let kb = factor.bound();
        let u64v = u.map(|x| x.to_f64());
        let v64v = v.map(|x| x.to_f64());
        // Envelope maximum over the range and where it is attained.
        let xmax = m.clamp(
            u64v.unwrap_or(f64::NEG_INFINITY),
            v64v.unwrap_or(f64::INFINITY),
        );
        let envmax = if xmax == m { peak } else { q.eval64(xmax) };
        Envelope {
            m,
            s,
            peak,
            kb,
            u64v,
            v64v,
            xmax,
            envmax,
        }
    }

    /// ln of the factor's bound at x.
    fn fac_at(&self, x: f64) -> f64 {
        let kb = self.kb;
        (kb[0] + x.abs() * (kb[1] + x.abs() * kb[2]))
            .max(1e-300)
            .ln()
    }

    /// Distance from the peak where the envelope has dropped by `d` nats below its value at the
    /// peak-side reference point x0 (moving away from the peak): solve (y+g)² − g² = 2s²d,
    /// g = |x0 − m|.
    fn reach(&self, g: f64, d: f64) -> f64 {
        let s = self.s;
        (g * g + 2.0 * s * s * d).sqrt() - g
    }

    /// Effective range [lo, hi] (f64): where the envelope is within `drop_max` of its maximum on
    /// the range; the Gaussian tail bound covers what lies beyond.
    fn cut(&self, drop_max: f64) -> Cut {
        let (m, s, xmax) = (self.m, self.s, self.xmax);
        let mut tail_ln = f64::NEG_INFINITY;
        let lo_cut = if xmax <= m {
            xmax - self.reach(m - xmax, drop_max)
        } else {
            f64::NEG_INFINITY
        };
        let hi_cut = if xmax >= m {
            xmax + self.reach(xmax - m, drop_max)
        } else {
            f64::INFINITY
        };
        let (lo, clipped_lo) = match self.u64v {
            Some(uu) if uu >= lo_cut => (uu, false),
            _ => (lo_cut, true),
        };
        let (hi, clipped_hi) = match self.v64v {
            Some(vv) if vv <= hi_cut => (vv, false),
            _ => (hi_cut, true),
        };
        if clipped_hi {
            tail_ln = ln_add(
                tail_ln,
                gaussian_tail_ln_bound(self.peak, hi - m, s, hi.abs(), self.kb),
            );
        }
        if clipped_lo {
            tail_ln = ln_add(
                tail_ln,
                gaussian_tail_ln_bound(self.peak, m - lo, s, lo.abs(), self.kb),
            );
        }
        Cut {
            lo,
            hi,
            clipped_lo,
            clipped_hi,
            tail_ln,
        }
    }

    /// Breakpoints: ends, peak, drop levels, extras (all within [lo, hi]), sorted.
    fn breakpoints(
        &self,
        cut: &Cut,
        u: Option<&Float>,
        v: Option<&Float>,
        extra: &[Float],
        drop_max: f64,
        prec: u32,
    ) -> Result<Vec<Float>> {
        let (m, xmax, lo, hi) = (self.m, self.xmax, cut.lo, cut.hi);
        let lo_f = match u {
            Some(uu) if !cut.clipped_lo => uu.clone(),
            _ => Float::with_val(prec, lo),
        };
        let hi_f = match v {
            Some(vv) if !cut.clipped_hi => vv.clone(),
            _ => Float::with_val(prec, hi),
        };
        let mut pts: Vec<Float> = vec![lo_f.clone(), hi_f.clone()];
        let mut push = |x: f64| {
            if x > lo && x < hi {
                pts.push(Float::with_val(prec, x));
            }
        };
        for &d in DROPS.iter() {
            if d > drop_max {
                break;
            }
            if xmax >= m {
                push(xmax + self.reach(xmax - m, d));
            }
            if xmax <= m {
                push(xmax - self.reach(m - xmax, d));
            }
        }
        for e in extra {
            if *e > lo_f && *e < hi_f {
                pts.push(e.clone());
            }
        }
        sort_breakpoints(&mut pts)?;
        Ok(pts)
    }
}

/// The whole line: the trapezoid centred at m with scale s, out to the cut.
fn whole_line(
    integrand: &mut QuadFactorIntegrand,
    env: &Envelope,
    cut: &Cut,
    opts: &QuadOptions,
) -> Result<QuadResult> {
    let (m, s, prec) = (env.m, env.s, opts.prec);
    let k = ((cut.hi - m).max(m - cut.lo) / s).ceil().max(4.0) as u32;
    let rule = Rule::Line {
        m: Float::with_val(prec, m),
        s: Float::with_val(prec, s),
        k,
    };
    let mut o = opts.clone();
    o.digits += 0.5;
    o.min_level = o.min_level.max(1);
    if o.log_sup.is_none() {
        o.log_sup = Some(env.envmax + env.fac_at(m.abs() + k as f64 * s) + 1.0);
    }
    integrate(integrand, &rule, &o)
}
