//! Whether an `--out` directory may be written by a campaign or a severity
//! search of a scenario (REQ-OUTPUT-CLAIM, `docs/requirements.md`): a
//! directory that does not exist, an empty one, or one that already holds
//! Breakbench results of this scenario; never a directory of unrelated
//! files (a source tree, a repository root), which the campaign would fill
//! with manifests/, traces/ and its reports.
//!
//! A directory holds Breakbench results when it has one of the files that
//! name their scenario: `campaign.json` or `shard.json` or a severity
//! search's `search_<name>.json`. A campaign claims a directory whose search
//! records are of its scenario (its campaign.json and shard.json hashes are
//! compared by the campaign: [`CampaignError::OtherScenario`]); a search
//! claims a directory of search records of any scenario (one file per
//! search name: docs/studies.md runs the searches of two studies into one
//! directory) whose campaign.json, if any, is of its scenario.

use std::path::Path;

use super::CampaignError;

/// Who claims the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Claimant {
    /// `breakbench campaign --out` (also a shard of one).
    Campaign,
    /// `breakbench search --out`.
    Search,
}

/// Entries an interrupted start may leave before any file naming the
/// scenario is written: the lock and atomic writes' temporary files.
fn left_by_a_start(name: &str) -> bool {
    name == ".lock" || (name.starts_with('.') && name.contains(".tmp."))
}

/// Checks that `out` may be claimed for the scenario of hash
/// `scenario_hash` (file `scenario`), as the module doc states. Reads only
/// the directory's entry names and its search records.
///
/// # Errors
/// [`CampaignError::NotOurs`] naming the directory and up to three of its
/// entries when it is not empty and holds no Breakbench results (or is not
/// a directory); [`CampaignError::OtherScenario`] when a search record in it
/// is of another scenario.
pub fn check_out_claim(
    out: &Path,
    scenario_hash: &str,
    scenario: &Path,
    claimant: Claimant,
) -> Result<(), CampaignError> {
    let dir = || kraken_interfaces::text::terminal_safe(&out.display().to_string()).into_owned();
    let md = match std::fs::metadata(out) {
        Ok(md) => md,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(CampaignError::io(out, e)),
    };
    if !md.is_dir() {
        return Err(CampaignError::NotOurs {
            dir: dir(),
            why: "exists and is not a directory".into(),
        });
    }
    let rd = std::fs::read_dir(out).map_err(|e| CampaignError::io(out, e))?;
    let mut foreign = std::collections::BTreeSet::new();
    let mut ours = false;
    for e in rd {
        let e = e.map_err(|e| CampaignError::io(out, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let campaign = name == "campaign.json" || name == super::store::SHARD_FILE;
        let search = name.starts_with("search_") && name.ends_with(".json");
        if campaign && claimant == Claimant::Campaign {
            ours = true;
        } else if campaign || search {
            // (hash, scenario name) as the file states them.
            let held = std::fs::read(e.path())
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|v| {
                    let named = v
                        .get("scenario_name")
                        .or_else(|| v.pointer("/scenario/name"))
                        .and_then(|n| n.as_str())
                        .unwrap_or("?");
                    Some((
                        v.get("scenario_hash")?.as_str()?.to_string(),
                        named.to_string(),
                    ))
                });
            match held {
                Some((h, _)) if h == scenario_hash || (search && claimant == Claimant::Search) => {
                    ours = true
                }
                Some((h, held_name)) => {
                    return Err(CampaignError::OtherScenario {
                        dir: dir(),
                        held_name: kraken_interfaces::text::terminal_safe(&held_name).into_owned(),
                        held_hash: h.chars().take(12).collect(),
                        scenario: scenario.display().to_string(),
                        hash: scenario_hash.chars().take(12).collect(),
                    })
                }
                None => {
                    foreign.insert(name);
                }
            }
        } else if !left_by_a_start(&name) {
            foreign.insert(name);
        }
    }
    if ours || foreign.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = foreign
        .iter()
        .take(3)
        .map(|n| format!("'{}'", kraken_interfaces::text::quote_capped(n)))
        .collect();
    Err(CampaignError::NotOurs {
        dir: dir(),
        why: format!(
            "is not empty ({} entr{}: {}{}) and holds no Breakbench results (no campaign.json, shard.json or search record)",
            foreign.len(),
            if foreign.len() == 1 { "y" } else { "ies" },
            shown.join(", "),
            if foreign.len() > 3 { ", ..." } else { "" }
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HASH: &str = "ab12";

    fn claim(out: &Path) -> Result<(), CampaignError> {
        check_out_claim(out, HASH, Path::new("s.yaml"), Claimant::Campaign)
    }

    #[test]
    fn new_empty_and_own_directories_are_claimed() {
        let d = tempfile::tempdir().unwrap();
        claim(&d.path().join("new")).unwrap();
        claim(d.path()).unwrap();
        // What an interrupted start leaves.
        std::fs::write(d.path().join(".lock"), "").unwrap();
        std::fs::write(d.path().join(".campaign.json.tmp.12.ThreadId1"), "x").unwrap();
        claim(d.path()).unwrap();
        // A campaign (its hash is compared by the campaign).
        std::fs::write(d.path().join("notes.txt"), "mine").unwrap();
        assert!(claim(d.path()).is_err());
        std::fs::write(d.path().join("campaign.json"), "{}").unwrap();
        claim(d.path()).unwrap();
        // A search record of this scenario.
        let s = tempfile::tempdir().unwrap();
        std::fs::write(
            s.path().join("search_x.json"),
            format!(r#"{{"scenario_hash": "{HASH}", "scenario_name": "n"}}"#),
        )
        .unwrap();
        claim(s.path()).unwrap();
    }

    #[test]
    fn a_directory_of_unrelated_files_is_refused_by_name() {
        let d = tempfile::tempdir().unwrap();
        for f in ["Cargo.toml", "README.md", "build.rs", "src"] {
            std::fs::write(d.path().join(f), "x").unwrap();
        }
        let e = claim(d.path()).unwrap_err().to_string();
        assert_eq!(
            e,
            format!(
                "--out {}: is not empty (4 entries: 'Cargo.toml', 'README.md', 'build.rs', ...) and holds no Breakbench results (no campaign.json, shard.json or search record): give a new or empty directory, or one of this scenario's campaigns",
                d.path().display()
            )
        );
        let f = d.path().join("Cargo.toml");
        let e = claim(&f).unwrap_err().to_string();
        assert!(e.ends_with("exists and is not a directory: give a new or empty directory, or one of this scenario's campaigns"), "{e}");
    }

    /// A campaign refuses a directory of another scenario's search; a
    /// search shares it (one record per search name), but refuses another
    /// scenario's campaign.
    #[test]
    fn another_scenario_is_refused_by_what_it_would_mix_with() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("search_x.json"),
            r#"{"scenario_hash": "ffff00001111", "scenario_name": "other"}"#,
        )
        .unwrap();
        let e = claim(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("holds results of scenario 'other' (hash ffff00001111)"),
            "{e}"
        );
        let search = |p: &Path| check_out_claim(p, HASH, Path::new("s.yaml"), Claimant::Search);
        search(d.path()).unwrap();
        let c = tempfile::tempdir().unwrap();
        std::fs::write(
            c.path().join("campaign.json"),
            r#"{"scenario_hash": "eeee00001111", "scenario": {"name": "study"}}"#,
        )
        .unwrap();
        let e = search(c.path()).unwrap_err().to_string();
        assert!(
            e.contains("holds results of scenario 'study' (hash eeee00001111)"),
            "{e}"
        );
        claim(c.path()).unwrap(); // the campaign compares its own hash
    }
}
