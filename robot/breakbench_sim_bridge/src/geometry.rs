//! The world's rigid geometry in `f64`, precomputed once: wall segments and
//! the four edges of every box obstacle, each tagged with its owner.
//!
//! Why not parry2d here: the `parry2d` crate is `f32`-only (`Real = f32`;
//! the `f64` build is the separate `parry2d-f64` crate), and the contact
//! guarantee is stated at 1e-9 m, below `f32` resolution at 12 m (~1e-6 m).
//! The queries needed (point- and segment-to-segment distance, ray-to-segment
//! intersection) are a few lines each in `f64`, and with ~10 segments a
//! linear scan beats a BVH. The ray caster is cross-checked against
//! parry2d's `Segment::cast_local_ray` in the tests.

use breakbench_world::World;

/// A segment `a + u * e`, `u` in `[0, 1]`, with the index of its owner in
/// [`WorldGeometry::labels`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Seg {
    pub ax: f64,
    pub ay: f64,
    pub ex: f64,
    pub ey: f64,
    /// `|e|^2`, metres^2 (0 for a degenerate segment).
    pub len2: f64,
    pub owner: u32,
}

/// An axis-aligned box with its owner index.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Aabb {
    min: [f64; 2],
    max: [f64; 2],
    owner: u32,
}

/// Rigid geometry of a [`World`]: walls (`walls_m[i]`) and box obstacles
/// (by name), in the world frame, metres.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldGeometry {
    pub(crate) segs: Vec<Seg>,
    /// The distinct segment end points, and each segment's start and end
    /// as indices into them (for [`Self::cast_fan`]'s bearings).
    ends: Vec<[f64; 2]>,
    seg_ends: Vec<[u32; 2]>,
    boxes: Vec<Aabb>,
    labels: Vec<String>,
}

impl WorldGeometry {
    /// Builds the geometry: one segment per wall, four per box obstacle.
    pub fn new(world: &World) -> Self {
        let mut segs = Vec::with_capacity(world.walls_m.len() + 4 * world.obstacles.len());
        let mut labels = Vec::new();
        let mut boxes = Vec::new();
        let mut ends: Vec<[f64; 2]> = Vec::new();
        let mut seg_ends = Vec::with_capacity(segs.capacity());
        let mut push = |segs: &mut Vec<Seg>, a: [f64; 2], b: [f64; 2], owner: u32| {
            let mut index_of = |p: [f64; 2]| {
                let i = ends.iter().position(|e| *e == p).unwrap_or_else(|| {
                    ends.push(p);
                    ends.len() - 1
                });
                i as u32
            };
            seg_ends.push([index_of(a), index_of(b)]);
            let (ex, ey) = (b[0] - a[0], b[1] - a[1]);
            segs.push(Seg {
                ax: a[0],
                ay: a[1],
                ex,
                ey,
                len2: ex * ex + ey * ey,
                owner,
            });
        };
        for (i, w) in world.walls_m.iter().enumerate() {
            let owner = labels.len() as u32;
            labels.push(format!("walls_m[{i}]"));
            push(&mut segs, w[0], w[1], owner);
        }
        for o in &world.obstacles {
            let owner = labels.len() as u32;
            labels.push(o.name.clone());
            let (lo, hi) = (o.min_m, o.max_m);
            let c = [lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]];
            for k in 0..4 {
                push(&mut segs, c[k], c[(k + 1) % 4], owner);
            }
            boxes.push(Aabb {
                min: lo,
                max: hi,
                owner,
            });
        }
        Self {
            segs,
            ends,
            seg_ends,
            boxes,
            labels,
        }
    }

    /// Owner names: `walls_m[i]` for walls, the obstacle's `name` for boxes.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    /// Signed clearance of the point `(x, y)` (metres): the distance to the
    /// nearest wall or box edge, negated when the point is strictly inside a
    /// box; with the index of that owner in [`Self::labels`]. `(inf, None)`
    /// for an empty world.
    pub fn clearance(&self, x: f64, y: f64) -> (f64, Option<u32>) {
        let mut best = f64::INFINITY;
        let mut owner = None;
        for s in &self.segs {
            let d = seg_dist2(s, x, y);
            if d < best {
                best = d;
                owner = Some(s.owner);
            }
        }
        let mut best = best.sqrt();
        for b in &self.boxes {
            if x > b.min[0] && x < b.max[0] && y > b.min[1] && y < b.max[1] {
                let depth = (x - b.min[0])
                    .min(b.max[0] - x)
                    .min(y - b.min[1])
                    .min(b.max[1] - y);
                if -depth < best {
                    best = -depth;
                    owner = Some(b.owner);
                }
            }
        }
        (best, owner)
    }

    /// Signed clearance of the straight path from `(x0, y0)` to `(x1, y1)`
    /// (metres): the smallest distance from any point of the path to any
    /// wall or box edge (0 if the path crosses one), or the end point's
    /// negative depth if it is strictly inside a box; with the owner index.
    /// Segment-segment distance: 0 if they intersect, else the least of the
    /// four endpoint-to-segment distances.
    pub fn swept_clearance(&self, x0: f64, y0: f64, x1: f64, y1: f64) -> (f64, Option<u32>) {
        let (px, py) = (x1 - x0, y1 - y0);
        let path = Seg {
            ax: x0,
            ay: y0,
            ex: px,
            ey: py,
            len2: px * px + py * py,
            owner: u32::MAX,
        };
        let mut best = f64::INFINITY;
        let mut owner = None;
        for s in &self.segs {
            // Orientation of the wall's ends about the path, and of the path's ends about the wall.
            let o1 = px * (s.ay - y0) - py * (s.ax - x0);
            let o2 = px * (s.ay + s.ey - y0) - py * (s.ax + s.ex - x0);
            let o3 = s.ex * (y0 - s.ay) - s.ey * (x0 - s.ax);
            let o4 = s.ex * (y1 - s.ay) - s.ey * (x1 - s.ax);
            let crosses = !(o1 == 0.0 && o2 == 0.0) && o1 * o2 <= 0.0 && o3 * o4 <= 0.0;
            let d = if crosses {
                0.0
            } else {
                seg_dist2(s, x0, y0)
                    .min(seg_dist2(s, x1, y1))
                    .min(seg_dist2(&path, s.ax, s.ay))
                    .min(seg_dist2(&path, s.ax + s.ex, s.ay + s.ey))
            };
            if d < best {
                best = d;
                owner = Some(s.owner);
            }
        }
        let (end, end_owner) = self.clearance(x1, y1);
        let best = best.sqrt();
        if end < best {
            (end, end_owner)
        } else {
            (best, owner)
        }
    }

    /// Distance along the ray `o + t d` (`d` need not be unit length; `t` is
    /// in units of `|d|`) to the first wall or box edge with `0 <= t`, or
    /// `inf` if none. Rays parallel to a segment do not hit it (a grazing
    /// beam along a wall returns the next surface).
    #[inline]
    pub fn cast(&self, ox: f64, oy: f64, dx: f64, dy: f64) -> f64 {
        let mut best = f64::INFINITY;
        for s in &self.segs {
            // o + t d = a + u e  =>  t = (q x e) / (d x e),  u = (q x d) / (d x e),  q = a - o.
            // Sign-normalised so that only hits pay for the division.
            let den = dx * s.ey - dy * s.ex;
            let (qx, qy) = (s.ax - ox, s.ay - oy);
            let (nt, nu) = (qx * s.ey - qy * s.ex, qx * dy - qy * dx);
            let (den, nt, nu) = if den < 0.0 {
                (-den, -nt, -nu)
            } else {
                (den, nt, nu)
            };
            if den > 0.0 && nt >= 0.0 && nu >= 0.0 && nu <= den {
                let t = nt / den;
                if t < best {
                    best = t;
                }
            }
        }
        best
    }
}

/// The beam directions of a fan as two columns (what the per-segment loops
/// read, two beams per SSE2 instruction).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct FanDirs {
    pub cos: Vec<f64>,
    pub sin: Vec<f64>,
}

/// Per-scan buffers of [`WorldGeometry::cast_fan`], kept between scans to
/// reuse their allocations.
#[derive(Debug, Clone, Default)]
pub(crate) struct FanScratch {
    /// The beams' world directions.
    world: FanDirs,
    /// Bearing from the origin of every distinct segment end.
    bearings: Vec<f64>,
}

impl WorldGeometry {
    /// Casts a full fan of beams from `(ox, oy)` into `out` (one distance per
    /// beam, metres, `inf` for no return; `out` must hold `inf` on entry):
    /// beam `i` has the unit direction
    /// `rot(c, s) * dirs[i]` and the world angle `beam0 + i * inc` with
    /// `inc = 2 pi / dirs.len()`. Same result as [`Self::cast`] per beam, but
    /// each segment is only tested against the beams inside the angle it
    /// subtends from the origin (plus one beam of margin on each side), so a
    /// scan costs about one ray-segment test per beam and visible segment
    /// instead of one per beam and segment. The world directions are rotated
    /// once per scan, the bearing of each distinct segment end is computed
    /// once (walls and box edges share their corners), and each segment's
    /// beams are walked as (at most two) contiguous runs with a branch-free
    /// test.
    ///
    /// Why the margin makes the culling exact: a beam hits a segment only
    /// if its direction lies within the segment's angle up to the rounding
    /// of the test (~1e-15 rad), far inside one beam of margin, so the
    /// rounding of the bearings themselves cannot drop a hit.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn cast_fan(
        &self,
        ox: f64,
        oy: f64,
        (c, s): (f64, f64),
        beam0: f64,
        inc: f64,
        dirs: &FanDirs,
        scratch: &mut FanScratch,
        out: &mut [f64],
    ) {
        use std::f64::consts::{PI, TAU};
        debug_assert!(dirs.cos.len() == out.len() && dirs.sin.len() == out.len());
        debug_assert!(out.iter().all(|t| *t == f64::INFINITY));
        let FanScratch { world, bearings } = scratch;
        world.cos.clear();
        world.sin.clear();
        world.cos.extend(
            dirs.cos
                .iter()
                .zip(&dirs.sin)
                .map(|(&bc, &bs)| c * bc - s * bs),
        );
        world.sin.extend(
            dirs.cos
                .iter()
                .zip(&dirs.sin)
                .map(|(&bc, &bs)| s * bc + c * bs),
        );
        bearings.clear();
        bearings.extend(self.ends.iter().map(|&[x, y]| (y - oy).atan2(x - ox)));
        let n = out.len() as i64;
        for (g, &[ia, ib]) in self.segs.iter().zip(&self.seg_ends) {
            let (qx, qy) = (g.ax - ox, g.ay - oy);
            let (ta, tb) = (bearings[ia as usize], bearings[ib as usize]);
            let mut sweep = tb - ta;
            if sweep > PI {
                sweep -= TAU;
            } else if sweep <= -PI {
                sweep += TAU;
            }
            let (lo, width) = if sweep >= 0.0 {
                (ta, sweep)
            } else {
                (tb, -sweep)
            };
            let first = ((lo - beam0) / inc).floor() as i64 - 1;
            let last = ((lo + width - beam0) / inc).ceil() as i64 + 1;
            let count = (last - first + 1).min(n) as usize;
            let i0 = first.rem_euclid(n) as usize;
            let end = (i0 + count).min(out.len());
            let wrapped = i0 + count - end;
            let nt0 = qx * g.ey - qy * g.ex;
            for (lo, hi) in [(i0, end), (0, wrapped)] {
                let (wc, ws, o) = (&world.cos[lo..hi], &world.sin[lo..hi], &mut out[lo..hi]);
                if nt0 != 0.0 {
                    run_one_side(wc, ws, o, g, (qx, qy), nt0);
                } else {
                    run_both_sides(wc, ws, o, g, (qx, qy), nt0);
                }
            }
        }
    }
}

/// The ray-segment test of [`WorldGeometry::cast`] over a run of beams with
/// world directions `(dx[i], dy[i])`, for a segment `g` whose start is at
/// `q = a - o` from the origin with `nt0 = q x e` non-zero (a NaN `nt0`
/// hits nothing, as in `cast`).
///
/// `cast` flips the signs of `den`, `nt = nt0` and `nu` where `den < 0` and
/// then needs `den > 0`, `nt >= 0`: with the sign of `nt0` fixed per
/// segment, only beams with `den` of the sign of `nt0` can hit. Multiplying
/// `e` and `q` by that sign (exact) makes those beams' `den` and `nu` the
/// flipped values of `cast` to the bit (rounding is symmetric), and
/// `t = nt0 / den` is unchanged by the flip, so one branch-free loop without
/// per-beam sign selects gives `cast`'s hits and distances exactly.
#[inline]
fn run_one_side(dx: &[f64], dy: &[f64], out: &mut [f64], g: &Seg, (qx, qy): (f64, f64), nt0: f64) {
    let k = if nt0 > 0.0 {
        1.0
    } else if nt0 < 0.0 {
        -1.0
    } else {
        return; // NaN
    };
    let (ex, ey, qx, qy, nt) = (k * g.ex, k * g.ey, k * qx, k * qy, k * nt0);
    for ((o, &dx), &dy) in out.iter_mut().zip(dx).zip(dy) {
        let den = dx * ey - dy * ex;
        let nu = qx * dy - qy * dx;
        let t = nt / den;
        let hit = (den > 0.0) & (nu >= 0.0) & (nu <= den) & (t < *o);
        *o = if hit { t } else { *o };
    }
}

/// As [`run_one_side`] for `nt0 == 0` (the origin on the segment's line),
/// where either sign of `den` can hit: `cast`'s test as it is written.
#[inline]
fn run_both_sides(
    dx: &[f64],
    dy: &[f64],
    out: &mut [f64],
    g: &Seg,
    (qx, qy): (f64, f64),
    nt0: f64,
) {
    for ((o, &dx), &dy) in out.iter_mut().zip(dx).zip(dy) {
        let den = dx * g.ey - dy * g.ex;
        let nu = qx * dy - qy * dx;
        let (den, nt, nu) = if den < 0.0 {
            (-den, -nt0, -nu)
        } else {
            (den, nt0, nu)
        };
        let t = nt / den;
        let hit = den > 0.0 && nt >= 0.0 && nu >= 0.0 && nu <= den && t < *o;
        *o = if hit { t } else { *o };
    }
}

/// Squared distance from `(x, y)` to segment `s`.
#[inline]
fn seg_dist2(s: &Seg, x: f64, y: f64) -> f64 {
    let (px, py) = (x - s.ax, y - s.ay);
    let u = if s.len2 > 0.0 {
        ((px * s.ex + py * s.ey) / s.len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (dx, dy) = (px - u * s.ex, py - u * s.ey);
    dx * dx + dy * dy
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corridor() -> World {
        World::load(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../config/corridor.yaml"
        )))
        .unwrap()
    }

    #[test]
    fn clearance_in_the_corridor() {
        let g = WorldGeometry::new(&corridor());
        // (1, 0): nearest is the x=0 wall at 1.0 m vs y=+-1 walls at 1.0 m: tie, any wall.
        // (1, 0.5): y=1 wall (walls_m[2]) at 0.5 m.
        let (d, o) = g.clearance(1.0, 0.5);
        assert_eq!(d, 0.5);
        assert_eq!(g.labels()[o.unwrap() as usize], "walls_m[2]");
        // (5.5, 0.0): box left face x=5.8 at 0.3 m.
        let (d, o) = g.clearance(5.5, 0.0);
        assert!((d - 0.3).abs() < 1e-15);
        assert_eq!(g.labels()[o.unwrap() as usize], "box");
        // (6.3, 0.2): box corner (6.2, 0.1) at sqrt(0.01 + 0.01) = 0.141421356...
        let (d, _) = g.clearance(6.3, 0.2);
        assert!((d - 0.02f64.sqrt()).abs() < 1e-15);
        // Inside the box at (6.0, -0.5): depth = min(0.2, 0.2, 0.5, 0.6) = 0.2 -> -0.2.
        let (d, o) = g.clearance(6.0, -0.5);
        assert!((d + 0.2).abs() < 1e-15, "{d}");
        assert_eq!(g.labels()[o.unwrap() as usize], "box");
    }

    #[test]
    fn swept_clearance_catches_a_corner_between_samples() {
        // Path diagonal past the box corner (6.2, 0.1), closest approach h = 0.19999 m at
        // the midpoint, ends 2.5 mm either side: the ends are sqrt(h^2 + 0.0025^2) =
        // 0.2000056 m from the corner, the path itself 0.19999 m.
        let g = WorldGeometry::new(&corridor());
        let (h, l, k) = (0.19999, 0.0025, std::f64::consts::FRAC_1_SQRT_2);
        let mid = (6.2 + h * k, 0.1 + h * k);
        let (x0, y0, x1, y1) = (mid.0 - l * k, mid.1 + l * k, mid.0 + l * k, mid.1 - l * k);
        let ends = (h * h + l * l).sqrt();
        assert!((g.clearance(x0, y0).0 - ends).abs() < 1e-12);
        assert!((g.clearance(x1, y1).0 - ends).abs() < 1e-12);
        let (d, o) = g.swept_clearance(x0, y0, x1, y1);
        assert!((d - h).abs() < 1e-12, "{d}");
        assert_eq!(g.labels()[o.unwrap() as usize], "box");
        // A path crossing the wall y = 1 has clearance 0; a zero-length path is a point.
        assert_eq!(g.swept_clearance(1.0, 0.9, 1.0, 1.1).0, 0.0);
        assert_eq!(g.swept_clearance(1.0, 0.5, 1.0, 0.5).0, 0.5);
        // Parallel to a wall: the clearance of the ends (0.5 m from y = 1).
        assert_eq!(g.swept_clearance(1.0, 0.5, 2.0, 0.5).0, 0.5);
    }

    /// The fan cast equals `cast` per beam to the bit, from random poses and
    /// from origins on the lines of the box's edges and the walls' corners
    /// (where `nt0 == 0` takes the two-sided loop).
    #[test]
    fn cast_fan_equals_cast_bit_for_bit() {
        use rand::{RngExt, SeedableRng};
        let g = WorldGeometry::new(&corridor());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
        let beams = 360;
        let inc = std::f64::consts::TAU / f64::from(beams);
        let angle_min = -std::f64::consts::PI;
        let angles = (0..beams).map(|i| angle_min + f64::from(i) * inc);
        let dirs = FanDirs {
            cos: angles.clone().map(f64::cos).collect(),
            sin: angles.map(f64::sin).collect(),
        };
        let mut origins = vec![(0.5, 0.1), (5.8, 0.5), (6.2, 0.6), (3.0, 0.1), (0.5, -0.5)];
        for _ in 0..300 {
            origins.push((rng.random_range(0.05..11.95), rng.random_range(-0.95..0.95)));
        }
        let mut scratch = FanScratch::default();
        for (ox, oy) in origins {
            let yaw: f64 = rng.random_range(-4.0..4.0);
            let (c, s) = (yaw.cos(), yaw.sin());
            let mut out = vec![f64::INFINITY; beams as usize];
            g.cast_fan(
                ox,
                oy,
                (c, s),
                yaw + angle_min,
                inc,
                &dirs,
                &mut scratch,
                &mut out,
            );
            for (i, t) in out.iter().enumerate() {
                let (bc, bs) = (dirs.cos[i], dirs.sin[i]);
                let want = g.cast(ox, oy, c * bc - s * bs, s * bc + c * bs);
                assert_eq!(
                    t.to_bits(),
                    want.to_bits(),
                    "origin ({ox}, {oy}) yaw {yaw} beam {i}"
                );
            }
        }
    }

    #[test]
    fn cast_hits_box_then_walls() {
        let g = WorldGeometry::new(&corridor());
        // From (1, 0) along +x: box face x=5.8 at 4.8 m.
        assert!((g.cast(1.0, 0.0, 1.0, 0.0) - 4.8).abs() < 1e-15);
        // From (1, 0.5) along +x: passes above the box (top y=0.1), far wall x=12 at 11 m.
        assert_eq!(g.cast(1.0, 0.5, 1.0, 0.0), 11.0);
        // Along +y: wall y=1 at 1 m; along -x: wall x=0 at 1 m.
        assert_eq!(g.cast(1.0, 0.0, 0.0, 1.0), 1.0);
        assert_eq!(g.cast(1.0, 0.0, -1.0, 0.0), 1.0);
    }
}
