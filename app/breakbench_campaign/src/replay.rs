//! Replay (REQ-REC-REPLAY, issue 26): a recording's raw sensor streams and
//! commands through the fault stages of a run, on the recorded clock.
//!
//! `breakbench replay IN.mcap --scenario S.yaml [--run-id ID] [--seed N]
//! --out OUT.mcap` reads the streams as they left the plant (`/scan_raw`,
//! `/odom_raw`, ..., and the commanded `/cmd_vel_nav`) and the ground truth
//! from IN, sets the faults of run ID of scenario S (by default the run IN
//! recorded, from its `breakbench_run` metadata) with that run's seed (or
//! `--seed`), and steps the channels exactly as the in-process run does:
//! one step every `step_s` of the robot file from 0 to the world's mission
//! timeout, each channel relaying the message recorded at that sim time
//! (none if none), the commands through the actuator channel, the schedule
//! applied when due. OUT is a `full` recording of the same channels
//! (REQ-REC-MCAP), with what the injector delivered, its status on change
//! and the truth copied, and a `breakbench_replay` metadata record.
//!
//! Two properties, both tested: the same input, scenario, run and seed
//! give the same output bytes; and replaying an in-process `full`
//! recording with its own run's faults and seed reproduces its delivered
//! streams and its injector status, message for message and byte for byte
//! (the fault streams are seeded per channel from the run seed,
//! REQ-SEED-TREE, and nothing in the channels depends on the controller).
//!
//! What it does not do: a resilience test's faults set by a trigger on the
//! robot's state (they need the closed loop), and a controller's reaction:
//! the commands are those recorded. A recording kept with `--record
//! events` lacks the messages outside its windows, so its replay differs.

use std::collections::BTreeMap;
use std::time::Duration;

use breakbench_records::{read_recording, recording_topics, RecordedMessage};
use kraken_faults::{channel_rng, Channel, Injector, MsgKind, SensorMsg};
use kraken_interfaces::ros::{Imu, LaserScan, NavSatFix, Odometry, Twist};

use crate::plan::plan_file;
use crate::run::recorder::{RecordMode, RunRecorder, COMMANDED_TOPIC, SENSOR_TOPICS, TRUTH_TOPIC};
use crate::run::{fault_err, grid_faults, RunSpec};
use crate::scenario::{actuator_channel, Scenario, ACTUATOR_CHANNELS};
use crate::CampaignError;

fn replay_err(m: impl std::fmt::Display) -> CampaignError {
    CampaignError::Recording(format!("replay: {m}"))
}

/// The run of `scenario` to replay: `run_id`, or the one the recording's
/// `breakbench_run` metadata names; its seed replaced by `seed` if given.
///
/// # Errors
/// [`CampaignError::Recording`]: no run id, none of that id in the plan, or
/// a resilience test's fault run (unsupported: its triggers need the
/// closed loop).
pub fn replay_spec(
    scenario: &Scenario,
    input: &[u8],
    run_id: Option<&str>,
    seed: Option<u64>,
) -> Result<RunSpec, CampaignError> {
    let recorded;
    let id = match run_id {
        Some(id) => id,
        None => {
            let c = read_recording(input).map_err(replay_err)?;
            recorded = c
                .metadata
                .get("breakbench_run")
                .and_then(|m| m.get("run_id"))
                .cloned()
                .ok_or_else(|| {
                    replay_err("the recording has no breakbench_run run_id: give --run-id")
                })?;
            &recorded
        }
    };
    let mut spec = plan_file(&scenario.file)
        .into_iter()
        .find(|s| s.run_id == id)
        .ok_or_else(|| {
            replay_err(format!(
                "no run '{id}' in the plan of {}",
                scenario.path.display()
            ))
        })?;
    if spec.kind == crate::manifest::RunKind::Test {
        return Err(replay_err(format!(
            "run '{id}' is a resilience test's fault run: its faults are set by triggers on the robot's state, which a replay does not have (unsupported)"
        )));
    }
    if let Some(s) = seed {
        spec.seed = s;
    }
    Ok(spec)
}

/// Decodes a recorded sensor message of `kind`.
fn decode(kind: MsgKind, m: &RecordedMessage) -> Result<SensorMsg, CampaignError> {
    let ty = kind.ros_type();
    let e = |e: breakbench_msgs::MsgError| {
        replay_err(format!("{} at {} ns: {e}", m.topic, m.log_time_ns))
    };
    Ok(match kind {
        MsgKind::LaserScan => {
            SensorMsg::LaserScan(breakbench_msgs::decode_serde::<LaserScan>(ty, &m.cdr).map_err(e)?)
        }
        MsgKind::Odometry => {
            SensorMsg::Odometry(breakbench_msgs::decode_serde::<Odometry>(ty, &m.cdr).map_err(e)?)
        }
        MsgKind::NavSatFix => {
            SensorMsg::NavSatFix(breakbench_msgs::decode_serde::<NavSatFix>(ty, &m.cdr).map_err(e)?)
        }
        MsgKind::Imu => {
            SensorMsg::Imu(breakbench_msgs::decode_serde::<Imu>(ty, &m.cdr).map_err(e)?)
        }
    })
}

/// The recorded messages of each topic, in log-time order.
fn by_topic(messages: Vec<RecordedMessage>) -> BTreeMap<String, Vec<RecordedMessage>> {
    let mut out: BTreeMap<String, Vec<RecordedMessage>> = BTreeMap::new();
    for m in messages {
        out.entry(m.topic.clone()).or_default().push(m);
    }
    out
}

/// The sensor channels the recording carries, in its channel order (the
/// order the run relayed them): `(name, kind)`.
fn recorded_inputs(input: &[u8]) -> Result<Vec<(&'static str, MsgKind)>, CampaignError> {
    let mut out = Vec::new();
    for topic in recording_topics(input).map_err(replay_err)? {
        if let Some(t) = SENSOR_TOPICS.iter().find(|t| t.1 == topic) {
            let kind = breakbench_sim_bridge::plant::sensor_kind(t.0)
                .ok_or_else(|| replay_err(format!("{}: no such plant sensor", t.0)))?;
            out.push((t.0, kind));
        }
    }
    if out.is_empty() {
        return Err(replay_err(
            "the recording has no raw sensor topic (/scan_raw, /odom_raw, ...)",
        ));
    }
    Ok(out)
}

/// Replays recording `input` through the faults of run `spec` of
/// `scenario` (see the module docs) and returns the output recording.
///
/// # Errors
/// [`CampaignError::Recording`] for an unreadable input or a message that
/// does not decode; the fault set-up's errors.
pub fn replay(scenario: &Scenario, spec: &RunSpec, input: &[u8]) -> Result<Vec<u8>, CampaignError> {
    let inputs = recorded_inputs(input)?;
    let mut topics = by_topic(read_recording(input).map_err(replay_err)?.messages);
    let take = |topics: &mut BTreeMap<String, Vec<RecordedMessage>>, t: &str| {
        std::collections::VecDeque::from(topics.remove(t).unwrap_or_default())
    };
    let mut raw: Vec<_> = inputs
        .iter()
        .map(|(n, _)| {
            take(
                &mut topics,
                SENSOR_TOPICS.iter().find(|t| t.0 == *n).map_or("", |t| t.1),
            )
        })
        .collect();
    let mut commands = take(&mut topics, COMMANDED_TOPIC);
    let mut truth = take(&mut topics, TRUTH_TOPIC);
    let mut injector = Injector::new(inputs.iter().map(|(n, k)| Channel::new(*n, *k)).collect())
        .with_raw_channel(actuator_channel(0));
    let mut rngs: Vec<_> = inputs
        .iter()
        .map(|(n, _)| channel_rng(spec.seed, n))
        .collect();
    let mut cmd_rng = channel_rng(spec.seed, ACTUATOR_CHANNELS[0].0);
    let (_, mut schedule) = grid_faults(scenario, spec, &mut injector)?;
    let sched_err = |e| fault_err(scenario, e);
    schedule
        .apply_due(&mut injector, Duration::ZERO)
        .map_err(sched_err)?;
    let mut rec = RunRecorder::new(&inputs, RecordMode::Full)?;
    let path = scenario.path.display().to_string();
    let step = Duration::from_nanos(scenario.plant.timing(&path).map_err(replay_err)?.step_ns);
    let end = Duration::from_secs_f64(scenario.world.mission_timeout_s);
    let due = |q: &mut std::collections::VecDeque<RecordedMessage>, now: Duration| {
        q.front()
            .filter(|m| m.log_time_ns == now.as_nanos() as u64)
            .is_some()
            .then(|| q.pop_front())
            .flatten()
    };
    let mut now = Duration::ZERO;
    while now < end {
        now += step;
        if schedule.next_due().is_some_and(|t| t <= now) {
            schedule.apply_due(&mut injector, now).map_err(sched_err)?;
        }
        for (i, ch) in injector.channels_mut().iter_mut().enumerate() {
            let (name, kind) = inputs[i];
            let msg = due(&mut raw[i], now)
                .map(|m| decode(kind, &m))
                .transpose()?;
            rec.next_channel();
            if let Some(m) = &msg {
                rec.sensor(name, false, now, m)?;
            }
            let mut failed = None;
            ch.relay(msg.as_ref(), now, &mut rngs[i], |m| {
                if let Err(e) = rec.sensor(name, true, now, m) {
                    failed.get_or_insert(e);
                }
            });
            failed.map_or(Ok(()), Err)?;
        }
        let actuator = injector
            .raw_channel_mut(ACTUATOR_CHANNELS[0].0)
            .expect("added above");
        if let Some(m) = due(&mut commands, now) {
            let t: Twist = breakbench_msgs::decode_serde("geometry_msgs/msg/Twist", &m.cdr)
                .map_err(replay_err)?;
            actuator
                .push_msg(&t, now, &mut cmd_rng)
                .map_err(|e| fault_err(scenario, e))?;
            rec.twist(false, now, &t)?;
        }
        for t in actuator
            .poll_msgs::<Twist>(now)
            .map_err(|e| fault_err(scenario, e))?
        {
            rec.twist(true, now, &t)?;
        }
        rec.status(&injector, now)?;
        if let Some(m) = due(&mut truth, now) {
            let o: Odometry = breakbench_msgs::decode_serde("nav_msgs/msg/Odometry", &m.cdr)
                .map_err(replay_err)?;
            rec.truth(now, &o)?;
        }
    }
    let meta: BTreeMap<String, String> = [
        ("replay_of", spec.run_id.clone()),
        ("seed", spec.seed.to_string()),
        ("scenario_hash", scenario.hash.clone()),
        ("input_sha256", breakbench_records::sha256_hex(input)),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let file = serde_json::to_vec(&scenario.file).map_err(replay_err)?;
    rec.finish(
        &[],
        scenario.file.recording_window(),
        end.as_nanos() as u64,
        ("breakbench_replay", meta),
        &file,
    )
}
