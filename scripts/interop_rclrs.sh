#!/usr/bin/env bash
# The interop phases against real rclpy (Fast DDS) with the rclrs variant of
# the fault injector (issue 27): makes the prefix (scripts/rclrs_prefix.sh),
# builds every node binary with the feature `rclrs` (scripts/rclrs_build.sh) into
# target/rclrs/rclrs-bin (so a default build does not overwrite them) and runs
# scripts/interop.sh on them inside its loopback-only network namespace.
# Phases by default (INTEROP_PHASES overrides): every phase of interop.sh that
# runs a node: 1 (production guard), 2 (rclpy peer: faulted values field by
# field, set_fault from rclpy), 3 (on rclrs: RMW_IMPLEMENTATION=rmw_cyclonedds_cpp
# refused, the wheel prefix being Fast DDS only),
# 4 (kraken_scenario), 5 (remap, use_sim_time, TF keep-alive), 6 (sim_bridge),
# 7 (the corridor graph, every node on rclrs, watched by rclpy), 8 (hostile
# requests), 9 (ekf_node), 11 (any-type channel: fault stack, sim time,
# byte-exact relay; the incompatible-QoS WARNs), 12 (/clock and /tf faults),
# 13 (the bug-case scenarios by kraken_scenario), 14 (large messages, 16 KiB ..
# 1 MiB), 15 (the real ros2 CLI: param get, service call, topic echo). Needs root for unshare -n.
# Usage: scripts/interop_rclrs.sh [PREFIX]   (default <repo>/target/rclrs-prefix)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${1:-$ROOT/target/rclrs-prefix}")"
start=$(date +%s)
"$ROOT/scripts/rclrs_prefix.sh" "$PREFIX"
# Every node binary with the feature, into target/rclrs/rclrs-bin (scripts/rclrs_build.sh;
# RCLRS_BINS names fewer, e.g. the four the corridor graph needs).
# shellcheck disable=SC2086
"$ROOT/scripts/rclrs_build.sh" "$PREFIX" ${RCLRS_BINS:-}
BIN="${RCLRS_TARGET_DIR:-$ROOT/target/rclrs}/rclrs-bin"
echo "interop_rclrs: prefix + rclrs build took $(( $(date +%s) - start )) s"
INTEROP_BIN="$BIN" INTEROP_RCLRS_PREFIX="$PREFIX" INTEROP_PHASES="${INTEROP_PHASES:-1 2 3 4 5 6 7 8 9 11 12 13 14 15}" \
  INTEROP_DOMAIN_BASE="${INTEROP_DOMAIN_BASE:-140}" exec "$ROOT/scripts/interop.sh"
