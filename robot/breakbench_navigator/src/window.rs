//! The candidate headings one scan return can constrain: a tight angular
//! window around the beam, so [`crate::Navigator::on_scan`] tests each
//! return against a few candidates instead of all of them.
//!
//! Why a window is exact: a candidate at angle `a` can hold a return at
//! range `r` along the beam angle `theta` (wrapped to `(-pi, pi]`) ahead of
//! the centre (`along > 0`) and inside the swept corridor of half-width
//! `half_width` (`lateral = r |sin(theta - a)| < half_width`) only if
//! `|theta - a| < asin(q)`, `q = half_width / r` (`along > 0` keeps it within
//! a quarter turn of the beam, so the difference needs no wrapping:
//! `|theta - a| <= 3 pi / 2` and `2 pi - asin(0.9) > 3 pi / 2`). The window
//! bounds `asin(q)` from above without a libm call,
//! `asin(q) <= q + q^3 / (6 (1 - q^2))` (the arcsine series' coefficients
//! after the first are at most 1/6), widened by [`SLACK_RAD`] for the
//! rounding of the floating-point test, which may accept a candidate a few
//! ulps outside `asin(q)`. So every candidate the full test accepts is
//! visited, and the free distances are the same to the bit as testing every
//! candidate. Returns at `q >= 0.9` (near the centre; the bound grows steep
//! there) and non-positive ranges visit every candidate.

/// Extra half-width of every window, radians: far above the rounding of the
/// candidate test and of the window's own arithmetic (both below 1e-14 rad),
/// far below a candidate step (at least 0.1 degree = 1.7e-3 rad).
const SLACK_RAD: f64 = 1e-9;

/// One beam of the scan geometry, with its place among the candidates
/// `i = -n..=n` (angle `i * step`), computed once per scan geometry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Beam {
    /// Direction of the beam angle in `base_scan` (unwrapped, as the scan
    /// gives it).
    pub cos: f64,
    pub sin: f64,
    /// The beam angle wrapped to `(-pi, pi]`, in candidate steps.
    at: f64,
    /// The first candidate above `at` and the last at or below it, clamped
    /// to `-n..=n` (the walks' starts; `up > n` or `down < -n` walk nothing).
    up: i32,
    down: i32,
}

impl Beam {
    /// Beam at `angle` (radians) among the candidates `-n..=n` of spacing
    /// `step`.
    pub(crate) fn new(angle: f64, step: f64, n: i32) -> Self {
        let at = crate::wrap(angle) / step;
        // Saturating; NaN gives 0, and a NaN `at` then walks nothing (the
        // full test accepts nothing from a NaN direction either).
        let f = at.floor() as i32;
        Self {
            cos: angle.cos(),
            sin: angle.sin(),
            at,
            up: f.saturating_add(1).max(-n),
            down: f.min(n),
        }
    }
}

/// Calls `visit(i + n)` for every candidate `i` in `-n..=n` (spacing `step`)
/// that can hold the return at range `r` along `beam` for a corridor of
/// half-width `half_width` (a superset of those the full test accepts, see
/// the module docs): upwards from just above the beam, then downwards from
/// it, each while within the window.
#[inline]
pub(crate) fn walk(
    beam: &Beam,
    r: f64,
    half_width: f64,
    step: f64,
    n: i32,
    mut visit: impl FnMut(usize),
) {
    let q = half_width / r;
    if !(r > 0.0 && q < 0.9) {
        (0..=2 * n as usize).for_each(visit);
        return;
    }
    let w = (q + q * q * q / (6.0 * (1.0 - q * q)) + SLACK_RAD) / step;
    let (lo, hi) = (beam.at - w, beam.at + w);
    let mut i = beam.up;
    while i <= n && f64::from(i) <= hi {
        visit((i + n) as usize);
        i += 1;
    }
    let mut i = beam.down;
    while i >= -n && f64::from(i) >= lo {
        visit((i + n) as usize);
        i -= 1;
    }
}

/// Lowers each candidate's free distance `free[k]` (candidate direction
/// `cand[k] = [cos, sin]`, `k = i + n`) to the distance the disc of
/// half-width `half_width` can travel before the return at range `r` along
/// `beam` enters its swept corridor, where the point is ahead
/// (`along > 0`) and inside the corridor (`lateral < half_width`), for the
/// candidates of the return's window ([`walk`]).
///
/// The same IEEE operations per candidate as the full test. Small windows
/// (zero to three candidates) are why it is a scalar walk: a vectorised
/// loop's setup costs more than the candidates themselves.
#[inline]
pub(crate) fn relax(
    free: &mut [f64],
    cand: &[[f64; 2]],
    beam: &Beam,
    r: f64,
    half_width: f64,
    (step, n): (f64, i32),
) {
    assert_eq!(free.len(), cand.len());
    let (px, py) = (r * beam.cos, r * beam.sin);
    let hw2 = half_width * half_width;
    walk(beam, r, half_width, step, n, |k| {
        let [c, s] = cand[k];
        let along = px * c + py * s;
        let lateral = (py * c - px * s).abs();
        let d = along - (hw2 - lateral * lateral).sqrt();
        if along > 0.0 && lateral < half_width && d < free[k] {
            free[k] = d;
        }
    });
}

/// The least `f32` whose value is `>= x`, so that for every `f32` `r`,
/// `r >= least_f32_at_least(x)` is `f64::from(r) >= x` (both false for a
/// NaN `r` or `x`): one `f32` comparison instead of a conversion and an
/// `f64` comparison per beam.
///
/// `x as f32` rounds to nearest, so it is within half a spacing of `x`:
/// if it is below `x`, the next `f32` up is the least at or above it; if
/// not, the next `f32` down is below `x`.
pub(crate) fn least_f32_at_least(x: f64) -> f32 {
    let t = x as f32;
    if f64::from(t) < x {
        t.next_up()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// `r >= least_f32_at_least(x)` is `f64::from(r) >= x` for ranges and
    /// thresholds around every kind of rounding, the binade edges, zero,
    /// the f32 limits, infinities and NaN.
    #[test]
    fn f32_threshold_equals_the_f64_comparison() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            2.0,
            0.5,
            1.7,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        xs.extend([
            f64::NAN,
            f64::from(f32::MAX),
            f64::from(f32::MAX) * 1.0000001,
            1e300,
        ]);
        xs.extend([f64::from(f32::MIN_POSITIVE), 1e-50, -1.7]);
        for _ in 0..2000 {
            let x: f64 = rng.random_range(0.0..20.0);
            xs.push(x);
            // Exactly on, and one f64 ulp around, an f32 value.
            let f = f64::from(x as f32);
            xs.extend([f, f.next_up(), f.next_down()]);
        }
        for &x in &xs {
            let t = least_f32_at_least(x);
            let near = x as f32;
            let mut rs = vec![
                t,
                t.next_up(),
                t.next_down(),
                near,
                near.next_up(),
                near.next_down(),
            ];
            rs.extend([
                0.0,
                -0.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
                f32::MAX,
            ]);
            for r in rs {
                assert_eq!(r >= t, f64::from(r) >= x, "r {r:e}, x {x:e}, t {t:e}");
            }
        }
    }

    /// Every candidate the floating-point corridor test accepts is visited
    /// (once), over random beams and ranges (many near the corridor's edge,
    /// where the test is decided by rounding) and candidate steps from 0.1
    /// to 90 degrees.
    #[test]
    fn walk_visits_every_accepted_candidate() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut accepted = 0usize;
        for step_deg in [0.1, 1.0, 3.0, 10.0, 45.0, 90.0] {
            let step = f64::to_radians(step_deg);
            let n = (std::f64::consts::FRAC_PI_2 / step + 1e-9).floor() as i32;
            for _ in 0..20_000 {
                let hw = rng.random_range(0.01..1.0);
                // Beam angles as a scan gives them (past pi).
                let a_beam = rng.random_range(-std::f64::consts::PI..3.0 * std::f64::consts::PI);
                let beam = Beam::new(a_beam, step, n);
                let theta = crate::wrap(a_beam);
                let i_near = ((theta / step).round() as i32).clamp(-n, n);
                // Half the time, a range that puts the return exactly on the
                // corridor edge of the nearest candidate (up to rounding).
                let r = if rng.random_range(0.0..1.0) < 0.5 {
                    let s = (theta - f64::from(i_near) * step).sin().abs();
                    if s > 1e-6 {
                        hw / s
                    } else {
                        rng.random_range(0.01..20.0)
                    }
                } else {
                    rng.random_range(0.01..20.0)
                };
                let mut visited = vec![0u32; (2 * n + 1) as usize];
                walk(&beam, r, hw, step, n, |k| visited[k] += 1);
                assert!(visited.iter().all(|&v| v <= 1), "visited twice");
                let (px, py) = (r * beam.cos, r * beam.sin);
                for i in -n..=n {
                    let a = f64::from(i) * step;
                    let (c, s) = (a.cos(), a.sin());
                    let along = px * c + py * s;
                    let lateral = (py * c - px * s).abs();
                    if along > 0.0 && lateral < hw {
                        accepted += 1;
                        assert!(
                            visited[(i + n) as usize] == 1,
                            "step {step_deg} deg, theta {theta}, r {r}, hw {hw}: \
                             candidate {i} accepted outside the window"
                        );
                    }
                }
            }
        }
        assert!(accepted > 50_000, "{accepted}");
    }
}
