//! [`FaultStack::apply`]: one message through the active stages, in
//! declared order (the module doc of [`super`] tells what each stage does).

use std::time::Duration;

use rand::RngExt;

use super::{Delivered, FaultStack, Held, Op, Payload, Stage, StageStats};
use crate::field::ElementSelector;
use crate::FaultRng;

impl FaultStack {
    /// A used-up message window admits nothing again: what stage `i`'s
    /// reorder holds goes out right after `items` (not before the latest
    /// of them).
    fn release_held<P: Payload>(s: &mut Stage, i: usize, items: &mut Vec<Delivered<P>>) {
        let Op::Reorder(r) = &mut s.op else {
            return;
        };
        if !s
            .activation
            .as_ref()
            .is_some_and(|a| a.messages_exhausted())
        {
            return;
        }
        let after = items.iter().map(|d| d.delay).max().unwrap_or_default();
        let held = r
            .held
            .take()
            .map(|h| h.0.into_any().downcast::<Delivered<P>>());
        if let Some(Ok(mut d)) = held {
            d.delay = d.delay.max(after);
            d.touched_by.push(i);
            items.push(*d);
        }
    }

    /// Runs one message received at `now` through the active stages in
    /// declared order. An empty result withholds it; several entries are
    /// the message and its copies, in order.
    pub fn apply<P: Payload>(
        &mut self,
        payload: P,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Vec<Delivered<P>> {
        if self.stages.first().is_some_and(|s| s.activation.is_none()) {
            self.set(now);
        }
        // Stages appended without a set time start now.
        for s in self.stages.iter_mut().filter(|s| s.activation.is_none()) {
            Self::set_stage(s, now);
        }
        let mut items = vec![Delivered {
            delay: Duration::ZERO,
            payload,
            touched_by: Vec::new(),
        }];
        for (i, s) in self.stages.iter_mut().enumerate() {
            if items.is_empty() {
                break;
            }
            if !s.activation.as_mut().is_some_and(|a| a.admit(now)) {
                // The next active phase stalls anew.
                if let Op::Stall { until, .. } = &mut s.op {
                    *until = None;
                }
                Self::release_held(s, i, &mut items);
                continue;
            }
            if let Some(sel) = &s.select {
                items = Self::apply_selected(sel, &s.op, i, &mut s.stats, items, rng);
                continue;
            }
            match &mut s.op {
                Op::Drop(p) => {
                    let before = items.len();
                    let p = *p;
                    items.retain(|_| !rng.random_bool(p));
                    s.stats.withheld += (before - items.len()) as u64;
                }
                // A delay of 0 touches nothing.
                Op::Delay(d) if !d.is_zero() => {
                    for it in &mut items {
                        it.delay = it.delay.saturating_add(*d);
                        it.touched_by.push(i);
                    }
                    s.stats.changed += items.len() as u64;
                }
                Op::Delay(_) => {}
                Op::Duplicate { copies: n, gate } => {
                    let mut out = Vec::with_capacity(items.len() * (*n as usize + 1));
                    for it in items {
                        if !gate.fires(rng) {
                            out.push(it);
                            continue;
                        }
                        for _ in 0..*n {
                            let mut c = it.clone();
                            c.touched_by.push(i);
                            out.push(c);
                        }
                        out.insert(out.len() - *n as usize, it);
                        s.stats.added += u64::from(*n);
                    }
                    items = out;
                }
                Op::Loss(loss) => {
                    let before = items.len();
                    items.retain(|_| !loss.lose(rng));
                    s.stats.withheld += (before - items.len()) as u64;
                }
                Op::Jitter(j) => {
                    for it in &mut items {
                        it.delay = it.delay.saturating_add(j.draw(rng));
                        it.touched_by.push(i);
                    }
                    s.stats.changed += items.len() as u64;
                }
                Op::Reorder(r) => {
                    let mut out = Vec::with_capacity(items.len() + 1);
                    for it in items {
                        let after = it.delay;
                        let was_empty = r.held.is_none();
                        let step = r.step(Held(Box::new(it)), rng);
                        if was_empty && step.is_empty() {
                            s.stats.changed += 1;
                        }
                        for (k, h) in step.into_iter().enumerate() {
                            // Only this stack's payload type is ever held.
                            if let Ok(mut d) = h.0.into_any().downcast::<Delivered<P>>() {
                                if k == 1 {
                                    // The released one goes right after the new one.
                                    d.delay = d.delay.max(after);
                                    d.touched_by.push(i);
                                }
                                out.push(*d);
                            }
                        }
                    }
                    items = out;
                }
                Op::Stall { length, until } => {
                    let end = *until.get_or_insert(now.saturating_add(*length));
                    if now < end {
                        for it in &mut items {
                            it.delay = it.delay.max(end - now);
                            it.touched_by.push(i);
                        }
                        s.stats.changed += items.len() as u64;
                    }
                }
                Op::Throttle { period, next } => {
                    let before = items.len();
                    items.retain(|_| {
                        let pass = next.is_none_or(|n| now >= n);
                        if pass {
                            *next = Some(match *next {
                                Some(n) if now < n.saturating_add(*period) => n + *period,
                                _ => now.saturating_add(*period),
                            });
                        }
                        pass
                    });
                    s.stats.withheld += (before - items.len()) as u64;
                }
                Op::Field(f) => {
                    for it in &mut items {
                        if let Some(v) = it.payload.value_mut() {
                            if f.apply(v, now, rng) {
                                s.stats.changed += 1;
                                it.touched_by.push(i);
                            }
                        }
                    }
                }
            }
        }
        items
    }

    /// A drop or delay stage (index `i`, op `op`) limited to the elements
    /// `sel` matches. Per message: no matching element (or a payload that
    /// does not decode): untouched; every element matching: the whole
    /// message dropped / delayed as without a selection (bytes kept);
    /// some: drop (one draw per message) removes them (`changed`), delay
    /// removes them and adds a copy of the message holding only them,
    /// `delay_s` later (`changed`).
    fn apply_selected<P: Payload>(
        sel: &ElementSelector,
        op: &Op,
        i: usize,
        stats: &mut StageStats,
        items: Vec<Delivered<P>>,
        rng: &mut FaultRng,
    ) -> Vec<Delivered<P>> {
        let mut out = Vec::with_capacity(items.len() + 1);
        for mut it in items {
            let Some(mask) = it.payload.value_ref().and_then(|v| sel.matches(v)) else {
                out.push(it);
                continue;
            };
            if !mask.iter().any(|m| *m) {
                out.push(it);
                continue;
            }
            let all = mask.iter().all(|m| *m);
            match *op {
                Op::Drop(p) => {
                    if !rng.random_bool(p) {
                        out.push(it);
                    } else if all {
                        stats.withheld += 1;
                    } else {
                        if let Some(v) = it.payload.value_mut() {
                            sel.retain(v, &mask, false);
                        }
                        it.touched_by.push(i);
                        stats.changed += 1;
                        out.push(it);
                    }
                }
                Op::Delay(d) if !d.is_zero() => {
                    stats.changed += 1;
                    if all {
                        it.delay = it.delay.saturating_add(d);
                        it.touched_by.push(i);
                        out.push(it);
                        continue;
                    }
                    let mut held = it.clone();
                    if let Some(v) = held.payload.value_mut() {
                        sel.retain(v, &mask, true);
                    }
                    held.delay = held.delay.saturating_add(d);
                    held.touched_by.push(i);
                    if let Some(v) = it.payload.value_mut() {
                        sel.retain(v, &mask, false);
                    }
                    out.push(it);
                    out.push(held);
                }
                _ => out.push(it),
            }
        }
        out
    }
}
