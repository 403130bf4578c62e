//! Sensor starvation the fault did not cause (REQ-TEST-STARVATION).
//!
//! A fault acts between the injector's input and the robot, so a gap in
//! the injector's *input* of a channel (the plant, the bridge or the
//! transport stopped delivering) is never the fault's doing: a run whose
//! robot was starved that way did not test the fault, and is `invalid`
//! (issue 8: "sensor starvation not caused by the fault"; seed 004 on
//! harness-made timing faults). [`InputMonitor`] watches the injector's
//! per-channel input counter (`messages_in`, in-process from the
//! `Injector`, on the graph from `/fault_injector/status`) on the run's sim
//! clock and reports the longest gap above the declared limit.

use serde::{Deserialize, Serialize};

/// The longest input gap of a channel that exceeded the limit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputGap {
    /// The starved channel.
    pub channel: String,
    /// When the gap began (the last input before it), sim s.
    pub from_s: f64,
    /// Its length, s (to the next input, or to the end of the run).
    pub gap_s: f64,
    /// The declared limit it exceeded, s.
    pub limit_s: f64,
}

impl std::fmt::Display for InputGap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sensor starvation not caused by the fault: the injector received nothing on channel '{}' for {:.3} s from t = {:.3} s (limit max_input_gap_s {} s)",
            self.channel, self.gap_s, self.from_s, self.limit_s
        )
    }
}

#[derive(Debug, Clone)]
struct Watch {
    channel: String,
    last_count: u64,
    /// Sim time of the last increase of the counter (`None`: none yet).
    last_input_s: Option<f64>,
    worst: Option<InputGap>,
}

/// Per-channel input-gap watch. Feed it the counter of each channel at each
/// step ([`InputMonitor::observe`]), in non-decreasing sim time; a gap is
/// measured from a channel's first input on (a channel that never delivers
/// is not starvation by this rule: a fault on it is `invalid` as "never
/// applied", and a robot that needs it fails its own expectations).
#[derive(Debug, Clone)]
pub struct InputMonitor {
    limit_s: f64,
    watches: Vec<Watch>,
}

impl InputMonitor {
    /// Watches `channels` with the gap limit `limit_s` (s, > 0).
    pub fn new<S: AsRef<str>>(channels: &[S], limit_s: f64) -> Self {
        Self {
            limit_s,
            watches: channels
                .iter()
                .map(|c| Watch {
                    channel: c.as_ref().to_string(),
                    last_count: 0,
                    last_input_s: None,
                    worst: None,
                })
                .collect(),
        }
    }

    /// The watched channels, in the order given.
    pub fn channels(&self) -> impl Iterator<Item = &str> {
        self.watches.iter().map(|w| w.channel.as_str())
    }

    /// The injector's input counter of `channel` at sim time `t_s`. A
    /// counter that rose since the last call is an input at `t_s`. Unknown
    /// channels are ignored.
    pub fn observe(&mut self, t_s: f64, channel: &str, messages_in: u64) {
        let limit_s = self.limit_s;
        if let Some(w) = self.watches.iter_mut().find(|w| w.channel == channel) {
            input(w, t_s, messages_in, limit_s);
        }
    }

    /// [`InputMonitor::observe`] for every watched channel at `t_s`, with
    /// its counter from `counter` (`None`: not known yet, skipped).
    pub fn observe_with(&mut self, t_s: f64, counter: impl Fn(&str) -> Option<u64>) {
        let limit_s = self.limit_s;
        for w in &mut self.watches {
            if let Some(n) = counter(&w.channel) {
                input(w, t_s, n, limit_s);
            }
        }
    }

    /// Ends the watch at `end_s` (the trailing gap of each channel counts)
    /// and returns the longest gap over the limit of any channel (first
    /// channel wins a tie), or `None`.
    pub fn finish(mut self, end_s: f64) -> Option<InputGap> {
        let limit_s = self.limit_s;
        for w in &mut self.watches {
            if let Some(from_s) = w.last_input_s {
                note(w, from_s, end_s - from_s, limit_s);
            }
        }
        self.watches
            .into_iter()
            .filter_map(|w| w.worst)
            .fold(None, |best: Option<InputGap>, g| match best {
                Some(b) if b.gap_s >= g.gap_s => Some(b),
                _ => Some(g),
            })
    }
}

fn input(w: &mut Watch, t_s: f64, messages_in: u64, limit_s: f64) {
    if messages_in > w.last_count {
        w.last_count = messages_in;
        if let Some(from_s) = w.last_input_s {
            note(w, from_s, t_s - from_s, limit_s);
        }
        w.last_input_s = Some(t_s);
    }
}

fn note(w: &mut Watch, from_s: f64, gap_s: f64, limit_s: f64) {
    // A gap equal to the limit (within the timeline's tolerance) is allowed.
    if gap_s > limit_s + super::TIME_EPS_S && w.worst.as_ref().is_none_or(|g| gap_s > g.gap_s) {
        w.worst = Some(InputGap {
            channel: w.channel.clone(),
            from_s,
            gap_s,
            limit_s,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 10 Hz stream observed every 0.01 s: `count(t)` inputs by `t`.
    fn feed(m: &mut InputMonitor, ch: &str, t0: f64, t1: f64, count: impl Fn(f64) -> u64) {
        let mut k = (t0 * 100.0).round() as i64;
        while (k as f64) / 100.0 <= t1 + 1e-12 {
            let t = k as f64 / 100.0;
            m.observe(t, ch, count(t));
            k += 1;
        }
    }

    #[test]
    fn a_steady_stream_is_not_starved_and_a_gap_over_the_limit_is() {
        let steady = |t: f64| (t * 10.0 + 1e-9).floor() as u64 + 1;
        let mut m = InputMonitor::new(&["scan", "odom"], 0.5);
        feed(&mut m, "scan", 0.0, 10.0, steady);
        assert_eq!(m.finish(10.0), None);

        // Nothing from 3.0 s to 3.8 s: the next input at 3.8 s ends a 0.8 s
        // gap that began at 3.0 s.
        let gappy = |t: f64| {
            if (3.0..3.8).contains(&t) {
                31
            } else {
                steady(t) - u64::from(t >= 3.8) * 7
            }
        };
        let mut m = InputMonitor::new(&["scan", "odom"], 0.5);
        feed(&mut m, "scan", 0.0, 10.0, gappy);
        let g = m.finish(10.0).expect("starved");
        assert_eq!(g.channel, "scan");
        assert!((g.from_s - 3.0).abs() < 1e-9, "{g:?}");
        assert!((g.gap_s - 0.8).abs() < 1e-9, "{g:?}");
        assert!(g
            .to_string()
            .contains("channel 'scan' for 0.800 s from t = 3.000 s"));
    }

    #[test]
    fn the_limit_itself_is_allowed_and_the_trailing_gap_counts() {
        // Inputs at 0, 0.5, 1.0: gaps exactly at the limit.
        let mut m = InputMonitor::new(&["gnss"], 0.5);
        for (i, t) in [0.0, 0.5, 1.0].into_iter().enumerate() {
            m.observe(t, "gnss", i as u64 + 1);
        }
        assert_eq!(m.clone().finish(1.5), None, "0.5 s to the end is the limit");
        let g = m.finish(1.52).expect("0.52 s to the end is over it");
        assert!((g.gap_s - 0.52).abs() < 1e-9 && g.from_s == 1.0, "{g:?}");
    }

    #[test]
    fn a_channel_before_its_first_input_and_an_unknown_channel_are_not_starved() {
        let mut m = InputMonitor::new(&["imu"], 0.2);
        m.observe(0.0, "imu", 0);
        m.observe(5.0, "imu", 0);
        m.observe(5.0, "lidar", 1);
        m.observe(5.1, "imu", 1);
        assert_eq!(m.clone().finish(5.2), None);
        assert!(m.finish(5.4).is_some());
    }

    #[test]
    fn the_longest_gap_of_all_channels_is_reported() {
        let mut m = InputMonitor::new(&["a", "b"], 0.1);
        m.observe(0.0, "a", 1);
        m.observe(0.0, "b", 1);
        m.observe(0.3, "a", 2);
        m.observe(0.5, "b", 2);
        m.observe(0.6, "a", 3);
        m.observe(0.6, "b", 3);
        let g = m.finish(0.6).unwrap();
        assert_eq!((g.channel.as_str(), g.from_s), ("b", 0.0));
        assert!((g.gap_s - 0.5).abs() < 1e-12);
    }
}
