//! [`ResilienceTest::validate`]: the semantic checks of a resilience test,
//! one function per step, in the order they run.

use breakbench_oracle::expect::{check_expectations, ExpectationSpec, TriggerSpec};
use kraken_faults::FaultError;
use kraken_interfaces::ConfigError;

use super::{ResilienceTest, TestFault};
use crate::scenario::{check_harness_fault, harness_channel, harness_channel_names};

impl ResilienceTest {
    /// Semantic checks; `field` is the test's path (`tests[0]`).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field: empty names, duplicate faults,
    /// an unknown channel, mode or parameter, a parameter value its fault
    /// stage refuses, both `duration_s` and `clear`, a bad trigger or
    /// surfacing, and every expectation check
    /// ([`check_expectations`]). A mode the injector does not implement for
    /// the channel's message type, or one that does not reach what the
    /// navigator reads, is not refused here: its runs are `unsupported`.
    pub fn validate(&self, field: &str, path: &str) -> Result<(), ConfigError> {
        self.check_names(field, path)?;
        let names = self.fault_names();
        for (i, f) in self.faults.iter().enumerate() {
            let at = format!("{field}.faults[{i}]");
            self.check_fault_channel(i, f, &at, &names, path)?;
            check_fault_end(f, &at, &names, path)?;
        }
        if let Err((f, m)) = self.check_trigger_graph(field) {
            return refuse(path, f, m);
        }
        self.check_input_gap(field, path)?;
        let all = self.check_expectation_list(field, &names, path)?;
        self.check_phase_sweep(field, &names, path)?;
        self.check_clear_times(field, path)?;
        self.check_self_test(field, &all, path)
    }

    /// [`Self::validate`]'s first step: `name`, `requirement` and `hazard`
    /// are not empty, and `name` uses only A-Z, a-z, 0-9 and _.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field.
    fn check_names(&self, field: &str, path: &str) -> Result<(), ConfigError> {
        for (k, v) in [
            ("name", &self.name),
            ("requirement", &self.requirement),
            ("hazard", &self.hazard),
        ] {
            if v.is_empty() {
                return refuse(path, format!("{field}.{k}"), "is empty".into());
            }
        }
        if !self
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return refuse(
                path,
                format!("{field}.name"),
                format!(
                    "'{}' must use only A-Z, a-z, 0-9 and _ (it names run files)",
                    self.name
                ),
            );
        }
        Ok(())
    }

    /// Checks fault `i` (`f`, at field `at`; `names` are all the test's
    /// fault names): its name is not empty nor a duplicate, its channel is a
    /// harness channel no earlier fault uses, and its mode and parameters
    /// make a fault spec its stage accepts (a mode the injector does not
    /// implement for the channel's type is not refused: its runs are
    /// `unsupported`).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field.
    fn check_fault_channel(
        &self,
        i: usize,
        f: &TestFault,
        at: &str,
        names: &[&str],
        path: &str,
    ) -> Result<(), ConfigError> {
        if f.name.is_empty() {
            return refuse(path, format!("{at}.name"), "is empty".into());
        }
        if names[..i].contains(&f.name.as_str()) {
            return refuse(
                path,
                format!("{at}.name"),
                format!("duplicate fault '{}'", f.name),
            );
        }
        let Some(hc) = harness_channel(&f.channel) else {
            return refuse(
                path,
                format!("{at}.channel"),
                format!(
                    "unknown channel '{}' (the in-process harness has {})",
                    f.channel,
                    harness_channel_names()
                ),
            );
        };
        if let Some(j) = self.faults[..i].iter().position(|o| o.channel == f.channel) {
            return refuse(
                path,
                format!("{at}.channel"),
                format!(
                    "channel '{}' already carries fault {j} ('{}'); one fault per channel (a second would replace the first)",
                    f.channel, self.faults[j].name
                ),
            );
        }
        let spec = f
            .spec()
            .map_err(|(k, m)| ConfigError::semantic(path, &format!("{at}.{k}"), m))?;
        // A mode the injector does not implement for the channel's type
        // is not refused: its runs are `unsupported` (JUnit skipped).
        match check_harness_fault(hc, &f.channel, &spec) {
            Ok(_) | Err(FaultError::Unsupported { .. }) => Ok(()),
            Err(e) => refuse(path, format!("{at}.parameters"), e.to_string()),
        }
    }

    /// [`Self::validate`]'s step after the faults: `max_input_gap_s` is in
    /// (0, 3600] s.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field.
    fn check_input_gap(&self, field: &str, path: &str) -> Result<(), ConfigError> {
        if !(self.max_input_gap_s.is_finite()
            && self.max_input_gap_s > 0.0
            && self.max_input_gap_s <= 3600.0)
        {
            return refuse(
                path,
                format!("{field}.max_input_gap_s"),
                format!("{:?} must be in (0, 3600] s", self.max_input_gap_s),
            );
        }
        Ok(())
    }

    /// Checks the expectations: at least one (a fault's `surfacing` counts),
    /// the file's pass [`check_expectations`], and so do they with the
    /// generated surfacing expectations added. Returns all of them
    /// ([`Self::expectations`]).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field.
    fn check_expectation_list(
        &self,
        field: &str,
        names: &[&str],
        path: &str,
    ) -> Result<Vec<ExpectationSpec>, ConfigError> {
        if self.expectations.is_empty() && self.faults.iter().all(|f| f.surfacing.is_none()) {
            return refuse(
                path,
                format!("{field}.expectations"),
                "needs at least one expectation".into(),
            );
        }
        check_expectations(
            &self.expectations,
            names,
            &format!("{field}.expectations"),
            path,
        )?;
        // the generated surfacing expectations must not collide with the file's
        let all = self.expectations();
        check_expectations(&all, names, &format!("{field}.expectations"), path)?;
        Ok(all)
    }

    /// Checks `phase_sweep`, if given: its fault is one of `names`, `span_s`
    /// is in (0, 3600] s and `steps` in 2..=1000.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field.
    fn check_phase_sweep(
        &self,
        field: &str,
        names: &[&str],
        path: &str,
    ) -> Result<(), ConfigError> {
        let Some(ps) = &self.phase_sweep else {
            return Ok(());
        };
        let at = format!("{field}.phase_sweep");
        if !names.contains(&ps.fault.as_str()) {
            return refuse(
                path,
                format!("{at}.fault"),
                format!(
                    "unknown fault '{}' (the test has {})",
                    ps.fault,
                    names.join(", ")
                ),
            );
        }
        if !(ps.span_s.is_finite() && ps.span_s > 0.0 && ps.span_s <= 3600.0) {
            return refuse(
                path,
                format!("{at}.span_s"),
                "must be a finite number in (0, 3600] (s)".into(),
            );
        }
        if !(2..=1000).contains(&ps.steps) {
            return refuse(path, format!("{at}.steps"), "must be in 2..=1000".into());
        }
        Ok(())
    }

    /// Fixed times knowable at load: a fault's `at_time` clear must come
    /// after its `at_time` trigger (the largest phase of a phase sweep
    /// included), or it would clear a fault never set.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the clear's `t_s`.
    fn check_clear_times(&self, field: &str, path: &str) -> Result<(), ConfigError> {
        for (i, f) in self.faults.iter().enumerate() {
            let phase_max = self
                .phase_sweep
                .as_ref()
                .filter(|ps| ps.fault == f.name)
                .map_or(0.0, |ps| ps.phases().last().copied().unwrap_or(0.0));
            if let (TriggerSpec::AtTime(t), Some(TriggerSpec::AtTime(c))) = (&f.trigger, &f.clear) {
                if c.t_s <= t.t_s + phase_max {
                    return refuse(
                        path,
                        format!("{field}.faults[{i}].clear.at_time.t_s"),
                        format!(
                            "{} s is not after the fault's trigger at {} s{}: the clear would come before the fault",
                            c.t_s,
                            t.t_s + phase_max,
                            if phase_max > 0.0 { " (its largest phase included)" } else { "" }
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    /// Checks `self_test`, if given: `reason_contains` is not empty and
    /// every `expect_satisfied` name is one of `all` (the test's
    /// expectations, surfacing included).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the field.
    fn check_self_test(
        &self,
        field: &str,
        all: &[ExpectationSpec],
        path: &str,
    ) -> Result<(), ConfigError> {
        let Some(st) = &self.self_test else {
            return Ok(());
        };
        if st.reason_contains.as_deref() == Some("") {
            return refuse(
                path,
                format!("{field}.self_test.reason_contains"),
                "is empty".into(),
            );
        }
        for (i, n) in st.expect_satisfied.iter().enumerate() {
            if !all.iter().any(|e| &e.name == n) {
                let known: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
                return refuse(
                    path,
                    format!("{field}.self_test.expect_satisfied[{i}]"),
                    format!(
                        "unknown expectation '{n}' (the test has {})",
                        known.join(", ")
                    ),
                );
            }
        }
        Ok(())
    }
}

/// A semantic [`ConfigError`] of the file at `path`, at field `f`, saying `m`.
fn refuse<T>(path: &str, f: String, m: String) -> Result<T, ConfigError> {
    Err(ConfigError::semantic(path, &f, m))
}

/// Checks how fault `f` (at field `at`; `names` are the test's fault names)
/// starts and ends: at most one of `duration_s` and `clear`, a `duration_s`
/// that is finite and > 0 s, a valid trigger and clear, and a `surfacing`
/// with `within_s` finite and > 0 s and a diagnostic name.
///
/// # Errors
/// A [`ConfigError`] naming the field.
fn check_fault_end(f: &TestFault, at: &str, names: &[&str], path: &str) -> Result<(), ConfigError> {
    match (f.duration_s, &f.clear) {
        (Some(_), Some(_)) => {
            return refuse(
                path,
                at.to_string(),
                "give at most one of duration_s, clear".into(),
            );
        }
        (Some(d), None) if !(d.is_finite() && d > 0.0) => {
            return refuse(
                path,
                format!("{at}.duration_s"),
                "must be a finite number > 0 (s)".into(),
            );
        }
        _ => {}
    }
    f.trigger
        .check(&format!("{at}.trigger"), &f.name, names)
        .or_else(|(k, m)| refuse(path, k, m))?;
    if let Some(c) = &f.clear {
        c.check(&format!("{at}.clear"), "", names)
            .or_else(|(k, m)| refuse(path, k, m))?;
    }
    if let Some(s) = &f.surfacing {
        if !(s.within_s.is_finite() && s.within_s > 0.0) {
            return refuse(
                path,
                format!("{at}.surfacing.within_s"),
                "must be a finite number > 0 (s)".into(),
            );
        }
        if s.diagnostic.is_empty() {
            return refuse(
                path,
                format!("{at}.surfacing.diagnostic"),
                "is empty".into(),
            );
        }
    }
    Ok(())
}
