//! Campaign scenario files (`scenarios/*.yaml`).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use breakbench_sim_bridge::PlantConfig;
use breakbench_world::range::Range;
use breakbench_world::World;
use kraken_faults::{build_stage, MsgKind};
use kraken_interfaces::{mode_from_name, FaultSpec, ParamValue};
use serde::{Deserialize, Serialize};

/// The declared range of every numeric field of a scenario file (see the
/// field docs). Axis offsets and values are in the unit of the FaultSpec
/// parameter they drive; the fault stage checks them further.
const MAX_AXIS: f64 = kraken_faults::params::MAX_TIMESTAMP_OFFSET_S;

pub const SCENARIO_RANGES: &[Range] = &[
    Range::new("seed", 0.0, u64::MAX as f64, "1"),
    Range::new("confidence", 0.5, 0.9999, "1"),
    Range::new("repeats", 1.0, 10_000.0, "runs per cell"),
    // As wide as the widest FaultSpec parameter (timestamp_offset_s: the
    // span of builtin_interfaces/Time, hdl_localization #48 is -1.66e9 s);
    // each parameter's own bound is checked by kraken_faults' check_spec.
    Range::new("axes[*].offset", -MAX_AXIS, MAX_AXIS, "parameter unit"),
    Range::new("axes[*].values[*]", -MAX_AXIS, MAX_AXIS, "axis unit"),
    Range::new("axes[*].range.min", -MAX_AXIS, MAX_AXIS, "axis unit"),
    Range::new("axes[*].range.max", -MAX_AXIS, MAX_AXIS, "axis unit"),
    Range::new("axes[*].range.reference", -MAX_AXIS, MAX_AXIS, "axis unit"),
    Range::new("design.samples", 2.0, 10_000.0, "cells"),
    Range::new("design.seed", 0.0, u64::MAX as f64, "1"),
    Range::new("rare_event.samples", 2.0, 10_000.0, "cells"),
    Range::new("rare_event.seed", 0.0, u64::MAX as f64, "1"),
    Range::new("rare_event.mean", -MAX_AXIS, MAX_AXIS, "axis unit"),
    Range::new("rare_event.sd", 1e-9, MAX_AXIS, "axis unit"),
    Range::new("rare_event.proposal_mean", -MAX_AXIS, MAX_AXIS, "axis unit"),
    Range::new("axes[*].at_s", 0.0, 1e6, "s"),
    Range::new("axes[*].duration_s", 0.001, 1e6, "s"),
    Range::new("axes[*].message_skip", 0.0, 1e9, "messages"),
    Range::new("axes[*].message_count", 0.0, 1e9, "messages"),
    Range::new("axes[*].message_every", 0.0, 1e9, "messages"),
    Range::new("nominal.runs", 2.0, 100_000.0, "runs"),
    Range::new("nominal.convergence.window", 1.0, 100_000.0, "runs"),
    Range::new("nominal.convergence.rel_tol", 0.0, 10.0, "1"),
    Range::new("nominal.convergence.abs_tol_m", 0.0, 100.0, "m"),
    Range::new("canary.linear_m_s", 0.001, 100.0, "m/s"),
    Range::new("canary.duration_s", 0.01, 3600.0, "s"),
    Range::new("statistics.margin_q", 0.001, 0.5, "1"),
    Range::new("statistics.tolerance_coverage", 0.5, 0.9999, "1"),
    Range::new("statistics.tolerance_confidence", 0.5, 0.9999, "1"),
    Range::new("statistics.p_star", 0.001, 0.999, "1"),
    Range::new("recording.pre_s", 0.0, 3600.0, "s"),
    Range::new("recording.post_s", 0.0, 3600.0, "s"),
];

use breakbench_navigator::NavigatorConfig;

/// Every channel an in-process controller can consume, so a fault stage can
/// sit on it: the estimator stack's inputs (odometry, IMU, GNSS, scan), a
/// superset of the plain navigator's. Which of them a scenario's controller
/// actually reads depends on its navigator file's `pose_source`, checked
/// across files by [`Scenario::load`].
pub const HARNESS_CHANNELS: &[(&str, MsgKind)] = &breakbench_navigator::stack::STACK_INPUTS;

/// The actuator channels of the in-process harness, between the
/// controller's command and the plant (REQ-FAULT-ACTUATOR): name, message
/// type and the field paths the typed modes act on, which are exactly the
/// ones the plant reads (the unicycle's forward speed and yaw rate), so
/// every fault on them reaches the robot. The shipped
/// `faults/kraken_faults/config/channels.yaml` declares the same channel (held
/// equal by a unit test of `campaign::scenario`).
pub const ACTUATOR_CHANNELS: &[(&str, &str, &[&str])] = &[(
    "cmd_vel",
    "geometry_msgs/msg/Twist",
    &["linear.x", "angular.z"],
)];

/// A channel of the in-process harness.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HarnessChannel {
    /// A sensor channel the controller may read, of this type.
    Sensor(MsgKind),
    /// An actuator channel ([`ACTUATOR_CHANNELS`]), index into it.
    Actuator(usize),
}

/// The harness channel named `name`.
pub fn harness_channel(name: &str) -> Option<HarnessChannel> {
    HARNESS_CHANNELS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, k)| HarnessChannel::Sensor(k))
        .or_else(|| {
            ACTUATOR_CHANNELS
                .iter()
                .position(|(n, _, _)| *n == name)
                .map(HarnessChannel::Actuator)
        })
}

/// Every harness channel's name, sensors then actuators, for error texts.
pub fn harness_channel_names() -> String {
    HARNESS_CHANNELS
        .iter()
        .map(|(n, _)| *n)
        .chain(ACTUATOR_CHANNELS.iter().map(|(n, _, _)| *n))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A fresh, healthy actuator channel `ACTUATOR_CHANNELS[i]`.
///
/// # Panics
/// If `i` is out of range or the built-in registry lacks the type (a bug,
/// held by the unit tests).
pub fn actuator_channel(i: usize) -> kraken_faults::DynChannel {
    let (name, ty, fields) = ACTUATOR_CHANNELS[i];
    kraken_faults::DynChannel::with_type(
        name,
        ty,
        kraken_faults::dynamic::builtin_registry(),
        kraken_faults::HoldLimits::DEFAULT,
    )
    .expect("the built-in registry has the actuator types")
    .with_fault_fields(fields.iter().map(|f| f.to_string()).collect())
}

/// Whether the injector implements `spec` on harness channel `channel`
/// (the typed mode's stage, or an actuator's stages).
///
/// # Errors
/// The injector's refusal ([`kraken_faults::FaultError::Unsupported`] for a
/// mode the channel's type has no meaning for).
pub fn check_harness_fault(
    channel: HarnessChannel,
    name: &str,
    spec: &FaultSpec,
) -> Result<(), kraken_faults::FaultError> {
    match channel {
        HarnessChannel::Sensor(kind) => build_stage(spec, name, kind).map(drop),
        HarnessChannel::Actuator(i) => actuator_channel(i).set_fault(spec, Duration::ZERO),
    }
}

/// One fault axis of the grid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// Axis name, used as the cell key in summary.json (e.g. `latency_s`).
    pub name: String,
    /// Channel the fault stage sits on (`scan` or `odom`).
    pub channel: String,
    /// Fault mode name (`delay`, `scale`, ... as in FaultSpec.msg).
    pub mode: String,
    /// The FaultSpec parameter the axis value drives (`delay_s`, `scale_factor`).
    pub parameter: String,
    /// parameter = offset + value (e.g. scale_factor = 1 + bias), in
    /// [-2^32, 2^32] (the parameter's unit; the parameter's own bound is
    /// checked at load).
    #[serde(default)]
    pub offset: f64,
    /// Grid values of the axis, in the axis' unit, each in [-2^32, 2^32];
    /// none (absent) on a sampled design's axis, which takes `range`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<f64>,
    /// A sampled design's range of the axis ([`sampled`],
    /// REQ-STAT-SAMPLED): `{min, max}` and the optional `reference`, in
    /// the axis' unit; only with `design: {kind: latin_hypercube|sobol}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<sampled::AxisRange>,
    /// Sim time the fault is set, s, in [0, 1e6] (default 0: from the
    /// start); within the run (the world's `mission_timeout_s`, checked
    /// across files by [`Scenario::load`]).
    #[serde(default)]
    pub at_s: f64,
    /// How long it is held once set, s, in [0.001, 1e6]; absent: to the end
    /// of the run (a step glitch held 20 s is `at_s: 5, duration_s: 20`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Message window (REQ-FAULT-MESSAGE-WINDOW, FaultSpec's fields of the
    /// same names): of the messages arriving once the fault is set, the
    /// first `message_skip` pass, then at most `message_count` (0: no
    /// limit) are faulted, only every `message_every`-th (0 or 1: each).
    /// `{message_skip: 4, message_count: 1}` faults exactly the 5th.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_skip: u32,
    /// See `message_skip`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_count: u32,
    /// See `message_skip`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub message_every: u32,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// A navigator axis of the grid: one parameter of the navigator file taking
/// each of `values` in turn (e.g. the estimator's GNSS gating), crossed with
/// the fault axes. In a cell, summary.json and the manifests the axis' value
/// is the index of its value in `values` (0, 1, ...); `labels` of
/// summary.json names them. The nominal set runs once per combination of
/// navigator values, so each variant gets its own fault-free runs (its
/// false-positive rate, REQ-STUDY-NAVIGATOR-AXIS).
///
/// ```yaml
/// navigator_axes:
///   - { name: gating, parameter: estimator_gating, values: [none, mahalanobis, consistency, both] }
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NavigatorAxis {
    /// Axis name: the cell key (same rules as a fault axis' name).
    pub name: String,
    /// A field of the navigator file (`estimator_gating`).
    pub parameter: String,
    /// Its values as written in the navigator file (`none`, `both`; a
    /// number as text), each checked against the navigator file's rules at
    /// load; labels of run ids, so A-Z, a-z, 0-9, `_` and `.` only.
    pub values: Vec<String>,
}

/// The study's detection: the `/diagnostics` status whose rise to `at_least`
/// counts as the robot detecting a fault. Each grid and nominal run records
/// when it first came ([`breakbench_records::manifest::DetectionRecord`]);
/// summary.json gives per cell p̂ of detection, of an undetected failure
/// (mission failure or safety violation without a detection after the fault
/// was applied) and the detection-latency distribution, and per navigator
/// variant the false-positive rate on the nominal runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Detection {
    /// A `/diagnostics` status name the controller publishes (`ekf: gnss`).
    pub diagnostic: String,
    /// The level that counts as a detection (`warn`, `error`, `stale`).
    pub at_least: breakbench_oracle::expect::DiagLevel,
}

/// The declared spread-convergence criterion of the nominal set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Convergence {
    /// Metric per nominal run; only `final_goal_distance_m` is defined.
    pub metric: ConvergenceMetric,
    /// Compare the spread of all n runs with that of the first n - window,
    /// in [1, runs - 2].
    pub window: usize,
    /// Relative tolerance on the change of the sample standard deviation,
    /// dimensionless, in [0, 10].
    pub rel_tol: f64,
    /// Absolute floor, metres, in [0, 100] m: spreads both below it count as converged.
    pub abs_tol_m: f64,
}

/// Metrics the convergence criterion can be declared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConvergenceMetric {
    /// Distance of the true pose from the goal centre at the end of the run, metres.
    FinalGoalDistanceM,
}

/// The nominal (fault-free) set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nominal {
    /// Fault-free runs, in [2, 100000].
    pub runs: usize,
    pub convergence: Convergence,
}

/// The positive canary: open-loop straight ahead from the start pose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Canary {
    /// Open-loop forward speed, m/s, in [0.001, 100] m/s.
    pub linear_m_s: f64,
    /// How long it drives, seconds of sim time, in [0.01, 3600] s.
    pub duration_s: f64,
}

/// The `recording:` section: the window the `events` recording policy
/// (`breakbench campaign --record events`) keeps around each of a run's
/// events (REQ-REC-POLICY). Both in [0, 3600] s.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordingSection {
    /// Kept before each event, s (default [`DEFAULT_PRE_S`]).
    #[serde(default = "default_pre_s")]
    pub pre_s: f64,
    /// Kept after each event, s (default [`DEFAULT_POST_S`]).
    #[serde(default = "default_post_s")]
    pub post_s: f64,
}

/// The default of `recording.pre_s`, s: with `post_s` 0.5 s, about 54 kB
/// per corridor-study run (docs/performance.md#recording).
pub const DEFAULT_PRE_S: f64 = 0.5;
/// The default of `recording.post_s`, s.
pub const DEFAULT_POST_S: f64 = 0.5;

fn default_pre_s() -> f64 {
    DEFAULT_PRE_S
}

fn default_post_s() -> f64 {
    DEFAULT_POST_S
}

/// A scenario file as written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    /// Master seed, any u64.
    pub seed: u64,
    pub world: PathBuf,
    pub robot: PathBuf,
    pub navigator: PathBuf,
    /// Level of the Wilson intervals, in [0.5, 0.9999].
    pub confidence: f64,
    /// Runs per grid cell, in [1, 10000] (the plan's size is further bounded
    /// by the resource budget).
    pub repeats: usize,
    pub axes: Vec<Axis>,
    /// Navigator axes, crossed with `axes` (after them, so the last
    /// navigator axis varies fastest); none by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub navigator_axes: Vec<NavigatorAxis>,
    /// The study's detection; none by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detection: Option<Detection>,
    pub nominal: Nominal,
    pub canary: Option<Canary>,
    pub isolation_check: bool,
    /// Resilience tests ([`super::resilience`]); none by default.
    #[serde(default)]
    pub tests: Vec<resilience::ResilienceTest>,
    /// Severity searches ([`super::search`], `breakbench search`); none by
    /// default. Not part of the campaign's plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub escape_search: Vec<search::EscapeSearch>,
    /// Declared statistics ([`statistics::Statistics`]: interval method,
    /// margin quantile, tolerance bound, p* and link); absent: the defaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statistics: Option<statistics::Statistics>,
    /// The `events` recording policy's window; the defaults without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recording: Option<RecordingSection>,
    /// Which cells of the axes run: `grid` (default, every combination),
    /// `pairwise` (REQ-STAT-PAIRWISE) or a sampled design of the axes'
    /// ranges, `{kind: latin_hypercube|sobol, samples, seed}`
    /// (REQ-STAT-SAMPLED).
    #[serde(default, skip_serializing_if = "Design::is_grid")]
    pub design: Design,
    /// Rare-event estimation by importance sampling on the one fault axis
    /// ([`rare_event`], REQ-STAT-RARE): its draws are the cells; none by
    /// default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rare_event: Option<rare_event::RareEvent>,
}

pub use sampled::{AxisRange, Design, SampleKind, Sampling};

/// A loaded, validated scenario with the files it refers to.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub file: ScenarioFile,
    pub path: PathBuf,
    pub world: World,
    pub plant: PlantConfig,
    pub navigator: NavigatorConfig,
    /// The scenario hash ([`breakbench_records::scenario_hash`]) of the
    /// scenario file, then the world, robot and navigator files it names.
    pub hash: String,
    /// The navigator of each combination of the navigator axes' values
    /// (their indices, in axis order): `navigator` with those parameters
    /// set. One entry, keyed by the empty vector, without navigator axes.
    pub variants: BTreeMap<Vec<usize>, NavigatorConfig>,
}

/// Builds the FaultSpec for `axis` at `value`: the named parameter set to
/// `offset + value` ([`FaultSpec::set_param`]), every other parameter 0.
///
/// # Errors
/// A message if the mode is unknown, or the parameter is not a float64 field
/// of FaultSpec.
pub fn fault_spec(axis: &Axis, value: f64) -> Result<FaultSpec, String> {
    let mode =
        mode_from_name(&axis.mode).ok_or_else(|| format!("unknown fault mode '{}'", axis.mode))?;
    let mut spec = FaultSpec {
        message_skip: axis.message_skip,
        message_count: axis.message_count,
        message_every: axis.message_every,
        ..FaultSpec::new(axis.channel.clone(), mode)
    };
    spec.set_param(&axis.parameter, ParamValue::Float(axis.offset + value))
        .map_err(|e| e.to_string())?;
    Ok(spec)
}

/// Cell keys of summary.json that are not axis names (an axis may not use them).
pub const RESERVED_CELL_KEYS: [&str; 8] = [
    "n",
    "verdict_classes",
    "safety",
    "mission",
    "delivered",
    "detection",
    "margins",
    "sub_margin_joint",
];

/// Longest text of one axis value in a run id (`{v}` formatting).
pub(crate) const MAX_VALUE_CHARS: usize = 24;

impl Scenario {
    /// Every grid cell: one value per axis, in axis order, the last axis fastest.
    pub fn cells(&self) -> Vec<BTreeMap<String, f64>> {
        self.file.cells()
    }

    /// The navigator of a run whose cell is `cell`: the navigator file with
    /// the cell's navigator-axis values (the file as is without navigator
    /// axes, and for a run whose cell has none of them).
    pub fn navigator_for(&self, cell: &BTreeMap<String, f64>) -> &NavigatorConfig {
        self.variants
            .get(&self.file.variant_of(cell))
            .unwrap_or(&self.navigator)
    }
}

impl Axis {
    /// The unit of the axis' values (= its FaultSpec `parameter`'s, the
    /// offset being in the same unit), as `FaultSpec` declares it for the
    /// axis' channel type ([`kraken_interfaces::units::parameter_unit`]):
    /// e.g. `delay_s` → `s`, `scale_factor` → `dimensionless`, `bias_rate`
    /// on gnss → `m/s`. "channel units" for a channel-unit parameter on a
    /// channel that is no harness channel (an external stack's).
    pub fn unit(&self) -> &'static str {
        let ros_type = match harness_channel(&self.channel) {
            Some(HarnessChannel::Sensor(k)) => k.ros_type(),
            Some(HarnessChannel::Actuator(i)) => ACTUATOR_CHANNELS[i].1,
            None => "",
        };
        kraken_interfaces::units::parameter_unit(&self.parameter, ros_type)
            .unwrap_or("channel units")
    }
}

impl ScenarioFile {
    /// The window the `events` recording policy keeps around each event:
    /// the `recording:` section's, or the defaults.
    pub fn recording_window(&self) -> RecordingSection {
        self.recording.unwrap_or(RecordingSection {
            pre_s: DEFAULT_PRE_S,
            post_s: DEFAULT_POST_S,
        })
    }

    /// Every cell: one value per axis (fault axes, then navigator axes as
    /// value indices), in grid order, the last axis fastest; with `design:
    /// pairwise` only the covering array's cells; with a sampled design
    /// its points, in the order drawn.
    pub fn cells(&self) -> Vec<BTreeMap<String, f64>> {
        let sampled = self.sampled();
        let names: Vec<&str> = self
            .axes
            .iter()
            .map(|a| a.name.as_str())
            .chain(self.navigator_axes.iter().map(|a| a.name.as_str()))
            .collect();
        let value = |k: usize, i: usize| match (&sampled, self.axes.get(k)) {
            (Some((values, _)), Some(_)) => values[k][i],
            (None, Some(a)) => a.values[i],
            _ => i as f64,
        };
        let rows = match sampled {
            Some((_, ref rows)) => rows.clone(),
            None => self.cell_indices(),
        };
        rows.into_iter()
            .map(|row| {
                row.iter()
                    .enumerate()
                    .map(|(k, &i)| (names[k].to_string(), value(k, i)))
                    .collect()
            })
            .collect()
    }

    /// The value indices of every cell ([`Self::cells`]), one per axis
    /// (fault axes, then navigator axes), in grid order; a sampled
    /// design's points as indices into each axis' sorted sampled values.
    pub fn cell_indices(&self) -> Vec<Vec<usize>> {
        if let Some((_, rows)) = self.sampled() {
            return rows;
        }
        let sizes: Vec<usize> = self
            .axes
            .iter()
            .map(|a| a.values.len())
            .chain(self.navigator_axes.iter().map(|a| a.values.len()))
            .collect();
        if self.design == Design::Pairwise {
            return pairwise::pairwise_rows(&sizes);
        }
        let mut rows = vec![Vec::new()];
        for n in sizes {
            rows = rows
                .iter()
                .flat_map(|r| {
                    (0..n).map(move |i| {
                        let mut r = r.clone();
                        r.push(i);
                        r
                    })
                })
                .collect();
        }
        rows
    }

    /// Every combination of the navigator axes' value indices, in axis
    /// order, the last axis fastest; one empty combination without them.
    pub fn variant_keys(&self) -> Vec<Vec<usize>> {
        let mut keys = vec![Vec::new()];
        for axis in &self.navigator_axes {
            keys = keys
                .iter()
                .flat_map(|k| {
                    (0..axis.values.len()).map(move |i| {
                        let mut k = k.clone();
                        k.push(i);
                        k
                    })
                })
                .collect();
        }
        keys
    }

    /// The navigator-axis value indices of `cell` (a cell or a run's cell),
    /// in axis order; a missing key reads as 0.
    pub fn variant_of(&self, cell: &BTreeMap<String, f64>) -> Vec<usize> {
        self.navigator_axes
            .iter()
            .map(|a| cell.get(&a.name).map_or(0, |v| *v as usize))
            .collect()
    }

    /// Variant `key` as a cell-axis map: each navigator axis's name to its
    /// value index (as f64, the way cells carry it), in axis order; empty
    /// without navigator axes. The inverse of [`Self::variant_of`].
    pub fn variant_axes(&self, key: &[usize]) -> BTreeMap<String, f64> {
        self.navigator_axes
            .iter()
            .zip(key)
            .map(|(a, i)| (a.name.clone(), *i as f64))
            .collect()
    }

    /// The labels of variant `key` (`gating=both`), joined with `, `; empty
    /// without navigator axes.
    pub fn variant_label(&self, key: &[usize]) -> String {
        self.navigator_axes
            .iter()
            .zip(key)
            .map(|(a, i)| format!("{}={}", a.name, a.values.get(*i).map_or("?", |v| v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `base` with navigator field `parameter` set to `value` as written in a
/// navigator file (a number field reads `value` as a number), checked by the
/// navigator file's own rules.
///
/// # Errors
/// A message naming the field and why `value` does not fit it.
pub fn navigator_with(
    base: &NavigatorConfig,
    parameter: &str,
    value: &str,
) -> Result<NavigatorConfig, String> {
    let mut v = serde_json::to_value(base).map_err(|e| e.to_string())?;
    let obj = v.as_object_mut().ok_or("navigator is not a mapping")?;
    let Some(old) = obj.get(parameter) else {
        let mut known: Vec<&str> = obj.keys().map(String::as_str).collect();
        known.sort_unstable();
        return Err(format!(
            "the navigator file has no parameter '{parameter}' (its parameters: {})",
            known.join(", ")
        ));
    };
    let new = if old.is_number() {
        let x: f64 = value
            .parse()
            .map_err(|_| format!("'{value}' is not a number ('{parameter}' is one)"))?;
        serde_json::json!(x)
    } else {
        serde_json::Value::String(value.to_string())
    };
    obj.insert(parameter.to_string(), new);
    let text = serde_yaml_ng::to_string(&v).map_err(|e| e.to_string())?;
    NavigatorConfig::parse(&text, &format!("<navigator with {parameter}: {value}>"))
        .map_err(|e| e.to_string())
}

pub mod pairwise;
pub mod rare_event;
pub mod resilience;
pub mod sampled;
pub mod search;
pub mod statistics;

/// An axis value as it appears in run ids and cell labels (`0.2`, `1e-5`).
pub(crate) fn fmt_value(v: f64) -> String {
    format!("{v}")
}
#[cfg(test)]
mod tests;
