//! The graph runs' recorder (REQ-REC-GRAPH, issue 26): what `breakbench
//! campaign --graph/--graph-cmd` gives the graph executor
//! ([`breakbench::campaign::graph::GraphRecorder`]) to record each run's
//! topics as `ros2 bag record` would.
//!
//! Per run, a thread of the campaign process joins the run's
//! `ROS_DOMAIN_ID` as the node `/breakbench_recorder` (no spinner: it only
//! subscribes) before the run's graph starts, and until the run ends:
//!
//! * every 50 ms it looks up, by discovery, the publishers of each topic it
//!   was asked for that it does not record yet. Once a topic has one, it
//!   takes the type of the first (`pkg/msg/Type`) and looks it up in the
//!   message registry (the ROS 2 built-in types and kraken_interfaces',
//!   `kraken_faults::dynamic::builtin_registry`). A type the registry does
//!   not know is not recorded: one WARN naming the topic and the type, and
//!   the count in the file's `breakbench_recording` metadata
//!   (`unknown_type:<topic>`). A known one is subscribed as rosbag2 does,
//!   adapting to what the publishers offer: reliable if every publisher is
//!   reliable (else best effort), transient local if every one is (else
//!   volatile, so `/tf_static` and `/rosout` arrive although published
//!   before), a KEEP_LAST depth of 1000. The channel carries the first
//!   publisher's offered QoS (`offered_qos_profiles`; DDS discovery carries
//!   no history: keep_last 10, ROS 2's default, is written);
//! * every received sample is written as it arrived on the wire (the raw
//!   CDR bytes, never re-encoded: [`breakbench_ros::RawCdr`]) through
//!   [`breakbench_records::Recording`] (the MCAP `ros2` profile, zstd
//!   chunks). Its log and publish time are the graph's sim time: the last
//!   `/clock` received before it (0 before the first), as rosbag2 stamps
//!   receive time under `use_sim_time`. The recorder polls every 1 ms of
//!   wall time, so a message is stamped at most one lock-step tick late.
//!
//! At the end the metadata record `breakbench_recording` says the policy
//! (`full`), the messages per topic (`messages:<topic>`), the topics asked
//! for that never had a publisher (`not_published`, space-separated) and
//! the ones of an unknown type.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use breakbench::campaign::graph::{GraphRecorder, RunningRecording};
use breakbench_records::{OfferedQos, Recording};
use breakbench_ros::qos::{Durability, Reliability};
use breakbench_ros::{DiscoveredPublisher, Qos, RawCdr, RosArgs, RosEnv, RosNode, Subscription};
use kraken_interfaces::ros::Clock;

/// The recorder of the `breakbench` command (see the module docs).
#[derive(Debug, Default)]
pub struct DdsRecorder;

/// The node name on the graph.
const NODE: &str = "breakbench_recorder";
/// How often the topics not yet recorded are looked up.
const DISCOVERY_EVERY: Duration = Duration::from_millis(50);
/// The poll period when nothing arrived.
const POLL: Duration = Duration::from_millis(1);
/// The subscriptions' KEEP_LAST depth (rcl's `/rosout` depth: a
/// transient-local `/rosout` arrives whole).
const READER_DEPTH: usize = 1000;

/// A recording in progress: its thread and its stop flag.
struct Running {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<Result<Recorded, String>>>,
}

/// What the thread recorded.
struct Recorded {
    rec: Recording,
    stats: BTreeMap<String, String>,
}

impl GraphRecorder for DdsRecorder {
    fn start(
        &self,
        domain_id: u16,
        topics: &[String],
    ) -> Result<Box<dyn RunningRecording>, String> {
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::channel();
        let (flag, topics) = (stop.clone(), topics.to_vec());
        let thread = std::thread::Builder::new()
            .name("graph-recorder".into())
            .spawn(move || record(domain_id, &topics, &flag, &ready_tx))
            .map_err(|e| format!("recorder thread: {e}"))?;
        // Subscribed to /clock before the graph starts.
        match ready_rx.recv() {
            Ok(Ok(())) => Ok(Box::new(Running {
                stop,
                thread: Some(thread),
            })),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => Err(match thread.join() {
                Ok(Err(e)) => e,
                _ => "the recorder thread ended before it joined the domain".into(),
            }),
        }
    }
}

impl RunningRecording for Running {
    fn finish(
        mut self: Box<Self>,
        metadata: BTreeMap<String, BTreeMap<String, String>>,
    ) -> Result<Vec<u8>, String> {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.take().expect("finished once");
        let mut r = thread
            .join()
            .map_err(|_| "the recorder thread panicked".to_string())??;
        for (name, values) in metadata {
            r.rec.metadata(&name, values).map_err(|e| e.to_string())?;
        }
        r.rec
            .metadata("breakbench_recording", r.stats)
            .map_err(|e| e.to_string())?;
        r.rec.finish().map_err(|e| e.to_string())
    }
}

impl Drop for Running {
    /// An unfinished recording (the run's error): stops the thread.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// One recorded topic.
struct Topic {
    name: String,
    channel: u16,
    sub: Subscription<RawCdr>,
    messages: u64,
}

/// The thread: joins `domain_id`, says so on `ready`, records `topics`
/// until `stop`.
fn record(
    domain_id: u16,
    topics: &[String],
    stop: &AtomicBool,
    ready: &mpsc::Sender<Result<(), String>>,
) -> Result<Recorded, String> {
    let joined = (|| {
        let mut env = RosEnv::from_env().map_err(|e| e.to_string())?;
        env.domain_id = domain_id;
        let (args, _) =
            RosArgs::parse(std::iter::empty::<String>(), NODE).map_err(|e| e.to_string())?;
        let mut node = RosNode::new(env, args).map_err(|e| e.to_string())?;
        let clock = node
            .subscription::<Clock>("/clock", breakbench_ros::qos::clock())
            .map_err(|e| e.to_string())?;
        let rec = Recording::new().map_err(|e| e.to_string())?;
        Ok::<_, String>((node, clock, rec))
    })();
    let (mut node, clock, mut rec) = match joined {
        Ok(v) => {
            let _ = ready.send(Ok(()));
            v
        }
        Err(e) => {
            let _ = ready.send(Err(e.clone()));
            return Err(e);
        }
    };
    let registry = kraken_faults::dynamic::builtin_registry();
    let mut pending: Vec<String> = topics.to_vec();
    let mut recorded: Vec<Topic> = Vec::new();
    let mut unknown: BTreeMap<String, String> = BTreeMap::new();
    let mut last_lookup: Option<Instant> = None;
    let mut now_ns = 0u64;
    let write_err = |e: breakbench_records::RecordsError| e.to_string();
    loop {
        let stopping = stop.load(Ordering::Relaxed);
        if !pending.is_empty() && last_lookup.is_none_or(|t| t.elapsed() >= DISCOVERY_EVERY) {
            last_lookup = Some(Instant::now());
            let mut still = Vec::new();
            for t in pending.drain(..) {
                let pubs = node.discovered_publishers(&t);
                let Some(first) = pubs.first() else {
                    still.push(t);
                    continue;
                };
                let ty = format!("{}/msg/{}", first.ros_type.0, first.ros_type.1);
                let Ok(schema) = registry.ros2msg_schema(&ty) else {
                    tracing::warn!(
                        "graph recorder: topic {t} has type {ty}, which the message registry does not know: not recorded"
                    );
                    unknown.insert(t, ty);
                    continue;
                };
                let sub = node
                    .raw_subscription(&t, &ty, reader_qos(&pubs))
                    .map_err(|e| format!("subscription to {t} ({ty}): {e}"))?;
                let channel = rec
                    .channel(&t, &ty, &schema, offered(first))
                    .map_err(write_err)?;
                recorded.push(Topic {
                    name: t,
                    channel,
                    sub,
                    messages: 0,
                });
            }
            pending = still;
        }
        while let Ok(Some(c)) = clock.take() {
            now_ns = u64::try_from(c.clock.sec).unwrap_or(0) * 1_000_000_000
                + u64::from(c.clock.nanosec);
        }
        let mut any = false;
        for t in &mut recorded {
            while let Ok(Some(m)) = t.sub.take() {
                rec.write(t.channel, now_ns, &m.0).map_err(write_err)?;
                t.messages += 1;
                any = true;
            }
        }
        // The last round after the stop has taken what had arrived.
        if stopping {
            break;
        }
        if !any {
            std::thread::sleep(POLL);
        }
    }
    let mut stats = BTreeMap::from([
        ("mode".to_string(), "full".to_string()),
        ("recorder".to_string(), NODE.to_string()),
    ]);
    for t in &recorded {
        stats.insert(format!("messages:{}", t.name), t.messages.to_string());
    }
    stats.insert(
        "messages_written".into(),
        recorded.iter().map(|t| t.messages).sum::<u64>().to_string(),
    );
    stats.insert("not_published".into(), pending.join(" "));
    stats.insert("unknown_types".into(), unknown.len().to_string());
    for (t, ty) in unknown {
        stats.insert(format!("unknown_type:{t}"), ty);
    }
    // The subscriptions before the node.
    drop(recorded);
    drop(clock);
    drop(node);
    Ok(Recorded { rec, stats })
}

/// The reader QoS that matches every publisher of `pubs` and gets what they
/// offer (rosbag2's adaptation): reliable if all are, transient local if
/// all are; depth [`READER_DEPTH`]. A publisher whose QoS the backend does
/// not read counts as best effort, volatile.
fn reader_qos(pubs: &[DiscoveredPublisher]) -> Qos {
    let all = |f: fn(&Qos) -> bool| pubs.iter().all(|p| p.qos.as_ref().is_some_and(f));
    Qos {
        reliability: if all(|q| q.reliability == Reliability::Reliable) {
            Reliability::Reliable
        } else {
            Reliability::BestEffort
        },
        durability: if all(|q| q.durability == Durability::TransientLocal) {
            Durability::TransientLocal
        } else {
            Durability::Volatile
        },
        depth: READER_DEPTH,
    }
}

/// The channel's offered QoS: publisher `p`'s (ROS 2's default publisher
/// QoS when the backend does not read it).
fn offered(p: &DiscoveredPublisher) -> OfferedQos {
    match p.qos {
        Some(q) => OfferedQos {
            reliable: q.reliability == Reliability::Reliable,
            transient_local: q.durability == Durability::TransientLocal,
            depth: q.depth,
        },
        None => OfferedQos::DEFAULT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn publisher(reliable: bool, latched: bool) -> DiscoveredPublisher {
        DiscoveredPublisher {
            ros_type: ("tf2_msgs".into(), "TFMessage".into()),
            qos: Some(Qos {
                reliability: if reliable {
                    Reliability::Reliable
                } else {
                    Reliability::BestEffort
                },
                durability: if latched {
                    Durability::TransientLocal
                } else {
                    Durability::Volatile
                },
                depth: 10,
            }),
        }
    }

    /// Reliable / transient local only when every publisher offers it.
    #[test]
    fn the_reader_adapts_to_every_publisher() {
        let q = reader_qos(&[publisher(true, true)]);
        assert_eq!(
            (q.reliability, q.durability, q.depth),
            (Reliability::Reliable, Durability::TransientLocal, 1000)
        );
        let q = reader_qos(&[publisher(true, true), publisher(false, true)]);
        assert_eq!(
            (q.reliability, q.durability),
            (Reliability::BestEffort, Durability::TransientLocal)
        );
        let q = reader_qos(&[publisher(true, false), publisher(true, true)]);
        assert_eq!(
            (q.reliability, q.durability),
            (Reliability::Reliable, Durability::Volatile)
        );
        let unknown = DiscoveredPublisher {
            qos: None,
            ..publisher(true, true)
        };
        let q = reader_qos(std::slice::from_ref(&unknown));
        assert_eq!(
            (q.reliability, q.durability),
            (Reliability::BestEffort, Durability::Volatile)
        );
        assert_eq!(offered(&unknown), OfferedQos::DEFAULT);
        assert_eq!(
            offered(&publisher(false, true)),
            OfferedQos {
                reliable: false,
                transient_local: true,
                depth: 10
            }
        );
    }
}
