//! The GNSS-vs-dead-reckoning consistency monitor.
//!
//! Each accepted-by-the-guards fix `g_i` (map frame, m) is paired with the
//! dead-reckoned position `d_i` (odom frame, from the odom-frame filter that
//! never sees GNSS) rotated into the map frame by the alignment yaw `psi`
//! (the map→odom rotation at start): the residual `r_i = g_i - R(psi) d_i`.
//! A constant map→odom offset is constant in `r`; a GNSS track that drifts
//! away from the dead-reckoned one makes `r` move. Over the fixes of the last
//! `window_s`:
//!
//! ```text
//! b  = Σ (t_i - t̄) r_i / Σ (t_i - t̄)²           least-squares slope, m/s
//! D  = b T                                         divergence over the span T, m
//! C  = T² Σ w_i² G_i  +  ΔP_dr  +  σ_psi² (J ΔdR)(J ΔdR)ᵀ
//! k  = sqrt(Dᵀ C⁻¹ D)                              divergence in combined σ
//! ```
//!
//! with `w_i = (t_i - t̄) / Σ (t_j - t̄)²` (so `Σ w_i² G_i` is the covariance
//! of `b` for independent fixes of covariance `G_i`), `ΔP_dr` the growth of
//! the dead-reckoned position covariance over the span (rotated into the map
//! frame; an over-estimate of the covariance of the dead-reckoned increment,
//! so the monitor errs towards accepting), `ΔdR` the dead-reckoned
//! displacement over the span and `J` the 90° rotation (the effect of an
//! alignment error `σ_psi`). Least-squares slope variance: Montgomery, Peck,
//! Vining, *Introduction to Linear Regression Analysis*, eq. 2.15.
//!
//! Hysteresis: accepting → refusing when `k > k_high_sigma`; refusing →
//! accepting once `k < k_low_sigma` held for `reaccept_hold_s` (any `k ≥
//! k_low_sigma` restarts the hold). With fewer than `min_fixes` fixes or a
//! span under `window_s / 2` there is no verdict and the state is kept.

use std::collections::VecDeque;

use nalgebra::{Matrix2, Vector2};
use serde::Serialize;

use crate::config::ConsistencyConfig;

/// The monitor's verdict on GNSS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum MonitorState {
    /// GNSS may be fused (subject to its Mahalanobis gate).
    Accepting,
    /// GNSS is refused ([`crate::RejectReason::ConsistencyMonitor`]).
    Refusing,
}

/// One evaluation of the divergence.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Divergence {
    /// Sim time of the newest fix, ns.
    pub stamp_ns: i64,
    /// `D`, map frame (east, north), m.
    pub d_m: [f64; 2],
    /// Combined σ along `D` (`|D| / k`; the σ of `C` along x when `D = 0`), m.
    pub sigma_m: f64,
    /// `k`, in combined σ.
    pub k_sigma: f64,
    /// Fixes in the window.
    pub fixes: usize,
    /// Span `T` of the window's fixes, s.
    pub span_s: f64,
}

/// A change of [`MonitorState`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Transition {
    /// The new state.
    pub to: MonitorState,
    /// The evaluation that caused it.
    pub divergence: Divergence,
}

#[derive(Debug, Clone, Copy)]
struct Sample {
    t_ns: i64,
    r: Vector2<f64>,
    g: Matrix2<f64>,
    d: Vector2<f64>,
    p_dr: Matrix2<f64>,
}

/// The monitor (see the module docs).
#[derive(Debug, Clone)]
pub struct ConsistencyMonitor {
    cfg: ConsistencyConfig,
    alignment_sigma_rad: f64,
    samples: VecDeque<Sample>,
    state: MonitorState,
    below_since_ns: Option<i64>,
    transitions: u64,
    last: Option<Divergence>,
}

impl ConsistencyMonitor {
    /// A monitor in the accepting state.
    pub fn new(cfg: ConsistencyConfig) -> Self {
        Self {
            cfg,
            alignment_sigma_rad: cfg.alignment_sigma_rad,
            samples: VecDeque::new(),
            state: MonitorState::Accepting,
            below_since_ns: None,
            transitions: 0,
            last: None,
        }
    }

    /// The current verdict.
    pub fn state(&self) -> MonitorState {
        self.state
    }

    /// State changes so far (both directions).
    pub fn transitions(&self) -> u64 {
        self.transitions
    }

    /// The last evaluation, if any had enough fixes.
    pub fn last(&self) -> Option<&Divergence> {
        self.last.as_ref()
    }

    /// Adds a fix at `t_ns`: its map-frame position `g` (m) and covariance
    /// `g_cov` (m²), and the dead-reckoned position `d` (m) and covariance
    /// `p_dr` (m²) already rotated into the map frame. Returns the state
    /// change it caused, if any.
    pub fn push(
        &mut self,
        t_ns: i64,
        g: Vector2<f64>,
        g_cov: Matrix2<f64>,
        d: Vector2<f64>,
        p_dr: Matrix2<f64>,
    ) -> Option<Transition> {
        let window_ns = (self.cfg.window_s * 1e9).round() as i64;
        self.samples.push_back(Sample {
            t_ns,
            r: g - d,
            g: g_cov,
            d,
            p_dr,
        });
        while self
            .samples
            .front()
            .is_some_and(|s| s.t_ns < t_ns - window_ns)
        {
            self.samples.pop_front();
        }
        let div = self.evaluate(t_ns)?;
        self.last = Some(div);
        let k = div.k_sigma;
        let next = match self.state {
            MonitorState::Accepting if k > self.cfg.k_high_sigma => Some(MonitorState::Refusing),
            MonitorState::Accepting => None,
            MonitorState::Refusing if k < self.cfg.k_low_sigma => {
                let since = *self.below_since_ns.get_or_insert(t_ns);
                let hold_ns = (self.cfg.reaccept_hold_s * 1e9).round() as i64;
                (t_ns - since >= hold_ns).then_some(MonitorState::Accepting)
            }
            MonitorState::Refusing => {
                self.below_since_ns = None;
                None
            }
        };
        let to = next?;
        self.state = to;
        self.below_since_ns = None;
        self.transitions += 1;
        Some(Transition {
            to,
            divergence: div,
        })
    }

    fn evaluate(&self, t_ns: i64) -> Option<Divergence> {
        let n = self.samples.len();
        let (first, last) = (self.samples.front()?, self.samples.back()?);
        let span_s = (last.t_ns - first.t_ns) as f64 * 1e-9;
        if n < self.cfg.min_fixes as usize || span_s < 0.5 * self.cfg.window_s {
            return None;
        }
        let t0 = first.t_ns;
        let ts = |s: &Sample| (s.t_ns - t0) as f64 * 1e-9;
        let t_mean = self.samples.iter().map(ts).sum::<f64>() / n as f64;
        let stt: f64 = self.samples.iter().map(|s| (ts(s) - t_mean).powi(2)).sum();
        let mut b = Vector2::zeros();
        let mut cov_b = Matrix2::zeros();
        for s in &self.samples {
            let w = (ts(s) - t_mean) / stt;
            b += w * s.r;
            cov_b += w * w * s.g;
        }
        let d = b * span_s;
        let dp = last.p_dr - first.p_dr;
        let dp = 0.5 * (dp + dp.transpose());
        let disp = last.d - first.d;
        let perp = Vector2::new(-disp.y, disp.x);
        let c = span_s * span_s * cov_b
            + dp
            + self.alignment_sigma_rad.powi(2) * perp * perp.transpose();
        let c_inv = c.try_inverse()?;
        let k2 = (d.transpose() * c_inv * d)[(0, 0)].max(0.0);
        let k = k2.sqrt();
        let sigma_m = if k > 0.0 {
            d.norm() / k
        } else {
            c[(0, 0)].max(0.0).sqrt()
        };
        Some(Divergence {
            stamp_ns: t_ns,
            d_m: [d.x, d.y],
            sigma_m,
            k_sigma: k,
            fixes: n,
            span_s,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ConsistencyConfig {
        ConsistencyConfig {
            enabled: true,
            window_s: 10.0,
            min_fixes: 10,
            k_high_sigma: 4.0,
            k_low_sigma: 2.0,
            reaccept_hold_s: 5.0,
            alignment_sigma_rad: 0.0,
            rollback_on_refusal: false,
        }
    }

    /// Noise-free fixes drifting at rate rho from a dead-reckoned track with
    /// no covariance growth: after a full window D = rho T exactly and
    /// k = rho T / (sigma_g sqrt(12 / n) ...) as the slope formula gives.
    #[test]
    fn full_window_ramp_has_the_least_squares_divergence() {
        let mut m = ConsistencyMonitor::new(cfg());
        let g = Matrix2::identity() * 0.25;
        let rho = 0.2;
        let mut last = None;
        for i in 0..=50 {
            let t = i as f64 * 0.2;
            last = m.push(
                (t * 1e9).round() as i64,
                Vector2::new(t, rho * t),
                g,
                Vector2::new(t, 0.0),
                Matrix2::zeros(),
            );
            if let Some(tr) = last {
                assert_eq!(tr.to, MonitorState::Refusing);
            }
        }
        let d = m.last().unwrap();
        assert_eq!(d.fixes, 51);
        assert!((d.span_s - 10.0).abs() < 1e-12);
        assert!(d.d_m[0].abs() < 1e-12 && (d.d_m[1] - 2.0).abs() < 1e-12);
        // Σ (t_i - t̄)² for 51 equally spaced points over 10 s: n (n²-1) h² / 12.
        let stt: f64 = 51.0 * (51.0 * 51.0 - 1.0) * 0.04 / 12.0;
        let sigma = 10.0 * (0.25 / stt).sqrt();
        assert!(
            (d.sigma_m - sigma).abs() < 1e-12,
            "{} vs {sigma}",
            d.sigma_m
        );
        assert!((d.k_sigma - 2.0 / sigma).abs() < 1e-9);
        assert_eq!(m.state(), MonitorState::Refusing);
        assert_eq!(m.transitions(), 1);
        let _ = last;
    }

    #[test]
    fn too_few_fixes_give_no_verdict() {
        let mut m = ConsistencyMonitor::new(cfg());
        for i in 0..9 {
            let t = i as f64 * 2.0;
            assert!(m
                .push(
                    (t * 1e9) as i64,
                    Vector2::new(0.0, 100.0 * t),
                    Matrix2::identity(),
                    Vector2::zeros(),
                    Matrix2::zeros()
                )
                .is_none());
        }
        assert!(m.last().is_none());
        assert_eq!(m.state(), MonitorState::Accepting);
    }

    /// Refusing, then consistent fixes: re-acceptance only after k stayed
    /// below k_low for the hold time.
    #[test]
    fn reacceptance_waits_for_the_hold() {
        let mut m = ConsistencyMonitor::new(cfg());
        let g = Matrix2::identity() * 0.25;
        let mut events = Vec::new();
        for i in 0..=300 {
            let t = i as f64 * 0.2;
            let off = if t < 20.0 { 0.5 * t } else { 10.0 };
            if let Some(tr) = m.push(
                (t * 1e9).round() as i64,
                Vector2::new(0.0, off),
                g,
                Vector2::zeros(),
                Matrix2::zeros(),
            ) {
                events.push((t, tr.to));
            }
        }
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(events[0].1, MonitorState::Refusing);
        assert_eq!(events[1].1, MonitorState::Accepting);
        // The ramp ends at 20 s; it leaves the 10 s window at 30 s, so k is
        // below k_low from some time in (20, 30] s and the hold adds 5 s.
        assert!(events[1].0 > 25.0 && events[1].0 <= 35.0, "{events:?}");
    }
}
