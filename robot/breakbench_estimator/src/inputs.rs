//! The estimator's inputs as one type, and the order a node fuses them in.
//!
//! Under simulated time a message can reach a node before the `/clock` tick
//! of its own instant: `/clock` and the sensor topics are separate DDS
//! topics with no ordering between them. Fused at the node's clock then, a
//! message stamped one step ahead would be clamped back to the previous
//! instant (`time.future_tolerance_s`), which the in-process run, where a
//! message is delivered at its own instant, never does. [`HeldInputs`]
//! holds such a message until the clock reaches its stamp and hands out the
//! due ones in the in-process order: by stamp, then wheel odometry, IMU,
//! GNSS (the order of `breakbench_navigator`'s `STACK_INPUTS`), then arrival.

use kraken_interfaces::ros::{Imu, NavSatFix, Odometry, Time};

use crate::estimator::{EnuConversion, Estimator, Fused, Sensor};
use crate::guards::RejectReason;

/// One estimator input.
// Odometry is large and inputs arrive at 20-50 Hz: moved once, not boxed.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    /// `nav_msgs/Odometry` from the wheels (its twist is fused).
    WheelOdom(Odometry),
    /// `sensor_msgs/Imu` (its yaw rate is fused).
    Imu(Imu),
    /// `sensor_msgs/NavSatFix` (its position, converted to ENU, is fused).
    Gnss(NavSatFix),
}

impl Input {
    /// The sensor the input comes from.
    pub fn sensor(&self) -> Sensor {
        match self {
            Input::WheelOdom(_) => Sensor::WheelOdom,
            Input::Imu(_) => Sensor::Imu,
            Input::Gnss(_) => Sensor::Gnss,
        }
    }
    /// `header.stamp`.
    pub fn stamp(&self) -> Time {
        match self {
            Input::WheelOdom(m) => m.header.stamp,
            Input::Imu(m) => m.header.stamp,
            Input::Gnss(m) => m.header.stamp,
        }
    }
}

impl Estimator {
    /// Fuses `input` received at `now` with the method of its sensor
    /// ([`Estimator::fuse_wheel_odom`], [`Estimator::fuse_imu`],
    /// [`Estimator::fuse_navsat`] with `to_enu`).
    ///
    /// # Errors
    /// The [`RejectReason`] it was refused with (also counted and logged).
    pub fn fuse(
        &mut self,
        input: &Input,
        now: Time,
        to_enu: &dyn EnuConversion,
    ) -> Result<Fused, RejectReason> {
        match input {
            Input::WheelOdom(m) => self.fuse_wheel_odom(m, now),
            Input::Imu(m) => self.fuse_imu(m, now),
            Input::Gnss(m) => self.fuse_navsat(m, now, to_enu),
        }
    }
}

/// Inputs held until the node's clock reaches their stamp (see the module
/// docs).
#[derive(Debug, Clone, Default)]
pub struct HeldInputs {
    held: Vec<(i64, Sensor, u64, Input)>,
    seq: u64,
}

impl HeldInputs {
    /// Holds `input` (arrival order is remembered).
    pub fn push(&mut self, input: Input) {
        self.seq += 1;
        self.held
            .push((input.stamp().as_nanos(), input.sensor(), self.seq, input));
    }

    /// Number of inputs held.
    pub fn len(&self) -> usize {
        self.held.len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    /// Takes the inputs due at `now_ns`, in fusion order (stamp, then
    /// wheel odometry, IMU, GNSS, then arrival): a stamp at or before
    /// `now_ns`, a stamp of 0 (a driver without a clock) and a stamp more
    /// than `future_tolerance_ns` ahead (the estimator's own future-stamp
    /// rule applies to it; holding it would delay it without bound). A stamp
    /// ahead by at most the tolerance stays held.
    pub fn take_due(&mut self, now_ns: i64, future_tolerance_ns: i64) -> Vec<Input> {
        let (mut due, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|(t, ..)| *t <= now_ns || *t == 0 || *t > now_ns + future_tolerance_ns);
        self.held = keep;
        due.sort_by_key(|(t, s, q, _)| (*t, *s, *q));
        due.into_iter().map(|(.., i)| i).collect()
    }

    /// Takes every held input in fusion order (e.g. when the clock has not
    /// moved for long: the estimator then clamps their stamps to its `now`).
    pub fn take_all(&mut self) -> Vec<Input> {
        self.take_due(i64::MAX, 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn odom(ns: i64) -> Input {
        let mut m = Odometry::default();
        m.header.stamp = Time::from_nanos(ns);
        Input::WheelOdom(m)
    }
    fn imu(ns: i64) -> Input {
        let mut m = Imu::default();
        m.header.stamp = Time::from_nanos(ns);
        Input::Imu(m)
    }
    fn fix(ns: i64) -> Input {
        let mut m = NavSatFix::default();
        m.header.stamp = Time::from_nanos(ns);
        Input::Gnss(m)
    }
    fn stamps(v: &[Input]) -> Vec<(i64, Sensor)> {
        v.iter()
            .map(|i| (i.stamp().as_nanos(), i.sensor()))
            .collect()
    }

    const MS: i64 = 1_000_000;

    #[test]
    fn holds_until_the_clock_reaches_the_stamp_and_orders_like_in_process() {
        let mut h = HeldInputs::default();
        // Arrival order: GNSS and IMU of 40 ms before the wheel odometry of
        // 40 ms, one 20 ms message, all while the clock reads 20 ms.
        h.push(fix(40 * MS));
        h.push(imu(40 * MS));
        h.push(odom(40 * MS));
        h.push(imu(20 * MS));
        let tol = 100 * MS;
        assert_eq!(
            stamps(&h.take_due(20 * MS, tol)),
            vec![(20 * MS, Sensor::Imu)]
        );
        assert_eq!(h.len(), 3, "the 40 ms inputs wait for their clock tick");
        assert!(h.take_due(39 * MS, tol).is_empty());
        assert_eq!(
            stamps(&h.take_due(40 * MS, tol)),
            vec![
                (40 * MS, Sensor::WheelOdom),
                (40 * MS, Sensor::Imu),
                (40 * MS, Sensor::Gnss)
            ]
        );
        assert!(h.is_empty());
        // Stamp 0 and a stamp beyond the tolerance are not held.
        h.push(odom(0));
        h.push(imu(500 * MS));
        h.push(fix(100 * MS));
        assert_eq!(
            stamps(&h.take_due(40 * MS, tol)),
            vec![(0, Sensor::WheelOdom), (500 * MS, Sensor::Imu)]
        );
        assert_eq!(stamps(&h.take_all()), vec![(100 * MS, Sensor::Gnss)]);
    }
}
