//! The simulator of an external stack driven through the ROS 2 simulator
//! standard `simulation_interfaces` (issue 29, REQ-SIMIF-DRIVE): `breakbench
//! campaign --graph-cmd ... --simulator FILE`, a YAML file
//!
//! ```yaml
//! simulator: simulation_interfaces   # the only kind
//! service_prefix: /sim_bridge        # Gazebo (ros_gz_sim): /gzserver; root: /
//! entity: robot                      # the robot's entity name in the simulator
//! ```
//!
//! With it the campaign starts each run with `<service_prefix>/
//! set_simulation_state` PLAYING after arming (instead of a std_srvs/Trigger
//! start service; the simulator must be launched stopped or paused), checks
//! that `<service_prefix>/get_entity_state` knows `entity` before arming,
//! and, kept running, resets the simulator with `<service_prefix>/
//! reset_simulation` (SCOPE_DEFAULT) before the `--reset-service` calls: the
//! reset rule `simulation_interfaces`.

use std::path::Path;

use serde::Deserialize;

use crate::SupervisorError;

/// The kinds of simulator interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SimulatorKind {
    /// The ROS 2 standard `simulation_interfaces` (1.x).
    SimulationInterfaces,
}

/// A `--simulator` file (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulatorConfig {
    /// The interface the simulator speaks.
    pub simulator: SimulatorKind,
    /// The namespace of its services (absolute, no trailing `/`).
    pub service_prefix: String,
    /// The robot's entity name (GetEntityState).
    pub entity: String,
}

impl SimulatorConfig {
    /// Parses `text` (the contents of `path`) and checks the names.
    ///
    /// # Errors
    /// [`SupervisorError::Simulator`] naming `path`, the line and the field
    /// (an unknown field, a missing one, an unknown `simulator` kind), or a
    /// `service_prefix` that is not absolute or ends with `/`, or an empty
    /// `entity`.
    pub fn parse(path: &Path, text: &str) -> Result<Self, SupervisorError> {
        let err = |message: String| SupervisorError::Simulator {
            path: path.to_path_buf(),
            message,
        };
        let c: Self = serde_yaml_ng::from_str(text).map_err(|e| err(e.to_string()))?;
        let p = &c.service_prefix;
        if p != "/" && (!p.starts_with('/') || p.ends_with('/') || p.contains("//")) {
            return Err(err(format!(
                "service_prefix {p:?}: expected an absolute ROS namespace such as /sim_bridge or /gzserver (no trailing '/'), or / for services at the root (Isaac Sim)"
            )));
        }
        if c.entity.trim().is_empty() {
            return Err(err(
                "entity: empty (the robot's entity name in the simulator)".into(),
            ));
        }
        Ok(c)
    }

    /// Reads and parses the file at `path`.
    ///
    /// # Errors
    /// As [`Self::parse`]; an unreadable file.
    pub fn load(path: &Path) -> Result<Self, SupervisorError> {
        let text = std::fs::read_to_string(path).map_err(|e| SupervisorError::Simulator {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::parse(path, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SimulatorConfig, String> {
        SimulatorConfig::parse(Path::new("sim.yaml"), text).map_err(|e| e.to_string())
    }

    #[test]
    fn a_valid_file_parses() {
        let c =
            parse("simulator: simulation_interfaces\nservice_prefix: /gzserver\nentity: robot\n")
                .unwrap();
        assert_eq!(
            c,
            SimulatorConfig {
                simulator: SimulatorKind::SimulationInterfaces,
                service_prefix: "/gzserver".into(),
                entity: "robot".into(),
            }
        );
    }

    #[test]
    fn bad_files_are_named_with_line_and_field() {
        let e =
            parse("simulator: simulation_interfaces\nservice_prefix: /s\nentity: r\nground: x\n")
                .unwrap_err();
        assert!(
            e.starts_with("--simulator sim.yaml: ")
                && e.contains("unknown field `ground`")
                && e.contains("line 4"),
            "{e}"
        );
        let e = parse("simulator: gazebo\nservice_prefix: /s\nentity: r\n").unwrap_err();
        assert!(
            e.contains("unknown variant `gazebo`") && e.contains("line 1"),
            "{e}"
        );
        let e = parse("simulator: simulation_interfaces\nentity: r\n").unwrap_err();
        assert!(e.contains("missing field `service_prefix`"), "{e}");
        let e = parse("simulator: simulation_interfaces\nservice_prefix: sim/\nentity: r\n")
            .unwrap_err();
        assert!(e.contains("service_prefix \"sim/\""), "{e}");
        let e = parse("simulator: simulation_interfaces\nservice_prefix: /sim\nentity: ' '\n")
            .unwrap_err();
        assert!(e.contains("entity: empty"), "{e}");
    }
}
