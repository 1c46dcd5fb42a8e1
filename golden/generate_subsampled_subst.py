"""Golden single-step figures of the Poisson-subsampled Gaussian under substitution neighbours.

Pair (docs/accounting.md#substitution): P = (1-q) N(0, s^2) + q N(1, s^2) against
Q = (1-q) N(0, s^2) + q N(-1, s^2). Symmetric (Q is P reflected), so one order.

Independent of the Rust code (which integrates log densities with its own tanh-sinh rule and
finds the hockey-stick region from a quadratic in e^{x/s^2}):
  * renyi: log(1 + E) / (a - 1) with E = E_Q[(P/Q)^a] - 1 = int Q h_a(P/Q - 1),
    h_a(u) = (1+u)^a - 1 - a u >= 0 (E_Q[P/Q - 1] = 0), by mpmath.quad over the real line with
    breakpoints at -1, 0, 1, a s^2 and the mass beyond;
  * kl: int P log(P/Q) by mpmath.quad;
  * hockey_stick_delta: delta(eps) = P(X > x*) - e^eps Q(X > x*) in Gaussian cdfs, x* the unique
    root of log(P/Q)(x) = eps found by mpmath bisection on the log-ratio itself (it is increasing);
  * eps_for_delta: bisection of eps on that delta(eps) (decreasing);
  * composed eps_for_delta for q = 1 (Gaussian mechanism with sensitivity 2, mu = 2 sqrt(T)/s,
    Balle & Wang 2018 Thm 8 with Dong, Roth & Su 2022 Cor. 3.3) by bisection.
Every row is computed at dps 60 and dps 80 and written only if the two agree to >= 40 digits;
the CSV records 40 certified digits and the method.
Run: /work/venv/bin/python golden/generate_subsampled_subst.py   (mpmath version recorded below)
"""
import csv
import mpmath as mp

RENYI = [  # q, sigma, alpha
    ("0.01", "1", "2"),
    ("0.01", "1", "8"),
    ("0.1", "1", "1.5"),
    ("0.1", "1", "8"),
    ("0.04", "1.5", "9.5"),
    ("0.5", "2", "4"),
    ("0.2", "0.8", "3"),
    ("0.001", "5", "12.25"),
]
KL = [("0.01", "1"), ("0.1", "1"), ("0.5", "2")]
HOCKEY = [("0.1", "1", "1"), ("0.01", "1", "0.1"), ("0.5", "2", "0.5"), ("0.2", "0.8", "2")]
EPS = [("0.1", "1", "1e-5"), ("0.01", "1", "1e-6"), ("0.5", "2", "1e-3")]
COMPOSED_Q1 = [("4", 100, "1e-5"), ("10", 1000, "1e-5")]  # sigma, steps, delta


def dens(q, s):
    def P(x):
        return (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, 1, s)

    def Q(x):
        return (1 - q) * mp.npdf(x, 0, s) + q * mp.npdf(x, -1, s)

    return P, Q


def renyi(q, s, a, dps):
    with mp.workdps(dps):
        q, s, a = mp.mpf(q), mp.mpf(s), mp.mpf(a)
        P, Q = dens(q, s)

        def f(x):
            qx = Q(x)
            u = (P(x) - qx) / qx
            return qx * ((1 + u) ** a - 1 - a * u)

        pk = max(a * s * s, 1)
        pts = sorted(set([-mp.inf, -1 - 12 * s, -1, 0, 1, pk, pk + 12 * s, pk + 40 * s, mp.inf]))
        e = mp.quad(f, pts, maxdegree=12)
        return mp.log1p(e) / (a - 1)


def kl(q, s, dps):
    with mp.workdps(dps):
        q, s = mp.mpf(q), mp.mpf(s)
        P, Q = dens(q, s)
        pts = [-mp.inf, -1 - 12 * s, -1, 0, 1, 1 + 12 * s, mp.inf]
        return mp.quad(lambda x: P(x) * mp.log(P(x) / Q(x)), pts, maxdegree=12)


def delta_of(q, s, eps):
    """At the current precision, mpf arguments."""
    P, Q = dens(q, s)
    llr = lambda x: mp.log(P(x)) - mp.log(Q(x))
    lo, hi = mp.mpf(-1), mp.mpf(1)
    while llr(lo) > eps:
        lo *= 2
    while llr(hi) < eps:
        hi *= 2
    for _ in range(int(3.5 * mp.mp.dps) + 20):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if llr(mid) < eps else (lo, mid)
    x = (lo + hi) / 2
    sfP = (1 - q) * mp.ncdf(-x / s) + q * mp.ncdf(-(x - 1) / s)
    sfQ = (1 - q) * mp.ncdf(-x / s) + q * mp.ncdf(-(x + 1) / s)
    return sfP - mp.exp(eps) * sfQ


def hockey(q, s, eps, dps):
    with mp.workdps(dps):
        return delta_of(mp.mpf(q), mp.mpf(s), mp.mpf(eps))


def eps_for(q, s, delta, dps):
    with mp.workdps(dps):
        q, s, d = mp.mpf(q), mp.mpf(s), mp.mpf(delta)
        lo, hi = mp.mpf(0), mp.mpf(1)
        while delta_of(q, s, hi) > d:
            hi *= 2
        for _ in range(int(3.5 * dps) + 20):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if delta_of(q, s, mid) > d else (lo, mid)
        return (lo + hi) / 2


def composed_q1(s, steps, delta, dps):
    with mp.workdps(dps):
        mu = 2 * mp.sqrt(steps) / mp.mpf(s)
        d = mp.mpf(delta)
        f = lambda e: mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu) - d
        lo, hi = mp.mpf(0), mp.mpf(200)
        for _ in range(4 * dps):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
        return (lo + hi) / 2


def agree(a, b):
    with mp.workdps(90):
        return 90 if a == b else -mp.log10(abs(a - b) / abs(b))


def main():
    rows = []

    def add(quantity, q, s, steps, param, fn, method):
        v1, v2 = fn(60), fn(80)
        g = agree(v1, v2)
        assert g >= 40, (quantity, q, s, param, float(g))
        with mp.workdps(80):
            rows.append((quantity, q, s, steps, param, mp.nstr(v2, 45, min_fixed=1, max_fixed=0),
                         40, method))

    for q, s, a in RENYI:
        add("renyi", q, s, 1, f"alpha={a}", lambda d: renyi(q, s, a, d), "mpmath quad dps60 vs dps80")
    for q, s in KL:
        add("kl", q, s, 1, "", lambda d: kl(q, s, d), "mpmath quad dps60 vs dps80")
    for q, s, e in HOCKEY:
        add("hockey_stick_delta", q, s, 1, f"eps={e}", lambda d: hockey(q, s, e, d),
            "Gaussian cdfs at the bisected level point, dps60 vs dps80")
    for q, s, de in EPS:
        add("eps_for_delta", q, s, 1, f"delta={de}", lambda d: eps_for(q, s, de, d),
            "bisection on the cdf form of delta(eps), dps60 vs dps80")
    for s, t, de in COMPOSED_Q1:
        add("eps_for_delta", "1", s, t, f"delta={de}", lambda d: composed_q1(s, t, de, d),
            "q=1: Gaussian mu=2sqrt(T)/sigma, bisection dps60 vs dps80")
    with open("golden/accounting/subsampled_subst.csv", "w", newline="") as fh:
        fh.write(f"# generated by golden/generate_subsampled_subst.py, mpmath {mp.__version__}\n")
        w = csv.writer(fh)
        w.writerow(["quantity", "q", "sigma", "steps", "param", "value", "digits", "source"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
