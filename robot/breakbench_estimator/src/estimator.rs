//! The estimator: two EKFs of the same model (see [`crate::filter`]), the
//! input guards, the gates, the consistency monitor and the outputs.
//!
//! - The **odom-frame filter** fuses wheel odometry and IMU yaw rate only:
//!   the dead-reckoned track, continuous, pose in `odom` (REP-105). Its pose
//!   covariance starts at 0 (the `odom` origin is where the robot starts).
//! - The **map-frame filter** fuses the same plus GNSS: pose in `map`
//!   (REP-105), the `odometry/filtered` output.
//! - `map → odom` = T(map, base) · T(odom, base)⁻¹.
//!
//! Every input is stepped by the caller's sim clock (`now`), never wall time.

use std::collections::VecDeque;

use kraken_interfaces::ros::{
    Header, Imu, NavSatFix, Odometry, Quaternion, Time, Transform, TransformStamped, Vector3,
};
use nalgebra::{Matrix2, SMatrix, SVector, Vector2};
use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

use crate::config::EkfConfig;
use crate::filter::{wrap_angle, Cov, Ekf, Innovation, State, IV, IW, IX, IY, IYAW, N};
use crate::guards::{
    check_covariance, check_values, effective_time, RejectReason, SensorCounters, StampNote,
};
use crate::monitor::{ConsistencyMonitor, MonitorState, Transition};
use crate::report::{DiagLevel, DiagnosticStatus, LogLevel, LogRecord, LOGGER_NAME};
use crate::EstimatorError;

/// The caller's geodetic → local ENU conversion: latitude and longitude in
/// degrees (WGS 84), altitude in metres → (east, north, up) in metres in the
/// `map` frame (REP-105: `map` is ENU-aligned at the caller's datum). `None`
/// when the point cannot be converted. The crate does not pick the datum.
pub trait EnuConversion {
    /// See the trait docs.
    fn to_enu(&self, latitude_deg: f64, longitude_deg: f64, altitude_m: f64) -> Option<[f64; 3]>;
}

impl<F: Fn(f64, f64, f64) -> Option<[f64; 3]>> EnuConversion for F {
    fn to_enu(&self, latitude_deg: f64, longitude_deg: f64, altitude_m: f64) -> Option<[f64; 3]> {
        self(latitude_deg, longitude_deg, altitude_m)
    }
}

/// The world's local ENU frame at its datum (WGS 84 → ECEF → ENU, exact;
/// [`breakbench_world::geodesy`]): the conversion the in-process stack and
/// `ekf_node` both use, so `map` is ENU at the datum.
impl EnuConversion for breakbench_world::geodesy::LocalEnu {
    fn to_enu(&self, latitude_deg: f64, longitude_deg: f64, altitude_m: f64) -> Option<[f64; 3]> {
        Some(self.from_geodetic(latitude_deg, longitude_deg, altitude_m))
    }
}

/// A planar pose: position in metres, yaw in radians (REP-103).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Pose2 {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
}

/// Where the filters start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct InitialState {
    /// Sim time of the initial state.
    pub stamp: Time,
    /// Pose in `map` (the world start pose).
    pub map: Pose2,
    /// Pose in `odom` (usually the origin).
    pub odom: Pose2,
    /// Forward speed, m/s.
    pub v_m_s: f64,
    /// Yaw rate, rad/s.
    pub yaw_rate_rad_s: f64,
}

/// The three inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Sensor {
    /// `nav_msgs/Odometry` twist from the wheels.
    WheelOdom,
    /// `sensor_msgs/Imu` yaw rate.
    Imu,
    /// `sensor_msgs/NavSatFix`.
    Gnss,
}

impl Sensor {
    /// snake_case name (`wheel_odom`, `imu`, `gnss`).
    pub fn name(self) -> &'static str {
        match self {
            Sensor::WheelOdom => "wheel_odom",
            Sensor::Imu => "imu",
            Sensor::Gnss => "gnss",
        }
    }
    fn index(self) -> usize {
        self as usize
    }
}

/// What happened to one fused message: the time it was fused at and what
/// the stamp rule did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Fused {
    /// Sim time the measurement was fused at, ns.
    pub t_ns: i64,
    /// Stamp rule applied.
    pub note: StampNote,
}

#[derive(Debug, Clone, Default)]
struct SensorState {
    counters: SensorCounters,
    innovation: Option<Innovation>,
    last_fused_ns: Option<i64>,
    last_reason: Option<RejectReason>,
    refusing: Option<(RejectReason, u64)>,
}

/// The estimator (see the module docs).
#[derive(Debug, Clone)]
pub struct Estimator {
    cfg: EkfConfig,
    global: Ekf,
    local: Ekf,
    monitor: ConsistencyMonitor,
    alignment_yaw_rad: f64,
    thresholds: [f64; 3],
    sensors: [SensorState; 3],
    mo_history: VecDeque<(i64, Pose2, SMatrix<f64, 3, 3>)>,
    logs: Vec<LogRecord>,
}

fn chi2_quantile(p: f64, dof: f64) -> Result<f64, EstimatorError> {
    let d = ChiSquared::new(dof).map_err(|e| EstimatorError::ChiSquared {
        dof,
        p,
        message: e.to_string(),
    })?;
    let q = d.inverse_cdf(p);
    if q.is_finite() && q > 0.0 {
        Ok(q)
    } else {
        Err(EstimatorError::ChiSquared {
            dof,
            p,
            message: format!("quantile {q} is not a positive finite number"),
        })
    }
}

fn state_of(pose: Pose2, v: f64, w: f64) -> State {
    State::from([pose.x_m, pose.y_m, wrap_angle(pose.yaw_rad), v, w])
}

fn rot(yaw: f64) -> Matrix2<f64> {
    let (s, c) = yaw.sin_cos();
    Matrix2::new(c, -s, s, c)
}

impl Estimator {
    /// An estimator at `init` with the parameters `cfg` (validated here).
    ///
    /// # Errors
    /// [`EstimatorError::Config`] when `cfg` fails [`EkfConfig::validate`];
    /// [`EstimatorError::ChiSquared`] when a gate quantile cannot be computed.
    pub fn new(cfg: EkfConfig, init: InitialState) -> Result<Self, EstimatorError> {
        cfg.validate("<EkfConfig>")?;
        let thresholds = [
            chi2_quantile(cfg.wheel_odom.gate_probability, 2.0)?,
            chi2_quantile(cfg.imu.gate_probability, 1.0)?,
            chi2_quantile(cfg.gnss.gate_probability, 2.0)?,
        ];
        let s = &cfg.initial_sigma;
        let t_ns = init.stamp.as_nanos();
        let p = Cov::from_diagonal(&SVector::<f64, N>::from([
            s.xy_m.powi(2),
            s.xy_m.powi(2),
            s.yaw_rad.powi(2),
            s.v_m_s.powi(2),
            s.yaw_rate_rad_s.powi(2),
        ]));
        let mut p_local = p;
        for i in [IX, IY, IYAW] {
            p_local[(i, i)] = 0.0;
        }
        let global = Ekf::new(state_of(init.map, init.v_m_s, init.yaw_rate_rad_s), p, t_ns);
        let local = Ekf::new(
            state_of(init.odom, init.v_m_s, init.yaw_rate_rad_s),
            p_local,
            t_ns,
        );
        Ok(Self {
            monitor: ConsistencyMonitor::new(cfg.consistency),
            alignment_yaw_rad: wrap_angle(init.map.yaw_rad - init.odom.yaw_rad),
            cfg,
            global,
            local,
            thresholds,
            sensors: Default::default(),
            mo_history: VecDeque::new(),
            logs: Vec::new(),
        })
    }

    /// The parameters.
    pub fn config(&self) -> &EkfConfig {
        &self.cfg
    }

    /// The χ² gate threshold of `sensor` (its `gate_probability` quantile for
    /// its measurement dimension: 2 wheel, 1 IMU, 2 GNSS).
    pub fn gate_threshold(&self, sensor: Sensor) -> f64 {
        self.thresholds[sensor.index()]
    }

    /// Filter time (both filters), ns.
    pub fn time_ns(&self) -> i64 {
        self.global.t_ns
    }

    /// The map-frame filter (state `[x, y, yaw, v, yaw_rate]`, covariance).
    pub fn map_filter(&self) -> &Ekf {
        &self.global
    }

    /// The odom-frame (dead-reckoning) filter.
    pub fn odom_filter(&self) -> &Ekf {
        &self.local
    }

    /// The consistency monitor.
    pub fn monitor(&self) -> &ConsistencyMonitor {
        &self.monitor
    }

    /// Counters of `sensor`.
    pub fn counters(&self, sensor: Sensor) -> &SensorCounters {
        &self.sensors[sensor.index()].counters
    }

    /// Innovation of the last measurement of `sensor` that reached the gate
    /// (fused or not), computed on the map-frame filter.
    pub fn innovation(&self, sensor: Sensor) -> Option<&Innovation> {
        self.sensors[sensor.index()].innovation.as_ref()
    }

    /// Takes the log records produced since the last call.
    pub fn drain_logs(&mut self) -> Vec<LogRecord> {
        std::mem::take(&mut self.logs)
    }

    /// Predicts both filters to `now` (no measurement).
    pub fn advance(&mut self, now: Time) {
        let t = now.as_nanos();
        self.global.predict(t, &self.cfg.map_process_noise);
        self.local.predict(t, &self.cfg.odom_process_noise);
    }

    /// Fuses the twist of wheel odometry `msg` received at `now`:
    /// `z = [twist.linear.x, twist.angular.z]`, `R` from twist covariance
    /// entries (0, 0), (0, 5), (5, 0), (5, 5); `H` selects `v` and
    /// `yaw_rate`. The pose of the message is not used.
    ///
    /// # Errors
    /// The [`RejectReason`] it was refused with (also counted and logged).
    pub fn fuse_wheel_odom(&mut self, msg: &Odometry, now: Time) -> Result<Fused, RejectReason> {
        let c = self.cfg.wheel_odom;
        let tw = &msg.twist;
        let z = SVector::<f64, 2>::from([tw.twist.linear.x, tw.twist.angular.z]);
        let cv = &tw.covariance;
        let r = SMatrix::<f64, 2, 2>::new(cv[0], cv[5], cv[30], cv[35]);
        let min = [c.min_variance_v_m2_s2, c.min_variance_yaw_rate_rad2_s2];
        let max = [c.max_variance_v_m2_s2, c.max_variance_yaw_rate_rad2_s2];
        let prep = c
            .enabled
            .then_some(())
            .ok_or(RejectReason::Disabled)
            .and_then(|_| check_values(z.as_slice()))
            .and_then(|_| check_covariance(&r, &min, &max));
        self.velocity_update(
            Sensor::WheelOdom,
            msg.header.stamp,
            now,
            prep,
            z,
            [IV, IW],
            c.mahalanobis_gate,
        )
    }

    /// Fuses the yaw rate of `msg` received at `now`: `z =
    /// angular_velocity.z`, `R = angular_velocity_covariance[8]`; a
    /// covariance whose element 0 is -1 means "not provided" and is refused.
    ///
    /// # Errors
    /// The [`RejectReason`] it was refused with (also counted and logged).
    pub fn fuse_imu(&mut self, msg: &Imu, now: Time) -> Result<Fused, RejectReason> {
        let c = self.cfg.imu;
        let z = SVector::<f64, 1>::from([msg.angular_velocity.z]);
        let r = SMatrix::<f64, 1, 1>::from([[msg.angular_velocity_covariance[8]]]);
        let prep = if !c.enabled {
            Err(RejectReason::Disabled)
        } else if msg.angular_velocity_covariance[0] == -1.0 {
            Err(RejectReason::NotProvided)
        } else {
            check_values(z.as_slice()).and_then(|_| {
                check_covariance(&r, &[c.min_variance_rad2_s2], &[c.max_variance_rad2_s2])
            })
        };
        self.velocity_update(
            Sensor::Imu,
            msg.header.stamp,
            now,
            prep,
            z,
            [IW],
            c.mahalanobis_gate,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn velocity_update<const D: usize>(
        &mut self,
        sensor: Sensor,
        stamp: Time,
        now: Time,
        prep: Result<(SMatrix<f64, D, D>, bool), RejectReason>,
        z: SVector<f64, D>,
        idx: [usize; D],
        gate: bool,
    ) -> Result<Fused, RejectReason> {
        self.sensors[sensor.index()].counters.received += 1;
        let res = (|| {
            let (r, floored) = prep?;
            let fused = self.time_step(sensor, stamp, now)?;
            if floored {
                self.sensors[sensor.index()].counters.variance_floored += 1;
            }
            let thr = self.gate_for(sensor, gate);
            let mut m = self
                .global
                .innovation(idx, &z, &r)
                .ok_or(RejectReason::SingularInnovation)?;
            m.innovation.threshold = thr;
            let pass = m.innovation.d2 <= thr;
            m.innovation.fused = pass;
            self.sensors[sensor.index()].innovation = Some(m.innovation);
            if !pass {
                return Err(RejectReason::MahalanobisGate);
            }
            self.global.fuse(&m);
            self.local.update(idx, &z, &r);
            Ok(fused)
        })();
        self.account(sensor, now, &res);
        res
    }

    /// Fuses the position of fix `msg` received at `now`, converted to the
    /// `map` frame by `to_enu`: `z = [east, north]`, `R` the east/north block
    /// (entries 0, 1, 3, 4) of `position_covariance` (ENU, m²); `H` selects
    /// `x`, `y`. Skipped for `STATUS_NO_FIX` and `COVARIANCE_TYPE_UNKNOWN`.
    /// Every fix that passes the input guards also feeds the consistency
    /// monitor, which may refuse it (and, on the transition to refusing with
    /// `rollback_on_refusal`, puts the map pose back on the dead-reckoned
    /// track, see `roll_back`); then the Mahalanobis gate decides.
    ///
    /// # Errors
    /// The [`RejectReason`] it was refused with (also counted and logged).
    pub fn fuse_navsat(
        &mut self,
        msg: &NavSatFix,
        now: Time,
        to_enu: &dyn EnuConversion,
    ) -> Result<Fused, RejectReason> {
        let sensor = Sensor::Gnss;
        self.sensors[sensor.index()].counters.received += 1;
        let res = (|| {
            let c = self.cfg.gnss;
            if !c.enabled {
                return Err(RejectReason::Disabled);
            }
            if msg.status.status == kraken_interfaces::ros::NavSatStatus::STATUS_NO_FIX {
                return Err(RejectReason::NoFix);
            }
            if msg.position_covariance_type == NavSatFix::COVARIANCE_TYPE_UNKNOWN {
                return Err(RejectReason::CovarianceUnknown);
            }
            check_values(&[msg.latitude, msg.longitude, msg.altitude])?;
            let enu = to_enu
                .to_enu(msg.latitude, msg.longitude, msg.altitude)
                .filter(|p| p.iter().all(|v| v.is_finite()))
                .ok_or(RejectReason::ConversionFailed)?;
            let pc = &msg.position_covariance;
            let r = Matrix2::new(pc[0], pc[1], pc[3], pc[4]);
            let (r, floored) = check_covariance(
                &r,
                &[c.min_variance_m2, c.min_variance_m2],
                &[c.max_variance_m2, c.max_variance_m2],
            )?;
            let fused = self.time_step(sensor, msg.header.stamp, now)?;
            if floored {
                self.sensors[sensor.index()].counters.variance_floored += 1;
            }
            let z = Vector2::new(enu[0], enu[1]);
            if self.cfg.consistency.enabled {
                let rm = rot(self.alignment_yaw_rad);
                let d = rm * Vector2::new(self.local.x[IX], self.local.x[IY]);
                let p_dr =
                    rm * self.local.p.fixed_view::<2, 2>(IX, IX).into_owned() * rm.transpose();
                self.remember_map_to_odom(fused.t_ns);
                if let Some(tr) = self.monitor.push(fused.t_ns, z, r, d, p_dr) {
                    let rolled_back = (tr.to == MonitorState::Refusing
                        && self.cfg.consistency.rollback_on_refusal)
                        .then(|| self.roll_back())
                        .flatten();
                    self.log_transition(&tr, rolled_back);
                }
            }
            let thr = self.gate_for(sensor, c.mahalanobis_gate);
            let mut m = self
                .global
                .innovation([IX, IY], &z, &r)
                .ok_or(RejectReason::SingularInnovation)?;
            let inn = &mut m.innovation;
            inn.threshold = thr;
            let refused_by_monitor =
                self.cfg.consistency.enabled && self.monitor.state() == MonitorState::Refusing;
            let pass = !refused_by_monitor && inn.d2 <= thr;
            inn.fused = pass;
            self.sensors[sensor.index()].innovation = Some(*inn);
            if refused_by_monitor {
                return Err(RejectReason::ConsistencyMonitor);
            }
            if !pass {
                return Err(RejectReason::MahalanobisGate);
            }
            self.global.fuse(&m);
            Ok(fused)
        })();
        self.account(sensor, now, &res);
        res
    }

    fn gate_for(&self, sensor: Sensor, gate: bool) -> f64 {
        if gate {
            self.thresholds[sensor.index()]
        } else {
            f64::INFINITY
        }
    }

    /// Applies the stamp rules and predicts both filters to the fusion time.
    fn time_step(&mut self, sensor: Sensor, stamp: Time, now: Time) -> Result<Fused, RejectReason> {
        let (t_ns, note) = effective_time(
            stamp.as_nanos(),
            now.as_nanos(),
            self.global.t_ns,
            &self.cfg.time,
        )?;
        self.sensors[sensor.index()].counters.note(note);
        self.global.predict(t_ns, &self.cfg.map_process_noise);
        self.local.predict(t_ns, &self.cfg.odom_process_noise);
        Ok(Fused { t_ns, note })
    }

    /// Counts the outcome and writes a log record at the start and at the end
    /// of a run of refusals (a WARN for the first refusal of each reason, an
    /// INFO when the sensor is fused again); a refusal by the consistency
    /// monitor is logged by its transition record instead.
    fn account(&mut self, sensor: Sensor, now: Time, res: &Result<Fused, RejectReason>) {
        let stamp_ns = now.as_nanos();
        let d2 = self.sensors[sensor.index()]
            .innovation
            .map_or(f64::NAN, |i| i.d2);
        let thr = self.thresholds[sensor.index()];
        let div = self.monitor.last().map_or(f64::NAN, |d| d.k_sigma);
        let st = &mut self.sensors[sensor.index()];
        let mut record = None;
        match res {
            Ok(f) => {
                st.counters.fused += 1;
                st.last_fused_ns = Some(f.t_ns);
                if let Some((reason, n)) = st.refusing.take() {
                    record = Some((
                        LogLevel::Info,
                        format!(
                            "{}: fused again after {n} refusals (last: {}); d2={d2:.3} threshold={thr:.3} divergence_sigma={div:.3}",
                            sensor.name(),
                            reason.name()
                        ),
                    ));
                }
            }
            Err(reason) => {
                st.counters.reject(*reason);
                st.last_reason = Some(*reason);
                let new_reason = st.refusing.is_none_or(|(r, _)| r != *reason);
                let n = st.refusing.map_or(0, |(_, n)| n) + 1;
                st.refusing = Some((*reason, n));
                if new_reason && *reason != RejectReason::ConsistencyMonitor {
                    record = Some((
                        LogLevel::Warn,
                        format!(
                            "{}: measurement refused ({}); d2={d2:.3} threshold={thr:.3} divergence_sigma={div:.3}",
                            sensor.name(),
                            reason.name()
                        ),
                    ));
                }
            }
        }
        if let Some((level, msg)) = record {
            self.logs.push(LogRecord {
                stamp_ns,
                level,
                name: LOGGER_NAME.into(),
                msg,
            });
        }
    }

    /// Keeps `(t, map→odom, odom-filter pose covariance)` at every fix for
    /// the consistency window.
    fn remember_map_to_odom(&mut self, t_ns: i64) {
        let window_ns = (self.cfg.consistency.window_s * 1e9).round() as i64;
        let p_local = self.local.p.fixed_view::<3, 3>(IX, IX).into_owned();
        self.mo_history
            .push_back((t_ns, self.map_to_odom(), p_local));
        while self
            .mo_history
            .front()
            .is_some_and(|(t, _, _)| *t < t_ns - window_ns)
        {
            self.mo_history.pop_front();
        }
    }

    /// On a refusal by the monitor: puts the map-frame pose back on the
    /// dead-reckoned track as seen through the `map → odom` transform of the
    /// oldest fix of the window (before the divergence the monitor measured),
    /// `pose = T(map, odom)_old · pose_odom`, and adds the odom filter's pose
    /// covariance growth since then to the map filter's. This undoes what the
    /// diverging fixes pulled into the estimate before detection. Returns the
    /// time rolled back to, s.
    fn roll_back(&mut self) -> Option<f64> {
        let (t_old, mo, p_old) = *self.mo_history.front()?;
        let (s, c) = mo.yaw_rad.sin_cos();
        let (xo, yo) = (self.local.x[IX], self.local.x[IY]);
        self.global.x[IX] = mo.x_m + c * xo - s * yo;
        self.global.x[IY] = mo.y_m + s * xo + c * yo;
        self.global.x[IYAW] = wrap_angle(mo.yaw_rad + self.local.x[IYAW]);
        let mut r3 = SMatrix::<f64, 3, 3>::identity();
        r3.fixed_view_mut::<2, 2>(0, 0).copy_from(&rot(mo.yaw_rad));
        let dp = self.local.p.fixed_view::<3, 3>(IX, IX).into_owned() - p_old;
        let dp = r3 * (0.5 * (dp + dp.transpose())) * r3.transpose();
        for i in 0..3 {
            for j in 0..3 {
                self.global.p[(IX + i, IX + j)] += dp[(i, j)];
            }
        }
        for i in 0..3 {
            self.global.p[(IX + i, IX + i)] = self.global.p[(IX + i, IX + i)].max(0.0);
        }
        Some(t_old as f64 * 1e-9)
    }

    fn log_transition(&mut self, tr: &Transition, rolled_back_to_s: Option<f64>) {
        let d = &tr.divergence;
        let d2 = self.sensors[Sensor::Gnss.index()]
            .innovation
            .map_or(f64::NAN, |i| i.d2);
        let (level, what) = match tr.to {
            MonitorState::Refusing => (
                LogLevel::Warn,
                "GNSS diverges from dead reckoning, refusing GNSS",
            ),
            MonitorState::Accepting => (
                LogLevel::Info,
                "GNSS consistent with dead reckoning again, accepting GNSS",
            ),
        };
        self.logs.push(LogRecord {
            stamp_ns: d.stamp_ns,
            level,
            name: LOGGER_NAME.into(),
            msg: format!(
                "gnss: {what}: divergence_sigma={:.3} divergence_m={:.3} combined_sigma_m={:.3} window_fixes={} d2={d2:.3}{}",
                d.k_sigma,
                (d.d_m[0].powi(2) + d.d_m[1].powi(2)).sqrt(),
                d.sigma_m,
                d.fixes,
                rolled_back_to_s.map_or(String::new(), |t| format!(
                    "; pose rolled back to dead reckoning since t={t:.3} s"
                ))
            ),
        });
    }

    /// The `odometry/filtered` output: the map-frame filter's pose (frame
    /// `map_frame`) and twist (frame `base_frame`) with covariance; pose
    /// covariance entries (x, y, yaw) at indices 0/1/5 of the 6×6 row-major
    /// matrix, twist (vx, wz) at 0/5; the unestimated z, roll, pitch, vy,
    /// vz, wx, wy entries are 0.
    pub fn filtered_odometry(&self) -> Odometry {
        self.odometry(&self.global, &self.cfg.map_frame)
    }

    /// The dead-reckoned odometry: the odom-frame filter, frame `odom_frame`.
    pub fn odom_odometry(&self) -> Odometry {
        self.odometry(&self.local, &self.cfg.odom_frame)
    }

    fn odometry(&self, f: &Ekf, frame: &str) -> Odometry {
        let mut o = Odometry {
            header: Header {
                stamp: Time::from_nanos(f.t_ns),
                frame_id: frame.into(),
            },
            child_frame_id: self.cfg.base_frame.clone(),
            ..Default::default()
        };
        o.pose.pose.position.x = f.x[IX];
        o.pose.pose.position.y = f.x[IY];
        o.pose.pose.orientation = Quaternion::from_yaw(f.x[IYAW]);
        let idx = [(IX, 0), (IY, 1), (IYAW, 5)];
        for (si, oi) in idx {
            for (sj, oj) in idx {
                o.pose.covariance[oi * 6 + oj] = f.p[(si, sj)];
            }
        }
        o.twist.twist.linear.x = f.x[IV];
        o.twist.twist.angular.z = f.x[IW];
        let idx = [(IV, 0), (IW, 5)];
        for (si, oi) in idx {
            for (sj, oj) in idx {
                o.twist.covariance[oi * 6 + oj] = f.p[(si, sj)];
            }
        }
        o
    }

    /// The `map → odom` transform: `yaw = yaw_map - yaw_odom`,
    /// `p = p_map - R(yaw) p_odom`.
    pub fn map_to_odom(&self) -> Pose2 {
        let yaw = wrap_angle(self.global.x[IYAW] - self.local.x[IYAW]);
        let pm = Vector2::new(self.global.x[IX], self.global.x[IY]);
        let po = Vector2::new(self.local.x[IX], self.local.x[IY]);
        let p = pm - rot(yaw) * po;
        Pose2 {
            x_m: p.x,
            y_m: p.y,
            yaw_rad: yaw,
        }
    }

    /// [`Self::map_to_odom`] as a `/tf` transform stamped at the filter time.
    pub fn map_to_odom_tf(&self) -> TransformStamped {
        let t = self.map_to_odom();
        TransformStamped {
            header: Header {
                stamp: Time::from_nanos(self.global.t_ns),
                frame_id: self.cfg.map_frame.clone(),
            },
            child_frame_id: self.cfg.odom_frame.clone(),
            transform: Transform {
                translation: Vector3 {
                    x: t.x_m,
                    y: t.y_m,
                    z: 0.0,
                },
                rotation: Quaternion::from_yaw(t.yaw_rad),
            },
        }
    }

    /// One diagnostic status per sensor (`ekf: wheel_odom`, `ekf: imu`,
    /// `ekf: gnss`) at `now`: STALE before any message; ERROR for GNSS while
    /// the consistency monitor refuses it; WARN while the sensor's last
    /// message was refused or none was fused for its `timeout_s`; else OK.
    /// Keys: `d2`, `d2_threshold`, `divergence_sigma` (GNSS: also
    /// `divergence_m`, `combined_sigma_m`, `monitor`), `fused`, `rejected`,
    /// `last_rejection`, then `rejected.<reason>` (e.g. `rejected.no_fix`)
    /// for each reason counted at least once.
    pub fn diagnostics(&self, now: Time) -> Vec<DiagnosticStatus> {
        [Sensor::WheelOdom, Sensor::Imu, Sensor::Gnss]
            .into_iter()
            .map(|s| self.diagnostic(s, now))
            .collect()
    }

    fn diagnostic(&self, sensor: Sensor, now: Time) -> DiagnosticStatus {
        let st = &self.sensors[sensor.index()];
        let timeout_s = match sensor {
            Sensor::WheelOdom => self.cfg.wheel_odom.timeout_s,
            Sensor::Imu => self.cfg.imu.timeout_s,
            Sensor::Gnss => self.cfg.gnss.timeout_s,
        };
        let monitor_refusing = sensor == Sensor::Gnss
            && self.cfg.consistency.enabled
            && self.monitor.state() == MonitorState::Refusing;
        let age_s = st.last_fused_ns.map(|t| (now.as_nanos() - t) as f64 * 1e-9);
        let (level, message) = if st.counters.received == 0 {
            (DiagLevel::Stale, "no message yet".to_string())
        } else if monitor_refusing {
            (
                DiagLevel::Error,
                "GNSS refused: diverges from dead reckoning".to_string(),
            )
        } else if let Some((reason, n)) = st.refusing {
            (
                DiagLevel::Warn,
                format!("{n} refused in a row ({})", reason.name()),
            )
        } else if age_s.is_none_or(|a| a > timeout_s) {
            (
                DiagLevel::Warn,
                format!("nothing fused for more than {timeout_s} s"),
            )
        } else {
            (DiagLevel::Ok, "fused".to_string())
        };
        let f = |x: f64| format!("{x:.6}");
        let inn = st.innovation;
        let mut values = vec![
            ("d2".to_string(), inn.map_or("nan".into(), |i| f(i.d2))),
            (
                "d2_threshold".to_string(),
                f(self.gate_for(sensor, self.gate_enabled(sensor))),
            ),
        ];
        let div = self.monitor.last();
        if sensor == Sensor::Gnss {
            values.push((
                "divergence_sigma".into(),
                div.map_or("nan".into(), |d| f(d.k_sigma)),
            ));
            values.push((
                "divergence_m".into(),
                div.map_or("nan".into(), |d| f(d.d_m[0].hypot(d.d_m[1]))),
            ));
            values.push((
                "combined_sigma_m".into(),
                div.map_or("nan".into(), |d| f(d.sigma_m)),
            ));
            values.push((
                "monitor".into(),
                match self.monitor.state() {
                    MonitorState::Accepting => "accepting".into(),
                    MonitorState::Refusing => "refusing".into(),
                },
            ));
        }
        values.push(("fused".into(), st.counters.fused.to_string()));
        values.push(("rejected".into(), st.counters.rejected_total().to_string()));
        values.push((
            "last_rejection".into(),
            st.last_reason.map_or("none", |r| r.name()).into(),
        ));
        // One counter per reason that occurred (`rejected.no_fix`, ...), in
        // `RejectReason::ALL` order.
        for r in RejectReason::ALL {
            let n = st.counters.rejected(r);
            if n > 0 {
                values.push((format!("rejected.{}", r.name()), n.to_string()));
            }
        }
        DiagnosticStatus {
            level,
            name: format!("ekf: {}", sensor.name()),
            message,
            hardware_id: LOGGER_NAME.into(),
            values,
        }
    }

    fn gate_enabled(&self, sensor: Sensor) -> bool {
        match sensor {
            Sensor::WheelOdom => self.cfg.wheel_odom.mahalanobis_gate,
            Sensor::Imu => self.cfg.imu.mahalanobis_gate,
            Sensor::Gnss => self.cfg.gnss.mahalanobis_gate,
        }
    }
}
