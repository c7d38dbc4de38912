//! The NFS target (v3, v4.0, v4.1) against the lab's NFS-Ganesha, cross-checked with nfs-cp both
//! ways, and the mount options' promises when the server goes away.

mod common;

use common::*;
use serde_json::Value;
use sharebench::target::nfs::NfsTarget;
use sharebench::target::url::Url;
use sharebench::target::{Discard, IoSettings, OpenMode, Target};
use sharebench::workload::TestKind;
use std::fs;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

const RECORD: usize = 64 << 10;

fn nfs3_url(env: &std::collections::HashMap<String, String>, extra: &str) -> String {
    format!("{}{extra}", env["SHAREBENCH_NFS3_URL"])
}

/// The lab export over `version` (3, 4 or 4.1), with more options after.
fn nfs_url(env: &std::collections::HashMap<String, String>, version: &str, extra: &str) -> String {
    match version {
        "3" => nfs3_url(env, extra),
        _ => format!(
            "nfs://{}/data?version={version}{extra}",
            env["SHAREBENCH_SERVER_ADDR"]
        ),
    }
}

const VERSIONS: [&str; 3] = ["3", "4", "4.1"];

#[test]
fn every_nfs_version_runs_every_test_and_reports_its_sizes() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let result = out_dir.path().join("nfs.json");
    for version in VERSIONS {
        let url = nfs_url(&env, version, "&rsize=262144&wsize=4000000000");
        let out = sharebench_in_lab(
            &lab,
            &[
                "run", &url, "--file-size", "8M", "--runs", "2", "--warmup", "0", "--qd", "4",
                "--verify", "--tests",
                "write,rewrite,read,reread,random-read,random-write,backward-read,record-rewrite,stride-read,mixed",
                "--json", result.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{version}: {}", text(&out.stderr));
        let doc: Value = serde_json::from_str(&fs::read_to_string(&result).unwrap()).unwrap();
        let parameters = &doc["target"]["parameters"];
        assert_eq!(doc["target"]["protocol"], "nfs");
        let negotiated = if version == "4" { "4.0" } else { version };
        assert_eq!(parameters["version"], negotiated);
        assert_eq!(
            parameters["rsize"], "262144",
            "{version}: asked rsize, under the server's cap"
        );
        let wsize: u64 = parameters["wsize"].as_str().unwrap().parse().unwrap();
        assert!(
            (1 << 20..4_000_000_000).contains(&wsize),
            "{version}: capped at the server's maximum: {wsize}"
        );
        if version == "4.1" {
            let session: u64 = parameters["session_max_request"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(wsize < session, "a WRITE and its headers fit the session");
        }
        assert_eq!(
            doc["tests"].as_array().unwrap().len(),
            10,
            "{version}: every iozone test runs over NFS"
        );
        for test in doc["tests"].as_array().unwrap() {
            assert_eq!(
                test["runs"].as_array().unwrap().len(),
                2,
                "{version}: {}",
                test["test"]
            );
        }
        let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
        assert!(
            fs::read_dir(data).unwrap().next().is_none(),
            "{version}: work files left on the server"
        );
    }
}

#[test]
fn nfs_data_crosses_with_nfs_cp_both_ways() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr = env["SHAREBENCH_SERVER_ADDR"].clone();
    // nfs-cp speaks v3 here: Debian's libnfs cannot write over NFSv4, and the bytes on the
    // server are the same whichever version put them there
    let file_url =
        |name: &str| format!("nfs://{addr}/data/{name}?version=3&nfsport=2049&mountport=20048");
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    let local = tempfile::tempdir().unwrap();

    // sharebench writes (records larger than a WRITE's wsize, so split), nfs-cp reads back
    for version in VERSIONS {
        // two connections: each piece's bytes must land where they belong all the same
        let url = nfs_url(&env, version, "&wsize=16384&nconnect=2");
        let work = sharebench_writes_a_kept_file(&lab, &env, &url, &["--qd", "8"]);
        let fetched = local.path().join("fetched.bin");
        lab.client(
            &[
                "nfs-cp",
                &file_url(&format!("{}/worker-0.dat", work)),
                fetched.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(fs::metadata(&fetched).unwrap().len(), 2 << 20, "{version}");
        assert_written_by_records(&fetched, RECORD);
        fs::remove_dir_all(data.join(&work)).unwrap();
        fs::remove_file(&fetched).unwrap();
    }

    // nfs-cp writes, sharebench reads back verified (in pieces of rsize), a flipped byte is caught
    let (expected, corrupt) = written_and_corrupt(16, RECORD, 9 * RECORD + 8192 + 5);
    for (name, content) in [("from-nfs-cp.bin", &expected), ("corrupt.bin", &corrupt)] {
        let file = local.path().join(name);
        fs::write(&file, content).unwrap();
        lab.client(&["nfs-cp", file.to_str().unwrap(), &file_url(name)], &[]);
    }
    for version in VERSIONS {
        let url = Url::parse(&nfs_url(&env, version, "&rsize=8192&nconnect=3")).unwrap();
        let outcomes = read_verified(
            &lab,
            move || Box::new(NfsTarget::connect(url, Duration::from_secs(10)).unwrap()),
            ["from-nfs-cp.bin", "corrupt.bin"],
            (RECORD, 16),
            4,
            TestKind::RandomRead,
        );
        let what = format!("{version}: what nfs-cp wrote");
        assert_intact_then_caught(&outcomes, 9 * RECORD + 8192, &what);
    }
}

#[test]
fn bigdir_runs_over_every_nfs_version_and_the_server_sees_every_entry() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    // 1500 entries take more than one READDIR reply, so listing follows the cookies
    for version in VERSIONS {
        let out = sharebench_in_lab(
            &lab,
            &[
                "bigdir",
                &nfs_url(&env, version, ""),
                "--count",
                "1500",
                "--step",
                "750",
                "--sample",
                "50",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--keep",
            ],
        );
        assert!(out.status.success(), "{version}: {}", text(&out.stderr));
        let table = text(&out.stdout);
        assert!(table.contains("remove ops/s"), "{version}: {table}");
        // the server's own filesystem holds what the client says it made
        let work = work_dirs(data);
        assert_eq!(work.len(), 1, "{version}");
        let big = data.join(&work[0]).join("bigdir");
        let mut names: Vec<String> = fs::read_dir(&big)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), 1500, "{version}");
        assert_eq!(names[0], "f00000000");
        assert_eq!(names[1499], "f00001499");
        fs::remove_dir_all(data.join(&work[0])).unwrap();
    }
}

#[test]
fn nfsv4_state_outlives_a_pause_longer_than_the_lease() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    // the lab's lease is 5 s; a pause of three leases between opening and writing (as between
    // runs) must not cost the open state or the client ID: the lease is renewed meanwhile
    let urls = ["4", "4.1"].map(|v| nfs_url(&env, v, ""));
    let outcomes = in_client_namespace(&lab, move || {
        let io = IoSettings {
            max_io: RECORD,
            queue_depth: 2,
            direct: false,
            verify: false,
        };
        let opened: Vec<_> = urls
            .iter()
            .enumerate()
            .map(|(i, url)| {
                let target =
                    NfsTarget::connect(Url::parse(url).unwrap(), Duration::from_secs(10)).unwrap();
                let name = format!("paused-{i}.bin");
                let handle = target.open(&name, OpenMode::Create, io).unwrap();
                (target, handle, name)
            })
            .collect();
        std::thread::sleep(Duration::from_secs(15));
        opened
            .into_iter()
            .map(|(target, mut handle, name)| {
                let mut ops =
                    TestKind::Write.ops(4 * RECORD as u64, RECORD as u64, Default::default(), 1);
                let written = handle
                    .execute(&mut ops, &mut Discard, &AtomicBool::new(false))
                    .and_then(|()| handle.flush());
                drop(handle);
                written
                    .and_then(|()| target.file_size(&name))
                    .map_err(|e| e.to_string())
            })
            .collect::<Vec<_>>()
    });
    for (version, outcome) in ["4.0", "4.1"].iter().zip(outcomes) {
        assert_eq!(outcome, Ok(Some(4 * RECORD as u64)), "v{version}");
    }
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
            format!("nfs://{addr}/nope?version=4.1"),
            "does not export /nope to this client over NFSv4",
        ),
        (
            format!("nfs://{addr}/nope?version=4"),
            "does not export /nope to this client over NFSv4",
        ),
        (
            format!("nfs://{addr}:2050/data?version=4.1&timeo=2&retrans=0"),
            "cannot reach the NFS service",
        ),
        (
            format!("nfs://{addr}/data?version=4.2"),
            "use version=3, 4 or 4.1",
        ),
        (
            format!("nfs://{addr}/data?version=3&mountport=20048&wsize=lots"),
            "wsize=lots is not a number",
        ),
    ];
    for (url, says) in cases {
        assert_refused(&lab, &[url], says, &env["SHAREBENCH_PASSWORD"]);
    }
}

/// 0.2 s, then 0.4 s: a soft mount gives up after two retransmissions, long before --timeout.
fn soft_gives_up_after_its_retransmissions(version: &str) {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let soft = nfs_url(&env, version, "&timeo=2&retrans=2&soft");
    let (out, took, lines) = run_until_the_server_dies(&lab, &soft, "ganesha", "60");
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

/// retrans=1 would give up at once if it were soft; hard goes on until the 3 s timeout.
fn hard_keeps_trying_until_the_timeout(version: &str) {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let hard = nfs_url(&env, version, "&timeo=2&retrans=1&hard");
    let (out, took, _) = run_until_the_server_dies(&lab, &hard, "ganesha", "3");
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

#[test]
fn a_soft_v3_mount_gives_up_after_its_retransmissions() {
    soft_gives_up_after_its_retransmissions("3");
}

#[test]
fn a_soft_v41_mount_gives_up_after_its_retransmissions() {
    soft_gives_up_after_its_retransmissions("4.1");
}

#[test]
fn a_hard_v3_mount_keeps_trying_until_the_timeout() {
    hard_keeps_trying_until_the_timeout("3");
}

#[test]
fn a_hard_v41_mount_keeps_trying_until_the_timeout() {
    hard_keeps_trying_until_the_timeout("4.1");
}
