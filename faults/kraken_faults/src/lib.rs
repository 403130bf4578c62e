//! kraken_faults: per-channel fault models for sensor streams.
//!
//! A fault is a synchronous [`FaultStage`] between a sensor and its consumer:
//! `apply(msg, now, rng) -> Vec<(delay, msg)>` (the shape of turmoil's packet
//! rules and toxiproxy's toxics). Returning nothing withholds the message,
//! several entries duplicate it, a non-zero delay holds it in the channel's
//! [`DelayQueue`]. The same stages run in-process (campaigns, on the sim
//! clock) and inside the `fault_injector` ROS 2 node.
//!
//! Time is a [`std::time::Duration`] since the clock's epoch (sim time under
//! `use_sim_time`). Randomness comes from one seeded [`FaultRng`] passed down
//! by the host, never from a global generator.

pub mod activation;
pub mod channel;
pub mod clock;
pub mod config;
pub mod dynamic;
pub mod error;
pub mod faults;
pub mod field;
pub mod params;
pub mod probe;
pub mod provenance;
pub mod queue;
pub mod schedule;
pub mod spec_stages;
pub mod step_list;
pub mod topics;
pub mod typed_stack;

// The unit tests of the fault modes (`faults/*.rs`) share the integration
// tests' fixtures, which name this crate `kraken_faults`.
#[cfg(test)]
extern crate self as kraken_faults;
#[cfg(test)]
#[path = "../tests/common/mod.rs"]
pub(crate) mod test_common;

pub use channel::{
    channel_rng, channel_stream, Activation, Channel, ChannelStats, DelayQueue, FaultRecord,
    Injector,
};
pub use config::{
    check_topic_name, ChannelConfig, ChannelsConfig, Durability, DynamicChannelConfig, HoldLimits,
    HoldLimitsOverride, OutputQosConfig, OverflowPolicy, QosConfig, Relay, Reliability,
    TfKeepaliveConfig,
};
pub use dynamic::{clock_of, clock_source, ClockSource, DynChannel};
pub use error::FaultError;
pub use faults::{build_stage, delivered_probe, FaultStage};
pub use kraken_interfaces::sensor::{MsgKind, SensorMsg};
pub use probe::{LatencyProbe, Probe, RatioXProbe};
pub use provenance::Touch;
pub use schedule::{FaultSchedule, ScheduleEvent, ScheduledFault};
pub use step_list::{Step, StepAction, StepList};
pub use typed_stack::TypedStack;

/// The one random generator type the fault code draws from (seeded by the
/// host from the seed tree, [`kraken_interfaces::seed`]).
pub type FaultRng = kraken_interfaces::seed::StreamRng;
