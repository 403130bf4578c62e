//! The in-process run loop's state and its step: plant → sensor channels →
//! controller → actuator channel → plant, on one sim clock, with the
//! resilience test's driver or the study's detection watching, and the
//! ground-truth trace written (REQ-STUDY-TRACES).

use std::time::{Duration, Instant};

use breakbench_navigator::controller::{Controller, OpenLoop};
use breakbench_oracle::expect::{ClassifiedVerdict, RunJudgement};
use breakbench_oracle::{isolation_check, PoseSample, RunEvidence};
use breakbench_sim_bridge::plant::sensor_kind;
use breakbench_sim_bridge::{Plant, PlantOutputs};
use breakbench_world::geodesy::LocalEnu;
use kraken_faults::{channel_rng, Channel, FaultRng, FaultSchedule, Injector, MsgKind, SensorMsg};
use kraken_interfaces::ros::{NavSatStatus, Odometry, Twist, Vector3};
use kraken_interfaces::SelfReport;

use super::recorder::{RecordMode, RunRecorder};
use super::{
    contact_records, controller_under_test, detection_record, fault_err, grid_fault_records,
    grid_faults, grid_timeline, note_detections, note_requested, provenance_csv, test_driver,
    GridFault, RunOutput, RunRecords, RunSpec,
};
use crate::manifest::{IsolationRecord, Manifest, Provenance, RunKind};
use crate::resilience_run::TestDriver;
use crate::scenario::{actuator_channel, Detection, Scenario, ACTUATOR_CHANNELS};
use crate::trace::{TraceRow, TraceWriter};
use crate::CampaignError;

/// One in-process run between its set-up and its manifest: everything the
/// loop carries from step to step.
pub(super) struct RunLoop<'s> {
    scenario: &'s Scenario,
    spec: &'s RunSpec,
    controller: Box<dyn Controller>,
    /// The controller's inputs in its delivery order, each of the type the
    /// plant declares for it: one sensor channel each, same index.
    inputs: Vec<(&'static str, MsgKind)>,
    /// The resilience test's driver (test and baseline runs).
    driver: Option<TestDriver>,
    plant: Plant,
    injector: Injector,
    /// One fault stream per sensor channel, from the run seed and its name.
    rngs: Vec<FaultRng>,
    /// The actuator channel's fault stream.
    cmd_rng: FaultRng,
    /// A grid run's faults (one per axis) and their schedule.
    axes: Vec<GridFault<'s>>,
    schedule: FaultSchedule,
    /// The study's detection, watched on grid and nominal runs.
    detection: Option<&'s Detection>,
    /// Rise times, s, of the detection's status to its level.
    detections: Vec<f64>,
    /// The status was seen below the detection level: only a rise from
    /// there counts (the estimator's start-up STALE is not a detection).
    seen_below: bool,
    /// When each axis' fault first touched a message, s (read every step:
    /// the channel forgets it once a timed fault is cleared).
    first_applied: Vec<Option<f64>>,
    /// When the schedule set each axis' fault, s.
    requested: Vec<Option<f64>>,
    /// Ground truth at its rate (the oracle's evidence).
    poses: Vec<PoseSample>,
    /// The control period and the next tick.
    period: Duration,
    next_control: Duration,
    trace: TraceWriter,
    /// The world's geodetic datum, for the trace's GNSS columns.
    enu: Option<LocalEnu>,
    /// The last fix the controller was given, world frame, m.
    last_gnss: (f64, f64),
    /// The plant's outputs, refilled in place every step.
    out: PlantOutputs,
    truth_msg: Odometry,
    /// The run's MCAP recording, when asked for.
    rec: Option<RunRecorder>,
}

impl<'s> RunLoop<'s> {
    /// The run of `spec` set up at t = 0: controller (the canary's open
    /// loop, or the navigator variant's controller under test), plant with
    /// the controller's sensors, one channel per input and the actuator
    /// channel (REQ-FAULT-ACTUATOR), the grid faults scheduled and those due
    /// at 0 set.
    ///
    /// # Errors
    /// [`CampaignError::Wiring`] for an input the plant has not of that
    /// type; the set-up errors of the controller, the test driver, the
    /// plant and the faults.
    pub(super) fn new(
        scenario: &'s Scenario,
        spec: &'s RunSpec,
        records: RunRecords,
    ) -> Result<Self, CampaignError> {
        let world = &scenario.world;
        let controller: Box<dyn Controller> = match &scenario.file.canary {
            Some(c) if spec.kind == RunKind::Canary => {
                Box::new(OpenLoop::new(c.linear_m_s, c.duration_s))
            }
            _ => controller_under_test(scenario.navigator_of(spec), world)?,
        };
        let inputs: Vec<(&'static str, MsgKind)> = controller.inputs().to_vec();
        let driver = test_driver(scenario, spec, controller.as_ref())?;
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
        let plant = Plant::new(world, &scenario.plant, spec.seed, &wired)?;
        let mut injector =
            Injector::new(inputs.iter().map(|(n, k)| Channel::new(*n, *k)).collect())
                .with_raw_channel(actuator_channel(0));
        if records.provenance {
            for c in injector.channels_mut() {
                c.record_provenance(true);
            }
            for c in injector.raw_channels_mut() {
                c.record_provenance(true);
            }
        }
        let rngs: Vec<FaultRng> = injector
            .channels()
            .iter()
            .map(|c| channel_rng(spec.seed, c.name()))
            .collect();
        let cmd_rng = channel_rng(spec.seed, ACTUATOR_CHANNELS[0].0);
        let (axes, schedule) = grid_faults(scenario, spec, &mut injector)?;
        let detection = scenario
            .file
            .detection
            .as_ref()
            .filter(|_| matches!(spec.kind, RunKind::Grid | RunKind::Nominal));
        let n = axes.len();
        let rec = match records.mcap {
            RecordMode::None => None,
            mode => Some(RunRecorder::new(&inputs, mode)?),
        };
        let mut r = RunLoop {
            scenario,
            spec,
            controller,
            inputs,
            driver,
            plant,
            injector,
            rngs,
            cmd_rng,
            axes,
            schedule,
            detection,
            detections: Vec::new(),
            seen_below: false,
            first_applied: vec![None; n],
            requested: vec![None; n],
            poses: Vec::new(),
            period: scenario.navigator_of(spec).control_period(),
            next_control: Duration::ZERO,
            trace: TraceWriter::new(),
            enu: world.datum.map(LocalEnu::new),
            last_gnss: (f64::NAN, f64::NAN),
            out: PlantOutputs::default(),
            truth_msg: Odometry::default(),
            rec,
        };
        r.apply_schedule(Duration::ZERO)?;
        Ok(r)
    }

    /// Runs to the world's mission timeout of sim time, whatever the
    /// controller does, so every invariant is judged over the same window.
    ///
    /// # Errors
    /// A fault channel's error (a bug: the scenario was validated on load).
    pub(super) fn run_to_end(&mut self) -> Result<(), CampaignError> {
        let end = Duration::from_secs_f64(self.scenario.world.mission_timeout_s);
        while self.plant.now() < end {
            self.step()?;
        }
        Ok(())
    }

    /// Sets the scheduled faults due at `now` and notes when each axis' fault
    /// was requested.
    fn apply_schedule(&mut self, now: Duration) -> Result<(), CampaignError> {
        self.schedule
            .apply_due(&mut self.injector, now)
            .map_err(|e| CampaignError::Fault {
                path: self.scenario.path.display().to_string(),
                field: "axes".into(),
                error: Box::new(e),
            })?;
        note_requested(&mut self.requested, &self.axes, now);
        Ok(())
    }

    /// One plant step: the scheduled faults, the sensors through their
    /// channels to the controller, its command through the actuator channel
    /// to the plant, what the test or the detection watches, the trace.
    fn step(&mut self) -> Result<(), CampaignError> {
        let truth_due = self
            .plant
            .step_into(&mut self.out.sensors, &mut self.truth_msg);
        let now = self.plant.now();
        if self.schedule.next_due().is_some_and(|t| t <= now) {
            self.apply_schedule(now)?;
        }
        if let Some(d) = self.driver.as_mut() {
            if truth_due {
                d.on_truth(&self.truth_msg);
            }
            d.before_relay(now, &mut self.injector)?;
        }
        self.relay_sensors(now)?;
        self.actuate(now)?;
        self.watch(now)?;
        self.note_first_applied();
        if let Some(r) = self.rec.as_mut() {
            r.status(&self.injector, now)?;
        }
        if truth_due {
            self.record_truth();
            if let Some(r) = self.rec.as_mut() {
                r.truth(now, &self.truth_msg)?;
            }
        }
        Ok(())
    }

    /// Each channel in the controller's order: this step's message in, what
    /// is due out to the controller (a healthy channel passes it straight
    /// through); both recorded when the run records.
    ///
    /// # Errors
    /// [`CampaignError::Recording`].
    fn relay_sensors(&mut self, now: Duration) -> Result<(), CampaignError> {
        let RunLoop {
            controller,
            inputs,
            driver,
            injector,
            rngs,
            enu,
            last_gnss,
            out,
            rec,
            ..
        } = self;
        let mut failed = None;
        for (i, ch) in injector.channels_mut().iter_mut().enumerate() {
            let name = inputs[i].0;
            let input = out.get(name);
            if let Some(r) = rec.as_mut() {
                r.next_channel();
                if let Some(m) = input {
                    r.sensor(name, false, now, m)?;
                }
            }
            // Borrowed: a healthy channel passes the plant's message on
            // without moving its 752 bytes (`Channel::relay`).
            ch.relay(input, now, &mut rngs[i], |m| {
                if let Some(Err(e)) = rec.as_mut().map(|r| r.sensor(name, true, now, m)) {
                    failed.get_or_insert(e);
                }
                if let Some(d) = driver.as_mut() {
                    d.on_delivered(now, m);
                }
                if let (SensorMsg::NavSatFix(f), Some(enu)) = (m, enu.as_ref()) {
                    if f.status.status >= NavSatStatus::STATUS_FIX {
                        let p = enu.from_geodetic(f.latitude, f.longitude, f.altitude);
                        *last_gnss = (p[0], p[1]);
                    }
                }
                controller.on_message(name, m, now)
            });
        }
        failed.map_or(Ok(()), Err)
    }

    /// The controller's command (at its control period) goes through the
    /// actuator channel as a geometry_msgs/Twist (CDR, as on the graph);
    /// what the channel releases is what the plant applies and what the
    /// oracle sees as cmd_vel. Nothing released: the plant keeps the last
    /// command, as Gazebo's DiffDrive does.
    fn actuate(&mut self, now: Duration) -> Result<(), CampaignError> {
        let scenario = self.scenario;
        let actuator = self
            .injector
            .raw_channel_mut(ACTUATOR_CHANNELS[0].0)
            .expect("added by RunLoop::new");
        if now >= self.next_control {
            self.next_control += self.period;
            let cmd = self.controller.tick(now);
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
                .push_msg(&twist, now, &mut self.cmd_rng)
                .map_err(|e| fault_err(scenario, e))?;
            if let Some(r) = self.rec.as_mut() {
                r.twist(false, now, &twist)?;
            }
        }
        for t in actuator
            .poll_msgs::<Twist>(now)
            .map_err(|e| fault_err(scenario, e))?
        {
            self.plant.set_cmd_vel(t.linear.x, t.angular.z);
            if let Some(d) = self.driver.as_mut() {
                d.on_cmd_vel(now, t.linear.x, t.angular.z);
            }
            if let Some(r) = self.rec.as_mut() {
                r.twist(true, now, &t)?;
            }
        }
        Ok(())
    }

    /// What the test's driver or the study's detection reads of this step:
    /// the controller's belief, its /rosout and /diagnostics output.
    fn watch(&mut self, now: Duration) -> Result<(), CampaignError> {
        // What the controller said this step: its /rosout and /diagnostics
        // output, through the same code as its node; recorded, and read by
        // the test's driver or the study's detection.
        let (logs, diagnostics) = (
            self.controller.take_logs(),
            self.controller.take_diagnostics(),
        );
        if let Some(r) = self.rec.as_mut() {
            r.controller(now, &logs, &diagnostics)?;
        }
        let controller = &mut self.controller;
        if let Some(d) = self.driver.as_mut() {
            // What the controller believes: its map-frame estimate, or its
            // odometry pose moved into the world frame.
            let world = &self.scenario.world;
            if let Some(p) = controller
                .map_pose()
                .or_else(|| controller.odom_pose().map(|p| world.odom_to_world(p)))
            {
                d.on_estimate(now, p);
            }
            d.on_controller(logs, diagnostics);
            d.after_step(now, &self.injector)?;
        } else if let Some(det) = self.detection {
            // (its logs are not read here)
            note_detections(det, diagnostics, &mut self.seen_below, &mut self.detections);
        }
        Ok(())
    }

    /// Notes when each axis' fault first touched a message.
    fn note_first_applied(&mut self) {
        for (slot, (_, _, fs)) in self.first_applied.iter_mut().zip(&self.axes) {
            if slot.is_none() {
                *slot = match self.injector.raw_channel(&fs.channel) {
                    Some(r) => r.first_applied(),
                    None => self
                        .injector
                        .channel(&fs.channel)
                        .and_then(|c| c.first_applied()),
                }
                .map(|t| t.as_secs_f64());
            }
        }
    }

    /// This step's ground truth: one pose for the oracle, one trace row
    /// with what the controller believed and the last GNSS fix.
    fn record_truth(&mut self) {
        let s = PoseSample::from_odometry(&self.truth_msg);
        let (ox, oy) = self
            .controller
            .odom_pose()
            .map(|p| (p[0], p[1]))
            .unwrap_or((f64::NAN, f64::NAN));
        let (ex, ey) = self
            .controller
            .map_pose()
            .map(|p| (p[0], p[1]))
            .unwrap_or((f64::NAN, f64::NAN));
        self.trace.push(&TraceRow {
            odom_x_m: ox,
            odom_y_m: oy,
            est_x_m: ex,
            est_y_m: ey,
            gnss_x_m: self.last_gnss.0,
            gnss_y_m: self.last_gnss.1,
            ..TraceRow::truth(s.t_s, s.x_m, s.y_m, s.yaw_rad)
        });
        self.poses.push(s);
    }

    /// The run's output: the oracle's verdict from the ground truth alone,
    /// the isolation check, the fault, detection and contact records, the
    /// judgement (the test driver's, with its baseline's class, or the
    /// invariants' with the grid timeline), and the provenance CSV and the
    /// MCAP recording when recorded.
    ///
    /// # Errors
    /// The oracle's errors on the evidence; [`CampaignError::Recording`].
    pub(super) fn finish(
        self,
        provenance: &Provenance,
        baseline_class: Option<&ClassifiedVerdict>,
        wall: Instant,
        records: RunRecords,
    ) -> Result<RunOutput, CampaignError> {
        let RunLoop {
            scenario,
            spec,
            controller,
            driver,
            plant,
            mut injector,
            axes,
            detection,
            detections,
            first_applied,
            requested,
            poses,
            trace,
            rec,
            ..
        } = self;
        let world = &scenario.world;
        let (self_report, self_report_at_s) = match controller.self_report() {
            Some((r, t)) => (r, Some(t.as_secs_f64())),
            None => (SelfReport::None, None),
        };
        // The campaign's one entry from a run's evidence to its verdict.
        let evidence = RunEvidence { poses, self_report };
        let (verdict, margins) = evidence.verdict_with_margins(world)?;
        let poses = evidence.poses;
        let isolation = if scenario.file.isolation_check {
            Some(IsolationRecord {
                passed: isolation_check(world, &poses, self_report)?.passed,
            })
        } else {
            None
        };
        let final_goal_distance_m = poses
            .last()
            .map(|p| (p.x_m - world.goal.center_m[0]).hypot(p.y_m - world.goal.center_m[1]))
            .unwrap_or(f64::NAN);
        let axis_names: Vec<String> = axes.iter().map(|(a, _, _)| a.name.clone()).collect();
        let axis_at_s: Vec<f64> = axes.iter().map(|(a, _, _)| a.at_s).collect();
        let mut fault_records = grid_fault_records(axes, first_applied, &injector);
        if let Some(d) = &driver {
            fault_records.extend(d.fault_records(&injector));
        }
        let detection = detection.map(|det| detection_record(det, &fault_records, &detections));
        let grid_tl = grid_timeline(&axis_names, &axis_at_s, &requested, &fault_records);
        let judgement = match driver {
            Some(d) => d.finish(plant.now(), baseline_class),
            None => RunJudgement {
                timeline: grid_tl,
                ..RunJudgement::from_invariants(&verdict)
            },
        };
        let manifest = Manifest {
            faults: fault_records,
            self_report,
            self_report_at_s,
            contacts: contact_records(&plant),
            final_goal_distance_m,
            margins: margins.to_map(),
            isolation,
            sim_time_s: plant.now().as_secs_f64(),
            wall_time_s: wall.elapsed().as_secs_f64(),
            detection,
            ..spec.manifest(scenario, provenance, judgement, verdict)
        };
        let provenance_csv = records.provenance.then(|| provenance_csv(&mut injector));
        let mut manifest = manifest;
        if rec.is_some() {
            manifest.recording_mode = Some(records.mcap.name().to_string());
        }
        let recording = match rec {
            Some(r) => Some(r.finish(
                &super::events::run_events(&manifest),
                scenario.file.recording_window(),
                super::events::ns_of(manifest.sim_time_s),
                ("breakbench_run", recording_metadata(&manifest)),
                &resolved_scenario(scenario, spec),
            )?),
            None => None,
        };
        Ok(RunOutput {
            manifest,
            trace_csv: trace.finish(),
            provenance_csv,
            recording,
        })
    }
}

/// The resolved scenario of the run `spec`, the recording's attachment
/// `scenario.json` (compact JSON): the scenario file as loaded, the world,
/// robot and navigator (this run's variant) it names, and the run (id,
/// seed, kind, cell, test, phase). The manifest is not attached: it holds
/// the recording's sha256, so it can only be written after the recording
/// (it sits beside it, `manifests/<run_id>.json`).
fn resolved_scenario(scenario: &Scenario, spec: &RunSpec) -> Vec<u8> {
    serde_json::to_vec(&serde_json::json!({
        "scenario_hash": scenario.hash,
        "scenario": scenario.file,
        "world": scenario.world,
        "robot": scenario.plant,
        "navigator": scenario.navigator_of(spec),
        "run": {
            "run_id": spec.run_id,
            "seed": spec.seed,
            "kind": spec.kind,
            "cell": spec.faults,
            "test": spec.test,
            "phase_s": spec.phase_s,
        },
    }))
    .unwrap_or_default()
}

/// The recording's `breakbench_run` metadata: run id, seed, scenario hash,
/// git commit and dirty flag, verdict class (REQ-REC-MCAP).
pub(crate) fn recording_metadata(m: &Manifest) -> std::collections::BTreeMap<String, String> {
    let v = serde_json::to_value(m).unwrap_or_default();
    let text = |x: &serde_json::Value| match x {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    [
        ("run_id", &v["run_id"]),
        ("seed", &v["seed"]),
        ("scenario_hash", &v["scenario_hash"]),
        ("git_commit", &v["provenance"]["git_commit"]),
        ("git_dirty", &v["provenance"]["git_dirty"]),
        ("verdict_class", &v["verdict_class"]["class"]),
    ]
    .into_iter()
    .map(|(k, x)| (k.to_string(), text(x)))
    .collect()
}
