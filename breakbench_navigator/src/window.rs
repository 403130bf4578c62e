//! The candidate headings one scan return can constrain: a tight angular
//! window around the beam, so [`crate::Navigator::on_scan`] tests each
//! return against a few candidates instead of all of them.

/// Extra half-width of every window, radians: far above the rounding of the
/// candidate test and of the window's own arithmetic (both below 1e-14 rad),
/// far below a candidate step (at least 0.1 degree = 1.7e-3 rad).
const SLACK_RAD: f64 = 1e-9;

/// The index range `k0..=k1` into the candidates `-n..=n` (angle `i * step`,
/// index `i + n`) that can hold the return at range `r` along the beam angle
/// `theta` (wrapped to `(-pi, pi]`) ahead of the centre (`along > 0`) and
/// inside the swept corridor of half-width `half_width`
/// (`lateral = r |sin(theta - a)| < half_width`); `None` if no candidate can.
///
/// Such a candidate has `|theta - a| < asin(q)`, `q = half_width / r`
/// (`along > 0` keeps it within a quarter turn of the beam, so the
/// difference needs no wrapping: `|theta - a| <= 3 pi / 2` and
/// `2 pi - asin(0.9) > 3 pi / 2`). The window is `asin(q)` bounded from
/// above without a libm call, `asin(q) <= q + q^3 / (6 (1 - q^2))` (the
/// arcsine series' coefficients after the first are at most 1/6), widened by
/// [`SLACK_RAD`] for the rounding of the floating-point test, which may
/// accept a candidate a few ulps outside `asin(q)`. So every candidate the
/// full test accepts is inside: the caller's result is the same to the bit
/// as testing every candidate. Returns at `q >= 0.9` (near the centre; the
/// bound grows steep there) and non-positive ranges get every candidate.
#[inline]
pub(crate) fn candidate_window(
    theta: f64,
    r: f64,
    half_width: f64,
    step: f64,
    n: i32,
) -> Option<(usize, usize)> {
    let q = half_width / r;
    if !(r > 0.0 && q < 0.9) {
        return Some((0, 2 * n as usize));
    }
    let w = q + q * q * q / (6.0 * (1.0 - q * q)) + SLACK_RAD;
    let lo = ceil_i32((theta - w) / step).max(-n);
    let hi = floor_i32((theta + w) / step).min(n);
    (lo <= hi).then(|| ((lo + n) as usize, (hi + n) as usize))
}

/// Lowers each candidate's free distance `free[k]` (candidate direction
/// `(cos[k], sin[k])`) to the distance the disc of half-width `half_width`
/// can travel before the return at `(px, py)` (body frame) enters its swept
/// corridor, where the point is ahead (`along > 0`) and inside the corridor
/// (`lateral < half_width`); others stay (`d` is NaN outside, never taken).
///
/// Branch-free, with a non-short-circuit `&`: the same IEEE operations per
/// candidate as the full test. A function of its own so that the slices
/// are known not to alias (the optimiser vectorises the loop without
/// run-time overlap checks, which cost more than a window's few candidates).
#[inline]
pub(crate) fn relax(
    free: &mut [f64],
    cos: &[f64],
    sin: &[f64],
    (px, py): (f64, f64),
    half_width: f64,
) {
    let hw2 = half_width * half_width;
    for ((f, &c), &s) in free.iter_mut().zip(cos).zip(sin) {
        let along = px * c + py * s;
        let lateral = (py * c - px * s).abs();
        let d = along - (hw2 - lateral * lateral).sqrt();
        let take = (along > 0.0) & (lateral < half_width) & (d < *f);
        *f = if take { d } else { *f };
    }
}

/// `x.floor() as i32` for `|x| < 2^31` by truncation and a correction
/// (`f64::floor` is a libm call on baseline x86-64).
#[inline]
fn floor_i32(x: f64) -> i32 {
    let t = x as i32;
    t - i32::from(f64::from(t) > x)
}

/// `x.ceil() as i32` for `|x| < 2^31`, as [`floor_i32`].
#[inline]
fn ceil_i32(x: f64) -> i32 {
    let t = x as i32;
    t + i32::from(f64::from(t) < x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// Every candidate the floating-point corridor test accepts is inside
    /// the window, over random beams and ranges (many near the corridor's
    /// edge, where the test is decided by rounding) and candidate steps
    /// from 0.1 to 90 degrees.
    #[test]
    fn floor_and_ceil_by_truncation() {
        for x in [-3.5, -3.0, -0.5, -0.0, 0.0, 0.5, 3.0, 3.5, 1e9, -1e9] {
            assert_eq!(floor_i32(x), x.floor() as i32, "{x}");
            assert_eq!(ceil_i32(x), x.ceil() as i32, "{x}");
        }
    }

    #[test]
    fn window_holds_every_accepted_candidate() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut accepted = 0usize;
        for step_deg in [0.1, 1.0, 3.0, 10.0, 45.0, 90.0] {
            let step = f64::to_radians(step_deg);
            let n = (std::f64::consts::FRAC_PI_2 / step + 1e-9).floor() as i32;
            for _ in 0..20_000 {
                let hw = rng.random_range(0.01..1.0);
                // Beam angles as a scan gives them (past pi), wrapped as
                // the navigator wraps them.
                let a_beam = rng.random_range(-std::f64::consts::PI..3.0 * std::f64::consts::PI);
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
                let (px, py) = (r * a_beam.cos(), r * a_beam.sin());
                let window = candidate_window(theta, r, hw, step, n);
                for i in -n..=n {
                    let a = f64::from(i) * step;
                    let (c, s) = (a.cos(), a.sin());
                    let along = px * c + py * s;
                    let lateral = (py * c - px * s).abs();
                    if along > 0.0 && lateral < hw {
                        accepted += 1;
                        let k = (i + n) as usize;
                        assert!(
                            window.is_some_and(|(k0, k1)| k0 <= k && k <= k1),
                            "step {step_deg} deg, theta {theta}, r {r}, hw {hw}: \
                             candidate {i} accepted outside {window:?}"
                        );
                    }
                }
            }
        }
        assert!(accepted > 50_000, "{accepted}");
    }
}
