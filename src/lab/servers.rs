//! Configuration files and start scripts of the lab's servers.
//!
//! Every server runs in a private mount namespace. There the lab's own passwd, group and shadow
//! files (with the lab user) and its own PAM file for vsftpd are bind-mounted over the system's,
//! and ganesha with its rpcbind gets a private /run. The system files are never written, and the
//! lab user exists only inside the lab.

use super::packages::{self, GANESHA_PLUGINS};
use super::profiles::SmbProfile;
use super::state::Ports;
use std::path::{Path, PathBuf};

/// Everything the configurations depend on.
#[derive(Debug, Clone)]
pub struct Setup {
    pub dir: PathBuf,
    pub addr: String,
    pub ports: Ports,
    pub user: String,
    pub uid: u32,
    /// default | mandatory | disabled (Samba's words)
    pub smb_signing: String,
    pub smb_encrypt: bool,
    /// SMB2_02 … SMB3_11
    pub smb_max_protocol: String,
    /// CPUs smbd may run on (taskset's list form), or all.
    pub smb_cpus: Option<String>,
    /// What smbd's configuration adds to the lab's own (`lab up --profile`).
    pub smb_profile: SmbProfile,
    /// [global] parameters set last, overriding everything above (a sweep's current point).
    pub smb_settings: Vec<(String, String)>,
}

/// A server: its name, the port clients use, and its start script.
pub struct Server {
    pub name: &'static str,
    pub port: Option<u16>,
    pub script: String,
}

impl Setup {
    fn path(&self, relative: &str) -> String {
        self.dir.join(relative).display().to_string()
    }

    fn q(&self, relative: &str) -> String {
        quote(&self.path(relative))
    }

    /// The directories `up` creates, relative to the lab directory.
    pub const DIRECTORIES: [&'static str; 15] = [
        "etc",
        "data",
        "log",
        "run",
        "secrets",
        "samba",
        "samba/lock",
        "samba/state",
        "samba/cache",
        "samba/pid",
        "samba/private",
        "samba/ncalrpc",
        "samba/bind-dns",
        "ganesha/recovery",
        "vsftpd/empty",
    ];

    /// The lab user's line in the lab's passwd file.
    pub fn passwd_line(&self) -> String {
        format!(
            "{user}:x:{uid}:{uid}:sharebench lab:{home}:/bin/sh\n",
            user = self.user,
            uid = self.uid,
            home = self.path("data")
        )
    }

    pub fn group_line(&self) -> String {
        format!("{}:x:{}:\n", self.user, self.uid)
    }

    /// The shadow file holds the lab user alone: no system secret is ever copied.
    pub fn shadow(&self, password_hash: &str) -> String {
        format!("{}:{password_hash}:19000:0:99999:7:::\n", self.user)
    }

    pub fn smb_conf(&self) -> String {
        format!(
            "# sharebench lab: a standalone Samba confined to the lab directory\n\
             [global]\n\
             \x20 server role = standalone server\n\
             \x20 workgroup = SHAREBENCH\n\
             \x20 interfaces = {addr}\n\
             \x20 bind interfaces only = yes\n\
             \x20 smb ports = {port}\n\
             \x20 disable netbios = yes\n\
             \x20 load printers = no\n\
             \x20 printing = bsd\n\
             \x20 printcap name = /dev/null\n\
             \x20 disable spoolss = yes\n\
             \x20 lock directory = {lock}\n\
             \x20 state directory = {state}\n\
             \x20 cache directory = {cache}\n\
             \x20 pid directory = {pid}\n\
             \x20 private dir = {private}\n\
             \x20 ncalrpc dir = {ncalrpc}\n\
             \x20 binddns dir = {binddns}\n\
             \x20 log file = {log}\n\
             \x20 max log size = 10000\n\
             \x20 passdb backend = tdbsam:{private}/passdb.tdb\n\
             \x20 server min protocol = SMB2_02\n\
             \x20 server max protocol = {max_protocol}\n\
             \x20 server signing = {signing}\n\
             \x20 server smb encrypt = {encrypt}\n\
             \x20 map to guest = Bad User\n\
             \x20 guest account = {user}\n\
             {profile}{settings}\n\
             [bench]\n\
             \x20 path = {data}\n\
             \x20 read only = no\n\
             \x20 guest ok = yes\n{share}{extra}",
            addr = self.addr,
            port = self.ports.smb,
            lock = self.path("samba/lock"),
            state = self.path("samba/state"),
            cache = self.path("samba/cache"),
            pid = self.path("samba/pid"),
            private = self.path("samba/private"),
            ncalrpc = self.path("samba/ncalrpc"),
            binddns = self.path("samba/bind-dns"),
            log = self.path("log/smbd.log"),
            max_protocol = self.smb_max_protocol,
            signing = self.smb_signing,
            encrypt = if self.smb_encrypt {
                "required"
            } else {
                "default"
            },
            user = self.user,
            data = self.path("data"),
            profile = lines(
                &format!("# profile {}", self.smb_profile.name()),
                &self
                    .smb_profile
                    .global(self.smb_signing == "mandatory" || self.smb_encrypt),
            ),
            settings = lines(
                "# set by sharebench sweep",
                &self
                    .smb_settings
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect::<Vec<_>>(),
            ),
            share = lines("", &self.smb_profile.share()),
            extra = self
                .smb_profile
                .extra_shares()
                .into_iter()
                .map(|(name, own)| format!(
                    "\n[{name}]\n  path = {}\n  read only = no\n  guest ok = yes\n{}",
                    self.path("data"),
                    lines("", &own)
                ))
                .collect::<String>(),
        )
    }

    pub fn ganesha_conf(&self) -> String {
        format!(
            "# sharebench lab: NFS-Ganesha exporting the lab data over NFSv3 and NFSv4.x\n\
             NFS_CORE_PARAM {{\n\
             \x20 NFS_Port = {nfs}; MNT_Port = {mount}; Bind_addr = {addr};\n\
             \x20 Enable_NLM = false; Enable_RQUOTA = false; Enable_UDP = false;\n\
             \x20 Protocols = 3, 4;\n\
             \x20 # v3 mounts by the same /data path as v4\n\
             \x20 Mount_Path_Pseudo = true;\n\
             \x20 Plugins_Dir = {GANESHA_PLUGINS};\n\
             }}\n\
             NFSV4 {{\n\
             \x20 # no grace period, so a restarted lab serves at once\n\
             \x20 Graceless = true; Lease_Lifetime = 5;\n\
             \x20 RecoveryRoot = {recovery};\n\
             }}\n\
             EXPORT {{\n\
             \x20 Export_Id = 1; Path = {data}; Pseudo = /data; Access_Type = RW;\n\
             \x20 # every client acts as the lab user, as over SMB and FTP\n\
             \x20 Squash = All_Squash; Anonymous_Uid = {uid}; Anonymous_Gid = {uid};\n\
             \x20 Protocols = 3, 4; Transports = TCP; SecType = sys;\n\
             \x20 FSAL {{ Name = VFS; }}\n\
             }}\n",
            nfs = self.ports.nfs,
            mount = self.ports.mount,
            addr = self.addr,
            recovery = self.path("ganesha/recovery"),
            data = self.path("data"),
            uid = self.uid,
        )
    }

    pub fn vsftpd_conf(&self) -> String {
        format!(
            "# sharebench lab: vsftpd with the lab user, writable, passive mode\n\
             listen=YES\n\
             listen_address={addr}\n\
             listen_port={port}\n\
             background=NO\n\
             anonymous_enable=NO\n\
             local_enable=YES\n\
             write_enable=YES\n\
             local_umask=022\n\
             pasv_enable=YES\n\
             pasv_address={addr}\n\
             pasv_min_port={pmin}\n\
             pasv_max_port={pmax}\n\
             seccomp_sandbox=NO\n\
             secure_chroot_dir={empty}\n\
             pam_service_name=vsftpd\n\
             xferlog_enable=YES\n\
             vsftpd_log_file={log}\n",
            addr = self.addr,
            port = self.ports.ftp,
            pmin = self.ports.passive_min,
            pmax = self.ports.passive_max,
            empty = self.path("vsftpd/empty"),
            log = self.path("log/vsftpd.log"),
        )
    }

    /// PAM for vsftpd inside the lab: the lab's shadow file and nothing else.
    pub fn vsftpd_pam() -> &'static str {
        "auth required pam_unix.so\naccount required pam_unix.so\nsession required pam_unix.so\n"
    }

    fn bind_users(&self, with_shadow: bool) -> String {
        let mut lines = format!(
            "{mount} --bind {passwd} /etc/passwd\n{mount} --bind {group} /etc/group\n",
            mount = program("mount"),
            passwd = self.q("etc/passwd"),
            group = self.q("etc/group"),
        );
        if with_shadow {
            lines.push_str(&format!(
                "{mount} --bind {shadow} /etc/shadow\n{mount} --bind {pam} /etc/pam.d/vsftpd\n",
                mount = program("mount"),
                shadow = self.q("etc/shadow"),
                pam = self.q("etc/pam-vsftpd"),
            ));
        }
        lines
    }

    /// The servers in start order, each with the script that starts it.
    pub fn servers(&self) -> Vec<Server> {
        let header =
            "#!/bin/sh\n# started by 'sharebench lab up' in a private mount namespace\nset -e\n";
        let smbd = format!(
            "{header}{binds}pw=$(cat {secret})\n\
             printf '%s\\n%s\\n' \"$pw\" \"$pw\" | {smbpasswd} -c {conf} -s -a {user} >/dev/null\n\
             exec {pin}{smbd} -F --no-process-group -s {conf}\n",
            pin = self.smb_cpus.as_ref().map_or(String::new(), |cpus| format!(
                "{} -c {} ",
                program("taskset"),
                quote(cpus)
            )),
            binds = self.bind_users(false),
            secret = self.q("secrets/password"),
            smbpasswd = program("smbpasswd"),
            conf = self.q("samba/smb.conf"),
            user = quote(&self.user),
            smbd = program("smbd"),
        );
        let ganesha = format!(
            "{header}# ganesha registers NFSv3 with a portmapper: a private one, on a private /run\n\
             {mount} -t tmpfs tmpfs /run\n\
             {rpcbind} -f &\n\
             echo $! > {rpcbind_pid}\n\
             for i in $(seq 100); do [ -S /run/rpcbind.sock ] && break; sleep 0.1; done\n\
             exec {ganesha} -F -f {conf} -L {log} -p {pid}\n",
            mount = program("mount"),
            rpcbind = program("rpcbind"),
            rpcbind_pid = self.q("run/rpcbind.pid"),
            ganesha = program("ganesha.nfsd"),
            conf = self.q("ganesha/ganesha.conf"),
            log = self.q("log/ganesha.log"),
            pid = self.q("run/ganesha.pid"),
        );
        let vsftpd = format!(
            "{header}{binds}exec {vsftpd} {conf}\n",
            binds = self.bind_users(true),
            vsftpd = program("vsftpd"),
            conf = self.q("vsftpd/vsftpd.conf"),
        );
        let iperf3 = format!(
            "{header}exec {iperf3} -s -B {addr} -p {port}\n",
            iperf3 = program("iperf3"),
            addr = self.addr,
            port = self.ports.iperf,
        );
        // the agent is this very program; the token keeps it to the lab's clients
        let serve = format!(
            "{header}exec {sharebench} serve --listen {addr}:{port} --token-file {token} \
             --disk {data}\n",
            sharebench = quote(
                &std::env::current_exe()
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| "sharebench".into())
            ),
            addr = self.addr,
            port = self.ports.serve,
            token = self.q("secrets/token"),
            data = self.q("data"),
        );
        vec![
            Server {
                name: "smbd",
                port: Some(self.ports.smb),
                script: smbd,
            },
            Server {
                name: "ganesha",
                port: Some(self.ports.nfs),
                script: ganesha,
            },
            Server {
                name: "vsftpd",
                port: Some(self.ports.ftp),
                script: vsftpd,
            },
            Server {
                name: "iperf3",
                port: Some(self.ports.iperf),
                script: iperf3,
            },
            Server {
                name: "serve",
                port: Some(self.ports.serve),
                script: serve,
            },
        ]
    }
}

/// A program's absolute path, shell-quoted (the plain name if it cannot be found).
fn program(name: &str) -> String {
    quote(
        &packages::find(name)
            .unwrap_or_else(|| Path::new(name).to_path_buf())
            .display()
            .to_string(),
    )
}

/// Single-quotes `text` for a POSIX shell.
/// smb.conf lines, under a comment when there are any.
fn lines(comment: &str, pairs: &[(&str, &str)]) -> String {
    if pairs.is_empty() {
        return String::new();
    }
    let mut text = if comment.is_empty() {
        String::new()
    } else {
        format!("  {comment}\n")
    };
    for (key, value) in pairs {
        text.push_str(&format!("  {key} = {value}\n"));
    }
    text
}

pub fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> Setup {
        Setup {
            dir: PathBuf::from("/tmp/lab dir"),
            addr: "10.211.0.1".into(),
            ports: Ports::STANDARD,
            user: "sharebench".into(),
            uid: 61000,
            smb_signing: "mandatory".into(),
            smb_encrypt: true,
            smb_max_protocol: "SMB3_02".into(),
            smb_cpus: None,
            smb_profile: SmbProfile::Untuned,
            smb_settings: Vec::new(),
        }
    }

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(quote("a b"), "'a b'");
        assert_eq!(quote("it's"), "'it'\\''s'");
    }

    #[test]
    fn samba_is_confined_to_the_lab_and_takes_the_security_choices() {
        let conf = setup().smb_conf();
        assert!(conf.contains("  server signing = mandatory\n"));
        assert!(conf.contains("  server smb encrypt = required\n"));
        assert!(conf.contains("  server max protocol = SMB3_02\n"));
        assert!(conf.contains("  interfaces = 10.211.0.1\n"));
        assert!(conf.contains("  private dir = /tmp/lab dir/samba/private\n"));
        assert!(conf.contains("  passdb backend = tdbsam:/tmp/lab dir/samba/private/passdb.tdb\n"));
        assert!(conf.contains("[bench]\n  path = /tmp/lab dir/data\n"));
        let plain = Setup {
            smb_signing: "default".into(),
            smb_encrypt: false,
            ..setup()
        }
        .smb_conf();
        assert!(plain.contains("  server smb encrypt = default\n"));
    }

    #[test]
    fn ganesha_exports_the_data_to_the_lab_user_on_the_lab_ports() {
        let conf = setup().ganesha_conf();
        assert!(conf.contains("NFS_Port = 2049; MNT_Port = 20048; Bind_addr = 10.211.0.1;"));
        assert!(conf.contains("Path = /tmp/lab dir/data; Pseudo = /data;"));
        assert!(conf.contains("Anonymous_Uid = 61000; Anonymous_Gid = 61000;"));
    }

    #[test]
    fn scripts_quote_paths_and_bind_only_lab_files() {
        let servers = setup().servers();
        let names: Vec<_> = servers.iter().map(|s| s.name).collect();
        assert_eq!(names, ["smbd", "ganesha", "vsftpd", "iperf3", "serve"]);
        let smbd = &servers[0].script;
        assert!(
            smbd.contains("--bind '/tmp/lab dir/etc/passwd' /etc/passwd\n"),
            "{smbd}"
        );
        assert!(!smbd.contains("/etc/shadow"), "smbd needs no shadow file");
        let vsftpd = &servers[2].script;
        assert!(
            vsftpd.contains("--bind '/tmp/lab dir/etc/shadow' /etc/shadow\n"),
            "{vsftpd}"
        );
        assert!(servers[1].script.contains("-t tmpfs tmpfs /run\n"));
        assert!(
            servers[4].script.contains("--disk '/tmp/lab dir/data'\n"),
            "the agent measures the disk under the shares: {}",
            servers[4].script
        );
        assert!(
            !smbd.contains("taskset"),
            "smbd runs anywhere unless pinned"
        );
        let pinned = Setup {
            smb_cpus: Some("0".into()),
            ..setup()
        }
        .servers();
        assert!(
            pinned[0].script.contains("taskset' -c '0' "),
            "{}",
            pinned[0].script
        );
    }

    #[test]
    fn the_shadow_file_holds_the_lab_user_alone() {
        assert_eq!(
            setup().shadow("$6$salt$hash"),
            "sharebench:$6$salt$hash:19000:0:99999:7:::\n"
        );
    }
}
