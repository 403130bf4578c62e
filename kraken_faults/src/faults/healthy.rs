//! `healthy`: bit-exact passthrough.

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use super::*;
use crate::{FaultRng, SensorMsg};

/// `healthy`: every message delivered at once, bit for bit.
#[derive(Debug, Clone, Default)]
pub struct Passthrough;

impl FaultStage for Passthrough {
    fn apply(
        &mut self,
        msg: SensorMsg,
        _now: Duration,
        _rng: &mut FaultRng,
    ) -> Vec<(Duration, SensorMsg)> {
        now_only(msg)
    }
}

/// The modes this file implements (collected by `build.rs` into [`super::build_stage`]).
pub(super) const MODES: &[Registration] = &[Registration {
    mode: FaultSpec::HEALTHY,
    build: |spec, t| {
        Ok(Box::new({
            let _ = (spec, t);
            Passthrough
        }))
    },
    probe: None,
    changes: |_| &[],
}];
