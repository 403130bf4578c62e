//! Fault stages: one synchronous transformation per fault mode, one file per
//! mode (or per small family: `bias.rs` holds bias and bias_ramp, `timing.rs`
//! delay, jitter, duplicate and reorder).
//!
//! Every mode of `foundation/kraken_interfaces/msg/FaultSpec.msg` is a [`FaultStage`]
//! built by [`build_stage`]. A mode's file holds its docstring (which message
//! fields it touches, per channel type; tabulated in
//! `faults/kraken_faults/README.md`), its parameter checks (`from_spec`), its
//! `apply`, its unit tests and a `MODES` list of [`Registration`]s. `build.rs`
//! declares every `*.rs` file of this folder as a module and collects their
//! `MODES` lists into the registry [`build_stage`] looks modes up in; a test
//! holds the registry against `kraken_interfaces::MODES` (each mode exactly
//! once). How to add a mode: `faults/kraken_faults/CREATING_FAULTS.md`. Modes implement
//! the REQ-FAULT-* requirements of `docs/requirements.md` (dropout, degrade,
//! bias_ramp, slip, healthy, and the data and timing fault classes).

use std::time::Duration;

use geographiclib_rs::{DirectGeodesic, Geodesic};
use kraken_interfaces::ros::NavSatFix;
use kraken_interfaces::FaultSpec;

use crate::field::{FieldFaultSpec, StageFault};
use crate::params::sat;
pub use crate::params::Target;
use crate::{FaultError, FaultRng, MsgKind, SensorMsg};

/// A fault between a sensor and its consumer.
///
/// `apply` is called once per input message, in arrival order, with the
/// host's clock `now` (time since the clock's epoch) and the host's seeded
/// generator. It returns the messages to deliver, each with the delay after
/// `now` at which to deliver it: an empty vector withholds the message, two
/// entries duplicate it. Stages keep whatever state they need (a frozen
/// sample, a burst counter), so the same stage instance must see the whole
/// stream of its channel.
pub trait FaultStage: Send {
    /// Applies the fault to one message received at `now`.
    fn apply(
        &mut self,
        msg: SensorMsg,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)>;
    /// Called once by [`crate::Channel::set_fault`] with the time the fault
    /// was set. Time-dependent stages (bias_ramp, step bias) measure from it;
    /// when never called they measure from the first message they see.
    fn on_set(&mut self, _now: Duration) {}
    /// `true` when `apply` returns its input unchanged (bit for bit, at once,
    /// exactly one output) for every message and keeps no state, e.g. a delay
    /// of 0 or a scale factor of 1: the channel then skips the call and the
    /// input's copy it would keep for the statistics and probes. Default
    /// `false`.
    fn is_identity(&self) -> bool {
        false
    }
    /// A message the stage holds back to release with a later one
    /// (reorder), taken out of it. The channel calls it for a message its
    /// fault's window will never admit again (a used-up message window,
    /// REQ-FAULT-MESSAGE-WINDOW), so that the held message goes out right
    /// after that one instead of never. Default `None`.
    fn take_held(&mut self) -> Option<SensorMsg> {
        None
    }
}

fn now_only(msg: SensorMsg) -> Vec<(Duration, SensorMsg)> {
    vec![(Duration::ZERO, msg)]
}

/// Direction of the GNSS bias walk (bias, bias_ramp): a fixed geodesic
/// azimuth of 45° (north-east), as REQ-FAULT-BIAS-RAMP specifies.
pub const GNSS_BIAS_AZIMUTH_DEG: f64 = 45.0;

/// Moves a fix `distance_m` metres along the WGS 84 geodesic starting at
/// azimuth `azimuth_deg` (clockwise from north), with geographiclib's direct
/// problem (Karney 2013, "Algorithms for geodesics"). A fix that is not a
/// position (latitude outside [-90, 90], non-finite longitude) or a
/// non-finite distance leaves the fix unchanged: the move never turns a
/// finite coordinate into NaN.
pub fn gnss_move(fix: &mut NavSatFix, azimuth_deg: f64, distance_m: f64) {
    if distance_m == 0.0
        || !distance_m.is_finite()
        || !azimuth_deg.is_finite()
        || !(-90.0..=90.0).contains(&fix.latitude)
        || !fix.longitude.is_finite()
    {
        return;
    }
    let (lat, lon) = Geodesic::wgs84().direct(fix.latitude, fix.longitude, azimuth_deg, distance_m);
    if lat.is_finite() && lon.is_finite() {
        fix.latitude = lat;
        fix.longitude = lon;
    }
}

/// `v ↦ f(v)` on an f64 field, kept finite when it was ([`sat`]): how every
/// value model (bias, scale, saturation) writes a field, typed or dynamic
/// ([`crate::field`]).
#[inline]
pub(crate) fn map64(v: &mut f64, f: impl FnOnce(f64) -> f64) {
    *v = sat(*v, f(*v));
}

/// As [`map64`] for an f32 field (LaserScan ranges), computed in f64 and
/// rounded back ([`sat32`](crate::params::sat32)).
#[inline]
pub(crate) fn map32(v: &mut f32, f: impl FnOnce(f64) -> f64) {
    *v = crate::params::sat32(*v, f(f64::from(*v)));
}

fn scale_cov(cov: &mut [f64], s: f64) {
    for c in cov.iter_mut() {
        *c = sat(*c, *c * s);
    }
}

/// sensor_msgs/Imu marks an absent covariance with element 0 = -1; such a
/// matrix is left as it is.
fn scale_imu_cov(cov: &mut [f64; 9], s: f64) {
    if cov[0] != -1.0 {
        scale_cov(cov, s);
    }
}

/// Time since `set_at` (initialised to the first `now` seen).
fn elapsed(set_at: &mut Option<Duration>, now: Duration) -> f64 {
    let t0 = *set_at.get_or_insert(now);
    now.saturating_sub(t0).as_secs_f64()
}

/// A mode's constructor: the stage for a spec on a target channel.
pub type BuildFn = fn(&FaultSpec, Target<'_>) -> Result<Box<dyn FaultStage>, FaultError>;

/// A mode's delivered-value probe constructor.
pub type ProbeFn = fn() -> Box<dyn crate::Probe>;

/// The message field groups a mode changes on a message type (or
/// [`DELIVERY`]); fields not named pass bit for bit.
pub type ChangesFn = fn(MsgKind) -> &'static [&'static str];

pub use kraken_interfaces::sensor::DELIVERY;
/// `nav_msgs/Odometry` `twist.twist.linear`.
pub const TWIST_LINEAR: &str = "twist.twist.linear";
/// `nav_msgs/Odometry` `twist.twist.angular`.
pub const TWIST_ANGULAR: &str = "twist.twist.angular";
/// Every field group of `nav_msgs/Odometry` a mode can change.
pub const ODOM_FIELDS: [&str; 7] = [
    "header.stamp",
    "pose.pose.position",
    "pose.pose.orientation",
    "pose.covariance",
    TWIST_LINEAR,
    TWIST_ANGULAR,
    "twist.covariance",
];
/// Every field group of `sensor_msgs/LaserScan` a mode can change.
pub const SCAN_FIELDS: [&str; 2] = ["header.stamp", "ranges"];
/// Every field group of `sensor_msgs/NavSatFix` a mode can change.
pub const NAVSAT_FIELDS: [&str; 7] = [
    "header.stamp",
    "status",
    "latitude",
    "longitude",
    "altitude",
    "position_covariance",
    "position_covariance_type",
];
/// Every field group of `sensor_msgs/Imu` a mode can change.
pub const IMU_FIELDS: [&str; 7] = [
    "header.stamp",
    "orientation",
    "orientation_covariance",
    "angular_velocity",
    "angular_velocity_covariance",
    "linear_acceleration",
    "linear_acceleration_covariance",
];

/// Every field group of a `kind` message a mode can change.
pub fn fields_of(kind: MsgKind) -> &'static [&'static str] {
    match kind {
        MsgKind::Odometry => &ODOM_FIELDS,
        MsgKind::LaserScan => &SCAN_FIELDS,
        MsgKind::NavSatFix => &NAVSAT_FIELDS,
        MsgKind::Imu => &IMU_FIELDS,
    }
}

/// One mode's entry in the registry: its constant, its constructor (which
/// checks the parameters, see each mode's `from_spec`) and the field groups
/// it changes per message type.
#[derive(Clone, Copy)]
pub struct Registration {
    /// The `FaultSpec` mode constant.
    pub mode: u8,
    /// Builds the stage for a spec of this mode on a target channel.
    pub build: BuildFn,
    /// The probe that measures what the mode delivered (the release latency
    /// of a delay, the position ratio of a scale; [`crate::probe`]), recorded
    /// in the campaign's manifests as `delivered`; `None` for modes with no
    /// single delivered quantity.
    pub probe: Option<ProbeFn>,
    /// The field groups (of [`ODOM_FIELDS`], [`SCAN_FIELDS`], …) or
    /// [`DELIVERY`] the mode changes on each message type, as its docstring
    /// says.
    pub changes: ChangesFn,
    /// What the mode is on a channel of any message type (a raw channel's
    /// `~/set_fault`, [`crate::spec_stages`]).
    pub any_type: AnyType,
}

/// What a mode is on a channel of any message type: the stages of its
/// fault stack ([`crate::field::FaultStack`]) that do what the mode does
/// ([`crate::spec_stages::stages_for_spec`]); a value mode is its own value
/// model on field paths ([`crate::field::FieldFault`]).
#[derive(Clone, Copy)]
pub enum AnyType {
    /// No stage: the channel passes through (healthy).
    NoStage,
    /// One delivery stage (drop, loss, delay, jitter, duplicate, reorder)
    /// for the spec. Errors: a parameter the stage cannot take.
    Delivery(fn(&FaultSpec) -> Result<StageFault, FaultError>),
    /// One field stage per declared field path (`fault_fields`): the field
    /// mode of the same value model with the spec's parameters, on the path.
    Field(fn(&FaultSpec, &str) -> FieldFaultSpec),
    /// No equivalent on field paths (the mode acts on a message type's
    /// structure: degrade, slip, timestamp_jump, corrupt_status).
    Unsupported,
}

/// What `mode` is on a channel of any message type, from its registration;
/// `None` for a mode no file registers.
pub fn any_type(mode: u8) -> Option<AnyType> {
    registrations().find(|r| r.mode == mode).map(|r| r.any_type)
}

/// The field groups of a `kind` message that `mode` changes (or
/// [`DELIVERY`]), from the mode's own registration; nothing for a mode no
/// file registers.
pub fn mode_changes(mode: u8, kind: MsgKind) -> &'static [&'static str] {
    registrations()
        .find(|r| r.mode == mode)
        .map_or(&[], |r| (r.changes)(kind))
}

/// Whether a fault of `mode` is one-for-one: on no message type does it
/// change [`DELIVERY`] (whether and when a message goes out), so it releases
/// each message it receives, at once, and nothing else; from the mode's own
/// registration. `false` for a mode no file registers. A lock-step consumer
/// that waits for one message per step (the graph's plant and `/cmd_vel`)
/// can only run behind such a fault.
pub fn is_one_for_one(mode: u8) -> bool {
    registrations().find(|r| r.mode == mode).is_some_and(|r| {
        MsgKind::ALL
            .iter()
            .all(|k| !(r.changes)(*k).contains(&DELIVERY))
    })
}

/// A fresh probe of what a fault of `mode` delivered, from the mode's own
/// registration ([`Registration::probe`]); `None` for modes without one and
/// for a mode no file registers.
pub fn delivered_probe(mode: u8) -> Option<Box<dyn crate::Probe>> {
    registrations()
        .find(|r| r.mode == mode)
        .and_then(|r| r.probe)
        .map(|make| make())
}

// `pub mod <file>;` for every file of this folder and `REGISTRY`, the list of
// their `MODES` (generated by build.rs, in file-name order).
include!(concat!(env!("OUT_DIR"), "/faults.rs"));

/// Every registered mode, in file-name order.
pub fn registrations() -> impl Iterator<Item = &'static Registration> {
    REGISTRY.iter().flat_map(|m| m.iter())
}

/// Builds the stage for `spec` on a channel named `channel` carrying `kind`.
/// Activation parameters (`duration_s`, `period_s`, `duty_cycle`,
/// `random_phase`) are the channel's business ([`crate::Activation`]).
///
/// # Errors
/// [`FaultError::UnknownMode`] for a mode constant no fault file registers
/// (every mode of `FaultSpec` has one: tested), [`FaultError::Unsupported`]
/// for a mode that makes no sense for `kind` (slip off odometry; scale,
/// saturation on NavSatFix; corrupt_status on LaserScan),
/// [`FaultError::InvalidParameter`] for an out-of-range parameter (first
/// [`crate::params::check_spec`], the same for every channel type: unread
/// fields 0, read ones in their bounds, the activation fields; then each
/// mode's `from_spec`; the bounds are [`crate::params`]' constants and
/// `FaultSpec.msg`).
pub fn build_stage(
    spec: &FaultSpec,
    channel: &str,
    kind: MsgKind,
) -> Result<Box<dyn FaultStage>, FaultError> {
    let r = registrations()
        .find(|r| r.mode == spec.mode)
        .ok_or(FaultError::UnknownMode(spec.mode))?;
    crate::params::check_spec(spec)?;
    (r.build)(spec, Target { channel, kind })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One-for-one is what the registrations say, so the modes that hold,
    /// drop, duplicate or reorder are not, and the value faults are.
    #[test]
    fn one_for_one_follows_the_registered_changes() {
        use kraken_interfaces::mode_from_name;
        let of = |name: &str| is_one_for_one(mode_from_name(name).expect(name));
        for m in [
            "scale",
            "bias",
            "bias_ramp",
            "stuck",
            "garbage",
            "saturation",
            "degrade",
            "healthy",
        ] {
            assert!(of(m), "{m}");
        }
        for m in ["delay", "packet_loss", "dropout", "reorder", "duplicate"] {
            assert!(!of(m), "{m}");
        }
        assert!(
            !is_one_for_one(250),
            "an unregistered mode is never one-for-one"
        );
    }

    /// On a channel of any type a value mode is the field mode of its own
    /// name (the same value model, on the path given); the delivery modes
    /// are delivery stages; the structural ones have no equivalent.
    #[test]
    fn any_type_of_a_value_mode_is_its_field_mode() {
        let mut field = Vec::new();
        let mut delivery = Vec::new();
        let mut none = Vec::new();
        for r in registrations() {
            let name = kraken_interfaces::mode_name(r.mode).expect("a table mode");
            let spec = FaultSpec::new("c", r.mode);
            match r.any_type {
                AnyType::Field(f) => {
                    let f = f(&spec, "linear.x");
                    assert_eq!((f.mode.name(), f.path.as_str()), (name, "linear.x"));
                    field.push(name);
                }
                AnyType::Delivery(stage) => {
                    assert!(stage(&spec).is_ok(), "{name}");
                    delivery.push(name);
                }
                AnyType::NoStage | AnyType::Unsupported => none.push(name),
            }
        }
        field.sort_unstable();
        delivery.sort_unstable();
        none.sort_unstable();
        assert_eq!(
            field,
            [
                "bias",
                "bias_ramp",
                "garbage",
                "saturation",
                "scale",
                "stuck"
            ]
        );
        assert_eq!(
            delivery,
            [
                "delay",
                "dropout",
                "duplicate",
                "jitter",
                "packet_loss",
                "reorder"
            ]
        );
        assert_eq!(
            none,
            [
                "corrupt_status",
                "degrade",
                "healthy",
                "slip",
                "timestamp_jump"
            ]
        );
    }

    /// Every mode of the table has exactly one registration, and nothing else
    /// is registered.
    #[test]
    fn registry_holds_every_mode_of_the_table_once() {
        let mut got: Vec<u8> = registrations().map(|r| r.mode).collect();
        got.sort_unstable();
        let want: Vec<u8> = kraken_interfaces::MODES.iter().map(|m| m.mode).collect();
        assert_eq!(got, want);
    }
}
