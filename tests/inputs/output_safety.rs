//! Output that never breaks (REQ-OUTPUT-SAFE-TEXT, REQ-OUTPUT-CLAIM,
//! REQ-OUTPUT-PATHS): hostile names give well-formed junit.xml and
//! report.html (parsed with a real XML parser), names with control
//! characters or too long for a file name are refused at load with
//! file:line:field, `--out` refuses a directory of unrelated files, and an
//! error prints each OS error once and no control sequence.

use crate::common;
use common::root;
use std::path::{Path, PathBuf};
use std::process::Command;

use breakbench::campaign::runner::{run_campaign, CampaignOptions};
use breakbench::campaign::Scenario;

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

const HOSTILE_NAME: &str = "evil \"double\" 'single' <suite> & &amp; ]]> -- ünïcode ✓ 日本";

/// Quotes, markup, entities, a CDATA end and non-ASCII text in the
/// scenario, requirement, hazard and fault names: junit.xml and
/// report.html parse with roxmltree, and the names read back as written.
#[test]
fn hostile_names_give_well_formed_junit_and_report() {
    let s = Scenario::load(&root().join("tests/data/hostile_names.yaml")).unwrap();
    assert_eq!(s.file.name, HOSTILE_NAME);
    let d = tempfile::tempdir().unwrap();
    let r = run_campaign(&s, &opts(d.path())).unwrap();
    check_outputs(d.path(), HOSTILE_NAME);
    // Names that only an edited campaign.json (or a caller of the library)
    // can hold: XML-invalid code points, C1 and bidirectional controls.
    // The writers escape them as visible text.
    let evil =
        "nul\u{0} bel\u{7} esc\u{1b}[2J del\u{7f} c1\u{9b} rlo\u{202e} nc\u{fffe}\u{ffff} end";
    let mut s2 = s.clone();
    s2.file.name = evil.to_string();
    s2.file.tests[0].hazard = evil.to_string();
    let mut sum = r.summary.clone();
    sum.scenario_name = evil.to_string();
    for t in &mut sum.tests {
        t.hazard = evil.to_string();
    }
    let (_, manifests) = breakbench::campaign::store::load_campaign(d.path()).unwrap();
    breakbench::campaign::outputs::write_outputs(d.path(), &s2, &sum, &manifests).unwrap();
    check_outputs(
        d.path(),
        "nul\\u{0} bel\\u{7} esc\\u{1b}[2J del\\u{7f} c1\\u{9b} rlo\\u{202e} nc\\u{fffe}\\u{ffff} end",
    );
}

/// junit.xml and report.html of `dir` parse as XML, and the suite and the
/// report title carry `name`.
fn check_outputs(dir: &Path, name: &str) {
    let junit = std::fs::read_to_string(dir.join("junit.xml")).unwrap();
    let doc = roxmltree::Document::parse(&junit).unwrap_or_else(|e| panic!("junit.xml: {e}"));
    let suite = doc
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(suite.attribute("name"), Some(name));
    assert_eq!(suite.attribute("tests"), Some("9")); // 3 nominal, 1 test, 1 baseline, 4 checks
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
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
        title.text().unwrap_or_default().contains(name),
        "{:?}",
        title.text()
    );
    let text: String = doc
        .descendants()
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n");
    for want in ["REQ <\"x\"> & 'y'", "odom <loss> & \"gone\""] {
        assert!(text.contains(want), "report.html lacks {want:?}");
    }
    if name == HOSTILE_NAME {
        assert!(
            text.contains("HAZ ]]> &lt; ✓"),
            "report.html lacks the hazard"
        );
    } else {
        assert!(text.contains(name), "report.html lacks the hazard {name:?}");
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
        !err.bytes()
            .chain(out.bytes())
            .any(|b| b == 0x1b || b == 0x07),
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
    // The CLI: the repository's own app/breakbench_campaign/src.
    let repo_src = root().join("app/breakbench_campaign/src");
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
        err.contains("holds no Breakbench results") && err.contains("app/breakbench_campaign/src"),
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
    // (It was printed twice: `...(os error 2): No such file or directory
    // (os error 2)`.)
    let (code, _, err) = breakbench(&["analyze", "nowhere"], d.path());
    assert_eq!(code, 2);
    assert_eq!(
        err.trim_end(),
        "error: nowhere/campaign.json: No such file or directory (os error 2)"
    );
}

/// A UTF-8 byte order mark before a scenario file does not shift the line
/// of an error (line 3 is reported as line 3).
#[test]
fn a_byte_order_mark_does_not_shift_the_reported_line() {
    let d = tempfile::tempdir().unwrap();
    let p = variant(d.path(), "small_study.yaml", |t| {
        format!("\u{feff}{}", t.replace("seed: 7", "seed: -7"))
    });
    let e = Scenario::load(&p).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!("{}:3:7: field 'seed': ", p.display())),
        "{e}"
    );
}

/// A world file that is not YAML of a world (a text file of 200 lines, as
/// `world: /etc/passwd` is) is not echoed into the error: at most 40 of its
/// characters are quoted.
#[test]
fn an_error_quotes_at_most_a_few_dozen_characters_of_a_file() {
    let d = tempfile::tempdir().unwrap();
    let passwd: String = (0..200)
        .map(|i| format!("user{i}:x:{i}:{i}:User {i}:/home/user{i}:/bin/sh\n"))
        .collect();
    std::fs::write(d.path().join("passwd"), &passwd).unwrap();
    let p = variant(d.path(), "small_study.yaml", |t| {
        let world = t
            .lines()
            .find(|l| l.starts_with("world:"))
            .unwrap()
            .to_string();
        t.replace(&world, "world: passwd")
    });
    let e = Scenario::load(&p).unwrap_err().to_string();
    assert!(e.len() < 300, "{} bytes: {e}", e.len());
    assert!(e.contains("passwd"), "{e}");
    assert!(e.contains("user0:x:0:0:User 0"), "{e}");
    assert!(!e.contains("user1:"), "{e}");
}

/// The longest run id computed from the declared sizes is the longest id of
/// the plan, for every shipped scenario that has grids, navigator axes,
/// phase sweeps and baselines.
#[test]
fn longest_run_id_from_declared_sizes_is_the_plans() {
    let mut checked = 0;
    for dir in [
        "scenarios/studies",
        "scenarios/tests",
        "scenarios/selftest",
        "tests/data",
    ] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let p = e.unwrap().path();
            let Ok(s) = Scenario::load(&p) else { continue };
            let plan = breakbench::campaign::plan::plan_file(&s.file);
            let want = plan.iter().map(|r| r.run_id.len()).max().unwrap();
            let (len, _, id) = breakbench::campaign::names::longest_run_id(&s.file);
            assert_eq!(len, want, "{}: {id}", p.display());
            assert!(plan.iter().any(|r| r.run_id == id), "{}: {id}", p.display());
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} scenarios");
}

/// An output directory whose path, with the longest file the campaign
/// writes under it, passes PATH_MAX is refused before anything is written,
/// naming `--out` and the byte counts.
#[test]
fn an_out_directory_too_deep_for_its_files_is_refused() {
    let s = Scenario::load(&root().join("tests/data/small_study.yaml")).unwrap();
    let d = tempfile::tempdir().unwrap();
    let deep = d.path().join("d".repeat(200)).join("e".repeat(200));
    let mut out = deep.clone();
    while out.as_os_str().len() < 4050 {
        out = out.join("f".repeat(200));
    }
    let e = run_campaign(&s, &opts(&out))
        .err()
        .expect("refused")
        .to_string();
    assert!(
        e.starts_with(&format!(
            "--out {}: its files would have paths of up to ",
            out.display()
        )) && e.contains("over the system's limit of 4095 (PATH_MAX)"),
        "{e}"
    );
    assert!(!d.path().join("d".repeat(200)).exists());
    // A shallower one is accepted (and written).
    breakbench::campaign::names::check_out_dir(&deep, &s.file).unwrap();
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    // `breakbench campaign ... | head -1`: the reader is gone before the
    // summary lines are printed. Before the fix, println! panicked with a
    // backtrace ("failed printing to stdout: Broken pipe").
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_breakbench"))
        .args(["campaign", "scenarios/tests/gnss_spoof_gated.yaml", "--out"])
        .arg(&out)
        .arg("--quiet")
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    use std::os::unix::process::ExitStatusExt;
    assert!(
        o.status.success() || o.status.signal() == Some(libc::SIGPIPE),
        "{:?}: {stderr}",
        o.status
    );
    // The campaign itself completed: its results were written first.
    assert!(out.join("summary.json").is_file());
}
