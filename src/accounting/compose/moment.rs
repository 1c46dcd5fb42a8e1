//! The single-step moment E_Q[r^β] of the subsampled Gaussian at complex β by the trapezoid
//! rule on ℝ, with its a-priori error bound, and the decay bounds the u-tail uses
//! (docs/accounting.md#composition).

use super::{f64s, Complex, Constant, Cut, Error, Float, Mix, Result, LN_2, MAX_GRID, PI};

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
    let left = if b >= 1.0 {
        // Jensen: r^b ≤ (1−q) + q e^{bt}; φ_σ(x) e^{bt} = e^{b(b−1)/(2σ²)} φ_σ(x − b).
        let c = b * (b - 1.0) / (2.0 * s * s) + q.ln();
        f64s::log_add_exp(
            (-q).ln_1p() + f64s::log_ndtr(l / s),
            c + f64s::log_ndtr((l - b) / s),
        )
    } else if b > 0.0 {
        // 0 < b < 1: r^b ≤ max(1, r) ≤ 1 + q e^t, and φ_σ(x) e^t = φ_σ(x − 1).
        f64s::log_add_exp(
            f64s::log_ndtr(l / s),
            q.ln() + f64s::log_ndtr((l - 1.0) / s),
        )
    } else {
        // b ≤ 0: r ≥ 1 − q everywhere and r ≥ 1 for x ≥ 1/2.
        b * (-q).ln_1p() + f64s::log_ndtr(l / s)
    };
    let x0 = xr - hx;
    let mut right = ln_right_mass(m, b, x0);
    if let Some(c) = m.cut {
        // The cut's majorant w ≤ e^{−λ(x − x_c)} where it is decreasing; the uncut one only
        // where its own is (x ≥ max(b, ½)).
        if x0 >= cut_mono(m, b, c) {
            let w = ln_cut_right(m, b, x0, c);
            right = if x0 >= b.max(0.5) { w.min(right) } else { w };
        }
    }
    f64s::log_add_exp(left, right)
}

// ---------------------------------------------------------------------------------------------
// The tail cut (docs/accounting.md#tail-cut): the remove direction's step law weighted by
// w(x) = 1/(1 + e^{λ(x − x_c)}).
// ---------------------------------------------------------------------------------------------

/// ln(1 + e^z) in double precision: within 2.01·8u of its value from libm's exp and log1p (each
/// ≤ 8u relative; for z > 0 the value is at least ln 2) and u from the addition.
pub(super) fn softplus(z: f64) -> f64 {
    if z > 0.0 {
        z + (-z).exp().ln_1p()
    } else {
        z.exp().ln_1p()
    }
}

/// ln ∫ φ_σ(x)·e^{κx} dx over [x₁, x₂] (either end infinite): e^{κ²σ²/2}·(Φ(z₂) − Φ(z₁)),
/// z = (x − κσ²)/σ.
fn ln_gauss_exp(s: f64, kappa: f64, x1: f64, x2: f64) -> f64 {
    let z = |x: f64| (x - kappa * s * s) / s;
    kappa * kappa * s * s / 2.0 + f64s::log_ndtr_diff(z(x1), z(x2))
}

/// ln r(x) in double precision (ln(1 + q(e^t − 1)), t = (x − ½)/σ²).
fn ln_r_f64(m: &Mix, x: f64) -> f64 {
    (m.qf * ((x - 0.5) / (m.sf * m.sf)).exp_m1()).ln_1p()
}

/// ln of a bound on ∫_{x₁}^{x₂} φ_σ(x)·r(x)^b·e^{μx} dx (b ≥ 0, x₁ finite) anchored at x₁: r grows
/// at most like e^t (r(x)/r(x₁) ≤ e^{t − t₁}, as r = (1 − q) + q e^t), so r^b ≤ r(x₁)^b e^{b(t − t₁)}
/// on [x₁, ∞) — at small q far tighter than Jensen's (1 − q) + q e^{bt}, which overstates the
/// bulk-to-tail region by q^{1−b}.
fn ln_anchored(m: &Mix, b: f64, mu: f64, x1: f64, x2: f64) -> f64 {
    let s2 = m.sf * m.sf;
    let t1 = (x1 - 0.5) / s2;
    b * ln_r_f64(m, x1) - b * t1 - b / (2.0 * s2) + ln_gauss_exp(m.sf, b / s2 + mu, x1, x2)
}

/// From this x on, the cut majorant of the right tail (the anchored one of [`ln_cut_right`],
/// a Gaussian centred at b − λσ², or at −λσ² for b < 0), is decreasing; at least ½.
pub(super) fn cut_mono(m: &Mix, b: f64, c: Cut) -> f64 {
    (b.max(0.0) - c.lam * m.sf * m.sf).max(0.5)
}

/// ln of a bound on ∫_{x ≥ x₀} φ_σ r^b w dx (x₀ ≥ ½) by w ≤ e^{−λ(x − x_c)}, r^b anchored at x₀
/// ([`ln_anchored`]) for b ≥ 0 and r^b ≤ 1 (x ≥ ½) for b < 0; 10⁻⁶ relative margin and
/// 10⁻¹² of the terms for the double-precision evaluation.
fn ln_cut_right(m: &Mix, b: f64, x0: f64, c: Cut) -> f64 {
    let v = if b >= 0.0 {
        ln_anchored(m, b, -c.lam, x0, f64::INFINITY)
    } else {
        ln_gauss_exp(m.sf, -c.lam, x0, f64::INFINITY)
    };
    c.lam * c.xc + v + 1e-6 + 1e-12 * (c.lam * c.xc).abs()
}

/// ln of a bound on the mass the cut removes from the moment, L(b) = E_Q[(1 − w) r^b]
/// (docs/accounting.md#tail-cut). 1 − w ≤ e^{λ(x − x_c)} below x_c and ≤ 1 above (x_c ≥ ½).
/// For b ≥ 0, split at x₁ ≤ x_c: below x₁, r^b ≤ r(x₁)^b; on [x₁, x_c] and above x_c, r^b
/// anchored ([`ln_anchored`]) at x₁ and x_c; the best x₁ of x_c − kσ/4, k ≤ 64. For b < 0,
/// r^b ≤ (1 − q)^b on ℝ. A relative margin of 10⁻⁶ (and 10⁻¹² of the terms) covers the
/// double-precision evaluation.
pub(super) fn ln_cut_loss(m: &Mix, b: f64, c: Cut) -> f64 {
    let (s, lam, xc) = (m.sf, c.lam, c.xc);
    let below = |x1: f64| -lam * xc + ln_gauss_exp(s, lam, f64::NEG_INFINITY, x1);
    let v = if b < 0.0 {
        b * (-m.qf).ln_1p() + f64s::log_add_exp(below(xc), f64s::log_ndtr(-xc / s))
    } else {
        let right = ln_anchored(m, b, 0.0, xc, f64::INFINITY).min(ln_right_mass(m, b, xc));
        let mut best = f64::INFINITY;
        for k in 0..=64 {
            let x1 = xc - f64::from(k) * s / 4.0;
            let v = f64s::log_sum_exp(&[
                b * ln_r_f64(m, x1) + below(x1),
                -lam * xc + ln_anchored(m, b, lam, x1, xc),
                right,
            ]);
            best = best.min(v);
        }
        best
    };
    v + 1e-6 + 1e-12 * (lam * xc + b * xc / (s * s)).abs()
}

/// ln of a lower bound on the cut moment E_Q[w r^b]: the best of E_floor − L (L ≥ the mass the
/// cut removes, e^{ln_cut}) and, for x₀ = x_c − k/λ (k ≤ 8), Φ(x₀/σ)·w(x₀)·min r^b on x ≤ x₀
/// (w decreasing; r^b ≥ min((1 − q)^b, r(x₀)^b) there), with a 10⁻⁶ margin.
fn ln_cut_floor(m: &Mix, b: f64, c: Cut, ln_cut: f64) -> f64 {
    let floor = ln_moment_floor(m, b);
    let mut best = floor + (-(ln_cut - floor).exp().min(1.0)).ln_1p();
    for k in 0..=8 {
        let x0 = c.xc - f64::from(k) / c.lam;
        let ln_rb = (b * (-m.qf).ln_1p()).min(b * ln_r_f64(m, x0));
        let v = f64s::log_ndtr(x0 / m.sf) - softplus(c.lam * (x0 - c.xc)) + ln_rb;
        best = best.max(v);
    }
    // A value that did not evaluate claims nothing (an infinite strip factor).
    if best.is_nan() {
        f64::NEG_INFINITY
    } else {
        best - 1e-6
    }
}

/// ln of a lower bound on E_Q[r^b]: 1 for b ∉ (0, 1) (Jensen), (1 − q)^b inside (r ≥ 1 − q).
pub(super) fn ln_moment_floor(m: &Mix, b: f64) -> f64 {
    if b > 0.0 && b < 1.0 {
        b * (-m.qf).ln_1p() * (1.0 + 1e-12)
    } else {
        0.0
    }
}

/// ln of a bound on ∫_{x ≥ x₀} φ_σ(x) r(x)^b dx (add/remove factor; x₀ ≥ ½ when b ≤ 0), by the
/// majorants of [`ln_x_tails`].
fn ln_right_mass(m: &Mix, b: f64, x0: f64) -> f64 {
    let (q, s) = (m.qf, m.sf);
    if b >= 1.0 {
        let c = b * (b - 1.0) / (2.0 * s * s) + q.ln();
        f64s::log_add_exp(
            (-q).ln_1p() + f64s::log_ndtr(-x0 / s),
            c + f64s::log_ndtr(-(x0 - b) / s),
        )
    } else if b > 0.0 {
        f64s::log_add_exp(
            f64s::log_ndtr(-x0 / s),
            q.ln() + f64s::log_ndtr(-(x0 - 1.0) / s),
        )
    } else {
        f64s::log_ndtr(-x0 / s)
    }
}

/// Range [xl, xr] (multiples of hx) whose omitted nodes carry at most e^{ln_tol}.
pub(super) fn x_range(m: &Mix, b: f64, hx: f64, ln_tol: f64) -> (f64, f64) {
    let s = m.sf;
    // The left tail's majorants of [`ln_x_tails`] (φ_σ times a constant, or plus a Gaussian
    // centred at b ≥ 0) increase on x ≤ 0 for every b: the range starts from 0 (from b for
    // b < 0 before, which at b = −870 — the add direction at q = 10⁻⁶ — asked for 10⁵ nodes
    // where the integrand lives within a few σ of 0).
    let (lo_mono, hi_mono) = if m.subst {
        subst::centre_range(m, b)
    } else if let Some(c) = m.cut {
        (0.0, cut_mono(m, b, c))
    } else {
        (0.0, b.max(0.5))
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
    let ymax = y_cap(m);
    let y = (m.sf * (2.0 * big_l).sqrt()).min(ymax);
    let ln_strip = y * y / (2.0 * s2) + strip_args(m) * v.abs() * y / s2 + ln_cb(m, b, y);
    let hx = 2.0 * PI * y / (big_l + ln_strip + 1.0);
    (hx, ln_strip)
}

/// The x-trapezoid's step at |Im β| = v from [`x_step_split`]: the strip half-width y it
/// assumes, the step hx, and ln of the strip factor.
#[derive(Clone, Copy, Debug)]
pub(super) struct Step {
    pub(super) hx: f64,
    pub(super) y: f64,
    pub(super) ln_strip: f64,
}

/// As [`x_step`] with the sharper strip factor of a split at x₀ (docs/accounting.md#strip-split):
/// on the strip |Im x| ≤ y, θ = y/σ² ≤ π/4, |arg r(x+iy′)| ≤ min(θ, ρ(x) sin θ) with
/// ρ = q e^t/(1 − q) (arg(1 + ρe^{iθ′}) ≤ ρ|sin θ′| for cos θ′ > 0), so below x₀ the phase
/// factor |r^{iv}| = e^{−v arg r} is at most e^{|v|ρ(x₀) sin θ}, and above it e^{|v|θ} on a mass
/// R(x₀) = ∫_{x₀}^∞ φ_σ r^b ([`OuterMass`]); relative to E ≥ E_floor (1 by Jensen for
/// b ∉ (0, 1), (1 − q)^b inside: [`ln_moment_floor`]),
/// ∫|f(x+iy′)| dx ≤ e^{y²/(2σ²)} c_b E·(e^{|v|ρ(x₀) sin θ} + e^{|v|θ} R(x₀))/min(1, E_floor). At small q the
/// phase is small wherever the Gaussian weight is not, and a wider strip (a coarser step) pays:
/// the half-width is the best of the v = 0 choice and a scan ymax·0.6^k, k < 24.
pub(super) fn x_step_split(
    m: &Mix,
    b: f64,
    v: f64,
    ln_rel: f64,
    outer: Option<&OuterMass>,
) -> Step {
    let (hx, ln_strip) = x_step(m, b, v, ln_rel);
    let mut best = Step {
        hx,
        y: y_of(m, ln_rel),
        ln_strip,
    };
    let Some(outer) = outer else {
        return best;
    };
    if v == 0.0 {
        return best;
    }
    let s2 = m.sf * m.sf;
    let big_l = LN_2 - ln_rel;
    let ymax = y_cap(m);
    // The outer mass R(x₀) is absolute: relative to E it is at most R(x₀)/E_floor, E_floor = 1
    // for b ∉ (0, 1) (Jensen) but (1 − q)^b inside (the complementary inversion's dampings).
    let ln_floor = ln_moment_floor(m, b).min(0.0);
    // |v| rounded up (the caller's v may be a rounded MPFR value).
    let kv = v.abs() * (1.0 + 1e-12);
    let mut y = ymax;
    for _ in 0..24 {
        let theta = y / s2;
        let ln_strip = y * y / (2.0 * s2) + ln_cb(m, b, y) + outer.ln_phase(kv, theta) - ln_floor;
        let hx = 2.0 * PI * y / (big_l + ln_strip + 1.0);
        if hx > best.hx {
            best = Step { hx, y, ln_strip };
        }
        y *= 0.6;
    }
    best
}

/// Upper bounds on the mass R(x₀) = ∫_{x₀}^∞ φ_σ r^b dx of the add/remove factor at the nodes
/// x₀ = ½ + iΔ (docs/accounting.md#strip-split): an upper Riemann sum — on each cell φ_σ is
/// decreasing and r^b monotone, so the cell is at most Δ·φ_σ(left end)·max of r^b at its ends
/// (double precision with an absolute slack of 10⁻⁶ in the logarithm, far above its rounding) —
/// plus the closed-form majorant of [`ln_x_tails`] beyond the last node, which lies past 2|b| + 12σ.
pub(super) struct OuterMass {
    /// ln ρ(x₀) = ln(q/(1 − q)) + (x₀ − ½)/σ², and ln R(x₀), at the nodes.
    ln_rho: Vec<f64>,
    ln_mass: Vec<f64>,
}

impl OuterMass {
    /// None for substitution factors and q = 1 (the old strip factor serves them).
    pub(super) fn new(m: &Mix, b: f64) -> Option<OuterMass> {
        let (q, s) = (m.qf, m.sf);
        if m.subst || !(q > 0.0 && q < 1.0) || !b.is_finite() {
            return None;
        }
        let s2 = s * s;
        let x_end = 0.5 + 2.0 * b.abs() + 12.0 * s;
        let dx = (s / 8.0).max((x_end - 0.5) / 4000.0);
        let n = ((x_end - 0.5) / dx).ceil() as usize;
        let ln_norm = 0.5 * (2.0 * PI * s2).ln();
        let xs: Vec<f64> = (0..=n).map(|i| 0.5 + i as f64 * dx).collect();
        let bl: Vec<f64> = xs
            .iter()
            .map(|&x| b * (q * ((x - 0.5) / s2).exp_m1()).ln_1p())
            .collect();
        let mut ln_mass = vec![0.0; n + 1];
        ln_mass[n] = ln_right_mass(m, b, xs[n]) + 1e-6;
        for i in (0..n).rev() {
            let ln_phi = -xs[i] * xs[i] / (2.0 * s2) - ln_norm;
            let cell = dx.ln() + ln_phi + bl[i].max(bl[i + 1]);
            let cell = cell + 1e-6 + 1e-12 * (ln_phi.abs() + bl[i].abs() + bl[i + 1].abs());
            ln_mass[i] = f64s::log_add_exp(cell, ln_mass[i + 1]);
        }
        let ln_rho0 = q.ln() - (-q).ln_1p();
        let ln_rho = xs
            .iter()
            .map(|&x| ln_rho0 + (x - 0.5) / s2 + 1e-12 * (x / s2).abs())
            .collect();
        if ln_mass.iter().any(|v| v.is_nan()) {
            return None;
        }
        Some(OuterMass { ln_rho, ln_mass })
    }

    /// min over the split points of ln(e^{kv·ρ(x₀) sin θ} + e^{kv·θ} R(x₀)), and kv·θ (no split).
    /// The first term increases with x₀ and the second decreases: the minimum is searched near
    /// their crossing (any x₀ gives a valid bound).
    fn ln_phase(&self, kv: f64, theta: f64) -> f64 {
        let sin_t = theta.sin();
        let inner = |i: usize| kv * sin_t * self.ln_rho[i].exp();
        let outer = |i: usize| kv * theta + self.ln_mass[i];
        let (mut lo, mut hi) = (0usize, self.ln_mass.len() - 1);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if inner(mid) < outer(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let mut best = kv * theta;
        for i in lo.saturating_sub(2)..=(hi + 2).min(self.ln_mass.len() - 1) {
            let v = f64s::log_add_exp(inner(i), outer(i));
            if v < best {
                best = v;
            }
        }
        best
    }
}

/// |r(x+iy)|^b ≤ c_b r(x)^b: ln c_b = −|b| ln cos(y/σ²) for b < 0, 0 for b ≥ 0 (y/σ² ≤ π/4).
fn ln_cb(m: &Mix, b: f64, y: f64) -> f64 {
    let c = (y / (m.sf * m.sf)).cos().ln();
    if m.subst {
        // r₋^{1−β} r₊^β: a negative real exponent on either factor costs cos(y/σ²)^{exponent}.
        -((b - 1.0).max(0.0) + (-b).max(0.0)) * c
    } else if b < 0.0 {
        -b.abs() * c
    } else {
        0.0
    }
}

/// |arg r(x+iy)| ≤ y/σ² for each factor: once for add/remove, twice for substitution.
fn strip_args(m: &Mix) -> f64 {
    if m.subst {
        2.0
    } else {
        1.0
    }
}

/// Cached trapezoid nodes of one factor at one b: x_j, φ_σ(x_j) r(x_j)^b (the envelope) and
/// ℓ_j = ln r(x_j), at one precision and step. Computed in MPFR, the fast (double precision)
/// evaluation keeping only their doubles (docs/accounting.md#fast-inner), or in double precision
/// with error bounds ([`NodeMode`]: the probes' grids and the shared-envelope grids).
pub(super) struct Grid {
    pub(super) hx: f64,
    /// The node range [xl, xr].
    pub(super) xl: f64,
    pub(super) xr: f64,
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
    /// Σ hx·env·ℓ (MPFR grids; the imaginary part's linear term,
    /// docs/accounting.md#fast-deviation), and a bound on its error (0 for MPFR sums, whose
    /// rounding the moment's MPFR term covers); None for grids without it.
    pub(super) ell_sum: Option<(Float, f64)>,
    /// Bound on the omitted nodes' envelope mass.
    pub(super) ln_tails: f64,
    /// max |ln env_j| (for the rounding bound).
    pub(super) max_arg: f64,
    /// max |ℓ_j| (for the rounding bound).
    pub(super) max_ell: f64,
    /// Nodes computed in double precision ([`Grid::new_f64`]): bounds on each node's relative
    /// error in e_j, on its absolute error in ℓ_j, and on the underflowed nodes' absolute error
    /// (in units of 2^scale) — they replace the MPFR term of [`MixEval::moment`]'s fast path.
    pub(super) double_nodes: Option<NodeErrors>,
    /// Shared-envelope grids ([`NodeMode::Shared`]): env_sum is the MPFR envelope sum of the
    /// evaluator's first grid, and this bounds |env_sum − Σ_j hx·e_j| for this grid's nodes (both
    /// sums approximate E_Q[r^b] within their v = 0 discretisation and tail bounds); the moment
    /// is read in the deviation form with the nodes' own errors in its rounding bound
    /// (docs/accounting.md#shared-envelope).
    pub(super) sum_err: Option<f64>,
    /// Per-node bounds on |ℓ̃_j − ℓ_j| and on ẽ_j's relative error (shared-envelope grids only;
    /// the far nodes' errors, large relative to their tiny weights, would dominate a single
    /// maximum).
    pub(super) ell_err: Vec<f64>,
    pub(super) env_err: Vec<f64>,
}

/// How a grid's nodes are computed: in MPFR at the working precision; in double precision with
/// error bounds (the tail bound's probes, docs/accounting.md#double-nodes); or, after a first
/// grid in MPFR, in double precision with per-node error bounds and the first grid's envelope
/// sum (the fast main pass, docs/accounting.md#shared-envelope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NodeMode {
    Mpfr,
    Double,
    Shared,
}

/// The error bounds of a grid whose nodes were computed in double precision.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeErrors {
    /// max_j |ẽ_j·2^scale − e_j| / e_j.
    pub(super) env_rel: f64,
    /// max_j |ℓ̃_j − ℓ_j|.
    pub(super) ell_abs: f64,
    /// Σ_j of the absolute errors of nodes below the normal range, in units of 2^scale.
    pub(super) abs: f64,
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
        mode: NodeMode,
    ) -> Result<Grid> {
        if mode != NodeMode::Mpfr && (fast || mode == NodeMode::Double) {
            if let Some(g) = Grid::new_f64(m, b, hx, ln_tol, mode == NodeMode::Shared)? {
                return Ok(g);
            }
        }
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
        let mut ell_sum = Float::new(prec);
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
            // The cut: −ln(1 + e^{λ(x − x_c)}) (its size joins the rounding bound's argument).
            let mut sp_abs = 0.0;
            if let Some(c) = m.cut {
                let z = Float::with_val(prec, &x - c.xc) * c.lam;
                let sp = if z > 0 {
                    Float::with_val(prec, -&z).exp().ln_1p() + &z
                } else {
                    z.exp().ln_1p()
                };
                sp_abs = sp.to_f64();
                arg -= &sp;
            }
            max_arg = max_arg.max(arg.to_f64().abs() + sp_abs);
            let lf = l.to_f64();
            max_ell = max_ell.max(lf.abs());
            let e = arg.exp();
            env_sum += &e;
            if fast {
                ell_sum += Float::with_val(prec, &e * &l);
                ell_f.push(lf);
                env_mp.push(e);
            } else {
                ell.push(l);
                env.push(e);
            }
        }
        env_sum *= &hxf;
        ell_sum *= &hxf;
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
        let (sum_env_f, sum_env_ell_f) = upper_sums(&env_f, &ell_f);
        Ok(Grid {
            hx,
            xl,
            xr,
            ell,
            env,
            ell_f,
            env_f,
            scale,
            sum_env_f,
            sum_env_ell_f,
            n,
            env_sum,
            // Only the fast path's deviation form reads it (and a shared reference, built fast).
            ell_sum: fast.then_some((ell_sum, 0.0)),
            ln_tails: ln_x_tails(m, bf, xl, xr, hx),
            max_arg,
            max_ell,
            double_nodes: None,
            sum_err: None,
            ell_err: Vec::new(),
            env_err: Vec::new(),
        })
    }

    /// The nodes of one grid computed in double precision (libm's exp, expm1 and log1p instead
    /// of MPFR's, ~50× faster), with a bound on each node's error (docs/accounting.md#double-nodes):
    /// for the tail-bound probes, which need a few digits of a moment, not the working
    /// precision's (the certified real moments of `ln_moment_upper` keep MPFR nodes). None when
    /// a bound is not finite (q near 1, where log1p's argument nears −1): the caller builds the
    /// grid in MPFR.
    ///
    /// With `per_node`, the grid also keeps each node's error bounds (`ell_err`, `env_err`) for
    /// the deviation form of a shared-envelope evaluator ([`NodeMode::Shared`]), which sets its
    /// envelope sum.
    fn new_f64(m: &Mix, b: &Float, hx: f64, ln_tol: f64, per_node: bool) -> Result<Option<Grid>> {
        const U: f64 = U64;
        // libm's exp, expm1, log1p: glibc documents ≤ 1 ulp on x86-64; we allow 4 ulp = 8u.
        const LIBM: f64 = 8.0 * U;
        let bf = b.to_f64();
        let (xl, xr) = x_range(m, bf, hx, ln_tol);
        let n_lo = (xl / hx).round() as i64;
        let n_hi = (xr / hx).round() as i64;
        // The doubles of q, σ, b and their relative errors (each ≤ u when correctly rounded;
        // measured, not assumed).
        let rel_of = |x: &Float, xf: f64| -> f64 {
            let d = Float::with_val(64, x - xf)
                .abs()
                .to_f64_round(rug::float::Round::Up);
            d / xf.abs() * (1.0 + 2.0 * U)
        };
        let (qf, sf) = (m.qf, m.sf);
        let (eq, es) = (rel_of(&m.q, qf), rel_of(&m.sigma, sf));
        let eb = if bf == 0.0 { 0.0 } else { rel_of(b, bf) };
        if !(qf > 0.0 && qf < 1.0 && sf > 0.0 && eq < 1e-10 && es < 1e-10 && eb < 1e-10) {
            return Ok(None);
        }
        let s2 = sf * sf;
        // ŝ2 = σ²(1 + η): |η| ≤ 2es + u (+ second order).
        let eta = (2.0 * es + U) * 1.01;
        let ln_norm_mp = {
            let mut c = Float::with_val(64, Constant::Pi) * 2u32;
            c *= Float::with_val(64, m.sigma.square_ref());
            c.ln() / 2u32
        };
        let ln_norm = ln_norm_mp.to_f64();
        let ln_norm_err = (Float::with_val(64, &ln_norm_mp - ln_norm).abs().to_f64()
            + ln_norm.abs() * 2f64.powi(-62))
            * 1.01;
        // ln r(x) = log1p(q·expm1(t)) at t = d/σ², with a bound on its absolute error: the error
        // in t passes with a factor ≤ 1 (dℓ/dt = q e^t/r ∈ (0, 1]), expm1's, q's and the product's
        // roundings are a relative error ≤ ε_y of y = q·expm1(t), which log1p turns into at most
        // ε_y|y|/(1 + y) (1 + y ≥ 1 − q), and log1p's own ≤ 8u|ℓ|.
        let ln_r = |x: f64, d: f64| -> (f64, f64) {
            let t = d / s2;
            let t_err = (eta + U) * 1.01 * t.abs() + 1.01 * U * (x.abs() + d.abs()) / s2;
            let y = qf * t.exp_m1();
            let l = y.ln_1p();
            let ey = (LIBM + eq + U) * 1.01;
            let den = (1.0 + y) - 2.0 * ey * y.abs() - U;
            let y_err = if den > 0.0 {
                ey * y.abs() / den
            } else {
                f64::INFINITY
            };
            // dℓ/dt = q e^t/r ≤ min(1, q e^t/(1 − q)) on [t − t_err, t + t_err].
            let slope = (qf * (t + t_err).exp() / (1.0 - qf) * (1.0 + 4.0 * U)).min(1.0);
            (l, (slope * t_err + y_err + LIBM * l.abs()) * 1.01)
        };
        let cap = (n_hi - n_lo + 1).max(0) as usize;
        let mut ell_f = Vec::with_capacity(cap);
        let mut args = Vec::with_capacity(cap);
        let mut arg_err: f64 = 0.0;
        let mut ell_abs: f64 = 0.0;
        let mut max_arg = f64::NEG_INFINITY;
        let mut ell_err = Vec::new();
        let mut arg_errs = Vec::new();
        for j in n_lo..=n_hi {
            if (j - n_lo) % 65536 == 65535 && crate::numeric::deadline::expired().is_some() {
                // The MPFR builder reports the time limit.
                return Ok(None);
            }
            // x̂ = fl(hx·j): |x̂ − x| ≤ u|x|, counted in t's and x²'s errors.
            let x = hx * j as f64;
            let (mut l, mut el) = ln_r(x, x - 0.5);
            // Substitution: ℓ = ln r₊ − ln r₋ and the weight φ_σ r₋ (Q's density).
            let (lm, em) = if m.subst {
                ln_r(x, -(x + 0.5))
            } else {
                (0.0, 0.0)
            };
            if m.subst {
                l -= lm;
                el = (el + em) * (1.0 + U) + U * l.abs();
            }
            // x²/(2σ²): x̂² (2u + u), ŝ2 (η), the product and quotient (2u).
            let lp = x * x / (2.0 * s2);
            let p1 = bf * l;
            let arg = p1 + lm - lp - ln_norm;
            // The cut's −softplus(z), z = λ(x − x_c): ẑ's error from x̂ (λu|x|) and the two
            // roundings (2u|z|) passes with slope ≤ 1; softplus's own ≤ (2.01·8u + u)|value|;
            // the subtraction's u.
            let (arg, cut_err) = match m.cut {
                Some(c) => {
                    let z = c.lam * (x - c.xc);
                    let sp = softplus(z);
                    let z_err = 1.01 * (c.lam * U * x.abs() + 2.0 * U * z.abs());
                    let a = arg - sp;
                    (
                        a,
                        z_err + (2.01 * LIBM + U) * 1.01 * sp + U * (a.abs() + sp),
                    )
                }
                None => (arg, 0.0),
            };
            // |arg̃ − arg|: b·ℓ's input errors and rounding, ln r₋'s, x²/(2σ²)'s, ln_norm's, and
            // the three additions' roundings.
            let a_err = bf.abs() * el * (1.0 + eb) * 1.01
                + (2.1 * U + eb) * p1.abs()
                + em
                + (eta + 5.0 * U) * 1.01 * lp
                + ln_norm_err
                + 3.1 * U * (p1.abs() + lm.abs() + lp + ln_norm.abs())
                + cut_err;
            if !(arg.is_finite() && l.is_finite() && a_err.is_finite() && el.is_finite()) {
                return Ok(None);
            }
            if per_node {
                ell_err.push(el);
                arg_errs.push(a_err);
            }
            ell_f.push(l);
            args.push(arg);
            arg_err = arg_err.max(a_err);
            ell_abs = ell_abs.max(el);
            max_arg = max_arg.max(arg);
        }
        if args.is_empty() {
            return Ok(None);
        }
        // ẽ_j = exp(fl(arg_j − fl(k·ln 2))) ≤ ~1, e_j ≈ ẽ_j·2^k: the shift's error 2u|k|ln 2, the
        // subtraction's u|z|, exp's 8u relative (or, below the normal range, 4·2^−1074 absolute).
        let k = (max_arg / LN_2).ceil();
        if !k.is_finite() || k.abs() >= 1e6 {
            return Ok(None);
        }
        let shift = k * LN_2;
        let mut env_f = Vec::with_capacity(args.len());
        let mut z_max: f64 = 0.0;
        let mut n_sub = 0usize;
        for &a in &args {
            let z = a - shift;
            z_max = z_max.max(z.abs());
            let e = z.exp();
            if e < f64::MIN_POSITIVE {
                n_sub += 1;
            }
            env_f.push(e);
        }
        let a_tot = arg_err + 2.0 * U * k.abs() * LN_2 * 1.01 + U * z_max * 1.01;
        // Per node: the same bound with the node's own argument error.
        let env_err: Vec<f64> = arg_errs
            .iter()
            .zip(&args)
            .map(|(&ae, &a)| {
                let t = ae + 2.0 * U * k.abs() * LN_2 * 1.01 + U * (a - shift).abs() * 1.01;
                (t.exp_m1() + LIBM * t.exp()) * 1.01
            })
            .collect();
        let env_rel = (a_tot.exp_m1() + LIBM * a_tot.exp()) * 1.01;
        let n = env_f.len();
        let abs = n_sub as f64 * 4.0 * 2f64.powi(-1074) * (1.0 + a_tot);
        let scale = k as i32;
        let (sum_env_f, sum_env_ell_f) = upper_sums(&env_f, &ell_f);
        // Σ hx·e_j ≤ hx·2^k·(Σ ẽ_j + abs)/(1 − env_rel): an upper bound (the envelope's use).
        if !env_rel.is_finite() || env_rel >= 0.5 {
            return Ok(None);
        }
        let mut env_sum =
            Float::with_val(64, (sum_env_f + abs) / (1.0 - env_rel) * (1.0 + 4.0 * U));
        env_sum *= hx;
        env_sum <<= scale;
        let max_ell = ell_f.iter().fold(0.0f64, |a, l| a.max(l.abs()));
        Ok(Some(Grid {
            hx,
            xl,
            xr,
            ell: Vec::new(),
            env: Vec::new(),
            ell_f,
            env_f,
            scale,
            sum_env_f,
            sum_env_ell_f,
            n,
            env_sum,
            ell_sum: None,
            ln_tails: ln_x_tails(m, bf, xl, xr, hx),
            max_arg: max_arg.abs() + a_tot,
            max_ell,
            double_nodes: Some(NodeErrors {
                env_rel,
                ell_abs,
                abs,
            }),
            sum_err: None,
            ell_err,
            env_err,
        }))
    }
}

/// Upper bounds on Σ env_f and Σ env_f·|ell_f| (non-negative doubles): |fl(Σ) − Σ| ≤ γ_{n−1}·Σ
/// (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., §4.2, recursive summation),
/// the products' rounding, and n·2^−1022 for terms below the normal range.
fn upper_sums(env_f: &[f64], ell_f: &[f64]) -> (f64, f64) {
    let n = env_f.len() as f64;
    let up = 1.0 + 1.01 * n * U64;
    let sum_env = env_f.iter().sum::<f64>() * up + n * f64::MIN_POSITIVE;
    let sum_env_ell = env_f
        .iter()
        .zip(ell_f)
        .map(|(e, l)| e * l.abs())
        .sum::<f64>()
        * up
        * (1.0 + 2.0 * U64)
        + n * f64::MIN_POSITIVE;
    (sum_env, sum_env_ell)
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
    /// For a cut factor, ln of an upper bound on the uncut moment E_Q[r^b] (E_w plus the mass
    /// the cut removes), which the tail bound's parts are relative to, and a bound η on that
    /// mass relative to E_Q[r^b] (docs/accounting.md#tail-cut); ln_env and 0 uncut.
    pub(super) ln_env_unw: f64,
    pub(super) eta: f64,
    /// ln of the factor a cut factor's strip bounds carry on top of the uncut ones, relative to
    /// E_w (0 uncut): |w(x + iy)| ≤ (2/√3)·w(x) on the strip, and the strip split's outer mass,
    /// an absolute mass, over E_w's certified floor ([`ln_cut_floor`]; `x_step_split` already
    /// divides it by the uncut floor, so this overcounts by that factor, ≤ 1/(1 − q)).
    pub(super) ln_cut_strip: f64,
    pub(super) ln_rel: f64,
    pub(super) grids: Vec<Grid>,
    pub(super) prec: u32,
    /// Sum the x-trapezoid in double precision with an a-priori rounding bound
    /// (docs/accounting.md#fast-inner) instead of MPFR.
    pub(super) fast: bool,
    /// How the grids' nodes are computed ([`NodeMode`]).
    pub(super) nodes: NodeMode,
    /// Shared-envelope evaluators: the reference grid (MPFR, v = 0, e^{−REF_EXTRA} of the
    /// tolerance) whose envelope sum and Σ hx·e_j·ℓ_j the double-precision grids use, and
    /// ln max(E_Q[r^{b−1}], E_Q[r^{b+1}]) for the latter's bound
    /// (docs/accounting.md#shared-envelope).
    reference: Option<(Grid, f64)>,
    /// The outer masses of the strip split (add/remove factors; [`x_step_split`]), built on
    /// the first step at v ≠ 0.
    outer: std::cell::OnceCell<Option<OuterMass>>,
}

/// The radius ρ of the Cauchy estimate in [`MixEval::share`]: the tail bounds' Gaussian
/// constants grow like b²/(2σ²), so b ± ρ with ρ = min(1, σ²/(2|b| + 1)) moves them by at most
/// about ½.
fn cauchy_radius(m: &Mix, b: f64) -> f64 {
    (m.sf * m.sf / (2.0 * b.abs() + 1.0)).min(1.0)
}

/// How much finer than the evaluator's tolerance the shared reference grid is: its Σ hx·e_j·ℓ_j
/// is multiplied by |v| (up to ~10⁴) in the moment.
const REF_EXTRA: f64 = 12.0;

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
            ln_env_unw: f64::INFINITY,
            eta: 0.0,
            ln_cut_strip: 0.0,
            ln_rel,
            grids: Vec::new(),
            prec,
            fast,
            // The first grid (v = 0) in MPFR: its envelope sum is the certified E bound and,
            // on the fast path, the later grids' envelope sum.
            nodes: NodeMode::Mpfr,
            reference: None,
            outer: std::cell::OnceCell::new(),
        };
        let g0 = me.grid_for(0.0)?;
        // E ≥ 1 (Jensen), so the tails and strip error are relative to at least 1.
        let (_, ln_strip) = x_step(mix, me.b.to_f64(), 0.0, ln_rel);
        let g = &me.grids[g0];
        // E ≤ (trapezoid sum + omitted nodes)/(1 − k0), k0 the strip factor at v = 0 (for a
        // cut factor, times its strip factor).
        let bf = me.b.to_f64();
        let ln_cut = mix
            .cut
            .map_or(f64::NEG_INFINITY, |c| ln_cut_loss(mix, bf, c));
        if ln_cut.is_nan() {
            return Err(Error::Precision {
                narrowest: None,
                requested: 0,
                certified: 0,
                what: format!(
                    "composition: the tail cut's lost mass of {} did not evaluate",
                    mix.describe()
                ),
            });
        }
        if let Some(c) = mix.cut {
            me.ln_cut_strip =
                (2.0 / 3f64.sqrt()).ln() + (-ln_cut_floor(mix, bf, c, ln_cut)).max(0.0) + 1e-12;
        }
        let ln_k0 =
            LN_2 + ln_strip + me.ln_cut_strip - ln_expm1(2.0 * PI * y_of(mix, ln_rel) / g.hx);
        let ln_sum = ln_float(&g.env_sum) + 1e-12;
        me.ln_env = f64s::log_add_exp(ln_sum, g.ln_tails) - (-ln_k0.exp().min(0.5)).ln_1p();
        me.ln_env_unw = f64s::log_add_exp(me.ln_env, ln_cut);
        me.eta = ((ln_cut - ln_moment_floor(mix, bf)).exp() * (1.0 + 1e-9)).min(1.0);
        Ok(me)
    }

    /// Later grids in double precision with the first grid's envelope sum, when the x-sums are
    /// (docs/accounting.md#shared-envelope).
    pub(super) fn share_envelope(mut self) -> MixEval {
        if self.fast {
            self.nodes = NodeMode::Shared;
        }
        self
    }

    /// A probe's evaluator: 64-bit arithmetic where MPFR is used, x-sums and grid nodes in
    /// double precision (docs/accounting.md#double-nodes) — for bounds that need a few digits
    /// of a moment: the tail bound's probes.
    pub(super) fn probe(mix: &Mix, a: &Float, ln_rel: f64) -> Result<MixEval> {
        let mut ev = MixEval::with_mode(mix, a, ln_rel, 64, true)?;
        ev.nodes = NodeMode::Double;
        // The v = 0 grid of `with_mode` was built in MPFR; later grids are built in doubles.
        Ok(ev)
    }

    /// The x-trapezoid's step at |Im β| = v ([`x_step_split`]).
    fn step(&self, v: f64) -> Step {
        let bf = self.b.to_f64();
        let outer = if v == 0.0 {
            None
        } else {
            self.outer
                .get_or_init(|| OuterMass::new(&self.mix, bf))
                .as_ref()
        };
        x_step_split(&self.mix, bf, v, self.ln_rel, outer)
    }

    /// Number of x-nodes a moment at |Im β| = v would use.
    pub(super) fn grid_size(&self, v: f64) -> f64 {
        let bf = self.b.to_f64();
        let need = self.step(v).hx;
        let (xl, xr) = x_range(&self.mix, bf, need, self.ln_rel - 2.0);
        (xr - xl) / need
    }

    /// Index of a cached grid fine enough for |Im β| = v (steps halve from the v = 0 step).
    pub(super) fn grid_for(&mut self, v: f64) -> Result<usize> {
        let bf = self.b.to_f64();
        let need = self.step(v).hx;
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
        // Shared-envelope grids' omitted nodes enter Σ hx·e_j·ℓ_j, which |v| multiplies: their
        // range is as wide as the reference's.
        let ln_tol = if self.nodes == NodeMode::Shared {
            self.ln_rel - 2.0 - REF_EXTRA
        } else {
            self.ln_rel - 2.0
        };
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
        let mut g = Grid::new(
            &self.mix, &self.b, hx, ln_tol, self.prec, self.fast, self.nodes,
        )?;
        if self.nodes == NodeMode::Shared && g.double_nodes.is_some() {
            self.share(&mut g)?;
        }
        self.grids.push(g);
        Ok(self.grids.len() - 1)
    }

    /// Gives a double-precision grid the reference grid's envelope sum and Σ hx·e_j·ℓ_j with
    /// bounds on their differences from its own (docs/accounting.md#shared-envelope). Both grids'
    /// trapezoid sums lie within their v = 0 discretisation bound plus their omitted nodes of
    /// E = E_Q[r^b]. For Σ hx·e_j·ℓ_j, the derivative in β of the trapezoid error ε(β) (analytic
    /// in β, the truncated sum too): |ε′(b)| ≤ max_{|β−b|=1} |ε(β)| (Cauchy), where the strip
    /// bound holds with |Im β| ≤ 1, c_β at the worse end of [b − 1, b + 1] and
    /// E_Q[r^{Re β}] ≤ max(E(b − 1), E(b + 1)) (log-convexity), and the omitted nodes carry at
    /// most the tails at b ± 1 (r^{b′} ≤ r^{b−1} + r^{b+1}). The reference's MPFR roundings are
    /// added.
    fn share(&mut self, g: &mut Grid) -> Result<()> {
        let bf = self.b.to_f64();
        if self.reference.is_none() {
            let ln_rel = self.ln_rel - REF_EXTRA;
            let (hx, _) = x_step(&self.mix, bf, 0.0, ln_rel);
            let r = Grid::new(
                &self.mix,
                &self.b,
                hx,
                ln_rel - 2.0,
                self.prec,
                true,
                NodeMode::Mpfr,
            )?;
            let a = if self.mix.flip { 1.0 - bf } else { bf };
            let rho = cauchy_radius(&self.mix, bf);
            let mut ln_e_pm = f64::NEG_INFINITY;
            for d in [-rho, rho] {
                let ev =
                    MixEval::with_mode(&self.mix, &Float::with_val(64, a + d), -40.0, 64, false)?;
                ln_e_pm = ln_e_pm.max(ev.ln_env + ev.ln_cut_strip);
            }
            self.reference = Some((r, ln_e_pm));
        }
        let (r, ln_e_pm) = self.reference.as_ref().expect("built above");
        let m = &self.mix;
        let (_, ln_strip) = x_step(m, bf, 0.0, self.ln_rel);
        let y = y_of(m, self.ln_rel);
        let s2 = m.sf * m.sf;
        let env = |h: f64, tails: f64| {
            f64s::log_add_exp(
                LN_2 + ln_strip + self.ln_env + self.ln_cut_strip - ln_expm1(2.0 * PI * y / h),
                tails,
            )
        };
        let rho = cauchy_radius(m, bf);
        let ln_cb_pm = ln_cb(m, bf - rho, y).max(ln_cb(m, bf + rho, y));
        let deriv = |grid: &Grid| {
            f64s::log_sum_exp(&[
                LN_2 + y * y / (2.0 * s2) + strip_args(m) * rho * y / s2 + ln_cb_pm + ln_e_pm
                    - ln_expm1(2.0 * PI * y / grid.hx),
                ln_x_tails(m, bf - rho, grid.xl, grid.xr, grid.hx),
                ln_x_tails(m, bf + rho, grid.xl, grid.xr, grid.hx),
            ]) - rho.ln()
        };
        let rn = r.n as f64;
        let round_env = ln_mpfr_round(&r.env_sum, rn + 16.0 + 4.0 * r.max_arg, self.prec);
        let round_ell = ln_mpfr_round(&r.env_sum, r.max_ell * (rn + 8.0), self.prec);
        let sum_err = f64s::log_sum_exp(&[env(r.hx, r.ln_tails), env(g.hx, g.ln_tails), round_env]);
        let ell_err = f64s::log_sum_exp(&[deriv(r), deriv(g), round_ell]);
        let (d, _) = r.ell_sum.as_ref().expect("an MPFR grid has its linear sum");
        g.env_sum = r.env_sum.clone();
        g.sum_err = Some((sum_err + 1e-9).exp());
        g.ell_sum = Some((d.clone(), (ell_err + 1e-9).exp()));
        Ok(())
    }

    /// E_Q[r^{b + i v}] with an absolute error bound (strip + tails + rounding).
    pub(super) fn moment(&mut self, v: &Float) -> Result<Moment> {
        let vf = v.to_f64();
        let gi = self.grid_for(vf)?;
        let prec = self.prec;
        let g = &self.grids[gi];
        let hx = Float::with_val(prec, g.hx);
        let (mut value, round) = if self.fast {
            // With MPFR nodes or a shared envelope, the real part is read as
            // Σ e_j − Σ e_j·2 sin²(vℓ_j/2) (the first sum is the grid's or the reference's MPFR
            // envelope sum), so the double-precision rounding is relative to the deviation from
            // the envelope, not to the envelope itself (docs/accounting.md#fast-deviation); the
            // imaginary part likewise from its linear term (#shared-envelope).
            let deviation = g.double_nodes.is_none() || g.sum_err.is_some();
            let linear = deviation && g.ell_sum.is_some();
            let (re, im, ln_round) = if deviation {
                fast_sum_deviation(g, v, linear)
            } else {
                fast_sum(g, v)
            };
            let mut re = Float::with_val(prec, re) * &hx;
            let mut im = Float::with_val(prec, im) * &hx;
            re <<= g.scale;
            im <<= g.scale;
            if deviation {
                re = Float::with_val(prec, &g.env_sum - &re);
            }
            // Im = v·Σ hx e_j ℓ_j − Σ hx e_j (φ_j − sin φ_j).
            let mut ln_lin = f64::NEG_INFINITY;
            if let (true, Some((d, d_err))) = (linear, &g.ell_sum) {
                im = Float::with_val(prec, Float::with_val(prec, v * d) - &im);
                // The MPFR sum's rounding, times |v|: ≤ 2^−prec (n + 8)·Σ e_j|ℓ_j|, and
                // Σ e_j|ℓ_j| ≤ env_sum·max|ℓ_j|; and the sum's own bound.
                ln_lin = f64s::log_add_exp(
                    ln_mpfr_round(&g.env_sum, vf.abs() * g.max_ell * (g.n as f64 + 8.0), prec),
                    (vf.abs() * d_err).ln(),
                );
            }
            // The nodes' own errors: MPFR's in env_j and ℓ_j (the rounding bound of the slow
            // path, with the phase itself computed in double precision and bounded separately),
            // or, for nodes computed in double precision, their bounds (relative in e_j, absolute
            // in ℓ_j, so v·|Δℓ_j| in the phase, and the underflowed nodes' absolute error).
            let n = g.n as f64;
            let mp = match (g.double_nodes, g.sum_err) {
                // Shared envelope: its bound; the nodes' errors in the deviation sums are inside
                // `fast_sum_deviation`'s.
                (_, Some(err)) => err.ln(),
                (None, None) => ln_mpfr_round(
                    &g.env_sum,
                    n + 16.0 + 4.0 * (g.max_arg + vf.abs() * g.max_ell),
                    prec,
                ),
                (Some(e), None) => {
                    f64s::log_add_exp(
                        ln_float(&g.env_sum) + (e.env_rel + vf.abs() * e.ell_abs).ln(),
                        e.abs.ln() + g.hx.ln() + f64::from(g.scale) * LN_2,
                    ) + 1e-9
                }
            };
            let ln_round = f64s::log_add_exp(
                ln_round + g.hx.ln() + f64::from(g.scale) * LN_2 + 1e-9,
                ln_lin,
            );
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
            let round = ln_mpfr_round(&g.env_sum, n + 16.0 + 4.0 * (g.max_arg + max_ph), prec);
            (Complex::with_val(prec, (re, im)), round)
        };
        let st = self.step(vf);
        let strip =
            LN_2 + st.ln_strip + self.ln_env + self.ln_cut_strip - ln_expm1(2.0 * PI * st.y / g.hx);
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

/// One step of Sum2: TwoSum (Knuth) adds x to s exactly as the new s plus an error term, which
/// is accumulated in c.
#[inline]
fn two_sum(s: &mut f64, c: &mut f64, x: f64) {
    let t = *s + x;
    let z = t - *s;
    *c += (*s - (t - z)) + (x - z);
    *s = t;
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
        two_sum(&mut sr, &mut cr, xr);
        two_sum(&mut si, &mut ci, xi);
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

/// Σ_j ẽ_j·2 sin²(φ_j/2) and Σ_j ẽ_j sin φ_j, φ_j = fl(v·ℓ̃_j), in double precision with Sum2,
/// and ln of a bound on their absolute errors (added) against Σ_j e_j·2 sin²(vℓ_j/2) and
/// Σ_j e_j sin(vℓ_j) for the MPFR values e_j = (the source of ẽ_j)·2^scale and ℓ_j
/// (docs/accounting.md#fast-deviation). Per term: ẽ_j's rounding (u), libm's sin (≤ 4 ulp,
/// 8u relative), the squaring and products (u each): 21u of the term for the first sum and
/// 11u for the second; the phase, δφ_j ≤ (3u + u²)|φ_j| + |v − fl(v)||ℓ̃_j| (ℓ̃_j's rounding
/// included), moves 2 sin²(φ/2) by at most min(|φ|, 1)·δφ and sin φ by at most δφ; Sum2 adds
/// u|S| + γ²_{n−1}Σ|x_j|; below the normal range 3·2^−1074 per term.
///
/// With `linear`, the second sum is Σ_j ẽ_j (φ_j − sin φ_j) instead (the imaginary part being
/// v·Σ e_jℓ_j minus it, docs/accounting.md#shared-envelope): 64u of the term for
/// [`phi_minus_sin`] and the product's u, and the phase moves φ − sin φ by at most
/// min(2, (|φ| + δφ)²/2)·δφ. Grids with nodes in double precision (shared envelopes) add each
/// node's own relative error of ẽ_j to the terms and |v|·|Δℓ_j| to δφ_j.
fn fast_sum_deviation(g: &Grid, v: &Float, linear: bool) -> (f64, f64, f64) {
    let vf = v.to_f64();
    let dv = Float::with_val(64, v - vf).abs().to_f64() * 2.0;
    let (mut s1, mut c1) = (0.0f64, 0.0f64);
    let (mut s2, mut c2) = (0.0f64, 0.0f64);
    let (mut abs1, mut abs2) = (0.0f64, 0.0f64);
    let (mut ph1, mut ph2) = (0.0f64, 0.0f64);
    let (mut rel1, mut rel2) = (0.0f64, 0.0f64);
    // Nodes computed in double precision (shared-envelope grids): ẽ_j's relative error and ℓ̃_j's own
    // per-node error (v·|Δℓ_j| in the phase), instead of MPFR's correctly rounded values.
    for (j, (&l, &e)) in g.ell_f.iter().zip(&g.env_f).enumerate() {
        let phi = vf * l;
        let sh = (0.5 * phi).sin();
        let x1 = e * (2.0 * sh * sh);
        let x2 = if linear {
            e * phi_minus_sin(phi)
        } else {
            e * phi.sin()
        };
        two_sum(&mut s1, &mut c1, x1);
        two_sum(&mut s2, &mut c2, x2);
        abs1 += x1;
        abs2 += x2.abs();
        if let Some(&r) = g.env_err.get(j) {
            rel1 += r * x1;
            rel2 += r * x2.abs();
        }
        let el = g
            .ell_err
            .get(j)
            .map_or(0.0, |&d| d * vf.abs() * (1.0 + 2.0 * U64));
        let dphi = (3.0 * U64 + U64 * U64) * phi.abs() * (1.0 + U64) + dv * l.abs() + el;
        ph1 += e * phi.abs().min(1.0) * dphi;
        // d/dφ (φ − sin φ) = 2 sin²(φ/2) ≤ min(2, φ²/2) between φ̃ and φ.
        ph2 += if linear {
            let a = phi.abs() + dphi;
            e * (0.5 * a * a).min(2.0) * dphi
        } else {
            e * dphi
        };
    }
    let n = g.n as f64;
    let up = 1.0 + 1.01 * n * U64;
    let (abs1, abs2, ph1, ph2) = (abs1 * up, abs2 * up, ph1 * up * 1.01, ph2 * up * 1.01);
    let gamma = (n * U64) / (1.0 - n * U64);
    let (r1, r2) = (s1 + c1, s2 + c2);
    let (rel1, rel2) = (rel1 * up * 1.01, rel2 * up * 1.01);
    let e1 = U64 * r1.abs() * 1.01 + gamma * gamma * abs1 + 21.0 * U64 * abs1 + rel1 + ph1;
    // φ − sin φ: ≤ 64u of the term (`phi_minus_sin`) and the product's u.
    let per2 = if linear { 66.0 } else { 11.0 };
    let e2 = U64 * r2.abs() * 1.01 + gamma * gamma * abs2 + per2 * U64 * abs2 + rel2 + ph2;
    let bound = (e1 + e2 + 6.0 * n * 2.0f64.powi(-1074)) * (1.0 + 1e-6);
    (r1, r2, bound.ln())
}

/// φ − sin φ in double precision within 64u of its value: for |φ| < 1 the alternating series
/// φ³(1/3! − φ²/5! + … + φ¹⁶/19!) by Horner (the next term is below 10⁻¹⁹ of φ³/6; ten
/// roundings of terms that decrease); for |φ| ≥ 1 the difference, where
/// |φ − sin φ| ≥ 1 − sin 1 > 0.158 bounds libm's 8u of |sin φ| ≤ 1 by 51u of the value.
fn phi_minus_sin(p: f64) -> f64 {
    if p.abs() < 1.0 {
        const C: [f64; 9] = [
            1.0 / 6.0,
            1.0 / 120.0,
            1.0 / 5040.0,
            1.0 / 362_880.0,
            1.0 / 39_916_800.0,
            1.0 / 6_227_020_800.0,
            1.0 / 1_307_674_368_000.0,
            1.0 / 355_687_428_096_000.0,
            1.0 / 121_645_100_408_832_000.0,
        ];
        let p2 = p * p;
        let mut s = C[8];
        for c in C[..8].iter().rev() {
            s = c - p2 * s;
        }
        p * p2 * s
    } else {
        p - p.sin()
    }
}

/// ln of the MPFR rounding bound 4·Σ·k·2^−prec used for the x-sums at `prec` bits: Σ the
/// envelope sum, k the sum's count of roundings and argument sizes (n + 16 + 4·max|arg| for the
/// envelope-weighted sums).
fn ln_mpfr_round(env_sum: &Float, k: f64, prec: u32) -> f64 {
    ln_float(env_sum) + k.ln() - f64::from(prec) * LN_2 + 4f64.ln()
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
    (m.sf * (2.0 * big_l).sqrt()).min(y_cap(m))
}

/// The widest strip half-width: θ = y/σ² ≤ π/4 ([`ln_cb`]), and for a cut factor
/// y ≤ π/(3λ), where |w(x + iy)| ≤ (2/√3)·w(x) (docs/accounting.md#tail-cut).
fn y_cap(m: &Mix) -> f64 {
    let y = PI * m.sf * m.sf / 4.0;
    match m.cut {
        Some(c) => y.min(PI / (3.0 * c.lam)),
        None => y,
    }
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
        let cut = m.cut.map_or(0.0, |c| softplus(c.lam * (x - c.xc)));
        terms.push(b * l - x * x / (2.0 * s2) - ln_norm - cut);
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
    // Uncut: relative to the uncut moment, as the tail bound uses it (a cut factor's
    // |d/du E_Q[w r^{b+iu}]| ≤ E_Q[|ln r| r^b] too, w ≤ 1).
    let m = &m.uncut();
    let ratio = (ln_moment_f64(m, b + 1.0) - ln_moment_f64(m, b)).exp();
    let q = m.qf;
    (-(-q).ln_1p() + (ratio - (1.0 - q)).max(0.0) + 1e-12) * (1.0 + 1e-6)
}

/// ln of the lower bound c on the density of ℓ = ln r under the tilted law w = φ_σ r^b/E on
/// the x-cell [x₁, x₂] (ℓ₁, ℓ₂ its ends; docs/accounting.md#uniform-part): ℓ′ = q e^t/(σ² r), so
/// the density w/ℓ′ = σ² g r^{b+1}/(qE) with g = φ_σ e^{−t} a Gaussian centred at −1 (unimodal)
/// and r^{b+1} monotone, each at least its smaller endpoint value.
fn ln_density_floor(
    m: &Mix,
    b: f64,
    ln_env: f64,
    (x1, l1): (f64, f64),
    (x2, l2): (f64, f64),
) -> f64 {
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let ln_g = |x: f64| -((x + 1.0).powi(2) - 2.0) / (2.0 * s2) - (s * (2.0 * PI).sqrt()).ln();
    s2.ln() - q.ln() - ln_env + ln_g(x1).min(ln_g(x2)) + ((b + 1.0) * l1).min((b + 1.0) * l2)
}

/// Uniform parts of the loss under the tilted law (docs/accounting.md#uniform-part): pairs
/// (p, Δ) such that, for every u, |E_Q[r^{b+iu}]| ≤ E·(1 − p·(1 − |sinc(uΔ/2)|)), E = E_Q[r^b].
///
/// Under w = φ_σ r^b/E the loss ℓ = ln r is strictly increasing in x with ℓ′ = q e^t/(σ² r), so
/// on an x-interval [x₁, x₂] its density w/ℓ′ = σ² φ_σ e^{−t} r^{b+1}/(q E) is at least
/// c = σ²·min(g(x₁), g(x₂))·min(r(x₁)^{b+1}, r(x₂)^{b+1})/(q E), g = φ_σ e^{−t} being unimodal
/// (a Gaussian centred at −1) and r^{b+1} monotone. The law of ℓ is then p·U[ℓ(x₁), ℓ(x₂)] plus
/// a rest of mass 1 − p, p = cΔ, Δ = ℓ(x₂) − ℓ(x₁), and the uniform part's characteristic
/// function has modulus |sinc(uΔ/2)|. Candidates: x₂ from −3σ to 7σ in steps of σ/4, widths
/// σ/8 to 2σ; evaluated in double precision with a 10⁻⁶ relative margin on p and on Δ (libm
/// errors are ~10⁻¹⁶). `ln_env` is ln of an upper bound on E. Empty for substitution factors.
pub(super) fn uniform_parts(m: &Mix, b: f64, ln_env: f64) -> Vec<(f64, f64)> {
    if m.subst {
        return Vec::new();
    }
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let ln_r = |x: f64| (q * ((x - 0.5) / s2).exp_m1()).ln_1p();
    let mut out = Vec::new();
    for k in 0..=40 {
        let x2 = -3.0 * s + f64::from(k) * s / 4.0;
        for w in [0.125, 0.25, 0.5, 1.0, 2.0] {
            let x1 = x2 - w * s;
            let (l1, l2) = (ln_r(x1), ln_r(x2));
            let delta = (l2 - l1) * (1.0 - 1e-6);
            let ln_c = ln_density_floor(m, b, ln_env, (x1, l1), (x2, l2));
            let p = (ln_c + delta.ln()).exp() * (1.0 - 1e-6);
            if p.is_finite() && p > 0.0 && delta.is_finite() && delta > 0.0 {
                out.push((p.min(1.0), delta));
            }
        }
    }
    out
}

/// The x-range where ln(φ_σ r^b) is within 16 of its largest value on a σ/4 scan, widened by
/// one scan step (the mode lies within |b| + 1 of the origin: (ln w)′ = −x/σ² + b·ℓ_t/σ²,
/// ℓ_t ∈ (0, 1)). Mass left out only weakens the bounds built on it.
fn core_range(m: &Mix, b: f64) -> Option<(f64, f64)> {
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let ln_w = |x: f64| -x * x / (2.0 * s2) + b * (q * ((x - 0.5) / s2).exp_m1()).ln_1p();
    let reach = b.abs() + 1.0 + 10.0 * s;
    let scan: Vec<(f64, f64)> = (0..)
        .map(|k| -reach + f64::from(k) * s / 4.0)
        .take_while(|&x| x <= reach)
        .map(|x| (x, ln_w(x)))
        .collect();
    let top = scan.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    if !top.is_finite() {
        return None;
    }
    let kept: Vec<f64> = scan
        .iter()
        .filter(|p| p.1 >= top - 16.0)
        .map(|p| p.0)
        .collect();
    Some((kept.first()? - s / 4.0, kept.last()? + s / 4.0))
}

/// ℓ = ln r at x, its rounding pad and the logistic weight ℓ_t = q e^t/r = dℓ/dt: the pad
/// 10⁻¹¹(|ℓ| + |t|·ℓ_t) + 10⁻¹⁵(e^{−ℓ} − 1)⁺ is far above libm's errors and those of t̂ and q̂
/// (t's error enters ℓ with the factor ℓ_t ∈ (0, 1]; q̂'s relative error with |e^{−ℓ} − 1| at
/// most).
fn loss_point(q: f64, s2: f64, x: f64) -> (f64, f64, f64) {
    let t = (x - 0.5) / s2;
    let l = (q * t.exp_m1()).ln_1p();
    let lt = (q.ln() + t - l).exp().min(1.0);
    let pad = 1e-11 * (l.abs() + t.abs() * lt) + 1e-15 * (-l).exp_m1().max(0.0);
    (l, pad, lt)
}

/// Step parts of the loss's law under the tilted law (docs/accounting.md#step-part): pairs
/// (P, V) such that |M(b + iu′)| ≤ E·(1 − P + V/u) at every u′ ≥ u. On x-cells [x₁, x₂] the
/// density of ℓ is at least c = σ²·min g·min r^{b+1}/(qE) over the endpoints (as in
/// [`uniform_parts`]), so the law of ℓ is f + ν with the step function f = Σ min(c_j, H) on the
/// cells' ℓ-intervals (mass P = ∫f) and ν ≥ 0 of mass 1 − P; |∫ f e^{iuℓ} dℓ| ≤ TV(f)/u = V/u
/// (summation by parts: the breakpoints' exact positions do not enter V, and P uses the cells'
/// ℓ-widths less their pads). The cap H trades P for V: H from the largest c down by factors
/// √2 (64 caps). Cells: x-steps of at most σ/64 with (b + 1)·Δℓ ≤ 0.05 over the
/// [`core_range`]; 10⁻⁶ relative margins on P and V. Empty for substitution factors.
pub(super) fn step_parts(m: &Mix, b: f64, ln_env: f64) -> Vec<(f64, f64)> {
    if m.subst {
        return Vec::new();
    }
    let Some((xa, xb)) = core_range(m, b) else {
        return Vec::new();
    };
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let c1 = b + 1.0;
    let dx_max = s / 64.0;
    let mut heights = Vec::new();
    let mut widths = Vec::new();
    let mut x = xa;
    let (mut l1, mut pad1, _) = loss_point(q, s2, x);
    while x < xb && heights.len() < 4000 {
        let (_, _, lt_far) = loss_point(q, s2, x + dx_max);
        let dx = dx_max.min(0.05 * s2 / (c1.abs() * lt_far).max(1e-300));
        let x2 = x + dx;
        let (l2, pad2, _) = loss_point(q, s2, x2);
        let ln_c = ln_density_floor(m, b, ln_env, (x, l1), (x2, l2));
        let slack = 1e-12 * (ln_c.abs() + (c1 * l1).abs() + (c1 * l2).abs() + ln_env.abs());
        heights.push((ln_c - slack).exp() * (1.0 - 1e-6));
        widths.push((l2 - l1 - pad1 - pad2).max(0.0));
        x = x2;
        l1 = l2;
        pad1 = pad2;
    }
    let top = heights.iter().copied().fold(0.0f64, f64::max);
    let mut out = Vec::new();
    if !(top.is_finite() && top > 0.0) {
        return out;
    }
    for k in 0..64 {
        let cap = top * (-0.5 * f64::from(k) * LN_2).exp();
        let mut mass = 0.0;
        let mut tv = 0.0;
        let mut prev = 0.0;
        for (&c, &w) in heights.iter().zip(&widths) {
            let h = c.min(cap);
            mass += h * w;
            tv += (h - prev).abs();
            prev = h;
        }
        tv += prev;
        let mass = mass * (1.0 - 1e-6);
        if mass > 0.0 {
            out.push((mass.min(1.0), tv * (1.0 + 1e-6)));
        }
    }
    out
}

/// The step parts' deficit at every u′ ≥ u: max (P − V/u)⁺.
pub(super) fn step_deficit(parts: &[(f64, f64)], u: f64) -> f64 {
    parts.iter().map(|&(p, v)| p - v / u).fold(0.0f64, f64::max)
}

/// The quadratic part of the loss's law (docs/accounting.md#quadratic-part): for cell pairs
/// sorted by their largest ℓ-distance d_max, the running sums S of 2·m_j m_k d_min² (both
/// orders), so that the pairs with u·d_max ≤ Z give 1 − |φ(u)|² ≥ c(Z)·u²·S
/// ([`QuadPart::deficit`]).
pub(super) struct QuadPart {
    limits: Vec<f64>,
    sums: Vec<f64>,
}

impl QuadPart {
    /// A lower bound on 1 − |M(b + iu)|/M(b) at every u in [u₁, u₂]: for a reach Z ≤ π, the
    /// pairs with u₂·d_max ≤ Z (so |u·d| ≤ Z for each of them and every u ≤ u₂), where
    /// 1 − cos z ≥ c(Z)·z², c(Z) = (1 − cos Z)/Z² = sinc²(Z/2)/2 (decreasing on [0, 2π]: 2/π² at
    /// π, ½ as Z → 0), gives 1 − |φ(u)|² ≥ x = c(Z)·u₁²·S; the best of [`QUAD_REACH`]'s reaches,
    /// and 1 − |φ| ≥ x/(1 + √(1 − x)).
    pub(super) fn deficit(&self, u1: f64, u2: f64) -> f64 {
        let x = QUAD_REACH
            .iter()
            .map(|&z| {
                let n = self
                    .limits
                    .partition_point(|&d| d * u2 <= z * (1.0 - 1e-12));
                if n == 0 {
                    return 0.0;
                }
                let half = z / 2.0;
                let c = 0.5 * (half.sin() / half).powi(2);
                c * u1 * u1 * self.sums[n - 1] * (1.0 - 1e-9)
            })
            .fold(0.0, f64::max)
            .min(1.0);
        x / (1.0 + (1.0 - x).sqrt())
    }
}

/// The reaches Z of [`QuadPart::deficit`]: c(Z) from 2/π² ≈ 0.203 at π to 0.497 at ⅛.
const QUAD_REACH: [f64; 8] = [PI, 2.5, 2.0, 1.5, 1.0, 0.5, 0.25, 0.125];

/// Cells for [`QuadPart`] over the [`core_range`]: x-steps of σ/64, merged while the merged
/// cell's ℓ-width stays within 1/64 of the central mass's ℓ-range (from 10⁻³ to 1 − 10⁻³ of
/// it, found on the unmerged steps) inside that range, and within an eighth of the distance to it
/// outside (little mass, whose pairs with the centre count only at small u). The mass of a step
/// [x₁, x₂] is at least (x₂ − x₁)·min φ_σ·min r^b over the endpoints (φ_σ is unimodal, r^b
/// monotone) divided by the upper bound e^{ln_env} on M(b), with a 10⁻⁶ relative margin; each
/// ℓ carries the pad of [`loss_point`]. None for substitution factors, whose loss has another
/// law.
pub(super) fn quad_part(m: &Mix, b: f64, ln_env: f64) -> Option<QuadPart> {
    if m.subst {
        return None;
    }
    let (q, s) = (m.qf, m.sf);
    let s2 = s * s;
    let ln_norm = -(s * (2.0 * PI).sqrt()).ln();
    let (xa, xb) = core_range(m, b)?;
    let dx = s / 64.0;
    // The unmerged steps: (ℓ-lo, ℓ-hi, mass).
    let mut steps: Vec<(f64, f64, f64)> = Vec::new();
    let mut x = xa;
    let (mut l1, mut pad1, _) = loss_point(q, s2, x);
    while x < xb && steps.len() < 8192 {
        let x2 = x + dx;
        let (l2, pad2, _) = loss_point(q, s2, x2);
        let ln_phi = ln_norm - x.abs().max(x2.abs()).powi(2) / (2.0 * s2);
        let ln_mass = dx.ln() + ln_phi + (b * l1).min(b * l2) - ln_env;
        let slack = 1e-12 * (ln_phi.abs() + (b * l1).abs() + (b * l2).abs() + ln_env.abs());
        steps.push((l1 - pad1, l2 + pad2, (ln_mass - slack).exp() * (1.0 - 1e-6)));
        x = x2;
        l1 = l2;
        pad1 = pad2;
    }
    let total: f64 = steps.iter().map(|c| c.2).sum();
    if !(total.is_finite() && total > 0.0) {
        return None;
    }
    let mut cum = 0.0;
    let (mut c_lo, mut c_hi) = (None, None);
    for c in &steps {
        cum += c.2;
        if c_lo.is_none() && cum >= 1e-3 * total {
            c_lo = Some(c.0);
        }
        if c_hi.is_none() && cum >= (1.0 - 1e-3) * total {
            c_hi = Some(c.1);
        }
    }
    let (c_lo, c_hi) = (c_lo?, c_hi?);
    let w0 = (c_hi - c_lo) / 64.0;
    let width = |l: f64| w0.max((c_lo - l).max(l - c_hi) / 8.0);
    let mut cells: Vec<(f64, f64, f64)> = Vec::new();
    for c in steps {
        match cells.last_mut() {
            Some(last) if c.1 - last.0 <= width(last.0) => {
                last.1 = c.1;
                last.2 += c.2;
            }
            _ => cells.push(c),
        }
    }
    cells.retain(|c| c.2 > 1e-30);
    let mut pairs: Vec<(f64, f64)> = Vec::new();
    for (j, cj) in cells.iter().enumerate() {
        for ck in &cells[j + 1..] {
            let d_min = (ck.0 - cj.1).max(0.0);
            if d_min > 0.0 {
                pairs.push((ck.1 - cj.0, 2.0 * cj.2 * ck.2 * d_min * d_min));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut acc = 0.0;
    let (limits, sums) = pairs
        .into_iter()
        .map(|(d, w)| {
            acc += w;
            (d, acc)
        })
        .unzip();
    Some(QuadPart { limits, sums })
}

/// A lower bound on 1 − sup_{z′ ≥ z} |sin z′/z′| (z ≥ 0): sinc decreases on [0, π] and
/// |sinc z′| ≤ 1/z′ ≤ 1/π beyond; below 1/2 the alternating series z²/6 − z⁴/120 (a lower bound)
/// avoids the cancellation of 1 − sin z/z.
pub(super) fn sinc_gap(z: f64) -> f64 {
    if z >= PI {
        return 1.0 - 1.0 / z;
    }
    let v = if z < 0.5 {
        z * z / 6.0 - z.powi(4) / 120.0
    } else {
        1.0 - z.sin() / z
    };
    (v * (1.0 - 1e-9)).min(1.0 - 1.0 / PI)
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

#[cfg(test)]
mod tests {
    use super::super::{Dir, Mix, SubsampledGaussian};
    use super::{ln_float, MixEval};
    use crate::scalar::Scalar;
    use rug::{Complex, Float};

    fn mix(q: &str, s: &str, dir: Dir, subst: bool) -> Mix {
        let m = SubsampledGaussian::new(q.parse::<Scalar>().unwrap(), s.parse().unwrap()).unwrap();
        if subst {
            Mix::substitution(&m, 1, 256)
        } else {
            Mix::new(&m, 1, dir, 256)
        }
    }

    /// A remove-direction factor cut at λ = `lam_s2`/σ², x_c.
    fn cut_mix(q: &str, s: &str, lam_s2: f64, xc: f64) -> Mix {
        let mut m = mix(q, s, Dir::Remove, false);
        m.cut = Some(super::Cut {
            xc,
            lam: lam_s2 / (m.sf * m.sf),
        });
        m
    }

    /// ∫ φ_σ(x)·g(x)·r(x)^b·e^{ivℓ(x)} dx over [x0, ∞) by a plain double-precision trapezoid
    /// of step σ/400 over x0 (or −14σ) to max(b, x_c, 1) + 30σ, with g = w (`weight`), 1 − w
    /// (`!weight`) or 1 (`m.cut` None), as (Re, Im) times e^{−shift} and the shift: a
    /// reference independent of the grid code (its own loop, no error bound; about 10⁻¹³ of
    /// the integral's envelope).
    fn direct(m: &Mix, b: f64, v: f64, x0: f64, weight: bool) -> (f64, f64, f64) {
        let (q, s) = (m.qf, m.sf);
        let top = b.max(m.cut.map_or(1.0, |c| c.xc)).max(1.0) + 30.0 * s;
        let lo = x0.max(-14.0 * s);
        let hx = s / 400.0;
        let n = ((top - lo) / hx).ceil() as usize;
        let term = |x: f64| {
            let l = (q * ((x - 0.5) / (s * s)).exp_m1()).ln_1p();
            let g = m.cut.map_or(0.0, |c| {
                let z = c.lam * (x - c.xc);
                if weight {
                    -super::softplus(z)
                } else {
                    -super::softplus(-z)
                }
            });
            let lf =
                -x * x / (2.0 * s * s) - (s * (2.0 * std::f64::consts::PI).sqrt()).ln() + b * l + g;
            (lf, v * l)
        };
        let shift = (0..=n)
            .map(|i| term(lo + i as f64 * hx).0)
            .fold(f64::NEG_INFINITY, f64::max);
        let (mut re, mut im) = (0.0, 0.0);
        for i in 0..=n {
            let (lf, ph) = term(lo + i as f64 * hx);
            let w = if i == 0 || i == n { 0.5 } else { 1.0 } * hx * (lf - shift).exp();
            re += w * ph.cos();
            im += w * ph.sin();
        }
        (re, im, shift)
    }

    /// Cut moments E_Q[w r^{b+iv}] (docs/accounting.md#tail-cut) against [`direct`]: the MPFR
    /// evaluator and the probes' double-precision nodes each within their own bound plus
    /// 10⁻¹¹ of the cut envelope, the bound useful (below 10⁻⁹ of it); the uncut envelope
    /// bound ln_env_unw at least the uncut moment. Cases where the cut removes most of the
    /// moment (q = 10⁻⁶, σ = 0.6, b = 14: the uncut E is ~e⁶⁰, the cut one ~1) and where it
    /// removes little, |Im β| up to 300. Fails without the weight in the nodes (checked: the
    /// first case is off by e⁶⁰).
    #[test]
    fn cut_moments_meet_a_direct_sum() {
        // (q, σ, λσ², x_c, b, the |Im β| checked)
        type Case<'a> = (&'a str, &'a str, f64, f64, f64, &'a [f64]);
        let cases: [Case; 4] = [
            ("0.000001", "0.6", 2.0, 6.0, 14.0, &[0.0, 0.5, 30.0]),
            ("0.000001", "0.6", 2.0, 9.8, 9.75, &[0.0, 5.0, 300.0]),
            ("0.0001", "0.6", 8.0, 5.0, 12.0, &[0.0, 40.0]),
            ("0.01", "1", 4.0, 4.0, 3.0, &[0.0, 2.0, 50.0]),
        ];
        for (q, s, lam_s2, xc, b, vs) in cases {
            let m = cut_mix(q, s, lam_s2, xc);
            let af = Float::with_val(64, b);
            let mut exact = MixEval::with_mode(&m, &af, -60.0, 256, false).unwrap();
            let mut probe = MixEval::probe(&m, &af, -60.0).unwrap();
            let (re0, _, sh0) = direct(&m.uncut(), b, 0.0, f64::NEG_INFINITY, true);
            let ln_unw = re0.ln() + sh0;
            assert!(
                exact.ln_env_unw >= ln_unw - 1e-12,
                "{q} {s} b = {b}: ln_env_unw {} below the uncut moment {ln_unw}",
                exact.ln_env_unw
            );
            for &v in vs {
                let (re, im, sh) = direct(&m, b, v, f64::NEG_INFINITY, true);
                let vf = Float::with_val(64, v);
                for ev in [&mut exact, &mut probe] {
                    let mo = ev.moment(&vf).unwrap();
                    let ln_e = ev.ln_env;
                    let dre = (mo.value.real().to_f64() - re * sh.exp()).abs();
                    let dim = (mo.value.imag().to_f64() - im * sh.exp()).abs();
                    let allowed = mo.ln_err.exp() + 1e-11 * ln_e.exp();
                    assert!(
                        dre.max(dim) <= allowed,
                        "{q} {s} λσ² = {lam_s2} x_c = {xc} b = {b} v = {v}: off by {:e} of E, allowed {:e}",
                        dre.max(dim) / ln_e.exp(),
                        allowed / ln_e.exp()
                    );
                    assert!(
                        mo.ln_err - ln_e < -9.0 * std::f64::consts::LN_10,
                        "{q} {s} b = {b} v = {v}: bound e^{:.1} of E",
                        mo.ln_err - ln_e
                    );
                }
            }
        }
    }

    /// [`super::ln_cut_loss`] and the cut's right-tail majorant against [`direct`]: never below
    /// the mass (to 10⁻⁹), and within a factor 50 of it where it matters (the bound decides
    /// where the cut goes and what it costs). Dampings b from −2 to 14, cuts from inside the
    /// bulk (q = 0.3, σ = 2, x_c = 3) to the far tail. The right-tail majorant is checked at
    /// x₀ at and past its monotone point.
    #[test]
    fn cut_bounds_hold_and_are_tight() {
        let cases: [(&str, &str, f64, f64, f64); 8] = [
            ("0.000001", "0.6", 2.0, 9.8, 9.75),
            ("0.000001", "0.6", 8.0, 5.9, 6.7),
            ("0.000001", "0.6", 2.0, 6.0, 14.0),
            ("0.0001", "0.6", 4.0, 5.5, 1.0),
            ("0.0001", "0.6", 4.0, 5.5, -2.0),
            ("0.01", "1", 2.0, 6.0, 0.5),
            ("0.3", "2", 2.0, 3.0, 2.5),
            ("0.01", "0.5", 8.0, 3.0, 4.0),
        ];
        for (q, s, lam_s2, xc, b) in cases {
            let m = cut_mix(q, s, lam_s2, xc);
            let c = m.cut.unwrap();
            let (re, _, sh) = direct(&m, b, 0.0, f64::NEG_INFINITY, false);
            let truth = re.ln() + sh;
            let bound = super::ln_cut_loss(&m, b, c);
            assert!(
                bound >= truth - 1e-9 && bound <= truth + 50f64.ln(),
                "{q} {s} λσ² = {lam_s2} x_c = {xc} b = {b}: lost mass e^{truth:.4}, bound e^{bound:.4}"
            );
            let mono = super::cut_mono(&m, b, c);
            for x0 in [mono, mono + 1.0, mono + 4.0 * m.sf] {
                let (re, _, sh) = direct(&m, b, 0.0, x0, true);
                let truth = re.ln() + sh;
                let bound = super::ln_cut_right(&m, b, x0, c);
                // The reference's trapezoid from a finite end errs by about h²/12 of the
                // integral's scale, ≤ 10⁻⁶ here.
                assert!(
                    bound >= truth - 1e-5,
                    "{q} {s} b = {b} x0 = {x0}: right mass e^{truth:.4}, bound e^{bound:.4}"
                );
            }
        }
    }

    /// Grids built in double precision (docs/accounting.md#double-nodes) against grids built
    /// in MPFR at 256 bits, at the same nodes: each moment of a probe evaluator must lie within
    /// its own error bound plus the MPFR moment's of the reference, and the bound must stay
    /// useful (below 10⁻⁹ of the envelope). Cases: tiny and moderate q, small and large σ,
    /// both directions and substitution, dampings b < 1 and b > 1, |Im β| up to 2·10⁴ (the
    /// probes' reach at q = 10⁻⁴; grids of ~10⁵ nodes, |ℓ_j| up to ~50).
    #[test]
    fn double_nodes_meet_mpfr_nodes() {
        let cases = [
            ("0.0001", "1", Dir::Remove, false, 6.0),
            ("0.0001", "0.8", Dir::Add, false, 5.9),
            ("0.01", "0.5", Dir::Remove, false, 1.5),
            ("0.3", "2", Dir::Add, false, 3.0),
            ("0.01", "1", Dir::Remove, true, 2.0),
            ("0.9", "0.6", Dir::Remove, false, 0.5),
        ];
        let mut checked = 0;
        for (q, s, dir, subst, a) in cases {
            let m = mix(q, s, dir, subst);
            let af = Float::with_val(64, a);
            let mut probe = MixEval::probe(&m, &af, -60.0).unwrap();
            let mut exact = MixEval::with_mode(&m, &af, -60.0, 256, false).unwrap();
            for v in [0.0, 3.0, 700.0, 2.0e4] {
                let vf = Float::with_val(64, v);
                let p = probe.moment(&vf).unwrap();
                let g = probe.grids.last().unwrap();
                // The reference at the probe's step (its own grid_for would pick the same).
                let e = exact.moment(&vf).unwrap();
                let ge = exact.grids.last().unwrap();
                assert_eq!(g.hx, ge.hx, "q={q} σ={s} v={v}");
                if v > 0.0 {
                    assert!(g.double_nodes.is_some(), "q={q} σ={s} v={v}: not double");
                }
                if let Some(ne) = g.double_nodes {
                    node_check(&m, &probe.b, g, ne);
                }
                let diff = Complex::with_val(256, &p.value - &e.value);
                let ln_diff = ln_float(&Float::with_val(64, diff.abs_ref()));
                let allowed = super::f64s::log_add_exp(p.ln_err, e.ln_err);
                assert!(
                    ln_diff <= allowed,
                    "q={q} σ={s} subst={subst} a={a} v={v}: |Δ| = e^{ln_diff:.2} > e^{allowed:.2}"
                );
                assert!(
                    p.ln_err - probe.ln_env < -9.0 * std::f64::consts::LN_10,
                    "q={q} σ={s} v={v}: bound e^{:.2} of the envelope",
                    p.ln_err - probe.ln_env
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 24);
    }

    /// The fast path's deviation form (docs/accounting.md#fast-deviation) against the MPFR sum at
    /// 256 bits on the same nodes: each moment must lie within the fast rounding bound plus the
    /// MPFR node errors (the strip and tail terms cancel: same nodes), and at tiny q the bound
    /// must sit far below the plain double-precision sum's (≈ 6u·E, the floor that made T = 10⁶
    /// at q = 10⁻⁵ need MPFR sums).
    #[test]
    fn deviation_sums_meet_mpfr_sums() {
        let cases = [
            ("0.00001", "1", Dir::Remove, false, 4.0, true),
            ("0.0001", "0.5", Dir::Add, false, 3.0, true),
            ("0.01", "1", Dir::Remove, true, 2.0, false),
            ("0.3", "0.8", Dir::Add, false, 5.0, false),
        ];
        for (q, s, dir, subst, a, tiny) in cases {
            let m = mix(q, s, dir, subst);
            let af = Float::with_val(64, a);
            let mut fast = MixEval::with_mode(&m, &af, -40.0, 160, true).unwrap();
            let mut slow = MixEval::with_mode(&m, &af, -40.0, 256, false).unwrap();
            for v in [0.5, 30.0, 3000.0] {
                let vf = Float::with_val(64, v);
                let f = fast.moment(&vf).unwrap();
                let e = slow.moment(&vf).unwrap();
                let diff = Complex::with_val(256, &f.value - &e.value);
                let ln_diff = ln_float(&Float::with_val(64, diff.abs_ref()));
                assert!(f.ln_err.is_finite() && e.ln_err.is_finite());
                // Same nodes, so the strip and tail terms cancel in the difference: it must lie
                // within the fast sum's rounding bound plus both MPFR node errors.
                let g = fast.grids.last().unwrap();
                let ge = slow.grids.last().unwrap();
                assert_eq!(g.hx, ge.hx);
                let (_, _, ln_round) = super::fast_sum_deviation(g, &vf, true);
                let scaled = ln_round + g.hx.ln() + f64::from(g.scale) * std::f64::consts::LN_2;
                // The linear term v·Σ hx e_j ℓ_j's MPFR rounding at 160 bits.
                let lin = ln_float(&g.env_sum) + (v * g.max_ell * (g.n as f64 + 8.0)).ln()
                    - 160.0 * std::f64::consts::LN_2
                    + 4f64.ln();
                let scaled = super::f64s::log_add_exp(scaled, lin);
                let mp = |gr: &super::Grid, prec: f64| {
                    ln_float(&gr.env_sum)
                        + (gr.n as f64 + 16.0 + 4.0 * (gr.max_arg + v * gr.max_ell)).ln()
                        - prec * std::f64::consts::LN_2
                        + 4f64.ln()
                };
                let allowed = super::f64s::log_add_exp(
                    scaled,
                    super::f64s::log_add_exp(mp(g, 160.0), mp(ge, 256.0)),
                );
                assert!(
                    ln_diff <= allowed,
                    "q={q} σ={s} v={v}: |Δ| = e^{ln_diff:.2} > e^{allowed:.2}"
                );
                // Against the plain double-precision sum's bound on the same grid.
                let (_, _, ln_plain) = super::fast_sum(g, &vf);
                // At tiny q it is about |v|·q of the plain bound (q = 10⁻⁵: 3.8·10⁻⁶ at v = 0.5,
                // 2.3·10⁻⁴ at 30, 2.4·10⁻² at 3000; q = 10⁻⁴, σ = 0.5: 4.3·10⁻³ at 30).
                let ratio = (ln_round - ln_plain).exp();
                let qf: f64 = q.parse().unwrap();
                if tiny {
                    let cap = 10.0 * v.max(1.0) * qf;
                    assert!(
                        ratio < cap,
                        "q={q} σ={s} v={v}: {ratio:.3e} of the plain bound"
                    );
                }
            }
        }
    }

    /// `phi_minus_sin` (the deviation sums' φ − sin φ) within the 64u it claims of φ − sin φ at
    /// 256 bits and more, on 2·10⁵ arguments: uniform in (−7, 7) (both of its branches) and
    /// log-spaced down to 10⁻¹⁰⁰ (φ³/6 still normal; below, the sums' underflow allowance holds);
    /// observed 3.5u. Wrong in its first coefficient (0.1666666 for 1/6) it
    /// fails (checked).
    #[test]
    fn phi_minus_sin_meets_mpfr() {
        let u = f64::EPSILON / 2.0;
        let mut worst: f64 = 0.0;
        for i in 0..100_000 {
            let t = f64::from(i) / 100_000.0;
            let signed = if i % 2 == 0 { 1.0 } else { -1.0 };
            for p in [signed * 7.0 * t, signed * 10f64.powf(-100.0 * t)] {
                if p == 0.0 {
                    continue;
                }
                // φ − sin φ ≈ φ³/6 cancels 2·log2(1/|φ|) bits.
                let prec = 256 + 3 * (-p.abs().log2()).max(0.0) as u32;
                let x = Float::with_val(prec, p);
                let exact = Float::with_val(prec, &x - x.clone().sin());
                let d = Float::with_val(prec, super::phi_minus_sin(p) - &exact);
                worst = worst.max((d / &exact).to_f64().abs() / u);
            }
        }
        assert!(worst <= 64.0, "phi_minus_sin: {worst:.2}u");
    }

    /// The strip split (docs/accounting.md#strip-split) against the trapezoid's actual error: an
    /// MPFR grid at exactly the step `x_step_split` asks for (not the halved cached one) must give
    /// a moment within its claimed error of a reference at e^{−90} on a finer grid. Cases: the
    /// tiny-q dampings (b = 46.3 at σ = 2, b = 11.8 at σ = 1), q = 10⁻⁴ and a moderate q, both
    /// directions, |Im β| from 100 to 4700; the split must also pay somewhere (σ = 2: a step at
    /// least twice the unsplit one).
    #[test]
    fn strip_split_bounds_the_discretisation() {
        let cases = [
            ("0.00001", "2", Dir::Remove, 46.28),
            ("0.00001", "1", Dir::Remove, 11.8),
            ("0.0001", "0.8", Dir::Add, 6.0),
            ("0.01", "1", Dir::Remove, 3.0),
        ];
        let mut gain: f64 = 0.0;
        for (q, s, dir, a) in cases {
            let m = mix(q, s, dir, false);
            let af = Float::with_val(64, a);
            let ln_rel = -24.0;
            let mut ev = MixEval::new(&m, &af, ln_rel, 192).unwrap();
            let mut refe = MixEval::new(&m, &af, -90.0, 256).unwrap();
            let bf = ev.b.to_f64();
            for v in [100.0, 1000.0, 4700.0] {
                let st = ev.step(v);
                let old = super::x_step(&m, bf, v, ln_rel).0;
                gain = gain.max(st.hx / old);
                let g = super::Grid::new(
                    &m,
                    &ev.b,
                    st.hx,
                    ln_rel - 2.0,
                    192,
                    false,
                    super::NodeMode::Mpfr,
                )
                .unwrap();
                ev.grids.push(g);
                let vf = Float::with_val(64, v);
                let f = ev.moment(&vf).unwrap();
                assert_eq!(
                    ev.grids
                        .iter()
                        .position(|g| g.hx <= st.hx)
                        .map(|i| ev.grids[i].hx),
                    Some(st.hx)
                );
                let e = refe.moment(&vf).unwrap();
                let diff = Complex::with_val(256, &f.value - &e.value);
                let ln_diff = ln_float(&Float::with_val(64, diff.abs_ref()));
                let allowed = super::f64s::log_add_exp(f.ln_err, e.ln_err);
                assert!(
                    ln_diff <= allowed,
                    "q={q} σ={s} b={bf} v={v}: |Δ| = e^{ln_diff:.2} > e^{allowed:.2} (step {:.3e}, y {:.3e})",
                    st.hx,
                    st.y
                );
                ev.grids.pop();
            }
        }
        assert!(gain >= 2.0, "the split never paid: {gain}");
    }

    /// The tail bounds' deficits against the moment itself, for each case (q, σ, direction, a) at
    /// u = u₀·1.7^k up to 3·10⁴: every deficit d that `claims(mix, b, ln E)` gives at u must
    /// leave |M(b + iu)|/E ≤ 1 − d, with M by the MPFR quadrature (its lower end |M̂| − err) and
    /// E by its upper bound. Returns the largest claimed / observed deficit (how close the bound
    /// comes).
    fn check_deficits(
        cases: &[(&str, &str, Dir, f64)],
        u0: f64,
        claims: impl Fn(&Mix, f64, f64) -> Box<dyn Fn(f64) -> Vec<f64>>,
    ) -> f64 {
        let mut tight: f64 = 0.0;
        for &(q, s, dir, a) in cases {
            let m = mix(q, s, dir, false);
            let af = Float::with_val(64, a);
            let mut ev = MixEval::with_mode(&m, &af, -40.0, 128, true).unwrap();
            let claimed = claims(&m, ev.b.to_f64(), ev.ln_env);
            let mut u = u0;
            while u <= 3.0e4 {
                let mo = ev.moment(&Float::with_val(64, u)).unwrap();
                let abs = Float::with_val(64, mo.value.abs_ref()).to_f64();
                let lhs = (abs - mo.ln_err.exp()) / ev.ln_env.exp();
                for best in claimed(u) {
                    assert!(
                        lhs <= 1.0 - best,
                        "q={q} σ={s} u={u}: |M|/E ≥ {lhs} > 1 − {best}"
                    );
                    if best > 0.0 {
                        tight = tight.max(best / (1.0 - lhs));
                    }
                }
                u *= 1.7;
            }
        }
        tight
    }

    /// The uniform-part bound (docs/accounting.md#uniform-part): |M(b + iu)| ≤ E·(1 − p·gap(uΔ/2))
    /// for the best candidate at each u, over u from 0.01 to 3·10⁴ for tiny and large q, small and
    /// large σ, both directions.
    #[test]
    fn uniform_parts_bound_the_moment() {
        let cases = [
            ("0.0001", "0.5", Dir::Remove, 5.0),
            ("0.00001", "1", Dir::Add, 8.0),
            ("0.3", "0.3", Dir::Remove, 1.5),
            ("0.9", "0.3", Dir::Add, 2.0),
            ("0.01", "2", Dir::Remove, 30.0),
        ];
        let tight = check_deficits(&cases, 0.01, |m, b, ln_env| {
            let parts = super::uniform_parts(m, b, ln_env);
            assert!(!parts.is_empty(), "q={} σ={}", m.qf, m.sf);
            Box::new(move |u| {
                vec![parts
                    .iter()
                    .map(|&(p, d)| p * super::sinc_gap(u * d / 2.0))
                    .fold(0.0f64, f64::max)]
            })
        });
        // 0.36 here (the bound is not vacuous). Taking the larger endpoint density in c instead
        // of the smaller fails the test at q = 10⁻⁴, u = 0.01 (checked).
        assert!(
            tight > 0.1,
            "largest claimed / observed deficit {tight:.3e}"
        );
    }

    /// The step-part bound (docs/accounting.md#step-part): |M(b + iu′)| ≤ E·(1 − max(P − V/u))
    /// at u′ = u and at u′ = 1.7u (it claims every u′ ≥ u), over u from 1 to 3·10⁴, for the
    /// refused case that brought it (q = 10⁻⁴, σ = 0.6 at its saddle) and tiny and large q, small
    /// and large σ, both directions.
    #[test]
    fn step_parts_bound_the_moment() {
        let cases = [
            ("0.0001", "0.6", Dir::Remove, 6.8643),
            ("0.0001", "0.5", Dir::Remove, 5.0),
            ("0.00001", "1", Dir::Add, 8.0),
            ("0.3", "0.3", Dir::Remove, 1.5),
            ("0.9", "0.3", Dir::Add, 2.0),
            ("0.01", "2", Dir::Remove, 30.0),
        ];
        let tight = check_deficits(&cases, 1.0, |m, b, ln_env| {
            let parts = super::step_parts(m, b, ln_env);
            assert!(!parts.is_empty(), "q={} σ={}", m.qf, m.sf);
            Box::new(move |u| {
                vec![
                    super::step_deficit(&parts, u),
                    super::step_deficit(&parts, u / 1.7),
                ]
            })
        });
        // The bound is not vacuous: it claims 0.98 of the observed deficit at best here. Halving
        // V, or taking the larger endpoint density in c, fails the test (checked: q = 0.01,
        // σ = 2 at u ≈ 70, and q = 10⁻⁴).
        assert!(
            tight > 0.1,
            "largest claimed / observed deficit {tight:.3e}"
        );
    }

    /// The quadratic-part bound (docs/accounting.md#quadratic-part): the deficit claimed on
    /// [u/1.5, u] and on [u, 1.5u] at u, over u from 1 to 3·10⁴, for the case that brought it
    /// (q = 10⁻⁶, σ = 0.5 at its saddle) and tiny and large q, small and large σ, both
    /// directions.
    #[test]
    fn quad_part_bounds_the_moment() {
        let cases = [
            ("0.000001", "0.5", Dir::Remove, 6.7451),
            ("0.0001", "0.6", Dir::Remove, 6.8643),
            ("0.00001", "1", Dir::Add, 8.0),
            ("0.3", "0.3", Dir::Remove, 1.5),
            ("0.9", "0.3", Dir::Add, 2.0),
            ("0.01", "2", Dir::Remove, 30.0),
        ];
        let tight = check_deficits(&cases, 1.0, |m, b, ln_env| {
            let part = super::quad_part(m, b, ln_env).unwrap();
            Box::new(move |u| vec![part.deficit(u / 1.5, u), part.deficit(u, 1.5 * u)])
        });
        // 0.36 here (the bound is not vacuous). Counting the pairs up to u₂·d_max ≤ 4π instead
        // of π fails the test (checked: q = 10⁻⁶, u = 1).
        assert!(
            tight > 0.1,
            "largest claimed / observed deficit {tight:.3e}"
        );
    }

    /// [`QuadPart::deficit`] on two-point laws (masses m, 1 − m at distance d), where
    /// 1 − |φ(u)|² = 2m(1 − m)(1 − cos ud) exactly: the claim on [u₁, u₂] lies below
    /// 1 − |φ(u)| at 400 points of it, for u₂·d from 0.05 to 4 (past π: no pair counts), and
    /// reaches 0.99 of it at small ud (the reach ⅛). Taking c = ½ at every reach fails it (at
    /// u₂·d = π the claim is π²/4 times the truth; checked).
    #[test]
    fn quad_reaches_bound_two_point_laws() {
        let mut tight: f64 = 0.0;
        for m in [0.5, 0.1, 1e-4] {
            for d in [1e-3, 1.0, 7.0] {
                let w = 2.0 * m * (1.0 - m);
                let part = super::QuadPart {
                    limits: vec![d],
                    sums: vec![w * d * d],
                };
                for k in 0..=80 {
                    let u2 = (0.05 + 3.95 * f64::from(k) / 80.0) / d;
                    for u1 in [u2, u2 / 1.5] {
                        let claim = part.deficit(u1, u2);
                        for i in 0..=400 {
                            let u = u1 + (u2 - u1) * f64::from(i) / 400.0;
                            let z = u * d;
                            let truth = 1.0 - (1.0 - w * 2.0 * (z / 2.0).sin().powi(2)).sqrt();
                            assert!(
                                claim <= truth,
                                "m = {m}, d = {d}, u in [{u1}, {u2}], u = {u}: {claim:e} > {truth:e}"
                            );
                            if u1 == u2 {
                                tight = tight.max(claim / truth);
                            }
                        }
                    }
                }
            }
        }
        assert!(tight > 0.99, "largest claimed / true deficit {tight}");
    }

    /// Each double-precision node against its MPFR value at 256 bits (x_j = j·hx exactly):
    /// |ℓ̃_j − ℓ_j| ≤ ell_abs and |ẽ_j·2^k − e_j| ≤ env_rel·e_j + abs·2^k.
    fn node_check(m: &Mix, b: &Float, g: &super::Grid, ne: super::NodeErrors) -> (Float, Float) {
        use rug::float::Constant;
        let p = 256;
        let n_lo = (g.xl / g.hx).round() as i64;
        let (mut env_sum, mut ell_sum) = (Float::new(p), Float::new(p));
        let s2 = Float::with_val(p, m.sigma.square_ref());
        let ln_norm = {
            let mut c = Float::with_val(p, Constant::Pi) * 2u32;
            c *= &s2;
            c.ln() / 2u32
        };
        let ln_r = |d: &Float| -> Float {
            let t = Float::with_val(p, d / &s2);
            Float::with_val(p, t.exp_m1() * &m.q).ln_1p()
        };
        let scale = Float::with_val(p, 1u32) << g.scale;
        let abs = Float::with_val(p, ne.abs) << g.scale;
        let stride = (g.n / 20_000).max(1);
        for i in (0..g.n).step_by(stride) {
            let x = Float::with_val(p, g.hx) * (n_lo + i as i64);
            let mut l = ln_r(&Float::with_val(p, &x - 0.5f64));
            let lm = if m.subst {
                ln_r(&-Float::with_val(p, &x + 0.5f64))
            } else {
                Float::new(p)
            };
            l -= &lm;
            let mut arg = Float::with_val(p, b * &l) + &lm;
            arg -= Float::with_val(p, x.square_ref()) / &s2 / 2u32;
            arg -= &ln_norm;
            let e = arg.exp();
            env_sum += &e;
            ell_sum += Float::with_val(p, &e * &l);
            let dl = Float::with_val(p, &l - g.ell_f[i]).abs().to_f64();
            // Per-node bounds (shared-envelope grids).
            if let (Some(&el), Some(&er)) = (g.ell_err.get(i), g.env_err.get(i)) {
                assert!(dl <= el, "node {i}: x = {x}, |Δℓ| = {dl:e} > {el:e}");
                let de = Float::with_val(p, Float::with_val(p, g.env_f[i] * &scale) - &e).abs();
                let allowed = Float::with_val(p, &e * er) + &abs;
                assert!(
                    de <= allowed,
                    "node {i}: |Δe| = {de:e} > {allowed:e} (per node)"
                );
            }
            assert!(
                dl <= ne.ell_abs,
                "node {i}: x = {x}, ℓ = {l}, ℓ̃ = {:e}, |Δℓ| = {dl:e} > {:e}",
                g.ell_f[i],
                ne.ell_abs
            );
            let de = Float::with_val(p, Float::with_val(p, g.env_f[i] * &scale) - &e).abs();
            let allowed = Float::with_val(p, &e * ne.env_rel) + &abs;
            assert!(de <= allowed, "node {i}: |Δe| = {de:e} > {allowed:e}");
        }
        // Σ hx·e_j and Σ hx·e_j·ℓ_j over the grid's nodes at 256 bits (all nodes visited).
        (env_sum * g.hx, ell_sum * g.hx)
    }

    /// Shared-envelope evaluators (docs/accounting.md#shared-envelope) against MPFR evaluators
    /// at 256 bits: each node of a double-precision grid within its own bounds; the reference's
    /// envelope sum and Σ hx·e_j·ℓ_j within the shared bounds of the grid's own sums (computed
    /// here at 256 bits over its nodes); and each moment within both error bounds. Cases: the
    /// tiny-q grid points' large dampings (b = 46, σ = 2; b = 1 − 7.7, σ = 0.8), substitution,
    /// moderate q.
    #[test]
    fn shared_grids_meet_mpfr_references() {
        let cases = [
            ("0.00001", "2", Dir::Remove, false, 46.0),
            ("0.00001", "0.8", Dir::Add, false, 7.7),
            ("0.01", "1", Dir::Remove, true, 2.0),
            ("0.3", "0.8", Dir::Add, false, 5.0),
        ];
        let mut shared_grids = 0;
        for (q, s, dir, subst, a) in cases {
            let m = mix(q, s, dir, subst);
            let af = Float::with_val(64, a);
            let mut fast = MixEval::with_mode(&m, &af, -40.0, 160, true)
                .unwrap()
                .share_envelope();
            let mut exact = MixEval::with_mode(&m, &af, -40.0, 256, false).unwrap();
            for v in [0.5, 30.0, 3000.0] {
                let vf = Float::with_val(64, v);
                let f = fast.moment(&vf).unwrap();
                let e = exact.moment(&vf).unwrap();
                let g = fast.grids.last().unwrap();
                if let (Some(ne), Some(err), Some((d, d_err))) =
                    (g.double_nodes, g.sum_err, g.ell_sum.as_ref())
                {
                    shared_grids += 1;
                    let (env, ell) = node_check(&m, &fast.b, g, ne);
                    let de = ln_float(&Float::with_val(
                        64,
                        Float::with_val(256, &g.env_sum - &env).abs(),
                    ));
                    assert!(
                        de <= err.ln(),
                        "q={q} σ={s} v={v}: envelope e^{de:.2} > e^{:.2}",
                        err.ln()
                    );
                    let dd = ln_float(&Float::with_val(64, Float::with_val(256, d - &ell).abs()));
                    assert!(
                        dd <= d_err.ln(),
                        "q={q} σ={s} v={v}: linear sum e^{dd:.2} > e^{:.2}",
                        d_err.ln()
                    );
                }
                let diff = Complex::with_val(256, &f.value - &e.value);
                let ln_diff = ln_float(&Float::with_val(64, diff.abs_ref()));
                let allowed = super::f64s::log_add_exp(f.ln_err, e.ln_err);
                assert!(
                    ln_diff <= allowed,
                    "q={q} σ={s} v={v}: |Δ| = e^{ln_diff:.2} > e^{allowed:.2}"
                );
                // Useful: far below the envelope (E ≥ 1; measured: e^{−24.9} at q = 0.3, v = 3000,
                // where the nodes' ~30u relative errors of Σ e_j|sin φ_j| dominate).
                assert!(
                    f.ln_err - fast.ln_env < -22.0,
                    "q={q} σ={s} v={v}: e^{:.2}",
                    f.ln_err - fast.ln_env
                );
            }
        }
        assert!(shared_grids >= 8, "{shared_grids} shared grids");
    }
}
