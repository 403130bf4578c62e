#!/usr/bin/env bash
# The interop phases against real rclpy (Fast DDS) with the rclrs variant of
# the fault injector (issue 27): makes the prefix (scripts/rclrs_prefix.sh),
# builds every node binary with the feature `rclrs`, copies them to
# target/rclrs-bin (so a default build does not overwrite them) and runs
# scripts/interop.sh on them inside its loopback-only network namespace.
# Phases by default (INTEROP_PHASES overrides): every phase of interop.sh that
# runs a node but 3 (Cyclone DDS: the wheel prefix is Fast DDS only) and 13 (its
# peer runs kraken_scenario without the prefix's environment): 1 (production
# guard), 2 (rclpy peer: faulted values field by field, set_fault from rclpy),
# 4 (kraken_scenario), 5 (remap, use_sim_time, TF keep-alive), 6 (sim_bridge),
# 7 (the corridor graph, every node on rclrs, watched by rclpy), 8 (hostile
# requests), 9 (ekf_node), 11 (any-type channel: fault stack, sim time,
# byte-exact relay), 12 (/clock and /tf faults), 14 (large messages, 16 KiB ..
# 1 MiB), 15 (the real ros2 CLI: param get, service call, topic echo). Needs root for unshare -n.
# Usage: scripts/interop_rclrs.sh [PREFIX]   (default <repo>/target/rclrs-prefix)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${1:-$ROOT/target/rclrs-prefix}")"
start=$(date +%s)
"$ROOT/scripts/rclrs_prefix.sh" "$PREFIX"
PROFILE="${CARGO_PROFILE:-dev}"
# A target directory of its own: the same binaries with another feature set
# would otherwise replace the default build's in target/debug.
TARGET_DIR="${RCLRS_TARGET_DIR:-$ROOT/target/rclrs}"
if [[ "$PROFILE" == dev ]]; then OUT="$TARGET_DIR/debug"; else OUT="$TARGET_DIR/$PROFILE"; fi
(
  # shellcheck source=rclrs_env.sh
  source "$ROOT/scripts/rclrs_env.sh" "$PREFIX"
  cd "$ROOT" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build ${CARGO_JOBS:+-j "$CARGO_JOBS"} --profile "$PROFILE" --bins \
    -p breakbench -p kraken_faults -p breakbench_sim_bridge -p breakbench_oracle -p breakbench_estimator \
    --features breakbench/rclrs,kraken_faults/rclrs,breakbench_sim_bridge/rclrs,breakbench_oracle/rclrs,breakbench_estimator/rclrs
)
BIN="$TARGET_DIR/rclrs-bin"
mkdir -p "$BIN"
for b in breakbench breakbench_orchestrator breakbench_ready simple_navigator fault_injector kraken_scenario \
  sim_bridge oracle ekf_node; do
  cp "$OUT/$b" "$BIN/"
done
echo "interop_rclrs: prefix + rclrs build took $(( $(date +%s) - start )) s"
INTEROP_BIN="$BIN" INTEROP_RCLRS_PREFIX="$PREFIX" INTEROP_PHASES="${INTEROP_PHASES:-1 2 4 5 6 7 8 9 11 12 14 15}" \
  INTEROP_DOMAIN_BASE="${INTEROP_DOMAIN_BASE:-140}" exec "$ROOT/scripts/interop.sh"
