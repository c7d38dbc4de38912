//! The tuning advisor: reads server and kernel configurations (read/), judges them with the
//! rules of the fact base (rules.toml holds each rule's words, checks/ its predicate), and
//! returns findings with the line that caused them. Printing is report/advice.rs's.

mod checks;
pub mod read;

use read::ethtool::Nic;
use read::exports::Export;
use read::ganesha::GaneshaConf;
use read::keyvalue::KeyValues;
use read::mounts::Mount;
use read::smb::{SambaVersion, SmbConf};
use read::{Located, Note};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// How much a finding matters, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Can lose or corrupt data, or weakens security.
    DataSafety,
    /// Can cost a large share of throughput or serialise clients.
    PerfCritical,
    /// A few per cent, or only in some workloads.
    PerfMinor,
    /// Removed, ignored, SMB1-only, already the default, or without effect today: clean-up.
    Obsolete,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::DataSafety,
        Severity::PerfCritical,
        Severity::PerfMinor,
        Severity::Obsolete,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Severity::DataSafety => "data-safety",
            Severity::PerfCritical => "perf-critical",
            Severity::PerfMinor => "perf-minor",
            Severity::Obsolete => "obsolete",
        }
    }

    /// The heading of a group of findings.
    pub fn title(self) -> &'static str {
        match self {
            Severity::DataSafety => "Data safety: can lose or corrupt data",
            Severity::PerfCritical => "Performance, critical: can cost a large share of throughput",
            Severity::PerfMinor => "Performance, minor: a few per cent, or some workloads only",
            Severity::Obsolete => "Obsolete or without effect: clean-up",
        }
    }
}

/// One rule of the fact base, as rules.toml words it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub component: String,
    pub setting: String,
    pub condition: String,
    pub severity: Severity,
    pub effect: String,
    pub recommendation: String,
    pub status: String,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
}

#[derive(Deserialize)]
struct RuleFile {
    rule: Vec<Rule>,
}

/// Every rule, in the fact base's order.
pub fn rules() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        let file: RuleFile =
            toml::from_str(include_str!("rules.toml")).expect("rules.toml is checked by tests");
        file.rule
    })
}

/// What a predicate saw: the line (if the finding has one), what exactly, and a severity
/// when this case differs from the rule's usual one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub at: Option<Located>,
    pub detail: String,
    pub severity: Option<Severity>,
}

impl Hit {
    pub fn at(at: &Located, detail: impl Into<String>) -> Hit {
        Hit {
            at: Some(at.clone()),
            detail: detail.into(),
            severity: None,
        }
    }

    /// A finding about something not written anywhere (a default, a fact of the host).
    pub fn unwritten(detail: impl Into<String>) -> Hit {
        Hit {
            at: None,
            detail: detail.into(),
            severity: None,
        }
    }

    pub fn severity(mut self, severity: Severity) -> Hit {
        self.severity = Some(severity);
        self
    }
}

/// A rule that applies, with what made it apply.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub id: String,
    pub severity: Severity,
    pub component: String,
    pub setting: String,
    /// The offending line, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Located>,
    /// What was seen.
    pub detail: String,
    /// Why it matters.
    pub effect: String,
    /// What to do.
    pub recommendation: String,
    pub status: String,
    pub source: String,
    /// The command that measures the effect, for rules whose effect is measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<String>,
}

/// Facts of the machine that no configuration file holds (`--local` reads them).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostFacts {
    /// (share, entries in its directory, counting stopped at the limit)
    pub share_entries: Vec<(String, u64)>,
    /// (share, filesystem type of its directory)
    pub share_filesystems: Vec<(String, String)>,
    /// (serving daemon, hard limit on open files)
    pub open_file_limits: Vec<(String, u64)>,
    pub nfsd_threads: Option<u64>,
    /// (disk, read_ahead_kb, rotational)
    pub disk_readahead: Vec<(String, u64, bool)>,
    /// (NFS mount point, read_ahead_kb of its bdi)
    pub nfs_readahead: Vec<(String, u64)>,
    pub memory_bytes: Option<u64>,
}

/// Everything the advisor was given, read.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    pub samba: Option<SmbConf>,
    pub samba_version: Option<SambaVersion>,
    pub mounts: Vec<Mount>,
    pub exports: Vec<Export>,
    pub nfs_conf: Option<KeyValues>,
    pub ganesha: Option<GaneshaConf>,
    pub vsftpd: Option<KeyValues>,
    pub proftpd: Option<KeyValues>,
    pub sysctl: Option<KeyValues>,
    pub nics: Vec<Nic>,
    pub host: HostFacts,
    /// What the readers remarked: repeated keys, unknown parameters, unreadable lines.
    pub notes: Vec<Note>,
    /// What was read, one line each ("smb.conf: /etc/samba/smb.conf").
    pub read: Vec<String>,
    /// What was looked for and not found, one line each.
    pub skipped: Vec<String>,
}

/// The advisor's answer.
#[derive(Debug, Clone, Serialize)]
pub struct Advice {
    pub findings: Vec<Finding>,
    pub notes: Vec<Note>,
    pub read: Vec<String>,
    pub skipped: Vec<String>,
    /// The Samba release judged against, and how it was known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samba_version: Option<String>,
}

impl Advice {
    /// The worst severity found, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).min()
    }
}

/// Applies every rule to the inputs. Findings come worst first, in rule order within a
/// severity.
pub fn advise(inputs: &Inputs) -> Advice {
    let mut findings = Vec::new();
    for rule in rules() {
        let check = checks::find(&rule.id).expect("every rule has a check (tested)");
        for hit in check(inputs) {
            findings.push(Finding {
                id: rule.id.clone(),
                severity: hit.severity.unwrap_or(rule.severity),
                component: rule.component.clone(),
                setting: rule.setting.clone(),
                at: hit.at,
                detail: hit.detail,
                effect: rule.effect.clone(),
                recommendation: rule.recommendation.clone(),
                status: rule.status.clone(),
                source: rule.source.clone(),
                sweep: rule.sweep.as_ref().map(|s| sweep_line(s, inputs)),
            });
        }
    }
    findings.sort_by_key(|f| f.severity);
    let samba_version = inputs.samba.as_ref().map(|_| match inputs.samba_version {
        Some(v) => format!("judged as {v}"),
        None => format!(
            "version unknown, judged as {}.{} or later (give --samba-version)",
            checks::ASSUMED_SAMBA.major,
            checks::ASSUMED_SAMBA.minor
        ),
    });
    Advice {
        findings,
        notes: inputs.notes.clone(),
        read: inputs.read.clone(),
        skipped: inputs.skipped.clone(),
        samba_version,
    }
}

/// Fills the sweep template: {nfs} becomes the first NFS mount's URL.
fn sweep_line(template: &str, inputs: &Inputs) -> String {
    let nfs = inputs
        .mounts
        .iter()
        .find_map(|m| {
            let (host, path) = m.source.split_once(':')?;
            let version = match m.value("vers").or(m.value("nfsvers")) {
                Some(v) if v.starts_with('3') => "3",
                Some("4.0") | Some("4") => "4",
                _ => "4.1",
            };
            Some(format!("nfs://{host}{path}?version={version}"))
        })
        .unwrap_or_else(|| "nfs://SERVER/EXPORT".to_string());
    template.replace("{nfs}", &nfs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fact_base_has_its_eighty_rules_each_with_a_check() {
        let rules = rules();
        assert_eq!(rules.len(), 80);
        let mut ids: Vec<&str> = rules.iter().map(|r| r.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 80, "ids are unique");
        for rule in rules {
            assert!(checks::find(&rule.id).is_some(), "{} has no check", rule.id);
            for text in [
                &rule.effect,
                &rule.recommendation,
                &rule.source,
                &rule.condition,
            ] {
                assert!(!text.is_empty(), "{} has an empty field", rule.id);
            }
        }
        assert_eq!(checks::count(), 80, "no check without a rule");
    }

    #[test]
    fn every_rule_is_tested_on_a_configuration_that_triggers_it_and_one_that_does_not() {
        // assert_rule(id, triggers, clean) is the one way the checks' tests judge a rule
        let tests = [
            include_str!("checks/samba.rs"),
            include_str!("checks/nfs.rs"),
            include_str!("checks/ganesha.rs"),
            include_str!("checks/ftp.rs"),
            include_str!("checks/kernel.rs"),
            include_str!("checks/nic.rs"),
        ]
        .concat();
        let untested: Vec<&str> = rules()
            .iter()
            .map(|r| r.id.as_str())
            .filter(|id| !tests.contains(&format!("assert_rule(\n            \"{id}\"")))
            .filter(|id| !tests.contains(&format!("assert_rule(\"{id}\"")))
            .collect();
        assert!(
            untested.is_empty(),
            "rules without a both-ways test: {untested:?}"
        );
    }

    #[test]
    fn sweep_lines_name_the_mount_they_measure() {
        let (mount, _) = read::mounts::parse_table("fstab", "filer:/export /mnt nfs vers=3 0 0");
        let inputs = Inputs {
            mounts: mount,
            ..Inputs::default()
        };
        assert_eq!(
            sweep_line("sharebench sweep {nfs} --vary x", &inputs),
            "sharebench sweep nfs://filer/export?version=3 --vary x"
        );
    }
}
