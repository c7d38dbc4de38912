//! What a running lab is made of, kept in `<lab dir>/lab.json` so that `status`, `env`, `exec`
//! and `down` find exactly what `up` made.

use super::process::Started;
use super::profiles::SmbProfile;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::{Path, PathBuf};

pub const STATE_FILE: &str = "lab.json";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LabState {
    pub dir: PathBuf,
    pub started: String,
    pub user: String,
    pub uid: u32,
    pub server_addr: String,
    pub netns: Option<Namespaces>,
    /// The shaped link rate as given (`100mbit`) and in bits per second.
    pub link: Option<(String, f64)>,
    pub ports: Ports,
    pub smb_signing: String,
    pub smb_encrypt: bool,
    /// Absent from the state of labs started by older builds, which offered up to 3.1.1.
    #[serde(default = "newest_protocol")]
    pub smb_max_protocol: String,
    #[serde(default)]
    pub smb_cpus: Option<String>,
    #[serde(default)]
    pub smb_profile: SmbProfile,
    /// [global] parameters a sweep set over the profile.
    #[serde(default)]
    pub smb_settings: Vec<(String, String)>,
    pub services: Vec<Service>,
}

fn newest_protocol() -> String {
    "SMB3_11".into()
}

/// The two network namespaces and the veth pair between them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Namespaces {
    pub server: String,
    pub client: String,
    pub server_veth: String,
    pub client_veth: String,
    pub client_addr: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ports {
    pub smb: u16,
    pub nfs: u16,
    pub mount: u16,
    pub ftp: u16,
    pub iperf: u16,
    /// The sharebench serve agent (absent from the state of labs from older builds).
    #[serde(default)]
    pub serve: u16,
    pub passive_min: u16,
    pub passive_max: u16,
}

impl Ports {
    /// The protocols' own ports, used inside the lab's namespaces where nothing else listens.
    pub const STANDARD: Ports = Ports {
        smb: 445,
        nfs: 2049,
        mount: 20048,
        ftp: 21,
        iperf: 5201,
        serve: 5202,
        passive_min: 30000,
        passive_max: 30099,
    };
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Service {
    pub name: String,
    pub process: Started,
    pub log: PathBuf,
    /// The port a client connects to, when it has one.
    pub port: Option<u16>,
}

impl LabState {
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(STATE_FILE)
    }

    pub fn load(dir: &Path) -> io::Result<Option<LabState>> {
        match std::fs::read_to_string(Self::path(dir)) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(io::Error::other),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes the state atomically, so a crash never leaves half a file behind.
    pub fn save(&self) -> io::Result<()> {
        let path = Self::path(&self.dir);
        let partial = path.with_extension("json.partial");
        let text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        std::fs::write(&partial, text + "\n")?;
        std::fs::rename(partial, path)
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }
}
