//! The lab's server processes: started detached in their own process group, remembered by PID
//! and start time (so a recycled PID is never mistaken for ours), stopped by that group.

use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

/// How long a server may take to stop after SIGTERM before it gets SIGKILL.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// A process the lab started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub pid: i32,
    /// Start time in clock ticks since boot (/proc/PID/stat field 22).
    pub start_ticks: u64,
}

impl Started {
    /// Identifies a running process by PID, reading its start time.
    pub fn identify(pid: i32) -> Option<Started> {
        start_ticks(pid).map(|start_ticks| Started { pid, start_ticks })
    }

    /// True while this very process runs (not a zombie, not a newer process with the same PID).
    pub fn is_running(&self) -> bool {
        start_ticks(self.pid) == Some(self.start_ticks)
    }

    /// Stops the process, and everything in its process group when it leads one: SIGTERM, then
    /// SIGKILL after a grace period. A process that is already gone is left alone.
    pub fn stop(&self) {
        if !self.is_running() {
            return;
        }
        let gone = || !self.is_running() && !group_alive(self.pid);
        signal_group(self.pid, libc::SIGTERM);
        let deadline = Instant::now() + STOP_GRACE;
        while !gone() && Instant::now() < deadline {
            sleep(Duration::from_millis(50));
        }
        if gone() {
            return;
        }
        // what did not end on SIGTERM (a leader or the children it left) ends now
        signal_group(self.pid, libc::SIGKILL);
        while !gone() && Instant::now() < deadline + STOP_GRACE {
            sleep(Duration::from_millis(20));
        }
    }
}

/// True while a live (not zombie) process has `pgid` as its process group.
fn group_alive(pgid: i32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|entry| {
        // fields after the name: state, ppid, pgrp, …
        live_stat(&entry.path().join("stat")).and_then(|fields| fields.get(2)?.parse::<i32>().ok())
            == Some(pgid)
    })
}

/// Signals the process group `pid` leads, or the process alone when it leads none (rpcbind
/// lives in ganesha's group).
fn signal_group(pid: i32, signal: i32) {
    // SAFETY: getpgid() and kill() have no memory effects; a negative pid names a group.
    unsafe {
        let target = if libc::getpgid(pid) == pid { -pid } else { pid };
        libc::kill(target, signal);
    }
}

/// The start time of a live, non-zombie process.
fn start_ticks(pid: i32) -> Option<u64> {
    live_stat(Path::new(&format!("/proc/{pid}/stat")))?
        .get(19)?
        .parse()
        .ok()
}

/// The fields of a /proc stat file after the command name, for a process that is not a zombie.
fn live_stat(path: &Path) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(path).ok()?;
    // the command name may hold spaces and parentheses: fields start after the last ')'
    let fields: Vec<String> = stat
        .rsplit_once(')')?
        .1
        .split_whitespace()
        .map(String::from)
        .collect();
    let state = fields.first()?;
    (state != "Z" && state != "X").then_some(fields)
}

/// Starts `program args…` detached: a new session (so it is its own process group leader and
/// outlives this command), stdin from /dev/null, stdout and stderr appended to `log`.
pub fn spawn_detached(program: &Path, args: &[&str], log: &Path) -> io::Result<Started> {
    let out = File::options().create(true).append(true).open(log)?;
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out);
    // SAFETY: setsid() is async-signal-safe and touches no memory of the parent.
    unsafe {
        command.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = command.spawn()?;
    let pid = child.id() as i32;
    // dropping the Child neither waits nor kills; the server lives on
    drop(child);
    Started::identify(pid).ok_or_else(|| {
        io::Error::other(format!(
            "{} exited at once; see {}",
            program.display(),
            log.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A detached shell whose child stays in its process group (as rpcbind stays in ganesha's).
    fn leader_with_child(dir: &Path) -> (Started, Started) {
        let child_file = dir.join("child");
        let script = format!(
            "sleep 300 & echo $! > '{}'; exec sleep 300",
            child_file.display()
        );
        let leader =
            spawn_detached(Path::new("/bin/sh"), &["-c", &script], &dir.join("log")).unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(&child_file).map_or(true, |s| !s.ends_with('\n')) {
            assert!(Instant::now() < deadline, "the child never started");
            sleep(Duration::from_millis(10));
        }
        let pid = std::fs::read_to_string(&child_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        (leader, Started::identify(pid).unwrap())
    }

    #[test]
    fn a_started_process_is_identified_and_stopped_with_its_group() {
        let dir = tempfile::tempdir().unwrap();
        let (leader, child) = leader_with_child(dir.path());
        assert!(leader.is_running() && child.is_running());
        leader.stop();
        assert!(!leader.is_running());
        assert!(!child.is_running(), "the whole process group is stopped");
        let someone_else = Started {
            pid: leader.pid,
            start_ticks: leader.start_ticks + 1,
        };
        assert!(
            !someone_else.is_running(),
            "a different start time is another process"
        );
    }

    #[test]
    fn a_process_that_leads_no_group_is_stopped_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (leader, child) = leader_with_child(dir.path());
        child.stop();
        assert!(!child.is_running());
        assert!(leader.is_running(), "the leader's group was not signalled");
        leader.stop();
    }

    #[test]
    fn this_process_has_a_start_time() {
        let me = Started::identify(std::process::id() as i32).unwrap();
        assert!(me.is_running());
    }
}
