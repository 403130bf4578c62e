//! The declared size of a scenario's plan, computed from the file's list
//! lengths alone (overflow-checked, nothing materialised), and the size
//! limits every scenario file is held to at load (REQ-PLAN-SIZE).
//!
//! The order matters: [`ScenarioFile::validate`] checks these sizes before
//! anything that walks the grid, and [`Scenario::load`] refuses an
//! oversized file before reading it, so the time and memory a refusal takes
//! do not grow with the grid it describes.

use super::*;

/// Largest scenario file, bytes (the shipped ones are under 3 kB): a larger
/// one is refused before it is read.
pub const MAX_SCENARIO_BYTES: u64 = 1 << 20;
/// Most values of one fault axis (the shipped studies use at most 5).
pub const MAX_AXIS_VALUES: usize = 1000;
/// Most values of one navigator axis.
pub const MAX_NAVIGATOR_AXIS_VALUES: usize = 64;
/// Most navigator variants (the product of the navigator axes' lengths):
/// each is a navigator built and checked at load and its own nominal set.
pub const MAX_NAVIGATOR_VARIANTS: u64 = 1024;
/// Most pairs of values `design: pairwise` covers (Σ over axis pairs of
/// the product of their lengths): its construction is quadratic in them.
pub const MAX_PAIRWISE_PAIRS: u64 = 5_000;
/// Most resilience tests in one scenario file.
pub const MAX_TESTS: usize = 1000;

/// The declared size of a plan, from list lengths only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeclaredSize {
    /// Navigator variants (1 without navigator axes).
    pub variants: u64,
    /// Grid cells: product of every axis' length (0 without fault axes);
    /// with `design: pairwise`, the covering array's cells.
    pub cells: u64,
    /// Every run of [`crate::plan::plan_file`]: grid, nominal,
    /// canary and the resilience tests' runs.
    pub runs: u64,
}

impl ScenarioFile {
    /// The plan's size from the file's list lengths, with overflow-checked
    /// arithmetic; equal to `plan_file(self).len()` (held by a test).
    ///
    /// # Errors
    /// The field whose length makes a count overflow `u64` and a message.
    pub fn declared_size(&self) -> Result<DeclaredSize, (String, String)> {
        let over = |field: String, what: &str| {
            Err((
                field,
                format!(
                    "the plan's {what} overflow 2^64: the product of the axes' lengths is absurd"
                ),
            ))
        };
        let mut variants = 1u64;
        for (i, a) in self.navigator_axes.iter().enumerate() {
            match variants.checked_mul(a.values.len() as u64) {
                Some(v) => variants = v,
                None => return over(format!("navigator_axes[{i}].values"), "variants"),
            }
        }
        let mut cells = if self.axes.is_empty() { 0 } else { variants };
        for (i, a) in self.axes.iter().enumerate() {
            match cells.checked_mul(a.values.len() as u64) {
                Some(c) => cells = c,
                None => return over(format!("axes[{i}].values"), "cells"),
            }
        }
        if self.design == Design::Pairwise && !self.axes.is_empty() {
            cells = self.pairwise_cells()?;
        }
        if let Some(n) = self.sampled_cells()? {
            cells = n;
        }
        let grid = cells.checked_mul(self.repeats as u64);
        let nominal = (self.nominal.runs as u64).checked_mul(variants);
        let mut runs = grid
            .zip(nominal)
            .and_then(|(g, n)| g.checked_add(n))
            .and_then(|r| r.checked_add(u64::from(self.canary.is_some())));
        for t in &self.tests {
            let per_repeat =
                t.phase_sweep.as_ref().map_or(1, |ps| ps.steps as u64) + u64::from(t.baseline);
            runs = runs.and_then(|r| r.checked_add(per_repeat.checked_mul(self.repeats as u64)?));
        }
        match runs {
            Some(runs) => Ok(DeclaredSize {
                variants,
                cells,
                runs,
            }),
            None => over("repeats".into(), "runs"),
        }
    }

    /// The cells of a sampled design (REQ-STAT-SAMPLED) or a `rare_event:`
    /// section (REQ-STAT-RARE): one per point; refused before anything
    /// draws them when they cannot be drawn.
    ///
    /// # Errors
    /// `("navigator_axes", message)` with navigator axes (discrete: no
    /// range to sample), `("axes", message)` over
    /// [`crate::scenario::sampled::MAX_SOBOL_AXES`] Sobol' axes, and
    /// `("rare_event", message)` unless it has exactly one fault axis on a
    /// grid design.
    fn sampled_cells(&self) -> Result<Option<u64>, (String, String)> {
        use crate::scenario::sampled::MAX_SOBOL_AXES;
        if let Some(r) = &self.rare_event {
            if self.axes.len() != 1 || !self.navigator_axes.is_empty() || !self.design.is_grid() {
                return Err((
                    "rare_event".into(),
                    format!(
                        "importance sampling draws one fault axis: the scenario needs exactly one axis (it has {} fault and {} navigator axes) and no design",
                        self.axes.len(),
                        self.navigator_axes.len()
                    ),
                ));
            }
            return Ok(Some(r.samples as u64));
        }
        let Some(s) = self.design.sampling() else {
            return Ok(None);
        };
        if !self.navigator_axes.is_empty() {
            return Err((
                "navigator_axes".into(),
                "a sampled design samples the fault axes' ranges; navigator axes are discrete: use a grid or pairwise design".into(),
            ));
        }
        if s.kind == SampleKind::Sobol && self.axes.len() > MAX_SOBOL_AXES {
            return Err((
                "axes".into(),
                format!(
                    "{} axes, at most {MAX_SOBOL_AXES} for design kind sobol (the Joe-Kuo direction numbers held); use latin_hypercube",
                    self.axes.len()
                ),
            ));
        }
        Ok(Some(if self.axes.is_empty() {
            0
        } else {
            s.samples as u64
        }))
    }

    /// The cells of `design: pairwise` (REQ-STAT-PAIRWISE): built, once the
    /// pairs to cover are known to be at most [`MAX_PAIRWISE_PAIRS`].
    ///
    /// # Errors
    /// `("design", message)` with fewer than three axes (two axes' pairs are
    /// the full grid) or too many pairs.
    fn pairwise_cells(&self) -> Result<u64, (String, String)> {
        let sizes: Vec<u64> = self
            .axes
            .iter()
            .map(|a| a.values.len() as u64)
            .chain(self.navigator_axes.iter().map(|a| a.values.len() as u64))
            .collect();
        if sizes.len() < 3 {
            return Err((
                "design".into(),
                format!(
                    "pairwise needs three or more axes (fault and navigator axes together); with {} it is the full grid: remove design: pairwise",
                    sizes.len()
                ),
            ));
        }
        let mut pairs = 0u64;
        for i in 0..sizes.len() {
            for j in i + 1..sizes.len() {
                pairs += sizes[i] * sizes[j];
            }
        }
        if pairs > MAX_PAIRWISE_PAIRS {
            return Err((
                "design".into(),
                format!("pairwise: {pairs} pairs of values to cover, at most {MAX_PAIRWISE_PAIRS}"),
            ));
        }
        Ok(self.cell_indices().len() as u64)
    }

    /// The size limits, checked before anything walks the grid: the length
    /// of every value list, the number of tests and of navigator variants,
    /// and a plan whose run count fits `u64`.
    ///
    /// # Errors
    /// `(field, message)` of the first list over its limit.
    pub fn check_sizes(&self) -> Result<DeclaredSize, (String, String)> {
        for (i, a) in self.axes.iter().enumerate() {
            if a.values.len() > MAX_AXIS_VALUES {
                return Err((
                    format!("axes[{i}].values"),
                    format!(
                        "{} values, at most {MAX_AXIS_VALUES} per axis (each is a grid column of repeats runs)",
                        a.values.len()
                    ),
                ));
            }
        }
        for (i, a) in self.navigator_axes.iter().enumerate() {
            if a.values.len() > MAX_NAVIGATOR_AXIS_VALUES {
                return Err((
                    format!("navigator_axes[{i}].values"),
                    format!(
                        "{} values, at most {MAX_NAVIGATOR_AXIS_VALUES} per navigator axis",
                        a.values.len()
                    ),
                ));
            }
        }
        if self.tests.len() > MAX_TESTS {
            return Err((
                "tests".into(),
                format!(
                    "{} tests, at most {MAX_TESTS} per scenario file",
                    self.tests.len()
                ),
            ));
        }
        let size = self.declared_size()?;
        if size.variants > MAX_NAVIGATOR_VARIANTS {
            let lens: Vec<String> = self
                .navigator_axes
                .iter()
                .map(|a| a.values.len().to_string())
                .collect();
            return Err((
                "navigator_axes".into(),
                format!(
                    "{} navigator variants ({}), at most {MAX_NAVIGATOR_VARIANTS}: each is a navigator checked at load with its own nominal set",
                    size.variants,
                    lens.join(" x ")
                ),
            ));
        }
        Ok(size)
    }
}

/// Refuses a scenario file above [`MAX_SCENARIO_BYTES`] before reading it.
///
/// # Errors
/// A [`ConfigError`] naming the file (line 0: the whole file), or its I/O
/// error.
pub(super) fn check_file_size(path: &Path) -> Result<(), ConfigError> {
    let len = std::fs::metadata(path)
        .map_err(|e| ConfigError {
            path: path.display().to_string(),
            line: 0,
            column: 0,
            field: String::new(),
            message: format!("cannot read: {e}"),
        })?
        .len();
    if len > MAX_SCENARIO_BYTES {
        return Err(ConfigError {
            path: path.display().to_string(),
            line: 0,
            column: 0,
            field: String::new(),
            message: format!(
                "{len} bytes, above the {MAX_SCENARIO_BYTES}-byte limit of a scenario file: not read"
            ),
        });
    }
    Ok(())
}

impl ScenarioFile {
    /// Run ids name files: two tests must not plan the same one (a test
    /// named `t_p0` beside a phase-swept test `t`). Grid, nominal and canary
    /// ids are checked with the axes. Test run ids end in `_r<repeat>`, so
    /// two collide only if they do at repeat 0: the tests' plan with one
    /// repeat and no grid suffices (nothing grows with the grid).
    ///
    /// # Errors
    /// `(tests[i].name, message)` naming the run id and both tests.
    pub(super) fn check_test_run_ids(&self) -> Result<(), (String, String)> {
        let tests_only = ScenarioFile {
            axes: Vec::new(),
            navigator_axes: Vec::new(),
            repeats: 1,
            nominal: Nominal {
                runs: 0,
                convergence: self.nominal.convergence.clone(),
            },
            canary: None,
            escape_search: Vec::new(),
            ..self.clone()
        };
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        for r in crate::plan::plan_file(&tests_only) {
            let Some(owner) = r.test.clone() else {
                continue;
            };
            if let Some(other) = seen.insert(r.run_id.clone(), owner.clone()) {
                let i = self
                    .tests
                    .iter()
                    .rposition(|t| t.name == owner || t.name == other)
                    .unwrap_or(0);
                return Err((
                    format!("tests[{i}].name"),
                    format!(
                        "run id '{}' is planned by both '{other}' and '{owner}': rename a test",
                        r.run_id
                    ),
                ));
            }
        }
        Ok(())
    }
}
