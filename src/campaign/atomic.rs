//! Atomic file writes: write to a temporary file in the same directory,
//! fsync, then rename over the target, so a reader (or a resumed campaign)
//! sees either the old file or the complete new one, never a torn write.

use std::io::Write;
use std::path::Path;

use super::CampaignError;

/// Writes `bytes` to `path` atomically (temporary file + fsync + rename).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), CampaignError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| CampaignError::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Unique per process and thread: concurrent writers never share a temporary.
    let tmp = dir.join(
        format!(
            ".{name}.tmp.{}.{:?}",
            std::process::id(),
            std::thread::current().id()
        )
        .replace(['(', ')'], ""),
    );
    let mut f = std::fs::File::create(&tmp).map_err(|e| CampaignError::io(&tmp, e))?;
    f.write_all(bytes).map_err(|e| CampaignError::io(&tmp, e))?;
    f.sync_all().map_err(|e| CampaignError::io(&tmp, e))?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(|e| CampaignError::io(path, e))?;
    // Persist the rename itself (the directory entry).
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Serialises `value` as pretty JSON (with a final newline) and writes it atomically.
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), CampaignError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| CampaignError::Json {
        path: path.display().to_string(),
        source: e,
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_file_and_leaves_no_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("sub/x.json");
        write_atomic(&p, b"first version, long").unwrap();
        write_atomic(&p, b"second").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"second");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x.json")]);
    }
}
