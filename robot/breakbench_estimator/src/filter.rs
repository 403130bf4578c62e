//! The EKF core: the 5-state constant-turn-rate-and-velocity (CTRV) model, its
//! prediction and the linear measurement update with the innovation and its
//! Mahalanobis distance.
//!
//! State `x = [x, y, yaw, v, yaw_rate]` (m, m, rad, m/s, rad/s), REP-103 units,
//! position and yaw in the filter's world frame (`odom` or `map`, REP-105),
//! `v` and `yaw_rate` in `base_link` (forward speed and rotation about +z).
//!
//! Model and formulas: Thrun, Burgard, Fox, *Probabilistic Robotics* (2005),
//! Table 3.3 (EKF) and eq. 5.9 (the exact motion of a unicycle with constant
//! `v` and `yaw_rate`); the covariance update `P - K S Kᵀ` (what the Joseph
//! form reduces to with the optimal gain) follows Bar-Shalom, Li,
//! Kirubarajan, *Estimation with Applications to Tracking and Navigation*
//! (2001), ch. 5.

use nalgebra::{SMatrix, SVector};

/// Number of states.
pub const N: usize = 5;
/// Index of `x` (m).
pub const IX: usize = 0;
/// Index of `y` (m).
pub const IY: usize = 1;
/// Index of `yaw` (rad).
pub const IYAW: usize = 2;
/// Index of `v` (m/s).
pub const IV: usize = 3;
/// Index of `yaw_rate` (rad/s).
pub const IW: usize = 4;

/// State vector, shape 5.
pub type State = SVector<f64, N>;
/// State covariance, shape 5×5, SI units squared.
pub type Cov = SMatrix<f64, N, N>;

/// `sin(a)/a` and its derivative, with their Taylor series for |a| < 1e-2
/// (the next terms, `a⁸/9!` and `a⁷/45360`, are below 3e-22 and 3e-19 there:
/// under half an ulp of each value): one `sin_cos` fewer per prediction at
/// the angles of a 100 Hz IMU (REQ-EST-PERF).
fn sinc(a: f64) -> (f64, f64) {
    if a.abs() < 1e-2 {
        let a2 = a * a;
        (
            1.0 - a2 / 6.0 * (1.0 - a2 / 20.0 * (1.0 - a2 / 42.0)),
            -a / 3.0 * (1.0 - a2 / 10.0 * (1.0 - a2 / 28.0)),
        )
    } else {
        let (s, c) = a.sin_cos();
        (s / a, (a * c - s) / (a * a))
    }
}

/// Wraps an angle to (-pi, pi]; an angle already in it is returned as it is.
pub fn wrap_angle(a: f64) -> f64 {
    if a > -std::f64::consts::PI && a <= std::f64::consts::PI {
        return a;
    }
    let w = a.rem_euclid(std::f64::consts::TAU);
    if w > std::f64::consts::PI {
        w - std::f64::consts::TAU
    } else {
        w
    }
}

/// Process noise spectral densities: `Q = diag(q) * dt` per prediction step
/// (a continuous white-noise model integrated to first order).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessNoise {
    /// q of x and of y, m²/s, in [0, 100].
    pub xy_m2_s: f64,
    /// q of yaw, rad²/s, in [0, 100].
    pub yaw_rad2_s: f64,
    /// q of v (white acceleration), (m/s)²/s = m²/s³, in [0, 1000].
    pub v_m2_s3: f64,
    /// q of yaw_rate (white angular acceleration), rad²/s³, in [0, 1000].
    pub yaw_rate_rad2_s3: f64,
}

/// The result of one measurement update (or of an evaluation that was not
/// fused): innovation `nu = z - H x`, its covariance `S = H P Hᵀ + R` and the
/// squared Mahalanobis distance `d2 = nuᵀ S⁻¹ nu`. Only the first `dim`
/// entries (and the `dim`×`dim` block of `s`) are meaningful.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Innovation {
    /// Sim time of the update, ns.
    pub stamp_ns: i64,
    /// Measurement dimension (1 or 2).
    pub dim: usize,
    /// Innovation, SI units of the measurement.
    pub nu: [f64; 2],
    /// Innovation covariance, row-major, SI units squared.
    pub s: [[f64; 2]; 2],
    /// Squared Mahalanobis distance (dimensionless).
    pub d2: f64,
    /// The χ² gate threshold it was compared with (`inf` with the gate off).
    pub threshold: f64,
    /// Whether the measurement was fused.
    pub fused: bool,
}

/// A 5-state EKF (state, covariance and the time the state refers to).
#[derive(Debug, Clone, PartialEq)]
pub struct Ekf {
    /// State, see the module docs.
    pub x: State,
    /// Covariance.
    pub p: Cov,
    /// Sim time of `x`, ns.
    pub t_ns: i64,
}

impl Ekf {
    /// A filter at `t_ns` with state `x` and covariance `p`.
    pub fn new(x: State, p: Cov, t_ns: i64) -> Self {
        Self { x, p, t_ns }
    }

    /// Propagates the state from `self.t_ns` to `t_ns` with the CTRV model:
    ///
    /// ```text
    /// yaw' = yaw + w dt
    /// x'   = x + v/w (sin yaw' - sin yaw)      y' = y + v/w (cos yaw - cos yaw')
    /// v' = v, w' = w
    /// ```
    ///
    /// computed as `x' = x + v dt sinc(w dt/2) cos(yaw + w dt/2)` (same for
    /// `y` with `sin`), which is the same motion without cancellation at small
    /// `w` and exact at `w = 0`; and `P' = F P Fᵀ + Q dt` with `F` the
    /// Jacobian of that step.
    /// A `t_ns` at or before the filter time does nothing (the caller's time
    /// rules decide what to do with older data).
    pub fn predict(&mut self, t_ns: i64, q: &ProcessNoise) {
        if t_ns <= self.t_ns {
            return;
        }
        let dt = (t_ns - self.t_ns) as f64 * 1e-9;
        let (yaw, v, w) = (self.x[IYAW], self.x[IV], self.x[IW]);
        let yaw1 = yaw + w * dt;
        // sin(yaw1) - sin(yaw) = 2 cos(ym) sin(a) with a = w dt / 2: the
        // exact CTRV step without the cancellation of v/w (..) at small w.
        let a = 0.5 * w * dt;
        let ym = yaw + a;
        let (s, c) = ym.sin_cos();
        let (sc, dsc) = sinc(a);
        let dx = v * dt * sc * c;
        let dy = v * dt * sc * s;
        // F = I except for these entries (the Jacobian of the step):
        //   F[x, yaw] = -dy, F[x, v] = fxv, F[x, w] = fxw,
        //   F[y, yaw] =  dx, F[y, v] = fyv, F[y, w] = fyw, F[yaw, w] = dt.
        let fxv = dt * sc * c;
        let fyv = dt * sc * s;
        let fxw = v * dt * 0.5 * dt * (dsc * c - sc * s);
        let fyw = v * dt * 0.5 * dt * (dsc * s + sc * c);
        self.x[IX] += dx;
        self.x[IY] += dy;
        self.x[IYAW] = wrap_angle(yaw1);
        // P' = F P Fᵀ + Q dt with F's sparsity (REQ-EST-PERF): rows x, y
        // and yaw of M = F P are P's plus multiples of rows yaw, v and w
        // (rows v and w are P's); then P' = M Fᵀ, of which only the upper
        // triangle is computed (columns x, y and yaw get multiples of M's
        // columns yaw, v and w) and mirrored: P' is symmetric by
        // construction. 60 multiplications in place of a dense product's 250.
        let p = &mut self.p;
        for j in 0..N {
            let (pyaw, pv, pw) = (p[(IYAW, j)], p[(IV, j)], p[(IW, j)]);
            p[(IX, j)] += -dy * pyaw + fxv * pv + fxw * pw;
            p[(IY, j)] += dx * pyaw + fyv * pv + fyw * pw;
            p[(IYAW, j)] += dt * pw;
        }
        // Column x: row x; column y: rows x, y; column yaw: rows x, y, yaw
        // (each uses the row's M entries in columns yaw, v and w, which the
        // updates of columns x and y do not change).
        for i in 0..=IYAW {
            let (myaw, mv, mw) = (p[(i, IYAW)], p[(i, IV)], p[(i, IW)]);
            if i == IX {
                p[(i, IX)] += -dy * myaw + fxv * mv + fxw * mw;
            }
            if i <= IY {
                p[(i, IY)] += dx * myaw + fyv * mv + fyw * mw;
            }
            p[(i, IYAW)] += dt * mw;
        }
        p[(IX, IX)] += q.xy_m2_s * dt;
        p[(IY, IY)] += q.xy_m2_s * dt;
        p[(IYAW, IYAW)] += q.yaw_rad2_s * dt;
        p[(IV, IV)] += q.v_m2_s3 * dt;
        p[(IW, IW)] += q.yaw_rate_rad2_s3 * dt;
        for i in 0..N {
            for j in i + 1..N {
                p[(j, i)] = p[(i, j)];
            }
        }
        self.t_ns = t_ns;
    }

    /// The innovation of the measurement of the state components `idx`,
    /// `z = x[idx] + r`, `r ~ N(0, R)` (the linear measurement whose `H`
    /// has a single 1 per row, at column `idx[i]`: every measurement of the
    /// estimator is of this form), at the current state, without fusing it
    /// (`fused = false`, `threshold = inf`), with what [`Ekf::fuse`] needs to
    /// fuse it: `A = P Hᵀ` (the columns `idx` of `P`, no multiplication),
    /// `S = H A + R` (rows `idx` of `A`, plus `R`) and `S⁻¹`. `None` when `S`
    /// is not invertible.
    pub fn innovation<const D: usize>(
        &self,
        idx: [usize; D],
        z: &SVector<f64, D>,
        r: &SMatrix<f64, D, D>,
    ) -> Option<Pending<D>> {
        let nu = SVector::<f64, D>::from_fn(|i, _| z[i] - self.x[idx[i]]);
        let a = SMatrix::<f64, N, D>::from_fn(|i, j| self.p[(i, idx[j])]);
        let s = SMatrix::<f64, D, D>::from_fn(|i, j| a[(idx[i], j)] + r[(i, j)]);
        let s_inv = s.try_inverse()?;
        let d2 = (nu.transpose() * s_inv * nu)[(0, 0)];
        let mut inn = Innovation {
            stamp_ns: self.t_ns,
            dim: D,
            nu: [0.0; 2],
            s: [[0.0; 2]; 2],
            d2,
            threshold: f64::INFINITY,
            fused: false,
        };
        for i in 0..D.min(2) {
            inn.nu[i] = nu[i];
            for j in 0..D.min(2) {
                inn.s[i][j] = s[(i, j)];
            }
        }
        Some(Pending {
            innovation: inn,
            nu,
            a,
            s_inv,
        })
    }

    /// Fuses a measurement whose innovation `m` was computed by
    /// [`Ekf::innovation`] on this filter in its current state: the Kalman
    /// gain `K = A S⁻¹`, `x += K nu` and `P -= K Aᵀ` (`= K S Kᵀ`),
    /// on the upper triangle, mirrored. Expanded, the Joseph form `(I - K H) P (I - K H)ᵀ + K R
    /// Kᵀ` is `P - K Aᵀ - A Kᵀ + K S Kᵀ`, and with this (optimal) gain `K S =
    /// A`, so it is exactly `P - K Aᵀ` (Bar-Shalom, Li, Kirubarajan 2001,
    /// ch. 5); `O(N² D)` multiplications in place of the Joseph product's
    /// `O(N³)` (REQ-EST-PERF).
    pub fn fuse<const D: usize>(&mut self, m: &Pending<D>) {
        let k = m.a * m.s_inv;
        self.x += k * m.nu;
        self.x[IYAW] = wrap_angle(self.x[IYAW]);
        // P - K Aᵀ on the upper triangle, mirrored (both terms are
        // symmetric: K Aᵀ = K S Kᵀ).
        for i in 0..N {
            for j in i..N {
                let mut d = 0.0;
                for l in 0..D {
                    d += k[(i, l)] * m.a[(j, l)];
                }
                let e = self.p[(i, j)] - d;
                self.p[(i, j)] = e;
                self.p[(j, i)] = e;
            }
        }
    }

    /// [`Ekf::innovation`] then [`Ekf::fuse`]: fuses the measurement of the
    /// state components `idx`. Returns `false` (and changes nothing) when `S`
    /// is not invertible.
    pub fn update<const D: usize>(
        &mut self,
        idx: [usize; D],
        z: &SVector<f64, D>,
        r: &SMatrix<f64, D, D>,
    ) -> bool {
        match self.innovation(idx, z, r) {
            Some(m) => {
                self.fuse(&m);
                true
            }
            None => false,
        }
    }
}

/// A measurement's innovation and what fusing it needs (see
/// [`Ekf::innovation`]); valid for the filter and state it was computed on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pending<const D: usize> {
    /// The innovation, its covariance and Mahalanobis distance.
    pub innovation: Innovation,
    nu: SVector<f64, D>,
    a: SMatrix<f64, N, D>,
    s_inv: SMatrix<f64, D, D>,
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q0: ProcessNoise = ProcessNoise {
        xy_m2_s: 0.0,
        yaw_rad2_s: 0.0,
        v_m2_s3: 0.0,
        yaw_rate_rad2_s3: 0.0,
    };

    #[test]
    fn wrap_angle_range() {
        assert_eq!(wrap_angle(0.0), 0.0);
        assert!((wrap_angle(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
        assert!((wrap_angle(-0.5 - std::f64::consts::TAU) + 0.5).abs() < 1e-12);
    }

    #[test]
    fn ctrv_quarter_circle_is_exact() {
        // v = 1 m/s, w = pi/2 rad/s for 1 s: a quarter of a circle of radius
        // 2/pi m from (0, 0) heading +x ends at (2/pi, 2/pi) heading +y.
        let x = State::from([0.0, 0.0, 0.0, 1.0, std::f64::consts::FRAC_PI_2]);
        let mut f = Ekf::new(x, Cov::zeros(), 0);
        f.predict(1_000_000_000, &Q0);
        let r = 2.0 / std::f64::consts::PI;
        assert!((f.x[IX] - r).abs() < 1e-12, "{}", f.x[IX]);
        assert!((f.x[IY] - r).abs() < 1e-12, "{}", f.x[IY]);
        assert!((f.x[IYAW] - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    }

    /// The analytic Jacobian equals central finite differences of the motion
    /// model, in the turning and in the straight branch.
    #[test]
    fn jacobian_matches_finite_differences() {
        for w in [0.7, 0.0] {
            let x0 = State::from([1.0, -2.0, 0.4, 1.3, w]);
            let dt_ns = 200_000_000;
            let mut base = Ekf::new(x0, Cov::identity(), 0);
            base.predict(dt_ns, &Q0);
            // P' = F I Fᵀ = F Fᵀ, so recover F by finite differences instead and
            // compare F Fᵀ.
            let mut fd = Cov::zeros();
            for j in 0..N {
                let h = 1e-6;
                let mut xp = x0;
                xp[j] += h;
                let mut xm = x0;
                xm[j] -= h;
                let mut a = Ekf::new(xp, Cov::zeros(), 0);
                a.predict(dt_ns, &Q0);
                let mut b = Ekf::new(xm, Cov::zeros(), 0);
                b.predict(dt_ns, &Q0);
                let mut col = (a.x - b.x) / (2.0 * h);
                col[IYAW] = wrap_angle(a.x[IYAW] - b.x[IYAW]) / (2.0 * h);
                fd.set_column(j, &col);
            }
            let fft = fd * fd.transpose();
            let err = (fft - base.p).abs().max();
            assert!(err < 1e-6, "w = {w}: |F Fᵀ - P'| = {err}");
        }
    }

    /// A full, correlated covariance (symmetric positive definite: `M Mᵀ + I`).
    fn full_p() -> Cov {
        let m = Cov::from_fn(|i, j| ((3 * i + 7 * j) % 11) as f64 * 0.1 - 0.4);
        m * m.transpose() + Cov::identity()
    }

    /// The sparse propagation equals the dense `F P Fᵀ + Q dt` with `F` from
    /// finite differences, on a full covariance.
    #[test]
    fn sparse_propagation_equals_the_dense_product() {
        let q = ProcessNoise {
            xy_m2_s: 0.01,
            yaw_rad2_s: 0.02,
            v_m2_s3: 0.03,
            yaw_rate_rad2_s3: 0.04,
        };
        for w in [0.7, 0.0] {
            let x0 = State::from([1.0, -2.0, 0.4, 1.3, w]);
            let dt_ns = 200_000_000;
            let mut f = Ekf::new(x0, full_p(), 0);
            f.predict(dt_ns, &q);
            let mut fd = Cov::zeros();
            for j in 0..N {
                let h = 1e-6;
                let (mut xp, mut xm) = (x0, x0);
                xp[j] += h;
                xm[j] -= h;
                let mut a = Ekf::new(xp, Cov::zeros(), 0);
                a.predict(dt_ns, &Q0);
                let mut b = Ekf::new(xm, Cov::zeros(), 0);
                b.predict(dt_ns, &Q0);
                let mut col = (a.x - b.x) / (2.0 * h);
                col[IYAW] = wrap_angle(a.x[IYAW] - b.x[IYAW]) / (2.0 * h);
                fd.set_column(j, &col);
            }
            let qd =
                Cov::from_diagonal(&SVector::<f64, N>::from([0.01, 0.01, 0.02, 0.03, 0.04])) * 0.2;
            let dense = fd * full_p() * fd.transpose() + qd;
            let err = (dense - f.p).abs().max();
            assert!(err < 1e-7, "w = {w}: |F P Fᵀ + Q dt - P'| = {err}");
        }
    }

    /// The update's `P - K Aᵀ` equals the Joseph form on a full covariance,
    /// for a 1-D and a 2-D measurement.
    #[test]
    fn update_equals_the_joseph_form() {
        let x0 = State::from([1.0, -2.0, 0.4, 1.3, 0.2]);
        let mut f = Ekf::new(x0, full_p(), 0);
        let h = SMatrix::<f64, 2, N>::from_row_slice(&[
            0.0, 0.0, 0.0, 1.0, 0.0, //
            0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
        let r = SMatrix::<f64, 2, 2>::from_row_slice(&[0.04, 0.01, 0.01, 0.09]);
        let z = SVector::<f64, 2>::from([1.5, 0.1]);
        let p = f.p;
        let k = p * h.transpose() * (h * p * h.transpose() + r).try_inverse().unwrap();
        let ikh = Cov::identity() - k * h;
        let joseph = ikh * p * ikh.transpose() + k * r * k.transpose();
        assert!(f.update([IV, IW], &z, &r));
        let err = (joseph - f.p).abs().max();
        assert!(err < 1e-12, "|Joseph - P'| = {err}");
        assert!((f.x - (x0 + k * (z - h * x0))).abs().max() < 1e-12);
        let h1 = SMatrix::<f64, 1, N>::from_row_slice(&[1.0, 0.0, 0.0, 0.0, 0.0]);
        let r1 = SMatrix::<f64, 1, 1>::from([[0.25]]);
        let p = f.p;
        let k = p * h1.transpose() * (h1 * p * h1.transpose() + r1).try_inverse().unwrap();
        let ikh = Cov::identity() - k * h1;
        let joseph = ikh * p * ikh.transpose() + k * r1 * k.transpose();
        assert!(f.update([IX], &SVector::<f64, 1>::from([2.0]), &r1));
        assert!((joseph - f.p).abs().max() < 1e-12);
    }

    /// The series branch of `sinc` equals `sin(a)/a` to 2 ulps just inside
    /// its bound (the derivative to 1e-9 relative where the closed form
    /// `(a cos a - sin a)/a²` is still accurate: it loses `3 eps / a²` to
    /// cancellation, 1e-11 at a = 0.005, all digits below 1e-4).
    #[test]
    fn sinc_series_matches_the_closed_form() {
        for a in [0.0099_f64, -0.0099, 0.005, 1e-5] {
            let (sc, dsc) = sinc(a);
            let (s, c) = a.sin_cos();
            assert!(
                (sc - s / a).abs() <= 2.0 * f64::EPSILON,
                "a = {a}: {sc} vs {}",
                s / a
            );
            if a.abs() >= 0.005 {
                let d = (a * c - s) / (a * a);
                assert!((dsc - d).abs() <= 1e-9 * d.abs(), "a = {a}: {dsc} vs {d}");
            }
        }
        assert_eq!(sinc(0.0), (1.0, 0.0));
    }

    /// Prediction and fusion keep `P` exactly symmetric.
    #[test]
    fn covariance_stays_symmetric() {
        let q = ProcessNoise {
            xy_m2_s: 0.01,
            yaw_rad2_s: 0.02,
            v_m2_s3: 0.03,
            yaw_rate_rad2_s3: 0.04,
        };
        let mut f = Ekf::new(State::from([1.0, -2.0, 0.4, 1.3, 0.7]), full_p(), 0);
        for k in 1..=50 {
            f.predict(k * 10_000_000, &q);
            let r = SMatrix::<f64, 2, 2>::from_row_slice(&[0.04, 0.01, 0.01, 0.09]);
            assert!(f.update([IV, IW], &SVector::<f64, 2>::from([1.2, 0.6]), &r));
            assert_eq!(f.p, f.p.transpose(), "step {k}");
        }
    }

    #[test]
    fn update_with_known_numbers() {
        // Scalar case on x: P = 4, R = 1, z = 3, x = 0: K = 0.8, x = 2.4,
        // P = 0.8, S = 5, d2 = 9/5.
        let mut p = Cov::identity();
        p[(IX, IX)] = 4.0;
        let mut f = Ekf::new(State::zeros(), p, 0);
        let z = SVector::<f64, 1>::from([3.0]);
        let r = SMatrix::<f64, 1, 1>::from([[1.0]]);
        let inn = f.innovation([IX], &z, &r).unwrap().innovation;
        assert!((inn.d2 - 1.8).abs() < 1e-15);
        assert!((inn.s[0][0] - 5.0).abs() < 1e-15);
        assert!(f.update([IX], &z, &r));
        assert!((f.x[IX] - 2.4).abs() < 1e-15);
        assert!((f.p[(IX, IX)] - 0.8).abs() < 1e-15);
        assert_eq!(f.p[(IY, IY)], 1.0);
    }
}
