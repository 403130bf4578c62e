//! The node's parameters (see the module docs of `node.rs` for each one),
//! read and checked once at start.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, ensure, Context, Result};
use breakbench_navigator::controller::OpenLoop;
use breakbench_navigator::{NavigatorConfig, PoseSource};
use breakbench_ros::RosArgs;
use breakbench_world::World;

/// What the parameters say, checked.
pub(super) struct Params {
    /// `navigator_file`.
    pub nav_file: PathBuf,
    /// The navigator file, with `pose_source` overridden by the parameter.
    pub cfg: NavigatorConfig,
    /// `pose_source: estimator`: drive from `/odometry/filtered` (map).
    pub estimator: bool,
    /// The goal, m: in `map` with the estimator, else in `odom`.
    pub goal: [f64; 2],
    /// `input_wait_max_s`: the input barrier's longest wait.
    pub wait_max: Duration,
    /// `1 / self_report_rate_hz`.
    pub report_period: Duration,
    /// `cmd_vel_stamped`.
    pub stamped: bool,
    /// `open_loop_linear_m_s`, m/s, and `open_loop_duration_s`, s: the
    /// positive canary when the speed is not 0.
    pub open_loop: (f64, f64),
}

impl Params {
    /// Reads every parameter of `args`.
    ///
    /// # Errors
    /// A parameter of the wrong type or out of its range, an unreadable
    /// navigator or world file (named with its parameter).
    pub fn read(args: &RosArgs) -> Result<Self> {
        let nav_file = PathBuf::from(args.param_string("navigator_file", "config/navigator.yaml")?);
        let mut cfg = NavigatorConfig::load(&nav_file)
            .with_context(|| format!("parameter 'navigator_file' = {}", nav_file.display()))?;
        match args.param_string("pose_source", "")?.as_str() {
            "" => {}
            "wheel_odometry" => cfg.pose_source = PoseSource::WheelOdometry,
            "estimator" => cfg.pose_source = PoseSource::Estimator,
            other => bail!(
                "parameter 'pose_source' = {other:?}: expected \"\" (the navigator file's), \"wheel_odometry\" or \"estimator\""
            ),
        }
        // With the estimator, the pose comes from ekf_node's
        // odometry/filtered (map frame) and the goal is the world goal
        // centre in map, as in the in-process stack
        // (breakbench_navigator::stack).
        let estimator = cfg.pose_source == PoseSource::Estimator;
        let goal = goal(args, estimator)?;
        let wait_max = args.param_f64("input_wait_max_s", 0.05)?;
        ensure!(
            wait_max.is_finite() && wait_max >= 0.0,
            "parameter 'input_wait_max_s' must be >= 0, got {wait_max}"
        );
        let report_hz = args.param_f64("self_report_rate_hz", 1.0)?;
        ensure!(
            report_hz.is_finite() && report_hz > 0.0,
            "parameter 'self_report_rate_hz' must be > 0, got {report_hz}"
        );
        let stamped = args.param_bool("cmd_vel_stamped", false)?;
        let open_loop_m_s = args.param_f64("open_loop_linear_m_s", 0.0)?;
        let open_loop_s = args.param_f64("open_loop_duration_s", 0.0)?;
        ensure!(
            open_loop_m_s.is_finite() && open_loop_s.is_finite() && open_loop_s >= 0.0,
            "parameters 'open_loop_linear_m_s' = {open_loop_m_s} and 'open_loop_duration_s' = {open_loop_s}: finite, duration >= 0"
        );
        Ok(Params {
            nav_file,
            cfg,
            estimator,
            goal,
            wait_max: Duration::from_secs_f64(wait_max),
            report_period: Duration::from_secs_f64(1.0 / report_hz),
            stamped,
            open_loop: (open_loop_m_s, open_loop_s),
        })
    }

    /// A fresh canary controller, or `None` when the node drives the
    /// navigator.
    pub fn open_loop(&self) -> Option<OpenLoop> {
        let (m_s, s) = self.open_loop;
        (m_s != 0.0).then(|| OpenLoop::new(m_s, s))
    }
}

/// `goal_x_m`/`goal_y_m` if given (both), else the world file's goal: its
/// centre in `map` with the estimator, seen from the start pose in `odom`
/// without.
fn goal(args: &RosArgs, estimator: bool) -> Result<[f64; 2]> {
    let goal = match (args.params.get("goal_x_m"), args.params.get("goal_y_m")) {
        (Some(_), Some(_)) => [
            args.param_f64("goal_x_m", 0.0)?,
            args.param_f64("goal_y_m", 0.0)?,
        ],
        (None, None) => {
            let wf = PathBuf::from(args.param_string("world_file", "config/corridor.yaml")?);
            let world = World::load(&wf)
                .with_context(|| format!("parameter 'world_file' = {}", wf.display()))?;
            if estimator {
                world.goal.center_m
            } else {
                world.goal_in_odom()
            }
        }
        _ => bail!("parameters 'goal_x_m' and 'goal_y_m' go together"),
    };
    ensure!(
        goal.iter().all(|v| v.is_finite()),
        "goal {goal:?} is not finite"
    );
    Ok(goal)
}
