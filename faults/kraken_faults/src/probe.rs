//! Probes: what a channel delivered, one small measurer per quantity.
//!
//! A [`Channel`](crate::Channel) calls every probe it carries at the apply
//! site: [`Probe::on_apply`] for each (input, output) pair an active fault
//! produces, [`Probe::on_release`] for each message it releases. A probe
//! reduces what it saw to one number ([`Probe::value`]), e.g. the mean
//! delivered latency of a delay fault or the delivered scale of a scale fault.

use crate::SensorMsg;

/// One measured quantity of a channel's delivered stream.
pub trait Probe: Send {
    /// Name of the quantity (e.g. `mean_latency_s`), as recorded in manifests.
    fn name(&self) -> &'static str;
    /// An active fault turned `input` into `output` (one call per output).
    fn on_apply(&mut self, _input: &SensorMsg, _output: &SensorMsg) {}
    /// A message was released `latency_s` seconds after it was received.
    fn on_release(&mut self, _latency_s: f64) {}
    /// The measurement, or `None` when nothing qualified yet.
    fn value(&self) -> Option<f64>;
}

/// Mean release latency (release time - receive time) over every released
/// message, seconds: `mean_latency_s`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatencyProbe {
    sum_s: f64,
    n: u64,
}

impl Probe for LatencyProbe {
    fn name(&self) -> &'static str {
        "mean_latency_s"
    }
    fn on_release(&mut self, latency_s: f64) {
        self.sum_s += latency_s;
        self.n += 1;
    }
    fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_s / self.n as f64)
    }
}

/// Odometry: mean of `out_x / in_x` (pose position x) over the outputs of an
/// active fault whose input had `|x| >= 1e-3` m (smaller inputs would make
/// the ratio noise): `mean_ratio_x`. Other message types are not counted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RatioXProbe {
    sum: f64,
    n: u64,
}

impl Probe for RatioXProbe {
    fn name(&self) -> &'static str {
        "mean_ratio_x"
    }
    fn on_apply(&mut self, input: &SensorMsg, output: &SensorMsg) {
        if let (SensorMsg::Odometry(i), SensorMsg::Odometry(o)) = (input, output) {
            let ix = i.pose.pose.position.x;
            if ix.abs() >= 1e-3 {
                self.sum += o.pose.pose.position.x / ix;
                self.n += 1;
            }
        }
    }
    fn value(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum / self.n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kraken_interfaces::ros::Odometry;

    fn odom(x: f64) -> SensorMsg {
        let mut o = Odometry::default();
        o.pose.pose.position.x = x;
        SensorMsg::Odometry(o)
    }

    #[test]
    fn ratio_skips_tiny_inputs_and_other_types() {
        let mut p = RatioXProbe::default();
        assert_eq!(p.value(), None);
        p.on_apply(&odom(1e-4), &odom(5.0));
        assert_eq!(p.value(), None);
        p.on_apply(&odom(2.0), &odom(3.0));
        p.on_apply(&odom(-1.0), &odom(-2.0));
        assert_eq!(p.value(), Some(1.75));
    }

    #[test]
    fn latency_is_the_mean_over_releases() {
        let mut p = LatencyProbe::default();
        assert_eq!(p.value(), None);
        p.on_release(0.1);
        p.on_release(0.3);
        assert!((p.value().unwrap() - 0.2).abs() < 1e-15);
    }
}
