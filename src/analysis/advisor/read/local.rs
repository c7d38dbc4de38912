//! `advise --local`: the running machine read in place. The configuration each running server
//! was started with (through the process's own view of the filesystem, so servers in other
//! mount namespaces count), /proc/mounts, /proc/sys, the physical NICs through ethtool, and the
//! host facts no file holds. Nothing is written; what is absent is listed as skipped.

use super::super::{HostFacts, Inputs};
use super::smb::{SambaVersion, SmbConf};
use super::{ethtool, exports, ganesha, keyvalue, mounts, Located, Setting};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A running process: its pid, and its command line.
struct Process {
    pid: u32,
    args: Vec<String>,
}

impl Process {
    /// A file as this process sees it (its root may be another mount namespace).
    fn path(&self, path: &str) -> PathBuf {
        if path.starts_with('/') {
            PathBuf::from(format!("/proc/{}/root{path}", self.pid))
        } else {
            PathBuf::from(format!("/proc/{}/cwd/{path}", self.pid))
        }
    }

    /// The value of an option given as `-o V`, `--option V` or `--option=V`.
    fn option(&self, short: &str, long: &str) -> Option<&str> {
        let mut args = self.args.iter().skip(1);
        while let Some(arg) = args.next() {
            if arg == short || arg == long {
                return args.next().map(String::as_str);
            }
            if let Some(value) = arg.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some(value);
            }
        }
        None
    }

    /// vsftpd's configuration file: its one argument that is not an option.
    fn vsftpd_conf(&self) -> Option<&str> {
        self.args
            .iter()
            .skip(1)
            .find(|a| !a.starts_with('-'))
            .map(String::as_str)
    }

    /// The hard limit on open files.
    fn open_file_limit(&self) -> Option<u64> {
        let limits = fs::read_to_string(format!("/proc/{}/limits", self.pid)).ok()?;
        let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
        line.split_whitespace().nth(4)?.parse().ok()
    }
}

/// Running processes of this name, oldest first (the parent of a forking server comes first).
fn processes(name: &str) -> Vec<Process> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    let mut found: Vec<Process> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == name)
        })
        .filter_map(|pid| {
            let cmdline = fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let args = cmdline
                .split(|&b| b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect();
            Some(Process { pid, args })
        })
        .collect();
    found.sort_by_key(|p| p.pid);
    found
}

/// Reads a file for the advisor; the name shown is the path as the server knows it.
fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// Fills `inputs` from the running machine.
pub fn gather(inputs: &mut Inputs) {
    samba(inputs);
    nfs(inputs);
    ganesha(inputs);
    ftp(inputs);
    sysctl(inputs);
    nics(inputs);
    host(inputs);
}

/// The configuration a server runs with: that of the oldest running process whose file can be
/// read (a process of a server being stopped may name a file already gone), else the default
/// file when it exists.
struct ServerConf<'a> {
    process: Option<&'a Process>,
    path: String,
    text: String,
}

impl ServerConf<'_> {
    /// Notes the file as read and the daemon's open-file limit as a host fact.
    fn record(&self, inputs: &mut Inputs, daemon: &str, what: &str) {
        if let Some(limit) = self.process.and_then(Process::open_file_limit) {
            inputs.host.open_file_limits.push((daemon.into(), limit));
        }
        let running = match self.process {
            Some(_) => "",
            None => " (its server is not running)",
        };
        inputs.read.push(format!("{what}: {}{running}", self.path));
    }
}

fn server_conf<'a>(
    running: &'a [Process],
    conf_of: impl Fn(&Process) -> Option<&str>,
    default: &str,
) -> Option<ServerConf<'a>> {
    for process in running {
        let path = conf_of(process).unwrap_or(default).to_string();
        if let Some(text) = read(&process.path(&path)) {
            return Some(ServerConf {
                process: Some(process),
                path,
                text,
            });
        }
    }
    read(Path::new(default)).map(|text| ServerConf {
        process: None,
        path: default.to_string(),
        text,
    })
}

fn samba(inputs: &mut Inputs) {
    const DEFAULT: &str = "/etc/samba/smb.conf";
    let smbds = processes("smbd");
    let config_option = |p: &Process| p.option("-s", "--configfile").map(str::to_string);
    let Some(found) = server_conf(&smbds, |p| p.option("-s", "--configfile"), DEFAULT) else {
        inputs
            .skipped
            .push(format!("Samba: no smbd running and no {DEFAULT}"));
        return;
    };
    let (process, conf_path) = (found.process, found.path.clone());
    let conf = SmbConf::parse(&conf_path, &found.text);
    for other in smbds.iter().filter_map(config_option) {
        let readable = smbds.iter().any(|p| read(&p.path(&other)).is_some());
        if other != conf_path && readable && !inputs.skipped.iter().any(|s| s.contains(&other)) {
            inputs.skipped.push(format!(
                "Samba: another smbd runs with {other}; judge it with --smb-conf {other}"
            ));
        }
    }
    found.record(inputs, "smbd", "smb.conf");
    if inputs.samba_version.is_none() {
        let program = process
            .and_then(|p| fs::read_link(format!("/proc/{}/exe", p.pid)).ok())
            .unwrap_or_else(|| PathBuf::from("smbd"));
        let version = Command::new(&program)
            .arg("-V")
            .output()
            .ok()
            .and_then(|out| SambaVersion::parse(&String::from_utf8_lossy(&out.stdout)).ok());
        match version {
            Some(v) => {
                inputs.read.push(format!("Samba version: {v} (smbd -V)"));
                inputs.samba_version = Some(v);
            }
            None => inputs
                .skipped
                .push("Samba version: smbd -V gave none".into()),
        }
    }
    for share in conf.shares() {
        let Some(path) = conf.in_share(share, "path") else {
            continue;
        };
        let dir = process.map_or_else(|| PathBuf::from(&path.value), |p| p.path(&path.value));
        if let Some(entries) = count_entries(&dir) {
            inputs
                .host
                .share_entries
                .push((share.name.clone(), entries));
        }
        if let Some(fs) = filesystem_of(&path.value) {
            inputs.host.share_filesystems.push((share.name.clone(), fs));
        }
    }
    inputs.notes.extend(conf.notes.iter().cloned());
    inputs.samba = Some(conf);
}

/// Entries in a directory, counting no further than needed to judge (S23's threshold).
fn count_entries(dir: &Path) -> Option<u64> {
    const ENOUGH: u64 = 100_000;
    let entries = fs::read_dir(dir).ok()?;
    Some(entries.take(ENOUGH as usize).count() as u64)
}

/// The filesystem type holding a path: the longest mount point above it in /proc/mounts.
fn filesystem_of(path: &str) -> Option<String> {
    let table = fs::read_to_string("/proc/mounts").ok()?;
    table
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let (_, point, fstype) = (f.next()?, f.next()?, f.next()?);
            let inside = path == point
                || point == "/"
                || path.strip_prefix(point).is_some_and(|r| r.starts_with('/'));
            inside.then(|| (point.len(), fstype.to_string()))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, fs)| fs)
}

fn nfs(inputs: &mut Inputs) {
    match read(Path::new("/proc/mounts")) {
        Some(table) => {
            let (found, notes) = mounts::parse_table("/proc/mounts", &table);
            if found.is_empty() {
                inputs
                    .skipped
                    .push("NFS mounts: none in /proc/mounts".into());
            } else {
                inputs
                    .read
                    .push(format!("NFS mounts: {} in /proc/mounts", found.len()));
            }
            for m in &found {
                if let Some(kb) = nfs_readahead(&m.point) {
                    inputs.host.nfs_readahead.push((m.point.clone(), kb));
                }
            }
            inputs.mounts.extend(found);
            inputs.notes.extend(notes);
        }
        None => inputs
            .skipped
            .push("NFS mounts: /proc/mounts unreadable".into()),
    }
    match read(Path::new("/etc/exports")) {
        Some(text) => {
            let (found, notes) = exports::parse("/etc/exports", &text);
            inputs.read.push("exports: /etc/exports".into());
            inputs.exports.extend(found);
            inputs.notes.extend(notes);
        }
        None => inputs.skipped.push("exports: no /etc/exports".into()),
    }
    match read(Path::new("/etc/nfs.conf")) {
        Some(text) => {
            let conf = keyvalue::parse_ini("/etc/nfs.conf", &text);
            inputs.read.push("nfs.conf: /etc/nfs.conf".into());
            inputs.notes.extend(conf.notes.iter().cloned());
            inputs.nfs_conf = Some(conf);
        }
        None => inputs.skipped.push("nfs.conf: no /etc/nfs.conf".into()),
    }
    if let Some(threads) = read(Path::new("/proc/fs/nfsd/threads")) {
        inputs.host.nfsd_threads = threads.trim().parse().ok();
    }
}

/// The readahead of an NFS mount's backing device info (major:minor of its st_dev).
fn nfs_readahead(point: &str) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let dev = fs::metadata(point).ok()?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let text = fs::read_to_string(format!("/sys/class/bdi/{major}:{minor}/read_ahead_kb")).ok()?;
    text.trim().parse().ok()
}

fn ganesha(inputs: &mut Inputs) {
    const DEFAULT: &str = "/etc/ganesha/ganesha.conf";
    let running = processes("ganesha.nfsd");
    match server_conf(&running, |p| p.option("-f", "--config"), DEFAULT) {
        Some(found) => {
            found.record(inputs, "ganesha.nfsd", "ganesha.conf");
            let conf = ganesha::parse(&found.path, &found.text);
            inputs.notes.extend(conf.notes.iter().cloned());
            inputs.ganesha = Some(conf);
        }
        None => inputs.skipped.push(format!(
            "NFS-Ganesha: no ganesha.nfsd running and no {DEFAULT}"
        )),
    }
}

fn ftp(inputs: &mut Inputs) {
    const DEFAULT: &str = "/etc/vsftpd.conf";
    let running = processes("vsftpd");
    match server_conf(&running, Process::vsftpd_conf, DEFAULT) {
        Some(found) => {
            found.record(inputs, "vsftpd", "vsftpd.conf");
            let conf = keyvalue::parse_vsftpd(&found.path, &found.text);
            inputs.notes.extend(conf.notes.iter().cloned());
            inputs.vsftpd = Some(conf);
        }
        None => inputs
            .skipped
            .push(format!("vsftpd: none running and no {DEFAULT}")),
    }
    match read(Path::new("/etc/proftpd/proftpd.conf")) {
        Some(text) => {
            let conf = keyvalue::parse_proftpd("/etc/proftpd/proftpd.conf", &text);
            inputs
                .read
                .push("proftpd.conf: /etc/proftpd/proftpd.conf".into());
            inputs.proftpd = Some(conf);
        }
        None => inputs
            .skipped
            .push("ProFTPD: no /etc/proftpd/proftpd.conf".into()),
    }
}

/// The sysctls the rules read (Linux), read from /proc/sys.
const SYSCTLS: [&str; 25] = [
    "net.ipv4.tcp_rmem",
    "net.ipv4.tcp_wmem",
    "net.ipv4.tcp_moderate_rcvbuf",
    "net.core.rmem_max",
    "net.core.wmem_max",
    "net.core.rmem_default",
    "net.core.wmem_default",
    "net.ipv4.tcp_window_scaling",
    "net.ipv4.tcp_sack",
    "net.ipv4.tcp_timestamps",
    "net.ipv4.tcp_low_latency",
    "net.ipv4.tcp_fack",
    "net.ipv4.tcp_tw_recycle",
    "net.core.somaxconn",
    "net.ipv4.tcp_slow_start_after_idle",
    "net.ipv4.tcp_mtu_probing",
    "net.ipv4.tcp_congestion_control",
    "net.core.default_qdisc",
    "vm.dirty_ratio",
    "vm.dirty_background_ratio",
    "vm.dirty_bytes",
    "fs.nr_open",
    "fs.file-max",
    "net.ipv4.ip_forward",
    "net.ipv6.conf.all.forwarding",
];

fn sysctl(inputs: &mut Inputs) {
    let mut kv = keyvalue::KeyValues {
        origin: "/proc/sys".into(),
        dump: true,
        ..keyvalue::KeyValues::default()
    };
    for key in SYSCTLS {
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        if let Some(value) = read(Path::new(&path)) {
            let value = value.split_whitespace().collect::<Vec<_>>().join(" ");
            kv.settings.push(Setting {
                key: key.to_string(),
                at: Located::new(&path, 0, &value),
                value,
            });
        }
    }
    if kv.settings.is_empty() {
        inputs.skipped.push("sysctl: /proc/sys unreadable".into());
        return;
    }
    inputs.read.push(format!(
        "sysctl: {} values from /proc/sys",
        kv.settings.len()
    ));
    inputs.sysctl = Some(kv);
}

fn nics(inputs: &mut Inputs) {
    let Ok(entries) = fs::read_dir("/sys/class/net") else {
        inputs
            .skipped
            .push("NICs: /sys/class/net unreadable".into());
        return;
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    // virtual interfaces (veth, bridges, loopback) have no device: their settings are not
    // the hardware's
    let (physical, virtual_ones): (Vec<String>, Vec<String>) = names
        .into_iter()
        .partition(|n| Path::new(&format!("/sys/class/net/{n}/device")).exists());
    if !virtual_ones.is_empty() {
        inputs.skipped.push(format!(
            "NICs: virtual interfaces not judged ({})",
            virtual_ones.join(", ")
        ));
    }
    let has_ethtool = Command::new("ethtool").arg("--version").output().is_ok();
    for name in physical {
        let mut text = String::new();
        if has_ethtool {
            for option in ["", "-k", "-g", "-l", "-c", "-a", "-S"] {
                let mut command = Command::new("ethtool");
                if !option.is_empty() {
                    command.arg(option);
                }
                if let Ok(out) = command.arg(&name).output() {
                    text.push_str(&String::from_utf8_lossy(&out.stdout));
                }
            }
        }
        if let Some(mtu) = read(Path::new(&format!("/sys/class/net/{name}/mtu"))) {
            text.push_str(&format!("0: {name}: <> mtu {}\n", mtu.trim()));
        }
        ethtool::parse(
            &format!("ethtool {name}"),
            &text,
            &mut inputs.nics,
            &mut inputs.notes,
        );
        inputs.read.push(format!(
            "NIC {name}: {}",
            if has_ethtool {
                "ethtool and MTU"
            } else {
                "MTU (no ethtool here)"
            }
        ));
    }
}

fn host(inputs: &mut Inputs) {
    let facts: &mut HostFacts = &mut inputs.host;
    facts.memory_bytes = read(Path::new("/proc/meminfo")).and_then(|m| {
        let line = m.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    });
    let Ok(disks) = fs::read_dir("/sys/block") else {
        return;
    };
    let mut names: Vec<String> = disks
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| !["loop", "ram", "zram"].iter().any(|p| n.starts_with(p)))
        .collect();
    names.sort();
    for name in names {
        let queue = format!("/sys/block/{name}/queue");
        let kb =
            read(Path::new(&format!("{queue}/read_ahead_kb"))).and_then(|t| t.trim().parse().ok());
        let rotational =
            read(Path::new(&format!("{queue}/rotational"))).is_some_and(|t| t.trim() == "1");
        if let Some(kb) = kb {
            facts.disk_readahead.push((name, kb, rotational));
        }
    }
}
