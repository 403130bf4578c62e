#!/usr/bin/env bash
# Service storm (issue 27): N set_fault calls from an rclpy client (Fast DDS)
# at up to 1 kHz without waiting for replies, against the fault_injector and
# against an rclpy server (the direct path); prints how many replies reached
# the client on each path. Inside a loopback-only network namespace, own
# ROS_DOMAIN_ID. A measurement, not a CI test.
# Usage: scripts/service_storm.sh [N]   (default 10001; needs .venv-ros and
# kraken_interfaces built into it: scripts/setup_peers.sh, scripts/build_interfaces.sh)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
N="${1:-10001}"
PY="$ROOT/.venv-ros/bin/python3"
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/debug"
if [[ "${2:-}" != "--inside" ]]; then
  (cd "$ROOT" && cargo build -q -p kraken_faults --bin fault_injector)
  exec "$ROOT/scripts/netns.sh" "$0" "$N" --inside
fi
export ROS_DISTRO=jazzy ROS_DOMAIN_ID=87 RMW_IMPLEMENTATION=rmw_fastrtps_cpp
LOG="$(mktemp -d)"
wait_ready() { for _ in $(seq 200); do grep -q "ready:" "$1" && return 0; sleep 0.1; done; cat "$1"; return 1; }
for path in fault_injector rclpy; do
  if [[ $path == fault_injector ]]; then
    KRAKEN_FAULTS_ENABLE=1 "$BIN/fault_injector" >"$LOG/$path.log" 2>&1 &
  else
    "$PY" "$ROOT/tests/interop/rclpy_service_storm.py" server >"$LOG/$path.log" 2>&1 &
  fi
  srv=$!
  wait_ready "$LOG/$path.log"
  printf '%-15s ' "$path:"
  timeout 120 "$PY" "$ROOT/tests/interop/rclpy_service_storm.py" client "$N"
  kill -INT "$srv"; wait "$srv" || true
done
