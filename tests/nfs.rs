//! The NFSv3 target against the lab's NFS-Ganesha, cross-checked with nfs-cp both ways, and the
//! mount options' promises when the server goes away.

mod common;

use common::*;
use serde_json::Value;
use sharebench::target::nfs::NfsTarget;
use sharebench::target::url::Url;
use sharebench::workload::TestKind;
use std::fs;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const RECORD: usize = 64 << 10;

fn sharebench_in_lab(lab: &Lab, args: &[&str]) -> Output {
    let mut command = vec![
        "lab",
        "exec",
        "--dir",
        lab.dir(),
        "--",
        env!("CARGO_BIN_EXE_sharebench"),
    ];
    command.extend(args);
    sharebench(&command)
}

fn nfs3_url(env: &std::collections::HashMap<String, String>, extra: &str) -> String {
    format!("{}{extra}", env["SHAREBENCH_NFS3_URL"])
}

#[test]
fn nfs3_runs_every_test_and_reports_its_sizes() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let result = out_dir.path().join("nfs.json");
    let url = nfs3_url(&env, "&rsize=262144&wsize=4000000000");
    let out = sharebench_in_lab(
        &lab,
        &[
            "run", &url, "--file-size", "8M", "--runs", "2", "--warmup", "0", "--qd", "4",
            "--verify", "--tests",
            "write,rewrite,read,reread,random-read,random-write,backward-read,record-rewrite,stride-read,mixed",
            "--json", result.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_str(&fs::read_to_string(&result).unwrap()).unwrap();
    assert_eq!(doc["target"]["protocol"], "nfs");
    assert_eq!(
        doc["target"]["parameters"]["rsize"], "262144",
        "asked rsize, under the server's cap"
    );
    let wsize: u64 = doc["target"]["parameters"]["wsize"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(
        (1 << 20..4_000_000_000).contains(&wsize),
        "capped at the server's maximum: {wsize}"
    );
    assert_eq!(
        doc["tests"].as_array().unwrap().len(),
        10,
        "every iozone test runs over NFS"
    );
    for test in doc["tests"].as_array().unwrap() {
        assert_eq!(
            test["runs"].as_array().unwrap().len(),
            2,
            "{}",
            test["test"]
        );
    }
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    assert!(
        fs::read_dir(data).unwrap().next().is_none(),
        "work files left on the server"
    );
}

#[test]
fn nfs3_data_crosses_with_nfs_cp_both_ways() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr = env["SHAREBENCH_SERVER_ADDR"].clone();
    let file_url =
        |name: &str| format!("nfs://{addr}/data/{name}?version=3&nfsport=2049&mountport=20048");

    // sharebench writes (records larger than a WRITE's wsize, so split), nfs-cp reads back
    let out = sharebench_in_lab(
        &lab,
        &[
            "run",
            &nfs3_url(&env, "&wsize=16384"),
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
            "--qd",
            "8",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    let work = work_dirs(data);
    assert_eq!(work.len(), 1);
    let local = tempfile::tempdir().unwrap();
    let fetched = local.path().join("fetched.bin");
    lab.client(
        &[
            "nfs-cp",
            &file_url(&format!("{}/worker-0.dat", work[0])),
            fetched.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(fs::metadata(&fetched).unwrap().len(), 2 << 20);
    assert_written_by_records(&fetched, RECORD);

    // nfs-cp writes, sharebench reads back verified (in pieces of rsize), a flipped byte is caught
    let (expected, corrupt) = written_and_corrupt(16, RECORD, 9 * RECORD + 8192 + 5);
    for (name, content) in [("from-nfs-cp.bin", &expected), ("corrupt.bin", &corrupt)] {
        let file = local.path().join(name);
        fs::write(&file, content).unwrap();
        lab.client(&["nfs-cp", file.to_str().unwrap(), &file_url(name)], &[]);
    }
    let url = Url::parse(&nfs3_url(&env, "&rsize=8192")).unwrap();
    let outcomes = read_verified(
        &lab,
        move || Box::new(NfsTarget::connect(url, Duration::from_secs(10)).unwrap()),
        ["from-nfs-cp.bin", "corrupt.bin"],
        (RECORD, 16),
        4,
        TestKind::RandomRead,
    );
    assert_eq!(outcomes[0], Ok(()), "what nfs-cp wrote reads back intact");
    let error = outcomes[1].clone().unwrap_err();
    assert!(
        error.contains(&format!("offset {}", 9 * RECORD + 8192)),
        "{error}"
    );
}

#[test]
fn nfs_bad_input_is_one_sentence() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr = &env["SHAREBENCH_SERVER_ADDR"];
    let cases = [
        (
            format!("nfs://{addr}/nope?version=3&nfsport=2049&mountport=20048"),
            "does not export /nope to this client",
        ),
        (
            format!("nfs://{addr}/data?version=3&nfsport=2049&mountport=20049&timeo=2&retrans=0"),
            "cannot reach the mount service",
        ),
        (
            format!("nfs://{addr}/data?version=4.1&nfsport=2049"),
            "use version=3",
        ),
        (
            format!("nfs://{addr}/data?version=3&mountport=20048&wsize=lots"),
            "wsize=lots is not a number",
        ),
    ];
    for (url, says) in cases {
        let out = sharebench_in_lab(&lab, &["run", &url, "--file-size", "1M"]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{url}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{url}: {stderr}");
        assert!(
            stderr.contains(says),
            "{url}: expected '{says}' in {stderr}"
        );
    }
}

/// Starts a long read run, waits for finished runs, stops the NFS server; returns the outcome
/// and how long the run took to give up.
fn run_until_the_server_stops(
    lab: &Lab,
    url: &str,
    timeout: &str,
) -> (Output, Duration, Vec<Value>) {
    let out_dir = tempfile::tempdir().unwrap();
    let journal = out_dir.path().join("j.jsonl");
    let child = Command::new(env!("CARGO_BIN_EXE_sharebench"))
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
    let ganesha = lab
        .pids()
        .into_iter()
        .find(|(n, _)| n == "ganesha")
        .unwrap()
        .1;
    // SAFETY: kill() of the process group the lab started (ganesha and its rpcbind).
    unsafe { libc::kill(-ganesha, libc::SIGKILL) };
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

#[test]
fn a_soft_mount_gives_up_after_its_retransmissions() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    // 0.2 s, then 0.4 s: gives up after two retransmissions, long before --timeout
    let soft = nfs3_url(&env, "&timeo=2&retrans=2&soft");
    let (out, took, lines) = run_until_the_server_stops(&lab, &soft, "60");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("soft: gave up after 2 retransmissions"),
        "{stderr}"
    );
    assert!(took < Duration::from_secs(20), "soft took {took:?}");
    assert!(
        lines.iter().filter(|l| l["kind"] == "run").count() >= 2,
        "finished runs are kept"
    );
    assert_eq!(lines.last().unwrap()["status"], "failed");
}

#[test]
fn a_hard_mount_keeps_trying_until_the_timeout() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    // retrans=1 would give up at once if it were soft; hard goes on until the 3 s timeout
    let hard = nfs3_url(&env, "&timeo=2&retrans=1&hard");
    let (out, took, _) = run_until_the_server_stops(&lab, &hard, "3");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("hard: kept trying until the timeout"),
        "{stderr}"
    );
    assert!(
        took >= Duration::from_secs(3),
        "hard gave up before its timeout: {took:?}"
    );
    assert!(took < Duration::from_secs(60), "hard took {took:?}");
}
