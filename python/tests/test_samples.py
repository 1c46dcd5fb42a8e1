"""`dpaudit.audit_samples` on NumPy arrays: a Gaussian mechanism whose sampler uses half the
claimed noise is refuted, the correct sampler is not (both seeded numpy Generators), results
are deterministic, and bad arrays raise DpauditError.

The claim is the exact ε(δ) of the Gaussian mechanism with Δ = 1, σ = 1 at δ = 1e-5: the
golden value e4d-gau-002 of golden/hockey_stick.csv (mpmath, 60 digits)."""

import numpy as np
import pytest

import dpaudit
from conftest import GOLDEN, read_csv
from dpaudit import DpauditError

CLAIM = float(next(r for r in read_csv(GOLDEN / "hockey_stick.csv") if r["id"] == "e4d-gau-002")["value"])
N = 200_000


def gaussian_pair(sigma, seed, n=N, d=None):
    rng = np.random.default_rng(seed)
    shape = (n,) if d is None else (n, d)
    shift = 1.0 if d is None else np.eye(d)[0]  # neighbouring inputs at distance 1
    return rng.normal(0.0, sigma, shape), shift + rng.normal(0.0, sigma, shape)


def test_wrong_scale_gaussian_is_a_violation():
    a, b = gaussian_pair(0.5, seed=1)  # the bug: sigma/2 used, sigma = 1 claimed
    r = dpaudit.audit_samples(a, b, eps=CLAIM, delta=1e-5)
    assert r.verdict == "VIOLATION" and r.violation
    assert r.eps_lb_strict > CLAIM and r.eps_lb >= r.eps_lb_strict
    assert r.statistic == "value"


def test_correct_gaussian_passes():
    a, b = gaussian_pair(1.0, seed=2)
    r = dpaudit.audit_samples(a, b, eps=CLAIM, delta=1e-5)
    assert r.verdict == "ok" and not r.violation
    assert 0 < r.eps_lb <= CLAIM  # a real lower bound, below the exact value
    assert r.n_a == r.n_b == N and r.main_a == r.main_b == N - N // 5
    assert r.confidence == 0.95 and r.eps_claimed == CLAIM and r.delta == 1e-5


def test_two_dimensional_samples_projection():
    a, b = gaussian_pair(0.5, seed=3, n=100_000, d=3)
    r = dpaudit.audit_samples(a, b, eps=CLAIM, delta=1e-5)
    assert r.statistic == "projection" and r.verdict == "VIOLATION"
    a, b = gaussian_pair(1.0, seed=4, n=100_000, d=3)
    r = dpaudit.audit_samples(a, b, eps=CLAIM, delta=1e-5)
    assert r.verdict == "ok" and r.eps_lb <= CLAIM


def test_deterministic_and_seeded():
    a, b = gaussian_pair(1.0, seed=5, n=50_000)
    r1 = dpaudit.audit_samples(a, b, eps=1, delta=1e-5, seed=7)
    r2 = dpaudit.audit_samples(a.copy(), list(b), eps=1, delta=1e-5, seed=7)
    assert r1 == r2
    r3 = dpaudit.audit_samples(a, b, eps=1, delta=1e-5, seed=8)
    assert r3.details["seed"] == 8 and r3.details["split"] != r1.details["split"]


@pytest.mark.parametrize(
    "a, b, kwargs, words",
    [
        (np.zeros((10, 2)), np.zeros((10, 3)), {}, ["dimension"]),
        (np.zeros((4, 2, 2)), np.zeros(16), {}, ["a", "shape"]),
        (["x", "y"], np.zeros(2), {}, ["a"]),
        (np.zeros(100), np.zeros(100), {"confidence": 1.5}, ["confidence", "1.5"]),
        (np.zeros(100), np.zeros(100), {"pilot_fraction": 0}, ["pilot", "0"]),
        (np.zeros(100), np.zeros(100), {"statistic": "magic"}, ["statistic", "magic"]),
        (np.zeros(100), np.zeros(100), {"seed": -1}, ["seed", "-1"]),
        (np.zeros((100, 2)), np.zeros((100, 2)), {"statistic": "value"}, ["statistic"]),
        (np.array([0.0, np.nan] * 50), np.zeros(100), {}, ["NaN"]),
        (np.zeros(0), np.zeros(10), {}, ["a"]),
    ],
)
def test_bad_samples_raise_dpaudit_error(a, b, kwargs, words):
    with pytest.raises(DpauditError) as e:
        dpaudit.audit_samples(a, b, eps=1, delta=1e-5, **kwargs)
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_bad_claim():
    a, b = gaussian_pair(1.0, seed=6, n=1000)
    with pytest.raises(DpauditError, match="eps"):
        dpaudit.audit_samples(a, b, eps=-1, delta=1e-5)
    with pytest.raises(DpauditError, match="delta"):
        dpaudit.audit_samples(a, b, eps=1, delta=1)
