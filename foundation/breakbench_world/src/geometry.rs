//! Point-to-shape queries for the world checks and the oracle's invariants, on parry2d.
//!
//! The world crate uses `parry2d-f64` 0.31 (the same source as the workspace's
//! `parry2d`, built with `f64` scalars): the f32 build rounds a 6 m coordinate
//! to ~4e-7 m, enough to report a touching footprint (clearance exactly 0 in
//! the plant) as +3e-9 m. Every shape is also stored in a local frame centred
//! on itself, so distances are computed on small coordinates. Values that are
//! dyadic fractions (0.25, 0.125, ...) are computed exactly, which is how the
//! boundary tests pin down `<` against `<=`.

use parry2d_f64::math::Vector;
use parry2d_f64::query::PointQuery;
use parry2d_f64::shape::{Cuboid, Segment};
use parry2d_f64::utils::point_in_poly2d;

use crate::world::{BoxObstacle, Point2};

/// An axis-aligned box obstacle in its own frame (origin at its centre).
#[derive(Clone)]
pub struct BoxShape {
    center: [f64; 2],
    cuboid: Cuboid,
}

impl BoxShape {
    pub fn new(b: &BoxObstacle) -> Self {
        let center = [
            0.5 * (b.min_m[0] + b.max_m[0]),
            0.5 * (b.min_m[1] + b.max_m[1]),
        ];
        let half = [
            0.5 * (b.max_m[0] - b.min_m[0]),
            0.5 * (b.max_m[1] - b.min_m[1]),
        ];
        Self {
            center,
            cuboid: Cuboid::new(Vector::new(half[0], half[1])),
        }
    }

    /// Signed distance from the point `(x, y)` (metres, world frame) to the
    /// box: positive outside (Euclidean distance to the nearest box point),
    /// zero on the boundary, negative inside (minus the depth to the nearest
    /// face). parry2d-f64: `Cuboid::distance_to_local_point(p, solid = false)`.
    pub fn signed_distance_m(&self, x: f64, y: f64) -> f64 {
        let p = Vector::new(x - self.center[0], y - self.center[1]);
        self.cuboid.distance_to_local_point(p, false)
    }
}

/// A simple polygon in its own frame (origin at its bounding-box centre):
/// the closed boundary's edges for distances, and the vertex list for the
/// winding-number containment test.
#[derive(Clone)]
pub struct RegionShape {
    origin: [f64; 2],
    vertices: Vec<Vector>,
    /// Edge `i` from vertex `i` to vertex `i + 1` (the last back to 0).
    edges: Vec<Edge>,
}

/// One boundary edge `a`–`b` with `ab = b - a` and `|ab|^2` precomputed.
#[derive(Clone, Copy)]
struct Edge {
    a: Vector,
    b: Vector,
    ab: Vector,
    sqnab: f64,
}

impl Edge {
    fn new(a: Vector, b: Vector) -> Self {
        let ab = b - a;
        Self {
            a,
            b,
            ab,
            sqnab: ab.length_squared(),
        }
    }

    /// Distance from `p` to the edge: the arithmetic of parry2d-f64's
    /// `Segment::project_local_point` (closest point `a`, `b` or
    /// `a + ab u`, `u = ab.ap / |ab|^2`) and `(p - proj).length()`, operation
    /// for operation, so the result is the same to the bit.
    #[inline]
    fn distance(&self, p: Vector) -> f64 {
        let ap = p - self.a;
        let ab_ap = self.ab.dot(ap);
        let proj = if ab_ap <= 0.0 {
            self.a
        } else if ab_ap >= self.sqnab {
            self.b
        } else {
            self.a + self.ab * (ab_ap / self.sqnab)
        };
        (p - proj).length()
    }
}

impl RegionShape {
    pub fn new(poly: &[Point2]) -> Self {
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for p in poly {
            for k in 0..2 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
        }
        let origin = if poly.is_empty() {
            [0.0, 0.0]
        } else {
            [0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1])]
        };
        let vertices: Vec<Vector> = poly
            .iter()
            .map(|p| Vector::new(p[0] - origin[0], p[1] - origin[1]))
            .collect();
        let n = vertices.len();
        // Closed boundary: edge i joins vertex i to vertex i+1, the last one back to 0.
        let edges = if n >= 2 {
            (0..n)
                .map(|i| Edge::new(vertices[i], vertices[(i + 1) % n]))
                .collect()
        } else {
            Vec::new()
        };
        Self {
            origin,
            vertices,
            edges,
        }
    }

    /// Signed distance from the point `(x, y)` (metres, world frame) to the
    /// polygon boundary: positive inside, negative outside, zero on it.
    ///
    /// Magnitude: the least distance to an edge, each edge's distance
    /// computed as parry2d-f64's `Segment` point projection does (the value
    /// parry2d-f64's `Polyline::distance_to_local_point(p, solid = false)`
    /// gives over the closed boundary, without its BVH traversal: a region
    /// has a handful of edges); 0 for a region without edges (fewer than two
    /// vertices), as the polyline gives. Sign: parry2d-f64
    /// `utils::point_in_poly2d` (winding number). Its answer for a point
    /// exactly on the boundary does not matter: the magnitude is then 0 and
    /// the sign of 0 changes nothing.
    pub fn signed_distance_m(&self, x: f64, y: f64) -> f64 {
        let p = Vector::new(x - self.origin[0], y - self.origin[1]);
        let d = if self.edges.is_empty() {
            0.0
        } else {
            self.edges
                .iter()
                .fold(f64::INFINITY, |m, e| m.min(e.distance(p)))
        };
        if point_in_poly2d(p, &self.vertices) {
            d
        } else {
            -d
        }
    }
}

/// Distance from the point `p` to the segment `a`–`b`, metres (parry2d-f64
/// `Segment::distance_to_local_point`, computed relative to `a`).
pub fn segment_distance_m(a: Point2, b: Point2, p: Point2) -> f64 {
    let seg = Segment::new(Vector::new(0.0, 0.0), Vector::new(b[0] - a[0], b[1] - a[1]));
    seg.distance_to_local_point(Vector::new(p[0] - a[0], p[1] - a[1]), true)
}

/// Whether the closed polygon `poly` is simple: no two non-adjacent edges
/// touch, and no two adjacent edges overlap. Uses parry2d
/// `utils::segments_intersection2d` (epsilon 0: exact touching counts).
/// Returns the first offending pair of edge indices, if any.
pub fn first_self_intersection(poly: &[Point2]) -> Option<(usize, usize)> {
    use parry2d_f64::utils::{segments_intersection2d, SegmentsIntersection};
    let n = poly.len();
    let v = |i: usize| Vector::new(poly[i % n][0], poly[i % n][1]);
    for i in 0..n {
        for j in (i + 1)..n {
            let hit = segments_intersection2d(v(i), v(i + 1), v(j), v(j + 1), 0.0);
            let adjacent = j == i + 1 || (i == 0 && j == n - 1);
            match hit {
                None => {}
                // Adjacent edges share one vertex by construction; only an
                // overlap along a segment (a fold-back) is a defect.
                Some(SegmentsIntersection::Point { .. }) if adjacent => {}
                Some(_) => return Some((i, j)),
            }
        }
    }
    None
}

/// Whether the walls separate `a` from `b` for sure: the walls form closed
/// curves (every wall end, compared exactly, is the end of an even number
/// of walls) and the segment `a`-`b` crosses them an odd number of times,
/// so every path from `a` to `b` crosses a wall (a path crosses a closed
/// curve an even number of times exactly when its ends are on the same
/// side). `false` when the walls are open anywhere, or when the segment
/// touches a wall end or runs along a wall (undecided: not refused).
pub fn walls_separate(walls: &[[Point2; 2]], a: Point2, b: Point2) -> bool {
    let key = |p: Point2| (p[0].to_bits(), p[1].to_bits());
    let mut ends: std::collections::BTreeMap<(u64, u64), usize> = Default::default();
    for [p, q] in walls {
        *ends.entry(key(*p)).or_default() += 1;
        *ends.entry(key(*q)).or_default() += 1;
    }
    if ends.values().any(|n| n % 2 == 1) {
        return false;
    }
    // -1, 0 or 1 (f64::signum gives 1 for 0)
    let orient = |p: Point2, q: Point2, r: Point2| {
        let c = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]);
        f64::from(i8::from(c > 0.0) - i8::from(c < 0.0))
    };
    let mut crossings = 0usize;
    for [p, q] in walls {
        let (o1, o2) = (orient(a, b, *p), orient(a, b, *q));
        let (o3, o4) = (orient(*p, *q, a), orient(*p, *q, b));
        let zero = |o: f64| o == 0.0;
        if (zero(o1) || zero(o2)) && o3 != o4 {
            return false; // through a wall end, or along a wall: undecided
        }
        if o1 != o2 && o3 != o4 && !zero(o1) && !zero(o2) && !zero(o3) && !zero(o4) {
            crossings += 1;
        }
    }
    crossings % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use parry2d_f64::shape::Polyline;

    /// The edge loop gives parry2d-f64's `Polyline` distance to the bit, on
    /// a grid of points inside, outside, on and near the boundary of a
    /// rectangle and of a skewed pentagon.
    #[test]
    fn region_distance_is_the_polylines_to_the_bit() {
        let polys: [&[Point2]; 2] = [
            &[[0.05, -0.95], [11.95, -0.95], [11.95, 0.95], [0.05, 0.95]],
            &[[0.0, 0.0], [3.1, -0.4], [4.7, 2.2], [1.3, 3.9], [-0.6, 1.7]],
        ];
        for poly in polys {
            let r = RegionShape::new(poly);
            let verts: Vec<Vector> = r.vertices.clone();
            let n = verts.len() as u32;
            let idx = (0..n).map(|i| [i, (i + 1) % n]).collect();
            let line = Polyline::new(verts, Some(idx));
            let mut checked = 0;
            for i in -40..=160 {
                for j in -30..=50 {
                    let (x, y) = (f64::from(i) * 0.0837 - 0.31, f64::from(j) * 0.0913 - 1.17);
                    let p = Vector::new(x - r.origin[0], y - r.origin[1]);
                    let want = line.distance_to_local_point(p, false).abs();
                    let got = r.signed_distance_m(x, y).abs();
                    assert_eq!(got.to_bits(), want.to_bits(), "({x}, {y})");
                    checked += 1;
                }
            }
            assert_eq!(checked, 201 * 81);
        }
        // Fewer than two vertices: no edge, distance 0 (the degenerate region).
        assert_eq!(
            RegionShape::new(&[[1.0, 1.0]]).signed_distance_m(3.0, 4.0),
            0.0
        );
    }
}
