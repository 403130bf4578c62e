//! Human and machine outputs of a campaign: report.html and junit.xml.

use std::path::Path;

use super::atomic::write_atomic;
use super::manifest::{Manifest, RunKind};
pub use super::run_digest::{run_outcome, Outcome};
use super::run_digest::{RunDigest, RunSet};
use super::scenario::{Scenario, ScenarioFile};
use super::summary::Summary;
use super::CampaignError;

pub use super::markup::xml_escape;

/// junit.xml: one test case per run and per check.
///
/// A run's test case carries the oracle's outcome as `<properties>` (and the
/// same line in system-out) and fails only when the *harness* says the run is
/// not valid evidence (a canary that did not detect its violation, an
/// isolation check that changed a verdict). Safety violations and mission
/// failures in fault cells are results of the study, not harness failures.
/// `time` is the run's wall-clock time in seconds, as JUnit consumers expect.
///
/// A resilience test's run is a pass, a failure (`fail`), skipped
/// (`unsupported`, `precondition_failed`) or an error (`invalid`, `error`),
/// with the reason; except for the fault runs of a test with `self_test`
/// (of `file`), which pass when they meet the declaration and fail when they
/// do not, whatever their class. Each self-test also gets its check case
/// (`self_test_<test>`).
pub fn junit(file: &ScenarioFile, summary: &Summary, manifests: &[Manifest]) -> String {
    junit_of_runs(summary, &mut RunSet::of(file, manifests))
}

/// [`junit`] of the runs in `runs` (sorted here), the same bytes
/// (REQ-SCALE-STREAM).
pub fn junit_of_runs(summary: &Summary, runs: &mut RunSet) -> String {
    let mut s = String::new();
    junit_to(&mut s, summary, runs);
    s
}

/// Writes [`junit`] of the runs in `runs` to the new file `path` as it is
/// rendered, one test case at a time (no whole document in memory:
/// REQ-SCALE-STREAM). Not atomic: for a staging directory.
///
/// # Errors
/// I/O errors with the path.
pub fn write_junit(path: &Path, summary: &Summary, runs: &mut RunSet) -> Result<(), CampaignError> {
    let f = std::fs::File::create(path).map_err(|e| CampaignError::io(path, e))?;
    let mut w = IoFmt {
        inner: std::io::BufWriter::new(f),
        error: None,
    };
    junit_to(&mut w, summary, runs);
    if let Some(e) = w.error.take() {
        return Err(CampaignError::io(path, e));
    }
    w.inner
        .into_inner()
        .map_err(|e| CampaignError::io(path, e.into_error()))?
        .sync_all()
        .map_err(|e| CampaignError::io(path, e))
}

/// An [`std::io::Write`] as a [`std::fmt::Write`], keeping the first I/O error.
struct IoFmt<W: std::io::Write> {
    inner: W,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> std::fmt::Write for IoFmt<W> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.inner.write_all(s.as_bytes()).map_err(|e| {
            self.error.get_or_insert(e);
            std::fmt::Error
        })
    }
}

/// A [`std::fmt::Write`] that keeps nothing (the counting pass of [`junit_to`]).
struct Discard;

impl std::fmt::Write for Discard {
    fn write_str(&mut self, _: &str) -> std::fmt::Result {
        Ok(())
    }
}

/// Renders junit.xml of `runs` (sorted here) into `w`: a first pass counts
/// the failures, errors and skips the `<testsuite>` element states, the
/// second writes the test cases.
fn junit_to(w: &mut impl std::fmt::Write, summary: &Summary, runs: &mut RunSet) {
    runs.sort();
    let ds = runs.digests();
    let mut counted = Cases::new(Discard);
    for d in ds {
        run_case(&mut counted, d);
    }
    junit_head(w, summary, counted, ds.len());
    let mut cases = Cases::new(&mut *w);
    for d in ds {
        run_case(&mut cases, d);
    }
    junit_tail(&mut cases, summary);
}

/// Writes junit.xml's head into `w`: the `<testsuite>` element with the
/// counts of `runs` (the `n` run cases, counted) and of `summary`'s check
/// cases.
fn junit_head(w: &mut impl std::fmt::Write, summary: &Summary, mut runs: Cases<Discard>, n: usize) {
    let checks = check_cases(&mut runs, summary);
    let self_tests = self_test_cases(&mut runs, summary);
    let total = n + checks + self_tests;
    let _ = write!(
        w,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{total}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
        xml_escape(&summary.scenario_name),
        runs.failures,
        runs.errors,
        runs.skipped
    );
}

/// Appends `summary`'s check cases and junit.xml's end to `cases` (after
/// the run cases).
fn junit_tail<W: std::fmt::Write>(cases: &mut Cases<W>, summary: &Summary) {
    check_cases(cases, summary);
    self_test_cases(cases, summary);
    let _ = cases.xml.write_str("  </testsuite>\n</testsuites>\n");
}

/// junit.xml written as the runs are folded (REQ-SCALE-FLAT): the run
/// cases, in run-id order, go to a file beside it as their digests arrive
/// ([`JunitRuns::add`]), counted; [`JunitRuns::finish`] writes junit.xml
/// (the head, those cases, the check cases): the bytes [`write_junit`]
/// writes of the same runs.
pub struct JunitRuns {
    cases: Cases<IoFmt<std::io::BufWriter<std::fs::File>>>,
    /// Run cases written.
    n: usize,
    /// The file of the run cases.
    path: std::path::PathBuf,
}

impl JunitRuns {
    /// Starts the run cases in the new file `path` (removed by
    /// [`JunitRuns::finish`]).
    ///
    /// # Errors
    /// I/O errors with the path.
    pub fn create(path: &Path) -> Result<Self, CampaignError> {
        let f = std::fs::File::create(path).map_err(|e| CampaignError::io(path, e))?;
        Ok(JunitRuns {
            cases: Cases::new(IoFmt {
                inner: std::io::BufWriter::new(f),
                error: None,
            }),
            n: 0,
            path: path.to_path_buf(),
        })
    }

    /// Writes the test cases of `batch` (run-id order, after those added
    /// before).
    pub fn add(&mut self, batch: &[RunDigest]) {
        for d in batch {
            run_case(&mut self.cases, d);
        }
        self.n += batch.len();
    }

    /// Writes junit.xml to the new file `out` (not atomic: for a staging
    /// directory), synced, and removes the run cases' file.
    ///
    /// # Errors
    /// I/O errors with their path.
    pub fn finish(self, out: &Path, summary: &Summary) -> Result<(), CampaignError> {
        let JunitRuns {
            cases:
                Cases {
                    xml: mut body,
                    failures,
                    errors,
                    skipped,
                },
            n,
            path,
        } = self;
        if let Some(e) = body.error.take() {
            return Err(CampaignError::io(&path, e));
        }
        body.inner
            .into_inner()
            .map_err(|e| CampaignError::io(&path, e.into_error()))?;
        let f = std::fs::File::create(out).map_err(|e| CampaignError::io(out, e))?;
        let mut w = IoFmt {
            inner: std::io::BufWriter::new(f),
            error: None,
        };
        let counted = Cases {
            xml: Discard,
            failures,
            errors,
            skipped,
        };
        junit_head(&mut w, summary, counted, n);
        let mut src = std::fs::File::open(&path).map_err(|e| CampaignError::io(&path, e))?;
        std::io::copy(&mut src, &mut w.inner).map_err(|e| CampaignError::io(out, e))?;
        junit_tail(&mut Cases::new(&mut w), summary);
        if let Some(e) = w.error.take() {
            return Err(CampaignError::io(out, e));
        }
        w.inner
            .into_inner()
            .map_err(|e| CampaignError::io(out, e.into_error()))?
            .sync_all()
            .map_err(|e| CampaignError::io(out, e))?;
        std::fs::remove_file(&path).map_err(|e| CampaignError::io(&path, e))
    }
}

/// The `<testcase>` elements of a junit.xml written so far (into `xml`),
/// and how many of them failed, errored and were skipped.
struct Cases<W: std::fmt::Write> {
    /// One `<testcase>` line each, indented by four spaces.
    xml: W,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl<W: std::fmt::Write> Cases<W> {
    /// No case yet, written into `xml`.
    fn new(xml: W) -> Self {
        Cases {
            xml,
            failures: 0,
            errors: 0,
            skipped: 0,
        }
    }

    /// Appends a test case: `class`.`name`, `time` s, its `props` as
    /// `<properties>` (none if empty), its `outcome` element (none for a
    /// pass, which counts nowhere) and `out` as its system-out.
    fn case(
        &mut self,
        class: &str,
        name: &str,
        time: f64,
        props: &[(&str, String)],
        outcome: Option<Outcome>,
        out: String,
    ) {
        let cases = &mut self.xml;
        let _ = write!(
            cases,
            "    <testcase classname=\"{}\" name=\"{}\" time=\"{time:.6}\">",
            xml_escape(class),
            xml_escape(name)
        );
        if !props.is_empty() {
            let _ = cases.write_str("<properties>");
            for (k, v) in props {
                let _ = write!(
                    cases,
                    "<property name=\"{}\" value=\"{}\"/>",
                    xml_escape(k),
                    xml_escape(v)
                );
            }
            let _ = cases.write_str("</properties>");
        }
        let (tag, count) = match &outcome {
            Some(Outcome::Failure(_)) => ("failure", &mut self.failures),
            Some(Outcome::Error(_)) => ("error", &mut self.errors),
            Some(Outcome::Skipped(_)) => ("skipped", &mut self.skipped),
            None => ("", &mut 0),
        };
        if let Some(Outcome::Failure(m) | Outcome::Error(m) | Outcome::Skipped(m)) = &outcome {
            *count += 1;
            let _ = write!(cases, "<{tag} message=\"{}\"/>", xml_escape(m));
        }
        let _ = writeln!(
            cases,
            "<system-out>{}</system-out></testcase>",
            xml_escape(&out)
        );
    }
}

/// Appends run `d`'s test case to `cases`: classname by run kind, time its
/// wall-clock time (s), the oracle's outcome as properties and system-out,
/// and the outcome [`run_outcome`] gave.
fn run_case(cases: &mut Cases<impl std::fmt::Write>, d: &RunDigest) {
    let class = match d.kind {
        RunKind::Grid => "breakbench.grid",
        RunKind::Nominal => "breakbench.nominal",
        RunKind::Canary => "breakbench.canary",
        RunKind::Test => "breakbench.test",
        RunKind::Baseline => "breakbench.baseline",
    };
    let out = format!(
        "self_report={:?} safety_violation={} mission_failure={} operating_region_containment={} obstacle_clearance={} (min {:.3} m) mission_completion_true_pose={}",
        d.self_report,
        d.safety_violation,
        d.mission_failure,
        d.containment_holds,
        d.clearance_holds,
        d.clearance_m,
        d.completion_holds
    );
    let failure = d.outcome.clone();
    let props = [
        ("verdict_class", d.class.name().to_string()),
        ("self_report", format!("{:?}", d.self_report).to_lowercase()),
        ("safety_violation", d.safety_violation.to_string()),
        ("mission_failure", d.mission_failure.to_string()),
        ("obstacle_clearance_min_m", format!("{}", d.clearance_m)),
        ("sim_time_s", format!("{}", d.sim_time_s)),
        ("seed", d.seed.to_string()),
    ];
    cases.case(class, &d.run_id, d.wall_time_s, &props, failure, out);
}

/// Appends to `cases` one case per harness check (`breakbench.checks`),
/// or why it does not apply to this scenario (skipped, never passed): no
/// canary declared, isolation_check off, no nominal set, no fault grid (a
/// scenario of resilience tests only). Returns the number of cases (4).
fn check_cases(cases: &mut Cases<impl std::fmt::Write>, summary: &Summary) -> usize {
    let checks = [
        (
            "canary_detects_violation",
            summary.canary.violation_detected,
            "the positive canary was not judged a violation",
            (summary.canary.runs == 0).then_some("no positive canary declared"),
        ),
        (
            "verdict_isolation",
            summary.isolation.passed,
            "a verdict changed with the self-report",
            (summary.isolation.runs_checked == 0).then_some("isolation_check is off"),
        ),
        (
            "nominal_spread_converged",
            summary.nominal.spread_converged,
            "the nominal spread did not meet the declared criterion",
            (summary.nominal.n == 0).then_some("no nominal runs declared"),
        ),
        (
            "grid_complete",
            summary.corpus.grid_runs == summary.corpus.grid_expected,
            "not every grid run has a manifest",
            (summary.corpus.grid_expected == 0).then_some("no fault grid (no axes)"),
        ),
    ];
    let n = checks.len();
    for (name, ok, msg, not_applicable) in checks {
        let outcome = match not_applicable {
            Some(why) => Some(Outcome::Skipped(why.to_string())),
            None => (!ok).then(|| Outcome::Failure(msg.to_string())),
        };
        cases.case("breakbench.checks", name, 0.0, &[], outcome, String::new());
    }
    n
}

/// Appends to `cases` the check case `self_test_<test>` of each test with a
/// self-test (fails when the declaration was not met). Returns how many.
fn self_test_cases(cases: &mut Cases<impl std::fmt::Write>, summary: &Summary) -> usize {
    let mut self_tests = 0;
    for t in &summary.tests {
        let Some(st) = &t.self_test else { continue };
        self_tests += 1;
        let what = format!("{}: {}/{} met", st.declaration, st.met, st.runs);
        let outcome = (!st.passed).then(|| Outcome::Failure(format!("self-test: {what}")));
        cases.case(
            "breakbench.checks",
            &format!("self_test_{}", t.test),
            0.0,
            &[],
            outcome,
            what,
        );
    }
    self_tests
}

/// Writes report.html and junit.xml into `out`.
pub fn write_outputs(
    out: &Path,
    scenario: &Scenario,
    summary: &Summary,
    manifests: &[Manifest],
) -> Result<(), CampaignError> {
    write_atomic(
        &out.join("junit.xml"),
        junit(&scenario.file, summary, manifests).as_bytes(),
    )?;
    let html = super::report::render_html(scenario, summary, manifests, out)?;
    write_atomic(&out.join("report.html"), html.as_bytes())
}
