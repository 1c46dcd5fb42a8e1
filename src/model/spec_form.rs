//! A family's part in the audit specs, the three-way comparison and the report, as registry data
//! ([`Family::spec`](super::Family::spec)), so that `compare`, `report` and `eval` name no
//! family.
//!
//! An audit spec is one generic form, `{ family, params }` (`crate::compare::spec`): the family's
//! pair keys split into `[mechanism]` and `[pair]` by its input keys, plus the extra
//! `[mechanism]` keys its papers' bounds take ([`SpecForm::extra_keys`], e.g. the RGM's η, R and
//! optional α). Everything else a family publishes about a spec is a field here, owned by the
//! family's file in [`crate::mechanisms`]:
//!
//! * [`SpecForm::rules`]: how each key is checked (its message names the field);
//! * [`SpecForm::check`]: a check across keys (HMB Def. 2, a support a < b);
//! * [`SpecForm::bounds`]: the paper's bounds at the audited δ (the three-way table), each a
//!   function of the spec's parameters with its source text; without it the three-way shows the
//!   family's published [`Guarantee`](super::Guarantee);
//! * [`SpecForm::profile_bounds`]: the same bounds as curves over δ (the profile plots);
//! * [`SpecForm::rdp_bound`]: an RDP bound ε(α) as a curve (the D_α panel; with a validity range,
//!   also checked against the exact D_α at many α);
//! * [`SpecForm::exact_rdp`]: for a pair whose ε(δ) may have no closed form, where its exact D_α
//!   is finite (the RDP → CKS upper bound on the exact ε);
//! * [`SpecForm::panels`]: which profile figure and D_α panel its specs are drawn in;
//! * [`SpecForm::describe`]: the text of its parameters in the report;
//! * [`SpecForm::location_curve`]: its curves in the privacy-against-location figure;
//! * [`SpecForm::row_check`], [`SpecForm::quantities`]: its extra `dpaudit eval` keys and the
//!   paper quantities it publishes (HMB's bounds for `rgm`, ρ̄ for `gaussian`);
//! * [`SpecForm::controls`]: its positive controls, deliberately broken samplers of its
//!   mechanism that the report's audits must catch (`crate::audit::controls`).

// The figures' parts (panels, curves, legends, texts) are read only by the report (feature
// `cli`); the library without it still builds them for the comparison's data.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]
use crate::error::Result;
use crate::numeric::mp::Certified;
use crate::scalar::Scalar;

/// How an audit spec checks one key of a family before the family's constructor sees it; a
/// failure names the field (`mechanism.sigma = -1: expected > 0`). A key without a rule is any
/// finite decimal (the constructor validates it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyRule {
    /// A finite decimal > 0.
    Positive,
    /// A finite decimal ≥ 0.
    NonNegative,
    /// A TOML integer in [1, max].
    Dim(u32),
    /// Optional; when given, a finite decimal > 1 (a Rényi order).
    OptionalOrder,
}

/// A spec's validated values as a family's spec functions read them: the `[mechanism]` values,
/// then the `[pair]` values (absent optional keys left out), the pair's shift and the audited δ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpecParams<'a> {
    /// The values by key, `[mechanism]` first.
    pub values: &'a [(&'static str, Scalar)],
    /// The pair's shift: |μ1 − μ2| for locations, else the input `dist` (0 without one).
    pub shift: &'a Scalar,
    /// The δ at which the spec is audited.
    pub delta: &'a Scalar,
}

impl SpecParams<'_> {
    /// The value of `key`, if given.
    pub(crate) fn get(&self, key: &str) -> Option<&Scalar> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The value of `key` in double precision (NaN when absent: every caller has validated it).
    pub(crate) fn f64(&self, key: &str) -> f64 {
        self.get(key).map_or(f64::NAN, Scalar::f64)
    }

    /// The dimension `key` (validated by its [`KeyRule::Dim`]; 0 when absent).
    pub(crate) fn dim(&self, key: &str) -> u32 {
        self.get(key).map_or(0, |d| d.f64() as u32)
    }
}

/// A failed check across a spec's keys: the field (`pair.dist`), its value and what was
/// expected; the spec reader adds the file.
#[derive(Clone, Debug)]
pub(crate) struct SpecIssue {
    /// The field, `section.key`.
    pub field: &'static str,
    /// Its value as given.
    pub value: String,
    /// What it must satisfy, with the source of the condition.
    pub expected: String,
}

/// The value of one of a family's paper bounds.
#[derive(Clone, Debug)]
pub(crate) enum BoundValue {
    /// Certified digits (shown with them; ±∞ or NaN is refused by the comparison).
    Certified(Certified),
    /// A double-precision value (a valid bound at any accuracy, e.g. optimised over α).
    Plain(f64),
}

/// One of a family's paper bounds at a spec's δ: a figure of the three-way comparison.
#[derive(Clone, Debug)]
pub(crate) struct PaperBound {
    /// `Some((α, label))` for an RDP bound ε(α) at order α, shown beside the pair's exact D_α at
    /// the same α (labelled `label`); `None` for an (ε, δ) bound.
    pub rdp_at: Option<(Scalar, &'static str)>,
    /// Short name for overview tables.
    pub short: &'static str,
    /// Its source, with the paper and equation.
    pub label: String,
    /// The value, or why it could not be computed.
    pub value: Result<BoundValue>,
    /// Remarks (α used …).
    pub note: String,
}

/// One of a family's paper bounds as a curve over δ, for the privacy-profile plots.
#[derive(Clone, Debug)]
pub(crate) struct BoundCurve {
    /// Legend.
    pub label: String,
    /// Points (δ, ε).
    pub points: Vec<(f64, f64)>,
    /// Palette index.
    pub colour: usize,
}

/// A family's RDP bound ε(α) as a function of the spec's parameters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RdpBound {
    /// The bound's name in `VIOLATION` lines and remarks ("HMB Theorem 1").
    pub name: &'static str,
    /// ε(α) in double precision.
    pub eps: fn(&SpecParams<'_>, f64) -> Result<f64>,
    /// The supremum of the α at which the bound is valid, if the bound has a validity range: the
    /// comparison then also checks the exact D_α against it across that range.
    pub alpha_sup: Option<fn(&SpecParams<'_>) -> f64>,
    /// Legends of the exact D_α and of the bound in the D_α panel.
    pub legends: fn(&SpecParams<'_>) -> (String, String),
}

/// Where a pair's exact D_α is finite, for a family whose exact ε(δ) may have no certified
/// route: the comparison then shows the exact RDP curve converted with CKS, labelled as an upper
/// bound on the exact ε.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ExactRdp {
    /// The largest α at which the pair's exact D_α is finite (capped).
    pub alpha_max: fn(&SpecParams<'_>) -> f64,
    /// The source of the exact D_α, for labels ("HMB Lemma 2").
    pub source: &'static str,
}

/// How a D_α-against-α panel shows its specs (the panels are drawn in this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RenyiStyle {
    /// Per spec, the exact D_α (line) and the family's RDP bound (dashed, same colour) over
    /// 80 % of the bound's validity range.
    BoundPerSpec,
    /// Per spec, the exact D_α (line) and the RDP bound's formula (markers), α ∈ [1.01, 1000].
    FormulaPerSpec,
    /// One dashed reference curve per distinct RDP bound (the mechanism that bounds the specs'),
    /// and each spec's exact D_α, α ∈ [1.01, 100].
    SharedReference,
}

/// A D_α-against-α panel of the report: specs whose families name the same panel share it.
#[derive(Debug)]
pub(crate) struct RenyiPanel {
    /// Presentation.
    pub style: RenyiStyle,
    /// Panel title.
    pub title: &'static str,
}

/// A privacy-profile figure of the report (`<stem>.svg`): specs whose families name the same
/// figure share it.
#[derive(Debug)]
pub(crate) struct ProfileFigure {
    /// File stem.
    pub stem: &'static str,
    /// Figure title.
    pub title: &'static str,
    /// Caption in the summary.
    pub caption: &'static str,
}

/// The report's figures a family's specs are drawn in.
#[derive(Debug)]
pub(crate) struct Panels {
    /// The privacy-profile figure.
    pub profile: &'static ProfileFigure,
    /// The D_α panel (needs [`SpecForm::rdp_bound`]).
    pub renyi: Option<&'static RenyiPanel>,
}

/// A family's curves in the report's privacy-against-location figure (the shape of Hu & Guo's
/// Figure 1: Fisher information and per-instance RDP against the location μ, at one σ and
/// support).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LocationCurve {
    /// Legend.
    pub legend: &'static str,
    /// Whether it is the reference the others are compared with (drawn dashed).
    pub reference: bool,
}

/// How a [`RowCheck`] reads its keys from a `dpaudit eval` row (`Ok(None)`: not given).
pub(crate) type RowLookup<'a> = &'a dyn Fn(&str) -> Result<Option<Scalar>>;

/// A check across a spec's keys ([`SpecForm::check`]).
pub(crate) type SpecCheck = fn(&SpecParams<'_>) -> std::result::Result<(), SpecIssue>;

/// A family's paper bounds as curves over a δ grid ([`SpecForm::profile_bounds`]).
pub(crate) type ProfileBounds = fn(&SpecParams<'_>, &[f64]) -> Vec<BoundCurve>;

/// A family's extra `dpaudit eval` pair keys and the check they feed (the RGM's optional η, R
/// and HMB Def. 2).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowCheck {
    /// The extra keys.
    pub keys: &'static [&'static str],
    /// The check on the built pair, reading the keys (`Ok(None)`: not given).
    pub check: fn(RowLookup<'_>, &super::Pair) -> Result<()>,
}

/// A paper quantity of `dpaudit eval` published by a family (rows name the family).
#[derive(Debug)]
pub struct RowQuantity {
    /// The quantity's row name.
    pub name: &'static str,
    /// Its parameter keys.
    pub keys: &'static [&'static str],
    /// What it is, for the message when a row names another family ("an RGM bound").
    pub what: &'static str,
    /// Its value at `digits` digits; the flag asks for the quadrature route.
    pub eval: fn(super::ParamLookup<'_>, u32, bool) -> Result<Certified>,
}

/// A family's part in the audit specs, the three-way comparison, the report and `dpaudit eval`
/// beyond its pair: registry data owned by its file. [`SpecForm::GENERIC`] is the generic form
/// (its vocabulary only, its published guarantee as the bound).
#[derive(Debug)]
pub(crate) struct SpecForm {
    /// Rules of its spec keys, by key (`[mechanism]` and `[pair]`).
    pub rules: &'static [(&'static str, KeyRule)],
    /// `[mechanism]` keys beyond its pair keys: the inputs of its papers' bounds.
    pub extra_keys: &'static [&'static str],
    /// A check across the keys, run before the pair is built.
    pub check: Option<SpecCheck>,
    /// The paper's bounds at the spec's δ, certified to the given digits.
    pub bounds: Option<fn(&SpecParams<'_>, u32) -> Vec<PaperBound>>,
    /// The paper's bounds as curves over the given δ grid.
    pub profile_bounds: Option<ProfileBounds>,
    /// An RDP bound ε(α).
    pub rdp_bound: Option<RdpBound>,
    /// Where the pair's exact D_α is finite (see [`ExactRdp`]).
    pub exact_rdp: Option<ExactRdp>,
    /// The report's figures.
    pub panels: Option<Panels>,
    /// The text of the `[mechanism]` parameters in the report (default `k = v, …`).
    pub describe: Option<fn(&SpecParams<'_>) -> String>,
    /// The text of the `[pair]` inputs in the report (default `μ = a vs b` for locations,
    /// else `k = v, …`).
    pub describe_pair: Option<fn(&SpecParams<'_>) -> String>,
    /// Its curves in the privacy-against-location figure (needs a location model).
    pub location_curve: Option<LocationCurve>,
    /// Extra `dpaudit eval` keys and their check.
    pub row_check: Option<RowCheck>,
    /// Paper quantities of `dpaudit eval`.
    pub quantities: &'static [RowQuantity],
    /// Its positive controls, run by the report.
    pub controls: &'static [Control],
}

/// A positive control of a family: a deliberately broken sampler of its mechanism that claims
/// the correct mechanism's privacy, which an audit must catch (`crate::audit::controls`).
#[derive(Debug)]
pub struct Control {
    /// What is broken, with the parameters of the report's instance.
    pub description: &'static str,
    /// The seed of the report's audit of it.
    pub seed: u64,
    /// Builds the report's instance.
    pub build: fn() -> Result<super::BrokenDraws>,
}

impl SpecForm {
    /// The generic form: the family's vocabulary, its published guarantee as the bound.
    pub(crate) const GENERIC: SpecForm = SpecForm {
        rules: &[],
        extra_keys: &[],
        check: None,
        bounds: None,
        profile_bounds: None,
        rdp_bound: None,
        exact_rdp: None,
        panels: None,
        describe: None,
        describe_pair: None,
        location_curve: None,
        row_check: None,
        quantities: &[],
        controls: &[],
    };

    /// The rule of `key`, if it has one.
    pub(crate) fn rule(&self, key: &str) -> Option<KeyRule> {
        self.rules.iter().find(|(k, _)| *k == key).map(|(_, r)| *r)
    }
}

/// `n` points log-spaced from `lo` to `hi` (both > 0).
pub(crate) fn log_grid(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let (a, b) = (lo.ln(), hi.ln());
    (0..n)
        .map(|i| (a + (b - a) * i as f64 / (n - 1) as f64).exp())
        .collect()
}

/// Working precision of the α-optimisations (the value is a valid bound at any accuracy).
const OPT_BITS: u32 = 128;

/// An RDP curve converted with Canonne–Kamath–Steinke 2020, Prop. 12 and minimised over
/// α ∈ [lo, hi]; `rdp` returns D_α at the precision of its argument. Returns (ε, α*).
pub(crate) fn cks_of_curve<F>(rdp: F, lo: f64, hi: f64, delta: &Scalar) -> Result<(f64, f64)>
where
    F: FnMut(&rug::Float) -> Result<rug::Float>,
{
    use rug::Float;
    let (e, a) = crate::bounds::conversion::optimize_over_alpha(
        rdp,
        &Float::with_val(OPT_BITS, lo),
        &Float::with_val(OPT_BITS, hi),
        &delta.mp(OPT_BITS),
        crate::bounds::conversion::Conversion::CanonneKamathSteinke,
    )?;
    Ok((e.to_f64(), a.to_f64()))
}

/// α grid of the CKS conversions of tabulated RDP curves: α − 1 log-spaced in [10⁻³, hi − 1].
pub(crate) fn conversion_alphas(hi: f64) -> Vec<f64> {
    log_grid(1e-3, (hi - 1.0).max(2e-3), 400)
        .into_iter()
        .map(|t| 1.0 + t)
        .collect()
}

/// min over a tabulated RDP curve of its CKS conversion at `delta`.
pub(crate) fn cks_min(curve: &[(f64, f64)], delta: f64) -> Option<f64> {
    curve
        .iter()
        .filter_map(|&(a, d)| crate::bounds::conversion::cks_f64(d, a, delta).ok())
        .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))))
}

/// Formats a double with `sig` significant digits: plain notation in [1e-4, 1e6), otherwise
/// scientific with the mantissa's trailing zeros trimmed; "inf"/"nan" spelled out.
pub(crate) fn fmt_sig(x: f64, sig: usize) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if (1e-4..1e6).contains(&a) {
        let mag = a.log10().floor() as i32;
        let decimals = (sig as i32 - 1 - mag).max(0) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{x:.prec$e}", prec = sig - 1);
        // trim zeros of the mantissa: 1.50000e-7 -> 1.5e-7
        match s.split_once('e') {
            Some((m, e)) if m.contains('.') => {
                format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
            }
            _ => s,
        }
    }
}

/// The check of a spec on a support [a, b]: a < b (compared exactly, at 256 bits).
pub(crate) fn support_check(p: &SpecParams<'_>) -> std::result::Result<(), SpecIssue> {
    match (p.get("a"), p.get("b")) {
        (Some(a), Some(b)) if a.mp(256) >= b.mp(256) => Err(SpecIssue {
            field: "mechanism.a",
            value: a.to_string(),
            expected: format!("< mechanism.b = {b}"),
        }),
        _ => Ok(()),
    }
}
