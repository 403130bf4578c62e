# Interop phase 13, sourced by scripts/interop.sh inside its namespace (uses
# its start_injector / stop_injector / pass / fail, $BASE, $BIN, $PY, $ROOT,
# $LOGDIR): the shipped bug-case scenarios (faults/kraken_faults/scenarios/bugs/*.yaml,
# REQ-FAULT-BUG-CASES) run by kraken_scenario against the injector with
# faults/kraken_faults/config/channels_any_type.yaml; tests/interop/rclpy_bug_cases.py
# (a real rclpy peer on Fast DDS) publishes the raw messages and asserts the
# exact faulted values that reach it. About 15 s.
# The peer starts kraken_scenario itself, in its own (the venv's) environment:
# with an rclrs variant (INTEROP_RCLRS_PREFIX, NODE_ENV set) it is given a
# wrapper that runs $BIN/kraken_scenario with the nodes' environment.
bugs_start=$(date +%s)
export ROS_DISTRO=jazzy ROS_DOMAIN_ID=$((BASE + 13))
AMENT_PREFIX_PATH="$ROOT/faults/kraken_faults/tests/ament" start_injector bug_cases --ros-args \
  -p channels_file:="$ROOT/faults/kraken_faults/config/channels_any_type.yaml" -p status_rate_hz:=2.0
KS="$BIN/kraken_scenario"
if [[ ${#NODE_ENV[@]} -gt 0 ]]; then
  KS="$LOGDIR/kraken_scenario"
  { echo '#!/bin/sh'; printf 'exec'; printf ' %q' "${NODE_ENV[@]}" "$BIN/kraken_scenario"; echo ' "$@"'; } >"$KS"
  chmod +x "$KS"
fi
if RMW_IMPLEMENTATION=rmw_fastrtps_cpp timeout 120 "$PY" "$ROOT/tests/interop/rclpy_bug_cases.py" \
  "$KS" "$ROOT/faults/kraken_faults/scenarios/bugs"; then
  pass "bug cases: the nine shipped scenarios give the exact faulted values at an rclpy consumer"
else
  fail "bug cases (injector log: $LOGDIR/bug_cases.log)"; tail -20 "$LOGDIR/bug_cases.log"
fi
stop_injector
echo "interop: phase 13 (bug cases) took $(( $(date +%s) - bugs_start )) s"
