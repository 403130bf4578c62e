//! `breakbench replay IN.mcap --publish`: plays a recording into a live ROS 2
//! graph on its recorded clock, with `/clock` (what `ros2 bag play --clock`
//! does), so a fault injector, a stack or a viewer can be fed from it
//! (REQ-REC-REPLAY).
//!
//! Every selected channel gets a publisher of its recorded type with the QoS
//! its messages were offered with (the file's `offered_qos_profiles`), and
//! each message is published as its recorded CDR bytes, in log-time order.
//! Before each new log time `t` the player publishes `/clock` = `t`
//! (rosgraph_msgs/Clock), so nodes with `use_sim_time` run on the recording's
//! clock; wall time is paced at `t / rate` from the start. A recorded
//! `/clock` channel is never played (the player's own is the clock).
//! SIGINT/SIGTERM stop it between messages, exit 0.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use breakbench_records::{read_recording, recording_channels, OfferedQos, RecordedChannel};
use breakbench_ros::qos::{Durability, Reliability};
use breakbench_ros::{to_stamp, Publisher, Qos, RawCdr, RosArgs, RosEnv, RosNode, Shutdown};
use kraken_interfaces::ros::Clock;

/// How to play.
pub struct PlayOptions<'a> {
    /// Wall-time speed-up (1.0: as recorded), > 0.
    pub rate: f64,
    /// Topics to play (empty: every channel but `/clock`).
    pub topics: &'a [String],
    /// Wall seconds between creating the publishers and the first message
    /// (discovery), as `ros2 bag play --delay`.
    pub delay_s: f64,
}

/// The channels to play: `topics` (each must be in the file), or all but
/// `/clock`.
///
/// # Errors
/// A named topic the recording does not have (the error lists those it has).
pub fn selected(channels: Vec<RecordedChannel>, topics: &[String]) -> Result<Vec<RecordedChannel>> {
    for t in topics {
        if !channels.iter().any(|c| &c.topic == t) {
            let have: Vec<&str> = channels.iter().map(|c| c.topic.as_str()).collect();
            bail!(
                "--topic {t}: the recording has no such channel (it has: {})",
                have.join(", ")
            );
        }
    }
    Ok(channels
        .into_iter()
        .filter(|c| c.topic != "/clock")
        .filter(|c| topics.is_empty() || topics.contains(&c.topic))
        .collect())
}

fn qos(q: OfferedQos) -> Qos {
    Qos {
        reliability: if q.reliable {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        },
        durability: if q.transient_local {
            Durability::TransientLocal
        } else {
            Durability::Volatile
        },
        depth: q.depth.max(1),
    }
}

/// Plays `input` (see the module docs) on the domain of `ROS_DOMAIN_ID`.
///
/// # Errors
/// An unreadable recording, a topic it does not have, a rate that is not
/// positive, the ROS node or a publisher not created.
pub fn play(input: &Path, o: &PlayOptions) -> Result<ExitCode> {
    if !(o.rate.is_finite() && o.rate > 0.0) {
        bail!("--rate {}: must be a positive number", o.rate);
    }
    let bytes = std::fs::read(input).with_context(|| format!("reading {}", input.display()))?;
    let name = input.display().to_string();
    let channels = selected(recording_channels(&bytes).context(name.clone())?, o.topics)?;
    let contents = read_recording(&bytes).context(name.clone())?;
    let shutdown = Shutdown::on_signals()?;
    let (args, _) = RosArgs::parse(std::iter::empty::<String>(), "breakbench_player")?;
    let mut node = RosNode::new(RosEnv::from_env()?, args)?;
    let clock: Publisher<Clock> = node.publisher("/clock", breakbench_ros::qos::clock())?;
    let mut pubs: Vec<(String, Publisher<RawCdr>)> = Vec::new();
    for c in &channels {
        let p = node
            .raw_publisher(&c.topic, &c.type_name, qos(c.qos))
            .with_context(|| format!("{name}: publisher of {} ({})", c.topic, c.type_name))?;
        pubs.push((c.topic.clone(), p));
    }
    let _spinner = node.spawn_spinner()?;
    eprintln!(
        "replay --publish: {name}: {} channel(s), {} message(s), rate {}",
        pubs.len(),
        contents.messages.len(),
        o.rate
    );
    std::thread::sleep(Duration::from_secs_f64(o.delay_s.max(0.0)));
    let (mut sent, mut last_ns, t0) = (0u64, None, Instant::now());
    for m in &contents.messages {
        let Some((_, p)) = pubs.iter().find(|(t, _)| *t == m.topic) else {
            continue;
        };
        if shutdown.is_requested() {
            break;
        }
        if last_ns != Some(m.log_time_ns) {
            let due = t0 + Duration::from_nanos(m.log_time_ns).div_f64(o.rate);
            if let Some(wait) = due.checked_duration_since(Instant::now()) {
                std::thread::sleep(wait);
            }
            let t = Duration::from_nanos(m.log_time_ns);
            clock.publish(Clock { clock: to_stamp(t) })?;
            last_ns = Some(m.log_time_ns);
        }
        p.publish(RawCdr(m.cdr.clone()))
            .with_context(|| format!("publishing {}", m.topic))?;
        sent += 1;
    }
    eprintln!(
        "replay --publish: {sent} message(s) published up to sim time {:.3} s{}",
        last_ns.map_or(0.0, |n| n as f64 * 1e-9),
        if shutdown.is_requested() {
            " (interrupted)"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(topic: &str) -> RecordedChannel {
        RecordedChannel {
            topic: topic.into(),
            type_name: "std_msgs/msg/String".into(),
            qos: OfferedQos::DEFAULT,
        }
    }

    /// Every channel but `/clock` by default; a named topic the file lacks
    /// is refused, naming what it has.
    #[test]
    fn the_channels_played_are_the_named_ones_never_clock() {
        let all = || vec![ch("/clock"), ch("/scan_raw"), ch("/odom_raw")];
        let s = selected(all(), &[]).unwrap();
        assert_eq!(
            s.iter().map(|c| c.topic.as_str()).collect::<Vec<_>>(),
            ["/scan_raw", "/odom_raw"]
        );
        let s = selected(all(), &["/odom_raw".into()]).unwrap();
        assert_eq!(s.len(), 1);
        let e = selected(all(), &["/imu".into()]).unwrap_err().to_string();
        assert!(e.contains("--topic /imu") && e.contains("/scan_raw"), "{e}");
    }

    /// The recorded QoS is the publisher's.
    #[test]
    fn the_recorded_qos_is_offered() {
        let q = qos(OfferedQos::SENSOR_DATA);
        assert_eq!(q.reliability, Reliability::BestEffort);
        assert_eq!(q.durability, Durability::Volatile);
        assert_eq!(q.depth, 5);
        let q = qos(OfferedQos {
            transient_local: true,
            depth: 0,
            ..OfferedQos::DEFAULT
        });
        assert_eq!((q.durability, q.depth), (Durability::TransientLocal, 1));
    }
}
