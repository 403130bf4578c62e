//! A resilience test on the ROS 2 graph: the graph's observables, as they
//! arrive, put back into the step order of an in-process run and fed to the
//! same [`TestDriver`] (REQ-TEST-GRAPH).
//!
//! Transport-free: the `breakbench_orchestrator` node converts messages and
//! hands them here; the injector side is any [`FaultPort`] (the node's client
//! of `fault_injector`). The order of an in-process step `t` is: ground truth
//! at `t`, triggers (`before_relay`), the messages delivered at `t`, the
//! command of the control instant `t`, what the controller logged and
//! reported, then `applied` / `cleared` and the expectations (`after_step`).
//! On the graph, in lock-step with a gate (the sim_bridge's `gate_topic`):
//!
//! 1. [`GraphTest::on_truth`] with the ground-truth sample at `t` (the
//!    bridge has published it and waits for the gate before publishing the
//!    step's sensors): first every step up to `t - step` is completed
//!    (`after_step`, from the buffered samples stamped at or before it),
//!    then the truth sample is recorded and the triggers stepped at `t`; a
//!    fired trigger's fault is set through the port before it returns. The
//!    caller then publishes the gate stamped `t`.
//! 2. The buffered samples: delivered odometry and `/diagnostics`,
//!    `/rosout` by their header stamps; `/cmd_vel` (unstamped Twist) by
//!    count: the k-th command answers the k-th control instant, the steps
//!    `s` with `s >= next` (next from 0, growing by the control period at
//!    each instant), as the sim_bridge's lock-step and the in-process loop
//!    define them.
//!
//! Triggers are stepped at the ground-truth instants only (50 Hz in the
//! corridor robot), not at every plant step: a trigger over ground truth
//! fires at the same instant as in-process; an `at_time` trigger between two
//! truth samples fires at the next one.

use std::collections::VecDeque;
use std::time::Duration;

use breakbench_oracle::expect::{ClassifiedVerdict, RunJudgement};
use kraken_faults::SensorMsg;
use kraken_interfaces::ros::{DiagnosticArray, Log, Odometry};

use super::manifest::FaultRecord;
use super::resilience_run::{FaultPort, TestDriver};
use super::CampaignError;

/// The stamp of a ROS message header as a duration since sim time 0
/// (negative stamps as 0).
fn stamp_of(t: &kraken_interfaces::ros::Time) -> Duration {
    Duration::from_secs_f64(t.as_secs_f64().max(0.0))
}

/// One resilience-test run on the graph (see the module docs).
pub struct GraphTest {
    driver: TestDriver,
    step: Duration,
    period: Duration,
    /// The next control instant's lower bound (`next` of the module docs).
    next_control: Duration,
    /// The last step whose instant was tested for being a control instant.
    instant_cursor: Duration,
    /// The last step completed (`after_step` called).
    done: Duration,
    cmd: VecDeque<(Duration, f64, f64)>,
    odom: VecDeque<(Duration, SensorMsg)>,
    logs: Vec<Log>,
    diagnostics: Vec<DiagnosticArray>,
    /// Commands received.
    commands: u64,
}

impl GraphTest {
    /// A run of `driver` on a plant stepping by `step` with a control instant
    /// every `period` (the in-process loop's and the sim_bridge's schedule).
    pub fn new(driver: TestDriver, step: Duration, period: Duration) -> Self {
        Self {
            driver,
            step,
            period,
            next_control: Duration::ZERO,
            instant_cursor: Duration::ZERO,
            done: Duration::ZERO,
            cmd: VecDeque::new(),
            odom: VecDeque::new(),
            logs: Vec::new(),
            diagnostics: Vec::new(),
            commands: 0,
        }
    }

    /// The next control instant after the ones already assigned.
    fn next_instant(&mut self) -> Duration {
        loop {
            self.instant_cursor += self.step;
            if self.instant_cursor >= self.next_control {
                self.next_control += self.period;
                return self.instant_cursor;
            }
        }
    }

    /// A `/cmd_vel` command (geometry_msgs/Twist: m/s, rad/s), stamped with
    /// the next control instant.
    pub fn on_cmd_vel(&mut self, linear_m_s: f64, angular_rad_s: f64) {
        let t = self.next_instant();
        self.commands += 1;
        self.cmd.push_back((t, linear_m_s, angular_rad_s));
    }

    /// The control instant of the last command received (`None` before the first).
    pub fn last_command_s(&self) -> Option<f64> {
        (self.commands > 0).then_some(self.instant_cursor.as_secs_f64())
    }

    /// An odometry message as delivered to the robot (after the injector),
    /// at its header stamp.
    pub fn on_odom(&mut self, msg: Odometry) {
        let t = stamp_of(&msg.header.stamp);
        self.odom.push_back((t, SensorMsg::Odometry(msg)));
    }

    /// A `/rosout` record.
    pub fn on_log(&mut self, l: Log) {
        self.logs.push(l);
    }

    /// A `/diagnostics` array.
    pub fn on_diagnostics(&mut self, a: DiagnosticArray) {
        self.diagnostics.push(a);
    }

    /// Completes every step after the last completed one up to `upto`.
    ///
    /// # Errors
    /// Those of [`TestDriver::after_step`].
    pub fn complete_to<P: FaultPort + ?Sized>(
        &mut self,
        upto: Duration,
        port: &P,
    ) -> Result<(), CampaignError> {
        while self.done + self.step <= upto {
            let s = self.done + self.step;
            let s_s = s.as_secs_f64() + breakbench_oracle::expect::TIME_EPS_S;
            while self.odom.front().is_some_and(|(t, _)| *t <= s) {
                let (t, m) = self.odom.pop_front().expect("checked");
                self.driver.on_delivered(t, &m);
            }
            while self.cmd.front().is_some_and(|(t, _, _)| *t <= s) {
                let (t, v, w) = self.cmd.pop_front().expect("checked");
                self.driver.on_cmd_vel(t, v, w);
            }
            let (logs, later): (Vec<Log>, Vec<Log>) = std::mem::take(&mut self.logs)
                .into_iter()
                .partition(|l| l.stamp.as_secs_f64() <= s_s);
            self.logs = later;
            let (diags, later): (Vec<DiagnosticArray>, Vec<DiagnosticArray>) =
                std::mem::take(&mut self.diagnostics)
                    .into_iter()
                    .partition(|a| a.header.stamp.as_secs_f64() <= s_s);
            self.diagnostics = later;
            self.driver.on_controller(logs, diags);
            self.driver.after_step(s, port)?;
            self.done = s;
        }
        Ok(())
    }

    /// The ground-truth sample `msg` (`/oracle/odom`) at its stamp `t`:
    /// completes the steps before `t`, records it and steps the triggers at
    /// `t` (setting or clearing faults through `port`). Returns `t`, the
    /// stamp of the gate the caller publishes next.
    ///
    /// # Errors
    /// Those of [`TestDriver::before_relay`] and [`TestDriver::after_step`].
    pub fn on_truth<P: FaultPort + ?Sized>(
        &mut self,
        msg: &Odometry,
        port: &mut P,
    ) -> Result<Duration, CampaignError> {
        let t = stamp_of(&msg.header.stamp);
        self.complete_to(t.saturating_sub(self.step), port)?;
        self.driver.on_truth(msg);
        self.driver.before_relay(t, port)?;
        Ok(t)
    }

    /// Whether a set fault's `applied` or `cleared` is still to be read
    /// from the injector (the caller then waits for a status at least as
    /// recent as the steps it completes).
    pub fn watching_injector(&self) -> bool {
        self.driver.awaiting_injector()
    }

    /// Completes the run at `end` and judges it; `baseline` is the paired
    /// baseline run's class. Returns the judgement and the fault records.
    ///
    /// # Errors
    /// Those of [`TestDriver::after_step`].
    pub fn finish<P: FaultPort + ?Sized>(
        mut self,
        end: Duration,
        port: &P,
        baseline: Option<&ClassifiedVerdict>,
    ) -> Result<(RunJudgement, Vec<FaultRecord>), CampaignError> {
        self.complete_to(end, port)?;
        let records = self.driver.fault_records(port);
        Ok((self.driver.finish(end, baseline), records))
    }
}
