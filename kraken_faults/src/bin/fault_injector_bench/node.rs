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
use breakbench_ros::ros2_client::qos::History;
use breakbench_ros::ros2_client::Subscription;
use breakbench_ros::{qos, Msg, RosArgs, RosEnv, RosNode, SetFaultSrv, TriggerSrv};
use futures::StreamExt;
use kraken_interfaces::ros::{Header, Imu, LaserScan, Time, TriggerRequest};
use kraken_interfaces::{FaultSpec, SetFaultRequest};

mod any;

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
                if let Ok((m, _)) = r {
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
                if let Ok((m, _)) = r {
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

/// Soak and flood modes: memory of the injector under held messages.
fn run_memory_mode(node: &mut RosNode, pid: u32, seconds: f64, la: &LoadArgs) -> Result<()> {
    let gen_qos = qos::publish().history(History::KeepLast { depth: 20_000 });
    let imu_in = node.publisher::<Imu>("/imu/data_raw", gen_qos.clone())?;
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
    // The injector's own counters (in, out, held, dropped by the caps).
    let status: Arc<Mutex<Option<kraken_interfaces::FaultStatus>>> = Arc::default();
    {
        let sub = node.subscription::<kraken_interfaces::FaultStatus>(
            "/fault_injector/status",
            qos::subscribe(10),
        )?;
        let st = status.clone();
        std::thread::spawn(move || {
            futures::executor::block_on(async {
                let s = sub.async_stream();
                futures::pin_mut!(s);
                while let Some(r) = s.next().await {
                    if let Ok((m, _)) = r {
                        *st.lock().expect("poisoned") = Some(m);
                    }
                }
            })
        });
    }
    let report_status = |when: &str| {
        if let Some(st) = status.lock().expect("poisoned").as_ref() {
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
    };
    let set = node.client::<SetFaultSrv>("/fault_injector/set_fault")?;
    let clear = node.client::<TriggerSrv>("/fault_injector/clear_faults")?;
    let _spinner = node.spawn_spinner()?;
    let t0 = Instant::now();
    let mut warm = 0;
    while count(&counts, 0) == 0 || warm < 100 {
        imu_in.publish(imu(0, warm)).ok();
        warm += 1;
        std::thread::sleep(Duration::from_millis(20));
        if t0.elapsed() > Duration::from_secs(30) {
            bail!("no messages through the injector after 30 s");
        }
    }
    while !(node.service_ready(&set) && node.service_ready(&clear)) {
        if t0.elapsed() > Duration::from_secs(60) {
            bail!("services of the injector not matched");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let call = |spec: FaultSpec| {
        futures::executor::block_on(set.async_call_service(Msg(SetFaultRequest { fault: spec })))
            .map(|Msg(r)| r)
            .map_err(|e| anyhow::anyhow!("set_fault: {e}"))
    };
    let rss_start = rss_kib(pid)?;
    let started = Instant::now();
    let stamp = |t: Instant| t.duration_since(started).as_secs_f64();
    if la.mode == "soak" {
        let r = call(FaultSpec {
            delay_s: 1.0,
            ..FaultSpec::new("imu", FaultSpec::DELAY)
        })?;
        anyhow::ensure!(r.success, "set_fault: {}", r.message);
        let n = (la.rate_hz * seconds) as u64;
        let every = (la.rate_hz * 10.0) as u64;
        let mut samples = vec![(0.0, rss_start)];
        println!(
            "soak: Imu {} Hz for {seconds} s through delay 1 s; RSS at start {rss_start} KiB",
            la.rate_hz
        );
        paced(la.rate_hz, n, |i| {
            imu_in.publish(imu(40, i)).ok();
            if i > 0 && i % every == 0 {
                let r = rss_kib(pid).unwrap_or(0);
                samples.push((stamp(Instant::now()), r));
                println!(
                    "  t = {:6.1} s  sent {i:>8}  received {:>8}  VmRSS {r} KiB",
                    stamp(Instant::now()),
                    count(&counts, 40)
                );
            }
        });
        report_status("soak, end of sending");
        std::thread::sleep(Duration::from_secs(3));
        report_status("soak, 3 s later");
        let got = count(&counts, 40);
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
    } else {
        for ch in ["imu", "scan"] {
            if la.delay_s <= 0.0 {
                break;
            }
            let r = call(FaultSpec {
                delay_s: la.delay_s,
                ..FaultSpec::new(ch, FaultSpec::DELAY)
            })?;
            anyhow::ensure!(r.success, "set_fault {ch}: {}", r.message);
        }
        let sampler = {
            let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
            let s2 = stop.clone();
            let h = std::thread::spawn(move || {
                let mut v = Vec::new();
                let t = Instant::now();
                while !s2.load(std::sync::atomic::Ordering::Relaxed) {
                    v.push((t.elapsed().as_secs_f64(), rss_kib(pid).unwrap_or(0)));
                    std::thread::sleep(Duration::from_secs(1));
                }
                v
            });
            (stop, h)
        };
        println!(
            "flood: RSS at start {rss_start} KiB; delay {} s on imu and scan",
            la.delay_s
        );
        let tf = Instant::now();
        for i in 0..20_000 {
            imu_in.publish(imu(41, i)).ok();
        }
        let imu_s = tf.elapsed().as_secs_f64();
        let ts = Instant::now();
        for i in 0..la.scans {
            scan_in.publish(big_scan(42, i, 262_144)).ok();
        }
        let scan_s = ts.elapsed().as_secs_f64();
        println!("flood: 20000 Imu published in {imu_s:.2} s ({:.0} Hz); {} scans of 1 MB in {scan_s:.1} s", 20_000.0 / imu_s, la.scans);
        let rss_full = rss_kib(pid)?;
        std::thread::sleep(Duration::from_secs(5));
        report_status("flood, 5 s after");
        println!("flood: VmRSS right after the flood {rss_full} KiB");
        // Held for 60 s, then released.
        std::thread::sleep(Duration::from_secs(70));
        let rss_drained = rss_kib(pid)?;
        sampler.0.store(true, std::sync::atomic::Ordering::Relaxed);
        let v = sampler.1.join().map_err(|_| anyhow::anyhow!("sampler"))?;
        let peak = v.iter().map(|(_, r)| *r).max().unwrap_or(0);
        for (t, r) in v.iter().step_by(5) {
            println!("  t = {t:5.1} s  VmRSS {r} KiB");
        }
        println!(
            "flood: released through the injector: {} Imu, {} scans",
            count(&counts, 41),
            count(&counts, 42)
        );
        println!("flood: VmRSS start {rss_start} KiB, peak {peak} KiB (+{} KiB), after drain {rss_drained} KiB", peak - rss_start);
    }
    futures::executor::block_on(clear.async_call_service(Msg(TriggerRequest::default())))
        .map_err(|e| anyhow::anyhow!("clear_faults: {e}"))?;
    std::process::exit(0)
}

pub(crate) fn main() -> Result<()> {
    let (args, rest) = RosArgs::parse(std::env::args().skip(1), "fault_injector_bench")?;
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
    let pid = pid.context("--injector-pid is required")?;
    let env = RosEnv::from_env()?;
    let mut node = RosNode::new(env, args)?;
    match la.mode.as_str() {
        "latency" => {}
        "soak" | "flood" => return run_memory_mode(&mut node, pid, seconds, &la),
        "any" => return any::run(&mut node, &any_args),
        other => bail!("unknown --mode {other} (latency, soak, flood, any)"),
    }
    let gen_qos = qos::publish().history(History::KeepLast { depth: 2000 });
    let rx_qos = qos::subscribe(2000);
    let imu_in = node.publisher::<Imu>("/imu/data_raw", gen_qos.clone())?;
    let imu_direct = node.publisher::<Imu>("/bench/imu_direct", gen_qos.clone())?;
    let scan_in = node.publisher::<LaserScan>("/scan_raw", gen_qos.clone())?;
    let scan_direct = node.publisher::<LaserScan>("/bench/scan_direct", gen_qos.clone())?;
    let inj: Samples = Arc::default();
    let direct: Samples = Arc::default();
    spawn_receiver(
        node.subscription::<Imu>("/imu/data", rx_qos.clone())?,
        inj.clone(),
        |m: &Imu| &m.header,
    );
    spawn_receiver(
        node.subscription::<Imu>("/bench/imu_direct", rx_qos.clone())?,
        direct.clone(),
        |m: &Imu| &m.header,
    );
    spawn_receiver(
        node.subscription::<LaserScan>("/scan", rx_qos.clone())?,
        inj.clone(),
        |m: &LaserScan| &m.header,
    );
    spawn_receiver(
        node.subscription::<LaserScan>("/bench/scan_direct", rx_qos.clone())?,
        direct.clone(),
        |m: &LaserScan| &m.header,
    );
    let set = node.client::<SetFaultSrv>("/fault_injector/set_fault")?;
    let clear = node.client::<TriggerSrv>("/fault_injector/clear_faults")?;
    let _spinner = node.spawn_spinner()?;

    // Discovery: wait until both paths deliver.
    let t0 = Instant::now();
    let mut warm = 0;
    loop {
        imu_in.publish(imu(0, warm)).ok();
        imu_direct.publish(imu(0, warm)).ok();
        scan_in.publish(scan(0, warm)).ok();
        scan_direct.publish(scan(0, warm)).ok();
        warm += 1;
        std::thread::sleep(Duration::from_millis(20));
        let ok = |s: &Samples| s.lock().expect("poisoned").range((0, 0)..(1, 0)).count() > 0;
        if ok(&inj) && ok(&direct) && warm > 100 {
            break;
        }
        if t0.elapsed() > Duration::from_secs(30) {
            bail!("no messages through the injector after 30 s");
        }
    }
    // Poll the match tables (see RosNode::service_ready).
    let t_svc = Instant::now();
    while !(node.service_ready(&set) && node.service_ready(&clear)) {
        if t_svc.elapsed() > Duration::from_secs(30) {
            bail!("services of the injector not matched after 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let settle = || std::thread::sleep(Duration::from_millis(500));
    let mut rows = Vec::new();

    // (1) Imu 1 kHz healthy.
    let n = (1000.0 * seconds) as u64;
    paced(1000.0, n, |i| {
        let m = imu(1, i);
        imu_in.publish(m.clone()).ok();
        imu_direct.publish(m).ok();
    });
    settle();
    rows.push(row("Imu 1 kHz, healthy", n, &inj, &direct, 1));

    // (2) LaserScan 1080 beams at 10 Hz healthy.
    let n = (10.0 * seconds * 2.0) as u64;
    paced(10.0, n, |i| {
        let m = scan(2, i);
        scan_in.publish(m.clone()).ok();
        scan_direct.publish(m).ok();
    });
    settle();
    rows.push(row(
        "LaserScan 1080 beams 10 Hz, healthy",
        n,
        &inj,
        &direct,
        2,
    ));

    // (3) Imu rate sweep (3 s per rate).
    let mut sweep = Vec::new();
    for (k, rate) in [2000.0, 5000.0, 10000.0, 15000.0, 20000.0]
        .into_iter()
        .enumerate()
    {
        let phase = 10 + k as u32;
        let n = (rate * 3.0) as u64;
        paced(rate, n, |i| {
            let m = imu(phase, i);
            imu_in.publish(m.clone()).ok();
            imu_direct.publish(m).ok();
        });
        settle();
        let r = row(
            &format!("Imu {} Hz, healthy", rate),
            n,
            &inj,
            &direct,
            phase,
        );
        sweep.push((rate, r.sent, r.recv_inj, r.recv_direct));
        rows.push(r);
    }

    // (4) RSS under a 0.8 s delay fault on imu and scan.
    let rss_before = rss_kib(pid)?;
    let call = |spec: FaultSpec| {
        futures::executor::block_on(set.async_call_service(Msg(SetFaultRequest { fault: spec })))
            .map(|Msg(r)| r)
            .map_err(|e| anyhow::anyhow!("set_fault: {e}"))
    };
    for ch in ["imu", "scan"] {
        let r = call(FaultSpec {
            delay_s: 0.8,
            ..FaultSpec::new(ch, FaultSpec::DELAY)
        })?;
        anyhow::ensure!(r.success, "set_fault delay on {ch}: {}", r.message);
    }
    let mut rss_peak = rss_before;
    let n = (1000.0 * seconds) as u64;
    paced(1000.0, n, |i| {
        let m = imu(30, i);
        imu_in.publish(m.clone()).ok();
        imu_direct.publish(m).ok();
        if i % 100 == 0 {
            let s = scan(31, i / 100);
            scan_in.publish(s.clone()).ok();
            scan_direct.publish(s).ok();
            rss_peak = rss_peak.max(rss_kib(pid).unwrap_or(0));
        }
    });
    std::thread::sleep(Duration::from_millis(1500));
    rows.push(row("Imu 1 kHz, delay 0.8 s", n, &inj, &direct, 30));
    rows.push(row(
        "LaserScan 10 Hz, delay 0.8 s",
        n / 100,
        &inj,
        &direct,
        31,
    ));
    futures::executor::block_on(clear.async_call_service(Msg(TriggerRequest::default())))
        .map_err(|e| anyhow::anyhow!("clear_faults: {e}"))?;

    println!("| path | sent | received via injector | received direct | injector p50 / p99 (µs) | direct p50 / p99 (µs) | added p50 / p99 (µs) |");
    println!("|---|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {:.0} / {:.0} | {:.0} / {:.0} | {:.0} / {:.0} |",
            r.name,
            r.sent,
            r.recv_inj,
            r.recv_direct,
            r.inj_p50,
            r.inj_p99,
            r.dir_p50,
            r.dir_p99,
            r.inj_p50 - r.dir_p50,
            r.inj_p99 - r.dir_p99
        );
    }
    let max_lossless = sweep
        .iter()
        .filter(|(_, sent, inj, _)| *inj as u64 == *sent)
        .map(|(rate, ..)| *rate)
        .fold(f64::NAN, f64::max);
    println!("highest Imu rate relayed without loss (3 s per step, 2k/5k/10k/15k/20k Hz): {max_lossless} Hz");
    for (rate, sent, inj, direct) in &sweep {
        println!("  {rate} Hz: sent {sent}, via injector {inj}, direct {direct}");
    }
    println!("injector RSS: {rss_before} KiB before the delay fault, peak {rss_peak} KiB during 0.8 s delay on imu 1 kHz + scan 10 Hz");
    if let Some(path) = json {
        let mut out = String::from("{\n  \"rows\": [\n");
        for (i, r) in rows.iter().enumerate() {
            out += &format!(
                "    {{\"name\": \"{}\", \"sent\": {}, \"received_injector\": {}, \"received_direct\": {}, \"injector_p50_us\": {:.1}, \"injector_p99_us\": {:.1}, \"direct_p50_us\": {:.1}, \"direct_p99_us\": {:.1}}}{}\n",
                r.name, r.sent, r.recv_inj, r.recv_direct, r.inj_p50, r.inj_p99, r.dir_p50, r.dir_p99,
                if i + 1 < rows.len() { "," } else { "" }
            );
        }
        out += &format!(
            "  ],\n  \"max_lossless_imu_hz\": {},\n  \"rss_before_kib\": {rss_before},\n  \"rss_peak_delay_kib\": {rss_peak}\n}}\n",
            if max_lossless.is_nan() { "null".to_string() } else { max_lossless.to_string() }
        );
        std::fs::write(&path, out).with_context(|| path.clone())?;
    }
    std::process::exit(0)
}
