//! The timing family: `delay`, `jitter`, `duplicate` and `reorder` change when (and how often) a message is delivered, never its content.

use std::time::Duration;

use kraken_interfaces::FaultSpec;
use rand::RngExt;

use super::*;
use crate::params::{bounded_secs, probability, Target, MAX_HOLD_S};
use crate::{FaultError, FaultRng, SensorMsg};

/// `delay`: every message held `delay` through the channel's queue of past
/// messages (the message itself is not recomputed or restamped), as REQ-FAULT-DELAY
/// ("Usterki czasu") requires.
#[derive(Debug, Clone)]
pub struct Delay {
    pub delay: Duration,
}

impl Delay {
    /// `delay_s` in [0, [`MAX_HOLD_S`]] s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            delay: bounded_secs(spec.mode, "delay_s", spec.delay_s, MAX_HOLD_S)?,
        })
    }
}

impl FaultStage for Delay {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        vec![(self.delay, msg)]
    }
    fn is_identity(&self) -> bool {
        self.delay.is_zero()
    }
}

/// `jitter` (REQ-FAULT-TIMING): each message held a seeded uniform
/// time in [0, `jitter_s`] through the channel's queue; content and stamp
/// unchanged. Messages whose delays cross are delivered out of order, as on a
/// jittery link. All channel types.
#[derive(Debug, Clone)]
pub struct Jitter {
    pub max: Duration,
}

impl Jitter {
    /// `jitter_s` in [0, [`MAX_HOLD_S`]] s.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            max: bounded_secs(spec.mode, "jitter_s", spec.jitter_s, MAX_HOLD_S)?,
        })
    }
}

impl FaultStage for Jitter {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        vec![(self.draw(rng), msg)]
    }
}

impl Jitter {
    /// The hold of one message: a seeded uniform time in [0, `max`] s (one
    /// draw). The one decision of the typed mode and of the fault stack's
    /// `jitter` stage (REQ-FAULT-STACK), for any payload.
    pub fn draw(&self, rng: &mut FaultRng) -> Duration {
        Duration::from_secs_f64(rng.random_range(0.0..=self.max.as_secs_f64()))
    }
}

/// `duplicate`: with probability `probability` the message is delivered
/// twice, back to back, identical (same stamp). All channel types.
#[derive(Debug, Clone)]
pub struct Duplicate {
    pub probability: f64,
}

impl Duplicate {
    /// `probability` in [0, 1].
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming `probability`.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            probability: probability(spec.mode, "probability", spec.probability)?,
        })
    }
}

impl Duplicate {
    /// Whether this message is duplicated: one draw with `probability`
    /// (none at 1). The one decision of the typed mode and of the fault
    /// stack's `duplicate` stage (REQ-FAULT-STACK), for any payload.
    pub fn fires(&self, rng: &mut FaultRng) -> bool {
        rng.random_bool(self.probability)
    }
}

impl FaultStage for Duplicate {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if self.fires(rng) {
            vec![(Duration::ZERO, msg.clone()), (Duration::ZERO, msg)]
        } else {
            now_only(msg)
        }
    }
}

/// `reorder`: with probability `probability` a message is held back and
/// delivered right after the next message (a swapped pair); content and
/// stamps unchanged. A held message waits for the next arrival. All channel
/// types. Generic over what it holds: `T = SensorMsg` for the typed mode,
/// any payload for the fault stack's `reorder` stage (REQ-FAULT-STACK), the
/// same decisions and draws ([`Reorder::step`]).
#[derive(Debug, Clone)]
pub struct Reorder<T = SensorMsg> {
    pub probability: f64,
    pub held: Option<T>,
}

impl<T> Reorder<T> {
    /// `probability` in [0, 1].
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming `probability`.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        Ok(Self {
            probability: probability(spec.mode, "probability", spec.probability)?,
            held: None,
        })
    }

    /// One arrival: with a message held, `[item, held]` (no draw);
    /// otherwise one draw: held (`[]`) with `probability`, else `[item]`.
    pub fn step(&mut self, item: T, rng: &mut FaultRng) -> Vec<T> {
        if let Some(h) = self.held.take() {
            return vec![item, h];
        }
        if rng.random_bool(self.probability) {
            self.held = Some(item);
            Vec::new()
        } else {
            vec![item]
        }
    }
}

impl FaultStage for Reorder<SensorMsg> {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        self.step(msg, rng)
            .into_iter()
            .map(|m| (Duration::ZERO, m))
            .collect()
    }
    fn take_held(&mut self) -> Option<SensorMsg> {
        self.held.take()
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[
    Registration {
        mode: FaultSpec::DELAY,
        build: |spec, t| Ok(Box::new(Delay::from_spec(spec, t)?)),
        probe: Some(|| Box::new(crate::LatencyProbe::default())),
        any_type: AnyType::Delivery(|spec| Ok(StageFault::Delay { delay_s: spec.delay_s })),
        changes: |_| &[DELIVERY],
    },
    Registration {
        mode: FaultSpec::JITTER,
        build: |spec, t| Ok(Box::new(Jitter::from_spec(spec, t)?)),
        probe: None,
        any_type: AnyType::Delivery(|spec| Ok(StageFault::Jitter { jitter_s: spec.jitter_s })),
        changes: |_| &[DELIVERY],
    },
    Registration {
        mode: FaultSpec::DUPLICATE,
        build: |spec, t| Ok(Box::new(Duplicate::from_spec(spec, t)?)),
        probe: None,
        any_type: AnyType::Delivery(|spec| Ok(StageFault::Duplicate {
            copies: 1,
            probability: spec.probability,
        })),
        changes: |_| &[DELIVERY],
    },
    Registration {
        mode: FaultSpec::REORDER,
        build: |spec, t| Ok(Box::new(Reorder::<SensorMsg>::from_spec(spec, t)?)),
        probe: None,
        any_type: AnyType::Delivery(|spec| Ok(StageFault::Reorder {
            probability: spec.probability,
        })),
        changes: |_| &[DELIVERY],
    },
];

#[cfg(test)]
mod tests {
    use crate::{Channel, MsgKind, SensorMsg};
    use crate::test_common::*;
    use kraken_interfaces::FaultSpec;

    /// Timing modes: duplicate (p = 1) doubles, reorder (p = 1 on the first)
    /// swaps a pair, jitter stays in [0, jitter_s].
    #[test]
    fn timing_modes() {
        let mut r = rng(1);
        let mut c = imu_channel(FaultSpec {
            probability: 1.0,
            ..FaultSpec::new("imu", FaultSpec::DUPLICATE)
        });
        assert_eq!(
            step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).len(),
            2
        );

        let mut c = imu_channel(FaultSpec {
            probability: 1.0,
            ..FaultSpec::new("imu", FaultSpec::REORDER)
        });
        assert!(step(&mut c, SensorMsg::Imu(imu(ms(0))), ms(0), &mut r).is_empty());
        let pair = step(&mut c, SensorMsg::Imu(imu(ms(10))), ms(10), &mut r);
        assert_eq!(
            pair.iter().map(|m| m.header().stamp).collect::<Vec<_>>(),
            vec![stamp(ms(10)), stamp(ms(0))]
        );

        let mut c = imu_channel(FaultSpec {
            jitter_s: 0.05,
            ..FaultSpec::new("imu", FaultSpec::JITTER)
        });
        // 1 kHz stream, polled every 1 ms: latency = release time rounded up to
        // the next millisecond, so at most 50 ms; 200 uniform draws in [0, 50] ms
        // make a max below 30 ms vanishingly unlikely (0.6^200).
        let mut got = 0;
        for k in 0..260u64 {
            if k < 200 {
                c.push(SensorMsg::Imu(imu(ms(k))), ms(k), &mut r);
            }
            got += c.poll(ms(k)).len();
        }
        assert_eq!(got, 200);
        let max = c.stats().latency_max_s;
        assert!(max <= 0.05 + 1e-9 && max > 0.03, "{max}");
    }

    // Golden values: exact delivered values, derived by hand in the comments.
    /// delay 0.4 s on a 10 Hz stream: message k (stamp k*0.1 s) is released at
    /// exactly k*0.1 + 0.4 s, one per poll, in stamp order, content unchanged.
    #[test]
    fn delay_holds_every_message_exactly_0_4_s_in_order() {
        let mut c = Channel::new("scan", MsgKind::LaserScan);
        let mut r = rng(1);
        c.set_fault(
            &FaultSpec {
                delay_s: 0.4,
                ..FaultSpec::new("scan", FaultSpec::DELAY)
            },
            ms(0),
        )
        .unwrap();
        let mut delivered = Vec::new();
        for k in 0..100u64 {
            let t = ms(100 * k);
            c.push(SensorMsg::LaserScan(scan(t)), t, &mut r);
            for m in c.poll(t) {
                delivered.push((t, m));
            }
        }
        // Messages 0..=95 are out by t = 9.9 s; 96..99 are still queued.
        assert_eq!(delivered.len(), 96);
        assert_eq!(c.queued(), 4);
        for (k, (t, m)) in delivered.iter().enumerate() {
            let sent = ms(100 * k as u64);
            assert_eq!(m.header().stamp, stamp(sent), "order");
            assert_eq!(*t - sent, ms(400), "message {k} released at {t:?}");
            assert_eq!(bits(m), bits(&SensorMsg::LaserScan(scan(sent))));
        }
        // The mean is a float sum of 96 x 0.4: equal to 0.4 up to rounding.
        assert!((c.stats().mean_latency_s().unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(c.stats().latency_max_s, 0.4);
    }
}
