#!/usr/bin/env bash
# Real-time-factor sweep of the corridor ROS graph (REQ-GRAPH-MATCHES-IN-PROCESS, speed): runs
# `breakbench up launch/corridor.graph.yaml` on the corridor study's first
# nominal run (nominal_000) and odom bias 0.2 cell (repeat 0), with the same
# plant seed as in-process, at
# each sim_bridge real_time_factor given (0 = lock-step), and compares each
# graph verdict (safety violation, mission failure, self-report) with the
# in-process campaign's run of the same cell. A benchmark, not a test: it
# prints a table and exits 0 unless a run produced no verdict.
#
# Usage: scripts/graph_rtf.sh [FACTOR...]       (default: 0 1 5 10 20 50 100)
# Env:   CARGO_PROFILE (default dev), RTF_DOMAIN_BASE (default 120),
#        RTF_REPEATS (default 1: runs per factor and cell).
# Every DDS packet stays in a loopback-only network namespace (scripts/netns.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROFILE="${CARGO_PROFILE:-dev}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ "$PROFILE" == dev ]]; then BIN="$TARGET_DIR/debug"; else BIN="$TARGET_DIR/$PROFILE"; fi
OUT="${RTF_OUT:-$TARGET_DIR/graph-rtf}"
FACTORS=("$@")
[[ ${#FACTORS[@]} -gt 0 ]] || FACTORS=(0 1 5 10 20 50 100)

if [[ "${GRAPH_RTF_INSIDE:-}" != 1 ]]; then
  (cd "$ROOT" && cargo build --profile "$PROFILE" --bins -p breakbench -p breakbench_sim_bridge -p breakbench_oracle -p kraken_faults)
  rm -rf "$OUT"; mkdir -p "$OUT"
  "$BIN/breakbench" campaign "$ROOT/scenarios/corridor_study.yaml" --out "$OUT/campaign" --quiet >/dev/null
  GRAPH_RTF_INSIDE=1 exec "$ROOT/scripts/netns.sh" "$0" "${FACTORS[@]}"
fi

field() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); v=m['verdict']; \
print(int(not(v['operating_region_containment']['holds'] and v['obstacle_clearance']['holds'])), \
int(not v['mission_completion_true_pose']['holds']), m['self_report'], m['seed'] - (1 << 64) * (m['seed'] >= 1 << 63))" "$1"; }

printf '%-6s %-9s %8s %8s  %-26s %-26s %s\n' factor cell wall_s rtf graph in-process match
dom=${RTF_DOMAIN_BASE:-120}
REPEATS=${RTF_REPEATS:-1}
for f in "${FACTORS[@]}"; do
 for rep in $(seq "$REPEATS"); do
  for cell in nominal bias0.2; do
    if [[ $cell == nominal ]]; then ref="nominal_000"; sc=(); else ref="grid_latency_s0_odom_bias0.2_r0"; sc=(--scenario "$ROOT/tests/e2e/odom_bias_0.2.yaml"); fi
    read -r rs rm rr seed < <(field "$OUT/campaign/manifests/$ref.json")
    id="rtf${f}_${cell}_$rep"
    dom=$((dom + 1))
    t0=$(date +%s.%N)
    set +e
    BREAKBENCH_BIN_DIR="$BIN" "$BIN/breakbench" up "$ROOT/launch/corridor.graph.yaml" --quiet --domain-id $dom --timeout-s 600 \
      --set sim_bridge.real_time_factor="$f" --set sim_bridge.seed="$seed" --set oracle.seed="$seed" \
      --set oracle.run_id="$id" --set oracle.manifest_dir="$OUT" "${sc[@]}" >"$OUT/$id.log" 2>&1
    rc=$?
    set -e
    wall=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$t0" "$(date +%s.%N)")
    if [[ ! -f "$OUT/manifests/$id.json" ]]; then
      printf '%-6s %-9s %8s %8s  %s\n' "$f" "$cell" "$wall" - "NO VERDICT (exit $rc, log $OUT/$id.log)"; continue
    fi
    read -r gs gm gr _ < <(field "$OUT/manifests/$id.json")
    rtf=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(f\"{m['sim_time_s']/max(m['wall_time_s'],1e-9):.1f}\")" "$OUT/manifests/$id.json")
    g="safety=$gs mission=$gm $gr"; r="safety=$rs mission=$rm $rr"
    [[ "$g" == "$r" ]] && m=yes || m=NO
    printf '%-6s %-9s %8s %8s  %-26s %-26s %s\n' "$f" "$cell" "$wall" "$rtf" "$g" "$r" "$m"
  done
 done
done
