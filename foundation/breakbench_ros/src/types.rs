//! ROS 2 type names of the kraken_interfaces message and service types.

use kraken_interfaces::{ros, simif};
use serde::{de::DeserializeOwned, Serialize};

/// A Rust type that is the wire image of one ROS 2 message type.
pub trait RosType: Serialize + DeserializeOwned + 'static {
    /// ROS package, e.g. `sensor_msgs`.
    const PACKAGE: &'static str;
    /// Type name inside the package, e.g. `NavSatFix`.
    const NAME: &'static str;
    /// `<pkg>/msg/<Name>`, as `ros2 topic info` prints it.
    fn ros_name() -> String {
        format!("{}/msg/{}", Self::PACKAGE, Self::NAME)
    }
}

macro_rules! ros_type {
    ($($t:ty => $pkg:literal / $name:literal),* $(,)?) => {
        $(impl RosType for $t { const PACKAGE: &'static str = $pkg; const NAME: &'static str = $name; })*
    };
}

ros_type! {
    ros::Time => "builtin_interfaces" / "Time",
    ros::Header => "std_msgs" / "Header",
    ros::Vector3 => "geometry_msgs" / "Vector3",
    ros::Point => "geometry_msgs" / "Point",
    ros::Quaternion => "geometry_msgs" / "Quaternion",
    ros::Pose => "geometry_msgs" / "Pose",
    ros::PoseWithCovariance => "geometry_msgs" / "PoseWithCovariance",
    ros::Twist => "geometry_msgs" / "Twist",
    ros::TwistStamped => "geometry_msgs" / "TwistStamped",
    ros::TwistWithCovariance => "geometry_msgs" / "TwistWithCovariance",
    ros::Transform => "geometry_msgs" / "Transform",
    ros::TransformStamped => "geometry_msgs" / "TransformStamped",
    ros::TFMessage => "tf2_msgs" / "TFMessage",
    ros::Odometry => "nav_msgs" / "Odometry",
    ros::NavSatStatus => "sensor_msgs" / "NavSatStatus",
    ros::NavSatFix => "sensor_msgs" / "NavSatFix",
    ros::Imu => "sensor_msgs" / "Imu",
    ros::LaserScan => "sensor_msgs" / "LaserScan",
    ros::Clock => "rosgraph_msgs" / "Clock",
    ros::Bool => "std_msgs" / "Bool",
    ros::StringMsg => "std_msgs" / "String",
    ros::Log => "rcl_interfaces" / "Log",
    ros::KeyValue => "diagnostic_msgs" / "KeyValue",
    ros::DiagnosticStatus => "diagnostic_msgs" / "DiagnosticStatus",
    ros::DiagnosticArray => "diagnostic_msgs" / "DiagnosticArray",
    kraken_interfaces::FaultSpec => "kraken_interfaces" / "FaultSpec",
    kraken_interfaces::ChannelFaultStatus => "kraken_interfaces" / "ChannelFaultStatus",
    kraken_interfaces::FaultStatus => "kraken_interfaces" / "FaultStatus",
    simif::Accel => "geometry_msgs" / "Accel",
    simif::SimResult => "simulation_interfaces" / "Result",
    simif::SimulationState => "simulation_interfaces" / "SimulationState",
    simif::SimulatorFeatures => "simulation_interfaces" / "SimulatorFeatures",
    simif::EntityState => "simulation_interfaces" / "EntityState",
    simif::EntityFilters => "simulation_interfaces" / "EntityFilters",
}

/// A ROS 2 service type: request and response wire types plus its name.
pub trait RosService {
    type Request: Serialize + DeserializeOwned + Clone + 'static;
    type Response: Serialize + DeserializeOwned + 'static;
    const PACKAGE: &'static str;
    const NAME: &'static str;
}

/// `kraken_interfaces/srv/SetFault`.
pub struct SetFaultSrv;
impl RosService for SetFaultSrv {
    type Request = kraken_interfaces::SetFaultRequest;
    type Response = kraken_interfaces::SetFaultResponse;
    const PACKAGE: &'static str = "kraken_interfaces";
    const NAME: &'static str = "SetFault";
}

/// `kraken_interfaces/srv/SetFaultStack`.
pub struct SetFaultStackSrv;
impl RosService for SetFaultStackSrv {
    type Request = kraken_interfaces::SetFaultStackRequest;
    type Response = kraken_interfaces::SetFaultStackResponse;
    const PACKAGE: &'static str = "kraken_interfaces";
    const NAME: &'static str = "SetFaultStack";
}

/// `kraken_interfaces/srv/ClearFaultStage`.
pub struct ClearFaultStageSrv;
impl RosService for ClearFaultStageSrv {
    type Request = kraken_interfaces::ClearFaultStageRequest;
    type Response = kraken_interfaces::ClearFaultStageResponse;
    const PACKAGE: &'static str = "kraken_interfaces";
    const NAME: &'static str = "ClearFaultStage";
}

/// `kraken_interfaces/srv/ResetRun` (REQ-GRAPH-RESET).
pub struct ResetRunSrv;
impl RosService for ResetRunSrv {
    type Request = kraken_interfaces::ResetRunRequest;
    type Response = kraken_interfaces::ResetRunResponse;
    const PACKAGE: &'static str = "kraken_interfaces";
    const NAME: &'static str = "ResetRun";
}

/// `std_srvs/srv/Trigger`.
pub struct TriggerSrv;
impl RosService for TriggerSrv {
    type Request = ros::TriggerRequest;
    type Response = ros::TriggerResponse;
    const PACKAGE: &'static str = "std_srvs";
    const NAME: &'static str = "Trigger";
}

/// A `simulation_interfaces/srv/<name>` service (the ROS 2 simulator
/// standard, issue 29; REQ-SIMIF-SERVE).
macro_rules! simif_service {
    ($($(#[$doc:meta])* $t:ident : $name:literal => $req:ty, $resp:ty;)*) => {
        $(
            $(#[$doc])*
            pub struct $t;
            impl RosService for $t {
                type Request = $req;
                type Response = $resp;
                const PACKAGE: &'static str = "simulation_interfaces";
                const NAME: &'static str = $name;
            }
        )*
    };
}

simif_service! {
    /// `simulation_interfaces/srv/ResetSimulation`.
    ResetSimulationSrv: "ResetSimulation" => simif::ResetSimulationRequest, simif::ResultResponse;
    /// `simulation_interfaces/srv/StepSimulation`.
    StepSimulationSrv: "StepSimulation" => simif::StepSimulationRequest, simif::ResultResponse;
    /// `simulation_interfaces/srv/GetSimulationState`.
    GetSimulationStateSrv: "GetSimulationState" => simif::EmptyRequest, simif::GetSimulationStateResponse;
    /// `simulation_interfaces/srv/SetSimulationState`.
    SetSimulationStateSrv: "SetSimulationState" => simif::SetSimulationStateRequest, simif::ResultResponse;
    /// `simulation_interfaces/srv/GetEntityState`.
    GetEntityStateSrv: "GetEntityState" => simif::GetEntityStateRequest, simif::GetEntityStateResponse;
    /// `simulation_interfaces/srv/GetEntities`.
    GetEntitiesSrv: "GetEntities" => simif::GetEntitiesRequest, simif::GetEntitiesResponse;
    /// `simulation_interfaces/srv/GetSimulatorFeatures`.
    GetSimulatorFeaturesSrv: "GetSimulatorFeatures" => simif::EmptyRequest, simif::GetSimulatorFeaturesResponse;
}
