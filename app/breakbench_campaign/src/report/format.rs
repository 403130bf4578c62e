//! Text formatting shared by the report's sections: p̂ and Wilson cells,
//! axis labels with units, notes, serde names, predicate outcomes.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::markup::xml_escape;
use crate::scenario::{Scenario, ScenarioFile};
use crate::summary::Proportion;

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

/// Axis label with its unit, e.g. `latency_s [s]`: a fault axis' unit is
/// its parameter's declared one ([`crate::scenario::Axis::unit`],
/// never guessed from the name); a navigator axis' values are variant
/// indices.
pub(super) fn axis_label(file: &ScenarioFile, name: &str) -> String {
    let unit = file
        .axes
        .iter()
        .find(|a| a.name == name)
        .map_or("variant index", |a| a.unit());
    format!("{name} [{unit}]")
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
    use crate::manifest::RunKind;

    #[test]
    fn axis_labels_take_the_unit_the_parameter_declares() {
        let mut file = super::super::test_corpus::scenario().file;
        // A speed whose name ends in `_s` is still a speed: the unit comes
        // from the parameter (bias_rate on gnss, m/s), not the name.
        file.axes[0].name = "walk_off_s".into();
        file.axes[0].channel = "gnss".into();
        file.axes[0].mode = "bias_ramp".into();
        file.axes[0].parameter = "bias_rate".into();
        assert_eq!(axis_label(&file, "walk_off_s"), "walk_off_s [m/s]");
        file.axes[0].channel = "imu".into();
        assert_eq!(axis_label(&file, "walk_off_s"), "walk_off_s [rad/s²]");
        file.axes[0].channel = "cmd_vel".into();
        file.axes[0].mode = "scale".into();
        file.axes[0].parameter = "scale_factor".into();
        assert_eq!(
            axis_label(&file, "walk_off_s"),
            "walk_off_s [dimensionless]"
        );
        file.axes[0].channel = "their_lidar".into();
        file.axes[0].mode = "bias".into();
        file.axes[0].parameter = "bias".into();
        assert_eq!(
            axis_label(&file, "walk_off_s"),
            "walk_off_s [channel units]"
        );
        assert_eq!(
            axis_label(&file, "no_such_axis"),
            "no_such_axis [variant index]"
        );
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
