//! `ekf_node`: the estimator ([`breakbench_estimator::Estimator`], the code
//! the in-process stack runs) as a ROS 2 node, named like
//! robot_localization's (`ekf_node` executable, `ekf_filter_node` node).
//!
//! Subscribes (BEST_EFFORT, sensor-data QoS) `odom` (nav_msgs/Odometry,
//! wheel odometry: its twist), `imu/data` (sensor_msgs/Imu: yaw rate) and
//! `gnss/fix` (sensor_msgs/NavSatFix, converted to ENU at the datum with
//! [`breakbench_world::geodesy::LocalEnu`]). After each input it publishes
//! `odometry/filtered` (nav_msgs/Odometry, pose in `map`, twist in
//! `base_link`, REP-105) and the `map → odom` transform on `/tf`, both
//! stamped at the filter time (no prediction ahead); the estimator's log
//! records on `/rosout` (WARN on a refusal, INFO on re-acceptance; the same
//! lines on stderr at their level); `/diagnostics` (one status per sensor)
//! at `diagnostics_rate_hz` on the node's clock and at once whenever the
//! estimator logged.
//!
//! Under `use_sim_time` the estimator starts at the first `/clock` reading,
//! and an input stamped ahead of the clock by at most
//! `time.future_tolerance_s` is held until the clock reaches its stamp
//! ([`breakbench_estimator::HeldInputs`]), so it is fused at its own instant
//! as in-process (or after `hold_max_s` of wall time with an unmoving
//! clock). On wall time the estimator starts when the node does.
//!
//! `~/reset` (kraken_interfaces/srv/ResetRun, REQ-GRAPH-RESET): the next run
//! of a graph kept running across runs; the estimator as at start-up, the
//! queued and held inputs dropped.
//!
//! Parameters and topics: `breakbench_estimator/README.md` ("ekf_node").
//! Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`, `RUST_LOG`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, ensure, Context, Result};
use breakbench_estimator::{EkfConfig, Estimator, HeldInputs, InitialState, Input, Pose2};
use breakbench_ros::ros2_client::qos::{Durability, History};
use breakbench_ros::ros2_client::RmwRequestId;
use breakbench_ros::{
    qos, Msg, NodeClock, ParamValue, ResetRunSrv, RosArgs, RosEnv, RosNode, Shutdown, SimClock,
};
use breakbench_world::geodesy::{GeodeticDatum, LocalEnu};
use breakbench_world::World;
use futures::stream::{select_all, LocalBoxStream, StreamExt};
use kraken_interfaces::ros::{
    Clock, DiagnosticArray, Header, Imu, Log, NavSatFix, Odometry, TFMessage, Time,
};
use kraken_interfaces::{ResetRunRequest, ResetRunResponse};

const NODE_NAME: &str = breakbench_estimator::LOGGER_NAME;
/// Input queue depth (IMU at 50 Hz and more; absorbs rustdds writer stalls).
const DEPTH: usize = 100;
/// rcl's `/rosout` history depth (`rcl_qos_profile_rosout_default`).
const ROSOUT_DEPTH: usize = 1000;

/// The node's own parameters; every other parameter must name an
/// [`EkfConfig`] field (dotted, e.g. `gnss.mahalanobis_gate`).
const NODE_PARAMS: [&str; 14] = [
    "use_sim_time",
    "ekf_file",
    "world_file",
    "datum_latitude_deg",
    "datum_longitude_deg",
    "datum_altitude_m",
    "initial_x_m",
    "initial_y_m",
    "initial_yaw_rad",
    "initial_v_m_s",
    "initial_yaw_rate_rad_s",
    "diagnostics_rate_hz",
    "publish_tf",
    "hold_max_s",
];

// Odometry and Imu are large and arrive at 20-50 Hz: moved once, not boxed.
#[allow(clippy::large_enum_variant)]
enum Event {
    Input(Input),
    Clock(Clock),
    /// `~/reset` (REQ-GRAPH-RESET).
    Reset(RmwRequestId, ResetRunRequest),
}

/// A ROS parameter value as the YAML value it overrides.
fn yaml_of(v: &ParamValue) -> serde_yaml_ng::Value {
    use serde_yaml_ng::Value as Y;
    match v {
        ParamValue::Bool(b) => Y::Bool(*b),
        ParamValue::Integer(i) => Y::Number((*i).into()),
        ParamValue::Double(d) => Y::Number((*d).into()),
        ParamValue::String(s) => Y::String(s.clone()),
        ParamValue::BoolArray(a) => Y::Sequence(a.iter().map(|b| Y::Bool(*b)).collect()),
        ParamValue::IntegerArray(a) => {
            Y::Sequence(a.iter().map(|i| Y::Number((*i).into())).collect())
        }
        ParamValue::DoubleArray(a) => {
            Y::Sequence(a.iter().map(|d| Y::Number((*d).into())).collect())
        }
        ParamValue::StringArray(a) => Y::Sequence(a.iter().map(|s| Y::String(s.clone())).collect()),
    }
}

/// The estimator's parameters: `ekf_file` (or [`EkfConfig::default`], the
/// values of `config/ekf.yaml`), then each dotted ROS parameter naming a
/// field of it. An unknown parameter, a whole section given as one value, a
/// wrong type or a value outside its range is an error naming the parameter.
fn ekf_config(args: &RosArgs) -> Result<(EkfConfig, String)> {
    let file = args.param_string("ekf_file", "")?;
    let (base, origin) = if file.is_empty() {
        (
            EkfConfig::default(),
            "the defaults of config/ekf.yaml".to_string(),
        )
    } else {
        let cfg = EkfConfig::load(file.as_ref())
            .with_context(|| format!("parameter 'ekf_file' = {file}"))?;
        (cfg, file)
    };
    let mut tree = serde_yaml_ng::to_value(&base).context("estimator parameters as YAML")?;
    let mut overridden = Vec::new();
    for (name, value) in &args.params {
        if NODE_PARAMS.contains(&name.as_str()) {
            continue;
        }
        let mut slot = &mut tree;
        for part in name.split('.') {
            slot = match slot {
                serde_yaml_ng::Value::Mapping(m) => m.get_mut(part),
                _ => None,
            }
            .ok_or_else(|| {
                anyhow!(
                    "unknown parameter '{name}': neither a parameter of {NODE_NAME} nor an estimator field (breakbench_estimator/README.md, Parameters)"
                )
            })?;
        }
        ensure!(
            !matches!(slot, serde_yaml_ng::Value::Mapping(_)),
            "parameter '{name}' is a section: set its fields ('{name}.<field>')"
        );
        *slot = yaml_of(value);
        overridden.push(name.clone());
    }
    if overridden.is_empty() {
        return Ok((base, origin));
    }
    let what = format!("<ROS parameters {overridden:?} applied over {origin}>");
    let text = serde_yaml_ng::to_string(&tree).context("estimator parameters as YAML")?;
    let cfg = EkfConfig::parse(&text, &what).map_err(|e| anyhow!("{e}"))?;
    Ok((cfg, what))
}

/// The datum of the `map` frame: the three `datum_*` parameters, else the
/// world file's `datum`, else none.
fn datum(args: &RosArgs, world: Option<&World>) -> Result<Option<GeodeticDatum>> {
    let names = [
        "datum_latitude_deg",
        "datum_longitude_deg",
        "datum_altitude_m",
    ];
    let given = names
        .iter()
        .filter(|n| args.params.contains_key(**n))
        .count();
    match given {
        0 => Ok(world.and_then(|w| w.datum)),
        3 => {
            let d = GeodeticDatum {
                latitude_deg: args.param_f64(names[0], 0.0)?,
                longitude_deg: args.param_f64(names[1], 0.0)?,
                altitude_m: args.param_f64(names[2], 0.0)?,
            };
            ensure!(
                (-90.0..=90.0).contains(&d.latitude_deg)
                    && (-180.0..=180.0).contains(&d.longitude_deg)
                    && d.altitude_m.is_finite(),
                "parameters datum_*: {d:?} is not a WGS 84 position (latitude in [-90, 90] deg, longitude in [-180, 180] deg, finite altitude)"
            );
            Ok(Some(d))
        }
        _ => bail!("parameters {names:?} go together (give all three or none)"),
    }
}

fn finite(args: &RosArgs, name: &str, default: f64) -> Result<f64> {
    let v = args.param_f64(name, default)?;
    ensure!(v.is_finite(), "parameter '{name}' must be finite, got {v}");
    Ok(v)
}

/// The initial state (without its stamp): the world start pose in `map`
/// when `world_file` is set, overridden by each `initial_*` parameter.
fn initial(args: &RosArgs, world: Option<&World>) -> Result<InitialState> {
    let s = world.map(|w| w.start);
    Ok(InitialState {
        stamp: Time::default(),
        map: Pose2 {
            x_m: finite(args, "initial_x_m", s.map_or(0.0, |p| p.x_m))?,
            y_m: finite(args, "initial_y_m", s.map_or(0.0, |p| p.y_m))?,
            yaw_rad: finite(args, "initial_yaw_rad", s.map_or(0.0, |p| p.yaw_rad))?,
        },
        odom: Pose2::default(),
        v_m_s: finite(args, "initial_v_m_s", 0.0)?,
        yaw_rate_rad_s: finite(args, "initial_yaw_rate_rad_s", 0.0)?,
    })
}

/// Writes an estimator log record to stderr at its level.
fn trace_log(l: &Log) {
    match l.level {
        Log::FATAL | Log::ERROR => tracing::error!(logger = %l.name, "{}", l.msg),
        Log::WARN => tracing::warn!(logger = %l.name, "{}", l.msg),
        Log::INFO => tracing::info!(logger = %l.name, "{}", l.msg),
        _ => tracing::debug!(logger = %l.name, "{}", l.msg),
    }
}

pub(crate) fn main() -> ExitCode {
    breakbench_ros::exit_on_help(
        "ekf_node",
        "the robot's EKF: fuses odom, imu/data and gnss/fix; publishes odometry/filtered, map->odom on /tf, /diagnostics and /rosout",
        "breakbench_estimator/README.md",
    );
    breakbench_ros::init_logging(breakbench_ros::NODE_LOG_FILTER);
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ekf_node: error: {}", breakbench_ros::error_chain(&*e));
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let (cfg, cfg_origin) = ekf_config(&args)?;
    let world_file = args.param_string("world_file", "")?;
    let world = if world_file.is_empty() {
        None
    } else {
        let p = PathBuf::from(&world_file);
        Some(World::load(&p).with_context(|| format!("parameter 'world_file' = {world_file}"))?)
    };
    let datum = datum(&args, world.as_ref())?;
    ensure!(
        datum.is_some() || !cfg.gnss.enabled,
        "GNSS is enabled but there is no datum for the map frame: set 'world_file' (a world with a datum) or datum_latitude_deg, datum_longitude_deg and datum_altitude_m, or gnss.enabled:=false"
    );
    let enu = datum.map(LocalEnu::new);
    let init = initial(&args, world.as_ref())?;
    let diag_hz = args.param_f64("diagnostics_rate_hz", 1.0)?;
    ensure!(
        diag_hz.is_finite() && diag_hz > 0.0,
        "parameter 'diagnostics_rate_hz' must be > 0, got {diag_hz}"
    );
    let diag_period_ns = (1e9 / diag_hz).round() as i64;
    let publish_tf = args.param_bool("publish_tf", true)?;
    let hold_max = args.param_f64("hold_max_s", 0.5)?;
    ensure!(
        hold_max.is_finite() && hold_max >= 0.0,
        "parameter 'hold_max_s' must be >= 0, got {hold_max}"
    );
    let hold_max = Duration::from_secs_f64(hold_max);
    let tolerance_ns = (cfg.time.future_tolerance_s * 1e9).round() as i64;
    // Checked once here, so that the first input cannot fail on it later.
    Estimator::new(cfg.clone(), init).context("estimator")?;

    let mut node = RosNode::new(env, args)?;
    let odom_sub = node.subscription::<Odometry>("odom", qos::subscribe(DEPTH))?;
    let imu_sub = node.subscription::<Imu>("imu/data", qos::subscribe(DEPTH))?;
    let fix_sub = node.subscription::<NavSatFix>("gnss/fix", qos::subscribe(DEPTH))?;
    let sim = match &node.clock {
        NodeClock::Sim(c) => Some(c.clone()),
        NodeClock::Wall => None,
    };
    let clock_sub = match sim {
        Some(_) => Some(node.subscription::<Clock>("/clock", qos::subscribe(DEPTH))?),
        None => None,
    };
    let deep = || qos::publish().history(History::KeepLast { depth: DEPTH });
    let filtered_pub = node.publisher::<Odometry>("odometry/filtered", deep())?;
    let tf_pub = node.publisher::<TFMessage>("/tf", deep())?;
    let diag_pub = node.publisher::<DiagnosticArray>("/diagnostics", qos::publish())?;
    let rosout_pub = node.publisher::<Log>(
        "/rosout",
        qos::publish()
            .durability(Durability::TransientLocal)
            .history(History::KeepLast {
                depth: ROSOUT_DEPTH,
            }),
    )?;
    let reset_srv = node.server::<ResetRunSrv>("~/reset")?;
    let _spinner = node.spawn_spinner()?;
    let clock = node.clock.clone();
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        parameters = %cfg_origin,
        datum = ?datum,
        initial_map_pose = ?init.map,
        sim_time = sim.is_some(),
        odom = %node.args.resolve("odom"),
        imu = %node.args.resolve("imu/data"),
        gnss = %node.args.resolve("gnss/fix"),
        filtered = %node.args.resolve("odometry/filtered"),
        "ready"
    );

    let mut streams: Vec<LocalBoxStream<'_, Event>> = vec![
        odom_sub
            .async_stream()
            .filter_map(|r| {
                std::future::ready(r.ok().map(|(m, _)| Event::Input(Input::WheelOdom(m))))
            })
            .boxed_local(),
        imu_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Input(Input::Imu(m)))))
            .boxed_local(),
        fix_sub
            .async_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Input(Input::Gnss(m)))))
            .boxed_local(),
    ];
    if let Some(c) = &clock_sub {
        streams.push(
            c.async_stream()
                .filter_map(|r| std::future::ready(r.ok().map(|(m, _)| Event::Clock(m))))
                .boxed_local(),
        );
    }
    streams.push(
        reset_srv
            .receive_request_stream()
            .filter_map(|r| std::future::ready(r.ok().map(|(id, Msg(req))| Event::Reset(id, req))))
            .boxed_local(),
    );
    let mut events = shutdown.until(select_all(streams));

    // On wall time the estimator starts now; on sim time at the first /clock.
    let mut est = match sim {
        None => Some(Estimator::new(
            cfg.clone(),
            InitialState {
                stamp: clock.stamp(),
                ..init
            },
        )?),
        Some(_) => None,
    };
    let mut held = HeldInputs::default();
    // Wall time at which the clock last moved (sim time: ends a hold).
    let mut clock_moved = Instant::now();
    let mut next_diag_ns: Option<i64> = None;
    let publish_log = |l: Log| {
        trace_log(&l);
        if let Err(e) = rosout_pub.publish(l) {
            tracing::warn!("/rosout: publish failed: {e:?}");
        }
    };

    smol::block_on(async {
        loop {
            let ev = {
                let next = events.next();
                futures::pin_mut!(next);
                let timer = smol::Timer::after(Duration::from_millis(50));
                match futures::future::select(next, Box::pin(timer)).await {
                    futures::future::Either::Left((Some(ev), _)) => Some(ev),
                    futures::future::Either::Left((None, _)) if shutdown.is_requested() => {
                        return Ok(())
                    }
                    futures::future::Either::Left((None, _)) => bail!("input streams ended"),
                    futures::future::Either::Right(_) => None,
                }
            };
            let now = clock.stamp();
            let mut due = Vec::new();
            match ev {
                Some(Event::Clock(c)) => {
                    if let Some(s) = &sim {
                        let before = s.now();
                        SimClock::update(s, &c);
                        if s.now() != before || est.is_none() {
                            clock_moved = Instant::now();
                        }
                    }
                }
                Some(Event::Input(i)) if sim.is_some() => held.push(i),
                Some(Event::Input(i)) => due.push(i),
                Some(Event::Reset(id, req)) => {
                    // The next run of a kept-running graph (REQ-GRAPH-RESET):
                    // the estimator as at start-up (at the start pose, at the
                    // next /clock reading under sim time); the inputs queued
                    // or held are the previous run's.
                    while let Ok(Some(_)) = odom_sub.take() {}
                    while let Ok(Some(_)) = imu_sub.take() {}
                    while let Ok(Some(_)) = fix_sub.take() {}
                    if let Some(c) = &clock_sub {
                        while let Ok(Some(_)) = c.take() {}
                    }
                    held = HeldInputs::default();
                    next_diag_ns = None;
                    clock_moved = Instant::now();
                    est = match &sim {
                        Some(s) => {
                            s.reset();
                            None
                        }
                        None => Some(Estimator::new(
                            cfg.clone(),
                            InitialState {
                                stamp: clock.stamp(),
                                ..init
                            },
                        )?),
                    };
                    tracing::info!(run_id = %req.run_id, "reset: a fresh estimator");
                    let resp = ResetRunResponse {
                        success: true,
                        message: format!("a fresh estimator for run {}", req.run_id),
                    };
                    if let Err(e) = reset_srv.send_response(id, Msg(resp)) {
                        tracing::warn!("~/reset: response not sent: {e:?}");
                    }
                    continue;
                }
                None => {}
            }
            let now = if sim.is_some() { clock.stamp() } else { now };
            if est.is_none() && sim.as_ref().is_some_and(|s| s.has_time()) {
                est = Some(Estimator::new(
                    cfg.clone(),
                    InitialState { stamp: now, ..init },
                )?);
            }
            let Some(e) = est.as_mut() else { continue };
            if sim.is_some() {
                due = held.take_due(now.as_nanos(), tolerance_ns);
                if !held.is_empty() && clock_moved.elapsed() >= hold_max {
                    due.extend(held.take_all());
                }
            }
            let fused_any = !due.is_empty();
            for i in &due {
                let conv = |lat: f64, lon: f64, alt: f64| {
                    enu.as_ref().map(|c| c.from_geodetic(lat, lon, alt))
                };
                // Refusals are counted, logged and on /diagnostics.
                let _ = e.fuse(i, now, &conv);
            }
            if fused_any {
                if let Err(err) = filtered_pub.publish(e.filtered_odometry()) {
                    tracing::warn!("odometry/filtered: publish failed: {err:?}");
                }
                if publish_tf {
                    let tf = TFMessage {
                        transforms: vec![e.map_to_odom_tf()],
                    };
                    if let Err(err) = tf_pub.publish(tf) {
                        tracing::warn!("/tf: publish failed: {err:?}");
                    }
                }
            }
            let logs = e.drain_logs();
            let logged = !logs.is_empty();
            for r in logs {
                publish_log(r.to_ros());
            }
            let now_ns = now.as_nanos();
            let periodic = next_diag_ns.is_none_or(|n| now_ns >= n);
            if logged || periodic {
                let arr = DiagnosticArray {
                    header: Header {
                        stamp: now,
                        frame_id: String::new(),
                    },
                    status: e.diagnostics(now).into_iter().map(|s| s.to_ros()).collect(),
                };
                if let Err(err) = diag_pub.publish(arr) {
                    tracing::warn!("/diagnostics: publish failed: {err:?}");
                }
                if periodic {
                    let mut n = next_diag_ns.unwrap_or(now_ns);
                    while n <= now_ns {
                        n += diag_period_ns;
                    }
                    next_diag_ns = Some(n);
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> RosArgs {
        RosArgs::parse(a.iter().copied(), NODE_NAME).unwrap().0
    }

    #[test]
    fn dotted_parameters_override_estimator_fields() {
        let (cfg, origin) = ekf_config(&args(&[
            "--ros-args",
            "-p",
            "gnss.mahalanobis_gate:=false",
            "-p",
            "consistency.k_high_sigma:=5",
            "-p",
            "map_frame:=world",
            "-p",
            "use_sim_time:=true",
        ]))
        .unwrap();
        let mut want = EkfConfig::default();
        want.gnss.mahalanobis_gate = false;
        want.consistency.k_high_sigma = 5.0;
        want.map_frame = "world".into();
        assert_eq!(cfg, want);
        assert!(origin.contains("consistency.k_high_sigma"), "{origin}");
        let (cfg, _) = ekf_config(&args(&["--ros-args", "-p", "use_sim_time:=true"])).unwrap();
        assert_eq!(cfg, EkfConfig::default());
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        for (p, want) in [
            (
                "gnss.mahalanobis_gatee:=true",
                "unknown parameter 'gnss.mahalanobis_gatee'",
            ),
            ("gnss:=1", "parameter 'gnss' is a section"),
            ("gnss.enabled:=1", "field 'gnss.enabled'"),
            (
                "consistency.k_high_sigma:=-3.0",
                "field 'consistency.k_high_sigma'",
            ),
            ("initial_sigma.xy_m:=.nan", "field 'initial_sigma.xy_m'"),
        ] {
            let err = ekf_config(&args(&["--ros-args", "-p", p]))
                .map(|_| ())
                .unwrap_err();
            let msg = format!("{err:#}");
            assert!(msg.contains(want), "{p}: {msg}");
        }
    }

    #[test]
    fn datum_and_initial_pose_from_parameters() {
        let a = args(&[
            "--ros-args",
            "-p",
            "datum_latitude_deg:=52.0",
            "-p",
            "datum_longitude_deg:=21",
            "-p",
            "datum_altitude_m:=100.0",
            "-p",
            "initial_x_m:=2.0",
            "-p",
            "initial_v_m_s:=1.2",
        ]);
        let d = datum(&a, None).unwrap().unwrap();
        assert_eq!(
            (d.latitude_deg, d.longitude_deg, d.altitude_m),
            (52.0, 21.0, 100.0)
        );
        let i = initial(&a, None).unwrap();
        assert_eq!((i.map.x_m, i.map.y_m, i.v_m_s), (2.0, 0.0, 1.2));
        let partial = args(&["--ros-args", "-p", "datum_latitude_deg:=52.0"]);
        assert!(datum(&partial, None).is_err());
        assert!(datum(&args(&[]), None).unwrap().is_none());
    }
}
