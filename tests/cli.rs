//! The `sharebench` binary as a user meets it: real runs on a real filesystem.

mod common;

use common::{assert_written_by_records, work_dirs};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};
use tempfile::TempDir;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sharebench"))
}

/// A scratch directory on the build's filesystem (a real disk filesystem, unlike a tmpfs /tmp,
/// so O_DIRECT works).
fn scratch() -> TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// Runs sharebench in `dir` with a command line of whitespace-separated words.
fn run_in(dir: &Path, line: &str) -> Output {
    bin()
        .current_dir(dir)
        .args(line.split_whitespace())
        .output()
        .unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn journal_lines(path: &Path) -> Vec<Value> {
    fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("every journal line is whole JSON"))
        .collect()
}

#[test]
fn a_run_writes_the_result_document_and_leaves_nothing_behind() {
    let dir = scratch();
    let out = run_in(
        dir.path(),
        "run . --file-size 64M --runs 3 --warmup 1 --tests write,read,random-read --json out.json",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&dir.path().join("out.json"));
    assert_eq!(doc["schema"], "sharebench/1");
    assert_eq!(doc["status"], "complete");
    assert_eq!(doc["target"]["protocol"], "local");
    assert!(doc["host"]["cpus"].as_u64().unwrap() >= 1);
    // the client's counters were sampled while it ran, with a share for each core
    let samples = doc["metrics"]["client"]["samples"].as_array().unwrap();
    assert!(!samples.is_empty());
    assert!(!samples[0]["cpu"].as_array().unwrap().is_empty());
    let tests = doc["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["test"].as_str().unwrap()).collect();
    assert_eq!(names, ["write", "read", "random-read"]);
    for test in tests {
        assert_eq!(test["file_size"], 64 << 20);
        let runs = test["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3, "warm-up runs are not counted");
        for run in runs {
            assert_eq!(run["bytes"], 64 << 20);
            let rate = run["bytes"].as_f64().unwrap() / run["seconds"].as_f64().unwrap();
            assert!((run["bytes_per_s"].as_f64().unwrap() / rate - 1.0).abs() < 1e-9);
            assert!(run["latency_us"]["p99"].as_f64().unwrap() > 0.0);
            assert!(run["latency_us"]["max"].as_f64() >= run["latency_us"]["p50"].as_f64());
        }
        let summary = &test["summary"];
        assert_eq!(summary["n"], 3);
        assert_eq!(summary["unit"], "bytes/s");
        let [low, high] = [
            summary["ci95"][0].as_f64().unwrap(),
            summary["ci95"][1].as_f64().unwrap(),
        ];
        let mean = summary["mean"].as_f64().unwrap();
        assert!(low <= mean && mean <= high);
    }
    assert_eq!(
        tests[2]["record_size"], 4096,
        "random tests default to 4 KiB records"
    );
    assert_eq!(
        tests[0]["record_size"],
        1 << 20,
        "sequential tests default to 1 MiB"
    );
    let warnings = doc["warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["kind"] == "cache" && w["test"] == "read"),
        "a 64 MiB read fits in RAM: {warnings:?}"
    );
    let journal = journal_lines(&dir.path().join("out.journal.jsonl"));
    assert_eq!(journal.first().unwrap()["kind"], "start");
    assert_eq!(journal.last().unwrap()["kind"], "end");
    assert_eq!(
        journal.iter().filter(|l| l["kind"] == "run").count(),
        3 * (1 + 3)
    );
    assert!(
        work_dirs(dir.path()).is_empty(),
        "{:?}",
        entries(dir.path())
    );

    let form = String::from_utf8(out.stdout).unwrap();
    assert!(
        form.contains("write · file 64 MiB · record 1 MiB · 1 worker · buffered"),
        "{form}"
    );
    assert!(
        form.contains("average") && form.contains("deviation"),
        "{form}"
    );
    assert!(form.contains("MB/s = 10^6 bytes/s"), "{form}");
}

/// Each bad input: exit code 2, one sentence on stderr, nothing written.
fn assert_refused(dir: &Path, args: &str, says: &str) {
    let before = entries(dir);
    let out = run_in(dir, args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    let text = stderr(&out);
    assert_eq!(
        text.lines().count(),
        1,
        "{args:?} gave more than one line: {text}"
    );
    assert!(
        text.contains(says),
        "{args:?}: expected '{says}' in: {text}"
    );
    assert!(out.stdout.is_empty(), "{args:?} printed results");
    assert_eq!(entries(dir), before, "{args:?} wrote something");
}

#[test]
fn bad_input_is_one_sentence_exit_2_and_writes_nothing() {
    let dir = scratch();
    fs::write(dir.path().join("plain-file"), b"x").unwrap();
    let cases = [
        ("run /nonexistent", "/nonexistent does not exist"),
        ("run plain-file", "is not a directory"),
        (
            "run . --record-size 0",
            "--record-size must be at least 1 byte",
        ),
        ("run . --file-size 0", "--file-size must be at least 1 byte"),
        (
            "run . --file-size 1M --record-size 2M",
            "larger than the file size",
        ),
        ("run . --tests write,randread", "unknown test 'randread'"),
        ("run . --record-size 4Q", "is not a size"),
        ("run . --file-size 100T", "not enough free space"),
        ("run . --qd 8", "--qd above 1 needs --engine io_uring"),
        (
            "run . --direct --record-size 1000 --file-size 1M",
            "multiple of 512",
        ),
        ("run . --runs 0", "--runs"),
        ("run . --read-pct 101", "--read-pct"),
        (
            "matrix . --file-sizes 4K..8K --record-sizes 16K..64K",
            "every record size is larger",
        ),
        ("run . --tests bogus", "the tests are write, rewrite, read"),
        ("run . --tests write,create", "create is a metadata test"),
        ("bigdir . --tests stat,read", "read is a data test"),
        (
            "bigdir . --count 10 --step 11",
            "--step (11) is larger than --count (10)",
        ),
        ("bigdir . --direct", "--direct applies to data tests"),
        ("bigdir . --workers 2", "--workers applies to data tests"),
        ("bigdir . --count 0", "--count"),
    ];
    for (args, says) in cases {
        // a small file, so a case that were wrongly accepted would not fill the disk
        let mut args = args.to_string();
        if args.starts_with("run") && !args.contains("--file-size") {
            args.push_str(" --file-size 1M");
        }
        assert_refused(dir.path(), &args, says);
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs sharebench as user nobody (needs root to switch, and setpriv from util-linux).
fn as_nobody(dir: &Path, line: &str) -> Option<Output> {
    let setpriv = Path::new("/usr/bin/setpriv");
    if !is_root() || !setpriv.exists() {
        return None;
    }
    Some(
        Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_sharebench"))
            .args(line.split_whitespace())
            .current_dir(dir)
            .output()
            .unwrap(),
    )
}

#[test]
fn no_permission_and_drop_caches_without_root_are_refused() {
    let dir = scratch();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    // nobody may enter the directory but not write in it
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let Some(out) = as_nobody(&locked, "run . --file-size 1M") else {
        eprintln!("skipped: needs root and setpriv to act as an unprivileged user");
        return;
    };
    if matches!(out.status.code(), Some(126 | 127)) {
        eprintln!("skipped: user nobody cannot execute the binary from this checkout");
        return;
    }
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot create the work directory"),
        "{}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1);
    assert!(entries(&locked).is_empty());

    let out = as_nobody(dir.path(), "run locked --drop-caches").unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--drop-caches needs root"),
        "{}",
        stderr(&out)
    );
}

fn kept_files(dir: &Path) -> Vec<PathBuf> {
    let work = work_dirs(dir);
    assert_eq!(work.len(), 1, "one work directory is kept");
    let mut files: Vec<PathBuf> = fs::read_dir(dir.join(&work[0]))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn data_written_is_read_back_intact_with_both_engines() {
    for engine in ["--engine psync", "--engine io_uring --qd 8"] {
        // sequential write with 64 KiB records, two workers
        let dir = scratch();
        let line = format!(
            "run . --tests write,read,backward-read,stride-read --file-size 2M --record-size 64K \
             --workers 2 --runs 1 --warmup 0 --keep {engine}"
        );
        let out = run_in(dir.path(), &line);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        let files = kept_files(dir.path());
        assert_eq!(files.len(), 2);
        for file in &files {
            assert_eq!(fs::metadata(file).unwrap().len(), 2 << 20);
            assert_written_by_records(file, 64 << 10);
        }

        // random writes of 4 KiB cover the whole file, so every 4 KiB record is theirs
        let dir = scratch();
        let line = format!(
            "run . --tests random-write,random-read --file-size 1M --runs 2 --warmup 0 --keep \
             --direct {engine}"
        );
        let out = run_in(dir.path(), &line);
        assert!(out.status.success(), "{engine}: {}", stderr(&out));
        assert_written_by_records(&kept_files(dir.path())[0], 4 << 10);
    }
}

#[test]
fn workers_report_their_own_figures_and_the_aggregate() {
    let dir = scratch();
    let out = run_in(
        dir.path(),
        "run . --tests write,mixed --file-size 4M --workers 3 --runs 2 --warmup 0 --json w.json --csv w.csv --markdown w.md",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&dir.path().join("w.json"));
    for test in doc["tests"].as_array().unwrap() {
        assert_eq!(test["workers"], 3);
        for run in test["runs"].as_array().unwrap() {
            let workers = run["workers"].as_array().unwrap();
            assert_eq!(workers.len(), 3);
            let sum: u64 = workers.iter().map(|w| w["bytes"].as_u64().unwrap()).sum();
            assert_eq!(run["bytes"].as_u64().unwrap(), sum);
            assert_eq!(sum, 3 * (4 << 20));
            let longest = workers
                .iter()
                .map(|w| w["seconds"].as_f64().unwrap())
                .fold(0.0, f64::max);
            assert!(run["seconds"].as_f64().unwrap() >= longest);
        }
    }
    let csv = fs::read_to_string(dir.path().join("w.csv")).unwrap();
    let header = csv.lines().next().unwrap();
    assert!(
        header.starts_with("test,file_size,record_size,workers,direct,run,bytes,seconds,MB/s"),
        "{header}"
    );
    assert!(
        csv.lines()
            .any(|l| l.starts_with("mixed,4194304,4096,3,false,2,")),
        "{csv}"
    );
    let md = fs::read_to_string(dir.path().join("w.md")).unwrap();
    assert!(
        md.contains("### mixed · file 4 MiB · record 4 KiB · 3 workers · buffered"),
        "{md}"
    );
    assert!(work_dirs(dir.path()).is_empty());
}

#[test]
fn bigdir_measures_every_metadata_test_at_every_size_and_cleans_up() {
    let dir = scratch();
    let out = run_in(
        dir.path(),
        "bigdir . --count 250 --step 100 --sample 20 --runs 2 --warmup 0 --json r.json --csv r.csv",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&dir.path().join("r.json"));
    let tests = doc["tests"].as_array().unwrap();
    let cells: Vec<(String, u64)> = tests
        .iter()
        .map(|t| {
            (
                t["test"].as_str().unwrap().to_string(),
                t["entries"].as_u64().unwrap(),
            )
        })
        .collect();
    // 100, 200, then the rest up to --count
    for entries in [100, 200, 250] {
        for test in ["create", "stat", "list", "remove"] {
            assert!(
                cells.contains(&(test.to_string(), entries)),
                "{test} at {entries}"
            );
        }
    }
    assert_eq!(cells.len(), 12);
    for test in tests {
        assert_eq!(test["summary"]["unit"], "ops/s");
        let expected_ops = match (
            test["test"].as_str().unwrap(),
            test["entries"].as_u64().unwrap(),
        ) {
            ("create" | "remove", _) => 100,
            ("stat", _) => 20,
            (_, entries) => entries,
        };
        for run in test["runs"].as_array().unwrap() {
            assert_eq!(run["ops"], expected_ops, "{}", test["test"]);
        }
    }
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("list entries/s"), "{table}");
    assert!(fs::read_to_string(dir.path().join("r.csv"))
        .unwrap()
        .contains("entries"));
    assert_eq!(
        entries(dir.path()),
        ["r.csv", "r.journal.jsonl", "r.json"],
        "the big directory is gone"
    );
}

#[test]
fn matrix_runs_the_iozone_grid() {
    let dir = scratch();
    let out = run_in(
        dir.path(),
        "matrix . --file-sizes 64K..256K --record-sizes 4K..128K --tests write,reread --runs 2 --warmup 0 --json m.json",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&dir.path().join("m.json"));
    let tests = doc["tests"].as_array().unwrap();
    // records up to each file: 64K has 5 (4K..64K), 128K and 256K have 6 (4K..128K)
    assert_eq!(tests.len(), (5 + 6 + 6) * 2);
    assert!(tests
        .iter()
        .all(|t| t["record_size"].as_u64() <= t["file_size"].as_u64()));
    assert!(tests
        .iter()
        .filter(|t| t["test"] == "reread")
        .all(|t| t["cache_test"] == true));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("reread · median MB/s by file size (rows) and record size (columns)"),
        "{text}"
    );
    let header = text.lines().find(|l| l.contains("file \\ record")).unwrap();
    let columns: Vec<&str> = header.split_whitespace().skip(3).collect();
    assert_eq!(columns, ["4K", "8K", "16K", "32K", "64K", "128K"]);
    assert!(work_dirs(dir.path()).is_empty());
}

#[test]
fn drop_caches_runs_as_root() {
    if !is_root() {
        eprintln!("skipped: dropping caches needs root");
        return;
    }
    let dir = scratch();
    let out = run_in(
        dir.path(),
        "run . --tests read,reread --file-size 8M --runs 2 --warmup 0 --drop-caches --json d.json",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let doc = json(&dir.path().join("d.json"));
    assert_eq!(doc["config"]["drop_caches"], true);
    let cache_warnings: Vec<&Value> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "cache")
        .collect();
    assert!(
        cache_warnings.is_empty(),
        "dropped caches clear the read warning: {cache_warnings:?}"
    );
}

/// Starts a long run in `dir` and waits until its journal holds `runs` finished runs.
fn start_long_run(dir: &Path, runs: usize) -> (Child, PathBuf) {
    let journal = dir.join("j.jsonl");
    let child = bin()
        .current_dir(dir)
        .args(
            "run . --tests read --file-size 16M --record-size 4K --runs 100000 --warmup 0 \
             --journal j.jsonl"
                .split_whitespace(),
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while journal_runs(&journal) < runs {
        assert!(
            Instant::now() < deadline,
            "the run never journaled {runs} runs"
        );
        sleep(Duration::from_millis(20));
    }
    (child, journal)
}

fn journal_runs(journal: &Path) -> usize {
    fs::read_to_string(journal)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"kind\":\"run\""))
        .count()
}

#[test]
fn the_journal_keeps_finished_runs_when_the_process_is_killed() {
    let dir = scratch();
    let (mut child, journal) = start_long_run(dir.path(), 3);
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    let lines = journal_lines(&journal);
    assert_eq!(lines[0]["kind"], "start");
    assert_eq!(lines[0]["schema"], "sharebench/1");
    let runs: Vec<&Value> = lines.iter().filter(|l| l["kind"] == "run").collect();
    assert!(runs.len() >= 3);
    for (i, line) in runs.iter().enumerate() {
        assert_eq!(line["test"], "read");
        assert_eq!(line["run"]["n"], i + 1);
        assert_eq!(line["run"]["bytes"], 16 << 20);
    }
    assert!(
        lines.iter().all(|l| l["kind"] != "end"),
        "a killed process writes no end"
    );
}

#[test]
fn sigint_stops_cleans_up_and_keeps_what_was_measured() {
    stop_cleans_up_and_keeps_what_was_measured(libc::SIGINT);
}

#[test]
fn sigterm_stops_cleans_up_and_keeps_what_was_measured() {
    stop_cleans_up_and_keeps_what_was_measured(libc::SIGTERM);
}

fn stop_cleans_up_and_keeps_what_was_measured(signal: i32) {
    let dir = scratch();
    let (child, journal) = start_long_run(dir.path(), 2);
    // SAFETY: kill() with a live child's pid.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted;"), "{}", stderr(&out));
    assert!(
        work_dirs(dir.path()).is_empty(),
        "{:?}",
        entries(dir.path())
    );
    let lines = journal_lines(&journal);
    let end = lines.last().unwrap();
    assert_eq!(end["kind"], "end");
    assert_eq!(end["status"], "interrupted");
    let journaled = lines.iter().filter(|l| l["kind"] == "run").count();
    let form = String::from_utf8(out.stdout).unwrap();
    assert!(
        form.contains("read · file 16 MiB"),
        "the finished runs are reported: {form}"
    );
    assert!(
        form.contains(&format!("\n  {journaled} ")),
        "every journaled run is on the form"
    );
}
