//! Calibration on the certified composition bracket: the smallest noise multiplier σ, and the
//! largest number of steps T, that meet a target (ε, δ) for the Poisson-subsampled Gaussian.
//!
//! Both searches use only the bracket's certified ends, so the answer is safe whatever the
//! search path: σ is returned only once ε_hi(σ) ≤ target has been certified, and the search
//! stops when a σ' ≥ σ·(1 − rel_tol) with ε_lo(σ') > target has also been certified (so no
//! σ below σ·(1 − rel_tol) can meet the target). `docs/accounting.md#calibration`.

use super::compose::{eps_for_delta, Bracket, ComposeOptions, Schedule};
use super::SubsampledGaussian;
use crate::error::{Error, Result};
use crate::scalar::Scalar;

/// Result of a σ calibration.
#[derive(Clone, Debug)]
pub struct SigmaCalibration {
    /// The noise multiplier found: its certified ε_hi is ≤ the target.
    pub sigma: f64,
    /// The ε bracket at `sigma`.
    pub eps: Bracket,
    /// The largest σ seen whose certified ε_lo exceeds the target (σ_below < sigma).
    pub sigma_below: f64,
    /// The ε bracket at `sigma_below`.
    pub eps_below: Bracket,
    /// Composition evaluations used.
    pub evaluations: usize,
}

/// The neighbouring relation a calibration is for: add/remove ([`Schedule::homogeneous`]) or
/// substitution ([`Schedule::homogeneous_substitution`], `docs/accounting.md#substitution`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Add or remove one record.
    AddRemove,
    /// Replace one record (clip norm 1; the antipodal pair).
    Substitution,
}

/// What a calibration must meet: (ε, δ)-DP under a neighbouring relation. Validated at
/// construction: ε in (0, 1000], δ in (0, 1) and within the double range (the composition
/// refuses smaller δ).
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    relation: Relation,
    eps: f64,
    delta: Scalar,
}

impl Target {
    /// (`eps`, `delta`)-DP under `relation`.
    pub fn new(relation: Relation, eps: f64, delta: Scalar) -> Result<Target> {
        if !(eps.is_finite() && eps > 0.0 && eps <= 1000.0) {
            return Err(Error::invalid("target eps", eps, "in (0, 1000]"));
        }
        delta.open_unit_double("delta")?;
        Ok(Target {
            relation,
            eps,
            delta,
        })
    }

    /// (`eps`, `delta`)-DP for add/remove neighbours, the relation of DP-SGD accountants.
    pub fn add_remove(eps: f64, delta: Scalar) -> Result<Target> {
        Target::new(Relation::AddRemove, eps, delta)
    }

    /// The neighbouring relation.
    pub fn relation(&self) -> Relation {
        self.relation
    }

    /// The target ε.
    pub fn eps(&self) -> f64 {
        self.eps
    }

    /// The δ of the target.
    pub fn delta(&self) -> &Scalar {
        &self.delta
    }

    /// The certified ε(δ) bracket of `steps` steps at rate q and noise multiplier σ, to
    /// [`DIGITS`].
    fn eps_at(&self, q: &Scalar, sigma: f64, steps: u64) -> Result<Bracket> {
        let m = SubsampledGaussian::new(q.clone(), Scalar::from(sigma))?;
        let sched = match self.relation {
            Relation::AddRemove => Schedule::homogeneous(&m, steps)?,
            Relation::Substitution => Schedule::homogeneous_substitution(&m, steps)?,
        };
        let opts = ComposeOptions {
            digits: DIGITS,
            force_inversion: false,
        };
        Ok(eps_for_delta(&sched, &self.delta, &opts)?.value)
    }
}

/// Digits requested of every composition bracket of a calibration.
const DIGITS: u32 = 12;

/// Whether the certified bracket `b` meets the target `t` (ε_hi ≤ t: true) or fails it
/// (ε_lo > t: false); a precision error when it contains the target, naming the parameter
/// value `at` (`sigma = …`, `T = …`) it was computed at.
fn meets_target(b: &Bracket, t: &rug::Float, at: impl FnOnce() -> String) -> Result<bool> {
    if b.hi <= *t {
        Ok(true)
    } else if b.lo > *t {
        Ok(false)
    } else {
        Err(Error::Precision {
            requested: DIGITS,
            certified: b.digits(),
            what: format!("calibration: eps bracket at {} contains the target", at()),
        })
    }
}

/// The smallest σ (to relative tolerance `rel_tol` ∈ [1e-12, 0.5]) for which T = `steps` steps
/// of the subsampled Gaussian with rate q meet `target`, by bisection on log σ over the certified
/// bracket.
pub fn calibrate_sigma(
    target: &Target,
    q: &Scalar,
    steps: u64,
    rel_tol: f64,
) -> Result<SigmaCalibration> {
    if !(1e-12..=0.5).contains(&rel_tol) {
        return Err(Error::invalid("rel_tol", rel_tol, "in [1e-12, 0.5]"));
    }
    let target_eps = target.eps;
    let mut n = 0;
    let mut eval = |s: f64| -> Result<Bracket> {
        n += 1;
        target.eps_at(q, s, steps)
    };
    let t = rug::Float::with_val(64, target_eps);
    // Bracket σ: hi meets the target (ε_hi ≤ t), lo does not (ε_lo > t). Downwards in steps of
    // 0.8, not halving: small σ at small q is where the inversion is slow or stops certifying
    // (add/remove at q = 0.01, T = 1000: σ = 0.5 takes 38 s, σ = 0.4 fails), so the search goes
    // no lower than it must.
    let (mut lo, mut hi) = (0.8f64, 1.0f64);
    let (mut b_lo, mut b_hi);
    loop {
        b_hi = eval(hi)?;
        if b_hi.hi <= t {
            break;
        }
        lo = hi;
        hi *= 2.0;
        if hi > 1e6 {
            return Err(Error::invalid(
                "target eps",
                target_eps,
                "attainable with sigma <= 1e6",
            ));
        }
    }
    loop {
        b_lo = eval(lo)?;
        if b_lo.lo > t {
            break;
        }
        if b_lo.hi <= t {
            hi = lo;
            b_hi = b_lo.clone();
        }
        lo *= 0.8;
        if lo < 1e-3 {
            return Err(Error::invalid(
                "target eps",
                target_eps,
                "reached only with sigma < 1e-3",
            ));
        }
    }
    // Bisection on log σ; a bracket that straddles the target knows σ to its width only.
    let ((hi, b_hi), (lo, b_lo)) = bisect(
        (hi, b_hi),
        (lo, b_lo),
        &t,
        "sigma",
        |hi, lo| hi / lo - 1.0 > rel_tol,
        |hi, lo| (lo * hi).sqrt(),
        &mut eval,
    )?;
    Ok(SigmaCalibration {
        sigma: hi,
        eps: b_hi,
        sigma_below: lo,
        eps_below: b_lo,
        evaluations: n,
    })
}

/// Bisects between a parameter value that meets the target `t` and one that fails it (each with
/// its certified bracket) while `go(meets, fails)`: `eval` at `mid(meets, fails)` replaces the
/// end on its side. A bracket that contains the target is an error naming `what` = value.
fn bisect<T: Copy + std::fmt::Display>(
    mut meets: (T, Bracket),
    mut fails: (T, Bracket),
    t: &rug::Float,
    what: &str,
    go: impl Fn(T, T) -> bool,
    mid: impl Fn(T, T) -> T,
    eval: &mut dyn FnMut(T) -> Result<Bracket>,
) -> Result<((T, Bracket), (T, Bracket))> {
    while go(meets.0, fails.0) {
        let m = mid(meets.0, fails.0);
        let b = eval(m)?;
        if meets_target(&b, t, || format!("{what} = {m}"))? {
            meets = (m, b);
        } else {
            fails = (m, b);
        }
    }
    Ok((meets, fails))
}

/// The largest T ≤ `max_steps` for which T steps of the subsampled Gaussian with rate q and noise
/// multiplier σ meet `target` (certified ε_hi ≤ target ε), with the ε bracket at T and at T + 1
/// (whose ε_lo exceeds the target), or an error when even one step exceeds it.
pub fn calibrate_steps(
    target: &Target,
    q: &Scalar,
    sigma: &Scalar,
    max_steps: u64,
) -> Result<(u64, Bracket, Bracket)> {
    let target_eps = target.eps;
    let t = rug::Float::with_val(64, target_eps);
    let sf = sigma.f64();
    let mut lo = 1u64;
    let b1 = target.eps_at(q, sf, lo)?;
    if b1.hi > t {
        return Err(Error::invalid(
            "target eps",
            target_eps,
            "met by at least one step",
        ));
    }
    let mut b_lo = b1;
    let mut hi = 2u64;
    let b_hi = loop {
        let b = target.eps_at(q, sf, hi)?;
        if !meets_target(&b, &t, || format!("T = {hi}"))? {
            break b;
        }
        lo = hi;
        b_lo = b;
        if hi >= max_steps {
            return Ok((lo, b_lo.clone(), b_lo));
        }
        hi = (hi * 2).min(max_steps);
    };
    let ((lo, b_lo), (_, b_hi)) = bisect(
        (lo, b_lo),
        (hi, b_hi),
        &t,
        "T",
        |lo, hi| hi - lo > 1,
        |lo, hi| lo + (hi - lo) / 2,
        &mut |steps| target.eps_at(q, sf, steps),
    )?;
    Ok((lo, b_lo, b_hi))
}
