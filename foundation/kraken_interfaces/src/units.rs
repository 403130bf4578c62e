//! The unit of every numeric `FaultSpec` parameter, declared once beside
//! the mode table ([`crate::MODES`]) and read by whoever shows a value
//! (the campaign report's axis labels): SI units (REP-103) as the field
//! comments of `FaultSpec.msg` and each fault model's docs state them.
//!
//! A parameter in "the channel's units" (`bias`, `noise_stddev`,
//! `saturation_limit`, `garbage_min`/`garbage_max`, `bias_rate`) takes the
//! unit of the quantity the mode changes on that message type; where a mode
//! changes quantities of several units the unit lists them.

use crate::sensor::MsgKind;

/// A unitless ratio, probability or fraction, as the report writes it.
pub const DIMENSIONLESS: &str = "dimensionless";

/// The ROS type of the actuator channels (`cmd_vel`).
const TWIST: &str = "geometry_msgs/msg/Twist";

/// The unit of `FaultSpec` parameter `parameter` on a channel of ROS type
/// `ros_type` (`sensor_msgs/msg/Imu`, ..., or `geometry_msgs/msg/Twist`
/// for an actuator channel), e.g. `delay_s` → `s`, `scale_factor` →
/// [`DIMENSIONLESS`], `bias` on `sensor_msgs/msg/Imu` → `rad/s` (the yaw
/// rate), `bias_rate` on `sensor_msgs/msg/NavSatFix` → `m/s` (the
/// walk-off speed).
///
/// `None` for a parameter that is no number with a unit (`random_phase`,
/// `freeze_stamp`, `allow_non_finite`, the enumeration `loss_model`), an
/// unknown parameter, or a channel-unit parameter on an unknown type.
pub fn parameter_unit(parameter: &str, ros_type: &str) -> Option<&'static str> {
    Some(match parameter {
        "duration_s" | "period_s" | "step_at_s" | "delay_s" | "jitter_s" | "timestamp_offset_s" => {
            "s"
        }
        "duty_cycle"
        | "loss_probability"
        | "recovery_probability"
        | "probability"
        | "slip_ratio"
        | "scale_factor"
        | "covariance_scale" => DIMENSIONLESS,
        "message_skip" | "message_count" | "message_every" | "burst_length" => "messages",
        "bias" => channel_unit(ros_type, ["m", "rad/s", "m/s", "m", "m/s, rad/s"])?,
        "bias_rate" => channel_unit(ros_type, ["m/s", "rad/s²", "m/s²", "m/s", "m/s², rad/s²"])?,
        "noise_stddev" | "saturation_limit" => {
            channel_unit(ros_type, ["m", "rad/s", "m/s, rad/s", "m", "m/s, rad/s"])?
        }
        "garbage_min" | "garbage_max" => channel_unit(
            ros_type,
            [
                "deg (latitude, longitude), m (altitude)",
                "rad/s, m/s²",
                "m, m/s, rad/s",
                "m",
                "m/s, rad/s",
            ],
        )?,
        _ => return None,
    })
}

/// `units` for NavSatFix, Imu, Odometry, LaserScan and the actuator Twist,
/// picked by `ros_type`; `None` for another type.
fn channel_unit(ros_type: &str, units: [&'static str; 5]) -> Option<&'static str> {
    if ros_type == TWIST {
        return Some(units[4]);
    }
    let kind = MsgKind::ALL.iter().find(|k| k.ros_type() == ros_type)?;
    Some(match kind {
        MsgKind::NavSatFix => units[0],
        MsgKind::Imu => units[1],
        MsgKind::Odometry => units[2],
        MsgKind::LaserScan => units[3],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FaultSpec, MODES};

    const TYPES: [&str; 5] = [
        "sensor_msgs/msg/NavSatFix",
        "sensor_msgs/msg/Imu",
        "nav_msgs/msg/Odometry",
        "sensor_msgs/msg/LaserScan",
        TWIST,
    ];

    /// Not numbers with a unit: a flag or an enumeration.
    const UNITLESS: [&str; 4] = [
        "random_phase",
        "freeze_stamp",
        "allow_non_finite",
        "loss_model",
    ];

    #[test]
    fn every_numeric_parameter_of_every_mode_has_a_unit_on_every_type() {
        for m in MODES {
            for p in m.parameters.iter().chain(&FaultSpec::TIMING_PARAMETERS) {
                for t in TYPES {
                    let u = parameter_unit(p, t);
                    if UNITLESS.contains(p) {
                        assert_eq!(u, None, "{} {p} on {t}", m.name);
                    } else {
                        assert!(u.is_some(), "{} {p} on {t}: no unit", m.name);
                    }
                }
            }
        }
    }

    #[test]
    fn units_follow_the_quantity_the_mode_changes() {
        assert_eq!(
            parameter_unit("delay_s", "sensor_msgs/msg/LaserScan"),
            Some("s")
        );
        assert_eq!(parameter_unit("scale_factor", TWIST), Some(DIMENSIONLESS));
        assert_eq!(parameter_unit("bias", "sensor_msgs/msg/Imu"), Some("rad/s"));
        assert_eq!(parameter_unit("bias", "nav_msgs/msg/Odometry"), Some("m/s"));
        assert_eq!(
            parameter_unit("bias_rate", "sensor_msgs/msg/NavSatFix"),
            Some("m/s")
        );
        assert_eq!(
            parameter_unit("bias_rate", "sensor_msgs/msg/Imu"),
            Some("rad/s²")
        );
        assert_eq!(
            parameter_unit("burst_length", "sensor_msgs/msg/Imu"),
            Some("messages")
        );
        assert_eq!(parameter_unit("bias", "std_msgs/msg/String"), None);
        assert_eq!(parameter_unit("no_such_field", "sensor_msgs/msg/Imu"), None);
    }
}
