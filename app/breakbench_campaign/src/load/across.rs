//! The checks of [`Scenario::load`] that need more than one file: the
//! scenario against the world, the robot (plant) and the navigator, each a
//! method of [`Loaded`], run in this file's order.

use std::collections::BTreeMap;

use breakbench_navigator::controller::Controller;
use breakbench_navigator::NavigatorConfig;
use kraken_interfaces::mode_from_name;

use super::super::scenario::*;
use super::super::CampaignError;
use super::Loaded;

type Checked = Result<(), CampaignError>;

/// `'a', 'b'`, or `none` for an empty list.
fn quoted_list<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    let list: Vec<String> = names.into_iter().map(|n| format!("'{n}'")).collect();
    if list.is_empty() {
        "none".to_string()
    } else {
        list.join(", ")
    }
}

impl Loaded<'_> {
    /// A start the navigator already takes for the goal would self-report
    /// success without moving.
    pub fn goal_not_at_start(&self) -> Checked {
        let (world, navigator) = (&self.world, &self.navigator);
        let d = (world.start.x_m - world.goal.center_m[0])
            .hypot(world.start.y_m - world.goal.center_m[1]);
        if d <= navigator.goal_tolerance_m {
            return Err(self.refuse(
                &self.nav_path,
                "goal_tolerance_m",
                format!(
                    "{} m reaches the start of {} ({d:.3} m from the goal centre): the navigator would self-report success without moving",
                    navigator.goal_tolerance_m,
                    self.world_path.display()
                ),
            ));
        }
        Ok(())
    }

    /// Every faulted sensor channel must be one the declared controller
    /// reads (a GNSS fault under a wheel-odometry navigator would change
    /// nothing it sees); an actuator channel's consumer is the plant.
    pub fn faulted_channels_consumed(&self) -> Checked {
        let inputs = self.navigator.pose_source.inputs();
        let file = &self.file;
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
            let actuator = matches!(harness_channel(channel), Some(HarnessChannel::Actuator(_)));
            if !actuator && !inputs.iter().any(|(n, _)| n == channel) {
                let names: Vec<&str> = inputs.iter().map(|(n, _)| *n).collect();
                return self.semantic(
                    &field,
                    format!(
                        "channel '{channel}' has no consumer: the navigator of {} (pose_source: {}) reads {}",
                        self.nav_path.display(),
                        serde_json::to_value(self.navigator.pose_source)
                            .ok()
                            .and_then(|v| v.as_str().map(str::to_owned))
                            .unwrap_or_default(),
                        names.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }

    /// Each axis' mode must change a field the controller reads on its
    /// channel (else every run is bit-identical to nominal).
    pub fn axes_reach_the_controller(&self, controller: &dyn Controller) -> Checked {
        for (i, axis) in self.file.axes.iter().enumerate() {
            let (Some(mode), Some(&(_, kind))) = (
                mode_from_name(&axis.mode),
                controller.inputs().iter().find(|(n, _)| *n == axis.channel),
            ) else {
                continue; // unknown mode: refused by validate; no consumer: above
            };
            if let Some(why) = super::super::reachability::unreachable_axis(
                mode,
                &axis.mode,
                &axis.channel,
                kind,
                controller.reads(kind),
            ) {
                return self.semantic(&format!("axes[{i}].mode"), why);
            }
        }
        Ok(())
    }

    /// Every /diagnostics status and /rosout logger a test names must be one
    /// the controller publishes (a misspelt name would never be seen, and
    /// read as the robot failing to report).
    pub fn test_names_published(&self, controller: &dyn Controller) -> Checked {
        if self.file.tests.is_empty() {
            return Ok(());
        }
        let published = controller.published_names();
        for (i, t) in self.file.tests.iter().enumerate() {
            for (field, name, logger) in t.published_names(&format!("tests[{i}]")) {
                let (known, what) = if logger {
                    (&published.loggers, "/rosout logger")
                } else {
                    (&published.diagnostics, "/diagnostics status")
                };
                if !known.contains(&name) {
                    return self.semantic(
                        &field,
                        format!(
                            "no {what} '{name}': the navigator of {} publishes {}",
                            self.nav_path.display(),
                            quoted_list(known.iter())
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// Every time of a test must fall within the run (it lasts the world's
    /// mission_timeout_s): a trigger at 500 s of a 60 s mission would make
    /// every run precondition_failed.
    pub fn test_times_within_the_run(&self) -> Checked {
        let timeout_s = self.world.mission_timeout_s;
        for (i, t) in self.file.tests.iter().enumerate() {
            for (field, v) in t.times(&format!("tests[{i}]")) {
                if v > timeout_s {
                    return self.semantic(
                        &field,
                        format!(
                            "{v} s is beyond the end of the run: every run lasts mission_timeout_s {timeout_s} s of {}{}",
                            self.world_path.display(),
                            if field.ends_with(".duration_s") {
                                " (give no duration_s or clear for a fault that lasts to the end)"
                            } else if field.ends_with(".at.at_s") {
                                " (at_s + tol_s)"
                            } else {
                                ""
                            }
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// A phase step must be a whole number of the plant's steps: a finer one
    /// would make neighbouring phases fire at the same sim step (identical
    /// runs), an uneven one would not be the shift it names.
    pub fn phase_sweeps_on_the_step(&self) -> Checked {
        let step_s = self.plant.step_s;
        let robot = self.robot_path.display();
        for (i, t) in self.file.tests.iter().enumerate() {
            let Some(ps) = &t.phase_sweep else { continue };
            let dphase = ps.span_s / ps.steps as f64;
            let steps_per_phase = dphase / step_s;
            if dphase >= step_s * (1.0 - 1e-9)
                && (steps_per_phase - steps_per_phase.round()).abs() > 1e-6
            {
                return self.semantic(
                    &format!("tests[{i}].phase_sweep.span_s"),
                    format!(
                        "{} s in {} steps are {dphase} s apart, not a whole number of the plant's step_s {step_s} s of {robot}: the trigger can only fire on a step, so the phases would not be the shifts they name",
                        ps.span_s, ps.steps,
                    ),
                );
            }
            if dphase < step_s * (1.0 - 1e-9) {
                return self.semantic(
                    &format!("tests[{i}].phase_sweep.steps"),
                    format!(
                        "{} steps over {} s are {dphase} s apart, finer than the plant's step_s {step_s} s of {robot}: neighbouring phases would fire at the same step",
                        ps.steps, ps.span_s,
                    ),
                );
            }
        }
        Ok(())
    }

    /// The input-gap limit must exceed every sensor period of the robot, or
    /// every run would be starved by the plant's own rate
    /// (REQ-TEST-STARVATION).
    pub fn input_gaps_above_the_periods(&self) -> Checked {
        let plant = &self.plant;
        let periods = [
            Some(("lidar.rate_hz", plant.lidar.rate_hz)),
            Some(("odometry.rate_hz", plant.odometry.rate_hz)),
            plant.gnss.as_ref().map(|g| ("gnss.rate_hz", g.rate_hz)),
            plant.imu.as_ref().map(|m| ("imu.rate_hz", m.rate_hz)),
        ];
        for (i, t) in self.file.tests.iter().enumerate() {
            if let Some((name, hz)) = periods
                .iter()
                .flatten()
                .find(|(_, hz)| 1.0 / hz >= t.max_input_gap_s)
            {
                return self.semantic(
                    &format!("tests[{i}].max_input_gap_s"),
                    format!(
                        "{:?} s is not longer than the period {:?} s of {name} {hz:?} of {}: every run would count as starved",
                        t.max_input_gap_s,
                        1.0 / hz,
                        self.robot_path.display()
                    ),
                );
            }
        }
        Ok(())
    }

    /// The navigator of every variant (each navigator-axis value must fit
    /// the navigator file's field), by variant key; and the detection's
    /// status must be one every variant publishes.
    pub fn variants(&self) -> Result<BTreeMap<Vec<usize>, NavigatorConfig>, CampaignError> {
        let file = &self.file;
        let mut variants = BTreeMap::new();
        for key in file.variant_keys() {
            let mut nav = self.navigator.clone();
            for (i, (a, j)) in file.navigator_axes.iter().zip(&key).enumerate() {
                match navigator_with(&nav, &a.parameter, &a.values[*j]) {
                    Ok(n) => nav = n,
                    Err(m) => {
                        let field = if m.contains("has no parameter") {
                            format!("navigator_axes[{i}].parameter")
                        } else {
                            format!("navigator_axes[{i}].values[{j}]")
                        };
                        self.semantic(
                            &field,
                            format!("{m} (navigator {})", self.nav_path.display()),
                        )?;
                    }
                }
            }
            self.detection_published(&nav, &key)?;
            variants.insert(key, nav);
        }
        Ok(variants)
    }

    /// The declared detection's /diagnostics status is one the navigator
    /// `nav` of variant `key` publishes.
    fn detection_published(&self, nav: &NavigatorConfig, key: &[usize]) -> Checked {
        let Some(d) = &self.file.detection else {
            return Ok(());
        };
        let c = super::super::run::controller_under_test(nav, &self.world)?;
        let published = c.published_names();
        if published.diagnostics.contains(&d.diagnostic) {
            return Ok(());
        }
        self.semantic(
            "detection.diagnostic",
            format!(
                "no /diagnostics status '{}': the navigator of {}{} publishes {}",
                d.diagnostic,
                self.nav_path.display(),
                if key.is_empty() {
                    String::new()
                } else {
                    format!(" with {}", self.file.variant_label(key))
                },
                quoted_list(published.diagnostics.iter())
            ),
        )
    }

    /// A fault axis' timing (`at_s` + `duration_s`) must fall within the run.
    pub fn axis_timing_within_the_run(&self) -> Checked {
        for (i, a) in self.file.axes.iter().enumerate() {
            let end = a.at_s + a.duration_s.unwrap_or(0.0);
            if end > self.world.mission_timeout_s {
                let field = if a.duration_s.is_some() {
                    format!("axes[{i}].duration_s")
                } else {
                    format!("axes[{i}].at_s")
                };
                return self.semantic(
                    &field,
                    format!(
                        "the fault would end at {end} s, beyond the end of the run: every run lasts mission_timeout_s {} s of {}",
                        self.world.mission_timeout_s,
                        self.world_path.display()
                    ),
                );
            }
        }
        Ok(())
    }

    /// Last: the severity searches, unique by name, name the axes checked
    /// above.
    pub fn searches(&self) -> Checked {
        let file = &self.file;
        for (i, x) in file.escape_search.iter().enumerate() {
            if file.escape_search[..i].iter().any(|o| o.name == x.name) {
                return self.semantic(
                    &format!("escape_search[{i}].name"),
                    format!("duplicate search '{}'", x.name),
                );
            }
            if let Err((f, m)) = x.validate(&format!("escape_search[{i}]"), file) {
                return self.semantic(&f, m);
            }
        }
        Ok(())
    }
}
