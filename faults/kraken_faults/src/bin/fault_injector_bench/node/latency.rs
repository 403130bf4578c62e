//! `--mode latency` (the default): each message through the injector and on
//! a direct topic in the same instant; phases (1) Imu 1 kHz healthy, (2)
//! LaserScan 1080 beams at 10 Hz healthy, (3) an Imu rate sweep, (4) the
//! injector's RSS under a 0.8 s delay on imu and scan. Prints a table
//! (latencies in µs) and optionally writes it as JSON.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use breakbench_ros::Publisher;
use breakbench_ros::{qos, RosClient, RosNode, SetFaultSrv, TriggerSrv};
use kraken_interfaces::ros::{Imu, LaserScan};
use kraken_interfaces::FaultSpec;

use super::{
    call_clear_faults, call_set_fault, imu, paced, row, rss_kib, scan, spawn_receiver, Row, Samples,
};

/// The generator's publishers (injector input and direct topic per type),
/// the latency samples per path, the injector's services.
struct Rig {
    imu_in: Publisher<Imu>,
    imu_direct: Publisher<Imu>,
    scan_in: Publisher<LaserScan>,
    scan_direct: Publisher<LaserScan>,
    inj: Samples,
    direct: Samples,
    set: RosClient<SetFaultSrv>,
    clear: RosClient<TriggerSrv>,
}

/// One rate of the sweep: (rate Hz, sent, received via injector, direct).
type SweepStep = (f64, u64, usize, usize);

impl Rig {
    fn open(node: &mut RosNode) -> Result<Self> {
        let gen_qos = qos::publish().depth(2000);
        let rx_qos = qos::subscribe(2000);
        let imu_in = node.publisher::<Imu>("/imu/data_raw", gen_qos)?;
        let imu_direct = node.publisher::<Imu>("/bench/imu_direct", gen_qos)?;
        let scan_in = node.publisher::<LaserScan>("/scan_raw", gen_qos)?;
        let scan_direct = node.publisher::<LaserScan>("/bench/scan_direct", gen_qos)?;
        let inj: Samples = Arc::default();
        let direct: Samples = Arc::default();
        spawn_receiver(
            node.subscription::<Imu>("/imu/data", rx_qos)?,
            inj.clone(),
            |m: &Imu| &m.header,
        );
        spawn_receiver(
            node.subscription::<Imu>("/bench/imu_direct", rx_qos)?,
            direct.clone(),
            |m: &Imu| &m.header,
        );
        spawn_receiver(
            node.subscription::<LaserScan>("/scan", rx_qos)?,
            inj.clone(),
            |m: &LaserScan| &m.header,
        );
        spawn_receiver(
            node.subscription::<LaserScan>("/bench/scan_direct", rx_qos)?,
            direct.clone(),
            |m: &LaserScan| &m.header,
        );
        Ok(Self {
            imu_in,
            imu_direct,
            scan_in,
            scan_direct,
            inj,
            direct,
            set: node.client::<SetFaultSrv>("/fault_injector/set_fault")?,
            clear: node.client::<TriggerSrv>("/fault_injector/clear_faults")?,
        })
    }

    /// Discovery: waits until both paths deliver (and 100 messages went),
    /// then for the services. Errors: after 30 s each.
    fn wait_ready(&self, node: &RosNode) -> Result<()> {
        let t0 = Instant::now();
        let mut warm = 0;
        loop {
            self.imu_in.publish(imu(0, warm)).ok();
            self.imu_direct.publish(imu(0, warm)).ok();
            self.scan_in.publish(scan(0, warm)).ok();
            self.scan_direct.publish(scan(0, warm)).ok();
            warm += 1;
            std::thread::sleep(Duration::from_millis(20));
            let ok = |s: &Samples| s.lock().expect("poisoned").range((0, 0)..(1, 0)).count() > 0;
            if ok(&self.inj) && ok(&self.direct) && warm > 100 {
                break;
            }
            if t0.elapsed() > Duration::from_secs(30) {
                bail!("no messages through the injector after 30 s");
            }
        }
        // Poll the match tables (see RosNode::service_ready).
        let t_svc = Instant::now();
        while !(node.service_ready(&self.set) && node.service_ready(&self.clear)) {
            if t_svc.elapsed() > Duration::from_secs(30) {
                bail!("services of the injector not matched after 30 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    fn row(&self, name: &str, sent: u64, phase: u32) -> Row {
        row(name, sent, &self.inj, &self.direct, phase)
    }

    /// `n` Imu of `phase` at `rate_hz`, on both paths.
    fn imu_phase(&self, phase: u32, rate_hz: f64, n: u64) {
        paced(rate_hz, n, |i| {
            let m = imu(phase, i);
            self.imu_in.publish(m.clone()).ok();
            self.imu_direct.publish(m).ok();
        });
    }

    /// Phases (1) and (2): Imu 1 kHz and LaserScan 10 Hz, healthy.
    fn healthy(&self, seconds: f64, rows: &mut Vec<Row>) {
        let settle = || std::thread::sleep(Duration::from_millis(500));
        // (1) Imu 1 kHz healthy.
        let n = (1000.0 * seconds) as u64;
        self.imu_phase(1, 1000.0, n);
        settle();
        rows.push(self.row("Imu 1 kHz, healthy", n, 1));

        // (2) LaserScan 1080 beams at 10 Hz healthy.
        let n = (10.0 * seconds * 2.0) as u64;
        paced(10.0, n, |i| {
            let m = scan(2, i);
            self.scan_in.publish(m.clone()).ok();
            self.scan_direct.publish(m).ok();
        });
        settle();
        rows.push(self.row("LaserScan 1080 beams 10 Hz, healthy", n, 2));
    }

    /// (3) Imu rate sweep (3 s per rate).
    fn sweep(&self, rows: &mut Vec<Row>) -> Vec<SweepStep> {
        let mut sweep = Vec::new();
        for (k, rate) in [2000.0, 5000.0, 10000.0, 15000.0, 20000.0]
            .into_iter()
            .enumerate()
        {
            let phase = 10 + k as u32;
            let n = (rate * 3.0) as u64;
            self.imu_phase(phase, rate, n);
            std::thread::sleep(Duration::from_millis(500));
            let r = self.row(&format!("Imu {} Hz, healthy", rate), n, phase);
            sweep.push((rate, r.sent, r.recv_inj, r.recv_direct));
            rows.push(r);
        }
        sweep
    }

    /// (4) RSS under a 0.8 s delay fault on imu and scan: (before, peak)
    /// KiB. Errors: a call failed or was refused, /proc unreadable.
    fn under_delay(&self, pid: u32, seconds: f64, rows: &mut Vec<Row>) -> Result<(u64, u64)> {
        let rss_before = rss_kib(pid)?;
        for ch in ["imu", "scan"] {
            let r = call_set_fault(
                &self.set,
                FaultSpec {
                    delay_s: 0.8,
                    ..FaultSpec::new(ch, FaultSpec::DELAY)
                },
            )?;
            anyhow::ensure!(r.success, "set_fault delay on {ch}: {}", r.message);
        }
        let mut rss_peak = rss_before;
        let n = (1000.0 * seconds) as u64;
        paced(1000.0, n, |i| {
            let m = imu(30, i);
            self.imu_in.publish(m.clone()).ok();
            self.imu_direct.publish(m).ok();
            if i % 100 == 0 {
                let s = scan(31, i / 100);
                self.scan_in.publish(s.clone()).ok();
                self.scan_direct.publish(s).ok();
                rss_peak = rss_peak.max(rss_kib(pid).unwrap_or(0));
            }
        });
        std::thread::sleep(Duration::from_millis(1500));
        rows.push(self.row("Imu 1 kHz, delay 0.8 s", n, 30));
        rows.push(self.row("LaserScan 10 Hz, delay 0.8 s", n / 100, 31));
        call_clear_faults(&self.clear)?;
        Ok((rss_before, rss_peak))
    }
}

/// The highest sweep rate relayed without loss (NaN: none).
fn max_lossless(sweep: &[SweepStep]) -> f64 {
    sweep
        .iter()
        .filter(|(_, sent, inj, _)| *inj as u64 == *sent)
        .map(|(rate, ..)| *rate)
        .fold(f64::NAN, f64::max)
}

/// Prints the table, the sweep and the RSS.
fn print_report(rows: &[Row], sweep: &[SweepStep], rss: (u64, u64)) {
    let (rss_before, rss_peak) = rss;
    println!("| path | sent | received via injector | received direct | injector p50 / p99 (µs) | direct p50 / p99 (µs) | added p50 / p99 (µs) |");
    println!("|---|---|---|---|---|---|---|");
    for r in rows {
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
    let max_lossless = max_lossless(sweep);
    println!("highest Imu rate relayed without loss (3 s per step, 2k/5k/10k/15k/20k Hz): {max_lossless} Hz");
    for (rate, sent, inj, direct) in sweep {
        println!("  {rate} Hz: sent {sent}, via injector {inj}, direct {direct}");
    }
    println!("injector RSS: {rss_before} KiB before the delay fault, peak {rss_peak} KiB during 0.8 s delay on imu 1 kHz + scan 10 Hz");
}

/// Writes the rows, the highest lossless rate and the RSS to `path` as
/// JSON. Errors: the file not written.
fn write_json(path: &str, rows: &[Row], sweep: &[SweepStep], rss: (u64, u64)) -> Result<()> {
    let (rss_before, rss_peak) = rss;
    let max_lossless = max_lossless(sweep);
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
    std::fs::write(path, out).with_context(|| path.to_string())
}

/// The latency mode against the injector of process `pid`, `seconds` per
/// healthy phase; exits the process with 0 when done.
pub(super) fn run(node: &mut RosNode, pid: u32, seconds: f64, json: Option<String>) -> Result<()> {
    let rig = Rig::open(node)?;
    let _spinner = node.spawn_spinner()?;
    rig.wait_ready(node)?;
    let mut rows = Vec::new();
    rig.healthy(seconds, &mut rows);
    let sweep = rig.sweep(&mut rows);
    let rss = rig.under_delay(pid, seconds, &mut rows)?;
    print_report(&rows, &sweep, rss);
    if let Some(path) = json {
        write_json(&path, &rows, &sweep, rss)?;
    }
    std::process::exit(0)
}
