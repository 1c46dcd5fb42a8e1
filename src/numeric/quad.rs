//! Arbitrary-precision quadrature over `rug::Float` with an error estimate, in log space.
//!
//! Three rules share one refinement engine ([`integrate`]):
//!
//! * **tanh–sinh** (double-exponential) on a finite interval [a, b]: x = c + r·tanh(π/2·sinh t),
//!   trapezoidal in t with step h = 2^-k, levels nested (halving h reuses every node). Robust to
//!   endpoint behaviour, but for the smooth integrands of this crate it needs ≈ 10× more nodes
//!   than Gauss–Legendre (measured: 345 nodes for 40 digits of ∫_{−1}^{1} e^{−x²/2} against
//!   about 26). Nodes are formed as c ± r·u, so integrable endpoint singularities are not
//!   resolved to full precision (none of our integrands has one).
//! * **Gauss–Legendre** on a finite interval, orders n0, n0 + max(6, n0/4), then ×1.5 (not
//!   nested). This is the rule [`gaussian`] uses on every finite piece: our integrands are
//!   exp(quadratic)·(polynomial or 1 − e^{…}), entire functions, on pieces over which the log
//!   varies by a bounded number of nats, where each Gauss point adds about two digits.
//! * **truncated trapezoid on ℝ** ([`Rule::Line`]) for integrands analytic in a strip with a
//!   Gaussian envelope C·exp(−(x−m)²/(2s²)): x = m + s·t, |t| ≤ K, nested levels. For such
//!   integrands it converges like exp(−2π²s²/h²) (Trefethen & Weideman, SIAM Rev. 56 (2014),
//!   §5); the truncation error is bounded explicitly by the Gaussian tail
//!   ([`gaussian_tail_ln_bound`]).
//!
//! Abscissas and log-weights are cached per (rule, precision bucket of 64 bits, level or order) in
//! a global table, so node generation (sinh/cosh/tanh or Newton on the Legendre recurrence at full
//! precision) is paid once per process and integrand evaluations dominate.
//!
//! Integrands are given in log space ([`LogIntegrand`]): each node returns log of a positive
//! envelope plus an optional linear factor of constant sign on the interval, so magnitudes such as
//! e^4950 × 10^-2000 are harmless and each node costs one `exp`. Nodes whose contribution is
//! provably below the target (from a cheap f64 upper estimate, or from an upper bound on the
//! integrand and the weights) are skipped without any exponential; the count of skipped nodes
//! times the skip threshold is added to the error bound.
//!
//! **Error estimate.** After level k the absolute error is bounded by `SAFETY·|I_k − I_{k−1}|`
//! (in the convergent regime the error of I_k is far smaller than that difference, which measures
//! the error of I_{k−1}), plus the skipped-node bound, plus a rounding floor
//! Σ|term|·(8 + 4·|exponent| + condition of the log-integrand and factor)·2^-prec + N·2^-prec·Σ|term|.
//! Convergence is accepted only from `min_level` (≥ 1) on and when the differences decrease. If
//! the target is not met by `max_level`, [`Error::Precision`] is returned, never a guess.
//!
//! [`gaussian`] builds on this: the integral of exp(quadratic)·factor over a finite,
//! half-infinite or infinite interval, with breakpoints on the decay scale (docs/formulas.md §9.8: where
//! the envelope has dropped by 24, 96, 384, … nats below its maximum on the range — near an
//! endpoint far from the peak these are multiples of the decay length s²/|endpoint − peak|), pieces
//! integrated largest-first and each only relative to the running total, and the range cut where
//! the Gaussian tail bound of the remainder is below 10^-(digits+3) of the result (checked after
//! integrating; the bound is added to the error).

use crate::error::{Error, Result};
use rug::{Assign, Float};
use std::f64::consts::LN_2;

/// ln 10.
const LN_10: f64 = std::f64::consts::LN_10;

/// Process-wide count of exponentials taken by [`integrate`] (a cost diagnostic).
static EXPS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Number of integrand exponentials taken so far in this process (all threads): the cost unit of
/// the quadratures.
#[cfg(test)]
pub(crate) fn exp_count() -> usize {
    EXPS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Safety factor applied to the difference of two successive levels.
pub(crate) const SAFETY: f64 = 4.0;

/// Accuracy request for [`integrate`].
#[derive(Clone, Debug)]
pub(crate) struct QuadOptions {
    /// Working precision in bits (arithmetic on nodes and terms).
    pub prec: u32,
    /// Target: absolute error ≤ 10^-digits · max(|I|, e^log_ref).
    pub digits: f64,
    /// Optional natural log of a reference magnitude: the error target is relative to
    /// max(|I|, e^log_ref). Used for pieces of a split integral, which need only be accurate
    /// relative to the whole.
    pub log_ref: Option<f64>,
    /// Optional upper bound on log|f| over the interval (lets the rule drop the outer nodes whose
    /// weight is negligible without evaluating f).
    pub log_sup: Option<f64>,
    /// First level at which convergence may be accepted.
    pub min_level: u32,
    /// Last level tried before giving up with [`Error::Precision`].
    pub max_level: u32,
}

impl QuadOptions {
    /// Options for `digits` correct digits at `prec` bits, with the default level range.
    pub(crate) fn new(prec: u32, digits: f64) -> Self {
        QuadOptions {
            prec,
            digits,
            log_ref: None,
            log_sup: None,
            min_level: 1,
            max_level: 12,
        }
    }
}

/// The value of an integrand at one node, filled in by [`LogIntegrand::eval`].
#[derive(Debug)]
pub(crate) struct Point {
    /// log of the (positive) envelope. May be −∞ (the node contributes 0).
    pub log_env: Float,
    /// Linear factor multiplying exp(`log_env`); used only if `has_factor`. Must not change sign
    /// on the interval being integrated (split the interval at its roots).
    pub factor: Float,
    /// Whether `factor` is set.
    pub has_factor: bool,
    /// Magnitude of the terms whose sum formed `log_env` (the absolute rounding error of
    /// `log_env` is at most `mag`·2^-prec·4). Leave 0 when `log_env` is computed by a few
    /// well-conditioned operations.
    pub mag: f64,
    /// Relative rounding error of `factor`, in units of 2^-prec (e.g. Σ|c_i x^i| / |p(x)| for a
    /// polynomial).
    pub fmag: f64,
}

impl Point {
    fn new(prec: u32) -> Self {
        Point {
            log_env: Float::new(prec),
            factor: Float::new(prec),
            has_factor: false,
            mag: 0.0,
            fmag: 0.0,
        }
    }
}

/// An integrand in log space.
pub(crate) trait LogIntegrand {
    /// Evaluates the integrand at `x` into `pt` (set `log_env`, and `factor`/`has_factor` if any).
    fn eval(&mut self, x: &Float, pt: &mut Point);
    /// A cheap double-precision upper estimate of log|f(x)| (within a few nats), used only to skip
    /// nodes that cannot matter. `None` (the default) evaluates every node.
    fn estimate(&self, _x: f64) -> Option<f64> {
        None
    }
}

/// Adapter so that any closure `FnMut(&Float, &mut Point)` is a [`LogIntegrand`].
pub(crate) struct FnIntegrand<F>(pub F);

impl<F: FnMut(&Float, &mut Point)> LogIntegrand for FnIntegrand<F> {
    fn eval(&mut self, x: &Float, pt: &mut Point) {
        (self.0)(x, pt)
    }
}

/// The result of a quadrature, in log space.
#[derive(Clone, Debug)]
pub(crate) struct QuadResult {
    /// log|I| (−∞ if I = 0 to within the error bound).
    pub log_abs: Float,
    /// Whether I < 0 (the factor was negative).
    pub negative: bool,
    /// Natural log of the bound on the absolute error |I − Î| (−∞ if exact).
    pub log_abs_err: f64,
    /// Number of integrand evaluations (nodes whose `eval` was called).
    pub evaluations: usize,
    /// Number of exponentials taken (nodes that were not skipped).
    pub exps: usize,
    /// Level at which the rule stopped.
    pub level: u32,
}

impl QuadResult {
    /// log10 of the relative error bound (may be +∞ if the value is 0).
    pub(crate) fn log10_rel_err(&self) -> f64 {
        (self.log_abs_err - self.log_abs.to_f64()) / LN_10
    }

    /// An exactly-zero integral.
    pub(crate) fn zero(prec: u32) -> Self {
        QuadResult {
            log_abs: Float::with_val(prec, f64::NEG_INFINITY),
            negative: false,
            log_abs_err: f64::NEG_INFINITY,
            evaluations: 0,
            exps: 0,
            level: 0,
        }
    }

    /// The signed value e^log_abs (±), at the precision of `log_abs`.
    pub(crate) fn value(&self) -> Float {
        let v = Float::with_val(self.log_abs.prec(), self.log_abs.exp_ref());
        if self.negative {
            -v
        } else {
            v
        }
    }
}

/// ln|x| of a Float as an f64, without overflow or underflow (−∞ for 0).
pub(crate) fn ln_abs_f64(x: &Float) -> f64 {
    if x.is_zero() {
        return f64::NEG_INFINITY;
    }
    if !x.is_finite() {
        return if x.is_nan() { f64::NAN } else { f64::INFINITY };
    }
    let (m, e) = x.to_f64_exp();
    m.abs().ln() + f64::from(e) * LN_2
}

/// log(eᵃ + eᵇ) in f64.
pub(crate) fn ln_add(a: f64, b: f64) -> f64 {
    if a == f64::NEG_INFINITY {
        return b;
    }
    if b == f64::NEG_INFINITY {
        return a;
    }
    let (hi, lo) = if a > b { (a, b) } else { (b, a) };
    hi + (lo - hi).exp().ln_1p()
}

/// Which nested rule [`integrate`] uses.
#[derive(Clone, Debug)]
pub(crate) enum Rule {
    /// tanh–sinh on the finite interval [a, b].
    TanhSinh {
        /// Lower end.
        a: Float,
        /// Upper end.
        b: Float,
    },
    /// Gauss–Legendre on [a, b] with n0, ⌈1.5·n0⌉, … points (not nested; for integrands analytic
    /// on a neighbourhood of [a, b], where it needs several times fewer nodes than tanh–sinh).
    GaussLegendre {
        /// Lower end.
        a: Float,
        /// Upper end.
        b: Float,
        /// Number of points of the first rule.
        n0: u32,
    },
    /// Trapezoid on [m − K s, m + K s] (ℝ truncated; the caller bounds the truncation error).
    Line {
        /// Centre.
        m: Float,
        /// Scale (step unit).
        s: Float,
        /// Half-width in units of s.
        k: u32,
    },
}

/// Integrates `f` with the nested `rule` to the accuracy in `opts` (see the module docs for the
/// error estimate). Errors with [`Error::Precision`] if the target is not reached by
/// `opts.max_level`.
pub(crate) fn integrate<I: LogIntegrand>(
    f: &mut I,
    rule: &Rule,
    opts: &QuadOptions,
) -> Result<QuadResult> {
    let p = bucket(opts.prec);
    let mut q = Quad::new(rule, opts)?;
    for level in 0..=opts.max_level {
        if let Some(limit) = super::deadline::expired() {
            return Err(q.time_limit(limit));
        }
        let lv = match rule {
            Rule::TanhSinh { .. } => ts_level(p, level),
            Rule::Line { k, .. } => line_level(p, *k, level),
            Rule::GaussLegendre { n0, .. } => gl_level(p, gl_order(*n0, level)),
        };
        if !q.nested {
            q.sum.assign(0u32);
            q.floor_sum = 0.0;
        }
        let thr = q.threshold();
        let n_skip = q.add_level(f, &lv, thr);
        if n_skip > 0 {
            q.skipped_ln = ln_add(q.skipped_ln, thr + (n_skip as f64).ln());
        }
        if let Some(res) = q.close_level(level) {
            return Ok(res);
        }
    }
    Err(q.not_reached())
}

/// Centre c and half-width r of `rule` (nodes are c ± r·u), at `prec` bits.
fn centre_radius(rule: &Rule, prec: u32) -> Result<(Float, Float)> {
    match rule {
        Rule::TanhSinh { a, b } | Rule::GaussLegendre { a, b, .. } => {
            if a.partial_cmp(b) != Some(std::cmp::Ordering::Less) {
                return Err(Error::invalid(
                    "a",
                    a.to_f64(),
                    &format!("< b = {} for quadrature", b.to_f64()),
                ));
            }
            let c = Float::with_val(prec, a + b) / 2u32;
            let r = Float::with_val(prec, b - a) / 2u32;
            Ok((c, r))
        }
        Rule::Line { m, s, .. } => Ok((Float::with_val(prec, m), Float::with_val(prec, s))),
    }
}

/// One run of [`integrate`]: the rule's centre and half-width with the fixed tolerances, the
/// scratch values of a node, and the sums and error terms carried from level to level.
struct Quad<'o> {
    opts: &'o QuadOptions,
    prec: u32,
    /// precision of the running sum
    wp: u32,
    c: Float,
    r: Float,
    c64: f64,
    r64: f64,
    ln_r: f64,
    /// ln 10^-digits
    tol_ln: f64,
    /// a skipped node is < e^thr, with thr = ref + tol_ln − skip_margin
    skip_margin: f64,
    /// ln 2^-prec
    ulp_ln: f64,
    /// whether levels reuse the previous levels' nodes (all rules but Gauss–Legendre)
    nested: bool,
    pt: Point,
    x: Float,
    ru: Float,
    term: Float,
    /// Σ of the terms, in shifted units
    sum: Float,
    /// the shift (log of the first term's size), as Float and f64
    shift: Option<(Float, f64)>,
    prev_s: Option<Float>,
    prev_diff_ln: f64,
    /// Σ rel_err(term)·|term| in shifted units (f64)
    floor_sum: f64,
    /// ln Σ bounds of skipped nodes (absolute, unshifted)
    skipped_ln: f64,
    evaluations: usize,
    exps: usize,
    negative: bool,
    best_ln_err: f64,
    cur_ln_i: f64,
}

impl<'o> Quad<'o> {
    fn new(rule: &Rule, opts: &'o QuadOptions) -> Result<Self> {
        let prec = opts.prec;
        let wp = prec + 16;
        let (c, r) = centre_radius(rule, prec)?;
        let nested = !matches!(rule, Rule::GaussLegendre { .. });
        let c64 = c.to_f64();
        let r64 = r.to_f64();
        let ln_r = ln_abs_f64(&r);
        Ok(Quad {
            opts,
            prec,
            wp,
            c,
            r,
            c64,
            r64,
            ln_r,
            tol_ln: -opts.digits * LN_10,
            skip_margin: 9.0 * LN_10,
            ulp_ln: -f64::from(prec) * LN_2,
            nested,
            pt: Point::new(prec),
            x: Float::new(prec),
            ru: Float::new(prec),
            term: Float::new(prec),
            sum: Float::new(wp),
            shift: None,
            prev_s: None,
            prev_diff_ln: f64::INFINITY,
            floor_sum: 0.0,
            skipped_ln: f64::NEG_INFINITY,
            evaluations: 0,
            exps: 0,
            negative: false,
            best_ln_err: f64::INFINITY,
            cur_ln_i: f64::NEG_INFINITY,
        })
    }

    /// The error when the time limit of `limit` seconds is reached, with the digits reached.
    fn time_limit(&self, limit: impl std::fmt::Display) -> Error {
        let reached = if self.best_ln_err.is_finite() && self.cur_ln_i.is_finite() {
            ((self.cur_ln_i - self.best_ln_err) / LN_10)
                .max(0.0)
                .floor() as u32
        } else {
            0
        };
        Error::Precision {
            narrowest: None,
            requested: self.opts.digits.ceil() as u32,
            certified: reached,
            what: format!("quadrature (time limit of {limit} s reached)"),
        }
    }

    /// The skip threshold of the coming level (absolute, log): the reference magnitude plus the
    /// tolerance minus the skip margin.
    fn threshold(&self) -> f64 {
        let ref_ln = match self.opts.log_ref {
            Some(l) => l.max(self.cur_ln_i),
            None => self.cur_ln_i,
        };
        if ref_ln.is_finite() {
            ref_ln + self.tol_ln - self.skip_margin
        } else {
            f64::NEG_INFINITY
        }
    }

    /// Evaluates and sums the nodes of one level; returns the number of nodes skipped.
    fn add_level<I: LogIntegrand>(&mut self, f: &mut I, lv: &Level, thr: f64) -> usize {
        let mut n_skip = 0usize;
        for (i, (u, u64v)) in lv.u.iter().zip(lv.u64.iter()).enumerate() {
            let lw64 = lv.logw64[i];
            if let Some(sup) = self.opts.log_sup {
                if lw64 + self.ln_r + sup < thr {
                    // Weights only decrease with t: every remaining node is negligible.
                    let rest = lv.u.len() - i;
                    n_skip += if lv.centre && i == 0 {
                        2 * rest - 1
                    } else {
                        2 * rest
                    };
                    break;
                }
            }
            self.ru.assign(&self.r * u);
            let sides: &[bool] = if lv.centre && i == 0 {
                &[true]
            } else {
                &[true, false]
            };
            for &plus in sides {
                if self.add_node(f, lv, i, *u64v, plus, thr) {
                    n_skip += 1;
                }
            }
        }
        n_skip
    }

    /// Adds node `i` of `lv` on the side `plus` (c + r·u, else c − r·u); returns whether it was
    /// skipped as negligible.
    fn add_node<I: LogIntegrand>(
        &mut self,
        f: &mut I,
        lv: &Level,
        i: usize,
        u64v: f64,
        plus: bool,
        thr: f64,
    ) -> bool {
        let (lw64, ln_r) = (lv.logw64[i], self.ln_r);
        if let Some(est) = f.estimate(if plus {
            self.c64 + self.r64 * u64v
        } else {
            self.c64 - self.r64 * u64v
        }) {
            if est + lw64 + ln_r < thr - 10.0 {
                return true;
            }
        }
        if plus {
            self.x.assign(&self.c + &self.ru);
        } else {
            self.x.assign(&self.c - &self.ru);
        }
        let pt = &mut self.pt;
        pt.has_factor = false;
        pt.mag = 0.0;
        pt.fmag = 0.0;
        f.eval(&self.x, pt);
        self.evaluations += 1;
        if pt.log_env.is_infinite() && pt.log_env.is_sign_negative() {
            return false;
        }
        if pt.has_factor && pt.factor.is_zero() {
            return false;
        }
        let env64 = pt.log_env.to_f64();
        let fac_ln = if pt.has_factor {
            ln_abs_f64(&pt.factor)
        } else {
            0.0
        };
        let te = env64 + lw64 + ln_r + fac_ln;
        if te < thr {
            return true;
        }
        if self.shift.is_none() {
            let s64 = env64 + lw64;
            self.shift = Some((Float::with_val(self.prec, s64), s64));
            if pt.has_factor {
                self.negative = pt.factor.is_sign_negative();
            }
        }
        let (sh, sh64) = self.shift.as_ref().unwrap();
        let term = &mut self.term;
        term.assign(&pt.log_env + &lv.logw[i]);
        *term -= sh;
        term.exp_mut();
        self.exps += 1;
        if pt.has_factor {
            *term *= &pt.factor;
        }
        self.sum += &*term;
        let arg = env64.abs() + lw64.abs() + sh64.abs() + pt.mag;
        let rel = 8.0 + 4.0 * arg + pt.fmag;
        self.floor_sum += rel * (te - ln_r - sh64).exp();
        false
    }

    /// Closes `level`: its estimate S_k and error bound; the result if the target is met.
    fn close_level(&mut self, level: u32) -> Option<QuadResult> {
        let (sh, sh64) = match &self.shift {
            Some((s, s64)) => (s.clone(), *s64),
            None => (Float::new(self.prec), 0.0),
        };
        // S_k = h_k Σ, in shifted units.
        let mut s_k = Float::with_val(self.wp, &self.sum);
        let hlev = if self.nested { level } else { 0 };
        s_k >>= hlev;
        let s_ln = ln_abs_f64(&s_k);
        let scale_ln = self.ln_r + sh64; // absolute = e^{scale_ln} · shifted
        self.cur_ln_i = if s_ln.is_finite() {
            s_ln + scale_ln
        } else {
            f64::NEG_INFINITY
        };
        let diff_ln = match &self.prev_s {
            Some(ps) => {
                let d = Float::with_val(self.wp, &s_k - ps);
                ln_abs_f64(&d) + scale_ln
            }
            None => f64::INFINITY,
        };
        let err_ln = self.error_ln(&s_k, diff_ln, hlev, scale_ln);
        self.best_ln_err = self.best_ln_err.min(err_ln);
        let target_ln = self.tol_ln
            + match self.opts.log_ref {
                Some(l) => l.max(self.cur_ln_i),
                None => self.cur_ln_i,
            };
        let decreasing = diff_ln < self.prev_diff_ln || diff_ln == f64::NEG_INFINITY;
        if level >= self.opts.min_level.max(1) && decreasing && err_ln <= target_ln {
            return Some(self.result(&s_k, &sh, err_ln, level));
        }
        self.prev_diff_ln = diff_ln;
        self.prev_s = Some(s_k);
        None
    }

    /// The error bound of a level (log, absolute): SAFETY × the difference of the last two
    /// levels, plus the skipped nodes' bound, plus the rounding floor.
    fn error_ln(&self, s_k: &Float, diff_ln: f64, hlev: u32, scale_ln: f64) -> f64 {
        // Rounding floor: the term bound plus the summation error N·2^-prec·Σ|term|.
        let n_terms = (self.exps as f64).max(1.0);
        let floor_ln =
            self.ulp_ln + (self.floor_sum + n_terms * s_k.to_f64().abs()).ln() + scale_ln
                - (f64::from(hlev) * LN_2);
        let floor_ln = if floor_ln.is_nan() {
            f64::NEG_INFINITY
        } else {
            floor_ln
        };
        let mut err_ln = ln_add(diff_ln + SAFETY.ln(), self.skipped_ln);
        err_ln = ln_add(err_ln, floor_ln);
        err_ln
    }

    /// The accepted result: log|I| = ln|S_k| + shift + ln r.
    fn result(&self, s_k: &Float, sh: &Float, err_ln: f64, level: u32) -> QuadResult {
        EXPS.fetch_add(self.exps, std::sync::atomic::Ordering::Relaxed);
        let prec = self.prec;
        let log_abs = if s_k.is_zero() {
            Float::with_val(prec, f64::NEG_INFINITY)
        } else {
            let mut l = Float::with_val(prec, s_k.abs_ref());
            l.ln_mut();
            l += sh;
            l += Float::with_val(prec, self.r.ln_ref());
            l
        };
        QuadResult {
            log_abs,
            negative: self.negative,
            log_abs_err: err_ln,
            evaluations: self.evaluations,
            exps: self.exps,
            level,
        }
    }

    /// The error when `max_level` is passed without reaching the target.
    fn not_reached(&self) -> Error {
        let achieved = if self.cur_ln_i.is_finite() {
            ((self.cur_ln_i - self.best_ln_err) / LN_10).max(0.0)
        } else {
            0.0
        };
        Error::Precision {
            narrowest: None,
            requested: self.opts.digits.ceil() as u32,
            certified: achieved.floor() as u32,
            what: format!(
                "quadrature after {} levels ({} evaluations)",
                self.opts.max_level, self.evaluations
            ),
        }
    }
}

/// Convenience: tanh–sinh of `f` on [a, b].
pub(crate) fn tanh_sinh<I: LogIntegrand>(
    f: &mut I,
    a: &Float,
    b: &Float,
    opts: &QuadOptions,
) -> Result<QuadResult> {
    integrate(
        f,
        &Rule::TanhSinh {
            a: a.clone(),
            b: b.clone(),
        },
        opts,
    )
}

/// The rule used on each piece by [`split`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PieceRule {
    /// tanh–sinh (robust to endpoint singularities).
    TanhSinh,
    /// Gauss–Legendre (for integrands analytic on a neighbourhood of each piece; much cheaper).
    GaussLegendre,
}

/// First Gauss–Legendre order for `digits` digits on a piece over which the log-integrand varies
/// by `drop` nats. Calibrated in mpmath: an n-point rule integrates e^{−(x−μ)²/2} on [−1.3, 0.7]
/// to about 2.1·n − 5 digits; e^{−λx} on [0, 1] needs about 0.35·λ more points.
pub(crate) fn gl_start(digits: f64, drop: f64) -> u32 {
    ((0.5 * digits + 0.35 * drop.clamp(0.0, 1e4)).ceil() as u32 + 3).max(6)
}

/// Sum of integrals over consecutive intervals [p_0, p_1], [p_1, p_2], … (a user-supplied,
/// increasing list of breakpoints), each integrated with `rule` relative to the running total.
/// All pieces must have the same sign. Pieces are integrated largest-first as judged by
/// `f.estimate` at their midpoints (if available), so small pieces need only be accurate relative
/// to the whole.
pub(crate) fn split<I: LogIntegrand>(
    f: &mut I,
    points: &[Float],
    opts: &QuadOptions,
    rule: PieceRule,
) -> Result<QuadResult> {
    if points.len() < 2 {
        return Err(Error::invalid(
            "breakpoints",
            points.len(),
            "at least two points",
        ));
    }
    let mut order: Vec<(usize, f64, f64)> = (0..points.len() - 1)
        .map(|i| {
            let (a, b) = (points[i].to_f64(), points[i + 1].to_f64());
            let w = (b - a).abs().ln();
            let ests: Vec<f64> = [a, (a + b) / 2.0, b]
                .iter()
                .filter_map(|&x| f.estimate(x))
                .collect();
            let est = ests.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let low = ests.iter().copied().fold(f64::INFINITY, f64::min);
            let drop = if est.is_finite() && low.is_finite() {
                est - low
            } else {
                0.0
            };
            let size = if est.is_finite() {
                est + w
            } else {
                f64::INFINITY
            };
            (i, size, drop)
        })
        .collect();
    order.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    let npieces = order.len() as f64;
    let mut parts: Vec<QuadResult> = Vec::new();
    let mut total_ln = opts.log_ref.unwrap_or(f64::NEG_INFINITY);
    for (i, est, drop) in order {
        if points[i] >= points[i + 1] {
            continue;
        }
        let mut o = opts.clone();
        o.digits = opts.digits + npieces.log10();
        if total_ln.is_finite() {
            o.log_ref = Some(total_ln);
        }
        let q = match rule {
            PieceRule::TanhSinh => tanh_sinh(f, &points[i], &points[i + 1], &o)?,
            PieceRule::GaussLegendre => {
                // Digits this piece needs relative to itself (fewer if it is small).
                let need = if total_ln.is_finite() && est.is_finite() {
                    (o.digits - (total_ln - est) / LN_10).clamp(2.0, o.digits)
                } else {
                    o.digits
                };
                let r = Rule::GaussLegendre {
                    a: points[i].clone(),
                    b: points[i + 1].clone(),
                    n0: gl_start(need, drop),
                };
                integrate(f, &r, &o)?
            }
        };
        total_ln = ln_add(total_ln, q.log_abs.to_f64());
        parts.push(q);
    }
    Ok(sum_same_sign(&parts, opts.prec))
}

/// [`split`] with tanh–sinh on every piece.
pub(crate) fn tanh_sinh_split<I: LogIntegrand>(
    f: &mut I,
    points: &[Float],
    opts: &QuadOptions,
) -> Result<QuadResult> {
    split(f, points, opts, PieceRule::TanhSinh)
}

/// Sums integrals of the same sign (log-sum-exp of values, sum of error bounds).
pub(crate) fn sum_same_sign(parts: &[QuadResult], prec: u32) -> QuadResult {
    let mut acc = QuadResult::zero(prec);
    for q in parts {
        acc.log_abs = crate::numeric::mp::log_add_exp(&acc.log_abs, &q.log_abs);
        acc.log_abs_err = ln_add(acc.log_abs_err, q.log_abs_err);
        acc.evaluations += q.evaluations;
        acc.exps += q.exps;
        acc.level = acc.level.max(q.level);
        if q.log_abs.is_finite() {
            // A piece whose nodes were all negligible is an exact 0 with no sign information.
            acc.negative = q.negative;
        }
    }
    acc
}

/// ln of a bound on ∫_z^∞ C·exp(−(x−m)²/(2s²))·(k0 + k1·|x| + k2·x²) dx for z ≥ m, with
/// ln C = `ln_c` (and symmetrically for the left tail, passing |z − m| and |z|): by concavity,
/// exp(−(x−m)²/2s²) ≤ exp(−(z−m)²/2s² − β(x−z)) with β = (z−m)/s², and
/// ∫_0^∞ e^{−βy}(A + By + Cy²) dy = A/β + B/β² + 2C/β³.
/// `dist` = z − m > 0, `absz` = |z|.
pub(crate) fn gaussian_tail_ln_bound(ln_c: f64, dist: f64, s: f64, absz: f64, k: [f64; 3]) -> f64 {
    if dist <= 0.0 {
        return f64::INFINITY;
    }
    let beta = dist / (s * s);
    let a = k[0] + k[1] * absz + k[2] * absz * absz;
    let b = k[1] + 2.0 * k[2] * absz;
    let c = k[2];
    let poly = a / beta + b / (beta * beta) + 2.0 * c / (beta * beta * beta);
    ln_c - dist * dist / (2.0 * s * s) + poly.ln()
}

/// Sorts quadrature breakpoints and drops repeats; an error if any is NaN (parameters outside
/// the range a route can integrate).
pub(crate) fn sort_breakpoints(pts: &mut Vec<Float>) -> Result<()> {
    if pts.iter().any(|x| x.is_nan()) {
        return Err(Error::Undefined(
            "quadrature breakpoints are not numbers: the parameters are outside the range \
             this route can integrate"
                .into(),
        ));
    }
    pts.sort_by(|a, b| a.total_cmp(b));
    pts.dedup();
    Ok(())
}

/// Σ c_k x^k into `acc` by Horner's rule (x given also as |x| in `xf`), with the matching
/// magnitude bound Σ mag_k |x|^k returned.
fn horner(acc: &mut Float, c: &[Float], mag: &[f64], x: &Float, xf: f64) -> f64 {
    let n = c.len();
    acc.assign(&c[n - 1]);
    let mut m = mag[n - 1];
    for k in (0..n - 1).rev() {
        *acc *= x;
        *acc += &c[k];
        m = m * xf + mag[k];
    }
    m
}

mod gaussian;
pub(crate) use gaussian::{gaussian, Factor, Quadratic};

mod nodes;
pub(crate) use nodes::gl_order;
use nodes::{bucket, gl_level, line_level, ts_level, Level};

#[cfg(test)]
mod tests;
