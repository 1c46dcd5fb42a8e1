#!/usr/bin/env python3
"""Golden values far below 1, and values beyond MPFR's exponent range: golden/tiny/*.csv.

Issue 23 found two ways dpaudit printed a wrong number as "certified":
  * absorption: at sigma = 1e100 the divergences are ~1e-200, while the formulas add them to
    terms of size 1; the closed forms' precision ladder saw 0 at two precisions and certified 0,
    and the quadrature route's integrals missed an absolute floor of ~7e-29 (sigma = 1e8 gave
    9.99999999999298e-17 for 1e-16, "15 digits");
  * underflow: a true value below 2^emin (MPFR's smallest exponent, ~1e-323228497) came out as 0
    "certified".

tiny/values.csv (id,quantity,family,params,value,digits,source): the rows of the first kind.
route A: golden/generate.py's closed forms (docs/formulas.md, erfc-based) at mp.dps = 320 (the
values sit 200 digits below the terms they are computed from). route B: the leading term of the
expansion in t = (mu2 - mu1)/sigma (or 1/sigma), whose relative error is O(t^2) = 1e-200 at
sigma = 1e100 (for the Gaussian rows at sigma = 1e8 and 1e14, the textbook identities
alpha t^2/2 and t^2/2, exact):
  Gaussian D_alpha = alpha t^2/2, KL = t^2/2, Fisher = 1/sigma^2 (exact);
  stochastic sign and rectified on [-1, 1] (two atoms of mass 1/2 + O(t), interior mass
  O(1/sigma)): chi^2 = (2/pi) t^2 + O(t^4), so D_2 = log(1 + chi^2) = (2/pi) t^2, KL = t^2/pi,
  Fisher = (2/pi)/sigma^2;
  Gaussian hockey-stick at eps = a t: delta = t (phi(a) - a Phi(-a)) + O(t^2).
digits = agreement of the two routes, capped at 60.

tiny/underflow.csv (id,quantity,family,params,log10_value,source): rows whose true value is
positive but below 1e-323228497, so dpaudit must refuse them. mpmath's exponents are unbounded,
so the value itself is computed (route A of generate.py at dps 260) and its log10 printed; a
second arrangement checks it (below).

    python3 golden/generate_tiny.py             # writes golden/tiny/{values,underflow}.csv
"""
import csv
import os
import sys

import mpmath
from mpmath import mp, mpf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate as g  # noqa: E402

DPS = 320


def series(quantity, family, P):
    """Route B: the leading term of the expansion in t (module docs)."""
    s = mpf(P.get('sigma'))
    if quantity == 'fisher':
        return 1 / s ** 2 if family == 'gaussian' else 2 / (mpmath.pi * s ** 2)
    t = (mpf(P['mu2']) - mpf(P['mu1'])) / s
    if family == 'gaussian':
        if quantity == 'renyi':
            return mpf(P['alpha']) * t ** 2 / 2
        if quantity == 'kl':
            return t ** 2 / 2
        a = mpf(P['eps']) / t
        return t * (mpmath.npdf(a) - a * mpmath.ncdf(-a))
    assert P.get('alpha', '2') == '2'
    return 2 * t ** 2 / mpmath.pi if quantity == 'renyi' else t ** 2 / mpmath.pi

VALUES = [
    ('renyi', 'gaussian', 'mu1=0;mu2=1;sigma=1e100;alpha=2'),
    ('renyi', 'gaussian', 'mu1=0;mu2=1;sigma=1e8;alpha=2'),
    ('renyi', 'gaussian', 'mu1=0;mu2=1;sigma=1e14;alpha=2'),
    ('kl', 'gaussian', 'mu1=0;mu2=1;sigma=1e100'),
    ('renyi', 'stochastic_sign', 'mu1=0;mu2=1;sigma=1e100;alpha=2'),
    ('kl', 'stochastic_sign', 'mu1=0;mu2=1;sigma=1e100'),
    ('renyi', 'rectified', 'mu1=0;mu2=1;sigma=1e100;a=-1;b=1;alpha=2'),
    ('kl', 'rectified', 'mu1=0;mu2=1;sigma=1e100;a=-1;b=1'),
    ('hockey_stick_delta', 'gaussian', 'mu1=0;mu2=1;sigma=1e100;eps=0'),
    ('hockey_stick_delta', 'gaussian', 'mu1=0;mu2=1;sigma=1e100;eps=1e-101'),
    ('fisher', 'stochastic_sign', 'mu=0;sigma=1e100'),
    ('fisher', 'rectified', 'mu=0;sigma=1e100;a=-1;b=1'),
]

UNDERFLOW = [
    ('hockey_stick_delta', 'gaussian', 'mu1=0;mu2=1;sigma=1;eps=1e10'),
    ('hockey_stick_delta', 'gaussian', 'mu1=0;mu2=1;sigma=1;eps=1e12'),
    ('fisher', 'stochastic_sign', 'mu=1e100;sigma=1'),
    ('fisher', 'rectified', 'mu=1e100;sigma=1;a=-1;b=1'),
    ('fisher', 'rectified', 'mu=1e5;sigma=1;a=-1;b=1'),
]


def parse(params):
    return dict(kv.split('=') for kv in params.split(';'))


def log10_second(quantity, family, P):
    """An upper bound on log10 of the value in another arrangement: the leading tail term.
    hockey-stick of N(0,s) vs N(1,s) at eps: delta <= Phibar(eps*s/D - D/(2s)) (drop the
    subtracted term), D = mu2 - mu1; Fisher of the sign / rectified family at mu far right of
    the support: I <= 2*phi(t)^2/(s^2 Phibar(t)) * (1 + 1) with t = (mu - b)/s (the atom at b
    has mass ~1, the other terms are smaller), all in logs."""
    with mp.workdps(260):
        s = mpf(P['sigma'])
        if quantity == 'hockey_stick_delta':
            D = mpf(P['mu2']) - mpf(P['mu1'])
            t = mpf(P['eps']) * s / D - D / (2 * s)
            return mpmath.log10(mpmath.ncdf(-t))
        b = mpf(P.get('b', '0'))
        t = (mpf(P['mu']) - b) / s
        return mpmath.log10(4 * mpmath.npdf(t) ** 2 / (s ** 2 * mpmath.ncdf(-t)))


def main():
    out = os.path.join(HERE, 'tiny')
    os.makedirs(out, exist_ok=True)
    g.DPS_A = DPS
    rows = []
    for quantity, family, params in VALUES:
        P = parse(params)
        with mp.workdps(DPS):
            if quantity == 'renyi':
                A = g.renyi_A(family, P, mpf(P['alpha']))
            elif quantity == 'kl':
                A = g.kl_A(family, P)
            elif quantity == 'fisher':
                A = g.fisher_A(family, P)
            else:
                A = g.hs_A(family, P, mpf(P['eps']))
            B = series(quantity, family, P)
        d = g.agree_digits(A, B)
        src = 'closed form docs/formulas.md (generate.py route A) dps%d vs leading term in t' % DPS
        rid = '%s-%s-%s' % (quantity, family, P.get('sigma'))
        if 'eps' in P:
            rid += '-eps' + P['eps']
        rows.append([rid, quantity, family, params, g.fmt(A), d, src])
        print(rid, g.fmt(A), d, file=sys.stderr)
    with open(os.path.join(out, 'values.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['id', 'quantity', 'family', 'params', 'value', 'digits', 'source'])
        w.writerows(rows)
    urows = []
    for quantity, family, params in UNDERFLOW:
        P = parse(params)
        # dps 260: log10 of the value is ~1e199 at mu = 1e100, and must resolve units.
        with mp.workdps(260):
            if quantity == 'hockey_stick_delta':
                A = g.hs_A(family, P, mpf(P['eps']))
            else:
                A = g.fisher_A(family, P)
            la = mpmath.log10(A)
            lb = log10_second(quantity, family, P)
            assert A > 0 and la < -323228497 and la <= lb + 1, (params, la, lb)
        rid = '%s-%s-%s' % (quantity, family, params.split(';')[-1] if 'eps' in params else P['mu'])
        urows.append([rid, quantity, family, params, mpmath.nstr(la, 15),
                      'generate.py route A at dps 260 (mpmath exponents are unbounded); '
                      'checked below the leading-tail bound %s' % mpmath.nstr(lb, 8)])
        print(rid, mpmath.nstr(la, 15), mpmath.nstr(lb, 15), file=sys.stderr)
    with open(os.path.join(out, 'underflow.csv'), 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['id', 'quantity', 'family', 'params', 'log10_value', 'source'])
        w.writerows(urows)


if __name__ == '__main__':
    main()
