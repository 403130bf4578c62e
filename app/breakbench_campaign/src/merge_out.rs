//! What `breakbench merge` writes from the compact plan rather than from
//! lists held in memory (REQ-SCALE-MERGE, REQ-SCALE-STREAM): the merged
//! campaign.json (the whole run list, the unsharded campaign's bytes) and
//! the merged ledger (hashed on the merge's threads, written in plan
//! order).

use std::path::Path;

use serde::Serialize;

use super::compact_plan::CompactPlan;
use super::parallel::par_map;
use super::run_digest::RunSet;
use super::store::{manifest_path, read_manifest, CampaignFile};
use super::summary::Summary;
use super::summary_stream::SummaryStream;
use super::CampaignError;

/// Manifests read per piece by [`summarize_staged`] (one thread a piece):
/// with four pieces a thread in flight, 512 parsed manifests on 4
/// threads (about 2 MB), whatever the number of runs.
const READ_CHUNK: usize = 32;

/// Manifests hashed per piece of the merged ledger (one thread a piece).
const LEDGER_CHUNK: usize = 256;

/// The merged campaign.json: the shards' (scenario path, hash and file)
/// with the whole run list, serialized from the compact plan (no list of
/// strings): the bytes an unsharded campaign writes.
pub(crate) struct WholeCampaignFile<'a> {
    pub cf: &'a CampaignFile,
    pub plan: &'a CompactPlan,
}

impl Serialize for WholeCampaignFile<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct as _;
        /// The run ids, as a JSON array.
        struct Ids<'a>(&'a CompactPlan);
        impl Serialize for Ids<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.ids())
            }
        }
        // The fields of CampaignFile, in its order, `plan` absent.
        let mut st = s.serialize_struct("CampaignFile", 5)?;
        st.serialize_field("schema", &self.cf.schema)?;
        st.serialize_field("scenario_path", &self.cf.scenario_path)?;
        st.serialize_field("scenario_hash", &self.cf.scenario_hash)?;
        st.serialize_field("scenario", &self.cf.scenario)?;
        st.serialize_field("runs", &Ids(self.plan))?;
        st.end()
    }
}

/// Writes the merged ledger of `tmp` (one line per planned run of `plan`,
/// in plan order) from the manifests as linked: hashed `threads` at a
/// time, [`LEDGER_CHUNK`] runs a piece, the lines written in order.
///
/// # Errors
/// I/O errors with their path.
pub(crate) fn write_ledger(
    tmp: &Path,
    plan: &CompactPlan,
    threads: usize,
) -> Result<(), CampaignError> {
    let positions: Vec<usize> = (0..plan.len()).step_by(LEDGER_CHUNK).collect();
    let mut w = super::ledger::LedgerFile::create(tmp)?;
    for batch in positions.chunks(threads * 4) {
        let pieces = par_map(batch, threads, |&a| {
            let ids: Vec<&str> = (a..plan.len().min(a + LEDGER_CHUNK))
                .map(|i| plan.id(i))
                .collect();
            super::ledger::lines_of(tmp, &ids)
        });
        for piece in pieces {
            w.write(&piece?)?;
        }
    }
    w.finish()
}

/// Writes `value` as pretty JSON and a newline to `path` through a buffer
/// (not as one byte vector: the merged campaign.json's run list, 42 bytes
/// a run, was the peak of a 100,000-run merge's heap with the vector's
/// growth, 8 MB), synced. Not atomic by itself: `path` is in the staging
/// directory, renamed whole into place.
///
/// # Errors
/// I/O and JSON errors with the path.
pub(crate) fn write_json_streamed<T: Serialize>(
    path: &Path,
    value: &T,
) -> Result<(), CampaignError> {
    use std::io::Write as _;
    let f = std::fs::File::create(path).map_err(|e| CampaignError::io(path, e))?;
    let mut w = std::io::BufWriter::new(f);
    serde_json::to_writer_pretty(&mut w, value).map_err(|e| CampaignError::Json {
        path: path.display().to_string(),
        source: e,
    })?;
    w.write_all(b"\n")
        .and_then(|()| w.flush())
        .map_err(|e| CampaignError::io(path, e))?;
    w.get_ref()
        .sync_all()
        .map_err(|e| CampaignError::io(path, e))
}

/// The summary of the runs staged in `tmp` (every run of `plan`, checked
/// by the merge) for the campaign `cf`, junit.xml written to
/// `<tmp>/junit.xml` (REQ-SCALE-FLAT): the manifests are read again from
/// `tmp` in run-id order, [`READ_CHUNK`] a piece on `threads` threads
/// (four pieces a thread at once), and folded by a [`SummaryStream`]: no
/// digest of every run is held. Returns the summary and the manifests kept
/// whole (the report's and the harness checks').
///
/// # Errors
/// I/O and JSON errors with their path; [`CampaignError::Merge`] if a
/// staged manifest is gone or another run's; those of [`SummaryStream`].
pub(crate) fn summarize_staged(
    tmp: &Path,
    cf: &CampaignFile,
    plan: &CompactPlan,
    threads: usize,
) -> Result<(Summary, RunSet), CampaignError> {
    let cases = tmp.join(".junit.cases");
    let mut stream = SummaryStream::new(&cf.scenario, Some(&cases))?;
    let pieces: Vec<&[u32]> = plan.by_id().chunks(READ_CHUNK).collect();
    for batch in pieces.chunks(threads * 4) {
        let read = par_map(batch, threads, |piece| {
            piece
                .iter()
                .map(|&i| {
                    let id = plan.id(i as usize);
                    let path = manifest_path(tmp, id);
                    match read_manifest(&path)? {
                        Some(m) if m.run_id == id => Ok(m),
                        _ => Err(CampaignError::Merge(format!(
                            "{}: not run {id} as staged",
                            path.display()
                        ))),
                    }
                })
                .collect::<Result<Vec<_>, CampaignError>>()
        });
        for piece in read {
            for m in piece? {
                stream.add(&m)?;
            }
        }
    }
    stream.finish(&cf.scenario_hash, &tmp.join("junit.xml"))
}
