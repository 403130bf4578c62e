//! [`RawCdr`]: a message of any type as its serialized bytes, for
//! subscriptions and publishers of types known only at run time
//! ([`crate::RosNode::raw_subscription`], [`crate::RosNode::raw_publisher`]).
//!
//! ros2-client 0.12 hands a subscription's `DeserializeSeed` (or
//! `Deserialize`) a CDR deserializer positioned at the body (RustDDS has
//! already read the 4-byte encapsulation header), and a publisher's
//! `Serialize` a CDR serializer that writes after the header it adds. So:
//!
//! * receiving, [`RawCdr`]'s `Deserialize` reads the body as an open-ended
//!   tuple of octets until the input ends (octets have no alignment: the
//!   bytes come out exactly as they were on the wire, trailing padding
//!   included) and puts the little-endian plain-CDR header `00 01 00 00` in
//!   front, which is what `breakbench_msgs::decode` reads;
//! * publishing, its `Serialize` writes the body (the bytes after the
//!   4-byte header) as a tuple of octets: no length prefix, no padding, so
//!   the sample on the wire is the body unchanged, under RustDDS's own
//!   `CDR_LE` header.
//!
//! Limitation: the deserializer does not tell which byte order the writer
//! used; the header put in front always says little-endian. Every ROS 2 RMW
//! on x86-64 and ARM writes little-endian; a big-endian writer's samples
//! would be relabelled (and mis-decoded by a field stage).

use serde::de::{Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTuple, Serializer};

/// Encapsulation header of little-endian plain CDR.
pub const CDR_LE_HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];

/// A serialized message: the 4-byte encapsulation header, then the CDR body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawCdr(pub Vec<u8>);

impl RawCdr {
    /// The body (after the 4-byte header; empty if shorter).
    pub fn body(&self) -> &[u8] {
        self.0.get(4..).unwrap_or(&[])
    }
}

impl Serialize for RawCdr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let body = self.body();
        let mut t = s.serialize_tuple(body.len())?;
        for b in body {
            t.serialize_element(b)?;
        }
        t.end()
    }
}

struct OctetsToEnd;

impl<'de> Visitor<'de> for OctetsToEnd {
    type Value = RawCdr;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("CDR octets up to the end of the sample")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawCdr, A::Error> {
        let mut out = Vec::with_capacity(4 + seq.size_hint().unwrap_or(0).min(1 << 16));
        out.extend_from_slice(&CDR_LE_HEADER);
        // The CDR deserializer's only failure on an octet is the end of
        // its input: that ends the message.
        while let Ok(Some(b)) = seq.next_element::<u8>() {
            out.push(b);
        }
        Ok(RawCdr(out))
    }
}

impl<'de> Deserialize<'de> for RawCdr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawCdr, D::Error> {
        d.deserialize_tuple(usize::MAX, OctetsToEnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use byteorder::LittleEndian;
    use ros2_client::dds::rustdds::cdr_encoding;

    #[test]
    fn bytes_pass_through_the_cdr_codec_unchanged() {
        // An odd length and a value that would be padded if typed.
        let body: Vec<u8> = (0u8..=250).rev().collect();
        let mut raw = CDR_LE_HEADER.to_vec();
        raw.extend_from_slice(&body);
        let out = cdr_encoding::to_vec::<_, LittleEndian>(&RawCdr(raw.clone())).unwrap();
        assert_eq!(
            out, body,
            "published body = the body, no prefix, no padding"
        );
        let (back, used) = cdr_encoding::from_bytes::<RawCdr, LittleEndian>(&body).unwrap();
        assert_eq!(used, body.len());
        assert_eq!(back, RawCdr(raw));
        let (empty, _) = cdr_encoding::from_bytes::<RawCdr, LittleEndian>(&[]).unwrap();
        assert_eq!(empty.0, CDR_LE_HEADER);
        assert!(RawCdr(vec![0, 1]).body().is_empty());
    }
}
