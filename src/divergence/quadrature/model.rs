//! The generic quadrature route: Rényi, KL, hockey-stick and Fisher information of any
//! [`crate::model`] family, from the model's log-densities alone.
//!
//! The real line is cut at the model's breakpoints (and, for KL and the hockey-stick divergence,
//! at the level points of the log-likelihood ratio), so that every piece has an analytic
//! integrand of constant sign. Finite pieces are integrated by tanh–sinh; a half-infinite piece
//! [x0, ∞) is mapped to [0, 1) by x = x0 + s·u/(1 − u) with s the model's tail scale (the
//! Jacobian s/(1 − u)² joins the log-integrand), and (−∞, x0] symmetrically. Pieces are summed
//! with their absolute error bounds and certified by the same deficit-driven ladder as the
//! Gaussian-family integrals of the parent module.

use crate::error::Result;
use crate::model::logquad::{add, certified, certified_guard, val_of, zero, Ctx, Val, EP};
use crate::model::{LineLocation, LinePair, Location, Pair, Which};
use crate::numeric::mp::Certified;
use crate::numeric::quad::{self, FnIntegrand, Point, QuadOptions, QuadResult, Rule};
use crate::scalar::Scalar;
use rug::Float;

/// One piece of the line: finite ends are `Some`.
type Piece = (Option<Float>, Option<Float>);

/// The pieces between consecutive `cuts` (sorted, deduplicated), from −∞ to +∞.
fn pieces(mut cuts: Vec<Float>) -> Vec<Piece> {
    cuts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    cuts.dedup();
    if cuts.is_empty() {
        cuts.push(Float::new(64));
    }
    let mut out = vec![(None, Some(cuts[0].clone()))];
    for w in cuts.windows(2) {
        out.push((Some(w[0].clone()), Some(w[1].clone())));
    }
    out.push((cuts.last().cloned(), None));
    out
}

/// A point strictly inside a piece (for the sign of the integrand's factor on it).
fn inside(piece: &Piece, scale: f64, p: u32) -> Float {
    match piece {
        (Some(a), Some(b)) => Float::with_val(p, a + b) / 2u32,
        (Some(a), None) => Float::with_val(p, a + scale),
        (None, Some(b)) => Float::with_val(p, b - scale),
        (None, None) => Float::new(p),
    }
}

/// ∫ over the piece of exp(L(x))·g(x), where `f(x)` returns (L(x), g(x) or None, |terms| of L),
/// as a value with its absolute error. A finite piece over which L falls by more than 24 nats is
/// cut at distances 24/k, 96/k, 384/k, … from its larger end (k the mean slope of L), so that
/// tanh–sinh never has to resolve a spike; the sub-pieces are integrated largest first, each
/// only relative to the running total.
fn integrate_piece<F>(ctx: &Ctx, piece: &Piece, scale: f64, mut f: F) -> Result<Val>
where
    F: FnMut(&Float) -> (Float, Option<Float>, f64),
{
    let p = ctx.prec;
    if let (Some(a), Some(b)) = piece {
        let (la, lb) = (f(a).0.to_f64(), f(b).0.to_f64());
        let width = Float::with_val(p, b - a);
        let drop = (la - lb).abs();
        if la.is_finite() && lb.is_finite() && drop > 24.0 {
            let (hi, dir) = if la >= lb { (a, 1i32) } else { (b, -1i32) };
            let k = drop / width.to_f64();
            let mut cuts = vec![hi.clone()];
            let mut d = 24.0 / k;
            while d < width.to_f64() {
                cuts.push(Float::with_val(p, hi + Float::with_val(p, d) * dir));
                d *= 4.0;
            }
            cuts.push(if dir == 1 { b.clone() } else { a.clone() });
            let mut total = Val::exact(Float::new(p));
            let mut total_ln = f64::NEG_INFINITY;
            for w in cuts.windows(2) {
                let (u, v) = if dir == 1 {
                    (w[0].clone(), w[1].clone())
                } else {
                    (w[1].clone(), w[0].clone())
                };
                let mut o = ctx.opts();
                if total_ln.is_finite() {
                    o.log_ref = Some(total_ln);
                    o.digits += 1.0;
                }
                let r = tanh_sinh(&mut f, &u, &v, &o)?;
                total_ln = quad::ln_add(total_ln, r.log_abs.to_f64());
                total = add(&total, &val_of(&r), p);
            }
            return Ok(total);
        }
        return Ok(val_of(&tanh_sinh(&mut f, a, b, &ctx.opts())?));
    }
    // x = x0 + dir·s·u/(1 − u), u ∈ [0, 1).
    let (x0, dir) = match piece {
        (Some(a), None) => (a.clone(), 1i32),
        (None, Some(b)) => (b.clone(), -1i32),
        _ => unreachable!("pieces() never yields (−∞, ∞) or a finite piece here"),
    };
    let s = Float::with_val(p, scale);
    let ln_s = Float::with_val(p, s.ln_ref());
    let mut integrand = FnIntegrand(|u: &Float, pt: &mut Point| {
        let om = Float::with_val(p, 1u32 - u);
        if om <= 0 {
            pt.log_env = Float::with_val(p, f64::NEG_INFINITY);
            return;
        }
        let t = Float::with_val(p, u / &om) * &s;
        let x = Float::with_val(p, &x0 + t * dir);
        let ln_jac = Float::with_val(p, &ln_s - Float::with_val(p, om.ln_ref()) * 2u32);
        fill(&mut f, &x, pt, Some(ln_jac));
    });
    let rule = Rule::TanhSinh {
        a: Float::new(p),
        b: Float::with_val(p, 1u32),
    };
    Ok(val_of(&quad::integrate(
        &mut integrand,
        &rule,
        &ctx.opts(),
    )?))
}

/// Fills one node: log-envelope (plus the log-Jacobian, if any), factor and rounding magnitude.
fn fill<F>(f: &mut F, x: &Float, pt: &mut Point, ln_jac: Option<Float>)
where
    F: FnMut(&Float) -> (Float, Option<Float>, f64),
{
    let (mut l, g, mag) = f(x);
    if let Some(j) = ln_jac {
        l += j;
    }
    pt.log_env = l;
    pt.mag = mag;
    if let Some(g) = g {
        pt.factor = g;
        pt.has_factor = true;
        pt.fmag = 4.0;
    }
}

/// tanh–sinh on the finite [a, b].
fn tanh_sinh<F>(f: &mut F, a: &Float, b: &Float, o: &QuadOptions) -> Result<QuadResult>
where
    F: FnMut(&Float) -> (Float, Option<Float>, f64),
{
    let mut integrand = FnIntegrand(|x: &Float, pt: &mut Point| fill(f, x, pt, None));
    let rule = Rule::TanhSinh {
        a: a.clone(),
        b: b.clone(),
    };
    quad::integrate(&mut integrand, &rule, o)
}

fn mag(xs: &[&Float]) -> f64 {
    xs.iter().map(|x| x.to_f64().abs()).sum()
}

/// D_α(P1 ‖ P2) = log(∫ p1^α p2^{1−α})/(α − 1).
pub(super) fn renyi(
    m: &Pair,
    model: &dyn LinePair,
    alpha: &Scalar,
    digits: u32,
) -> Result<Certified> {
    if m.model().identical() {
        return Ok(zero(digits));
    }
    let what = format!("quadrature Rényi divergence (alpha = {alpha}) of {m}");
    let guard = (-(alpha.f64() - 1.0).log10()).max(0.0);
    certified_guard(digits, guard, &what, |ctx| {
        let p = ctx.prec;
        let al = ctx.f(alpha);
        let om = Float::with_val(p, 1u32 - &al);
        let mut total = Val::exact(Float::new(p));
        for piece in pieces(model.breakpoints(p)) {
            let r = integrate_piece(ctx, &piece, model.tail_scale(), |x| {
                let a = Float::with_val(p, &al * model.ln_pdf_mp(Which::P1, x));
                let b = Float::with_val(p, &om * model.ln_pdf_mp(Which::P2, x));
                let mg = mag(&[&a, &b]);
                (Float::with_val(p, &a + &b), None, mg)
            })?;
            total = add(&total, &r, p);
        }
        log_over(ctx, &total, &Float::with_val(p, &al - 1u32))
    })
}

/// log(I)/k with the error of I propagated to first order (2 % margin) plus rounding.
fn log_over(ctx: &Ctx, i: &Val, k: &Float) -> Result<Val> {
    let p = ctx.prec;
    let rel = Float::with_val(EP, &i.e / &i.v);
    let d = Float::with_val(p, i.v.ln_ref()) / k;
    let kabs = Float::with_val(EP, k.abs_ref());
    let e =
        Float::with_val(EP, &rel / &kabs) * 1.02f64 + Float::with_val(EP, d.abs_ref()) * ctx.ulp();
    Ok(Val { v: d, e })
}

/// KL(P1 ‖ P2) = ∫ p1 (log p1 − log p2), split where the log-ratio changes sign.
pub(super) fn kl(m: &Pair, model: &dyn LinePair, digits: u32) -> Result<Certified> {
    if m.model().identical() {
        return Ok(zero(digits));
    }
    let what = format!("quadrature KL divergence of {m}");
    certified(digits, &what, |ctx| {
        signed_sum(ctx, model, &Float::new(ctx.prec), true, |l1, l2| {
            let g = Float::with_val(ctx.prec, l1 - l2);
            (g.clone(), g)
        })
    })
}

/// δ(ε) = ∫ over {log p1 − log p2 > ε} of p1 (1 − e^{ε − (log p1 − log p2)}).
pub(super) fn hockey_stick(
    m: &Pair,
    model: &dyn LinePair,
    eps: &Scalar,
    digits: u32,
) -> Result<Certified> {
    let what = format!("quadrature hockey-stick divergence (eps = {eps}) of {m}");
    certified(digits, &what, |ctx| {
        let p = ctx.prec;
        let e = ctx.f(eps);
        signed_sum(ctx, model, &e, false, |l1, l2| {
            let llr = Float::with_val(p, l1 - l2);
            let g = -Float::with_val(p, &e - &llr).exp_m1();
            (Float::with_val(p, llr - &e), g)
        })
    })
}

/// Σ over the pieces cut at the breakpoints and at the level `level` of the log-ratio of
/// ∫ p1·g, where `f(log p1, log p2)` returns (a sign test, g). With `every` false only the pieces
/// whose test is positive count (the hockey-stick region); with `every` true all pieces count
/// except those where the test vanishes (KL: g is the log-ratio, of constant sign per piece).
fn signed_sum<F>(ctx: &Ctx, model: &dyn LinePair, level: &Float, every: bool, f: F) -> Result<Val>
where
    F: Fn(&Float, &Float) -> (Float, Float),
{
    let p = ctx.prec;
    let mut cuts = model.breakpoints(p);
    cuts.extend(model.llr_level(level));
    let mut total = Val::exact(Float::new(p));
    for piece in pieces(cuts) {
        let x = inside(&piece, model.tail_scale(), p);
        let (test, _) = f(
            &model.ln_pdf_mp(Which::P1, &x),
            &model.ln_pdf_mp(Which::P2, &x),
        );
        // A piece with a vanishing test contributes nothing; without `every`, neither does one
        // below the level.
        if test.is_zero() || (!every && test < 0) {
            continue;
        }
        let r = integrate_piece(ctx, &piece, model.tail_scale(), |x| {
            let l1 = model.ln_pdf_mp(Which::P1, x);
            let l2 = model.ln_pdf_mp(Which::P2, x);
            let (_, g) = f(&l1, &l2);
            let mg = mag(&[&l1]);
            (l1, Some(g), mg)
        })?;
        total = add(&total, &r, p);
    }
    let e = Float::with_val(EP, &total.e) + Float::with_val(EP, total.v.abs_ref()) * ctx.ulp();
    Ok(Val { v: total.v, e })
}

/// Fisher information ∫ p (∂_μ log p)².
pub(super) fn fisher(m: &Location, model: &dyn LineLocation, digits: u32) -> Result<Certified> {
    let what = format!("quadrature Fisher information of {m}");
    certified(digits, &what, |ctx| {
        let p = ctx.prec;
        let mut total = Val::exact(Float::new(p));
        for piece in pieces(model.breakpoints(p)) {
            let r = integrate_piece(ctx, &piece, model.tail_scale(), |x| {
                let l = model.ln_pdf_mp(x);
                let mg = mag(&[&l]);
                (l, Some(model.score_sq_mp(x)), mg)
            })?;
            total = add(&total, &r, p);
        }
        Ok(total)
    })
}
