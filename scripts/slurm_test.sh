#!/usr/bin/env bash
# Slurm, executed (issue 29): brings up a one-node Slurm cluster on this
# machine from Debian 12's packages, submits the corridor study exactly as
# docs/slurm/submit.sh does (the array job docs/slurm/shards.sbatch, one task
# per shard, `--shard auto/4` reading SLURM_ARRAY_TASK_ID, then
# docs/slurm/merge.sbatch queued with --dependency=afterok on the array),
# waits for both, and checks the merged summary.json byte for byte against
# the single-process campaign's, plus `breakbench analyze --check`.
#
#   scripts/slurm_test.sh BREAKBENCH REFERENCE_DIR
#
# BREAKBENCH: the breakbench binary the jobs run (the sbatch files' BREAKBENCH);
# REFERENCE_DIR: a single-process `breakbench campaign scenarios/corridor_study.yaml`
# directory of the same build (scripts/test.sh passes its target/test-campaign).
#
# Needs root (CI machines are fresh Debian 12, root, no systemd). Installs
# slurm-wlm and munge with apt if missing. Everything else is private to
# $SLURM_TEST_DIR (default target/slurm, emptied first): the munge key,
# socket and daemon files, slurm.conf (SLURM_CONF points the client commands
# to it), the controller's state, slurmd's spool, the logs and the results;
# /etc is not touched. The daemons (munged, slurmctld, slurmd) are stopped by
# their pid files on exit. Recipe: ../shared/notes/slurm.md; docs/scale-out.md.
# Ports: SLURM_TEST_PORT (slurmctld, default 6817) and the next one (slurmd).
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: $0 BREAKBENCH REFERENCE_DIR" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BB="$(realpath "$1")"
REF="$(realpath "$2")"
[[ -x "$BB" ]] || { echo "slurm_test: $BB is not an executable" >&2; exit 2; }
[[ -f "$REF/summary.json" ]] || { echo "slurm_test: $REF/summary.json: no such file (the single-process reference)" >&2; exit 2; }
D="${SLURM_TEST_DIR:-$ROOT/target/slurm}"
PORT="${SLURM_TEST_PORT:-6817}"
READY_TIMEOUT_S="${SLURM_TEST_READY_TIMEOUT_S:-60}"
JOBS_TIMEOUT_S="${SLURM_TEST_JOBS_TIMEOUT_S:-900}"
t0=$SECONDS
say() { printf '[slurm_test %4d s] %s\n' "$((SECONDS - t0))" "$*"; }

# --- the packages ----------------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null \
  || ! command -v munged >/dev/null; then
  say "installing slurm-wlm and munge (apt)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends slurm-wlm munge >"$ROOT/target/slurm-apt.log" 2>&1; then
    apt-get update -q >>"$ROOT/target/slurm-apt.log" 2>&1
    apt-get install -y -q --no-install-recommends slurm-wlm munge >>"$ROOT/target/slurm-apt.log" 2>&1 \
      || { tail -30 "$ROOT/target/slurm-apt.log" >&2; echo "slurm_test: apt-get install slurm-wlm munge failed" >&2; exit 1; }
  fi
fi
say "$(slurmctld -V), munge $(munged -V 2>&1 | awk '{print $1; exit}' | sed 's/munge-//')"

# --- the daemons, by their pid files ---------------------------------------
# Stops the daemon whose pid file is $1 if that pid still runs the program $2.
stop_one() {
  local pidfile="$1" comm="$2" pid i
  [[ -s "$pidfile" ]] || return 0
  pid="$(cat "$pidfile")"
  if [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$comm" ]]; then
    kill "$pid" 2>/dev/null || true
    for i in $(seq 50); do
      [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == "$comm" ]] || break
      sleep 0.1
    done
  fi
  rm -f "$pidfile"
}
stop_daemons() {
  stop_one "$D/run/slurmd.pid" slurmd
  stop_one "$D/run/slurmctld.pid" slurmctld
  stop_one "$D/run/munged.pid" munged
}
logs() {
  local f
  for f in "$D"/log/*.log "$D"/results/logs/*.log; do
    [[ -f "$f" ]] || continue
    echo "---- $f (last 40 lines)" >&2
    tail -40 "$f" >&2
  done
}
fail() {
  echo "slurm_test: $*" >&2
  logs
  exit 1
}
# A run interrupted on a dev machine leaves its daemons: stop them first.
stop_daemons
trap stop_daemons EXIT
rm -rf "$D"
mkdir -p "$D"/{munge,socket,run,log,ctld,spool,results}
chmod 700 "$D/munge"
chmod 755 "$D" "$D/socket"

# --- munge: a fresh key, a private socket ----------------------------------
dd if=/dev/urandom of="$D/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$D/munge/munge.key"
SOCK="$D/socket/munge.socket.2"
munged --key-file="$D/munge/munge.key" --socket="$SOCK" --pid-file="$D/run/munged.pid" \
  --log-file="$D/log/munged.log" --seed-file="$D/munge/munged.seed" \
  || fail "munged did not start"
munge -S "$SOCK" -n | unmunge -S "$SOCK" >/dev/null || fail "munge/unmunge through $SOCK failed"

# --- slurm.conf: one node, this host ---------------------------------------
HOST="$(hostname -s)"
MEM_MB="$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)"
export SLURM_CONF="$D/slurm.conf"
: >"$D/plugstack.conf"
cat >"$SLURM_CONF" <<EOF
# Written by scripts/slurm_test.sh: a one-node cluster on $HOST.
ClusterName=breakbench
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=3600
PlugStackConfig=$D/plugstack.conf
StateSaveLocation=$D/ctld
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/run/slurmctld.pid
SlurmdPidFile=$D/run/slurmd.pid
SlurmctldLogFile=$D/log/slurmctld.log
SlurmdLogFile=$D/log/slurmd.log
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$MEM_MB State=UNKNOWN
PartitionName=main Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF

say "starting slurmctld and slurmd (node $HOST, $(nproc) CPUs, ${MEM_MB} MB; $SLURM_CONF)"
slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$HOST" || fail "slurmd did not start"
deadline=$((SECONDS + READY_TIMEOUT_S))
until [[ "$(sinfo -h -n "$HOST" -o %t 2>/dev/null)" == idle ]]; do
  ((SECONDS < deadline)) || { sinfo -N -l >&2 || true; fail "node $HOST not idle after ${READY_TIMEOUT_S} s"; }
  sleep 0.5
done
say "node $HOST idle"

# --- the documented submission ---------------------------------------------
export RESULTS="$D/results" BREAKBENCH="$BB" RECORD=events
submitted="$(docs/slurm/submit.sh)" || fail "docs/slurm/submit.sh failed: $submitted"
echo "$submitted"
array_id="$(sed -n 's/^shards: job \([0-9]*\) .*/\1/p' <<<"$submitted")"
merge_id="$(sed -n 's/.*merge: job \([0-9]*\) .*/\1/p' <<<"$submitted")"
[[ -n "$array_id" && -n "$merge_id" ]] || fail "no job ids in submit.sh's output"

# JobState of job $1 (the first task of an array), from the controller.
state() { scontrol -o show job "$1" 2>/dev/null | head -1 | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
deadline=$((SECONDS + JOBS_TIMEOUT_S))
while :; do
  ms="$(state "$merge_id")"
  case "$ms" in
    COMPLETED) break ;;
    FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
      scontrol -o show job "$merge_id" >&2
      fail "merge job $merge_id: $ms" ;;
  esac
  if scontrol -o show job "$merge_id" 2>/dev/null | grep -q 'Reason=DependencyNeverSatisfied'; then
    scontrol -o show job "$array_id" | grep -o 'JobId=[0-9]* ArrayJobId=[0-9]* ArrayTaskId=[0-9]*\|JobState=[A-Z_]*\|ExitCode=[0-9:]*' >&2
    fail "a shard task of array job $array_id failed: the merge job $merge_id will never run"
  fi
  ((SECONDS < deadline)) || { squeue >&2 || true; fail "jobs not done after ${JOBS_TIMEOUT_S} s"; }
  sleep 1
done
# Every array task completed (afterok), and took its index from SLURM_ARRAY_TASK_ID.
tasks="$(scontrol -o show job "$array_id" | grep -c 'JobState=COMPLETED')"
[[ "$tasks" == 4 ]] || fail "array job $array_id: $tasks of 4 tasks COMPLETED"
for k in 0 1 2 3; do
  python3 - "$RESULTS/shard-$k/shard.json" "$k" <<'PY' || fail "shard-$k/shard.json is not shard $k/4"
import json, sys
s = json.load(open(sys.argv[1]))["shard"]
sys.exit(0 if (s["index"], s["count"]) == (int(sys.argv[2]), 4) else 1)
PY
done
say "array job $array_id (4 tasks) and merge job $merge_id COMPLETED"

cmp "$REF/summary.json" "$RESULTS/merged/summary.json" \
  || fail "the Slurm-merged summary.json differs from the single-process one ($REF/summary.json)"
"$BB" analyze "$RESULTS/merged" --check
say "summary.json byte-identical: Slurm array of 4 shards (--shard auto/4 from SLURM_ARRAY_TASK_ID), merged by the afterok job, and one process"
