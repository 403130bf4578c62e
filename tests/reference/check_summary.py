#!/usr/bin/env python3
"""Independent reference for a Breakbench campaign's summary.json.

Recomputes every grid cell (n, k, p_hat and the Wilson interval) and both
self-report-vs-oracle confusion matrices from the run manifests alone, with
statsmodels' `proportion_confint(method="wilson")`, and compares them with
summary.json; then the statistics of issue 28 (margins, dose-response
models, Clopper-Pearson: check_statistics.py). Exits 1 on any count
mismatch or any value difference > 1e-12 (1e-6 for the GLM figures).

usage: check_summary.py <campaign-dir> [--summary FILE]

--summary checks FILE instead of <campaign-dir>/summary.json (CI checks
that a tampered summary is caught).
"""
import json
import math
import sys
from pathlib import Path

from statsmodels.stats.proportion import proportion_confint

import check_statistics

TOL = 1e-12


CLASSES = ("pass", "fail", "invalid", "unsupported", "precondition_failed", "error")


def safety_violation(v):
    return not (v["operating_region_containment"]["holds"] and v["obstacle_clearance"]["holds"])


def mission_failure(v):
    return not v["mission_completion_true_pose"]["holds"]


def sampled_design(design, axes, summary, manifests, errors):
    """A sampled design (REQ-STAT-SAMPLED): summary.json's design record
    equals the declaration, its points are the summary's cells in order and
    exactly the grid manifests' cells, each inside its axis' range; a Latin
    hypercube (and a Sobol' design of 2^m points) has one point in each of
    the `samples` equal strata of every axis. Returns the number of cells."""
    rec = summary.get("design") or {}
    n = design["samples"]
    for f in ("kind", "samples", "seed"):
        if rec.get(f) != design[f]:
            errors.append(f"design.{f}: summary {rec.get(f)} vs scenario {design[f]}")
    points = rec.get("points") or []
    names = [a["name"] for a in axes]
    cells = [{a: c[a] for a in names} for c in summary["cells"]]
    if points != cells or len(points) != n:
        errors.append(f"design.points: {len(points)} points, not the summary's {len(cells)} cells in order (samples {n})")
    ran = {tuple(sorted(m["cell"].items())) for m in manifests if m["kind"] == "grid"}
    if ran != {tuple(sorted(p.items())) for p in points}:
        errors.append("design.points: not the cells of the grid runs")
    for a in axes:
        lo, hi = a["range"]["min"], a["range"]["max"]
        vals = [p[a["name"]] for p in points]
        if any(not lo <= v <= hi for v in vals):
            errors.append(f"design: a point of {a['name']} outside [{lo}, {hi}]")
        if design["kind"] == "latin_hypercube" or n & (n - 1) == 0:
            strata = sorted(min(int((v - lo) / (hi - lo) * n), n - 1) for v in vals)
            if strata != list(range(n)):
                errors.append(f"design: {a['name']} strata {strata}, not one point in each of {n}")
    return n


def rare_event(scenario, summary, grid, errors):
    """A rare_event scenario (REQ-STAT-RARE): P-hat by importance sampling
    recomputed from the grid manifests (each run's latency and verdict),
    each weighed by scipy's normal densities N(mean, sd) / N(proposal, sd);
    its se, normal interval, effective runs and the Monte Carlo runs of the
    same se. Returns the number of cells (the draws)."""
    from scipy.stats import norm
    r = scenario["rare_event"]
    axis = scenario["axes"][0]["name"]
    conf = scenario["confidence"]
    judged = grid  # as the cells count them: every grid run
    fails = (lambda m: safety_violation(m["verdict"])) if r["predicate"] == "safety" \
        else (lambda m: mission_failure(m["verdict"]))
    w = [float(norm.pdf(m["cell"][axis], r["mean"], r["sd"]) / norm.pdf(m["cell"][axis], r["proposal_mean"], r["sd"]))
         for m in judged]
    y = [wi if fails(m) else 0.0 for wi, m in zip(w, judged)]
    n = len(y)
    p = sum(y) / n
    se = math.sqrt(sum((v - p) ** 2 for v in y) / (n - 1) / n)
    z = float(norm.isf((1 - conf) / 2))
    ref = {"runs": n, "failures": sum(1 for m in judged if fails(m)), "p": p, "se": se,
           "low": max(0.0, p - z * se), "high": p + z * se,
           "effective_runs": sum(w) ** 2 / sum(x * x for x in w),
           "monte_carlo_runs": p * (1 - p) / se ** 2 if se > 0 else None}
    got = summary.get("rare_event") or {}
    for f, v in ref.items():
        o = got.get(f)
        if isinstance(v, float) and o is not None:
            if abs(o - v) > 1e-9 * abs(v) + 1e-15:
                errors.append(f"rare_event {f}: summary {o!r} vs reference {v!r}")
        elif o != v:
            errors.append(f"rare_event {f}: summary {o!r} vs reference {v!r}")
    for f in ("method", "predicate", "mean", "sd", "proposal_mean"):
        if got.get(f) != r[f]:
            errors.append(f"rare_event {f}: summary {got.get(f)} vs scenario {r[f]}")
    if len({m["cell"][axis] for m in grid}) != r["samples"]:
        errors.append(f"rare_event: {len({m['cell'][axis] for m in grid})} distinct draws, not samples {r['samples']}")
    return r["samples"]


def main(d: Path, summary_path: Path) -> int:
    campaign = json.loads((d / "campaign.json").read_text())
    summary = json.loads(summary_path.read_text())
    scenario = campaign["scenario"]
    conf = scenario["confidence"]
    manifests = []
    for run_id in campaign["runs"]:
        p = d / "manifests" / f"{run_id}.json"
        if p.exists():
            manifests.append(json.loads(p.read_text()))
    # navigator axes: the cell value is the index of the navigator value
    axes = [a["name"] for a in scenario["axes"]] + [a["name"] for a in scenario.get("navigator_axes", [])]
    errors = []

    def close(what, ours, ref):
        if ours is None or ref is None or isinstance(ref, float) and math.isnan(ref):
            if not (ours is None and (ref is None or math.isnan(ref))):
                errors.append(f"{what}: summary {ours} vs reference {ref}")
            return
        if abs(ours - ref) > TOL:
            errors.append(f"{what}: summary {ours!r} vs reference {ref!r} (diff {abs(ours - ref):.3e})")

    grid = [m for m in manifests if m["kind"] == "grid"]
    checked = 0
    for cell in summary["cells"]:
        key = {a: cell[a] for a in axes}
        runs = [m for m in grid if all(m["cell"][a] == key[a] for a in axes)]
        n = len(runs)
        if cell["n"] != n:
            errors.append(f"cell {key}: n {cell['n']} vs {n}")
        for pred, fn in (("safety", safety_violation), ("mission", mission_failure)):
            k = sum(1 for m in runs if fn(m["verdict"]))
            s = cell[pred]
            if s["k"] != k:
                errors.append(f"cell {key} {pred}: k {s['k']} vs {k}")
            if n > 0:
                lo, hi = proportion_confint(k, n, alpha=1 - conf, method="wilson")
                close(f"cell {key} {pred} p_hat", s["p_hat"], k / n)
                close(f"cell {key} {pred} wilson_low", s["wilson_low"], float(lo))
                close(f"cell {key} {pred} wilson_high", s["wilson_high"], float(hi))
        # detection (scenario `detection:`): detected while the fault was
        # active, escaped = failed (mission or safety) without such a detection
        if scenario.get("detection"):
            det = cell["detection"]
            detected = lambda m: (m.get("detection") or {}).get("after_fault_s") is not None
            refs = {
                "detected": sum(1 for m in runs if detected(m)),
                "escaped": sum(1 for m in runs if (mission_failure(m["verdict"]) or safety_violation(m["verdict"])) and not detected(m)),
            }
            for pred, k in refs.items():
                if det[pred]["k"] != k:
                    errors.append(f"cell {key} detection.{pred}: k {det[pred]['k']} vs {k}")
                elif n > 0:
                    lo, hi = proportion_confint(k, n, alpha=1 - conf, method="wilson")
                    close(f"cell {key} detection.{pred} wilson_low", det[pred]["wilson_low"], float(lo))
                    close(f"cell {key} detection.{pred} wilson_high", det[pred]["wilson_high"], float(hi))
        # verdict-class counts, recomputed from each manifest's verdict_class
        ref_classes = {c: 0 for c in CLASSES}
        for m in runs:
            ref_classes[m["verdict_class"]["class"]] += 1
        if cell.get("verdict_classes") != ref_classes:
            errors.append(f"cell {key} verdict_classes: {cell.get('verdict_classes')} vs {ref_classes}")
        checked += 1
    all_axes = scenario["axes"] + scenario.get("navigator_axes", [])
    design = scenario.get("design")
    if isinstance(design, dict):
        n_cells = sampled_design(design, scenario["axes"], summary, manifests, errors)
    elif scenario.get("rare_event"):
        n_cells = rare_event(scenario, summary, grid, errors)
    else:
        n_cells = math.prod(len(a["values"]) for a in all_axes)
    if design == "pairwise":
        # a covering array: every pair of values of every two axes in some cell
        # (navigator axes by index), and exactly the cells the grid runs had
        vals = [a["values"] if "channel" in a else list(range(len(a["values"]))) for a in all_axes]
        names = [a["name"] for a in all_axes]
        for i in range(len(names)):
            for j in range(i + 1, len(names)):
                for x in vals[i]:
                    for y in vals[j]:
                        if not any(c[names[i]] == x and c[names[j]] == y for c in summary["cells"]):
                            errors.append(f"pairwise: pair {names[i]}={x}, {names[j]}={y} in no cell")
        n_cells = len({tuple(sorted(m["cell"].items())) for m in manifests if m["kind"] == "grid"})
    # per navigator variant: the nominal runs' false-positive rate
    for v in summary.get("nominal_detection", []):
        runs = [m for m in manifests if m["kind"] == "nominal"
                and all(m["cell"].get(a) == i for a, i in v["variant"].items())]
        k = sum(1 for m in runs if (m.get("detection") or {}).get("first_s") is not None)
        if (v["n"], v["false_positive"]["k"]) != (len(runs), k):
            errors.append(f"nominal {v['label']}: false positives {v['false_positive']['k']}/{v['n']} vs {k}/{len(runs)}")
        elif runs:
            lo, hi = proportion_confint(k, len(runs), alpha=1 - conf, method="wilson")
            close(f"nominal {v['label']} false_positive wilson_low", v["false_positive"]["wilson_low"], float(lo))
            close(f"nominal {v['label']} false_positive wilson_high", v["false_positive"]["wilson_high"], float(hi))
    if checked != n_cells:
        errors.append(f"summary has {checked} cells, scenario defines {n_cells}")

    # resilience tests: class counts, p̂ and Wilson over pass + fail only, of
    # each test, each phase of a phase-swept test, and each expectation
    def check_runs(what, entry, runs):
        ref_classes = {c: 0 for c in CLASSES}
        for m in runs:
            ref_classes[m["verdict_class"]["class"]] += 1
        if entry["verdict_classes"] != ref_classes:
            errors.append(f"{what} verdict_classes: {entry['verdict_classes']} vs {ref_classes}")
        k, n = ref_classes["fail"], ref_classes["pass"] + ref_classes["fail"]
        if (entry["judged"], entry["excluded"], entry["failure"]["k"]) != (n, len(runs) - n, k):
            errors.append(f"{what}: judged/excluded/k {entry['judged']}/{entry['excluded']}/{entry['failure']['k']} vs {n}/{len(runs) - n}/{k}")
        if n > 0:
            lo, hi = proportion_confint(k, n, alpha=1 - conf, method="wilson")
            close(f"{what} p_hat", entry["failure"]["p_hat"], k / n)
            close(f"{what} wilson_low", entry["failure"]["wilson_low"], float(lo))
            close(f"{what} wilson_high", entry["failure"]["wilson_high"], float(hi))
        judged = [m for m in runs if m["verdict_class"]["class"] in ("pass", "fail")]
        for e in entry["expectations"]:
            res = [r for m in judged for r in m["expectations"] if r["name"] == e["name"]]
            ke, ne = sum(1 for r in res if not r["satisfied"]), len(res)
            if (e["n"], e["unsatisfied"]["k"]) != (ne, ke):
                errors.append(f"{what} expectation {e['name']}: k/n {e['unsatisfied']['k']}/{e['n']} vs {ke}/{ne}")
            elif ne > 0:
                lo, hi = proportion_confint(ke, ne, alpha=1 - conf, method="wilson")
                close(f"{what} {e['name']} wilson_low", e["unsatisfied"]["wilson_low"], float(lo))
                close(f"{what} {e['name']} wilson_high", e["unsatisfied"]["wilson_high"], float(hi))

    phases_checked = 0
    for t in summary.get("tests", []):
        runs = [m for m in manifests if m.get("test", {}).get("test") == t["test"]
                and not m["test"]["baseline"]]
        check_runs(f"test {t['test']}", t, runs)
        for ph in t.get("phases", []):
            check_runs(f"test {t['test']} phase {ph['phase_s']}", ph,
                       [m for m in runs if m["cell"].get("phase_s") == ph["phase_s"]])
            phases_checked += 1

    corpus = [m for m in manifests if not m["harness_only"] and m["kind"] in ("grid", "nominal")]
    for pred, fn in (("safety", safety_violation), ("mission", mission_failure)):
        ref = {"success_ok": 0, "success_violated": 0, "failure_ok": 0, "failure_violated": 0, "no_report": 0}
        for m in corpus:
            r = m["self_report"]
            if r == "none":
                ref["no_report"] += 1
                continue
            ref[f"{r}_{'violated' if fn(m['verdict']) else 'ok'}"] += 1
        ours = summary["confusion"][pred]
        for f, v in ref.items():
            if ours.get(f) != v:
                errors.append(f"confusion {pred}.{f}: summary {ours.get(f)} vs reference {v}")

    canaries = [m for m in manifests if m["kind"] == "canary"]
    detected = bool(canaries) and all(safety_violation(m["verdict"]) for m in canaries)
    if summary["canary"]["violation_detected"] != detected:
        errors.append(f"canary.violation_detected: {summary['canary']['violation_detected']} vs {detected}")

    account = check_statistics.check(summary, scenario, manifests, errors)

    for e in errors:
        print("MISMATCH", e)
    print(f"reference check: {checked} cells, {len(summary.get('tests', []))} tests ({phases_checked} trigger phases), "
          f"{len(corpus)} corpus runs, {len(canaries)} canary; "
          f"{len(errors)} mismatches (tolerance {TOL})")
    print(f"reference check: {account}")
    return 1 if errors else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 3 and args[1] == "--summary":
        sys.exit(main(Path(args[0]), Path(args[2])))
    if len(args) != 1:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(Path(args[0]), Path(args[0]) / "summary.json"))
