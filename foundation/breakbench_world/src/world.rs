//! The world: what the plant simulates and what the oracle judges against.
//!
//! Frame: `world` (the Gazebo world frame, REP-105's `map`), x along the
//! corridor, y to the left, z up (REP-103). Lengths in metres, angles in
//! radians, times in seconds.

use std::path::Path;

use kraken_interfaces::config::{load_yaml_checked, parse_yaml_checked};
use kraken_interfaces::ConfigError;
use serde::{Deserialize, Serialize};

use crate::geodesy::{GeodeticDatum, DATUM_RANGES};
use crate::range::{check_ranges, Range};

/// Largest |coordinate| of a world point, metres (a world 20 km across).
pub const MAX_COORD_M: f64 = 1.0e4;

/// The declared range of every numeric field of a world file (see the field
/// docs); checked by [`World::load`] before any other check.
pub const WORLD_RANGES: &[Range] = &[
    Range::new("walls_m[*][*][*]", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new("obstacles[*].min_m[*]", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new("obstacles[*].max_m[*]", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new("operating_region_m[*][*]", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new("goal.center_m[*]", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new("goal.radius_m", 0.01, 100.0, "m"),
    Range::new("clearance_threshold_m", 0.0, 10.0, "m"),
    Range::new("mission_timeout_s", 0.1, 3600.0, "s"),
    Range::new("footprint_radius_m", 0.01, 10.0, "m"),
    Range::new("start.x_m", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new("start.y_m", -MAX_COORD_M, MAX_COORD_M, "m"),
    Range::new(
        "start.yaw_rad",
        -std::f64::consts::TAU,
        std::f64::consts::TAU,
        "rad",
    ),
];

/// A 2-D point `[x, y]` in metres, world frame.
pub type Point2 = [f64; 2];

/// A named axis-aligned box obstacle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoxObstacle {
    pub name: String,
    /// Lower-left corner, metres, each coordinate in [-1e4, 1e4] m.
    pub min_m: Point2,
    /// Upper-right corner, metres, each coordinate in [-1e4, 1e4] m.
    pub max_m: Point2,
}

/// A pose in the plane: position in metres (each in [-1e4, 1e4] m), yaw in
/// radians (CCW from +x, in [-2 pi, 2 pi] rad).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pose2 {
    pub x_m: f64,
    pub y_m: f64,
    pub yaw_rad: f64,
}

/// The goal region: a disc.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoalRegion {
    /// Centre, metres, each coordinate in [-1e4, 1e4] m.
    pub center_m: Point2,
    /// Radius, metres, in [0.01, 100] m.
    pub radius_m: f64,
}

/// The world description (`config/corridor.yaml`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct World {
    /// Human-readable name.
    pub name: String,
    /// Wall segments `[[x0, y0], [x1, y1]]`, metres (coordinates in [-1e4, 1e4] m). Walls are rigid and seen
    /// by the lidar; they are not obstacles for `obstacle_clearance`.
    pub walls_m: Vec<[Point2; 2]>,
    /// Obstacles: rigid, seen by the lidar, and judged by `obstacle_clearance`.
    pub obstacles: Vec<BoxObstacle>,
    /// Operating region: a simple polygon (counter-clockwise vertices,
    /// coordinates in [-1e4, 1e4] m). The
    /// robot's whole footprint must stay inside it.
    pub operating_region_m: Vec<Point2>,
    /// Goal region the true pose must enter before the mission timeout. It
    /// must lie inside the operating region (a footprint in it fits), away
    /// from the start (the start is outside the disc) and off every obstacle.
    pub goal: GoalRegion,
    /// Footprint-to-obstacle distance below which `obstacle_clearance` is
    /// violated, metres, in [0, 10] m.
    pub clearance_threshold_m: f64,
    /// Time the robot has to enter the goal region, seconds of sim time, in
    /// [0.1, 3600] s.
    pub mission_timeout_s: f64,
    /// Radius of the robot's disc footprint, metres, in [0.01, 10] m.
    pub footprint_radius_m: f64,
    /// Start pose of the robot (the origin of its `odom` frame).
    pub start: Pose2,
    /// Geodetic position of the world origin (WGS84); the world frame is
    /// east-north-up there (REP-103, REP-105; see [`crate::geodesy`]).
    /// Required by a robot that declares a GNSS receiver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datum: Option<GeodeticDatum>,
}

impl World {
    /// Loads and validates a world file.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the file, line and field for any unknown or
    /// malformed field, or for a value that fails validation.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        load_yaml_checked(path, Self::validate)
    }

    /// The goal centre `[x m, y m]` in the robot's `odom` frame, whose origin
    /// and heading are the start pose (REP-105): the world offset from the
    /// start rotated by `-start.yaw_rad`.
    /// A pose `[x m, y m, yaw rad]` in `odom` (the robot's start frame,
    /// REP-105) in the world frame: rotated by the start yaw and translated
    /// to the start position.
    pub fn odom_to_world(&self, p: [f64; 3]) -> [f64; 3] {
        let s = self.start;
        let (si, c) = s.yaw_rad.sin_cos();
        [
            s.x_m + c * p[0] - si * p[1],
            s.y_m + si * p[0] + c * p[1],
            s.yaw_rad + p[2],
        ]
    }

    pub fn goal_in_odom(&self) -> [f64; 2] {
        let s = self.start;
        let (dx, dy) = (self.goal.center_m[0] - s.x_m, self.goal.center_m[1] - s.y_m);
        let (c, si) = (s.yaw_rad.cos(), s.yaw_rad.sin());
        [c * dx + si * dy, -si * dx + c * dy]
    }

    /// Parses and validates world YAML text that was read from `path`.
    pub fn parse(text: &str, path: &str) -> Result<Self, ConfigError> {
        parse_yaml_checked(text, path, Self::validate)
    }

    /// The semantic checks: every number in its declared range
    /// ([`WORLD_RANGES`]), a simple operating region, ordered obstacle boxes,
    /// walls of non-zero length, a legal start (footprint inside the region,
    /// clear of obstacles and walls) and a reachable goal (inside the region,
    /// not on the start, not under an obstacle).
    fn validate(&self, path: &str) -> Result<(), ConfigError> {
        let err = |f: &str, m: &str| Err(ConfigError::semantic(path, f, m));
        check_ranges(
            self,
            path,
            "",
            &[("", WORLD_RANGES), ("datum.", DATUM_RANGES)],
        )?;
        if self.operating_region_m.len() < 3 {
            return err("operating_region_m", "needs at least 3 vertices");
        }
        if let Some((i, j)) = crate::geometry::first_self_intersection(&self.operating_region_m) {
            return err(
                "operating_region_m",
                &format!("must be a simple polygon: edge {i} and edge {j} intersect"),
            );
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            if !(o.min_m[0] < o.max_m[0] && o.min_m[1] < o.max_m[1]) {
                return err(
                    &format!("obstacles[{i}]"),
                    "min_m must be below and left of max_m",
                );
            }
        }
        for (i, [a, b]) in self.walls_m.iter().enumerate() {
            if a == b {
                return err(&format!("walls_m[{i}]"), "has zero length");
            }
        }
        let s = &self.start;
        // The start must be a legal state: footprint inside the operating
        // region and clear of every obstacle and wall (a run that starts in
        // violation or in contact judges nothing about the faults).
        let r = self.footprint_radius_m;
        let inside = crate::geometry::RegionShape::new(&self.operating_region_m)
            .signed_distance_m(s.x_m, s.y_m);
        if inside < r {
            return err(
                "start",
                &format!(
                    "the footprint (radius {r} m) at ({}, {}) is not inside operating_region_m (centre {inside:.3} m from its boundary, positive inside)",
                    s.x_m, s.y_m
                ),
            );
        }
        let thr = self.clearance_threshold_m;
        for (i, o) in self.obstacles.iter().enumerate() {
            let d = crate::geometry::BoxShape::new(o).signed_distance_m(s.x_m, s.y_m);
            if d <= r {
                return err(
                    "start",
                    &format!(
                        "the footprint (radius {r} m) overlaps or touches obstacles[{i}] '{}' (centre {d:.3} m from it)",
                        o.name
                    ),
                );
            }
            if d - r < thr {
                return err(
                    "start",
                    &format!(
                        "the footprint is {:.3} m from obstacles[{i}] '{}', below clearance_threshold_m = {thr} m: every run would start in violation",
                        d - r,
                        o.name
                    ),
                );
            }
        }
        for (i, [a, b]) in self.walls_m.iter().enumerate() {
            let d = crate::geometry::segment_distance_m(*a, *b, [s.x_m, s.y_m]);
            if d <= r {
                return err(
                    "start",
                    &format!(
                        "the footprint (radius {r} m) overlaps or touches walls_m[{i}] (centre {d:.3} m from it)"
                    ),
                );
            }
        }
        self.validate_goal(path)
    }

    /// The goal must be reachable and not already reached: its centre inside
    /// the operating region, some point of its disc far enough from the
    /// boundary for the footprint (the region's signed distance is
    /// 1-Lipschitz, so `sd(centre) + radius < footprint` means no point of
    /// the disc can hold the footprint inside the region), the start outside
    /// the disc, and no obstacle overlapping the disc.
    fn validate_goal(&self, path: &str) -> Result<(), ConfigError> {
        let err = |f: &str, m: String| Err(ConfigError::semantic(path, f, m));
        let g = &self.goal;
        let [gx, gy] = g.center_m;
        let r = self.footprint_radius_m;
        let sd =
            crate::geometry::RegionShape::new(&self.operating_region_m).signed_distance_m(gx, gy);
        if sd < 0.0 {
            return err(
                "goal.center_m",
                format!(
                    "({gx}, {gy}) is outside operating_region_m ({:.3} m beyond its boundary): the mission cannot be completed",
                    -sd
                ),
            );
        }
        if sd + g.radius_m < r {
            return err(
                "goal.center_m",
                format!(
                    "no point of the goal disc (radius {} m, centre {sd:.3} m inside the boundary) holds the footprint (radius {r} m) inside operating_region_m",
                    g.radius_m
                ),
            );
        }
        let d = (self.start.x_m - gx).hypot(self.start.y_m - gy);
        if d <= g.radius_m {
            return err(
                "goal.center_m",
                format!(
                    "the start ({}, {}) is {d:.3} m from the goal centre, within goal.radius_m = {} m: every run would complete its mission without moving",
                    self.start.x_m, self.start.y_m, g.radius_m
                ),
            );
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            let d = crate::geometry::BoxShape::new(o).signed_distance_m(gx, gy);
            if d < g.radius_m {
                return err(
                    &format!("obstacles[{i}]"),
                    format!(
                        "'{}' overlaps the goal disc (centre ({gx}, {gy}), radius {} m; box {d:.3} m from the centre)",
                        o.name, g.radius_m
                    ),
                );
            }
        }
        // The start on the other side of closed walls from the goal: no
        // run can complete the mission (REQ-NOMINAL-GATE).
        if crate::geometry::walls_separate(
            &self.walls_m,
            [self.start.x_m, self.start.y_m],
            self.goal.center_m,
        ) {
            return err(
                "start",
                format!(
                    "({}, {}) is on the other side of the closed walls_m from the goal centre ({}, {}): no run can reach the goal",
                    self.start.x_m, self.start.y_m, self.goal.center_m[0], self.goal.center_m[1]
                ),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corridor_text() -> String {
        let p =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/corridor.yaml");
        std::fs::read_to_string(p).unwrap()
    }

    #[test]
    fn corridor_file_loads_with_its_declared_values() {
        let p =
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/corridor.yaml");
        let w = World::load(&p).unwrap();
        assert_eq!(w.obstacles.len(), 1);
        assert_eq!(w.obstacles[0].min_m, [5.8, -1.0]);
        assert_eq!(w.operating_region_m.len(), 4);
        assert_eq!(w.goal.radius_m, 0.3);
        assert_eq!(w.clearance_threshold_m, 0.10);
        assert_eq!(w.mission_timeout_s, 60.0);
        // odom -> world: the start pose is odom's origin
        let mut w2 = w.clone();
        w2.start.x_m = 1.0;
        w2.start.y_m = 2.0;
        w2.start.yaw_rad = std::f64::consts::FRAC_PI_2;
        let p = w2.odom_to_world([1.0, 0.5, 0.25]);
        assert!(
            (p[0] - 0.5).abs() < 1e-12 && (p[1] - 3.0).abs() < 1e-12,
            "{p:?}"
        );
        assert!((p[2] - (std::f64::consts::FRAC_PI_2 + 0.25)).abs() < 1e-12);
        assert_eq!(w.footprint_radius_m, 0.2);
        let d = w.datum.unwrap();
        assert_eq!(
            (d.latitude_deg, d.longitude_deg, d.altitude_m),
            (52.2297, 21.0122, 100.0)
        );
        // Start (1, 0) facing +x, goal (11, 0): 10 m ahead in odom.
        assert_eq!(w.goal_in_odom(), [10.0, 0.0]);
    }

    #[test]
    fn self_intersecting_region_is_rejected_with_the_field() {
        // A bow-tie: edges 0 ([0,0]→[2,2]) and 2 ([2,0]→[0,2]) cross at (1, 1).
        let text = corridor_text().replace(
            "  - [0.05, -0.95]\n  - [11.95, -0.95]\n  - [11.95, 0.95]\n  - [0.05, 0.95]",
            "  - [0.0, 0.0]\n  - [2.0, 2.0]\n  - [2.0, 0.0]\n  - [0.0, 2.0]",
        );
        assert_ne!(text, corridor_text(), "the replacement applied");
        let e = World::parse(&text, "bowtie.yaml").unwrap_err();
        assert_eq!(e.path, "bowtie.yaml");
        assert_eq!(e.field, "operating_region_m");
        assert!(e.message.contains("edge 0 and edge 2"), "{}", e.message);
    }

    #[test]
    fn non_finite_values_are_rejected() {
        let text = corridor_text().replace("mission_timeout_s: 60.0", "mission_timeout_s: .inf");
        let e = World::parse(&text, "w.yaml").unwrap_err();
        assert_eq!(e.field, "mission_timeout_s");
        let text = corridor_text().replace("  - [11.95, 0.95]", "  - [.nan, 0.95]");
        let e = World::parse(&text, "w.yaml").unwrap_err();
        assert_eq!(e.field, "operating_region_m[2][0]");
        assert!(e.to_string().starts_with("w.yaml:16:6: "), "{e}");
    }

    /// Every number of the world has a declared range; the absurd ones are refused
    /// with file, line, column and field.
    #[test]
    fn numbers_outside_their_declared_range_are_refused() {
        let cases = [
            (
                "latitude_deg: 52.2297",
                "latitude_deg: 95.0",
                "datum.latitude_deg",
                "26:3",
                "95 is outside its declared range [-90, 90] deg",
            ),
            (
                "mission_timeout_s: 60.0",
                "mission_timeout_s: 1.0e9",
                "mission_timeout_s",
                "22:1",
                "1e9 is outside its declared range [0.1, 3600] s",
            ),
            (
                "radius_m: 0.3",
                "radius_m: 0.0",
                "goal.radius_m",
                "20:3",
                "0 is outside its declared range [0.01, 100] m",
            ),
            (
                "footprint_radius_m: 0.2",
                "footprint_radius_m: -0.2",
                "footprint_radius_m",
                "23:1",
                "declared range [0.01, 10] m",
            ),
            (
                "clearance_threshold_m: 0.10",
                "clearance_threshold_m: 1.0e6",
                "clearance_threshold_m",
                "21:1",
                "declared range [0, 10] m",
            ),
            (
                "yaw_rad: 0.0}",
                "yaw_rad: 100.0}",
                "start.yaw_rad",
                "24:29",
                "100 is outside its declared range",
            ),
            (
                "max_m: [6.2, 0.1]",
                "max_m: [6.2, 1.0e300]",
                "obstacles[0].max_m[1]",
                "12:18",
                "1e300 is outside its declared range [-10000, 10000] m",
            ),
        ];
        for (from, to, field, at, msg) in cases {
            let text = corridor_text().replace(from, to);
            assert_ne!(text, corridor_text(), "{from} -> {to} applied");
            let e = World::parse(&text, "w.yaml").unwrap_err();
            assert_eq!(e.field, field, "{to}: {e}");
            assert!(
                e.to_string()
                    .starts_with(&format!("w.yaml:{at}: field '{field}': ")),
                "{to}: {e}"
            );
            assert!(e.message.contains(msg), "{to}: {e}");
        }
    }

    #[test]
    fn unknown_field_names_line_and_field() {
        let text = corridor_text().replace("footprint_radius_m: 0.2", "footprint_radius: 0.2");
        let e = World::parse(&text, "w.yaml").unwrap_err();
        assert!(e.line > 0, "{e}");
        assert!(e.message.contains("footprint_radius"), "{e}");
    }
    #[test]
    fn semantic_errors_name_the_line() {
        let text = corridor_text().replace("mission_timeout_s: 60.0", "mission_timeout_s: .inf");
        let e = World::parse(&text, "w.yaml").unwrap_err();
        assert_eq!((e.line, e.column), (22, 1), "{e}");
        assert!(
            e.to_string()
                .starts_with("w.yaml:22:1: field 'mission_timeout_s'"),
            "{e}"
        );
    }

    /// A start outside the closed corridor walls (the operating region
    /// widened to hold it) is refused: no run could reach the goal inside.
    /// With one wall removed the walls are open and the world loads.
    #[test]
    fn a_start_walled_off_from_the_goal_is_refused() {
        let outside = corridor_text()
            .replace(
                "  - [0.05, -0.95]\n  - [11.95, -0.95]\n  - [11.95, 0.95]\n  - [0.05, 0.95]",
                "  - [-2.0, -3.0]\n  - [14.0, -3.0]\n  - [14.0, 3.0]\n  - [-2.0, 3.0]",
            )
            .replace(
                "start: {x_m: 1.0, y_m: 0.0, yaw_rad: 0.0}",
                "start: {x_m: 1.0, y_m: 2.0, yaw_rad: 0.0}",
            );
        let e = World::parse(&outside, "w.yaml").unwrap_err().to_string();
        assert!(
            e.starts_with("w.yaml:24:1: field 'start': (1, 2) is on the other side of the closed walls_m from the goal centre (11, 0): no run can reach the goal"),
            "{e}"
        );
        let open = outside.replace("  - [[12.0, 1.0], [0.0, 1.0]]\n", "");
        World::parse(&open, "w.yaml").unwrap();
        assert!(crate::geometry::walls_separate(
            &[
                [[0.0, 0.0], [1.0, 0.0]],
                [[1.0, 0.0], [0.0, 1.0]],
                [[0.0, 1.0], [0.0, 0.0]]
            ],
            [0.2, 0.2],
            [2.0, 2.0]
        ));
        // through a wall end: undecided, not refused
        assert!(!crate::geometry::walls_separate(
            &[
                [[0.0, 0.0], [1.0, 0.0]],
                [[1.0, 0.0], [0.0, 1.0]],
                [[0.0, 1.0], [0.0, 0.0]]
            ],
            [0.2, 0.2],
            [-0.2, -0.2]
        ));
    }

    #[test]
    fn bad_walls_and_start_poses_are_rejected() {
        let cases = [
            (
                "  - [[0.0, -1.0], [12.0, -1.0]]",
                "  - [[.nan, -1.0], [12.0, -1.0]]",
                "walls_m[0][0][0]",
                "is not a finite number (declared range [-10000, 10000] m)",
            ),
            (
                "  - [[0.0, -1.0], [12.0, -1.0]]",
                "  - [[0.0, -1.0], [0.0, -1.0]]",
                "walls_m[0]",
                "zero length",
            ),
            (
                "start: {x_m: 1.0,",
                "start: {x_m: .nan,",
                "start.x_m",
                "finite",
            ),
            ("yaw_rad: 0.0}", "yaw_rad: .inf}", "start.yaw_rad", "finite"),
            // outside the corridor
            (
                "start: {x_m: 1.0,",
                "start: {x_m: 50.0,",
                "start",
                "not inside operating_region_m",
            ),
            // inside the region but the footprint crosses its edge (0.95 - 0.8 < 0.2)
            (
                "y_m: 0.0, yaw",
                "y_m: 0.8, yaw",
                "start",
                "not inside operating_region_m",
            ),
            // inside the box
            (
                "start: {x_m: 1.0,",
                "start: {x_m: 6.0,",
                "start",
                "overlaps or touches obstacles[0] 'box'",
            ),
            // 0.15 m left of the box: the 0.2 m footprint overlaps it
            (
                "start: {x_m: 1.0,",
                "start: {x_m: 5.65,",
                "start",
                "obstacles[0]",
            ),
            // footprint 0.05 m from the box: below the 0.10 m clearance threshold
            (
                "start: {x_m: 1.0,",
                "start: {x_m: 5.55,",
                "start",
                "0.050 m from obstacles[0] 'box', below clearance_threshold_m = 0.1 m",
            ),
        ];
        for (from, to, field, msg) in cases {
            let text = corridor_text().replace(from, to);
            assert_ne!(text, corridor_text(), "{from} -> {to} applied");
            let e = World::parse(&text, "w.yaml").unwrap_err();
            assert_eq!(e.field, field, "{to}: {e}");
            assert!(e.message.contains(msg), "{to}: {e}");
            assert!(e.line > 0, "{to}: {e}");
        }
        // A wall the region does not keep the start away from.
        let text = corridor_text().replace(
            "  - [[0.0, 1.0], [0.0, -1.0]]",
            "  - [[0.0, 1.0], [0.0, -1.0]]\n  - [[1.1, -0.5], [1.1, 0.5]]",
        );
        let e = World::parse(&text, "w.yaml").unwrap_err();
        assert!(
            e.message.contains("walls_m[4]") && e.message.contains("0.100 m"),
            "{e}"
        );
        // Goal outside the region, too near its edge for the footprint, on
        // the start, under an obstacle.
        let cases = [
            (
                "center_m: [11.0, 0.0]",
                "center_m: [13.0, 0.0]",
                "goal.center_m",
                "(13, 0) is outside operating_region_m (1.050 m beyond its boundary)",
            ),
            (
                "center_m: [11.0, 0.0]\n  radius_m: 0.3",
                "center_m: [11.0, 0.94]\n  radius_m: 0.1",
                "goal.center_m",
                "no point of the goal disc (radius 0.1 m, centre 0.010 m inside the boundary) holds the footprint (radius 0.2 m)",
            ),
            (
                "center_m: [11.0, 0.0]",
                "center_m: [1.2, 0.1]",
                "goal.center_m",
                "the start (1, 0) is 0.224 m from the goal centre, within goal.radius_m = 0.3 m",
            ),
            (
                "center_m: [11.0, 0.0]",
                "center_m: [6.0, 0.3]",
                "obstacles[0]",
                "'box' overlaps the goal disc (centre (6, 0.3), radius 0.3 m; box 0.200 m from the centre)",
            ),
        ];
        for (from, to, field, msg) in cases {
            let text = corridor_text().replace(from, to);
            assert_ne!(text, corridor_text(), "{from} -> {to} applied");
            let e = World::parse(&text, "w.yaml").unwrap_err();
            assert_eq!(e.field, field, "{to}: {e}");
            assert!(e.message.contains(msg), "{to}: {e}");
            assert!(e.line > 0, "{to}: {e}");
        }
        // A goal just clear of the box is legal.
        let text = corridor_text().replace("center_m: [11.0, 0.0]", "center_m: [6.0, 0.41]");
        assert_eq!(
            World::parse(&text, "w.yaml").unwrap().goal.center_m,
            [6.0, 0.41]
        );
        // Footprint 0.15 m from the box: legal.
        let text = corridor_text().replace("start: {x_m: 1.0,", "start: {x_m: 5.45,");
        assert_eq!(World::parse(&text, "w.yaml").unwrap().start.x_m, 5.45);
    }
}
