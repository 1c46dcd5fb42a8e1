"""Golden three-step (T = 3) figures of the Poisson-subsampled Gaussian, add/remove neighbours, for
the inversion route at small q (docs/accounting.md#fast-inner).

Pair (docs/accounting.md#model): P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2), r(x) = P/Q(x).
Three steps, mechanism = max of the two directions, each a 3-D integral over Q x Q x Q:

  remove: delta3(eps) = E_Q[ r(x) * delta2_remove(eps - ln r(x)) ]
  add:    delta3(eps) = E_Q[ delta2_add(eps + ln r(x)) ]

where delta2_remove(c) = E_{QxQ}[(r(y) r(z) - e^c)_+] and delta2_add(c) = E_{QxQ}[(1 - e^c r(y) r(z))_+]
are the two-step integrals of golden/generate_small_t.py (inner z-integral in closed form with ncdf,
y by mpmath.quad), extended to every real c (delta2_remove(c) = 1 - e^c when e^c <= (1-q)^2, since
then r(y) r(z) >= e^c everywhere and E[r r] = 1). The outer x-integral is mpmath.quad split at the
points where the inner integrand changes form. Nothing here shares code with the Rust route (an
MGF inversion: a trapezoid rule along Re s = a of the product of single-step moments).

Every row is computed at two precisions (dps 25 and dps 30) and written only if they agree to
>= 21 digits; the CSV records 20 digits.
Run: python3 golden/generate_t3.py   (pip install mpmath; version recorded in the CSV; tens of
minutes). `--append 1,2 16 20` computes the later cases at dps 16 and 20 and appends them. `--dps N` computes one precision and prints it, to run the two precisions as two
processes.
"""
import csv
import sys

import mpmath as mp

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import generate_small_t as two  # noqa: E402  (the two-step integrals)

CASES = [  # quantity, q, sigma, steps, param
    ("delta_for_eps", "0.01", "1", 3, "0.3"),
    # Added for the double-precision T = 3 route (docs/accounting.md#small-t3), at dps 16 and 20:
    # a large q and a large sigma, and a small sigma far in the tail.
    ("delta_for_eps", "0.5", "2", 3, "1"),
    ("delta_for_eps", "0.1", "0.6", 3, "6"),
]
# Not a reference: far in the tail, q = 0.5, s = 2, delta(30), this script's dps 16 and dps 20 agree
# to 16 digits on 8.79499292678957e-296, yet the value is about 3x too large: dpaudit's inversion
# (a-priori error bounds, a different algorithm) certifies [2.9416e-296, 2.9808e-296] and the
# double-precision nested route gives 2.96116360e-296 (docs/accounting.md#small-t3). The outer
# mpmath.quad on [1, x_k] (x_k ~ 128) meets a peak of width ~2 near x ~ 43 and an inner integrand
# of the same kind; agreement of two precisions with the same nodes is not a certificate there.
# (eps_for_delta would need ~8 such integrals per precision; each delta takes ~4 minutes at dps 15
# on this machine, so the reference is delta(eps) at an eps near the eps(1e-5) = 0.2753...)


def delta2_remove(c, q, s):
    if mp.exp(c) <= (1 - q) ** 2:
        return 1 - mp.exp(c)
    return two.delta_remove(c, q, s)


def delta2_add(c, q, s):
    return two.delta_add(c, q, s)


def x_of_lnr(v, q, s):
    """x with ln r(x) = v (v > ln(1 - q))."""
    return two.level(mp.exp(v), q, s)


def delta3_remove(eps, q, s):
    ln1q = mp.log(1 - q)
    pts = [-mp.inf, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), mp.inf]
    # c = eps - ln r(x) crosses 2 ln(1-q) and ln(1-q) (where the inner integrals change form).
    for v in (eps - 2 * ln1q, eps - ln1q):
        if v > ln1q:
            pts.append(x_of_lnr(v, q, s))
    pts = sorted(set(pts))
    return mp.quad(lambda x: mp.npdf(x, 0, s) * two.r(x, q, s)
                   * delta2_remove(eps - mp.log(two.r(x, q, s)), q, s), pts)


def delta3_add(eps, q, s):
    ln1q = mp.log(1 - q)
    if eps >= -3 * ln1q:
        return mp.mpf(0)
    pts = [-mp.inf, mp.mpf(0), mp.mpf(1) / 2, mp.mpf(1), mp.inf]
    # delta2_add(c) = 0 for c >= -2 ln(1-q): x beyond ln r(x) = -2 ln(1-q) - eps contributes 0.
    v = -2 * ln1q - eps
    if v > ln1q:
        pts.append(x_of_lnr(v, q, s))
    pts = sorted(set(pts))
    return mp.quad(lambda x: mp.npdf(x, 0, s) * delta2_add(eps + mp.log(two.r(x, q, s)), q, s),
                   pts)


def delta(eps, q, s):
    return max(delta3_remove(eps, q, s), delta3_add(eps, q, s))


def eps_for_delta(d, q, s, guess):
    ld = mp.log(d)
    g = mp.mpf(guess)
    return mp.findroot(lambda e: mp.log(delta(e, q, s)) - ld, (g * (1 - mp.mpf(1) / 100), g),
                       solver="secant", tol=mp.mpf(10) ** (-2 * mp.mp.dps + 10))


def value(quantity, q, s, param, dps):
    mp.mp.dps = dps
    q, s, x = mp.mpf(q), mp.mpf(s), mp.mpf(param)
    if quantity == "delta_for_eps":
        return delta(x, q, s)
    return eps_for_delta(x, q, s, "0.2753378")


def append(indices, lo, hi, out):
    """Computes CASES[i] for i in `indices` at dps `lo` and `hi` and appends the rows whose two
    values agree to >= lo - 2 digits, recording lo - 4 digits."""
    rows = []
    for i in indices:
        quantity, q, s, steps, param = CASES[i]
        a = value(quantity, q, s, param, lo)
        print(f"dps{lo}", quantity, q, s, steps, param, mp.nstr(a, lo), flush=True)
        b = value(quantity, q, s, param, hi)
        mp.mp.dps = hi
        agree = -mp.log10(abs(a - b) / abs(b)) if a != b else hi
        print(f"dps{hi}", quantity, q, s, steps, param, mp.nstr(b, hi), "agree", mp.nstr(agree, 4),
              flush=True)
        if agree < lo - 2:
            raise SystemExit(f"dps {lo} and {hi} agree to {agree} digits only")
        rows.append([quantity, q, s, steps, param, mp.nstr(b, lo - 2, min_fixed=0, max_fixed=0),
                     lo - 4, f"mpmath 3-D (as the first row) dps{lo} vs dps{hi}, mpmath {mp.__version__}"])
    with open(out, "a", newline="") as fh:
        csv.writer(fh).writerows(rows)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--append":
        # --append I,J LO HI [CSV]: rows CASES[I], CASES[J] at two precisions, appended.
        idx = [int(i) for i in sys.argv[2].split(",")]
        out = sys.argv[5] if len(sys.argv) > 5 else "golden/accounting/t3.csv"
        append(idx, int(sys.argv[3]), int(sys.argv[4]), out)
        return
    if len(sys.argv) > 2 and sys.argv[1] == "--dps":
        # One precision only (to run the two precisions as two processes): prints the values.
        dps = int(sys.argv[2])
        for quantity, q, s, steps, param in CASES[:1]:
            v = value(quantity, q, s, param, dps)
            print(f"dps{dps}", quantity, q, s, steps, param, mp.nstr(v, dps - 2), flush=True)
        return
    out = sys.argv[1] if len(sys.argv) > 1 else "golden/accounting/t3.csv"
    rows = []
    for quantity, q, s, steps, param in CASES[:1]:
        a = value(quantity, q, s, param, 25)
        print("dps25", quantity, q, s, steps, param, mp.nstr(a, 28), flush=True)
        b = value(quantity, q, s, param, 30)
        mp.mp.dps = 30
        agree = -mp.log10(abs(a - b) / abs(b)) if a != b else 45
        print(quantity, q, s, steps, param, mp.nstr(b, 30), "agree", mp.nstr(agree, 4), flush=True)
        if agree < 21:
            raise SystemExit(f"dps 25 and 30 agree to {agree} digits only")
        rows.append([quantity, q, s, steps, param, mp.nstr(b, 25, min_fixed=0, max_fixed=0), 20,
                     "mpmath 3-D (two-step inner of generate_small_t.py, outer quad) dps25 vs dps30"])
    with open(out, "w", newline="") as fh:
        fh.write(f"# generated by golden/generate_t3.py, mpmath {mp.__version__}\n")
        w = csv.writer(fh)
        w.writerow(["quantity", "q", "sigma", "steps", "param", "value", "digits", "source"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
