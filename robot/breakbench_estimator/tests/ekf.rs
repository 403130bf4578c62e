//! Known-value tests of the estimator through its public API: exact tracking
//! of noise-free constant-velocity motion, the χ² gate at its threshold, the
//! input guards, the stamp rules, and the consistency monitor against a
//! slow GNSS ramp that every single gate evaluation lets through.

use breakbench_estimator::{
    DiagLevel, EkfConfig, Estimator, InitialState, LogLevel, MonitorState, Pose2, RejectReason,
    Sensor, StampNote,
};
use kraken_interfaces::ros::{Imu, NavSatFix, NavSatStatus, Odometry, Time};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

const MS: i64 = 1_000_000;
const S: i64 = 1_000_000_000;

/// The test's geodetic conversion: the fix carries local ENU metres directly
/// (`longitude` = east, `latitude` = north). The estimator takes whatever
/// conversion its caller supplies; a real caller uses a geodesy library.
fn enu(lat: f64, lon: f64, alt: f64) -> Option<[f64; 3]> {
    Some([lon, lat, alt])
}

fn t(ns: i64) -> Time {
    Time::from_nanos(ns)
}

fn odom(stamp_ns: i64, v: f64, w: f64, var_v: f64, var_w: f64) -> Odometry {
    let mut m = Odometry::default();
    m.header.stamp = t(stamp_ns);
    m.header.frame_id = "odom".into();
    m.child_frame_id = "base_link".into();
    m.twist.twist.linear.x = v;
    m.twist.twist.angular.z = w;
    m.twist.covariance[0] = var_v;
    m.twist.covariance[35] = var_w;
    m
}

fn imu(stamp_ns: i64, w: f64, var: f64) -> Imu {
    let mut m = Imu::default();
    m.header.stamp = t(stamp_ns);
    m.orientation_covariance[0] = -1.0;
    m.angular_velocity.z = w;
    m.angular_velocity_covariance[0] = var;
    m.angular_velocity_covariance[4] = var;
    m.angular_velocity_covariance[8] = var;
    m.linear_acceleration_covariance[0] = -1.0;
    m
}

fn fix(stamp_ns: i64, east: f64, north: f64, cov: [f64; 3]) -> NavSatFix {
    let mut m = NavSatFix::default();
    m.header.stamp = t(stamp_ns);
    m.status.status = NavSatStatus::STATUS_FIX;
    m.status.service = NavSatStatus::SERVICE_GPS;
    m.latitude = north;
    m.longitude = east;
    m.position_covariance = [cov[0], cov[1], 0.0, cov[1], cov[2], 0.0, 0.0, 0.0, 1.0];
    m.position_covariance_type = NavSatFix::COVARIANCE_TYPE_KNOWN;
    m
}

/// Exact unicycle pose after `ts` seconds at constant `v`, `w` from `p0`.
fn truth(p0: Pose2, v: f64, w: f64, ts: f64) -> Pose2 {
    let a = 0.5 * w * ts;
    let sinc = if a.abs() < 1e-12 { 1.0 } else { a.sin() / a };
    let ym = p0.yaw_rad + a;
    Pose2 {
        x_m: p0.x_m + v * ts * sinc * ym.cos(),
        y_m: p0.y_m + v * ts * sinc * ym.sin(),
        yaw_rad: p0.yaw_rad + w * ts,
    }
}

fn ang_err(a: f64, b: f64) -> f64 {
    let d = (a - b).rem_euclid(std::f64::consts::TAU);
    d.min(std::f64::consts::TAU - d)
}

/// Noise-free wheel (20 Hz), IMU (50 Hz) and GNSS (5 Hz) from a robot at
/// constant `v`, `w`, starting at the truth: every innovation is 0, so the
/// filter must follow the motion to rounding. Checked at every GNSS fix for
/// 60 s, straight (w = 0) and on a circle (w = 0.25 rad/s).
#[test]
fn constant_velocity_noise_free_tracks_exactly() {
    for w in [0.0, 0.25] {
        let v = 1.5;
        let map0 = Pose2 {
            x_m: 10.0,
            y_m: 5.0,
            yaw_rad: 0.3,
        };
        let odom0 = Pose2::default();
        let mut est = Estimator::new(
            EkfConfig::default(),
            InitialState {
                stamp: t(S),
                map: map0,
                odom: odom0,
                v_m_s: v,
                yaw_rate_rad_s: w,
            },
        )
        .unwrap();
        let mut worst: f64 = 0.0;
        let mut fixes = 0;
        for tick in 1..=6000 {
            let tn = S + tick * 10 * MS;
            let ts = (tn - S) as f64 * 1e-9;
            if tn % (50 * MS) == 0 {
                est.fuse_wheel_odom(&odom(tn, v, w, 4e-4, 1e-4), t(tn))
                    .unwrap();
            }
            if tn % (20 * MS) == 0 {
                est.fuse_imu(&imu(tn, w, 2.5e-5), t(tn)).unwrap();
            }
            if tn % (200 * MS) == 0 {
                let p = truth(map0, v, w, ts);
                est.fuse_navsat(&fix(tn, p.x_m, p.y_m, [0.25, 0.0, 0.25]), t(tn), &enu)
                    .unwrap();
                fixes += 1;
                let x = est.map_filter().x;
                let o = est.odom_filter().x;
                let po = truth(odom0, v, w, ts);
                let e = [
                    (x[0] - p.x_m).abs(),
                    (x[1] - p.y_m).abs(),
                    ang_err(x[2], p.yaw_rad),
                    (x[3] - v).abs(),
                    (x[4] - w).abs(),
                    (o[0] - po.x_m).abs(),
                    (o[1] - po.y_m).abs(),
                    ang_err(o[2], po.yaw_rad),
                ];
                worst = e.iter().fold(worst, |a, b| a.max(*b));
                // The GNSS innovation is 0 to rounding.
                let inn = est.innovation(Sensor::Gnss).unwrap();
                assert!(inn.nu[0].abs() < 1e-9 && inn.nu[1].abs() < 1e-9);
                assert!(inn.fused);
            }
        }
        assert_eq!(fixes, 300);
        assert!(worst < 1e-9, "w = {w}: worst error {worst:e}");
        // map -> odom stays the initial offset: the map start pose.
        let mo = est.map_to_odom();
        assert!((mo.x_m - 10.0).abs() < 1e-9 && (mo.y_m - 5.0).abs() < 1e-9);
        assert!(ang_err(mo.yaw_rad, 0.3) < 1e-9);
        let out = est.filtered_odometry();
        assert_eq!(out.header.frame_id, "map");
        assert_eq!(out.child_frame_id, "base_link");
        assert_eq!(out.header.stamp, t(61 * S));
        let p = truth(map0, v, w, 60.0);
        assert!((out.pose.pose.position.x - p.x_m).abs() < 1e-9);
        assert!(ang_err(out.pose.pose.orientation.yaw(), p.yaw_rad) < 1e-9);
        assert!((out.twist.twist.linear.x - v).abs() < 1e-9);
        assert!(out.pose.covariance[0] > 0.0 && out.pose.covariance[35] > 0.0);
        assert_eq!(est.odom_odometry().header.frame_id, "odom");
        for s in [Sensor::WheelOdom, Sensor::Imu, Sensor::Gnss] {
            let c = est.counters(s);
            assert_eq!(c.rejected_total(), 0, "{s:?}");
            assert_eq!(c.fused, c.received, "{s:?}");
        }
        assert!(est.drain_logs().is_empty());
        let diags = est.diagnostics(t(61 * S));
        assert!(diags.iter().all(|d| d.level == DiagLevel::Ok), "{diags:?}");
    }
}

fn at_start(cfg: EkfConfig) -> Estimator {
    Estimator::new(
        cfg,
        InitialState {
            stamp: t(S),
            ..Default::default()
        },
    )
    .unwrap()
}

/// A GNSS innovation built from `S` so that `d2 = c²` exactly: with the
/// filter at its initial state (P_xy = 0.1² I) and R known, S = P_xy + R,
/// nu = c L u with S = L Lᵀ and |u| = 1. At c² = threshold·(1 ∓ 1e-6) the
/// fix is fused / refused. The χ²(2) quantile is -2 ln(1 - p) in closed form.
#[test]
fn gnss_gate_rejects_just_above_and_accepts_just_below() {
    let thr = -2.0 * (1.0f64 - 0.999).ln();
    let r: [f64; 3] = [0.25, 0.05, 0.16];
    let s: [f64; 3] = [r[0] + 0.01, r[1], r[2] + 0.01];
    // Cholesky of [[s0, s1], [s1, s2]].
    let l00 = s[0].sqrt();
    let l10 = s[1] / l00;
    let l11 = (s[2] - l10 * l10).sqrt();
    let u = [0.6, 0.8];
    for (factor, fused) in [(1.0 - 1e-6, true), (1.0 + 1e-6, false)] {
        let mut est = at_start(EkfConfig::default());
        assert!((est.gate_threshold(Sensor::Gnss) - thr).abs() < 1e-9);
        let c = (thr * factor).sqrt();
        let nu = [c * l00 * u[0], c * (l10 * u[0] + l11 * u[1])];
        let before = est.map_filter().clone();
        let res = est.fuse_navsat(&fix(S, nu[0], nu[1], r), t(S), &enu);
        let inn = *est.innovation(Sensor::Gnss).unwrap();
        assert!(
            (inn.d2 - thr * factor).abs() < 1e-9,
            "{} vs {}",
            inn.d2,
            thr
        );
        assert_eq!(inn.dim, 2);
        assert!((inn.s[0][0] - s[0]).abs() < 1e-15 && (inn.s[0][1] - s[1]).abs() < 1e-15);
        assert_eq!(inn.fused, fused);
        if fused {
            assert!(res.is_ok());
            assert_ne!(est.map_filter().x, before.x);
        } else {
            assert_eq!(res, Err(RejectReason::MahalanobisGate));
            assert_eq!(
                est.counters(Sensor::Gnss)
                    .rejected(RejectReason::MahalanobisGate),
                1
            );
            assert_eq!(*est.map_filter(), before);
            let logs = est.drain_logs();
            assert_eq!(logs.len(), 1);
            assert_eq!(logs[0].level, LogLevel::Warn);
            assert!(logs[0].msg.contains("mahalanobis_gate"), "{}", logs[0].msg);
            assert!(logs[0].msg.contains(&format!("d2={:.3}", thr * factor)));
        }
    }
}

/// The IMU gate with one degree of freedom: χ²(1) at p = 0.9999 is
/// (Φ⁻¹(0.99995))² = 15.1367052 (tables); S = 0.1² + R for yaw_rate.
#[test]
fn imu_gate_uses_one_degree_of_freedom() {
    let mut cfg = EkfConfig::default();
    cfg.imu.mahalanobis_gate = true;
    let thr = at_start(cfg.clone()).gate_threshold(Sensor::Imu);
    assert!((thr - 15.136_705_2).abs() < 1e-6, "{thr}");
    let var = 0.0004;
    let s = 0.01 + var;
    for (factor, ok) in [(1.0 - 1e-6, true), (1.0 + 1e-6, false)] {
        let mut est = at_start(cfg.clone());
        let w = (thr * factor * s).sqrt();
        let res = est.fuse_imu(&imu(S, w, var), t(S));
        let inn = est.innovation(Sensor::Imu).unwrap();
        assert_eq!(inn.dim, 1);
        assert!((inn.d2 - thr * factor).abs() < 1e-9);
        assert_eq!(res.is_ok(), ok);
    }
}

/// Every guard refuses with its counted reason, changes nothing in either
/// filter, and logs one WARN naming the reason.
#[test]
fn guards_refuse_with_counted_reasons() {
    let mut est = at_start(EkfConfig::default());
    let now = t(S);
    let good = fix(S, 1.0, 1.0, [0.25, 0.0, 0.25]);
    let mut no_fix = good.clone();
    no_fix.status.status = NavSatStatus::STATUS_NO_FIX;
    let mut unknown = good.clone();
    unknown.position_covariance_type = NavSatFix::COVARIANCE_TYPE_UNKNOWN;
    let mut nan_lat = good.clone();
    nan_lat.latitude = f64::NAN;
    let nan_cov = fix(S, 1.0, 1.0, [f64::NAN, 0.0, 0.25]);
    let dbl_max = fix(S, 1.0, 1.0, [f64::MAX, 0.0, f64::MAX]);
    let inf_cov = fix(S, 1.0, 1.0, [0.25, 0.0, f64::INFINITY]);
    let negative = fix(S, 1.0, 1.0, [-0.25, 0.0, 0.25]);
    let cases: Vec<(NavSatFix, RejectReason)> = vec![
        (no_fix, RejectReason::NoFix),
        (unknown, RejectReason::CovarianceUnknown),
        (nan_lat, RejectReason::NonFinite),
        (nan_cov, RejectReason::NonFinite),
        (dbl_max, RejectReason::HugeCovariance),
        (inf_cov, RejectReason::NonFinite),
        (negative, RejectReason::NegativeVariance),
    ];
    let before = (est.map_filter().clone(), est.odom_filter().clone());
    for (m, reason) in &cases {
        assert_eq!(est.fuse_navsat(m, now, &enu), Err(*reason));
    }
    let failing = |_: f64, _: f64, _: f64| -> Option<[f64; 3]> { None };
    assert_eq!(
        est.fuse_navsat(&good, now, &failing),
        Err(RejectReason::ConversionFailed)
    );
    let c = est.counters(Sensor::Gnss);
    assert_eq!(c.received, 8);
    assert_eq!(c.fused, 0);
    assert_eq!(c.rejected(RejectReason::NoFix), 1);
    assert_eq!(c.rejected(RejectReason::CovarianceUnknown), 1);
    assert_eq!(c.rejected(RejectReason::NonFinite), 3);
    assert_eq!(c.rejected(RejectReason::HugeCovariance), 1);
    assert_eq!(c.rejected(RejectReason::NegativeVariance), 1);
    assert_eq!(c.rejected(RejectReason::ConversionFailed), 1);
    // Wheel odometry and IMU: NaN value, DBL_MAX variance, "not provided".
    assert_eq!(
        est.fuse_wheel_odom(&odom(S, f64::NAN, 0.0, 1e-4, 1e-4), now),
        Err(RejectReason::NonFinite)
    );
    assert_eq!(
        est.fuse_wheel_odom(&odom(S, 1.0, 0.0, f64::MAX, 1e-4), now),
        Err(RejectReason::HugeCovariance)
    );
    assert_eq!(
        est.fuse_imu(&imu(S, 0.1, f64::MAX), now),
        Err(RejectReason::HugeCovariance)
    );
    assert_eq!(
        est.fuse_imu(&imu(S, f64::INFINITY, 1e-4), now),
        Err(RejectReason::NonFinite)
    );
    assert_eq!(
        est.fuse_imu(&imu(S, 0.1, -1.0), now),
        Err(RejectReason::NotProvided)
    );
    assert_eq!(est.counters(Sensor::WheelOdom).rejected_total(), 2);
    assert_eq!(
        est.counters(Sensor::Imu)
            .rejected(RejectReason::NotProvided),
        1
    );
    assert_eq!(*est.map_filter(), before.0);
    assert_eq!(*est.odom_filter(), before.1);
    let logs = est.drain_logs();
    // One WARN per change of reason: gnss 7 (non_finite twice in a row
    // once, then again after huge_covariance), wheel 2, imu 3.
    let warns: Vec<_> = logs.iter().filter(|l| l.level == LogLevel::Warn).collect();
    assert_eq!(warns.len(), logs.len());
    assert!(warns
        .iter()
        .any(|l| l.msg.contains("gnss") && l.msg.contains("no_fix")));
    assert!(warns.iter().any(|l| l.msg.contains("huge_covariance")));
    assert_eq!(warns.len(), 7 + 2 + 3, "{warns:#?}");
    // The diagnostic shows the run of refusals.
    let d = est.diagnostics(now);
    let g = d.iter().find(|d| d.name == "ekf: gnss").unwrap();
    assert_eq!(g.level, DiagLevel::Warn);
    assert_eq!(g.value("rejected"), Some("8"));
    assert_eq!(g.value("last_rejection"), Some("conversion_failed"));
    // A good fix afterwards is fused and logged at INFO.
    assert!(est.fuse_navsat(&good, now, &enu).is_ok());
    let logs = est.drain_logs();
    assert_eq!(logs.len(), 1);
    assert_eq!(logs[0].level, LogLevel::Info);
    // Zero variances are floored, counted, and fused.
    let x = est.map_filter().x;
    assert!(est
        .fuse_navsat(&fix(S, x[0], x[1], [0.0, 0.0, 0.0]), now, &enu)
        .is_ok());
    assert_eq!(est.counters(Sensor::Gnss).variance_floored, 1);
    assert!(est.map_filter().p.iter().all(|v| v.is_finite()));
}

/// Stamp rules: 0 → receive time, future beyond 0.1 s → receive time, late
/// within 0.5 s → filter time, older → too_old; a driver that always stamps
/// 0 keeps being fused.
#[test]
fn stamp_zero_future_and_late_follow_the_rules() {
    let mut est = at_start(EkfConfig::default());
    // Stamp 0 received at 2 s: fused at 2 s.
    let f = est.fuse_imu(&imu(0, 0.0, 1e-4), t(2 * S)).unwrap();
    assert_eq!((f.t_ns, f.note), (2 * S, StampNote::ZeroStamp));
    assert_eq!(est.time_ns(), 2 * S);
    // A stamp 1 h ahead received at 3 s: fused at 3 s.
    let f = est.fuse_imu(&imu(3600 * S, 0.0, 1e-4), t(3 * S)).unwrap();
    assert_eq!((f.t_ns, f.note), (3 * S, StampNote::FutureStamp));
    // 50 ms ahead (within the tolerance): clamped to the receive time.
    let f = est
        .fuse_imu(&imu(4 * S + 50 * MS, 0.0, 1e-4), t(4 * S))
        .unwrap();
    assert_eq!((f.t_ns, f.note), (4 * S, StampNote::AsStamped));
    // 0.4 s older than the filter: fused at the filter time, counted late.
    let f = est
        .fuse_wheel_odom(&odom(3600 * MS, 0.0, 0.0, 1e-4, 1e-4), t(4 * S))
        .unwrap();
    assert_eq!((f.t_ns, f.note), (4 * S, StampNote::Late));
    // 0.6 s older: refused.
    assert_eq!(
        est.fuse_wheel_odom(&odom(3400 * MS, 0.0, 0.0, 1e-4, 1e-4), t(4 * S)),
        Err(RejectReason::TooOld)
    );
    assert_eq!(est.time_ns(), 4 * S);
    // A driver without a clock: 100 zero-stamped messages, all fused.
    for i in 1..=100 {
        est.fuse_imu(&imu(0, 0.0, 1e-4), t(4 * S + i * 20 * MS))
            .unwrap();
    }
    let c = est.counters(Sensor::Imu);
    assert_eq!((c.zero_stamp, c.future_stamp, c.fused), (101, 1, 103));
    let w = est.counters(Sensor::WheelOdom);
    assert_eq!((w.late_fused, w.rejected(RejectReason::TooOld)), (1, 1));
    assert_eq!(est.time_ns(), 6 * S);
}

/// One simulated run for the consistency tests.
struct Run {
    /// (time s, map-filter position error m)
    errors: Vec<(f64, f64)>,
    /// Monitor transitions (time s, new state).
    transitions: Vec<(f64, MonitorState)>,
    /// Mahalanobis refusals of GNSS in [ramp start, ramp end).
    gate_refusals_in_ramp: u64,
    /// The monitor's combined σ just before the ramp starts, m.
    sigma_before_ramp_m: f64,
    /// Highest level of `ekf: gnss` seen, and the divergence it showed.
    worst_diag: (DiagLevel, f64),
    /// Log records (level, message).
    logs: Vec<(LogLevel, String)>,
    est: Estimator,
}

const RAMP_START_S: f64 = 20.0;
const RAMP_END_S: f64 = 60.0;
const END_S: f64 = 100.0;

/// A robot at 1 m/s, heading 0.3 rad, on a gentle turn (0.01 rad/s); wheel
/// odometry 20 Hz (σ_v 0.02 m/s, σ_w 0.01 rad/s), IMU 50 Hz (σ 0.005 rad/s),
/// GNSS 5 Hz (σ 0.5 m per axis), each reported with its true variance and
/// noise from its own ChaCha8 stream of `seed`. GNSS carries an extra
/// offset growing at `ramp_m_s` to the north from 20 s to 60 s (8 m at
/// 0.2 m/s), then is correct again (the fault ends).
fn simulate(cfg: EkfConfig, seed: u64, ramp_m_s: f64) -> Run {
    let (v, w) = (1.0, 0.01);
    let map0 = Pose2 {
        x_m: 0.0,
        y_m: 0.0,
        yaw_rad: 0.3,
    };
    let mut est = Estimator::new(
        cfg,
        InitialState {
            stamp: t(0),
            map: map0,
            odom: Pose2::default(),
            v_m_s: v,
            yaw_rate_rad_s: w,
        },
    )
    .unwrap();
    let stream = |k| {
        let mut r = ChaCha8Rng::seed_from_u64(seed);
        r.set_stream(k);
        r
    };
    let (mut rw, mut ri, mut rg) = (stream(1), stream(2), stream(3));
    let n = |s: f64| Normal::new(0.0, s).unwrap();
    let (nv, nw, ni, ng) = (n(0.02), n(0.01), n(0.005), n(0.5));
    let mut run = Run {
        errors: Vec::new(),
        transitions: Vec::new(),
        gate_refusals_in_ramp: 0,
        sigma_before_ramp_m: f64::NAN,
        worst_diag: (DiagLevel::Ok, 0.0),
        logs: Vec::new(),
        est: est.clone(),
    };
    let mut last_state = MonitorState::Accepting;
    let ticks = (END_S * 100.0) as i64;
    for tick in 1..=ticks {
        let tn = tick * 10 * MS;
        let ts = tn as f64 * 1e-9;
        if tn % (50 * MS) == 0 {
            let m = odom(
                tn,
                v + nv.sample(&mut rw),
                w + nw.sample(&mut rw),
                4e-4,
                1e-4,
            );
            est.fuse_wheel_odom(&m, t(tn)).unwrap();
        }
        if tn % (20 * MS) == 0 {
            est.fuse_imu(&imu(tn, w + ni.sample(&mut ri), 2.5e-5), t(tn))
                .unwrap();
        }
        if tn % (200 * MS) == 0 {
            let p = truth(map0, v, w, ts);
            let off = if (RAMP_START_S..RAMP_END_S).contains(&ts) {
                ramp_m_s * (ts - RAMP_START_S)
            } else {
                0.0
            };
            let m = fix(
                tn,
                p.x_m + ng.sample(&mut rg),
                p.y_m + off + ng.sample(&mut rg),
                [0.25, 0.0, 0.25],
            );
            if (ts - (RAMP_START_S - 0.2)).abs() < 1e-9 {
                run.sigma_before_ramp_m = est.monitor().last().map_or(f64::NAN, |d| d.sigma_m);
            }
            let res = est.fuse_navsat(&m, t(tn), &enu);
            if res == Err(RejectReason::MahalanobisGate) && (RAMP_START_S..RAMP_END_S).contains(&ts)
            {
                run.gate_refusals_in_ramp += 1;
            }
            let x = est.map_filter().x;
            run.errors.push((ts, (x[0] - p.x_m).hypot(x[1] - p.y_m)));
            let st = est.monitor().state();
            if st != last_state {
                run.transitions.push((ts, st));
                last_state = st;
            }
            let d = est.diagnostics(t(tn));
            let g = d.iter().find(|d| d.name == "ekf: gnss").unwrap();
            if g.level > run.worst_diag.0 {
                let k: f64 = g.value("divergence_sigma").unwrap().parse().unwrap();
                run.worst_diag = (g.level, k);
            }
        }
    }
    run.logs = est
        .drain_logs()
        .into_iter()
        .map(|l| (l.level, l.msg))
        .collect();
    run.est = est;
    run
}

fn no_monitor() -> EkfConfig {
    let mut c = EkfConfig::default();
    c.consistency.enabled = false;
    c
}

/// The consistency monitor against a 0.2 m/s GNSS ramp held for 40 s, on
/// 8 seeds.
///
/// The gate alone: each fix's d² stays within what the gate's false-positive
/// rate allows (at most 2 of the 200 ramp fixes refused; p = 0.999 expects
/// 0.2 on unbiased innovations), and the estimate follows the spoof (error
/// above 7 m at 59.8 s).
///
/// The detection bound. With `n = 51` fixes of σ_g = 0.5 m per axis equally
/// spaced over the window T = 10 s, the least-squares divergence has
/// σ_D = T σ_g / sqrt(Σ(t_i - t̄)²) = 10·0.5/sqrt(51·(51²-1)·0.2²/12) =
/// 0.2378 m from GNSS alone; the monitor adds the dead-reckoning share, so
/// the test reads its combined σ before the ramp and checks it lies in
/// [0.2378, 0.36) m. For a ramp of rate ρ that began τ ≤ T ago the expected
/// divergence is ρT(3u² - 2u³), u = τ/T (the least-squares slope of a
/// hinge over a uniform window: 12·∫₀¹(s - ½)(s - 1 + u)⁺ds · ρ). Once that
/// mean is (k_high + 3)σ the noise would have to sit 3σ low for the monitor
/// not to fire (probability 0.13 %), so the latency bound τ_max solves
/// ρT(3u² - 2u³) = 7σ, plus one fix period (0.2 s); with σ = 0.26 m,
/// τ_max ≈ 8.6 s.
///
/// Until detection the error stays below ρ·latency (the most of the spoof
/// the filter can have absorbed) plus 5σ of the map filter's own position
/// noise. At detection the pose is rolled back onto the dead-reckoned track
/// (`rollback_on_refusal`), so the error just after detection is within 3σ
/// of the map filter's noise (2-D tail exp(-4.5) = 1.1 % per run; measured
/// 0.01–0.32 m against 3σ = 0.65 m, and 0.65–0.96 m without the
/// roll-back). The worst error over the run is checked against 1.5 m, a
/// measured bound (0.75–1.12 m on these seeds; 0.95–2.72 m without the
/// roll-back, when the map filter dead-reckons on with the heading the ramp
/// pulled it to; 7.5–8.0 m with the gate alone).
///
/// Re-acceptance. The residual steps back at 60 s; the step stays in the
/// 10 s window until 70 s (k large), then k must stay below k_low for 5 s:
/// re-acceptance no earlier than 74.8 s, and exactly two transitions over
/// the run (no oscillation); 25 s later the error is under 0.5 m.
#[test]
fn consistency_monitor_catches_a_slow_ramp_that_every_gate_step_passes() {
    let rho = 0.2;
    let sigma_g_only: f64 = 10.0 * 0.5 / (51.0 * (51.0f64 * 51.0 - 1.0) * 0.04 / 12.0).sqrt();
    assert!((sigma_g_only - 0.2378).abs() < 1e-4);
    let mut detections = Vec::new();
    let mut gate_only_errors = Vec::new();
    let mut worst_errors = Vec::new();
    for seed in 1..=8u64 {
        // Gate alone: it lets the ramp through and the estimate follows it.
        let gate_only = simulate(no_monitor(), seed, rho);
        assert!(gate_only.gate_refusals_in_ramp <= 2, "seed {seed}");
        let e_end = gate_only
            .errors
            .iter()
            .find(|(ts, _)| (*ts - (RAMP_END_S - 0.2)).abs() < 1e-9)
            .unwrap()
            .1;
        assert!(
            e_end > 7.0,
            "seed {seed}: gate-only error {e_end} m at 59.8 s"
        );
        gate_only_errors.push(e_end);

        // Gate and monitor.
        let run = simulate(EkfConfig::default(), seed, rho);
        let sigma = run.sigma_before_ramp_m;
        assert!(
            (sigma_g_only..0.36).contains(&sigma),
            "seed {seed}: combined sigma {sigma}"
        );
        let k_high = 4.0;
        // Solve 3u² - 2u³ = (k_high + 3) σ / (ρ T) by bisection on [0, 1].
        let target = (k_high + 3.0) * sigma / (rho * 10.0);
        assert!(target < 1.0, "the bound needs (k+3)σ below ρT");
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if 3.0 * mid * mid - 2.0 * mid.powi(3) < target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let tau_max = 10.0 * hi + 0.2;
        assert_eq!(
            run.transitions.len(),
            2,
            "seed {seed}: {:?}",
            run.transitions
        );
        let (t_detect, s0) = run.transitions[0];
        let (t_accept, s1) = run.transitions[1];
        assert_eq!((s0, s1), (MonitorState::Refusing, MonitorState::Accepting));
        let latency = t_detect - RAMP_START_S;
        assert!(
            latency > 0.0 && latency <= tau_max,
            "seed {seed}: detected {latency} s after the ramp start, bound {tau_max} s"
        );
        detections.push(latency);
        assert!(
            (RAMP_END_S + 10.0 + 5.0 - 0.2..END_S).contains(&t_accept),
            "seed {seed}: accepted again at {t_accept} s"
        );
        // The map filter's steady-state σ (per axis) at the end, after 25 s
        // of fusing correct fixes again.
        let sigma_p = run.est.map_filter().p[(0, 0)].sqrt();
        let before: f64 = run
            .errors
            .iter()
            .filter(|(ts, _)| *ts < t_detect - 1e-9)
            .map(|e| e.1)
            .fold(0.0, f64::max);
        let bound = rho * latency + 5.0 * sigma_p;
        assert!(
            before < bound,
            "seed {seed}: error {before} m before detection, bound {bound} m"
        );
        let e_detect = run
            .errors
            .iter()
            .find(|(ts, _)| (*ts - t_detect).abs() < 1e-9)
            .unwrap()
            .1;
        assert!(
            e_detect < 3.0 * sigma_p,
            "seed {seed}: error {e_detect} m after the roll-back, 3σ = {} m",
            3.0 * sigma_p
        );
        let worst = run.errors.iter().map(|e| e.1).fold(0.0, f64::max);
        assert!(worst < 1.5, "seed {seed}: worst error {worst} m");
        worst_errors.push(worst);
        let final_err = run.errors.last().unwrap().1;
        assert!(final_err < 0.5, "seed {seed}: final error {final_err} m");
        // Surfaced: ERROR on `ekf: gnss` with the divergence above k_high, one
        // WARN and one INFO from the monitor carrying d2 and the divergence.
        assert_eq!(run.worst_diag.0, DiagLevel::Error);
        assert!(run.worst_diag.1 > k_high);
        let monitor_logs: Vec<_> = run
            .logs
            .iter()
            .filter(|(_, m)| m.contains("dead reckoning"))
            .collect();
        assert_eq!(monitor_logs.len(), 2, "{monitor_logs:?}");
        assert_eq!(monitor_logs[0].0, LogLevel::Warn);
        assert_eq!(monitor_logs[1].0, LogLevel::Info);
        assert!(monitor_logs[0].1.contains("divergence_sigma="));
        assert!(monitor_logs[0].1.contains("d2="));
        assert!(monitor_logs[0].1.contains("rolled back"));
        let c = run.est.counters(Sensor::Gnss);
        assert!(c.rejected(RejectReason::ConsistencyMonitor) > 0);
        assert_eq!(run.est.monitor().transitions(), 2);
    }
    eprintln!("detection latencies (s): {detections:?}");
    eprintln!("gate-only error at 59.8 s (m): {gate_only_errors:?}");
    eprintln!("gate+monitor worst error (m): {worst_errors:?}");
}

/// Nominal runs (no fault): the monitor never refuses, the gate refuses at
/// most a few fixes (p = 0.999 over 500 fixes: 0.5 expected), and the
/// position error stays within 5σ of the map filter's steady-state
/// covariance (2-D: P(|e| > 5σ) = exp(-12.5) per fix).
#[test]
fn nominal_runs_raise_no_alarm() {
    for seed in 1..=8u64 {
        let run = simulate(EkfConfig::default(), seed, 0.0);
        assert!(
            run.transitions.is_empty(),
            "seed {seed}: {:?}",
            run.transitions
        );
        let c = run.est.counters(Sensor::Gnss);
        assert!(
            c.rejected(RejectReason::MahalanobisGate) <= 3,
            "seed {seed}: {c:?}"
        );
        assert_eq!(c.rejected(RejectReason::ConsistencyMonitor), 0);
        let worst = run.errors.iter().map(|e| e.1).fold(0.0, f64::max);
        let sigma_p = run.est.map_filter().p[(0, 0)].sqrt();
        assert!(
            worst < 5.0 * sigma_p,
            "seed {seed}: worst error {worst} m, σ {sigma_p} m"
        );
        let k_max = run.est.monitor().last().unwrap().k_sigma;
        assert!(k_max.is_finite());
    }
}
