//! Standard ROS 2 message types (ROS 2 Jazzy definitions), serde-encoded in
//! `.msg` field order. Fixed-size arrays are Rust arrays, sequences are `Vec`.

use serde::{Deserialize, Serialize};
use serde_big_array::BigArray;

/// `builtin_interfaces/msg/Time`: seconds and nanoseconds since the clock's epoch.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
pub struct Time {
    pub sec: i32,
    pub nanosec: u32,
}

impl Time {
    /// Builds a stamp from integer nanoseconds (negative values are clamped to 0).
    pub fn from_nanos(ns: i64) -> Self {
        // Saturate at 0 and at the largest stamp (i32::MAX s + 999_999_999 ns).
        let ns = ns.clamp(0, i32::MAX as i64 * 1_000_000_000 + 999_999_999);
        Self {
            sec: (ns / 1_000_000_000) as i32,
            nanosec: (ns % 1_000_000_000) as u32,
        }
    }
    /// The stamp `ns` nanoseconds from the epoch, negative ones included,
    /// saturating at the type's range: sec is int32, so
    /// [-2^31 s, 2^31 - 1 s + 999,999,999 ns]; nanosec is in [0, 1e9)
    /// (-0.5 s is sec -1, nanosec 500,000,000).
    pub fn from_nanos_signed(ns: i64) -> Self {
        let ns = ns.clamp(
            i32::MIN as i64 * 1_000_000_000,
            i32::MAX as i64 * 1_000_000_000 + 999_999_999,
        );
        Self {
            sec: ns.div_euclid(1_000_000_000) as i32,
            nanosec: ns.rem_euclid(1_000_000_000) as u32,
        }
    }
    /// The stamp as integer nanoseconds.
    pub fn as_nanos(&self) -> i64 {
        self.sec as i64 * 1_000_000_000 + self.nanosec as i64
    }
    /// The stamp in seconds.
    pub fn as_secs_f64(&self) -> f64 {
        self.sec as f64 + self.nanosec as f64 * 1e-9
    }
}

/// `std_msgs/msg/Header`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub stamp: Time,
    pub frame_id: String,
}

/// `geometry_msgs/msg/Vector3`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Vector3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// `geometry_msgs/msg/Point` (metres).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

/// `geometry_msgs/msg/Quaternion`. Default is the identity rotation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quaternion {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub w: f64,
}

impl Default for Quaternion {
    fn default() -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

impl Quaternion {
    /// Rotation of `yaw` radians about +z (REP-103: counter-clockwise positive).
    pub fn from_yaw(yaw: f64) -> Self {
        let h = 0.5 * yaw;
        Self {
            x: 0.0,
            y: 0.0,
            z: h.sin(),
            w: h.cos(),
        }
    }
    /// Yaw (rotation about +z) in radians, in (-pi, pi].
    pub fn yaw(&self) -> f64 {
        let siny_cosp = 2.0 * (self.w * self.z + self.x * self.y);
        let cosy_cosp = 1.0 - 2.0 * (self.y * self.y + self.z * self.z);
        siny_cosp.atan2(cosy_cosp)
    }
}

/// `geometry_msgs/msg/Pose`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    pub position: Point,
    pub orientation: Quaternion,
}

/// `geometry_msgs/msg/PoseWithCovariance`: 6x6 row-major covariance over
/// (x, y, z, rot x, rot y, rot z).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PoseWithCovariance {
    pub pose: Pose,
    #[serde(with = "BigArray")]
    pub covariance: [f64; 36],
}

impl Default for PoseWithCovariance {
    fn default() -> Self {
        Self {
            pose: Pose::default(),
            covariance: [0.0; 36],
        }
    }
}

/// `geometry_msgs/msg/Twist`: linear (m/s) and angular (rad/s) velocity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Twist {
    pub linear: Vector3,
    pub angular: Vector3,
}

/// `geometry_msgs/msg/TwistStamped` (Nav2 Kilted's `cmd_vel`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TwistStamped {
    pub header: Header,
    pub twist: Twist,
}

/// `geometry_msgs/msg/TwistWithCovariance`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TwistWithCovariance {
    pub twist: Twist,
    #[serde(with = "BigArray")]
    pub covariance: [f64; 36],
}

impl Default for TwistWithCovariance {
    fn default() -> Self {
        Self {
            twist: Twist::default(),
            covariance: [0.0; 36],
        }
    }
}

/// `geometry_msgs/msg/Transform`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Transform {
    pub translation: Vector3,
    pub rotation: Quaternion,
}

/// `geometry_msgs/msg/TransformStamped`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TransformStamped {
    pub header: Header,
    pub child_frame_id: String,
    pub transform: Transform,
}

/// `tf2_msgs/msg/TFMessage` (the `/tf` topic).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TFMessage {
    pub transforms: Vec<TransformStamped>,
}

/// `nav_msgs/msg/Odometry`: pose in `header.frame_id` (REP-105: `odom`),
/// twist in `child_frame_id` (`base_link`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Odometry {
    pub header: Header,
    pub child_frame_id: String,
    pub pose: PoseWithCovariance,
    pub twist: TwistWithCovariance,
}

/// `sensor_msgs/msg/NavSatStatus`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NavSatStatus {
    pub status: i8,
    pub service: u16,
}

impl NavSatStatus {
    pub const STATUS_UNKNOWN: i8 = -2;
    pub const STATUS_NO_FIX: i8 = -1;
    pub const STATUS_FIX: i8 = 0;
    pub const STATUS_SBAS_FIX: i8 = 1;
    pub const STATUS_GBAS_FIX: i8 = 2;
    pub const SERVICE_GPS: u16 = 1;
    pub const SERVICE_GLONASS: u16 = 2;
    pub const SERVICE_COMPASS: u16 = 4;
    pub const SERVICE_GALILEO: u16 = 8;
}

/// `sensor_msgs/msg/NavSatFix`: latitude/longitude in degrees (WGS 84),
/// altitude in metres above the ellipsoid, ENU position covariance in m².
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NavSatFix {
    pub header: Header,
    pub status: NavSatStatus,
    pub latitude: f64,
    pub longitude: f64,
    pub altitude: f64,
    pub position_covariance: [f64; 9],
    pub position_covariance_type: u8,
}

impl NavSatFix {
    pub const COVARIANCE_TYPE_UNKNOWN: u8 = 0;
    pub const COVARIANCE_TYPE_APPROXIMATED: u8 = 1;
    pub const COVARIANCE_TYPE_DIAGONAL_KNOWN: u8 = 2;
    pub const COVARIANCE_TYPE_KNOWN: u8 = 3;
}

/// `sensor_msgs/msg/Imu`: angular velocity in rad/s, linear acceleration in m/s².
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Imu {
    pub header: Header,
    pub orientation: Quaternion,
    pub orientation_covariance: [f64; 9],
    pub angular_velocity: Vector3,
    pub angular_velocity_covariance: [f64; 9],
    pub linear_acceleration: Vector3,
    pub linear_acceleration_covariance: [f64; 9],
}

/// `sensor_msgs/msg/LaserScan`: angles in radians (counter-clockwise from +x
/// of `header.frame_id`), ranges in metres; a beam with no return is `+inf`
/// (REP-117).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LaserScan {
    pub header: Header,
    pub angle_min: f32,
    pub angle_max: f32,
    pub angle_increment: f32,
    pub time_increment: f32,
    pub scan_time: f32,
    pub range_min: f32,
    pub range_max: f32,
    pub ranges: Vec<f32>,
    pub intensities: Vec<f32>,
}

/// `rosgraph_msgs/msg/Clock` (the `/clock` topic).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Clock {
    pub clock: Time,
}

/// `std_msgs/msg/Bool`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bool {
    pub data: bool,
}

/// `std_msgs/msg/String`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StringMsg {
    pub data: String,
}

/// `std_srvs/srv/Trigger` request. An empty ROS 2 message carries one
/// placeholder byte on the wire (`structure_needs_at_least_one_member`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerRequest {
    pub structure_needs_at_least_one_member: u8,
}

/// `std_srvs/srv/Trigger` response.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriggerResponse {
    pub success: bool,
    pub message: String,
}

/// `rcl_interfaces/msg/Log` (the `/rosout` topic): one log record. `level`
/// is one of the constants (`DEBUG` 10 … `FATAL` 50), `name` the logger
/// name, `stamp` the time of the record on the node's clock.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Log {
    pub stamp: Time,
    pub level: u8,
    pub name: String,
    pub msg: String,
    pub file: String,
    pub function: String,
    pub line: u32,
}

impl Log {
    pub const DEBUG: u8 = 10;
    pub const INFO: u8 = 20;
    pub const WARN: u8 = 30;
    pub const ERROR: u8 = 40;
    pub const FATAL: u8 = 50;
}

/// `diagnostic_msgs/msg/KeyValue`: one labelled value of a status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyValue {
    pub key: String,
    pub value: String,
}

/// `diagnostic_msgs/msg/DiagnosticStatus`: the status of one component.
/// `level` is one of the constants (`OK` 0, `WARN` 1, `ERROR` 2, `STALE` 3;
/// a ROS `byte`, one octet on the wire like `uint8`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiagnosticStatus {
    pub level: u8,
    pub name: String,
    pub message: String,
    pub hardware_id: String,
    pub values: Vec<KeyValue>,
}

impl DiagnosticStatus {
    pub const OK: u8 = 0;
    pub const WARN: u8 = 1;
    pub const ERROR: u8 = 2;
    pub const STALE: u8 = 3;
}

/// `diagnostic_msgs/msg/DiagnosticArray` (the `/diagnostics` topic).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DiagnosticArray {
    pub header: Header,
    pub status: Vec<DiagnosticStatus>,
}
