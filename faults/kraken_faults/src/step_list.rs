//! Step lists (`scenarios/*.yaml` of kraken_faults, [`StepList`]) for the
//! `kraken_scenario` runner: a named list of timed steps (set a fault, clear
//! faults, wait), not a campaign scenario (`breakbench::campaign`'s
//! `ScenarioFile`: axes, repeats, resilience tests). This module defines the
//! format only;
//! the runner (which calls `set_fault` / `clear_faults` like a user) lives with
//! the node.
//!
//! ```yaml
//! name: kill_gnss
//! steps:
//!   - {label: kill_gnss, action: set_fault, channel: gnss, mode: dropout, at_s: 5.0}
//!   - {label: restore, action: clear_faults, at_s: 25.0}
//!   - {label: end, action: wait, at_s: 35.0}
//! ```
//!
//! A `set_fault` step takes any [`FaultSpec`] parameter by name
//! (`bias_rate`, `duration_s`, …), in the same units; `mode` is a name from
//! `MODE_NAMES`. Unknown keys and unknown mode names are errors naming file,
//! line and field.
//!
//! A `set_fault_stack` step calls `~/set_fault_stack` (REQ-FAULT-STACK) on
//! any channel, typed or not: `stack` is the list of stages
//! ([`StageSpec`]), `append` (default false) adds them after the channel's
//! stack instead of replacing it, `type` (the channel's message type) lets
//! the loader build the stack against it, so a path the type lacks or a
//! parameter out of range is a file:line error before anything runs (a
//! stack with a `field` stage needs it). A `clear_fault_stage` step removes
//! the stage with id `id` (ids count from 1 per channel, in the order the
//! stages were added).
//!
//! ```yaml
//!   - label: stamp
//!     action: set_fault_stack
//!     channel: scan
//!     type: sensor_msgs/msg/LaserScan
//!     at_s: 0.5
//!     stack:
//!       - fault: {field: {path: header.stamp.sec, mode: set, value: -1}}
//!   - {label: unstamp, action: clear_fault_stage, channel: scan, id: 1, at_s: 5.0}
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use kraken_interfaces::{mode_from_name, FaultSpec, ParamValue, MODE_NAMES};
use serde::{Deserialize, Deserializer, Serialize};

use std::time::Duration;

use crate::field::{FaultStack, StageFault, StageSpec};
use crate::params::MAX_TIME_S;
use crate::{FaultError, FaultSchedule, ScheduledFault};

/// A scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StepList {
    /// Scenario name (reports, logs).
    pub name: String,
    /// Optional free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Steps in time order (`at_s` non-decreasing, in [0, 1e6] s).
    pub steps: Vec<Step>,
}

/// What a step does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepAction {
    /// Call `set_fault` with [`Step::to_fault_spec`].
    SetFault,
    /// Call `clear_faults` (every channel).
    ClearFaults,
    /// Call `set_fault_stack` with the step's `channel`, `stack`, `append`.
    SetFaultStack,
    /// Call `clear_fault_stage` with the step's `channel` and `id`.
    ClearFaultStage,
    #[default]
    /// Do nothing but wait until `at_s` (e.g. the end of observation).
    Wait,
}

/// Accepts only names in `MODE_NAMES`; the check runs inside the scalar's
/// visitor so that serde_yaml_ng reports the value's own line.
struct ModeName;

impl serde::de::Visitor<'_> for ModeName {
    type Value = String;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "one of {}", MODE_NAMES.join(", "))
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<String, E> {
        if mode_from_name(v).is_some() {
            Ok(v.to_string())
        } else {
            Err(E::custom(format!(
                "unknown fault mode `{v}`, expected one of {}",
                MODE_NAMES.join(", ")
            )))
        }
    }
}

fn de_mode<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    d.deserialize_str(ModeName).map(Some)
}

/// One step. Parameters not given are 0 / false, as in a default FaultSpec.
/// Keys other than the step's own are FaultSpec parameters ([`Self::params`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Human label, unique within the file.
    pub label: String,
    /// Required in files (the `Default` is only for building steps in code).
    pub action: StepAction,
    /// Channel name (set_fault only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<String>,
    /// Mode name, e.g. `dropout` (set_fault only).
    #[serde(
        default,
        deserialize_with = "de_mode",
        skip_serializing_if = "Option::is_none"
    )]
    pub mode: Option<String>,
    /// Seconds after the scenario starts (injector clock) at which the step runs.
    pub at_s: f64,
    /// The stages of a `set_fault_stack` step, in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Vec<StageSpec>>,
    /// `set_fault_stack`: add after the channel's stages (default: replace).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub append: Option<bool>,
    /// `set_fault_stack`: the channel's message type (`pkg/msg/Type`), to
    /// check the stack against at load; required when a stage is a `field`
    /// fault.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub msg_type: Option<String>,
    /// `clear_fault_stage`: the id of the stage to remove (from 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u32>,
    /// Every other key: a FaultSpec parameter by name (`bias_rate`,
    /// `duration_s`, …) in its own unit, set with [`FaultSpec::set_param`]
    /// (so an unknown name or a wrong type is refused at load, naming the
    /// key's line).
    #[serde(flatten)]
    pub params: BTreeMap<String, ParamValue>,
}

impl Step {
    /// The step's action.
    pub fn action(&self) -> StepAction {
        self.action
    }

    /// The `stack_yaml` text a `set_fault_stack` step sends (its `stack`
    /// as a YAML list; empty when the step has none).
    ///
    /// # Errors
    /// [`FaultError::Scenario`] when the YAML writer refuses it (not for a
    /// stack that was parsed from YAML).
    pub fn stack_yaml(&self) -> Result<String, FaultError> {
        match &self.stack {
            None => Ok(String::new()),
            Some(st) => serde_yaml_ng::to_string(st).map_err(|e| FaultError::Scenario {
                label: self.label.clone(),
                message: format!("stack: {e}"),
            }),
        }
    }

    /// The FaultSpec a `set_fault` step requests.
    ///
    /// # Errors
    /// [`FaultError::UnknownModeName`] for a mode name not in `MODE_NAMES`;
    /// [`FaultError::Scenario`] when the step is not `set_fault` or lacks
    /// `channel` or `mode`; [`FaultError::Param`] for a parameter FaultSpec
    /// does not have or a value of the wrong type.
    pub fn to_fault_spec(&self) -> Result<FaultSpec, FaultError> {
        let err = |m: &str| FaultError::Scenario {
            label: self.label.clone(),
            message: m.into(),
        };
        if self.action() != StepAction::SetFault {
            return Err(err("only set_fault steps carry a fault"));
        }
        let channel = self
            .channel
            .clone()
            .ok_or_else(|| err("set_fault needs `channel`"))?;
        let name = self
            .mode
            .as_deref()
            .ok_or_else(|| err("set_fault needs `mode`"))?;
        let mode =
            mode_from_name(name).ok_or_else(|| FaultError::UnknownModeName(name.to_string()))?;
        let mut spec = FaultSpec::new(channel, mode);
        for (name, value) in &self.params {
            spec.set_param(name, value.clone())
                .map_err(|e| FaultError::Param {
                    label: self.label.clone(),
                    source: e,
                })?;
        }
        Ok(spec)
    }
}

/// The first parameter of a set_fault step that the injector would refuse
/// on every channel type (the scenario does not know the channel's type):
/// the same checks as `set_fault` ([`crate::build_stage`],
/// [`crate::Activation::from_spec`]), as `(field, message)`.
fn step_parameter_error(s: &Step) -> Option<(&'static str, String)> {
    let spec = s.to_fault_spec().ok()?;
    let param = |e: FaultError| match e {
        FaultError::InvalidParameter { field, .. } => Some((field, e.to_string())),
        _ => None,
    };
    if let Err(e) = crate::Activation::from_spec(&spec, std::time::Duration::ZERO) {
        return param(e);
    }
    let mut first = None;
    for kind in [
        crate::MsgKind::NavSatFix,
        crate::MsgKind::Imu,
        crate::MsgKind::Odometry,
        crate::MsgKind::LaserScan,
    ] {
        match crate::build_stage(&spec, "scenario", kind) {
            Ok(_) => return None,
            Err(e) => {
                if first.is_none() {
                    first = param(e);
                }
            }
        }
    }
    first
}

/// Checks a `set_fault_stack` step's stages as the injector will: each
/// stage's window and parameters, and, with the channel's message type
/// `ty`, the whole stack built against it ([`FaultStack::build`]). The error
/// is `(field under the step, message)`, e.g. `("stack[1].fault", ...)`.
fn check_stack(
    stack: &[StageSpec],
    ty: Option<&str>,
    reg: Option<&breakbench_msgs::TypeRegistry>,
) -> Result<(), (String, String)> {
    let at_stage = |e: FaultError| match e {
        FaultError::Stage { index, source } => {
            let field = match *source {
                FaultError::InvalidParameter { field, .. }
                    if matches!(field, "at_s" | "duration_s" | "period_s" | "duty_cycle") =>
                {
                    format!("stack[{index}].window.{field}")
                }
                _ => format!("stack[{index}].fault"),
            };
            (field, source.to_string())
        }
        other => ("stack".to_string(), other.to_string()),
    };
    match (ty, reg) {
        (Some(ty), Some(reg)) => {
            reg.resolve(ty)
                .map_err(|e| ("type".to_string(), e.to_string()))?;
            FaultStack::build(stack, reg, ty)
                .map(|_| ())
                .map_err(at_stage)
        }
        _ => {
            if let Some(i) = stack
                .iter()
                .position(|st| matches!(st.fault, StageFault::Field(_)))
            {
                return Err((
                    format!("stack[{i}].fault"),
                    "a field stage needs the step's `type` (the channel's message type) so \
                     that its path is checked at load"
                        .into(),
                ));
            }
            // Delivery stages do not depend on the type.
            let reg = breakbench_msgs::TypeRegistry::builtin();
            FaultStack::build(stack, &reg, "std_msgs/msg/Empty")
                .map(|_| ())
                .map_err(at_stage)
        }
    }
}

/// The rules a step shares with channels files and the injector: a
/// non-empty label, a channel name channels.yaml would accept
/// ([`crate::config::check_channel_name`]), at most
/// [`crate::dynamic::MAX_STAGES`] stages. Errors as `(field, message)`.
fn check_step_shape(s: &Step) -> Result<(), (&'static str, String)> {
    if s.label.trim().is_empty() {
        return Err((
            "label",
            "must not be empty (it names the step in logs and errors)".into(),
        ));
    }
    if let Some(c) = &s.channel {
        crate::config::check_channel_name(c).map_err(|m| ("channel", m))?;
    }
    if let Some(st) = &s.stack {
        if st.len() > crate::dynamic::MAX_STAGES {
            return Err((
                "stack",
                format!(
                    "{} stages: a channel holds at most {} (the injector refuses more)",
                    st.len(),
                    crate::dynamic::MAX_STAGES
                ),
            ));
        }
    }
    Ok(())
}

/// Checks `kraken_scenario`'s `injector` parameter: the fully qualified
/// name of the `fault_injector` node whose services the steps call
/// (`<injector>/set_fault`, ...): non-empty, absolute, a valid ROS name
/// ([`crate::config::check_topic_name`]) without `~` or substitutions.
///
/// # Errors
/// The reason, e.g. for `""` (which would call `/set_fault` of the root
/// namespace).
pub fn check_injector_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(
            "must not be empty: the steps would call /set_fault, /clear_faults of the root \
             namespace instead of a fault_injector's (default /fault_injector)"
                .into(),
        );
    }
    if !name.starts_with('/') || name.contains(['~', '{', '}']) {
        return Err(format!(
            "'{name}' must be the node's fully qualified name, starting with '/' \
             (e.g. /fault_injector), without '~' or '{{}}'"
        ));
    }
    crate::config::check_topic_name(name)
}

impl StepList {
    /// Parses a scenario `text` read from `path`.
    ///
    /// # Errors
    /// [`FaultError::Config`] naming file, line and field for YAML errors,
    /// unknown keys, unknown actions or mode names, and for: no step, an
    /// empty label, a channel name the channels file would refuse
    /// ([`crate::config::check_channel_name`]), a stack of more than
    /// [`crate::dynamic::MAX_STAGES`] stages, a set_fault step
    /// without channel or mode, a channel/mode on another action, `at_s`
    /// negative or decreasing, a duplicate label, and a set_fault parameter
    /// the injector would refuse on every channel type (e.g. a garbage span
    /// that overflows; line of that parameter); a set_fault_stack step
    /// without channel or stack, a stage the injector would refuse
    /// (`steps[i].stack[k].fault` or `.window.<field>`), a field stage
    /// without the step's `type`, a `type` that is not a known message type;
    /// a clear_fault_stage step without channel or with an id missing or 0;
    /// a key that belongs to another action.
    pub fn parse(text: &str, path: &str) -> Result<Self, FaultError> {
        let f: StepList = kraken_interfaces::config::parse_yaml(text, path)?;
        // Loaded only when a stack names its type (built-in types plus
        // AMENT_PREFIX_PATH, as the injector resolves channel types).
        let reg = if f
            .steps
            .iter()
            .any(|s| s.msg_type.is_some() && s.action() == StepAction::SetFaultStack)
        {
            Some(
                breakbench_msgs::TypeRegistry::with_ament_prefix_path().map_err(|e| {
                    crate::config::semantic(
                        path,
                        text,
                        "steps".into(),
                        format!("cannot load the message definitions of AMENT_PREFIX_PATH: {e}"),
                    )
                })?,
            )
        } else {
            None
        };
        Self::check(f, text, path, reg.as_ref())
    }

    /// As [`StepList::parse`], checking stacks against the types of
    /// `reg` instead of the built-in and `AMENT_PREFIX_PATH` ones.
    ///
    /// # Errors
    /// As [`StepList::parse`].
    pub fn parse_with(
        text: &str,
        path: &str,
        reg: &breakbench_msgs::TypeRegistry,
    ) -> Result<Self, FaultError> {
        let f: StepList = kraken_interfaces::config::parse_yaml(text, path)?;
        Self::check(f, text, path, Some(reg))
    }

    fn check(
        f: StepList,
        text: &str,
        path: &str,
        reg: Option<&breakbench_msgs::TypeRegistry>,
    ) -> Result<Self, FaultError> {
        if f.steps.is_empty() {
            return Err(crate::config::semantic(
                path,
                text,
                "steps".into(),
                "is empty: a scenario needs at least one step".into(),
            ));
        }
        for (i, s) in f.steps.iter().enumerate() {
            let e = |field: &str, message: String| {
                crate::config::semantic(path, text, format!("steps[{i}].{field}"), message)
            };
            check_step_shape(s).map_err(|(field, m)| e(field, m))?;
            if f.steps[..i].iter().any(|o| o.label == s.label) {
                return Err(e("label", format!("duplicate label '{}'", s.label)));
            }
            if !(s.at_s.is_finite() && (0.0..=MAX_TIME_S).contains(&s.at_s)) {
                return Err(e(
                    "at_s",
                    format!("must be finite and in [0, {MAX_TIME_S}] s, got {}", s.at_s),
                ));
            }
            if i > 0 && s.at_s < f.steps[i - 1].at_s {
                return Err(e(
                    "at_s",
                    format!(
                        "{} is before the previous step's {}",
                        s.at_s,
                        f.steps[i - 1].at_s
                    ),
                ));
            }
            let stack_step = matches!(
                s.action(),
                StepAction::SetFaultStack | StepAction::ClearFaultStage
            );
            if stack_step {
                if let Some(k) = s.params.keys().next() {
                    return Err(e(
                        k,
                        format!(
                            "unknown key `{k}` for {:?} (keys: label, action, channel, at_s, \
                             and stack, append, type for set_fault_stack; id for \
                             clear_fault_stage)",
                            s.action()
                        ),
                    ));
                }
            }
            let own = |field: &str, present: bool, allowed: bool| -> Result<(), FaultError> {
                if present && !allowed {
                    Err(e(
                        field,
                        format!("{:?} does not take `{field}`", s.action()),
                    ))
                } else {
                    Ok(())
                }
            };
            own(
                "stack",
                s.stack.is_some(),
                s.action() == StepAction::SetFaultStack,
            )?;
            own(
                "append",
                s.append.is_some(),
                s.action() == StepAction::SetFaultStack,
            )?;
            own(
                "type",
                s.msg_type.is_some(),
                s.action() == StepAction::SetFaultStack,
            )?;
            own(
                "id",
                s.id.is_some(),
                s.action() == StepAction::ClearFaultStage,
            )?;
            // Every step's parameters are FaultSpec fields of the right type
            // (a wait step's are not used, as before: only names and types
            // are checked).
            let mut probe = FaultSpec::default();
            for (name, value) in &s.params {
                if let Err(pe) = probe.set_param(name, value.clone()) {
                    return Err(e(name, pe.to_string()));
                }
            }
            match s.action() {
                StepAction::SetFault => {
                    if s.channel.is_none() {
                        return Err(e("channel", "set_fault needs a channel".into()));
                    }
                    if s.mode.is_none() {
                        return Err(e("mode", "set_fault needs a mode".into()));
                    }
                    if let Some((field, message)) = step_parameter_error(s) {
                        return Err(e(field, message));
                    }
                }
                StepAction::SetFaultStack | StepAction::ClearFaultStage => {
                    if s.channel.is_none() {
                        return Err(e("channel", format!("{:?} needs a channel", s.action())));
                    }
                    if s.mode.is_some() {
                        return Err(e("mode", "only set_fault takes a mode".into()));
                    }
                    if s.action() == StepAction::ClearFaultStage {
                        match s.id {
                            None => return Err(e("id", "clear_fault_stage needs an id".into())),
                            Some(0) => return Err(e("id", "stage ids count from 1".into())),
                            Some(_) => {}
                        }
                    } else {
                        let Some(stack) = &s.stack else {
                            return Err(e(
                                "stack",
                                "set_fault_stack needs a stack (an empty list clears the \
                                 channel's stack)"
                                    .into(),
                            ));
                        };
                        check_stack(stack, s.msg_type.as_deref(), reg)
                            .map_err(|(field, m)| e(&field, m))?;
                    }
                }
                _ => {
                    if s.channel.is_some() || s.mode.is_some() {
                        return Err(e("action", "only set_fault takes channel and mode".into()));
                    }
                }
            }
        }
        Ok(f)
    }

    /// The scenario's typed faults as the one schedule type every host uses
    /// ([`FaultSchedule`]): entry `k` is the `k`-th set_fault step (the
    /// steps are in time order, so entry order is step order), set at its
    /// `at_s` and cleared at the `at_s` of the first clear_faults step after
    /// it, if any; its `duration_s` (a transient fault) is in the spec.
    /// `set_fault_stack` / `clear_fault_stage` steps are not in it: only
    /// `kraken_scenario` runs them (against the node's services).
    ///
    /// # Errors
    /// Those of [`Step::to_fault_spec`] and [`FaultSchedule::new`].
    pub fn schedule(&self) -> Result<FaultSchedule, FaultError> {
        let secs = Duration::from_secs_f64;
        let mut entries = Vec::new();
        for (i, s) in self.steps.iter().enumerate() {
            if s.action() != StepAction::SetFault {
                continue;
            }
            let clear_at = self.steps[i + 1..]
                .iter()
                .find(|c| c.action() == StepAction::ClearFaults)
                .map(|c| secs(c.at_s));
            entries.push(ScheduledFault {
                spec: s.to_fault_spec()?,
                set_at: secs(s.at_s),
                clear_at,
            });
        }
        FaultSchedule::new(entries)
    }

    /// Reads and parses the file at `path`.
    ///
    /// # Errors
    /// [`FaultError::Io`] when it cannot be read, else as [`StepList::parse`].
    pub fn load(path: &Path) -> Result<Self, FaultError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| FaultError::Io {
            path: p.clone(),
            source,
        })?;
        Self::parse(&text, &p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ScheduleEvent;

    #[test]
    fn set_fault_steps_become_schedule_entries_cleared_by_the_next_clear() {
        let text = "name: t\nsteps:\n  - {label: a, action: set_fault, channel: gnss, mode: dropout, at_s: 5.0}\n  - {label: b, action: set_fault, channel: odom, mode: scale, scale_factor: 1.2, duration_s: 3.0, at_s: 6.0}\n  - {label: c, action: clear_faults, at_s: 25.0}\n  - {label: d, action: set_fault, channel: imu, mode: dropout, at_s: 30.0}\n  - {label: e, action: wait, at_s: 35.0}\n";
        let f = StepList::parse(text, "t.yaml").unwrap();
        let s = f.schedule().unwrap();
        let e = s.entries();
        assert_eq!(e.len(), 3);
        assert_eq!(
            (e[0].spec.channel.as_str(), e[0].set_at, e[0].clear_at),
            (
                "gnss",
                Duration::from_secs(5),
                Some(Duration::from_secs(25))
            )
        );
        assert_eq!(e[1].spec.scale_factor, 1.2);
        assert_eq!(e[1].spec.duration_s, 3.0);
        assert_eq!(e[2].clear_at, None);
        assert_eq!(
            s.events()[2],
            ScheduleEvent::Clear {
                at: Duration::from_secs(25),
                entries: vec![0, 1]
            }
        );
    }

    #[test]
    fn stack_steps_parse_and_bad_ones_name_file_line_and_field() {
        let reg = breakbench_msgs::TypeRegistry::builtin();
        let ok = "name: t\nsteps:\n  - label: a\n    action: set_fault_stack\n    channel: scan\n    type: sensor_msgs/msg/LaserScan\n    at_s: 0.5\n    stack:\n      - fault: {field: {path: header.stamp.sec, mode: set, value: -1}}\n      - fault: {drop: {probability: 0.5}}\n        window: {at_s: 1.0}\n  - {label: b, action: clear_fault_stage, channel: scan, id: 2, at_s: 3.0}\n";
        let f = StepList::parse_with(ok, "t.yaml", &reg).unwrap();
        assert_eq!(f.steps[0].action(), StepAction::SetFaultStack);
        assert_eq!(f.steps[0].stack.as_ref().unwrap().len(), 2);
        assert_eq!(f.steps[1].id, Some(2));
        // The stack steps are not in-process schedule entries.
        assert!(f.schedule().unwrap().entries().is_empty());
        let back: Vec<StageSpec> =
            serde_yaml_ng::from_str(&f.steps[0].stack_yaml().unwrap()).unwrap();
        assert_eq!(&back, f.steps[0].stack.as_ref().unwrap());

        let err = |text: &str| {
            StepList::parse_with(text, "t.yaml", &reg)
                .unwrap_err()
                .to_string()
        };
        // A path the type lacks: the stage's line.
        let e = err(&ok.replace("header.stamp.sec", "header.stamp.secs"));
        assert!(e.starts_with("t.yaml:9:"), "{e}");
        assert!(
            e.contains("steps[0].stack[0].fault") && e.contains("secs"),
            "{e}"
        );
        // A window out of range: the window's field.
        let e = err(&ok.replace("window: {at_s: 1.0}", "window: {at_s: -1.0}"));
        assert!(e.starts_with("t.yaml:11:"), "{e}");
        assert!(e.contains("steps[0].stack[1].window.at_s"), "{e}");
        // A parameter out of range.
        let e = err(&ok.replace("probability: 0.5", "probability: 1.5"));
        assert!(
            e.contains("steps[0].stack[1].fault") && e.contains("probability"),
            "{e}"
        );
        // An unknown stage key: serde's own line.
        let e = err(&ok.replace("{drop: {probability: 0.5}}", "{drop: {p: 0.5}}"));
        assert!(e.starts_with("t.yaml:10:"), "{e}");
        // A field stage without the type; an unknown type.
        let e = err(&ok.replace("    type: sensor_msgs/msg/LaserScan\n", ""));
        assert!(
            e.contains("steps[0].stack[0].fault") && e.contains("`type`"),
            "{e}"
        );
        let e = err(&ok.replace("sensor_msgs/msg/LaserScan", "sensor_msgs/msg/LaserScn"));
        assert!(
            e.starts_with("t.yaml:6:") && e.contains("steps[0].type"),
            "{e}"
        );
        // Missing pieces and keys of another action.
        let e = err(&ok.replace("id: 2, ", ""));
        assert!(e.contains("steps[1].id"), "{e}");
        let e = err(&ok.replace("id: 2, ", "id: 0, "));
        assert!(e.contains("steps[1].id") && e.contains("from 1"), "{e}");
        let e = err(&ok.replace("    channel: scan\n", ""));
        assert!(e.contains("steps[0].channel"), "{e}");
        let e = err(&ok.replace("id: 2, ", "id: 2, append: true, "));
        assert!(e.contains("steps[1].append"), "{e}");
        let e = err(&ok.replace("id: 2, ", "id: 2, bias: 1.0, "));
        assert!(
            e.contains("steps[1].bias") && e.contains("unknown key"),
            "{e}"
        );
        // Delivery stages need no type.
        let no_type = "name: t\nsteps:\n  - {label: a, action: set_fault_stack, channel: c, at_s: 0, stack: [{fault: {delay: {delay_s: 0.1}}}]}\n";
        StepList::parse_with(no_type, "t.yaml", &reg).unwrap();
        let e = err(&no_type.replace("0.1", "61"));
        assert!(
            e.contains("steps[0].stack[0].fault") && e.contains("delay_s"),
            "{e}"
        );
    }
}
