//! Cross-check of the parry2d-based margins against closed-form formulas on
//! the shipped corridor, at seeded random points (ChaCha8, seed 2026).
//!
//! Corridor: region [0.05, 11.95] x [-0.95, 0.95] (a rectangle), box
//! [5.8, 6.2] x [-1.0, 0.1], radius 0.2. For a rectangle the signed distance
//! to the boundary is min(x - x0, x1 - x, y - y0, y1 - y) inside and minus
//! the Euclidean distance to the rectangle outside; the box's is the
//! mirror image (positive outside).

use std::path::PathBuf;

use breakbench_oracle::{judge, PoseSample};
use breakbench_world::World;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Signed distance to an axis-aligned rectangle, positive outside.
fn sd_rect(x: f64, y: f64, lo: [f64; 2], hi: [f64; 2]) -> f64 {
    let dx = (lo[0] - x).max(x - hi[0]);
    let dy = (lo[1] - y).max(y - hi[1]);
    if dx > 0.0 || dy > 0.0 {
        dx.max(0.0).hypot(dy.max(0.0))
    } else {
        dx.max(dy)
    }
}

#[test]
fn margins_match_closed_forms_at_random_points() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../config/corridor.yaml");
    let w = World::load(&p).unwrap();
    let r = w.footprint_radius_m;
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut outside = 0;
    for i in 0..5000 {
        let x = rng.random_range(-1.0..13.0);
        let y = rng.random_range(-2.0..2.0);
        let v = judge(
            &w,
            &[PoseSample {
                t_s: 0.0,
                x_m: x,
                y_m: y,
                yaw_rad: 0.0,
            }],
        )
        .unwrap();
        let region = -sd_rect(x, y, [0.05, -0.95], [11.95, 0.95]) - r;
        let clearance = sd_rect(x, y, [5.8, -1.0], [6.2, 0.1]) - r;
        let got_r = v.operating_region_containment.value;
        let got_c = v.obstacle_clearance.value;
        assert!(
            (got_r - region).abs() < 1e-12,
            "#{i} ({x}, {y}): region {got_r} vs {region}"
        );
        assert!(
            (got_c - clearance).abs() < 1e-12,
            "#{i} ({x}, {y}): clearance {got_c} vs {clearance}"
        );
        assert_eq!(v.operating_region_containment.holds, region >= 0.0);
        assert_eq!(
            v.obstacle_clearance.holds,
            clearance >= w.clearance_threshold_m
        );
        if region < -r {
            outside += 1;
        }
    }
    // The sampling box is larger than the region: about 1 - (11.9 * 1.9) / (14 * 4)
    // = 60 % of the points have their centre outside it, so both signs are exercised.
    assert!(outside > 2500 && outside < 3500, "{outside}");
}
