//! The built-in wire contracts equal the ROS 2 Jazzy wheels' `.msg` files
//! (REQ-MSG-DEF): for every built-in type whose package the venv has, the
//! wheel's `share/<pkg>/msg/<Type>.msg`, parsed by the same parser, gives
//! the same fields (names, types, defaults, in order) and constants; and
//! every `.msg` of the packages taken whole is built in.
//!
//! Needs `BREAKBENCH_ROS_VENV` (the venv of scripts/setup_peers.sh, an
//! ament prefix); skipped with a notice without it. simulation_interfaces
//! (no wheel) is read from `BREAKBENCH_SIMIF_PREFIX` when set (the prefix
//! of scripts/build_simif.sh; it must hold the package then), else from the
//! venv if scripts/build_simif.sh installed it there.

use std::collections::BTreeSet;
use std::path::PathBuf;

use breakbench_msgs::def::parse_msg;
use breakbench_msgs::TypeRegistry;

/// The packages the built-in table takes whole (scripts/gen_msgs_builtin.py).
const WHOLE: [&str; 8] = [
    "builtin_interfaces",
    "std_msgs",
    "geometry_msgs",
    "sensor_msgs",
    "nav_msgs",
    "diagnostic_msgs",
    "rosgraph_msgs",
    "simulation_interfaces",
];

/// The `share` directory holding `pkg`: simulation_interfaces from
/// `BREAKBENCH_SIMIF_PREFIX` when set, everything else from the venv's.
fn share_of(venv_share: &std::path::Path, pkg: &str) -> PathBuf {
    match std::env::var_os("BREAKBENCH_SIMIF_PREFIX") {
        Some(p) if pkg == "simulation_interfaces" => PathBuf::from(p).join("share"),
        _ => venv_share.to_path_buf(),
    }
}

#[test]
fn builtin_definitions_equal_the_wheels_msg_files() {
    let Some(venv) = std::env::var_os("BREAKBENCH_ROS_VENV") else {
        println!(
            "SKIPPED: set BREAKBENCH_ROS_VENV to the ROS 2 Jazzy wheels venv \
             (scripts/setup_peers.sh) to compare the built-in definitions with its .msg files"
        );
        return;
    };
    let share = PathBuf::from(venv).join("share");
    assert!(share.is_dir(), "{}: no share/", share.display());
    let reg = TypeRegistry::builtin();
    let (mut same, mut absent) = (0, Vec::new());
    let mut diffs = Vec::new();
    for def in reg.iter() {
        let pkg_share = share_of(&share, &def.name.pkg);
        let f = pkg_share
            .join(&def.name.pkg)
            .join("msg")
            .join(format!("{}.msg", def.name.name));
        if !pkg_share.join(&def.name.pkg).is_dir() {
            absent.push(def.name.to_string());
            continue;
        }
        let text = std::fs::read_to_string(&f)
            .unwrap_or_else(|e| panic!("{}: {e} (built in, but not in the wheel)", f.display()));
        let wheel = parse_msg(
            &def.name.pkg,
            &def.name.name,
            &text,
            &f.display().to_string(),
        )
        .unwrap();
        if &wheel == def {
            same += 1;
        } else {
            diffs.push(format!(
                "{}:\n  built in:\n{}  wheel:\n{}",
                def.name,
                def.to_msg_text(),
                wheel.to_msg_text()
            ));
        }
    }
    let mut not_built_in = BTreeSet::new();
    for pkg in WHOLE {
        let dir = share_of(&share, pkg).join(pkg).join("msg");
        if pkg == "simulation_interfaces" && !dir.is_dir() {
            continue; // not built (scripts/build_simif.sh): listed as absent
        }
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "msg") {
                let name = format!("{pkg}/{}", p.file_stem().unwrap().to_string_lossy());
                if reg.get(&name).is_none() {
                    not_built_in.insert(name);
                }
            }
        }
    }
    println!(
        "builtin_vs_wheels: {same} of {} built-in definitions equal the wheels' files; \
         packages not in the venv: {absent:?}",
        reg.len()
    );
    assert!(diffs.is_empty(), "{}", diffs.join("\n"));
    assert!(
        not_built_in.is_empty(),
        "in the wheels but not built in: {not_built_in:?}"
    );
    // Only tf2_msgs has no wheel on PyPI; simulation_interfaces has none
    // either and is absent unless scripts/build_simif.sh installed it.
    let simif_given = std::env::var_os("BREAKBENCH_SIMIF_PREFIX").is_some();
    assert!(
        absent.iter().all(|t| t.starts_with("tf2_msgs/")
            || (!simif_given && t.starts_with("simulation_interfaces/"))),
        "{absent:?}"
    );
    assert!(same >= 100, "{same}");

    // The venv as an ament prefix: every .msg of every package in it parses
    // and resolves (their nested types are all there).
    let mut all = TypeRegistry::empty();
    let prefix = share.parent().unwrap().to_path_buf();
    let n = all.load_prefixes(&[prefix]).unwrap();
    for d in all.iter() {
        all.resolve(&d.name.to_string())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    println!(
        "builtin_vs_wheels: the venv as a prefix: {n} .msg files of {} packages parse and resolve",
        all.iter()
            .map(|d| d.name.pkg.clone())
            .collect::<BTreeSet<_>>()
            .len()
    );
    assert!(n >= 102, "{n}");
}
