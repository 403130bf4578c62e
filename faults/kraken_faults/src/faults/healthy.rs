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
    any_type: AnyType::NoStage,
    changes: |_| &[],
}];

#[cfg(test)]
mod tests {

    use crate::test_common::*;
    use crate::{MsgKind, SensorMsg};
    use kraken_interfaces::FaultSpec;

    // Golden values: exact delivered values, derived by hand in the comments.
    /// healthy and "no fault" are bit-exact on every channel type, NaN payloads
    /// included (compared by to_bits).
    #[test]
    fn healthy_is_bit_exact_for_every_type() {
        let mut inj = shipped();
        let mut r = rng(3);
        inj.set_fault(&FaultSpec::new("scan", FaultSpec::HEALTHY), ms(0))
            .unwrap();
        let names: Vec<(String, MsgKind)> = inj
            .channels()
            .iter()
            .map(|c| (c.name().to_string(), c.kind()))
            .collect();
        for k in 0..20u64 {
            let t = ms(50 * k);
            for (name, kind) in &names {
                let m = msg_for(*kind, t);
                inj.push(name, m.clone(), t, &mut r).unwrap();
                let out = inj.poll(name, t).unwrap();
                assert_eq!(out.len(), 1);
                assert_eq!(bits(&out[0]), bits(&m), "{name} at {t:?}");
            }
        }
        // The NaN payload survived (0x7fc01234, not the canonical 0x7fc00000).
        let SensorMsg::LaserScan(s) = msg_for(MsgKind::LaserScan, ms(0)) else {
            panic!()
        };
        assert_eq!(s.ranges[4].to_bits(), 0x7fc0_1234);
        for c in inj.channels() {
            assert_eq!(c.stats().messages_faulted, 0);
            assert_eq!(c.stats().messages_in, 20);
            assert_eq!(c.stats().messages_out, 20);
        }
    }
}
