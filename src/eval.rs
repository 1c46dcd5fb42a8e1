//! Batch evaluation: the `dpaudit eval` interface that every other tool and test uses.
//!
//! Input rows are `id,quantity,family,params` (CSV; a header line starting with `id` is skipped),
//! where `params` is `key=value` pairs joined by `;`. Each row is computed independently: a bad
//! row gets an empty value and a message (with its line number) in `error`, and the rest of the
//! file is still processed. Output rows are `id,quantity,family,params,value,digits,error`. A
//! value is always a finite number: ±∞, NaN and negative divergences are refused with a message
//! (docs/formulas.md §9.10), never printed as certified.
//!
//! Vocabulary (exactly these names):
//!
//! | family | params |
//! |---|---|
//! | `gaussian` | mu1, mu2, sigma |
//! | `gaussian_dd` | dist, sigma1, sigma2, d |
//! | `rgm` | d, gamma, sigma2, n1, n2, dist (optional eta, R: relative sensitivity is then checked) |
//! | `rectified`, `truncated` | mu1, mu2, sigma, a, b |
//! | `stochastic_sign` | mu1, mu2, sigma |
//! | `laplace` | mu1, mu2, scale (fisher: mu, scale) |
//! | `subsampled_gaussian`, `subsampled_gaussian_add` | q, sigma (one DP-SGD step, remove / add order) |
//! | `subsampled_gaussian` with `steps` (and/or `neighbours=add_remove`) | q, sigma, steps: the DP-SGD mechanism (both directions) composed `steps` times (`crate::accounting`) |
//! | `subsampled_gaussian` with `neighbours=substitution` (`subsampled_gaussian_subst` for one step) | q, sigma, steps: replace-one neighbours, the symmetric pair (1−q)N(0,σ²)+qN(±1,σ²); for steps > 1, `eps_for_delta`/`hockey_stick_delta` are the certified two-sided bracket (docs/accounting.md#substitution-composition) and `rdp_eps_for_delta` the RDP route's upper bound |
//!
//! Quantities: `renyi` (+alpha), `kl`, `fisher` (a single `mu` instead of mu1/mu2),
//! `hockey_stick_delta` (+eps), `eps_for_delta` (+delta), `rgm_theorem1_eps` (eta, gamma, d, alpha),
//! `rgm_corollary1_eps`, `rgm_optimized_dp_eps` and its minimiser `rgm_optimized_dp_alpha` (eta,
//! gamma, d, delta), HMB's further formulas that the seed-claims table checks
//! (`rgm_theorem1_alpha_sup` and `rgm_lemma1_ratio_max` (eta), `rgm_eq6_eps` (eps_star, eta, d,
//! alpha), the tCDP forms `rgm_tcdp_rho`, `rgm_tcdp_omega`, `rgm_gss_tcdp_rho`,
//! `rgm_gss_tcdp_omega` (eta, gamma, d), the exact worst case `rgm_worst_case_renyi` (eta,
//! gamma, sigma2, R, d, alpha)), `rho_bar` (family gaussian; d, Rc), `rdp_eps_for_delta`
//! (+delta; the RDP route of a composition, optimised over α). The paper quantities are the
//! families' own (`SpecForm::quantities`). For a composition, `eps_for_delta` and `hockey_stick_delta` are the
//! midpoint of the certified bracket with the digits its width certifies.

use crate::divergence::{self, Location, Method, Pair};
use crate::error::{Error, Result};
use crate::model::spec_form::RowQuantity;
use crate::model::{self, Family};
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;
use rayon::prelude::*;
use rug::Float;
use std::collections::BTreeMap;
use std::io::{Read, Write};

/// Largest dimension accepted for `d`.
pub(crate) const MAX_DIM: u32 = 10_000_000;
/// Largest number of digits accepted.
pub(crate) const MAX_DIGITS: u32 = 2000;

/// Options of a batch evaluation.
#[derive(Clone, Copy, Debug)]
pub struct EvalOptions {
    /// Significant digits to certify.
    pub digits: u32,
    /// Which route.
    pub method: Method,
    /// Time limit per row in seconds (`None`: no limit). A row past its limit fails with
    /// "could not certify N digits (reached M)" instead of running on.
    pub max_seconds: Option<f64>,
}

/// Default time limit per `dpaudit eval` row, seconds.
pub(crate) const DEFAULT_MAX_SECONDS: f64 = 60.0;

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            digits: 30,
            method: Method::Auto,
            max_seconds: Some(DEFAULT_MAX_SECONDS),
        }
    }
}

/// One input row.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// 1-based line number in the input.
    pub line: usize,
    /// Row id.
    pub id: String,
    /// Quantity name.
    pub quantity: String,
    /// Family name.
    pub family: String,
    /// `key=value;…`.
    pub params: String,
}

/// One output row.
#[derive(Clone, Debug)]
pub(crate) struct Evaluated {
    /// The input row.
    pub row: Row,
    /// The certified value, or the error.
    pub result: Result<Certified>,
}

impl Evaluated {
    /// The value formatted with `digits + 5` significant digits (the trailing ones are not
    /// certified; they only keep the rounding of the printout below the certified error).
    pub(crate) fn value_text(&self) -> String {
        match &self.result {
            Ok(c) => format_value(&c.value, c.digits),
            Err(_) => String::new(),
        }
    }
}

/// Formats a value with `digits + 5` significant decimal digits (callers pass finite values:
/// [`evaluate`] refuses any other).
pub(crate) fn format_value(v: &rug::Float, digits: u32) -> String {
    if v.is_zero() {
        return "0".into();
    }
    v.to_string_radix(10, Some(digits as usize + 5))
}

/// Parses `key=value;key=value`. Empty segments are ignored; a segment without `=`, an empty key
/// or a duplicate key is an error.
pub fn parse_params(s: &str) -> Result<BTreeMap<String, String>> {
    let mut map = BTreeMap::new();
    for seg in s.split(';') {
        let seg = seg.trim();
        if seg.is_empty() {
            continue;
        }
        let (k, v) = seg.split_once('=').ok_or_else(|| Error::Parse {
            what: "parameter".into(),
            text: seg.to_string(),
            reason: "expected key=value".into(),
        })?;
        let (k, v) = (k.trim(), v.trim());
        if k.is_empty() {
            return Err(Error::Parse {
                what: "parameter".into(),
                text: seg.to_string(),
                reason: "empty key".into(),
            });
        }
        if map.insert(k.to_string(), v.to_string()).is_some() {
            return Err(Error::Parse {
                what: "parameter".into(),
                text: seg.to_string(),
                reason: format!("duplicate key {k}"),
            });
        }
    }
    Ok(map)
}

/// A parameter map checked against the keys a quantity/family accepts.
struct Params {
    map: BTreeMap<String, String>,
    context: String,
}

impl Params {
    fn new(map: BTreeMap<String, String>, context: String, accepted: &[&str]) -> Result<Self> {
        for k in map.keys() {
            if !accepted.contains(&k.as_str()) {
                return Err(Error::UnknownParameter {
                    name: k.clone(),
                    context,
                    accepted: accepted.join(", "),
                });
            }
        }
        Ok(Params { map, context })
    }

    fn get(&self, key: &str) -> Result<&str> {
        self.map
            .get(key)
            .map(String::as_str)
            .ok_or_else(|| Error::MissingParameter {
                name: key.to_string(),
                needed_by: self.context.clone(),
            })
    }

    fn scalar(&self, key: &str) -> Result<Scalar> {
        let text = self.get(key)?;
        text.parse::<Scalar>()
            .map_err(|_| Error::invalid(key, format!("{text:?}"), "a finite decimal number"))
    }

    fn opt_scalar(&self, key: &str) -> Result<Option<Scalar>> {
        if self.map.contains_key(key) {
            self.scalar(key).map(Some)
        } else {
            Ok(None)
        }
    }

    fn dim(&self, key: &str) -> Result<u32> {
        let text = self.get(key)?;
        match text.parse::<u64>() {
            Ok(v) if v >= 1 && v <= u64::from(MAX_DIM) => Ok(v as u32),
            _ => Err(Error::invalid(
                key,
                format!("{text:?}"),
                &format!("an integer in [1, {MAX_DIM}]"),
            )),
        }
    }
}

/// The parameter keys of a family (of a single law with `fisher`), or the error naming the
/// families that take this quantity. A pair's keys include the family's extra row keys
/// ([`crate::model::spec_form::RowCheck`], e.g. the optional (eta, R) of HMB Def. 2 on `rgm`).
fn family_keys(
    family: Option<&'static Family>,
    name: &str,
    fisher: bool,
) -> Result<Vec<&'static str>> {
    Ok(match (family, fisher) {
        (Some(f), false) => {
            let extra = f.spec.row_check.map_or(&[][..], |c| c.keys);
            f.pair_keys.iter().chain(extra).copied().collect()
        }
        (Some(f), true) if f.location.is_some() => f.location_keys.to_vec(),
        _ => {
            let names = |fisher: bool| -> String {
                let names: Vec<&str> = model::FAMILIES
                    .iter()
                    .filter(|f| !fisher || f.location.is_some())
                    .map(|f| f.name)
                    .collect();
                names.join(", ")
            };
            return Err(Error::Unsupported(format!(
                "unknown or unsupported family {name:?} for this quantity (families: {}; fisher \
                 takes {})",
                names(false),
                names(true)
            )));
        }
    })
}

impl model::Params for Params {
    fn scalar(&self, key: &str) -> Result<Scalar> {
        Params::scalar(self, key)
    }
    fn dim(&self, key: &str) -> Result<u32> {
        Params::dim(self, key)
    }
}

/// The pair of a row, built by the family's registry entry; a family with extra row keys checks
/// them on the pair ([`crate::model::spec_form::RowCheck`]: e.g. the relative sensitivity of HMB
/// Def. 2 on an `rgm` row with (eta, R)).
fn build_pair(family: &'static Family, p: &Params) -> Result<Pair> {
    let pair = Pair::new((family.pair)(p)?);
    if let Some(rc) = family.spec.row_check {
        (rc.check)(&|k: &str| p.opt_scalar(k), &pair)?;
    }
    Ok(pair)
}

/// A quantity of `dpaudit eval`, by its row name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// `renyi`: D_α(P1 ‖ P2) (+alpha).
    Renyi,
    /// `kl`: KL(P1 ‖ P2).
    Kl,
    /// `fisher`: Fisher information about the location of one law.
    Fisher,
    /// `hockey_stick_delta`: δ(ε) (+eps).
    HockeyStickDelta,
    /// `eps_for_delta`: ε(δ) (+delta).
    EpsForDelta,
    /// A paper quantity published by a family of the registry
    /// (`crate::model::SpecForm::quantities`: HMB's bounds on `rgm` rows, ρ̄ on `gaussian`
    /// rows), by its position in [`paper_quantities`].
    Paper(usize),
    /// `rdp_eps_for_delta`: the RDP route's ε(δ) of a composition (+delta), optimised over α.
    RdpEpsForDelta,
}

/// The paper quantities of the registry's families, in registry order, with the family that
/// publishes each.
pub fn paper_quantities() -> Vec<(&'static Family, &'static RowQuantity)> {
    model::FAMILIES
        .iter()
        .flat_map(|f| f.spec.quantities.iter().map(move |q| (*f, q)))
        .collect()
}

impl Quantity {
    /// Every quantity, in vocabulary order.
    pub fn all() -> Vec<Quantity> {
        let mut v = vec![
            Quantity::Renyi,
            Quantity::Kl,
            Quantity::Fisher,
            Quantity::HockeyStickDelta,
            Quantity::EpsForDelta,
        ];
        v.extend((0..paper_quantities().len()).map(Quantity::Paper));
        v.push(Quantity::RdpEpsForDelta);
        v
    }

    /// The row name.
    pub fn name(self) -> &'static str {
        match self {
            Quantity::Renyi => "renyi",
            Quantity::Kl => "kl",
            Quantity::Fisher => "fisher",
            Quantity::HockeyStickDelta => "hockey_stick_delta",
            Quantity::EpsForDelta => "eps_for_delta",
            Quantity::Paper(i) => paper_quantities().get(i).map_or("?", |(_, q)| q.name),
            Quantity::RdpEpsForDelta => "rdp_eps_for_delta",
        }
    }
}

model::display_by_name!(Quantity);

impl std::str::FromStr for Quantity {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let all = Quantity::all();
        model::by_name(&all, Quantity::name, s).ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|q| q.name()).collect();
            Error::Unsupported(format!(
                "unknown quantity {s:?} (quantities: {})",
                names.join(", ")
            ))
        })
    }
}

/// The DP-SGD mechanism (family `subsampled_gaussian` with `steps` or `neighbours`): both
/// neighbour directions, composed `steps` times (`crate::accounting`). Rényi and KL add up
/// exactly over steps; δ(ε) and ε(δ) come from the certified composition bracket, printed as its
/// midpoint with the digits its width certifies; `rdp_eps_for_delta` is the RDP route.
fn evaluate_composed(
    quantity: Quantity,
    map: BTreeMap<String, String>,
    context: String,
    digits: u32,
    method: Method,
) -> Result<Certified> {
    use crate::accounting::{self as acc, Schedule, SubsampledGaussian};
    let extra = match quantity {
        Quantity::Renyi => "alpha",
        Quantity::Kl => "",
        Quantity::HockeyStickDelta => "eps",
        Quantity::EpsForDelta | Quantity::RdpEpsForDelta => "delta",
        other => {
            return Err(Error::Unsupported(format!(
                "{other} is not defined for a composition (subsampled_gaussian with steps)"
            )))
        }
    };
    let mut keys = vec!["q", "sigma", "steps", "neighbours"];
    if !extra.is_empty() {
        keys.push(extra);
    }
    let p = Params::new(map, context, &keys)?;
    let substitution = match p.map.get("neighbours").map(String::as_str) {
        None | Some("add_remove") => false,
        Some("substitution") => true,
        Some(other) => {
            return Err(Error::invalid(
                "neighbours",
                format!("{other:?}"),
                "add_remove or substitution",
            ))
        }
    };
    let steps = match p.map.get("steps") {
        None => 1,
        Some(t) => match t.parse::<u64>() {
            Ok(v) if (1..=1_000_000_000_000).contains(&v) => v,
            _ => {
                return Err(Error::invalid(
                    "steps",
                    format!("{t:?}"),
                    "an integer in [1, 1e12]",
                ))
            }
        },
    };
    let m = SubsampledGaussian::new(p.scalar("q")?, p.scalar("sigma")?)?;
    if substitution {
        return evaluate_substitution(quantity, &p, &m, steps, digits, method);
    }
    // One step of the mechanism: the larger of the two directions, through the model layer.
    let one_step = |f: &dyn Fn(&Pair) -> Result<Certified>| -> Result<Certified> {
        let mut best: Option<Certified> = None;
        use crate::mechanisms::subsampled::{FAMILY, FAMILY_ADD};
        for family in [&FAMILY, &FAMILY_ADD] {
            let pair = build_pair(family, &p)?;
            let c = f(&pair)?;
            if best.as_ref().is_none_or(|b| c.value > b.value) {
                best = Some(c);
            }
        }
        Ok(best.expect("two directions"))
    };
    match quantity {
        Quantity::Renyi => {
            let alpha = p.scalar("alpha")?;
            let s = Schedule::homogeneous(&m, steps)?;
            bracket_value(&acc::composed_rdp(&s, &alpha, digits)?, digits)
        }
        Quantity::Kl => Ok(times_steps(
            one_step(&|pair| divergence::kl(pair, digits, method))?,
            steps,
        )),
        Quantity::HockeyStickDelta | Quantity::EpsForDelta => {
            let sched = || Schedule::homogeneous(&m, steps);
            profile_value(quantity, &p, steps, digits, method, &one_step, &sched)
        }
        _ => rdp_route_eps(&Schedule::homogeneous(&m, steps)?, &p, digits),
    }
}

/// `rdp_eps_for_delta`: the RDP route of a schedule at the row's δ (Canonne–Kamath–Steinke
/// conversion, continuous α), a certified upper bound on ε.
fn rdp_route_eps(s: &crate::accounting::Schedule, p: &Params, digits: u32) -> Result<Certified> {
    let delta = p.scalar("delta")?;
    let r = crate::accounting::rdp_route(
        s,
        &delta,
        None,
        crate::bounds::conversion::Conversion::CanonneKamathSteinke,
        digits,
    )?;
    Ok(r.eps)
}

/// A composition bracket printed as its midpoint with the digits its width certifies (at most
/// `digits`); a bracket that certifies none is a `Precision` error.
fn bracket_value(b: &crate::accounting::Bracket, digits: u32) -> Result<Certified> {
    let got = b.digits().min(digits);
    if got == 0 {
        return Err(Error::Precision {
            narrowest: None,
            requested: digits,
            certified: 0,
            what: "composition bracket".into(),
        });
    }
    Ok(Certified {
        value: b.mid(),
        digits: got,
    })
}

/// Rényi and KL of a product add up over steps: exact.
fn times_steps(c: Certified, steps: u64) -> Certified {
    let v = rug::Float::with_val(c.value.prec(), &c.value * steps);
    Certified {
        value: v,
        digits: c.digits,
    }
}

/// The DP-SGD mechanism under substitution neighbours (`neighbours=substitution`): the symmetric
/// pair (1−q)N(0,σ²) + qN(1,σ²) against (1−q)N(0,σ²) + qN(−1,σ²)
/// (docs/accounting.md#substitution), one order only. One step: every quantity through the
/// model layer (family `subsampled_gaussian_subst`). `steps` > 1: Rényi and KL are `steps` times
/// the single step (exact); δ(ε) and ε(δ) the certified two-sided bracket of the composition
/// (docs/accounting.md#substitution-composition; q = 1 is the Gaussian mechanism with
/// sensitivity 2, in closed form); `rdp_eps_for_delta` the RDP route (an upper bound on ε).
fn evaluate_substitution(
    quantity: Quantity,
    p: &Params,
    m: &crate::accounting::SubsampledGaussian,
    steps: u64,
    digits: u32,
    method: Method,
) -> Result<Certified> {
    use crate::accounting::Schedule;
    let pair = build_pair(&crate::mechanisms::subsampled::FAMILY_SUBST, p)?;
    let s = Schedule::homogeneous_substitution(m, steps)?;
    match quantity {
        Quantity::Renyi => Ok(times_steps(
            divergence::renyi(&pair, &p.scalar("alpha")?, digits, method)?,
            steps,
        )),
        Quantity::Kl => Ok(times_steps(divergence::kl(&pair, digits, method)?, steps)),
        Quantity::HockeyStickDelta | Quantity::EpsForDelta => {
            let one_step = |f: &dyn Fn(&Pair) -> Result<Certified>| f(&pair);
            let sched = || Ok(s.clone());
            profile_value(quantity, p, steps, digits, method, &one_step, &sched)
        }
        _ => rdp_route_eps(&s, p, digits),
    }
}

/// A quantity of one pair, as [`profile_value`] hands it to the evaluator of one step.
type PairQuantity<'a> = &'a dyn Fn(&Pair) -> Result<Certified>;

/// δ(ε) (`hockey_stick_delta`, parameter `eps`) or ε(δ) (`eps_for_delta`, parameter `delta`) of
/// a subsampled Gaussian: at one step the divergence of the pair(s) `one_step` evaluates it on;
/// over `steps` > 1 the certified composition bracket of `sched()` (`crate::accounting`).
fn profile_value(
    quantity: Quantity,
    p: &Params,
    steps: u64,
    digits: u32,
    method: Method,
    one_step: &dyn Fn(PairQuantity<'_>) -> Result<Certified>,
    sched: &dyn Fn() -> Result<crate::accounting::Schedule>,
) -> Result<Certified> {
    use crate::accounting::{self as acc, ComposeOptions};
    let delta_of_eps = quantity == Quantity::HockeyStickDelta;
    let x = p.scalar(if delta_of_eps { "eps" } else { "delta" })?;
    if steps == 1 {
        return one_step(&|pair| {
            if delta_of_eps {
                divergence::hockey_stick(pair, &x, digits, method)
            } else {
                divergence::eps_for_delta(pair, &x, digits, method)
            }
        });
    }
    let s = sched()?;
    let opts = ComposeOptions {
        digits: digits.min(60),
        force_inversion: false,
    };
    let composed = if delta_of_eps {
        acc::delta_for_eps(&s, &x, &opts)?
    } else {
        acc::eps_for_delta(&s, &x, &opts)?
    };
    bracket_value(&composed.value, digits)
}

/// Evaluates one row. No value that is not a finite number is ever returned as certified: the
/// central guard [`Certified::finite`] turns ±∞ and NaN into an error naming the row's quantity,
/// family and parameters (docs/formulas.md §9.10).
pub fn evaluate(row: &Row, opts: &EvalOptions) -> Result<Certified> {
    let what = format!("{} of {} ({})", row.quantity, row.family, row.params);
    let c = evaluate_unguarded(row, opts)?.finite(&what)?;
    // Divergences, δ(ε), ε(δ) and Fisher information are ≥ 0 by definition: a negative value
    // can only be a route whose error bound missed a cancellation.
    let nonnegative = matches!(
        row.quantity.parse::<Quantity>(),
        Ok(Quantity::Renyi
            | Quantity::Kl
            | Quantity::Fisher
            | Quantity::HockeyStickDelta
            | Quantity::EpsForDelta)
    );
    if nonnegative && c.value < 0 {
        return Err(Error::Undefined(format!(
            "{what} evaluated to {:e}, but {} is >= 0 by definition: the route lost its digits to \
             a cancellation its error bound missed; refused",
            c.value.to_f64(),
            row.quantity
        )));
    }
    Ok(c)
}

/// D_α of a Gaussian pair with unequal variances is +∞ once σ_α² = ασ2² + (1 − α)σ1² ≤ 0, i.e.
/// α ≥ σ1²/(σ1² − σ2²) (docs/formulas.md §4): the divergence layer returns that +∞ as a value
/// (the accountants' convention); `eval` refuses it in the user's terms instead.
fn refuse_infinite_renyi(pair: &Pair, alpha: &Scalar, c: Certified) -> Result<Certified> {
    if !(c.value.is_infinite() && c.value.is_sign_positive()) {
        return Ok(c);
    }
    let Some(normal) = pair.model().normal() else {
        return Ok(c);
    };
    let p = 256;
    let g = normal.gauss(p);
    let a = alpha.mp(p);
    if Float::with_val(p, &a * &g.u) + 1u32 > 0 {
        return Ok(c);
    }
    // α⋆ = −1/u = σ1²/(σ1² − σ2²).
    let crit = (-Float::with_val(p, g.u.recip_ref())).to_f64();
    Err(Error::Undefined(format!(
        "renyi is +infinity at alpha = {alpha}: D_alpha of Gaussians with unequal variances \
         diverges once alpha*sigma2^2 + (1 - alpha)*sigma1^2 <= 0, i.e. alpha >= \
         sigma1^2/(sigma1^2 - sigma2^2) = {crit:.6} (sigma1^2, sigma2^2 the variances of P1 and \
         P2); dpaudit certifies finite values only: take alpha below that"
    )))
}

fn evaluate_unguarded(row: &Row, opts: &EvalOptions) -> Result<Certified> {
    if opts.digits == 0 || opts.digits > MAX_DIGITS {
        return Err(Error::invalid(
            "digits",
            opts.digits,
            &format!("in [1, {MAX_DIGITS}]"),
        ));
    }
    let map = parse_params(&row.params)?;
    let q = row.quantity.as_str();
    let fam = row.family.as_str();
    let quantity = q.parse::<Quantity>()?;
    let context = format!("{q}/{fam}");
    let digits = opts.digits;
    let parsed = Family::by_name(fam).ok();
    let accepted = |extra: &[&'static str], fisher: bool| -> Result<Vec<&'static str>> {
        let mut v = family_keys(parsed, fam, fisher)?;
        v.extend_from_slice(extra);
        Ok(v)
    };
    // family_keys has refused an unknown name before this runs.
    let family = || parsed.ok_or_else(|| Error::Unsupported(format!("unknown family {fam:?}")));
    if let Some(f) = parsed {
        let composed = map.contains_key("steps") || map.contains_key("neighbours");
        if f == &crate::mechanisms::subsampled::FAMILY
            && (composed || quantity == Quantity::RdpEpsForDelta)
        {
            return evaluate_composed(quantity, map, context, digits, opts.method);
        }
    }
    match quantity {
        Quantity::RdpEpsForDelta => Err(Error::Unsupported(format!(
            "{q} is a composition quantity: family must be subsampled_gaussian, not {fam:?}"
        ))),
        Quantity::Renyi | Quantity::Kl | Quantity::HockeyStickDelta | Quantity::EpsForDelta => {
            // The divergences of a pair, each with its one extra parameter (none for KL).
            let extra: &[&str] = match quantity {
                Quantity::Renyi => &["alpha"],
                Quantity::Kl => &[],
                Quantity::HockeyStickDelta => &["eps"],
                _ => &["delta"],
            };
            let p = Params::new(map, context, &accepted(extra, false)?)?;
            let pair = build_pair(family()?, &p)?;
            let m = opts.method;
            match quantity {
                Quantity::Renyi => {
                    let alpha = p.scalar("alpha")?;
                    let c = divergence::renyi(&pair, &alpha, digits, m)?;
                    refuse_infinite_renyi(&pair, &alpha, c)
                }
                Quantity::Kl => divergence::kl(&pair, digits, m),
                Quantity::HockeyStickDelta => {
                    divergence::hockey_stick(&pair, &p.scalar("eps")?, digits, m)
                }
                _ => divergence::eps_for_delta(&pair, &p.scalar("delta")?, digits, m),
            }
        }
        Quantity::Fisher => {
            let p = Params::new(map, context, &accepted(&[], true)?)?;
            let loc = match family()?.location {
                Some(build) => Location::from_model(build(&p)?),
                None => unreachable!("family_keys refuses fisher for this family"),
            };
            divergence::fisher(&loc, digits, opts.method)
        }
        Quantity::Paper(i) => {
            let (owner, rq) = paper_quantities()[i];
            if parsed != Some(owner) {
                return Err(Error::Unsupported(format!(
                    "{q} is {}: family must be {}, not {fam:?}",
                    rq.what, owner.name
                )));
            }
            let p = Params::new(map, context, rq.keys)?;
            (rq.eval)(&p, digits, opts.method == Method::Quadrature)
        }
    }
}

/// Reads rows from CSV. Malformed records (wrong field count, bad UTF-8) become rows whose
/// evaluation fails with a message naming the line; the rest of the file is still read.
pub(crate) fn read_rows<R: Read>(input: R) -> Vec<(Row, Option<String>)> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .comment(Some(b'#'))
        .from_reader(input);
    let mut out = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        match rec {
            Ok(r) => {
                let line = r.position().map(|p| p.line() as usize).unwrap_or(i + 1);
                if r.len() == 1 && r.get(0).is_some_and(str::is_empty) {
                    continue;
                }
                if i == 0 && r.get(0) == Some("id") {
                    continue;
                }
                let field = |k: usize| r.get(k).unwrap_or("").to_string();
                let row = Row {
                    line,
                    id: field(0),
                    quantity: field(1),
                    family: field(2),
                    params: field(3),
                };
                // A quoted field that runs over line ends (an unbalanced quote) has swallowed the
                // lines after it: say how many, not the parse error they cause.
                let swallowed: usize = r.iter().map(|f| f.matches('\n').count()).sum();
                let problem = if swallowed > 0 {
                    Some(format!(
                        "a quoted field runs over {swallowed} line end(s): lines {}-{} were read \
                         into this row (an unbalanced quote \")",
                        line + 1,
                        line + swallowed
                    ))
                } else {
                    (r.len() != 4).then(|| {
                        format!(
                            "expected 4 fields id,quantity,family,params, found {}",
                            r.len()
                        )
                    })
                };
                out.push((row, problem));
            }
            Err(e) => {
                let line = e.position().map(|p| p.line() as usize).unwrap_or(i + 1);
                let row = Row {
                    line,
                    id: String::new(),
                    quantity: String::new(),
                    family: String::new(),
                    params: String::new(),
                };
                out.push((row, Some(format!("unreadable CSV record: {e}"))));
            }
        }
    }
    out
}

/// Outcome counts of a batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Rows read.
    pub rows: usize,
    /// Rows that failed.
    pub failed: usize,
}

/// Evaluates every row of `input` (in parallel, output in input order) and writes the output CSV
/// to `output`; messages for failed rows also go to `log` with their line numbers.
pub fn run<R: Read, W: Write, L: Write>(
    input: R,
    output: W,
    log: &mut L,
    opts: &EvalOptions,
) -> Result<Summary> {
    let rows = read_rows(input);
    let results: Vec<Evaluated> = rows
        .into_par_iter()
        .map(|(row, problem)| {
            let result = match problem {
                None => {
                    crate::numeric::deadline::with_limit(opts.max_seconds, || evaluate(&row, opts))
                }
                Some(reason) => Err(Error::Parse {
                    what: "CSV row".into(),
                    text: format!("{},{},{},{}", row.id, row.quantity, row.family, row.params),
                    reason,
                }),
            };
            Evaluated { row, result }
        })
        .collect();
    let mut wtr = csv::Writer::from_writer(output);
    wtr.write_record([
        "id", "quantity", "family", "params", "value", "digits", "error",
    ])
    .map_err(|e| Error::Io(e.to_string()))?;
    let mut summary = Summary::default();
    for ev in results {
        summary.rows += 1;
        let (value, digits, error) = match &ev.result {
            Ok(c) => (ev.value_text(), c.digits.to_string(), String::new()),
            Err(e) => {
                summary.failed += 1;
                let msg = format!("line {}: {e}", ev.row.line);
                let _ = writeln!(log, "{} {msg}", ev.row.id);
                (String::new(), String::new(), msg)
            }
        };
        wtr.write_record([
            ev.row.id.as_str(),
            &ev.row.quantity,
            &ev.row.family,
            &ev.row.params,
            &value,
            &digits,
            &error,
        ])
        .map_err(|e| Error::Io(e.to_string()))?;
    }
    wtr.flush()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::read_rows;

    #[test]
    fn an_unbalanced_quote_says_which_lines_it_swallowed() {
        let csv = "id,quantity,family,params\n\
                   a,renyi,gaussian,\"mu1=0;mu2=1;sigma=5;alpha=2\n\
                   b,renyi,gaussian,mu1=0;mu2=1;sigma=5;alpha=3\n\
                   c,kl,gaussian,mu1=0;mu2=1;sigma=5\"\n\
                   d,kl,gaussian,mu1=0;mu2=1;sigma=5\n";
        let rows = read_rows(csv.as_bytes());
        assert_eq!(rows.len(), 2, "{rows:?}");
        let (row, problem) = &rows[0];
        assert_eq!(row.line, 2);
        let p = problem.as_deref().unwrap();
        assert!(p.contains("runs over 2 line end(s): lines 3-4"), "{p}");
        // The row after the quote closes is read as usual.
        assert_eq!(rows[1].0.id, "d");
        assert!(rows[1].1.is_none());
    }
}
