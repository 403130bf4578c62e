#!/usr/bin/env bash
# CARGO_COMMAND for colcon (colcon-cargo and colcon-ros-cargo run
# $CARGO_COMMAND instead of `cargo` when it is set). Used by
# scripts/colcon_test.sh. It runs the real cargo with two fixes for our
# layout (one Cargo workspace at the repo root, whose members are the
# ament_cargo packages):
#
# 1. One shared target directory. colcon passes a per-package
#    `--target-dir <build-base>/<pkg>`, so each of our nine ament_cargo
#    packages would rebuild the whole dependency tree (ros2-client, rustdds,
#    parry2d, ...) in a directory of its own. Every `--target-dir` is replaced
#    by BREAKBENCH_COLCON_TARGET_DIR (default: $CARGO_TARGET_DIR, else <repo>/target, the developers.
#    own cargo cache, so colcon after `cargo build` is warm).
#
# 2. Binaries behind `required-features`. cargo-ament-build 0.1.11 installs
#    only [[bin]] targets without `required-features` into
#    install/<pkg>/lib/<pkg>/ (measured: a bin with required-features = ["node"]
#    is built but not installed, even though "node" is a default feature).
#    Our node binaries (fault_injector, sim_bridge, oracle, simple_navigator)
#    all sit behind the `node` feature, so after a successful
#    `cargo ament-build` this wrapper copies every such bin of the package
#    from <target>/<profile>/ to install/<pkg>/lib/<pkg>/ itself, and fails if
#    one is missing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SHARED="${BREAKBENCH_COLCON_TARGET_DIR:-${CARGO_TARGET_DIR:-$ROOT/target}}"
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

# 3. `cargo test`: without colcon's `--quiet`, so colcon's test log
#    (log/latest_test/<pkg>/stdout_stderr.log) names every test that ran.
if [[ "${1:-}" == "test" ]]; then
  t=()
  for a in "${args[@]}"; do [[ "$a" == "--quiet" ]] || t+=("$a"); done
  exec "$REAL" "${t[@]}"
fi
# 4. `cargo metadata`: colcon reads a command's output line by line, with
#    asyncio's 64 KiB limit on a line, and silently gets nothing for a longer
#    one (then fails with "Expecting value: line 1 column 1"). `cargo
#    metadata` prints its JSON on one line, 71 KB for this workspace since
#    the workspace-hack crate (breakbench_hack), so it is re-printed
#    indented, one value per line (the same JSON to a parser).
if [[ "${1:-}" == "metadata" ]]; then
  "$REAL" "${args[@]}" | python3 -c 'import json, sys; json.dump(json.load(sys.stdin), sys.stdout, indent=1)'
  exit "${PIPESTATUS[0]}"
fi
if [[ "${1:-}" != "ament-build" ]]; then
  exec "$REAL" "${args[@]}"
fi

"$REAL" "${args[@]}"
# cargo ament-build --install-base <I> -- --manifest-path <M> [--release|--profile P] ...
install_base="" manifest="" profile="debug"
prev=""
for a in "${args[@]}"; do
  case "$prev" in
    --install-base) install_base="$a" ;;
    --manifest-path) manifest="$a" ;;
    --profile) profile="$a" ;;
  esac
  [[ "$a" == "--release" ]] && profile="release"
  prev="$a"
done
[[ "$profile" == "dev" ]] && profile="debug"
[[ -n "$install_base" && -n "$manifest" ]] || { echo "colcon_cargo.sh: cannot read --install-base/--manifest-path" >&2; exit 1; }
"$REAL" metadata --no-deps --format-version 1 --manifest-path "$manifest" \
  | python3 -c '
import json, os, shutil, sys
meta = json.load(sys.stdin)
manifest, install_base, target, profile = sys.argv[1:5]
pkg = next(p for p in meta["packages"] if os.path.realpath(p["manifest_path"]) == os.path.realpath(manifest))
dest = os.path.join(install_base, "lib", pkg["name"])
for t in pkg["targets"]:
    name, req = t["name"], t.get("required-features")
    if "bin" in t["kind"] and req:
        src = os.path.join(target, profile, name)
        if not os.path.isfile(src):
            sys.exit(f"colcon_cargo.sh: {src} was not built (required-features {req})")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(src, os.path.join(dest, name))
        print(f"colcon_cargo.sh: installed {name} (required-features {req}) into {dest}")
' "$manifest" "$install_base" "$SHARED" "$profile"
