//! The resource budget of a campaign plan.
//!
//! Before anything runs (before the output directory is even created), the
//! campaign estimates from the files alone what the plan costs: runs,
//! simulated steps, lidar rays cast, ray-segment tests (the geometry cost),
//! and bytes written (manifests, traces, the runs' MCAP recordings),
//! and refuses a plan above its budget with the estimate and the flag that
//! raises the limit. The estimate is arithmetic on the loaded files (no plan
//! is materialised), so an absurd file (10^9 repeats) is refused at once.
//!
//! Every run lasts the world's `mission_timeout_s` of sim time (the run loop
//! stops there whatever the navigator does), so per run:
//! `steps = ceil(T / step_s)`, `rays = ceil(T / lidar period) * beams`,
//! `trace rows = ceil(T / truth period)`.

use super::plan::Shard;
use super::run::RecordMode;
use super::scenario::Scenario;
use super::CampaignError;

/// Bytes per trace row, an upper estimate for worlds within a few hundred
/// metres (`t_s` with 3 decimals and five 5-decimal coordinates; the corridor
/// study writes 47-49).
pub const TRACE_ROW_BYTES: u64 = 64;
/// Bytes per manifest, an upper estimate (the corridor study's are 1.4-2.2 kB).
pub const MANIFEST_BYTES: u64 = 4096;
/// Bytes per run in report.html and junit.xml, an upper estimate (the
/// corridor study: 3.3 kB per run for both).
pub const REPORT_BYTES_PER_RUN: u64 = 4096;
/// Fixed bytes of summary.json, campaign.json, timing.json and the report's
/// fixed part.
pub const FIXED_BYTES: u64 = 1 << 20;

/// The limits a plan must stay within (`breakbench campaign --max-runs`,
/// `--max-sim-steps`, `--max-rays`, `--max-output-bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Runs (grid + nominal + canary).
    pub max_runs: u64,
    /// Plant integration steps over all runs.
    pub max_sim_steps: u64,
    /// Lidar rays cast over all runs (beams × scans).
    pub max_rays: u64,
    /// Ray-segment tests over all runs (rays × the world's segments).
    pub max_ray_tests: u64,
    /// Bytes written: manifests, traces, report and the fixed files.
    pub max_output_bytes: u64,
}

impl Default for Budget {
    /// 20 000 runs, 10^9 steps, 10^10 rays, 10^11 ray-segment tests, 4 GiB:
    /// about 190×, 1 600×, 440×, 550× and 190× the corridor study (106 runs,
    /// 636 000 steps, 2.3e7 rays, 1.8e8 ray-segment tests (8 segments), 22
    /// MB estimated; a corridor with 10 000 box obstacles is 5 000× its
    /// geometry cost, REQ-PLAN-SIZE); at the corridor study's 1.7e5 steps per
    /// second on two cores, 10^9 steps take about 1.6 h.
    fn default() -> Self {
        Self {
            max_runs: 20_000,
            max_sim_steps: 1_000_000_000,
            max_rays: 10_000_000_000,
            max_ray_tests: 100_000_000_000,
            max_output_bytes: 4 << 30,
        }
    }
}

/// What a plan costs, estimated from its files. Saturating arithmetic: an
/// absurd file gives `u64::MAX`, never an overflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    pub runs: u64,
    pub sim_steps: u64,
    pub rays: u64,
    /// The geometry cost: rays × segments of the world (each wall, four
    /// per box obstacle), an upper bound of the ray-segment tests (the
    /// lidar's fan culling tests fewer, the clearance check far fewer).
    pub ray_tests: u64,
    /// Bytes written, the recordings' included.
    pub output_bytes: u64,
    /// Of `output_bytes`, the runs' MCAP recordings
    /// ([`Estimate::with_recording`]; 0 without).
    pub recording_bytes: u64,
}

/// Segments the lidar casts against in `w`: each wall, four per obstacle.
pub fn segments(w: &breakbench_world::World) -> u64 {
    (w.walls_m.len() as u64).saturating_add((w.obstacles.len() as u64).saturating_mul(4))
}

/// `ceil(a / b)` for positive `a`, `b` in seconds, saturating at `u64::MAX`.
fn ceil_div(a: f64, b: f64) -> u64 {
    let q = (a / b - 1e-9).ceil();
    if q.is_finite() && q >= 0.0 && q < u64::MAX as f64 {
        q as u64
    } else {
        u64::MAX
    }
}

impl Estimate {
    /// The estimate for `s` (a loaded scenario: every field is in its
    /// declared range): the plan's declared size
    /// ([`super::scenario::ScenarioFile::declared_size`], from list lengths,
    /// the resilience tests' runs included; `u64::MAX` if it overflows).
    pub fn of(s: &Scenario) -> Self {
        let runs = s.file.declared_size().map_or(u64::MAX, |d| d.runs);
        Self::of_runs(s, runs)
    }

    /// The estimate for the slice `shard` of the plan of `s` (what one
    /// machine of a sharded campaign executes): every run costs the same, so
    /// it is [`Estimate::of`] for the slice's share of the runs.
    pub fn of_shard(s: &Scenario, shard: &Shard) -> Self {
        Self::of_runs(s, shard.len_of(Self::of(s).runs))
    }

    /// The estimate for `runs` runs of `s` (every run lasts the mission:
    /// a campaign's slice, or a severity search's probes).
    pub fn of_runs(s: &Scenario, runs: u64) -> Self {
        let t = s.world.mission_timeout_s;
        let p = &s.plant;
        let steps = ceil_div(t, p.step_s);
        let scans = ceil_div(t, 1.0 / p.lidar.rate_hz);
        let rows = ceil_div(t, 1.0 / p.truth_rate_hz).saturating_add(1);
        let per_run_bytes = rows
            .saturating_mul(TRACE_ROW_BYTES)
            .saturating_add(MANIFEST_BYTES)
            .saturating_add(REPORT_BYTES_PER_RUN);
        Self {
            runs,
            sim_steps: runs.saturating_mul(steps),
            rays: runs.saturating_mul(scans.saturating_mul(u64::from(p.lidar.beams))),
            ray_tests: runs
                .saturating_mul(scans.saturating_mul(u64::from(p.lidar.beams)))
                .saturating_mul(segments(&s.world)),
            output_bytes: runs
                .saturating_mul(per_run_bytes)
                .saturating_add(FIXED_BYTES),
            recording_bytes: 0,
        }
    }

    /// This estimate with each run's MCAP recording of policy `mode`
    /// ([`recording_bytes_per_run`]) counted in `output_bytes` and
    /// `recording_bytes` (REQ-REC-POLICY, REQ-PLAN-SIZE).
    pub fn with_recording(self, s: &Scenario, mode: RecordMode) -> Self {
        let rec = self.runs.saturating_mul(recording_bytes_per_run(s, mode));
        Self {
            output_bytes: self.output_bytes.saturating_add(rec),
            recording_bytes: rec,
            ..self
        }
    }
}

/// The uncompressed CDR bytes per simulated second of a full recording of
/// a run of `s`: the ground truth, and each plant sensor stream a
/// controller of the scenario reads (any navigator variant's) twice (as
/// emitted and as delivered), the command twice, `/tf` with each odometry
/// message, the controller's `/diagnostics` at its declared rate (its
/// `/rosout` records, a few a run, are in [`RECORDING_FIXED_BYTES`]), at
/// their declared rates;
/// upper estimates of each message's size ([`ODOMETRY_CDR_BYTES`] ...; a
/// scan is `LASERSCAN_CDR_BYTES + 4 * beams`).
pub fn recording_cdr_bytes_per_s(s: &Scenario) -> f64 {
    let p = &s.plant;
    let odom = ODOMETRY_CDR_BYTES as f64;
    let mut inputs = std::collections::BTreeSet::new();
    let mut cmd_hz = s.navigator.control_rate_hz;
    let mut diag_hz = s.navigator.diagnostics_rate_hz;
    for n in std::iter::once(&s.navigator).chain(s.variants.values()) {
        inputs.extend(n.pose_source.inputs().iter().map(|i| i.0));
        cmd_hz = cmd_hz.max(n.control_rate_hz);
        diag_hz = diag_hz.max(n.diagnostics_rate_hz);
    }
    let sensors: f64 = inputs
        .iter()
        .map(|name| match *name {
            "scan" => (LASERSCAN_CDR_BYTES + 4 * u64::from(p.lidar.beams)) as f64 * p.lidar.rate_hz,
            "odom" => p.odometry.rate_hz * odom,
            "imu" => p
                .imu
                .as_ref()
                .map_or(0.0, |i| i.rate_hz * IMU_CDR_BYTES as f64),
            "gnss" => p
                .gnss
                .as_ref()
                .map_or(0.0, |g| g.rate_hz * NAVSATFIX_CDR_BYTES as f64),
            _ => 0.0,
        })
        .sum();
    // `/tf`: the odom -> base_link transform with each odometry message.
    let tf = if inputs.contains("odom") {
        p.odometry.rate_hz * TFMESSAGE_CDR_BYTES as f64
    } else {
        0.0
    };
    p.truth_rate_hz * odom
        + 2.0 * sensors
        + tf
        + 2.0 * cmd_hz * TWIST_CDR_BYTES as f64
        + diag_hz * DIAGNOSTICS_CDR_BYTES as f64
}

/// Upper estimates of one message's CDR bytes, header included, with frame
/// ids up to 16 characters (the corridor study's are smaller).
pub const ODOMETRY_CDR_BYTES: u64 = 740;
pub const IMU_CDR_BYTES: u64 = 350;
pub const NAVSATFIX_CDR_BYTES: u64 = 150;
pub const TWIST_CDR_BYTES: u64 = 52;
/// One transform (`tf2_msgs/msg/TFMessage` of one `TransformStamped`).
pub const TFMESSAGE_CDR_BYTES: u64 = 128;
pub const LASERSCAN_CDR_BYTES: u64 = 80;
/// One `/diagnostics` array: the navigator's two sensor statuses and the
/// estimator's three, each with up to five key-values (measured: at most
/// 513 B for the navigator's two, `tests/campaigns/recording.rs`' run).
pub const DIAGNOSTICS_CDR_BYTES: u64 = 2048;
/// The compression ratio (CDR bytes over file bytes) a recording is
/// assumed to reach at least: full recordings reach 7.4 on the corridor
/// study, 8.6 on the estimator studies (IMU and GNSS too; measured with
/// `breakbench bench --record full`, docs/performance.md#recording).
pub const RECORDING_RATIO_BOUND: f64 = 4.0;
/// Bytes of a recording besides its messages, an upper estimate: schemas
/// and channels (twice: data and summary), indexes, the metadata records,
/// the attachment `scenario.json` (the corridor study: about 17 kB).
pub const RECORDING_FIXED_BYTES: u64 = 32 * 1024;
/// The largest estimate of a whole plan's `full` recordings for which
/// `full` is the default policy ([`default_record_mode`]).
pub const DEFAULT_FULL_MAX_BYTES: u64 = 256 << 20;

/// Upper estimate of one run's recording of policy `mode`, bytes: `full`
/// the whole mission ([`recording_cdr_bytes_per_s`] over
/// [`RECORDING_RATIO_BOUND`]); `events` at most `pre_s + post_s` of it per
/// event (four per fault, each expectation, three invariants and the
/// class), never more than the mission; plus [`RECORDING_FIXED_BYTES`].
pub fn recording_bytes_per_run(s: &Scenario, mode: RecordMode) -> u64 {
    let t = s.world.mission_timeout_s;
    let seconds = match mode {
        RecordMode::None => return 0,
        RecordMode::Full => t,
        RecordMode::Events => {
            let w = s.file.recording_window();
            let faults = s
                .file
                .tests
                .iter()
                .map(|t| t.faults.len())
                .max()
                .unwrap_or(0)
                .max(s.file.axes.len());
            let expectations = s
                .file
                .tests
                .iter()
                .map(|t| t.expectations.len())
                .max()
                .unwrap_or(0);
            let events = 4 * faults + expectations + 4;
            (events as f64 * (w.pre_s + w.post_s)).min(t)
        }
    };
    let b = seconds * recording_cdr_bytes_per_s(s) / RECORDING_RATIO_BOUND;
    (b.ceil() as u64).saturating_add(RECORDING_FIXED_BYTES)
}

/// The recording policy of a campaign that does not name one (`breakbench
/// campaign` without `--record`; REQ-REC-POLICY): `full` when the whole
/// plan's full recordings are estimated at most [`DEFAULT_FULL_MAX_BYTES`],
/// else `events`. The whole plan's, so every shard of it records alike.
pub fn default_record_mode(s: &Scenario) -> RecordMode {
    let e = Estimate::of(s).with_recording(s, RecordMode::Full);
    if e.recording_bytes <= DEFAULT_FULL_MAX_BYTES {
        RecordMode::Full
    } else {
        RecordMode::Events
    }
}

impl Budget {
    /// Checks `e` against the limits.
    ///
    /// # Errors
    /// [`CampaignError::OverBudget`] listing every exceeded quantity with its
    /// estimate, its limit and the flag that raises it, and the whole estimate.
    pub fn check(&self, e: &Estimate) -> Result<(), CampaignError> {
        let rows = [
            ("runs", e.runs, self.max_runs, "--max-runs"),
            (
                "simulated steps",
                e.sim_steps,
                self.max_sim_steps,
                "--max-sim-steps",
            ),
            ("lidar rays", e.rays, self.max_rays, "--max-rays"),
            (
                "ray-segment tests",
                e.ray_tests,
                self.max_ray_tests,
                "--max-ray-tests",
            ),
            (
                "bytes written",
                e.output_bytes,
                self.max_output_bytes,
                "--max-output-bytes",
            ),
        ];
        let over: Vec<String> = rows
            .iter()
            .filter(|(_, est, max, _)| est > max)
            .map(|(what, est, max, flag)| {
                format!("{what}: estimated {est}, limit {max} (raise with {flag} N)")
            })
            .collect();
        if over.is_empty() {
            return Ok(());
        }
        Err(CampaignError::OverBudget(format!(
            "the plan is over its resource budget, nothing was run: {}. Whole estimate: {} runs, {} simulated steps, {} lidar rays, {} ray-segment tests, {} bytes written",
            over.join("; "),
            e.runs,
            e.sim_steps,
            e.rays,
            e.ray_tests,
            e.output_bytes
        )))
    }
}
