//! Text formatting shared by the report's sections: p̂ and Wilson cells,
//! axis labels with units, notes, serde names, predicate outcomes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::campaign::markup::xml_escape;
use crate::campaign::scenario::Scenario;
use crate::campaign::summary::Proportion;

/// `p̂` with three decimals, `—` when undefined (n = 0).
pub(super) fn fmt_p(x: f64) -> String {
    if x.is_finite() {
        format!("{x:.3}")
    } else {
        "—".into()
    }
}

/// `k/n`, p̂ and the Wilson interval as three table cells.
pub(super) fn prop_cells(p: &Proportion, n: u64) -> String {
    if n == 0 {
        return "<td class=\"p\">0/0</td><td class=\"p\">—</td><td>—</td>".into();
    }
    format!(
        "<td class=\"p\">{}/{n}</td><td class=\"p\">{}</td><td>[{}, {}]</td>",
        p.k,
        fmt_p(p.p_hat),
        fmt_p(p.wilson_low),
        fmt_p(p.wilson_high)
    )
}

/// Unit suffixes of axis names and their units, compound suffixes first:
/// the first suffix that matches wins, so `_m_s` must come before `_s`.
const UNIT_SUFFIXES: [(&str, &str); 6] = [
    ("_m_s", "m/s"),
    ("_rad_s", "rad/s"),
    ("_s", "s"),
    ("_m", "m"),
    ("_rad", "rad"),
    ("_hz", "Hz"),
];

/// Unit of a fault axis from its name's suffix (house rule: unit suffixes),
/// `dimensionless` when no suffix of [`UNIT_SUFFIXES`] matches.
pub(super) fn axis_unit(name: &str) -> &'static str {
    UNIT_SUFFIXES
        .iter()
        .find(|(suffix, _)| name.ends_with(suffix))
        .map_or("dimensionless", |(_, unit)| unit)
}

/// Axis label with unit, e.g. `latency_s [s]`.
pub(super) fn axis_label(name: &str) -> String {
    format!("{name} [{}]", axis_unit(name))
}

/// `name=value` for the axes of `cell` other than `skip`, in scenario order.
pub(super) fn others_label(
    scenario: &Scenario,
    cell: &BTreeMap<String, f64>,
    skip: &str,
) -> String {
    let parts: Vec<String> = scenario
        .file
        .axes
        .iter()
        .filter(|a| a.name != skip)
        .filter_map(|a| cell.get(&a.name).map(|v| format!("{}={v}", a.name)))
        .chain(
            scenario
                .file
                .navigator_axes
                .iter()
                .filter(|a| a.name != skip)
                .filter_map(|a| {
                    let i = *cell.get(&a.name)? as usize;
                    Some(format!("{}={}", a.name, a.values.get(i)?))
                }),
        )
        .collect();
    if parts.is_empty() {
        "all cells".into()
    } else {
        parts.join(", ")
    }
}

pub(super) fn note(h: &mut String, text: &str) {
    let _ = writeln!(h, "<p class=\"note\">{}</p>", xml_escape(text));
}

/// The serde (snake_case) name of a unit enum variant, as in the JSON files.
pub(super) fn serde_name<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(e) => format!("<unserialisable: {e}>"),
    }
}

/// Each predicate's outcome with its decision time, e.g.
/// `operating_region_containment held; obstacle_clearance VIOLATED at 12.30 s; ...`.
pub(super) fn predicates_text(v: &breakbench_oracle::Verdict) -> String {
    [
        (
            "operating_region_containment",
            &v.operating_region_containment,
        ),
        ("obstacle_clearance", &v.obstacle_clearance),
        (
            "mission_completion_true_pose",
            &v.mission_completion_true_pose,
        ),
    ]
    .iter()
    .map(|(name, p)| {
        if p.holds {
            format!("{name} held")
        } else {
            format!("{name} VIOLATED (decided at {:.2} s)", p.decided_at_s)
        }
    })
    .collect::<Vec<_>>()
    .join(", ")
}

#[cfg(test)]
mod tests {
    use super::super::test_corpus::manifest;
    use super::*;
    use crate::campaign::manifest::RunKind;

    #[test]
    fn axis_unit_takes_the_compound_suffix_first() {
        // A `_m_s` axis is a speed, not a time (it also ends in `_s`).
        assert_eq!(axis_unit("canary_speed_m_s"), "m/s");
        assert_eq!(axis_label("canary_speed_m_s"), "canary_speed_m_s [m/s]");
        assert_eq!(axis_unit("yaw_rate_rad_s"), "rad/s");
        assert_eq!(axis_unit("latency_s"), "s");
        assert_eq!(axis_unit("gnss_offset_m"), "m");
        assert_eq!(axis_unit("heading_rad"), "rad");
        assert_eq!(axis_unit("rate_hz"), "Hz");
        assert_eq!(axis_unit("odom_bias"), "dimensionless");
        // A name that merely contains a suffix is not suffixed.
        assert_eq!(axis_unit("m_s_count"), "dimensionless");
    }

    #[test]
    fn predicates_text_names_violations_with_decision_time() {
        let mut v = manifest("x", RunKind::Grid, &[], false, true).verdict;
        v.obstacle_clearance.decided_at_s = 12.3;
        assert_eq!(
            predicates_text(&v),
            "operating_region_containment held, obstacle_clearance VIOLATED (decided at 12.30 s), mission_completion_true_pose held"
        );
    }
}
