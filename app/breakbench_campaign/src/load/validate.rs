//! [`ScenarioFile::validate`]: every check of one scenario file on its own
//! (ranges, names, axes, navigator axes, tests, searches, declared sizes),
//! run by [`super`]'s loader before the world, robot and navigator files
//! are read.

use breakbench_world::range::check_ranges;
use kraken_interfaces::{mode_from_name, FaultSpec, MODE_NAMES};

use super::*;

type Checked = Result<(), ConfigError>;

fn semantic(path: &str, field: &str, msg: String) -> Checked {
    Err(ConfigError::semantic(path, field, msg))
}

/// Why `name` cannot name an axis (fault or navigator), if it cannot: it
/// names cells and run files, and must not shadow a summary.json cell key.
fn axis_name_problem(name: &str) -> Option<String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Some(format!(
            "'{name}' must be non-empty and use only A-Z, a-z, 0-9 and _ (it names cells and run files)"
        ));
    }
    RESERVED_CELL_KEYS.contains(&name).then(|| {
        format!(
            "'{name}' is a key of every summary.json cell ({}); choose another axis name",
            RESERVED_CELL_KEYS.join(", ")
        )
    })
}

impl ScenarioFile {
    /// The semantic checks of a scenario file, after parsing: every number
    /// in its declared range ([`SCENARIO_RANGES`]), axis names usable as cell
    /// keys and file names, one axis per harness channel, each axis'
    /// parameter one its mode reads, and every grid value accepted by the
    /// fault stage it builds. (That each axis' mode changes a field the
    /// controller reads is checked across files by [`Scenario::load`].)
    /// The steps run in this order and the first problem is reported.
    ///
    /// # Errors
    /// A [`ConfigError`] naming `path` and the field (its line is filled in
    /// by the loader).
    pub fn validate(&self, path: &str) -> Checked {
        self.check_sizes_ranges_names(path)?;
        self.check_tests(path)?;
        let c = &self.nominal.convergence;
        if c.window + 2 > self.nominal.runs {
            return semantic(
                path,
                "nominal.convergence.window",
                format!(
                    "must be >= 1 and <= runs - 2 = {}",
                    self.nominal.runs.saturating_sub(2)
                ),
            );
        }
        let mut names = std::collections::BTreeSet::new();
        self.check_navigator_axes(path, &mut names)?;
        self.check_detection(path)?;
        let mut channels = std::collections::BTreeMap::new();
        for (i, axis) in self.axes.iter().enumerate() {
            self.check_axis(path, i, axis, &mut names, &mut channels)?;
        }
        self.check_files(path)
    }

    /// The declared sizes first (list lengths, overflow-checked plan size):
    /// nothing after them may walk a grid or list before they hold. Then
    /// the range table, the printed names and run ids, and that there is
    /// something to run. The tests' numbers (durations, thresholds in the
    /// observables' own units, nested predicates) are checked by their own
    /// rules (ResilienceTest::validate, check_expectations), not by the
    /// table; likewise the severity searches (EscapeSearch::validate).
    fn check_sizes_ranges_names(&self, path: &str) -> Checked {
        if let Err((f, m)) = self.check_sizes() {
            return semantic(path, &f, m);
        }
        let without_tests = ScenarioFile {
            tests: Vec::new(),
            escape_search: Vec::new(),
            ..self.clone()
        };
        check_ranges(&without_tests, path, "", &[("", SCENARIO_RANGES)])?;
        crate::names::check_names(self, path)?;
        if self.axes.is_empty() && self.tests.is_empty() {
            return semantic(path, "axes", "needs at least one axis (or a test)".into());
        }
        Ok(())
    }

    /// Unique test names, each test by its own rules, and no run id
    /// (a file name) planned by two tests.
    fn check_tests(&self, path: &str) -> Checked {
        for (i, t) in self.tests.iter().enumerate() {
            if self.tests[..i].iter().any(|o| o.name == t.name) {
                return semantic(
                    path,
                    &format!("tests[{i}].name"),
                    format!("duplicate test '{}'", t.name),
                );
            }
            t.validate(&format!("tests[{i}]"), path)?;
        }
        if let Err((f, m)) = self.check_test_run_ids() {
            return semantic(path, &f, m);
        }
        Ok(())
    }

    /// Navigator axes: crossed with at least one fault axis, usable and
    /// unique names (recorded in `names`), not `pose_source`, unique values
    /// that can name run files.
    fn check_navigator_axes(
        &self,
        path: &str,
        names: &mut std::collections::BTreeSet<String>,
    ) -> Checked {
        if !self.navigator_axes.is_empty() && self.axes.is_empty() {
            return semantic(
                path,
                "navigator_axes",
                "needs at least one fault axis (axes) to cross with".into(),
            );
        }
        for (i, na) in self.navigator_axes.iter().enumerate() {
            let at = format!("navigator_axes[{i}]");
            if let Some(m) = axis_name_problem(&na.name) {
                return semantic(path, &format!("{at}.name"), m);
            }
            if self.axes.iter().any(|a| a.name == na.name) || !names.insert(na.name.clone()) {
                return semantic(
                    path,
                    &format!("{at}.name"),
                    format!("duplicate axis '{}'", na.name),
                );
            }
            if na.parameter == "pose_source" {
                return semantic(
                    path,
                    &format!("{at}.parameter"),
                    "pose_source changes which channels the controller reads, so a fault axis would reach some variants and not others; study each pose source in its own scenario".into(),
                );
            }
            if na.values.is_empty() {
                return semantic(
                    path,
                    &format!("{at}.values"),
                    "needs at least one value".into(),
                );
            }
            for (j, v) in na.values.iter().enumerate() {
                let field = format!("{at}.values[{j}]");
                if na.values[..j].contains(v) {
                    return semantic(path, &field, format!("duplicate value '{v}'"));
                }
                if v.is_empty()
                    || v.len() > MAX_VALUE_CHARS
                    || !v
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '-')
                {
                    return semantic(
                        path,
                        &field,
                        format!(
                            "'{v}' must be 1 to {MAX_VALUE_CHARS} characters of A-Z, a-z, 0-9, _, . and - (it names run files)"
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// A declared detection names a diagnostic and a level above OK.
    fn check_detection(&self, path: &str) -> Checked {
        let Some(d) = &self.detection else {
            return Ok(());
        };
        if d.diagnostic.is_empty() {
            return semantic(path, "detection.diagnostic", "is empty".into());
        }
        if d.at_least == breakbench_oracle::expect::DiagLevel::Ok {
            return semantic(
                path,
                "detection.at_least",
                "OK is every status' healthy level, not a detection; use WARN, ERROR or STALE"
                    .into(),
            );
        }
        Ok(())
    }

    /// Fault axis `i`: a usable, unique name (recorded in `names`), a
    /// harness channel no other axis faults (recorded in `channels`), a
    /// known mode that reads the axis' parameter, then its values.
    fn check_axis(
        &self,
        path: &str,
        i: usize,
        axis: &Axis,
        names: &mut std::collections::BTreeSet<String>,
        channels: &mut std::collections::BTreeMap<String, usize>,
    ) -> Checked {
        if let Some(m) = axis_name_problem(&axis.name) {
            return semantic(path, &format!("axes[{i}].name"), m);
        }
        if !names.insert(axis.name.clone()) {
            return semantic(
                path,
                &format!("axes[{i}].name"),
                format!("duplicate axis '{}'", axis.name),
            );
        }
        let Some(hc) = harness_channel(&axis.channel) else {
            return semantic(
                path,
                &format!("axes[{i}].channel"),
                format!(
                    "unknown channel '{}' (the in-process harness has {})",
                    axis.channel,
                    harness_channel_names()
                ),
            );
        };
        // One fault per channel: a second axis on the same channel would
        // replace the first one's fault, and its cells would be mislabelled.
        if let Some(j) = channels.insert(axis.channel.clone(), i) {
            return semantic(
                path,
                &format!("axes[{i}].channel"),
                format!(
                    "channel '{}' already carries axis {j} ('{}'); one fault axis per channel",
                    axis.channel, self.axes[j].name
                ),
            );
        }
        let Some(mode) = mode_from_name(&axis.mode) else {
            return semantic(
                path,
                &format!("axes[{i}].mode"),
                format!(
                    "unknown fault mode '{}' (one of {})",
                    axis.mode,
                    MODE_NAMES.join(", ")
                ),
            );
        };
        if !FaultSpec::mode_reads(mode, &axis.parameter) {
            let own = FaultSpec::mode_parameters(mode);
            return semantic(
                path,
                &format!("axes[{i}].parameter"),
                format!(
                    "mode '{}' does not read '{}' (its parameters: {}; every mode: {})",
                    axis.mode,
                    axis.parameter,
                    if own.is_empty() {
                        "none".into()
                    } else {
                        own.join(", ")
                    },
                    FaultSpec::TIMING_PARAMETERS.join(", ")
                ),
            );
        }
        if let Some(r) = &self.rare_event {
            return check_rare_axis(path, axis, hc, r, self);
        }
        match (self.design.sampling(), axis.range) {
            (Some(s), _) => check_axis_range(path, i, axis, hc, s),
            (None, Some(_)) => semantic(
                path,
                &format!("axes[{i}].range"),
                "only a sampled design (design: {kind: latin_hypercube|sobol, samples, seed}) reads range; a grid or pairwise design takes values".into(),
            ),
            (None, None) => check_axis_values(path, i, axis, hc),
        }
    }

    /// The world, robot and navigator files exist beside the scenario file.
    fn check_files(&self, path: &str) -> Checked {
        let base = Path::new(path).parent().unwrap_or(Path::new("."));
        for (field, f) in [
            ("world", &self.world),
            ("robot", &self.robot),
            ("navigator", &self.navigator),
        ] {
            if !base.join(f).is_file() {
                return semantic(
                    path,
                    field,
                    format!(
                        "{} (relative to the scenario file) is not a readable file",
                        base.join(f).display()
                    ),
                );
            }
        }
        Ok(())
    }
}

/// The one axis of a `rare_event:` section (REQ-STAT-RARE): neither
/// `values` nor `range` (its values are the draws), and a fault the harness
/// channel `hc` accepts at the least and the greatest draw.
fn check_rare_axis(
    path: &str,
    axis: &Axis,
    hc: HarnessChannel,
    r: &crate::scenario::rare_event::RareEvent,
    file: &ScenarioFile,
) -> Checked {
    if !axis.values.is_empty() || axis.range.is_some() {
        return semantic(
            path,
            "axes[0].name",
            format!(
                "axis '{}' takes its values from rare_event's draws: remove its values and range",
                axis.name
            ),
        );
    }
    let cells = file.cells();
    let drawn: Vec<f64> = cells.iter().map(|c| c[&axis.name]).collect();
    let lo = drawn.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = drawn.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for v in [lo, hi] {
        let spec =
            fault_spec(axis, v).map_err(|m| ConfigError::semantic(path, "axes[0].parameter", m))?;
        check_harness_fault(hc, &axis.channel, &spec).map_err(|e| {
            ConfigError::semantic(
                path,
                "rare_event.proposal_mean",
                format!(
                    "a draw of {} = {v} (of {} from N({}, {})): {e}",
                    axis.name, r.samples, r.proposal_mean, r.sd
                ),
            )
        })?;
    }
    Ok(())
}

/// Sampled axis `i`: a `range` with `min < max`, its `reference` (if
/// given) within it, no `values`, and a fault the harness channel `hc`
/// accepts at `min`, `max` and the reference (REQ-STAT-SAMPLED).
fn check_axis_range(
    path: &str,
    i: usize,
    axis: &Axis,
    hc: HarnessChannel,
    s: &Sampling,
) -> Checked {
    let kind = serde_json::to_value(s.kind).map_or(String::new(), |v| {
        v.as_str().unwrap_or_default().to_string()
    });
    if !axis.values.is_empty() {
        return semantic(
            path,
            &format!("axes[{i}].values"),
            format!("design kind {kind} draws the axis' values from range: give range: {{min, max}} instead of values"),
        );
    }
    let Some(r) = axis.range else {
        return semantic(
            path,
            &format!("axes[{i}].name"),
            format!("axis '{}' has no range: design kind {kind} samples every axis from range: {{min, max}} (in the axis' unit)", axis.name),
        );
    };
    if r.min >= r.max {
        return semantic(
            path,
            &format!("axes[{i}].range.max"),
            format!("max {} must be above min {}", r.max, r.min),
        );
    }
    if !(r.min..=r.max).contains(&r.reference()) {
        return semantic(
            path,
            &format!("axes[{i}].range.reference"),
            format!("{} is outside [{}, {}]", r.reference(), r.min, r.max),
        );
    }
    for (end, v) in [("min", r.min), ("max", r.max), ("reference", r.reference())] {
        let spec = fault_spec(axis, v)
            .map_err(|m| ConfigError::semantic(path, &format!("axes[{i}].parameter"), m))?;
        check_harness_fault(hc, &axis.channel, &spec).map_err(|e| {
            ConfigError::semantic(path, &format!("axes[{i}].range.{end}"), e.to_string())
        })?;
    }
    Ok(())
}

/// Axis `i`'s values: at least one, unique, short enough for run ids, and
/// each a fault the harness channel `hc` accepts.
fn check_axis_values(path: &str, i: usize, axis: &Axis, hc: HarnessChannel) -> Checked {
    if axis.values.is_empty() {
        return semantic(
            path,
            &format!("axes[{i}].values"),
            "needs at least one value".into(),
        );
    }
    let mut seen: Vec<f64> = Vec::new();
    for (j, v) in axis.values.iter().enumerate() {
        let field = format!("axes[{i}].values[{j}]");
        if seen.contains(v) {
            return semantic(path, &field, format!("duplicate value {v}"));
        }
        seen.push(*v);
        let text = fmt_value(*v);
        if text.len() > MAX_VALUE_CHARS {
            return semantic(
                path,
                &field,
                format!(
                    "{v:e} takes {} characters in run ids (decimal notation, at most {MAX_VALUE_CHARS}); rescale the axis",
                    text.len()
                ),
            );
        }
        let spec = fault_spec(axis, *v)
            .map_err(|m| ConfigError::semantic(path, &format!("axes[{i}].parameter"), m))?;
        check_harness_fault(hc, &axis.channel, &spec)
            .map_err(|e| ConfigError::semantic(path, &field, e.to_string()))?;
    }
    Ok(())
}
