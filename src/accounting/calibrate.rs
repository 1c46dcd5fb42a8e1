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
use rug::Float;

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
            narrowest: None,
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

/// Largest dataset size the bookkeeping accepts (checked before anything is computed).
pub(crate) const MAX_DATASET_SIZE: u64 = 1_000_000_000_000_000;

/// DP-SGD bookkeeping: the sampling rate q = `batch_size` / `dataset_size` (Poisson sampling with
/// expected batch `batch_size`) and the step count T = ⌈`epochs` · `dataset_size` / `batch_size`⌉
/// (an epoch is dataset_size / batch_size expected batches, as in Opacus). q is B/N rounded to 40
/// significant digits.
/// Errors name the key, the value and the limit.
pub fn dpsgd_q_steps(
    dataset_size: u64,
    batch_size: u64,
    epochs: &Scalar,
    key: &str,
) -> Result<(Scalar, u64)> {
    if !(1..=MAX_DATASET_SIZE).contains(&dataset_size) {
        return Err(Error::invalid(
            &format!("{key}dataset_size"),
            dataset_size,
            &format!("in [1, {MAX_DATASET_SIZE}]"),
        ));
    }
    if !(1..=dataset_size).contains(&batch_size) {
        return Err(Error::invalid(
            &format!("{key}batch_size"),
            batch_size,
            &format!("in [1, dataset_size = {dataset_size}]"),
        ));
    }
    let e = epochs.f64();
    if !(e.is_finite() && e > 0.0 && e <= 1e12) {
        return Err(Error::invalid(
            &format!("{key}epochs"),
            epochs,
            "finite, > 0 and at most 1e12",
        ));
    }
    let q = Float::with_val(256, dataset_size).recip() * batch_size;
    let t = Float::with_val(256, epochs.mp(256) * dataset_size) / batch_size;
    let t = t.ceil();
    if t > 1e12 {
        return Err(Error::invalid(
            &format!("{key}epochs"),
            epochs,
            &format!(
                "at most 1e12 steps in all (epochs * dataset_size / batch_size = {})",
                t.to_f64()
            ),
        ));
    }
    let steps = t.to_f64() as u64;
    // q to 40 significant digits (relative error < 10⁻³⁹, far below any digits certified).
    let q: Scalar = q
        .to_string_radix(10, Some(40))
        .parse()
        .map_err(|_| Error::invalid(&format!("{key}batch_size"), batch_size, "a valid ratio"))?;
    Ok((q, steps.max(1)))
}

/// Result of a batch-size calibration (`docs/accounting.md#calibration`).
#[derive(Clone, Debug)]
pub struct BatchCalibration {
    /// The expected batch size B found: its certified ε_hi is ≤ the target.
    pub batch_size: u64,
    /// q = B / N (40 significant digits) and T = ⌈epochs · N / B⌉ at B.
    pub q: Scalar,
    /// Steps at B.
    pub steps: u64,
    /// The ε bracket at B.
    pub eps: Bracket,
    /// B + 1 (when ≤ N), its q, steps and ε bracket, whose ε_lo exceeds the target.
    pub next: Option<(u64, Scalar, u64, Bracket)>,
    /// Composition evaluations used.
    pub evaluations: usize,
}

/// The largest expected batch size B ≤ `dataset_size` for which `epochs` epochs of DP-SGD with
/// noise multiplier σ (q = B/N, T = ⌈epochs · N/B⌉, [`dpsgd_q_steps`]) meet `target`, by a
/// doubling search and bisection on B over the certified bracket. What is certified: ε_hi(B) ≤
/// target, and ε_lo(B + 1) > target (B + 1 fails). ε is not proved monotone in B (T changes with
/// B), so a larger B that meets the target again is not excluded; the search assumes the usual
/// growth of ε with B, as every accountant's batch-size tuning does.
pub fn calibrate_batch_size(
    target: &Target,
    dataset_size: u64,
    epochs: &Scalar,
    sigma: &Scalar,
) -> Result<BatchCalibration> {
    let t = rug::Float::with_val(64, target.eps);
    let sf = sigma.f64();
    let mut n = 0usize;
    let mut eval = |b: u64| -> Result<(Scalar, u64, Bracket)> {
        n += 1;
        let (q, steps) = dpsgd_q_steps(dataset_size, b, epochs, "")?;
        let e = target.eps_at(&q, sf, steps)?;
        Ok((q, steps, e))
    };
    let first = eval(1)?;
    if first.2.hi > t {
        return Err(Error::invalid(
            "target eps",
            target.eps,
            "met with batch_size = 1",
        ));
    }
    let (mut lo, mut lo_v) = (1u64, first);
    let mut hi = 2u64.min(dataset_size);
    let mut hi_v = None;
    while hi > lo {
        let v = eval(hi)?;
        if meets_target(&v.2, &t, || format!("batch_size = {hi}"))? {
            lo = hi;
            lo_v = v;
            if hi == dataset_size {
                break;
            }
            hi = (hi * 2).min(dataset_size);
        } else {
            hi_v = Some(v);
            break;
        }
    }
    if let Some(mut fails) = hi_v {
        let mut fail_b = hi;
        while fail_b - lo > 1 {
            let m = lo + (fail_b - lo) / 2;
            let v = eval(m)?;
            if meets_target(&v.2, &t, || format!("batch_size = {m}"))? {
                lo = m;
                lo_v = v;
            } else {
                fail_b = m;
                fails = v;
            }
        }
        return Ok(BatchCalibration {
            batch_size: lo,
            q: lo_v.0,
            steps: lo_v.1,
            eps: lo_v.2,
            next: Some((fail_b, fails.0, fails.1, fails.2)),
            evaluations: n,
        });
    }
    Ok(BatchCalibration {
        batch_size: lo,
        q: lo_v.0,
        steps: lo_v.1,
        eps: lo_v.2,
        next: None,
        evaluations: n,
    })
}
