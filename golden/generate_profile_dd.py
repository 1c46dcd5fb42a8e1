#!/usr/bin/env python3
"""Golden rows for the privacy profile of d-dimensional Gaussian pairs with unequal variances
(RGM pairs), which has no closed form (MATH.md §7.4). Writes golden/profile_dd.csv.

Route: the §7.4 semi-analytic integral  delta = int phi_{s1}(t) h(t) dt  with mpmath's
regularised incomplete gamma for the chi^2_{d-1} functions, done twice, independently of each
other's discretisation and precision: (A) dps 80, pieces of width s1/4 on +-24 s1, and (B) dps 100,
pieces of width s1/5 on +-26 s1, both split at the roots of l(t) = eps. `digits` = agreement of
A and B (capped at 60). The d = 7 rows were also cross-checked (dps 20, ~15 digits) by a 2-D
route without incomplete gamma functions (t x chi_k radial density, nested mpmath quad).
Parameters are exact decimals; for rgm, s_i^2 = gamma n_i^2 + sigma2 and
s1^2 - s2^2 = gamma (n1 - n2)(n1 + n2).

Usage: python3 golden/generate_profile_dd.py   (a few minutes)
"""
import csv
import pathlib

from mpmath import exp, gammainc, inf, log, mp, mpf, nstr, pi, quad, sqrt


def profile(s1sq, s2sq, dist, d, eps, dps, step, span):
    mp.dps = dps
    s1sq, s2sq, dist, eps = mpf(s1sq), mpf(s2sq), mpf(dist), mpf(eps)
    k = d - 1
    s1 = sqrt(s1sq)
    kap = (s1sq / s2sq - 1) / 2
    c = 1 + 2 * kap

    def ell(t):
        return d * log(s2sq / s1sq) / 2 - t**2 / (2 * s1sq) + (t - dist) ** 2 / (2 * s2sq)

    def q(x):
        return gammainc(mpf(k) / 2, x / 2, inf, regularized=True)

    def f(x):
        return gammainc(mpf(k) / 2, 0, x / 2, regularized=True)

    def h(t):
        el = ell(t)
        w0 = (eps - el) / kap
        g = exp(eps - el) * c ** (-mpf(k) / 2)
        if kap > 0:
            return q(w0) - g * q(c * w0) if w0 > 0 else 1 - g
        return f(w0) - g * f(c * w0) if w0 > 0 else mpf(0)

    a2 = (1 / s2sq - 1 / s1sq) / 2
    b1 = -dist / s2sq
    c0 = ell(0) - eps
    disc = b1**2 - 4 * a2 * c0
    roots = sorted([(-b1 - sqrt(disc)) / (2 * a2), (-b1 + sqrt(disc)) / (2 * a2)]) if disc > 0 else []
    big_t = span * s1
    n = int(span / step)
    grid = sorted(set([-big_t, big_t] + [x for x in roots if -big_t < x < big_t] + [j * s1 * step for j in range(-n + 1, n)]))

    def phi(t):
        return exp(-(t**2) / (2 * s1sq)) / sqrt(2 * pi * s1sq)

    return sum(quad(lambda t: phi(t) * h(t), [a, b]) for a, b in zip(grid[:-1], grid[1:]))


ROWS = [
    # id, family, params, (s1sq, s2sq, dist, d), eps
    ("pdd-gdd-001", "gaussian_dd", "dist=1;sigma1=1;sigma2=1.5;d=7;eps=0.5", ("1", "2.25", "1", 7), "0.5"),
    ("pdd-gdd-002", "gaussian_dd", "dist=1;sigma1=1.5;sigma2=1;d=7;eps=0.5", ("2.25", "1", "1", 7), "0.5"),
    ("pdd-gdd-003", "gaussian_dd", "dist=1;sigma1=1;sigma2=1.005;d=1000;eps=0.5", ("1", "1.010025", "1", 1000), "0.5"),
    ("pdd-rgm-001", "rgm", "d=10;gamma=0.001;sigma2=5.625;n1=100;n2=101.25;dist=1.25;eps=1", ("15.625", "15.8765625", "1.25", 10), "1"),
    ("pdd-rgm-002", "rgm", "d=10;gamma=0.001;sigma2=5.625;n1=101.25;n2=100;dist=1.25;eps=1", ("15.8765625", "15.625", "1.25", 10), "1"),
    ("pdd-rgm-003", "rgm", "d=100;gamma=0.001;sigma2=5.625;n1=100;n2=101.25;dist=1.25;eps=0.5", ("15.625", "15.8765625", "1.25", 100), "0.5"),
]


def main():
    out = pathlib.Path(__file__).resolve().parent / "profile_dd.csv"
    rows = []
    for rid, fam, params, (s1, s2, dist, d), eps in ROWS:
        va = profile(s1, s2, dist, d, eps, 80, mpf(1) / 4, 24)
        vb = profile(s1, s2, dist, d, eps, 100, mpf(1) / 5, 26)
        mp.dps = 100
        agree = -log(abs(va - vb) / abs(vb), 10) if va != vb else mpf(100)
        digits = int(min(60, agree))
        src = "mpmath MATH §7.4 gammainc route dps80 (step s1/4) vs dps100 (step s1/5)"
        if d == 7:
            src += "; 2-D route cross-check (dps20)"
        rows.append([rid, "hockey_stick_delta", fam, params, nstr(vb, 60, min_fixed=1, max_fixed=0), digits, src])
        print(rid, nstr(vb, 25), digits, flush=True)
    tmp = out.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "quantity", "family", "params", "value", "digits", "source"])
        w.writerows(rows)
    tmp.rename(out)


if __name__ == "__main__":
    main()
