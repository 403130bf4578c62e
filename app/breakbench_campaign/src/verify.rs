//! `breakbench analyze --verify`: every run of a campaign directory judged
//! again from its recorded ground truth, the trace, by the oracle, and
//! compared with the verdict its manifest records (REQ-CAMPAIGN-EVIDENCE).
//!
//! The trace holds one row per ground-truth pose the oracle was fed (sim
//! time with 3 decimals, the true pose with 5), so the three invariants
//! (`breakbench_oracle::judge`), the judgement of a run without a test
//! (`RunJudgement::from_invariants`), the final distance to the goal, the
//! invariants' margins (REQ-STAT-MARGIN) and the
//! isolation check are re-judged. The comparison allows the trace's
//! rounding: [`TIME_TOL_S`] on times, [`DIST_TOL_M`] on distances; `holds`
//! and the verdict class must be equal.
//!
//! What the trace does not hold is said per run, never passed off as
//! checked: a resilience test's verdict class and expectations (they read
//! cmd_vel, odometry, `/diagnostics`, `/rosout` and the injector's status),
//! the faults' delivered values and message counts (the injector's), and a
//! study's detection (`/diagnostics`).

use std::path::Path;

use breakbench_oracle::expect::RunJudgement;
use breakbench_oracle::{
    isolation_check, judge_with_margins, PoseSample, PredicateResult, Verdict,
};
use breakbench_records::trace::parse_trace;

use super::manifest::Manifest;
use super::scenario::Scenario;
use super::store::load_campaign;
use super::CampaignError;

/// Time allowance of the comparison: the trace's 3-decimal sim time, s.
pub const TIME_TOL_S: f64 = 1e-3;
/// Distance allowance: the trace's 5-decimal coordinates (at most
/// `0.5e-5 * sqrt(2)` per point) with margin, m.
pub const DIST_TOL_M: f64 = 2e-5;

/// The outcome of re-judging one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCheck {
    pub run_id: String,
    /// Each recorded value that differs from the re-judged one
    /// (`field: manifest X, re-judged Y`); empty when all agree.
    pub differences: Vec<String>,
    /// What of the manifest the trace cannot re-judge.
    pub not_rejudged: Vec<String>,
}

/// Re-judges every run of the campaign directory `out`.
///
/// The directory is loaded with every check of `analyze` (ledger, unknown
/// fields, evidence files), and the scenario is loaded from `scenario` (or
/// the path campaign.json records) and must have the campaign's scenario
/// hash (the world the runs were judged against).
///
/// # Errors
/// Those of [`load_campaign`]; [`CampaignError::Evidence`] naming the
/// scenario file when its hash is not the campaign's, or a trace that does
/// not parse or that the oracle refuses (naming the line or sample);
/// those of loading the scenario.
pub fn verify(out: &Path, scenario: Option<&Path>) -> Result<Vec<RunCheck>, CampaignError> {
    let (cf, manifests) = load_campaign(out)?;
    let spath = scenario.unwrap_or_else(|| Path::new(&cf.scenario_path));
    let scenario = Scenario::load(spath)?;
    if scenario.hash != cf.scenario_hash {
        return Err(CampaignError::Evidence {
            path: spath.display().to_string(),
            problem: format!(
                "scenario hash {}, the campaign's {}: the world the runs were judged against is not this one (give the scenario the campaign was run with, --scenario)",
                scenario.hash, cf.scenario_hash
            ),
        });
    }
    manifests.iter().map(|m| check(out, &scenario, m)).collect()
}

/// Re-judges one run (see the module docs).
fn check(out: &Path, scenario: &Scenario, m: &Manifest) -> Result<RunCheck, CampaignError> {
    let mut c = RunCheck {
        run_id: m.run_id.clone(),
        differences: Vec::new(),
        not_rejudged: Vec::new(),
    };
    if m.graph.as_ref().is_some_and(|g| g.invalid()) {
        c.not_rejudged
            .push("everything: an invalid graph run is not judged".into());
        return Ok(c);
    }
    if m.trace_file.is_empty() {
        c.not_rejudged
            .push("everything: the run has no trace".into());
        return Ok(c);
    }
    let tpath = out.join(&m.trace_file);
    let text = std::fs::read_to_string(&tpath).map_err(|e| CampaignError::io(&tpath, e))?;
    let bad = |problem: String| CampaignError::Evidence {
        path: tpath.display().to_string(),
        problem,
    };
    let poses: Vec<PoseSample> = parse_trace(&text)
        .map_err(bad)?
        .iter()
        .map(|r| PoseSample {
            t_s: r.t_s,
            x_m: r.true_x_m,
            y_m: r.true_y_m,
            yaw_rad: r.true_yaw_rad,
        })
        .collect();
    let world = &scenario.world;
    let (v, margins) = judge_with_margins(world, &poses)
        .map_err(|e| bad(format!("the oracle refuses it: {e}")))?;
    compare_verdict(&m.verdict, &v, &mut c.differences);
    // REQ-STAT-MARGIN: the margins, where the manifest records them
    if !m.margins.is_empty() {
        let again = margins.to_map();
        for (name, want) in &again {
            match m.margins.get(name) {
                Some(got) if within(*got, *want, DIST_TOL_M) => {}
                got => c.differences.push(format!(
                    "margins.{name}: manifest {got:?}, re-judged {want}"
                )),
            }
        }
        for name in m.margins.keys().filter(|k| !again.contains_key(*k)) {
            c.differences
                .push(format!("margins.{name}: in the manifest, not re-judged"));
        }
    }
    if m.judgement.test.is_none() {
        let want = RunJudgement::from_invariants(&v).verdict_class;
        if m.judgement.verdict_class != want {
            c.differences.push(format!(
                "verdict_class: manifest {} ({}), re-judged {} ({})",
                m.judgement.verdict_class.class.name(),
                m.judgement.verdict_class.reason,
                want.class.name(),
                want.reason
            ));
        }
    } else {
        c.not_rejudged.push(
            "verdict_class and expectations (they read cmd_vel, odometry, /diagnostics, /rosout and the injector's status, which the trace does not hold)".into(),
        );
    }
    if let Some(last) = poses.last() {
        let d = (last.x_m - world.goal.center_m[0]).hypot(last.y_m - world.goal.center_m[1]);
        if !within(d, m.final_goal_distance_m, DIST_TOL_M) {
            c.differences.push(format!(
                "final_goal_distance_m: manifest {}, re-judged {d}",
                m.final_goal_distance_m
            ));
        }
    }
    if let Some(iso) = m.isolation {
        let again = isolation_check(world, &poses, m.self_report)
            .map_err(|e| bad(format!("the oracle refuses it: {e}")))?
            .passed;
        if again != iso.passed {
            c.differences.push(format!(
                "isolation.passed: manifest {}, re-judged {again}",
                iso.passed
            ));
        }
    }
    if !m.faults.is_empty() {
        c.not_rejudged
            .push("faults (delivered values and message counts: the injector's)".into());
    }
    if m.detection.is_some() {
        c.not_rejudged
            .push("detection (/diagnostics, not in the trace)".into());
    }
    Ok(c)
}

/// `a` and `b` are equal, or within `tol` of each other (false for NaN).
fn within(a: f64, b: f64, tol: f64) -> bool {
    a == b || (a - b).abs() <= tol
}

/// Appends to `out` each field of the recorded verdict `m` that differs from
/// the re-judged `v` beyond the trace's rounding.
fn compare_verdict(m: &Verdict, v: &Verdict, out: &mut Vec<String>) {
    let preds: [(&str, &PredicateResult, &PredicateResult, f64); 3] = [
        (
            "operating_region_containment",
            &m.operating_region_containment,
            &v.operating_region_containment,
            DIST_TOL_M,
        ),
        (
            "obstacle_clearance",
            &m.obstacle_clearance,
            &v.obstacle_clearance,
            DIST_TOL_M,
        ),
        (
            "mission_completion_true_pose",
            &m.mission_completion_true_pose,
            &v.mission_completion_true_pose,
            TIME_TOL_S,
        ),
    ];
    for (name, a, b, tol) in preds {
        if a.holds != b.holds {
            out.push(format!(
                "verdict.{name}.holds: manifest {}, re-judged {}",
                a.holds, b.holds
            ));
        }
        if !within(a.decided_at_s, b.decided_at_s, TIME_TOL_S) {
            out.push(format!(
                "verdict.{name}.decided_at_s: manifest {}, re-judged {}",
                a.decided_at_s, b.decided_at_s
            ));
        }
        if !within(a.value, b.value, tol) {
            out.push(format!(
                "verdict.{name}.value: manifest {}, re-judged {}",
                a.value, b.value
            ));
        }
    }
}
