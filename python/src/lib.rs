//! `dpaudit._dpaudit`: the compiled half of the `dpaudit` Python package (PyO3).
//!
//! A thin layer over the dpaudit library's public API: certified composition accounting
//! (`dpaudit::accounting`: ε(δ) and δ(ε) brackets, σ / steps / batch-size calibration), the
//! `dpaudit eval` quantities (`dpaudit::eval::evaluate`) and the audit of two sample sets
//! (`dpaudit::audit::samples`). The Python module `dpaudit` (python/dpaudit/__init__.py) wraps
//! these functions in documented classes; nothing here is meant to be called directly.
//!
//! Conventions:
//! * Numbers from Python become exact decimals ([`Scalar`]): a `str` is the decimal written, an
//!   `int` is exact, a `float` is the shortest decimal that round-trips to it (what Python's
//!   `repr` prints; the same rule as the schedule files, docs/accounting.md#numbers).
//! * Every library error becomes `DpauditError` (a `ValueError`) carrying the library's message,
//!   which names the parameter and its value. Bad input never reaches a panic.
//! * Certified brackets are handed over as decimal strings rounded **outwards** (lo down, hi up)
//!   and as doubles rounded outwards too, so the certified statement survives the conversion.
//! * The GIL is released while the library computes.

use dpaudit::accounting::{
    self, calibrate_batch_size, calibrate_sigma, calibrate_steps, Bracket, ComposeOptions,
    Composed, Relation, Release, Schedule, SubsampledGaussian, Target,
};
use dpaudit::audit::samples::{self, SampleSet, SampleStatistic, SamplesOptions};
use dpaudit::eval::{self, EvalOptions, Row};
use dpaudit::{Method, Scalar};
use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyList, PyString};
use rug::float::Round;

create_exception!(
    dpaudit,
    DpauditError,
    PyValueError,
    "A dpaudit error: invalid input (the message names the parameter and its value), a \
     theorem's validity condition that does not hold, or digits that cannot be certified."
);

/// Most digits an accounting call may request (as `dpaudit account`'s schedule files).
const MAX_ACCOUNT_DIGITS: u32 = 50;

fn to_py(e: dpaudit::Error) -> PyErr {
    DpauditError::new_err(e.to_string())
}

fn invalid(name: &str, value: impl std::fmt::Display, expected: &str) -> PyErr {
    to_py(dpaudit::Error::invalid(name, value, expected))
}

/// The decimal text of a Python number (see the module docs), or an error naming `name`.
fn number_text(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if obj.is_instance_of::<PyBool>() {
        return Err(invalid(
            name,
            obj.repr()?,
            "a number (int, float or decimal string), not a bool",
        ));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(obj.extract::<String>()?.trim().to_string());
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(obj.str()?.to_string());
    }
    match obj.extract::<f64>() {
        Ok(x) => Ok(float_text(x)),
        Err(_) => Err(invalid(
            name,
            obj.repr()?,
            "a number (int, float or decimal string)",
        )),
    }
}

/// The shortest decimal that round-trips to `x` (Rust's `Display`, scientific when long).
fn float_text(x: f64) -> String {
    let s = format!("{x}");
    if s.len() > 24 {
        format!("{x:e}")
    } else {
        s
    }
}

/// A Python number as an exact decimal; parse errors name the parameter.
fn scalar(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    let t = number_text(name, obj)?;
    t.parse::<Scalar>().map_err(|e| {
        invalid(
            name,
            format!("{t:?}"),
            &format!("a finite decimal number ({e})"),
        )
    })
}

/// A Python integer ≥ `min` (bools, floats and strings refused), or an error naming `name`.
fn int(name: &str, obj: &Bound<'_, PyAny>, min: u64) -> PyResult<u64> {
    let bad = |obj: &Bound<'_, PyAny>| -> PyResult<PyErr> {
        Ok(invalid(name, obj.repr()?, &format!("an integer >= {min}")))
    };
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyString>() {
        return Err(bad(obj)?);
    }
    match obj.extract::<i128>() {
        Ok(v) if v >= i128::from(min) && v <= i128::from(u64::MAX) => Ok(v as u64),
        _ => Err(bad(obj)?),
    }
}

/// A real number (as [`scalar`], then its double), or an error naming `name`.
fn real(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    Ok(scalar(name, obj)?.f64())
}

/// `digits` as an integer in [1, max].
fn digits_arg(obj: &Bound<'_, PyAny>, max: u32) -> PyResult<u32> {
    let d = int("digits", obj, 1)?;
    if d > u64::from(max) {
        return Err(invalid("digits", d, &format!("in [1, {max}]")));
    }
    Ok(d as u32)
}

fn check_seconds(max_seconds: Option<f64>) -> PyResult<()> {
    match max_seconds {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            Err(invalid("max_seconds", s, "finite and > 0, or None"))
        }
        _ => Ok(()),
    }
}

fn relation(neighbours: &str) -> PyResult<Relation> {
    match neighbours {
        "add_remove" | "add-remove" => Ok(Relation::AddRemove),
        "substitution" | "replace_one" => Ok(Relation::Substitution),
        other => Err(invalid(
            "neighbours",
            format!("{other:?}"),
            "one of \"add_remove\", \"substitution\"",
        )),
    }
}

/// Builds a schedule from `(kind, q, sigma, count)` parts: kind "gaussian" (q ignored: give None)
/// or "subsampled_gaussian"; the relation applies to every part.
/// With `single` (the caller gave q, sigma and steps, not a schedule), errors name `q`,
/// `sigma` and `steps` rather than `schedule[0].…`.
fn schedule(parts: &Bound<'_, PyList>, single: bool, neighbours: &str) -> PyResult<Schedule> {
    let rel = relation(neighbours)?;
    let name = |i: usize, field: &str| {
        if single {
            if field == "count" {
                "steps".to_string()
            } else {
                field.to_string()
            }
        } else {
            format!("schedule[{i}].{field}")
        }
    };
    let mut out = Vec::with_capacity(parts.len());
    for (i, item) in parts.iter().enumerate() {
        let (kind, q, sigma, count): (
            String,
            Bound<'_, PyAny>,
            Bound<'_, PyAny>,
            Bound<'_, PyAny>,
        ) = item.extract().map_err(|_| {
            invalid(
                &format!("schedule[{i}]"),
                item.repr().map(|r| r.to_string()).unwrap_or_default(),
                "a tuple (kind, q, sigma, count)",
            )
        })?;
        let count = int(&name(i, "count"), &count, 1)?;
        let sigma = scalar(&name(i, "sigma"), &sigma)?;
        let release = match (kind.as_str(), rel) {
            ("gaussian", Relation::AddRemove) => Release::Gaussian { sigma },
            // Under substitution a full-batch Gaussian release is the q = 1 pair N(1, σ²) vs
            // N(−1, σ²) (sensitivity 2), which the library writes as a q = 1 substitution part.
            ("gaussian", Relation::Substitution) => Release::Substitution(
                SubsampledGaussian::new(Scalar::from(1u32), sigma).map_err(to_py)?,
            ),
            ("subsampled_gaussian", r) => {
                let q = scalar(&name(i, "q"), &q)?;
                let m = SubsampledGaussian::new(q, sigma).map_err(to_py)?;
                match r {
                    Relation::AddRemove => Release::Subsampled(m),
                    Relation::Substitution => Release::Substitution(m),
                }
            }
            (other, _) => {
                return Err(invalid(
                    &name(i, "kind"),
                    format!("{other:?}"),
                    "one of \"gaussian\", \"subsampled_gaussian\"",
                ))
            }
        };
        out.push((release, count));
    }
    Schedule::new(out).map_err(to_py)
}

/// A bracket as a dict: ends as outward-rounded decimal strings and doubles.
fn bracket<'py>(py: Python<'py>, b: &Bracket) -> PyResult<Bound<'py, PyDict>> {
    let d = b.digits();
    let sig = (d as usize + 3).max(17);
    let out = PyDict::new(py);
    out.set_item("lo", b.lo.to_string_radix_round(10, Some(sig), Round::Down))?;
    out.set_item("hi", b.hi.to_string_radix_round(10, Some(sig), Round::Up))?;
    out.set_item("mid", b.mid().to_string_radix(10, Some(d.max(1) as usize)))?;
    out.set_item("digits", d)?;
    out.set_item("lo_float", b.lo.to_f64_round(Round::Down))?;
    out.set_item("hi_float", b.hi.to_f64_round(Round::Up))?;
    out.set_item("rel_width", b.rel_width())?;
    Ok(out)
}

fn composed<'py>(py: Python<'py>, c: &Composed) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("value", bracket(py, &c.value)?)?;
    out.set_item("remove", bracket(py, &c.remove)?)?;
    out.set_item("add", bracket(py, &c.add)?)?;
    out.set_item("route", c.route)?;
    Ok(out)
}

/// Runs `f` without the GIL and with the library's per-thread time limit.
fn compute<T: Send>(
    py: Python<'_>,
    max_seconds: Option<f64>,
    f: impl FnOnce() -> dpaudit::Result<T> + Send,
) -> PyResult<T> {
    check_seconds(max_seconds)?;
    py.detach(|| accounting::with_time_limit(max_seconds, f))
        .map_err(to_py)
}

/// Certified ε(δ) bracket of a schedule (see `dpaudit.eps_for_delta`).
#[pyfunction]
#[pyo3(signature = (parts, single, neighbours, delta, digits, max_seconds))]
#[allow(clippy::too_many_arguments)]
fn eps_for_delta<'py>(
    py: Python<'py>,
    parts: &Bound<'py, PyList>,
    single: bool,
    neighbours: &str,
    delta: &Bound<'py, PyAny>,
    digits: &Bound<'py, PyAny>,
    max_seconds: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let digits = digits_arg(digits, MAX_ACCOUNT_DIGITS)?;
    let sched = schedule(parts, single, neighbours)?;
    let delta = scalar("delta", delta)?;
    let opts = ComposeOptions {
        digits,
        force_inversion: false,
    };
    let c = compute(py, max_seconds, || {
        accounting::eps_for_delta(&sched, &delta, &opts)
    })?;
    composed(py, &c)
}

/// Certified δ(ε) bracket of a schedule (see `dpaudit.delta_for_eps`).
#[pyfunction]
#[pyo3(signature = (parts, single, neighbours, eps, digits, max_seconds))]
#[allow(clippy::too_many_arguments)]
fn delta_for_eps<'py>(
    py: Python<'py>,
    parts: &Bound<'py, PyList>,
    single: bool,
    neighbours: &str,
    eps: &Bound<'py, PyAny>,
    digits: &Bound<'py, PyAny>,
    max_seconds: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let digits = digits_arg(digits, MAX_ACCOUNT_DIGITS)?;
    let sched = schedule(parts, single, neighbours)?;
    let eps = scalar("eps", eps)?;
    let opts = ComposeOptions {
        digits,
        force_inversion: false,
    };
    let c = compute(py, max_seconds, || {
        accounting::delta_for_eps(&sched, &eps, &opts)
    })?;
    composed(py, &c)
}

fn target(
    target_eps: &Bound<'_, PyAny>,
    delta: &Bound<'_, PyAny>,
    neighbours: &str,
) -> PyResult<Target> {
    let eps = real("target_eps", target_eps)?;
    let delta = scalar("delta", delta)?;
    Target::new(relation(neighbours)?, eps, delta).map_err(to_py)
}

/// Smallest σ meeting a target (see `dpaudit.calibrate_sigma`).
#[pyfunction(name = "calibrate_sigma")]
#[pyo3(signature = (target_eps, delta, neighbours, q, steps, rel_tol, max_seconds))]
#[allow(clippy::too_many_arguments)]
fn calibrate_sigma_py<'py>(
    py: Python<'py>,
    target_eps: &Bound<'py, PyAny>,
    delta: &Bound<'py, PyAny>,
    neighbours: &str,
    q: &Bound<'py, PyAny>,
    steps: &Bound<'py, PyAny>,
    rel_tol: &Bound<'py, PyAny>,
    max_seconds: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let t = target(target_eps, delta, neighbours)?;
    let q = scalar("q", q)?;
    let steps = int("steps", steps, 1)?;
    let rel_tol = real("rel_tol", rel_tol)?;
    let c = compute(py, max_seconds, || calibrate_sigma(&t, &q, steps, rel_tol))?;
    let out = PyDict::new(py);
    out.set_item("sigma", c.sigma)?;
    out.set_item("eps", bracket(py, &c.eps)?)?;
    out.set_item("sigma_below", c.sigma_below)?;
    out.set_item("eps_below", bracket(py, &c.eps_below)?)?;
    out.set_item("evaluations", c.evaluations)?;
    Ok(out)
}

/// Largest number of steps meeting a target (see `dpaudit.calibrate_steps`).
#[pyfunction(name = "calibrate_steps")]
#[pyo3(signature = (target_eps, delta, neighbours, q, sigma, max_steps, max_seconds))]
#[allow(clippy::too_many_arguments)]
fn calibrate_steps_py<'py>(
    py: Python<'py>,
    target_eps: &Bound<'py, PyAny>,
    delta: &Bound<'py, PyAny>,
    neighbours: &str,
    q: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    max_steps: &Bound<'py, PyAny>,
    max_seconds: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let t = target(target_eps, delta, neighbours)?;
    let q = scalar("q", q)?;
    let sigma = scalar("sigma", sigma)?;
    let max_steps = int("max_steps", max_steps, 1)?;
    let (steps, at, next) = compute(py, max_seconds, || {
        calibrate_steps(&t, &q, &sigma, max_steps)
    })?;
    let out = PyDict::new(py);
    out.set_item("steps", steps)?;
    out.set_item("eps", bracket(py, &at)?)?;
    out.set_item("eps_next", bracket(py, &next)?)?;
    Ok(out)
}

/// Largest expected batch size meeting a target (see `dpaudit.calibrate_batch_size`).
#[pyfunction(name = "calibrate_batch_size")]
#[pyo3(signature = (target_eps, delta, neighbours, dataset_size, epochs, sigma, max_seconds))]
#[allow(clippy::too_many_arguments)]
fn calibrate_batch_size_py<'py>(
    py: Python<'py>,
    target_eps: &Bound<'py, PyAny>,
    delta: &Bound<'py, PyAny>,
    neighbours: &str,
    dataset_size: &Bound<'py, PyAny>,
    epochs: &Bound<'py, PyAny>,
    sigma: &Bound<'py, PyAny>,
    max_seconds: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let t = target(target_eps, delta, neighbours)?;
    let dataset_size = int("dataset_size", dataset_size, 1)?;
    let epochs = scalar("epochs", epochs)?;
    let sigma = scalar("sigma", sigma)?;
    let c = compute(py, max_seconds, || {
        calibrate_batch_size(&t, dataset_size, &epochs, &sigma)
    })?;
    let out = PyDict::new(py);
    out.set_item("batch_size", c.batch_size)?;
    out.set_item("q", c.q.to_string())?;
    out.set_item("steps", c.steps)?;
    out.set_item("eps", bracket(py, &c.eps)?)?;
    match &c.next {
        Some((b, q, s, e)) => {
            let n = PyDict::new(py);
            n.set_item("batch_size", *b)?;
            n.set_item("q", q.to_string())?;
            n.set_item("steps", *s)?;
            n.set_item("eps", bracket(py, e)?)?;
            out.set_item("next", n)?;
        }
        None => out.set_item("next", py.None())?,
    }
    out.set_item("evaluations", c.evaluations)?;
    Ok(out)
}

/// DP-SGD bookkeeping: (q as a decimal string, steps) (see `dpaudit.dpsgd_q_steps`).
#[pyfunction]
fn dpsgd_q_steps(
    dataset_size: &Bound<'_, PyAny>,
    batch_size: &Bound<'_, PyAny>,
    epochs: &Bound<'_, PyAny>,
) -> PyResult<(String, u64)> {
    let dataset_size = int("dataset_size", dataset_size, 1)?;
    let batch_size = int("batch_size", batch_size, 1)?;
    let epochs = scalar("epochs", epochs)?;
    let (q, steps) = accounting::calibrate::dpsgd_q_steps(dataset_size, batch_size, &epochs, "")
        .map_err(to_py)?;
    Ok((q.to_string(), steps))
}

/// `key=value;…` from a dict of numbers / strings, or the string itself.
fn params_text(params: &Bound<'_, PyAny>) -> PyResult<String> {
    if params.is_instance_of::<PyString>() {
        return params.extract::<String>();
    }
    let Ok(d) = params.cast::<PyDict>() else {
        return Err(invalid(
            "params",
            params.repr()?,
            "a dict {name: number} or a string \"k=v;k=v\"",
        ));
    };
    let mut parts = Vec::with_capacity(d.len());
    for (k, v) in d.iter() {
        let k: String = k.extract().map_err(|_| {
            invalid(
                "params",
                k.repr().map(|r| r.to_string()).unwrap_or_default(),
                "keys that are strings",
            )
        })?;
        let t = number_text(&k, &v)?;
        if k.contains(['=', ';']) || t.contains(['=', ';']) {
            return Err(invalid(
                &k,
                format!("{t:?}"),
                "a name and a number without '=' or ';'",
            ));
        }
        parts.push(format!("{k}={t}"));
    }
    Ok(parts.join(";"))
}

/// One `dpaudit eval` row: (value as decimal string with digits + 5 significant digits,
/// certified digits, value as a double) (see `dpaudit.evaluate`).
#[pyfunction]
#[pyo3(signature = (quantity, family, params, digits, method, max_seconds))]
fn evaluate(
    py: Python<'_>,
    quantity: &str,
    family: &str,
    params: &Bound<'_, PyAny>,
    digits: &Bound<'_, PyAny>,
    method: &str,
    max_seconds: Option<f64>,
) -> PyResult<(String, u32, f64)> {
    let digits = int("digits", digits, 1)?.min(u64::from(u32::MAX)) as u32;
    let method: Method = method.parse().map_err(to_py)?;
    let row = Row {
        line: 1,
        id: String::new(),
        quantity: quantity.to_string(),
        family: family.to_string(),
        params: params_text(params)?,
    };
    let opts = EvalOptions {
        digits,
        method,
        max_seconds,
    };
    let c = compute(py, max_seconds, || eval::evaluate(&row, &opts))?;
    let text = if c.value.is_zero() {
        "0".to_string()
    } else {
        c.value.to_string_radix(10, Some(c.digits as usize + 5))
    };
    Ok((text, c.digits, c.to_f64()))
}

/// A 1-D (n,) or 2-D (n, d) float64 array as a sample set (row-major copy).
fn sample_set(name: &str, a: &PyReadonlyArrayDyn<'_, f64>) -> PyResult<SampleSet> {
    let shape = a.shape().to_vec();
    let d = match shape.as_slice() {
        [_] => 1,
        [_, d] => *d,
        _ => {
            return Err(invalid(
                name,
                format!("an array of shape {shape:?}"),
                "a 1-D array (n,) or a 2-D array (n, d)",
            ))
        }
    };
    let values: Vec<f64> = a.as_array().iter().copied().collect();
    SampleSet::from_rows(d, values).map_err(|e| DpauditError::new_err(format!("{name}: {e}")))
}

/// Audits the claim (eps, delta) from samples `a` (the mechanism on x) and `b` (on x′); returns
/// the library's `SamplesAudit` as a JSON document (see `dpaudit.audit_samples`).
#[pyfunction(name = "audit_samples")]
#[pyo3(signature = (a, b, eps, delta, confidence, statistic, pilot_fraction, seed))]
#[allow(clippy::too_many_arguments)]
fn audit_samples_py(
    py: Python<'_>,
    a: PyReadonlyArrayDyn<'_, f64>,
    b: PyReadonlyArrayDyn<'_, f64>,
    eps: &Bound<'_, PyAny>,
    delta: &Bound<'_, PyAny>,
    confidence: &Bound<'_, PyAny>,
    statistic: &str,
    pilot_fraction: &Bound<'_, PyAny>,
    seed: &Bound<'_, PyAny>,
) -> PyResult<String> {
    let sa = sample_set("a", &a)?;
    let sb = sample_set("b", &b)?;
    let opts = SamplesOptions {
        eps: real("eps", eps)?,
        delta: real("delta", delta)?,
        confidence: real("confidence", confidence)?,
        pilot_fraction: real("pilot_fraction", pilot_fraction)?,
        statistic: statistic.parse::<SampleStatistic>().map_err(to_py)?,
        seed: int("seed", seed, 0)?,
    };
    let r = compute(py, None, || samples::audit_samples(&sa, &sb, &opts))?;
    serde_json::to_string(&r).map_err(|e| DpauditError::new_err(format!("audit result: {e}")))
}

/// The quantity names `evaluate` accepts.
#[pyfunction]
fn quantities() -> Vec<&'static str> {
    eval::Quantity::all().iter().map(|q| q.name()).collect()
}

/// The family names `evaluate` accepts (the model registry).
#[pyfunction]
fn families() -> Vec<&'static str> {
    dpaudit::FAMILIES.iter().map(|f| f.name).collect()
}

/// The compiled module.
#[pymodule]
fn _dpaudit(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("DpauditError", m.py().get_type::<DpauditError>())?;
    m.add_function(wrap_pyfunction!(eps_for_delta, m)?)?;
    m.add_function(wrap_pyfunction!(delta_for_eps, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_sigma_py, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_steps_py, m)?)?;
    m.add_function(wrap_pyfunction!(calibrate_batch_size_py, m)?)?;
    m.add_function(wrap_pyfunction!(dpsgd_q_steps, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(audit_samples_py, m)?)?;
    m.add_function(wrap_pyfunction!(quantities, m)?)?;
    m.add_function(wrap_pyfunction!(families, m)?)?;
    Ok(())
}
