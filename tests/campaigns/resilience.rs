//! The resilience-test path end to end, in-process: the shipped
//! scenarios/tests/scan_loss_at_obstacle.yaml loaded, its fault run executed
//! (trigger on the true pose, fault into the schedule, expectations,
//! verdict class, timeline in the manifest), and its negative variants: a
//! trigger that never fires is `precondition_failed`, a fault acknowledged
//! without effect is `invalid`, and neither is counted in p̂.

use std::path::Path;

use breakbench::campaign::manifest::{Manifest, Provenance, RunKind};
use breakbench::campaign::plan::plan;
use breakbench::campaign::run::execute;
use breakbench::campaign::{Scenario, Summary};
use breakbench_oracle::expect::VerdictClass;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/scenarios/tests/scan_loss_at_obstacle.yaml"
);

fn provenance() -> Provenance {
    Provenance {
        git_commit: "test".into(),
        git_dirty: false,
        crate_versions: Default::default(),
    }
}

fn run(s: &Scenario, run_id: &str) -> Manifest {
    let spec = plan(s)
        .into_iter()
        .find(|r| r.run_id == run_id)
        .unwrap_or_else(|| panic!("no run {run_id}"));
    execute(s, &spec, &provenance()).unwrap().manifest
}

/// The shipped test with its YAML edited by `edit` (written next to it so
/// the relative paths hold).
fn variant(name: &str, edit: impl Fn(String) -> String) -> Scenario {
    let text = edit(std::fs::read_to_string(FILE).unwrap());
    let path = Path::new(FILE).with_file_name(format!(".{name}.tmp.yaml"));
    std::fs::write(&path, text).unwrap();
    let s = Scenario::load(&path);
    std::fs::remove_file(&path).unwrap();
    s.unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn scan_loss_at_obstacle_fault_run() {
    let s = Scenario::load(Path::new(FILE)).unwrap_or_else(|e| panic!("{e}"));
    let ids: Vec<String> = plan(&s).into_iter().map(|r| r.run_id).collect();
    assert!(
        ids.contains(&"baseline_scan_loss_at_obstacle_r0".to_string()),
        "{ids:?}"
    );
    let m = run(&s, "test_scan_loss_at_obstacle_r0");
    assert_eq!(m.kind, RunKind::Test);
    let j = &m.judgement;
    eprintln!("{}", serde_json::to_string_pretty(j).unwrap());
    let tl = j.timeline.as_ref().unwrap();
    let f = tl.fault("scan_loss").unwrap();
    let trig = f.t_trigger.unwrap().sim_s;
    assert!(trig > 0.0 && trig < 40.0, "{trig}");
    let applied = f.t_applied.unwrap().sim_s;
    assert!(
        applied >= trig && applied - trig < 0.2,
        "injection latency {}",
        applied - trig
    );
    assert_eq!(f.injection_latency_s, Some(applied - trig));
    let cleared = f.t_cleared.unwrap().sim_s;
    assert!(
        (cleared - (trig + 3.0)).abs() < 1e-9,
        "cleared {cleared} vs trigger {trig} + 3 s"
    );
    assert_eq!(j.expectations.len(), 9);
    assert_eq!(j.test.as_ref().unwrap().requirement, "REQ-NAV-STALE-SENSOR");
    // measured: the navigator keeps clear of the box through the 3 s dropout
    // and completes (clearance margin 0.0057 m over the 0.1 m threshold)
    assert_eq!(
        j.verdict_class.class,
        VerdictClass::Pass,
        "{}",
        j.verdict_class.reason
    );
    let latency = |n: &str| {
        j.expectations
            .iter()
            .find(|e| e.name == n)
            .unwrap()
            .latency_s()
            .unwrap()
    };
    // measured: stale scan noticed 0.2 s after the first withheld scan
    // (scan_timeout_s 0.3 s from the last one), stopped 0.6 s after it,
    // moving again 0.14 s after the clear
    assert!((latency("diagnostics_error") - 0.2).abs() < 1e-9);
    assert!((latency("stops") - 0.6).abs() < 1e-9);
    assert!((latency("resumes") - 0.14).abs() < 1e-9);
    let blind = j
        .expectations
        .iter()
        .find(|e| e.name == "keeps_clear_while_blind")
        .unwrap();
    assert_eq!(
        blind.decided_at_s, cleared,
        "the window closes at the clear"
    );
    // the manifest carries the names of the issue
    let json = serde_json::to_value(&m).unwrap();
    for k in ["verdict_class", "timeline", "expectations"] {
        assert!(json.get(k).is_some(), "manifest has no {k}");
    }
    assert!(json["timeline"]["faults"][0]["t_applied"]["host_s"].is_number());
}

#[test]
fn a_trigger_that_never_fires_and_an_ack_without_effect_are_not_counted_in_p_hat() {
    let s = Scenario::load(Path::new(FILE)).unwrap();
    let never = variant("never", |t| t.replace("value: 4.0 } }", "value: 40.0 } }"));
    let no_effect = variant("no_effect", |t| {
        t.replace(
            "mode: dropout",
            "mode: scale\n        parameters: { scale_factor: 1.0 }",
        )
    });
    let ok = run(&s, "test_scan_loss_at_obstacle_r0");
    let pf = run(&never, "test_scan_loss_at_obstacle_r0");
    let inv = run(&no_effect, "test_scan_loss_at_obstacle_r0");
    let class = |m: &Manifest| m.judgement.verdict_class.clone();
    assert_eq!(
        class(&pf).class,
        VerdictClass::PreconditionFailed,
        "{:?}",
        class(&pf)
    );
    assert!(
        class(&pf).reason.contains("never fired"),
        "{:?}",
        class(&pf)
    );
    let tl = pf.judgement.timeline.as_ref().unwrap();
    assert_eq!(tl.fault("scan_loss").unwrap().t_trigger, None);
    assert_eq!(
        class(&inv).class,
        VerdictClass::Invalid,
        "{:?}",
        class(&inv)
    );
    assert!(
        class(&inv).reason.contains("never changed or withheld"),
        "{:?}",
        class(&inv)
    );
    let f = inv
        .judgement
        .timeline
        .as_ref()
        .unwrap()
        .fault("scan_loss")
        .unwrap()
        .clone();
    assert!(
        f.t_trigger.is_some() && f.t_requested.is_some() && f.t_applied.is_none(),
        "{f:?}"
    );

    // summary: p̂ over pass + fail only, the two others beside it
    let all = [ok, pf, inv];
    let sum = Summary::compute(&s.file, &s.hash, &all);
    let t = &sum.tests[0];
    assert_eq!(
        (
            t.verdict_classes.pass,
            t.verdict_classes.precondition_failed,
            t.verdict_classes.invalid
        ),
        (1, 1, 1)
    );
    assert_eq!((t.judged, t.excluded, t.failure.k), (1, 2, 0));
    assert_eq!(t.failure.p_hat, 0.0);
    // JUnit: pass, skipped (precondition_failed), error (invalid); the four
    // harness checks are skipped too (no canary, isolation off, no nominal
    // runs in this hand-made corpus, no grid), never passed.
    let junit = breakbench::campaign::outputs::junit(&s.file, &sum, &all);
    assert!(
        junit.contains("failures=\"0\" errors=\"1\" skipped=\"5\""),
        "{junit}"
    );
    assert!(
        junit.contains("<skipped message=\"no positive canary declared\"/>"),
        "{junit}"
    );
    assert!(
        junit.contains("<skipped message=\"no fault grid (no axes)\"/>"),
        "{junit}"
    );
    assert!(
        junit.contains("<skipped message=\"precondition_failed: the trigger of fault"),
        "{junit}"
    );
    assert!(
        junit.contains("<error message=\"invalid: fault &apos;scan_loss&apos; was accepted"),
        "{junit}"
    );
}

#[test]
fn the_baseline_pairs_with_the_fault_run_and_records_false_alarm_probes() {
    let s = Scenario::load(Path::new(FILE)).unwrap();
    let b = run(&s, "baseline_scan_loss_at_obstacle_r0");
    assert_eq!(b.kind, RunKind::Baseline);
    let j = &b.judgement;
    assert!(j.test.as_ref().unwrap().baseline);
    // only the expectations without a fault: the three invariants
    let names: Vec<&str> = j.expectations.iter().map(|e| e.name.as_str()).collect();
    // then the false-alarm probes of the detection expectations
    assert_eq!(
        names,
        [
            "no_contact",
            "stays_in_region",
            "mission_completes",
            "diagnostics_error.false_alarm",
            "scan_loss.surfacing.rosout.false_alarm",
            "scan_loss.surfacing.diagnostics.false_alarm",
        ]
    );
    // a healthy navigator raises no alarm without the fault
    assert!(
        j.expectations[3..]
            .iter()
            .all(|e| e.satisfied && e.undecidable.is_none()),
        "{:?}",
        &j.expectations[3..]
    );
    assert_eq!(
        j.verdict_class.class,
        VerdictClass::Pass,
        "{}",
        j.verdict_class.reason
    );
    assert!(j.timeline.as_ref().unwrap().faults.is_empty());
}

/// The fault run `test_odom_lost_safe_stop_r0` of a shipped scenario file.
fn odom_lost_run(file: &str) -> Manifest {
    let s = Scenario::load(Path::new(file)).unwrap_or_else(|e| panic!("{e}"));
    run(&s, "test_odom_lost_safe_stop_r0")
}

/// The expectation `name` of a manifest.
fn expectation<'a>(
    m: &'a Manifest,
    name: &str,
) -> &'a breakbench_oracle::expect::ExpectationResult {
    m.judgement
        .expectations
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no expectation {name}"))
}

/// Odometry lost for good: the safe stop comes at the navigator's grace window
/// (odom_timeout_s 0.5 s) after the first withheld message, within one control
/// period, and not before; the run passes.
#[test]
fn odom_lost_safe_stop_at_the_grace_window() {
    let m = odom_lost_run("scenarios/tests/odom_lost_safe_stop.yaml");
    assert_eq!(
        m.judgement.verdict_class.class.name(),
        "pass",
        "{:?}",
        m.judgement
    );
    let e = expectation(&m, "safe_stop_at_grace_window");
    assert!(e.satisfied, "{e:?}");
    let applied = applied_s(&m);
    // last odometry 0.02 s (one 50 Hz period) before the first withheld one,
    // stop at the first 20 Hz tick 0.5 s after it
    let stop_after_applied = e.decided_at_s - applied;
    assert!(
        (stop_after_applied - 0.48).abs() < 1e-6,
        "stop {stop_after_applied} s after applied"
    );
    assert!(expectation(&m, "diagnostics_error").satisfied);
}

/// The negative variant (a test of the test): a navigator whose grace window
/// is 1 s longer stops about 1 s late, so the `at` expectation fails as too
/// late and the run's verdict class is fail.
#[test]
fn odom_lost_safe_stop_fails_with_a_longer_grace_window() {
    let m = odom_lost_run("scenarios/tests/odom_lost_safe_stop_negative.yaml");
    assert_eq!(
        m.judgement.verdict_class.class.name(),
        "fail",
        "{:?}",
        m.judgement
    );
    let e = expectation(&m, "safe_stop_at_grace_window");
    assert!(!e.satisfied);
    assert!(e.reason.starts_with("too late"), "{}", e.reason);
    // decided at the end of the window, 0.55 s after applied
    let applied = applied_s(&m);
    assert!((e.decided_at_s - applied - 0.55).abs() < 1e-6, "{e:?}");
}

/// `t_applied` (sim time, s) of the run's one fault.
fn applied_s(m: &Manifest) -> f64 {
    m.judgement.timeline.as_ref().expect("timeline").faults[0]
        .t_applied
        .expect("applied")
        .sim_s
}

/// The timestamp-jump test: a scan stamp 0.25 s ahead from t = 5 s to the
/// `clear` trigger at t = 10 s raises `/diagnostics` WARN at the first faulted
/// scan and OK at the first good one (both decided at once in lock-step:
/// a scan arrives at each trigger time), and passes; with a navigator whose
/// `stamp_tolerance_s` (0.3 s) exceeds the jump, the detection and surfacing
/// expectations fail (a test of the test).
#[test]
fn scan_timestamp_jump_warns_and_recovers_within_one_scan_period() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/tests/scan_timestamp_jump.yaml"
    );
    let s = Scenario::load(Path::new(file)).unwrap_or_else(|e| panic!("{e}"));
    let m = run(&s, "test_scan_timestamp_jump_r0");
    assert_eq!(
        m.judgement.verdict_class.class,
        VerdictClass::Pass,
        "{}",
        m.judgement.verdict_class.reason
    );
    let f = &m.judgement.timeline.as_ref().unwrap().faults[0];
    assert_eq!(f.t_applied.as_ref().unwrap().sim_s, 5.0);
    assert_eq!(f.t_cleared.as_ref().unwrap().sim_s, 10.0);
    let warn = expectation(&m, "diagnostics_warn");
    assert!(warn.satisfied && warn.decided_at_s == 5.0, "{warn:?}");
    let ok = expectation(&m, "diagnostics_ok_after_clear");
    assert!(ok.satisfied && ok.decided_at_s == 10.0, "{ok:?}");

    let dir = tempfile::tempdir().unwrap();
    let nav = dir.path().join("nav.yaml");
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/navigator.yaml"
    ))
    .unwrap();
    assert!(text.contains("stamp_tolerance_s: 0.2 "));
    std::fs::write(
        &nav,
        text.replace("stamp_tolerance_s: 0.2 ", "stamp_tolerance_s: 0.3 "),
    )
    .unwrap();
    let yaml = std::fs::read_to_string(file)
        .unwrap()
        .replace("../../config/navigator.yaml", &nav.display().to_string())
        .replace(
            "../../config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/config"),
        );
    let p = dir.path().join("s.yaml");
    std::fs::write(&p, yaml).unwrap();
    let lax = Scenario::load(&p).unwrap_or_else(|e| panic!("{e}"));
    let m = run(&lax, "test_scan_timestamp_jump_r0");
    assert_eq!(m.judgement.verdict_class.class, VerdictClass::Fail);
    for name in [
        "diagnostics_warn",
        "stamp_jump.surfacing.rosout",
        "stamp_jump.surfacing.diagnostics",
    ] {
        assert!(!expectation(&m, name).satisfied, "{name}");
    }
}

/// A test whose every expectation refers to its fault leaves its baseline
/// nothing of its own to judge: the baseline is then judged by the three
/// ground-truth invariants (and passes on this mission), so the fault runs
/// are judged rather than all `invalid`.
#[test]
fn a_baseline_with_only_fault_expectations_is_judged_by_the_invariants() {
    let s = variant("fault_only", |t| {
        t.lines()
            .filter(|l| !l.contains("invariant:"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    let b = run(&s, "baseline_scan_loss_at_obstacle_r0");
    let names: Vec<&str> = b
        .judgement
        .expectations
        .iter()
        .map(|e| e.name.as_str())
        .collect();
    assert_eq!(
        names[..3],
        [
            "baseline.operating_region_containment",
            "baseline.obstacle_clearance",
            "baseline.mission_completion_true_pose"
        ]
    );
    // then the false-alarm probes of the detection expectations
    assert!(
        names[3..].len() == 3 && names[3..].iter().all(|n| n.ends_with(".false_alarm")),
        "{names:?}"
    );
    assert_eq!(
        b.judgement.verdict_class.class,
        VerdictClass::Pass,
        "{}",
        b.judgement.verdict_class.reason
    );
    let m = run(&s, "test_scan_loss_at_obstacle_r0");
    assert_eq!(
        m.judgement.verdict_class.class,
        VerdictClass::Pass,
        "{}",
        m.judgement.verdict_class.reason
    );
}

const PHASE_FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/scenarios/tests/scan_loss_phase_sweep.yaml"
);

/// The shipped phase sweep with `edit` applied (written next to it).
fn phase_variant(name: &str, edit: impl Fn(String) -> String) -> Result<Scenario, String> {
    let text = edit(std::fs::read_to_string(PHASE_FILE).unwrap());
    let path = Path::new(PHASE_FILE).with_file_name(format!(".{name}.tmp.yaml"));
    std::fs::write(&path, text).unwrap();
    let s = Scenario::load(&path);
    std::fs::remove_file(&path).unwrap();
    s.map_err(|e| e.to_string())
}

#[test]
fn the_trigger_phase_sweep_shifts_the_trigger_by_each_phase() {
    let s = Scenario::load(Path::new(PHASE_FILE)).unwrap_or_else(|e| panic!("{e}"));
    let p = plan(&s);
    let tests: Vec<&str> = p
        .iter()
        .filter(|r| r.kind == RunKind::Test)
        .map(|r| r.run_id.as_str())
        .collect();
    let bases = p.iter().filter(|r| r.kind == RunKind::Baseline).count();
    // 10 phases x 5 repeats, one shared baseline per repeat
    assert_eq!((tests.len(), bases), (50, 5));
    assert_eq!(
        tests[..3],
        [
            "test_scan_loss_at_obstacle_p0_r0",
            "test_scan_loss_at_obstacle_p1_r0",
            "test_scan_loss_at_obstacle_p2_r0"
        ]
    );
    assert!(tests.contains(&"test_scan_loss_at_obstacle_p9_r4"));
    // every phase of a repeat runs on the repeat's seed (common random numbers)
    let seed = |id: &str| p.iter().find(|r| r.run_id == id).unwrap().seed;
    assert_eq!(
        seed("test_scan_loss_at_obstacle_p0_r2"),
        seed("test_scan_loss_at_obstacle_p7_r2")
    );
    assert_eq!(
        seed("test_scan_loss_at_obstacle_p0_r2"),
        seed("baseline_scan_loss_at_obstacle_r2")
    );
    let times = |id: &str| {
        let m = run(&s, id);
        assert_eq!(m.judgement.verdict_class.class, VerdictClass::Pass, "{id}");
        let k: f64 = id
            .split("_p")
            .nth(1)
            .unwrap()
            .split("_r")
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(m.cell.get("phase_s").copied(), Some(k / 100.0), "{id}");
        let f = m
            .judgement
            .timeline
            .as_ref()
            .unwrap()
            .fault("scan_loss")
            .unwrap()
            .clone();
        (
            f.t_trigger.unwrap().sim_s,
            f.t_applied.unwrap().sim_s,
            f.t_cleared.unwrap().sim_s,
        )
    };
    let (t0, a0, _) = times("test_scan_loss_at_obstacle_p0_r0");
    for k in [3, 8, 9] {
        let (t, a, c) = times(&format!("test_scan_loss_at_obstacle_p{k}_r0"));
        let (ph, d) = (k, f64::from(k) / 100.0);
        // the trigger (and the 3 s fault window) move by the phase ...
        assert!(
            (t - (t0 + d)).abs() < 1e-9,
            "phase {ph}: trigger {t} vs {t0} + {d}"
        );
        assert!((c - (t + 3.0)).abs() < 1e-9, "phase {ph}: clear {c}");
        // ... and the fault is applied at the first scan at or after it
        // (the scan is 10 Hz: applied times are 0.1 s apart)
        let scans = (a - a0) / 0.1;
        assert!(
            (scans - scans.round()).abs() < 1e-6,
            "phase {ph}: applied {a} vs {a0}"
        );
        assert!(
            a >= t - 1e-9 && a - t < 0.1 + 1e-9,
            "phase {ph}: latency {}",
            a - t
        );
    }
}

#[test]
fn a_phase_sweep_is_checked_at_load() {
    let e = phase_variant("unknown_fault", |t| {
        t.replace("fault: scan_loss, span_s", "fault: scan_los, span_s")
    })
    .unwrap_err();
    assert!(
        e.contains(
            "field 'tests[0].phase_sweep.fault': unknown fault 'scan_los' (the test has scan_loss)"
        ),
        "{e}"
    );
    let e = phase_variant("one_step", |t| t.replace("steps: 10 }", "steps: 1 }")).unwrap_err();
    assert!(
        e.contains("field 'tests[0].phase_sweep.steps': must be in 2..=1000"),
        "{e}"
    );
    let e = phase_variant("zero_span", |t| t.replace("span_s: 0.1,", "span_s: 0,")).unwrap_err();
    assert!(e.contains("field 'tests[0].phase_sweep.span_s'"), "{e}");
    // 20 phases over 0.1 s are 0.005 s apart, finer than the plant's 0.01 s step
    let e = phase_variant("too_fine", |t| t.replace("steps: 10 }", "steps: 20 }")).unwrap_err();
    assert!(
        e.contains(".tmp.yaml:23:") && e.contains("field 'tests[0].phase_sweep.steps': 20 steps over 0.1 s are 0.005 s apart, finer than the plant's step_s 0.01 s"),
        "{e}"
    );
    // 0.15 s in 10 steps are 0.015 s apart: not a whole number of 0.01 s steps
    let e = phase_variant("uneven", |t| t.replace("span_s: 0.1,", "span_s: 0.15,")).unwrap_err();
    assert!(
        e.contains("field 'tests[0].phase_sweep.span_s': 0.15 s in 10 steps are 0.015 s apart, not a whole number of the plant's step_s 0.01 s"),
        "{e}"
    );
    // an at_time trigger the largest phase pushes past the 60 s run
    let at55 = |t: String| {
        t.replace(
            "trigger:\n          rising_edge:\n            predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }\n            timeout_s: 40.0",
            "trigger: { at_time: { t_s: 55.0 } }",
        )
        .replace("span_s: 0.1, steps: 10", "span_s: 20.0, steps: 2")
    };
    let e = phase_variant("past_end", at55).unwrap_err();
    assert!(
        e.contains(
            "field 'tests[0].faults[0].trigger.at_time.t_s': 65 s is beyond the end of the run"
        ),
        "{e}"
    );
    // a clear at or before the (largest-phase) trigger
    let e = phase_variant("clear_first", |t| {
        t.replace(
            "trigger:\n          rising_edge:\n            predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }\n            timeout_s: 40.0",
            "trigger: { at_time: { t_s: 5.0 } }",
        )
        .replace("duration_s: 3.0", "clear: { at_time: { t_s: 5.05 } }")
    })
    .unwrap_err();
    assert!(
        e.contains("field 'tests[0].faults[0].clear.at_time.t_s': 5.05 s is not after the fault's trigger at 5.09 s (its largest phase included)"),
        "{e}"
    );
    // a second test whose run ids collide with the sweep's
    let e = phase_variant("collide", |t| {
        let test = t.split("tests:\n").nth(1).unwrap().to_string();
        format!(
            "{t}{}",
            test.replacen("  - name: scan_loss_at_obstacle\n    phase_sweep: { fault: scan_loss, span_s: 0.1, steps: 10 }\n", "  - name: scan_loss_at_obstacle_p0\n", 1)
        )
    })
    .unwrap_err();
    assert!(
        e.contains(
            "field 'tests[1].name': run id 'test_scan_loss_at_obstacle_p0_r0' is planned by both"
        ),
        "{e}"
    );
    let e = phase_variant("typo", |t| t.replace("span_s: 0.1,", "span: 0.1,")).unwrap_err();
    assert!(e.contains("unknown field `span`"), "{e}");
}

#[test]
fn a_diagnostic_or_logger_the_navigator_does_not_publish_is_refused_at_load() {
    let load = |tag: &str, edit: &dyn Fn(String) -> String| {
        let text = edit(std::fs::read_to_string(FILE).unwrap());
        let path = Path::new(FILE).with_file_name(format!(".{tag}.tmp.yaml"));
        std::fs::write(&path, text).unwrap();
        let s = Scenario::load(&path);
        std::fs::remove_file(&path).unwrap();
        s.map(|_| ()).map_err(|e| e.to_string())
    };
    // a misspelt status in an expectation
    let e = load("diag", &|t| {
        t.replacen(
            "predicate: { diagnostic: { name: \"simple_navigator: scan\", at_least: ERROR } }",
            "predicate: { diagnostic: { name: \"simple_navigator: lidar\", at_least: ERROR } }",
            1,
        )
    })
    .unwrap_err();
    assert!(
        e.contains(":45:38: field 'tests[0].expectations[1].within.predicate.diagnostic.name': no /diagnostics status 'simple_navigator: lidar': the navigator of ")
            && e.contains("publishes 'simple_navigator: scan', 'simple_navigator: odom'"),
        "{e}"
    );
    // a misspelt logger in surfacing
    let e = load("logger", &|t| {
        t.replace("logger: simple_navigator }", "logger: navigator }")
    })
    .unwrap_err();
    assert!(
        e.contains("field 'tests[0].faults[0].surfacing.logger': no /rosout logger 'navigator': the navigator of ")
            && e.contains("publishes 'simple_navigator'"),
        "{e}"
    );
    // inside and/not of a trigger
    let e = load("trigger", &|t| {
        t.replace(
            "predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }",
            "predicate: { and: [ { compare: { observable: truth.x_m, op: gt, value: 4.0 } }, { not: { diagnostic: { name: scan, at_least: WARN } } } ] }",
        )
    })
    .unwrap_err();
    assert!(
        e.contains("field 'tests[0].faults[0].trigger.rising_edge.predicate.and[1].not.diagnostic.name': no /diagnostics status 'scan'"),
        "{e}"
    );
    // the shipped names load
    load("ok", &|t| t).unwrap();
}

#[test]
fn a_time_beyond_the_end_of_the_run_is_refused_at_load() {
    let load = |tag: &str, from: &str, to: &str| {
        let t = std::fs::read_to_string(FILE).unwrap();
        assert!(t.contains(from), "{from}");
        let path = Path::new(FILE).with_file_name(format!(".{tag}.tmp.yaml"));
        std::fs::write(&path, t.replacen(from, to, 1)).unwrap();
        let s = Scenario::load(&path);
        std::fs::remove_file(&path).unwrap();
        s.map(|_| ()).unwrap_err().to_string()
    };
    let rising = "rising_edge:\n            predicate: { compare: { observable: truth.x_m, op: gt, value: 4.0 } }\n            timeout_s: 40.0";
    let e = load("at_time", rising, "at_time: { t_s: 500 }");
    assert!(
        e.contains("field 'tests[0].faults[0].trigger.at_time.t_s': 500 s is beyond the end of the run: every run lasts mission_timeout_s 60 s of "),
        "{e}"
    );
    let e = load("timeout", "timeout_s: 40.0", "timeout_s: 4000");
    assert!(
        e.contains(
            ":30:13: field 'tests[0].faults[0].trigger.rising_edge.timeout_s': 4000 s is beyond"
        ),
        "{e}"
    );
    let e = load("duration", "duration_s: 3.0", "duration_s: 1e6");
    assert!(
        e.contains("field 'tests[0].faults[0].duration_s': 1000000 s is beyond the end of the run")
            && e.contains("(give no duration_s or clear for a fault that lasts to the end)"),
        "{e}"
    );
    let e = load("within", "within_s: 2.0 ", "within_s: 61 ");
    assert!(
        e.contains("field 'tests[0].expectations[2].within.within_s': 61 s is beyond"),
        "{e}"
    );
    // exactly the mission length is within the run
    let t =
        std::fs::read_to_string(FILE)
            .unwrap()
            .replacen("timeout_s: 40.0", "timeout_s: 60.0", 1);
    let path = Path::new(FILE).with_file_name(".at_end.tmp.yaml");
    std::fs::write(&path, t).unwrap();
    let s = Scenario::load(&path);
    std::fs::remove_file(&path).unwrap();
    s.unwrap();
}

#[test]
fn a_parameter_the_mode_does_not_read_is_refused_at_load() {
    let t = std::fs::read_to_string(FILE).unwrap().replacen(
        "mode: dropout",
        "mode: delay\n        parameters: { jitter_s: 0.1 }",
        1,
    );
    let path = Path::new(FILE).with_file_name(".unread_param.tmp.yaml");
    std::fs::write(&path, t).unwrap();
    let e = Scenario::load(&path).map(|_| ()).unwrap_err().to_string();
    std::fs::remove_file(&path).unwrap();
    assert!(
        e.contains("field 'tests[0].faults[0].parameters': mode 'delay' does not read 'jitter_s' (its parameters: delay_s)"),
        "{e}"
    );
}

#[test]
fn the_input_gap_limit_is_checked_at_load() {
    // the limit must exceed every sensor period of the robot (the lidar's
    // 0.1 s at 10 Hz), or every run would be starved by the plant's rate
    let gap = |v: &str| {
        let v = v.to_string();
        move |t: String| {
            t.replace(
                "    hazard: HAZ-COLLISION-OBSTACLE\n",
                &format!("    hazard: HAZ-COLLISION-OBSTACLE\n    max_input_gap_s: {v}\n"),
            )
        }
    };
    let e = phase_variant("gap_period", gap("0.1")).unwrap_err();
    assert!(
        e.contains("field 'tests[0].max_input_gap_s': 0.1 s is not longer than the period 0.1 s of lidar.rate_hz 10"),
        "{e}"
    );
    let e = phase_variant("gap_zero", gap("0")).unwrap_err();
    assert!(
        e.contains("field 'tests[0].max_input_gap_s': 0.0 must be in (0, 3600] s"),
        "{e}"
    );
    let s = phase_variant("gap_ok", gap("0.25")).unwrap();
    assert_eq!(s.file.tests[0].max_input_gap_s, 0.25);
}
