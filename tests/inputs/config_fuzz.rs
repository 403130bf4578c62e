//! Property-based fuzzing of the campaign's input files: mutated scenario,
//! world, robot and navigator files (numbers replaced by NaN, ±Inf, huge,
//! tiny, negative, zero; keys dropped or duplicated; types swapped) must give
//! either a clear error naming the file, or a loaded plan whose estimate is
//! checked against the budget. Nothing is run.
//!
//! `regression_corpus` keeps the inputs that once got through (or exhausted
//! the machine) as explicit cases.

use std::path::{Path, PathBuf};

use breakbench::campaign::{Budget, Estimate, Scenario};
use breakbench_navigator::Navigator;
use breakbench_sim_bridge::Plant;
use proptest::prelude::*;

const FILES: [&str; 4] = [
    "tests/data/small_study.yaml",
    "config/corridor.yaml",
    "config/robot.yaml",
    "config/navigator.yaml",
];
/// What the copies are called in the temporary directory.
const NAMES: [&str; 4] = ["s.yaml", "world.yaml", "robot.yaml", "nav.yaml"];

fn original(i: usize) -> String {
    let t = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(FILES[i])).unwrap();
    if i == 0 {
        t.replace("../../config/corridor.yaml", "world.yaml")
            .replace("../../config/robot.yaml", "robot.yaml")
            .replace("../../config/navigator.yaml", "nav.yaml")
    } else {
        t
    }
}

/// Byte spans of the numbers in `text` (outside comments).
fn number_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let body = line.split(" #").next().unwrap_or("");
        let mut start = None;
        for (i, c) in body
            .char_indices()
            .chain(std::iter::once((body.len(), ' ')))
        {
            let part = c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_');
            match (part, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    if body[s..i].parse::<f64>().is_ok() {
                        spans.push((offset + s, offset + i));
                    }
                    start = None;
                }
                _ => {}
            }
        }
        offset += line.len();
    }
    spans
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the n-th number (mod count) with a value.
    Number(usize, &'static str),
    /// Drop the n-th non-comment line (a key dropped).
    DropLine(usize),
    /// Duplicate the n-th non-comment line (a key duplicated).
    DupLine(usize),
}

const VALUES: [&str; 22] = [
    ".nan",
    ".inf",
    "-.inf",
    "1.0e308",
    "-1.0e308",
    "1.7976931348623157e308",
    "1000000000",
    "18446744073709551615",
    "-1",
    "-0.5",
    "0",
    "-0.0",
    "1.0e-9",
    "5.0e-324",
    "1e12",
    // types swapped
    "abc",
    "[1, 2]",
    "{a: 1}",
    "true",
    "~",
    "\"3\"",
    "",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        6 => (any::<usize>(), prop::sample::select(&VALUES[..])).prop_map(|(n, v)| Mutation::Number(n, v)),
        1 => any::<usize>().prop_map(Mutation::DropLine),
        1 => any::<usize>().prop_map(Mutation::DupLine),
    ]
}

fn apply(text: &str, m: &Mutation) -> String {
    match m {
        Mutation::Number(n, v) => {
            let spans = number_spans(text);
            let (a, b) = spans[n % spans.len()];
            format!("{}{}{}", &text[..a], v, &text[b..])
        }
        Mutation::DropLine(n) | Mutation::DupLine(n) => {
            let lines: Vec<&str> = text.lines().collect();
            let code: Vec<usize> = (0..lines.len())
                .filter(|&i| !lines[i].trim_start().starts_with('#') && !lines[i].trim().is_empty())
                .collect();
            let k = code[n % code.len()];
            let mut out = Vec::new();
            for (i, l) in lines.iter().enumerate() {
                if i != k || matches!(m, Mutation::DupLine(_)) {
                    out.push(*l);
                }
                if i == k && matches!(m, Mutation::DupLine(_)) {
                    out.push(l);
                }
            }
            out.join("\n") + "\n"
        }
    }
}

/// Writes the four files (`texts`) into `dir` and returns the scenario path.
fn write_all(dir: &Path, texts: &[String; 4]) -> PathBuf {
    for (name, t) in NAMES.iter().zip(texts) {
        std::fs::write(dir.join(name), t).unwrap();
    }
    dir.join(NAMES[0])
}

/// The property: a clear error naming one of the files, or a plan checked
/// against the budget whose pieces construct without panicking.
fn check(dir: &Path, texts: &[String; 4]) -> Result<(), String> {
    let p = write_all(dir, texts);
    match Scenario::load(&p) {
        Err(e) => {
            let msg = e.to_string();
            let names_file = NAMES
                .iter()
                .any(|n| msg.starts_with(&dir.join(n).display().to_string()));
            if !names_file {
                return Err(format!("error names no input file: {msg}"));
            }
            if !msg.contains("field '") {
                return Err(format!("error names no field: {msg}"));
            }
            Ok(())
        }
        Ok(s) => {
            let e = Estimate::of(&s);
            if Budget::default().check(&e).is_ok() {
                // A plan within the budget: its parts build (nothing is run).
                Plant::new(&s.world, &s.plant, 1, &["scan", "odom"])
                    .map_err(|e| format!("loaded but plant refuses: {e}"))?;
                let nav = Navigator::new(s.navigator.clone(), s.world.goal_in_odom());
                drop(nav);
                if e.runs == 0 || e.sim_steps == 0 {
                    return Err(format!("empty plan {e:?}"));
                }
            }
            Ok(())
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_files_give_a_clear_error_or_a_budgeted_plan(
        edits in prop::collection::vec((0usize..4, mutation()), 1..4)
    ) {
        let mut texts: [String; 4] = std::array::from_fn(original);
        for (f, m) in &edits {
            texts[*f] = apply(&texts[*f], m);
        }
        let d = tempfile::tempdir().unwrap();
        if let Err(why) = check(d.path(), &texts) {
            prop_assert!(false, "{why}\nedits: {edits:?}");
        }
    }
}

/// The shipped files pass the property and load.
#[test]
fn unmutated_files_load_within_the_budget() {
    let d = tempfile::tempdir().unwrap();
    let texts: [String; 4] = std::array::from_fn(original);
    check(d.path(), &texts).unwrap();
    let s = Scenario::load(&d.path().join("s.yaml")).unwrap();
    Budget::default().check(&Estimate::of(&s)).unwrap();
    assert!(number_spans(&texts[1]).len() > 20);
}

/// Inputs that once got through, or exhausted the machine: each is refused
/// with the file, line, column and field.
#[test]
fn regression_corpus() {
    // (file index, from, to, expected start of the error after the file path)
    let cases: &[(usize, &str, &str, &str)] = &[
        // grew memory at 0.5 GB/s with nothing written
        (
            0,
            "repeats: 2",
            "repeats: 1000000000",
            ":8:1: field 'repeats': 1e9 is outside",
        ),
        // tried to allocate 103 GB of candidate headings
        (
            3,
            "candidate_step_deg: 10.0",
            "candidate_step_deg: 1e-9",
            ":13:1: field 'candidate_step_deg'",
        ),
        (
            2,
            "beams: 360",
            "beams: 4000000000",
            ":13:3: field 'lidar.beams'",
        ),
        (
            2,
            "step_s: 0.01",
            "step_s: 0.000000001",
            ":4:1: field 'step_s'",
        ),
        (
            1,
            "mission_timeout_s: 60.0",
            "mission_timeout_s: 1.0e9",
            ":22:1: field 'mission_timeout_s'",
        ),
        (
            1,
            "center_m: [11.0, 0.0]",
            "center_m: [40.0, 0.0]",
            ":19:3: field 'goal.center_m': (40, 0) is outside operating_region_m",
        ),
        (
            1,
            "center_m: [11.0, 0.0]",
            "center_m: [1.0, 0.0]",
            ":19:3: field 'goal.center_m': the start (1, 0) is 0.000 m from the goal centre",
        ),
        (
            1,
            "center_m: [11.0, 0.0]",
            "center_m: [6.0, 0.0]",
            ":10:5: field 'obstacles[0]': 'box' overlaps the goal disc",
        ),
        (
            0,
            "mode: scale\n    parameter: scale_factor",
            "mode: bias\n    parameter: bias",
            ":18:5: field 'axes[1].mode': mode 'bias' on channel 'odom'",
        ),
        // the navigator takes the start for the goal (11 m away)
        (
            3,
            "goal_tolerance_m: 0.15",
            "goal_tolerance_m: 20.0",
            ":4:1: field 'goal_tolerance_m': 20 m reaches the start of",
        ),
        (0, "runs: 3", "runs: 1.0e308", ":23:9: field 'nominal.runs'"),
        (
            3,
            "lookahead_m: 1.0",
            "lookahead_m: .inf",
            ":10:1: field 'lookahead_m': is not a finite number",
        ),
    ];
    for (f, from, to, want) in cases {
        let mut texts: [String; 4] = std::array::from_fn(original);
        assert!(texts[*f].contains(from), "{from}");
        texts[*f] = texts[*f].replacen(from, to, 1);
        let d = tempfile::tempdir().unwrap();
        let p = write_all(d.path(), &texts);
        let e = Scenario::load(&p).expect_err(to).to_string();
        let file = d.path().join(NAMES[*f]).display().to_string();
        assert!(e.starts_with(&format!("{file}{want}")), "{to}: {e}");
    }
}

/// One fault of a generated trigger graph: its trigger (`None`: at 1 s;
/// `Some((j, event))`: after fault j's event) and whether it is ever
/// cleared (`duration_s`).
type GraphFault = (Option<(usize, usize)>, bool);

const EVENTS: [&str; 3] = ["trigger", "applied", "cleared"];

/// Which triggers of `faults` can fire: a fixpoint from the time triggers
/// (the reference the loader is checked against, computed independently
/// of its cycle search).
fn all_can_fire(faults: &[GraphFault]) -> bool {
    let mut fires = vec![false; faults.len()];
    loop {
        let mut changed = false;
        for (i, (dep, _)) in faults.iter().enumerate() {
            let ok = match dep {
                None => true,
                Some((j, e)) => fires[*j] && (EVENTS[*e] != "cleared" || faults[*j].1),
            };
            if ok && !fires[i] {
                fires[i] = true;
                changed = true;
            }
        }
        if !changed {
            return fires.iter().all(|f| *f);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// Generated `after_fault` graphs over three faults (cycles of length
    /// 2 and 3, waits on faults never cleared, chains): the scenario loads
    /// exactly when every trigger can fire, and a refusal names an
    /// `after_fault.fault` field (REQ-TRIGGER-FIRABLE).
    #[test]
    fn trigger_graphs_load_exactly_when_every_trigger_can_fire(
        faults in prop::collection::vec(
            (prop::option::of((0usize..3, 0usize..3)), any::<bool>()),
            3,
        )
    ) {
        // no fault waits on itself (refused by its own check)
        let faults: Vec<GraphFault> = faults
            .into_iter()
            .enumerate()
            .map(|(i, (d, c))| (d.map(|(j, e)| (if j == i { (j + 1) % 3 } else { j }, e)), c))
            .collect();
        let channels = ["scan", "odom", "cmd_vel"];
        let mut yaml = String::new();
        for (i, (dep, cleared)) in faults.iter().enumerate() {
            let trigger = match dep {
                None => "{ at_time: { t_s: 1.0 } }".to_string(),
                Some((j, e)) => format!(
                    "{{ after_fault: {{ fault: f{j}, event: {}, delay_s: 0.5, timeout_s: 30.0 }} }}",
                    EVENTS[*e]
                ),
            };
            yaml.push_str(&format!(
                "      - name: f{i}\n        channel: {}\n        mode: dropout\n        trigger: {trigger}\n{}",
                channels[i],
                if *cleared { "        duration_s: 1.0\n" } else { "" }
            ));
        }
        let mut texts: [String; 4] = std::array::from_fn(original);
        let (a, b) = (texts[0].find("axes:").unwrap(), texts[0].find("nominal:").unwrap());
        texts[0] = format!("{}axes: []\n{}", &texts[0][..a], &texts[0][b..])
            .replace("canary:", &format!(
                "tests:\n  - name: g\n    requirement: REQ-X\n    hazard: HAZ-X\n    faults:\n{yaml}    expectations:\n      - {{ name: no_contact, invariant: obstacle_clearance }}\ncanary:"
            ));
        let d = tempfile::tempdir().unwrap();
        let p = write_all(d.path(), &texts);
        let r = Scenario::load(&p);
        let want = all_can_fire(&faults);
        match r {
            Ok(_) => prop_assert!(want, "loaded, but a trigger can never fire: {faults:?}"),
            Err(e) => {
                let e = e.to_string();
                prop_assert!(!want, "refused, but every trigger can fire: {faults:?}: {e}");
                prop_assert!(e.contains("trigger.after_fault.fault'"), "{e}");
            }
        }
    }
}
