#!/usr/bin/env python3
"""Summarise the last criterion run as ratios against the baseline measured in the same run.

Reads target/criterion/<group>/<bench>/new/{benchmark,estimates}.json. For groups with element
throughput, prints elements/s and the ratio to the group's benchmark whose name starts with
"baseline"; otherwise prints the median time.

Usage: python3 benches/summarize.py [group ...]
"""
import json
import pathlib
import sys

root = pathlib.Path(__file__).resolve().parent.parent / "target" / "criterion"


def load(d):
    b = json.loads((d / "new" / "benchmark.json").read_text())
    e = json.loads((d / "new" / "estimates.json").read_text())
    return b, e["median"]["point_estimate"]  # ns per iteration


def main():
    groups = sys.argv[1:] or sorted(p.name for p in root.iterdir() if p.is_dir() and p.name != "report")
    for g in groups:
        gdir = root / g
        if not gdir.is_dir():
            print(f"[{g}] not found")
            continue
        if (gdir / "new").exists():  # ungrouped benchmark
            b, ns = load(gdir)
            print(f"{b['full_id']:<45} median {ns / 1e6:9.4f} ms")
            continue
        rows = []
        for d in sorted(p for p in gdir.iterdir() if (p / "new").exists()):
            b, ns = load(d)
            elems = (b.get("throughput") or {}).get("Elements")
            rows.append((b["function_id"], ns, elems))
        base = [r for r in rows if r[0].lower().startswith("baseline")]
        base_rate = base[0][2] / base[0][1] * 1e9 if base and base[0][2] else None
        print(f"[{g}]")
        for name, ns, elems in rows:
            if elems:
                rate = elems / ns * 1e9
                ratio = f"{rate / base_rate:5.2f}x baseline" if base_rate else ""
                print(f"  {name:<40} {rate / 1e6:8.1f} M/s  {ratio}")
            else:
                print(f"  {name:<40} median {ns / 1e6:9.4f} ms")


if __name__ == "__main__":
    main()
