//! Observables: the signals an expectation or a trigger looks at, as the
//! run records them, and [`Observations`], the latest value of each.
//!
//! Sources (REP-103 units throughout):
//!
//! * ground truth ([`TruthSample`], from `/oracle/odom` and the world): the
//!   only source of position, clearance and region predicates, so every
//!   safety predicate is judged from ground truth;
//! * the robot's own topics: the commanded twist ([`CmdVelSample`],
//!   `geometry_msgs/Twist` on `cmd_vel`) and its odometry ([`OdomSample`],
//!   `nav_msgs/Odometry` on `odom`);
//! * `/diagnostics` ([`DiagnosticSample`], one `diagnostic_msgs/DiagnosticStatus`:
//!   level OK = 0, WARN = 1, ERROR = 2, STALE = 3, by status name; OK < WARN <
//!   ERROR are severities, STALE is "no data", its own state: [`DiagLevel`]);
//! * `/rosout` ([`LogSample`], one `rcl_interfaces/msg/Log`: level DEBUG = 10,
//!   INFO = 20, WARN = 30, ERROR = 40, FATAL = 50, logger name, message);
//! * the injector's fault status ([`FaultStatusSample`]: active, applied).
//!
//! The run converts its messages to these samples and pushes them into one
//! [`Observations`] in time order; evaluators read it at each step.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One ground-truth sample of the robot's base.
///
/// `t_s` sim time since the run start, s; `x_m`, `y_m` footprint centre in
/// the world frame, m; `yaw_rad` heading, rad; `speed_m_s` magnitude of the
/// true planar velocity, m/s (>= 0); `clearance_m` footprint clearance to the
/// nearest obstacle or wall, m (negative in contact), `None` if the world
/// gives none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TruthSample {
    pub t_s: f64,
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    pub speed_m_s: f64,
    pub clearance_m: Option<f64>,
}

/// One commanded twist (`cmd_vel`): forward speed, m/s, and yaw rate, rad/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CmdVelSample {
    pub t_s: f64,
    pub linear_x_m_s: f64,
    pub angular_z_rad_s: f64,
}

/// One odometry message of the robot's own estimate (`odom`): pose, m and
/// rad, and body twist, m/s and rad/s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OdomSample {
    pub t_s: f64,
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
    pub linear_x_m_s: f64,
    pub angular_z_rad_s: f64,
}

/// The robot's own pose estimate at `t_s`, in the world frame (the map
/// frame of an estimator; a wheel-odometry pose moved from `odom` by the
/// start pose): what it believes, for `estimate.*` observables.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateSample {
    pub t_s: f64,
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
}

/// One `diagnostic_msgs/DiagnosticStatus` received at `t_s`: its `name` and
/// `level` (OK = 0, WARN = 1, ERROR = 2, STALE = 3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiagnosticSample {
    pub t_s: f64,
    pub name: String,
    pub level: u8,
}

/// One `rcl_interfaces/msg/Log` entry of `/rosout` received at `t_s`:
/// `level` (DEBUG = 10, INFO = 20, WARN = 30, ERROR = 40, FATAL = 50), the
/// logger name and the message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogSample {
    pub t_s: f64,
    pub level: u8,
    pub logger: String,
    pub msg: String,
}

/// The injector's status of fault `fault` at `t_s`: `active` (set and not
/// cleared) and `applied` (it has changed or withheld at least one message).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultStatusSample {
    pub t_s: f64,
    pub fault: String,
    pub active: bool,
    pub applied: bool,
}

/// `diagnostic_msgs/DiagnosticStatus` levels by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum DiagLevel {
    Ok,
    Warn,
    Error,
    Stale,
}

impl DiagLevel {
    /// The wire value (OK 0, WARN 1, ERROR 2, STALE 3).
    pub fn value(self) -> u8 {
        match self {
            DiagLevel::Ok => 0,
            DiagLevel::Warn => 1,
            DiagLevel::Error => 2,
            DiagLevel::Stale => 3,
        }
    }

    /// The severity rank of a wire level: OK 0 < WARN 1 < ERROR 2, `None` for
    /// STALE (3) and any other byte. STALE means "no data" (the status is not
    /// being updated), not a severity above ERROR, although its wire value is
    /// larger (`diagnostic_msgs/DiagnosticStatus`; REQ-EXPECT-DIAG-LEVELS).
    pub fn severity(level: u8) -> Option<u8> {
        (level <= 2).then_some(level)
    }

    /// True when a status at wire level `level` is "at least `self`": for OK,
    /// WARN and ERROR a severity at or above it (never STALE); for STALE the
    /// level STALE itself (REQ-EXPECT-DIAG-LEVELS).
    pub fn at_least_met_by(self, level: u8) -> bool {
        match self {
            DiagLevel::Stale => level == DiagLevel::Stale.value(),
            l => Self::severity(level).is_some_and(|s| s >= l.value()),
        }
    }

    /// True when a status at wire level `level` is "at most `self`": a
    /// severity at or below it (never STALE; `at_most: STALE` is refused at
    /// load). REQ-EXPECT-DIAG-LEVELS.
    pub fn at_most_met_by(self, level: u8) -> bool {
        self != DiagLevel::Stale && Self::severity(level).is_some_and(|s| s <= self.value())
    }
}

/// `rcl_interfaces/msg/Log` levels by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum LogLevel {
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

impl LogLevel {
    /// The wire value (DEBUG 10, INFO 20, WARN 30, ERROR 40, FATAL 50).
    pub fn value(self) -> u8 {
        match self {
            LogLevel::Debug => 10,
            LogLevel::Info => 20,
            LogLevel::Warn => 30,
            LogLevel::Error => 40,
            LogLevel::Fatal => 50,
        }
    }
}

/// A scalar observable a `compare` predicate reads, named as in the test
/// file (`truth.x_m`); the suffix is its unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observable {
    #[serde(rename = "truth.x_m")]
    TruthX,
    #[serde(rename = "truth.y_m")]
    TruthY,
    #[serde(rename = "truth.yaw_rad")]
    TruthYaw,
    #[serde(rename = "truth.speed_m_s")]
    TruthSpeed,
    #[serde(rename = "truth.clearance_m")]
    TruthClearance,
    #[serde(rename = "cmd_vel.linear_x_m_s")]
    CmdLinear,
    #[serde(rename = "cmd_vel.angular_z_rad_s")]
    CmdAngular,
    #[serde(rename = "odom.x_m")]
    OdomX,
    #[serde(rename = "odom.y_m")]
    OdomY,
    #[serde(rename = "odom.yaw_rad")]
    OdomYaw,
    #[serde(rename = "odom.linear_x_m_s")]
    OdomLinear,
    #[serde(rename = "odom.angular_z_rad_s")]
    OdomAngular,
    #[serde(rename = "estimate.x_m")]
    EstimateX,
    #[serde(rename = "estimate.y_m")]
    EstimateY,
    #[serde(rename = "estimate.yaw_rad")]
    EstimateYaw,
    /// Distance between the robot's estimate and the true position, m
    /// (latest sample of each).
    #[serde(rename = "estimate.error_m")]
    EstimateError,
}

impl Observable {
    /// The current value, `None` before the first sample of its source (or,
    /// for the clearance, if the world gives none).
    pub fn value(self, o: &Observations) -> Option<f64> {
        use Observable::*;
        match self {
            TruthX => o.truth.map(|s| s.x_m),
            TruthY => o.truth.map(|s| s.y_m),
            TruthYaw => o.truth.map(|s| s.yaw_rad),
            TruthSpeed => o.truth.map(|s| s.speed_m_s),
            TruthClearance => o.truth.and_then(|s| s.clearance_m),
            CmdLinear => o.cmd_vel.map(|s| s.linear_x_m_s),
            CmdAngular => o.cmd_vel.map(|s| s.angular_z_rad_s),
            OdomX => o.odom.map(|s| s.x_m),
            OdomY => o.odom.map(|s| s.y_m),
            OdomYaw => o.odom.map(|s| s.yaw_rad),
            OdomLinear => o.odom.map(|s| s.linear_x_m_s),
            OdomAngular => o.odom.map(|s| s.angular_z_rad_s),
            EstimateX => o.estimate.map(|s| s.x_m),
            EstimateY => o.estimate.map(|s| s.y_m),
            EstimateYaw => o.estimate.map(|s| s.yaw_rad),
            EstimateError => match (o.estimate, o.truth) {
                (Some(e), Some(t)) => Some((e.x_m - t.x_m).hypot(e.y_m - t.y_m)),
                _ => None,
            },
        }
    }
}

/// The latest value of every observable, plus the `/rosout` entries not yet
/// retired. Deterministic: diagnostics and fault status are kept in
/// name-ordered maps.
#[derive(Debug, Clone, Default)]
pub struct Observations {
    /// Latest ground-truth sample.
    pub truth: Option<TruthSample>,
    /// Number of ground-truth samples pushed (lets an evaluator feed each
    /// sample once).
    pub truth_count: u64,
    /// Latest commanded twist.
    pub cmd_vel: Option<CmdVelSample>,
    /// Latest odometry message.
    pub odom: Option<OdomSample>,
    /// Latest pose estimate of the robot.
    pub estimate: Option<EstimateSample>,
    /// Latest level of each diagnostic status, by status name.
    pub diagnostics: BTreeMap<String, u8>,
    /// `/rosout` entries in arrival order (see [`Observations::retire_logs`]).
    pub logs: Vec<LogSample>,
    /// Latest injector status of each fault, by fault name.
    pub faults: BTreeMap<String, FaultStatusSample>,
}

impl Observations {
    /// Empty: no source has reported yet.
    pub fn new() -> Self {
        Self::default()
    }
    /// Records a ground-truth sample.
    pub fn push_truth(&mut self, s: TruthSample) {
        self.truth = Some(s);
        self.truth_count += 1;
    }
    /// Records a commanded twist.
    pub fn push_cmd_vel(&mut self, s: CmdVelSample) {
        self.cmd_vel = Some(s);
    }
    /// Records an odometry message.
    pub fn push_odom(&mut self, s: OdomSample) {
        self.odom = Some(s);
    }
    /// Records the robot's pose estimate.
    pub fn push_estimate(&mut self, s: EstimateSample) {
        self.estimate = Some(s);
    }
    /// Records a diagnostic status (its level replaces the previous one of
    /// the same name).
    pub fn push_diagnostic(&mut self, s: DiagnosticSample) {
        self.diagnostics.insert(s.name, s.level);
    }
    /// Records a `/rosout` entry.
    pub fn push_log(&mut self, s: LogSample) {
        self.logs.push(s);
    }
    /// Records the injector's status of a fault.
    pub fn push_fault_status(&mut self, s: FaultStatusSample) {
        self.faults.insert(s.fault.clone(), s);
    }
    /// Drops the `/rosout` entries stamped at or before `t_s`. Call it after
    /// every evaluator has stepped to `t_s` (an evaluator sees an entry at
    /// the first step at or after its stamp); not calling it only costs
    /// memory.
    pub fn retire_logs(&mut self, t_s: f64) {
        self.logs.retain(|l| l.t_s > t_s);
    }
}

/// The footprint clearance of a true pose to the nearest obstacle or wall
/// of a world, m (`min(sd_box(p), d_wall(p)) - footprint_radius_m`: negative
/// in contact), for [`TruthSample::clearance_m`]. Boxes as in
/// [`crate::verdict`] (parry2d-f64 signed distance), walls as segments
/// ([`breakbench_world::geometry::segment_distance_m`]).
pub struct Clearance {
    boxes: Vec<breakbench_world::geometry::BoxShape>,
    walls: Vec<[[f64; 2]; 2]>,
    radius_m: f64,
}

impl Clearance {
    /// The clearance function of `world`.
    pub fn new(world: &breakbench_world::World) -> Self {
        Self {
            boxes: world
                .obstacles
                .iter()
                .map(breakbench_world::geometry::BoxShape::new)
                .collect(),
            walls: world.walls_m.clone(),
            radius_m: world.footprint_radius_m,
        }
    }

    /// Clearance at `(x_m, y_m)`, m; `None` if the world has neither
    /// obstacles nor walls.
    pub fn at(&self, x_m: f64, y_m: f64) -> Option<f64> {
        let b = self.boxes.iter().map(|b| b.signed_distance_m(x_m, y_m));
        let w = self
            .walls
            .iter()
            .map(|[a, c]| breakbench_world::geometry::segment_distance_m(*a, *c, [x_m, y_m]));
        b.chain(w).reduce(f64::min).map(|d| d - self.radius_m)
    }

    /// The ground-truth sample of a `/oracle/odom` message: pose from
    /// [`crate::PoseSample::from_odometry`], speed = |twist.linear (x, y)|,
    /// clearance from [`Clearance::at`].
    pub fn truth_sample(&self, msg: &kraken_interfaces::ros::Odometry) -> TruthSample {
        let p = crate::PoseSample::from_odometry(msg);
        let v = &msg.twist.twist.linear;
        TruthSample {
            t_s: p.t_s,
            x_m: p.x_m,
            y_m: p.y_m,
            yaw_rad: p.yaw_rad,
            speed_m_s: v.x.hypot(v.y),
            clearance_m: self.at(p.x_m, p.y_m),
        }
    }
}
