//! The Gazebo Harmonic swap (`plant:=gazebo`) must describe the same world,
//! robot and ROS topics as the embedded plant. Gazebo cannot run on the
//! development machines, so this test checks the files themselves:
//!
//! - `config/gazebo/corridor.sdf` against `config/corridor.yaml` (walls,
//!   box obstacle, start pose) and `config/robot.yaml` (lidar, drive limits,
//!   ground-truth rate);
//! - `config/gazebo/bridge.yaml` / `bridge_stamped.yaml` (ros_gz_bridge)
//!   against the graph contract: every topic the embedded sim_bridge
//!   publishes or subscribes, with its ROS type and the matching gz type, and
//!   every gz topic actually produced/consumed by the SDF.
//!
//! Each check is a function returning `Err(reason)`; the `*_detects_*` tests
//! feed it deliberately broken copies, so the checks are shown to fail.

use crate::common;
use common::root;
use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::path::Path;

use breakbench_sim_bridge::PlantConfig;
use breakbench_world::World;
use serde::Deserialize;

const EPS: f64 = 1e-9;

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn world() -> World {
    World::load(&root().join("config/corridor.yaml")).expect("config/corridor.yaml")
}

fn robot() -> PlantConfig {
    PlantConfig::load(&root().join("config/robot.yaml")).expect("config/robot.yaml")
}

// ---------------------------------------------------------------- SDF access

fn child<'a, 'i>(n: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name(name))
}

fn path<'a, 'i>(
    n: roxmltree::Node<'a, 'i>,
    names: &[&str],
) -> Result<roxmltree::Node<'a, 'i>, String> {
    let mut cur = n;
    for name in names {
        cur = child(cur, name).ok_or_else(|| {
            format!(
                "<{}> has no <{name}> (path {names:?})",
                cur.tag_name().name()
            )
        })?;
    }
    Ok(cur)
}

fn text<'a>(n: roxmltree::Node<'a, '_>, names: &[&str]) -> Result<&'a str, String> {
    Ok(path(n, names)?.text().unwrap_or("").trim())
}

fn num(n: roxmltree::Node, names: &[&str]) -> Result<f64, String> {
    let t = text(n, names)?;
    t.parse::<f64>()
        .map_err(|e| format!("{names:?} = {t:?}: {e}"))
}

fn nums(s: &str) -> Result<Vec<f64>, String> {
    s.split_whitespace()
        .map(|t| t.parse::<f64>().map_err(|e| format!("{s:?}: {e}")))
        .collect()
}

/// `<pose>x y z roll pitch yaw</pose>` of a node (zeros when absent).
fn pose(n: roxmltree::Node) -> Result<[f64; 6], String> {
    match child(n, "pose") {
        None => Ok([0.0; 6]),
        Some(p) => {
            let v = nums(p.text().unwrap_or(""))?;
            v.try_into()
                .map_err(|v: Vec<f64>| format!("pose needs 6 numbers, got {}", v.len()))
        }
    }
}

fn world_node<'a, 'i>(doc: &'a roxmltree::Document<'i>) -> Result<roxmltree::Node<'a, 'i>, String> {
    path(doc.root_element(), &["world"])
}

fn model<'a, 'i>(
    w: roxmltree::Node<'a, 'i>,
    name: &str,
) -> Result<roxmltree::Node<'a, 'i>, String> {
    w.children()
        .find(|c| c.has_tag_name("model") && c.attribute("name") == Some(name))
        .ok_or_else(|| format!("no <model name=\"{name}\">"))
}

/// Axis-aligned box of a static single-link box model in the world frame:
/// `(min_xyz, max_xyz)`. Requires the collision and the visual to be the
/// same box (gpu_lidar renders visuals; physics uses collisions) and no
/// rotation about z (a rotated wall would not be axis-aligned).
fn static_box(m: roxmltree::Node) -> Result<([f64; 3], [f64; 3]), String> {
    let name = m.attribute("name").unwrap_or("?");
    if text(m, &["static"])? != "true" {
        return Err(format!("model {name} is not static"));
    }
    let p = pose(m)?;
    if p[3].abs() > EPS || p[4].abs() > EPS || p[5].abs() > EPS {
        return Err(format!("model {name} is rotated: {p:?}"));
    }
    let link = path(m, &["link"])?;
    let lp = pose(link)?;
    let coll = path(link, &["collision"])?;
    let vis = path(link, &["visual"])?;
    let size_c = nums(text(coll, &["geometry", "box", "size"])?)?;
    let size_v = nums(text(vis, &["geometry", "box", "size"])?)
        .map_err(|e| format!("model {name}: visual: {e}"))?;
    if size_c != size_v || pose(coll)? != pose(vis)? {
        return Err(format!(
            "model {name}: collision box {size_c:?} differs from visual box {size_v:?}"
        ));
    }
    let cp = pose(coll)?;
    let c = [
        p[0] + lp[0] + cp[0],
        p[1] + lp[1] + cp[1],
        p[2] + lp[2] + cp[2],
    ];
    let mut lo = [0.0; 3];
    let mut hi = [0.0; 3];
    for i in 0..3 {
        lo[i] = c[i] - size_c[i] / 2.0;
        hi[i] = c[i] + size_c[i] / 2.0;
    }
    Ok((lo, hi))
}

// ------------------------------------------------------------------ checks

/// Every YAML wall segment lies on a face of exactly one static wall box,
/// the box covers the whole segment, and the box is on the outer side (its
/// interior does not overlap the corridor's bounding rectangle). No extra
/// wall models exist.
fn check_walls(sdf: &str, w: &World) -> Result<(), String> {
    let doc = roxmltree::Document::parse(sdf).map_err(|e| e.to_string())?;
    let wn = world_node(&doc)?;
    let walls: Vec<_> = wn
        .children()
        .filter(|c| {
            c.has_tag_name("model") && c.attribute("name").is_some_and(|n| n.starts_with("wall_"))
        })
        .collect();
    if walls.len() != w.walls_m.len() {
        return Err(format!(
            "{} wall models in the SDF, {} walls in corridor.yaml",
            walls.len(),
            w.walls_m.len()
        ));
    }
    // The corridor's inner bounding rectangle, from the YAML walls.
    let xs = w.walls_m.iter().flat_map(|s| [s[0][0], s[1][0]]);
    let ys = w.walls_m.iter().flat_map(|s| [s[0][1], s[1][1]]);
    let (x0, x1) = (
        xs.clone().fold(f64::INFINITY, f64::min),
        xs.fold(f64::NEG_INFINITY, f64::max),
    );
    let (y0, y1) = (
        ys.clone().fold(f64::INFINITY, f64::min),
        ys.fold(f64::NEG_INFINITY, f64::max),
    );
    let boxes: Vec<_> = walls
        .iter()
        .map(|m| static_box(*m))
        .collect::<Result<_, _>>()?;
    for (lo, hi) in &boxes {
        let overlap_x = hi[0].min(x1) - lo[0].max(x0);
        let overlap_y = hi[1].min(y1) - lo[1].max(y0);
        if overlap_x > EPS && overlap_y > EPS {
            return Err(format!(
                "wall box {lo:?}..{hi:?} intrudes into the corridor {x0}..{x1} x {y0}..{y1}"
            ));
        }
        if lo[2].abs() > EPS || hi[2] < 0.5 {
            return Err(format!(
                "wall box {lo:?}..{hi:?} must stand on the ground and be >= 0.5 m tall"
            ));
        }
    }
    for seg in &w.walls_m {
        let [a, b] = *seg;
        let on_face = |lo: &[f64; 3], hi: &[f64; 3]| {
            let covers = |i: usize| lo[i] - EPS <= a[i].min(b[i]) && a[i].max(b[i]) <= hi[i] + EPS;
            let on = |i: usize, v: f64| (v - lo[i]).abs() < EPS || (v - hi[i]).abs() < EPS;
            if (a[1] - b[1]).abs() < EPS {
                on(1, a[1]) && covers(0) // horizontal segment on a y-face
            } else if (a[0] - b[0]).abs() < EPS {
                on(0, a[0]) && covers(1) // vertical segment on an x-face
            } else {
                false
            }
        };
        let n = boxes.iter().filter(|(lo, hi)| on_face(lo, hi)).count();
        if n != 1 {
            return Err(format!(
                "wall segment {a:?}-{b:?} lies on the face of {n} wall boxes (want 1)"
            ));
        }
    }
    Ok(())
}

/// Each YAML box obstacle is a static SDF model of the same name whose
/// footprint is exactly `min_m..max_m`.
fn check_obstacles(sdf: &str, w: &World) -> Result<(), String> {
    let doc = roxmltree::Document::parse(sdf).map_err(|e| e.to_string())?;
    let wn = world_node(&doc)?;
    for o in &w.obstacles {
        let (lo, hi) = static_box(model(wn, &o.name)?)?;
        for i in 0..2 {
            if (lo[i] - o.min_m[i]).abs() > EPS || (hi[i] - o.max_m[i]).abs() > EPS {
                return Err(format!(
                    "obstacle {}: SDF footprint {:?}..{:?}, corridor.yaml {:?}..{:?}",
                    o.name,
                    &lo[..2],
                    &hi[..2],
                    o.min_m,
                    o.max_m
                ));
            }
        }
        if lo[2].abs() > EPS || hi[2] < 0.5 {
            return Err(format!(
                "obstacle {} must stand on the ground and be >= 0.5 m tall",
                o.name
            ));
        }
    }
    Ok(())
}

/// The robot model starts at corridor.yaml `start`, its chassis radius is
/// the footprint radius, and the lidar sensor matches robot.yaml `lidar`.
fn check_robot(sdf: &str, w: &World, r: &PlantConfig) -> Result<(), String> {
    let doc = roxmltree::Document::parse(sdf).map_err(|e| e.to_string())?;
    let wn = world_node(&doc)?;
    let m = model(wn, "robot")?;
    let p = pose(m)?;
    if (p[0] - w.start.x_m).abs() > EPS
        || (p[1] - w.start.y_m).abs() > EPS
        || (p[5] - w.start.yaw_rad).abs() > EPS
    {
        return Err(format!(
            "robot pose {p:?}, start in corridor.yaml {:?}",
            w.start
        ));
    }
    let base = m
        .children()
        .find(|c| c.has_tag_name("link") && c.attribute("name") == Some("base_link"))
        .ok_or("robot has no link base_link")?;
    let chassis = base
        .children()
        .find(|c| c.has_tag_name("collision") && c.attribute("name") == Some("chassis_collision"))
        .ok_or("base_link has no chassis_collision")?;
    let radius = num(chassis, &["geometry", "cylinder", "radius"])?;
    if (radius - w.footprint_radius_m).abs() > EPS {
        return Err(format!(
            "chassis radius {radius}, footprint_radius_m {}",
            w.footprint_radius_m
        ));
    }

    let lidar = m
        .descendants()
        .find(|c| c.has_tag_name("sensor") && c.attribute("type") == Some("gpu_lidar"))
        .ok_or("robot has no gpu_lidar sensor")?;
    let link = lidar.parent().ok_or("lidar without link")?;
    let lp = pose(link)?;
    if lp[0].abs() > EPS || lp[1].abs() > EPS || lp[5].abs() > EPS {
        return Err(format!(
            "lidar link {lp:?} must be at the robot centre, facing forward (robot.yaml)"
        ));
    }
    if text(lidar, &["gz_frame_id"])? != "base_scan" {
        return Err("lidar frame must be base_scan".into());
    }
    let rate = num(lidar, &["update_rate"])?;
    let h = path(lidar, &["lidar", "scan", "horizontal"])?;
    let samples = num(h, &["samples"])?;
    let amin = num(h, &["min_angle"])?;
    let amax = num(h, &["max_angle"])?;
    let rmin = num(lidar, &["lidar", "range", "min"])?;
    let rmax = num(lidar, &["lidar", "range", "max"])?;
    let stddev = num(lidar, &["lidar", "noise", "stddev"])?;
    let l = &r.lidar;
    // Gazebo spreads `samples` beams over [min_angle, max_angle] inclusive:
    // increment = (max - min) / (samples - 1); robot.yaml's is 2 pi / beams.
    let inc = (amax - amin) / (samples - 1.0);
    let checks = [
        ("update_rate", rate, l.rate_hz),
        ("samples", samples, f64::from(l.beams)),
        ("min_angle", amin, l.angle_min_rad),
        ("angle increment", inc, 2.0 * PI / f64::from(l.beams)),
        ("range min", rmin, l.range_min_m),
        ("range max", rmax, l.range_max_m),
        ("noise stddev", stddev, l.range_noise_stddev_m),
    ];
    for (what, got, want) in checks {
        if (got - want).abs() > 1e-9 {
            return Err(format!("lidar {what}: SDF {got}, robot.yaml {want}"));
        }
    }
    // The scan plane must cut the walls and the box (all from z = 0 up).
    let z = pose(m)?[2] + lp[2];
    if !(0.0 < z && z < 0.5) {
        return Err(format!("lidar height {z} m is outside the walls' 0..0.5 m"));
    }
    Ok(())
}

fn plugin<'a, 'i>(
    m: roxmltree::Node<'a, 'i>,
    filename: &str,
) -> Result<roxmltree::Node<'a, 'i>, String> {
    m.children()
        .find(|c| c.has_tag_name("plugin") && c.attribute("filename") == Some(filename))
        .ok_or_else(|| format!("robot has no plugin {filename}"))
}

/// DiffDrive limits = robot.yaml `drive`; OdometryPublisher publishes the
/// world pose at truth_rate_hz; the world has the systems the sensors need
/// and spherical coordinates for NavSat.
fn check_systems(sdf: &str, r: &PlantConfig) -> Result<(), String> {
    let doc = roxmltree::Document::parse(sdf).map_err(|e| e.to_string())?;
    let wn = world_node(&doc)?;
    for sys in [
        "gz-sim-physics-system",
        "gz-sim-sensors-system",
        "gz-sim-imu-system",
        "gz-sim-navsat-system",
        "gz-sim-scene-broadcaster-system",
    ] {
        if !wn
            .children()
            .any(|c| c.has_tag_name("plugin") && c.attribute("filename") == Some(sys))
        {
            return Err(format!("world lacks system {sys}"));
        }
    }
    let sc = path(wn, &["spherical_coordinates"])?;
    num(sc, &["latitude_deg"])?;
    num(sc, &["longitude_deg"])?;
    if text(sc, &["world_frame_orientation"])? != "ENU" {
        return Err("spherical_coordinates must be ENU (REP-103)".into());
    }
    let m = model(wn, "robot")?;
    let dd = plugin(m, "gz-sim-diff-drive-system")?;
    let d = &r.drive;
    for (tag, want) in [
        ("wheel_separation", d.wheel_separation_m),
        ("max_linear_velocity", d.max_linear_m_s),
        ("min_linear_velocity", -d.max_linear_m_s),
        ("max_angular_velocity", d.max_angular_rad_s),
        ("min_angular_velocity", -d.max_angular_rad_s),
        ("max_linear_acceleration", d.max_linear_accel_m_s2),
        ("min_linear_acceleration", -d.max_linear_accel_m_s2),
        ("max_angular_acceleration", d.max_angular_accel_rad_s2),
        ("min_angular_acceleration", -d.max_angular_accel_rad_s2),
        ("odom_publish_frequency", r.odometry.rate_hz),
    ] {
        let got = num(dd, &[tag])?;
        if (got - want).abs() > EPS {
            return Err(format!("DiffDrive {tag}: SDF {got}, robot.yaml {want}"));
        }
    }
    if text(dd, &["frame_id"])? != "odom" || text(dd, &["child_frame_id"])? != "base_link" {
        return Err("DiffDrive odometry must be odom -> base_link (REP-105)".into());
    }
    let op = plugin(m, "gz-sim-odometry-publisher-system")?;
    if text(op, &["odom_frame"])? != "world" || text(op, &["robot_base_frame"])? != "base_link" {
        return Err("OdometryPublisher must publish world -> base_link".into());
    }
    let f = num(op, &["odom_publish_frequency"])?;
    if (f - r.truth_rate_hz).abs() > EPS {
        return Err(format!(
            "OdometryPublisher rate {f}, truth_rate_hz {}",
            r.truth_rate_hz
        ));
    }
    for t in ["imu", "navsat"] {
        if !m
            .descendants()
            .any(|c| c.has_tag_name("sensor") && c.attribute("type") == Some(t))
        {
            return Err(format!("robot has no {t} sensor"));
        }
    }
    Ok(())
}

/// IMU and NavSat rates equal the robot file's `imu`/`gnss` sections and the
/// NavSat datum (spherical_coordinates) the world file's `datum`, so both
/// plants publish the same streams.
fn check_sensor_params(sdf: &str, robot: &PlantConfig, world: &World) -> Result<(), String> {
    let doc = roxmltree::Document::parse(sdf).map_err(|e| e.to_string())?;
    let wn = world_node(&doc)?;
    let gnss = robot
        .gnss
        .as_ref()
        .ok_or("robot file has no gnss section")?;
    let imu = robot.imu.as_ref().ok_or("robot file has no imu section")?;
    let datum = world.datum.ok_or("world file has no datum")?;
    let m = model(wn, "robot")?;
    let sensor = |t: &str| {
        m.descendants()
            .find(|c| c.has_tag_name("sensor") && c.attribute("type") == Some(t))
            .ok_or_else(|| format!("robot has no {t} sensor"))
    };
    let sc = path(wn, &["spherical_coordinates"])?;
    let pairs = [
        (
            "imu update_rate",
            num(sensor("imu")?, &["update_rate"])?,
            imu.rate_hz,
        ),
        (
            "navsat update_rate",
            num(sensor("navsat")?, &["update_rate"])?,
            gnss.rate_hz,
        ),
        (
            "latitude_deg",
            num(sc, &["latitude_deg"])?,
            datum.latitude_deg,
        ),
        (
            "longitude_deg",
            num(sc, &["longitude_deg"])?,
            datum.longitude_deg,
        ),
        ("elevation", num(sc, &["elevation"])?, datum.altitude_m),
    ];
    for (what, got, want) in pairs {
        if (got - want).abs() > EPS {
            return Err(format!("{what}: SDF {got}, robot/world file {want}"));
        }
    }
    Ok(())
}

// ------------------------------------------------------------ bridge YAML

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BridgeEntry {
    ros_topic_name: String,
    gz_topic_name: String,
    ros_type_name: String,
    gz_type_name: String,
    direction: String,
}

/// The graph contract (REQ-GRAPH-UP): every topic the
/// embedded sim_bridge publishes (GZ_TO_ROS here) or subscribes (ROS_TO_GZ),
/// with its ROS type.
fn contract(cmd_vel_type: &str) -> BTreeMap<&'static str, (String, &'static str)> {
    let g = "GZ_TO_ROS";
    BTreeMap::from([
        ("/clock", ("rosgraph_msgs/msg/Clock".to_string(), g)),
        ("/scan", ("sensor_msgs/msg/LaserScan".to_string(), g)),
        ("/odom", ("nav_msgs/msg/Odometry".to_string(), g)),
        ("/tf", ("tf2_msgs/msg/TFMessage".to_string(), g)),
        ("/oracle/odom", ("nav_msgs/msg/Odometry".to_string(), g)),
        ("/gnss/fix", ("sensor_msgs/msg/NavSatFix".to_string(), g)),
        ("/imu/data", ("sensor_msgs/msg/Imu".to_string(), g)),
        ("/wheel/odom", ("nav_msgs/msg/Odometry".to_string(), g)),
        ("/cmd_vel", (cmd_vel_type.to_string(), "ROS_TO_GZ")),
    ])
}

/// ROS type -> gz type pairs that ros_gz_bridge converts (its
/// `ros_gz_bridge/mappings.py`; TwistStamped <-> gz.msgs.Twist is in the
/// current ros_gz, not in the oldest Jazzy releases).
fn gz_type_for(ros: &str) -> Option<&'static str> {
    Some(match ros {
        "rosgraph_msgs/msg/Clock" => "gz.msgs.Clock",
        "sensor_msgs/msg/LaserScan" => "gz.msgs.LaserScan",
        "nav_msgs/msg/Odometry" => "gz.msgs.Odometry",
        "tf2_msgs/msg/TFMessage" => "gz.msgs.Pose_V",
        "sensor_msgs/msg/NavSatFix" => "gz.msgs.NavSat",
        "sensor_msgs/msg/Imu" => "gz.msgs.IMU",
        "geometry_msgs/msg/Twist" | "geometry_msgs/msg/TwistStamped" => "gz.msgs.Twist",
        _ => return None,
    })
}

/// gz topic -> what produces it in the SDF (sensor `<topic>`, plugin topics,
/// the world clock).
fn sdf_gz_topics(sdf: &str) -> Result<BTreeMap<String, String>, String> {
    let doc = roxmltree::Document::parse(sdf).map_err(|e| e.to_string())?;
    let wn = world_node(&doc)?;
    let mut out = BTreeMap::from([("/clock".to_string(), "world clock".to_string())]);
    for n in wn.descendants() {
        if n.has_tag_name("sensor") {
            out.insert(
                text(n, &["topic"])?.to_string(),
                format!("sensor {}", n.attribute("type").unwrap_or("?")),
            );
        }
        if n.has_tag_name("plugin") {
            let f = n.attribute("filename").unwrap_or("?");
            for tag in ["topic", "odom_topic", "tf_topic"] {
                if let Some(t) = child(n, tag) {
                    out.insert(
                        t.text().unwrap_or("").trim().to_string(),
                        format!("{f} <{tag}>"),
                    );
                }
            }
        }
    }
    Ok(out)
}

fn check_bridge(yaml: &str, sdf: &str, cmd_vel_type: &str) -> Result<(), String> {
    let entries: Vec<BridgeEntry> = serde_yaml_ng::from_str(yaml).map_err(|e| e.to_string())?;
    let want = contract(cmd_vel_type);
    let mut seen = BTreeMap::new();
    for e in &entries {
        if seen.insert(e.ros_topic_name.as_str(), e).is_some() {
            return Err(format!("ROS topic {} bridged twice", e.ros_topic_name));
        }
    }
    let got: Vec<_> = seen.keys().copied().collect();
    let exp: Vec<_> = want.keys().copied().collect();
    if got != exp {
        return Err(format!("bridged ROS topics {got:?}, contract {exp:?}"));
    }
    let gz = sdf_gz_topics(sdf)?;
    for (topic, (ty, dir)) in &want {
        let e = seen[topic];
        if &e.ros_type_name != ty || e.direction != *dir {
            return Err(format!(
                "{topic}: {} {} in the bridge, contract {ty} {dir}",
                e.ros_type_name, e.direction
            ));
        }
        if gz_type_for(ty) != Some(e.gz_type_name.as_str()) {
            return Err(format!(
                "{topic}: gz type {} does not convert to {ty}",
                e.gz_type_name
            ));
        }
        if !gz.contains_key(&e.gz_topic_name) {
            return Err(format!(
                "{topic}: gz topic {} is not produced by the SDF (it has {:?})",
                e.gz_topic_name,
                gz.keys()
            ));
        }
    }
    // Ground truth only on /oracle/odom, never /tf: the gz topic behind /tf
    // must be DiffDrive's, and the one behind /oracle/odom the OdometryPublisher's.
    let tf_src = &gz[&seen["/tf"].gz_topic_name];
    let truth_src = &gz[&seen["/oracle/odom"].gz_topic_name];
    if !tf_src.starts_with("gz-sim-diff-drive-system") {
        return Err(format!(
            "/tf comes from {tf_src}, must be DiffDrive's odom->base_link"
        ));
    }
    if !truth_src.starts_with("gz-sim-odometry-publisher-system") {
        return Err(format!(
            "/oracle/odom comes from {truth_src}, must be the OdometryPublisher"
        ));
    }
    for (t, src) in &gz {
        if src.starts_with("gz-sim-odometry-publisher-system")
            && src.ends_with("<tf_topic>")
            && entries.iter().any(|e| &e.gz_topic_name == t)
        {
            return Err(format!(
                "the ground-truth transform {t} is bridged: ground truth must never reach /tf"
            ));
        }
    }
    Ok(())
}

// ------------------------------------------------------------------- tests

const SDF: &str = "config/gazebo/corridor.sdf";

#[test]
fn sdf_walls_match_corridor_yaml() {
    check_walls(&read(SDF), &world()).unwrap();
}

#[test]
fn sdf_obstacles_match_corridor_yaml() {
    check_obstacles(&read(SDF), &world()).unwrap();
}

#[test]
fn sdf_robot_start_and_lidar_match_yaml() {
    check_robot(&read(SDF), &world(), &robot()).unwrap();
}

#[test]
fn sdf_systems_drive_limits_and_ground_truth() {
    check_systems(&read(SDF), &robot()).unwrap();
}

#[test]
fn sdf_imu_navsat_match_the_robot_and_world_files() {
    let (robot, world) = (robot(), world());
    check_sensor_params(&read(SDF), &robot, &world).unwrap();
    let slow = mutate(
        SDF,
        "<update_rate>100</update_rate>",
        "<update_rate>50</update_rate>",
    );
    assert!(check_sensor_params(&slow, &robot, &world)
        .unwrap_err()
        .contains("imu"));
}

#[test]
fn bridge_maps_every_contract_topic() {
    check_bridge(
        &read("config/gazebo/bridge.yaml"),
        &read(SDF),
        "geometry_msgs/msg/Twist",
    )
    .unwrap();
}

#[test]
fn bridge_stamped_maps_every_contract_topic() {
    check_bridge(
        &read("config/gazebo/bridge_stamped.yaml"),
        &read(SDF),
        "geometry_msgs/msg/TwistStamped",
    )
    .unwrap();
}

#[test]
fn golden_box_pose_in_sdf() {
    // corridor.yaml box min (5.8, -1.0) max (6.2, 0.1): centre (6.0, -0.45),
    // size 0.4 x 1.1, by hand.
    let sdf = read(SDF);
    let doc = roxmltree::Document::parse(&sdf).unwrap();
    let (lo, hi) = static_box(model(world_node(&doc).unwrap(), "box").unwrap()).unwrap();
    assert!(
        (lo[0] - 5.8).abs() < EPS && (hi[0] - 6.2).abs() < EPS,
        "{lo:?} {hi:?}"
    );
    assert!(
        (lo[1] + 1.0).abs() < EPS && (hi[1] - 0.1).abs() < EPS,
        "{lo:?} {hi:?}"
    );
}

/// Topic names the embedded sim_bridge node creates: the first string
/// argument of each `.publisher(` / `.subscription::<..>(` in its source,
/// when that argument is a string literal.
fn sim_bridge_topics(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    for pat in [".publisher(", ".subscription::<"] {
        let mut rest = src;
        while let Some(i) = rest.find(pat) {
            rest = &rest[i + pat.len()..];
            // The first argument, if it is a literal: a topic from a
            // parameter (the optional `gate_topic`) is not part of the
            // contract with Gazebo.
            let Some(open) = rest.find('(') else { break };
            let arg = if pat.ends_with('(') {
                rest
            } else {
                &rest[open + 1..]
            };
            if let Some(lit) = arg.trim_start().strip_prefix('"') {
                if let Some(end) = lit.find('"') {
                    out.push(lit[..end].to_string());
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn contract_is_what_the_embedded_sim_bridge_creates() {
    // The hand-written contract above must be exactly the topics of the
    // embedded plant's node, so the bridge YAML cannot drift from it.
    // The node's sources: node.rs and its submodules (node/*.rs), where the
    // publishers and subscriptions are opened.
    let mut src = read("robot/breakbench_sim_bridge/src/bin/sim_bridge/node.rs");
    let dir = root().join("robot/breakbench_sim_bridge/src/bin/sim_bridge/node");
    let mut subs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    subs.sort();
    for p in subs {
        src.push_str(&std::fs::read_to_string(&p).expect("node source"));
    }
    let topics = sim_bridge_topics(&src);
    let mut want: Vec<String> = contract("geometry_msgs/msg/Twist")
        .keys()
        .map(|k| k.to_string())
        .collect();
    // Not bridged from Gazebo: the node's static sensor frames (REP-105),
    // which a Gazebo setup gets from robot_state_publisher, not ros_gz_bridge.
    want.push("/tf_static".to_string());
    want.sort();
    assert_eq!(topics, want);
}

// ------------------------------------------- the checks can fail (mutants)

fn mutate(rel: &str, from: &str, to: &str) -> String {
    let s = read(rel);
    assert_eq!(
        s.matches(from).count(),
        1,
        "mutation anchor {from:?} must occur once in {rel}"
    );
    s.replacen(from, to, 1)
}

#[test]
fn walls_check_detects_a_moved_wall() {
    // wall_east 0.1 m into the corridor: its inner face at x = 11.9, not 12.
    let sdf = mutate(
        SDF,
        "<pose>12.05 0.0 0.5 0 0 0</pose>",
        "<pose>11.95 0.0 0.5 0 0 0</pose>",
    );
    let e = check_walls(&sdf, &world()).unwrap_err();
    assert!(
        e.contains("intrudes") || e.contains("lies on the face"),
        "{e}"
    );
}

#[test]
fn walls_check_detects_a_wall_without_visual() {
    let sdf = mutate(
        SDF,
        "<visual name=\"visual\"><geometry><box><size>0.1 2.2 1.0</size></box></geometry>\n          <material><ambient>0.7 0.7 0.75 1</ambient><diffuse>0.7 0.7 0.75 1</diffuse></material></visual>\n      </link>\n    </model>\n    <!-- walls_m[2]",
        "</link>\n    </model>\n    <!-- walls_m[2]",
    );
    let e = check_walls(&sdf, &world()).unwrap_err();
    assert!(e.contains("visual"), "{e}");
}

#[test]
fn obstacle_check_detects_a_resized_box() {
    let sdf = mutate(
        SDF,
        "<size>0.4 1.1 1.0</size></box></geometry></collision>",
        "<size>0.5 1.1 1.0</size></box></geometry></collision>",
    );
    assert!(check_obstacles(&sdf, &world()).is_err());
}

#[test]
fn robot_check_detects_lidar_beams_and_start() {
    let beams = mutate(SDF, "<samples>360</samples>", "<samples>720</samples>");
    let e = check_robot(&beams, &world(), &robot()).unwrap_err();
    assert!(e.contains("samples"), "{e}");
    let start = mutate(
        SDF,
        "<pose>1.0 0.0 0.0 0 0 0.0</pose>",
        "<pose>1.5 0.0 0.0 0 0 0.0</pose>",
    );
    let e = check_robot(&start, &world(), &robot()).unwrap_err();
    assert!(e.contains("start"), "{e}");
}

#[test]
fn bridge_check_detects_missing_topic_wrong_type_and_truth_on_tf() {
    let sdf = read(SDF);
    let b = "config/gazebo/bridge.yaml";
    let wrong_type = mutate(
        b,
        "ros_type_name: \"sensor_msgs/msg/Imu\"",
        "ros_type_name: \"sensor_msgs/msg/MagneticField\"",
    );
    assert!(check_bridge(&wrong_type, &sdf, "geometry_msgs/msg/Twist")
        .unwrap_err()
        .contains("/imu/data"));
    let missing = mutate(
        b,
        "- ros_topic_name: \"/gnss/fix\"",
        "- ros_topic_name: \"/gnss/fix_other\"",
    );
    assert!(check_bridge(&missing, &sdf, "geometry_msgs/msg/Twist")
        .unwrap_err()
        .contains("contract"));
    let truth_on_tf = mutate(
        b,
        "gz_topic_name: \"/model/robot/tf\"",
        "gz_topic_name: \"/model/robot/ground_truth/pose\"",
    );
    let e = check_bridge(&truth_on_tf, &sdf, "geometry_msgs/msg/Twist").unwrap_err();
    assert!(e.contains("/tf"), "{e}");
    // The plain bridge must not pass as the stamped one.
    assert!(check_bridge(&read(b), &sdf, "geometry_msgs/msg/TwistStamped").is_err());
}

#[test]
fn files_exist_where_the_launch_file_looks() {
    for f in [
        SDF,
        "config/gazebo/bridge.yaml",
        "config/gazebo/bridge_stamped.yaml",
    ] {
        assert!(Path::new(&root().join(f)).is_file(), "{f}");
    }
}
