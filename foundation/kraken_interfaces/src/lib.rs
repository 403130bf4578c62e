//! Message types for Breakbench, transport-free.
//!
//! * [`ros`]: the standard ROS 2 messages Breakbench publishes and subscribes
//!   (`builtin_interfaces`, `std_msgs`, `geometry_msgs`, `sensor_msgs`,
//!   `nav_msgs`, `tf2_msgs`, `rosgraph_msgs`, `std_srvs`), written by hand with
//!   serde, field for field and in the order of the upstream `.msg` files of
//!   ROS 2 Jazzy, so that CDR (de)serialisation matches the wire format.
//! * [`kraken`]: the types generated from this package's own `msg/` and `srv/`
//!   files, which are the source of truth (a test parses them and checks these
//!   types field by field).
//! * [`self_report`]: [`SelfReport`], the controller's own account of its run.
//! * [`sensor`]: [`SensorMsg`] and [`MsgKind`], the typed sensor messages a
//!   channel carries (plant, fault library, navigator, estimator).
//! * [`seed`]: the seed tree, every random stream of a run.
//! * [`simif`]: the `simulation_interfaces` types the sim bridge serves
//!   (the ROS 2 simulator standard, issue 29).
//!
//! Units follow REP-103 (SI: metres, seconds, radians) and frames REP-105.

pub mod config;
pub mod kraken;
pub mod ros;
pub mod seed;
pub mod self_report;
pub mod sensor;
pub mod simif;
pub mod text;
pub mod units;

pub use config::ConfigError;
pub use kraken::*;
pub use self_report::SelfReport;
pub use sensor::{MsgKind, SensorMsg, DELIVERY};
