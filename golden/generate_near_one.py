"""Golden eps(delta) near delta = 1 for the Poisson-subsampled Gaussian, add/remove neighbours
(docs/accounting.md#complement): q = 0.5, sigma = 1, T = 1000, delta = 1 - 1e-12.

Pair (docs/accounting.md#model): P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2), r = dP/dQ,
r(x) = 1 - q + q exp((x - 1/2)/s^2). For the remove direction, with R the product of T
independent r(X_i), X_i ~ Q,

  1 - delta(eps) = E_Q[min(R, e^eps)]

(E_Q[R] = 1), and min(x, y) = -(1/2 pi i) int_{Re b = a} x^b y^(1-b) / (b (b - 1)) db for any
0 < a < 1 (the residue at b = 1 is x), so

  1 - delta(eps) = -(1/pi) int_0^inf Re[ M(a+iu)^T e^{(1-a-iu) eps} / ((a+iu)(a-1+iu)) ] du,

M(b) = E_Q[r^b], here by mpmath.quad over x for each complex b, and the u-integral by mpmath.quad
on panels of the integrand's width. The add direction is the same with M(1 - b) (its pair is
(Q, P)). The script first checks its own inversion on the Gaussian mechanism N(0,1) vs N(mu,1)
(mu = 3, eps = 1), whose delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (Balle &
Wang 2018, Thm 8) gives 1 - delta in closed form (`gauss_check`).

eps is the root of 1 - delta_remove(eps) = 1e-12 by Newton steps (the derivative is the same
integral with 1/(a+iu) in place of 1/((a+iu)(a-1+iu)), up to sign). The line a is the minimiser of
M(a)^T e^{(1-a) eps} at the first estimate, fixed afterwards so that the moments are reused.
Shares no code with dpaudit's route (a trapezoid rule with a-priori error bounds, MPFR moments on
its own grids, its own choice of line and strip).

Each case is computed at dps 25 and dps 35 and written only if the two agree to >= 20 digits; the
CSV records 20 (rounded to nearest: the value is within half a unit of the 20th digit, plus the
agreement). Run: python3 golden/generate_near_one.py (pip install mpmath; a few minutes).
"""
import csv
import sys
from fractions import Fraction

import mpmath as mp

CASES = [("0.5", "1", 1000, "0.999999999999")]  # q, sigma, steps, delta (exact decimal)
OUT = __file__.rsplit("/", 1)[0] + "/accounting/near_one.csv"


class Moments:
    """M(b) = E_Q[r^b] of one (q, sigma), cached by b (the u-nodes repeat across Newton steps)."""

    def __init__(self, q, s):
        self.q, self.s, self.cache = q, s, {}

    def __call__(self, b):
        key = (mp.nstr(b.real, mp.mp.dps + 5), mp.nstr(b.imag, mp.mp.dps + 5))
        if key not in self.cache:
            q, s = self.q, self.s

            def f(x):
                lr = mp.log1p(q * mp.expm1((x - mp.mpf(1) / 2) / s**2))
                return mp.npdf(x, 0, s) * mp.exp(b * lr)

            self.cache[key] = mp.quad(f, [-mp.inf, -4 * s, 0, mp.mpf(1) / 2, 1, 4 * s + 1, mp.inf])
        return self.cache[key]


def complement(lnm, T, eps, a, width, deriv=False):
    """1 - delta(eps) (or its derivative in eps) from ln M by the inversion on Re b = a."""

    def g(u):
        b = mp.mpc(a, u)
        v = mp.exp(T * lnm(b) + (1 - b) * eps)
        v = v * (1 - b) / (b * (b - 1)) if deriv else v / (b * (b - 1))
        return -mp.re(v) / mp.pi

    panels = [mp.mpf(0)] + [width * k for k in (1, 2, 3, 4, 6, 8, 11, 15, 20, 30)] + [mp.inf]
    return mp.quad(g, panels)


def width_of(lnm, T, a):
    """The u-width of |M(a+iu)^T|: 1/sqrt(T * curvature of ln M at a)."""
    h = mp.mpf("1e-4")
    c = (lnm(mp.mpf(a) + h) - 2 * lnm(mp.mpf(a)) + lnm(mp.mpf(a) - h)) / h**2
    return 1 / mp.sqrt(T * mp.re(c))


def line(lnm, T, eps):
    """The a in (0, 1) minimising T ln M(a) + (1 - a) eps (golden section on the real line)."""
    f = lambda a: mp.re(T * lnm(mp.mpf(a))) + (1 - a) * eps  # noqa: E731
    lo, hi = mp.mpf("0.001"), mp.mpf("0.999")
    r = (mp.sqrt(5) - 1) / 2
    for _ in range(40):
        c, d = hi - r * (hi - lo), lo + r * (hi - lo)
        if f(c) < f(d):
            hi = d
        else:
            lo = c
    return mp.mpf(mp.nstr((lo + hi) / 2, 4))


def solve(lnm, T, gamma, eps0):
    """eps with 1 - delta(eps) = gamma: Newton steps on ln(1 - delta)."""
    a = line(lnm, T, eps0)
    w = width_of(lnm, T, a)
    eps = mp.mpf(eps0)
    for _ in range(30):
        v = complement(lnm, T, eps, a, w)
        dv = complement(lnm, T, eps, a, w, deriv=True)
        step = (mp.log(v) - mp.log(gamma)) * v / dv
        eps -= step
        if abs(step) < mp.mpf(10) ** (-mp.mp.dps + 4) * (1 + abs(eps)):
            return eps, a
    raise RuntimeError("Newton did not converge")


def gauss_check():
    """The script's inversion against the Gaussian closed form: N(0,1) vs N(mu,1) has
    M(b) = exp(b(b-1) mu^2/2) and 1 - delta(eps) = 1 - [Phi(-eps/mu + mu/2)
    - e^eps Phi(-eps/mu - mu/2)]."""
    mu, eps = mp.mpf(3), mp.mpf(1)
    lnm = lambda b: b * (b - 1) * mu**2 / 2  # noqa: E731
    exact = 1 - (mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2))
    a = line(lnm, 1, eps)
    got = complement(lnm, 1, eps, a, width_of(lnm, 1, a))
    rel = abs(got / exact - 1)
    assert rel < mp.mpf(10) ** (-mp.mp.dps + 3), (got, exact)
    return rel


def run(dps):
    mp.mp.dps = dps
    rel = gauss_check()
    out = []
    for qs, ss, T, ds in CASES:
        # 1 - delta from the exact decimal (mpf(delta) would keep only dps digits of it).
        g = 1 - Fraction(ds)
        q, s, gamma = mp.mpf(qs), mp.mpf(ss), mp.mpf(g.numerator) / g.denominator
        m = Moments(q, s)
        rm = lambda b: mp.log(m(b))  # noqa: E731
        ad = lambda b: mp.log(m(1 - b))  # noqa: E731
        # A start near the answer (any value where the integrand is representable).
        eps, a = solve(rm, T, gamma, mp.mpf(12))
        # The add direction at eps: 1 - delta_add(eps) >= gamma means delta_add(eps) <= delta,
        # so eps_add(delta) <= eps and the mechanism's eps(delta) is the remove direction's.
        a_add = line(ad, T, eps)
        g_add = complement(ad, T, eps, a_add, width_of(ad, T, a_add))
        out.append((qs, ss, T, ds, eps, a, g_add, gamma))
    return rel, out


def main():
    runs = [run(25), run(35)]
    rows = []
    (rel25, c25), (rel35, c35) = runs
    for x, y in zip(c25, c35):
        agree = abs(x[4] / y[4] - 1)
        assert agree < mp.mpf("1e-20"), (x[4], y[4])
        assert y[6] > y[7], "the add direction would dominate"
        rows.append(
            {
                "q": y[0],
                "sigma": y[1],
                "steps": y[2],
                "delta": y[3],
                "eps_remove": mp.nstr(y[4], 20, min_fixed=-1, max_fixed=4),
                "digits": 20,
                "line_a": mp.nstr(y[5], 4),
                "add_complement_at_eps": mp.nstr(y[6], 6),
                "dps25_dps35_rel_diff": mp.nstr(agree, 3),
                "mpmath": mp.__version__,
            }
        )
        print(rows[-1], file=sys.stderr)
    print(f"gaussian self-check: rel err {mp.nstr(rel25, 3)} (dps 25), {mp.nstr(rel35, 3)} (dps 35)",
          file=sys.stderr)
    tmp = OUT + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    import os

    os.replace(tmp, OUT)


if __name__ == "__main__":
    main()
