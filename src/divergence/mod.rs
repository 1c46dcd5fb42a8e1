//! Divergences and information between the output distributions of a mechanism on two
//! neighbouring inputs: Rényi D_α, KL, the hockey-stick divergence δ(ε) (privacy profile) and its
//! inverse ε(δ), and the Fisher information about the location.
//!
//! Two independent routes compute every quantity: `closed` evaluates the closed forms of
//! docs/formulas.md (HG Lemmas 4.1/4.4/4.7, HMB Lemma 2 eq. (13), Balle–Wang Thm 8) in log space on a
//! precision ladder; `quadrature` integrates the defining integrals with arbitrary-precision
//! tanh–sinh. Both return a [`Certified`] value. The pair and location types here are the common
//! vocabulary of both routes and of `dpaudit eval`.

pub(crate) mod closed;
pub(crate) mod profile_dd;
pub(crate) mod quadrature;
mod worst_case;

use crate::error::{check_finite, check_positive, Error, Result};
use crate::model::{describe, ModelLocation, ModelPair};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rug::ops::Pow;

pub use worst_case::{rgm_worst_case_dp_eps, rgm_worst_case_renyi, RgmWorstCase};

/// Validates a parameter given as a [`Scalar`]: finite.
fn finite(name: &str, x: &Scalar) -> Result<()> {
    check_finite(name, x.f64()).map(|_| ())
}

/// Validates a parameter given as a [`Scalar`]: finite and > 0.
fn positive(name: &str, x: &Scalar) -> Result<()> {
    check_positive(name, x.f64()).map(|_| ())
}

fn interval(a: &Scalar, b: &Scalar) -> Result<()> {
    finite("a", a)?;
    finite("b", b)?;
    if a.mp(256) < b.mp(256) {
        Ok(())
    } else {
        Err(Error::invalid("a", a, &format!("< b = {b}")))
    }
}

/// The two output distributions P1 (first input) and P2 (neighbour) of a mechanism. Every
/// divergence is D(P1 ‖ P2).
#[derive(Clone, Debug, PartialEq)]
pub enum Pair {
    /// N(μ1, σ²) vs N(μ2, σ²).
    Gaussian {
        /// Location under P1.
        mu1: Scalar,
        /// Location under P2.
        mu2: Scalar,
        /// Noise standard deviation.
        sigma: Scalar,
    },
    /// N(μ1, σ1² I_d) vs N(μ2, σ2² I_d) with ‖μ1 − μ2‖ = `dist` (HMB Lemma 2).
    GaussianDd {
        /// ‖μ1 − μ2‖.
        dist: Scalar,
        /// Standard deviation under P1.
        sigma1: Scalar,
        /// Standard deviation under P2.
        sigma2: Scalar,
        /// Dimension.
        d: u32,
    },
    /// RGM outputs (HMB Def. 3): N(r1, (γ n1² + σ²) I_d) vs N(r2, (γ n2² + σ²) I_d), with
    /// n_i = ‖r_i‖ and ‖r1 − r2‖ = `dist`. Variance ratios are formed from the norms (docs/formulas.md §4).
    Rgm {
        /// Dimension.
        d: u32,
        /// Relative noise scale γ.
        gamma: Scalar,
        /// Baseline variance σ² (the eval key `sigma2`).
        sigma2: Scalar,
        /// ‖r1‖.
        n1: Scalar,
        /// ‖r2‖.
        n2: Scalar,
        /// ‖r1 − r2‖.
        dist: Scalar,
    },
    /// Rectified Gaussian clip(N(μ_i, σ²), a, b) (HG Def. 3.1).
    Rectified {
        /// Location under P1.
        mu1: Scalar,
        /// Location under P2.
        mu2: Scalar,
        /// Noise standard deviation.
        sigma: Scalar,
        /// Lower end of the support.
        a: Scalar,
        /// Upper end of the support.
        b: Scalar,
    },
    /// Truncated Gaussian N(μ_i, σ²) conditioned on [a, b] (HG Def. 3.2).
    Truncated {
        /// Location under P1.
        mu1: Scalar,
        /// Location under P2.
        mu2: Scalar,
        /// Noise standard deviation.
        sigma: Scalar,
        /// Lower end of the support.
        a: Scalar,
        /// Upper end of the support.
        b: Scalar,
    },
    /// Stochastic sign: sign(μ_i + N(0, σ²)) ∈ {−1, +1}.
    StochasticSign {
        /// Location under P1.
        mu1: Scalar,
        /// Location under P2.
        mu2: Scalar,
        /// Noise standard deviation.
        sigma: Scalar,
    },
    /// A family described by a [`crate::model::PairModel`] (e.g. Laplace): closed forms from the
    /// model, quadrature by the generic route.
    Model(ModelPair),
}

/// The validated constructor of a clipped family (rectified, truncated): σ > 0, a < b, all finite.
macro_rules! clipped_constructor {
    ($(#[$doc:meta])* $name:ident => $variant:ident) => {
        $(#[$doc])*
        pub fn $name(mu1: Scalar, mu2: Scalar, sigma: Scalar, a: Scalar, b: Scalar) -> Result<Self> {
            finite("mu1", &mu1)?;
            finite("mu2", &mu2)?;
            positive("sigma", &sigma)?;
            interval(&a, &b)?;
            Ok(Pair::$variant { mu1, mu2, sigma, a, b })
        }
    };
}

impl Pair {
    /// Gaussian pair, validated (σ > 0, finite locations).
    pub fn gaussian(mu1: Scalar, mu2: Scalar, sigma: Scalar) -> Result<Self> {
        finite("mu1", &mu1)?;
        finite("mu2", &mu2)?;
        positive("sigma", &sigma)?;
        Ok(Pair::Gaussian { mu1, mu2, sigma })
    }

    /// Isotropic d-dimensional Gaussian pair, validated (σ_i > 0, dist ≥ 0, d ≥ 1).
    pub fn gaussian_dd(dist: Scalar, sigma1: Scalar, sigma2: Scalar, d: u32) -> Result<Self> {
        finite("dist", &dist)?;
        if dist.f64() < 0.0 {
            return Err(Error::invalid("dist", &dist, ">= 0"));
        }
        positive("sigma1", &sigma1)?;
        positive("sigma2", &sigma2)?;
        if d == 0 {
            return Err(Error::invalid("d", d, "an integer >= 1"));
        }
        Ok(Pair::GaussianDd {
            dist,
            sigma1,
            sigma2,
            d,
        })
    }

    /// RGM pair, validated: γ ≥ 0, σ² ≥ 0 with both output variances γn_i² + σ² > 0 (σ² = 0 is
    /// the pure relative-noise RGM), norms ≥ 0, and the triangle inequalities
    /// |n1 − n2| ≤ dist ≤ n1 + n2 that any two vectors satisfy.
    pub fn rgm(
        d: u32,
        gamma: Scalar,
        sigma2: Scalar,
        n1: Scalar,
        n2: Scalar,
        dist: Scalar,
    ) -> Result<Self> {
        if d == 0 {
            return Err(Error::invalid("d", d, "an integer >= 1"));
        }
        for (name, v) in [("gamma", &gamma), ("n1", &n1), ("n2", &n2), ("dist", &dist)] {
            finite(name, v)?;
            if v.f64() < 0.0 {
                return Err(Error::invalid(name, v, ">= 0"));
            }
        }
        // σ² = 0 is the pure relative-noise RGM: valid whenever both output variances
        // γ n_i² + σ² are positive (a zero variance is a point mass, whose divergences from a
        // different law are infinite or undefined).
        finite("sigma2", &sigma2)?;
        if sigma2.f64() < 0.0 {
            return Err(Error::invalid("sigma2", &sigma2, ">= 0"));
        }
        for (name, n) in [("n1", &n1), ("n2", &n2)] {
            let v = rug::Float::with_val(512, gamma.mp(512) * n.mp(512).square()) + sigma2.mp(512);
            if v <= 0 {
                return Err(Error::invalid(
                    "sigma2",
                    &sigma2,
                    &format!(
                        "> 0 when gamma {name}^2 = 0 (the output variance gamma {name}^2 + sigma2 \
                         must be > 0; with gamma = {gamma}, {name} = {n} the output is a point \
                         mass)"
                    ),
                ));
            }
        }
        let p = 512;
        let (a, b, c) = (n1.mp(p), n2.mp(p), dist.mp(p));
        let lo = rug::Float::with_val(p, &a - &b).abs();
        let hi = rug::Float::with_val(p, &a + &b);
        // Decimal inputs are rounded to 512 bits: an equality such as dist = |n1 − n2| given in
        // decimals must not fail on that rounding (slack 2^-480 relative).
        let slack =
            rug::Float::with_val(p, &hi * rug::Float::with_val(p, rug::Float::i_exp(1, -480)));
        if c < rug::Float::with_val(p, &lo - &slack) || c > rug::Float::with_val(p, &hi + &slack) {
            return Err(Error::invalid(
                "dist",
                &dist,
                &format!(
                    "within [|n1 - n2|, n1 + n2] = [{}, {}] (no such vectors exist otherwise)",
                    lo.to_f64(),
                    hi.to_f64()
                ),
            ));
        }
        Ok(Pair::Rgm {
            d,
            gamma,
            sigma2,
            n1,
            n2,
            dist,
        })
    }

    clipped_constructor!(
        /// Rectified pair, validated (σ > 0, a < b, all finite).
        rectified => Rectified
    );
    clipped_constructor!(
        /// Truncated pair, validated (σ > 0, a < b, all finite).
        truncated => Truncated
    );

    /// Stochastic-sign pair, validated (σ > 0, finite locations).
    pub fn stochastic_sign(mu1: Scalar, mu2: Scalar, sigma: Scalar) -> Result<Self> {
        finite("mu1", &mu1)?;
        finite("mu2", &mu2)?;
        positive("sigma", &sigma)?;
        Ok(Pair::StochasticSign { mu1, mu2, sigma })
    }

    /// The pair with P1 and P2 swapped.
    pub fn swapped(&self) -> Self {
        let mut out = self.clone();
        match &mut out {
            Pair::Gaussian { mu1, mu2, .. }
            | Pair::Rectified { mu1, mu2, .. }
            | Pair::Truncated { mu1, mu2, .. }
            | Pair::StochasticSign { mu1, mu2, .. } => std::mem::swap(mu1, mu2),
            Pair::GaussianDd { sigma1, sigma2, .. } => std::mem::swap(sigma1, sigma2),
            Pair::Rgm { n1, n2, .. } => std::mem::swap(n1, n2),
            Pair::Model(m) => *m = ModelPair(m.0.swapped()),
        }
        out
    }

    /// (μ1, μ2, σ, a, b) of a [`Pair::Rectified`] or [`Pair::Truncated`] pair.
    pub(crate) fn clip_parts(&self) -> Option<[&Scalar; 5]> {
        match self {
            Pair::Rectified {
                mu1,
                mu2,
                sigma,
                a,
                b,
            }
            | Pair::Truncated {
                mu1,
                mu2,
                sigma,
                a,
                b,
            } => Some([mu1, mu2, sigma, a, b]),
            _ => None,
        }
    }

    /// (d, [γ, σ², n1, n2, dist]) of a [`Pair::Rgm`] pair.
    pub(crate) fn rgm_parts(&self) -> Option<(u32, [&Scalar; 5])> {
        match self {
            Pair::Rgm {
                d,
                gamma,
                sigma2,
                n1,
                n2,
                dist,
            } => Some((*d, [gamma, sigma2, n1, n2, dist])),
            _ => None,
        }
    }
}

/// A single distribution of a location family, for the Fisher information about its location.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// N(μ, σ²).
    Gaussian {
        /// Location.
        mu: Scalar,
        /// Standard deviation.
        sigma: Scalar,
    },
    /// clip(N(μ, σ²), a, b).
    Rectified {
        /// Location.
        mu: Scalar,
        /// Standard deviation.
        sigma: Scalar,
        /// Lower end.
        a: Scalar,
        /// Upper end.
        b: Scalar,
    },
    /// N(μ, σ²) conditioned on [a, b].
    Truncated {
        /// Location.
        mu: Scalar,
        /// Standard deviation.
        sigma: Scalar,
        /// Lower end.
        a: Scalar,
        /// Upper end.
        b: Scalar,
    },
    /// sign(μ + N(0, σ²)).
    StochasticSign {
        /// Location.
        mu: Scalar,
        /// Standard deviation.
        sigma: Scalar,
    },
    /// A family described by a [`crate::model::LocationModel`].
    Model(ModelLocation),
}

impl Location {
    /// Validated constructor shared by all families: `a`/`b` must be given for the bounded ones.
    pub fn new(
        family: &str,
        mu: Scalar,
        sigma: Scalar,
        support: Option<(Scalar, Scalar)>,
    ) -> Result<Self> {
        finite("mu", &mu)?;
        positive("sigma", &sigma)?;
        let need_support = |s: Option<(Scalar, Scalar)>| -> Result<(Scalar, Scalar)> {
            let (a, b) = s.ok_or_else(|| Error::MissingParameter {
                name: "a, b".into(),
                needed_by: format!("fisher for {family}"),
            })?;
            interval(&a, &b)?;
            Ok((a, b))
        };
        match family {
            "gaussian" => Ok(Location::Gaussian { mu, sigma }),
            "stochastic_sign" => Ok(Location::StochasticSign { mu, sigma }),
            "rectified" => {
                let (a, b) = need_support(support)?;
                Ok(Location::Rectified { mu, sigma, a, b })
            }
            "truncated" => {
                let (a, b) = need_support(support)?;
                Ok(Location::Truncated { mu, sigma, a, b })
            }
            other => Err(Error::Unsupported(format!(
                "no Fisher information for family {other}"
            ))),
        }
    }
}

/// Checks the Rényi order: finite and α > 1 (the orders RDP uses; α → 1 is `kl`).
pub fn check_alpha(alpha: &Scalar) -> Result<()> {
    let a = alpha.f64();
    if !a.is_finite() || alpha.mp(256) <= 1 {
        return Err(Error::invalid(
            "alpha",
            alpha,
            "finite and > 1 (use kl for the limit alpha -> 1)",
        ));
    }
    Ok(())
}

/// Shorthand re-export so callers need only this module.
pub type Value = Certified;

/// Which route computes a quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Method {
    /// The closed form where one exists, else quadrature.
    #[default]
    Auto,
    /// Numerical integration of the defining integral.
    Quadrature,
    /// The closed form (an error where none exists).
    ClosedForm,
}

impl std::str::FromStr for Method {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Method::Auto),
            "quadrature" => Ok(Method::Quadrature),
            "closed-form" | "closed_form" => Ok(Method::ClosedForm),
            other => Err(Error::invalid(
                "method",
                other,
                "one of auto, quadrature, closed-form",
            )),
        }
    }
}

/// Runs the closed form, or quadrature, per `method`; `auto` falls back to quadrature where no
/// closed form exists.
fn route<T>(
    method: Method,
    closed: impl FnOnce() -> Result<T>,
    quad: impl FnOnce() -> Result<T>,
) -> Result<T> {
    match method {
        Method::ClosedForm => closed(),
        Method::Quadrature => quad(),
        Method::Auto => match closed() {
            Err(Error::Unsupported(_)) | Err(Error::Precision { .. }) => quad(),
            other => other,
        },
    }
}

/// Rényi divergence D_α(P1 ‖ P2), certified to `digits`.
pub fn renyi(pair: &Pair, alpha: &Scalar, digits: u32, method: Method) -> Result<Certified> {
    check_alpha(alpha)?;
    route(
        method,
        || closed::renyi(pair, alpha, digits),
        || quadrature::renyi(pair, alpha, digits),
    )
}

/// KL(P1 ‖ P2), certified to `digits`.
pub fn kl(pair: &Pair, digits: u32, method: Method) -> Result<Certified> {
    route(
        method,
        || closed::kl(pair, digits),
        || quadrature::kl(pair, digits),
    )
}

/// Fisher information about the location, certified to `digits`.
pub fn fisher(loc: &Location, digits: u32, method: Method) -> Result<Certified> {
    route(
        method,
        || closed::fisher(loc, digits),
        || quadrature::fisher(loc, digits),
    )
}

/// Hockey-stick divergence δ(ε) = ∫(p1 − e^ε p2)_+ of the ordered pair, certified to `digits`.
pub fn hockey_stick(pair: &Pair, eps: &Scalar, digits: u32, method: Method) -> Result<Certified> {
    closed::check_eps(eps)?;
    route(
        method,
        || closed::hockey_stick(pair, eps, digits),
        || quadrature::hockey_stick(pair, eps, digits),
    )
}

/// The privacy profile's inverse: the smallest ε ≥ 0 with δ(ε) ≤ `delta` for the ordered pair,
/// certified to `digits` (root of the certified profile on a precision ladder).
pub fn eps_for_delta(
    pair: &Pair,
    delta: &Scalar,
    digits: u32,
    method: Method,
) -> Result<Certified> {
    crate::error::check_open_unit_shown("delta", delta.f64(), delta)?;
    route(
        method,
        || {
            crate::numeric::mp::certify(digits, "eps_for_delta (closed form)", |p| {
                let tol = rug::Float::with_val(p, rug::Float::i_exp(1, -(p as i32) + 4));
                invert_profile(&delta.mp(p), p, &tol, |e| {
                    closed::hockey_stick_at(pair, e, p)
                })
            })
        },
        || eps_for_delta_quadrature(pair, delta, digits),
    )
}

/// The privacy profile ε(δ) of the ordered pair at every δ of `deltas` (each the smallest ε ≥ 0
/// with δ(ε) ≤ δ, certified to `digits`, in the order of `deltas`), for the pairs without a closed
/// form for δ(ε): `gaussian_dd` and `rgm` in any d (docs/formulas.md §7.4, "Profiles"). Each point
/// is certified as [`eps_for_delta`] certifies it (a bracket of certified δ values); the points
/// share their root searches, so a whole curve costs a few certified points.
pub fn eps_profile(pair: &Pair, deltas: &[Scalar], digits: u32) -> Result<Vec<Certified>> {
    profile_dd::eps_profile(pair, deltas, digits)
}

/// ε(δ) by quadrature, certified by bracketing: the root ε̂ of the quadrature profile is found at
/// `digits + 4` digits, then δ is evaluated (certified) at ε̂(1 ∓ 10^-(digits+1)); since δ(ε) is
/// nonincreasing, δ(lo) > target ≥ δ(hi) (beyond their certified errors) puts the true ε in
/// (lo, hi], so ε̂ carries `digits` digits. One quadrature precision, no ladder.
fn eps_for_delta_quadrature(pair: &Pair, delta: &Scalar, digits: u32) -> Result<Certified> {
    use rug::Float;
    let inner = digits + 4;
    let p = crate::numeric::mp::bits_for_digits(inner) + 16;
    let target = delta.mp(p);
    let hs = |e: &Float| -> Result<Float> {
        quadrature::hockey_stick(pair, &Scalar::from_float(e), inner)
            .map(|c| Float::with_val(p, &c.value))
    };
    let rel = Float::with_val(p, Float::i_exp(1, 0)) / Float::with_val(p, 10u32).pow(inner);
    let fail = |why: &str| Error::Precision {
        requested: digits,
        certified: 0,
        what: format!("eps_for_delta (quadrature): {why}"),
    };
    // The profile values carry `inner` digits: locate the root to 10^-(digits+2), well inside
    // the bracket checked below.
    let tol = Float::with_val(p, 1u32) / Float::with_val(p, 10u32).pow(digits + 2);
    let root = invert_profile(&target, p, &tol, hs)?;
    if root.is_zero() {
        // δ(0) ≤ target must hold beyond the certified error of δ(0).
        let d0 = hs(&root)?;
        if Float::with_val(p, &d0 * (Float::with_val(p, 1u32) + &rel)) <= target {
            return Ok(Certified {
                value: root,
                digits,
            });
        }
        return Err(fail("delta(0) is within its error of the target"));
    }
    let h = Float::with_val(p, 1u32) / Float::with_val(p, 10u32).pow(digits + 1);
    let lo = Float::with_val(p, &root * (Float::with_val(p, 1u32) - &h));
    let hi = Float::with_val(p, &root * (Float::with_val(p, 1u32) + &h));
    let dlo = hs(&lo)?;
    let dhi = hs(&hi)?;
    let dlo_min = Float::with_val(p, &dlo * (Float::with_val(p, 1u32) - &rel));
    let dhi_max = Float::with_val(p, &dhi * (Float::with_val(p, 1u32) + &rel));
    if dlo_min > target && dhi_max <= target {
        Ok(Certified {
            value: root,
            digits,
        })
    } else {
        Err(fail("the profile is too flat to bracket the root"))
    }
}

/// Smallest ε ≥ 0 with f(ε) ≤ target for a nonincreasing profile f: bracket by doubling, then
/// Illinois regula falsi on log f − log target, with bisection where f vanishes; stops when the
/// bracket is below `rel_tol` relative (pass about the relative accuracy of f: iterating below it
/// only chases rounding noise). Errors if no ε ≤ 2^40 reaches the target.
pub fn invert_profile<F>(
    target: &rug::Float,
    p: u32,
    rel_tol: &rug::Float,
    mut f: F,
) -> Result<rug::Float>
where
    F: FnMut(&rug::Float) -> Result<rug::Float>,
{
    use rug::Float;
    let zero = Float::new(p);
    if f(&zero)? <= *target {
        return Ok(zero);
    }
    let ltarget = Float::with_val(p, target.ln_ref());
    let g = |v: Float| -> Float {
        if v.is_zero() || v.is_sign_negative() {
            Float::with_val(p, f64::NEG_INFINITY)
        } else {
            Float::with_val(p, v.ln() - &ltarget)
        }
    };
    let mut lo = Float::new(p);
    let mut glo = g(f(&lo)?);
    let mut hi = Float::with_val(p, 1u32);
    let mut ghi = g(f(&hi)?);
    while ghi > 0 {
        lo.clone_from(&hi);
        glo.clone_from(&ghi);
        hi *= 2u32;
        if hi > Float::with_val(p, Float::i_exp(1, 40)) {
            return Err(Error::Undefined(format!(
                "no eps <= 2^40 reaches delta = {}",
                target.to_f64()
            )));
        }
        ghi = g(f(&hi)?);
    }
    let tol = Float::with_val(p, rel_tol);
    let mut side = 0i32;
    for _ in 0..(8 * p) {
        let width = Float::with_val(p, &hi - &lo);
        if width <= Float::with_val(p, &hi * &tol) {
            break;
        }
        let mid = if ghi.is_finite() && glo.is_finite() && ghi < 0 {
            // regula falsi point, kept strictly inside the bracket
            let x = Float::with_val(
                p,
                &lo - Float::with_val(p, &glo * &width) / (Float::with_val(p, &ghi - &glo)),
            );
            let margin = Float::with_val(p, &width / 64u32);
            if x <= Float::with_val(p, &lo + &margin) || x >= Float::with_val(p, &hi - &margin) {
                Float::with_val(p, &lo + &hi) / 2u32
            } else {
                x
            }
        } else {
            Float::with_val(p, &lo + &hi) / 2u32
        };
        let gm = g(f(&mid)?);
        if gm.is_zero() {
            return Ok(mid);
        }
        if gm > 0 {
            lo = mid;
            glo = gm;
            if side == -1 {
                ghi /= 2u32;
            }
            side = -1;
        } else {
            hi = mid;
            ghi = gm;
            if side == 1 {
                glo /= 2u32;
            }
            side = 1;
        }
    }
    Ok(hi)
}

/// The pair in the `dpaudit eval` vocabulary, as every user-facing message prints it:
/// `truncated(mu1=100, mu2=7.3e17, sigma=1.773e10, a=-1e-320, b=-0)`.
impl std::fmt::Display for Pair {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let d = |d: &u32| Scalar::from(*d);
        let text = match self {
            Pair::Gaussian { mu1, mu2, sigma } => describe(
                "gaussian",
                &[
                    ("mu1", mu1.clone()),
                    ("mu2", mu2.clone()),
                    ("sigma", sigma.clone()),
                ],
            ),
            Pair::GaussianDd {
                dist,
                sigma1,
                sigma2,
                d: dim,
            } => describe(
                "gaussian_dd",
                &[
                    ("dist", dist.clone()),
                    ("sigma1", sigma1.clone()),
                    ("sigma2", sigma2.clone()),
                    ("d", d(dim)),
                ],
            ),
            Pair::Rgm { d: dim, .. } => {
                let (_, [gamma, sigma2, n1, n2, dist]) = self.rgm_parts().expect("an RGM pair");
                describe(
                    "rgm",
                    &[
                        ("d", d(dim)),
                        ("gamma", gamma.clone()),
                        ("sigma2", sigma2.clone()),
                        ("n1", n1.clone()),
                        ("n2", n2.clone()),
                        ("dist", dist.clone()),
                    ],
                )
            }
            Pair::Rectified { .. } | Pair::Truncated { .. } => {
                let [mu1, mu2, sigma, a, b] = self.clip_parts().expect("a clipped pair");
                describe(
                    if matches!(self, Pair::Rectified { .. }) {
                        "rectified"
                    } else {
                        "truncated"
                    },
                    &[
                        ("mu1", mu1.clone()),
                        ("mu2", mu2.clone()),
                        ("sigma", sigma.clone()),
                        ("a", a.clone()),
                        ("b", b.clone()),
                    ],
                )
            }
            Pair::StochasticSign { mu1, mu2, sigma } => describe(
                "stochastic_sign",
                &[
                    ("mu1", mu1.clone()),
                    ("mu2", mu2.clone()),
                    ("sigma", sigma.clone()),
                ],
            ),
            Pair::Model(m) => m.to_string(),
        };
        f.write_str(&text)
    }
}

/// The law in the `dpaudit eval` vocabulary of `fisher` rows: `rectified(mu=0, sigma=1, a=-1, b=1)`.
impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Location::Gaussian { mu, sigma } => {
                describe("gaussian", &[("mu", mu.clone()), ("sigma", sigma.clone())])
            }
            Location::StochasticSign { mu, sigma } => describe(
                "stochastic_sign",
                &[("mu", mu.clone()), ("sigma", sigma.clone())],
            ),
            Location::Rectified { mu, sigma, a, b } | Location::Truncated { mu, sigma, a, b } => {
                describe(
                    if matches!(self, Location::Rectified { .. }) {
                        "rectified"
                    } else {
                        "truncated"
                    },
                    &[
                        ("mu", mu.clone()),
                        ("sigma", sigma.clone()),
                        ("a", a.clone()),
                        ("b", b.clone()),
                    ],
                )
            }
            Location::Model(m) => m.to_string(),
        };
        f.write_str(&text)
    }
}
