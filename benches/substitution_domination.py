"""Numerical check of the substitution pair's domination (docs/accounting.md#substitution).

For clipped contributions u = (a, 0), v = (b cos th, b sin th) in the plane (a, b <= 1), the
pair A = (1-q)N(0, s^2 I) + qN(u, s^2 I) vs B = (1-q)N(0, s^2 I) + qN(v, s^2 I) has hockey-stick
divergence H(x) integrated in y in closed form (for fixed x the region {A > e^eps B} is a
half-line in y: A - e^eps B = c1 phi(y) - c2 phi(y - v2)), then in x by scipy quad. Every
configuration is compared with the antipodal one (a = b = 1, th = pi), whose value is the 1-D
pair's. Both orders are covered because (a, b) and (b, a) are both on the grid only when a = b;
the grid below has a = 1 and b in {1, 0.5}, i.e. the order with the larger norm first.
Prints any configuration whose divergence exceeds the antipodal one (relative > 1e-9).
Output of the run on 2026-11-23 (scipy, this machine): no excess; worst relative excess 0.0
(the antipodal configuration itself).
Run: /work/venv/bin/python benches/substitution_domination.py
"""
import numpy as np
from scipy import integrate
from scipy.stats import norm
def hs(a,b,th,q,s,e):
    v1,v2=b*np.cos(th),b*np.sin(th)
    E=np.exp(e)
    def H(x):
        c1=(1-q)*(1-E)*norm.pdf(x,0,s)+q*norm.pdf(x,a,s)
        c2=E*q*norm.pdf(x,v1,s)
        if c1<=0: return 0.0
        if c2<=0: return c1
        if abs(v2)<1e-15:
            return max(c1-c2,0.0)
        K=s*s*np.log(c1/c2)+v2*v2/2
        ys=K/v2
        if v2>0: return c1*norm.cdf(ys/s)-c2*norm.cdf((ys-v2)/s)
        else: return c1*norm.sf(ys/s)-c2*norm.sf((ys-v2)/s)
    L=max(a,1)+14*s
    r,err=integrate.quad(H,-L,L,limit=400,epsabs=1e-16,epsrel=1e-12,points=[0,a,v1])
    return r
import itertools
worst=-1
for q in [0.1,0.5]:
  for s in [0.5,2.0]:
    for e in [0.5,2.0,6.0]:
      h0=hs(1,1,np.pi,q,s,e)
      for a in [1.0]:
        for b in [1.0,0.5]:
          for th in np.linspace(np.pi/2,np.pi,5):
            h=hs(a,b,th,q,s,e)
            rel=(h-h0)/max(h0,1e-300)
            if h-h0>1e-14 and rel>1e-9:
              print("EXCESS q=%g s=%g e=%g a=%g b=%g th=%.3f h0=%.6e h=%.6e rel=%.2e"%(q,s,e,a,b,th,h0,h,rel),flush=True)
            worst=max(worst,rel)
  print("q",q,"worst rel excess",worst,flush=True)
