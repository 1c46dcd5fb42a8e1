#!/usr/bin/env python3
"""Golden rows for the privacy profile of d-dimensional Gaussian pairs with unequal variances
(RGM pairs), which has no closed form (docs/formulas.md §7.4). Writes golden/profile_dd.csv.

Route: the §7.4 semi-analytic integral  delta = int phi_{s1}(t) h(t) dt  with mpmath's
regularised incomplete gamma for the chi^2_{d-1} functions, done twice, independently of each
other's discretisation and precision: (A) dps 80, pieces of width s1/4 on +-24 s1, and (B) dps 100,
pieces of width s1/5 on +-26 s1, both split at the roots of l(t) = eps. `digits` = agreement of
A and B (capped at 60). A and B share their formula (and the Rust code implements the same
derivation), so a third route C checks every row independently: the other order of integration
(chi^2 variable outside, with its elementary density; the inner Gaussian probability of the
quadratic region {l(t) > eps - kappa w} in closed form by the normal cdf), with no incomplete gamma
function, at dps 60. `digits` = min(60, agreement A-B, agreement C-B).
Parameters are exact decimals; for rgm, s_i^2 = gamma n_i^2 + sigma2 and
s1^2 - s2^2 = gamma (n1 - n2)(n1 + n2).

Usage: python3 golden/generate_profile_dd.py   (a few minutes)
"""
import csv
import pathlib

from mpmath import exp, gammainc, inf, log, loggamma, mp, mpf, ncdf, nstr, pi, quad, sqrt


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


def profile_fubini(s1sq, s2sq, dist, d, eps, dps, step):
    """Route C, independent of A and B: the other Fubini order. delta = P(L > eps) - e^eps Q(L > eps)
    with L = l(t) + kappa W. Integrate over the chi^2_k variable first (elementary density
    w^(k/2-1) e^(-w/2) / (2^(k/2) Gamma(k/2)), no incomplete gamma function), and take the inner
    t-probabilities of the quadratic region {l(t) > eps - kappa w} in closed form with the normal
    cdf at the roots. Under Q, t ~ N(dist, s2^2) and W = (s2^2/s1^2) V with V ~ chi^2_k."""
    mp.dps = dps
    s1sq, s2sq, dist, eps = mpf(s1sq), mpf(s2sq), mpf(dist), mpf(eps)
    k = mpf(d - 1)
    kap = (s1sq / s2sq - 1) / 2
    # l(t) = a2 t^2 + b1 t + c00
    a2 = (1 / s2sq - 1 / s1sq) / 2
    b1 = -dist / s2sq
    c00 = d * log(s2sq / s1sq) / 2 + dist**2 / (2 * s2sq)

    def region(theta, mean, var):
        # P(l(T) > theta), T ~ N(mean, var)
        sd = sqrt(var)
        c = c00 - theta
        disc = b1**2 - 4 * a2 * c
        if disc <= 0:
            return mpf(1) if a2 > 0 else mpf(0)
        qq = -(b1 + (1 if b1 >= 0 else -1) * sqrt(disc)) / 2
        r1, r2 = sorted([qq / a2, c / qq])
        lo, hi = (r1 - mean) / sd, (r2 - mean) / sd
        if a2 > 0:
            return ncdf(lo) + ncdf(-hi)
        return ncdf(hi) - ncdf(lo)

    def dens(w):
        if w <= 0:
            return mpf(0)
        return exp((k / 2 - 1) * log(w) - w / 2 - (k / 2) * log(2) - loggamma(k / 2))

    def term(mean, var, scale):
        # int f_k(w) P(l(T) > eps - kappa scale w) dw, with a breakpoint where the roots appear
        sd = sqrt(2 * k)
        lo = max(mpf(0), k - 16 * sd)
        hi = k + 16 * sd + 250
        n = int((hi - lo) / (step * sd)) + 1
        pts = [lo + (hi - lo) * j / n for j in range(n + 1)]
        kink = (b1**2 / (4 * a2) - c00 + eps) / (kap * scale)
        if lo < kink < hi:
            pts.append(kink)
        pts = sorted(set(pts))
        if lo > 0:
            pts = [mpf(0)] + pts
        tot = sum(quad(lambda w: dens(w) * region(eps - kap * scale * w, mean, var), [a, b]) for a, b in zip(pts[:-1], pts[1:]))
        return tot + quad(lambda w: dens(w) * region(eps - kap * scale * w, mean, var), [hi, inf])

    return term(mpf(0), s1sq, mpf(1)) - exp(eps) * term(dist, s2sq, s2sq / s1sq)


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
        vc = profile_fubini(s1, s2, dist, d, eps, 60, mpf(1) / 2)
        mp.dps = 100
        agree = -log(abs(va - vb) / abs(vb), 10) if va != vb else mpf(100)
        agree_c = -log(abs(vc - vb) / abs(vb), 10) if vc != vb else mpf(100)
        digits = int(min(60, agree, agree_c))
        src = (
            "mpmath: A = gammainc route (t outer; chi^2 cdfs by incomplete gamma) dps80 step s1/4 vs "
            "B = same route dps100 step s1/5; C = independent route (chi^2 variable outer with its "
            "elementary density; inner t-probabilities by the normal cdf at the roots; no incomplete "
            "gamma) dps60 agrees to %d digits" % int(agree_c)
        )
        rows.append([rid, "hockey_stick_delta", fam, params, nstr(vb, 60, min_fixed=1, max_fixed=0), digits, src])
        print(rid, nstr(vb, 25), "A-B", nstr(agree, 4), "C-B", nstr(agree_c, 4), flush=True)
    tmp = out.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["id", "quantity", "family", "params", "value", "digits", "source"])
        w.writerows(rows)
    tmp.rename(out)


if __name__ == "__main__":
    main()
