//! `packet_loss`: whole messages withheld by a loss model.

use std::time::Duration;

use kraken_interfaces::FaultSpec;
use rand::RngExt;

use super::*;
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
    fn lose(&mut self, rng: &mut FaultRng) -> bool {
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

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::PACKET_LOSS,
    build: |spec, t| Ok(Box::new(PacketLoss::from_spec(spec, t)?)),
}];
