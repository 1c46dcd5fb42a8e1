//! Experiment specs (`experiments/*.toml`) and the runner behind `dpaudit train`: Figure 1 of
//! HMB (suboptimality F(θ_t) − F* against t: mean over seeds with the min–max band) for each
//! split, as SVG and PNG with a CSV beside every plot, and a Markdown summary giving each curve's
//! certified privacy and a verdict on each of the paper's statements about the figure.
//!
//! `conventions = "paper" | "authors_code"` (or a list of both, shown side by side) selects the
//! clip threshold, 'bias' construction and RGM noise of HMB App. C's text or of the authors'
//! code (GitHub HadrienHx/RGM, commit 953a4314b63a31dd5d0eb5caf407eaf7390e350c), see
//! [`Conventions`] and `docs/training.md#the-authors-code-conventions`.
//!
//! `noise = "…"` names the registry family whose relative noise the private gradient descent
//! releases (HMB: `rgm`, the relative Gaussian mechanism); it must have the registry's
//! relative-noise hook ([`crate::model::noise::RelativeNoise`]), which also labels its curves.
//!
//! Besides the paper's releases (non-private, clipping at c/10, c, 10c, the relative noise, all at
//! per-step RDP (2, 0.1)), every split also runs clipping at threshold c with σ calibrated to the
//! relative noise's certified composed (ε, δ) ("clip c @ RGM's (eps, delta)" for HMB's RGM), which
//! answers whether the relative noise still beats clipping at equal certified (ε, δ). See
//! `docs/training.md#experiments`.

use super::band_plot::{plot_log_bands, Band, Frame};
use super::data::{synthetic, Dataset, SyntheticSpec};
use super::dpgd::{CodeRel, Conventions, NodeNoise, RdpTarget, Release, Split, TwoNode};
use super::hg_report::{check_name, check_seeds};
use super::privacy::{run_privacy, RunPrivacy};
use crate::audit::engine::Observer;
use crate::error::{Error, Result};
use crate::fsio::{write_atomic, Table};
use crate::model::noise::RelativeFamily;
use serde::Deserialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The authors' repository and commit the `authors_code` conventions follow (cited in outputs).
pub const AUTHORS_CODE: &str =
    "GitHub HadrienHx/RGM, commit 953a4314b63a31dd5d0eb5caf407eaf7390e350c";

/// `conventions` in an experiment file: one name or a list of names.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum ConventionsSpec {
    /// `conventions = "paper"`.
    One(String),
    /// `conventions = ["paper", "authors_code"]`: each is run and shown side by side.
    Many(Vec<String>),
}

impl Default for ConventionsSpec {
    fn default() -> Self {
        ConventionsSpec::One("paper".into())
    }
}

/// An experiment file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Name (names the output directory).
    pub name: String,
    /// `synthetic`, or a path to a `.csv` (label in column 0) or LIBSVM file.
    pub data: String,
    /// Records of the synthetic data (default 141,691).
    #[serde(default)]
    pub n: Option<usize>,
    /// Dimension of the synthetic data (default 22).
    #[serde(default)]
    pub d: Option<usize>,
    /// Standardise feature columns (default true for files, false for synthetic data).
    #[serde(default)]
    pub standardize: Option<bool>,
    /// μ_reg (paper: 0.03).
    #[serde(default = "default_mu")]
    pub mu_reg: f64,
    /// Steps T.
    pub steps: u32,
    /// Seeds (paper: 3 runs).
    pub seeds: Vec<u64>,
    /// Splits: any of `random`, `label`, `bias`.
    pub splits: Vec<String>,
    /// ‖B‖ for the 'bias' split under the paper's conventions (default 1).
    #[serde(default)]
    pub bias: Option<f64>,
    /// Each coordinate of the tilt t of the 'bias' split under the authors' code's conventions
    /// (default 100, the authors' `main.py`).
    #[serde(default)]
    pub tilt: Option<f64>,
    /// δ of the (ε, δ) accounts.
    #[serde(default = "default_delta")]
    pub delta: f64,
    /// `paper` (default), `authors_code`, or a list of both (run and shown side by side).
    #[serde(default)]
    pub conventions: ConventionsSpec,
    /// The registry family whose relative noise the private gradient descent releases (HMB:
    /// `rgm`); required.
    #[serde(default)]
    pub noise: Option<String>,
}

fn default_mu() -> f64 {
    0.03
}
fn default_bias() -> f64 {
    1.0
}
/// The authors' `main.py` tilt, `np.ones((d,)) * 1e2`.
fn default_tilt() -> f64 {
    100.0
}
fn default_delta() -> f64 {
    1e-5
}

impl Spec {
    /// Parses and checks a spec.
    pub fn parse(text: &str) -> Result<Self> {
        let s: Spec = toml::from_str(text).map_err(|e| Error::Parse {
            what: "experiment spec".into(),
            text: String::new(),
            reason: e.to_string(),
        })?;
        Self::check(s)
    }

    /// Checks a deserialised spec.
    fn check(s: Spec) -> Result<Self> {
        check_name(&s.name)?;
        if s.steps == 0 {
            return Err(Error::invalid("steps", 0, ">= 1"));
        }
        check_seeds(&s.seeds)?;
        s.noise_family()?;
        let convs = s.conventions()?;
        if s.bias.is_some() && !convs.contains(&Conventions::Paper) {
            return Err(Error::invalid(
                "bias",
                s.bias.unwrap_or_default(),
                "given only with the paper's conventions (authors_code's 'bias' split uses tilt)",
            ));
        }
        if s.tilt.is_some() && !convs.contains(&Conventions::AuthorsCode) {
            return Err(Error::invalid(
                "tilt",
                s.tilt.unwrap_or_default(),
                "given only with conventions = \"authors_code\" (the paper's 'bias' split uses bias)",
            ));
        }
        for sp in &s.splits {
            for &c in &convs {
                s.split_of(sp, c)?;
            }
        }
        Ok(s)
    }

    /// The family named by `noise`, with its relative noise; an error naming the key when it is
    /// missing, unknown, or a family without the registry's relative-noise hook.
    pub fn noise_family(&self) -> Result<RelativeFamily> {
        match &self.noise {
            Some(name) => RelativeFamily::named("noise", name),
            None => Err(Error::MissingParameter {
                name: "noise".into(),
                needed_by: "the experiment spec (the registry family of the private gradient \
                            descent's relative noise)"
                    .into(),
            }),
        }
    }

    /// The conventions to run, in the order given (at least one, no repeats).
    pub fn conventions(&self) -> Result<Vec<Conventions>> {
        let names: Vec<&str> = match &self.conventions {
            ConventionsSpec::One(s) => vec![s.as_str()],
            ConventionsSpec::Many(v) => v.iter().map(String::as_str).collect(),
        };
        if names.is_empty() {
            return Err(Error::invalid(
                "conventions",
                "[]",
                "\"paper\", \"authors_code\" or a list of them",
            ));
        }
        let mut out: Vec<Conventions> = Vec::new();
        for n in names {
            let c = Conventions::parse(n)?;
            if out.contains(&c) {
                return Err(Error::invalid("conventions", n, "each name at most once"));
            }
            out.push(c);
        }
        Ok(out)
    }

    /// The split `s` stands for under `conv` ('bias': ±B for the paper, the tilt for the code).
    fn split_of(&self, s: &str, conv: Conventions) -> Result<Split> {
        match (s, conv) {
            ("random", _) => Ok(Split::Random),
            ("label", _) => Ok(Split::Label),
            ("bias", Conventions::Paper) => Ok(Split::Bias {
                magnitude: self.bias.unwrap_or_else(default_bias),
            }),
            ("bias", Conventions::AuthorsCode) => {
                let t = self.tilt.unwrap_or_else(default_tilt);
                if !t.is_finite() {
                    return Err(Error::invalid("tilt", t, "finite"));
                }
                Ok(Split::Tilt { per_coordinate: t })
            }
            _ => Err(Error::invalid("split", s, "random, label or bias")),
        }
    }

    fn dataset(&self, base: &Path) -> Result<Dataset> {
        let mut data = if self.data == "synthetic" {
            let mut sp = SyntheticSpec::ijcnn1_scale();
            sp.n = self.n.unwrap_or(sp.n);
            sp.d = self.d.unwrap_or(sp.d);
            // The data are drawn once (seed 0); the run seeds vary split and noise.
            synthetic(&sp, 0)?
        } else {
            let p = base.join(&self.data);
            if p.extension().and_then(|e| e.to_str()) == Some("csv") {
                Dataset::read_csv(&p, 0)?
            } else {
                Dataset::read_libsvm(&p, self.d)?
            }
        };
        if self.standardize.unwrap_or(self.data != "synthetic") {
            data.standardize();
        }
        Ok(data)
    }
}

/// A curve's privacy.
#[derive(Debug, Clone)]
pub enum Privacy {
    /// The non-private run.
    NonPrivate,
    /// Certified (worse node).
    Certified(RunPrivacy),
    /// Private in intent, but dpaudit has no certified accountant for it (why).
    NotCertified(String),
}

/// One curve: label, per-t mean, min and max over seeds, and its privacy.
#[derive(Debug, Clone)]
pub struct Curve {
    /// Legend label.
    pub label: String,
    /// Mean over seeds of F(θ_t) − F* (summed in seed order).
    pub mean: Vec<f64>,
    /// min over seeds of F(θ_t) − F*.
    pub min: Vec<f64>,
    /// max over seeds.
    pub max: Vec<f64>,
    /// Privacy.
    pub privacy: Privacy,
}

/// All curves of one split under one set of conventions.
#[derive(Debug, Clone)]
pub struct SplitResult {
    /// Split name.
    pub split: String,
    /// Conventions the curves follow.
    pub conventions: Conventions,
    /// Curves.
    pub curves: Vec<Curve>,
    /// Releases that could not run, with the reason (e.g. RGM outside Theorem 1's range).
    pub skipped: Vec<String>,
    /// The parameters the conventions set (first seed's split), one line each.
    pub params: Vec<String>,
    /// The label of the relative noise's curve (its family's [`RelativeNoise::label`]).
    ///
    /// [`RelativeNoise::label`]: crate::model::noise::RelativeNoise::label
    pub noise_label: &'static str,
}

impl SplitResult {
    /// The output file stem: the split's name, with `_authors_code` under the code's conventions.
    pub fn stem(&self) -> String {
        match self.conventions {
            Conventions::Paper => self.split.clone(),
            c => format!("{}_{}", self.split, c.name()),
        }
    }
}

/// The parameters of node i of `pb` under its conventions, for the summary.
fn params_of(pb: &TwoNode, noise: RelativeFamily, target: RdpTarget) -> Vec<String> {
    let label = noise.noise.label();
    let mut out = Vec::new();
    for (i, nd) in pb.nodes.iter().enumerate() {
        let mut line = format!(
            "node {}: N = {}, clip threshold c = {:.6e}",
            i + 1,
            nd.data.n,
            nd.clip_c
        );
        match NodeNoise::for_node(nd, Release::Relative(noise), target) {
            Ok(NodeNoise::Relative { gamma, sigma2, .. }) => {
                let _ = write!(
                    line,
                    "; {label}: eta = {:.6e}, R_rel = {:.6e}, gamma = {:.6e}, sigma^2 = {:.6e} (variance gamma |g|^2 + sigma^2)",
                    nd.rel.eta, nd.rel.r_rel, gamma, sigma2
                );
            }
            Ok(NodeNoise::CodeRelative { gamma, sigma, .. }) => {
                let cr = nd.code_rel.unwrap_or(CodeRel {
                    delta: f64::NAN,
                    r_star: f64::NAN,
                });
                let _ = write!(
                    line,
                    "; {label} (authors' code): delta = {:.6e}, R = {:.6e}, gamma = {:.6e}, sigma = {:.6e} (standard deviation gamma |g| + sigma)",
                    cr.delta, cr.r_star, gamma, sigma
                );
            }
            Ok(_) => {}
            Err(e) => {
                let _ = write!(line, "; {label} not applicable ({e})");
            }
        }
        if let Some(t) = &nd.shift {
            let _ = write!(line, "; objective translated by t, |t| = {:.6e}", t.norm());
        }
        out.push(line);
    }
    out
}

/// Gradient coordinates per second of one two-node DP-GD run (one core), for
/// [`Spec::estimate`]: measured on the committed breast-cancer table (the quick experiment).
const HMB_RATE: f64 = 2e8;

impl Spec {
    /// The work of the experiment on `data` (gradient coordinates: conventions × splits × 6
    /// releases × seeds × steps × n × d), after checking that its curves and data copies fit in memory.
    pub fn estimate(&self, data: &Dataset) -> Result<crate::limits::Estimate> {
        use crate::limits::product;
        let convs = self.conventions()?.len() as u128;
        let (splits, seeds) = (convs * self.splits.len() as u128, self.seeds.len() as u128);
        let steps = u128::from(self.steps) + 1;
        // Per seed: the two nodes' records and the n × d copies and d × d Gram matrices of the
        // three ridge problems (nodes and global); the data themselves; min and max curves for
        // 6 releases per split, plus the curve of the run in progress.
        let (n, d) = (data.n as u128, data.d as u128);
        let bytes = [
            product(&[n, d, 8, 2 + 4 * seeds]),
            product(&[d, d, 8, 4 * seeds]),
            product(&[steps, 8, 12 * splits + 1]),
        ]
        .into_iter()
        .try_fold(0u128, |acc, b| b.and_then(|b| acc.checked_add(b)));
        crate::limits::check_memory(
            "steps",
            self.steps,
            &format!("the curves and data of {splits} split runs (splits × conventions) and {seeds} seeds"),
            bytes,
        )?;
        let work = splits as f64
            * 6.0
            * seeds as f64
            * f64::from(self.steps)
            * data.n as f64
            * data.d as f64;
        Ok(crate::limits::Estimate::new(
            "gradient coordinates",
            work,
            HMB_RATE,
        ))
    }
}

/// Runs every conventions × split × release × seed of `spec` (`base` resolves a relative data path), telling
/// `progress` of each finished run.
pub fn run(spec: &Spec, base: &Path, progress: &Observer) -> Result<Vec<SplitResult>> {
    run_confirmed(spec, base, progress, true)
}

/// [`run`], refusing a run estimated over an hour unless `yes` ([`Spec::estimate`]).
pub(crate) fn run_confirmed(
    spec: &Spec,
    base: &Path,
    progress: &Observer,
    yes: bool,
) -> Result<Vec<SplitResult>> {
    if spec.data == "synthetic" {
        let sp = SyntheticSpec::ijcnn1_scale();
        super::data::check_table_size(spec.n.unwrap_or(sp.n), spec.d.unwrap_or(sp.d), 1)?;
    }
    let convs = spec.conventions()?;
    let noise = spec.noise_family()?;
    let data = spec.dataset(base)?;
    spec.estimate(&data)?
        .confirm(&format!("experiment {:?}", spec.name), yes)?;
    let target = RdpTarget::default();
    let nseeds = spec.seeds.len() as u64;
    progress.start(convs.len() as u64 * spec.splits.len() as u64 * 6 * nseeds);
    let mut out = Vec::new();
    for &conv in &convs {
        for sname in &spec.splits {
            out.push(run_split(
                spec, &data, conv, sname, noise, target, progress,
            )?);
        }
    }
    progress.finish();
    Ok(out)
}

fn run_split(
    spec: &Spec,
    data: &Dataset,
    conv: Conventions,
    sname: &str,
    noise: RelativeFamily,
    target: RdpTarget,
    progress: &Observer,
) -> Result<SplitResult> {
    let nseeds = spec.seeds.len() as u64;
    let problems = two_node_problems(spec, data, conv, sname)?;
    let (releases, skipped) = releases_of(spec, conv, &problems, noise, target)?;
    // Progress counts six releases per split; the ones not run are counted as done.
    progress.advance(6u64.saturating_sub(releases.len() as u64) * nseeds);
    let mut curves = Vec::new();
    for (label, rel) in releases {
        let (sum, min, max) = seed_band(spec, &problems, rel, target, progress)?;
        curves.push(Curve {
            label,
            mean: sum.iter().map(|s| s / spec.seeds.len() as f64).collect(),
            min,
            max,
            privacy: privacy_of(spec, conv, &problems[0], rel, target)?,
        });
    }
    Ok(SplitResult {
        split: sname.to_string(),
        conventions: conv,
        curves,
        skipped,
        params: params_of(&problems[0], noise, target),
        noise_label: noise.noise.label(),
    })
}

/// The two-node problem of split `sname` for every seed. `--max-seconds` covers the set-up too
/// (a few seconds per seed at ijcnn1 scale).
fn two_node_problems(
    spec: &Spec,
    data: &Dataset,
    conv: Conventions,
    sname: &str,
) -> Result<Vec<TwoNode>> {
    let split = spec.split_of(sname, conv)?;
    let problems: Vec<TwoNode> = spec
        .seeds
        .iter()
        .map(|&s| {
            crate::limits::check_deadline("the two-node set-up")?;
            TwoNode::with_conventions(data, spec.mu_reg, split, s, conv)
        })
        .collect::<Result<_>>()?;
    crate::limits::check_deadline("the two-node set-up")?;
    Ok(problems)
}

/// The releases of a split, each with its label.
type Releases = Vec<(String, Release)>;

/// The releases run on a split (label, release) and the reasons of those skipped: the
/// non-private and clipped ones always, the relative noise when it can meet the per-step target,
/// and under the paper's conventions the clip matched to its certified (ε, δ).
fn releases_of(
    spec: &Spec,
    conv: Conventions,
    problems: &[TwoNode],
    noise: RelativeFamily,
    target: RdpTarget,
) -> Result<(Releases, Vec<String>)> {
    let label = noise.noise.label();
    let relative = Release::Relative(noise);
    let mut skipped = Vec::new();
    let mut releases = vec![
        ("non-private".to_string(), Release::NonPrivate),
        ("clip c/10".to_string(), Release::Clip { factor: 0.1 }),
        ("clip c".to_string(), Release::Clip { factor: 1.0 }),
        ("clip 10c".to_string(), Release::Clip { factor: 10.0 }),
    ];
    match conv {
        Conventions::Paper => {
            // The relative noise's tightest certified composed ε at δ (worse node, first seed's
            // split; the RDP route on the exact worst case, for the RGM docs/formulas.md §5.4)
            // sets the matched clip. If the noise cannot meet the per-step target (the RGM: η
            // too large for Theorem 1), it is skipped and the reason reported, not silently
            // dropped.
            let noise_priv = match problems
                .iter()
                .map(|pb| run_privacy(&pb.nodes, relative, target, spec.steps, spec.delta))
                .collect::<Result<Vec<_>>>()
            {
                Ok(v) => v.into_iter().next().flatten(),
                Err(e) => {
                    skipped.push(format!("{label} (and clip at {label}'s (eps, delta)): {e}"));
                    None
                }
            };
            if let Some(p) = noise_priv {
                releases.push((label.to_string(), relative));
                releases.push((
                    format!("clip c @ {label}'s (eps, delta)"),
                    Release::ClipMatched {
                        factor: 1.0,
                        eps: p.certified_eps(),
                        delta: spec.delta,
                        steps: spec.steps,
                    },
                ));
            }
        }
        Conventions::AuthorsCode => {
            let noise_ok = problems
                .iter()
                .flat_map(|pb| pb.nodes.iter())
                .try_for_each(|nd| NodeNoise::for_node(nd, relative, target).map(|_| ()));
            match noise_ok {
                Ok(()) => releases.push((label.to_string(), relative)),
                Err(e) => skipped.push(format!("{label}: {e}")),
            }
            skipped.push(format!(
                "clip c @ {label}'s (eps, delta): the authors' code's {label} noise has no \
                 certified (eps, delta) to match"
            ));
        }
    }
    Ok((releases, skipped))
}

/// The sum, minimum and maximum over seeds of release `rel`'s curve, each seed's run advancing
/// `progress` by one.
///
/// The accumulators are made from the first run's curve, not allocated up front: three vectors
/// of steps + 1 doubles written before the first step (2.4 GB at 10^8 steps) took seconds, past
/// any `--max-seconds`. Same operations as from (0, +inf, -inf).
fn seed_band(
    spec: &Spec,
    problems: &[TwoNode],
    rel: Release,
    target: RdpTarget,
    progress: &Observer,
) -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let (mut sum, mut min, mut max) = (Vec::new(), Vec::new(), Vec::new());
    for (pb, &seed) in problems.iter().zip(&spec.seeds) {
        let sub = pb.run(rel, target, spec.steps as usize, seed)?;
        if sum.is_empty() {
            sum = sub.iter().map(|v| 0.0 + v).collect();
            min = sub.iter().map(|v| f64::INFINITY.min(*v)).collect();
            max = sub.iter().map(|v| f64::NEG_INFINITY.max(*v)).collect();
        } else {
            for (t, v) in sub.iter().enumerate() {
                sum[t] += *v;
                min[t] = min[t].min(*v);
                max[t] = max[t].max(*v);
            }
        }
        progress.advance(1);
    }
    Ok((sum, min, max))
}

/// The privacy of release `rel` (first seed's problem): certified, non-private, or not
/// certified (the authors' code's form of the relative noise, with the reason).
fn privacy_of(
    spec: &Spec,
    conv: Conventions,
    first: &TwoNode,
    rel: Release,
    target: RdpTarget,
) -> Result<Privacy> {
    if let (Release::Relative(noise), Conventions::AuthorsCode) = (rel, conv) {
        return Ok(Privacy::NotCertified(format!(
            "the authors' code's {} noise (standard deviation gamma|g| + sigma) is not HMB \
             Definition 3's (variance gamma|g|^2 + sigma^2); Theorem 1 does not cover it and \
             dpaudit has no accountant for it",
            noise.noise.label()
        )));
    }
    Ok(
        match run_privacy(&first.nodes, rel, target, spec.steps, spec.delta)? {
            Some(p) => Privacy::Certified(p),
            None => Privacy::NonPrivate,
        },
    )
}

fn plot(dir: &Path, title: &str, r: &SplitResult) -> Result<()> {
    let Some(first) = r.curves.first() else {
        return Ok(());
    };
    let all = r
        .curves
        .iter()
        .flat_map(|c| c.min.iter().chain(&c.max).chain(&c.mean));
    let pos: Vec<f64> = all.copied().filter(|v| *v > 0.0 && v.is_finite()).collect();
    let lo = pos
        .iter()
        .copied()
        .fold(f64::INFINITY, f64::min)
        .max(1e-300);
    let hi = pos.iter().copied().fold(0.0, f64::max).max(lo * 10.0);
    let (ly0, ly1) = (lo.log10(), hi.log10());
    let pad = 0.03 * (ly1 - ly0);
    let y = (ly0 - pad, ly1 + pad);
    let steps = first.min.len() - 1;
    let lg = |v: f64| v.max(lo).log10();
    let bands: Vec<Band<(f64, f64)>> = r
        .curves
        .iter()
        .map(|c| Band {
            label: c.label.clone(),
            band: c
                .max
                .iter()
                .enumerate()
                .map(|(t, v)| (t as f64, lg(*v)))
                .chain(
                    c.min
                        .iter()
                        .enumerate()
                        .rev()
                        .map(|(t, v)| (t as f64, lg(*v))),
                )
                .collect(),
            line: c
                .mean
                .iter()
                .enumerate()
                .map(|(t, v)| (t as f64, lg(*v)))
                .collect(),
        })
        .collect();
    let frame = Frame {
        title,
        title_size: 20,
        y_label_area: 80,
        x_desc: "step t",
        y_desc: "F(theta_t) - F*   (mean over seeds, band min-max)",
    };
    plot_log_bands(dir, &r.stem(), &frame, steps, y, &bands)
}

/// The last value of a curve, to 5 significant digits.
fn last(v: &[f64]) -> String {
    v.last().map_or("—".into(), |x| format!("{x:.4e}"))
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.6}"))
}

/// The summary row of each curve: final suboptimality and certified privacy ("∞" for the
/// non-private run, "not certified" where dpaudit has no accountant).
fn summary_table(r: &SplitResult) -> Table {
    // A privacy cell: `f` of the run's certified privacy, `none` for the non-private run.
    fn private(c: &Curve, none: &str, f: impl Fn(&RunPrivacy) -> String) -> String {
        match &c.privacy {
            Privacy::NonPrivate => none.into(),
            Privacy::Certified(p) => f(p),
            Privacy::NotCertified(_) => "not certified".into(),
        }
    }
    Table::of(
        &r.curves,
        &[
            ("release", |c| c.label.clone()),
            ("final mean", |c| last(&c.mean)),
            ("final min", |c| last(&c.min)),
            ("final max", |c| last(&c.max)),
            ("paper RDP(α=2)", |c| {
                private(c, "∞ (non-private)", |p| {
                    format!("{:.6}", p.paper_rdp_alpha2)
                })
            }),
            ("exact RDP(α=2)", |c| {
                private(c, "∞", |p| format!("{:.6}", p.exact_rdp_alpha2))
            }),
            ("RDP→DP ε (α*), paper", |c| {
                private(c, "∞", |p| {
                    format!("{:.6} ({:.2})", p.rdp_opt_eps, p.rdp_opt_alpha)
                })
            }),
            ("RDP→DP ε (α*), exact RDP", |c| {
                private(c, "∞", |p| {
                    format!("{:.6} ({:.2})", p.exact_rdp_opt_eps, p.exact_rdp_opt_alpha)
                })
            }),
            ("exact ε", |c| private(c, "∞", |p| fmt_opt(p.exact_eps))),
        ],
    )
}

/// The curves of one split: t, the min and max over seeds of each curve, then each curve's
/// mean over seeds (appended, so that the min/max columns keep their places).
fn csv_of(r: &SplitResult) -> Table {
    let mut header = vec!["t".to_string()];
    for c in &r.curves {
        header.push(format!("{} min", c.label));
        header.push(format!("{} max", c.label));
    }
    for c in &r.curves {
        header.push(format!("{} mean", c.label));
    }
    let mut t = Table::new(&header);
    let steps = r.curves.first().map_or(0, |c| c.min.len());
    for i in 0..steps {
        let mut row = vec![i.to_string()];
        for c in &r.curves {
            row.push(format!("{:e}", c.min[i]));
            row.push(format!("{:e}", c.max[i]));
        }
        for c in &r.curves {
            row.push(format!("{:e}", c.mean[i]));
        }
        t.push(row);
    }
    t
}

/// "Works well": a final mean within this factor of the reference (non-private run, or the best
/// clipping threshold).
pub(crate) const WELL: f64 = 2.0;

/// A verdict on one of the paper's statements about Figure 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The runs show it.
    Reproduced,
    /// The runs contradict it.
    NotReproduced,
    /// The runs cannot decide it (a split or a release is missing, or uncertified).
    NotCheckable,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Reproduced => "**reproduced**",
            Verdict::NotReproduced => "**not reproduced**",
            Verdict::NotCheckable => "not checkable",
        }
    }
}

/// The final step's mean, min and max of `label` on `r`.
fn fin(r: &SplitResult, label: &str) -> Option<(f64, f64, f64)> {
    let c = r.curves.iter().find(|c| c.label == label)?;
    Some((*c.mean.last()?, *c.min.last()?, *c.max.last()?))
}

const CLIPS: [&str; 3] = ["clip c/10", "clip c", "clip 10c"];

/// The clipping threshold with the smallest final mean on `r`, with its (mean, min, max).
fn best_clip(r: &SplitResult) -> Option<(&'static str, (f64, f64, f64))> {
    CLIPS
        .iter()
        .filter_map(|&l| Some((l, fin(r, l)?)))
        .min_by(|a, b| a.1 .0.total_cmp(&b.1 .0))
}

/// One of the paper's statements about Figure 1, its source and how the runs decide it.
pub struct Statement {
    /// The paper's words.
    pub quote: &'static str,
    /// Where HMB say it.
    pub source: &'static str,
    /// The test applied to the runs (at the last step T).
    pub test: &'static str,
    check: fn(&[&SplitResult]) -> (Verdict, String),
}

fn by_split<'a>(rs: &[&'a SplitResult], name: &str) -> Option<&'a SplitResult> {
    rs.iter().copied().find(|r| r.split == name)
}

fn ratio_line(parts: &[(String, f64)]) -> String {
    parts
        .iter()
        .map(|(s, v)| format!("{s} {v:.3}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_equivalent_rdp(rs: &[&SplitResult]) -> (Verdict, String) {
    let mut label = "the relative noise";
    for r in rs {
        label = r.noise_label;
        let get = |l: &str| r.curves.iter().find(|c| c.label == l).map(|c| &c.privacy);
        match (get("clip c"), get(label)) {
            (Some(Privacy::Certified(c)), Some(Privacy::Certified(g))) => {
                let rel = (c.exact_rdp_alpha2 / g.exact_rdp_alpha2 - 1.0).abs();
                let v = if rel <= 0.01 {
                    Verdict::Reproduced
                } else {
                    Verdict::NotReproduced
                };
                return (
                    v,
                    format!(
                        "{}: T-step RDP at α = 2, clipping {:.4} vs {label} {:.4} (exact, replace-one)",
                        r.split, c.exact_rdp_alpha2, g.exact_rdp_alpha2
                    ),
                );
            }
            (_, Some(Privacy::NotCertified(_))) => {
                return (
                    Verdict::NotCheckable,
                    format!("{label}'s noise here has no certified accountant"),
                )
            }
            _ => {}
        }
    }
    (Verdict::NotCheckable, format!("{label} was not run"))
}

fn check_some_clip_works(rs: &[&SplitResult]) -> (Verdict, String) {
    let mut parts = Vec::new();
    let mut ok = !rs.is_empty();
    for r in rs {
        let (Some(np), Some((l, b))) = (fin(r, "non-private"), best_clip(r)) else {
            return (
                Verdict::NotCheckable,
                format!("{}: curves missing", r.split),
            );
        };
        let q = b.0 / np.0;
        ok &= q <= WELL;
        parts.push((format!("{} best {l}:", r.split), q));
    }
    let v = if ok {
        Verdict::Reproduced
    } else {
        Verdict::NotReproduced
    };
    (
        v,
        format!("best clip / non-private: {}", ratio_line(&parts)),
    )
}

fn check_threshold_problem_dependent(rs: &[&SplitResult]) -> (Verdict, String) {
    if rs.len() < 2 {
        return (Verdict::NotCheckable, "needs two splits".into());
    }
    let bests: Vec<(&SplitResult, &str, (f64, f64, f64))> = rs
        .iter()
        .filter_map(|r| best_clip(r).map(|(l, b)| (*r, l, b)))
        .collect();
    let names = bests
        .iter()
        .map(|(r, l, _)| format!("{} {l}", r.split))
        .collect::<Vec<_>>()
        .join(", ");
    // Clear: on some split s', the threshold best on another split s has its band entirely above
    // the band of the threshold best on s'.
    for (r2, l2, b2) in &bests {
        for (_, l1, _) in &bests {
            if l1 != l2 {
                if let Some(f) = fin(r2, l1) {
                    if f.1 > b2.2 {
                        return (
                            Verdict::Reproduced,
                            format!(
                                "best: {names}; on {} {l1} ({:.3e}–{:.3e}) lies above {l2} ({:.3e}–{:.3e})",
                                r2.split, f.1, f.2, b2.1, b2.2
                            ),
                        );
                    }
                }
            }
        }
    }
    (
        Verdict::NotReproduced,
        format!("best: {names}; no split where another split's best threshold is clearly worse"),
    )
}

fn check_small_thresholds(rs: &[&SplitResult]) -> (Verdict, String) {
    let mut parts = Vec::new();
    let mut ok = true;
    for name in ["random", "label"] {
        let Some(r) = by_split(rs, name) else {
            continue;
        };
        let (Some(np), Some(lo)) = (fin(r, "non-private"), fin(r, "clip c/10")) else {
            continue;
        };
        ok &= lo.0 / np.0 <= WELL;
        parts.push((format!("{name}:"), lo.0 / np.0));
    }
    if parts.is_empty() {
        return (Verdict::NotCheckable, "no 'random' or 'label' split".into());
    }
    let v = if ok {
        Verdict::Reproduced
    } else {
        Verdict::NotReproduced
    };
    (
        v,
        format!("clip c/10 / non-private: {}", ratio_line(&parts)),
    )
}

fn check_large_thresholds_bias(rs: &[&SplitResult]) -> (Verdict, String) {
    let Some(r) = by_split(rs, "bias") else {
        return (Verdict::NotCheckable, "no 'bias' split".into());
    };
    let (Some(lo), Some(hi)) = (fin(r, "clip c/10"), fin(r, "clip 10c")) else {
        return (Verdict::NotCheckable, "curves missing".into());
    };
    let v = if hi.2 < lo.1 {
        Verdict::Reproduced
    } else {
        Verdict::NotReproduced
    };
    (
        v,
        format!(
            "bias: clip 10c {:.3e}–{:.3e}, clip c/10 {:.3e}–{:.3e}",
            hi.1, hi.2, lo.1, lo.2
        ),
    )
}

fn check_no_tuning(rs: &[&SplitResult]) -> (Verdict, String) {
    let mut parts = Vec::new();
    let mut ok = !rs.is_empty();
    let mut label = "the relative noise";
    for r in rs {
        label = r.noise_label;
        let Some((l, b)) = best_clip(r) else {
            return (
                Verdict::NotCheckable,
                format!("{}: curves missing", r.split),
            );
        };
        match fin(r, label) {
            Some(g) => {
                ok &= g.0 / b.0 <= WELL;
                parts.push((format!("{} (vs {l}):", r.split), g.0 / b.0));
            }
            None => {
                return (
                    Verdict::NotCheckable,
                    format!(
                        "{}: {label} not applicable to these data (see 'Not run')",
                        r.split
                    ),
                )
            }
        }
    }
    let v = if ok {
        Verdict::Reproduced
    } else {
        Verdict::NotReproduced
    };
    (v, format!("{label} / best clip: {}", ratio_line(&parts)))
}

fn check_low_threshold_small_bias(rs: &[&SplitResult]) -> (Verdict, String) {
    let mut parts = Vec::new();
    let mut ok = !rs.is_empty();
    for r in rs {
        let (Some(lo), Some(c)) = (fin(r, "clip c/10"), fin(r, "clip c")) else {
            return (
                Verdict::NotCheckable,
                format!("{}: curves missing", r.split),
            );
        };
        ok &= lo.0 / c.0 <= WELL;
        parts.push((format!("{}:", r.split), lo.0 / c.0));
    }
    let v = if ok {
        Verdict::Reproduced
    } else {
        Verdict::NotReproduced
    };
    (v, format!("clip c/10 / clip c: {}", ratio_line(&parts)))
}

/// HMB's qualitative statements about Figure 1 (§6 and App. C.1), each with its test.
pub fn statements() -> Vec<Statement> {
    vec![
        Statement {
            quote: "private gradient descent algorithms with equivalent RDP guarantees",
            source: "Figure 1 caption",
            test: "clip c's and RGM's T-step RDP at α = 2 (exact, replace-one) agree within 1 %",
            check: check_equivalent_rdp,
        },
        Statement {
            quote: "there is generally always a clipping threshold that works well",
            source: "§6",
            test: "on every split, the best of c/10, c, 10c ends within 2× the non-private run",
            check: check_some_clip_works,
        },
        Statement {
            quote: "this threshold is problem-dependent",
            source: "§6",
            test: "the best threshold differs between splits, and on some split another split's \
                   best has its min–max band at T entirely above that split's best",
            check: check_threshold_problem_dependent,
        },
        Statement {
            quote: "Small thresholds work well for homogeneous objectives or with label \
                    heterogeneity",
            source: "§6",
            test: "on 'random' and 'label', clip c/10 ends within 2× the non-private run",
            check: check_small_thresholds,
        },
        Statement {
            quote: "larger clipping thresholds handle bias heterogeneity better",
            source: "§6",
            test: "on 'bias', clip 10c's min–max band at T lies entirely below clip c/10's",
            check: check_large_thresholds_bias,
        },
        Statement {
            quote: "the Relative Gaussian mechanism is, in this case, able to deal with \
                    heterogeneity without such tuning",
            source: "§6",
            test: "on every split RGM runs and ends within 2× the best clipping threshold",
            check: check_no_tuning,
        },
        Statement {
            quote: "thresholds significantly lower than c_i do not introduce such a large bias \
                    still",
            source: "App. C.1",
            test: "on every split, clip c/10 ends within 2× clip c",
            check: check_low_threshold_small_bias,
        },
    ]
}

/// Each statement's verdict and evidence under each of `convs` (columns in that order).
pub fn judge(results: &[SplitResult], convs: &[Conventions]) -> Vec<Vec<(Verdict, String)>> {
    statements()
        .iter()
        .map(|st| {
            convs
                .iter()
                .map(|&c| {
                    let rs: Vec<&SplitResult> =
                        results.iter().filter(|r| r.conventions == c).collect();
                    (st.check)(&rs)
                })
                .collect()
        })
        .collect()
}

fn conventions_note(c: Conventions) -> String {
    match c {
        Conventions::Paper => "HMB App. C as printed: c_i = max_j ‖∇f_ij(θ_i*)‖; 'bias' adds \
             ±⟨B, θ⟩ to the two nodes (‖B‖ from `bias`); RGM noise variance γ‖ḡ‖² + σ² with γ, σ² \
             from Theorem 1 and η, R_rel from eqs. (10)–(11) with their constants."
            .to_string(),
        Conventions::AuthorsCode => format!(
            "the authors' code ({AUTHORS_CODE}; `noisers.py`, `model.py`, `main.py`): \
             c_i = √(Σ_j ‖∇f_ij(θ_i*)‖²) (`autoset_clipping_threshold` takes the norm of the whole \
             matrix of per-record gradients); 'bias' translates node 2's objective, \
             f_2(θ) = f(θ − t), t = `tilt`·(1, …, 1) (`TiltedLinearRegression`); RGM noise with \
             per-coordinate *standard deviation* γ‖ḡ‖ + σ, γ = δ√(α/ε), σ = R√(α/ε), \
             δ = max_j ‖X_j − X̄‖‖A⁻¹(X_j − X̄)‖/N, R = δ‖b‖ + max_j ‖y_j X_j‖/N \
             (`UnboundedNoiser`; the code switches RGM off when δ > 1). Step size, iteration, \
             clipped-Gaussian noise σ² = αc²/(εN²) and the 'random'/'label' splits are the paper's."
        ),
    }
}

/// Writes `<out>/<name>/<stem>.{csv,svg,png}` for every split and conventions, and
/// `<out>/<name>/summary.md`; returns the summary.
pub(crate) fn write_outputs(spec: &Spec, results: &[SplitResult], out: &Path) -> Result<String> {
    let dir: PathBuf = out.join(&spec.name);
    std::fs::create_dir_all(&dir).map_err(|e| Error::Io(format!("{}: {e}", dir.display())))?;
    let convs = spec.conventions()?;
    let mut md = String::new();
    let _ =
        writeln!(
        md,
        "# Training experiment `{}`\n\nData: `{}`; μ_reg = {}; T = {} steps; seeds {:?}; δ = {}; \
         conventions: {}.\n\
         Curves: F(θ_t) − F* with F = ½(f₁ + f₂), mean over seeds (line) and min–max over seeds \
         (band). Privacy of the worse node, replace-one \
         neighbours; ε values certified to 12 digits and printed to 6 decimals. \
         'paper' = per-step RDP at α = 2 summed (an RDP ε at α = 2), from the paper's bound \
         (RGM: Theorem 1); 'exact RDP' = the same from the exact worst case over admissible \
         pairs (RGM: docs/formulas.md §5.4); 'RDP→DP' = (ε, δ) by the RDP route optimised over \
         α, on the paper's bound and on the exact worst case; 'exact ε' = exact composed (ε, δ) \
         (Gaussian only). The matched clip takes RGM's tightest certified ε.\n",
        spec.name,
        spec.data,
        spec.mu_reg,
        spec.steps,
        spec.seeds,
        spec.delta,
        convs.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
    );
    for &c in &convs {
        let _ = writeln!(md, "Conventions '{}': {}\n", c.name(), conventions_note(c));
    }
    for &c in &convs {
        if convs.len() > 1 {
            let _ = writeln!(md, "# Conventions '{}'\n", c.name());
        }
        for r in results.iter().filter(|r| r.conventions == c) {
            let stem = r.stem();
            csv_of(r).write(&dir.join(format!("{stem}.csv")))?;
            plot(
                &dir,
                &format!(
                    "{} — split '{}' — {} conventions",
                    spec.name,
                    r.split,
                    c.name()
                ),
                r,
            )?;
            let _ = writeln!(
                md,
                "## Split '{0}', {1} conventions ([png]({2}.png), [svg]({2}.svg), [csv]({2}.csv))\n",
                r.split,
                c.name(),
                stem
            );
            md.push_str(&summary_table(r).markdown());
            md.push('\n');
            for p in &r.params {
                let _ = writeln!(md, "- {p}");
            }
            for cv in &r.curves {
                if let Privacy::NotCertified(why) = &cv.privacy {
                    let _ = writeln!(md, "\n'{}' not certified: {why}.", cv.label);
                }
            }
            for sk in &r.skipped {
                let _ = writeln!(md, "\nNot run: {sk}");
            }
            md.push('\n');
        }
    }
    if convs.len() > 1 {
        let _ = writeln!(md, "# Side by side\n");
        let mut t = Table::new(
            &std::iter::once("split".to_string())
                .chain(convs.iter().map(|c| c.name().to_string()))
                .collect::<Vec<_>>(),
        );
        for s in &spec.splits {
            let mut row = vec![s.clone()];
            for &c in &convs {
                let stem = results
                    .iter()
                    .find(|r| r.conventions == c && &r.split == s)
                    .map_or(String::new(), SplitResult::stem);
                row.push(format!("![{s}, {}]({stem}.png)", c.name()));
            }
            t.push(row);
        }
        md.push_str(&t.markdown());
        md.push('\n');
    }
    let _ = writeln!(
        md,
        "# The paper's statements about Figure 1\n\nEach statement of HMB (§6, App. C.1) tested \
         on these runs at the last step T (final mean, and the min–max band over seeds where a \
         statement compares two curves; 'works well' = within {WELL}× the reference).\n"
    );
    let mut header = vec!["statement".to_string(), "where".into(), "test".into()];
    header.extend(convs.iter().map(|c| c.name().to_string()));
    let mut t = Table::new(&header);
    for (st, verdicts) in statements().iter().zip(judge(results, &convs)) {
        let mut row = vec![
            format!("\"{}\"", st.quote),
            st.source.to_string(),
            st.test.to_string(),
        ];
        for (v, ev) in verdicts {
            row.push(format!("{} ({ev})", v.word()));
        }
        t.push(row);
    }
    md.push_str(&t.markdown());
    write_atomic(&dir.join("summary.md"), &md)?;
    Ok(md)
}

/// Reads the spec at `path` (a relative `data` path is resolved against the spec's directory),
/// runs it and writes its outputs under `out`; returns the Markdown summary. `progress` hears of
/// each finished training run of an HMB experiment.
pub fn run_file(path: &Path, out: &Path, progress: &Observer) -> Result<String> {
    run_file_confirmed(path, out, progress, true)
}

/// [`run_file`], refusing an experiment estimated to run over an hour unless `yes` (the
/// estimated work is in the message). Limits on memory are checked whatever `yes`.
pub(crate) fn run_file_confirmed(
    path: &Path,
    out: &Path,
    progress: &Observer,
    yes: bool,
) -> Result<String> {
    run_file_outcome(path, out, progress, yes, false).map(|o| o.markdown)
}

/// Steps of a `dpaudit train --quick` run: the spec's `steps`, at most this.
pub(crate) const QUICK_STEPS: i64 = 10;
/// Records of a quick run's synthetic data (`n`): at most this.
pub(crate) const QUICK_RECORDS: i64 = 10_000;
/// Grid points of a quick `hg_mean` run (`points`): at most this.
pub(crate) const QUICK_POINTS: i64 = 5;

/// What `dpaudit train` ran and wrote.
#[derive(Debug, Clone)]
pub(crate) struct TrainOutcome {
    /// The experiment's name (with `_quick` for a quick run).
    pub name: String,
    /// `hmb`, `hg_mean` or `hg_gd`.
    pub kind: String,
    /// The Markdown summary (also written as `summary.md`).
    pub markdown: String,
    /// The experiment's output directory, `OUT/NAME`.
    pub dir: PathBuf,
    /// What `--quick` reduced, one line each (empty for a full run).
    pub reductions: Vec<String>,
    /// An HMB Figure 1 experiment's spec and results.
    pub hmb: Option<(Spec, Vec<SplitResult>)>,
    /// The files this run wrote (those of `dir` modified since it started), sorted.
    pub files: Vec<PathBuf>,
}

/// The reductions of `dpaudit train --quick`, applied to the spec's table before it is parsed:
/// only the first seed, at most [`QUICK_STEPS`] steps, at most [`QUICK_RECORDS`] synthetic
/// records (`n`; an HMB spec on `data = "synthetic"` without `n` gets it), at most
/// [`QUICK_POINTS`] grid points (`points`), and `_quick` appended to the name (its own output
/// directory, so a quick run never overwrites a full one). Returns what was reduced.
pub(crate) fn quicken(table: &mut toml::Table, kind: &str) -> Vec<String> {
    use toml::Value;
    let mut done = Vec::new();
    if let Some(Value::Array(seeds)) = table.get_mut("seeds") {
        if seeds.len() > 1 {
            let first = seeds[0].clone();
            done.push(format!(
                "seeds: {} seeds -> the first, {first}",
                seeds.len()
            ));
            seeds.truncate(1);
        }
    }
    for (key, cap, what) in [
        ("steps", QUICK_STEPS, "steps"),
        ("n", QUICK_RECORDS, "records"),
        ("points", QUICK_POINTS, "grid points"),
    ] {
        if let Some(Value::Integer(v)) = table.get_mut(key) {
            if *v > cap {
                done.push(format!("{key}: {v} -> {cap} {what}"));
                *v = cap;
            }
        }
    }
    let synthetic = table.get("data").and_then(Value::as_str) == Some("synthetic");
    if kind == "hmb" && synthetic && !table.contains_key("n") {
        let sp = SyntheticSpec::ijcnn1_scale();
        done.push(format!("n: {} -> {QUICK_RECORDS} records", sp.n));
        table.insert("n".into(), Value::Integer(QUICK_RECORDS));
    }
    if let Some(Value::String(name)) = table.get_mut("name") {
        done.push(format!("name: {name} -> {name}_quick (output directory)"));
        name.push_str("_quick");
    }
    done
}

/// The files under `dir` modified at or after `since`, sorted (what a run wrote).
fn files_since(dir: &Path, since: std::time::SystemTime) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.metadata()
                .ok()
                .filter(|m| m.is_file())
                .and_then(|m| m.modified().ok())
                .is_some_and(|t| t >= since)
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    out
}

/// [`run_file_confirmed`], `quick` applying [`quicken`]; returns what ran and what it wrote.
pub(crate) fn run_file_outcome(
    path: &Path,
    out: &Path,
    progress: &Observer,
    yes: bool,
    quick: bool,
) -> Result<TrainOutcome> {
    let len = std::fs::metadata(path)
        .map_err(|e| Error::Io(format!("{}: {e}", path.display())))?
        .len();
    crate::limits::check_max("experiment spec size (bytes)", u128::from(len), 1 << 20)?;
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::Io(format!("{}: {e}", path.display())))?;
    let base = path.parent().unwrap_or(Path::new("."));
    // `kind` selects the experiment; absent (or "hmb") is HMB Figure 1, parsed exactly as before.
    let parse_err = |e: toml::de::Error| Error::Parse {
        what: "experiment spec".into(),
        text: String::new(),
        reason: e.to_string(),
    };
    let mut table: toml::Table = toml::from_str(&text).map_err(parse_err)?;
    let kind = match table.remove("kind") {
        None => "hmb".to_string(),
        Some(toml::Value::String(k)) => k,
        Some(v) => return Err(Error::invalid("kind", v, "hmb, hg_mean or hg_gd")),
    };
    let reductions = if quick {
        quicken(&mut table, &kind)
    } else {
        Vec::new()
    };
    let name = table
        .get("name")
        .and_then(toml::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let since = std::time::SystemTime::now();
    let (markdown, hmb) = if kind == "hmb" {
        let spec = if quick {
            Spec::check(toml::Value::Table(table).try_into().map_err(parse_err)?)?
        } else {
            // Parsed exactly as before (the text, without `kind` when it is "hmb").
            match toml::from_str::<toml::Table>(&text)
                .map_err(parse_err)?
                .remove("kind")
            {
                None => Spec::parse(&text)?,
                Some(_) => Spec::check(toml::Value::Table(table).try_into().map_err(parse_err)?)?,
            }
        };
        let res = run_confirmed(&spec, base, progress, yes)?;
        let md = write_outputs(&spec, &res, out)?;
        (md, Some((spec, res)))
    } else {
        let md = super::hg_report::run_table(&kind, table, base, out, yes, progress)?;
        (md, None)
    };
    let dir = out.join(&name);
    Ok(TrainOutcome {
        files: files_since(&dir, since),
        name,
        kind,
        markdown,
        dir,
        reductions,
        hmb,
    })
}

/// The quick experiment run by `dpaudit report` (< 1 min): the protocol of
/// `experiments/figure1_breast_cancer.toml` (the committed breast-cancer table, all three splits,
/// 3 seeds, 40 steps, its `noise`), named `training_quick`, with the data path relative to the
/// repository root and the default ‖B‖.
pub(crate) fn quick_spec() -> Result<Spec> {
    let mut spec = Spec::parse(include_str!("../../experiments/figure1_breast_cancer.toml"))?;
    spec.name = "training_quick".into();
    spec.data = "data/breast_cancer.csv".into();
    spec.bias = None;
    Ok(spec)
}

/// Runs `quick_spec` (data path relative to the current directory) into `out`.
pub fn run_quick(out: &Path, progress: &Observer) -> Result<String> {
    let spec = quick_spec()?;
    let res = run(&spec, Path::new("."), progress)?;
    write_outputs(&spec, &res, out)
}

#[cfg(test)]
mod tests {
    use super::{csv_of, quicken, Conventions, Curve, Privacy, SplitResult};
    use super::{QUICK_POINTS, QUICK_RECORDS, QUICK_STEPS};

    /// `--quick` keeps the first seed and caps steps, synthetic records and grid points, each
    /// reduction said; values under the caps are left alone, and the name gets `_quick`.
    #[test]
    fn quick_reduces_seeds_steps_records_and_points_and_says_so() {
        let mut t: toml::Table = toml::from_str(
            "name = \"s\"\ndata = \"synthetic\"\nsteps = 40\nseeds = [4, 5, 6]\nsplits = [\"random\"]\n",
        )
        .unwrap();
        let done = quicken(&mut t, "hmb");
        assert_eq!(
            t["seeds"].as_array().unwrap(),
            &vec![toml::Value::Integer(4)]
        );
        assert_eq!(t["steps"].as_integer(), Some(QUICK_STEPS));
        assert_eq!(
            t["n"].as_integer(),
            Some(QUICK_RECORDS),
            "141,691 by default"
        );
        assert_eq!(t["name"].as_str(), Some("s_quick"));
        assert_eq!(done.len(), 4, "{done:?}");
        assert!(
            done.contains(&"steps: 40 -> 10 steps".to_string()),
            "{done:?}"
        );
        // Under the caps: only the name changes.
        let mut t: toml::Table =
            toml::from_str("name = \"m\"\nn = 100\npoints = 3\nseeds = [1]\n").unwrap();
        let done = quicken(&mut t, "hg_mean");
        assert_eq!(
            (t["n"].as_integer(), t["points"].as_integer()),
            (Some(100), Some(3))
        );
        assert_eq!(
            done,
            vec!["name: m -> m_quick (output directory)".to_string()]
        );
        let mut t: toml::Table = toml::from_str("name = \"m\"\npoints = 25\n").unwrap();
        quicken(&mut t, "hg_mean");
        assert_eq!(t["points"].as_integer(), Some(QUICK_POINTS));
    }

    /// `dpaudit report`'s quick experiment is figure1_breast_cancer.toml's protocol under its own
    /// name, with the data path from the repository root (the values it had as a literal).
    #[test]
    fn quick_spec_is_the_breast_cancer_protocol() {
        let s = super::quick_spec().unwrap();
        assert_eq!(
            (s.name.as_str(), s.data.as_str()),
            ("training_quick", "data/breast_cancer.csv")
        );
        assert_eq!((s.n, s.d, s.standardize), (None, None, Some(true)));
        assert_eq!((s.mu_reg, s.steps, s.delta), (0.03, 40, 1e-5));
        assert_eq!(s.seeds, vec![1, 2, 3]);
        assert_eq!(s.splits, vec!["random", "label", "bias"]);
        assert_eq!((s.bias, s.tilt), (None, None));
        assert_eq!(s.conventions().unwrap(), vec![Conventions::Paper]);
        assert_eq!(s.noise_family().unwrap().family.name, "rgm");
    }

    /// A curve label with a comma (the matched clip, "clip c @ RGM's (eps, delta)") stays one CSV
    /// field: every record has the header's field count. The hand-written CSV this replaced split
    /// the label in two, and figure1_synthetic's CSVs had 15 header fields over 13-field rows.
    #[test]
    fn a_label_with_a_comma_is_one_csv_field() {
        let curve = |label: &str| Curve {
            label: label.into(),
            mean: vec![1.5, 0.75],
            min: vec![1.0, 0.5],
            max: vec![2.0, 1.0],
            privacy: Privacy::NonPrivate,
        };
        let r = SplitResult {
            split: "random".into(),
            conventions: Conventions::Paper,
            curves: vec![curve("non-private"), curve("clip c @ RGM's (eps, delta)")],
            skipped: vec![],
            params: vec![],
            noise_label: "RGM",
        };
        let bytes = csv_of(&r).to_bytes().unwrap();
        let mut rd = csv::Reader::from_reader(&bytes[..]);
        let header = rd.headers().unwrap().clone();
        assert_eq!(header.len(), 7, "{header:?}");
        assert_eq!(&header[3], "clip c @ RGM's (eps, delta) min");
        assert_eq!(&header[6], "clip c @ RGM's (eps, delta) mean");
        let rows: Vec<csv::StringRecord> = rd.records().map(|r| r.unwrap()).collect();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.len() == 7));
        assert_eq!(&rows[1][4], "1e0");
        assert_eq!(&rows[1][6], "7.5e-1");
    }
}
