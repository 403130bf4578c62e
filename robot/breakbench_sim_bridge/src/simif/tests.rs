use std::time::Duration;

use breakbench_world::world::Pose2;
use kraken_interfaces::simif::{
    Bounds, EntityCategory, EntityFilters, ResetSimulationRequest as Rs,
    SetSimulationStateResponse as Ss, SimResult, SimulationState as S, SimulatorFeatures as F,
};

use super::{features, SimControl, SimState, Transition};

#[test]
fn launch_state_follows_the_start_gate_and_reset_returns_to_it() {
    let mut c = SimControl::new("robot", true);
    assert_eq!(c.state(), SimState::Stopped);
    assert_eq!(c.get_state().state.state, S::STATE_STOPPED);
    c.on_start_call();
    assert_eq!(c.get_state().state.state, S::STATE_PLAYING);
    assert_eq!(c.reset(Rs::SCOPE_ALL), Ok(()));
    assert_eq!(c.state(), SimState::Stopped);
    let mut free = SimControl::new("robot", false);
    assert_eq!(free.state(), SimState::Playing);
    free.set_state(S::STATE_PAUSED);
    free.on_run_reset();
    assert_eq!(free.state(), SimState::Playing);
}

#[test]
fn reset_scopes_are_all_or_time_and_state_together() {
    let mut c = SimControl::new("robot", false);
    for ok in [
        Rs::SCOPE_DEFAULT,
        Rs::SCOPE_ALL,
        Rs::SCOPE_TIME | Rs::SCOPE_STATE,
    ] {
        assert_eq!(c.reset(ok), Ok(()), "scope {ok}");
    }
    for bad in [Rs::SCOPE_TIME, Rs::SCOPE_STATE, Rs::SCOPE_SPAWNED] {
        let e = c.reset(bad).unwrap_err();
        assert_eq!(
            e.result,
            SimResult::RESULT_FEATURE_UNSUPPORTED,
            "scope {bad}"
        );
        assert!(e.error_message.contains(&format!("scope {bad}")));
    }
}

#[test]
fn transitions_and_their_result_codes() {
    let mut c = SimControl::new("robot", true);
    // Stopped -> paused is a start (paused from sim time 0).
    assert_eq!(
        c.set_state(S::STATE_PAUSED),
        (SimResult::ok(), Transition::Start)
    );
    let (r, t) = c.set_state(S::STATE_PAUSED);
    assert_eq!(
        (r.result, t),
        (Ss::ALREADY_IN_TARGET_STATE, Transition::None)
    );
    assert_eq!(
        c.set_state(S::STATE_PLAYING),
        (SimResult::ok(), Transition::Switch)
    );
    assert_eq!(
        c.set_state(S::STATE_PAUSED),
        (SimResult::ok(), Transition::Switch)
    );
    assert_eq!(
        c.set_state(S::STATE_STOPPED),
        (SimResult::ok(), Transition::Stop)
    );
    assert_eq!(c.state(), SimState::Stopped);
    let (r, t) = c.set_state(S::STATE_QUITTING);
    assert_eq!(
        (r.result, t),
        (SimResult::RESULT_FEATURE_UNSUPPORTED, Transition::None)
    );
    let (r, _) = c.set_state(S::STATE_NO_WORLD);
    assert_eq!(r.result, SimResult::RESULT_FEATURE_UNSUPPORTED);
    let (r, t) = c.set_state(42);
    assert_eq!((r.result, t), (Ss::INCORRECT_TRANSITION, Transition::None));
    assert_eq!(
        c.state(),
        SimState::Stopped,
        "a refused call changes nothing"
    );
}

#[test]
fn steps_only_while_paused() {
    let mut c = SimControl::new("robot", true);
    let e = c.step(5).unwrap_err();
    assert_eq!(e.result, SimResult::RESULT_OPERATION_FAILED);
    c.on_start_call();
    assert_eq!(
        c.step(5).unwrap_err().result,
        SimResult::RESULT_OPERATION_FAILED
    );
    c.set_state(S::STATE_PAUSED);
    assert_eq!(c.step(5), Ok(5));
    assert_eq!(c.step(1), Ok(1));
}

#[test]
fn entity_state_is_the_ground_truth_in_the_world_frame() {
    let c = SimControl::new("robot", false);
    let pose = Pose2 {
        x_m: 1.5,
        y_m: -0.25,
        yaw_rad: std::f64::consts::FRAC_PI_2,
    };
    let r = c.entity_state("robot", Duration::from_millis(2_340), &pose, (0.5, 0.1));
    assert_eq!(r.result, SimResult::ok());
    let s = &r.state;
    assert_eq!(
        (s.header.stamp.sec, s.header.stamp.nanosec),
        (2, 340_000_000)
    );
    assert_eq!(s.header.frame_id, "world");
    assert_eq!((s.pose.position.x, s.pose.position.y), (1.5, -0.25));
    let q = s.pose.orientation;
    assert!((q.z - (0.5f64).sqrt()).abs() < 1e-15 && (q.w - (0.5f64).sqrt()).abs() < 1e-15);
    // 0.5 m/s forward while facing +y: world-frame velocity along +y.
    assert!(s.twist.linear.x.abs() < 1e-15);
    assert!((s.twist.linear.y - 0.5).abs() < 1e-15);
    assert_eq!(s.twist.angular.z, 0.1);
    let missing = c.entity_state("robot2", Duration::ZERO, &pose, (0.0, 0.0));
    assert_eq!(missing.result.result, SimResult::RESULT_NOT_FOUND);
    assert!(missing.result.error_message.contains("'robot2'"));
}

#[test]
fn entities_filter_by_literal_name_and_refuse_the_rest() {
    let c = SimControl::new("robot", false);
    let f = |s: &str| EntityFilters {
        filter: s.into(),
        ..EntityFilters::default()
    };
    assert_eq!(c.entities(&f("")).entities, vec!["robot".to_string()]);
    assert_eq!(c.entities(&f("bot")).entities, vec!["robot".to_string()]);
    let none = c.entities(&f("box"));
    assert_eq!(
        (none.result.result, none.entities.len()),
        (SimResult::RESULT_OK, 0)
    );
    assert_eq!(
        c.entities(&f("rob.*")).result.result,
        SimResult::RESULT_FEATURE_UNSUPPORTED
    );
    let mut cat = f("");
    cat.categories.push(EntityCategory { category: 1 });
    assert_eq!(
        c.entities(&cat).result.result,
        SimResult::RESULT_FEATURE_UNSUPPORTED
    );
    let mut b = f("");
    b.bounds = Bounds {
        kind: 3,
        points: vec![],
    };
    assert_eq!(
        c.entities(&b).result.result,
        SimResult::RESULT_FEATURE_UNSUPPORTED
    );
}

#[test]
fn features_list_exactly_what_is_served() {
    assert_eq!(
        features().features,
        vec![
            F::ENTITY_STATE_GETTING,
            F::SIMULATION_RESET,
            F::SIMULATION_STATE_GETTING,
            F::SIMULATION_STATE_SETTING,
            F::SIMULATION_STATE_PAUSE,
            F::STEP_SIMULATION_SINGLE,
            F::STEP_SIMULATION_MULTIPLE,
        ]
    );
    assert!(features().spawn_formats.is_empty());
}
