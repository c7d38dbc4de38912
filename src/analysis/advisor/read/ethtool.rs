//! NIC settings from saved command outputs: `ethtool` (link settings), `ethtool -k` (offloads),
//! `-g` (rings), `-l` (channels), `-c` (coalescing), `-a` (pause), `-S` (counters) and `ip link`
//! (MTU). Outputs are recognised by their headers, whatever the files are called and however
//! many are concatenated in one file.

use super::{Located, Note};
use std::collections::BTreeMap;
use std::path::Path;

/// What one interface's outputs say, keyed by `aspect.name`: `features.tcp-segmentation-offload`,
/// `rings.max.rx`, `rings.current.rx`, `channels.max.combined`, `coalesce.adaptive-rx`,
/// `pause.rx`, `settings.speed`, `stats.rx_missed_errors`, `link.mtu` (names lower case).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Nic {
    pub name: String,
    pub values: BTreeMap<String, (String, Located)>,
}

impl Nic {
    pub fn value(&self, key: &str) -> Option<&str> {
        self.values.get(key).map(|(v, _)| v.as_str())
    }

    pub fn at(&self, key: &str) -> Option<&Located> {
        self.values.get(key).map(|(_, at)| at)
    }

    /// The leading number of a value ("10000Mb/s" is 10000; "n/a" is none).
    pub fn number(&self, key: &str) -> Option<u64> {
        let value = self.value(key)?;
        let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    }

    /// A feature's state: Some(on) unless it is `[fixed]` (the driver allows no change).
    pub fn feature(&self, name: &str) -> Option<bool> {
        let value = self.value(&format!("features.{name}"))?;
        if value.contains("[fixed]") {
            return None;
        }
        Some(value.starts_with("on"))
    }
}

/// Headers that start an output, and the aspect their lines belong to.
const HEADERS: [(&str, &str); 6] = [
    ("Features for ", "features"),
    ("Ring parameters for ", "rings"),
    ("Channel parameters for ", "channels"),
    ("Coalesce parameters for ", "coalesce"),
    ("Pause parameters for ", "pause"),
    ("Settings for ", "settings"),
];

/// Reads every file in a directory.
pub fn read_dir(dir: &Path) -> Result<(Vec<Nic>, Vec<Note>), String> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read the ethtool directory {}: {e}", dir.display()))?;
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    let mut nics = Vec::new();
    let mut notes = Vec::new();
    for path in paths.iter().filter(|p| p.is_file()) {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        parse(&path.display().to_string(), &text, &mut nics, &mut notes);
    }
    Ok((nics, notes))
}

/// Adds what one output text says to `nics` (one entry per interface name).
pub fn parse(origin: &str, text: &str, nics: &mut Vec<Nic>, notes: &mut Vec<Note>) {
    let mut current: Option<(usize, &str)> = None;
    let mut subsection = "";
    for (index, raw) in text.lines().enumerate() {
        let at = Located::new(origin, index + 1, raw);
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some((name, aspect)) = header(line) {
            current = Some((nic_index(nics, name), aspect));
            subsection = "";
            continue;
        }
        if line == "NIC statistics:" {
            // -S names no interface: the counters belong to the one named last
            match current {
                Some((i, _)) => current = Some((i, "stats")),
                None => notes.push(Note {
                    at,
                    message: "counters without an interface: put them after its other outputs"
                        .into(),
                }),
            }
            continue;
        }
        if let Some((name, mtu)) = ip_link(line) {
            let i = nic_index(nics, name);
            nics[i].values.insert("link.mtu".into(), (mtu.into(), at));
            current = None;
            continue;
        }
        let Some((i, aspect)) = current else {
            continue;
        };
        match line {
            "Pre-set maximums:" => subsection = "max.",
            "Current hardware settings:" => subsection = "current.",
            _ => {}
        }
        if aspect == "coalesce" && line.starts_with("Adaptive RX:") {
            // "Adaptive RX: off  TX: off" holds two values
            let words: Vec<&str> = line.split_whitespace().collect();
            for pair in [("adaptive-rx", 2), ("adaptive-tx", 4)] {
                if let Some(v) = words.get(pair.1) {
                    let key = format!("coalesce.{}", pair.0);
                    nics[i].values.insert(key, (v.to_string(), at.clone()));
                }
            }
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let key = format!(
            "{aspect}.{subsection}{}",
            name.trim().to_ascii_lowercase().replace(' ', "-")
        );
        nics[i].values.insert(key, (value.trim().to_string(), at));
    }
}

fn header(line: &str) -> Option<(&str, &'static str)> {
    HEADERS.iter().find_map(|(prefix, aspect)| {
        let name = line.strip_prefix(prefix)?.trim_end_matches(':');
        Some((name, *aspect))
    })
}

/// `2: eth0: <BROADCAST,…> mtu 1500 qdisc …` → ("eth0", "1500").
fn ip_link(line: &str) -> Option<(&str, &str)> {
    let mut words = line.split_whitespace();
    let index = words.next()?;
    if !index.ends_with(':') || !index[..index.len() - 1].chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let name = words.next()?.trim_end_matches(':');
    let name = name.split('@').next().unwrap_or(name);
    let mut rest = words.skip_while(|w| *w != "mtu");
    rest.next()?;
    Some((name, rest.next()?))
}

fn nic_index(nics: &mut Vec<Nic>, name: &str) -> usize {
    if let Some(i) = nics.iter().position(|n| n.name == name) {
        return i;
    }
    nics.push(Nic {
        name: name.to_string(),
        values: BTreeMap::new(),
    });
    nics.len() - 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const OUTPUTS: &str = "Features for eth0:\nrx-checksumming: on\ntx-checksumming: off\n\
        \ttx-checksum-ipv4: off [fixed]\ntcp-segmentation-offload: off\n\
        large-receive-offload: off [fixed]\n\
        Channel parameters for eth0:\nPre-set maximums:\nRX:\t\tn/a\nCombined:\t8\n\
        Current hardware settings:\nRX:\t\tn/a\nCombined:\t1\n\n\
        Coalesce parameters for eth0:\nAdaptive RX: off  TX: on\nrx-usecs: 0\n\
        Settings for eth0:\n\tSpeed: 10000Mb/s\n\tAuto-negotiation: off\n\
        NIC statistics:\n     rx_missed_errors: 12\n\
        2: eth0@if7: <BROADCAST,MULTICAST,UP> mtu 9000 qdisc mq state UP\n    link/ether 00:11\n";

    #[test]
    fn outputs_are_told_apart_by_their_headers() {
        let mut nics = Vec::new();
        let mut notes = Vec::new();
        parse("eth0.txt", OUTPUTS, &mut nics, &mut notes);
        assert!(notes.is_empty());
        assert_eq!(nics.len(), 1);
        let nic = &nics[0];
        assert_eq!(nic.feature("tx-checksumming"), Some(false));
        assert_eq!(nic.feature("rx-checksumming"), Some(true));
        assert_eq!(nic.feature("large-receive-offload"), None, "fixed");
        assert_eq!(nic.number("channels.max.combined"), Some(8));
        assert_eq!(nic.number("channels.current.combined"), Some(1));
        assert_eq!(nic.value("channels.current.rx"), Some("n/a"));
        assert_eq!(nic.value("coalesce.adaptive-rx"), Some("off"));
        assert_eq!(nic.value("coalesce.adaptive-tx"), Some("on"));
        assert_eq!(nic.number("coalesce.rx-usecs"), Some(0));
        assert_eq!(nic.number("settings.speed"), Some(10000));
        assert_eq!(nic.value("settings.auto-negotiation"), Some("off"));
        assert_eq!(nic.number("stats.rx_missed_errors"), Some(12));
        assert_eq!(nic.number("link.mtu"), Some(9000));
        assert_eq!(nic.at("coalesce.rx-usecs").unwrap().line, 17);
    }

    #[test]
    fn counters_need_an_interface() {
        let mut nics = Vec::new();
        let mut notes = Vec::new();
        parse(
            "s.txt",
            "NIC statistics:\n rx_missed_errors: 1\n",
            &mut nics,
            &mut notes,
        );
        assert!(nics.is_empty());
        assert_eq!(notes.len(), 1);
    }
}
