"""Gaussian samplers on neighbouring inputs mu = 0 (a.npy or a.csv) and mu = 1 (b.*).

The Gaussian mechanism with sensitivity 1 and noise sigma = 1 is (eps, delta)-DP for
eps = 2, delta = 0.021 (Balle & Wang 2018, Thm 8: delta(2) = Phi(-1.5) - e^2 Phi(-2.5)
= 0.0209236). Two implementations:

* ``--impl correct``: mu + sigma * N(0, 1) with numpy's ``Generator.normal``, sigma = 1.
* ``--impl wrong-scale``: the bug of a sampler that uses sigma / 2 where sigma is claimed (e.g.
  a standard deviation passed where a variance was expected, or a factor 2 lost): at sigma = 0.5
  the same eps = 2 needs delta >= 0.332. ``dpaudit audit-samples`` (statistic ``value``) finds it.

Usage: python3 gaussian.py --impl correct --n 20000 --seed 1 --out DIR [--csv] [--dim D]
(D > 1: the shift is along the first coordinate, the noise isotropic.)

As a command that dpaudit runs (an audit spec with ``command = [...]``, docs/samples.md#command):
python3 gaussian.py --impl correct --protocol  -- reads DPAUDIT_SIDE (a: mu = 0, b: mu = 1),
DPAUDIT_COUNT and DPAUDIT_SEED and writes that many samples to standard output as .npy.
"""

import argparse
import os
import sys

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--impl", choices=["correct", "wrong-scale"], required=True)
    ap.add_argument("--n", type=int, default=20000, help="samples per file")
    ap.add_argument("--dim", type=int, default=1, help="dimension d of each sample")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", action="store_true", help="write CSV (one sample per line) instead of .npy")
    ap.add_argument("--out", help="directory for a.* and b.*")
    ap.add_argument("--protocol", action="store_true",
                    help="dpaudit's command protocol: one side's samples on stdout as .npy")
    args = ap.parse_args()
    sigma = 1.0 if args.impl == "correct" else 0.5
    if args.protocol:
        side = os.environ["DPAUDIT_SIDE"]
        n = int(os.environ["DPAUDIT_COUNT"])
        rng = np.random.default_rng(int(os.environ["DPAUDIT_SEED"]))
        x = rng.normal(0.0, sigma, size=(n, args.dim))
        x[:, 0] += {"a": 0.0, "b": 1.0}[side]
        np.save(sys.stdout.buffer, x[:, 0] if args.dim == 1 else x)
        return
    if args.out is None:
        ap.error("--out is required (or --protocol)")
    rng = np.random.default_rng(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for name, mu in (("a", 0.0), ("b", 1.0)):
        x = rng.normal(0.0, sigma, size=(args.n, args.dim))
        x[:, 0] += mu
        if args.dim == 1:
            x = x[:, 0]
        if args.csv:
            header = ",".join(f"x{j}" for j in range(args.dim))
            # %.17g round-trips every double exactly.
            np.savetxt(os.path.join(args.out, name + ".csv"), x.reshape(args.n, -1),
                       fmt="%.17g", delimiter=",", header=header, comments="")
        else:
            np.save(os.path.join(args.out, name + ".npy"), x)


if __name__ == "__main__":
    main()
