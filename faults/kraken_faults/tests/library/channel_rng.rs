//! Per-channel fault random streams: stable ids, independent sequences.

use kraken_faults::{channel_rng, channel_stream};
use rand::Rng;

#[test]
fn channel_streams_are_fnv1a_of_the_name() {
    // FNV-1a 64 reference vectors: "" is the offset basis, "a" and "foobar"
    // from the FNV reference test suite.
    assert_eq!(channel_stream(""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(channel_stream("a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(channel_stream("foobar"), 0x8594_4171_f739_67e8);
    assert_ne!(channel_stream("scan"), channel_stream("odom"));
}

#[test]
fn each_channel_has_its_own_reproducible_sequence() {
    let draws = |seed, name| {
        let mut r = channel_rng(seed, name);
        (0..4).map(|_| r.next_u64()).collect::<Vec<_>>()
    };
    assert_eq!(draws(7, "scan"), draws(7, "scan"));
    assert_ne!(draws(7, "scan"), draws(7, "odom"));
    assert_ne!(draws(7, "scan"), draws(8, "scan"));
}
