//! One run, in-process: plant → fault stages → navigator on one sim clock,
//! the oracle fed the ground-truth stream only.

use std::time::{Duration, Instant};

use breakbench_sim_bridge::Plant;
use kraken_faults::{delivered_probe, FaultSchedule, Injector, ScheduledFault};
use kraken_interfaces::ros::DiagnosticArray;
use kraken_interfaces::FaultSpec;

use super::manifest::{ContactRecord, DetectionRecord, FaultRecord, Manifest, RunKind};
use super::resilience_run::TestDriver;
use super::scenario::{fault_spec, Axis, Detection, Scenario};
use super::CampaignError;
use breakbench_navigator::controller::Controller;
use breakbench_navigator::stack::Stack;
use breakbench_navigator::{Navigator, PoseSource};
use breakbench_oracle::expect::{ClassifiedVerdict, DiagLevel};

pub use super::run_spec::RunSpec;

pub mod events;
pub mod recorder;
mod run_loop;
pub(crate) use run_loop::recording_metadata;

pub use recorder::{EventWindow, RecordMode};

use run_loop::RunLoop;

/// A finished run: its manifest (without wall time and trace hash filled in
/// by the writer) and its ground-truth trace as CSV.
pub struct RunOutput {
    pub manifest: Manifest,
    pub trace_csv: String,
    /// Which faults touched each message (`kraken_faults::provenance` CSV),
    /// when the run recorded it ([`execute_with`]).
    pub provenance_csv: Option<String>,
    /// The run's MCAP recording ([`recorder`]), when it made one.
    pub recording: Option<Vec<u8>>,
}

/// What a run records besides its manifest and trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunRecords {
    /// Which fault touched each message (REQ-FAULT-PROVENANCE).
    pub provenance: bool,
    /// The MCAP recording and its policy (REQ-REC-MCAP, REQ-REC-POLICY).
    pub mcap: RecordMode,
}

/// The controller under test the navigator config declares: the
/// simple_navigator on wheel odometry, or on the estimator's output
/// (`pose_source: estimator`, [`Stack`]).
///
/// # Errors
/// [`CampaignError::Stack`] if the estimator's config does not build.
pub fn controller_under_test(
    navigator: &breakbench_navigator::NavigatorConfig,
    world: &breakbench_world::World,
) -> Result<Box<dyn Controller>, CampaignError> {
    Ok(if navigator.pose_source == PoseSource::Estimator {
        Box::new(Stack::declared(navigator.clone(), world)?)
    } else {
        Box::new(Navigator::new(navigator.clone(), world.goal_in_odom()))
    })
}

/// A fault-channel error of a run of `scenario`.
pub(crate) fn fault_err(scenario: &Scenario, e: kraken_faults::FaultError) -> CampaignError {
    CampaignError::Fault {
        path: scenario.path.display().to_string(),
        field: "channels".into(),
        error: Box::new(e),
    }
}

/// Executes one run of `scenario`.
///
/// The run lasts the world's mission timeout of sim time whatever the
/// navigator does, so every invariant is judged over the same window.
///
/// # Errors
/// Only configuration errors (the scenario was validated on load, so these
/// indicate a bug); the run itself cannot fail.
pub fn execute(
    scenario: &Scenario,
    spec: &RunSpec,
    provenance: &super::manifest::Provenance,
) -> Result<RunOutput, CampaignError> {
    execute_with(scenario, spec, provenance, RunRecords::default())
}

/// [`execute`], recording what `records` asks for: with `provenance`, which
/// fault touched each message of every channel, sensors and actuator
/// ([`RunOutput::provenance_csv`], REQ-FAULT-PROVENANCE): rows in order of
/// reception (ties: the channels' delivery order, then input index and
/// output); with `mcap` `full` or `events`, the run's MCAP recording
/// ([`RunOutput::recording`], REQ-REC-MCAP, REQ-REC-POLICY). Recording changes no result: the same verdicts and trace
/// (the manifest gains the recording's sha256).
///
/// # Errors
/// As [`execute`].
pub fn execute_with(
    scenario: &Scenario,
    spec: &RunSpec,
    provenance: &super::manifest::Provenance,
    records: RunRecords,
) -> Result<RunOutput, CampaignError> {
    let wall = Instant::now();
    // A resilience test's fault run: the class of its baseline (the same
    // seed without the fault), executed here so the pairing does not
    // depend on the order runs finish in.
    let baseline_class = baseline_class(scenario, spec, provenance)?;
    let mut run = RunLoop::new(scenario, spec, records)?;
    run.run_to_end()?;
    run.finish(provenance, baseline_class.as_ref(), wall, records)
}

/// A grid axis, its value in this run's cell, and the fault it sets.
type GridFault<'s> = (&'s Axis, f64, FaultSpec);

/// A grid run's faults: one per axis at the run's cell value, each with the
/// probe of what it delivered on its channel (an actuator channel has none:
/// its faults are stages), and the schedule that sets each at its `at_s`
/// (default 0) and clears it after its `duration_s` (default: never).
/// Other runs: none.
///
/// # Errors
/// [`CampaignError::Axis`] for a value the axis' mode refuses;
/// [`CampaignError::Fault`] for a schedule the injector refuses.
pub(crate) fn grid_faults<'s>(
    scenario: &'s Scenario,
    spec: &RunSpec,
    injector: &mut Injector,
) -> Result<(Vec<GridFault<'s>>, FaultSchedule), CampaignError> {
    // Grid cells: every axis' fault set at t = 0 and never cleared, with the
    // probe of what it delivered on its channel.
    let mut axes: Vec<(&Axis, f64, FaultSpec)> = Vec::new();
    if spec.kind == RunKind::Grid {
        for axis in &scenario.file.axes {
            let v = spec.faults[&axis.name];
            let fs = fault_spec(axis, v).map_err(|message| CampaignError::Axis {
                axis: axis.name.clone(),
                message,
            })?;
            // (An actuator channel has no probe: its faults are stages.)
            if let (Some(probe), Ok(ch)) =
                (delivered_probe(fs.mode), injector.channel_mut(&fs.channel))
            {
                ch.add_probe(probe);
            }
            axes.push((axis, v, fs));
        }
    }
    // Each axis' fault set at its `at_s` (default 0) and held for its
    // `duration_s` (default: to the end).
    let schedule = FaultSchedule::new(
        axes.iter()
            .map(|(axis, _, fs)| {
                let set_at = Duration::from_secs_f64(axis.at_s);
                ScheduledFault {
                    spec: fs.clone(),
                    set_at,
                    clear_at: axis.duration_s.map(|d| set_at + Duration::from_secs_f64(d)),
                }
            })
            .collect(),
    )
    .map_err(|e| CampaignError::Fault {
        path: scenario.path.display().to_string(),
        field: "axes".into(),
        error: Box::new(e),
    })?;
    Ok((axes, schedule))
}

/// The resilience test's driver of a test or baseline run (`None` for
/// the other runs).
///
/// # Errors
/// [`CampaignError::Axis`] if the run names no test of the scenario; the
/// driver's own errors.
fn test_driver(
    scenario: &Scenario,
    spec: &RunSpec,
    controller: &dyn Controller,
) -> Result<Option<TestDriver>, CampaignError> {
    Ok(match &spec.test {
        Some(name) => {
            let test = scenario
                .file
                .tests
                .iter()
                .find(|t| t.name == *name)
                .ok_or_else(|| CampaignError::Axis {
                    axis: name.clone(),
                    message: "no such test in the scenario".into(),
                })?;
            let baseline = spec.kind == RunKind::Baseline;
            let phase_s = spec.phase_s.unwrap_or(0.0);
            Some(TestDriver::new(
                test,
                &scenario.world,
                spec.seed,
                baseline,
                phase_s,
                controller,
            )?)
        }
        None => None,
    })
}

/// The verdict class of a resilience-test fault run's baseline (the same
/// seed without the fault), executed here so that the pairing does not
/// depend on the order runs finish in; `None` for every other run.
///
/// # Errors
/// As [`execute`] of the baseline.
fn baseline_class(
    scenario: &Scenario,
    spec: &RunSpec,
    provenance: &super::manifest::Provenance,
) -> Result<Option<ClassifiedVerdict>, CampaignError> {
    scenario
        .paired_baseline(spec)
        .map(|b| {
            Ok(execute(scenario, &b, provenance)?
                .manifest
                .judgement
                .verdict_class)
        })
        .transpose()
}

/// Records in `detections` the stamp, s, of every rise of the study's
/// status `det` to its level in this step's /diagnostics `arrays`: a rise
/// from below the level counts, once `seen_below` (REQ-EXPECT-DIAG-LEVELS).
fn note_detections(
    det: &Detection,
    arrays: Vec<DiagnosticArray>,
    seen_below: &mut bool,
    detections: &mut Vec<f64>,
) {
    for a in arrays {
        for st in a.status.iter().filter(|st| st.name == det.diagnostic) {
            // A rise from below the detection level counts; STALE
            // ("no data") is neither below nor at a severity level
            // unless the detection asks for STALE itself
            // (REQ-EXPECT-DIAG-LEVELS).
            if det.at_least.at_least_met_by(st.level) {
                if *seen_below {
                    detections.push(a.header.stamp.as_secs_f64());
                }
            } else if det.at_least == DiagLevel::Stale || DiagLevel::severity(st.level).is_some() {
                *seen_below = true;
            }
        }
    }
}

/// A grid run's fault records: one per axis, with the value it asked for,
/// when its fault first touched a message, and what its channel counted and
/// delivered (a sensor channel's probe; an actuator channel has none: its
/// faults are stages).
fn grid_fault_records(
    axes: Vec<(&Axis, f64, FaultSpec)>,
    first_applied: Vec<Option<f64>>,
    injector: &Injector,
) -> Vec<FaultRecord> {
    axes.into_iter()
        .zip(first_applied)
        .map(|((axis, v, fs), first_applied_s)| {
            // Counters and clear time: a sensor channel's, or the actuator
            // channel's (no delivered probe: its faults are stages).
            let (messages_in, messages_out, cleared_s, (metric, delivered)) =
                match injector.raw_channel(&fs.channel) {
                    Some(r) => (
                        r.messages_in,
                        r.messages_out,
                        r.last_cleared.map(|t| t.as_secs_f64()),
                        ("none", None),
                    ),
                    None => {
                        let ch = injector.channel(&fs.channel).expect("validated channel");
                        let st = ch.stats();
                        (
                            st.messages_in,
                            st.messages_out,
                            ch.cleared().map(|t| t.as_secs_f64()),
                            ch.probes()
                                .first()
                                .map_or(("none", None), |p| (p.name(), p.value())),
                        )
                    }
                };
            FaultRecord {
                axis: axis.name.clone(),
                channel: fs.channel.clone(),
                mode: axis.mode.clone(),
                parameter: axis.parameter.clone(),
                requested: axis.offset + v,
                axis_value: v,
                delivered_metric: metric.into(),
                delivered,
                messages_in,
                messages_out,
                first_applied_s,
                cleared_s,
            }
        })
        .collect()
}

/// The detection record of a run: when the controller first raised the
/// study's status at or above its level, and the first time while a fault
/// was active (from its first application to its clear or the end), with
/// the latency from that application. `detections` are the rise times, s.
fn detection_record(
    det: &Detection,
    fault_records: &[FaultRecord],
    detections: &[f64],
) -> DetectionRecord {
    let applied = fault_records
        .iter()
        .filter_map(|f| f.first_applied_s)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.min(t))));
    // While the fault is active: from its first application to its
    // clear (a timed axis) or the end; a refusal of the fix jumping
    // back when the fault ends is not a detection of it.
    let cleared = fault_records
        .iter()
        .filter_map(|f| f.cleared_s)
        .fold(f64::INFINITY, f64::min);
    let first_s = detections.iter().copied().reduce(f64::min);
    let after_fault_s = applied.and_then(|a| {
        detections
            .iter()
            .copied()
            .filter(|t| *t >= a && *t < cleared)
            .reduce(f64::min)
    });
    DetectionRecord {
        diagnostic: det.diagnostic.clone(),
        first_s,
        after_fault_s,
        latency_s: after_fault_s.zip(applied).map(|(t, a)| t - a),
    }
}

/// The plant's contacts as the manifest records them.
fn contact_records(plant: &Plant) -> Vec<ContactRecord> {
    plant
        .contacts()
        .iter()
        .map(|c| ContactRecord {
            t_s: c.t.as_secs_f64(),
            x_m: c.x_m,
            y_m: c.y_m,
            with: c.with.clone(),
        })
        .collect()
}

/// Which faults touched each message of every channel, as
/// `kraken_faults::provenance` CSV (REQ-FAULT-PROVENANCE), in the order
/// the messages were received.
fn provenance_csv(injector: &mut Injector) -> String {
    let mut touches: Vec<(usize, kraken_faults::Touch)> = Vec::new();
    for (i, c) in injector.channels_mut().iter_mut().enumerate() {
        touches.extend(c.take_touches().into_iter().map(|t| (i, t)));
    }
    let n = injector.channels().len();
    for (i, c) in injector.raw_channels_mut().enumerate() {
        touches.extend(c.take_touches().into_iter().map(|t| (n + i, t)));
    }
    // Stable: a channel's rows are already in (seq, output) order.
    touches.sort_by_key(|(i, t)| (t.received, *i));
    let rows: Vec<kraken_faults::Touch> = touches.into_iter().map(|(_, t)| t).collect();
    kraken_faults::provenance::to_csv(&rows)
}

/// Marks each axis of `axes` whose fault the schedule has set by `now`
/// (its `at_s` reached) and that has no requested time yet.
fn note_requested(requested: &mut [Option<f64>], axes: &[(&Axis, f64, FaultSpec)], now: Duration) {
    for (slot, (axis, _, _)) in requested.iter_mut().zip(axes) {
        if slot.is_none() && Duration::from_secs_f64(axis.at_s) <= now {
            *slot = Some(now.as_secs_f64());
        }
    }
}

/// The timeline of a grid run's faults (one per axis, named after it), as
/// a resilience test's run records it: `t_trigger` the axis' declared
/// `at_s` (a time trigger), `t_requested` the step the schedule set the
/// fault, `t_applied` its first touched message (`first_applied_s`),
/// `t_cleared` its clear (`cleared_s`, a timed axis), all sim time, no host
/// clock. `None` for a run without faults (nominal, canary). The graph
/// executor records its grid runs' timelines through it too.
pub(crate) fn grid_timeline(
    names: &[String],
    at_s: &[f64],
    requested: &[Option<f64>],
    records: &[FaultRecord],
) -> Option<breakbench_oracle::expect::Timeline> {
    use breakbench_oracle::expect::{FaultEvent, Stamp, Timeline};
    if names.is_empty() {
        return None;
    }
    let mut tl = Timeline::new(names);
    let stamp = |sim_s: f64| Stamp {
        sim_s,
        host_s: None,
    };
    for (i, name) in names.iter().enumerate() {
        let r = &records[i];
        let events = [
            (FaultEvent::Trigger, Some(at_s[i])),
            (FaultEvent::Requested, requested[i]),
            (FaultEvent::Applied, r.first_applied_s),
            (FaultEvent::Cleared, r.cleared_s),
        ];
        for (event, t) in events {
            if let Some(t) = t {
                tl.note(name, event, stamp(t));
            }
        }
    }
    Some(tl)
}
