"""Probe for docs/accounting.md#fine-core: does composing the core (small-loss) steps on a grid
16 times finer, discretised onto the route's grid once per binary power, cut the discretisation
error of the tilted connect-the-dots composition?

Float64, upper (connect-the-dots) pair only, remove direction, the step law sampled by Simpson's
rule in z; no certification: a measurement to decide what to build, not an accountant. Prints,
for three grid steps, δ(ε) of the one-grid composition and of the fine-core composition; both are
second order, and their Richardson limits should agree (and lie in the route's certified bracket).

    /work/venv/bin/python benches/fine_core_probe.py [T] [lambda] [J]

(defaults: q = 0.001, σ = 1, T = 100, ε = 30, λ = 13.34, J = 40 rest steps at most).
"""
import numpy as np, sys
from math import comb, log
q, T, eps, lam = 0.001, int(sys.argv[1]) if len(sys.argv)>1 else 100, 30.0, float(sys.argv[2]) if len(sys.argv)>2 else 13.34
o = np.log1p(-q)
z = np.linspace(-12, 26, 3_800_001); dz = z[1]-z[0]
w = np.full(z.size, 2.0); w[1::2] = 4.0; w[0]=w[-1]=1.0; w *= dz/3
pz = ((1-q)*np.exp(-z*z/2) + q*np.exp(-(z-1)**2/2))/np.sqrt(2*np.pi)*w
ell = np.log1p(-q + q*np.exp(z-0.5))
def ctd(mask, h, n):
    """tilted CTD masses on knots o + k h (k = 0..n-1) of the points in mask: m e^{lam l}."""
    x = (ell[mask]-o)/h; j = np.floor(x).astype(np.int64); d = (x-j)*h; m = pz[mask]
    den = -np.expm1(-h)
    m1 = m*(np.exp(-d)-np.exp(-h))/den; m2 = m*(-np.expm1(-d))/den
    out = np.zeros(n)
    np.add.at(out, j, m1*np.exp(lam*(o+j*h))); np.add.at(out, j+1, m2*np.exp(lam*(o+(j+1)*h)))
    return out
def read(F, h, base, ln_scale):
    """delta from tilted composed masses F (knots base + k h) with tilt undone: sum F e^{-lam l + ln_scale}(1-e^{eps-l})_+."""
    l = base + np.arange(F.size)*h
    s = l > eps
    return np.sum(F[s]*np.exp(ln_scale - lam*l[s])*(-np.expm1(eps-l[s])))
def standard(h, nf):
    n = int(np.ceil((ell.max()-o)/h))+2
    m = ctd(np.ones(z.size, bool), h, n)
    c = m.sum(); m = m/c
    a = np.zeros(nf); a[:min(n,nf)] = m[:nf]   # tail beyond window negligible at this tilt (checked by nf)
    F = np.fft.ifft(np.fft.fft(a)**T).real
    return read(F, h, T*o, T*log(c))
def coarsen(f, hf, r):
    """CTD of tilted fine masses f (knots base + k hf) onto knots base + K h, h = r hf: returns coarse tilted masses."""
    k = np.arange(f.size); K = k//r; d = (k % r)*hf; h = r*hf
    den = -np.expm1(-h)
    # untilted split factors, then retilt: tilted fine mass f = m e^{lam(l_K + d)}
    a1 = (np.exp(-d)-np.exp(-h))/den*np.exp(-lam*d)
    a2 = (-np.expm1(-d))/den*np.exp(lam*(h-d))
    out = np.zeros(f.size//r+2)
    np.add.at(out, K, f*a1); np.add.at(out, K+1, f*a2)
    return out
def fine_core(h, nf, r=16, lc=0.05, J=None):
    hf = h/r
    n = int(np.ceil((ell.max()-o)/h))+2
    core = ell < o + np.ceil((lc-o)/h)*h
    mr = ctd(~core, h, n)
    nfine = int(np.ceil((ell[core].max()-o)/hf))+2
    cf = ctd(core, hf, nfine)
    c = mr.sum()+cf.sum(); mr /= c; cf /= c
    bits = [b for b in range(T.bit_length())]
    G = {}
    for b in bits:
        m = 2**b
        L = 1 << int(np.ceil(np.log2(m*nfine+1)))
        Ff = np.fft.ifft(np.fft.fft(cf, L)**m).real
        Ff = np.maximum(Ff, 0)  # prototype: clamp rounding
        g = coarsen(Ff, hf, r)
        ga = np.zeros(nf); ga[:min(g.size,nf)] = g[:nf]
        G[b] = np.fft.fft(ga)
    R = np.fft.fft(np.pad(mr[:nf], (0, max(0, nf-mr.size))))
    # all parts have offset (#steps)*o: composed knots at T*o + k h. Sum over j hits.
    J = J or T
    S = np.zeros(nf, complex); Rj = np.ones(nf, complex)
    for j in range(0, J+1):
        mm = T-j
        P = np.ones(nf, complex)
        for b in bits:
            if (mm >> b) & 1: P = P*G[b]
        S += comb(T, j)*Rj*P
        Rj = Rj*R
    F = np.fft.ifft(S).real
    return read(F, h, T*o, T*log(c))
if __name__ == "__main__":
    import time
    rows = []
    for h, nf in [(4e-4, 1<<21), (2e-4, 1<<22), (1e-4, 1<<23)]:
        t0=time.time(); s = standard(h, nf); t1=time.time()
        tl = fine_core(h, nf, J=int(sys.argv[3]) if len(sys.argv)>3 else 40); t2=time.time()
        rows.append((s, tl))
        print(f"h={h:.1e} nf=2^{nf.bit_length()-1} one grid={s:.9e} ({t1-t0:.1f}s) fine core={tl:.9e} ({t2-t1:.1f}s)", flush=True)
    for name, i in (("one grid", 0), ("fine core", 1)):
        lim = rows[2][i] + (rows[2][i] - rows[1][i]) / 3
        errs = ", ".join(f"{r[i] - lim:.3e}" for r in rows)
        print(f"{name}: Richardson limit {lim:.9e}; errors {errs}")
