//! A fault schedule: which fault each channel carries when, for any host that
//! steps an [`Injector`] on a clock (the in-process campaign run, the kraken
//! scenario runner).
//!
//! Each entry sets a [`FaultSpec`] at `set_at` and, optionally, clears it at
//! `clear_at`. A transient fault (`FaultSpec::duration_s > 0`) also ends on
//! its own at `set_at + duration_s` (see [`crate::Activation`]), so an entry
//! can say "set at t, for d seconds" or "set at t, cleared at t'".

use std::time::Duration;

use kraken_interfaces::FaultSpec;

use crate::{FaultError, Injector};

/// One scheduled fault.
#[derive(Debug, Clone, PartialEq)]
pub struct ScheduledFault {
    /// The fault, on channel `spec.channel`.
    pub spec: FaultSpec,
    /// When it is set (clock time of the host).
    pub set_at: Duration,
    /// When it is cleared, if before the run ends (must not be before `set_at`).
    pub clear_at: Option<Duration>,
}

/// One action of a schedule for a host that drives a remote injector (the
/// kraken scenario runner calls the `fault_injector` node's services), in
/// the order [`FaultSchedule::apply_due`] applies them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScheduleEvent {
    /// Clear the faults of these entries (indices into
    /// [`FaultSchedule::entries`]) at `at`.
    Clear { at: Duration, entries: Vec<usize> },
    /// Set entry `index` at `at`.
    Set { at: Duration, index: usize },
}

impl ScheduleEvent {
    /// When the event is due.
    pub fn at(&self) -> Duration {
        match self {
            ScheduleEvent::Clear { at, .. } | ScheduleEvent::Set { at, .. } => *at,
        }
    }
}

/// Faults in time order of their set times (stable: entries with the same
/// set time are set in the order given).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FaultSchedule {
    entries: Vec<ScheduledFault>,
    /// Next entry to set.
    next_set: usize,
    /// Indices of set entries whose clear is still due, in entry order.
    pending_clear: Vec<usize>,
}

impl FaultSchedule {
    /// A schedule of `entries`, sorted by set time (stable).
    ///
    /// # Errors
    /// [`FaultError::InvalidParameter`] (field `clear_at`) when an entry's
    /// `clear_at` is before its `set_at`.
    pub fn new(mut entries: Vec<ScheduledFault>) -> Result<Self, FaultError> {
        for e in &entries {
            if let Some(c) = e.clear_at.filter(|c| *c < e.set_at) {
                return Err(FaultError::InvalidParameter {
                    mode: kraken_interfaces::mode_name(e.spec.mode).unwrap_or("unknown"),
                    field: "clear_at",
                    value: c.as_secs_f64(),
                    reason: format!("must not be before set_at = {} s", e.set_at.as_secs_f64()),
                });
            }
        }
        entries.sort_by_key(|e| e.set_at);
        Ok(Self {
            entries,
            next_set: 0,
            pending_clear: Vec::new(),
        })
    }

    /// Every fault set at t = 0 and never cleared (a campaign cell).
    pub fn at_start(specs: impl IntoIterator<Item = FaultSpec>) -> Self {
        Self {
            entries: specs
                .into_iter()
                .map(|spec| ScheduledFault {
                    spec,
                    set_at: Duration::ZERO,
                    clear_at: None,
                })
                .collect(),
            next_set: 0,
            pending_clear: Vec::new(),
        }
    }

    /// The entries, in set-time order.
    pub fn entries(&self) -> &[ScheduledFault] {
        &self.entries
    }

    /// Every set and clear of the whole schedule, in time order, as
    /// [`Self::apply_due`] would apply them when called at each due time:
    /// at one time, the clears of entries set earlier (one event), then the
    /// sets in entry order. The schedule's own progress is not changed.
    pub fn events(&self) -> Vec<ScheduleEvent> {
        let mut out = Vec::new();
        let mut pending: Vec<usize> = Vec::new();
        let mut next = 0;
        loop {
            let set = self.entries.get(next).map(|e| e.set_at);
            let clear = pending
                .iter()
                .filter_map(|&i| self.entries[i].clear_at)
                .min();
            let t = match (set, clear) {
                (Some(a), Some(b)) => a.min(b),
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => break,
            };
            let (due, keep): (Vec<usize>, Vec<usize>) = pending
                .iter()
                .partition(|&&i| self.entries[i].clear_at.is_some_and(|c| c <= t));
            pending = keep;
            if !due.is_empty() {
                out.push(ScheduleEvent::Clear {
                    at: t,
                    entries: due,
                });
            }
            while let Some(e) = self.entries.get(next).filter(|e| e.set_at <= t) {
                out.push(ScheduleEvent::Set {
                    at: e.set_at,
                    index: next,
                });
                if e.clear_at.is_some() {
                    pending.push(next);
                }
                next += 1;
            }
        }
        out
    }

    /// The earliest set or clear time still to come, if any.
    pub fn next_due(&self) -> Option<Duration> {
        let set = self.entries.get(self.next_set).map(|e| e.set_at);
        let clear = self
            .pending_clear
            .iter()
            .filter_map(|&i| self.entries[i].clear_at)
            .min();
        match (set, clear) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Applies every set and clear due at or before `now` to `injector`,
    /// each at its own scheduled time (clears before sets at the same time,
    /// so a fault cleared and another set at `t` leaves the new one).
    ///
    /// # Errors
    /// Those of [`Injector::set_fault`] (the entry stays unapplied).
    pub fn apply_due(&mut self, injector: &mut Injector, now: Duration) -> Result<(), FaultError> {
        let mut k = 0;
        while k < self.pending_clear.len() {
            let i = self.pending_clear[k];
            match self.entries[i].clear_at {
                Some(c) if c <= now => {
                    injector.clear_channel_at(&self.entries[i].spec.channel, c)?;
                    self.pending_clear.remove(k);
                }
                _ => k += 1,
            }
        }
        while let Some(e) = self.entries.get(self.next_set).filter(|e| e.set_at <= now) {
            injector.set_fault(&e.spec, e.set_at)?;
            if e.clear_at.is_some() {
                self.pending_clear.push(self.next_set);
            }
            self.next_set += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Channel, MsgKind};

    fn spec(ch: &str) -> FaultSpec {
        FaultSpec {
            delay_s: 0.1,
            ..FaultSpec::new(ch, FaultSpec::DELAY)
        }
    }

    #[test]
    fn sets_and_clears_at_their_times() {
        let mut inj = Injector::new(vec![
            Channel::new("odom", MsgKind::Odometry),
            Channel::new("scan", MsgKind::LaserScan),
        ]);
        let ms = Duration::from_millis;
        let mut s = FaultSchedule::new(vec![
            ScheduledFault {
                spec: spec("scan"),
                set_at: ms(500),
                clear_at: Some(ms(800)),
            },
            ScheduledFault {
                spec: spec("odom"),
                set_at: ms(0),
                clear_at: None,
            },
        ])
        .unwrap();
        assert_eq!(s.next_due(), Some(ms(0)));
        s.apply_due(&mut inj, ms(0)).unwrap();
        assert!(inj.channel("odom").unwrap().fault().is_some());
        assert!(inj.channel("scan").unwrap().fault().is_none());
        assert_eq!(s.next_due(), Some(ms(500)));
        s.apply_due(&mut inj, ms(510)).unwrap();
        let scan = inj.channel("scan").unwrap();
        assert_eq!(scan.record().unwrap().requested, ms(500));
        assert_eq!(s.next_due(), Some(ms(800)));
        s.apply_due(&mut inj, ms(900)).unwrap();
        let scan = inj.channel("scan").unwrap();
        assert!(scan.fault().is_none());
        assert_eq!(scan.cleared(), Some(ms(800)));
        assert_eq!(s.next_due(), None);
        assert!(inj.channel("odom").unwrap().fault().is_some());
    }

    #[test]
    fn events_follow_apply_due_order() {
        let ms = Duration::from_millis;
        let s = FaultSchedule::new(vec![
            ScheduledFault {
                spec: spec("scan"),
                set_at: ms(500),
                clear_at: Some(ms(800)),
            },
            ScheduledFault {
                spec: spec("odom"),
                set_at: ms(0),
                clear_at: Some(ms(800)),
            },
            ScheduledFault {
                spec: spec("odom"),
                set_at: ms(800),
                clear_at: None,
            },
        ])
        .unwrap();
        // Sorted by set time: odom@0 (0), scan@500 (1), odom@800 (2).
        assert_eq!(
            s.events(),
            vec![
                ScheduleEvent::Set {
                    at: ms(0),
                    index: 0
                },
                ScheduleEvent::Set {
                    at: ms(500),
                    index: 1
                },
                ScheduleEvent::Clear {
                    at: ms(800),
                    entries: vec![0, 1]
                },
                ScheduleEvent::Set {
                    at: ms(800),
                    index: 2
                },
            ]
        );
    }

    #[test]
    fn clear_before_set_is_refused() {
        let e = FaultSchedule::new(vec![ScheduledFault {
            spec: spec("odom"),
            set_at: Duration::from_secs(2),
            clear_at: Some(Duration::from_secs(1)),
        }]);
        assert!(matches!(
            e,
            Err(FaultError::InvalidParameter {
                field: "clear_at",
                ..
            })
        ));
    }
}
