#!/usr/bin/env python3
"""Golden reference table for the Laplace mechanism: golden/laplace.csv.

Pairs P1 = Lap(mu1, b), P2 = Lap(mu2, b) with density p(x) = exp(-|x - mu|/b) / (2b), b = `scale` > 0,
and t = |mu1 - mu2| / b.  Same conventions as golden/generate.py (see golden/README.md): every row is
computed by two independent routes in mpmath, parameters are exact decimal strings converted with
mpf(str) at each route's own working precision, `value` is route A printed with 60 significant digits,
and `digits` = floor(-log10|A - B|/|A|) capped at 60.  The script asserts that the routes agree to at
least 62 significant digits on every row (and that no value is zero) and exits non-zero, writing
nothing, otherwise.

Route A -- closed forms (docs/formulas.md §10) at mp.dps = 100, in arrangements without cancellation
beyond ~log10(1/t) digits:

  renyi (alpha != 1/2)   Mironov 2017, Table II:
                         D = log[ a/(2a-1) e^((a-1)t) + (a-1)/(2a-1) e^(-a t) ] / (a-1), evaluated as
                         log1p( (a expm1((a-1)t) + (a-1) expm1(-a t)) / (2a-1) ) / (a-1).
  renyi (alpha = 1/2)    the bracket is 0/0; its limit a -> 1/2 (l'Hopital) is (1 + t/2) e^(-t/2), so
                         D_1/2 = t - 2 log1p(t/2).  (The script also checks that the general formula at
                         a = 1/2 +- 1e-40, evaluated at dps 160, tends to this limit.)
  kl                     t + expm1(-t).
  hockey_stick_delta     delta(eps) = -expm1((eps - t)/2) for 0 <= eps < t (rows with eps >= t, where
                         delta = 0 exactly, are not written: zero cannot be certified relatively).
  fisher                 1/b^2 (location parameter mu of a single Lap(mu, b)).

Route B -- mpmath quadrature of the defining integral over x at mp.dps >= 80 (90 for the t = 1e-6
rows, whose integrals cancel at first order in t).  The densities are evaluated as
log p = -|x - mu|/b - log(2b); nothing from route A is used.

  renyi    D = log1p(S - 1)/(a - 1) with S - 1 = int p1 expm1((a-1) l(x)) dx, l = log p1 - log p2
           (the expm1 form of int p1^a p2^(1-a); it keeps S - 1 ~ t^2 at full relative accuracy).
  kl       int p1 l dx.
  hockey   int (p1 - e^eps p2)_+ dx = int p1 max(0, -expm1(eps - l)) dx; the point where
           p1 = e^eps p2 is found by mpmath.findroot on l(x) - eps (Illinois, bracketed by mu1, mu2),
           not from the closed form.
  fisher   int p (d/dmu log p)^2 dx, the score d/dmu log p(x; mu, b) taken by mpmath.diff (numerical
           differentiation of the log density in mu), not as sign(x - mu)/b.

Quadrature hygiene: the line is split at mu1, mu2 and (hockey stick) the root above, and the root of
l (where the Renyi/KL integrands change sign).  Every finite segment gets a ladder of breakpoints from
both ends: steps 1/(16R), doubling up to 16/R, then constant steps of 16/R until the fastest component
has fallen by e^-(2.31 (dps+20)), then doubling to the midpoint (R = largest log-slope of a component of
the integrand on the segment).  The two tails get the same ladder (R = 1/b) and a last tanh-sinh piece to
+-infinity; finite pieces use Gauss-Legendre.  Every piece is divided by the maximum of |integrand|
sampled on it before mp.quad, so mpmath's absolute tolerance becomes relative.

    python3 golden/generate_laplace.py           # writes golden/laplace.csv
    python3 golden/generate_laplace.py -v        # also prints both routes and the uncapped agreement
    python3 golden/generate_laplace.py --out DIR # writes DIR/laplace.csv instead
"""
import argparse
import csv
import os
import sys
import time

import mpmath
from mpmath import mp, mpf

DPS_A = 100
DPS_B = 80
CAP = 60
MIN_AGREE = 62
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# The value format and the digit count are the other tables' (same DPS_A and CAP).
from generate import agree_digits, fmt  # noqa: E402
REF = 'docs/formulas.md §10'

# ---------------------------------------------------------------------------------------------
# route A: closed forms at dps 100
# ---------------------------------------------------------------------------------------------


def t_of(p):
    return abs(mpf(p['mu1']) - mpf(p['mu2'])) / mpf(p['scale'])


def renyi_general(a, t):
    """Mironov 2017 Table II, bracket - 1 written with expm1 (a != 1/2)."""
    bm1 = (a * mpmath.expm1((a - 1) * t) + (a - 1) * mpmath.expm1(-a * t)) / (2 * a - 1)
    return mpmath.log1p(bm1) / (a - 1)


def route_a(quantity, p):
    with mp.workdps(DPS_A):
        if quantity == 'fisher':
            b = mpf(p['scale'])
            return 1 / (b * b)
        t = t_of(p)
        if quantity == 'renyi':
            a = mpf(p['alpha'])
            if a == mpf('0.5'):
                return t - 2 * mpmath.log1p(t / 2)
            return renyi_general(a, t)
        if quantity == 'kl':
            return t + mpmath.expm1(-t)
        if quantity == 'hockey_stick_delta':
            e = mpf(p['eps'])
            assert 0 <= e < t, 'eps must be in [0, t): delta would be exactly 0'
            return -mpmath.expm1((e - t) / 2)
    raise ValueError(quantity)

# ---------------------------------------------------------------------------------------------
# route B: quadrature at dps >= 80
# ---------------------------------------------------------------------------------------------


def logp(x, mu, b):
    return -abs(x - mu) / b - mpmath.log(2 * b)


def ladder(e, sgn, R, limit, nats):
    """Breakpoints e + sgn*d, 0 < d < limit: 1/(16R) doubling to 16/R, steps of 16/R up to nats/R,
    then doubling."""
    out = []
    d = 1 / (16 * R)
    cap = 16 / R
    while d < limit:
        out.append(e + sgn * d)
        if d < cap:
            d *= 2
        elif d < nats / R:
            d += cap
        else:
            d *= 2
    return out


def qint(f, pts):
    """Sum of mp.quad over consecutive pieces, each rescaled by the sampled max |f| on it."""
    total = mpf(0)
    err = mpf(0)
    for u, v in zip(pts[:-1], pts[1:]):
        if not u < v:
            continue
        if mpmath.isinf(v):
            samp = [u, u + mpf(1) / 64, u + mpf(1) / 8, u + 1]
        elif mpmath.isinf(u):
            samp = [v, v - mpf(1) / 64, v - mpf(1) / 8, v - 1]
        else:
            samp = [u + (v - u) * j / 8 for j in range(9)]
        sc = max(abs(f(x)) for x in samp)
        if sc == 0:
            continue
        if mpmath.isinf(u) or mpmath.isinf(v):
            val, e = mp.quad(lambda x: f(x) / sc, [u, v], error=True)
        else:
            val, e = mp.quad(lambda x: f(x) / sc, [u, v], error=True, method='gauss-legendre')
        total += val * sc
        err += abs(e) * sc
    return total, err


def integrate_line(f, kinks, R_mid, b):
    """int_R f with breakpoints at the kinks and ladders on every segment (see module docstring)."""
    nats = mpf('2.31') * (mp.dps + 20)
    ks = sorted(set(kinks))
    pts = set(ks)
    R_tail = 1 / b
    # tails: f decays like exp(-|x|/b) beyond the outermost kinks
    pts.update(ladder(ks[0], -1, R_tail, nats / R_tail, nats))
    pts.update(ladder(ks[-1], 1, R_tail, nats / R_tail, nats))
    for u, v in zip(ks[:-1], ks[1:]):
        half = (v - u) / 2
        pts.add(u + half)
        pts.update(ladder(u, 1, R_mid, half, nats))
        pts.update(ladder(v, -1, R_mid, half, nats))
    pts = [-mpmath.inf] + sorted(pts) + [mpmath.inf]
    return qint(f, pts)


def route_b(quantity, p, dps):
    with mp.workdps(dps):
        b = mpf(p['scale'])
        if quantity == 'fisher':
            mu = mpf(p['mu'])

            def f(x):
                s = mpmath.diff(lambda m: logp(x, m, b), mu)
                return mpmath.exp(logp(x, mu, b)) * s * s
            val, _ = integrate_line(f, [mu], 1 / b, b)
            return val
        mu1, mu2 = mpf(p['mu1']), mpf(p['mu2'])

        def ell(x):
            return logp(x, mu1, b) - logp(x, mu2, b)

        lo, hi = min(mu1, mu2), max(mu1, mu2)
        mid_root = mpmath.findroot(ell, (lo, hi), solver='illinois')
        if quantity == 'renyi':
            a = mpf(p['alpha'])

            def f(x):
                return mpmath.exp(logp(x, mu1, b)) * mpmath.expm1((a - 1) * ell(x))
            R = (1 + 2 * abs(a - 1)) / b
            sm1, _ = integrate_line(f, [mu1, mu2, mid_root], R, b)
            return mpmath.log1p(sm1) / (a - 1)
        if quantity == 'kl':
            def f(x):
                return mpmath.exp(logp(x, mu1, b)) * ell(x)
            val, _ = integrate_line(f, [mu1, mu2, mid_root], 1 / b, b)
            return val
        if quantity == 'hockey_stick_delta':
            e = mpf(p['eps'])
            xs = mpmath.findroot(lambda x: ell(x) - e, (lo, hi), solver='illinois')
            assert lo < xs < hi

            def f(x):
                g = -mpmath.expm1(e - ell(x))
                return mpmath.exp(logp(x, mu1, b)) * g if g > 0 else mpf(0)
            val, _ = integrate_line(f, [mu1, mu2, xs], 1 / b, b)
            return val
    raise ValueError(quantity)

# ---------------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------------

PAIRS = {
    # name: (mu1, mu2, scale)            t
    'A': ('0', '1.3', '0.7'),           # 1.857142857...   (the docs' worked example)
    'S': ('0', '0.000001', '1'),        # 1e-6
    'L': ('2.5', '-47.5', '1'),         # 50, mu1 > mu2
    'N': ('0.3', '0.31', '0.01'),       # 1,  narrow scale
    'W': ('35', '-10', '30'),           # 1.5, wide scale, mu1 > mu2
    'U': ('1', '-2.2', '1'),            # 3.2, mu1 > mu2
}

# dpaudit's renyi takes the RDP orders alpha > 1 only (alpha <= 1 is refused as invalid input),
# so the table holds none below 1; the alpha = 1/2 branch of route A is kept for other uses.
RENYI = [('A', a) for a in ['1.001', '1.5', '2', '3', '10', '64']] + \
        [('S', a) for a in ['1.001', '2', '64']] + \
        [('L', a) for a in ['1.5', '10', '64']] + \
        [('N', '2'), ('W', '3'), ('U', '1.001')]
KL = ['A', 'S', 'L', 'N', 'W', 'U']
HS = [('A', '0'), ('A', '0.3'), ('A', '1'), ('A', '1.8'), ('S', '0'), ('S', '0.0000005'),
      ('L', '0'), ('L', '10'), ('L', '49.5'), ('N', '0.9'), ('W', '0.2')]
FISHER = [('0', '1'), ('2.5', '0.7'), ('-3', '0.01'), ('100', '30')]


def pair_params(name):
    mu1, mu2, s = PAIRS[name]
    return {'mu1': mu1, 'mu2': mu2, 'scale': s}


def build_rows():
    rows = []

    def add(prefix, quantity, params, dps):
        n = sum(1 for r in rows if r['prefix'] == prefix) + 1
        rows.append(dict(id='%s-%03d' % (prefix, n), prefix=prefix, quantity=quantity, params=params, dps=dps))

    for name, a in RENYI:
        p = pair_params(name)
        p['alpha'] = a
        add('lap-ren', 'renyi', p, 90 if name == 'S' else DPS_B)
    for name in KL:
        add('lap-kl', 'kl', pair_params(name), 90 if name == 'S' else DPS_B)
    for name, e in HS:
        p = pair_params(name)
        p['eps'] = e
        add('lap-hs', 'hockey_stick_delta', p, 90 if name == 'S' else DPS_B)
    for mu, s in FISHER:
        add('lap-fis', 'fisher', {'mu': mu, 'scale': s}, DPS_B)
    return rows


def source(quantity, params, dps):
    q = 'mpmath quad dps%d of ' % dps
    if quantity == 'renyi':
        if params['alpha'] == '0.5':
            return (q + 'int sqrt(p1 p2) (expm1 form; split at mu1 mu2 and the log-ratio root) vs '
                    'alpha->1/2 limit of Mironov 2017 Table II = t - 2 log(1+t/2) (%s) dps100' % REF)
        return (q + 'int p1^a p2^(1-a) (expm1 form; split at mu1 mu2 and the log-ratio root) vs '
                'closed form Mironov 2017 Table II (%s) dps100' % REF)
    if quantity == 'kl':
        return q + 'int p1 log(p1/p2) (split at mu1 mu2) vs closed form t + e^-t - 1 (%s) dps100' % REF
    if quantity == 'hockey_stick_delta':
        return (q + 'int (p1-e^eps p2)_+ (split at mu1 mu2 and the findroot point where p1 = e^eps p2) '
                'vs closed form 1 - e^((eps-t)/2) (%s) dps100' % REF)
    if quantity == 'fisher':
        return (q + 'E[score^2] (score by mpmath.diff of log p in mu; split at mu) vs 1/scale^2 '
                '(%s) dps100' % REF)
    raise ValueError(quantity)


def params_str(params):
    return ';'.join('%s=%s' % (k, v) for k, v in params.items())


def raw_digits(A, B):
    with mp.workdps(DPS_A + 20):
        if A == B:
            return mpf(DPS_A)
        return -mpmath.log10(abs(A - B) / abs(A))


# ---------------------------------------------------------------------------------------------
# sanity checks of route A against independently quoted values
# ---------------------------------------------------------------------------------------------

CHECKS = [
    ('renyi', dict(mu1='0', mu2='1.3', scale='0.7', alpha='1.5'), '1.29796162633279725911'),
    ('renyi', dict(mu1='0', mu2='1.3', scale='0.7', alpha='3'), '1.60176095752611190681'),
    ('kl', dict(mu1='0', mu2='1.3', scale='0.7'), '1.01326090245882822470'),
    ('hockey_stick_delta', dict(mu1='0', mu2='1.3', scale='0.7', eps='0.3'), '0.54093865498028137581'),
    ('hockey_stick_delta', dict(mu1='0', mu2='1.3', scale='0.7', eps='1'), '0.34856094246894440999'),
]


def sanity():
    for q, p, want in CHECKS:
        got = route_a(q, p)
        with mp.workdps(DPS_A):
            ok = abs(got - mpf(want)) <= mpf('1e-20')      # want is truncated after 21 digits
        if not ok:
            sys.exit('FATAL: route A %s %s = %s, expected %s...' % (q, params_str(p), got, want))
    # the alpha = 1/2 limit used by route A is the limit of the general formula
    for tt in ['0.000001', '1.857142857142857142857', '50']:
        with mp.workdps(160):
            t = mpf(tt)
            lim = t - 2 * mpmath.log1p(t / 2)
            for a in (mpf('0.5') - mpf('1e-40'), mpf('0.5') + mpf('1e-40')):
                g = renyi_general(a, t)
                if not abs(g - lim) <= abs(lim) * mpf('1e-30'):
                    sys.exit('FATAL: general Renyi formula at alpha=%s t=%s does not approach the limit' % (a, tt))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', default=None, help='output directory (default: golden/ next to this script)')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    t0 = time.time()
    sanity()
    rows = build_rows()
    assert len({r['id'] for r in rows}) == len(rows)
    lines, raws, bad = [], [], []
    for r in rows:
        t1 = time.time()
        A = route_a(r['quantity'], r['params'])
        B = route_b(r['quantity'], r['params'], r['dps'])
        raw = raw_digits(A, B) if (A != 0 and mpmath.isfinite(A) and mpmath.isfinite(B)) else mpf(0)
        dg = agree_digits(A, B) if raw > 0 else 0
        line = dict(id=r['id'], quantity=r['quantity'], family='laplace', params=params_str(r['params']),
                    value=fmt(A), digits=dg, source=source(r['quantity'], r['params'], r['dps']))
        for k, v in line.items():
            assert ',' not in str(v) and '"' not in str(v), (r['id'], k, v)
        lines.append(line)
        raws.append(float(raw))
        if raw < MIN_AGREE:
            bad.append(r['id'])
        if args.v or raw < MIN_AGREE:
            print('%-12s %-19s %s\n    A=%s\n    B=%s  digits=%d (raw %.1f)  %.1fs%s' % (
                r['id'], r['quantity'], line['params'], mpmath.nstr(A, 30), mpmath.nstr(B, 30), dg,
                float(raw), time.time() - t1, '' if raw >= MIN_AGREE else '   <-- FAIL'), flush=True)
    if bad:
        print('FATAL: routes agree to fewer than %d digits (or value is zero/non-finite) for: %s'
              % (MIN_AGREE, ' '.join(bad)), file=sys.stderr)
        sys.exit(1)
    outdir = args.out or HERE
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'laplace.csv'), 'w', newline='') as fh:
        w = csv.DictWriter(fh, fieldnames=['id', 'quantity', 'family', 'params', 'value', 'digits', 'source'],
                           lineterminator='\n')
        w.writeheader()
        for line in lines:
            w.writerow(line)
    ds = sorted(l['digits'] for l in lines)
    rs = sorted(raws)
    print('laplace.csv: rows=%d  min digits=%d  (uncapped agreement: min %.1f, median %.1f)  %.1f s' % (
        len(lines), ds[0], rs[0], rs[len(rs) // 2], time.time() - t0))


if __name__ == '__main__':
    main()
