//! Facts about the client host that a result must carry to be comparable later.

use serde::{Deserialize, Serialize};
use std::fs;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct HostInfo {
    pub hostname: String,
    pub cpus: usize,
    /// Installed memory, bytes.
    pub ram: u64,
    pub kernel: String,
    pub nics: Vec<Nic>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Nic {
    pub name: String,
    /// Link speed in bits per second, when the driver reports one.
    pub speed_bits: Option<f64>,
}

impl HostInfo {
    pub fn current() -> HostInfo {
        HostInfo {
            hostname: read_trimmed("/proc/sys/kernel/hostname").unwrap_or_default(),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            ram: meminfo("MemTotal").unwrap_or(0),
            kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_default(),
            nics: nics(),
        }
    }
}

/// A /proc/meminfo field in bytes (`MemTotal`, `MemAvailable`, …).
pub fn meminfo(field: &str) -> Option<u64> {
    let text = fs::read_to_string("/proc/meminfo").ok()?;
    text.lines().find_map(|line| {
        let rest = line.strip_prefix(field)?.strip_prefix(':')?;
        let kib: u64 = rest.trim().trim_end_matches("kB").trim().parse().ok()?;
        Some(kib * 1024)
    })
}

fn read_trimmed(path: &str) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

fn nics() -> Vec<Nic> {
    let Ok(entries) = fs::read_dir("/sys/class/net") else {
        return Vec::new();
    };
    let mut nics: Vec<Nic> = entries
        .flatten()
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            // speed is in Mb/s; -1 or an error when the link is down or virtual
            let speed_bits = read_trimmed(&format!("/sys/class/net/{name}/speed"))
                .and_then(|s| s.parse::<f64>().ok())
                .filter(|&mbit| mbit > 0.0)
                .map(|mbit| mbit * 1e6);
            Nic { name, speed_bits }
        })
        .collect();
    nics.sort_by(|a, b| a.name.cmp(&b.name));
    nics
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_host_has_memory_cpus_and_loopback() {
        let host = HostInfo::current();
        assert!(host.ram > 0);
        assert!(host.cpus >= 1);
        assert!(!host.kernel.is_empty());
        assert!(host.nics.iter().any(|nic| nic.name == "lo"));
        assert!(meminfo("MemAvailable").unwrap() <= host.ram);
        assert_eq!(meminfo("NoSuchField"), None);
    }
}
