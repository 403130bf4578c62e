//! The `simulation_interfaces` types (the ROS 2 simulator standard, Jazzy
//! 1.5.1: `../shared/tools/simulation_interfaces/SOURCES`) that the sim
//! bridge serves and the campaign's graph executor calls (issue 29,
//! REQ-SIMIF-SERVE): serde-encoded in `.msg`/`.srv` field order, as
//! [`crate::ros`]. Constants are the `.msg` files' (same names). Only the
//! types the bridge serves are here: ResetSimulation, StepSimulation,
//! Get/SetSimulationState, GetEntityState, GetEntities, GetSimulatorFeatures
//! and the messages they use.

use serde::{Deserialize, Serialize};

use crate::ros::{Header, Pose, Twist, Vector3};

/// `geometry_msgs/msg/Accel`: linear (m/s²) and angular (rad/s²) acceleration.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Accel {
    pub linear: Vector3,
    pub angular: Vector3,
}

/// `simulation_interfaces/msg/Result`: every call's outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimResult {
    /// One of the `RESULT_*` codes (or a service's own, e.g.
    /// [`SetSimulationStateResponse::ALREADY_IN_TARGET_STATE`]).
    pub result: u8,
    /// Why, when not OK.
    pub error_message: String,
}

impl SimResult {
    pub const RESULT_FEATURE_UNSUPPORTED: u8 = 0;
    pub const RESULT_OK: u8 = 1;
    pub const RESULT_NOT_FOUND: u8 = 2;
    pub const RESULT_INCORRECT_STATE: u8 = 3;
    pub const RESULT_OPERATION_FAILED: u8 = 4;

    /// `RESULT_OK`, no message.
    pub fn ok() -> Self {
        Self {
            result: Self::RESULT_OK,
            error_message: String::new(),
        }
    }

    /// `code` with `msg`.
    pub fn err(code: u8, msg: impl Into<String>) -> Self {
        Self {
            result: code,
            error_message: msg.into(),
        }
    }
}

/// `simulation_interfaces/msg/SimulationState`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimulationState {
    /// One of the `STATE_*` codes.
    pub state: u8,
}

impl SimulationState {
    pub const STATE_STOPPED: u8 = 0;
    pub const STATE_PLAYING: u8 = 1;
    pub const STATE_PAUSED: u8 = 2;
    pub const STATE_QUITTING: u8 = 3;
    pub const STATE_NO_WORLD: u8 = 4;
    pub const STATE_LOADING_WORLD: u8 = 5;
}

/// `simulation_interfaces/msg/SimulatorFeatures`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimulatorFeatures {
    /// The supported features (the constants below).
    pub features: Vec<u16>,
    /// Supported formats for spawning (none here).
    pub spawn_formats: Vec<String>,
    /// Free text for the caller.
    pub custom_info: String,
}

impl SimulatorFeatures {
    pub const SPAWNING: u16 = 0;
    pub const DELETING: u16 = 1;
    pub const NAMED_POSES: u16 = 2;
    pub const POSE_BOUNDS: u16 = 3;
    pub const ENTITY_TAGS: u16 = 4;
    pub const ENTITY_BOUNDS: u16 = 5;
    pub const ENTITY_BOUNDS_BOX: u16 = 6;
    pub const ENTITY_BOUNDS_CONVEX: u16 = 7;
    pub const ENTITY_CATEGORIES: u16 = 8;
    pub const SPAWNING_RESOURCE_STRING: u16 = 9;
    pub const ENTITY_STATE_GETTING: u16 = 10;
    pub const ENTITY_STATE_SETTING: u16 = 11;
    pub const ENTITY_INFO_GETTING: u16 = 12;
    pub const ENTITY_INFO_SETTING: u16 = 13;
    pub const SPAWNABLES: u16 = 14;
    pub const SIMULATION_RESET: u16 = 20;
    pub const SIMULATION_RESET_TIME: u16 = 21;
    pub const SIMULATION_RESET_STATE: u16 = 22;
    pub const SIMULATION_RESET_SPAWNED: u16 = 23;
    pub const SIMULATION_STATE_GETTING: u16 = 24;
    pub const SIMULATION_STATE_SETTING: u16 = 25;
    pub const SIMULATION_STATE_PAUSE: u16 = 26;
    pub const STEP_SIMULATION_SINGLE: u16 = 31;
    pub const STEP_SIMULATION_MULTIPLE: u16 = 32;
    pub const STEP_SIMULATION_ACTION: u16 = 33;
    pub const WORLD_LOADING: u16 = 40;
    pub const WORLD_RESOURCE_STRING: u16 = 41;
    pub const WORLD_TAGS: u16 = 42;
    pub const WORLD_UNLOADING: u16 = 43;
    pub const WORLD_INFO_GETTING: u16 = 44;
    pub const AVAILABLE_WORLDS: u16 = 45;
    pub const SPAWNING_ENTITIES: u16 = 50;
}

/// `simulation_interfaces/msg/EntityState`: ground truth in
/// `header.frame_id` (empty: the world).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntityState {
    pub header: Header,
    pub pose: Pose,
    pub twist: Twist,
    pub acceleration: Accel,
}

/// `simulation_interfaces/msg/EntityCategory`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityCategory {
    pub category: u8,
}

/// `simulation_interfaces/msg/TagsFilter`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagsFilter {
    pub tags: Vec<String>,
    pub filter_mode: u8,
}

/// `simulation_interfaces/msg/Bounds`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    /// `TYPE_EMPTY` (0), `TYPE_BOX`, `TYPE_CONVEX_HULL`, `TYPE_SPHERE`.
    #[serde(rename = "type")]
    pub kind: u8,
    pub points: Vec<Vector3>,
}

impl Bounds {
    pub const TYPE_EMPTY: u8 = 0;
}

/// `simulation_interfaces/msg/EntityFilters`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntityFilters {
    /// POSIX extended regular expression over entity names (empty: all).
    pub filter: String,
    pub categories: Vec<EntityCategory>,
    pub tags: TagsFilter,
    pub bounds: Bounds,
}

/// An empty request (rosidl adds one `uint8` member to an empty structure).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmptyRequest {
    pub structure_needs_at_least_one_member: u8,
}

/// `simulation_interfaces/srv/ResetSimulation` request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetSimulationRequest {
    /// Bit field of the `SCOPE_*` constants; 0 is `SCOPE_ALL`.
    pub scope: u8,
}

impl ResetSimulationRequest {
    pub const SCOPE_DEFAULT: u8 = 0;
    pub const SCOPE_TIME: u8 = 1;
    pub const SCOPE_STATE: u8 = 2;
    pub const SCOPE_SPAWNED: u8 = 4;
    pub const SCOPE_ALL: u8 = 255;
}

/// A response that is only a [`SimResult`] (ResetSimulation,
/// StepSimulation, SetSimulationState).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultResponse {
    pub result: SimResult,
}

/// `simulation_interfaces/srv/StepSimulation` request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepSimulationRequest {
    /// Plant steps to simulate (the `.srv` default is 1).
    pub steps: u64,
}

impl Default for StepSimulationRequest {
    fn default() -> Self {
        Self { steps: 1 }
    }
}

/// `simulation_interfaces/srv/GetSimulationState` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetSimulationStateResponse {
    pub state: SimulationState,
    pub result: SimResult,
}

/// `simulation_interfaces/srv/SetSimulationState` request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetSimulationStateRequest {
    pub state: SimulationState,
}

/// `simulation_interfaces/srv/SetSimulationState`'s own result codes.
pub struct SetSimulationStateResponse;

impl SetSimulationStateResponse {
    pub const ALREADY_IN_TARGET_STATE: u8 = 101;
    pub const STATE_TRANSITION_ERROR: u8 = 102;
    pub const INCORRECT_TRANSITION: u8 = 103;
}

/// `simulation_interfaces/srv/GetEntityState` request.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetEntityStateRequest {
    pub entity: String,
}

/// `simulation_interfaces/srv/GetEntityState` response (`state` valid when
/// `result` is OK).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetEntityStateResponse {
    pub result: SimResult,
    pub state: EntityState,
}

/// `simulation_interfaces/srv/GetEntities` request.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GetEntitiesRequest {
    pub filters: EntityFilters,
}

/// `simulation_interfaces/srv/GetEntities` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetEntitiesResponse {
    pub result: SimResult,
    pub entities: Vec<String>,
}

/// `simulation_interfaces/srv/GetSimulatorFeatures` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GetSimulatorFeaturesResponse {
    pub features: SimulatorFeatures,
}
