//! The severity search (REQ-STUDY-ESCAPE-SEARCH) on the shipped GNSS spoof
//! study, small: the bracket it finds, its resume, and the refusals at load.

use std::path::Path;

use breakbench::campaign::manifest::Provenance;
use breakbench::campaign::search::{record_path, run_search, SearchOptions, SearchRecord};
use breakbench::campaign::Scenario;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/scenarios/studies/gnss_spoof_study.yaml"
);

fn provenance() -> Provenance {
    Provenance {
        git_commit: "test".into(),
        git_dirty: false,
        crate_versions: Default::default(),
    }
}

/// The shipped study with its `escape_search:` replaced by `searches`
/// (YAML, indented as list items), written next to it so the relative
/// paths hold.
fn with_search(tag: &str, searches: &str) -> Result<Scenario, String> {
    let text = std::fs::read_to_string(FILE).unwrap();
    let cut = text
        .find("escape_search:")
        .expect("the study ships searches");
    load_text(
        FILE,
        tag,
        format!("{}escape_search:\n{searches}", &text[..cut]),
    )
}

/// `text` loaded as a scenario written next to `file` (so its relative
/// paths hold), then removed.
fn load_text(file: &str, tag: &str, text: String) -> Result<Scenario, String> {
    let path = Path::new(file).with_file_name(format!(".{tag}.tmp.yaml"));
    std::fs::write(&path, text).unwrap();
    let s = Scenario::load(&path);
    std::fs::remove_file(&path).unwrap();
    s.map_err(|e| e.to_string())
}

const SMALL: &str = "  - name: small
    axis: ramp_rate_m_s
    lo: 0.5
    hi: 50.0
    fixed: { gating: mahalanobis }
    repeats: 2
    steps: 3
";

fn opts(out: &Path) -> SearchOptions {
    SearchOptions {
        out: out.to_path_buf(),
        jobs: 2,
        quiet: true,
    }
}

#[test]
fn the_search_brackets_the_largest_ramp_the_mahalanobis_gate_lets_escape() {
    let s = with_search("small", SMALL).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let r = run_search(
        &s,
        &s.file.escape_search[0],
        &provenance(),
        &opts(dir.path()),
    )
    .unwrap();
    // lo, hi, then the geometric midpoints 5, 1.58114, 2.81171 (6 digits)
    let values: Vec<f64> = r.probes.iter().map(|p| p.value).collect();
    assert_eq!(values, vec![0.5, 50.0, 5.0, 1.58114, 2.81171]);
    // every run at 0.5 m/s fails its mission undetected; at 50 m/s the gate
    // detects every run and the mission completes
    let (lo, hi) = (&r.probes[0], &r.probes[1]);
    assert_eq!((lo.k, lo.n), (2, 2));
    assert!(lo.runs.iter().all(|x| x.mission_failure && !x.detected));
    assert_eq!((hi.k, hi.n), (0, 2));
    assert!(hi.runs.iter().all(|x| !x.mission_failure && x.detected));
    // Wilson at 95 %, n = 2: k = 2 -> [0.342, 1]
    assert!((lo.wilson_low - 0.3424).abs() < 1e-3, "{}", lo.wilson_low);
    let o = r.outcome.as_ref().unwrap();
    assert!(o.crossing);
    assert_eq!((o.from, o.to), (1.58114, 2.81171));
    // n = 2 cannot exclude 0.5 on either side
    assert!(!o.resolved);
    assert!(
        o.statement.starts_with(
            "P(escaped) crosses 0.5 between ramp_rate_m_s = 1.58114 (2/2 (1.00, [0.34, 1.00])) and 2.81171 (0/2"
        ),
        "{}",
        o.statement
    );
    // the record on disk is the returned one
    let stored: SearchRecord =
        serde_json::from_slice(&std::fs::read(record_path(dir.path(), "small")).unwrap()).unwrap();
    assert_eq!(stored, r);
}

#[test]
fn a_rerun_resumes_from_the_stored_probes_and_a_changed_search_starts_over() {
    let s = with_search("resume", SMALL).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = record_path(dir.path(), "small");
    let r = run_search(
        &s,
        &s.file.escape_search[0],
        &provenance(),
        &opts(dir.path()),
    )
    .unwrap();
    // Tamper with a stored probe's runs: a rerun that reuses it keeps the
    // tampered events (nothing is run again; its count is recomputed from
    // them); the bisection then follows it.
    let mut t = r.clone();
    for run in &mut t.probes[2].runs {
        run.event = true;
    }
    t.outcome = None;
    std::fs::write(&path, serde_json::to_vec(&t).unwrap()).unwrap();
    let again = run_search(
        &s,
        &s.file.escape_search[0],
        &provenance(),
        &opts(dir.path()),
    )
    .unwrap();
    assert_eq!(again.probes[2].k, 2, "the stored probe was reused");
    assert_eq!(
        again.probes[3].value, 15.8114,
        "the next midpoint follows it"
    );
    // the same search with other repeats is another search: it starts over
    let s3 = with_search("resume3", &SMALL.replace("repeats: 2", "repeats: 3")).unwrap();
    let fresh = run_search(
        &s3,
        &s3.file.escape_search[0],
        &provenance(),
        &opts(dir.path()),
    )
    .unwrap();
    assert_eq!(fresh.probes[2].value, 5.0);
    assert_eq!((fresh.probes[2].k, fresh.probes[2].n), (0, 3));
}

#[test]
fn no_crossing_is_reported_as_such() {
    let s = with_search(
        "nocross",
        "  - name: both
    axis: ramp_rate_m_s
    lo: 0.02
    hi: 0.5
    fixed: { gating: both }
    repeats: 2
    steps: 3
",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let r = run_search(
        &s,
        &s.file.escape_search[0],
        &provenance(),
        &opts(dir.path()),
    )
    .unwrap();
    assert_eq!(r.probes.len(), 2, "no bisection without a crossing");
    let o = r.outcome.unwrap();
    assert!(!o.crossing);
    assert!(
        o.statement
            .starts_with("no crossing of 0.5 in [0.02, 0.5]: P(escaped) is 0/2"),
        "{}",
        o.statement
    );
}

#[test]
fn a_bad_search_is_refused_at_load_naming_the_field() {
    let bad =
        |tag: &str, from: &str, to: &str| with_search(tag, &SMALL.replace(from, to)).unwrap_err();
    let e = bad("axis", "axis: ramp_rate_m_s", "axis: ramp_rate");
    assert!(
        e.contains("field 'escape_search[0].axis': unknown fault axis 'ramp_rate' (the scenario has ramp_rate_m_s)"),
        "{e}"
    );
    let e = bad(
        "fixed",
        "fixed: { gating: mahalanobis }",
        "fixed: { gating: chi2 }",
    );
    assert!(
        e.contains("field 'escape_search[0].fixed.gating': navigator axis 'gating' needs one of its values: none, mahalanobis, consistency, both"),
        "{e}"
    );
    let e = bad("lo", "lo: 0.5", "lo: 0");
    assert!(
        e.contains("field 'escape_search[0].lo': 0 must be > 0 for spacing: log"),
        "{e}"
    );
    let e = bad("order", "hi: 50.0", "hi: 0.1");
    assert!(e.contains("field 'escape_search[0].hi'"), "{e}");
    let e = bad("p", "repeats: 2", "repeats: 2\n    p: 1.0");
    assert!(
        e.contains("field 'escape_search[0].p': 1.0 is outside [0.01, 0.99]"),
        "{e}"
    );
    let e = bad("unknown", "steps: 3", "steps: 3\n    stpes: 3");
    assert!(e.contains("stpes"), "{e}");
    // the study's own file: every shipped search loads
    let s = Scenario::load(Path::new(FILE)).unwrap();
    assert_eq!(s.file.escape_search.len(), 2);
}

/// A search on one fault axis of the corridor study with the other fault
/// axis held at a number (the in-process corridor study has no detection:
/// the event is the mission failure).
#[test]
fn another_fault_axis_is_held_at_its_fixed_number() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/corridor_study.yaml");
    let text = std::fs::read_to_string(file).unwrap();
    let with = |tag: &str, fixed: &str| {
        let t = format!(
            "{text}escape_search:\n  - name: latency\n    axis: latency_s\n    lo: 0.05\n    hi: 0.8\n    fixed: {fixed}\n    event: mission_failure\n    repeats: 2\n    steps: 1\n"
        );
        let path = Path::new(file).with_file_name(format!(".{tag}.tmp.yaml"));
        std::fs::write(&path, t).unwrap();
        let s = Scenario::load(&path);
        std::fs::remove_file(&path).unwrap();
        s.map_err(|e| e.to_string())
    };
    let s = with("fixed_ok", "{ odom_bias: 0.2 }").unwrap();
    let x = &s.file.escape_search[0];
    let cell = x.cell(&s.file, 0.4);
    assert_eq!(cell.get("latency_s"), Some(&0.4));
    assert_eq!(cell.get("odom_bias"), Some(&0.2));
    let e = with("fixed_missing", "{}").unwrap_err();
    assert!(
        e.contains(
            "field 'escape_search[0].fixed.odom_bias': fault axis 'odom_bias' needs a number"
        ),
        "{e}"
    );
    let e = with("fixed_searched", "{ odom_bias: 0.2, latency_s: 0.1 }").unwrap_err();
    assert!(
        e.contains("field 'escape_search[0].fixed.latency_s': is the searched axis"),
        "{e}"
    );
    let e = with("fixed_label", "{ odom_bias: high }").unwrap_err();
    assert!(
        e.contains(
            "field 'escape_search[0].fixed.odom_bias': fault axis 'odom_bias' needs a number"
        ),
        "{e}"
    );
    let t = text.clone() + "escape_search:\n  - name: esc\n    axis: latency_s\n    lo: 0.05\n    hi: 0.8\n    fixed: { odom_bias: 0.2 }\n    repeats: 2\n    steps: 1\n";
    let path = Path::new(file).with_file_name(".no_detection.tmp.yaml");
    std::fs::write(&path, t).unwrap();
    let e = Scenario::load(&path).unwrap_err().to_string();
    std::fs::remove_file(&path).unwrap();
    assert!(
        e.contains("field 'escape_search[0].event': needs the scenario's detection:"),
        "{e}"
    );
}

/// The corridor interaction study's adaptive search (REQ-STAT-ADAPTIVE),
/// with its width and budget changed by `from` → `to`.
fn adaptive(tag: &str, from: &str, to: &str) -> Result<Scenario, String> {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/studies/corridor_interaction_study.yaml"
    );
    load_text(
        file,
        tag,
        std::fs::read_to_string(file).unwrap().replace(from, to),
    )
}

#[test]
fn the_adaptive_search_records_its_choices_stops_at_its_width_and_resumes() {
    // a wide target: the start, bisection while separated, then batches where Fieller's interval narrows most
    let s = adaptive(
        "adaptive_small",
        "target_width: 0.0345",
        "target_width: 0.08",
    )
    .unwrap();
    let x = &s.file.escape_search[0];
    let dir = tempfile::tempdir().unwrap();
    let r = run_search(&s, x, &provenance(), &opts(dir.path())).unwrap();
    let chosen: Vec<&str> = r
        .probes
        .iter()
        .map(|p| p.chosen.as_deref().unwrap())
        .collect();
    assert_eq!(&chosen[..3], ["start", "start", "bisect"], "{chosen:?}");
    assert_eq!(r.probes[2].value, 0.5);
    assert!(chosen.contains(&"fieller"), "{chosen:?}");
    // every batch is new runs: repeats 0-9, 10-19, ...
    for (j, p) in r.probes.iter().enumerate() {
        let reps: Vec<usize> = p.runs.iter().map(|r| r.repeat).collect();
        assert_eq!(reps, (10 * j..10 * j + 10).collect::<Vec<_>>());
    }
    let o = r.outcome.as_ref().unwrap();
    let a = o.adaptive.as_ref().unwrap();
    assert_eq!(a.stop, "width");
    assert_eq!(a.runs, 10 * r.probes.len() as u64);
    let ss = a.s_star.as_ref().unwrap();
    assert_eq!(ss.axis, "latency_s");
    assert_eq!(ss.at.get("odom_bias"), Some(&0.0));
    let f = &ss.fieller;
    assert!(f.high.unwrap() - f.low.unwrap() <= 0.08);
    assert_eq!((o.from, o.to), (f.low.unwrap(), f.high.unwrap()));
    assert!(o.resolved && o.crossing);
    // the collisions start between 0.5 s (0/10 in every run of the study) and 0.7 s
    assert!((0.5..0.7).contains(&ss.value.unwrap()), "{ss:?}");
    // a rerun runs nothing new and writes the same record
    let before = std::fs::read(record_path(dir.path(), &x.name)).unwrap();
    let again = run_search(&s, x, &provenance(), &opts(dir.path())).unwrap();
    assert_eq!(again, r);
    assert_eq!(
        std::fs::read(record_path(dir.path(), &x.name)).unwrap(),
        before
    );
    // a budget below what the width needs: stopped, not resolved
    let s = adaptive("adaptive_budget", "steps: 40", "steps: 2").unwrap();
    let r = run_search(
        &s,
        &s.file.escape_search[0],
        &provenance(),
        &opts(dir.path()),
    )
    .unwrap();
    let o = r.outcome.unwrap();
    assert_eq!(o.adaptive.unwrap().stop, "budget");
    assert!(!o.resolved);
    assert!(
        o.statement.contains("the budget of 40 runs spent"),
        "{}",
        o.statement
    );
}

#[test]
fn an_adaptive_search_without_its_width_or_on_log_spacing_is_refused() {
    let e = adaptive("no_width", "    target_width: 0.0345\n", "").unwrap_err();
    assert!(
        e.contains("field 'escape_search[0].target_width': method: adaptive needs the width"),
        "{e}"
    );
    let e = adaptive("log", "spacing: linear", "spacing: log").unwrap_err();
    assert!(
        e.contains("field 'escape_search[0].spacing': method: adaptive needs spacing: linear"),
        "{e}"
    );
    let e = adaptive("wide", "target_width: 0.0345", "target_width: 2.0").unwrap_err();
    assert!(
        e.contains("field 'escape_search[0].target_width': 2.0 is outside (0, hi - lo = 1]"),
        "{e}"
    );
    let e = adaptive(
        "bisect_width",
        "steps: 40\n    spacing: linear\n    method: adaptive",
        "steps: 3\n    spacing: linear\n    method: bisect",
    )
    .unwrap_err();
    assert!(
        e.contains("field 'escape_search[0].target_width': is for method: adaptive"),
        "{e}"
    );
}
