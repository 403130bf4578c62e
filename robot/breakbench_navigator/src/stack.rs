//! The estimator + navigator stack as one [`Controller`]: wheel odometry,
//! IMU yaw rate and GNSS feed the EKF (`breakbench_estimator`), and the
//! navigator drives from the EKF's `map`-frame pose (`odometry/filtered`)
//! instead of raw wheel odometry.
//!
//! **Frames** (REP-105). The estimator's `map` frame is ENU at the world's
//! geodetic datum (the GNSS fixes are converted with
//! [`breakbench_world::geodesy::LocalEnu`] at that datum), so `map`
//! coincides with the world frame. The `map`-frame filter starts at the
//! world start pose, the `odom`-frame filter at the `odom` origin (the start
//! pose, REP-105). The navigator is given the goal in `map`: the world goal
//! centre `goal.center_m` as is (not [`breakbench_world::World::goal_in_odom`],
//! which is the same point in `odom`).
//!
//! The scan is delivered last in each step, so it is planned against the
//! pose after that step's odometry, IMU and GNSS updates. The navigator's
//! sensor health still watches the raw odometry and scan receipts.

use std::time::Duration;

pub use breakbench_estimator::EkfConfig;
use breakbench_estimator::{Estimator, EstimatorError, InitialState, Pose2};
use breakbench_world::geodesy::LocalEnu;
use breakbench_world::World;
use kraken_interfaces::ros::{DiagnosticArray, DiagnosticStatus, Log, Odometry, Time};
use kraken_interfaces::ConfigError;
use kraken_interfaces::SelfReport;
use kraken_interfaces::{MsgKind, SensorMsg};
use serde::{Deserialize, Serialize};

use crate::controller::{Controller, PublishedNames};
use crate::{health, CmdVel, Navigator, NavigatorConfig};

/// The GNSS gating of the stack's estimator: which of the estimator's two
/// GNSS gates are on (`gnss.mahalanobis_gate`, `consistency.enabled` of
/// [`EkfConfig`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Gating {
    /// Neither: the estimator fuses every fix that passes the input guards.
    None,
    /// The per-fix χ² (Mahalanobis) gate only.
    Mahalanobis,
    /// The GNSS-vs-dead-reckoning consistency monitor only.
    Consistency,
    /// Both.
    Both,
}

impl Gating {
    /// `cfg` with this gating (the other fields unchanged).
    pub fn apply(self, mut cfg: EkfConfig) -> EkfConfig {
        cfg.gnss.mahalanobis_gate = matches!(self, Gating::Mahalanobis | Gating::Both);
        cfg.consistency.enabled = matches!(self, Gating::Consistency | Gating::Both);
        cfg
    }
}

/// Errors building a [`Stack`].
#[derive(Debug, thiserror::Error)]
pub enum StackError {
    /// GNSS needs the world's datum for its `map` frame.
    #[error("the estimator stack needs the world's `datum` (GNSS is converted to ENU at it)")]
    NoDatum,
    /// The estimator refused its configuration.
    #[error("estimator: {0}")]
    Estimator(#[source] EstimatorError),
}

/// What the stack reads, in the order it takes a step's messages: odometry,
/// IMU and GNSS into the estimator, then the scan into the navigator.
pub const STACK_INPUTS: [(&str, MsgKind); 4] = [
    ("odom", MsgKind::Odometry),
    ("imu", MsgKind::Imu),
    ("gnss", MsgKind::NavSatFix),
    ("scan", MsgKind::LaserScan),
];

/// The estimator's declared parameters, `robot/breakbench_estimator/config/ekf.yaml`
/// (embedded at build time), and the path its errors name.
pub const EKF_CONFIG: (&str, &str) = (
    include_str!("../../breakbench_estimator/config/ekf.yaml"),
    "robot/breakbench_estimator/config/ekf.yaml",
);

/// The stack (see the module docs).
pub struct Stack {
    est: Estimator,
    nav: Navigator,
    enu: LocalEnu,
    /// The estimator changed since the navigator last got its pose.
    dirty: bool,
    logs: Vec<Log>,
    /// The estimator logged (a gating transition) since the last tick.
    transition: bool,
}

fn time(now: Duration) -> Time {
    Time::from_nanos(now.as_nanos() as i64)
}

fn header_time(h: &kraken_interfaces::ros::Header) -> Duration {
    Duration::from_nanos(h.stamp.as_nanos().max(0) as u64)
}

impl Stack {
    /// The stack in `world`: the navigator with `nav`, heading for the world
    /// goal in `map`; the estimator with `ekf` (e.g.
    /// `robot/breakbench_estimator/config/ekf.yaml`) gated by `gating`, starting
    /// at the world start pose in `map` and the origin in `odom`.
    ///
    /// # Errors
    /// [`StackError::NoDatum`] when the world has no datum;
    /// [`StackError::Estimator`] when `ekf` is invalid.
    pub fn new(
        nav: NavigatorConfig,
        ekf: EkfConfig,
        gating: Gating,
        world: &World,
    ) -> Result<Self, StackError> {
        let datum = world.datum.ok_or(StackError::NoDatum)?;
        let s = world.start;
        let est = Estimator::new(
            gating.apply(ekf),
            InitialState {
                stamp: Time::from_nanos(0),
                map: Pose2 {
                    x_m: s.x_m,
                    y_m: s.y_m,
                    yaw_rad: s.yaw_rad,
                },
                odom: Pose2::default(),
                v_m_s: 0.0,
                yaw_rate_rad_s: 0.0,
            },
        )
        .map_err(StackError::Estimator)?;
        Ok(Self {
            est,
            nav: Navigator::new(nav, world.goal.center_m),
            enu: LocalEnu::new(datum),
            dirty: true,
            logs: Vec::new(),
            transition: false,
        })
    }

    /// [`Self::new`] with the navigator's `estimator_gating` and the declared
    /// estimator file [`EKF_CONFIG`].
    ///
    /// # Errors
    /// As [`Self::new`]; a malformed file is [`StackError::Estimator`]
    /// naming file, line and field.
    pub fn declared(nav: NavigatorConfig, world: &World) -> Result<Self, StackError> {
        // Parsed once per process: every run of a campaign builds a stack.
        static PARSED: std::sync::OnceLock<Result<EkfConfig, ConfigError>> =
            std::sync::OnceLock::new();
        let ekf = PARSED
            .get_or_init(|| EkfConfig::parse(EKF_CONFIG.0, EKF_CONFIG.1))
            .clone()
            .map_err(|e| StackError::Estimator(EstimatorError::Config(e)))?;
        let gating = nav.estimator_gating;
        Self::new(nav, ekf, gating, world)
    }

    /// The estimator.
    pub fn estimator(&self) -> &Estimator {
        &self.est
    }

    /// The estimator's `map`-frame pose `[x m, y m, yaw rad]` (the world
    /// frame, see the module docs): what the navigator drives from.
    pub fn map_pose(&self) -> [f64; 3] {
        let x = &self.est.map_filter().x;
        [x[0], x[1], x[2]]
    }

    /// Hands the navigator the current `odometry/filtered` pose if the
    /// estimator moved since.
    fn sync_pose(&mut self) {
        if self.dirty {
            let o: Odometry = self.est.filtered_odometry();
            self.nav.on_odom(&o);
            self.dirty = false;
        }
    }

    /// Moves the estimator's new log records into the stack's.
    fn drain_estimator_logs(&mut self) {
        let new = self.est.drain_logs();
        if !new.is_empty() {
            self.transition = true;
            self.logs.extend(new.into_iter().map(|r| r.to_ros()));
        }
    }

    fn estimator_statuses(&self, now: Duration) -> impl Iterator<Item = DiagnosticStatus> {
        self.est
            .diagnostics(time(now))
            .into_iter()
            .map(|s| s.to_ros())
    }
}

impl Controller for Stack {
    fn inputs(&self) -> &[(&'static str, MsgKind)] {
        &STACK_INPUTS
    }

    /// Refusals are the estimator's business: counted, logged and on
    /// `/diagnostics`; the stack drops the `Result`.
    fn on_message(&mut self, _channel: &str, msg: &SensorMsg, now: Duration) {
        let t = time(now);
        match msg {
            SensorMsg::Odometry(o) => {
                self.nav
                    .health_mut()
                    .on_message(health::Sensor::Odom, now, header_time(&o.header));
                let _ = self.est.fuse_wheel_odom(o, t);
                self.dirty = true;
            }
            SensorMsg::Imu(m) => {
                let _ = self.est.fuse_imu(m, t);
                self.dirty = true;
            }
            SensorMsg::NavSatFix(f) => {
                let _ = self.est.fuse_navsat(f, t, &self.enu);
                self.dirty = true;
            }
            SensorMsg::LaserScan(_) => {
                self.sync_pose();
                self.nav.on_message("scan", msg, now);
            }
        }
        self.drain_estimator_logs();
    }

    fn tick(&mut self, now: Duration) -> CmdVel {
        self.sync_pose();
        let cmd = self.nav.tick(now);
        self.drain_estimator_logs();
        cmd
    }

    fn self_report(&self) -> Option<(SelfReport, Duration)> {
        self.nav.self_report()
    }

    /// The estimator's dead-reckoned pose in `odom` (the `odom`-frame filter).
    fn odom_pose(&self) -> Option<[f64; 3]> {
        let x = &self.est.odom_filter().x;
        Some([x[0], x[1], x[2]])
    }

    /// The estimator's `map`-frame filter.
    fn map_pose(&self) -> Option<[f64; 3]> {
        Some(Stack::map_pose(self))
    }

    /// The navigator's records and the estimator's (logger
    /// `ekf_filter_node`), in stamp order.
    fn take_logs(&mut self) -> Vec<Log> {
        let mut logs = self.nav.take_logs();
        logs.append(&mut self.logs);
        logs.sort_by_key(|l| l.stamp.as_nanos());
        logs
    }

    /// The navigator's arrays (its declared rate and its transitions), each
    /// with the estimator's statuses (`ekf: wheel_odom`, `ekf: imu`,
    /// `ekf: gnss`) appended; and one array at every estimator transition
    /// (a refusal or re-acceptance it logged) between them.
    /// What the estimator fuses, and the navigator's scan: of the wheel
    /// odometry its twist and twist covariance (the navigator drives on the
    /// filtered pose, not the raw one), of the IMU its yaw rate and its
    /// covariance, of a fix its status, position and position covariance;
    /// of every input whether and when it arrives and its `header.stamp`.
    fn reads(&self, kind: MsgKind) -> &'static [&'static str] {
        use kraken_interfaces::DELIVERY;
        match kind {
            MsgKind::Odometry => &[
                DELIVERY,
                "header.stamp",
                "twist.twist.linear",
                "twist.twist.angular",
                "twist.covariance",
            ],
            MsgKind::Imu => &[
                DELIVERY,
                "header.stamp",
                "angular_velocity",
                "angular_velocity_covariance",
            ],
            MsgKind::NavSatFix => &[
                DELIVERY,
                "header.stamp",
                "status",
                "latitude",
                "longitude",
                "altitude",
                "position_covariance",
                "position_covariance_type",
            ],
            MsgKind::LaserScan => self.nav.reads(kind),
        }
    }

    /// The navigator's names and the estimator's (`ekf: wheel_odom`,
    /// `ekf: imu`, `ekf: gnss`; logger `ekf_filter_node`).
    fn published_names(&self) -> PublishedNames {
        let mut n = self.nav.published_names();
        n.diagnostics
            .extend(self.estimator_statuses(Duration::ZERO).map(|s| s.name));
        n.loggers
            .push(breakbench_estimator::LOGGER_NAME.to_string());
        n
    }

    fn take_diagnostics(&mut self) -> Vec<DiagnosticArray> {
        let mut arrays = self.nav.take_diagnostics();
        for a in &mut arrays {
            let now = header_time(&a.header);
            a.status.extend(self.estimator_statuses(now));
        }
        if std::mem::take(&mut self.transition) && arrays.is_empty() {
            let now = Duration::from_nanos(self.est.time_ns().max(0) as u64);
            let mut a = self.nav.health_mut().diagnostic_array(now);
            a.status.extend(self.estimator_statuses(now));
            arrays.push(a);
        }
        arrays
    }
}
