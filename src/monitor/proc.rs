//! Snapshots of the kernel's counters under /proc: CPU time per core, bytes and packets per
//! network interface, disk busy time and sectors, the page cache, and the CPU time of the
//! file-serving processes. A snapshot holds raw counters; two of them make a rate.

use std::collections::BTreeMap;
use std::fs;

/// Processes whose CPU a file-server run is about (matched by their command name).
pub const SERVING: [&str; 5] = ["smbd", "ganesha.nfsd", "vsftpd", "nfsd", "sharebench"];

/// CPU time of one core, in clock ticks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTicks {
    pub user: u64,
    pub system: u64,
    pub iowait: u64,
    pub softirq: u64,
    pub idle: u64,
    /// Everything else (nice, irq, steal, …), so shares add up to the whole.
    pub other: u64,
}

impl CpuTicks {
    pub fn total(&self) -> u64 {
        self.user + self.system + self.iowait + self.softirq + self.idle + self.other
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NicCounters {
    pub rx_bytes: u64,
    pub rx_packets: u64,
    pub tx_bytes: u64,
    pub tx_packets: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskCounters {
    pub sectors_read: u64,
    pub sectors_written: u64,
    /// Milliseconds the device had I/O in flight.
    pub busy_ms: u64,
}

/// The counters at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub cpus: Vec<CpuTicks>,
    pub nics: BTreeMap<String, NicCounters>,
    pub disks: BTreeMap<String, DiskCounters>,
    pub page_cache_bytes: u64,
    pub dirty_bytes: u64,
    /// Each serving process by pid. Kept per process, since smbd forks one per connection and a
    /// sum by name would drop when one exits.
    pub processes: BTreeMap<u32, Serving>,
}

/// A serving process at one moment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Serving {
    pub name: String,
    /// Clock ticks of CPU used (user + system, all threads), with those of the children it has
    /// reaped: smbd and vsftpd fork a process per connection, which may live less than a
    /// sampling interval and is only ever seen in its parent's account.
    pub ticks: u64,
    /// The cores it may run on (its affinity); empty when unknown.
    pub cores: Vec<usize>,
}

impl Snapshot {
    /// Reads everything it can; a counter that cannot be read is left out, never invented.
    pub fn take() -> Snapshot {
        let read = |path: &str| fs::read_to_string(path).unwrap_or_default();
        let meminfo = read("/proc/meminfo");
        Snapshot {
            cpus: cpu_ticks(&read("/proc/stat")),
            nics: nic_counters(&read("/proc/net/dev")),
            disks: disk_counters(&read("/proc/diskstats")),
            page_cache_bytes: meminfo_kib(&meminfo, "Cached").unwrap_or(0) * 1024,
            dirty_bytes: meminfo_kib(&meminfo, "Dirty").unwrap_or(0) * 1024,
            processes: serving_ticks(),
        }
    }
}

/// Per-core lines of /proc/stat ("cpu0 user nice system idle iowait irq softirq steal …").
pub fn cpu_ticks(stat: &str) -> Vec<CpuTicks> {
    stat.lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .map(|line| {
            let v: Vec<u64> = line
                .split_whitespace()
                .skip(1)
                .map(|f| f.parse().unwrap_or(0))
                .collect();
            let at = |i: usize| v.get(i).copied().unwrap_or(0);
            CpuTicks {
                user: at(0) + at(1),
                system: at(2),
                idle: at(3),
                iowait: at(4),
                softirq: at(6),
                other: at(5) + at(7),
            }
        })
        .collect()
}

/// /proc/net/dev: "name: rx_bytes rx_packets … (8 fields) tx_bytes tx_packets …".
pub fn nic_counters(dev: &str) -> BTreeMap<String, NicCounters> {
    dev.lines()
        .filter_map(|line| {
            let (name, fields) = line.split_once(':')?;
            let v: Vec<u64> = fields
                .split_whitespace()
                .map(|f| f.parse().unwrap_or(0))
                .collect();
            let name = name.trim();
            (v.len() >= 10 && name != "lo").then(|| {
                (
                    name.to_string(),
                    NicCounters {
                        rx_bytes: v[0],
                        rx_packets: v[1],
                        tx_bytes: v[8],
                        tx_packets: v[9],
                    },
                )
            })
        })
        .collect()
}

/// /proc/diskstats: whole devices only (no partitions, no loop or ram devices).
pub fn disk_counters(stats: &str) -> BTreeMap<String, DiskCounters> {
    stats
        .lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let name = *f.get(2)?;
            let n = |i: usize| f.get(i).and_then(|v| v.parse().ok()).unwrap_or(0);
            is_whole_disk(name).then(|| {
                (
                    name.to_string(),
                    DiskCounters {
                        sectors_read: n(5),
                        sectors_written: n(9),
                        busy_ms: n(12),
                    },
                )
            })
        })
        .collect()
}

/// A disk rather than a partition of one, or a loop or RAM device.
fn is_whole_disk(name: &str) -> bool {
    if name.starts_with("loop") || name.starts_with("ram") {
        return false;
    }
    if ["sd", "vd", "xvd", "hd"]
        .iter()
        .any(|p| name.starts_with(p))
    {
        return !name.ends_with(|c: char| c.is_ascii_digit());
    }
    for (prefix, len) in [("nvme", 4), ("mmcblk", 6)] {
        if name.starts_with(prefix) {
            return !name[len..].contains('p');
        }
    }
    true
}

/// The serving process a command name belongs to: "smbd[10.0.0.2]" and "smbd-notifyd" are
/// smbd's.
fn serving_name(command: &str) -> Option<&'static str> {
    let stem = command
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.'))
        .next()?;
    SERVING.iter().copied().find(|&name| name == stem)
}

/// A /proc/meminfo field, in KiB.
pub fn meminfo_kib(meminfo: &str, field: &str) -> Option<u64> {
    meminfo.lines().find_map(|line| {
        let (name, rest) = line.split_once(':')?;
        (name == field).then(|| rest.split_whitespace().next()?.parse().ok())?
    })
}

/// Every process named in [`SERVING`], by pid.
fn serving_ticks() -> BTreeMap<u32, Serving> {
    let mut ticks = BTreeMap::new();
    let Ok(entries) = fs::read_dir("/proc") else {
        return ticks;
    };
    for entry in entries.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        if let Some((command, used)) = process_ticks(&stat) {
            if let Some(name) = serving_name(&command) {
                let status = fs::read_to_string(entry.path().join("status")).unwrap_or_default();
                ticks.insert(
                    pid,
                    Serving {
                        name: name.to_string(),
                        ticks: used,
                        cores: allowed_cores(&status),
                    },
                );
            }
        }
    }
    ticks
}

/// A /proc/PID/stat line's command name and user + system ticks, its reaped children's included.
pub fn process_ticks(stat: &str) -> Option<(String, u64)> {
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let command = stat.get(open + 1..close)?.to_string();
    let rest: Vec<&str> = stat.get(close + 2..)?.split_whitespace().collect();
    // after the command: state(0) … utime(11) stime(12) cutime(13) cstime(14)
    let mut ticks = 0;
    for field in 11..=14 {
        ticks += rest.get(field)?.parse::<u64>().ok()?;
    }
    Some((command, ticks))
}

/// The cores a /proc/PID/status allows ("Cpus_allowed_list:\t0-2,5"); empty when absent.
pub fn allowed_cores(status: &str) -> Vec<usize> {
    let Some(list) = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))
    else {
        return Vec::new();
    };
    let mut cores = Vec::new();
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        let (from, to) = part.split_once('-').unwrap_or((part, part));
        match (from.trim().parse::<usize>(), to.trim().parse::<usize>()) {
            (Ok(from), Ok(to)) if from <= to => cores.extend(from..=to),
            _ => return Vec::new(),
        }
    }
    cores
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cores_come_from_the_numbered_cpu_lines() {
        let stat = "cpu  10 0 10 100 0 0 0 0 0 0\n\
                    cpu0 4 1 3 50 7 2 5 1 0 0\n\
                    cpu1 6 0 7 50 0 0 0 0 0 0\nintr 1 2\n";
        let cpus = cpu_ticks(stat);
        assert_eq!(cpus.len(), 2);
        assert_eq!(
            cpus[0],
            CpuTicks {
                user: 5,
                system: 3,
                idle: 50,
                iowait: 7,
                softirq: 5,
                other: 3,
            }
        );
        assert_eq!(cpus[0].total(), 73);
    }

    #[test]
    fn interfaces_keep_bytes_and_packets_both_ways_and_skip_loopback() {
        let dev = "Inter-|   Receive |  Transmit\n face |bytes packets\n\
                   lo: 100 1 0 0 0 0 0 0 100 1 0 0 0 0 0 0\n\
                   eth0: 2000 20 0 0 0 0 0 0 3000 30 0 0 0 0 0 0\n";
        let nics = nic_counters(dev);
        assert_eq!(nics.len(), 1);
        assert_eq!(
            nics["eth0"],
            NicCounters {
                rx_bytes: 2000,
                rx_packets: 20,
                tx_bytes: 3000,
                tx_packets: 30,
            }
        );
    }

    #[test]
    fn disks_are_whole_devices_with_sectors_and_busy_time() {
        let stats = " 254 0 vda 100 0 800 50 200 0 1600 70 0 90 120\n\
                     254 1 vda1 90 0 700 40 190 0 1500 60 0 80 100\n\
                     7 0 loop0 1 0 2 0 0 0 0 0 0 0 0\n\
                     259 0 nvme0n1 1 0 8 0 1 0 16 0 0 5 5\n\
                     259 1 nvme0n1p1 1 0 8 0 1 0 16 0 0 5 5\n";
        let disks = disk_counters(stats);
        assert_eq!(disks.keys().collect::<Vec<_>>(), ["nvme0n1", "vda"]);
        assert_eq!(
            disks["vda"],
            DiskCounters {
                sectors_read: 800,
                sectors_written: 1600,
                busy_ms: 90,
            }
        );
    }

    #[test]
    fn process_lines_survive_spaces_and_parentheses_in_names() {
        let stat = "42 (smbd: client) S 1 42 42 0 -1 4194560 1 0 0 0 30 12 5 3 20 0 1 0";
        assert_eq!(process_ticks(stat), Some(("smbd: client".into(), 50)));
        assert_eq!(serving_name("smbd: client"), Some("smbd"));
        assert_eq!(serving_name("smbd-notifyd"), Some("smbd"));
        assert_eq!(serving_name("ganesha.nfsd"), Some("ganesha.nfsd"));
        assert_eq!(serving_name("smbdx"), None);
        let status = "Name:\tsmbd\nCpus_allowed:\t25\nCpus_allowed_list:\t0,2-4\n";
        assert_eq!(allowed_cores(status), [0, 2, 3, 4]);
        assert_eq!(allowed_cores("Cpus_allowed_list:\t1\n"), [1]);
        assert!(allowed_cores("Cpus_allowed_list:\tx-y\n").is_empty());
        assert!(allowed_cores("Name:\tsmbd\n").is_empty());
        assert_eq!(
            meminfo_kib("MemTotal: 10 kB\nCached:  2048 kB\n", "Cached"),
            Some(2048)
        );
    }
}
