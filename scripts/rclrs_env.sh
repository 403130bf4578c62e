# Environment for building and running the rclrs variant of the nodes (issue 27),
# against a prefix made by scripts/rclrs_prefix.sh. Source it:
#   source scripts/rclrs_env.sh [PREFIX]     (default: <repo>/target/rclrs-prefix)
# then: cargo build -p kraken_faults --features rclrs --bins
# Sets ROS_DISTRO=jazzy and AMENT_PREFIX_PATH=PREFIX (rclrs' build script and
# the ament index), LD_LIBRARY_PATH (PREFIX/lib and the wheels' vendored
# ros_*.libs folders: rcl, Fast DDS, the typesupport libraries loaded by type
# name at run time) and RMW_IMPLEMENTATION=rmw_fastrtps_cpp (the only RMW in
# the wheel prefix) and BREAKBENCH_PYTHON_LIB=python3.X, the prefix's Python:
# breakbench_ros' build script links that libpython into the binaries (the
# wheels' librcl needs it; a real ROS 2 install's does not, so there it is unset).
_bb_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_bb_prefix="$(realpath -m "${1:-$_bb_root/target/rclrs-prefix}")"
if [ ! -f "$_bb_prefix/lib/librcl.so" ]; then
  echo "rclrs_env: $_bb_prefix has no lib/librcl.so: run scripts/rclrs_prefix.sh $_bb_prefix first" >&2
  return 1 2>/dev/null || exit 1
fi
export ROS_DISTRO=jazzy
export AMENT_PREFIX_PATH="$_bb_prefix"
export RMW_IMPLEMENTATION=rmw_fastrtps_cpp
_bb_ld="$_bb_prefix/lib"
for _bb_d in "$_bb_prefix"/lib/python3.*/site-packages/ros_*.libs; do
  [ -d "$_bb_d" ] && _bb_ld="$_bb_ld:$_bb_d"
done
export LD_LIBRARY_PATH="$_bb_ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
for _bb_d in "$_bb_prefix"/lib/python3.*/site-packages; do
  [ -d "$_bb_d" ] && { _bb_py="${_bb_d%/site-packages}"; export BREAKBENCH_PYTHON_LIB="${_bb_py##*/}"; }
done
unset _bb_root _bb_prefix _bb_ld _bb_d _bb_py
