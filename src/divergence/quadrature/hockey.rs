//! The quadrature route's hockey-stick divergence δ(ε) = ∫ (p1 − e^ε p2)_+ (+ atoms), over the
//! region where the log-likelihood ratio exceeds ε, split at its roots.

use super::*;

// ------------------------------------------------------------------------------------------
// Hockey-stick

/// Hockey-stick divergence δ(ε) = ∫ (p1 − e^ε p2)_+ (+ atoms (P1 − e^ε P2)_+) by quadrature of
/// p1·(1 − e^{ε − LLR}) over the region {LLR > ε}, whose ends are the analytic crossing points
/// (docs/formulas.md §7), certified to `digits`. d-dimensional Gaussians with σ1 ≠ σ2 and d > 1:
/// the semi-analytic χ² route of [`crate::divergence::profile_dd`] (docs/formulas.md §7.4).
pub fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32) -> Result<Certified> {
    crate::error::check_finite("eps", eps.f64())?;
    if let Pair::Model(m) = pair {
        return model::hockey_stick(m, eps, digits);
    }
    let unequal_dd = match pair {
        Pair::GaussianDd {
            sigma1, sigma2, d, ..
        } => *d > 1 && !same(sigma1, sigma2),
        Pair::Rgm {
            n1, n2, d, gamma, ..
        } => *d > 1 && !same(n1, n2) && gamma.f64() != 0.0,
        _ => false,
    };
    if unequal_dd {
        // χ² route of docs/formulas.md §7.4.
        return crate::divergence::profile_dd::hockey_stick_pair(pair, eps, digits);
    }
    if identical(pair) {
        // δ = (1 − e^ε)_+
        let p = bits_for_digits(digits) + 16;
        let e = eps.mp(p);
        let mut v = Float::with_val(p, e.exp_m1_ref());
        v = -v;
        if v < 0 {
            v = Float::new(p);
        }
        return Ok(Certified { value: v, digits });
    }
    let what = format!("quadrature hockey-stick divergence (eps = {eps}) of {pair}");
    certified(digits, &what, |ctx| hockey_at(ctx, pair, eps))
}

/// The windows [w0, w1] between consecutive roots of LLR − e (None = ±∞) on which LLR > e,
/// decided by a sample point inside each.
fn above(l: &[Float], e: &Float, p: u32) -> Vec<[Option<Float>; 2]> {
    let rs = roots(l, e, p);
    let mut ends: Vec<Option<Float>> = vec![None];
    for r in &rs {
        ends.push(Some(r.clone()));
    }
    ends.push(None);
    let mut out = Vec::new();
    for w in ends.windows(2) {
        // A point inside (w0, w1).
        let inside = match (&w[0], &w[1]) {
            (Some(x0), Some(x1)) => Float::with_val(p, x0 + x1) / 2u32,
            (Some(x0), None) => Float::with_val(p, x0 + 1u32),
            (None, Some(x1)) => Float::with_val(p, x1 - 1u32),
            (None, None) => Float::new(p),
        };
        let mut val = Float::with_val(p, &l[2] * &inside);
        val += &l[1];
        val *= &inside;
        val += &l[0];
        if val <= *e {
            continue;
        }
        out.push([w[0].clone(), w[1].clone()]);
    }
    out
}

/// ∫ over {LLR > e} ∩ [u, v] of p1·(1 − e^{e − LLR}) (None = infinite), split at the roots.
pub(super) fn hockey_region(
    ctx: &Ctx,
    q1: &Quadratic,
    llr_: &Llr,
    e: &Float,
    emag: f64,
    u: Option<&Float>,
    v: Option<&Float>,
) -> Result<Val> {
    let l = &llr_.c;
    let mut ranges: Vec<(Option<Float>, Option<Float>)> = Vec::new();
    let g = Factor::OneMinusExp {
        e: e.clone(),
        emag,
        l: l.to_vec(),
        mag: llr_.mag.clone(),
    };
    for w in above(l, e, ctx.prec) {
        // Intersect with [u, v].
        let lo = match (&w[0], u) {
            (Some(x), Some(u)) => Some(if x > u { x.clone() } else { u.clone() }),
            (Some(x), None) => Some(x.clone()),
            (None, u) => u.cloned(),
        };
        let hi = match (&w[1], v) {
            (Some(x), Some(v)) => Some(if x < v { x.clone() } else { v.clone() }),
            (Some(x), None) => Some(x.clone()),
            (None, v) => v.cloned(),
        };
        if let (Some(a), Some(b)) = (&lo, &hi) {
            if a >= b {
                continue;
            }
        }
        ranges.push((lo, hi));
    }
    integral_ranges(ctx, q1, &g, &ranges)
}

pub(super) fn hockey_at(ctx: &Ctx, pair: &Pair, eps: &Scalar) -> Result<Val> {
    let p = ctx.prec;
    let e = ctx.f(eps);
    // The region {LLR > ε} ∩ [u, v] of the pair with log-densities q1, q2.
    let region = |q1: &Quadratic, q2: &Quadratic, u: Option<&Float>, v: Option<&Float>| {
        hockey_region(ctx, q1, &llr(q1, q2, p), &e, e.to_f64().abs(), u, v)
    };
    match pair {
        Pair::Model(_) => Err(model::generic_only()),
        Pair::Gaussian { mu1, mu2, sigma } => {
            let (q1, q2) = gauss_q(ctx, mu1, mu2, sigma);
            region(&q1, &q2, None, None)
        }
        Pair::GaussianDd { .. } | Pair::Rgm { .. } => {
            let (s1, s2, dist, _) = dd_params(ctx, pair).unwrap();
            let q1 = Quadratic::log_normal(&dist, &s1, p);
            let q2 = Quadratic::log_normal(&Float::new(p), &s2, p);
            region(&q1, &q2, None, None)
        }
        Pair::Rectified { .. } => {
            let c = Clip::of(ctx, pair);
            let acc = region(&c.q1, &c.q2, Some(&c.a), Some(&c.b))?;
            c.add_atoms(ctx, acc, |l1, l2| atom_hockey(ctx, &e, l1, l2))
        }
        Pair::Truncated { .. } => {
            let c = Clip::of(ctx, pair);
            let (q1, q2, af, bf) = (&c.q1, &c.q2, &c.a, &c.b);
            let z1q = c.mass(ctx, q1)?;
            let lz1 = log_of(&z1q)?;
            let lz2 = log_of(&c.mass(ctx, q2)?)?;
            // f1 > e^ε f2  ⟺  LLR > ε' = ε + log Z1 − log Z2 (docs/formulas.md §7.2).
            let e2 = Float::with_val(p, &e + &lz1.v) - &lz2.v;
            let l = llr(q1, q2, p);
            let emag = e.to_f64().abs() + lz1.v.to_f64().abs() + lz2.v.to_f64().abs();
            let num = hockey_region(ctx, q1, &l, &e2, emag, Some(af), Some(bf))?;
            let z1 = val_of(&z1q);
            let v = Float::with_val(p, &num.v / &z1.v);
            let z1e = Float::with_val(EP, &z1.v);
            let mut err = (Float::with_val(EP, &num.e / &z1e)
                + Float::with_val(EP, v.abs_ref()) * Float::with_val(EP, &z1.e / &z1e))
                * 1.02f64;
            // Sensitivity to ε' (the region's boundary terms vanish): |∂δ/∂ε'| = e^ε Q_T(R)
            // ≤ P_T(R) ≤ 1; bound it by P_T(R) = ∫_R p1 / Z1 at low accuracy.
            let e_eps = Float::with_val(EP, &lz1.e + &lz2.e);
            if !v.is_zero() {
                let lo_ctx = Ctx {
                    prec: p,
                    digits: 6.0,
                };
                let pr = hockey_mass(&lo_ctx, q1, &l.c, &e2, af, bf)?;
                let pr = Float::with_val(EP, &pr / &z1e) * 1.01f64;
                err += pr * e_eps * 1.02f64;
            }
            Ok(Val { v, e: err })
        }
        Pair::StochasticSign { mu1, mu2, sigma } => {
            let [(lp1, lp2), (lm1, lm2)] = sign_logs(ctx, mu1, mu2, sigma);
            let a = atom_hockey(ctx, &e, &lp1, &lp2);
            let b = atom_hockey(ctx, &e, &lm1, &lm2);
            Ok(add(&a, &b, p))
        }
    }
}

/// ∫_{R ∩ [a, b]} p1 with R = {LLR > e} (an upper bound helper for the truncated family).
pub(super) fn hockey_mass(
    ctx: &Ctx,
    q1: &Quadratic,
    l: &[Float],
    e: &Float,
    a: &Float,
    b: &Float,
) -> Result<Float> {
    let p = ctx.prec;
    let mut total = Float::new(p);
    for w in above(l, e, p) {
        let lo = match &w[0] {
            Some(x) if x > a => x.clone(),
            _ => a.clone(),
        };
        let hi = match &w[1] {
            Some(x) if x < b => x.clone(),
            _ => b.clone(),
        };
        if lo >= hi {
            continue;
        }
        let q = integral(ctx, q1, &Factor::One, Some(&lo), Some(&hi), &[])?;
        let v = val_of(&q);
        total += v.v + Float::with_val(p, &v.e);
    }
    Ok(total)
}
