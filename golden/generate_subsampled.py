"""Golden single-step Renyi divergences of the Poisson-subsampled Gaussian (add/remove).

Independent of the Rust code: mpmath at 60 digits, two ways where possible.
  * remove order, integer alpha: binomial sum (Mironov, Talwar & Zhang 2019, sec. 3.3)
    E_Q[r^a] = sum_k C(a,k) (1-q)^(a-k) q^k exp((k^2-k)/(2 s^2)), D = log(E)/(a-1);
  * every row also by mpmath.quad of E_Q[r^beta] over the real line (beta = a for remove,
    1 - a for add), with breakpoints at 0, 1/2, 1, a*s^2; a row is written only if the two
    mpmath evaluations (dps 60 and dps 80 quadrature) agree to >= 40 digits.
Output: golden/accounting/subsampled_rdp.csv with the digits certified (40) and the method.
Run: /work/venv/bin/python golden/generate_subsampled.py
"""
import csv
import mpmath as mp

CASES = [
    # q, sigma, alpha, order
    ("0.04", "1.5", "3", "remove"),
    ("0.04", "1.5", "8", "remove"),
    ("0.01", "1", "32", "remove"),
    ("0.01", "1", "32", "add"),
    ("0.01", "1", "2", "add"),
    ("0.04", "1.5", "9.5", "remove"),
    ("0.04", "1.5", "9.5", "add"),
    ("0.01", "1", "1.001", "remove"),
    ("0.01", "1", "1.001", "add"),
    ("0.1", "0.8", "2.5", "remove"),
    ("0.1", "0.8", "2.5", "add"),
    ("0.5", "2", "256", "remove"),
    ("0.001", "5", "12.25", "remove"),
]


def moment_quad(q, s, beta, a, dps):
    with mp.workdps(dps):
        q, s, beta, a = mp.mpf(q), mp.mpf(s), mp.mpf(beta), mp.mpf(a)

        def f(x):
            r = 1 + q * mp.expm1((2 * x - 1) / (2 * s * s))
            # h = r^beta - 1 - beta (r - 1) >= 0; integrate it (E_Q[r - 1] = 0).
            h = r ** beta - 1 - beta * (r - 1)
            return mp.npdf(x, 0, s) * h

        pk = max(a * s * s, 1)
        pts = [-mp.inf, -10 * s, 0, mp.mpf(1) / 2, 1, pk, pk + 10 * s, pk + 40 * s, mp.inf]
        pts = sorted(set(pts))
        return mp.quad(f, pts, maxdegree=12)


def moment_binom(q, s, n, dps):
    with mp.workdps(dps):
        q, s = mp.mpf(q), mp.mpf(s)
        return mp.fsum(
            mp.binomial(n, k) * (1 - q) ** (n - k) * q ** k * mp.expm1((k * k - k) / (2 * s * s))
            for k in range(2, n + 1)
        )


def main():
    rows = []
    for q, s, a, order in CASES:
        with mp.workdps(100):
            # exact decimal: 1 - alpha formed at 100 digits from the decimal string
            beta = a if order == "remove" else mp.nstr(1 - mp.mpf(a), 90)
        e1 = moment_quad(q, s, beta, a, 60)
        e2 = moment_quad(q, s, beta, a, 80)
        with mp.workdps(80):
            d1 = mp.log1p(e1) / (mp.mpf(a) - 1)
            d2 = mp.log1p(e2) / (mp.mpf(a) - 1)
            agree = -mp.log10(abs(d1 - d2) / abs(d2)) if d1 != d2 else 80
            method = "mpmath quad dps60 vs dps80"
            if order == "remove" and mp.mpf(a) == int(mp.mpf(a)):
                eb = moment_binom(q, s, int(a), 80)
                db = mp.log1p(eb) / (mp.mpf(a) - 1)
                agree = min(agree, -mp.log10(abs(db - d2) / abs(db)) if db != d2 else 80)
                method = "mpmath binomial sum vs quad"
            assert agree >= 40, (q, s, a, order, agree)
            rows.append((q, s, a, order, mp.nstr(d2, 45, min_fixed=1, max_fixed=0), 40, method))
    with open("golden/accounting/subsampled_rdp.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["q", "sigma", "alpha", "order", "renyi", "digits", "source"])
        w.writerows(rows)


if __name__ == "__main__" and len(__import__("sys").argv) == 1:
    main()


def full_batch():
    """q = 1: T steps = Gaussian mechanism with mu = sqrt(T)/sigma (Balle & Wang 2018, Thm 8).
    eps(delta) by mpmath bisection at dps 60, checked against dps 80 (>= 45 digits)."""
    rows = []
    for sigma, steps, delta in [("10", 1000, "1e-5"), ("1", 1, "1e-5"), ("2", 100, "1e-10")]:
        vals = []
        for dps in (60, 80):
            with mp.workdps(dps):
                mu = mp.sqrt(steps) / mp.mpf(sigma)
                d = mp.mpf(delta)
                f = lambda e: mp.ncdf(mu / 2 - e / mu) - mp.exp(e) * mp.ncdf(-mu / 2 - e / mu) - d
                lo, hi = mp.mpf(0), mp.mpf(100)  # f decreasing in eps; plain bisection
                for _ in range(4 * dps):
                    mid = (lo + hi) / 2
                    lo, hi = (mid, hi) if f(mid) > 0 else (lo, mid)
                vals.append((lo + hi) / 2)
        with mp.workdps(80):
            assert -mp.log10(abs(vals[0] - vals[1]) / vals[1]) >= 45
            rows.append((sigma, steps, delta, mp.nstr(vals[1], 45), 40, "mpmath bisection dps60 vs dps80"))
    with open("golden/accounting/subsampled_full_batch.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["sigma", "steps", "delta", "eps", "digits", "source"])
        w.writerows(rows)


if __name__ == "__main__" and len(__import__("sys").argv) > 1:
    full_batch()
