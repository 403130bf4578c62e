//! The one atomic writer of records, their sha256 and the scenario hash.
//!
//! Atomic write: the bytes go to a temporary file in the target's directory
//! (named per process and thread, so concurrent writers never share one),
//! which is fsynced and renamed over the target, and the directory is synced
//! after; a reader (or a resumed campaign) sees either the old file or the
//! complete new one, never a torn write.

use std::io::Write;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::RecordsError;

/// Writes `bytes` to `path` atomically (temporary file + fsync + rename),
/// creating the parent directory if needed. On any error after the
/// temporary file was created (a full disk, a failed sync or rename) the
/// temporary file is removed: a failed write leaves the directory as it was.
///
/// # Errors
/// [`RecordsError::Io`] naming the file or directory that failed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RecordsError> {
    write_atomic_with(path, bytes, |f, b| {
        f.write_all(b)?;
        f.sync_all()
    })
}

/// [`write_atomic`] with the step that fills the temporary file given:
/// `fill(file, bytes)` writes and syncs it. Tests inject a failing `fill`
/// (a full disk) through it.
fn write_atomic_with(
    path: &Path,
    bytes: &[u8],
    fill: impl FnOnce(&mut std::fs::File, &[u8]) -> std::io::Result<()>,
) -> Result<(), RecordsError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| RecordsError::io(dir, e))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(
        format!(
            ".{name}.tmp.{}.{:?}",
            std::process::id(),
            std::thread::current().id()
        )
        .replace(['(', ')'], ""),
    );
    let mut f = std::fs::File::create(&tmp).map_err(|e| RecordsError::io(&tmp, e))?;
    let filled = fill(&mut f, bytes);
    drop(f);
    let done = match filled {
        Ok(()) => std::fs::rename(&tmp, path).map_err(|e| RecordsError::io(path, e)),
        Err(e) => Err(RecordsError::io(path, e)),
    };
    if done.is_err() {
        // Best effort: the error reported is the write's, not the removal's.
        let _ = std::fs::remove_file(&tmp);
        return done;
    }
    // Persist the rename itself (the directory entry).
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// Serialises `value` as pretty JSON with a final newline (the manifest and
/// summary format) and writes it atomically.
///
/// # Errors
/// [`RecordsError::Json`] if `value` does not serialise, else as [`write_atomic`].
pub fn write_json_atomic<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), RecordsError> {
    let mut bytes = serde_json::to_vec_pretty(value).map_err(|e| RecordsError::Json {
        path: path.to_path_buf(),
        source: e,
    })?;
    bytes.push(b'\n');
    write_atomic(path, &bytes)
}

/// Lowercase hex SHA-256 (FIPS 180-4) of `bytes`: 64 characters, the
/// manifest's `trace_sha256`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The scenario hash of a run, the manifest's `scenario_hash`: lowercase hex
/// SHA-256 over, for each file of `files` in order, its length in bytes as a
/// little-endian `u64` followed by its bytes. The length prefix keeps the
/// files apart (`"ab" + "c"` and `"a" + "bc"` hash differently).
///
/// The campaign hashes the scenario file, then the world, robot and
/// navigator files it names; the oracle node hashes its world file, then
/// every `--params-file` in command-line order.
///
/// # Errors
/// [`RecordsError::Io`] naming the first file that cannot be read.
pub fn scenario_hash(files: &[&Path]) -> Result<String, RecordsError> {
    let mut h = Sha256::new();
    for f in files {
        let bytes = std::fs::read(f).map_err(|e| RecordsError::io(f, e))?;
        h.update((bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(hex(&h.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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

    /// A write that fails half-way (ENOSPC after some bytes, as on a full
    /// disk) reports the target file with the OS error, keeps the old file
    /// and leaves no temporary file behind.
    #[test]
    fn failed_write_removes_its_temporary_and_keeps_the_old_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("traces/run_000.csv");
        write_atomic(&p, b"old trace").unwrap();
        let e = write_atomic_with(&p, b"new trace, longer", |f, b| {
            f.write_all(&b[..4])?;
            Err(std::io::Error::from_raw_os_error(28)) // ENOSPC
        })
        .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("traces/run_000.csv"), "{text}");
        assert!(
            std::error::Error::source(&e)
                .is_some_and(|s| s.to_string().contains("No space left on device")),
            "{text}"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"old trace");
        let names: Vec<_> = std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("run_000.csv")]);
    }

    /// A rename that fails (the target is a non-empty directory) removes the
    /// temporary file too.
    #[test]
    fn failed_rename_removes_its_temporary() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("x.json");
        std::fs::create_dir_all(p.join("inside")).unwrap();
        assert!(write_atomic(&p, b"bytes").is_err());
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("x.json")]);
    }

    #[test]
    fn sha256_matches_the_fips_example() {
        // sha256("abc") (FIPS 180-2, appendix B.1).
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn scenario_hash_prefixes_each_file_with_its_length() {
        let d = tempfile::tempdir().unwrap();
        let (a, b) = (d.path().join("a"), d.path().join("b"));
        std::fs::write(&a, "ab").unwrap();
        std::fs::write(&b, "c").unwrap();
        // Python: hashlib.sha256((2).to_bytes(8, 'little') + b'ab'
        //                        + (1).to_bytes(8, 'little') + b'c').hexdigest()
        assert_eq!(
            scenario_hash(&[&a, &b]).unwrap(),
            "43ee655579de01ca739b3f95c1c2d3f46d353b2c0df818064ea594506cdb2617"
        );
        std::fs::write(&a, "a").unwrap();
        std::fs::write(&b, "bc").unwrap();
        assert_ne!(
            scenario_hash(&[&a, &b]).unwrap(),
            "43ee655579de01ca739b3f95c1c2d3f46d353b2c0df818064ea594506cdb2617"
        );
        let missing = d.path().join("missing.yaml");
        let e = scenario_hash(&[&a, &missing]).unwrap_err();
        assert!(e.to_string().contains("missing.yaml"), "{e}");
    }
}
