//! The single-step moment E_Q[r^β] of the subsampled Gaussian at complex β by the trapezoid
//! rule on ℝ, with its a-priori error bound, and the decay bounds the u-tail uses
//! (docs/accounting.md#composition).

use super::{f64s, Complex, Constant, Error, Float, Mix, Result, LN_2, MAX_GRID, PI};

// ---------------------------------------------------------------------------------------------
// The single-step moment E_Q[r^β] = ∫ φ_σ(x) r(x)^β dx, r = 1 − q + q e^{t}, t = (x − 1/2)/σ².
// ---------------------------------------------------------------------------------------------

/// Closed-form Gaussian tail bounds of the omitted trapezoid nodes (docs/accounting.md#composition,
/// "x-range"): returns ln of the bound on hx·Σ_{x_j ∉ [xl, xr]} φ_σ(x_j) r(x_j)^b.
pub(super) fn ln_x_tails(m: &Mix, b: f64, xl: f64, xr: f64, hx: f64) -> f64 {
    if m.subst {
        return subst::ln_x_tails(m, b, xl, xr, hx);
    }
    let (q, s) = (m.qf, m.sf);
    let l = xl + hx;
    let r = xr - hx;
    if b >= 1.0 {
        // Jensen: r^b ≤ (1−q) + q e^{bt}; φ_σ(x) e^{bt} = e^{b(b−1)/(2σ²)} φ_σ(x − b).
        let c = b * (b - 1.0) / (2.0 * s * s) + q.ln();
        let left = f64s::log_add_exp(
            (-q).ln_1p() + f64s::log_ndtr(l / s),
            c + f64s::log_ndtr((l - b) / s),
        );
        let right = f64s::log_add_exp(
            (-q).ln_1p() + f64s::log_ndtr(-r / s),
            c + f64s::log_ndtr(-(r - b) / s),
        );
        f64s::log_add_exp(left, right)
    } else if b > 0.0 {
        // 0 < b < 1: r^b ≤ max(1, r) ≤ 1 + q e^t, and φ_σ(x) e^t = φ_σ(x − 1).
        let left = f64s::log_add_exp(
            f64s::log_ndtr(l / s),
            q.ln() + f64s::log_ndtr((l - 1.0) / s),
        );
        let right = f64s::log_add_exp(
            f64s::log_ndtr(-r / s),
            q.ln() + f64s::log_ndtr(-(r - 1.0) / s),
        );
        f64s::log_add_exp(left, right)
    } else {
        // b ≤ 0: r ≥ 1 − q everywhere and r ≥ 1 for x ≥ 1/2.
        let left = b * (-q).ln_1p() + f64s::log_ndtr(l / s);
        let right = f64s::log_ndtr(-r / s);
        f64s::log_add_exp(left, right)
    }
}

/// Range [xl, xr] (multiples of hx) whose omitted nodes carry at most e^{ln_tol}.
pub(super) fn x_range(m: &Mix, b: f64, hx: f64, ln_tol: f64) -> (f64, f64) {
    let s = m.sf;
    let (lo_mono, hi_mono) = if m.subst {
        subst::centre_range(m, b)
    } else {
        (b.min(0.0), b.max(0.5))
    };
    let mut w = 8.0 * s;
    loop {
        let xl = ((lo_mono - w) / hx).floor() * hx - hx;
        let xr = ((hi_mono + w) / hx).ceil() * hx + hx;
        if ln_x_tails(m, b, xl, xr, hx) <= ln_tol || w > 1e6 * s || !(xr - xl).is_finite() {
            return (xl, xr);
        }
        w *= 1.25;
    }
}

/// Strip half-width y, step hx and ln of the strip factor for the x-trapezoid at |Im β| = v:
/// ∫|f(x+iy)| dx ≤ e^{y²/(2σ²) + v·y/σ²}·c_b·E_Q[r^b] (docs/accounting.md#composition), so the
/// discretisation error is ≤ 2·that/(e^{2πy/hx} − 1). Chosen so that the error is ≤ e^{ln_rel}·E.
pub(super) fn x_step(m: &Mix, b: f64, v: f64, ln_rel: f64) -> (f64, f64) {
    let s2 = m.sf * m.sf;
    let big_l = LN_2 - ln_rel;
    let ymax = PI * s2 / 4.0;
    let y = (m.sf * (2.0 * big_l).sqrt()).min(ymax);
    // |r(x+iy)|^b ≤ cos(y/σ²)^{−|b|} r(x)^b for b < 0 (y/σ² ≤ π/4).
    let ln_cb = if m.subst {
        // r₋^{1−β} r₊^β: a negative real exponent on either factor costs cos(y/σ²)^{exponent}.
        -((b - 1.0).max(0.0) + (-b).max(0.0)) * (y / s2).cos().ln()
    } else if b < 0.0 {
        -b.abs() * (y / s2).cos().ln()
    } else {
        0.0
    };
    // |arg r(x+iy)| ≤ y/σ² for each factor: once for add/remove, twice for substitution.
    let args = if m.subst { 2.0 } else { 1.0 };
    let ln_strip = y * y / (2.0 * s2) + args * v.abs() * y / s2 + ln_cb;
    let hx = 2.0 * PI * y / (big_l + ln_strip + 1.0);
    (hx, ln_strip)
}

/// Cached trapezoid nodes of one factor at one b: x_j, φ_σ(x_j) r(x_j)^b (the envelope) and
/// ℓ_j = ln r(x_j), at one precision and step. Both are computed in MPFR; the fast (double
/// precision) evaluation keeps only their doubles (docs/accounting.md#fast-inner).
pub(super) struct Grid {
    pub(super) hx: f64,
    /// MPFR values (empty on the fast path).
    pub(super) ell: Vec<Float>,
    pub(super) env: Vec<Float>,
    /// Fast path: ℓ_j rounded to double, and env_j·2^{−scale} rounded to double.
    pub(super) ell_f: Vec<f64>,
    pub(super) env_f: Vec<f64>,
    /// The power of two taken out of the envelope (its largest value's exponent).
    pub(super) scale: i32,
    /// Upper bounds on Σ env_f and Σ env_f·|ell_f| (fast path).
    pub(super) sum_env_f: f64,
    pub(super) sum_env_ell_f: f64,
    /// Number of nodes.
    pub(super) n: usize,
    /// Σ hx·env (the envelope's trapezoid sum).
    pub(super) env_sum: Float,
    /// Bound on the omitted nodes' envelope mass.
    pub(super) ln_tails: f64,
    /// max |ln env_j| (for the rounding bound).
    pub(super) max_arg: f64,
    /// max |ℓ_j| (for the rounding bound).
    pub(super) max_ell: f64,
}

/// Unit roundoff of IEEE double precision, 2^−53.
const U64: f64 = 1.0 / 9_007_199_254_740_992.0;

impl Grid {
    /// The nodes of one grid; a time limit reached while they are built is an error (a grid
    /// of 2·10⁵ nodes at a few thousand bits takes tens of seconds).
    pub(super) fn new(
        m: &Mix,
        b: &Float,
        hx: f64,
        ln_tol: f64,
        prec: u32,
        fast: bool,
    ) -> Result<Grid> {
        let bf = b.to_f64();
        let (xl, xr) = x_range(m, bf, hx, ln_tol);
        let n_lo = (xl / hx).round() as i64;
        let n_hi = (xr / hx).round() as i64;
        let s2 = Float::with_val(prec, m.sigma.square_ref());
        let ln_norm = {
            let mut c = Float::with_val(prec, Constant::Pi) * 2u32;
            c *= &s2;
            c.ln() / 2u32
        };
        let cap = (n_hi - n_lo + 1).max(0) as usize;
        let mut ell = Vec::with_capacity(if fast { 0 } else { cap });
        let mut env = Vec::with_capacity(ell.capacity());
        let mut ell_f = Vec::with_capacity(if fast { cap } else { 0 });
        let mut env_mp = Vec::with_capacity(ell_f.capacity());
        let mut env_sum = Float::new(prec);
        let mut max_arg: f64 = 0.0;
        let mut max_ell: f64 = 0.0;
        let hxf = Float::with_val(prec, hx);
        for j in n_lo..=n_hi {
            if (j - n_lo) % 4096 == 4095 {
                if let Some(limit) = crate::numeric::deadline::expired() {
                    return Err(Error::Precision {
                        narrowest: None,
                        requested: 0,
                        certified: 0,
                        what: format!(
                            "composition: the moment's quadrature grid (time limit of {limit} s reached)"
                        ),
                    });
                }
            }
            let x = Float::with_val(prec, &hxf * j);
            let t = Float::with_val(prec, &x - 0.5f64) / &s2;
            let mut l = Float::with_val(prec, t.exp_m1() * &m.q).ln_1p();
            // Substitution: ℓ = ln r₊ − ln r₋ and the weight φ_σ r₋ (Q's density).
            let ln_rm = if m.subst {
                let tm = Float::with_val(prec, -Float::with_val(prec, &x + 0.5f64)) / &s2;
                let lm = Float::with_val(prec, tm.exp_m1() * &m.q).ln_1p();
                l -= &lm;
                Some(lm)
            } else {
                None
            };
            let mut lp = Float::with_val(prec, x.square_ref()) / &s2;
            lp /= 2u32;
            let mut arg = Float::with_val(prec, b * &l);
            if let Some(lm) = ln_rm {
                arg += lm;
            }
            arg -= &lp;
            arg -= &ln_norm;
            max_arg = max_arg.max(arg.to_f64().abs());
            let lf = l.to_f64();
            max_ell = max_ell.max(lf.abs());
            let e = arg.exp();
            env_sum += &e;
            if fast {
                ell_f.push(lf);
                env_mp.push(e);
            } else {
                ell.push(l);
                env.push(e);
            }
        }
        env_sum *= &hxf;
        // Fast path: env_j·2^{−scale} ≤ 1 rounded to double (relative error ≤ 2^−53, or an
        // absolute 2^−1075 if it falls below the normal range).
        let scale = env_mp
            .iter()
            .map(|e| e.get_exp().unwrap_or(i32::MIN))
            .max()
            .unwrap_or(0);
        let env_f: Vec<f64> = env_mp
            .iter()
            .map(|e| Float::with_val(prec, e >> scale).to_f64())
            .collect();
        let n = if fast { env_f.len() } else { env.len() };
        // Sums of non-negative doubles: |fl(Σ) − Σ| ≤ γ_{n−1}·Σ (Higham, Accuracy and Stability of
        // Numerical Algorithms, 2nd ed., §4.2, recursive summation).
        let up = 1.0 + 1.01 * (n as f64) * U64;
        let sum_env_f = env_f.iter().sum::<f64>() * up + (n as f64) * f64::MIN_POSITIVE;
        let sum_env_ell_f = env_f
            .iter()
            .zip(&ell_f)
            .map(|(e, l)| e * l.abs())
            .sum::<f64>()
            * up
            * (1.0 + 2.0 * U64)
            + (n as f64) * f64::MIN_POSITIVE;
        Ok(Grid {
            hx,
            ell,
            env,
            ell_f,
            env_f,
            scale,
            sum_env_f,
            sum_env_ell_f,
            n,
            env_sum,
            ln_tails: ln_x_tails(m, bf, xl, xr, hx),
            max_arg,
            max_ell,
        })
    }
}

/// A single-step moment at complex β with its absolute error bound.
pub(super) struct Moment {
    pub(super) value: Complex,
    /// ln of the absolute error bound.
    pub(super) ln_err: f64,
}

/// Per-factor evaluation state (one direction, one damping a).
pub(super) struct MixEval {
    pub(super) mix: Mix,
    pub(super) b: Float,
    /// ln of an upper bound on E_Q[r^b] (the real moment at the damping; E ≥ 1 by Jensen).
    pub(super) ln_env: f64,
    pub(super) ln_rel: f64,
    pub(super) grids: Vec<Grid>,
    pub(super) prec: u32,
    /// Sum the x-trapezoid in double precision with an a-priori rounding bound
    /// (docs/accounting.md#fast-inner) instead of MPFR.
    pub(super) fast: bool,
}

impl MixEval {
    pub(super) fn new(mix: &Mix, a: &Float, ln_rel: f64, prec: u32) -> Result<MixEval> {
        MixEval::with_mode(mix, a, ln_rel, prec, false)
    }

    /// As [`MixEval::new`], with the x-sums in double precision when `fast`.
    pub(super) fn with_mode(
        mix: &Mix,
        a: &Float,
        ln_rel: f64,
        prec: u32,
        fast: bool,
    ) -> Result<MixEval> {
        let b = if mix.flip {
            Float::with_val(prec, 1u32 - a)
        } else {
            Float::with_val(prec, a)
        };
        let mut me = MixEval {
            mix: mix.clone(),
            b,
            ln_env: f64::INFINITY,
            ln_rel,
            grids: Vec::new(),
            prec,
            fast,
        };
        let g0 = me.grid_for(0.0)?;
        // E ≥ 1 (Jensen), so the tails and strip error are relative to at least 1.
        let (_, ln_strip) = x_step(mix, me.b.to_f64(), 0.0, ln_rel);
        let g = &me.grids[g0];
        // E ≤ (trapezoid sum + omitted nodes)/(1 − k0), k0 the strip factor at v = 0.
        let ln_k0 = LN_2 + ln_strip - ln_expm1(2.0 * PI * y_of(mix, ln_rel) / g.hx);
        let ln_sum = ln_float(&g.env_sum) + 1e-12;
        me.ln_env = f64s::log_add_exp(ln_sum, g.ln_tails) - (-ln_k0.exp().min(0.5)).ln_1p();
        Ok(me)
    }

    /// Number of x-nodes a moment at |Im β| = v would use.
    pub(super) fn grid_size(&self, v: f64) -> f64 {
        let bf = self.b.to_f64();
        let (need, _) = x_step(&self.mix, bf, v, self.ln_rel);
        let (xl, xr) = x_range(&self.mix, bf, need, self.ln_rel - 2.0);
        (xr - xl) / need
    }

    /// Index of a cached grid fine enough for |Im β| = v (steps halve from the v = 0 step).
    pub(super) fn grid_for(&mut self, v: f64) -> Result<usize> {
        let bf = self.b.to_f64();
        let (need, _) = x_step(&self.mix, bf, v, self.ln_rel);
        for (i, g) in self.grids.iter().enumerate() {
            if g.hx <= need {
                return Ok(i);
            }
        }
        let mut hx = self
            .grids
            .last()
            .map_or(x_step(&self.mix, bf, 0.0, self.ln_rel).0, |g| g.hx);
        while hx > need {
            hx /= 2.0;
        }
        let ln_tol = self.ln_rel - 2.0;
        let (xl, xr) = x_range(&self.mix, bf, hx, ln_tol);
        // A non-finite span, or ends whose node indices do not fit exactly in an i64 (an
        // x-range or a step that overflowed), is refused like a long grid: the node-index casts
        // of `Grid::new` saturated and overflowed its allocation (proptest input q = 0.00163,
        // σ = 3.52, T = 70,154, δ = 10^−185.4).
        let span = (xr - xl) / hx;
        let exact = |x: f64| (x / hx).abs() < 4.5e15;
        // An inverted range (xr < xl; q = 0.01, σ = 5, T = 1000, δ = 1e-50 once reached
        // Grid::new with a negative node count, which wrapped into a capacity overflow) is
        // refused too.
        if !span.is_finite() || !(0.0..=MAX_GRID).contains(&span) || !exact(xl) || !exact(xr) {
            return Err(Error::Precision {
                narrowest: None,
                requested: 0,
                certified: 0,
                what: if span < 0.0 {
                    format!(
                        "composition: the moment of {} at Re s = {bf:.4e} has an empty x-range (the damping is outside the strip it can be evaluated on)",
                        self.mix.describe()
                    )
                } else {
                    format!(
                        "composition: the moment of {} at Im s = {v:.3e} needs more than {MAX_GRID:e} quadrature nodes",
                        self.mix.describe()
                    )
                },
            });
        }
        self.grids.push(Grid::new(
            &self.mix, &self.b, hx, ln_tol, self.prec, self.fast,
        )?);
        Ok(self.grids.len() - 1)
    }

    /// E_Q[r^{b + i v}] with an absolute error bound (strip + tails + rounding).
    pub(super) fn moment(&mut self, v: &Float) -> Result<Moment> {
        let vf = v.to_f64();
        let gi = self.grid_for(vf)?;
        let prec = self.prec;
        let g = &self.grids[gi];
        let hx = Float::with_val(prec, g.hx);
        let (mut value, round) = if self.fast {
            let (re, im, ln_round) = fast_sum(g, v);
            let mut re = Float::with_val(prec, re) * &hx;
            let mut im = Float::with_val(prec, im) * &hx;
            re <<= g.scale;
            im <<= g.scale;
            // MPFR's errors in env_j and ℓ_j (the rounding bound of the slow path, with the phase
            // itself computed in double precision and bounded separately).
            let n = g.n as f64;
            let mp = ln_float(&g.env_sum)
                + (n + 16.0 + 4.0 * (g.max_arg + vf.abs() * g.max_ell)).ln()
                - f64::from(prec) * LN_2
                + 4f64.ln();
            let ln_round = ln_round + g.hx.ln() + f64::from(g.scale) * LN_2 + 1e-9;
            (
                Complex::with_val(prec, (re, im)),
                f64s::log_add_exp(mp, ln_round),
            )
        } else {
            let mut re = Float::new(prec);
            let mut im = Float::new(prec);
            let mut max_ph: f64 = 0.0;
            for (l, e) in g.ell.iter().zip(&g.env) {
                let ph = Float::with_val(prec, v * l);
                max_ph = max_ph.max(ph.to_f64().abs());
                let (sn, cs) = ph.sin_cos(Float::new(prec));
                re += Float::with_val(prec, &cs * e);
                im += Float::with_val(prec, &sn * e);
            }
            re *= &hx;
            im *= &hx;
            let n = g.env.len() as f64;
            let round = ln_float(&g.env_sum) + (n + 16.0 + 4.0 * (g.max_arg + max_ph)).ln()
                - f64::from(prec) * LN_2
                + 4f64.ln();
            (Complex::with_val(prec, (re, im)), round)
        };
        let (_, ln_strip) = x_step(&self.mix, self.b.to_f64(), vf, self.ln_rel);
        let y = y_of(&self.mix, self.ln_rel);
        let strip = LN_2 + ln_strip + self.ln_env - ln_expm1(2.0 * PI * y / g.hx);
        if self.mix.flip {
            // M_add(a + iu) = E_Q[r^{1−a−iu}] = conj(E_Q[r^{1−a+iu}]).
            value = value.conj();
        }
        Ok(Moment {
            value,
            ln_err: f64s::log_sum_exp(&[strip, g.ln_tails, round]),
        })
    }
}

/// Σ_j env_f[j]·(cos, sin)(v·ell_f[j]) in double precision, compensated (Ogita, Rump & Oishi,
/// SIAM J. Sci. Comput. 26 (2005), Alg. 4.4 "Sum2"), with ln of an a-priori bound on its absolute
/// error against Σ_j e_j (cos, sin)(v·ℓ_j) for the MPFR values e_j = env_f-source·2^{−scale} and
/// ℓ_j that env_f and ell_f round (docs/accounting.md#fast-inner). Both components' bounds are
/// added (|z| ≤ |Re z| + |Im z|).
fn fast_sum(g: &Grid, v: &Float) -> (f64, f64, f64) {
    let vf = v.to_f64();
    // |v − vf| (zero when v is a double, as the u-nodes are), rounded up.
    let dv = Float::with_val(64, v - vf).abs().to_f64() * 2.0;
    let (mut sr, mut cr) = (0.0f64, 0.0f64);
    let (mut si, mut ci) = (0.0f64, 0.0f64);
    for (&l, &e) in g.ell_f.iter().zip(&g.env_f) {
        let (sn, cs) = (vf * l).sin_cos();
        let (xr, xi) = (e * cs, e * sn);
        // TwoSum (Knuth): s + c = old s + x exactly.
        let t = sr + xr;
        let z = t - sr;
        cr += (sr - (t - z)) + (xr - z);
        sr = t;
        let t = si + xi;
        let z = t - si;
        ci += (si - (t - z)) + (xi - z);
        si = t;
    }
    let n = g.n as f64;
    let se = g.sum_env_f;
    // Per term, against e_j·cs(vℓ_j): env rounding u·e_j (+2^−1075), product rounding u,
    // libm sin/cos ≤ 4 ulp = 2^−51 absolute on [−1, 1] (glibc documents ≤ 1 ulp; margin ×4),
    // phase: |fl(vf·fl(ℓ)) − vℓ| ≤ (2u + u²)|vℓ| + |v − vf||ℓ|. Sum2: u|S| + γ²_{n−1}Σ|x_j|,
    // |S| and Σ|x_j| ≤ (1 + u)Σ e_j.
    let gamma = (n * U64) / (1.0 - n * U64);
    let per_term = se * (1.0 + U64) * (2.0 * U64 + 2.0f64.powi(-51) + U64 + gamma * gamma)
        + g.sum_env_ell_f * (vf.abs() * (2.0 * U64 + U64 * U64) * (1.0 + U64) + dv)
        + 3.0 * n * 2.0f64.powi(-1074);
    let bound = 2.0 * per_term * (1.0 + 1e-6);
    (sr + cr, si + ci, bound.ln())
}

/// ln(e^x − 1) without overflow.
pub(super) fn ln_expm1(x: f64) -> f64 {
    if x > 40.0 {
        x + (-(-x).exp()).ln_1p()
    } else {
        x.exp_m1().ln()
    }
}

/// ln x of a positive Float, in f64 (no overflow whatever the exponent).
pub(super) fn ln_float(x: &Float) -> f64 {
    Float::with_val(64, x.ln_ref()).to_f64()
}

/// The strip half-width used by [`x_step`] (independent of v and b).
pub(super) fn y_of(m: &Mix, ln_rel: f64) -> f64 {
    let big_l = LN_2 - ln_rel;
    (m.sf * (2.0 * big_l).sqrt()).min(PI * m.sf * m.sf / 4.0)
}

/// ln E_Q[r^b] in f64 for real b (for choosing the damping; not part of any certificate).
pub(super) fn ln_moment_f64(m: &Mix, b: f64) -> f64 {
    if m.subst {
        return subst::ln_j_f64(m, 1.0 - b, b);
    }
    let (hx, _) = x_step(m, b, 0.0, -40.0);
    let (xl, xr) = x_range(m, b, hx, -40.0);
    if (xr - xl) / hx > 2.0e6 {
        // Too expensive to estimate: +∞ rules this order out (or makes a bound vacuous).
        return f64::INFINITY;
    }
    let s2 = m.sf * m.sf;
    let ln_norm = 0.5 * (2.0 * PI * s2).ln();
    let mut terms = Vec::new();
    let mut x = xl;
    while x <= xr {
        let t = (x - 0.5) / s2;
        let l = (m.qf * t.exp_m1()).ln_1p();
        terms.push(b * l - x * x / (2.0 * s2) - ln_norm);
        x += hx;
    }
    f64s::log_sum_exp(&terms) + hx.ln()
}

/// Upper bound on |d/du E_Q[r^{b+iu}]| / E_Q[r^b] ≤ E_Q[|ln r| r^b]/E_Q[r^b]
/// ≤ −ln(1−q) + E[r^{b+1}]/E[r^b] − (1−q), from |ln r| ≤ −ln(1−q) + q e^t pointwise and
/// E_Q[q e^t r^b] = E_Q[(r − 1 + q) r^b]. The ratio is evaluated in double precision (error
/// far below the 10⁻⁶ relative margin added).
pub(super) fn lipschitz_rel(m: &Mix, b: f64) -> f64 {
    if m.subst {
        return subst::lipschitz_rel(m, b);
    }
    let ratio = (ln_moment_f64(m, b + 1.0) - ln_moment_f64(m, b)).exp();
    let q = m.qf;
    (-(-q).ln_1p() + (ratio - (1.0 - q)).max(0.0) + 1e-12) * (1.0 + 1e-6)
}

pub(super) fn ln_ibp_constant(m: &Mix, b: f64) -> f64 {
    if m.subst {
        return subst::ln_ibp_constant(m, b);
    }
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let c = b + 1.0;
    let p_of = |x: f64| {
        let t = (x - 0.5) / s2;
        1.0 / (1.0 + (1.0 - q) / q * (-t).exp())
    };
    let f = |x: f64| c * p_of(x) - x - 1.0;
    let ln_h = |x: f64| {
        let t = (x - 0.5) / s2;
        let lr = (q * t.exp_m1()).ln_1p();
        s2.ln() - q.ln() + f64s::log_norm_pdf(x / s) - s.ln() + c * lr - t
    };
    let x_of_p = |p: f64| s2 * (p * (1.0 - q) / ((1.0 - p) * q)).ln() + 0.5;
    // Monotone pieces of f.
    let mut cuts = vec![f64::NEG_INFINITY];
    if c > 4.0 * s2 {
        let d = (1.0 - 4.0 * s2 / c).sqrt();
        cuts.push(x_of_p((1.0 - d) / 2.0));
        cuts.push(x_of_p((1.0 + d) / 2.0));
    }
    cuts.push(f64::INFINITY);
    let mut maxima = Vec::new();
    for w in cuts.windows(2) {
        let (mut lo, mut hi) = (w[0], w[1]);
        if lo == f64::NEG_INFINITY {
            lo = hi.min(0.0) - 1.0;
            while f(lo) < 0.0 {
                lo = 2.0 * lo - 1.0;
            }
        }
        if hi == f64::INFINITY {
            hi = lo.max(0.0) + 1.0;
            while f(hi) > 0.0 {
                hi = 2.0 * hi + 1.0;
            }
        }
        let (flo, fhi) = (f(lo), f(hi));
        if flo > 0.0 && fhi < 0.0 {
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if f(mid) > 0.0 {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            maxima.push(ln_h(lo).max(ln_h(hi)));
        }
    }
    LN_2 + f64s::log_sum_exp(&maxima) + 1e-6
}

mod subst;
