"""The δ(ε) tail survey at small q (issue 24, item 2): δ(ε) at 6 digits for q ∈ {0.001, 0.01},
σ ∈ {0.6, 1, 5}, T ∈ {4, 10, 30, 100, 300, 1000}, ε ∈ {0.1, 0.5, 2, 8, 30}, each with
`--max-seconds 60` (change with --max-seconds N), by the release binary (build it first:
`cargo build --release`). Writes
benches/tail_survey.csv (one row per query: the bracket or the refusal, the route, wall seconds)
and prints a Markdown table (per q, σ, T: each ε's δ midpoint and seconds, or "refused").

Run: python3 benches/tail_survey.py [--out CSV] [--bin PATH] [--max-seconds N] > table.md   (about
30 minutes on 2 cores at 60 s; --bin surveys another build, e.g. an older commit's, for a before/after)
"""
import csv
import os
import re
import subprocess
import sys
import time

QS = ["0.001", "0.01"]
SIGMAS = ["0.6", "1", "5"]
TS = [4, 10, 30, 100, 300, 1000]
EPSS = ["0.1", "0.5", "2", "8", "30"]
BIN = os.path.join("target", "release", "dpaudit")
MAX_SECONDS = "60"


def run(q, s, t, e):
    cmd = [BIN, "account", "--q", q, "--sigma", s, "--steps", str(t), "--eps", e,
           "--digits", "6", "--max-seconds", MAX_SECONDS]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    out = p.stdout + p.stderr
    m = re.search(r"^delta\(eps = [^)]*\): \[([^,]+), ([^\]]+)\] \(midpoint ([^,]+),", out, re.M)
    route = re.search(r"^  route: (.*)$", out, re.M)
    if m and p.returncode == 0:
        return dict(lo=m.group(1), hi=m.group(2), mid=m.group(3),
                    route=route.group(1) if route else "", seconds=f"{dt:.2f}", error="")
    err = out.strip().splitlines()[-1] if out.strip() else f"exit {p.returncode}"
    return dict(lo="", hi="", mid="", route="", seconds=f"{dt:.2f}", error=err)


def main():
    global BIN, MAX_SECONDS
    out = "benches/tail_survey.csv"
    if "--out" in sys.argv:
        out = sys.argv[sys.argv.index("--out") + 1]
    if "--bin" in sys.argv:
        BIN = sys.argv[sys.argv.index("--bin") + 1]
    if "--max-seconds" in sys.argv:
        MAX_SECONDS = sys.argv[sys.argv.index("--max-seconds") + 1]
    rows = []
    for q in QS:
        for s in SIGMAS:
            for t in TS:
                for e in EPSS:
                    r = run(q, s, t, e)
                    r.update(q=q, sigma=s, T=t, eps=e)
                    rows.append(r)
                    print(q, s, t, e, r["mid"] or "refused", r["seconds"], file=sys.stderr)
    keys = ["q", "sigma", "T", "eps", "lo", "hi", "mid", "route", "seconds", "error"]
    tmp = out + ".tmp"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    os.replace(tmp, out)
    print("| q, σ, T | " + " | ".join(f"ε = {e}" for e in EPSS) + " |")
    print("|---" * (len(EPSS) + 1) + "|")
    by = {(r["q"], r["sigma"], r["T"], r["eps"]): r for r in rows}
    for q in QS:
        for s in SIGMAS:
            for t in TS:
                cells = []
                for e in EPSS:
                    r = by[(q, s, t, e)]
                    if r["mid"]:
                        tag = "" if r["route"].startswith("discretised") else "ᵢ"
                        cells.append(f"{r['mid']} ({r['seconds']} s){tag}")
                    else:
                        # A refusal names the digits it could certify (the narrowest bracket's).
                        m = re.search(r"only (\d+) certified", r["error"])
                        got = f", {m.group(1)} d" if m else ""
                        cells.append(f"refused ({r['seconds']} s{got})")
                print(f"| {q}, {s}, {t} | " + " | ".join(cells) + " |")
    ok = sum(1 for r in rows if r["mid"])
    over = sum(1 for r in rows if r["mid"] and float(r["seconds"]) > 1.0)
    print(f"\nanswered: {ok} of {len(rows)}; answered in over 1 s: {over}; "
          f"each query with --max-seconds {MAX_SECONDS}; "
          "ᵢ: the inversion answered (else the discretised route); "
          "\"N d\": the digits a refusal certified (its narrowest bracket's)")


if __name__ == "__main__":
    main()
