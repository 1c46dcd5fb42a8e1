"""Markdown table of benches/peers_accounting_grid.csv (one run of `peers_accounting.py --grid`):
per case the dpaudit bracket and time, dp_accounting's PLD (1e-4) optimistic / pessimistic and
the pessimistic time, PRV (eps_error 0.01) and its time, whether the three agree, and dpaudit's
time over max(1 s, PLD pessimistic). Run: python3 benches/summarize_grid.py [CSV] > table.md
"""
import csv
import sys


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "benches/peers_accounting_grid.csv"
    rows = [r for r in csv.reader(open(path)) if r and not r[0].startswith("#")]
    head, rows = rows[0], rows[1:]
    ix = {k: i for i, k in enumerate(head)}
    cases = {}
    order = []
    for r in rows:
        c = r[ix["case"]]
        if c not in cases:
            cases[c] = {}
            order.append(c)
        cases[c][r[ix["method"]]] = r
    print("| case | quantity | dpaudit 6 digits (time) | PLD 1e-4 opt. / pess. (time pess.) "
          "| PRV 0.01 (time) | consistent | dpaudit / max(1 s, PLD) |")
    print("|---|---|---|---|---|---|---|")
    answered = slow = 0
    worst = (0.0, "")
    for c in order:
        m = cases[c]
        d = m.get("dpaudit 6 digits")
        pe = m.get("PLD 1e-4 pessimistic")
        op = m.get("PLD 1e-4 optimistic")
        pr = m.get("PRV eps_error 0.01")
        q = d[ix["quantity"]] + "(" + d[ix["at"]] + ")"
        if d[ix["lo"]]:
            answered += 1
            lo, hi = float(d[ix["lo"]]), float(d[ix["hi"]])
            dp = f"[{d[ix['lo']]}, {d[ix['hi']]}] ({float(d[ix['seconds']]):.2f} s)"
        else:
            lo = hi = None
            dp = f"no answer: {d[ix['error']][:60]} ({float(d[ix['seconds']]):.1f} s)"
        pld = "—"
        ok = []
        ratio = ""
        if pe and op and pe[ix["value"]] and op[ix["value"]]:
            pv, ov, pt = float(pe[ix["value"]]), float(op[ix["value"]]), float(pe[ix["seconds"]])
            pld = f"{ov:.8g} / {pv:.8g} ({pt:.2f} s)"
            if lo is not None:
                a, b = min(ov, pv), max(ov, pv)
                if d[ix["quantity"]] == "eps":
                    if lo > b * (1 + 1e-9):
                        ok.append("CONFLICT: dpaudit above PLD pessimistic")
                    elif hi < a * (1 - 1e-9):
                        ok.append("PLD optimistic above dpaudit's upper end")
                    else:
                        ok.append("PLD")
                else:
                    ok.append("PLD (floored)" if hi <= b else "PLD: NO")
                r = float(d[ix["seconds"]]) / max(1.0, pt)
                ratio = f"{r:.2f}"
                if r > 1:
                    slow += 1
                if r > worst[0]:
                    worst = (r, c)
        prv = "—"
        if pr and pr[ix["lo"]]:
            plo, phi = float(pr[ix["lo"]]), float(pr[ix["hi"]])
            prv = f"[{plo:.4g}, {phi:.4g}] ({float(pr[ix['seconds']]):.2f} s)"
            if lo is not None:
                ok.append("PRV" if (lo <= phi and hi >= plo) else "PRV: NO")
        elif pr:
            prv = pr[ix["error"]][:40]
        print(f"| {c} | {q} | {dp} | {pld} | {prv} | {', '.join(ok) or '—'} | {ratio} |")
    print()
    print(f"answered: {answered} of {len(order)}; slower than max(1 s, PLD): {slow}; "
          f"largest ratio {worst[0]:.2f} ({worst[1]})")


if __name__ == "__main__":
    main()
