//! [`RosNode`] (the backend's: a node from the environment and the command
//! line, and the factory of every entity) and [`Undecoded`].

pub use crate::backend::RosNode;

/// A message whose bytes are not decoded: the sample is received (it
/// counts as delivered) and nothing is read from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Undecoded;

impl<'de> serde::Deserialize<'de> for Undecoded {
    fn deserialize<D: serde::Deserializer<'de>>(_d: D) -> Result<Undecoded, D::Error> {
        Ok(Undecoded)
    }
}
