//! Per-message provenance (REQ-FAULT-PROVENANCE, issue 10): which faults
//! touched each message of a channel, recorded by the channel itself when
//! its host asks for it ([`crate::Channel::record_provenance`],
//! [`crate::DynChannel::record_provenance`]); the in-process campaign writes
//! it as `provenance/<run_id>.csv` (`breakbench campaign --record-provenance`).
//!
//! One [`Touch`] per output of an input message that a fault changed,
//! delayed or added, and one per input it withheld (output `None`). A
//! message no fault touched has no row, so a fault-free run records
//! nothing. Attribution is to the input being pushed: a message a reorder
//! (or stall) held and releases with a later input is listed among that
//! later input's outputs.

use std::fmt::Write as _;
use std::time::Duration;

/// One message a fault touched.
#[derive(Debug, Clone, PartialEq)]
pub struct Touch {
    /// The channel's name.
    pub channel: String,
    /// Index of the input message on its channel (0 = the first received).
    pub seq: u64,
    /// When the input was received (sim time).
    pub received: Duration,
    /// Which of the input's outputs this is (0: the message itself; 1..: a
    /// copy or a held message released with it); `None`: withheld.
    pub output: Option<usize>,
    /// When the output is released (`received` + its delay); `None` when
    /// withheld.
    pub released: Option<Duration>,
    /// The output's content differs from the input's.
    pub changed: bool,
    /// The faults that touched it, in the channel's order: a typed fault's
    /// mode name (`scale`), or a stack stage as `#<id> <what>` (`#2 delay
    /// 0.2 s`).
    pub faults: Vec<String>,
}

/// A channel's provenance recorder: off (the default, costs nothing) or a
/// list of [`Touch`]es since the last [`ProvenanceLog::take`].
#[derive(Debug, Clone, Default)]
pub struct ProvenanceLog(Option<Vec<Touch>>);

impl ProvenanceLog {
    /// Starts (or stops, discarding what was recorded) recording.
    pub fn set(&mut self, on: bool) {
        self.0 = on.then(Vec::new);
    }
    /// Whether it records (callers skip the work of a [`Touch`] otherwise).
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }
    /// Appends `t` when recording.
    pub fn push(&mut self, t: Touch) {
        if let Some(log) = self.0.as_mut() {
            log.push(t);
        }
    }
    /// What was recorded since the last call (empty when not recording).
    pub fn take(&mut self) -> Vec<Touch> {
        self.0.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

/// The CSV header of [`to_csv`].
pub const CSV_HEADER: &str = "channel,seq,received_s,output,released_s,changed,faults";

/// `touches` as CSV with [`CSV_HEADER`], in the given order: times in
/// seconds (9 decimals), `output` and `released_s` empty for a withheld
/// message, `changed` 0/1, `faults` joined by `"; "` and quoted.
pub fn to_csv(touches: &[Touch]) -> String {
    let mut s = String::with_capacity(64 * (touches.len() + 1));
    s.push_str(CSV_HEADER);
    s.push('\n');
    for t in touches {
        let _ = write!(
            s,
            "{},{},{:.9},",
            quote(&t.channel),
            t.seq,
            t.received.as_secs_f64()
        );
        if let Some(o) = t.output {
            let _ = write!(s, "{o}");
        }
        s.push(',');
        if let Some(r) = t.released {
            let _ = write!(s, "{:.9}", r.as_secs_f64());
        }
        let _ = writeln!(
            s,
            ",{},{}",
            u8::from(t.changed),
            quote(&t.faults.join("; "))
        );
    }
    s
}

/// RFC 4180 quoting: always quoted, `"` doubled.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_quote_and_leave_a_withheld_output_empty() {
        let t = vec![
            Touch {
                channel: "odom".into(),
                seq: 3,
                received: Duration::from_millis(1500),
                output: Some(0),
                released: Some(Duration::from_millis(1700)),
                changed: false,
                faults: vec!["#1 delay 0.2 s".into(), "#2 say \"x\"".into()],
            },
            Touch {
                channel: "scan".into(),
                seq: 4,
                received: Duration::from_millis(2000),
                output: None,
                released: None,
                changed: false,
                faults: vec!["dropout".into()],
            },
        ];
        assert_eq!(
            to_csv(&t),
            "channel,seq,received_s,output,released_s,changed,faults\n\
             \"odom\",3,1.500000000,0,1.700000000,0,\"#1 delay 0.2 s; #2 say \"\"x\"\"\"\n\
             \"scan\",4,2.000000000,,,0,\"dropout\"\n"
        );
    }
}
