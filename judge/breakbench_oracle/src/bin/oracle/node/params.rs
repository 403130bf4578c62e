//! The oracle node's parameters (the crate README, "Node"), read and
//! checked once at start-up.

use std::path::PathBuf;

use anyhow::{bail, ensure, Context, Result};
use breakbench_records::RunKind;
use breakbench_ros::RosArgs;
use breakbench_world::World;

use super::{graph_scenario_hash, params_files, valid_run_id, TimeOrigin};

/// The node's parameters, validated, with the world they name.
pub(super) struct Params {
    /// `world_file`: the world the oracle judges in.
    pub world_file: PathBuf,
    /// The world loaded from `world_file`.
    pub world: World,
    /// `manifest_dir`: where the first run's manifest and trace go.
    pub manifest_dir: PathBuf,
    /// `run_id` of the first run (names its manifest and trace files).
    pub run_id: String,
    /// `run_kind`: `None` for `auto` (nominal without applied faults, else
    /// grid).
    pub run_kind: Option<RunKind>,
    pub scenario_name: String,
    /// `scenario_hash`, or the hash of the world and `--params-file` files
    /// when the parameter is empty.
    pub scenario_hash: String,
    /// `seed`: an int64 parameter carrying the u64 seed's bits (see
    /// sim_bridge).
    pub seed: i64,
    /// `keep_running`: keep publishing status after the verdict.
    pub keep_running: bool,
    pub git_commit: String,
    pub time_origin: TimeOrigin,
    /// `world_frame` / `child_frame`: the frames `/oracle/odom` must carry.
    pub world_frame: String,
    pub child_frame: String,
}

impl Params {
    /// Reads the parameters in the order the node always has (so the first
    /// bad one is the one named).
    ///
    /// # Errors
    /// A parameter of the wrong type or value, a world file that does not
    /// load, a `--params-file` that cannot be read for the scenario hash.
    pub fn from_args(args: &RosArgs) -> Result<Self> {
        let world_file = PathBuf::from(args.param_string("world_file", "config/corridor.yaml")?);
        let world = World::load(&world_file)
            .with_context(|| format!("parameter 'world_file' = {}", world_file.display()))?;
        let manifest_dir = PathBuf::from(args.param_string("manifest_dir", "runs/graph")?);
        let run_id = args.param_string("run_id", "graph-0")?;
        ensure!(
            valid_run_id(&run_id),
            "parameter 'run_id' = {run_id:?}: use letters, digits, '-', '_', '.'"
        );
        let run_kind = match args.param_string("run_kind", "auto")?.as_str() {
            "auto" => None,
            "nominal" => Some(RunKind::Nominal),
            "grid" => Some(RunKind::Grid),
            other => bail!("parameter 'run_kind' = {other:?}: expected auto, nominal or grid"),
        };
        let scenario_name = args.param_string("scenario_name", "corridor_graph")?;
        // Empty: computed from the files that define the run (see scenario_hash()).
        let scenario_hash = match args.param_string("scenario_hash", "")? {
            h if h.is_empty() => graph_scenario_hash(&world_file, &params_files(std::env::args()))?,
            h => h,
        };
        // int64 parameter carrying the u64 seed's bits (see sim_bridge).
        let seed = args.param_i64("seed", 0)?;
        let keep_running = args.param_bool("keep_running", false)?;
        let git_commit = args.param_string("git_commit", env!("BREAKBENCH_ORACLE_GIT_COMMIT"))?;
        let time_origin = match args.param_string("time_origin", "sim_zero")?.as_str() {
            "sim_zero" => TimeOrigin::SimZero,
            "first_sample" => TimeOrigin::FirstSample,
            other => {
                bail!("parameter 'time_origin' = {other:?}: expected sim_zero or first_sample")
            }
        };
        let world_frame = args.param_string("world_frame", "world")?;
        let child_frame = args.param_string("child_frame", "base_link")?;
        Ok(Self {
            world_file,
            world,
            manifest_dir,
            run_id,
            run_kind,
            scenario_name,
            scenario_hash,
            seed,
            keep_running,
            git_commit,
            time_origin,
            world_frame,
            child_frame,
        })
    }
}
