//! The trace file of a run, `traces/<run_id>.csv`: defined, written and read
//! in `breakbench_records::trace`, which the oracle node uses too.

pub use breakbench_records::trace::*;
