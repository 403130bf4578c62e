//! report.html: the human-readable campaign report.
//!
//! One self-contained HTML file (inline CSS, inline SVG drawn with
//! `plotters`' SVG backend or, for the resilience tests, by hand; no script,
//! no external asset) with:
//!
//! 1. the scenario, its hash, the corpus counts and what was measured;
//! 2. the per-cell table, the axis-1 × axis-2 pivot of p̂, the two
//!    self-report × oracle confusion matrices, and the canary, isolation and
//!    nominal-spread checks;
//! 3. p̂ against each fault axis with Wilson-interval error bars, one series
//!    per value of the other axes, for safety and for mission;
//! 4. a few runs' true path and believed (odometry) path over the world,
//!    drawn at equal aspect ratio;
//! 5. the declared limits of the study (REQ-STUDY-DECLARED-LIMITS);
//! 6. after the harness checks, and only when the scenario has `tests:`,
//!    the resilience tests: the verdict-class table, the traceability
//!    matrix, the latency distributions and a timeline per shown run.
//!
//! Everything shown is read from the [`Summary`], the manifests and the trace
//! files; nothing is recomputed except the odom → world transform of the
//! believed path. A missing or malformed trace file is noted in the report
//! and does not fail it.
//!
//! A severity search has a page of its own, [`search_html`]
//! (`search_<name>.html`: its probes in the order chosen).
//!
//! Parts (private modules): `tables` (sections 1, 2 and 5), `phat` (3),
//! `trajectory` (4), `tests` with its SVG in `resilience_plots` (6), `format`
//! (cell and label formatting they share).

mod dose;
mod format;
mod phat;
mod resilience;
mod resilience_plots;
mod search;
mod tables;
#[cfg(test)]
mod test_corpus;
mod trajectory;

use std::fmt::Write as _;
use std::path::Path;

pub use search::search_html;

use super::manifest::Manifest;
use super::markup::xml_escape;
use super::scenario::Scenario;
use super::summary::Summary;
use super::CampaignError;

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222;line-height:1.4}\
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}\
table{border-collapse:collapse;margin:.6em 0;font-size:.9em}th,td{border:1px solid #bbb;padding:.2em .5em;text-align:right}\
th{background:#f0f0f0}td.l,th.l{text-align:left}tr.pos td.p{background:#fde2d6}\
.ok{color:#075;font-weight:bold}.bad{color:#b00;font-weight:bold}.note{background:#fff6d5;border-left:4px solid #e6b800;padding:.3em .6em}\
.plots{display:flex;flex-wrap:wrap;gap:1em}.plots figure{margin:0}figcaption{font-size:.85em;color:#444;max-width:620px}\
code{background:#f4f4f4;padding:0 .2em}svg{max-width:100%;height:auto}.meta td{text-align:left}";

/// Renders report.html for a finished campaign.
///
/// `out` is the campaign directory; trace files are read from
/// `out/<manifest.trace_file>`. A missing or malformed trace is noted in the
/// report, a plot that fails to render is noted in place of the plot.
///
/// # Errors
/// None at present: every input problem is reported inside the HTML. The
/// `Result` leaves room for failures the caller must see.
pub fn render_html(
    scenario: &Scenario,
    summary: &Summary,
    manifests: &[Manifest],
    out: &Path,
) -> Result<String, CampaignError> {
    let mut ms: Vec<&Manifest> = manifests.iter().collect();
    ms.sort_by(|a, b| a.run_id.cmp(&b.run_id));
    let mut h = String::with_capacity(256 * 1024);
    let title = format!("Breakbench report: {}", summary.scenario_name);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        xml_escape(&title)
    );
    tables::header(&mut h, scenario, summary);
    tables::cell_table(&mut h, scenario, summary);
    tables::pivot_tables(&mut h, scenario, summary);
    tables::confusion_tables(&mut h, summary);
    tables::checks_table(&mut h, summary);
    resilience::section(&mut h, scenario, summary, &ms);
    phat::probability_plots(&mut h, scenario, summary);
    dose::section(&mut h, scenario, summary);
    trajectory::trajectories(&mut h, scenario, &ms, out);
    tables::declared_limits(&mut h, scenario, summary);
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

#[cfg(test)]
mod render_tests {
    use super::test_corpus::{corpus, scenario};
    use super::*;
    use crate::manifest::RunKind;

    /// The `<tr>` of the cells table whose first two cells are `a`, `b`.
    fn cell_row(html: &str, a: &str, b: &str) -> String {
        let table = &html[html.find("<table id=\"cells\">").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        let prefix = format!("<td>{a}</td><td>{b}</td>");
        table
            .split("<tr")
            .find(|r| r.contains(&prefix) && r.find(&prefix) == r.find("<td>"))
            .unwrap()
            .to_string()
    }

    fn render(out: &Path) -> String {
        let s = scenario();
        let ms = corpus();
        let summary = Summary::compute(&s.file, &s.hash, &ms);
        render_html(&s, &summary, &ms, out).unwrap()
    }

    /// A check the scenario did not declare (no canary, isolation off) is
    /// shown as not run, not as failed; a declared one keeps its result.
    #[test]
    fn undeclared_harness_checks_are_not_shown_as_failed() {
        let dir = tempfile::tempdir().unwrap();
        let s = scenario();
        let ms: Vec<_> = corpus()
            .into_iter()
            .filter(|m| m.kind != RunKind::Canary)
            .collect();
        let mut summary = Summary::compute(&s.file, &s.hash, &ms);
        summary.isolation.runs_checked = 0;
        summary.isolation.passed = false;
        let html = render_html(&s, &summary, &ms, dir.path()).unwrap();
        let checks = &html[html.find("<table id=\"checks\">").unwrap()..];
        let checks = &checks[..checks.find("</table>").unwrap()];
        assert!(checks.contains("not run (no canary declared)"), "{checks}");
        assert!(
            checks.contains("not run (isolation_check: false)"),
            "{checks}"
        );
        assert!(!checks.contains("NOT detected") && !checks.contains("FAILED"));
        assert!(render(dir.path()).contains("violation detected"));
    }

    #[test]
    fn cell_rows_show_counts_p_hat_and_wilson() {
        let dir = tempfile::tempdir().unwrap();
        let html = render(dir.path());
        // Wilson 95 %, n = 5, z² = 3.8415: for k = 0, centre = dist =
        // (3.8415/10)/(1 + 3.8415/5) = 0.21724 → [0, 0.43448]; k = 5 mirrors it → [0.56552, 1].
        let r = cell_row(&html, "0", "0.4");
        assert!(r.contains("<td>5</td>"), "{r}");
        assert!(
            r.contains("<td class=\"p\">0/5</td><td class=\"p\">0.000</td><td>[0.000, 0.434]</td>"),
            "{r}"
        );
        assert!(
            r.contains("<td class=\"p\">5/5</td><td class=\"p\">1.000</td><td>[0.566, 1.000]</td>"),
            "{r}"
        );
        // Delivered odom_bias = mean ratio 1.4 − offset 1 = 0.4.
        assert!(r.contains("<td>0.4000</td>"), "{r}");
        assert!(r.starts_with(" class=\"pos\""), "{r}");
        let r = cell_row(&html, "0.8", "0");
        assert!(r.contains("<td class=\"p\">0/5</td><td class=\"p\">0.000</td><td>[0.000, 0.434]</td><td class=\"p\">0/5</td>"), "{r}");
        assert!(r.contains("<td>0.8000</td><td>0.0000</td>"), "{r}");
        assert!(!r.contains("pos"), "{r}");
    }

    #[test]
    fn pivot_confusion_and_checks() {
        let dir = tempfile::tempdir().unwrap();
        let html = render(dir.path());
        // Mission pivot row latency 0: bias 0 → 0/5, bias 0.4 → 5/5.
        assert!(html.contains("<tr><th>0</th><td>0.000 (0/5)</td><td>1.000 (5/5)</td></tr>"));
        // Mission matrix: success + complete = 10 grid + 7 nominal = 17,
        // success + failure = 10; canary excluded. Safety: 27 success + safe.
        assert!(html.contains("<caption>Mission (n = 27)</caption>"));
        assert!(html.contains("<tr><th class=\"l\">success</th><td>17</td><td>10</td></tr>"));
        assert!(html.contains("<tr><th class=\"l\">success</th><td>27</td><td>0</td></tr>"));
        assert!(html.contains("<td colspan=\"2\">0</td>"));
        // Canary detected its violation; isolation passed on all 28 runs; the
        // nominal metric is constant (sd 0 < abs_tol) → met.
        assert!(html.contains("<span class=\"ok\">violation detected</span>"));
        assert!(html.contains("28 run(s) replayed"));
        assert!(html.contains("<span class=\"ok\">met</span>"));
        assert!(html.contains("Declared limits"));
        assert!(html.contains("not a dynamics engine"));
        // 0/5 at 95 %: upper bound 0.43448 (see cell_rows_show_counts_p_hat_and_wilson).
        assert!(
            html.contains("a cell with 0/5 has a Wilson upper bound of 0.434 at confidence 0.95")
        );
        assert!(html.contains("metric final_goal_distance_m"));
    }

    #[test]
    fn four_plots_and_trajectories_with_missing_trace_noted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("traces")).unwrap();
        // Nominal run: true path straight along y = 0, believed path the same in odom frame.
        let csv = "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0.0,1.0,0.0,0.0,NaN,NaN\n1.0,2.0,0.0,0.0,1.0,0.0\n2.0,3.0,0.0,0.0,2.0,0.0\n";
        std::fs::write(dir.path().join("traces/nominal_000.csv"), csv).unwrap();
        std::fs::write(
            dir.path().join("traces/grid_0_0.4_r0.csv"),
            "t_s,true_x_m\n0,1\n",
        )
        .unwrap();
        let html = render(dir.path());
        assert_eq!(html.matches("<figure><svg").count(), 4 + 1);
        assert!(html.contains("Run <code>nominal_000</code>"));
        assert!(html.contains("3 samples (2 with odometry)"));
        assert!(html.contains("self-report success; oracle: operating_region_containment held, obstacle_clearance held, mission_completion_true_pose held;"));
        assert!(html.contains("header has no column &apos;true_y_m&apos;"));
        assert!(html.contains("traces/grid_0.8_0_r0.csv is missing."));
        assert!(html.contains("traces/canary_000.csv is missing."));
        assert!(html.contains("true path (ground truth, thick)"));
        assert!(html.contains("believed path (delivered odometry, thin, drawn on top)"));
    }

    #[test]
    fn text_is_escaped() {
        let dir = tempfile::tempdir().unwrap();
        let s = scenario();
        let ms = corpus();
        let mut summary = Summary::compute(&s.file, &s.hash, &ms);
        summary.scenario_name = "a<b>&\"c\"".into();
        let html = render_html(&s, &summary, &ms, dir.path()).unwrap();
        assert!(html.contains("<title>Breakbench report: a&lt;b&gt;&amp;&quot;c&quot;</title>"));
        assert!(!html.contains("a<b>"));
    }
}
