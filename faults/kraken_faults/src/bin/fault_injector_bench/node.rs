//! `fault_injector_bench`: load generator and latency probe for a running
//! `fault_injector` (run by `scripts/bench_injector.sh` inside a private
//! network namespace; not a test).
//!
//! Each message is published twice in the same instant: once into the
//! injector's input topic and once on a direct topic that bypasses it. Both
//! are received here; latency = receive wall time − publish wall time (the
//! header stamp). "Added latency" is the injector path's percentile minus
//! the direct path's percentile, measured in the same run.
//!
//! Phases: (1) Imu at 1 kHz, healthy; (2) LaserScan with 1080 beams at 10 Hz,
//! healthy; (3) Imu rate sweep for the highest rate relayed without loss;
//! (4) RSS of the injector (from /proc/<pid>/status) with a 0.8 s delay fault
//! on imu (1 kHz) and scan (10 Hz).
//!
//! Usage: `fault_injector_bench --injector-pid PID [--seconds S] [--json FILE]`.
//!
//! `--mode soak` (memory soak, `scripts/bench_injector.sh soak`): Imu at
//! `--rate-hz` (10 kHz) for `--seconds` through a 1 s delay fault on imu;
//! prints VmRSS of the injector every 10 s, the messages sent and received
//! through the injector (loss) and the RSS spread after the first minute.
//!
//! `--mode flood` (`scripts/bench_injector.sh flood`): a 60 s delay on imu
//! and scan, then 20,000 Imu at the generator's top rate and `--scans`
//! LaserScans of 1 MB (262,144 beams); VmRSS every second while the queue
//! fills, holds and drains (60 s after the flood), against the caps.
//!
//! `--mode any` (`BENCH_MODE=any scripts/bench_injector.sh`, the injector on
//! `config/bench_any_type.yaml`): the raw any-type relay path against the
//! typed path in interleaved blocks ([`any`]); `--rounds N` (3),
//! `--block-s S` (2: seconds per Imu block), `--scan-block-s S` (5).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context as _, Result};
use breakbench_ros::{qos, RosArgs, RosClient, RosEnv, RosNode, SetFaultSrv, TriggerSrv};
use breakbench_ros::{Publisher, Subscription};
use futures::StreamExt;
use kraken_interfaces::ros::{Header, Imu, LaserScan, Time, TriggerRequest};
use kraken_interfaces::{FaultSpec, FaultStatus, SetFaultRequest, SetFaultResponse};

mod any;
mod latency;

/// (phase, seq) -> latency in ns.
type Samples = Arc<Mutex<BTreeMap<(u32, u64), i64>>>;

fn wall_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos() as i64
}

fn header(phase: u32, seq: u64) -> Header {
    Header {
        stamp: Time::from_nanos(wall_ns()),
        frame_id: format!("{phase}:{seq}"),
    }
}

fn parse_id(h: &Header) -> Option<(u32, u64)> {
    let (p, s) = h.frame_id.split_once(':')?;
    Some((p.parse().ok()?, s.parse().ok()?))
}

fn spawn_receiver<M, F>(sub: Subscription<M>, samples: Samples, header_of: F)
where
    M: serde::de::DeserializeOwned + Send + 'static,
    F: Fn(&M) -> &Header + Send + 'static,
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
                        samples
                            .lock()
                            .expect("poisoned")
                            .insert(id, now - h.stamp.as_nanos());
                    }
                }
            }
        })
    });
}

fn percentile(sorted: &[i64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    // Nearest-rank percentile (NIST/Hyndman-Fan definition 1).
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1] as f64
}

fn phase_latencies(s: &Samples, phase: u32) -> Vec<i64> {
    let mut v: Vec<i64> = s
        .lock()
        .expect("poisoned")
        .range((phase, 0)..(phase + 1, 0))
        .map(|(_, l)| *l)
        .collect();
    v.sort_unstable();
    v
}

fn rss_kib(pid: u32) -> Result<u64> {
    let st = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .with_context(|| format!("pid {pid}"))?;
    st.lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .context("no VmRSS")
}

/// Paces `n` iterations at `rate_hz` on the monotonic clock (sleep, then spin the last 200 µs).
fn paced(rate_hz: f64, n: u64, mut f: impl FnMut(u64)) {
    let period = Duration::from_secs_f64(1.0 / rate_hz);
    let t0 = Instant::now();
    for i in 0..n {
        let due = t0 + period * i as u32;
        loop {
            let now = Instant::now();
            if now >= due {
                break;
            }
            let left = due - now;
            if left > Duration::from_micros(200) {
                std::thread::sleep(left - Duration::from_micros(150));
            } else {
                std::hint::spin_loop();
            }
        }
        f(i);
    }
}

fn imu(phase: u32, seq: u64) -> Imu {
    let mut m = Imu {
        header: header(phase, seq),
        ..Imu::default()
    };
    m.angular_velocity.z = 0.1;
    m.angular_velocity_covariance = [0.01, 0.0, 0.0, 0.0, 0.01, 0.0, 0.0, 0.0, 0.01];
    m
}

fn scan(phase: u32, seq: u64) -> LaserScan {
    let n = 1080;
    LaserScan {
        header: header(phase, seq),
        angle_min: -std::f32::consts::PI * 0.75,
        angle_max: std::f32::consts::PI * 0.75,
        angle_increment: std::f32::consts::PI * 1.5 / (n as f32 - 1.0),
        time_increment: 0.0,
        scan_time: 0.1,
        range_min: 0.05,
        range_max: 30.0,
        ranges: (0..n).map(|i| 1.0 + (i % 100) as f32 * 0.05).collect(),
        intensities: vec![100.0; n],
    }
}

struct Row {
    name: String,
    sent: u64,
    recv_inj: usize,
    recv_direct: usize,
    inj_p50: f64,
    inj_p99: f64,
    dir_p50: f64,
    dir_p99: f64,
}

fn row(name: &str, sent: u64, inj: &Samples, direct: &Samples, phase: u32) -> Row {
    let a = phase_latencies(inj, phase);
    let b = phase_latencies(direct, phase);
    Row {
        name: name.into(),
        sent,
        recv_inj: a.len(),
        recv_direct: b.len(),
        inj_p50: percentile(&a, 50.0) / 1e3,
        inj_p99: percentile(&a, 99.0) / 1e3,
        dir_p50: percentile(&b, 50.0) / 1e3,
        dir_p99: percentile(&b, 99.0) / 1e3,
    }
}

/// Messages received per phase (frame_id "phase:seq").
type Counts = Arc<Vec<std::sync::atomic::AtomicU64>>;

fn spawn_counter<M, F>(sub: Subscription<M>, counts: Counts, header_of: F)
where
    M: serde::de::DeserializeOwned + Send + 'static,
    F: Fn(&M) -> &Header + Send + 'static,
{
    std::thread::spawn(move || {
        futures::executor::block_on(async {
            let s = sub.async_stream();
            futures::pin_mut!(s);
            while let Some(r) = s.next().await {
                if let Ok(m) = r {
                    if let Some((p, _)) = parse_id(header_of(&m)) {
                        if let Some(c) = counts.get(p as usize) {
                            c.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                }
            }
        })
    });
}

fn count(c: &Counts, phase: u32) -> u64 {
    c[phase as usize].load(std::sync::atomic::Ordering::Relaxed)
}

/// A scan of `beams` beams (4 bytes each in ranges; no intensities).
fn big_scan(phase: u32, seq: u64, beams: usize) -> LaserScan {
    LaserScan {
        header: header(phase, seq),
        angle_min: -3.0,
        angle_max: 3.0,
        angle_increment: 6.0 / beams as f32,
        scan_time: 0.1,
        range_min: 0.05,
        range_max: 30.0,
        ranges: vec![5.0; beams],
        ..LaserScan::default()
    }
}

struct LoadArgs {
    mode: String,
    rate_hz: f64,
    scans: u64,
    /// Flood: the delay fault set on imu and scan (0 = no fault, healthy
    /// relay: the DDS buffers' share of the RSS without any held message).
    delay_s: f64,
}

/// Keeps the injector's latest `~/status` (its own counters: in, out, held,
/// dropped by the caps).
fn spawn_status(node: &mut RosNode) -> Result<Arc<Mutex<Option<FaultStatus>>>> {
    let status: Arc<Mutex<Option<FaultStatus>>> = Arc::default();
    let sub = node.subscription::<FaultStatus>("/fault_injector/status", qos::subscribe(10))?;
    let st = status.clone();
    std::thread::spawn(move || {
        futures::executor::block_on(async {
            let s = sub.async_stream();
            futures::pin_mut!(s);
            while let Some(r) = s.next().await {
                if let Ok(m) = r {
                    *st.lock().expect("poisoned") = Some(m);
                }
            }
        })
    });
    Ok(status)
}

/// Calls `set_fault` with `spec` and returns the response. Errors: the call failed.
fn call_set_fault(set: &RosClient<SetFaultSrv>, spec: FaultSpec) -> Result<SetFaultResponse> {
    futures::executor::block_on(set.call(SetFaultRequest { fault: spec }))
        .map_err(|e| anyhow::anyhow!("set_fault: {e}"))
}

/// Calls `clear_faults`. Errors: the call failed.
fn call_clear_faults(clear: &RosClient<TriggerSrv>) -> Result<()> {
    futures::executor::block_on(clear.call(TriggerRequest::default()))
        .map_err(|e| anyhow::anyhow!("clear_faults: {e}"))?;
    Ok(())
}

/// Soak and flood: the generator's publishers, what came through the
/// injector per phase, the injector's status and services.
struct MemoryRig {
    pid: u32,
    imu_in: Publisher<Imu>,
    scan_in: Publisher<LaserScan>,
    counts: Counts,
    status: Arc<Mutex<Option<FaultStatus>>>,
    set: RosClient<SetFaultSrv>,
    clear: RosClient<TriggerSrv>,
}

impl MemoryRig {
    fn open(node: &mut RosNode, pid: u32) -> Result<Self> {
        let gen_qos = qos::publish().depth(20_000);
        let imu_in = node.publisher::<Imu>("/imu/data_raw", gen_qos)?;
        let scan_in = node.publisher::<LaserScan>("/scan_raw", gen_qos)?;
        let counts: Counts = Arc::new((0..64).map(|_| Default::default()).collect());
        spawn_counter(
            node.subscription::<Imu>("/imu/data", qos::subscribe(20_000))?,
            counts.clone(),
            |m: &Imu| &m.header,
        );
        spawn_counter(
            node.subscription::<LaserScan>("/scan", qos::subscribe(1000))?,
            counts.clone(),
            |m: &LaserScan| &m.header,
        );
        let status = spawn_status(node)?;
        Ok(Self {
            pid,
            imu_in,
            scan_in,
            counts,
            status,
            set: node.client::<SetFaultSrv>("/fault_injector/set_fault")?,
            clear: node.client::<TriggerSrv>("/fault_injector/clear_faults")?,
        })
    }

    /// Prints the injector's counters of imu and scan, labelled `when`.
    fn report_status(&self, when: &str) {
        if let Some(st) = self.status.lock().expect("poisoned").as_ref() {
            for c in st
                .channels
                .iter()
                .filter(|c| c.channel == "imu" || c.channel == "scan")
            {
                println!(
                    "{when}: injector status {}: in {}, out {}, held {} ({} bytes), dropped by the caps {}",
                    c.channel, c.messages_in, c.messages_out, c.messages_held, c.bytes_held,
                    c.messages_dropped_overflow
                );
            }
        }
    }

    /// Warms the Imu path up (100 messages and one through) and waits for
    /// the services. Errors: nothing through in 30 s, no services in 60 s.
    fn wait_ready(&self, node: &RosNode) -> Result<()> {
        let t0 = Instant::now();
        let mut warm = 0;
        while count(&self.counts, 0) == 0 || warm < 100 {
            self.imu_in.publish(imu(0, warm)).ok();
            warm += 1;
            std::thread::sleep(Duration::from_millis(20));
            if t0.elapsed() > Duration::from_secs(30) {
                bail!("no messages through the injector after 30 s");
            }
        }
        while !(node.service_ready(&self.set) && node.service_ready(&self.clear)) {
            if t0.elapsed() > Duration::from_secs(60) {
                bail!("services of the injector not matched");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    /// Soak: Imu at `rate_hz` for `seconds` through a 1 s delay on imu;
    /// VmRSS every 10 s, the loss, the RSS spread after the first minute.
    fn soak(&self, seconds: f64, rate_hz: f64, rss_start: u64) -> Result<()> {
        let (pid, started) = (self.pid, Instant::now());
        let stamp = |t: Instant| t.duration_since(started).as_secs_f64();
        let r = call_set_fault(
            &self.set,
            FaultSpec {
                delay_s: 1.0,
                ..FaultSpec::new("imu", FaultSpec::DELAY)
            },
        )?;
        anyhow::ensure!(r.success, "set_fault: {}", r.message);
        let n = (rate_hz * seconds) as u64;
        let every = (rate_hz * 10.0) as u64;
        let mut samples = vec![(0.0, rss_start)];
        println!("soak: Imu {rate_hz} Hz for {seconds} s through delay 1 s; RSS at start {rss_start} KiB");
        paced(rate_hz, n, |i| {
            self.imu_in.publish(imu(40, i)).ok();
            if i > 0 && i % every == 0 {
                let r = rss_kib(pid).unwrap_or(0);
                samples.push((stamp(Instant::now()), r));
                println!(
                    "  t = {:6.1} s  sent {i:>8}  received {:>8}  VmRSS {r} KiB",
                    stamp(Instant::now()),
                    count(&self.counts, 40)
                );
            }
        });
        self.report_status("soak, end of sending");
        std::thread::sleep(Duration::from_secs(3));
        self.report_status("soak, 3 s later");
        let got = count(&self.counts, 40);
        let rss_end = rss_kib(pid)?;
        samples.push((stamp(Instant::now()), rss_end));
        let after: Vec<u64> = samples
            .iter()
            .filter(|(t, _)| *t >= 60.0)
            .map(|(_, r)| *r)
            .collect();
        let (lo, hi) = (
            after.iter().min().copied().unwrap_or(0),
            after.iter().max().copied().unwrap_or(0),
        );
        println!(
            "soak: sent {n}, received through the injector {got}, lost {}",
            n as i64 - got as i64
        );
        println!(
            "soak: VmRSS after the first minute: min {lo} KiB, max {hi} KiB, spread {:.1} % of min ({} samples)",
            (hi - lo) as f64 / lo.max(1) as f64 * 100.0,
            after.len()
        );
        Ok(())
    }

    /// Flood: a delay on imu and scan, 20,000 Imu and `scans` 1 MB scans at
    /// once; VmRSS every second while the queues fill, hold and drain.
    fn flood(&self, la: &LoadArgs, rss_start: u64) -> Result<()> {
        let pid = self.pid;
        for ch in ["imu", "scan"] {
            if la.delay_s <= 0.0 {
                break;
            }
            let r = call_set_fault(
                &self.set,
                FaultSpec {
                    delay_s: la.delay_s,
                    ..FaultSpec::new(ch, FaultSpec::DELAY)
                },
            )?;
            anyhow::ensure!(r.success, "set_fault {ch}: {}", r.message);
        }
        let sampler = RssSampler::start(pid);
        println!(
            "flood: RSS at start {rss_start} KiB; delay {} s on imu and scan",
            la.delay_s
        );
        let tf = Instant::now();
        for i in 0..20_000 {
            self.imu_in.publish(imu(41, i)).ok();
        }
        let imu_s = tf.elapsed().as_secs_f64();
        let ts = Instant::now();
        for i in 0..la.scans {
            self.scan_in.publish(big_scan(42, i, 262_144)).ok();
        }
        let scan_s = ts.elapsed().as_secs_f64();
        println!("flood: 20000 Imu published in {imu_s:.2} s ({:.0} Hz); {} scans of 1 MB in {scan_s:.1} s", 20_000.0 / imu_s, la.scans);
        let rss_full = rss_kib(pid)?;
        std::thread::sleep(Duration::from_secs(5));
        self.report_status("flood, 5 s after");
        println!("flood: VmRSS right after the flood {rss_full} KiB");
        // Held for 60 s, then released.
        std::thread::sleep(Duration::from_secs(70));
        let rss_drained = rss_kib(pid)?;
        let v = sampler.stop()?;
        let peak = v.iter().map(|(_, r)| *r).max().unwrap_or(0);
        for (t, r) in v.iter().step_by(5) {
            println!("  t = {t:5.1} s  VmRSS {r} KiB");
        }
        println!(
            "flood: released through the injector: {} Imu, {} scans",
            count(&self.counts, 41),
            count(&self.counts, 42)
        );
        println!("flood: VmRSS start {rss_start} KiB, peak {peak} KiB (+{} KiB), after drain {rss_drained} KiB", peak - rss_start);
        Ok(())
    }
}

/// VmRSS of a process once a second on a thread of its own.
struct RssSampler {
    stop: Arc<std::sync::atomic::AtomicBool>,
    /// (seconds since start, KiB) per sample.
    thread: std::thread::JoinHandle<Vec<(f64, u64)>>,
}

impl RssSampler {
    fn start(pid: u32) -> Self {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let s2 = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut v = Vec::new();
            let t = Instant::now();
            while !s2.load(std::sync::atomic::Ordering::Relaxed) {
                v.push((t.elapsed().as_secs_f64(), rss_kib(pid).unwrap_or(0)));
                std::thread::sleep(Duration::from_secs(1));
            }
            v
        });
        Self { stop, thread }
    }

    /// Stops sampling; the samples. Errors: the thread panicked.
    fn stop(self) -> Result<Vec<(f64, u64)>> {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        self.thread.join().map_err(|_| anyhow::anyhow!("sampler"))
    }
}

/// Soak and flood modes: memory of the injector under held messages.
fn run_memory_mode(node: &mut RosNode, pid: u32, seconds: f64, la: &LoadArgs) -> Result<()> {
    let rig = MemoryRig::open(node, pid)?;
    let _spinner = node.spawn_spinner()?;
    rig.wait_ready(node)?;
    let rss_start = rss_kib(pid)?;
    if la.mode == "soak" {
        rig.soak(seconds, la.rate_hz, rss_start)?;
    } else {
        rig.flood(la, rss_start)?;
    }
    call_clear_faults(&rig.clear)?;
    std::process::exit(0)
}

/// The command line after `--ros-args` is taken off.
struct Opts {
    pid: u32,
    seconds: f64,
    json: Option<String>,
    la: LoadArgs,
    any: any::AnyArgs,
}

impl Opts {
    /// Errors: an unknown argument, a missing or unparsable value, no
    /// `--injector-pid`.
    fn parse(rest: &[String]) -> Result<Self> {
        let mut pid = None;
        let mut seconds = 10.0_f64;
        let mut json = None;
        let mut la = LoadArgs {
            mode: "latency".into(),
            rate_hz: 10_000.0,
            scans: 200,
            delay_s: 60.0,
        };
        let mut any_args = any::AnyArgs {
            rounds: 3,
            imu_block_s: 2.0,
            scan_block_s: 5.0,
        };
        let mut it = rest.iter();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--injector-pid" => {
                    pid = Some(it.next().context("--injector-pid PID")?.parse::<u32>()?)
                }
                "--seconds" => seconds = it.next().context("--seconds S")?.parse()?,
                "--json" => json = Some(it.next().context("--json FILE")?.clone()),
                "--mode" => la.mode = it.next().context("--mode latency|soak|flood|any")?.clone(),
                "--rounds" => any_args.rounds = it.next().context("--rounds N")?.parse()?,
                "--block-s" => any_args.imu_block_s = it.next().context("--block-s S")?.parse()?,
                "--scan-block-s" => {
                    any_args.scan_block_s = it.next().context("--scan-block-s S")?.parse()?
                }
                "--rate-hz" => la.rate_hz = it.next().context("--rate-hz HZ")?.parse()?,
                "--scans" => la.scans = it.next().context("--scans N")?.parse()?,
                "--delay-s" => la.delay_s = it.next().context("--delay-s S")?.parse()?,
                other => bail!("unknown argument {other}"),
            }
        }
        Ok(Self {
            pid: pid.context("--injector-pid is required")?,
            seconds,
            json,
            la,
            any: any_args,
        })
    }
}

pub(crate) fn main() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), "fault_injector_bench")?;
    let o = Opts::parse(&rest)?;
    let env = RosEnv::from_env()?;
    let mut node = RosNode::new(env, args)?;
    match o.la.mode.as_str() {
        "latency" => {}
        "soak" | "flood" => return run_memory_mode(&mut node, o.pid, o.seconds, &o.la),
        "any" => return any::run(&mut node, &o.any),
        other => bail!("unknown --mode {other} (latency, soak, flood, any)"),
    }
    latency::run(&mut node, o.pid, o.seconds, o.json)
}
