//! The discretised route (docs/accounting.md#discretised): δ(ε) and ε(δ) of T identical
//! Poisson-subsampled Gaussian steps (add/remove neighbours) from two discrete pairs on a loss
//! grid o + hℤ that bracket one step, composed by FFT. It answers, at up to [`MAX_DIGITS`]
//! digits, the small-T and tiny-q corner where the inversion's damping is squeezed.
//!
//! - **Upper pair** (dominating; connect-the-dots, Doroshenko et al., PETS 2022): every point
//!   whose loss ℓ lies in [ℓ_j, ℓ_{j+1}] sends its mass to the two knots around it, split so
//!   that both P and Q are preserved (linear in e^ℓ). The step is a post-processing of this pair.
//! - **Lower pair** (dominated): consecutive bins of points (whole cells, and fractions of the
//!   cells at their ends), each labelled at the knot above its lowest cell and extended upward
//!   until its likelihood ratio reaches that knot's e^{ℓ_k}. Binning (with randomised splits) is a
//!   post-processing of the step; labelling a bin at or below its own log-ratio can only lower δ.
//! - **Grid offset**: a knot sits where the step's mass piles up (ℓ_min = ln(1−q) for remove, just
//!   below ℓ_max = −ln(1−q) for add), so that the one bin the tail cannot balance costs nothing;
//!   where the remove step's pile is within one cell, at the pile's own log-ratio instead, so
//!   that its bin balances ([`pile_offset`], docs/accounting.md#pile-offset).
//!
//! - **Fine core** (remove direction, T ≥ 32, once a pass on the grid alone would need an FFT
//!   beyond the cap; docs/accounting.md#fine-core): the steps of small loss, almost all of them at
//!   tiny q, are discretised on a grid 16 times finer, their binary powers composed there and
//!   each put on the grid once (connect-the-dots / binning of a composed pair: valid for the
//!   same reasons), so the composition carries a few discretisations instead of T.
//!
//! A composition of dominating (dominated) pairs dominates (is dominated by) the composition, so
//! the T-fold compositions of the two pairs bracket δ_T(ε); both are second-order in h, and h is
//! refined until the bracket has the digits asked. The composition is one complex FFT (upper +
//! i·lower) of the pairs tilted by e^{λℓ}, λ chosen at the query so that the FFT's absolute
//! rounding is small against δ once the tilt is undone. All is in double precision, and every
//! truncation is bounded and added: the step's tails by closed-form Gaussian tails, the window by
//! a Chernoff bound on the discrete law, the FFT's rounding componentwise (each output of a
//! length-N transform is within γ‖z‖₁ of the exact one, γ = 8·log₂N·u, after Higham, Accuracy and
//! Stability of Numerical Algorithms, 2nd ed., §24.1, with a margin; propagated through the T-th
//! power and the inverse transform; one or two heavy inputs transformed apart, [`forward`]), sums
//! by compensated summation. The cell integrals carry the
//! difference of a 5-point Lobatto rule and Simpson's rule on the same piece as their error (the
//! crate's standard for quadrature: an estimate, not an a-priori bound), and the labels an
//! allowance τ per step for the rounding of the cell edges.

use super::{precision_error, Bracket, Composed, Dir, Error, Result, Scalar, SubsampledGaussian};
use crate::numeric::f64s::{log_add_exp, ndtr, norm_pdf};
use rug::Float;
use rustfft::{num_complex::Complex64, FftPlanner};

/// Most digits this route answers; beyond, the dispatcher uses the inversion.
pub(super) const MAX_DIGITS: u32 = 8;
/// The route's name in [`Composed::route`].
const ROUTE: &str = "discretised convolution (double precision)";
/// Largest FFT length, 2^24 (256 MiB of complex doubles; a pass at the cap peaks near 2 GiB).
const MAX_LOG2: u32 = 24;
/// Smallest FFT length.
const MIN_LOG2: u32 = 10;
/// Unit roundoff.
const U: f64 = f64::EPSILON / 2.0;
/// Relative allowance on a mass from closed-form Gaussian tails (libm's erfc is ≈ 1 ulp).
const TAIL_REL: f64 = 1e-12;
/// Widest quadrature piece, in units of min(σ, σ²) (the scale of the step's loss in z: its
/// exponent is (2z − 1)/(2σ²)). Each piece's error estimate is Simpson's difference from the
/// 5-point Lobatto rule; at σ/128 (until stop 55) that estimate was the bracket's floor at tiny
/// q, where a few cells span the pile's whole z range (docs/accounting.md#error-terms).
const PIECE: f64 = 1.0 / 512.0;
/// The step's coordinate is cut at ±this many σ (beyond, the mass is below 10⁻³⁰⁰).
const Z_CUT: f64 = 38.0;

/// One direction's step in the coordinate z in which its loss ℓ(z) increases: remove,
/// P = (1−q)N(0,σ²) + qN(1,σ²), ℓ = ln(1 − q + q e^{(2z−1)/(2σ²)}); add, z = −x with
/// P = N(0,σ²), ℓ = −ln(1 − q + q e^{(−2z−1)/(2σ²)}).
#[derive(Clone, Copy, Debug)]
struct Law {
    /// +1 remove, −1 add.
    s: f64,
    q: f64,
    sigma: f64,
    s2: f64,
    /// Weight of N(1, σ²) in P.
    w: f64,
    /// ln(1 − q).
    l1q: f64,
    /// Remove direction: the loss above which the step's mass is carried in closed form, not
    /// on the grid ([`Hits`], docs/accounting.md#hits); ∞ for none.
    ceiling: f64,
}

impl Law {
    fn new(q: f64, sigma: f64, dir: Dir) -> Law {
        let add = dir == Dir::Add;
        Law {
            s: if add { -1.0 } else { 1.0 },
            q,
            sigma,
            s2: sigma * sigma,
            w: if add { 0.0 } else { q },
            l1q: (-q).ln_1p(),
            ceiling: f64::INFINITY,
        }
    }

    /// This law with the remove step's mass above loss `ceiling` carried in closed form
    /// ([`Hits`]).
    fn with_ceiling(&self, ceiling: f64) -> Law {
        Law { ceiling, ..*self }
    }

    /// P's density at z.
    fn p(&self, z: f64) -> f64 {
        let a = norm_pdf(z / self.sigma);
        let v = if self.w == 0.0 {
            a
        } else {
            (1.0 - self.w) * a + self.w * norm_pdf((z - 1.0) / self.sigma)
        };
        v / self.sigma
    }

    /// P(Z > z).
    fn above(&self, z: f64) -> f64 {
        let a = ndtr(-z / self.sigma);
        if self.w == 0.0 {
            a
        } else {
            (1.0 - self.w) * a + self.w * ndtr((1.0 - z) / self.sigma)
        }
    }

    /// P(Z < z).
    fn below(&self, z: f64) -> f64 {
        let a = ndtr(z / self.sigma);
        if self.w == 0.0 {
            a
        } else {
            (1.0 - self.w) * a + self.w * ndtr((z - 1.0) / self.sigma)
        }
    }

    /// ℓ(z).
    fn loss(&self, z: f64) -> f64 {
        let y = (2.0 * self.s * z - 1.0) / (2.0 * self.s2);
        self.s * log_add_exp(self.l1q, self.q.ln() + y)
    }

    /// The edge of loss l: the z with ℓ(z) = l and c = 1 − (1−q)e^{−sl}, None outside the range.
    fn edge(&self, l: f64) -> Option<Edge> {
        let e = (self.s * l).exp_m1() / self.q;
        if !(e > -1.0 && e.is_finite()) {
            return None;
        }
        Some(Edge {
            z: self.s * (self.s2 * e.ln_1p() + 0.5),
            c: -(self.l1q - self.s * l).exp_m1(),
        })
    }

    /// ℓ(z) − l for the edge of loss l: s·ln(1 + c·expm1(s(z − z_e)/σ²)), without cancellation.
    fn rel(&self, z: f64, e: &Edge) -> f64 {
        self.s * (e.c * (self.s * (z - e.z) / self.s2).exp_m1()).ln_1p()
    }

    /// The z beyond which (below which, `upper` false) P has mass at most `m`, by bisection.
    fn cut(&self, m: f64, upper: bool) -> f64 {
        let lim = Z_CUT * self.sigma + 1.0;
        let (mut a, mut b) = (-lim, lim);
        for _ in 0..200 {
            let mid = 0.5 * (a + b);
            let t = if upper {
                self.above(mid)
            } else {
                self.below(mid)
            };
            // `above` decreases, `below` increases in z.
            if (t > m) == upper {
                a = mid;
            } else {
                b = mid;
            }
            if b - a < 1e-12 * (1.0 + a.abs()) {
                break;
            }
        }
        if upper {
            b
        } else {
            a
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    z: f64,
    c: f64,
}

/// The two discrete pairs of one step on the knots jh, j = j0 ..= j0 + n: finite P-masses
/// (`up`, `lo`) and the upper pair's mass at +∞.
#[derive(Debug)]
struct Pairs {
    h: f64,
    /// Grid offset: knot j is the loss o + jh.
    o: f64,
    j0: i64,
    up: Vec<f64>,
    lo: Vec<f64>,
    up_inf: f64,
    /// The labels' allowance per step ([`tau`]).
    tau: f64,
    /// The step's law and cells (the fine core, [`Core`], is cut from them).
    law: Law,
    cells: Vec<Cell>,
    /// The cut mass below the first cell (remove: on knot 1 of the upper pair).
    below: f64,
    /// The step's mass above its last knot when the law has a ceiling below the tail's cut
    /// ([`Hits`]); the pairs then carry none of it.
    hit: Option<Hit>,
}

/// 5-point Lobatto nodes (interior, on [−1, 1]) and weights.
const LOB_X: f64 = 0.654_653_670_707_977_2; // √(3/7)
const LOB_W: [f64; 3] = [0.1, 49.0 / 90.0, 32.0 / 45.0];

/// The cell integrals of one cell: A = ∫p·expm1(h − d), B = ∫p·(−expm1(−d)) with d = ℓ − jh
/// (the upper pair's masses at the cell's two knots are A/(e^h − 1) and B/(1 − e^{−h}); the
/// cell's P-mass is (A + e^h B)/(e^h − 1)), and their error estimates.
#[derive(Clone, Copy, Debug, Default)]
struct Cell {
    a: f64,
    b: f64,
    ea: f64,
    eb: f64,
}

fn integrate(law: &Law, z0: f64, z1: f64, h: f64, d: &dyn Fn(f64) -> f64) -> Cell {
    let width = z1 - z0;
    if width.is_nan() || width <= 0.0 {
        return Cell::default();
    }
    let pieces = (width / (PIECE * law.sigma * law.sigma.min(1.0)))
        .ceil()
        .max(1.0);
    let n = pieces as usize;
    let step = width / pieces;
    let f = |z: f64| {
        let dz = d(z).clamp(0.0, h);
        let p = law.p(z);
        (p * (h - dz).exp_m1(), -p * (-dz).exp_m1())
    };
    let mut out = Cell::default();
    let mut left = f(z0);
    for k in 0..n {
        let a = z0 + step * k as f64;
        let b = if k + 1 == n { z1 } else { a + step };
        let half = 0.5 * (b - a);
        let m = a + half;
        let right = f(b);
        let l1 = f(m - LOB_X * half);
        let mid = f(m);
        let l3 = f(m + LOB_X * half);
        let lob = |i: usize| -> f64 {
            let v = [left, l1, mid, l3, right].map(|t| if i == 0 { t.0 } else { t.1 });
            half * (LOB_W[0] * (v[0] + v[4]) + LOB_W[1] * (v[1] + v[3]) + LOB_W[2] * v[2])
        };
        let simpson = |i: usize| -> f64 {
            let v = [left, mid, right].map(|t| if i == 0 { t.0 } else { t.1 });
            half / 3.0 * (v[0] + 4.0 * v[1] + v[2])
        };
        let (la, lb) = (lob(0), lob(1));
        out.a += la;
        out.b += lb;
        out.ea += (la - simpson(0)).abs() + 16.0 * U * la;
        out.eb += (lb - simpson(1)).abs() + 16.0 * U * lb;
        left = right;
    }
    out
}

/// Tail cuts of one step: single-step P-mass beyond the knots at most `m_cut`.
fn discretise(law: &Law, h: f64, m_cut: f64) -> Result<Pairs> {
    discretise_for(law, h, m_cut, false, false)
}

/// [`discretise`] with the remove step's grid put at its pile's log-ratio when the pile is
/// within one cell ([`pile_offset`], docs/accounting.md#pile-offset); on the knot at ℓ_min when
/// the shifted grid's first bin does not balance (its lower pair then has mass on the knot below
/// ℓ_min).
fn discretise_at_pile(law: &Law, h: f64, m_cut: f64) -> Result<Pairs> {
    let p = discretise_for(law, h, m_cut, false, true)?;
    if p.o != law.l1q && p.lo[0] != 0.0 {
        return discretise(law, h, m_cut);
    }
    Ok(p)
}

/// The remove step's grid offset on a step `h` (docs/accounting.md#pile-offset): at tiny q most
/// of P sits within a few q of ℓ_min = ln(1 − q), in the first cell when h ≫ q, and the cells
/// above cannot pay that cell's debt up to the knot ℓ_min + h, so the lower pair labels it at
/// ℓ_min, below its log-ratio by up to q: T·q of the composed loss, a first-order error that no
/// finer step (above q) removes (q = 10⁻⁶, σ = 0.3, T = 10⁵: ε's lower end 1 % low). Here a knot
/// k is put just below the fixed point of k = r(k), r(k) = ln(P(S)/Q(S)) for S = {ℓ < k + h}
/// (P(S)/Q(S) = 1 − q + q·Φ((z − 1)/σ)/Φ(z/σ) at S's edge z; r is increasing, and the iterates
/// from ℓ_min rise to it with k ≤ r(k) at each), so the bin made of everything below k and a
/// fraction of the cell above it balances at k: it is labelled at its own log-ratio. Returns
/// that knot less h (the grid's knot 0, below ℓ_min, for the connect-the-dots pair), or ℓ_min
/// when the fixed point is not within half a cell of it (the pile spans cells; the bins balance
/// it as before).
fn pile_offset(law: &Law, h: f64) -> f64 {
    let lmin = law.l1q;
    let ratio = |k: f64| match law.edge(k + h) {
        Some(e) => {
            let (a, b) = (ndtr(e.z / law.sigma), ndtr((e.z - 1.0) / law.sigma));
            if a > 0.0 {
                (-law.q * (1.0 - b / a)).ln_1p()
            } else {
                f64::NAN
            }
        }
        None => f64::NAN,
    };
    let mut k = lmin;
    for _ in 0..64 {
        let next = ratio(k);
        // Also ends on a NaN ratio (an edge outside the range).
        if next.is_nan() || next <= k {
            break;
        }
        let settled = next - k <= 1e-6 * (next - lmin);
        k = next;
        if settled {
            break;
        }
    }
    let gap = k - lmin;
    if !(gap > 0.0 && gap < 0.5 * h) {
        return lmin;
    }
    lmin + (1.0 - PILE_BACKOFF) * gap - h
}

/// How far below the fixed point the pile's knot is, as a fraction of its distance from ℓ_min:
/// a slack of about this much of q per unit of mass in the first bin's balance, far above the
/// cell integrals' error estimates, so the bin balances; its cost is the remainder of the cell
/// above, which the cells above it balance.
const PILE_BACKOFF: f64 = 1e-3;

/// [`discretise`], or with `complement` the pairs that bound 1 − δ(ε) instead
/// (docs/accounting.md#discrete-complement): 1 − δ(ε) = Σ m_S·min(1, e^{ε−S}) is
/// non-decreasing in each mass and non-increasing in each label, so
/// - `up` (a lower bound on 1 − δ): the connect-the-dots pair with every mass lowered (the cells'
///   error estimates subtracted, the cut tails and the mass at +∞ dropped, margins down) — its
///   masses are below the dominating pair's, knot by knot, and so are their T-fold compositions;
/// - `lo` (an upper bound): the dominated pair's bins with every mass raised (the cells' error
///   estimates added, each bin's summation rounding, margins up), and the cut tails labelled at
///   or below their losses (remove: below at knot 0 = ℓ_min, above at the last knot; add: above
///   at the knot below the last cell, below at −∞ in `below`, added as T·below where read). Its
///   masses are above the binned step's, knot by knot, at labels at most the bins' log-ratios.
fn discretise_for(law: &Law, h: f64, m_cut: f64, complement: bool, at_pile: bool) -> Result<Pairs> {
    let remove = law.s > 0.0;
    // The grid o + hℤ has a knot at the end of the loss range where the mass piles up: at
    // ℓ_min = ln(1 − q) (remove), and h/1024 below ℓ_max = −ln(1 − q) (add). The lower pair
    // labels a cell it cannot balance with its lower knot; there that costs almost nothing.
    // With `at_pile` (remove), knot 1 at the pile's log-ratio instead ([`pile_offset`]).
    let o = if remove && at_pile {
        pile_offset(law, h)
    } else if remove {
        law.l1q
    } else {
        -law.l1q - h / 1024.0
    };
    // A ceiling below the tail's cut ends the grid at the first knot at or above it; the mass
    // beyond is carried in closed form ([`Hits`]).
    let mut capped = false;
    let (j_lo, j_hi, z_floor, z_ceil) = if remove {
        let zt = law.cut(m_cut, true);
        let mut j_hi = ((law.loss(zt) - o) / h).ceil().max(1.0) as i64;
        let j_top = ((law.ceiling - o) / h).ceil();
        if !complement && j_top >= 2.0 && j_top < j_hi as f64 {
            j_hi = j_top as i64;
            capped = true;
        }
        (0, j_hi, -Z_CUT * law.sigma, f64::NAN)
    } else {
        let zb = law.cut(m_cut, false);
        let j_lo = ((law.loss(zb) - o) / h).floor().min(-1.0) as i64;
        (j_lo, 1, f64::NAN, z_ceil_of(law))
    };
    let n = (j_hi - j_lo).max(1) as usize;
    if n > (1usize << MAX_LOG2) {
        return Err(budget_error(
            "the step's loss range needs more grid cells than the cap",
        ));
    }
    let (cells, first_z, last_z) = cells_on(law, o, h, j_lo, n, z_floor, z_ceil);
    let below = law.below(first_z) * (1.0 + TAIL_REL);
    let above = if last_z.is_finite() {
        law.above(last_z) * (1.0 + TAIL_REL)
    } else {
        0.0
    };
    if complement {
        let mut up = upper_lowered(&cells, h);
        let mut lo = lower_pair_raised(&cells, h);
        let below_at_minus_inf = if remove {
            lo[0] += below;
            lo[n] += above;
            0.0
        } else {
            // Above z_ceil the loss is at least ℓ(z_ceil): labelled at the knot at or below it
            // (the last cell's lower knot unless σ is large), or at −∞ below the first knot.
            let m = law.above(z_ceil_of(law)) * (1.0 + TAIL_REL);
            let k = ((law.loss(z_ceil_of(law)) - o) / h).floor() - j_lo as f64;
            if k >= 0.0 {
                lo[(k as usize).min(n - 1)] += m;
                below
            } else {
                below + m
            }
        };
        for v in &mut up {
            *v *= 1.0 - 8.0 * U;
        }
        for x in &mut lo {
            *x *= 1.0 + 8.0 * U;
        }
        let mut p = Pairs {
            h,
            o,
            j0: j_lo,
            up,
            lo,
            up_inf: 0.0,
            tau: 0.0,
            law: *law,
            cells,
            below: below_at_minus_inf,
            hit: None,
        };
        p.tau = tau(law, &p);
        return Ok(p);
    }
    // Upper pair: every cell's mass split onto its two knots, errors added.
    let mut up = upper_from(&cells, h);
    // The cut mass: remove, below z_floor (loss in the first cell) goes to knot 1 and above the
    // last edge to +∞; add, below the first edge (loss below the first knot) to knot 0 and above
    // z_ceil (loss in the last cell) to the last knot.
    let (up_inf, hit) = if remove {
        up[1.min(n)] += below;
        if capped {
            // The hits' least loss: the last knot's, less its edge's rounding.
            let top = o + (j_lo + n as i64) as f64 * h;
            let hit = Hit {
                p: law.above(last_z),
                q: ndtr(-last_z / law.sigma),
                loss: top - 1e-9 * (1.0 + top.abs()),
            };
            (0.0, Some(hit))
        } else {
            (above, None)
        }
    } else {
        up[0] += below;
        up[n] += above;
        (0.0, None)
    };
    let mut lo = lower_pair(&cells, h);
    margins(&mut up, &mut lo);
    let mut p = Pairs {
        h,
        o,
        j0: j_lo,
        up,
        lo,
        up_inf,
        tau: 0.0,
        law: *law,
        cells,
        below,
        hit,
    };
    p.tau = tau(law, &p);
    Ok(p)
}

/// The cells between the knots o + jh, j = j_lo ..= j_lo + n, of one step: the first cell
/// starts at `z_floor` when its lower knot is below the loss range (remove), the last ends at
/// `z_ceil` when its upper knot is above it (add). Returns the cells and the first and last z
/// they cover (the step's mass beyond them is the cut tails').
fn cells_on(
    law: &Law,
    o: f64,
    h: f64,
    j_lo: i64,
    n: usize,
    z_floor: f64,
    z_ceil: f64,
) -> (Vec<Cell>, f64, f64) {
    let mut cells = Vec::with_capacity(n);
    let mut lower = law.edge(o + j_lo as f64 * h);
    let first_z = match lower {
        Some(e) => e.z,
        None => z_floor,
    };
    let mut last_z = first_z;
    for j in j_lo..j_lo + n as i64 {
        let upper = law.edge(o + (j + 1) as f64 * h);
        let z0 = lower.map_or(z_floor, |e| e.z);
        let z1 = upper.map_or(z_ceil, |e| e.z);
        let cell = match (lower, upper) {
            (Some(e), _) => integrate(law, z0, z1, h, &|z| law.rel(z, &e)),
            (None, Some(e)) => integrate(law, z0, z1, h, &|z| h + law.rel(z, &e)),
            (None, None) => Cell::default(),
        };
        cells.push(cell);
        last_z = z1;
        lower = upper;
    }
    (cells, first_z, last_z)
}

/// The upper pair's finite masses on the knots 0 ..= n from the cells: each cell's A and B
/// (with their errors) split onto its two knots (module docs).
fn upper_from(cells: &[Cell], h: f64) -> Vec<f64> {
    upper_from_tilted(cells, h, 0.0)
}

/// [`upper_from`] of cells in tilted units (as for [`lower_pair_tilted`]: cell c's values times
/// e^{λch}·K, the knots' returned the same way), so a cell's share of its upper knot is carried
/// up by e^{λh}, rounded up; at λ = 0 exactly [`upper_from`].
fn upper_from_tilted(cells: &[Cell], h: f64, lambda: f64) -> Vec<f64> {
    let (em1, om1) = (h.exp_m1(), -(-h).exp_m1());
    let up_step = if lambda != 0.0 {
        (lambda * h).exp() * (1.0 + 4.0 * U * (lambda * h + 2.0))
    } else {
        1.0
    };
    let mut up = vec![0.0; cells.len() + 1];
    for (k, c) in cells.iter().enumerate() {
        up[k] += (c.a + c.ea) / em1;
        up[k + 1] += (c.b + c.eb) / om1 * up_step;
    }
    up
}

/// [`upper_from`] with every cell's A and B lowered by its error estimate (kept nonnegative):
/// knot by knot at most the connect-the-dots pair's masses ([`discretise_for`]).
fn upper_lowered(cells: &[Cell], h: f64) -> Vec<f64> {
    let (em1, om1) = (h.exp_m1(), -(-h).exp_m1());
    let mut up = vec![0.0; cells.len() + 1];
    for (k, c) in cells.iter().enumerate() {
        up[k] += (c.a - c.ea).max(0.0) / em1;
        up[k + 1] += (c.b - c.eb).max(0.0) / om1;
    }
    up
}

/// The add direction's z_ceil ([`discretise`]).
fn z_ceil_of(law: &Law) -> f64 {
    Z_CUT * law.sigma
}

/// The pairs' rounding margins on their masses: upper raised by 8u, lower lowered (and kept
/// nonnegative).
fn margins(up: &mut [f64], lo: &mut [f64]) {
    for v in up {
        *v *= 1.0 + 8.0 * U;
    }
    for x in lo {
        *x = (*x * (1.0 - 8.0 * U)).max(0.0);
    }
}

/// Cells that [`lower_pair`] labels alone at their lower knot before it ends with one bin: each
/// costs a scan of the cells above, so the count is a total, not a run (the bins' work stays
/// within this many scans of the step).
const UNBALANCED: usize = 64;

/// The lower pair's finite masses on the knots 0 ..= n from the cells (module docs).
fn lower_pair(cells: &[Cell], h: f64) -> Vec<f64> {
    bins(cells, h, 0.0, false)
}

/// [`lower_pair`]'s bins and labels with each bin's mass raised: its cells' P-masses with their
/// error estimates added, and the bin's sum by (terms + 4)u for its rounding
/// ([`discretise_for`]).
fn lower_pair_raised(cells: &[Cell], h: f64) -> Vec<f64> {
    bins(cells, h, 0.0, true)
}

/// [`lower_pair`] of cells given in tilted units: cell c's A, B (and errors) are its masses
/// times e^{λch}·K for one constant K, and so are the knots' masses returned (knot k's times
/// e^{λkh}·K). A bin converts the cells above its first into that cell's units (e^{−λ(c₂−c)h},
/// rounded toward less credit; a factor that underflows leaves the bin unbalanced, labelled
/// low: valid). At λ = 0 the factors are 1 and this is the untilted binning bit for bit. The
/// fine core's binary powers ([`core_power`]) are binned this way: their untilted masses span
/// e^{λ·range}, beyond a double's range at strong tilts.
fn lower_pair_tilted(cells: &[Cell], h: f64, lambda: f64) -> Vec<f64> {
    bins(cells, h, lambda, false)
}

/// [`lower_pair_tilted`]; with `raised` (untilted only), [`lower_pair_raised`].
fn bins(cells: &[Cell], h: f64, lambda: f64, raised: bool) -> Vec<f64> {
    // Consecutive bins, each labelled at the knot above its lowest cell and extended
    // upward until its likelihood ratio reaches that knot's e^{kh} (module docs). A bin's balance
    // uses the cells' A inflated and B, P deflated by their error estimates; the last bin, which
    // the cut tail cannot balance, is labelled at its lowest cell's lower knot.
    let n = cells.len();
    let (em1, eh) = (h.exp_m1(), h.exp());
    let tilted = lambda != 0.0;
    // e^{−λ·m·h} rounded down (credit into a lower cell's units) and e^{λ·m·h} rounded down
    // (mass onto a knot m above... or below, m < 0); 1 exactly when untilted.
    let down = |m: f64| -> f64 {
        if tilted {
            let x = -lambda * m * h;
            x.exp() * (1.0 - 4.0 * U * (x.abs() + 2.0))
        } else {
            1.0
        }
    };
    let mut lo = vec![0.0; n + 1];
    let pl: Vec<f64> = cells
        .iter()
        .map(|c| ((c.a - c.ea).max(0.0) + eh * (c.b - c.eb).max(0.0)) / em1)
        .collect();
    // The mass a bin carries: its cells' lowered P-masses, or raised ones.
    let carry: Vec<f64> = if raised {
        cells
            .iter()
            .map(|c| ((c.a + c.ea) + eh * (c.b + c.eb)) / em1 * (1.0 + 4.0 * U))
            .collect()
    } else {
        pl.clone()
    };
    // A raised bin's sum of `terms` masses, rounded up.
    let up_by = |x: f64, terms: usize| {
        if raised {
            x * (1.0 + (terms as f64 + 4.0) * U)
        } else {
            x
        }
    };
    let (mut c, mut r) = (0usize, 1.0f64);
    let mut unbalanced = 0;
    while c < n {
        let k = c + 1;
        let mut terms = 1usize;
        let mut debt = r * (cells[c].a + cells[c].ea);
        if tilted {
            debt *= 1.0 + 4.0 * U;
        }
        // In knot k's units (one knot above cell c's).
        let mut out = r * carry[c] * down(-1.0);
        let mut next = None;
        for (c2, cell) in cells.iter().enumerate().skip(k) {
            // Per unit of cell c2, ∫p(1 − e^{ℓ_k − ℓ}) = (1 − e^{−mh})P + e^{−mh}B, m = c2 − k.
            let m = (c2 - k) as f64 * h;
            let f = down((c2 - c) as f64);
            let credit = f * (-(-m).exp_m1() * pl[c2] + (-m).exp() * (cell.b - cell.eb).max(0.0));
            let to_k = down((c2 - k) as f64);
            terms += 1;
            if credit >= debt {
                let w = if credit > 0.0 { debt / credit } else { 0.0 };
                out += w * carry[c2] * to_k;
                next = Some((c2, 1.0 - w));
                break;
            }
            debt -= credit;
            out += carry[c2] * to_k;
        }
        match next {
            Some((c2, rest)) => {
                lo[k] += up_by(out, terms);
                if rest > 0.0 {
                    (c, r) = (c2, rest);
                } else {
                    (c, r) = (c2 + 1, 1.0);
                }
            }
            // No bin from cell c balances: the cells above cannot pay its debt (the cut tail's
            // last cells; or a pile of mass at knot c, as at ℓ_min for tiny q on a coarse step,
            // where the bin would otherwise swallow the whole step). Cell c's part alone is
            // labelled at its lower knot (its log-ratio is at least ℓ_c) and the bins go on from
            // c + 1; after UNBALANCED such cells, the rest is one bin at knot c.
            None if unbalanced < UNBALANCED => {
                lo[c] += up_by(r * carry[c], 1);
                (c, r) = (c + 1, 1.0);
                unbalanced += 1;
                continue;
            }
            None => {
                lo[c] += up_by(out * down(1.0), terms);
                break;
            }
        }
    }
    if tilted {
        for x in &mut lo {
            *x *= 1.0 - 4.0 * U;
        }
    }
    lo
}

fn budget_error(why: &str) -> Error {
    precision_error(0, 0, &format!("discretised route: {why}"))
}

/// What both pairs' compositions share: the window's grid and position, the tilt, the FFT's
/// error bounds and the label allowance.
#[derive(Clone, Copy, Debug)]
struct Frame {
    h: f64,
    /// T·o: index i is the loss base + (ja + i)h.
    base: f64,
    ja: i64,
    /// The tilt λ.
    lambda: f64,
    /// Bounds on the FFT error of the tilted masses.
    fft_err: FftErr,
    /// The label allowance T·τ.
    shift: f64,
    /// Relative error of each composed mass from the tilt's and the untilt's exponentials
    /// (their arguments' rounding; [`compose_part`]).
    tilt_rel: f64,
    /// Losses below this carry no weight: for a δ(ε) pass and an ε(δ) pass with an estimate,
    /// min(½, 64/λ) below that ε ([`floor_at`]), so that a tilt past 600/(ε + 1) can be undone
    /// where it is read ([`Composite::delta`] gives the trivial bounds below it); −1 for a first
    /// ε(δ) pass (ε ≥ 0, and the shift is far below 1).
    floor: f64,
    /// The composition is read for 1 − δ(ε) ([`Composite::complement`]), tilted by λ ∈ (−1, 0).
    complement: bool,
}

/// The composed masses of one pair on a window of N knots (index i is the loss (ja + i)h),
/// computed under an exponential tilt λ (masses m̃_J = m_J e^{λ S_J − T c}), and the error terms
/// in tilted units, which [`Composite::delta`] scales back at each ε.
struct Composite {
    f: Frame,
    /// Suffix sums of the untilted masses, Σ_{k≥i} m_k and Σ_{k≥i} m_k e^{−kh}, compensated.
    g1: Vec<f64>,
    g2: Vec<f64>,
    /// T·c of this pair's tilt.
    tc: f64,
    /// Tilted mass outside the window or wrapped into it (bound).
    outside: f64,
    /// Upper pair: the probability that some step is at +∞ (for a complement's raised pair,
    /// at −∞).
    inf: f64,
    /// A complement's rounding weights ([`Composite::new_complement`]); empty otherwise.
    gh: Vec<f64>,
    /// The highest knot whose term of `g2` (m_i e^{−ih}, counted from the window's first knot)
    /// fell below the least normal double, if any: a read whose suffix holds it carries their
    /// loss ([`Composite::delta`]).
    under: Option<usize>,
}

impl Composite {
    /// `tilted`: the pair's composed tilted masses on the window; `tc`, `outside`, `inf` as in
    /// the fields.
    fn new(tilted: &[f64], f: Frame, tc: f64, outside: f64, inf: f64) -> Result<Self> {
        if f.complement {
            return Ok(Self::new_complement(tilted, f, tc, outside, inf));
        }
        let Frame {
            h,
            base,
            ja,
            lambda,
            ..
        } = f;
        let n = tilted.len();
        let mut g1 = vec![0.0; n + 1];
        let mut g2 = vec![0.0; n + 1];
        let (mut s1, mut c1, mut s2, mut c2) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        // e^{Tc − λS_i} and e^{−ih} by a recurrence from an exact exp every 64 knots (relative
        // error below 130u, inside the allowance of `delta`).
        let (step_t, step_2) = ((lambda * h).exp(), h.exp());
        let (mut ft, mut f2) = (0.0f64, 0.0f64);
        let mut under = None;
        for i in (0..n).rev() {
            let s = base + (ja + i as i64) as f64 * h;
            if (n - 1 - i) % 64 == 0 {
                let x = tc - lambda * s;
                if x > 700.0 && s >= f.floor {
                    return Err(budget_error("the tilt overflows"));
                }
                ft = x.min(700.0).exp();
                f2 = (-(i as f64) * h).exp();
            } else {
                ft *= step_t;
                f2 *= step_2;
            }
            // Losses below the floor never carry weight where the composite is read.
            let m = if s < f.floor { 0.0 } else { tilted[i] * ft };
            let m2 = m * f2;
            if m != 0.0 && m2.abs() < f64::MIN_POSITIVE && under.is_none() {
                under = Some(i);
            }
            two_sum_acc(&mut s1, &mut c1, m);
            two_sum_acc(&mut s2, &mut c2, m2);
            g1[i] = s1 + c1;
            g2[i] = s2 + c2;
        }
        Ok(Composite {
            f,
            g1,
            g2,
            tc,
            outside,
            inf,
            gh: Vec::new(),
            under,
        })
    }

    /// A composition read for 1 − δ(ε) = Σ_{S≤ε} m_S + e^ε·Σ_{S>ε} m_S e^{−S}
    /// (docs/accounting.md#discrete-complement), tilted by λ ∈ (−1, 0): with t_i the tilted
    /// masses and S_i = base + (ja + i)h, `g1` holds B_i = Σ_{j<i} t_j e^{λ(S_i − S_j)} and `g2`
    /// A_i = Σ_{j≥i} t_j e^{−(1+λ)(S_j − S_i)}, both sums of decaying weights (no overflow at
    /// any tilt or window), so that at ε with S_{k−1} ≤ ε < S_k and d = S_k − ε,
    /// 1 − δ(ε) = e^{Tc − λε}·(e^{−λd}·B_k + e^{−(1+λ)d}·A_k). Each is a recursion
    /// (B_{i+1} = r(B_i + t_i)), whose rounding perturbs a term m knots away by at most
    /// (1 + 2u)^{3(m+1)} − 1 ≤ 6.1u(m + 1): with s = (r(1 + 2u))^{1/2}, (m + 1)r^m ≤
    /// K·s^m, K = 1 + 1/(e·s·ln(1/s)), so the error is at most 6.1uK times the same sums of |t|
    /// at the rate s, kept in `gh` (both sides added).
    fn new_complement(tilted: &[f64], f: Frame, tc: f64, outside: f64, inf: f64) -> Self {
        let n = tilted.len();
        let (rb, ra) = f.complement_rates();
        let (sb, sa) = (half_rate(rb), half_rate(ra));
        let mut g1 = vec![0.0; n + 1];
        let mut g2 = vec![0.0; n + 1];
        let mut gh = vec![0.0; n + 1];
        for i in (0..n).rev() {
            g2[i] = tilted[i] + ra * g2[i + 1];
            gh[i] = tilted[i].abs() + sa * gh[i + 1];
        }
        let mut bh = 0.0f64;
        for i in 0..n {
            g1[i + 1] = rb * (g1[i] + tilted[i]);
            bh = sb * (bh + tilted[i].abs());
            gh[i + 1] += bh;
        }
        Composite {
            f,
            g1,
            g2,
            tc,
            outside,
            inf,
            gh,
            under: None,
        }
    }

    /// The rounding factor of a complement's recursions, 6.1uK ([`Composite::new_complement`]),
    /// at the slower of its two rates, doubled for the rounding of `gh` itself.
    fn complement_round(&self) -> f64 {
        // K = 1 + 1/(e·s·ln(1/s)); no bound (∞) if a rate rounds to 1 (λh or (1 + λ)h below u).
        let k = |r: f64| {
            let s = half_rate(r);
            if s < 1.0 {
                1.0 + 1.0 / (std::f64::consts::E * s * -(s.ln()))
            } else {
                f64::INFINITY
            }
        };
        let (rb, ra) = self.f.complement_rates();
        2.0 * 6.1 * U * k(rb).max(k(ra))
    }

    /// A complement's terms at e: (ln of e^{Tc − λe}, the bracket's two terms, the rounding
    /// weights) with k the first knot above e.
    fn complement_terms(&self, e: f64) -> (usize, f64, f64, f64, f64) {
        let f = self.f;
        let (k, _) = self.at(e);
        let sk = f.base + (f.ja + k as i64) as f64 * f.h;
        let d = sk - e;
        let wb = (-f.lambda * d).exp();
        let wa = (-(1.0 + f.lambda) * d).exp();
        let x = self.tc - f.lambda * e;
        (
            k,
            x,
            wb * self.g1[k],
            wa * self.g2[k],
            wb.max(1.0) * self.gh[k],
        )
    }

    /// The approximate 1 − δ at ε (no error terms): for locating ε(δ).
    fn complement_approx(&self, e: f64) -> f64 {
        let (_, x, b, a, _) = self.complement_terms(e);
        x.exp() * (b + a)
    }

    /// d(1 − δ)/dε of the approximate 1 − δ at ε: e^ε·Σ_{S>ε} m_S e^{−S}.
    fn complement_slope(&self, e: f64) -> f64 {
        let (_, x, _, a, _) = self.complement_terms(e);
        x.exp() * a
    }

    /// 1 − δ of the pair at ε with every error term: rounded up (`upper`, the raised dominated
    /// pair read at ε + T·τ, the mass at −∞ added) or down (the lowered dominating pair read at
    /// ε − T·τ). Each unit of tilted mass weighs at most e^{Tc − λε} in 1 − δ (both weights are
    /// at most 1), so the window's outside mass and the FFT's errors scale by it: the knots below
    /// ε by e^{λ(ε − S)} ≤ r_b^{j}, above by e^{−(1+λ)(S − ε)} ≤ r_a^{j} (j counted from ε).
    fn complement(&self, eps: f64, upper: bool) -> f64 {
        let f = self.f;
        let e = if upper { eps + f.shift } else { eps - f.shift };
        let (k, x, b, a, gh) = self.complement_terms(e);
        let v = b + a;
        let round = (self.complement_round() + 256.0 * U + f.tilt_rel) * gh + 1e-300;
        let below = k as f64;
        let above = (self.n() - k) as f64;
        let one_minus = |y: f64| -y.exp_m1();
        let (qb, qa) = (
            one_minus(f.lambda * f.h),
            one_minus(-(1.0 + f.lambda) * f.h),
        );
        let (qb2, qa2) = (
            one_minus(2.0 * f.lambda * f.h),
            one_minus(-2.0 * (1.0 + f.lambda) * f.h),
        );
        let w1 = below.min(1.0 / qb) + above.min(1.0 / qa);
        let w2 = (below.min(1.0 / qb2) + above.min(1.0 / qa2)).sqrt();
        let fft = (f.fft_err.each * w1).min(f.fft_err.l2 * w2) * (1.0 + 8.0 * U);
        let err = fft + self.outside + round;
        let scale = x.exp();
        let rel = 4.0 * U * (x.abs() + 2.0);
        if upper {
            ((scale * (v + err) + self.inf) * (1.0 + rel + 8.0 * U)).min(1.0)
        } else {
            (scale * (v - err) * (1.0 - rel - 8.0 * U)).max(0.0)
        }
    }

    /// An end of the ε(δ) bracket near δ = 1 from a complement, γ = 1 − δ: the lowered pair's
    /// ε with 1 − δ_lo(ε) ≥ γ (the smallest found: ε(δ) is at most it), the raised pair's ε with
    /// 1 − δ_hi(ε) ≤ γ (the largest found, 0 when none: ε(δ) is at least it). As
    /// [`Composite::eps`]: from the root of the approximate value, stepping outward until the
    /// bound holds, then bisecting back.
    fn complement_eps(&self, gamma: f64, upper: bool) -> f64 {
        let top = self.f.base + (self.f.ja + self.n() as i64) as f64 * self.f.h;
        // `upper` is the ε bracket's upper end, from the lowered pair (1 − δ rounded down).
        let ok = |e: f64| {
            if upper {
                self.complement(e, false) >= gamma
            } else {
                self.complement(e, true) <= gamma
            }
        };
        eps_end(top, upper, |e| self.complement_approx(e) >= gamma, ok)
    }

    fn n(&self) -> usize {
        self.g1.len() - 1
    }

    /// |dδ/dε| of the approximate δ at ε: e^{ε − ja·h}·g2.
    fn slope(&self, eps: f64) -> f64 {
        let (k, f) = self.at(eps);
        times(f, self.g2[k])
    }

    /// The approximate δ at ε (no error terms): for locating ε(δ).
    fn approx(&self, eps: f64) -> f64 {
        let (k, f) = self.at(eps);
        self.g1[k] - times(f, self.g2[k])
    }

    /// First index with loss > e, and e^{e − ja·h}.
    fn at(&self, e: f64) -> (usize, f64) {
        let x = (e - self.f.base) / self.f.h - self.f.ja as f64;
        let k = if x < 0.0 {
            0
        } else {
            ((x.floor() as usize) + 1).min(self.n())
        };
        (k, (e - self.f.base - self.f.ja as f64 * self.f.h).exp())
    }

    /// δ of the pair at ε, rounded up (`upper`) or down, with every error term.
    fn delta(&self, eps: f64, upper: bool) -> f64 {
        let e = if upper {
            eps - self.f.shift
        } else {
            eps + self.f.shift
        };
        if e < self.f.floor {
            return if upper { 1.0 } else { 0.0 };
        }
        let (k, f) = self.at(e);
        let (g1, g2) = (self.g1[k], self.g2[k]);
        // e^{e − ja·h} beyond a double (a read more than 709 loss units above the window's first
        // knot, where the terms of g2 have underflowed): no bound from this composition.
        if !f.is_finite() {
            return if upper { 1.0 } else { 0.0 };
        }
        // δ = Σ_{i≥k} m_i (1 − e^{e − (ja+i)h}) = g1 − e^{e − ja·h}·g2.
        let fg2 = times(f, g2);
        let v = g1 - fg2;
        // Terms of g2 below the least normal double lost at most that much each (the sums are
        // of at most n − k of them), scaled by e^{e − ja·h} where read.
        let lost = match self.under {
            Some(u) if u >= k => f * (self.n() - k) as f64 * f64::MIN_POSITIVE,
            _ => 0.0,
        };
        let round = (256.0 * U + self.f.tilt_rel) * (g1.abs() + fg2.abs()) + lost + 1e-300;
        // A tilted error of at most fft_err on the j-th knot beyond e (loss S ∈ (e + jh,
        // e + (j+1)h]) weighs e^{Tc − λS}·(1 − e^{e − S}) in δ once undone, at most
        // e^{Tc − λe}·w_j with w_j = e^{−λjh}·min(1, (j+1)h): over the knots, e^{Tc − λe}·Σ_j w_j
        // (or, by Cauchy–Schwarz with the ℓ2 bound, e^{Tc − λe}·‖Δ‖₂·(Σ_j w_j²)^½).
        let err = self.error(e, k);
        if upper {
            (v + round + err + self.inf).min(1.0)
        } else {
            (v - round - err).max(0.0)
        }
    }

    /// The FFT's and the window's error in δ at e (knot k the first beyond it), untilted.
    fn error(&self, e: f64, k: usize) -> f64 {
        let count = (self.n() - k) as f64;
        let (w1, w2) = knot_weights(self.f.lambda, self.f.h, count);
        let fft = (self.f.fft_err.each * w1).min(self.f.fft_err.l2 * w2);
        let scale = (self.tc - self.f.lambda * e).exp();
        scale * (fft + self.outside) * (1.0 + 1e-12)
    }

    /// The error term of the upper end of δ at ε ([`Composite::delta`]), for choosing blocks.
    fn error_at(&self, eps: f64) -> f64 {
        let e = eps - self.f.shift;
        if e < self.f.floor {
            return f64::INFINITY;
        }
        let (k, _) = self.at(e);
        self.error(e, k)
    }

    /// An ε above this composition's window (one loss unit past its last knot): the searches'
    /// upper limit.
    fn top(&self) -> f64 {
        self.f.base + (self.f.ja + self.n() as i64) as f64 * self.f.h + 1.0
    }

    /// An end of the ε(δ) bracket from this pair: the upper pair's ε with δ_hi(ε) ≤ δ (the
    /// smallest found), the lower pair's ε with δ_lo(ε) ≥ δ (the largest found; 0 when none).
    /// The search starts at the root of the approximate δ and steps outward, so the answer's
    /// property is checked where it is claimed whether or not the bound is monotone.
    fn eps(&self, delta: f64, upper: bool) -> f64 {
        let at = |e: f64| self.delta(e, upper);
        eps_read(self.top(), delta, upper, at, |e| self.approx(e))
    }
}

impl Frame {
    /// A complement's decay rates per knot, below ε and above it: e^{λh} and e^{−(1+λ)h}
    /// ([`Composite::new_complement`]).
    fn complement_rates(&self) -> (f64, f64) {
        (
            (self.lambda * self.h).exp(),
            (-(1.0 + self.lambda) * self.h).exp(),
        )
    }
}

/// The rate s = (r(1 + 2u))^{1/2} of a complement's rounding sums ([`Composite::new_complement`]),
/// at most 1.
fn half_rate(r: f64) -> f64 {
    (r * (1.0 + 2.0 * U)).sqrt().min(1.0)
}

/// An end of an ε(δ) bracket on [0, top] ([`Composite::eps`], [`Composite::complement_eps`]):
/// from the root e0 of an approximate monotone reading (`past(e)`: the reading at e is past the
/// target, false below the root), step outward until the certified bound holds (`ok`), then
/// bisect back, so the answer's property is checked where it is claimed whether or not the bound
/// is monotone: the upper end is the smallest ε found with `ok` (∞ when none within `top`), the
/// lower end the largest (0 when none).
fn eps_end(top: f64, upper: bool, past: impl Fn(f64) -> bool, ok: impl Fn(f64) -> bool) -> f64 {
    let (mut a, mut b) = (0.0f64, top.max(0.0));
    if past(0.0) {
        b = 0.0;
    }
    for _ in 0..200 {
        let m = 0.5 * (a + b);
        if m <= a || m >= b {
            break;
        }
        if past(m) {
            b = m;
        } else {
            a = m;
        }
    }
    let e0 = b;
    // ε = 0 exactly when the bound already holds there (the bisection below only approaches
    // it: q = 0.001, σ = 0.4, T = 1000, δ = 0.5 read [0, 8.7·10⁻³⁴], 0 digits).
    if upper && e0 == 0.0 && ok(0.0) {
        return 0.0;
    }
    let mut step = 1e-9 * e0.max(1e-6);
    let (mut good, mut bad) = (f64::NAN, e0);
    for _ in 0..80 {
        let e = if upper { e0 + step } else { e0 - step };
        if !upper && e <= 0.0 {
            if ok(0.0) {
                good = 0.0;
            }
            break;
        }
        if upper && e > top {
            break;
        }
        if ok(e) {
            good = e;
            break;
        }
        bad = e;
        step *= 2.0;
    }
    if good.is_nan() {
        return if upper { f64::INFINITY } else { 0.0 };
    }
    for _ in 0..60 {
        let m = 0.5 * (good + bad);
        if m == good || m == bad {
            break;
        }
        if ok(m) {
            good = m;
        } else {
            bad = m;
        }
    }
    good
}

/// An end of an ε(δ) bracket from a δ reading `at` (the upper end's δ_hi or the lower end's
/// δ_lo) and its approximate value ([`eps_end`]): upper, the least ε found with δ_hi(ε) ≤ δ;
/// lower, the greatest with δ_lo(ε) ≥ δ.
fn eps_read(
    top: f64,
    delta: f64,
    upper: bool,
    at: impl Fn(f64) -> f64,
    approx: impl Fn(f64) -> f64,
) -> f64 {
    let ok = |e: f64| {
        let v = at(e);
        if upper {
            v <= delta
        } else {
            v >= delta
        }
    };
    eps_end(top, upper, |e| approx(e) <= delta, ok)
}

/// f·g for a read's factor f = e^{e − ja·h} and a sum g of g2: 0 when g is (an underflowed
/// sum: its loss is bounded where δ is read, [`Composite::delta`]), not NaN where f overflows.
fn times(f: f64, g: f64) -> f64 {
    if g == 0.0 {
        0.0
    } else {
        f * g
    }
}

/// Neumaier's compensated accumulation of x into (s, c).
fn two_sum_acc(s: &mut f64, c: &mut f64, x: f64) {
    let t = *s + x;
    if s.abs() >= x.abs() {
        *c += (*s - t) + x;
    } else {
        *c += (x - t) + *s;
    }
    *s = t;
}

/// ln Σ m_k e^{λ h k'} over the knots (k' = k for `high`, n − k otherwise), rounded up: in
/// blocks of 64 knots, each summed by Horner's rule in ρ = e^{−λh} from its largest exponent
/// (positive terms: relative error below 2·64·u plus ρ's, covered by the margin), one exact
/// exp per block. Taking each block at its largest exponent instead would overstate a T-fold
/// bound by T·64·λh, which at T = 10⁴ is hundreds of thousands of knots of window.
fn ln_mgf_blocks(m: &[f64], lambda_h: f64, high: bool) -> f64 {
    let n = m.len() - 1;
    let rho = (-lambda_h).exp();
    let mut terms = Vec::with_capacity(m.len() / 64 + 1);
    for (b, chunk) in m.chunks(64).enumerate() {
        let mut acc = 0.0f64;
        let k = if high {
            for &x in chunk {
                acc = acc * rho + x.max(0.0);
            }
            (b * 64 + chunk.len() - 1) as f64
        } else {
            for &x in chunk.iter().rev() {
                acc = acc * rho + x.max(0.0);
            }
            (n - b * 64) as f64
        };
        if acc > 0.0 {
            terms.push((acc * (1.0 + 512.0 * U)).ln() + lambda_h * k);
        }
    }
    crate::numeric::f64s::log_sum_exp(&terms) + 16.0 * U * (1.0 + lambda_h * n as f64)
}

/// Ratio of the tilts' grids (choose_tilt's and the blocks'); [`refine_tilt`] searches between
/// a grid's best and its neighbours.
const TILT_GRID: f64 = 1.2;

/// The minimum of a Chernoff exponent f(λ) (sum of log-MGFs minus λε: convex in λ) between a
/// grid's points: `grid` holds (λ, f(λ)) on a geometric grid of ratio [`TILT_GRID`], `i` its
/// best. Convexity bounds f between grid points from below by the secants of the neighbours
/// (on [λ_{i−1}, λ_i], f lies above the line through λ_{i−2}, λ_{i−1} and above the one through
/// λ_i, λ_{i+1}); when that bound is within ln 2 of the grid's best, the grid's best stands, and
/// otherwise a golden-section search on [λ_{i−1}, λ_{i+1}] (24 steps) finds a better one. Any λ
/// gives a valid bound, so the search only has to find a good one. The grid alone can be far
/// off where T is large: at q = 0.001, σ = 1, T = 100, ε = 30 (the blocks' bound), f changes
/// by 270 nats between grid points 11.87 and 14.24, and the grid's best was 10¹⁴ above the
/// minimum (at λ ≈ 13.34).
fn refine_tilt(f: impl Fn(f64) -> f64, grid: &[(f64, f64)], i: usize) -> (f64, f64) {
    let (lambda, value) = grid[i];
    let at = |k: usize| grid.get(k).copied().filter(|p| p.1.is_finite());
    // The line through two grid points, at x.
    let line = |p: (f64, f64), r: (f64, f64), x: f64| p.1 + (r.1 - p.1) / (r.0 - p.0) * (x - p.0);
    // The least of max(line through l, line through r) on [xa, xb]: at an end or where the
    // lines cross (both are straight, their max is convex).
    let floor_between = |xa: f64, xb: f64, l: [(f64, f64); 2], r: [(f64, f64); 2]| {
        let g = |x: f64| line(l[0], l[1], x).max(line(r[0], r[1], x));
        let mut m = g(xa).min(g(xb));
        let (sl, sr) = (
            (l[1].1 - l[0].1) / (l[1].0 - l[0].0),
            (r[1].1 - r[0].1) / (r[1].0 - r[0].0),
        );
        if sr != sl {
            let x = (line(l[0], l[1], 0.0) - line(r[0], r[1], 0.0)) / (sr - sl);
            if x > xa && x < xb {
                m = m.min(g(x));
            }
        }
        m
    };
    let near = (
        i.checked_sub(2).and_then(at),
        i.checked_sub(1).and_then(at),
        at(i + 1),
        at(i + 2),
    );
    let floor = match near {
        (Some(a), Some(b), Some(d), Some(e)) => {
            let c = grid[i];
            floor_between(b.0, c.0, [a, b], [c, d]).min(floor_between(c.0, d.0, [b, c], [d, e]))
        }
        _ => f64::NEG_INFINITY,
    };
    if floor >= value - 2f64.ln() {
        return (lambda, value);
    }
    let g = 0.5 * (5f64.sqrt() - 1.0);
    let (mut a, mut b) = (
        i.checked_sub(1).map_or(lambda, |k| grid[k].0),
        grid.get(i + 1).map_or(lambda, |p| p.0),
    );
    let mut best = (lambda, value);
    let mut keep = |l: f64, v: f64| {
        if v < best.1 {
            best = (l, v);
        }
    };
    let (mut c, mut d) = (b - g * (b - a), a + g * (b - a));
    let (mut fc, mut fd) = (f(c), f(d));
    keep(c, fc);
    keep(d, fd);
    for _ in 0..24 {
        // Toward the smaller value; on a tie, or past an overflow (+∞, NaN), toward λ/r.
        if fd.partial_cmp(&fc) != Some(std::cmp::Ordering::Less) {
            b = d;
            (d, fd) = (c, fc);
            c = b - g * (b - a);
            fc = f(c);
            keep(c, fc);
        } else {
            a = c;
            (c, fc) = (d, fd);
            d = a + g * (b - a);
            fd = f(d);
            keep(d, fd);
        }
    }
    best
}

/// A window [lo, hi] of knot indices of the T-fold sum Σk_i (k counted from the step's lowest
/// knot, so 0 ≤ Σk ≤ T·n) outside which the sum has mass at most `budget`: half above hi and
/// half below lo, each by a Chernoff bound (P(Σk ≥ W) ≤ E[e^{λhΣk}]e^{−λhW}, and the same for
/// T·n − Σk), the best over λ on a doubling grid. Both ends matter: the sum's mass sits far from
/// either end of its range when T is large (at q = 10⁻³, T = 10⁴, the range is 10 loss units
/// on one side of a bulk 0.13 wide).
fn window(m: &[f64], h: f64, t: u64, budget: f64) -> (f64, f64) {
    let n = m.len() - 1;
    window_of(|lh, high| ln_mgf_blocks(m, lh, high), n, h, t, budget)
}

/// [`window`] from a bound on one step's log-MGF in knot units, `ln_mgf(λh, high)`: ln E e^{λhk}
/// (`high`) or ln E e^{λh(n − k)}, for n the step's last knot.
fn window_of(
    ln_mgf: impl Fn(f64, bool) -> f64,
    n: usize,
    h: f64,
    t: u64,
    budget: f64,
) -> (f64, f64) {
    let n = n as f64;
    let tn = t as f64 * n;
    let (mut hi, mut below) = (tn, tn);
    let ln_b = (0.5 * budget).ln();
    let mut lambda = 0.25f64;
    while lambda <= 4096.0 {
        let lh = lambda * h;
        let w = (t as f64 * ln_mgf(lh, true) - ln_b) / lh;
        if w.is_finite() {
            hi = hi.min(w.ceil());
        }
        let w = (t as f64 * ln_mgf(lh, false) - ln_b) / lh;
        if w.is_finite() {
            below = below.min(w.ceil());
        }
        lambda *= 2.0;
    }
    ((tn - below).max(0.0).floor(), hi.max(0.0))
}

/// Both pairs composed T times: one composition (upper, lower), or, for a δ(ε) pass split by
/// the largest step's block ([`compose_blocks`]), one per composed block, with the bounded
/// blocks' Chernoff bounds (and the upper pair's mass at +∞) in `extra`.
struct Both {
    parts: Vec<(Composite, Composite)>,
    /// Added to the upper end of δ(ε) only.
    extra: f64,
    /// The longest window, in knots, among the compositions the bracket rests on (a block
    /// composed and then halved does not count: the next pass's step is limited by what the
    /// result needed): the next pass's step may shrink until it reaches the FFT cap
    /// ([`refine`]).
    need: f64,
    /// The FFT error bound over its prediction, for the next pass's choice of tilt.
    calib: f64,
    /// The tilt was the strongest the pass could take (λ*, or the last before the cap).
    tilt_maxed: bool,
    /// A fine core could be cut for this pass ([`core_knot`]): the next pass may switch to it.
    core_fits: bool,
    /// The finest step at which a core would still fit at this pass's tilt ([`core_knot`]).
    core_h: f64,
    /// Compositions of this pass made with the fine core.
    core_used: usize,
    /// The compositions with a step above the law's ceiling, in closed form: the parts compose
    /// the rest ([`Hits`]).
    hits: Option<Hits>,
}

/// One remove step's mass above its grid's last knot when the law has a ceiling
/// (docs/accounting.md#hits): P- and Q-probabilities (each within [`TAIL_REL`]) and the least
/// loss there.
#[derive(Clone, Copy, Debug)]
struct Hit {
    p: f64,
    q: f64,
    loss: f64,
}

/// The T-fold compositions in which some step is a hit ([`Hit`]), in closed form
/// (docs/accounting.md#hits): P- and Q-probabilities A = 1 − (1 − α_P)^T, B = 1 − (1 − α_Q)^T,
/// each as [lo, hi]. Every step's loss is at least ℓ_min = ln(1 − q), so such a composition's
/// loss is at least ℓ_c + (T − 1)ℓ_min (`valid`): up to that ε their share of δ(ε) is exactly
/// A − e^ε·B, beyond it at most A, and at least A − e^ε·B at every ε. The other compositions
/// are those of the step restricted to the grid, which the pass composes.
#[derive(Clone, Copy, Debug)]
struct Hits {
    a: (f64, f64),
    b: (f64, f64),
    valid: f64,
}

impl Hits {
    fn new(one: &Hit, t: u64, l1q: f64) -> Hits {
        let tf = t as f64;
        // 1 − (1 − m)^T, within a few roundings (each covered by the 10⁻¹² below).
        let some = |m: f64| -(tf * (-m).ln_1p()).exp_m1();
        let pair = |m: f64| {
            (
                some(m * (1.0 - TAIL_REL)) * (1.0 - 1e-12),
                (some((m * (1.0 + TAIL_REL)).min(1.0)) * (1.0 + 1e-12)).min(1.0),
            )
        };
        let bound = one.loss + (tf - 1.0) * l1q;
        Hits {
            a: pair(one.p),
            b: pair(one.q),
            valid: bound - 1e-12 * (one.loss.abs() + tf * l1q.abs()),
        }
    }

    /// Their share of δ at ε, rounded up (`upper`) or down.
    fn delta(&self, eps: f64, upper: bool) -> f64 {
        let e = eps.exp();
        if upper {
            if eps <= self.valid {
                (self.a.1 - e * self.b.0 * (1.0 - 4.0 * U) + 2.0 * U * self.a.1).max(0.0)
            } else {
                self.a.1
            }
        } else {
            (self.a.0 - e * self.b.1 * (1.0 + 4.0 * U) - 2.0 * U * self.a.0).max(0.0)
        }
    }

    /// Their share without error terms (the upper pair's reading beyond `valid` kept smooth:
    /// for locating ε(δ) only).
    fn approx(&self, eps: f64) -> f64 {
        0.5 * (self.a.0 + self.a.1) - eps.exp() * 0.5 * (self.b.0 + self.b.1)
    }

    /// |d/dε| of [`Hits::approx`].
    fn slope(&self, eps: f64) -> f64 {
        eps.exp() * 0.5 * (self.b.0 + self.b.1)
    }
}

impl Both {
    /// The knots this pass composed: its compositions' lengths summed ([`Work`]).
    fn knots(&self) -> f64 {
        self.parts.iter().map(|(u, _)| u.n() as f64).sum()
    }

    /// δ at ε, the upper or lower end: the sum over the parts, with `extra` on the upper end.
    fn delta(&self, eps: f64, upper: bool) -> f64 {
        let pick = |(u, l): (&Composite, &Composite)| {
            if upper {
                u.delta(eps, true)
            } else {
                l.delta(eps, false)
            }
        };
        let v: f64 = self.parts.iter().map(|(u, l)| pick((u, l))).sum::<f64>()
            + self.hits.map_or(0.0, |x| x.delta(eps, upper));
        if upper {
            ((v + self.extra) * (1.0 + 4.0 * U)).min(1.0)
        } else {
            v * (1.0 - 4.0 * U)
        }
    }

    /// The approximate δ at ε of the upper or lower pair (no error terms).
    fn approx(&self, eps: f64, upper: bool) -> f64 {
        let pick = |u: &Composite, l: &Composite| if upper { u.approx(eps) } else { l.approx(eps) };
        self.parts.iter().map(|(u, l)| pick(u, l)).sum::<f64>()
            + self.hits.map_or(0.0, |x| x.approx(eps))
    }

    /// |dδ/dε| of the upper pair's approximate δ at ε.
    fn slope(&self, eps: f64) -> f64 {
        self.parts.iter().map(|(u, _)| u.slope(eps)).sum::<f64>()
            + self.hits.map_or(0.0, |x| x.slope(eps))
    }

    /// An ε above every composition's window: the searches' upper limit.
    fn top(&self) -> f64 {
        self.parts
            .iter()
            .map(|(u, l)| u.top().max(l.top()))
            .fold(0.0, f64::max)
    }

    /// An end of the ε(δ) bracket, as [`Composite::eps`] for the whole pass (its parts and
    /// hits): the upper pair's least ε found with δ_hi(ε) ≤ δ (∞ when none), the lower pair's
    /// greatest with δ_lo(ε) ≥ δ (0 when none).
    fn eps(&self, delta: f64, upper: bool) -> f64 {
        if let ([(u, l)], None) = (&self.parts[..], self.hits) {
            return if upper { u } else { l }.eps(delta, upper);
        }
        let at = |e: f64| self.delta(e, upper);
        eps_read(self.top(), delta, upper, at, |e| self.approx(e, upper))
    }

    /// The one composition of a pass that is not split (ε(δ) passes never are).
    fn single(&self) -> (&Composite, &Composite) {
        let (u, l) = &self.parts[0];
        (u, l)
    }
}

/// An upper bound on r^m for r ≥ 0: exact (powf, rounded up) when r ≥ 1/2, else r⁴·2^{−(m−4)}
/// (cheap; far below the terms that matter).
fn pow_bound(r: f64, m: u64) -> f64 {
    if m <= 4 || r >= 0.5 {
        r.powf(m as f64) * (1.0 + 64.0 * U)
    } else {
        let r2 = r * r;
        r2 * r2 * (0.5f64).powi((m - 4).min(1000) as i32) * (1.0 + 8.0 * U)
    }
}

thread_local! {
    /// FFT plans (and their twiddle tables) kept between passes and queries of one thread.
    static PLANNER: std::cell::RefCell<FftPlanner<f64>> = std::cell::RefCell::new(FftPlanner::new());
}

/// The forward FFT plan of length n (cached per thread). The inverse transforms use it too
/// ([`inverse`]): a plan's twiddles cost as much as a transform to compute, and one direction's
/// table serves both.
fn forward_plan(n: usize) -> std::sync::Arc<dyn rustfft::Fft<f64>> {
    PLANNER.with(|p| p.borrow_mut().plan_fft_forward(n))
}

/// The unnormalised inverse transform by the forward plan: conj(F(conj(y))). Conjugation is
/// exact, so its rounding is the inverse plan's (the same butterflies with conjugate
/// twiddles).
fn inverse(fwd: &dyn rustfft::Fft<f64>, y: &mut [Complex64]) {
    for c in y.iter_mut() {
        c.im = -c.im;
    }
    fwd.process(y);
    for c in y.iter_mut() {
        c.im = -c.im;
    }
}

/// z^t by repeated squaring.
fn cpow(z: Complex64, mut t: u64) -> Complex64 {
    let mut r = Complex64::new(1.0, 0.0);
    let mut b = z;
    while t > 0 {
        if t & 1 == 1 {
            r *= b;
        }
        b *= b;
        t >>= 1;
    }
    r
}

/// Σ_j w_j and (Σ_j w_j²)^½ over at most `count` knots beyond ε, w_j = r^j·min(1, (j+1)h),
/// r = e^{−λh}: the weight of a uniform error per knot beyond ε once the tilt is undone and the
/// knot's factor 1 − e^{ε − S} ≤ min(1, (j+1)h) is applied ([`Composite::delta`]). Each is the
/// least of three bounds: min ≤ 1 (Σr^j = 1/(1 − r), Σr^{2j} = 1/(1 − r²)), min ≤ (j+1)h
/// (Σ(j+1)r^j = 1/(1 − r)², Σ(j+1)²r^{2j} = (1 + r²)/(1 − r²)³, and over n knots at r ≤ 1,
/// hn(n+1)/2 and h(n(n+1)(2n+1)/6)^½), and the count.
fn knot_weights(lambda: f64, h: f64, count: f64) -> (f64, f64) {
    // 1 − r and 1 − r², without cancellation (0 at λ = 0: those bounds are then infinite).
    let (a, b) = (-(-lambda * h).exp_m1(), -(-2.0 * lambda * h).exp_m1());
    let r2 = (-2.0 * lambda * h).exp();
    let n = count;
    let w1 = n.min(h * n * (n + 1.0) / 2.0).min(1.0 / a).min(h / (a * a));
    let w2 = n
        .sqrt()
        .min(h * (n * (n + 1.0) * (2.0 * n + 1.0) / 6.0).sqrt())
        .min((1.0 / b).sqrt())
        .min(h * ((1.0 + r2) / (b * b * b)).sqrt());
    (w1 * (1.0 + 8.0 * U), w2 * (1.0 + 8.0 * U))
}

/// Labels' allowance per step for the rounding of the cell edges (module docs), from the
/// step's law. A cell edge is computed as z = s(σ²·ln1p(e) + ½), e = expm1(s·l)/q, and the cell
/// integrand's d = ℓ(z) − l is measured from it, so a point at the computed edge is labelled at
/// l while its loss is ℓ(z) (y = (2sz − 1)/(2σ²), dℓ/dy = qe^y/(1 − q + qe^y) ∈ [0, 1]); to first
/// order, |ℓ(z) − l| ≤ dℓ/dy·δy with
/// - e's relative error 2u: δy = 2u|e|/(1 + e), and dℓ/dy·δy = 2u|1 − e^{−sl}|, at most
///   2u(1 + q/(1−q)) and at most 2u·expm1(max|ℓ|);
/// - ln1p's, σ²'s and the product's roundings: 3u|y|; adding ½ and z − z_e in d: 2u|z|/σ²;
///   with |y| ≤ (|z| + 1)/σ², together at most 5u(|z| + 2)/σ², each times dℓ/dy at z. With
///   |z| ≤ Z_CUT·σ + 1 and dℓ/dy ≤ 1 that is 5u(Z_CUT·σ + 2)/σ². For a remove step dℓ/dy
///   increases with z and equals c = 1 − (1 − q)e^{−ℓ} at loss ℓ, so it is at most c_top, the
///   edge's c at the knot past the last (whose edge z_top bounds the z above 0), and at most
///   q/(1 − q) at z ≤ 0 (e^y < 1 there): the bound is
///   5u·max(c_top·(z_top + 2), min(c_top, q/(1 − q))·(Z_CUT·σ + 2))/σ² (below a ceiling at
///   σ = 0.4, z_top ≈ 2 instead of Z_CUT·σ + 1 ≈ 16; at a ceiling of 10⁻³, c_top ≈ 10⁻³,
///   docs/accounting.md#hits);
/// - the knot l = o + jh itself, rounded: j·h and the sum each within u, at most u(|jh| + |l|)
///   ≤ 3u·max|ℓ| (o is a knot).
///
/// τ takes each term with a factor of at least 16 (second-order terms, libm's last ulp), plus
/// 10⁻⁹h for the rounding of d within a cell (relative, d ≤ h). Until stop 36 τ was
/// 10⁻¹²(1 + max|ℓ|) + 10⁻⁹h, a margin without a derivation, 30–100× this one; at λ·T·τ it
/// alone kept q = 0.001, σ = 5, T = 1000 from 6 digits (λ ≈ 2000).
fn tau(law: &Law, p: &Pairs) -> f64 {
    let top = p.o + (p.j0 + p.up.len() as i64) as f64 * p.h;
    let bottom = p.o + p.j0 as f64 * p.h;
    let z = Z_CUT * law.sigma + 2.0;
    let ratio = law.q / (1.0 - law.q);
    let most = top.abs().max(bottom.abs());
    let z_term = if law.s > 0.0 {
        match law.edge(top) {
            Some(e) => {
                let c = e.c.clamp(0.0, 1.0);
                (c * (e.z.max(0.0) + 2.0)).max(c.min(ratio) * z)
            }
            None => z,
        }
    } else {
        z
    };
    let e_term = (1.0 + ratio).min(most.exp_m1());
    let terms = e_term + z_term / law.s2 + 3.0 * most;
    128.0 * U * terms + 1e-9 * p.h
}

/// What the pass is for: the tilt is chosen at the query's point.
#[derive(Clone, Copy, Debug)]
enum Query {
    /// δ at this ε, with the error in δ an earlier pass allows.
    Delta(f64, Option<f64>),
    /// ε at this δ, with an estimate of ε from an earlier pass and the error in δ it allows
    /// there.
    Eps(f64, Option<(f64, f64)>),
    /// ε at δ near 1, read from 1 − δ(ε) ([`Composite::complement`]): γ = 1 − δ, and an
    /// estimate of ε from an earlier pass with the error in 1 − δ it allows there.
    Complement(f64, Option<(f64, f64)>),
}

/// The tilt λ ∈ (−1, 0) of a complement pass (docs/accounting.md#discrete-complement):
/// 1 − δ(ε) = E_P[min(1, e^{ε−L})] ≤ e^{θε}·E_P[e^{−θL}] for θ ∈ [0, 1], so with λ = −θ,
/// ln(1 − δ(ε)) ≤ T·L(λ) − λε and ε(δ) ≥ (T·L(λ) − ln γ)/λ. Without an estimate, λ maximises
/// that lower bound, and the ε it gives is the reference; with one, λ is the saddle of the
/// Chernoff exponent there (min T·L(λ) − λε), which centres the tilted composition on it. A
/// grid of 41 points, then [`refine_tilt`] (any λ in (−1, 0) gives a valid bracket, so the
/// search only has to find a good one).
fn complement_tilt(p: &Pairs, t: u64, gamma: f64, guess: Option<f64>) -> Tilt {
    let base = p.o + p.j0 as f64 * p.h;
    let tf = t as f64;
    let tl = |lambda: f64| tf * (ln_mgf_blocks(&p.up, lambda * p.h, true) + lambda * base);
    let score = |lambda: f64| match guess {
        Some(e) => tl(lambda) - lambda * e,
        None => (tl(lambda) - gamma.ln()) / -lambda,
    };
    // θ = −λ on a logistic grid, 4.5·10⁻⁵ to 1 − 4.5·10⁻⁵ (a large ε wants θ near 0).
    let grid: Vec<(f64, f64)> = (-20..=20)
        .map(|k| {
            let lambda = -1.0 / (1.0 + (-0.5 * k as f64).exp());
            (lambda, score(lambda))
        })
        .collect();
    let mut i = 0;
    for (k, g) in grid.iter().enumerate() {
        if g.1.is_finite() && (g.1 < grid[i].1 || !grid[i].1.is_finite()) {
            i = k;
        }
    }
    let (lambda, value) = refine_tilt(score, &grid, i);
    let eps = match guess {
        Some(e) => e,
        None => (-value).max(0.0),
    };
    Tilt {
        lambda,
        grid_lambda: lambda,
        grid_score: value,
        eps,
        split: None,
        ln_bound: f64::NAN,
    }
}

/// How far below its ε a δ(ε) pass keeps the composed losses: ½, or less under a strong tilt,
/// so that undoing it there costs at most e^{FLOOR_REACH} over the Chernoff factor at ε.
fn floor_margin(lambda: f64) -> f64 {
    if lambda > 0.0 {
        (FLOOR_REACH / lambda).min(0.5)
    } else {
        0.5
    }
}

/// The floor of a pass tilted by λ for ε = `e` ([`Frame::floor`]): [`floor_margin`] below it, or
/// −1 if lower. A δ(ε) pass reads at its ε; an ε(δ) pass with the last pass's estimate e (a
/// little below its lower end, [`eps_passes`]) reads its ends at or above e − Tτ, and a read
/// below the floor only gets the trivial bounds, so an end there is only wider. Until stop 55
/// every ε(δ) pass had the floor at −1, which held λ(ε + 1) ≤ 600: at q = 10⁻⁶, σ = 1, T = 10⁴
/// (ε ≈ 1.4·10⁻⁴, Chernoff's λ near 3000) the tilt stayed at 352 and the FFT's rounding,
/// weighted 1/(λ²h) over the knots beyond ε, was two thirds of the width at every step.
fn floor_at(e: f64, lambda: f64) -> f64 {
    (e - floor_margin(lambda)).max(-1.0)
}

/// See [`floor_margin`].
const FLOOR_REACH: f64 = 64.0;

/// The tilt λ ≥ 0 at which the Chernoff bound of the upper pair's T-fold sum is smallest at the
/// query (δ(ε): min T·L(λ) − λε; ε(δ): min (T·L(λ) − ln δ)/λ, L the log-MGF of one step), and
/// the ε it refers to. The block bound of L is enough to choose it.
///
/// With a `split` s (δ(ε) only, see [`excess_split`]), the excess over the all-bulk part is
/// scored too, by its bound ln T + L_a(λ) + (T − 1)·L(λ) − λε (L_a the log-MGF of the knots
/// above s; (a + b)^T − b^T ≤ T·a·(a + b)^{T−1}); when its best is below the whole sum's by more
/// than a factor 10 (or `force_split`: an earlier pass found one tilt short), the split is kept
/// and λ is its minimiser, else it is dropped.
fn choose_tilt(p: &Pairs, t: u64, query: Query, split: Option<usize>, force_split: bool) -> Tilt {
    let base = p.o + p.j0 as f64 * p.h;
    let tf = t as f64;
    let mut best = (0.0, f64::INFINITY, 0.0);
    let mut best_x = (0.0, f64::INFINITY);
    // (λ, score) and (λ, excess bound) on the grid, for refine_tilt.
    let (mut grid, mut grid_x) = (Vec::new(), Vec::new());
    let mut lambda = 0.05f64;
    while lambda < 3000.0 {
        let l = ln_mgf_blocks(&p.up, lambda * p.h, true) + lambda * base;
        let tl = tf * l;
        let (score, eps) = match query {
            Query::Delta(e, _) => (tl - lambda * e, e),
            // (A complement pass chooses its tilt by [`complement_tilt`].)
            Query::Eps(d, guess) | Query::Complement(d, guess) => {
                let e = (tl - d.ln()) / lambda;
                (e, guess.map_or(e, |g| g.0))
            }
        };
        grid.push((lambda, score));
        if score.is_finite() && score < best.1 {
            best = (lambda, score, eps);
        }
        if let (Some(s), Query::Delta(e, _)) = (split, query) {
            let la = ln_mgf_blocks(&p.up[s + 1..], lambda * p.h, true)
                + lambda * (base + (s + 1) as f64 * p.h);
            let x = tf.ln() + la + (tf - 1.0) * l - lambda * e;
            grid_x.push((lambda, x));
            if x.is_finite() && x < best_x.1 {
                best_x = (lambda, x);
            }
        }
        lambda *= TILT_GRID;
    }
    // The grid is coarse where T·L(λ) is steep: refine both minima (convex in λ).
    let index = |g: &[(f64, f64)], l: f64| g.iter().position(|p| p.0 == l);
    if let (Some(s), Query::Delta(e, _)) = (split, query) {
        if let Some(i) = index(&grid_x, best_x.0).filter(|_| best_x.1.is_finite()) {
            let x = |lambda: f64| {
                let l = ln_mgf_blocks(&p.up, lambda * p.h, true) + lambda * base;
                let la = ln_mgf_blocks(&p.up[s + 1..], lambda * p.h, true)
                    + lambda * (base + (s + 1) as f64 * p.h);
                tf.ln() + la + (tf - 1.0) * l - lambda * e
            };
            best_x = refine_tilt(x, &grid_x, i);
        }
    }
    let (grid_lambda, grid_score) = (best.0, best.1);
    if let Query::Delta(e, _) = query {
        if let Some(i) = index(&grid, best.0).filter(|_| best.1.is_finite()) {
            let score = |lambda: f64| {
                tf * (ln_mgf_blocks(&p.up, lambda * p.h, true) + lambda * base) - lambda * e
            };
            let (l, v) = refine_tilt(score, &grid, i);
            best = (l, v, e);
        }
    }
    let eps = best.2.max(0.0);
    if split.is_some() && (force_split || best_x.1 < best.1 - 10f64.ln()) {
        return Tilt {
            lambda: best_x.0,
            grid_lambda: best_x.0,
            grid_score: best_x.1,
            eps,
            split,
            ln_bound: best_x.1,
        };
    }
    Tilt {
        lambda: best.0,
        grid_lambda,
        grid_score,
        eps,
        split: None,
        ln_bound: best.1,
    }
}

/// A pass's tilt: λ, the ε it refers to, the split kept (if any) and the log of the Chernoff
/// bound it minimises (for δ(ε), an upper bound on the pair's δ: a scale before any pass).
#[derive(Clone, Copy, Debug)]
struct Tilt {
    lambda: f64,
    /// The whole sum's best tilt on the grid, before [`refine_tilt`], and its bound's log (see
    /// [`compose`]); with a split, the excess's refined ones (blocks choose their own tilts).
    grid_lambda: f64,
    grid_score: f64,
    eps: f64,
    split: Option<usize>,
    ln_bound: f64,
}

/// The split knot s of a δ(ε) pass: the highest knot with T·ℓ_s at least one knot below
/// ε − T·τ, so that the all-bulk part b^{*T} (b: the knots ≤ s of either pair) has no mass
/// beyond the ε at which either pair's δ is read, and δ is the excess's alone. None when no
/// knot is that low or every knot is.
fn excess_split(p: &Pairs, t: u64, query: Query) -> Option<usize> {
    let Query::Delta(e, _) = query else {
        return None;
    };
    let tf = t as f64;
    let x = ((e - tf * p.tau) / tf - p.o) / p.h - p.j0 as f64;
    if !x.is_finite() || x < 1.0 {
        return None;
    }
    let s = (x.floor() - 1.0).min(usize::MAX as f64 / 2.0) as usize;
    (s + 1 < p.up.len()).then_some(s)
}

/// The tilted copy of a pair's masses, x_k e^{λℓ_k − c} with c = ln Σ x_k e^{λℓ_k}, and c.
fn tilt(m: &[f64], o: f64, j0: i64, h: f64, lambda: f64) -> (Vec<f64>, f64) {
    let ex: Vec<f64> = m
        .iter()
        .enumerate()
        .map(|(k, &x)| {
            if x > 0.0 {
                x.ln() + lambda * (o + (j0 + k as i64) as f64 * h)
            } else {
                f64::NEG_INFINITY
            }
        })
        .collect();
    let c = crate::numeric::f64s::log_sum_exp(&ex);
    (ex.iter().map(|&v| (v - c).exp()).collect(), c)
}

/// The weakest tilt among fractions of λ* whose predicted FFT error at ε_ref is within what
/// the query allows (a tilt amplifies the mass wrapped around the window by e^{λNh}, so the
/// window grows with λ), its predicted componentwise error before calibration, and whether it
/// is the strongest the pass may take (λ*, or none was predicted to suffice).
fn pick_tilt(
    p: &Pairs,
    t: u64,
    budget: f64,
    query: Query,
    calib: f64,
    lstar: f64,
    eps_ref: f64,
) -> (f64, f64, bool) {
    let n = p.up.len() - 1;
    let tf = t as f64;
    let gamma = 8.0 * f64::from(MAX_LOG2) * U;
    // The candidates are judged on the upper pair in blocks of 64 knots (mass at the block's
    // middle loss): a prediction only.
    let blocks: Vec<(f64, f64)> =
        p.up.chunks(64)
            .enumerate()
            .map(|(b, c)| {
                let l = (b * 64) as f64 * p.h + 0.5 * (c.len() - 1) as f64 * p.h;
                (c.iter().sum::<f64>(), l)
            })
            .filter(|&(m, _)| m > 0.0)
            .collect();
    let allowed = match query {
        Query::Eps(_, Some((_, tol))) | Query::Delta(_, Some(tol)) => tol,
        _ => 100.0 * budget,
    };
    let base = p.o + p.j0 as f64 * p.h;
    // The untilted step's mean and sd: its bulk is within 20 sd of the mean.
    let (w0, m0, v0) = blocks.iter().fold((0.0, 0.0, 0.0), |(w, a, b), &(m, l)| {
        (w + m, a + m * l, b + m * l * l)
    });
    let (m0, s0) = (
        m0 / w0,
        ((v0 / w0) - (m0 / w0).powi(2)).max(0.0).sqrt().max(p.h),
    );
    let bulk = |l: f64| (l - m0).abs() <= 20.0 * s0;
    let mut pick = (0.0, f64::NAN, false);
    for f in [0.0, 1.0 / 16.0, 1.0 / 8.0, 0.25, 0.375, 0.5, 0.75, 1.0] {
        let lambda = lstar * f;
        let ex: Vec<f64> = blocks.iter().map(|&(m, l)| m.ln() + lambda * l).collect();
        let c = crate::numeric::f64s::log_sum_exp(&ex);
        let ln_scale = tf * (c + lambda * base) - lambda * eps_ref;
        // Undoing the tilt multiplies by e^{Tc − λS} for S above the floor: keep it finite.
        let reach = match query {
            Query::Delta(e, _) | Query::Eps(_, Some((e, _))) => {
                ln_scale + lambda * (eps_ref - floor_at(e, lambda))
            }
            Query::Eps(..) | Query::Complement(..) => lambda * (eps_ref + 1.0),
        };
        if reach > 600.0 {
            break;
        }
        // The spread of the tilted step's bulk: a strong tilt can put most of the tilted mass
        // in the far tail, which widens the law without making |X_k| any smaller where the bulk
        // keeps it near 1.
        let (m0b, m1, m2) = blocks.iter().zip(&ex).filter(|(&(_, l), _)| bulk(l)).fold(
            (0.0, 0.0, 0.0),
            |(w, a, b), (&(_, l), &e)| {
                let x = (e - c).exp();
                (w + x, a + x * l, b + x * l * l)
            },
        );
        let (m1, m2) = (m1 / m0b.max(1e-300), m2 / m0b.max(1e-300));
        // Predicted componentwise FFT error (see below): the mean of |X_k|^{T−1} is about
        // h/(√(2π)·sd) for the T-fold sum's sd (a Gaussian model of the tilted step's bulk).
        let sd = (tf * (m2 - m1 * m1).max(0.0)).sqrt().max(p.h);
        let e_c = 4.0 * tf * gamma * (p.h / (2.5 * sd) + 1.0 / (tf * n as f64 + 1.0));
        let scale = ln_scale.exp();
        let predicted = calib * e_c * knot_weights(lambda, p.h, tf * n as f64 + 1.0).0 * scale;
        pick = (lambda, e_c, f == 1.0);
        if predicted <= allowed {
            return pick;
        }
    }
    // No fraction was predicted to suffice: the last one tried is the strongest allowed.
    (pick.0, pick.1, true)
}

/// The T-fold composition of both pairs by one complex FFT (upper + i·lower), tilted by λ, on
/// the smallest power-of-two window outside which each tilted composition has a mass that,
/// scaled back at ε_ref, is at most `budget`. A δ(ε) pass whose all-bulk part is what makes the
/// whole sum's Chernoff bound loose (tiny q: one step's far tail decides δ, and e^{−λε}·b(λ)^T
/// forces the tilt past the tail's saddle) composes the excess over that part instead
/// ([`excess_split`], [`compose_blocks`]); b^{*T} has no mass beyond ε, so δ is unchanged.
/// `force_split`: compose by blocks whenever the knots split (an earlier pass found one tilt
/// short); `rel`: the blocks' error goal relative to their lower end; `fine`: compose with a
/// fine core ([`Core`]) where one can be cut.
#[allow(clippy::too_many_arguments)]
fn compose(
    p: &Pairs,
    t: u64,
    budget: f64,
    query: Query,
    calib: f64,
    force_split: bool,
    rel: f64,
    fine: bool,
) -> Result<Both> {
    let n = p.up.len() - 1;
    let tf = t as f64;
    let complement = matches!(query, Query::Complement(..));
    let Tilt {
        lambda: lstar,
        grid_lambda,
        grid_score,
        eps: eps_ref,
        split,
        ln_bound,
    } = match query {
        Query::Complement(gamma, guess) => complement_tilt(p, t, gamma, guess.map(|g| g.0)),
        _ => choose_tilt(p, t, query, excess_split(p, t, query), force_split),
    };
    let inf = if p.up_inf > 0.0 {
        -(tf * (-p.up_inf).ln_1p()).exp_m1() * (1.0 + 1e-12)
    } else {
        0.0
    };
    // The fine core (docs/accounting.md#fine-core), its knot from the query's tilt.
    let kc = if t >= CORE_MIN_T && p.law.s > 0.0 && !complement {
        core_knot(p, t, lstar, split)
    } else {
        None
    };
    let core_fits = kc.is_some();
    let core_h = kc.map_or(0.0, |(_, h)| h);
    let hits = p.hit.map(|x| Hits::new(&x, t, p.law.l1q));
    let core = kc.filter(|_| fine).and_then(|(kc, _)| core_of(p, kc));
    if let (Some(s), Query::Delta(eps, tol)) = (split, query) {
        let mut both = compose_blocks(p, t, budget, eps, tol, s, inf, calib, rel, core.as_ref())?;
        both.core_fits = core_fits;
        both.core_h = core_h;
        both.hits = hits;
        return Ok(both);
    }
    // The refined tilt (δ(ε) only) has the smaller bound, but can double the window: q = 0.001,
    // σ = 0.6, T = 1000, ε = 30 reached the FFT cap at twice the step and certified 5 digits,
    // not 6. The grid's tilt is taken instead when its composition needs a shorter FFT and its
    // bound is within 10³ of the refined one (the truncations' budget is 10^{−(d+3)} of δ, so
    // the FFT's rounding, relative to the bound, has that much room). Measured: the bounds
    // differ by e^4.0 at that query (the grid's tilt answers it), by e^8.9 at q = 0.001,
    // σ = 0.6, T = 300, ε = 30 and e^46 at σ = 1, T = 30, ε = 30 (where it lost the answers).
    // A complement's tilt is at most 1 in size: taken whole.
    let pick = |l: f64| {
        let (lambda, pred_ec, maxed) = if complement {
            (l, 1.0, false)
        } else {
            pick_tilt(p, t, budget, query, calib, l, eps_ref)
        };
        (
            lambda,
            pred_ec,
            maxed,
            plan(p, t, budget, lambda, (query, eps_ref), n),
        )
    };
    let len = |w: &Result<Plan>| w.as_ref().map_or(usize::MAX, |w| w.nf);
    let mut chosen = pick(lstar);
    if grid_lambda != lstar && grid_score - ln_bound <= GRID_TILT_ROOM {
        let other = pick(grid_lambda);
        if len(&other.3) < len(&chosen.3) {
            chosen = other;
        }
    }
    let (lambda, pred_ec, maxed, w) = chosen;
    let part = compose_part(p, t, query, lambda, n, None, inf, w?, core.as_ref())?;
    Ok(Both {
        core_used: usize::from(part.fine),
        need: part.need,
        calib: (part.fft_err.each / pred_ec).max(1.0),
        parts: vec![(part.up, part.lo)],
        extra: 0.0,
        tilt_maxed: maxed,
        core_fits,
        core_h,
        hits,
    })
}

/// How far (log) the grid's tilt's Chernoff bound may exceed the refined tilt's for the one-tilt
/// route to try the grid's tilt (10³; see [`compose`]).
const GRID_TILT_ROOM: f64 = 3.0 * std::f64::consts::LN_10;

/// A composition's tilted pairs and window (see [`compose_part`]): the masses tilted by λ and
/// their log-normalisers, the mass each may leave outside the window, the window's first knot
/// (relative to T·j0), the full support's length and the FFT's length.
struct Plan {
    xu: Vec<f64>,
    cu: f64,
    xl: Vec<f64>,
    cl: f64,
    bu: f64,
    bl: f64,
    w_lo: f64,
    full: f64,
    nf: usize,
    /// The window's length in knots (at most `nf`).
    need: f64,
    /// ln of the budget in the upper pair's tilted units at ε_ref (budget·e^{λε_ref − T·cu}):
    /// what a tilted mass added to the outside may reach ([`core_inputs`]).
    ln_room: f64,
}

/// The [`Plan`] of a composition of the knots up to `top` tilted by λ, for `query` at ε_ref:
/// an error when its window needs an FFT longer than the cap.
///
/// The mass each pair may leave outside the window (or wrap into it) is the budget in its tilted
/// units where the pair is read: a tilted mass weighs at most e^{Tc − λe} once undone at any loss
/// beyond the e at which δ is read ([`Composite::error`]), so for δ(ε) at e = ε − T·τ (the upper
/// end's read; the lower end's, ε + T·τ, weighs less). For ε(δ), read wherever the search goes,
/// at 0.9·ε_ref. (Until stop 43 δ(ε) took 0.9·ε too: a margin of e^{0.1λε}, e⁷⁴ at q = 0.01,
/// σ = 5, T = 1000, ε = 2, which doubled its windows.)
fn plan(
    p: &Pairs,
    t: u64,
    budget: f64,
    lambda: f64,
    (query, eps_ref): (Query, f64),
    top: usize,
) -> Result<Plan> {
    let tf = t as f64;
    let (xu, cu) = tilt(&p.up[..=top], p.o, p.j0, p.h, lambda);
    let (xl, cl) = tilt(&p.lo[..=top], p.o, p.j0, p.h, lambda);
    let read = match query {
        Query::Delta(e, _) => e - tf * p.tau,
        Query::Eps(..) => 0.9 * eps_ref,
        // λ < 0: a tilted mass weighs e^{Tc − λe} ≤ e^{Tc − λ·read} for e ≤ read.
        Query::Complement(..) => 1.05 * eps_ref + 0.05,
    };
    let bu = budget * (lambda * read - tf * cu).exp();
    let bl = budget * (lambda * read - tf * cl).exp();
    let (wu, wl) = (window(&xu, p.h, t, bu), window(&xl, p.h, t, bl));
    let (w_lo, w_hi) = (wu.0.min(wl.0), wu.1.max(wl.1));
    let full = tf * top as f64 + 1.0;
    let need = (w_hi - w_lo + 1.0).min(full);
    if need.is_nan() || need > (1u64 << MAX_LOG2) as f64 {
        return Err(budget_error(
            "the composition needs a longer FFT than the cap",
        ));
    }
    let nf = (need as u64).next_power_of_two().max(1 << MIN_LOG2) as usize;
    Ok(Plan {
        xu,
        cu,
        xl,
        cl,
        bu,
        bl,
        w_lo,
        full,
        nf,
        need,
        ln_room: budget.ln() + lambda * eps_ref - tf * cu,
    })
}

/// One composition of both pairs (the knots up to `top`; with a split s, the excess over the
/// knots up to s), tilted by λ, on its window: see [`compose`].
struct Part {
    up: Composite,
    lo: Composite,
    /// The window's length in knots (at most the FFT's): what the next pass's step scales.
    need: f64,
    fft_err: FftErr,
    /// Composed with the fine core.
    fine: bool,
}

/// [`compose`]'s FFT at a given tilt, on the knots up to `top`: with `split` s, the excess
/// (a + b)^{*T} − b^{*T} of the knots in (s, top] over those up to s ([`excess_spectrum`]),
/// else the T-fold power. `inf` is the upper pair's mass at +∞ to carry.
/// `w` is the [`plan`] at λ (callers compare tilts by their plans' windows first). With a
/// `core` ([`Core`]), the steps below its knot are composed on its fine grid
/// ([`core_spectrum`]) when the core can carry this composition, else as above.
#[allow(clippy::too_many_arguments)]
fn compose_part(
    p: &Pairs,
    t: u64,
    query: Query,
    lambda: f64,
    top: usize,
    split: Option<usize>,
    inf: f64,
    w: Plan,
    core: Option<&Core>,
) -> Result<Part> {
    let n = top;
    let tf = t as f64;
    let (cu, cl) = (w.cu, w.cl);
    expired()?;
    let t0 = t as i64 * p.j0;
    let fine = match core {
        Some(core) => core_inputs(p, core, t, lambda, top, split, &w)?,
        None => None,
    };
    let (nf, need, w_lo, extra_up) = match &fine {
        Some(f) => (f.nf, f.need, f.w_lo, f.omitted),
        None => (w.nf, w.need, w.w_lo, 0.0),
    };
    let with_core = fine.is_some();
    // The window starts at knot T·j0 + w_lo, and the mass outside it wraps into it.
    let (ja, wrapped) = if nf as f64 >= w.full {
        (t0, false)
    } else {
        (t0 + w_lo as i64, true)
    };
    // The tilted mass outside (or wrapped into) the window: window() bounded it by b per pair
    // (an excess is coefficientwise below the whole composition, so the bound holds for it).
    let (ou, ol) = if wrapped { (w.bu, w.bl) } else { (0.0, 0.0) };
    let (y, fft_err) = match fine {
        Some(f) => core_spectrum(f.zg, f.za, f.zb, t, f.j, split.is_none()),
        None => {
            // Both pairs packed as upper + i·lower; with a split, the knots above s apart.
            let mut z = vec![Complex64::new(0.0, 0.0); nf];
            let mut za = vec![Complex64::new(0.0, 0.0); if split.is_some() { nf } else { 0 }];
            for k in 0..=n {
                let c = match split {
                    Some(s) if k > s => &mut za[k % nf],
                    _ => &mut z[k % nf],
                };
                c.re += w.xu[k];
                c.im += w.xl[k];
            }
            match split {
                Some(_) => excess_spectrum(z, za, t),
                None => power_spectrum(z, t),
            }
        }
    };
    expired()?;
    let scale = 1.0 / nf as f64;
    let off = (t0 - ja).rem_euclid(nf as i64) as usize;
    let mut mu = vec![0.0; nf];
    let mut ml = vec![0.0; nf];
    for (c, v) in y.iter().enumerate() {
        let i = (c + off) % nf;
        mu[i] = v.re * scale;
        ml[i] = v.im * scale;
    }
    // A tilted input e^{ln x + λℓ − c} is within u(2 + |λℓ − c|) of exact, relatively, so a
    // composed mass (a product of T inputs) within T times that; undoing the tilt,
    // e^{Tc − λS}, adds u(|Tc| + |λS| + 130) (the recurrence of [`Composite::new`]); doubled.
    let lmax = (p.o + p.j0 as f64 * p.h)
        .abs()
        .max((p.o + (p.j0 + n as i64) as f64 * p.h).abs());
    let c_max = cu.abs().max(cl.abs());
    let la = lambda.abs();
    let tilt_rel = 2.0 * U * (tf * (2.0 + la * lmax + c_max) + tf * c_max + la * tf * lmax + 130.0);
    let f = Frame {
        h: p.h,
        base: tf * p.o,
        ja,
        lambda,
        fft_err,
        tilt_rel,
        shift: tf * p.tau,
        floor: match query {
            Query::Delta(e, _) | Query::Eps(_, Some((e, _))) => floor_at(e, lambda),
            Query::Eps(_, None) => -1.0,
            Query::Complement(..) => f64::NEG_INFINITY,
        },
        complement: matches!(query, Query::Complement(..)),
    };
    // A complement's raised pair: the probability that some step is at −∞ (its `below`).
    let inf_lo = if f.complement && p.below > 0.0 {
        -(tf * (-p.below).ln_1p()).exp_m1() * (1.0 + 1e-12)
    } else {
        0.0
    };
    Ok(Part {
        up: Composite::new(&mu, f, tf * cu, ou + extra_up, inf)?,
        lo: Composite::new(&ml, f, tf * cl, ol, inf_lo)?,
        need,
        fft_err,
        fine: with_core,
    })
}

/// Refinement of the fine core's grid: its cells are this many times narrower than the pass's.
const FINE: usize = 16;
/// Longest FFT of one of the core's binary powers on its fine grid.
const CORE_MAX_LOG2: u32 = 22;
/// Most steps outside the core a composition with the core carries exactly; the compositions
/// with more are bounded (upper pair) or dropped (lower pair), see [`core_inputs`].
const CORE_MAX_J: usize = 31;
/// Fewest steps at which a pass composes with a fine core (below, a step's few binary powers
/// gain little over discretising each step).
const CORE_MIN_T: u64 = 32;

/// The fine core of a remove step (docs/accounting.md#fine-core): the step's cells below knot
/// kc discretised again on h/[`FINE`] (both pairs, untilted, on the fine knots 0 ..= kc·FINE,
/// loss o + i·h/FINE), and the rest of the step (the cells from kc) as the pass's pairs on the
/// grid (knots 0 ..= n, zero below kc). The step's pair is the core's plus the rest's: each is
/// a pair (upper: connect-the-dots; lower: binned) of the step restricted to its cells, and the
/// restrictions partition the step.
struct Core {
    kc: usize,
    hf: f64,
    up: Vec<f64>,
    lo: Vec<f64>,
    rest_up: Vec<f64>,
    rest_lo: Vec<f64>,
}

/// The fine core of a pass's remove step below knot `kc` (None for the add direction, or when
/// the step's cut mass below its first cell would not fit the first fine cell).
fn core_of(p: &Pairs, kc: usize) -> Option<Core> {
    let law = &p.law;
    let n = p.up.len() - 1;
    // The cut mass below z_floor goes to the first fine cell's upper knot: its loss is below it.
    if !core_feasible(p, kc) || p.o != law.l1q {
        return None;
    }
    let hf = p.h / FINE as f64;
    let z_floor = -Z_CUT * law.sigma;
    let (cells, _, _) = cells_on(law, p.o, hf, 0, kc * FINE, z_floor, f64::NAN);
    let mut up = upper_from(&cells, hf);
    up[1] += p.below;
    let mut lo = lower_pair(&cells, hf);
    margins(&mut up, &mut lo);
    let mut rest_up = vec![0.0; n + 1];
    let mut rest_lo = vec![0.0; n + 1];
    rest_up[kc..].copy_from_slice(&upper_from(&p.cells[kc..], p.h));
    rest_lo[kc..].copy_from_slice(&lower_pair(&p.cells[kc..], p.h));
    margins(&mut rest_up[kc..], &mut rest_lo[kc..]);
    Some(Core {
        kc,
        hf,
        up,
        lo,
        rest_up,
        rest_lo,
    })
}

/// The core's knot for a pass tilted by λ and the finest step at which a core still fits, or
/// None when no core fits: from the highest knot the core's largest binary power's FFT allows
/// (and below the split: the core stays in the all-bulk part), down while the tilted upper
/// pair's mass between the knot and that cap is within a tenth of a step in T; the core must
/// then hold at least half the tilted step and leave few steps outside it (below).
///
/// The finest step: the core must reach the least knot that holds half the tilted step and
/// leaves few steps outside it, and its knots are capped by its largest binary power's FFT, so
/// its loss span is fixed and the step may shrink until that span is all the cap allows.
fn core_knot(p: &Pairs, t: u64, lambda: f64, split: Option<usize>) -> Option<(usize, f64)> {
    let (x, _) = tilt(&p.up, p.o, p.j0, p.h, lambda);
    let top_power = 1u64 << (63 - t.leading_zeros());
    let fft_cap = ((1u64 << CORE_MAX_LOG2) - 1) / (top_power * FINE as u64);
    let cap = (fft_cap as usize)
        .min(split.unwrap_or(usize::MAX))
        .min(x.len() - 2);
    // From the cap down, while the tilted mass between the knot and the cap is within a tenth
    // of a step in T.
    let mut between = 0.0;
    let mut kc = cap;
    while kc > 2 && (between + x[kc]) * t as f64 <= 0.1 {
        between += x[kc];
        kc -= 1;
    }
    // A core that holds less than half the tilted step gains little; one that leaves more than
    // a few steps outside it (μ = T·α on average under the tilt) needs more than CORE_MAX_J of
    // them carried: the Chernoff bound of a Poisson(μ) count beyond CORE_MAX_J must be below
    // e^{−30} (the budget's usual scale; [`core_inputs`] decides J on its own bound).
    let held: f64 = x[..=kc].iter().sum();
    if !(kc >= 2 && held >= 0.5 && core_rare(t, held) && core_feasible(p, kc)) {
        return None;
    }
    // The least knot that holds enough: at most kc, which does.
    let mut acc = 0.0;
    let least = (0..=kc)
        .find(|&k| {
            acc += x[k];
            acc >= 0.5 && core_rare(t, acc)
        })
        .unwrap_or(kc);
    Some((kc, least as f64 * p.h / fft_cap as f64))
}

/// Whether a core holding `held` of the tilted step leaves few steps outside it: the Chernoff
/// bound of a Poisson(T·(1 − held)) count beyond [`CORE_MAX_J`] is below e^{−30}.
fn core_rare(t: u64, held: f64) -> bool {
    let mu = t as f64 * (1.0 - held).max(0.0);
    let k = (CORE_MAX_J + 1) as f64;
    mu <= 0.0 || (k > mu && k - mu - k * (k / mu).ln() <= -30.0)
}

/// Whether a fine core below knot kc can be cut from the pass's pairs ([`core_of`]): a remove
/// step whose cut mass below its first cell fits the first fine cell (on the grid with a knot at
/// ℓ_min, which a pass with the core uses; a pass without it may have its grid at the pile).
fn core_feasible(p: &Pairs, kc: usize) -> bool {
    let law = &p.law;
    let n = p.up.len() - 1;
    let z_floor = -Z_CUT * law.sigma;
    law.s > 0.0
        && p.j0 == 0
        && kc >= 2
        && kc < n
        && p.cells.len() == n
        && law.loss(z_floor) <= law.l1q + p.h / FINE as f64
}

/// One binary power (m = 2^b steps) of the core mapped onto the grid, tilted by λ with the
/// step's log-normalisers cu, cl (masses on the grid's knots K, loss m·o + Kh, times e^{λℓ−mc}):
/// the m-fold composition of the core's pairs on the fine grid (tilted before the FFT, so that
/// its rounding is relative to the tilted mass; each composed mass inflated (upper) or deflated
/// (lower) by the FFT's error bound), then, upper, each fine knot's mass split onto the two knots
/// around it (connect-the-dots of a composed pair: the composition is a post-processing of it),
/// lower, binned ([`lower_pair_tilted`]: binning is a post-processing of the composition).
fn core_power(
    core: &Core,
    p: &Pairs,
    m: u64,
    lambda: f64,
    cu: f64,
    cl: f64,
) -> Result<(Vec<f64>, Vec<f64>)> {
    let kf = core.up.len() - 1;
    let hf = core.hf;
    let (xu, xl) = (
        tilted_by(&core.up, p.o, hf, lambda, cu),
        tilted_by(&core.lo, p.o, hf, lambda, cl),
    );
    let full = m as usize * kf + 1;
    let (fu, fl) = if m == 1 {
        (xu, xl)
    } else {
        let nf = full.next_power_of_two().max(1 << MIN_LOG2);
        if nf > 1 << CORE_MAX_LOG2 {
            return Err(budget_error(
                "the fine core's power needs a longer FFT than its cap",
            ));
        }
        let mut z = vec![Complex64::new(0.0, 0.0); nf];
        for i in 0..=kf {
            z[i] = Complex64::new(xu[i], xl[i]);
        }
        let (y, err) = power_spectrum(z, m);
        let sc = 1.0 / nf as f64;
        let e = err.each * (1.0 + 1e-9);
        let fu = y[..full].iter().map(|v| v.re * sc + e).collect();
        let fl = y[..full].iter().map(|v| (v.im * sc - e).max(0.0)).collect();
        (fu, fl)
    };
    // Cells of the grid in tilted units of their lower knot: a fine knot d = r·hf above knot K
    // has untilted·e^{λℓ_K − mc} = (its tilted mass)·e^{−λd}.
    let h = p.h;
    let ga: Vec<(f64, f64)> = (0..FINE)
        .map(|r| {
            let d = r as f64 * hf;
            let f = (-lambda * d).exp();
            (f * (h - d).exp_m1(), -f * (-d).exp_m1())
        })
        .collect();
    let cells_of = |x: &[f64]| -> Vec<Cell> {
        let mut cells = vec![Cell::default(); full.div_ceil(FINE)];
        for (i, &v) in x.iter().enumerate() {
            let c = &mut cells[i / FINE];
            let (a, b) = ga[i % FINE];
            c.a += v * a;
            c.b += v * b;
        }
        // The factors' and the sums' rounding (arguments up to λh + 2 in the exponentials).
        let rel = U * (32.0 + 4.0 * lambda * h);
        for c in &mut cells {
            c.ea = rel * c.a;
            c.eb = rel * c.b;
        }
        cells
    };
    let mut gu = upper_from_tilted(&cells_of(&fu), h, lambda);
    let mut gl = lower_pair_tilted(&cells_of(&fl), h, lambda);
    margins(&mut gu, &mut gl);
    Ok((gu, gl))
}

/// Masses x_i on the knots base + i·step tilted with a given log-normaliser c:
/// x_i·e^{λ(base + i·step) − c} (from logs, as [`tilt`]).
fn tilted_by(x: &[f64], base: f64, step: f64, lambda: f64, c: f64) -> Vec<f64> {
    x.iter()
        .enumerate()
        .map(|(i, &v)| {
            if v > 0.0 {
                (v.ln() + lambda * (base + i as f64 * step) - c).exp()
            } else {
                0.0
            }
        })
        .collect()
}

/// The inputs of a composition with the core ([`core_spectrum`]), packed upper + i·lower on the
/// FFT's length: the core's binary powers on the grid, the rest's knots above the split (a) and
/// between the core and the split (b; none without a split), the number J of steps outside the
/// core carried exactly, and the bound on the upper pair's tilted mass of the compositions with
/// more (added to its mass outside the window), the window's first knot and the FFT's length.
struct CoreInputs {
    zg: Vec<Vec<Complex64>>,
    za: Vec<Complex64>,
    zb: Option<Vec<Complex64>>,
    j: usize,
    omitted: f64,
    w_lo: f64,
    nf: usize,
    need: f64,
}

/// [`CoreInputs`] of a composition of the knots up to `top` (the excess over those up to
/// `split`) tilted by λ, or None when the core cannot carry it (the split below the core, a
/// binary power beyond its FFT cap, more than [`CORE_MAX_J`] steps outside the core needed, or a
/// window beyond the FFT cap): the caller composes on the grid alone.
///
/// The composition of T steps, each the core's pair c plus the rest's r, is
/// Σ_j C(T, j)·c^{*(T−j)}*r^{*j} (j steps outside the core); c^{*(T−j)} is taken as the product
/// of the core's binary powers G_b of T − j, each discretised onto the grid once (a pair of each
/// power: the product dominates, or is dominated by, c^{*(T−j)}). With a split, r = a + b and the
/// all-bulk part (c + b)^{*T} is removed term by term: r^{*j} becomes (a + b)^{*j} − b^{*j}.
///
/// Compositions with more than J steps outside the core: their upper pair's tilted mass is at
/// most Σ_{j>J} C(T, j)·Π_{b ∈ bits(T−j)} ‖G_b‖·((α + β)^j − β^j) (α, β: the tilted masses of
/// a and b; the masses are nonnegative), added to the mass outside the window; the lower pair
/// drops them. The window is a Chernoff bound on the composition's knot index with one step's
/// MGF bounded by max_b M_{G_b}^{1/2^b} + M_{a+b}: Σ_j C(T, j)·Π M_{G_b}·M^j ≤ (that)^T.
fn core_inputs(
    p: &Pairs,
    core: &Core,
    t: u64,
    lambda: f64,
    top: usize,
    split: Option<usize>,
    w: &Plan,
) -> Result<Option<CoreInputs>> {
    let kc = core.kc;
    if split.is_some_and(|s| s < kc) || top <= kc {
        return Ok(None);
    }
    let bits = (64 - t.leading_zeros()) as usize;
    let mut gs = Vec::with_capacity(bits);
    for b in 0..bits {
        expired()?;
        match core_power(core, p, 1u64 << b, lambda, w.cu, w.cl) {
            Ok(g) => gs.push(g),
            Err(_) => return Ok(None),
        }
    }
    // The core's step is a remove step: its knots start at j0 = 0 (`core_feasible`).
    let (ru, rl) = (
        tilted_by(&core.rest_up[..=top], p.o, p.h, lambda, w.cu),
        tilted_by(&core.rest_lo[..=top], p.o, p.h, lambda, w.cl),
    );
    // a: the knots in (s0, top]; b: those in [kc, s0] (empty without a split).
    let s0 = split.unwrap_or(kc - 1);
    // The window of each pair's composition.
    let win = |g: &[&[f64]], r: &[f64], budget: f64| {
        let ln_mgf = |lh: f64, high: bool| {
            let mut best = f64::NEG_INFINITY;
            for (b, &gb) in g.iter().enumerate() {
                let m = (1u64 << b) as f64;
                let adj = if high {
                    0.0
                } else {
                    lh * (m * top as f64 - (gb.len() - 1) as f64)
                };
                best = best.max((ln_mgf_blocks(gb, lh, high) + adj) / m);
            }
            log_add_exp(best, ln_mgf_blocks(r, lh, high))
        };
        window_of(ln_mgf, top, p.h, t, budget)
    };
    let gu: Vec<&[f64]> = gs.iter().map(|g| &g.0[..]).collect();
    let gl: Vec<&[f64]> = gs.iter().map(|g| &g.1[..]).collect();
    let wu = win(&gu, &ru, w.bu);
    let wl = win(&gl, &rl, w.bl);
    let (w_lo, w_hi) = (wu.0.min(wl.0), wu.1.max(wl.1));
    let need = (w_hi - w_lo + 1.0).min(w.full);
    if need.is_nan() || need > (1u64 << MAX_LOG2) as f64 {
        return Ok(None);
    }
    // Its own window (the core's powers are more concentrated than the grid's composition:
    // often shorter than the plan's).
    let nf = (need as u64).next_power_of_two().max(1 << MIN_LOG2) as usize;
    // J: the fewest steps outside the core whose omitted compositions' bound is within half
    // the pass's budget once the tilt is undone at ε_ref (`ln_room`).
    let (alpha, beta): (f64, f64) = (ru[s0 + 1..].iter().sum(), ru[kc..=s0].iter().sum());
    let ln_g: Vec<f64> = gs.iter().map(|g| g.0.iter().sum::<f64>().ln()).collect();
    let tf = t as f64;
    let (ln_ab, ratio) = ((alpha + beta).ln(), beta / (alpha + beta));
    let mut ln_terms = Vec::with_capacity(t as usize);
    let mut ln_c = 0.0f64;
    for j in 1..=t {
        ln_c += ((tf - (j - 1) as f64) / j as f64).ln();
        let mut ln_p = 0.0;
        let rest = t - j;
        for (b, lg) in ln_g.iter().enumerate() {
            if (rest >> b) & 1 == 1 {
                ln_p += lg;
            }
        }
        // (α + β)^j − β^j = (α + β)^j·(1 − ratio^j).
        let ex = j as f64 * ln_ab + (-(j as f64 * ratio.ln()).exp_m1()).ln();
        ln_terms.push(ln_c + ln_p + ex);
    }
    // Suffix sums: tail[J] = ln Σ_{j>J} term_j.
    let mut tail = vec![f64::NEG_INFINITY; t as usize + 1];
    for j in (0..t as usize).rev() {
        tail[j] = log_add_exp(tail[j + 1], ln_terms[j]);
    }
    let goal = w.ln_room + 0.5f64.ln();
    let Some(j) = (1..=CORE_MAX_J.min(t as usize)).find(|&j| tail[j] <= goal) else {
        return Ok(None);
    };
    let omitted = tail[j].exp() * (1.0 + 1e-9);
    let pack = |u: &[f64], l: &[f64], range: std::ops::RangeInclusive<usize>| {
        let mut z = vec![Complex64::new(0.0, 0.0); nf];
        for k in range {
            let c = &mut z[k % nf];
            c.re += u[k];
            c.im += l[k];
        }
        z
    };
    let zg = gs
        .iter()
        .map(|(u, l)| pack(u, l, 0..=u.len().min(l.len()) - 1))
        .collect();
    let za = pack(&ru, &rl, s0 + 1..=top);
    let zb = split.map(|_| pack(&ru, &rl, kc..=s0));
    Ok(Some(CoreInputs {
        zg,
        za,
        zb,
        j,
        omitted,
        w_lo,
        nf,
        need,
    }))
}

/// One block of [`compose_blocks`]: bounded (its bound joined the upper end), composed (with
/// its FFT error at ε), or too long for the cap as a whole (two chunks or more: it is halved).
enum Block {
    Bounded,
    Composed(Box<Part>, f64),
    TooLong,
}

/// Knots per block of [`compose_blocks`] (and of its Chernoff bounds' chunks).
const BLOCK: usize = 64;
/// Most FFTs one δ(ε) pass spends on blocks.
const MAX_BLOCKS: usize = 48;
/// Halvings in a row that did not halve a line of blocks' error after which [`compose_blocks`]
/// stops halving it. One until stop 43: at q = 0.001, σ = 1, T = 1000, ε = 8 the whole excess's
/// first halving left its error in the lower half (1.3·10⁻⁵² of about 2·10⁻⁵²), and the next cut
/// it to 6.9·10⁻⁵⁷; the route had stopped at 3 digits.
const UNHELPED: u8 = 2;
/// Strongest tilt a block takes, the end of its tilts' grid (its Chernoff bound keeps undoing it
/// finite where δ is read: e^{Tc − λS} ≤ e^{ln B + FLOOR_REACH} above the floor, B the block's
/// bound).
const MAX_BLOCK_TILT: f64 = 1e6;

/// The excess over the all-bulk part (knots up to the split s), composed block by block in the
/// loss of the composition's largest step (docs/accounting.md, "Blocks of the largest step").
///
/// With b_j the knots up to s_j and a_j those in (s_j, s_{j+1}] (s = s_0 < … < s_J = n),
/// (a + b)^{*T} − b^{*T} = Σ_j [(a_j + b_j)^{*T} − b_j^{*T}]: the j-th term is the part of the
/// composition whose largest step lies in block j. Each term is composed at its own tilt (the
/// minimiser of its Chernoff bound at ε), so the FFT's rounding is measured against that part,
/// not against the tilted mass of steps far from the one that decides δ: a single tilt cannot
/// concentrate a step whose loss has a log-density convex between the bulk and ε (tiny q, large
/// σ: a log-normal body), which is what held those queries to a few digits or none.
///
/// Blocks start as the whole excess; a block whose Chernoff bound at ε is within its share of
/// the budget (proportional to its width, so the bounded blocks together add at most `budget`;
/// from the second pass, at most a sixteenth of the pass's tolerance `tol` if that is larger) is
/// bounded, not composed (the bound joins the upper end only); while the composed blocks' FFT
/// errors at ε add up to more than `rel` of their lower end, the block with the largest is
/// halved, down to [`BLOCK`] knots, within [`MAX_BLOCKS`] FFTs and the time limit, unless two
/// halvings in a row did not halve the error of its line ([`UNHELPED`]).
#[allow(clippy::too_many_arguments)]
fn compose_blocks(
    p: &Pairs,
    t: u64,
    budget: f64,
    eps: f64,
    tol: Option<f64>,
    s: usize,
    inf: f64,
    calib: f64,
    rel: f64,
    core: Option<&Core>,
) -> Result<Both> {
    let n = p.up.len() - 1;
    let tf = t as f64;
    let query = Query::Delta(eps, tol);
    // Chunk boundaries: s + 1, then multiples of BLOCK, then n + 1.
    let mut cuts = vec![s + 1];
    let mut k = (s + 1).div_ceil(BLOCK) * BLOCK;
    while k <= n {
        if k > s + 1 {
            cuts.push(k);
        }
        k += BLOCK;
    }
    cuts.push(n + 1);
    let chunks = cuts.len() - 1;
    // Per tilt: the upper pair's log-MGF of the bulk and of each chunk (rounded up).
    let base = p.o + p.j0 as f64 * p.h;
    let loss = |k: usize| base + k as f64 * p.h;
    let mut lambdas = Vec::new();
    let mut lam = 0.05f64;
    while lam < MAX_BLOCK_TILT {
        lambdas.push(lam);
        lam *= TILT_GRID;
    }
    let bulk: Vec<f64> = lambdas
        .iter()
        .map(|&l| ln_mgf_blocks(&p.up[..=s], l * p.h, true) + l * base)
        .collect();
    let chunk_ln: Vec<Vec<f64>> = lambdas
        .iter()
        .map(|&l| {
            (0..chunks)
                .map(|c| {
                    let m = &p.up[cuts[c]..cuts[c + 1]];
                    if m.iter().all(|&x| x <= 0.0) {
                        f64::NEG_INFINITY
                    } else {
                        ln_mgf_blocks(m, l * p.h, true) + l * loss(cuts[c])
                    }
                })
                .collect()
        })
        .collect();
    let lse = crate::numeric::f64s::log_sum_exp;
    // Per tilt, ln M of the bulk and the first c chunks (c = 0..=chunks): a block's a + b.
    let prefix: Vec<Vec<f64>> = (0..lambdas.len())
        .map(|i| {
            let mut acc = vec![bulk[i]];
            for &x in &chunk_ln[i] {
                acc.push(log_add_exp(*acc.last().unwrap_or(&bulk[i]), x));
            }
            acc
        })
        .collect();
    // The least Chernoff bound (log) at ε − Tτ of block [c0, c1) (chunks), and its tilt:
    // (a + b)^{*T} − b^{*T} ≤ T·a·(a + b)^{*(T−1)} coefficientwise, so the part beyond e is at
    // most T·M_a(λ)·M_{a+b}(λ)^{T−1}·e^{−λe}.
    let e_read = eps - tf * p.tau;
    // The grid's best (bound, tilt), and the tilt refined between grid points (refine_tilt)
    // with its bound.
    let bound_of = |c0: usize, c1: usize| -> ((f64, f64), (f64, f64)) {
        let mut best = (f64::INFINITY, 0.0);
        let mut at = None;
        let mut grid = Vec::with_capacity(lambdas.len());
        for (i, &l) in lambdas.iter().enumerate() {
            let la = lse(&chunk_ln[i][c0..c1]);
            let lab = prefix[i][c1];
            let x = tf.ln() + la + (tf - 1.0) * lab - l * e_read;
            grid.push((l, x));
            if x < best.0 {
                best = (x, l);
                at = Some(i);
            }
        }
        let on_grid = best;
        if let Some(i) = at.filter(|_| best.0.is_finite()) {
            // Between the grid's points (see refine_tilt): the same bound at any λ.
            let (a, top) = (&p.up[cuts[c0]..cuts[c1]], &p.up[..cuts[c1]]);
            let x = |l: f64| {
                let la = ln_mgf_blocks(a, l * p.h, true) + l * loss(cuts[c0]);
                let lab = ln_mgf_blocks(top, l * p.h, true) + l * base;
                tf.ln() + la + (tf - 1.0) * lab - l * e_read
            };
            let (l, v) = refine_tilt(x, &grid, i);
            best = (v, l);
        }
        (on_grid, best)
    };
    // Memoised: the pre-split tests each block it starts with, which is then bounded or composed
    // on the same bound (a refinement evaluates the MGF over every knot below the block's top).
    let bounds = std::cell::RefCell::new(std::collections::HashMap::new());
    let bound_at = |c0: usize, c1: usize| {
        *bounds
            .borrow_mut()
            .entry((c0, c1))
            .or_insert_with(|| bound_of(c0, c1))
    };
    let width = |c0: usize, c1: usize| (cuts[c1] - cuts[c0]) as f64 / (n - s) as f64;
    // A block, bounded (its Chernoff bound joins `extra`) or composed.
    let mut extra = inf;
    let ffts = std::cell::Cell::new(0usize);
    // The longest block's time so far: a halving (two blocks) that would outlast the time limit
    // is not started, and the pass returns the blocks it has (a valid, wider bracket).
    let slowest = std::cell::Cell::new(std::time::Duration::ZERO);
    // From the second pass the goal is known (the pass's tolerance): a block's FFT error at ε is
    // at least about u·B/T (B its Chernoff bound at the tilt composed, the tilted total it is
    // relative to), so beyond ln(goal·T/u) a block's composition cannot meet the goal.
    let far = tol.filter(|&g| g > 0.0).map(|g| (g * tf / U).ln());
    // What the bounded blocks may add to the upper end: the budget, or once the goal is known a
    // sixteenth of the tolerance if larger (q = 0.01, σ = 5, T = 1000, ε = 2: a block whose
    // lower end was 0 and bound 10⁻³ of the tolerance took an FFT of 2²⁴ twice, 16 s, against
    // a budget 10³ times smaller than its bound).
    let bounded = tol.map_or(budget, |g| budget.max(g / 16.0));
    let block = |c0: usize, c1: usize, extra: &mut f64| -> Result<Block> {
        let share = width(c0, c1);
        let ((ln_g, grid_l), (ln_b, refined)) = bound_at(c0, c1);
        if ln_b <= (bounded * share).ln() {
            // The margin covers the logs' rounding, amplified by T − 1 (≤ 10⁴·64u·|ln M|).
            *extra += ln_b.exp() * (1.0 + 1e-9);
            return Ok(Block::Bounded);
        }
        expired()?;
        let started = std::time::Instant::now();
        let (top, split) = (cuts[c1] - 1, cuts[c0] - 1);
        let at = |lambda: f64, w: Result<Plan>| -> Result<(Part, f64)> {
            let part = compose_part(p, t, query, lambda, top, Some(split), 0.0, w?, core)?;
            ffts.set(ffts.get() + 1);
            let err = part.up.error_at(eps);
            Ok((part, err))
        };
        // The refined tilt has the smaller bound (the FFT's rounding is relative to it) but can
        // need a longer window (q = 0.001, σ = 5, T = 1000, ε = 0.5: λ 943 → 981 doubled the
        // FFT; refining every block lost 5 of the tail survey's answers at the FFT cap). The
        // block is composed at the tilt with the shorter FFT (the refined one when equal), and
        // again at the other if its error leaves it nothing (at least its own lower end), time
        // permitting; the better of the two is kept. Once the goal is known, the grid's tilt is
        // not tried where its bound is beyond `far` (below): its error would exceed the goal
        // (q = 0.001, σ = 1, T = 300, ε = 30: λ = 11.87 against the refined 13.7 left 8 blocks
        // errors 10¹⁰ times their δ, each recomposed; at q = 0.001, σ = 5, T = 300, ε = 0.1 the
        // grid's bound is 10⁵ times the refined one and its FFT 8 times shorter, and it answers).
        let planned = |l: f64| (l, plan(p, t, budget * share, l, (query, eps), top));
        let len = |w: &Result<Plan>| w.as_ref().map_or(usize::MAX, |w| w.nf);
        let (first, other) = if refined == grid_l || far.is_some_and(|f| ln_g > f) {
            (planned(refined), None)
        } else {
            let (r, g) = (planned(refined), planned(grid_l));
            if len(&r.1) <= len(&g.1) {
                (r, Some(g))
            } else {
                (g, Some(r))
            }
        };
        if first.1.is_err() && c1 - c0 >= 2 {
            return Ok(Block::TooLong);
        }
        let (mut part, mut err) = at(first.0, first.1)?;
        let useless = err >= part.lo.delta(eps, false);
        if let (Some((l, w)), true) = (other, useless) {
            if crate::numeric::deadline::expires_within(started.elapsed()).is_none() {
                if let Ok((p2, e2)) = at(l, w) {
                    if e2 < err {
                        (part, err) = (p2, e2);
                    }
                }
            }
        }
        slowest.set(slowest.get().max(started.elapsed()));
        Ok(Block::Composed(Box::new(part), err))
    };
    // Blocks composed (c0, c1, part, error at ε), bounded, or halved where the window of the
    // whole block exceeds the cap (its halves' may not: the next pass's step follows the blocks
    // kept, not their parents, see `need` below).
    let compose_all = |blocks: &[(usize, usize)], extra: &mut f64| {
        let mut out = Vec::new();
        let mut todo: Vec<(usize, usize)> = blocks.iter().rev().copied().collect();
        while let Some((c0, c1)) = todo.pop() {
            match block(c0, c1, extra)? {
                Block::Bounded => {}
                Block::Composed(part, err) => out.push((c0, c1, *part, err)),
                // Within the pass's budget of blocks: past it, the cap stands (a block whose
                // window does not shrink with it would otherwise be halved down to its chunks).
                Block::TooLong if todo.len() + out.len() + 2 > MAX_BLOCKS => {
                    return Err(budget_error(
                        "the composition needs a longer FFT than the cap",
                    ));
                }
                Block::TooLong => {
                    let mid = c0 + (c1 - c0) / 2;
                    todo.push((mid, c1));
                    todo.push((c0, mid));
                }
            }
        }
        Ok::<_, Error>(out)
    };
    // Composed blocks (c0, c1, part, error at ε, the halvings in a row above it that did not
    // help); the one with the largest error is halved until the errors are within the goal,
    // 1/8·10^{−d} of the blocks' lower end (before there is one, the pass's tolerance). A halving
    // helps when its halves' errors add up to under half the parent's; after UNHELPED in a row
    // that did not, a line is not halved again.
    let mut done: Vec<(usize, usize, Part, f64, u8)> = Vec::new();
    // A block whose least bound (at the refined tilt) is beyond `far` is halved before any FFT
    // rather than composed only to be halved (at q = 0.001, σ = 5, T = 1000, ε = 0.5, the whole
    // excess at the third pass was an FFT of 2²⁴ taking 26 s with an error 10¹⁸ times the goal,
    // and the time limit then stopped the halving). At most half of the FFTs go to such blocks.
    // (Until stop 41 the test took the grid's bound, up to 10¹² larger: q = 0.001, σ = 1,
    // T = 300, ε = 30 was pre-split into 23 blocks where one, at 2²², met the goal.)
    let mut start = vec![(0, chunks)];
    if let Some(far) = far {
        let mut i = 0;
        while i < start.len() && start.len() < MAX_BLOCKS / 2 {
            let (c0, c1) = start[i];
            if c1 - c0 >= 2 && bound_at(c0, c1).1 .0 > far {
                let mid = c0 + (c1 - c0) / 2;
                start[i] = (c0, mid);
                start.insert(i + 1, (mid, c1));
            } else {
                i += 1;
            }
        }
    }
    for (c0, c1, part, err) in compose_all(&start, &mut extra)? {
        done.push((c0, c1, part, err, 0u8));
    }
    loop {
        let lower: f64 = done.iter().map(|d| d.2.lo.delta(eps, false)).sum();
        let goal = if lower > 0.0 {
            rel * lower
        } else {
            tol.unwrap_or(100.0 * budget)
        };
        let total: f64 = done.iter().map(|d| d.3).sum();
        let worst = (0..done.len())
            .filter(|&i| done[i].4 < UNHELPED && done[i].1 - done[i].0 >= 2)
            .max_by(|&i, &j| done[i].3.total_cmp(&done[j].3));
        let Some(w) = worst else { break };
        if total <= goal || ffts.get() + 2 > MAX_BLOCKS {
            break;
        }
        if crate::numeric::deadline::expires_within(slowest.get() * 2).is_some() {
            break;
        }
        let (c0, c1, _, parent, strikes) = done.swap_remove(w);
        let mid = c0 + (c1 - c0) / 2;
        let halves: Vec<_> = compose_all(&[(c0, mid), (mid, c1)], &mut extra)?
            .into_iter()
            .map(|(a, b, part, err)| (a, b, part, err, 0u8))
            .collect();
        let helped = halves.iter().map(|d| d.3).sum::<f64>() < 0.5 * parent;
        done.extend(halves.into_iter().map(|mut d| {
            d.4 = if helped { 0 } else { strikes + 1 };
            d
        }));
    }
    // The blocks kept (a parent halved at q = 0.01, σ = 5, T = 100, ε = 2 was an FFT of 2²², its
    // halves' 2¹⁹: counting the parent held the next pass's step to a quarter of what it needed,
    // and the query to 5 digits).
    let need = done.iter().map(|d| d.2.need).fold(0.0, f64::max);
    Ok(Both {
        hits: None,
        core_used: done.iter().filter(|d| d.2.fine).count(),
        // Every block bounded: no composition, the bounds alone (the lower end is 0).
        parts: done.into_iter().map(|d| (d.2.up, d.2.lo)).collect(),
        extra,
        need,
        calib,
        // Only a pass with its goal (the tolerance, from the second pass) has pre-split the
        // blocks (above): before, its FFT error is no sign of what the next pass can reach
        // (q = 0.001, σ = 1, T = 300, ε = 8: the first pass's error was twice 10⁻⁶·δ, the
        // second's, pre-split, 10⁻⁴ of that).
        tilt_maxed: tol.is_some(),
        core_fits: false,
        core_h: 0.0,
    })
}

/// The T-th power of both packed pairs (upper + i·lower) in the Fourier domain and back: the
/// composed masses (unscaled by 1/N) and the bound on each scaled mass's error.
fn power_spectrum(mut z: Vec<Complex64>, t: u64) -> (Vec<Complex64>, FftErr) {
    // Componentwise rounding bounds (module docs): a forward FFT output is off by at most
    // γ‖z‖₁ (γ = 8·log₂N·u, Higham's constant for the butterflies with a margin), which the power
    // propagates as T·ρ^{T−1}·γ‖z‖₁ (ρ = |Â_k| + γ‖z‖₁), plus the power's own rounding; the
    // inverse transform averages these over k and adds γ·mean|Ĉ_k|. Every composed mass is then
    // within `fft_err` of the exact one.
    let nf = z.len();
    let tf = t as f64;
    let lg = (nf as f64).log2();
    let gamma = 8.0 * lg * U;
    let fwd = forward_plan(nf);
    // The heaviest input is rotated to index 0, where [`forward`] adds it without a twiddle: the
    // T-fold cyclic convolution of z rotated left by s is the convolution rotated left by sT
    // (mod N), undone on the output. Exact index moves.
    let shift = heaviest(&z).first().copied().unwrap_or(0);
    z.rotate_left(shift);
    let Forward { dz, dz2 } = forward(&mut z, &*fwd, gamma);
    let half = Complex64::new(0.5, 0.0);
    let mi = Complex64::new(0.0, -0.5);
    let i1 = Complex64::new(0.0, 1.0);
    // The power's own rounding, relative: repeated squaring doubles a square's relative error
    // at each step, so the ≈ 2·log₂T products (each within √5·u, complex) leave at most
    // √5·(T + log₂T + 1)·u (measured: 0.72·T·u at T = 10⁵; until stop 55 this read
    // 2(log₂T + 2)·u, which the input term, T·γ ≥ 80·T·u of the same modulus, had covered).
    let pw = 2.25 * (tf + tf.log2() + 1.0) * U;
    // A frequency whose moduli (with the input's error) are below e^{−700/(T−1)} contributes at
    // most e^{−700} each to the power and to its propagated error: its power is taken as 0 and
    // those bounds added (at T = 10⁵ on a tiny-q pile, almost every frequency: cpow's squarings
    // were half of a pass).
    let negligible = if t >= 2 {
        (-700.0 / (tf - 1.0)).exp()
    } else {
        0.0
    };
    let e700 = (-700.0f64).exp();
    let mut prop = 0.0f64;
    let mut c1 = 0.0f64;
    // In place, frequencies k and N − k together: their unpacked a, b are conjugates (exactly:
    // the same sums, negated), and so are their powers, so each pair costs one.
    for k in 0..=nf / 2 {
        let j = (nf - k) % nf;
        let (zk, zj) = (z[k], z[j]);
        let a = (zk + zj.conj()) * half;
        let b = (zk - zj.conj()) * mi;
        let ra = a.norm_sqr().sqrt() + dz;
        let rb = b.norm_sqr().sqrt() + dz;
        let copies = if j == k { 1.0 } else { 2.0 };
        if ra < negligible && rb < negligible {
            prop += copies * 2.0 * e700 * (tf * dz + ra + rb);
            z[k] = Complex64::new(0.0, 0.0);
            z[j] = z[k];
            continue;
        }
        let (at, bt) = (cpow(a, t), cpow(b, t));
        prop += copies
            * (tf * (pow_bound(ra, t - 1) + pow_bound(rb, t - 1)) * dz
                + pw * (at.norm_sqr().sqrt() + bt.norm_sqr().sqrt()));
        let ck = at + i1 * bt;
        let cj = at.conj() + i1 * bt.conj();
        c1 += ck.norm_sqr().sqrt();
        if j != k {
            c1 += cj.norm_sqr().sqrt();
        }
        z[j] = cj;
        z[k] = ck;
    }
    let mut y = z;
    inverse(&*fwd, &mut y);
    y.rotate_right(((shift as u128 * t as u128) % nf as u128) as usize);
    let fft_err = 1.01 * (prop + gamma * c1) / nf as f64;
    // The ℓ2 form (Higham, Thm 24.2): ‖ŷ − y‖₂ ≤ T·γ‖z‖₂ + (γ + power rounding)·‖y‖₂, for
    // sums of many masses, where it beats the componentwise bound.
    let yn = y.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt() / nf as f64;
    let l2 = 1.1 * (tf * dz2 + (gamma + pw) * yn * 2.0);
    (y, FftErr { each: fft_err, l2 })
}

/// The forward transform's rounding bounds ([`forward`]): `dz` on each output's modulus, `dz2`
/// the ℓ2 form's per-input constant (‖ΔZ‖₂ ≤ √N·dz2).
struct Forward {
    dz: f64,
    dz2: f64,
}

/// At most this many of the heaviest inputs are transformed directly by [`forward`].
const HEAVY: usize = 2;

/// An input at least this fraction of ‖z‖₁ is heavy ([`forward`]).
const HEAVY_SHARE: f64 = 0.05;

/// The forward transform of `z` in place (rustfft's e^{−2πijk/N}) and its rounding bounds
/// (docs/accounting.md#heavy-knots). The butterflies' bound is γ‖z‖₁ on each output; at tiny q
/// one knot holds almost all of the tilted step (99.6 % at q = 10⁻⁶, σ = 0.3, where that bound,
/// multiplied by T in the power, held the bracket at 5 digits), so up to [`HEAVY`] inputs of at
/// least [`HEAVY_SHARE`] of ‖z‖₁ are taken out, the rest transformed, and each heavy input z_j
/// added back as z_j·ω^{jk} ([`power_spectrum`] rotates the heaviest to j = 0, where ω^{jk} = 1
/// and the product is exact). Per output: the rest's γ‖z_rest‖₁; for j ≠ 0 the twiddle's 3.7u
/// ([`twiddle`]) and the complex product's √2·γ₂ ≤ 2.83u (Higham, Lemma 3.5) on |z_j|, taken as
/// 7u; each addition's u on a sum of modulus at most ‖z‖₁(1 + γ) — K·u·‖z‖₁(1 + γ) for K heavy
/// inputs; the margin 1.01 on the whole. Used when that bound is below half the plain one.
fn forward(z: &mut [Complex64], fwd: &dyn rustfft::Fft<f64>, gamma: f64) -> Forward {
    let nf = z.len();
    let z1 = norm1(z);
    let z2 = z.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
    let plain = Forward {
        dz: 1.01 * gamma * z1 + 4.0 * U,
        dz2: gamma * z2,
    };
    let heavy = heaviest(z);
    // Summed apart (not z1 minus the heavy ones, which cancels when they are nearly all of z).
    let rest1: f64 = z
        .iter()
        .enumerate()
        .filter(|(j, _)| !heavy.contains(j))
        .map(|(_, c)| abs1(c))
        .sum();
    let twiddled: f64 = heavy
        .iter()
        .filter(|&&j| j != 0)
        .map(|&j| 7.0 * U * abs1(&z[j]))
        .sum();
    let adds = heavy.len() as f64 * U * z1 * (1.0 + gamma);
    let split = 1.01 * (gamma * rest1 + twiddled + adds) + 4.0 * U;
    if heavy.is_empty() || nf < 8 || split > 0.5 * plain.dz {
        fwd.process(z);
        return plain;
    }
    let taken: Vec<(usize, Complex64)> = heavy.iter().map(|&j| (j, z[j])).collect();
    for &(j, _) in &taken {
        z[j] = Complex64::new(0.0, 0.0);
    }
    let z2r = z.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
    fwd.process(z);
    let n = nf as u64;
    for &(j, zj) in &taken {
        if j == 0 {
            z.iter_mut().for_each(|x| *x += zj);
            continue;
        }
        // ω^{j(N−k)} is the conjugate of ω^{jk}: one twiddle for both outputs.
        for kk in 0..=nf / 2 {
            let w = twiddle(j as u64 * kk as u64, n);
            z[kk] += zj * w;
            if kk != 0 && kk != nf / 2 {
                z[nf - kk] += zj * w.conj();
            }
        }
    }
    Forward {
        dz: split,
        dz2: gamma * z2r + twiddled + adds,
    }
}

/// |Re c| + |Im c|: the modulus bound the FFT's error bounds are stated in.
fn abs1(c: &Complex64) -> f64 {
    c.re.abs() + c.im.abs()
}

/// Σ (|Re z_j| + |Im z_j|): ‖z‖₁ of the FFT's error bounds.
fn norm1(z: &[Complex64]) -> f64 {
    z.iter().map(abs1).sum()
}

/// The indices of up to [`HEAVY`] inputs with at least [`HEAVY_SHARE`] of ‖z‖₁, heaviest first.
fn heaviest(z: &[Complex64]) -> Vec<usize> {
    let z1 = norm1(z);
    let mut heavy: Vec<usize> = Vec::with_capacity(HEAVY + 1);
    for (j, c) in z.iter().enumerate() {
        if abs1(c) >= HEAVY_SHARE * z1 && abs1(c) > 0.0 {
            heavy.push(j);
            heavy.sort_by(|&a, &b| abs1(&z[b]).total_cmp(&abs1(&z[a])));
            heavy.truncate(HEAVY);
        }
    }
    heavy
}

/// e^{−2πi·m/N} for N a power of two, at least 8, within 4u of the exact value (its modulus;
/// docs/accounting.md#heavy-knots): the angle 2πm/N is reduced exactly (integer arithmetic) to
/// ψ ∈ [0, π/4] by the octant symmetries, ψ = 2π·(r/N) is within (π/4)·2u of its value (r/N is
/// exact, 2π and the product each round once), and sin ψ, cos ψ ∈ [0, 1] are within an ulp (at
/// most u) of the exact functions at the rounded angle: each component within 1.6u + u, the
/// modulus within 3.7u. The octant's swaps and signs are exact.
fn twiddle(m: u64, n: u64) -> Complex64 {
    let m = m & (n - 1);
    let e = n / 8;
    let (oct, r) = (m / e, m % e);
    let r = if oct % 2 == 1 { e - r } else { r };
    let (s, c) = (std::f64::consts::TAU * (r as f64 / n as f64)).sin_cos();
    // θ = 2πm/N = oct·π/4 + φ; odd octants from ψ = π/4 − φ.
    let (cos, sin) = match oct {
        0 => (c, s),
        1 => (s, c),
        2 => (-s, c),
        3 => (-c, s),
        4 => (-c, -s),
        5 => (-s, -c),
        6 => (s, -c),
        _ => (c, -s),
    };
    Complex64::new(cos, -sin)
}

/// Σ_{j<t} m^j·b^{t−1−j} by binary powering of (mⁿ, bⁿ, Sₙ): S₂ₙ = Sₙ(mⁿ + bⁿ),
/// Sₙ₊₁ = mⁿ + Sₙ·b. At most four operations per bit of t, each within √5·u of its exact
/// result relative to the same expression in |m| and |b|.
fn geo_pair(m: Complex64, b: Complex64, t: u64) -> Complex64 {
    let one = Complex64::new(1.0, 0.0);
    let (mut pm, mut pb, mut s) = (one, one, Complex64::new(0.0, 0.0));
    for bit in (0..64 - t.leading_zeros()).rev() {
        s *= pm + pb;
        pm *= pm;
        pb *= pb;
        if (t >> bit) & 1 == 1 {
            s = pm + s * b;
            pm *= m;
            pb *= b;
        }
    }
    s
}

/// The excess of both packed pairs' T-fold compositions over their all-bulk parts,
/// D = (a + b)^{*T} − b^{*T} (`zb`: the knots up to the split, `za`: those above, each packed
/// upper + i·lower), as D̂ = Â·Σ_{j<T} M̂^j·B̂^{T−1−j} with M̂ = Â + B̂: every term carries Â, so
/// there is no cancellation and the rounding is relative to the excess, not to the whole sum.
/// Returns the masses (unscaled by 1/N) and the bound on each scaled mass's error.
///
/// Bounds, as for [`power_spectrum`]: the forward outputs are within d_a = (γ + 4u)‖z_a‖₁ and
/// d_b of the exact ones (unpacking included); with ρ ≥ |M̂_k|, |B̂_k| on their error discs,
/// |∂D̂/∂Â| ≤ Tρ^{T−1} and |∂D̂/∂B̂| = T|Â·Σ_{j<T−1} M̂^j B̂^{T−2−j}| ≤ T(T−1)|Â|ρ^{T−2}; the
/// product's own rounding is at most 12(log₂T + 1)·u·|Â|·Tρ^{T−1} ([`geo_pair`]'s ≤ 4√5·u per
/// bit, and the final product); the inverse transform adds γ·mean|Ĉ_k|. The ℓ2 form uses
/// ‖ΔÂ‖₂ ≤ (γ + 4u)√N‖z_a‖₂ (Higham, Thm 24.2) and the same derivatives.
fn excess_spectrum(
    mut zb: Vec<Complex64>,
    mut za: Vec<Complex64>,
    t: u64,
) -> (Vec<Complex64>, FftErr) {
    let nf = zb.len();
    let tf = t as f64;
    let gamma = 8.0 * (nf as f64).log2() * U;
    let g = 1.01 * gamma + 4.0 * U;
    let norm2 = |z: &[Complex64]| z.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt();
    let (a1, b1, a2, b2) = (norm1(&za), norm1(&zb), norm2(&za), norm2(&zb));
    let fwd = forward_plan(nf);
    fwd.process(&mut za);
    fwd.process(&mut zb);
    let (da, db) = (g * a1, g * b1);
    let dm = da + db + 2.0 * U * (a1 + b1);
    let rs = 12.0 * (tf.log2() + 1.0) * U;
    let t2 = t.saturating_sub(2);
    let half = Complex64::new(0.5, 0.0);
    let mi = Complex64::new(0.0, -0.5);
    let i1 = Complex64::new(0.0, 1.0);
    let (mut prop, mut c1, mut r2, mut amax, mut rho_max) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64);
    let mut y: Vec<Complex64> = (0..nf)
        .map(|k| {
            let unpack = |z: &[Complex64]| {
                let (zk, zc) = (z[k], z[(nf - k) % nf].conj());
                ((zk + zc) * half, (zk - zc) * mi)
            };
            let ((au, al), (bu, bl)) = (unpack(&za), unpack(&zb));
            let mut out = [Complex64::new(0.0, 0.0); 2];
            let mut round = 0.0;
            for (o, (a, b)) in out.iter_mut().zip([(au, bu), (al, bl)]) {
                let m = a + b;
                *o = a * geo_pair(m, b, t);
                let rho = (m.norm() + dm).max(b.norm() + db);
                let na = a.norm() + da;
                let sb = tf * pow_bound(rho, t - 1);
                let r = na * rs * sb;
                prop += sb * da + tf * (tf - 1.0) * na * pow_bound(rho, t2) * db + r;
                round += r;
                amax = amax.max(na);
                rho_max = rho_max.max(rho);
            }
            r2 += round * round;
            let c = out[0] + i1 * out[1];
            c1 += c.norm();
            c
        })
        .collect();
    drop(za);
    drop(zb);
    inverse(&*fwd, &mut y);
    let each = 1.01 * (prop + gamma * c1) / nf as f64;
    let yn = y.iter().map(|c| c.norm_sqr()).sum::<f64>().sqrt() / nf as f64;
    let l2 = 1.1
        * (2.0 * tf * pow_bound(rho_max, t - 1) * g * a2
            + 2.0 * tf * (tf - 1.0) * amax * pow_bound(rho_max, t2) * g * b2
            + (r2 / nf as f64).sqrt()
            + 2.0 * gamma * yn);
    (y, FftErr { each, l2 })
}

/// The fixed shape of [`core_eval`]: T, the steps outside the core carried (j from 0 when
/// `whole`, else from 1, to `jmax`), the binomial coefficients, and the split of T − j into its
/// bits below β (a table over 2^β) and above (at most two values, T − j spanning fewer than 2^β).
struct CoreShape {
    t: u64,
    jmax: usize,
    whole: bool,
    binom: Vec<f64>,
    beta: u32,
    hv0: u64,
    hvs: Vec<u64>,
}

impl CoreShape {
    fn new(t: u64, jmax: usize, whole: bool) -> CoreShape {
        let beta = 64 - (jmax as u64).leading_zeros();
        let mut binom = vec![1.0f64; jmax + 1];
        for j in 1..=jmax {
            binom[j] = binom[j - 1] * (t - (j as u64 - 1)) as f64 / j as f64;
        }
        let j0 = if whole { 0 } else { 1 };
        let (lo, hi) = ((t - jmax as u64) >> beta, (t - j0) >> beta);
        CoreShape {
            t,
            jmax,
            whole,
            binom,
            beta,
            hv0: lo,
            hvs: (lo..=hi).collect(),
        }
    }

    /// Operations along the longest chain of [`core_eval`] (for its rounding bound): the table
    /// and the high product (at most 64 bits), the recurrence of E_j (3 per step), the term
    /// (3, with the binomial's own 2j roundings) and the sum (1 per term).
    fn depth(&self) -> f64 {
        (64 + 8 + 7 * self.jmax) as f64
    }
}

/// One frequency of [`core_spectrum`] for one pair, generic over the number type: complex (the
/// value) or real (the same polynomial on magnitudes, for the rounding bounds). `g`: the core's
/// binary powers (index b), `a`, `b`: the rest above and below the split.
fn core_eval<N>(g: &[N], a: N, b: N, one: N, zero: N, sh: &CoreShape) -> N
where
    N: Copy
        + std::ops::Add<Output = N>
        + std::ops::Mul<Output = N>
        + std::ops::Mul<f64, Output = N>,
{
    let beta = sh.beta as usize;
    let mut low = [zero; 64];
    low[0] = one;
    for l in 1..(1usize << beta) {
        let tz = l.trailing_zeros() as usize;
        low[l] = if tz < g.len() {
            low[l & (l - 1)] * g[tz]
        } else {
            zero
        };
    }
    let mut high = [zero; 2];
    for (i, &hv) in sh.hvs.iter().enumerate() {
        let mut pr = one;
        for (bit, &gb) in g.iter().enumerate().skip(beta) {
            if (hv >> (bit - beta)) & 1 == 1 {
                pr = pr * gb;
            }
        }
        high[i] = pr;
    }
    let mask = (1u64 << beta) - 1;
    let m = a + b;
    // Σ_j over each value of T − j's high bits, then times that value's product.
    let (mut e, mut bp, mut sums) = (zero, one, [zero; 2]);
    for j in 0..=sh.jmax {
        if j > 0 {
            if sh.whole {
                // No split: E_j = a^j.
                e = if j == 1 { a } else { e * a };
            } else {
                // E_j = (a + b)^j − b^j from E_{j−1}: every term carries a.
                e = m * e + a * bp;
                bp = bp * b;
            }
        } else if !sh.whole {
            continue;
        }
        let r = sh.t - j as u64;
        let ej = if j == 0 { one } else { e };
        let g = ((r >> beta) - sh.hv0) as usize;
        sums[g] = sums[g] + low[(r & mask) as usize] * ej * sh.binom[j];
    }
    let mut sum = zero;
    for (i, s) in sums.iter().enumerate().take(sh.hvs.len()) {
        sum = sum + high[i] * *s;
    }
    sum
}

/// The spectrum of a composition with the core ([`core_inputs`]): per frequency, for each pair,
/// S = [whole]·C_T + Σ_{j=1}^{J} C(T, j)·C_{T−j}·E_j with C_m = Π_{b ∈ bits(m)} Ĝ_b and
/// E_j = (Â + B̂)^j − B̂^j ([`core_eval`]); the composed masses (unscaled by 1/N) and the bound
/// on each scaled mass's error.
///
/// Rounding: S is a polynomial with nonnegative coefficients in the inputs, so inputs within
/// d_x of the exact ones (the forward FFT's γ‖z_x‖₁, with the unpacking, as in
/// [`excess_spectrum`]) move it by at most S(|x| + d) − S(|x|), both evaluated on magnitudes;
/// its evaluation, D operations deep, is within (1 + 4u)^D − 1 of S(|x| + d) (a complex
/// product or sum errs by at most 4u of the same in magnitudes), and so are the two magnitude
/// evaluations; the inverse transform adds γ·mean|Ŝ_k|. The per-frequency work runs on the
/// thread pool in fixed chunks, its sums added in order (the same bits on any thread count).
fn core_spectrum(
    mut zg: Vec<Vec<Complex64>>,
    mut za: Vec<Complex64>,
    mut zb: Option<Vec<Complex64>>,
    t: u64,
    jmax: usize,
    whole: bool,
) -> (Vec<Complex64>, FftErr) {
    use rayon::prelude::*;
    let nf = za.len();
    let gamma = 8.0 * (nf as f64).log2() * U;
    let g = 1.01 * gamma + 4.0 * U;
    let dg: Vec<f64> = zg.iter().map(|z| g * norm1(z)).collect();
    let da = g * norm1(&za);
    let db = zb.as_ref().map_or(0.0, |z| g * norm1(z));
    let fwd = forward_plan(nf);
    for z in &mut zg {
        fwd.process(z);
    }
    fwd.process(&mut za);
    if let Some(z) = zb.as_mut() {
        fwd.process(z);
    }
    let sh = CoreShape::new(t, jmax, whole);
    let depth = sh.depth();
    let own = 1.01 * 4.0 * U * depth;
    let bits = zg.len();
    // The largest degree of a monomial of S: the bits of T − j and the j steps outside the core.
    let deg = (bits + jmax) as f64;
    let zero = Complex64::new(0.0, 0.0);
    let mut y = vec![zero; nf];
    const CHUNK: usize = 1 << 14;
    let sums: Vec<(f64, f64)> = y
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(ci, out)| {
            let (half, mi, i1) = (
                Complex64::new(0.5, 0.0),
                Complex64::new(0.0, -0.5),
                Complex64::new(0.0, 1.0),
            );
            let unpack = |z: &[Complex64], k: usize| {
                let (zk, zc) = (z[k], z[(nf - k) % nf].conj());
                ((zk + zc) * half, (zk - zc) * mi)
            };
            let (mut prop, mut c1) = (0.0f64, 0.0f64);
            let mut gu = vec![zero; bits];
            let mut gl = vec![zero; bits];
            let mut ru = vec![0.0; bits];
            let mut rl = vec![0.0; bits];
            for (i, o) in out.iter_mut().enumerate() {
                let k = ci * CHUNK + i;
                for b in 0..bits {
                    let (u, l) = unpack(&zg[b], k);
                    (gu[b], gl[b]) = (u, l);
                    (ru[b], rl[b]) = (u.norm() + dg[b], l.norm() + dg[b]);
                }
                let (au, al) = unpack(&za, k);
                let (bu, bl) = zb.as_ref().map_or((zero, zero), |z| unpack(z, k));
                let one = Complex64::new(1.0, 0.0);
                let su = core_eval(&gu, au, bu, one, zero, &sh);
                let sl = core_eval(&gl, al, bl, one, zero, &sh);
                // S(|x| + d) − S(|x|) ≤ S(ρ)·(1 − (1 − r)^deg) ≤ S(ρ)·deg·r, ρ = |x| + d and r the
                // largest d/ρ over the inputs (each |x| ≥ (1 − r)ρ; a monomial has degree ≤ deg).
                for (r, a, b) in [(&ru, au.norm(), bu.norm()), (&rl, al.norm(), bl.norm())] {
                    let (ra, rb) = (a + da, b + db);
                    let mut rel = if ra > 0.0 { da / ra } else { 0.0 };
                    if rb > 0.0 {
                        rel = rel.max(db / rb);
                    }
                    for (x, d) in r.iter().zip(&dg) {
                        if *x > 0.0 {
                            rel = rel.max(d / x);
                        }
                    }
                    let up = core_eval(r, ra, rb, 1.0, 0.0, &sh);
                    prop += up * ((deg * rel).min(1.0) + 3.0 * own);
                }
                let c = su + i1 * sl;
                c1 += c.norm();
                *o = c;
            }
            (prop, c1)
        })
        .collect();
    drop(zg);
    drop(za);
    drop(zb);
    let (prop, c1) = sums
        .iter()
        .fold((0.0, 0.0), |(p, c), &(a, b)| (p + a, c + b));
    inverse(&*fwd, &mut y);
    let each = 1.01 * (prop + gamma * c1) / nf as f64;
    (
        y,
        FftErr {
            each,
            l2: each * (nf as f64).sqrt(),
        },
    )
}

/// The FFT's rounding bounds on the composed (tilted) masses: on each, and on their ℓ2 norm.
#[derive(Clone, Copy, Debug)]
struct FftErr {
    each: f64,
    l2: f64,
}

/// The first grid step: about 2^13 cells over the step's loss range.
fn initial_h(law: &Law, m_cut: f64) -> f64 {
    let span = if law.s > 0.0 {
        law.loss(law.cut(m_cut, true)).min(law.ceiling) - law.l1q
    } else {
        -law.l1q - law.loss(law.cut(m_cut, false))
    };
    span / 8192.0
}

/// How much coarser than [`initial_h`] a settle's probe is ([`delta_passes`]): at q = 10⁻⁵,
/// σ = 2, T = 10⁶ the add direction's δ at the remove direction's ε_lo was 1.2 % below the
/// δ = 10⁻⁵ asked, and a step 8 times coarser still settles it (upper end 9.93·10⁻⁶, an FFT of
/// 1.5·10⁵ knots in 75 ms, against 1.2·10⁶ knots in 0.61 s at the plain step). A probe that
/// does not settle costs about an eighth of the plain first pass.
const SETTLE_COARSE: f64 = 8.0;

/// Passes of grid refinement before the route gives up.
const PASSES: usize = 5;

/// One pass at step h: discretise (single-step tails ≤ budget/T) and compose (`blocks`,
/// `rel`: see [`compose`]).
#[allow(clippy::too_many_arguments)]
fn pass(
    law: &Law,
    t: u64,
    h: f64,
    budget: f64,
    query: Query,
    calib: f64,
    blocks: bool,
    rel: f64,
    fine: bool,
) -> Result<Both> {
    work_allows(h)?;
    // The fine core is cut from a grid with its knot at ℓ_min ([`core_of`]).
    let p = if fine {
        discretise(law, h, budget / t as f64)?
    } else {
        discretise_at_pile(law, h, budget / t as f64)?
    };
    let c = compose(&p, t, budget, query, calib, blocks, rel, fine)?;
    let knots = c.knots();
    WORK.with(|w| {
        let mut v = w.get();
        v.spent += knots;
        v.last = Some((knots, h));
        w.set(v);
    });
    Ok(c)
}

/// The passes' work on this thread, in composed knots (the FFTs' lengths summed over a pass's
/// compositions): a deterministic measure of their cost, for [`eps_one`]'s share of the reads at
/// points. `budget`: the knots the passes may still compose (None: no bound); `last`: the last
/// pass's knots and step, to predict the next.
#[derive(Clone, Copy, Default)]
struct Work {
    spent: f64,
    budget: Option<f64>,
    last: Option<(f64, f64)>,
}

thread_local! {
    static WORK: std::cell::Cell<Work> = std::cell::Cell::new(Work::default());
}

/// Runs `f` with at most `budget` more composed knots for its passes (None: no bound), restoring
/// the previous bound afterwards.
fn with_work<T>(budget: Option<f64>, f: impl FnOnce() -> T) -> T {
    let old = WORK.with(|w| {
        let old = w.get();
        w.set(Work {
            budget: budget.map(|b| old.spent + b),
            last: None,
            ..old
        });
        old
    });
    let out = f();
    WORK.with(|w| {
        let now = w.get();
        w.set(Work {
            budget: old.budget,
            last: now.last,
            spent: now.spent,
        })
    });
    out
}

/// The knots composed on this thread so far.
fn work_spent() -> f64 {
    WORK.with(|w| w.get().spent)
}

/// Before a pass at step h: an error when a work bound is set and the pass, predicted from the
/// last one (knots go as 1/h), would pass it.
fn work_allows(h: f64) -> Result<()> {
    let w = WORK.with(|w| w.get());
    if let (Some(limit), Some((knots, h_last))) = (w.budget, w.last) {
        if w.spent + knots * (h_last / h).max(1.0) > limit {
            return Err(budget_error(
                "the reads at points' share of the work is spent",
            ));
        }
    }
    Ok(())
}

/// The discretisation's predicted reduction by the fine core, for the first pass that uses it
/// (then the passes measure it): about T over the core's groups, measured 14 at T = 100 and 33
/// at T = 300 (q = 0.001, σ = 1, ε = 30; docs/accounting.md#fine-core), taken as T/8 within
/// [4, 30].
fn core_gain(t: u64) -> f64 {
    (t as f64 / 8.0).clamp(4.0, 30.0)
}

/// Whether a pass asked for the core (`fine`) used it, and whether a next pass may: a pass that
/// asked and composed without it (no J within [`CORE_MAX_J`], a window beyond the cap) was a
/// plain pass, and the next is too.
fn core_state(c: &Both, fine: bool) -> (bool, bool) {
    let used = fine && c.core_used > 0;
    (used, c.core_fits && (used || !fine))
}

/// The next step after a pass `c` at step h with discretisation width `disc` (against `target`),
/// and whether the next pass composes with the fine core: once a pass used it (`fine`, asked
/// for, and [`core_state`]), always; otherwise from the pass the grid alone cannot make within
/// the FFT cap (the step the discretisation asks for would need a longer window than the cap),
/// when a core fits (`core_fits`: T ≥ [`CORE_MIN_T`] remove steps, [`core_knot`]), its step
/// chosen for the predicted gain ([`core_gain`]). A pass with the core costs about three on the
/// grid alone at the same FFT length (the binary powers' transforms, J terms per frequency), so
/// below the cap the grid alone is faster. With the core, the step does not go below a tenth
/// above the finest at which the core still holds the tilted step ([`core_knot`]; at
/// q = 0.001, σ = 1, T = 1000, ε = 30, a step 20 % finer than that lost the core and the answer).
fn next_step(
    law: &Law,
    t: u64,
    (h, disc, target): (f64, f64, f64),
    c: &Both,
    fine: bool,
) -> Result<(f64, bool)> {
    let (fine, core_fits) = core_state(c, fine);
    let len = c.need;
    let with_core = |h_next: f64| h_next.max(1.1 * c.core_h).min(h);
    let plain = refine(h, disc, target, len);
    let core_ok = law.s > 0.0 && t >= CORE_MIN_T && core_fits;
    if fine {
        return plain.map(|h| (with_core(h), true));
    }
    if !core_ok {
        return plain.map(|h| (h, false));
    }
    let long = plain
        .as_ref()
        .map_or(true, |&next| len * h / next > (1u64 << MAX_LOG2) as f64);
    if long {
        return refine(h, disc / core_gain(t), target, len).map(|h| (with_core(h), true));
    }
    plain.map(|h| (h, false))
}

/// The next step from a bracket `width` wide against `target` (the error is second order in h),
/// after a pass whose longest window was `len` knots (the window's length in loss units stays
/// about the same, so its knots go as 1/h).
fn refine(h: f64, width: f64, target: f64, len: f64) -> Result<f64> {
    let f = if width <= target {
        1.0
    } else {
        ((width / target).sqrt() * 1.25).clamp(1.5, 32.0)
    };
    // Short of the cap, the finest step it allows: one more pass may still narrow the bracket
    // to the digits (the refinement's factor has a margin). The window's length, not its
    // FFT's power of two: at q = 0.01, σ = 5, T = 1000, ε = 2 the decisive block's window was
    // 8.8·10⁶ knots on an FFT of 2²⁴, and the step the digits needed was 1.6 times finer (until
    // stop 43 the FFT's length counted, and the route stopped at 5 digits).
    let room = (1u64 << MAX_LOG2) as f64 * 1.01 / len;
    if f > 1.0 && room < 1.5 {
        return Err(budget_error(
            "the grid needed for the digits asked exceeds the FFT cap",
        ));
    }
    Ok(h / f.min(room))
}

/// Before a pass: the time the last one took (`last`, at step `h_last`, with the core or not)
/// scaled to the next step h (the FFT's length and the cells go as 1/h), against the time left.
/// A pass that would outlast the limit is not started (an FFT cannot stop midway: a 2^24 one
/// takes seconds), so the route ends near the limit with its narrowest bracket instead of well
/// past it. The first pass with the fine core (`fine`) counts [`CORE_COST`] plain ones.
fn pace(last: Option<(std::time::Duration, f64, bool)>, h: f64, fine: bool) -> Result<()> {
    expired()?;
    let Some((took, h_last, was_fine)) = last else {
        return Ok(());
    };
    let cost = if fine && !was_fine { CORE_COST } else { 1.0 };
    let next = took.mul_f64((h_last / h).clamp(1.0, 1e6) * cost);
    match crate::numeric::deadline::expires_within(next) {
        Some(limit) => Err(budget_error(&format!(
            "time limit of {limit} s: the next pass (about {:.1} s) would pass it",
            next.as_secs_f64()
        ))),
        None => Ok(()),
    }
}

/// A pass with the fine core against one on the grid alone at the same FFT length, for
/// [`pace`]: measured 3–6 (the binary powers' transforms and J terms per frequency).
const CORE_COST: f64 = 5.0;

fn expired() -> Result<()> {
    match crate::numeric::deadline::expired() {
        Some(limit) => Err(budget_error(&format!("time limit of {limit} s reached"))),
        None => Ok(()),
    }
}

/// The narrowest (relative width) of the valid brackets the passes found.
fn keep_best(best: &mut Option<(f64, f64)>, lo: f64, hi: f64) {
    let rel = |(l, h): (f64, f64)| (h - l) / (h + l).max(f64::MIN_POSITIVE);
    if best.is_none_or(|b| rel((lo, hi)) < rel(b)) {
        *best = Some((lo, hi));
    }
}

/// A direction's answer from its `passes` (which keep each valid bracket with [`keep_best`]):
/// the bracket with the digits asked, or, when the passes ran out (the FFT cap, the time limit,
/// the refinements, the FFT's rounding) after at least one bracket, the narrowest found (valid,
/// with fewer digits: the dispatcher tries the inversion, and reports this one if that does no
/// better). An error only when no pass completed.
fn narrowest(
    passes: impl FnOnce(&mut Option<(f64, f64)>) -> Result<(f64, f64)>,
) -> Result<(f64, f64)> {
    let mut best = None;
    passes(&mut best).or_else(|e| best.ok_or(e))
}

/// Whether a bracket has `digits` digits (the routes' stopping test).
fn has_digits(lo: f64, hi: f64, digits: u32) -> bool {
    hi - lo <= 10f64.powi(-(digits as i32)) * (hi + lo)
}

/// ε(δ) of one direction to `digits` digits, or the narrowest bracket found ([`narrowest`]).
/// `settle`: the other direction's lower end; a bracket whose upper end is at most it settles
/// this direction's part in the mechanism's value (the max of the two), whatever its digits.
/// Where the passes fall short with a bracket, δ(ε) at points narrows it ([`eps_by_points`]).
fn eps_one(law: &Law, t: u64, delta: f64, digits: u32, settle: Option<f64>) -> Result<(f64, f64)> {
    narrowest(|best| {
        let before = work_spent();
        let passes = eps_passes(law, t, delta, digits, settle, best);
        let done =
            |&(lo, hi): &(f64, f64)| has_digits(lo, hi, digits) || settle.is_some_and(|x| hi <= x);
        match passes {
            Ok(b) if done(&b) => Ok(b),
            _ if best.is_some_and(|(lo, hi)| lo > 0.0 && hi.is_finite()) => {
                // From σ = SMALL_SIGMA up, where the inversion that follows answers, the reads at
                // points may compose at most POINTS_SHARE times the knots the passes composed
                // (a deterministic share, not a time): a rescue, not the route's main cost.
                // Below, this route is the one that answers (q = 10⁻⁶, σ = 0.3, T = 10³: 9 s of
                // reads after 2 s of passes give the digits; the inversion fails), and they run
                // to the limit.
                let share =
                    (law.sigma >= SMALL_SIGMA).then(|| POINTS_SHARE * (work_spent() - before));
                with_work(share, || eps_by_points(law, t, delta, digits, settle, best));
                let b = best.expect("kept");
                if done(&b) {
                    Ok(b)
                } else {
                    passes.and(Err(budget_error(
                        "no bracket with the digits asked from delta(eps) at points",
                    )))
                }
            }
            _ => passes,
        }
    })
}

/// The reads at points' work from σ = [`SMALL_SIGMA`] up, as a multiple of the knots the ε(δ)
/// passes before them composed ([`eps_one`]; docs/accounting.md#eps-by-points): at q = 10⁻⁴,
/// σ = 0.6, T = 300, without a time limit, they took 37 s to reach the digits that the inversion
/// after them gives in 7 s.
const POINTS_SHARE: f64 = 2.0;

/// ε(δ) of one direction read from δ(ε)'s passes (docs/accounting.md#eps-by-points), after the
/// ε(δ) passes fell short with the bracket in `best`, which it narrows. The δ(ε) passes compose
/// by blocks of the largest step where their split's bound wins ([`delta_passes`],
/// docs/accounting.md#blocks), which reach far tails at tiny q that the ε(δ) passes' single
/// composition cannot. They are run at ε_ref, the bracket's lower end (ε(δ) ≥ ε_ref, certified),
/// and their narrowest composition is read for both ends ([`read_ends`]): its lower pair's δ is a
/// lower bound at every ε, and its upper pair's an upper bound at every ε ≥ ε_ref (the blocks'
/// Chernoff bounds at ε_ref only fall above it). First at 2 digits, for ε's scale and the slope
/// λ = −d ln δ/dε; then at ε's new lower end with the δ digits that d digits of ε ask for
/// (ε moves by about w/λ for a relative width w of δ); once more from the new lower end when
/// that falls short. Stops at an evaluation that fails (the time limit).
fn eps_by_points(
    law: &Law,
    t: u64,
    delta: f64,
    digits: u32,
    settle: Option<f64>,
    best: &mut Option<(f64, f64)>,
) {
    let done = |(a, b): (f64, f64)| has_digits(a, b, digits) || settle.is_some_and(|x| b <= x);
    let mut d_delta = 2u32;
    for _ in 0..3 {
        let Some((a, b)) = *best else {
            return;
        };
        if done((a, b)) || expired().is_err() {
            return;
        }
        let mut kept = None;
        let mut found = None;
        let _ = delta_passes(law, t, a, d_delta, None, &mut found, true, Some(&mut kept));
        let Some(c) = kept else {
            return;
        };
        let (lo, hi) = read_ends(&c, a, delta);
        if lo > a || hi < b {
            *best = Some((lo.max(a), hi.min(b)));
        }
        // The slope at the new bracket's middle, from the upper pair's estimate (no error terms).
        let (a, b) = best.expect("kept");
        let (e1, e2) = (a, a + 0.5 * (b - a).max(1e-9 * a));
        let lam = (c.approx(e1, true).ln() - c.approx(e2, true).ln()) / (e2 - e1);
        if !(lam.is_finite() && lam > 0.0) {
            return;
        }
        // ε's bracket is about 2.4·w/λ wide for δ's relative width w: w ≤ 0.8·10^−d·ε·λ.
        let w = 0.8 * 10f64.powi(-(digits as i32)) * 0.5 * (a + b) * lam;
        d_delta = (2.0 / w).log10().ceil().clamp(1.0, f64::from(MAX_DIGITS)) as u32;
    }
}

/// The ε(δ) bracket read from a δ(ε) composition `c` made at `eps_ref` ([`eps_by_points`]): the
/// upper end the smallest ε ≥ eps_ref found with the upper pair's δ at most δ (∞ when none), the
/// lower end the largest ε found with the lower pair's δ above δ (0 when none). δ as a double is
/// within one rounding of the exact decimal (as in [`eps_passes`]).
fn read_ends(c: &Both, eps_ref: f64, delta: f64) -> (f64, f64) {
    let top = c.top().max(eps_ref);
    let (d_lo, d_hi) = (delta * (1.0 - 2.0 * U), delta * (1.0 + 2.0 * U));
    let hi = eps_end(
        top,
        true,
        |e| c.approx(e, true) <= delta,
        |e| e >= eps_ref && c.delta(e, true) <= d_lo,
    );
    let lo = eps_end(
        top,
        false,
        |e| c.approx(e, false) <= delta,
        |e| c.delta(e, false) > d_hi,
    );
    (lo, hi)
}

/// The ceiling of a remove step's grid for a pass read up to ε = `eps_hi` (docs/accounting.md#hits):
/// the compositions with a step above it have loss above ε·[`CEILING_ROOM`] ([`Hits`]), and the
/// closed form's allowance (T·α_P·[`TAIL_REL`] of A, α_P the step's mass above it) is within a
/// thirty-second of the pass's `budget`. ∞ (no ceiling) for the add direction or an ε beyond a
/// double's reach.
fn ceiling_for(law: &Law, t: u64, eps_hi: f64, budget: f64) -> f64 {
    if law.s < 0.0 || !eps_hi.is_finite() {
        return f64::INFINITY;
    }
    let tf = t as f64;
    let room = CEILING_ROOM * eps_hi.max(0.0) - (tf - 1.0) * law.l1q;
    let exact = law.loss(law.cut(budget / (32.0 * tf * TAIL_REL), true));
    room.max(exact)
}

/// How far above the bracket's upper end a pass's hits stay exact ([`ceiling_for`]).
const CEILING_ROOM: f64 = 1.25;

/// The passes of [`eps_one`], each valid bracket kept in `best`.
fn eps_passes(
    law: &Law,
    t: u64,
    delta: f64,
    digits: u32,
    settle: Option<f64>,
    best: &mut Option<(f64, f64)>,
) -> Result<(f64, f64)> {
    let budget = delta * 10f64.powi(-(digits as i32) - 3);
    let mut h = initial_h(law, budget / t as f64);
    let mut guess = None;
    let mut calib = 1.0;
    let mut last = None;
    let mut fine = false;
    for _ in 0..PASSES {
        pace(last, h, fine)?;
        let started = std::time::Instant::now();
        // From the second pass, the steps above what the bracket's upper end needs on the grid
        // are carried in closed form ([`ceiling_for`]).
        let law = &match *best {
            Some((_, hi)) => law.with_ceiling(ceiling_for(law, t, hi, budget)),
            _ => *law,
        };
        let c = pass(
            law,
            t,
            h,
            budget,
            Query::Eps(delta, guess),
            calib,
            false,
            1.0,
            fine,
        )?;
        calib = c.calib;
        last = Some((started.elapsed(), h, fine));
        // δ as a double is within one rounding of the exact decimal: each end uses the side of
        // it that keeps the bracket valid.
        let hi = c.eps(delta * (1.0 - 2.0 * U), true);
        let lo = c.eps(delta * (1.0 + 2.0 * U), false);
        if !hi.is_finite() {
            return Err(budget_error("the upper pair's eps is beyond the grid"));
        }
        keep_best(best, lo, hi);
        if settle.is_some_and(|x| hi <= x) {
            return Ok((lo, hi));
        }
        let width = hi - lo;
        // The next pass tilts at this estimate, a little below it, and may spend an eighth of
        // the δ-width that d digits of ε allow there (2|dδ/dε|·ε·10^−d) on the FFT's rounding at
        // each end; h shrinks by the discretisation's share of the width (second order in h).
        let e = lo - 0.1 * width;
        let slope = c.slope(e);
        let allowed = 2.0 * slope * e.max(0.0) * 10f64.powi(-(digits as i32));
        guess = Some((e, 0.125 * allowed));
        let em = 0.5 * (lo + hi);
        let disc = c.approx(em, true) - c.approx(em, false);
        if has_digits(lo, hi, digits) {
            return Ok((lo, hi));
        }
        // The discretisation's share of the next width: what the digits allow less the next
        // FFT rounding's quarter and this pass's other terms (labels, hits, window), which a
        // finer step does not narrow; at least half. (Half, until stop 55: at q = 10⁻⁶, σ = 0.4,
        // T = 10⁵ the other terms were 10⁻⁴ of the width, and the step went to 2.3 times
        // finer, an FFT of 2²³, where 1.35 was enough and 2²² holds the window.)
        let other = (c.delta(em, true) - c.delta(em, false) - disc).max(0.0);
        let share = (0.75 * allowed - other).max(0.5 * allowed);
        let next = next_step(law, t, (h, disc, share), &c, fine)?;
        // The grid's share is within its allowance (the step stays), so the rest of the width is
        // the FFT's rounding; at the strongest tilt a next pass would only repeat this one (at
        // q = 10⁻⁴, σ = 0.6, T = 300, ε(10⁻⁵): three passes of 4.3 s at h = 2.8·10⁻⁶, the same
        // bracket to ten digits). The route reads δ(ε) at points instead ([`eps_one`]).
        if c.tilt_maxed && next == (h, fine) {
            return Err(budget_error(
                "the FFT's rounding, not the grid, bounds the bracket",
            ));
        }
        (h, fine) = next;
    }
    Err(budget_error(
        "no bracket with the digits asked after the refinements",
    ))
}

/// ε(δ) of one direction near δ = 1 from the complement (docs/accounting.md#discrete-complement),
/// γ = 1 − δ given as an interval [γ_lo, γ_hi] of doubles, to `digits` digits, or the narrowest
/// bracket found ([`narrowest`]); `settle` as for [`eps_one`].
fn eps_complement_one(
    law: &Law,
    t: u64,
    gamma: (f64, f64),
    digits: u32,
    settle: Option<f64>,
) -> Result<(f64, f64)> {
    narrowest(|best| eps_complement_passes(law, t, gamma, digits, settle, best))
}

/// The passes of [`eps_complement_one`], each valid bracket kept in `best`.
fn eps_complement_passes(
    law: &Law,
    t: u64,
    (g_lo, g_hi): (f64, f64),
    digits: u32,
    settle: Option<f64>,
    best: &mut Option<(f64, f64)>,
) -> Result<(f64, f64)> {
    let budget = g_lo * 10f64.powi(-(digits as i32) - 3);
    let mut h = initial_h(law, budget / t as f64);
    let mut guess = None;
    let mut last = None;
    for _ in 0..PASSES {
        pace(last, h, false)?;
        let started = std::time::Instant::now();
        let p = discretise_for(law, h, budget / t as f64, true, false)?;
        let c = compose(
            &p,
            t,
            budget,
            Query::Complement(g_lo, guess),
            1.0,
            false,
            1.0,
            false,
        )?;
        // The ε bracket's upper end where the lowered pair's 1 − δ reaches γ's upper end, its
        // lower end where the raised pair's is still at most γ's lower end.
        last = Some((started.elapsed(), h, false));
        let (low, up) = c.single();
        let hi = low.complement_eps(g_hi, true);
        let lo = up.complement_eps(g_lo, false);
        if !hi.is_finite() {
            return Err(budget_error("the lowered pair's eps is beyond the grid"));
        }
        keep_best(best, lo, hi);
        if settle.is_some_and(|x| hi <= x) || has_digits(lo, hi, digits) {
            return Ok((lo, hi));
        }
        let width = hi - lo;
        let e = lo - 0.1 * width;
        let slope = low.complement_slope(e.max(0.0));
        let allowed = 2.0 * slope * e.max(0.0) * 10f64.powi(-(digits as i32));
        guess = Some((e.max(0.0), 0.125 * allowed));
        let em = 0.5 * (lo + hi);
        let disc = (up.complement_approx(em) - low.complement_approx(em)).abs();
        (h, _) = next_step(law, t, (h, disc, 0.5 * allowed), &c, false)?;
    }
    Err(budget_error(
        "no bracket with the digits asked after the refinements",
    ))
}

/// Smallest δ of an ε(δ) query this route takes: below, the dispatcher uses the inversion. (A
/// δ(ε) query has no floor: its truncation budget follows δ's scale, and the tilt makes the
/// FFT's rounding relative to δ, as far as the Chernoff factor e^{Tc − λε} is tight.)
const MIN_DELTA: f64 = 1e-9;
/// Largest δ of an ε(δ) query this route takes first (near δ = 1, ε(δ) is 0 or tiny and the
/// inversion's answer is immediate).
const MAX_DELTA: f64 = 0.1;
/// Largest δ of an ε(δ) query this route takes as the inversion's fallback
/// ([`eps_for_delta`]): the reading is the same at any δ, whose absolute FFT errors
/// (≈ 10⁻¹⁶) leave 6 digits of δ to 0.99; checked against the inversion at δ = 0.6 and 0.99
/// (docs/accounting.md#limits).
const MAX_DELTA_FALLBACK: f64 = 0.99;
/// Smallest δ of an ε(δ) query this route takes as the inversion's fallback (and first at small
/// σ): the reading's truncations and FFT errors scale with δ (the budget is 10^{−(d+3)}·δ, the
/// tilt makes the rounding relative), so the floor is only where that budget stays a normal
/// double (q = 0.01, σ = 0.3, T = 1000, δ = 10⁻²⁰: 6 digits, refused before).
const MIN_DELTA_FALLBACK: f64 = 1e-280;

/// δ(ε) of one direction to `digits` digits, or the narrowest bracket found ([`narrowest`]).
/// `blocks`: compose by blocks of the largest step from the first pass where the knots split
/// (the dispatcher's second try, after the inversion), else only where the split's bound wins.
fn delta_one(
    law: &Law,
    t: u64,
    eps: f64,
    digits: u32,
    settle: Option<f64>,
    blocks: bool,
) -> Result<(f64, f64)> {
    narrowest(|best| delta_passes(law, t, eps, digits, settle, best, blocks, None))
}

/// The passes of [`delta_one`], each valid bracket kept in `best`, and in `kept` (when given)
/// the composition of the pass that gave it.
#[allow(clippy::too_many_arguments)]
fn delta_passes(
    law: &Law,
    t: u64,
    eps: f64,
    digits: u32,
    settle: Option<f64>,
    best: &mut Option<(f64, f64)>,
    blocks: bool,
    mut kept: Option<&mut Option<Both>>,
) -> Result<(f64, f64)> {
    // The truncations' budget: 10⁻¹⁵ absolute, or a share of the δ that would settle this
    // direction (an error far below it cannot change whether the bracket settles).
    let mut budget = settle.map_or(1e-15, |x| (x * 10f64.powi(-(digits as i32) - 3)).max(1e-15));
    let mut h = initial_h(law, budget / t as f64);
    // A settle needs the bracket only as narrow as the gap between δ and the target: a probe
    // [`SETTLE_COARSE`] times coarser goes first, and when it leaves the target undecided the
    // passes go on from the plain first step (docs/accounting.md#add-scout).
    let plain_h = h;
    let mut probe = settle.is_some();
    if probe {
        h *= SETTLE_COARSE;
    }
    // Far in the tail, the Chernoff bound at ε on a first grid gives δ's scale before any pass:
    // the budget starts there (passes at a budget far above δ only find that scale).
    if settle.is_none() {
        let p = discretise(law, h, budget / t as f64)?;
        let query = Query::Delta(eps, None);
        let scale = choose_tilt(&p, t, query, excess_split(&p, t, query), false).ln_bound;
        let start = (scale - f64::from(digits + 3) * 10f64.ln())
            .exp()
            .max(1e-300);
        if start < budget {
            budget = start;
            h = initial_h(law, budget / t as f64);
        }
    }
    let mut calib = 1.0;
    let mut tol = None;
    // The blocks' FFT errors may take an eighth of the width d digits allow.
    let rel = 0.125 * 10f64.powi(-(digits as i32));
    let mut last = None;
    let mut fine = false;
    // The steps above what ε needs on the grid are carried in closed form (docs/accounting.md#hits);
    // the first step spans the grid up to the ceiling.
    let capped = |budget: f64| law.with_ceiling(ceiling_for(law, t, eps, budget));
    if settle.is_none() {
        h = h.min(initial_h(&capped(budget), budget / t as f64));
    }
    for _ in 0..PASSES + usize::from(probe) {
        pace(last, h, fine)?;
        let started = std::time::Instant::now();
        let c = pass(
            &capped(budget),
            t,
            h,
            budget,
            Query::Delta(eps, tol),
            calib,
            blocks,
            rel,
            fine,
        )?;
        calib = c.calib;
        last = Some((started.elapsed(), h, fine));
        let hi = c.delta(eps, true);
        let lo = c.delta(eps, false);
        let before = *best;
        keep_best(best, lo, hi);
        let undecided = settle.is_some_and(|x| lo <= x);
        if settle.is_some_and(|x| hi <= x) || (has_digits(lo, hi, digits) && !(probe && undecided))
        {
            if let Some(k) = kept {
                *k = Some(c);
            }
            return Ok((lo, hi));
        }
        if probe {
            if let (true, Some(k)) = (*best != before, kept.as_deref_mut()) {
                *k = Some(c);
            }
            probe = false;
            h = plain_h;
            continue;
        }
        let target = 10f64.powi(-(digits as i32)) * (hi + lo);
        let width = hi - lo;
        // The truncations' budget follows δ's scale (the lower end, else the pair's estimate):
        // far in the tail, where the first pass's 10⁻¹⁵ is all of the bracket, it shrinks, and
        // that pass keeps its step; the tilt makes the FFT's rounding relative to δ there.
        let scale = if lo > 0.0 {
            lo
        } else {
            c.approx(eps, true).clamp(hi * 1e-30, hi)
        };
        let next = (scale * 10f64.powi(-(digits as i32) - 3)).max(1e-300);
        let shrunk = next < 0.01 * budget;
        budget = next;
        // As for ε(δ): an eighth of the width d digits allow on the FFT's rounding at each end,
        // h shrunk by the discretisation's share.
        let tilted_for_it = tol.is_some();
        tol = Some(0.125 * target);
        if !shrunk {
            let disc = c.approx(eps, true) - c.approx(eps, false);
            let step = next_step(law, t, (h, disc, 0.5 * target), &c, fine);
            // The part of the width that is not the discretisation's is the FFT's rounding (the
            // truncations are far below it at δ's scale), which does not shrink with h: at the
            // strongest tilt, beyond the digits asked, no pass can succeed. Nor can one that
            // repeats this pass's step at the same budget's scale and tilt. The route stops, and
            // the inversion answers.
            let stuck = match step {
                Ok((next_h, next_fine)) => {
                    (c.tilt_maxed && width - disc > target)
                        || (next_h == h && next_fine == fine && tilted_for_it)
                }
                Err(_) => true,
            };
            if stuck {
                if let (true, Some(k)) = (*best != before, kept) {
                    *k = Some(c);
                }
                return step.and(Err(budget_error(
                    "the FFT's rounding, not the grid, bounds the bracket",
                )));
            }
            (h, fine) = step?;
        }
        if *best != before {
            if let Some(k) = kept.as_deref_mut() {
                *k = Some(c);
            }
        }
    }
    Err(budget_error(
        "no bracket with the digits asked after the refinements",
    ))
}

/// The schedules this route can answer at all: T ≥ 4 identical subsampled releases (add/remove)
/// at most [`MAX_DIGITS`] digits. The dispatcher tries it after the inversion where
/// [`applies`] does not put it first.
pub(super) fn accepts(sched: &super::Schedule, digits: u32) -> Option<(SubsampledGaussian, u64)> {
    match sched.parts() {
        [(super::Release::Subsampled(m), n)] if digits <= MAX_DIGITS && *n >= 4 => {
            Some((m.clone(), *n))
        }
        _ => None,
    }
}

/// The schedules this route takes first (docs/accounting.md#discretised-dispatch): T identical
/// subsampled releases (add/remove) at most [`MAX_DIGITS`] digits, where the inversion was
/// measured slower: 4 ≤ T ≤ 100 with q ≤ 0.05; 100 < T ≤ 300 with q ≤ 0.01 and σ < 1 (the
/// inversion's damping is squeezed below c* ≈ 2σ² ln(1/q) there; docs/accounting.md#damping);
/// 100 < T ≤ 1000 with 5·10⁻⁴ ≤ q ≤ 0.002 and σ < 0.6 (q = 10⁻³, σ = 0.5, T = 1000, ε(10⁻⁸):
/// 0.42 s against 1.78 s; at q = 10⁻⁴ and q = 0.01, and at T = 3000, the inversion wins);
/// 100 < T ≤ 3000 with q ≤ 3·10⁻⁴ and σ ≥ 2; for δ(ε) (`delta_query`) also 100 < T ≤ 1000 with
/// 0.002 < q ≤ 0.01 and σ < 1. Until stop 49 also σ < 1 up to T = 3000 (q ≤ 0.002) and T = 1000
/// (q ≤ 0.01, both queries), and σ ≥ 2 up to q = 0.002: since the decayed-node bound
/// (docs/accounting.md#decayed-nodes) the inversion is faster there (T = 1000: ε(10⁻⁸) at
/// q = 10⁻⁴, σ = 0.7 3.1 s against 31.6 s, δ(2) at q = 10⁻³, σ = 0.7 0.14 s against 4.1 s; T = 3000,
/// q = 10⁻³, σ = 2, ε(10⁻⁸): 0.12 s against 0.36 s), except δ(ε) at q = 0.01, σ = 0.6, T = 1000,
/// ε = 10 (32 s against 1.5 s). Elsewhere, and whenever this route cannot certify the digits
/// within its FFT cap, the inversion answers.
pub(super) fn applies(
    sched: &super::Schedule,
    digits: u32,
    delta_query: bool,
) -> Option<(SubsampledGaussian, u64)> {
    accepts(sched, digits).filter(|(m, n)| {
        let (q, s, n) = (m.q().f64(), m.sigma().f64(), *n);
        let small = (4..=100).contains(&n) && q <= 0.05;
        let small_sigma = (101..=300).contains(&n) && q <= 0.01 && s < 1.0;
        let low_sigma = (101..=1000).contains(&n) && (5e-4..=0.002).contains(&q) && s < 0.6;
        let large_sigma = (101..=3000).contains(&n) && q <= 3e-4 && s >= 2.0;
        let delta_middle =
            delta_query && (101..=1000).contains(&n) && q > 0.002 && q <= 0.01 && s < 1.0;
        small || small_sigma || low_sigma || large_sigma || delta_middle
    })
}

/// Whether the add direction's δ at `eps` is certified at most `delta`, for T identical
/// subsampled releases at any T this route's FFT cap reaches (the inversion's cheap settle for
/// ε(δ), docs/accounting.md#add-scout): one-digit passes of the upper pair, stopped as soon as
/// its δ is at most `delta`. `eps` is rounded down and `delta` down to doubles, which keeps the
/// answer sound (δ_add is non-increasing in ε). False when it cannot tell.
pub(super) fn add_settles(sched: &super::Schedule, eps: &Float, delta: &Float) -> bool {
    let (m, t) = match sched.parts() {
        [(super::Release::Subsampled(m), n)] if *n >= 2 => (m, *n),
        _ => return false,
    };
    let e = eps.to_f64_round(rug::float::Round::Down);
    let d = delta.to_f64_round(rug::float::Round::Down);
    if !(e.is_finite() && e > 0.0 && d > 0.0 && d <= MAX_DELTA) {
        return false;
    }
    let (_, al) = laws(m);
    matches!(delta_one(&al, t, e, 1, Some(d), false), Ok((_, hi)) if hi <= d)
}

fn bracket(lo: f64, hi: f64) -> Bracket {
    Bracket {
        lo: Float::with_val(PREC, lo),
        hi: Float::with_val(PREC, hi),
    }
}

const PREC: u32 = 128;

fn laws(m: &SubsampledGaussian) -> (Law, Law) {
    let (q, s) = (m.q().f64(), m.sigma().f64());
    (Law::new(q, s, Dir::Remove), Law::new(q, s, Dir::Add))
}

/// δ(ε) of both directions.
/// `blocks`: see [`delta_one`].
pub(super) fn delta_for_eps(
    sched: &super::Schedule,
    m: &SubsampledGaussian,
    t: u64,
    eps: &Scalar,
    digits: u32,
    blocks: bool,
) -> Result<Composed> {
    both(sched, m, t, eps, digits, Some(blocks), delta_range(false))
}

/// Whether an ε(δ) query at δ is in this route's range: [`MIN_DELTA`] to [`MAX_DELTA`] as the
/// dispatcher's first try, [`MIN_DELTA_FALLBACK`] to [`MAX_DELTA_FALLBACK`] as the inversion's
/// `fallback`.
pub(super) fn takes_delta(delta: f64, fallback: bool) -> bool {
    let (min, max) = delta_range(fallback);
    (min..=max).contains(&delta)
}

/// See [`takes_delta`].
fn delta_range(fallback: bool) -> (f64, f64) {
    if fallback {
        (MIN_DELTA_FALLBACK, MAX_DELTA_FALLBACK)
    } else {
        (MIN_DELTA, MAX_DELTA)
    }
}

/// ε(δ) of both directions, for δ up to [`MAX_DELTA`] as the first try, up to
/// [`MAX_DELTA_FALLBACK`] as the inversion's `fallback`.
pub(super) fn eps_for_delta(
    sched: &super::Schedule,
    m: &SubsampledGaussian,
    t: u64,
    delta: &Scalar,
    digits: u32,
    fallback: bool,
) -> Result<Composed> {
    both(sched, m, t, delta, digits, None, delta_range(fallback))
}

/// Below this σ the dispatcher tries this route's ε(δ) before the inversion, wherever it takes δ
/// (docs/accounting.md#discrete-complement): in the sweeps (q ∈ [10⁻⁴, 0.9], T ∈ [4, 10⁶],
/// σ = 0.3 and 0.4) the inversion's tail bound failed after 5–47 s in all but a few cases (q = 0.9,
/// σ = 0.4, T ≥ 10⁴ near δ = 1, which it still answers after this route's try).
pub(super) const SMALL_SIGMA: f64 = 0.5;

/// Below σ = [`SMALL_SIGMA`] and δ < 1/2, the dispatcher tries this route first only where T·q is
/// below this (docs/accounting.md#small-sigma): since the inversion's tail cut (stop 52) it
/// answers the rest first, in 0.05–1.8 s at 6 digits where this route took up to 16 s (sweep of
/// stop 53: σ ∈ {0.3, 0.4}, q from 10⁻⁶ to 0.5, T from 10³ to 10⁶, δ = 10⁻⁵, and δ down to 10⁻²⁰ at
/// four points), while at T·q ≤ 0.1 and σ = 0.3 it still fails where this route answers
/// (q = 10⁻⁶, T = 10⁵: 1.7 s here, 1 digit after 30 s there).
pub(super) const SMALL_SIGMA_MAX_TQ: f64 = 1.0;

/// At any σ, the dispatcher tries this route's ε(δ) first (δ < 1/2) where T·q is at most this
/// (docs/accounting.md#hits): there ε is far below the loss's range and the [`Hits`] keep the
/// grid on the losses that matter, while the inversion's tail bound fails (q = 10⁻⁶, σ = 0.5,
/// T = 10³ and 10⁴: no digit after 30 s; this route 0.55 and 3.1 s). At T·q = 0.1 the inversion
/// answers some points that this route's try would spend the limit on (q = 10⁻⁶, σ = 0.6,
/// T = 10⁵: 18 s first, refused after it).
pub(super) const TINY_TQ: f64 = 0.01;

/// Smallest 1 − δ of an ε(δ) query the complement takes (its truncation budget is 10^{−(d+3)}
/// of 1 − δ, and stays a normal double).
const MIN_GAMMA: f64 = 1e-280;

/// Whether an ε(δ) query at δ is in the complement's range: 1/2 ≤ δ ≤ 1 − [`MIN_GAMMA`].
pub(super) fn takes_near_one(delta: &Scalar) -> bool {
    let g = (Float::with_val(PREC, 1u32) - delta.mp(PREC)).to_f64();
    (MIN_GAMMA..=0.5).contains(&g)
}

/// ε(δ) of both directions near δ = 1 by the complement (docs/accounting.md#discrete-complement):
/// the inversion's fallback for δ ≥ 1/2 at T ≥ 4 where it cannot bound its tail (small σ).
pub(super) fn eps_near_one(
    sched: &super::Schedule,
    m: &SubsampledGaussian,
    t: u64,
    delta: &Scalar,
    digits: u32,
) -> Result<Composed> {
    if !takes_near_one(delta) {
        return Err(budget_error(&format!(
            "1 - delta = {:e} is outside the complement's range [{MIN_GAMMA:e}, 0.5]",
            1.0 - delta.f64()
        )));
    }
    let xm = delta.mp(PREC);
    // γ = 1 − δ exactly enough (δ's decimal at PREC bits), to doubles either way with a margin.
    let g = Float::with_val(PREC, 1u32) - &xm;
    let g_lo = g.to_f64_round(rug::float::Round::Down) * (1.0 - 4.0 * U);
    let g_hi = g.to_f64_round(rug::float::Round::Up) * (1.0 + 4.0 * U);
    let (rl, al) = laws(m);
    let (lo, hi) = eps_complement_one(&rl, t, (g_lo, g_hi), digits, None)?;
    let rm = bracket(lo, hi);
    let ad = match super::add_direction_by_its_range(sched, &xm, &rm, false, PREC) {
        Some(b) => b,
        None => {
            // One digit first: enough when the add direction is below the remove direction's
            // lower end (its truncation budget, 10⁻⁴ of 1 − δ, keeps its window short: at
            // q = 10⁻⁴, σ = 0.3, T = 10⁶, δ = 1 − 10⁻¹² the 6-digit pass needed an FFT beyond the
            // cap where the 1-digit one showed ε = 0); the digits asked when it is not.
            let first = eps_complement_one(&al, t, (g_lo, g_hi), 1, Some(lo));
            let (lo_a, hi_a) = match first {
                Ok((a, b)) if b <= lo => (a, b),
                _ if has_digits(lo, hi, digits) => {
                    eps_complement_one(&al, t, (g_lo, g_hi), digits, Some(lo))?
                }
                r => r?,
            };
            bracket(lo_a, hi_a)
        }
    };
    Ok(super::nested::composed(vec![rm, ad], COMPLEMENT_ROUTE))
}

/// The route of an ε(δ) answered by [`eps_near_one`].
const COMPLEMENT_ROUTE: &str = "discretised convolution of 1 - delta (double precision)";

/// Both directions at `x` (ε when `blocks` is Some, with its flag for [`delta_one`]; else δ):
/// the remove direction to the digits asked, then the add direction by its range, or computed
/// only until it is below the remove direction's lower end.
fn both(
    sched: &super::Schedule,
    m: &SubsampledGaussian,
    t: u64,
    x: &Scalar,
    digits: u32,
    blocks: Option<bool>,
    (min_delta, max_delta): (f64, f64),
) -> Result<Composed> {
    let x_is_eps = blocks.is_some();
    let xm = x.mp(PREC);
    let xf = xm.to_f64();
    if !x_is_eps && !(min_delta..=max_delta).contains(&xf) {
        return Err(budget_error(&format!(
            "delta = {xf:e} is outside the route's range [{min_delta:e}, {max_delta}]"
        )));
    }
    let one = |law: &Law, x: f64, d: u32, settle: Option<f64>| match blocks {
        Some(b) => delta_one(law, t, x, d, settle, b),
        None => eps_one(law, t, x, d, settle),
    };
    let (rl, al) = laws(m);
    let (lo, hi) = one(&rl, xf, digits, None)?;
    let rm = bracket(lo, hi);
    // A remove bracket short of the digits makes the answer a fallback (the dispatcher tries the
    // inversion first): the add direction then needs to be valid, not precise.
    let add_digits = if has_digits(lo, hi, digits) {
        digits
    } else {
        1
    };
    let ad = match super::add_direction_by_its_range(sched, &xm, &rm, x_is_eps, PREC) {
        Some(b) => b,
        None => {
            let (lo, hi) = one(&al, xf, add_digits, Some(lo))?;
            bracket(lo, hi)
        }
    };
    Ok(super::nested::composed(vec![rm, ad], ROUTE))
}

#[cfg(test)]
mod tests {
    use super::{
        choose_tilt, compose, compose_part, core_spectrum, discretise, discretise_at_pile, forward,
        initial_h, knot_weights, lower_pair, lower_pair_tilted, pass, pick_tilt, power_spectrum,
        twiddle, window, with_work, Cell, Dir, FftErr, Law, Query, U,
    };
    use crate::accounting::compose::{ComposeOptions, Composed, Schedule};
    use crate::accounting::SubsampledGaussian;
    use crate::scalar::Scalar;
    use rustfft::num_complex::Complex64;

    /// T = 1: the two pairs' δ(ε) bracket the one-step closed form (MPFR at 256 bits, the
    /// reference of `nested.rs`), both directions, and the bracket is within 10⁻⁴ of δ₁.
    #[test]
    fn one_step_brackets_the_closed_form() {
        let mut checked = 0;
        for &(q, s) in &[(0.001, 1.0), (0.01, 0.6), (0.1, 2.0), (0.5, 1.0)] {
            for dir in [Dir::Remove, Dir::Add] {
                let law = Law::new(q, s, dir);
                let h = initial_h(&law, 1e-18) / 32.0;
                let p = discretise(&law, h, 1e-18).unwrap();
                for &e in &[0.0, 1e-3, 0.01, 0.05, 0.2, 1.0] {
                    let add = dir == Dir::Add;
                    let exact = super::super::nested::ln_delta1_mpfr(q, s, add, e, 256).exp();
                    if exact < 1e-8 {
                        continue;
                    }
                    let query = Query::Delta(e, Some(1e-6 * exact));
                    let c = compose(&p, 1, 1e-17, query, 1.0, false, 1e-7, false).unwrap();
                    let (lo, hi) = (c.delta(e, false), c.delta(e, true));
                    assert!(
                        lo <= exact && exact <= hi,
                        "q={q} s={s} {dir:?} eps={e}: [{lo:e}, {hi:e}] misses {exact:e}"
                    );
                    // Tightness where δ₁ ≥ 10⁻⁶ (smaller values sit within a few grid steps of
                    // the loss range's end, e.g. add at ε = 0.01 ≈ −ln(0.99) − 5·10⁻⁵).
                    assert!(
                        exact < 1e-6 || hi - lo <= 1e-4 * exact,
                        "q={q} s={s} {dir:?} eps={e}: [{lo:e}, {hi:e}] too wide"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 30, "only {checked} points checked");
    }

    /// A coarse step at tiny q piles most of the mass in the first cell, whose bin the cells above
    /// cannot balance: the lower pair labels that cell alone at its knot and goes on (it used to
    /// put the whole step in that one bin, so that its δ was 0 beyond ε = 0, and queries such as
    /// q = 0.001, σ = 0.6, T = 100, ε = 30 were refused). One step against the closed form.
    #[test]
    fn a_pile_at_the_first_knot_keeps_the_lower_pair() {
        let (q, s) = (0.001, 1.0);
        let law = Law::new(q, s, Dir::Remove);
        let p = discretise(&law, 1.5e-3, 1e-80).unwrap();
        // The pile: the first cell's bin cannot be balanced at this step.
        assert!(p.lo[0] > 0.5, "first knot {:e}", p.lo[0]);
        for &e in &[0.5, 2.0, 5.0] {
            let (lo, hi, exact) = one_step(&p, q, s, e);
            assert!(
                lo <= exact && exact <= hi,
                "eps={e}: [{lo:e}, {hi:e}] misses {exact:e}"
            );
            assert!(lo >= 0.9 * exact, "eps={e}: lower end {lo:e} vs {exact:e}");
        }
    }

    /// One remove step's δ(ε) bracket from the pairs `p` (T = 1, the read's tolerance 10⁻⁶ of δ),
    /// and the MPFR closed form.
    fn one_step(p: &super::Pairs, q: f64, s: f64, e: f64) -> (f64, f64, f64) {
        let exact = super::super::nested::ln_delta1_mpfr(q, s, false, e, 256).exp();
        let query = Query::Delta(e, Some(1e-6 * exact));
        let c = compose(p, 1, 1e-79, query, 1.0, false, 1e-7, false).unwrap();
        (c.delta(e, false), c.delta(e, true), exact)
    }

    /// The grid at the pile (docs/accounting.md#pile-offset) keeps one step's bracket around the
    /// closed form, with its knot 0 below ℓ_min and nothing on it in the lower pair (the first
    /// bin balanced), where the pile is within a cell: tiny q on a coarse step.
    #[test]
    fn the_pile_grid_brackets_one_step() {
        for &(q, s, h) in &[
            (1e-6, 0.3, 6e-5),
            (1e-6, 0.6, 1e-4),
            (1e-4, 0.6, 5e-4),
            (1e-3, 1.0, 1.5e-3),
        ] {
            let law = Law::new(q, s, Dir::Remove);
            let p = discretise_at_pile(&law, h, 1e-80).unwrap();
            assert!(
                p.o + p.h > law.l1q && p.o < law.l1q,
                "q={q} s={s}: o = {:e}",
                p.o
            );
            assert_eq!(p.lo[0], 0.0, "q={q} s={s}: mass on the knot below l_min");
            for &e in &[0.1 * q, 0.5, 2.0, 5.0] {
                let (lo, hi, exact) = one_step(&p, q, s, e);
                assert!(
                    lo <= exact && exact <= hi,
                    "q={q} s={s} eps={e}: [{lo:e}, {hi:e}] misses {exact:e}"
                );
                // Within a cell of ε = 0 the bins' merging is first order in h/ε (ε = 0.1q: 0.74
                // of δ at q = 10⁻⁶, σ = 0.3); beyond it, tight.
                if e >= 0.5 {
                    assert!(
                        lo >= 0.9 * exact,
                        "q={q} s={s} eps={e}: lower end {lo:e} vs {exact:e}"
                    );
                }
            }
        }
    }

    /// At q = 10⁻⁶, σ = 0.3, T = 10⁵, ε(10⁻⁵) on a step of 1.4·10⁻⁴ (70 q), one pass's two
    /// pairs agree to 10⁻⁵ of ε: the lower pair's labels are second order again. With the grid's
    /// knot at ℓ_min the pile was labelled there, T·q = 0.1 below its log-ratio in all, and the
    /// lower end was 1 % low (3.4692 against 3.5026): this test fails without the pile's grid.
    #[test]
    fn the_pile_grid_keeps_the_lower_pair_second_order() {
        let law = Law::new(1e-6, 0.3, Dir::Remove);
        let (t, delta) = (100_000u64, 1e-5);
        let c = eps_pass(&law, t, 1.369e-4, delta).unwrap();
        let (hi, lo) = (c.eps(delta, true), c.eps(delta, false));
        assert!(lo > 3.5 && hi < 3.503, "[{lo}, {hi}]");
        assert!(hi - lo < 1e-5 * hi, "[{lo}, {hi}]: width {:e}", hi - lo);
    }

    /// The cells' quadrature estimates do not floor the pairs at tiny q: at q = 10⁻⁶, σ = 0.4,
    /// T = 10⁵, h = 2.2·10⁻⁷ (the step of an ε(10⁻⁵) pass, ceiling 1.25ε + 0.1) the pairs'
    /// tilted masses at λ = 42.5 (that pass's tilt) bracket the exact one, computed by Simpson's
    /// rule on 4·10⁶ panels of the step's z range, and each stands within 10⁻⁶ of it in
    /// T·ln (pieces of σ/128 until stop 55: 2.4·10⁻⁶ and 2.5·10⁻⁶; now 0.64·10⁻⁶ and 0.77·10⁻⁶).
    #[test]
    fn the_cell_estimates_do_not_floor_the_pairs_at_tiny_q() {
        let law0 = Law::new(1e-6, 0.4, Dir::Remove);
        let (t, h, lambda) = (100_000u64, 2.2e-7, 42.5);
        let budget = 1e-5 * 1e-9;
        let law = law0.with_ceiling(super::ceiling_for(&law0, t, 0.12722, budget));
        let p = super::discretise_at_pile(&law, h, budget / t as f64).unwrap();
        let n = p.up.len();
        let w = |j: usize| (lambda * (p.o + j as f64 * h)).exp();
        let mu: f64 = (0..n).map(|j| p.up[j] * w(j)).sum();
        let ml: f64 = (0..n).map(|j| p.lo[j] * w(j)).sum();
        // The exact tilted mass of the step below the grid's last knot (the hits above it are
        // in closed form).
        let ztop = law.edge(p.o + (n - 1) as f64 * h).unwrap().z;
        let z0 = -super::Z_CUT * law.sigma;
        let panels = 4_000_000usize;
        let dz = (ztop - z0) / panels as f64;
        let f = |z: f64| law.p(z) * (lambda * law.loss(z)).exp();
        let mut me = f(z0) + f(ztop);
        for i in 1..panels {
            me += f(z0 + i as f64 * dz) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        me *= dz / 3.0;
        let tf = t as f64;
        let (up, lo) = (tf * (mu / me).ln(), tf * (me / ml).ln());
        assert!(
            up > 0.0 && lo > 0.0,
            "the pairs do not bracket: {up:e}, {lo:e}"
        );
        assert!(up < 1e-6 && lo < 1e-6, "T ln: upper {up:e}, lower {lo:e}");
    }

    /// An ε(δ) pass with an estimate floors its composites just below it ([`floor_at`]), so
    /// its tilt may reach Chernoff's: at q = 10⁻⁶, σ = 1, T = 10⁴ (ε ≈ 1.39·10⁻⁴, λ* ≈ 2800)
    /// the route certifies 6 digits (until stop 55 the tilt stayed below 600/(ε + 1) and the
    /// route refused with 5), and its bracket lies inside that of an untilted pass floored at −1
    /// on a 2²¹-knot grid, over 10 times wider.
    #[test]
    fn a_floored_eps_pass_tilts_to_six_digits() {
        let law = Law::new(1e-6, 1.0, Dir::Remove);
        let (t, delta) = (10_000u64, 1e-5);
        let (lo, hi) = super::with_work(None, || super::eps_one(&law, t, delta, 6, None)).unwrap();
        assert!(super::has_digits(lo, hi, 6), "[{lo}, {hi}]");
        let c = eps_pass(&law, t, 1.5e-8, delta).unwrap();
        assert_inside_wider((lo, hi), &c, delta, 10.0);
    }

    /// `inner` lies inside the ε(δ) bracket of the pass `c` (its ends read on the side of δ's
    /// rounding that keeps them valid, as [`eps_passes`] reads them), which is over `wider`
    /// times wider.
    fn assert_inside_wider((lo, hi): (f64, f64), c: &super::Both, delta: f64, wider: f64) {
        let (w_lo, w_hi) = (
            c.eps(delta * (1.0 + 2.0 * U), false),
            c.eps(delta * (1.0 - 2.0 * U), true),
        );
        assert!(
            w_hi - w_lo > wider * (hi - lo),
            "[{w_lo}, {w_hi}] is not {wider} times wider than [{lo}, {hi}]"
        );
        assert!(
            w_lo <= lo && hi <= w_hi,
            "[{lo}, {hi}] not inside [{w_lo}, {w_hi}]"
        );
    }

    /// One untilted ε(δ) pass at step h, truncations at 10⁻⁹ of δ.
    fn eps_pass(law: &Law, t: u64, h: f64, delta: f64) -> crate::Result<super::Both> {
        pass(
            law,
            t,
            h,
            delta * 1e-9,
            Query::Eps(delta, None),
            1.0,
            false,
            1.0,
            false,
        )
    }

    /// The reads at points' work share ([`with_work`]): inside a bound of 1.5 times one pass's
    /// knots, that pass runs and the next at half its step (predicted twice its knots) is
    /// refused before it starts; outside the bound the same pass runs.
    #[test]
    fn a_work_share_refuses_the_pass_that_would_spend_it() {
        let law = Law::new(0.01, 1.0, Dir::Remove);
        let (t, delta) = (10u64, 1e-5);
        let h = initial_h(&law, delta * 1e-9 / t as f64);
        let run = |h: f64| eps_pass(&law, t, h, delta);
        let k0 = run(h).unwrap().knots();
        with_work(Some(1.5 * k0), || {
            assert!(run(h).is_ok());
            assert!(run(0.5 * h).is_err(), "the pass past the share ran");
        });
        assert!(run(0.5 * h).is_ok());
    }

    /// The hits (docs/accounting.md#hits) keep a pass's δ(ε) bracket valid on both sides of
    /// their validity: at q = 0.01, σ = 1, T = 10, ε = 0.3 against the inversion's 7 digits, with
    /// ceilings from well below ε (valid up to ε = 0.01: the upper end takes all of A) to above
    /// it (exact at ε: the bracket as narrow as the grid alone's). Taking A − e^ε·B beyond the
    /// validity puts the upper end below the reference (checked).
    #[test]
    fn hits_bracket_the_inversion_on_both_sides_of_their_validity() {
        let (q, s, t, eps) = ("0.01", "1", 10u64, "0.3");
        let sched = schedule(q, s, t);
        let x: Scalar = eps.parse().unwrap();
        let inv = ComposeOptions {
            digits: 7,
            force_inversion: true,
        };
        let theirs = super::super::delta_for_eps(&sched, &x, &inv).unwrap().value;
        let (lo, hi) = (theirs.lo.to_f64(), theirs.hi.to_f64());
        let e = 0.3;
        let law = Law::new(0.01, 1.0, Dir::Remove);
        let h = initial_h(&law, 1e-20) / 16.0;
        let read = |ceiling: f64| {
            let law = law.with_ceiling(ceiling);
            let c = pass(
                &law,
                t,
                h,
                1e-16,
                Query::Delta(e, None),
                1.0,
                false,
                1.0,
                false,
            )
            .unwrap();
            assert_eq!(c.hits.is_some(), ceiling.is_finite(), "ceiling {ceiling}");
            (
                c.delta(e, false),
                c.delta(e, true),
                c.hits.map_or(0.0, |x| x.valid),
            )
        };
        let (g_lo, g_hi, _) = read(f64::INFINITY);
        for ceiling in [0.1, 0.25, 0.3, 0.45, 1.0] {
            let (d_lo, d_hi, valid) = read(ceiling);
            assert!(
                d_lo <= lo && hi <= d_hi,
                "ceiling {ceiling} (valid to {valid}): [{d_lo:e}, {d_hi:e}] misses [{lo:e}, {hi:e}]"
            );
            if valid >= e {
                assert!(
                    d_hi - d_lo <= 2.0 * (g_hi - g_lo),
                    "ceiling {ceiling}: {d_lo:e} {d_hi:e}"
                );
            }
        }
    }

    /// Where the grid alone cannot reach 6 digits within the FFT cap (q = 10⁻⁶, σ = 0.4,
    /// T = 1000, ε(10⁻⁵): the loss runs to about 10 with ε near 0.004), the route's passes with
    /// hits do, and their bracket is inside a pass's on the grid alone.
    #[test]
    fn hits_answer_inside_the_grid_alone() {
        let sched = schedule("0.000001", "0.4", 1000);
        let x: Scalar = "1e-5".parse().unwrap();
        let ours = super::eps_for_delta(&sched, &release(&sched), 1000, &x, 6, false).unwrap();
        assert!(ours.value.digits() >= 6, "{:?}", ours.value);
        let law = Law::new(1e-6, 0.4, Dir::Remove);
        let c = eps_pass(&law, 1000, 2.4e-5, 1e-5).unwrap();
        let ends = (ours.remove.lo.to_f64(), ours.remove.hi.to_f64());
        assert_inside_wider(ends, &c, 1e-5, 100.0);
    }

    /// Every twiddle is within 3.7u (modulus) of e^{−2πim/N} at 128 bits, in every octant.
    #[test]
    fn twiddles_meet_mpfr() {
        let mut next = uniform(0x9e37_79b9_7f4a_7c15);
        let pi = rug::Float::with_val(128, rug::float::Constant::Pi);
        for &lg in &[3u32, 6, 20, 24] {
            let n = 1u64 << lg;
            let ms: Vec<u64> = if n <= 64 {
                (0..3 * n).collect()
            } else {
                (0..20_000)
                    .map(|_| (next() * (4 * n) as f64) as u64)
                    .collect()
            };
            for m in ms {
                let w = twiddle(m, n);
                let th = rug::Float::with_val(128, &pi * 2u32) * m / n;
                let (sn, cs) = th.sin_cos(rug::Float::new(128));
                let (dr, di) = ((w.re - cs).to_f64(), (w.im + sn).to_f64());
                let err = dr.hypot(di);
                assert!(err <= 3.7 * U, "N=2^{lg} m={m}: {:.2}u", err / U);
            }
        }
    }

    /// The forward transform with heavy inputs taken out ([`forward`]) is within its bound of
    /// the exact DFT (MPFR, 128 bits) at every output, and that bound is under a fifth of the
    /// plain γ‖z‖₁ when one input holds 97 % of the mass (heavy at j = 0, and at j = 3 with a second one).
    #[test]
    fn heavy_inputs_transform_within_their_bound() {
        let mut next = uniform(0x1234_5678_9abc_def1);
        let nf = 1024usize;
        let gamma = 8.0 * (nf as f64).log2() * U;
        for &(first, second) in &[(0usize, None), (3, Some(7usize))] {
            let mut z = vec![Complex64::new(0.0, 0.0); nf];
            for c in z.iter_mut().take(60) {
                *c = Complex64::new(next() * 1e-3, next() * 1e-3);
            }
            z[first] = Complex64::new(0.97, 0.95);
            if let Some(j) = second {
                z[j] = Complex64::new(0.2, 0.1);
            }
            let z1: f64 = z.iter().map(|c| c.re.abs() + c.im.abs()).sum();
            let exact: Vec<(rug::Float, rug::Float)> = (0..nf)
                .map(|k| {
                    let (mut re, mut im) = (rug::Float::new(128), rug::Float::new(128));
                    let pi = rug::Float::with_val(128, rug::float::Constant::Pi);
                    for (j, c) in z.iter().enumerate().filter(|(_, c)| c.norm_sqr() > 0.0) {
                        let th = rug::Float::with_val(128, &pi * 2u32) * ((j * k) % nf) as u32
                            / nf as u32;
                        let (sn, cs) = th.sin_cos(rug::Float::new(128));
                        // (a + ib)(cos − i sin)
                        re += rug::Float::with_val(128, &cs * c.re)
                            + rug::Float::with_val(128, &sn * c.im);
                        im += rug::Float::with_val(128, &cs * c.im)
                            - rug::Float::with_val(128, &sn * c.re);
                    }
                    (re, im)
                })
                .collect();
            let fwd = super::forward_plan(nf);
            let mut y = z.clone();
            let b = forward(&mut y, &*fwd, gamma);
            assert!(
                b.dz < 0.2 * 1.01 * gamma * z1,
                "bound {:e} against {:e}",
                b.dz,
                gamma * z1
            );
            for (k, (yk, (re, im))) in y.iter().zip(&exact).enumerate() {
                let (dr, di) = ((re.clone() - yk.re).to_f64(), (im.clone() - yk.im).to_f64());
                assert!(
                    dr.hypot(di) <= b.dz,
                    "k={k}: {:e} > {:e}",
                    dr.hypot(di),
                    b.dz
                );
            }
        }
    }

    /// The T-fold composition with the heaviest input rotated to index 0 ([`power_spectrum`])
    /// puts every mass where the direct convolution does, within the bound: the heavy atom at
    /// knot 3 moves the composition by 3T, which the output's rotation undoes.
    #[test]
    fn heavy_composition_meets_the_direct_convolution() {
        let mut next = uniform(0x0000_ddb1_a5e5);
        let (len, nf) = (24usize, 1024usize);
        for &t in &[2u64, 5, 17, 40] {
            let mut a: Vec<f64> = (0..len).map(|_| next() * 1e-3).collect();
            let mut b: Vec<f64> = (0..len).map(|_| next() * 1e-3).collect();
            a[3] = 1.0;
            b[3] = 0.9;
            b[4] = 0.1;
            let z = pair_input(&mut a, &mut b, nf);
            let (y, err) = power_spectrum(z, t);
            worst_against_direct(&y, &err, &a, &b, t);
        }
    }

    /// The transform input z = a + ib of length `nf` with a and b normalised to sum 1.
    fn pair_input(a: &mut [f64], b: &mut [f64], nf: usize) -> Vec<Complex64> {
        let (sa, sb) = (a.iter().sum::<f64>(), b.iter().sum::<f64>());
        a.iter_mut().for_each(|x| *x /= sa);
        b.iter_mut().for_each(|x| *x /= sb);
        let mut z = vec![Complex64::new(0.0, 0.0); nf];
        for (k, (&u, &v)) in a.iter().zip(b.iter()).enumerate() {
            z[k] = Complex64::new(u, v);
        }
        z
    }

    /// The T-fold convolution of x by direct sums (the FFT tests' reference).
    fn direct_conv(x: &[f64], t: u64) -> Vec<f64> {
        let mut acc = vec![1.0f64];
        for _ in 0..t {
            let mut out = vec![0.0f64; acc.len() + x.len() - 1];
            for (i, &u) in acc.iter().enumerate() {
                for (j, &v) in x.iter().enumerate() {
                    out[i + j] += u * v;
                }
            }
            acc = out;
        }
        acc
    }

    /// Every composed mass of `y` (an unnormalised inverse transform) within `err.each` of the
    /// direct T-fold convolutions of a (real part) and b (imaginary), up to the direct sums' own
    /// rounding (a few ulps of the largest term), and the ℓ2 norm of the differences within
    /// `err.l2`; returns the largest difference.
    fn worst_against_direct(y: &[Complex64], err: &FftErr, a: &[f64], b: &[f64], t: u64) -> f64 {
        let nf = y.len() as f64;
        let (ca, cb) = (direct_conv(a, t), direct_conv(b, t));
        let (mut worst, mut l2) = (0.0f64, 0.0f64);
        for (i, yi) in y.iter().enumerate() {
            let (ea, eb) = (
                ca.get(i).copied().unwrap_or(0.0),
                cb.get(i).copied().unwrap_or(0.0),
            );
            let (fa, fb) = (yi.re / nf, yi.im / nf);
            let slack = 64.0 * U * ea.max(eb).max(1e-300);
            let d = (fa - ea).abs().max((fb - eb).abs());
            assert!(
                d <= err.each + slack,
                "T={t} i={i}: {d:e} > bound {:e}",
                err.each
            );
            worst = worst.max(d);
            l2 += (fa - ea).powi(2) + (fb - eb).powi(2);
        }
        assert!(
            l2.sqrt() <= err.l2,
            "T={t}: l2 {:e} > bound {:e}",
            l2.sqrt(),
            err.l2
        );
        worst
    }

    /// A seeded xorshift stream of uniforms in [0, 1) (the tests' random inputs).
    fn uniform(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// Every composed mass of the FFT is within the componentwise bound of the direct T-fold
    /// convolution (compensated sums), and the bound is not vacuous.
    #[test]
    fn fft_error_bound_holds() {
        let mut next = uniform(0x2545_f491_4f6c_dd1du64);
        for &t in &[2u64, 5, 17] {
            let len = 40usize;
            let nf = 1024usize;
            let mut a: Vec<f64> = (0..len).map(|_| next().powi(6)).collect();
            let mut b: Vec<f64> = (0..len).map(|_| next().powi(3)).collect();
            let z = pair_input(&mut a, &mut b, nf);
            let (y, err) = power_spectrum(z, t);
            let worst = worst_against_direct(&y, &err, &a, &b, t);
            assert!(err.each < 1e-11, "T={t}: bound {:e} is vacuous", err.each);
            assert!(worst > 0.0);
        }
    }

    /// At T = 100, 44 % of the frequencies of a 17-knot step have moduli below e^{−700/(T−1)}: their
    /// powers are taken as 0 with e^{−700} bounds, and the pairs k, N − k share one power
    /// ([`power_spectrum`]); every composed mass still within the bound of the direct sums.
    #[test]
    fn negligible_frequencies_keep_the_fft_bound() {
        let mut next = uniform(0x9e37_79b9_7f4a_7c15u64);
        let (t, len, nf) = (100u64, 17usize, 2048usize);
        // Binomial(16, ½) shapes, perturbed: the transforms decay as |cos(πk/N)|^16.
        let binom = |j: usize| (0..j).fold(1.0, |c, i| c * (16 - i) as f64 / (i + 1) as f64);
        let mut a: Vec<f64> = (0..len).map(|j| binom(j) * (1.0 + 1e-4 * next())).collect();
        let mut b: Vec<f64> = (0..len).map(|j| binom(j) * (1.0 + 1e-4 * next())).collect();
        let z = pair_input(&mut a, &mut b, nf);
        let modulus = |x: &[f64], k: usize| {
            let w = -2.0 * std::f64::consts::PI * k as f64 / nf as f64;
            x.iter()
                .enumerate()
                .map(|(j, &v)| Complex64::from_polar(v, w * j as f64))
                .sum::<Complex64>()
                .norm()
        };
        let cut = (-700.0 / (t - 1) as f64).exp();
        let small = (0..nf)
            .filter(|&k| modulus(&a, k) < 0.9 * cut && modulus(&b, k) < 0.9 * cut)
            .count();
        assert!(small > nf / 3, "{small} of {nf} frequencies below the cut");
        let (y, err) = power_spectrum(z, t);
        let worst = worst_against_direct(&y, &err, &a, &b, t);
        assert!(err.each < 1e-12, "bound {:e} is vacuous", err.each);
        assert!(worst > 0.0);
    }

    /// The Chernoff window of a T-fold sum: a direct convolution has at most the budget outside
    /// it, and the window cuts both ends of the range (the step's mass sits in its middle).
    #[test]
    fn window_holds_all_but_the_budget() {
        let len = 41usize;
        // A discrete step with most of its mass near the middle knot and thin tails both ways.
        let raw: Vec<f64> = (0..len)
            .map(|k| {
                let x = (k as f64 - 20.0) / 3.0;
                (-0.5 * x * x).exp() + 1e-6
            })
            .collect();
        let sum = raw.iter().sum::<f64>();
        let m: Vec<f64> = raw.iter().map(|x| x / sum).collect();
        let h = 0.01;
        for &(t, budget) in &[(30u64, 1e-9), (200, 1e-12)] {
            let (lo, hi) = window(&m, h, t, budget);
            let mut acc = vec![1.0f64];
            for _ in 0..t {
                let mut out = vec![0.0f64; acc.len() + len - 1];
                for (i, &u) in acc.iter().enumerate() {
                    for (j, &v) in m.iter().enumerate() {
                        out[i + j] += u * v;
                    }
                }
                acc = out;
            }
            let (lo_i, hi_i) = (lo as usize, hi as usize);
            let outside = acc[..lo_i].iter().sum::<f64>() + acc[hi_i + 1..].iter().sum::<f64>();
            assert!(outside <= budget, "T={t}: {outside:e} outside [{lo}, {hi}]");
            let tn = (t as usize * (len - 1)) as f64;
            assert!(
                lo > 0.1 * tn && hi < 0.9 * tn,
                "T={t}: [{lo}, {hi}] of {tn}"
            );
        }
    }

    /// The add direction's settle (`add_settles`) is sound and useful: at an ε where the route's
    /// own add bracket is [lo, hi], a target below lo is never settled and one above hi is —
    /// at T = 100 and at T = 10⁴ (beyond the route's dispatch, where only the settle runs).
    #[test]
    fn add_settle_is_sound() {
        for (q, s, t, eps) in [("0.01", "1", 100u64, 0.15), ("0.001", "1", 10_000, 0.45)] {
            let sched = schedule(q, s, t);
            let (_, al) = super::laws(&release(&sched));
            let (lo, hi) = super::delta_one(&al, t, eps, 3, None, false).unwrap();
            assert!(lo > 0.0 && hi < 1.5 * lo, "{q} {t}: [{lo:e}, {hi:e}]");
            let e = rug::Float::with_val(128, eps);
            let below = rug::Float::with_val(128, 0.999 * lo);
            let above = rug::Float::with_val(128, 1.1 * hi);
            assert!(
                !super::add_settles(&sched, &e, &below),
                "{q} {t}: settled below {lo:e}"
            );
            assert!(
                super::add_settles(&sched, &e, &above),
                "{q} {t}: not settled at {:e}",
                1.1 * hi
            );
        }
    }

    fn schedule(q: &str, s: &str, t: u64) -> Schedule {
        let m = SubsampledGaussian::new(q.parse::<Scalar>().unwrap(), s.parse().unwrap()).unwrap();
        Schedule::homogeneous(&m, t).unwrap()
    }

    /// The schedule's one release.
    fn release(sched: &Schedule) -> SubsampledGaussian {
        match sched.parts() {
            [(super::super::Release::Subsampled(m), _)] => m.clone(),
            _ => unreachable!(),
        }
    }

    /// Our 6-digit bracket certifies its digits and contains the reference's.
    fn assert_contains(ours: &Composed, theirs: &Composed, case: &str, reference: &str) {
        assert!(ours.value.digits() >= 6, "{case}: {:?}", ours.value);
        assert!(
            ours.value.lo <= theirs.value.lo && theirs.value.hi <= ours.value.hi,
            "{case}: ours {:?} does not contain the {reference}'s {:?}",
            ours.value,
            theirs.value
        );
    }

    /// Far in the tail at tiny q, where one step's tail decides δ (the excess over the all-bulk
    /// part is composed): at T = 3 the small-T nested integration is an independent reference.
    /// Without the split the route cannot certify 6 digits here.
    #[test]
    fn tail_brackets_contain_the_nested_integration() {
        contain_the_nested_integration(
            &[
                ("0.001", "1", "2"),
                ("0.001", "1", "8"),
                ("0.001", "0.6", "0.5"),
                ("0.01", "1", "4"),
            ],
            false,
        );
    }

    /// At T = 3, each case's 6-digit δ(ε) from this route (`blocks`: by blocks from the first
    /// pass) certifies its digits and contains the nested integration's 8-digit bracket.
    fn contain_the_nested_integration(cases: &[(&str, &str, &str)], blocks: bool) {
        let nested = ComposeOptions {
            digits: 8,
            force_inversion: false,
        };
        for &(q, s, eps) in cases {
            let sched = schedule(q, s, 3);
            let x: Scalar = eps.parse().unwrap();
            let ours = super::delta_for_eps(&sched, &release(&sched), 3, &x, 6, blocks).unwrap();
            let theirs = super::super::delta_for_eps(&sched, &x, &nested).unwrap();
            assert!(theirs.route.contains("nested"), "{}", theirs.route);
            assert_contains(&ours, &theirs, &format!("{q} {s} {eps}"), "nested route");
        }
    }

    /// T-fold brackets against the inversion (an independent route: Laplace inversion of the
    /// moment generating function, forced, at 7 digits) where it is fast: the discretised
    /// bracket must contain the inversion's, at the 6 digits it certifies.
    #[test]
    fn brackets_contain_the_inversion() {
        let inv = ComposeOptions {
            digits: 7,
            force_inversion: true,
        };
        let cases: [(&str, &str, u64, bool, &str); 6] = [
            ("0.01", "1", 10, false, "1e-5"),
            ("0.01", "2", 100, false, "1e-6"),
            ("0.01", "1", 10, true, "0.3"),
            ("0.05", "1.5", 40, true, "1.0"),
            // δ(ε) far below 10⁻⁹ (1.5·10⁻¹²): the truncation budget follows δ's scale.
            ("0.01", "0.6", 100, true, "10"),
            // Beyond T = 100: the two-sided window (q = 0.001, σ = 5, T = 1000).
            ("0.001", "5", 1000, false, "1e-5"),
        ];
        for (q, s, t, is_delta, x) in cases {
            let sched = schedule(q, s, t);
            let m = release(&sched);
            let x: Scalar = x.parse().unwrap();
            let (ours, theirs) = if is_delta {
                (
                    super::delta_for_eps(&sched, &m, t, &x, 6, false).unwrap(),
                    super::super::delta_for_eps(&sched, &x, &inv).unwrap(),
                )
            } else {
                (
                    super::eps_for_delta(&sched, &m, t, &x, 6, false).unwrap(),
                    super::super::eps_for_delta(&sched, &x, &inv).unwrap(),
                )
            };
            assert_contains(&ours, &theirs, &format!("{q} {s} {t} {x}"), "inversion");
        }
    }

    /// The labels' allowance τ bounds, with its factor 16 to spare, the loss error of every
    /// computed cell edge: ℓ(z_e) at 256 bits (z_e and the law's q and σ as the doubles the
    /// route uses) against the exact knot o + jh, over every knot of the step, both directions.
    #[test]
    fn tau_bounds_the_edge_rounding() {
        use rug::ops::Pow;
        use rug::Float;
        let mut worst = 0.0f64;
        for &(q, s) in &[
            (0.001, 0.6),
            (0.001, 5.0),
            (0.01, 1.0),
            (0.5, 2.0),
            (0.2, 0.3),
            (1e-6, 0.4),
            (1e-4, 0.3),
            (1e-6, 0.8),
        ] {
            // The remove step also with a ceiling at 30 % of its loss range (its τ counts only
            // the edges up to the ceiling's).
            let remove = Law::new(q, s, Dir::Remove);
            let span = 8192.0 * initial_h(&remove, 1e-30);
            let third = remove.l1q + 0.3 * span;
            // And at a ceiling of up to a thousand q, where every loss is small (c_top near it).
            let few = remove.l1q + (1000.0 * q).min(0.1 * span);
            for (dir, ceiling) in [
                (Dir::Remove, f64::INFINITY),
                (Dir::Add, f64::INFINITY),
                (Dir::Remove, third),
                (Dir::Remove, few),
            ] {
                let law = Law::new(q, s, dir).with_ceiling(ceiling);
                let h = initial_h(&law, 1e-30);
                let p = discretise(&law, h, 1e-30).unwrap();
                assert_eq!(p.hit.is_some(), ceiling.is_finite(), "q={q} s={s}");
                let f = |x: f64| Float::with_val(256, x);
                let (qm, s2) = (f(q), f(s).pow(2u32));
                let sgn = law.s;
                for j in p.j0..p.j0 + p.up.len() as i64 {
                    let l = p.o + j as f64 * p.h;
                    let Some(e) = law.edge(l) else { continue };
                    // ℓ(z) = s·ln(1 − q + q·e^{(2sz − 1)/(2σ²)}), exactly in z.
                    let y = (f(2.0 * sgn) * f(e.z) - 1u32) / (f(2.0) * &s2);
                    let inner = f(1.0) - &qm + &qm * y.exp();
                    let loss = f(sgn) * inner.ln();
                    let knot = f(p.o) + f(j as f64) * f(p.h);
                    let err = Float::with_val(256, &loss - &knot).abs().to_f64();
                    let ratio = err / (p.tau / 16.0);
                    assert!(
                        ratio <= 1.0,
                        "q={q} s={s} {dir:?} knot {j}: edge loss off by {err:e}, τ = {:e}",
                        p.tau
                    );
                    worst = worst.max(ratio);
                }
            }
        }
        // Not vacuous: the worst edge uses a visible share of τ/16.
        assert!(worst > 1e-3, "worst share of tau/16: {worst:e}");
    }

    /// The closed forms of [`knot_weights`] bound the sums they replace (Σ_j w_j and
    /// (Σ_j w_j²)^½, w_j = e^{−λjh}·min(1, (j+1)h), summed directly) and are within a factor 4 of
    /// them.
    #[test]
    fn knot_weights_bound_the_sums() {
        for &(lambda, h) in &[
            (0.0, 1e-3),
            (0.5, 1e-2),
            (20.0, 1e-4),
            (2000.0, 3e-6),
            (300.0, 0.5),
        ] {
            for &count in &[1.0, 10.0, 1e3, 1e6] {
                let (w1, w2) = knot_weights(lambda, h, count);
                let (mut s1, mut s2) = (0.0f64, 0.0f64);
                for j in 0..count as usize {
                    let w = (-lambda * h * j as f64).exp() * (h * (j + 1) as f64).min(1.0);
                    s1 += w;
                    s2 += w * w;
                }
                let s2 = s2.sqrt();
                let case = format!("lambda={lambda} h={h} count={count}");
                assert!(
                    w1 >= s1 && w1 <= 4.0 * s1.max(1e-300),
                    "{case}: {w1:e} vs {s1:e}"
                );
                assert!(
                    w2 >= s2 && w2 <= 4.0 * s2.max(1e-300),
                    "{case}: {w2:e} vs {s2:e}"
                );
            }
        }
    }

    /// A query the discretised route cannot finish at the digits asked is refused with its
    /// narrowest bracket and that bracket's digits (not the inversion's "0 certified"):
    /// q = 0.01, σ = 5, T = 10, ε = 0.5 at 8 digits within 2 s. The route does not start a pass
    /// that would outlast the limit (its third is an FFT of 2^24, 13 s here), so the limit is
    /// kept (the time check covers [`super::pace`]). The earlier cases (q = 0.01, σ = 1,
    /// T = 100, ε = 8 at 6 digits, and before it q = 0.001, σ = 1, T = 100, ε = 0.5) are
    /// answered since the cap is 2^24.
    #[test]
    fn a_refusal_reports_the_narrowest_bracket() {
        let sched = schedule("0.01", "5", 10);
        let x: Scalar = "0.5".parse().unwrap();
        let eight = ComposeOptions {
            digits: 8,
            force_inversion: false,
        };
        let t0 = std::time::Instant::now();
        let err = crate::numeric::deadline::with_limit(Some(2.0), || {
            super::super::delta_for_eps(&sched, &x, &eight)
        })
        .unwrap_err();
        let took = t0.elapsed().as_secs_f64();
        assert!(took < 8.0, "{took} s against a limit of 2 s");
        let crate::error::Error::Precision {
            requested,
            certified,
            narrowest: Some(n),
            ..
        } = &err
        else {
            panic!("not a refusal with a bracket: {err}")
        };
        assert_eq!(*requested, 8);
        let certified = *certified;
        assert!((1..8).contains(&certified), "{err}");
        assert!(n.route.contains("discretised"), "{err}");
        assert!(
            err.to_string().contains(&format!("[{}, {}]", n.lo, n.hi)),
            "{err}"
        );
        let (lo, hi): (f64, f64) = (n.lo.parse().unwrap(), n.hi.parse().unwrap());
        // The digits named are the printed bracket's (printed outward to 9 digits).
        let digits = (-((hi - lo) / (hi + lo)).log10()).floor();
        assert!(
            lo < hi && digits == f64::from(certified),
            "[{lo:e}, {hi:e}]: {certified}"
        );
    }

    /// Below the route's floor (δ < 10⁻³⁰⁰: q = 0.01, σ = 5, T = 100, ε = 30, where the one step
    /// that decides δ needs x ≈ σ²·ln(e^ε/q) ≈ 865, δ ≈ e^{−15000}) the inversion has no bracket
    /// and the route no digit: the refusal reports the route's [0, 2·10⁻³⁰⁰], a certified upper
    /// bound, rather than the inversion's bare "only 0 certified" (until stop 41).
    #[test]
    fn below_the_floor_a_refusal_bounds_delta() {
        let sched = schedule("0.01", "5", 100);
        let x: Scalar = "30".parse().unwrap();
        let six = ComposeOptions {
            digits: 6,
            force_inversion: false,
        };
        let err = super::super::delta_for_eps(&sched, &x, &six).unwrap_err();
        let crate::error::Error::Precision {
            certified: 0,
            narrowest: Some(n),
            ..
        } = &err
        else {
            panic!("not a refusal with a bracket: {err}")
        };
        assert!(n.route.contains("discretised"), "{err}");
        let (lo, hi): (f64, f64) = (n.lo.parse().unwrap(), n.hi.parse().unwrap());
        assert!(lo == 0.0 && hi > 0.0 && hi <= 2.1e-300, "{err}");
    }

    /// The narrowest bracket a δ(ε) query returns when the passes run out is valid: asked for
    /// 8 digits (the route's most) far in the tail at T = 3, every bracket the route returns
    /// meets the nested integration's (an independent route, 8 digits), one short of the digits
    /// contains it, and at least one falls short, so the fallback is what is checked. (The
    /// blocks made the first four certify 8 digits; the refined tilts, stop 39, the next three,
    /// which fell short at 7 and 2 digits. The last is below the route's floor of 10⁻³⁰⁰, where
    /// the narrowest bracket is [0, 2·10⁻³⁰⁰]: nested, δ ≈ 3.75795·10⁻³⁰⁷.)
    #[test]
    fn a_short_bracket_still_contains_the_nested_integration() {
        let nested = ComposeOptions {
            digits: 8,
            force_inversion: false,
        };
        let mut short = 0;
        for (q, s, eps) in [
            ("0.001", "1", "2"),
            ("0.001", "1", "8"),
            ("0.001", "0.6", "0.5"),
            ("0.01", "1", "4"),
            ("0.001", "1", "30"),
            ("0.01", "5", "2"),
            ("0.05", "5", "2"),
            ("0.001", "5", "1"),
        ] {
            let sched = schedule(q, s, 3);
            let x: Scalar = eps.parse().unwrap();
            let ours = super::delta_for_eps(&sched, &release(&sched), 3, &x, 8, false).unwrap();
            let theirs = super::super::delta_for_eps(&sched, &x, &nested).unwrap();
            assert!(theirs.route.contains("nested"), "{}", theirs.route);
            // Both contain δ: they meet; a short bracket (far wider) contains the reference.
            let (o, r) = (&ours.value, &theirs.value);
            assert!(
                o.lo <= r.hi && r.lo <= o.hi,
                "{q} {s} {eps}: {o:?} misses {r:?}"
            );
            if o.digits() < 8 {
                assert!(
                    o.lo <= r.lo && r.hi <= o.hi,
                    "{q} {s} {eps}: {o:?} vs {r:?}"
                );
                short += 1;
            }
        }
        assert!(
            short >= 1,
            "every case certified 8 digits: the fallback is not exercised"
        );
    }

    /// The tilts' refinement between grid points: a steep convex exponent (T·L(λ) − λε at large
    /// T changes by hundreds of nats between grid points) is minimised to within 10⁻⁶ of its
    /// minimum, from a grid best 44 nats above it; a flat one keeps the grid's best without
    /// evaluating f (the secants' floor is within ln 2).
    #[test]
    fn refine_tilt_finds_the_minimum_between_grid_points() {
        let grid_of = |f: &dyn Fn(f64) -> f64| {
            let mut g = Vec::new();
            let mut l = 0.05f64;
            while l < 3000.0 {
                g.push((l, f(l)));
                l *= super::TILT_GRID;
            }
            let i = (0..g.len())
                .min_by(|&a, &b| g[a].1.total_cmp(&g[b].1))
                .unwrap();
            (g, i)
        };
        let steep = |l: f64| 50.0 * (l - 13.3) * (l - 13.3) - 400.0;
        let (g, i) = grid_of(&steep);
        assert!(g[i].1 > -360.0, "grid best {:?}", g[i]);
        let (l, v) = super::refine_tilt(steep, &g, i);
        assert!(v <= -400.0 + 1e-6 && (l - 13.3).abs() < 2e-4, "{l} {v}");
        assert_eq!(v, steep(l));
        let flat = |l: f64| 1e-3 * (l - 13.3) * (l - 13.3);
        let (g, i) = grid_of(&flat);
        let calls = std::cell::Cell::new(0);
        let counted = |l: f64| {
            calls.set(calls.get() + 1);
            flat(l)
        };
        assert_eq!(super::refine_tilt(counted, &g, i), g[i]);
        assert_eq!(calls.get(), 0);
        // At the grid's end (no neighbours above), the search stays within the grid.
        let edge = |l: f64| -l;
        let (g, i) = grid_of(&edge);
        let (l, _) = super::refine_tilt(edge, &g, i);
        assert!(l <= g[i].0 && l >= g[i - 1].0, "{l}");
    }

    /// Where several steps' tails share ε (q = 0.001, σ = 1, ε = 30: about four steps near
    /// ℓ ≈ 7.5), T·L(λ) is steep and the tilt grid's best bound was 10⁵–10¹³ above the
    /// minimum: T = 10 was refused at 6 digits ("only 2 certified", the FFT's rounding) before
    /// the refinement. Now 6 digits, and the bracket meets the forced inversion's (1 digit).
    #[test]
    fn a_tail_shared_by_several_steps_is_certified() {
        let sched = schedule("0.001", "1", 10);
        let x: Scalar = "30".parse().unwrap();
        let ours = super::delta_for_eps(&sched, &release(&sched), 10, &x, 6, false).unwrap();
        assert!(ours.value.digits() >= 6, "{:?}", ours.value);
        let inversion = ComposeOptions {
            digits: 1,
            force_inversion: true,
        };
        let theirs = super::super::delta_for_eps(&sched, &x, &inversion).unwrap();
        let (o, r) = (&ours.value, &theirs.value);
        assert!(o.lo <= r.hi && r.lo <= o.hi, "{o:?} misses {r:?}");
    }

    /// σ = 5: the step's loss has a log-normal body, one tilt cannot serve the composition, and
    /// the route answers only block by block (the largest step's loss, each block at its own
    /// tilt). At T = 3 the nested integration is an independent reference (10 digits): the
    /// 6-digit brackets (δ from 10⁻⁹⁹ to 10⁻²³³) certify their digits and contain it. The
    /// T = 4 analogues were refused ("only 0 certified") before the blocks.
    #[test]
    fn blocks_bracket_the_nested_integration_at_sigma_5() {
        contain_the_nested_integration(
            &[
                ("0.01", "5", "0.5"),
                ("0.001", "5", "0.1"),
                ("0.01", "5", "2"),
            ],
            true,
        );
    }

    /// The blocks are an exact decomposition of the excess ((a + b)^{*T} − b^{*T} = Σ_j
    /// [(a_j + b_j)^{*T} − b_j^{*T}]): on the same pairs, the upper pair's δ from the blocks
    /// (their sum, with the bounded blocks' Chernoff bounds on its upper end) and from one
    /// composition of the whole pair at its own tilt must meet. Where one tilt suffices
    /// (q = 0.01, σ = 1, T = 10, ε = 2) both are narrow and agree to 10⁻⁶; where it does not
    /// (q = 0.001, σ = 5, T = 4, ε = 0.1) the single composition's interval is wide and must
    /// contain the blocks', which is narrow.
    #[test]
    fn blocks_agree_with_the_single_composition() {
        for (q, sigma, t, eps, one_tilt_suffices) in
            [(0.01, 1.0, 10u64, 2.0, true), (0.001, 5.0, 4, 0.1, false)]
        {
            let law = Law::new(q, sigma, Dir::Remove);
            let budget = if one_tilt_suffices { 1e-20 } else { 1e-135 };
            let h = initial_h(&law, budget / t as f64) / 4.0;
            let p = discretise(&law, h, budget / t as f64).unwrap();
            let query = Query::Delta(eps, None);
            // Several blocks are what is checked: the goal is tight enough that the whole
            // excess alone (at its refined tilt, 10⁻⁸ of δ at σ = 5) is halved.
            let rel = if one_tilt_suffices { 1e-8 } else { 1e-12 };
            let blocks = compose(&p, t, budget, query, 1.0, true, rel, false).unwrap();
            assert!(
                super::excess_split(&p, t, query).is_some(),
                "{q} {sigma}: the knots do not split"
            );
            if !one_tilt_suffices {
                assert!(blocks.parts.len() > 1, "{q} {sigma}: one block");
            }
            // The upper pair's δ from the blocks: both ends of each block's, summed.
            let ends = |upper: bool| -> f64 {
                blocks.parts.iter().map(|(u, _)| u.delta(eps, upper)).sum()
            };
            let (b_lo, b_hi) = (ends(false), ends(true) + blocks.extra);
            let tilt = choose_tilt(&p, t, query, None, false);
            let (lambda, _, _) = pick_tilt(&p, t, budget, query, 1.0, tilt.lambda, tilt.eps);
            let n = p.up.len() - 1;
            let w = super::plan(&p, t, budget, lambda, (query, eps), n).unwrap();
            let single = compose_part(&p, t, query, lambda, n, None, 0.0, w, None).unwrap();
            let (s_lo, s_hi) = (single.up.delta(eps, false), single.up.delta(eps, true));
            let case = format!(
                "{q} {sigma} {t} {eps}: blocks [{b_lo:e}, {b_hi:e}], single [{s_lo:e}, {s_hi:e}]"
            );
            assert!(b_lo > 0.0 && b_lo <= s_hi && s_lo <= b_hi, "{case}");
            assert!(
                b_hi - b_lo <= 1e-6 * b_hi,
                "{case}: the blocks' interval is wide"
            );
            if one_tilt_suffices {
                assert!(s_hi - s_lo <= 1e-6 * s_hi, "{case}");
            } else {
                assert!(
                    s_hi - s_lo > 1e3 * (b_hi - b_lo),
                    "{case}: one tilt sufficed"
                );
            }
        }
    }

    /// A pass by blocks without its tolerance (the first) has not pre-split its blocks, so its
    /// FFT rounding must not end the route (`tilt_maxed`); one with its tolerance may. The route
    /// stopped after its first pass at q = 0.001, σ = 1, T = 300, ε = 8 with no digit.
    #[test]
    fn only_a_pass_with_its_tolerance_ends_the_route_by_blocks() {
        let (q, sigma, t, eps) = (0.01, 1.0, 10u64, 2.0);
        let law = Law::new(q, sigma, Dir::Remove);
        let budget = 1e-20;
        let h = initial_h(&law, budget / t as f64);
        let p = discretise(&law, h, budget / t as f64).unwrap();
        // The pass goes by blocks (the knots split), or the check says nothing about them.
        assert!(super::excess_split(&p, t, Query::Delta(eps, None)).is_some());
        let first = compose(
            &p,
            t,
            budget,
            Query::Delta(eps, None),
            1.0,
            true,
            1e-8,
            false,
        )
        .unwrap();
        assert!(!first.tilt_maxed, "a first pass by blocks ended the route");
        let later = compose(
            &p,
            t,
            budget,
            Query::Delta(eps, Some(1e-20)),
            1.0,
            true,
            1e-8,
            false,
        );
        assert!(later.unwrap().tilt_maxed);
    }

    /// A second pass by blocks at q = 0.001, σ = 1, T = 300, ε = 30 (its step, budget and
    /// tolerance): the whole excess, at its refined tilt, meets the tolerance on one FFT of 2²².
    /// Until stop 41 the pre-split tested the grid's bound (10¹² above the refined one) and
    /// composed 23 blocks in 20 s, and a block composed then halved set the next pass's step.
    #[test]
    fn a_block_within_reach_is_composed_whole() {
        let (q, sigma, t, eps) = (0.001, 1.0, 300u64, 30.0);
        let law = Law::new(q, sigma, Dir::Remove);
        let (h, budget, tol) = (1.168e-4, 5.4e-184, 7.4e-182);
        let p = discretise(&law, h, budget / t as f64).unwrap();
        let query = Query::Delta(eps, Some(tol));
        assert!(super::excess_split(&p, t, query).is_some());
        let c = compose(&p, t, budget, query, 1.0, true, 0.125e-6, false).unwrap();
        assert_eq!(c.parts.len(), 1, "the excess was split");
        assert!(c.need <= (1 << 22) as f64, "window of {}", c.need);
        let (lo, hi) = (c.delta(eps, false), c.delta(eps, true));
        // Its FFT error is within the tolerance: the width is the discretisation's.
        let disc = c.approx(eps, true) - c.approx(eps, false);
        assert!(
            lo > 0.0 && hi - lo <= disc + tol,
            "[{lo:e}, {hi:e}], disc {disc:e}"
        );
    }

    /// The tilted binning is the untilted one in other units: with cells given as their masses
    /// times e^{λch}, the knots' masses times e^{−λkh} are the untilted binning's up to the
    /// margins (a bin's end moves by them, shifting a little mass between knots), and the total
    /// is not above it (the margins only lose mass).
    #[test]
    fn tilted_binning_matches_the_untilted() {
        let mut next = uniform(0x9e37_79b9_7f4a_7c15u64);
        let h = 0.01;
        let cells: Vec<Cell> = (0..200)
            .map(|c| {
                let m = (-(c as f64 - 60.0).powi(2) / 800.0).exp() * (0.5 + next());
                let (a, b) = (m * h * (0.3 + next()), m * h * (0.3 + next()));
                Cell {
                    a,
                    b,
                    ea: 1e-14 * a,
                    eb: 1e-14 * b,
                }
            })
            .collect();
        let plain = lower_pair(&cells, h);
        for &lambda in &[0.5, 3.0, 40.0] {
            let tilted: Vec<Cell> = cells
                .iter()
                .enumerate()
                .map(|(c, x)| {
                    let f = (lambda * c as f64 * h).exp();
                    Cell {
                        a: x.a * f,
                        b: x.b * f,
                        ea: x.ea * f,
                        eb: x.eb * f,
                    }
                })
                .collect();
            let lo = lower_pair_tilted(&tilted, h, lambda);
            let (mut mass, mut back_mass) = (0.0, 0.0);
            for (k, (&x, &y)) in lo.iter().zip(&plain).enumerate() {
                let back = x * (-lambda * k as f64 * h).exp();
                assert!(
                    (back - y).abs() <= 1e-9 * y,
                    "lambda {lambda}, knot {k}: {back:e} against {y:e}"
                );
                mass += y;
                back_mass += back;
            }
            assert!(back_mass <= mass * (1.0 + 1e-13), "{back_mass} > {mass}");
            assert!(mass > 0.5, "the binning lost the mass: {mass}");
        }
        assert_eq!(lower_pair_tilted(&cells, h, 0.0), plain);
    }

    /// The fine core's spectrum: every composed mass within the bound of the direct
    /// composition Σ_j C(T, j)·C_{T−j}*E_j (direct convolutions of the binary powers and of the
    /// rest, E_j by its nonnegative recurrence), with and without a split, and the bound is not
    /// vacuous.
    #[test]
    fn core_spectrum_error_bound_holds() {
        let mut next = uniform(0x2545_f491_4f6c_dd1du64);
        let conv = |x: &[f64], y: &[f64]| {
            let mut out = vec![0.0f64; x.len() + y.len() - 1];
            for (i, &u) in x.iter().enumerate() {
                for (j, &v) in y.iter().enumerate() {
                    out[i + j] += u * v;
                }
            }
            out
        };
        let add = |x: &[f64], y: &[f64]| {
            let mut out = vec![0.0f64; x.len().max(y.len())];
            for (i, v) in out.iter_mut().enumerate() {
                *v = x.get(i).copied().unwrap_or(0.0) + y.get(i).copied().unwrap_or(0.0);
            }
            out
        };
        let (t, jmax, nf) = (37u64, 6usize, 2048usize);
        let bits = 6;
        for whole in [true, false] {
            // One pair per input (the upper in the real part, the lower in the imaginary).
            let vec_of =
                |len: usize, scale: f64, next: &mut dyn FnMut() -> f64| -> Vec<(f64, f64)> {
                    (0..len)
                        .map(|_| (scale * next().powi(3), scale * next().powi(3)))
                        .collect()
                };
            let gs: Vec<Vec<(f64, f64)>> = (0..bits)
                .map(|b| vec_of(3 + b, 0.9f64.powi(1 << b) / 2.0, &mut next))
                .collect();
            let a = vec_of(4, 0.02, &mut next);
            let b = if whole {
                vec![(0.0, 0.0)]
            } else {
                vec_of(3, 0.05, &mut next)
            };
            let pack = |v: &[(f64, f64)]| {
                let mut z = vec![Complex64::new(0.0, 0.0); nf];
                for (k, &(u, l)) in v.iter().enumerate() {
                    z[k] = Complex64::new(u, l);
                }
                z
            };
            let (y, err) = core_spectrum(
                gs.iter().map(|g| pack(g)).collect(),
                pack(&a),
                (!whole).then(|| pack(&b)),
                t,
                jmax,
                whole,
            );
            for part in 0..2 {
                let pick = |v: &[(f64, f64)]| -> Vec<f64> {
                    v.iter()
                        .map(|x| if part == 0 { x.0 } else { x.1 })
                        .collect()
                };
                let g: Vec<Vec<f64>> = gs.iter().map(|x| pick(x)).collect();
                let (av, bv) = (pick(&a), pick(&b));
                let c_of = |m: u64| {
                    let mut c = vec![1.0];
                    for (bit, gb) in g.iter().enumerate() {
                        if (m >> bit) & 1 == 1 {
                            c = conv(&c, gb);
                        }
                    }
                    c
                };
                let mut total = if whole { c_of(t) } else { vec![0.0] };
                let (mut e, mut bp) = (vec![0.0], vec![1.0]);
                let mut binom = 1.0f64;
                for j in 1..=jmax {
                    binom *= (t - j as u64 + 1) as f64 / j as f64;
                    e = add(&conv(&add(&av, &bv), &e), &conv(&av, &bp));
                    bp = conv(&bp, &bv);
                    let term: Vec<f64> = conv(&c_of(t - j as u64), &e)
                        .iter()
                        .map(|x| x * binom)
                        .collect();
                    total = add(&total, &term);
                }
                assert!(total.len() <= nf);
                let mut worst = 0.0f64;
                for (i, yi) in y.iter().enumerate() {
                    let exact = total.get(i).copied().unwrap_or(0.0);
                    let got = if part == 0 { yi.re } else { yi.im } / nf as f64;
                    let d = (got - exact).abs();
                    let slack = 64.0 * U * exact;
                    assert!(
                        d <= err.each + slack,
                        "whole {whole}, part {part}, i={i}: {d:e} > bound {:e}",
                        err.each
                    );
                    worst = worst.max(d);
                }
                let peak = total.iter().cloned().fold(0.0, f64::max);
                assert!(worst > 0.0 && peak > 0.0);
                assert!(
                    err.each < 1e-10 * peak,
                    "whole {whole}: bound {:e} is vacuous",
                    err.each
                );
            }
        }
    }

    /// A pass with the fine core (q = 0.001, σ = 1, T = 100, ε = 30: the core's knot, its
    /// binary powers, the rest carried to J steps): its bracket meets the grid-alone pass's at the
    /// same step and contains the route's 5-digit answer without the core (stop 41: [4.68152488,
    /// 4.68154478]·10⁻¹⁷⁷, a refusal at 6 digits that the core now answers), and its
    /// discretisation is at least 5 times narrower (the prototype measured 14).
    #[test]
    fn a_fine_core_narrows_the_discretisation() {
        let (q, sigma, t, eps) = (0.001, 1.0, 100u64, 30.0);
        let law = Law::new(q, sigma, Dir::Remove);
        let (h, budget, tol) = (2.4e-4, 4.7e-186, 5.9e-184);
        let p = discretise(&law, h, budget / t as f64).unwrap();
        let query = Query::Delta(eps, Some(tol));
        let plain = compose(&p, t, budget, query, 1.0, false, 0.125e-6, false).unwrap();
        let fine = compose(&p, t, budget, query, 1.0, false, 0.125e-6, true).unwrap();
        assert_eq!(plain.core_used, 0);
        assert!(fine.core_used > 0, "the core was not used");
        let (lo, hi) = (fine.delta(eps, false), fine.delta(eps, true));
        let (plo, phi) = (plain.delta(eps, false), plain.delta(eps, true));
        assert!(
            lo <= phi && plo <= hi,
            "[{lo:e}, {hi:e}] misses [{plo:e}, {phi:e}]"
        );
        assert!(
            lo <= 4.681_544_78e-177 && hi >= 4.681_524_88e-177,
            "[{lo:e}, {hi:e}]"
        );
        let disc = |c: &super::Both| c.approx(eps, true) - c.approx(eps, false);
        assert!(
            5.0 * disc(&fine) < disc(&plain),
            "discretisation {:e} against {:e}",
            disc(&fine),
            disc(&plain)
        );
    }

    /// The second pass by blocks at q = 0.001, σ = 1, T = 1000, ε = 8 (its step, budget and
    /// tolerance from the first pass): the excess's first halving leaves the error in its lower
    /// half, the next halving removes it, and the pass's FFT errors end within the tolerance.
    /// Until stop 43 one unhelpful halving ended the line (UNHELPED = 1): the error stayed 500
    /// times the tolerance and the route stopped at 3 digits.
    #[test]
    fn halving_goes_on_past_one_unhelpful_split() {
        let (q, sigma, t, eps) = (0.001, 1.0, 1000u64, 8.0);
        let law = Law::new(q, sigma, Dir::Remove);
        let (h, budget, tol) = (4.7396e-5, 7.07e-61, 2.41e-55);
        let p = discretise(&law, h, budget / t as f64).unwrap();
        let query = Query::Delta(eps, Some(tol));
        let c = compose(&p, t, budget, query, 1.0, true, 0.125e-6, false).unwrap();
        let (lo, hi) = (c.delta(eps, false), c.delta(eps, true));
        let disc = c.approx(eps, true) - c.approx(eps, false);
        assert!(
            lo > 0.0 && hi - lo <= disc + tol,
            "[{lo:e}, {hi:e}], disc {disc:e}, tolerance {tol:e}"
        );
    }

    /// [`core_knot`]'s finest step against its own fit at q = 0.001, σ = 1, T = 1000, ε = 30
    /// (the tilt of its second pass): a core fits at a step a tenth above the predicted finest
    /// (where `next_step` stops) and none at a step a fifth below it.
    #[test]
    fn the_core_fits_down_to_its_predicted_step() {
        let (q, sigma, t, eps) = (0.001, 1.0, 1000u64, 30.0);
        let law = Law::new(q, sigma, Dir::Remove);
        let budget = 3.3e-186;
        let query = Query::Delta(eps, None);
        let p = discretise(&law, 1.1237e-4, budget / t as f64).unwrap();
        let split = super::excess_split(&p, t, query);
        let lambda = choose_tilt(&p, t, query, split, true).lambda;
        let (_, h_min) =
            super::core_knot(&p, t, lambda, split).expect("no core at the pass's step");
        assert!(h_min > 0.0 && h_min < p.h, "finest step {h_min:e}");
        let fits = |h: f64| {
            let p = discretise(&law, h, budget / t as f64).unwrap();
            let split = super::excess_split(&p, t, query);
            super::core_knot(&p, t, lambda, split).is_some()
        };
        assert!(fits(1.1 * h_min), "no core at {:e}", 1.1 * h_min);
        assert!(!fits(0.8 * h_min), "a core at {:e}", 0.8 * h_min);
    }

    /// The next step is limited by the window's length, not its FFT's power of two: a window of
    /// 8.8·10⁶ knots leaves room for a step 1.9 times finer within the cap of 2²⁴ (q = 0.01,
    /// σ = 5, T = 1000, ε = 2 needed 1.6), where the FFT's length (2²⁴) leaves none.
    #[test]
    fn the_step_shrinks_to_the_cap_by_the_window() {
        let h = 3.558e-7;
        let next = super::refine(h, 4.4, 1.0, 8.8e6).unwrap();
        let f = h / next;
        assert!((1.85..=1.95).contains(&f), "refined by {f}");
        assert!(super::refine(h, 4.4, 1.0, (1u64 << 24) as f64).is_err());
    }

    /// The inversion's fallback takes ε(δ) up to δ = 0.99 (stop 44): small σ at small q, where
    /// the inversion cannot bound its tail. dp_accounting 0.6.0's PLD at 10⁻⁴ on this machine:
    /// q = 0.01, σ = 0.3, T = 1000, δ = 0.6: pessimistic (an upper bound) 11.078035126877685,
    /// optimistic 11.024381383772512; q = 0.001, σ = 0.4, T = 1000, δ = 0.5: 0 and 0, which this
    /// route certifies as the point 0 (it read [0, 8.7·10⁻³⁴] before its ε = 0 check).
    #[test]
    fn fallback_takes_eps_up_to_delta_099() {
        let sg = |q: &str, s: &str| {
            SubsampledGaussian::new(q.parse::<Scalar>().unwrap(), s.parse::<Scalar>().unwrap())
                .unwrap()
        };
        let m = sg("0.01", "0.3");
        let sched = Schedule::homogeneous(&m, 1000).unwrap();
        let d = "0.6".parse::<Scalar>().unwrap();
        assert!(super::eps_for_delta(&sched, &m, 1000, &d, 6, false).is_err());
        let c = super::eps_for_delta(&sched, &m, 1000, &d, 6, true).unwrap();
        assert!(c.value.digits() >= 6, "{:?}", c.value);
        assert!(c.value.lo.to_f64() <= 11.078035126877685, "{:?}", c.value);
        assert!(c.value.hi.to_f64() >= 11.024381383772512, "{:?}", c.value);
        let m = sg("0.001", "0.4");
        let sched = Schedule::homogeneous(&m, 1000).unwrap();
        let d = "0.5".parse::<Scalar>().unwrap();
        let c = super::eps_for_delta(&sched, &m, 1000, &d, 6, true).unwrap();
        assert!(c.value.lo == 0 && c.value.hi == 0, "{:?}", c.value);
    }

    /// The complement's ε(δ) near δ = 1 against independent references
    /// (docs/accounting.md#discrete-complement): q = 0.5, σ = 1, T = 1000, δ = 1 − 10⁻¹², the
    /// remove direction, must contain `golden/accounting/near_one.csv`'s mpmath inversion on its
    /// own line (20 digits, ±½ unit); at q = 0.01, σ = 0.3, T = 1000 (where the inversion cannot
    /// bound its tail) and δ = 0.6, the complement and the route's direct reading
    /// ([`Composite::eps`]: other pairs, other tilt) must meet, and both must reach dp_accounting
    /// 0.6.0's PLD at 10⁻⁴ (stop 44, this machine: pessimistic 11.078035126877685, optimistic
    /// 11.024381383772512) — below the first, above the second; at δ = 0.995, ε = 0 exactly
    /// (PLD's δ(0): 0.953372 optimistic, 0.954195 pessimistic).
    #[test]
    fn complement_meets_the_references_near_one() {
        let law = Law::new(0.5, 1.0, Dir::Remove);
        let (lo, hi) = super::eps_complement_one(&law, 1000, (1e-12, 1e-12), 6, None).unwrap();
        // 12.684331821273606176 in the CSV (20 digits); the nearest double is within 10⁻¹⁵.
        let reference = 12.684331821273606f64;
        assert!(super::has_digits(lo, hi, 6), "[{lo}, {hi}]");
        assert!(lo <= reference && reference <= hi, "[{lo}, {hi}]");
        let law = Law::new(0.01, 0.3, Dir::Remove);
        let (lo, hi) = super::eps_complement_one(&law, 1000, (0.4, 0.4), 6, None).unwrap();
        let (dlo, dhi) = super::eps_one(&law, 1000, 0.6, 6, None).unwrap();
        assert!(super::has_digits(lo, hi, 6), "[{lo}, {hi}]");
        assert!(lo <= dhi && dlo <= hi, "[{lo}, {hi}] vs [{dlo}, {dhi}]");
        assert!(
            lo <= 11.078035126877685 && hi >= 11.024381383772512,
            "[{lo}, {hi}]"
        );
        let (lo, hi) = super::eps_complement_one(&law, 1000, (0.005, 0.005), 6, None).unwrap();
        assert!(lo == 0.0 && hi == 0.0, "[{lo}, {hi}]");
    }

    /// The complement's ε(δ) from δ = 1/2 against the forced inversion (7 digits, on its own
    /// line: the direct one below δ = 0.99, the complementary one above), both directions: the
    /// 6-digit bracket must contain the inversion's.
    #[test]
    fn complement_contains_the_inversion() {
        let inv = ComposeOptions {
            digits: 7,
            force_inversion: true,
        };
        let cases: [(&str, &str, u64, &str); 5] = [
            ("0.3", "0.6", 1000, "0.999999"),
            ("0.5", "0.7", 300, "0.99"),
            ("0.2", "0.8", 500, "0.6"),
            ("0.05", "0.6", 10000, "0.999"),
            ("0.9", "0.6", 1000, "0.999999999999"),
        ];
        for (q, s, t, x) in cases {
            let sched = schedule(q, s, t);
            let m = release(&sched);
            let x: Scalar = x.parse().unwrap();
            let ours = super::eps_near_one(&sched, &m, t, &x, 6).unwrap();
            let theirs = super::super::eps_for_delta(&sched, &x, &inv).unwrap();
            assert_contains(&ours, &theirs, &format!("{q} {s} {t} {x}"), "inversion");
        }
    }

    /// A window far wider than a double's exponent range (q = 0.1, σ = 0.3, T = 1000, δ = 10⁻⁵:
    /// ε ≈ 506, the first pass's window from loss 59 to 2028 at 6 digits): the search for the
    /// root read e^{e − ja·h}·g2 at the window's middle as ∞·0 = NaN, and the route refused
    /// ("the upper pair's eps is beyond the grid") while 5 digits answered. Reads now take the
    /// product as 0 where g2 underflowed (its loss bounded where δ is read) and give no bound
    /// where the factor overflows. dp_accounting 0.6.0's PLD at 10⁻⁴ (this machine, stop 45):
    /// pessimistic 506.1909319155144, optimistic 506.14037417163877.
    #[test]
    fn a_window_wider_than_the_exponent_range_is_read() {
        let law = Law::new(0.1, 0.3, Dir::Remove);
        let (lo, hi) = super::eps_one(&law, 1000, 1e-5, 6, None).unwrap();
        assert!(super::has_digits(lo, hi, 6), "[{lo}, {hi}]");
        assert!(
            lo <= 506.1909319155144 && hi >= 506.14037417163877,
            "[{lo}, {hi}]"
        );
    }

    /// ε(δ) read from δ(ε)'s passes (docs/accounting.md#eps-by-points), started from a bracket
    /// 10 % wider than the answer either side: at T = 3, far in the tail at tiny q, the bracket it
    /// returns certifies 6 digits and contains the nested integration's 8-digit ε(δ) of the same
    /// direction (an independent route: certified nested quadrature of the step's δ).
    #[test]
    fn eps_by_points_contains_the_nested_integration() {
        let nested = ComposeOptions {
            digits: 8,
            force_inversion: false,
        };
        for (q, s, delta) in [("0.001", "1", "1e-100"), ("0.01", "0.6", "1e-20")] {
            let sched = schedule(q, s, 3);
            let x: Scalar = delta.parse().unwrap();
            let theirs = super::super::eps_for_delta(&sched, &x, &nested).unwrap();
            assert!(theirs.route.contains("nested"), "{}", theirs.route);
            let (r_lo, r_hi) = (theirs.remove.lo.to_f64(), theirs.remove.hi.to_f64());
            let (law, _) = super::laws(&release(&sched));
            let mut best = Some((0.9 * r_lo, 1.1 * r_hi));
            super::eps_by_points(&law, 3, x.f64(), 6, None, &mut best);
            let (lo, hi) = best.unwrap();
            let case = format!("{q} {s} {delta}: [{lo}, {hi}] against [{r_lo}, {r_hi}]");
            assert!(super::has_digits(lo, hi, 6), "{case}");
            assert!(lo <= r_lo && r_hi <= hi, "{case}");
        }
    }
}
