//! `sharebench advise`: which configuration files to read, then the advisor, then the report;
//! `--fail-on` turns findings into an exit code for scripts and CI.

use super::Failure;
use crate::analysis::advisor::read::keyvalue::{self, KeyValues};
use crate::analysis::advisor::read::smb::{SambaVersion, SmbConf};
use crate::analysis::advisor::read::{ethtool, exports, ganesha, local, mounts};
use crate::analysis::advisor::{advise, Advice, Inputs, Severity};
use crate::report;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct AdviseArgs {
    /// A smb.conf, or the output of `testparm -sv`
    #[arg(long, value_name = "FILE")]
    pub smb_conf: Option<PathBuf>,

    /// The Samba release the configuration is for ("4.17.12", or what `smbd -V` prints)
    /// [default: --local's running smbd, else judged as 4.17]
    #[arg(long, value_name = "VERSION")]
    pub samba_version: Option<String>,

    /// NFS mount options as given to `mount -o` (may be repeated)
    #[arg(long, value_name = "OPTS")]
    pub nfs_mount: Vec<String>,

    /// A mount table: /proc/mounts (the options negotiated) or /etc/fstab (the options asked)
    #[arg(long, value_name = "FILE")]
    pub mounts: Option<PathBuf>,

    /// knfsd's /etc/exports, or the output of `exportfs -v`
    #[arg(long, value_name = "FILE")]
    pub exports: Option<PathBuf>,

    /// nfs-utils' /etc/nfs.conf (nfsd threads, UDP)
    #[arg(long, value_name = "FILE")]
    pub nfs_conf: Option<PathBuf>,

    /// NFS-Ganesha's ganesha.conf
    #[arg(long, value_name = "FILE")]
    pub ganesha_conf: Option<PathBuf>,

    /// vsftpd.conf
    #[arg(long, value_name = "FILE")]
    pub vsftpd_conf: Option<PathBuf>,

    /// proftpd.conf
    #[arg(long, value_name = "FILE")]
    pub proftpd_conf: Option<PathBuf>,

    /// A `sysctl -a` dump (Linux or FreeBSD) or a sysctl.conf
    #[arg(long, value_name = "FILE")]
    pub sysctl: Option<PathBuf>,

    /// A directory of saved `ethtool IF`, `ethtool -k/-g/-l/-c/-a/-S IF` and `ip link` outputs
    #[arg(long, value_name = "DIR")]
    pub ethtool: Option<PathBuf>,

    /// Read the running machine: the running servers' configurations, /proc/mounts,
    /// /proc/sys, /etc/exports, the physical NICs (ethtool), and what no file says
    #[arg(long)]
    pub local: bool,

    /// Write the findings as JSON to FILE ("-": standard output, instead of the text)
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Exit 1 when a finding of this severity or a graver one exists (0 otherwise, 2 on bad
    /// input): data-safety, perf-critical, perf-minor, or obsolete for any finding
    #[arg(long, value_enum, value_name = "SEVERITY")]
    pub fail_on: Option<FailOn>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    DataSafety,
    PerfCritical,
    PerfMinor,
    Obsolete,
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::DataSafety => Severity::DataSafety,
            FailOn::PerfCritical => Severity::PerfCritical,
            FailOn::PerfMinor => Severity::PerfMinor,
            FailOn::Obsolete => Severity::Obsolete,
        }
    }
}

pub fn run(args: AdviseArgs) -> Result<(), Failure> {
    let inputs = gather(&args)?;
    let advice = advise(&inputs);
    match args.json.as_deref() {
        Some(path) if path == Path::new("-") => println!("{}", to_json(&advice)),
        Some(path) => {
            print!("{}", report::advice::render(&advice));
            std::fs::write(path, to_json(&advice) + "\n")
                .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", path.display())))?;
        }
        None => print!("{}", report::advice::render(&advice)),
    }
    match (args.fail_on, advice.worst()) {
        (Some(threshold), Some(worst)) if worst <= threshold.severity() => {
            Err(Failure::quiet(super::EXIT_FAILED))
        }
        _ => Ok(()),
    }
}

fn to_json(advice: &Advice) -> String {
    serde_json::to_string_pretty(advice).expect("advice serialises")
}

/// Reads everything the arguments name; a named file that cannot be read is bad input.
pub fn gather(args: &AdviseArgs) -> Result<Inputs, Failure> {
    let mut inputs = Inputs::default();
    if let Some(text) = &args.samba_version {
        let version = SambaVersion::parse(text).map_err(|e| Failure::bad_input(format!("{e}.")))?;
        inputs.samba_version = Some(version);
        inputs
            .read
            .push(format!("Samba version: {version} (--samba-version)"));
    }
    if let Some(path) = &args.smb_conf {
        let conf = SmbConf::parse(&shown(path), &read(path, "--smb-conf")?);
        inputs.read.push(format!("smb.conf: {}", shown(path)));
        inputs.notes.extend(conf.notes.iter().cloned());
        inputs.samba = Some(conf);
    }
    for options in &args.nfs_mount {
        let (mount, notes) = mounts::from_options(options);
        inputs.read.push(format!("NFS mount options: {options}"));
        inputs.mounts.push(mount);
        inputs.notes.extend(notes);
    }
    if let Some(path) = &args.mounts {
        let (found, notes) = mounts::parse_table(&shown(path), &read(path, "--mounts")?);
        inputs
            .read
            .push(format!("mounts: {} ({} NFS)", shown(path), found.len()));
        inputs.mounts.extend(found);
        inputs.notes.extend(notes);
    }
    if let Some(path) = &args.exports {
        let (found, notes) = exports::parse(&shown(path), &read(path, "--exports")?);
        inputs.read.push(format!("exports: {}", shown(path)));
        inputs.exports.extend(found);
        inputs.notes.extend(notes);
    }
    inputs.nfs_conf = key_values(
        &mut inputs,
        &args.nfs_conf,
        "--nfs-conf",
        keyvalue::parse_ini,
    )?;
    inputs.vsftpd = key_values(
        &mut inputs,
        &args.vsftpd_conf,
        "--vsftpd-conf",
        keyvalue::parse_vsftpd,
    )?;
    inputs.proftpd = key_values(
        &mut inputs,
        &args.proftpd_conf,
        "--proftpd-conf",
        keyvalue::parse_proftpd,
    )?;
    inputs.sysctl = key_values(
        &mut inputs,
        &args.sysctl,
        "--sysctl",
        keyvalue::parse_sysctl,
    )?;
    if let Some(path) = &args.ganesha_conf {
        let conf = ganesha::parse(&shown(path), &read(path, "--ganesha-conf")?);
        inputs.read.push(format!("ganesha.conf: {}", shown(path)));
        inputs.notes.extend(conf.notes.iter().cloned());
        inputs.ganesha = Some(conf);
    }
    if let Some(dir) = &args.ethtool {
        let (nics, notes) =
            ethtool::read_dir(dir).map_err(|e| Failure::bad_input(format!("{e}.")))?;
        if nics.is_empty() {
            return Err(Failure::bad_input(format!(
                "{} holds no ethtool or ip link output.",
                dir.display()
            )));
        }
        inputs
            .read
            .push(format!("NICs: {} from {}", nics.len(), dir.display()));
        inputs.nics.extend(nics);
        inputs.notes.extend(notes);
    }
    if args.local {
        local::gather(&mut inputs);
    }
    if inputs.read.is_empty() || (!args.local && only_version(&inputs)) {
        return Err(Failure::bad_input(
            "nothing to judge: give --smb-conf, --nfs-mount, --mounts, --exports, --nfs-conf, \
             --ganesha-conf, --vsftpd-conf, --proftpd-conf, --sysctl, --ethtool or --local.",
        ));
    }
    Ok(inputs)
}

/// Reads one flat key-value file, if named, noting it as read.
fn key_values(
    inputs: &mut Inputs,
    path: &Option<PathBuf>,
    flag: &str,
    parse: fn(&str, &str) -> KeyValues,
) -> Result<Option<KeyValues>, Failure> {
    let Some(path) = path else {
        return Ok(None);
    };
    let parsed = parse(&shown(path), &read(path, flag)?);
    inputs.read.push(format!("{}: {}", &flag[2..], shown(path)));
    inputs.notes.extend(parsed.notes.iter().cloned());
    Ok(Some(parsed))
}

fn only_version(inputs: &Inputs) -> bool {
    inputs.read.iter().all(|r| r.starts_with("Samba version"))
}

fn shown(path: &Path) -> String {
    path.display().to_string()
}

fn read(path: &Path, flag: &str) -> Result<String, Failure> {
    let bytes = std::fs::read(path)
        .map_err(|e| Failure::bad_input(format!("{flag} {}: {e}.", path.display())))?;
    // configuration files in old encodings still parse: their keys are ASCII
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
