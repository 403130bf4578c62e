//! What a fault can reach: the message fields each fault mode changes on each
//! harness message type, against the fields the consumer (the navigator)
//! reads from that channel.
//!
//! A fault axis whose mode changes only fields the consumer never reads
//! (bias, slip or degrade on `odom` change only the twist; the navigator
//! reads only the pose of odometry) gives verdicts bit-identical to nominal
//! and no delivered value: a silent "no effect". The scenario loader refuses
//! such an axis with [`unreachable_axis`].
//!
//! What each mode changes is declared by the mode itself, next to its
//! `apply` (`changes` of its registration in `kraken_faults/src/faults/`,
//! read through [`mode_changes`]; fields not named pass bit for bit); the
//! unit test `observed_changes_are_declared` pushes messages through every
//! stage and checks that no mode changes a field it does not declare.

use kraken_faults::MsgKind;
#[cfg(test)]
use kraken_interfaces::FaultSpec;

#[cfg(test)]
use kraken_faults::faults::ODOM_FIELDS;
pub use kraken_faults::faults::{mode_changes, DELIVERY};

/// The field groups the navigator reads from a `kind` message (and
/// [`DELIVERY`]): of odometry its pose (position and yaw), of a scan its
/// ranges (and the beam geometry, which no mode changes), and of both the
/// `header.stamp`, which its sensor health compares with the receive time
/// (`breakbench_navigator::health`: a stamp offset raises `/diagnostics`
/// WARN). It reads no covariance and no twist.
pub fn navigator_reads(kind: MsgKind) -> &'static [&'static str] {
    match kind {
        MsgKind::Odometry => &[
            DELIVERY,
            "header.stamp",
            "pose.pose.position",
            "pose.pose.orientation",
        ],
        MsgKind::LaserScan => &[DELIVERY, "header.stamp", "ranges"],
        _ => &[DELIVERY],
    }
}

/// Why an axis with `mode` on `channel` (of type `kind`) cannot reach the
/// navigator, or `None` if some field it changes is read.
pub fn unreachable_axis(mode: u8, mode_name: &str, channel: &str, kind: MsgKind) -> Option<String> {
    let changes = mode_changes(mode, kind);
    let reads = navigator_reads(kind);
    if changes.iter().any(|f| reads.contains(f)) {
        return None;
    }
    let changed = if changes.is_empty() {
        "nothing".to_string()
    } else {
        format!("only {}", changes.join(", "))
    };
    Some(format!(
        "mode '{mode_name}' on channel '{channel}' ({kind:?}) changes {changed}, and the navigator reads {} of it: every run would be bit-identical to nominal (a silent 'no effect'); choose a mode that changes what the consumer reads",
        reads.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraken_faults::{Channel, FaultRng, SensorMsg};
    use kraken_interfaces::ros::{LaserScan, Odometry};
    use kraken_interfaces::MODE_NAMES;
    use rand::SeedableRng;
    use std::time::Duration;

    fn odom(i: u32) -> Odometry {
        let mut o = Odometry::default();
        let f = f64::from(i);
        o.header.stamp.sec = i as i32;
        o.pose.pose.position.x = 1.0 + 0.1 * f;
        o.pose.pose.position.y = -0.5 + 0.05 * f;
        o.pose.pose.position.z = 0.25;
        o.pose.pose.orientation.z = 0.1;
        o.pose.pose.orientation.w = 0.99;
        o.pose.covariance = [0.01; 36];
        o.twist.twist.linear.x = 0.3 + 0.01 * f;
        o.twist.twist.linear.y = 0.02;
        o.twist.twist.angular.z = 0.2;
        o.twist.covariance = [0.02; 36];
        o
    }

    fn scan(i: u32) -> LaserScan {
        LaserScan {
            angle_min: -1.0,
            angle_max: 1.0,
            angle_increment: 0.5,
            range_min: 0.1,
            range_max: 10.0,
            ranges: (0..5).map(|k| 1.0 + k as f32 + 0.1 * i as f32).collect(),
            ..LaserScan::default()
        }
    }

    /// Field groups that differ between `a` and `b`.
    fn changed(a: &SensorMsg, b: &SensorMsg) -> Vec<&'static str> {
        let mut out = Vec::new();
        match (a, b) {
            (SensorMsg::Odometry(a), SensorMsg::Odometry(b)) => {
                let j = |x: &Odometry| serde_json::to_value(x).unwrap();
                let (ja, jb) = (j(a), j(b));
                for f in ODOM_FIELDS {
                    let p = format!("/{}", f.replace('.', "/"));
                    if ja.pointer(&p) != jb.pointer(&p) {
                        out.push(f);
                    }
                }
            }
            (SensorMsg::LaserScan(a), SensorMsg::LaserScan(b)) => {
                if a.header.stamp != b.header.stamp {
                    out.push("header.stamp");
                }
                if a.ranges
                    .iter()
                    .map(|r| r.to_bits())
                    .ne(b.ranges.iter().map(|r| r.to_bits()))
                {
                    out.push("ranges");
                }
            }
            _ => out.push("type"),
        }
        out
    }

    /// A spec of `mode` on `channel` with every parameter set to act.
    fn acting(mode: u8, channel: &str) -> FaultSpec {
        let mut s = FaultSpec::new(channel.to_string(), mode);
        s.noise_stddev = 0.1;
        s.covariance_scale = 2.0;
        s.bias_rate = 0.5;
        s.slip_ratio = 0.5;
        s.bias = 0.3;
        s.scale_factor = 1.5;
        s.garbage_min = -5.0;
        s.garbage_max = 5.0;
        s.saturation_limit = 0.05;
        s.loss_probability = 0.5;
        s.delay_s = 0.05;
        s.jitter_s = 0.05;
        s.probability = 0.5;
        s.timestamp_offset_s = 3.0;
        s
    }

    /// Every content change a stage makes is in the table (for the same
    /// input order; delivery changes are not content changes).
    #[test]
    fn observed_changes_are_declared() {
        for (channel, kind) in [("odom", MsgKind::Odometry), ("scan", MsgKind::LaserScan)] {
            for (mode, name) in MODE_NAMES.iter().enumerate() {
                let mode = mode as u8;
                let mut ch = Channel::new(channel, kind);
                if ch
                    .set_fault(&acting(mode, channel), Duration::ZERO)
                    .is_err()
                {
                    continue; // a mode this type does not support
                }
                let mut rng = FaultRng::seed_from_u64(1);
                let mut seen = std::collections::BTreeSet::new();
                let inputs: Vec<SensorMsg> = (0..40)
                    .map(|i| match kind {
                        MsgKind::Odometry => SensorMsg::Odometry(odom(i)),
                        _ => SensorMsg::LaserScan(scan(i)),
                    })
                    .collect();
                let mut outputs = Vec::new();
                for (i, m) in inputs.iter().enumerate() {
                    let now = Duration::from_millis(100 * (i as u64 + 1));
                    ch.push(m.clone(), now, &mut rng);
                    outputs.extend(ch.poll(now));
                }
                outputs.extend(ch.poll(Duration::from_secs(100)));
                assert!(
                    !outputs.is_empty() || mode == FaultSpec::DROPOUT,
                    "{name}: nothing out"
                );
                // Compare each output with the input it differs least from.
                for o in &outputs {
                    let best = inputs
                        .iter()
                        .map(|m| changed(m, o))
                        .min_by_key(|c| c.len())
                        .unwrap();
                    seen.extend(best);
                }
                let declared = mode_changes(mode, kind);
                for f in &seen {
                    assert!(
                        declared.contains(f),
                        "{name} on {channel} changed {f}, not declared ({declared:?})"
                    );
                }
            }
        }
    }

    #[test]
    fn twist_only_modes_on_odom_cannot_reach_the_navigator() {
        for (mode, name) in [
            (FaultSpec::BIAS, "bias"),
            (FaultSpec::SLIP, "slip"),
            (FaultSpec::DEGRADE, "degrade"),
            (FaultSpec::BIAS_RAMP, "bias_ramp"),
            (FaultSpec::SATURATION, "saturation"),
            (FaultSpec::CORRUPT_STATUS, "corrupt_status"),
        ] {
            let why = unreachable_axis(mode, name, "odom", MsgKind::Odometry)
                .unwrap_or_else(|| panic!("{name} reaches?"));
            assert!(
                why.starts_with(&format!(
                    "mode '{name}' on channel 'odom' (Odometry) changes only "
                )),
                "{why}"
            );
            assert!(
                why.contains(
                    "the navigator reads delivery, header.stamp, pose.pose.position, pose.pose.orientation of it"
                ),
                "{why}"
            );
        }
        for mode in [
            FaultSpec::SCALE,
            FaultSpec::GARBAGE,
            FaultSpec::STUCK,
            FaultSpec::DELAY,
            FaultSpec::DROPOUT,
            // the navigator's health compares header.stamp with the receive time
            FaultSpec::TIMESTAMP_JUMP,
        ] {
            assert_eq!(
                unreachable_axis(mode, "m", "odom", MsgKind::Odometry),
                None,
                "{mode}"
            );
        }
        for mode in [
            FaultSpec::BIAS,
            FaultSpec::DEGRADE,
            FaultSpec::SCALE,
            FaultSpec::DELAY,
        ] {
            assert_eq!(
                unreachable_axis(mode, "m", "scan", MsgKind::LaserScan),
                None,
                "{mode}"
            );
        }
        let why = unreachable_axis(FaultSpec::SLIP, "slip", "scan", MsgKind::LaserScan).unwrap();
        assert!(why.contains("changes nothing"), "{why}");
    }
}
