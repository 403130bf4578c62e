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
//! Parameters and topics: `robot/breakbench_estimator/README.md` ("ekf_node").
//! Environment: `ROS_DOMAIN_ID`, `RMW_IMPLEMENTATION`, `RUST_LOG`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{anyhow, bail, ensure, Context, Result};
use breakbench_estimator::{EkfConfig, Estimator, InitialState, Pose2};
use breakbench_ros::{NodeClock, ParamValue, RosArgs, RosEnv, RosNode, Shutdown};
use breakbench_world::geodesy::{GeodeticDatum, LocalEnu};
use breakbench_world::World;
use futures::stream::select_all;
use kraken_interfaces::ros::{Log, Time};

mod ekf;

use ekf::{next_wake, EkfNode, Event, Io, Settings, Wake};

const NODE_NAME: &str = breakbench_estimator::LOGGER_NAME;
/// Input queue depth (IMU at 50 Hz and more; absorbs rustdds writer stalls).
const DEPTH: usize = 100;

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
                    "unknown parameter '{name}': neither a parameter of {NODE_NAME} nor an estimator field (robot/breakbench_estimator/README.md, Parameters)"
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
        "robot/breakbench_estimator/README.md",
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

/// Reads the parameters, creates the node's entities and runs the event
/// loop: each event goes to its [`EkfNode`] handler, then the tick.
fn run() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), NODE_NAME)?;
    if !rest.is_empty() {
        bail!("unexpected arguments {rest:?} (node arguments go after --ros-args)");
    }
    let shutdown = Shutdown::on_signals()?;
    let env = RosEnv::from_env()?;
    let (settings, cfg_origin, datum) = settings(&args)?;

    let mut node = RosNode::new(env, args)?;
    let sim = matches!(node.clock, NodeClock::Sim(_));
    let io = Io::new(&mut node, sim)?;
    let _spinner = node.spawn_spinner()?;
    tracing::info!(
        node = %node.args.fully_qualified_name(),
        domain_id = env.domain_id,
        rmw = env.rmw.name(),
        parameters = %cfg_origin,
        datum = ?datum,
        initial_map_pose = ?settings.init.map,
        sim_time = sim,
        odom = %node.args.resolve("odom"),
        imu = %node.args.resolve("imu/data"),
        gnss = %node.args.resolve("gnss/fix"),
        filtered = %node.args.resolve("odometry/filtered"),
        "ready"
    );

    let mut events = shutdown.until(select_all(io.events()));
    let mut ekf = EkfNode::new(&io, settings, node.clock.clone())?;
    smol::block_on(async {
        loop {
            let wake = next_wake(&mut events, &shutdown).await?;
            let now = ekf.stamp();
            let mut due = Vec::new();
            match wake {
                Wake::Stopped => return Ok(()),
                Wake::Event(Event::Clock(c)) => ekf.on_clock(&c),
                Wake::Event(Event::Input(i)) => ekf.on_input(i, &mut due),
                Wake::Event(Event::Reset(id, req)) => {
                    ekf.on_reset(id, &req)?;
                    continue;
                }
                Wake::Tick => {}
            }
            ekf.on_tick(now, due)?;
        }
    })
}

/// The node's settings from its parameters, with the estimator parameters'
/// origin and the datum (for the `ready` line).
///
/// # Errors
/// A bad parameter (named), a world file that does not load, GNSS without
/// a datum, an estimator configuration the estimator refuses.
fn settings(args: &RosArgs) -> Result<(Settings, String, Option<GeodeticDatum>)> {
    let (cfg, cfg_origin) = ekf_config(args)?;
    let world_file = args.param_string("world_file", "")?;
    let world = if world_file.is_empty() {
        None
    } else {
        let p = PathBuf::from(&world_file);
        Some(World::load(&p).with_context(|| format!("parameter 'world_file' = {world_file}"))?)
    };
    let datum = datum(args, world.as_ref())?;
    ensure!(
        datum.is_some() || !cfg.gnss.enabled,
        "GNSS is enabled but there is no datum for the map frame: set 'world_file' (a world with a datum) or datum_latitude_deg, datum_longitude_deg and datum_altitude_m, or gnss.enabled:=false"
    );
    let enu = datum.map(LocalEnu::new);
    let init = initial(args, world.as_ref())?;
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
    let s = Settings {
        cfg,
        init,
        enu,
        diag_period_ns,
        publish_tf,
        hold_max,
        tolerance_ns,
    };
    Ok((s, cfg_origin, datum))
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
