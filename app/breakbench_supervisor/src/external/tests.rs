use super::*;

#[test]
fn flags_are_checked_and_templates_parsed() {
    let s = ExternalStack::new(
        "ros2 launch x y.launch.py seed:={seed}",
        vec!["/a".into()],
        Some("/sim_bridge/start".into()),
        true,
        Some("pkill -f {run_id}"),
    )
    .unwrap();
    assert!(s.command.uses("seed") && s.reset.as_ref().unwrap().uses("run_id"));
    let e = ExternalStack::new("x", vec!["a".into()], None, true, None).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--ready-topic \"a\": expected an absolute ROS name (/...)"
    );
    let e = ExternalStack::new("x", vec![], None, true, Some("r {outdir}")).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("--reset-cmd \"r {outdir}\": unknown placeholder {outdir}"),
        "{e}"
    );
}

#[test]
fn a_missing_program_is_named_before_anything_runs() {
    let s = ExternalStack::new("/nonexistent/launcher {seed}", vec![], None, true, None).unwrap();
    let e = s.check().unwrap_err();
    assert!(
        e.to_string()
            .contains("program \"/nonexistent/launcher\" of the command template not found"),
        "{e}"
    );
}

#[test]
fn verdict_lines_are_found_behind_a_prefix() {
    let mut v = None;
    scan(
        &[(
            0,
            "[oracle-3] oracle: verdict safety_violation=false mission_failure=true self_report=none samples=3000 manifest=/o/manifests/r.json".into(),
        )],
        "r",
        &mut v,
    );
    let v = v.expect("parsed");
    assert!(v.mission_failure && !v.safety_violation);
    assert_eq!(v.manifest, PathBuf::from("/o/manifests/r.json"));
}

/// REQ-GRAPH-RESET: a kept-running stack starts once per slot, so its
/// start template must not take a run's value; and it needs a reset rule.
#[test]
fn keep_running_refuses_run_placeholders_in_the_start_template() {
    let stack = |cmd: &str, reset: Option<&str>| {
        ExternalStack::new(cmd, vec![], Some("/sim_bridge/start".into()), true, reset).unwrap()
    };
    for (name, cmd) in [
        (
            "seed",
            "ros2 launch breakbench corridor.launch.py seed:={seed}",
        ),
        ("run_id", "ros2 launch x y.launch.py run_id:={run_id}"),
        ("out", "ros2 launch x y.launch.py out_dir:={out}/o"),
    ] {
        let e = stack(cmd, None)
            .with_keep_running(vec!["/oracle/reset".into()])
            .unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "--keep-running: the --graph-cmd template {cmd:?} uses {{{name}}}, but a kept-running stack is started once per job slot"
            )),
            "{e}"
        );
    }
    let e = stack("ros2 launch x y.launch.py", None)
        .with_keep_running(vec![])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "--keep-running: needs a reset rule: --reset-service SERVICE (repeatable), --reset-cmd TEMPLATE and/or --simulator FILE (simulation_interfaces)"
    );
    let e = stack("ros2 launch x y.launch.py", None)
        .with_keep_running(vec!["oracle/reset".into()])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "--reset-service \"oracle/reset\": expected an absolute ROS name (/...)"
    );
    // {domain_id} is the slot's, fine; a reset command alone is a rule.
    let s = stack(
        "ros2 launch x y.launch.py domain:={domain_id}",
        Some("reset {seed} {run_id}"),
    )
    .with_keep_running(vec![])
    .unwrap();
    assert!(s.keep_running && s.reset_services.is_empty());
    let s = stack("ros2 launch x y.launch.py", None)
        .with_keep_running(vec!["/sim_bridge/reset".into(), "/oracle/reset".into()])
        .unwrap();
    assert_eq!(s.reset_services, ["/sim_bridge/reset", "/oracle/reset"]);
}

/// A kept-running stack's previous verdict line may still be in the
/// pipe when the next run observes: only this run's is taken.
#[test]
fn a_stale_verdict_line_of_the_previous_run_is_not_taken() {
    let line = |id: &str, mission_failure: bool| {
        (
            0,
            format!("[oracle-4] oracle: verdict safety_violation=false mission_failure={mission_failure} self_report=none samples=3000 manifest=/o/graph/{id}/manifests/{id}.json"),
        )
    };
    let mut v = None;
    scan(&[line("grid_c0000_r00", true)], "nominal_r00", &mut v);
    assert_eq!(v, None, "the previous run's line");
    scan(
        &[
            line("grid_c0000_r00", true),
            line("nominal_r00", false),
            line("nominal_r00", true),
        ],
        "nominal_r00",
        &mut v,
    );
    let v = v.expect("this run's line");
    assert!(!v.mission_failure, "the first line of this run");
    assert_eq!(
        v.manifest,
        PathBuf::from("/o/graph/nominal_r00/manifests/nominal_r00.json")
    );
}

/// `--simulator` (issue 29): it replaces the start gate, so a
/// `--start-service` as well is refused; it is a reset rule of its own.
#[test]
fn the_simulator_is_the_start_gate_and_a_reset_rule() {
    let sim = || {
        SimulatorConfig::parse(
            std::path::Path::new("sim.yaml"),
            "simulator: simulation_interfaces\nservice_prefix: /gzserver\nentity: robot\n",
        )
        .unwrap()
    };
    let p = std::path::Path::new("sim.yaml");
    let gated =
        ExternalStack::new("x", vec![], Some("/sim_bridge/start".into()), true, None).unwrap();
    let e = gated.with_simulator(p, sim()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "--simulator sim.yaml: the simulator is started through /gzserver/set_simulation_state (PLAYING): drop --start-service /sim_bridge/start"
    );
    assert!(
        ExternalStack::new("ros2 launch x y.launch.py", vec![], None, true, None)
            .unwrap()
            .with_keep_running(vec![])
            .is_err()
    );
    let s = ExternalStack::new("ros2 launch x y.launch.py", vec![], None, true, None)
        .unwrap()
        .with_simulator(p, sim())
        .unwrap()
        .with_keep_running(vec![])
        .unwrap();
    assert!(s.keep_running && s.reset_services.is_empty());
    assert_eq!(s.simulator.unwrap().service_prefix, "/gzserver");
}
