#!/usr/bin/env python3
"""Golden Rényi divergences at very large orders: golden/large_alpha.csv.

D_alpha of the rectified, truncated and stochastic-sign pairs at alpha in {1e6, 1e10, 1e50, 1e100,
1e300}. dpaudit once printed -inf and +inf here "certified" (issue 23): S = int p1^a p2^(1-a) is
e^{(alpha-1) D}, beyond MPFR's exponent range from alpha ~ 1e9 on. mpmath's exponents are
unbounded, so both routes below simply compute S itself, in the arrangements of golden/generate.py
and nothing like dpaudit's log-space forms (docs/formulas.md §9.10):

  route A: the closed forms (HG Lemma 4.4 eq. (5) in its S - 1 form, docs/formulas.md §1.2;
           HG Lemma 4.7 eq. (6), §2.2; §3 for the stochastic sign) at mp.dps = 2*log10(alpha) + 100
           (e^{alpha(alpha-1) delta^2/(2 sigma^2)} * Z(m) cancels ~2*log10(alpha) digits). mpmath's
           erfc overflows a float for arguments beyond ~1e150, so there erfc(z) is taken from its
           asymptotic series e^{-z^2}/(z sqrt(pi)) * sum_n (-1)^n (2n-1)!!/(2z^2)^n (Abramowitz &
           Stegun 7.1.23), summed until the terms are below 10^-(dps+10) (z > 1e20: two terms).
  route B: the defining integral log S = log(int_a^b exp(G(x)) dx + sum_atoms P1^alpha P2^(1-alpha)),
           G = alpha log p1 + (1 - alpha) log p2, by mpmath quadrature at mp.dps = log10(alpha) + 80:
           exp(G - G_max) is integrated with breakpoints on the boundary-layer scale 1/|G'(x*)| at
           the end x* nearest the tilted centre (h/16, h/8, ... up to 2.31(dps+20) h), or around
           the centre when it lies inside [a, b]. Atom masses and the truncated normalisers come
           from the tail / density quadratures of golden/generate.py (no erfc in route B), at
           dps 100 (their relative errors reach D unamplified).

digits = floor(-log10|A - B|/|A|), capped at 60; value = route A to 60 significant digits.

    python3 golden/generate_large_alpha.py             # writes golden/large_alpha.csv
    python3 golden/generate_large_alpha.py --out DIR   # writes DIR/large_alpha.csv instead
"""
import argparse
import csv
import os
import sys
import time

import mpmath
from mpmath import mp, mpf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate as g  # noqa: E402  (tail quadratures, qint, mkpts, gpts, fmt, agree_digits)

ALPHAS = ['1e6', '1e10', '1e50', '1e100', '1e300']
CAP = 60

PAIRS = [
    # (family, params): the pair first, then the tilted centre m = mu2 + alpha*delta going
    # to -inf (x* = a), to +inf (x* = b), and a separation of 1e-6 (m stays inside [a, b] at
    # alpha = 1e6).
    ('rectified', dict(mu1='0', mu2='0.5', sigma='1', a='0', b='1')),
    ('rectified', dict(mu1='0.3', mu2='1.3', sigma='1', a='-1', b='1')),
    ('rectified', dict(mu1='1.3', mu2='0.3', sigma='1', a='-1', b='1')),
    ('rectified', dict(mu1='0', mu2='0.000001', sigma='1', a='-1', b='1')),
    ('truncated', dict(mu1='0', mu2='0.5', sigma='1', a='0', b='1')),
    ('truncated', dict(mu1='0.3', mu2='1.3', sigma='1', a='-1', b='1')),
    ('truncated', dict(mu1='1.3', mu2='0.3', sigma='1', a='-1', b='1')),
    ('truncated', dict(mu1='0', mu2='0.000001', sigma='1', a='-1', b='1')),
    ('stochastic_sign', dict(mu1='0', mu2='0.5', sigma='1')),
    ('stochastic_sign', dict(mu1='1', mu2='0', sigma='1')),
    ('stochastic_sign', dict(mu1='0', mu2='0.000001', sigma='1')),
]

SHORT = {'rectified': 'rect', 'truncated': 'trunc', 'stochastic_sign': 'sign'}

# ---------------------------------------------------------------------------------------------
# route A: closed forms with an erfc that survives huge arguments
# ---------------------------------------------------------------------------------------------


def erfc_(z):
    if z <= mpf('1e20'):
        return mpmath.erfc(z)
    # Asymptotic series (A&S 7.1.23); the terms decrease while n < z^2.
    x = 1 / (2 * z * z)
    tot, term, n = mpf(1), mpf(1), 1
    tol = mpf(10) ** (-(mp.dps + 10))
    while True:
        term *= -(2 * n - 1) * x
        tot += term
        if abs(term) < tol:
            break
        n += 1
    return mpmath.exp(-z * z) / (z * mpmath.sqrt(mpmath.pi)) * tot


def Phi(x):
    return erfc_(-x / mpmath.sqrt(2)) / 2


def Phibar(x):
    return erfc_(x / mpmath.sqrt(2)) / 2


def logPhi(x):
    if x > 0:
        return mpmath.log1p(-Phibar(x))
    return mpmath.log(Phi(x))


def Zmu(mu, s, a, b):
    u, v = (a - mu) / s, (b - mu) / s
    if u >= 0:
        return Phibar(u) - Phibar(v)
    if v <= 0:
        return Phi(v) - Phi(u)
    return 1 - Phi(u) - Phibar(v)


def renyi_A(family, P, alpha):
    M = g.M
    if family in ('rectified', 'truncated'):
        m1, m2, s, a, b = (M(P[k]) for k in ('mu1', 'mu2', 'sigma', 'a', 'b'))
        d = m1 - m2
        m = alpha * m1 + (1 - alpha) * m2
        if family == 'rectified':        # docs/formulas.md §1.2, log1p(S - 1)
            A1, A2, B1, B2 = (a - m1) / s, (a - m2) / s, (b - m1) / s, (b - m2) / s
            Sm1 = mpmath.exp(alpha * (alpha - 1) * d * d / (2 * s * s)) * Zmu(m, s, a, b) \
                - Zmu(m1, s, a, b)
            Sm1 += Phi(A1) * mpmath.expm1((alpha - 1) * (logPhi(A1) - logPhi(A2)))
            Sm1 += Phibar(B1) * mpmath.expm1((alpha - 1) * (logPhi(-B1) - logPhi(-B2)))
            return mpmath.log1p(Sm1) / (alpha - 1)
        # truncated, docs/formulas.md §2.2
        L = lambda mu: mpmath.log(Zmu(mu, s, a, b))  # noqa: E731
        return alpha * d * d / (2 * s * s) + (L(m) - alpha * L(m1)) / (alpha - 1) + L(m2)
    if family == 'stochastic_sign':      # docs/formulas.md §3, log1p/expm1 form
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        t1, t2 = m1 / s, m2 / s
        Sm1 = Phi(t1) * mpmath.expm1((alpha - 1) * (logPhi(t1) - logPhi(t2)))
        Sm1 += Phi(-t1) * mpmath.expm1((alpha - 1) * (logPhi(-t1) - logPhi(-t2)))
        return mpmath.log1p(Sm1) / (alpha - 1)
    raise KeyError(family)

# ---------------------------------------------------------------------------------------------
# route B: the defining integral and sum, by quadrature
# ---------------------------------------------------------------------------------------------


def renyi_B(F, alpha):
    """Route B for the pair F = golden/generate.py's fam_B (computed once per pair)."""
    terms = []
    if F.cont is not None:
        u, v, lf1, lf2, _, _ = F.cont
        G = lambda x: alpha * lf1(x) + (1 - alpha) * lf2(x)  # noqa: E731
        # G is exactly quadratic: its coefficients from three values.
        g0, g1, gm = G(mpf(0)), G(mpf(1)), G(mpf(-1))
        A2 = (g1 + gm) / 2 - g0
        B1 = (g1 - gm) / 2
        centre = -B1 / (2 * A2)
        if u < centre < v:
            gmax = G(centre)
            pts = g.mkpts(u, v, g.gpts(u, v, centre, mpmath.sqrt(-1 / (2 * A2))))
        else:
            xs = u if centre <= u else v
            gmax = G(xs)
            h = 1 / abs(B1 + 2 * A2 * xs)
            K = mpf(2.31) * (mp.dps + 20)
            ladder, k = [], h / 16
            while k < K * h and k < v - u:
                ladder.append(xs + k if xs == u else xs - k)
                k *= 2
            pts = g.mkpts(u, v, ladder)
        integral, _ = g.qint(lambda x: mpmath.exp(G(x) - gmax), pts)
        terms.append(gmax + mpmath.log(integral))
    for p1, q1, p2, q2 in F.atoms:
        if p1 == 0:
            continue
        l1, l2 = g.atom_log(p1, q1), g.atom_log(p2, q2)
        terms.append(alpha * l1 + (1 - alpha) * l2)
    top = max(terms)
    log_s = top + mpmath.log(sum(mpmath.exp(t - top) for t in terms))
    return log_s / (alpha - 1)

# ---------------------------------------------------------------------------------------------


def agree(A, B):
    with mp.workdps(mp.dps + 20):
        if A == B:
            return CAP, mpf(mp.dps)
        rel = abs(A - B) / abs(A)
        raw = -mpmath.log10(rel)
        return max(0, min(CAP, int(mpmath.floor(raw)))), raw


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--out', default=HERE)
    ap.add_argument('-v', action='store_true', help='print both routes per row')
    args = ap.parse_args()
    rows = []
    counts = {}
    t0 = time.time()
    for family, P in PAIRS:
        # The masses and normalisers enter D only as l1 + (alpha-1)/(alpha-1)*(...): their
        # relative errors reach D unamplified, so dps 100 suffices for every alpha (the
        # integrand's G(x) - G_max, which cancels ~log10(alpha) digits, is evaluated at e + 80).
        with mp.workdps(100):
            F = g.fam_B(family, P)
        for a in ALPHAS:
            e = int(a[2:])
            key = SHORT[family]
            counts[key] = counts.get(key, 0) + 1
            rid = 'la-%s-%03d' % (key, counts[key])
            params = ';'.join('%s=%s' % kv for kv in P.items()) + ';alpha=' + a
            with mp.workdps(2 * e + 100):
                A = renyi_A(family, P, mpf(a))
            with mp.workdps(e + 80):
                B = renyi_B(F, mpf(a))
            with mp.workdps(2 * e + 100):
                digits, raw = agree(A, B)
                value = g.fmt(A)
            if digits < 40:
                sys.exit('%s: routes agree to %s digits only (A %s, B %s)' % (
                    rid, mpmath.nstr(raw, 4), mpmath.nstr(A, 30), mpmath.nstr(B, 30)))
            source = ('mpmath closed form (HG Lemma %s; docs/formulas.md %s) dps %d with erfc by '
                      'A&S 7.1.23 beyond 1e20 vs quad of log(int p1^a p2^(1-a) + atoms) dps %d '
                      '(boundary-layer breakpoints; atoms and normalisers by tail quad); '
                      'routes agree to %s digits' % (
                          {'rectified': '4.4 eq. 5', 'truncated': '4.7 eq. 6',
                           'stochastic_sign': '§4.1'}[family],
                          {'rectified': '§1.2', 'truncated': '§2.2',
                           'stochastic_sign': '§3'}[family],
                          2 * e + 100, e + 80, mpmath.nstr(raw, 4)))
            rows.append([rid, 'renyi', family, params, value, str(digits), source])
            if args.v:
                print(rid, params, mpmath.nstr(A, 25), mpmath.nstr(B, 25),
                      mpmath.nstr(raw, 5), file=sys.stderr)
    path = os.path.join(args.out, 'large_alpha.csv')
    tmp = path + '.tmp'
    with open(tmp, 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['id', 'quantity', 'family', 'params', 'value', 'digits', 'source'])
        w.writerows(rows)
    os.replace(tmp, path)
    ds = sorted(int(r[5]) for r in rows)
    print('%d rows -> %s; digits min %d, median %d; %.0f s' % (
        len(rows), path, ds[0], ds[len(ds) // 2], time.time() - t0))


if __name__ == '__main__':
    main()
