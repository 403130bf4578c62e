//! The plant's transforms (REP-105), as the bridge node publishes them and
//! an in-process run records them: `odom` → `base_link` on `/tf` from each
//! wheel-odometry message, and the static sensor frames on `/tf_static`.
//! Ground truth (`world`) is never a transform.

use kraken_interfaces::ros::{
    Header, Odometry, Quaternion, TFMessage, Time, Transform, TransformStamped, Vector3,
};

use crate::lidar::SCAN_FRAME;
use crate::plant::BASE_FRAME;
use crate::sensors::{GNSS_FRAME, IMU_FRAME};

/// The static sensor transforms (`/tf_static`): `base_link` → `base_scan`,
/// `gnss_link`, `imu_link`, each the identity (the plant models every sensor
/// at the robot centre, see [`crate::config`]), stamped at sim time 0.
/// Without them a Nav2 costmap cannot transform `/scan` (REP-105).
pub fn static_sensor_tf() -> TFMessage {
    TFMessage {
        transforms: [SCAN_FRAME, GNSS_FRAME, IMU_FRAME]
            .into_iter()
            .map(|child| TransformStamped {
                header: Header {
                    stamp: Time { sec: 0, nanosec: 0 },
                    frame_id: BASE_FRAME.into(),
                },
                child_frame_id: child.into(),
                transform: Transform {
                    translation: Vector3 {
                        x: 0.0,
                        y: 0.0,
                        z: 0.0,
                    },
                    rotation: Quaternion::from_yaw(0.0),
                },
            })
            .collect(),
    }
}

/// The `odom` → `base_link` transform of an odometry message (its header,
/// child frame and pose).
pub fn odom_tf(o: &Odometry) -> TFMessage {
    let p = &o.pose.pose;
    TFMessage {
        transforms: vec![TransformStamped {
            header: o.header.clone(),
            child_frame_id: o.child_frame_id.clone(),
            transform: Transform {
                translation: Vector3 {
                    x: p.position.x,
                    y: p.position.y,
                    z: p.position.z,
                },
                rotation: p.orientation,
            },
        }],
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn static_sensor_tf_links_every_sensor_frame_to_base_link() {
        let m = super::static_sensor_tf();
        let links: Vec<(&str, &str)> = m
            .transforms
            .iter()
            .map(|t| (t.header.frame_id.as_str(), t.child_frame_id.as_str()))
            .collect();
        assert_eq!(
            links,
            vec![
                ("base_link", "base_scan"),
                ("base_link", "gnss_link"),
                ("base_link", "imu_link")
            ]
        );
        for t in &m.transforms {
            let (v, q) = (&t.transform.translation, &t.transform.rotation);
            assert_eq!((v.x, v.y, v.z), (0.0, 0.0, 0.0));
            assert_eq!((q.x, q.y, q.z, q.w), (0.0, 0.0, 0.0, 1.0));
        }
    }
}
