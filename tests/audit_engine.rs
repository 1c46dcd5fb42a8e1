//! Soundness and sharpness of the audit engine **where it runs**: every audit here goes through
//! `run_audit` itself — the seeded chunk streams, the fused samplers, the histogram grid, the
//! threshold tables built from it, the region selection (held-out with the projected pilot
//! choice, or the Bonferroni search) and the Clopper–Pearson statistics.
//!
//! The mechanism is the Gaussian mechanism with sensitivity 1 and σ = 1 (μ = 1), audited at
//! δ = 0.05, where the audit has power (the optimal region has a false-positive rate of a few
//! per cent, so 20,000 samples per side resolve it). Its exact ε(0.05) = 1.5688777812338255 is
//! hard-coded from an independent computation (mpmath at dps 50, root of
//! Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) = δ), not from the crate.
//!
//! Four checks, each with a false-failure probability ≤ 1e-6 for a correct engine:
//!
//! 1. **Coverage, both selections.** [`RUNS`] = 1000 audits with distinct seeds, confidence 0.95.
//!    Each exceeds the exact ε with probability ≤ β = 0.05, independently, so the count of
//!    exceedances is dominated by Bin(1000, 0.05) and must be ≤ c* = 86, the smallest c with
//!    P(Bin(1000, 0.05) > c) ≤ 1e-6 (mpmath, exact sums: 6.46e-7; for c = 85 it is 1.19e-6).
//! 2. **Sharpness of the held-out route (a derived band, not a guess).** Given the pilot draws,
//!    the region (threshold, tail, direction) is fixed, and the audit's ε_lb is a known function
//!    of two independent binomial counts whose success probabilities are exact Gaussian
//!    probabilities of that region: FP ~ Bin(n_neg, π_fp), FN ~ Bin(n_pos, π_fn), and
//!    ε_lb = max(0, ln(1 − δ − U(FN)) − ln U(FP)) with U the Clopper–Pearson upper bound at
//!    β/2 (family of 2). The test computes each run's conditional mean m_i and variance v_i by
//!    summing over both binomial laws (pmf from `statrs`, probabilities from `statrs`' normal
//!    cdf — not from the crate), so X_i = ε_lb,i − m_i are independent with mean 0 given the
//!    pilots. The sums run over ±11-standard-deviation windows whose outside mass is computed and
//!    must be ≤ 1e-10 (statrs' pmf sums to 1 within ~1e-12); conditioned on every count falling
//!    inside (failure ≤ 2·1000·1e-10, taken out of the budget), the X_i are bounded by b, the largest |ε_lb − m_i| inside the windows. Bernstein's inequality
//!    gives
//!    P(|Σ X_i| ≥ t) ≤ 2 exp(−t² / (2(V + b t/3))), V = Σ v_i; t is solved for 1e-6. Hence the
//!    mean ε_lb / exact must lie in the band (Σ m_i ± t) / (1000 · exact), printed by the test.
//!    An engine that inflates ε_lb (by a constant or a factor), selects on the main draws
//!    instead of the pilot, or uses the wrong Clopper–Pearson level leaves that band.
//! 3. **Exactness of the Bonferroni route.** The Bonferroni search is a deterministic function
//!    of the histograms the engine returns; a reference implementation written here from the
//!    definition (every threshold, both tails, both directions, each rate bounded at
//!    β/(4m), ε = max(0, ln((1 − δ − fnr_ub)/fpr_ub)), exhaustive, no pruning) must reproduce
//!    every run's ε_lb to 1e-12. A dropped or wrong correction, an inflated result, or a pruning
//!    bug in the lazy search breaks the equality.
//! 4. **False VIOLATIONs are rare.** A VIOLATION is decided on the strict lower bound
//!    (confidence 1 − 1e-6, same region and counts). Over each set of 1000 audits of this correct
//!    mechanism the number of strict bounds above the exact ε is dominated by Bin(1000, 1e-6), so
//!    at most one is allowed: P(Bin(1000, 1e-6) ≥ 2) ≤ C(1000, 2)·1e-12 < 5e-7. The strict bound
//!    must also never exceed the 95 % one.
//! 5. **The histograms are draws from the right law.** The main histograms of all runs are
//!    pooled per side and compared with the exact cdf at every grid edge with the
//!    Dvoretzky–Kiefer–Wolfowitz inequality (Massart's constant, valid for any distribution,
//!    hence for binned data): sup |F_N − F| ≤ √(ln(2/α)/(2N)), α = 1e-6 / 4 per histogram
//!    (4 pooled histograms). A sampler with the wrong scale or mean, or a grid whose edges are
//!    shifted against the bins, fails it.

use dpaudit::audit::engine::{run_audit, AuditConfig, AuditResult, Selection};
use dpaudit::audit::mechanisms::{GaussianMechanism, Statistic};
use dpaudit::audit::stats::{cp_upper, Direction, Tail};
use statrs::distribution::{Binomial, ContinuousCDF, Discrete, Normal};
use std::collections::HashMap;

/// Exact ε(0.05) of the Gaussian mechanism with Δ/σ = 1 (mpmath, dps 50:
/// 1.568877781233825497511947…).
const EXACT: f64 = 1.568_877_781_233_825_5;
const DELTA: f64 = 0.05;
const CONFIDENCE: f64 = 0.95;
const BETA: f64 = 1.0 - CONFIDENCE;
/// Audits per selection.
const RUNS: u64 = 1000;
/// c* for Bin(1000, 0.05) at 1e-6 (mpmath; see the module docs).
const C_STAR: u64 = 86;
const N: u64 = 20_000;
const BINS: usize = 256;
/// The false-failure budget of each assertion.
const FAIL: f64 = 1e-6;
/// Largest binomial mass allowed outside a summation window.
const OUTSIDE: f64 = 1e-10;

fn mech() -> GaussianMechanism {
    GaussianMechanism::new(1.0, 1.0).unwrap()
}

fn config(seed: u64, selection: Selection, statistic: Statistic) -> AuditConfig {
    AuditConfig {
        samples_per_side: N,
        delta: DELTA,
        confidence: CONFIDENCE,
        seed,
        statistic,
        selection,
        bins: BINS,
        threads: None,
        progress: dpaudit::audit::engine::Observer::none(),
    }
}

/// The statistic's law on each side, derived here from the mechanism's definition: P is the
/// output law on x (mean 0), Q on x′ (mean Δ = 1), σ = 1. White box: the log-likelihood ratio
/// ln p(y)/q(y) = (Δ² − 2Δy)/(2σ²) = ½ − y, so N(½, 1) under P and N(−½, 1) under Q. Black box:
/// the output y itself, N(0, 1) and N(1, 1).
fn laws(stat: Statistic) -> (Normal, Normal) {
    match stat {
        Statistic::White => (
            Normal::new(0.5, 1.0).unwrap(),
            Normal::new(-0.5, 1.0).unwrap(),
        ),
        Statistic::Black => (
            Normal::new(0.0, 1.0).unwrap(),
            Normal::new(1.0, 1.0).unwrap(),
        ),
    }
}

/// P(T > t) under `law`.
fn above(law: &Normal, t: f64) -> f64 {
    law.sf(t)
}

/// Clopper–Pearson upper bounds at level `beta`, memoised (the crate's `cp_upper` is pinned to
/// mpmath values in `audit::stats`' unit tests; it is the ingredient, not what is tested here).
struct Cp {
    beta: f64,
    memo: HashMap<(u64, u64), f64>,
}

impl Cp {
    fn new(beta: f64) -> Self {
        Cp {
            beta,
            memo: HashMap::new(),
        }
    }
    fn upper(&mut self, k: u64, n: u64) -> f64 {
        let beta = self.beta;
        *self
            .memo
            .entry((k, n))
            .or_insert_with(|| cp_upper(k, n, beta).unwrap())
    }
}

/// ε_lb of one statement from its counts, from the definition (Kairouz et al. 2015, Thm 2.1).
fn eps_of(cp: &mut Cp, fp: u64, n_neg: u64, fnc: u64, n_pos: u64) -> f64 {
    let fpr = cp.upper(fp, n_neg);
    let fnr = cp.upper(fnc, n_pos);
    let num = 1.0 - DELTA - fnr;
    if num <= 0.0 {
        0.0
    } else {
        (num.ln() - fpr.ln()).max(0.0)
    }
}

/// The binomial pmf on a window of ±11 standard deviations; the mass outside it is computed
/// (1 − Σ pmf) and must be ≤ [`OUTSIDE`].
fn pmf_window(n: u64, p: f64) -> Vec<(u64, f64)> {
    let b = Binomial::new(p, n).unwrap();
    let m = n as f64 * p;
    let sd = (m * (1.0 - p)).sqrt().max(1.0);
    let lo = (m - 11.0 * sd - 2.0).floor().max(0.0) as u64;
    let hi = ((m + 11.0 * sd + 2.0).ceil() as u64).min(n);
    (lo..=hi).map(|k| (k, b.pmf(k))).collect()
}

/// Conditional mean and variance of a held-out run's ε_lb given its region (over the counts'
/// summation windows), and the largest |ε_lb − mean| inside those windows.
fn conditional_moments(r: &AuditResult, stat: Statistic, cp: &mut Cp) -> (f64, f64, f64) {
    let (lp, lq) = laws(stat);
    let reg = &r.region;
    let (p_s, q_s) = match reg.tail {
        Tail::Above => (above(&lp, reg.threshold), above(&lq, reg.threshold)),
        Tail::Below => (
            1.0 - above(&lp, reg.threshold),
            1.0 - above(&lq, reg.threshold),
        ),
    };
    // FP: negatives inside S; FN: positives outside S.
    let (pi_fp, pi_fn) = match reg.direction {
        Direction::PvsQ => (q_s, 1.0 - p_s),
        Direction::QvsP => (p_s, 1.0 - q_s),
    };
    let wf = pmf_window(reg.n_neg, pi_fp);
    let wn = pmf_window(reg.n_pos, pi_fn);
    // ε_lb = max(0, a(FN) − c(FP)) with a = ln(1 − δ − U(FN)) (−∞ when not positive) and
    // c = ln U(FP): tabulate both once, then sum over the product law.
    let a: Vec<f64> = wn
        .iter()
        .map(|&(k, _)| {
            let num = 1.0 - DELTA - cp.upper(k, reg.n_pos);
            if num > 0.0 {
                num.ln()
            } else {
                f64::NEG_INFINITY
            }
        })
        .collect();
    let c: Vec<f64> = wf
        .iter()
        .map(|&(k, _)| cp.upper(k, reg.n_neg).ln())
        .collect();
    let (mut m1, mut m2, mut mass) = (0.0, 0.0, 0.0);
    let (mut e_lo, mut e_hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (&(_, pn), &ak) in wn.iter().zip(&a) {
        let (mut s1, mut s2, mut sm) = (0.0, 0.0, 0.0);
        for (&(_, pf), &cj) in wf.iter().zip(&c) {
            let e = (ak - cj).max(0.0);
            e_lo = e_lo.min(e);
            e_hi = e_hi.max(e);
            s1 += pf * e;
            s2 += pf * e * e;
            sm += pf;
        }
        m1 += pn * s1;
        m2 += pn * s2;
        mass += pn * sm;
    }
    let sf: f64 = wf.iter().map(|w| w.1).sum();
    let sn: f64 = wn.iter().map(|w| w.1).sum();
    assert!(
        1.0 - sf <= OUTSIDE && 1.0 - sn <= OUTSIDE,
        "binomial windows miss {:.2e}, {:.2e}",
        1.0 - sf,
        1.0 - sn
    );
    let (m1, m2) = (m1 / mass, m2 / mass);
    (m1, (m2 - m1 * m1).max(0.0), (m1 - e_lo).max(e_hi - m1))
}

/// Pooled histograms per side (slot counts).
struct Pool {
    p: Vec<u64>,
    q: Vec<u64>,
}

impl Pool {
    fn new() -> Self {
        Pool {
            p: vec![0; BINS + 2],
            q: vec![0; BINS + 2],
        }
    }
    /// DKW test of both pooled histograms against the statistic's exact laws (α = 1e-6 / 4 each:
    /// four pooled histograms in this file).
    fn assert_follows(&self, stat: Statistic, edges: &[f64], what: &str) {
        let (lp, lq) = laws(stat);
        for (name, counts, law) in [("P", &self.p, &lp), ("Q", &self.q, &lq)] {
            let (gap, bound) = dkw(counts, edges, law, FAIL / 4.0);
            eprintln!("{what} {name} histogram: DKW gap {gap:.2e} (bound {bound:.2e})");
            assert!(
                gap <= bound,
                "{name}-side histogram: DKW gap {gap} > {bound}"
            );
        }
    }

    fn add(&mut self, r: &AuditResult) {
        for (a, b) in self.p.iter_mut().zip(&r.histograms.p) {
            *a += b;
        }
        for (a, b) in self.q.iter_mut().zip(&r.histograms.q) {
            *a += b;
        }
    }
}

/// The interior grid edges lo, lo + w, …, hi of the engine's grid, re-derived from the range
/// the engine reports and the bin count.
fn edges(r: &AuditResult) -> Vec<f64> {
    let (lo, hi) = r.grid;
    let w = (hi - lo) / BINS as f64;
    (0..=BINS)
        .map(|k| if k == BINS { hi } else { lo + k as f64 * w })
        .collect()
}

/// DKW: the largest gap between the pooled empirical cdf and the exact cdf at the grid edges,
/// and the 1 − α bound on it.
fn dkw(counts: &[u64], edges: &[f64], law: &Normal, alpha: f64) -> (f64, f64) {
    let n: u64 = counts.iter().sum();
    let mut below = 0u64;
    let mut gap = 0.0f64;
    // Slot 0 is (−∞, e_0); slot k is [e_{k−1}, e_k) for k = 1..=bins; the last is [hi, ∞).
    for (k, e) in edges.iter().enumerate() {
        below += counts[k];
        let f_emp = below as f64 / n as f64;
        gap = gap.max((f_emp - law.cdf(*e)).abs());
    }
    (gap, ((2.0 / alpha).ln() / (2.0 * n as f64)).sqrt())
}

/// The Bonferroni search from its definition, on the engine's histograms.
fn reference_bonferroni(r: &AuditResult, cp: &mut Cp) -> f64 {
    let (hp, hq) = (&r.histograms.p, &r.histograms.q);
    let (n_p, n_q) = (hp.iter().sum::<u64>(), hq.iter().sum::<u64>());
    assert_eq!((n_p, n_q), (N, N));
    let mut best = 0.0f64;
    let (mut p_below, mut q_below) = (0u64, 0u64);
    // Threshold k (edge e_k) splits the slots 0..=k (below) from k+1.. (above).
    for k in 0..=BINS {
        p_below += hp[k];
        q_below += hq[k];
        let (p_above, q_above) = (n_p - p_below, n_q - q_below);
        for (p_in, q_in) in [(p_above, q_above), (p_below, q_below)] {
            // P vs Q: FP = Q inside, FN = P outside; Q vs P: FP = P inside, FN = Q outside.
            best = best.max(eps_of(cp, q_in, n_q, n_p - p_in, n_p));
            best = best.max(eps_of(cp, p_in, n_p, n_q - q_in, n_q));
        }
    }
    best
}

#[test]
fn held_out_audits_cover_and_sit_in_the_derived_band() {
    let stat = Statistic::White;
    let mut cp = Cp::new(BETA / 2.0);
    let (mut exceed, mut sum_eps, mut sum_m, mut var, mut b) = (0u64, 0.0, 0.0, 0.0, 0.0f64);
    let mut worst = 0.0f64;
    let mut strict_over = 0u64;
    let mut pool = Pool::new();
    let mut edge = Vec::new();
    for seed in 1..=RUNS {
        let cfg = config(seed, Selection::HeldOut { pilot_samples: N }, stat);
        let r = run_audit(&mech(), &cfg).unwrap();
        assert_eq!(r.region.family_size, 2);
        assert!((r.claimed_eps.unwrap() - EXACT).abs() < 1e-12);
        assert!(r.eps_lb_strict <= r.eps_lb);
        strict_over += u64::from(r.eps_lb_strict > EXACT);
        let (m, v, dev) = conditional_moments(&r, stat, &mut cp);
        exceed += u64::from(r.eps_lb > EXACT);
        sum_eps += r.eps_lb;
        sum_m += m;
        var += v;
        b = b.max(dev);
        worst = worst.max((r.eps_lb - m).abs());
        pool.add(&r);
        edge = edges(&r);
    }
    // Conditioned on every count lying in its window (probability ≥ 1 − 2·RUNS·OUTSIDE), the
    // centred ε_lb are bounded by b; the window budget is taken out of FAIL.
    let l = (2.0 / (FAIL - 2.0 * RUNS as f64 * OUTSIDE)).ln();
    let t = b * l / 3.0 + ((b * l / 3.0).powi(2) + 2.0 * var * l).sqrt();
    let n = RUNS as f64;
    let (mean, lo, hi) = (
        sum_eps / n / EXACT,
        (sum_m - t) / n / EXACT,
        (sum_m + t) / n / EXACT,
    );
    eprintln!(
        "held-out: {exceed} of {RUNS} audits above exact (allowed <= {C_STAR}); mean eps_lb/exact \
         = {mean:.5}, derived band [{lo:.5}, {hi:.5}] (expected {:.5}, Bernstein t = {t:.2}, \
         V = {var:.3}, b = {b:.3}, largest |eps_lb - m| seen {worst:.3})",
        sum_m / n / EXACT
    );
    assert!(exceed <= C_STAR, "{exceed} exceedances > {C_STAR}");
    eprintln!("held-out: strict (1 - 1e-6) bounds above exact: {strict_over} of {RUNS}");
    assert!(
        strict_over <= 1,
        "{strict_over} false VIOLATIONs in {RUNS} audits"
    );
    assert!(
        (sum_eps - sum_m).abs() <= t,
        "mean eps_lb/exact {mean:.5} outside the derived band [{lo:.5}, {hi:.5}]"
    );
    pool.assert_follows(stat, &edge, "held-out");
}

#[test]
fn bonferroni_audits_cover_and_match_the_reference_search() {
    let stat = Statistic::Black;
    let family = 4 * (BINS as u64 + 1);
    let mut cp = Cp::new(BETA / family as f64);
    let (mut exceed, mut sum_eps) = (0u64, 0.0);
    let mut strict_over = 0u64;
    let mut pool = Pool::new();
    let mut edge = Vec::new();
    for seed in 1..=RUNS {
        let cfg = config(seed, Selection::Bonferroni, stat);
        let r = run_audit(&mech(), &cfg).unwrap();
        assert_eq!(r.region.family_size, family);
        assert!(r.eps_lb_strict <= r.eps_lb);
        strict_over += u64::from(r.eps_lb_strict > EXACT);
        let want = reference_bonferroni(&r, &mut cp);
        assert!(
            (r.eps_lb - want).abs() <= 1e-12 * want.max(1.0),
            "seed {seed}: engine eps_lb {} != reference {want}",
            r.eps_lb
        );
        exceed += u64::from(r.eps_lb > EXACT);
        sum_eps += r.eps_lb;
        pool.add(&r);
        edge = edges(&r);
    }
    eprintln!(
        "bonferroni: {exceed} of {RUNS} audits above exact (allowed <= {C_STAR}); mean \
         eps_lb/exact = {:.5}; every eps_lb equals the reference search",
        sum_eps / RUNS as f64 / EXACT
    );
    assert!(exceed <= C_STAR, "{exceed} exceedances > {C_STAR}");
    eprintln!("bonferroni: strict (1 - 1e-6) bounds above exact: {strict_over} of {RUNS}");
    assert!(
        strict_over <= 1,
        "{strict_over} false VIOLATIONs in {RUNS} audits"
    );
    pool.assert_follows(stat, &edge, "bonferroni");
}
