//! Hand-written SVG of the resilience-test section (`tests`): the timeline
//! of one run and the latency strip / box plot of one expectation.

use std::fmt::Write as _;

use breakbench_oracle::expect::{ExpectationResult, FaultTimeline, Role, Stamp, Timeline};

use crate::markup::xml_escape;
use crate::resilience_summary::quantile_sorted;

/// An expectation's declared time bound, for the latency plot.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Bound {
    /// `within`: at most this many seconds after the anchor.
    Upper(f64),
    /// `at`: between these two, s after the anchor.
    Band(f64, f64),
}

/// Fault events in timeline order with their colours (Okabe–Ito).
const EVENTS: [(&str, &str); 5] = [
    ("trigger", "#444444"),
    ("requested", "#56b4e9"),
    ("applied", "#d55e00"),
    ("cleared", "#0072b2"),
    ("recovered", "#cc79a7"),
];

const SATISFIED: &str = "#1a8f3c";
const VIOLATED: &str = "#c00000";
const UNDECIDED: &str = "#888888";
const WINDOW_FILL: &str = "#f4a582";
/// A white outline under text drawn over lines, so that it stays legible.
const HALO: &str = " stroke=\"white\" stroke-width=\"3\" paint-order=\"stroke\"";

/// Timeline layout, px: total width, left edge and width of the time axis.
const TL_W: f64 = 960.0;
const TL_X0: f64 = 240.0;
const TL_PLOT_W: f64 = 700.0;
/// Height of one label lane and of one row.
const LANE_H: f64 = 13.0;
const ROW_H: f64 = 18.0;
/// Longest row label, characters.
const MAX_LABEL: usize = 38;

/// A linear map of [t0, t1] s onto [x0, x0 + w] px.
struct Scale {
    t0: f64,
    t1: f64,
    x0: f64,
    w: f64,
}

impl Scale {
    fn x(&self, t: f64) -> f64 {
        self.x0 + (t - self.t0) / (self.t1 - self.t0) * self.w
    }
    fn contains(&self, t: f64) -> bool {
        let eps = 1e-9 * (self.t1 - self.t0);
        t >= self.t0 - eps && t <= self.t1 + eps
    }
}

/// Estimated width of `s` at `font_px` (sans-serif averages ~0.58 em).
fn text_w(s: &str, font_px: f64) -> f64 {
    s.chars().count() as f64 * font_px * 0.58
}

/// Ticks in [t0, t1] at a step of 1, 2 or 5 × 10^k giving about `target`
/// ticks, and the decimals their labels need.
fn ticks(t0: f64, t1: f64, target: f64) -> (Vec<f64>, usize) {
    let span = t1 - t0;
    if span.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return (vec![t0], 0);
    }
    let raw = span / target;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| *s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * mag);
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10() - 1e-9).ceil() as usize
    };
    let mut out = Vec::new();
    let mut k = (t0 / step - 1e-9).ceil() as i64;
    loop {
        let t = k as f64 * step;
        if t > t1 + step * 1e-9 {
            break;
        }
        out.push(t);
        k += 1;
    }
    (out, decimals)
}

/// A horizontal time axis at `y` with ticks and `label` below.
fn axis(o: &mut String, sc: &Scale, y: f64, label: &str) {
    let _ = writeln!(
        o,
        "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#333\"/>",
        sc.x0,
        sc.x0 + sc.w
    );
    let (ts, dec) = ticks(sc.t0, sc.t1, 8.0);
    for t in ts {
        let x = sc.x(t);
        let _ = writeln!(
            o,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{y:.1}\" y2=\"{:.1}\" stroke=\"#333\"/><text x=\"{x:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{t:.dec$}</text>",
            y + 4.0,
            y + 15.0
        );
    }
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
        sc.x0 + sc.w / 2.0,
        y + 29.0,
        xml_escape(label)
    );
}

/// The five events of a fault, in timeline order.
pub(super) fn fault_events(f: &FaultTimeline) -> [(&'static str, Option<Stamp>); 5] {
    [
        (EVENTS[0].0, f.t_trigger),
        (EVENTS[1].0, f.t_requested),
        (EVENTS[2].0, f.t_applied),
        (EVENTS[3].0, f.t_cleared),
        (EVENTS[4].0, f.t_recovered),
    ]
}

/// The end of a run's time axis: its sim time, or a later event or
/// decision; 1 s if everything is at 0.
pub(super) fn timeline_end(tl: &Timeline, sim_time_s: f64) -> f64 {
    let events = tl
        .faults
        .iter()
        .flat_map(|f| fault_events(f).into_iter().filter_map(|(_, s)| s))
        .map(|s| s.sim_s);
    let decisions = tl.expectations.iter().map(|e| e.decided_at_s);
    let end = events
        .chain(decisions)
        .filter(|t| t.is_finite())
        .fold(sim_time_s, f64::max);
    if end > 0.0 {
        end
    } else {
        1.0
    }
}

/// A closer view around the fault events and the decisions of the
/// expectations with a role, ±1 s, when it is under half the run.
pub(super) fn zoom_range(tl: &Timeline, end: f64) -> Option<(f64, f64)> {
    let events: Vec<f64> = tl
        .faults
        .iter()
        .flat_map(|f| fault_events(f).into_iter().filter_map(|(_, s)| s))
        .map(|s| s.sim_s)
        .collect();
    if events.is_empty() {
        return None;
    }
    let all = events.iter().copied().chain(
        tl.expectations
            .iter()
            .filter(|e| e.role.is_some())
            .map(|e| e.decided_at_s),
    );
    let (lo, hi) = all
        .filter(|t| t.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| {
            (a.min(t), b.max(t))
        });
    let (lo, hi) = ((lo - 1.0).max(0.0), (hi + 1.0).min(end));
    (hi > lo && hi - lo < 0.5 * end).then_some((lo, hi))
}

/// One expectation row of a timeline.
struct DecisionRow<'a> {
    name: &'a str,
    role: Option<Role>,
    satisfied: bool,
    undecided: bool,
    anchor_s: Option<f64>,
    decided_at_s: f64,
    latency_s: Option<f64>,
}

/// The timeline's expectations in file order, then the results the
/// timeline does not list (a baseline's false-alarm probes).
fn decision_rows<'a>(tl: &'a Timeline, results: &'a [ExpectationResult]) -> Vec<DecisionRow<'a>> {
    let undecided = |name: &str| {
        results
            .iter()
            .any(|r| r.name == name && r.undecidable.is_some())
    };
    let mut rows: Vec<DecisionRow> = tl
        .expectations
        .iter()
        .map(|e| DecisionRow {
            name: &e.expectation,
            role: e.role,
            satisfied: e.satisfied,
            undecided: undecided(&e.expectation),
            anchor_s: e.anchor_s,
            decided_at_s: e.decided_at_s,
            latency_s: e.latency_s,
        })
        .collect();
    for r in results {
        if tl.expectations.iter().all(|e| e.expectation != r.name) {
            rows.push(DecisionRow {
                name: &r.name,
                role: r.role,
                satisfied: r.satisfied,
                undecided: r.undecidable.is_some(),
                anchor_s: r.anchor_s,
                decided_at_s: r.decided_at_s,
                latency_s: r.latency_s(),
            });
        }
    }
    rows
}

fn truncate(s: &str) -> String {
    if s.chars().count() <= MAX_LABEL {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(MAX_LABEL - 1).collect();
        t.push('…');
        t
    }
}

/// The timeline of a run over [t0, t1] s: label lanes of the fault events
/// on top, one row per fault (its window shaded from applied to cleared, or
/// to the end if never cleared) and one per expectation (its decision),
/// the sim-time axis below. `results` are the manifest's expectation
/// results: they mark undecidable expectations, and those the timeline does
/// not list (a baseline's false-alarm probes) get rows of their own.
/// Returns one `<svg class="timeline">` element, TL_W px wide.
pub(super) fn timeline_svg(
    tl: &Timeline,
    results: &[ExpectationResult],
    t0: f64,
    t1: f64,
) -> String {
    let sc = Scale {
        t0,
        t1,
        x0: TL_X0,
        w: TL_PLOT_W,
    };
    let (placed, n_lanes) = place_event_labels(tl, &sc);
    let rows = decision_rows(tl, results);
    let top = 6.0;
    let rows_top = top + n_lanes as f64 * LANE_H + 6.0;
    let n_rows = tl.faults.len() + rows.len();
    let rows_bottom = rows_top + n_rows as f64 * ROW_H;
    let height = rows_bottom + 36.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{TL_W:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {TL_W:.0} {height:.0}\" font-family=\"sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"{TL_W:.0}\" height=\"{height:.0}\" fill=\"white\"/>"
    );
    // Fault windows: faint across every row, solid on the fault's own row.
    for (i, f) in tl.faults.iter().enumerate() {
        let y = rows_top + i as f64 * ROW_H;
        write_fault_row(&mut o, f, &sc, y, rows_top, rows_bottom);
    }
    // Row guides.
    for r in 0..n_rows {
        let y = rows_top + r as f64 * ROW_H + ROW_H / 2.0;
        let _ = writeln!(
            o,
            "<line x1=\"{TL_X0:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e4e4e4\"/>",
            TL_X0 + TL_PLOT_W
        );
    }
    // Fault events: a line through every row and its label in its lane.
    for label in &placed {
        write_event_label(&mut o, label, top, rows_bottom);
    }
    // Expectations: anchor → decision.
    for (i, e) in rows.iter().enumerate() {
        let y = rows_top + (tl.faults.len() + i) as f64 * ROW_H + ROW_H / 2.0;
        write_decision_row(&mut o, e, &sc, y);
    }
    axis(&mut o, &sc, rows_bottom + 2.0, "sim time [s]");
    o.push_str("</svg>");
    o
}

/// A fault event's label on a timeline, placed into a lane.
struct PlacedLabel {
    /// x of the event, px.
    x: f64,
    text: String,
    /// The event's name (`trigger`, `requested`, …).
    ev: &'static str,
    colour: &'static str,
    /// The label lane, 0 at the top.
    lane: usize,
    /// Whether the label ends at the event (right-aligned) rather than
    /// starting after it, because it would run past the right edge.
    anchor_end: bool,
}

/// The labels of the fault events inside `sc`'s time range ("applied 5.00 s",
/// with the fault's name when the run has several faults), placed left to
/// right into the first lane they fit. Returns them in x order and the
/// number of lanes used (0 when there is no event in range).
fn place_event_labels(tl: &Timeline, sc: &Scale) -> (Vec<PlacedLabel>, usize) {
    let many = tl.faults.len() > 1;
    let mut labels: Vec<(f64, String, &'static str, &'static str)> = Vec::new();
    for f in &tl.faults {
        for (i, (ev, st)) in fault_events(f).into_iter().enumerate() {
            let Some(st) = st else { continue };
            if !sc.contains(st.sim_s) {
                continue;
            }
            let text = if many {
                format!("{ev} {} {:.2} s", f.fault, st.sim_s)
            } else {
                format!("{ev} {:.2} s", st.sim_s)
            };
            labels.push((sc.x(st.sim_s), text, ev, EVENTS[i].1));
        }
    }
    labels.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut lane_ends: Vec<f64> = Vec::new();
    let mut placed = Vec::new();
    for (x, text, ev, colour) in labels {
        let w = text_w(&text, 10.0);
        let (start, anchor_end) = if x + 3.0 + w > TL_W {
            (x - 3.0 - w, true)
        } else {
            (x + 3.0, false)
        };
        let lane = match lane_ends.iter().position(|e| *e + 4.0 < start) {
            Some(l) => l,
            None => {
                lane_ends.push(f64::NEG_INFINITY);
                lane_ends.len() - 1
            }
        };
        lane_ends[lane] = start + w;
        placed.push(PlacedLabel {
            x,
            text,
            ev,
            colour,
            lane,
            anchor_end,
        });
    }
    (placed, lane_ends.len())
}

/// Appends to `o` the row of fault `f` whose top is at `y` px: its bold
/// name on the left, and if it was applied, its window (applied to cleared,
/// or to the end of `sc`) shaded faintly from `rows_top` to `rows_bottom`
/// px and solidly on its own row.
fn write_fault_row(
    o: &mut String,
    f: &FaultTimeline,
    sc: &Scale,
    y: f64,
    rows_top: f64,
    rows_bottom: f64,
) {
    let (t0, t1) = (sc.t0, sc.t1);
    let applied = f.t_applied.map(|s| s.sim_s);
    let label = if applied.is_some() {
        format!("fault {}", f.fault)
    } else {
        format!("fault {} (never applied)", f.fault)
    };
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\" font-weight=\"bold\">{}</text>",
        TL_X0 - 8.0,
        y + ROW_H / 2.0 + 4.0,
        xml_escape(&truncate(&label))
    );
    let Some(a) = applied else { return };
    let c = f.t_cleared.map_or(t1, |s| s.sim_s);
    let (a, c) = (a.max(t0), c.min(t1));
    if c < a {
        return;
    }
    let (xa, xc) = (sc.x(a), sc.x(c));
    let _ = writeln!(
        o,
        "<rect class=\"fault-shade\" x=\"{xa:.1}\" y=\"{rows_top:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{WINDOW_FILL}\" fill-opacity=\"0.18\"/>\n<rect class=\"fault-window\" x=\"{xa:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{WINDOW_FILL}\" fill-opacity=\"0.8\"><title>{}: applied to {}</title></rect>",
        xc - xa,
        rows_bottom - rows_top,
        y + 3.0,
        xc - xa,
        ROW_H - 6.0,
        xml_escape(&f.fault),
        if f.t_cleared.is_some() { "cleared" } else { "the end of the run (never cleared)" }
    );
}

/// Appends to `o` a fault event's line, from its label lane (lanes start at
/// `top` px) down to `rows_bottom` px, and its label (dashed for `requested`).
fn write_event_label(o: &mut String, label: &PlacedLabel, top: f64, rows_bottom: f64) {
    let PlacedLabel {
        x,
        text,
        ev,
        colour,
        lane,
        anchor_end,
    } = label;
    let ly = top + (*lane as f64 + 1.0) * LANE_H - 3.0;
    let _ = writeln!(
        o,
        "<line class=\"ev ev-{ev}\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{:.1}\" y2=\"{rows_bottom:.1}\" stroke=\"{colour}\" stroke-width=\"1.5\"{}/>\n<text x=\"{:.1}\" y=\"{ly:.1}\" font-size=\"10\" fill=\"{colour}\"{HALO}{}>{}</text>",
        ly + 3.0,
        if *ev == "requested" { " stroke-dasharray=\"3,2\"" } else { "" },
        if *anchor_end { x - 3.0 } else { x + 3.0 },
        if *anchor_end { " text-anchor=\"end\"" } else { "" },
        xml_escape(text)
    );
}

/// Appends to `o` the row of expectation `e` centred at `y` px: its name
/// (and role) on the left, a faint line from its anchor to its decision
/// with a tick at the anchor, and a dot at the decision labelled with the
/// verdict, time and latency (or, if the decision is outside `sc`, the
/// label alone at the edge with an arrow towards it).
fn write_decision_row(o: &mut String, e: &DecisionRow, sc: &Scale, y: f64) {
    let label = match e.role {
        Some(r) => format!("{} ({})", e.name, super::format::serde_name(&r)),
        None => e.name.to_string(),
    };
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
        TL_X0 - 8.0,
        y + 4.0,
        xml_escape(&truncate(&label))
    );
    let (class, colour, word) = if e.undecided {
        ("undec", UNDECIDED, "undecidable")
    } else if e.satisfied {
        ("sat", SATISFIED, "satisfied")
    } else {
        ("viol", VIOLATED, "violated")
    };
    let d = e.decided_at_s;
    if let Some(a) = e.anchor_s {
        write_anchor(o, sc, a, d, y, colour);
    }
    let mut text = format!("{word} {d:.2} s");
    if let Some(l) = e.latency_s {
        let _ = write!(text, ", latency {l:.3} s");
    }
    if sc.contains(d) {
        let x = sc.x(d);
        let w = text_w(&text, 10.0);
        let (tx, anchor) = if x + 7.0 + w > TL_W {
            (x - 7.0, " text-anchor=\"end\"")
        } else {
            (x + 7.0, "")
        };
        let _ = writeln!(
            o,
            "<circle class=\"exp {class}\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4.5\" fill=\"{colour}\" stroke=\"white\"><title>{}: {}</title></circle>\n<text x=\"{tx:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"{colour}\"{anchor}{HALO}>{}</text>",
            xml_escape(e.name),
            xml_escape(&text),
            y + 3.5,
            xml_escape(&text)
        );
    } else {
        let (tx, anchor, what) = if d > sc.t1 {
            (
                TL_X0 + TL_PLOT_W,
                " text-anchor=\"end\"",
                format!("{text} →"),
            )
        } else {
            (TL_X0 + 2.0, "", format!("← {text}"))
        };
        let _ = writeln!(
            o,
            "<text x=\"{tx:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"{colour}\"{anchor}{HALO}>{}</text>",
            y + 3.5,
            xml_escape(&what)
        );
    }
}

/// Appends to `o`, on the row centred at `y` px, a faint line from anchor
/// `a` s to decision `d` s (clipped to `sc`, none if wholly outside) and a
/// tick at the anchor if it is inside `sc`.
fn write_anchor(o: &mut String, sc: &Scale, a: f64, d: f64, y: f64, colour: &str) {
    let (lo, hi) = (a.min(d).max(sc.t0), a.max(d).min(sc.t1));
    if lo <= hi {
        let _ = writeln!(
            o,
            "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\" stroke-width=\"2\" stroke-opacity=\"0.45\"/>",
            sc.x(lo),
            sc.x(hi)
        );
    }
    if sc.contains(a) {
        let xa = sc.x(a);
        let _ = writeln!(
            o,
            "<line x1=\"{xa:.1}\" x2=\"{xa:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"{colour}\" stroke-width=\"1.5\"/>",
            y - 4.0,
            y + 4.0
        );
    }
}

/// Latency plot layout, px.
const LAT_W: f64 = 480.0;
const LAT_H: f64 = 94.0;
const LAT_X0: f64 = 20.0;
const LAT_PLOT_W: f64 = 440.0;

/// Strip / box plot of latencies `xs` (non-empty), s, with the declared
/// bound: quartile box, median, whiskers to the extremes, a p95 tick, one
/// dot per run below.
pub(super) fn latency_svg(xs: &[f64], bound: Option<Bound>) -> String {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f64::total_cmp);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg class=\"latency\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{LAT_W:.0}\" height=\"{LAT_H:.0}\" viewBox=\"0 0 {LAT_W:.0} {LAT_H:.0}\" font-family=\"sans-serif\">\n<rect x=\"0\" y=\"0\" width=\"{LAT_W:.0}\" height=\"{LAT_H:.0}\" fill=\"white\"/>"
    );
    let hi = match bound {
        Some(Bound::Upper(u)) | Some(Bound::Band(_, u)) => u,
        None => 0.0,
    };
    let top = v.last().copied().unwrap_or(0.0).max(hi);
    let sc = Scale {
        t0: 0.0,
        t1: if top > 0.0 { top * 1.1 } else { 1.0 },
        x0: LAT_X0,
        w: LAT_PLOT_W,
    };
    // Rows: bound label, box (p95 label above it), dots, axis.
    let (yb, yp, ya) = (30.0, 48.0, 60.0);
    match bound {
        Some(Bound::Upper(u)) => {
            let x = sc.x(u);
            let _ = writeln!(
                o,
                "<line class=\"bound\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"12\" y2=\"{ya:.1}\" stroke=\"{VIOLATED}\" stroke-dasharray=\"4,3\"/><text x=\"{:.1}\" y=\"9\" font-size=\"9\" fill=\"{VIOLATED}\" text-anchor=\"end\">bound {u} s</text>",
                x - 2.0
            );
        }
        Some(Bound::Band(lo, hi)) => {
            let (xl, xh) = (sc.x(lo.max(0.0)), sc.x(hi));
            let _ = writeln!(
                o,
                "<rect class=\"bound\" x=\"{xl:.1}\" y=\"12\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{SATISFIED}\" fill-opacity=\"0.15\"/><text x=\"{xh:.1}\" y=\"9\" font-size=\"9\" fill=\"{SATISFIED}\" text-anchor=\"end\">bound {lo:.3}–{hi:.3} s</text>",
                xh - xl,
                ya - 12.0
            );
        }
        None => {}
    }
    if let (Some(&min), Some(&max)) = (v.first(), v.last()) {
        let q = |p: f64| sc.x(quantile_sorted(&v, p));
        let (x1, xm, x3, x95) = (q(0.25), q(0.5), q(0.75), q(0.95));
        let _ = writeln!(
            o,
            "<line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"{yb:.1}\" y2=\"{yb:.1}\" stroke=\"#333\"/>\n<rect x=\"{x1:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"14\" fill=\"#cfe3f3\" stroke=\"#0072b2\"/>\n<line class=\"median\" x1=\"{xm:.1}\" x2=\"{xm:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#0072b2\" stroke-width=\"3\"/>\n<line class=\"p95\" x1=\"{x95:.1}\" x2=\"{x95:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#333\" stroke-width=\"1.5\"/><text x=\"{x95:.1}\" y=\"{:.1}\" font-size=\"8\" text-anchor=\"middle\">p95</text>",
            sc.x(min),
            sc.x(max),
            yb - 7.0,
            (x3 - x1).max(1.0),
            yb - 7.0,
            yb + 7.0,
            yb - 11.0,
            yb - 7.0,
            yb - 12.5
        );
        for (i, x) in v.iter().enumerate() {
            // A fixed vertical jitter so that equal latencies stay visible.
            let dy = (i * 7 % 5) as f64 * 2.0 - 4.0;
            let _ = writeln!(
                o,
                "<circle class=\"pt\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#0072b2\" fill-opacity=\"0.6\"><title>{x:.3} s</title></circle>",
                sc.x(*x),
                yp + dy
            );
        }
    }
    axis(&mut o, &sc, ya, "latency [s]");
    o.push_str("</svg>");
    o
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn ticks_use_1_2_5_steps() {
        assert_eq!(
            ticks(0.0, 60.0, 8.0),
            (vec![0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0], 0)
        );
        let (t, d) = ticks(13.9, 19.2, 8.0);
        assert_eq!(d, 0);
        assert_eq!(t, vec![14.0, 15.0, 16.0, 17.0, 18.0, 19.0]);
        let (t, d) = ticks(0.0, 0.66, 8.0);
        assert_eq!(d, 1);
        assert_eq!(t.len(), 7);
        assert!((t[6] - 0.6).abs() < 1e-12);
    }

    #[test]
    fn scale_maps_the_ends() {
        let sc = Scale {
            t0: 0.0,
            t1: 60.0,
            x0: TL_X0,
            w: TL_PLOT_W,
        };
        assert_eq!(sc.x(0.0), 240.0);
        assert_eq!(sc.x(60.0), 940.0);
        assert_eq!(sc.x(15.0), 415.0);
        assert!(sc.contains(60.0) && !sc.contains(60.1));
    }

    #[test]
    fn latency_plot_box_and_bound() {
        // Four latencies 0.1..0.4 s, bound 1 s → axis to 1.1 s over 440 px.
        let svg = latency_svg(&[0.4, 0.1, 0.3, 0.2], Some(Bound::Upper(1.0)));
        assert_eq!(svg.matches("<circle class=\"pt\"").count(), 4);
        // Median 0.25 s → 20 + 0.25/1.1 × 440 = 120.0; bound at 420.0.
        assert!(svg.contains("<line class=\"median\" x1=\"120.0\""), "{svg}");
        assert!(svg.contains("<line class=\"bound\" x1=\"420.0\""), "{svg}");
        assert!(svg.contains(">bound 1 s</text>"));
    }
}
