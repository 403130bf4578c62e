//! The adaptive design against a known response (issue 28's check: the same
//! s* interval width as a full grid with at least 60 % fewer runs).

use super::*;
use crate::design::KnownResponse;

/// The corridor's shape: P(collision) reaches 0.05 at 0.6 s of latency and
/// rises steeply (logit slope 20 per second) over a 0–1 s axis.
fn rule(target_width: f64) -> AdaptiveRule {
    AdaptiveRule {
        lo: 0.0,
        hi: 1.0,
        p_star: 0.05,
        confidence: 0.95,
        link: Link::Logit,
        initial_levels: 2,
        batch_runs: 5,
        candidates: 201,
        target_width,
        max_runs: 2000,
    }
}

/// The study's batch: 2 runs, as `--jobs 2` dispatches them on this
/// machine (docs/studies.md compares other batch sizes).
const STUDY_BATCH: u64 = 2;

/// One design study: `seeds` pairs of (11 x 20 grid, adaptive design with
/// batches of [`STUDY_BATCH`] stopped at the grid's own Fieller width);
/// returns (grid runs, adaptive runs, seeds whose grid's and whose adaptive
/// Fieller interval covers the true s* = 0.6).
fn against_the_grid(seeds: std::ops::Range<u64>, batch: u64) -> (u64, u64, usize, usize) {
    let (mut grid_runs, mut adaptive_runs, mut grid_covered, mut covered) = (0u64, 0u64, 0, 0);
    let covers = |f: &crate::dose::Interval| f.low.unwrap() <= 0.6 && 0.6 <= f.high.unwrap();
    for seed in seeds {
        let truth = KnownResponse::through(Link::Logit, 0.05, 0.6, 20.0, seed);
        let (gn, gs) = run_grid(&rule(0.0), 11, 20, &mut |s, i| truth.run(s, i));
        let f = gs
            .expect("the grid fits: no separation at 20 runs a level")
            .fieller;
        let w = f.high.unwrap() - f.low.unwrap();
        grid_covered += usize::from(covers(&f));
        // the adaptive design's runs are other draws (indices offset)
        let r = AdaptiveRule {
            batch_runs: batch,
            ..rule(w)
        };
        let out = run_adaptive_each(&r, &mut |s, i| truth.run(s, 1_000_000 + i));
        assert_eq!(out.stop, Stop::Width, "seed {seed}: {out:?}");
        assert!(out.width().unwrap() <= w);
        grid_runs += gn;
        adaptive_runs += out.runs;
        covered += usize::from(covers(&out.s_star.as_ref().unwrap().fieller));
    }
    (grid_runs, adaptive_runs, grid_covered, covered)
}

#[test]
fn the_adaptive_design_reaches_the_grid_width_with_60_percent_fewer_runs() {
    let (grid_runs, adaptive_runs, grid_covered, covered) = against_the_grid(0..200, STUDY_BATCH);
    let saving = 1.0 - adaptive_runs as f64 / grid_runs as f64;
    eprintln!(
        "adaptive (batches of {STUDY_BATCH}) vs 11x20 grid over 200 seeds: {adaptive_runs} vs \
         {grid_runs} runs ({:.1} % fewer); 95 % Fieller interval covered s* = 0.6 in \
         {covered}/200 (the grid's in {grid_covered}/200)",
        100.0 * saving
    );
    // Issue 28's goal; measured 65.7 % (docs/studies.md).
    assert!(saving >= 0.6, "only {:.1} % fewer runs", 100.0 * saving);
    // Nominal 95 %; stopping on the width costs some coverage (measured
    // 185/200). 180 or fewer of 200 has probability 0.003 under
    // Binomial(200, 0.95): a design that loses more is a regression.
    assert!(covered > 180, "coverage {covered}/200");
}

/// The batch sizes behind docs/studies.md's table (about 2 s):
/// `cargo test -p breakbench_campaign --lib design_study -- --ignored --nocapture`.
#[test]
#[ignore]
fn design_study() {
    for batch in [2, 3, 5, 10] {
        let (grid_runs, adaptive_runs, grid_covered, covered) = against_the_grid(0..200, batch);
        eprintln!(
            "batches of {batch}: {adaptive_runs} vs {grid_runs} runs ({:.1} % fewer); 95 % \
             Fieller interval covered s* = 0.6 in {covered}/200 (the grid's in {grid_covered}/200)",
            100.0 * (1.0 - adaptive_runs as f64 / grid_runs as f64)
        );
    }
}

#[test]
fn a_separated_start_is_bisected_and_steps_are_recorded_in_order() {
    // A cliff: P jumps from ~0 to ~1 within 0.01 s around 0.55 s.
    let truth = KnownResponse::through(Link::Logit, 0.05, 0.55, 2000.0, 1);
    let out = run_adaptive_each(&rule(0.02), &mut |s, i| truth.run(s, i));
    let why: Vec<&str> = out.steps.iter().map(|s| s.why).collect();
    assert_eq!(&why[..4], ["start", "start", "bisect", "bisect"]);
    // 0 and 1: 0/5 and 5/5 -> the midpoint 0.5 (0/5), then 0.75 (5/5), then 0.625
    let s: Vec<f64> = out.steps.iter().map(|s| s.s).take(5).collect();
    assert_eq!(s, [0.0, 1.0, 0.5, 0.75, 0.625]);
    assert_eq!(out.runs, 5 * out.steps.len() as u64);
    // the same outcomes give the same design
    assert_eq!(
        out,
        run_adaptive_each(&rule(0.02), &mut |s, i| truth.run(s, i))
    );
}

#[test]
fn a_response_out_of_range_stops_with_no_interval() {
    // P reaches 0.05 only at 5 s: no run fails on 0-1 s.
    let truth = KnownResponse::through(Link::Logit, 0.05, 5.0, 20.0, 2);
    let out = run_adaptive_each(&rule(0.05), &mut |s, i| truth.run(s, i));
    assert_eq!(out.stop, Stop::OutOfRange);
    assert_eq!(out.runs, 10);
    assert!(out.s_star.is_none());
}

#[test]
fn the_budget_stops_a_design_that_cannot_reach_its_width() {
    let truth = KnownResponse::through(Link::Logit, 0.05, 0.6, 20.0, 3);
    let mut r = rule(1e-6);
    r.max_runs = 200;
    let out = run_adaptive_each(&r, &mut |s, i| truth.run(s, i));
    assert_eq!(out.stop, Stop::Budget);
    assert_eq!(out.runs, 200);
    assert!(out.width().unwrap() > 1e-6);
}

#[test]
fn firths_fit_is_finite_under_separation_and_adds_half_a_run_per_level_when_saturated() {
    // Two levels, two coefficients: the leverages are 1, so Firth's fit is
    // the plain fit of the counts with ½ a failure and ½ a success added:
    // 0.5/6 and 5.5/6 (Firth 1993; Heinze & Schemper 2002).
    let b = firth_logit(&[(0.0, 5, 0), (1.0, 5, 5)]).expect("finite under separation");
    let logit = |p: f64| (p / (1.0 - p)).ln();
    assert!((b[0] - logit(0.5 / 6.0)).abs() < 1e-9, "{b:?}");
    assert!(
        (b[1] - (logit(5.5 / 6.0) - logit(0.5 / 6.0))).abs() < 1e-9,
        "{b:?}"
    );
    // the plain fit has none
    let r = rule(0.05);
    assert!(fit_s_star(&[(0.0, 5, 0), (1.0, 5, 5)], &r).is_none());
    // one severity only: no slope to fit
    assert_eq!(firth_logit(&[(0.5, 10, 3)]), None);
}

#[test]
fn a_quasi_separated_boundary_is_not_probed_over_and_over() {
    // batches of 1 at a steep response: bisection alone spent the whole
    // budget at one severity (0.8263 s, seed 0); now the design stops on
    // its width well before the budget, and probes many severities
    let truth = KnownResponse::through(Link::Logit, 0.05, 0.6, 20.0, 0);
    let r = AdaptiveRule {
        batch_runs: 1,
        max_runs: 2000,
        ..rule(0.1)
    };
    let out = run_adaptive_each(&r, &mut |s, i| truth.run(s, 1_000_000 + i));
    assert_eq!(out.stop, Stop::Width, "{:?}", out.stop);
    assert!(out.runs < 400, "{} runs", out.runs);
    let distinct = levels(&out.steps).len();
    assert!(distinct > 10, "{distinct} severities");
    assert!(out.steps.iter().any(|s| s.why == "firth"));
}
