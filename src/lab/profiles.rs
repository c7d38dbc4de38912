//! What `lab up --profile` adds to smbd's configuration: nothing (untuned), the advisor's
//! recommendations (tuned), or the "recommended" settings of the 1999 tuning guide (classic),
//! so each can be measured against the others on the same machine.

use clap::ValueEnum;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum SmbProfile {
    /// Samba's defaults
    #[default]
    Untuned,
    /// The advisor's recommendations applied
    Tuned,
    /// The 1999 guide's smb.conf: raw I/O, max xmit, socket options, an oplock-free share
    Classic,
}

/// The share of the classic profile that turns oplocks off, as the guide's [badplace] did.
pub const CLASSIC_NO_OPLOCKS_SHARE: &str = "badplace";

impl SmbProfile {
    /// Lines for [global], each with the reason it is there.
    pub fn global(self, signed_or_sealed: bool) -> Vec<(&'static str, &'static str)> {
        match self {
            SmbProfile::Untuned => Vec::new(),
            // the fact base's opportunities (S13, S14); both do nothing once a connection is
            // signed or sealed, and the advisor says so, so they are left out then
            SmbProfile::Tuned if signed_or_sealed => Vec::new(),
            SmbProfile::Tuned => vec![("use sendfile", "yes"), ("min receivefile size", "16384")],
            SmbProfile::Classic => vec![
                ("log level", "1"),
                ("socket options", "TCP_NODELAY IPTOS_LOWDELAY"),
                ("read raw", "yes"),
                ("write raw", "yes"),
                ("oplocks", "yes"),
                ("max xmit", "65535"),
                ("dead time", "15"),
                ("getwd cache", "yes"),
                ("lpq cache", "30"),
            ],
        }
    }

    /// Lines for the lab's share.
    pub fn share(self) -> Vec<(&'static str, &'static str)> {
        match self {
            SmbProfile::Classic => vec![("veto oplock files", "/*.mdb/*.MDB/*.dbf/*.DBF/")],
            _ => Vec::new(),
        }
    }

    /// Extra shares over the same directory: (name, lines).
    pub fn extra_shares(self) -> Vec<(&'static str, Vec<(&'static str, &'static str)>)> {
        match self {
            SmbProfile::Classic => vec![(CLASSIC_NO_OPLOCKS_SHARE, vec![("oplocks", "no")])],
            _ => Vec::new(),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            SmbProfile::Untuned => "untuned",
            SmbProfile::Tuned => "tuned",
            SmbProfile::Classic => "classic",
        }
    }
}
