#!/usr/bin/env python3
"""Golden reference table for the discrete Gaussian: golden/discrete_gaussian.csv.

P1 = N_Z(mu1, sigma^2), P2 = N_Z(mu2, sigma^2) on the integers, P(X = x) = exp(-(x - mu)^2/(2 sigma^2)) / Z(mu),
Z(mu) = sum_k exp(-(k - mu)^2/(2 sigma^2)) (Canonne, Kamath & Steinke, NeurIPS 2020, "CKS").  mu1, mu2 are
integers (dpaudit's vocabulary); the single law of `fisher` takes any decimal mu.  Same conventions as
golden/generate.py (golden/README.md): two independent routes in mpmath, parameters converted with mpf(str)
at each route's own precision, `value` = route A with 60 significant digits, `digits` = floor(-log10|A-B|/|A|)
capped at 60; the script refuses to write the table if a row agrees to fewer than 62 digits.

Route A -- the defining series summed directly at mp.dps = 120: every mass from its definition (Z summed
over the same window), windows [lowest centre - N, highest centre + N] with N = sigma*sqrt(2 ln10 (dps+30)) + 5
(the summand has fallen below 1e-(dps+30) of its peak there):

  renyi              D = log(sum_x p1^a p2^(1-a)) / (a - 1), each term exp(a log p1 + (1-a) log p2)
  kl                 sum_x p1 (log p1 - log p2)
  hockey_stick_delta sum_x max(0, p1 - e^eps p2)
  eps_for_delta      the root of route A's delta(eps) = delta (Illinois on log delta, bracketed by doubling,
                     to 10^-(dps-10) relative)
  fisher             Var(X)/sigma^4, two passes (mean, then sum p (x - mean)^2)

Route B -- Jacobi theta functions at mp.dps = 80 (mpmath.jtheta; by Poisson summation
Z(mu) = sigma sqrt(2 pi) theta3(pi mu, q), q = exp(-2 pi^2 sigma^2)), and CKS Theorem 7 for delta:

  renyi              S = exp(a(a-1)Delta^2/(2 sigma^2)) theta3(pi m) / (theta3(pi mu1)^a theta3(pi mu2)^(1-a)),
                     m = a mu1 + (1-a) mu2 (completing the square), D = log S / (a - 1)
  kl                 (Delta^2 + 2 Delta E1[X - mu1])/(2 sigma^2) + log(Z(mu2)/Z(mu1)),
                     E[X - mu] = sigma^2 pi theta3'(pi mu)/theta3(pi mu)  (Delta = mu1 - mu2)
  hockey_stick_delta CKS Theorem 7: delta = P[Y > eps sigma^2/|Delta| - |Delta|/2]
                     - e^eps P[Y > eps sigma^2/|Delta| + |Delta|/2], Y ~ N_Z(0, sigma^2), the tails summed
                     on their small side and divided by Z(0) from theta3
  eps_for_delta      the root of route B's delta(eps), in route A's root +- 1e-6 relative (refused unless
                     the sign of delta_B - delta changes across it)
  fisher             1/sigma^2 + pi^2 (theta3''/theta3 - (theta3'/theta3)^2) at pi mu (I = (log Z)'' + 1/sigma^2)

    python3 golden/generate_discrete_gaussian.py           # writes golden/discrete_gaussian.csv
    python3 golden/generate_discrete_gaussian.py -v        # also prints both routes per row
    python3 golden/generate_discrete_gaussian.py --out DIR # writes DIR/discrete_gaussian.csv instead
"""
import argparse
import csv
import os
import sys
import time

import mpmath
from mpmath import mp, mpf

DPS_A = 120
DPS_B = 80
CAP = 60
MIN_AGREE = 62
HERE = os.path.dirname(os.path.abspath(__file__))
REF = 'docs/formulas.md §14'


def fmt(v):
    with mp.workdps(DPS_A):
        s = mpmath.nstr(v, 60, min_fixed=1, max_fixed=0, strip_zeros=False)
    if 'e' not in s:
        s += 'e+0'
    return s


def raw_digits(A, B):
    with mp.workdps(DPS_A + 20):
        if A == B:
            return mpf(DPS_A)
        return -mpmath.log10(abs(A - B) / abs(A))

# ---------------------------------------------------------------------------------------------
# route A: the defining series, summed directly
# ---------------------------------------------------------------------------------------------


def half_window(sigma):
    return int(mpmath.ceil(sigma * mpmath.sqrt(2 * mpmath.log(10) * (mp.dps + 30)))) + 5


def xs(centres, sigma):
    n = half_window(sigma)
    lo = int(mpmath.floor(min(centres))) - n
    hi = int(mpmath.ceil(max(centres))) + n
    return range(lo, hi + 1)


def log_mass_fn(mu, sigma, window):
    two_s2 = 2 * sigma * sigma
    z = mpmath.fsum(mpmath.exp(-(x - mu) ** 2 / two_s2) for x in window)
    lz = mpmath.log(z)
    return lambda x: -(x - mu) ** 2 / two_s2 - lz


def delta_a(mu1, mu2, sigma, e):
    w = xs([mu1, mu2], sigma)
    l1, l2 = log_mass_fn(mu1, sigma, w), log_mass_fn(mu2, sigma, w)
    ee = mpmath.exp(e)
    return mpmath.fsum(max(mpf(0), mpmath.exp(l1(x)) - ee * mpmath.exp(l2(x))) for x in w)


def route_a(quantity, p):
    with mp.workdps(DPS_A):
        sigma = mpf(p['sigma'])
        if quantity == 'fisher':
            mu = mpf(p['mu'])
            w = xs([mu], sigma)
            lm = log_mass_fn(mu, sigma, w)
            ps = [(x, mpmath.exp(lm(x))) for x in w]
            mean = mpmath.fsum(q * x for x, q in ps)
            var = mpmath.fsum(q * (x - mean) ** 2 for x, q in ps)
            return var / sigma ** 4
        mu1, mu2 = mpf(p['mu1']), mpf(p['mu2'])
        if quantity == 'renyi':
            a = mpf(p['alpha'])
            m = a * mu1 + (1 - a) * mu2
            w = xs([mu1, mu2, m], sigma)
            l1, l2 = log_mass_fn(mu1, sigma, w), log_mass_fn(mu2, sigma, w)
            s = mpmath.fsum(mpmath.exp(a * l1(x) + (1 - a) * l2(x)) for x in w)
            return mpmath.log(s) / (a - 1)
        if quantity == 'kl':
            w = xs([mu1, mu2], sigma)
            l1, l2 = log_mass_fn(mu1, sigma, w), log_mass_fn(mu2, sigma, w)
            return mpmath.fsum(mpmath.exp(l1(x)) * (l1(x) - l2(x)) for x in w)
        if quantity == 'hockey_stick_delta':
            return delta_a(mu1, mu2, sigma, mpf(p['eps']))
        if quantity == 'eps_for_delta':
            return invert(lambda e: delta_a(mu1, mu2, sigma, e), mpf(p['delta']))
    raise ValueError(quantity)


def invert(f, target, bracket=None):
    """Smallest eps >= 0 with f(eps) <= target (f decreasing): Illinois regula falsi on
    log f - log target, bracketed by doubling (or by `bracket`), until the bracket is below
    10^-(dps - 10) relative."""
    lt = mpmath.log(target)

    def g(e):
        return mpmath.log(f(e)) - lt
    if bracket is None:
        lo, hi = mpf(0), mpf(1)
        glo = g(lo)
        if glo <= 0:
            return lo
        ghi = g(hi)
        while ghi > 0:
            lo, glo, hi = hi, ghi, 2 * hi
            ghi = g(hi)
    else:
        lo, hi = bracket
        glo, ghi = g(lo), g(hi)
        if not (glo > 0 > ghi):
            sys.exit('FATAL: route B does not change sign across route A\'s bracket')
    rtol = mpf(10) ** (-(mp.dps - 10))
    side = 0
    for _ in range(400):
        if hi - lo <= rtol * abs(hi):
            return (lo + hi) / 2
        x = hi - ghi * (hi - lo) / (ghi - glo)
        if not lo < x < hi:
            x = (lo + hi) / 2
        gx = g(x)
        if gx == 0:
            return x
        if gx > 0:
            lo, glo = x, gx
            if side == -1:
                ghi /= 2
            side = -1
        else:
            hi, ghi = x, gx
            if side == 1:
                glo /= 2
            side = 1
    sys.exit('FATAL: Illinois did not converge')

# ---------------------------------------------------------------------------------------------
# route B: theta functions and CKS Theorem 7
# ---------------------------------------------------------------------------------------------


def theta(mu, sigma, derivative=0):
    """d^k/dz^k theta3(z, q) at z = pi mu, q = exp(-2 pi^2 sigma^2)."""
    q = mpmath.exp(-2 * mpmath.pi ** 2 * sigma ** 2)
    return mpmath.jtheta(3, mpmath.pi * mu, q, derivative)


def upper_tail(t, sigma, z0):
    """P[Y > t], Y ~ N_Z(0, sigma^2), Z(0) = z0, summed on the small side."""
    two_s2 = 2 * sigma * sigma
    stop = mpf(10) ** (-(mp.dps + 30))

    def from_n(n):          # sum_{y >= n} exp(-y^2/(2 sigma^2)), n >= 0
        total, y = mpf(0), n
        while True:
            term = mpmath.exp(-mpf(y) ** 2 / two_s2)
            total += term
            if y > sigma and term < total * stop:
                return total
            y += 1
    if t >= 0:
        return from_n(int(mpmath.floor(t)) + 1) / z0
    return 1 - from_n(int(mpmath.ceil(-t))) / z0


def delta_b(mu1, mu2, sigma, e):
    d = abs(mu1 - mu2)
    z0 = sigma * mpmath.sqrt(2 * mpmath.pi) * theta(0, sigma)
    a = e * sigma ** 2 / d - d / 2
    return upper_tail(a, sigma, z0) - mpmath.exp(e) * upper_tail(a + d, sigma, z0)


def route_b(quantity, p, bracket=None):
    with mp.workdps(DPS_B):
        sigma = mpf(p['sigma'])
        if quantity == 'fisher':
            mu = mpf(p['mu'])
            t0, t1, t2 = (theta(mu, sigma, k) for k in range(3))
            return 1 / sigma ** 2 + mpmath.pi ** 2 * (t2 / t0 - (t1 / t0) ** 2)
        mu1, mu2 = mpf(p['mu1']), mpf(p['mu2'])
        d = mu1 - mu2
        if quantity == 'renyi':
            a = mpf(p['alpha'])
            m = a * mu1 + (1 - a) * mu2
            ls = (a * (a - 1) * d * d / (2 * sigma ** 2) + mpmath.log(theta(m, sigma))
                  - a * mpmath.log(theta(mu1, sigma)) - (1 - a) * mpmath.log(theta(mu2, sigma)))
            return ls / (a - 1)
        if quantity == 'kl':
            mean1 = sigma ** 2 * mpmath.pi * theta(mu1, sigma, 1) / theta(mu1, sigma)
            return (d * d + 2 * d * mean1) / (2 * sigma ** 2) + mpmath.log(theta(mu2, sigma) / theta(mu1, sigma))
        if quantity == 'hockey_stick_delta':
            return delta_b(mu1, mu2, sigma, mpf(p['eps']))
        if quantity == 'eps_for_delta':
            return invert(lambda e: delta_b(mu1, mu2, sigma, e), mpf(p['delta']), bracket)
    raise ValueError(quantity)

# ---------------------------------------------------------------------------------------------
# rows
# ---------------------------------------------------------------------------------------------

PAIRS = {
    # name: (mu1, mu2, sigma)
    'A': ('0', '1', '1'),
    'B': ('0', '1', '0.5'),
    'C': ('3', '-2', '2.5'),
    'D': ('0', '1', '10'),
    'E': ('5', '7', '0.3'),
    'F': ('-4', '-1', '1.7'),
    'G': ('100', '99', '40'),
}
# alpha * Delta an integer (A at 2, 3, 10, 100; B at 2, 10; C at 2; E at 1.5, 3) is CKS's equality case
# D = alpha Delta^2/(2 sigma^2); elsewhere D is below it by log(theta(alpha Delta)/theta(0))/(alpha - 1), which is
# about -4 exp(-2 pi^2 sigma^2) sin^2(pi alpha Delta)/(alpha - 1): visible in 60 digits for sigma <~ 2 only.
RENYI = [('A', a) for a in ['1.001', '1.5', '2', '3', '10', '100']] + \
        [('B', a) for a in ['1.001', '1.5', '2', '10']] + \
        [('C', a) for a in ['1.001', '2', '5.1']] + \
        [('D', a) for a in ['1.5', '2', '3.3']] + \
        [('E', '1.25'), ('E', '1.5'), ('E', '3'), ('F', '2.2'), ('F', '7'), ('G', '1.01'), ('G', '2')]
KL = ['A', 'B', 'C', 'D', 'E', 'F', 'G']
HS = [('A', '0'), ('A', '0.5'), ('A', '1.5'), ('A', '10'), ('B', '1'), ('C', '0'), ('C', '0.2'),
      ('D', '0.01'), ('E', '3'), ('F', '0.7'), ('G', '0.0005')]
EPS = [('A', '0.00001'), ('C', '0.000001'), ('D', '0.01'), ('G', '0.001')]
FISHER = [('0', '1'), ('0.5', '1'), ('0.3', '0.7'), ('2.25', '0.5'), ('0', '0.3'), ('0.1', '0.4'), ('7', '3')]


def pair_params(name):
    mu1, mu2, s = PAIRS[name]
    return {'mu1': mu1, 'mu2': mu2, 'sigma': s}


def build_rows():
    rows = []

    def add(prefix, quantity, params):
        n = sum(1 for r in rows if r['prefix'] == prefix) + 1
        rows.append(dict(id='%s-%03d' % (prefix, n), prefix=prefix, quantity=quantity, params=params))

    for name, a in RENYI:
        add('dg-ren', 'renyi', dict(pair_params(name), alpha=a))
    for name in KL:
        add('dg-kl', 'kl', pair_params(name))
    for name, e in HS:
        add('dg-hs', 'hockey_stick_delta', dict(pair_params(name), eps=e))
    for name, d in EPS:
        add('dg-efd', 'eps_for_delta', dict(pair_params(name), delta=d))
    for mu, s in FISHER:
        add('dg-fis', 'fisher', {'mu': mu, 'sigma': s})
    return rows


SOURCES = {
    'renyi': 'direct sum dps120 of p1^a p2^(1-a) vs theta3 (Poisson) form with completed square dps80',
    'kl': 'direct sum dps120 of p1 log(p1/p2) vs (Delta^2 + 2 Delta E[X-mu1])/(2 sigma^2) + log Z2/Z1 by theta3 dps80',
    'hockey_stick_delta': 'direct sum dps120 of (p1 - e^eps p2)_+ vs CKS Theorem 7 tails dps80',
    'eps_for_delta': 'root of the direct-sum delta(eps) dps120 vs root of CKS Theorem 7 delta(eps) dps80',
    'fisher': 'two-pass direct Var/sigma^4 dps120 vs 1/sigma^2 + (log theta3)\'\' dps80',
}


def params_str(params):
    return ';'.join('%s=%s' % (k, v) for k, v in params.items())


def sanity():
    """Route A's Renyi sum hits CKS's equality case and route B's KL the exact Delta^2/(2 sigma^2)."""
    p = dict(mu1='0', mu2='1', sigma='1', alpha='2')
    with mp.workdps(DPS_A):
        if abs(route_a('renyi', p) - 1) > mpf(10) ** -100:
            sys.exit('FATAL: route A Renyi misses D_2 = 1 at Delta = sigma = 1')
    with mp.workdps(DPS_B):
        if abs(route_b('kl', dict(mu1='3', mu2='-2', sigma='2.5')) - mpf(25) / mpf('12.5')) > mpf(10) ** -70:
            sys.exit('FATAL: route B KL misses Delta^2/(2 sigma^2)')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', default=None, help='output directory (default: golden/ next to this script)')
    ap.add_argument('-v', action='store_true')
    args = ap.parse_args()
    t0 = time.time()
    sanity()
    rows = build_rows()
    lines, raws, bad = [], [], []
    for r in rows:
        t1 = time.time()
        A = route_a(r['quantity'], r['params'])
        bracket = None
        if r['quantity'] == 'eps_for_delta':
            with mp.workdps(DPS_B):
                bracket = (A * (1 - mpf('1e-6')), A * (1 + mpf('1e-6')))
        B = route_b(r['quantity'], r['params'], bracket)
        raw = raw_digits(A, B) if (A != 0 and mpmath.isfinite(A) and mpmath.isfinite(B)) else mpf(0)
        dg = max(0, min(CAP, int(mpmath.floor(raw)))) if raw > 0 else 0
        line = dict(id=r['id'], quantity=r['quantity'], family='discrete_gaussian',
                    params=params_str(r['params']), value=fmt(A), digits=dg,
                    source='%s (%s)' % (SOURCES[r['quantity']], REF))
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
        print('FATAL: routes agree to fewer than %d digits for: %s' % (MIN_AGREE, ' '.join(bad)), file=sys.stderr)
        sys.exit(1)
    outdir = args.out or HERE
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'discrete_gaussian.csv'), 'w', newline='') as fh:
        w = csv.DictWriter(fh, fieldnames=['id', 'quantity', 'family', 'params', 'value', 'digits', 'source'],
                           lineterminator='\n')
        w.writeheader()
        for line in lines:
            w.writerow(line)
    ds = sorted(l['digits'] for l in lines)
    rs = sorted(raws)
    print('discrete_gaussian.csv: rows=%d  min digits=%d  (uncapped agreement: min %.1f, median %.1f)  %.1f s' % (
        len(lines), ds[0], rs[0], rs[len(rs) // 2], time.time() - t0))


if __name__ == '__main__':
    main()
