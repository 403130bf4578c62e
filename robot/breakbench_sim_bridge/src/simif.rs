//! The simulator side of `simulation_interfaces` (the ROS 2 simulator
//! standard, issue 29, REQ-SIMIF-SERVE), transport-free: the simulation
//! state machine (stopped, playing, paused), what each call answers and
//! what it asks the bridge to do, and the robot entity's ground truth.
//! `sim_bridge` only converts between these and its services.
//!
//! Supported (listed by [`features`]): ResetSimulation (scopes DEFAULT,
//! ALL, or TIME|STATE together: the plant is rebuilt from the run's seed,
//! the robot at its start pose, sim time 0), StepSimulation (1 or N plant
//! steps, while paused), GetSimulationState, SetSimulationState (PLAYING,
//! PAUSED, STOPPED), GetEntityState and GetEntities (one entity: the
//! robot). Everything else is answered `RESULT_FEATURE_UNSUPPORTED` (or
//! the call's error code) with a message, never a silent success.

use std::time::Duration;

use breakbench_world::world::Pose2;
use kraken_interfaces::ros::{Header, Point, Pose, Quaternion, Time, Twist, Vector3};
use kraken_interfaces::simif::{
    Accel, Bounds, EntityFilters, EntityState, GetEntitiesResponse, GetEntityStateResponse,
    GetSimulationStateResponse, ResetSimulationRequest as Rs, SetSimulationStateResponse as Ss,
    SimResult, SimulationState, SimulatorFeatures,
};

use crate::plant::WORLD_FRAME;

/// The default name of the robot entity (parameter `entity_name`).
pub const ROBOT_ENTITY: &str = "robot";

/// The service names under the prefix, in the order the bridge creates them.
pub const SERVICES: [&str; 7] = [
    "reset_simulation",
    "step_simulation",
    "get_simulation_state",
    "set_simulation_state",
    "get_entity_state",
    "get_entities",
    "get_simulator_features",
];

/// The simulation states the bridge can be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimState {
    /// Not stepping; the next start steps from sim time 0.
    Stopped,
    /// Stepping on its own (free running or lock-step on `/cmd_vel`).
    Playing,
    /// Stepping only on StepSimulation.
    Paused,
}

impl SimState {
    /// The `SimulationState.state` code.
    pub fn code(self) -> u8 {
        match self {
            SimState::Stopped => SimulationState::STATE_STOPPED,
            SimState::Playing => SimulationState::STATE_PLAYING,
            SimState::Paused => SimulationState::STATE_PAUSED,
        }
    }
}

/// What a SetSimulationState asks the bridge to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// Nothing (refused, or already in the target state).
    None,
    /// From stopped: start the run (as a `~/start` call), playing or paused.
    Start,
    /// Playing to paused or back: keep the plant, change who steps it.
    Switch,
    /// To stopped: rebuild the plant from the run's seed (sim time 0) and
    /// wait for a start.
    Stop,
}

/// The features the bridge supports, in ascending order.
pub fn features() -> SimulatorFeatures {
    SimulatorFeatures {
        features: vec![
            SimulatorFeatures::ENTITY_STATE_GETTING,
            SimulatorFeatures::SIMULATION_RESET,
            SimulatorFeatures::SIMULATION_STATE_GETTING,
            SimulatorFeatures::SIMULATION_STATE_SETTING,
            SimulatorFeatures::SIMULATION_STATE_PAUSE,
            SimulatorFeatures::STEP_SIMULATION_SINGLE,
            SimulatorFeatures::STEP_SIMULATION_MULTIPLE,
        ],
        spawn_formats: vec![],
        custom_info: "breakbench sim_bridge: kinematic diff-drive plant; one entity (the robot); \
                      a step is one plant step (robot file step_s); ResetSimulation resets time \
                      and state together (scopes DEFAULT, ALL, TIME|STATE); ground truth in \
                      frame 'world'"
            .into(),
    }
}

/// The simulation state machine of one bridge.
#[derive(Debug, Clone)]
pub struct SimControl {
    state: SimState,
    /// The state after a reset: the launch state (stopped with
    /// `start_service: true`, playing otherwise).
    launch_state: SimState,
    entity: String,
}

impl SimControl {
    /// A bridge whose robot entity is `entity`, at launch: stopped when it
    /// waits for a start call (`start_stopped`), playing otherwise.
    pub fn new(entity: &str, start_stopped: bool) -> Self {
        let launch_state = if start_stopped {
            SimState::Stopped
        } else {
            SimState::Playing
        };
        Self {
            state: launch_state,
            launch_state,
            entity: entity.into(),
        }
    }

    /// The current state.
    pub fn state(&self) -> SimState {
        self.state
    }

    /// The robot entity's name.
    pub fn entity(&self) -> &str {
        &self.entity
    }

    /// A `~/start` call (or a start the bridge needs no call for): playing.
    pub fn on_start_call(&mut self) {
        if self.state == SimState::Stopped {
            self.state = SimState::Playing;
        }
    }

    /// `~/reset` (kraken_interfaces/ResetRun): back to the launch state.
    pub fn on_run_reset(&mut self) {
        self.state = self.launch_state;
    }

    /// GetSimulationState.
    pub fn get_state(&self) -> GetSimulationStateResponse {
        GetSimulationStateResponse {
            state: SimulationState {
                state: self.state.code(),
            },
            result: SimResult::ok(),
        }
    }

    /// ResetSimulation of `scope`: `Ok` when the bridge must rebuild the
    /// plant from the run's seed (then the state is the launch state),
    /// otherwise the error to answer (a scope it cannot do alone).
    ///
    /// # Errors
    /// `RESULT_FEATURE_UNSUPPORTED` for TIME or STATE alone, or SPAWNED
    /// without both.
    pub fn reset(&mut self, scope: u8) -> Result<(), SimResult> {
        let both = Rs::SCOPE_TIME | Rs::SCOPE_STATE;
        if scope == Rs::SCOPE_DEFAULT || scope & both == both {
            self.state = self.launch_state;
            return Ok(());
        }
        Err(SimResult::err(
            SimResult::RESULT_FEATURE_UNSUPPORTED,
            format!(
                "reset scope {scope}: this simulator resets time and state together only \
                 (SCOPE_DEFAULT, SCOPE_ALL, or SCOPE_TIME|SCOPE_STATE)"
            ),
        ))
    }

    /// SetSimulationState to `target`: the result to answer and what the
    /// bridge must do.
    pub fn set_state(&mut self, target: u8) -> (SimResult, Transition) {
        use SimulationState as S;
        let to = match target {
            S::STATE_STOPPED => SimState::Stopped,
            S::STATE_PLAYING => SimState::Playing,
            S::STATE_PAUSED => SimState::Paused,
            S::STATE_QUITTING | S::STATE_NO_WORLD | S::STATE_LOADING_WORLD => {
                let msg = format!(
                    "state {target}: quitting and world loading are not supported \
                     (stop the node with SIGINT)"
                );
                let r = SimResult::err(SimResult::RESULT_FEATURE_UNSUPPORTED, msg);
                return (r, Transition::None);
            }
            _ => {
                let r = SimResult::err(
                    Ss::INCORRECT_TRANSITION,
                    format!("unknown simulation state {target}"),
                );
                return (r, Transition::None);
            }
        };
        if to == self.state {
            let msg = format!("already in state {target}");
            return (
                SimResult::err(Ss::ALREADY_IN_TARGET_STATE, msg),
                Transition::None,
            );
        }
        let what = match (self.state, to) {
            (SimState::Stopped, _) => Transition::Start,
            (_, SimState::Stopped) => Transition::Stop,
            _ => Transition::Switch,
        };
        self.state = to;
        (SimResult::ok(), what)
    }

    /// StepSimulation of `steps`: the number of plant steps to make.
    ///
    /// # Errors
    /// `RESULT_OPERATION_FAILED` unless paused (the `.srv`'s rule).
    pub fn step(&self, steps: u64) -> Result<u64, SimResult> {
        if self.state != SimState::Paused {
            return Err(SimResult::err(
                SimResult::RESULT_OPERATION_FAILED,
                format!(
                    "StepSimulation needs a paused simulation (state is {}); \
                     call SetSimulationState PAUSED first",
                    self.state.code()
                ),
            ));
        }
        Ok(steps)
    }

    /// GetEntityState of `name`: the robot's ground truth at sim time
    /// `now`, pose `pose` (world frame, REP-103: m, rad) and body-frame
    /// twist `(v m/s, ω rad/s)`, given in the world frame as the standard
    /// asks (linear `v (cos ψ, sin ψ, 0)`, angular `(0, 0, ω)`);
    /// acceleration is not modelled (zero).
    pub fn entity_state(
        &self,
        name: &str,
        now: Duration,
        pose: &Pose2,
        twist: (f64, f64),
    ) -> GetEntityStateResponse {
        if name != self.entity {
            return GetEntityStateResponse {
                result: SimResult::err(
                    SimResult::RESULT_NOT_FOUND,
                    format!("no entity '{name}' (the one entity is '{}')", self.entity),
                ),
                state: EntityState::default(),
            };
        }
        let (v, w) = twist;
        let (s, c) = pose.yaw_rad.sin_cos();
        let stamp = Time {
            sec: now.as_secs().min(i32::MAX as u64) as i32,
            nanosec: now.subsec_nanos(),
        };
        GetEntityStateResponse {
            result: SimResult::ok(),
            state: EntityState {
                header: Header {
                    stamp,
                    frame_id: WORLD_FRAME.into(),
                },
                pose: Pose {
                    position: Point {
                        x: pose.x_m,
                        y: pose.y_m,
                        z: 0.0,
                    },
                    orientation: Quaternion::from_yaw(pose.yaw_rad),
                },
                twist: Twist {
                    linear: Vector3 {
                        x: v * c,
                        y: v * s,
                        z: 0.0,
                    },
                    angular: Vector3 {
                        x: 0.0,
                        y: 0.0,
                        z: w,
                    },
                },
                acceleration: Accel::default(),
            },
        }
    }

    /// GetEntities with `filters`: the robot when `filter` is empty or a
    /// literal that occurs in its name (POSIX ERE search semantics).
    /// Categories, tags and bounds are not supported.
    pub fn entities(&self, filters: &EntityFilters) -> GetEntitiesResponse {
        let unsupported = |what: &str| GetEntitiesResponse {
            result: SimResult::err(
                SimResult::RESULT_FEATURE_UNSUPPORTED,
                format!("GetEntities: {what} filters are not supported"),
            ),
            entities: vec![],
        };
        if !filters.categories.is_empty() {
            return unsupported("category");
        }
        if !filters.tags.tags.is_empty() {
            return unsupported("tag");
        }
        if filters.bounds.kind != Bounds::TYPE_EMPTY {
            return unsupported("bounds");
        }
        let f = &filters.filter;
        if f.chars().any(|c| "\\^$.|?*+()[]{}".contains(c)) {
            return unsupported("regular-expression (only a literal name)");
        }
        let entities = if self.entity.contains(f.as_str()) {
            vec![self.entity.clone()]
        } else {
            vec![]
        };
        GetEntitiesResponse {
            result: SimResult::ok(),
            entities,
        }
    }
}

#[cfg(test)]
mod tests;
