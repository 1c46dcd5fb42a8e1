//! Composition accounting for DP-SGD: the Poisson-subsampled Gaussian mechanism, its certified
//! single-step Rényi divergences, the exact q = 1 composition, and the RDP route for T-fold
//! composition with RDP → (ε, δ) conversion.
//!
//! Formula reference and derivations: `docs/accounting.md`.
//!
//! * Model (add/remove neighbours, sensitivity 1, noise multiplier σ, sampling rate q):
//!   P = (1−q)·N(0,σ²) + q·N(1,σ²), Q = N(0,σ²); the likelihood ratio is
//!   r(x) = P/Q(x) = 1 + q(e^{(2x−1)/(2σ²)} − 1) (Mironov, Talwar & Zhang 2019, §3).
//! * [`Order::Remove`] is D_α(P‖Q) = log E_Q[r^α]/(α−1); [`Order::Add`] is
//!   D_α(Q‖P) = log E_Q[r^{1−α}]/(α−1) (`docs/accounting.md#single-step`).
//! * Integer α, remove order: E_Q[r^α] − 1 = Σ_{k=2}^{α} C(α,k)(1−q)^{α−k} q^k (e^{k(k−1)/(2σ²)} − 1)
//!   (Mironov, Talwar & Zhang 2019, §3.3, integer-α binomial expansion; the k = 0, 1 terms cancel
//!   the 1 because Σ_k C(α,k)(1−q)^{α−k}q^k = 1). A sum of positive terms: no cancellation.
//! * Any α > 1, either order: E_Q[r^β] − 1 = ∫ φ_σ(x) h_β(r(x) − 1) dx with
//!   h_β(u) = (1+u)^β − 1 − βu ≥ 0 (convexity of u ↦ (1+u)^β for β ∉ [0, 1], and E_Q[r − 1] = 0),
//!   by the crate's certified tanh–sinh quadrature on a finite interval whose two tails are
//!   bounded in closed form (`docs/accounting.md#quadrature-tails`).
//! * q = 1: T steps are exactly the Gaussian mechanism with μ = √T/σ (Balle & Wang 2018, Thm 8;
//!   Dong, Roth & Su 2022, Cor. 3.3 for the composition of Gaussian trade-off functions).
//! * RDP route: the composition's RDP is T·max(D_α(P‖Q), D_α(Q‖P)) (Mironov 2017, Prop. 1),
//!   converted with Mironov 2017 Prop. 3 or Canonne–Kamath–Steinke 2020 Prop. 12
//!   ([`crate::bounds::conversion`]), on a user grid of α or optimised over continuous α.

pub mod calibrate;

/// Runs `f` with a time limit of `seconds` on this thread: a certified computation past it stops
/// with [`Error::Precision`] ("time limit reached") instead of running on.
pub fn with_time_limit<T>(seconds: Option<f64>, f: impl FnOnce() -> T) -> T {
    crate::numeric::deadline::with_limit(seconds, f)
}
pub mod compose;
#[cfg(feature = "cli")]
pub mod file;
pub use calibrate::{
    calibrate_batch_size, calibrate_sigma, calibrate_steps, BatchCalibration, Relation,
    SigmaCalibration, Target,
};
pub use compose::{
    composed_rdp, delta_for_eps, eps_for_delta, rdp_route, Bracket, ComposeOptions, Composed,
    RdpRoute, Release, Schedule,
};

use crate::bounds::conversion::{convert_mp, optimize_over_alpha, Conversion};
use crate::bounds::gaussian::dp_eps_mp;
use crate::error::{Error, Result};
use crate::numeric::mp::{certify, log_ndtr, log_norm_pdf, Certified};
use crate::numeric::quad::{tanh_sinh_split, FnIntegrand, Point, QuadOptions};
use crate::scalar::Scalar;
use rug::ops::Pow;
use rug::Float;

/// Which order of the pair a divergence is taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// D(P‖Q): the dataset with the extra record (mixture) against the one without.
    Remove,
    /// D(Q‖P): the reverse order.
    Add,
}

/// Largest integer α for which the binomial closed form is used (above it, quadrature).
pub(crate) const MAX_BINOMIAL_ALPHA: u32 = 4096;

/// The Poisson-subsampled Gaussian mechanism with sampling rate q ∈ (0, 1] and noise multiplier
/// σ > 0 (sensitivity 1): one type with the law of `crate::mechanisms::subsampled`, which validates
/// q and σ once.
pub use crate::mechanisms::subsampled::SubsampledGaussian;

fn is_full_batch(m: &SubsampledGaussian, prec: u32) -> bool {
    m.q().mp(prec) == 1
}

fn check_alpha(alpha: &Scalar) -> Result<()> {
    let a = alpha.f64();
    if !(a.is_finite() && a > 1.0) {
        return Err(Error::invalid("alpha", a, "finite and > 1"));
    }
    if alpha.mp(256) <= 1 {
        return Err(Error::invalid("alpha", a, "finite and > 1"));
    }
    Ok(())
}

/// Integer-α closed form (remove order): E_Q[r^n] − 1 at `prec` bits (Mironov, Talwar & Zhang
/// 2019, §3.3). Exact sum of positive terms.
pub(crate) fn excess_moment_binomial(m: &SubsampledGaussian, n: u32, prec: u32) -> Float {
    let wp = prec + 32;
    let q = m.q().mp(wp);
    let one_m_q = Float::with_val(wp, 1u32 - &q);
    let s2 = Float::with_val(wp, m.sigma().mp(wp).square_ref()) * 2u32;
    let mut acc = Float::new(wp);
    // C(n, k), updated by C(n, k) = C(n, k−1)(n − k + 1)/k from C(n, 1) = n.
    let mut c = Float::with_val(wp, n);
    for k in 2..=n {
        c *= n - k + 1;
        c /= k;
        let e = Float::with_val(wp, u64::from(k) * u64::from(k - 1)) / &s2;
        let e = e.exp_m1();
        let w = Float::with_val(wp, (&one_m_q).pow(n - k)) * Float::with_val(wp, (&q).pow(k));
        acc += Float::with_val(wp, &c * &w) * e;
    }
    Float::with_val(prec, acc)
}

/// h_β(u) = (1+u)^β − 1 − βu at `wp` bits, with its relative rounding-error factor (units of
/// 2^-wp). A power series for |u| < 2^-8, the direct form otherwise.
fn h_beta(beta: &Float, u: &Float, wp: u32) -> (Float, f64) {
    if u.is_zero() {
        return (Float::new(wp), 0.0);
    }
    if u.clone().abs() < Float::with_val(wp, Float::i_exp(1, -8)) {
        // Σ_{j≥2} C(β,j) u^j; terms shrink at least like 2^-8 per step once j > |β| + 1.
        let mut coef = Float::with_val(wp, beta * Float::with_val(wp, beta - 1u32)) / 2u32;
        let mut upow = Float::with_val(wp, u.square_ref());
        let mut sum = Float::new(wp);
        let mut absum = 0.0f64;
        let tiny = Float::with_val(wp, Float::i_exp(1, -(wp as i32) - 8));
        let mut j = 2u32;
        loop {
            let term = Float::with_val(wp, &coef * &upow);
            absum += term.to_f64().abs();
            sum += &term;
            let small = Float::with_val(wp, term.abs_ref())
                <= Float::with_val(wp, &tiny * Float::with_val(wp, sum.abs_ref()));
            if (small && f64::from(j) > beta.to_f64().abs() + 2.0) || coef.is_zero() {
                break;
            }
            // C(β, j+1) = C(β, j)(β − j)/(j + 1)
            coef *= Float::with_val(wp, beta - j);
            coef /= j + 1;
            upow *= u;
            j += 1;
            if j > 100_000 {
                break;
            }
        }
        let rel = if sum.is_zero() {
            0.0
        } else {
            absum / sum.to_f64().abs() * f64::from(j)
        };
        return (sum, rel);
    }
    let one_u = Float::with_val(wp, 1u32 + u);
    let p = Float::with_val(wp, (&one_u).pow(beta));
    let bu = Float::with_val(wp, beta * u);
    let v = Float::with_val(wp, &p - 1u32) - &bu;
    let mag = p.to_f64().abs() + 1.0 + bu.to_f64().abs();
    let rel = if v.is_zero() {
        0.0
    } else {
        4.0 * mag / v.to_f64().abs()
    };
    (v, rel)
}

/// ln of an upper bound on the integrand mass outside [a, b] (`docs/accounting.md#quadrature-tails`).
fn ln_tail_bound(m: &SubsampledGaussian, beta: &Float, a: f64, b: f64, prec: u32) -> f64 {
    let q = m.q().f64();
    let s = m.sigma().f64();
    let bf = beta.to_f64();
    let ln_phi = |z: f64| log_ndtr(&Float::with_val(prec.min(128), z)).to_f64();
    // Left of a ≤ 0 (< 1/2): u = r − 1 ∈ [−q, 0], h_β(u) ≤ (1−q)^β + 1 + |β|q.
    let left_c = if bf > 0.0 {
        2.0 + bf * q
    } else {
        (1.0 - q).powf(bf) + 1.0 + bf.abs() * q
    };
    let left = left_c.ln() + ln_phi(a / s);
    // Right of b ≥ 1: u > 0.
    let right = if bf > 0.0 {
        // h_β(u) ≤ (1+u)^n, n = ⌈β⌉, and ∫_b^∞ φ_σ r^n ≤ E_Q[r^n] Φ̄((b − n)/σ).
        let n = bf.ceil() as u32;
        let en = if n >= 2 {
            let ex = excess_moment_binomial(m, n, 64);
            Float::with_val(64, ex.ln_1p_ref()).to_f64()
        } else {
            0.0
        };
        en + ln_phi(-(b - f64::from(n)) / s)
    } else {
        // h_β(u) ≤ 1 + |β|u ≤ 1 + |β| q e^t, and φ_σ(x) e^{t(x)} = φ_σ(x − 1).
        let l1 = ln_phi(-b / s);
        let l2 = (bf.abs() * q).ln() + ln_phi(-(b - 1.0) / s);
        l1.max(l2) + std::f64::consts::LN_2
    };
    left.max(right) + std::f64::consts::LN_2
}

/// E_Q[r^β] − 1 by certified quadrature at `prec` bits, for β = α (remove) or 1 − α (add).
/// Returns (value, ln of its absolute error bound including the dropped tails).
pub(crate) fn excess_moment_quad(
    m: &SubsampledGaussian,
    beta: &Float,
    digits: u32,
    prec: u32,
) -> Result<(Float, f64)> {
    let s = m.sigma().f64();
    let bf = beta.to_f64();
    let wp = prec + 64;
    let q = m.q().mp(wp);
    let sigma = m.sigma().mp(wp);
    let ln_sigma = Float::with_val(wp, sigma.ln_ref());
    let two_s2 = Float::with_val(wp, sigma.square_ref()) * 2u32;
    let beta_w = Float::with_val(wp, beta);
    let mut width = (2.0 * (f64::from(digits) + 20.0) * std::f64::consts::LN_10).sqrt();
    for _ in 0..8 {
        let a = -width * s;
        let b = bf.abs().ceil().max(1.0) + width * s;
        let ln_tail = ln_tail_bound(m, beta, a, b, prec);
        let mut pts: Vec<Float> = Vec::new();
        let npieces = 24;
        for i in 0..=npieces {
            pts.push(Float::with_val(
                wp,
                a + (b - a) * f64::from(i) / f64::from(npieces),
            ));
        }
        pts.push(Float::with_val(wp, 0.5));
        pts.sort_by(|x, y| x.partial_cmp(y).unwrap_or(std::cmp::Ordering::Equal));
        pts.dedup();
        let mut f = FnIntegrand(|x: &Float, pt: &mut Point| {
            let t = Float::with_val(wp, Float::with_val(wp, x * 2u32) - 1u32) / &two_s2;
            let u = Float::with_val(wp, &q * Float::with_val(wp, t.exp_m1_ref()));
            let (h, rel) = h_beta(&beta_w, &u, wp);
            let z = Float::with_val(wp, x / &sigma);
            let lp = Float::with_val(wp, log_norm_pdf(&z) - &ln_sigma);
            if h <= 0 {
                pt.log_env = Float::with_val(wp, f64::NEG_INFINITY);
                pt.mag = 0.0;
            } else {
                pt.log_env = lp + Float::with_val(wp, h.ln_ref());
                pt.mag = rel;
            }
            pt.has_factor = false;
        });
        let opts = QuadOptions::new(wp, f64::from(digits) + 4.0);
        let r = tanh_sinh_split(&mut f, &pts, &opts)?;
        let val = r.value();
        let ln_val = r.log_abs.to_f64();
        if ln_tail <= ln_val - (f64::from(digits) + 4.0) * std::f64::consts::LN_10 {
            let err = crate::numeric::quad::ln_add(r.log_abs_err, ln_tail);
            return Ok((Float::with_val(prec, val), err));
        }
        width *= 1.5;
    }
    Err(Error::Precision {
        narrowest: None,
        requested: digits,
        certified: 0,
        what: "subsampled Gaussian moment: tail bound not small enough".into(),
    })
}

/// Checks α; then the integer α (≤ [`MAX_BINOMIAL_ALPHA`], remove order) for which [`renyi`]
/// uses the binomial closed form, or None.
fn binomial_alpha(alpha: &Scalar, order: Order) -> Result<Option<u32>> {
    check_alpha(alpha)?;
    let a = alpha.mp(512);
    let int_alpha = a.is_integer() && a <= MAX_BINOMIAL_ALPHA;
    Ok((order == Order::Remove && int_alpha).then(|| a.to_f64() as u32))
}

/// Certified single-step Rényi divergence D_α of the subsampled Gaussian in the given order, to
/// `digits` significant digits. Integer α ≤ `MAX_BINOMIAL_ALPHA` in the remove order uses the
/// binomial closed form; everything else certified quadrature.
pub fn renyi(
    m: &SubsampledGaussian,
    alpha: &Scalar,
    order: Order,
    digits: u32,
) -> Result<Certified> {
    if let Some(n) = binomial_alpha(alpha, order)? {
        return certify(digits, "subsampled Gaussian RDP (binomial)", |p| {
            let ex = excess_moment_binomial(m, n, p + 16);
            Ok(Float::with_val(p, ex.ln_1p() / (n - 1)))
        });
    }
    renyi_quad(m, alpha, order, digits)
}

/// [`renyi`] by quadrature in every case (also used to cross-check the closed form).
pub fn renyi_quad(
    m: &SubsampledGaussian,
    alpha: &Scalar,
    order: Order,
    digits: u32,
) -> Result<Certified> {
    check_alpha(alpha)?;
    certify(digits, "subsampled Gaussian RDP (quadrature)", |p| {
        let wp = p + 16;
        let a = alpha.mp(wp);
        let beta = match order {
            Order::Remove => a.clone(),
            Order::Add => Float::with_val(wp, 1u32 - &a),
        };
        let (ex, ln_err) = excess_moment_quad(m, &beta, digits, wp)?;
        let ln_ex = Float::with_val(64, ex.ln_ref()).to_f64();
        let budget = ln_ex - f64::from(digits) * std::f64::consts::LN_10;
        if ln_err.is_nan() || ln_err > budget {
            return Err(Error::Precision {
                narrowest: None,
                requested: digits,
                certified: ((ln_ex - ln_err) / std::f64::consts::LN_10).max(0.0) as u32,
                what: "subsampled Gaussian RDP (quadrature error bound)".into(),
            });
        }
        let am1 = Float::with_val(wp, &a - 1u32);
        Ok(Float::with_val(p, ex.ln_1p() / am1))
    })
}

/// The mechanism's RDP at α: the larger of the two orders (certified).
pub(crate) fn rdp(m: &SubsampledGaussian, alpha: &Scalar, digits: u32) -> Result<Certified> {
    let r = renyi(m, alpha, Order::Remove, digits)?;
    if is_full_batch(m, 64) {
        return Ok(r);
    }
    let s = renyi(m, alpha, Order::Add, digits)?;
    Ok(if s.value > r.value { s } else { r })
}

/// Exact ε(δ) of T full-batch (q = 1) steps: the Gaussian mechanism with μ = √T/σ
/// (Balle & Wang 2018, Thm 8), certified to `digits`.
pub fn full_batch_eps(
    sigma: &Scalar,
    steps: u64,
    delta: &Scalar,
    digits: u32,
) -> Result<Certified> {
    let sf = sigma.f64();
    if !(sf.is_finite() && sf > 0.0) {
        return Err(Error::invalid("sigma", sf, "finite and > 0"));
    }
    if steps == 0 {
        return Err(Error::invalid("steps", steps, ">= 1"));
    }
    crate::error::check_open_unit("delta", delta.f64())?;
    certify(
        digits,
        "full-batch composition (Gaussian, mu = sqrt(T)/sigma)",
        |p| {
            let wp = p + 16;
            let mu = Float::with_val(wp, Float::with_val(wp, steps).sqrt() / sigma.mp(wp));
            Ok(Float::with_val(p, dp_eps_mp(&mu, &delta.mp(wp))?))
        },
    )
}

/// The α grid that Opacus (1.6) uses by default: 1.1, 1.2, …, 10.9, then 12, …, 63.
pub fn opacus_default_orders() -> Vec<Scalar> {
    let mut v: Vec<Scalar> = (1..100)
        .map(|x| format!("{}", 1.0 + f64::from(x) / 10.0))
        .map(|t| t.parse::<Scalar>().expect("decimal literal"))
        .collect();
    v.extend((12..64).map(|x| Scalar::from(f64::from(x))));
    v
}

/// Result of the RDP route.
#[derive(Clone, Debug)]
pub struct RdpEps {
    /// The ε of the best order.
    pub eps: Certified,
    /// The order that achieved it.
    pub alpha: Scalar,
}

/// ε of the T-fold composition at one order α: the conversion of T·RDP(α), certified to `digits`.
pub(crate) fn eps_at_order(
    m: &SubsampledGaussian,
    steps: u64,
    delta: &Scalar,
    alpha: &Scalar,
    conversion: Conversion,
    digits: u32,
) -> Result<Certified> {
    let r = rdp(m, alpha, digits + 4)?;
    certify(digits, "RDP conversion", |p| {
        let wp = p + 16;
        let comp = Float::with_val(wp, &r.value * steps);
        let v = convert_mp(conversion, &comp, &alpha.mp(wp), &delta.mp(wp))?;
        Ok(Float::with_val(p, v))
    })
}

/// RDP route optimised over continuous α ∈ [alpha_lo, alpha_hi]
/// ([`crate::bounds::conversion::optimize_over_alpha`]). Whatever the optimiser's accuracy, the
/// returned ε is the certified conversion at the returned α, hence a valid guarantee.
pub fn rdp_eps_optimal(
    m: &SubsampledGaussian,
    steps: u64,
    delta: &Scalar,
    alpha_range: (f64, f64),
    conversion: Conversion,
    digits: u32,
) -> Result<RdpEps> {
    if steps == 0 {
        return Err(Error::invalid("steps", steps, ">= 1"));
    }
    let (lo, hi) = (
        Float::with_val(64, alpha_range.0),
        Float::with_val(64, alpha_range.1),
    );
    let (_, a) = optimize_over_alpha(
        |a: &Float| {
            let r = rdp(m, &Scalar::from_float(a), digits.min(12))?;
            Ok(Float::with_val(64, &r.value * steps))
        },
        &lo,
        &hi,
        &delta.mp(64),
        conversion,
    )?;
    let alpha = Scalar::from_float(&a);
    let eps = eps_at_order(m, steps, delta, &alpha, conversion, digits)?;
    Ok(RdpEps { eps, alpha })
}

/// RDP route for T steps at δ, minimised over the user grid `orders`, with the chosen
/// conversion. Each per-order value is certified to `digits` digits.
pub fn rdp_eps_for_delta(
    m: &SubsampledGaussian,
    steps: u64,
    delta: &Scalar,
    orders: &[Scalar],
    conversion: Conversion,
    digits: u32,
) -> Result<RdpEps> {
    if steps == 0 {
        return Err(Error::invalid("steps", steps, ">= 1"));
    }
    if orders.is_empty() {
        return Err(Error::invalid(
            "orders",
            "[]",
            "a non-empty list of alpha > 1",
        ));
    }
    let mut best: Option<RdpEps> = None;
    for a in orders {
        let e = eps_at_order(m, steps, delta, a, conversion, digits)?;
        if best.as_ref().is_none_or(|b| e.value < b.eps.value) {
            best = Some(RdpEps {
                eps: e,
                alpha: a.clone(),
            });
        }
    }
    best.ok_or_else(|| Error::invalid("orders", "[]", "non-empty"))
}
