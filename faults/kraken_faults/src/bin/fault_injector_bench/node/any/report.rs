//! What `--mode any` prints: the table of every path, where each phase's
//! messages were lost, and the verdict of each phase against its target.

use super::{PathRow, PhaseCounters};

/// The table of every path's row (latencies in µs).
pub(super) fn print_table(ra: &[PathRow; 2], rb: &[PathRow; 2], rc: &[PathRow; 2]) {
    println!("| path | sent (achieved Hz) | received via injector / direct | wrong values via injector / direct | injector p50 / p99 | direct p50 / p99 | added p50 / p99 | paired p50 / p99 / max |");
    println!("|---|---|---|---|---|---|---|---|");
    for r in ra.iter().chain(rb).chain(rc) {
        println!(
            "| {} | {} ({:.0}) | {} / {} | {} / {} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} / {:.0} |",
            r.name,
            r.sent,
            r.rate_hz,
            r.recv_inj,
            r.recv_direct,
            r.wrong_inj,
            r.wrong_direct,
            r.inj[0],
            r.inj[1],
            r.direct[0],
            r.direct[1],
            r.added(0),
            r.added(1),
            r.paired[0],
            r.paired[1],
            r.paired_max,
        );
    }
    println!(
        "(latencies in µs; typed scan fault: bias 0.25 m; raw scan fault: ranges[0:90] = +inf)"
    );
}

/// Per phase, where each path's messages were lost: before the injector's
/// input, inside it, after its output.
pub(super) fn print_losses(inside: &[PhaseCounters], rows: [&[PathRow; 2]; 3]) {
    for ((phase, t, r, bufs), [rt, rr]) in inside.iter().zip(rows) {
        let split = |sent: u64, (i, o): (u64, u64), got: usize| {
            format!(
                "sent {sent}, injector in {i} out {o}, received {got}: lost before its input {}, inside {}, after its output {}",
                sent as i64 - i as i64,
                i as i64 - o as i64,
                o as i64 - got as i64
            )
        };
        println!(
            "{phase} typed: {}; raw: {}; UDP receive-buffer overflows in the namespace: {bufs}",
            split(rt.sent, *t, rt.recv_inj),
            split(rr.sent, *r, rr.recv_inj),
        );
    }
}

/// The verdict of each phase against its target.
pub(super) fn print_verdicts(ra: &[PathRow; 2], rb: &[PathRow; 2], rc: &[PathRow; 2]) {
    let ratio = |x: f64, y: f64| x / y;
    let [t, r] = ra;
    let p99 = ratio(r.paired[1], t.paired[1]);
    println!(
        "(a) raw lost {} of {} (typed lost {}); ratio raw/typed p99: paired {p99:.2}, added {:.2} (p50: paired {:.2}, added {:.2}) -> lossless: {}; paired p99 ratio <= 1.3: {}",
        r.sent as i64 - r.recv_inj as i64,
        r.sent,
        t.sent as i64 - t.recv_inj as i64,
        ratio(r.added(1), t.added(1)),
        ratio(r.paired[0], t.paired[0]),
        ratio(r.added(0), t.added(0)),
        if r.recv_inj as u64 == r.sent && r.wrong_inj == 0 { "yes" } else { "NO" },
        if p99 <= 1.3 { "met" } else { "NOT met" }
    );
    let [t, r] = rb;
    let (p50, p99) = (
        ratio(r.paired[0], t.paired[0]),
        ratio(r.paired[1], t.paired[1]),
    );
    println!(
        "(b) ratio raw field-path fault / typed bias fault: paired p50 {p50:.2}, p99 {p99:.2}; added p50 {:.2}, p99 {:.2}; wrong values typed {} raw {} -> paired ratios <= 2 and values right: {}",
        ratio(r.added(0), t.added(0)),
        ratio(r.added(1), t.added(1)),
        t.wrong_inj,
        r.wrong_inj,
        if p50 <= 2.0 && p99 <= 2.0 && r.wrong_inj + t.wrong_inj == 0 && r.recv_inj > 0 && t.recv_inj > 0 {
            "met"
        } else {
            "NOT met"
        }
    );
    let [t, r] = rc;
    let fmt = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!(
        "(c) raw sector fault: sent {}, received {}, wrong {}, largest paired added {:.0} µs (period 25,000 µs); injector p50 per block (µs): raw [{}], typed [{}] -> keeps up: {}",
        r.sent,
        r.recv_inj,
        r.wrong_inj,
        r.paired_max,
        fmt(&r.block_p50),
        fmt(&t.block_p50),
        if r.recv_inj as u64 == r.sent && r.wrong_inj == 0 && r.paired_max < 25_000.0 {
            "yes"
        } else {
            "NO"
        }
    );
}
