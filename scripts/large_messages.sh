#!/usr/bin/env bash
# Large-message sweep (issue 27): sensor_msgs/PointCloud2 of 16 KiB .. 1 MiB
# at 10 Hz and 6 MB sensor_msgs/Image at 30 Hz from an rclpy publisher,
# through the fault_injector's any-type channels (tests/interop/large_channels.yaml,
# no fault set, or a delay stage with --delay-s), to a default-configured
# rclpy subscriber (default QoS and socket buffers). Prints per size: sent,
# delivered, intact, lost, and the namespace's UDP RcvbufErrors over the
# class; then the injector's ERROR/WARN line counts and peak RSS.
# Python side: tests/interop/large_messages.py (its docstring has the payload
# check). Everything runs in a private loopback-only network namespace with
# its own ROS_DOMAIN_ID.
#
# Usage: scripts/large_messages.sh [large_messages.py pub options]
#   e.g. scripts/large_messages.sh --count 50
#        scripts/large_messages.sh --sizes 1048576 --count 600 --image-count 0 --delay-s 0.8
# Env:
#   LARGE_BIN_DIR    directory holding the fault_injector binary to test (default:
#                    build the dev profile, use $CARGO_TARGET_DIR/debug); the rclrs
#                    backend's build (issue 27) is tested by pointing this at it
#   LARGE_VENV       rclpy venv with kraken_interfaces (default: <repo>/.venv-ros,
#                    made by scripts/setup_peers.sh + scripts/build_interfaces.sh)
#   LARGE_MODE       relay (default: through the injector) | chain (through two
#                    injectors: a rustdds -> rustdds hop first) | direct (rclpy -> rclpy,
#                    Fast DDS default transports, shared memory) | direct_udp
#                    (rclpy -> rclpy, FASTDDS_BUILTIN_TRANSPORTS=UDPv4)
#   LARGE_DOMAIN_ID  ROS_DOMAIN_ID inside the namespace (default 87)
#   LARGE_ALLOW_LOSS 1: exit 0 even when messages were lost (measuring)
#   LARGE_RUST_LOG   RUST_LOG of the injector (default: its own default filter)
#   LARGE_CHANNELS   the injector's channels file (default tests/interop/large_channels.yaml)
#   LARGE_RCLRS_PREFIX  the ament prefix an rclrs-backend injector runs in
#                    (scripts/rclrs_prefix.sh; its environment from scripts/rclrs_env.sh)
# Exit: 0 when every message arrived intact and the injector logged no ERROR
# or WARN line but the size guard's (none at all on rclrs) (or LARGE_ALLOW_LOSS=1), else 1.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"

if [[ "${LARGE_INSIDE:-}" != 1 ]]; then
  if [[ -z "${LARGE_VENV:-}" ]]; then
    LARGE_VENV="$ROOT/.venv-ros"
    "$ROOT/scripts/setup_peers.sh" "$LARGE_VENV"
    "$ROOT/scripts/build_interfaces.sh" "$LARGE_VENV"
  fi
  if [[ -z "${LARGE_BIN_DIR:-}" && "${LARGE_MODE:-relay}" != direct* ]]; then
    (cd "$ROOT" && cargo build -p kraken_faults --bin fault_injector)
    LARGE_BIN_DIR="$TARGET_DIR/debug"
  fi
  export LARGE_VENV LARGE_BIN_DIR LARGE_INSIDE=1
  exec unshare -n "$0" "$@"
fi

# ---- inside the namespace ----
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo
if ip -o link | grep -v ': lo:' | grep -q .; then
  echo "FAIL large_messages: namespace has interfaces besides lo"; exit 1
fi
export ROS_DOMAIN_ID="${LARGE_DOMAIN_ID:-87}" ROS_DISTRO=jazzy RMW_IMPLEMENTATION=rmw_fastrtps_cpp
PY="$LARGE_VENV/bin/python3"
SCRIPT="$ROOT/tests/interop/large_messages.py"
MODE="${LARGE_MODE:-relay}"
DIR="$(mktemp -d /tmp/large_messages.XXXXXX)"
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
snmp() { awk '/^Udp:/ { if (h) { print $0 } else { h = 1 } }' /proc/net/snmp; }
echo "large_messages: mode $MODE, domain $ROS_DOMAIN_ID, rmem_default $(cat /proc/sys/net/core/rmem_default), args: $*"
UDP_BEFORE="$(snmp)"

PUB_ARGS=() SUB_ARGS=()
CHANNELS="${LARGE_CHANNELS:-$ROOT/tests/interop/large_channels.yaml}"
NODE_ENV=()
if [[ -n "${LARGE_RCLRS_PREFIX:-}" ]]; then
  # shellcheck disable=SC2207
  NODE_ENV=($(source "$ROOT/scripts/rclrs_env.sh" "$LARGE_RCLRS_PREFIX" >/dev/null && echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH AMENT_PREFIX_PATH=$AMENT_PREFIX_PATH"))
fi
if [[ "$MODE" == chain ]]; then
  # A first injector (inj_a) relays the inputs to /cloud_mid, /image_mid; the
  # measured one reads those: a rustdds -> rustdds hop before the last one.
  sed 's|output_topic: /cloud$|output_topic: /cloud_mid|; s|output_topic: /image$|output_topic: /image_mid|' "$CHANNELS" >"$DIR/a.yaml"
  sed 's|input_topic: /cloud_raw|input_topic: /cloud_mid|; s|input_topic: /image_raw|input_topic: /image_mid|' "$CHANNELS" >"$DIR/b.yaml"
  CHANNELS="$DIR/b.yaml"
  env "${NODE_ENV[@]}" KRAKEN_FAULTS_ENABLE=1 "$LARGE_BIN_DIR/fault_injector" --ros-args -r __node:=inj_a \
    -p channels_file:="$DIR/a.yaml" >"$DIR/injector_a.log" 2>&1 &
  PIDS+=("$!")
fi
case "$MODE" in
  relay|chain)
    env "${NODE_ENV[@]}" KRAKEN_FAULTS_ENABLE=1 ${LARGE_RUST_LOG:+RUST_LOG="$LARGE_RUST_LOG"} "$LARGE_BIN_DIR/fault_injector" \
      --ros-args -p channels_file:="$CHANNELS" >"$DIR/injector.log" 2>&1 &
    INJ=$!
    PIDS+=("$INJ")
    for _ in $(seq 100); do grep -q "ready:" "$DIR/injector.log" && break; sleep 0.1; done
    grep -q "ready:" "$DIR/injector.log" || { echo "FAIL injector not ready:"; cat "$DIR/injector.log"; exit 1; }
    ;;
  direct) SUB_ARGS=(--cloud-topic /cloud_raw --image-topic /image_raw) ;;
  direct_udp)
    SUB_ARGS=(--cloud-topic /cloud_raw --image-topic /image_raw)
    export FASTDDS_BUILTIN_TRANSPORTS=UDPv4 ;;
  *) echo "LARGE_MODE must be relay, chain, direct or direct_udp"; exit 2 ;;
esac

"$PY" "$SCRIPT" sub --dir "$DIR" "${SUB_ARGS[@]}" ${LARGE_ALLOW_LOSS:+--allow-loss} >"$DIR/sub.out" 2>&1 &
SUB=$!
PIDS+=("$SUB")
start=$(date +%s)
set +e
"$PY" "$SCRIPT" pub --dir "$DIR" "$@" >"$DIR/pub.out" 2>&1
prc=$?
wait "$SUB"
src=$?
set -e
cat "$DIR/pub.out" | grep -v '^pub: {' || true
cat "$DIR/sub.out"
if [[ "$MODE" == relay || "$MODE" == chain ]]; then
  [[ "$MODE" == chain ]] && echo "first injector (inj_a): ERROR/WARN lines $(grep -cE 'ERROR|WARN' "$DIR/injector_a.log" || true)"
  hwm="$(awk '/VmHWM/ {print $2 " " $3}' "/proc/$INJ/status" 2>/dev/null || echo "?")"
  # CPU seconds the injector used (utime + stime, fields 14 and 15 of stat).
  cpu="$(awk -v hz="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) / hz}' "/proc/$INJ/stat" 2>/dev/null || echo "?")"
  kill -INT "$INJ" 2>/dev/null || true
  set +e; wait "$INJ"; irc=$?; set -e
  echo "injector: exit $irc, peak RSS (VmHWM) $hwm, CPU $cpu s, ERROR lines $(grep -c ERROR "$DIR/injector.log" || true)" \
    "(of them 'missing from send buffer': $(grep -c 'missing from send buffer' "$DIR/injector.log" || true))," \
    "WARN lines $(grep -c WARN "$DIR/injector.log" || true)"
  grep -E "WARN|ERROR" "$DIR/injector.log" | cut -d" " -f2- | sed -E "s/[0-9]+/N/g" | cut -c1-200 | sort | uniq -c | sort -rn | head -5 || true
fi
UDP_AFTER="$(snmp)"
read -r -a b <<<"$UDP_BEFORE"; read -r -a e <<<"$UDP_AFTER"
echo "namespace UDP over the run: InDatagrams +$((e[1] - b[1])), InErrors +$((e[3] - b[3])), RcvbufErrors +$((e[5] - b[5]))"
echo "large_messages: took $(($(date +%s) - start)) s; logs in $DIR"
# A healthy relay logs no ERROR and no WARN but the size guard's one line per
# topic whose messages exceed what the backend delivers (docs/large-messages.md);
# the rclrs backend has no such limit, so with it not even that one.
clean=0
allowed="WARN breakbench_ros::size_guard:" allowed_text="none but the size guard's"
[[ -n "${LARGE_RCLRS_PREFIX:-}" ]] && allowed="^$" allowed_text="none on rclrs"
if [[ "$MODE" != direct* ]] && cat "$DIR"/injector*.log | grep -E "WARN|ERROR" | grep -vq "$allowed"; then
  echo "FAIL large_messages: the injector logged ERROR/WARN lines (allowed: $allowed_text; log: $DIR/injector.log)"
  clean=1
fi
[[ $prc -eq 0 && $src -eq 0 && ( $clean -eq 0 || -n "${LARGE_ALLOW_LOSS:-}" ) ]]
