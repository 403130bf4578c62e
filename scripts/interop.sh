#!/usr/bin/env bash
# Interop checks of the fault_injector node against real ROS 2 peers:
#   1. production guard (no DDS needed),
#   2. ROS 2 Jazzy rclpy on Fast DDS (tests/interop/rclpy_peer.py, real
#      rosidl-generated kraken_interfaces types),
#   3. Eclipse Cyclone DDS with the Cyclone service mapping
#      (tests/interop/cyclone_peer.py, RMW_IMPLEMENTATION=rmw_cyclonedds_cpp),
#   4. kraken_scenario driving the node from a scenario file,
#   5. remapping + use_sim_time with an rclpy /clock publisher,
#   6. sim_bridge with an rclpy peer (decoded sensor values, /cmd_vel drives it),
#   7. the corridor graph (breakbench up) watched by an rclpy peer (/oracle/status),
#   8. hostile requests through the real service path,
#   9. ekf_node fed by an rclpy peer (odometry/filtered, /diagnostics, /rosout).
#  10. breakbench_msgs against the wheels (no DDS): the built-in .msg wire
#      contracts equal the wheels' files, and rclpy's CDR bytes of every
#      built-in type decode to rclpy's values and re-encode to the same bytes.
#  11. a channel of any message type (sensor_msgs/Range, relayed as raw CDR)
#      with a fault stack set, extended and cleared by id from rclpy
#      (tests/interop/rclpy_any_type.py), on the wall clock and on sim time,
#      and untouched, byte for byte (tests/interop/rclpy_byte_exact.py).
#  12. /clock and /tf channels under use_sim_time: throttle, jump back, stall,
#      a frame-filtered tf drop and delay (tests/interop/rclpy_clock_tf.py).
#  13. the bug-case scenarios (faults/kraken_faults/scenarios/bugs) by kraken_scenario,
#      checked by an rclpy consumer (tests/interop/phase13_bug_cases.sh).
#  14. large messages (issue 27): PointCloud2 of 16 KiB .. 1 MiB, 10 of each at
#      10 Hz (with an rclrs injector also 10 images of 6 MB at 30 Hz), through an
#      any-type channel to a default rclpy subscriber, all intact, no ERROR/WARN
#      (scripts/large_messages.sh; about 15 s).
#  15. the real ros2 CLI against the injector alone: ros2 param get, ros2
#      service call set_fault / clear_faults, ros2 topic echo of the status.
#  16. sim_bridge's simulation_interfaces services (issue 29) called by rclpy with
#      the types of the real rosidl generators (scripts/build_simif.sh): reset,
#      pause, step N, the robot's entity state equal to the in-process plant's
#      (robot/breakbench_sim_bridge/tests/plant.rs) to 1e-9, refusals
#      (tests/interop/rclpy_simif.py).
# Every DDS packet stays inside a private network namespace with only
# loopback (unshare -n), and each phase uses a ROS_DOMAIN_ID of its own.
# Exits non-zero when any check fails.
#
# Usage: scripts/interop.sh            (needs root for unshare -n)
# Env:   INTEROP_DOMAIN_BASE (default 40), CARGO_PROFILE (default dev)
#        INTEROP_PHASES: the phases to run, e.g. "1 2 11" (default: all)
#        SIMIF_PREFIX: where scripts/build_simif.sh installs simulation_interfaces
#          (default: the venv, as kraken_interfaces)
#        INTEROP_BIN: a folder of already-built node binaries to test instead of
#          building target/<profile> (e.g. the rclrs variant, issue 27)
#        INTEROP_RCLRS_PREFIX: the ament prefix those binaries run against
#          (scripts/rclrs_prefix.sh); the nodes get scripts/rclrs_env.sh's
#          environment, the peers keep their own
# rclrs variant:  scripts/interop_rclrs.sh (every node phase with the rclrs nodes; phase 3
#                 then checks that RMW_IMPLEMENTATION=rmw_cyclonedds_cpp is refused: the
#                 wheel prefix is Fast DDS only)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$ROOT/.venv-ros"
PROFILE="${CARGO_PROFILE:-dev}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
if [[ "$PROFILE" == dev ]]; then BIN="$TARGET_DIR/debug"; else BIN="$TARGET_DIR/$PROFILE"; fi
BIN="${INTEROP_BIN:-$BIN}"
PHASES=" ${INTEROP_PHASES:-1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17} "
export SIMIF_PREFIX="${SIMIF_PREFIX:-$VENV}"
want() { [[ "$PHASES" == *" $1 "* ]]; }
# The nodes' environment: an rclrs variant needs its prefix's libraries (only the nodes: the
# rclpy peers keep the venv's own; AMENT_PREFIX_PATH stays the phase's, breakbench_msgs reads
# .msg files through it). `env` execs the node, so $! is the node's pid. Phase 3 is Cyclone
# DDS, which the wheel prefix lacks: with an rclrs variant it checks instead that naming
# rmw_cyclonedds_cpp is refused; phase 13's peer runs kraken_scenario through a wrapper
# with this environment.
NODE_ENV=()
if [[ -n "${INTEROP_RCLRS_PREFIX:-}" ]]; then
  NODE_ENV=(env "$(source "$ROOT/scripts/rclrs_env.sh" "$INTEROP_RCLRS_PREFIX" && echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH")")
fi
BASE="${INTEROP_DOMAIN_BASE:-40}"

if [[ "${1:-}" != "--inside" ]]; then
  start=$(date +%s)
  "$ROOT/scripts/setup_peers.sh" "$VENV"
  if ! "$ROOT/scripts/build_interfaces.sh" "$VENV"; then
    echo "FAIL interop: rosidl build of kraken_interfaces failed (see above); the rclpy peer needs it"
    exit 1
  fi
  if want 16 && ! "$ROOT/scripts/build_simif.sh" "$VENV" "$SIMIF_PREFIX"; then
    echo "FAIL interop: rosidl build of simulation_interfaces failed (see above); phase 16 needs it"
    exit 1
  fi
  if [[ -n "${INTEROP_BIN:-}" ]]; then
    echo "interop: testing the binaries in $INTEROP_BIN (not building)"
  else
  (cd "$ROOT" && cargo build --profile "$PROFILE" -p kraken_faults --bins)
  # (graph block, phase 6: the sim_bridge node)
  # (phase 9: breakbench_estimator's ekf_node, in the same build: one feature set)
  (cd "$ROOT" && cargo build --profile "$PROFILE" -p breakbench_sim_bridge -p breakbench_oracle -p breakbench -p breakbench_estimator --bins)
  # (phase 10: breakbench_msgs' two peer tests, built here, run inside)
  (cd "$ROOT" && cargo test --profile "$PROFILE" -p breakbench_msgs --test golden --test builtin_vs_wheels --no-run)
  # (phase 16: the in-process plant's expected pose)
  (cd "$ROOT" && cargo test --profile "$PROFILE" -p breakbench_sim_bridge --test plant --no-run)
  fi
  echo "interop: set-up took $(( $(date +%s) - start )) s; entering a private network namespace"
  exec unshare -n "$0" --inside
fi

# ---- inside the namespace ----
ip link set lo up
ip link set lo multicast on
ip route add 224.0.0.0/4 dev lo
if ip -o link | grep -v ': lo:' | grep -q .; then
  echo "FAIL interop: namespace has interfaces besides lo"; exit 1
fi

PY="$VENV/bin/python3"
# simulation_interfaces (scripts/build_simif.sh) for the rclpy peers and breakbench_msgs'
# tests when installed into a prefix of its own (phases 10 and 16).
SIMIF_ENV=()
if [[ -d "$SIMIF_PREFIX/share/simulation_interfaces" ]]; then
  pyver="$("$PY" -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')"
  SIMIF_ENV=(env "PYTHONPATH=$SIMIF_PREFIX/lib/$pyver/site-packages${PYTHONPATH:+:$PYTHONPATH}"
    "LD_LIBRARY_PATH=$SIMIF_PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "BREAKBENCH_SIMIF_PREFIX=$SIMIF_PREFIX")
fi
LOGDIR="$(mktemp -d /tmp/interop.XXXXXX)"
FAILS=0
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT
fail() { echo "FAIL $*"; FAILS=$((FAILS + 1)); }
pass() { echo "PASS $*"; }

start_injector() { # $1 = log name, rest = extra args; env passed by caller
  local log="$LOGDIR/$1.log"; shift
  KRAKEN_FAULTS_ENABLE=1 RUST_LOG="${RUST_LOG:-info}" "${NODE_ENV[@]}" "$BIN/fault_injector" "$@" >"$log" 2>&1 &
  INJ=$!
  PIDS+=("$INJ")
  for _ in $(seq 100); do grep -qs "ready:" "$log" && return 0; sleep 0.1; done
  echo "injector did not become ready:"; cat "$log"; return 1
}
stop_injector() { kill "$INJ" 2>/dev/null || true; wait "$INJ" 2>/dev/null || true; }

if want 1; then
# 1. Production guard.
set +e
env -u KRAKEN_FAULTS_ENABLE ROS_DOMAIN_ID=$BASE "${NODE_ENV[@]}" "$BIN/fault_injector" >"$LOGDIR/guard.out" 2>"$LOGDIR/guard.err"
rc=$?
set -e
if [[ $rc -eq 2 ]] && grep -q "refusing to start" "$LOGDIR/guard.err" && grep -q KRAKEN_FAULTS_ENABLE "$LOGDIR/guard.err"; then
  pass "guard: refuses without KRAKEN_FAULTS_ENABLE=1 or enable:=true (exit 2, message on stderr)"
else
  fail "guard: exit $rc, stderr: $(cat "$LOGDIR/guard.err")"
fi
set +e
KRAKEN_FAULTS_ENABLE=0 ROS_DOMAIN_ID=$BASE "${NODE_ENV[@]}" "$BIN/fault_injector" --ros-args -p enable:=false >/dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] && pass "guard: KRAKEN_FAULTS_ENABLE=0 and enable:=false also refuse" || fail "guard: exit $rc with KRAKEN_FAULTS_ENABLE=0"

fi
export ROS_DISTRO=jazzy
if want 2; then
# 2. rclpy on Fast DDS.
export ROS_DOMAIN_ID=$((BASE + 1))
start_injector fastdds --ros-args -p seed:=5
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 180 "$PY" "$ROOT/tests/interop/rclpy_peer.py"; then
  pass "rclpy/Fast DDS peer"
else
  fail "rclpy/Fast DDS peer (injector log: $LOGDIR/fastdds.log)"; tail -20 "$LOGDIR/fastdds.log"
fi
stop_injector

fi
if want 3 && [[ -n "${INTEROP_RCLRS_PREFIX:-}" ]]; then
# 3, rclrs variant. The wheel prefix has no Cyclone DDS: no rmw_cyclonedds_cpp wheel
# exists, and its rmw_implementation wheel is built without run-time selection (librcl
# links rmw_fastrtps_cpp). rcl checks RMW_IMPLEMENTATION against the RMW it runs on
# (rcl_init's identifier check): naming another one must stop the node with an error
# naming both, not run it silently on Fast DDS. (A real install with rmw_cyclonedds_cpp
# dispatches on the variable: foundation/breakbench_ros/README.md.)
export ROS_DOMAIN_ID=$((BASE + 2))
set +e
KRAKEN_FAULTS_ENABLE=1 RMW_IMPLEMENTATION=rmw_cyclonedds_cpp timeout 30 "${NODE_ENV[@]}" "$BIN/fault_injector" >"$LOGDIR/rmw_choice.log" 2>&1
rc=$?
set -e
if [[ $rc -ne 0 && $rc -ne 124 ]] && grep -q "rmw_cyclonedds_cpp" "$LOGDIR/rmw_choice.log" && grep -q "rmw_fastrtps_cpp" "$LOGDIR/rmw_choice.log"; then
  pass "rclrs: RMW_IMPLEMENTATION=rmw_cyclonedds_cpp on the Fast-DDS-only wheel prefix is refused (exit $rc), naming both RMWs"
else
  fail "rclrs: RMW_IMPLEMENTATION=rmw_cyclonedds_cpp: exit $rc (log: $LOGDIR/rmw_choice.log)"; tail -5 "$LOGDIR/rmw_choice.log"
fi
elif want 3; then
# 3. Cyclone DDS with the Cyclone service mapping.
export ROS_DOMAIN_ID=$((BASE + 2))
RMW_IMPLEMENTATION=rmw_cyclonedds_cpp start_injector cyclone
if timeout 180 "$PY" "$ROOT/tests/interop/cyclone_peer.py"; then
  pass "Cyclone DDS peer (Cyclone service mapping)"
else
  fail "Cyclone DDS peer (injector log: $LOGDIR/cyclone.log)"; tail -20 "$LOGDIR/cyclone.log"
fi
stop_injector
# 3b. The same Cyclone client against an injector on the default (Fast DDS)
# mapping must fail: the RMW choice is what makes 3 work.
export ROS_DOMAIN_ID=$((BASE + 5))
start_injector mismatch
if EXPECT_MAPPING_MISMATCH=1 timeout 60 "$PY" "$ROOT/tests/interop/cyclone_peer.py"; then
  pass "wrong service mapping is detected (Cyclone client vs enhanced server: no valid reply)"
else
  fail "mapping mismatch check"
fi
stop_injector

fi
if want 4; then
# 4. kraken_scenario against the node.
export ROS_DOMAIN_ID=$((BASE + 3))
start_injector scenario
if timeout 60 "${NODE_ENV[@]}" "$BIN/kraken_scenario" "$ROOT/tests/interop/scenario_short.yaml" >"$LOGDIR/scenario.out" 2>&1; then
  cat "$LOGDIR/scenario.out"
  if grep -q "kill_gnss: set_fault dropout on gnss: success=true" "$LOGDIR/scenario.out" \
    && grep -q "restore: clear_faults: success=true" "$LOGDIR/scenario.out"; then
    pass "kraken_scenario: steps called and answered"
  else
    fail "kraken_scenario: unexpected output"
  fi
else
  cat "$LOGDIR/scenario.out"; fail "kraken_scenario exited non-zero"
fi
set +e
timeout 60 "${NODE_ENV[@]}" "$BIN/kraken_scenario" "$ROOT/tests/interop/scenario_reject.yaml" >"$LOGDIR/reject.out" 2>&1
rc=$?
set -e
if [[ $rc -eq 1 ]] && grep -q "success=false" "$LOGDIR/reject.out"; then
  pass "kraken_scenario: a rejected step is reported and exits 1"
else
  cat "$LOGDIR/reject.out"; fail "kraken_scenario reject: exit $rc"
fi
stop_injector

fi
if want 5; then
# 5. Remapping + use_sim_time (+ /tf keep-alive) with an rclpy peer.
export ROS_DOMAIN_ID=$((BASE + 4))
start_injector simtime --ros-args -r /gnss/fix:=/gnss/fix_remapped -r __ns:=/robot -p use_sim_time:=true -p seed:=7
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_simtime.py"; then
  pass "remap + use_sim_time + TF keep-alive"
else
  fail "remap + use_sim_time (injector log: $LOGDIR/simtime.log)"; tail -20 "$LOGDIR/simtime.log"
fi
stop_injector

fi
if want 6; then
# ==== 6. sim_bridge vs a real rclpy peer (graph nodes, REQ-GRAPH-UP)
# The bridge alone at real time; the peer decodes /oracle/odom, /scan, /clock,
# /gnss/fix, /imu/data with the generated ROS 2 types and drives it with /cmd_vel.
export ROS_DOMAIN_ID=$((BASE + 6))
"${NODE_ENV[@]}" "$BIN/sim_bridge" --ros-args -p world_file:="$ROOT/config/corridor.yaml" -p robot_file:="$ROOT/config/robot.yaml" \
  -p seed:=1 -p real_time_factor:=1.0 -p start_timeout_s:=60.0 >"$LOGDIR/bridge.log" 2>&1 &
BRIDGE=$!
PIDS+=("$BRIDGE")
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_bridge_peer.py"; then
  pass "sim_bridge: rclpy decodes /oracle/odom, /scan, /clock, /gnss/fix, /imu/data; its /cmd_vel moves the robot"
else
  fail "sim_bridge rclpy peer (bridge log: $LOGDIR/bridge.log)"; tail -20 "$LOGDIR/bridge.log"
fi
kill "$BRIDGE" 2>/dev/null || true; wait "$BRIDGE" 2>/dev/null || true
# ==== end of block 6

fi
if want 7; then
# ==== 7. the whole corridor graph (breakbench up, paced at 10x real time) watched by an rclpy peer
# (lock-step would finish the 60 s mission in about 2 s wall, sooner than Fast DDS discovers
# four new participants under load: the navigator's self-report, decided at about 30 s sim,
# could come before the peer matched its writer)
export ROS_DOMAIN_ID=$((BASE + 7))
RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 150 "$PY" "$ROOT/tests/interop/rclpy_oracle_status.py" 120 >"$LOGDIR/status_peer.out" 2>&1 &
SPEER=$!
sleep 2
set +e
BREAKBENCH_BIN_DIR="$BIN" timeout 150 "${NODE_ENV[@]}" "$BIN/breakbench" up "$ROOT/launch/corridor.graph.yaml" --quiet --domain-id "$ROS_DOMAIN_ID" \
  --set sim_bridge.real_time_factor=10 --set oracle.manifest_dir="$LOGDIR/graph" >"$LOGDIR/up.log" 2>&1
uprc=$?
wait "$SPEER"; prc=$?
set -e
cat "$LOGDIR/status_peer.out"
if [[ $uprc -eq 0 && $prc -eq 0 ]]; then
  pass "corridor graph: rclpy reads /oracle/status and /navigator/self_report (breakbench up exit 0)"
else
  fail "corridor graph status peer (up exit $uprc, peer exit $prc; log $LOGDIR/up.log)"; tail -20 "$LOGDIR/up.log"
fi
# ==== end of block 7

fi
if want 8; then
# ==== 8. hostile requests through the real service path (rclpy on Fast DDS; block owned by the injector engineer)
# The garbage call -1e308..1e308 on imu and gnss is refused and imu keeps
# relaying finite values; a 70 kB / 200 kB channel string is refused and the
# same client's next call is answered (tests/interop/rclpy_hostile.py).
export ROS_DOMAIN_ID=$((BASE + 8))
start_injector hostile --ros-args -p seed:=8
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 180 "$PY" "$ROOT/tests/interop/rclpy_hostile.py"; then
  if kill -0 "$INJ" 2>/dev/null; then
    pass "hostile requests: garbage span refused, 70 kB channel refused, same client answered, node alive"
  else
    fail "hostile requests: the injector exited (log: $LOGDIR/hostile.log)"; tail -20 "$LOGDIR/hostile.log"
  fi
else
  fail "hostile requests peer (injector log: $LOGDIR/hostile.log)"; tail -20 "$LOGDIR/hostile.log"
fi
stop_injector
# ==== end of block 8

fi
if want 9; then
# ==== 9. ekf_node vs an rclpy peer (issue 9): the peer owns /clock, publishes
# odom, imu/data and gnss/fix and checks odometry/filtered (exact for
# noise-free motion), /diagnostics (counted refusals, the spoof at ERROR with
# d2) and /rosout (tests/interop/rclpy_ekf_peer.py; its constants must equal
# the parameters below).
export ROS_DOMAIN_ID=$((BASE + 9))
env -u RUST_LOG "${NODE_ENV[@]}" "$BIN/ekf_node" --ros-args -p use_sim_time:=true \
  -p datum_latitude_deg:=52.2297 -p datum_longitude_deg:=21.0122 -p datum_altitude_m:=100.0 \
  -p initial_x_m:=2.0 -p initial_y_m:=3.0 -p initial_yaw_rad:=0.5 \
  -p initial_v_m_s:=1.2 -p initial_yaw_rate_rad_s:=0.1 -p diagnostics_rate_hz:=10.0 >"$LOGDIR/ekf.log" 2>&1 &
EKF=$!
PIDS+=("$EKF")
ekf_start=$(date +%s)
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 180 "$PY" "$ROOT/tests/interop/rclpy_ekf_peer.py"; then
  pass "ekf_node: rclpy peer reads exact odometry/filtered, counted refusals and the spoof on /diagnostics and /rosout"
else
  fail "ekf_node rclpy peer (node log: $LOGDIR/ekf.log)"; tail -20 "$LOGDIR/ekf.log"
fi
kill -INT "$EKF" 2>/dev/null || true
set +e; wait "$EKF"; erc=$?; set -e
if [[ $erc -eq 0 ]]; then pass "ekf_node: exits 0 on SIGINT"; else fail "ekf_node: exit $erc on SIGINT"; fi
# The only WARN lines are the estimator's own refusals (phases B and C of the
# peer: logger ekf_filter_node); no ERROR at all.
if grep -E "WARN|ERROR" "$LOGDIR/ekf.log" | grep -v "logger.*ekf_filter_node" | grep -q .; then
  fail "ekf_node: unexpected WARN/ERROR lines:"; grep -E "WARN|ERROR" "$LOGDIR/ekf.log" | grep -v "logger.*ekf_filter_node" | head -5
else
  pass "ekf_node: no WARN/ERROR besides the estimator's refusal records"
fi
echo "interop: phase 9 (ekf_node) took $(( $(date +%s) - ekf_start )) s"
# ==== end of block 9

fi
if want 10; then
# ==== 10. breakbench_msgs vs the real peer (REQ-MSG-DEF, REQ-MSG-CDR; no DDS)
# tests/interop/msgs_golden.py: rclpy's serialize_message bytes of random and
# edge values (NaN, +-Inf, max/min ints, empty and long sequences, empty and
# non-ASCII strings) of every built-in type the wheels have; golden.rs decodes
# each to rclpy's values and re-encodes it to the same bytes (padding masked);
# builtin_vs_wheels.rs holds the built-in definitions equal to the wheels'
# share/<pkg>/msg/*.msg.
msgs_start=$(date +%s)
if "${SIMIF_ENV[@]}" "$PY" "$ROOT/tests/interop/msgs_golden.py" "$LOGDIR/msgs_golden" >"$LOGDIR/msgs.log" 2>&1 \
  && (cd "$ROOT" && BREAKBENCH_ROS_VENV="$VENV" BREAKBENCH_MSGS_GOLDEN_DIR="$LOGDIR/msgs_golden" "${SIMIF_ENV[@]}" \
    cargo test --profile "$PROFILE" --offline -q -p breakbench_msgs --test golden --test builtin_vs_wheels -- --nocapture) >>"$LOGDIR/msgs.log" 2>&1 \
  && ! grep -q SKIPPED "$LOGDIR/msgs.log"; then
  grep -E "^(msgs_golden|golden|builtin_vs_wheels):" "$LOGDIR/msgs.log" || true
  pass "breakbench_msgs: built-in definitions equal the wheels' .msg files; rclpy's CDR decodes to its values and re-encodes to its bytes"
else
  fail "breakbench_msgs vs the wheels (log: $LOGDIR/msgs.log)"; tail -30 "$LOGDIR/msgs.log"
fi
echo "interop: phase 10 (breakbench_msgs) took $(( $(date +%s) - msgs_start )) s"
# ==== end of block 10

fi
if want 11; then
# ==== 11. a dynamic channel (REQ-FAULT-ANY-TYPE, REQ-FAULT-STACK): rclpy
# publishes sensor_msgs/Range on /sonar_raw; ~/set_fault_stack (field set
# NaN), an appended drop p=1, ~/clear_fault_stage by id; /sonar and
# ~/stack_status checked by tests/interop/rclpy_any_type.py; the injected
# QoS mismatch of channel sonar_be (qos.output best_effort).
any_start=$(date +%s)
export ROS_DISTRO=jazzy ROS_DOMAIN_ID=$((BASE + 11))
start_injector any_type --ros-args -p channels_file:="$ROOT/tests/interop/any_type_channels.yaml" -p status_rate_hz:=2.0
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_any_type.py"; then
  pass "dynamic channel (sensor_msgs/Range as raw CDR) with a fault stack from rclpy"
else
  fail "dynamic channel (injector log: $LOGDIR/any_type.log)"; tail -20 "$LOGDIR/any_type.log"
fi
stop_injector
# The injected QoS mismatch (channel sonar_be, qos.output best_effort) is
# said once by the injector, naming the policy and the topic (REQ-FAULT-QOS).
# ros2-client: rustdds' writer line, for the output only (rustdds reports no
# reader side). rclrs: the rcl incompatible-QoS events of the output (the
# reliable rclpy reader of /sonar_be) and of the input (the best-effort rclpy
# writer on /sonar_be_raw), one WARN line each and no other incompatible-QoS line
# (the phase's rejected requests log WARNs of their own).
if [[ -z "${INTEROP_RCLRS_PREFIX:-}" ]]; then
  n=$(grep -c 'WARN .*QoS mismatch Reliability topic="rt/sonar_be"' "$LOGDIR/any_type.log" || true)
  if [[ "$n" == 1 ]]; then
    pass "incompatible QoS on an output logged once as a WARN naming policy and topic"
  else
    fail "incompatible QoS on /sonar_be logged $n times, not once (log: $LOGDIR/any_type.log)"
  fi
else
  qos_out=$(grep -c 'WARN .*topic /sonar_be: a subscription requests .*incompatible QoS policy RELIABILITY' "$LOGDIR/any_type.log" || true)
  qos_in=$(grep -c 'WARN .*topic /sonar_be_raw: a publisher offers .*incompatible QoS policy RELIABILITY' "$LOGDIR/any_type.log" || true)
  qos_all=$(grep -c ' WARN breakbench_ros::qos:' "$LOGDIR/any_type.log" || true)
  if [[ "$qos_out" == 1 && "$qos_in" == 1 && "$qos_all" == 2 ]]; then
    pass "incompatible QoS on an output and on an input: one WARN each naming topic and RELIABILITY"
  else
    fail "incompatible QoS WARN lines: output $qos_out, input $qos_in, all $qos_all (want 1, 1, 2; log: $LOGDIR/any_type.log)"
  fi
fi
# The same channel untouched: rclpy's serialized bytes arrive unchanged (tests/interop/rclpy_byte_exact.py).
start_injector any_type_bytes --ros-args -p channels_file:="$ROOT/tests/interop/any_type_channels.yaml"
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 60 "$PY" "$ROOT/tests/interop/rclpy_byte_exact.py"; then
  pass "dynamic channel relays rclpy's serialized bytes unchanged"
else
  fail "dynamic channel byte-exact relay (injector log: $LOGDIR/any_type_bytes.log)"
fi
stop_injector
# The same channel under use_sim_time: a delay stage counts sim time.
start_injector any_type_sim --ros-args -p channels_file:="$ROOT/tests/interop/any_type_channels.yaml" -p status_rate_hz:=2.0 -p use_sim_time:=true
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_any_type.py" --sim; then
  pass "dynamic channel under use_sim_time (a delay stage counts sim time)"
else
  fail "dynamic channel under use_sim_time (injector log: $LOGDIR/any_type_sim.log)"; tail -20 "$LOGDIR/any_type_sim.log"
fi
stop_injector
echo "interop: phase 11 (dynamic channel) took $(( $(date +%s) - any_start )) s"
# ==== end of block 11

fi
if want 12; then
# ==== 12. /clock and /tf faults (REQ-FAULT-TF-CLOCK): tests/interop/rclpy_clock_tf.py (about 15 s)
export ROS_DOMAIN_ID=$((BASE + 12)); start_injector clock_tf --ros-args -p channels_file:="$ROOT/tests/interop/clock_tf_channels.yaml" -p status_rate_hz:=2.0 -p use_sim_time:=true
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_clock_tf.py"; then pass "/clock and /tf faults: throttle, jump back, stall, tf frame filter; the injector keeps the raw clock"
else fail "/clock and /tf faults (injector log: $LOGDIR/clock_tf.log)"; tail -20 "$LOGDIR/clock_tf.log"; fi; stop_injector
# ==== end of block 12
fi
if want 13; then
# ==== 13. the shipped bug-case scenarios, exact values at an rclpy consumer
source "$ROOT/tests/interop/phase13_bug_cases.sh"

fi
if want 14; then
# ==== 14. large messages through an any-type channel (issue 27; about 15 s):
# a default rclpy subscriber gets every PointCloud2 of 16 KiB .. 1 MiB intact
# (the vendored rustdds fragment-repair fix, vendor/README.md), and the
# injector logs no ERROR or WARN. The full sweep (50 per size, 6 MB images,
# a delay): scripts/large_messages.sh, docs/large-messages.md.
# With the rclrs injector, 10 images of 6 MB at 30 Hz too (about 2 s more): the
# ros2-client backend delivers those only in part and says so once per topic
# (its size guard; scripts/rclrs_ci.sh checks that WARN), the rclrs one has no
# limit and may log no WARN at all.
large_start=$(date +%s)
# The images get 4 s to arrive (--image-settle-s): on a loaded machine the injector's
# Fast DDS shared-memory receive was seen to drop fragments of a 6 MB sample, which
# then arrive after the rclpy writer's next heartbeat (up to 2.1 s late, none lost).
large_images=0 large_what="PointCloud2 16 KiB .. 1 MiB at 10 Hz"
if [[ -n "${INTEROP_RCLRS_PREFIX:-}" ]]; then large_images=10 large_what="$large_what and 6 MB images at 30 Hz"; fi
if LARGE_VENV="$VENV" LARGE_BIN_DIR="$BIN" LARGE_DOMAIN_ID=$((BASE + 14)) LARGE_RCLRS_PREFIX="${INTEROP_RCLRS_PREFIX:-}" \
  "$ROOT/scripts/large_messages.sh" --count 10 --image-count "$large_images" --settle-s 1 --image-settle-s 4 >"$LOGDIR/large.log" 2>&1; then
  grep -E "^ +[0-9]+ " "$LOGDIR/large.log" || true
  pass "large messages: $large_what, every message intact at a default rclpy subscriber"
else
  fail "large messages (log: $LOGDIR/large.log)"; tail -20 "$LOGDIR/large.log"
fi
echo "interop: phase 14 (large messages) took $(( $(date +%s) - large_start )) s"
# ==== end of block 14
fi
if want 15; then
# ==== 15. the real ros2 CLI (scripts/setup_peers.sh installs it) against the injector alone
export ROS_DOMAIN_ID=$((BASE + 15))
# The node's own default log filter (breakbench_ros::NODE_LOG_FILTER), not RUST_LOG=info:
# the no-ERROR/WARN check below is about what a user running the node sees.
RUST_LOG="info,rustdds=error,ros2_client=warn,ros2_client::service::wrappers=error" start_injector ros2cli --ros-args -p seed:=7 -p status_rate_hz:=2.0
R2=(env PATH="$VENV/bin:$PATH" AMENT_PREFIX_PATH="$VENV" LD_LIBRARY_PATH="$VENV/lib" RMW_IMPLEMENTATION=rmw_fastrtps_cpp "$VENV/bin/ros2")
# --no-daemon: each command discovers the graph afresh; a first try can miss the node.
r2() { local o=""; for _ in 1 2 3 4 5; do o=$(timeout 60 "${R2[@]}" "$@" 2>&1) && [[ "$o" != *"Node not found"* ]] && break; sleep 1; done; printf '%s' "$o"; }
out=$(r2 param get --no-daemon /fault_injector seed)
[[ "$out" == *"Integer value is: 7"* ]] && pass "ros2 param get /fault_injector seed: 7" || fail "ros2 param get: $out"
out=$(timeout 60 "${R2[@]}" service call /fault_injector/set_fault kraken_interfaces/srv/SetFault "{fault: {channel: gnss, mode: 1}}" 2>&1) || true
[[ "$out" == *"success=True"* ]] && pass "ros2 service call set_fault gnss dropout: success=True" || fail "ros2 service call set_fault: $out"
out=$(timeout 60 "${R2[@]}" topic echo --once --no-daemon /fault_injector/status kraken_interfaces/msg/FaultStatus 2>&1) || true
[[ "$out" == *"gnss"* ]] && pass "ros2 topic echo --once /fault_injector/status" || fail "ros2 topic echo status: $out"
out=$(timeout 60 "${R2[@]}" service call /fault_injector/clear_faults std_srvs/srv/Trigger 2>&1) || true
[[ "$out" == *"success=True"* ]] && pass "ros2 service call clear_faults: success=True" || fail "ros2 service call clear_faults: $out"
stop_injector
grep -E " (ERROR|WARN) " "$LOGDIR/ros2cli.log" && fail "ros2 CLI phase: the injector logged ERROR/WARN" || pass "ros2 CLI phase: no ERROR/WARN from the injector"
fi
if want 16; then
# ==== 16. simulation_interfaces: an rclpy client drives sim_bridge through the standard (issue 29)
export ROS_DOMAIN_ID=$((BASE + 16))
SIMIF_CASE="150 0.3 0.2 1"
expect=$(cd "$ROOT" && BREAKBENCH_SIMIF_EXPECT="$SIMIF_CASE" cargo test --profile "$PROFILE" --offline -q \
  -p breakbench_sim_bridge --test plant simif_expected_pose_after_n_steps -- --nocapture 2>&1 | grep "^simif_expect:" || true)
echo "$expect"
read -r _ t_ns x y yaw _ <<<"$(sed 's/[a-z_]*=//g' <<<"$expect")"
if [[ -z "$expect" ]]; then
  fail "simulation_interfaces: no expected pose from tests/plant.rs"
else
  "${NODE_ENV[@]}" "$BIN/sim_bridge" --ros-args -p world_file:="$ROOT/config/corridor.yaml" -p robot_file:="$ROOT/config/robot.yaml" \
    -p seed:=1 -p real_time_factor:=1.0 -p start_service:=true -p start_timeout_s:=60.0 >"$LOGDIR/simif_bridge.log" 2>&1 &
  BRIDGE=$!
  PIDS+=("$BRIDGE")
  read -r n v w _ <<<"$SIMIF_CASE"
  if RMW_IMPLEMENTATION=rmw_fastrtps_cpp "${SIMIF_ENV[@]}" timeout 120 "$PY" "$ROOT/tests/interop/rclpy_simif.py" "$n" "$v" "$w" "$t_ns" "$x" "$y" "$yaw"; then
    pass "simulation_interfaces: rclpy resets, pauses, steps $n and reads the in-process pose (1e-9) from sim_bridge"
  else
    fail "simulation_interfaces rclpy client (bridge log: $LOGDIR/simif_bridge.log)"; tail -20 "$LOGDIR/simif_bridge.log"
  fi
  kill -INT "$BRIDGE" 2>/dev/null || true; wait "$BRIDGE" 2>/dev/null || true
  grep -E " (ERROR|WARN) " "$LOGDIR/simif_bridge.log" && fail "simulation_interfaces: the bridge logged ERROR/WARN" \
    || pass "simulation_interfaces: no ERROR/WARN from the bridge"
fi
# ==== end of block 16
fi
if want 17; then
# ==== 17. breakbench replay --publish: a recording played into an rclpy subscriber with /clock (issue 26)
export ROS_DOMAIN_ID=$((BASE + 17))
"$BIN/breakbench" campaign "$ROOT/tests/data/small_study.yaml" --out "$LOGDIR/replay_src" --record full --quiet --jobs 2 >/dev/null
REC="$LOGDIR/replay_src/recordings/grid_latency_s0_odom_bias0_r0.mcap"
RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_replay_peer.py" 60 >"$LOGDIR/replay_peer.log" 2>&1 &
PEER=$!
PIDS+=("$PEER")
for _ in $(seq 1 200); do grep -q '^ready' "$LOGDIR/replay_peer.log" && break; sleep 0.1; done
"${NODE_ENV[@]}" "$BIN/breakbench" replay "$REC" --publish --topic /odom_raw --rate 5 --delay-s 2 >"$LOGDIR/replay_player.log" 2>&1 \
  || { fail "replay --publish: the player failed"; cat "$LOGDIR/replay_player.log"; }
prc=0; wait "$PEER" || prc=$?
sent=$(sed -n 's/^replay --publish: \([0-9]*\) message(s) published.*/\1/p' "$LOGDIR/replay_player.log")
if [[ $prc -eq 0 && -n "$sent" ]] && grep -q "^replay_peer: $sent messages" "$LOGDIR/replay_peer.log"; then
  pass "replay --publish: rclpy got all $sent /odom_raw messages with rising stamps and /clock at the last one"
else
  fail "replay --publish: player sent '${sent}', peer: $(tail -1 "$LOGDIR/replay_peer.log")"
fi
grep -E " (ERROR|WARN) " "$LOGDIR/replay_player.log" && fail "replay --publish: the player logged ERROR/WARN" \
  || pass "replay --publish: no ERROR/WARN from the player"
# ==== end of block 17
fi
echo "interop: $FAILS failed phase(s); logs in $LOGDIR"
[[ $FAILS -eq 0 ]]
