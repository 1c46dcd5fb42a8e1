"""Golden one- and two-step (T = 1, 2) figures of the Poisson-subsampled Gaussian, add/remove neighbours.

Pair (docs/accounting.md#model): P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2), likelihood
ratio r(x) = 1 - q + q exp((x - 1/2)/s^2). Two steps, mechanism = max of the two directions:

  remove: delta(eps) = E_{Q x Q}[(r(x) r(y) - e^eps)_+]
  add:    delta(eps) = E_{P x P}[(1/(r(x) r(y)) - e^eps)_+] = E_{Q x Q}[(1 - e^eps r(x) r(y))_+]

Independent of the Rust route (src/accounting/compose/nested.rs conditions on the first step
under P and uses the single-step profile in the Mills-ratio form q[Phi_bar(..) - e^t Phi_bar(..)]
in log space): here the outer integral is over Q's density, the inner one over y is written
directly as r(x) [(1-q) Phi_bar(y*/s) + q Phi_bar((y*-1)/s)] - e^eps Phi_bar(y*/s) (remove) or
Phi(y°/s) - e^eps r(x) [(1-q) Phi(y°/s) + q Phi((y°-1)/s)] (add), with y* (y°) the level point
of r(y) = e^eps / r(x) (r(y) = e^-eps / r(x)); the outer integral is mpmath.quad (tanh-sinh) split at the points where
the inner region becomes the whole line or empty, and at 0, 1/2, 1.
One step (T = 1): delta(eps) = max(E_Q[(r - e^eps)_+], E_Q[(1 - e^eps r)_+]) by mpmath.quad of
the positive parts directly.
eps(delta) is the root of ln delta(eps) = ln delta (the mechanism's delta, decreasing), by
mpmath.findroot (secant) from a bracket found by doubling.

Every row is computed at dps 40 and dps 60 and written only if the two agree to >= 25 digits;
the CSV records 25 digits and the method.
Run: python3 golden/generate_small_t.py   (pip install mpmath; version recorded in the CSV)
"""
import csv
import sys

import mpmath as mp

CASES = [  # quantity, q, sigma, steps, param
    ("delta_for_eps", "0.5", "2", 2, "1"),
    ("delta_for_eps", "0.5", "2", 2, "3"),
    ("eps_for_delta", "0.5", "2", 2, "1e-5"),
    ("delta_for_eps", "0.01", "1", 2, "0.05"),
    ("eps_for_delta", "0.01", "1", 2, "1e-5"),
    ("eps_for_delta", "0.04", "1.5", 1, "1e-5"),
    ("delta_for_eps", "0.001", "0.6", 1, "0.01"),
]


def r(x, q, s):
    return 1 - q + q * mp.exp((x - mp.mpf(1) / 2) / s**2)


def level(target, q, s):
    """y with r(y) = target (target > 1 - q): y = 1/2 + s^2 ln((target - (1 - q))/q)."""
    return mp.mpf(1) / 2 + s**2 * mp.log((target - (1 - q)) / q)


def phibar(z):
    return mp.ncdf(-z)


def delta_remove(eps, q, s):
    E = mp.exp(eps)

    def inner(x):
        rx = r(x, q, s)
        t = E / rx
        if t <= 1 - q:
            return rx - E
        y = level(t, q, s)
        return rx * ((1 - q) * phibar(y / s) + q * phibar((y - 1) / s)) - E * phibar(y / s)

    # inner region is the whole line from the point where r(x) = e^eps/(1-q)
    xk = level(E / (1 - q), q, s)
    pts = sorted(set([-mp.inf, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), xk, mp.inf]))
    return mp.quad(lambda x: mp.npdf(x, 0, s) * inner(x), pts)


def delta_add(eps, q, s):
    E = mp.exp(eps)
    if E * (1 - q) ** 2 >= 1:
        return mp.mpf(0)

    def inner(x):
        rx = r(x, q, s)
        t = 1 / (E * rx)
        if t <= 1 - q:
            return mp.mpf(0)
        y = level(t, q, s)
        return mp.ncdf(y / s) - E * rx * ((1 - q) * mp.ncdf(y / s) + q * mp.ncdf((y - 1) / s))

    # inner region empty from the point where r(x) = e^-eps/(1-q)
    xa = level(1 / (E * (1 - q)), q, s)
    pts = sorted(set([-mp.inf, min(mp.mpf(0), xa - 1), xa]))
    return mp.quad(lambda x: mp.npdf(x, 0, s) * inner(x), pts)


def delta1(eps, q, s):
    """One step: max of E_Q[(r - e^eps)_+] and E_Q[(1 - e^eps r)_+], each by mpmath.quad of the
    positive part, split at the level point."""
    E = mp.exp(eps)
    rm = mp.quad(lambda x: mp.npdf(x, 0, s) * max(r(x, q, s) - E, 0),
                 sorted(set([-mp.inf, level(E, q, s) if E > 1 - q else mp.mpf(0), mp.inf])))
    if E * (1 - q) >= 1:
        return rm
    ad = mp.quad(lambda x: mp.npdf(x, 0, s) * max(1 - E * r(x, q, s), 0),
                 [-mp.inf, level(1 / E, q, s), mp.inf])
    return max(rm, ad)


STEPS = [2]


def delta(eps, q, s):
    if STEPS[0] == 1:
        return delta1(eps, q, s)
    return max(delta_remove(eps, q, s), delta_add(eps, q, s))


def eps_for_delta(d, q, s):
    lo, hi = mp.mpf(0), mp.mpf(1)
    while delta(hi, q, s) > d:
        lo, hi = hi, 2 * hi
    ld = mp.log(d)
    return mp.findroot(lambda e: mp.log(delta(e, q, s)) - ld, (lo + (hi - lo) / 3, hi - (hi - lo) / 3),
                       solver="secant", tol=mp.mpf(10) ** (-2 * mp.mp.dps + 10))


def value(quantity, q, s, steps, param, dps):
    mp.mp.dps = dps
    STEPS[0] = steps
    q, s, x = mp.mpf(q), mp.mpf(s), mp.mpf(param)
    if quantity == "delta_for_eps":
        return delta(x, q, s)
    return eps_for_delta(x, q, s)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "golden/accounting/small_t.csv"
    rows = []
    for quantity, q, s, steps, param in CASES:
        a = value(quantity, q, s, steps, param, 40)
        b = value(quantity, q, s, steps, param, 60)
        mp.mp.dps = 60
        agree = -mp.log10(abs(a - b) / abs(b)) if a != b else 60
        print(quantity, q, s, steps, param, mp.nstr(b, 30), "agree", mp.nstr(agree, 4), flush=True)
        if agree < 25:
            raise SystemExit(f"dps 40 and 60 agree to {agree} digits only")
        rows.append([quantity, q, s, steps, param, mp.nstr(b, 30, min_fixed=0, max_fixed=0), 25,
                     "mpmath 2-D (inner closed form in ncdf, outer quad) dps40 vs dps60"])
    with open(out, "w", newline="") as fh:
        fh.write(f"# generated by golden/generate_small_t.py, mpmath {mp.__version__}\n")
        w = csv.writer(fh)
        w.writerow(["quantity", "q", "sigma", "steps", "param", "value", "digits", "source"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
