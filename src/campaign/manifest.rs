//! The per-run manifest. The type lives in `breakbench_oracle::manifest`, so
//! that the in-process campaign and the live `oracle` node write the same format.

pub use breakbench_oracle::manifest::*;
