"""`dpaudit.evaluate` (the `dpaudit eval` quantities) against the golden tables, read here from
golden/*.csv: values produced outside the code by the mpmath scripts of golden/ (two routes at
80–100 digits; the `digits` column is the digits on which they agree)."""

import pytest

import dpaudit
from conftest import GOLDEN, agrees, read_csv


def first_rows(name, per_family=2):
    """The first `per_family` rows of each family of golden/<name>."""
    seen, out = {}, []
    for r in read_csv(GOLDEN / name):
        if seen.get(r["family"], 0) < per_family:
            seen[r["family"]] = seen.get(r["family"], 0) + 1
            out.append(r)
    return out


ROWS = (
    first_rows("renyi.csv")
    + first_rows("kl.csv", 1)
    + first_rows("hockey_stick.csv", 1)
    + first_rows("fisher.csv", 1)
    + first_rows("bounds.csv", 1)
    + first_rows("laplace.csv", 1)
)


@pytest.mark.parametrize("row", ROWS, ids=lambda r: r["id"])
def test_evaluate_matches_golden(row):
    digits = min(int(row["digits"]), 25)
    v = dpaudit.evaluate(row["quantity"], row["family"], row["params"], digits=digits)
    assert v.digits == digits
    assert agrees(v.value, row["value"], digits), (v, row["value"])
    assert float(v) == pytest.approx(float(row["value"]), rel=1e-15)


def test_dict_params_are_the_csv_params():
    """A dict gives the same exact decimals as the CSV form; a Python float is its shortest
    round-trip decimal (alpha=1.001 is 1.001, not the double 1.000999999999999889...)."""
    row = next(r for r in read_csv(GOLDEN / "renyi.csv") if "alpha=1.001" in r["params"])
    params = dict(kv.split("=") for kv in row["params"].split(";"))
    as_numbers = {k: float(v) if "." in v or "e" in v else int(v) for k, v in params.items()}
    a = dpaudit.evaluate(row["quantity"], row["family"], as_numbers, digits=25)
    b = dpaudit.evaluate(row["quantity"], row["family"], params, digits=25)
    assert a == b
    assert agrees(a.value, row["value"], 25)


def test_two_routes_agree():
    """Closed form and quadrature are independent routes; both certify the golden digits."""
    row = next(r for r in read_csv(GOLDEN / "renyi.csv") if r["family"] == "truncated")
    for method in ("closed-form", "quadrature"):
        v = dpaudit.evaluate(row["quantity"], row["family"], row["params"], 20, method=method)
        assert agrees(v.value, row["value"], 20), (method, v)


def test_vocabulary_is_listed():
    assert {"renyi", "kl", "fisher", "hockey_stick_delta", "eps_for_delta"} <= set(
        dpaudit.quantities()
    )
    assert {"gaussian", "rgm", "rectified", "truncated", "laplace"} <= set(dpaudit.families())
