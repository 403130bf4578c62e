//! [`Scenario::load`]: a scenario file and the world, robot and navigator
//! files it names, with every check that needs more than one of them (a
//! faulted channel the controller reads, a mode that changes something it
//! reads, test times within the run, names the controller publishes, the
//! severity searches).

use std::collections::BTreeMap;
use std::path::Path;

use breakbench_navigator::NavigatorConfig;
use breakbench_sim_bridge::PlantConfig;
use breakbench_world::World;
use kraken_interfaces::config::load_yaml_checked;
use kraken_interfaces::{mode_from_name, ConfigError};

use super::scenario::*;
use super::CampaignError;

pub mod size;
mod validate;

impl Scenario {
    /// Loads `path` and the world, robot and navigator files it names
    /// (relative to the scenario file), and validates every axis by building
    /// its fault stage for each value.
    ///
    /// # Errors
    /// A [`CampaignError`] naming the file and field of the first problem.
    pub fn load(path: &Path) -> Result<Self, CampaignError> {
        size::check_file_size(path)?;
        let file: ScenarioFile = load_yaml_checked(path, ScenarioFile::validate)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let world_path = base.join(&file.world);
        let robot_path = base.join(&file.robot);
        let nav_path = base.join(&file.navigator);
        let world = World::load(&world_path)?;
        let plant = PlantConfig::load(&robot_path)?;
        let navigator = NavigatorConfig::load(&nav_path)?;
        // Across files: a start the navigator already takes for the goal
        // would self-report success without moving.
        let d = (world.start.x_m - world.goal.center_m[0])
            .hypot(world.start.y_m - world.goal.center_m[1]);
        if d <= navigator.goal_tolerance_m {
            let text = kraken_interfaces::config::read_text(&nav_path)?;
            return Err(ConfigError::semantic(
                &nav_path.display().to_string(),
                "goal_tolerance_m",
                format!(
                    "{} m reaches the start of {} ({d:.3} m from the goal centre): the navigator would self-report success without moving",
                    navigator.goal_tolerance_m,
                    world_path.display()
                ),
            )
            .located(&text)
            .into());
        }
        // Across files: every faulted sensor channel must be one the
        // declared controller reads (a GNSS fault under a wheel-odometry
        // navigator would change nothing it sees).
        let inputs = navigator.pose_source.inputs();
        let faulted = file
            .axes
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("axes[{i}].channel"), &a.channel))
            .chain(file.tests.iter().enumerate().flat_map(|(i, t)| {
                t.faults
                    .iter()
                    .enumerate()
                    .map(move |(j, f)| (format!("tests[{i}].faults[{j}].channel"), &f.channel))
            }));
        for (field, channel) in faulted {
            // An actuator channel's consumer is the plant.
            let actuator = matches!(harness_channel(channel), Some(HarnessChannel::Actuator(_)));
            if !actuator && !inputs.iter().any(|(n, _)| n == channel) {
                let text = kraken_interfaces::config::read_text(path)?;
                let names: Vec<&str> = inputs.iter().map(|(n, _)| *n).collect();
                return Err(ConfigError::semantic(
                    &path.display().to_string(),
                    &field,
                    format!(
                        "channel '{channel}' has no consumer: the navigator of {} (pose_source: {}) reads {}",
                        nav_path.display(),
                        serde_json::to_value(navigator.pose_source)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default(),
                        names.join(", ")
                    ),
                )
                .located(&text)
                .into());
            }
        }
        let controller = super::run::controller_under_test(&navigator, &world)?;
        // Across files: each axis' mode must change a field the controller
        // reads on its channel (else every run is bit-identical to nominal).
        for (i, axis) in file.axes.iter().enumerate() {
            let (Some(mode), Some(&(_, kind))) = (
                mode_from_name(&axis.mode),
                controller.inputs().iter().find(|(n, _)| *n == axis.channel),
            ) else {
                continue; // unknown mode: refused by validate; no consumer: below
            };
            if let Some(why) = super::consumers::unreachable_axis(
                mode,
                &axis.mode,
                &axis.channel,
                kind,
                controller.reads(kind),
            ) {
                let text = kraken_interfaces::config::read_text(path)?;
                return Err(ConfigError::semantic(
                    &path.display().to_string(),
                    &format!("axes[{i}].mode"),
                    why,
                )
                .located(&text)
                .into());
            }
        }
        // Across files: every /diagnostics status and /rosout logger a test
        // names must be one the controller publishes (a misspelt name would
        // never be seen, and read as the robot failing to report).
        if !file.tests.is_empty() {
            let published = controller.published_names();
            for (i, t) in file.tests.iter().enumerate() {
                for (field, name, logger) in t.published_names(&format!("tests[{i}]")) {
                    let (known, what) = if logger {
                        (&published.loggers, "/rosout logger")
                    } else {
                        (&published.diagnostics, "/diagnostics status")
                    };
                    if !known.contains(&name) {
                        let text = kraken_interfaces::config::read_text(path)?;
                        let list: Vec<String> = known.iter().map(|n| format!("'{n}'")).collect();
                        return Err(ConfigError::semantic(
                            &path.display().to_string(),
                            &field,
                            format!(
                                "no {what} '{name}': the navigator of {} publishes {}",
                                nav_path.display(),
                                if list.is_empty() {
                                    "none".to_string()
                                } else {
                                    list.join(", ")
                                }
                            ),
                        )
                        .located(&text)
                        .into());
                    }
                }
            }
        }
        // Across files: every time of a test must fall within the run (it
        // lasts the world's mission_timeout_s): a trigger at 500 s of a 60 s
        // mission would make every run precondition_failed.
        for (i, t) in file.tests.iter().enumerate() {
            for (field, v) in t.times(&format!("tests[{i}]")) {
                if v > world.mission_timeout_s {
                    let text = kraken_interfaces::config::read_text(path)?;
                    return Err(ConfigError::semantic(
                        &path.display().to_string(),
                        &field,
                        format!(
                            "{v} s is beyond the end of the run: every run lasts mission_timeout_s {} s of {}{}",
                            world.mission_timeout_s,
                            world_path.display(),
                            if field.ends_with(".duration_s") {
                                " (give no duration_s or clear for a fault that lasts to the end)"
                            } else if field.ends_with(".at.at_s") {
                                " (at_s + tol_s)"
                            } else {
                                ""
                            }
                        ),
                    )
                    .located(&text)
                    .into());
                }
            }
        }
        // Across files: a phase step finer than the plant's step would make
        // neighbouring phases fire at the same sim step (identical runs).
        for (i, t) in file.tests.iter().enumerate() {
            let Some(ps) = &t.phase_sweep else { continue };
            let dphase = ps.span_s / ps.steps as f64;
            let steps_per_phase = dphase / plant.step_s;
            if dphase >= plant.step_s * (1.0 - 1e-9)
                && (steps_per_phase - steps_per_phase.round()).abs() > 1e-6
            {
                let text = kraken_interfaces::config::read_text(path)?;
                return Err(ConfigError::semantic(
                    &path.display().to_string(),
                    &format!("tests[{i}].phase_sweep.span_s"),
                    format!(
                        "{} s in {} steps are {dphase} s apart, not a whole number of the plant's step_s {} s of {}: the trigger can only fire on a step, so the phases would not be the shifts they name",
                        ps.span_s,
                        ps.steps,
                        plant.step_s,
                        robot_path.display()
                    ),
                )
                .located(&text)
                .into());
            }
            if dphase < plant.step_s * (1.0 - 1e-9) {
                let text = kraken_interfaces::config::read_text(path)?;
                return Err(ConfigError::semantic(
                    &path.display().to_string(),
                    &format!("tests[{i}].phase_sweep.steps"),
                    format!(
                        "{} steps over {} s are {dphase} s apart, finer than the plant's step_s {} s of {}: neighbouring phases would fire at the same step",
                        ps.steps,
                        ps.span_s,
                        plant.step_s,
                        robot_path.display()
                    ),
                )
                .located(&text)
                .into());
            }
        }
        // Across files: the input-gap limit must exceed every sensor period
        // of the robot, or every run would be starved by the plant's own
        // rate (REQ-TEST-STARVATION).
        let periods = [
            Some(("lidar.rate_hz", plant.lidar.rate_hz)),
            Some(("odometry.rate_hz", plant.odometry.rate_hz)),
            plant.gnss.as_ref().map(|g| ("gnss.rate_hz", g.rate_hz)),
            plant.imu.as_ref().map(|m| ("imu.rate_hz", m.rate_hz)),
        ];
        for (i, t) in file.tests.iter().enumerate() {
            if let Some((name, hz)) = periods
                .iter()
                .flatten()
                .find(|(_, hz)| 1.0 / hz >= t.max_input_gap_s)
            {
                let text = kraken_interfaces::config::read_text(path)?;
                return Err(ConfigError::semantic(
                    &path.display().to_string(),
                    &format!("tests[{i}].max_input_gap_s"),
                    format!(
                        "{:?} s is not longer than the period {:?} s of {name} {hz:?} of {}: every run would count as starved",
                        t.max_input_gap_s,
                        1.0 / hz,
                        robot_path.display()
                    ),
                )
                .located(&text)
                .into());
            }
        }
        // Across files: each navigator-axis value must fit the navigator
        // file's field; a fault axis' timing must fall within the run; the
        // detection's status must be one every variant publishes.
        let semantic = |field: &str, msg: String| -> Result<(), CampaignError> {
            let text = kraken_interfaces::config::read_text(path)?;
            Err(
                ConfigError::semantic(&path.display().to_string(), field, msg)
                    .located(&text)
                    .into(),
            )
        };
        let mut variants = BTreeMap::new();
        for key in file.variant_keys() {
            let mut nav = navigator.clone();
            for (i, (a, j)) in file.navigator_axes.iter().zip(&key).enumerate() {
                match navigator_with(&nav, &a.parameter, &a.values[*j]) {
                    Ok(n) => nav = n,
                    Err(m) => {
                        let field = if m.contains("has no parameter") {
                            format!("navigator_axes[{i}].parameter")
                        } else {
                            format!("navigator_axes[{i}].values[{j}]")
                        };
                        semantic(&field, format!("{m} (navigator {})", nav_path.display()))?;
                    }
                }
            }
            if let Some(d) = &file.detection {
                let c = super::run::controller_under_test(&nav, &world)?;
                let published = c.published_names();
                if !published.diagnostics.contains(&d.diagnostic) {
                    let list: Vec<String> = published
                        .diagnostics
                        .iter()
                        .map(|n| format!("'{n}'"))
                        .collect();
                    semantic(
                        "detection.diagnostic",
                        format!(
                            "no /diagnostics status '{}': the navigator of {}{} publishes {}",
                            d.diagnostic,
                            nav_path.display(),
                            if key.is_empty() {
                                String::new()
                            } else {
                                format!(" with {}", file.variant_label(&key))
                            },
                            if list.is_empty() {
                                "none".to_string()
                            } else {
                                list.join(", ")
                            }
                        ),
                    )?;
                }
            }
            variants.insert(key, nav);
        }
        for (i, a) in file.axes.iter().enumerate() {
            let end = a.at_s + a.duration_s.unwrap_or(0.0);
            if end > world.mission_timeout_s {
                let field = if a.duration_s.is_some() {
                    format!("axes[{i}].duration_s")
                } else {
                    format!("axes[{i}].at_s")
                };
                semantic(
                    &field,
                    format!(
                        "the fault would end at {end} s, beyond the end of the run: every run lasts mission_timeout_s {} s of {}",
                        world.mission_timeout_s,
                        world_path.display()
                    ),
                )?;
            }
        }
        // Last: the severity searches name the axes checked above.
        for (i, x) in file.escape_search.iter().enumerate() {
            if file.escape_search[..i].iter().any(|o| o.name == x.name) {
                semantic(
                    &format!("escape_search[{i}].name"),
                    format!("duplicate search '{}'", x.name),
                )?;
            }
            if let Err((f, m)) = x.validate(&format!("escape_search[{i}]"), &file) {
                semantic(&f, m)?;
            }
        }
        rising_edges_fit_the_step(path, &file, &plant, &robot_path)?;
        nominal_possible(
            path,
            &file,
            (&navigator, &variants),
            &world,
            &plant,
            [&world_path, &robot_path, &nav_path],
        )?;
        let hash = breakbench_records::scenario_hash(&[path, &world_path, &robot_path, &nav_path])?;
        Ok(Self {
            file,
            path: path.to_path_buf(),
            world,
            plant,
            navigator,
            hash,
            variants,
        })
    }
}

/// The load-time half of the nominal sanity gate (REQ-NOMINAL-GATE): a
/// navigator under which no fault-free run can succeed (the file's
/// `navigator`, or a navigator axis' variant of `variants`), and a navigator
/// axis the declared controller does not read; `paths` are the world, robot
/// and navigator files.
///
/// # Errors
/// A [`CampaignError`] naming the navigator file's field (the file as
/// written) or the scenario's `navigator_axes` field (a variant).
fn nominal_possible(
    path: &Path,
    file: &ScenarioFile,
    (navigator, variants): (&NavigatorConfig, &BTreeMap<Vec<usize>, NavigatorConfig>),
    world: &World,
    plant: &PlantConfig,
    [world_path, robot_path, nav_path]: [&Path; 3],
) -> Result<(), CampaignError> {
    use super::sanity::{axis_without_effect, impossible_nominal};
    let semantic = |p: &Path, field: &str, msg: String| -> CampaignError {
        match kraken_interfaces::config::read_text(p) {
            Ok(text) => ConfigError::semantic(&p.display().to_string(), field, msg)
                .located(&text)
                .into(),
            Err(e) => e.into(),
        }
    };
    let files = format!(
        "world {}, robot {}",
        world_path.display(),
        robot_path.display()
    );
    if let Some((field, why)) = impossible_nominal(navigator, world, plant) {
        return Err(semantic(nav_path, field, format!("{why} ({files})")));
    }
    for (i, a) in file.navigator_axes.iter().enumerate() {
        if let Some(why) = axis_without_effect(navigator, &a.parameter) {
            return Err(semantic(
                path,
                &format!("navigator_axes[{i}].parameter"),
                format!("{why} (navigator {})", nav_path.display()),
            ));
        }
    }
    for (key, nav) in variants.iter().filter(|(k, _)| !k.is_empty()) {
        if let Some((field, why)) = impossible_nominal(nav, world, plant) {
            return Err(semantic(
                path,
                "navigator_axes",
                format!(
                    "with {}, the navigator's {field}: {why} ({files})",
                    file.variant_label(key)
                ),
            ));
        }
    }
    Ok(())
}

/// A `rising_edge` needs a false step and then a true one, so it fires at
/// the plant's second step at the earliest: a `timeout_s` below the robot's
/// `step_s` can never be met (REQ-TRIGGER-FIRABLE).
///
/// # Errors
/// A [`CampaignError`] naming the trigger's or clear's `timeout_s`.
fn rising_edges_fit_the_step(
    path: &Path,
    file: &ScenarioFile,
    plant: &PlantConfig,
    robot_path: &Path,
) -> Result<(), CampaignError> {
    use breakbench_oracle::expect::TriggerSpec;
    for (i, t) in file.tests.iter().enumerate() {
        for (j, f) in t.faults.iter().enumerate() {
            for (key, spec) in [("trigger", Some(&f.trigger)), ("clear", f.clear.as_ref())] {
                let Some(TriggerSpec::RisingEdge(r)) = spec else {
                    continue;
                };
                if r.timeout_s < plant.step_s {
                    let text = kraken_interfaces::config::read_text(path)?;
                    return Err(ConfigError::semantic(
                        &path.display().to_string(),
                        &format!("tests[{i}].faults[{j}].{key}.rising_edge.timeout_s"),
                        format!(
                            "{} s is below the plant's step_s {} s of {}: a rising edge needs a false step and a true one, so it cannot fire before the second step",
                            r.timeout_s,
                            plant.step_s,
                            robot_path.display()
                        ),
                    )
                    .located(&text)
                    .into());
                }
            }
        }
    }
    Ok(())
}
