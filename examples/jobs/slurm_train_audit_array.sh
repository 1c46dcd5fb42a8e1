#!/usr/bin/env bash
# The training-audit suite (`dpaudit train-audit`) drawn as a Slurm array job: task K runs shard
# K of N (every row's pilot, and the main-run chunks c with c mod N = K - 1); a dependent job
# merges the N shard files with the same `dpaudit merge` as the mechanism audits.
#
#   sbatch --array=1-16 examples/jobs/slurm_train_audit_array.sh 16 /shared/train1
#   sbatch --dependency=afterok:<array job id> --wrap \
#       "dpaudit merge /shared/train1/shards --out /shared/train1/report"
#
# The merged dpsgd_audit.csv is byte-identical to a single-machine
# `dpaudit train-audit --runs R --control-runs C --seed S` with the same options, which every
# task must therefore be given alike (RUNS, CONTROL_RUNS, SEED below). Each task repeats the
# pilot (a tenth of the main runs), so N shards are at most 1.1/(0.1 + 1/N) times faster
# (6.8 for N = 16).
#SBATCH --job-name=dpaudit-train-shard
#SBATCH --cpus-per-task=8
#SBATCH --mem=1G
#SBATCH --time=01:00:00
set -euo pipefail
count=$1
outdir=$2
runs=${RUNS:-10000000}
control_runs=${CONTROL_RUNS:-1000000}
seed=${SEED:-9}
# With --array=1-N Slurm numbers the tasks 1..N, as --shard wants.
dpaudit train-audit --runs "$runs" --control-runs "$control_runs" --seed "$seed" \
    --shard "${SLURM_ARRAY_TASK_ID}/${count}" --out "$outdir/shards"
