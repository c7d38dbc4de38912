//! The SMB2/3 client against the lab's smbd: every dialect, signing and encryption as the server
//! requires them, guest sessions, failures, big directories, and bytes that cross with smbclient
//! both ways.

mod common;

use common::*;
use serde_json::Value;
use sharebench::target::credentials::Secret;
use sharebench::target::smb::negotiate::negotiate;
use sharebench::target::smb::ops::Caching;
use sharebench::target::smb::transport::Transport;
use sharebench::target::smb::wire::{dialect_name, DIALECTS};
use sharebench::target::smb::{Options, SmbTarget};
use sharebench::target::url::Url;
use sharebench::target::Target;
use sharebench::workload::TestKind;
use std::collections::HashMap;
use std::fs;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

const ALL_TESTS: &str =
    "write,rewrite,read,reread,random-read,random-write,backward-read,record-rewrite,stride-read,mixed";
const RECORD: usize = 64 << 10;

fn json(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `args` on the lab's share and returns the result document (asserting success).
fn run_on_share(lab: &Lab, url: &str, args: &[&str]) -> Value {
    let out_dir = tempfile::tempdir().unwrap();
    let result = out_dir.path().join("smb.json");
    let mut all = vec!["run", url, "--runs", "1", "--warmup", "0", "--verify"];
    all.extend(args);
    all.extend(["--json", result.to_str().unwrap()]);
    let out = sharebench_in_lab(lab, &all);
    assert!(out.status.success(), "{all:?}: {}", text(&out.stderr));
    json(&result)
}

fn assert_nothing_left(env: &HashMap<String, String>) {
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    assert!(work_dirs(data).is_empty(), "work files left on the server");
}

/// A target opened from inside the client namespace with the lab's password.
fn connect(env: &HashMap<String, String>, options: Options) -> impl FnOnce() -> Box<dyn Target> {
    let url = Url::parse(&env["SHAREBENCH_SMB_URL"]).unwrap();
    let password = Secret::new(env["SHAREBENCH_PASSWORD"].clone());
    move || {
        Box::new(SmbTarget::connect(url, Some(password), options, Duration::from_secs(10)).unwrap())
    }
}

fn default_options() -> Options {
    Options {
        dialect: None,
        encrypt: false,
        io_size: None,
        caching: Caching::None,
    }
}

#[test]
fn every_dialect_negotiates_with_smbd() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr: SocketAddr = format!(
        "{}:{}",
        env["SHAREBENCH_SERVER_ADDR"], env["SHAREBENCH_SMB_PORT"]
    )
    .parse()
    .unwrap();
    let (pinned, all) = in_client_namespace(&lab, move || {
        let connect = || Transport::connect(addr, Duration::from_secs(10)).unwrap();
        let pinned: Vec<_> = DIALECTS
            .iter()
            .map(|&d| (d, negotiate(&mut connect(), &[d])))
            .collect();
        (pinned, negotiate(&mut connect(), &DIALECTS))
    });
    for (dialect, outcome) in pinned {
        let negotiated = outcome.unwrap_or_else(|e| panic!("{}: {e}", dialect_name(dialect)));
        assert_eq!(negotiated.dialect, dialect, "the pinned dialect is chosen");
        assert!(negotiated.max_read >= 64 << 10 && negotiated.max_write >= 64 << 10);
        assert!(!negotiated.security_blob.is_empty(), "smbd starts SPNEGO");
        assert_eq!(negotiated.cipher.is_some(), dialect == 0x0311);
        assert_eq!(
            negotiated.exchanged.len(),
            if dialect == 0x0311 { 2 } else { 0 }
        );
    }
    assert_eq!(
        all.unwrap().dialect,
        0x0311,
        "offered all, smbd picks the newest"
    );
}

#[test]
fn every_dialect_the_server_tops_out_at_runs_every_test() {
    if !ready() {
        return;
    }
    let _one = one_lab();
    for dialect in ["2.0.2", "2.1", "3.0", "3.0.2", "3.1.1"] {
        let lab = Lab::new();
        lab.up(&["--smb-max-protocol", dialect]);
        let env = lab.env();
        let doc = run_on_share(
            &lab,
            &env["SHAREBENCH_SMB_URL"],
            &["--file-size", "4M", "--qd", "4", "--tests", ALL_TESTS],
        );
        let parameters = &doc["target"]["parameters"];
        assert_eq!(doc["target"]["protocol"], "smb");
        assert_eq!(parameters["dialect"], dialect, "the server's newest wins");
        assert_eq!(
            parameters["signing"], "off",
            "{dialect}: not required, not done"
        );
        assert_eq!(parameters["encryption"], "off");
        let io_size: u64 = parameters["io_size"].as_str().unwrap().parse().unwrap();
        assert_eq!(
            io_size == 65536,
            dialect == "2.0.2",
            "{dialect}: large MTU from 2.1 on"
        );
        let credits: u64 = parameters["credits_granted"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(credits > 1, "{dialect}: credits beyond the first");
        let tests = doc["tests"].as_array().unwrap();
        assert_eq!(
            tests.len(),
            10,
            "{dialect}: every iozone test runs over SMB"
        );
        for test in tests {
            assert_eq!(
                test["runs"].as_array().unwrap().len(),
                1,
                "{}",
                test["test"]
            );
        }
        assert_nothing_left(&env);
    }
}

#[test]
fn a_server_that_requires_signing_gets_every_request_signed() {
    let Some((_one, lab, env)) = lab_up(&["--smb-signing", "required"]) else {
        return;
    };
    let url = &env["SHAREBENCH_SMB_URL"];
    for (dialect, algorithm) in [
        ("2.1", "HMAC-SHA256"),
        ("3.0", "AES-CMAC"),
        ("3.1.1", "AES-GMAC"),
    ] {
        let doc = run_on_share(
            &lab,
            url,
            &[
                "--file-size",
                "8M",
                "--qd",
                "4",
                "--smb-dialect",
                dialect,
                "--tests",
                "write,read,random-write",
            ],
        );
        assert_eq!(
            doc["target"]["parameters"]["signing"], algorithm,
            "{dialect}"
        );
    }
    // a guest has no key to sign with: refused in one sentence, not half-run
    let guest = url.replace("sharebench@", "");
    let out = sharebench_in_lab(&lab, &["run", &guest, "--file-size", "1M"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("signing"),
        "{}",
        text(&out.stderr)
    );
    assert_nothing_left(&env);
}

#[test]
fn a_server_that_requires_encryption_gets_every_message_encrypted() {
    let Some((_one, lab, env)) = lab_up(&["--smb-encrypt"]) else {
        return;
    };
    let url = &env["SHAREBENCH_SMB_URL"];
    for (dialect, cipher) in [("3.0", "AES-128-CCM"), ("3.1.1", "AES-128-GCM")] {
        let doc = run_on_share(
            &lab,
            url,
            &[
                "--file-size",
                "8M",
                "--qd",
                "4",
                "--smb-dialect",
                dialect,
                "--tests",
                "write,read,random-read",
            ],
        );
        let parameters = &doc["target"]["parameters"];
        assert_eq!(parameters["encryption"], cipher, "{dialect}");
        assert_eq!(
            parameters["signing"], "off",
            "encrypted messages carry no signature"
        );
    }
    // SMB 2 cannot encrypt: one sentence
    let out = sharebench_in_lab(
        &lab,
        &["run", url, "--smb-dialect", "2.1", "--file-size", "1M"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr).lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("offer SMB 3"), "{stderr}");
    assert_nothing_left(&env);
}

#[test]
fn guest_sessions_and_client_choices_reach_the_server() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let guest = env["SHAREBENCH_SMB_URL"].replace("sharebench@", "");
    let doc = run_on_share(
        &lab,
        &guest,
        &["--file-size", "4M", "--tests", "write,read"],
    );
    assert_eq!(doc["target"]["parameters"]["guest"], "true");
    // asked-for encryption, a smaller request size and read-write leases
    let doc = run_on_share(
        &lab,
        &env["SHAREBENCH_SMB_URL"],
        &[
            "--file-size",
            "4M",
            "--tests",
            "write,read",
            "--smb-encrypt",
            "--smb-io-size",
            "128K",
            "--smb-lease",
            "rw",
            "--qd",
            "8",
        ],
    );
    let parameters = &doc["target"]["parameters"];
    assert_eq!(parameters["encryption"], "AES-128-GCM");
    assert_eq!(parameters["io_size"], "131072");
    assert_eq!(parameters["caching"], "rw");
    // requests of the server's largest size (8 MiB, 128 credits each) need credits in hand
    // before the first one goes out
    let doc = run_on_share(
        &lab,
        &env["SHAREBENCH_SMB_URL"],
        &[
            "--file-size",
            "32M",
            "--record-size",
            "8M",
            "--qd",
            "2",
            "--tests",
            "write,read",
        ],
    );
    assert_eq!(doc["tests"].as_array().unwrap().len(), 2);
    assert_nothing_left(&env);
}

#[test]
fn smb_bad_input_is_one_sentence_and_writes_nothing() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let addr = &env["SHAREBENCH_SERVER_ADDR"];
    let user = &env["SHAREBENCH_USER"];
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    // a directory the lab user may not write in
    let locked = data.join("locked");
    fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let url = &env["SHAREBENCH_SMB_URL"];
    let cases = [
        (
            vec![format!("smb://{user}:wrong@{addr}/bench")],
            "user name or password",
        ),
        (
            vec![format!("smb://{user}@{addr}/nope")],
            "no share named 'nope'",
        ),
        (vec![format!("{url}/locked")], "denied access"),
        (vec![format!("{url}/missing")], "does not exist"),
        (
            vec![format!("smb://{user}@{addr}:4455/bench")],
            "nothing listens there",
        ),
        (
            vec![url.clone(), "--smb-io-size".into(), "64M".into()],
            "more than the server allows",
        ),
        (
            vec![
                env["SHAREBENCH_NFS_URL"].clone(),
                "--smb-lease".into(),
                "rw".into(),
            ],
            "--smb-lease applies to smb://",
        ),
        (
            vec![url.clone(), "--direct".into()],
            "--direct does not apply",
        ),
    ];
    for (args, says) in cases {
        assert_refused(&lab, &args, says, &env["SHAREBENCH_PASSWORD"]);
    }
    assert!(fs::read_dir(&locked).unwrap().next().is_none());
    fs::remove_dir(&locked).unwrap();
    assert_nothing_left(&env);
}

#[test]
fn smb_server_killed_mid_run_ends_with_a_sentence_and_keeps_the_journal() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    assert_survives_the_server_dying(&lab, &env["SHAREBENCH_SMB_URL"], "smbd");
}

#[test]
fn a_directory_of_ten_thousand_entries_is_listed_completely() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    let big = data.join("big");
    fs::create_dir(&big).unwrap();
    for i in 0..10_000 {
        fs::File::create(big.join(format!("entry-with-a-longish-name-{i:05}"))).unwrap();
    }
    let open = connect(&env, default_options());
    let (listed, sized, missing) = in_client_namespace(&lab, move || {
        let target = open();
        (
            target.list_dir("big").map_err(|e| e.to_string()),
            target
                .file_size("big/entry-with-a-longish-name-09999")
                .map_err(|e| e.to_string()),
            target.file_size("big/not-there").map_err(|e| e.to_string()),
        )
    });
    assert_eq!(
        listed,
        Ok(10_000),
        "every entry, over many QUERY_DIRECTORY pages"
    );
    assert_eq!(sized, Ok(Some(0)));
    assert_eq!(missing, Ok(None));
    fs::remove_dir_all(&big).unwrap();

    // and the metadata workload end to end
    let out = sharebench_in_lab(
        &lab,
        &[
            "bigdir",
            &env["SHAREBENCH_SMB_URL"],
            "--count",
            "300",
            "--step",
            "100",
            "--runs",
            "1",
            "--warmup",
            "0",
        ],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for test in ["create", "stat", "list", "remove"] {
        assert!(stdout.contains(test), "{test} missing from: {stdout}");
    }
    assert_nothing_left(&env);
}

#[test]
fn smb_data_crosses_with_smbclient_both_ways() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]).to_path_buf();
    let service = format!("//{}/bench", env["SHAREBENCH_SERVER_ADDR"]);
    let smbclient = |command: &str| {
        lab.client(
            &[
                "smbclient",
                &service,
                "-p",
                &env["SHAREBENCH_SMB_PORT"],
                "-U",
                &env["SHAREBENCH_USER"],
                "-c",
                command,
            ],
            &[("PASSWD", &env["SHAREBENCH_PASSWORD"])],
        )
    };

    // sharebench writes (encrypted, pipelined), smbclient reads back
    let extra = ["--qd", "4", "--smb-encrypt"];
    let work = sharebench_writes_a_kept_file(&lab, &env, &env["SHAREBENCH_SMB_URL"], &extra);
    let local = tempfile::tempdir().unwrap();
    let fetched = local.path().join("fetched.bin");
    smbclient(&format!("get {}/worker-0.dat {}", work, fetched.display()));
    assert_eq!(fs::metadata(&fetched).unwrap().len(), 2 << 20);
    assert_written_by_records(&fetched, RECORD);
    fs::remove_dir_all(data.join(&work)).unwrap();

    // smbclient writes, sharebench reads back (verified), and a flipped byte is caught
    let (expected, corrupt) = written_and_corrupt(16, RECORD, 7 * RECORD + 4096 + 9);
    for (name, content) in [("from-smbclient.bin", &expected), ("corrupt.bin", &corrupt)] {
        let file = local.path().join(name);
        fs::write(&file, content).unwrap();
        smbclient(&format!("put {} {name}", file.display()));
    }
    let outcomes = read_verified(
        &lab,
        connect(
            &env,
            Options {
                io_size: Some(16 << 10),
                ..default_options()
            },
        ),
        ["from-smbclient.bin", "corrupt.bin"],
        (RECORD, 16),
        4,
        TestKind::Read,
    );
    assert_intact_then_caught(&outcomes, 7 * RECORD + 4096, "what smbclient wrote");
}
