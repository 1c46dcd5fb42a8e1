"""Certified accounting through the Python package: brackets against independent values.

Independent sources: the golden tables (mpmath scripts in golden/, with the digits their two
routes agree on), Balle & Wang (2018, Thm 8) evaluated here in double precision with
math.erfc, and dp_accounting's PLD [optimistic, pessimistic] interval from
benches/peers_accounting.csv. No expected value comes from dpaudit itself.
"""

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import pytest

import dpaudit
from conftest import BENCHES, GOLDEN, agrees, contains, read_csv


def bw_delta(mu: float, eps: float) -> float:
    """δ(ε) of the Gaussian mechanism with μ = Δ/σ, Balle & Wang 2018 Thm 8, in doubles."""
    phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2.0))  # noqa: E731
    return phi(mu / 2 - eps / mu) - math.exp(eps) * phi(-mu / 2 - eps / mu)


def bw_eps(mu: float, delta: float) -> float:
    """ε(δ) by bisection on bw_delta (decreasing in ε), in doubles."""
    lo, hi = 0.0, 1.0
    while bw_delta(mu, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if bw_delta(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def overlaps(bracket, golden: str, digits: int) -> bool:
    """The bracket meets [g − 10^-d |g|, g + 10^-d |g|] (a golden value certified to d digits)."""
    g = Decimal(golden)
    with localcontext() as ctx:
        ctx.prec = 400  # exact at the tables' lengths
        r = abs(g) * Decimal(10) ** (-digits)
        return Decimal(bracket.lo) <= g + r and g - r <= Decimal(bracket.hi)


# Balle & Wang in doubles: the relative error of ε from the double-precision formula is far
# below 1e-10 at these parameters (δ is a difference of two terms of the same order, losing at
# most ~2 of 16 digits, and |dε/dδ|·δ/ε is O(1)); 1e-10 is the honest float tolerance.
FLOAT_TOL = 1e-10


@pytest.mark.parametrize(
    "sigmas_counts",
    [[(5, 1)], [(2, 3), (4, 5)], [(0.7, 10)]],
)
def test_gaussian_schedule_bracket_contains_balle_wang(sigmas_counts):
    mu = math.sqrt(sum(n / s**2 for s, n in sigmas_counts))
    exact = bw_eps(mu, 1e-5)
    r = dpaudit.eps_for_delta(1e-5, schedule=[(None, s, n) for s, n in sigmas_counts])
    assert r.route == "gaussian closed form"
    assert r.value.lo_float * (1 - FLOAT_TOL) <= exact <= r.value.hi_float * (1 + FLOAT_TOL)
    # The certified digits exceed what a double can check: the bracket is narrow.
    assert r.value.digits >= 15
    assert r.value.lo_float <= r.value.hi_float


def test_gaussian_bracket_contains_golden_exactly():
    """golden/hockey_stick.csv e4d-gau rows (mpmath, 60 digits): the bracket of one Gaussian
    release with sensitivity 1 contains the golden value, compared in exact decimals."""
    params = lambda row: dict(kv.split("=") for kv in row["params"].split(";"))  # noqa: E731
    rows = [
        r
        for r in read_csv(GOLDEN / "hockey_stick.csv")
        if r["id"].startswith("e4d-gau")
        and abs(Decimal(params(r)["mu2"]) - Decimal(params(r)["mu1"])) == 1
    ]
    assert len(rows) >= 3
    for row in rows:
        p = params(row)
        r = dpaudit.eps_for_delta(p["delta"], q=None, sigma=p["sigma"], steps=1, digits=30)
        assert contains(r.value, row["value"]), (row["id"], r.value, row["value"])
        assert r.value.digits >= 25


def test_full_batch_bracket_contains_golden():
    """golden/accounting/subsampled_full_batch.csv (mpmath bisection, 40 digits): q = 1."""
    for row in read_csv(GOLDEN / "accounting" / "subsampled_full_batch.csv"):
        r = dpaudit.eps_for_delta(
            row["delta"], q=1, sigma=row["sigma"], steps=int(row["steps"]), digits=30
        )
        assert overlaps(r.value, row["eps"], int(row["digits"])), (row, r.value)
        assert agrees(r.value.mid, row["eps"], r.value.digits - 1)


SMALL_T = [
    r
    for r in read_csv(GOLDEN / "accounting" / "small_t.csv")
    # the two fastest rows of each quantity (the others take longer; cargo test covers them)
    if (r["q"], r["sigma"], r["steps"]) in {("0.04", "1.5", "1"), ("0.001", "0.6", "1"), ("0.5", "2", "2")}
]


@pytest.mark.parametrize("row", SMALL_T, ids=lambda r: f"{r['quantity']}-q{r['q']}-T{r['steps']}")
def test_subsampled_small_t_against_mpmath(row):
    """golden/accounting/small_t.csv: an independent mpmath 2-D integration (25 digits)."""
    kw = dict(q=row["q"], sigma=row["sigma"], steps=int(row["steps"]), digits=20)
    if row["quantity"] == "eps_for_delta":
        r = dpaudit.eps_for_delta(row["param"], **kw)
    else:
        r = dpaudit.delta_for_eps(row["param"], **kw)
    assert overlaps(r.value, row["value"], int(row["digits"])), (row, r.value)
    assert r.value.digits >= 15


def peers(case):
    return {
        r["method"]: r for r in read_csv(BENCHES / "peers_accounting.csv") if r["case"] == case
    }


def test_dpsgd_bracket_inside_dp_accounting_pld_interval():
    """Opacus' test case (q = 0.04, σ = 1.5, T = 2250, δ = 1e-5): dpaudit's bracket lies inside
    dp_accounting's PLD [optimistic, pessimistic] interval and below its RDP bound
    (benches/peers_accounting.csv, dp-accounting 0.6.0)."""
    p = peers("opacus_test")
    r = dpaudit.eps_for_delta(1e-5, q=0.04, sigma=1.5, steps=2250, digits=15)
    assert r.route == "mgf inversion"
    opt = float(p["dp_accounting PLD optimistic 1e-4"]["eps"])
    pess = float(p["dp_accounting PLD pessimistic 1e-4"]["eps"])
    rdp = float(p["dp_accounting RDP"]["eps"])
    assert opt <= r.value.lo_float <= r.value.hi_float <= pess < rdp
    assert r.value.rel_width < 1e-12
    # The mechanism's value is the worse direction.
    assert r.value.hi_float == max(r.remove.hi_float, r.add.hi_float)


def test_delta_eps_round_trip():
    """δ(ε) at the midpoint of the certified ε(δ) bracket is δ again (to the bracket's width
    times the slope), and the bracket's ends straddle δ as monotonicity demands."""
    kw = dict(q=0.04, sigma=1.5, steps=2250, digits=15)
    e = dpaudit.eps_for_delta("1e-5", **kw)
    d_mid = dpaudit.delta_for_eps(e.value.mid, **kw)
    assert abs(d_mid.value.hi_float / 1e-5 - 1) < 1e-9
    assert dpaudit.delta_for_eps(e.value.lo, **kw).value.hi_float >= 1e-5
    assert dpaudit.delta_for_eps(e.value.hi, **kw).value.lo_float <= 1e-5


def test_calibrate_sigma_round_trip():
    t = dpaudit.calibrate_sigma(2.0, 1e-5, q=0.04, steps=2250, rel_tol=0.01)
    assert t.sigma_below < t.sigma <= t.sigma_below * 1.01
    assert t.eps.hi_float <= 2.0 < t.eps_below.lo_float
    # Recomputed independently of the calibration's own brackets:
    at = dpaudit.eps_for_delta(1e-5, q=0.04, sigma=t.sigma, steps=2250, digits=12)
    below = dpaudit.eps_for_delta(1e-5, q=0.04, sigma=t.sigma_below, steps=2250, digits=12)
    assert at.value.hi_float <= 2.0 < below.value.lo_float


def test_calibrate_sigma_full_batch_against_balle_wang():
    """q = 1: the σ that gives ε(1e-5) = 1 after 100 steps, by bisection on Balle & Wang in
    doubles, lies between the calibration's two certified σ."""
    steps, target = 100, 1.0
    lo, hi = 1.0, 1000.0
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if bw_eps(math.sqrt(steps) / mid, 1e-5) > target:
            lo = mid
        else:
            hi = mid
    t = dpaudit.calibrate_sigma(target, 1e-5, q=1, steps=steps, rel_tol=1e-6)
    assert t.sigma_below * (1 - FLOAT_TOL) <= hi <= t.sigma * (1 + FLOAT_TOL)


def test_calibrate_steps_full_batch_against_balle_wang():
    sigma, target = 20, 2.0
    eps = lambda T: bw_eps(math.sqrt(T) / sigma, 1e-5)  # noqa: E731
    T = 1
    while eps(T + 1) <= target:
        T += 1
    # Not a knife edge at double precision:
    assert eps(T) < target * (1 - 1e-6) and eps(T + 1) > target * (1 + 1e-6)
    r = dpaudit.calibrate_steps(target, 1e-5, q=1, sigma=sigma)
    assert r.steps == T
    assert r.eps.hi_float <= target < r.eps_next.lo_float


def test_dpsgd_bookkeeping():
    q, steps = dpaudit.dpsgd_q_steps(60000, 256, 60)
    assert steps == math.ceil(Fraction(60 * 60000, 256)) == 14063
    with localcontext() as ctx:
        ctx.prec = 60
        exact = str(Decimal(256) / Decimal(60000))
    assert agrees(q, exact, 39)


def test_accountant_opacus_interface():
    acc = dpaudit.Accountant()
    for _ in range(1000):
        acc.step(noise_multiplier=10, sample_rate=1)
    assert len(acc) == 1000 and acc.history == [(10, 1, 1000)]
    assert acc.mechanism() == "dpaudit"
    golden = next(
        r
        for r in read_csv(GOLDEN / "accounting" / "subsampled_full_batch.csv")
        if (r["sigma"], r["steps"]) == ("10", "1000")
    )
    eps = acc.get_epsilon(delta=1e-5)
    assert eps >= float(golden["eps"])  # an upper bound...
    assert eps <= float(golden["eps"]) * (1 + 1e-12)  # ...and a tight one
    b = acc.get_epsilon_bracket(1e-5)
    assert overlaps(b.value, golden["eps"], 12) and b.value.hi_float == eps


def test_accountant_mixed_history_is_the_schedule():
    acc = dpaudit.Accountant()
    for _ in range(500):
        acc.step(noise_multiplier=1.5, sample_rate=0.04)
    for _ in range(300):
        acc.step(noise_multiplier=2.0, sample_rate=0.04)
    assert acc.history == [(1.5, 0.04, 500), (2.0, 0.04, 300)]
    direct = dpaudit.eps_for_delta(1e-5, schedule=[(0.04, 1.5, 500), (0.04, 2.0, 300)], digits=12)
    assert acc.get_epsilon(1e-5) == direct.value.hi_float
    # Adding the second phase costs privacy, less than running it at the first phase's σ.
    first = dpaudit.eps_for_delta(1e-5, q=0.04, sigma=1.5, steps=500, digits=12)
    worse = dpaudit.eps_for_delta(1e-5, q=0.04, sigma=1.5, steps=800, digits=12)
    assert first.value.hi_float < direct.value.lo_float
    assert direct.value.hi_float < worse.value.lo_float
    d = acc.get_delta(direct.value.mid)
    assert abs(d / 1e-5 - 1) < 1e-6


def test_calibrate_batch_size_round_trip():
    """The largest expected batch meeting (3, 1e-5) for 50 epochs of N = 1000 at σ = 1.5: its
    bookkeeping is dpsgd_q_steps', its bracket recomputed meets the target and B + 1's fails."""
    r = dpaudit.calibrate_batch_size(3.0, 1e-5, dataset_size=1000, epochs=50, sigma=1.5)
    assert (r.q, r.steps) == dpaudit.dpsgd_q_steps(1000, r.batch_size, 50)
    at = dpaudit.eps_for_delta(1e-5, q=r.q, sigma=1.5, steps=r.steps, digits=12)
    assert at.value.hi_float <= 3.0 and r.eps.hi_float <= 3.0
    b1, q1, t1, e1 = r.next
    assert b1 == r.batch_size + 1 and (q1, t1) == dpaudit.dpsgd_q_steps(1000, b1, 50)
    nxt = dpaudit.eps_for_delta(1e-5, q=q1, sigma=1.5, steps=t1, digits=12)
    assert nxt.value.lo_float > 3.0 and e1.lo_float > 3.0
