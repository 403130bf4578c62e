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
}
