//! Output that never breaks (REQ-OUTPUT-SAFE-TEXT, REQ-OUTPUT-CLAIM,
//! REQ-OUTPUT-PATHS): hostile names give well-formed junit.xml and
//! report.html (parsed with a real XML parser), names with control
//! characters or too long for a file name are refused at load with
//! file:line:field, `--out` refuses a directory of unrelated files, and an
//! error prints each OS error once and no control sequence.

use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::Scenario;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn opts(out: &Path) -> CampaignOptions {
    CampaignOptions {
        out: out.to_path_buf(),
        jobs: 2,
        progress: false,
        budget: Default::default(),
    }
}

/// A copy of `tests/data/<name>` in `dir` (so relative paths still resolve
/// when `edit` changes it), edited by `edit`.
fn variant(dir: &Path, name: &str, edit: impl Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join("tests/data").join(name)).unwrap();
    let text = text.replace("../../config/", &format!("{}/config/", root().display()));
    let p = dir.join(name);
    std::fs::write(&p, edit(text)).unwrap();
    p
}

fn breakbench(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(args)
        .current_dir(cwd)
        .env_remove("RCUTILS_COLORIZED_OUTPUT")
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

const HOSTILE_NAME: &str =
    "evil \"double\" 'single' <suite> & &amp; ]]> -- ünïcode ✓ 日本";

/// Quotes, markup, entities, a CDATA end and non-ASCII text in the
/// scenario, requirement, hazard and fault names: junit.xml and
/// report.html parse with roxmltree, and the names read back as written.
#[test]
fn hostile_names_give_well_formed_junit_and_report() {
    let s = Scenario::load(&root().join("tests/data/hostile_names.yaml")).unwrap();
    assert_eq!(s.file.name, HOSTILE_NAME);
    let d = tempfile::tempdir().unwrap();
    run_campaign(&s, &opts(d.path())).unwrap();
    let junit = std::fs::read_to_string(d.path().join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap_or_else(|e| panic!("junit.xml: {e}"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("name"), Some(HOSTILE_NAME));
    assert_eq!(suite.attribute("tests"), Some("9")); // 3 nominal, 1 test, 1 baseline, 4 checks
    let html = std::fs::read_to_string(d.path().join("report.html")).unwrap();
    let doc = roxmltree::Document::parse_with_options(
        &html,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap_or_else(|e| panic!("report.html: {e}"));
    let title = doc.descendants().find(|n| n.has_tag_name("title")).unwrap();
    assert!(
        title.text().unwrap_or_default().contains(HOSTILE_NAME),
        "{:?}",
        title.text()
    );
    let text: String = doc
        .descendants()
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n");
    for name in ["REQ <\"x\"> & 'y'", "HAZ ]]> &lt; ✓", "odom <loss> & \"gone\""] {
        assert!(text.contains(name), "report.html lacks {name:?}");
    }
}

/// A control character (an ANSI escape, a bell, U+FFFE, a bidirectional
/// override) in a name is refused at load, naming file, line and field,
/// and the error printed by the CLI holds no control character.
#[test]
fn control_characters_in_names_are_refused_at_load() {
    let d = tempfile::tempdir().unwrap();
    for (esc, code) in [
        ("\\e[31m", "U+001B"),
        ("\\a", "U+0007"),
        ("\\uFFFE", "U+FFFE"),
        ("\\u202E", "U+202E"),
        ("\\t", "U+0009"),
    ] {
        let p = variant(d.path(), "hostile_names.yaml", |t| {
            t.replace("HAZ ]]> &lt; ✓", &format!("HAZ{esc}x"))
        });
        let e = Scenario::load(&p).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}:19:5: field 'tests[0].hazard': 'HAZ",
                p.display()
            )) && e.contains(code),
            "{e}"
        );
    }
    let p = variant(d.path(), "hostile_names.yaml", |t| {
        t.replacen("name: \"evil", "name: \"\\e]0;pwned\\aevil", 1)
    });
    let (code, out, err) = breakbench(
        &["campaign", p.to_str().unwrap(), "--out", "out", "--quiet"],
        d.path(),
    );
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains(":4:1: field 'name': '"), "{err}");
    assert!(err.contains("U+001B at character 1"), "{err}");
    assert!(
        !err.bytes().chain(out.bytes()).any(|b| b == 0x1b || b == 0x07),
        "control character printed: {err:?}"
    );
    assert!(!d.path().join("out").exists());
}

/// A 300-character test name (and a 65-character axis name) is refused at
/// load with its field, before a run writes a file; a long but allowed one
/// whose run ids pass 200 bytes too. Nothing is written.
#[test]
fn names_too_long_for_file_names_are_refused_at_load() {
    let d = tempfile::tempdir().unwrap();
    let long = "t".repeat(300);
    let p = variant(d.path(), "hostile_names.yaml", |t| {
        t.replace("name: odom_lost", &format!("name: {long}"))
    });
    let e = Scenario::load(&p).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}:17:5: field 'tests[0].name': 'tttttttttttttttttttttttttttttttttttttttt... (300 characters)' has 300 characters, at most 64 (it names files)",
            p.display()
        )),
        "{e}"
    );
    let p = variant(d.path(), "small_study.yaml", |t| {
        t.replace("name: latency_s", &format!("name: {}", "l".repeat(65)))
    });
    let e = Scenario::load(&p).unwrap_err().to_string();
    assert!(e.contains(":10:5: field 'axes[0].name': "), "{e}");
    // Four axes of 60 characters: each allowed, their grid run id is not.
    let p = variant(d.path(), "small_study.yaml", |t| {
        t.replace("name: latency_s", &format!("name: {}", "a".repeat(60)))
            .replace("name: odom_bias", &format!("name: {}", "b".repeat(60)))
            .replace(
                "nominal:",
                &format!(
                    "navigator_axes:\n  - {{ name: {}, parameter: estimator_gating, values: [none, both] }}\n  - {{ name: {}, parameter: odom_timeout_s, values: ['0.5', '1.0'] }}\nnominal:",
                    "c".repeat(60),
                    "d".repeat(60)
                ),
            )
    });
    let e = Scenario::load(&p).unwrap_err().to_string();
    assert!(
        e.contains(": field 'axes': makes run id 'grid_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (")
            && e.contains(" bytes, over the 200 a run id may have"),
        "{e}"
    );
}

/// `--out` refuses a non-empty directory that holds no Breakbench results
/// (a source tree), naming it and why; nothing is written into it. A
/// campaign of this scenario is resumed in place.
#[test]
fn out_refuses_a_directory_of_unrelated_files() {
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("src");
    std::fs::create_dir_all(src.join("campaign")).unwrap();
    std::fs::write(src.join("lib.rs"), "// code").unwrap();
    let s = Scenario::load(&root().join("tests/data/hostile_names.yaml")).unwrap();
    let e = run_campaign(&s, &opts(&src)).err().expect("refused");
    assert_eq!(
        e.to_string(),
        format!(
            "--out {}: is not empty (2 entries: 'campaign', 'lib.rs') and holds no Breakbench results (no campaign.json, shard.json or search record): give a new or empty directory, or one of this scenario's campaigns",
            src.display()
        )
    );
    let names: Vec<_> = std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    // The CLI: the repository's own src/campaign.
    let repo_src = root().join("src/campaign");
    let (code, _, err) = breakbench(
        &[
            "campaign",
            "tests/data/hostile_names.yaml",
            "--out",
            repo_src.to_str().unwrap(),
            "--quiet",
        ],
        &root(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("holds no Breakbench results") && err.contains("src/campaign"),
        "{err}"
    );
    assert!(!repo_src.join("campaign.json").exists());
    assert!(!repo_src.join("manifests").exists());
}

/// A missing scenario file: the OS error is printed once.
#[test]
fn an_os_error_is_printed_once() {
    let d = tempfile::tempdir().unwrap();
    let (code, out, err) = breakbench(
        &["campaign", "missing.yaml", "--out", "out", "--quiet"],
        d.path(),
    );
    assert_eq!(code, 2, "{out}{err}");
    assert_eq!(
        err.trim_end(),
        "error: missing.yaml: cannot read: No such file or directory (os error 2)"
    );
    // An I/O error of the campaign (a records error with a source).
    let (code, _, err) = breakbench(&["analyze", "nowhere"], d.path());
    assert_eq!(code, 2);
    assert_eq!(
        err.matches("No such file or directory (os error 2)").count(),
        1,
        "{err}"
    );
}
