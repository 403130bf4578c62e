//! The resilience-test section of the report, drawn only when the scenario
//! has `tests:` (a study without tests renders exactly as before):
//!
//! 1. the verdict-class table: per test (and per grid cell when the
//!    scenario also has a grid) the count of each class, p̂ and Wilson over
//!    pass + fail with the excluded counts beside them, and each detection
//!    expectation's false-positive rate on the baselines;
//! 2. the traceability matrix: requirement → hazard → fault (channel, mode)
//!    → test → verdict (class counts) → artifacts (links to the manifests,
//!    relative to the campaign directory);
//! 3. per test and expectation: the unsatisfied rate, the latency
//!    distribution (n, median, p95, max, role) and a strip / box plot;
//! 4. a timeline of each test's first fault run and of its baseline: the
//!    fault window, the fault events and every expectation's decision.
//!
//! Counts, rates and latency statistics are read from the [`Summary`]; the
//! single latencies of the strip plots and the timelines from the
//! manifests. The SVG is written by hand (no script, no plotting crate).

use std::fmt::Write as _;

use breakbench_oracle::expect::{ExpectationResult, Kind, Timeline, VerdictClass};

use super::format::{fmt_p, note, prop_cells, serde_name};
use super::tables::find_cell;
use crate::manifest::Manifest;
use crate::markup::xml_escape;
use crate::resilience::ResilienceTest;
use crate::resilience_summary::{TestSummary, FALSE_ALARM_SUFFIX};
use crate::scenario::Scenario;
use crate::summary::{ClassCounts, Proportion, Summary};

use super::resilience_plots::{self as plots, Bound};

/// The runs of test `name`: its fault runs, or its baselines, in run-id order
/// (`ms` is sorted by run id).
fn runs_of<'a>(ms: &[&'a Manifest], name: &str, baseline: bool) -> Vec<&'a Manifest> {
    ms.iter()
        .copied()
        .filter(|m| {
            m.judgement
                .test
                .as_ref()
                .is_some_and(|i| i.test == name && i.baseline == baseline)
        })
        .collect()
}

/// Each class with its count, in report order.
fn class_values(c: &ClassCounts) -> [(VerdictClass, u64); 6] {
    [
        (VerdictClass::Pass, c.pass),
        (VerdictClass::Fail, c.fail),
        (VerdictClass::Invalid, c.invalid),
        (VerdictClass::Unsupported, c.unsupported),
        (VerdictClass::PreconditionFailed, c.precondition_failed),
        (VerdictClass::Error, c.error),
    ]
}

/// The nonzero classes, e.g. `pass 3, invalid 1`; `none` when all are 0.
fn counts_text(c: &ClassCounts) -> String {
    let parts: Vec<String> = class_values(c)
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{} {n}", k.name()))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

/// The excluded count with its breakdown, e.g. `1 (invalid 1)`.
fn excluded_text(c: &ClassCounts) -> String {
    let ex = ClassCounts {
        pass: 0,
        fail: 0,
        ..c.clone()
    };
    if c.excluded() == 0 {
        "0".into()
    } else {
        format!("{} ({})", c.excluded(), counts_text(&ex))
    }
}

/// `k/n, p̂ 0.000 [lo, hi]`; `—` for n = 0.
fn prop_text(p: &Proportion, n: u64) -> String {
    if n == 0 {
        return "—".into();
    }
    format!(
        "{}/{n}, p̂ {} [{}, {}]",
        p.k,
        fmt_p(p.p_hat),
        fmt_p(p.wilson_low),
        fmt_p(p.wilson_high)
    )
}

/// Baselines of `test` whose false-alarm probe of `expectation` was judged
/// (the n of its false-positive rate, as in `resilience_summary::summarize`).
fn probe_n(ms: &[&Manifest], test: &str, expectation: &str) -> u64 {
    let probe = format!("{expectation}{FALSE_ALARM_SUFFIX}");
    runs_of(ms, test, true)
        .iter()
        .filter(|m| {
            m.judgement
                .expectations
                .iter()
                .any(|r| r.name == probe && r.undecidable.is_none())
        })
        .count() as u64
}

/// A path segment with everything but unreserved characters (RFC 3986)
/// percent-encoded.
fn percent_encode(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            o.push(b as char);
        } else {
            let _ = write!(o, "%{b:02X}");
        }
    }
    o
}

/// A link to a run's manifest, relative to report.html
/// (`manifests/<run_id>.json`, as `store::manifest_path` writes it).
fn manifest_link(run_id: &str) -> String {
    format!(
        "<a href=\"manifests/{}.json\">{}</a>",
        xml_escape(&percent_encode(run_id)),
        xml_escape(run_id)
    )
}

/// `<a>manifest</a>` of run `m`, and `, <a>recording</a>` when the run was
/// recorded (its manifest holds the recording's sha256), relative to
/// report.html (`crate::ledger::recording_file`).
pub(super) fn run_files(m: &Manifest) -> String {
    let id = xml_escape(&percent_encode(&m.run_id));
    let mut s = format!("<a href=\"manifests/{id}.json\">manifest</a>");
    if m.recording_sha256.is_some() {
        let _ = write!(s, ", <a href=\"recordings/{id}.mcap\">recording</a>");
    }
    s
}

fn file_test<'a>(scenario: &'a Scenario, name: &str) -> Option<&'a ResilienceTest> {
    scenario.file.tests.iter().find(|t| t.name == name)
}

/// The section (nothing when the summary has no test).
pub(super) fn section(h: &mut String, scenario: &Scenario, s: &Summary, ms: &[&Manifest]) {
    if s.tests.is_empty() {
        return;
    }
    h.push_str("<h2>Resilience tests</h2>\n<p>Each fault run is judged by its test's expectations and given one verdict class. Only <code>pass</code> and <code>fail</code> enter p̂ (the failure probability, with its Wilson interval); <code>invalid</code>, <code>unsupported</code>, <code>precondition_failed</code> and <code>error</code> are counted beside it and never as a pass. Each fault run has a baseline: same seed and mission, no fault, judged by the expectations that do not refer to a fault; a detection expectation's predicate evaluated over a whole baseline gives its false-positive rate.</p>\n");
    verdict_table(h, s, ms);
    if !scenario.file.axes.is_empty() {
        cell_class_table(h, scenario, s);
    }
    traceability(h, scenario, s, ms);
    expectation_tables(h, scenario, s, ms);
    phase_tables(h, scenario, s);
    timelines(h, s, ms);
}

/// Per phase-swept test, a row per trigger phase: the verdict classes, p̂ of
/// failure, the injection latency, and per expectation "unsatisfied k/n"
/// with its p̂ and median latency.
fn phase_tables(h: &mut String, scenario: &Scenario, s: &Summary) {
    for t in s.tests.iter().filter(|t| !t.phases.is_empty()) {
        let Some(ps) = file_test(scenario, &t.test).and_then(|f| f.phase_sweep.as_ref()) else {
            continue;
        };
        let _ = write!(
            h,
            "<h3>Trigger phase: test {}</h3>
<p>The trigger of fault <code>{}</code> shifted by each phase over {} s in {} steps; every phase runs the same seeds. Per expectation: unsatisfied k/n, p̂ [Wilson], and the median latency of the satisfied runs.</p>
<table class=\"phases\" id=\"phases-{}\">
<tr><th>phase [s]</th><th>runs</th><th>pass</th><th>fail</th><th>excluded</th><th>p̂ fail [Wilson]</th><th>injection latency median (max) [s]</th>",
            xml_escape(&t.test),
            xml_escape(&ps.fault),
            ps.span_s,
            ps.steps,
            xml_escape(&t.test)
        );
        for e in &t.expectations {
            let _ = write!(h, "<th>{}</th>", xml_escape(&e.name));
        }
        h.push_str("</tr>\n");
        for p in &t.phases {
            let c = &p.verdict_classes;
            let runs: u64 = class_values(c).iter().map(|(_, n)| n).sum();
            let inj = p.injection_latency.as_ref().map_or("—".to_string(), |l| {
                format!("{:.3} ({:.3})", l.median_s, l.max_s)
            });
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{runs}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{inj}</td>",
                p.phase_s,
                c.pass,
                c.fail,
                c.excluded(),
                xml_escape(&prop_text(&p.failure, p.judged)),
            );
            for e in &p.expectations {
                let lat = e
                    .latency
                    .as_ref()
                    .map_or(String::new(), |l| format!("; {:.3} s", l.median_s));
                let _ = write!(
                    h,
                    "<td>{}{}</td>",
                    xml_escape(&prop_text(&e.unsatisfied, e.n)),
                    lat
                );
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
}

fn class_header(h: &mut String) {
    for c in VerdictClass::ALL {
        let _ = write!(h, "<th>{}</th>", c.name());
    }
    h.push_str("<th>fail k/(pass + fail)</th><th>p̂</th><th>Wilson</th><th class=\"l\">excluded from p̂</th>");
}

fn class_cells(h: &mut String, c: &ClassCounts, failure: &Proportion) {
    for (_, n) in class_values(c) {
        let _ = write!(h, "<td>{n}</td>");
    }
    let _ = write!(
        h,
        "{}<td class=\"l\">{}</td>",
        prop_cells(failure, c.judged()),
        xml_escape(&excluded_text(c))
    );
}

fn verdict_table(h: &mut String, s: &Summary, ms: &[&Manifest]) {
    let _ = write!(
        h,
        "<h3>Verdict classes</h3>\n<table id=\"test-classes\">\n<tr><th class=\"l\">test</th><th>fault runs</th>"
    );
    class_header(h);
    h.push_str("<th class=\"l\">baselines</th><th class=\"l\">baseline false-positive rate (detection expectations)</th></tr>\n");
    for t in &s.tests {
        let c = &t.verdict_classes;
        let runs: u64 = class_values(c).iter().map(|(_, n)| n).sum();
        // A self-test (a test of the harness or of the test) declares the
        // class of its runs: say whether they met it.
        let self_test = t.self_test.as_ref().map_or(String::new(), |st| {
            format!(
                "<br/>self-test: {}: {}/{} met{}",
                xml_escape(&st.declaration),
                st.met,
                st.runs,
                if st.passed { "" } else { " — FAILED" }
            )
        });
        let _ = write!(
            h,
            "<tr{}><td class=\"l\">{}{self_test}</td><td>{runs}</td>",
            if c.fail > 0 || c.excluded() > 0 {
                " class=\"pos\""
            } else {
                ""
            },
            xml_escape(&t.test)
        );
        class_cells(h, c, &t.failure);
        let fps: Vec<String> = t
            .expectations
            .iter()
            .filter_map(|e| {
                let p = e.false_positive.as_ref()?;
                let n = probe_n(ms, &t.test, &e.name);
                let text = if n == 0 {
                    "no baseline evaluated it".to_string()
                } else {
                    prop_text(p, n)
                };
                Some(format!("{}: {}", xml_escape(&e.name), xml_escape(&text)))
            })
            .collect();
        let fp = if fps.is_empty() {
            "— (no detection expectation)".to_string()
        } else {
            fps.join("<br/>")
        };
        let _ = writeln!(
            h,
            "<td class=\"l\">{}</td><td class=\"l\">{fp}</td></tr>",
            xml_escape(&counts_text(&t.baselines))
        );
    }
    h.push_str("</table>\n");
    let _ = writeln!(
        h,
        "<p>Rows with a failure or an excluded run are shaded. p̂ = fail/(pass + fail) with its Wilson interval at confidence {}; a false-positive rate is the fraction of baselines in which the detection expectation's predicate fired although no fault was injected.</p>",
        s.confidence
    );
}

fn cell_class_table(h: &mut String, scenario: &Scenario, s: &Summary) {
    h.push_str("<h3>Grid cells by verdict class</h3>\n<table id=\"cell-classes\">\n<tr>");
    for a in &scenario.file.axes {
        let _ = write!(h, "<th>{}</th>", xml_escape(&a.name));
    }
    h.push_str("<th>runs</th>");
    class_header(h);
    h.push_str("</tr>\n");
    for c in &s.cells {
        let key: Vec<(&str, f64)> = c.axes.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        if find_cell(s, &key).is_none() {
            continue;
        }
        h.push_str("<tr>");
        for a in &scenario.file.axes {
            let v = c.axes.get(&a.name).map_or("—".into(), |v| v.to_string());
            let _ = write!(h, "<td>{}</td>", xml_escape(&v));
        }
        let vc = &c.verdict_classes;
        let runs: u64 = class_values(vc).iter().map(|(_, n)| n).sum();
        let _ = write!(h, "<td>{runs}</td>");
        let failure = Proportion::new(vc.fail, vc.judged(), s.confidence);
        class_cells(h, vc, &failure);
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
}

fn traceability(h: &mut String, scenario: &Scenario, s: &Summary, ms: &[&Manifest]) {
    h.push_str("<h3>Traceability matrix</h3>\n<table id=\"trace\">\n<tr><th class=\"l\">requirement</th><th class=\"l\">hazard</th><th class=\"l\">fault (channel, mode)</th><th class=\"l\">test</th><th class=\"l\">verdict (class counts)</th><th class=\"l\">artifacts (run manifests)</th></tr>\n");
    for t in &s.tests {
        let faults: Vec<String> = file_test(scenario, &t.test)
            .map(|ft| {
                ft.faults
                    .iter()
                    .map(|f| format!("{} ({}, {})", f.name, f.channel, f.mode))
                    .collect()
            })
            .unwrap_or_default();
        let faults = if faults.is_empty() {
            vec!["—".to_string()]
        } else {
            faults
        };
        let verdict = format!(
            "fault runs: {}; baselines: {}",
            counts_text(&t.verdict_classes),
            counts_text(&t.baselines)
        );
        let links = |baseline: bool| -> String {
            let l: Vec<String> = runs_of(ms, &t.test, baseline)
                .iter()
                .map(|m| manifest_link(&m.run_id))
                .collect();
            if l.is_empty() {
                "none".into()
            } else {
                l.join(", ")
            }
        };
        let artifacts = format!(
            "fault runs: {}<br/>baselines: {}",
            links(false),
            links(true)
        );
        for f in faults {
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{artifacts}</td></tr>",
                xml_escape(&t.requirement),
                xml_escape(&t.hazard),
                xml_escape(&f),
                xml_escape(&t.test),
                xml_escape(&verdict)
            );
        }
    }
    h.push_str("</table>\n<p>One row per fault of a test. Artifact links are relative to this file (the campaign directory).</p>\n");
}

fn bound_of(t: Option<&ResilienceTest>, name: &str) -> (String, Option<Bound>) {
    let kind = t.and_then(|t| {
        t.expectations()
            .into_iter()
            .find(|e| e.name == name)
            .and_then(|e| e.kind())
    });
    match kind {
        Some(Kind::Within(w)) => ("within".into(), Some(Bound::Upper(w.within_s))),
        Some(Kind::At(a)) => (
            "at".into(),
            Some(Bound::Band(a.at_s - a.tol_s, a.at_s + a.tol_s)),
        ),
        Some(k) => (k.name().into(), None),
        None => ("—".into(), None),
    }
}

fn bound_text(b: Option<Bound>) -> String {
    match b {
        Some(Bound::Upper(u)) => format!("≤ {u} s"),
        Some(Bound::Band(lo, hi)) => format!("{lo:.3}–{hi:.3} s"),
        None => "—".into(),
    }
}

/// The latencies of expectation `name` over the judged fault runs of `t`
/// (the sample behind its summary's latency statistics).
fn latencies(ms: &[&Manifest], t: &TestSummary, name: &str) -> Vec<f64> {
    runs_of(ms, &t.test, false)
        .iter()
        .filter(|m| m.judgement.verdict_class.class.counts_in_p_hat())
        .filter_map(|m| m.judgement.expectations.iter().find(|r| r.name == name))
        .filter_map(ExpectationResult::latency_s)
        .collect()
}

fn expectation_tables(h: &mut String, scenario: &Scenario, s: &Summary, ms: &[&Manifest]) {
    h.push_str("<h3>Expectations and latencies</h3>\n<p>Per expectation over the fault runs counted in p̂: how often it was not satisfied, and for an expectation with a role (detection, reaction, recovery) the distribution of its latency, decision time minus its anchor, over the runs where it was satisfied. Percentiles interpolate linearly between order statistics. In the plots, dots are single runs, the box spans the quartiles with the median as a thick line, whiskers reach the extremes, the tick above marks p95, and the dashed line (or band) is the declared bound.</p>\n");
    for t in &s.tests {
        let ft = file_test(scenario, &t.test);
        let _ = writeln!(
            h,
            "<h4>Test {}</h4>\n<table class=\"latency\">\n<tr><th class=\"l\">expectation</th><th class=\"l\">kind</th><th class=\"l\">role</th><th>bound</th><th>unsatisfied k/n</th><th>p̂</th><th>Wilson</th><th>latency n</th><th>median [s]</th><th>p95 [s]</th><th>max [s]</th><th class=\"l\">baseline false positives</th></tr>",
            xml_escape(&t.test)
        );
        let mut figs = String::new();
        for e in &t.expectations {
            let (kind, bound) = bound_of(ft, &e.name);
            let role = e.role.map_or("—".to_string(), |r| serde_name(&r));
            let _ = write!(
                h,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td>{}",
                xml_escape(&e.name),
                xml_escape(&kind),
                xml_escape(&role),
                xml_escape(&bound_text(bound)),
                prop_cells(&e.unsatisfied, e.n)
            );
            match &e.latency {
                Some(l) => {
                    let _ = write!(
                        h,
                        "<td>{}</td><td>{:.3}</td><td>{:.3}</td><td>{:.3}</td>",
                        l.n, l.median_s, l.p95_s, l.max_s
                    );
                }
                None => h.push_str("<td>0</td><td>—</td><td>—</td><td>—</td>"),
            }
            let fp = match &e.false_positive {
                Some(p) => prop_text(p, probe_n(ms, &t.test, &e.name)),
                None => "—".into(),
            };
            let _ = writeln!(h, "<td class=\"l\">{}</td></tr>", xml_escape(&fp));
            let xs = latencies(ms, t, &e.name);
            if e.role.is_some() && !xs.is_empty() {
                let _ = writeln!(
                    figs,
                    "<figure>{}<figcaption>{} ({}): latency over {} run(s), s{}</figcaption></figure>",
                    plots::latency_svg(&xs, bound),
                    xml_escape(&e.name),
                    xml_escape(&role),
                    xs.len(),
                    match e.latency.as_ref() {
                        Some(l) => format!(
                            "; median {:.3}, p95 {:.3}, max {:.3}",
                            l.median_s, l.p95_s, l.max_s
                        ),
                        None => String::new(),
                    }
                );
            }
        }
        h.push_str("</table>\n");
        if !figs.is_empty() {
            let _ = write!(h, "<div class=\"plots\">\n{figs}</div>\n");
        }
    }
}

/// The runs whose timeline is shown for test `t`: its first fault run and
/// that run's baseline (the first baseline if the pair is not found).
fn shown_runs<'a>(ms: &[&'a Manifest], t: &str) -> Vec<(&'static str, &'a Manifest)> {
    let mut out = Vec::new();
    let runs = runs_of(ms, t, false);
    let bases = runs_of(ms, t, true);
    if let Some(m) = runs.first() {
        out.push(("first fault run", *m));
        let pair = m.run_id.replacen("test_", "baseline_", 1);
        if let Some(b) = bases.iter().find(|b| b.run_id == pair).or(bases.first()) {
            out.push(("its baseline (no fault)", *b));
        }
    } else if let Some(b) = bases.first() {
        out.push(("first baseline (no fault run)", *b));
    }
    out
}

fn timelines(h: &mut String, s: &Summary, ms: &[&Manifest]) {
    h.push_str("<h3>Timelines</h3>\n<p>Sim time on the horizontal axis. The shaded band is the fault window, from the first message the fault changed or withheld (applied) to its clear (to the end of the run for a fault that was never cleared). Vertical lines mark the fault events; each expectation has a row with its decision: green satisfied, red violated, grey undecidable, joined to its anchor by a thin line. Below each timeline the fault events on both clocks (host: the monotonic clock since the run started).</p>\n");
    for t in &s.tests {
        let _ = writeln!(h, "<h4>Test {}</h4>", xml_escape(&t.test));
        let shown = shown_runs(ms, &t.test);
        if shown.is_empty() {
            note(h, "No run of this test has a manifest.");
        }
        for (what, m) in shown {
            let vc = &m.judgement.verdict_class;
            let _ = writeln!(
                h,
                "<p>{} <code>{}</code> ({}): <b>{}</b>, {}</p>",
                xml_escape(what),
                xml_escape(&m.run_id),
                run_files(m),
                vc.class.name(),
                xml_escape(&vc.reason)
            );
            let Some(tl) = &m.judgement.timeline else {
                note(h, "This run's manifest has no timeline.");
                continue;
            };
            let end = plots::timeline_end(tl, m.sim_time_s);
            let _ = writeln!(
                h,
                "<figure>{}<figcaption>Whole run, 0–{end:.2} s.</figcaption></figure>",
                plots::timeline_svg(tl, &m.judgement.expectations, 0.0, end)
            );
            if let Some((a, b)) = plots::zoom_range(tl, end) {
                let _ = writeln!(
                    h,
                    "<figure>{}<figcaption>Around the fault events, {a:.2}–{b:.2} s.</figcaption></figure>",
                    plots::timeline_svg(tl, &m.judgement.expectations, a, b)
                );
            }
            event_table(h, tl);
        }
    }
}

fn event_table(h: &mut String, tl: &Timeline) {
    if tl.faults.is_empty() {
        return;
    }
    h.push_str("<table class=\"events\">\n<tr><th class=\"l\">fault</th><th class=\"l\">event</th><th>sim [s]</th><th>host [s]</th></tr>\n");
    for f in &tl.faults {
        for (ev, st) in plots::fault_events(f) {
            let (sim, host) = match st {
                Some(s) => (
                    format!("{:.3}", s.sim_s),
                    s.host_s.map_or("—".into(), |x| format!("{x:.6}")),
                ),
                None => ("—".into(), "—".into()),
            };
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{ev}</td><td>{sim}</td><td>{host}</td></tr>",
                xml_escape(&f.fault)
            );
        }
        if let Some(l) = f.injection_latency_s {
            let _ = writeln!(
                h,
                "<tr><td class=\"l\">{}</td><td class=\"l\">injection latency (applied − trigger)</td><td>{l:.3}</td><td>—</td></tr>",
                xml_escape(&f.fault)
            );
        }
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod unit {
    use super::super::render_html;
    use super::super::test_corpus::{test_manifests, test_scenario};
    use super::*;

    fn render() -> String {
        let dir = tempfile::tempdir().unwrap();
        let s = test_scenario();
        let ms = test_manifests();
        let summary = Summary::compute(&s.file, &s.hash, &ms);
        render_html(&s, &summary, &ms, dir.path()).unwrap()
    }

    /// The `<tr>` of table `id` whose first cell is `first`.
    fn row(html: &str, id: &str, first: &str) -> String {
        let table = &html[html.find(&format!("<table id=\"{id}\">")).unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        let prefix = format!("<td class=\"l\">{first}</td>");
        table
            .split("<tr")
            .find(|r| r.find("<td") == r.find(&prefix) && r.contains(&prefix))
            .unwrap_or_else(|| panic!("no row {first} in {id}"))
            .to_string()
    }

    #[test]
    fn verdict_class_table_counts_p_hat_and_false_positives() {
        let html = render();
        // Test A: one pass. Wilson 95 % of 0/1: z² = 3.8415, upper bound
        // z²/(1 + z²) = 0.7934.
        let r = row(&html, "test-classes", "scan_loss_at_obstacle");
        assert!(
            r.contains("<td>1</td><td>1</td><td>0</td><td>0</td><td>0</td><td>0</td><td>0</td><td class=\"p\">0/1</td><td class=\"p\">0.000</td><td>[0.000, 0.793]</td><td class=\"l\">0</td>"),
            "{r}"
        );
        assert!(r.contains("<td class=\"l\">pass 1</td>"), "{r}");
        assert!(
            r.contains("diagnostics_error: 0/1, p̂ 0.000 [0.000, 0.793]"),
            "{r}"
        );
        assert!(!r.contains("class=\"pos\""), "{r}");
        // Test B (name a<b&c): one fail, one invalid → 1/1 over pass + fail,
        // the invalid run beside it; Wilson of 1/1 mirrors 0/1.
        let r = row(&html, "test-classes", "a&lt;b&amp;c");
        assert!(
            r.contains("<td>2</td><td>0</td><td>1</td><td>1</td><td>0</td><td>0</td><td>0</td><td class=\"p\">1/1</td><td class=\"p\">1.000</td><td>[0.207, 1.000]</td><td class=\"l\">1 (invalid 1)</td>"),
            "{r}"
        );
        assert!(r.starts_with(" class=\"pos\""), "{r}");
        // Its two baselines: the detection predicate fired in one of them.
        assert!(r.contains("<td class=\"l\">pass 2</td>"), "{r}");
        assert!(
            r.contains("diagnostics_error: 1/2, p̂ 0.500 [0.095, 0.905]"),
            "{r}"
        );
        // Surfacing expectations had no false-alarm probe in this corpus.
        assert!(
            r.contains("scan_loss.surfacing.rosout: no baseline evaluated it"),
            "{r}"
        );
    }

    #[test]
    fn traceability_rows_and_manifest_links() {
        let html = render();
        let r = row(&html, "trace", "REQ-NAV-STALE-SENSOR");
        assert!(r.contains("<td class=\"l\">HAZ-COLLISION-OBSTACLE</td><td class=\"l\">scan_loss (scan, dropout)</td><td class=\"l\">scan_loss_at_obstacle</td><td class=\"l\">fault runs: pass 1; baselines: pass 1</td>"), "{r}");
        assert!(r.contains("fault runs: <a href=\"manifests/test_scan_loss_at_obstacle_r0.json\">test_scan_loss_at_obstacle_r0</a><br/>baselines: <a href=\"manifests/baseline_scan_loss_at_obstacle_r0.json\">baseline_scan_loss_at_obstacle_r0</a>"), "{r}");
        let r = row(&html, "trace", "REQ-&lt;X&gt;&amp;&quot;Y&quot;");
        assert!(r.contains("<td class=\"l\">a&lt;b&amp;c</td><td class=\"l\">fault runs: fail 1, invalid 1; baselines: pass 2</td>"), "{r}");
        assert!(r.contains("<a href=\"manifests/test_a%3Cb%26c_r0.json\">test_a&lt;b&amp;c_r0</a>, <a href=\"manifests/test_a%3Cb%26c_r1.json\">test_a&lt;b&amp;c_r1</a>"), "{r}");
        assert_eq!(html.matches("<table id=\"trace\">").count(), 1);
        // The user strings never appear unescaped.
        assert!(!html.contains("a<b&c"));
        assert!(!html.contains("REQ-<X>"));
    }

    #[test]
    fn latency_table_and_strip_plots() {
        let html = render();
        let t = &html[html
            .find("<h4>Test scan_loss_at_obstacle</h4>\n<table class=\"latency\">")
            .unwrap()..];
        let t = &t[..t.find("</table>").unwrap()];
        // stops: satisfied 0.6 s after applied; within 1 s.
        assert!(t.contains("<tr><td class=\"l\">stops</td><td class=\"l\">within</td><td class=\"l\">reaction</td><td>≤ 1 s</td><td class=\"p\">0/1</td><td class=\"p\">0.000</td><td>[0.000, 0.793]</td><td>1</td><td>0.600</td><td>0.600</td><td>0.600</td><td class=\"l\">—</td></tr>"), "{t}");
        assert!(t.contains("<td class=\"l\">no_contact</td><td class=\"l\">invariant</td><td class=\"l\">—</td><td>—</td>"), "{t}");
        // Test B: stops violated in its one judged run → 1/1, no latency;
        // resumes satisfied at 0.2 s (the invalid run is not counted).
        let t = &html[html
            .find("<h4>Test a&lt;b&amp;c</h4>\n<table class=\"latency\">")
            .unwrap()..];
        let t = &t[..t.find("</table>").unwrap()];
        assert!(t.contains("<td class=\"l\">stops</td><td class=\"l\">within</td><td class=\"l\">reaction</td><td>≤ 1 s</td><td class=\"p\">1/1</td><td class=\"p\">1.000</td><td>[0.207, 1.000]</td><td>0</td><td>—</td><td>—</td><td>—</td>"), "{t}");
        assert!(t.contains("<td class=\"l\">resumes</td><td class=\"l\">within</td><td class=\"l\">recovery</td><td>≤ 2 s</td><td class=\"p\">0/1</td><td class=\"p\">0.000</td><td>[0.000, 0.793]</td><td>1</td><td>0.200</td><td>0.200</td><td>0.200</td>"), "{t}");
        // Strip plots: A has stops, diagnostics_error, resumes; B has
        // diagnostics_error and resumes; one dot per run.
        assert_eq!(html.matches("<svg class=\"latency\"").count(), 5);
        assert_eq!(html.matches("<circle class=\"pt\"").count(), 5);
        assert!(html.contains(
            "stops (reaction): latency over 1 run(s), s; median 0.600, p95 0.600, max 0.600"
        ));
    }

    #[test]
    fn timelines_mark_the_fault_events_and_decisions() {
        let html = render();
        // One fault run and one baseline per test, each with a whole-run
        // view and (fault runs) a zoom on the fault events.
        assert_eq!(html.matches("<svg class=\"timeline\"").count(), 4 + 2);
        // Whole run 0–60 s over 700 px from x = 240: t_applied 15 s → 415.0.
        assert!(html.contains("<line class=\"ev ev-applied\" x1=\"415.0\" x2=\"415.0\""));
        // Fault window shaded from applied (15 s) to cleared (18 s → 450.0).
        assert!(html.contains("<rect class=\"fault-window\" x=\"415.0\" y=\""));
        assert!(html.contains("width=\"35.0\""));
        // Decisions: stops satisfied at 15.6 s (240 + 15.6/60 × 700 = 422.0,
        // green), violated at 16 s in B (426.7, red).
        assert!(html.contains("<circle class=\"exp sat\" cx=\"422.0\""));
        assert!(html.contains("<circle class=\"exp viol\" cx=\"426.7\""));
        assert!(html.contains(">stops (reaction)</text>"));
        assert!(html.contains("first fault run <code>test_a&lt;b&amp;c_r0</code>"));
        assert!(html.contains("its baseline (no fault) <code>baseline_a&lt;b&amp;c_r0</code> (<a href=\"manifests/baseline_a%3Cb%26c_r0.json\">manifest</a>): <b>pass</b>"));
        // A baseline's false-alarm probe gets a row: fired (violated) in B's r0.
        let base = &html[html.find("<code>baseline_a&lt;b&amp;c_r0</code>").unwrap()..];
        let base = &base[..base.find("</svg>").unwrap()];
        assert!(
            base.contains(">diagnostics_error.false_alarm</text>"),
            "{base}"
        );
        assert_eq!(
            base.matches("<circle class=\"exp viol\"").count(),
            1,
            "{base}"
        );
        // Both clocks in the event table.
        assert!(html.contains("<td class=\"l\">applied</td><td>15.000</td><td>0.015000</td>"));
        assert!(html.contains("injection latency (applied − trigger)</td><td>0.100</td>"));
    }

    #[test]
    fn grid_cells_get_class_counts_when_a_study_has_tests() {
        // The corridor grid (test_corpus::corpus) with the two tests added.
        let dir = tempfile::tempdir().unwrap();
        let mut s = super::super::test_corpus::scenario();
        s.file.tests = test_scenario().file.tests;
        let mut ms = super::super::test_corpus::corpus();
        ms.extend(test_manifests());
        let summary = Summary::compute(&s.file, &s.hash, &ms);
        let html = render_html(&s, &summary, &ms, dir.path()).unwrap();
        let t = &html[html.find("<table id=\"cell-classes\">").unwrap()..];
        let t = &t[..t.find("</table>").unwrap()];
        // Cell latency 0, bias 0.4: mission fails in all 5 runs → class fail;
        // Wilson 95 % of 5/5 is [0.566, 1].
        assert!(t.contains("<tr><td>0</td><td>0.4</td><td>5</td><td>0</td><td>5</td><td>0</td><td>0</td><td>0</td><td>0</td><td class=\"p\">5/5</td><td class=\"p\">1.000</td><td>[0.566, 1.000]</td><td class=\"l\">0</td></tr>"), "{t}");
        assert!(
            t.contains("<tr><td>0.8</td><td>0</td><td>5</td><td>5</td><td>0</td>"),
            "{t}"
        );
        assert_eq!(t.matches("<tr><td>").count(), 4);
        // Without tests the section (and this table) is absent.
        let plain = super::super::test_corpus::scenario();
        let ms = super::super::test_corpus::corpus();
        let summary = Summary::compute(&plain.file, &plain.hash, &ms);
        let html = render_html(&plain, &summary, &ms, dir.path()).unwrap();
        assert!(!html.contains("Resilience tests"));
        assert!(!html.contains("cell-classes"));
    }

    #[test]
    fn percent_encoding_and_counts_text() {
        assert_eq!(percent_encode("test_a<b&c_r0"), "test_a%3Cb%26c_r0");
        assert_eq!(percent_encode("é"), "%C3%A9");
        let c = ClassCounts {
            pass: 2,
            invalid: 1,
            error: 3,
            ..Default::default()
        };
        assert_eq!(counts_text(&c), "pass 2, invalid 1, error 3");
        assert_eq!(excluded_text(&c), "4 (invalid 1, error 3)");
        assert_eq!(counts_text(&ClassCounts::default()), "none");
    }

    #[test]
    fn a_recorded_run_links_its_recording() {
        let mut m = test_manifests().remove(0);
        m.run_id = "a<b".into();
        assert_eq!(
            run_files(&m),
            "<a href=\"manifests/a%3Cb.json\">manifest</a>"
        );
        m.recording_sha256 = Some("00".into());
        assert_eq!(
            run_files(&m),
            "<a href=\"manifests/a%3Cb.json\">manifest</a>, <a href=\"recordings/a%3Cb.mcap\">recording</a>"
        );
    }
}
