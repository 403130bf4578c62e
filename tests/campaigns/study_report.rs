//! The estimator studies' report (REQ-STUDY-TRACES): the trace's estimate
//! and GNSS columns from a real in-process run of the spoof study, and the
//! report's detected/escaped plots and error-against-time panels per
//! gating option.

use std::path::Path;

use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::trace::{parse_trace, TraceRow};
use breakbench::campaign::Scenario;

/// Distance from the true position to `(x, y)`, metres.
fn err(r: &TraceRow, x: f64, y: f64) -> f64 {
    (x - r.true_x_m).hypot(y - r.true_y_m)
}

/// The row at sim time `t_s` (to the trace's millisecond).
fn at(rows: &[TraceRow], t_s: f64) -> TraceRow {
    *rows
        .iter()
        .find(|r| (r.t_s - t_s).abs() < 5e-4)
        .unwrap_or_else(|| panic!("no row at {t_s} s"))
}

#[test]
fn spoof_traces_carry_estimate_and_gnss_and_the_report_plots_them_per_gating() {
    let mut s = Scenario::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/studies/gnss_spoof_study.yaml"),
    )
    .unwrap();
    // One severity (0.5 m/s for 40 s from 5 s: a 20 m walk-off), 2 repeats,
    // 5 nominal runs per gating option.
    s.file.axes[0].values = vec![0.5];
    s.file.repeats = 2;
    s.file.nominal.runs = 5;
    s.file.escape_search.clear();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("c");
    run_campaign(
        &s,
        &CampaignOptions {
            out: out.clone(),
            jobs: 2,
            progress: false,
            budget: Default::default(),
        },
    )
    .unwrap();
    let trace = |run: &str| {
        parse_trace(&std::fs::read_to_string(out.join(format!("traces/{run}.csv"))).unwrap())
            .unwrap()
    };

    // Ungated: the last fix before the clear at 45 s (a step earlier, the
    // fix of 44.9 s) is 0.5 m/s x 39.9 s = 19.95 m off (plus the receiver's
    // noise and 0.08 s of the robot's motion), and the estimate follows it.
    let none = trace("grid_ramp_rate_m_s0.5_gating_none_r0");
    let r = at(&none, 3.0);
    assert!(err(&r, r.gnss_x_m, r.gnss_y_m) < 0.2, "{r:?}");
    assert!(err(&r, r.est_x_m, r.est_y_m) < 0.2, "{r:?}");
    let r = at(&none, 44.98);
    let g = err(&r, r.gnss_x_m, r.gnss_y_m);
    assert!(
        (g - 19.95).abs() < 0.3,
        "GNSS error {g} m at 44.98 s: {r:?}"
    );
    assert!(err(&r, r.est_x_m, r.est_y_m) > 15.0, "{r:?}");
    // After the clear the fixes are honest again.
    let r = at(&none, 50.0);
    assert!(err(&r, r.gnss_x_m, r.gnss_y_m) < 0.2, "{r:?}");
    // Both gates: the same fixes, refused; the estimate stays within 0.35 m.
    let both = trace("grid_ramp_rate_m_s0.5_gating_both_r0");
    let r = at(&both, 44.98);
    assert!(
        (err(&r, r.gnss_x_m, r.gnss_y_m) - 19.95).abs() < 0.3,
        "{r:?}"
    );
    let worst = both
        .iter()
        .filter(|r| r.est_x_m.is_finite())
        .map(|r| err(r, r.est_x_m, r.est_y_m))
        .fold(0.0f64, f64::max);
    assert!(worst < 0.35, "gated estimate error {worst} m");
    // The nominal runs have no fault: no fix is ever more than 0.2 m off.
    let nominal = trace("nominal_gating_none_000");
    assert!(nominal
        .iter()
        .filter(|r| r.gnss_x_m.is_finite())
        .all(|r| err(r, r.gnss_x_m, r.gnss_y_m) < 0.2));

    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for p in [
        "safety violation",
        "mission failure",
        "detected",
        "escaped (failed undetected)",
    ] {
        assert!(
            html.contains(&format!("<figcaption>{p} p̂ against ramp_rate_m_s")),
            "no {p} plot"
        );
    }
    // One error-against-time panel per gating option, plus the nominal run.
    assert_eq!(html.matches("<figure class=\"errors\">").count(), 5);
    for g in ["none", "mahalanobis", "consistency", "both"] {
        assert!(html.contains(&format!(
            "<h3>highest ramp_rate_m_s: ramp_rate_m_s = 0.5; gating = {g}</h3>"
        )));
    }
    assert!(!html.contains("No manifest for this run"));
}
