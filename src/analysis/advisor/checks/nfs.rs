//! The NFS client's rules (N01–N10), judged on mount options, and knfsd's (K01–K05), judged on
//! exports, nfs.conf, the running nfsd and the sysctls around it.

use super::super::read::exports::Client;
use super::super::read::mounts::Mount;
use super::super::read::{boolean, number};
use super::super::{Hit, Inputs, Severity};
use super::Check;

pub const CHECKS: &[(&str, Check)] = &[
    ("N01", n01),
    ("N02", n02),
    ("N03", n03),
    ("N04", n04),
    ("N05", n05),
    ("N06", n06),
    ("N07", n07),
    ("N08", n08),
    ("N09", n09),
    ("N10", n10),
    ("K01", k01),
    ("K02", k02),
    ("K03", k03),
    ("K04", k04),
    ("K05", k05),
];

fn udp(mount: &Mount) -> bool {
    mount.has("udp") || mount.value("proto").is_some_and(|p| p.starts_with("udp"))
}

/// A hit on every mount where `bad` says something.
fn mounts_where(inputs: &Inputs, bad: impl Fn(&Mount) -> Option<String>) -> Vec<Hit> {
    inputs
        .mounts
        .iter()
        .filter_map(|m| bad(m).map(|what| Hit::at(&m.at, format!("{what} on {}", m.name()))))
        .collect()
}

fn n01(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| {
        if udp(m) {
            return None;
        }
        let small: Vec<String> = ["rsize", "wsize"]
            .iter()
            .filter_map(|k| {
                let v = m.value(k)?;
                (number(v)? <= 32768).then(|| format!("{k}={v}"))
            })
            .collect();
        (!small.is_empty()).then(|| small.join(","))
    })
}

fn n02(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| udp(m).then(|| "NFS over UDP".to_string()))
}

fn n03(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| {
        let soft = ["soft", "softerr"].into_iter().find(|o| m.has(o))?;
        m.read_write()
            .then(|| format!("{soft} on a read-write mount"))
    })
}

fn n04(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| {
        let timeo = m.value("timeo")?;
        (!udp(m) && number(timeo)? < 600).then(|| format!("timeo={timeo} over TCP"))
    })
}

fn n05(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = mounts_where(inputs, |m| m.has("noac").then(|| "noac".to_string()));
    hits.extend(
        mounts_where(inputs, |m| {
            let zero: Vec<String> = ["actimeo", "acregmin", "acregmax", "acdirmin", "acdirmax"]
                .iter()
                .filter(|k| m.value(k).and_then(number) == Some(0))
                .map(|k| format!("{k}=0"))
                .chain(
                    (m.value("lookupcache") == Some("none"))
                        .then(|| "lookupcache=none".to_string()),
                )
                .collect();
            (!zero.is_empty()).then(|| zero.join(","))
        })
        .into_iter()
        .map(|h| h.severity(Severity::PerfMinor)),
    );
    hits
}

fn n06(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| m.has("sync").then(|| "sync".to_string()))
}

fn n07(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| {
        (m.has("nocto") && m.read_write()).then(|| "nocto on a read-write mount".to_string())
    })
}

/// The host's NICs offer several queues or 10 GbE and more (as ethtool or `--local` say).
fn wide_nic(inputs: &Inputs) -> Option<String> {
    inputs.nics.iter().find_map(|n| {
        let queues = ["channels.max.combined", "channels.max.rx"]
            .iter()
            .filter_map(|k| n.number(k))
            .max()
            .unwrap_or(1);
        let speed = n.number("settings.speed").unwrap_or(0);
        (queues > 1 || speed >= 10_000)
            .then(|| format!("{} has {queues} queue(s) at {speed} Mb/s", n.name))
    })
}

fn n08(inputs: &Inputs) -> Vec<Hit> {
    let Some(nic) = wide_nic(inputs) else {
        return Vec::new();
    };
    mounts_where(inputs, |m| {
        (!m.has("nconnect")).then(|| format!("one connection per server ({nic})"))
    })
}

fn n09(inputs: &Inputs) -> Vec<Hit> {
    inputs
        .host
        .nfs_readahead
        .iter()
        .filter(|(_, kb)| *kb <= 128)
        .map(|(point, kb)| Hit::unwritten(format!("readahead of {point} is {kb} KiB")))
        .collect()
}

fn n10(inputs: &Inputs) -> Vec<Hit> {
    mounts_where(inputs, |m| {
        ["intr", "nointr"]
            .into_iter()
            .find(|o| m.has(o))
            .map(str::to_string)
    })
}

/// knfsd's threads below this wait on each other under load.
const NFSD_THREADS: u64 = 16;

fn k01(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = Vec::new();
    if let Some(conf) = &inputs.nfs_conf {
        if let Some(s) = conf.get("nfsd.threads") {
            if number(&s.value).is_some_and(|n| n < NFSD_THREADS) {
                hits.push(Hit::at(&s.at, format!("{} nfsd threads", s.value)));
            }
        }
    }
    if let Some(threads) = inputs
        .host
        .nfsd_threads
        .filter(|t| (1..NFSD_THREADS).contains(t))
    {
        hits.push(Hit::unwritten(format!("nfsd runs {threads} threads")));
    }
    hits
}

/// A hit for every export and client whose options make `bad` true.
fn exports_where(inputs: &Inputs, bad: impl Fn(&Client) -> bool, what: &str) -> Vec<Hit> {
    inputs
        .exports
        .iter()
        .flat_map(|e| {
            e.clients
                .iter()
                .filter(|c| bad(c))
                .map(|c| Hit::at(&e.at, format!("{} exported {what} to {}", e.path, c.host)))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn k02(inputs: &Inputs) -> Vec<Hit> {
    exports_where(inputs, |c| c.has("async") && c.read_write(), "async and rw")
}

fn k03(inputs: &Inputs) -> Vec<Hit> {
    exports_where(
        inputs,
        |c| c.has("no_wdelay") && !c.has("async"),
        "no_wdelay",
    )
}

fn k04(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.nfs_conf else {
        return Vec::new();
    };
    conf.get("nfsd.udp")
        .filter(|s| boolean(&s.value) == Some(true))
        .map(|s| Hit::at(&s.at, format!("[nfsd] udp = {}", s.value)))
        .into_iter()
        .collect()
}

/// The kernel's own default for net.core.{r,w}mem_{default,max} on x86-64.
pub const CORE_BUFFER_DEFAULT: u64 = 212_992;

/// The machine serves NFS with knfsd: it exports something, or nfsd runs. (nfs.conf alone
/// does not say so: NFS clients have one too.)
pub fn serves_knfsd(inputs: &Inputs) -> bool {
    !inputs.exports.is_empty() || inputs.host.nfsd_threads.is_some_and(|t| t > 0)
}

/// net.core buffer sysctls raised above the kernel's default.
pub fn raised_core_buffers(inputs: &Inputs, keys: &[&str]) -> Vec<Hit> {
    let Some(sysctl) = &inputs.sysctl else {
        return Vec::new();
    };
    keys.iter()
        .filter_map(|k| sysctl.get(k))
        .filter(|s| number(&s.value).is_some_and(|n| n > CORE_BUFFER_DEFAULT))
        .map(|s| Hit::at(&s.at, format!("{} = {}", s.key, s.value)))
        .collect()
}

fn k05(inputs: &Inputs) -> Vec<Hit> {
    if !serves_knfsd(inputs) {
        return Vec::new();
    }
    raised_core_buffers(inputs, &["net.core.rmem_default", "net.core.rmem_max"])
}

#[cfg(test)]
mod tests {
    use super::super::super::read::{ethtool, exports, keyvalue, mounts};
    use super::super::super::{advise, HostFacts, Inputs, Severity};
    use super::super::fixtures::assert_rule;

    fn mount(options: &str) -> Inputs {
        let (m, _) = mounts::parse_table("fstab", &format!("filer:/x /mnt nfs {options} 0 0"));
        Inputs {
            mounts: m,
            ..Inputs::default()
        }
    }

    fn exported(line: &str) -> Inputs {
        Inputs {
            exports: exports::parse("exports", line).0,
            ..Inputs::default()
        }
    }

    fn nfs_conf(text: &str) -> Inputs {
        Inputs {
            nfs_conf: Some(keyvalue::parse_ini("nfs.conf", text)),
            ..Inputs::default()
        }
    }

    #[test]
    fn every_nfs_rule_applies_to_one_configuration_and_not_to_another() {
        assert_rule(
            "N01",
            &mount("rsize=8192,wsize=8192"),
            &mount("rsize=1048576"),
        );
        assert_rule("N02", &mount("proto=udp"), &mount("proto=tcp"));
        assert_rule("N03", &mount("rw,soft"), &mount("ro,soft"));
        assert_rule("N04", &mount("timeo=14"), &mount("timeo=600"));
        assert_rule("N05", &mount("noac"), &mount("actimeo=30"));
        assert_rule("N06", &mount("sync"), &mount("async"));
        assert_rule("N07", &mount("nocto"), &mount("ro,nocto"));
        assert_rule("N10", &mount("intr"), &mount("hard"));
        let mut nics = Vec::new();
        ethtool::parse(
            "e",
            "Channel parameters for eth0:\nPre-set maximums:\nCombined:\t8\n",
            &mut nics,
            &mut Vec::new(),
        );
        let with_nic = |options: &str| Inputs {
            nics: nics.clone(),
            ..mount(options)
        };
        assert_rule("N08", &with_nic("hard"), &with_nic("nconnect=4"));
        let readahead = |kb: u64| Inputs {
            host: HostFacts {
                nfs_readahead: vec![("/mnt".into(), kb)],
                ..HostFacts::default()
            },
            ..Inputs::default()
        };
        assert_rule("N09", &readahead(128), &readahead(1024));
        assert_rule(
            "K01",
            &nfs_conf("[nfsd]\nthreads = 8\n"),
            &nfs_conf("[nfsd]\nthreads = 64\n"),
        );
        let threads = |n: u64| Inputs {
            host: HostFacts {
                nfsd_threads: Some(n),
                ..HostFacts::default()
            },
            ..Inputs::default()
        };
        assert_rule("K01", &threads(8), &threads(16));
        assert_rule(
            "K02",
            &exported("/srv *(rw,async)"),
            &exported("/srv *(ro,async)"),
        );
        assert_rule(
            "K03",
            &exported("/srv *(rw,no_wdelay)"),
            &exported("/srv *(rw,wdelay)"),
        );
        assert_rule(
            "K04",
            &nfs_conf("[nfsd]\nudp=y\n"),
            &nfs_conf("[nfsd]\nudp=n\n"),
        );
        let buffers = |exports_given: bool| Inputs {
            sysctl: Some(keyvalue::parse_sysctl("s", "net.core.rmem_max = 8388608")),
            ..if exports_given {
                exported("/srv *(rw)")
            } else {
                Inputs::default()
            }
        };
        assert_rule("K05", &buffers(true), &buffers(false));
    }

    #[test]
    fn noac_is_critical_and_zero_timers_minor() {
        let advice = advise(&mount("noac,actimeo=0"));
        let severities: Vec<Severity> = advice
            .findings
            .iter()
            .filter(|f| f.id == "N05")
            .map(|f| f.severity)
            .collect();
        assert_eq!(severities, [Severity::PerfCritical, Severity::PerfMinor]);
    }

    #[test]
    fn the_classic_nfs_howto_mount() {
        let advice = advise(&mount("rw,rsize=8192,wsize=8192,timeo=14,intr,soft"));
        let ids: Vec<&str> = advice.findings.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids, ["N03", "N01", "N04", "N10"]);
        let n01 = &advice.findings[1];
        assert_eq!(n01.detail, "rsize=8192,wsize=8192 on /mnt");
        assert_eq!(
            n01.sweep.as_deref(),
            Some("sharebench sweep nfs://filer/x?version=4.1 --vary \"nfs:rsize=65536,131072,262144,524288,1048576\" --tests read --file-size 1G")
        );
    }
}
