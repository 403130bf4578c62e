#!/usr/bin/env bash
# Benchmark of the two backends of the fault_injector (issue 27; not a test):
# the added latency p50/p99 at 1 kHz sensor_msgs/Imu and the highest rate
# relayed without loss, the rclrs injector against the ros2-client one against
# the direct rclpy -> rclpy path, in one run, inside a loopback-only network
# namespace (scripts/netns.sh) on its own ROS_DOMAIN_ID.
#
# Each round starts one injector (no fault; the shipped channels file, whose
# imu channel is best effort, KEEP_LAST 1000), then scripts/injector_latency.py:
# an rclpy publisher on /imu/data_raw runs the phases (RATE_HZ:SECONDS) while an
# rclpy subscriber reads both /imu/data_raw (direct) and the injector's
# /imu/data, so every message is timed on both paths; "added" = injector
# arrival - direct arrival of the same message. Rounds alternate the order of
# the backends (ros2-client first in odd rounds) so other load hits both alike.
# Prints one table row per (round, backend, rate) and the load average.
#
# Usage: scripts/bench_backends.sh
# Env: BENCH_PHASES (default 1000:10,2000:3,5000:3,10000:3,15000:3), BENCH_ROUNDS (default 2),
#      BENCH_DEFAULT_BIN (default <repo>/target/debug: the dev profile is optimised),
#      BENCH_RCLRS_BIN (default <repo>/target/rclrs/rclrs-bin, scripts/rclrs_build.sh),
#      RCLRS_PREFIX (default <repo>/target/rclrs-prefix), BENCH_VENV (default <repo>/.venv-ros),
#      BENCH_DOMAIN_ID (default 97). Results: target/bench/backends.json.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${BENCH_VENV:-$ROOT/.venv-ros}"
DEF_BIN="${BENCH_DEFAULT_BIN:-$ROOT/target/debug}"
RCLRS_BIN="${BENCH_RCLRS_BIN:-$ROOT/target/rclrs/rclrs-bin}"
PREFIX="$(realpath -m "${RCLRS_PREFIX:-$ROOT/target/rclrs-prefix}")"
PHASES="${BENCH_PHASES:-1000:10,2000:3,5000:3,10000:3,15000:3}"
ROUNDS="${BENCH_ROUNDS:-2}"
for f in "$DEF_BIN/fault_injector" "$RCLRS_BIN/fault_injector" "$VENV/bin/python3"; do
  [[ -x "$f" ]] || { echo "bench_backends: $f missing (cargo build -p kraken_faults --bin fault_injector; scripts/rclrs_build.sh PREFIX fault_injector)" >&2; exit 1; }
done
if [[ "${1:-}" != "--inside" ]]; then
  exec "$ROOT/scripts/netns.sh" "$0" --inside
fi
export ROS_DOMAIN_ID="${BENCH_DOMAIN_ID:-97}" ROS_DISTRO=jazzy RMW_IMPLEMENTATION=rmw_fastrtps_cpp
RCLRS_LD="$(unset LD_LIBRARY_PATH; source "$ROOT/scripts/rclrs_env.sh" "$PREFIX" && echo "$LD_LIBRARY_PATH")"
DIR="$(mktemp -d /tmp/bench_backends.XXXXXX)"
INJ=""
cleanup() { [[ -n "$INJ" ]] && kill "$INJ" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$DIR"; }
trap cleanup EXIT
mkdir -p "$ROOT/target/bench"
echo "bench_backends: phases $PHASES, $ROUNDS rounds; load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
ALL=()
for round in $(seq "$ROUNDS"); do
  order=(ros2_client rclrs)
  (( round % 2 == 0 )) && order=(rclrs ros2_client)
  for backend in "${order[@]}"; do
    d="$DIR/r$round-$backend"
    mkdir -p "$d"
    if [[ "$backend" == rclrs ]]; then
      env LD_LIBRARY_PATH="$RCLRS_LD" KRAKEN_FAULTS_ENABLE=1 "$RCLRS_BIN/fault_injector" >"$d/injector.log" 2>&1 &
    else
      KRAKEN_FAULTS_ENABLE=1 "$DEF_BIN/fault_injector" >"$d/injector.log" 2>&1 &
    fi
    INJ=$!
    for _ in $(seq 100); do grep -qs "ready:" "$d/injector.log" && break; sleep 0.1; done
    "$VENV/bin/python3" "$ROOT/scripts/injector_latency.py" sub --dir "$d" --out "$d/result.json" >"$d/sub.out" 2>&1 &
    sub=$!
    "$VENV/bin/python3" "$ROOT/scripts/injector_latency.py" pub --dir "$d" --phases "$PHASES" >"$d/pub.out" 2>&1 || { cat "$d/pub.out"; exit 1; }
    wait "$sub" || { cat "$d/sub.out"; exit 1; }
    cpu="$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$INJ/stat")"
    rss="$(awk '/VmHWM/ {print $2}' "/proc/$INJ/status")"
    kill -INT "$INJ"; wait "$INJ" || true; INJ=""
    echo "round $round $backend: injector CPU $cpu s, peak RSS $rss kB, WARN/ERROR lines $(grep -cE 'WARN|ERROR' "$d/injector.log" || true); load $(cut -d' ' -f1-3 /proc/loadavg)"
    grep "^pub:" "$d/pub.out" || true
    ALL+=("$(python3 -c 'import json,sys; print(json.dumps({"round": int(sys.argv[1]), "backend": sys.argv[2], "cpu_s": float(sys.argv[3]), "rss_kb": int(sys.argv[4]), "phases": json.load(open(sys.argv[5]))}))' \
      "$round" "$backend" "$cpu" "$rss" "$d/result.json")")
  done
done
printf '%s\n' "${ALL[@]}" >"$ROOT/target/bench/backends.json"
python3 - "$ROOT/target/bench/backends.json" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
f = lambda v: "-" if v is None else f"{v:,.0f}"
print("| round | backend | rate Hz | sent | direct lost | injector lost | direct p50 / p99 µs | injector p50 / p99 µs | added p50 / p99 µs (paired) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    for p in r["phases"]:
        d, i, a = p["direct"], p["injector"], p["added"]
        print(f"| {r['round']} | {r['backend']} | {p['rate_hz']:.0f} | {p['sent']} | {d['lost']} | {i['lost']} | "
              f"{f(d['p50_us'])} / {f(d['p99_us'])} | {f(i['p50_us'])} / {f(i['p99_us'])} | {f(a['p50_us'])} / {f(a['p99_us'])} |")
for b in ("ros2_client", "rclrs"):
    ok = [p["rate_hz"] for r in rows if r["backend"] == b for p in r["phases"]]
    lossless = sorted({x for x in ok if all(p["injector"]["lost"] == 0 for r in rows if r["backend"] == b
                                             for p in r["phases"] if p["rate_hz"] == x)})
    direct = sorted({x for x in ok if all(p["direct"]["lost"] == 0 for r in rows for p in r["phases"] if p["rate_hz"] == x)})
    print(f"{b}: rates with no loss through the injector in every round: {lossless}; direct path lossless at {direct}")
EOF
echo "bench_backends: load average at the end $(cut -d' ' -f1-3 /proc/loadavg); results in target/bench/backends.json"
