//! The closed-form route: each model's closed forms ([`crate::model::PairModel::renyi_at`], …),
//! evaluated in `rug::Float` on the precision ladder of [`crate::numeric::mp::certify`].
//!
//! MPFR's exponent range makes e^4950 × 10^-2150 harmless, so the only enemy left is
//! cancellation; the ladder re-evaluates at higher precision until two precisions agree to the
//! requested digits, so a cancelling form costs time, never correctness. The forms themselves
//! live with their families in [`crate::mechanisms`]:
//!
//! | quantity | family | source |
//! |---|---|---|
//! | D_α, KL, δ(ε), Fisher | Gaussian | Mironov 2017 Prop. 7; Balle & Wang 2018 Thm 8 (docs/formulas.md §7.1) |
//! | D_α, KL | isotropic Gaussians, RGM pairs | HMB Lemma 2, eq. (13), stable ℓ-form (docs/formulas.md §4) |
//! | δ(ε) | unequal variances, d = 1 | docs/formulas.md §7.3 |
//! | D_α, KL, Fisher, δ(ε) | rectified | HG Lemma 4.4 eq. (5), Lemma 4.1 eq. (4) (docs/formulas.md §1, §7.2) |
//! | D_α, KL, Fisher, δ(ε) | truncated | HG Lemma 4.7 eq. (6), Lemma 4.1 eq. (3) (docs/formulas.md §2, §7.2) |
//! | D_α, KL, Fisher, δ(ε) | stochastic sign | HG §4.1 (docs/formulas.md §3, §7.2) |

use super::{check_alpha, Location, Pair};
use crate::error::{Error, Result};
use crate::numeric::mp::{certify, Certified};
use crate::scalar::Scalar;
use rug::Float;

/// Rényi divergence D_α(P1 ‖ P2) by its closed form, certified to `digits`.
pub(crate) fn renyi(pair: &Pair, alpha: &Scalar, digits: u32) -> Result<Certified> {
    check_alpha(alpha)?;
    certify(digits, "renyi (closed form)", |p| renyi_at(pair, alpha, p))
}

/// D_α at working precision `p` (uncertified; see [`renyi`]).
pub(crate) fn renyi_at(pair: &Pair, alpha: &Scalar, p: u32) -> Result<Float> {
    pair.model().renyi_at(&alpha.mp(p), p)
}

/// KL(P1 ‖ P2) by its closed form, certified to `digits`.
pub(crate) fn kl(pair: &Pair, digits: u32) -> Result<Certified> {
    certify(digits, "kl (closed form)", |p| pair.model().kl_at(p))
}

/// Fisher information about the location, closed form, certified to `digits`.
pub(crate) fn fisher(loc: &Location, digits: u32) -> Result<Certified> {
    certify(digits, "fisher (closed form)", |p| loc.model().fisher_at(p))
}

/// Checks that ε is finite and ≥ 0.
pub(crate) fn check_eps(eps: &Scalar) -> Result<()> {
    if !eps.f64().is_finite() || eps.f64() < 0.0 {
        return Err(Error::invalid("eps", eps, "finite and >= 0"));
    }
    Ok(())
}

/// Hockey-stick divergence δ(ε) = ∫(p1 − e^ε p2)_+ (this ordered pair), closed form, certified.
pub(crate) fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32) -> Result<Certified> {
    check_eps(eps)?;
    certify(digits, "hockey_stick_delta (closed form)", |p| {
        hockey_stick_at(pair, &eps.mp(p), p)
    })
}

/// δ(ε) at working precision `p` (uncertified; see [`hockey_stick`]).
pub(crate) fn hockey_stick_at(pair: &Pair, eps: &Float, p: u32) -> Result<Float> {
    pair.model().hockey_at(eps, p)
}

#[cfg(test)]
mod tests {
    use super::{renyi, Float, Pair, Scalar};
    use crate::mechanisms::rectified::RectifiedPair;
    use crate::mechanisms::sign::SignPair;
    use crate::mechanisms::truncated::TruncatedPair;
    use crate::numeric::mp::{agreement_digits, log_ndtr};

    fn sc(s: &str) -> Scalar {
        s.parse().unwrap()
    }

    /// Location pairs: the tilted centre m = μ2 + α(μ1 − μ2) inside [−1, 1] at small α, then
    /// below a (x⋆ = a), above b (x⋆ = b), and a separation of 10⁻⁶.
    const LOCS: [(&str, &str); 5] = [
        ("0", "0.5"),
        ("0.3", "1.3"),
        ("1.3", "0.3"),
        ("0", "0.000001"),
        ("5", "-3"),
    ];

    /// The log-space forms of docs/formulas.md §9.10 and the S − 1 forms of §1.2, §2.2 and §3 are
    /// two arrangements of the same closed forms: at orders where both are usable they agree.
    #[test]
    fn closed_large_alpha_forms_agree_with_s_minus_1_forms() {
        let p = 700;
        for (m1, m2) in LOCS {
            let (m1, m2) = (sc(m1), sc(m2));
            let rect = Pair::rectified(m1.clone(), m2.clone(), sc("1"), sc("-1"), sc("1")).unwrap();
            let trunc =
                Pair::truncated(m1.clone(), m2.clone(), sc("1"), sc("-1"), sc("1")).unwrap();
            let sign = Pair::stochastic_sign(m1.clone(), m2.clone(), sc("1")).unwrap();
            for alpha in ["1.5", "10", "1000", "10000"] {
                let a = sc(alpha).mp(p);
                let log_space = [
                    rect.downcast_ref::<RectifiedPair>()
                        .unwrap()
                        .renyi_log_space_at(&a, p),
                    trunc
                        .downcast_ref::<TruncatedPair>()
                        .unwrap()
                        .renyi_log_space_at(&a, p),
                    sign.downcast_ref::<SignPair>()
                        .unwrap()
                        .renyi_log_space_at(&a, p),
                ];
                for (pair, ls) in [&rect, &trunc, &sign].into_iter().zip(log_space) {
                    let s_minus_1 = pair.model().renyi_at(&a, p).unwrap();
                    let agree = agreement_digits(&ls, &s_minus_1);
                    assert!(
                        agree >= 60.0,
                        "{pair} alpha {alpha}: log-space {} vs S - 1 {}: {agree:.1} digits",
                        ls.to_string_radix(10, Some(30)),
                        s_minus_1.to_string_radix(10, Some(30))
                    );
                }
            }
        }
    }

    /// Issue 23: at α = 10¹⁰ … 10³⁰⁰ the closed forms gave ±∞. D_α must be finite, non-decreasing
    /// in α and at most D_∞ = log max P1/P2, which for these pairs is the atom (rectified, sign)
    /// or density (truncated) ratio at the end a of [0, 1] (the log-likelihood ratio decreases in
    /// x for μ1 < μ2): log Φ(−μ1/σ) − log Φ(−μ2/σ), resp. −(a − μ1)²/2 + (a − μ2)²/2 − log Z1 + log Z2.
    #[test]
    fn closed_renyi_at_huge_alpha_is_finite_monotone_and_below_d_infinity() {
        let p = 256;
        let f = |x: &str| sc(x).mp(p);
        let d_inf_atom = Float::with_val(p, log_ndtr(&f("0")) - log_ndtr(&f("-0.5")));
        let (z1, z2) = (
            crate::numeric::mp::log_ndtr_diff(&f("0"), &f("1")),
            crate::numeric::mp::log_ndtr_diff(&f("-0.5"), &f("0.5")),
        );
        // (a − μ2)² − (a − μ1)² over 2σ² = 0.125 at a = 0.
        let d_inf_trunc = Float::with_val(p, f("0.125") - z1 + z2);
        let pairs = [
            (
                Pair::rectified(sc("0"), sc("0.5"), sc("1"), sc("0"), sc("1")).unwrap(),
                d_inf_atom.clone(),
            ),
            (
                Pair::truncated(sc("0"), sc("0.5"), sc("1"), sc("0"), sc("1")).unwrap(),
                d_inf_trunc,
            ),
            (
                Pair::stochastic_sign(sc("0"), sc("0.5"), sc("1")).unwrap(),
                d_inf_atom,
            ),
        ];
        // 20 certified digits: comparisons allow 10⁻²⁰ relative.
        let tol = Float::with_val(p, 1e-20);
        let up = |x: &Float| Float::with_val(p, x * (Float::with_val(p, 1u32) + &tol));
        let down = |x: &Float| Float::with_val(p, x * (Float::with_val(p, 1u32) - &tol));
        for (pair, d_inf) in pairs {
            let mut prev = Float::new(p);
            for alpha in ["2", "1e6", "1e10", "1e50", "1e100", "1e300"] {
                let d = renyi(&pair, &sc(alpha), 20).unwrap().value;
                assert!(d.is_finite(), "{pair} alpha {alpha}: {d}");
                assert!(up(&d) >= prev, "{pair}: D at alpha {alpha} = {d} < {prev}");
                assert!(
                    down(&d) <= d_inf,
                    "{pair}: D at alpha {alpha} = {d} > D_inf = {d_inf}"
                );
                prev = d;
            }
            // The remainder is O(log α/α): at α = 10³⁰⁰ D is D_∞ to all certified digits.
            let gap = Float::with_val(p, &d_inf - &prev).abs();
            assert!(
                gap <= Float::with_val(p, &d_inf * &tol),
                "{pair}: gap {gap}"
            );
        }
    }
}
