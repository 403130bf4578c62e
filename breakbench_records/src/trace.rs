//! The trace file of a run, `traces/<run_id>.csv`: one row per ground-truth
//! pose, with the position the navigator believed at that time.
//!
//! Format (CSV, one header line, `\n` line ends):
//!
//! ```text
//! t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m
//! 0.020,0.50000,0.00000,0.00000,NaN,NaN
//! ```
//!
//! * `t_s`: sim time of the ground-truth sample, seconds, 3 decimals;
//! * `true_x_m`, `true_y_m`, `true_yaw_rad`: the ground-truth pose in the
//!   world frame (metres, radians), 5 decimals;
//! * `odom_x_m`, `odom_y_m`: the navigator's believed position in its `odom`
//!   frame (REP-105: fixed at the start pose), metres, 5 decimals; `NaN`
//!   until the navigator has had odometry (and in traces written by the
//!   oracle node, which never reads the robot's estimate).
//!
//! [`TraceWriter`] writes it (the campaign's run loop), [`parse_trace`]
//! reads it back (the report's trajectory panels). The manifest names the
//! file ([`trace_file`]) and holds its sha256. Requirement: REQ-CAMPAIGN-TRACE
//! (`docs/requirements.md`).

use std::fmt::Write as _;

/// The header line of a trace file (without the line end).
pub const TRACE_HEADER: &str = "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m";

/// The trace file of run `run_id`, relative to the campaign directory.
pub fn trace_file(run_id: &str) -> String {
    format!("traces/{run_id}.csv")
}

/// One trace row. Units as the field names say; `odom_*` may be NaN.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceRow {
    pub t_s: f64,
    pub true_x_m: f64,
    pub true_y_m: f64,
    pub true_yaw_rad: f64,
    pub odom_x_m: f64,
    pub odom_y_m: f64,
}

/// Builds a trace file's text row by row.
#[derive(Debug, Clone)]
pub struct TraceWriter {
    csv: String,
}

impl Default for TraceWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceWriter {
    /// A trace holding only the header line.
    pub fn new() -> Self {
        let mut csv = String::with_capacity(TRACE_HEADER.len() + 1);
        csv.push_str(TRACE_HEADER);
        csv.push('\n');
        Self { csv }
    }

    /// Appends one row (`t_s` with 3 decimals, the other columns with 5).
    pub fn push(&mut self, r: &TraceRow) {
        let _ = writeln!(
            self.csv,
            "{:.3},{:.5},{:.5},{:.5},{:.5},{:.5}",
            r.t_s, r.true_x_m, r.true_y_m, r.true_yaw_rad, r.odom_x_m, r.odom_y_m
        );
    }

    /// The file's text.
    pub fn finish(self) -> String {
        self.csv
    }
}

/// Parses a trace file's text. Columns are found by their header name, so
/// their order is free; every column of [`TRACE_HEADER`] must be present.
/// Blank lines are skipped. `NaN` parses as NaN.
///
/// # Errors
/// A message for an empty text, a missing column in the header, or a row
/// with a missing or unparsable number (naming the 1-based line and the
/// column).
pub fn parse_trace(text: &str) -> Result<Vec<TraceRow>, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty file")?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut idx = [0usize; 6];
    for (slot, name) in idx.iter_mut().zip(TRACE_HEADER.split(',')) {
        *slot = cols
            .iter()
            .position(|c| *c == name)
            .ok_or_else(|| format!("header has no column '{name}'"))?;
    }
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let get = |j: usize| -> Result<f64, String> {
            let s = f
                .get(j)
                .ok_or_else(|| format!("line {}: missing column {}", i + 2, cols[j]))?;
            s.trim()
                .parse::<f64>()
                .map_err(|e| format!("line {}: column {}: '{}': {e}", i + 2, cols[j], s.trim()))
        };
        rows.push(TraceRow {
            t_s: get(idx[0])?,
            true_x_m: get(idx[1])?,
            true_y_m: get(idx[2])?,
            true_yaw_rad: get(idx[3])?,
            odom_x_m: get(idx[4])?,
            odom_y_m: get(idx[5])?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t_s: f64, x: f64, y: f64, yaw: f64, ox: f64, oy: f64) -> TraceRow {
        TraceRow {
            t_s,
            true_x_m: x,
            true_y_m: y,
            true_yaw_rad: yaw,
            odom_x_m: ox,
            odom_y_m: oy,
        }
    }

    #[test]
    fn writer_output_is_the_documented_format() {
        let mut w = TraceWriter::new();
        w.push(&row(0.02, 0.5, 0.0, 0.0, f64::NAN, f64::NAN));
        w.push(&row(
            1.0,
            1.234567,
            -0.000004,
            std::f64::consts::PI,
            0.1,
            -2.0,
        ));
        assert_eq!(
            w.finish(),
            "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n\
             0.020,0.50000,0.00000,0.00000,NaN,NaN\n\
             1.000,1.23457,-0.00000,3.14159,0.10000,-2.00000\n"
        );
    }

    #[test]
    fn round_trip_within_the_written_precision() {
        let rows = [
            row(0.0, 0.5, 0.0, 0.0, f64::NAN, f64::NAN),
            row(0.02, 0.5004, -1e-7, 1e-3, 0.0, 0.0),
            row(
                12.345,
                6.123456789,
                1.987654321,
                -std::f64::consts::PI,
                5.5,
                -0.333333,
            ),
            row(
                59.98,
                11.9,
                -1.25,
                std::f64::consts::FRAC_PI_2,
                11.4,
                0.0625,
            ),
        ];
        let mut w = TraceWriter::new();
        for r in &rows {
            w.push(r);
        }
        let text = w.finish();
        let back = parse_trace(&text).unwrap();
        assert_eq!(back.len(), rows.len());
        for (a, b) in rows.iter().zip(&back) {
            assert!((a.t_s - b.t_s).abs() <= 5e-4, "{a:?} {b:?}");
            for (x, y) in [
                (a.true_x_m, b.true_x_m),
                (a.true_y_m, b.true_y_m),
                (a.true_yaw_rad, b.true_yaw_rad),
                (a.odom_x_m, b.odom_x_m),
                (a.odom_y_m, b.odom_y_m),
            ] {
                if x.is_nan() {
                    assert!(y.is_nan(), "{a:?} {b:?}");
                } else {
                    assert!((x - y).abs() <= 5e-6, "{a:?} {b:?}");
                }
            }
        }
        // The text read back and written again is the same text.
        let mut w = TraceWriter::new();
        for r in &back {
            w.push(r);
        }
        assert_eq!(w.finish(), text);
        assert_eq!(trace_file("nominal_000"), "traces/nominal_000.csv");
    }

    #[test]
    fn columns_by_name_and_errors_name_line_and_column() {
        let rows = parse_trace(
            "odom_y_m,odom_x_m,true_yaw_rad,true_y_m,true_x_m,t_s\n-0.5,0.5,0,2,1,0\n\n",
        )
        .unwrap();
        assert_eq!(rows, vec![row(0.0, 1.0, 2.0, 0.0, 0.5, -0.5)]);
        let e = parse_trace(
            "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2,0,0,0\n0.1,x,2,0,0,0\n",
        )
        .unwrap_err();
        assert!(e.contains("line 3: column true_x_m: 'x'"), "{e}");
        let rows =
            parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2,0,0.5,-0.5\n")
                .unwrap();
        assert_eq!(rows, vec![row(0.0, 1.0, 2.0, 0.0, 0.5, -0.5)]);
        let e = parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2\n")
            .unwrap_err();
        assert_eq!(e, "line 2: missing column true_yaw_rad");
        let e = parse_trace("t_s,true_x_m\n0,1\n").unwrap_err();
        assert_eq!(e, "header has no column 'true_y_m'");
        assert_eq!(parse_trace("").unwrap_err(), "empty file");
    }
}
