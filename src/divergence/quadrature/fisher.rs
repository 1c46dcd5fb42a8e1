//! The quadrature route's Fisher information about the location, I(μ) = E[(∂_μ log p)²], with
//! atoms counted as masses.

use super::*;

// ------------------------------------------------------------------------------------------
// Fisher information

/// Fisher information about the location, I(μ) = E[(∂_μ log p)²] with atoms counted as
/// (∂_μ P(atom))²/P(atom) (docs/formulas.md §0.1, §1.1, §2.1, §3), by quadrature, certified to `digits`.
/// Truncated: Var_T(X)/σ⁴ by two passes (mean, then Σ w (x − x̄)²; docs/formulas.md §9 recipe 4).
pub fn fisher(loc: &Location, digits: u32) -> Result<Certified> {
    if let Location::Model(m) = loc {
        return model::fisher(m, digits);
    }
    let what = format!("quadrature Fisher information of {loc}");
    certified(digits, &what, |ctx| fisher_at(ctx, loc))
}

pub(super) fn fisher_at(ctx: &Ctx, loc: &Location) -> Result<Val> {
    let p = ctx.prec;
    // Score² of the Gaussian density: ((x − μ)/σ²)² as a polynomial in x.
    let score2 = |mu: &Float, s: &Float| -> Factor {
        let s4 = Float::with_val(p, s.square_ref()).square();
        Factor::poly(vec![
            Float::with_val(p, mu.square_ref()) / &s4,
            Float::with_val(p, mu * -2i32) / &s4,
            Float::with_val(p, s4.recip_ref()),
        ])
    };
    match loc {
        Location::Model(_) => Err(model::generic_only()),
        Location::Gaussian { mu, sigma } => {
            let (m, s) = (ctx.f(mu), ctx.f(sigma));
            let q = Quadratic::log_normal(&m, &s, p);
            Ok(val_of(&integral(
                ctx,
                &q,
                &score2(&m, &s),
                None,
                None,
                &[],
            )?))
        }
        Location::Rectified { mu, sigma, a, b } => {
            let (m, s) = (ctx.f(mu), ctx.f(sigma));
            let (af, bf) = (ctx.f(a), ctx.f(b));
            let q = Quadratic::log_normal(&m, &s, p);
            let mut acc = val_of(&integral(
                ctx,
                &q,
                &score2(&m, &s),
                Some(&af),
                Some(&bf),
                std::slice::from_ref(&m),
            )?);
            // Atoms: (∂_μ P)²/P = p(end)²/P (the derivative of a Gaussian mass with respect to
            // its location is ∓ the density at the end).
            for (end, lower) in [(&af, true), (&bf, false)] {
                let lp = log_mass(ctx, &m, &s, end, lower)?;
                let mut ld = Float::with_val(p, &q.c[2] * end);
                ld += &q.c[1];
                ld *= end;
                ld += &q.c[0];
                let lt = Float::with_val(p, &ld * 2u32) - &lp.v;
                let t = Float::with_val(p, lt.exp_ref());
                let te = Float::with_val(EP, &t)
                    * (Float::with_val(EP, &lp.e) * 1.02f64
                        + ctx.ulp() * (4.0 + lt.to_f64().abs() + 4.0 * q.mag[0]));
                acc = add(&acc, &Val { v: t, e: te }, p);
            }
            Ok(acc)
        }
        Location::Truncated { mu, sigma, a, b } => {
            let (m, s) = (ctx.f(mu), ctx.f(sigma));
            let (af, bf) = (ctx.f(a), ctx.f(b));
            let q = Quadratic::log_normal(&m, &s, p);
            let z = val_of(&integral(ctx, &q, &Factor::One, Some(&af), Some(&bf), &[])?);
            // First pass: mean x̄ = μ + ∫(x − μ)p/Z, split at μ.
            let lin = vec![Float::with_val(p, -&m), Float::with_val(p, 1u32)];
            let mut mom = Val::exact(Float::new(p));
            let inside = m > af && m < bf;
            let cuts: Vec<(Float, Float)> = if inside {
                vec![(af.clone(), m.clone()), (m.clone(), bf.clone())]
            } else {
                vec![(af.clone(), bf.clone())]
            };
            for (u, v) in &cuts {
                let qq = integral(ctx, &q, &Factor::poly(lin.clone()), Some(u), Some(v), &[])?;
                mom = add(&mom, &val_of(&qq), p);
            }
            let ze = Float::with_val(EP, &z.v);
            let shift = Float::with_val(p, &mom.v / &z.v);
            let e_shift = (Float::with_val(EP, &mom.e / &ze)
                + Float::with_val(EP, shift.abs_ref()) * Float::with_val(EP, &z.e / &ze))
                * 1.02f64;
            let xbar = Float::with_val(p, &m + &shift);
            // Second pass: Σ w (x − x̄)² p, then divide by Z and σ⁴.
            let quad2 = Factor::poly(vec![
                Float::with_val(p, xbar.square_ref()),
                Float::with_val(p, &xbar * -2i32),
                Float::with_val(p, 1u32),
            ]);
            let vq = val_of(&integral(
                ctx,
                &q,
                &quad2,
                Some(&af),
                Some(&bf),
                std::slice::from_ref(&xbar),
            )?);
            let s4 = Float::with_val(p, s.square_ref()).square();
            let var = Float::with_val(p, &vq.v / &z.v);
            let v = Float::with_val(p, &var / &s4);
            // Var(x̄') = Var + (x̄' − x̄)²: the mean's error enters squared.
            let rel = Float::with_val(EP, &vq.e / Float::with_val(EP, &vq.v))
                + Float::with_val(EP, &z.e / &ze)
                + ctx.ulp() * (8.0 + 4.0 * q.mag[0]);
            let e = Float::with_val(EP, &v) * rel * 1.02f64
                + Float::with_val(EP, e_shift.square_ref()) / Float::with_val(EP, &s4);
            Ok(Val { v, e })
        }
        Location::StochasticSign { mu, sigma } => {
            let s = ctx.f(sigma);
            let x = Float::with_val(p, ctx.f(mu) / &s);
            let nx = Float::with_val(p, -&x);
            let lp = log_ndtr_erfc(ctx, &x);
            let lm = log_ndtr_erfc(ctx, &nx);
            // φ(x)²/(σ² Φ(x) Φ(−x)), in logs: φ from its definition.
            let two_pi = Float::with_val(p + 8, rug::float::Constant::Pi) * 2u32;
            let lphi =
                -Float::with_val(p, x.square_ref()) / 2u32 - Float::with_val(p, two_pi.ln() / 2u32);
            let ls = Float::with_val(p, s.ln_ref());
            let lt = Float::with_val(p, &lphi * 2u32) - ls * 2u32 - &lp.v - &lm.v;
            let v = Float::with_val(p, lt.exp_ref());
            let e = Float::with_val(EP, &v)
                * ((Float::with_val(EP, &lp.e) + &lm.e) * 1.02f64
                    + ctx.ulp() * (8.0 + lt.to_f64().abs() + x.to_f64().powi(2)));
            Ok(Val { v, e })
        }
    }
}
