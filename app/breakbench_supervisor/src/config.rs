//! The `breakbench up` launch config (`launch/*.graph.yaml`) and the ROS 2
//! parameters file it names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kraken_interfaces::config::load_yaml_checked;
use serde::{Deserialize, Serialize};

use super::SupervisorError;

/// One node of the graph.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Node name (`-r __node:=<name>`; also its key in the parameters file).
    pub name: String,
    /// ROS package that installs the executable.
    pub package: String,
    /// Executable name.
    pub executable: String,
    /// A line of the node's output containing this marks it ready; the
    /// next node starts only then. `None`: ready as soon as it is started.
    #[serde(default)]
    pub ready: Option<String>,
    /// `oracle`: the run ends when this node exits; its verdict line is the
    /// result. Exactly one node has it.
    #[serde(default)]
    pub role: Option<String>,
    /// Started only after the `--scenario` file (if any) has run.
    #[serde(default)]
    pub after_scenario: bool,
    /// Remapping rules `from:=to`, passed as `-r from:=to`.
    #[serde(default)]
    pub remaps: Vec<String>,
    /// Extra environment variables for this node.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// A launch config.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchConfig {
    pub name: String,
    /// ROS 2 parameters file, relative to the share directory.
    pub params_file: PathBuf,
    /// Started in this order.
    pub nodes: Vec<NodeSpec>,
}

impl LaunchConfig {
    /// Loads and checks `path`: node names unique and valid, remaps of the
    /// form `from:=to`, exactly one node with `role: oracle`, no unknown role.
    ///
    /// # Errors
    /// [`SupervisorError::Config`] naming the file, line and field.
    pub fn load(path: &Path) -> Result<Self, SupervisorError> {
        Ok(load_yaml_checked(path, Self::validate)?)
    }

    fn validate(c: &Self, p: &str) -> Result<(), kraken_interfaces::ConfigError> {
        let sem = |f: String, m: String| kraken_interfaces::ConfigError::semantic(p, &f, m);
        let mut seen = std::collections::BTreeSet::new();
        let mut oracles = 0;
        for (i, n) in c.nodes.iter().enumerate() {
            if n.name.is_empty()
                || !n
                    .name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
            {
                return Err(sem(
                    format!("nodes[{i}].name"),
                    format!("{:?} is not a valid ROS node name", n.name),
                ));
            }
            if !seen.insert(n.name.clone()) {
                return Err(sem(
                    format!("nodes[{i}].name"),
                    format!("duplicate node name {:?}", n.name),
                ));
            }
            for (j, r) in n.remaps.iter().enumerate() {
                if !r.contains(":=") {
                    return Err(sem(
                        format!("nodes[{i}].remaps[{j}]"),
                        format!("{r:?}: expected 'from:=to'"),
                    ));
                }
            }
            match n.role.as_deref() {
                None => {}
                Some("oracle") => oracles += 1,
                Some(other) => {
                    return Err(sem(
                        format!("nodes[{i}].role"),
                        format!("unknown role {other:?} (known: oracle)"),
                    ))
                }
            }
        }
        if oracles != 1 {
            return Err(sem(
                "nodes".into(),
                format!("exactly one node must have `role: oracle`, found {oracles}"),
            ));
        }
        Ok(())
    }
}

/// Parameters of every node from a ROS 2 parameters file
/// (`node: {ros__parameters: {...}}`, `/**` for all nodes), as
/// `node → (name → YAML scalar text)`; `/**` entries are merged under each
/// node's own (the node's own win). Nested mappings flatten to dotted names.
///
/// # Errors
/// [`SupervisorError::ParamsFile`] naming the file and the offending entry.
pub fn node_params(
    path: &Path,
    nodes: &[NodeSpec],
) -> Result<BTreeMap<String, BTreeMap<String, serde_yaml_ng::Value>>, SupervisorError> {
    let pe = |m: String| SupervisorError::ParamsFile {
        path: path.to_path_buf(),
        message: m,
    };
    let text = std::fs::read_to_string(path).map_err(|e| pe(e.to_string()))?;
    let doc: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&text).map_err(|e| pe(e.to_string()))?;
    let serde_yaml_ng::Value::Mapping(top) = doc else {
        return Err(pe("top level must be a mapping of node names".into()));
    };
    let mut wild = BTreeMap::new();
    let mut own: BTreeMap<String, BTreeMap<String, serde_yaml_ng::Value>> = BTreeMap::new();
    for (k, v) in top {
        let key = k
            .as_str()
            .ok_or_else(|| pe("node names must be strings".into()))?
            .to_string();
        let params = v
            .get("ros__parameters")
            .ok_or_else(|| pe(format!("{key}: expected a mapping with 'ros__parameters'")))?;
        let mut flat = BTreeMap::new();
        flatten(params, "", &mut flat).map_err(|m| pe(format!("{key}.ros__parameters: {m}")))?;
        if key == "/**" {
            wild.extend(flat);
        } else {
            let name = key
                .trim_start_matches("/**/")
                .trim_start_matches('/')
                .to_string();
            own.entry(name).or_default().extend(flat);
        }
    }
    Ok(nodes
        .iter()
        .map(|n| {
            let mut m = wild.clone();
            m.extend(own.get(&n.name).cloned().unwrap_or_default());
            (n.name.clone(), m)
        })
        .collect())
}

fn flatten(
    v: &serde_yaml_ng::Value,
    prefix: &str,
    out: &mut BTreeMap<String, serde_yaml_ng::Value>,
) -> Result<(), String> {
    let serde_yaml_ng::Value::Mapping(m) = v else {
        return Err("expected a mapping".into());
    };
    for (k, val) in m {
        let k = k.as_str().ok_or("parameter names must be strings")?;
        let name = if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        };
        if matches!(val, serde_yaml_ng::Value::Mapping(_)) {
            flatten(val, &name, out)?;
        } else {
            out.insert(name, val.clone());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::default_share_dir;

    #[test]
    fn shipped_launch_config_and_params_load() {
        // The repository: the launch configs live in the root package.
        let root = &Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let c = LaunchConfig::load(&root.join("launch/corridor.graph.yaml")).unwrap();
        let names: Vec<&str> = c.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(
            names,
            ["fault_injector", "simple_navigator", "oracle", "sim_bridge"]
        );
        let p = node_params(&root.join(&c.params_file), &c.nodes).unwrap();
        // `/**` use_sim_time: true, overridden by the bridge's own false.
        assert_eq!(
            p["oracle"]["use_sim_time"],
            serde_yaml_ng::Value::Bool(true)
        );
        assert_eq!(
            p["sim_bridge"]["use_sim_time"],
            serde_yaml_ng::Value::Bool(false)
        );
        assert_eq!(
            default_share_dir(&root.join("launch/corridor.graph.yaml")),
            std::fs::canonicalize(root).unwrap()
        );
    }

    #[test]
    fn bad_launch_configs_are_rejected_with_the_field() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("g.yaml");
        for (text, field) in [
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e}\n", "nodes"),
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e, role: oracle, bogus: 1}\n", "bogus"),
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e, role: oracle, remaps: [nope]}\n", "nodes[0].remaps[0]"),
            ("name: x\nparams_file: p.yaml\nnodes:\n  - {name: a, package: p, executable: e, role: oracle}\n  - {name: a, package: p, executable: e}\n", "nodes[1].name"),
        ] {
            std::fs::write(&f, text).unwrap();
            let e = LaunchConfig::load(&f).unwrap_err().to_string();
            assert!(e.contains(field) && e.contains("g.yaml"), "{field}: {e}");
        }
    }
}
