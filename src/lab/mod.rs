//! The lab: real Samba, NFS-Ganesha (with its rpcbind) and vsftpd, plus an iperf3 server for
//! the link rate, in a server network namespace joined to a client namespace by a veth pair,
//! optionally shaped. All state lives under the lab directory; `down` undoes all of `up`.

pub mod network;
pub mod packages;
pub mod process;
pub mod profiles;
pub mod servers;
pub mod state;

use crate::units::format_size;
use process::Started;
use profiles::SmbProfile;
use servers::Setup;
use state::{LabState, Namespaces, Ports, Service};
use std::fs;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::os::unix::fs::{chown, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant, SystemTime};

/// The lab user, on every protocol.
pub const USER: &str = "sharebench";
/// The SMB share.
pub const SHARE: &str = "bench";
/// The NFS export (pseudo path, also used for v3 mounts).
pub const EXPORT: &str = "/data";

/// How long the servers may take to accept connections.
const READY_TIMEOUT: Duration = Duration::from_secs(45);

/// Why a lab command failed; `bad_input` ones are the user's to fix.
#[derive(Debug)]
pub struct LabError {
    pub bad_input: bool,
    pub message: String,
}

impl LabError {
    fn input(message: impl Into<String>) -> LabError {
        LabError {
            bad_input: true,
            message: message.into(),
        }
    }

    fn failed(message: impl Into<String>) -> LabError {
        LabError {
            bad_input: false,
            message: message.into(),
        }
    }
}

fn io_failed(doing: &str) -> impl Fn(io::Error) -> LabError + '_ {
    move |e| LabError::failed(format!("{doing}: {e}."))
}

/// Choices for `lab up`.
#[derive(Debug, Clone)]
pub struct UpOptions {
    pub dir: PathBuf,
    /// Shape the link to this rate: (as given, bits per second).
    pub link: Option<(String, f64)>,
    pub netns: bool,
    /// Samba's word: default | mandatory | disabled.
    pub smb_signing: String,
    pub smb_encrypt: bool,
    /// Samba's name of the newest dialect it offers (SMB2_02 … SMB3_11).
    pub smb_max_protocol: String,
    /// CPUs smbd is pinned to (taskset's list form).
    pub smb_cpus: Option<String>,
    pub smb_profile: SmbProfile,
}

pub enum UpOutcome {
    Started(LabState),
    AlreadyUp(LabState),
}

/// The lab directory when none is given: `$SHAREBENCH_LAB_DIR`, else `<tmp>/sharebench-lab`.
pub fn default_dir() -> PathBuf {
    std::env::var_os("SHAREBENCH_LAB_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("sharebench-lab"))
}

/// A short id from the lab directory's path, naming its namespaces and deriving its ports.
pub fn lab_id(dir: &Path) -> String {
    // FNV-1a: stable across builds and platforms, unlike std's hasher
    let hash = dir
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        });
    format!("{:06x}", hash & 0xff_ffff)
}

/// Standard ports inside namespaces; without them, ports unique to this lab on loopback.
fn ports(netns: bool, id: &str) -> Ports {
    if netns {
        return Ports::STANDARD;
    }
    // 10000..32400: below the kernel's ephemeral range (32768 up), so no client port collides
    let slot = u16::from_str_radix(&id[..4], 16).unwrap_or(0) % 1400;
    let base = 10000 + slot * 16;
    Ports {
        smb: base,
        nfs: base + 1,
        mount: base + 2,
        ftp: base + 3,
        iperf: base + 4,
        serve: base + 5,
        passive_min: base + 6,
        passive_max: base + 15,
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Starts the lab in `options.dir`, or says it is already up.
pub fn up(options: &UpOptions) -> Result<UpOutcome, LabError> {
    if !is_root() {
        return Err(LabError::input(
            "the lab needs root: it creates network namespaces and starts servers that switch users.",
        ));
    }
    if let Some(sentence) = packages::missing() {
        return Err(LabError::input(sentence));
    }
    if options.link.is_some() && !options.netns {
        return Err(LabError::input(
            "--link shapes the veth between the lab's namespaces, so it cannot go with --no-netns.",
        ));
    }
    let dir = &options.dir;
    if let Some(state) = LabState::load(dir).map_err(io_failed("cannot read the lab state"))? {
        if state.services.iter().any(|s| s.process.is_running()) {
            return Ok(UpOutcome::AlreadyUp(state));
        }
        // a lab whose servers all died: clear it away and start afresh
        teardown(&state, false);
    }
    if dir.exists() && fs::read_dir(dir).map_or(true, |mut d| d.next().is_some()) {
        return Err(LabError::input(format!(
            "{} exists and is not a lab directory; choose another with --dir.",
            dir.display()
        )));
    }
    fs::create_dir_all(dir).map_err(io_failed("cannot create the lab directory"))?;
    let dir = dir
        .canonicalize()
        .map_err(io_failed("cannot resolve the lab directory"))?;
    if let Some(closed) = closed_ancestor(&dir) {
        let _ = fs::remove_dir(&dir);
        return Err(LabError::input(format!(
            "the servers switch to the lab user, who cannot enter {}; choose a --dir whose \
             parents all let others in (such as one under /tmp).",
            closed.display()
        )));
    }
    let mut state = new_state(&dir, options);
    let started = build(&mut state).and_then(|()| start(&mut state));
    match started {
        Ok(()) => Ok(UpOutcome::Started(state)),
        Err(e) => {
            teardown(&state, false);
            Err(e)
        }
    }
}

fn new_state(dir: &Path, options: &UpOptions) -> LabState {
    let id = lab_id(dir);
    let netns = options.netns.then(|| network::names(&id));
    LabState {
        dir: dir.to_path_buf(),
        started: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        user: USER.into(),
        uid: free_uid(),
        server_addr: if netns.is_some() {
            network::SERVER_ADDR.into()
        } else {
            "127.0.0.1".into()
        },
        ports: ports(netns.is_some(), &id),
        netns,
        link: options.link.clone(),
        smb_signing: options.smb_signing.clone(),
        smb_encrypt: options.smb_encrypt,
        smb_max_protocol: options.smb_max_protocol.clone(),
        smb_cpus: options.smb_cpus.clone(),
        smb_profile: options.smb_profile,
        smb_settings: Vec::new(),
        services: Vec::new(),
    }
}

fn setup_of(state: &LabState) -> Setup {
    Setup {
        dir: state.dir.clone(),
        addr: state.server_addr.clone(),
        ports: state.ports,
        user: state.user.clone(),
        uid: state.uid,
        smb_signing: state.smb_signing.clone(),
        smb_encrypt: state.smb_encrypt,
        smb_max_protocol: state.smb_max_protocol.clone(),
        smb_cpus: state.smb_cpus.clone(),
        smb_profile: state.smb_profile,
        smb_settings: state.smb_settings.clone(),
    }
}

/// Writes the lab's directories, user files, secrets and configurations.
fn build(state: &mut LabState) -> Result<(), LabError> {
    let setup = setup_of(state);
    let dir = &state.dir;
    let write = |relative: &str, text: &str, mode: u32| -> Result<(), LabError> {
        let path = dir.join(relative);
        fs::write(&path, text)
            .and_then(|()| fs::set_permissions(&path, fs::Permissions::from_mode(mode)))
            .map_err(io_failed(&format!("cannot write {}", path.display())))
    };
    for relative in Setup::DIRECTORIES {
        fs::create_dir_all(dir.join(relative))
            .map_err(io_failed(&format!("cannot create {relative} in the lab")))?;
    }
    fs::set_permissions(dir.join("secrets"), fs::Permissions::from_mode(0o700))
        .map_err(io_failed("cannot protect the lab's secrets"))?;
    chown(dir.join("data"), Some(state.uid), Some(state.uid))
        .map_err(io_failed("cannot hand the data directory to the lab user"))?;
    state
        .save()
        .map_err(io_failed("cannot write the lab state"))?;

    let password = new_password();
    write("secrets/password", &password, 0o600)?;
    write("secrets/token", &new_password(), 0o600)?;
    let passwd = fs::read_to_string("/etc/passwd").unwrap_or_default();
    let group = fs::read_to_string("/etc/group").unwrap_or_default();
    write("etc/passwd", &(passwd + &setup.passwd_line()), 0o644)?;
    write("etc/group", &(group + &setup.group_line()), 0o644)?;
    write(
        "etc/shadow",
        &setup.shadow(&password_hash(&password)?),
        0o600,
    )?;
    write("etc/pam-vsftpd", Setup::vsftpd_pam(), 0o644)?;
    write("samba/smb.conf", &setup.smb_conf(), 0o644)?;
    write("ganesha/ganesha.conf", &setup.ganesha_conf(), 0o644)?;
    write("vsftpd/vsftpd.conf", &setup.vsftpd_conf(), 0o644)?;
    for server in setup.servers() {
        write(&format!("run/{}.sh", server.name), &server.script, 0o755)?;
    }
    Ok(())
}

/// Creates the network, starts every server and waits until each accepts connections.
fn start(state: &mut LabState) -> Result<(), LabError> {
    if let Some(ns) = &state.netns {
        network::create(ns).map_err(io_failed("cannot create the lab network"))?;
        if let Some((_, bits)) = &state.link {
            network::shape(ns, *bits).map_err(io_failed("cannot shape the lab link"))?;
        }
    }
    let setup = setup_of(state);
    for server in setup.servers() {
        let script = state.dir.join(format!("run/{}.sh", server.name));
        let log = state.dir.join(format!("log/{}.out", server.name));
        let process = spawn_in_server_namespace(state.netns.as_ref(), &script, &log)
            .map_err(io_failed(&format!("cannot start {}", server.name)))?;
        state.services.push(Service {
            name: server.name.into(),
            process,
            log,
            port: server.port,
        });
        state
            .save()
            .map_err(io_failed("cannot write the lab state"))?;
    }
    wait_ready(state)?;
    // ganesha's portmapper was started by its script; remember it too
    let rpcbind_pid = fs::read_to_string(state.dir.join("run/rpcbind.pid")).unwrap_or_default();
    if let Some(process) = rpcbind_pid.trim().parse().ok().and_then(Started::identify) {
        state.services.push(Service {
            name: "rpcbind".into(),
            process,
            log: state.dir.join("log/ganesha.out"),
            port: None,
        });
    }
    state
        .save()
        .map_err(io_failed("cannot write the lab state"))
}

fn spawn_in_server_namespace(
    netns: Option<&Namespaces>,
    script: &Path,
    log: &Path,
) -> io::Result<Started> {
    let missing = |name: &str| io::Error::new(io::ErrorKind::NotFound, format!("{name} not found"));
    let unshare = packages::find("unshare").ok_or_else(|| missing("unshare"))?;
    let unshare = unshare.display().to_string();
    let script = script.display().to_string();
    let private_mounts = [
        unshare.as_str(),
        "--mount",
        "--propagation",
        "private",
        "/bin/sh",
        script.as_str(),
    ];
    match netns {
        Some(ns) => {
            let ip = packages::find("ip").ok_or_else(|| missing("ip"))?;
            let mut args = vec!["netns", "exec", ns.server.as_str()];
            args.extend(private_mounts);
            process::spawn_detached(&ip, &args, log)
        }
        None => process::spawn_detached(Path::new(&unshare), &private_mounts[1..], log),
    }
}

/// Waits until every server's port answers from the client side; a server that dies instead
/// ends the wait with the last lines of its log.
fn wait_ready(state: &LabState) -> Result<(), LabError> {
    let deadline = Instant::now() + READY_TIMEOUT;
    let client_ns = state.netns.as_ref().map(|ns| ns.client.as_str());
    let mut waiting: Vec<&Service> = state.services.iter().filter(|s| s.port.is_some()).collect();
    while !waiting.is_empty() {
        if let Some(dead) = waiting.iter().find(|s| !s.process.is_running()) {
            return Err(LabError::failed(format!(
                "{} stopped during start-up; its log ends: {}",
                dead.name,
                log_tail(&dead.log)
            )));
        }
        waiting.retain(|service| {
            let addr = format!("{}:{}", state.server_addr, service.port.unwrap_or(0));
            let addr: SocketAddr = addr.parse().expect("lab addresses are valid");
            !network::can_connect(client_ns, addr)
        });
        if Instant::now() > deadline {
            let names: Vec<&str> = waiting.iter().map(|s| s.name.as_str()).collect();
            return Err(LabError::failed(format!(
                "{} did not accept connections within {} s; see the logs in {}",
                names.join(", "),
                READY_TIMEOUT.as_secs(),
                state.dir.join("log").display()
            )));
        }
        if !waiting.is_empty() {
            sleep(Duration::from_millis(100));
        }
    }
    Ok(())
}

fn log_tail(log: &Path) -> String {
    let text = fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(3)..].join(" | ");
    if tail.is_empty() {
        format!("(nothing; see {})", log.display())
    } else {
        tail
    }
}

/// Stops every server (by PID and process group), removes the namespaces, and removes the lab
/// directory unless `keep_dir`.
fn teardown(state: &LabState, keep_dir: bool) -> Vec<String> {
    let mut problems = Vec::new();
    for service in state.services.iter().rev() {
        service.process.stop();
        if service.process.is_running() {
            problems.push(format!(
                "{} (pid {}) did not stop",
                service.name, service.process.pid
            ));
        }
    }
    if let Some(ns) = &state.netns {
        if let Err(e) = network::delete(ns) {
            problems.push(e.to_string());
        }
    }
    let removed = if keep_dir {
        fs::remove_file(LabState::path(&state.dir))
    } else {
        fs::remove_dir_all(&state.dir)
    };
    if let Err(e) = removed {
        problems.push(format!("cannot remove {}: {e}", state.dir.display()));
    }
    problems
}

/// Stops the lab in `dir` and returns what it was; `None` when no lab was up (not an error).
pub fn down(dir: &Path, keep_dir: bool) -> Result<Option<LabState>, LabError> {
    let Some(state) = LabState::load(dir).map_err(io_failed("cannot read the lab state"))? else {
        return Ok(None);
    };
    let problems = teardown(&state, keep_dir);
    if problems.is_empty() {
        Ok(Some(state))
    } else {
        Err(LabError::failed(format!(
            "the lab did not come down cleanly: {}.",
            problems.join("; ")
        )))
    }
}

/// The lab's state, or a sentence saying no lab is up there.
pub fn running(dir: &Path) -> Result<LabState, LabError> {
    LabState::load(dir)
        .map_err(io_failed("cannot read the lab state"))?
        .ok_or_else(|| {
            LabError::input(format!(
                "no lab is up in {}; start one with 'sharebench lab up'.",
                dir.display()
            ))
        })
}

/// The link rate measured now with iperf3 from the client side, bits per second.
pub fn measure_link(state: &LabState) -> Option<f64> {
    let iperf = state.services.iter().find(|s| s.name == "iperf3")?;
    if !iperf.process.is_running() {
        return None;
    }
    let port = state.ports.iperf.to_string();
    let args = ["-c", &state.server_addr, "-p", &port, "-t", "2", "-J"];
    let out = client_command(state, packages::find("iperf3")?.to_str()?, &args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    report["end"]["sum_received"]["bits_per_second"].as_f64()
}

/// A command that runs in the client namespace (or here, without namespaces), with the lab's
/// environment.
fn client_command(state: &LabState, program: &str, args: &[&str]) -> Command {
    let mut command = match (&state.netns, packages::find("ip")) {
        (Some(ns), Some(ip)) => {
            let mut command = Command::new(ip);
            command.args(["netns", "exec", &ns.client, program]);
            command
        }
        _ => Command::new(program),
    };
    command.args(args).envs(env(state));
    command
}

/// Runs `command` in the client namespace with the lab's environment.
pub fn exec(state: &LabState, command: &[String]) -> io::Result<ExitStatus> {
    let (program, args) = command
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no command"))?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    client_command(state, program, &args).status()
}

/// Sets smbd [global] parameters over the lab's configuration (replacing those set before;
/// none restores the profile's) and makes the running smbd read it: new connections, such as
/// the next run's, get them.
pub fn set_smb_parameters(dir: &Path, settings: &[(String, String)]) -> Result<(), LabError> {
    let mut state = running(dir)?;
    state.smb_settings = settings.to_vec();
    let conf = state.dir.join("samba/smb.conf");
    fs::write(&conf, setup_of(&state).smb_conf())
        .map_err(io_failed(&format!("cannot write {}", conf.display())))?;
    state
        .save()
        .map_err(io_failed("cannot write the lab state"))?;
    let smbd = state
        .services
        .iter()
        .find(|s| s.name == "smbd" && s.process.is_running())
        .ok_or_else(|| LabError::failed("the lab's smbd is not running."))?;
    // SAFETY: kill has no memory preconditions; the pid is the lab's own smbd, checked alive
    if unsafe { libc::kill(smbd.process.pid, libc::SIGHUP) } != 0 {
        return Err(LabError::failed(format!(
            "cannot tell smbd to reload: {}.",
            io::Error::last_os_error()
        )));
    }
    // smbd reloads from its event loop; give it that turn before the next connection
    sleep(Duration::from_millis(500));
    Ok(())
}

/// Reads a sysctl in the lab's server namespace (network sysctls are per namespace).
pub fn server_sysctl(state: &LabState, key: &str) -> Result<String, LabError> {
    let output = server_namespace_command(state, "sysctl", &["-n", key])?
        .output()
        .map_err(io_failed("cannot run sysctl"))?;
    if !output.status.success() {
        return Err(LabError::input(format!(
            "{key} is not a sysctl of the lab's server namespace."
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_string())
}

/// Sets a sysctl in the lab's server namespace.
pub fn set_server_sysctl(state: &LabState, key: &str, value: &str) -> Result<(), LabError> {
    let status =
        server_namespace_command(state, "sysctl", &["-q", "-w", &format!("{key}={value}")])?
            .status()
            .map_err(io_failed("cannot run sysctl"))?;
    if !status.success() {
        return Err(LabError::input(format!(
            "{key} cannot be set to \"{value}\" in the lab's server namespace."
        )));
    }
    Ok(())
}

fn server_namespace_command(
    state: &LabState,
    program: &str,
    args: &[&str],
) -> Result<Command, LabError> {
    let (Some(ns), Some(ip)) = (&state.netns, packages::find("ip")) else {
        return Err(LabError::input(
            "sysctls are per network namespace; a lab with --no-netns shares the host's.",
        ));
    };
    let mut command = Command::new(ip);
    command
        .args(["netns", "exec", &ns.server, program])
        .args(args);
    Ok(command)
}

/// `KEY=VALUE` pairs a shell or a test can use to reach the lab.
pub fn env(state: &LabState) -> Vec<(String, String)> {
    let password = fs::read_to_string(state.dir.join("secrets/password")).unwrap_or_default();
    let token = fs::read_to_string(state.dir.join("secrets/token")).unwrap_or_default();
    let (addr, p) = (&state.server_addr, &state.ports);
    let mut pairs = vec![
        ("SHAREBENCH_LAB_DIR", state.dir.display().to_string()),
        ("SHAREBENCH_SERVER_ADDR", addr.clone()),
        (
            "SHAREBENCH_SMB_URL",
            format!("smb://{USER}@{addr}:{}/{SHARE}", p.smb),
        ),
        (
            "SHAREBENCH_NFS_URL",
            format!("nfs://{addr}{EXPORT}?version=4.1&nfsport={}", p.nfs),
        ),
        (
            "SHAREBENCH_NFS3_URL",
            format!(
                "nfs://{addr}{EXPORT}?version=3&nfsport={}&mountport={}",
                p.nfs, p.mount
            ),
        ),
        (
            "SHAREBENCH_FTP_URL",
            format!("ftp://{USER}@{addr}:{}/", p.ftp),
        ),
        ("SHAREBENCH_USER", USER.to_string()),
        ("SHAREBENCH_PASSWORD", password),
        (
            "SHAREBENCH_DATA_DIR",
            state.data_dir().display().to_string(),
        ),
        ("SHAREBENCH_SMB_PORT", p.smb.to_string()),
        ("SHAREBENCH_NFS_PORT", p.nfs.to_string()),
        ("SHAREBENCH_MOUNT_PORT", p.mount.to_string()),
        ("SHAREBENCH_FTP_PORT", p.ftp.to_string()),
        ("SHAREBENCH_IPERF_PORT", p.iperf.to_string()),
        ("SHAREBENCH_SERVE_ADDR", format!("{addr}:{}", p.serve)),
        ("SHAREBENCH_TOKEN", token),
    ];
    if let Some(ns) = &state.netns {
        pairs.push(("SHAREBENCH_CLIENT_NETNS", ns.client.clone()));
        pairs.push(("SHAREBENCH_SERVER_NETNS", ns.server.clone()));
    }
    if let Some((text, _)) = &state.link {
        pairs.push(("SHAREBENCH_LINK", text.clone()));
    }
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The first ancestor of `dir` that other users cannot enter, if any.
fn closed_ancestor(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|p| fs::metadata(p).map_or(true, |m| m.permissions().mode() & 0o001 == 0))
        .map(Path::to_path_buf)
}

/// A uid (and gid) no system user or group has, for the lab user.
fn free_uid() -> u32 {
    let taken = |file: &str| -> Vec<u32> {
        fs::read_to_string(file)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.split(':').nth(2)?.parse().ok())
            .collect()
    };
    let (users, groups) = (taken("/etc/passwd"), taken("/etc/group"));
    (61000..65000)
        .find(|id| !users.contains(id) && !groups.contains(id))
        .unwrap_or(61000)
}

/// Twenty letters and digits from the kernel's random source.
fn new_password() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut password = String::new();
    while password.len() < 20 {
        let byte: [u8; 1] = crate::random::bytes().expect("the kernel gives random bytes");
        // reject the top of the byte range so every character is equally likely
        if (byte[0] as usize) < 256 - 256 % ALPHABET.len() {
            password.push(ALPHABET[byte[0] as usize % ALPHABET.len()] as char);
        }
    }
    password
}

/// The SHA-512 crypt hash of `password`, as /etc/shadow holds it (made by openssl, fed on stdin
/// so the password never appears in a process list).
fn password_hash(password: &str) -> Result<String, LabError> {
    let openssl =
        packages::find("openssl").ok_or_else(|| LabError::input("openssl is missing."))?;
    let mut child = Command::new(openssl)
        .args(["passwd", "-6", "-stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(io_failed("cannot run openssl"))?;
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(password.as_bytes())
        .map_err(io_failed("cannot run openssl"))?;
    let out = child
        .wait_with_output()
        .map_err(io_failed("cannot run openssl"))?;
    let hash = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() || !hash.starts_with("$6$") {
        return Err(LabError::failed("openssl could not hash the lab password."));
    }
    Ok(hash)
}

/// A one-line description of the data directory's use, for status.
pub fn data_usage(state: &LabState) -> String {
    let bytes: u64 = fs::read_dir(state.data_dir())
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0);
    format!("{} in {}", format_size(bytes), state.data_dir().display())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_differ_by_directory() {
        assert_eq!(lab_id(Path::new("/tmp/a")), lab_id(Path::new("/tmp/a")));
        assert_ne!(lab_id(Path::new("/tmp/a")), lab_id(Path::new("/tmp/b")));
        assert_eq!(lab_id(Path::new("/tmp/a")).len(), 6);
    }

    #[test]
    fn loopback_ports_are_distinct_and_in_range() {
        let p = ports(false, "ffffff");
        let all = [
            p.smb,
            p.nfs,
            p.mount,
            p.ftp,
            p.iperf,
            p.serve,
            p.passive_min,
            p.passive_max,
        ];
        let mut unique = all.to_vec();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), all.len());
        assert!(p.smb >= 10000 && p.passive_max < 32768);
        assert_eq!(ports(true, "ffffff").smb, 445);
    }

    #[test]
    fn passwords_are_twenty_unambiguous_characters() {
        let a = new_password();
        assert_eq!(a.len(), 20);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() && !"0O1lI".contains(c)));
        assert_ne!(a, new_password());
    }

    #[test]
    fn a_closed_parent_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let closed = dir.path().join("closed");
        let inner = closed.join("inner");
        fs::create_dir_all(&inner).unwrap();
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o700)).unwrap();
        assert_eq!(closed_ancestor(&inner), Some(closed.clone()));
        fs::set_permissions(&closed, fs::Permissions::from_mode(0o755)).unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(closed_ancestor(&inner), None);
    }
}
