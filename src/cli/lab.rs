//! `sharebench lab …`: arguments and printing; the lab itself lives in crate::lab.

use super::Failure;
use crate::lab::profiles::SmbProfile;
use crate::lab::state::LabState;
use crate::lab::{self, LabError, UpOptions, UpOutcome};
use crate::units::{self, mbit_per_s};
use clap::{Args, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum LabCommand {
    /// Start Samba, NFS-Ganesha, vsftpd and iperf3 in a server namespace joined to a client
    /// namespace (root)
    Up(UpArgs),
    /// Show the servers, whether they run, and the configured and measured link rate
    Status(DirArg),
    /// Print KEY=VALUE lines for `eval "$(sharebench lab env)"`: URLs, user, password, addresses
    Env(DirArg),
    /// Run a command in the client namespace with the lab's environment
    Exec(ExecArgs),
    /// Stop exactly the processes `up` started, remove the namespaces and the lab directory
    Down(DownArgs),
}

#[derive(Args, Debug)]
pub struct DirArg {
    /// The lab directory [default: $SHAREBENCH_LAB_DIR, else <tmp>/sharebench-lab]
    #[arg(long)]
    pub dir: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct UpArgs {
    #[command(flatten)]
    pub dir: DirArg,

    /// Shape the link both ways: 10mbit, 100mbit, 1gbit or any rate
    #[arg(long, value_parser = link_rate)]
    pub link: Option<(String, f64)>,

    /// Run on loopback with ports unique to this lab instead of network namespaces
    #[arg(long)]
    pub no_netns: bool,

    /// Samba's signing policy
    #[arg(long, value_enum, default_value_t = Signing::Default)]
    pub smb_signing: Signing,

    /// Make Samba require encryption
    #[arg(long)]
    pub smb_encrypt: bool,

    /// The newest SMB dialect Samba offers: 2.0.2, 2.1, 3.0, 3.0.2 or 3.1.1
    #[arg(long, default_value = "3.1.1", value_parser = samba_protocol)]
    pub smb_max_protocol: String,

    /// Pin smbd to these CPUs (taskset's list form, e.g. 0 or 0-1), to make it the limit
    #[arg(long)]
    pub smb_cpus: Option<String>,

    /// smbd's configuration: Samba's defaults, the advisor's recommendations applied, or the
    /// 1999 guide's "recommended" settings (with a share [badplace] without oplocks)
    #[arg(long, value_enum, default_value_t = SmbProfile::Untuned)]
    pub profile: SmbProfile,
}

/// Samba's name for a dialect ("3.0.2" is SMB3_02).
fn samba_protocol(text: &str) -> Result<String, String> {
    crate::target::smb::parse_dialect(text)?;
    let mut parts = text.split('.');
    let major = parts.next().unwrap_or("2");
    let minor: String = parts.collect();
    Ok(format!("SMB{major}_{minor:0<2}"))
}

#[derive(Args, Debug)]
pub struct ExecArgs {
    #[command(flatten)]
    pub dir: DirArg,

    /// The command and its arguments
    #[arg(last = true, required = true)]
    pub command: Vec<String>,
}

#[derive(Args, Debug)]
pub struct DownArgs {
    #[command(flatten)]
    pub dir: DirArg,

    /// Keep the lab directory (logs, configurations, data) after stopping
    #[arg(long)]
    pub keep: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Signing {
    Default,
    Required,
    Disabled,
}

impl Signing {
    /// Samba's word for the policy.
    fn samba(self) -> &'static str {
        match self {
            Signing::Default => "default",
            Signing::Required => "mandatory",
            Signing::Disabled => "disabled",
        }
    }
}

fn link_rate(text: &str) -> Result<(String, f64), String> {
    units::parse_rate_bits(text)
        .map(|bits| (text.to_string(), bits))
        .map_err(|e| e.to_string())
}

impl DirArg {
    fn path(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(lab::default_dir)
    }
}

fn failure(e: LabError) -> Failure {
    if e.bad_input {
        Failure::bad_input(e.message)
    } else {
        Failure::failed(e.message)
    }
}

pub fn run(command: LabCommand) -> Result<(), Failure> {
    match command {
        LabCommand::Up(args) => up(args),
        LabCommand::Status(args) => status(args),
        LabCommand::Env(args) => {
            let state = lab::running(&args.path()).map_err(failure)?;
            for (key, value) in lab::env(&state) {
                println!("{key}={}", lab::servers::quote(&value));
            }
            Ok(())
        }
        LabCommand::Exec(args) => {
            let state = lab::running(&args.dir.path()).map_err(failure)?;
            let status = lab::exec(&state, &args.command)
                .map_err(|e| Failure::failed(format!("cannot run {}: {e}.", args.command[0])))?;
            // the command's own exit code passes through silently, as with `ip netns exec`
            match status.code() {
                Some(0) => Ok(()),
                Some(code) => Err(Failure::quiet(code)),
                None => Err(Failure::failed(format!(
                    "{} was ended by a signal.",
                    args.command[0]
                ))),
            }
        }
        LabCommand::Down(args) => match lab::down(&args.dir.path(), args.keep).map_err(failure)? {
            None => {
                println!(
                    "no lab is up in {}; nothing to do.",
                    args.dir.path().display()
                );
                Ok(())
            }
            Some(state) => {
                println!(
                    "lab in {} is down: {} processes stopped{}.",
                    state.dir.display(),
                    state.services.len(),
                    if state.netns.is_some() {
                        ", namespaces removed"
                    } else {
                        ""
                    }
                );
                Ok(())
            }
        },
    }
}

fn up(args: UpArgs) -> Result<(), Failure> {
    let options = UpOptions {
        dir: args.dir.path(),
        link: args.link,
        netns: !args.no_netns,
        smb_signing: args.smb_signing.samba().into(),
        smb_encrypt: args.smb_encrypt,
        smb_max_protocol: args.smb_max_protocol,
        smb_cpus: args.smb_cpus,
        smb_profile: args.profile,
    };
    match lab::up(&options).map_err(failure)? {
        UpOutcome::AlreadyUp(state) => {
            println!(
                "a lab is already up in {} (since {}); nothing changed.",
                state.dir.display(),
                state.started
            );
        }
        UpOutcome::Started(state) => {
            print!("{}", describe(&state));
            let dir = dir_flag(&state);
            println!(
                "use it:  eval \"$(sharebench lab env{dir})\"; sharebench lab exec{dir} -- CMD …"
            );
        }
    }
    Ok(())
}

fn dir_flag(state: &LabState) -> String {
    if state.dir == lab::default_dir() {
        String::new()
    } else {
        format!(
            " --dir {}",
            lab::servers::quote(&state.dir.display().to_string())
        )
    }
}

/// The lab in a few lines: where it is, its network, each server with its PID and port.
fn describe(state: &LabState) -> String {
    let mut out = format!("lab in {} since {}\n", state.dir.display(), state.started);
    match &state.netns {
        Some(ns) => out.push_str(&format!(
            "network: servers in namespace {} ({}), clients in {} ({}), link {}\n",
            ns.server,
            state.server_addr,
            ns.client,
            ns.client_addr,
            state
                .link
                .as_ref()
                .map_or("unshaped", |(text, _)| text.as_str())
        )),
        None => out.push_str(&format!("network: loopback {}\n", state.server_addr)),
    }
    out.push_str(&format!(
        "samba up to {}, signing {}, encryption {}; user {}\n",
        state.smb_max_protocol,
        state.smb_signing,
        if state.smb_encrypt {
            "required"
        } else {
            "default"
        },
        state.user
    ));
    for service in &state.services {
        let state_word = if service.process.is_running() {
            "running"
        } else {
            "NOT RUNNING"
        };
        let port = service
            .port
            .map_or(String::new(), |p| format!("{}:{p}", state.server_addr));
        out.push_str(&format!(
            "  {:<8} pid {:<7} {:<12} {}\n",
            service.name, service.process.pid, state_word, port
        ));
    }
    out
}

fn status(args: DirArg) -> Result<(), Failure> {
    let state = lab::running(&args.path()).map_err(failure)?;
    print!("{}", describe(&state));
    println!("data: {}", lab::data_usage(&state));
    let configured = state
        .link
        .as_ref()
        .map_or("unshaped".to_string(), |(text, _)| text.clone());
    match lab::measure_link(&state) {
        Some(bits) => println!(
            "link: configured {configured}, measured {:.1} Mb/s (iperf3, 2 s, TCP payload)",
            mbit_per_s(bits / 8.0)
        ),
        None => println!("link: configured {configured}, not measured (iperf3 is not running)"),
    }
    let stopped: Vec<&str> = state
        .services
        .iter()
        .filter(|s| !s.process.is_running())
        .map(|s| s.name.as_str())
        .collect();
    if stopped.is_empty() {
        Ok(())
    } else {
        Err(Failure::failed(format!(
            "{} not running (crashed or killed); see the logs in {}.",
            stopped.join(", ") + if stopped.len() == 1 { " is" } else { " are" },
            state.dir.join("log").display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dialects_take_sambas_protocol_names() {
        let names: Vec<String> = ["2.0.2", "2.1", "3.0", "3.0.2", "3.1.1"]
            .iter()
            .map(|d| samba_protocol(d).unwrap())
            .collect();
        assert_eq!(
            names,
            ["SMB2_02", "SMB2_10", "SMB3_00", "SMB3_02", "SMB3_11"]
        );
        assert!(samba_protocol("1.0").is_err());
    }
}
