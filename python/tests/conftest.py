"""Shared helpers of the dpaudit Python tests: where the repository's golden tables are, and a
reader for them. Golden values were produced outside the code (mpmath scripts in golden/ and
the peers' runs in benches/); see golden/README.md."""

import csv
from decimal import Decimal, localcontext
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "golden"
BENCHES = REPO / "benches"


def read_csv(path):
    """The rows of a CSV whose leading '#' lines are comments, as dicts."""
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("#")]
    return list(csv.DictReader(lines))


def agrees(value: str, golden: str, digits: int) -> bool:
    """|value - golden| <= 10^-digits * |golden|, in exact decimal arithmetic."""
    v, g = Decimal(value), Decimal(golden)
    with localcontext() as ctx:
        ctx.prec = 400  # exact for the 60-digit values of the golden tables
        return abs(v - g) <= Decimal(10) ** (-digits) * abs(g)


def contains(bracket, exact: str) -> bool:
    """Decimal(lo) <= exact <= Decimal(hi) for a dpaudit.Bracket (outward-rounded strings)."""
    return Decimal(bracket.lo) <= Decimal(exact) <= Decimal(bracket.hi)
