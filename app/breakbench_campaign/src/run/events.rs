//! A run's events for its recording (REQ-REC-EVENTS) and the windows the
//! `events` recording policy keeps around them (REQ-REC-POLICY).
//!
//! The events are read off the finished manifest, so their times are the
//! manifest's by construction: each fault of the timeline (`trigger`,
//! `requested`, `applied`, `cleared`), each expectation's decision
//! (`expectations[].decided_at_s`), each invariant's decision
//! (`verdict.<invariant>.decided_at_s`) and the verdict class at the end of
//! the run (`sim_time_s`). Sim seconds become nanoseconds by rounding
//! (`round(t * 1e9)`): every sim time of a run is a whole number of
//! nanoseconds, so nothing is lost.

use kraken_interfaces::ros::Time;
use kraken_interfaces::RunEvent;

use crate::manifest::Manifest;

/// Sim time `t_s` (s) as nanoseconds, rounded; negative or non-finite
/// times are 0, times past `u64::MAX` ns saturate.
pub fn ns_of(t_s: f64) -> u64 {
    let ns = (t_s * 1e9).round();
    if ns.is_finite() && ns > 0.0 {
        if ns >= u64::MAX as f64 {
            u64::MAX
        } else {
            ns as u64
        }
    } else {
        0
    }
}

/// `ns` as a `builtin_interfaces/Time` (seconds saturate at `i32::MAX`).
fn time_of(ns: u64) -> Time {
    Time {
        sec: i32::try_from(ns / 1_000_000_000).unwrap_or(i32::MAX),
        nanosec: (ns % 1_000_000_000) as u32,
    }
}

/// One event at `ns` (sim time, ns).
fn event(ns: u64, kind: u8, channel: &str, name: &str, outcome: &str, detail: String) -> RunEvent {
    RunEvent {
        stamp: time_of(ns),
        kind,
        channel: channel.to_string(),
        name: name.to_string(),
        outcome: outcome.to_string(),
        detail,
    }
}

/// The events of the run `m`, with their log times (sim time, ns), sorted
/// by time, then kind, then name (deterministic).
pub fn run_events(m: &Manifest) -> Vec<(u64, RunEvent)> {
    let mut out = Vec::new();
    let test = m.judgement.test.as_ref().map(|t| t.test.as_str());
    if let Some(tl) = &m.judgement.timeline {
        for f in &tl.faults {
            // Its record: a grid axis of this name, or `<test>.<fault>`.
            let rec = m.faults.iter().find(|r| {
                r.axis == f.fault || test.is_some_and(|t| r.axis == format!("{t}.{}", f.fault))
            });
            let channel = rec.map_or("", |r| r.channel.as_str());
            let detail = rec.map_or_else(String::new, |r| {
                format!("{} {} = {}", r.mode, r.parameter, r.requested)
            });
            let stamps = [
                (RunEvent::TRIGGER, f.t_trigger),
                (RunEvent::REQUESTED, f.t_requested),
                (RunEvent::APPLIED, f.t_applied),
                (RunEvent::CLEARED, f.t_cleared),
            ];
            for (kind, st) in stamps {
                if let Some(st) = st {
                    let ns = ns_of(st.sim_s);
                    out.push((ns, event(ns, kind, channel, &f.fault, "", detail.clone())));
                }
            }
        }
    }
    for e in &m.judgement.expectations {
        let ns = ns_of(e.decided_at_s);
        let outcome = if e.satisfied { "satisfied" } else { "violated" };
        out.push((
            ns,
            event(
                ns,
                RunEvent::EXPECTATION,
                "",
                &e.name,
                outcome,
                e.reason.clone(),
            ),
        ));
    }
    let v = &m.verdict;
    for (name, p) in [
        (
            "operating_region_containment",
            &v.operating_region_containment,
        ),
        ("obstacle_clearance", &v.obstacle_clearance),
        (
            "mission_completion_true_pose",
            &v.mission_completion_true_pose,
        ),
    ] {
        let ns = ns_of(p.decided_at_s);
        let outcome = if p.holds { "holds" } else { "violated" };
        out.push((
            ns,
            event(
                ns,
                RunEvent::VERDICT,
                "",
                name,
                outcome,
                format!("value {}", p.value),
            ),
        ));
    }
    let class = &m.judgement.verdict_class;
    let class_name = serde_json::to_value(class.class)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let end = ns_of(m.sim_time_s);
    out.push((
        end,
        event(
            end,
            RunEvent::VERDICT,
            "",
            "verdict_class",
            &class_name,
            class.reason.clone(),
        ),
    ));
    out.sort_by(|a, b| (a.0, a.1.kind, &a.1.name).cmp(&(b.0, b.1.kind, &b.1.name)));
    out
}

/// The windows the `events` policy keeps: `[t - pre, t + post]` around
/// each event time `t` (ns), clipped to `[0, end]`, sorted, and every two
/// that overlap or touch merged into one, so a burst of events (two a
/// millisecond apart) is one window covering both (the ros2_medkit #574
/// case). Inclusive bounds, ns.
pub fn windows(times_ns: &[u64], pre_ns: u64, post_ns: u64, end_ns: u64) -> Vec<(u64, u64)> {
    let mut w: Vec<(u64, u64)> = times_ns
        .iter()
        .map(|t| {
            let t = (*t).min(end_ns);
            (
                t.saturating_sub(pre_ns),
                t.saturating_add(post_ns).min(end_ns),
            )
        })
        .collect();
    w.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(w.len());
    for (a, b) in w {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Whether `t` (ns) is inside one of `windows` (sorted, disjoint).
pub fn covered(windows: &[(u64, u64)], t: u64) -> bool {
    let i = windows.partition_point(|w| w.1 < t);
    windows.get(i).is_some_and(|w| w.0 <= t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;

    /// The burst case (ros2_medkit #574: the second fault of a burst got
    /// no bag): two events a millisecond apart, each with its own post
    /// window; a message only the second one's window covers is kept.
    #[test]
    fn two_events_a_millisecond_apart_are_both_covered() {
        let w = windows(&[10 * S, 10 * S + MS], S, S, 60 * S);
        assert_eq!(w, [(9 * S, 11 * S + MS)], "one merged window");
        // 0.5 ms past the first event's post window: the second's covers it.
        assert!(covered(&w, 11 * S + MS / 2));
        assert!(covered(&w, 9 * S));
        assert!(!covered(&w, 9 * S - 1));
        assert!(!covered(&w, 11 * S + MS + 1));
        // Without the second event, that message is outside.
        let one = windows(&[10 * S], S, S, 60 * S);
        assert!(!covered(&one, 11 * S + MS / 2));
    }

    #[test]
    fn overlapping_windows_merge_and_separate_ones_do_not() {
        let w = windows(&[30 * S, 0, 59 * S, 31 * S, 5 * S], S, 2 * S, 60 * S);
        assert_eq!(
            w,
            [
                (0, 2 * S),
                (4 * S, 7 * S),
                (29 * S, 33 * S),
                (58 * S, 60 * S)
            ]
        );
        // Touching windows are one.
        assert_eq!(windows(&[S, 4 * S], S, 2 * S, 60 * S), [(0, 6 * S)]);
        // Zero-length windows keep the instant itself.
        let w = windows(&[7 * S], 0, 0, 60 * S);
        assert!(covered(&w, 7 * S) && !covered(&w, 7 * S + 1) && !covered(&w, 7 * S - 1));
        assert!(windows(&[], S, S, 60 * S).is_empty());
    }

    #[test]
    fn sim_seconds_become_whole_nanoseconds() {
        assert_eq!(ns_of(0.02), 20_000_000);
        assert_eq!(ns_of(59.99), 59_990_000_000);
        assert_eq!(ns_of(-1.0), 0);
        assert_eq!(ns_of(f64::NAN), 0);
        assert_eq!(
            time_of(ns_of(12.34)),
            Time {
                sec: 12,
                nanosec: 340_000_000
            }
        );
    }
}
