//! The bottleneck verdict: follow the data from the server's disk through its CPU and the network
//! to the protocol and the client, and name the layer that chokes, with the numbers that show it.
//! A layer without evidence is "unknown", never guessed.
//!
//! The rules, with their thresholds:
//! - network: the protocol moves 85 % or more of what raw TCP moves the same way;
//! - server CPU: smbd or vsftpd uses 90 % of a core or more per connection (each connection is
//!   one process of one busy thread), or the cores a serving process is confined to
//!   (taskset, cpusets) are 90 % busy — the kernel's network work on its behalf is charged to
//!   the core, not to the process —, or every server core is 90 % busy;
//! - server disk: a server disk has I/O in flight 90 % of the time or more; its ceiling is the
//!   serve agent's local-disk baseline, and a test faster than that was served from memory;
//! - client CPU: every client core is 90 % busy, or sharebench uses 90 % of a core per worker;
//! - protocol: below 70 % of raw TCP with nothing else saturated, the classic sign that the
//!   protocol server wants tuning ("if Samba is much slower than FTP, tune it").
//!
//! Utilisation is taken at the 90th percentile of the samples taken while the judged test's
//! counted runs went on, so the idle moments between runs, warm-ups and other tests do not
//! dilute a saturated transfer.

use crate::monitor::sampler::{CpuShare, Sample, Timeline};
use crate::result::TestResult;
use crate::workload::TestKind;
use serde::Serialize;

const NETWORK_SHARE: f64 = 0.85;
const SATURATED: f64 = 0.90;
const PROTOCOL_SHARE: f64 = 0.70;
/// A test this much faster than the server's disk cannot have come from it.
const FROM_MEMORY: f64 = 1.2;

/// The serving processes the verdict names (sharebench itself is the client).
pub const SERVERS: [&str; 4] = ["smbd", "ganesha.nfsd", "vsftpd", "nfsd"];
/// Those that serve each connection with a process of its own, whose one busy thread caps it at
/// a core; ganesha.nfsd and nfsd spread a connection's work over threads.
const ONE_PER_CONNECTION: [&str; 2] = ["smbd", "vsftpd"];

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
    /// FTP medians to the same server, when measured (`--ftp-baseline`).
    pub ftp_upload: Option<f64>,
    pub ftp_download: Option<f64>,
    /// The server's local-disk medians, written with fsync and read uncached, when measured.
    pub disk_write: Option<f64>,
    pub disk_read: Option<f64>,
    pub client: Option<&'a Timeline>,
    pub server: Option<&'a Timeline>,
    /// When the judged runs went on, in the timelines' seconds; empty: the whole timelines.
    pub windows: &'a [(f64, f64)],
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

/// The test the verdict judges: the first sequential data test measured, else the first data
/// test.
pub fn judged_test(tests: &[TestResult]) -> Option<&TestResult> {
    let data = || {
        tests
            .iter()
            .filter(|t| !t.key.test.is_metadata() && t.summary.is_some())
    };
    data()
        .find(|t| matches!(t.key.test, TestKind::Read | TestKind::Write))
        .or_else(|| data().next())
}

/// The 90th percentile of `f` over the samples within `windows`.
fn busy(
    timeline: Option<&Timeline>,
    windows: &[(f64, f64)],
    f: impl Fn(&Sample) -> f64,
) -> Option<f64> {
    let mut values: Vec<f64> = timeline?.within(windows).into_iter().map(f).collect();
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(values[((values.len() - 1) as f64 * 0.9).round() as usize])
}

fn all_cores(sample: &Sample) -> f64 {
    let n = sample.cpu.len().max(1) as f64;
    sample.cpu.iter().map(CpuShare::busy).sum::<f64>() / n
}

/// How busy the cores `name` is confined to were, on average; `None` when it is not confined.
fn confined_cores(sample: &Sample, name: &str) -> Option<f64> {
    let cores = sample.confined.get(name)?;
    let busy: Vec<f64> = cores
        .iter()
        .filter_map(|&c| sample.cpu.get(c).map(CpuShare::busy))
        .collect();
    (!busy.is_empty()).then(|| busy.iter().sum::<f64>() / busy.len() as f64)
}

/// "core 0", "cores 0, 2".
fn core_list(cores: &[usize]) -> String {
    let list: Vec<String> = cores.iter().map(usize::to_string).collect();
    match cores.len() {
        1 => format!("core {}", list[0]),
        _ => format!("cores {}", list.join(", ")),
    }
}

pub fn judge(e: &Evidence) -> Verdict {
    let mb = |rate: f64| format!("{:.1} MB/s", rate / 1e6);
    let tcp = if e.writes {
        e.tcp_upload
    } else {
        e.tcp_download
    };
    let share = tcp.map(|tcp| e.rate / tcp);

    let w = e.windows;
    // the busiest serving process, and the server's cores
    let process = SERVERS
        .iter()
        .filter_map(|&name| {
            busy(e.server, w, |s| {
                s.processes.get(name).copied().unwrap_or(0.0)
            })
            .map(|c| (name, c))
        })
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .filter(|(_, cores)| *cores > 0.0);
    // what one connection's process used, where one is one process
    let per_connection = process
        .filter(|(name, _)| ONE_PER_CONNECTION.contains(name))
        .map(|(_, cores)| cores / e.workers.max(1) as f64);
    // the serving process kept to some cores, and how busy they were
    let confinement = process.and_then(|(name, _)| {
        let sample = e
            .server?
            .within(w)
            .into_iter()
            .rfind(|s| s.confined.contains_key(name))?;
        let cores = sample.confined[name].clone();
        let busy = busy(e.server, w, |s| confined_cores(s, name).unwrap_or(0.0))?;
        Some((cores, busy))
    });
    let server_cores = busy(e.server, w, all_cores);
    let disk = busy(e.server, w, |s| {
        s.disk.values().map(|d| d.busy).fold(0.0, f64::max)
    });
    let client_cores = busy(e.client, w, all_cores);
    let client_process = busy(e.client, w, |s| {
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
    let confined_busy = confinement.as_ref().map(|(_, busy)| *busy);
    let server_cpu = Layer {
        layer: "server-cpu",
        ceiling: None,
        utilisation: [per_connection, confined_busy, server_cores]
            .into_iter()
            .flatten()
            .reduce(f64::max),
        note: match (process, server_cores) {
            (Some((name, p)), Some(c)) => {
                let confined = match &confinement {
                    Some((cores, busy)) => format!(
                        ", confined to {} ({:.0} % busy)",
                        core_list(cores),
                        busy * 100.0
                    ),
                    None => String::new(),
                };
                let used = match per_connection {
                    Some(one) if e.workers > 1 => format!(
                        "{:.0} % of a core per connection ({:.2} cores in all)",
                        one * 100.0,
                        p
                    ),
                    _ => format!("{:.0} % of a core", p * 100.0),
                };
                format!(
                    "{name} used {used}{confined}; all server cores {:.0} % busy",
                    c * 100.0
                )
            }
            (None, Some(c)) => format!("all server cores {:.0} % busy", c * 100.0),
            _ => "no server metrics (no serve agent)".into(),
        },
    };
    let disk_ceiling = if e.writes { e.disk_write } else { e.disk_read };
    let server_disk = Layer {
        layer: "server-disk",
        ceiling: disk_ceiling,
        utilisation: disk,
        note: match (disk, disk_ceiling) {
            (Some(d), ceiling) => {
                let busy = format!(
                    "busiest server disk had I/O in flight {:.0} % of the time",
                    d * 100.0
                );
                match ceiling {
                    Some(c) if e.rate > c * FROM_MEMORY => format!(
                        "{busy}; {} at {:.1}× the disk's own {} ({}): served from the server's \
                         memory, not its disk",
                        e.test,
                        e.rate / c,
                        if e.writes { "writes" } else { "reads" },
                        mb(c)
                    ),
                    Some(c) => format!(
                        "{busy}; the disk's own {} reach {}",
                        if e.writes {
                            "durable writes"
                        } else {
                            "uncached reads"
                        },
                        mb(c)
                    ),
                    None => busy,
                }
            }
            (None, _) => "no server metrics (no serve agent)".into(),
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
    // the protocol against raw TCP and against FTP on the same server, the classic yardstick
    let ftp = if e.writes {
        e.ftp_upload
    } else {
        e.ftp_download
    };
    let ftp_share = ftp.map(|ftp| e.rate / ftp);
    let lowest_share = [share, ftp_share].into_iter().flatten().reduce(f64::min);
    let protocol = Layer {
        layer: "protocol",
        ceiling: ftp.or(tcp),
        utilisation: ftp_share.or(share),
        note: {
            let mut against: Vec<String> = Vec::new();
            if let Some(share) = share {
                against.push(format!("{:.0} % of raw TCP", share * 100.0));
            }
            if let (Some(ftp), Some(ftp_share)) = (ftp, ftp_share) {
                against.push(format!("{:.0} % of FTP ({})", ftp_share * 100.0, mb(ftp)));
            }
            match lowest_share {
                None => "no raw TCP or FTP baseline to compare with".into(),
                Some(lowest) if lowest < PROTOCOL_SHARE => format!(
                    "{} is below the 70 % a well-tuned server reaches: tune the protocol server",
                    against.join(" and ")
                ),
                Some(_) => against.join(" and "),
            }
        },
    };

    // every layer at its limit, the most used first; on a tie, the one nearer the server
    let limits = [
        (&server_disk, SATURATED),
        (&server_cpu, SATURATED),
        (&network, NETWORK_SHARE),
        (&client_cpu, SATURATED),
    ];
    let limiting = limits
        .iter()
        .filter_map(|(layer, threshold)| {
            let used = layer.utilisation.filter(|u| u >= threshold)?;
            Some((*layer, used))
        })
        .reduce(|a, b| if b.1 > a.1 { b } else { a });
    let (layer, evidence) = if let Some((layer, _)) = limiting {
        let joint = if layer.layer == "network" { " is" } else { ":" };
        (
            layer.layer,
            format!("{} at {}{joint} {}", e.test, mb(e.rate), layer.note),
        )
    } else if lowest_share.is_some_and(|s| s < PROTOCOL_SHARE) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::sampler::DiskRates;

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
            disk_write: Some(5e6),
            disk_read: Some(200e6),
            ftp_upload: None,
            ftp_download: None,
            client: Some(client),
            server: Some(server),
            windows: &[],
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
    fn a_pinned_smbd_on_a_saturated_core_is_the_servers_cpu() {
        let client = timeline(0.8, None, 0.0);
        let mut server = timeline(0.5, Some(("smbd", 0.6)), 0.1);
        for sample in &mut server.samples {
            sample.cpu[0].idle = 0.04; // smbd's core, with the softirq work it causes
            sample.confined.insert("smbd".into(), vec![0]);
        }
        let v = judge(&evidence(6e6, &client, &server));
        assert_eq!(v.layer, "server-cpu", "{}", v.evidence);
        assert!(
            v.evidence
                .contains("smbd used 60 % of a core, confined to core 0 (96 % busy)"),
            "{}",
            v.evidence
        );
        // a core waiting on the disk is not working
        for sample in &mut server.samples {
            sample.cpu[0].iowait = 0.5;
        }
        assert_eq!(judge(&evidence(6e6, &client, &server)).layer, "protocol");
        // the same smbd free to use both cores is not held by its CPU
        for sample in &mut server.samples {
            sample.cpu[0].iowait = 0.0;
            sample.confined.clear();
        }
        assert_eq!(judge(&evidence(6e6, &client, &server)).layer, "protocol");
    }

    #[test]
    fn serving_processes_are_judged_per_connection_or_by_their_cores() {
        let client = timeline(0.8, None, 0.0);
        let two_smbds = timeline(0.5, Some(("smbd", 1.9)), 0.1);
        let four = Evidence {
            workers: 4,
            ..evidence(6e6, &client, &two_smbds)
        };
        let v = judge(&four);
        assert_eq!(v.layer, "protocol", "{}", v.evidence);
        assert!(v.table[1]
            .note
            .contains("48 % of a core per connection (1.90 cores in all)"));
        let two = Evidence {
            workers: 2,
            ..evidence(6e6, &client, &two_smbds)
        };
        assert_eq!(judge(&two).layer, "server-cpu");
        // ganesha's threads share a connection's work: a core's worth is not its limit
        let ganesha = timeline(0.5, Some(("ganesha.nfsd", 1.0)), 0.1);
        assert_eq!(judge(&evidence(6e6, &client, &ganesha)).layer, "protocol");
    }

    #[test]
    fn of_two_layers_at_their_limit_the_more_used_is_named() {
        let client = timeline(0.8, None, 0.0);
        let pegged = timeline(0.5, Some(("smbd", 1.0)), 0.1);
        let v = judge(&evidence(10.5e6, &client, &pegged));
        assert_eq!(v.layer, "server-cpu", "88 % of TCP, smbd at 100 %");
        let busy = timeline(0.5, Some(("smbd", 0.92)), 0.1);
        let v = judge(&evidence(11.8e6, &client, &busy));
        assert_eq!(v.layer, "network", "98 % of TCP, smbd at 92 %");
    }

    #[test]
    fn only_the_judged_runs_samples_count() {
        let client = timeline(0.8, None, 0.0);
        let mut server = timeline(0.5, Some(("smbd", 0.3)), 0.1);
        for (i, sample) in server.samples.iter_mut().enumerate() {
            sample.t = (i + 1) as f64 * 0.5;
        }
        // smbd pegged while another test ran, from 0 to 1.5 s
        for sample in &mut server.samples[..3] {
            sample.processes.insert("smbd".into(), 1.0);
        }
        let windows = [(1.5, 2.5)];
        let judged = Evidence {
            windows: &windows,
            ..evidence(6e6, &client, &server)
        };
        assert_eq!(judge(&judged).layer, "protocol");
        assert_eq!(judge(&evidence(6e6, &client, &server)).layer, "server-cpu");
    }

    #[test]
    fn a_busy_disk_and_a_slow_idle_protocol_are_told_apart() {
        let client = timeline(0.8, None, 0.0);
        let disk_bound = timeline(0.7, Some(("smbd", 0.3)), 0.95);
        let v = judge(&evidence(6e6, &client, &disk_bound));
        assert_eq!(v.layer, "server-disk");
        assert_eq!(v.table[0].ceiling, Some(200e6));
        assert!(
            v.evidence.contains("uncached reads reach 200.0 MB/s"),
            "{}",
            v.evidence
        );
        let writes = Evidence {
            test: "write",
            writes: true,
            ..evidence(7e6, &client, &disk_bound)
        };
        let v = judge(&writes);
        assert!(
            v.evidence.contains(
                "write at 1.4× the disk's own writes (5.0 MB/s): served from the server's memory"
            ),
            "{}",
            v.evidence
        );
        let writes = Evidence {
            test: "write",
            writes: true,
            rate: 5.5e6,
            ..evidence(6e6, &client, &disk_bound)
        };
        assert!(
            !judge(&writes).evidence.contains("memory"),
            "1.1× is within the noise"
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
    fn a_protocol_well_below_ftp_on_the_same_server_wants_tuning() {
        let client = timeline(0.8, None, 0.0);
        let idle = timeline(0.7, Some(("smbd", 0.3)), 0.2);
        // 75 % of raw TCP and 82 % of FTP: nothing to tune
        let e = Evidence {
            ftp_download: Some(11e6),
            ..evidence(9e6, &client, &idle)
        };
        let v = judge(&e);
        assert_eq!(v.layer, "unknown", "{}", v.evidence);
        let slow = Evidence {
            ftp_download: Some(11e6),
            ..evidence(5.5e6, &client, &idle)
        };
        let v = judge(&slow);
        assert_eq!(v.layer, "protocol", "{}", v.evidence);
        assert!(
            v.evidence
                .contains("46 % of raw TCP and 50 % of FTP (11.0 MB/s) is below the 70 %"),
            "{}",
            v.evidence
        );
        assert_eq!(v.table[3].ceiling, Some(11e6));
        let no_tcp = Evidence {
            tcp_download: None,
            ftp_download: Some(11e6),
            ..evidence(5.5e6, &client, &idle)
        };
        assert_eq!(judge(&no_tcp).layer, "protocol", "FTP alone is enough");
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
