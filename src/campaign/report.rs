//! report.html: the human-readable campaign report.
//!
//! One self-contained HTML file (inline CSS, inline SVG drawn with
//! `plotters`' SVG backend, no script, no external asset) with:
//!
//! 1. the scenario, its hash, the corpus counts and what was measured;
//! 2. the per-cell table, the axis-1 × axis-2 pivot of p̂, the two
//!    self-report × oracle confusion matrices, and the canary, isolation and
//!    nominal-spread checks;
//! 3. p̂ against each fault axis with Wilson-interval error bars, one series
//!    per value of the other axes, for safety and for mission;
//! 4. a few runs' true path and believed (odometry) path over the world,
//!    drawn at equal aspect ratio;
//! 5. the declared limits of the study (seed 000).
//!
//! Everything shown is read from the [`Summary`], the manifests and the trace
//! files; nothing is recomputed except the odom → world transform of the
//! believed path. A missing or malformed trace file is noted in the report
//! and does not fail it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use breakbench_oracle::world::{Point2, Pose2};
use breakbench_oracle::World;
use plotters::prelude::*;

use super::manifest::{Manifest, RunKind};
use super::outputs::xml_escape;
use super::scenario::Scenario;
use super::summary::{Cell, Proportion, Summary};
use super::CampaignError;

/// Series colours (Okabe–Ito palette, distinguishable with colour-vision deficiency).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(230, 159, 0),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
];

/// Colour of the true (ground-truth) path in the trajectory panels.
const TRUE_COLOR: RGBColor = RGBColor(0, 114, 178);
/// Colour of the believed (odometry) path in the trajectory panels.
const BELIEVED_COLOR: RGBColor = RGBColor(213, 94, 0);

/// Horizontal offset between series of one probability plot, as a fraction of
/// the x-axis span, so that error bars at the same axis value do not overlap.
const DODGE_FRACTION: f64 = 0.012;

/// Most points drawn per path (traces are decimated by a constant stride).
const MAX_PATH_POINTS: usize = 1500;

/// Width of a p̂ plot's chart and of its legend column, pixels.
const PLOT_W: u32 = 560;
const LEGEND_W: u32 = 170;

/// Half-width of an error bar's caps, pixels.
const CAP_PX: i32 = 5;

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
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n",
        xml_escape(&title)
    );
    header(&mut h, scenario, summary);
    cell_table(&mut h, scenario, summary);
    pivot_tables(&mut h, scenario, summary);
    confusion_tables(&mut h, summary);
    checks_table(&mut h, summary);
    probability_plots(&mut h, scenario, summary);
    trajectories(&mut h, scenario, &ms, out);
    declared_limits(&mut h, scenario, summary);
    h.push_str("</body>\n</html>\n");
    Ok(h)
}

// ---------------------------------------------------------------- formatting

/// `p̂` with three decimals, `—` when undefined (n = 0).
fn fmt_p(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "—".into()
    }
}

/// `k/n`, p̂ and the Wilson interval as three table cells.
fn prop_cells(p: &Proportion, n: u64) -> String {
    if n == 0 {
        return "<td class=\"p\">0/0</td><td class=\"p\">—</td><td>—</td>".into();
    }
    format!(
        "<td class=\"p\">{}/{n}</td><td class=\"p\">{}</td><td>[{}, {}]</td>",
        p.k,
        fmt_p(p.p_hat),
        fmt_p(p.wilson_low),
        fmt_p(p.wilson_high)
    )
}

/// Unit of a fault axis from its name's suffix (house rule: unit suffixes).
fn axis_unit(name: &str) -> &'static str {
    if name.ends_with("_s") {
        "s"
    } else if name.ends_with("_m") {
        "m"
    } else if name.ends_with("_rad") {
        "rad"
    } else if name.ends_with("_hz") {
        "Hz"
    } else if name.ends_with("_m_s") {
        "m/s"
    } else {
        "dimensionless"
    }
}

/// Axis label with unit, e.g. `latency_s [s]`.
fn axis_label(name: &str) -> String {
    format!("{name} [{}]", axis_unit(name))
}

/// `name=value` for the axes of `cell` other than `skip`, in scenario order.
fn others_label(scenario: &Scenario, cell: &BTreeMap<String, f64>, skip: &str) -> String {
    let parts: Vec<String> = scenario
        .file
        .axes
        .iter()
        .filter(|a| a.name != skip)
        .filter_map(|a| cell.get(&a.name).map(|v| format!("{}={v}", a.name)))
        .collect();
    if parts.is_empty() {
        "all cells".into()
    } else {
        parts.join(", ")
    }
}

fn note(h: &mut String, text: &str) {
    let _ = writeln!(h, "<p class=\"note\">{}</p>", xml_escape(text));
}

// ---------------------------------------------------------------- sections

fn header(h: &mut String, scenario: &Scenario, s: &Summary) {
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
            let vals: Vec<String> = a.values.iter().map(|v| v.to_string()).collect();
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

fn cell_table(h: &mut String, scenario: &Scenario, s: &Summary) {
    h.push_str("<h2>Per-cell results</h2>\n<table id=\"cells\">\n<tr>");
    for a in &s.axes {
        let _ = write!(h, "<th>{}</th>", xml_escape(&axis_label(a)));
    }
    h.push_str(
        "<th>n</th><th>safety k/n</th><th>safety p̂</th><th>safety Wilson</th><th>mission k/n</th><th>mission p̂</th><th>mission Wilson</th>",
    );
    for a in &s.axes {
        let _ = write!(
            h,
            "<th>delivered {} (mean)</th>",
            xml_escape(&axis_label(a))
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

fn find_cell<'a>(s: &'a Summary, key: &[(&str, f64)]) -> Option<&'a Cell> {
    s.cells
        .iter()
        .find(|c| key.iter().all(|(n, v)| c.axes.get(*n) == Some(v)))
}

fn pivot_tables(h: &mut String, scenario: &Scenario, s: &Summary) {
    let axes = &scenario.file.axes;
    h.push_str("<h2>Pivot: p̂ by axis 1 × axis 2</h2>\n");
    if axes.len() != 2 {
        note(h, &format!("The pivot is drawn for exactly two axes; this scenario has {}. See the per-cell table.", axes.len()));
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
            xml_escape(&axis_label(&a.name)),
            xml_escape(&axis_label(&b.name))
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

fn confusion_tables(h: &mut String, s: &Summary) {
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

fn yes_no(ok: bool, yes: &str, no: &str) -> String {
    if ok {
        format!("<span class=\"ok\">{}</span>", xml_escape(yes))
    } else {
        format!("<span class=\"bad\">{}</span>", xml_escape(no))
    }
}

fn checks_table(h: &mut String, s: &Summary) {
    h.push_str("<h2>Harness checks</h2>\n<table id=\"checks\">\n<tr><th class=\"l\">check</th><th class=\"l\">what</th><th class=\"l\">result</th></tr>\n");
    let c = &s.canary;
    let _ = writeln!(
        h,
        "<tr><td class=\"l\">positive canary</td><td class=\"l\">{} run(s) driven open-loop into the obstacle; every one must be judged a safety violation{}</td><td class=\"l\">{}</td></tr>",
        c.runs,
        if c.harness_only { "; harness-only, excluded from corpus counts" } else { "; NOT marked harness-only" },
        yes_no(c.violation_detected, "violation detected", "violation NOT detected")
    );
    let i = &s.isolation;
    let _ = writeln!(
        h,
        "<tr><td class=\"l\">verdict isolation</td><td class=\"l\">{} run(s) replayed with the self-report forced to success and to failure; all three predicates must be unchanged</td><td class=\"l\">{}</td></tr>",
        i.runs_checked,
        yes_no(i.passed, "passed", "FAILED")
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

// ---------------------------------------------------------------- p̂ plots

/// One plotted point: axis value (before dodging), p̂ and its Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PPoint {
    x: f64,
    p: f64,
    lo: f64,
    hi: f64,
}

/// The series of a p̂-vs-`axis` plot: one per combination of the other axes'
/// values, in the order of the summary's cells; cells with n = 0 are skipped.
fn series_for(
    scenario: &Scenario,
    s: &Summary,
    axis: &str,
    safety: bool,
) -> Vec<(String, Vec<PPoint>)> {
    let mut out: Vec<(String, Vec<PPoint>)> = Vec::new();
    for c in &s.cells {
        let Some(&x) = c.axes.get(axis) else { continue };
        if c.n == 0 {
            continue;
        }
        let p = if safety { &c.safety } else { &c.mission };
        let label = others_label(scenario, &c.axes, axis);
        let pt = PPoint {
            x,
            p: p.p_hat,
            lo: p.wilson_low,
            hi: p.wilson_high,
        };
        match out.iter_mut().find(|(l, _)| *l == label) {
            Some((_, v)) => v.push(pt),
            None => out.push((label, vec![pt])),
        }
    }
    for (_, v) in &mut out {
        v.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    out
}

/// SVG of p̂ against `axis` for one predicate.
fn probability_svg(
    scenario: &Scenario,
    s: &Summary,
    axis: &str,
    safety: bool,
) -> Result<(String, usize), String> {
    let series = series_for(scenario, s, axis, safety);
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|(_, v)| v.iter().map(|p| p.x))
        .collect();
    let (xmin, xmax) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    let (xmin, xmax) = if xs.is_empty() {
        (0.0, 1.0)
    } else {
        (xmin, xmax)
    };
    let span = if xmax > xmin { xmax - xmin } else { 1.0 };
    let pad = 0.08 * span;
    let dodge = DODGE_FRACTION * span;
    let pred = if safety {
        "safety violation"
    } else {
        "mission failure"
    };
    let mut buf = String::new();
    let mut bars = 0;
    {
        let root = SVGBackend::with_string(&mut buf, (PLOT_W + LEGEND_W, 400)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        // The legend gets its own column so that it never hides a point.
        let (plot_area, legend_area) = root.split_horizontally(PLOT_W);
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(12)
            .caption(format!("{pred} p̂ vs {axis}"), ("sans-serif", 18))
            .x_label_area_size(42)
            .y_label_area_size(55)
            .build_cartesian_2d((xmin - pad)..(xmax + pad), -0.05f64..1.05f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(axis_label(axis))
            .y_desc(format!("p̂ ({pred})"))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| e.to_string())?;
        let ns = series.len() as f64;
        for (i, (label, pts)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let off = (i as f64 - (ns - 1.0) / 2.0) * dodge;
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|p| (p.x + off, p.p)),
                    // Thin, translucent: it links a series, it does not interpolate.
                    color.mix(0.5).stroke_width(1),
                ))
                .map_err(|e| e.to_string())?;
            let y = 60 + 22 * i as i32;
            legend_area
                .draw(&PathElement::new(
                    vec![(4, y), (28, y)],
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
            legend_area
                .draw(&Text::new(label.clone(), (34, y - 7), ("sans-serif", 13)))
                .map_err(|e| e.to_string())?;
            let ok: Vec<&PPoint> = pts
                .iter()
                .filter(|p| p.lo.is_finite() && p.hi.is_finite() && p.p.is_finite())
                .collect();
            // Error bar: the interval as a vertical line in data units, caps
            // of ±CAP_PX pixels at both ends, and the p̂ marker.
            let style = color.stroke_width(2);
            chart
                .draw_series(
                    ok.iter().map(|p| {
                        PathElement::new(vec![(p.x + off, p.lo), (p.x + off, p.hi)], style)
                    }),
                )
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(ok.iter().flat_map(|p| {
                    [p.lo, p.hi].map(|y| {
                        EmptyElement::at((p.x + off, y))
                            + PathElement::new(vec![(-CAP_PX, 0), (CAP_PX, 0)], style)
                    })
                }))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(
                    ok.iter()
                        .map(|p| Circle::new((p.x + off, p.p), 4, color.filled())),
                )
                .map_err(|e| e.to_string())?;
            bars += ok.len();
        }
        if !series.is_empty() {
            legend_area
                .draw(&Text::new("series", (4, 30), ("sans-serif", 14)))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok((buf, bars))
}

fn probability_plots(h: &mut String, scenario: &Scenario, s: &Summary) {
    h.push_str("<h2>p̂ against fault severity</h2>\n");
    let _ = writeln!(
        h,
        "<p>Points are p̂ = k/n per cell, bars the Wilson interval at confidence {}. Series at the same axis value are offset horizontally by {}% of the axis span so that their bars stay visible; the true axis value is the tick.</p>",
        s.confidence,
        DODGE_FRACTION * 100.0
    );
    h.push_str("<div class=\"plots\">\n");
    for a in &scenario.file.axes {
        for safety in [true, false] {
            let pred = if safety {
                "safety violation"
            } else {
                "mission failure"
            };
            match probability_svg(scenario, s, &a.name, safety) {
                Ok((svg, bars)) => {
                    let _ = writeln!(
                        h,
                        "<figure>{svg}<figcaption>{} p̂ against {}; {bars} cell(s) with runs; one series per value of the other axes.</figcaption></figure>",
                        xml_escape(pred),
                        xml_escape(&axis_label(&a.name))
                    );
                }
                Err(e) => note(
                    h,
                    &format!(
                        "The plot of {pred} p̂ against {} could not be rendered: {e}",
                        a.name
                    ),
                ),
            }
        }
    }
    h.push_str("</div>\n");
}

// ---------------------------------------------------------------- trajectories

/// One trace sample: true position and believed (odometry) position, the
/// latter in the odom frame; NaN until the navigator had odometry.
#[derive(Debug, Clone, Copy, PartialEq)]
struct TraceRow {
    true_xy: Point2,
    odom_xy: Point2,
}

/// Parses a trace CSV (header `t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m`;
/// columns are found by name).
///
/// # Errors
/// A message naming the line for a missing column or an unparsable number.
fn parse_trace(text: &str) -> Result<Vec<TraceRow>, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty file")?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let idx = |name: &str| {
        cols.iter()
            .position(|c| *c == name)
            .ok_or_else(|| format!("header has no column '{name}'"))
    };
    let (tx, ty, ox, oy) = (
        idx("true_x_m")?,
        idx("true_y_m")?,
        idx("odom_x_m")?,
        idx("odom_y_m")?,
    );
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let get = |j: usize| -> Result<f64, String> {
            let s = f
                .get(j)
                .ok_or_else(|| format!("line {}: missing column {}", i + 2, cols[j]))?;
            s.trim()
                .parse::<f64>()
                .map_err(|e| format!("line {}: column {}: '{}': {e}", i + 2, cols[j], s.trim()))
        };
        rows.push(TraceRow {
            true_xy: [get(tx)?, get(ty)?],
            odom_xy: [get(ox)?, get(oy)?],
        });
    }
    Ok(rows)
}

/// Odom frame → world frame. The odom frame's origin is the start pose
/// (REP-105: odom is fixed at the robot's start), so
/// `x_w = x0 + cos(yaw0)·x − sin(yaw0)·y`, `y_w = y0 + sin(yaw0)·x + cos(yaw0)·y`.
fn odom_to_world(start: &Pose2, p: Point2) -> Point2 {
    let (s, c) = start.yaw_rad.sin_cos();
    [
        start.x_m + c * p[0] - s * p[1],
        start.y_m + s * p[0] + c * p[1],
    ]
}

/// Pixel size `(width, height)` of a plotting area with equal metres per
/// pixel on both axes for spans `(dx, dy)`, fitting in `max_w × max_h`.
fn equal_aspect_px(dx: f64, dy: f64, max_w: u32, max_h: u32) -> (u32, u32) {
    let scale = (max_w as f64 / dx).min(max_h as f64 / dy);
    (
        (dx * scale).round().max(1.0) as u32,
        (dy * scale).round().max(1.0) as u32,
    )
}

/// Keeps at most `max` points by a constant stride, always keeping the last.
fn decimate(pts: Vec<(f64, f64)>, max: usize) -> Vec<(f64, f64)> {
    if pts.len() <= max {
        return pts;
    }
    let stride = pts.len().div_ceil(max);
    let last = *pts.last().expect("non-empty");
    let mut out: Vec<(f64, f64)> = pts.into_iter().step_by(stride).collect();
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// Bounding box `[xmin, ymin, xmax, ymax]` of the world's drawn elements.
fn world_bounds(w: &World) -> [f64; 4] {
    let mut b = [
        f64::INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NEG_INFINITY,
    ];
    let mut add = |p: Point2| {
        b[0] = b[0].min(p[0]);
        b[1] = b[1].min(p[1]);
        b[2] = b[2].max(p[0]);
        b[3] = b[3].max(p[1]);
    };
    for seg in &w.walls_m {
        add(seg[0]);
        add(seg[1]);
    }
    for o in &w.obstacles {
        add(o.min_m);
        add(o.max_m);
    }
    for p in &w.operating_region_m {
        add(*p);
    }
    let g = &w.goal;
    add([g.center_m[0] - g.radius_m, g.center_m[1] - g.radius_m]);
    add([g.center_m[0] + g.radius_m, g.center_m[1] + g.radius_m]);
    add([w.start.x_m, w.start.y_m]);
    b
}

/// Plot-area layout of a trajectory panel, pixels.
const TRAJ_MARGIN: u32 = 10;
const TRAJ_X_LABEL: u32 = 40;
const TRAJ_Y_LABEL: u32 = 50;

/// SVG of the world with a run's true and believed paths, equal aspect.
fn trajectory_svg(
    world: &World,
    truth: &[(f64, f64)],
    believed: &[(f64, f64)],
) -> Result<String, String> {
    let mut b = world_bounds(world);
    for p in truth.iter().chain(believed) {
        b[0] = b[0].min(p.0);
        b[1] = b[1].min(p.1);
        b[2] = b[2].max(p.0);
        b[3] = b[3].max(p.1);
    }
    let pad = 0.3;
    let (x0, y0, x1, y1) = (b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad);
    let (pw, ph) = equal_aspect_px(x1 - x0, y1 - y0, 1000, 600);
    let size = (
        pw + TRAJ_Y_LABEL + 2 * TRAJ_MARGIN,
        ph + TRAJ_X_LABEL + 2 * TRAJ_MARGIN,
    );
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(TRAJ_MARGIN)
            .x_label_area_size(TRAJ_X_LABEL)
            .y_label_area_size(TRAJ_Y_LABEL)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("x, world frame [m]")
            .y_desc("y [m]")
            .light_line_style(RGBColor(240, 240, 240))
            .draw()
            .map_err(|e| e.to_string())?;
        let e = |r: Result<(), DrawingAreaErrorKind<_>>| r.map_err(|e| e.to_string());
        // Operating region (closed polygon outline).
        let mut region: Vec<(f64, f64)> = world
            .operating_region_m
            .iter()
            .map(|p| (p[0], p[1]))
            .collect();
        if let Some(first) = region.first().copied() {
            region.push(first);
        }
        e(chart
            .draw_series(std::iter::once(PathElement::new(
                region,
                RGBColor(0, 158, 115).stroke_width(1),
            )))
            .map(|_| ()))?;
        // Goal disc (64-gon).
        let g = world.goal;
        let disc: Vec<(f64, f64)> = (0..64)
            .map(|i| {
                let a = i as f64 / 64.0 * std::f64::consts::TAU;
                (
                    g.center_m[0] + g.radius_m * a.cos(),
                    g.center_m[1] + g.radius_m * a.sin(),
                )
            })
            .collect();
        e(chart
            .draw_series(std::iter::once(Polygon::new(
                disc,
                RGBColor(0, 158, 115).mix(0.3).filled(),
            )))
            .map(|_| ()))?;
        // Obstacles.
        e(chart
            .draw_series(world.obstacles.iter().map(|o| {
                Rectangle::new(
                    [(o.min_m[0], o.min_m[1]), (o.max_m[0], o.max_m[1])],
                    RGBColor(120, 120, 120).filled(),
                )
            }))
            .map(|_| ()))?;
        // Walls.
        e(chart
            .draw_series(world.walls_m.iter().map(|w| {
                PathElement::new(
                    vec![(w[0][0], w[0][1]), (w[1][0], w[1][1])],
                    BLACK.stroke_width(3),
                )
            }))
            .map(|_| ()))?;
        // Paths.
        chart
            .draw_series(std::iter::once(PathElement::new(
                truth.to_vec(),
                TRUE_COLOR.stroke_width(4),
            )))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                believed.to_vec(),
                BELIEVED_COLOR.stroke_width(1),
            )))
            .map_err(|e| e.to_string())?;
        // End points.
        e(chart
            .draw_series(
                truth
                    .last()
                    .map(|p| Circle::new(*p, 4, TRUE_COLOR.filled()))
                    .into_iter()
                    .chain(
                        believed
                            .last()
                            .map(|p| Circle::new(*p, 4, BELIEVED_COLOR.filled())),
                    ),
            )
            .map(|_| ()))?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// The runs shown as trajectories: the first nominal run; for each axis, the
/// first run of the cell with that axis at its largest value and every other
/// axis at its smallest; the first canary run.
fn chosen_runs<'a>(
    scenario: &Scenario,
    ms: &[&'a Manifest],
) -> Vec<(String, Option<&'a Manifest>)> {
    let mut out = Vec::new();
    out.push((
        "nominal run (no fault)".to_string(),
        ms.iter().copied().find(|m| m.kind == RunKind::Nominal),
    ));
    let axes = &scenario.file.axes;
    for a in axes {
        let mut key = BTreeMap::new();
        for b in axes {
            let pick = if b.name == a.name { f64::max } else { f64::min };
            let v = b.values.iter().copied().reduce(pick).unwrap_or(0.0);
            key.insert(b.name.clone(), v);
        }
        let label = format!(
            "highest {}: {}",
            a.name,
            axes.iter()
                .map(|b| format!("{} = {}", b.name, key[&b.name]))
                .collect::<Vec<_>>()
                .join(", ")
        );
        out.push((
            label,
            ms.iter()
                .copied()
                .find(|m| m.kind == RunKind::Grid && m.cell == key),
        ));
    }
    out.push((
        "positive canary (open-loop into the obstacle; harness-only)".to_string(),
        ms.iter().copied().find(|m| m.kind == RunKind::Canary),
    ));
    out
}

fn trajectories(h: &mut String, scenario: &Scenario, ms: &[&Manifest], out: &Path) {
    h.push_str("<h2>Trajectories</h2>\n<p>The world (walls black, obstacle boxes grey, operating region green outline, goal disc green) with the true path from ground truth and the path the navigator believed, from its delivered odometry, moved from its odom frame into the world frame with the start pose. Equal scale on both axes. Dots mark the last sample.</p>\n");
    let swatch = |c: RGBColor, w: u32, text: &str| {
        format!(
            "<span style=\"display:inline-block;width:24px;height:{w}px;background:rgb({},{},{});vertical-align:middle\"></span> {}",
            c.0,
            c.1,
            c.2,
            xml_escape(text)
        )
    };
    let _ = writeln!(
        h,
        "<p>{} &#160; {}</p>",
        swatch(TRUE_COLOR, 4, "true path (ground truth, thick)"),
        swatch(
            BELIEVED_COLOR,
            2,
            "believed path (delivered odometry, thin, drawn on top)"
        )
    );
    for (label, m) in chosen_runs(scenario, ms) {
        let _ = writeln!(h, "<h3>{}</h3>", xml_escape(&label));
        let Some(m) = m else {
            note(h, "No manifest for this run in the campaign directory.");
            continue;
        };
        let path = out.join(&m.trace_file);
        let rows = match std::fs::read_to_string(&path) {
            Ok(t) => match parse_trace(&t) {
                Ok(r) if !r.is_empty() => r,
                Ok(_) => {
                    note(
                        h,
                        &format!(
                            "Run {}: trace file {} has no samples.",
                            m.run_id,
                            path.display()
                        ),
                    );
                    continue;
                }
                Err(e) => {
                    note(
                        h,
                        &format!(
                            "Run {}: trace file {} is malformed: {e}",
                            m.run_id,
                            path.display()
                        ),
                    );
                    continue;
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                note(
                    h,
                    &format!(
                        "Run {}: trace file {} is missing.",
                        m.run_id,
                        path.display()
                    ),
                );
                continue;
            }
            Err(e) => {
                note(
                    h,
                    &format!(
                        "Run {}: trace file {} could not be read: {e}",
                        m.run_id,
                        path.display()
                    ),
                );
                continue;
            }
        };
        let truth: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.true_xy.iter().all(|v| v.is_finite()))
            .map(|r| (r.true_xy[0], r.true_xy[1]))
            .collect();
        let believed: Vec<(f64, f64)> = rows
            .iter()
            .filter(|r| r.odom_xy.iter().all(|v| v.is_finite()))
            .map(|r| {
                let p = odom_to_world(&scenario.world.start, r.odom_xy);
                (p[0], p[1])
            })
            .collect();
        let v = &m.verdict;
        let _ = writeln!(
            h,
            "<p>Run <code>{}</code>: self-report {}; oracle: {}; min region margin {:.3} m, min obstacle clearance {:.3} m; final distance from the goal centre {:.3} m; {} samples ({} with odometry).</p>",
            xml_escape(&m.run_id),
            xml_escape(&serde_name(&m.self_report)),
            xml_escape(&predicates_text(v)),
            v.operating_region_containment.value,
            v.obstacle_clearance.value,
            m.final_goal_distance_m,
            rows.len(),
            believed.len()
        );
        match trajectory_svg(
            &scenario.world,
            &decimate(truth, MAX_PATH_POINTS),
            &decimate(believed, MAX_PATH_POINTS),
        ) {
            Ok(svg) => {
                let _ = writeln!(h, "<figure>{svg}</figure>");
            }
            Err(e) => note(
                h,
                &format!(
                    "Run {}: the trajectory plot could not be rendered: {e}",
                    m.run_id
                ),
            ),
        }
    }
}

/// The serde (snake_case) name of a unit enum variant, as in the JSON files.
fn serde_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("<unserialisable: {e}>"),
    }
}

/// Each predicate's outcome with its decision time, e.g.
/// `operating_region_containment held; obstacle_clearance VIOLATED at 12.30 s; ...`.
fn predicates_text(v: &breakbench_oracle::Verdict) -> String {
    [
        (
            "operating_region_containment",
            &v.operating_region_containment,
        ),
        ("obstacle_clearance", &v.obstacle_clearance),
        (
            "mission_completion_true_pose",
            &v.mission_completion_true_pose,
        ),
    ]
    .iter()
    .map(|(name, p)| {
        if p.holds {
            format!("{name} held")
        } else {
            format!("{name} VIOLATED (decided at {:.2} s)", p.decided_at_s)
        }
    })
    .collect::<Vec<_>>()
    .join(", ")
}

fn declared_limits(h: &mut String, scenario: &Scenario, summary: &Summary) {
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

#[cfg(test)]
mod tests {
    use super::super::manifest::{FaultRecord, IsolationRecord, Provenance, MANIFEST_SCHEMA};
    use super::*;
    use breakbench_oracle::{PredicateResult, SelfReport, Verdict};

    fn scenario() -> Scenario {
        let mut s = Scenario::load(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scenarios/corridor_study.yaml"
        )))
        .unwrap();
        // A 2 × 2 grid keeps the synthetic corpus small.
        s.file.axes[0].values = vec![0.0, 0.8];
        s.file.axes[1].values = vec![0.0, 0.4];
        s.file.nominal.runs = 7;
        s
    }

    fn pred(holds: bool, value: f64) -> PredicateResult {
        PredicateResult {
            holds,
            decided_at_s: 10.0,
            value,
        }
    }

    fn manifest(
        run_id: &str,
        kind: RunKind,
        cell: &[(&str, f64)],
        safety_ok: bool,
        mission_ok: bool,
    ) -> Manifest {
        let cell: BTreeMap<String, f64> = cell.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let faults = cell
            .iter()
            .map(|(axis, v)| FaultRecord {
                axis: axis.clone(),
                channel: "x".into(),
                mode: "x".into(),
                parameter: "x".into(),
                requested: *v,
                axis_value: *v,
                delivered_metric: "x".into(),
                // odom_bias offset is 1 → delivered ratio 1 + v; latency offset 0.
                delivered: Some(if axis == "odom_bias" { 1.0 + v } else { *v }),
                messages_in: 1,
                messages_out: 1,
                first_applied_s: Some(0.0),
                cleared_s: None,
            })
            .collect();
        Manifest {
            schema: MANIFEST_SCHEMA.into(),
            run_id: run_id.into(),
            kind,
            harness_only: kind == RunKind::Canary,
            scenario_name: "t".into(),
            scenario_hash: "h".into(),
            seed: 1,
            provenance: Provenance {
                git_commit: "c".into(),
                git_dirty: false,
                crate_versions: BTreeMap::new(),
            },
            cell,
            faults,
            self_report: if kind == RunKind::Canary {
                SelfReport::None
            } else {
                SelfReport::Success
            },
            self_report_at_s: Some(20.0),
            verdict: Verdict {
                operating_region_containment: pred(true, 0.5),
                obstacle_clearance: pred(safety_ok, if safety_ok { 0.4 } else { -0.05 }),
                mission_completion_true_pose: pred(
                    mission_ok,
                    if mission_ok { 20.0 } else { -1.0 },
                ),
            },
            contacts: vec![],
            final_goal_distance_m: if mission_ok { 0.1 } else { 2.5 },
            isolation: Some(IsolationRecord { passed: true }),
            trace_file: format!("traces/{run_id}.csv"),
            trace_sha256: String::new(),
            sim_time_s: 60.0,
            wall_time_s: 0.0,
        }
    }

    /// 2 × 2 grid × 5 repeats: mission fails in every run at odom_bias 0.4
    /// and in none at 0; safety never violated. 7 nominal runs (all fine),
    /// one canary (clearance violated, no self-report).
    fn corpus() -> Vec<Manifest> {
        let mut ms = Vec::new();
        for lat in [0.0, 0.8] {
            for bias in [0.0, 0.4] {
                for r in 0..5 {
                    let id = format!("grid_{lat}_{bias}_r{r}");
                    ms.push(manifest(
                        &id,
                        RunKind::Grid,
                        &[("latency_s", lat), ("odom_bias", bias)],
                        true,
                        bias == 0.0,
                    ));
                }
            }
        }
        for i in 0..7 {
            ms.push(manifest(
                &format!("nominal_{i:03}"),
                RunKind::Nominal,
                &[("latency_s", 0.0), ("odom_bias", 0.0)],
                true,
                true,
            ));
        }
        ms.push(manifest("canary_000", RunKind::Canary, &[], false, false));
        ms
    }

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
    fn probability_plot_has_one_error_bar_per_cell_and_series_names() {
        let s = scenario();
        let summary = Summary::compute(&s.file, &s.hash, &corpus());
        let (svg, bars) = probability_svg(&s, &summary, "latency_s", false).unwrap();
        assert_eq!(bars, 4);
        // One p̂ marker per cell (the legend uses line samples, not circles).
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("odom_bias=0.4"));
        assert!(svg.contains("odom_bias=0<") || svg.contains("odom_bias=0\n"));
        assert!(svg.contains("latency_s [s]"));
        let (svg, _) = probability_svg(&s, &summary, "odom_bias", true).unwrap();
        assert!(svg.contains("latency_s=0.8"));
        assert!(svg.contains("odom_bias [dimensionless]"));
        // Series at mission p̂ 0 and 1 → marker y pixels differ; both series at p̂ = 0 for safety.
        let series = series_for(&s, &summary, "odom_bias", false);
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].0, "latency_s=0");
        assert_eq!(
            series[0].1.iter().map(|p| (p.x, p.p)).collect::<Vec<_>>(),
            vec![(0.0, 0.0), (0.4, 1.0)]
        );
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

    #[test]
    fn odom_to_world_rotates_and_translates() {
        // Start (1, 2) facing +y: odom (1, 0) is 1 m ahead → world (1, 3);
        // odom (0, 1) is 1 m to the left (−x) → world (0, 2).
        let start = Pose2 {
            x_m: 1.0,
            y_m: 2.0,
            yaw_rad: std::f64::consts::FRAC_PI_2,
        };
        let a = odom_to_world(&start, [1.0, 0.0]);
        let b = odom_to_world(&start, [0.0, 1.0]);
        assert!(
            (a[0] - 1.0).abs() < 1e-12 && (a[1] - 3.0).abs() < 1e-12,
            "{a:?}"
        );
        assert!(
            (b[0] - 0.0).abs() < 1e-12 && (b[1] - 2.0).abs() < 1e-12,
            "{b:?}"
        );
    }

    #[test]
    fn equal_aspect_and_decimation() {
        // 12.6 m × 2.6 m in 1000 × 600: width-limited, 1000/12.6 = 79.37 px/m → 206 px high.
        assert_eq!(equal_aspect_px(12.6, 2.6, 1000, 600), (1000, 206));
        // 1 m × 2 m: height-limited, 300 px/m.
        assert_eq!(equal_aspect_px(1.0, 2.0, 1000, 600), (300, 600));
        let pts: Vec<(f64, f64)> = (0..10).map(|i| (i as f64, 0.0)).collect();
        // stride ceil(10/4) = 3 → 0, 3, 6, 9 (the last is kept).
        assert_eq!(
            decimate(pts, 4).iter().map(|p| p.0).collect::<Vec<_>>(),
            vec![0.0, 3.0, 6.0, 9.0]
        );
    }

    #[test]
    fn predicates_text_names_violations_with_decision_time() {
        let mut v = manifest("x", RunKind::Grid, &[], false, true).verdict;
        v.obstacle_clearance.decided_at_s = 12.3;
        assert_eq!(
            predicates_text(&v),
            "operating_region_containment held, obstacle_clearance VIOLATED (decided at 12.30 s), mission_completion_true_pose held"
        );
    }

    #[test]
    fn parse_trace_reports_bad_number_with_line() {
        let e = parse_trace(
            "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2,0,0,0\n0.1,x,2,0,0,0\n",
        )
        .unwrap_err();
        assert!(e.contains("line 3: column true_x_m: 'x'"), "{e}");
        let rows =
            parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2,0,0.5,-0.5\n")
                .unwrap();
        assert_eq!(
            rows,
            vec![TraceRow {
                true_xy: [1.0, 2.0],
                odom_xy: [0.5, -0.5]
            }]
        );
    }
}
