//! `simple_navigator`: the controller under test.
//!
//! A reactive go-to-goal controller. It reads only what a real robot has: its
//! odometry (`nav_msgs/Odometry` in `odom`) and its scan (`sensor_msgs/LaserScan`
//! in `base_scan`, mounted at the robot centre). Each scan, it measures for
//! every candidate heading (body frame, -90°..+90° in `candidate_step_deg`
//! steps) how far the swept corridor (half-width footprint + margin) is free,
//! drops headings free for less than `min_free_m`, and takes the one with the
//! least cost = angle from the goal bearing + `shortfall_cost_rad_per_m` × the
//! metres it falls short of `lookahead_m` (or of the goal, if nearer).
//! Between scans it steers towards that heading. It stops when *its own odometry* says it is within
//! `goal_tolerance_m` of the goal and reports success (the self-report), or
//! gives up and reports failure when stuck or past its own timeout. It never
//! sees ground truth.

pub mod controller;
pub mod health;
pub mod stack;
mod window;

use std::path::Path;
use std::time::Duration;

use breakbench_world::range::{check_ranges, Range};
use kraken_interfaces::config::{load_yaml_checked, parse_yaml_checked};
use kraken_interfaces::ros::{LaserScan, Odometry};
use kraken_interfaces::ConfigError;
use kraken_interfaces::SelfReport;
use kraken_interfaces::{MsgKind, SensorMsg};
use serde::{Deserialize, Serialize};

/// The declared range of every numeric field of a navigator file (see the
/// field docs).
pub const NAVIGATOR_RANGES: &[Range] = &[
    Range::new("control_rate_hz", 0.1, 1000.0, "Hz"),
    Range::new("goal_tolerance_m", 0.001, 100.0, "m"),
    Range::new("max_linear_m_s", 0.001, 100.0, "m/s"),
    Range::new("max_angular_rad_s", 0.001, 100.0, "rad/s"),
    Range::new("heading_gain", 0.001, 1000.0, "1/s"),
    Range::new("footprint_radius_m", 0.01, 10.0, "m"),
    Range::new("lateral_margin_m", 0.0, 10.0, "m"),
    Range::new("lookahead_m", 0.01, 100.0, "m"),
    Range::new("min_free_m", 0.001, 100.0, "m"),
    Range::new("shortfall_cost_rad_per_m", 0.001, 1000.0, "rad/m"),
    Range::new("candidate_step_deg", 0.1, 90.0, "deg"),
    Range::new("slowdown_distance_m", 0.001, 100.0, "m"),
    Range::new("stuck_timeout_s", 0.1, 3600.0, "s"),
    Range::new("mission_timeout_s", 0.1, 3600.0, "s"),
    Range::new("scan_timeout_s", 0.001, 3600.0, "s"),
    Range::new("odom_timeout_s", 0.001, 3600.0, "s"),
    Range::new("stamp_tolerance_s", 0.0, 3600.0, "s"),
    Range::new("diagnostics_rate_hz", 0.01, 1000.0, "Hz"),
];

/// Navigator parameters (`config/navigator.yaml`). Each number has a declared
/// range ([`NAVIGATOR_RANGES`]), given with its field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavigatorConfig {
    /// Command rate, Hz, in [0.1, 1000] Hz.
    pub control_rate_hz: f64,
    /// Distance to the goal (by odometry) at which it stops, metres, in [0.001, 100] m.
    pub goal_tolerance_m: f64,
    /// Linear speed limit, m/s, in [0.001, 100] m/s.
    pub max_linear_m_s: f64,
    /// Angular rate limit, rad/s, in [0.001, 100] rad/s.
    pub max_angular_rad_s: f64,
    /// Angular rate per radian of heading error, 1/s, in [0.001, 1000] 1/s.
    pub heading_gain: f64,
    /// Footprint radius the navigator plans with, metres, in [0.01, 10] m.
    pub footprint_radius_m: f64,
    /// Extra half-width of the swept corridor, metres, in [0, 10] m.
    pub lateral_margin_m: f64,
    /// Free distance a heading needs, metres, in [0.01, 100] m.
    pub lookahead_m: f64,
    /// Headings free for less than this (or than the goal distance) are never
    /// taken, metres, in [0.001, 100] m.
    pub min_free_m: f64,
    /// Cost of a heading per metre it is free for less than the lookahead,
    /// rad/m, in [0.001, 1000] rad/m.
    pub shortfall_cost_rad_per_m: f64,
    /// Spacing of candidate headings, degrees, in [0.1, 90] deg (at most
    /// 1801 candidates from -90 to +90 degrees).
    pub candidate_step_deg: f64,
    /// Free distance below which linear speed ramps down, metres, in [0.001, 100] m.
    pub slowdown_distance_m: f64,
    /// No 0.1 m of progress for this long → failure, seconds, in [0.1, 3600] s.
    pub stuck_timeout_s: f64,
    /// Own mission timeout → failure, seconds, in [0.1, 3600] s.
    pub mission_timeout_s: f64,
    /// A scan this old (since its receipt) is stale: stop, diagnostics
    /// ERROR ([`health`]), seconds, in [0.001, 3600] s.
    pub scan_timeout_s: f64,
    /// Odometry this old is stale: stop, diagnostics ERROR (the grace
    /// window of a lost odometry), seconds, in [0.001, 3600] s.
    pub odom_timeout_s: f64,
    /// Largest |receive time − header.stamp| of a good stamp (beyond:
    /// diagnostics WARN), seconds, in [0, 3600] s.
    pub stamp_tolerance_s: f64,
    /// Rate of `/diagnostics` between transitions, Hz, in [0.01, 1000] Hz.
    pub diagnostics_rate_hz: f64,
    /// The pose it drives from: `wheel_odometry` (default: its odometry in
    /// `odom`) or `estimator` (the EKF's `odometry/filtered` in `map`, see
    /// [`stack`]).
    #[serde(default)]
    pub pose_source: PoseSource,
    /// The estimator's GNSS gating with `pose_source: estimator`: `none`,
    /// `mahalanobis`, `consistency` or `both` (default).
    #[serde(default = "default_gating")]
    pub estimator_gating: stack::Gating,
}

fn default_gating() -> stack::Gating {
    stack::Gating::Both
}

/// Where the navigator's pose comes from (`pose_source`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PoseSource {
    /// Raw wheel odometry (`odom`).
    #[default]
    WheelOdometry,
    /// The estimator stack ([`stack::Stack`]).
    Estimator,
}

impl PoseSource {
    /// The channels the controller built for this pose source consumes, in
    /// its delivery order: [`NAVIGATOR_INPUTS`] on wheel odometry,
    /// [`stack::STACK_INPUTS`] (odometry, IMU, GNSS, scan) on the estimator.
    pub fn inputs(self) -> &'static [(&'static str, MsgKind)] {
        match self {
            PoseSource::WheelOdometry => &NAVIGATOR_INPUTS,
            PoseSource::Estimator => &stack::STACK_INPUTS,
        }
    }
}

impl NavigatorConfig {
    /// Loads and validates `path`.
    ///
    /// # Errors
    /// A [`ConfigError`] naming file, line, column and field.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        load_yaml_checked(path, Self::validate)
    }

    /// Parses and validates navigator YAML `text` read from `path`.
    ///
    /// # Errors
    /// As [`Self::load`].
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        parse_yaml_checked(text, path, Self::validate)
    }

    /// The semantic checks: every number in its declared range
    /// ([`NAVIGATOR_RANGES`]). `p` is the file, for the error.
    fn validate(c: &Self, p: &str) -> Result<(), ConfigError> {
        check_ranges(c, p, "", &[("", NAVIGATOR_RANGES)])
    }

    /// The command period.
    pub fn control_period(&self) -> Duration {
        Duration::from_secs_f64(1.0 / self.control_rate_hz)
    }
}

/// A velocity command (`geometry_msgs/Twist` in `base_link`): m/s and rad/s.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CmdVel {
    pub linear_m_s: f64,
    pub angular_rad_s: f64,
}

/// The navigator's state.
#[derive(Debug, Clone)]
pub struct Navigator {
    cfg: NavigatorConfig,
    goal: [f64; 2],
    pose: Option<[f64; 3]>,
    /// Chosen heading in the odom frame and how far it is free, from the last scan.
    plan: Option<(f64, f64)>,
    report: Option<(SelfReport, Duration)>,
    best_distance: f64,
    last_progress: Duration,
    candidates: Vec<(f64, f64, f64)>,
    /// The candidates' `[cos, sin]` (what the scan loop reads).
    cand: Vec<[f64; 2]>,
    /// Each beam of the last scan geometry, and that geometry.
    beams: Vec<window::Beam>,
    beam_geometry: (f32, f32, usize),
    /// Per-candidate free distance of the current scan (reused buffer).
    free: Vec<f64>,
    /// Sensor health: stale inputs stop the robot ([`health`]).
    health: health::Health,
    /// Candidate spacing (rad) and the candidate index range `-n..=n`.
    step_rad: f64,
    half_count: i32,
}

fn wrap(a: f64) -> f64 {
    let mut a = a % std::f64::consts::TAU;
    if a > std::f64::consts::PI {
        a -= std::f64::consts::TAU;
    } else if a <= -std::f64::consts::PI {
        a += std::f64::consts::TAU;
    }
    a
}

/// The first (lowest-index) candidate of least `cost` among those with
/// `free >= min_free`, as `(angle, free)`: the same answer as a full
/// `min_by` over all candidates, visiting only those near `goal_rel`.
///
/// Exact because the cost is `|a - goal_rel|` plus a non-negative finite
/// term, so (rounding being monotone) `cost >= |a - goal_rel|`; the
/// candidate angles increase with the index, so `|a - goal_rel|` is
/// non-decreasing away from the goal bearing on either side. Walking right
/// from a start index, then left from just below it, a side stops at the
/// first candidate with `|a - goal_rel| > best` (none beyond can reach the
/// best). Ties keep the lowest index, as `min_by` keeps the first minimum.
/// Requires finite `goal_rel` and costs (never -0.0, never NaN).
fn nearest_best(
    candidates: &[(f64, f64, f64)],
    free: &[f64],
    goal_rel: f64,
    step: f64,
    n: i32,
    min_free: f64,
    cost: impl Fn(f64, f64) -> f64,
) -> Option<(f64, f64)> {
    let len = candidates.len();
    if len == 0 {
        return None;
    }
    let start =
        (((goal_rel / step).round() as i64) + i64::from(n)).clamp(0, len as i64 - 1) as usize;
    let mut best: Option<(f64, usize)> = None;
    let visit = |i: usize, best: &mut Option<(f64, usize)>| -> bool {
        let (a, _, _) = candidates[i];
        if best.is_some_and(|(b, _)| (a - goal_rel).abs() > b) {
            return false;
        }
        let f = free[i];
        if f >= min_free {
            let c = cost(a, f);
            let better = match *best {
                None => true,
                Some((b, j)) => c < b || (c == b && i < j),
            };
            if better {
                *best = Some((c, i));
            }
        }
        true
    };
    for i in start..len {
        if !visit(i, &mut best) {
            break;
        }
    }
    for i in (0..start).rev() {
        if !visit(i, &mut best) {
            break;
        }
    }
    best.map(|(_, i)| (candidates[i].0, free[i]))
}

impl Navigator {
    /// A navigator heading for `goal_odom_m` (x, y in its `odom` frame, metres).
    pub fn new(cfg: NavigatorConfig, goal_odom_m: [f64; 2]) -> Self {
        let step = cfg.candidate_step_deg.to_radians();
        // Small tolerance so that e.g. 3° gives exactly ±90°, not ±87°.
        let n = (std::f64::consts::FRAC_PI_2 / step + 1e-9).floor() as i32;
        let candidates = (-n..=n)
            .map(|i| {
                let a = i as f64 * step;
                (a, a.cos(), a.sin())
            })
            .collect::<Vec<_>>();
        let cand = candidates.iter().map(|c| [c.1, c.2]).collect();
        let health = health::Health::new(health::HealthConfig::from_navigator(&cfg));
        Self {
            health,
            cfg,
            goal: goal_odom_m,
            pose: None,
            plan: None,
            report: None,
            best_distance: f64::INFINITY,
            last_progress: Duration::ZERO,
            candidates,
            cand,
            beams: Vec::new(),
            beam_geometry: (0.0, 0.0, 0),
            free: Vec::new(),
            step_rad: step,
            half_count: n,
        }
    }

    /// Recomputes the beam direction table when the scan geometry changes.
    fn beam_table(&mut self, scan: &LaserScan) {
        let g = (scan.angle_min, scan.angle_increment, scan.ranges.len());
        if g != self.beam_geometry {
            let (step, n) = (self.step_rad, self.half_count);
            self.beams = (0..g.2)
                .map(|i| window::Beam::new(g.0 as f64 + i as f64 * g.1 as f64, step, n))
                .collect();
            self.beam_geometry = g;
        }
    }

    /// The self-report and when it was made, once the navigator has finished.
    pub fn self_report(&self) -> Option<(SelfReport, Duration)> {
        self.report
    }

    /// The latest odometry pose (x, y, yaw) it holds.
    pub fn pose(&self) -> Option<[f64; 3]> {
        self.pose
    }

    /// Takes an odometry message.
    pub fn on_odom(&mut self, odom: &Odometry) {
        let p = &odom.pose.pose;
        self.pose = Some([p.position.x, p.position.y, p.orientation.yaw()]);
    }

    /// Takes a scan: re-plans the heading against the current odometry pose.
    pub fn on_scan(&mut self, scan: &LaserScan) {
        let Some([x, y, yaw]) = self.pose else { return };
        let dx = self.goal[0] - x;
        let dy = self.goal[1] - y;
        let dist = dx.hypot(dy);
        let goal_rel = wrap(dy.atan2(dx) - yaw);
        let need = self.cfg.lookahead_m.min(dist);
        let half_width = self.cfg.footprint_radius_m + self.cfg.lateral_margin_m;
        // A beam at range r can only shorten a heading's free distance below
        // `need` if r < need + 2 * half_width (the swept disc reaches at most
        // half_width sideways and half_width ahead of its centre); farther
        // beams are skipped.
        let reach = need + 2.0 * half_width;
        let mut free = std::mem::take(&mut self.free);
        free.clear();
        free.resize(self.candidates.len(), f64::INFINITY);
        self.beam_table(scan);
        let (step, n) = (self.step_rad, self.half_count);
        debug_assert!(step > 0.0 && n >= 0);
        let (range_min, range_max) = (scan.range_min as f64, scan.range_max as f64);
        // Most beams are beyond reach: that test first, on the f32 range.
        let reach32 = window::least_f32_at_least(reach);
        for (&r32, beam) in scan.ranges.iter().zip(&self.beams) {
            let r = r32 as f64;
            if r32 >= reach32 || !r.is_finite() || r < range_min || r > range_max {
                continue;
            }
            // Only the candidates that can have the point ahead and inside
            // the corridor (exact: the same result as testing them all).
            window::relax(&mut free, &self.cand, beam, r, half_width, (step, n));
        }
        // Cost: angle away from the goal bearing plus a penalty per metre a
        // heading falls short of the lookahead; headings free for less than
        // min_free_m (or than the goal distance, if nearer) are excluded.
        let min_free = self.cfg.min_free_m.min(dist);
        let cost = |a: f64, f: f64| {
            (a - goal_rel).abs() + self.cfg.shortfall_cost_rad_per_m * (need - f).max(0.0)
        };
        let k = self.cfg.shortfall_cost_rad_per_m;
        let best = if goal_rel.is_finite() && need.is_finite() && k >= 0.0 && k.is_finite() {
            nearest_best(&self.candidates, &free, goal_rel, step, n, min_free, cost)
        } else {
            self.candidates
                .iter()
                .zip(&free)
                .filter(|(_, f)| **f >= min_free)
                .min_by(|((a, _, _), fa), ((b, _, _), fb)| {
                    cost(*a, **fa).total_cmp(&cost(*b, **fb))
                })
                .map(|((a, _, _), f)| (*a, *f))
        };
        self.plan = best.map(|(a, f)| (wrap(yaw + a), f));
        self.free = free;
    }

    /// Its sensor health (the node records receipts and drains the log and
    /// diagnostics through it).
    pub fn health_mut(&mut self) -> &mut health::Health {
        &mut self.health
    }

    /// One control step at `now`: returns the command to send, a stop while
    /// a sensor is stale ([`health::Health::tick`]).
    pub fn tick(&mut self, now: Duration) -> CmdVel {
        let fresh = self.health.tick(now);
        let cmd = self.drive(now);
        if fresh {
            cmd
        } else {
            CmdVel::default()
        }
    }

    /// The command from the current pose and plan (health aside).
    fn drive(&mut self, now: Duration) -> CmdVel {
        if self.report.is_some() {
            return CmdVel::default();
        }
        let Some([x, y, yaw]) = self.pose else {
            return CmdVel::default();
        };
        let dist = (self.goal[0] - x).hypot(self.goal[1] - y);
        if dist <= self.cfg.goal_tolerance_m {
            self.report = Some((SelfReport::Success, now));
            return CmdVel::default();
        }
        if dist < self.best_distance - 0.1 {
            self.best_distance = dist;
            self.last_progress = now;
        }
        let secs = now.as_secs_f64();
        if secs >= self.cfg.mission_timeout_s
            || secs - self.last_progress.as_secs_f64() >= self.cfg.stuck_timeout_s
        {
            self.report = Some((SelfReport::Failure, now));
            return CmdVel::default();
        }
        let Some((heading, free)) = self.plan else {
            // No free heading (or no scan yet): turn in place towards the goal.
            let err = wrap((self.goal[1] - y).atan2(self.goal[0] - x) - yaw);
            let w = (self.cfg.heading_gain * err)
                .clamp(-self.cfg.max_angular_rad_s, self.cfg.max_angular_rad_s);
            return CmdVel {
                linear_m_s: 0.0,
                angular_rad_s: w,
            };
        };
        let err = wrap(heading - yaw);
        let angular = (self.cfg.heading_gain * err)
            .clamp(-self.cfg.max_angular_rad_s, self.cfg.max_angular_rad_s);
        let align = err.cos().max(0.0);
        let room = (free / self.cfg.slowdown_distance_m).min(1.0);
        let approach = (dist / self.cfg.slowdown_distance_m).clamp(0.25, 1.0);
        let linear = self.cfg.max_linear_m_s * align * align * room.min(approach);
        CmdVel {
            linear_m_s: linear,
            angular_rad_s: angular,
        }
    }
}

/// What the navigator reads, in the order it takes a step's messages:
/// odometry first (so a scan is planned against the pose of the same step),
/// then the scan.
pub const NAVIGATOR_INPUTS: [(&str, MsgKind); 2] =
    [("odom", MsgKind::Odometry), ("scan", MsgKind::LaserScan)];

impl crate::controller::Controller for Navigator {
    fn inputs(&self) -> &[(&'static str, MsgKind)] {
        &NAVIGATOR_INPUTS
    }
    fn on_message(&mut self, _channel: &str, msg: &SensorMsg, now: Duration) {
        let at = |h: &kraken_interfaces::ros::Header| {
            Duration::from_nanos(h.stamp.as_nanos().max(0) as u64)
        };
        match msg {
            SensorMsg::Odometry(o) => {
                self.health
                    .on_message(health::Sensor::Odom, now, at(&o.header));
                self.on_odom(o)
            }
            SensorMsg::LaserScan(s) => {
                self.health
                    .on_message(health::Sensor::Scan, now, at(&s.header));
                self.on_scan(s)
            }
            // Not among its inputs: the run never wires them.
            SensorMsg::NavSatFix(_) | SensorMsg::Imu(_) => {}
        }
    }
    fn tick(&mut self, now: Duration) -> CmdVel {
        Navigator::tick(self, now)
    }
    fn self_report(&self) -> Option<(SelfReport, Duration)> {
        self.report
    }
    fn odom_pose(&self) -> Option<[f64; 3]> {
        self.pose
    }
    fn take_logs(&mut self) -> Vec<kraken_interfaces::ros::Log> {
        self.health.take_logs()
    }
    fn take_diagnostics(&mut self) -> Vec<kraken_interfaces::ros::DiagnosticArray> {
        self.health.take_diagnostics()
    }
    /// Of odometry its pose (position and yaw), of a scan its ranges (and
    /// the beam geometry, which no mode changes), of both whether and when
    /// they arrive and the `header.stamp`, which its sensor health compares
    /// with the receive time ([`health`]: a stamp offset raises
    /// `/diagnostics` WARN). No covariance, no twist.
    fn reads(&self, kind: MsgKind) -> &'static [&'static str] {
        use kraken_interfaces::DELIVERY;
        match kind {
            MsgKind::Odometry => &[
                DELIVERY,
                "header.stamp",
                "pose.pose.position",
                "pose.pose.orientation",
            ],
            MsgKind::LaserScan => &[DELIVERY, "header.stamp", "ranges"],
            // not among its inputs
            MsgKind::NavSatFix | MsgKind::Imu => &[],
        }
    }
    /// `simple_navigator: scan`, `simple_navigator: odom`; logger
    /// `simple_navigator` ([`health`]).
    fn published_names(&self) -> crate::controller::PublishedNames {
        crate::controller::PublishedNames {
            diagnostics: health::Sensor::ALL
                .iter()
                .map(|s| s.status_name())
                .collect(),
            loggers: vec![health::LOGGER_NAME.to_string()],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraken_interfaces::ros::Quaternion;

    fn cfg() -> NavigatorConfig {
        NavigatorConfig::load(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/navigator.yaml"
        )))
        .unwrap()
    }

    fn odom(x: f64, y: f64, yaw: f64) -> Odometry {
        let mut o = Odometry::default();
        o.pose.pose.position.x = x;
        o.pose.pose.position.y = y;
        o.pose.pose.orientation = Quaternion::from_yaw(yaw);
        o
    }

    /// 360 beams from -pi, every range `r` except where `f(angle)` gives one.
    fn scan(f: impl Fn(f64) -> Option<f32>) -> LaserScan {
        let inc = std::f64::consts::TAU / 360.0;
        LaserScan {
            angle_min: -std::f32::consts::PI,
            angle_max: (-std::f64::consts::PI + 359.0 * inc) as f32,
            angle_increment: inc as f32,
            range_min: 0.12,
            range_max: 12.0,
            ranges: (0..360)
                .map(|i| f(-std::f64::consts::PI + i as f64 * inc).unwrap_or(f32::INFINITY))
                .collect(),
            ..LaserScan::default()
        }
    }

    /// The per-candidate free distances by the full beam x candidate test
    /// (no angular window), for comparison with `on_scan`.
    fn free_full(n: &Navigator, scan: &LaserScan) -> Vec<f64> {
        let [x, y, _] = n.pose.unwrap();
        let dist = (n.goal[0] - x).hypot(n.goal[1] - y);
        let need = n.cfg.lookahead_m.min(dist);
        let hw = n.cfg.footprint_radius_m + n.cfg.lateral_margin_m;
        let mut free = vec![f64::INFINITY; n.candidates.len()];
        for (i, &r) in scan.ranges.iter().enumerate() {
            let r = r as f64;
            if !r.is_finite() || r < scan.range_min as f64 || r > scan.range_max as f64 {
                continue;
            }
            if r >= need + 2.0 * hw {
                continue;
            }
            let a = scan.angle_min as f64 + i as f64 * scan.angle_increment as f64;
            let (px, py) = (r * a.cos(), r * a.sin());
            for (k, &(_, c, s)) in n.candidates.iter().enumerate() {
                let along = px * c + py * s;
                let lateral = (py * c - px * s).abs();
                if along > 0.0 && lateral < hw {
                    free[k] = free[k].min(along - (hw * hw - lateral * lateral).sqrt());
                }
            }
        }
        free
    }

    #[test]
    fn windowed_scan_matches_the_full_test_bit_for_bit() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        for _ in 0..4000 {
            let mut n = Navigator::new(cfg(), [10.0, 0.0]);
            n.on_odom(&odom(rng.random_range(0.0..9.0), 0.0, 0.3));
            // Dense random returns, and single returns (where every pair the
            // full test accepts sets a candidate's free distance on its own).
            let mut s = scan(|_| None);
            if rng.random_range(0.0..1.0) < 0.5 {
                for r in &mut s.ranges {
                    let v: f64 = rng.random_range(0.0..2.5);
                    *r = if v > 0.05 { v as f32 } else { f32::INFINITY };
                }
            } else {
                let i = rng.random_range(0..s.ranges.len());
                s.ranges[i] = rng.random_range(0.13f32..2.5);
            }
            n.on_scan(&s);
            let want = free_full(&n, &s);
            let got = n.free.clone();
            assert_eq!(
                got.iter().map(|f| f.to_bits()).collect::<Vec<_>>(),
                want.iter().map(|f| f.to_bits()).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn nearest_best_is_the_first_minimum_of_the_full_search() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let n = Navigator::new(cfg(), [10.0, 0.0]);
        let (step, half) = (n.step_rad, n.half_count);
        let mut checked = 0;
        for _ in 0..20000 {
            // Free distances on a coarse grid (many equal costs, so ties),
            // some below min_free, some infinite; goal bearings beyond the
            // candidate span too.
            let free: Vec<f64> = (0..n.candidates.len())
                .map(|_| match rng.random_range(0..4) {
                    0 => f64::INFINITY,
                    _ => f64::from(rng.random_range(0..12)) * 0.25,
                })
                .collect();
            let goal_rel = match rng.random_range(0..3) {
                0 => f64::from(rng.random_range(-40..=40)) * step,
                _ => rng.random_range(-3.1..3.1),
            };
            let need: f64 = rng.random_range(0.5..3.0);
            let min_free: f64 = rng.random_range(0.0..1.5);
            let k = [0.0, 0.001, 0.5, 2.0][rng.random_range(0..4)];
            let cost = |a: f64, f: f64| (a - goal_rel).abs() + k * (need - f).max(0.0);
            let want = n
                .candidates
                .iter()
                .zip(&free)
                .filter(|(_, f)| **f >= min_free)
                .min_by(|((a, _, _), fa), ((b, _, _), fb)| {
                    cost(*a, **fa).total_cmp(&cost(*b, **fb))
                })
                .map(|((a, _, _), f)| (a.to_bits(), f.to_bits()));
            let got = nearest_best(&n.candidates, &free, goal_rel, step, half, min_free, cost)
                .map(|(a, f)| (a.to_bits(), f.to_bits()));
            assert_eq!(got, want, "goal_rel {goal_rel} need {need} k {k}");
            checked += usize::from(want.is_some());
        }
        assert!(checked > 15000, "{checked}");
    }

    #[test]
    fn open_space_drives_straight_at_full_speed() {
        let mut n = Navigator::new(cfg(), [10.0, 0.0]);
        n.on_odom(&odom(0.0, 0.0, 0.0));
        n.on_scan(&scan(|_| None));
        let c = n.tick(Duration::from_millis(50));
        assert_eq!(c.linear_m_s, 0.4);
        assert_eq!(c.angular_rad_s, 0.0);
    }

    #[test]
    fn wall_ahead_turns_away_from_it() {
        // A wall 0.8 m ahead spanning +-20 degrees: heading 0 is free for only
        // 0.8 - ~0.35 m, below min_free once the swept disc is counted.
        let mut n = Navigator::new(cfg(), [10.0, 0.0]);
        n.on_odom(&odom(0.0, 0.0, 0.0));
        n.on_scan(&scan(|a| {
            (a.abs() < 20f64.to_radians()).then_some((0.5 / a.cos()) as f32)
        }));
        let (heading, free) = n.plan.unwrap();
        assert!(heading.abs() >= 30f64.to_radians(), "heading {heading}");
        assert!(free >= 0.3);
        let c = n.tick(Duration::from_millis(50));
        assert!(c.angular_rad_s.abs() > 0.0);
    }

    #[test]
    fn self_reports_success_from_its_own_odometry() {
        let mut n = Navigator::new(cfg(), [10.0, 0.0]);
        // Odometry says 0.1 m from the goal (tolerance 0.15): success, whatever the truth is.
        n.on_odom(&odom(9.9, 0.0, 0.0));
        let c = n.tick(Duration::from_secs(20));
        assert_eq!(c, CmdVel::default());
        assert_eq!(
            n.self_report(),
            Some((SelfReport::Success, Duration::from_secs(20)))
        );
        // Finished: stays stopped.
        n.on_odom(&odom(5.0, 0.0, 0.0));
        assert_eq!(n.tick(Duration::from_secs(21)), CmdVel::default());
    }

    #[test]
    fn no_progress_for_the_stuck_timeout_is_a_failure() {
        let mut n = Navigator::new(cfg(), [10.0, 0.0]);
        n.on_odom(&odom(0.0, 0.0, 0.0));
        n.on_scan(&scan(|_| Some(0.2)));
        n.tick(Duration::from_secs(0));
        assert_eq!(n.self_report(), None);
        n.tick(Duration::from_secs(9));
        assert_eq!(n.self_report(), None);
        n.tick(Duration::from_secs(10));
        assert_eq!(
            n.self_report(),
            Some((SelfReport::Failure, Duration::from_secs(10)))
        );
    }

    #[test]
    fn surrounded_turns_in_place() {
        let mut n = Navigator::new(cfg(), [0.0, 5.0]);
        n.on_odom(&odom(0.0, 0.0, 0.0));
        n.on_scan(&scan(|_| Some(0.25)));
        assert_eq!(n.plan, None);
        let c = n.tick(Duration::from_millis(50));
        assert_eq!(c.linear_m_s, 0.0);
        // Goal at +90 degrees: gain 1.5 * pi/2 = 2.36, clamped to 1.2 rad/s.
        assert_eq!(c.angular_rad_s, 1.2);
    }

    #[test]
    fn bad_config_names_the_field() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("nav.yaml");
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/navigator.yaml"
        ))
        .unwrap();
        std::fs::write(
            &p,
            text.replace("goal_tolerance_m: 0.15", "goal_tolerance_m: -1"),
        )
        .unwrap();
        let e = NavigatorConfig::load(&p).unwrap_err();
        assert_eq!(e.field, "goal_tolerance_m");
        std::fs::write(&p, format!("{text}\nspeed: 3\n")).unwrap();
        let e = NavigatorConfig::load(&p).unwrap_err();
        assert_eq!(e.field, "speed");
        assert!(e.line > 10);
    }

    /// The absurd values are refused at load with file, line, column, field and range.
    #[test]
    fn values_outside_their_declared_range_name_line_and_field() {
        let text = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/navigator.yaml"
        ))
        .unwrap();
        NavigatorConfig::parse(&text, "nav.yaml").unwrap();
        let cases = [
            // 1e-9 degrees: 1.8e11 candidate headings (the 103 GB allocation)
            ("candidate_step_deg: 10.0", "candidate_step_deg: 1e-9", "nav.yaml:13:1: field 'candidate_step_deg': 1e-9 is outside its declared range [0.1, 90] deg"),
            ("control_rate_hz: 20.0", "control_rate_hz: 1.0e9", "nav.yaml:3:1: field 'control_rate_hz': 1e9 is outside its declared range [0.1, 1000] Hz"),
            ("lateral_margin_m: 0.15", "lateral_margin_m: .nan", "field 'lateral_margin_m': is not a finite number (declared range [0, 10] m)"),
            ("stuck_timeout_s: 10.0", "stuck_timeout_s: 0.0", "field 'stuck_timeout_s': 0 is outside its declared range [0.1, 3600] s"),
        ];
        for (from, to, want) in cases {
            assert!(text.contains(from), "{from}");
            let e = NavigatorConfig::parse(&text.replacen(from, to, 1), "nav.yaml").unwrap_err();
            assert!(e.to_string().contains(want), "{to}: {e}");
        }
    }
}
