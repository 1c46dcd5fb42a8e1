#!/usr/bin/env python3
"""Baseline for benches/quadrature.rs: the same truncated-Gaussian Rényi divergence by mpmath.quad.

D_alpha(T(mu1) || T(mu2)) on [a, b] = log(int_a^b p1^alpha p2^(1-alpha)) / (alpha-1)
                                      - alpha/(alpha-1) log Z1 + log Z2,
with all three integrals by mpmath.quad (tanh-sinh), at dps = 30, 50, 100. Prints the median
wall time per evaluation, so the Rust figures can be reported as ratios measured on the same
machine in the same session.

Usage: python3 benches/mpmath_baseline.py [repeats]
"""
import sys
import time

import mpmath
from mpmath import mp, mpf


def d_alpha(mu1, mu2, sigma, a, b, alpha):
    s2 = 2 * sigma * sigma
    c = 1 / (sigma * mpmath.sqrt(2 * mp.pi))

    def p(mu):
        return lambda x: c * mpmath.exp(-((x - mu) ** 2) / s2)

    p1, p2 = p(mu1), p(mu2)
    num = mp.quad(lambda x: p1(x) ** alpha * p2(x) ** (1 - alpha), [a, b])
    z1 = mp.quad(p1, [a, b])
    z2 = mp.quad(p2, [a, b])
    return mpmath.log(num) / (alpha - 1) - alpha / (alpha - 1) * mpmath.log(z1) + mpmath.log(z2)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    for dps in (30, 50, 100):
        mp.dps = dps
        args = (mpf("0.3"), mpf("1.3"), mpf(1), mpf(-1), mpf(1), mpf(2))
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            v = d_alpha(*args)
            times.append(time.perf_counter() - t0)
        times.sort()
        print(f"mpmath quad truncated D_2 dps={dps}: median {times[len(times)//2]*1e3:.2f} ms  value {mpmath.nstr(v, 20)}")


if __name__ == "__main__":
    main()
