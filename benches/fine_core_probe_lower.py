"""Lower-pair counterpart of benches/fine_core_probe.py (docs/accounting.md#fine-core): the route's
binning (lower_pair, ported) of a one-grid discretisation against binning each of the fine core's
binary powers onto the grid. Cells from untilted masses; compositions in tilted form. Same
arguments and defaults as fine_core_probe.py (which it imports); float64, no certification.

    /work/venv/bin/python benches/fine_core_probe_lower.py [T] [lambda]
"""
import os, time
import numpy as np
import importlib.util
spec = importlib.util.spec_from_file_location(
    "fine_core_probe", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fine_core_probe.py"))
P = importlib.util.module_from_spec(spec); spec.loader.exec_module(P)
q, T, lam, eps, o = P.q, P.T, P.lam, P.eps, P.o

def cells_from_points(l, m, base, h, n):
    """A_j, B_j of cells [base + jh, base + (j+1)h] from point masses m at losses l."""
    x = (l - base) / h; j = np.floor(x).astype(np.int64); d = (x - j) * h
    j = np.clip(j, 0, n - 1)
    A = np.bincount(j, m * np.expm1(h - d), n); B = np.bincount(j, m * (-np.expm1(-d)), n)
    return A, B

def lower_pair(A, B, h, unbalanced_max=64):
    """Port of pld.rs's lower_pair (without the cells' error estimates)."""
    n = len(A); em1, eh = np.expm1(h), np.exp(h)
    pl = (A + eh * B) / em1
    lo = np.zeros(n + 1)
    c, r, unb = 0, 1.0, 0
    while c < n:
        k = c + 1
        debt = r * A[c]; out = r * pl[c]; nxt = None
        c2 = k
        while c2 < n:
            mm = (c2 - k) * h
            credit = -np.expm1(-mm) * pl[c2] + np.exp(-mm) * B[c2]
            if credit >= debt:
                w = debt / credit if credit > 0 else 0.0
                out += w * pl[c2]; nxt = (c2, 1.0 - w); break
            debt -= credit; out += pl[c2]; c2 += 1
        if nxt is not None:
            lo[k] += out
            c, r = (nxt[0], nxt[1]) if nxt[1] > 0 else (nxt[0] + 1, 1.0)
        elif unb < unbalanced_max:
            lo[c] += r * pl[c]; c, r = c + 1, 1.0; unb += 1
        else:
            lo[c] += out; break
    return lo

def tilt(m, base, h):
    return m * np.exp(lam * (base + np.arange(m.size) * h))

def one_grid(h, nf):
    n = int(np.ceil((P.ell.max() - o) / h)) + 2
    A, B = cells_from_points(P.ell, P.pz, o, h, n)
    lo = tilt(lower_pair(A, B, h), o, h)
    c = lo.sum(); lo /= c
    a = np.zeros(nf); a[:min(lo.size, nf)] = lo[:nf]
    F = np.fft.ifft(np.fft.fft(a) ** T).real
    return P.read(F, h, T * o, T * np.log(c))

def fine_core(h, nf, r=16, lc=0.05, J=40):
    hf = h / r
    n = int(np.ceil((P.ell.max() - o) / h)) + 2
    kc = int(np.ceil((lc - o) / h))
    core = P.ell < o + kc * h
    A, B = cells_from_points(P.ell[~core], P.pz[~core], o, h, n)
    A[:kc] = 0; B[:kc] = 0
    lr = lower_pair(A[kc:], B[kc:], h)
    mr = np.zeros(n + 1); mr[kc:kc + lr.size] = lr
    nfine = kc * r
    Af, Bf = cells_from_points(P.ell[core], P.pz[core], o, hf, nfine)
    cf = lower_pair(Af, Bf, hf)                     # fine lower pair of the core, untilted
    G = {}
    for b in range(T.bit_length()):
        m = 2 ** b
        L = 1 << int(np.ceil(np.log2(m * cf.size + 1)))
        cft = tilt(cf, o, hf)
        Ff = np.maximum(np.fft.ifft(np.fft.fft(cft, L) ** m).real[: m * (cf.size - 1) + 1], 0)
        lf = m * o + np.arange(Ff.size) * hf
        Ff = Ff * np.exp(-lam * lf)   # composed in tilted form (rounding relative to it), untilted for the cells
        nc = Ff.size // r + 2
        Ac, Bc = cells_from_points(lf, Ff, m * o, h, nc)
        g = tilt(lower_pair(Ac, Bc, h), m * o, h)
        ga = np.zeros(nf); ga[:min(g.size, nf)] = g[:nf]
        G[b] = ga
    mrt = tilt(mr, o, h)
    c = mrt.sum() + tilt(cf, o, hf).sum()
    R = np.fft.fft(np.pad(mrt[:nf] / c, (0, max(0, nf - mrt.size))))
    Gh = {b: np.fft.fft(G[b] / c ** (2 ** b)) for b in G}
    from math import comb
    S = np.zeros(nf, complex); Rj = np.ones(nf, complex)
    for j in range(J + 1):
        mm = T - j; Pp = np.ones(nf, complex)
        for b in Gh:
            if (mm >> b) & 1: Pp = Pp * Gh[b]
        S += comb(T, j) * Rj * Pp; Rj = Rj * R
    F = np.fft.ifft(S).real
    return P.read(F, h, T * o, T * np.log(c))

rows = []
for h, nf in [(4e-4, 1 << 21), (2e-4, 1 << 22), (1e-4, 1 << 23)]:
    t0 = time.time(); s = one_grid(h, nf); t1 = time.time(); f = fine_core(h, nf); t2 = time.time()
    rows.append((s, f)); print(f"h={h:.0e} lower one grid={s:.9e} ({t1-t0:.0f}s) fine core={f:.9e} ({t2-t1:.0f}s)", flush=True)
for name, i in (("one grid", 0), ("fine core", 1)):
    lim = rows[2][i] + (rows[2][i] - rows[1][i]) / 3
    print(f"{name}: Richardson limit {lim:.9e}; errors " + ", ".join(f"{r[i] - lim:.3e}" for r in rows))
