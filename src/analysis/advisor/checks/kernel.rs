//! The kernels' rules: Linux (L01–L12) and FreeBSD (B01–B08), judged on sysctl dumps or files
//! and on facts of the host.

use super::super::read::number;
use super::super::{Hit, Inputs, Severity};
use super::nfs::{raised_core_buffers, serves_knfsd};
use super::Check;

pub const CHECKS: &[(&str, Check)] = &[
    ("L01", l01),
    ("L02", l02),
    ("L03", l03),
    ("L04", l04),
    ("L05", l05),
    ("L06", l06),
    ("L07", l07),
    ("L08", l08),
    ("L09", l09),
    ("L10", l10),
    ("L11", l11),
    ("L12", l12),
    ("B01", b01),
    ("B02", b02),
    ("B03", b03),
    ("B04", b04),
    ("B05", b05),
    ("B06", b06),
    ("B07", b07),
    ("B08", b08),
];

const MIB: u64 = 1 << 20;

/// Hits for the sysctls whose (first) number makes `bad` true.
fn sysctls_where(inputs: &Inputs, keys: &[&str], bad: impl Fn(u64) -> bool) -> Vec<Hit> {
    let Some(sysctl) = &inputs.sysctl else {
        return Vec::new();
    };
    keys.iter()
        .filter_map(|k| sysctl.get(k))
        .filter(|s| {
            s.value
                .split_whitespace()
                .next()
                .and_then(number)
                .is_some_and(&bad)
        })
        .map(|s| Hit::at(&s.at, format!("{} = {}", s.key, s.value)))
        .collect()
}

fn l01(inputs: &Inputs) -> Vec<Hit> {
    let Some(sysctl) = &inputs.sysctl else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for key in ["net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"] {
        let Some(s) = sysctl.get(key) else { continue };
        if let Some(max) = sysctl.nth(key, 2).filter(|&m| m < 4 * MIB) {
            let at_10ms = max as f64 * 8.0 / 0.010 / 1e9;
            let detail = format!(
                "{key} allows windows of {} KiB at most: {at_10ms:.2} Gbit/s per connection at 10 ms",
                max / 1024
            );
            hits.push(Hit::at(&s.at, detail));
        }
        if sysctl.nth(key, 1).is_some_and(|d| d >= MIB) {
            let detail = format!("{key} starts every socket at {}", s.value);
            hits.push(Hit::at(&s.at, detail));
        }
    }
    hits
}

fn l02(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(inputs, &["net.ipv4.tcp_moderate_rcvbuf"], |v| v == 0)
}

fn l03(inputs: &Inputs) -> Vec<Hit> {
    if serves_knfsd(inputs) {
        return Vec::new(); // K05 says it for an NFS server
    }
    raised_core_buffers(
        inputs,
        &[
            "net.core.rmem_max",
            "net.core.wmem_max",
            "net.core.rmem_default",
            "net.core.wmem_default",
        ],
    )
}

fn l04(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(
        inputs,
        &[
            "net.ipv4.tcp_window_scaling",
            "net.ipv4.tcp_sack",
            "net.ipv4.tcp_timestamps",
        ],
        |v| v == 0,
    )
}

fn l05(inputs: &Inputs) -> Vec<Hit> {
    // a dump lists legacy keys at their default: only a value is a choice there
    let dump = inputs.sysctl.as_ref().is_some_and(|s| s.dump);
    sysctls_where(
        inputs,
        &[
            "net.ipv4.tcp_low_latency",
            "net.ipv4.tcp_fack",
            "net.ipv4.tcp_tw_recycle",
        ],
        |v| v != 0 || !dump,
    )
}

fn l06(inputs: &Inputs) -> Vec<Hit> {
    let mut hits: Vec<Hit> = sysctls_where(inputs, &["net.core.somaxconn"], |v| v < 128)
        .into_iter()
        .map(|h| h.severity(Severity::PerfMinor))
        .collect();
    hits.extend(sysctls_where(inputs, &["net.core.somaxconn"], |v| v > 4096));
    hits
}

fn l07(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(inputs, &["net.ipv4.tcp_slow_start_after_idle"], |v| v == 1)
}

/// Interfaces with a jumbo MTU (the loopback's large MTU does not count).
fn jumbo(inputs: &Inputs) -> Option<String> {
    inputs
        .nics
        .iter()
        .filter(|n| n.name != "lo")
        .find(|n| n.number("link.mtu").is_some_and(|m| m > 1500))
        .map(|n| format!("{} has MTU {}", n.name, n.value("link.mtu").unwrap_or("?")))
}

fn l08(inputs: &Inputs) -> Vec<Hit> {
    let Some(jumbo) = jumbo(inputs) else {
        return Vec::new();
    };
    sysctls_where(inputs, &["net.ipv4.tcp_mtu_probing"], |v| v == 0)
        .into_iter()
        .map(|h| Hit {
            detail: format!("{}, and {jumbo}", h.detail),
            ..h
        })
        .collect()
}

fn l09(inputs: &Inputs) -> Vec<Hit> {
    let Some(sysctl) = &inputs.sysctl else {
        return Vec::new();
    };
    let Some(cc) = sysctl.get("net.ipv4.tcp_congestion_control") else {
        return Vec::new();
    };
    let qdisc = sysctl
        .value("net.core.default_qdisc")
        .unwrap_or("pfifo_fast");
    if cc.value == "bbr" && qdisc != "fq" {
        return vec![Hit::at(
            &cc.at,
            format!("bbr with the {qdisc} queueing discipline"),
        )];
    }
    Vec::new()
}

fn l10(inputs: &Inputs) -> Vec<Hit> {
    let mut hits: Vec<Hit> = sysctls_where(
        inputs,
        &["vm.dirty_ratio", "vm.dirty_background_ratio"],
        |v| v >= 40,
    )
    .into_iter()
    .map(|h| h.severity(Severity::DataSafety))
    .collect();
    let Some(sysctl) = &inputs.sysctl else {
        return hits;
    };
    let by_ratio = sysctl.number("vm.dirty_bytes").unwrap_or(0) == 0;
    let memory = inputs.host.memory_bytes.unwrap_or(0);
    if let (true, Some(s)) = (memory >= 64 << 30, sysctl.get("vm.dirty_ratio")) {
        if by_ratio && hits.is_empty() {
            let dirty = memory / 100 * number(&s.value).unwrap_or(20);
            let detail = format!(
                "vm.dirty_ratio = {} of {} GiB lets {} GiB of writes wait in memory",
                s.value,
                memory >> 30,
                dirty >> 30
            );
            hits.push(Hit::at(&s.at, detail));
        }
    }
    hits
}

fn l11(inputs: &Inputs) -> Vec<Hit> {
    inputs
        .host
        .disk_readahead
        .iter()
        .filter(|(_, kb, rotational)| *rotational && *kb <= 128)
        .map(|(disk, kb, _)| Hit::unwritten(format!("{disk} (rotating) reads ahead {kb} KiB")))
        .collect()
}

/// Fewer open files than a busy file-serving daemon needs.
const DAEMON_OPEN_FILES: u64 = 16384;

fn l12(inputs: &Inputs) -> Vec<Hit> {
    let mut hits: Vec<Hit> = inputs
        .host
        .open_file_limits
        .iter()
        // S27 speaks for smbd when a Samba configuration is judged
        .filter(|(daemon, _)| !(daemon == "smbd" && inputs.samba.is_some()))
        .filter(|(_, limit)| *limit < DAEMON_OPEN_FILES)
        .map(|(daemon, limit)| {
            Hit::unwritten(format!(
                "{daemon} runs with a hard limit of {limit} open files"
            ))
        })
        .collect();
    hits.extend(sysctls_where(inputs, &["fs.nr_open"], |v| {
        v < DAEMON_OPEN_FILES
    }));
    hits
}

fn b01(inputs: &Inputs) -> Vec<Hit> {
    const KEYS: [&str; 2] = ["net.inet.tcp.sendbuf_max", "net.inet.tcp.recvbuf_max"];
    let mut hits = sysctls_where(inputs, &KEYS, |v| v <= 2 * MIB);
    let Some(sysctl) = &inputs.sysctl else {
        return hits;
    };
    let largest = KEYS.iter().filter_map(|k| sysctl.number(k)).max();
    if let (Some(max), Some(s)) = (largest, sysctl.get("kern.ipc.maxsockbuf")) {
        if number(&s.value).is_some_and(|m| m < max) {
            let detail = format!(
                "kern.ipc.maxsockbuf = {} is below the buffers' {max}",
                s.value
            );
            hits.push(Hit::at(&s.at, detail));
        }
    }
    hits
}

fn b02(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(
        inputs,
        &[
            "net.inet.tcp.sendbuf_auto",
            "net.inet.tcp.recvbuf_auto",
            "net.inet.tcp.rfc1323",
        ],
        |v| v == 0,
    )
}

fn b03(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(
        inputs,
        &["net.inet.tcp.sendspace", "net.inet.tcp.recvspace"],
        |v| v >= MIB,
    )
}

fn b04(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(inputs, &["net.inet.tcp.delayed_ack"], |v| v == 0)
}

fn b05(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(
        inputs,
        &["kern.ipc.somaxconn", "kern.ipc.soacceptqueue"],
        |v| v > 128,
    )
}

fn b06(inputs: &Inputs) -> Vec<Hit> {
    let Some(sysctl) = &inputs.sysctl else {
        return Vec::new();
    };
    match (sysctl.number("kern.openfiles"), sysctl.get("kern.maxfiles")) {
        (Some(open), Some(max)) => match number(&max.value) {
            Some(limit) if open * 10 >= limit * 9 => {
                vec![Hit::at(
                    &max.at,
                    format!("{open} files open of kern.maxfiles {limit}"),
                )]
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn b07(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(
        inputs,
        &["vfs.zfs.prefetch.disable", "vfs.zfs.prefetch_disable"],
        |v| v == 1,
    )
}

fn b08(inputs: &Inputs) -> Vec<Hit> {
    sysctls_where(inputs, &["vfs.nfsd.srvmaxio"], |v| v <= 128 * 1024)
}

#[cfg(test)]
mod tests {
    use super::super::super::read::ethtool;
    use super::super::super::{advise, HostFacts, Inputs, Severity};
    use super::super::fixtures::{assert_rule, ids, sysctl};

    fn host(facts: HostFacts) -> Inputs {
        Inputs {
            host: facts,
            ..Inputs::default()
        }
    }

    #[test]
    fn every_kernel_rule_applies_to_one_configuration_and_not_to_another() {
        assert_rule(
            "L01",
            &sysctl("net.ipv4.tcp_rmem = 4096 87380 1048576"),
            &sysctl("net.ipv4.tcp_rmem = 4096 131072 6291456"),
        );
        assert_rule(
            "L02",
            &sysctl("net.ipv4.tcp_moderate_rcvbuf = 0"),
            &sysctl("net.ipv4.tcp_moderate_rcvbuf = 1"),
        );
        assert_rule(
            "L03",
            &sysctl("net.core.wmem_max = 16777216"),
            &sysctl("net.core.wmem_max = 212992"),
        );
        assert_rule(
            "L04",
            &sysctl("net.ipv4.tcp_sack = 0"),
            &sysctl("net.ipv4.tcp_sack = 1"),
        );
        assert_rule(
            "L05",
            &sysctl("net.ipv4.tcp_low_latency = 1"),
            &sysctl("net.ipv4.tcp_sack = 1"),
        );
        assert_rule(
            "L06",
            &sysctl("net.core.somaxconn = 65535"),
            &sysctl("net.core.somaxconn = 4096"),
        );
        assert_rule(
            "L07",
            &sysctl("net.ipv4.tcp_slow_start_after_idle = 1"),
            &sysctl("net.ipv4.tcp_slow_start_after_idle = 0"),
        );
        let jumbo = |probing: u8| {
            let mut nics = Vec::new();
            ethtool::parse(
                "ip",
                "2: eth0: <UP> mtu 9000 qdisc mq\n",
                &mut nics,
                &mut Vec::new(),
            );
            Inputs {
                nics,
                ..sysctl(&format!("net.ipv4.tcp_mtu_probing = {probing}"))
            }
        };
        assert_rule("L08", &jumbo(0), &jumbo(1));
        assert_rule(
            "L09",
            &sysctl("net.ipv4.tcp_congestion_control = bbr\nnet.core.default_qdisc = fq_codel"),
            &sysctl("net.ipv4.tcp_congestion_control = bbr\nnet.core.default_qdisc = fq"),
        );
        assert_rule(
            "L10",
            &sysctl("vm.dirty_ratio = 80"),
            &sysctl("vm.dirty_ratio = 20"),
        );
        let big = |text: &str| Inputs {
            host: HostFacts {
                memory_bytes: Some(256 << 30),
                ..HostFacts::default()
            },
            ..sysctl(text)
        };
        assert_rule(
            "L10",
            &big("vm.dirty_ratio = 20\nvm.dirty_bytes = 0"),
            &big("vm.dirty_ratio = 0\nvm.dirty_bytes = 1073741824"),
        );
        let disk = |kb, rotational| {
            host(HostFacts {
                disk_readahead: vec![("sda".into(), kb, rotational)],
                ..HostFacts::default()
            })
        };
        assert_rule("L11", &disk(128, true), &disk(128, false));
        let limit = |n| {
            host(HostFacts {
                open_file_limits: vec![("ganesha.nfsd".into(), n)],
                ..HostFacts::default()
            })
        };
        assert_rule("L12", &limit(1024), &limit(1 << 20));
        assert_rule(
            "B01",
            &sysctl("net.inet.tcp.sendbuf_max: 2097152"),
            &sysctl("net.inet.tcp.sendbuf_max: 16777216"),
        );
        assert_rule(
            "B01",
            &sysctl("net.inet.tcp.recvbuf_max: 16777216\nkern.ipc.maxsockbuf: 8388608"),
            &sysctl("net.inet.tcp.recvbuf_max: 16777216\nkern.ipc.maxsockbuf: 33554432"),
        );
        assert_rule(
            "B02",
            &sysctl("net.inet.tcp.rfc1323: 0"),
            &sysctl("net.inet.tcp.rfc1323: 1"),
        );
        assert_rule(
            "B03",
            &sysctl("net.inet.tcp.recvspace: 4194304"),
            &sysctl("net.inet.tcp.recvspace: 65536"),
        );
        assert_rule(
            "B04",
            &sysctl("net.inet.tcp.delayed_ack: 0"),
            &sysctl("net.inet.tcp.delayed_ack: 1"),
        );
        assert_rule(
            "B05",
            &sysctl("kern.ipc.soacceptqueue: 4096"),
            &sysctl("kern.ipc.soacceptqueue: 128"),
        );
        assert_rule(
            "B06",
            &sysctl("kern.maxfiles: 1000\nkern.openfiles: 950"),
            &sysctl("kern.maxfiles: 1000\nkern.openfiles: 100"),
        );
        assert_rule(
            "B07",
            &sysctl("vfs.zfs.prefetch.disable: 1"),
            &sysctl("vfs.zfs.prefetch.disable: 0"),
        );
        assert_rule(
            "B08",
            &sysctl("vfs.nfsd.srvmaxio: 131072"),
            &sysctl("vfs.nfsd.srvmaxio: 1048576"),
        );
    }

    #[test]
    fn a_full_dump_lists_legacy_keys_without_blame() {
        let mut dump: String = (0..300).map(|i| format!("x.key{i} = 0\n")).collect();
        dump.push_str("net.ipv4.tcp_low_latency = 0\n");
        assert!(!ids(&sysctl(&dump)).contains(&"L05".to_string()));
        assert!(ids(&sysctl("net.ipv4.tcp_low_latency = 0")).contains(&"L05".to_string()));
    }

    #[test]
    fn window_limits_say_what_they_cost() {
        let advice = advise(&sysctl("net.ipv4.tcp_wmem = 4096 16384 1048576"));
        let l01 = &advice.findings[0];
        assert_eq!(l01.id, "L01");
        assert!(
            l01.detail.contains("1024 KiB at most: 0.84 Gbit/s"),
            "{}",
            l01.detail
        );
        let lowered = advise(&sysctl("net.core.somaxconn = 64"));
        assert_eq!(lowered.findings[0].severity, Severity::PerfMinor);
    }
}
