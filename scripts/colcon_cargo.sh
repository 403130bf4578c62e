#!/usr/bin/env bash
# CARGO_COMMAND for colcon (colcon-cargo / colcon-ros-cargo honour the
# CARGO_COMMAND environment variable). It runs the real cargo with one change:
# colcon passes a per-package `--target-dir <build-base>/<pkg>`, which makes
# each of our five ament_cargo packages (all members of the one Cargo
# workspace at the repo root) rebuild the whole dependency tree (ros2-client,
# rustdds, parry2d, ...) in a target directory of its own. This wrapper points
# every package at one shared target directory instead:
#   BREAKBENCH_COLCON_TARGET_DIR (default: <repo>/target, the developers' own
#   cargo cache, so a colcon build after `cargo build` is warm).
# Everything else (the `cargo ament-build` install step, `cargo test`,
# `cargo fmt --check`) is unchanged. Used by scripts/colcon_test.sh.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SHARED="${BREAKBENCH_COLCON_TARGET_DIR:-$ROOT/target}"
REAL="${BREAKBENCH_REAL_CARGO:-$(command -v cargo)}"
args=()
skip=0
for a in "$@"; do
  if (( skip )); then skip=0; args+=("$SHARED"); continue; fi
  case "$a" in
    --target-dir) skip=1; args+=("$a") ;;
    --target-dir=*) args+=("--target-dir=$SHARED") ;;
    *) args+=("$a") ;;
  esac
done
exec "$REAL" "${args[@]}"
