#!/usr/bin/env bash
# Optional check (not part of scripts/test.sh): parse config/gazebo/corridor.sdf
# with the real SDFormat parser. Debian 12 ships SDFormat 12 (spec <= 1.9, the
# Fortress generation), not Harmonic's SDFormat 14, so the file is checked with
# its version attribute rewritten to 1.9; SDFormat 12 then warns about
# <gz_frame_id> (a newer sensor element) and must report no error.
#   scripts/check_sdf.sh        (installs libsdformat-dev with apt-get if missing)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/target/sdf-check"
mkdir -p "$OUT"
pkg-config --exists sdformat12 || apt-get install -y -q libsdformat-dev >/dev/null
g++ -std=c++17 "$ROOT/tests/sdf/sdf_check.cc" $(pkg-config --cflags --libs sdformat12) -o "$OUT/sdf_check"
sed 's/<sdf version="1.10">/<sdf version="1.9">/' "$ROOT/config/gazebo/corridor.sdf" >"$OUT/corridor-1.9.sdf"
"$OUT/sdf_check" "$OUT/corridor-1.9.sdf"
echo "check_sdf: SDFormat $(pkg-config --modversion sdformat12) parsed config/gazebo/corridor.sdf without errors"
