#!/bin/bash
# Queues the shard array, then the merge once every array task succeeded.
# Run from the repository root: docs/slurm/submit.sh
set -euo pipefail
array_id="$(sbatch --parsable docs/slurm/shards.sbatch)"
array_id="${array_id%%;*}"   # --parsable prints "jobid[;cluster]"
sbatch --dependency="afterok:$array_id" docs/slurm/merge.sbatch
