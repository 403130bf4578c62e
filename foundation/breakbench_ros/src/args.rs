//! The subset of the ROS 2 command line (`--ros-args`) that `ros2 run` and
//! `ros2 launch` pass to a node: `-r/--remap from:=to` (also node-scoped
//! `node:from:=to`), `__node:=name`, `__ns:=/ns`, `-p/--param name:=value`,
//! `--params-file file.yaml` (the standard `node_name: ros__parameters:`
//! layout, with `/**` wildcards). Reference: ROS 2 design article
//! "ROS command line arguments" (<https://design.ros2.org/articles/ros_command_line_arguments.html>).

use std::collections::BTreeMap;
use std::path::Path;

use crate::RosError;

/// A typed node parameter value (the ROS 2 parameter types).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    Bool(bool),
    Integer(i64),
    Double(f64),
    String(String),
    BoolArray(Vec<bool>),
    IntegerArray(Vec<i64>),
    DoubleArray(Vec<f64>),
    StringArray(Vec<String>),
}

impl ParamValue {
    /// Parses a `-p name:=value` value the way rcl does: as a YAML scalar or flow sequence.
    pub fn parse(text: &str) -> Result<Self, String> {
        let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?;
        Self::from_yaml(&v)
    }

    fn from_yaml(v: &serde_yaml_ng::Value) -> Result<Self, String> {
        use serde_yaml_ng::Value as Y;
        Ok(match v {
            Y::Bool(b) => ParamValue::Bool(*b),
            Y::Number(n) if n.is_i64() => ParamValue::Integer(n.as_i64().unwrap_or_default()),
            Y::Number(n) => ParamValue::Double(n.as_f64().ok_or("number out of range")?),
            Y::String(s) => ParamValue::String(s.clone()),
            Y::Null => ParamValue::String(String::new()),
            Y::Sequence(items) => {
                if items.iter().all(|i| matches!(i, Y::Bool(_))) {
                    ParamValue::BoolArray(items.iter().filter_map(Y::as_bool).collect())
                } else if items.iter().all(|i| i.as_i64().is_some()) {
                    ParamValue::IntegerArray(items.iter().filter_map(Y::as_i64).collect())
                } else if items.iter().all(|i| i.as_f64().is_some()) {
                    ParamValue::DoubleArray(items.iter().filter_map(Y::as_f64).collect())
                } else if items.iter().all(|i| i.as_str().is_some()) {
                    ParamValue::StringArray(
                        items
                            .iter()
                            .filter_map(|i| i.as_str().map(str::to_string))
                            .collect(),
                    )
                } else {
                    return Err("arrays must hold values of one type".into());
                }
            }
            Y::Mapping(_) | Y::Tagged(_) => {
                return Err("nested mappings are not a parameter value".into())
            }
        })
    }

    fn type_name(&self) -> &'static str {
        match self {
            ParamValue::Bool(_) => "bool",
            ParamValue::Integer(_) => "integer",
            ParamValue::Double(_) => "double",
            ParamValue::String(_) => "string",
            ParamValue::BoolArray(_) => "bool array",
            ParamValue::IntegerArray(_) => "integer array",
            ParamValue::DoubleArray(_) => "double array",
            ParamValue::StringArray(_) => "string array",
        }
    }
}

/// One remapping rule `from:=to`, optionally scoped to one node (`node:from:=to`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    pub node: Option<String>,
    pub from: String,
    pub to: String,
}

/// What `--ros-args` said, after applying `__node`, `__ns`, params files and `-p`
/// (later sources override earlier ones, as in rcl: files in order, then `-p`).
#[derive(Debug, Clone)]
pub struct RosArgs {
    /// Node name (default given by the node, overridden by `__node:=`).
    pub node_name: String,
    /// Absolute namespace, `/` when none (overridden by `__ns:=`).
    pub namespace: String,
    /// Topic/service remaps in command-line order (first match wins).
    pub remaps: Vec<Remap>,
    /// Parameters for this node, by name.
    pub params: BTreeMap<String, ParamValue>,
}

impl RosArgs {
    /// Parses `args` (without the program name) for a node whose default name
    /// is `default_node_name`. Arguments outside `--ros-args ... [--]` are
    /// returned untouched as the second value (for the node's own CLI).
    ///
    /// Errors: [`RosError::Args`] naming the bad argument, [`RosError::ParamsFile`]
    /// naming the file.
    pub fn parse<I, S>(args: I, default_node_name: &str) -> Result<(Self, Vec<String>), RosError>
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let args: Vec<String> = args.into_iter().map(Into::into).collect();
        let mut rest = Vec::new();
        let mut remaps_raw: Vec<(Option<String>, String, String)> = Vec::new();
        let mut cli_params: Vec<(Option<String>, String, ParamValue)> = Vec::new();
        let mut files = Vec::new();
        let mut in_ros = false;
        let mut i = 0;
        let need = |i: usize, flag: &str| -> Result<String, RosError> {
            args.get(i + 1)
                .cloned()
                .ok_or_else(|| RosError::Args(format!("{flag} needs an argument")))
        };
        while i < args.len() {
            let a = args[i].as_str();
            if !in_ros {
                if a == "--ros-args" {
                    in_ros = true;
                } else {
                    rest.push(a.to_string());
                }
                i += 1;
                continue;
            }
            match a {
                "--" => in_ros = false,
                "--ros-args" => {}
                "-r" | "--remap" => {
                    let v = need(i, a)?;
                    remaps_raw.push(split_rule(&v, a)?);
                    i += 1;
                }
                "-p" | "--param" => {
                    let v = need(i, a)?;
                    let (node, name, value) = split_rule(&v, a)?;
                    let pv = ParamValue::parse(&value)
                        .map_err(|e| RosError::Args(format!("{a} {v}: {e}")))?;
                    cli_params.push((node, name, pv));
                    i += 1;
                }
                "--params-file" => {
                    files.push(need(i, a)?);
                    i += 1;
                }
                "--log-level" | "--log-config-file" | "-e" | "--enclave" => i += 1,
                "--enable-rosout-logs"
                | "--disable-rosout-logs"
                | "--enable-stdout-logs"
                | "--disable-stdout-logs"
                | "--enable-external-lib-logs"
                | "--disable-external-lib-logs" => {}
                other => {
                    return Err(RosError::Args(format!(
                        "unknown argument '{other}' inside --ros-args"
                    )))
                }
            }
            i += 1;
        }

        let mut out = RosArgs {
            node_name: default_node_name.to_string(),
            namespace: "/".to_string(),
            remaps: Vec::new(),
            params: BTreeMap::new(),
        };
        // __node / __ns first: node-scoped rules and params files need the final name.
        for (node, from, to) in &remaps_raw {
            if node.as_deref().is_some_and(|n| n != default_node_name) {
                continue;
            }
            match from.as_str() {
                "__node" | "__name" => out.node_name = to.clone(),
                "__ns" => out.namespace = normalize_ns(to)?,
                _ => {}
            }
        }
        for (node, from, to) in remaps_raw {
            if !from.starts_with("__") {
                out.remaps.push(Remap { node, from, to });
            }
        }
        for f in &files {
            let p = load_params_file(Path::new(f), &out.node_name, &out.namespace)?;
            out.params.extend(p);
        }
        for (node, name, value) in cli_params {
            if node.as_deref().is_none_or(|n| n == out.node_name) {
                out.params.insert(name, value);
            }
        }
        Ok((out, rest))
    }

    /// The node's fully qualified name, e.g. `/robot/fault_injector`.
    pub fn fully_qualified_name(&self) -> String {
        if self.namespace == "/" {
            format!("/{}", self.node_name)
        } else {
            format!("{}/{}", self.namespace, self.node_name)
        }
    }

    /// Expands `name` (absolute, relative to the namespace, or `~/private`)
    /// to an absolute name (REP: "Topic and Service name mapping to DDS").
    pub fn expand(&self, name: &str) -> String {
        if let Some(rest) = name.strip_prefix("~/") {
            format!("{}/{}", self.fully_qualified_name(), rest)
        } else if name == "~" {
            self.fully_qualified_name()
        } else if name.starts_with('/') {
            name.to_string()
        } else if self.namespace == "/" {
            format!("/{name}")
        } else {
            format!("{}/{}", self.namespace, name)
        }
    }

    /// The absolute topic or service name `name` resolves to after remapping:
    /// both sides of each rule are expanded, and the first rule whose `from`
    /// equals the expanded name (and whose node scope, if any, is this node) wins.
    pub fn resolve(&self, name: &str) -> String {
        let full = self.expand(name);
        for r in &self.remaps {
            if r.node.as_deref().is_some_and(|n| n != self.node_name) {
                continue;
            }
            if self.expand(&r.from) == full {
                return self.expand(&r.to);
            }
        }
        full
    }

    /// Parameter `name` as a bool, `default` if unset; an error for another type.
    pub fn param_bool(&self, name: &str, default: bool) -> Result<bool, RosError> {
        match self.params.get(name) {
            None => Ok(default),
            Some(ParamValue::Bool(b)) => Ok(*b),
            Some(v) => Err(wrong_type(name, "bool", v)),
        }
    }
    /// Parameter `name` as an integer, `default` if unset.
    pub fn param_i64(&self, name: &str, default: i64) -> Result<i64, RosError> {
        match self.params.get(name) {
            None => Ok(default),
            Some(ParamValue::Integer(i)) => Ok(*i),
            Some(v) => Err(wrong_type(name, "integer", v)),
        }
    }
    /// Parameter `name` as a double (integers are accepted), `default` if unset.
    pub fn param_f64(&self, name: &str, default: f64) -> Result<f64, RosError> {
        match self.params.get(name) {
            None => Ok(default),
            Some(ParamValue::Double(d)) => Ok(*d),
            Some(ParamValue::Integer(i)) => Ok(*i as f64),
            Some(v) => Err(wrong_type(name, "double", v)),
        }
    }
    /// Parameter `name` as a string, `default` if unset.
    pub fn param_string(&self, name: &str, default: &str) -> Result<String, RosError> {
        match self.params.get(name) {
            None => Ok(default.to_string()),
            Some(ParamValue::String(s)) => Ok(s.clone()),
            Some(v) => Err(wrong_type(name, "string", v)),
        }
    }
}

fn wrong_type(name: &str, want: &str, got: &ParamValue) -> RosError {
    RosError::Param {
        name: name.to_string(),
        message: format!("expected {want}, got {} ({got:?})", got.type_name()),
    }
}

fn normalize_ns(ns: &str) -> Result<String, RosError> {
    let t = ns.trim_end_matches('/');
    if t.is_empty() {
        return Ok("/".into());
    }
    if !t.starts_with('/') {
        return Ok(format!("/{t}"));
    }
    if t.contains("//") {
        return Err(RosError::Name {
            name: ns.into(),
            message: "repeated '/'".into(),
        });
    }
    Ok(t.to_string())
}

/// Splits `[node:]from:=to`.
fn split_rule(rule: &str, flag: &str) -> Result<(Option<String>, String, String), RosError> {
    let (lhs, rhs) = rule
        .split_once(":=")
        .ok_or_else(|| RosError::Args(format!("{flag} {rule}: expected 'from:=to'")))?;
    let (node, from) = match lhs.split_once(':') {
        Some((n, f)) => (Some(n.to_string()), f.to_string()),
        None => (None, lhs.to_string()),
    };
    if from.is_empty() {
        return Err(RosError::Args(format!("{flag} {rule}: empty name")));
    }
    Ok((node, from, rhs.to_string()))
}

/// Reads the parameters for node `node_name` in `namespace` from a ROS 2
/// parameters file: top-level keys are node names (`fault_injector`,
/// `/ns/fault_injector`, `/**`, `/**/fault_injector`), each with a
/// `ros__parameters` mapping; nested mappings flatten to dotted names.
/// Entries for other nodes are ignored; later matching entries win.
pub fn load_params_file(
    path: &Path,
    node_name: &str,
    namespace: &str,
) -> Result<BTreeMap<String, ParamValue>, RosError> {
    let pe = |message: String| RosError::ParamsFile {
        path: path.display().to_string(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| pe(e.to_string()))?;
    let doc: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&text).map_err(|e| pe(e.to_string()))?;
    let serde_yaml_ng::Value::Mapping(top) = doc else {
        return Err(pe("top level must be a mapping of node names".into()));
    };
    let fq = if namespace == "/" {
        format!("/{node_name}")
    } else {
        format!("{namespace}/{node_name}")
    };
    let mut out = BTreeMap::new();
    for (k, v) in top {
        let key = k
            .as_str()
            .ok_or_else(|| pe("node names must be strings".into()))?;
        let matches = key == "/**"
            || key == node_name
            || key == fq
            || key.strip_prefix("/**/").is_some_and(|n| n == node_name)
            || key
                .strip_prefix('/')
                .is_some_and(|k| k == fq.trim_start_matches('/'));
        if !matches {
            continue;
        }
        let serde_yaml_ng::Value::Mapping(inner) = v else {
            return Err(pe(format!(
                "{key}: expected a mapping with 'ros__parameters'"
            )));
        };
        for (ik, iv) in inner {
            if ik.as_str() != Some("ros__parameters") {
                return Err(pe(format!(
                    "{key}: unknown key {ik:?} (expected 'ros__parameters')"
                )));
            }
            flatten(&iv, "", &mut out).map_err(|e| pe(format!("{key}.ros__parameters: {e}")))?;
        }
    }
    Ok(out)
}

fn flatten(
    v: &serde_yaml_ng::Value,
    prefix: &str,
    out: &mut BTreeMap<String, ParamValue>,
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
            let pv = ParamValue::from_yaml(val).map_err(|e| format!("{name}: {e}"))?;
            out.insert(name, pv);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> (RosArgs, Vec<String>) {
        RosArgs::parse(args.iter().copied(), "fault_injector").unwrap()
    }

    #[test]
    fn launch_style_command_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.yaml");
        std::fs::write(
            &f,
            "/**:\n  ros__parameters:\n    use_sim_time: true\n    seed: 3\n\
             /robot/fault_injector:\n  ros__parameters:\n    channels_file: /c.yaml\n    seed: 7\n    nested:\n      rate_hz: 2.5\n\
             other_node:\n  ros__parameters:\n    seed: 99\n",
        )
        .unwrap();
        let (a, rest) = parse(&[
            "--verbose",
            "--ros-args",
            "-r",
            "__ns:=/robot",
            "-r",
            "gnss/fix:=/sensors/fix",
            "--params-file",
            f.to_str().unwrap(),
            "-p",
            "enable:=true",
            "-p",
            "other_node:enable:=false",
            "--log-level",
            "debug",
            "--",
            "tail",
        ]);
        assert_eq!(rest, vec!["--verbose".to_string(), "tail".to_string()]);
        assert_eq!(a.namespace, "/robot");
        assert_eq!(a.fully_qualified_name(), "/robot/fault_injector");
        assert_eq!(a.params["use_sim_time"], ParamValue::Bool(true));
        assert_eq!(
            a.params["seed"],
            ParamValue::Integer(7),
            "the node's own entry overrides /**"
        );
        assert_eq!(a.params["nested.rate_hz"], ParamValue::Double(2.5));
        assert_eq!(
            a.params["channels_file"],
            ParamValue::String("/c.yaml".into())
        );
        assert!(a.param_bool("enable", false).unwrap());
        // Relative names live in the namespace; the remap's `from` is expanded the same way.
        assert_eq!(a.resolve("gnss/fix"), "/sensors/fix");
        assert_eq!(
            a.resolve("/gnss/fix"),
            "/gnss/fix",
            "an absolute name ignores the namespace"
        );
        assert_eq!(a.resolve("imu"), "/robot/imu");
        assert_eq!(a.resolve("~/status"), "/robot/fault_injector/status");
    }

    #[test]
    fn node_rename_and_scoped_rules() {
        let (a, _) = parse(&[
            "--ros-args",
            "-r",
            "__node:=inj2",
            "-r",
            "inj2:/a:=/b",
            "-r",
            "x:/c:=/d",
        ]);
        assert_eq!(a.node_name, "inj2");
        assert_eq!(a.resolve("/a"), "/b");
        assert_eq!(
            a.resolve("/c"),
            "/c",
            "a rule scoped to another node does not apply"
        );
        assert_eq!(a.resolve("~/status"), "/inj2/status");
    }

    #[test]
    fn typed_parameters() {
        let (a, _) = parse(&[
            "--ros-args",
            "-p",
            "x:=1.5",
            "-p",
            "n:=4",
            "-p",
            "s:=hello",
            "-p",
            "v:=[1, 2]",
        ]);
        assert_eq!(a.param_f64("x", 0.0).unwrap(), 1.5);
        assert_eq!(
            a.param_f64("n", 0.0).unwrap(),
            4.0,
            "integers are accepted as doubles"
        );
        assert_eq!(a.param_i64("n", 0).unwrap(), 4);
        assert_eq!(a.param_string("s", "").unwrap(), "hello");
        assert_eq!(a.params["v"], ParamValue::IntegerArray(vec![1, 2]));
        assert_eq!(a.param_i64("missing", 42).unwrap(), 42);
        let err = a.param_bool("s", false).unwrap_err().to_string();
        assert!(
            err.contains("'s'") && err.contains("expected bool"),
            "{err}"
        );
    }

    #[test]
    fn bad_arguments_are_errors() {
        for bad in [
            &["--ros-args", "-r"][..],
            &["--ros-args", "-r", "nope"],
            &["--ros-args", "--bogus"],
        ] {
            assert!(
                matches!(
                    RosArgs::parse(bad.iter().copied(), "n"),
                    Err(RosError::Args(_))
                ),
                "{bad:?}"
            );
        }
        let err =
            RosArgs::parse(["--ros-args", "--params-file", "/nonexistent.yaml"], "n").unwrap_err();
        assert!(err.to_string().contains("/nonexistent.yaml"), "{err}");
    }
}
