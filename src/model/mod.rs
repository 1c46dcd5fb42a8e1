//! Mechanism models: the one place a family of mechanisms is described.
//!
//! A *model* is everything dpaudit knows about one law: its validated parameters (as exact
//! [`Scalar`]s), its log-density at any precision, the points where that density is not smooth,
//! its closed forms where it has them, and its seeded sampler. Every other layer consumes a model
//! through the traits of this module:
//!
//! * the quadrature route of [`crate::divergence`] integrates any [`PairModel`] generically
//!   (Rényi, KL, hockey-stick) and any [`LocationModel`] (Fisher information);
//! * the closed-form route calls the model's `*_at` methods, certified by the precision ladder
//!   of [`crate::numeric::mp::certify`];
//! * the audit engine samples the model and uses its log-likelihood ratio as the white-box
//!   statistic ([`crate::audit::mechanisms::ModelMechanism`]);
//! * `dpaudit eval` and the audit specs parse their parameters into the same model through
//!   the family's [`ModelFamily`] entry in [`FAMILIES`].
//!
//! Adding a mechanism is one file that implements [`PairModel`] (and [`LocationModel`] if the
//! Fisher information about its location is wanted) and defines its [`ModelFamily`] constant,
//! plus one line in [`FAMILIES`]. The Laplace mechanism ([`crate::dist::laplace`]) is the first
//! family added this way; the Gaussian-family laws that predate this module keep their
//! specialised quadrature (log-quadratic integrands, atoms of the rectified law, χ² profiles in
//! ℝ^d), which the generic route does not replace.

use crate::dist::stream::StreamRng;
use crate::error::{Error, Result};
use crate::scalar::Scalar;
use rug::Float;
use std::fmt;
use std::sync::Arc;

/// Which of the two output distributions of a neighbouring pair: P1 (first input) or P2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Which {
    /// The law on the first input.
    P1,
    /// The law on the neighbouring input.
    P2,
}

/// Looks up a parameter by its vocabulary name (`mu1`, `scale`, …) as an exact [`Scalar`]; the
/// callers (`dpaudit eval`, the audit specs) turn a missing or malformed value into an error that
/// names the key.
pub type ParamLookup<'a> = &'a dyn Fn(&str) -> Result<Scalar>;

/// The two output laws of a mechanism on neighbouring inputs, as one model.
///
/// Divergences are D(P1 ‖ P2). Densities are with respect to Lebesgue measure; a model whose laws
/// have atoms is not (yet) supported by the generic quadrature route.
pub trait PairModel: Send + Sync + fmt::Debug {
    /// The family entry (name, vocabulary, constructors).
    fn family(&self) -> &'static ModelFamily;
    /// The parameters in vocabulary order, for messages and reports.
    fn params(&self) -> Vec<(&'static str, Scalar)>;
    /// The pair with P1 and P2 exchanged.
    fn swapped(&self) -> Arc<dyn PairModel>;
    /// Whether P1 = P2 (every divergence is then exactly 0).
    fn identical(&self) -> bool;

    /// log p_i(x) at the precision of `x`, from the exact parameters.
    fn ln_pdf_mp(&self, which: Which, x: &Float) -> Float;
    /// Points, increasing, that split the real line into pieces on which both log-densities are
    /// analytic (kinks, support ends) at `prec` bits.
    fn breakpoints(&self, prec: u32) -> Vec<Float>;
    /// The points where ln p1(x) − ln p2(x) = `c`, increasing, at the precision of `c` (the edges
    /// of the hockey-stick region {p1 > e^c p2}).
    fn llr_level(&self, c: &Float) -> Vec<Float>;
    /// A length on which the densities decay by about one nat far out (the tail substitution
    /// x = x0 ± s·t/(1−t) uses it).
    fn tail_scale(&self) -> f64;

    /// Closed-form D_α(P1 ‖ P2) at `p` bits ([`Error::Unsupported`] if the family has none).
    fn renyi_at(&self, _alpha: &Float, _p: u32) -> Result<Float> {
        Err(self.no_closed_form("renyi"))
    }
    /// Closed-form KL(P1 ‖ P2) at `p` bits.
    fn kl_at(&self, _p: u32) -> Result<Float> {
        Err(self.no_closed_form("kl"))
    }
    /// Closed-form δ(ε) = ∫ (p1 − e^ε p2)_+ at `p` bits.
    fn hockey_at(&self, _eps: &Float, _p: u32) -> Result<Float> {
        Err(self.no_closed_form("hockey_stick_delta"))
    }

    /// Fills `out` with independent draws from P1 or P2 (f64 parameters).
    fn sample_many(&self, which: Which, rng: &mut StreamRng, out: &mut [f64]);
    /// ln p1(x) − ln p2(x) in f64 (the white-box audit statistic).
    fn llr(&self, x: f64) -> f64;
    /// Closed hull of the support of both laws (either end may be infinite).
    fn support(&self) -> (f64, f64);
    /// The range of [`PairModel::llr`] over the support.
    fn llr_range(&self) -> (f64, f64);

    /// The error for a quantity this family has no closed form of.
    fn no_closed_form(&self, quantity: &str) -> Error {
        Error::Unsupported(format!(
            "{quantity} closed form: family {} has none; use --method quadrature",
            self.family().name
        ))
    }
}

/// A single law of a location family, for the Fisher information about its location.
pub trait LocationModel: Send + Sync + fmt::Debug {
    /// The family entry.
    fn family(&self) -> &'static ModelFamily;
    /// The parameters in vocabulary order.
    fn params(&self) -> Vec<(&'static str, Scalar)>;
    /// log p(x) at the precision of `x`.
    fn ln_pdf_mp(&self, x: &Float) -> Float;
    /// The squared score (∂/∂μ log p(x))² at the precision of `x`.
    fn score_sq_mp(&self, x: &Float) -> Float;
    /// Points splitting the line into pieces where the integrand is analytic.
    fn breakpoints(&self, prec: u32) -> Vec<Float>;
    /// Decay length of the tails.
    fn tail_scale(&self) -> f64;
    /// Closed-form Fisher information at `p` bits.
    fn fisher_at(&self, _p: u32) -> Result<Float> {
        Err(Error::Unsupported(format!(
            "fisher closed form: family {} has none; use --method quadrature",
            self.family().name
        )))
    }
}

/// Builds and validates a single law of a family, for `fisher`.
pub type LocationBuilder = fn(ParamLookup<'_>) -> Result<Arc<dyn LocationModel>>;

/// A family's entry in the registry: its vocabulary and its constructors.
pub struct ModelFamily {
    /// The family name in `dpaudit eval` rows and in audit specs.
    pub name: &'static str,
    /// Parameter keys of a pair (`eval` rows), in vocabulary order.
    pub pair_keys: &'static [&'static str],
    /// Of those, the keys that describe the neighbouring inputs (the `[pair]` table of an audit
    /// spec); the others belong to `[mechanism]`.
    pub input_keys: &'static [&'static str],
    /// Parameter keys of a single law for `fisher` (empty: no Fisher information).
    pub location_keys: &'static [&'static str],
    /// Builds and validates a pair.
    pub pair: fn(ParamLookup<'_>) -> Result<Arc<dyn PairModel>>,
    /// Builds and validates a single law, for `fisher`.
    pub location: Option<LocationBuilder>,
    /// The published privacy guarantee for an audit: ε at `delta`.
    pub claim: fn(&dyn PairModel, f64) -> Result<f64>,
    /// Where that guarantee comes from (for reports).
    pub claim_source: &'static str,
}

impl fmt::Debug for ModelFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ModelFamily({})", self.name)
    }
}

impl PartialEq for ModelFamily {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Every family described by a model. Adding a family is one line here.
pub static FAMILIES: &[&ModelFamily] = &[
    &crate::dist::laplace::FAMILY,
    &crate::dist::subsampled::FAMILY,
    &crate::dist::subsampled::FAMILY_ADD,
    &crate::dist::subsampled::FAMILY_SUBST,
];

/// The registered family called `name`.
pub fn family(name: &str) -> Option<&'static ModelFamily> {
    FAMILIES.iter().copied().find(|f| f.name == name)
}

/// Formats `name(k1=v1, k2=v2, …)`, the vocabulary form used in every user-facing message.
pub fn describe(name: &str, params: &[(&str, Scalar)]) -> String {
    let inner: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{name}({})", inner.join(", "))
}

/// `Display` of a by-name enum: its `name()`.
macro_rules! display_by_name {
    ($t:ty) => {
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
pub(crate) use display_by_name;

/// The element of `all` named `s` (the lookup of a by-name enum's `FromStr`).
pub(crate) fn by_name<T: Copy>(all: &[T], name: impl Fn(T) -> &'static str, s: &str) -> Option<T> {
    all.iter().copied().find(|&x| name(x) == s)
}

/// Debug and Display (`family(k=v, …)` by [`describe`]) and equality (same family, same
/// parameters) of a model handle (a tuple struct around an `Arc` of a model).
macro_rules! model_handle_impls {
    ($handle:ident) => {
        impl fmt::Debug for $handle {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }

        impl fmt::Display for $handle {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&describe(self.0.family().name, &self.0.params()))
            }
        }

        impl PartialEq for $handle {
            fn eq(&self, other: &Self) -> bool {
                self.0.family() == other.0.family() && self.0.params() == other.0.params()
            }
        }
    };
}

/// A [`PairModel`] behind a shared pointer, comparable and printable, as held by
/// [`crate::divergence::Pair::Model`].
#[derive(Clone)]
pub struct ModelPair(pub Arc<dyn PairModel>);

model_handle_impls!(ModelPair);

/// A [`LocationModel`] behind a shared pointer, as held by [`crate::divergence::Location::Model`].
#[derive(Clone)]
pub struct ModelLocation(pub Arc<dyn LocationModel>);

model_handle_impls!(ModelLocation);

/// A mechanism family by name: the Gaussian-family laws with their specialised routes, or a
/// family of the [`FAMILIES`] registry. Parsing and printing use the `dpaudit eval` names.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Family {
    /// `gaussian`: N(μ, σ²).
    Gaussian,
    /// `gaussian_dd`: N(m, σ² I_d).
    GaussianDd,
    /// `rgm`: the Relative Gaussian Mechanism (HMB Def. 3).
    Rgm,
    /// `rectified`: clip(N(μ, σ²), a, b) (HG Def. 3.1).
    Rectified,
    /// `truncated`: N(μ, σ²) conditioned on [a, b] (HG Def. 3.2).
    Truncated,
    /// `stochastic_sign`: sign(μ + N(0, σ²)).
    StochasticSign,
    /// A registered model family (e.g. `laplace`).
    Model(&'static ModelFamily),
}

impl Family {
    /// The Gaussian-family laws, in vocabulary order.
    pub const BUILTIN: [Family; 6] = [
        Family::Gaussian,
        Family::GaussianDd,
        Family::Rgm,
        Family::Rectified,
        Family::Truncated,
        Family::StochasticSign,
    ];

    /// The `dpaudit eval` name.
    pub fn name(self) -> &'static str {
        match self {
            Family::Gaussian => "gaussian",
            Family::GaussianDd => "gaussian_dd",
            Family::Rgm => "rgm",
            Family::Rectified => "rectified",
            Family::Truncated => "truncated",
            Family::StochasticSign => "stochastic_sign",
            Family::Model(f) => f.name,
        }
    }
}

display_by_name!(Family);

impl std::str::FromStr for Family {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        by_name(&Family::BUILTIN, Family::name, s)
            .or_else(|| family(s).map(Family::Model))
            .ok_or_else(|| Error::Unsupported(format!("unknown family {s:?}")))
    }
}
