//! Argument building: each node's command line (`--ros-args ...`) from the
//! launch config, its parameters file and the `--set` overrides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{NodeSpec, SupervisorError};

/// The command-line arguments of one node (after the executable).
pub fn node_args(
    node: &NodeSpec,
    params_file: &Path,
    file_params: &BTreeMap<String, serde_yaml_ng::Value>,
    sets: &[(String, String)],
    share: &Path,
    cwd: &Path,
) -> Vec<String> {
    let mut a = vec![
        "--ros-args".to_string(),
        "-r".into(),
        format!("__node:={}", node.name),
        "--params-file".into(),
        params_file.display().to_string(),
    ];
    for r in &node.remaps {
        a.push("-r".into());
        a.push(r.clone());
    }
    let resolve = |name: &str, v: &str, base: &Path| -> Option<String> {
        let p = Path::new(v);
        ((name.ends_with("_file") || name.ends_with("_dir")) && !v.is_empty() && p.is_relative())
            .then(|| base.join(p).display().to_string())
    };
    for (k, v) in file_params {
        if let serde_yaml_ng::Value::String(s) = v {
            let base = if k.ends_with("_file") { share } else { cwd };
            if let Some(abs) = resolve(k, s, base) {
                a.push("-p".into());
                a.push(format!("{k}:={abs}"));
            }
        }
    }
    for (k, v) in sets {
        let v = resolve(k, v, cwd).unwrap_or_else(|| v.clone());
        a.push("-p".into());
        a.push(format!("{k}:={v}"));
    }
    a
}

/// Parses `--set node.param=value` overrides, grouped by node.
///
/// # Errors
/// [`SupervisorError::BadSet`] (not `node.param=value`),
/// [`SupervisorError::UnknownSetNode`] (no such node in the launch config),
/// [`SupervisorError::UnknownSetParam`] (the parameter is not in that node's
/// section of the params file, `/**` included: every settable parameter is
/// listed there, so an unknown name is a typo, not a silent no-op).
pub fn parse_sets(
    sets: &[String],
    nodes: &[NodeSpec],
    params: &BTreeMap<String, BTreeMap<String, serde_yaml_ng::Value>>,
    params_file: &Path,
) -> Result<BTreeMap<String, Vec<(String, String)>>, SupervisorError> {
    let mut out: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for s in sets {
        let (lhs, v) = s
            .split_once('=')
            .ok_or_else(|| SupervisorError::BadSet(s.clone()))?;
        let (node, param) = lhs
            .split_once('.')
            .ok_or_else(|| SupervisorError::BadSet(s.clone()))?;
        if node.is_empty() || param.is_empty() {
            return Err(SupervisorError::BadSet(s.clone()));
        }
        if !nodes.iter().any(|n| n.name == node) {
            return Err(SupervisorError::UnknownSetNode {
                set: s.clone(),
                node: node.into(),
                nodes: nodes
                    .iter()
                    .map(|n| n.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        let known = params.get(node);
        if !known.is_some_and(|k| k.contains_key(param)) {
            return Err(SupervisorError::UnknownSetParam {
                set: s.clone(),
                node: node.into(),
                param: param.into(),
                params_file: params_file.to_path_buf(),
                known: known
                    .map(|k| k.keys().map(String::as_str).collect::<Vec<_>>().join(", "))
                    .unwrap_or_default(),
            });
        }
        out.entry(node.into())
            .or_default()
            .push((param.into(), v.into()));
    }
    Ok(out)
}

/// The share directory for `config`: the parent of its `launch/` directory.
pub fn default_share_dir(config: &Path) -> PathBuf {
    let abs = std::fs::canonicalize(config).unwrap_or_else(|_| config.to_path_buf());
    let dir = abs.parent().unwrap_or(Path::new(".")).to_path_buf();
    if dir.file_name().is_some_and(|n| n == "launch") {
        dir.parent().unwrap_or(Path::new(".")).to_path_buf()
    } else {
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{config, LaunchConfig};

    #[test]
    fn node_args_resolve_paths_and_sets() {
        let n = NodeSpec {
            name: "oracle".into(),
            package: "breakbench_oracle".into(),
            executable: "oracle".into(),
            ready: None,
            role: Some("oracle".into()),
            after_scenario: false,
            remaps: vec!["/a:=/b".into()],
            env: BTreeMap::new(),
        };
        let mut fp = BTreeMap::new();
        fp.insert(
            "world_file".to_string(),
            serde_yaml_ng::Value::String("config/corridor.yaml".into()),
        );
        fp.insert(
            "manifest_dir".to_string(),
            serde_yaml_ng::Value::String("runs/x".into()),
        );
        fp.insert(
            "abs_file".to_string(),
            serde_yaml_ng::Value::String("/etc/x.yaml".into()),
        );
        fp.insert("seed".to_string(), serde_yaml_ng::Value::Number(3.into()));
        let a = node_args(
            &n,
            Path::new("/share/config/params/corridor.yaml"),
            &fp,
            &[
                ("seed".into(), "7".into()),
                ("manifest_dir".into(), "out".into()),
            ],
            Path::new("/share"),
            Path::new("/work"),
        );
        assert_eq!(
            a,
            [
                "--ros-args",
                "-r",
                "__node:=oracle",
                "--params-file",
                "/share/config/params/corridor.yaml",
                "-r",
                "/a:=/b",
                "-p",
                "manifest_dir:=/work/runs/x",
                "-p",
                "world_file:=/share/config/corridor.yaml",
                "-p",
                "seed:=7",
                "-p",
                "manifest_dir:=/work/out",
            ]
        );
    }

    #[test]
    fn sets_name_the_unknown_node_or_parameter() {
        // The repository: the launch configs live in the root package.
        let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let c = LaunchConfig::load(&root.join("launch/corridor.graph.yaml")).unwrap();
        let pf = root.join(&c.params_file);
        let p = config::node_params(&pf, &c.nodes).unwrap();
        let set = |v: &[&str]| {
            let v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
            parse_sets(&v, &c.nodes, &p, &pf)
        };
        let ok = set(&["sim_bridge.real_time_factor=5", "oracle.use_sim_time=false"]).unwrap();
        assert_eq!(
            ok["sim_bridge"],
            vec![("real_time_factor".to_string(), "5".to_string())]
        );
        // `/**` parameters are settable on every node.
        assert_eq!(
            ok["oracle"],
            vec![("use_sim_time".to_string(), "false".to_string())]
        );
        let e = set(&["sim_bridge.real_time_factr=5"])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("node 'sim_bridge' has no parameter 'real_time_factr'")
                && e.contains("corridor.yaml"),
            "{e}"
        );
        let e = set(&["sim_brige.seed=1"]).unwrap_err().to_string();
        assert!(e.contains("no node 'sim_brige'"), "{e}");
        assert!(matches!(set(&["seed=1"]), Err(SupervisorError::BadSet(_))));
        assert!(matches!(
            set(&["oracle.seed"]),
            Err(SupervisorError::BadSet(_))
        ));
    }
}
