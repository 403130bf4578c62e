#!/usr/bin/env bash
# Builds simulation_interfaces (the ROS 2 simulator standard, unmodified Jazzy
# sources: ../shared/tools/simulation_interfaces/SOURCES, or SIMIF_TARBALL)
# with the real rosidl generators of the peers venv (scripts/setup_peers.sh)
# and installs it into PREFIX, so that
# `from simulation_interfaces.srv import StepSimulation` works in rclpy and
# PREFIX/share/simulation_interfaces holds the .msg/.srv files the message
# registry reads from AMENT_PREFIX_PATH (issue 29).
# Usage: scripts/build_simif.sh [VENV_DIR] [PREFIX]
#   VENV_DIR default <repo>/.venv-ros; PREFIX default VENV_DIR (as
#   kraken_interfaces). With another PREFIX, use it with
#   AMENT_PREFIX_PATH=PREFIX:VENV, PYTHONPATH=PREFIX/lib/python3.11/site-packages
#   and LD_LIBRARY_PATH=PREFIX/lib.
# Measured: about 1 min on 2 cores (see the stamp line it prints).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENV="$(cd "${1:-$ROOT/.venv-ros}" && pwd)"
PREFIX="${2:-$VENV}"
mkdir -p "$PREFIX" && PREFIX="$(cd "$PREFIX" && pwd)"
TARBALL="${SIMIF_TARBALL:-$ROOT/../shared/tools/simulation_interfaces/simulation_interfaces-jazzy.tgz}"
BUILD="${BUILD_DIR:-$ROOT/target/simif-build}"
[[ -f "$TARBALL" ]] || { echo "build_simif: no tarball $TARBALL (set SIMIF_TARBALL)"; exit 1; }
start=$(date +%s)
stamp="$PREFIX/.simulation-interfaces-stamp"
want="$(sha256sum "$TARBALL" | cut -d' ' -f1)"
pyver="$("$VENV/bin/python3" -c 'import sys; print(f"python{sys.version_info[0]}.{sys.version_info[1]}")')"
export PYTHONPATH="$PREFIX/lib/$pyver/site-packages${PYTHONPATH:+:$PYTHONPATH}"
export LD_LIBRARY_PATH="$PREFIX/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
check='from simulation_interfaces.srv import ResetSimulation, StepSimulation, GetEntityState; print("build_simif: import OK:", ResetSimulation.__name__, StepSimulation.__name__, GetEntityState.__name__)'
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$VENV/bin/python3" -c "$check" >/dev/null 2>&1; then
  echo "build_simif: simulation_interfaces already installed in $PREFIX"
  exit 0
fi
export AMENT_PREFIX_PATH="$VENV" PATH="$VENV/bin:$PATH"
rm -rf "$BUILD" && mkdir -p "$BUILD/src"
tar -xzf "$TARBALL" -C "$BUILD/src"
cmake -S "$BUILD/src/simulation_interfaces" -B "$BUILD/build" -DPython3_EXECUTABLE="$VENV/bin/python3" -DBUILD_TESTING=OFF >"$BUILD.log" 2>&1 \
  || { tail -40 "$BUILD.log"; echo "build_simif: cmake configure FAILED (log: $BUILD.log)"; exit 1; }
cmake --build "$BUILD/build" -j2 >>"$BUILD.log" 2>&1 || { tail -40 "$BUILD.log"; echo "build_simif: build FAILED (log: $BUILD.log)"; exit 1; }
cmake --install "$BUILD/build" --prefix "$PREFIX" >>"$BUILD.log" 2>&1 || { tail -20 "$BUILD.log"; echo "build_simif: install FAILED"; exit 1; }
"$VENV/bin/python3" -c "$check"
echo "$want" >"$stamp"
rm -rf "$BUILD"
echo "build_simif: done in $(( $(date +%s) - start )) s"
