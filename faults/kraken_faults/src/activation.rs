//! When a fault acts: permanent, transient or intermittent.

use std::time::Duration;

use kraken_interfaces::FaultSpec;
use rand::RngExt;
use serde::{Deserialize, Serialize};

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
    /// Which of the messages arriving in the time window are faulted
    /// (REQ-FAULT-MESSAGE-WINDOW); the default faults every one.
    pub messages: MessageWindow,
    /// Messages seen so far inside the time window ([`Activation::admit`]).
    pub window_messages: u64,
}

/// A fault window by message count (REQ-FAULT-MESSAGE-WINDOW): of the
/// messages that arrive while the fault's time window is active (counted
/// from 0 at the set time), the first `skip` pass; after them every
/// `every`-th message (0 or 1: each one) is faulted, at most `count` of
/// them (0: no limit). Exact, whatever the message rate: `{skip: k - 1,
/// count: 1}` is the k-th message, `{count: n}` the next n, `{every: n}`
/// every n-th.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageWindow {
    /// Messages passed unfaulted first.
    pub skip: u32,
    /// Faulted messages at most; 0 = no limit.
    pub count: u32,
    /// Only every `every`-th message after the skipped ones; 0 or 1 = each.
    pub every: u32,
}

impl MessageWindow {
    /// From `FaultSpec`'s `message_skip`, `message_count`, `message_every`.
    pub fn from_spec(spec: &FaultSpec) -> Self {
        Self {
            skip: spec.message_skip,
            count: spec.message_count,
            every: spec.message_every,
        }
    }
    /// Whether the window faults the message of (0-based) index `i` among
    /// those that arrived in the time window.
    pub fn selects(&self, i: u64) -> bool {
        let Some(j) = i.checked_sub(u64::from(self.skip)) else {
            return false;
        };
        let n = u64::from(self.every.max(1));
        if (j + 1) % n != 0 {
            return false;
        }
        self.count == 0 || (j + 1) / n <= u64::from(self.count)
    }
    /// Whether no message from index `i` on is faulted any more.
    pub fn exhausted(&self, i: u64) -> bool {
        self.count != 0
            && i >= u64::from(self.skip) + u64::from(self.count) * u64::from(self.every.max(1))
    }
    /// True for the default window (every message).
    pub fn is_all(&self) -> bool {
        self.skip == 0 && self.count == 0 && self.every <= 1
    }
}

impl Activation {
    /// Validates the activation fields of `spec`, set at `now`.
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] for a `duration_s`/`period_s` that is
    /// not finite or outside [0, [`MAX_TIME_S`]] s, a `duty_cycle` outside
    /// (0, 1] when `period_s > 0`, a `duty_cycle` other than 0 or a
    /// `random_phase` when `period_s = 0` (unread: `FaultSpec.msg` says an
    /// unused parameter stays 0; a duty cycle without a period would fault
    /// every message).
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
        if spec.period_s == 0.0 && (spec.duty_cycle != 0.0 || spec.random_phase) {
            let (field, value) = if spec.duty_cycle != 0.0 {
                ("duty_cycle", spec.duty_cycle)
            } else {
                ("random_phase", 1.0)
            };
            return Err(bad(
                field,
                value,
                "is read only by an intermittent fault (period_s > 0) and must be 0 (false) \
                 without one (FaultSpec.msg: a parameter the mode does not use is left at 0)",
            ));
        }
        Ok(Self {
            messages: MessageWindow::from_spec(spec),
            window_messages: 0,
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
    /// Draws the random phase if it is still undrawn. Called for every
    /// message: the check is inlined into the channel's loop, the draw (once
    /// per fault) is not.
    #[inline]
    pub fn draw_phase(&mut self, rng: &mut FaultRng) {
        if self.phase_s.is_none() {
            self.draw_phase_now(rng);
        }
    }
    #[cold]
    fn draw_phase_now(&mut self, rng: &mut FaultRng) {
        self.phase_s = Some(rng.random_range(0.0..self.period_s));
    }
    /// When a transient fault expires, if it does.
    pub fn expires_at(&self) -> Option<Duration> {
        self.duration.map(|d| self.set_at.saturating_add(d))
    }
    /// True when the transient window has passed at `now`.
    pub fn expired(&self, now: Duration) -> bool {
        self.expires_at().is_some_and(|e| now > e)
    }
    /// True when the fault acts at `now` (an undrawn phase counts as 0):
    /// in its time window, and its message window not used up.
    pub fn is_active(&self, now: Duration) -> bool {
        self.in_time_window(now) && !self.messages.exhausted(self.window_messages)
    }

    /// True when the message window admits no message any more (its
    /// `message_count` is used up), whatever the time.
    pub fn messages_exhausted(&self) -> bool {
        self.messages.exhausted(self.window_messages)
    }

    /// Whether the fault acts on one message arriving at `now`: in the time
    /// window, counted there, and selected by the message window
    /// ([`MessageWindow::selects`]). Call once per message.
    pub fn admit(&mut self, now: Duration) -> bool {
        if !self.in_time_window(now) {
            return false;
        }
        let i = self.window_messages;
        self.window_messages = i.saturating_add(1);
        self.messages.selects(i)
    }

    /// True when `now` is inside the time window (set, duration, period).
    pub fn in_time_window(&self, now: Duration) -> bool {
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
