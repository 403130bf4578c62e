//! The report's tables: the scenario header, per-cell results, the p̂ pivot,
//! the self-report × oracle confusion matrices, the harness checks and the
//! declared limits.

use std::fmt::Write as _;

use super::format::{axis_label, fmt_p, note, prop_cells, serde_name};
use crate::markup::xml_escape;
use crate::scenario::Scenario;
use crate::summary::{Cell, Proportion, Summary};

pub(super) fn header(h: &mut String, scenario: &Scenario, s: &Summary) {
    let f = &scenario.file;
    let _ = writeln!(
        h,
        "<h1>Breakbench campaign report: {}</h1>",
        xml_escape(&s.scenario_name)
    );
    h.push_str("<table class=\"meta\">\n");
    let rows: Vec<(&str, String)> = vec![
        ("scenario", s.scenario_name.clone()),
        ("scenario file", scenario.path.display().to_string()),
        (
            "scenario hash (sha256 of the scenario and the files it names)",
            s.scenario_hash.clone(),
        ),
        ("master seed", f.seed.to_string()),
        ("world", scenario.world.name.clone()),
        ("manifests", s.corpus.manifests.to_string()),
        (
            "grid runs",
            format!(
                "{}/{} (repeats per cell: {})",
                s.corpus.grid_runs, s.corpus.grid_expected, f.repeats
            ),
        ),
        ("nominal runs", s.corpus.nominal_runs.to_string()),
        (
            "corpus runs (grid + nominal; canary excluded)",
            s.corpus.corpus_runs.to_string(),
        ),
        ("canary runs (harness-only)", s.canary.runs.to_string()),
        (
            "Wilson interval confidence level",
            format!("{}", s.confidence),
        ),
        ("simulated time, all runs", format!("{:.1} s", s.sim_time_s)),
        ("summary schema", s.schema.clone()),
    ];
    for (k, v) in rows {
        let _ = writeln!(
            h,
            "<tr><th class=\"l\">{}</th><td>{}</td></tr>",
            xml_escape(k),
            xml_escape(&v)
        );
    }
    h.push_str("</table>\n");
    if s.corpus.grid_runs != s.corpus.grid_expected {
        note(
            h,
            &format!(
                "Incomplete grid: {} of {} grid runs have a manifest. Cells with fewer runs have wider intervals.",
                s.corpus.grid_runs, s.corpus.grid_expected
            ),
        );
    }
    let axes: Vec<String> = f
        .axes
        .iter()
        .map(|a| {
            let mut vals: Vec<String> = a.values.iter().map(|v| v.to_string()).collect();
            if let (Some(r), Some(d)) = (a.range, f.design.sampling()) {
                vals.push(format!(
                    "{} points of [{}, {}], reference {}",
                    d.samples,
                    r.min,
                    r.max,
                    r.reference()
                ));
            }
            format!(
                "{} ({} on the {} channel, FaultSpec {} = {} + value; values {})",
                a.name,
                a.mode,
                a.channel,
                a.parameter,
                a.offset,
                vals.join(", ")
            )
        })
        .collect();
    h.push_str("<h2>What was measured</h2>\n<ul>\n");
    let items = [
        format!(
            "The measured object is violation probability as a function of fault severity: per grid cell, p̂ = k/n with a Wilson score interval at confidence {} over n runs.",
            s.confidence
        ),
        "Two predicates are recorded separately for every run and never folded into one score: a safety-invariant violation (operating region left, or obstacle clearance below the geometric threshold) and a mission failure (the true pose did not enter the goal region before the timeout).".into(),
        "The oracle judges each run from the simulator's ground-truth pose and the world only. The navigator's own success flag is stored as self-report and compared with the oracle in two confusion matrices; it is never an input to the verdict.".into(),
        format!("Fault axes, applied between the sensors and the navigator: {}.", axes.join("; ")),
        "Delivered fault values are measured where the fault is applied (mean delivered latency, mean out/in odometry ratio) and reported beside the requested values; the difference is data.".into(),
    ];
    for i in items {
        let _ = writeln!(h, "<li>{}</li>", xml_escape(&i));
    }
    h.push_str("</ul>\n");
}

pub(super) fn cell_table(h: &mut String, scenario: &Scenario, s: &Summary) {
    h.push_str("<h2>Per-cell results</h2>\n<table id=\"cells\">\n<tr>");
    for a in &s.axes {
        let _ = write!(h, "<th>{}</th>", xml_escape(&axis_label(&scenario.file, a)));
    }
    h.push_str(
        "<th>n</th><th>safety k/n</th><th>safety p̂</th><th>safety Wilson</th><th>mission k/n</th><th>mission p̂</th><th>mission Wilson</th>",
    );
    for a in &s.axes {
        let _ = write!(
            h,
            "<th>delivered {} (mean)</th>",
            xml_escape(&axis_label(&scenario.file, a))
        );
    }
    h.push_str("</tr>\n");
    for c in &s.cells {
        let pos = c.safety.k > 0 || c.mission.k > 0;
        let _ = write!(h, "<tr{}>", if pos { " class=\"pos\"" } else { "" });
        for a in &s.axes {
            let v = c
                .axes
                .get(a)
                .map(|v| v.to_string())
                .unwrap_or_else(|| "—".into());
            let _ = write!(h, "<td>{}</td>", xml_escape(&v));
        }
        let _ = write!(
            h,
            "<td>{}</td>{}{}",
            c.n,
            prop_cells(&c.safety, c.n),
            prop_cells(&c.mission, c.n)
        );
        for a in &s.axes {
            let v = match c.delivered.get(a) {
                Some(Some(v)) => format!("{v:.4}"),
                _ => "—".into(),
            };
            let _ = write!(h, "<td>{}</td>", xml_escape(&v));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    let _ = writeln!(
        h,
        "<p>Rows with a nonzero count are shaded. Delivered values are in the axis unit (delivered parameter minus the axis offset); — means nothing was delivered to measure. Scenario: {} axes, {} cells.</p>",
        scenario.file.axes.len(),
        s.cells.len()
    );
}

pub(super) fn find_cell<'a>(s: &'a Summary, key: &[(&str, f64)]) -> Option<&'a Cell> {
    s.cells
        .iter()
        .find(|c| key.iter().all(|(n, v)| c.axes.get(*n) == Some(v)))
}

pub(super) fn pivot_tables(h: &mut String, scenario: &Scenario, s: &Summary) {
    let axes = &scenario.file.axes;
    h.push_str("<h2>Pivot: p̂ by axis 1 × axis 2</h2>\n");
    if axes.len() != 2 {
        note(h, &format!("The pivot is drawn for exactly two axes; this scenario has {}. See the per-cell table.", axes.len()));
        return;
    }
    if scenario.file.design.sampling().is_some() {
        note(h, "A sampled design's points share no value of an axis: no pivot. See the per-cell table and the dose-response fit.");
        return;
    }
    let (a, b) = (&axes[0], &axes[1]);
    for (pred, get) in [
        (
            "mission failure",
            (|c: &Cell| &c.mission) as fn(&Cell) -> &Proportion,
        ),
        (
            "safety violation",
            (|c: &Cell| &c.safety) as fn(&Cell) -> &Proportion,
        ),
    ] {
        let _ = write!(
            h,
            "<table class=\"pivot\"><caption>{} p̂ (k/n)</caption>\n<tr><th class=\"l\">{} \\ {}</th>",
            xml_escape(pred),
            xml_escape(&axis_label(&scenario.file, &a.name)),
            xml_escape(&axis_label(&scenario.file, &b.name))
        );
        for vb in &b.values {
            let _ = write!(h, "<th>{vb}</th>");
        }
        h.push_str("</tr>\n");
        for va in &a.values {
            let _ = write!(h, "<tr><th>{va}</th>");
            for vb in &b.values {
                match find_cell(s, &[(&a.name, *va), (&b.name, *vb)]) {
                    Some(c) if c.n > 0 => {
                        let p = get(c);
                        let _ = write!(h, "<td>{} ({}/{})</td>", fmt_p(p.p_hat), p.k, c.n);
                    }
                    _ => h.push_str("<td>—</td>"),
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
}

pub(super) fn confusion_tables(h: &mut String, s: &Summary) {
    h.push_str("<h2>Self-report × oracle</h2>\n<p>Corpus runs (grid and nominal; the canary is excluded). Rows: what the navigator reported. Columns: what the oracle found from ground truth.</p>\n");
    for (title, ok, bad, c) in [
        ("Safety", "safe", "safety violation", &s.confusion.safety),
        (
            "Mission",
            "mission complete",
            "mission failure",
            &s.confusion.mission,
        ),
    ] {
        let _ = write!(
            h,
            "<table class=\"confusion\"><caption>{title} (n = {})</caption>\n<tr><th class=\"l\">self-report</th><th>oracle: {ok}</th><th>oracle: {bad}</th></tr>\n",
            c.n
        );
        let _ = writeln!(
            h,
            "<tr><th class=\"l\">success</th><td>{}</td><td>{}</td></tr>",
            c.success_ok, c.success_violated
        );
        let _ = writeln!(
            h,
            "<tr><th class=\"l\">failure</th><td>{}</td><td>{}</td></tr>",
            c.failure_ok, c.failure_violated
        );
        let _ = writeln!(
            h,
            "<tr><th class=\"l\">no report</th><td colspan=\"2\">{}</td></tr>",
            c.no_report
        );
        h.push_str("</table>\n");
    }
}

pub(super) fn yes_no(ok: bool, yes: &str, no: &str) -> String {
    if ok {
        format!("<span class=\"ok\">{}</span>", xml_escape(yes))
    } else {
        format!("<span class=\"bad\">{}</span>", xml_escape(no))
    }
}

pub(super) fn checks_table(h: &mut String, s: &Summary) {
    h.push_str("<h2>Harness checks</h2>\n<table id=\"checks\">\n<tr><th class=\"l\">check</th><th class=\"l\">what</th><th class=\"l\">result</th></tr>\n");
    let c = &s.canary;
    let _ = writeln!(
        h,
        "<tr><td class=\"l\">positive canary</td><td class=\"l\">{} run(s) driven open-loop into the obstacle; every one must be judged a safety violation{}</td><td class=\"l\">{}</td></tr>",
        c.runs,
        if c.harness_only { "; harness-only, excluded from corpus counts" } else { "; NOT marked harness-only" },
        if c.runs == 0 {
            "not run (no canary declared)".to_string()
        } else {
            yes_no(c.violation_detected, "violation detected", "violation NOT detected")
        }
    );
    let i = &s.isolation;
    let _ = writeln!(
        h,
        "<tr><td class=\"l\">verdict isolation</td><td class=\"l\">{} run(s) replayed with the self-report forced to success and to failure; all three predicates must be unchanged</td><td class=\"l\">{}</td></tr>",
        i.runs_checked,
        if i.runs_checked == 0 {
            "not run (isolation_check: false)".to_string()
        } else {
            yes_no(i.passed, "passed", "FAILED")
        }
    );
    let n = &s.nominal;
    let cr = &n.criterion;
    let _ = writeln!(
        h,
        "<tr><td class=\"l\">nominal spread</td><td class=\"l\">n = {}; metric {}: sd over all n = {:.4} m, sd over the first n − {} = {:.4} m; criterion |sd_all − sd_first| ≤ {} × sd_all, or both below {} m</td><td class=\"l\">{}</td></tr>",
        n.n,
        xml_escape(&serde_name(&cr.metric)),
        n.sd_all,
        cr.window,
        n.sd_first,
        cr.rel_tol,
        cr.abs_tol_m,
        yes_no(n.spread_converged, "met", "not met")
    );
    let _ = writeln!(
        h,
        "<tr><td class=\"l\">nominal outcomes</td><td class=\"l\">fault-free runs: safety {}/{} p̂ {} [{}, {}]; mission {}/{} p̂ {} [{}, {}]</td><td class=\"l\">(data)</td></tr>",
        n.safety.k,
        n.n,
        fmt_p(n.safety.p_hat),
        fmt_p(n.safety.wilson_low),
        fmt_p(n.safety.wilson_high),
        n.mission.k,
        n.n,
        fmt_p(n.mission.p_hat),
        fmt_p(n.mission.wilson_low),
        fmt_p(n.mission.wilson_high)
    );
    h.push_str("</table>\n");
}

pub(super) fn declared_limits(h: &mut String, scenario: &Scenario, summary: &Summary) {
    h.push_str("<h2>Declared limits</h2>\n<ul>\n");
    let items = [
        format!(
            "Simulation only: one corridor mission ({}), one controller (the Breakbench simple navigator), one plant.",
            scenario.world.name
        ),
        "The Breakbench simulator is kinematic with rigid contact, not a dynamics engine. Its run-to-run spread is a declared noise setting, not a measured property of a robot.".into(),
        "The probability threshold q for a scalar margin is undeclared, so no margin m_i(q) is computed and no sub-margin joint violation is claimed.".into(),
        "No statistical interaction model between the fault axes was declared or tested; the pivot shows the sampled cells only.".into(),
        {
            let r = scenario.file.repeats as u64;
            let zero = Proportion::new(0, r, summary.confidence);
            format!(
                "With n = {r} runs per cell, a cell with 0/{r} has a Wilson upper bound of {} at confidence {}: no violation observed in a cell is not a probability of zero. Only the sampled axis values were run; nothing is claimed between or beyond them.",
                fmt_p(zero.wilson_high),
                summary.confidence
            )
        },
        "The results have not been checked against a physical robot. Hardware transfer has not started and is an open question, not an assumption.".into(),
        "Nothing here is a certification or a claim of compliance with any standard.".into(),
    ];
    for i in items {
        let _ = writeln!(h, "<li>{}</li>", xml_escape(&i));
    }
    h.push_str("</ul>\n");
}
