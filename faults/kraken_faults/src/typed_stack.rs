//! [`TypedStack`]: the fault stack of a typed channel (NavSatFix, Imu,
//! Odometry, LaserScan), run after the channel's typed fault
//! (REQ-FAULT-STACK on typed channels).
//!
//! A typed channel keeps its one classic fault (`~/set_fault`, a
//! [`crate::Channel`]); what that fault releases goes through this stack.
//! The stack is a [`DynChannel`] of the channel's type (one mechanism for
//! stage ids, windows, counters, provenance, hold queue and
//! `~/stack_status`): a message an active stage may touch is serialized
//! to CDR as ros2-client's typed publisher would serialize it
//! ([`breakbench_msgs::encode_serde`]), run through the stack (decoded to a
//! [`breakbench_msgs::Value`] only while a field stage is active),
//! and deserialized back into the typed message
//! ([`breakbench_msgs::decode_serde`]) before it is published. While no
//! stage is active (and none was ever set) a message passes by value
//! without the round trip.

use std::sync::Arc;
use std::time::Duration;

use breakbench_msgs::{decode_serde, encode_serde, TypeRegistry};
use kraken_interfaces::ros::DiagnosticStatus;

use crate::config::HoldLimits;
use crate::{Channel, DynChannel, FaultRng, MsgKind, SensorMsg};

/// The stack of one typed channel.
#[derive(Debug)]
pub struct TypedStack {
    kind: MsgKind,
    chan: DynChannel,
    /// Messages released at once without the round trip, in order.
    ready: Vec<SensorMsg>,
}

fn to_cdr(msg: &SensorMsg) -> Result<Vec<u8>, breakbench_msgs::MsgError> {
    let ty = msg.kind().ros_type();
    match msg {
        SensorMsg::NavSatFix(m) => encode_serde(ty, m),
        SensorMsg::Imu(m) => encode_serde(ty, m),
        SensorMsg::Odometry(m) => encode_serde(ty, m),
        SensorMsg::LaserScan(m) => encode_serde(ty, m),
    }
}

fn from_cdr(kind: MsgKind, bytes: &[u8]) -> Result<SensorMsg, breakbench_msgs::MsgError> {
    let ty = kind.ros_type();
    Ok(match kind {
        MsgKind::NavSatFix => SensorMsg::NavSatFix(decode_serde(ty, bytes)?),
        MsgKind::Imu => SensorMsg::Imu(decode_serde(ty, bytes)?),
        MsgKind::Odometry => SensorMsg::Odometry(decode_serde(ty, bytes)?),
        MsgKind::LaserScan => SensorMsg::LaserScan(decode_serde(ty, bytes)?),
    })
}

impl TypedStack {
    /// An empty stack for channel `name` of `kind`, its type resolved in
    /// `reg` (the built-in sensor_msgs / nav_msgs definitions, or those of
    /// `AMENT_PREFIX_PATH`), holding delayed messages under `limits`.
    ///
    /// # Errors
    /// The registry's refusal of the type (not with the built-in registry).
    pub fn new(
        name: &str,
        kind: MsgKind,
        reg: Arc<TypeRegistry>,
        limits: HoldLimits,
    ) -> Result<Self, String> {
        Ok(Self {
            kind,
            chan: DynChannel::with_type(name, kind.ros_type(), reg, limits)?,
            ready: Vec::new(),
        })
    }

    /// The stack's bookkeeping: `set_stack`, `clear_stage`, `clear_all`,
    /// `ids`, counters ([`DynChannel`]).
    pub fn stack(&self) -> &DynChannel {
        &self.chan
    }

    /// As [`TypedStack::stack`], mutably.
    pub fn stack_mut(&mut self) -> &mut DynChannel {
        &mut self.chan
    }

    /// Whether a message pushed at `now` goes through the CDR round trip
    /// (some stage is active at `now`, or a reorder stage holds a message).
    pub fn round_trip(&self, now: Duration) -> bool {
        self.chan.stack().any_active(now) || self.chan.stack().holds()
    }

    /// Runs one message the typed fault released at `now` through the
    /// stack; what it releases at once is returned by the next
    /// [`TypedStack::poll`]. A message that cannot be serialized, or whose
    /// faulted bytes do not deserialize back into the typed message, is
    /// withheld and counted in the stack's `encode_errors` (`last_error`
    /// says why).
    pub fn push(&mut self, msg: SensorMsg, now: Duration, rng: &mut FaultRng) {
        if !self.round_trip(now) {
            self.chan.messages_in += 1;
            self.ready.push(msg);
            return;
        }
        match to_cdr(&msg) {
            Ok(bytes) => self.chan.push(bytes, now, rng),
            Err(e) => {
                self.chan.messages_in += 1;
                self.chan.encode_errors += 1;
                self.chan.last_error = Some(e.to_string());
            }
        }
    }

    /// The messages to publish at `now`: those passed by value, then what
    /// the stack releases (at once, then the held ones due, in due order).
    pub fn poll(&mut self, now: Duration) -> Vec<SensorMsg> {
        let mut out = std::mem::take(&mut self.ready);
        self.chan.messages_out += out.len() as u64;
        for bytes in self.chan.poll(now) {
            match from_cdr(self.kind, &bytes) {
                Ok(m) => out.push(m),
                Err(e) => {
                    self.chan.messages_out -= 1;
                    self.chan.encode_errors += 1;
                    self.chan.last_error = Some(e.to_string());
                }
            }
        }
        out
    }

    /// The typed channel's output at `now` through the stack: each message
    /// `released` by the typed fault ([`Channel::poll`], in order) is pushed,
    /// then what the stack releases is returned ([`TypedStack::poll`]). The
    /// node's relay step.
    pub fn relay(
        &mut self,
        released: Vec<SensorMsg>,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<SensorMsg> {
        for m in released {
            self.push(m, now, rng);
        }
        self.poll(now)
    }

    /// When the earliest held message is due.
    pub fn next_release(&self) -> Option<Duration> {
        self.chan.next_release()
    }

    /// `~/stack_status` of the channel: the typed fault of `typed` (the
    /// same channel's [`Channel`]) then the stages, as
    /// [`DynChannel::status_with`].
    pub fn status(&self, now: Duration, node_name: &str, typed: &Channel) -> DiagnosticStatus {
        self.chan.status_with(now, node_name, Some(typed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraken_interfaces::ros::{Imu, LaserScan, Odometry};
    use kraken_interfaces::FaultSpec;
    use rand::SeedableRng;

    fn ms(m: u64) -> Duration {
        Duration::from_millis(m)
    }

    fn scan(beams: usize, sec: i32) -> SensorMsg {
        let mut l = LaserScan {
            range_min: 0.1,
            range_max: 30.0,
            ranges: (0..beams).map(|i| 1.0 + i as f32 * 0.5).collect(),
            intensities: vec![7.0; beams],
            ..Default::default()
        };
        l.header.stamp.sec = sec;
        l.header.stamp.nanosec = 250_000_000;
        l.header.frame_id = "laser".into();
        SensorMsg::LaserScan(l)
    }

    fn stack(kind: MsgKind) -> TypedStack {
        TypedStack::new(
            "c",
            kind,
            Arc::new(TypeRegistry::builtin()),
            HoldLimits::DEFAULT,
        )
        .unwrap()
    }

    fn kv<'a>(s: &'a DiagnosticStatus, key: &str) -> &'a str {
        &s.values.iter().find(|k| k.key == key).unwrap().value
    }

    #[test]
    fn typed_messages_round_trip_through_cdr_bit_for_bit() {
        // The serializer is ros2-client's: the scan's bytes are the header,
        // the stamp (sec, nanosec), "laser\0" with its u32 length, ...
        let b = to_cdr(&scan(3, 12)).unwrap();
        assert_eq!(&b[..4], &[0, 1, 0, 0]);
        assert_eq!(&b[4..8], &12i32.to_le_bytes());
        assert_eq!(&b[8..12], &250_000_000u32.to_le_bytes());
        assert_eq!(&b[12..16], &6u32.to_le_bytes());
        assert_eq!(&b[16..22], b"laser\0");
        // ... and the registry's built-in LaserScan reads the same bytes.
        let reg = TypeRegistry::builtin();
        let v = breakbench_msgs::decode(&reg.resolve("sensor_msgs/msg/LaserScan").unwrap(), &b)
            .unwrap();
        assert_eq!(
            v.field("ranges"),
            Some(&breakbench_msgs::Value::F32Seq(vec![1.0, 1.5, 2.0]))
        );
        for m in [
            scan(3, 12),
            SensorMsg::Imu(Imu::default()),
            SensorMsg::Odometry(Odometry::default()),
        ] {
            assert_eq!(from_cdr(m.kind(), &to_cdr(&m).unwrap()).unwrap(), m);
        }
    }

    #[test]
    fn field_stage_on_a_typed_scan_and_passthrough_without_stages() {
        let mut s = stack(MsgKind::LaserScan);
        let mut rng = FaultRng::seed_from_u64(3);
        // No stage: by value, no round trip.
        assert!(!s.round_trip(ms(0)));
        s.push(scan(4, 12), ms(0), &mut rng);
        assert_eq!(s.poll(ms(0)), vec![scan(4, 12)]);
        let ids = s
            .stack_mut()
            .set_stack(
                "- fault: {field: {path: header.stamp.sec, mode: set, value: -1}}\n\
                 - fault: {delay: {delay_s: 0.2}}\n",
                false,
                ms(100),
            )
            .unwrap();
        assert_eq!(ids, vec![1, 2]);
        assert!(s.round_trip(ms(100)));
        s.push(scan(4, 12), ms(100), &mut rng);
        assert!(s.poll(ms(299)).is_empty());
        assert_eq!(s.next_release(), Some(ms(300)));
        let out = s.poll(ms(300));
        let mut want = scan(4, 12);
        want.header_mut().stamp.sec = -1;
        assert_eq!(out, vec![want]);

        // The status lists the typed fault first, then the stages in order.
        let mut typed = Channel::new("c", MsgKind::LaserScan);
        typed
            .set_fault(&FaultSpec::new("c", FaultSpec::DROPOUT), ms(50))
            .unwrap();
        let st = s.status(ms(300), "fault_injector", &typed);
        assert_eq!(st.level, DiagnosticStatus::WARN);
        assert_eq!(kv(&st, "typed_fault"), "dropout");
        assert_eq!(kv(&st, "typed_fault.active"), "true");
        assert_eq!(kv(&st, "typed_fault.requested"), "0.050000000");
        assert_eq!(kv(&st, "typed_fault.first_applied"), "");
        assert_eq!(kv(&st, "stage0.fault"), "0: set header.stamp.sec");
        assert_eq!(kv(&st, "stage0.changed"), "1");
        assert_eq!(kv(&st, "stage1.changed"), "1");
        assert_eq!(kv(&st, "messages_in"), "2");
        assert_eq!(kv(&st, "messages_out"), "2");
        let typed_at = st.values.iter().position(|k| k.key == "typed_fault");
        let stage_at = st.values.iter().position(|k| k.key == "stage0.id");
        assert!(typed_at < stage_at);

        // Cleared: by value again.
        s.stack_mut().clear_all(ms(400));
        s.push(scan(4, 12), ms(400), &mut rng);
        assert_eq!(s.poll(ms(400)), vec![scan(4, 12)]);
    }

    #[test]
    fn the_stack_runs_after_the_typed_fault() {
        // Typed fault: scale angular_velocity x2; stack: bias
        // angular_velocity.x +1. In that order: 0.25 * 2 + 1 = 1.5 (the
        // other order would give 2.5).
        let mut c = Channel::new("imu", MsgKind::Imu);
        let mut spec = FaultSpec::new("imu", FaultSpec::SCALE);
        spec.scale_factor = 2.0;
        c.set_fault(&spec, ms(0)).unwrap();
        let mut s = stack(MsgKind::Imu);
        s.stack_mut()
            .set_stack(
                "[{fault: {field: {path: angular_velocity.x, mode: bias, bias: 1.0}}}]",
                false,
                ms(0),
            )
            .unwrap();
        let mut rng = FaultRng::seed_from_u64(3);
        let mut imu = Imu::default();
        imu.angular_velocity.x = 0.25;
        imu.angular_velocity.y = -0.5;
        c.push(SensorMsg::Imu(imu), ms(10), &mut rng);
        let out = s.relay(c.poll(ms(10)), ms(10), &mut rng);
        let [SensorMsg::Imu(o)] = out.as_slice() else {
            panic!("{out:?}")
        };
        assert_eq!((o.angular_velocity.x, o.angular_velocity.y), (1.5, -1.0));
    }

    #[test]
    fn bytes_that_are_not_the_typed_message_are_refused_naming_the_type() {
        let e = from_cdr(MsgKind::Imu, &[0, 1, 0, 0, 1]).unwrap_err();
        assert!(e.to_string().contains("sensor_msgs/msg/Imu"), "{e}");
    }
}
