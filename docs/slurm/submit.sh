#!/bin/bash
# Queues the shard array, then the merge once every array task succeeded.
# Run from the repository root: docs/slurm/submit.sh
# The jobs' logs go to $RESULTS/logs (RESULTS, BREAKBENCH and RECORD reach
# the jobs through sbatch's exported environment; see shards.sbatch).
# Prints "shards: job <id> (array 0-3); merge: job <id> (afterok:<id>)".
set -euo pipefail
export RESULTS="${RESULTS:-$PWD/runs/corridor}"
mkdir -p "$RESULTS/logs"
array_id="$(sbatch --parsable --output="$RESULTS/logs/shard-%A_%a.log" docs/slurm/shards.sbatch)"
array_id="${array_id%%;*}"   # --parsable prints "jobid[;cluster]"
merge_id="$(sbatch --parsable --output="$RESULTS/logs/merge-%j.log" --dependency="afterok:$array_id" docs/slurm/merge.sbatch)"
merge_id="${merge_id%%;*}"
echo "shards: job $array_id (array 0-3); merge: job $merge_id (afterok:$array_id)"
