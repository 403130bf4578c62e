#!/usr/bin/env bash
# Scale, measured (issue 29; not in CI): campaigns of many short runs
# (scenarios/scale/scale_study.yaml: the corridor study's 16-cell fault grid
# on a 1.5 m mission, 10 s of sim time per run, --record none), each split
# into SCALE_SHARDS shards (default 1,000) executed as separate
# `breakbench campaign --shard K/N --jobs SCALE_JOBS` processes (default 1),
# SCALE_PARALLEL at a time (default 2), niced by SCALE_NICE (default 0), then merged by one `breakbench merge` of every shard
# directory under /usr/bin/time -v. Prints, per campaign size, the shards'
# wall and CPU time, the merge's wall time and peak RSS, `analyze --check`'s
# wall time and peak RSS, and the disk per run, and what the merge reads (the
# manifest and trace files: how many, how many bytes); appends them to
# $SCALE_DIR/results.txt.
#
#   scripts/scale_study.sh BREAKBENCH [RUNS ...]     (default RUNS: 10000 30000 100000)
#
# RUNS must be 32 + 16 k (16 cells x k repeats + 32 nominal runs).
# SCALE_STEPS (default "shards merge"): "shards" executes the shards (and keeps
# them), "merge" merges, checks and measures what "shards" left. MERGE_BREAKBENCH
# (default BREAKBENCH) is the binary that merges, analyzes and runs the
# unsharded reference, so shards executed by another build (a debug one, say)
# can be merged and timed by a release build (the merge checks that all the
# shards come from one build, not that it is its own).
# The smallest size is also run as one unsharded process (--jobs 2) and its
# summary.json compared byte for byte with the merge's (SCALE_REFERENCE=0
# skips that). Each size's directories are deleted once measured, unless
# SCALE_KEEP=1 (100,000 runs in 1,000 shards take about 4 GB, nearly all of
# it the runs' traces). Figures: docs/scale-out.md.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 BREAKBENCH [RUNS ...]" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
BB="$(realpath "$1")"
MBB="$(realpath "${MERGE_BREAKBENCH:-$1}")"
STEPS="${SCALE_STEPS:-shards merge}"
shift
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(10000 30000 100000)
S="${SCALE_SHARDS:-1000}"
PAR="${SCALE_PARALLEL:-2}"
JOBS="${SCALE_JOBS:-1}"
NICE="${SCALE_NICE:-0}"
W="${SCALE_DIR:-$ROOT/target/scale}"
mkdir -p "$W"
RESULTS="$W/results.txt"
TEMPLATE=scenarios/scale/scale_study.yaml
reference="${SCALE_REFERENCE:-1}"

# "<wall s> <peak RSS KiB>" from a /usr/bin/time -v log.
time_v() {
  awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i] }
              /Maximum resident set size/ { r = $2 }
              END { printf "%.2f %d\n", s, r }' "$1"
}

for N in "${SIZES[@]}"; do
  if (((N - 32) % 16 != 0 || N < 48)); then
    echo "scale_study: $N runs is not 32 + 16 k (k >= 1)" >&2
    exit 2
  fi
  R=$(((N - 32) / 16))
  D="$W/n$N"
  if [[ "$STEPS" == *shards* ]]; then
    rm -rf "$D"
    mkdir -p "$D/shards"
    # The scenario with R repeats, its paths made absolute (it is written outside scenarios/).
    sed -e "s#^repeats: 6248\$#repeats: $R#" \
      -e "s#^world: short_corridor.yaml#world: $ROOT/scenarios/scale/short_corridor.yaml#" \
      -e "s#\.\./\.\./config/#$ROOT/config/#" "$TEMPLATE" >"$D/scale_$N.yaml"
    grep -q "^repeats: $R\$" "$D/scale_$N.yaml" || { echo "scale_study: $TEMPLATE has no 'repeats: 6248' line" >&2; exit 2; }
    echo "== $N runs ($R repeats x 16 cells + 32 nominal) in $S shards, $PAR at a time"

    seq 0 $((S - 1)) >"$D/indices"
    /usr/bin/time -v -o "$D/shards.time" nice -n "$NICE" xargs -P "$PAR" -I{} -a "$D/indices" \
      "$BB" campaign "$D/scale_$N.yaml" --out "$D/shards/shard-{}" --shard "{}/$S" \
      --jobs "$JOBS" --quiet --record none --max-runs "$N" >"$D/shards.log" 2>&1 \
      || { tail -20 "$D/shards.log" >&2; echo "scale_study: a shard failed" >&2; exit 1; }
  fi
  [[ "$STEPS" == *merge* ]] || continue
  read -r shards_wall _ < <(time_v "$D/shards.time")
  shards_cpu="$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.1f", u + s}' "$D/shards.time")"

  dirs=()
  for ((k = 0; k < S; k++)); do dirs+=("$D/shards/shard-$k"); done
  /usr/bin/time -v -o "$D/merge.time" "$MBB" merge "${dirs[@]}" --out "$D/merged" >"$D/merge.log" 2>&1 \
    || { tail -20 "$D/merge.log" >&2; echo "scale_study: the merge failed" >&2; exit 1; }
  read -r merge_wall merge_rss < <(time_v "$D/merge.time")
  /usr/bin/time -v -o "$D/analyze.time" "$MBB" analyze "$D/merged" --check >"$D/analyze.log" 2>&1 \
    || { tail -20 "$D/analyze.log" >&2; echo "scale_study: analyze --check failed" >&2; exit 1; }
  read -r analyze_wall analyze_rss < <(time_v "$D/analyze.time")

  shard_bytes="$(du -sb "$D/shards" | cut -f1)"
  # What the merge reads per run: its manifest and its trace (hashed).
  read_files="$(find "$D"/shards/shard-*/manifests "$D"/shards/shard-*/traces -type f | wc -l)"
  run_bytes="$(du -cb "$D"/shards/shard-*/manifests "$D"/shards/shard-*/traces | tail -1 | cut -f1)"
  plan_bytes="$(du -cb "$D"/shards/shard-*/campaign.json | tail -1 | cut -f1)"
  shard_disk_k="$(du -sk "$D/shards" | cut -f1)"
  # The merged directory beside the shards (manifests and traces hard-linked: counted once).
  merged_extra_k="$(($(du -sk "$D/shards" "$D/merged" | awk '{s += $1} END {print s}') - shard_disk_k))"

  ref=""
  if [[ "$reference" == 1 ]]; then
    /usr/bin/time -v -o "$D/single.time" "$MBB" campaign "$D/scale_$N.yaml" --out "$D/single" \
      --jobs 2 --quiet --record none --max-runs "$N" >"$D/single.log" 2>&1 \
      || { tail -20 "$D/single.log" >&2; echo "scale_study: the unsharded campaign failed" >&2; exit 1; }
    cmp "$D/single/summary.json" "$D/merged/summary.json"
    read -r single_wall _ < <(time_v "$D/single.time")
    ref="; summary.json byte-identical to one unsharded --jobs 2 process (${single_wall} s)"
    reference=0
  fi
  line="$(printf '%s runs, %s shards: shards %s s wall, %s s CPU (%s at a time, --jobs %s); merge %s s wall, peak RSS %s KiB, reading %s files of %s B; analyze --check %s s, peak RSS %s KiB; disk: %s B per run in the shards (manifest + trace %s B, each shard'"'"'s campaign.json %s B), %s KiB on disk in all, merged directory %s KiB more%s' \
    "$N" "$S" "$shards_wall" "$shards_cpu" "$PAR" "$JOBS" "$merge_wall" "$merge_rss" "$read_files" "$run_bytes" "$analyze_wall" "$analyze_rss" \
    "$((shard_bytes / N))" "$((run_bytes / N))" "$((plan_bytes / S))" "$shard_disk_k" "$merged_extra_k" "$ref")"
  echo "$line"
  echo "$(date -u +%FT%TZ) $line" >>"$RESULTS"
  [[ "${SCALE_KEEP:-0}" == 1 ]] || rm -rf "$D"
done
