#!/usr/bin/env bash
# CI of the rclrs variant of the nodes (issue 27), from the ros-jazzy-* PyPI
# wheels and ../shared/tools/rosidl_rust only; scripts/test.sh runs it after the
# ros2 CLI step (it needs that step's colcon install, .venv-ros and
# target/debug/fault_injector from the interop step):
#
#  1. the ament prefix (scripts/rclrs_prefix.sh; cached by a stamp);
#  2. the five node binaries the checks below start, with the feature `rclrs`
#     (scripts/rclrs_build.sh: fault_injector, kraken_scenario, sim_bridge,
#     simple_navigator, oracle; not ekf_node, the orchestrator or the readiness
#     probe, which no check here runs);
#  3. interop phases with the rclrs fault_injector (scripts/interop.sh):
#     1 production guard; 2 rclpy peer: faulted values field by field, set_fault
#     and clear_faults from rclpy, GetParameters; 3 RMW_IMPLEMENTATION naming
#     rmw_cyclonedds_cpp, which the wheel prefix lacks, is refused; 11 any-type
#     channel: a fault stack from rclpy, on sim time, rclpy's serialized bytes
#     relayed unchanged, and one incompatible-QoS WARN each for a mismatched
#     output and input (REQ-FAULT-QOS); 14 large messages:
#     PointCloud2 16 KiB .. 1 MiB and 6 MB images at 30 Hz to a default rclpy
#     subscriber, nothing lost, no WARN at all; 15 the real ros2 CLI: param get,
#     service call set_fault/clear_faults, topic echo of the status, no ERROR/WARN;
#  4. the ros2-client fault_injector with the same 6 MB images: delivery is not
#     asserted (docs/large-messages.md: 0 to 3 of 30), its size guard's one WARN
#     naming the topic, the size and the limit is;
#  5. `ros2 launch breakbench corridor.launch.py` with every node on rclrs and
#     the two mixed graphs, and slice 0/3 of tests/graph/scan_loss.yaml (its
#     first faulted run and first nominal run) on an all-rclrs graph, each with
#     the in-process verdict (scripts/rclrs_launch_test.sh; all six runs there
#     take 142 s, too long for CI).
# Prints each part's time. Needs root for the network namespaces.
#
# Usage: scripts/rclrs_ci.sh
# Env: RCLRS_PREFIX (default <repo>/target/rclrs-prefix), RCLRS_TARGET_DIR
#      (default <repo>/target/rclrs), COLCON_WS (default <repo>/target/ws).
# Phase 13 (the bug-case scenarios by the rclrs kraken_scenario) runs by hand
# (INTEROP_PHASES=13 scripts/interop_rclrs.sh), not here: in a clean-clone run
# one set_fault_stack reply of the rclrs client never arrived within 10 s
# although the fault was applied (a lost service reply, issue 27's note).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${RCLRS_PREFIX:-$ROOT/target/rclrs-prefix}")"
BIN="${RCLRS_TARGET_DIR:-$ROOT/target/rclrs}/rclrs-bin"
VENV="$ROOT/.venv-ros"
t0=$(date +%s)
lap() { echo "rclrs_ci: $1 took $(( $(date +%s) - $2 )) s"; }

t=$(date +%s)
"$ROOT/scripts/rclrs_prefix.sh" "$PREFIX"
lap "the prefix" "$t"

t=$(date +%s)
"$ROOT/scripts/rclrs_build.sh" "$PREFIX" fault_injector kraken_scenario sim_bridge simple_navigator oracle
lap "the rclrs build" "$t"

t=$(date +%s)
INTEROP_BIN="$BIN" INTEROP_RCLRS_PREFIX="$PREFIX" INTEROP_PHASES="1 2 3 11 14 15" INTEROP_DOMAIN_BASE=140 \
  "$ROOT/scripts/interop.sh"
lap "interop phases 1 2 3 11 14 15 with the rclrs fault_injector" "$t"

t=$(date +%s)
DEF="$ROOT/target/debug"
[[ -x "$DEF/fault_injector" ]] || (cd "$ROOT" && cargo build -p kraken_faults --bin fault_injector)
out="$(LARGE_ALLOW_LOSS=1 LARGE_VENV="$VENV" LARGE_BIN_DIR="$DEF" LARGE_DOMAIN_ID=158 \
  "$ROOT/scripts/large_messages.sh" --sizes 16384 --count 2 --image-count 3 --settle-s 1 2>&1)"
echo "$out"
# The injector's log (large_messages.sh names its folder): exactly one WARN line, the size guard's.
log="$(echo "$out" | sed -n 's/^large_messages: took .* logs in //p')/injector.log"
warns="$(grep -E "WARN|ERROR" "$log" || true)"
if [[ "$(echo "$warns" | wc -l)" == 1 ]] \
  && echo "$warns" | grep -Eq "WARN breakbench_ros::size_guard: topic /image: a message of 62[0-9]{5} bytes exceeds 1052672 bytes, the largest the ros2-client/rustdds backend .* use the rclrs backend"; then
  echo "PASS ros2-client fault_injector, 6 MB images: one WARN naming /image, the size and the limit, pointing to the rclrs backend"
else
  echo "FAIL ros2-client fault_injector, 6 MB images: not exactly one size guard WARN for /image ($log): $warns"; exit 1
fi
lap "6 MB images through the ros2-client fault_injector" "$t"

t=$(date +%s)
RCLRS_PREFIX="$PREFIX" RCLRS_BIN="$BIN" RCLRS_E2E_SHARD=0/3 "$ROOT/scripts/rclrs_launch_test.sh"
lap "ros2 launch with rclrs nodes, mixed graphs" "$t"
echo "rclrs_ci: all passed in $(( $(date +%s) - t0 )) s"
