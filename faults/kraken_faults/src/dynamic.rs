//! [`DynChannel`]: a channel of any message type (REQ-FAULT-ANY-TYPE), as
//! the `fault_injector` node hosts it: raw serialized messages (4-byte
//! encapsulation header + CDR body) through the channel's
//! [`FaultStack`] ([`CdrPayload`]: decoded only while a field stage is
//! active), a hold queue for delayed messages, stage ids for
//! `~/set_fault_stack` / `~/clear_fault_stage`, and per-stage provenance
//! (requested / first applied / cleared times; changed / withheld / added
//! counts) for `~/stack_status` ([`DynChannel::status`]).

/// The run-time CDR decoders, for readers of a recording that hold the
/// registry (tests/graph_campaign.rs).
pub use breakbench_msgs::{decode, decode_serde};

use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use breakbench_msgs::{ResolvedType, TypeRegistry};
use kraken_interfaces::ros::{DiagnosticStatus, KeyValue};

use crate::config::{DynamicChannelConfig, HoldLimits};
use crate::field::{CdrPayload, FaultStack, StageSpec, StageStats};
use crate::FaultRng;

/// How many removed stages the status keeps (with their cleared time).
pub const MAX_CLEARED_SHOWN: usize = 8;

/// Longest `stack_yaml` accepted, bytes.
pub const MAX_STACK_YAML_BYTES: usize = 64 * 1024;

/// Most stages on one channel.
pub const MAX_STAGES: usize = 64;

#[derive(Debug, Clone)]
struct StageMeta {
    id: u32,
    requested: Duration,
    first_applied: Option<Duration>,
}

#[derive(Debug, Clone)]
struct ClearedStage {
    meta: StageMeta,
    description: String,
    stats: StageStats,
    cleared: Duration,
}

/// The built-in message registry, built once per process: for in-process
/// channels and recordings that need no `AMENT_PREFIX_PATH`. The standard
/// types of [`TypeRegistry::builtin`] and this project's own
/// `kraken_interfaces/msg/*` from their `.msg` files
/// ([`kraken_interfaces::MSG_FILES`], compiled in; REQ-REC-EVENTS).
pub fn builtin_registry() -> Arc<TypeRegistry> {
    static REG: std::sync::OnceLock<Arc<TypeRegistry>> = std::sync::OnceLock::new();
    REG.get_or_init(|| {
        let mut reg = TypeRegistry::builtin();
        for (name, text) in kraken_interfaces::MSG_FILES {
            let def = breakbench_msgs::def::parse_msg(
                "kraken_interfaces",
                name,
                text,
                &format!("kraken_interfaces/msg/{name}.msg"),
            )
            .expect("kraken_interfaces' .msg files parse (tests/library/recording_types.rs)");
            reg.insert(def);
        }
        Arc::new(reg)
    })
    .clone()
}

// The injector's own clock source: re-exported from their module.
pub use crate::clock::{clock_of, clock_source, ClockSource, CLOCK_TYPE};

/// One dynamic channel.
#[derive(Debug)]
pub struct DynChannel {
    /// Channel name.
    pub name: String,
    /// `pkg/msg/Type`.
    pub type_name: String,
    reg: Arc<TypeRegistry>,
    ty: Arc<ResolvedType>,
    stack: FaultStack,
    meta: Vec<StageMeta>,
    cleared: VecDeque<ClearedStage>,
    next_id: u32,
    limits: HoldLimits,
    /// (due, arrival sequence) → bytes.
    held: BTreeMap<(Duration, u64), Vec<u8>>,
    held_bytes: u64,
    seq: u64,
    ready: Vec<Vec<u8>>,
    /// Messages received.
    pub messages_in: u64,
    /// Messages released (copies included).
    pub messages_out: u64,
    /// Held messages dropped because the hold queue was full.
    pub dropped_overflow: u64,
    /// Messages a field stage could not decode as the type (passed unchanged).
    pub decode_errors: u64,
    /// Faulted messages that could not be re-encoded (withheld).
    pub encode_errors: u64,
    /// The last decode or encode error.
    pub last_error: Option<String>,
    /// For the host's log: `dropped_overflow` when it last looked.
    pub overflow_seen: u64,
    /// For the host's log: inside an overflow burst.
    pub overflow_burst: bool,
    /// Messages received that a stage changed, withheld or copied
    /// (the evidence of a fault's `applied`).
    pub messages_faulted: u64,
    /// When the last stage was removed (cleared or replaced).
    pub last_cleared: Option<Duration>,
    /// The field paths `~/set_fault`'s typed data modes act on
    /// (`fault_fields` in channels.yaml; [`crate::spec_stages`]).
    fault_fields: Vec<String>,
    /// The fault `~/set_fault` last set, for `~/status`.
    typed: Option<crate::FaultRecord>,
    /// Per-message provenance, when recorded ([`DynChannel::record_provenance`]).
    touches: crate::provenance::ProvenanceLog,
}

impl DynChannel {
    /// A passthrough channel (empty stack) for `cfg`, its type resolved in `reg`.
    ///
    /// # Errors
    /// The registry's refusal of the type.
    pub fn new(
        cfg: &DynamicChannelConfig,
        reg: Arc<TypeRegistry>,
        limits: HoldLimits,
    ) -> Result<Self, String> {
        let mut d = Self::with_type(&cfg.name, &cfg.type_name, reg, limits)?;
        d.fault_fields = cfg.fault_fields.clone();
        Ok(d)
    }

    /// This channel with `fields` as the paths `~/set_fault`'s typed data
    /// modes act on ([`DynChannel::set_fault`]).
    pub fn with_fault_fields(mut self, fields: Vec<String>) -> Self {
        self.fault_fields = fields;
        self
    }

    /// The paths `~/set_fault`'s typed data modes act on.
    pub fn fault_fields(&self) -> &[String] {
        &self.fault_fields
    }

    /// Sets the typed fault `spec` as the channel's stages
    /// ([`crate::spec_stages::stages_for_spec`]), replacing the stack as
    /// one `~/set_fault` replaces a typed channel's faults; `healthy`
    /// clears it. The stages' windows start at `now`.
    ///
    /// # Errors
    /// Those of [`crate::spec_stages::stages_for_spec`] and
    /// [`FaultStack::build`]; nothing changes then.
    pub fn set_fault(
        &mut self,
        spec: &kraken_interfaces::FaultSpec,
        now: Duration,
    ) -> Result<(), crate::FaultError> {
        let specs = crate::spec_stages::stages_for_spec(
            spec,
            &self.name,
            &self.type_name,
            &self.fault_fields,
        )?;
        let built = FaultStack::build(&specs, &self.reg, &self.type_name)?;
        self.replace(built, specs.len(), now);
        self.typed =
            (spec.mode != kraken_interfaces::FaultSpec::HEALTHY).then(|| crate::FaultRecord {
                spec: spec.clone(),
                requested: now,
                first_applied: None,
                cleared: None,
            });
        Ok(())
    }

    /// The channel as `~/status` (kraken_interfaces/ChannelFaultStatus)
    /// reports it: the fault `~/set_fault` last set (mode `healthy` if none,
    /// or once `~/set_fault_stack` replaced it), its request, first-applied
    /// and cleared (or expired) times, and the channel's counters.
    pub fn fault_status(&self, now: Duration) -> kraken_interfaces::ChannelFaultStatus {
        let expired = self.typed.as_ref().and_then(|r| {
            (r.spec.duration_s > 0.0)
                .then(|| r.requested + Duration::from_secs_f64(r.spec.duration_s))
                .filter(|end| *end <= now)
        });
        let (fault, requested, first_applied, cleared) =
            crate::channel::record_status(self.typed.as_ref(), &self.name, expired);
        kraken_interfaces::ChannelFaultStatus {
            channel: self.name.clone(),
            fault,
            active: self.is_active(now),
            requested,
            first_applied,
            cleared,
            messages_in: self.messages_in,
            messages_out: self.messages_out,
            messages_faulted: self.messages_faulted,
            messages_dropped_overflow: self.dropped_overflow,
            messages_held: self.held.len().min(u32::MAX as usize) as u32,
            bytes_held: self.held_bytes,
            stage_panics: 0,
            stage_error: String::new(),
        }
    }

    /// Whether a stage acts at `now`.
    pub fn is_active(&self, now: Duration) -> bool {
        self.stack.any_active(now)
    }

    /// When a current stage first changed, withheld or copied a message
    /// (the earliest over the stages), if one has.
    pub fn first_applied(&self) -> Option<Duration> {
        self.meta.iter().filter_map(|m| m.first_applied).min()
    }

    /// A passthrough channel named `name` of type `type_name` (`pkg/msg/Type`),
    /// resolved in `reg`: the stack of a dynamic channel, or the stack a
    /// typed channel runs after its typed fault ([`crate::TypedStack`]).
    ///
    /// # Errors
    /// The registry's refusal of the type.
    pub fn with_type(
        name: &str,
        type_name: &str,
        reg: Arc<TypeRegistry>,
        limits: HoldLimits,
    ) -> Result<Self, String> {
        let ty = reg.resolve(type_name).map_err(|e| e.to_string())?;
        let stack = FaultStack::build(&[], &reg, type_name).map_err(|e| e.to_string())?;
        Ok(Self {
            name: name.to_string(),
            type_name: type_name.to_string(),
            reg,
            ty,
            stack,
            meta: Vec::new(),
            cleared: VecDeque::new(),
            next_id: 1,
            limits,
            held: BTreeMap::new(),
            held_bytes: 0,
            seq: 0,
            ready: Vec::new(),
            messages_in: 0,
            messages_out: 0,
            dropped_overflow: 0,
            decode_errors: 0,
            encode_errors: 0,
            last_error: None,
            overflow_seen: 0,
            overflow_burst: false,
            messages_faulted: 0,
            last_cleared: None,
            fault_fields: Vec::new(),
            typed: None,
            touches: Default::default(),
        })
    }

    /// The resolved message type.
    pub fn ty(&self) -> &Arc<ResolvedType> {
        &self.ty
    }

    /// The ids of the stages, in declared order.
    pub fn ids(&self) -> Vec<u32> {
        self.meta.iter().map(|m| m.id).collect()
    }

    /// The stack (read-only).
    pub fn stack(&self) -> &FaultStack {
        &self.stack
    }

    /// Parses `stack_yaml` (a YAML list of [`StageSpec`]) and builds it for
    /// this channel's type; then replaces the stack (`append` false) or adds
    /// the stages after it (true), their windows starting at `now`. Returns
    /// the ids of the channel's stages after the call.
    ///
    /// # Errors
    /// The YAML parser's or [`FaultStack::build`]'s message (naming the
    /// stage); too many stages or too long a text. Nothing changes then.
    pub fn set_stack(
        &mut self,
        stack_yaml: &str,
        append: bool,
        now: Duration,
    ) -> Result<Vec<u32>, String> {
        if stack_yaml.len() > MAX_STACK_YAML_BYTES {
            return Err(format!(
                "stack_yaml is {} bytes; at most {MAX_STACK_YAML_BYTES}",
                stack_yaml.len()
            ));
        }
        let specs: Vec<StageSpec> = if stack_yaml.trim().is_empty() {
            Vec::new()
        } else {
            serde_yaml_ng::from_str(stack_yaml).map_err(|e| format!("stack_yaml: {e}"))?
        };
        let kept = if append { self.stack.len() } else { 0 };
        if kept + specs.len() > MAX_STAGES {
            return Err(format!(
                "{} stages: a channel holds at most {MAX_STAGES}",
                kept + specs.len()
            ));
        }
        let built =
            FaultStack::build(&specs, &self.reg, &self.type_name).map_err(|e| e.to_string())?;
        if !append {
            self.replace(built, specs.len(), now);
            self.typed = None;
        } else {
            self.stack.append(built, now);
            self.add_meta(specs.len(), now);
        }
        Ok(self.ids())
    }

    /// Replaces the stack with `built` (`n` stages), set at `now`.
    fn replace(&mut self, mut built: FaultStack, n: usize, now: Duration) {
        while !self.stack.is_empty() {
            self.remove_at(0, now);
        }
        built.set(now);
        self.stack = built;
        self.add_meta(n, now);
    }

    fn add_meta(&mut self, n: usize, now: Duration) {
        for _ in 0..n {
            self.meta.push(StageMeta {
                id: self.next_id,
                requested: now,
                first_applied: None,
            });
            self.next_id = self.next_id.wrapping_add(1).max(1);
        }
    }

    fn remove_at(&mut self, index: usize, now: Duration) {
        let description = self.stack.describe()[index].clone();
        let Some((_, stats, held)) = self.stack.remove_releasing::<CdrPayload>(index) else {
            return;
        };
        // A reorder stage's held message is released now, not lost.
        if let Some(d) = held {
            match d.payload.into_bytes() {
                Ok(b) => self.ready.push(b),
                Err(e) => {
                    self.encode_errors += 1;
                    self.last_error = Some(e.to_string());
                }
            }
        }
        let meta = self.meta.remove(index);
        self.last_cleared = Some(now);
        if let Some(r) = self.typed.as_mut().filter(|r| r.cleared.is_none()) {
            r.cleared = Some(now);
        }
        // "<index>: what": the index no longer means anything.
        let description = description
            .split_once(": ")
            .map_or(description.clone(), |(_, d)| d.to_string());
        self.cleared.push_back(ClearedStage {
            meta,
            description,
            stats,
            cleared: now,
        });
        while self.cleared.len() > MAX_CLEARED_SHOWN {
            self.cleared.pop_front();
        }
    }

    /// Removes the stage with id `id`.
    ///
    /// # Errors
    /// An unknown id (the message lists the channel's ids).
    pub fn clear_stage(&mut self, id: u32, now: Duration) -> Result<(), String> {
        match self.meta.iter().position(|m| m.id == id) {
            Some(i) => {
                self.remove_at(i, now);
                Ok(())
            }
            None => Err(format!(
                "channel '{}' has no stage with id {id} (ids: {:?})",
                self.name,
                self.ids()
            )),
        }
    }

    /// Removes every stage (held messages are still released when due).
    pub fn clear_all(&mut self, now: Duration) {
        while !self.stack.is_empty() {
            self.remove_at(0, now);
        }
    }

    /// Starts (or stops, discarding what was recorded) recording which stage
    /// touched each message ([`crate::provenance`]).
    pub fn record_provenance(&mut self, on: bool) {
        self.touches.set(on);
    }

    /// The provenance recorded since the last call (empty when not recording).
    pub fn take_touches(&mut self) -> Vec<crate::Touch> {
        self.touches.take()
    }

    /// The label of the stage at `index` in provenance records: `#<id>
    /// <what>` ([`FaultStack::describe`] without its index).
    fn stage_label(&self, described: &[String], index: usize) -> String {
        let what = described[index]
            .split_once(": ")
            .map_or(described[index].as_str(), |(_, d)| d);
        format!("#{} {what}", self.meta[index].id)
    }

    /// Runs one received message through the stack at `now`; what it
    /// releases at once is returned by the next [`DynChannel::poll`].
    pub fn push(&mut self, bytes: Vec<u8>, now: Duration, rng: &mut FaultRng) {
        self.messages_in += 1;
        let seq = self.messages_in - 1;
        if self.stack.is_empty() {
            self.ready.push(bytes);
            return;
        }
        let before = self.stack.stats();
        let mut touched = false;
        let input = self.touches.is_on().then(|| bytes.clone());
        let out = self
            .stack
            .apply(CdrPayload::new(self.ty.clone(), bytes), now, rng);
        for (m, (a, b)) in self
            .meta
            .iter_mut()
            .zip(before.iter().zip(self.stack.stats()))
        {
            if *a != b {
                touched = true;
                if m.first_applied.is_none() {
                    m.first_applied = Some(now);
                }
            }
        }
        if touched {
            self.messages_faulted += 1;
            if let Some(r) = self.typed.as_mut().filter(|r| r.first_applied.is_none()) {
                r.first_applied = Some(now);
            }
        }
        let described = if touched && self.touches.is_on() {
            self.stack.describe()
        } else {
            Vec::new()
        };
        if touched && out.is_empty() && self.touches.is_on() {
            let after = self.stack.stats();
            let touch = crate::Touch {
                channel: self.name.clone(),
                seq,
                received: now,
                output: None,
                released: None,
                changed: false,
                faults: (0..self.meta.len())
                    .filter(|&i| after[i].withheld != before[i].withheld)
                    .map(|i| self.stage_label(&described, i))
                    .collect(),
            };
            self.touches.push(touch);
        }
        for (k, d) in out.into_iter().enumerate() {
            let touched_by = d.touched_by;
            let delay = d.delay;
            if let Some(e) = d.payload.decode_error() {
                self.decode_errors += 1;
                self.last_error = Some(e.to_string());
            }
            let bytes = match d.payload.into_bytes() {
                Ok(b) => b,
                Err(e) => {
                    self.encode_errors += 1;
                    self.last_error = Some(e.to_string());
                    continue;
                }
            };
            if let (Some(input), false) = (&input, touched_by.is_empty()) {
                let faults = touched_by
                    .iter()
                    .map(|&i| self.stage_label(&described, i))
                    .collect();
                let touch = crate::Touch {
                    channel: self.name.clone(),
                    seq,
                    received: now,
                    output: Some(k),
                    released: Some(now.saturating_add(delay)),
                    changed: bytes != *input,
                    faults,
                };
                self.touches.push(touch);
            }
            if delay.is_zero() {
                self.ready.push(bytes);
            } else {
                self.hold(now.saturating_add(delay), bytes);
            }
        }
    }

    /// [`DynChannel::push`] of a compiled-in message of the channel's type
    /// (an in-process host: the harness's `cmd_vel`), serialized as a ROS 2
    /// peer would ([`breakbench_msgs::encode_serde`]).
    ///
    /// # Errors
    /// [`crate::FaultError::Codec`] when the serializer refuses it.
    pub fn push_msg<T: serde::Serialize>(
        &mut self,
        msg: &T,
        now: Duration,
        rng: &mut FaultRng,
    ) -> Result<(), crate::FaultError> {
        let bytes = breakbench_msgs::encode_serde(&self.type_name, msg).map_err(|source| {
            crate::FaultError::Codec {
                channel: self.name.clone(),
                source,
            }
        })?;
        self.push(bytes, now, rng);
        Ok(())
    }

    /// [`DynChannel::poll`], each message deserialized into `T`.
    ///
    /// # Errors
    /// [`crate::FaultError::Codec`] for bytes that do not decode as `T`
    /// (a field stage wrote them: it keeps the type, so a bug).
    pub fn poll_msgs<T: serde::de::DeserializeOwned>(
        &mut self,
        now: Duration,
    ) -> Result<Vec<T>, crate::FaultError> {
        self.poll(now)
            .iter()
            .map(|b| {
                breakbench_msgs::decode_serde(&self.type_name, b).map_err(|source| {
                    crate::FaultError::Codec {
                        channel: self.name.clone(),
                        source,
                    }
                })
            })
            .collect()
    }

    fn hold(&mut self, due: Duration, bytes: Vec<u8>) {
        let size = bytes.len() as u64 + 64;
        while !self.held.is_empty()
            && (self.held.len() >= self.limits.max_held_messages as usize
                || self.held_bytes + size > self.limits.max_held_bytes)
        {
            if let Some((_, b)) = self.held.pop_first() {
                self.held_bytes -= b.len() as u64 + 64;
                self.dropped_overflow += 1;
            }
        }
        self.seq += 1;
        self.held_bytes += size;
        self.held.insert((due, self.seq), bytes);
    }

    /// The messages to publish at `now`: those released at once, then the
    /// held ones due, in due order.
    pub fn poll(&mut self, now: Duration) -> Vec<Vec<u8>> {
        let mut out = std::mem::take(&mut self.ready);
        while let Some(e) = self.held.first_entry() {
            if e.key().0 > now {
                break;
            }
            let b = e.remove();
            self.held_bytes -= b.len() as u64 + 64;
            out.push(b);
        }
        self.messages_out += out.len() as u64;
        out
    }

    /// When the earliest held message is due.
    pub fn next_release(&self) -> Option<Duration> {
        self.held.keys().next().map(|k| k.0)
    }

    /// Messages held now.
    pub fn held(&self) -> usize {
        self.held.len()
    }

    /// The status for `~/stack_status`: one `diagnostic_msgs/DiagnosticStatus`
    /// whose key-values list the channel's counters, then each stage in
    /// declared order (`stage<k>.id`, `.fault`, `.active`, `.requested`,
    /// `.first_applied`, `.cleared`, `.changed`, `.withheld`, `.added`;
    /// times in seconds, empty when not yet), then the last removed stages
    /// (`cleared<k>.*`, `active` false, with their cleared time). Level WARN
    /// while a stage is active, else OK.
    pub fn status(&self, now: Duration, node_name: &str) -> DiagnosticStatus {
        self.status_with(now, node_name, None)
    }

    /// [`DynChannel::status`], with a typed channel's own fault (the one
    /// `~/set_fault` sets, run before the stack) reported after the counters
    /// and before the stages: `typed_fault` (mode name, `healthy` if none
    /// was ever set), `typed_fault.active`, `.requested`, `.first_applied`,
    /// `.cleared` (times as for the stages); the level is WARN while it or a
    /// stage is active.
    pub fn status_with(
        &self,
        now: Duration,
        node_name: &str,
        typed: Option<&crate::Channel>,
    ) -> DiagnosticStatus {
        let t = |d: Option<Duration>| {
            d.map_or(String::new(), |d| {
                format!("{}.{:09}", d.as_secs(), d.subsec_nanos())
            })
        };
        let mut values = Vec::new();
        let mut kv = |k: String, v: String| values.push(KeyValue { key: k, value: v });
        kv("type".into(), self.type_name.clone());
        kv("messages_in".into(), self.messages_in.to_string());
        kv("messages_out".into(), self.messages_out.to_string());
        kv("messages_held".into(), self.held.len().to_string());
        kv(
            "messages_dropped_overflow".into(),
            self.dropped_overflow.to_string(),
        );
        kv("decode_errors".into(), self.decode_errors.to_string());
        kv("encode_errors".into(), self.encode_errors.to_string());
        kv("stage_ids".into(), format!("{:?}", self.ids()));
        let typed_active = typed.is_some_and(|c| c.is_active(now));
        if let Some(c) = typed {
            let st = c.status(now);
            let at = |x: kraken_interfaces::ros::Time| {
                let n = x.as_nanos();
                (n > 0).then(|| Duration::from_nanos(n as u64))
            };
            kv(
                "typed_fault".into(),
                kraken_interfaces::mode_name(st.fault.mode)
                    .unwrap_or("?")
                    .to_string(),
            );
            kv("typed_fault.active".into(), st.active.to_string());
            kv("typed_fault.requested".into(), t(at(st.requested)));
            kv("typed_fault.first_applied".into(), t(at(st.first_applied)));
            kv("typed_fault.cleared".into(), t(at(st.cleared)));
        }
        let active = self.stack.active(now);
        let desc = self.stack.describe();
        let stats = self.stack.stats();
        for (i, m) in self.meta.iter().enumerate() {
            let p = format!("stage{i}");
            kv(format!("{p}.id"), m.id.to_string());
            kv(format!("{p}.fault"), desc[i].clone());
            kv(format!("{p}.active"), active[i].to_string());
            kv(format!("{p}.requested"), t(Some(m.requested)));
            kv(format!("{p}.first_applied"), t(m.first_applied));
            kv(format!("{p}.cleared"), String::new());
            kv(format!("{p}.changed"), stats[i].changed.to_string());
            kv(format!("{p}.withheld"), stats[i].withheld.to_string());
            kv(format!("{p}.added"), stats[i].added.to_string());
        }
        for (i, c) in self.cleared.iter().enumerate() {
            let p = format!("cleared{i}");
            kv(format!("{p}.id"), c.meta.id.to_string());
            kv(format!("{p}.fault"), c.description.clone());
            kv(format!("{p}.active"), "false".into());
            kv(format!("{p}.requested"), t(Some(c.meta.requested)));
            kv(format!("{p}.first_applied"), t(c.meta.first_applied));
            kv(format!("{p}.cleared"), t(Some(c.cleared)));
            kv(format!("{p}.changed"), c.stats.changed.to_string());
            kv(format!("{p}.withheld"), c.stats.withheld.to_string());
            kv(format!("{p}.added"), c.stats.added.to_string());
        }
        let n_active = active.iter().filter(|a| **a).count();
        let typed_note = match typed {
            Some(_) if typed_active => "typed fault active, ",
            Some(_) => "no typed fault active, ",
            None => "",
        };
        DiagnosticStatus {
            level: if n_active > 0 || typed_active {
                DiagnosticStatus::WARN
            } else {
                DiagnosticStatus::OK
            },
            name: format!("{node_name}: {}", self.name),
            message: format!(
                "{typed_note}{} stage(s), {n_active} active",
                self.stack.len()
            ),
            hardware_id: self.name.clone(),
            values,
        }
    }
}

#[cfg(test)]
mod tests;
