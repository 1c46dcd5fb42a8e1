"""A Gaussian sampler in plain Python (no numpy), speaking dpaudit's command protocol.

dpaudit runs it once per chunk (docs/samples.md#command) with DPAUDIT_SIDE (a: the mechanism on
x, mean 0; b: on the neighbour x', mean 1), DPAUDIT_COUNT and DPAUDIT_SEED in the environment; it
prints DPAUDIT_COUNT samples, one per line, with 17 significant digits (exact doubles).

    python3 stdlib_gaussian.py [--sigma S] [--bug-scale F] [--fail-on-chunk C]

--sigma is the claimed noise (default 1); --bug-scale F multiplies the noise actually drawn by F
(F = 0.5: the scale bug of gaussian.py --impl wrong-scale). --fail-on-chunk exits with status 3
on that chunk (for tests of a crashing sampler). Deterministic in the seed: random.Random(seed).
"""

import argparse
import os
import random
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sigma", type=float, default=1.0)
    ap.add_argument("--bug-scale", type=float, default=1.0)
    ap.add_argument("--fail-on-chunk", type=int, default=-1)
    args = ap.parse_args()
    side = os.environ["DPAUDIT_SIDE"]
    n = int(os.environ["DPAUDIT_COUNT"])
    if int(os.environ.get("DPAUDIT_CHUNK", "0")) == args.fail_on_chunk:
        print("stdlib_gaussian: failing on purpose", file=sys.stderr)
        sys.exit(3)
    rng = random.Random(int(os.environ["DPAUDIT_SEED"]))
    mu = {"a": 0.0, "b": 1.0}[side]
    s = args.sigma * args.bug_scale
    sys.stdout.write("".join("%.17g\n" % (mu + rng.gauss(0.0, s)) for _ in range(n)))


if __name__ == "__main__":
    main()
