//! The report's statistics section (REQ-STAT-DOSE, REQ-STAT-MARGIN): per
//! dose-response model a table of its fit and s* with both intervals, the
//! fitted curves with pointwise delta-method bands over the cells' p̂ and
//! Wilson bars (SVG via `plotters`), and per cell the margins' m(q) with its
//! interval and Wilks bound.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use plotters::prelude::*;

use super::format::{axis_label, note};
use crate::dose::DoseModel;
use crate::markup::xml_escape;
use crate::scenario::Scenario;
use crate::summary::{Cell, Summary};

const COLORS: [RGBColor; 4] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
];

/// Points per fitted curve.
const CURVE_POINTS: usize = 80;

fn opt(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.4}"))
}

fn at_label(at: &BTreeMap<String, f64>) -> String {
    if at.is_empty() {
        return "—".into();
    }
    at.iter()
        .map(|(a, v)| format!("{a}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cells of `m`'s variant with `at`'s values, as `(x on axis, p̂, lo, hi)`.
fn points(s: &Summary, m: &DoseModel, axis: &str, at: &BTreeMap<String, f64>) -> Vec<[f64; 4]> {
    s.cells
        .iter()
        .filter(|c| c.n > 0)
        .filter(|c| {
            m.variant
                .iter()
                .chain(at)
                .all(|(a, v)| c.axes.get(a) == Some(v))
        })
        .filter_map(|c: &Cell| {
            let p = if m.predicate == "safety" {
                &c.safety
            } else {
                &c.mission
            };
            Some([*c.axes.get(axis)?, p.p_hat, p.wilson_low, p.wilson_high])
        })
        .collect()
}

/// SVG of `m`'s fitted P along `axis`, one curve (with its band) per
/// combination of the other axes' values, the cells' p̂ with Wilson bars,
/// and s* with its Fieller interval at p*; the number of curves drawn.
fn curve_svg(
    scenario: &Scenario,
    s: &Summary,
    m: &DoseModel,
    axis: &str,
) -> Result<(String, usize), String> {
    let z = crate::stats::z_critical(s.confidence);
    let p_star = s.statistics.p_star;
    let stars: Vec<_> = m.s_star.iter().filter(|x| x.axis == axis).collect();
    let xs: Vec<f64> = stars
        .iter()
        .flat_map(|st| points(s, m, axis, &st.at).into_iter().map(|p| p[0]))
        .collect();
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(*x), b.max(*x))
        });
    if !(lo.is_finite() && hi > lo) {
        return Err("fewer than two tested values".into());
    }
    let pad = 0.05 * (hi - lo);
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (640, 380)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption(
                format!("{} P vs {axis} ({})", m.predicate, m.link.name()),
                ("sans-serif", 17),
            )
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d((lo - pad)..(hi + pad), -0.05f64..1.05f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(axis_label(&scenario.file, axis))
            .y_desc(format!("P({})", m.predicate))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(LineSeries::new(
                [(lo - pad, p_star), (hi + pad, p_star)],
                RGBColor(150, 150, 150).stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
        for (i, st) in stars.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let grid: Vec<f64> = (0..=CURVE_POINTS)
                .map(|j| lo + (hi - lo) * j as f64 / CURVE_POINTS as f64)
                .collect();
            let mut curve = Vec::new();
            let mut band_lo = Vec::new();
            let mut band_hi = Vec::new();
            for x in grid {
                let mut pt = st.at.clone();
                pt.insert(axis.to_string(), x);
                let Some((eta, var)) = m.eta(&pt) else {
                    continue;
                };
                let se = var.max(0.0).sqrt();
                curve.push((x, m.link.mu(eta)));
                band_lo.push((x, m.link.mu(eta - z * se)));
                band_hi.push((x, m.link.mu(eta + z * se)));
            }
            let mut poly = band_lo.clone();
            poly.extend(band_hi.iter().rev());
            chart
                .draw_series(std::iter::once(Polygon::new(
                    poly,
                    color.mix(0.15).filled(),
                )))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(LineSeries::new(curve, color.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(at_label(&st.at))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                });
            let pts = points(s, m, axis, &st.at);
            chart
                .draw_series(pts.iter().map(|p| {
                    PathElement::new(vec![(p[0], p[2]), (p[0], p[3])], color.stroke_width(1))
                }))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(
                    pts.iter()
                        .map(|p| Circle::new((p[0], p[1]), 4, color.filled())),
                )
                .map_err(|e| e.to_string())?;
            if let (Some(v), Some(a), Some(b)) = (st.value, st.fieller.low, st.fieller.high) {
                let (a, b) = (a.max(lo - pad), b.min(hi + pad));
                chart
                    .draw_series(LineSeries::new(
                        [(a, p_star), (b, p_star)],
                        color.stroke_width(4),
                    ))
                    .map_err(|e| e.to_string())?;
                if (lo - pad..=hi + pad).contains(&v) {
                    chart
                        .draw_series(std::iter::once(TriangleMarker::new(
                            (v, p_star),
                            7,
                            color.filled(),
                        )))
                        .map_err(|e| e.to_string())?;
                }
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok((buf, stars.len()))
}

/// The model table's rows and the curves' figures.
pub(super) fn section(h: &mut String, scenario: &Scenario, s: &Summary) {
    if s.dose_response.is_empty() {
        return;
    }
    let st = &s.statistics;
    h.push_str("<h2>Dose-response: s* and its intervals</h2>\n");
    let _ = writeln!(
        h,
        "<p>Per predicate a binomial GLM ({} link) of the cells' violation counts on the fault axes and their interaction, fitted by IRLS; s* is the severity at which the fitted P reaches p* = {} along one axis at the given values of the others, with delta-method and Fieller intervals at confidence {}. Bands are pointwise delta-method intervals of the fitted P, points the cells' p̂ with Wilson bars. Read every figure against the run-to-run noise of the fault-free runs: nominal spread sd {:.4} m of the final goal distance over {} runs. The model assumes the runs of a cell are independent and the response is monotone and smooth in the axes; a lack-of-fit p below 0.05 says the curve does not describe the cells, and an extrapolated s* lies outside the tested values.</p>",
        st.link.name(),
        st.p_star,
        s.confidence,
        s.nominal.sd_all,
        s.nominal.n
    );
    h.push_str("<table id=\"dose\"><tr><th>predicate</th><th>variant</th><th>status</th><th>deviance (df), lack-of-fit p</th><th>interaction z, p</th><th>axis</th><th>at</th><th>s*</th><th>delta interval</th><th>Fieller interval</th></tr>\n");
    for m in &s.dose_response {
        let var = xml_escape(&at_label(&m.variant));
        let fit = match (m.deviance, m.df_resid) {
            (Some(d), Some(df)) => format!("{d:.3} ({df}), {}", opt(m.lack_of_fit_p)),
            _ => "—".into(),
        };
        let inter = m
            .interaction
            .iter()
            .map(|w| format!("{}: {:.2}, {:.3}", w.term, w.z, w.p_value))
            .collect::<Vec<_>>()
            .join("; ");
        for x in &m.s_star {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{var}</td><td>{}</td><td>{fit}</td><td>{}</td><td>{}</td><td>{}</td><td>{}{}</td><td>[{}, {}]</td><td>[{}, {}]</td></tr>",
                m.predicate,
                m.status,
                xml_escape(&inter),
                xml_escape(&x.axis),
                xml_escape(&at_label(&x.at)),
                opt(x.value),
                if x.extrapolated { " (extrapolated)" } else { "" },
                opt(x.delta.low),
                opt(x.delta.high),
                opt(x.fieller.low),
                opt(x.fieller.high)
            );
        }
        for b in &m.separated {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{var}</td><td>separated</td><td>—</td><td>—</td><td>{}</td><td>{}</td><td colspan=\"3\">{}</td></tr>",
                m.predicate,
                xml_escape(&b.axis),
                xml_escape(&at_label(&b.at)),
                xml_escape(&b.text)
            );
        }
        if m.status == "not_identifiable" {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{var}</td><td>not identifiable</td><td colspan=\"7\">fewer cells than coefficients, or dependent columns</td></tr>",
                m.predicate
            );
        }
    }
    h.push_str("</table>\n<div class=\"plots\">\n");
    for m in s.dose_response.iter().filter(|m| m.status == "fitted") {
        for axis in m.axes() {
            match curve_svg(scenario, s, m, &axis) {
                Ok((svg, n)) => {
                    let _ = writeln!(
                        h,
                        "<figure>{svg}<figcaption>{} [{}]: fitted P against {} with its band, {n} curve(s); the thick segment at p* is s*'s Fieller interval, the triangle s*.</figcaption></figure>",
                        m.predicate,
                        xml_escape(&at_label(&m.variant)),
                        xml_escape(&axis)
                    );
                }
                Err(e) => note(
                    h,
                    &format!(
                        "The {} curve against {axis} could not be drawn: {e}",
                        m.predicate
                    ),
                ),
            }
        }
    }
    h.push_str("</div>\n");
    margins_table(h, s);
}

/// Per cell and margin: m(q), its interval, the Wilks bound.
fn margins_table(h: &mut String, s: &Summary) {
    if s.cells.iter().all(|c| c.margins.is_empty()) {
        return;
    }
    let st = &s.statistics;
    let _ = writeln!(
        h,
        "<h2>Margins</h2>\n<p>Per cell and invariant, the signed margin (m, negative: violated) over the cell's runs: its least value, m(q) for q = {} with its order-statistic interval at confidence {} (— where too few runs bound that end), and Wilks' lower tolerance bound ({} of runs above it with confidence {}; it needs the number of runs shown). Joint: runs with two or more margins at or below their m(q). Nothing here assumes a distribution; the margins of one run are not independent of each other.</p>",
        st.margin_q, s.confidence, st.tolerance_coverage, st.tolerance_confidence
    );
    h.push_str("<table id=\"margins\"><tr><th>cell</th><th>margin</th><th>n</th><th>min</th><th>m(q)</th><th>interval</th><th>Wilks bound (runs needed)</th><th>joint</th></tr>\n");
    for c in &s.cells {
        for (name, m) in &c.margins {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.4}</td><td>{:.4}</td><td>[{}, {}]</td><td>{} ({})</td><td>{}</td></tr>",
                xml_escape(&at_label(&c.axes)),
                xml_escape(name),
                m.n,
                m.min_m,
                m.quantile_m,
                opt(m.quantile_low_m),
                opt(m.quantile_high_m),
                opt(m.tolerance_bound_m),
                m.runs_needed,
                c.sub_margin_joint.unwrap_or(0)
            );
        }
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::super::test_corpus::{corpus, scenario};
    use super::*;
    use crate::dose::{dose_model, CellCounts};
    use crate::glm::Link;

    #[test]
    fn a_fitted_model_gets_its_rows_curves_and_bands() {
        let s = scenario();
        let mut summary = Summary::compute(&s.file, &s.hash, &corpus());
        // the corpus' grid is separated: its models are brackets
        assert!(summary
            .dose_response
            .iter()
            .all(|m| m.status == "separated"));
        let mut h = String::new();
        section(&mut h, &s, &summary);
        assert!(h.contains("<table id=\"dose\">"));
        assert!(!h.contains("<svg"), "no curve for a separated model");
        // a fitted model on the corpus' axes (hand-made counts of 20 runs)
        let counts: Vec<CellCounts> = [(0.0, 0.0, 2), (0.0, 0.4, 5), (0.8, 0.0, 9), (0.8, 0.4, 16)]
            .iter()
            .map(|&(l, b, k)| CellCounts {
                axes: [("latency_s".to_string(), l), ("odom_bias".to_string(), b)]
                    .into_iter()
                    .collect(),
                n: 20,
                k,
            })
            .collect();
        let m = dose_model("safety", BTreeMap::new(), &counts, Link::Logit, 0.05, 0.95);
        assert_eq!(m.status, "fitted");
        summary.dose_response = vec![m];
        let mut h = String::new();
        section(&mut h, &s, &summary);
        // one row per s* (2 along latency, 2 along bias), one figure per axis
        let table = &h[h.find("<table id=\"dose\">").unwrap()..];
        let table = &table[..table.find("</table>").unwrap()];
        assert_eq!(table.matches("<tr><td>safety</td>").count(), 4);
        assert_eq!(h.matches("<figure>").count(), 2);
        // a band (polygon) and a curve per value of the other axis
        assert_eq!(h.matches("<polygon").count(), 4);
        assert!(h.contains("odom_bias=0.4"));
        assert!(h.contains("nominal spread sd"));
    }
}
