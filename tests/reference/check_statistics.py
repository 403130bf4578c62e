"""Independent reference for summary.json's statistics beyond p-hat (issue 28).

Called by check_summary.py for every campaign; recomputes from the run
manifests alone, with statsmodels and scipy:

* `statistics`: the declared settings or their defaults;
* Clopper-Pearson (`statistics.interval: clopper_pearson`) against
  `proportion_confint(method="beta")` on every cell and nominal p-hat;
* per cell and margin: m(q) (`numpy.quantile(method="inverted_cdf")`),
  the order-statistic interval's ranks from `scipy.stats.binom.cdf`, its
  coverage, the Wilks tolerance bound and the runs it needs, and the joint
  sub-margin count;
* every dose-response model: statsmodels `GLM(np.c_[k, n-k], X,
  family=Binomial(link))` with its `cov_params()`: coefficients, standard
  errors and covariance to 1e-6, deviance, Pearson chi2, the lack-of-fit
  p-value (`scipy.stats.chi2.sf`), the interaction's Wald test, and s* with
  its delta-method and Fieller intervals recomputed from statsmodels'
  estimate. Separation is decided independently by a linear program
  (Konis 2007, as R's detectseparation): a beta != 0 with x·beta >= 0 at
  every cell with an event and <= 0 at every cell with a non-event; a model
  is reported separated iff the LP finds one, and its bracket is recomputed
  from the cells' p-hat.
"""
import itertools
import math
import warnings

import numpy as np
import statsmodels.api as sm
from scipy.optimize import linprog
from scipy.stats import binom, chi2, norm
from statsmodels.stats.proportion import proportion_confint

DEFAULTS = {"interval": "wilson", "margin_q": 0.05, "tolerance_coverage": 0.95,
            "tolerance_confidence": 0.95, "p_star": 0.05, "link": "logit"}
GLM_TOL = 1e-6


def margin_stats(xs, q, conf, cov, tconf):
    x = sorted(xs)
    n = len(x)
    a = 1 - conf
    lows = [l for l in range(1, n + 1) if binom.cdf(l - 1, n, q) <= a / 2]
    # the largest l of the leading run (cdf increases with l)
    low = None
    for l in range(1, n + 1):
        if binom.cdf(l - 1, n, q) <= a / 2:
            low = l
        else:
            break
    assert low is None or low == max(lows)
    high = next((u for u in range(1, n + 1) if binom.cdf(u - 1, n, q) >= 1 - a / 2), None)
    upper = 1.0 if high is None else binom.cdf(high - 1, n, q)
    lower = 0.0 if low is None else binom.cdf(low - 1, n, q)
    tol = None
    for r in range(1, n + 1):
        if binom.sf(r - 1, n, 1 - cov) >= tconf:
            tol = r
        else:
            break
    need = next(m for m in range(1, 100000) if 1 - cov ** m >= tconf)
    at = lambda r: None if r is None else x[r - 1]
    return {
        "n": n, "min_m": x[0],
        "quantile_m": float(np.quantile(np.array(x), q, method="inverted_cdf")),
        "quantile_low_m": at(low), "quantile_high_m": at(high),
        "quantile_low_rank": low, "quantile_high_rank": high,
        "quantile_coverage": upper - lower,
        "tolerance_bound_m": at(tol), "tolerance_rank": tol, "runs_needed": need,
    }


def s_star_ref(beta, cov, a, b, target, z):
    t1 = a @ beta - target
    t2 = b @ beta
    v11, v12, v22 = a @ cov @ a, a @ cov @ b, b @ cov @ b
    s = -t1 / t2
    se = math.sqrt((v11 + 2 * s * v12 + s * s * v22) / (t2 * t2))
    qa, qb, qc = t2 * t2 - z * z * v22, t1 * t2 - z * z * v12, t1 * t1 - z * z * v11
    disc = qb * qb - qa * qc
    fie = ((-qb - math.sqrt(disc)) / qa, (-qb + math.sqrt(disc)) / qa) if qa > 0 and disc >= 0 else (None, None)
    return s, se, (s - z * se, s + z * se), fie


def separated_lp(X, k, n):
    """True when the binomial likelihood has no finite maximum: maximise
    sum_events x.b - sum_nonevents x.b over |b| <= 1 subject to x.b >= 0 at
    events and x.b <= 0 at non-events; separation iff the optimum is > 0."""
    rows, obj = [], np.zeros(X.shape[1])
    for x, ki, ni in zip(X, k, n):
        if ki > 0:
            rows.append(-x)
            obj -= x
        if ki < ni:
            rows.append(x)
            obj += x
    r = linprog(obj, A_ub=np.array(rows), b_ub=np.zeros(len(rows)),
                bounds=[(-1, 1)] * X.shape[1], method="highs")
    return r.status == 0 and -r.fun > 1e-7


class Checker:
    def __init__(self, errors):
        self.errors = errors
        self.models = self.fitted = self.separated = self.margins = self.exact = 0

    def close(self, what, ours, ref, tol):
        if ours is None or ref is None:
            if not (ours is None and ref is None):
                self.errors.append(f"{what}: summary {ours} vs reference {ref}")
            return
        if abs(ours - ref) > tol * max(1.0, abs(ref)):
            self.errors.append(f"{what}: summary {ours!r} vs reference {ref!r} (diff {abs(ours - ref):.3e})")

    def exact_interval(self, what, p, k, n, conf, method):
        if method != "clopper_pearson":
            if "clopper_pearson_low" in p:
                self.errors.append(f"{what}: a Clopper-Pearson interval without statistics.interval: clopper_pearson")
            return
        lo, hi = proportion_confint(k, n, alpha=1 - conf, method="beta")
        lo, hi = (0.0 if k == 0 else float(lo)), (1.0 if k == n else float(hi))
        self.close(f"{what} clopper_pearson_low", p.get("clopper_pearson_low"), lo, 1e-10)
        self.close(f"{what} clopper_pearson_high", p.get("clopper_pearson_high"), hi, 1e-10)
        self.exact += 1

    def cell_margins(self, key, cell, runs, st, conf):
        names = sorted({k for m in runs for k in m.get("margins", {})})
        ours = cell.get("margins", {})
        if sorted(ours) != names:
            self.errors.append(f"cell {key} margins: {sorted(ours)} vs {names}")
            return
        ref = {}
        for name in names:
            xs = [m["margins"][name] for m in runs if name in m.get("margins", {})]
            ref[name] = margin_stats(xs, st["margin_q"], conf, st["tolerance_coverage"], st["tolerance_confidence"])
            for f, v in ref[name].items():
                o = ours[name].get(f)
                # values to 1e-12: serde_json's float parsing (without its
                # float_roundtrip feature) may differ from Python's by an ulp
                if f == "quantile_coverage" or f.endswith("_m"):
                    self.close(f"cell {key} margin {name} {f}", o, v, 1e-12)
                elif o != v:
                    self.errors.append(f"cell {key} margin {name} {f}: summary {o} vs reference {v}")
            self.margins += 1
        if names:
            # against the summary's own m(q) (equal to the reference's to an ulp)
            joint = sum(1 for m in runs
                        if sum(1 for k, v in m.get("margins", {}).items()
                               if v <= ours[k]["quantile_m"] + 1e-12 * max(1.0, abs(ours[k]["quantile_m"]))) >= 2)
            if cell.get("sub_margin_joint") != joint:
                self.errors.append(f"cell {key} sub_margin_joint: {cell.get('sub_margin_joint')} vs {joint}")

    def model(self, m, counts, fault_axes, st, conf, reference=None):
        """counts: [(axis values dict, k, n)] of the model's variant;
        reference: a sampled design's reference value per axis (s* along an
        axis is taken there for the others), else None (every combination
        of the others' tested values)."""
        self.models += 1
        counts = [c for c in counts if c[2] > 0]
        what = f"dose_response {m['predicate']} {m['variant']}"
        axes = sorted(a for a in fault_axes if len({c[0][a] for c in counts}) >= 2)
        pairs = list(itertools.combinations(axes, 2))
        terms = ["intercept"] + axes + [f"{a}:{b}" for a, b in pairs]
        if m["terms"] != terms:
            self.errors.append(f"{what}: terms {m['terms']} vs {terms}")
            return
        X = np.array([[1.0] + [c[0][a] for a in axes] + [c[0][a] * c[0][b] for a, b in pairs] for c in counts])
        k = np.array([float(c[1]) for c in counts])
        n = np.array([float(c[2]) for c in counts])
        if np.linalg.matrix_rank(X) < X.shape[1]:
            if m["status"] != "not_identifiable":
                self.errors.append(f"{what}: status {m['status']}, the design is rank deficient")
            return
        separated = separated_lp(X, k, n)
        if separated != (m["status"] == "separated"):
            self.errors.append(f"{what}: status {m['status']}, the separation LP says {'' if separated else 'not '}separated")
            return
        if separated:
            self.separated += 1
            self.brackets(m, what, counts, axes, st["p_star"], reference)
            return
        link = sm.families.links.Logit() if st["link"] == "logit" else sm.families.links.Probit()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = sm.GLM(np.c_[k, n - k], X, family=sm.families.Binomial(link)).fit(tol=1e-13, maxiter=200)
        self.fitted += 1
        beta, cov = np.asarray(r.params), np.asarray(r.cov_params())
        for i, t in enumerate(terms):
            self.close(f"{what} coef {t}", m["coefficients"][i], float(beta[i]), GLM_TOL)
            self.close(f"{what} se {t}", m["standard_errors"][i], float(r.bse[i]), GLM_TOL)
            for j in range(len(terms)):
                self.close(f"{what} cov {i},{j}", m["covariance"][i][j], float(cov[i, j]), GLM_TOL)
        self.close(f"{what} deviance", m["deviance"], float(r.deviance), GLM_TOL)
        self.close(f"{what} pearson_chi2", m["pearson_chi2"], float(r.pearson_chi2), GLM_TOL)
        df = len(counts) - len(terms)
        if m["df_resid"] != df:
            self.errors.append(f"{what}: df_resid {m['df_resid']} vs {df}")
        self.close(f"{what} lack_of_fit_p", m.get("lack_of_fit_p"), float(chi2.sf(r.deviance, df)) if df > 0 else None, GLM_TOL)
        for w in m["interaction"]:
            i = terms.index(w["term"])
            z = beta[i] / r.bse[i]
            self.close(f"{what} {w['term']} z", w["z"], float(z), GLM_TOL)
            self.close(f"{what} {w['term']} p", w["p_value"], float(2 * norm.sf(abs(z))), GLM_TOL)
        zc = float(norm.isf((1 - conf) / 2))
        target = float(link(st["p_star"]))
        want = []
        for ax in axes:
            others = [a for a in axes if a != ax]
            for at in at_points(others, counts, reference):
                row = lambda v: np.array([1.0] + [({**at, ax: v})[a] for a in axes]
                                         + [({**at, ax: v})[a] * ({**at, ax: v})[b] for a, b in pairs])
                a0 = row(0.0)
                want.append((ax, at, s_star_ref(beta, cov, a0, row(1.0) - a0, target, zc)))
        if len(want) != len(m["s_star"]):
            self.errors.append(f"{what}: {len(m['s_star'])} s* vs {len(want)}")
            return
        for s, (ax, at, (v, se, dl, fi)) in zip(m["s_star"], want):
            w = f"{what} s* {ax} at {at}"
            if (s["axis"], s["at"]) != (ax, at):
                self.errors.append(f"{w}: got {s['axis']} at {s['at']}")
                continue
            self.close(f"{w} value", s["value"], v, GLM_TOL)
            self.close(f"{w} delta_se", s["delta_se"], se, GLM_TOL)
            self.close(f"{w} delta low", s["delta"]["low"], dl[0], GLM_TOL)
            self.close(f"{w} delta high", s["delta"]["high"], dl[1], GLM_TOL)
            self.close(f"{w} fieller low", s["fieller"]["low"], fi[0], GLM_TOL)
            self.close(f"{w} fieller high", s["fieller"]["high"], fi[1], GLM_TOL)

    def brackets(self, m, what, counts, axes, p_star, reference=None):
        want = []
        for ax in axes:
            others = [a for a in axes if a != ax]
            for at in at_points(others, counts, reference):
                line = []
                for v in sorted({c[0][ax] for c in counts}):
                    sel = [c for c in counts if c[0][ax] == v and all(c[0][a] == at[a] for a in others)]
                    kk, nn = sum(c[1] for c in sel), sum(c[2] for c in sel)
                    if nn:
                        line.append((v, kk / nn > p_star))
                if len(line) < 2:
                    continue  # one tested value here (a pairwise design's slice): no bracket
                cross = next(([a[0], b[0]] for a, b in zip(line, line[1:]) if a[1] != b[1]), None)
                want.append((ax, at, cross))
        got = [(b["axis"], b["at"], b["between"]) for b in m.get("separated", [])]
        if got != want:
            self.errors.append(f"{what}: separated brackets {got} vs {want}")


def at_points(others, counts, reference):
    """Where s* along an axis is taken: the reference of each other axis
    (a sampled design), else every combination of their tested values."""
    if reference is not None:
        return [{a: reference[a] for a in others}]
    return [dict(zip(others, combo))
            for combo in itertools.product(*[sorted({c[0][a] for c in counts}) for a in others])]


def check(summary, scenario, manifests, errors):
    """Appends every mismatch to `errors`; returns a one-line account."""
    c = Checker(errors)
    st = {**DEFAULTS, **(scenario.get("statistics") or {})}
    if summary.get("statistics") != st:
        errors.append(f"statistics: summary {summary.get('statistics')} vs {st}")
    conf = scenario["confidence"]
    fault_axes = [a["name"] for a in scenario["axes"]]
    nav_axes = [a["name"] for a in scenario.get("navigator_axes", [])]
    grid = [m for m in manifests if m["kind"] == "grid"
            and m["verdict_class"]["class"] in ("pass", "fail")]
    for cell in summary["cells"]:
        key = {a: cell[a] for a in fault_axes + nav_axes}
        runs = [m for m in grid if all(m["cell"][a] == key[a] for a in key)]
        for pred in ("safety", "mission"):
            c.exact_interval(f"cell {key} {pred}", cell[pred], cell[pred]["k"], cell["n"], conf, st["interval"])
        for pred, p in (cell.get("detection") or {}).items():
            if pred in ("detected", "escaped") and cell["n"] > 0:
                c.exact_interval(f"cell {key} detection.{pred}", p, p["k"], cell["n"], conf, st["interval"])
        c.cell_margins(key, cell, runs, st, conf)
    nom = summary["nominal"]
    for pred in ("safety", "mission"):
        if nom["n"] > 0:
            c.exact_interval(f"nominal {pred}", nom[pred], nom[pred]["k"], nom["n"], conf, st["interval"])
    for v in summary.get("nominal_detection", []):
        for pred in ("false_positive", "safety", "mission"):
            if v["n"] > 0:
                c.exact_interval(f"nominal {v['label']} {pred}", v[pred], v[pred]["k"], v["n"], conf, st["interval"])
    # one model per navigator variant and predicate, in that order
    variants = [dict(zip(nav_axes, map(float, v)))
                for v in itertools.product(*[range(len(a["values"])) for a in scenario.get("navigator_axes", [])])]
    want = [(v, p) for v in variants for p in ("safety", "mission")] if fault_axes else []
    models = summary.get("dose_response", [])
    reference = None
    if isinstance(scenario.get("design"), dict):
        reference = {a["name"]: a["range"].get("reference", a["range"]["min"]) for a in scenario["axes"]}
    if [(m["variant"], m["predicate"]) for m in models] != want:
        errors.append(f"dose_response: models {[(m['variant'], m['predicate']) for m in models]} vs {want}")
    else:
        for m in models:
            cells = [x for x in summary["cells"] if all(x[a] == v for a, v in m["variant"].items())]
            counts = [({a: x[a] for a in fault_axes}, x[m["predicate"]]["k"], x["n"]) for x in cells]
            c.model(m, counts, fault_axes, st, conf, reference)
    return (f"statistics: {c.margins} cell margins, {c.models} dose-response models "
            f"({c.fitted} fitted checked against statsmodels GLM, {c.separated} separated), "
            f"{c.exact} Clopper-Pearson intervals")
