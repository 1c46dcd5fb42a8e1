#!/usr/bin/env bash
# One dpaudit audit drawn as a Slurm array job: task K draws shard K of N of the audit's
# deterministic chunk streams; a dependent job merges the N shard files.
#
#   sbatch --array=1-64 examples/jobs/slurm_audit_array.sh audits/gaussian.toml 64 /shared/run1
#   sbatch --dependency=afterok:<array job id> --wrap \
#       "dpaudit merge /shared/run1/shards --out /shared/run1/report"
#
# The merged CSVs are byte-identical to a single-machine `dpaudit audit SPEC` with the same
# samples (`--samples N` must then be given to every shard alike).
#SBATCH --job-name=dpaudit-shard
#SBATCH --cpus-per-task=8
#SBATCH --mem=2G
#SBATCH --time=02:00:00
set -euo pipefail
spec=$1
count=$2
outdir=$3
# Slurm numbers array tasks from the --array range; with --array=1-N they are 1..N, as --shard wants.
dpaudit audit "$spec" --shard "${SLURM_ARRAY_TASK_ID}/${count}" --out "$outdir/shards"
