#!/usr/bin/env python3
"""Independent golden reference tables for dpaudit.

Every row is computed by two independent routes in mpmath:

  route A: the closed form of docs/formulas.md (the section cited in the source column), evaluated in a stable arrangement at mp.dps = 100;
  route B: mpmath quadrature of the *defining* integral (or sum, or numerical minimisation), at
           mp.dps >= 80, with every sub-integral rescaled by the integrand's maximum on that piece and
           breakpoints placed at the peak(s) and on the local decay scale sigma^2/|endpoint - centre|.

The value written is route A rounded to 60 significant digits; `digits` is the number of significant
digits on which A and B agree (floored, capped at 60).  Parameters are exact decimal strings that are
converted with mpf(str) at each route's own working precision (never through a float).

    python3 golden/generate.py            # rewrite golden/*.csv (about 300 rows)
    python3 golden/generate.py --quick    # ~40-row smoke subset, prints the summary, writes nothing
    python3 golden/generate.py --quick --out DIR   # ... and writes the subset tables into DIR
"""
import argparse
import csv
import math
import os
import sys
import time

import mpmath
from mpmath import mp, mpf

DPS_A = 100       # closed forms
DPS_B = 80        # quadrature (raised per row where a route is known to lose digits)
CAP = 60
HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------
# special functions (always at the current precision; erfc is accurate in both tails)
# ---------------------------------------------------------------------------------------------


def M(s):
    return mpf(s) if isinstance(s, str) else mpf(s)


def Phi(x):
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def Phibar(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def phi(x):
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)


def erfcx(z):
    """exp(z^2) erfc(z); mpmath has no overflow, and erfc keeps full relative accuracy in the tail."""
    return mpmath.exp(z * z) * mpmath.erfc(z)


def logPhi(x):
    if x > 0:
        return mpmath.log1p(-Phibar(x))
    return mpmath.log(Phi(x))


def Zint(u, v):
    """Phi(v) - Phi(u) for u < v, never subtracting from 1 unless the interval straddles 0."""
    if u >= 0:
        return Phibar(u) - Phibar(v)
    if v <= 0:
        return Phi(v) - Phi(u)
    return 1 - Phi(u) - Phibar(v)


def logpdf(x, mu, s):
    z = (x - mu) / s
    return -z * z / 2 - mpmath.log(s) - mpmath.log(2 * mpmath.pi) / 2


def mk_logpdf(mu, s, shift=0):
    """closure x -> log N(x; mu, s^2) - shift with the constants precomputed."""
    c = -mpmath.log(s) - mpmath.log(2 * mpmath.pi) / 2 - shift
    h = 1 / (2 * s * s)

    def lf(x):
        z = x - mu
        return c - z * z * h
    return lf


def ell_small(x):
    """log1p(x) - x without cancellation (alternating series for |x| < 0.01)."""
    if abs(x) < mpf('0.01'):
        tot = mpf(0)
        p = x
        k = 2
        tol = mpmath.eps * abs(x) ** 2
        while True:
            p = -p * x                     # (-1)^(k+1) x^k
            term = p / k
            tot += term
            if abs(term) < tol:
                break
            k += 1
        return tot
    return mpmath.log1p(x) - x

# ---------------------------------------------------------------------------------------------
# quadrature hygiene
# ---------------------------------------------------------------------------------------------

KS = [0, 1, 2, 3, 4, 6, 8, 11, 14, 18, 23, 29]


def gpts(u, v, c, s):
    """Breakpoints inside (u, v) for an integrand shaped like exp(-(x-c)^2/(2 s^2))."""
    nats = mpf(2.31) * (mp.dps + 20)
    K = mpmath.sqrt(2 * nats)
    out = []
    for k in KS:
        if k > K + 4:
            break
        for x in (c - k * s, c + k * s):
            if u < x < v:
                out.append(x)
    # geometric layers at an endpoint when the bump's centre lies beyond it
    for e, sgn in ((v, -1), (u, 1)):
        if not mpmath.isfinite(e):
            continue
        dist = (c - e) if sgn == -1 else (e - c)
        if dist <= 0:
            continue
        h = s * s / max(dist, s)
        t = h / 16
        while True:
            x = e + sgn * t
            if not (u < x < v):
                break
            out.append(x)
            if (2 * dist * t + t * t) / (2 * s * s) > nats:
                break
            t *= 2
    return out


def mkpts(u, v, *extra_lists):
    pts = {u, v}
    for lst in extra_lists:
        for x in lst:
            if u < x < v:
                pts.add(x)
    return sorted(pts)


QUAD_METHOD = os.environ.get('GOLDEN_QUAD', 'gauss-legendre')


class QStat:
    max_rel_err = mpf(0)


def qint(f, pts):
    """Sum of quadratures over consecutive pieces, each rescaled by a sampled max |f|.

    Returns (value, absolute error estimate)."""
    total = mpf(0)
    err = mpf(0)
    for u, v in zip(pts[:-1], pts[1:]):
        if not (u < v):
            continue
        if mpmath.isinf(v) and mpmath.isinf(u):
            raise ValueError('split infinite ranges')
        if mpmath.isinf(v):
            samp = [u, u + mpf(1) / 64, u + mpf(1) / 8, u + 1]
        elif mpmath.isinf(u):
            samp = [v, v - mpf(1) / 64, v - mpf(1) / 8, v - 1]
        else:
            samp = [u + (v - u) * j / 8 for j in range(9)]
        sc = max(abs(f(x)) for x in samp)
        if sc == 0:
            continue
        if mpmath.isinf(u) or mpmath.isinf(v) or QUAD_METHOD == 'tanh-sinh':
            val, e = mp.quad(lambda x: f(x) / sc, [u, v], error=True)
        else:
            val, e = mp.quad(lambda x: f(x) / sc, [u, v], error=True, method=QUAD_METHOD)
        total += val * sc
        err += abs(e) * sc
    return total, err


def roots_quadratic_fn(g, lo=None, hi=None):
    """Real roots of a function that is exactly a polynomial of degree <= 2 (fit from 3 values)."""
    g0, g1, gm = g(mpf(0)), g(mpf(1)), g(mpf(-1))
    A = (g1 + gm) / 2 - g0
    B = (g1 - gm) / 2
    C = g0
    scale = max(abs(g0), abs(g1), abs(gm), mpf(1))
    roots = []
    if abs(A) <= mpmath.eps * scale * 1000:
        if B != 0:
            roots = [-C / B]
    else:
        disc = B * B - 4 * A * C
        if disc >= 0:
            sq = mpmath.sqrt(disc)
            q = -(B + (sq if B >= 0 else -sq)) / 2
            r = []
            if q != 0:
                r.append(C / q)
                r.append(q / A)
            else:
                r.append(mpf(0))
            roots = sorted(set(r))
    # polish with Newton on g (exactness for near-linear fits with tiny A)
    pol = []
    for r in roots:
        try:
            r2 = mpmath.findroot(g, r)
            if not abs(g(r2)) <= abs(g(r)):
                r2 = r
        except Exception:
            r2 = r
        pol.append(r2)
    if lo is not None:
        pol = [r for r in pol if lo < r < hi]
    return sorted(pol)


def gauss_fit(logf):
    """Centre and std of exp(logf) when logf is exactly quadratic with negative curvature."""
    g0, g1, gm = logf(mpf(0)), logf(mpf(1)), logf(mpf(-1))
    A = (g1 + gm) / 2 - g0
    B = (g1 - gm) / 2
    if A >= 0:
        return None
    return -B / (2 * A), mpmath.sqrt(-1 / (2 * A))

# ---------------------------------------------------------------------------------------------
# 1-D families for route B: continuous part (support, log densities), atoms
# ---------------------------------------------------------------------------------------------


class Fam:
    """Route-B description of a pair (P1, P2) at the current precision.

    cont: None or (u, v, lf1, lf2, (c1, s1), (c2, s2)) with lf_i the log densities of the continuous parts.
    atoms: list of (p1, q1, p2, q2) with q = 1 - p (both accurate)."""

    def __init__(self, cont, atoms):
        self.cont = cont
        self.atoms = atoms


def atom_log(p, q):
    return mpmath.log1p(-q) if q < mpf('0.5') else mpmath.log(p)


def tail_quad(t):
    """int_t^inf phi for t >= 0 by quadrature (independent of erfc)."""
    pts = mkpts(t, mpmath.inf, gpts(t, mpmath.inf, mpf(0), mpf(1)))
    v, _ = qint(lambda x: mpmath.exp(-x * x / 2), pts)
    return v / mpmath.sqrt(2 * mpmath.pi)


def Phi_pair_quad(t):
    """(Phi(t), Phi(-t)) with the small one from a tail quadrature."""
    if t >= 0:
        c = tail_quad(t)
        return 1 - c, c
    c = tail_quad(-t)
    return c, 1 - c


def fam_B(family, P, need_trunc_Z=True):
    if family == 'gaussian':
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        return Fam((-mpmath.inf, mpmath.inf, mk_logpdf(m1, s), mk_logpdf(m2, s),
                    (m1, s), (m2, s)), [])
    if family == 'gaussian_dd1':  # internal: 1-D slice of unequal variances
        m1, m2, s1, s2 = P['m1'], P['m2'], P['s1'], P['s2']
        return Fam((-mpmath.inf, mpmath.inf, mk_logpdf(m1, s1), mk_logpdf(m2, s2),
                    (m1, s1), (m2, s2)), [])
    if family in ('rectified', 'truncated'):
        m1, m2, s, a, b = (M(P[k]) for k in ('mu1', 'mu2', 'sigma', 'a', 'b'))
        if family == 'rectified':
            A1, A2, B1, B2 = (a - m1) / s, (a - m2) / s, (b - m1) / s, (b - m2) / s
            # atom masses P(Y=a) = Phi(A), P(Y=b) = Phi(-B) by tail quadrature (no erfc in route B)
            pa1, qa1 = Phi_pair_quad(A1)
            pa2, qa2 = Phi_pair_quad(A2)
            qb1, pb1 = Phi_pair_quad(B1)
            qb2, pb2 = Phi_pair_quad(B2)
            atoms = [(pa1, qa1, pa2, qa2), (pb1, qb1, pb2, qb2)]
            return Fam((a, b, mk_logpdf(m1, s), mk_logpdf(m2, s), (m1, s), (m2, s)), atoms)
        # truncated: normalisers by quadrature
        lp1, lp2 = mk_logpdf(m1, s), mk_logpdf(m2, s)
        Z1 = qint(lambda x: mpmath.exp(lp1(x)), mkpts(a, b, gpts(a, b, m1, s)))[0]
        Z2 = qint(lambda x: mpmath.exp(lp2(x)), mkpts(a, b, gpts(a, b, m2, s)))[0]
        lZ1, lZ2 = mpmath.log(Z1), mpmath.log(Z2)
        return Fam((a, b, mk_logpdf(m1, s, lZ1), mk_logpdf(m2, s, lZ2), (m1, s), (m2, s)), [])
    if family == 'stochastic_sign':
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        p1, q1 = Phi_pair_quad(m1 / s)
        p2, q2 = Phi_pair_quad(m2 / s)
        return Fam(None, [(p1, q1, p2, q2), (q1, p1, q2, p2)])
    raise KeyError(family)


def cont_pts(cont, extra=()):
    u, v, lf1, lf2, (c1, s1), (c2, s2) = cont
    return mkpts(u, v, gpts(u, v, c1, s1), gpts(u, v, c2, s2), extra)


def renyi_Sm1_B(F, alpha):
    """S - 1 where S = sum/int p1^alpha p2^(1-alpha), as int p1*expm1((alpha-1)*log(p1/p2)) + atoms."""
    tot = mpf(0)
    if F.cont is not None:
        u, v, lf1, lf2, _, _ = F.cont
        ell = lambda x: lf1(x) - lf2(x)
        roots = roots_quadratic_fn(ell, u, v)
        tilt = gauss_fit(lambda x: alpha * lf1(x) + (1 - alpha) * lf2(x))
        extra = list(roots)
        if tilt is not None:
            extra += gpts(u, v, tilt[0], tilt[1])
        pts = cont_pts(F.cont, extra)
        am1 = alpha - 1

        def f(x):
            l1 = lf1(x)
            return mpmath.exp(l1) * mpmath.expm1(am1 * (l1 - lf2(x)))
        tot += qint(f, pts)[0]
    for p1, q1, p2, q2 in F.atoms:
        if p1 == 0:
            continue
        tot += p1 * mpmath.expm1((alpha - 1) * (atom_log(p1, q1) - atom_log(p2, q2)))
    return tot


def renyi_B(F, alpha):
    return mpmath.log1p(renyi_Sm1_B(F, alpha)) / (alpha - 1)


def kl_B(F):
    tot = mpf(0)
    if F.cont is not None:
        u, v, lf1, lf2, _, _ = F.cont
        ell = lambda x: lf1(x) - lf2(x)
        roots = roots_quadratic_fn(ell, u, v)
        pts = cont_pts(F.cont, roots)
        def f(x):
            l1 = lf1(x)
            return mpmath.exp(l1) * (l1 - lf2(x))
        tot += qint(f, pts)[0]
    for p1, q1, p2, q2 in F.atoms:
        tot += p1 * (atom_log(p1, q1) - atom_log(p2, q2))
    return tot


def atom_hs(p1, q1, p2, q2, eps):
    if p1 > mpf('0.5') and p2 > mpf('0.5'):
        d = -mpmath.expm1(eps) - q1 + mpmath.exp(eps) * q2
    else:
        d = p1 - mpmath.exp(eps) * p2
    return d if d > 0 else mpf(0)


def hs_B(F, eps):
    """int (p1 - e^eps p2)_+ : region {log p1/p2 > eps} found from the roots of the pointwise log-ratio."""
    tot = mpf(0)
    if F.cont is not None:
        u, v, lf1, lf2, _, _ = F.cont
        g = lambda x: lf1(x) - lf2(x) - eps
        roots = roots_quadratic_fn(g, u, v)
        edges = [u] + roots + [v]
        def f(x):
            l1 = lf1(x)
            return -mpmath.exp(l1) * mpmath.expm1(eps - (l1 - lf2(x)))
        for lo, hi in zip(edges[:-1], edges[1:]):
            if mpmath.isinf(lo) and mpmath.isinf(hi):
                mid = mpf(0)
            elif mpmath.isinf(lo):
                mid = hi - 1
            elif mpmath.isinf(hi):
                mid = lo + 1
            else:
                mid = (lo + hi) / 2
            if g(mid) > 0:
                pts = mkpts(lo, hi, gpts(lo, hi, F.cont[4][0], F.cont[4][1]),
                            gpts(lo, hi, F.cont[5][0], F.cont[5][1]))
                if mpmath.isinf(lo) and mpmath.isinf(hi):
                    pts = sorted(set(pts) | {mpf(0)})
                tot += qint(f, pts)[0]
    for p1, q1, p2, q2 in F.atoms:
        tot += atom_hs(p1, q1, p2, q2, eps)
    return tot

# ---------------------------------------------------------------------------------------------
# route A: closed forms of docs/formulas.md (stable arrangements), dps 100
# ---------------------------------------------------------------------------------------------


def rect_params(P):
    return tuple(M(P[k]) for k in ('mu1', 'mu2', 'sigma', 'a', 'b'))


def Zmu(mu, s, a, b):
    return Zint((a - mu) / s, (b - mu) / s)


def renyi_A(family, P, alpha):
    if family == 'gaussian':
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        return alpha * (m1 - m2) ** 2 / (2 * s * s)
    if family == 'rectified':            # docs/formulas.md §1.2, log1p(S-1) form
        m1, m2, s, a, b = rect_params(P)
        d = m1 - m2
        m = alpha * m1 + (1 - alpha) * m2
        A1, A2, B1, B2 = (a - m1) / s, (a - m2) / s, (b - m1) / s, (b - m2) / s
        Sm1 = mpmath.exp(alpha * (alpha - 1) * d * d / (2 * s * s)) * Zmu(m, s, a, b) - Zmu(m1, s, a, b)
        Sm1 += Phi(A1) * mpmath.expm1((alpha - 1) * (logPhi(A1) - logPhi(A2)))
        Sm1 += Phibar(B1) * mpmath.expm1((alpha - 1) * (logPhi(-B1) - logPhi(-B2)))
        return mpmath.log1p(Sm1) / (alpha - 1)
    if family == 'truncated':            # docs/formulas.md §2.2
        m1, m2, s, a, b = rect_params(P)
        d = m1 - m2
        m = alpha * m1 + (1 - alpha) * m2
        L = lambda mu: mpmath.log(Zmu(mu, s, a, b))
        return alpha * d * d / (2 * s * s) + (L(m) - alpha * L(m1)) / (alpha - 1) + L(m2)
    if family == 'stochastic_sign':      # docs/formulas.md §3 with the log1p/expm1 form
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        t1, t2 = m1 / s, m2 / s
        Sm1 = Phi(t1) * mpmath.expm1((alpha - 1) * (logPhi(t1) - logPhi(t2)))
        Sm1 += Phi(-t1) * mpmath.expm1((alpha - 1) * (logPhi(-t1) - logPhi(-t2)))
        return mpmath.log1p(Sm1) / (alpha - 1)
    if family in ('gaussian_dd', 'rgm'):  # docs/formulas.md §4, stable l(x) form
        D, s1sq, u, d = dd_params(family, P)
        sa2 = s1sq * (1 + alpha * u)
        if sa2 <= 0:
            return mpmath.inf
        return alpha * D * D / (2 * sa2) + d * (alpha * ell_small(u) - ell_small(alpha * u)) / (2 * (alpha - 1))
    raise KeyError(family)


def dd_params(family, P):
    """(Delta, sigma1^2, u = sigma2^2/sigma1^2 - 1, d), u formed without cancellation."""
    d = M(P['d'])
    if family == 'gaussian_dd':
        D, s1, s2 = M(P['dist']), M(P['sigma1']), M(P['sigma2'])
        return D, s1 * s1, (s2 - s1) * (s2 + s1) / (s1 * s1), d
    g, b2, n1, n2, D = (M(P[k]) for k in ('gamma', 'sigma2', 'n1', 'n2', 'dist'))
    s1sq = g * n1 * n1 + b2
    return D, s1sq, g * (n2 - n1) * (n2 + n1) / s1sq, d


def kl_A(family, P):
    if family == 'gaussian':
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        return (m1 - m2) ** 2 / (2 * s * s)
    if family == 'rectified':            # docs/formulas.md §1.3
        m1, m2, s, a, b = rect_params(P)
        d = m1 - m2
        A1, A2, B1, B2 = (a - m1) / s, (a - m2) / s, (b - m1) / s, (b - m2) / s
        r = Phi(A1) * (logPhi(A1) - logPhi(A2)) + Phibar(B1) * (logPhi(-B1) - logPhi(-B2))
        r += d / s * (phi(A1) - phi(B1)) + d * d / (2 * s * s) * Zint(A1, B1)
        return r
    if family == 'truncated':            # docs/formulas.md §2.3
        m1, m2, s, a, b = rect_params(P)
        d = m1 - m2
        A1, B1 = (a - m1) / s, (b - m1) / s
        Z1, Z2 = Zmu(m1, s, a, b), Zmu(m2, s, a, b)
        return d * d / (2 * s * s) + d / s * (phi(A1) - phi(B1)) / Z1 + mpmath.log(Z2) - mpmath.log(Z1)
    if family == 'stochastic_sign':
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        t1, t2 = m1 / s, m2 / s
        return Phi(t1) * (logPhi(t1) - logPhi(t2)) + Phi(-t1) * (logPhi(-t1) - logPhi(-t2))
    if family in ('gaussian_dd', 'rgm'):  # docs/formulas.md §4 KL; r - 1 - log r = -l(r-1), r = s1^2/s2^2
        D, s1sq, u, d = dd_params(family, P)
        s2sq = s1sq * (1 + u)
        w = -u / (1 + u)                   # r - 1
        return D * D / (2 * s2sq) - d * ell_small(w) / 2
    raise KeyError(family)


def fisher_A(family, P):
    mu, s = M(P['mu']), M(P['sigma'])
    if family == 'gaussian':
        return 1 / (s * s)
    if family == 'stochastic_sign':
        t = mu / s
        return phi(t) ** 2 / (s * s * Phi(t) * Phi(-t))
    a, b = M(P['a']), M(P['b'])
    A, B = (a - mu) / s, (b - mu) / s
    if family == 'rectified':            # docs/formulas.md §1.1, non-negative form; lambda(t) = phi(t)/Phi(-t)
        lam = lambda t: phi(t) / Phibar(t)
        return (Zint(A, B) + phi(A) * (lam(-A) + A) + phi(B) * (lam(B) - B)) / (s * s)
    if family == 'truncated':            # docs/formulas.md §2.1 first form (dps 100 absorbs the O(B^2)->O(1/B^2) cancellation)
        Z = Zint(A, B)
        return (1 + (A * phi(A) - B * phi(B)) / Z - ((phi(A) - phi(B)) / Z) ** 2) / (s * s)
    raise KeyError(family)


def hs_A(family, P, eps):
    if family == 'gaussian':             # docs/formulas.md §7.1 (BW Thm 8), erfcx form when x < 0
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        D = abs(m1 - m2)
        x = D / (2 * s) - eps * s / D
        y = x - D / s
        if x < 0:
            return phi(x) * mpmath.sqrt(mpmath.pi / 2) * (erfcx(-x / mpmath.sqrt(2)) - erfcx(-y / mpmath.sqrt(2)))
        return Phi(x) - mpmath.exp(eps) * Phi(y)
    if family == 'stochastic_sign':      # docs/formulas.md §7.2
        m1, m2, s = M(P['mu1']), M(P['mu2']), M(P['sigma'])
        t1, t2 = m1 / s, m2 / s
        return (atom_hs(Phi(t1), Phi(-t1), Phi(t2), Phi(-t2), eps) +
                atom_hs(Phi(-t1), Phi(t1), Phi(-t2), Phi(t2), eps))
    m1, m2, s, a, b = rect_params(P)
    d = m1 - m2

    def region(e):
        xs = (m1 + m2) / 2 + e * s * s / d
        if d < 0:
            u, v = a, min(b, xs)
        else:
            u, v = max(a, xs), b
        return u, v
    if family == 'rectified':
        A1, A2, B1, B2 = (a - m1) / s, (a - m2) / s, (b - m1) / s, (b - m2) / s
        r = atom_hs(Phi(A1), Phibar(A1), Phi(A2), Phibar(A2), eps)
        r += atom_hs(Phibar(B1), Phi(B1), Phibar(B2), Phi(B2), eps)
        u, v = region(eps)
        if v > u:
            r += Zint((u - m1) / s, (v - m1) / s) - mpmath.exp(eps) * Zint((u - m2) / s, (v - m2) / s)
        return r
    if family == 'truncated':
        Z1, Z2 = Zmu(m1, s, a, b), Zmu(m2, s, a, b)
        u, v = region(eps + mpmath.log(Z1) - mpmath.log(Z2))
        if v <= u:
            return mpf(0)
        return Zint((u - m1) / s, (v - m1) / s) / Z1 - mpmath.exp(eps) * Zint((u - m2) / s, (v - m2) / s) / Z2
    raise KeyError(family)

# ---------------------------------------------------------------------------------------------
# route B for d-dimensional pairs (Fubini + rotation invariance, 1-D quadratures) and Fisher
# ---------------------------------------------------------------------------------------------


def dd_sigmas_B(family, P):
    d = M(P['d'])
    if family == 'gaussian_dd':
        return M(P['dist']), M(P['sigma1']), M(P['sigma2']), d
    g, b2, n1, n2, D = (M(P[k]) for k in ('gamma', 'sigma2', 'n1', 'n2', 'dist'))
    return D, mpmath.sqrt(g * n1 * n1 + b2), mpmath.sqrt(g * n2 * n2 + b2), d


def renyi_dd_B(family, P, alpha):
    D, s1, s2, d = dd_sigmas_B(family, P)
    F0 = fam_B('gaussian_dd1', dict(m1=mpf(0), m2=mpf(0), s1=s1, s2=s2))
    FD = fam_B('gaussian_dd1', dict(m1=D, m2=mpf(0), s1=s1, s2=s2))
    lI0 = mpmath.log1p(renyi_Sm1_B(F0, alpha))
    lID = mpmath.log1p(renyi_Sm1_B(FD, alpha))
    return (lID + (d - 1) * lI0) / (alpha - 1)


def kl_dd_B(family, P):
    D, s1, s2, d = dd_sigmas_B(family, P)
    F0 = fam_B('gaussian_dd1', dict(m1=mpf(0), m2=mpf(0), s1=s1, s2=s2))
    FD = fam_B('gaussian_dd1', dict(m1=D, m2=mpf(0), s1=s1, s2=s2))
    return kl_B(FD) + (d - 1) * kl_B(F0)


def fisher_B(family, P):
    mu, s = M(P['mu']), M(P['sigma'])
    lp = mk_logpdf(mu, s)
    if family == 'gaussian':
        pts = mkpts(-mpmath.inf, mpmath.inf, gpts(-mpmath.inf, mpmath.inf, mu, s))
        return qint(lambda x: mpmath.exp(lp(x)) * ((x - mu) / (s * s)) ** 2, pts)[0]
    if family == 'stochastic_sign':
        # P(+1) by tail quadrature, dP/dmu by numerical differentiation (mpmath.diff)
        pp, pm = Phi_pair_quad(mu / s)
        # differentiate the tail-side probability (the other one is 1 - tail)
        if mu > 0:
            dP = -mpmath.diff(lambda m: Phibar(m / s), mu)
        else:
            dP = mpmath.diff(lambda m: Phi(m / s), mu)
        return dP * dP / pp + dP * dP / pm
    a, b = M(P['a']), M(P['b'])
    if family == 'rectified':
        pts = mkpts(a, b, gpts(a, b, mu, s))
        inner = qint(lambda x: mpmath.exp(lp(x)) * ((x - mu) / (s * s)) ** 2, pts)[0]
        # atoms: P(Y=a) = Phi((a-mu)/s), P(Y=b) = Phi((mu-b)/s); derivatives by mpmath.diff
        Pa = Phi_pair_quad((a - mu) / s)[0]
        Pb = Phi_pair_quad((b - mu) / s)[1]
        dPa = mpmath.diff(lambda m: Phi((a - m) / s), mu)
        dPb = mpmath.diff(lambda m: Phibar((b - m) / s), mu)
        return inner + dPa ** 2 / Pa + dPb ** 2 / Pb
    if family == 'truncated':
        # I_T = Var_T(X)/sigma^4, two-pass quadrature (Z, mean, then central second moment)
        pts = mkpts(a, b, gpts(a, b, mu, s))
        p = lambda x: mpmath.exp(lp(x))
        Z = qint(p, pts)[0]
        mean = qint(lambda x: p(x) * x, pts)[0] / Z
        pts2 = mkpts(a, b, pts, [mean])
        var = qint(lambda x: p(x) * (x - mean) ** 2, pts2)[0] / Z
        return var / s ** 4
    raise KeyError(family)

# ---------------------------------------------------------------------------------------------
# eps_for_delta: smallest eps >= 0 with H(eps) <= delta  (H decreasing)
# ---------------------------------------------------------------------------------------------


def solve_decreasing(H, target, lo, hi, rtol):
    """Illinois on g(eps) = log H(eps) - log target, bracket [lo, hi] with g(lo) > 0 > g(hi)."""
    def g(e):
        h = H(e)
        return mpmath.log(h) - mpmath.log(target) if h > 0 else -mpmath.inf
    glo, ghi = g(lo), g(hi)
    if not (glo > 0 and ghi < 0):
        raise ValueError('not bracketed: %s %s' % (glo, ghi))
    side = 0
    for _ in range(400):
        if mpmath.isinf(ghi):
            x = (lo + hi) / 2
        else:
            x = (lo * ghi - hi * glo) / (ghi - glo)
        gx = g(x)
        if gx > 0:
            lo, glo = x, gx
            if side == 1:
                ghi /= 2
            side = 1
        elif gx < 0:
            hi, ghi = x, gx
            if side == -1:
                glo /= 2
            side = -1
        else:
            return x
        if hi - lo <= rtol * abs(x):
            return (lo + hi) / 2
    raise ValueError('no convergence')


def eps_for_delta_route(Hfun, delta):
    if Hfun(mpf(0)) <= delta:
        return mpf(0)
    hi = mpf(1)
    while Hfun(hi) > delta:
        hi *= 2
    lo = hi / 2 if hi > 1 else mpf(0)
    return solve_decreasing(Hfun, delta, lo, hi, mpmath.eps * 2 ** 20)


def eps_for_delta_B(family, P, delta, epsA):
    # bracket tightly around route A's root (only to save quadratures); the root itself is set by H_B
    F = fam_B(family, P)
    H = lambda e: hs_B(F, e)
    lo, hi = epsA * (1 - mpf('1e-6')), epsA * (1 + mpf('1e-6'))
    return solve_decreasing(H, delta, lo, hi, mpmath.eps * 2 ** 20)

# ---------------------------------------------------------------------------------------------
# bounds: HMB Theorem 1, Corollary 1, optimised eq. (45); rho_bar (HMB eq. 74)
# ---------------------------------------------------------------------------------------------


def thm1_A(P):
    eta, g, d, al = (M(P[k]) for k in ('eta', 'gamma', 'd', 'alpha'))
    return al * eta ** 2 / (2 * g) * (1 + g * d * (2 + eta) ** 2 * (1 + eta) ** 2) / (1 - eta * (al - 1) * (2 + eta))


def thm1_B(P):
    # sum of the local-sensitivity term (HMB eq. 30) and the d-term (eq. 38)
    eta, g, d, al = (M(P[k]) for k in ('eta', 'gamma', 'd', 'alpha'))
    den = 1 - eta * (2 + eta) * (al - 1)
    return al * eta ** 2 / (2 * g) / den + al * d * eta ** 2 * (2 + eta) ** 2 * (1 + eta) ** 2 / (2 * den)


def chi_of(P):
    eta, g, d = (M(P[k]) for k in ('eta', 'gamma', 'd'))
    return eta ** 2 / g + eta ** 2 * d * (2 + eta) ** 2 * (1 + eta) ** 2


def cor1_A(P):
    chi, L = chi_of(P), -mpmath.log(M(P['delta']))
    return chi + 2 * mpmath.sqrt(chi * L)


def cor1_B(P):
    # the bound (46) alpha*chi + L/(alpha-1) evaluated at the proof's alpha = 1 + sqrt(L/chi)
    chi, L = chi_of(P), -mpmath.log(M(P['delta']))
    al = 1 + mpmath.sqrt(L / chi)
    return al * chi + L / (al - 1)


def cor1_valid(P):
    with mp.workdps(50):
        eta, g, d, dl = (M(P[k]) for k in ('eta', 'gamma', 'd', 'delta'))
        L = -mpmath.log(dl)
        return 1 / g >= 4 * (2 + eta) ** 2 * L or d >= 4 * L / (1 + eta) ** 2


def opt_A(P):
    eta = M(P['eta'])
    K, c, L = chi_of(P) / 2, eta * (2 + eta), -mpmath.log(M(P['delta']))
    t = mpmath.sqrt(L) / (mpmath.sqrt(K * (1 + c)) + c * mpmath.sqrt(L))
    return K * (1 + t) / (1 - c * t) + L / t


def opt_alpha_A(P):
    eta = M(P['eta'])
    K, c, L = chi_of(P) / 2, eta * (2 + eta), -mpmath.log(M(P['delta']))
    return 1 + mpmath.sqrt(L) / (mpmath.sqrt(K * (1 + c)) + c * mpmath.sqrt(L))


def opt_B(P):
    """Numerical minimisation of g(alpha) = eps_Thm1(alpha) + log(1/delta)/(alpha-1) over
    1 < alpha < (1+eta)^2/(2 eta + eta^2): golden-section bracket, then findroot on mpmath.diff(g)."""
    eta, gm, d = (M(P[k]) for k in ('eta', 'gamma', 'd'))
    L = -mpmath.log(M(P['delta']))
    hi_lim = (1 + eta) ** 2 / (2 * eta + eta ** 2)

    def g(al):
        return (al * eta ** 2 / (2 * gm) * (1 + gm * d * (2 + eta) ** 2 * (1 + eta) ** 2)
                / (1 - eta * (al - 1) * (2 + eta)) + L / (al - 1))
    # coarse log-grid scan for the bracket
    lo_t, hi_t = mpf('1e-12'), hi_lim - 1
    n = 400
    ts = [lo_t * (hi_t * (1 - mpf('1e-12')) / lo_t) ** (mpf(i) / n) for i in range(n + 1)]
    vals = [g(1 + t) for t in ts]
    i = min(range(len(vals)), key=lambda k: vals[k])
    a_, b_ = ts[max(i - 1, 0)], ts[min(i + 1, n)]
    # golden section to shrink the bracket
    gr = (mpmath.sqrt(5) - 1) / 2
    x1, x2 = b_ - gr * (b_ - a_), a_ + gr * (b_ - a_)
    f1, f2 = g(1 + x1), g(1 + x2)
    for _ in range(60):
        if f1 < f2:
            b_, x2, f2 = x2, x1, f1
            x1 = b_ - gr * (b_ - a_)
            f1 = g(1 + x1)
        else:
            a_, x1, f1 = x1, x2, f2
            x2 = a_ + gr * (b_ - a_)
            f2 = g(1 + x2)
    t0 = (a_ + b_) / 2
    tstar = mpmath.findroot(lambda t: mpmath.diff(lambda s: g(1 + s), t), t0)
    return g(1 + tstar), 1 + tstar


def rho_A(P):
    d, Rc = M(P['d']), M(P['Rc'])
    x = Rc * Rc / 2
    return (mpmath.gammainc(d / 2 + 1, 0, x, regularized=True) +
            Rc * Rc / d * mpmath.gammainc(d / 2, x, mpmath.inf, regularized=True))


def rho_B(P):
    # radial quadrature: E[min(|u|^2, Rc^2)]/d with the chi_d radial density
    d, Rc = M(P['d']), M(P['Rc'])
    lc = mpmath.log(2) - (d / 2) * mpmath.log(2) - mpmath.loggamma(d / 2)
    ec = mpmath.exp(lc)
    dens = lambda r: ec * r ** (d - 1) * mpmath.exp(-r * r / 2)
    c = mpmath.sqrt(max(d - 1, mpf(0)))
    s = mpf(1)
    inner_pts = mkpts(mpf(0), Rc, gpts(mpf(0), Rc, c, s), gpts(mpf(0), Rc, mpmath.sqrt(d + 1), s))
    outer_pts = mkpts(Rc, mpmath.inf, gpts(Rc, mpmath.inf, c, s))
    inner = qint(lambda r: r * r * dens(r), inner_pts)[0]
    outer = qint(dens, outer_pts)[0]
    return (inner + Rc * Rc * outer) / d

# ---------------------------------------------------------------------------------------------
# dispatch: (quantity, family, params) -> (route A, route B, source)
# ---------------------------------------------------------------------------------------------


def compute(quantity, family, P, qdps):
    """Return (valueA, valueB, source)."""
    with mp.workdps(DPS_A):
        if quantity == 'renyi':
            A = renyi_A(family, P, M(P['alpha']))
        elif quantity == 'kl':
            A = kl_A(family, P)
        elif quantity == 'fisher':
            A = fisher_A(family, P)
        elif quantity == 'hockey_stick_delta':
            A = hs_A(family, P, M(P['eps']))
        elif quantity == 'eps_for_delta':
            A = eps_for_delta_route(lambda e: hs_A(family, P, e), M(P['delta']))
        elif quantity == 'rgm_theorem1_eps':
            A = thm1_A(P)
        elif quantity == 'rgm_corollary1_eps':
            A = cor1_A(P)
        elif quantity == 'rgm_optimized_dp_eps':
            A = opt_A(P)
        elif quantity == 'rho_bar':
            A = rho_A(P)
        else:
            raise KeyError(quantity)
    with mp.workdps(qdps):
        q = 'mpmath quad dps%d' % qdps
        if quantity == 'renyi':
            if family in ('gaussian_dd', 'rgm'):
                B = renyi_dd_B(family, P, M(P['alpha']))
                src = q + ' (1-D Fubini + expm1 form) vs closed form docs/formulas.md §4 stable l(u) dps100'
            else:
                B = renyi_B(fam_B(family, P), M(P['alpha']))
                sec = {'gaussian': '§4/§0.2', 'rectified': '§1.2', 'truncated': '§2.2', 'stochastic_sign': '§3'}[family]
                if family == 'stochastic_sign':
                    src = 'atom sum with Phi by tail quadrature dps%d vs closed form docs/formulas.md §3 (erfc) dps100' % qdps
                else:
                    src = q + ' of int p1^a p2^(1-a) (expm1 form)%s vs closed form docs/formulas.md %s dps100' % (
                        ' + atoms by tail quad' if family == 'rectified' else '', sec)
        elif quantity == 'kl':
            if family in ('gaussian_dd', 'rgm'):
                B = kl_dd_B(family, P)
                src = q + ' (1-D Fubini) vs closed form docs/formulas.md §4 KL dps100'
            else:
                B = kl_B(fam_B(family, P))
                sec = {'gaussian': '§4', 'rectified': '§1.3', 'truncated': '§2.3', 'stochastic_sign': '§3'}[family]
                if family == 'stochastic_sign':
                    src = 'atom sum with Phi by tail quadrature dps%d vs closed form docs/formulas.md §3 dps100' % qdps
                else:
                    src = q + ' of int p1 log(p1/p2)%s vs closed form docs/formulas.md %s dps100' % (
                        ' + atoms by tail quad' if family == 'rectified' else '', sec)
        elif quantity == 'fisher':
            B = fisher_B(family, P)
            src = {'gaussian': q + ' of E[score^2] vs 1/sigma^2',
                   'rectified': q + ' interior + atoms (tail quad mass; mpmath.diff slope) vs closed form docs/formulas.md §1.1 dps100',
                   'truncated': q + ' two-pass variance/sigma^4 vs closed form docs/formulas.md §2.1 dps100',
                   'stochastic_sign': 'Phi by tail quadrature + mpmath.diff dps%d vs closed form docs/formulas.md §3 dps100' % qdps}[family]
        elif quantity == 'hockey_stick_delta':
            B = hs_B(fam_B(family, P), M(P['eps']))
            sec = {'gaussian': '§7.1 erfcx form', 'rectified': '§7.2', 'truncated': '§7.2', 'stochastic_sign': '§7.2'}[family]
            if family == 'stochastic_sign':
                src = 'atom sum with Phi by tail quadrature dps%d vs closed form docs/formulas.md %s dps100' % (qdps, sec)
            else:
                src = q + ' of int (p1-e^eps p2)_+%s vs closed form docs/formulas.md %s dps100' % (
                    ' + atoms by tail quad' if family == 'rectified' else '', sec)
        elif quantity == 'eps_for_delta':
            B = eps_for_delta_B(family, P, M(P['delta']), A)
            src = 'root of quadrature H (%s) vs root of closed form docs/formulas.md §7 dps100' % q
        elif quantity == 'rgm_theorem1_eps':
            B = thm1_B(P)
            src = 'HMB eq.5 dps100 vs eq.30+eq.38 sum dps%d (single closed form in two arrangements)' % qdps
        elif quantity == 'rgm_corollary1_eps':
            B = cor1_B(P)
            src = 'HMB eq.44 dps100 vs eq.46 at alpha=1+sqrt(L/chi) dps%d' % qdps
        elif quantity == 'rgm_optimized_dp_eps':
            B, _ = opt_B(P)
            src = 'docs/formulas.md §5.3 closed-form t* dps100 vs numeric min of HMB eq.45 (golden+findroot on diff) dps%d' % qdps
        elif quantity == 'rho_bar':
            B = rho_B(P)
            src = 'gammainc closed form docs/formulas.md §6 dps100 vs radial ' + q
    return A, B, src


def raw_digits(A, B):
    with mp.workdps(DPS_A + 20):
        if A == B:
            return mpf(DPS_A)
        return -mpmath.log10(abs(A - B) / abs(A))


def agree_digits(A, B):
    with mp.workdps(DPS_A + 20):
        if A == B:
            return CAP
        if A == 0:
            return 0
        rel = abs(A - B) / abs(A)
        if rel == 0:
            return CAP
        return max(0, min(CAP, int(mpmath.floor(-mpmath.log10(rel)))))


def fmt(v):
    with mp.workdps(DPS_A):
        s = mpmath.nstr(v, 60, min_fixed=1, max_fixed=0, strip_zeros=False)
    if 'e' not in s:
        s += 'e+0'
    return s

# ---------------------------------------------------------------------------------------------
# the rows
# ---------------------------------------------------------------------------------------------

ALPHAS = ['1.001', '1.5', '2', '3', '5', '10', '100']
SUPPORTS = [('-1', '1', '1'), ('-1', '3', '2'), ('0', '0.25', '0.5'), ('-5', '5', '1')]


def pstr(**kw):
    return kw


class Rows:
    def __init__(self):
        self.rows = []
        self.count = {}

    def add(self, table, prefix, quantity, family, params, qdps=DPS_B):
        n = self.count.get(prefix, 0) + 1
        self.count[prefix] = n
        rid = '%s-%03d' % (prefix, n)
        self.rows.append(dict(table=table, id=rid, quantity=quantity, family=family, params=params, qdps=qdps))


def params_str(params):
    return ';'.join('%s=%s' % (k, v) for k, v in params.items())


def dec(x):
    """exact decimal string of a Fraction / int / str; used to build far-tail locations."""
    from decimal import Decimal
    if isinstance(x, str):
        return x
    d = Decimal(x.numerator) / Decimal(x.denominator) if hasattr(x, 'numerator') else Decimal(x)
    s = format(d.normalize(), 'f')
    return s


def build_rows():
    from fractions import Fraction as Fr
    R = Rows()
    fam_short = {'gaussian': 'gau', 'rectified': 'rect', 'truncated': 'trunc', 'stochastic_sign': 'sign',
                 'gaussian_dd': 'gdd', 'rgm': 'rgm'}

    # ---------------- renyi.csv -----------------
    for al in ALPHAS:
        R.add('renyi', 'ren-gau', 'renyi', 'gaussian', dict(mu1='0', mu2='1', sigma='1', alpha=al))
    for mu1, mu2, s, al in [('0.3', '-0.7', '2', '2'), ('1.25', '1.5', '0.5', '3'), ('-2', '3', '1.7', '1.5')]:
        R.add('renyi', 'ren-gau', 'renyi', 'gaussian', dict(mu1=mu1, mu2=mu2, sigma=s, alpha=al))
    # bounded families: per support a central pair (all alphas) and edge / straddling pairs
    pairs_by_support = {
        ('-1', '1', '1'): [('0.3', '1.3', ALPHAS), ('-0.9', '0.95', ['1.5', '5']), ('1', '2', ['2', '10']),
                           ('0', '-0.5', ['1.001', '3'])],
        ('-1', '3', '2'): [('0.5', '1.5', ['1.001', '2', '5', '100']), ('-1', '3', ['1.5', '10']),
                           ('2.9', '3.5', ['2'])],
        ('0', '0.25', '0.5'): [('0.1', '0.2', ['1.001', '2', '10', '100']), ('0', '0.25', ['3']),
                               ('-0.3', '0.6', ['1.5', '5'])],
        ('-5', '5', '1'): [('0', '1', ['1.001', '2', '10', '100']), ('4.5', '5.5', ['1.5', '3']),
                           ('-5', '-3', ['2', '5'])],
    }
    for fam in ('rectified', 'truncated'):
        for (a, b, s), plist in pairs_by_support.items():
            for mu1, mu2, als in plist:
                for al in als:
                    R.add('renyi', 'ren-' + fam_short[fam], 'renyi', fam, dict(mu1=mu1, mu2=mu2, sigma=s, a=a, b=b, alpha=al))
    for mu1, mu2, s, als in [('0', '1', '1', ALPHAS), ('0.5', '-0.5', '2', ['1.5', '3', '10']),
                             ('2', '2.5', '1', ['2', '100'])]:
        for al in als:
            R.add('renyi', 'ren-sign', 'renyi', 'stochastic_sign', dict(mu1=mu1, mu2=mu2, sigma=s, alpha=al))
    for dist, s1, s2, d, als in [('1', '1', '1.2', '1', ['1.5', '2', '3']), ('0.5', '1.3', '1', '7', ['1.001', '2', '2.4']),
                                 ('2', '1', '1.05', '100', ['1.001', '2', '5', '10']), ('0', '1', '1.1', '7', ['2'])]:
        for al in als:
            R.add('renyi', 'ren-gdd', 'renyi', 'gaussian_dd', dict(dist=dist, sigma1=s1, sigma2=s2, d=d, alpha=al))
    for p, als in [(dict(d='10', gamma='0.0001', sigma2='1', n1='3', n2='3.002', dist='0.004'), ['2', '10']),
                   (dict(d='3', gamma='0.1', sigma2='0.5', n1='1', n2='1.1', dist='0.15'), ['1.5', '2', '3']),
                   (dict(d='100', gamma='0.01', sigma2='2', n1='10', n2='10.5', dist='0.7'), ['1.001', '5'])]:
        for al in als:
            R.add('renyi', 'ren-rgm', 'renyi', 'rgm', dict(p, alpha=al))

    # ---------------- kl.csv -----------------
    for mu1, mu2, s in [('0', '1', '1'), ('0.3', '-0.7', '2'), ('-2', '3', '1.7')]:
        R.add('kl', 'kl-gau', 'kl', 'gaussian', dict(mu1=mu1, mu2=mu2, sigma=s))
    kl_pairs = {('-1', '1', '1'): [('0.3', '1.3'), ('-0.9', '0.95'), ('1', '2'), ('0', '-0.5')],
                ('-1', '3', '2'): [('0.5', '1.5'), ('-1', '3')],
                ('0', '0.25', '0.5'): [('0.1', '0.2'), ('-0.3', '0.6')],
                ('-5', '5', '1'): [('0', '1'), ('4.5', '5.5')]}
    for fam in ('rectified', 'truncated'):
        for (a, b, s), plist in kl_pairs.items():
            for mu1, mu2 in plist:
                R.add('kl', 'kl-' + fam_short[fam], 'kl', fam, dict(mu1=mu1, mu2=mu2, sigma=s, a=a, b=b))
    for mu1, mu2, s in [('0', '1', '1'), ('0.5', '-0.5', '2'), ('2', '2.5', '1'), ('-3', '-2', '1')]:
        R.add('kl', 'kl-sign', 'kl', 'stochastic_sign', dict(mu1=mu1, mu2=mu2, sigma=s))
    for dist, s1, s2, d in [('1', '1', '1.2', '1'), ('0.5', '1.3', '1', '7'), ('2', '1', '1.05', '100')]:
        R.add('kl', 'kl-gdd', 'kl', 'gaussian_dd', dict(dist=dist, sigma1=s1, sigma2=s2, d=d))
    for p in [dict(d='10', gamma='0.0001', sigma2='1', n1='3', n2='3.002', dist='0.004'),
              dict(d='3', gamma='0.1', sigma2='0.5', n1='1', n2='1.1', dist='0.15')]:
        R.add('kl', 'kl-rgm', 'kl', 'rgm', p)

    # ---------------- fisher.csv -----------------
    for mu, s in [('0', '1'), ('3', '0.5')]:
        R.add('fisher', 'fis-gau', 'fisher', 'gaussian', dict(mu=mu, sigma=s))
    fis_mus = {('-1', '1', '1'): ['0', '0.5', '-1', '1', '2', '-3', '5'],
               ('-1', '3', '2'): ['1', '-1', '3', '6'],
               ('0', '0.25', '0.5'): ['0.125', '0', '1', '-2'],
               ('-5', '5', '1'): ['0', '4.5', '-6']}
    for fam in ('rectified', 'truncated'):
        for (a, b, s), mus in fis_mus.items():
            for mu in mus:
                R.add('fisher', 'fis-' + fam_short[fam], 'fisher', fam, dict(mu=mu, sigma=s, a=a, b=b))
    for mu, s in [('0', '1'), ('0.5', '1'), ('-2', '1'), ('3', '2'), ('6', '1')]:
        R.add('fisher', 'fis-sign', 'fisher', 'stochastic_sign', dict(mu=mu, sigma=s))

    # ---------------- hockey_stick.csv -----------------
    for mu1, mu2, s, eps in [('0', '1', '1', '0'), ('0', '1', '1', '0.5'), ('0', '1', '1', '1'), ('0', '1', '1', '3'),
                             ('1', '0', '5', '0.5'), ('0', '1', '0.5', '2'), ('0', '0.01', '1', '0.001'),
                             ('0', '1', '2', '0.1'), ('0', '1', '0.1', '20')]:
        R.add('hockey_stick', 'hs-gau', 'hockey_stick_delta', 'gaussian', dict(mu1=mu1, mu2=mu2, sigma=s, eps=eps))
    hs_cases = [('-1', '1', '1', '0.3', '1.3', ['0', '0.1', '0.5']), ('-1', '1', '1', '1.3', '0.3', ['0.2']),
                ('-1', '3', '2', '0.5', '1.5', ['0.05', '0.2']), ('0', '0.25', '0.5', '0.1', '0.2', ['0.01']),
                ('-5', '5', '1', '0', '1', ['0.5', '2']), ('-5', '5', '1', '4.5', '5.5', ['0.3'])]
    for fam in ('rectified', 'truncated'):
        for a, b, s, mu1, mu2, epss in hs_cases:
            for eps in epss:
                R.add('hockey_stick', 'hs-' + fam_short[fam], 'hockey_stick_delta', fam,
                      dict(mu1=mu1, mu2=mu2, sigma=s, a=a, b=b, eps=eps))
    for mu1, mu2, s, eps in [('0', '1', '1', '0'), ('0', '1', '1', '0.3'), ('1', '0', '2', '0.1'), ('-2', '-1', '1', '0.1')]:
        R.add('hockey_stick', 'hs-sign', 'hockey_stick_delta', 'stochastic_sign', dict(mu1=mu1, mu2=mu2, sigma=s, eps=eps))
    # eps_for_delta
    for mu1, mu2, s, dl in [('0', '1', '5', '1e-5'), ('0', '1', '1', '1e-5'), ('0', '1', '2', '1e-10'),
                            ('1', '0', '0.5', '0.001'), ('0', '1', '10', '1e-6')]:
        R.add('hockey_stick', 'e4d-gau', 'eps_for_delta', 'gaussian', dict(mu1=mu1, mu2=mu2, sigma=s, delta=dl))
    for fam in ('rectified', 'truncated'):
        for a, b, s, mu1, mu2, dl in [('-1', '1', '1', '0.3', '1.3', '1e-5'), ('-1', '3', '2', '0.5', '1.5', '0.001'),
                                      ('-5', '5', '1', '0', '1', '1e-8')]:
            R.add('hockey_stick', 'e4d-' + fam_short[fam], 'eps_for_delta', fam,
                  dict(mu1=mu1, mu2=mu2, sigma=s, a=a, b=b, delta=dl))
    for mu1, mu2, s, dl in [('0', '1', '1', '1e-3'), ('0', '1', '2', '1e-6')]:
        R.add('hockey_stick', 'e4d-sign', 'eps_for_delta', 'stochastic_sign', dict(mu1=mu1, mu2=mu2, sigma=s, delta=dl))

    # ---------------- bounds.csv -----------------
    for eta, g, d, al in [('0.001', '0.0001', '10', '2'), ('0.001', '0.0001', '10', '54.978832699664917815'),
                          ('0.01', '0.01', '1', '2'), ('0.01', '0.01', '10', '5'), ('0.1', '0.1', '3', '2'),
                          ('0.001', '0.0001', '1000', '20'), ('0.05', '1', '100', '1.5'), ('0.1', '0.5', '1', '1.001')]:
        R.add('bounds', 'thm1', 'rgm_theorem1_eps', 'rgm', dict(eta=eta, gamma=g, d=d, alpha=al))
    cor_cases = [('0.001', '0.0001', '10', '1e-8'), ('0.001', '0.0001', '100', '1e-5'), ('0.01', '0.001', '1', '1e-6'),
                 ('0.0001', '0.00001', '1000', '1e-10'), ('0.01', '0.0001', '5', '0.001')]
    for eta, g, d, dl in cor_cases:
        p = dict(eta=eta, gamma=g, d=d, delta=dl)
        assert cor1_valid(p), p
        R.add('bounds', 'cor1', 'rgm_corollary1_eps', 'rgm', p)
    for eta, g, d, dl in cor_cases + [('0.1', '0.1', '3', '1e-5')]:
        R.add('bounds', 'opt45', 'rgm_optimized_dp_eps', 'rgm', dict(eta=eta, gamma=g, d=d, delta=dl))
    for d, Rcs in [('1', ['0.5', '1', '3']), ('2', ['0.1', '1', '2']), ('10', ['1', '3', '4.47213595499957939282', '6']),
                   ('22', ['2', '5', '7', '10']), ('100', ['5', '10', '14.142135623730950488', '20']),
                   ('1000', ['10', '31.6227766016837933200', '44.72135954999579392818', '60'])]:
        for Rc in Rcs:
            R.add('bounds', 'rho', 'rho_bar', 'gaussian', dict(d=d, Rc=Rc))

    # ---------------- extremes.csv -----------------
    # far tails: both means k sigma outside [a,b] on either side (means one unit apart / sigma/2 apart)
    for a, b, s in SUPPORTS:
        fa, fb, fs = Fr(a), Fr(b), Fr(s)
        for k in (9, 20, 41):
            for side in (+1, -1):
                if side > 0:
                    m1 = fb + k * fs
                    m2 = m1 + fs / 2
                else:
                    m1 = fa - k * fs
                    m2 = m1 - fs / 2
                for fam in ('rectified', 'truncated'):
                    main2 = (a, b, s) in (('-1', '1', '1'), ('0', '0.25', '0.5'))
                    if k == 41:
                        als = ['1.001', '2', '100'] if main2 else ['2']
                    elif k == 9:
                        als = ['1.001', '2', '10', '100'] if (a, b, s) == ('-1', '1', '1') else ['2']
                    else:
                        als = ['2'] if main2 else []
                    for al in als:
                        R.add('extremes', 'ext-ren-' + fam_short[fam], 'renyi', fam,
                              dict(mu1=dec(m1), mu2=dec(m2), sigma=s, a=a, b=b, alpha=al))
                    if k in (9, 41) and (a, b, s) in (('-1', '1', '1'), ('0', '0.25', '0.5')):
                        R.add('extremes', 'ext-kl-' + fam_short[fam], 'kl', fam,
                              dict(mu1=dec(m1), mu2=dec(m2), sigma=s, a=a, b=b))
    # one mean inside, one far outside (large divergence)
    for fam in ('rectified', 'truncated'):
        for al in ('2', '100'):
            R.add('extremes', 'ext-ren-' + fam_short[fam], 'renyi', fam,
                  dict(mu1='0', mu2='42', sigma='1', a='-1', b='1', alpha=al))
            R.add('extremes', 'ext-ren-' + fam_short[fam], 'renyi', fam,
                  dict(mu1='-42', mu2='0', sigma='1', a='-1', b='1', alpha=al))
    # Fisher far outside
    for fam in ('rectified', 'truncated'):
        for a, b, s in SUPPORTS:
            fa, fb, fs = Fr(a), Fr(b), Fr(s)
            for mu in (fb + 41 * fs, fa - 41 * fs, fb + 20 * fs, fb + 40 * fs):
                if mu in (fb + 20 * fs, fb + 40 * fs) and (a, b, s) != ('-1', '1', '1'):
                    continue
                R.add('extremes', 'ext-fis-' + fam_short[fam], 'fisher', fam, dict(mu=dec(mu), sigma=s, a=a, b=b))
        R.add('extremes', 'ext-fis-' + fam_short[fam], 'fisher', fam, dict(mu='1000', sigma='1', a='-1', b='1'))
    for mu in ('9', '-20', '41'):
        R.add('extremes', 'ext-fis-sign', 'fisher', 'stochastic_sign', dict(mu=mu, sigma='1'))
    # stochastic sign far tails
    for mu1, mu2 in (('-9', '-8'), ('20', '21'), ('-41', '-42'), ('41', '41.5')):
        for al in ('1.001', '2', '100'):
            R.add('extremes', 'ext-ren-sign', 'renyi', 'stochastic_sign', dict(mu1=mu1, mu2=mu2, sigma='1', alpha=al))
        R.add('extremes', 'ext-kl-sign', 'kl', 'stochastic_sign', dict(mu1=mu1, mu2=mu2, sigma='1'))
    # alpha extremes, Gaussian and large separations
    for al in ('1.000001', '1000'):
        R.add('extremes', 'ext-ren-gau', 'renyi', 'gaussian', dict(mu1='0', mu2='1', sigma='1', alpha=al))
    R.add('extremes', 'ext-ren-rect', 'renyi', 'rectified', dict(mu1='0.3', mu2='1.3', sigma='1', a='-1', b='1', alpha='1000'))
    R.add('extremes', 'ext-ren-trunc', 'renyi', 'truncated', dict(mu1='0.3', mu2='1.3', sigma='1', a='-1', b='1', alpha='1000'))
    R.add('extremes', 'ext-ren-rect', 'renyi', 'rectified', dict(mu1='0.3', mu2='0.3000001', sigma='1', a='-1', b='1', alpha='2'))
    R.add('extremes', 'ext-ren-trunc', 'renyi', 'truncated', dict(mu1='0.3', mu2='0.3000001', sigma='1', a='-1', b='1', alpha='2'))
    # d = 1000 and near-equal variances
    for dist, s1, s2, al in [('1', '1.001', '1', '100'), ('1', '1', '1.001', '2'), ('3', '1', '1.0001', '1.001'),
                             ('0.1', '1', '1.00000001', '10')]:
        R.add('extremes', 'ext-ren-gdd', 'renyi', 'gaussian_dd', dict(dist=dist, sigma1=s1, sigma2=s2, d='1000', alpha=al))
    R.add('extremes', 'ext-kl-gdd', 'kl', 'gaussian_dd', dict(dist='1', sigma1='1.001', sigma2='1', d='1000'))
    # RGM pairs with gamma = 1 and norms differing by 1e-7 relative (eq. 13 as written fails in float64)
    for p, als in [(dict(d='1000', gamma='1', sigma2='1', n1='10', n2='10.000001', dist='0.000001'), ['2', '100']),
                   (dict(d='1000', gamma='1', sigma2='0.01', n1='1', n2='1.0000001', dist='0.0000001'), ['1.5', '10']),
                   (dict(d='7', gamma='1', sigma2='0.5', n1='3', n2='3.0000003', dist='0.0000005'), ['2']),
                   (dict(d='1000', gamma='1', sigma2='1', n1='100', n2='100.00001', dist='0.00002'), ['1.001', '3'])]:
        for al in als:
            R.add('extremes', 'ext-ren-rgm', 'renyi', 'rgm', dict(p, alpha=al))
    R.add('extremes', 'ext-kl-rgm', 'kl', 'rgm', dict(d='1000', gamma='1', sigma2='1', n1='10', n2='10.000001', dist='0.000001'))
    # hockey-stick with delta down to ~1e-300
    for mu1, mu2, s, eps in [('0', '1', '1', '37'), ('0', '1', '1', '38'), ('0', '1', '0.02', '1560'),
                             ('0', '1', '0.05', '940.376124'), ('1', '0', '1', '24'), ('0', '1', '0.05', '500'),
                             ('0', '1', '0.027', '2100')]:
        R.add('extremes', 'ext-hs-gau', 'hockey_stick_delta', 'gaussian', dict(mu1=mu1, mu2=mu2, sigma=s, eps=eps))
    for fam in ('rectified', 'truncated'):
        R.add('extremes', 'ext-hs-' + fam_short[fam], 'hockey_stick_delta', fam,
              dict(mu1='10', mu2='10.5', sigma='1', a='-1', b='1', eps='0'))
        R.add('extremes', 'ext-hs-' + fam_short[fam], 'hockey_stick_delta', fam,
              dict(mu1='-40', mu2='-41', sigma='1', a='-1', b='1', eps='0.01'))
        R.add('extremes', 'ext-hs-' + fam_short[fam], 'hockey_stick_delta', fam,
              dict(mu1='0', mu2='0.1', sigma='0.05', a='-1', b='1', eps='1'))
    R.add('extremes', 'ext-hs-sign', 'hockey_stick_delta', 'stochastic_sign', dict(mu1='-41', mu2='-40', sigma='1', eps='0'))
    R.add('extremes', 'ext-hs-sign', 'hockey_stick_delta', 'stochastic_sign', dict(mu1='19', mu2='20', sigma='1', eps='0.5'))
    R.add('extremes', 'ext-e4d-gau', 'eps_for_delta', 'gaussian', dict(mu1='0', mu2='1', sigma='0.05', delta='1e-300'))
    R.add('extremes', 'ext-e4d-gau', 'eps_for_delta', 'gaussian', dict(mu1='0', mu2='1', sigma='1', delta='1e-100'))
    return R.rows


TABLES = ['renyi', 'kl', 'fisher', 'hockey_stick', 'bounds', 'extremes']


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--quick', action='store_true', help='~40-row subset, writes nothing unless --out')
    ap.add_argument('--out', default=None, help='output directory (default: golden/ next to this script)')
    ap.add_argument('--only', default=None, help='comma list of tables')
    ap.add_argument('--match', default=None, help='only ids containing this string (debug)')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    rows = build_rows()
    ids = [r['id'] for r in rows]
    assert len(ids) == len(set(ids)), 'duplicate ids'
    if args.quick:
        by = {}
        for r in rows:
            by.setdefault(r['table'], []).append(r)
        sel = []
        for t in TABLES:
            lst = by.get(t, [])
            step = max(1, len(lst) // 7)
            sel += lst[::step][:7]
        rows = sel
    if args.only:
        keep = set(args.only.split(','))
        rows = [r for r in rows if r['table'] in keep]
    if args.match:
        rows = [r for r in rows if args.match in r['id']]
    outdir = args.out if args.out else (None if args.quick else HERE)
    t0 = time.time()
    results = {t: [] for t in TABLES}
    line_raw = {}
    for r in rows:
        t1 = time.time()
        A, B, src = compute(r['quantity'], r['family'], r['params'], r['qdps'])
        if not (mpmath.isfinite(A) and mpmath.isfinite(B)) or A == 0:
            print('ERROR: non-finite or zero value (row dropped) for', r['id'], A, B, file=sys.stderr)
            continue
        dg = agree_digits(A, B)
        line = dict(id=r['id'], quantity=r['quantity'], family=r['family'], params=params_str(r['params']),
                    value=fmt(A), digits=dg, source=src)
        for k, v in line.items():
            assert ',' not in str(v) and '"' not in str(v), (r['id'], k, v)
        line_raw[r['id']] = float(raw_digits(A, B))
        results[r['table']].append(line)
        flag = '' if dg >= 50 else '   <-- LOW'
        if args.v or dg < 50:
            print('%-16s %-22s %-16s %s\n    A=%s\n    B=%s  digits=%d (raw %.1f)  %.1fs%s' % (
                r['id'], r['quantity'], r['family'], params_str(r['params']), mpmath.nstr(A, 25),
                mpmath.nstr(B, 25), dg, float(raw_digits(A, B)), time.time() - t1, flag), flush=True)
        if dg < 40:
            print('ERROR: routes disagree beyond 40 digits for', r['id'], file=sys.stderr)
    if outdir:
        os.makedirs(outdir, exist_ok=True)
        for t in TABLES:
            if not results[t] and (args.only or args.match):
                continue
            with open(os.path.join(outdir, t + '.csv'), 'w', newline='') as fh:
                w = csv.DictWriter(fh, fieldnames=['id', 'quantity', 'family', 'params', 'value', 'digits', 'source'],
                                   lineterminator='\n')
                w.writeheader()
                for line in results[t]:
                    w.writerow(line)
    print('\nsummary (%.1f s):' % (time.time() - t0))
    alld = []
    for t in TABLES:
        ds = [l['digits'] for l in results[t]]
        raws = [line_raw[l['id']] for l in results[t]]
        alld += ds
        if ds:
            print('  %-17s rows=%4d  min digits=%2d  median=%s  (uncapped agreement: min %.1f, median %.1f)' % (
                t + '.csv', len(ds), min(ds), sorted(ds)[len(ds) // 2], min(raws), sorted(raws)[len(raws) // 2]))
    if alld:
        s = sorted(alld)
        raws = sorted(line_raw.values())
        print('  %-17s rows=%4d  min digits=%2d  median=%s  (uncapped agreement: min %.1f, median %.1f)' % (
            'TOTAL', len(s), s[0], s[len(s) // 2], raws[0], raws[len(raws) // 2]))


if __name__ == '__main__':
    main()
