//! The resilience-test half of a run: triggers evaluated online, faults put
//! into a [`FaultSchedule`] when their trigger fires, the observables
//! recorded, the expectations evaluated step by step, and the verdict class.
//!
//! [`TestDriver`] holds no loop of its own: the run's one loop
//! ([`super::run`]) calls it at fixed points of each sim step:
//!
//! 1. [`TestDriver::on_truth`] with the step's ground-truth message;
//! 2. [`TestDriver::before_relay`]: triggers stepped at `now`; a fired
//!    trigger sets its fault (set at `now`, cleared at `now + duration_s` or
//!    by its clear trigger) before this step's messages are relayed;
//! 3. [`TestDriver::on_delivered`] with each message the controller gets,
//!    [`TestDriver::on_cmd_vel`] with each command, [`TestDriver::on_log`] /
//!    [`TestDriver::on_diagnostic`] with what the controller said;
//! 4. [`TestDriver::after_step`]: `applied` / `cleared` read from the
//!    injector (a fault is applied once its channel has changed or withheld
//!    a message since it was set, never on the acknowledgement), the
//!    expectations stepped.
//!
//! A baseline run (same seed, no fault) evaluates only the expectations that
//! do not refer to a fault ([`refers_to_fault`]) and injects nothing.
//!
//! The injector side is a [`FaultPort`]: in-process the [`Injector`] itself;
//! on the ROS 2 graph the `breakbench_orchestrator` node's client of the
//! `fault_injector` node (its `~/set_fault` service and `~/status` counters).

use std::time::{Duration, Instant};

use breakbench_navigator::controller::Controller;
use breakbench_oracle::expect::observe::Clearance;
use breakbench_oracle::expect::{
    classify, ClassifiedVerdict, CmdVelSample, DiagnosticSample, EstimateSample, ExpectationSet,
    FaultEvent, FaultFacts, FaultStatusSample, InputMonitor, LogSample, Observations, OdomSample,
    RunFacts, RunJudgement, Stamp, TestInfo, Timeline, Trigger, TriggerState,
};
use kraken_faults::{Injector, SensorMsg};
use kraken_interfaces::ros::{DiagnosticArray, Log, Odometry};
use kraken_interfaces::FaultSpec;

use super::manifest::FaultRecord;
use super::resilience::ResilienceTest;
use super::CampaignError;

mod setup;

use setup::{false_alarm_probes, judged_expectations};

/// A channel's message counters as the injector reports them
/// (`kraken_faults::ChannelStats`, or `ChannelFaultStatus` of
/// `/fault_injector/status` on the graph).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ChannelCounts {
    /// Messages received on the channel.
    pub messages_in: u64,
    /// Messages released on the channel.
    pub messages_out: u64,
    /// Messages a fault changed or withheld (the only evidence of `applied`).
    pub messages_faulted: u64,
}

/// The injector as a resilience test drives it: set and clear a fault, and
/// read back what the injector itself says it did (its message counters and
/// clear time), never the acknowledgement. In-process it is the
/// [`Injector`]; on the ROS 2 graph a client of the `fault_injector` node
/// (`breakbench_orchestrator`).
pub trait FaultPort {
    /// Whether injection is enabled (the production guard).
    fn enabled(&self) -> bool;
    /// Enables or disables injection at `now` (self-tests only).
    ///
    /// # Errors
    /// A message when the port cannot do it (the graph's injector is enabled
    /// by its `enable` parameter only).
    fn set_enabled(&mut self, on: bool, now: Duration) -> Result<(), String>;
    /// Sets `spec` on its channel at `now`.
    ///
    /// # Errors
    /// The injector's refusal (or the transport's failure), as text.
    fn set_fault(&mut self, spec: &FaultSpec, now: Duration) -> Result<(), String>;
    /// Clears the fault of `channel` at `now`.
    ///
    /// # Errors
    /// As [`FaultPort::set_fault`].
    fn clear_fault(&mut self, channel: &str, now: Duration) -> Result<(), String>;
    /// The counters of `channel` (`None`: no such channel, or not reported yet).
    fn counts(&self, channel: &str) -> Option<ChannelCounts>;
    /// When the last fault of `channel` was cleared, replaced or expired.
    fn cleared(&self, channel: &str) -> Option<Duration>;
    /// Whether a fault of `channel` acts at `now`.
    fn is_active(&self, channel: &str, now: Duration) -> bool;
}

impl FaultPort for Injector {
    fn enabled(&self) -> bool {
        Injector::enabled(self)
    }
    fn set_enabled(&mut self, on: bool, now: Duration) -> Result<(), String> {
        Injector::set_enabled(self, on, now);
        Ok(())
    }
    fn set_fault(&mut self, spec: &FaultSpec, now: Duration) -> Result<(), String> {
        Injector::set_fault(self, spec, now).map_err(|e| e.to_string())
    }
    fn clear_fault(&mut self, channel: &str, now: Duration) -> Result<(), String> {
        self.clear_channel_at(channel, now)
            .map_err(|e| e.to_string())
    }
    fn counts(&self, channel: &str) -> Option<ChannelCounts> {
        if let Some(r) = self.raw_channel(channel) {
            return Some(ChannelCounts {
                messages_in: r.messages_in,
                messages_out: r.messages_out,
                messages_faulted: r.messages_faulted,
            });
        }
        self.channel(channel).map(|c| {
            let s = c.stats();
            ChannelCounts {
                messages_in: s.messages_in,
                messages_out: s.messages_out,
                messages_faulted: s.messages_faulted,
            }
        })
    }
    fn cleared(&self, channel: &str) -> Option<Duration> {
        match self.raw_channel(channel) {
            Some(r) => r.last_cleared,
            None => self.channel(channel).and_then(|c| c.cleared()),
        }
    }
    fn is_active(&self, channel: &str, now: Duration) -> bool {
        match self.raw_channel(channel) {
            Some(r) => r.is_active(now),
            None => self.channel(channel).is_some_and(|c| c.is_active(now)),
        }
    }
}

struct FaultSlot {
    name: String,
    channel: String,
    spec: FaultSpec,
    duration: Option<Duration>,
    trigger: Trigger,
    clear: Option<Trigger>,
    /// Set (accepted by the injector) and not yet cleared by the driver.
    set: bool,
    /// When its `duration_s` ends, s (cleared by the driver at that time).
    clear_at: Option<Duration>,
    unsupported: Option<String>,
    accepted: bool,
    /// `messages_faulted` of its channel when it was set.
    faulted_at_set: u64,
    /// The phase of a phase-swept fault, s: its trigger fires this long
    /// after its condition is met (0 for every other fault).
    phase_s: f64,
    /// The condition was met; the phase-shifted fire time, s.
    pending_s: Option<f64>,
}

/// The resilience-test state of one run (see the module docs).
pub struct TestDriver {
    test: ResilienceTest,
    baseline: bool,
    faults: Vec<FaultSlot>,
    obs: Observations,
    timeline: Timeline,
    set: ExpectationSet,
    /// Baselines: each detection expectation's predicate under `never`
    /// over the whole run (its false alarms), not part of the verdict.
    false_alarms: Option<ExpectationSet>,
    clearance: Clearance,
    host0: Instant,
    error: Option<String>,
    /// The injector is disabled for this run (`self_test.injector_enabled:
    /// false`; fault runs only).
    injector_enabled: bool,
    /// Gaps in the injector's input of each channel the controller reads.
    inputs: InputMonitor,
}

impl TestDriver {
    /// The driver of `test` in a run seeded `seed` on `world`; `controller`
    /// is the one under test (its inputs, and what it reads of them, decide
    /// whether a fault is `unsupported`). `baseline`:
    /// inject nothing, judge by the fault-free expectations only. `phase_s`:
    /// the phase of the test's `phase_sweep` fault, s (0 without one).
    ///
    /// # Errors
    /// [`CampaignError::Oracle`] if the expectations or triggers do not
    /// build (the file was validated on load, so this is a bug).
    pub fn new(
        test: &ResilienceTest,
        world: &breakbench_world::World,
        seed: u64,
        baseline: bool,
        phase_s: f64,
        controller: &dyn Controller,
    ) -> Result<Self, CampaignError> {
        let inputs = controller.inputs();
        let names = test.fault_names();
        let specs = judged_expectations(test, baseline);
        let set = ExpectationSet::new(&specs, &names, Some(world))?;
        let false_alarms = if baseline {
            let probes = false_alarm_probes(test);
            Some(ExpectationSet::new(&probes, &names, Some(world))?)
        } else {
            None
        };
        let mut faults = Vec::new();
        if !baseline {
            for f in &test.faults {
                let phase_s = match &test.phase_sweep {
                    Some(ps) if ps.fault == f.name => phase_s,
                    _ => 0.0,
                };
                faults.push(FaultSlot::new(f, &names, seed, phase_s, controller)?);
            }
        }
        let timeline = Timeline::new(&faults.iter().map(|f| f.name.clone()).collect::<Vec<_>>());
        Ok(Self {
            test: test.clone(),
            baseline,
            faults,
            obs: Observations::new(),
            timeline,
            set,
            false_alarms,
            clearance: Clearance::new(world),
            host0: Instant::now(),
            error: None,
            injector_enabled: baseline
                || test.self_test.as_ref().is_none_or(|st| st.injector_enabled),
            inputs: InputMonitor::new(
                &inputs.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
                test.max_input_gap_s,
            ),
        })
    }

    fn stamp(&self, now: Duration) -> Stamp {
        Stamp {
            sim_s: now.as_secs_f64(),
            host_s: Some(self.host0.elapsed().as_secs_f64()),
        }
    }

    /// Records the step's ground-truth message (`/oracle/odom`).
    pub fn on_truth(&mut self, msg: &Odometry) {
        self.obs.push_truth(self.clearance.truth_sample(msg));
    }

    /// Records a message delivered to the controller (after the injector):
    /// odometry becomes the `odom.*` observables.
    pub fn on_delivered(&mut self, now: Duration, msg: &SensorMsg) {
        if let SensorMsg::Odometry(o) = msg {
            let p = &o.pose.pose;
            self.obs.push_odom(OdomSample {
                t_s: now.as_secs_f64(),
                x_m: p.position.x,
                y_m: p.position.y,
                yaw_rad: p.orientation.yaw(),
                linear_x_m_s: o.twist.twist.linear.x,
                angular_z_rad_s: o.twist.twist.angular.z,
            });
        }
    }

    /// Records the controller's pose estimate in the world frame
    /// (`estimate.*` observables).
    pub fn on_estimate(&mut self, now: Duration, p: [f64; 3]) {
        self.obs.push_estimate(EstimateSample {
            t_s: now.as_secs_f64(),
            x_m: p[0],
            y_m: p[1],
            yaw_rad: p[2],
        });
    }

    /// Records a command of the controller (`cmd_vel`).
    pub fn on_cmd_vel(&mut self, now: Duration, linear_m_s: f64, angular_rad_s: f64) {
        self.obs.push_cmd_vel(CmdVelSample {
            t_s: now.as_secs_f64(),
            linear_x_m_s: linear_m_s,
            angular_z_rad_s: angular_rad_s,
        });
    }

    /// Records what the controller said since the last call: each
    /// `rcl_interfaces/Log` record as a `/rosout` entry (stamp, level,
    /// logger name, message) and each status of each
    /// `diagnostic_msgs/DiagnosticArray` as a `/diagnostics` sample (the
    /// array's stamp, the status name and level).
    pub fn on_controller(&mut self, logs: Vec<Log>, diagnostics: Vec<DiagnosticArray>) {
        for l in logs {
            self.on_log(LogSample {
                t_s: l.stamp.as_secs_f64(),
                level: l.level,
                logger: l.name,
                msg: l.msg,
            });
        }
        for a in diagnostics {
            let t_s = a.header.stamp.as_secs_f64();
            for st in a.status {
                self.on_diagnostic(DiagnosticSample {
                    t_s,
                    name: st.name,
                    level: st.level,
                });
            }
        }
    }

    /// Records a `/rosout` entry of the controller.
    pub fn on_log(&mut self, s: LogSample) {
        self.obs.push_log(s);
    }

    /// Records a `/diagnostics` status of the controller.
    pub fn on_diagnostic(&mut self, s: DiagnosticSample) {
        self.obs.push_diagnostic(s);
    }

    /// Steps the triggers at `now` and sets / clears the faults they fire
    /// through `port`.
    ///
    /// # Errors
    /// [`CampaignError::Oracle`] for a bad step time; [`CampaignError::Axis`]
    /// when clearing a set fault fails.
    pub fn before_relay<P: FaultPort + ?Sized>(
        &mut self,
        now: Duration,
        port: &mut P,
    ) -> Result<(), CampaignError> {
        let t = now.as_secs_f64();
        if port.enabled() != self.injector_enabled {
            if let Err(e) = port.set_enabled(self.injector_enabled, now) {
                self.error = Some(e);
            }
        }
        for i in 0..self.faults.len() {
            let f = &mut self.faults[i];
            if let Some(at) = f.trigger.step(t, &self.obs, &self.timeline)? {
                f.pending_s = Some(at + f.phase_s);
            }
            // The fault is set at the first step at or after its
            // (phase-shifted) fire time.
            let fired = f
                .pending_s
                .filter(|p| t >= p - breakbench_oracle::expect::TIME_EPS_S);
            if fired.is_some() {
                f.pending_s = None;
                let st = self.stamp(now);
                let f = &mut self.faults[i];
                self.timeline.note(&f.name, FaultEvent::Trigger, st);
                if f.unsupported.is_some() {
                    continue;
                }
                f.faulted_at_set = port.counts(&f.channel).map_or(0, |c| c.messages_faulted);
                match port.set_fault(&f.spec, now) {
                    Ok(()) => {
                        f.accepted = true;
                        f.set = true;
                        f.clear_at = f.duration.map(|d| now + d);
                        self.timeline.note(&f.name, FaultEvent::Requested, st);
                    }
                    // A disabled injector refuses every fault: that is
                    // what it is for, not a harness error (the class rules
                    // make the run `invalid`).
                    Err(_) if !self.injector_enabled => {}
                    Err(e) => self.error = Some(format!("fault '{}': {e}", f.name)),
                }
            }
            let f = &mut self.faults[i];
            if f.set {
                // Its duration ends: cleared at that time.
                if let Some(c) = f.clear_at.filter(|c| *c <= now) {
                    f.clear_at = None;
                    f.set = false;
                    port.clear_fault(&f.channel, c)
                        .map_err(|message| CampaignError::Axis {
                            axis: f.name.clone(),
                            message,
                        })?;
                }
                if let Some(c) = f.clear.as_mut() {
                    if c.step(t, &self.obs, &self.timeline)?.is_some() {
                        f.set = false;
                        port.clear_fault(&f.channel, now).map_err(|message| {
                            CampaignError::Axis {
                                axis: f.name.clone(),
                                message,
                            }
                        })?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Notes `applied` / `cleared` from the injector's counters and clear
    /// time as `port` reports them, and steps the expectations at `now`.
    ///
    /// # Errors
    /// [`CampaignError::Oracle`] for a bad step or ground-truth sample.
    pub fn after_step<P: FaultPort + ?Sized>(
        &mut self,
        now: Duration,
        port: &P,
    ) -> Result<(), CampaignError> {
        let st = self.stamp(now);
        self.inputs
            .observe_with(st.sim_s, |ch| port.counts(ch).map(|c| c.messages_in));
        for f in &self.faults {
            if !f.accepted {
                continue;
            }
            let Some(c) = port.counts(&f.channel) else {
                continue;
            };
            let applied = c.messages_faulted > f.faulted_at_set;
            if applied {
                self.timeline.note(&f.name, FaultEvent::Applied, st);
            }
            if let Some(c) = port.cleared(&f.channel).filter(|c| *c <= now) {
                let at = Stamp {
                    sim_s: c.as_secs_f64(),
                    host_s: st.host_s,
                };
                self.timeline.note(&f.name, FaultEvent::Cleared, at);
            }
            self.obs.push_fault_status(FaultStatusSample {
                t_s: st.sim_s,
                fault: f.name.clone(),
                active: port.is_active(&f.channel, now),
                applied,
            });
        }
        self.set.step(st.sim_s, &self.obs, &self.timeline)?;
        if let Some(fa) = self.false_alarms.as_mut() {
            fa.step(st.sim_s, &self.obs, &self.timeline)?;
        }
        self.obs.retire_logs(st.sim_s);
        Ok(())
    }

    /// Whether a fault the injector accepted has its `applied` (or, once
    /// the driver cleared it, its `cleared`) not yet read from the injector.
    pub fn awaiting_injector(&self) -> bool {
        self.faults.iter().filter(|f| f.accepted).any(|f| {
            self.timeline
                .event_s(&f.name, FaultEvent::Applied)
                .is_none()
                || (!f.set
                    && self
                        .timeline
                        .event_s(&f.name, FaultEvent::Cleared)
                        .is_none())
        })
    }

    /// The manifest's record of each fault the run set (accepted by the
    /// injector; none for a baseline): `axis` is `<test>.<fault>`, the mode's
    /// main parameter and its requested value (`none` and 0 for a mode
    /// without one, such as dropout), the channel's message counts over the
    /// whole run, and the fault's first-applied and cleared sim times from
    /// the timeline. No delivered-value probe (`delivered_metric: none`).
    pub fn fault_records<P: FaultPort + ?Sized>(&self, port: &P) -> Vec<FaultRecord> {
        self.faults
            .iter()
            .filter(|f| f.accepted)
            .map(|f| {
                let (parameter, requested) = f.spec.main_parameter().unwrap_or(("none", 0.0));
                let st = port.counts(&f.channel);
                FaultRecord {
                    axis: format!("{}.{}", self.test.name, f.name),
                    channel: f.channel.clone(),
                    mode: self
                        .test
                        .faults
                        .iter()
                        .find(|t| t.name == f.name)
                        .map_or_else(String::new, |t| t.mode.clone()),
                    parameter: parameter.into(),
                    requested,
                    axis_value: requested,
                    delivered_metric: "none".into(),
                    delivered: None,
                    messages_in: st.as_ref().map_or(0, |s| s.messages_in),
                    messages_out: st.as_ref().map_or(0, |s| s.messages_out),
                    first_applied_s: self.timeline.event_s(&f.name, FaultEvent::Applied),
                    cleared_s: self.timeline.event_s(&f.name, FaultEvent::Cleared),
                }
            })
            .collect()
    }

    /// Ends the run at `end`: decides every expectation and trigger and
    /// classifies the run. `baseline` is the paired baseline's class, if any.
    /// A baseline's false-alarm probes follow its expectations in the
    /// result (they do not enter its class).
    pub fn finish(mut self, end: Duration, baseline: Option<&ClassifiedVerdict>) -> RunJudgement {
        let end_s = end.as_secs_f64();
        let mut results = self.set.finish(end_s, &self.timeline);
        let facts: Vec<FaultFacts> = self
            .faults
            .iter_mut()
            .map(|f| FaultFacts {
                name: f.name.clone(),
                trigger: match f.pending_s {
                    // the condition was met, but the run ended before the
                    // phase-shifted fire time
                    Some(p) => TriggerState::TimedOut {
                        t_s: p,
                        reason: format!(
                            "its phase-shifted fire time {p} s is after the end of the run ({end_s} s)"
                        ),
                    },
                    None => f.trigger.finish(end_s).clone(),
                },
                accepted: f.accepted,
                applied: matches!(f.trigger.state(), TriggerState::Fired { .. })
                    && f.unsupported.is_none()
                    && self
                        .timeline
                        .event_s(&f.name, FaultEvent::Applied)
                        .is_some(),
                unsupported: f.unsupported.clone(),
            })
            .collect();
        let verdict_class = classify(&RunFacts {
            error: self.error.clone(),
            baseline,
            injector_enabled: self.injector_enabled,
            real_time_factor: None,
            input_starvation: self.inputs.finish(end_s),
            faults: &facts,
            expectations: &results,
        });
        self.timeline.record_expectations(&results);
        if let Some(mut fa) = self.false_alarms.take() {
            results.extend(fa.finish(end_s, &self.timeline));
        }
        RunJudgement {
            verdict_class,
            test: Some(TestInfo {
                test: self.test.name.clone(),
                requirement: self.test.requirement.clone(),
                hazard: self.test.hazard.clone(),
                baseline: self.baseline,
            }),
            timeline: Some(self.timeline),
            expectations: results,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use breakbench_oracle::expect::VerdictClass;

    /// A port whose channels deliver one input every 0.1 s, except `scan`
    /// between `stall.0` and `stall.1` s.
    struct StallingPort {
        now_s: f64,
        stall: (f64, f64),
    }

    impl FaultPort for StallingPort {
        fn enabled(&self) -> bool {
            true
        }
        fn set_enabled(&mut self, _: bool, _: Duration) -> Result<(), String> {
            Ok(())
        }
        fn set_fault(&mut self, _: &FaultSpec, _: Duration) -> Result<(), String> {
            Ok(())
        }
        fn clear_fault(&mut self, _: &str, _: Duration) -> Result<(), String> {
            Ok(())
        }
        fn counts(&self, channel: &str) -> Option<ChannelCounts> {
            let at = |t: f64| (t * 10.0 + 1e-9).floor() as u64 + 1;
            let (t, (t0, t1)) = (self.now_s, self.stall);
            let n = match channel {
                "scan" if t >= t1 => at(t0) + at(t - t1),
                "scan" if t >= t0 => at(t0),
                _ => at(t),
            };
            Some(ChannelCounts {
                messages_in: n,
                messages_out: n,
                messages_faulted: 0,
            })
        }
        fn cleared(&self, _: &str) -> Option<Duration> {
            None
        }
        fn is_active(&self, _: &str, _: Duration) -> bool {
            false
        }
    }

    /// The shipped scan-loss test's baseline driven against a port whose
    /// `scan` input stalls for `stall` (s): its verdict class and reason.
    fn baseline_with_stall(stall: (f64, f64)) -> ClassifiedVerdict {
        let path = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("scenarios/tests/scan_loss_at_obstacle.yaml");
        let s = super::super::Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let test = &s.file.tests[0];
        assert_eq!(test.max_input_gap_s, 1.0, "the default limit");
        let controller = super::super::run::controller_under_test(
            s.navigator_for(&Default::default()),
            &s.world,
        )
        .unwrap();
        let mut d = TestDriver::new(test, &s.world, 1, true, 0.0, controller.as_ref()).unwrap();
        let mut port = StallingPort { now_s: 0.0, stall };
        for k in 0..=1000 {
            let now = Duration::from_millis(10 * k);
            port.now_s = now.as_secs_f64();
            d.before_relay(now, &mut port).unwrap();
            d.after_step(now, &port).unwrap();
        }
        d.finish(Duration::from_secs(10), None).verdict_class
    }

    #[test]
    fn a_gap_in_the_injectors_input_makes_the_run_invalid() {
        // scan silent from 4.0 s to 5.5 s: the input before the stall came
        // at 4.0 s, the next at 5.5 s
        let v = baseline_with_stall((4.0, 5.5));
        assert_eq!(v.class, VerdictClass::Invalid, "{}", v.reason);
        assert!(
            v.reason.starts_with("sensor starvation")
                && v.reason
                    .contains("channel 'scan' for 1.500 s from t = 4.000 s"),
            "{}",
            v.reason
        );
        // a stall of 1.0 s is within the limit: no starvation (the run is
        // still not a pass: this port has no ground truth to judge)
        let v = baseline_with_stall((4.0, 5.0));
        assert!(!v.reason.contains("starvation"), "{}", v.reason);
    }
}
