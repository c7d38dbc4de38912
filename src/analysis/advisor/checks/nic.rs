//! The NIC rules (X01–X06), judged on ethtool and `ip link` outputs.

use super::super::read::ethtool::Nic;
use super::super::{Hit, Inputs, Severity};
use super::Check;

pub const CHECKS: &[(&str, Check)] = &[
    ("X01", x01),
    ("X02", x02),
    ("X03", x03),
    ("X04", x04),
    ("X05", x05),
    ("X06", x06),
];

/// A hit at the line that holds `key`, or without a line.
fn hit(nic: &Nic, key: &str, detail: String) -> Hit {
    match nic.at(key) {
        Some(at) => Hit::at(at, detail),
        None => Hit::unwritten(detail),
    }
}

fn x01(inputs: &Inputs) -> Vec<Hit> {
    let mtus: Vec<(&Nic, u64)> = inputs
        .nics
        .iter()
        .filter(|n| n.name != "lo")
        .filter_map(|n| n.number("link.mtu").map(|m| (n, m)))
        .collect();
    let Some(&(_, first)) = mtus.first() else {
        return Vec::new();
    };
    if mtus.iter().all(|&(_, m)| m == first) {
        return Vec::new();
    }
    let list: Vec<String> = mtus
        .iter()
        .map(|(n, m)| format!("{} {m}", n.name))
        .collect();
    let (nic, _) = mtus.iter().max_by_key(|&&(_, m)| m).expect("not empty");
    vec![hit(
        nic,
        "link.mtu",
        format!("MTUs differ: {}", list.join(", ")),
    )]
}

fn x02(inputs: &Inputs) -> Vec<Hit> {
    const OFFLOADS: [&str; 4] = [
        "tx-checksumming",
        "tcp-segmentation-offload",
        "generic-segmentation-offload",
        "generic-receive-offload",
    ];
    inputs
        .nics
        .iter()
        .flat_map(|n| {
            OFFLOADS
                .iter()
                .filter(|f| n.feature(f) == Some(false))
                .map(move |f| {
                    hit(
                        n,
                        &format!("features.{f}"),
                        format!("{f} off on {}", n.name),
                    )
                })
        })
        .collect()
}

fn x03(inputs: &Inputs) -> Vec<Hit> {
    let forwarding = inputs.sysctl.as_ref().is_some_and(|s| {
        ["net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"]
            .iter()
            .any(|k| s.number(k) == Some(1))
    });
    if !forwarding {
        return Vec::new();
    }
    inputs
        .nics
        .iter()
        .filter(|n| n.feature("large-receive-offload") == Some(true))
        .map(|n| {
            let detail = format!("LRO on {} while the host forwards packets", n.name);
            hit(n, "features.large-receive-offload", detail)
        })
        .collect()
}

fn x04(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = Vec::new();
    for n in &inputs.nics {
        if n.value("coalesce.adaptive-rx") == Some("off")
            && n.number("coalesce.rx-usecs") == Some(0)
        {
            let detail = format!(
                "{}: adaptive RX off and rx-usecs 0, an interrupt per packet",
                n.name
            );
            hits.push(hit(n, "coalesce.rx-usecs", detail));
        }
        let (max, current) = (n.number("rings.max.rx"), n.number("rings.current.rx"));
        let drops: u64 = n
            .values
            .iter()
            .filter(|(k, _)| {
                k.starts_with("stats.")
                    && ["missed", "no_buffer", "drop"]
                        .iter()
                        .any(|w| k.contains(w))
            })
            .filter_map(|(k, _)| n.number(k))
            .sum();
        if let (Some(max), Some(current)) = (max, current) {
            if current < max && drops > 0 {
                let detail = format!(
                    "{}: RX ring {current} of {max} while {drops} packets were dropped",
                    n.name
                );
                hits.push(hit(n, "rings.current.rx", detail));
            }
        }
    }
    hits
}

fn x05(inputs: &Inputs) -> Vec<Hit> {
    inputs
        .nics
        .iter()
        .filter_map(|n| {
            ["combined", "rx"].iter().find_map(|kind| {
                let max = n.number(&format!("channels.max.{kind}"))?;
                let key = format!("channels.current.{kind}");
                let current = n.number(&key)?;
                (current == 1 && max > 1).then(|| {
                    hit(
                        n,
                        &key,
                        format!("{}: 1 {kind} queue in use of {max}", n.name),
                    )
                })
            })
        })
        .collect()
}

fn x06(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = Vec::new();
    for n in &inputs.nics {
        let can = n.value("settings.supports-auto-negotiation") == Some("Yes");
        if can && n.value("settings.auto-negotiation") == Some("off") {
            let speed = n.value("settings.speed").unwrap_or("?");
            let detail = format!("{}: auto-negotiation forced off at {speed}", n.name);
            hits.push(hit(n, "settings.auto-negotiation", detail));
        }
        let pauses: u64 = n
            .values
            .keys()
            .filter(|k| k.starts_with("stats.") && k.contains("pause"))
            .filter_map(|k| n.number(k))
            .sum();
        if pauses > 0 {
            let detail = format!("{}: {pauses} pause frames counted", n.name);
            hits.push(Hit::unwritten(detail).severity(Severity::PerfMinor));
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::super::super::read::{ethtool, keyvalue};
    use super::super::super::Inputs;
    use super::super::fixtures::assert_rule;

    fn nic(text: &str) -> Inputs {
        let mut nics = Vec::new();
        ethtool::parse("ethtool.txt", text, &mut nics, &mut Vec::new());
        Inputs {
            nics,
            ..Inputs::default()
        }
    }

    #[test]
    fn every_nic_rule_applies_to_one_configuration_and_not_to_another() {
        assert_rule(
            "X01",
            &nic("2: eth0: <UP> mtu 9000 qdisc mq\n3: eth1: <UP> mtu 1500 qdisc mq\n"),
            &nic("1: lo: <LOOPBACK> mtu 65536\n2: eth0: <UP> mtu 1500 qdisc mq\n"),
        );
        assert_rule(
            "X02",
            &nic("Features for eth0:\ngeneric-receive-offload: off\n"),
            &nic("Features for eth0:\ngeneric-receive-offload: on\nlarge-receive-offload: off [fixed]\n"),
        );
        let forwarding = |lro: &str| Inputs {
            sysctl: Some(keyvalue::parse_sysctl("s", "net.ipv4.ip_forward = 1")),
            ..nic(&format!(
                "Features for eth0:\nlarge-receive-offload: {lro}\n"
            ))
        };
        assert_rule("X03", &forwarding("on"), &forwarding("off"));
        assert_rule(
            "X04",
            &nic("Coalesce parameters for eth0:\nAdaptive RX: off  TX: off\nrx-usecs: 0\n"),
            &nic("Coalesce parameters for eth0:\nAdaptive RX: on  TX: on\nrx-usecs: 0\n"),
        );
        let rings = |missed: u64| {
            nic(&format!(
                "Ring parameters for eth0:\nPre-set maximums:\nRX:\t4096\nCurrent hardware settings:\n\
                 RX:\t512\nNIC statistics:\n rx_missed_errors: {missed}\n"
            ))
        };
        assert_rule("X04", &rings(40), &rings(0));
        let channels = |current: u32| {
            nic(&format!(
                "Channel parameters for eth0:\nPre-set maximums:\nRX:\tn/a\nCombined:\t8\n\
                 Current hardware settings:\nRX:\tn/a\nCombined:\t{current}\n"
            ))
        };
        assert_rule("X05", &channels(1), &channels(8));
        let settings = |supports: &str| {
            nic(&format!(
                "Settings for eth0:\n\tSupports auto-negotiation: {supports}\n\tSpeed: 1000Mb/s\n\
                 \tAuto-negotiation: off\n"
            ))
        };
        assert_rule("X06", &settings("Yes"), &settings("No"));
        assert_rule(
            "X06",
            &nic("Settings for eth0:\nNIC statistics:\n rx_pause_frames: 7\n"),
            &nic("Settings for eth0:\nNIC statistics:\n rx_pause_frames: 0\n"),
        );
    }
}
