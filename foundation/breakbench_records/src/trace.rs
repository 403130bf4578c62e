//! The trace file of a run, `traces/<run_id>.csv`: one row per ground-truth
//! pose, with the position the navigator believed at that time, the pose
//! estimate of its estimator (if it has one) and the last GNSS fix it was
//! given.
//!
//! Format (CSV, one header line, `\n` line ends):
//!
//! ```text
//! t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m,est_x_m,est_y_m,gnss_x_m,gnss_y_m
//! 0.020,0.50000,0.00000,0.00000,NaN,NaN,NaN,NaN,NaN,NaN
//! ```
//!
//! * `t_s`: sim time of the ground-truth sample, seconds, 3 decimals;
//! * `true_x_m`, `true_y_m`, `true_yaw_rad`: the ground-truth pose in the
//!   world frame (metres, radians), 5 decimals;
//! * `odom_x_m`, `odom_y_m`: the navigator's believed position in its `odom`
//!   frame (REP-105: fixed at the start pose), metres, 5 decimals; `NaN`
//!   until the navigator has had odometry (and in traces written by the
//!   oracle node, which never reads the robot's estimate).
//! * `est_x_m`, `est_y_m`: the estimator's position in `map` (= the world
//!   frame), metres, 5 decimals; `NaN` for a navigator without an estimator
//!   (it only dead-reckons in `odom`) and before its first estimate.
//! * `gnss_x_m`, `gnss_y_m`: the last `sensor_msgs/NavSatFix` with a fix
//!   (`status >= STATUS_FIX`) delivered to the navigator, after the
//!   injector's faults, converted to the world frame at the world's datum,
//!   metres, 5 decimals; `NaN` before the first such fix, without a datum,
//!   or for a navigator that is given no GNSS.
//!
//! The last four columns came later (REQ-STUDY-TRACES): [`parse_trace`]
//! reads a file without them as `NaN`.
//!
//! [`TraceWriter`] writes it (the campaign's run loop), [`parse_trace`]
//! reads it back (the report's trajectory panels). The manifest names the
//! file ([`trace_file`]) and holds its sha256. Requirement: REQ-CAMPAIGN-TRACE
//! (`docs/requirements.md`).

/// The header line of a trace file (without the line end).
pub const TRACE_HEADER: &str =
    "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m,est_x_m,est_y_m,gnss_x_m,gnss_y_m";

/// How many leading columns of [`TRACE_HEADER`] every trace file has (the
/// later ones are optional when reading).
const REQUIRED_COLUMNS: usize = 6;

/// The trace file of run `run_id`, relative to the campaign directory.
pub fn trace_file(run_id: &str) -> String {
    format!("traces/{run_id}.csv")
}

/// One trace row. Units as the field names say; `odom_*`, `est_*` and
/// `gnss_*` may be NaN (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceRow {
    pub t_s: f64,
    pub true_x_m: f64,
    pub true_y_m: f64,
    pub true_yaw_rad: f64,
    pub odom_x_m: f64,
    pub odom_y_m: f64,
    pub est_x_m: f64,
    pub est_y_m: f64,
    pub gnss_x_m: f64,
    pub gnss_y_m: f64,
}

impl TraceRow {
    /// A row with the true pose only: every other column NaN.
    pub fn truth(t_s: f64, true_x_m: f64, true_y_m: f64, true_yaw_rad: f64) -> Self {
        Self {
            t_s,
            true_x_m,
            true_y_m,
            true_yaw_rad,
            odom_x_m: f64::NAN,
            odom_y_m: f64::NAN,
            est_x_m: f64::NAN,
            est_y_m: f64::NAN,
            gnss_x_m: f64::NAN,
            gnss_y_m: f64::NAN,
        }
    }
}

/// Builds a trace file's text row by row (as ASCII bytes, checked as UTF-8
/// once in [`TraceWriter::finish`]).
#[derive(Debug, Clone)]
pub struct TraceWriter {
    csv: Vec<u8>,
}

impl Default for TraceWriter {
    fn default() -> Self {
        Self::new()
    }
}

impl TraceWriter {
    /// A trace holding only the header line.
    pub fn new() -> Self {
        let mut csv = Vec::with_capacity(TRACE_HEADER.len() + 1);
        csv.extend_from_slice(TRACE_HEADER.as_bytes());
        csv.push(b'\n');
        Self { csv }
    }

    /// Appends one row (`t_s` with 3 decimals, the other columns with 5):
    /// the text of `format!("{:.3},{:.5},...")`, written by [`push_fixed`].
    pub fn push(&mut self, r: &TraceRow) {
        push_fixed(&mut self.csv, r.t_s, 3);
        for v in [
            r.true_x_m,
            r.true_y_m,
            r.true_yaw_rad,
            r.odom_x_m,
            r.odom_y_m,
            r.est_x_m,
            r.est_y_m,
            r.gnss_x_m,
            r.gnss_y_m,
        ] {
            self.csv.push(b',');
            push_fixed(&mut self.csv, v, 5);
        }
        self.csv.push(b'\n');
    }

    /// The file's text.
    pub fn finish(self) -> String {
        String::from_utf8(self.csv).expect("the trace is ASCII")
    }
}

/// Appends `x` with `decimals` (<= 9) digits after the point: the same text
/// as `format!("{x:.decimals$}")` (correctly rounded decimal of the binary
/// value, `-` on every negative value including `-0`), by integer arithmetic
/// when `|x| * 10^decimals < 2^33` and the scaled value is not within 1e-3
/// of a rounding tie (where the product's rounding error, below 2e-6 in that
/// range, cannot flip the result); otherwise by `format!`.
fn push_fixed(out: &mut Vec<u8>, x: f64, decimals: u32) {
    use std::io::Write as _;
    debug_assert!(decimals <= 9);
    const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    if x.is_nan() {
        // What `format!` writes for every NaN, without its formatter.
        out.extend_from_slice(b"NaN");
        return;
    }
    let scaled = x.abs() * POW10[decimals as usize];
    if scaled >= (1u64 << 33) as f64 {
        let _ = write!(out, "{x:.prec$}", prec = decimals as usize);
        return;
    }
    let whole = scaled as u64; // truncation = floor for scaled >= 0
    let frac = scaled - whole as f64;
    if (frac - 0.5).abs() < 1e-3 {
        let _ = write!(out, "{x:.prec$}", prec = decimals as usize);
        return;
    }
    let mut n = whole + u64::from(frac > 0.5);
    // Digits from the right: `decimals` fraction digits, the point, then at
    // least one integer digit.
    // Two digits per division where possible ("00".."99").
    const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut buf = [0u8; 32];
    let mut i = buf.len();
    for _ in 0..decimals / 2 {
        let r = (n % 100) as usize;
        n /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&PAIRS[2 * r..2 * r + 2]);
    }
    if decimals % 2 == 1 {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
    }
    if decimals > 0 {
        i -= 1;
        buf[i] = b'.';
    }
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if x.is_sign_negative() {
        i -= 1;
        buf[i] = b'-';
    }
    out.extend_from_slice(&buf[i..]);
}

/// Parses a trace file's text. Columns are found by their header name, so
/// their order is free; the first six columns of [`TRACE_HEADER`] must be
/// present, a missing `est_*` or `gnss_*` column reads as NaN (traces
/// written before those columns existed). Blank lines are skipped. `NaN`
/// parses as NaN.
///
/// # Errors
/// A message for an empty text, a missing column in the header, or a row
/// with a missing or unparsable number (naming the 1-based line and the
/// column).
pub fn parse_trace(text: &str) -> Result<Vec<TraceRow>, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty file")?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let mut idx: [Option<usize>; 10] = [None; 10];
    for (k, (slot, name)) in idx.iter_mut().zip(TRACE_HEADER.split(',')).enumerate() {
        *slot = cols.iter().position(|c| *c == name);
        if slot.is_none() && k < REQUIRED_COLUMNS {
            return Err(format!("header has no column '{name}'"));
        }
    }
    let mut rows = Vec::new();
    for (i, line) in lines.enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let get = |j: Option<usize>| -> Result<f64, String> {
            let Some(j) = j else {
                return Ok(f64::NAN);
            };
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
            est_x_m: get(idx[6])?,
            est_y_m: get(idx[7])?,
            gnss_x_m: get(idx[8])?,
            gnss_y_m: get(idx[9])?,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(t_s: f64, x: f64, y: f64, yaw: f64, ox: f64, oy: f64) -> TraceRow {
        TraceRow {
            odom_x_m: ox,
            odom_y_m: oy,
            ..TraceRow::truth(t_s, x, y, yaw)
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
            "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m,est_x_m,est_y_m,gnss_x_m,gnss_y_m\n\
             0.020,0.50000,0.00000,0.00000,NaN,NaN,NaN,NaN,NaN,NaN\n\
             1.000,1.23457,-0.00000,3.14159,0.10000,-2.00000,NaN,NaN,NaN,NaN\n"
        );
    }

    #[test]
    fn round_trip_within_the_written_precision() {
        let rows = [
            row(0.0, 0.5, 0.0, 0.0, f64::NAN, f64::NAN),
            TraceRow {
                est_x_m: 0.51234567,
                est_y_m: -0.25,
                gnss_x_m: 8.000004,
                gnss_y_m: -1.5e-6,
                ..row(0.02, 0.5004, -1e-7, 1e-3, 0.0, 0.0)
            },
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
                (a.est_x_m, b.est_x_m),
                (a.est_y_m, b.est_y_m),
                (a.gnss_x_m, b.gnss_x_m),
                (a.gnss_y_m, b.gnss_y_m),
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
        assert_eq!(rows.len(), 1);
        let r = rows[0];
        assert_eq!(
            [
                r.t_s,
                r.true_x_m,
                r.true_y_m,
                r.true_yaw_rad,
                r.odom_x_m,
                r.odom_y_m
            ],
            [0.0, 1.0, 2.0, 0.0, 0.5, -0.5]
        );
        // Written before the estimate and GNSS columns existed: they read as NaN.
        assert!([r.est_x_m, r.est_y_m, r.gnss_x_m, r.gnss_y_m]
            .iter()
            .all(|v| v.is_nan()));
        let rows = parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m,gnss_y_m,est_x_m\n1,0,0,0,0,0,-7.25,3.5\n").unwrap();
        assert_eq!((rows[0].est_x_m, rows[0].gnss_y_m), (3.5, -7.25));
        assert!(rows[0].est_y_m.is_nan() && rows[0].gnss_x_m.is_nan());
        let e = parse_trace(
            "t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2,0,0,0\n0.1,x,2,0,0,0\n",
        )
        .unwrap_err();
        assert!(e.contains("line 3: column true_x_m: 'x'"), "{e}");
        let rows =
            parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2,0,0.5,-0.5\n")
                .unwrap();
        assert_eq!(rows.len(), 1);
        let r = rows[0];
        assert_eq!(
            [
                r.t_s,
                r.true_x_m,
                r.true_y_m,
                r.true_yaw_rad,
                r.odom_x_m,
                r.odom_y_m
            ],
            [0.0, 1.0, 2.0, 0.0, 0.5, -0.5]
        );
        // Written before the estimate and GNSS columns existed: they read as NaN.
        assert!([r.est_x_m, r.est_y_m, r.gnss_x_m, r.gnss_y_m]
            .iter()
            .all(|v| v.is_nan()));
        let rows = parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m,gnss_y_m,est_x_m\n1,0,0,0,0,0,-7.25,3.5\n").unwrap();
        assert_eq!((rows[0].est_x_m, rows[0].gnss_y_m), (3.5, -7.25));
        assert!(rows[0].est_y_m.is_nan() && rows[0].gnss_x_m.is_nan());
        let e = parse_trace("t_s,true_x_m,true_y_m,true_yaw_rad,odom_x_m,odom_y_m\n0,1,2\n")
            .unwrap_err();
        assert_eq!(e, "line 2: missing column true_yaw_rad");
        let e = parse_trace("t_s,true_x_m\n0,1\n").unwrap_err();
        assert_eq!(e, "header has no column 'true_y_m'");
        assert_eq!(parse_trace("").unwrap_err(), "empty file");
    }
}

#[cfg(test)]
mod push_fixed_tests {
    use super::push_fixed;
    use rand::{RngExt, SeedableRng};

    fn check(x: f64, d: u32) {
        let mut s = Vec::new();
        push_fixed(&mut s, x, d);
        let s = String::from_utf8(s).unwrap();
        assert_eq!(
            s,
            format!("{x:.p$}", p = d as usize),
            "x = {x:e}, {d} decimals"
        );
    }

    #[test]
    fn fixed_point_text_is_that_of_format() {
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.5,
            0.0005,
            0.00015,
            1e-9,
            -1e-9,
            123.456785,
            599.995,
            1e9,
            -3e12,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::MAX,
        ] {
            check(x, 3);
            check(x, 5);
        }
        let mut r = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200_000 {
            let x: f64 = r.random_range(-700.0..700.0);
            check(x, 3);
            check(x, 5);
            // Values on and next to a 5th/3rd-decimal tie.
            let t = (x * 1e5).round() / 1e5 + 0.5e-5;
            check(t, 5);
            check(f64::from_bits(t.to_bits() + 1), 5);
            let t = (x * 1e3).round() / 1e3 + 0.5e-3;
            check(t, 3);
        }
    }
}
