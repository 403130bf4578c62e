#!/usr/bin/env bash
# Builds kraken_interfaces with the real rosidl generators (from the peers
# venv made by scripts/setup_peers.sh) and installs it into that venv, so that
# `from kraken_interfaces.srv import SetFault` works in rclpy.
# Usage: scripts/build_interfaces.sh [VENV_DIR]   (default: <repo>/.venv-ros)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="${1:-$ROOT/.venv-ros}"
BUILD="${BUILD_DIR:-$ROOT/target/rosidl-build}"
start=$(date +%s)
stamp="$VENV/.kraken-interfaces-stamp"
want="$(cat "$ROOT"/foundation/kraken_interfaces/{CMakeLists.txt,package.xml,msg/*.msg,srv/*.srv} | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$VENV/bin/python3" -c 'from kraken_interfaces.srv import SetFault' 2>/dev/null; then
  echo "build_interfaces: kraken_interfaces already installed in $VENV"
  exit 0
fi
export AMENT_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
rm -rf "$BUILD"
cmake -S "$ROOT/foundation/kraken_interfaces" -B "$BUILD" -DPython3_EXECUTABLE="$VENV/bin/python3" -DBUILD_TESTING=OFF >"$BUILD.log" 2>&1 \
  || { tail -40 "$BUILD.log"; echo "build_interfaces: cmake configure FAILED (log: $BUILD.log)"; exit 1; }
cmake --build "$BUILD" -j2 >>"$BUILD.log" 2>&1 || { tail -40 "$BUILD.log"; echo "build_interfaces: build FAILED"; exit 1; }
cmake --install "$BUILD" --prefix "$VENV" >>"$BUILD.log" 2>&1 || { tail -20 "$BUILD.log"; echo "build_interfaces: install FAILED"; exit 1; }
"$VENV/bin/python3" -c 'from kraken_interfaces.srv import SetFault; from kraken_interfaces.msg import FaultStatus; print("build_interfaces: import OK:", SetFault.__name__, FaultStatus.__name__)'
echo "$want" >"$stamp"
echo "build_interfaces: done in $(( $(date +%s) - start )) s"
