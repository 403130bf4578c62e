//! Names a campaign prints and writes, and the paths it writes them to,
//! checked at load (REQ-OUTPUT-SAFE-TEXT, REQ-OUTPUT-PATHS in
//! `docs/requirements.md`).
//!
//! * [`check_names`]: the scenario's free-text names (its `name`, each
//!   test's `requirement` and `hazard`, each fault's and expectation's
//!   `name`) are 1 to
//!   [`MAX_NAME_CHARS`] characters without a control character, a
//!   bidirectional override or U+FFFE/U+FFFF (they reach the terminal,
//!   junit.xml and report.html); names that become file names (tests,
//!   axes, navigator axes, searches) are at most [`MAX_FILE_NAME_PART`]
//!   characters;
//! * [`longest_run_id`]: the longest run id the plan will have, from the
//!   declared sizes (the plan is not built), against [`MAX_RUN_ID_BYTES`];
//! * [`check_out_dir`]: the output directory plus the longest path the
//!   campaign writes under it, against the system's `PATH_MAX`.

use std::path::Path;

use kraken_interfaces::text::unsafe_char;
use kraken_interfaces::ConfigError;

use super::scenario::ScenarioFile;

/// Most characters of a free-text name (scenario name, requirement, hazard,
/// fault name).
pub const MAX_NAME_CHARS: usize = 200;

/// Most characters of a name that is part of a file name: a test, axis,
/// navigator axis or severity search name.
pub const MAX_FILE_NAME_PART: usize = 64;

/// Most bytes of a run id. A run's longest file name is its atomic write's
/// temporary file `.<run_id>.json.tmp.<pid>.ThreadId<n>` (at most 47 bytes
/// more than the id with a 7-digit pid and a 20-digit thread number); with
/// 200 it stays under the 255-byte `NAME_MAX` of Linux file systems.
pub const MAX_RUN_ID_BYTES: usize = 200;

/// Most bytes a file name the campaign writes adds to its run id: the
/// temporary file of an atomic write (see [`MAX_RUN_ID_BYTES`]).
const TMP_NAME_OVERHEAD: usize =
    ".".len() + ".json".len() + ".tmp.".len() + 7 + ".ThreadId".len() + 20;

/// Longest path the system accepts (`PATH_MAX` of Linux, with its NUL).
pub const PATH_MAX_BYTES: usize = 4096;

/// The free-text names of `file`, and its names that become file names,
/// as the module doc states, then [`longest_run_id`] against
/// [`MAX_RUN_ID_BYTES`].
///
/// # Errors
/// A [`ConfigError`] naming `path` and the field (its line is filled in by
/// the loader), with the allowed characters and length.
pub fn check_names(file: &ScenarioFile, path: &str) -> Result<(), ConfigError> {
    let mut free: Vec<(String, &str)> = vec![("name".into(), file.name.as_str())];
    let mut parts: Vec<(String, &str)> = Vec::new();
    for (i, t) in file.tests.iter().enumerate() {
        free.push((format!("tests[{i}].requirement"), &t.requirement));
        free.push((format!("tests[{i}].hazard"), &t.hazard));
        for (j, f) in t.faults.iter().enumerate() {
            free.push((format!("tests[{i}].faults[{j}].name"), &f.name));
        }
        for (j, e) in t.expectations.iter().enumerate() {
            free.push((format!("tests[{i}].expectations[{j}].name"), &e.name));
        }
        parts.push((format!("tests[{i}].name"), &t.name));
    }
    for (i, a) in file.axes.iter().enumerate() {
        parts.push((format!("axes[{i}].name"), &a.name));
    }
    for (i, a) in file.navigator_axes.iter().enumerate() {
        parts.push((format!("navigator_axes[{i}].name"), &a.name));
    }
    for (i, s) in file.escape_search.iter().enumerate() {
        parts.push((format!("escape_search[{i}].name"), &s.name));
    }
    for (field, s) in &free {
        check_text(path, field, s, MAX_NAME_CHARS)?;
    }
    // Their characters and emptiness are checked by their own rules.
    for (field, s) in &parts {
        let n = s.chars().count();
        if n > MAX_FILE_NAME_PART {
            return Err(ConfigError::semantic(
                path,
                field,
                format!(
                    "'{}' has {n} characters, at most {MAX_FILE_NAME_PART} (it names files)",
                    kraken_interfaces::text::quote_capped(s)
                ),
            ));
        }
    }
    let (len, field, id) = longest_run_id(file);
    if len > MAX_RUN_ID_BYTES {
        return Err(ConfigError::semantic(
            path,
            &field,
            format!(
                "makes run id '{}' of {len} bytes, over the {MAX_RUN_ID_BYTES} a run id may have (its files, such as manifests/<run id>.json and their temporary files, must fit the 255-byte file name limit): shorten it",
                kraken_interfaces::text::quote_capped(&id)
            ),
        ));
    }
    Ok(())
}

/// One name: 1 to `max` characters, none of them an [`unsafe_char`].
fn check_text(path: &str, field: &str, s: &str, max: usize) -> Result<(), ConfigError> {
    let err = |m: String| Err(ConfigError::semantic(path, field, m));
    let n = s.chars().count();
    if n == 0 {
        return err("is empty".into());
    }
    if n > max {
        return err(format!(
            "'{}' has {n} characters, at most {max}",
            kraken_interfaces::text::quote_capped(s)
        ));
    }
    if let Some((i, c)) = s.chars().enumerate().find(|(_, c)| unsafe_char(*c)) {
        return err(format!(
            "'{}' holds U+{:04X} at character {}: a name may not hold a control character (tab and line feed included), a bidirectional override or U+FFFE/U+FFFF",
            kraken_interfaces::text::quote_capped(s),
            c as u32,
            i + 1
        ));
    }
    Ok(())
}

/// The longest run id of the plan of `file`, computed from the declared
/// names and sizes (the plan is not built): its length in bytes, the field
/// that makes it (`axes`, `navigator_axes`, `tests[i].name`) and the id.
/// Grid ids are `grid_<axis><value>_..._<nav axis>_<value>_r<repeat>`,
/// nominal ids `nominal_<nav axis>_<value>_..._<index>`, test ids
/// `test_<name>[_p<phase>]_r<repeat>` and `baseline_<name>_r<repeat>`
/// ([`super::plan::plan_file`]).
pub fn longest_run_id(file: &ScenarioFile) -> (usize, String, String) {
    let last_repeat = file.repeats.saturating_sub(1);
    let mut best = (0, String::new(), String::new());
    let mut consider = |id: String, field: String| {
        if id.len() > best.0 {
            best = (id.len(), field, id);
        }
    };
    let longest = |vals: Vec<String>| vals.into_iter().max_by_key(String::len).unwrap_or_default();
    let nav_parts: Vec<String> = file
        .navigator_axes
        .iter()
        .map(|a| format!("{}_{}", a.name, longest(a.values.clone())))
        .collect();
    if !file.axes.is_empty() && (!file.design.is_grid() || file.rare_event.is_some()) {
        // the covering array's or the sampled design's own cells (sized
        // at load: at most a few thousand), not the longest value of each
        // axis, which no cell may combine
        for cell in file.cells() {
            let key = super::plan::grid_key(file, &cell);
            consider(format!("grid_{key}_r{last_repeat}"), "axes".into());
        }
    } else if !file.axes.is_empty() {
        let key: Vec<String> = file
            .axes
            .iter()
            .map(|a| {
                let v = longest(
                    a.values
                        .iter()
                        .map(|v| super::plan::fmt_value(*v))
                        .collect(),
                );
                format!("{}{v}", a.name)
            })
            .chain(nav_parts.iter().cloned())
            .collect();
        consider(
            format!("grid_{}_r{last_repeat}", key.join("_")),
            "axes".into(),
        );
    }
    let nominal =
        super::plan::nominal_run_id(file.nominal.runs.saturating_sub(1), file.nominal.runs);
    let prefix: String = nav_parts.iter().map(|p| format!("{p}_")).collect();
    consider(
        nominal.replacen("nominal_", &format!("nominal_{prefix}"), 1),
        "navigator_axes".into(),
    );
    for (i, t) in file.tests.iter().enumerate() {
        let phase = t.phase_sweep.as_ref().map_or(String::new(), |ps| {
            format!("_p{}", ps.steps.saturating_sub(1))
        });
        consider(
            format!("test_{}{phase}_r{last_repeat}", t.name),
            format!("tests[{i}].name"),
        );
        consider(
            format!("baseline_{}_r{last_repeat}", t.name),
            format!("tests[{i}].name"),
        );
    }
    best
}

/// Checks that `out` (as given, made absolute against the working
/// directory) plus the longest path the campaign of `file` writes under it
/// (`provenance/.<run id>.csv.tmp.<pid>.ThreadId<n>` for its longest run
/// id) fits `PATH_MAX`, so that no write fails half-way with "File name too
/// long". Each component of `out` itself is the system's to refuse.
///
/// # Errors
/// A message naming `--out`, the byte count and the limit.
pub fn check_out_dir(out: &Path, file: &ScenarioFile) -> Result<(), String> {
    let abs = if out.is_absolute() {
        out.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(out)
    };
    let (id_len, _, _) = longest_run_id(file);
    let longest = "/provenance/".len() + id_len + TMP_NAME_OVERHEAD;
    let total = abs.as_os_str().len() + longest;
    if total >= PATH_MAX_BYTES {
        return Err(format!(
            "--out {}: its files would have paths of up to {total} bytes ({} of the directory, {longest} of the longest file under it), over the system's limit of {} (PATH_MAX): choose a shorter directory",
            kraken_interfaces::text::terminal_safe(&out.display().to_string()),
            abs.as_os_str().len(),
            PATH_MAX_BYTES - 1
        ));
    }
    Ok(())
}
