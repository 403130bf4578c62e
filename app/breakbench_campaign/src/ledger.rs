//! The evidence ledger of a campaign directory, `<out>/manifests.sha256`,
//! and the one check of a stored run's evidence that resume, `analyze` and
//! `merge` apply before they trust a manifest (REQ-CAMPAIGN-EVIDENCE).
//!
//! Format: the output of `sha256sum` (so `cd <out> && sha256sum -c
//! manifests.sha256` checks it without Breakbench): one line per manifest,
//! `<64 lowercase hex digits>  manifests/<run_id>.json\n`. The campaign
//! appends a line (with fsync) right after each manifest's atomic write; a
//! run written again (an invalid graph run, another build) appends a new
//! line, and the last line of a run wins. When the campaign (or one shard)
//! finishes, the ledger is rewritten atomically with one line per planned
//! run in plan order.
//!
//! Interruption (SIGINT, SIGKILL, power loss) between a manifest's write and
//! its ledger line leaves a manifest without a line: resume runs that run
//! again (nothing is lost or counted twice), `analyze` refuses it. A last
//! line without its `\n` is an append cut short and is ignored likewise.
//!
//! The manifest holds the sha256 of its trace (`trace_sha256`), of its
//! provenance record (`provenance_sha256`, when recorded) and of its MCAP
//! recording (`recording_sha256`, when recorded): a manifest whose bytes
//! match the ledger vouches for its evidence files.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use breakbench_records::sha256_hex;
use serde_json::Value;

use super::atomic::write_atomic;
use super::manifest::Manifest;
use super::CampaignError;

/// File name of the ledger in a campaign directory.
pub const LEDGER_FILE: &str = "manifests.sha256";

/// The ledger's path in campaign directory `out`.
pub fn ledger_path(out: &Path) -> PathBuf {
    out.join(LEDGER_FILE)
}

/// The ledger line of run `run_id` whose manifest has the bytes `bytes`.
fn line(run_id: &str, bytes: &[u8]) -> String {
    format!("{}  manifests/{run_id}.json\n", sha256_hex(bytes))
}

/// Reads the ledger of `out`: run id → sha256 of its manifest's bytes (the
/// last line of a run wins). No ledger file: an empty map.
///
/// # Errors
/// [`CampaignError::Evidence`] naming the file and line of a complete line
/// that is not `<64 hex>  manifests/<run_id>.json`; I/O errors.
pub fn read_ledger(out: &Path) -> Result<BTreeMap<String, String>, CampaignError> {
    let p = ledger_path(out);
    let text = match std::fs::read(&p) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(CampaignError::io(&p, e)),
    };
    let mut map = BTreeMap::new();
    // The part after the last '\n' is an append cut short: not a line.
    let complete = match text.iter().rposition(|b| *b == b'\n') {
        Some(i) => &text[..=i],
        None => &text[..0],
    };
    let lines = complete.iter().filter(|b| **b == b'\n').count();
    for (i, l) in complete.split(|b| *b == b'\n').take(lines).enumerate() {
        let bad = |why: &str| CampaignError::Evidence {
            path: format!("{}:{}", p.display(), i + 1),
            problem: format!(
                "{why} (expected `<64 hex digits>  manifests/<run_id>.json`, as sha256sum writes)"
            ),
        };
        let l = std::str::from_utf8(l).map_err(|_| bad("not UTF-8"))?;
        let (hash, file) = l
            .split_once("  ")
            .ok_or_else(|| bad("no two-space separator"))?;
        if hash.len() != 64
            || !hash
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            return Err(bad("not a sha256 in lowercase hex"));
        }
        let id = file
            .strip_prefix("manifests/")
            .and_then(|f| f.strip_suffix(".json"))
            .filter(|id| !id.is_empty() && !id.contains('/'))
            .ok_or_else(|| bad("not a manifest path"))?;
        map.insert(id.to_string(), hash.to_string());
    }
    Ok(map)
}

/// Appends ledger lines while a campaign runs (one writer per directory:
/// the campaign holds the directory's lock).
pub struct LedgerWriter {
    path: PathBuf,
    file: Mutex<std::fs::File>,
}

impl LedgerWriter {
    /// Opens (creating) the ledger of `out` for appending, first cutting
    /// off an append cut short (a last line without its `\n`), so the next
    /// line does not continue it.
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn open(out: &Path) -> Result<Self, CampaignError> {
        let path = ledger_path(out);
        if let Ok(text) = std::fs::read(&path) {
            if text.last().is_some_and(|b| *b != b'\n') {
                let keep = text.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.set_len(keep as u64).and_then(|()| f.sync_data()))
                    .map_err(|e| CampaignError::io(&path, e))?;
            }
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| CampaignError::io(&path, e))?;
        Ok(Self {
            path,
            file: Mutex::new(file),
        })
    }

    /// Records the manifest of `run_id`, just written with `bytes`: one
    /// line, appended and synced before this returns.
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn record(&self, run_id: &str, bytes: &[u8]) -> Result<(), CampaignError> {
        let mut f = self.file.lock().expect("ledger lock");
        f.write_all(line(run_id, bytes).as_bytes())
            .and_then(|()| f.sync_data())
            .map_err(|e| CampaignError::io(&self.path, e))
    }
}

/// Rewrites the ledger of `out` atomically with one line per run of `runs`
/// (plan order) that has a ledger entry, dropping superseded lines.
///
/// # Errors
/// Those of [`read_ledger`] and of the write.
pub fn compact(out: &Path, runs: &[String]) -> Result<(), CampaignError> {
    let map = read_ledger(out)?;
    let text: String = runs
        .iter()
        .filter_map(|id| map.get(id).map(|h| format!("{h}  manifests/{id}.json\n")))
        .collect();
    write_atomic(&ledger_path(out), text.as_bytes())
}

/// The ledger lines of the runs `ids` of `out`, in that order, from their
/// manifest files as they are on disk (`breakbench merge`, after the
/// shards' ledgers were checked).
///
/// # Errors
/// I/O errors with the path.
pub fn lines_of(out: &Path, ids: &[&str]) -> Result<String, CampaignError> {
    let mut text = String::new();
    for id in ids {
        let p = manifest_path(out, id);
        let bytes = std::fs::read(&p).map_err(|e| CampaignError::io(&p, e))?;
        text.push_str(&line(id, &bytes));
    }
    Ok(text)
}

/// A fresh ledger written piece by piece into a temporary file beside it,
/// then synced and renamed into place (no whole ledger in memory:
/// REQ-SCALE-STREAM).
pub struct LedgerFile {
    path: PathBuf,
    tmp: PathBuf,
    w: std::io::BufWriter<std::fs::File>,
}

impl LedgerFile {
    /// Starts the ledger of `out`.
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn create(out: &Path) -> Result<Self, CampaignError> {
        let path = ledger_path(out);
        let tmp = out.join(format!(".{LEDGER_FILE}.tmp.{}", std::process::id()));
        let f = std::fs::File::create(&tmp).map_err(|e| CampaignError::io(&tmp, e))?;
        Ok(LedgerFile {
            path,
            tmp,
            w: std::io::BufWriter::new(f),
        })
    }

    /// Appends `lines` (complete ledger lines).
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn write(&mut self, lines: &str) -> Result<(), CampaignError> {
        self.w
            .write_all(lines.as_bytes())
            .map_err(|e| CampaignError::io(&self.tmp, e))
    }

    /// Syncs the ledger and renames it into place.
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn finish(self) -> Result<(), CampaignError> {
        let tmp = self.tmp;
        self.w
            .into_inner()
            .map_err(|e| CampaignError::io(&tmp, e.into_error()))?
            .sync_all()
            .map_err(|e| CampaignError::io(&tmp, e))?;
        std::fs::rename(&tmp, &self.path).map_err(|e| CampaignError::io(&self.path, e))
    }
}

/// sha256 of the ledger file of `out` (what a reader records outside the
/// directory to pin the evidence), or `None` without one.
pub fn ledger_sha256(out: &Path) -> Option<String> {
    std::fs::read(ledger_path(out)).ok().map(|b| sha256_hex(&b))
}

/// A stored run as the evidence check found it.
pub enum Stored {
    /// No manifest file.
    Missing,
    /// A manifest file without a ledger line (written when the campaign
    /// was interrupted before recording it); its path.
    Unrecorded(PathBuf),
    /// A manifest whose bytes match the ledger, parsed strictly, with every
    /// evidence file it names present and matching.
    Verified(Box<Manifest>),
}

/// The one evidence check of run `run_id` in `out` against `ledger`.
///
/// # Errors
/// [`CampaignError::Evidence`] naming the file that does not match: the
/// manifest (sha256 other than its ledger line's; an unknown field, with its
/// path and line; not a manifest), its trace or its provenance record
/// (missing, or another sha256 than the manifest's); I/O errors.
pub fn check_run(
    out: &Path,
    run_id: &str,
    ledger: &BTreeMap<String, String>,
) -> Result<Stored, CampaignError> {
    let path = manifest_path(out, run_id);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Stored::Missing),
        Err(e) => return Err(CampaignError::io(&path, e)),
    };
    let Some(want) = ledger.get(run_id) else {
        return Ok(Stored::Unrecorded(path));
    };
    let got = sha256_hex(&bytes);
    if got != *want {
        return Err(CampaignError::Evidence {
            path: path.display().to_string(),
            problem: format!(
                "sha256 {got}, the ledger {} records {want}: the manifest was changed after it was written; remove it (and its trace) to run that run again",
                ledger_path(out).display()
            ),
        });
    }
    let m = parse_manifest_strict(&path, &bytes)?;
    check_evidence_files(out, &m)?;
    Ok(Stored::Verified(Box::new(m)))
}

/// Checks the evidence files a manifest names: its trace (when it has one)
/// and its provenance record (when it recorded one) exist and have the
/// sha256 the manifest holds.
fn check_evidence_files(out: &Path, m: &Manifest) -> Result<(), CampaignError> {
    let mut files: Vec<(PathBuf, &str, &str)> = Vec::new();
    if !(m.trace_file.is_empty() && m.trace_sha256.is_empty()) {
        files.push((out.join(&m.trace_file), "trace", &m.trace_sha256));
    }
    if let Some(h) = &m.provenance_sha256 {
        files.push((out.join(provenance_file(&m.run_id)), "provenance record", h));
    }
    if let Some(h) = &m.recording_sha256 {
        files.push((out.join(recording_file(&m.run_id)), "recording", h));
    }
    for (p, what, want) in files {
        match std::fs::read(&p) {
            Ok(b) if sha256_hex(&b) == want => {}
            Ok(b) => {
                return Err(CampaignError::Evidence {
                    path: p.display().to_string(),
                    problem: format!(
                        "{what} of run {} has sha256 {}, its manifest records {want}",
                        m.run_id,
                        sha256_hex(&b)
                    ),
                })
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(CampaignError::Evidence {
                    path: p.display().to_string(),
                    problem: format!("{what} of run {} is missing", m.run_id),
                })
            }
            Err(e) => return Err(CampaignError::io(&p, e)),
        }
    }
    Ok(())
}

/// Parses a manifest and refuses any field the manifest type does not have,
/// at any depth (the top level and the flattened judgement cannot use
/// `deny_unknown_fields`, so the check compares the file's keys with the
/// keys of the parsed manifest written back).
///
/// # Errors
/// [`CampaignError::Json`] for a file that is not a manifest;
/// [`CampaignError::Evidence`] naming the unknown field's path (`a.b[2].c`)
/// and its line.
pub fn parse_manifest_strict(path: &Path, bytes: &[u8]) -> Result<Manifest, CampaignError> {
    let json = |e| CampaignError::Json {
        path: path.display().to_string(),
        source: e,
    };
    let m: Manifest = serde_json::from_slice(bytes).map_err(json)?;
    let raw: Value = serde_json::from_slice(bytes).map_err(json)?;
    let back = serde_json::to_value(&m).map_err(json)?;
    if let Some((field, key)) = unknown_key(&raw, &back, String::new()) {
        let text = String::from_utf8_lossy(bytes);
        let needle = format!("\"{key}\"");
        let line = text
            .lines()
            .position(|l| l.contains(&needle))
            .map_or(String::new(), |i| format!(":{}", i + 1));
        return Err(CampaignError::Evidence {
            path: format!("{}{line}", path.display()),
            problem: format!("field '{field}': unknown field of a manifest"),
        });
    }
    Ok(m)
}

/// The top-level keys a manifest omits when they are empty; a `null` there
/// is the absent value it stands for.
const OPTIONAL_KEYS: [&str; 7] = [
    "graph",
    "detection",
    "provenance_sha256",
    "recording_sha256",
    "recording_mode",
    "test",
    "timeline",
];

/// The first key of `raw` (depth first) that `known` does not have, as
/// (path, key); a `null` at a top-level [`OPTIONAL_KEYS`] key is absent.
fn unknown_key(raw: &Value, known: &Value, at: String) -> Option<(String, String)> {
    match (raw, known) {
        (Value::Object(r), Value::Object(k)) => r.iter().find_map(|(key, v)| {
            let here = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            match k.get(key) {
                Some(kv) => unknown_key(v, kv, here),
                None if v.is_null() && at.is_empty() && OPTIONAL_KEYS.contains(&key.as_str()) => {
                    None
                }
                None => Some((here, key.clone())),
            }
        }),
        (Value::Array(r), Value::Array(k)) => r
            .iter()
            .zip(k)
            .enumerate()
            .find_map(|(i, (rv, kv))| unknown_key(rv, kv, format!("{at}[{i}]"))),
        _ => None,
    }
}

/// Where run `run_id`'s manifest is written: `<out>/manifests/<run_id>.json`.
pub(crate) fn manifest_path(out: &Path, run_id: &str) -> PathBuf {
    out.join("manifests").join(format!("{run_id}.json"))
}

/// Where a run's per-message provenance is written, relative to the
/// campaign directory (`campaign --record-provenance`, REQ-FAULT-PROVENANCE).
pub fn provenance_file(run_id: &str) -> String {
    format!("provenance/{run_id}.csv")
}

/// The MCAP recording of run `run_id`, relative to the campaign directory.
pub fn recording_file(run_id: &str) -> String {
    format!("recordings/{run_id}.mcap")
}
