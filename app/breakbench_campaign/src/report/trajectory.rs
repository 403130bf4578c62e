//! Trajectory panels: a few runs' true path and believed (odometry) path over
//! the world, drawn at equal aspect ratio from their trace files.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use breakbench_world::world::Point2;
use breakbench_world::World;
use plotters::prelude::*;

use super::format::{note, predicates_text, serde_name};
use crate::manifest::{Manifest, RunKind};
use crate::markup::xml_escape;
use crate::scenario::Scenario;
use crate::trace::{parse_trace, TraceRow};

/// Colour of the true (ground-truth) path in the trajectory panels.
const TRUE_COLOR: RGBColor = RGBColor(0, 114, 178);
/// Colour of the believed (odometry) path in the trajectory panels.
const BELIEVED_COLOR: RGBColor = RGBColor(213, 94, 0);

/// Most points drawn per path (traces are decimated by a constant stride).
const MAX_PATH_POINTS: usize = 1500;

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

/// The navigator variants of the grid runs: each distinct combination of
/// navigator-axis values (axis name → value index), in the order first seen
/// in `ms`; one empty variant when the scenario has no navigator axes.
fn variants(scenario: &Scenario, ms: &[&Manifest]) -> Vec<BTreeMap<String, f64>> {
    let mut out: Vec<BTreeMap<String, f64>> = Vec::new();
    for m in ms.iter().filter(|m| m.kind == RunKind::Grid) {
        let v: BTreeMap<String, f64> = scenario
            .file
            .navigator_axes
            .iter()
            .filter_map(|a| m.cell.get(&a.name).map(|x| (a.name.clone(), *x)))
            .collect();
        if !out.contains(&v) {
            out.push(v);
        }
    }
    if out.is_empty() {
        out.push(BTreeMap::new());
    }
    out.sort_by(|a, b| {
        a.values()
            .zip(b.values())
            .map(|(x, y)| x.total_cmp(y))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// `gating=both` for a navigator variant (value indices mapped to labels).
fn variant_label(scenario: &Scenario, v: &BTreeMap<String, f64>) -> String {
    scenario
        .file
        .navigator_axes
        .iter()
        .filter_map(|a| {
            let i = *v.get(&a.name)? as usize;
            Some(format!("{} = {}", a.name, a.values.get(i)?))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The runs shown as trajectories: the first nominal run; for each fault
/// axis, the first run of the cell with that axis at its largest value and
/// every other fault axis at its smallest, once per navigator variant (so a
/// study crossed with the estimator's gating shows the same fault under
/// each gating option); the first canary run.
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
    let variants = variants(scenario, ms);
    for a in axes {
        let mut key = BTreeMap::new();
        for b in axes {
            let pick = if b.name == a.name { f64::max } else { f64::min };
            let v = b.values.iter().copied().reduce(pick).unwrap_or(0.0);
            key.insert(b.name.clone(), v);
        }
        let faults = axes
            .iter()
            .map(|b| format!("{} = {}", b.name, key[&b.name]))
            .collect::<Vec<_>>()
            .join(", ");
        for v in &variants {
            let mut cell = key.clone();
            cell.extend(v.iter().map(|(k, x)| (k.clone(), *x)));
            let nav = variant_label(scenario, v);
            let label = if nav.is_empty() {
                format!("highest {}: {faults}", a.name)
            } else {
                format!("highest {}: {faults}; {nav}", a.name)
            };
            out.push((
                label,
                ms.iter()
                    .copied()
                    .find(|m| m.kind == RunKind::Grid && m.cell == cell),
            ));
        }
    }
    if scenario.file.canary.is_some() {
        out.push((
            "positive canary (open-loop into the obstacle; harness-only)".to_string(),
            ms.iter().copied().find(|m| m.kind == RunKind::Canary),
        ));
    }
    out
}

/// Colour of the estimator's error in the error-against-time panels.
const ESTIMATE_COLOR: RGBColor = RGBColor(0, 158, 115);
/// Colour of the delivered GNSS fix's error in the error-against-time panels.
const GNSS_COLOR: RGBColor = RGBColor(204, 121, 167);

/// One error-against-time series: its name, colour and `(t s, error m)`
/// points (NaN samples left out).
type ErrorSeries = (&'static str, RGBColor, Vec<(f64, f64)>);

/// The position errors of a run against time (REQ-STUDY-TRACES): the
/// Euclidean distance, metres, from the true position of each trace row to
/// the position the navigator believed (its odometry, moved into the world
/// frame), to its estimator's `map` estimate, and to the last GNSS fix it
/// was given. Series with no finite sample are left out.
fn error_series(scenario: &Scenario, rows: &[TraceRow]) -> Vec<ErrorSeries> {
    let err = |r: &TraceRow, x: f64, y: f64| (x - r.true_x_m).hypot(y - r.true_y_m);
    let series = |f: &dyn Fn(&TraceRow) -> f64| -> Vec<(f64, f64)> {
        rows.iter()
            .map(|r| (r.t_s, f(r)))
            .filter(|p| p.1.is_finite())
            .collect()
    };
    let odom = series(&|r| {
        let p = scenario.world.odom_to_world([r.odom_x_m, r.odom_y_m, 0.0]);
        err(r, p[0], p[1])
    });
    let est = series(&|r| err(r, r.est_x_m, r.est_y_m));
    let gnss = series(&|r| err(r, r.gnss_x_m, r.gnss_y_m));
    [
        ("odometry (believed)", BELIEVED_COLOR, odom),
        ("estimate (map)", ESTIMATE_COLOR, est),
        ("last GNSS fix", GNSS_COLOR, gnss),
    ]
    .into_iter()
    .filter(|s| !s.2.is_empty())
    .collect()
}

/// SVG of a run's position errors against sim time, with the faults'
/// active windows shaded and the first detection after the fault marked.
fn error_svg(
    series: &[ErrorSeries],
    windows: &[(f64, f64)],
    detected_s: Option<f64>,
    end_s: f64,
) -> Result<String, String> {
    let ymax = series
        .iter()
        .flat_map(|s| s.2.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(0.1)
        * 1.08;
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (760, 300)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (plot_area, legend_area) = root.split_horizontally(590);
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..end_s.max(1e-3), 0.0..ymax)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("sim time [s]")
            .y_desc("position error [m]")
            .light_line_style(RGBColor(240, 240, 240))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(windows.iter().map(|&(a, b)| {
                Rectangle::new(
                    [(a, 0.0), (b, ymax)],
                    RGBColor(230, 159, 0).mix(0.15).filled(),
                )
            }))
            .map_err(|e| e.to_string())?;
        if let Some(t) = detected_s {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(t, 0.0), (t, ymax)],
                    BLACK.stroke_width(1),
                )))
                .map_err(|e| e.to_string())?;
        }
        for (_, color, pts) in series {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    decimate(pts.clone(), MAX_PATH_POINTS),
                    color.stroke_width(2),
                )))
                .map_err(|e| e.to_string())?;
        }
        let mut y = 30;
        for (name, color, _) in series {
            legend_area
                .draw(&PathElement::new(
                    vec![(4, y), (28, y)],
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?;
            legend_area
                .draw(&Text::new(*name, (34, y - 7), ("sans-serif", 13)))
                .map_err(|e| e.to_string())?;
            y += 22;
        }
        if !windows.is_empty() {
            legend_area
                .draw(&Rectangle::new(
                    [(4, y - 6), (28, y + 6)],
                    RGBColor(230, 159, 0).mix(0.3).filled(),
                ))
                .map_err(|e| e.to_string())?;
            legend_area
                .draw(&Text::new("fault active", (34, y - 7), ("sans-serif", 13)))
                .map_err(|e| e.to_string())?;
            y += 22;
        }
        if detected_s.is_some() {
            legend_area
                .draw(&PathElement::new(
                    vec![(16, y - 8), (16, y + 8)],
                    BLACK.stroke_width(1),
                ))
                .map_err(|e| e.to_string())?;
            legend_area
                .draw(&Text::new("detected", (34, y - 7), ("sans-serif", 13)))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// Appends to `h` the "Trajectories" section: its heading and legend, then
/// for each chosen run its heading, a summary line, the world plot with the
/// true and believed paths and, with an estimator or GNSS in the loop, the
/// plot of the position errors against sim time. A run whose manifest or
/// trace is missing, empty or unreadable, or whose plot fails, gets a note
/// instead. Trace files are read from `out` (the campaign directory).
pub(super) fn trajectories(h: &mut String, scenario: &Scenario, ms: &[&Manifest], out: &Path) {
    trajectories_intro(h);
    for (label, m) in chosen_runs(scenario, ms) {
        let _ = writeln!(h, "<h3>{}</h3>", xml_escape(&label));
        let Some(m) = m else {
            note(h, "No manifest for this run in the campaign directory.");
            continue;
        };
        let rows = match read_trace_rows(m, out) {
            Ok(rows) => rows,
            Err(text) => {
                note(h, &text);
                continue;
            }
        };
        run_trajectory(h, scenario, m, &rows);
        run_errors(h, scenario, m, &rows);
    }
}

/// Appends to `h` the section's heading, its explanation and the legend of
/// the two paths (HTML swatches).
fn trajectories_intro(h: &mut String) {
    h.push_str("<h2>Trajectories</h2>\n<p>The world (walls black, obstacle boxes grey, operating region green outline, goal disc green) with the true path from ground truth and the path the navigator believed, from its delivered odometry, moved from its odom frame into the world frame with the start pose. Equal scale on both axes. Dots mark the last sample. With an estimator or GNSS in the loop, a second plot per run gives the position errors against sim time: of the believed (odometry) position, of the estimator's map estimate and of the last GNSS fix the navigator was given (after the injector's faults), each against ground truth; the faults' active windows are shaded and the first detection after the fault is a vertical line.</p>\n");
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
}

/// The samples of run `m`'s trace file (its `trace_file`, relative to
/// `out`). Errors: the text of the note to show instead (the file is
/// missing, unreadable, malformed or has no samples).
fn read_trace_rows(m: &Manifest, out: &Path) -> Result<Vec<TraceRow>, String> {
    let path = out.join(&m.trace_file);
    match std::fs::read_to_string(&path) {
        Ok(t) => match parse_trace(&t) {
            Ok(r) if !r.is_empty() => Ok(r),
            Ok(_) => Err(format!(
                "Run {}: trace file {} has no samples.",
                m.run_id,
                path.display()
            )),
            Err(e) => Err(format!(
                "Run {}: trace file {} is malformed: {e}",
                m.run_id,
                path.display()
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "Run {}: trace file {} is missing.",
            m.run_id,
            path.display()
        )),
        Err(e) => Err(format!(
            "Run {}: trace file {} could not be read: {e}",
            m.run_id,
            path.display()
        )),
    }
}

/// Appends to `h` run `m`'s summary line (self-report, oracle, margins in
/// m, sample counts) and its world plot: the true path from `rows` and the
/// believed one (odometry moved into the world frame), or a note if the
/// plot cannot be rendered.
fn run_trajectory(h: &mut String, scenario: &Scenario, m: &Manifest, rows: &[TraceRow]) {
    let truth: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.true_x_m.is_finite() && r.true_y_m.is_finite())
        .map(|r| (r.true_x_m, r.true_y_m))
        .collect();
    let believed: Vec<(f64, f64)> = rows
        .iter()
        .filter(|r| r.odom_x_m.is_finite() && r.odom_y_m.is_finite())
        .map(|r| {
            let p = scenario.world.odom_to_world([r.odom_x_m, r.odom_y_m, 0.0]);
            (p[0], p[1])
        })
        .collect();
    let v = &m.verdict;
    let _ = writeln!(
        h,
        "<p>Run <code>{}</code> ({}): self-report {}; oracle: {}; min region margin {:.3} m, min obstacle clearance {:.3} m; final distance from the goal centre {:.3} m; {} samples ({} with odometry).</p>",
        xml_escape(&m.run_id),
        super::resilience::run_files(m),
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

/// With an estimator or GNSS in the loop (an error series other than the
/// odometry's), appends to `h` run `m`'s largest errors (m) and detection
/// time (s), and the plot of the position errors against sim time with the
/// faults' active windows and the detection; a note if the plot cannot be
/// rendered. Appends nothing otherwise.
fn run_errors(h: &mut String, scenario: &Scenario, m: &Manifest, rows: &[TraceRow]) {
    let series = error_series(scenario, rows);
    if !series.iter().any(|s| s.0 != "odometry (believed)") {
        return;
    }
    let end_s = rows.last().map_or(m.sim_time_s, |r| r.t_s);
    let windows: Vec<(f64, f64)> = m
        .faults
        .iter()
        .filter_map(|f| Some((f.first_applied_s?, f.cleared_s.unwrap_or(end_s))))
        .collect();
    let detected_s = m.detection.as_ref().and_then(|d| d.after_fault_s);
    let peak = |name: &str| {
        series
            .iter()
            .find(|s| s.0 == name)
            .map(|s| s.2.iter().map(|p| p.1).fold(0.0f64, f64::max))
    };
    let fmt = |v: Option<f64>| v.map_or("n/a".to_string(), |x| format!("{x:.3} m"));
    let _ = writeln!(
        h,
        "<p>Position error against time: largest estimate error {}, largest error of the last GNSS fix {}; detection {}.</p>",
        fmt(peak("estimate (map)")),
        fmt(peak("last GNSS fix")),
        detected_s.map_or("none after the fault".to_string(), |t| format!("at {t:.2} s"))
    );
    match error_svg(&series, &windows, detected_s, end_s) {
        Ok(svg) => {
            let _ = writeln!(h, "<figure class=\"errors\">{svg}</figure>");
        }
        Err(e) => note(
            h,
            &format!(
                "Run {}: the error-against-time plot could not be rendered: {e}",
                m.run_id
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
