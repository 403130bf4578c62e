//! breakbench_msgs: ROS 2 message types known at run time, so that a fault
//! can act on any topic of any message type (issue #10).
//!
//! * [`def`] (REQ-MSG-DEF): the `.msg` parser ([`def::parse_msg`]) and the
//!   definition types.
//! * [`registry`] (REQ-MSG-DEF): [`TypeRegistry`]: built-in wire contracts of
//!   std_msgs, builtin_interfaces, geometry_msgs, sensor_msgs, nav_msgs,
//!   tf2_msgs, diagnostic_msgs, rosgraph_msgs and rcl_interfaces/Log
//!   ([`TypeRegistry::builtin`]), plus `share/<pkg>/msg/*.msg` under
//!   `AMENT_PREFIX_PATH` ([`TypeRegistry::with_ament_prefix_path`]);
//!   [`TypeRegistry::resolve`] gives the [`ResolvedType`] the codec walks.
//! * [`value`]: the dynamic [`Value`].
//! * [`cdr`] (REQ-MSG-CDR): [`TypedSeed`] (a `serde::de::DeserializeSeed`
//!   for ros2-client's `take_seed`), [`TypedValue`] (`Serialize`, for a
//!   `Publisher`), [`decode`] / [`encode`] on buffers with the 4-byte
//!   encapsulation header, all on RustDDS's CDR (de)serializer.
//! * [`path`] (REQ-MSG-PATH): [`FieldPath`] (`pose.pose.position.x`,
//!   `ranges[0:90]`, …) resolved against a type into a [`Selector`] whose
//!   [`Selector::visit_mut`] hands out the selected leaves ([`LeafMut`]).
//!
//! ```
//! use breakbench_msgs::{decode, encode, FieldPath, TypeRegistry, Value};
//! let reg = TypeRegistry::builtin();
//! let ty = reg.resolve("geometry_msgs/msg/Vector3").unwrap();
//! let mut v = Value::zero(&ty);
//! let sel = FieldPath::parse("z").unwrap().resolve(&ty).unwrap();
//! sel.visit_mut(&mut v, |_ty, mut leaf| { leaf.set_f64(9.81); }).unwrap();
//! let bytes = encode(&ty, &v).unwrap();
//! assert_eq!(bytes.len(), 4 + 24);
//! assert_eq!(decode(&ty, &bytes).unwrap(), v);
//! ```

mod builtin;
pub mod cdr;
pub mod def;
mod error;
pub mod path;
pub mod registry;
pub mod value;

pub use cdr::{
    decode, decode_serde, encode, encode_serde, encode_serde_into, padding_mask,
    trailing_allowance, TypedSeed, TypedValue,
};
pub use def::{MsgDef, TypeName};
pub use error::MsgError;
pub use path::{FieldPath, LeafMut, LeafType, Selector};
pub use registry::{ResolvedType, TypeRegistry};
pub use value::Value;
