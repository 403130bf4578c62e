//! The simulator of an external stack driven through the ROS 2 simulator
//! standard `simulation_interfaces` (issue 29, REQ-SIMIF-DRIVE): `breakbench
//! campaign --graph-cmd ... --simulator FILE`, a YAML file
//!
//! ```yaml
//! simulator: simulation_interfaces   # the only kind
//! service_prefix: /sim_bridge        # Gazebo (ros_gz_sim): /gzserver; root: /
//! entity: robot                      # the robot's entity name in the simulator
//! stepping: free_running             # default; step_simulation: the campaign owns time
//! ground_truth: topic                # default (/oracle/odom); get_entity_state
//! command_topic: /cmd_vel            # default; the command the simulator applies
//! ```
//!
//! With it the campaign starts each run with `<service_prefix>/
//! set_simulation_state` PLAYING after arming (instead of a std_srvs/Trigger
//! start service; the simulator must be launched stopped or paused), checks
//! that `<service_prefix>/get_entity_state` knows `entity` before arming,
//! and, kept running, resets the simulator with `<service_prefix>/
//! reset_simulation` (SCOPE_DEFAULT) before the `--reset-service` calls: the
//! reset rule `simulation_interfaces`.
//!
//! `stepping: step_simulation` (REQ-SIMIF-STEP): the campaign owns sim
//! time. The simulator is started PAUSED (SetSimulationState) instead of
//! PLAYING, and the campaign's stepper advances it with StepSimulation in
//! the in-process executor's lock-step schedule ([`StepSchedule`]): after
//! each control instant it waits for the stack's one command on
//! `command_topic` before the next StepSimulation. `ground_truth:
//! get_entity_state` (REQ-SIMIF-TRUTH, needs `step_simulation`): after every
//! step that ends at a ground-truth instant the stepper calls
//! GetEntityState of `entity` and publishes it as `/oracle/odom`
//! (nav_msgs/Odometry, frame of the answer's header, child `base_link`,
//! twist in the body frame), so a simulator without a ground-truth topic
//! can be judged.

use std::path::Path;

use serde::Deserialize;

use crate::SupervisorError;

/// The kinds of simulator interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimulatorKind {
    /// The ROS 2 standard `simulation_interfaces` (1.x).
    SimulationInterfaces,
}

/// Who advances sim time (REQ-SIMIF-STEP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stepping {
    /// The simulator steps on its own once PLAYING (our lock-step bridge
    /// waits for `/cmd_vel` by itself; Gazebo runs at its own pace).
    #[default]
    FreeRunning,
    /// The simulator stays PAUSED; the campaign advances it by StepSimulation
    /// in the in-process lock-step schedule.
    StepSimulation,
}

/// Where the oracle's ground truth comes from (REQ-SIMIF-TRUTH).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GroundTruth {
    /// A topic the stack publishes as `/oracle/odom` (a remap of the
    /// simulator's ground-truth odometry).
    #[default]
    Topic,
    /// GetEntityState of `entity` after each ground-truth step, published
    /// by the campaign's stepper as `/oracle/odom`.
    GetEntityState,
}

/// A `--simulator` file (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulatorConfig {
    /// The interface the simulator speaks.
    pub simulator: SimulatorKind,
    /// The namespace of its services (absolute, no trailing `/`).
    pub service_prefix: String,
    /// The robot's entity name (GetEntityState).
    pub entity: String,
    /// Who advances sim time (default `free_running`).
    #[serde(default)]
    pub stepping: Stepping,
    /// Where the oracle's ground truth comes from (default `topic`).
    #[serde(default)]
    pub ground_truth: GroundTruth,
    /// The command topic the simulator applies (absolute; default
    /// `/cmd_vel`): with `step_simulation`, one message on it is awaited
    /// after each control instant.
    #[serde(default = "default_command_topic")]
    pub command_topic: String,
}

fn default_command_topic() -> String {
    "/cmd_vel".into()
}

/// The in-process executor's lock-step schedule, in whole plant steps
/// (REQ-SIMIF-STEP): control instants are the steps whose end time `t`
/// satisfies `t >= next`, `next` from 0 growing by the control period at
/// each instant (sim_bridge's lock-step rule, so the first instant is the
/// first step); ground-truth instants are the steps whose end time is a
/// multiple of the truth period. [`Self::next_chunk`] gives the steps up to
/// the next instant of either kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepSchedule {
    /// The plant step (robot file `step_s`), ns (> 0).
    pub step_ns: u64,
    /// The control period (1 / navigator `control_rate_hz`), ns (> 0).
    pub control_ns: u64,
    /// The ground-truth period (1 / robot `truth_rate_hz`), ns; `None`: no
    /// ground-truth instants (ground truth from a topic).
    pub truth_ns: Option<u64>,
    /// Steps made so far.
    steps: u64,
    /// The next control instant, ns of sim time.
    next_control_ns: u64,
}

/// One StepSimulation call of a [`StepSchedule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Plant steps to make (>= 1).
    pub steps: u64,
    /// Sim time at its end, ns.
    pub end_ns: u64,
    /// Its end is a control instant: a command is awaited after it.
    pub control: bool,
    /// Its end is a ground-truth instant.
    pub truth: bool,
}

impl StepSchedule {
    /// A schedule from sim time 0.
    ///
    /// # Errors
    /// A zero period, as text naming it.
    pub fn new(step_ns: u64, control_ns: u64, truth_ns: Option<u64>) -> Result<Self, String> {
        if step_ns == 0 || control_ns == 0 || truth_ns == Some(0) {
            return Err(format!(
                "step {step_ns} ns, control period {control_ns} ns, truth period {truth_ns:?} ns: each must be > 0"
            ));
        }
        Ok(Self {
            step_ns,
            control_ns,
            truth_ns,
            steps: 0,
            next_control_ns: 0,
        })
    }

    /// The steps up to and including the next control or ground-truth instant.
    pub fn next_chunk(&mut self) -> Chunk {
        let first = self.steps;
        loop {
            self.steps += 1;
            let now = self.steps * self.step_ns;
            let control = now >= self.next_control_ns;
            if control {
                self.next_control_ns += self.control_ns;
            }
            let truth = self.truth_ns.is_some_and(|p| now.is_multiple_of(p));
            if control || truth {
                return Chunk {
                    steps: self.steps - first,
                    end_ns: now,
                    control,
                    truth,
                };
            }
        }
    }
}

impl SimulatorConfig {
    /// Parses `text` (the contents of `path`) and checks the names.
    ///
    /// # Errors
    /// [`SupervisorError::Simulator`] naming `path`, the line and the field
    /// (an unknown field, a missing one, an unknown `simulator` kind), or a
    /// `service_prefix` that is not absolute or ends with `/`, or an empty
    /// `entity`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, SupervisorError> {
        let err = |message: String| SupervisorError::Simulator {
            path: path.to_path_buf(),
            message,
        };
        let c: Self = serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
        let p = &c.service_prefix;
        if p != "/" && (!p.starts_with('/') || p.ends_with('/') || p.contains("//")) {
            return Err(err(format!(
                "service_prefix {p:?}: expected an absolute ROS namespace such as /sim_bridge or /gzserver (no trailing '/'), or / for services at the root (Isaac Sim)"
            )));
        }
        if c.entity.trim().is_empty() {
            return Err(err(
                "entity: empty (the robot's entity name in the simulator)".into(),
            ));
        }
        let t = &c.command_topic;
        if !t.starts_with('/') || t.len() < 2 || t.ends_with('/') {
            return Err(err(format!(
                "command_topic {t:?}: expected an absolute topic name such as /cmd_vel"
            )));
        }
        if c.ground_truth == GroundTruth::GetEntityState && c.stepping != Stepping::StepSimulation {
            return Err(err(
                "ground_truth: get_entity_state needs stepping: step_simulation (the state is read after each step the campaign makes)".into(),
            ));
        }
        Ok(c)
    }

    /// Reads and parses the file at `path`.
    ///
    /// # Errors
    /// As [`Self::parse`]; an unreadable file.
    pub fn load(path: &Path) -> Result<Self, SupervisorError> {
        let text = std::fs::read_to_string(path).map_err(|e| SupervisorError::Simulator {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::parse(path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SimulatorConfig, String> {
        SimulatorConfig::parse(Path::new("sim.yaml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_valid_file_parses() {
        let c =
            parse("simulator: simulation_interfaces\nservice_prefix: /gzserver\nentity: robot\n")
                .unwrap();
        assert_eq!(
            c,
            SimulatorConfig {
                simulator: SimulatorKind::SimulationInterfaces,
                service_prefix: "/gzserver".into(),
                entity: "robot".into(),
                stepping: Stepping::FreeRunning,
                ground_truth: GroundTruth::Topic,
                command_topic: "/cmd_vel".into(),
            }
        );
        let c = parse(
            "simulator: simulation_interfaces\nservice_prefix: /s\nentity: r\nstepping: step_simulation\nground_truth: get_entity_state\ncommand_topic: /base/cmd\n",
        )
        .unwrap();
        assert_eq!(
            (c.stepping, c.ground_truth, c.command_topic.as_str()),
            (
                Stepping::StepSimulation,
                GroundTruth::GetEntityState,
                "/base/cmd"
            )
        );
    }

    #[test]
    fn bad_stepping_and_ground_truth_are_refused() {
        let base = "simulator: simulation_interfaces\nservice_prefix: /s\nentity: r\n";
        let e = parse(&format!("{base}stepping: lockstep\n")).unwrap_err();
        assert!(
            e.contains("unknown variant `lockstep`") && e.contains("line 4"),
            "{e}"
        );
        let e = parse(&format!("{base}ground_truth: get_entity_state\n")).unwrap_err();
        assert!(e.contains("needs stepping: step_simulation"), "{e}");
        let e = parse(&format!("{base}command_topic: cmd_vel\n")).unwrap_err();
        assert!(e.contains("command_topic \"cmd_vel\""), "{e}");
    }

    /// sim_bridge's lock-step rule at step 10 ms, control 50 ms: instants
    /// at 10, 50, 100 ms (4 then 5 steps); with truth at 20 ms in between.
    #[test]
    fn the_schedule_is_the_lockstep_bridges() {
        let ms = 1_000_000;
        let mut s = StepSchedule::new(10 * ms, 50 * ms, None).unwrap();
        let got: Vec<_> = (0..4)
            .map(|_| {
                let c = s.next_chunk();
                (c.steps, c.end_ns / ms, c.control, c.truth)
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, 10, true, false),
                (4, 50, true, false),
                (5, 100, true, false),
                (5, 150, true, false)
            ]
        );
        let mut s = StepSchedule::new(10 * ms, 50 * ms, Some(20 * ms)).unwrap();
        let got: Vec<_> = (0..5)
            .map(|_| {
                let c = s.next_chunk();
                (c.steps, c.end_ns / ms, c.control, c.truth)
            })
            .collect();
        assert_eq!(
            got,
            [
                (1, 10, true, false),
                (1, 20, false, true),
                (2, 40, false, true),
                (1, 50, true, false),
                (1, 60, false, true)
            ]
        );
        assert!(StepSchedule::new(10 * ms, 0, None).is_err());
    }

    #[test]
    fn bad_files_are_named_with_line_and_field() {
        let e =
            parse("simulator: simulation_interfaces\nservice_prefix: /s\nentity: r\nground: x\n")
                .unwrap_err();
        assert!(
            e.starts_with("--simulator sim.yaml: ")
                && e.contains("unknown field `ground`")
                && e.contains("line 4"),
            "{e}"
        );
        let e = parse("simulator: gazebo\nservice_prefix: /s\nentity: r\n").unwrap_err();
        assert!(
            e.contains("unknown variant `gazebo`") && e.contains("line 1"),
            "{e}"
        );
        let e = parse("simulator: simulation_interfaces\nentity: r\n").unwrap_err();
        assert!(e.contains("missing field `service_prefix`"), "{e}");
        let e = parse("simulator: simulation_interfaces\nservice_prefix: sim/\nentity: r\n")
            .unwrap_err();
        assert!(e.contains("service_prefix \"sim/\""), "{e}");
        let e = parse("simulator: simulation_interfaces\nservice_prefix: /sim\nentity: ' '\n")
            .unwrap_err();
        assert!(e.contains("entity: empty"), "{e}");
    }
}
