//! Samba's rules (S01–S28), judged on smb.conf choices, the Samba release's defaults where they
//! changed, and facts of the host (`--local`).

use super::super::read::smb::{default_of, removed_in, Param, SambaVersion, Section, SmbConf};
use super::super::read::{boolean, number};
use super::super::{Hit, Inputs, Severity};
use super::Check;

pub const CHECKS: &[(&str, Check)] = &[
    ("S01", s01),
    ("S02", s02),
    ("S03", s03),
    ("S04", s04),
    ("S05", s05),
    ("S06", s06),
    ("S07", s07),
    ("S08", s08),
    ("S09", s09),
    ("S10", s10),
    ("S11", s11),
    ("S12", s12),
    ("S13", s13),
    ("S14", s14),
    ("S15", s15),
    ("S16", s16),
    ("S17", s17),
    ("S18", s18),
    ("S19", s19),
    ("S20", s20),
    ("S21", s21),
    ("S22", s22),
    ("S23", s23),
    ("S24", s24),
    ("S25", s25),
    ("S26", s26),
    ("S27", s27),
    ("S28", s28),
];

/// "in [share]" for findings.
fn place(section: &Section) -> String {
    format!("in [{}]", section.name)
}

/// Every choice of the parameters whose value makes `bad` true, as hits.
fn choices_where(
    inputs: &Inputs,
    names: &[&str],
    bad: impl Fn(&str) -> bool,
    detail: impl Fn(&Section, &Param) -> String,
) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    names
        .iter()
        .flat_map(|name| conf.choices(name))
        .filter(|(_, p)| bad(&p.value))
        .map(|(s, p)| Hit::at(&p.at, detail(s, p)))
        .collect()
}

fn is_yes(value: &str) -> bool {
    boolean(value) == Some(true)
}

fn is_no(value: &str) -> bool {
    boolean(value) == Some(false)
}

/// When no section chooses the parameter and the release is older than `since`, its default
/// then was `old`: a finding without a line.
fn old_default(inputs: &Inputs, name: &str, since: SambaVersion, old: &str) -> Option<Hit> {
    let conf = inputs.samba.as_ref()?;
    let version = inputs.samba_version?;
    if version >= since || conf.choices(name).next().is_some() {
        return None;
    }
    Some(Hit::unwritten(format!(
        "{name} is not set, and Samba {version}'s default is {old} (the default changed in {}.{})",
        since.major, since.minor
    )))
}

fn s01(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    if let Some(p) = conf.chosen(conf.global(), "log level") {
        // "3 smb:5 auth:10": a level for all classes, then class:level pairs
        let mut all = 0;
        let mut class = 0;
        for word in p.value.split_whitespace() {
            match word.split_once(':') {
                Some((_, level)) => class = class.max(number(level).unwrap_or(0)),
                None => all = all.max(number(word).unwrap_or(0)),
            }
        }
        let top = all.max(class);
        if all >= 3 || class >= 5 {
            let hit = Hit::at(&p.at, format!("log level {} (up to {top})", p.value));
            hits.push(if top >= 10 {
                hit.severity(Severity::PerfCritical)
            } else {
                hit
            });
        }
    }
    hits
}

/// The socket options words, upper case, without their values.
fn socket_words(value: &str) -> Vec<String> {
    value
        .split_whitespace()
        .map(|w| w.split('=').next().unwrap_or(w).to_ascii_uppercase())
        .collect()
}

fn s02(inputs: &Inputs) -> Vec<Hit> {
    const BUFFERS: [&str; 4] = ["SO_SNDBUF", "SO_RCVBUF", "SO_SNDLOWAT", "SO_RCVLOWAT"];
    choices_where(
        inputs,
        &["socket options"],
        |v| {
            socket_words(v)
                .iter()
                .any(|w| BUFFERS.contains(&w.as_str()))
        },
        |_, p| format!("socket options = {} fixes the socket buffers", p.value),
    )
}

fn s03(inputs: &Inputs) -> Vec<Hit> {
    const NO_EFFECT: [&str; 3] = ["SO_KEEPALIVE", "IPTOS_LOWDELAY", "IPTOS_THROUGHPUT"];
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for (_, p) in conf.choices("socket options") {
        let words = socket_words(&p.value);
        if !words.iter().any(|w| w == "TCP_NODELAY") {
            let detail = format!(
                "socket options = {} drops the default TCP_NODELAY, so Nagle's delay is back",
                p.value
            );
            hits.push(Hit::at(&p.at, detail));
            continue;
        }
        let idle: Vec<&String> = words
            .iter()
            .filter(|w| NO_EFFECT.contains(&w.as_str()))
            .collect();
        let only_defaults = words
            .iter()
            .all(|w| w == "TCP_NODELAY" || NO_EFFECT.contains(&w.as_str()));
        if only_defaults || !idle.is_empty() {
            let what = if idle.is_empty() {
                "TCP_NODELAY is already the default".to_string()
            } else {
                let names: Vec<&str> = idle.iter().map(|w| w.as_str()).collect();
                format!(
                    "{}: no effect on throughput; TCP_NODELAY is already the default",
                    names.join(", ")
                )
            };
            hits.push(Hit::at(&p.at, what).severity(Severity::Obsolete));
        }
    }
    hits
}

/// Every choice of these parameters, whatever the value, as obsolete lines.
fn any_choice(inputs: &Inputs, names: &[&str]) -> Vec<Hit> {
    choices_where(
        inputs,
        names,
        |_| true,
        |s, p| {
            let removed = removed_in(&p.name)
                .map(|v| format!(", a parameter removed in Samba {v}"))
                .unwrap_or_default();
            format!("{} = {} {}{removed}", p.name, p.value, place(s))
        },
    )
}

fn s04(inputs: &Inputs) -> Vec<Hit> {
    any_choice(inputs, &["read raw", "write raw"])
}

fn s05(inputs: &Inputs) -> Vec<Hit> {
    any_choice(
        inputs,
        &[
            "max xmit",
            "max mux",
            "keepalive",
            "read bmpx",
            "large readwrite",
        ],
    )
}

fn s06(inputs: &Inputs) -> Vec<Hit> {
    any_choice(
        inputs,
        &["read size", "read prediction", "write cache size"],
    )
}

/// SMB dialect names in order, as Samba spells them.
fn dialect_rank(value: &str) -> Option<usize> {
    const ORDER: [&str; 12] = [
        "CORE", "COREPLUS", "LANMAN1", "LANMAN2", "NT1", "SMB2", "SMB2_02", "SMB2_10", "SMB3",
        "SMB3_00", "SMB3_02", "SMB3_11",
    ];
    let value = value.trim().to_ascii_uppercase();
    ORDER.iter().position(|d| *d == value)
}

const NT1: usize = 4;
const SMB3: usize = 8;

fn s07(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(
        inputs,
        &["server min protocol"],
        |v| dialect_rank(v).is_some_and(|r| r <= NT1),
        |_, p| format!("server min protocol = {} lets SMB1 clients in", p.value),
    );
    hits.extend(old_default(
        inputs,
        "server min protocol",
        SambaVersion::new(4, 11),
        "LANMAN1",
    ));
    hits
}

fn s08(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(
        inputs,
        &["server max protocol"],
        |v| dialect_rank(v).is_some_and(|r| r < SMB3),
        |_, p| {
            format!(
                "server max protocol = {}: no multichannel{}",
                p.value,
                if dialect_rank(&p.value).is_some_and(|r| r <= 6) {
                    ", no leases, no transfers above 64 KiB"
                } else {
                    ""
                }
            )
        },
    );
    hits.extend(choices_where(
        inputs,
        &["smb ports"],
        // 139 is NetBIOS; any other port (445, or a test port) is direct SMB
        |v| v.split_whitespace().all(|p| p == "139"),
        |_, p| {
            format!(
                "smb ports = {}: NetBIOS only, requests capped at 64 KiB",
                p.value
            )
        },
    ));
    hits
}

fn s09(inputs: &Inputs) -> Vec<Hit> {
    choices_where(
        inputs,
        &["smb2 max read", "smb2 max write", "smb2 max trans"],
        |v| number(v).is_some_and(|n| n < 1 << 20),
        |_, p| format!("{} = {} is below 1 MiB", p.name, p.value),
    )
}

/// The NICs show several queues, two or more ports, or 10 GbE.
fn several_lanes(inputs: &Inputs) -> bool {
    let ports = inputs.nics.iter().filter(|n| n.name != "lo").count();
    ports >= 2
        || inputs.nics.iter().any(|n| {
            ["channels.max.combined", "channels.max.rx"]
                .iter()
                .any(|k| n.number(k).is_some_and(|q| q > 1))
                || n.number("settings.speed").is_some_and(|s| s >= 10_000)
        })
}

fn s10(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(inputs, &["server multi channel support"], is_no, |_, p| {
        format!("server multi channel support = {}", p.value)
    });
    hits.extend(old_default(
        inputs,
        "server multi channel support",
        SambaVersion::new(4, 15),
        "no",
    ));
    if several_lanes(inputs) {
        hits = hits
            .into_iter()
            .map(|h| {
                let detail = format!("{}, on a host with several NIC queues or ports", h.detail);
                Hit { detail, ..h }.severity(Severity::PerfCritical)
            })
            .collect();
    }
    hits
}

fn s11(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(
        inputs,
        &["aio read size", "aio write size"],
        |v| number(v) == Some(0),
        |s, p| format!("{} = 0 {}: synchronous I/O", p.name, place(s)),
    );
    for name in ["aio read size", "aio write size"] {
        hits.extend(old_default(inputs, name, SambaVersion::new(4, 8), "0"));
    }
    hits
}

fn s12(inputs: &Inputs) -> Vec<Hit> {
    choices_where(
        inputs,
        &["aio write behind"],
        |v| !v.trim().is_empty(),
        |s, p| format!("aio write behind = {} {}", p.value, place(s)),
    )
}

/// Signing mandatory or encryption required for this share (or all of them).
fn signed_or_sealed(conf: &SmbConf, share: &Section) -> bool {
    let signing = conf.in_share(share, "server signing").is_some_and(|p| {
        matches!(
            p.value.to_ascii_lowercase().as_str(),
            "mandatory" | "required"
        )
    });
    let sealing = conf.in_share(share, "server smb encrypt").is_some_and(|p| {
        matches!(
            p.value.to_ascii_lowercase().as_str(),
            "required" | "mandatory" | "force"
        )
    });
    signing || sealing
}

/// Sections where `name` is chosen, paired with the shares it governs.
fn per_share<'a>(conf: &'a SmbConf, name: &'a str) -> Vec<(&'a Section, &'a Param)> {
    let shares: Vec<&Section> = conf.shares().collect();
    if shares.is_empty() {
        return conf
            .chosen(conf.global(), name)
            .map(|p| (conf.global(), p))
            .into_iter()
            .collect();
    }
    shares
        .into_iter()
        .filter_map(|s| conf.in_share(s, name).map(|p| (s, p)))
        .collect()
}

fn s13(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    let mut seen = Vec::new();
    for (share, p) in per_share(conf, "use sendfile") {
        if seen.contains(&p.at) {
            continue;
        }
        if is_yes(&p.value) && signed_or_sealed(conf, share) {
            seen.push(p.at.clone());
            let detail = format!(
                "use sendfile = yes {}, where signing or encryption is required: no effect",
                place(share)
            );
            hits.push(Hit::at(&p.at, detail));
        } else if is_no(&p.value) && !signed_or_sealed(conf, share) {
            seen.push(p.at.clone());
            let detail = format!("use sendfile = no {}, an unsigned share", place(share));
            hits.push(Hit::at(&p.at, detail));
        }
    }
    hits
}

fn s14(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits: Vec<Hit> = Vec::new();
    for (share, p) in per_share(conf, "min receivefile size") {
        let on = number(&p.value).is_some_and(|n| n > 0);
        if on && signed_or_sealed(conf, share) && !hits.iter().any(|h| h.at.as_ref() == Some(&p.at))
        {
            let detail = format!(
                "min receivefile size = {} {}, where signing or encryption is required: no effect",
                p.value,
                place(share)
            );
            hits.push(Hit::at(&p.at, detail));
        }
    }
    hits
}

fn s15(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(inputs, &["strict sync"], is_no, |s, p| {
        format!(
            "strict sync = {} {}: flushes are ignored",
            p.value,
            place(s)
        )
    });
    hits.extend(old_default(
        inputs,
        "strict sync",
        SambaVersion::new(4, 7),
        "no",
    ));
    hits
}

fn s16(inputs: &Inputs) -> Vec<Hit> {
    choices_where(inputs, &["sync always"], is_yes, |s, p| {
        format!("sync always = {} {}", p.value, place(s))
    })
}

fn s17(inputs: &Inputs) -> Vec<Hit> {
    choices_where(inputs, &["oplocks", "level2 oplocks"], is_no, |s, p| {
        format!("{} = {} {}", p.name, p.value, place(s))
    })
}

fn s18(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(
        inputs,
        &["kernel oplocks", "kernel share modes"],
        is_yes,
        |s, p| format!("{} = {} {}", p.name, p.value, place(s)),
    );
    hits.extend(old_default(
        inputs,
        "kernel share modes",
        SambaVersion::new(4, 16),
        "yes",
    ));
    hits
}

fn s19(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(inputs, &["smb2 leases"], is_no, |_, p| {
        format!("smb2 leases = {}", p.value)
    });
    hits.extend(old_default(
        inputs,
        "smb2 leases",
        SambaVersion::new(4, 5),
        "no",
    ));
    hits
}

fn s20(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits: Vec<Hit> = Vec::new();
    for (share, p) in per_share(conf, "fake oplocks") {
        let writable = conf
            .in_share(share, "read only")
            .is_some_and(|r| is_no(&r.value));
        if is_yes(&p.value) && writable && !hits.iter().any(|h| h.at.as_ref() == Some(&p.at)) {
            let detail = format!(
                "fake oplocks = yes reaches [{}], a writable share",
                share.name
            );
            hits.push(Hit::at(&p.at, detail));
        }
    }
    hits
}

fn s21(inputs: &Inputs) -> Vec<Hit> {
    choices_where(inputs, &["strict locking"], is_yes, |s, p| {
        format!("strict locking = {} {}", p.value, place(s))
    })
}

fn s22(inputs: &Inputs) -> Vec<Hit> {
    const MANY: usize = 8;
    let patterns = |v: &str| v.split('/').filter(|p| !p.trim().is_empty()).count();
    choices_where(
        inputs,
        &["hide files", "veto files"],
        |v| patterns(v) >= MANY,
        |s, p| {
            format!(
                "{} lists {} patterns {}",
                p.name,
                patterns(&p.value),
                place(s)
            )
        },
    )
}

/// Entries from which a case-insensitive directory scan hurts.
const HUGE_DIRECTORY: u64 = 100_000;

fn s23(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    for (name, entries) in &inputs.host.share_entries {
        let Some(share) = conf.shares().find(|s| s.name.eq_ignore_ascii_case(name)) else {
            continue;
        };
        if *entries < HUGE_DIRECTORY {
            continue;
        }
        let setting = conf.in_share(share, "case sensitive");
        if setting.is_some_and(|p| is_yes(&p.value)) {
            continue;
        }
        let detail = format!(
            "[{name}]'s directory holds {entries} entries or more and case sensitive is {}",
            setting.map_or("auto (the default)", |p| p.value.as_str())
        );
        hits.push(match setting {
            Some(p) => Hit::at(&p.at, detail),
            None => Hit::unwritten(detail),
        });
    }
    hits
}

fn s24(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(inputs, &["wide links"], is_yes, |s, p| {
        format!("wide links = {} {}", p.value, place(s))
    });
    hits.extend(
        any_choice(inputs, &["getwd cache"])
            .into_iter()
            .map(|h| h.severity(Severity::Obsolete)),
    );
    hits
}

fn s25(inputs: &Inputs) -> Vec<Hit> {
    const EXTENTS: [&str; 4] = ["xfs", "ext4", "btrfs", "ocfs2"];
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    let mut hits: Vec<Hit> = Vec::new();
    for (share, p) in per_share(conf, "strict allocate") {
        if !is_yes(&p.value) {
            continue;
        }
        let fs = inputs
            .host
            .share_filesystems
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(&share.name))
            .map(|(_, fs)| fs.as_str());
        let detail = match fs {
            Some(fs) if EXTENTS.contains(&fs) => continue,
            Some(fs) => format!(
                "strict allocate = yes on [{}], a {fs} filesystem",
                share.name
            ),
            None => format!(
                "strict allocate = yes on [{}], whose filesystem is not known here",
                share.name
            ),
        };
        hits.push(Hit::at(&p.at, detail));
    }
    hits
}

fn s26(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(
        inputs,
        &["server signing"],
        |v| matches!(v.to_ascii_lowercase().as_str(), "mandatory" | "required"),
        |_, p| format!("server signing = {}", p.value),
    );
    hits.extend(choices_where(
        inputs,
        &["server smb encrypt"],
        |v| {
            matches!(
                v.to_ascii_lowercase().as_str(),
                "required" | "mandatory" | "force"
            )
        },
        |s, p| format!("{} = {} {}", p.name, p.value, place(s)),
    ));
    hits
}

/// What one smbd needs: its default open-file limit.
const SMBD_OPEN_FILES: u64 = 16384;

fn s27(inputs: &Inputs) -> Vec<Hit> {
    let mut hits = choices_where(
        inputs,
        &["max open files"],
        |v| number(v).is_some_and(|n| n < SMBD_OPEN_FILES),
        |_, p| format!("max open files = {}", p.value),
    );
    if inputs.samba.is_some() {
        for (daemon, limit) in &inputs.host.open_file_limits {
            if daemon == "smbd" && *limit < SMBD_OPEN_FILES {
                hits.push(Hit::unwritten(format!(
                    "smbd runs with a hard limit of {limit} open files"
                )));
            }
        }
    }
    hits
}

fn s28(inputs: &Inputs) -> Vec<Hit> {
    let Some(conf) = &inputs.samba else {
        return Vec::new();
    };
    // writing the default is harmless; only a change is the old advice
    ["lpq cache time", "deadtime", "use mmap"]
        .iter()
        .flat_map(|name| conf.choices(name))
        .filter(|(_, p)| default_of(&p.name).is_none_or(|d| !d.eq_ignore_ascii_case(&p.value)))
        .map(|(s, p)| Hit::at(&p.at, format!("{} = {} {}", p.name, p.value, place(s))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::read::ethtool;
    use super::super::super::read::smb::SambaVersion;
    use super::super::super::{advise, HostFacts, Inputs, Severity};
    use super::super::fixtures::{assert_rule, ids, smb};

    fn versioned(text: &str, version: &str) -> Inputs {
        Inputs {
            samba_version: Some(SambaVersion::parse(version).unwrap()),
            ..smb(text)
        }
    }

    #[test]
    fn every_samba_rule_applies_to_one_configuration_and_not_to_another() {
        let g = |body: &str| smb(&format!("[global]\n{body}\n[data]\n path = /srv\n"));
        assert_rule("S01", &g("log level = 1 smb:5"), &g("log level = 1 smb:3"));
        assert_rule(
            "S02",
            &g("socket options = TCP_NODELAY SO_RCVBUF=8192"),
            &g("socket options = TCP_NODELAY"),
        );
        assert_rule(
            "S03",
            &g("socket options = SO_KEEPALIVE"),
            &g("workgroup = X"),
        );
        assert_rule("S04", &g("write raw = no"), &g("workgroup = X"));
        assert_rule("S05", &g("max mux = 50"), &g("smb2 max credits = 8192"));
        assert_rule("S06", &g("write cache size = 262144"), &g("workgroup = X"));
        assert_rule(
            "S07",
            &g("min protocol = NT1"),
            &g("server min protocol = SMB2_10"),
        );
        assert_rule(
            "S08",
            &g("max protocol = SMB2"),
            &g("server max protocol = SMB3_11"),
        );
        assert_rule("S09", &g("smb2 max read = 65536"), &g("smb2 max read = 8M"));
        assert_rule(
            "S10",
            &g("server multi channel support = no"),
            &g("server multi channel support = yes"),
        );
        assert_rule(
            "S11",
            &smb("[data]\n aio read size = 0\n"),
            &smb("[data]\n aio read size = 1\n"),
        );
        assert_rule(
            "S12",
            &smb("[data]\n aio write behind = /*.tmp/\n"),
            &smb("[data]\n aio write behind =\n"),
        );
        assert_rule(
            "S13",
            &g("server signing = mandatory\n use sendfile = yes"),
            &g("use sendfile = yes"),
        );
        assert_rule(
            "S14",
            &g("smb encrypt = required\n min receivefile size = 16384"),
            &g("min receivefile size = 16384"),
        );
        assert_rule(
            "S15",
            &smb("[data]\n strict sync = no\n"),
            &smb("[data]\n strict sync = yes\n"),
        );
        assert_rule(
            "S16",
            &smb("[data]\n sync always = yes\n"),
            &smb("[data]\n sync always = no\n"),
        );
        assert_rule(
            "S17",
            &smb("[data]\n level2 oplocks = no\n"),
            &smb("[data]\n veto oplock files = /*.mdb/\n"),
        );
        assert_rule("S18", &g("kernel oplocks = yes"), &g("kernel oplocks = no"));
        assert_rule("S19", &g("smb2 leases = no"), &g("smb2 leases = yes"));
        assert_rule(
            "S20",
            &smb("[data]\n fake oplocks = yes\n writeable = yes\n"),
            &smb("[data]\n fake oplocks = yes\n read only = yes\n"),
        );
        assert_rule(
            "S21",
            &smb("[data]\n strict locking = yes\n"),
            &smb("[data]\n strict locking = auto\n"),
        );
        assert_rule(
            "S22",
            &smb("[data]\n veto files = /a/b/c/d/e/f/g/h/\n"),
            &smb("[data]\n veto files = /.DS_Store/Thumbs.db/\n"),
        );
        assert_rule(
            "S24",
            &smb("[data]\n wide links = yes\n"),
            &smb("[data]\n wide links = no\n"),
        );
        assert_rule(
            "S26",
            &g("server signing = required"),
            &g("server signing = auto"),
        );
        assert_rule(
            "S27",
            &g("max open files = 1024"),
            &g("max open files = 65536"),
        );
        assert_rule("S28", &g("deadtime = 15"), &g("deadtime = 10080"));
    }

    #[test]
    fn host_facts_decide_the_directory_and_filesystem_rules() {
        let text = "[data]\n path = /srv\n strict allocate = yes\n";
        let with = |entries: u64, fs: &str, limit: u64| Inputs {
            host: HostFacts {
                share_entries: vec![("data".into(), entries)],
                share_filesystems: vec![("data".into(), fs.into())],
                open_file_limits: vec![("smbd".into(), limit)],
                ..HostFacts::default()
            },
            ..smb(text)
        };
        assert_rule(
            "S23",
            &with(150_000, "ext4", 65536),
            &with(99_999, "ext4", 65536),
        );
        assert_rule("S25", &with(10, "ext3", 65536), &with(10, "xfs", 65536));
        assert_rule("S27", &with(10, "xfs", 4096), &with(10, "xfs", 65536));
        let sensitive = Inputs {
            samba: with(0, "", 0).samba.map(|_| {
                super::super::super::read::smb::SmbConf::parse(
                    "smb.conf",
                    "[data]\n case sensitive = yes\n",
                )
            }),
            ..with(150_000, "ext4", 65536)
        };
        assert!(!ids(&sensitive).contains(&"S23".to_string()));
    }

    #[test]
    fn old_releases_are_judged_by_their_own_defaults() {
        let empty = "[data]\n path = /srv\n";
        for (id, old, new) in [
            ("S07", "4.10", "4.11"),
            ("S10", "4.14", "4.15"),
            ("S11", "4.7", "4.8"),
            ("S15", "4.6", "4.7"),
            ("S18", "4.15", "4.16"),
            ("S19", "4.4", "4.5"),
        ] {
            assert_rule(id, &versioned(empty, old), &versioned(empty, new));
        }
        let advice = advise(&versioned(empty, "4.6.3"));
        let s15 = advice.findings.iter().find(|f| f.id == "S15").unwrap();
        assert!(s15.at.is_none());
        assert!(
            s15.detail.contains("Samba 4.6.3's default is no"),
            "{}",
            s15.detail
        );
        // set explicitly, the old default no longer matters
        let set = versioned("[data]\n strict sync = yes\n", "4.6");
        assert!(!ids(&set).contains(&"S15".to_string()));
    }

    #[test]
    fn severities_follow_the_case() {
        let find = |text: &str, id: &str| {
            advise(&smb(text))
                .findings
                .into_iter()
                .find(|f| f.id == id)
                .unwrap()
        };
        assert_eq!(
            find("[global]\nlog level = 10", "S01").severity,
            Severity::PerfCritical
        );
        assert_eq!(
            find("[global]\nlog level = 3", "S01").severity,
            Severity::PerfMinor
        );
        assert_eq!(
            find("[global]\nsocket options = SO_KEEPALIVE", "S03").severity,
            Severity::PerfMinor
        );
        assert_eq!(
            find(
                "[global]\nsocket options = TCP_NODELAY IPTOS_LOWDELAY",
                "S03"
            )
            .severity,
            Severity::Obsolete
        );
        assert_eq!(
            find("[d]\nwide links = yes", "S24").severity,
            Severity::DataSafety
        );
        assert_eq!(
            find("[d]\ngetwd cache = yes", "S24").severity,
            Severity::Obsolete
        );
        let mut nics = Vec::new();
        ethtool::parse(
            "e",
            "Settings for eth0:\n\tSpeed: 25000Mb/s\n",
            &mut nics,
            &mut Vec::new(),
        );
        let multi = Inputs {
            nics,
            ..smb("[global]\nserver multi channel support = no")
        };
        let s10 = advise(&multi)
            .findings
            .into_iter()
            .find(|f| f.id == "S10")
            .unwrap();
        assert_eq!(s10.severity, Severity::PerfCritical);
    }

    #[test]
    fn the_finding_points_at_the_offending_line() {
        let advice = advise(&smb("# c\n[global]\n\n  oplocks = no\n"));
        let s17 = advice.findings.iter().find(|f| f.id == "S17").unwrap();
        let at = s17.at.as_ref().unwrap();
        assert_eq!((at.line, at.text.as_str()), (4, "oplocks = no"));
        assert_eq!(s17.detail, "oplocks = no in [global]");
    }
}
