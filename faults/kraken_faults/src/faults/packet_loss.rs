//! `packet_loss`: whole messages withheld by a loss model.

use std::time::Duration;

use kraken_interfaces::FaultSpec;
use rand::RngExt;

use super::*;
use crate::field::stack::LossModelName;
use crate::params::{invalid, probability, Target};
use crate::{FaultError, FaultRng, SensorMsg};

/// The loss pattern of [`PacketLoss`].
#[derive(Debug, Clone, PartialEq)]
pub enum LossModel {
    /// Each message lost independently with probability `p`.
    Bernoulli { p: f64 },
    /// With probability `p` a message starts a burst: it and the next
    /// `burst_length - 1` messages are lost.
    Burst { p: f64, burst_length: u32 },
    /// Gilbert-Elliott two-state Markov chain (Gilbert 1960, Elliott 1963),
    /// in its simple form: every message is lost in the bad state and none in
    /// the good one. Per message the state moves good→bad with probability
    /// `p` and bad→good with probability `r`, then the message is judged by
    /// the new state. Stationary loss rate p / (p + r); mean burst 1 / r.
    GilbertElliott { p: f64, r: f64 },
}

/// `packet_loss` (REQ-FAULT-PACKET-LOSS): whole messages withheld per
/// [`LossModel`]; delivered messages pass unchanged. All channel types.
#[derive(Debug, Clone)]
pub struct PacketLoss {
    pub model: LossModel,
    /// Messages still to lose in the current burst.
    pub burst_left: u32,
    /// Gilbert-Elliott: currently in the bad state.
    pub bad: bool,
}

impl PacketLoss {
    /// `loss_probability` (and Gilbert-Elliott `recovery_probability`, > 0)
    /// in [0, 1]; burst: `burst_length` >= 1; `loss_model` a LOSS_* constant.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] naming the field and its bound.
    pub fn from_spec(spec: &FaultSpec, _t: Target) -> Result<Self, FaultError> {
        let m = spec.mode;
        let p = probability(m, "loss_probability", spec.loss_probability)?;
        let model = match spec.loss_model {
            FaultSpec::LOSS_BERNOULLI => LossModel::Bernoulli { p },
            FaultSpec::LOSS_BURST => {
                if spec.burst_length == 0 {
                    return Err(invalid(m, "burst_length", 0.0, "must be >= 1"));
                }
                LossModel::Burst {
                    p,
                    burst_length: spec.burst_length,
                }
            }
            FaultSpec::LOSS_GILBERT_ELLIOTT => {
                let r = probability(m, "recovery_probability", spec.recovery_probability)?;
                if r == 0.0 {
                    return Err(invalid(
                        m,
                        "recovery_probability",
                        r,
                        "must be > 0 (0 never recovers: use dropout)",
                    ));
                }
                LossModel::GilbertElliott { p, r }
            }
            other => {
                return Err(invalid(
                    m,
                    "loss_model",
                    other as f64,
                    "must be a LOSS_* constant (0, 1, 2)",
                ))
            }
        };
        Ok(Self::new(model))
    }
    /// A stage in the good state with no burst running.
    pub fn new(model: LossModel) -> Self {
        Self {
            model,
            burst_left: 0,
            bad: false,
        }
    }
    /// Whether the next message is lost (the model's draws, state
    /// updated). The one decision of the typed mode and of the fault
    /// stack's `loss` stage (REQ-FAULT-STACK), for any payload.
    pub fn lose(&mut self, rng: &mut FaultRng) -> bool {
        match self.model {
            LossModel::Bernoulli { p } => rng.random_bool(p),
            LossModel::Burst { p, burst_length } => {
                if self.burst_left == 0 && rng.random_bool(p) {
                    self.burst_left = burst_length;
                }
                if self.burst_left > 0 {
                    self.burst_left -= 1;
                    true
                } else {
                    false
                }
            }
            LossModel::GilbertElliott { p, r } => {
                self.bad = if self.bad {
                    !rng.random_bool(r)
                } else {
                    rng.random_bool(p)
                };
                self.bad
            }
        }
    }
}

impl FaultStage for PacketLoss {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        if self.lose(rng) {
            Vec::new()
        } else {
            now_only(msg)
        }
    }
}

/// The loss stage of the any-type engine for `spec` ([`AnyType::Delivery`]).
/// Errors: a `loss_model` that is none of the three.
fn loss_stage(spec: &FaultSpec) -> Result<StageFault, FaultError> {
    let model = match spec.loss_model {
        FaultSpec::LOSS_BERNOULLI => LossModelName::Bernoulli,
        FaultSpec::LOSS_BURST => LossModelName::Burst,
        FaultSpec::LOSS_GILBERT_ELLIOTT => LossModelName::GilbertElliott,
        other => {
            return Err(invalid(
                spec.mode,
                "loss_model",
                f64::from(other),
                "must be LOSS_BERNOULLI (0), LOSS_BURST (1) or LOSS_GILBERT_ELLIOTT (2)",
            ))
        }
    };
    Ok(StageFault::Loss {
        model,
        loss_probability: spec.loss_probability,
        burst_length: spec.burst_length,
        recovery_probability: spec.recovery_probability,
    })
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::PACKET_LOSS,
    build: |spec, t| Ok(Box::new(PacketLoss::from_spec(spec, t)?)),
    probe: None,
    any_type: AnyType::Delivery(loss_stage),
    changes: |_| &[DELIVERY],
}];

#[cfg(test)]
mod tests {
    use crate::test_common::*;
    use crate::SensorMsg;
    use kraken_interfaces::FaultSpec;

    fn loss_rate(spec: FaultSpec, n: u64, seed: u64) -> f64 {
        let mut c = imu_channel(spec);
        let mut r = rng(seed);
        let mut out = 0u64;
        for k in 0..n {
            out += step(&mut c, SensorMsg::Imu(imu(ms(k))), ms(k), &mut r).len() as u64;
        }
        1.0 - out as f64 / n as f64
    }

    /// Gilbert-Elliott p = 0.05, r = 0.2: stationary loss p/(p+r) = 0.2. With
    /// lag-1 correlation 1-p-r = 0.75 the variance of the mean is inflated by
    /// (1+0.75)/(1-0.75) = 7: s.e. = sqrt(0.2*0.8*7/200000) = 0.0024; tolerance
    /// 0.01 (about 4 s.e.), seed 11.
    #[test]
    fn gilbert_elliott_long_run_rate_is_stationary_probability() {
        let spec = FaultSpec {
            loss_model: FaultSpec::LOSS_GILBERT_ELLIOTT,
            loss_probability: 0.05,
            recovery_probability: 0.2,
            ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
        };
        let rate = loss_rate(spec, 200_000, 11);
        assert!((rate - 0.2).abs() < 0.01, "loss rate {rate}");
    }

    /// Bernoulli 0.3: s.e. sqrt(0.21/100000) = 0.0014; tolerance 0.006.
    /// Burst p = 0.02, length 5: each delivered message starts a burst with
    /// probability p, so (1-p)/p = 49 delivered per 5 lost: 5/54 = 0.0926.
    #[test]
    fn bernoulli_and_burst_loss_rates() {
        let b = loss_rate(
            FaultSpec {
                loss_probability: 0.3,
                ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
            },
            100_000,
            5,
        );
        assert!((b - 0.3).abs() < 0.006, "bernoulli {b}");
        let spec = FaultSpec {
            loss_model: FaultSpec::LOSS_BURST,
            loss_probability: 0.02,
            burst_length: 5,
            ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
        };
        let burst = loss_rate(spec, 100_000, 5);
        assert!((burst - 5.0 / 54.0).abs() < 0.01, "burst {burst}");
    }

    /// Bursts really are bursts: every run of lost messages has length 5 (a
    /// burst can start right after another one ends, giving 10, 15, ...).
    #[test]
    fn burst_runs_are_multiples_of_burst_length() {
        let mut c = imu_channel(FaultSpec {
            loss_model: FaultSpec::LOSS_BURST,
            loss_probability: 0.05,
            burst_length: 5,
            ..FaultSpec::new("imu", FaultSpec::PACKET_LOSS)
        });
        let mut r = rng(2);
        let mut run = 0;
        let mut runs = Vec::new();
        for k in 0..20_000 {
            if step(&mut c, SensorMsg::Imu(imu(ms(k))), ms(k), &mut r).is_empty() {
                run += 1;
            } else if run > 0 {
                runs.push(run);
                run = 0;
            }
        }
        assert!(runs.len() > 100, "{} bursts", runs.len());
        assert!(runs.iter().all(|n| n % 5 == 0), "{runs:?}");
    }
}
