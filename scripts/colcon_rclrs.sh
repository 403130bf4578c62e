#!/usr/bin/env bash
# The rclrs backend selected from colcon, for real (issue 27; not in CI: it
# compiles every node crate a third time, about 10 min here): a fresh colcon
# workspace (COLCON_WS, default <repo>/target/ws-rclrs) holding this repository
# in src/, "source ROS" = the ament prefix made from the PyPI wheels
# (scripts/rclrs_prefix.sh; `source scripts/rclrs_env.sh PREFIX` and its venv
# play `source /opt/ros/jazzy/setup.bash`), then exactly the command
# docs/packages.md gives a Jazzy user:
#
#   colcon build --metas src/breakbench/rclrs.meta
#
# and checks that the node executables of the six packages with the feature link
# librcl (the rclrs variant) while the build of the others succeeded as usual,
# and that `ros2 launch breakbench corridor.launch.py real_time_factor:=0` from
# that install runs to the oracle's verdict with every node finishing cleanly
# and no ERROR or WARN line (in scripts/netns.sh).
#
# Usage: scripts/colcon_rclrs.sh [PREFIX]   (default <repo>/target/rclrs-prefix)
# Needs: .venv-colcon (scripts/colcon_test.sh makes it), .venv-ros (the ros2 CLI).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${1:-$ROOT/target/rclrs-prefix}")"
WS="${COLCON_WS:-$ROOT/target/ws-rclrs}"
VENV="$ROOT/.venv-ros"
[[ -x "$ROOT/.venv-colcon/bin/colcon" ]] || { echo "colcon_rclrs: run scripts/colcon_test.sh --build-only first (.venv-colcon)"; exit 1; }
if [[ "${2:-}" != "--inside" ]]; then
  "$ROOT/scripts/rclrs_prefix.sh" "$PREFIX"
  mkdir -p "$WS/src"
  ln -sfn "$ROOT" "$WS/src/breakbench"
  t0=$(date +%s)
  (
    # shellcheck source=rclrs_env.sh
    source "$ROOT/scripts/rclrs_env.sh" "$PREFIX"
    # shellcheck disable=SC1091
    source "$PREFIX/bin/activate"
    export PATH="$PATH:$ROOT/.venv-colcon/bin"
    cd "$WS" && colcon build --metas src/breakbench/rclrs.meta
  )
  echo "colcon_rclrs: colcon build --metas src/breakbench/rclrs.meta took $(( $(date +%s) - t0 )) s"
  fail=0
  for exe in kraken_faults/fault_injector breakbench_sim_bridge/sim_bridge breakbench_oracle/oracle \
    breakbench/simple_navigator breakbench_estimator/ekf_node; do
    f="$WS/install/${exe%%/*}/lib/${exe%%/*}/${exe##*/}"
    if readelf -d "$f" 2>/dev/null | grep -q 'NEEDED.*\[librcl\.so\]'; then echo "rclrs variant (links librcl): $f"
    else echo "FAIL: $f missing or not linked to librcl"; fail=1; fi
  done
  [[ $fail == 0 ]] || exit 1
  exec "$ROOT/scripts/netns.sh" "$0" "$PREFIX" --inside
fi
RUN="$(mktemp -d /tmp/colcon_rclrs.XXXXXX)"
cd "$RUN"
LDP="$(unset LD_LIBRARY_PATH; source "$ROOT/scripts/rclrs_env.sh" "$PREFIX" && echo "$LD_LIBRARY_PATH")"
export ROS_DISTRO=jazzy ROS_VERSION=2 RMW_IMPLEMENTATION=rmw_fastrtps_cpp ROS_DOMAIN_ID=159
export PATH="$VENV/bin:$PATH" AMENT_PREFIX_PATH="$VENV"
# The rclrs nodes need the wheel prefix's libraries; ros2 launch passes its environment on.
export LD_LIBRARY_PATH="$VENV/lib:$LDP"
set +u
# shellcheck disable=SC1091
source "$WS/install/setup.bash"
set -u
rc=0
timeout 120 ros2 launch breakbench corridor.launch.py real_time_factor:=0 run_id:=colcon_rclrs out_dir:="$RUN/out" >launch.log 2>&1 || rc=$?
sed 's/\x1b\[[0-9;]*m//g' launch.log >launch.txt
cat launch.txt
[[ $rc == 0 ]] || { echo "FAIL: ros2 launch exit $rc"; exit 1; }
for n in fault_injector sim_bridge simple_navigator oracle; do
  grep -Eq "^\[INFO\] \[$n-[0-9]+\]: process has finished cleanly" launch.txt || { echo "FAIL: $n did not finish cleanly"; exit 1; }
done
! grep -E 'ERROR|WARN' launch.txt || { echo "FAIL: ERROR/WARN lines"; exit 1; }
[[ -f "$RUN/out/manifests/colcon_rclrs.json" ]] || { echo "FAIL: no manifest"; exit 1; }
echo "colcon_rclrs: ros2 launch from the colcon install of the rclrs variant: exit 0, four nodes finished cleanly, no ERROR/WARN, verdict in $RUN/out/manifests/colcon_rclrs.json"
rm -rf "$RUN"
