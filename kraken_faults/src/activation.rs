//! When a fault acts: permanent, transient or intermittent.

use std::time::Duration;

use kraken_interfaces::FaultSpec;
use rand::RngExt;

use crate::params::MAX_TIME_S;
use crate::{FaultError, FaultRng};

/// When a fault acts (REQ-FAULT-ACTIVATION: permanent, transient,
/// intermittent), measured from the time it was set.
///
/// * permanent: `duration_s = 0`, active until cleared;
/// * transient: `duration_s > 0`, active on [set, set + duration_s]
///   (end inclusive), then the channel reverts to healthy and records the
///   expiry as its `cleared` time;
/// * intermittent: `period_s > 0`, active while
///   `((t - set) + phase) mod period_s < duty_cycle * period_s`, where
///   `phase` is 0, or with `random_phase` a seeded uniform draw in
///   [0, period_s) made once (at `set_fault_seeded`, or at the first message
///   after a plain `set_fault`). Intermittent and transient combine: the
///   pattern repeats until `duration_s` elapses.
#[derive(Debug, Clone, PartialEq)]
pub struct Activation {
    pub set_at: Duration,
    pub duration: Option<Duration>,
    pub period_s: f64,
    pub duty_cycle: f64,
    pub random_phase: bool,
    /// Phase offset in seconds; `None` until drawn when `random_phase`.
    pub phase_s: Option<f64>,
}

impl Activation {
    /// Validates the activation fields of `spec`, set at `now`.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] for a `duration_s`/`period_s` that is
    /// not finite or outside [0, [`MAX_TIME_S`]] s, or a `duty_cycle` outside
    /// (0, 1] when `period_s > 0`.
    pub fn from_spec(spec: &FaultSpec, now: Duration) -> Result<Self, FaultError> {
        let mode = kraken_interfaces::mode_name(spec.mode).unwrap_or("unknown");
        let bad = |field: &'static str, value: f64, reason: &str| FaultError::InvalidParameter {
            mode,
            field,
            value,
            reason: reason.into(),
        };
        let in_range = |v: f64| v.is_finite() && (0.0..=MAX_TIME_S).contains(&v);
        if !in_range(spec.duration_s) {
            return Err(bad(
                "duration_s",
                spec.duration_s,
                &format!("must be finite and in [0, {MAX_TIME_S}] s (0 = until cleared)"),
            ));
        }
        if !in_range(spec.period_s) {
            return Err(bad(
                "period_s",
                spec.period_s,
                &format!("must be finite and in [0, {MAX_TIME_S}] s (0 = not intermittent)"),
            ));
        }
        if spec.period_s > 0.0 && !(spec.duty_cycle > 0.0 && spec.duty_cycle <= 1.0) {
            return Err(bad(
                "duty_cycle",
                spec.duty_cycle,
                "must be in (0, 1] when period_s > 0",
            ));
        }
        Ok(Self {
            set_at: now,
            duration: (spec.duration_s > 0.0).then(|| Duration::from_secs_f64(spec.duration_s)),
            period_s: spec.period_s,
            duty_cycle: spec.duty_cycle,
            random_phase: spec.random_phase && spec.period_s > 0.0,
            phase_s: if spec.random_phase && spec.period_s > 0.0 {
                None
            } else {
                Some(0.0)
            },
        })
    }
    /// Draws the random phase if it is still undrawn.
    pub fn draw_phase(&mut self, rng: &mut FaultRng) {
        if self.phase_s.is_none() {
            self.phase_s = Some(rng.random_range(0.0..self.period_s));
        }
    }
    /// When a transient fault expires, if it does.
    pub fn expires_at(&self) -> Option<Duration> {
        self.duration.map(|d| self.set_at.saturating_add(d))
    }
    /// True when the transient window has passed at `now`.
    pub fn expired(&self, now: Duration) -> bool {
        self.expires_at().is_some_and(|e| now > e)
    }
    /// True when the fault acts at `now` (an undrawn phase counts as 0).
    pub fn is_active(&self, now: Duration) -> bool {
        if now < self.set_at || self.expired(now) {
            return false;
        }
        if self.period_s <= 0.0 {
            return true;
        }
        let t = (now - self.set_at).as_secs_f64() + self.phase_s.unwrap_or(0.0);
        t.rem_euclid(self.period_s) < self.duty_cycle * self.period_s
    }
}
