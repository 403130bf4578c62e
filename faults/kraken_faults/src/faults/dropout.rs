//! `dropout`: a receiver that lost lock (GNSS) or a silent topic (everything else).

use std::time::Duration;

use kraken_interfaces::ros::{NavSatFix, NavSatStatus};
use kraken_interfaces::FaultSpec;

use super::*;
use crate::{FaultRng, SensorMsg};

/// `dropout` (REQ-FAULT-DROPOUT-GNSS, REQ-FAULT-DROPOUT-IMU, REQ-FAULT-DROPOUT-WHEEL).
///
/// * NavSatFix: still published; `status.status = STATUS_NO_FIX`,
///   `position_covariance = 0`, `position_covariance_type =
///   COVARIANCE_TYPE_UNKNOWN`; latitude/longitude/altitude and the stamp pass
///   unchanged (a receiver that lost lock).
/// * Imu, Odometry, LaserScan: nothing is published. For odometry channels
///   with `tf_keepalive` the host keeps broadcasting the last odom→base_link
///   transform ([`crate::Channel::keepalive_transform`]).
#[derive(Debug, Clone, Default)]
pub struct Dropout;

impl FaultStage for Dropout {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        match msg {
            SensorMsg::NavSatFix(mut f) => {
                f.status.status = NavSatStatus::STATUS_NO_FIX;
                f.position_covariance = [0.0; 9];
                f.position_covariance_type = NavSatFix::COVARIANCE_TYPE_UNKNOWN;
                now_only(SensorMsg::NavSatFix(f))
            }
            _ => Vec::new(),
        }
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::DROPOUT,
    build: |spec, t| {
        Ok(Box::new({
            let _ = (spec, t);
            Dropout
        }))
    },
    probe: None,
    any_type: AnyType::Delivery(|_| Ok(StageFault::Drop { probability: 1.0 })),
    changes: |kind| match kind {
        // a receiver that lost lock keeps publishing, without a fix
        MsgKind::NavSatFix => &["status", "position_covariance", "position_covariance_type"],
        _ => &[DELIVERY],
    },
}];

#[cfg(test)]
mod tests {

    use crate::test_common::*;
    use kraken_interfaces::ros::{NavSatFix, NavSatStatus};
    use kraken_interfaces::FaultSpec;

    // Golden values: exact delivered values, derived by hand in the comments.
    /// dropout, per type: gnss keeps publishing NO_FIX with unknown, zero
    /// covariance (position unchanged); imu, odometry and scan are silent; the
    /// wheel channel (tf_keepalive in channels.yaml) offers the last odom->base_link
    /// transform stamped now, the odom channel (no keep-alive) does not.
    #[test]
    fn dropout_per_channel_type() {
        let mut inj = shipped();
        let mut r = rng(1);
        for name in ["gnss", "imu", "wheel", "scan", "odom"] {
            // One healthy message first, so the keep-alive has a last input.
            let kind = inj.channel(name).unwrap().kind();
            inj.push(name, msg_for(kind, ms(0)), ms(0), &mut r).unwrap();
            assert_eq!(inj.poll(name, ms(0)).unwrap().len(), 1);
            inj.set_fault(&FaultSpec::new(name, FaultSpec::DROPOUT), ms(50))
                .unwrap();
        }
        let t = ms(100);
        for name in ["gnss", "imu", "wheel", "scan", "odom"] {
            let kind = inj.channel(name).unwrap().kind();
            inj.push(name, msg_for(kind, t), t, &mut r).unwrap();
        }
        let f = as_fix(only(inj.poll("gnss", t).unwrap()));
        assert_eq!(f.status.status, NavSatStatus::STATUS_NO_FIX);
        assert_eq!(
            f.position_covariance_type,
            NavSatFix::COVARIANCE_TYPE_UNKNOWN
        );
        assert_eq!(f.position_covariance, [0.0; 9]);
        assert_eq!((f.latitude, f.longitude), (LAT0, LON0));
        assert_eq!(f.header.stamp, stamp(t));
        for name in ["imu", "wheel", "scan", "odom"] {
            assert!(
                inj.poll(name, t).unwrap().is_empty(),
                "{name} must be silent"
            );
            assert_eq!(inj.channel(name).unwrap().stats().messages_faulted, 1);
        }
        let tf = inj
            .channel("wheel")
            .unwrap()
            .keepalive_transform(ms(150))
            .expect("wheel keeps TF alive");
        assert_eq!(tf.header.frame_id, "odom");
        assert_eq!(tf.child_frame_id, "base_link");
        assert_eq!(tf.header.stamp, stamp(ms(150)));
        assert_eq!(
            (tf.transform.translation.x, tf.transform.translation.y),
            (2.0, -1.0)
        );
        assert_eq!(tf.transform.rotation, odom(ms(0)).pose.pose.orientation);
        assert_eq!(
            inj.channel("wheel")
                .unwrap()
                .tf_keepalive()
                .unwrap()
                .tf_rate_hz,
            20.0
        );
        assert!(inj
            .channel("odom")
            .unwrap()
            .keepalive_transform(ms(150))
            .is_none());
        // After clearing, no keep-alive (the topic itself carries data again).
        inj.clear_faults_at(ms(200));
        assert!(inj
            .channel("wheel")
            .unwrap()
            .keepalive_transform(ms(250))
            .is_none());
    }
}
