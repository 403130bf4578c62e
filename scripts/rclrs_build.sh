#!/usr/bin/env bash
# Builds node binaries of the rclrs variant (issue 27) against an ament prefix
# made by scripts/rclrs_prefix.sh, with the cargo feature `rclrs` of each
# binary's package only, into a target directory of its own (RCLRS_TARGET_DIR,
# default <repo>/target/rclrs: the same binaries with another feature set would
# otherwise replace the default build's in target/debug). .cargo/config.toml's
# `build.build-dir` shares the third-party compile with the default build; what
# the feature changes (rclrs and its dependencies, breakbench_ros and every crate
# above it) is compiled again. The binaries are copied to
# RCLRS_TARGET_DIR/rclrs-bin (a folder for INTEROP_BIN, LARGE_BIN_DIR,
# BREAKBENCH_BIN_DIR). Prints how long it took.
#
# Which binaries cost what (dev profile): fault_injector, sim_bridge, oracle and
# ekf_node need their own package and breakbench_ros; simple_navigator and the
# `breakbench` command live in the root package, whose library pulls in the
# campaign engine and supervisor, so naming any of those four compiles those too.
#
# Usage: scripts/rclrs_build.sh PREFIX [BIN...]   (default: every node binary:
#   fault_injector kraken_scenario sim_bridge oracle ekf_node simple_navigator
#   breakbench breakbench_orchestrator breakbench_ready)
# Env: CARGO_PROFILE (default dev), CARGO_JOBS, RCLRS_TARGET_DIR.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="$(realpath -m "${1:?usage: scripts/rclrs_build.sh PREFIX [BIN...]}")"
shift
BINS=("$@")
if [[ ${#BINS[@]} -eq 0 ]]; then
  BINS=(fault_injector kraken_scenario sim_bridge oracle ekf_node simple_navigator breakbench breakbench_orchestrator breakbench_ready)
fi
start=$(date +%s)
PROFILE="${CARGO_PROFILE:-dev}"
TARGET_DIR="${RCLRS_TARGET_DIR:-$ROOT/target/rclrs}"
if [[ "$PROFILE" == dev ]]; then OUT="$TARGET_DIR/debug"; else OUT="$TARGET_DIR/$PROFILE"; fi
# The package of each binary (the root package is `breakbench`).
declare -A PKGS=()
ARGS=()
for b in "${BINS[@]}"; do
  case "$b" in
    fault_injector|kraken_scenario) p=kraken_faults ;;
    sim_bridge) p=breakbench_sim_bridge ;;
    oracle) p=breakbench_oracle ;;
    ekf_node) p=breakbench_estimator ;;
    simple_navigator|breakbench|breakbench_orchestrator|breakbench_ready) p=breakbench ;;
    *) echo "rclrs_build: FAIL: unknown node binary '$b'" >&2; exit 2 ;;
  esac
  PKGS[$p]=1
  ARGS+=(--bin "$b")
done
FEATURES=""
for p in $(printf '%s\n' "${!PKGS[@]}" | sort); do
  ARGS+=(-p "$p")
  FEATURES="${FEATURES:+$FEATURES,}$p/rclrs"
done
(
  # shellcheck source=rclrs_env.sh
  source "$ROOT/scripts/rclrs_env.sh" "$PREFIX"
  cd "$ROOT" && CARGO_TARGET_DIR="$TARGET_DIR" cargo build ${CARGO_JOBS:+-j "$CARGO_JOBS"} --profile "$PROFILE" \
    "${ARGS[@]}" --features "$FEATURES"
)
mkdir -p "$TARGET_DIR/rclrs-bin"
for b in "${BINS[@]}"; do
  cp "$OUT/$b" "$TARGET_DIR/rclrs-bin/"
done
echo "rclrs_build: ${BINS[*]} built in $(( $(date +%s) - start )) s (in $TARGET_DIR/rclrs-bin)"
