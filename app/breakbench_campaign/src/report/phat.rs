//! p̂ plots: p̂ against each fault axis with Wilson-interval error bars, one
//! series per value of the other axes (SVG via `plotters`).

use std::fmt::Write as _;

use plotters::prelude::*;

use super::format::{axis_label, note, others_label};
use crate::markup::xml_escape;
use crate::scenario::Scenario;
use crate::summary::{Cell, Proportion, Summary};

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

/// Horizontal offset between series of one probability plot, as a fraction of
/// the x-axis span, so that error bars at the same axis value do not overlap.
const DODGE_FRACTION: f64 = 0.012;

/// Width of a p̂ plot's chart and of its legend column, pixels.
const PLOT_W: u32 = 560;
const LEGEND_W: u32 = 170;

/// Half-width of an error bar's caps, pixels.
const CAP_PX: i32 = 5;

/// The proportion a p̂ plot shows, per cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Measure {
    /// Safety-invariant violation.
    Safety,
    /// Mission failure.
    Mission,
    /// The study's detection after the fault was applied (REQ-STUDY-DETECTION).
    Detected,
    /// A failure without a detection: the fault escaped the robot's monitoring.
    Escaped,
}

impl Measure {
    /// The predicate's name in captions and axis titles.
    fn name(self) -> &'static str {
        match self {
            Measure::Safety => "safety violation",
            Measure::Mission => "mission failure",
            Measure::Detected => "detected",
            Measure::Escaped => "escaped (failed undetected)",
        }
    }

    /// The cell's proportion; `None` for a detection measure in a cell
    /// without detection records.
    fn of(self, c: &Cell) -> Option<&Proportion> {
        match self {
            Measure::Safety => Some(&c.safety),
            Measure::Mission => Some(&c.mission),
            Measure::Detected => c.detection.as_ref().map(|d| &d.detected),
            Measure::Escaped => c.detection.as_ref().map(|d| &d.escaped),
        }
    }
}

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
    measure: Measure,
) -> Vec<(String, Vec<PPoint>)> {
    let mut out: Vec<(String, Vec<PPoint>)> = Vec::new();
    for c in &s.cells {
        let Some(&x) = c.axes.get(axis) else { continue };
        if c.n == 0 {
            continue;
        }
        let Some(p) = measure.of(c) else { continue };
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
    measure: Measure,
) -> Result<(String, usize), String> {
    let series = series_for(scenario, s, axis, measure);
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
    let pred = measure.name();
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
            .x_desc(axis_label(&scenario.file, axis))
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

pub(super) fn probability_plots(h: &mut String, scenario: &Scenario, s: &Summary) {
    h.push_str("<h2>p̂ against fault severity</h2>\n");
    let _ = writeln!(
        h,
        "<p>Points are p̂ = k/n per cell, bars the Wilson interval at confidence {}. Series at the same axis value are offset horizontally by {}% of the axis span so that their bars stay visible; the true axis value is the tick.</p>",
        s.confidence,
        DODGE_FRACTION * 100.0
    );
    let detection = s.cells.iter().any(|c| c.detection.is_some());
    if detection {
        h.push_str("<p>With the study's detection, two more plots per fault axis: p̂ that the robot detected the fault after it was applied, and p̂ that a run failed (mission failure or safety violation) with no detection after the fault: the fault escaped the robot's monitoring.</p>\n");
    }
    let measures: &[Measure] = if detection {
        &[
            Measure::Safety,
            Measure::Mission,
            Measure::Detected,
            Measure::Escaped,
        ]
    } else {
        &[Measure::Safety, Measure::Mission]
    };
    h.push_str("<div class=\"plots\">\n");
    for a in &scenario.file.axes {
        for &measure in measures {
            let pred = measure.name();
            match probability_svg(scenario, s, &a.name, measure) {
                Ok((svg, bars)) => {
                    let _ = writeln!(
                        h,
                        "<figure>{svg}<figcaption>{} p̂ against {}; {bars} cell(s) with runs; one series per value of the other axes.</figcaption></figure>",
                        xml_escape(pred),
                        xml_escape(&axis_label(&scenario.file, &a.name))
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

#[cfg(test)]
mod tests {
    use super::super::test_corpus::{corpus, scenario};
    use super::*;

    #[test]
    fn probability_plot_has_one_error_bar_per_cell_and_series_names() {
        let s = scenario();
        let summary = Summary::compute(&s.file, &s.hash, &corpus());
        let (svg, bars) = probability_svg(&s, &summary, "latency_s", Measure::Mission).unwrap();
        assert_eq!(bars, 4);
        // One p̂ marker per cell (the legend uses line samples, not circles).
        assert_eq!(svg.matches("<circle").count(), 4);
        assert!(svg.contains("odom_bias=0.4"));
        assert!(svg.contains("odom_bias=0<") || svg.contains("odom_bias=0\n"));
        assert!(svg.contains("latency_s [s]"));
        let (svg, _) = probability_svg(&s, &summary, "odom_bias", Measure::Safety).unwrap();
        assert!(svg.contains("latency_s=0.8"));
        assert!(svg.contains("odom_bias [dimensionless]"));
        // Series at mission p̂ 0 and 1 → marker y pixels differ; both series at p̂ = 0 for safety.
        let series = series_for(&s, &summary, "odom_bias", Measure::Mission);
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].0, "latency_s=0");
        assert_eq!(
            series[0].1.iter().map(|p| (p.x, p.p)).collect::<Vec<_>>(),
            vec![(0.0, 0.0), (0.4, 1.0)]
        );
    }
}
