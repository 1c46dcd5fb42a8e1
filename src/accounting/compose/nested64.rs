//! The small-T route at T = 3: δ₃(ε) of one Poisson-subsampled Gaussian (add/remove neighbours)
//! as a doubly nested integral in double precision, for up to [`MAX_DIGITS`] requested digits
//! (docs/accounting.md#small-t3).
//!
//! Conditioning on the first step, δ_T(c) = ∫ w(x) δ_{T−1}(c ∓ L(x)) dx for every real c, with
//! w = φ_σ·r and c − L for the remove direction, w = φ_σ and c + L for the add direction
//! (`nested.rs` does T = 2 in MPFR; this file recurses once more). δ₁ is a closed form in
//! Gaussian tails, written with the Mills ratio so that the one cancellation of the MPFR route
//! (e^{t*}Φ̄(x*/σ) against Φ̄((x*−1)/σ)) becomes a difference of two logarithms of order ln x*.
//! Each integral is an adaptive 21-point Gauss–Kronrod rule on pieces of width σ; its error is
//! the Kronrod estimate |K − G| of each piece (the crate's standard for quadrature: an estimate,
//! not an a-priori bound), plus rigorous bounds for the cut left tail and the pieces skipped as
//! negligible, plus the inner integrals' relative errors, plus a rounding allowance of
//! [`rho`] per evaluated closed form (checked against MPFR in the tests). The closed-form parts
//! (where the second step cannot matter any more) are exact formulas.

use super::{precision_error, Bracket, Composed, Dir, Error, Float, Mix, Result, Scalar};
use crate::numeric::f64s::{log1mexp, log_add_exp, log_ndtr, log_norm_pdf};
use std::f64::consts::LN_10;

/// Most digits this route answers; beyond, the dispatcher uses the inversion.
pub(super) const MAX_DIGITS: u32 = 8;

/// Relative rounding allowance of one evaluated closed form (δ₁, the closed-form tail, the
/// weight) whose logarithm is `ln`: 10⁻¹² plus 4·10⁻¹⁵·|ln| (a double holds ln δ = −600 only to
/// an absolute 6·10⁻¹⁴, i.e. that relative error of δ). The test `kernel_matches_mpfr` fails when
/// a one-step value deviates from a 256-bit MPFR evaluation by more than a quarter of it.
pub(crate) fn rho(ln: f64) -> f64 {
    RHO + 4e-15 * if ln.is_finite() { ln.abs() } else { 0.0 }
}

/// The constant part of [`rho`].
const RHO: f64 = 1e-12;

/// 21-point Gauss–Kronrod nodes (non-negative half, the last is 0) and weights; the 10-point
/// Gauss weights belong to the odd-indexed nodes. QUADPACK's `qk21` values (Piessens et al.
/// 1983); the test `kronrod_rules_are_exact` checks them on monomials.
const XGK: [f64; 11] = [
    0.995_657_163_025_808_1,
    0.973_906_528_517_171_7,
    0.930_157_491_355_708_2,
    0.865_063_366_688_984_5,
    0.780_817_726_586_416_9,
    0.679_409_568_299_024_4,
    0.562_757_134_668_604_7,
    0.433_395_394_129_247_2,
    0.294_392_862_701_460_2,
    0.148_874_338_981_631_2,
    0.0,
];
const WGK: [f64; 11] = [
    0.011_694_638_867_371_874,
    0.032_558_162_307_964_73,
    0.054_755_896_574_351_996,
    0.075_039_674_810_919_95,
    0.093_125_454_583_697_6,
    0.109_387_158_802_297_64,
    0.123_491_976_262_065_85,
    0.134_709_217_311_473_33,
    0.142_775_938_577_060_08,
    0.147_739_104_901_338_5,
    0.149_445_554_002_916_9,
];
const WG: [f64; 5] = [
    0.066_671_344_308_688_14,
    0.149_451_349_150_580_6,
    0.219_086_362_515_982_04,
    0.269_266_719_309_996_35,
    0.295_524_224_714_752_87,
];

/// ln R(t), R(t) = Φ(−t)/φ(t) the Mills ratio: for t < 7 from libm's erfc (relative accuracy
/// of a few ulp; the absolute error of the result is ≈ u·t²/2, at most 5·10⁻¹⁴ on [−20, 7]),
/// beyond by the crate's continued fraction (`f64s::ln_mills`), which converges slowly near 0.5
/// and fast for large t. Checked through `kernel_matches_mpfr`.
fn ln_mills(t: f64) -> f64 {
    if t < 7.0 {
        (0.5 * libm::erfc(t * std::f64::consts::FRAC_1_SQRT_2)).ln()
            + 0.5 * t * t
            + 0.918_938_533_204_672_8
    } else {
        crate::numeric::f64s::ln_mills(t)
    }
}

/// A value in log space with a bound on its relative error.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Val {
    /// ln of the value (−∞ for 0).
    pub ln: f64,
    /// Bound on |computed − exact| / computed.
    pub rel: f64,
}

impl Val {
    fn zero() -> Val {
        Val {
            ln: f64::NEG_INFINITY,
            rel: 0.0,
        }
    }
}

/// Cap on piece evaluations (21 nodes each) of one integral before it reports failure.
const MAX_PIECES: usize = 4000;

/// One subsampled-Gaussian step in one direction, in double precision.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Kern {
    q: f64,
    s: f64,
    ln1mq: f64,
    ln_q: f64,
    ln_s: f64,
    add: bool,
}

fn not_finite(what: &str) -> Error {
    precision_error(
        0,
        0,
        &format!("three-step delta (nested quadrature): {what}"),
    )
}

impl Kern {
    pub(crate) fn new(q: f64, s: f64, add: bool) -> Kern {
        Kern {
            q,
            s,
            ln1mq: (-q).ln_1p(),
            ln_q: q.ln(),
            ln_s: s.ln(),
            add,
        }
    }

    /// L(x) = ln r(x) = ln(1 − q + q e^t), t = (x − ½)/σ², without overflow.
    fn ell(&self, x: f64) -> f64 {
        let t = (x - 0.5) / (self.s * self.s);
        if t < 30.0 {
            (self.q * t.exp_m1()).ln_1p()
        } else {
            t + self.ln_q + ((1.0 / self.q - 1.0) * (-t).exp()).ln_1p()
        }
    }

    /// t with ln(1 − q + q e^t) = v, for v > ln(1 − q).
    fn t_of_level(&self, v: f64) -> f64 {
        v + log1mexp(self.ln1mq - v) - self.ln_q
    }

    fn x_of_t(&self, t: f64) -> f64 {
        t * self.s * self.s + 0.5
    }

    /// ln of the weight: φ_σ(x)·r(x) (remove) or φ_σ(x) (add).
    fn ln_w(&self, x: f64) -> f64 {
        let g = log_norm_pdf(x / self.s) - self.ln_s;
        if self.add {
            g
        } else {
            g + self.ell(x)
        }
    }

    /// ln of max over [a, b] of the weight (a Gaussian is largest at the point nearest its mean;
    /// φ_σ r = (1 − q)φ_σ + q φ_σ(· − 1)).
    fn ln_w_max(&self, a: f64, b: f64) -> f64 {
        let g = |m: f64| log_norm_pdf((m.clamp(a, b) - m) / self.s) - self.ln_s;
        if self.add {
            g(0.0)
        } else {
            log_add_exp(self.ln1mq + g(0.0), self.ln_q + g(1.0))
        }
    }

    /// ln(1 − e^d) for the ratio d < 0 of the two tails of δ₁ (NaN if rounding made d ≥ 0).
    fn ln_one_minus(d: f64) -> f64 {
        if d < 0.0 {
            log1mexp(d)
        } else {
            f64::NAN
        }
    }

    /// ln δ₁(c), one step: remove E_Q[(r − e^c)_+], add E_Q[(1 − e^c r)_+]
    /// (docs/accounting.md#small-t; the tail ratio by the Mills ratio R, using
    /// e^t φ(x/σ) = φ((x − 1)/σ)).
    pub(crate) fn ln_delta1(&self, c: f64) -> f64 {
        let h = 1.0 / self.s;
        if self.add {
            let mc = -c;
            if mc <= self.ln1mq {
                return f64::NEG_INFINITY;
            }
            let t = self.t_of_level(mc);
            let z = self.x_of_t(t) / self.s;
            // δ₁ = e^c q e^t Φ(z)[1 − e^{−t}Φ(z − h)/Φ(z)], the ratio = R(h − z)/R(−z).
            let d = if z <= 20.0 {
                ln_mills(h - z) - ln_mills(-z)
            } else {
                -t + log_ndtr(z - h) - log_ndtr(z)
            };
            c + self.ln_q + t + log_ndtr(z) + Self::ln_one_minus(d)
        } else {
            if c <= self.ln1mq {
                return log1mexp(c);
            }
            let t = self.t_of_level(c);
            let z = self.x_of_t(t) / self.s;
            // δ₁ = q Φ̄(z − h)[1 − e^t Φ̄(z)/Φ̄(z − h)], the ratio = R(z)/R(z − h).
            let d = if z - h >= -20.0 {
                ln_mills(z) - ln_mills(z - h)
            } else {
                t + log_ndtr(-z) - log_ndtr(h - z)
            };
            self.ln_q + log_ndtr(h - z) + Self::ln_one_minus(d)
        }
    }

    /// Remove direction, T ≥ 2 steps: the point x_k beyond which the other T − 1 steps cannot
    /// matter (c − L(x) ≤ (T − 1) ln(1 − q), where δ_{T−1} = 1 − e^{c−L}) and
    /// ln ∫_{x_k}^∞ φ_σ (r − e^c) dx = ln[qΦ̄((x_k − 1)/σ) + (1 − q − e^c)Φ̄(x_k/σ)].
    /// None when c ≤ T ln(1 − q) (then δ_T(c) = 1 − e^c).
    fn remove_end(&self, steps: u32, c: f64) -> Option<(f64, f64)> {
        let v = c - f64::from(steps - 1) * self.ln1mq;
        if v <= self.ln1mq {
            return None;
        }
        let tk = self.t_of_level(v);
        let xk = self.x_of_t(tk);
        let zk = xk / self.s;
        let h = 1.0 / self.s;
        let a = self.ln_q + log_ndtr(h - zk);
        let closed = if c < self.ln1mq {
            // Two non-negative terms.
            log_add_exp(a, self.ln1mq + log1mexp(c - self.ln1mq) + log_ndtr(-zk))
        } else if c == self.ln1mq {
            a
        } else {
            // q Φ̄(z_k − h)[1 − e^{t_c} Φ̄(z_k)/Φ̄(z_k − h)], e^{t_c} = (e^c − 1 + q)/q ≤ e^{t_k}:
            // the ratio is e^{t_c − t_k} R(z_k)/R(z_k − h).
            let tc = self.t_of_level(c);
            let d = if zk - h >= -20.0 {
                (tc - tk) + ln_mills(zk) - ln_mills(zk - h)
            } else {
                tc + log_ndtr(-zk) - log_ndtr(h - zk)
            };
            a + Self::ln_one_minus(d)
        };
        Some((xk, closed))
    }

    /// Add direction, T ≥ 2 steps: the point x_a beyond which δ_{T−1}^add(c + L(x)) = 0
    /// (the add loss of T − 1 steps is at most −(T − 1) ln(1 − q)); None when δ_T^add(c) = 0.
    fn add_end(&self, steps: u32, c: f64) -> Option<f64> {
        let v = -f64::from(steps - 1) * self.ln1mq - c;
        if v <= self.ln1mq {
            return None;
        }
        Some(self.x_of_t(self.t_of_level(v)))
    }

    /// The argument of δ_{T−1} at x.
    fn inner_arg(&self, c: f64, x: f64) -> f64 {
        if self.add {
            c + self.ell(x)
        } else {
            c - self.ell(x)
        }
    }

    /// ln of the two-step integrand at x: w(x) δ₁(c ∓ L(x)) (the MPFR route's skip estimate).
    pub(super) fn ln_integrand(&self, c: f64, x: f64) -> f64 {
        self.ln_w(x) + self.ln_delta1(self.inner_arg(c, x))
    }

    /// ln δ_T(ε), T ∈ {1, 2}, by composite Simpson on 4000 cells for T = 2 (relative accuracy
    /// ≈ 10⁻¹⁰, no error bound): the model on which the MPFR route of `nested.rs` searches its
    /// root before certifying.
    pub(super) fn ln_delta_simpson(&self, steps: u64, eps: f64) -> f64 {
        if steps == 1 {
            return self.ln_delta1(eps);
        }
        let (xe, ln_closed) = if self.add {
            match self.add_end(2, eps) {
                None => return f64::NEG_INFINITY,
                Some(x) => (x, f64::NEG_INFINITY),
            }
        } else {
            match self.remove_end(2, eps) {
                None => return log1mexp(eps),
                Some(e) => e,
            }
        };
        let x_lo = (-14.0 * self.s).min(xe - self.s);
        let n = 4000usize;
        let h = (xe - x_lo) / n as f64;
        let mut all: Vec<f64> = (0..=n)
            .map(|i| {
                let w = if i == 0 || i == n {
                    1.0
                } else if i % 2 == 1 {
                    4.0
                } else {
                    2.0
                };
                self.ln_integrand(eps, x_lo + h * i as f64) + f64::ln(w * h / 3.0)
            })
            .collect();
        all.push(ln_closed);
        crate::numeric::f64s::log_sum_exp(&all)
    }

    /// δ_T(c) of this direction, T ∈ {1, 2, 3}, with relative error at most about `tol`
    /// (`tol` ≥ 10·RHO·T).
    pub(crate) fn ln_delta(&self, steps: u32, c: f64, tol: f64) -> Result<Val> {
        if steps == 1 {
            let v = self.ln_delta1(c);
            if v.is_nan() {
                return Err(not_finite("a one-step value is not finite"));
            }
            return Ok(Val { ln: v, rel: rho(v) });
        }
        let (x_hi, closed) = if self.add {
            match self.add_end(steps, c) {
                None => return Ok(Val::zero()),
                Some(x) => (x, f64::NEG_INFINITY),
            }
        } else {
            match self.remove_end(steps, c) {
                None => {
                    let v = log1mexp(c);
                    return Ok(Val { ln: v, rel: rho(v) });
                }
                Some(e) => e,
            }
        };
        if !x_hi.is_finite() || closed.is_nan() {
            return Err(not_finite("the end of the integral"));
        }
        Integral {
            k: self,
            steps,
            c,
            x_hi,
            closed,
            tol,
        }
        .run()
    }
}

/// One integral ∫_{−∞}^{x_hi} w(x) δ_{T−1}(c ∓ L(x)) dx (+ the closed form beyond x_hi).
struct Integral<'a> {
    k: &'a Kern,
    steps: u32,
    c: f64,
    x_hi: f64,
    closed: f64,
    tol: f64,
}

/// One Gauss–Kronrod piece: ln K, ln |K − G| and ln of the bound on how far the inner values'
/// errors move K and |K − G| (plain logarithms).
#[derive(Clone, Copy)]
struct Piece {
    a: f64,
    b: f64,
    ln_k: f64,
    ln_e: f64,
    ln_ei: f64,
}

/// ln Σ over pieces of one of their logarithmic fields.
fn ln_sum(pieces: &[Piece], f: impl Fn(&Piece) -> f64) -> f64 {
    pieces.iter().map(f).fold(f64::NEG_INFINITY, log_add_exp)
}

impl Integral<'_> {
    fn inner_tol(&self) -> f64 {
        (self.tol / 8.0).max(RHO * 4.0)
    }

    /// δ_{T−1}(c ∓ L(x)).
    fn inner(&self, x: f64) -> Result<Val> {
        self.k.ln_delta(
            self.steps - 1,
            self.k.inner_arg(self.c, x),
            self.inner_tol(),
        )
    }

    /// ln of an upper bound on δ_{T−1}(c ∓ L(x)).
    fn inner_hi(&self, x: f64) -> Result<f64> {
        self.inner(x).map(|v| v.ln + v.rel.ln_1p())
    }

    fn piece(&self, a: f64, b: f64) -> Result<Piece> {
        if crate::numeric::deadline::expired().is_some() {
            return Err(Error::Precision {
                narrowest: None,
                requested: 0,
                certified: 0,
                what: "three-step delta (time limit reached)".into(),
            });
        }
        let m = 0.5 * (a + b);
        let hw = 0.5 * (b - a);
        let mut lf = [0.0f64; 21];
        let mut rel = [0.0f64; 21];
        for (j, (slot, r)) in lf.iter_mut().zip(rel.iter_mut()).enumerate() {
            // Nodes left to right: j < 10 left of m, j = 10 at m, j > 10 right of m.
            let x = if j <= 10 {
                m - hw * XGK[j]
            } else {
                m + hw * XGK[20 - j]
            };
            let v = self.inner(x)?;
            let lw = self.k.ln_w(x);
            *slot = lw + v.ln;
            // The weight's own rounding joins the inner value's error.
            *r = v.rel + rho(lw);
            if slot.is_nan() {
                return Err(not_finite("an integrand value is not finite"));
            }
        }
        let top = lf.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if top == f64::NEG_INFINITY {
            return Ok(Piece {
                a,
                b,
                ln_k: top,
                ln_e: top,
                ln_ei: top,
            });
        }
        let (mut kk, mut gg, mut ei) = (0.0f64, 0.0f64, 0.0f64);
        for i in 0..11 {
            let pair: &[usize] = if i == 10 { &[10] } else { &[i, 20 - i] };
            for &j in pair {
                let f = (lf[j] - top).exp();
                kk += WGK[i] * f;
                // K moves by ≤ Σ w^K f rel, and |K − G| by ≤ Σ (w^K + w^G) f rel.
                let wg = if i % 2 == 1 { WG[i / 2] } else { 0.0 };
                gg += wg * f;
                ei += (2.0 * WGK[i] + wg) * f * rel[j];
            }
        }
        let ln_hw = hw.ln();
        let diff = (kk - gg).abs().max(kk * 1e-15);
        Ok(Piece {
            a,
            b,
            ln_k: top + ln_hw + kk.ln(),
            ln_e: top + ln_hw + diff.ln(),
            ln_ei: top + ln_hw + ei.ln(),
        })
    }

    fn run(&self) -> Result<Val> {
        let k = self.k;
        let s = k.s;
        // The left end: the tail beyond is bounded below; start at −8σ (or σ left of x_hi).
        let mut x_lo = (-8.0 * s).min(self.x_hi - s);
        let mut edges: Vec<f64> = Vec::new();
        let n = (((self.x_hi - x_lo) / (2.0 * s)).ceil() as usize).clamp(1, 2000);
        for i in 0..=n {
            edges.push(x_lo + (self.x_hi - x_lo) * (i as f64) / (n as f64));
        }
        let mut pieces: Vec<Piece> = Vec::new();
        let mut evaluated = 0usize;
        let small = (self.tol * 0.01).ln();
        loop {
            // Bounds on each piece from the inner values at its ends: δ_{T−1}(c ∓ L(x)) is
            // increasing in x for remove (its argument decreases), decreasing for add.
            let ends: Vec<f64> = edges
                .iter()
                .map(|&x| self.inner_hi(x))
                .collect::<Result<_>>()?;
            let mut todo: Vec<(f64, usize)> = (0..edges.len() - 1)
                .filter(|&i| {
                    !pieces
                        .iter()
                        .any(|p| p.a == edges[i] && p.b == edges[i + 1])
                })
                .map(|i| {
                    let d = if k.add { ends[i] } else { ends[i + 1] };
                    let lb =
                        (edges[i + 1] - edges[i]).ln() + k.ln_w_max(edges[i], edges[i + 1]) + d;
                    (lb + rho(lb).ln_1p(), i)
                })
                .collect();
            todo.sort_by(|a, b| b.0.total_cmp(&a.0));
            // Evaluate in decreasing order of the bound; skip the rest once their bounds sum to
            // a negligible part of what is already there.
            let mut skipped = f64::NEG_INFINITY;
            let mut rest: Vec<f64> = todo.iter().map(|t| t.0).collect();
            for (idx, &(_, i)) in todo.iter().enumerate() {
                let total = log_add_exp(ln_sum(&pieces, |p| p.ln_k), self.closed);
                let remaining = crate::numeric::f64s::log_sum_exp(&rest[idx..]);
                if total.is_finite() && remaining - total <= small {
                    skipped = remaining;
                    break;
                }
                pieces.push(self.piece(edges[i], edges[i + 1])?);
                evaluated += 1;
                rest[idx] = f64::NEG_INFINITY;
            }
            let total = log_add_exp(ln_sum(&pieces, |p| p.ln_k), self.closed);
            // Left tail (x < x_lo ≤ ½): w ≤ φ_σ; remove: δ_{T−1}(c − L(x)) ≤ δ_{T−1}(c − L(x_lo));
            // add: δ_{T−1}(c + L(x)) ≤ δ_{T−1}(c + ln(1 − q)), the limit of its argument.
            let d_lo = if k.add {
                let v = k.ln_delta(self.steps - 1, self.c + k.ln1mq, self.inner_tol())?;
                v.ln + v.rel.ln_1p()
            } else {
                ends[0]
            };
            let tail = log_ndtr(x_lo / s) + d_lo;
            let tail = tail + rho(tail).ln_1p();
            if !total.is_finite() {
                // Nothing resolvable: every node's value is 0 in double precision (the add
                // direction a hair below its largest loss, where δ is below e^-700 or so).
                // The value is in [0, tail + skipped]: the midpoint with relative error 1.
                let ub = log_add_exp(tail, skipped);
                if ub == f64::NEG_INFINITY {
                    return Ok(Val::zero());
                }
                return Ok(Val {
                    ln: ub - std::f64::consts::LN_2,
                    rel: 1.0,
                });
            }
            if tail - total > small {
                if x_lo < -400.0 * s {
                    return Err(precision_error(
                        0,
                        0,
                        "three-step delta (nested quadrature, left tail)",
                    ));
                }
                // Extend to the left by 4σ (by 16σ past −40σ, where the add direction's mass
                // sits near its largest loss) and go again (evaluated pieces are kept).
                let step = if x_lo < -40.0 * s { 4.0 * s } else { s };
                let new_lo = x_lo - 4.0 * step;
                let mut e2: Vec<f64> = (0..4).map(|i| new_lo + step * f64::from(i)).collect();
                e2.extend(edges.iter().copied());
                edges = e2;
                x_lo = new_lo;
                continue;
            }
            self.refine(&mut pieces, &mut evaluated)?;
            return Ok(self.value(&pieces, skipped, tail));
        }
    }

    /// Adaptive refinement: bisect the piece with the largest estimate until the estimates sum to
    /// 0.4·tol of the total, within [`MAX_PIECES`] piece evaluations.
    fn refine(&self, pieces: &mut Vec<Piece>, evaluated: &mut usize) -> Result<()> {
        loop {
            let total = log_add_exp(ln_sum(pieces, |p| p.ln_k), self.closed);
            let est = ln_sum(pieces, |p| p.ln_e);
            if est - total <= (self.tol * 0.4).ln() {
                return Ok(());
            }
            if *evaluated >= MAX_PIECES {
                return Err(precision_error(
                    0,
                    ((total - est) / LN_10).max(0.0) as u32,
                    "three-step delta (nested quadrature, piece budget)",
                ));
            }
            let (j, _) = pieces
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.ln_e.total_cmp(&b.1.ln_e))
                .expect("at least one piece");
            let p = pieces.swap_remove(j);
            let m = 0.5 * (p.a + p.b);
            pieces.push(self.piece(p.a, m)?);
            pieces.push(self.piece(m, p.b)?);
            *evaluated += 2;
        }
    }

    /// The integral plus the closed part, with its relative error: the Kronrod estimates, the
    /// inner values' errors, the skipped pieces' and the left tail's bounds, the closed part's
    /// rounding allowance, and 10⁻¹⁴ for the roundings of the 21-term sums and the logarithms.
    fn value(&self, pieces: &[Piece], skipped: f64, tail: f64) -> Val {
        let total = log_add_exp(ln_sum(pieces, |p| p.ln_k), self.closed);
        let abs = [
            ln_sum(pieces, |p| p.ln_e),
            ln_sum(pieces, |p| p.ln_ei),
            skipped,
            tail,
        ]
        .into_iter()
        .fold(f64::NEG_INFINITY, log_add_exp);
        let rel = (abs - total).exp() + rho(self.closed) * (self.closed - total).exp() + 1e-14;
        Val { ln: total, rel }
    }
}

/// The δ(ε) bracket of one direction from a [`Val`].
fn bracket_of(v: &Val, prec: u32) -> Bracket {
    if v.ln == f64::NEG_INFINITY {
        return Bracket::point(Float::new(prec));
    }
    let x = Float::with_val(prec, v.ln).exp();
    let w = Float::with_val(prec, &x * v.rel);
    Bracket {
        lo: Float::with_val(prec, &x - &w),
        hi: Float::with_val(prec, &x + &w).min(&Float::with_val(prec, 1u32)),
    }
}

/// Relative tolerance of the certified values for `digits` requested digits.
fn tol_for(digits: u32) -> f64 {
    10f64.powi(-(digits as i32) - 1)
}

fn kern(m: &Mix) -> Kern {
    Kern::new(m.qf, m.sf, m.flip)
}

/// The route's name in [`Composed::route`].
const ROUTE: &str = "small-T nested integration (double precision)";

fn composed(out: Vec<Bracket>) -> Composed {
    super::nested::composed(out, ROUTE)
}

/// δ(ε) of both directions, `steps` ∈ {2, 3}.
pub(super) fn delta_for_eps(
    m: &super::SubsampledGaussian,
    steps: u32,
    eps: &Scalar,
    digits: u32,
) -> Result<Composed> {
    let prec = 128;
    let e = eps.mp(prec).to_f64();
    let mut out = Vec::new();
    for dir in [Dir::Remove, Dir::Add] {
        let mix = Mix::new(m, u64::from(steps), dir, prec);
        let v = kern(&mix).ln_delta(steps, e, tol_for(digits))?;
        out.push(bracket_of(&v, prec));
    }
    Ok(composed(out))
}

/// ε(δ) of both directions, `steps` ∈ {2, 3}: a root of ln δ(ε) = ln δ at a looser tolerance, then
/// the two ends ε(1 ± η) certified: δ_hi(ε_hi) ≤ δ ≤ δ_lo(ε_lo), δ(ε) non-increasing.
///
/// The add direction is settled by its range when the remove direction's ε_lo is at least the
/// largest add loss −T ln(1 − q) (docs/accounting.md#add-range).
pub(super) fn eps_for_delta(
    sched: &super::Schedule,
    m: &super::SubsampledGaussian,
    steps: u32,
    delta: &Scalar,
    digits: u32,
) -> Result<Composed> {
    let prec = 128;
    let dl = delta.mp(prec);
    let ln_target = Float::with_val(prec, dl.ln_ref()).to_f64();
    let rm = eps_one(
        &kern(&Mix::new(m, u64::from(steps), Dir::Remove, prec)),
        steps,
        &dl,
        ln_target,
        digits,
        prec,
    )?;
    let ad = match super::add_direction_by_its_range(sched, &dl, &rm, false, prec) {
        Some(b) => b,
        None => eps_one(
            &kern(&Mix::new(m, u64::from(steps), Dir::Add, prec)),
            steps,
            &dl,
            ln_target,
            digits,
            prec,
        )?,
    };
    Ok(composed(vec![rm, ad]))
}

fn eps_one(
    k: &Kern,
    steps: u32,
    delta: &Float,
    ln_target: f64,
    digits: u32,
    prec: u32,
) -> Result<Bracket> {
    let tol = tol_for(digits);
    let certified = |e: f64| k.ln_delta(steps, e, tol).map(|v| bracket_of(&v, prec));
    // ε = 0 when δ(0) ≤ δ.
    let at0 = certified(0.0)?;
    if at0.hi <= *delta {
        return Ok(Bracket::point(Float::new(prec)));
    }
    let search_tol = (tol / 100.0).max(RHO * 40.0);
    let f = |e: f64| k.ln_delta(steps, e, search_tol).map(|v| v.ln);
    let e = super::nested::illinois_root(f, ln_target, delta, [1e-13, 1e-6, 1e-12], 100)?;
    let mut eta = 10f64.powi(-(digits as i32)) / 4.0;
    for _ in 0..3 {
        let ehi = e * (1.0 + eta);
        let elo = e * (1.0 - eta);
        let bh = certified(ehi)?;
        let bl = certified(elo)?;
        if bh.hi <= *delta && bl.lo >= *delta {
            return Ok(Bracket {
                lo: Float::with_val(prec, elo),
                hi: Float::with_val(prec, ehi),
            });
        }
        eta *= 2.0;
    }
    Err(precision_error(
        digits,
        0,
        "small-T route (double precision): could not certify the eps bracket",
    ))
}

#[cfg(test)]
mod tests {
    use super::{rho, Kern, WG, WGK, XGK};

    #[test]
    fn kronrod_rules_are_exact() {
        // K21 integrates x^k exactly for k ≤ 31, G10 for k ≤ 19 (odd k: 0 by symmetry).
        for k in (0..=30).step_by(2) {
            let exact = 2.0 / f64::from(k + 1);
            let mut kk = WGK[10] * if k == 0 { 1.0 } else { 0.0 };
            let mut gg = 0.0;
            for i in 0..10 {
                let v = 2.0 * XGK[i].powi(k);
                kk += WGK[i] * v;
                if i % 2 == 1 && k <= 18 {
                    gg += WG[i / 2] * v;
                }
            }
            assert!((kk - exact).abs() < 1e-14, "K21 at x^{k}: {kk} vs {exact}");
            if k <= 18 {
                assert!((gg - exact).abs() < 1e-14, "G10 at x^{k}: {gg} vs {exact}");
            }
        }
    }

    /// The double-precision one-step value against the MPFR one of `nested.rs` (256 bits), over
    /// q, σ, both directions and a grid of c reaching δ₁ ≈ 10⁻³⁰⁰: the largest relative deviation
    /// must stay below a quarter of the allowance `rho`.
    #[test]
    fn kernel_matches_mpfr() {
        let mut worst = 0.0f64;
        for &q in &[0.001, 0.01, 0.1, 0.5, 0.9] {
            for &s in &[0.6, 1.0, 2.0, 5.0] {
                for add in [false, true] {
                    let k = Kern::new(q, s, add);
                    for i in -60..=200 {
                        let c = f64::from(i) * 0.25 + if add { 0.0 } else { 0.013 };
                        let v = k.ln_delta1(c);
                        let r = super::super::nested::ln_delta1_mpfr(q, s, add, c, 256);
                        if r == f64::NEG_INFINITY || r < -690.0 {
                            continue;
                        }
                        let dev = (v - r).abs();
                        worst = worst.max(dev / rho(r));
                        assert!(
                            dev < rho(r) / 4.0,
                            "q={q} s={s} add={add} c={c}: {v} vs {r} (dev {dev:e})"
                        );
                    }
                }
            }
        }
        eprintln!("largest deviation / allowance: {worst:.3e}");
        assert!(worst > 0.0);
    }
}
