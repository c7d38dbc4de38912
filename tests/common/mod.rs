//! Helpers shared by the tests that need the lab: a lab of their own, clients run in its client
//! namespace, random files.
#![allow(dead_code)] // each test crate uses a different part

use sharebench::target::{payload, Discard, IoSettings, OpenMode, Target};
use sharebench::workload::{AccessParams, TestKind};
use std::collections::HashMap;
use std::fs;
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// One lab at a time: a rate measured on 2 cores must not share them with another lab's
/// transfers.
static ONE_LAB: Mutex<()> = Mutex::new(());

pub fn one_lab() -> MutexGuard<'static, ()> {
    ONE_LAB
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Runs sharebench in a working directory of its own, removed afterwards, so the journals a run
/// writes there by default are not left behind. Runs leave the lab's serve agent alone: the
/// baselines it measures after the tests are the subject of tests/baseline.rs only.
pub fn sharebench(args: &[&str]) -> Output {
    sharebench_serve(args, Some("none"))
}

/// As [`sharebench`], with `SHAREBENCH_SERVE` set to `serve`, or unset to find the agent as a
/// user's run does.
pub fn sharebench_serve(args: &[&str], serve: Option<&str>) -> Output {
    let cwd = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_sharebench"));
    match serve {
        Some(serve) => command.env("SHAREBENCH_SERVE", serve),
        None => command.env_remove("SHAREBENCH_SERVE"),
    };
    command.args(args).current_dir(cwd.path()).output().unwrap()
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn ready() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("skipped: the lab needs root");
    }
    root
}

/// A lab directory of its own, under a parent the lab user may enter.
pub struct Lab {
    _parent: TempDir,
    pub dir: PathBuf,
}

impl Lab {
    pub fn new() -> Lab {
        let parent = tempfile::tempdir().unwrap();
        fs::set_permissions(parent.path(), fs::Permissions::from_mode(0o755)).unwrap();
        let dir = parent.path().join("lab");
        Lab {
            _parent: parent,
            dir,
        }
    }

    pub fn dir(&self) -> &str {
        self.dir.to_str().unwrap()
    }

    pub fn run(&self, command: &str, extra: &[&str]) -> Output {
        let mut args = vec!["lab", command, "--dir", self.dir()];
        args.extend(extra);
        sharebench(&args)
    }

    pub fn up(&self, extra: &[&str]) {
        let out = self.run("up", extra);
        assert!(out.status.success(), "lab up: {}", text(&out.stderr));
    }

    pub fn env(&self) -> HashMap<String, String> {
        let out = self.run("env", &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .map(|line| {
                let (key, value) = line.split_once('=').expect("KEY=VALUE");
                let value = value
                    .strip_prefix('\'')
                    .unwrap()
                    .strip_suffix('\'')
                    .unwrap();
                (key.to_string(), value.replace("'\\''", "'"))
            })
            .collect()
    }

    /// Runs a client in the client namespace; panics with its output when it fails.
    pub fn client(&self, command: &[&str], env: &[(&str, &str)]) -> Output {
        let mut args = vec!["lab", "exec", "--dir", self.dir(), "--"];
        args.extend(command);
        let out = Command::new(env!("CARGO_BIN_EXE_sharebench"))
            .args(&args)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{command:?} failed: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        out
    }

    /// curl in the client namespace as the lab user.
    pub fn curl(&self, env: &HashMap<String, String>, args: &[&str]) -> Output {
        let user = format!("{}:{}", env["SHAREBENCH_USER"], env["SHAREBENCH_PASSWORD"]);
        let mut command = vec!["curl", "-sS", "-u", &user];
        command.extend(args);
        self.client(&command, &[])
    }

    pub fn pids(&self) -> Vec<(String, i32)> {
        let state: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(self.dir.join("lab.json")).unwrap()).unwrap();
        state["services"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap().to_string(),
                    s["process"]["pid"].as_i64().unwrap() as i32,
                )
            })
            .collect()
    }

    pub fn namespaces(&self) -> Vec<String> {
        let state: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(self.dir.join("lab.json")).unwrap()).unwrap();
        let ns = &state["netns"];
        vec![
            ns["server"].as_str().unwrap().to_string(),
            ns["client"].as_str().unwrap().to_string(),
        ]
    }
}

/// Runs this build's sharebench with `args` in the lab's client namespace (through lab exec).
pub fn sharebench_in_lab(lab: &Lab, args: &[&str]) -> Output {
    sharebench(&in_lab(lab, args))
}

/// As [`sharebench_in_lab`], where runs find and use the lab's serve agent.
pub fn sharebench_in_lab_with_agent(lab: &Lab, args: &[&str]) -> Output {
    sharebench_serve(&in_lab(lab, args), None)
}

/// `lab exec` of this build's sharebench with `args`.
fn in_lab<'a>(lab: &'a Lab, args: &[&'a str]) -> Vec<&'a str> {
    let mut command = vec![
        "lab",
        "exec",
        "--dir",
        lab.dir(),
        "--",
        env!("CARGO_BIN_EXE_sharebench"),
    ];
    command.extend(args);
    command
}

/// Reads a file of `file_size` from the lab's SMB share, `runs` counted runs and `extra`
/// arguments, finding the lab's serve agent as a user's run does (or not, without `agent`); the
/// output and the result document, when one was written.
pub fn smb_read_run(
    lab: &Lab,
    env: &HashMap<String, String>,
    file_size: &str,
    runs: &str,
    extra: &[&str],
    agent: bool,
) -> (Output, Option<serde_json::Value>) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("run.json");
    let mut args = vec![
        "run",
        env["SHAREBENCH_SMB_URL"].as_str(),
        "--tests",
        "read",
        "--file-size",
        file_size,
        "--runs",
        runs,
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend(extra);
    let out = if agent {
        sharebench_in_lab_with_agent(lab, &args)
    } else {
        sharebench_in_lab(lab, &args)
    };
    let doc = fs::read_to_string(&json)
        .ok()
        .map(|text| serde_json::from_str(&text).unwrap());
    (out, doc)
}

/// A lab of its own, up, with its environment; `None` (the test skips) without root. The guard
/// keeps other labs of this test binary away until the lab is down (fields drop in reverse order).
pub fn lab_up(extra: &[&str]) -> Option<(MutexGuard<'static, ()>, Lab, HashMap<String, String>)> {
    if !ready() {
        return None;
    }
    let one = one_lab();
    let lab = Lab::new();
    lab.up(extra);
    let env = lab.env();
    Some((one, lab, env))
}

/// Runs `work` on a thread inside the lab's client namespace.
pub fn in_client_namespace<T: Send + 'static>(
    lab: &Lab,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let namespace = fs::File::open(Path::new("/run/netns").join(&lab.namespaces()[1])).unwrap();
    std::thread::spawn(move || {
        // SAFETY: a namespace fd; CLONE_NEWNET changes only this thread.
        assert_eq!(
            unsafe { libc::setns(namespace.as_raw_fd(), libc::CLONE_NEWNET) },
            0
        );
        work()
    })
    .join()
    .unwrap()
}

/// Connects with `connect` inside the lab's client namespace and reads each of `files` (of
/// `records` records of `record` bytes) in the order of `test`, every block checked as `--verify`
/// does.
pub fn read_verified<const N: usize>(
    lab: &Lab,
    connect: impl FnOnce() -> Box<dyn Target> + Send + 'static,
    files: [&'static str; N],
    (record, records): (usize, usize),
    queue_depth: usize,
    test: TestKind,
) -> [Result<(), String>; N] {
    in_client_namespace(lab, move || {
        let target = connect();
        let io = IoSettings {
            max_io: record,
            queue_depth,
            direct: false,
            verify: true,
        };
        files.map(|name| {
            let mut handle = target.open(name, OpenMode::Existing, io).unwrap();
            let size = (record * records) as u64;
            let mut ops = test.ops(size, record as u64, AccessParams::default(), 3);
            handle
                .execute(&mut ops, &mut Discard, &AtomicBool::new(false))
                .map_err(|e| e.to_string())
        })
    })
}

/// Checks that `file` holds what sharebench's writes of `record` bytes put at each offset.
pub fn assert_written_by_records(file: &Path, record: usize) {
    let data = fs::read(file).unwrap();
    assert!(!data.is_empty());
    for (i, chunk) in data.chunks(record).enumerate() {
        let offset = (i * record) as u64;
        assert!(
            chunk == payload::expected(offset, chunk.len()).as_slice(),
            "record at {offset} of {} is not what was written",
            file.display()
        );
    }
}

/// The bytes sharebench writes as `records` records of `record` bytes, and a copy with the byte
/// at `flip` changed.
pub fn written_and_corrupt(records: usize, record: usize, flip: usize) -> (Vec<u8>, Vec<u8>) {
    let written: Vec<u8> = (0..records)
        .flat_map(|i| payload::expected((i * record) as u64, record))
        .collect();
    let mut corrupt = written.clone();
    corrupt[flip] ^= 1;
    (written, corrupt)
}

/// The `.sharebench-<id>` work directories in `dir`.
pub fn work_dirs(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".sharebench-"))
        .collect()
}

/// A failed assertion must not leave servers and namespaces behind: the lab comes down when the
/// test's `Lab` goes, also while a panic unwinds (and before its directory is deleted).
impl Drop for Lab {
    fn drop(&mut self) {
        if self.dir.join("lab.json").exists() {
            let _ = self.run("down", &[]);
        }
    }
}

pub fn alive(pid: i32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat
                .rsplit_once(')')
                .unwrap()
                .1
                .split_whitespace()
                .next()
                .unwrap();
            state != "Z"
        })
        .unwrap_or(false)
}

pub fn random_file(dir: &Path, name: &str, len: usize) -> PathBuf {
    let mut data = vec![0u8; len];
    let mut state = 0x1234_5678_9abc_def0u64 ^ len as u64;
    for byte in data.iter_mut() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *byte = state as u8;
    }
    let path = dir.join(name);
    fs::write(&path, data).unwrap();
    path
}

/// Starts a long read run of `url` in the lab, waits for two journaled runs, kills `server`
/// (its whole process group); returns the outcome, how long the run took to give up after the
/// kill, and the journal's lines.
pub fn run_until_the_server_dies(
    lab: &Lab,
    url: &str,
    server: &str,
    timeout: &str,
) -> (Output, Duration, Vec<serde_json::Value>) {
    let out_dir = tempfile::tempdir().unwrap();
    let journal = out_dir.path().join("j.jsonl");
    let child = Command::new(env!("CARGO_BIN_EXE_sharebench"))
        .env("SHAREBENCH_SERVE", "none")
        .args([
            "lab",
            "exec",
            "--dir",
            lab.dir(),
            "--",
            env!("CARGO_BIN_EXE_sharebench"),
            "run",
            url,
        ])
        .args([
            "--tests",
            "read",
            "--file-size",
            "16M",
            "--runs",
            "100000",
            "--warmup",
            "0",
            "--timeout",
            timeout,
            "--journal",
        ])
        .arg(&journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let runs = || {
        fs::read_to_string(&journal)
            .unwrap_or_default()
            .matches("\"kind\":\"run\"")
            .count()
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while runs() < 2 {
        assert!(Instant::now() < deadline, "no runs were journaled");
        std::thread::sleep(Duration::from_millis(20));
    }
    let leader = lab.pids().into_iter().find(|(n, _)| n == server).unwrap().1;
    // SAFETY: kill() of a process group the lab started (a server and its children).
    unsafe { libc::kill(-leader, libc::SIGKILL) };
    let stopped = Instant::now();
    let out = child.wait_with_output().unwrap();
    let took = stopped.elapsed();
    let lines = fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (out, took, lines)
}

/// Runs `sharebench run ARGS --file-size 1M --timeout 5` in the lab's client namespace and
/// asserts the refusal a user should see: exit code 2, one sentence that says `says`, and
/// neither `secret` nor a URL password in it.
pub fn assert_refused(lab: &Lab, args: &[String], says: &str, secret: &str) {
    let mut all = vec!["run"];
    all.extend(args.iter().map(String::as_str));
    all.extend(["--file-size", "1M", "--timeout", "5"]);
    let out = sharebench_in_lab(lab, &all);
    let stderr = text(&out.stderr);
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.contains("exited with code"))
        .collect();
    assert_eq!(out.status.code(), Some(2), "{all:?}: {stderr}");
    assert_eq!(ours.len(), 1, "{all:?}: {stderr}");
    assert!(
        ours[0].contains(says),
        "{all:?}: expected '{says}' in {stderr}"
    );
    assert!(!stderr.contains(secret), "{all:?} leaked the password");
    assert!(!stderr.contains(":wrong@"), "{all:?} showed a URL password");
}

/// Kills `server` in the middle of a run of `url` (see [`run_until_the_server_dies`]) and asserts
/// what a user should get: exit code 1 within 30 s, a sentence naming the kept journal, and the
/// finished runs in it, closed as failed.
pub fn assert_survives_the_server_dying(lab: &Lab, url: &str, server: &str) {
    let (out, took, lines) = run_until_the_server_dies(lab, url, server, "5");
    assert!(
        took < Duration::from_secs(30),
        "it hung after the server died"
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("finished run(s) are kept in"), "{stderr}");
    assert_eq!(lines.last().unwrap()["status"], "failed");
    assert!(lines.iter().filter(|l| l["kind"] == "run").count() >= 2);
}

/// Has sharebench write one 2 MiB file in 64 KiB records to `url` (with `extra` flags) and keep
/// it; returns the work directory it left in the lab's data directory, the only one there.
pub fn sharebench_writes_a_kept_file(
    lab: &Lab,
    env: &HashMap<String, String>,
    url: &str,
    extra: &[&str],
) -> String {
    let mut args = vec![
        "run",
        url,
        "--tests",
        "write",
        "--file-size",
        "2M",
        "--record-size",
        "64K",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--keep",
    ];
    args.extend(extra);
    let out = sharebench_in_lab(lab, &args);
    assert!(out.status.success(), "{url}: {}", text(&out.stderr));
    let mut work = work_dirs(Path::new(&env["SHAREBENCH_DATA_DIR"]));
    assert_eq!(work.len(), 1, "{url}");
    work.remove(0)
}

/// The outcomes of [`read_verified`] on an intact file and on one with a byte flipped in the
/// 4 KiB block at `corrupt_block`: the first reads back, the second fails naming that offset.
pub fn assert_intact_then_caught(
    outcomes: &[Result<(), String>; 2],
    corrupt_block: usize,
    what: &str,
) {
    assert_eq!(outcomes[0], Ok(()), "{what}: an intact file reads back");
    let error = outcomes[1].clone().unwrap_err();
    assert!(
        error.contains(&format!("offset {corrupt_block}")),
        "{what}: {error}"
    );
}
