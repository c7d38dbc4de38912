//! The bottleneck verdict: follow the data from the server's disk through its CPU and the network
//! to the protocol and the client, and name the layer that chokes, with the numbers that show it.
//! A layer without evidence is "unknown", never guessed.
//!
//! The rules, with their thresholds:
//! - network: the protocol moves 85 % or more of what raw TCP moves the same way;
//! - server CPU: a serving process (smbd, ganesha.nfsd, vsftpd, nfsd) uses 90 % of a core or
//!   more (one connection is one thread in smbd and vsftpd), or every server core is 90 % busy;
//! - server disk: a server disk has I/O in flight 90 % of the time or more;
//! - client CPU: every client core is 90 % busy, or sharebench uses 90 % of a core per worker;
//! - protocol: below 70 % of raw TCP with nothing else saturated, the classic sign that the
//!   protocol server wants tuning ("if Samba is much slower than FTP, tune it").
//!
//! Utilisation is taken at the 90th percentile of the samples of a run, so the idle moments
//! between runs do not dilute a saturated transfer.

use crate::monitor::sampler::{Sample, Timeline};
use crate::stats::outliers::median;
use serde::Serialize;

const NETWORK_SHARE: f64 = 0.85;
const SATURATED: f64 = 0.90;
const PROTOCOL_SHARE: f64 = 0.70;

/// The serving processes the verdict names (sharebench itself is the client).
const SERVERS: [&str; 4] = ["smbd", "ganesha.nfsd", "vsftpd", "nfsd"];

/// What the verdict is judged on.
pub struct Evidence<'a> {
    /// The test judged, e.g. "read", and its median rate.
    pub test: &'a str,
    pub rate: f64,
    pub writes: bool,
    pub protocol: &'a str,
    pub workers: usize,
    /// Raw TCP medians, client to server and back, when measured.
    pub tcp_upload: Option<f64>,
    pub tcp_download: Option<f64>,
    pub client: Option<&'a Timeline>,
    pub server: Option<&'a Timeline>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Layer {
    pub layer: &'static str,
    /// The most this layer can carry, bytes per second, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<f64>,
    /// How much of it was used, 0 to 1, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub utilisation: Option<f64>,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub test: String,
    pub layer: &'static str,
    /// One sentence with the numbers.
    pub evidence: String,
    pub table: Vec<Layer>,
}

/// The 90th percentile of `f` over the samples.
fn busy(timeline: Option<&Timeline>, f: impl Fn(&Sample) -> f64) -> Option<f64> {
    let mut values: Vec<f64> = timeline?.samples.iter().map(f).collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[((values.len() - 1) as f64 * 0.9).round() as usize])
}

fn all_cores(sample: &Sample) -> f64 {
    let n = sample.cpu.len().max(1) as f64;
    sample.cpu.iter().map(|c| 1.0 - c.idle).sum::<f64>() / n
}

pub fn judge(e: &Evidence) -> Verdict {
    let mb = |rate: f64| format!("{:.1} MB/s", rate / 1e6);
    let tcp = if e.writes {
        e.tcp_upload
    } else {
        e.tcp_download
    };
    let share = tcp.map(|tcp| e.rate / tcp);

    // the busiest serving process, and the server's cores
    let process = SERVERS
        .iter()
        .filter_map(|&name| {
            busy(e.server, |s| s.processes.get(name).copied().unwrap_or(0.0)).map(|c| (name, c))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, cores)| *cores > 0.0);
    let server_cores = busy(e.server, all_cores);
    let disk = busy(e.server, |s| {
        s.disk.values().map(|d| d.busy).fold(0.0, f64::max)
    });
    let client_cores = busy(e.client, all_cores);
    let client_process = busy(e.client, |s| {
        s.processes.get("sharebench").copied().unwrap_or(0.0)
    })
    .map(|cores| cores / e.workers.max(1) as f64);

    let network = Layer {
        layer: "network",
        ceiling: tcp,
        utilisation: share,
        note: match (tcp, share) {
            (Some(tcp), Some(share)) => format!(
                "raw TCP {} {}; {} moved {:.0} % of it",
                if e.writes {
                    "to the server"
                } else {
                    "from the server"
                },
                mb(tcp),
                e.protocol.to_uppercase(),
                share * 100.0
            ),
            _ => "no raw TCP baseline (no serve agent)".into(),
        },
    };
    let server_cpu = Layer {
        layer: "server-cpu",
        ceiling: None,
        utilisation: match (process, server_cores) {
            (Some((_, p)), Some(c)) => Some(p.max(c)),
            (Some((_, p)), None) => Some(p),
            (None, c) => c,
        },
        note: match (process, server_cores) {
            (Some((name, p)), Some(c)) => format!(
                "{name} used {:.0} % of a core; all server cores {:.0} % busy",
                p * 100.0,
                c * 100.0
            ),
            (None, Some(c)) => format!("all server cores {:.0} % busy", c * 100.0),
            _ => "no server metrics (no serve agent)".into(),
        },
    };
    let server_disk = Layer {
        layer: "server-disk",
        ceiling: None,
        utilisation: disk,
        note: match disk {
            Some(d) => format!(
                "busiest server disk had I/O in flight {:.0} % of the time",
                d * 100.0
            ),
            None => "no server metrics (no serve agent)".into(),
        },
    };
    let client_cpu = Layer {
        layer: "client-cpu",
        ceiling: None,
        utilisation: match (client_cores, client_process) {
            (Some(c), Some(p)) => Some(c.max(p)),
            (c, p) => c.or(p),
        },
        note: match (client_cores, client_process) {
            (Some(c), Some(p)) => format!(
                "client cores {:.0} % busy; sharebench {:.0} % of a core per worker",
                c * 100.0,
                p * 100.0
            ),
            (Some(c), None) => format!("client cores {:.0} % busy", c * 100.0),
            _ => "no client metrics".into(),
        },
    };
    let protocol = Layer {
        layer: "protocol",
        ceiling: tcp,
        utilisation: share,
        note: match share {
            Some(share) if share < PROTOCOL_SHARE => format!(
                "{:.0} % of raw TCP is below the 70 % a well-tuned server reaches: tune the \
                 protocol server",
                share * 100.0
            ),
            Some(share) => format!("{:.0} % of raw TCP", share * 100.0),
            None => "no raw TCP baseline to compare with".into(),
        },
    };

    let saturated = |u: Option<f64>| u.is_some_and(|u| u >= SATURATED);
    let (layer, evidence) = if share.is_some_and(|s| s >= NETWORK_SHARE) {
        (
            "network",
            format!("{} at {} is {}", e.test, mb(e.rate), network.note),
        )
    } else if process.is_some_and(|(_, p)| p >= SATURATED) || saturated(server_cores) {
        (
            "server-cpu",
            format!("{} at {}: {}", e.test, mb(e.rate), server_cpu.note),
        )
    } else if saturated(disk) {
        (
            "server-disk",
            format!("{} at {}: {}", e.test, mb(e.rate), server_disk.note),
        )
    } else if saturated(client_cpu.utilisation) {
        (
            "client-cpu",
            format!("{} at {}: {}", e.test, mb(e.rate), client_cpu.note),
        )
    } else if share.is_some_and(|s| s < PROTOCOL_SHARE) {
        (
            "protocol",
            format!("{} at {}: {}", e.test, mb(e.rate), protocol.note),
        )
    } else {
        let missing = if tcp.is_none() || e.server.is_none() {
            "the server side is not measured (run 'sharebench serve' on the server)"
        } else {
            "no layer is saturated"
        };
        (
            "unknown",
            format!("{} at {}: {missing}", e.test, mb(e.rate)),
        )
    };
    Verdict {
        test: e.test.to_string(),
        layer,
        evidence,
        table: vec![server_disk, server_cpu, network, protocol, client_cpu],
    }
}

/// The median of a baseline's counted runs, for [`Evidence`].
pub fn median_rate(rates: &[f64]) -> Option<f64> {
    (!rates.is_empty()).then(|| median(rates))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::sampler::{CpuShare, DiskRates};

    fn timeline(idle: f64, process: Option<(&str, f64)>, disk_busy: f64) -> Timeline {
        let mut sample = Sample {
            cpu: vec![
                CpuShare {
                    idle,
                    ..CpuShare::default()
                };
                2
            ],
            ..Sample::default()
        };
        if let Some((name, cores)) = process {
            sample.processes.insert(name.into(), cores);
        }
        sample.disk.insert(
            "vda".into(),
            DiskRates {
                busy: disk_busy,
                ..DiskRates::default()
            },
        );
        Timeline {
            interval_s: 0.5,
            samples: vec![sample; 5],
        }
    }

    fn evidence<'a>(rate: f64, client: &'a Timeline, server: &'a Timeline) -> Evidence<'a> {
        Evidence {
            test: "read",
            rate,
            writes: false,
            protocol: "smb",
            workers: 1,
            tcp_upload: Some(12e6),
            tcp_download: Some(12e6),
            client: Some(client),
            server: Some(server),
        }
    }

    #[test]
    fn a_protocol_at_the_links_rate_is_held_by_the_network() {
        let quiet = timeline(0.9, None, 0.1);
        let v = judge(&evidence(11.8e6, &quiet, &quiet));
        assert_eq!(v.layer, "network");
        assert!(v.evidence.contains("98 %"), "{}", v.evidence);
        assert_eq!(v.table.len(), 5);
    }

    #[test]
    fn a_pegged_smbd_is_the_servers_cpu_and_is_named() {
        let client = timeline(0.8, None, 0.0);
        let server = timeline(0.4, Some(("smbd", 0.97)), 0.1);
        let v = judge(&evidence(6e6, &client, &server));
        assert_eq!(v.layer, "server-cpu");
        assert!(v.evidence.contains("smbd used 97 %"), "{}", v.evidence);
    }

    #[test]
    fn a_busy_disk_and_a_slow_idle_protocol_are_told_apart() {
        let client = timeline(0.8, None, 0.0);
        let disk_bound = timeline(0.7, Some(("smbd", 0.3)), 0.95);
        assert_eq!(
            judge(&evidence(6e6, &client, &disk_bound)).layer,
            "server-disk"
        );
        let idle = timeline(0.7, Some(("smbd", 0.3)), 0.2);
        let v = judge(&evidence(6e6, &client, &idle));
        assert_eq!(v.layer, "protocol", "50 % of TCP with nothing saturated");
        assert!(v.evidence.contains("tune the protocol server"));
        let fine = judge(&evidence(9e6, &client, &idle));
        assert_eq!(
            fine.layer, "unknown",
            "75 % of TCP: below the network, above the rule"
        );
    }

    #[test]
    fn without_the_server_side_nothing_is_guessed() {
        let client = timeline(0.8, None, 0.0);
        let e = Evidence {
            tcp_upload: None,
            tcp_download: None,
            server: None,
            ..evidence(6e6, &client, &client)
        };
        let v = judge(&e);
        assert_eq!(v.layer, "unknown");
        assert!(v.evidence.contains("not measured"), "{}", v.evidence);
        assert_eq!(v.table[0].utilisation, None);
    }
}
