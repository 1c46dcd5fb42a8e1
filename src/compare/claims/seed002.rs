//! Claims of the informal DP-SGD notes (seed 002), each against its exact figure.

use super::{
    cert, dec, le, n, n6, rounds_to, sc, verdict, ClaimRow, Decide, Decider, Outcome, Verdict,
    DIGITS, P,
};
use crate::bounds::conversion::mironov_mp;
use crate::bounds::gaussian::{dp_delta, dp_eps, rdp_eps};
use crate::error::Result;
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::ops::Pow;
use rug::Float;

// ---------------------------------------------------------------------------------------------
// Seed 002 (informal DP-SGD notes)
// ---------------------------------------------------------------------------------------------

/// The notes' σ = L √(T ln(1/δ)) / (n ε) at L = 1, n = 1000, T = 100, ε = 1, δ = 1e-5.
pub(super) fn notes_sigma() -> Float {
    let l = Float::with_val(P, sc("1e-5").mp(P).recip().ln());
    Float::with_val(P, Float::with_val(P, &l * 100u32).sqrt()) / 1000u32
}

/// The Gaussian RDP ε(2) at sensitivities `a` and `b` with the same σ, and their ratio a : b.
fn rdp_pair(a: &str, b: &str, sigma: &str) -> Result<(Certified, Certified, Float)> {
    let (sig, al) = (sc(sigma), sc("2"));
    let ea = rdp_eps(&sc(a), &sig, &al, DIGITS)?;
    let eb = rdp_eps(&sc(b), &sig, &al, DIGITS)?;
    let ratio = Float::with_val(P, &ea.value / &eb.value);
    Ok((ea, eb, ratio))
}

/// The setting of the seed-002 rows, as the reasons state it.
pub(super) const S002_SETUP: &str = "L = 1, n = 1000, T = 100, eps = 1, delta = 1e-5";

/// The value of `{notes_sigma}` in the eval rows of `s002-sigma-calibration`: the notes' sigma
/// as decimal text.
fn sigma_calibration_vars() -> super::Vars {
    vec![("notes_sigma", dec(&notes_sigma()))]
}

/// The decisions of this file.
pub(super) const DECIDERS: &[Decider] = &[
    Decider::direct("s002-sensitivity", s002_sensitivity),
    Decider::direct("s002-rdp-conversion", s002_rdp_conversion),
    Decider {
        name: "s002-sigma-calibration",
        decide: Decide::Direct(s002_sigma_calibration),
        vars: Some(sigma_calibration_vars),
    },
    Decider::direct("s002-alpha-choice", s002_alpha_choice),
    Decider::direct("s002-sgd-sensitivity", s002_sgd_sensitivity),
    Decider::direct("s002-subsampling", s002_subsampling),
    Decider::direct("s002-advanced-composition", s002_advanced_composition),
    Decider::direct("s002-dpsgd-sigma", s002_dpsgd_sigma),
];

fn s002_sensitivity(_row: &ClaimRow) -> Outcome {
    // Replacing one point moves one gradient from g to g' with ||g||, ||g'|| <= L: ||g - g'|| <= 2L
    // (attained by g' = -g), so the average moves by up to 2L/n.
    let (truth, notes, ratio) = rdp_pair("0.002", "0.001", "0.01")?;
    Ok((
                format!("sensitivity 2L/n; RDP eps(2) = {} instead of {} (x{})", n(&truth.value), n(&notes.value), n6(&ratio)),
                if ratio > 1 { Verdict::False } else { Verdict::Holds },
                format!(
                    "under replacement, two gradients of norm <= L can point in opposite directions, so the average moves by up \
                     to 2L/n (L/n is the add/remove figure); at L = 1, n = 1000, sigma = 0.01 the RDP curve is {}x the notes'",
                    n6(&ratio)
                ),
            ))
}

fn s002_rdp_conversion(_row: &ClaimRow) -> Outcome {
    // Notes' sensitivity L/n = 1e-3, T = 100 → composed Gaussian with sensitivity √T·L/n = 0.01.
    let (sig, al, delta) = (sc("0.03"), sc("8"), sc("1e-5"));
    let one = rdp_eps(&sc("0.001"), &sig, &al, DIGITS)?;
    let comp = rdp_eps(&sc("0.01"), &sig, &al, DIGITS)?;
    let t_one = Float::with_val(P, &one.value * 100u32);
    let eps = mironov_mp(&t_one, &al.mp(P), &delta.mp(P))?;
    let hs = dp_delta(&sc("0.01"), &sig, &Scalar::from_float(&eps), DIGITS)?;
    let same = Float::with_val(P, &t_one - &comp.value).abs()
        <= Float::with_val(P, &comp.value * 1e-13f64);
    let holds = same && le(&hs.value, &delta.mp(P));
    Ok((
                format!("eps = {} at alpha = 8; exact delta(eps) = {}", n(&eps), n(&hs.value)),
                verdict(holds),
                format!(
                    "(Mironov 2017 Prop. 1 and 3.) L/n = 1e-3, sigma = 0.03, T = 100, alpha = 8: T x RDP equals the RDP of the composed \
                     Gaussian (sensitivity 0.01), and its exact privacy profile at the converted eps = {} is {} <= delta = 1e-5",
                    n6(&eps),
                    n6(&hs.value)
                ),
            ))
}

fn s002_sigma_calibration(_row: &ClaimRow) -> Outcome {
    let sigma_notes = notes_sigma();
    let sig = Scalar::from_float(&sigma_notes);
    let delta = sc("1e-5");
    // T Gaussian steps with sensitivity Δ compose exactly to one with sensitivity √T·Δ.
    let e1 = dp_eps(&sc("0.01"), &sig, &delta, DIGITS)?;
    let e2 = dp_eps(&sc("0.02"), &sig, &delta, DIGITS)?;
    let fails = e1.value > 1;
    Ok((
                format!("exact eps = {} (notes' sensitivity L/n), {} (true sensitivity 2L/n)", n(&e1.value), n(&e2.value)),
                if fails { Verdict::False } else { Verdict::Holds },
                format!(
                    "{S002_SETUP}: sigma = {}; the T-fold composition is the Gaussian mechanism with sensitivity sqrt(T) L/n, whose exact \
                     (Balle-Wang) eps at delta = 1e-5 is {} > 1 even with the notes' sensitivity, and {} with the replacement sensitivity 2L/n",
                    n6(&sigma_notes),
                    n6(&e1.value),
                    n6(&e2.value)
                ),
            ))
}

fn s002_alpha_choice(_row: &ClaimRow) -> Outcome {
    let sig = Scalar::from_float(&notes_sigma());
    let delta = sc("1e-5");
    let l = Float::with_val(P, delta.mp(P).recip().ln());
    let alpha = Float::with_val(P, &l * 2u32);
    let a = Scalar::from_float(&alpha);
    let r = rdp_eps(&sc("0.01"), &sig, &a, DIGITS)?;
    let eps = mironov_mp(&r.value, &alpha, &delta.mp(P))?;
    // Independent check: the exact (Balle-Wang) eps of the composed Gaussian at delta.
    let exact = dp_eps(&sc("0.01"), &sig, &delta, DIGITS)?;
    let fails = !rounds_to(&eps, "1", 2) && exact.value > 1u32;
    Ok((
                format!("RDP term = {}; total eps = {}; exact eps = {}", n(&r.value), n(&eps), cert(&exact)),
                if fails { Verdict::False } else { Verdict::Holds },
                format!(
                    "{S002_SETUP}, alpha = {}: the notes' own bound is RDP term + ln(1/delta)/(alpha-1) = {} + {} = {}; \
                     the second term (about eps/2) was dropped. Decided by the exact privacy profile: the mechanism so calibrated \
                     (sigma with RDP term 1 at this alpha) has exact eps(1e-5) = {} > 1, so it is not (1, 1e-5)-DP",
                    n6(&alpha),
                    n6(&r.value),
                    n6(&Float::with_val(P, &eps - &r.value)),
                    n6(&eps),
                    n6(&exact.value)
                ),
            ))
}

fn s002_sgd_sensitivity(_row: &ClaimRow) -> Outcome {
    let (_, _, ratio) = rdp_pair("2", "0.002", "1")?;
    let holds = rounds_to(&ratio, "1000000", 0);
    Ok((
                format!("RDP ratio single-gradient / averaged = {}", n(&ratio)),
                verdict(holds),
                "n = 1000, L = 1, same noise: the single-gradient step has sensitivity 2L against 2L/n, an RDP n^2 = 10^6 times larger \
                 (before any amplification by sampling)".to_string(),
            ))
}

fn s002_subsampling(_row: &ClaimRow) -> Outcome {
    // Tight amplification for sampling probability q (Balle, Barthe & Gaboardi 2018, Thm 9;
    // attained by randomized response): eps' = log(1 + q(e^eps - 1)), delta' = q delta.
    let q = Float::with_val(P, 1u32) / 1000u32;
    let mut ratios = Vec::new();
    for e in ["1", "0.1"] {
        let eps = sc(e).mp(P);
        let amp = Float::with_val(P, Float::with_val(P, eps.exp_m1_ref()) * &q).ln_1p();
        ratios.push((e, Float::with_val(P, amp / Float::with_val(P, &eps * &q))));
    }
    let r1 = &ratios[0].1;
    let fails = Float::with_val(P, r1 - 1u32).abs() > 0.25f64;
    Ok((
                format!("eps = 1, n = 1000: amplified eps = {} x eps/n", n(r1)),
                if fails { Verdict::False } else { Verdict::Holds },
                format!(
                    "the tight amplification is log(1 + (e^eps - 1)/n) (BBG18 Thm 9, attained by randomized response): {} x eps/n at \
                     eps = 1 and {} x at eps = 0.1; 'approximately eps/n' is off by the factor (e^eps - 1)/eps, 72% at eps = 1. \
                     (Not a crate routine: the two-line formula is evaluated with rug.)",
                    n6(r1),
                    n6(&ratios[1].1)
                ),
            ))
}

fn s002_advanced_composition(_row: &ClaimRow) -> Outcome {
    // Counterexample: T-fold eps0-randomized response (pure eps0-DP, so (eps0, delta)-DP for every delta).
    // Its privacy loss is eps0 (2K - T), K ~ Bin(T, p) under P, p = e^eps0/(1+e^eps0).
    let t = 100u32;
    let eps0 = Float::with_val(P, 1u32) / Float::with_val(P, t).sqrt();
    let e0 = Float::with_val(P, eps0.exp_ref());
    let p = Float::with_val(P, &e0 / Float::with_val(P, &e0 + 1u32));
    let qq = Float::with_val(P, 1u32 - &p);
    let e1 = Float::with_val(P, 1u32).exp();
    let mut delta = Float::with_val(P, 0u32);
    let mut binom = Float::with_val(P, 1u32);
    for k in 0..=t {
        if k > 0 {
            binom *= t - k + 1;
            binom /= k;
        }
        let pk = Float::with_val(P, &binom * Float::with_val(P, (&p).pow(k)))
            * Float::with_val(P, (&qq).pow(t - k));
        let qk = Float::with_val(P, &binom * Float::with_val(P, (&qq).pow(k)))
            * Float::with_val(P, (&p).pow(t - k));
        let term = Float::with_val(P, &pk - Float::with_val(P, &qk * &e1));
        if term > 0 {
            delta += term;
        }
    }
    let claimed = Float::with_val(P, sc("1e-5").mp(P) * t);
    let fails = delta > claimed;
    Ok((
                format!("delta(eps = 1) of 100-fold 0.1-randomized response = {}", n(&delta)),
                if fails { Verdict::False } else { Verdict::Holds },
                format!(
                    "T = 100, eps = 1, per-step delta = 1e-5: 0.1-randomized response is (0.1, 1e-5)-DP, yet its exact 100-fold \
                     composition has delta(1) = {} > delta T = 1e-3; advanced composition gives eps sqrt(2 ln(1/delta')) + \
                     T eps0 (e^eps0 - 1) with an extra delta', never (eps, delta T). (Binomial sum evaluated with rug, not a crate routine.)",
                    n6(&delta)
                ),
            ))
}

fn s002_dpsgd_sigma(_row: &ClaimRow) -> Outcome {
    Ok((
                "none".to_string(),
                Verdict::NotCheckable,
                "the formula is garbled: delta appears where ln(1/delta) belongs, T is missing, G and L are both sensitivities, and \
                 the sampling rate (1/n or m/n) and step count of the comparison with GD are not fixed, so there is no mechanism to \
                 evaluate; its ingredients are checked separately (s002-sensitivity, s002-subsampling, s002-advanced-composition)"
                    .to_string(),
            ))
}
