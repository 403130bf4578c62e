//! What a fault can reach: the message fields each fault mode changes on each
//! harness message type, against the fields the consumer (the navigator)
//! reads from that channel.
//!
//! A fault axis whose mode changes only fields the consumer never reads
//! (bias, slip or degrade on `odom` change only the twist; the navigator
//! reads only the pose of odometry) gives verdicts bit-identical to nominal
//! and no delivered value: a silent "no effect". The scenario loader refuses
//! such an axis with [`unreachable_axis`], and a test fault like it is
//! `unsupported`. What the consumer reads is declared by the controller
//! (`breakbench_navigator::controller::Controller::reads`).
//!
//! What each mode changes is declared by the mode itself, next to its
//! `apply` (`changes` of its registration in `faults/kraken_faults/src/faults/`,
//! read through [`mode_changes`]; fields not named pass bit for bit); the
//! unit test `observed_changes_are_declared` pushes messages through every
//! stage and checks that no mode changes a field it does not declare.

use kraken_faults::MsgKind;
#[cfg(test)]
use kraken_interfaces::FaultSpec;

#[cfg(test)]
use kraken_faults::faults::ODOM_FIELDS;
pub use kraken_faults::faults::{mode_changes, DELIVERY};

/// Why a fault of `mode` on `channel` (of type `kind`) cannot reach a
/// consumer that reads `reads` of it (its `Controller::reads`), or `None` if
/// some field the mode changes is read.
pub fn unreachable_axis(
    mode: u8,
    mode_name: &str,
    channel: &str,
    kind: MsgKind,
    reads: &[&str],
) -> Option<String> {
    let changes = mode_changes(mode, kind);
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
        if reads.is_empty() { "nothing".to_string() } else { reads.join(", ") }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use breakbench_navigator::controller::Controller;
    use kraken_faults::faults::{fields_of, IMU_FIELDS, NAVSAT_FIELDS};
    use kraken_faults::{Channel, FaultRng, SensorMsg};
    use kraken_interfaces::ros::{Imu, LaserScan, NavSatFix, NavSatStatus, Odometry};
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

    fn config(p: &str) -> std::path::PathBuf {
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join(p)
    }

    /// The simple_navigator of the shipped configs (pose_source
    /// wheel_odometry).
    fn nav() -> breakbench_navigator::Navigator {
        let world = breakbench_world::World::load(&config("config/corridor.yaml")).unwrap();
        let cfg =
            breakbench_navigator::NavigatorConfig::load(&config("config/navigator.yaml")).unwrap();
        breakbench_navigator::Navigator::new(cfg, world.goal_in_odom())
    }

    /// The navigator on the estimator's output (pose_source estimator).
    fn stack() -> breakbench_navigator::stack::Stack {
        let world = breakbench_world::World::load(&config("config/corridor.yaml")).unwrap();
        let mut cfg =
            breakbench_navigator::NavigatorConfig::load(&config("config/navigator.yaml")).unwrap();
        cfg.pose_source = breakbench_navigator::PoseSource::Estimator;
        breakbench_navigator::stack::Stack::declared(cfg, &world).unwrap()
    }

    /// GNSS and IMU faults reach the estimator stack through the fields it
    /// fuses, and twist faults on the wheel odometry reach it too (it fuses
    /// the twist), while they cannot reach the navigator on raw odometry.
    #[test]
    fn what_reaches_the_estimator_stack() {
        let st = stack();
        let reach = |mode: u8, channel: &str, kind: MsgKind| {
            unreachable_axis(mode, "m", channel, kind, st.reads(kind))
        };
        for mode in [
            FaultSpec::BIAS_RAMP,
            FaultSpec::BIAS,
            FaultSpec::DEGRADE,
            FaultSpec::GARBAGE,
            FaultSpec::CORRUPT_STATUS,
            FaultSpec::DROPOUT,
            FaultSpec::STUCK,
            FaultSpec::DELAY,
            FaultSpec::TIMESTAMP_JUMP,
        ] {
            assert_eq!(reach(mode, "gnss", MsgKind::NavSatFix), None, "gnss {mode}");
        }
        for mode in [
            FaultSpec::BIAS_RAMP,
            FaultSpec::BIAS,
            FaultSpec::SCALE,
            FaultSpec::SATURATION,
            FaultSpec::GARBAGE,
            FaultSpec::CORRUPT_STATUS,
            FaultSpec::DEGRADE,
        ] {
            assert_eq!(reach(mode, "imu", MsgKind::Imu), None, "imu {mode}");
        }
        for mode in [FaultSpec::BIAS, FaultSpec::SLIP, FaultSpec::DEGRADE] {
            assert_eq!(reach(mode, "odom", MsgKind::Odometry), None, "odom {mode}");
            assert!(
                unreachable_axis(
                    mode,
                    "m",
                    "odom",
                    MsgKind::Odometry,
                    nav().reads(MsgKind::Odometry)
                )
                .is_some(),
                "odom {mode} reaches the raw-odometry navigator?"
            );
        }
        // scale changes only an odometry pose the stack does not read
        let why = reach(FaultSpec::SCALE, "odom", MsgKind::Odometry).unwrap();
        assert!(why.contains("changes only pose.pose.position, and the navigator reads delivery, header.stamp, twist.twist.linear"), "{why}");
    }

    fn fix(i: u32) -> NavSatFix {
        let f = f64::from(i);
        let mut m = NavSatFix::default();
        m.header.stamp.sec = i as i32;
        m.status.status = NavSatStatus::STATUS_FIX;
        m.status.service = NavSatStatus::SERVICE_GPS;
        m.latitude = 48.0 + 1e-5 * f;
        m.longitude = 11.0 + 2e-5 * f;
        m.altitude = 500.0 + 0.01 * f;
        m.position_covariance = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 4.0];
        m.position_covariance_type = NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN;
        m
    }

    fn imu(i: u32) -> Imu {
        let f = f64::from(i);
        let mut m = Imu::default();
        m.header.stamp.sec = i as i32;
        m.orientation.z = 0.1;
        m.orientation.w = 0.99;
        m.orientation_covariance = [0.01; 9];
        m.angular_velocity.x = 0.01;
        m.angular_velocity.y = -0.02;
        m.angular_velocity.z = 0.1 + 0.01 * f;
        m.angular_velocity_covariance = [0.001; 9];
        m.linear_acceleration.x = 0.2 + 0.01 * f;
        m.linear_acceleration.z = 9.81;
        m.linear_acceleration_covariance = [0.1; 9];
        m
    }

    /// Field groups that differ between `a` and `b`.
    fn changed(a: &SensorMsg, b: &SensorMsg) -> Vec<&'static str> {
        let mut out = Vec::new();
        let diff = |ja: serde_json::Value,
                    jb: serde_json::Value,
                    fields: &[&'static str],
                    out: &mut Vec<&'static str>| {
            for f in fields {
                let p = format!("/{}", f.replace('.', "/"));
                if ja.pointer(&p) != jb.pointer(&p) {
                    out.push(*f);
                }
            }
        };
        fn j<T: serde::Serialize>(x: &T) -> serde_json::Value {
            serde_json::to_value(x).unwrap()
        }
        match (a, b) {
            (SensorMsg::Odometry(a), SensorMsg::Odometry(b)) => {
                diff(j(a), j(b), &ODOM_FIELDS, &mut out)
            }
            (SensorMsg::NavSatFix(a), SensorMsg::NavSatFix(b)) => {
                diff(j(a), j(b), &NAVSAT_FIELDS, &mut out)
            }
            (SensorMsg::Imu(a), SensorMsg::Imu(b)) => diff(j(a), j(b), &IMU_FIELDS, &mut out),
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
        for (channel, kind) in [
            ("odom", MsgKind::Odometry),
            ("scan", MsgKind::LaserScan),
            ("gnss", MsgKind::NavSatFix),
            ("imu", MsgKind::Imu),
        ] {
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
                        MsgKind::NavSatFix => SensorMsg::NavSatFix(fix(i)),
                        MsgKind::Imu => SensorMsg::Imu(imu(i)),
                        MsgKind::LaserScan => SensorMsg::LaserScan(scan(i)),
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
                for f in declared {
                    assert!(
                        *f == DELIVERY || fields_of(kind).contains(f),
                        "{name} on {channel} declares '{f}', not a field group of {kind:?}"
                    );
                }
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
            let why = unreachable_axis(
                mode,
                name,
                "odom",
                MsgKind::Odometry,
                nav().reads(MsgKind::Odometry),
            )
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
                unreachable_axis(
                    mode,
                    "m",
                    "odom",
                    MsgKind::Odometry,
                    nav().reads(MsgKind::Odometry)
                ),
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
                unreachable_axis(
                    mode,
                    "m",
                    "scan",
                    MsgKind::LaserScan,
                    nav().reads(MsgKind::LaserScan)
                ),
                None,
                "{mode}"
            );
        }
        let why = unreachable_axis(
            FaultSpec::SLIP,
            "slip",
            "scan",
            MsgKind::LaserScan,
            nav().reads(MsgKind::LaserScan),
        )
        .unwrap();
        assert!(why.contains("changes nothing"), "{why}");
    }
}
