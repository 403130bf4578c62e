//! A graph run's recording (REQ-REC-GRAPH, issue 26): the executor records
//! each run's topics as `ros2 bag record` would, into the run's MCAP file
//! (`recordings/<run_id>.mcap`, the same `ros2` profile as an in-process
//! run's), its sha256 in the manifest.
//!
//! The campaign engine speaks no DDS: the recorder is a [`GraphRecorder`]
//! given to the executor ([`super::GraphOptions::recording`]); the
//! `breakbench` command's joins the run's `ROS_DOMAIN_ID` from a thread of
//! the campaign process before the run's graph starts and stops after the
//! graph has stopped, so it works alike for our launch configs (`--graph`)
//! and for an external stack (`--graph-cmd`, kept running or not). The
//! topics: [`GRAPH_TOPICS`] (ours) and those the user names
//! (`--record-topic`, e.g. Nav2's `/plan`).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::manifest::Manifest;

/// The topics of our graph a graph run records (each one that has a
/// publisher): ground truth, each sensor as the plant emitted it and as the
/// injector delivered it, the commanded and the delivered `cmd_vel`, the
/// injector's status, `/diagnostics`, `/rosout`, `/tf`, `/tf_static`. Not
/// `/clock` (the log time is the graph's `/clock`), nor the EKF's
/// `/odometry/filtered` (name it with `--record-topic`).
pub const GRAPH_TOPICS: [&str; 18] = [
    "/oracle/odom",
    "/scan_raw",
    "/scan",
    "/odom_raw",
    "/odom",
    "/gnss/fix_raw",
    "/gnss/fix",
    "/imu/data_raw",
    "/imu/data",
    "/wheel/odom_raw",
    "/wheel/odom",
    "/cmd_vel_nav",
    "/cmd_vel",
    "/fault_injector/status",
    "/diagnostics",
    "/rosout",
    "/tf",
    "/tf_static",
];

/// Records the topics of one graph run (implemented by the `breakbench`
/// command on the ROS layer).
pub trait GraphRecorder: Send + Sync {
    /// Joins `domain_id` and records `topics` (absolute ROS names) until
    /// [`RunningRecording::finish`]: each topic from when a publisher of it
    /// is discovered, subscribed with the QoS its publishers offer, its
    /// type looked up in the message registry.
    ///
    /// # Errors
    /// The recorder could not join the domain (its reason).
    fn start(&self, domain_id: u16, topics: &[String])
        -> Result<Box<dyn RunningRecording>, String>;
}

/// A recording in progress (dropped unfinished: stopped, nothing kept).
pub trait RunningRecording: Send {
    /// Stops recording and returns the MCAP file's bytes, with the metadata
    /// records `metadata` (name → key/value pairs) added.
    ///
    /// # Errors
    /// The writer's refusal, or the recorder's failure while it ran.
    fn finish(
        self: Box<Self>,
        metadata: BTreeMap<String, BTreeMap<String, String>>,
    ) -> Result<Vec<u8>, String>;
}

/// What a graph campaign records: the recorder and the user's topics.
#[derive(Clone)]
pub struct GraphRecording {
    /// The recorder.
    pub recorder: Arc<dyn GraphRecorder>,
    /// Topics the user names for their own stack (`--record-topic`),
    /// recorded besides [`GRAPH_TOPICS`].
    pub user_topics: Vec<String>,
}

impl std::fmt::Debug for GraphRecording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphRecording")
            .field("user_topics", &self.user_topics)
            .finish_non_exhaustive()
    }
}

impl GraphRecording {
    /// [`GRAPH_TOPICS`] then the user's topics not among them, in order.
    pub fn topics(&self) -> Vec<String> {
        let mut t: Vec<String> = GRAPH_TOPICS.iter().map(|s| s.to_string()).collect();
        for u in &self.user_topics {
            if !t.contains(u) {
                t.push(u.clone());
            }
        }
        t
    }
}

/// The `breakbench_run` metadata record of a graph run's recording: run id,
/// seed, scenario hash, git commit and dirty flag, verdict class (as an
/// in-process run's), and `executor: graph`.
pub(super) fn run_metadata(m: &Manifest) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut run = crate::run::recording_metadata(m);
    run.insert("executor".into(), "graph".into());
    BTreeMap::from([("breakbench_run".to_string(), run)])
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Never;
    impl GraphRecorder for Never {
        fn start(&self, _: u16, _: &[String]) -> Result<Box<dyn RunningRecording>, String> {
            Err("never".into())
        }
    }

    /// Ours first, then the user's not already among them, in their order.
    #[test]
    fn the_users_topics_follow_ours_once() {
        let r = GraphRecording {
            recorder: Arc::new(Never),
            user_topics: vec![
                "/plan".into(),
                "/scan".into(),
                "/local_costmap/costmap".into(),
            ],
        };
        let t = r.topics();
        assert_eq!(t.len(), GRAPH_TOPICS.len() + 2);
        assert_eq!(t[0], "/oracle/odom");
        assert_eq!(
            &t[GRAPH_TOPICS.len()..],
            ["/plan".to_string(), "/local_costmap/costmap".to_string()]
        );
        assert_eq!(t.iter().filter(|x| *x == "/scan").count(), 1);
    }
}
