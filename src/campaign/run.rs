//! One run, in-process: plant → fault stages → navigator on one sim clock,
//! the oracle fed the ground-truth stream only.

use std::time::{Duration, Instant};

use breakbench_oracle::{isolation_check, PoseSample, RunEvidence};
use breakbench_sim_bridge::plant::sensor_kind;
use breakbench_sim_bridge::{Plant, PlantOutputs};
use kraken_faults::SensorMsg;
use kraken_faults::{
    channel_rng, delivered_probe, Channel, FaultRng, FaultSchedule, Injector, ScheduledFault,
};
use kraken_interfaces::ros::{DiagnosticArray, NavSatStatus, Odometry, Twist, Vector3};
use kraken_interfaces::FaultSpec;
use kraken_interfaces::SelfReport;

use super::manifest::{
    ContactRecord, DetectionRecord, FaultRecord, IsolationRecord, Manifest, RunKind,
};
use super::scenario::{actuator_channel, fault_spec, Axis, Detection, Scenario, ACTUATOR_CHANNELS};
use super::test_run::TestDriver;
use super::trace::{trace_file, TraceRow, TraceWriter};
use super::CampaignError;
use breakbench_navigator::controller::{Controller, OpenLoop};
use breakbench_navigator::stack::Stack;
use breakbench_navigator::{Navigator, PoseSource};
use breakbench_oracle::expect::{ClassifiedVerdict, DiagLevel, RunJudgement};

pub use super::run_spec::RunSpec;

/// A finished run: its manifest (without wall time and trace hash filled in
/// by the writer) and its ground-truth trace as CSV.
pub struct RunOutput {
    pub manifest: Manifest,
    pub trace_csv: String,
    /// Which faults touched each message (`kraken_faults::provenance` CSV),
    /// when the run recorded it ([`execute_recording`]).
    pub provenance_csv: Option<String>,
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
fn fault_err(scenario: &Scenario, e: kraken_faults::FaultError) -> CampaignError {
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
    execute_recording(scenario, spec, provenance, false)
}

/// [`execute`], and with `record_provenance` the run also records which
/// fault touched each message of every channel, sensors and actuator
/// ([`RunOutput::provenance_csv`], REQ-FAULT-PROVENANCE): rows in order of
/// reception (ties: the channels' delivery order, then input index and
/// output). Recording changes no result: the same manifest and trace.
///
/// # Errors
/// As [`execute`].
pub fn execute_recording(
    scenario: &Scenario,
    spec: &RunSpec,
    provenance: &super::manifest::Provenance,
    record_provenance: bool,
) -> Result<RunOutput, CampaignError> {
    let wall = Instant::now();
    let world = &scenario.world;
    let mut controller: Box<dyn Controller> = match &scenario.file.canary {
        Some(c) if spec.kind == RunKind::Canary => {
            Box::new(OpenLoop::new(c.linear_m_s, c.duration_s))
        }
        _ => controller_under_test(scenario.navigator_of(spec), world)?,
    };
    // One channel per controller input, in its delivery order, each of the
    // type the plant declares for it; the plant computes only these sensors.
    let inputs: Vec<(&'static str, kraken_faults::MsgKind)> = controller.inputs().to_vec();
    // A resilience test: its driver, and for a fault run the class of its
    // baseline (the same seed without the fault, executed here so the
    // pairing does not depend on the order runs finish in).
    let mut driver = test_driver(scenario, spec, controller.as_ref())?;
    let baseline_class = baseline_class(scenario, spec, provenance)?;
    for &(name, kind) in &inputs {
        if sensor_kind(name) != Some(kind) {
            return Err(CampaignError::Wiring {
                channel: name.into(),
                wanted: kind.ros_type().into(),
                plant: sensor_kind(name)
                    .map_or("no such sensor", |k| k.ros_type())
                    .into(),
            });
        }
    }
    let wired: Vec<&str> = inputs.iter().map(|(n, _)| *n).collect();
    let mut plant = Plant::new(world, &scenario.plant, spec.seed, &wired)?;
    // The sensor channels, then the actuator channel between the
    // controller's command and the plant (REQ-FAULT-ACTUATOR).
    let mut injector = Injector::new(inputs.iter().map(|(n, k)| Channel::new(*n, *k)).collect())
        .with_raw_channel(actuator_channel(0));
    let cmd_vel = ACTUATOR_CHANNELS[0].0;
    if record_provenance {
        for c in injector.channels_mut() {
            c.record_provenance(true);
        }
        for c in injector.raw_channels_mut() {
            c.record_provenance(true);
        }
    }

    // One fault stream per channel, from the run seed and the channel name.
    let mut rngs: Vec<FaultRng> = injector
        .channels()
        .iter()
        .map(|c| channel_rng(spec.seed, c.name()))
        .collect();
    let mut cmd_rng = channel_rng(spec.seed, cmd_vel);

    let (axes, mut schedule) = grid_faults(scenario, spec, &mut injector)?;
    // The study's detection, watched on grid and nominal runs: every
    // /diagnostics status the controller publishes, (name, level, stamp).
    let detection = scenario
        .file
        .detection
        .as_ref()
        .filter(|_| matches!(spec.kind, RunKind::Grid | RunKind::Nominal));
    let mut detections: Vec<f64> = Vec::new();
    // The status was seen below the detection level: only a rise from
    // there counts (the estimator's start-up STALE "no message yet" is not
    // a detection).
    let mut seen_below = false;
    // When each axis' fault first touched a message (read every step: the
    // channel forgets it once a timed fault is cleared).
    let mut first_applied: Vec<Option<f64>> = vec![None; axes.len()];
    let apply_schedule = |schedule: &mut FaultSchedule,
                          injector: &mut Injector,
                          now: Duration|
     -> Result<(), CampaignError> {
        schedule
            .apply_due(injector, now)
            .map_err(|e| CampaignError::Fault {
                path: scenario.path.display().to_string(),
                field: "axes".into(),
                error: Box::new(e),
            })
    };
    apply_schedule(&mut schedule, &mut injector, Duration::ZERO)?;
    // When the schedule set each axis' fault (the step at or after its
    // `at_s`), for the grid run's timeline.
    let mut requested: Vec<Option<f64>> = vec![None; axes.len()];
    note_requested(&mut requested, &axes, Duration::ZERO);

    let mut poses: Vec<PoseSample> = Vec::new();
    let end = Duration::from_secs_f64(world.mission_timeout_s);
    let period = scenario.navigator_of(spec).control_period();
    let mut next_control = Duration::ZERO;
    let mut trace = TraceWriter::new();
    // The trace's GNSS columns: the last fix the navigator was given, in the
    // world frame (REQ-STUDY-TRACES).
    let enu = world.datum.map(breakbench_world::geodesy::LocalEnu::new);
    let mut last_gnss = (f64::NAN, f64::NAN);

    // The plant's outputs, refilled in place every step.
    let mut out = PlantOutputs::default();
    let mut truth_msg = Odometry::default();
    while plant.now() < end {
        let truth_due = plant.step_into(&mut out.sensors, &mut truth_msg);
        let truth = truth_due.then_some(&truth_msg);
        let now = plant.now();
        if schedule.next_due().is_some_and(|t| t <= now) {
            apply_schedule(&mut schedule, &mut injector, now)?;
            note_requested(&mut requested, &axes, now);
        }
        if let Some(d) = driver.as_mut() {
            if let Some(t) = truth {
                d.on_truth(t);
            }
            d.before_relay(now, &mut injector)?;
        }
        // Each channel in the controller's order: this step's message in,
        // what is due out (a healthy channel passes it straight through).
        for (i, ch) in injector.channels_mut().iter_mut().enumerate() {
            let name = inputs[i].0;
            // The message taken in the argument itself: through a local, the
            // 752-byte `Option<SensorMsg>` was copied again, even when empty.
            ch.relay(out.take(name), now, &mut rngs[i], |m| {
                if let Some(d) = driver.as_mut() {
                    d.on_delivered(now, m);
                }
                if let (SensorMsg::NavSatFix(f), Some(enu)) = (m, enu.as_ref()) {
                    if f.status.status >= NavSatStatus::STATUS_FIX {
                        let p = enu.from_geodetic(f.latitude, f.longitude, f.altitude);
                        last_gnss = (p[0], p[1]);
                    }
                }
                controller.on_message(name, m, now)
            });
        }
        // The controller's command goes through the actuator channel as a
        // geometry_msgs/Twist (CDR, as on the graph); what the channel
        // releases is what the plant applies, and what the oracle sees as
        // cmd_vel. Nothing released: the plant keeps the last command, as
        // Gazebo's DiffDrive does.
        let actuator = injector.raw_channel_mut(cmd_vel).expect("added above");
        if now >= next_control {
            next_control += period;
            let cmd = controller.tick(now);
            let twist = Twist {
                linear: Vector3 {
                    x: cmd.linear_m_s,
                    ..Vector3::default()
                },
                angular: Vector3 {
                    z: cmd.angular_rad_s,
                    ..Vector3::default()
                },
            };
            actuator
                .push_msg(&twist, now, &mut cmd_rng)
                .map_err(|e| fault_err(scenario, e))?;
        }
        for t in actuator
            .poll_msgs::<Twist>(now)
            .map_err(|e| fault_err(scenario, e))?
        {
            plant.set_cmd_vel(t.linear.x, t.angular.z);
            if let Some(d) = driver.as_mut() {
                d.on_cmd_vel(now, t.linear.x, t.angular.z);
            }
        }
        if let Some(d) = driver.as_mut() {
            // What the controller believes: its map-frame estimate, or its
            // odometry pose moved into the world frame.
            if let Some(p) = controller
                .map_pose()
                .or_else(|| controller.odom_pose().map(|p| world.odom_to_world(p)))
            {
                d.on_estimate(now, p);
            }
            // What the controller said this step: its /rosout and
            // /diagnostics output, through the same code as its node.
            d.on_controller(controller.take_logs(), controller.take_diagnostics());
            d.after_step(now, &injector)?;
        } else if let Some(det) = detection {
            // What the controller said this step (its logs are not read
            // here: dropped, as on a graph nobody subscribed to /rosout).
            drop(controller.take_logs());
            note_detections(
                det,
                controller.take_diagnostics(),
                &mut seen_below,
                &mut detections,
            );
        }
        for (slot, (_, _, fs)) in first_applied.iter_mut().zip(&axes) {
            if slot.is_none() {
                *slot = match injector.raw_channel(&fs.channel) {
                    Some(r) => r.first_applied(),
                    None => injector
                        .channel(&fs.channel)
                        .and_then(|c| c.first_applied()),
                }
                .map(|t| t.as_secs_f64());
            }
        }
        if let Some(t) = truth {
            let s = PoseSample::from_odometry(t);
            let (ox, oy) = controller
                .odom_pose()
                .map(|p| (p[0], p[1]))
                .unwrap_or((f64::NAN, f64::NAN));
            let (ex, ey) = controller
                .map_pose()
                .map(|p| (p[0], p[1]))
                .unwrap_or((f64::NAN, f64::NAN));
            trace.push(&TraceRow {
                odom_x_m: ox,
                odom_y_m: oy,
                est_x_m: ex,
                est_y_m: ey,
                gnss_x_m: last_gnss.0,
                gnss_y_m: last_gnss.1,
                ..TraceRow::truth(s.t_s, s.x_m, s.y_m, s.yaw_rad)
            });
            poses.push(s);
        }
    }

    let (self_report, self_report_at_s) = match controller.self_report() {
        Some((r, t)) => (r, Some(t.as_secs_f64())),
        None => (SelfReport::None, None),
    };
    // The campaign's one entry from a run's evidence to its verdict.
    let evidence = RunEvidence { poses, self_report };
    let verdict = evidence.verdict(world)?;
    let poses = evidence.poses;
    let isolation = if scenario.file.isolation_check {
        Some(IsolationRecord {
            passed: isolation_check(world, &poses, self_report)?.passed,
        })
    } else {
        None
    };
    let last = poses.last().copied();
    let final_goal_distance_m = last
        .map(|p| (p.x_m - world.goal.center_m[0]).hypot(p.y_m - world.goal.center_m[1]))
        .unwrap_or(f64::NAN);

    let axis_names: Vec<String> = axes.iter().map(|(a, _, _)| a.name.clone()).collect();
    let axis_at_s: Vec<f64> = axes.iter().map(|(a, _, _)| a.at_s).collect();
    let mut fault_records = grid_fault_records(axes, first_applied, &injector);
    if let Some(d) = &driver {
        fault_records.extend(d.fault_records(&injector));
    }

    let detection = detection.map(|det| detection_record(det, &fault_records, &detections));

    let contacts = contact_records(&plant);

    let grid_tl = grid_timeline(&axis_names, &axis_at_s, &requested, &fault_records);
    let manifest = Manifest {
        schema: super::manifest::MANIFEST_SCHEMA.into(),
        run_id: spec.run_id.clone(),
        kind: spec.kind,
        harness_only: spec.kind == RunKind::Canary,
        scenario_name: scenario.file.name.clone(),
        scenario_hash: scenario.hash.clone(),
        seed: spec.seed,
        provenance: provenance.clone(),
        cell: spec.cell(),
        faults: fault_records,
        self_report,
        self_report_at_s,
        judgement: match driver {
            Some(d) => d.finish(plant.now(), baseline_class.as_ref()),
            None => RunJudgement {
                timeline: grid_tl,
                ..RunJudgement::from_invariants(&verdict)
            },
        },
        verdict,
        contacts,
        final_goal_distance_m,
        isolation,
        trace_file: trace_file(&spec.run_id),
        trace_sha256: String::new(),
        provenance_sha256: None,
        sim_time_s: plant.now().as_secs_f64(),
        wall_time_s: wall.elapsed().as_secs_f64(),
        graph: None,
        detection,
    };
    let provenance_csv = record_provenance.then(|| provenance_csv(&mut injector));
    Ok(RunOutput {
        manifest,
        trace_csv: trace.finish(),
        provenance_csv,
    })
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
fn grid_faults<'s>(
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
