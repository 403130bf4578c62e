//! The controller seat of the in-process run: whatever sits between the
//! (faulted) sensor channels and the plant's velocity command.
//!
//! The run loop only sees [`Controller`]: it delivers each released message
//! with its channel name and receive time, asks for a command every control
//! period, drains what the controller said (its `/rosout` log records and its
//! `/diagnostics` arrays, the streams the node publishes), and reads the
//! self-report at the end. The navigator under test
//! ([`crate::Navigator`]) and the positive canary ([`OpenLoop`])
//! are two implementations; another stack plugs in the same way.

use std::time::Duration;

use kraken_interfaces::ros::{DiagnosticArray, Log};
use kraken_interfaces::SelfReport;
use kraken_interfaces::{MsgKind, SensorMsg};

use crate::CmdVel;

/// A controller driven by the run loop.
pub trait Controller {
    /// The channels it consumes, `(name, message type)`, in the order the
    /// run delivers their released messages at each step.
    fn inputs(&self) -> &[(&'static str, MsgKind)];
    /// Takes one message released on `channel`, received at sim time `now`.
    fn on_message(&mut self, channel: &str, msg: &SensorMsg, now: Duration);
    /// One control step at sim time `now`: the command to send.
    fn tick(&mut self, now: Duration) -> CmdVel;
    /// Its self-report and when it made it (`None`: it never reported).
    fn self_report(&self) -> Option<(SelfReport, Duration)>;
    /// Its latest odometry pose `[x m, y m, yaw rad]` in `odom`, for the trace.
    fn odom_pose(&self) -> Option<[f64; 3]>;
    /// Its pose estimate `[x m, y m, yaw rad]` in `map` (= the world frame)
    /// if it keeps one (an estimator fusing GNSS); `None` for a controller
    /// that only dead-reckons in `odom`.
    fn map_pose(&self) -> Option<[f64; 3]> {
        None
    }
    /// The `rcl_interfaces/msg/Log` records (levels 10..50, logger name,
    /// message, stamp on the sim clock) it emitted since the last call, oldest
    /// first: what its node publishes on `/rosout`.
    fn take_logs(&mut self) -> Vec<Log>;
    /// The `diagnostic_msgs/msg/DiagnosticArray`s it emitted since the last
    /// call, oldest first (at its declared rate and at every transition):
    /// what its node publishes on `/diagnostics`.
    fn take_diagnostics(&mut self) -> Vec<DiagnosticArray>;
    /// The field groups it reads from a `kind` message on its inputs
    /// (field-group names of the fault modes, and
    /// [`kraken_interfaces::DELIVERY`] if whether and when a message
    /// arrives matters): a fault that changes none of them cannot reach it,
    /// and the campaign refuses such a fault axis (its runs would be
    /// bit-identical to nominal) or makes such a test fault `unsupported`.
    fn reads(&self, kind: MsgKind) -> &'static [&'static str];
    /// What it publishes under: its `/diagnostics` status names and its
    /// `/rosout` logger names (what a test's `diagnostic` and `rosout`
    /// predicates may name; anything else is refused at load).
    fn published_names(&self) -> PublishedNames;
}

/// The `/diagnostics` status names and `/rosout` logger names a controller
/// publishes (see [`Controller::published_names`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PublishedNames {
    pub diagnostics: Vec<String>,
    pub loggers: Vec<String>,
}

/// The positive canary: drives straight at `linear_m_s` for `duration_s`
/// of sim time, then stops, whatever its sensors say (open loop). It keeps
/// the latest odometry pose for the trace only, and never self-reports (the
/// harness must catch its violation on its own).
#[derive(Debug, Clone, PartialEq)]
pub struct OpenLoop {
    linear_m_s: f64,
    duration_s: f64,
    pose: Option<[f64; 3]>,
}

/// What [`OpenLoop`] reads: its odometry (trace only).
const OPEN_LOOP_INPUTS: [(&str, MsgKind); 1] = [("odom", MsgKind::Odometry)];

impl OpenLoop {
    /// Straight ahead at `linear_m_s` (m/s) for `duration_s` (s).
    pub fn new(linear_m_s: f64, duration_s: f64) -> Self {
        Self {
            linear_m_s,
            duration_s,
            pose: None,
        }
    }
}

impl Controller for OpenLoop {
    fn inputs(&self) -> &[(&'static str, MsgKind)] {
        &OPEN_LOOP_INPUTS
    }
    fn on_message(&mut self, _channel: &str, msg: &SensorMsg, _now: Duration) {
        if let SensorMsg::Odometry(o) = msg {
            let p = &o.pose.pose;
            self.pose = Some([p.position.x, p.position.y, p.orientation.yaw()]);
        }
    }
    fn tick(&mut self, now: Duration) -> CmdVel {
        if now.as_secs_f64() < self.duration_s {
            CmdVel {
                linear_m_s: self.linear_m_s,
                angular_rad_s: 0.0,
            }
        } else {
            CmdVel::default()
        }
    }
    fn self_report(&self) -> Option<(SelfReport, Duration)> {
        None
    }
    fn odom_pose(&self) -> Option<[f64; 3]> {
        self.pose
    }
    /// The canary says nothing.
    fn take_logs(&mut self) -> Vec<Log> {
        Vec::new()
    }
    /// The canary says nothing.
    fn take_diagnostics(&mut self) -> Vec<DiagnosticArray> {
        Vec::new()
    }
    /// Nothing that changes what it does (its odometry is for the trace).
    fn reads(&self, _kind: MsgKind) -> &'static [&'static str] {
        &[]
    }
    /// None: the canary says nothing.
    fn published_names(&self) -> PublishedNames {
        PublishedNames::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_loop_drives_for_its_duration_then_stops() {
        let mut c = OpenLoop::new(0.3, 2.0);
        assert_eq!(c.tick(Duration::from_millis(1999)).linear_m_s, 0.3);
        assert_eq!(c.tick(Duration::from_secs(2)), CmdVel::default());
        assert_eq!(c.self_report(), None);
        let mut o = kraken_interfaces::ros::Odometry::default();
        o.pose.pose.position.x = 1.5;
        c.on_message("odom", &SensorMsg::Odometry(o), Duration::from_secs(3));
        assert_eq!(c.odom_pose(), Some([1.5, 0.0, 0.0]));
        // No odometry for 27 s after that: still nothing said.
        c.tick(Duration::from_secs(30));
        assert!(c.take_logs().is_empty() && c.take_diagnostics().is_empty());
    }
}
