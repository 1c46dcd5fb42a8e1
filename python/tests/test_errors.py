"""Bad input raises DpauditError (a ValueError) whose message names the parameter and its value;
nothing reaches a Rust panic (which would surface as pyo3's PanicException, a BaseException that
`pytest.raises(DpauditError)` would not catch)."""

import math

import numpy as np
import pytest

import dpaudit
from dpaudit import DpauditError


def test_error_is_a_value_error():
    assert issubclass(DpauditError, ValueError)
    assert DpauditError.__module__ == "dpaudit"


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(delta=1e-5, q=0.01, sigma=0, steps=10), ["sigma", "0"]),
        (dict(delta=1e-5, q=0.01, sigma=-1.5, steps=10), ["sigma", "-1.5"]),
        (dict(delta=1e-5, q=1.5, sigma=1, steps=10), ["q", "1.5"]),
        (dict(delta=1e-5, q=0, sigma=1, steps=10), ["q", "0"]),
        (dict(delta=2, q=0.01, sigma=1, steps=10), ["delta", "2"]),
        (dict(delta=0, q=0.01, sigma=1, steps=10), ["delta", "0"]),
        (dict(delta="abc", q=0.01, sigma=1, steps=10), ["delta", "abc"]),
        (dict(delta=float("nan"), q=0.01, sigma=1, steps=10), ["delta", "NaN"]),
        (dict(delta=1e-5, q=0.01, sigma=math.inf, steps=10), ["sigma"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=0), ["steps = 0"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=-3), ["steps = -3"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=2.5), ["steps = 2.5"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=True), ["steps = True"]),
        (dict(delta=1e-5, schedule=[(0.01, 1, 5), (0.02, "x", 5)]), ["schedule[1].sigma", "x"]),
        (dict(delta=1e-5, schedule=[(0.01, 1, 5), (0.02, 1, 0)]), ["schedule[1].count = 0"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=10, digits=0), ["digits", "0"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=10, digits=51), ["digits", "51"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=10, neighbours="x"), ["neighbours", "x"]),
        (dict(delta=1e-5, q=0.01, sigma=1, steps=10, max_seconds=-1), ["max_seconds", "-1"]),
        (dict(delta=1e-5, q=0.01, sigma=1e9, steps=10), ["sigma", "1e8"]),
        (dict(delta=1e-5, sigma=1), ["steps"]),
        (dict(delta=1e-5, steps=3), ["sigma"]),
        (dict(delta=1e-5, schedule=[(0.01, 1)]), ["schedule[0]"]),
        (dict(delta=1e-5, schedule=[(0.01, 1, 5)], sigma=1), ["schedule"]),
        (dict(delta=1e-5, schedule="abc"), ["schedule"]),
    ],
)
def test_accounting_errors_name_the_parameter(kwargs, words):
    with pytest.raises(DpauditError) as e:
        dpaudit.eps_for_delta(**kwargs)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_delta_for_eps_negative_eps():
    with pytest.raises(DpauditError, match="eps"):
        dpaudit.delta_for_eps(-1, q=0.01, sigma=1, steps=1000)


def test_uncertifiable_is_an_error_not_a_guess():
    """q = 1e-6, T = 1e6 cannot be certified (docs/accounting.md, Limits): an error saying so,
    within the time limit."""
    with pytest.raises(DpauditError, match="cannot certify|time limit"):
        dpaudit.eps_for_delta(1e-5, q=1e-6, sigma=1, steps=10**6, max_seconds=3)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: dpaudit.calibrate_sigma(-1, 1e-5, q=0.01, steps=100), ["target eps", "-1"]),
        (lambda: dpaudit.calibrate_sigma(1, 1e-5, q=0.01, steps=100, rel_tol=2), ["rel_tol"]),
        (lambda: dpaudit.calibrate_sigma(1, 1e-5, q=0.01, steps=0), ["steps", "0"]),
        (lambda: dpaudit.calibrate_steps(1, 1.5, q=0.01, sigma=1), ["delta", "1.5"]),
        (lambda: dpaudit.calibrate_steps(1, 1e-5, q=1, sigma=1, max_steps=0), ["max_steps"]),
        (lambda: dpaudit.calibrate_steps(0.01, 1e-5, q=1, sigma=1), ["target eps", "0.01"]),
        (
            lambda: dpaudit.calibrate_batch_size(1, 1e-5, dataset_size=0, epochs=1, sigma=1),
            ["dataset_size", "0"],
        ),
        (lambda: dpaudit.dpsgd_q_steps(100, 200, 1), ["batch_size", "200"]),
        (lambda: dpaudit.dpsgd_q_steps(100, 10, -1), ["epochs", "-1"]),
        (lambda: dpaudit.Accountant(neighbours="x"), ["neighbours"]),
        (lambda: dpaudit.Accountant().get_epsilon(1e-5), ["step()"]),
    ],
)
def test_calibration_and_bookkeeping_errors(call, words):
    with pytest.raises(DpauditError) as e:
        call()
    for w in words:
        assert w in str(e.value), (w, str(e.value))


@pytest.mark.parametrize(
    "args, words",
    [
        (("renyi", "gaussian", "mu1=0;mu2=1;sigma=0;alpha=2"), ["sigma = 0"]),
        (("renyi", "gaussian", {"mu1": 0, "mu2": 1, "sigma": 1, "alpha": 0.5}), ["alpha"]),
        (("renyi", "gaussian", {"mu1": 0, "mu2": 1, "sigma": 1}), ["alpha"]),
        (("renyi", "gaussian", {"mu1": 0, "mu2": 1, "sigma": 1, "alpha": 2, "x": 1}), ["x"]),
        (("renyi", "gaussian", {"mu1": 0, "mu2": 1, "sigma": "one", "alpha": 2}), ["sigma"]),
        (("renyi", "gaussian", {"mu1": 0, "mu2": 1, "sigma": None, "alpha": 2}), ["sigma"]),
        (("renyi", "gaussian", {"mu1": 0, "mu2": 1, "sigma": "1;a=2", "alpha": 2}), ["sigma"]),
        (("renyi", "gaussian", 42), ["params"]),
        (("nope", "gaussian", "mu1=0;mu2=1;sigma=1"), ["nope"]),
        (("renyi", "nope", "mu1=0;mu2=1;sigma=1;alpha=2"), ["nope"]),
        (("rgm_theorem1_eps", "rgm", "eta=0.5;gamma=0.01;d=1;alpha=2"), ["validity"]),
    ],
)
def test_evaluate_errors(args, words):
    with pytest.raises(DpauditError) as e:
        dpaudit.evaluate(*args)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_evaluate_bad_digits_and_method():
    with pytest.raises(DpauditError, match="digits"):
        dpaudit.evaluate("kl", "gaussian", "mu1=0;mu2=1;sigma=1", digits=0)
    with pytest.raises(DpauditError, match="digits"):
        dpaudit.evaluate("kl", "gaussian", "mu1=0;mu2=1;sigma=1", digits=10**6)
    with pytest.raises(DpauditError, match="method"):
        dpaudit.evaluate("kl", "gaussian", "mu1=0;mu2=1;sigma=1", method="guess")


def test_numpy_scalars_are_numbers():
    a = dpaudit.eps_for_delta(np.float64(1e-5), q=np.float32(0.5), sigma=np.float64(2), steps=np.int64(1))
    b = dpaudit.eps_for_delta(1e-5, q=0.5, sigma=2, steps=1)
    assert a == b
