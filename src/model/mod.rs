//! Mechanism models: the one place a family of mechanisms is described.
//!
//! A *model* is everything dpaudit knows about one law: its validated parameters (as exact
//! [`Scalar`]s), its closed forms, how its divergences are integrated, and its seeded sampler.
//! Every family — the Gaussian, `gaussian_dd`, RGM, rectified, truncated and stochastic-sign
//! pairs, Laplace, the subsampled Gaussian — is one model in its file of [`crate::mechanisms`], and
//! every other layer consumes it through the traits of this module:
//!
//! * [`Pair`] and [`Location`] are the handles every divergence of [`crate::divergence`] takes,
//!   printed in the `dpaudit eval` vocabulary;
//! * the closed-form route calls the model's `*_at` methods ([`PairModel::renyi_at`], …),
//!   certified by the precision ladder of `crate::numeric::mp::certify`;
//! * the quadrature route asks [`PairModel::integrals`]: a law with Lebesgue densities on the
//!   line ([`LinePair`]) is integrated generically from its log-densities; the Gaussian-family
//!   laws (atoms, a discrete law, ℝ^d) integrate themselves with the certified log-space kit of
//!   `logquad` and the normal-law pieces of `normal`;
//! * an isotropic Gaussian pair ([`NormalPair`]) gets HMB Lemma 2's closed forms and the χ²
//!   profile route of docs/formulas.md §7.4 from its variances;
//! * the audit route, for laws of any shape, is [`AuditDraws`] ([`PairModel::audit_draws`]):
//!   draw outputs from P1 or P2 and reduce each to its white-box (log-likelihood ratio) or
//!   black-box statistic; a pair on the line gets it from its [`LinePair`] sampler, the other
//!   families implement it in their file; the audit engine
//!   ([`crate::audit::mechanisms::for_pair`]) has no code of its own per family;
//! * `dpaudit eval`, the audit specs, the three-way comparison and training look families up
//!   in the registry ([`FAMILIES`], [`Family::by_name`]): vocabulary, constructors, and the
//!   privacy claim as data ([`Guarantee`] and its source), and the family's part in audit
//!   specs, the three-way comparison, the report's figures and `eval`'s paper quantities as data
//!   (`SpecForm`, `spec_form`).
//!
//! Adding a mechanism is one file in [`crate::mechanisms`] that implements [`PairModel`] (with
//! [`LinePair`] for densities on the line, or [`AuditDraws`] and its own integrals for other
//! shapes; [`LocationModel`] if the Fisher information about its location is wanted) and defines
//! its `FAMILY` entry, plus one line in [`FAMILIES`]. The Laplace mechanism
//! ([`crate::mechanisms::laplace`]) is the worked example; docs/architecture.md has the map.

pub(crate) mod logquad;
pub mod noise;
pub(crate) mod normal;
pub(crate) mod spec_form;

pub use noise::NoiseHooks;
pub use normal::{Gauss, NormalPair, Variances};
pub(crate) use spec_form::SpecForm;

use crate::error::{Error, Result};
use crate::mechanisms::stream::StreamRng;
use crate::scalar::Scalar;
use logquad::{Ctx, Val};
use rug::Float;
use std::any::Any;
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

impl Which {
    /// 0 for P1, 1 for P2 (the index of the side in a `[_; 2]` of per-side values).
    #[inline]
    pub fn index(self) -> usize {
        match self {
            Which::P1 => 0,
            Which::P2 => 1,
        }
    }
}

/// Which test statistic an audit thresholds (the white-box or the black-box view of an output).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
pub enum Statistic {
    /// The designed mechanism's exact log-likelihood ratio log(dP1/dP2)(y).
    #[default]
    White,
    /// A plain output statistic (the output itself in 1-D; a projection in ℝ^d).
    Black,
}

crate::error::named_enum!(Statistic, "statistic", {
    White => "white" | "white-box" | "llr",
    Black => "black" | "black-box" | "output",
});

/// The audit route of a pair, for laws of any shape (line, atoms, lattice, ℝ^d): draws outputs
/// from P1 or P2 and reduces each at once to its test statistic, so that the audit engine needs
/// no code of its own per family. A family returns one from [`PairModel::audit_draws`]; a pair
/// on the line ([`LinePair`]) gets one from its sampler and log-likelihood ratio.
///
/// Implementations must be deterministic functions of the generator's output (the engine's
/// reproducibility across thread counts rests on it), and must not allocate per output.
pub trait AuditDraws: Send + Sync {
    /// A short name with the parameters, for reports (e.g. `gaussian(sensitivity=1, sigma=5)`).
    fn name(&self) -> String;
    /// Fills `out` with the statistic `stat` of independent outputs drawn from `which`,
    /// consuming `rng` in a fixed order.
    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]);
    /// The range `(lo, hi)`, lo < hi, of the statistic that the audit's histogram should resolve
    /// (values outside fall in its under/overflow bins).
    fn statistic_range(&self, stat: Statistic) -> (f64, f64);
    /// The Gaussian-noise hook: `Some((c0, c1))` when the statistic of an output drawn from
    /// `which` is exactly c0 + c1·Z with Z one standard normal draw
    /// (`rand_distr::StandardNormal` on `rng`) per output, as [`AuditDraws::draw_statistics`]
    /// computes it; the engine then fuses drawing and binning. `None` (the default) otherwise.
    fn affine_normal(&self, _which: Which, _stat: Statistic) -> Option<(f64, f64)> {
        None
    }
}

/// The parts of a positive control (`crate::audit::controls`): a deliberately broken sampler of
/// a family's mechanism, and the correct pair and draws whose privacy it claims. A family's file
/// builds it; its registry entry lists it (`SpecForm::controls`).
pub struct BrokenDraws {
    /// The correct mechanism's pair: its claim is the control's claim.
    pub pair: Pair,
    /// The correct mechanism's own draws (the specification).
    pub correct: Arc<dyn AuditDraws>,
    /// The broken sampler, its outputs reduced to the correct design's statistic (the auditor
    /// knows the design, not the bug).
    pub broken: Arc<dyn AuditDraws>,
}

/// Half-width of an audit's statistic grid in noise standard deviations (tails beyond it fall in
/// the under/overflow bins, which the threshold search still uses).
pub(crate) const GRID_SIGMAS: f64 = 12.0;

/// A range with lo < hi: widens a degenerate one (e.g. a constant LLR) to ±1 around it.
pub(crate) fn proper_range(lo: f64, hi: f64) -> (f64, f64) {
    if hi > lo {
        (lo, hi)
    } else {
        (lo - 1.0, lo + 1.0)
    }
}

/// Decay lengths beyond the outermost breakpoints covered by the black-box histogram grid of a
/// pair on the line.
const GRID_SCALES: f64 = 40.0;

/// The audit route of a pair on the line: its [`LinePair`] sampler, and as statistics its
/// log-likelihood ratio (white box) or the output itself (black box).
struct LineDraws(Pair);

impl LineDraws {
    fn line(&self) -> &dyn LinePair {
        self.0
            .line()
            .expect("LineDraws is built for pairs on the line")
    }
}

impl AuditDraws for LineDraws {
    fn name(&self) -> String {
        self.0.to_string()
    }

    fn draw_statistics(&self, which: Which, stat: Statistic, rng: &mut StreamRng, out: &mut [f64]) {
        let line = self.line();
        line.sample_many(which, rng, out);
        if stat == Statistic::White {
            for o in out.iter_mut() {
                *o = line.llr(*o);
            }
        }
    }

    fn statistic_range(&self, stat: Statistic) -> (f64, f64) {
        let line = self.line();
        match stat {
            Statistic::White => {
                let (lo, hi) = line.llr_range();
                proper_range(lo, hi)
            }
            Statistic::Black => {
                let cuts = line.breakpoints(64);
                let w = GRID_SCALES * line.tail_scale();
                let first = cuts.first().map_or(0.0, |c| c.to_f64());
                let last = cuts.last().map_or(0.0, |c| c.to_f64());
                let (s0, s1) = line.support();
                proper_range((first - w).max(s0), (last + w).min(s1))
            }
        }
    }
}

/// Looks up a parameter by its vocabulary name (`mu1`, `scale`, …) as an exact [`Scalar`]; the
/// callers (`dpaudit eval`, the audit specs) turn a missing or malformed value into an error that
/// names the key.
pub(crate) type ParamLookup<'a> = &'a dyn Params;

/// Where a family's constructor reads its parameters from (a `dpaudit eval` row, an audit spec):
/// by vocabulary name, as exact [`Scalar`]s or as a dimension. A missing or malformed value is an
/// error that names the key.
pub trait Params {
    /// The parameter `key` as an exact decimal.
    fn scalar(&self, key: &str) -> Result<Scalar>;
    /// The dimension `key`: an integer ≥ 1 (by default read as a decimal and checked).
    fn dim(&self, key: &str) -> Result<u32> {
        let d = self.scalar(key)?;
        let v = d.f64();
        if (1.0..4294967296.0).contains(&v) && v.fract() == 0.0 {
            Ok(v as u32)
        } else {
            Err(Error::invalid(key, &d, "an integer >= 1"))
        }
    }
}

impl<F: Fn(&str) -> Result<Scalar>> Params for F {
    fn scalar(&self, key: &str) -> Result<Scalar> {
        self(key)
    }
}

/// The two output laws of a mechanism on neighbouring inputs, as one model.
///
/// Divergences are D(P1 ‖ P2). The closed forms are the model's own methods; the quadrature
/// route asks [`PairModel::integrals`] how to integrate the pair: generically from Lebesgue
/// densities on the line ([`LinePair`]), or by the family's own certified integrals (the
/// Gaussian-family laws with atoms, discrete outputs or ℝ^d outputs).
pub trait PairModel: Send + Sync + fmt::Debug + Any {
    /// The family entry (name, vocabulary, constructors).
    fn family(&self) -> &'static Family;
    /// The parameters in vocabulary order, for messages and reports.
    fn params(&self) -> Vec<(&'static str, Scalar)>;
    /// The pair with P1 and P2 exchanged.
    fn swapped(&self) -> Arc<dyn PairModel>;
    /// Whether P1 = P2 (every divergence is then exactly 0).
    fn identical(&self) -> bool;
    /// How the quadrature route integrates this pair.
    fn integrals(&self) -> Integrals<'_>;
    /// The pair as an isotropic Gaussian pair in ℝ^d, if it is one (closed forms of HMB Lemma 2,
    /// the χ² profile route).
    fn normal(&self) -> Option<&dyn NormalPair> {
        None
    }
    /// The model as [`Any`], for callers that need a family's own parameters.
    fn as_any(&self) -> &dyn Any;
    /// The family's audit route ([`AuditDraws`]), built from the pair's parameters in double
    /// precision; `None` (the default) for a pair on the line ([`Integrals::Line`]), which is
    /// audited through its [`LinePair`] sampler and log-likelihood ratio
    /// ([`Pair::audit_draws`]).
    fn audit_draws(&self) -> Result<Option<Arc<dyn AuditDraws>>> {
        Ok(None)
    }

    /// Closed-form D_α(P1 ‖ P2) at `p` bits: by default HMB Lemma 2, eq. (13) for an isotropic
    /// Gaussian pair ([`PairModel::normal`]), else [`Error::Unsupported`].
    fn renyi_at(&self, alpha: &Float, p: u32) -> Result<Float> {
        match self.normal() {
            Some(n) => Ok(normal::gauss_renyi(&n.gauss(p), alpha, p)),
            None => Err(self.no_closed_form("renyi")),
        }
    }
    /// Closed-form KL(P1 ‖ P2) at `p` bits (by default that of an isotropic Gaussian pair,
    /// docs/formulas.md §4).
    fn kl_at(&self, p: u32) -> Result<Float> {
        match self.normal() {
            Some(n) => Ok(normal::gauss_kl(&n.gauss(p), p)),
            None => Err(self.no_closed_form("kl")),
        }
    }
    /// Closed-form δ(ε) = ∫ (p1 − e^ε p2)_+ at `p` bits (by default that of an isotropic
    /// Gaussian pair: Balle & Wang 2018, Thm 8, or docs/formulas.md §7.3 in d = 1).
    fn hockey_at(&self, eps: &Float, p: u32) -> Result<Float> {
        match self.normal() {
            Some(n) => normal::gauss_hockey(&n.gauss(p), eps, p),
            None => Err(self.no_closed_form("hockey_stick_delta")),
        }
    }

    /// The error for a quantity this family has no closed form of.
    fn no_closed_form(&self, quantity: &str) -> Error {
        Error::Unsupported(format!(
            "{quantity} closed form: family {} has none; use --method quadrature",
            self.family().name
        ))
    }
}

/// How the quadrature route integrates a pair.
#[allow(private_interfaces)] // `Own` is sealed: only this crate's families integrate themselves
pub enum Integrals<'a> {
    /// Lebesgue densities on the line: the generic route of [`crate::divergence`] integrates
    /// them, and the audit samples them.
    Line(&'a dyn LinePair),
    /// The family's own certified integrals (log-quadratic Gaussian integrands, atoms).
    Own(&'a dyn OwnIntegrals),
}

/// A pair of laws with Lebesgue densities on the real line: what the generic quadrature route and
/// the audit's [`crate::audit::mechanisms::ModelMechanism`] need.
pub trait LinePair: Send + Sync {
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

    /// Fills `out` with independent draws from P1 or P2 (f64 parameters).
    fn sample_many(&self, which: Which, rng: &mut StreamRng, out: &mut [f64]);
    /// ln p1(x) − ln p2(x) in f64 (the white-box audit statistic).
    fn llr(&self, x: f64) -> f64;
    /// Closed hull of the support of both laws (either end may be infinite).
    fn support(&self) -> (f64, f64);
    /// The range of [`LinePair::llr`] over the support.
    fn llr_range(&self) -> (f64, f64);
}

/// A family's own certified integrals for the quadrature route: each returns the value with an
/// absolute error bound at the working context, which the route's ladder certifies.
pub(crate) trait OwnIntegrals: Send + Sync {
    /// Extra working digits for a known cancellation (near-equal variances).
    fn guard(&self) -> f64 {
        0.0
    }
    /// ∫ p1^α p2^{1−α} combined into D_α.
    fn renyi(&self, ctx: &Ctx, alpha: &Scalar) -> Result<Val>;
    /// ∫ p1 log(p1/p2) (+ atoms).
    fn kl(&self, ctx: &Ctx) -> Result<Val>;
    /// ∫ (p1 − e^ε p2)_+ (+ atoms).
    fn hockey(&self, ctx: &Ctx, eps: &Scalar) -> Result<Val>;
}

/// A single law of a location family, for the Fisher information about its location.
pub trait LocationModel: Send + Sync + fmt::Debug {
    /// The family entry.
    fn family(&self) -> &'static Family;
    /// The parameters in vocabulary order.
    fn params(&self) -> Vec<(&'static str, Scalar)>;
    /// How the quadrature route integrates the Fisher information.
    fn integrals(&self) -> FisherIntegrals<'_>;
    /// Closed-form Fisher information at `p` bits.
    fn fisher_at(&self, _p: u32) -> Result<Float> {
        Err(Error::Unsupported(format!(
            "fisher closed form: family {} has none; use --method quadrature",
            self.family().name
        )))
    }
}

/// How the quadrature route integrates a law's Fisher information.
#[allow(private_interfaces)] // `Own` is sealed, as in [`Integrals`]
pub enum FisherIntegrals<'a> {
    /// A Lebesgue density on the line, integrated generically.
    Line(&'a dyn LineLocation),
    /// The family's own certified integral (atoms counted as masses).
    Own(&'a dyn OwnFisher),
}

/// A law with a Lebesgue density on the line, for the generic Fisher-information route.
pub(crate) trait LineLocation: Send + Sync {
    /// log p(x) at the precision of `x`.
    fn ln_pdf_mp(&self, x: &Float) -> Float;
    /// The squared score (∂/∂μ log p(x))² at the precision of `x`.
    fn score_sq_mp(&self, x: &Float) -> Float;
    /// Points splitting the line into pieces where the integrand is analytic.
    fn breakpoints(&self, prec: u32) -> Vec<Float>;
    /// Decay length of the tails.
    fn tail_scale(&self) -> f64;
}

/// A family's own certified Fisher-information integral.
pub(crate) trait OwnFisher: Send + Sync {
    /// I(μ) with its absolute error at the working context.
    fn fisher(&self, ctx: &Ctx) -> Result<Val>;
}

/// The methods every model of this crate that integrates itself shares, in an
/// `impl PairModel` (`pair_model_common!(own)`: the family `FAMILY` of the calling module, own
/// integrals, `as_any`; `(own, normal)` adds `normal` for an isotropic Gaussian pair)
/// or in full for a wrapper `$t(params)` of [`normal::Shift`] / [`normal::Clipped`] parameters
/// (`pair_model_common!(wrapper $t)`: parameters, swap and identity from the wrapped value).
macro_rules! pair_model_common {
    (own) => {
        fn family(&self) -> &'static $crate::model::Family {
            &FAMILY
        }
        fn integrals(&self) -> $crate::model::Integrals<'_> {
            $crate::model::Integrals::Own(self)
        }
        fn as_any(&self) -> &dyn std::any::Any {
            self
        }
    };
    (own, normal) => {
        $crate::model::pair_model_common!(own);
        fn normal(&self) -> Option<&dyn $crate::model::NormalPair> {
            Some(self)
        }
    };
    (wrapper $t:ident $(, $normal:ident)?) => {
        fn params(&self) -> Vec<(&'static str, $crate::scalar::Scalar)> {
            self.0.params()
        }
        fn swapped(&self) -> std::sync::Arc<dyn $crate::model::PairModel> {
            std::sync::Arc::new($t(self.0.swapped()))
        }
        fn identical(&self) -> bool {
            self.0.identical()
        }
        $crate::model::pair_model_common!(own $(, $normal)?);
    };
}
pub(crate) use pair_model_common;

/// The methods of a [`LocationModel`] wrapping its parameters (field 0, with `params()`) that
/// integrates itself, in the family module (whose registry entry is `FAMILY`).
macro_rules! location_model_common {
    () => {
        fn family(&self) -> &'static $crate::model::Family {
            &FAMILY
        }
        fn params(&self) -> Vec<(&'static str, $crate::scalar::Scalar)> {
            self.0.params()
        }
        fn integrals(&self) -> $crate::model::FisherIntegrals<'_> {
            $crate::model::FisherIntegrals::Own(self)
        }
    };
}
pub(crate) use location_model_common;

/// Builds and validates a single law of a family, for `fisher`.
pub(crate) type LocationBuilder = fn(ParamLookup<'_>) -> Result<Arc<dyn LocationModel>>;

/// A mechanism family: its entry in the registry ([`FAMILIES`]), with its vocabulary (the
/// `dpaudit eval` and audit-spec names), its constructors and its privacy claim as data. Each
/// family's file defines one as `FAMILY`; everything that consumes families looks them up here
/// ([`Family::by_name`]) and names none.
pub struct Family {
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
    /// The privacy guarantee an audit tests its lower bound against.
    pub claim: Guarantee,
    /// Where that guarantee comes from (for reports).
    pub claim_source: &'static str,
    /// Its part in audit specs, the three-way comparison, the report's figures and `dpaudit
    /// eval`'s paper quantities: extra spec keys, key rules, the papers' bounds as functions of
    /// the spec's parameters, which figures its specs are drawn in ([`SpecForm::GENERIC`]: none).
    pub(crate) spec: SpecForm,
    /// Its noise as the training algorithms use it ([`NoiseHooks`]; `None`: not offered to them).
    pub(crate) noise: Option<&'static NoiseHooks>,
}

/// What a family's mechanism is claimed to guarantee on a pair: the ε that an audit's lower
/// bound must not exceed.
#[derive(Clone, Copy, Debug)]
pub enum Guarantee {
    /// A published (ε, δ) statement, ε as a function of the pair and δ (the Gaussian's Balle–Wang
    /// calibration, Laplace's pure ε): a bound of the three-way comparison.
    Published(fn(&Pair, f64) -> Result<f64>),
    /// The pair's exact ε(δ), max of both orders ([`crate::divergence::CLAIM_DIGITS`] digits):
    /// the family has no (ε, δ) statement of its own to test, so the three-way comparison shows
    /// no bound for it.
    Exact,
    /// None for a single release, and why (the subsampled Gaussian: its guarantee is a
    /// composition, computed by the accountant).
    Unavailable(&'static str),
}

impl Guarantee {
    /// The claimed ε of `pair` at `delta`.
    pub fn eps(&self, pair: &Pair, delta: f64) -> Result<f64> {
        match self {
            Guarantee::Published(f) => f(pair, delta),
            Guarantee::Exact => crate::divergence::exact_claim(pair, delta),
            Guarantee::Unavailable(why) => Err(Error::Unsupported((*why).into())),
        }
    }
}

impl fmt::Debug for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Family({})", self.name)
    }
}

impl PartialEq for Family {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// Every family described by a model. Adding a family is one line here.
pub static FAMILIES: &[&Family] = &[
    &crate::mechanisms::gaussian::FAMILY,
    &crate::mechanisms::gaussian_dd::FAMILY,
    &crate::mechanisms::rgm::FAMILY,
    &crate::mechanisms::rectified::FAMILY,
    &crate::mechanisms::truncated::FAMILY,
    &crate::mechanisms::sign::FAMILY,
    &crate::mechanisms::laplace::FAMILY,
    &crate::mechanisms::subsampled::FAMILY,
    &crate::mechanisms::subsampled::FAMILY_ADD,
    &crate::mechanisms::subsampled::FAMILY_SUBST,
    &crate::mechanisms::discrete_gaussian::FAMILY,
    &crate::mechanisms::gen_gaussian::FAMILY,
];

/// The registered family called `name`.
pub(crate) fn family(name: &str) -> Option<&'static Family> {
    FAMILIES.iter().copied().find(|f| f.name == name)
}

impl Family {
    /// This entry with its noise hooks for the training algorithms, for a family file's
    /// `FAMILY` built by a shared constructor.
    pub(crate) const fn with_noise(mut self, noise: &'static NoiseHooks) -> Self {
        self.noise = Some(noise);
        self
    }

    /// The registered family called `name`, or an error naming it.
    pub fn by_name(name: &str) -> Result<&'static Family> {
        family(name).ok_or_else(|| Error::Unsupported(format!("unknown family {name:?}")))
    }

    /// The pair of this family from named values (its vocabulary keys; other names are
    /// ignored), built and validated by its constructor.
    pub fn pair_from(&self, values: &[(&str, Scalar)]) -> Result<Pair> {
        let get = |key: &str| -> Result<Scalar> {
            let found = values.iter().find(|(k, _)| *k == key);
            found
                .map(|(_, v)| v.clone())
                .ok_or_else(|| Error::MissingParameter {
                    name: key.into(),
                    needed_by: self.name.into(),
                })
        };
        Ok(Pair::new((self.pair)(&get)?))
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// `keys` paired with `values`, in order: a model's parameters in its vocabulary.
pub(crate) fn named(keys: &[&'static str], values: &[&Scalar]) -> Vec<(&'static str, Scalar)> {
    keys.iter()
        .copied()
        .zip(values.iter().map(|v| (*v).clone()))
        .collect()
}

/// The values of `keys` from a registry lookup, in order.
pub(crate) fn looked_up<const N: usize>(
    get: ParamLookup<'_>,
    keys: [&str; N],
) -> Result<[Scalar; N]> {
    let mut out: [Scalar; N] = std::array::from_fn(|_| Scalar::from(0u32));
    for (o, k) in out.iter_mut().zip(keys) {
        *o = get.scalar(k)?;
    }
    Ok(out)
}

/// Formats `name(k1=v1, k2=v2, …)`, the vocabulary form used in every user-facing message.
pub(crate) fn describe(name: &str, params: &[(&str, Scalar)]) -> String {
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

/// A neighbouring pair of any family: a [`PairModel`] behind a shared pointer, comparable (same
/// family, same parameters) and printable in the `dpaudit eval` vocabulary
/// (`truncated(mu1=100, mu2=7.3e17, sigma=1.773e10, a=-1e-320, b=-0)`), as every user-facing
/// message prints it. Every divergence of [`crate::divergence`] takes one.
#[derive(Clone)]
pub struct Pair(Arc<dyn PairModel>);

model_handle_impls!(Pair);

impl Pair {
    /// The pair of a model.
    pub fn new(model: Arc<dyn PairModel>) -> Self {
        Pair(model)
    }
    /// The model.
    pub fn model(&self) -> &dyn PairModel {
        self.0.as_ref()
    }
    /// The model, shared.
    pub fn shared(&self) -> Arc<dyn PairModel> {
        Arc::clone(&self.0)
    }
    /// The model as the family's own type, if it is a `T`.
    pub(crate) fn downcast_ref<T: PairModel>(&self) -> Option<&T> {
        self.0.as_any().downcast_ref::<T>()
    }
    /// The pair with P1 and P2 exchanged.
    pub fn swapped(&self) -> Self {
        Pair(self.0.swapped())
    }
    /// The pair's Lebesgue densities on the line, if it has them ([`Integrals::Line`]).
    pub fn line(&self) -> Option<&dyn LinePair> {
        match self.0.integrals() {
            Integrals::Line(line) => Some(line),
            Integrals::Own(_) => None,
        }
    }
    /// The pair's audit route: the family's own ([`PairModel::audit_draws`]), else that of a
    /// pair on the line; an [`Error::Unsupported`] for a family with neither.
    pub fn audit_draws(&self) -> Result<Arc<dyn AuditDraws>> {
        if let Some(draws) = self.0.audit_draws()? {
            return Ok(draws);
        }
        match self.line() {
            Some(_) => Ok(Arc::new(LineDraws(self.clone()))),
            None => Err(Error::Unsupported(format!(
                "{self}: no audit route (neither its own draws nor densities on the line)"
            ))),
        }
    }
    /// The family's claimed ε of this pair at `delta` (its registry entry's [`Guarantee`]).
    pub fn claimed_eps(&self, delta: f64) -> Result<f64> {
        self.0.family().claim.eps(self, delta)
    }
}

impl<T: PairModel> From<T> for Pair {
    fn from(model: T) -> Self {
        Pair(Arc::new(model))
    }
}

/// A single law of a location family, for the Fisher information about its location: a
/// [`LocationModel`] behind a shared pointer, printed as `rectified(mu=0, sigma=1, a=-1, b=1)`.
#[derive(Clone)]
pub struct Location(Arc<dyn LocationModel>);

model_handle_impls!(Location);

impl Location {
    /// The law of a model.
    pub fn from_model(model: Arc<dyn LocationModel>) -> Self {
        Location(model)
    }
    /// The model.
    pub fn model(&self) -> &dyn LocationModel {
        self.0.as_ref()
    }
    /// The model, shared.
    pub fn shared(&self) -> Arc<dyn LocationModel> {
        Arc::clone(&self.0)
    }

    /// The law of the registered `family` with location `mu` and scale `sigma` (and, for a
    /// family on an interval, the support `a`, `b`), validated by the family.
    pub fn new(
        family: &str,
        mu: Scalar,
        sigma: Scalar,
        support: Option<(Scalar, Scalar)>,
    ) -> Result<Self> {
        let build = self::family(family)
            .and_then(|f| f.location)
            .ok_or_else(|| {
                Error::Unsupported(format!("no Fisher information for family {family}"))
            })?;
        let get = |key: &str| -> Result<Scalar> {
            match (key, &support) {
                ("mu", _) => Ok(mu.clone()),
                ("sigma", _) => Ok(sigma.clone()),
                ("a", Some((a, _))) => Ok(a.clone()),
                ("b", Some((_, b))) => Ok(b.clone()),
                _ => Err(Error::MissingParameter {
                    name: if support.is_none() {
                        "a, b".into()
                    } else {
                        key.into()
                    },
                    needed_by: format!("fisher for {family}"),
                }),
            }
        };
        Ok(Location(build(&get)?))
    }
}

// A model's parameters are checked on their doubles, which the samplers and the double-precision
// routes use ([`Scalar::to_double`] refuses a decimal that its double loses); the bounds, evaluated
// in multiple precision only, check theirs exactly (`bounds::positive`, `bounds::nonnegative`).

/// Validates a parameter given as a [`Scalar`]: finite.
pub(crate) fn finite(name: &str, x: &Scalar) -> Result<()> {
    crate::error::check_finite(name, x.to_double(name)?).map(|_| ())
}

/// Validates a parameter given as a [`Scalar`]: finite and > 0.
pub(crate) fn positive(name: &str, x: &Scalar) -> Result<()> {
    crate::error::check_positive(name, x.to_double(name)?).map(|_| ())
}

/// Validates a parameter given as a [`Scalar`]: finite and ≥ 0.
pub(crate) fn nonnegative(name: &str, x: &Scalar) -> Result<()> {
    finite(name, x)?;
    if x.f64() < 0.0 {
        return Err(Error::invalid(name, x, ">= 0"));
    }
    Ok(())
}

/// Validates a support [a, b]: both finite, a < b (compared exactly, at 256 bits).
pub(crate) fn interval(a: &Scalar, b: &Scalar) -> Result<()> {
    finite("a", a)?;
    finite("b", b)?;
    if a.mp(256) < b.mp(256) {
        Ok(())
    } else {
        Err(Error::invalid("a", a, &format!("< b = {b}")))
    }
}
