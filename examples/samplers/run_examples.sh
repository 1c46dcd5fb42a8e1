#!/usr/bin/env bash
# Regenerates the committed example reports of `dpaudit audit-samples` (reports/samples/):
# numpy samplers write their outputs on neighbouring inputs (mu = 0 -> a.npy, mu = 1 -> b.npy)
# into $SAMPLES (default /tmp/dpaudit-samples, not committed), then dpaudit audits each pair.
# Usage (from the repository root): bash examples/samplers/run_examples.sh [path/to/dpaudit]
# Needs python3 with numpy (pip install numpy). Exit statuses of dpaudit: 1 = VIOLATION
# (expected for the buggy samplers), 0 = ok.
set -u
DPAUDIT=${1:-target/release/dpaudit}
SAMPLES=${SAMPLES:-/tmp/dpaudit-samples}
OUT=${OUT:-reports/samples}
S=examples/samplers
run() { # name, expected exit status, dpaudit arguments...
  local name=$1 want=$2; shift 2
  "$DPAUDIT" audit-samples "$@" --out "$OUT/$name" > /dev/null 2>&1
  local got=$?
  echo "$name: exit $got (expected $want)"
  [ "$got" = "$want" ] || status=1
}
status=0
python3 $S/laplace.py --impl naive --n 20000 --seed 1 --out $SAMPLES/naive_laplace
python3 $S/laplace.py --impl snapped --n 20000 --seed 1 --out $SAMPLES/snapped_laplace
python3 $S/gaussian.py --impl wrong-scale --n 2000 --seed 1 --out $SAMPLES/gaussian_wrong_scale
python3 $S/gaussian.py --impl correct --n 20000 --seed 1 --out $SAMPLES/gaussian_correct
python3 $S/gaussian.py --impl correct --n 20000 --seed 1 --csv --out $SAMPLES/gaussian_correct_csv
# (a) naive float Laplace, b = 10, claimed eps = 1/b = 0.1 (pure DP): exact-bits catches it,
#     the value statistic does not (the idealised mechanism is 0.1-DP).
run naive_laplace_exact_bits 1 $SAMPLES/naive_laplace/a.npy $SAMPLES/naive_laplace/b.npy --eps 0.1 --delta 0 --statistic exact-bits
run naive_laplace_value 0 $SAMPLES/naive_laplace/a.npy $SAMPLES/naive_laplace/b.npy --eps 0.1 --delta 0 --statistic value
# the same draws snapped to the grid 2^-20 pass exact-bits.
run snapped_laplace_exact_bits 0 $SAMPLES/snapped_laplace/a.npy $SAMPLES/snapped_laplace/b.npy --eps 0.1 --delta 0 --statistic exact-bits
# (b) Gaussian with sigma/2 where sigma = 1 is claimed: (2, 0.021) claimed, value statistic.
run gaussian_wrong_scale 1 $SAMPLES/gaussian_wrong_scale/a.npy $SAMPLES/gaussian_wrong_scale/b.npy --eps 2 --delta 0.021
# (c) the correct numpy Gaussian passes the value statistic (npy and CSV input) ...
run gaussian_correct 0 $SAMPLES/gaussian_correct/a.npy $SAMPLES/gaussian_correct/b.npy --eps 2 --delta 0.021
run gaussian_correct_csv 0 $SAMPLES/gaussian_correct_csv/a.csv $SAMPLES/gaussian_correct_csv/b.csv --eps 2 --delta 0.021
# ... and truthfully fails exact-bits: mu + sigma*Z in floating point has Mironov's artefacts too.
run gaussian_correct_exact_bits 1 $SAMPLES/gaussian_correct/a.npy $SAMPLES/gaussian_correct/b.npy --eps 2 --delta 0.021 --statistic exact-bits
exit $status
