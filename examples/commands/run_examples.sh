#!/usr/bin/env bash
# Regenerates the committed example reports of command audits (reports/commands/): dpaudit runs
# each sampler itself (examples/samplers/*.py, through the specs in examples/commands/) and
# audits it; the (c) correct sampler is also audited in two shards, merged, and compared byte for
# byte with the whole run. Checks every exit status.
# Usage (from the repository root): bash examples/commands/run_examples.sh [path/to/dpaudit]
# Needs python3; the numpy_* specs need numpy (pip install numpy).
set -u
DPAUDIT=${1:-target/release/dpaudit}
OUT=${OUT:-reports/commands}
C=examples/commands
status=0
run() { # spec name, expected exit status, extra arguments...
  local name=$1 want=$2; shift 2
  "$DPAUDIT" audit $C/$name.toml --out "$OUT/$name" "$@" 2> /dev/null
  local got=$?
  echo "$name: exit $got (expected $want)"
  [ "$got" = "$want" ] || status=1
}
# (c) correct samplers pass: plain Python (text output) and numpy (.npy output).
run stdlib_gaussian 0
run numpy_gaussian 0
# (b) the noise scale off by a factor 2: caught by the value statistic.
run stdlib_gaussian_wrong_scale 1
# (a) the naive floating-point Laplace: caught by the exact-bits statistic.
run numpy_naive_laplace 1
# The correct numpy sampler in two shards, merged: byte-identical to the whole run.
TMP=$(mktemp -d)
for k in 1 2; do
  "$DPAUDIT" audit $C/numpy_gaussian.toml --shard $k/2 --out "$TMP/shard$k" 2> /dev/null || status=1
done
"$DPAUDIT" merge "$TMP/shard1" "$TMP/shard2" --out "$TMP/merged" > /dev/null 2>&1 || status=1
for f in numpy_gaussian.md numpy_gaussian.csv numpy_gaussian_a.npy numpy_gaussian_b.npy; do
  if cmp -s "$OUT/numpy_gaussian/$f" "$TMP/merged/$f"; then
    echo "sharded 2 ways and merged: $f byte-identical"
  else
    echo "sharded 2 ways and merged: $f DIFFERS"; status=1
  fi
done
rm -rf "$TMP"
exit $status
