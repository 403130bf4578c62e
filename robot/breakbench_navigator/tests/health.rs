//! The navigator's sensor health through the [`Controller`] seam, on a
//! simple unicycle driven by its own commands (10 ms step, odometry at
//! 50 Hz, an open-space scan at 10 Hz, ticks at the control rate): a scan
//! dropout stops it and it drives on after; lost odometry stops it at the
//! grace window; a healthy run says nothing at WARN or above.

use std::path::Path;
use std::time::Duration;

use breakbench_navigator::controller::Controller;
use breakbench_navigator::{Navigator, NavigatorConfig};
use kraken_interfaces::ros::{DiagnosticStatus, LaserScan, Log, Odometry, Quaternion, Time};
use kraken_interfaces::SelfReport;
use kraken_interfaces::SensorMsg;

fn cfg() -> NavigatorConfig {
    NavigatorConfig::load(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../config/navigator.yaml"
    )))
    .unwrap()
}

/// 360 beams, nothing in range.
fn open_scan(stamp: Time) -> LaserScan {
    let inc = std::f32::consts::TAU / 360.0;
    LaserScan {
        angle_min: -std::f32::consts::PI,
        angle_max: -std::f32::consts::PI + 359.0 * inc,
        angle_increment: inc,
        range_min: 0.12,
        range_max: 12.0,
        ranges: vec![f32::INFINITY; 360],
        ..LaserScan::default()
    }
    .with_stamp(stamp)
}

trait Stamped {
    fn with_stamp(self, t: Time) -> Self;
}
impl Stamped for LaserScan {
    fn with_stamp(mut self, t: Time) -> Self {
        self.header.stamp = t;
        self
    }
}

/// What a run saw: per tick `(t ms, linear m/s)`, the log records, the
/// diagnostics `(t ms, scan level, odom level)`, the self-report.
struct Run {
    ticks: Vec<(u64, f64)>,
    logs: Vec<Log>,
    diagnostics: Vec<(u64, u8, u8)>,
    report: Option<(SelfReport, Duration)>,
    x_at: Vec<(u64, f64)>,
}

/// Runs `c` for `end_ms` toward a goal 10 m ahead; `scan_ok(t, x)` /
/// `odom_ok(t)` say whether a due message is delivered.
fn run(
    c: &mut dyn Controller,
    end_ms: u64,
    scan_ok: &mut dyn FnMut(u64, f64) -> bool,
    odom_ok: &dyn Fn(u64) -> bool,
) -> Run {
    let (mut x, mut y, mut yaw) = (0.0f64, 0.0f64, 0.0f64);
    let (mut v, mut w) = (0.0, 0.0);
    let period_ms = 50;
    let mut r = Run {
        ticks: vec![],
        logs: vec![],
        diagnostics: vec![],
        report: None,
        x_at: vec![],
    };
    for t in (10..=end_ms).step_by(10) {
        x += v * yaw.cos() * 0.01;
        y += v * yaw.sin() * 0.01;
        yaw += w * 0.01;
        let now = Duration::from_millis(t);
        let stamp = Time::from_nanos(now.as_nanos() as i64);
        if t % 20 == 0 && odom_ok(t) {
            let mut o = Odometry::default();
            o.header.stamp = stamp;
            o.pose.pose.position.x = x;
            o.pose.pose.position.y = y;
            o.pose.pose.orientation = Quaternion::from_yaw(yaw);
            c.on_message("odom", &SensorMsg::Odometry(o), now);
        }
        if t % 100 == 0 && scan_ok(t, x) {
            c.on_message("scan", &SensorMsg::LaserScan(open_scan(stamp)), now);
        }
        if t % period_ms == 0 {
            let cmd = c.tick(now);
            (v, w) = (cmd.linear_m_s, cmd.angular_rad_s);
            r.ticks.push((t, v));
            r.x_at.push((t, x));
            r.logs.extend(c.take_logs());
            for a in c.take_diagnostics() {
                let lv = |n: &str| a.status.iter().find(|s| s.name == n).unwrap().level;
                r.diagnostics.push((
                    t,
                    lv("simple_navigator: scan"),
                    lv("simple_navigator: odom"),
                ));
            }
        }
    }
    r.report = c.self_report();
    r
}

#[test]
fn a_healthy_run_says_nothing_at_warn_or_above_and_reaches_the_goal() {
    let mut nav = Navigator::new(cfg(), [10.0, 0.0]);
    let r = run(&mut nav, 40_000, &mut |_, _| true, &|_| true);
    assert!(r.logs.is_empty(), "{:?}", r.logs);
    assert!(r.diagnostics.len() >= 25, "1 Hz for the whole run");
    assert!(r.diagnostics.iter().all(|d| d.1 == 0 && d.2 == 0));
    assert_eq!(r.report.map(|r| r.0), Some(SelfReport::Success));
}

#[test]
fn a_scan_dropout_past_4_m_stops_the_navigator_until_the_scan_returns() {
    let mut nav = Navigator::new(cfg(), [10.0, 0.0]);
    // Scans withheld for 3 s from the first one due past x = 4 m.
    let mut from: Option<u64> = None;
    let r = run(
        &mut nav,
        40_000,
        &mut |t, x| {
            if from.is_none() && x > 4.0 {
                from = Some(t);
            }
            from.is_none_or(|f| t >= f + 3000)
        },
        &|_| true,
    );
    let warns: Vec<&Log> = r.logs.iter().filter(|l| l.level >= Log::WARN).collect();
    assert_eq!(warns.len(), 1, "{:?}", r.logs);
    let stop_ms = warns[0].stamp.as_nanos() as u64 / 1_000_000;
    // The first withheld scan is due at f, the last delivered one at
    // f - 100 ms: stale 300 ms later, a tick (multiples of 50 ms).
    let f = from.expect("x passed 4 m");
    assert_eq!(stop_ms, f - 100 + 300);
    // Stopped on every tick from the stop until the scan returns, driving before and after.
    let resume = r
        .logs
        .iter()
        .find(|l| l.level == Log::INFO)
        .expect("resume logged");
    let resume_ms = resume.stamp.as_nanos() as u64 / 1_000_000;
    assert!(resume.msg.starts_with("scan fresh again"), "{}", resume.msg);
    // The first scan after the window (f + 3 s) is taken at the tick of the same instant.
    assert_eq!(resume_ms, f + 3000);
    for &(t, v) in &r.ticks {
        if (stop_ms..resume_ms).contains(&t) {
            assert_eq!(v, 0.0, "at {t} ms");
        }
    }
    let before = r.ticks.iter().rfind(|(t, _)| *t < stop_ms).unwrap();
    let after = r.ticks.iter().find(|(t, _)| *t == resume_ms).unwrap();
    assert!(before.1 > 0.3 && after.1 > 0.0, "{before:?} {after:?}");
    // Diagnostics: ERROR for the scan at the stop, OK at the resume; odom OK throughout.
    let err = DiagnosticStatus::ERROR;
    assert!(r.diagnostics.contains(&(stop_ms, err, 0)));
    assert!(r.diagnostics.contains(&(resume_ms, 0, 0)));
    assert!(r.diagnostics.iter().all(|d| d.2 == 0));
    assert!(r
        .diagnostics
        .iter()
        .all(|d| (d.1 == err) == (stop_ms..resume_ms).contains(&d.0)));
    assert_eq!(r.report.map(|r| r.0), Some(SelfReport::Success));
}

#[test]
fn lost_odometry_stops_at_the_grace_window_and_not_before() {
    let mut nav = Navigator::new(cfg(), [10.0, 0.0]);
    // Odometry lost for good after 5.02 s: grace 0.5 s -> stale from 5.52 s,
    // the first tick at or after it is 5.55 s.
    let r = run(&mut nav, 8000, &mut |_, _| true, &|t| t <= 5020);
    // The start (no pose before the first odometry) aside: from 0.1 s it drives.
    let moving: Vec<&(u64, f64)> = r.ticks.iter().filter(|(t, _)| *t >= 100).collect();
    let stop = moving.iter().find(|(_, v)| *v == 0.0).map(|(t, _)| *t);
    assert_eq!(stop, Some(5550));
    assert!(moving
        .iter()
        .filter(|(t, _)| *t >= 5550)
        .all(|(_, v)| *v == 0.0));
    let warns: Vec<&Log> = r.logs.iter().filter(|l| l.level == Log::WARN).collect();
    assert_eq!(warns.len(), 1);
    assert_eq!(
        warns[0].msg,
        "odom stale: no message for 0.530 s (timeout 0.500 s): stopping"
    );
}

#[test]
fn the_canary_says_nothing() {
    let mut c = breakbench_navigator::controller::OpenLoop::new(0.3, 2.0);
    let r = run(&mut c, 5000, &mut |_, _| false, &|_| false);
    assert!(r.logs.is_empty() && r.diagnostics.is_empty());
}
