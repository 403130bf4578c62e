//! [`Scenario::load`]: a scenario file and the world, robot and navigator
//! files it names, with every check that needs more than one of them (a
//! faulted channel the controller reads, a mode that changes something it
//! reads, test times within the run, names the controller publishes, the
//! severity searches).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use breakbench_navigator::NavigatorConfig;
use breakbench_sim_bridge::PlantConfig;
use breakbench_world::World;
use kraken_interfaces::config::load_yaml_checked;
use kraken_interfaces::ConfigError;

use super::scenario::*;
use super::CampaignError;

pub mod size;
mod validate;

impl Scenario {
    /// Loads `path` and the world, robot and navigator files it names
    /// (relative to the scenario file), and validates every axis by building
    /// its fault stage for each value. The checks across files run in the
    /// order of [`across`]'s functions and the first problem is reported.
    ///
    /// # Errors
    /// A [`CampaignError`] naming the file and field of the first problem.
    pub fn load(path: &Path) -> Result<Self, CampaignError> {
        size::check_file_size(path)?;
        let file: ScenarioFile = load_yaml_checked(path, ScenarioFile::validate)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let l = Loaded {
            path,
            world_path: base.join(&file.world),
            robot_path: base.join(&file.robot),
            nav_path: base.join(&file.navigator),
            world: World::load(&base.join(&file.world))?,
            plant: PlantConfig::load(&base.join(&file.robot))?,
            navigator: NavigatorConfig::load(&base.join(&file.navigator))?,
            file,
        };
        l.goal_not_at_start()?;
        l.faulted_channels_consumed()?;
        let controller = super::run::controller_under_test(&l.navigator, &l.world)?;
        l.axes_reach_the_controller(controller.as_ref())?;
        l.test_names_published(controller.as_ref())?;
        l.test_times_within_the_run()?;
        l.phase_sweeps_on_the_step()?;
        l.input_gaps_above_the_periods()?;
        let variants = l.variants()?;
        l.axis_timing_within_the_run()?;
        l.searches()?;
        rising_edges_fit_the_step(path, &l.file, &l.plant, &l.robot_path)?;
        nominal_possible(
            path,
            &l.file,
            (&l.navigator, &variants),
            &l.world,
            &l.plant,
            [&l.world_path, &l.robot_path, &l.nav_path],
        )?;
        let hash =
            breakbench_records::scenario_hash(&[path, &l.world_path, &l.robot_path, &l.nav_path])?;
        Ok(Self {
            file: l.file,
            path: path.to_path_buf(),
            world: l.world,
            plant: l.plant,
            navigator: l.navigator,
            hash,
            variants,
        })
    }
}

/// A scenario file as parsed and checked on its own, with the world, robot
/// and navigator files it names: what the checks across files read.
pub(super) struct Loaded<'a> {
    pub path: &'a Path,
    pub file: ScenarioFile,
    pub world_path: PathBuf,
    pub robot_path: PathBuf,
    pub nav_path: PathBuf,
    pub world: World,
    pub plant: PlantConfig,
    pub navigator: NavigatorConfig,
}

impl Loaded<'_> {
    /// The error for `field` of the file at `file` (the scenario or one it
    /// names), located at its line.
    pub fn refuse(&self, file: &Path, field: &str, msg: String) -> CampaignError {
        match kraken_interfaces::config::read_text(file) {
            Ok(text) => ConfigError::semantic(&file.display().to_string(), field, msg)
                .located(&text)
                .into(),
            Err(e) => e.into(),
        }
    }

    /// `Err` of [`Loaded::refuse`] for the scenario file's `field`.
    pub fn semantic(&self, field: &str, msg: String) -> Result<(), CampaignError> {
        Err(self.refuse(self.path, field, msg))
    }
}

mod across;

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
