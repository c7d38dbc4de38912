//! A background thread that turns /proc snapshots into a timeline of rates while a run goes on:
//! the share of each core that was user, system, iowait and softirq time, the bytes and packets
//! each interface moved, how busy each disk was, the page cache, and the cores the serving
//! processes used.

use super::proc::Snapshot;
use crate::result::TestKey;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    pub interval_s: f64,
    pub samples: Vec<Sample>,
}

/// One interval's rates; `t` is its end, in seconds since sampling began.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    pub t: f64,
    pub cpu: Vec<CpuShare>,
    pub nic: BTreeMap<String, NicRates>,
    pub disk: BTreeMap<String, DiskRates>,
    pub page_cache_bytes: u64,
    pub dirty_bytes: u64,
    /// Cores used by each serving process (smbd, ganesha.nfsd, …) that ran.
    pub processes: BTreeMap<String, f64>,
    /// The cores a serving process is confined to (taskset, cgroup cpusets), when that is
    /// fewer than all: its ceiling is those cores, however little it is charged itself.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub confined: BTreeMap<String, Vec<usize>>,
}

/// Fractions of one core's time (they add up to 1 with the rest: nice, irq, steal).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuShare {
    pub user: f64,
    pub system: f64,
    pub iowait: f64,
    pub softirq: f64,
    pub idle: f64,
}

impl CpuShare {
    /// The share the core was working: iowait is idle time spent waiting on a disk.
    pub fn busy(&self) -> f64 {
        (1.0 - self.idle - self.iowait).max(0.0)
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct NicRates {
    pub rx_bytes_per_s: f64,
    pub tx_bytes_per_s: f64,
    pub rx_packets_per_s: f64,
    pub tx_packets_per_s: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct DiskRates {
    /// Share of the interval with I/O in flight.
    pub busy: f64,
    pub read_bytes_per_s: f64,
    pub write_bytes_per_s: f64,
}

/// The rates between snapshots `a` and `b`, `seconds` apart; `hz` is the kernel's clock tick.
pub fn rates(a: &Snapshot, b: &Snapshot, seconds: f64, hz: f64, t: f64) -> Sample {
    let per_s = |later: u64, earlier: u64| later.saturating_sub(earlier) as f64 / seconds;
    let cpu = a
        .cpus
        .iter()
        .zip(&b.cpus)
        .map(|(x, y)| {
            let total = y.total().saturating_sub(x.total()).max(1) as f64;
            let share = |later: u64, earlier: u64| later.saturating_sub(earlier) as f64 / total;
            CpuShare {
                user: share(y.user, x.user),
                system: share(y.system, x.system),
                iowait: share(y.iowait, x.iowait),
                softirq: share(y.softirq, x.softirq),
                idle: share(y.idle, x.idle),
            }
        })
        .collect();
    let nic = b
        .nics
        .iter()
        .filter_map(|(name, y)| {
            let x = a.nics.get(name)?;
            Some((
                name.clone(),
                NicRates {
                    rx_bytes_per_s: per_s(y.rx_bytes, x.rx_bytes),
                    tx_bytes_per_s: per_s(y.tx_bytes, x.tx_bytes),
                    rx_packets_per_s: per_s(y.rx_packets, x.rx_packets),
                    tx_packets_per_s: per_s(y.tx_packets, x.tx_packets),
                },
            ))
        })
        .collect();
    let disk = b
        .disks
        .iter()
        .filter_map(|(name, y)| {
            let x = a.disks.get(name)?;
            Some((
                name.clone(),
                DiskRates {
                    busy: (y.busy_ms.saturating_sub(x.busy_ms) as f64 / 1000.0 / seconds).min(1.0),
                    read_bytes_per_s: per_s(y.sectors_read, x.sectors_read) * 512.0,
                    write_bytes_per_s: per_s(y.sectors_written, x.sectors_written) * 512.0,
                },
            ))
        })
        .collect();
    let mut processes: BTreeMap<String, f64> = BTreeMap::new();
    let mut allowed: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut ticks: BTreeMap<&str, i64> = BTreeMap::new();
    for (pid, process) in &b.processes {
        // a process that started within the interval counts from zero
        let earlier = a.processes.get(pid).map_or(0, |p| p.ticks);
        *ticks.entry(&process.name).or_default() += process.ticks as i64 - earlier as i64;
    }
    // one that ended was counted up to the last snapshot, and its parent's account now holds
    // its whole life: take off what was counted already
    for (pid, process) in &a.processes {
        if !b.processes.contains_key(pid) {
            *ticks.entry(&process.name).or_default() -= process.ticks as i64;
        }
    }
    for (name, used) in ticks {
        if used > 0 {
            processes.insert(name.to_string(), used as f64 / hz / seconds);
        }
    }
    for process in b.processes.values() {
        if processes.contains_key(&process.name) {
            let allowed = allowed.entry(process.name.clone()).or_default();
            if process.cores.is_empty() {
                allowed.extend(0..b.cpus.len()); // unknown: anywhere
            } else {
                allowed.extend(&process.cores);
            }
        }
    }
    let confined = allowed
        .into_iter()
        .filter(|(_, cores)| !cores.is_empty() && cores.len() < b.cpus.len())
        .map(|(name, cores)| (name, cores.into_iter().collect()))
        .collect();
    Sample {
        t,
        cpu,
        nic,
        disk,
        page_cache_bytes: b.page_cache_bytes,
        dirty_bytes: b.dirty_bytes,
        processes,
        confined,
    }
}

/// Turns snapshots taken one after another into samples of what happened between them.
pub struct Rater {
    hz: f64,
    began: Instant,
    last: Snapshot,
    last_at: Instant,
}

impl Rater {
    /// Starts from a snapshot taken now; sample times count from now.
    pub fn new() -> Rater {
        Rater::since(Instant::now())
    }

    /// Starts from a snapshot taken now; sample times count from `origin`.
    pub fn since(origin: Instant) -> Rater {
        // SAFETY: sysconf has no preconditions.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        let now = Instant::now();
        Rater {
            hz,
            began: origin,
            last: Snapshot::take(),
            last_at: now,
        }
    }

    /// A snapshot now, and the sample since the last one (none if no time has passed).
    pub fn sample_now(&mut self) -> Option<Sample> {
        let (now, at) = (Snapshot::take(), Instant::now());
        let seconds = (at - self.last_at).as_secs_f64();
        let t = (at - self.began).as_secs_f64();
        let sample = (seconds > 0.0).then(|| rates(&self.last, &now, seconds, self.hz, t));
        (self.last, self.last_at) = (now, at);
        sample
    }

    /// When the last snapshot was taken.
    pub fn last_at(&self) -> Instant {
        self.last_at
    }
}

impl Default for Rater {
    fn default() -> Self {
        Rater::new()
    }
}

/// Samples in the background until [`finish`](Sampler::finish).
pub struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Timeline>,
}

impl Sampler {
    /// Samples every `interval`; sample times count from `origin`, which the run's other
    /// timelines and run windows share.
    pub fn start(interval: Duration, origin: Instant) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut rater = Rater::since(origin);
            let mut timeline = Timeline {
                interval_s: interval.as_secs_f64(),
                samples: Vec::new(),
            };
            loop {
                // short naps, so finishing never waits a whole interval
                let due = rater.last_at() + interval;
                while Instant::now() < due && !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(20).min(interval));
                }
                timeline.samples.extend(rater.sample_now());
                if flag.load(Ordering::Relaxed) {
                    return timeline;
                }
            }
        });
        Sampler { stop, thread }
    }

    /// Takes a last sample and returns the timeline.
    pub fn finish(self) -> Timeline {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap_or_default()
    }
}

/// Where a run lies on the timelines: its timed part, in seconds since their origin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunWindow {
    #[serde(flatten)]
    pub key: TestKey,
    pub n: usize,
    pub warmup: bool,
    pub from_s: f64,
    pub to_s: f64,
}

impl RunWindow {
    /// When the counted runs of the test `key` went on.
    pub fn counted(windows: &[RunWindow], key: &TestKey) -> Vec<(f64, f64)> {
        windows
            .iter()
            .filter(|w| &w.key == key && !w.warmup)
            .map(|w| (w.from_s, w.to_s))
            .collect()
    }
}

impl Timeline {
    /// The samples taken within `windows`: those at least half inside one, else (runs shorter
    /// than a sample) those that overlap one at all; every sample when no window is given.
    pub fn within(&self, windows: &[(f64, f64)]) -> Vec<&Sample> {
        if windows.is_empty() {
            return self.samples.iter().collect();
        }
        let inside = |sample: &Sample| {
            let from = sample.t - self.interval_s;
            windows
                .iter()
                .map(|&(a, b)| (sample.t.min(b) - from.max(a)).max(0.0))
                .fold(0.0, f64::max)
        };
        let mostly: Vec<&Sample> = self
            .samples
            .iter()
            .filter(|s| inside(s) >= self.interval_s / 2.0)
            .collect();
        if !mostly.is_empty() {
            return mostly;
        }
        self.samples.iter().filter(|s| inside(s) > 0.0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::proc::{CpuTicks, DiskCounters, NicCounters, Serving};

    #[test]
    fn counters_two_seconds_apart_become_rates_and_shares() {
        let mut a = Snapshot {
            cpus: vec![CpuTicks {
                user: 100,
                system: 100,
                idle: 100,
                ..CpuTicks::default()
            }],
            ..Snapshot::default()
        };
        a.nics.insert("eth0".into(), NicCounters::default());
        a.disks.insert("vda".into(), DiskCounters::default());
        let smbd = |ticks, cores: &[usize]| Serving {
            name: "smbd".into(),
            ticks,
            cores: cores.to_vec(),
        };
        a.processes.insert(7, smbd(50, &[0]));
        a.processes.insert(8, smbd(500, &[0])); // ends within the interval, 520 ticks in all
        let mut b = a.clone();
        b.cpus[0].user += 100; // of 200 ticks in all
        b.cpus[0].softirq += 50;
        b.cpus[0].idle += 50;
        b.nics.insert(
            "eth0".into(),
            NicCounters {
                rx_bytes: 2_000_000,
                tx_bytes: 4_000,
                rx_packets: 1_000,
                tx_packets: 10,
            },
        );
        b.disks.insert(
            "vda".into(),
            DiskCounters {
                sectors_read: 0,
                sectors_written: 4096,
                busy_ms: 500,
            },
        );
        b.processes.remove(&8);
        // 100 ticks of its own at 100 Hz over 2 s, and its child's 520 reaped
        b.processes.insert(7, smbd(150 + 520, &[0]));
        b.processes.insert(9, smbd(100, &[0])); // a new connection's smbd, from zero
        let s = rates(&a, &b, 2.0, 100.0, 7.0);
        assert_eq!(s.t, 7.0);
        assert_eq!(s.cpu[0].user, 0.5);
        assert_eq!(s.cpu[0].softirq, 0.25);
        assert_eq!(s.cpu[0].idle, 0.25);
        assert_eq!(s.nic["eth0"].rx_bytes_per_s, 1_000_000.0);
        assert_eq!(s.nic["eth0"].tx_packets_per_s, 5.0);
        assert_eq!(s.disk["vda"].busy, 0.25);
        assert_eq!(s.disk["vda"].write_bytes_per_s, 4096.0 * 512.0 / 2.0);
        assert_eq!(s.processes["smbd"], 1.1, "100 + 20 + 100 ticks over 2 s");
        assert!(s.confined.is_empty(), "core 0 of one is all cores");
    }

    #[test]
    fn serving_processes_kept_off_some_cores_are_confined_to_the_rest() {
        let serving = |name: &str, ticks, cores: &[usize]| Serving {
            name: name.into(),
            ticks,
            cores: cores.to_vec(),
        };
        let a = Snapshot {
            cpus: vec![CpuTicks::default(); 4],
            ..Snapshot::default()
        };
        let mut b = a.clone();
        b.processes.insert(1, serving("smbd", 10, &[0]));
        b.processes.insert(2, serving("smbd", 10, &[2]));
        b.processes.insert(3, serving("vsftpd", 10, &[0, 1, 2, 3]));
        b.processes.insert(4, serving("nfsd", 10, &[]));
        b.processes.insert(5, serving("ganesha.nfsd", 0, &[1])); // idle: not judged
        let s = rates(&a, &b, 1.0, 100.0, 1.0);
        assert_eq!(s.confined.len(), 1, "{:?}", s.confined);
        assert_eq!(s.confined["smbd"], [0, 2]);
    }

    #[test]
    fn a_runs_samples_are_those_mostly_inside_its_window() {
        let timeline = Timeline {
            interval_s: 0.5,
            samples: (1..=10)
                .map(|i| Sample {
                    t: i as f64 * 0.5,
                    ..Sample::default()
                })
                .collect(),
        };
        let times = |windows: &[(f64, f64)]| -> Vec<f64> {
            timeline.within(windows).iter().map(|s| s.t).collect()
        };
        // samples cover (0, 0.5], (0.5, 1.0], …; a run from 1.2 s to 2.4 s
        assert_eq!(times(&[(1.2, 2.4)]), [1.5, 2.0, 2.5]);
        assert_eq!(
            times(&[(1.2, 1.4), (4.1, 4.6)]),
            [4.5],
            "4.5 is 80 % inside"
        );
        assert_eq!(
            times(&[(1.2, 1.3)]),
            [1.5],
            "a short run keeps its one sample"
        );
        assert_eq!(times(&[]).len(), 10);
        assert!(times(&[(9.0, 9.5)]).is_empty(), "after the timeline");
    }

    #[test]
    fn a_sampler_records_until_it_is_finished() {
        let sampler = Sampler::start(Duration::from_millis(30), Instant::now());
        std::thread::sleep(Duration::from_millis(100));
        let timeline = sampler.finish();
        assert!(!timeline.samples.is_empty());
        assert!(
            !timeline.samples[0].cpu.is_empty(),
            "this machine has cores"
        );
        let ts: Vec<f64> = timeline.samples.iter().map(|s| s.t).collect();
        assert!(ts.windows(2).all(|w| w[0] < w[1]), "in time order: {ts:?}");
    }
}
