//! `search_<name>.html`: one severity search as a reader sees it
//! (REQ-STAT-ADAPTIVE, REQ-STUDY-ESCAPE-SEARCH): the answer, every probe
//! **in the order the design chose it** (its number, severity, why it was
//! chosen, k/n, p̂ and Wilson interval), and a figure of the probes' p̂ with
//! Wilson bars, each labelled with its number. For an adaptive search the
//! figure adds the final GLM's fitted curve with its pointwise delta-method
//! band, the target p* and s* with Fieller's interval.
//!
//! Everything is read from the [`SearchRecord`]; the one thing recomputed is
//! the final fit (the probes pooled per severity, [`crate::glm::fit`]),
//! which is what the design's last step computed, so the s* drawn is the
//! record's.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::format::note;
use super::CSS;
use crate::glm::{self, Link, Obs};
use crate::markup::xml_escape;
use crate::search::{Method, Probe, SearchRecord};

/// Points of the fitted curve.
const CURVE_POINTS: usize = 120;

/// Probes pooled per severity, ascending: `(s, n, k)`.
fn pooled(probes: &[Probe]) -> Vec<(f64, u64, u64)> {
    crate::design::adaptive::pool(probes.iter().map(|p| (p.value, p.n, p.k)))
}

/// The final fit of an adaptive search: coefficients and covariance, if the
/// GLM has a finite fit with a rising slope.
fn final_fit(rec: &SearchRecord, link: Link) -> Option<glm::Fit> {
    if rec.search.method != Method::Adaptive {
        return None;
    }
    let obs: Vec<Obs> = pooled(&rec.probes)
        .iter()
        .map(|&(s, n, k)| Obs {
            x: vec![1.0, s],
            k: k as f64,
            n: n as f64,
        })
        .collect();
    glm::fit(&obs, link).ok().filter(|f| f.coef[1] > 0.0)
}

/// The figure: probes (numbered), and for an adaptive search the curve, its
/// band, p* and s* with Fieller's interval.
fn figure(rec: &SearchRecord, link: Link) -> Result<String, String> {
    let s = &rec.search;
    let (lo, hi) = (s.lo.min(s.hi), s.lo.max(s.hi));
    if hi <= lo || hi.is_nan() || lo.is_nan() {
        return Err("the search's range is empty".into());
    }
    let pad = 0.05 * (hi - lo);
    let z = crate::stats::z_critical(rec.confidence);
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (680, 400)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption(
                format!("P({}) vs {}", s.event.name(), s.axis),
                ("sans-serif", 17),
            )
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d((lo - pad)..(hi + pad), -0.05f64..1.05f64)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(s.axis.clone())
            .y_desc(format!("P({})", s.event.name()))
            .light_line_style(RGBColor(235, 235, 235))
            .draw()
            .map_err(|e| e.to_string())?;
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(LineSeries::new(
                [(lo - pad, s.p), (hi + pad, s.p)],
                grey.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
        let blue = RGBColor(0, 114, 178);
        if let Some(f) = final_fit(rec, link) {
            let (mut curve, mut band_lo, mut band_hi) = (Vec::new(), Vec::new(), Vec::new());
            for j in 0..=CURVE_POINTS {
                let x = lo + (hi - lo) * j as f64 / CURVE_POINTS as f64;
                let eta = f.coef[0] + f.coef[1] * x;
                let var = f.cov[0][0] + 2.0 * x * f.cov[0][1] + x * x * f.cov[1][1];
                let se = var.max(0.0).sqrt();
                curve.push((x, link.mu(eta)));
                band_lo.push((x, link.mu(eta - z * se)));
                band_hi.push((x, link.mu(eta + z * se)));
            }
            let mut poly = band_lo;
            poly.extend(band_hi.into_iter().rev());
            chart
                .draw_series(std::iter::once(Polygon::new(poly, blue.mix(0.15).filled())))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(LineSeries::new(curve, blue.stroke_width(2)))
                .map_err(|e| e.to_string())?;
        }
        let star = rec
            .outcome
            .as_ref()
            .and_then(|o| o.adaptive.as_ref())
            .and_then(|a| a.s_star.as_ref());
        if let Some(st) = star {
            if let (Some(a), Some(b)) = (st.fieller.low, st.fieller.high) {
                chart
                    .draw_series(LineSeries::new(
                        [(a.max(lo - pad), s.p), (b.min(hi + pad), s.p)],
                        blue.stroke_width(4),
                    ))
                    .map_err(|e| e.to_string())?;
            }
            if let Some(v) = st.value.filter(|v| (lo - pad..=hi + pad).contains(v)) {
                chart
                    .draw_series(std::iter::once(TriangleMarker::new(
                        (v, s.p),
                        7,
                        blue.filled(),
                    )))
                    .map_err(|e| e.to_string())?;
            }
        }
        let orange = RGBColor(213, 94, 0);
        for (i, p) in rec.probes.iter().enumerate() {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(p.value, p.wilson_low), (p.value, p.wilson_high)],
                    orange.stroke_width(1),
                )))
                .map_err(|e| e.to_string())?;
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((p.value, p.p_hat))
                        + Circle::new((0, 0), 4, orange.filled())
                        + Text::new(format!("{}", i + 1), (5, -14), ("sans-serif", 12)),
                ))
                .map_err(|e| e.to_string())?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(buf)
}

/// The probes' table, in the order run.
fn probes_table(h: &mut String, rec: &SearchRecord) {
    h.push_str("<table id=\"probes\">\n<tr><th>#</th><th>severity</th><th class=\"l\">chosen</th><th>k/n</th><th>p̂</th><th>Wilson</th><th class=\"l\">side of p</th></tr>\n");
    for (i, p) in rec.probes.iter().enumerate() {
        let chosen = p.chosen.as_deref().unwrap_or(match i {
            0 => "lo",
            1 => "hi",
            _ => "bisect",
        });
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td class=\"l\">{}</td><td>{}/{}</td><td>{:.3}</td><td>[{:.3}, {:.3}]</td><td class=\"l\">{}</td></tr>",
            i + 1,
            p.value,
            xml_escape(chosen),
            p.k,
            p.n,
            p.p_hat,
            p.wilson_low,
            p.wilson_high,
            if p.at_or_above_target { "at or above" } else { "below" }
        );
    }
    h.push_str("</table>\n");
}

/// Renders `search_<name>.html` for `rec`; `link` is the scenario's GLM
/// link (used only by an adaptive search's curve).
pub fn search_html(rec: &SearchRecord, link: Link) -> String {
    let s = &rec.search;
    let mut h = String::with_capacity(64 * 1024);
    let title = format!("Breakbench search: {} ({})", s.name, rec.scenario_name);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{t}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{t}</h1>\n",
        t = xml_escape(&title)
    );
    let _ = writeln!(
        h,
        "<table class=\"meta\"><tr><th class=\"l\">scenario hash</th><td><code>{}</code></td></tr><tr><th class=\"l\">axis</th><td>{} in [{}, {}]</td></tr><tr><th class=\"l\">event, target p</th><td>{}, {}</td></tr><tr><th class=\"l\">method</th><td>{}</td></tr><tr><th class=\"l\">confidence</th><td>{}</td></tr></table>",
        xml_escape(&rec.scenario_hash),
        xml_escape(&s.axis),
        s.lo,
        s.hi,
        s.event.name(),
        s.p,
        match s.method {
            Method::Bisect => "bisect",
            Method::Adaptive => "adaptive (sequential, narrowest expected Fieller interval; docs/studies.md)",
        },
        rec.confidence
    );
    match &rec.outcome {
        Some(o) => {
            let _ = writeln!(h, "<p><b>{}</b></p>", xml_escape(&o.statement));
        }
        None => note(&mut h, "The search has not finished: the probes so far."),
    }
    h.push_str("<h2>Probes, in the order chosen</h2>\n");
    probes_table(&mut h, rec);
    match figure(rec, link) {
        Ok(svg) => {
            let _ = writeln!(
                h,
                "<div class=\"plots\"><figure>{svg}<figcaption>Each probe's p̂ with its Wilson interval, labelled with its number in the table. {}</figcaption></figure></div>",
                if s.method == Method::Adaptive {
                    "The curve is the final GLM fit of the pooled probes with its pointwise delta-method band; the thick segment on p* is Fieller's interval on s*, the triangle s*. The band and the interval are the final fit's nominal ones: they do not account for the design having chosen its points from earlier outcomes."
                } else {
                    "Bisection: the grey line is the target p."
                }
            );
        }
        Err(e) => note(&mut h, &format!("figure not drawn: {e}")),
    }
    h.push_str("</body>\n</html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{ProbeRun, SearchOutcome, SEARCH_SCHEMA};

    fn probe(value: f64, n: u64, k: u64, chosen: &str) -> Probe {
        let runs = (0..n)
            .map(|r| ProbeRun {
                repeat: r as usize,
                seed: r,
                mission_failure: r < k,
                safety_violation: r < k,
                detected: false,
                event: r < k,
            })
            .collect();
        let (lo, hi) = crate::stats::wilson(k, n, 0.95);
        Probe {
            value,
            n,
            k,
            p_hat: k as f64 / n as f64,
            wilson_low: lo,
            wilson_high: hi,
            at_or_above_target: k as f64 / n as f64 >= 0.05,
            chosen: Some(chosen.into()),
            runs,
        }
    }

    fn record(method: &str) -> SearchRecord {
        let search: crate::search::EscapeSearch = serde_yaml_ng::from_str(&format!(
            "{{name: lat, axis: latency_s, lo: 0.0, hi: 1.0, fixed: {{}}, event: safety_violation, p: 0.05, repeats: 10, steps: 4, spacing: linear, method: {method}}}"
        ))
        .unwrap();
        SearchRecord {
            schema: SEARCH_SCHEMA.into(),
            scenario_name: "corridor".into(),
            scenario_hash: "abc".into(),
            confidence: 0.95,
            search,
            provenance: crate::runner::provenance(),
            probes: vec![
                probe(0.0, 10, 0, "start"),
                probe(1.0, 10, 10, "start"),
                probe(0.5, 10, 3, "bisect"),
                probe(0.3, 10, 1, "fieller"),
                probe(0.7, 10, 8, "fieller"),
            ],
            outcome: Some(SearchOutcome {
                from: 0.3,
                to: 0.5,
                crossing: true,
                resolved: false,
                statement: "P(safety_violation) = 0.05 at latency_s = 0.31".into(),
                adaptive: None,
            }),
        }
    }

    /// The table lists the probes in the order run, with why each was
    /// chosen; the adaptive figure carries the fitted curve, a bisection's
    /// does not.
    #[test]
    fn the_probes_are_listed_in_the_order_chosen_with_the_fit_only_when_adaptive() {
        let h = search_html(&record("adaptive"), Link::Logit);
        let t = &h[h.find("<table id=\"probes\">").unwrap()..];
        let t = &t[..t.find("</table>").unwrap()];
        let rows: Vec<&str> = t.split("<tr><td>").skip(1).collect();
        assert_eq!(rows.len(), 5);
        assert!(
            rows[2].starts_with("3</td><td>0.5</td><td class=\"l\">bisect</td><td>3/10</td>"),
            "{}",
            rows[2]
        );
        assert!(
            rows[3].starts_with("4</td><td>0.3</td><td class=\"l\">fieller</td><td>1/10</td>"),
            "{}",
            rows[3]
        );
        assert!(h.contains("<svg"));
        // Five numbered probe labels in the figure.
        let texts: Vec<&str> = h
            .split("<text")
            .skip(1)
            .map(|t| &t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()])
            .collect();
        for i in 1..=5 {
            assert!(
                texts.iter().any(|t| t.trim() == i.to_string()),
                "label {i} in {texts:?}"
            );
        }
        let fit = final_fit(&record("adaptive"), Link::Logit).expect("a rising fit");
        assert!(fit.coef[1] > 0.0);
        assert!(final_fit(&record("bisect"), Link::Logit).is_none());
        let b = search_html(&record("bisect"), Link::Logit);
        assert!(b.contains("Bisection: the grey line"));
        assert!(!b.contains("final GLM fit"));
    }

    /// Pooling adds the counts of a severity probed twice.
    #[test]
    fn probes_at_one_severity_are_pooled_for_the_fit() {
        let mut r = record("adaptive");
        r.probes.push(probe(0.5, 10, 5, "fieller"));
        let p = pooled(&r.probes);
        assert_eq!(p.len(), 5);
        assert_eq!(p[2], (0.5, 20, 8));
    }
}
