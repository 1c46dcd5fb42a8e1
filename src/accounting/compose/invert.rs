//! One neighbour direction's inversion: the damping (saddle), the u-trapezoid of the composed
//! moment, and the bound on its tail (docs/accounting.md#composition).

use rug::Assign;

use super::{
    f64s, lipschitz_rel, ln_cut_loss, ln_expm1, ln_float, ln_ibp_constant, ln_moment_f64,
    precision_error, quad_part, sinc_gap, step_deficit, step_parts, uniform_parts, Complex,
    Constant, Cut, Error, Factor, Float, MixEval, Result, LN_2, MAX_NODES, MAX_PROBES, NODE_GRID,
    PI, PROBE_WORK,
};

// ---------------------------------------------------------------------------------------------
// One direction: the u-trapezoid.
// ---------------------------------------------------------------------------------------------

/// The composed moment Π M_j(s)^{T_j} of one direction at s = a + iu, as ln (complex), with a
/// relative (to Π M_j(a)^{T_j}) error bound.
pub(super) struct Direction {
    pub(super) factors: Vec<Factor>,
    pub(super) evals: Vec<Option<MixEval>>,
    pub(super) a: Float,
    pub(super) prec: u32,
    pub(super) moment_evals: usize,
}

impl Direction {
    pub(super) fn new(
        factors: Vec<Factor>,
        a: f64,
        ln_rel: f64,
        prec: u32,
        fast: bool,
        shared: bool,
    ) -> Result<Direction> {
        let af = Float::with_val(prec, a);
        let evals = factors
            .iter()
            .map(|f| match f {
                Factor::Mix(m) => MixEval::with_mode(m, &af, ln_rel, prec, fast)
                    .map(|ev| Some(if shared { ev.share_envelope() } else { ev })),
                Factor::Gauss { .. } => Ok(None),
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Direction {
            factors,
            evals,
            a: af,
            prec,
            moment_evals: 0,
        })
    }

    /// (ln Π M^T at a + iu, bound on |Π M̂^T − Π M^T| / Π M(a)^T).
    ///
    /// With m̂ = |M̂|/M(a) and ρ = |M̂ − M|/M(a) for one factor, M^T = (M̂ − (M̂ − M))^T expands to
    /// |M̂^T − M^T| ≤ (|M̂| + |M̂ − M|)^T − |M̂|^T, i.e. (m̂ + ρ)^T − m̂^T of M(a)^T; for a product,
    /// Π(â_j + r_j) − Π â_j with â_j = m̂_j^{T_j} and r_j that bound. Where the composed moment has
    /// decayed (m̂^T ≪ 1) the bound falls with it: (1 + ρ)^T − 1, the bound at m̂ = 1, counted
    /// every node at full weight, and at q = 10⁻⁴, σ = 1.5, T = 1000 (nodes to u ≈ 4,500, where
    /// |M_T| ≈ e^{−52} of M(a)^T) that floor left the first try 5 digits of ε(10⁻⁸)
    /// (docs/accounting.md#decayed-nodes).
    pub(super) fn ln_moment(&mut self, u: &Float) -> Result<(Complex, f64)> {
        let prec = self.prec;
        let s = Complex::with_val(prec, (&self.a, u));
        let mut acc = Complex::new(prec);
        // Π â_j and the bound R = Π(â_j + r_j) − Π â_j so far.
        let mut hat: f64 = 1.0;
        let mut rel: f64 = 0.0;
        for (f, ev) in self.factors.iter().zip(self.evals.iter_mut()) {
            match (f, ev) {
                (Factor::Gauss { inv_s2 }, _) => {
                    let mut t = Complex::with_val(prec, &s - 1u32);
                    t *= &s;
                    t *= inv_s2;
                    t /= 2u32;
                    acc += t;
                }
                (Factor::Mix(m), Some(ev)) => {
                    self.moment_evals += 1;
                    let mo = ev.moment(u)?;
                    let ln = Complex::with_val(prec, mo.value.ln_ref());
                    let ln_m_hat = ln.real().to_f64();
                    acc += ln * Float::with_val(prec, m.count);
                    let (a_hat, r) =
                        power_error(ln_m_hat - ev.ln_env, mo.ln_err - ev.ln_env, m.count as f64);
                    rel = hat * r + rel * (a_hat + r);
                    hat *= a_hat;
                }
                _ => unreachable!("every Mix factor has an evaluator"),
            }
        }
        Ok((acc, rel))
    }

    /// Certified upper bound on ln Π M_j(c)^{T_j} at real c > 1 ([`ln_moment_upper`]).
    pub(super) fn ln_moment_real_upper(&self, c: f64) -> Result<f64> {
        ln_moment_upper(&self.factors, c, self.prec)
    }
}

/// (m̂^T, (m̂ + ρ)^T − m̂^T) from ln m̂ and ln ρ ([`Direction::ln_moment`]), in doubles with a
/// relative margin of 10⁻⁹ on the bound (a few roundings of ln, exp and expm1, each within a
/// few ulps). When ρ ≥ m̂ the bound is taken as (m̂ + ρ)^T.
fn power_error(ln_m_hat: f64, ln_rho: f64, t: f64) -> (f64, f64) {
    let a_hat = (t * ln_m_hat).exp();
    let r = if ln_rho >= ln_m_hat {
        (t * f64s::log_add_exp(ln_m_hat, ln_rho)).exp()
    } else {
        // m̂^T·((1 + ρ/m̂)^T − 1).
        a_hat * (t * (ln_rho - ln_m_hat).exp().ln_1p()).exp_m1()
    };
    (a_hat, r * (1.0 + 1e-9))
}

/// Certified upper bound on ln Π M_j(c)^{T_j} at real c > 0 (a rug quadrature with its error
/// bound for each subsampled factor, the closed form for the Gaussian one).
pub(super) fn ln_moment_upper(factors: &[Factor], c: f64, prec: u32) -> Result<f64> {
    let cf = Float::with_val(prec, c);
    let mut acc = 0.0;
    for f in factors {
        match f {
            Factor::Gauss { inv_s2 } => {
                // Negative for 0 < c < 1: the margin is on the magnitude, upwards.
                let x = c * (c - 1.0) * inv_s2.to_f64() / 2.0;
                acc += x + 1e-15 * x.abs();
            }
            Factor::Mix(m) => {
                let ev = MixEval::with_mode(m, &cf, -40.0, 64, true)?;
                acc += (m.count as f64) * ev.ln_env;
            }
        }
    }
    Ok(acc + 1e-12 * acc.abs())
}

/// The smallest finite g(a) over the dampings a = 1 + e^{k/20 − 10}, k = 0, 1, …, stopping 20
/// steps after the last improvement: (g(a), a), or None when no value is finite.
pub(super) fn scan_dampings(g: impl Fn(f64) -> f64) -> Option<(f64, f64)> {
    let mut best: Option<(f64, f64)> = None;
    let mut worse = 0;
    for k in 0..400 {
        let a = 1.0 + (f64::from(k) / 20.0 - 10.0).exp();
        let v = g(a);
        if v.is_finite() && best.is_none_or(|(bv, _)| v < bv) {
            best = Some((v, a));
            worse = 0;
        } else {
            worse += 1;
            if worse > 20 {
                break;
            }
        }
    }
    best
}

/// ln of the constant of the Chernoff bound: sup_{l ≥ ε} (e^l − e^ε) e^{−al} = e^{−(a−1)ε}·C(a),
/// ln C(a) = (a − 1) ln(a − 1) − a ln a.
fn ln_chernoff_const(a: f64) -> f64 {
    (a - 1.0) * (a - 1.0).ln() - a * a.ln()
}

/// Certified upper bound from the Chernoff bound δ(ε) ≤ Π M(a)^T e^{−(a−1)ε} C(a) (every a > 1):
/// on δ(x) when `x_is_eps`, else on ε(x) = the smallest ε where that bound is ≤ x. The damping
/// is chosen in double precision, the moment at it is certified; None when no a > 1 gives a
/// finite bound (docs/accounting.md#chernoff-scout), or when the double-precision bound is above
/// `useful` by 1 % (the certified one would be too: the caller needs it below `useful`, and the
/// certified moment is the cost).
pub(super) fn chernoff_upper(
    factors: &[Factor],
    x: f64,
    x_is_eps: bool,
    useful: f64,
    prec: u32,
) -> Result<Option<f64>> {
    let ln_x = x.ln();
    let value = |ln_m: f64, a: f64| {
        if x_is_eps {
            ln_m - (a - 1.0) * x + ln_chernoff_const(a)
        } else {
            (ln_m + ln_chernoff_const(a) - ln_x) / (a - 1.0)
        }
    };
    let Some((estimate, a)) = scan_dampings(|a| value(ln_moment_total_f64(factors, a), a)) else {
        return Ok(None);
    };
    let estimate = if x_is_eps { estimate.exp() } else { estimate };
    if estimate > 1.01 * useful {
        return Ok(None);
    }
    let v = value(ln_moment_upper(factors, a, prec)?, a);
    // A relative margin far above the roundings of these few double operations.
    Ok(v.is_finite().then(|| {
        let v = v + 1e-9 * v.abs();
        if x_is_eps {
            v.exp()
        } else {
            v.max(0.0)
        }
    }))
}

/// ln Π_j M_j(c)^{T_j} at real c in double precision (for choosing parameters only).
pub(super) fn ln_moment_total_f64(factors: &[Factor], c: f64) -> f64 {
    let mut acc = 0.0;
    for f in factors {
        match f {
            Factor::Gauss { inv_s2 } => acc += c * (c - 1.0) * inv_s2.to_f64() / 2.0,
            Factor::Mix(m) => acc += (m.count as f64) * ln_moment_f64(m, m.b(c)),
        }
    }
    acc
}

/// ln of F(a) = Π M_j(a)^{T_j} e^{−(a−1)ε} / |a(a−1)|, the integrand's size at u = 0 (a > 1
/// for δ(ε), 0 < a < 1 for 1 − δ(ε)).
pub(super) fn ln_saddle_objective(factors: &[Factor], a: f64, eps: f64) -> f64 {
    ln_moment_total_f64(factors, a) - (a - 1.0) * eps - (a * (a - 1.0)).abs().ln()
}

/// The distance from Re s = c to the nearer of the integrand's poles s = 0 and s = 1: along that
/// line |s(s−1)| ≥ gap² + u², so ∫ du/|s(s−1)| ≤ π/gap.
pub(super) fn pole_gap(c: f64) -> f64 {
    c.abs().min((c - 1.0).abs())
}

/// The damping 0 < a < 1 minimising F of the complementary inversion (1 − δ(ε),
/// docs/accounting.md#complement): golden section in the logit of a (F is convex in a, so
/// unimodal in its logit).
pub(super) fn saddle_complement(factors: &[Factor], eps: f64) -> f64 {
    let a_of = |z: f64| 1.0 / (1.0 + (-z).exp());
    let g = |z: f64| {
        let v = ln_saddle_objective(factors, a_of(z), eps);
        if v.is_nan() {
            f64::INFINITY
        } else {
            v
        }
    };
    let (lo, hi) = f64s::golden_section(g, -12.0, 12.0, 0.0, 80);
    let a = a_of(0.5 * (lo + hi));
    // A dyadic value (exact in every precision), at least 2^-10 from either pole.
    ((a * 1024.0).round() / 1024.0).clamp(1.0 / 1024.0, 1.0 - 1.0 / 1024.0)
}

/// The damping a > 1 minimising F (convex in a): golden section on a log scale of a − 1.
pub(super) fn saddle(factors: &[Factor], eps: f64) -> f64 {
    let g = |z: f64| ln_saddle_objective(factors, 1.0 + z.exp(), eps);
    let (lo, mut hi) = (-12.0f64, 0.0f64);
    while g(hi + 1.0) < g(hi) && hi < 8.0 {
        hi += 1.0;
    }
    hi += 1.0;
    let (lo, hi) = f64s::golden_section(g, lo, hi, 0.0, 80);
    // A dyadic-friendly value (exact in every precision).
    let a = 1.0 + (0.5 * (lo + hi)).exp();
    ((a * 1024.0).round() / 1024.0).max(1.0 + 1.0 / 1024.0)
}

/// The damping a, the u-step h and the strip half-widths of one inversion, and the relative
/// error target at a (docs/accounting.md#damping).
struct Plan {
    a: f64,
    h: f64,
    d_lo: f64,
    d_hi: f64,
    ln_rel: f64,
}

impl Plan {
    /// The saddle point a_s with a symmetric strip, unless a damping between 1 and a_s, with
    /// each side of its strip sized on its own, is predicted at least three times cheaper. The
    /// target stays absolute: e^{ln_rel}·F(a_s) (F(a_s) is the Chernoff-like estimate of δ's
    /// scale), or off the saddle e^{ln_rel + ln_scale} when the caller knows δ's scale; so at
    /// a < a_s the relative target is smaller by F(a)/F(a_s).
    fn choose(factors: &[Factor], a_s: f64, eps0: f64, ln_rel: f64, ln_scale: Option<f64>) -> Plan {
        let ln_target = ln_saddle_objective(factors, a_s, eps0) + ln_rel;
        let (h, d) = symmetric_strip(factors, a_s, eps0, ln_target);
        let mut plans = vec![Plan {
            a: a_s,
            h,
            d_lo: d,
            d_hi: d,
            ln_rel,
        }];
        for frac in [0.8, 0.65, 0.5, 0.4, 0.3, 0.22, 0.15, 0.1, 0.06] {
            let a = ((1.0 + (a_s - 1.0) * frac) * 1024.0).round() / 1024.0;
            if a <= 1.0 + 1.0 / 64.0 {
                break;
            }
            let (h, d_lo, d_hi) = asymmetric_strip(factors, a, eps0, ln_target);
            plans.push(Plan {
                a,
                h,
                d_lo,
                d_hi,
                ln_rel: ln_target - ln_saddle_objective(factors, a, eps0),
            });
        }
        // The decay in u is that of the loss's bulk, common to every damping; near the saddle the
        // curvature of ln Π M^T also feels the far tail (which only decays to the bulk's level),
        // so the smallest curvature over the candidates stands for all of them.
        let v = plans
            .iter()
            .map(|p| curvature(factors, p.a))
            .fold(f64::INFINITY, f64::min);
        // The saddle is left only for a plan predicted at least three times cheaper: the model
        // is rough (at q = 0.01, σ = 1, T = 3, δ(0.3), forced, a plan predicted 3.7× cheaper took
        // 27 s against the saddle's 17 s, as its u-decay is slower), and off the saddle pays where
        // the saddle's strip is pinned by the moments' explosion (q = 0.001: no answer within
        // 30 s at the saddle, 1–15 s off it).
        let cost = |p: &Plan| predicted_cost(factors, p.a, p.h, v, eps0, ln_target);
        let base = cost(&plans[0]);
        let mut best = 0;
        for (i, p) in plans.iter().enumerate().skip(1) {
            if cost(p) < cost(&plans[best]).min(base / 3.0) {
                best = i;
            }
        }
        let mut plan = plans.swap_remove(best);
        if let (true, Some(ln_scale)) = (best > 0, ln_scale) {
            // Off the saddle F(a_s) can exceed δ by orders (q = 0.01, σ = 1, T = 3: e⁵): when
            // the caller knows δ's scale (ε(δ): δ itself), the target is relative to it.
            let ln_target = ln_scale + ln_rel;
            let (h, d_lo, d_hi) = asymmetric_strip(factors, plan.a, eps0, ln_target);
            plan = Plan {
                h,
                d_lo,
                d_hi,
                ln_rel: ln_target - ln_saddle_objective(factors, plan.a, eps0),
                ..plan
            };
        }
        plan
    }
}

/// ln of the aliasing term's size on the line Re s = c: Π M(c)^T e^{−(c−1)ε}/gap(c).
fn ln_edge(factors: &[Factor], c: f64, eps0: f64) -> f64 {
    ln_moment_total_f64(factors, c) - (c - 1.0) * eps0 - pole_gap(c).ln()
}

/// The largest step h whose aliasing through a strip of half-width d is below e^{ln_target},
/// over d = (a − 1)·k/20, k ∈ `ks`, for the side `sign` (−1 towards the pole at 1, +1 away).
/// h = 2πd/max(need(d), 1) with need convex in d (ln Π M^T is convex, the rest linear or
/// −ln(c − 1)) and positive at 0 is unimodal in d, so the scan stops once h has fallen below
/// half its best (the moments are f64 estimates: half, not any fall, for their noise).
fn best_side(
    factors: &[Factor],
    a: f64,
    eps0: f64,
    ln_target: f64,
    sign: f64,
    ks: u32,
) -> (f64, f64) {
    let mut best = (0.0, (a - 1.0) / 20.0);
    for k in 1..=ks {
        let d = (a - 1.0) * f64::from(k) / 20.0;
        let need = ln_edge(factors, a + sign * d, eps0) - ln_target;
        let h = 2.0 * PI * d / need.max(1.0);
        if h > best.0 {
            best = (h, d);
        } else if h < best.0 / 2.0 {
            break;
        }
    }
    best
}

/// The original rule at the saddle: one half-width d = gap(a)·k/20 for both sides (h, d); for the
/// complementary inversion (0 < a < 1) the strip so stays between the poles.
fn symmetric_strip(factors: &[Factor], a: f64, eps0: f64, ln_target: f64) -> (f64, f64) {
    let mut best: Option<(f64, f64)> = None;
    for k in 1..=19 {
        let d = pole_gap(a) * f64::from(k) / 20.0;
        let need = ln_edge(factors, a - d, eps0).max(ln_edge(factors, a + d, eps0)) - ln_target;
        let h = 2.0 * PI * d / need.max(1.0);
        if best.is_none_or(|(bh, _)| h > bh) {
            best = Some((h, d));
        }
    }
    let (h, d) = best.expect("nineteen candidates");
    ((h * 4096.0).floor().max(1.0) / 4096.0, d)
}

/// Each side's half-width on its own (h, d_lo, d_hi): the side away from the pole is the one the
/// moment's growth limits (at small q, Π M(c)^T explodes once q^c e^{c(c−1)/(2σ²)} matters).
fn asymmetric_strip(factors: &[Factor], a: f64, eps0: f64, ln_target: f64) -> (f64, f64, f64) {
    let (h_lo, d_lo) = best_side(factors, a, eps0, ln_target, -1.0, 19);
    let (h_hi, d_hi) = best_side(factors, a, eps0, ln_target, 1.0, 80);
    let h = h_lo.min(h_hi);
    ((h * 4096.0).floor().max(1.0) / 4096.0, d_lo, d_hi)
}

/// The curvature of ln Π M^T at a real damping a (the tilted loss variance times T).
fn curvature(factors: &[Factor], a: f64) -> f64 {
    let eta = (0.01 * (a - 1.0)).clamp(1e-3, 0.1);
    let l = |c: f64| ln_moment_total_f64(factors, c);
    ((l(a + eta) - 2.0 * l(a) + l(a - eta)) / (eta * eta)).max(1e-300)
}

/// Predicted work of the u-trapezoid at damping a and step h: nodes up to the u where a Gaussian
/// model of |Π M^T(a + iu)| (curvature v) times 1/|s(s−1)| is below the target, each node
/// weighted by its inner grid (which grows like u). A heuristic for choosing only.
fn predicted_cost(factors: &[Factor], a: f64, h: f64, v: f64, eps0: f64, ln_target: f64) -> f64 {
    let l0 = ln_moment_total_f64(factors, a);
    let size = |u: f64| {
        l0 - v * u * u / 2.0
            - (a - 1.0) * eps0
            - 0.5 * ((a * a + u * u).ln() + ((a - 1.0) * (a - 1.0) + u * u).ln())
    };
    let mut u = h;
    while size(u) > ln_target - 2.0 && u < 1e9 {
        u *= 1.25;
    }
    (u / h) * (1.0 + u / 16.0)
}

/// How far (ln) the double-precision inner sums' rounding may exceed an inversion's target
/// before it is built again with MPFR sums. A target carries guard digits ([`super::FIRST_GUARD`]
/// and the scout's slope margin): q = 10⁻⁴, σ = 0.8–1, T = 10⁵ and σ = 1, T = 10⁶ certify 6 digits
/// with the fast sums 10^2.5 above their first target, where MPFR sums doubled the time; a try
/// that falls short is retried with more guard digits, whose lower target then calls for MPFR.
const FAST_SLACK: f64 = 4.0 * std::f64::consts::LN_10;

/// The same for the shared-envelope grids (docs/accounting.md#shared-envelope), whose nodes are
/// computed in double precision: above it the build is repeated with MPFR nodes.
const SHARED_SLACK: f64 = 2.0 * std::f64::consts::LN_10;

/// One direction's inversion at a fixed damping: cached node values of ln Π M^T and the error
/// terms that do not depend on ε.
pub(super) struct Inversion {
    pub(super) a: f64,
    pub(super) h: f64,
    /// ln Π M^T(a + i j h), j = 0..=J.
    pub(super) nodes: Vec<Complex>,
    /// Σ over nodes of the inner relative error, as a bound factor on Π M(a)^T (see `delta`).
    pub(super) inner_rel: f64,
    /// ln Π M(a)^T (f64, upper estimate).
    pub(super) ln_m_a: f64,
    /// ln of the two strip-edge moments Π M(a − d_lo)^T, Π M(a + d_hi)^T, and the strip's two
    /// half-widths (towards the pole at s = 1 and away from it).
    pub(super) ln_m_edges: (f64, f64),
    pub(super) d_lo: f64,
    pub(super) d_hi: f64,
    /// The saddle point of F at the ε the inversion was built for (a is chosen near it, see
    /// [`Plan`]).
    pub(super) a_saddle: f64,
    /// ln of Σ_{j > J} |Π M^T(a + i j h)| / |s(s−1)| (bound).
    pub(super) ln_tail: f64,
    pub(super) prec: u32,
    pub(super) moment_evals: usize,
    /// Per node, the ε-independent parts of [`Inversion::delta`]'s terms, built on its first
    /// call.
    terms: std::cell::OnceCell<NodeTerms>,
    /// The tail cut's allowance τ ≥ Σ_j T_j·E_P[1 − w_j] (0 uncut): the trapezoid inverts the
    /// cut moments, and δ ∈ [δ_w, δ_w + τ] (docs/accounting.md#tail-cut).
    pub(super) tau: f64,
}

/// The tail cut's candidates λσ² (docs/accounting.md#tail-cut): the cut's strip cap π/(3λ)
/// makes the x-step 3λσ²/4 times finer than the uncut πσ²/4 allows (2× and 4× here), and a
/// larger λ keeps the cut moments small further out in Re s (a wider strip, a coarser u-step).
/// At λσ² = 4/3 (no x-cost) the u-step never moved on the traced plans: the cut is then too
/// soft to hold the moments down.
const CUT_LAMS: [f64; 2] = [8.0 / 3.0, 16.0 / 3.0];

/// The factors with every remove-direction subsampled factor cut at λ = `lam_s2`/σ², each cut
/// point x_c the smallest (to 10⁻⁶σ, by bisection) whose lost mass T_j·E_P[1 − w] =
/// T_j·E_Q[(1 − w) r] is at most its share of e^{ln_budget}; with τ, the certified sum of
/// those masses. None when no factor is cut.
fn cut_factors(factors: &[Factor], lam_s2: f64, ln_budget: f64) -> Option<(Vec<Factor>, f64)> {
    let cuttable = |m: &super::Mix| !m.flip && !m.subst && m.qf > 0.0 && m.qf < 1.0;
    let n = factors
        .iter()
        .filter(|f| matches!(f, Factor::Mix(m) if cuttable(m)))
        .count();
    if n == 0 {
        return None;
    }
    let ln_share = ln_budget - (n as f64).ln();
    let mut tau = 0.0;
    let mut out = Vec::with_capacity(factors.len());
    for f in factors {
        match f {
            Factor::Mix(m) if cuttable(m) => {
                let lam = lam_s2 / (m.sf * m.sf);
                let ln_lost =
                    |xc: f64| ln_cut_loss(m, 1.0, Cut { xc, lam }) + (m.count as f64).ln();
                let (mut lo, mut hi) = (1.0, 1.0 + 4.0 * m.sf);
                while ln_lost(hi) > ln_share {
                    lo = hi;
                    hi = 1.0 + 2.0 * (hi - 1.0);
                    if hi > 1e6 {
                        return None;
                    }
                }
                while hi - lo > 1e-6 * m.sf {
                    let mid = 0.5 * (lo + hi);
                    if ln_lost(mid) > ln_share {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let cut = Cut { xc: hi, lam };
                let lost = ln_lost(hi).exp();
                if !lost.is_finite() {
                    // A bound that did not evaluate: no cut (τ must be a number).
                    return None;
                }
                tau += lost;
                let mut m = m.clone();
                m.cut = Some(cut);
                out.push(Factor::Mix(m));
            }
            _ => out.push(f.clone()),
        }
    }
    Some((out, tau * (1.0 + 1e-9)))
}

/// The strip cap's cost of a cut at λσ² = `lam_s2`: the x-step shrinks with the cap π/(3λ)
/// below πσ²/4, by 4/(3λσ²).
fn cut_step_ratio(lam_s2: f64) -> f64 {
    (4.0 / (3.0 * lam_s2)).min(1.0)
}

/// The ε-independent factors of the node terms: with s_j = a + i·j·h and
/// e^{ln Π M^T(s_j) − (s_j − 1)ε} = Π M^T(s_j)·e^{−(a−1)ε}·ω^j, ω = e^{−ihε}, the terms are
/// w_j·Π M^T(s_j)/(s_j(s_j − 1)) and w_j·Π M^T(s_j)/s_j times e^{−(a−1)ε}·ω^j.
struct NodeTerms {
    /// w_j·Π M^T(s_j)/(s_j(s_j − 1)).
    g: Vec<Complex>,
    /// w_j·Π M^T(s_j)/s_j.
    gd: Vec<Complex>,
    /// ln Σ_j w_j·|Π M^T(s_j)|/|s_j(s_j − 1)| (the terms' moduli but for e^{−(a−1)ε}).
    ln_abs_sum: f64,
    /// max_j |ln Π M^T(s_j)|₁ (real plus imaginary part).
    max_ln_m: f64,
}

impl Inversion {
    /// Builds the inversion for ε near `eps0`, with errors below ~e^{ln_rel} of F(a); `fast`
    /// sums the inner x-trapezoids in double precision (docs/accounting.md#fast-inner).
    pub(super) fn build(
        factors: &[Factor],
        eps0: f64,
        ln_rel: f64,
        prec: u32,
        fast: bool,
        ln_scale: Option<f64>,
    ) -> Result<Inversion> {
        let a_saddle = saddle(factors, eps0);
        let plan = Plan::choose(factors, a_saddle, eps0, ln_rel, ln_scale);
        // The tail cut (docs/accounting.md#tail-cut), where the strip is pinned by the moments'
        // explosion (its far side at most 0.15 of a − 1: 4 of the grid's 57 plans, and every
        // plan that hit the node cap at tiny q), and a candidate's u-step, discounted by its
        // finer x-step, is at least twice the uncut one; its lost mass τ is held to e^{−5} of
        // the target (δ's scale times e^{ln_rel}).
        let ln_f = ln_saddle_objective(factors, a_saddle, eps0);
        let ln_scale_est = ln_scale.map_or(ln_f, |l| l.min(ln_f));
        let mut best: Option<(f64, Vec<Factor>, f64, Plan, f64)> = None;
        let pinned = plan.d_hi <= 0.15 * (plan.a - 1.0);
        for lam_s2 in CUT_LAMS.into_iter().filter(|_| pinned) {
            let Some((cut, tau)) = cut_factors(factors, lam_s2, ln_scale_est + ln_rel - 5.0) else {
                break;
            };
            let a_c = saddle(&cut, eps0);
            let p = Plan::choose(&cut, a_c, eps0, ln_rel, ln_scale);
            let score = p.h * cut_step_ratio(lam_s2);
            if score >= 2.0 * plan.h && best.as_ref().is_none_or(|b| score > b.0) {
                best = Some((score, cut, tau, p, a_c));
            }
        }
        if let Some((_, cut, tau, p, a_c)) = best {
            match Inversion::build_at(&cut, a_c, p, prec, fast, fast) {
                Ok(mut inv) => {
                    inv.tau = tau;
                    return Ok(inv);
                }
                Err(e) if crate::numeric::deadline::expired().is_some() => return Err(e),
                Err(_) => {}
            }
        }
        Inversion::build_at(factors, a_saddle, plan, prec, fast, fast)
    }

    /// The complementary inversion (docs/accounting.md#complement): on a line 0 < a < 1 between
    /// the poles, the same trapezoid gives −(1 − δ(ε)) (the residue at s = 1 is the whole mass),
    /// read by [`Inversion::complement`]. For ε near `eps0`, errors below e^{ln_rel} of
    /// min(F(a), e^{ln_scale}) (the caller's estimate of 1 − δ, when it has one).
    pub(super) fn build_complement(
        factors: &[Factor],
        eps0: f64,
        ln_rel: f64,
        prec: u32,
        fast: bool,
        ln_scale: Option<f64>,
    ) -> Result<Inversion> {
        let a = saddle_complement(factors, eps0);
        let ln_f = ln_saddle_objective(factors, a, eps0);
        let ln_target = ln_scale.map_or(ln_f, |l| l.min(ln_f)) + ln_rel;
        let (h, d) = symmetric_strip(factors, a, eps0, ln_target);
        let plan = Plan {
            a,
            h,
            d_lo: d,
            d_hi: d,
            ln_rel: ln_target - ln_f,
        };
        Inversion::build_at(factors, a, plan, prec, fast, fast)
    }

    fn build_at(
        factors: &[Factor],
        a_saddle: f64,
        plan: Plan,
        prec: u32,
        fast: bool,
        shared: bool,
    ) -> Result<Inversion> {
        let Plan {
            a,
            h,
            d_lo,
            d_hi,
            ln_rel,
        } = plan;
        // Each moment's own error ρ enters as (1 + ρ)^T − 1 ≈ Tρ (T the subsampled steps): its
        // target is e^{−8} of the inversion's, divided by T.
        let steps: f64 = factors
            .iter()
            .map(|f| match f {
                Factor::Mix(m) => m.count as f64,
                Factor::Gauss { .. } => 0.0,
            })
            .sum();
        let ln_inner_rel = ln_rel - 8.0 - steps.max(1.0).ln();
        let mut dir = Direction::new(factors.to_vec(), a, ln_inner_rel, prec, fast, shared)?;
        // The certified moments that enter the error bounds.
        let ln_m_a = dir.ln_moment_real_upper(a)?;
        let edges = (
            dir.ln_moment_real_upper(a - d_lo)?,
            dir.ln_moment_real_upper(a + d_hi)?,
        );
        // The tail's share of the target e^{ln_rel}·F(a), F(a) = Π M(a)^T e^{−(a−1)ε}/|a(a−1)|:
        // `delta` counts it as (h/π)·e^{−(a−1)ε}·Σ_{j>J}, so the allowance on Σ_{j>J} carries the
        // 1/|a(a−1)| and π/h factors (without them the tail took e^{6.7} of the target at
        // q = 10⁻⁵, σ = 2, T = 10⁵, a = 46, and the 6-digit try fell short; test
        // `the_tail_meets_its_share_of_the_target`).
        let ln_allow = ln_m_a - (a * (a - 1.0)).abs().ln() - (h / PI).ln() + ln_rel - 1.0;
        // Nodes until the tail bound takes over.
        let mut nodes = Vec::new();
        let mut inner_rel: f64 = 0.0;
        let mut j: u64 = 0;
        let mut retry_at: u64 = 0;
        let ln_tail;
        loop {
            if let Some(limit) = crate::numeric::deadline::expired() {
                return Err(precision_error(
                    0,
                    0,
                    &format!("composition (time limit of {limit} s reached)"),
                ));
            }
            let u = Float::with_val(prec, h) * j;
            let (ln_m, rel) = dir.ln_moment(&u)?;
            inner_rel += if j == 0 { rel } else { 2.0 * rel };
            nodes.push(ln_m);
            j += 1;
            let last = nodes.last().expect("pushed").real().to_f64();
            // The node's term relative to the u = 0 term: |Π M^T| falls, and so does 1/|s(s−1)|.
            let u_last = h * (j - 1) as f64;
            let ln_den = 0.5 * ((a * a + u_last * u_last) / (a * a)).ln()
                + 0.5 * (((a - 1.0).powi(2) + u_last * u_last) / (a - 1.0).powi(2)).ln();
            let small = last - ln_m_a - ln_den < ln_rel - 2.0;
            let next_u = h * (j as f64);
            let too_fine = dir
                .evals
                .iter()
                .flatten()
                .any(|ev| ev.grid_size(next_u) > NODE_GRID);
            if j >= MAX_NODES || too_fine {
                // The target first (a tail bound from here may still meet it: the quadratic
                // part's walk, docs/accounting.md#quadratic-part); else give up on the target
                // and bound the tail whatever its size (a wider bracket).
                ln_tail = match tail_bound(&dir, a, h, j, ln_allow) {
                    Ok(Some(t)) => t,
                    Err(e) if crate::numeric::deadline::expired().is_some() => return Err(e),
                    _ => tail_bound(&dir, a, h, j, f64::INFINITY)?
                        .expect("an infinite allowance is never exceeded"),
                };
                break;
            }
            // A failed tail bound is retried 8 nodes later at first, then at geometrically
            // spaced node counts (each try probes the whole tail afresh).
            if small && j % 8 == 0 && j >= retry_at {
                retry_at = j + 8 * (j / 64);
                if let Some(t) = tail_bound(&dir, a, h, j, ln_allow)? {
                    ln_tail = t;
                    break;
                }
            }
        }
        // The double-precision inner sums' rounding, propagated through the T-th power
        // ([`power_error`]), has a floor of about 2T·6u of M(a)^T per node where |M_T| has not
        // yet decayed: at large T it can exceed the target (q = 10⁻⁴, σ = 0.8, T = 10⁶ reached
        // 5 digits of ε against it), which MPFR sums then meet (docs/accounting.md#fast-inner,
        // #decayed-nodes).
        let ln_floor = (inner_rel * h / (2.0 * PI)).ln();
        let plan = Plan {
            a,
            h,
            d_lo,
            d_hi,
            ln_rel,
        };
        if shared && ln_floor > ln_rel + SHARED_SLACK {
            return Inversion::build_at(factors, a_saddle, plan, prec, fast, false);
        }
        if fast && ln_floor > ln_rel + FAST_SLACK {
            return Inversion::build_at(factors, a_saddle, plan, prec, false, false);
        }
        Ok(Inversion {
            a,
            a_saddle,
            h,
            nodes,
            inner_rel,
            ln_m_a,
            ln_m_edges: edges,
            d_lo,
            d_hi,
            ln_tail,
            prec,
            moment_evals: dir.moment_evals,
            terms: std::cell::OnceCell::new(),
            tau: 0.0,
        })
    }

    /// Whether the inversion for ε near `eps0` runs off the saddle point ([`Plan`]): then the
    /// saddle is pinned where the moments explode, the Chernoff start for ε(δ) can be far off,
    /// and the error terms depend strongly on ε (e^{−(a+d_hi−1)ε} on the strip's far side).
    pub(super) fn off_saddle(factors: &[Factor], eps0: f64, ln_rel: f64) -> bool {
        let a_s = saddle(factors, eps0);
        Plan::choose(factors, a_s, eps0, ln_rel, None).a != a_s
    }

    fn node_terms(&self) -> NodeTerms {
        let prec = self.prec;
        let a = Float::with_val(prec, self.a);
        let n = self.nodes.len();
        let (mut g, mut gd, mut ln_abs) = (
            Vec::with_capacity(n),
            Vec::with_capacity(n),
            Vec::with_capacity(n),
        );
        let mut max_ln_m: f64 = 0.0;
        for (j, ln_m) in self.nodes.iter().enumerate() {
            let u = Float::with_val(prec, self.h) * (j as u64);
            let sm1 = Complex::with_val(prec, (Float::with_val(prec, &a - 1u32), &u));
            let s = Complex::with_val(prec, (&a, &u));
            let m = Complex::with_val(prec, ln_m.exp_ref());
            let den = Complex::with_val(prec, &s * &sm1);
            let w = if j == 0 { 1u32 } else { 2u32 };
            g.push(Complex::with_val(prec, &m / &den) * w);
            gd.push(Complex::with_val(prec, &m / &s) * w);
            let ln_den = Float::with_val(64, den.abs_ref()).ln().to_f64();
            ln_abs.push(f64::from(w).ln() + ln_m.real().to_f64() - ln_den);
            max_ln_m = max_ln_m.max(ln_m.real().to_f64().abs() + ln_m.imag().to_f64().abs());
        }
        NodeTerms {
            g,
            gd,
            ln_abs_sum: f64s::log_sum_exp(&ln_abs),
            max_ln_m,
        }
    }

    /// (δ̂(ε), absolute error bound, δ̂′(ε)) of this direction. The node terms'
    /// ε-independent factors are computed once ([`NodeTerms`]); each ε multiplies them by
    /// e^{−(a−1)ε}·ω^j, ω = e^{−ihε}, the powers by recurrence. Rounding: every complex operation
    /// is correctly rounded per component, so within 2·2^−p of its modulus and its inputs'
    /// errors; the cached factors carry about 8·2^−p, the power ω^j at most j·4·2^−p plus the
    /// phase error of fl(hε) (j·h·ε·2^−p), the product and the sum n·2^−p: per term
    /// (5n + jhε + (a−1)ε + 12)·2^−p of its modulus, within the 8·(max_arg + 16 + n)·2^−p the bound
    /// below takes, max_arg covering |ln Π M^T| + J·h·ε + |a − 1|·ε.
    pub(super) fn delta(&self, eps: &Float) -> (Float, f64, Float) {
        let prec = self.prec;
        let terms = self.terms.get_or_init(|| self.node_terms());
        let damp = Float::with_val(prec, -Float::with_val(prec, self.a - 1.0) * eps).exp();
        let phase = -Float::with_val(prec, self.h) * eps;
        let (sn, cs) = phase.sin_cos(Float::new(prec));
        let omega = Complex::with_val(prec, (cs, sn));
        let mut z = Complex::with_val(prec, (1u32, 0u32));
        let mut sum = Float::new(prec);
        let mut dsum = Float::new(prec);
        let mut t = Complex::new(prec);
        for (g, gd) in terms.g.iter().zip(&terms.gd) {
            t.assign(g * &z);
            sum += t.real();
            t.assign(gd * &z);
            dsum += t.real();
            z *= &omega;
        }
        sum *= &damp;
        dsum *= &damp;
        let ef_abs = eps.to_f64().abs();
        let n_nodes = self.nodes.len() as f64;
        let max_arg = terms.max_ln_m + n_nodes * self.h * ef_abs + (self.a - 1.0).abs() * ef_abs;
        let ln_abs_sum = terms.ln_abs_sum - (self.a - 1.0) * eps.to_f64();
        let scale = Float::with_val(prec, self.h) / (Float::with_val(prec, Constant::Pi) * 2u32);
        let value = Float::with_val(prec, &sum * &scale);
        let deriv = -Float::with_val(prec, &dsum * &scale);
        let ef = eps.to_f64();
        let (a, h, d_lo, d_hi) = (self.a, self.h, self.d_lo, self.d_hi);
        let ln_scale = (h / (2.0 * PI)).ln();
        // Strip (aliasing) term, each side on its own line c = a − d_lo and c = a + d_hi:
        // (1/2π)·Σ_± ∫|G(u ∓ i d_±)|du / (e^{2πd_±/h} − 1) with ∫|G| ≤ M(c)^T e^{−(c−1)ε}·π/(c−1),
        // bounded by the larger of the two terms (their mean is the bound).
        let e_lo = self.ln_m_edges.0
            - (a - d_lo - 1.0) * ef
            - pole_gap(a - d_lo).ln()
            - ln_expm1(2.0 * PI * d_lo / h);
        let e_hi = self.ln_m_edges.1
            - (a + d_hi - 1.0) * ef
            - pole_gap(a + d_hi).ln()
            - ln_expm1(2.0 * PI * d_hi / h);
        let alias = e_lo.max(e_hi);
        // Tail of the node sum, both signs: (h/π)·e^{−(a−1)ε}·Σ_{j>J}.
        let tail = (h / PI).ln() + self.ln_tail - (a - 1.0) * ef;
        // Inner-moment errors: (h/2π)·Σ_j w_j·rel_j·M(a)^T e^{−(a−1)ε}/(a(a−1)).
        let inner = ln_scale + self.inner_rel.ln() + self.ln_m_a
            - (a - 1.0) * ef
            - (a * (a - 1.0)).abs().ln();
        let round = ln_scale + ln_abs_sum + (max_arg + 16.0 + self.nodes.len() as f64).ln()
            - f64::from(prec) * LN_2
            + 8f64.ln();
        let ln_err = f64s::log_sum_exp(&[alias, tail, inner, round]);
        if self.tau > 0.0 {
            // The cut: δ ∈ [δ_w, δ_w + τ], read as its midpoint ± τ/2 (the addition's rounding,
            // ≤ 2^−p of the sum, included).
            let half = self.tau / 2.0;
            let value = Float::with_val(prec, &value + half);
            let ln_round =
                ln_float(&Float::with_val(64, value.abs_ref()).max(&Float::with_val(64, half)))
                    - f64::from(prec - 1) * LN_2;
            let ln_err = f64s::log_sum_exp(&[ln_err, half.ln() + 1e-9, ln_round]);
            return (value, ln_err, deriv);
        }
        (value, ln_err, deriv)
    }
}

impl Inversion {
    /// (1 − δ(ε) estimate, absolute error bound, its derivative) of a complementary inversion
    /// ([`Inversion::build_complement`]): the trapezoid on 0 < a < 1 sums to −(1 − δ(ε)), with
    /// the same error terms as [`Inversion::delta`].
    pub(super) fn complement(&self, eps: &Float) -> (Float, f64, Float) {
        debug_assert!(self.a > 0.0 && self.a < 1.0, "a complementary inversion");
        let (v, ln_err, dv) = self.delta(eps);
        (-v, ln_err, -dv)
    }
}

/// x ± e^{ln_err} at precision `prec`.
pub(super) fn shift(x: &Float, ln_err: f64, up: bool, prec: u32) -> Float {
    let e = Float::with_val(prec, ln_err).exp();
    if up {
        Float::with_val(prec, x + &e)
    } else {
        Float::with_val(prec, x - &e)
    }
}

/// Bound on ln Σ_{j ≥ j0} |Π M^T(a + i j h)| / |s(s−1)| by probes (Lipschitz bound on each
/// subsampled factor between probes, exact modulus for the Gaussian factor) and, beyond the
/// probes, the uniform- and step-part decay (docs/accounting.md#uniform-part, #step-part) or the
/// integration-by-parts decay |M(a+iu)| ≤ V/u (docs/accounting.md#composition).
/// Returns None when the bound does not drop below e^{ln_allow} (more nodes needed), an error
/// when the probes cannot reach the decay region within their budget.
pub(super) fn tail_bound(
    dir: &Direction,
    a: f64,
    h: f64,
    j0: u64,
    ln_allow: f64,
) -> Result<Option<f64>> {
    let probe_prec = 64;
    let af = Float::with_val(probe_prec, a);
    struct P {
        eval: MixEval,
        count: f64,
        /// Lipschitz constant of u ↦ |M(b+iu)|, relative to the envelope bound.
        lip: f64,
        /// ln of the IBP constant relative to the envelope bound.
        ln_v: f64,
        /// ln of the envelope bound E(b).
        ln_env: f64,
        /// Uniform parts (p, Δ) of the tilted loss ([`uniform_parts`]).
        parts: Vec<(f64, f64)>,
        /// Step parts (P, V) of its law ([`step_parts`]).
        steps: Vec<(f64, f64)>,
        /// Its quadratic part ([`quad_part`]).
        quad: Option<super::moment::QuadPart>,
        /// A cut factor's η: |E_Q[w r^s]| ≤ |E_Q[r^s]| + η·E, so each deficit of the uncut
        /// law, relative to the uncut envelope E, loses η (docs/accounting.md#tail-cut).
        eta: f64,
    }
    /// ln Π (1 − deficit)^T over the factors: the uniform and step parts' deficit, valid from u
    /// on, and with `upto` = Some(u₂) the quadratic part's, valid on [u, u₂].
    fn ln_rho(probes: &[P], u: f64, upto: Option<f64>) -> f64 {
        probes
            .iter()
            .map(|p| {
                let mut best = p
                    .parts
                    .iter()
                    .map(|&(pp, d)| pp * sinc_gap(u * d / 2.0))
                    .fold(step_deficit(&p.steps, u), f64::max);
                if let (Some(u2), Some(qp)) = (upto, &p.quad) {
                    best = best.max(qp.deficit(u, u2));
                }
                p.count * (-(best - p.eta).max(0.0)).ln_1p()
            })
            .sum()
    }
    let mut probes: Vec<P> = Vec::new();
    let mut gauss_inv_s2 = 0.0;
    for f in &dir.factors {
        match f {
            Factor::Gauss { inv_s2 } => gauss_inv_s2 += inv_s2.to_f64(),
            Factor::Mix(m) => {
                let ev = MixEval::probe(m, &af, -30.0)?;
                let b = m.b(a);
                // The uncut envelope (the parts are those of the uncut law; a probe's |M̂| is
                // read against it too). A cut factor's loss density is h·w, h the uncut one and
                // w monotone in ℓ from 1 to 0: TV(h·w) ≤ TV(h) + max h ≤ (3/2)·TV(h), h vanishing
                // at both ends (docs/accounting.md#tail-cut).
                let ln_env = ev.ln_env_unw;
                let eta = ev.eta;
                let ln_cut_tv = if m.cut.is_some() { 1.5f64.ln() } else { 0.0 };
                let ln_v = ln_ibp_constant(m, b) + ln_cut_tv - ln_env;
                probes.push(P {
                    eval: ev,
                    count: m.count as f64,
                    lip: lipschitz_rel(m, b),
                    ln_v,
                    ln_env,
                    parts: uniform_parts(m, b, ln_env),
                    steps: step_parts(m, b, ln_env),
                    quad: quad_part(m, b, ln_env),
                    eta,
                });
            }
        }
    }
    let n_mix: f64 = probes.iter().map(|p| p.count).sum();
    let ln_env_all: f64 = probes.iter().map(|p| p.count * p.ln_env).sum();
    let ln_gauss = |u: f64| (a * (a - 1.0) - u * u) * gauss_inv_s2 / 2.0;
    let mut u = h * j0 as f64;
    if n_mix == 0.0 {
        // Gaussian only: |M| = e^{(a(a−1) − u²)/(2σ²)} decreases, and the node sum from u on is
        // at most a geometric series with ratio e^{−u·h/σ²}.
        let ratio = -(u * h * gauss_inv_s2);
        let ln_sum = ln_gauss(u) - (-ratio.exp_m1()).ln() - (pole_gap(a).powi(2) + u * u).ln();
        return Ok((ln_sum < ln_allow).then_some(ln_sum));
    }
    let mut acc = f64::NEG_INFINITY;
    let mut work = 0.0;
    for _ in 0..MAX_PROBES {
        if let Some(limit) = crate::numeric::deadline::expired() {
            return Err(Error::Precision {
                narrowest: None,
                requested: 0,
                certified: 0,
                what: format!("composition tail bound (time limit of {limit} s reached)"),
            });
        }
        // Uniform- and step-part remainder from u on (docs/accounting.md#uniform-part,
        // #step-part): every factor is at most E·(1 − max(p·gap(uΔ/2), P − V/u)) at every node
        // from u on, and Σ_{u_j ≥ u} 1/u_j² ≤ 1/u² + 1/(hu).
        if u > 0.0
            && probes
                .iter()
                .all(|p| !p.parts.is_empty() || !p.steps.is_empty())
        {
            let node_sum = |v: f64| (1.0 / (v * v) + 1.0 / (h * v)).ln();
            let mut rem = ln_gauss(u) + ln_env_all + ln_rho(&probes, u, None) + node_sum(u);
            // Without a target (ln_allow = ∞, the bound is wanted whatever its size) the uniform
            // remainder, valid from any u on, is taken only once it is below 1 % of the probed
            // part or e^{−30} of the envelope Π E^T; otherwise the probes go on to where it, or
            // the IBP bound, is small.
            let takes = |rem: f64| {
                let negligible = rem < acc - 100f64.ln() || rem < ln_gauss(0.0) + ln_env_all - 30.0;
                rem < ln_allow - 1.0 && (ln_allow.is_finite() || negligible)
            };
            // The quadratic part's walk (docs/accounting.md#quadratic-part): doubling
            // u-intervals [v, 2v), each at most e^{ln_gauss + ln E^T}·Π(1 − deficit)^T times its
            // v/h + 1 nodes over |s(s−1)| ≥ gap² + v², until the remainder from the walk's end
            // is below 1 % of the walk's sum.
            if !takes(rem) && probes.iter().all(|p| p.quad.is_some()) {
                let mut sum = f64::NEG_INFINITY;
                let mut v = u;
                for _ in 0..48 {
                    let term = ln_gauss(v)
                        + ln_env_all
                        + ln_rho(&probes, v, Some(2.0 * v))
                        + (v / h + 1.0).ln()
                        - (pole_gap(a).powi(2) + v * v).ln();
                    sum = f64s::log_add_exp(sum, term);
                    if sum > ln_allow {
                        break;
                    }
                    v *= 2.0;
                    let far = ln_gauss(v) + ln_env_all + ln_rho(&probes, v, None) + node_sum(v);
                    if far < sum - 100f64.ln() {
                        rem = rem.min(f64s::log_add_exp(sum, far));
                        break;
                    }
                }
            }
            if takes(rem) {
                return Ok(Some(f64s::log_add_exp(acc, rem)));
            }
        }
        // IBP remainder from u on: Π (V/x)^T over x ≥ u − h, node sum ≤ (1/h)∫.
        if u > h && probes.iter().all(|p| p.ln_v < u.ln()) {
            let x0 = u - h;
            let ibp =
                ln_gauss(u) + ln_env_all + probes.iter().map(|p| p.count * p.ln_v).sum::<f64>()
                    - (n_mix + 1.0) * x0.ln()
                    - (h * (n_mix + 1.0)).ln();
            if ibp < ln_allow - 1.0 {
                return Ok(Some(f64s::log_add_exp(acc, ibp)));
            }
        }
        // One probe cell [u, u + step].
        let uf = Float::with_val(probe_prec, u);
        let mut ln_b = ln_gauss(u) + ln_env_all;
        let mut step = f64::INFINITY;
        let mut rel = Vec::with_capacity(probes.len());
        for p in probes.iter_mut() {
            work += p.eval.grid_size(u);
            if work > PROBE_WORK {
                break;
            }
            let mo = p.eval.moment(&uf)?;
            let m_rel = (ln_float(&Float::with_val(probe_prec, mo.value.abs_ref())) - p.ln_env)
                .exp()
                + (mo.ln_err - p.ln_env).exp();
            let margin = 1.0 - m_rel;
            // A cell where the factor is at most max(1 − margin/2, 5/4·|M̂|): once |M̂| is well
            // below 1, a half-margin cell would bound (1/2)^T where the nodes are far smaller.
            step = step.min(if margin > 0.0 {
                (margin / 2.0).min(m_rel / 4.0) / p.lip
            } else {
                h
            });
            rel.push(m_rel);
        }
        if work > PROBE_WORK {
            break;
        }
        let step = step.max(h);
        for (p, m_rel) in probes.iter().zip(rel) {
            ln_b += p.count * (m_rel + p.lip * step).min(1.0).ln();
        }
        let nodes_in_cell = (step / h).floor() + 1.0;
        let ln_cell = ln_b + nodes_in_cell.ln() - (pole_gap(a).powi(2) + u * u).ln();
        acc = f64s::log_add_exp(acc, ln_cell);
        if acc > ln_allow {
            return Ok(None);
        }
        u += step;
    }
    Err(Error::Precision {
        narrowest: None,
        requested: 0,
        certified: 0,
        what: format!(
            "composition: the characteristic function decays too slowly to bound the inversion's tail (u = {u:.4e} reached within the probe budget)"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Dir, Release, Schedule, SubsampledGaussian};
    use super::{Inversion, PI};
    use rug::Float;

    /// `power_error` bounds |M̂^T − M^T| for every M within ρ of M̂ (checked at 256 bits over
    /// the phases of M̂ − M), and is attained where M̂ − M points against M̂: it is the whole
    /// binomial remainder, not its first term (Tρm̂^{T−1} fails the aligned case: checked), and
    /// falls with m̂^T where the moment has decayed.
    #[test]
    fn power_error_bounds_the_composed_moment() {
        use rug::{ops::Pow, Complex};
        let prec = 256;
        for &(m_hat, rho, t) in &[
            (1.0, 1e-16, 1000u32),
            (0.97, 3e-15, 1000),
            (0.5, 1e-12, 100),
            (0.2, 1e-3, 10),
            (1e-3, 1e-2, 3),
            (0.9, 1e-14, 100_000),
        ] {
            let (a_hat, r) = super::power_error(f64::ln(m_hat), f64::ln(rho), f64::from(t));
            let want = m_hat.powi(t as i32);
            assert!(
                (a_hat - want).abs() <= 1e-9 * want,
                "m̂^T: {a_hat:e} vs {want:e}"
            );
            let mh = Complex::with_val(prec, (m_hat * 0.6, m_hat * 0.8));
            let mut worst = 0.0f64;
            for k in 0..16 {
                let th = 2.0 * PI * f64::from(k) / 16.0 + 0.8f64.atan2(0.6);
                let d = Complex::with_val(prec, (rho * th.cos(), rho * th.sin()));
                let m = Complex::with_val(prec, &mh - &d);
                let diff =
                    Complex::with_val(prec, (&mh).pow(t)) - Complex::with_val(prec, (&m).pow(t));
                let e = Float::with_val(prec, diff.abs_ref()).to_f64();
                assert!(
                    e <= r,
                    "m̂ {m_hat} ρ {rho} T {t}: |M̂^T − M^T| = {e:e} > {r:e}"
                );
                worst = worst.max(e);
            }
            // k = 8: M̂ − M = −ρ·M̂/|M̂|, |M| = m̂ + ρ — the bound itself (less m̂^T where ρ ≥ m̂,
            // whose bound is (m̂ + ρ)^T).
            let slack = if rho >= m_hat { a_hat } else { 0.0 };
            assert!(
                worst >= (r - slack) * (1.0 - 1e-6),
                "m̂ {m_hat} ρ {rho} T {t}: {worst:e} vs {r:e}"
            );
        }
        // Decayed: m̂^T = e^{−50}, the bound near Tρ·e^{−50}/m̂, far below (1 + ρ)^T − 1.
        let (_, r) = super::power_error(-0.05, -36.0, 1000.0);
        assert!(r < 1e-6 * (1000.0 * (-36.0f64).exp()), "{r:e}");
    }

    /// An inversion meets its target e^{ln_rel}·δ-scale in its u-tail too: at q = 10⁻⁵, σ = 2,
    /// T = 10⁵ (ε(10⁻⁵) ≈ 3.6·10⁻³, damping a ≈ 46 off the saddle), the tail term of the δ(ε)
    /// error stays within e of the target (it was e^{6.7} above it when the tail's allowance
    /// ignored F(a)'s 1/|a(a−1)|).
    #[test]
    fn the_tail_meets_its_share_of_the_target() {
        let m = SubsampledGaussian::new("0.00001".parse().unwrap(), "2".parse().unwrap()).unwrap();
        let sched = Schedule::new(vec![(Release::Subsampled(m), 100_000)]).unwrap();
        let factors = sched.factors(Dir::Remove, 141);
        let eps0 = 3.6009e-3;
        let ln_delta = 1e-5f64.ln();
        let ln_rel = -8.0 * std::f64::consts::LN_10;
        let inv = Inversion::build(&factors, eps0, ln_rel, 141, true, Some(ln_delta)).unwrap();
        let (v, _, _) = inv.delta(&Float::with_val(141, eps0));
        let tail = (inv.h / PI).ln() + inv.ln_tail - (inv.a - 1.0) * eps0;
        let target = ln_delta + ln_rel;
        assert!(inv.a > 10.0, "a = {}", inv.a);
        assert!((v.to_f64().ln() - ln_delta).abs() < 0.1, "δ(ε₀) = {v}");
        assert!(
            tail <= target + 1.0,
            "tail e^{tail:.2} against the target e^{target:.2}"
        );
    }

    /// The tail cut's allowance (docs/accounting.md#tail-cut): a cut placed deliberately
    /// shallow (its lost mass τ about 10⁻³ of δ) at q = 0.01, σ = 0.8, T = 1000, ε = 3: the cut
    /// inversion's bracket contains δ of the uncut inversion (12 digits), and without τ it does
    /// not — the trapezoid of the cut moments alone lies below δ by more than its own error,
    /// so the test fails if τ is dropped from the bracket.
    #[test]
    fn the_cut_bracket_keeps_the_lost_mass() {
        let m = SubsampledGaussian::new("0.01".parse().unwrap(), "0.8".parse().unwrap()).unwrap();
        let sched = Schedule::new(vec![(Release::Subsampled(m), 1000)]).unwrap();
        let prec = 160;
        let factors = sched.factors(Dir::Remove, prec);
        let eps = 3.0;
        let ef = Float::with_val(prec, eps);
        let ln_rel = -14.0 * std::f64::consts::LN_10;
        let uncut = Inversion::build(&factors, eps, ln_rel, prec, false, None).unwrap();
        assert_eq!(uncut.tau, 0.0, "the reference must not be cut itself");
        let (truth, ln_err_t, _) = uncut.delta(&ef);
        let truth = truth.to_f64();
        assert!(ln_err_t.exp() < 1e-12 * truth, "reference δ = {truth:e}");
        let (cut, tau) =
            super::cut_factors(&factors, super::CUT_LAMS[0], (1e-3 * truth).ln()).unwrap();
        assert!(
            tau > 1e-4 * truth && tau <= 1.0001e-3 * truth,
            "τ = {tau:e}, δ = {truth:e}"
        );
        let a = super::saddle(&cut, eps);
        let plan = super::Plan::choose(&cut, a, eps, ln_rel, None);
        let mut inv = Inversion::build_at(&cut, a, plan, prec, false, false).unwrap();
        let (v_w, ln_err_w, _) = inv.delta(&ef);
        let (v_w, err_w) = (v_w.to_f64(), ln_err_w.exp());
        assert!(
            truth > v_w + err_w + 1e-12 * truth,
            "the cut moments alone: [{:e}, {:e}] already reach δ = {truth:e}",
            v_w - err_w,
            v_w + err_w
        );
        inv.tau = tau;
        let (v, ln_err, _) = inv.delta(&ef);
        let (v, err) = (v.to_f64(), ln_err.exp());
        assert!(
            (v - truth).abs() <= err,
            "cut bracket [{:e}, {:e}] misses δ = {truth:e} (τ = {tau:e})",
            v - err,
            v + err
        );
    }

    /// `delta`'s cached node factors and recurrence powers ω^j against the direct sum
    /// Σ w_j·Re e^{ln Π M^T(s_j) − (s_j − 1)ε}/(s_j(s_j − 1)) at twice the precision: within its
    /// own rounding bound, with max_arg = J·h·ε alone (the inversion's other error terms are the
    /// same for both), at four ε, for an off-saddle plan (q = 10⁻⁵, σ = 2, T = 10⁵: a = 46.3
    /// against the saddle's 91.6, 504 nodes) and a saddle one (q = 0.01, σ = 1, T = 3: 16,384
    /// nodes); and the derivative to 10⁻²⁰ relative. A phase off by one node (ω^{j+1}) fails it
    /// (checked).
    #[test]
    fn cached_node_terms_meet_the_direct_sum() {
        use rug::Complex;
        let cases: [(&str, &str, u64, f64, f64); 2] = [
            ("0.00001", "2", 100_000, 3.6009e-3, 1e-5),
            ("0.01", "1", 3, 0.3, 7.1e-6),
        ];
        for (q, s, t, eps0, delta) in cases {
            let m = SubsampledGaussian::new(q.parse().unwrap(), s.parse().unwrap()).unwrap();
            let sched = Schedule::new(vec![(Release::Subsampled(m), t)]).unwrap();
            let prec = 141;
            let factors = sched.factors(Dir::Remove, prec);
            let ln_rel = -8.0 * std::f64::consts::LN_10;
            let inv =
                Inversion::build(&factors, eps0, ln_rel, prec, true, Some(delta.ln())).unwrap();
            assert!(inv.nodes.len() >= 100, "{} nodes", inv.nodes.len());
            for k in [0.5, 1.0, 2.0, 7.0] {
                let eps = Float::with_val(prec, eps0 * k);
                let (v, ln_err, dv) = inv.delta(&eps);
                let p2 = 2 * prec;
                let a = Float::with_val(p2, inv.a);
                let (mut sum, mut dsum) = (Float::new(p2), Float::new(p2));
                let mut ln_abs = Vec::new();
                for (j, ln_m) in inv.nodes.iter().enumerate() {
                    let u = Float::with_val(p2, inv.h) * (j as u64);
                    let sm1 = Complex::with_val(p2, (Float::with_val(p2, &a - 1u32), &u));
                    let s = Complex::with_val(p2, (&a, &u));
                    let arg = Complex::with_val(p2, ln_m - Complex::with_val(p2, &sm1 * &eps));
                    let e = Complex::with_val(p2, arg.exp_ref());
                    let w = if j == 0 { 1u32 } else { 2u32 };
                    let den = Complex::with_val(p2, &s * &sm1);
                    sum += Float::with_val(p2, Complex::with_val(p2, &e / &den).real() * w);
                    dsum += Float::with_val(p2, Complex::with_val(p2, &e / &s).real() * w);
                    ln_abs.push(
                        f64::from(w).ln() + arg.real().to_f64()
                            - Float::with_val(64, den.abs_ref()).ln().to_f64(),
                    );
                }
                let scale =
                    Float::with_val(p2, inv.h) / (Float::with_val(p2, super::Constant::Pi) * 2u32);
                let direct = Float::with_val(p2, &sum * &scale);
                let ddirect = -Float::with_val(p2, &dsum * &scale);
                let diff = Float::with_val(p2, &v - &direct).abs().to_f64();
                // The rounding term alone (the other terms do not depend on how the sum is
                // formed): 8·(max_arg + 16 + n)·2^−p of (h/2π)·Σ|term|.
                let n = inv.nodes.len() as f64;
                let max_arg = n * inv.h * eps.to_f64();
                let round = (inv.h / (2.0 * PI)).ln()
                    + super::f64s::log_sum_exp(&ln_abs)
                    + (8.0 * (max_arg + 16.0 + n)).ln()
                    - f64::from(prec) * std::f64::consts::LN_2;
                assert!(
                    diff == 0.0 || diff.ln() <= round,
                    "q = {q}, eps = {eps}: |delta - direct| = {diff:e} > e^{round:.2} (error bound e^{ln_err:.2})"
                );
                let drel = Float::with_val(p2, &dv - &ddirect).abs() / ddirect.clone().abs();
                assert!(drel.to_f64() < 1e-20, "derivative {drel}");
            }
        }
    }
}
