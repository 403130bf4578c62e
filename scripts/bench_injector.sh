#!/usr/bin/env bash
# Benchmark of the fault_injector node (not a test): added latency over the
# direct DDS path at 1 kHz Imu and 10 Hz LaserScan (1080 beams), the highest
# Imu rate relayed without loss, and RSS under a 0.8 s delay fault.
# Release build; all DDS traffic inside a private network namespace.
# Usage: scripts/bench_injector.sh [SECONDS_PER_PHASE]   (default 10)
# Writes target/bench/fault_injector.json and prints a markdown table.
# Memory modes (faults/kraken_faults/README.md, "Soak benchmark"):
#   BENCH_MODE=soak  scripts/bench_injector.sh 600   10 kHz Imu, 1 s delay, RSS every 10 s
#   BENCH_MODE=flood scripts/bench_injector.sh       60 s delay, 20,000 Imu + 200 1 MB scans
#   BENCH_MODE=flood BENCH_ARGS="--delay-s 0" ...    the same flood relayed healthy (DDS share)
# Any-type path (faults/kraken_faults/README.md, "Any-type benchmark"): the injector on
# config/bench_any_type.yaml, typed vs raw relay in interleaved blocks:
#   BENCH_MODE=any scripts/bench_injector.sh          10 kHz Imu, 1 kHz Imu faulted, 40 Hz LaserScan sector fault
#   BENCH_MODE=any BENCH_ARGS="--rounds 5 --block-s 3" scripts/bench_injector.sh
# BENCH_CHANNELS replaces that channels file (same channel names and topics).
# BENCH_DOMAIN_ID sets ROS_DOMAIN_ID inside the namespace (default 77).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
SECS="${1:-10}"
if [[ "${2:-}" != "--inside" ]]; then
  (cd "$ROOT" && nice -n 19 cargo build --release -p kraken_faults --bins)
  mkdir -p "$TARGET_DIR/bench"
  exec unshare -n "$0" "$SECS" --inside
fi
ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
export ROS_DOMAIN_ID="${BENCH_DOMAIN_ID:-77}" ROS_DISTRO=jazzy
INJ_ARGS=()
if [[ "${BENCH_MODE:-}" == any ]]; then
  INJ_ARGS=(--ros-args -p "channels_file:=${BENCH_CHANNELS:-$ROOT/faults/kraken_faults/config/bench_any_type.yaml}")
fi
KRAKEN_FAULTS_ENABLE=1 RUST_LOG=warn "$TARGET_DIR/release/fault_injector" "${INJ_ARGS[@]}" >"$TARGET_DIR/bench/fault_injector${BENCH_MODE:+_$BENCH_MODE}.log" 2>&1 &
INJ=$!
trap 'kill $INJ 2>/dev/null || true' EXIT
sleep 1
if [[ -n "${BENCH_MODE:-}" ]]; then
  # shellcheck disable=SC2086
  RUST_LOG=error "$TARGET_DIR/release/fault_injector_bench" --injector-pid "$INJ" --seconds "$SECS" --mode "$BENCH_MODE" ${BENCH_ARGS:-}
  echo "injector WARN/ERROR lines: $(grep -cE 'WARN|ERROR' "$TARGET_DIR/bench/fault_injector${BENCH_MODE:+_$BENCH_MODE}.log" || true)"
else
RUST_LOG=error "$TARGET_DIR/release/fault_injector_bench" --injector-pid "$INJ" --seconds "$SECS" --json "$TARGET_DIR/bench/fault_injector.json"
fi
echo "host: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
