//! The FTP target against the lab's vsftpd, cross-checked with curl both ways.

mod common;

use common::*;
use serde_json::Value;
use sharebench::target::credentials::Secret;
use sharebench::target::ftp::FtpTarget;
use sharebench::target::url::Url;
use sharebench::workload::TestKind;
use std::fs;
use std::path::Path;
use std::time::Duration;

const RECORD: usize = 64 << 10;

/// Runs sharebench in the lab's client namespace.
fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn ftp_runs_write_and_read_and_reports_the_rest_unsupported() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let out_dir = tempfile::tempdir().unwrap();
    let result = out_dir.path().join("ftp.json");
    let out = sharebench_in_lab(
        &lab,
        &[
            "run",
            &env["SHAREBENCH_FTP_URL"],
            "--file-size",
            "32M",
            "--runs",
            "3",
            "--tests",
            "write,read,random-read",
            "--verify",
            "--json",
            result.to_str().unwrap(),
        ],
    );
    // the password came from SHAREBENCH_PASSWORD, set by lab exec
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc = json(&result);
    assert_eq!(doc["status"], "complete");
    assert_eq!(doc["target"]["protocol"], "ftp");
    assert!(doc["target"]["parameters"]["banner"].as_str().is_some());
    let names: Vec<&str> = doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["test"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["write", "read"]);
    for test in doc["tests"].as_array().unwrap() {
        assert_eq!(test["runs"].as_array().unwrap().len(), 3);
        assert!(test["summary"]["mean"].as_f64().unwrap() > 0.0);
    }
    let unsupported: Vec<&Value> = doc["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["kind"] == "unsupported")
        .collect();
    assert_eq!(unsupported.len(), 1);
    assert_eq!(unsupported[0]["test"], "random-read");
    let everything = fs::read_to_string(&result).unwrap() + &text(&out.stdout) + &text(&out.stderr);
    let journal = fs::read_to_string(out_dir.path().join("ftp.journal.jsonl")).unwrap();
    for text in [everything, journal] {
        assert!(
            !text.contains(&env["SHAREBENCH_PASSWORD"]),
            "the password leaked"
        );
    }
    assert!(
        work_dirs(Path::new(&env["SHAREBENCH_DATA_DIR"])).is_empty(),
        "work files left on the server"
    );

    // metadata over FTP: STOR of empty files, SIZE, NLST, DELE (MKD and RMD for directories)
    for (kind, tests) in [
        ("file", "create,stat,list,remove"),
        ("dir", "create,list,remove"),
    ] {
        let out = sharebench_in_lab(
            &lab,
            &[
                "bigdir",
                &env["SHAREBENCH_FTP_URL"],
                "--count",
                "200",
                "--step",
                "100",
                "--sample",
                "20",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--kind",
                kind,
                "--tests",
                tests,
                "--json",
                result.to_str().unwrap(),
            ],
        );
        assert!(out.status.success(), "{kind}: {}", text(&out.stderr));
        assert_eq!(
            json(&result)["tests"].as_array().unwrap().len(),
            tests.split(',').count() * 2,
            "{kind}"
        );
    }
    let out = sharebench_in_lab(
        &lab,
        &["bigdir", &env["SHAREBENCH_FTP_URL"], "--kind", "dir"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("FTP cannot stat a directory"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        work_dirs(Path::new(&env["SHAREBENCH_DATA_DIR"])).is_empty(),
        "work files left on the server"
    );
    assert!(lab.run("down", &[]).status.success());
}

#[test]
fn ftp_data_crosses_with_curl_both_ways() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let ftp = env["SHAREBENCH_FTP_URL"].clone();

    // sharebench writes, curl reads back
    let work = sharebench_writes_a_kept_file(&lab, &env, &ftp, &[]);
    let local = tempfile::tempdir().unwrap();
    let fetched = local.path().join("fetched.bin");
    lab.curl(
        &env,
        &[
            "-o",
            fetched.to_str().unwrap(),
            &format!("{ftp}{}/worker-0.dat", work),
        ],
    );
    assert_eq!(fs::metadata(&fetched).unwrap().len(), 2 << 20);
    assert_written_by_records(&fetched, RECORD);

    // curl writes, sharebench reads back (verified), and a flipped byte is caught
    let (expected, corrupt) = written_and_corrupt(16, RECORD, 7 * RECORD + 4096 + 9);
    for (name, content) in [("from-curl.bin", &expected), ("corrupt.bin", &corrupt)] {
        let file = local.path().join(name);
        fs::write(&file, content).unwrap();
        lab.curl(
            &env,
            &["-T", file.to_str().unwrap(), &format!("{ftp}{name}")],
        );
    }
    let url = Url::parse(&ftp).unwrap();
    let password = Secret::new(env["SHAREBENCH_PASSWORD"].clone());
    let outcomes = read_verified(
        &lab,
        move || Box::new(FtpTarget::connect(url, password, Duration::from_secs(10)).unwrap()),
        ["from-curl.bin", "corrupt.bin"],
        (RECORD, 16),
        1,
        TestKind::Read,
    );
    assert_intact_then_caught(&outcomes, 7 * RECORD + 4096, "what curl wrote");
    assert!(lab.run("down", &[]).status.success());
}

#[test]
fn ftp_bad_input_is_one_sentence_and_writes_nothing() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr = &env["SHAREBENCH_SERVER_ADDR"];
    let user = &env["SHAREBENCH_USER"];
    let open_file = tempfile::NamedTempFile::new().unwrap();
    fs::write(open_file.path(), "whatever\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(open_file.path(), fs::Permissions::from_mode(0o644)).unwrap();
    let cases = [
        (
            vec![format!("ftp://{user}:wrong@{addr}/")],
            "refused the login of sharebench",
        ),
        (vec![format!("ftp://{user}@{addr}:2121/")], "cannot connect"),
        (
            vec![format!("ftp://{user}@{addr}/no/such/dir")],
            "is not there",
        ),
        (
            vec![env["SHAREBENCH_FTP_URL"].clone(), "--direct".into()],
            "--direct does not apply",
        ),
        (
            vec![
                env["SHAREBENCH_FTP_URL"].clone(),
                "--tests".into(),
                "random-read".into(),
            ],
            "none of the tests can run",
        ),
        (
            vec![
                env["SHAREBENCH_FTP_URL"].clone(),
                "--password-file".into(),
                open_file.path().to_str().unwrap().into(),
            ],
            "chmod 600",
        ),
    ];
    for (args, says) in cases {
        assert_refused(&lab, &args, says, &env["SHAREBENCH_PASSWORD"]);
    }
    assert!(work_dirs(Path::new(&env["SHAREBENCH_DATA_DIR"])).is_empty());
    assert!(lab.run("down", &[]).status.success());
}

#[test]
fn ftp_server_stopped_mid_run_ends_with_a_sentence_and_keeps_the_journal() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    // vsftpd and every session it forked
    assert_survives_the_server_dying(&lab, &env["SHAREBENCH_FTP_URL"], "vsftpd");
    assert!(lab.run("down", &[]).status.success());
}
