//! `--mode any` (`BENCH_MODE=any scripts/bench_injector.sh`): the raw
//! (any-type) relay path against the typed path of the same node, same run.
//!
//! The injector runs with `config/bench_any_type.yaml`: `imu` and `scan`
//! typed, `imu_any` and `scan_any` the same message types with `relay: raw`
//! (raw CDR through a fault stack, the path of every non-typed type). Each
//! phase alternates blocks of `--block-s` seconds between the typed and the
//! raw channel (`--rounds` rounds, the order swapped every round: typed, raw,
//! raw, typed, ...), so load from other processes hits both alike. Every
//! message also goes on a direct topic in the same instant; the figures per
//! path pool its blocks:
//!
//! - (a) Imu at 10 kHz, no fault: loss, added p50/p99, ratio raw/typed p99.
//! - (b) Imu at 1 kHz with a data fault: typed `~/set_fault` mode bias 0.5
//!   on `imu`, raw `~/set_fault_stack` `angular_velocity.z` bias 0.5 on
//!   `imu_any`; added latency each and the ratio.
//! - (c) LaserScan of 1,080 beams at 40 Hz: raw `scan_any` with the sector
//!   fault `ranges[0:90]` set to +inf; typed `scan` with mode bias 0.25 m
//!   (finite ranges + 0.25) as today's typed data fault for reference.
//!   "Keeps up": nothing lost and every message's added latency (paired,
//!   below) under the 25 ms period (a one-message backlog would exceed it);
//!   the p50 of every block is printed to show any growth.
//!
//! Latencies in µs, wall clock, receive − publish. "Added" is the path's
//! percentile minus the direct path's percentile over the same blocks (the
//! definition of the latency mode); "paired" is the percentile of the
//! per-message difference (injector − direct for the same message), which
//! cancels most of the scheduling noise both copies share; the verdicts use
//! the paired figures (on this shared machine a stall of the direct path
//! alone can make the percentile difference negative). The injector's own
//! counters (`~/status`, `~/stack_status`) and the namespace's UDP
//! receive-buffer overflows (`/proc/net/snmp`) over each phase split a loss
//! into before the injector's input, inside it, and after its output.
//! Every received
//! message is checked against the value its path must carry (unchanged; z
//! = 0.1 + 0.5; ranges + 0.25; beams 0–89 +inf and the rest unchanged): the
//! `wrong` column counts the others, so a fault that did nothing shows.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Result};
use breakbench_ros::{qos, RosClient, RosNode, SetFaultSrv, SetFaultStackSrv, TriggerSrv};
use breakbench_ros::{Publisher, Subscription};
use futures::StreamExt;
use kraken_interfaces::ros::{DiagnosticArray, Header, Imu, LaserScan, TriggerRequest};
use kraken_interfaces::{FaultSpec, FaultStatus, SetFaultRequest, SetFaultStackRequest};

use super::{imu, paced, parse_id, percentile, scan, wall_ns, Samples};

mod report;
use report::{print_losses, print_table, print_verdicts};

/// Options of the mode.
pub struct AnyArgs {
    /// Rounds per phase (each round one typed and one raw block).
    pub rounds: u32,
    /// Seconds per block of the 10 kHz and 1 kHz Imu phases.
    pub imu_block_s: f64,
    /// Seconds per block of the 40 Hz LaserScan phase.
    pub scan_block_s: f64,
}

/// The input Imu's yaw rate (rad/s) and the bias both faults add.
const Z_IN: f64 = 0.1;
const IMU_BIAS: f64 = 0.5;
/// Typed scan bias, m.
const SCAN_BIAS: f64 = 0.25;
/// Beams of the raw sector fault: `ranges[0:90]`.
const SECTOR: usize = 90;
/// The raw Imu path's field-path fault.
const IMU_STACK: &str = "[{fault: {field: {path: angular_velocity.z, mode: bias, bias: 0.5}}}]";
/// The raw LaserScan path's sector fault.
const SCAN_STACK: &str = "[{fault: {field: {path: 'ranges[0:90]', mode: set, value: inf}}}]";

/// Phase bases (frame_id "phase:seq"); block k of a phase is base + k.
const P_IMU_10K: u32 = 100;
const P_IMU_FAULT: u32 = 200;
const P_SCAN: u32 = 300;

/// Messages per phase whose content was not what the path must deliver.
type Wrong = Arc<Mutex<BTreeMap<u32, u64>>>;

/// The injector's own counters, channel -> (messages_in, messages_out),
/// from its latest `~/status` (typed) and `~/stack_status` (raw) messages.
type Counters = Arc<Mutex<BTreeMap<String, (u64, u64)>>>;

/// Keeps [`Counters`] up to date from the injector's status topics
/// (published at its `status_rate_hz`, 1 Hz by default).
fn spawn_counters(node: &mut RosNode) -> Result<Counters> {
    let c: Counters = Arc::default();
    let typed = node.subscription::<FaultStatus>("/fault_injector/status", qos::subscribe(10))?;
    let raw =
        node.subscription::<DiagnosticArray>("/fault_injector/stack_status", qos::subscribe(10))?;
    let c1 = c.clone();
    std::thread::spawn(move || {
        futures::executor::block_on(async {
            let s = typed.async_stream();
            futures::pin_mut!(s);
            while let Some(r) = s.next().await {
                if let Ok(m) = r {
                    let mut c = c1.lock().expect("poisoned");
                    for ch in m.channels {
                        c.insert(ch.channel, (ch.messages_in, ch.messages_out));
                    }
                }
            }
        })
    });
    let c2 = c.clone();
    std::thread::spawn(move || {
        futures::executor::block_on(async {
            let s = raw.async_stream();
            futures::pin_mut!(s);
            while let Some(r) = s.next().await {
                if let Ok(m) = r {
                    let mut c = c2.lock().expect("poisoned");
                    for st in m.status {
                        let get = |k: &str| {
                            st.values
                                .iter()
                                .find(|v| v.key == k)
                                .and_then(|v| v.value.parse().ok())
                                .unwrap_or(0)
                        };
                        let v = (get("messages_in"), get("messages_out"));
                        c.insert(st.hardware_id, v);
                    }
                }
            }
        })
    });
    Ok(c)
}

/// `Udp: RcvbufErrors` of this network namespace (`/proc/net/snmp`):
/// datagrams dropped because a receiving socket's buffer was full, by any
/// process of the namespace (the injector and this bench only). 0 if
/// unreadable.
fn udp_rcvbuf_errors() -> u64 {
    let Ok(t) = std::fs::read_to_string("/proc/net/snmp") else {
        return 0;
    };
    let mut udp = t.lines().filter(|l| l.starts_with("Udp:"));
    let (Some(names), Some(values)) = (udp.next(), udp.next()) else {
        return 0;
    };
    names
        .split_whitespace()
        .zip(values.split_whitespace())
        .find(|(n, _)| *n == "RcvbufErrors")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0)
}

/// Over one phase: its label, the typed and the raw channel's (in, out)
/// counter changes, the UDP receive-buffer overflows.
type PhaseCounters = (&'static str, (u64, u64), (u64, u64), u64);

/// Waits past one status period and returns the counters then, with the
/// namespace's UDP receive-buffer overflows under the key `udp_rcvbuf_errors`.
fn snapshot(c: &Counters) -> BTreeMap<String, (u64, u64)> {
    std::thread::sleep(Duration::from_millis(1200));
    let mut m = c.lock().expect("poisoned").clone();
    m.insert("udp_rcvbuf_errors".into(), (udp_rcvbuf_errors(), 0));
    m
}

/// The counters' change of `channel` between two snapshots, (in, out).
fn delta(
    a: &BTreeMap<String, (u64, u64)>,
    b: &BTreeMap<String, (u64, u64)>,
    channel: &str,
) -> (u64, u64) {
    let (x, y) = (
        a.get(channel).copied().unwrap_or_default(),
        b.get(channel).copied().unwrap_or_default(),
    );
    (y.0.saturating_sub(x.0), y.1.saturating_sub(x.1))
}

/// Receives `sub`, records the latency of every message under its
/// (phase, seq) in `samples` and counts in `wrong` those `ok` rejects.
fn spawn_checked<M, F, C>(sub: Subscription<M>, samples: Samples, wrong: Wrong, header_of: F, ok: C)
where
    M: serde::de::DeserializeOwned + Send + 'static,
    F: Fn(&M) -> &Header + Send + 'static,
    C: Fn(u32, &M) -> bool + Send + 'static,
{
    std::thread::spawn(move || {
        futures::executor::block_on(async {
            let s = sub.async_stream();
            futures::pin_mut!(s);
            while let Some(r) = s.next().await {
                let now = wall_ns();
                if let Ok(m) = r {
                    let h = header_of(&m);
                    if let Some(id) = parse_id(h) {
                        let lat = now - h.stamp.as_nanos();
                        if !ok(id.0, &m) {
                            *wrong.lock().expect("poisoned").entry(id.0).or_default() += 1;
                        }
                        samples.lock().expect("poisoned").insert(id, lat);
                    }
                }
            }
        })
    });
}

/// Whether an Imu of `phase` carries what its path must deliver: the
/// generated message, with z biased by 0.5 in the fault phase when `faulted`.
fn imu_ok(phase: u32, m: &Imu, faulted: bool) -> bool {
    let z = if faulted && (P_IMU_FAULT..P_SCAN).contains(&phase) {
        Z_IN + IMU_BIAS
    } else {
        Z_IN
    };
    let sent = imu(0, 0);
    (m.angular_velocity.z - z).abs() < 1e-9
        && m.angular_velocity.x == 0.0
        && m.angular_velocity.y == 0.0
        && m.angular_velocity_covariance == sent.angular_velocity_covariance
        && m.linear_acceleration.x == 0.0
}

fn imu_hdr(m: &Imu) -> &Header {
    &m.header
}

fn scan_hdr(m: &LaserScan) -> &Header {
    &m.header
}

/// Which path a received LaserScan came through.
#[derive(Clone, Copy)]
enum ScanPath {
    Direct,
    /// Typed: finite ranges + [`SCAN_BIAS`].
    TypedBias,
    /// Raw: `ranges[0:90]` = +inf, the rest unchanged.
    RawSector,
}

fn scan_ok(m: &LaserScan, path: ScanPath) -> bool {
    let sent = scan(0, 0);
    if m.ranges.len() != sent.ranges.len() || m.intensities != sent.intensities {
        return false;
    }
    m.ranges
        .iter()
        .zip(&sent.ranges)
        .enumerate()
        .all(|(i, (&got, &orig))| match path {
            ScanPath::Direct => got == orig,
            ScanPath::TypedBias => (f64::from(got) - (f64::from(orig) + SCAN_BIAS)).abs() < 1e-5,
            ScanPath::RawSector if i < SECTOR => got == f32::INFINITY,
            ScanPath::RawSector => got == orig,
        })
}

/// One block: `sent` messages of `phase` on one path in `elapsed_s`.
struct Block {
    phase: u32,
    raw: bool,
    sent: u64,
    elapsed_s: f64,
}

/// One path's figures over its blocks of a phase (latencies in µs).
struct PathRow {
    name: String,
    sent: u64,
    recv_inj: usize,
    recv_direct: usize,
    wrong_inj: u64,
    wrong_direct: u64,
    rate_hz: f64,
    inj: [f64; 3],
    direct: [f64; 3],
    paired: [f64; 3],
    /// Largest paired difference, µs.
    paired_max: f64,
    /// p50 of the injector path per block, µs, in run order.
    block_p50: Vec<f64>,
}

impl PathRow {
    fn added(&self, k: usize) -> f64 {
        self.inj[k] - self.direct[k]
    }
}

fn pcts(v: &mut [i64]) -> [f64; 3] {
    v.sort_unstable();
    [
        percentile(v, 50.0) / 1e3,
        percentile(v, 99.0) / 1e3,
        v.last().map_or(f64::NAN, |x| *x as f64 / 1e3),
    ]
}

fn path_row(
    name: &str,
    blocks: &[Block],
    raw: bool,
    inj: &Samples,
    direct: &Samples,
    wrong_inj: &Wrong,
    wrong_direct: &Wrong,
) -> PathRow {
    let mine: Vec<&Block> = blocks.iter().filter(|b| b.raw == raw).collect();
    let (inj, direct) = (
        inj.lock().expect("poisoned"),
        direct.lock().expect("poisoned"),
    );
    let (mut a, mut b, mut d) = (Vec::new(), Vec::new(), Vec::new());
    let mut block_p50 = Vec::new();
    for bl in &mine {
        let range = (bl.phase, 0)..(bl.phase + 1, 0);
        let mut this: Vec<i64> = inj.range(range.clone()).map(|(_, l)| *l).collect();
        block_p50.push(pcts(&mut this)[0]);
        a.extend(this);
        b.extend(direct.range(range.clone()).map(|(_, l)| *l));
        d.extend(
            inj.range(range)
                .filter_map(|(id, l)| direct.get(id).map(|dl| l - dl)),
        );
    }
    let count = |w: &Wrong| {
        let w = w.lock().expect("poisoned");
        mine.iter()
            .map(|bl| w.get(&bl.phase).copied().unwrap_or(0))
            .sum()
    };
    let sent: u64 = mine.iter().map(|b| b.sent).sum();
    let secs: f64 = mine.iter().map(|b| b.elapsed_s).sum();
    let paired = pcts(&mut d);
    PathRow {
        name: name.into(),
        sent,
        recv_inj: a.len(),
        recv_direct: b.len(),
        wrong_inj: count(wrong_inj),
        wrong_direct: count(wrong_direct),
        rate_hz: sent as f64 / secs.max(1e-9),
        inj: pcts(&mut a),
        direct: pcts(&mut b),
        paired,
        paired_max: paired[2],
        block_p50,
    }
}

/// Runs `rounds` rounds of a typed and a raw block (order swapped every
/// round), `n` messages each at `rate_hz`; `send(phase, seq, raw)` publishes
/// one message on the path and on the direct topic. Phases from `base`.
fn alternate(
    base: u32,
    rounds: u32,
    rate_hz: f64,
    n: u64,
    mut send: impl FnMut(u32, u64, bool),
) -> Vec<Block> {
    let mut blocks = Vec::new();
    for r in 0..rounds {
        let order = if r % 2 == 0 {
            [false, true]
        } else {
            [true, false]
        };
        for raw in order {
            let phase = base + blocks.len() as u32;
            let t = Instant::now();
            paced(rate_hz, n, |i| send(phase, i, raw));
            blocks.push(Block {
                phase,
                raw,
                sent: n,
                elapsed_s: t.elapsed().as_secs_f64(),
            });
            // Let the block drain before the other path starts.
            std::thread::sleep(Duration::from_millis(300));
        }
    }
    std::thread::sleep(Duration::from_millis(500));
    blocks
}

/// The generator's publishers per path (typed, raw, direct), what each
/// path received (latencies, wrong values), the injector's counters and
/// services.
struct Rig {
    imu_typed: Publisher<Imu>,
    imu_raw: Publisher<Imu>,
    imu_direct: Publisher<Imu>,
    scan_typed: Publisher<LaserScan>,
    scan_raw: Publisher<LaserScan>,
    scan_direct: Publisher<LaserScan>,
    // One sample map per path (typed, raw, direct): phases keep blocks apart.
    typed: Samples,
    raw: Samples,
    direct: Samples,
    w_typed: Wrong,
    w_raw: Wrong,
    w_direct: Wrong,
    counters: Counters,
    set: RosClient<SetFaultSrv>,
    set_stack: RosClient<SetFaultStackSrv>,
    clear: RosClient<TriggerSrv>,
}

impl Rig {
    fn open(node: &mut RosNode) -> Result<Self> {
        let gen_qos = qos::publish().depth(2000);
        let imu_typed = node.publisher::<Imu>("/imu/data_raw", gen_qos)?;
        let imu_raw = node.publisher::<Imu>("/imu_any/data_raw", gen_qos)?;
        let imu_direct = node.publisher::<Imu>("/bench/imu_direct", gen_qos)?;
        let scan_typed = node.publisher::<LaserScan>("/scan_raw", gen_qos)?;
        let scan_raw = node.publisher::<LaserScan>("/scan_any_raw", gen_qos)?;
        let scan_direct = node.publisher::<LaserScan>("/bench/scan_direct", gen_qos)?;
        let (typed, raw, direct): (Samples, Samples, Samples) = Default::default();
        let (w_typed, w_raw, w_direct): (Wrong, Wrong, Wrong) = Default::default();
        let receivers = [
            (&typed, &w_typed, "/imu/data", "/scan", ScanPath::TypedBias),
            (
                &raw,
                &w_raw,
                "/imu_any/data",
                "/scan_any",
                ScanPath::RawSector,
            ),
        ];
        spawn_receivers(node, receivers, (&direct, &w_direct))?;
        let counters = spawn_counters(node)?;
        Ok(Self {
            imu_typed,
            imu_raw,
            imu_direct,
            scan_typed,
            scan_raw,
            scan_direct,
            typed,
            raw,
            direct,
            w_typed,
            w_raw,
            w_direct,
            counters,
            set: node.client::<SetFaultSrv>("/fault_injector/set_fault")?,
            set_stack: node.client::<SetFaultStackSrv>("/fault_injector/set_fault_stack")?,
            clear: node.client::<TriggerSrv>("/fault_injector/clear_faults")?,
        })
    }

    /// Discovery: every path delivers (phase 0, not counted), then the
    /// services match. Errors: after 30 s each.
    fn wait_ready(&self, node: &RosNode) -> Result<()> {
        let t0 = Instant::now();
        let mut warm = 0;
        loop {
            let m = imu(0, warm);
            self.imu_typed.publish(m.clone()).ok();
            self.imu_raw.publish(m.clone()).ok();
            self.imu_direct.publish(m).ok();
            let s = scan(0, warm);
            self.scan_typed.publish(s.clone()).ok();
            self.scan_raw.publish(s.clone()).ok();
            self.scan_direct.publish(s).ok();
            warm += 1;
            std::thread::sleep(Duration::from_millis(20));
            let got = |s: &Samples| s.lock().expect("poisoned").range((0, 0)..(1, 0)).count() > 1;
            if got(&self.typed) && got(&self.raw) && got(&self.direct) && warm > 100 {
                break;
            }
            if t0.elapsed() > Duration::from_secs(30) {
                bail!("no messages through both injector paths after 30 s (is the injector running with config/bench_any_type.yaml?)");
            }
        }
        let t_svc = Instant::now();
        while !(node.service_ready(&self.set)
            && node.service_ready(&self.set_stack)
            && node.service_ready(&self.clear))
        {
            if t_svc.elapsed() > Duration::from_secs(30) {
                bail!("services of the injector not matched after 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// `~/clear_faults`. Errors: the call failed.
    fn clear_all(&self) -> Result<()> {
        futures::executor::block_on(self.clear.call(TriggerRequest::default()))
            .map_err(|e| anyhow::anyhow!("clear_faults: {e}"))?;
        Ok(())
    }

    /// `~/set_fault`. Errors: the call failed or was refused.
    fn set_fault(&self, spec: FaultSpec) -> Result<()> {
        let ch = spec.channel.clone();
        let r = futures::executor::block_on(self.set.call(SetFaultRequest { fault: spec }))
            .map_err(|e| anyhow::anyhow!("set_fault {ch}: {e}"))?;
        ensure!(r.success, "set_fault {ch}: {}", r.message);
        Ok(())
    }

    /// `~/set_fault_stack` (replacing the stack). Errors: the call failed
    /// or was refused.
    fn set_fault_stack(&self, channel: &str, yaml: &str) -> Result<()> {
        let r = futures::executor::block_on(self.set_stack.call(SetFaultStackRequest {
            channel: channel.into(),
            stack_yaml: yaml.into(),
            append: false,
        }))
        .map_err(|e| anyhow::anyhow!("set_fault_stack {channel}: {e}"))?;
        ensure!(r.success, "set_fault_stack {channel}: {}", r.message);
        Ok(())
    }

    /// One Imu of `phase` on the typed or raw path and on the direct topic.
    fn send_imu(&self, phase: u32, seq: u64, raw: bool) {
        let m = imu(phase, seq);
        (if raw { &self.imu_raw } else { &self.imu_typed })
            .publish(m.clone())
            .ok();
        self.imu_direct.publish(m).ok();
    }

    /// One LaserScan of `phase` on the typed or raw path and on the direct topic.
    fn send_scan(&self, phase: u32, seq: u64, raw: bool) {
        let m = scan(phase, seq);
        (if raw {
            &self.scan_raw
        } else {
            &self.scan_typed
        })
        .publish(m.clone())
        .ok();
        self.scan_direct.publish(m).ok();
    }

    /// The typed and the raw path's rows over `blocks`.
    fn rows_of(&self, name: &str, blocks: &[Block]) -> [PathRow; 2] {
        [
            path_row(
                &format!("{name}, typed"),
                blocks,
                false,
                &self.typed,
                &self.direct,
                &self.w_typed,
                &self.w_direct,
            ),
            path_row(
                &format!("{name}, raw"),
                blocks,
                true,
                &self.raw,
                &self.direct,
                &self.w_raw,
                &self.w_direct,
            ),
        ]
    }

    /// One phase `label` (rows named `name`): `blocks` runs the blocks;
    /// the injector's counters of channels `typed` and `raw` over it.
    fn phase(
        &self,
        (label, name): (&'static str, &str),
        (typed, raw): (&str, &str),
        blocks: impl FnOnce() -> Vec<Block>,
    ) -> ([PathRow; 2], PhaseCounters) {
        let before = snapshot(&self.counters);
        let blocks = blocks();
        let rows = self.rows_of(name, &blocks);
        let after = snapshot(&self.counters);
        let counters = (
            label,
            delta(&before, &after, typed),
            delta(&before, &after, raw),
            delta(&before, &after, "udp_rcvbuf_errors").0,
        );
        (rows, counters)
    }
}

/// The checked receivers: per injector path (samples, wrong, Imu topic,
/// LaserScan topic, what its scans must carry), then the direct path's.
#[allow(clippy::type_complexity)]
fn spawn_receivers(
    node: &mut RosNode,
    paths: [(&Samples, &Wrong, &str, &str, ScanPath); 2],
    (direct, w_direct): (&Samples, &Wrong),
) -> Result<()> {
    let rx_qos = qos::subscribe(2000);
    for (samples, wrong, imu_topic, _, _) in paths {
        spawn_checked(
            node.subscription::<Imu>(imu_topic, rx_qos)?,
            samples.clone(),
            wrong.clone(),
            imu_hdr as fn(&Imu) -> &Header,
            |p, m| imu_ok(p, m, true),
        );
    }
    spawn_checked(
        node.subscription::<Imu>("/bench/imu_direct", rx_qos)?,
        direct.clone(),
        w_direct.clone(),
        imu_hdr as fn(&Imu) -> &Header,
        |p, m| imu_ok(p, m, false),
    );
    for (samples, wrong, _, scan_topic, path) in paths {
        spawn_checked(
            node.subscription::<LaserScan>(scan_topic, rx_qos)?,
            samples.clone(),
            wrong.clone(),
            scan_hdr as fn(&LaserScan) -> &Header,
            move |p, m| p < P_SCAN || scan_ok(m, path),
        );
    }
    spawn_checked(
        node.subscription::<LaserScan>("/bench/scan_direct", rx_qos)?,
        direct.clone(),
        w_direct.clone(),
        scan_hdr as fn(&LaserScan) -> &Header,
        |_, m| scan_ok(m, ScanPath::Direct),
    );
    Ok(())
}

/// The mode: three phases, one table, a verdict per target.
pub fn run(node: &mut RosNode, a: &AnyArgs) -> Result<()> {
    let rig = Rig::open(node)?;
    let _spinner = node.spawn_spinner()?;
    rig.wait_ready(node)?;
    rig.clear_all()?;

    // (a) Imu 10 kHz, no fault.
    let n = (10_000.0 * a.imu_block_s) as u64;
    let (ra, ca) = rig.phase(
        ("(a)", "(a) Imu 10 kHz, no fault"),
        ("imu", "imu_any"),
        || {
            alternate(P_IMU_10K, a.rounds, 10_000.0, n, |p, i, r| {
                rig.send_imu(p, i, r)
            })
        },
    );

    // (b) Imu 1 kHz, data fault on both paths.
    rig.set_fault(FaultSpec {
        bias: IMU_BIAS,
        step_at_s: 0.0,
        ..FaultSpec::new("imu", FaultSpec::BIAS)
    })?;
    rig.set_fault_stack("imu_any", IMU_STACK)?;
    let n = (1000.0 * a.imu_block_s) as u64;
    let (rb, cb) = rig.phase(
        ("(b)", "(b) Imu 1 kHz, bias 0.5 on angular_velocity.z"),
        ("imu", "imu_any"),
        || {
            alternate(P_IMU_FAULT, a.rounds, 1000.0, n, |p, i, r| {
                rig.send_imu(p, i, r)
            })
        },
    );
    rig.clear_all()?;

    // (c) LaserScan 1,080 beams at 40 Hz: raw sector fault, typed bias.
    rig.set_fault(FaultSpec {
        bias: SCAN_BIAS,
        step_at_s: 0.0,
        ..FaultSpec::new("scan", FaultSpec::BIAS)
    })?;
    rig.set_fault_stack("scan_any", SCAN_STACK)?;
    let n = (40.0 * a.scan_block_s) as u64;
    let (rc, cc) = rig.phase(
        ("(c)", "(c) LaserScan 1080 beams 40 Hz"),
        ("scan", "scan_any"),
        || alternate(P_SCAN, a.rounds, 40.0, n, |p, i, r| rig.send_scan(p, i, r)),
    );
    rig.clear_all()?;

    print_table(&ra, &rb, &rc);
    // The injector's counters of (typed, raw) channel over each phase.
    print_losses(&[ca, cb, cc], [&ra, &rb, &rc]);
    print_verdicts(&ra, &rb, &rc);
    std::process::exit(0)
}
