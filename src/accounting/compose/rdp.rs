//! The RDP route from the same moments: certified composed Rényi DP and its conversion to (ε, δ).

use super::{
    check_delta, f64s, ln_moment_total_f64, ln_rel_for, precision_error, shift, working_prec,
    Bracket, Dir, Error, Float, Mix, MixEval, Release, Result, Scalar, Schedule,
    SubsampledGaussian,
};

// ---------------------------------------------------------------------------------------------
// The RDP route from the same moments.
// ---------------------------------------------------------------------------------------------

/// D_α of one release in one direction as a certified bracket: ln E_Q[r^β]/(α − 1) with
/// β = α (remove) or 1 − α (add), E_Q[r^β] from the x-trapezoid with its error bound (the
/// Gaussian in closed form, α/(2σ²)).
fn renyi_release(
    r: &Release,
    alpha: &Float,
    dir: Dir,
    ln_rel: f64,
    digits: u32,
    prec: u32,
) -> Result<Bracket> {
    let am1 = Float::with_val(prec, alpha - 1u32);
    let gauss = |sigma: &Scalar| {
        let s = sigma.mp(prec);
        let v = Float::with_val(prec, alpha / Float::with_val(prec, s.square_ref())) / 2u32;
        Bracket::point(v)
    };
    match r {
        Release::Gaussian { sigma } => Ok(gauss(sigma)),
        Release::Subsampled(m) if m.q().mp(prec) == 1 => Ok(gauss(m.sigma())),
        Release::Substitution(m) => substitution_renyi(m, alpha, digits, prec),
        Release::Subsampled(m) => {
            let mix = Mix::new(m, 1, dir, prec);
            let mut ev = MixEval::new(&mix, alpha, ln_rel, prec)?;
            let mo = ev.moment(&Float::new(prec))?;
            let v = mo.value.real().clone();
            let lo = shift(&v, mo.ln_err, false, prec);
            let hi = shift(&v, mo.ln_err, true, prec);
            if lo <= 0 {
                return Err(precision_error(
                    0,
                    0,
                    "subsampled Gaussian moment (error bound exceeds the value)",
                ));
            }
            Ok(Bracket {
                lo: Float::with_val(prec, lo.ln_ref()) / &am1,
                hi: Float::with_val(prec, hi.ln_ref()) / &am1,
            })
        }
    }
}

/// D_α of one substitution step (both directions: the pair is symmetric). q = 1 is the Gaussian
/// mechanism with sensitivity 2, D_α = 2α/σ² exactly; q < 1 the certified generic quadrature of
/// the model layer ([`crate::mechanisms::subsampled::SubsampledSubstPair`]), to `digits` digits.
fn substitution_renyi(
    m: &SubsampledGaussian,
    alpha: &Float,
    digits: u32,
    prec: u32,
) -> Result<Bracket> {
    if m.q().mp(prec) == 1 {
        let s2 = Float::with_val(prec, m.sigma().mp(prec).square_ref());
        return Ok(Bracket::point(Float::with_val(prec, alpha * 2u32) / s2));
    }
    let pair = crate::divergence::Pair::from(
        crate::mechanisms::subsampled::SubsampledSubstPair::new(m.q().clone(), m.sigma().clone())?,
    );
    let c = crate::divergence::renyi(
        &pair,
        &Scalar::from_float(alpha),
        digits.clamp(1, 60),
        crate::divergence::Method::Quadrature,
    )?;
    Ok(Bracket::from_certified(&c))
}

/// Certified Rényi DP of the composition at order α: the larger over the two neighbour
/// directions of Σ_j T_j·D_α(release j) (Mironov 2017, Prop. 1, exact for products), as a bracket.
pub fn composed_rdp(sched: &Schedule, alpha: &Scalar, digits: u32) -> Result<Bracket> {
    let af = alpha.f64();
    if !(af.is_finite() && af > 1.0) || alpha.mp(256) <= 1 {
        return Err(Error::invalid("alpha", alpha, "finite and > 1"));
    }
    let prec = working_prec(digits, sched);
    let a = alpha.mp(prec);
    let ln_rel = ln_rel_for(digits) - 8.0;
    let mut best: Option<Bracket> = None;
    for dir in [Dir::Remove, Dir::Add] {
        let mut lo = Float::new(prec);
        let mut hi = Float::new(prec);
        for (r, n) in sched.parts() {
            let mut b = renyi_release(r, &a, dir, ln_rel, digits, prec)?;
            // D_α ≥ 0 for α > 1: a lower end below 0 (the moment's bracket reaching below 1
            // where D_α is far below its error: q = 10⁻⁶, σ = 10⁸ gave −3.5·10⁻¹⁹, and `account`
            // failed converting it) is raised to 0, still a lower bound.
            if b.lo < 0 {
                b.lo = Float::new(prec);
            }
            lo += Float::with_val(prec, &b.lo * *n);
            hi += Float::with_val(prec, &b.hi * *n);
        }
        let b = Bracket { lo, hi };
        best = Some(match best {
            None => b,
            Some(x) => Bracket::max(&x, &b),
        });
    }
    Ok(best.expect("two directions"))
}

/// Result of the RDP route.
#[derive(Clone, Debug)]
pub struct RdpRoute {
    /// ε from the certified upper end of the composed RDP at the chosen order (a valid
    /// guarantee), with the digits on which both ends of the RDP bracket agree after conversion.
    pub eps: crate::numeric::mp::Certified,
    /// The order.
    pub alpha: Scalar,
}

/// The RDP route for a schedule at δ: the conversion (Mironov 2017 Prop. 3, or Canonne–Kamath–
/// Steinke 2020 Prop. 12) of the certified composed RDP, minimised over `orders` when given, else
/// over continuous α ∈ (1, 10⁴] (a golden-section search on the double-precision moments, then
/// certified at the order it returns, so the result is valid whatever the search's accuracy).
pub fn rdp_route(
    sched: &Schedule,
    delta: &Scalar,
    orders: Option<&[Scalar]>,
    conversion: crate::bounds::conversion::Conversion,
    digits: u32,
) -> Result<RdpRoute> {
    use crate::bounds::conversion::convert_mp;
    check_delta(delta)?;
    let prec = working_prec(digits, sched);
    let d = delta.mp(prec);
    let eval = |alpha: &Scalar| -> Result<(Float, u32)> {
        let b = composed_rdp(sched, alpha, digits)?;
        let a = alpha.mp(prec);
        let hi = convert_mp(conversion, &b.hi, &a, &d)?;
        let lo = convert_mp(conversion, &b.lo, &a, &d)?;
        let digits_ok = Bracket { lo, hi: hi.clone() }.digits().min(digits);
        Ok((hi, digits_ok))
    };
    let candidates: Vec<Scalar> = match orders {
        Some([]) => {
            return Err(Error::invalid(
                "orders",
                "[]",
                "a non-empty list of alpha > 1",
            ))
        }
        Some(o) => o.to_vec(),
        None => {
            // Continuous α: golden section on z = ln(α − 1) of the f64 objective.
            let dirs = [sched.factors(Dir::Remove, 64), sched.factors(Dir::Add, 64)];
            // (Substitution releases contribute their symmetric factor to both directions.)
            let objective = |z: f64| -> f64 {
                let a = 1.0 + z.exp();
                let worst = dirs
                    .iter()
                    .map(|f| ln_moment_total_f64(f, a) / (a - 1.0))
                    .fold(f64::NEG_INFINITY, f64::max);
                let lnd = delta.f64().ln();
                match conversion {
                    crate::bounds::conversion::Conversion::Mironov => worst - lnd / (a - 1.0),
                    _ => worst + ((a - 1.0) / a).ln() - (lnd + a.ln()) / (a - 1.0),
                }
            };
            let (lo, hi) = f64s::golden_section(objective, -12.0, 9.2, 0.0, 90);
            let a = 1.0 + (0.5 * (lo + hi)).exp();
            vec![Scalar::from(((a * 1e6).round() / 1e6).max(1.000001))]
        }
    };
    let mut best: Option<(Float, u32, Scalar)> = None;
    for a in &candidates {
        let (e, dg) = eval(a)?;
        if best.as_ref().is_none_or(|(b, _, _)| e < *b) {
            best = Some((e, dg, a.clone()));
        }
    }
    let (value, digits, alpha) = best.expect("non-empty candidates");
    Ok(RdpRoute {
        eps: crate::numeric::mp::Certified { value, digits },
        alpha,
    })
}
