#!/usr/bin/env bash
# The statsmodels reference of issue 28's statistics (tests/reference/
# check_statistics.py) fails on a wrong figure: tampered copies of correct
# summary.json files must make check_summary.py exit 1 naming each wrong
# figure: (1) a GLM coefficient off by 1e-5 (relative), a standard error
# off by 1e-5, a Fieller bound off by 1e-4, a Clopper-Pearson bound off by
# 1e-9, an order statistic's rank, the joint sub-margin count; (2) a fitted
# model reported separated; (3) a separation bracket moved.
#
# usage: scripts/tamper_statistics.sh FITTED_DIR SEPARATED_DIR
#   FITTED_DIR: a campaign with a fitted model and Clopper-Pearson
#   (corridor_interaction_study); SEPARATED_DIR: one with a separated model.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="$ROOT/.venv-ref/bin/python3"
FIT="$1"; SEP="$2"
TMP="$(mktemp -d)"; trap 'rm -rf "$TMP"' EXIT
"$PY" - "$FIT/summary.json" "$SEP/summary.json" "$TMP" <<'PY'
import copy, json, sys
fit, sep, tmp = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
def fitted(s):
    return next(m for m in s["dose_response"] if m["status"] == "fitted")
s = copy.deepcopy(fit)
m = fitted(s)
m["coefficients"][1] *= 1 + 1e-5
m["standard_errors"][0] *= 1 + 1e-5
m["s_star"][0]["fieller"]["low"] -= 1e-4
s["cells"][6]["safety"]["clopper_pearson_high"] += 1e-9
s["cells"][0]["margins"]["obstacle_clearance"]["quantile_high_rank"] += 1
s["cells"][0]["sub_margin_joint"] += 1
json.dump(s, open(f"{tmp}/figures.json", "w"))
s = copy.deepcopy(fit)
fitted(s)["status"] = "separated"
json.dump(s, open(f"{tmp}/status.json", "w"))
s = copy.deepcopy(sep)
b = next(b for m in s["dose_response"] for b in m["separated"] if b["between"])
b["between"] = [b["between"][0], b["between"][1] + 1.0]
json.dump(s, open(f"{tmp}/bracket.json", "w"))
PY
# each case: the directory, then one grep pattern per tampered figure
check() {
  local case="$1" dir="$2"; shift 2
  local rc=0
  "$PY" "$ROOT/tests/reference/check_summary.py" "$dir" --summary "$TMP/$case.json" > "$TMP/$case.out" 2>&1 || rc=$?
  [[ $rc == 1 ]] || { echo "tamper_statistics: $case: exit $rc, not 1"; cat "$TMP/$case.out"; exit 1; }
  for pat in "$@"; do
    grep -q "^MISMATCH .*$pat" "$TMP/$case.out" \
      || { echo "tamper_statistics: $case: no mismatch for '$pat'"; cat "$TMP/$case.out"; exit 1; }
  done
  echo "tamper_statistics: $case: $(grep -c '^MISMATCH' "$TMP/$case.out") mismatch(es), each tampered figure caught"
}
check figures "$FIT" " coef latency_s:" " se intercept:" " fieller low:" " clopper_pearson_high:" \
  " quantile_high_rank:" " sub_margin_joint:"
check status "$FIT" "status separated, the separation LP says not separated"
check bracket "$SEP" "separated brackets"
