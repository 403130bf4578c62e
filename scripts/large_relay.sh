#!/usr/bin/env bash
# Quick large-message measurement (issue 27): for each size, a fault injector
# (no fault set) relays COUNT PointCloud2 at RATE Hz from an rclpy publisher to
# a default rclpy subscriber (tests/interop/rclpy_large_relay.py), inside a
# loopback-only network namespace with its own ROS_DOMAIN_ID. Prints the
# delivered counts, via the injector and direct.
# Usage: scripts/large_relay.sh BIN_DIR PYTHON [SIZES...]
#   BIN_DIR: folder of the fault_injector to measure; PYTHON: an rclpy interpreter
#   (e.g. .venv-ros/bin/python3). SIZES in bytes (default 262144 524288 1048576).
# Env: LARGE_RCLRS_PREFIX (run the injector with scripts/rclrs_env.sh's environment),
#      LARGE_COUNT (50), LARGE_RATE (10), LARGE_DOMAIN (150), LARGE_DELAY_S (a delay
#      stage set on the channel first, seconds; default none)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
if [[ "${1:-}" != "--inside" ]]; then exec unshare -n "$0" --inside "$@"; fi
shift
BIN="$(realpath "$1")"; PY="$2"; shift 2
SIZES=("${@:-}")
[[ -n "${SIZES[0]}" ]] || SIZES=(262144 524288 1048576)
ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
export ROS_DOMAIN_ID="${LARGE_DOMAIN:-150}" ROS_DISTRO=jazzy RMW_IMPLEMENTATION=rmw_fastrtps_cpp
NODE_ENV=()
if [[ -n "${LARGE_RCLRS_PREFIX:-}" ]]; then
  NODE_ENV=(env $(source "$ROOT/scripts/rclrs_env.sh" "$LARGE_RCLRS_PREFIX" && echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH AMENT_PREFIX_PATH=$AMENT_PREFIX_PATH"))
fi
LOG="$(mktemp -d /tmp/large_relay.XXXXXX)"
for size in "${SIZES[@]}"; do
  KRAKEN_FAULTS_ENABLE=1 "${NODE_ENV[@]}" "$BIN/fault_injector" --ros-args \
    -p channels_file:="$ROOT/tests/interop/large_channels.yaml" >"$LOG/injector_$size.log" 2>&1 &
  inj=$!
  for _ in $(seq 100); do grep -q "ready:" "$LOG/injector_$size.log" && break; sleep 0.1; done
  rss0=$(ps -o rss= -p "$inj" | tr -d ' ')
  timeout 120 "$PY" "$ROOT/tests/interop/rclpy_large_relay.py" "$size" "${LARGE_COUNT:-50}" "${LARGE_RATE:-10}" ${LARGE_DELAY_S:+"$LARGE_DELAY_S"} || true
  rss1=$(ps -o rss= -p "$inj" | tr -d ' ')
  kill -INT "$inj"; rc=0; wait "$inj" || rc=$?
  echo "  injector: exit $rc, RSS ${rss0} -> ${rss1} KiB, ERROR/WARN lines: $(grep -cE ' (ERROR|WARN) ' "$LOG/injector_$size.log" || true)"
done
echo "logs in $LOG"
