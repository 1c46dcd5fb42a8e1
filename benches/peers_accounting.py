"""Peer figures for the DP-SGD accounting cases of issue 7, with wall times and package versions.

Runs dp_accounting (RDP; PLD pessimistic and optimistic at value_discretization_interval 1e-4),
PRV (eps_error 0.01) and dpaudit's certified bracket (`dpaudit account`, the release binary,
timed as a subprocess in the same run) on the issue's cases at delta = 1e-5, and writes
benches/peers_accounting.csv. PRV at T = 1e5 (34 s, 2.7 GB) is skipped unless --big is given.
Build first (cargo build --release), then run:
/work/venv/bin/python benches/peers_accounting.py [--big]

`--small-t` runs only the small-T cases of the route added for issue 24 (T = 1, 2, where the
inversion needed more than 2e5 nodes or two minutes) at 6 digits and writes
benches/peers_accounting_small_t.csv.

`--grid` runs the survey grid of issue 24 at 6 digits and writes benches/peers_accounting_grid.csv.
The grid (rule): every (q, T) with q in {0.001, 0.01, 0.1, 0.5, 1} and
T in {1, 2, 3, 10, 100, 1000, 10000} at sigma = 1 (35 cases), plus sigma in {0.6, 2, 5} at
T in {3, 100} for q in {0.001, 0.01, 0.1, 0.5} (24 cases): 59 eps(1e-5) cases; then far-tail
points: delta(eps) as small as ~1e-260 and eps(delta) at delta = 1 - 1e-12; and one case where
dp_accounting's PLD is off (q = 0.3, sigma = 0.3, T = 1000, eps(0.9)); then tiny q at large T
(q in {1e-4, 1e-5}, sigma in {0.5, 0.8, 1, 2}, T in {1e5, 1e6}, eps(1e-5)); then small sigma at
tiny q (q in {1e-6, 1e-5, 1e-4}, sigma in {0.3, 0.4}, T in {1e3, 1e5}, eps(1e-5)). dpaudit runs with
`--max-seconds 30` (change with --max-seconds N), at the same priority as the peers (which run in
this process, interleaved case by case, so the times are of one run); its failures are recorded with the
message. DPAUDIT_BIN overrides the binary. `--no-peers` runs dpaudit alone (the cheap survey,
benches/peers_accounting_grid_dpaudit.csv); `--pld-only` runs dp_accounting's PLD alone
(benches/peers_accounting_grid_pld.csv); with peers, PRV is skipped at
T >= 1e4 (90 s and 4 GB per case), on the far-tail points and on the PLD case.
"""
import csv
import sys
import time
from importlib.metadata import version


DELTA = 1e-5
CASES = [
    ("q0.01_s1_T1e4", 0.01, 1.0, 10_000),
    ("abadi_mnist", 256 / 60000, 1.1, 14_063),
    ("full_batch", 1.0, 10.0, 1000),
    ("opacus_test", 0.04, 1.5, 2250),
    ("q0.01_s1_T1e5", 0.01, 1.0, 100_000),
    # Cases where PRV / Opacus fail with "discrete mean differs" (prv_accountant#36, #42).
    ("prv36_q0.125_s0.8_T1000", 0.125, 0.8, 1000),
    ("prv42_q0.2_s1_T1000", 0.2, 1.0, 1000),
]

# Small-T cases (issue 24): the nested-integration route, 6 digits (the grid's standard).
SMALL_T_CASES = [
    ("q0.01_s1_T2", 0.01, 1.0, 2),
    ("q0.5_s2_T2", 0.5, 2.0, 2),
    ("q0.001_s1_T2", 0.001, 1.0, 2),
    ("q0.001_s0.6_T2", 0.001, 0.6, 2),
    ("q0.1_s5_T2", 0.1, 5.0, 2),
    ("q0.01_s1_T1", 0.01, 1.0, 1),
    ("q0.5_s0.6_T1", 0.5, 0.6, 1),
]


def dpaudit_bracket(q, s, T, digits=12):
    """Runs `dpaudit account` on a one-release schedule; returns (lo, hi)."""
    import os
    import re
    import subprocess
    import tempfile

    kind = "gaussian" if q == 1.0 else "subsampled_gaussian"
    qline = "" if q == 1.0 else f'q = "{q!r}"\n'
    text = (f'delta = "{DELTA!r}"\ndigits = {digits}\n[[release]]\nkind = "{kind}"\n{qline}'
            f'sigma = "{s!r}"\ncount = {T}\n')
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as fh:
        fh.write(text)
    try:
        out = subprocess.run(["target/release/dpaudit", "account", fh.name],
                             capture_output=True, text=True, check=True).stdout
    finally:
        os.unlink(fh.name)
    m = re.search(r"^eps\(delta = [^)]*\): \[([^,]+), ([^\]]+)\]", out, re.M)
    return float(m.group(1)), float(m.group(2))


def grid_cases():
    """The survey grid (rule in the module docstring): (name, q, sigma, T, quantity, at)."""
    out = []
    for q in (0.001, 0.01, 0.1, 0.5, 1.0):
        for T in (1, 2, 3, 10, 100, 1000, 10_000):
            out.append((f"q{q}_s1_T{T}", q, 1.0, T, "eps", DELTA))
    for q in (0.001, 0.01, 0.1, 0.5):
        for s in (0.6, 2.0, 5.0):
            for T in (3, 100):
                out.append((f"q{q}_s{s}_T{T}", q, s, T, "eps", DELTA))
    # Far tails: delta(eps) with delta down to ~1e-300, eps(delta) at delta = 1 - 1e-12.
    for (q, s, T, e) in ((0.01, 1.0, 1000, 40.0), (0.01, 1.0, 2, 40.0), (0.01, 1.0, 10, 20.0),
                         (0.1, 1.0, 100, 60.0), (0.5, 2.0, 3, 30.0)):
        out.append((f"tail_q{q}_s{s}_T{T}_eps{e:g}", q, s, T, "delta", e))
    # Stop 43 adds q = 0.5, T = 1000 at sigma 1 and 0.6: the total variation is above delta there
    # and eps(delta) is large (PLD: about 53 and 211); dpaudit refuses both (a known gap).
    for (q, s, T) in ((0.01, 1.0, 1000), (0.01, 1.0, 3), (0.5, 1.0, 100), (0.1, 1.0, 10),
                      (0.5, 1.0, 1000), (0.5, 0.6, 1000)):
        out.append((f"tail_q{q}_s{s}_T{T}_delta1-1e-12", q, s, T, "eps", 1.0 - 1e-12))
    # Stop 46: where dp_accounting's PLD is off by about 1.0 (its optimistic eps above the
    # brute force's pessimistic one, benches/brute_force_pld.py; docs/accounting.md#peer-discrepancy).
    out.append(("peer_q0.3_s0.3_T1000_delta0.9", 0.3, 0.3, 1000, "eps", 0.9))
    # Stop 47: tiny q at large T (a large dataset, small batches), eps(1e-5): q in {1e-4, 1e-5},
    # sigma in {0.5, 0.8, 1, 2}, T in {1e5, 1e6} (before this stop: 7 of the 8 q = 1e-4 cases
    # refused or slower than PLD, all 8 q = 1e-5 cases refused).
    for q in (1e-4, 1e-5):
        for s in (0.5, 0.8, 1.0, 2.0):
            for T in (100_000, 1_000_000):
                out.append((f"tinyq_q{q:g}_s{s:g}_T{T:g}", q, s, T, "eps", DELTA))
    # Stop 53: small sigma at tiny q, eps(1e-5): q in {1e-6, 1e-5, 1e-4}, sigma in {0.3, 0.4},
    # T in {1e3, 1e5} (q = 1e-6, sigma = 0.3, T = 1e5 was refused until stop 53; at sigma = 0.4
    # and T*q <= 1e-3 neither route answers, a known gap).
    for q in (1e-6, 1e-5, 1e-4):
        for s in (0.3, 0.4):
            for T in (1000, 100_000):
                out.append((f"smallsig_q{q:g}_s{s:g}_T{T:g}", q, s, T, "eps", DELTA))
    return out


def dpaudit_flags(q, s, T, quantity, at, digits, max_seconds):
    """Runs `dpaudit account --format json` by flags; returns (lo, hi, seconds, error)."""
    import json
    import subprocess

    at_s = "0.999999999999" if at == 1.0 - 1e-12 else repr(at)
    import os
    binary = os.environ.get("DPAUDIT_BIN", "target/release/dpaudit")
    cmd = [binary, "account", "--q", repr(q), "--sigma", repr(s),
           "--steps", str(T), "--delta" if quantity == "eps" else "--eps", at_s, "--digits", str(digits),
           "--max-seconds", str(max_seconds), "--format", "json"]
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t
    try:
        j = json.loads(p.stdout)
    except ValueError:
        return None, None, dt, (p.stderr or p.stdout).strip()
    if not j.get("ok"):
        return None, None, dt, j.get("error", "?")
    v = j["results"][0]["value"]
    return v["lo"], v["hi"], dt, ""


def grid_main():
    no_peers = "--no-peers" in sys.argv
    max_seconds = 30
    if "--max-seconds" in sys.argv:
        max_seconds = int(sys.argv[sys.argv.index("--max-seconds") + 1])
    vers = {}
    if not no_peers:
        vers = {p: version(p) for p in ("dp-accounting", "prv-accountant")}
    rows = []
    pld_only = "--pld-only" in sys.argv
    for name, q, s, T, quantity, at in grid_cases():
        what = "eps" if quantity == "eps" else "delta"
        if not pld_only:
            lo, hi, dt, err = dpaudit_flags(q, s, T, quantity, at, 6, max_seconds)
            mid = "" if lo is None else repr(0.5 * (float(lo) + float(hi)))
            rows.append((name, q, s, T, quantity, at, "dpaudit 6 digits", mid, lo or "", hi or "",
                         f"{dt:.2f}", err))
            print(rows[-1], flush=True)
        if no_peers:
            continue
        from dp_accounting import dp_event
        from dp_accounting.pld import pld_privacy_accountant
        ev = dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), T)
        for pess in (True, False):
            def pld():
                if pess:
                    a = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
                    a.compose(ev)
                    return a.get_epsilon(at) if what == "eps" else a.get_delta(at)
                from dp_accounting.pld import privacy_loss_distribution as pldlib
                p1 = pldlib.from_gaussian_mechanism(
                    s, sampling_prob=q, value_discretization_interval=1e-4,
                    pessimistic_estimate=False, use_connect_dots=False).self_compose(T)
                return (p1.get_epsilon_for_delta(at) if what == "eps"
                        else p1.get_delta_for_epsilon(at))
            label = "PLD 1e-4 " + ("pessimistic" if pess else "optimistic")
            try:
                v, t = timed(pld)
                rows.append((name, q, s, T, quantity, at, label, repr(float(v)), "", "", f"{t:.2f}", ""))
            except Exception as e:  # a peer's failure is an outcome
                rows.append((name, q, s, T, quantity, at, label, "", "", "", "", f"error: {e}"))
            print(rows[-1], flush=True)
        if T < 10_000 and not name.startswith(("tail", "peer")) and q < 1.0 and not pld_only:
            from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant

            def prv():
                m = PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)
                a = PRVAccountant(prvs=m, max_self_compositions=T, eps_error=0.01,
                                  delta_error=DELTA / 1000)
                return a.compute_epsilon(delta=DELTA, num_self_compositions=T)
            try:
                (plo, est, phi), t = timed(prv)
                rows.append((name, q, s, T, quantity, at, "PRV eps_error 0.01", repr(est),
                             repr(plo), repr(phi), f"{t:.2f}", ""))
            except Exception as e:
                rows.append((name, q, s, T, quantity, at, "PRV eps_error 0.01", "", "", "", "",
                             f"error: {e}"))
            print(rows[-1], flush=True)
    out = ("benches/peers_accounting_grid_dpaudit.csv" if no_peers
           else "benches/peers_accounting_grid_pld.csv" if pld_only
           else "benches/peers_accounting_grid.csv")
    with open(out + ".tmp", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([f"# {k} {v}" for k, v in vers.items()] + [f"# dpaudit --max-seconds {max_seconds}"])
        w.writerow(["case", "q", "sigma", "steps", "quantity", "at", "method", "value", "lo", "hi",
                    "seconds", "error"])
        w.writerows(rows)
    import os
    os.replace(out + ".tmp", out)


def timed(f):
    t = time.perf_counter()
    v = f()
    return v, time.perf_counter() - t


def main():
    if "--grid" in sys.argv:
        return grid_main()
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant
    from dp_accounting.rdp import rdp_privacy_accountant
    from prv_accountant import PoissonSubsampledGaussianMechanism, PRVAccountant
    big = "--big" in sys.argv
    small = "--small-t" in sys.argv
    digits = 6 if small else 12
    vers = {p: version(p) for p in ("dp-accounting", "prv-accountant")}
    rows = []
    for name, q, s, T in (SMALL_T_CASES if small else CASES):
        ev = dp_event.SelfComposedDpEvent(
            dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(s)), T
        )

        def rdp():
            a = rdp_privacy_accountant.RdpAccountant()
            a.compose(ev)
            return a.get_epsilon(DELTA)

        def pld():
            a = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
            a.compose(ev)
            return a.get_epsilon(DELTA)

        v, t = timed(rdp)
        rows.append((name, q, s, T, DELTA, "dp_accounting RDP", v, "", "", t))
        v, t = timed(pld)
        rows.append((name, q, s, T, DELTA, "dp_accounting PLD pessimistic 1e-4", v, "", "", t))

        def pld_opt():
            from dp_accounting.pld import privacy_loss_distribution as pldlib
            p1 = pldlib.from_gaussian_mechanism(
                s, sampling_prob=q, value_discretization_interval=1e-4,
                pessimistic_estimate=False, use_connect_dots=False)
            return p1.self_compose(T).get_epsilon_for_delta(DELTA)

        try:
            v, t = timed(pld_opt)
            rows.append((name, q, s, T, DELTA, "dp_accounting PLD optimistic 1e-4", v, "", "", t))
        except Exception as e:
            rows.append((name, q, s, T, DELTA, "dp_accounting PLD optimistic 1e-4", f"error: {e}", "", "", ""))
        (lo, hi), t = timed(lambda: dpaudit_bracket(q, s, T, digits))
        rows.append((name, q, s, T, DELTA, "dpaudit certified bracket", 0.5 * (lo + hi), lo, hi, t))
        if T <= 20_000 or big:
            def prv():
                m = PoissonSubsampledGaussianMechanism(noise_multiplier=s, sampling_probability=q)
                a = PRVAccountant(prvs=m, max_self_compositions=T, eps_error=0.01,
                                  delta_error=DELTA / 1000)
                return a.compute_epsilon(delta=DELTA, num_self_compositions=T)
            try:
                (lo, est, hi), t = timed(prv)
                rows.append((name, q, s, T, DELTA, "PRV eps_error 0.01", est, lo, hi, t))
            except Exception as e:  # record the peer's failure as an outcome
                rows.append((name, q, s, T, DELTA, "PRV eps_error 0.01", f"error: {e}", "", "", ""))
        print(rows[-1], flush=True)
    out = "benches/peers_accounting_small_t.csv" if small else "benches/peers_accounting.csv"
    with open(out + ".tmp", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([f"# {k} {v}" for k, v in vers.items()])
        w.writerow(["case", "q", "sigma", "steps", "delta", "method", "eps", "eps_lo", "eps_hi", "seconds"])
        w.writerows(rows)
    import os
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
