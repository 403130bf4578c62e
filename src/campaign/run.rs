//! One run, in-process: plant → fault stages → navigator on one sim clock,
//! the oracle fed the ground-truth stream only.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use breakbench_oracle::{isolation_check, PoseSample, RunEvidence};
use breakbench_sim_bridge::Plant;
use breakbench_world::World;
use kraken_faults::{Channel, FaultRng, Injector, SensorMsg};
use kraken_interfaces::FaultSpec;
use kraken_interfaces::SelfReport;
use rand::SeedableRng;

use super::manifest::{ContactRecord, FaultRecord, IsolationRecord, Manifest, RunKind};
use super::scenario::{fault_spec, Scenario, HARNESS_CHANNELS};
use super::trace::{trace_file, TraceRow, TraceWriter};
use super::CampaignError;
use breakbench_navigator::{CmdVel, Navigator};

/// ChaCha stream of the fault stages' generator (the plant uses its own streams).
const FAULT_RNG_STREAM: u64 = 0xFA17;

/// What to run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunSpec {
    pub run_id: String,
    pub kind: RunKind,
    pub seed: u64,
    /// Axis name → value (grid); all axes at 0 (nominal); empty (canary).
    pub cell: BTreeMap<String, f64>,
}

/// A finished run: its manifest (without wall time and trace hash filled in
/// by the writer) and its ground-truth trace as CSV.
pub struct RunOutput {
    pub manifest: Manifest,
    pub trace_csv: String,
}

/// The goal centre in the robot's `odom` frame (origin and heading of the start pose).
pub fn goal_in_odom(world: &World) -> [f64; 2] {
    let s = world.start;
    let (dx, dy) = (
        world.goal.center_m[0] - s.x_m,
        world.goal.center_m[1] - s.y_m,
    );
    let (c, si) = (s.yaw_rad.cos(), s.yaw_rad.sin());
    [c * dx + si * dy, -si * dx + c * dy]
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
    let wall = Instant::now();
    let world = &scenario.world;
    let mut plant = Plant::new(world, &scenario.plant, spec.seed)?;
    let mut frng = FaultRng::seed_from_u64(spec.seed);
    frng.set_stream(FAULT_RNG_STREAM);
    let mut injector = Injector::new(
        HARNESS_CHANNELS
            .iter()
            .map(|(n, k)| Channel::new(*n, *k))
            .collect(),
    );

    let mut faults: Vec<(String, f64, FaultSpec)> = Vec::new();
    if spec.kind == RunKind::Grid {
        for axis in &scenario.file.axes {
            let v = spec.cell[&axis.name];
            let fs = fault_spec(axis, v).map_err(|message| CampaignError::Axis {
                axis: axis.name.clone(),
                message,
            })?;
            injector
                .set_fault(&fs, Duration::ZERO)
                .map_err(|e| CampaignError::Fault {
                    path: scenario.path.display().to_string(),
                    field: format!("axes.{}", axis.name),
                    error: Box::new(e),
                })?;
            faults.push((axis.name.clone(), v, fs));
        }
    }

    let canary = scenario
        .file
        .canary
        .clone()
        .filter(|_| spec.kind == RunKind::Canary);
    let mut nav = Navigator::new(scenario.navigator.clone(), goal_in_odom(world));
    let mut poses: Vec<PoseSample> = Vec::new();
    let end = Duration::from_secs_f64(world.mission_timeout_s);
    let period = scenario.navigator.control_period();
    let mut next_control = Duration::ZERO;
    let mut trace = TraceWriter::new();
    let mut nav_pose: Option<[f64; 3]> = None;

    while plant.now() < end {
        let out = plant.step();
        let now = plant.now();
        if let Some(s) = out.scan {
            injector
                .channel_mut("scan")?
                .push(SensorMsg::LaserScan(s), now, &mut frng);
        }
        if let Some(o) = out.odom {
            injector
                .channel_mut("odom")?
                .push(SensorMsg::Odometry(o), now, &mut frng);
        }
        for m in injector.channel_mut("odom")?.poll(now) {
            if let SensorMsg::Odometry(o) = m {
                nav.on_odom(&o);
                nav_pose = nav.pose();
            }
        }
        for m in injector.channel_mut("scan")?.poll(now) {
            if let SensorMsg::LaserScan(s) = m {
                nav.on_scan(&s);
            }
        }
        if now >= next_control {
            next_control += period;
            let cmd = match &canary {
                Some(c) if now.as_secs_f64() < c.duration_s => CmdVel {
                    linear_m_s: c.linear_m_s,
                    angular_rad_s: 0.0,
                },
                Some(_) => CmdVel::default(),
                None => nav.tick(now),
            };
            plant.set_cmd_vel(cmd.linear_m_s, cmd.angular_rad_s);
        }
        if let Some(t) = out.truth {
            let s = PoseSample::from_odometry(&t);
            let (ox, oy) = nav_pose
                .map(|p| (p[0], p[1]))
                .unwrap_or((f64::NAN, f64::NAN));
            trace.push(&TraceRow {
                t_s: s.t_s,
                true_x_m: s.x_m,
                true_y_m: s.y_m,
                true_yaw_rad: s.yaw_rad,
                odom_x_m: ox,
                odom_y_m: oy,
            });
            poses.push(s);
        }
    }

    let (self_report, self_report_at_s) = match nav.self_report() {
        _ if canary.is_some() => (SelfReport::None, None),
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

    let fault_records = faults
        .into_iter()
        .map(|(axis_name, v, fs)| {
            let ch = injector.channel(&fs.channel).expect("validated channel");
            let st = ch.stats();
            let (metric, delivered) = match fs.mode {
                FaultSpec::DELAY => ("mean_latency_s", st.mean_latency_s()),
                FaultSpec::SCALE => ("mean_ratio_x", st.mean_ratio_x()),
                _ => ("none", None),
            };
            let axis = scenario
                .file
                .axes
                .iter()
                .find(|a| a.name == axis_name)
                .expect("axis");
            FaultRecord {
                axis: axis_name,
                channel: fs.channel.clone(),
                mode: axis.mode.clone(),
                parameter: axis.parameter.clone(),
                requested: axis.offset + v,
                axis_value: v,
                delivered_metric: metric.into(),
                delivered,
                messages_in: st.messages_in,
                messages_out: st.messages_out,
                first_applied_s: ch.first_applied().map(|t| t.as_secs_f64()),
                cleared_s: ch.cleared().map(|t| t.as_secs_f64()),
            }
        })
        .collect();

    let contacts = plant
        .contacts()
        .iter()
        .map(|c| ContactRecord {
            t_s: c.t.as_secs_f64(),
            x_m: c.x_m,
            y_m: c.y_m,
            with: c.with.clone(),
        })
        .collect();

    let manifest = Manifest {
        schema: super::manifest::MANIFEST_SCHEMA.into(),
        run_id: spec.run_id.clone(),
        kind: spec.kind,
        harness_only: spec.kind == RunKind::Canary,
        scenario_name: scenario.file.name.clone(),
        scenario_hash: scenario.hash.clone(),
        seed: spec.seed,
        provenance: provenance.clone(),
        cell: spec.cell.clone(),
        faults: fault_records,
        self_report,
        self_report_at_s,
        verdict,
        contacts,
        final_goal_distance_m,
        isolation,
        trace_file: trace_file(&spec.run_id),
        trace_sha256: String::new(),
        sim_time_s: plant.now().as_secs_f64(),
        wall_time_s: wall.elapsed().as_secs_f64(),
    };
    Ok(RunOutput {
        manifest,
        trace_csv: trace.finish(),
    })
}
