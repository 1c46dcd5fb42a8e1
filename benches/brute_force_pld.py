"""Brute-force privacy-loss composition of the Poisson-subsampled Gaussian (remove direction).

An independent check of eps(delta) where dpaudit and dp_accounting's PLD disagree
(docs/accounting.md#peer-discrepancy). It shares no code with either: the step's loss
l(x) = ln(1 - q + q*exp((2x - 1)/(2 sigma^2))), x ~ (1 - q) N(0, sigma^2) + q N(1, sigma^2), is put on
the grid k*h with each cell's exact P-mass (normal cdf differences), every loss rounded up
(pessimistic: delta(eps) = E[(1 - e^{eps - L})_+] is non-decreasing in L, so an upper bound on delta and
on eps(delta)) or down (optimistic: lower bounds), and composed T times by one FFT long enough that
nothing wraps. The two eps(delta) bracket the mechanism's remove direction; their gap is T*h.

usage: python benches/brute_force_pld.py Q SIGMA T H DELTA [DELTA ...]   (needs numpy and scipy;
q = 0.3, sigma = 0.3, T = 1000, h = 5e-4 takes about 5 minutes and 7 GB)
"""

import sys

import numpy as np
from scipy.special import ndtr


def main():
    q, s, t, h = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    deltas = [float(x) for x in sys.argv[5:]]
    l0 = np.log1p(-q)

    def x_of(loss):
        return s * s * np.log((np.exp(loss) - (1 - q)) / q) + 0.5

    def p_cdf(x):
        return (1 - q) * ndtr(x / s) + q * ndtr((x - 1) / s)

    # Losses up to x = 1 + 12 sigma: the mass beyond is below 1e-32, reported as `tail`.
    x_max = 1 + 12 * s
    l_max = np.log1p(-q + q * np.exp((2 * x_max - 1) / (2 * s * s)))
    k_min, k_max = int(np.floor(l0 / h)), int(np.ceil(l_max / h))
    edges = np.arange(k_min, k_max + 1) * h
    xe = np.where(edges > l0, x_of(np.maximum(edges, l0 + 1e-300)), -np.inf)
    cdf = np.where(np.isfinite(xe), p_cdf(xe), 0.0)
    tail = 1 - p_cdf(x_of(edges[-1]))
    cell = np.diff(cdf)  # P-mass of the losses in (edge_i, edge_{i+1}]
    for name, off in (("pessimistic", k_min + 1), ("optimistic", k_min)):
        n = len(cell)
        length = t * (n - 1) + 1
        size = 1 << int(np.ceil(np.log2(length)))
        g = np.maximum(np.fft.irfft(np.fft.rfft(cell, size) ** t, size)[:length], 0.0)
        loss = (np.arange(length) + t * off) * h
        out = []
        for d in deltas:

            def delta_at(e):
                m = loss > e
                return np.sum(g[m] * -np.expm1(e - loss[m]))

            lo, hi = 0.0, loss[-1]
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                if delta_at(mid) > d:
                    lo = mid
                else:
                    hi = mid
            out.append(f"eps({d}) = {0.5 * (lo + hi):.6f}")
        print(f"{name}, h = {h}, FFT 2^{size.bit_length() - 1}, mass {g.sum():.15f}, "
              f"tail {tail:.1e}: " + ", ".join(out), flush=True)


if __name__ == "__main__":
    main()
