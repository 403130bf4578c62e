//! The error type of breakbench_sim_bridge.

use kraken_interfaces::ConfigError;

/// Errors of the plant crate.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SimError {
    /// A robot or world configuration is malformed or fails validation
    /// (names file, line and field).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The robot's disc footprint at the start pose overlaps a wall or an
    /// obstacle: `clearance_m` (centre-to-geometry distance) is below the
    /// footprint radius.
    #[error("start pose ({x_m}, {y_m}) is in collision with {with}: centre clearance {clearance_m} m < footprint radius {radius_m} m")]
    StartInCollision {
        /// Start position, metres, world frame.
        x_m: f64,
        /// Start position, metres, world frame.
        y_m: f64,
        /// Nearest wall (`walls_m[i]`) or obstacle name.
        with: String,
        /// Distance from the footprint centre to that geometry, metres.
        clearance_m: f64,
        /// Footprint radius, metres.
        radius_m: f64,
    },
    /// The fixed step is too coarse for the contact check: at full speed the
    /// footprint centre would move `step_m` in one step, which must stay
    /// below the footprint radius so a step can never jump over a wall.
    #[error(
        "max_linear_m_s * step_s = {step_m} m per step must be < footprint radius {radius_m} m"
    )]
    StepTooCoarse {
        /// Largest distance travelled in one step, metres.
        step_m: f64,
        /// Footprint radius, metres.
        radius_m: f64,
    },
    /// A channel was wired to a consumer that the robot does not simulate:
    /// not one of the plant's sensor channels, or a sensor section the robot
    /// file does not declare.
    #[error("channel '{channel}' is wired, but {why}")]
    UnknownSensor {
        /// The wired channel name.
        channel: String,
        /// What is missing (the robot's declared sensor channels).
        why: String,
    },
    /// The robot declares a GNSS receiver but the world file has no
    /// geodetic `datum` to convert its positions with.
    #[error("the robot declares a gnss receiver, but the world '{world}' has no 'datum' (latitude_deg, longitude_deg, altitude_m of its origin)")]
    NoDatum {
        /// The world's name.
        world: String,
    },
}
