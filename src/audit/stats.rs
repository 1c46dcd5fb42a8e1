//! The statistics of membership-inference audits, in f64.
//!
//! An audit draws `n_p` outputs of a mechanism on an input x (distribution P) and `n_q` on a
//! neighbour x′ (distribution Q), fixes a rejection region S, counts how many of each sample
//! fall in S, bounds the two error rates from above with one-sided Clopper–Pearson intervals and
//! turns the bounds into a lower bound on ε (Jagielski, Ullman & Oprea, NeurIPS 2020, §3;
//! Nasr et al., IEEE S&P 2021, §4). This module holds everything that is not mechanism-specific:
//!
//! * the binomial tails and the regularised incomplete beta function I_x(a, b)
//!   ([`beta_inc`], [`binom_cdf`], [`binom_sf`] and their logarithms), accurate in *relative*
//!   terms in both tails for counts up to 2⁵³ (tested against mpmath up to N = 10⁹);
//! * Clopper–Pearson bounds ([`cp_upper`], [`cp_lower`], [`cp_interval`]) by a bracketed,
//!   iteration-capped root search (statrs 0.19's Beta `inverse_cdf` does not return for small
//!   counts with large N, statrs issue #435, and its Beta `cdf` is inaccurate near the mean for
//!   huge shapes, #434: statrs is not used here);
//! * the ε lower bound `eps_lower_bound` and the serialisable per-region record
//!   [`RegionAudit`];
//! * threshold selection over a [`ThresholdTable`] (built from sorted samples or from
//!   histograms with cumulative counts): [`best_region`] (Bonferroni over every candidate) and
//!   [`held_out_region`] (choose on one split, evaluate on another).
//!
//! # Conventions
//! T is a scalar test statistic. For a threshold t the region is S = {T > t} ([`Tail::Above`])
//! or its complement S = {T ≤ t} ([`Tail::Below`]). In direction [`Direction::PvsQ`] the
//! *positive* class is P: a false positive is a Q-sample inside S, a false negative a P-sample
//! outside S, and (ε, δ)-DP gives P(S) ≤ e^ε Q(S) + δ, i.e.
//! ε ≥ ln((1 − δ − FNR)/FPR) with FPR = Q(S), FNR = 1 − P(S). [`Direction::QvsP`] swaps the
//! roles of P and Q (the neighbouring relation is symmetric).
//!
//! # Confidence
//! Every reported ε_lb rests on a family of one-sided Clopper–Pearson upper bounds, each at level
//! β/B where B is the number of bounds in the family; by the union bound all B hold together with
//! probability ≥ 1 − β, and then every ε_lb computed from them (and their maximum) is ≤ the true
//! ε. A single pre-chosen region in one direction needs B = 2; a search over m thresholds (both
//! tails, both directions) uses the four proportions P(S), P(Sᶜ), Q(S), Q(Sᶜ) of each threshold,
//! B = 4m. Candidate thresholds must be fixed before the samples are seen (a grid, or histogram
//! bin edges), or chosen on a held-out split.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
pub(crate) use crate::numeric::beta::MAX_COUNT;
pub use crate::numeric::beta::{beta_inc, binom_cdf, binom_sf, ln_beta_inc};
pub(crate) use crate::numeric::beta::{check_counts, check_unit, ln_binom_tails_xy};
use crate::numeric::f64s::ndtri_upper;

/// Iteration cap of the Clopper–Pearson root search (Illinois steps plus bisection fallbacks).
const ROOT_MAX_ITER: usize = 400;

/// Level at which the CP root search accepts g = ln(tail) − ln β as zero: the binomial tails are
/// accurate to a few 10⁻¹⁴ relative (see the tests), so a smaller residual carries no information.
const G_TOL: f64 = 1e-14;

// ---------------------------------------------------------------------------------------------
// Clopper–Pearson
// ---------------------------------------------------------------------------------------------

fn check_beta(name: &str, beta: f64) -> Result<f64> {
    crate::error::check_open_unit(name, beta)
}

/// Root of a monotone function g on the bracket [a, b], g(a) and g(b) of opposite signs (either
/// may be ±∞): the Illinois method (Dowell & Jarratt 1971; regula falsi whose retained end has
/// its value halved), with a bisection step whenever an end value is infinite and plain
/// bisection after 100 steps, so the bracket always shrinks. Stops when the bracket is narrower
/// than `tol`, or when |g| ≤ `ftol` (g's own rounding level: the root is then as accurate as g
/// allows), or after [`ROOT_MAX_ITER`] steps (an error).
fn bracketed_root(
    g: impl Fn(f64) -> Result<f64>,
    mut a: f64,
    mut fa: f64,
    mut b: f64,
    mut fb: f64,
    tol: f64,
    ftol: f64,
) -> Result<f64> {
    for it in 0..ROOT_MAX_ITER {
        // Never ask for less than 2 ulps of the bracket's magnitude.
        let floor = 4.0 * f64::EPSILON * a.abs().max(b.abs());
        if (b - a).abs() <= tol.max(floor) {
            return Ok(b);
        }
        let mut c = if fa.is_finite() && fb.is_finite() && it < 100 {
            b - fb * (b - a) / (fb - fa)
        } else {
            0.5 * (a + b)
        };
        let (lo, hi) = if a < b { (a, b) } else { (b, a) };
        if !(c > lo && c < hi) {
            c = 0.5 * (a + b);
            if !(c > lo && c < hi) {
                // adjacent doubles: the bracket cannot shrink further.
                return Ok(b);
            }
        }
        let fc = g(c)?;
        if fc.is_nan() {
            return Err(Error::Undefined(format!(
                "Clopper–Pearson root search: NaN tail at u = {c}"
            )));
        }
        if fc.abs() <= ftol {
            return Ok(c);
        }
        if (fc > 0.0) != (fb > 0.0) {
            a = b;
            fa = fb;
        } else {
            fa *= 0.5;
        }
        b = c;
        fb = fc;
    }
    Err(Error::Undefined(format!(
        "Clopper–Pearson root search did not converge in {ROOT_MAX_ITER} steps"
    )))
}

/// ln P(Bin(n, e^u) ≤ k) and ln P(Bin(n, e^u) > k), with 1 − e^u = −expm1(u) exact to 1 ulp.
fn ln_tails_at(k: f64, n: f64, u: f64) -> Result<(f64, f64)> {
    ln_binom_tails_xy(k, n, u.exp(), -u.exp_m1())
}

/// Upper confidence width multiplier used to place the first bracket end.
fn z_of(beta: f64) -> f64 {
    ndtri_upper(beta).max(0.0) + 1.0
}

/// The error of a Clopper–Pearson search (`which`) that found no `side` bracket.
fn no_bracket(which: &str, side: &str, k: u64, n: u64, beta: f64) -> Error {
    Error::Undefined(format!(
        "{which}: no {side} bracket for k = {k}, n = {n}, beta = {beta}"
    ))
}

/// One-sided Clopper–Pearson upper bound: the p with P(Bin(n, p) ≤ k) = β, i.e. the (1 − β)
/// quantile of Beta(k + 1, n − k) (Clopper & Pearson 1934). P(p_true > bound) ≤ β.
///
/// k = 0: 1 − β^{1/n}, computed as −expm1(ln β / n); k = n: 1. Otherwise a bracketed
/// Illinois/bisection search in u = ln p (at most 400 steps) until the bracket is 2 ulps wide
/// or |ln P(X ≤ k) − ln β| ≤ 10⁻¹⁴, the tail's own accuracy: relative accuracy ~10⁻¹⁴ in p
/// (1.3·10⁻¹⁴ worst against mpmath for n ≤ 10⁹).
/// Errors: n = 0 or > 2⁵³, k > n, β not in (0, 1).
pub fn cp_upper(k: u64, n: u64, beta: f64) -> Result<f64> {
    let (kf, nf) = check_counts(k, n)?;
    check_beta("beta", beta)?;
    if k == n {
        return Ok(1.0);
    }
    let lb = beta.ln();
    if k == 0 {
        return Ok(-(lb / nf).exp_m1());
    }
    // g(u) = ln P(X ≤ k) − ln β, decreasing in u.
    let g = |u: f64| -> Result<f64> { Ok(ln_tails_at(kf, nf, u)?.0 - lb) };
    // At p = k/n the cdf is ≥ ½ (k is a median), so g > 0 when β < ½.
    let mut u_lo = (kf / nf).ln();
    let mut g_lo = g(u_lo)?;
    let mut step = 1.0;
    let mut guard = 0;
    while g_lo <= 0.0 {
        // only for β ≥ ½: move down.
        u_lo -= step;
        step *= 2.0;
        g_lo = g(u_lo)?;
        guard += 1;
        if guard > 60 || u_lo < -745.0 {
            return Err(no_bracket("cp_upper", "lower", k, n, beta));
        }
    }
    let z = z_of(beta);
    let mut u_hi = (((kf + 1.0 + z * (kf + 1.0).sqrt() + z * z) / nf).min(1.0)).ln();
    let mut g_hi = g(u_hi)?;
    guard = 0;
    step = (u_hi - u_lo).max(1e-3);
    while g_hi > 0.0 {
        u_lo = u_hi;
        g_lo = g_hi;
        u_hi = (u_hi + step).min(0.0);
        step *= 2.0;
        g_hi = g(u_hi)?;
        guard += 1;
        if guard > 200 {
            return Err(no_bracket("cp_upper", "upper", k, n, beta));
        }
    }
    let tol = 4e-16;
    let u = bracketed_root(g, u_lo, g_lo, u_hi, g_hi, tol, G_TOL)?;
    Ok(u.exp())
}

/// One-sided Clopper–Pearson lower bound: the p with P(Bin(n, p) ≥ k) = β, i.e. the β quantile
/// of Beta(k, n − k + 1) (Clopper & Pearson 1934). P(p_true < bound) ≤ β.
///
/// k = 0: 0; k = n: β^{1/n}. Otherwise a bracketed, capped search as in [`cp_upper`].
/// Errors: n = 0 or > 2⁵³, k > n, β not in (0, 1).
pub fn cp_lower(k: u64, n: u64, beta: f64) -> Result<f64> {
    let (kf, nf) = check_counts(k, n)?;
    check_beta("beta", beta)?;
    if k == 0 {
        return Ok(0.0);
    }
    let lb = beta.ln();
    if k == n {
        return Ok((lb / nf).exp());
    }
    // g(u) = ln P(X ≥ k) − ln β = ln P(X > k − 1) − ln β, increasing in u.
    let g = |u: f64| -> Result<f64> { Ok(ln_tails_at(kf - 1.0, nf, u)?.1 - lb) };
    let mut u_hi = (kf / nf).ln();
    let mut g_hi = g(u_hi)?;
    let mut guard = 0;
    while g_hi <= 0.0 {
        // only for β ≥ ½: move up towards p = 1.
        u_hi *= 0.5;
        g_hi = g(u_hi)?;
        guard += 1;
        if guard > 200 {
            return Err(no_bracket("cp_lower", "upper", k, n, beta));
        }
    }
    let z = z_of(beta);
    let rel = 1.0 - (z * kf.sqrt() + z * z) / kf;
    let mut step = -(rel.max(1e-3)).ln();
    let mut u_lo = u_hi - step;
    let mut g_lo = g(u_lo)?;
    guard = 0;
    while g_lo >= 0.0 {
        u_hi = u_lo;
        g_hi = g_lo;
        step *= 2.0;
        u_lo -= step;
        g_lo = g(u_lo)?;
        guard += 1;
        if guard > 60 || u_lo < -1e4 {
            return Err(no_bracket("cp_lower", "lower", k, n, beta));
        }
    }
    let tol = 4e-16;
    let u = bracketed_root(g, u_lo, g_lo, u_hi, g_hi, tol, G_TOL)?;
    Ok(u.exp())
}

/// Two-sided Clopper–Pearson interval at confidence `conf`: (cp_lower(k, n, (1 − conf)/2),
/// cp_upper(k, n, (1 − conf)/2)). Errors: as [`cp_upper`], `conf` not in (0, 1).
pub fn cp_interval(k: u64, n: u64, conf: f64) -> Result<(f64, f64)> {
    check_beta("conf", conf)?;
    let half = 0.5 * (1.0 - conf);
    Ok((cp_lower(k, n, half)?, cp_upper(k, n, half)?))
}

// ---------------------------------------------------------------------------------------------
// The ε lower bound and the per-region record
// ---------------------------------------------------------------------------------------------

/// Raw ln((1 − δ − fnr)/fpr), possibly negative or −∞; no validation.
fn eps_raw(fpr_ub: f64, fnr_ub: f64, delta: f64) -> f64 {
    let t = delta + fnr_ub;
    if t >= 1.0 {
        return f64::NEG_INFINITY;
    }
    (-t).ln_1p() - fpr_ub.ln()
}

/// The ε lower bound max(0, ln((1 − δ − fnr_ub)/fpr_ub)) from upper bounds on the false-positive
/// and false-negative rates of one test (Kairouz, Oh & Viswanath 2015, Thm 2.1; the audit form
/// of Jagielski et al. 2020, §3, and Nasr et al. 2021, §4). ln(1 − δ − fnr_ub) is taken as
/// log1p(−(δ + fnr_ub)); a non-positive numerator gives 0.
///
/// Errors: fpr_ub not in (0, 1], fnr_ub not in [0, 1], δ not in [0, 1).
pub(crate) fn eps_lower_bound(fpr_ub: f64, fnr_ub: f64, delta: f64) -> Result<f64> {
    if !(fpr_ub > 0.0 && fpr_ub <= 1.0) {
        return Err(Error::invalid("fpr_ub", fpr_ub, "in (0, 1]"));
    }
    check_unit("fnr_ub", fnr_ub)?;
    check_delta(delta)?;
    Ok(eps_raw(fpr_ub, fnr_ub, delta).max(0.0))
}

fn check_delta(delta: f64) -> Result<f64> {
    if (0.0..1.0).contains(&delta) {
        Ok(delta)
    } else {
        Err(Error::invalid("delta", delta, "in [0, 1)"))
    }
}

/// Which side of the threshold t forms the region S.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Tail {
    /// S = {T > t} (for histograms: the bins after the cut).
    Above,
    /// S = {T ≤ t} (for histograms: the bins before the cut).
    Below,
}

crate::error::named_enum!(Tail {
    Above => "above",
    Below => "below",
});

/// Which sample is the positive class, i.e. which DP inequality is tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Direction {
    /// P(S) ≤ e^ε Q(S) + δ: positives are the P-samples (mechanism on x).
    PvsQ,
    /// Q(S) ≤ e^ε P(S) + δ: positives are the Q-samples (mechanism on x′).
    QvsP,
}

crate::error::named_enum!(Direction {
    PvsQ => "P_vs_Q",
    QvsP => "Q_vs_P",
});

/// The audit of one region in one direction: counts, Clopper–Pearson bounds and ε_lb.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegionAudit {
    /// Threshold t of the region (for histograms: the bin edge at the cut).
    pub threshold: f64,
    /// Side of t forming S.
    pub tail: Tail,
    /// Which sample is positive.
    pub direction: Direction,
    /// Number of positive-class samples.
    pub n_pos: u64,
    /// Number of negative-class samples.
    pub n_neg: u64,
    /// Negative-class samples inside S.
    pub false_positives: u64,
    /// Positive-class samples outside S.
    pub false_negatives: u64,
    /// Clopper–Pearson upper bound on FPR = (negative distribution)(S).
    pub fpr_ub: f64,
    /// Clopper–Pearson upper bound on FNR = 1 − (positive distribution)(S).
    pub fnr_ub: f64,
    /// Level of each one-sided bound (β divided by the family size).
    pub beta_per_bound: f64,
    /// Number of Clopper–Pearson bounds in the Bonferroni family.
    pub family_size: u64,
    /// Confidence 1 − β with which ε_lb ≤ ε holds.
    pub confidence: f64,
    /// δ of the (ε, δ) guarantee being audited.
    pub delta: f64,
    /// max(0, ln((1 − δ − fnr_ub)/fpr_ub)).
    pub eps_lb: f64,
    /// Point estimate ln((1 − δ − FN/n_pos)/(FP/n_neg)) (not a bound; +∞ when FP = 0).
    pub eps_point: f64,
}

/// Counts of the samples above every candidate threshold: the sufficient statistic of a
/// threshold search. Build it from sorted samples ([`ThresholdTable::from_sorted`]) or from
/// histograms on a fixed grid ([`ThresholdTable::from_histogram`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThresholdTable {
    /// Number of P-samples.
    pub n_p: u64,
    /// Number of Q-samples.
    pub n_q: u64,
    /// Candidate thresholds, fixed before looking at the samples.
    pub thresholds: Vec<f64>,
    /// P-samples with T > `thresholds[i]`.
    pub p_above: Vec<u64>,
    /// Q-samples with T > `thresholds[i]`.
    pub q_above: Vec<u64>,
}

fn check_sorted(name: &str, v: &[f64]) -> Result<()> {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return Err(Error::invalid(
            name,
            format!("NaN at index {i}"),
            "free of NaN",
        ));
    }
    if let Some(i) = v.windows(2).position(|w| w[0] > w[1]) {
        return Err(Error::invalid(
            name,
            format!("{} > {} at index {i}", v[i], v[i + 1]),
            "sorted ascending",
        ));
    }
    Ok(())
}

impl ThresholdTable {
    /// From two ascending-sorted sample vectors of the statistic and candidate thresholds
    /// (chosen without looking at these samples). O(m log n). Errors: empty or unsorted samples,
    /// NaN, no thresholds, NaN thresholds, more than 2⁵³ samples.
    pub fn from_sorted(p_sorted: &[f64], q_sorted: &[f64], thresholds: &[f64]) -> Result<Self> {
        check_sorted("p_sorted", p_sorted)?;
        check_sorted("q_sorted", q_sorted)?;
        if p_sorted.is_empty() {
            return Err(Error::invalid("p_sorted", "empty", "non-empty"));
        }
        if q_sorted.is_empty() {
            return Err(Error::invalid("q_sorted", "empty", "non-empty"));
        }
        if thresholds.is_empty() {
            return Err(Error::invalid("thresholds", "empty", "non-empty"));
        }
        if let Some(t) = thresholds.iter().find(|t| t.is_nan()) {
            return Err(Error::invalid("thresholds", t, "free of NaN"));
        }
        let above = |v: &[f64], t: f64| (v.len() - v.partition_point(|&x| x <= t)) as u64;
        Ok(ThresholdTable {
            n_p: p_sorted.len() as u64,
            n_q: q_sorted.len() as u64,
            thresholds: thresholds.to_vec(),
            p_above: thresholds.iter().map(|&t| above(p_sorted, t)).collect(),
            q_above: thresholds.iter().map(|&t| above(q_sorted, t)).collect(),
        })
    }

    /// From per-bin counts on a common grid of B bins ordered by increasing statistic, with the
    /// B + 1 bin edges (±∞ allowed for overflow bins). The candidates are the B − 1 interior
    /// cuts: cut j (1 ≤ j < B) has threshold `edges[j]` and counts "above" = bins j..B. O(B) by
    /// cumulative sums. Errors: length mismatch, B < 2, zero total count, NaN edges.
    pub fn from_histogram(p_counts: &[u64], q_counts: &[u64], edges: &[f64]) -> Result<Self> {
        let b = p_counts.len();
        if b < 2 {
            return Err(Error::invalid("p_counts.len()", b, ">= 2 bins"));
        }
        if q_counts.len() != b {
            return Err(Error::invalid(
                "q_counts.len()",
                q_counts.len(),
                &format!("equal to p_counts.len() = {b}"),
            ));
        }
        if edges.len() != b + 1 {
            return Err(Error::invalid(
                "edges.len()",
                edges.len(),
                &format!("number of bins + 1 = {}", b + 1),
            ));
        }
        if let Some(e) = edges.iter().find(|e| e.is_nan()) {
            return Err(Error::invalid("edges", e, "free of NaN"));
        }
        let total = |c: &[u64], name: &str| -> Result<u64> {
            let t = c.iter().try_fold(0u64, |s, &x| s.checked_add(x));
            match t {
                Some(t) if t > 0 && t <= MAX_COUNT => Ok(t),
                _ => Err(Error::invalid(name, "total count", "in [1, 2^53]")),
            }
        };
        let n_p = total(p_counts, "p_counts")?;
        let n_q = total(q_counts, "q_counts")?;
        let suffix = |c: &[u64]| {
            let mut out = vec![0u64; b - 1];
            let mut acc = 0u64;
            for j in (1..b).rev() {
                acc += c[j];
                out[j - 1] = acc;
            }
            out
        };
        Ok(ThresholdTable {
            n_p,
            n_q,
            thresholds: edges[1..b].to_vec(),
            p_above: suffix(p_counts),
            q_above: suffix(q_counts),
        })
    }

    /// Number of candidate thresholds m.
    pub fn len(&self) -> usize {
        self.thresholds.len()
    }

    /// True when there is no candidate.
    pub fn is_empty(&self) -> bool {
        self.thresholds.is_empty()
    }

    /// Validates the invariants (for tables built by hand or deserialised).
    pub(crate) fn validate(&self) -> Result<()> {
        let m = self.thresholds.len();
        if m == 0 {
            return Err(Error::invalid("thresholds", "empty", "non-empty"));
        }
        if self.p_above.len() != m || self.q_above.len() != m {
            return Err(Error::invalid(
                "p_above/q_above length",
                format!("{}/{}", self.p_above.len(), self.q_above.len()),
                &format!("equal to thresholds.len() = {m}"),
            ));
        }
        check_counts(0, self.n_p).map_err(|_| Error::invalid("n_p", self.n_p, "in [1, 2^53]"))?;
        check_counts(0, self.n_q).map_err(|_| Error::invalid("n_q", self.n_q, "in [1, 2^53]"))?;
        if let Some(&c) = self.p_above.iter().find(|&&c| c > self.n_p) {
            return Err(Error::invalid(
                "p_above",
                c,
                &format!("<= n_p = {}", self.n_p),
            ));
        }
        if let Some(&c) = self.q_above.iter().find(|&&c| c > self.n_q) {
            return Err(Error::invalid(
                "q_above",
                c,
                &format!("<= n_q = {}", self.n_q),
            ));
        }
        Ok(())
    }

    /// The counts of one statement: (false positives, n_neg, false negatives, n_pos).
    pub fn statement_counts(&self, i: usize, tail: Tail, dir: Direction) -> (u64, u64, u64, u64) {
        let (pa, qa) = (self.p_above[i], self.q_above[i]);
        let (p_in, q_in) = match tail {
            Tail::Above => (pa, qa),
            Tail::Below => (self.n_p - pa, self.n_q - qa),
        };
        match dir {
            Direction::PvsQ => (q_in, self.n_q, self.n_p - p_in, self.n_p),
            Direction::QvsP => (p_in, self.n_p, self.n_q - q_in, self.n_q),
        }
    }
}

/// Clopper–Pearson upper bounds, memoised on (k, n) (the same counts recur across thresholds).
pub(crate) struct CpCache {
    beta: f64,
    map: HashMap<(u64, u64), f64>,
}

impl CpCache {
    /// An empty cache of upper bounds at level `beta`.
    pub(crate) fn new(beta: f64) -> Self {
        CpCache {
            beta,
            map: HashMap::new(),
        }
    }

    /// The Clopper–Pearson upper bound for k successes in n trials ([`cp_upper`]), memoised.
    pub(crate) fn upper(&mut self, k: u64, n: u64) -> Result<f64> {
        if let Some(&v) = self.map.get(&(k, n)) {
            return Ok(v);
        }
        let v = cp_upper(k, n, self.beta)?;
        self.map.insert((k, n), v);
        Ok(v)
    }
}

/// Builds the record of statement (i, tail, dir) with per-bound level `beta_per_bound`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn region_record(
    table: &ThresholdTable,
    i: usize,
    tail: Tail,
    dir: Direction,
    delta: f64,
    cache: &mut CpCache,
    family_size: u64,
    confidence: f64,
) -> Result<RegionAudit> {
    let (fp, n_neg, fnc, n_pos) = table.statement_counts(i, tail, dir);
    let fpr_ub = cache.upper(fp, n_neg)?;
    let fnr_ub = cache.upper(fnc, n_pos)?;
    Ok(RegionAudit {
        threshold: table.thresholds[i],
        tail,
        direction: dir,
        n_pos,
        n_neg,
        false_positives: fp,
        false_negatives: fnc,
        fpr_ub,
        fnr_ub,
        beta_per_bound: cache.beta,
        family_size,
        confidence,
        delta,
        eps_lb: eps_raw(fpr_ub, fnr_ub, delta).max(0.0),
        eps_point: eps_raw(fp as f64 / n_neg as f64, fnc as f64 / n_pos as f64, delta),
    })
}

/// All four (tail, direction) statements of a threshold.
pub const STATEMENT_KINDS: [(Tail, Direction); 4] = [
    (Tail::Above, Direction::PvsQ),
    (Tail::Below, Direction::PvsQ),
    (Tail::Above, Direction::QvsP),
    (Tail::Below, Direction::QvsP),
];

/// Maximises `score(fpr_ub, fnr_ub)` over the statements (i, tail, dir) with dir in `dirs`,
/// exactly but lazily: `score` must be non-increasing in both arguments, so
/// score(max(FP/n_neg, cp_upper(0, n_neg)), max(FN/n_pos, cp_upper(0, n_pos))) bounds each
/// statement's exact score from above (cp_upper(k, n) ≥ max(k/n, cp_upper(0, n)) for β < ½);
/// statements are evaluated in decreasing order of that bound until it falls to the best exact
/// score found. Returns (i, tail, dir, exact score).
pub(crate) fn search_best(
    table: &ThresholdTable,
    dirs: &[Direction],
    cache: &mut CpCache,
    score: impl Fn(f64, f64) -> f64,
) -> Result<(usize, Tail, Direction, f64)> {
    let cp0_p = cache.upper(0, table.n_p)?;
    let cp0_q = cache.upper(0, table.n_q)?;
    let mut cands: Vec<(f64, usize, Tail, Direction)> = Vec::with_capacity(4 * table.len());
    for i in 0..table.len() {
        for &(tail, dir) in STATEMENT_KINDS.iter().filter(|(_, d)| dirs.contains(d)) {
            let (fp, n_neg, fnc, n_pos) = table.statement_counts(i, tail, dir);
            let (cp0_neg, cp0_pos) = match dir {
                Direction::PvsQ => (cp0_q, cp0_p),
                Direction::QvsP => (cp0_p, cp0_q),
            };
            let fpr = (fp as f64 / n_neg as f64).max(cp0_neg);
            let fnr = (fnc as f64 / n_pos as f64).max(cp0_pos);
            let bound = score(fpr, fnr);
            cands.push((
                if bound.is_nan() {
                    f64::NEG_INFINITY
                } else {
                    bound
                },
                i,
                tail,
                dir,
            ));
        }
    }
    cands.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut best: Option<(usize, Tail, Direction, f64)> = None;
    for &(bound, i, tail, dir) in &cands {
        if let Some(b) = best {
            if bound <= b.3 {
                break;
            }
        }
        let (fp, n_neg, fnc, n_pos) = table.statement_counts(i, tail, dir);
        let s = score(cache.upper(fp, n_neg)?, cache.upper(fnc, n_pos)?);
        let s = if s.is_nan() { f64::NEG_INFINITY } else { s };
        if best.is_none_or(|b| s > b.3) {
            best = Some((i, tail, dir, s));
        }
    }
    best.ok_or_else(|| Error::invalid("thresholds", "empty", "non-empty"))
}

/// Checks β and returns it.
pub(crate) fn check_audit_beta(beta: f64) -> Result<f64> {
    check_beta("beta", beta)?;
    if beta >= 0.5 {
        return Err(Error::invalid("beta", beta, "< 0.5 (confidence above 50%)"));
    }
    Ok(beta)
}

/// The audit of one region chosen in advance, in one direction: both Clopper–Pearson bounds at
/// level β/2 (family of 2), so that ε_lb ≤ ε with probability ≥ 1 − β.
///
/// `p_in`, `q_in`: the P- and Q-samples inside S (out of `n_p`, `n_q`). Errors: counts out of
/// range, δ not in [0, 1), β not in (0, ½).
#[allow(clippy::too_many_arguments)]
pub fn audit_region(
    threshold: f64,
    tail: Tail,
    direction: Direction,
    n_p: u64,
    p_in: u64,
    n_q: u64,
    q_in: u64,
    delta: f64,
    beta: f64,
) -> Result<RegionAudit> {
    check_delta(delta)?;
    check_audit_beta(beta)?;
    check_counts(p_in, n_p)?;
    check_counts(q_in, n_q)?;
    // Express the region as "above" counts of a one-threshold table.
    let (p_above, q_above) = match tail {
        Tail::Above => (p_in, q_in),
        Tail::Below => (n_p - p_in, n_q - q_in),
    };
    let table = ThresholdTable {
        n_p,
        n_q,
        thresholds: vec![threshold],
        p_above: vec![p_above],
        q_above: vec![q_above],
    };
    let mut cache = CpCache::new(beta / 2.0);
    region_record(&table, 0, tail, direction, delta, &mut cache, 2, 1.0 - beta)
}

/// The best region of a threshold search, with Bonferroni correction over the whole family:
/// every threshold of `table` in both tails and both directions, i.e. the 4m proportions
/// P(S), P(Sᶜ), Q(S), Q(Sᶜ), each bounded at level β/(4m). With probability ≥ 1 − β all hold,
/// so the maximal ε_lb returned is ≤ ε. The thresholds must not depend on the samples.
///
/// Errors: invalid table, δ not in [0, 1), β not in (0, ½).
pub fn best_region(table: &ThresholdTable, delta: f64, beta: f64) -> Result<RegionAudit> {
    Ok(best_region_indexed(table, delta, beta)?.1)
}

/// [`best_region`] and the index of the chosen threshold in `table`.
fn best_region_indexed(
    table: &ThresholdTable,
    delta: f64,
    beta: f64,
) -> Result<(usize, RegionAudit)> {
    table.validate()?;
    check_delta(delta)?;
    check_audit_beta(beta)?;
    let family = 4 * table.len() as u64;
    let mut cache = CpCache::new(beta / family as f64);
    let (i, tail, dir, _) = search_best(
        table,
        &[Direction::PvsQ, Direction::QvsP],
        &mut cache,
        |fpr, fnr| eps_raw(fpr, fnr, delta),
    )?;
    let record = region_record(table, i, tail, dir, delta, &mut cache, family, 1.0 - beta)?;
    Ok((i, record))
}

/// Checks that two tables share their thresholds (bit for bit).
fn check_same_thresholds(select: &ThresholdTable, evaluate: &ThresholdTable) -> Result<()> {
    if select.thresholds.len() != evaluate.thresholds.len()
        || select
            .thresholds
            .iter()
            .zip(&evaluate.thresholds)
            .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err(Error::invalid(
            "evaluate.thresholds",
            "different from select.thresholds",
            "the same thresholds as the selection split",
        ));
    }
    Ok(())
}

/// Held-out threshold selection: the region and direction are chosen on `select` (by the
/// Bonferroni-corrected ε_lb of [`best_region`] on that split, a choice criterion only), then
/// audited on the independent split `evaluate` with the full β (family of 2 bounds, β/2 each).
/// Both tables must have the same thresholds.
///
/// Errors: invalid tables, thresholds differ, δ not in [0, 1), β not in (0, ½).
pub fn held_out_region(
    select: &ThresholdTable,
    evaluate: &ThresholdTable,
    delta: f64,
    beta: f64,
) -> Result<RegionAudit> {
    held_out_record(select, evaluate, delta, beta, best_region_indexed)
}

/// The held-out audit of [`held_out_region`] and of the GDP route: the region (index, tail,
/// direction) that `choose` picks on `select` (from `select`, δ and β), audited on the
/// independent split `evaluate` with the full β (family of 2 bounds, β/2 each).
pub(crate) fn held_out_record(
    select: &ThresholdTable,
    evaluate: &ThresholdTable,
    delta: f64,
    beta: f64,
    choose: fn(&ThresholdTable, f64, f64) -> Result<(usize, RegionAudit)>,
) -> Result<RegionAudit> {
    evaluate.validate()?;
    check_same_thresholds(select, evaluate)?;
    let (i, chosen) = choose(select, delta, beta)?;
    let mut cache = CpCache::new(beta / 2.0);
    region_record(
        evaluate,
        i,
        chosen.tail,
        chosen.direction,
        delta,
        &mut cache,
        2,
        1.0 - beta,
    )
}

#[cfg(test)]
mod tests;
