//! The rules' predicates, one small function per rule id, grouped by what they read. Each says
//! whether its rule applies and where; the words are rules.toml's.

mod ftp;
mod ganesha;
mod kernel;
mod nfs;
mod nic;
mod samba;

use super::read::smb::SambaVersion;
use super::{Hit, Inputs};

pub type Check = fn(&Inputs) -> Vec<Hit>;

/// The Samba release assumed when none is known: the one whose defaults the parameter table
/// holds (the rules' changed defaults all predate it).
pub const ASSUMED_SAMBA: SambaVersion = SambaVersion::new(4, 17);

const TABLES: [&[(&str, Check)]; 6] = [
    samba::CHECKS,
    nfs::CHECKS,
    ganesha::CHECKS,
    ftp::CHECKS,
    kernel::CHECKS,
    nic::CHECKS,
];

pub fn find(id: &str) -> Option<Check> {
    TABLES
        .iter()
        .flat_map(|t| t.iter())
        .find(|(rule, _)| *rule == id)
        .map(|&(_, check)| check)
}

#[cfg(test)]
pub fn count() -> usize {
    TABLES.iter().map(|t| t.len()).sum()
}

#[cfg(test)]
pub(crate) mod fixtures {
    //! Inputs built from text, for the predicates' tests.
    use super::super::read::{self, keyvalue};
    use super::super::{advise, Inputs};

    pub fn smb(text: &str) -> Inputs {
        Inputs {
            samba: Some(read::smb::SmbConf::parse("smb.conf", text)),
            ..Inputs::default()
        }
    }

    pub fn sysctl(text: &str) -> Inputs {
        Inputs {
            sysctl: Some(keyvalue::parse_sysctl("sysctl", text)),
            ..Inputs::default()
        }
    }

    /// The ids of the rules that apply.
    pub fn ids(inputs: &Inputs) -> Vec<String> {
        advise(inputs).findings.into_iter().map(|f| f.id).collect()
    }

    /// Asserts that the rule applies to `triggers` and not to `clean`.
    pub fn assert_rule(id: &str, triggers: &Inputs, clean: &Inputs) {
        let found = ids(triggers);
        assert!(
            found.iter().any(|f| f == id),
            "{id} should apply: {found:?}"
        );
        let found = ids(clean);
        assert!(
            !found.iter().any(|f| f == id),
            "{id} should not apply: {found:?}"
        );
    }
}
