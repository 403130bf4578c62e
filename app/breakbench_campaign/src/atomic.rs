//! Atomic file writes for the campaign's outputs, through the one writer of
//! records ([`breakbench_records::write_atomic`]: temporary file in the same
//! directory, fsync, rename), with its errors as [`CampaignError`]s.

use std::path::Path;

use super::CampaignError;

/// Writes `bytes` to `path` atomically (temporary file + fsync + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CampaignError> {
    Ok(breakbench_records::write_atomic(path, bytes)?)
}

/// Serialises `value` as pretty JSON (with a final newline) and writes it atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), CampaignError> {
    Ok(breakbench_records::write_json_atomic(path, value)?)
}
