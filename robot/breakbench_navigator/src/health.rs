//! Sensor health of the navigator: what a real stack does when its inputs go
//! stale or carry stamps it cannot trust.
//!
//! [`Health`] is a plain struct stepped by the navigator's clock (sim time
//! in a run, the node's clock on the graph). It is told when each input
//! message is received ([`Health::on_message`]: receive time and
//! `header.stamp`, both on that clock), and at every control tick
//! ([`Health::tick`]) it decides, per sensor:
//!
//! - **stale**: no message for `timeout` or longer (`now - last receive >=
//!   timeout`; before the first message the age counts from the first
//!   tick). The navigator commands a stop while any sensor is stale. Level
//!   `ERROR`.
//! - **stamp offset**: the latest message's `header.stamp` differs from its
//!   receive time by more than `stamp_tolerance` (a timestamp jump, or a
//!   stream delivered late). Level `WARN`; the command is unchanged.
//! - otherwise `OK`.
//!
//! Each transition (stale / fresh, stamp offset / stamp good) is logged once,
//! at the tick that sees it, as an `rcl_interfaces/msg/Log` record: `WARN`
//! (30) on entering the fault, `INFO` (20) on leaving it. A
//! `diagnostic_msgs/msg/DiagnosticArray` with one status per sensor
//! (`simple_navigator: scan`, `simple_navigator: odom`) is emitted at the
//! first tick, then every `diagnostics_period`, and at every tick with a
//! transition. The node publishes both streams (`/rosout`, `/diagnostics`);
//! an in-process run reads them through
//! [`crate::controller::Controller::take_logs`] /
//! [`crate::controller::Controller::take_diagnostics`].
//!
//! Health monitoring of this kind: REP-107 (diagnostic system for robots:
//! one status per component, levels OK / WARN / ERROR / STALE, published on
//! `/diagnostics`), and Nav2's collision monitor `source_timeout` (a source
//! older than its timeout stops the robot).

use std::time::Duration;

use kraken_interfaces::ros::{DiagnosticArray, DiagnosticStatus, Header, KeyValue, Log, Time};

/// The logger name of the navigator's records and the prefix of its
/// diagnostic status names.
pub const LOGGER_NAME: &str = "simple_navigator";

/// A monitored input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Sensor {
    /// `sensor_msgs/LaserScan` on `scan`.
    Scan,
    /// `nav_msgs/Odometry` on `odom`.
    Odom,
}

impl Sensor {
    /// Every sensor, in the order of the diagnostic statuses.
    pub const ALL: [Sensor; 2] = [Sensor::Scan, Sensor::Odom];

    /// The channel name (`scan`, `odom`).
    pub fn name(self) -> &'static str {
        match self {
            Sensor::Scan => "scan",
            Sensor::Odom => "odom",
        }
    }

    /// The diagnostic status name, `simple_navigator: <channel>`.
    pub fn status_name(self) -> String {
        format!("{LOGGER_NAME}: {}", self.name())
    }

    /// The diagnostic `hardware_id`: the frame the sensor reports in
    /// (REP-105 `base_scan` for the lidar, `odom` for wheel odometry).
    pub fn hardware_id(self) -> &'static str {
        match self {
            Sensor::Scan => "base_scan",
            Sensor::Odom => "odom",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The declared limits (from [`crate::NavigatorConfig`]'s `scan_timeout_s`,
/// `odom_timeout_s`, `stamp_tolerance_s`, `diagnostics_rate_hz`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HealthConfig {
    /// Per sensor (indexed as [`Sensor::ALL`]): age at which it is stale.
    pub timeout: [Duration; 2],
    /// Largest |receive time − `header.stamp`| of a good stamp.
    pub stamp_tolerance: Duration,
    /// Period of the diagnostics between transitions.
    pub diagnostics_period: Duration,
}

impl HealthConfig {
    /// The limits of a navigator file.
    pub fn from_navigator(c: &crate::NavigatorConfig) -> Self {
        Self {
            timeout: [
                Duration::from_secs_f64(c.scan_timeout_s),
                Duration::from_secs_f64(c.odom_timeout_s),
            ],
            stamp_tolerance: Duration::from_secs_f64(c.stamp_tolerance_s),
            diagnostics_period: Duration::from_secs_f64(1.0 / c.diagnostics_rate_hz),
        }
    }
}

/// One sensor's state.
#[derive(Debug, Clone, Default)]
struct Track {
    /// Receive time of the latest message.
    last_rx: Option<Duration>,
    /// Receive time − `header.stamp` of the latest message, ns.
    offset_ns: i64,
    /// Messages received.
    messages: u64,
    /// Stale as of the last tick, and since when (receive time it went stale from).
    stale: bool,
    stale_since: Duration,
    /// Stamp offset beyond tolerance as of the last tick.
    stamp_bad: bool,
}

/// The navigator's sensor health (see the module docs).
#[derive(Debug, Clone)]
pub struct Health {
    cfg: HealthConfig,
    tracks: [Track; 2],
    /// The first tick.
    start: Option<Duration>,
    next_diagnostics: Duration,
    logs: Vec<Log>,
    diagnostics: Vec<DiagnosticArray>,
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn stamp(t: Duration) -> Time {
    Time::from_nanos(t.as_nanos().min(i64::MAX as u128) as i64)
}

impl Health {
    /// Every sensor OK, nothing received yet.
    pub fn new(cfg: HealthConfig) -> Self {
        Self {
            cfg,
            tracks: Default::default(),
            start: None,
            next_diagnostics: Duration::ZERO,
            logs: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// A message of `sensor` received at `now` with `header.stamp` =
    /// `stamp`, both on the navigator's clock.
    pub fn on_message(&mut self, sensor: Sensor, now: Duration, stamp: Duration) {
        let t = &mut self.tracks[sensor.index()];
        t.last_rx = Some(now);
        t.offset_ns = now.as_nanos() as i64 - stamp.as_nanos() as i64;
        t.messages += 1;
    }

    /// Age of `sensor`'s latest message at `now` (from the first tick while
    /// none was received; zero before the first tick).
    pub fn age(&self, sensor: Sensor, now: Duration) -> Duration {
        let from = self.tracks[sensor.index()]
            .last_rx
            .or(self.start)
            .unwrap_or(now);
        now.saturating_sub(from)
    }

    /// The level of `sensor` as of the last tick
    /// ([`DiagnosticStatus::OK`], `WARN` or `ERROR`).
    pub fn level(&self, sensor: Sensor) -> u8 {
        let t = &self.tracks[sensor.index()];
        if t.stale {
            DiagnosticStatus::ERROR
        } else if t.stamp_bad {
            DiagnosticStatus::WARN
        } else {
            DiagnosticStatus::OK
        }
    }

    /// One control tick at `now`: updates every sensor's state, logs its
    /// transitions, emits the diagnostics when due or on a transition.
    /// Returns `true` when the navigator may drive (no sensor stale), `false`
    /// when it must command a stop.
    pub fn tick(&mut self, now: Duration) -> bool {
        let start = *self.start.get_or_insert(now);
        let mut changed = false;
        for s in Sensor::ALL {
            let age = self.age(s, now);
            let timeout = self.cfg.timeout[s.index()];
            let stale = age >= timeout;
            let tol = self.cfg.stamp_tolerance.as_nanos() as i64;
            let t = &self.tracks[s.index()];
            let stamp_bad = t.last_rx.is_some() && t.offset_ns.abs() > tol;
            let offset_s = t.offset_ns as f64 * 1e-9;
            let (was_stale, was_bad, since) = (t.stale, t.stamp_bad, t.stale_since);
            if stale != was_stale {
                let (level, msg) = if stale {
                    let what = if self.tracks[s.index()].last_rx.is_some() {
                        "no message for"
                    } else {
                        "no message since start,"
                    };
                    (
                        Log::WARN,
                        format!(
                            "{} stale: {what} {:.3} s (timeout {:.3} s): stopping",
                            s.name(),
                            secs(age),
                            secs(timeout)
                        ),
                    )
                } else {
                    (
                        Log::INFO,
                        format!(
                            "{} fresh again (age {:.3} s) after {:.3} s stale: resuming",
                            s.name(),
                            secs(age),
                            secs(now.saturating_sub(since))
                        ),
                    )
                };
                self.log(now, level, msg);
                let t = &mut self.tracks[s.index()];
                t.stale = stale;
                if stale {
                    t.stale_since = now;
                }
                changed = true;
            }
            if stamp_bad != was_bad {
                let (level, msg) = if stamp_bad {
                    (
                        Log::WARN,
                        format!(
                            "{} header.stamp off its receive time by {offset_s:+.3} s (receive - stamp; tolerance {:.3} s)",
                            s.name(),
                            secs(self.cfg.stamp_tolerance)
                        ),
                    )
                } else {
                    (
                        Log::INFO,
                        format!(
                            "{} header.stamp within tolerance again ({offset_s:+.3} s)",
                            s.name()
                        ),
                    )
                };
                self.log(now, level, msg);
                self.tracks[s.index()].stamp_bad = stamp_bad;
                changed = true;
            }
        }
        let due = now >= self.next_diagnostics;
        if due || changed {
            let array = self.diagnostic_array(now);
            self.diagnostics.push(array);
        }
        if due {
            if self.next_diagnostics < start {
                self.next_diagnostics = start;
            }
            while self.next_diagnostics <= now {
                self.next_diagnostics += self.cfg.diagnostics_period;
            }
        }
        !self.tracks.iter().any(|t| t.stale)
    }

    /// The current statuses, stamped `now`.
    pub fn diagnostic_array(&self, now: Duration) -> DiagnosticArray {
        DiagnosticArray {
            header: Header {
                stamp: stamp(now),
                frame_id: String::new(),
            },
            status: Sensor::ALL.iter().map(|&s| self.status(s, now)).collect(),
        }
    }

    fn status(&self, s: Sensor, now: Duration) -> DiagnosticStatus {
        let t = &self.tracks[s.index()];
        let level = self.level(s);
        let age = secs(self.age(s, now));
        let offset = t.offset_ns as f64 * 1e-9;
        let message = match level {
            DiagnosticStatus::ERROR if t.last_rx.is_none() => {
                format!("stale: no message since start ({age:.3} s)")
            }
            DiagnosticStatus::ERROR => format!("stale: last message {age:.3} s ago"),
            DiagnosticStatus::WARN => {
                format!("timestamp jump: header.stamp off receive time by {offset:+.3} s")
            }
            _ => format!("ok: last message {age:.3} s ago"),
        };
        let kv = |k: &str, v: String| KeyValue {
            key: k.into(),
            value: v,
        };
        DiagnosticStatus {
            level,
            name: s.status_name(),
            message,
            hardware_id: s.hardware_id().into(),
            values: vec![
                kv("age_s", format!("{age:.3}")),
                kv(
                    "timeout_s",
                    format!("{:.3}", secs(self.cfg.timeout[s.index()])),
                ),
                kv("stamp_offset_s", format!("{offset:.3}")),
                kv(
                    "stamp_tolerance_s",
                    format!("{:.3}", secs(self.cfg.stamp_tolerance)),
                ),
                kv("messages", t.messages.to_string()),
            ],
        }
    }

    fn log(&mut self, now: Duration, level: u8, msg: String) {
        self.logs.push(Log {
            stamp: stamp(now),
            level,
            name: LOGGER_NAME.into(),
            msg,
            file: file!().into(),
            function: "Health::tick".into(),
            line: line!(),
        });
    }

    /// The log records since the last call, oldest first.
    pub fn take_logs(&mut self) -> Vec<Log> {
        std::mem::take(&mut self.logs)
    }

    /// The diagnostic arrays since the last call, oldest first.
    pub fn take_diagnostics(&mut self) -> Vec<DiagnosticArray> {
        std::mem::take(&mut self.diagnostics)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Duration {
        Duration::from_millis(t)
    }

    /// scan 0.3 s, odom 0.5 s, stamps within 0.2 s, diagnostics at 1 Hz.
    fn health() -> Health {
        Health::new(HealthConfig {
            timeout: [ms(300), ms(500)],
            stamp_tolerance: ms(200),
            diagnostics_period: ms(1000),
        })
    }

    /// The in-process schedule on a 10 ms step from `from` to `to` ms:
    /// odometry every 20 ms and scans every 100 ms when `odom(t)` / `scan(t)`
    /// say so (stamp = receive time − `lag(t)` ms), a tick every 50 ms.
    /// Returns `(tick time ms, may drive)` of every tick.
    fn drive(
        h: &mut Health,
        from: u64,
        to: u64,
        odom: impl Fn(u64) -> bool,
        scan: impl Fn(u64) -> bool,
        lag: impl Fn(u64) -> u64,
    ) -> Vec<(u64, bool)> {
        let mut ticks = Vec::new();
        for t in (from..=to).step_by(10) {
            if t % 20 == 0 && odom(t) {
                h.on_message(Sensor::Odom, ms(t), ms(t));
            }
            if t % 100 == 0 && scan(t) {
                h.on_message(Sensor::Scan, ms(t), ms(t - lag(t)));
            }
            if t % 50 == 0 {
                ticks.push((t, h.tick(ms(t))));
            }
        }
        ticks
    }

    fn first_stop(ticks: &[(u64, bool)]) -> Option<u64> {
        ticks.iter().find(|(_, ok)| !ok).map(|(t, _)| *t)
    }

    fn levels(h: &mut Health) -> Vec<(u64, String, u8)> {
        h.take_diagnostics()
            .iter()
            .flat_map(|a| {
                let t = a.header.stamp.as_nanos() as u64 / 1_000_000;
                a.status.iter().map(move |s| (t, s.name.clone(), s.level))
            })
            .collect()
    }

    #[test]
    fn lost_odometry_stops_at_the_first_tick_at_or_after_the_grace_window() {
        // Last odometry at 2.02 s: stale from 2.52 s, the first tick after is 2.55 s.
        let mut h = health();
        let t = drive(&mut h, 0, 4000, |t| t <= 2020, |_| true, |_| 0);
        assert_eq!(first_stop(&t), Some(2550));
        assert!(t.iter().filter(|(t, _)| *t >= 2550).all(|(_, ok)| !ok));
        // Last odometry at 2.00 s: stale at exactly 2.50 s, a tick: stops there, not before.
        let mut h = health();
        let t = drive(&mut h, 0, 4000, |t| t <= 2000, |_| true, |_| 0);
        assert_eq!(first_stop(&t), Some(2500));
        assert_eq!(h.age(Sensor::Odom, ms(2500)), ms(500));
        let logs = h.take_logs();
        assert_eq!(logs.len(), 1, "{logs:?}");
        assert_eq!(logs[0].level, Log::WARN);
        assert_eq!(logs[0].name, "simple_navigator");
        assert_eq!(logs[0].stamp.as_nanos(), 2_500_000_000);
        assert_eq!(
            logs[0].msg,
            "odom stale: no message for 0.500 s (timeout 0.500 s): stopping"
        );
    }

    #[test]
    fn scan_dropout_warns_once_errors_and_recovers_with_fresh_data() {
        // Scans at 4.0 s, then none until 7.0 s (a 3 s dropout).
        let mut h = health();
        let t = drive(
            &mut h,
            0,
            9000,
            |_| true,
            |t| !(4001..7000).contains(&t),
            |_| 0,
        );
        // Stale from 4.3 s (a tick); fresh again at the 7.0 s tick.
        assert_eq!(first_stop(&t), Some(4300));
        let stopped: Vec<u64> = t.iter().filter(|(_, ok)| !ok).map(|(t, _)| *t).collect();
        assert_eq!(stopped.first(), Some(&4300));
        assert_eq!(stopped.last(), Some(&6950));
        assert_eq!(stopped.len(), (6950 - 4300) / 50 + 1);
        let logs = h.take_logs();
        let lv: Vec<(u8, u64, &str)> = logs
            .iter()
            .map(|l| {
                (
                    l.level,
                    l.stamp.as_nanos() as u64 / 1_000_000,
                    l.msg.as_str(),
                )
            })
            .collect();
        assert_eq!(
            lv,
            [
                (
                    Log::WARN,
                    4300,
                    "scan stale: no message for 0.300 s (timeout 0.300 s): stopping"
                ),
                (
                    Log::INFO,
                    7000,
                    "scan fresh again (age 0.000 s) after 2.700 s stale: resuming"
                ),
            ]
        );
        let scan: Vec<(u64, u8)> = levels(&mut h)
            .into_iter()
            .filter(|(_, n, _)| n == "simple_navigator: scan")
            .map(|(t, _, l)| (t, l))
            .collect();
        // 1 Hz from the first tick (0.0 s), plus the two transitions.
        let ok = DiagnosticStatus::OK;
        let err = DiagnosticStatus::ERROR;
        assert_eq!(
            scan,
            [
                (0, ok),
                (1000, ok),
                (2000, ok),
                (3000, ok),
                (4000, ok),
                (4300, err),
                (5000, err),
                (6000, err),
                (7000, ok),
                (8000, ok),
                (9000, ok)
            ]
        );
    }

    #[test]
    fn the_error_status_names_sensor_hardware_and_age() {
        let mut h = health();
        drive(&mut h, 0, 1000, |_| true, |t| t <= 500, |_| 0);
        let arrays = h.take_diagnostics();
        let at_stop = arrays
            .iter()
            .find(|a| a.header.stamp.as_nanos() == 800_000_000)
            .expect("a transition array at 0.8 s");
        let s = &at_stop.status[0];
        assert_eq!(
            (s.level, s.name.as_str(), s.hardware_id.as_str()),
            (
                DiagnosticStatus::ERROR,
                "simple_navigator: scan",
                "base_scan"
            )
        );
        assert_eq!(s.message, "stale: last message 0.300 s ago");
        assert_eq!(
            s.values[0],
            KeyValue {
                key: "age_s".into(),
                value: "0.300".into()
            }
        );
        assert_eq!(
            s.values[4],
            KeyValue {
                key: "messages".into(),
                value: "6".into()
            }
        );
        assert_eq!(at_stop.status[1].level, DiagnosticStatus::OK);
        assert_eq!(at_stop.status[1].name, "simple_navigator: odom");
    }

    #[test]
    fn a_sensor_never_heard_is_stale_a_timeout_after_the_first_tick() {
        let mut h = health();
        let t = drive(&mut h, 50, 2000, |_| true, |_| false, |_| 0);
        // First tick 0.05 s: stale from 0.35 s.
        assert_eq!(first_stop(&t), Some(350));
        let logs = h.take_logs();
        assert_eq!(logs.len(), 1);
        assert_eq!(
            logs[0].msg,
            "scan stale: no message since start, 0.300 s (timeout 0.300 s): stopping"
        );
        assert_eq!(h.level(Sensor::Scan), DiagnosticStatus::ERROR);
    }

    #[test]
    fn a_stamp_jump_warns_without_stopping_and_clears_within_one_cycle() {
        // Scans from 3.0 s to 5.0 s stamped 250 ms early; the 5.1 s scan is good.
        let mut h = health();
        let jump = |t: u64| if (3000..=5000).contains(&t) { 250 } else { 0 };
        let t = drive(&mut h, 0, 7000, |_| true, |_| true, jump);
        assert_eq!(first_stop(&t), None, "a stamp offset never stops the robot");
        let scan: Vec<(u64, u8)> = levels(&mut h)
            .into_iter()
            .filter(|(_, n, _)| n == "simple_navigator: scan")
            .filter(|(t, _, _)| *t >= 2000)
            .map(|(t, _, l)| (t, l))
            .collect();
        let (ok, warn) = (DiagnosticStatus::OK, DiagnosticStatus::WARN);
        // WARN at the tick of the first jumped scan; OK at the tick of the first good one.
        assert_eq!(
            scan,
            [
                (2000, ok),
                (3000, warn),
                (4000, warn),
                (5000, warn),
                (5100, ok),
                (6000, ok),
                (7000, ok)
            ]
        );
        let logs: Vec<(u8, String)> = h
            .take_logs()
            .into_iter()
            .map(|l| (l.level, l.msg))
            .collect();
        assert_eq!(
            logs,
            [
                (
                    Log::WARN,
                    "scan header.stamp off its receive time by +0.250 s (receive - stamp; tolerance 0.200 s)".to_string()
                ),
                (Log::INFO, "scan header.stamp within tolerance again (+0.000 s)".to_string()),
            ]
        );
    }

    #[test]
    fn an_offset_at_the_tolerance_is_good_and_a_nanosecond_more_is_not() {
        let mut h = health();
        h.on_message(Sensor::Scan, ms(1000), ms(800));
        h.on_message(Sensor::Odom, ms(1000), ms(1000));
        h.tick(ms(1000));
        assert_eq!(h.level(Sensor::Scan), DiagnosticStatus::OK);
        h.on_message(Sensor::Scan, ms(1050), ms(850) - Duration::from_nanos(1));
        h.tick(ms(1050));
        assert_eq!(h.level(Sensor::Scan), DiagnosticStatus::WARN);
        // A stamp ahead of the receive time counts the same.
        h.on_message(Sensor::Scan, ms(1100), ms(1301));
        h.tick(ms(1100));
        assert_eq!(h.level(Sensor::Scan), DiagnosticStatus::WARN);
        assert_eq!(h.take_logs().len(), 1, "one WARN for one transition");
    }
}
