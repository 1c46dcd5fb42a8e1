"""Laplace samplers on neighbouring inputs mu = 0 (file a.npy) and mu = 1 (file b.npy), scale b.

Two implementations of the Laplace mechanism with sensitivity 1 and scale b (claimed eps = 1/b):

* ``--impl naive``: the textbook floating-point sampler mu + b * (-ln U) * sign, U uniform on
  (0, 1] in steps of 2^-53 (what numpy's ``Generator.random`` gives). Mironov (CCS 2012, "On
  significance of the least significant bits for differential privacy") shows that the set of
  doubles it can output, and the distribution of their low-order bits, depend on mu: near 0 the
  outputs of mu = 1 are multiples of 2^-53 (1 + y with y close to -1 is exact), those of mu = 0
  are not. ``dpaudit audit-samples --statistic exact-bits`` finds this.
* ``--impl snapped``: the same draw rounded to the grid of multiples of 2^-20 (Mironov's
  snapping, without the clamp). Rounding a float whose error is ~1e-16 relative to a grid of
  1e-6 equals rounding the exact real value except on a set of probability ~1e-10, so this is
  post-processing of the (discretised) Laplace mechanism: the low bits no longer depend on mu.

Usage: python3 laplace.py --impl naive --n 20000 --seed 1 --out DIR   (writes DIR/a.npy, DIR/b.npy)

As a command that dpaudit runs (docs/samples.md#command): python3 laplace.py --impl naive
--protocol reads DPAUDIT_SIDE (a: mu = 0, b: mu = 1), DPAUDIT_COUNT and DPAUDIT_SEED and writes
that many samples to standard output as .npy.
"""

import argparse
import os
import sys

import numpy as np


def naive(mu, b, n, rng):
    u = 1.0 - rng.random(n)  # (0, 1], multiples of 2^-53
    sign = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    return mu + b * (-np.log(u)) * sign


def snapped(mu, b, n, rng, grid=2.0**-20):
    return np.round(naive(mu, b, n, rng) / grid) * grid


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--impl", choices=["naive", "snapped"], required=True)
    ap.add_argument("--n", type=int, default=20000, help="samples per file")
    ap.add_argument("--b", type=float, default=10.0, help="Laplace scale")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", help="directory for a.npy and b.npy")
    ap.add_argument("--protocol", action="store_true",
                    help="dpaudit's command protocol: one side's samples on stdout as .npy")
    args = ap.parse_args()
    f = naive if args.impl == "naive" else snapped
    if args.protocol:
        mu = {"a": 0.0, "b": 1.0}[os.environ["DPAUDIT_SIDE"]]
        rng = np.random.default_rng(int(os.environ["DPAUDIT_SEED"]))
        np.save(sys.stdout.buffer, f(mu, args.b, int(os.environ["DPAUDIT_COUNT"]), rng))
        return
    if args.out is None:
        ap.error("--out is required (or --protocol)")
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    np.save(os.path.join(args.out, "a.npy"), f(0.0, args.b, args.n, rng))
    np.save(os.path.join(args.out, "b.npy"), f(1.0, args.b, args.n, rng))


if __name__ == "__main__":
    main()
