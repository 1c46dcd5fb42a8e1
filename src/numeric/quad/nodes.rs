//! Node tables of the nested rules (tanh–sinh, truncated trapezoid on ℝ, Gauss–Legendre),
//! cached per rule, precision bucket and level.

use rug::float::Constant;
use rug::{Assign, Float};
use std::collections::HashMap;
use std::f64::consts::LN_2;
use std::sync::{Arc, Mutex, OnceLock};

// ------------------------------------------------------------------------------------------
// Node tables

/// One level of a nested rule: nodes at t > 0 (mirrored to −t) and, at level 0, t = 0.
pub(super) struct Level {
    /// Abscissas u (in [-1, 1] for tanh–sinh, in units of s for the line rule), t > 0 only.
    pub(super) u: Vec<Float>,
    /// f64 copies of u.
    pub(super) u64: Vec<f64>,
    /// log weights (without the step h), as Float and f64.
    pub(super) logw: Vec<Float>,
    /// f64 copies of `logw`.
    pub(super) logw64: Vec<f64>,
    /// Whether the level includes the centre node t = 0 (level 0), stored first in the vectors
    /// but not mirrored.
    pub(super) centre: bool,
}

impl Level {
    /// A level with no nodes yet (the centre node, if any, still to be pushed).
    fn empty(centre: bool) -> Self {
        Level {
            u: Vec::new(),
            u64: Vec::new(),
            logw: Vec::new(),
            logw64: Vec::new(),
            centre,
        }
    }
}

/// The node tables, keyed by (rule: 0 tanh–sinh, 1 line, 2 Gauss–Legendre; precision bucket;
/// level or order; line half-width).
pub(super) type Cache = Mutex<HashMap<(u8, u32, u32, u32), Arc<Level>>>;

/// The process-wide node cache.
pub(super) fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Precision bucket: round up to a multiple of 64 bits so that tables are shared.
pub(super) fn bucket(prec: u32) -> u32 {
    prec.div_ceil(64) * 64
}

/// f64 log-weight of tanh–sinh at t: ln(π/2·cosh t) − 2 ln cosh(π/2·sinh t).
pub(super) fn ts_logw64(t: f64) -> f64 {
    let v = std::f64::consts::FRAC_PI_2 * t.sinh();
    // ln cosh v = v + ln(1 + e^{-2v}) − ln 2
    let lncosh = v.abs() + (-2.0 * v.abs()).exp().ln_1p() - LN_2;
    (std::f64::consts::FRAC_PI_2 * t.cosh()).ln() - 2.0 * lncosh
}

/// Largest t kept by tanh–sinh at bucket precision `p`: log w(t) ≥ −(p·ln2 + 200).
pub(super) fn ts_tmax(p: u32) -> f64 {
    let floor = -(f64::from(p) * LN_2 + 200.0);
    let mut t = 1.0;
    while ts_logw64(t) > floor {
        t += 1.0 / 64.0;
    }
    t
}

/// The tanh–sinh nodes new at `level` (step 2^-level; level 0 includes the centre), at bucket
/// precision `p`, cached.
pub(super) fn ts_level(p: u32, level: u32) -> Arc<Level> {
    let key = (0u8, p, level, 0u32);
    if let Some(l) = cache().lock().unwrap().get(&key) {
        return Arc::clone(l);
    }
    let tmax = ts_tmax(p);
    let wp = p + 32;
    let half_pi = Float::with_val(wp, Constant::Pi) / 2u32;
    let mut ts: Vec<Float> = Vec::new();
    let centre = level == 0;
    if centre {
        ts.push(Float::new(wp));
    }
    // t = j / 2^level for j odd (level ≥ 1) or j ≥ 1 (level 0).
    let denom = 1u64 << level;
    let mut j: u64 = 1;
    loop {
        let tf = j as f64 / denom as f64;
        if tf > tmax {
            break;
        }
        ts.push(Float::with_val(wp, j) / Float::with_val(wp, denom));
        j += if level == 0 { 1 } else { 2 };
    }
    let mut lv = Level {
        u: Vec::with_capacity(ts.len()),
        u64: Vec::with_capacity(ts.len()),
        logw: Vec::with_capacity(ts.len()),
        logw64: Vec::with_capacity(ts.len()),
        centre,
    };
    for t in &ts {
        let v = Float::with_val(wp, t.sinh_ref()) * &half_pi;
        let u = Float::with_val(p, v.tanh_ref());
        let ch = Float::with_val(wp, v.cosh_ref());
        let lw = Float::with_val(wp, t.cosh_ref()) * &half_pi;
        let lw = lw.ln() - ch.ln() * 2u32;
        lv.u64.push(u.to_f64());
        lv.u.push(u);
        lv.logw64.push(lw.to_f64());
        lv.logw.push(Float::with_val(p, lw));
    }
    let arc = Arc::new(lv);
    cache().lock().unwrap().insert(key, Arc::clone(&arc));
    arc
}

/// The truncated-trapezoid nodes new at `level` on |t| ≤ `kmax` (step 2^-level; level 0
/// includes the centre), at bucket precision `p`, cached.
pub(super) fn line_level(p: u32, kmax: u32, level: u32) -> Arc<Level> {
    let key = (1u8, p, level, kmax);
    if let Some(l) = cache().lock().unwrap().get(&key) {
        return Arc::clone(l);
    }
    let centre = level == 0;
    let denom = 1u64 << level;
    let mut lv = Level::empty(centre);
    if centre {
        lv.u.push(Float::new(p));
        lv.u64.push(0.0);
        lv.logw.push(Float::new(p));
        lv.logw64.push(0.0);
    }
    let mut j: u64 = 1;
    loop {
        let tf = j as f64 / denom as f64;
        if tf > f64::from(kmax) {
            break;
        }
        lv.u.push(Float::with_val(p, j) / Float::with_val(p, denom));
        lv.u64.push(tf);
        lv.logw.push(Float::new(p));
        lv.logw64.push(0.0);
        j += if level == 0 { 1 } else { 2 };
    }
    let arc = Arc::new(lv);
    cache().lock().unwrap().insert(key, Arc::clone(&arc));
    arc
}

/// Order of the Gauss–Legendre rule at refinement `level`: n0·1.5^level, rounded up.
pub(crate) fn gl_order(n0: u32, level: u32) -> u32 {
    let n0 = n0.max(2);
    if level == 0 {
        return n0;
    }
    // Level 1 adds a few points only: for the analytic integrands here each point adds about
    // two digits, so n0 + 6 is already far more accurate than n0 and their difference measures
    // the error of n0. Later levels (n0 was not enough) grow geometrically.
    let mut n = n0 + (n0 / 4).max(6);
    for _ in 1..level {
        n = (n * 3).div_ceil(2);
    }
    n
}

/// Gauss–Legendre nodes (x > 0 half, plus 0 for odd n) and log-weights at bucket precision `p`:
/// Newton on the three-term recurrence, started from Tricomi's approximation and refined in
/// double precision first, then at full precision until the step is below 2^-(p+16).
pub(super) fn gl_level(p: u32, n: u32) -> Arc<Level> {
    let key = (2u8, p, n, 0u32);
    if let Some(l) = cache().lock().unwrap().get(&key) {
        return Arc::clone(l);
    }
    let wp = p + 32;
    let nf = f64::from(n);
    // P_n(x) and P_n'(x) at precision wp.
    let legendre = |x: &Float| -> (Float, Float) {
        let mut p0 = Float::with_val(wp, 1u32);
        let mut p1 = x.clone();
        let mut tmp = Float::new(wp);
        for k in 2..=n {
            // p2 = ((2k−1) x p1 − (k−1) p0)/k
            tmp.assign(x * &p1);
            tmp *= 2 * k - 1;
            p0 *= k - 1;
            tmp -= &p0;
            tmp /= k;
            std::mem::swap(&mut p0, &mut p1);
            std::mem::swap(&mut p1, &mut tmp);
        }
        // P_n' = n (x P_n − P_{n−1}) / (x² − 1)
        let mut d = Float::with_val(wp, x * &p1);
        d -= &p0;
        d *= n;
        let den = Float::with_val(wp, x.square_ref()) - 1u32;
        d /= &den;
        (p1, d)
    };
    let legendre64 = |x: f64| -> (f64, f64) {
        let (mut p0, mut p1) = (1.0, x);
        for k in 2..=n {
            let kf = f64::from(k);
            let p2 = ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf;
            p0 = p1;
            p1 = p2;
        }
        (p1, nf * (x * p1 - p0) / (x * x - 1.0))
    };
    let half = n / 2;
    let centre = n % 2 == 1;
    let mut lv = Level::empty(centre);
    let mut roots: Vec<Float> = Vec::new();
    if centre {
        roots.push(Float::new(wp));
    }
    // Positive roots, in increasing order: i = half..1 of cos(π(i − 1/4)/(n + 1/2)).
    for i in (1..=half).rev() {
        let mut x = (std::f64::consts::PI * (f64::from(i) - 0.25) / (nf + 0.5)).cos();
        for _ in 0..100 {
            let (pv, dv) = legendre64(x);
            let dx = pv / dv;
            x -= dx;
            if dx.abs() < 1e-15 {
                break;
            }
        }
        let mut xf = Float::with_val(wp, x);
        for _ in 0..60 {
            let (pv, dv) = legendre(&xf);
            let dx = Float::with_val(wp, &pv / &dv);
            xf -= &dx;
            if dx.is_zero() || dx.get_exp().unwrap_or(i32::MIN) < -(wp as i32) + 8 {
                break;
            }
        }
        roots.push(xf);
    }
    for x in roots {
        let (_, dv) = legendre(&x);
        // w = 2 / ((1 − x²) P_n'(x)²)
        let one_m = Float::with_val(wp, 1u32) - Float::with_val(wp, x.square_ref());
        let mut lw = Float::with_val(wp, dv.square_ref()) * one_m;
        lw = Float::with_val(wp, 2u32) / lw;
        lw.ln_mut();
        lv.u64.push(x.to_f64());
        lv.u.push(Float::with_val(p, &x));
        lv.logw64.push(lw.to_f64());
        lv.logw.push(Float::with_val(p, lw));
    }
    let arc = Arc::new(lv);
    cache().lock().unwrap().insert(key, Arc::clone(&arc));
    arc
}
