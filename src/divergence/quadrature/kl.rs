//! The quadrature route's KL divergence ∫ p1 log(p1/p2) (+ atoms), with the variance guard for
//! near-equal variances.

use super::*;

// ------------------------------------------------------------------------------------------
// KL

/// KL(P1 ‖ P2) = ∫ p1 log(p1/p2) by quadrature (split at the roots of the log-likelihood ratio),
/// plus atom terms P1·log(P1/P2), certified to `digits`. GaussianDd and Rgm: the 1-D KL along the
/// mean difference plus (d−1) times the KL of the centred marginals (additivity over independent
/// coordinates).
pub fn kl(pair: &Pair, digits: u32) -> Result<Certified> {
    if let Pair::Model(m) = pair {
        return model::kl(m, digits);
    }
    if identical(pair) {
        return Ok(zero(digits));
    }
    let what = format!("quadrature KL divergence of {pair}");
    certified_guard(digits, variance_guard(pair), &what, |ctx| kl_at(ctx, pair))
}

/// Extra working digits for Gaussian pairs with near-equal variances: the combined quadratic's
/// leading coefficient is a difference 1/σ1² − 1/σ2² of relative size u = σ2²/σ1² − 1, so the
/// rounding of the variances is amplified by 1/|u| (docs/formulas.md §9 recipe 6). The golden row
/// `ext-ren-rgm-006` (u ≈ 2e-7) was certified 1.2 digits too optimistically without it.
pub(super) fn variance_guard(pair: &Pair) -> f64 {
    let u = match pair {
        Pair::GaussianDd { sigma1, sigma2, .. } => {
            let r = sigma2.f64() / sigma1.f64();
            r * r - 1.0
        }
        Pair::Rgm {
            gamma,
            sigma2,
            n1,
            n2,
            ..
        } => {
            let v1 = gamma.f64() * n1.f64() * n1.f64() + sigma2.f64();
            gamma.f64() * (n2.f64() - n1.f64()) * (n2.f64() + n1.f64()) / v1
        }
        _ => return 0.0,
    };
    if u == 0.0 || !u.is_finite() {
        0.0
    } else {
        (-u.abs().log10()).max(0.0)
    }
}

pub(super) fn kl_at(ctx: &Ctx, pair: &Pair) -> Result<Val> {
    let p = ctx.prec;
    match pair {
        Pair::Model(_) => Err(model::generic_only()),
        Pair::Gaussian { mu1, mu2, sigma } => {
            let (q1, q2) = gauss_q(ctx, mu1, mu2, sigma);
            int_times_llr(ctx, &q1, &q2, None)
        }
        Pair::GaussianDd { .. } | Pair::Rgm { .. } => {
            let (s1, s2, dist, d) = dd_params(ctx, pair).unwrap();
            let zero = Float::new(p);
            let q2 = Quadratic::log_normal(&zero, &s2, p);
            let q1 = Quadratic::log_normal(&dist, &s1, p);
            let mut acc = int_times_llr(ctx, &q1, &q2, None)?;
            if d > 1 && s1 != s2 {
                let q10 = Quadratic::log_normal(&zero, &s1, p);
                let k0 = int_times_llr(ctx, &q10, &q2, None)?;
                let dm1 = Float::with_val(p, d - 1);
                acc = add(
                    &acc,
                    &Val {
                        v: Float::with_val(p, &k0.v * &dm1),
                        e: Float::with_val(EP, &k0.e * &dm1),
                    },
                    p,
                );
            }
            Ok(acc)
        }
        Pair::Truncated { .. } => {
            let c = Clip::of(ctx, pair);
            let z1q = c.mass(ctx, &c.q1)?;
            let z1 = val_of(&z1q);
            let lz1 = log_of(&z1q)?;
            let lz2 = log_of(&c.mass(ctx, &c.q2)?)?;
            let k = int_times_llr(ctx, &c.q1, &c.q2, Some((&c.a, &c.b)))?;
            // KL = K/Z1 + log Z2 − log Z1
            let ratio = Float::with_val(p, &k.v / &z1.v);
            let z1e = Float::with_val(EP, &z1.v);
            let e_ratio = (Float::with_val(EP, &k.e / &z1e)
                + Float::with_val(EP, ratio.abs_ref()) * Float::with_val(EP, &z1.e / &z1e))
                * 1.02f64;
            let v = Float::with_val(p, &ratio + &lz2.v) - &lz1.v;
            let e = e_ratio + &lz1.e + &lz2.e + Float::with_val(EP, v.abs_ref()) * ctx.ulp();
            Ok(Val { v, e })
        }
        Pair::Rectified { .. } => {
            let c = Clip::of(ctx, pair);
            let acc = int_times_llr(ctx, &c.q1, &c.q2, Some((&c.a, &c.b)))?;
            c.add_atoms(ctx, acc, |l1, l2| atom_kl(ctx, l1, l2))
        }
        Pair::StochasticSign { mu1, mu2, sigma } => {
            let [(lp1, lp2), (lm1, lm2)] = sign_logs(ctx, mu1, mu2, sigma);
            let a = atom_kl(ctx, &lp1, &lp2);
            let b = atom_kl(ctx, &lm1, &lm2);
            Ok(add(&a, &b, p))
        }
    }
}
