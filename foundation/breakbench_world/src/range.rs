//! Declared physical ranges of the numeric fields of configuration files.
//!
//! Every numeric field of the world, robot, lidar, navigator and scenario
//! files has a declared range (inclusive bounds, with its unit), written in a
//! table next to the struct that holds the field and repeated in the field's
//! docstring. [`check_ranges`] walks every number of a parsed file and
//! refuses one outside its range, a non-finite one, or one with no declared
//! range at all (a number without a range is a Breakbench bug, caught by the
//! tests that load the shipped files), so a new field cannot slip past.
//!
//! The ranges are sanity bounds of what the simulator and the harness can run
//! meaningfully (a lidar of 10^5 beams, a step of 1 µs, a world 20 km
//! across), not tuning advice; what a whole campaign may cost is the
//! separate resource budget of the campaign.

use kraken_interfaces::ConfigError;
use serde::Serialize;
use serde_json::Value;

/// The declared range of one numeric field: `min <= value <= max`, in `unit`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// Field path relative to the table's struct, indices written `[*]`
    /// (`goal.radius_m`, `walls_m[*][*][*]`).
    pub field: &'static str,
    /// Smallest accepted value.
    pub min: f64,
    /// Largest accepted value.
    pub max: f64,
    /// Unit of the value (`m`, `s`, `Hz`, `1` for a count or ratio).
    pub unit: &'static str,
}

impl Range {
    /// A range row of a table.
    pub const fn new(field: &'static str, min: f64, max: f64, unit: &'static str) -> Self {
        Self {
            field,
            min,
            max,
            unit,
        }
    }
}

/// Checks every number of `value` (as serialised by serde) against the
/// declared ranges.
///
/// `at` is the field path of `value` inside its file (`""` for the whole
/// file, `"lidar."` for the lidar section); `tables` lists `(prefix, rows)`:
/// a number at file path `p` is checked against the row whose `prefix +
/// field` equals `p` with indices replaced by `[*]`. serde_json writes a
/// non-finite float as `null`, so a `null` where a row declares a number is
/// refused as not finite (no optional numeric field has a row).
///
/// # Errors
/// A semantic [`ConfigError`] on `path`, naming the first offending field
/// (with its indices) and its declared range and unit.
pub fn check_ranges<T: Serialize>(
    value: &T,
    path: &str,
    at: &str,
    tables: &[(&str, &[Range])],
) -> Result<(), ConfigError> {
    let v = serde_json::to_value(value).map_err(|e| {
        ConfigError::semantic(path, at.trim_end_matches('.'), format!("cannot walk: {e}"))
    })?;
    let mut leaves = Vec::new();
    let root = at.trim_end_matches('.').to_string();
    walk(&v, root, &mut leaves);
    for (field, leaf) in leaves {
        let pattern = index_pattern(&field);
        let row = tables.iter().find_map(|(prefix, rows)| {
            let field = pattern.strip_prefix(prefix)?;
            rows.iter().find(|r| r.field == field)
        });
        let Some(r) = row else {
            if leaf.is_some() {
                return Err(ConfigError::semantic(
                    path,
                    &field,
                    "has no declared range (a Breakbench bug: declare one next to the field)",
                ));
            }
            continue;
        };
        let unit = if r.unit == "1" {
            String::new()
        } else {
            format!(" {}", r.unit)
        };
        match leaf {
            Some(x) if x.is_finite() && x >= r.min && x <= r.max => {}
            Some(x) => {
                return Err(ConfigError::semantic(
                    path,
                    &field,
                    format!(
                        "{} is outside its declared range [{}, {}]{unit}",
                        num(x),
                        num(r.min),
                        num(r.max)
                    ),
                ))
            }
            None => {
                return Err(ConfigError::semantic(
                    path,
                    &field,
                    format!(
                        "is not a finite number (declared range [{}, {}]{unit})",
                        num(r.min),
                        num(r.max)
                    ),
                ))
            }
        }
    }
    Ok(())
}

/// Collects `(field path, number)` for every number of `v` (`None` for a
/// `null`, the serialisation of a non-finite float).
fn walk(v: &Value, path: String, out: &mut Vec<(String, Option<f64>)>) {
    match v {
        Value::Number(n) => out.push((path, n.as_f64())),
        Value::Null => out.push((path, None)),
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                walk(x, format!("{path}[{i}]"), out);
            }
        }
        Value::Object(m) => {
            for (k, x) in m {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                walk(x, p, out);
            }
        }
        Value::Bool(_) | Value::String(_) => {}
    }
}

/// A number for a message: decimal for ordinary magnitudes, `1e300` style
/// for huge or tiny ones.
pub fn num(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e7).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `walls_m[3][1][0]` → `walls_m[*][*][*]`.
fn index_pattern(field: &str) -> String {
    let mut out = String::with_capacity(field.len());
    let mut in_index = false;
    for c in field.chars() {
        match c {
            '[' => {
                in_index = true;
                out.push_str("[*");
            }
            ']' => {
                in_index = false;
                out.push(']');
            }
            _ if in_index => {}
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Inner {
        r_m: f64,
    }
    #[derive(Serialize)]
    struct Outer {
        n: u32,
        pts: Vec<[f64; 2]>,
        inner: Inner,
        name: String,
        opt: Option<Inner>,
    }
    const ROWS: &[Range] = &[
        Range::new("n", 1.0, 10.0, "1"),
        Range::new("pts[*][*]", -5.0, 5.0, "m"),
        Range::new("inner.r_m", 0.0, 1.0, "m"),
        Range::new("opt.r_m", 0.0, 1.0, "m"),
    ];

    fn outer() -> Outer {
        Outer {
            n: 3,
            pts: vec![[0.0, 1.0], [2.0, -3.0]],
            inner: Inner { r_m: 0.5 },
            name: "x".into(),
            opt: None,
        }
    }

    #[test]
    fn in_range_values_pass_and_each_violation_names_the_field() {
        check_ranges(&outer(), "f.yaml", "", &[("", ROWS)]).unwrap();
        let mut o = outer();
        o.pts[1][0] = 7.5;
        let e = check_ranges(&o, "f.yaml", "", &[("", ROWS)]).unwrap_err();
        assert_eq!(e.field, "pts[1][0]");
        assert_eq!(e.message, "7.5 is outside its declared range [-5, 5] m");
        let mut o = outer();
        o.n = 11;
        let e = check_ranges(&o, "f.yaml", "", &[("", ROWS)]).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.message.as_str()),
            ("n", "11 is outside its declared range [1, 10]")
        );
        let mut o = outer();
        o.inner.r_m = f64::NAN;
        let e = check_ranges(&o, "f.yaml", "", &[("", ROWS)]).unwrap_err();
        assert_eq!(e.field, "inner.r_m");
        assert_eq!(
            e.message,
            "is not a finite number (declared range [0, 1] m)"
        );
        let mut o = outer();
        o.opt = Some(Inner { r_m: 2.0 });
        let e = check_ranges(&o, "f.yaml", "", &[("", ROWS)]).unwrap_err();
        assert_eq!(e.field, "opt.r_m");
    }

    #[test]
    fn a_number_without_a_declared_range_is_refused() {
        let e = check_ranges(&outer(), "f.yaml", "", &[("", &ROWS[1..])]).unwrap_err();
        assert_eq!(e.field, "n");
        assert!(e.message.contains("no declared range"), "{e}");
    }

    #[test]
    fn a_section_checked_on_its_own_reports_its_file_path() {
        let e = check_ranges(
            &Inner { r_m: -1.0 },
            "f.yaml",
            "inner.",
            &[("inner.", &ROWS[2..3])],
        )
        .unwrap_err();
        assert_eq!(e.field, "inner.r_m");
        assert_eq!(index_pattern("a[10].b[2][0]"), "a[*].b[*][*]");
    }
}
