//! The raw TCP baseline against a real serve agent on loopback: runs and their document, several
//! streams, tokens, and an agent that listens beyond loopback without one.

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};

/// A serve agent on `listen` (port 0: any); stopped on drop.
struct Agent {
    child: Child,
    port: u16,
}

impl Agent {
    fn start(listen: &str, token_file: Option<&str>) -> Agent {
        Agent::with(listen, token_file, &[])
    }

    fn with(listen: &str, token_file: Option<&str>, extra: &[&str]) -> Agent {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sharebench"));
        command.args(["serve", "--listen", listen]).args(extra);
        if let Some(file) = token_file {
            command.args(["--token-file", file]);
        }
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().rsplit(':').next().unwrap().parse().unwrap();
        Agent { child, port }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Each baseline of a document as "kind direction".
fn kinds(doc: &Value) -> Vec<String> {
    doc["baselines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            format!(
                "{} {}",
                b["kind"].as_str().unwrap(),
                b["direction"].as_str().unwrap()
            )
        })
        .collect()
}

fn baseline(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    baseline_of("tcp", args, env)
}

fn baseline_of(kind: &str, args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut all = vec!["baseline", kind];
    all.extend(args);
    Command::new(env!("CARGO_BIN_EXE_sharebench"))
        .args(&all)
        .env_remove("SHAREBENCH_TOKEN")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

#[test]
fn tcp_runs_land_in_the_document_with_their_summary() {
    let agent = Agent::start("127.0.0.1:0", None);
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("tcp.json");
    let target = format!("127.0.0.1:{}", agent.port);
    for (streams, reverse) in [("1", false), ("3", true)] {
        let mut args = vec![
            target.as_str(),
            "--size",
            "8M",
            "--runs",
            "3",
            "--streams",
            streams,
            "--json",
            json.to_str().unwrap(),
        ];
        if reverse {
            args.push("--reverse");
        }
        let out = baseline(&args, &[]);
        assert!(out.status.success(), "{}", text(&out.stderr));
        let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(doc["status"], "complete");
        assert_eq!(doc["target"]["protocol"], "tcp");
        let tcp = &doc["baselines"][0];
        assert_eq!(tcp["kind"], "tcp");
        let direction = if reverse { "download" } else { "upload" };
        assert_eq!(tcp["direction"], direction);
        let runs = tcp["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3);
        let streams: u64 = streams.parse().unwrap();
        for run in runs {
            assert_eq!(
                run["bytes"],
                streams * (8 << 20),
                "every stream's bytes counted"
            );
            assert_eq!(run["workers"].as_array().unwrap().len() as u64, streams);
        }
        assert!(tcp["summary"]["mean"].as_f64().unwrap() > 0.0);
        let direction = if reverse { "download" } else { "upload" };
        assert_eq!(doc["target"]["parameters"]["direction"], direction);
        assert!(
            text(&out.stdout).contains("raw TCP"),
            "{}",
            text(&out.stdout)
        );
    }
}

#[test]
fn the_agent_measures_its_disk_only_in_the_directory_it_was_given() {
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("share");
    fs::create_dir(&disk).unwrap();
    let agent = Agent::with("127.0.0.1:0", None, &["--disk", disk.to_str().unwrap()]);
    let target = format!("127.0.0.1:{}", agent.port);
    let json = dir.path().join("disk.json");
    let out = baseline_of(
        "disk",
        &[
            &target,
            "--size",
            "8M",
            "--runs",
            "2",
            "--json",
            json.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let kinds = kinds(&doc);
    assert_eq!(kinds, ["local_disk write", "local_disk read"]);
    for baseline in doc["baselines"].as_array().unwrap() {
        let runs = baseline["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 2);
        assert!(runs.iter().all(|r| r["bytes"] == 8 << 20), "{baseline}");
        assert!(baseline["summary"]["median"].as_f64().unwrap() > 0.0);
    }
    assert!(text(&out.stdout).contains("read back uncached"));
    assert_eq!(
        fs::read_dir(&disk).unwrap().count(),
        0,
        "nothing left behind"
    );

    // an agent given no directory says so, and one given a missing directory does not start
    let plain = Agent::start("127.0.0.1:0", None);
    let out = baseline_of("disk", &[&format!("127.0.0.1:{}", plain.port)], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("without --disk"),
        "{}",
        text(&out.stderr)
    );
    let missing = dir.path().join("missing");
    let out = sharebench(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--disk",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is not a directory"));
    assert!(!missing.exists());
}

#[test]
fn a_token_guards_the_agent_and_stays_secret() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    fs::write(&file, "s3cret-token\n").unwrap();
    fs::set_permissions(&file, fs::Permissions::from_mode(0o600)).unwrap();
    let agent = Agent::start("127.0.0.1:0", Some(file.to_str().unwrap()));
    let target = format!("127.0.0.1:{}", agent.port);
    let journal = dir.path().join("j.jsonl");
    let args = [
        "--journal",
        journal.to_str().unwrap(),
        target.as_str(),
        "--size",
        "1M",
        "--runs",
        "1",
        "--warmup",
        "0",
    ];
    for (env, ok) in [
        (vec![], false),
        (vec![("SHAREBENCH_TOKEN", "wrong")], false),
        (vec![("SHAREBENCH_TOKEN", "s3cret-token")], true),
    ] {
        let out = baseline(&args, &env);
        let stderr = text(&out.stderr);
        if ok {
            assert!(out.status.success(), "{stderr}");
        } else {
            assert_eq!(out.status.code(), Some(2), "{stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(stderr.contains("refused the token"), "{stderr}");
        }
        let everything = stderr + &text(&out.stdout);
        assert!(!everything.contains("s3cret-token"), "the token leaked");
    }
}

#[test]
fn an_agent_beyond_loopback_without_a_token_refuses_everyone() {
    let agent = Agent::start("0.0.0.0:0", None);
    let target = format!("127.0.0.1:{}", agent.port);
    let out = baseline(&[target.as_str(), "--size", "1M", "--runs", "1"], &[]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("without a token"), "{stderr}");
    // and nothing listening is one sentence too
    drop(agent);
    let out = baseline(&[target.as_str(), "--runs", "1"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot reach a serve agent"));
}

#[test]
fn the_lab_runs_a_serve_agent_that_only_its_token_opens() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("lab-tcp.json");
    // lab exec hands over SHAREBENCH_TOKEN with the rest of the lab's environment
    let out = sharebench_in_lab(
        &lab,
        &[
            "baseline",
            "tcp",
            &env["SHAREBENCH_SERVE_ADDR"],
            "--size",
            "16M",
            "--runs",
            "2",
            "--streams",
            "2",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(doc["baselines"][0]["runs"].as_array().unwrap().len(), 2);
    assert!(!fs::read_to_string(&json)
        .unwrap()
        .contains(&env["SHAREBENCH_TOKEN"]));
    let out = lab.client(
        &[
            "sh",
            "-c",
            &format!(
                "SHAREBENCH_TOKEN=wrong {} baseline tcp {} --runs 1 --size 1M; test $? -eq 2",
                env!("CARGO_BIN_EXE_sharebench"),
                env["SHAREBENCH_SERVE_ADDR"]
            ),
        ],
        &[],
    );
    assert!(
        text(&out.stderr).contains("refused the token"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_run_on_a_shaped_link_carries_the_servers_metrics_and_the_link_rate() {
    let Some((_one, lab, env)) = lab_up(&["--link", "100mbit"]) else {
        return;
    };
    let (out, doc) = smb_read_run(&lab, &env, "4M", "1", &[], true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc = doc.unwrap();
    let samples = doc["metrics"]["server"]["samples"].as_array().unwrap();
    assert!(
        !samples.is_empty(),
        "the agent streamed the server's counters"
    );
    let kinds = kinds(&doc);
    assert_eq!(
        kinds,
        [
            "tcp upload",
            "tcp download",
            "local_disk write",
            "local_disk read"
        ]
    );
    for baseline in &doc["baselines"].as_array().unwrap()[..2] {
        let mbit = baseline["summary"]["median"].as_f64().unwrap() * 8.0 / 1e6;
        assert!(
            (85.0..=115.0).contains(&mbit),
            "{}: {mbit} Mb/s",
            baseline["kind"]
        );
    }
    // SMB reads as fast as raw TCP on a 100 Mbit/s link: the network is the limit
    assert_eq!(doc["verdict"]["layer"], "network", "{}", doc["verdict"]);
    assert_eq!(doc["verdict"]["table"].as_array().unwrap().len(), 5);
    assert!(text(&out.stdout).contains("verdict: network"));
    // without an agent the run still completes, and says what is missing
    let (out, _) = smb_read_run(&lab, &env, "1M", "1", &["--serve", "127.0.0.1:9"], false);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("no serve agent answered"));
}

#[test]
fn an_encrypting_smbd_pinned_to_one_core_is_the_servers_cpu() {
    let Some((_one, lab, env)) = lab_up(&["--smb-cpus", "0", "--smb-encrypt"]) else {
        return;
    };
    // two connections, so core 0 always has work; reads, so the disk stays out of it
    let (out, doc) = smb_read_run(&lab, &env, "512M", "3", &["--workers", "2"], true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc = doc.unwrap();
    assert_eq!(doc["target"]["parameters"]["encryption"], "AES-128-GCM");
    let verdict = &doc["verdict"];
    assert_eq!(verdict["test"], "read");
    let evidence = verdict["evidence"].as_str().unwrap();
    assert_eq!(verdict["layer"], "server-cpu", "{evidence}");
    assert!(evidence.contains("smbd used"), "{evidence}");
    assert!(evidence.contains("confined to core 0"), "{evidence}");
    // every run has its place on the timelines, in order, warm-ups included
    let runs = doc["metrics"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1 + 3);
    let end = doc["metrics"]["client"]["samples"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["t"]
        .as_f64()
        .unwrap();
    let mut previous = 0.0;
    for run in runs {
        let (from, to) = (
            run["from_s"].as_f64().unwrap(),
            run["to_s"].as_f64().unwrap(),
        );
        assert!(previous <= from && from < to && to <= end, "{run}");
        previous = to;
    }
    assert_eq!(runs[0]["warmup"], true);
    assert_eq!(
        (&runs[3]["warmup"], &runs[3]["n"]),
        (&Value::Bool(false), &3.into())
    );
}

#[test]
fn a_run_holds_the_protocol_against_ftp_and_the_servers_disk() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let run = |extra: &[&str]| smb_read_run(&lab, &env, "32M", "2", extra, true);
    let (out, doc) = run(&["--ftp-baseline", &env["SHAREBENCH_FTP_URL"]]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc = doc.unwrap();
    let baselines = doc["baselines"].as_array().unwrap();
    let kinds = kinds(&doc);
    assert_eq!(
        kinds,
        [
            "tcp upload",
            "tcp download",
            "local_disk write",
            "local_disk read",
            "ftp upload",
            "ftp download"
        ]
    );
    for ftp in &baselines[4..] {
        let runs = ftp["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "the warm-up is left out");
        assert!(
            runs.iter().all(|r| r["bytes"] == 32 << 20),
            "the judged test's file"
        );
    }
    let table = doc["verdict"]["table"].as_array().unwrap();
    let note = |layer: &str| {
        table.iter().find(|l| l["layer"] == layer).unwrap()["note"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        note("protocol").contains("% of FTP"),
        "{}",
        note("protocol")
    );
    // the disk's own uncached reads are the yardstick; whether the share beat them by more
    // than 1.2× (then the server's memory served it) depends on how fast this disk is today
    let disk = table.iter().find(|l| l["layer"] == "server-disk").unwrap();
    let ceiling = disk["ceiling"]
        .as_f64()
        .expect("the disk baseline is the ceiling");
    let disk_note = note("server-disk");
    assert!(
        disk_note.contains(&format!("{:.1} MB/s", ceiling / 1e6)),
        "{disk_note}"
    );
    let judged = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["test"] == doc["verdict"]["test"])
        .expect("the judged test is in the document");
    let rate = judged["summary"]["median"].as_f64().unwrap();
    if rate > ceiling * 1.2 {
        assert!(
            disk_note.contains("served from the server's memory"),
            "{disk_note}"
        );
    } else {
        assert!(disk_note.contains("uncached reads reach"), "{disk_note}");
    }
    let stdout = text(&out.stdout);
    assert!(stdout.contains("baseline: FTP download"), "{stdout}");
    // 32 MiB read again and again fits any server's page cache: the run says so
    let cached = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["kind"] == "cache")
        .unwrap_or_else(|| panic!("a cached read is flagged: {}", doc["warnings"]));
    assert!(
        cached["message"].as_str().unwrap().contains("page cache"),
        "{cached}"
    );
    let data = std::path::Path::new(&env["SHAREBENCH_DATA_DIR"]);
    assert_eq!(
        work_dirs(data),
        Vec::<String>::new(),
        "no work directory left"
    );

    // a baseline that is not FTP, or an FTP server that refuses, stops the run before it starts
    let (out, _) = run(&["--ftp-baseline", &env["SHAREBENCH_NFS_URL"]]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("takes an ftp:// URL"),
        "{}",
        text(&out.stderr)
    );
    let stranger = format!(
        "ftp://nobody@{}:{}/",
        env["SHAREBENCH_SERVER_ADDR"], env["SHAREBENCH_FTP_PORT"]
    );
    let (out, _) = run(&["--ftp-baseline", &stranger]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr).lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
}
