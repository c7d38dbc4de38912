//! The lab against its real servers (smbd, ganesha.nfsd with rpcbind, vsftpd) and the reference
//! clients (smbclient, nfs-cp, curl), run from the client namespace. Needs root and the Debian
//! packages that scripts/test installs.

mod common;

use common::*;
use std::fs;
use std::path::Path;
use std::process::Command;

#[test]
fn every_protocol_round_trips_and_the_lab_comes_down_clean() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let pids = lab.pids();
    let names: Vec<&str> = pids.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        ["smbd", "ganesha", "vsftpd", "iperf3", "serve", "rpcbind"]
    );

    // up again: says so and changes nothing
    let again = lab.run("up", &[]);
    assert!(again.status.success());
    assert!(
        text(&again.stdout).contains("already up"),
        "{}",
        text(&again.stdout)
    );
    assert_eq!(lab.pids(), pids);

    for key in [
        "SHAREBENCH_SMB_URL",
        "SHAREBENCH_NFS_URL",
        "SHAREBENCH_NFS3_URL",
        "SHAREBENCH_FTP_URL",
        "SHAREBENCH_USER",
        "SHAREBENCH_PASSWORD",
        "SHAREBENCH_SERVER_ADDR",
        "SHAREBENCH_DATA_DIR",
    ] {
        assert!(env.contains_key(key), "lab env lacks {key}");
    }
    let addr = &env["SHAREBENCH_SERVER_ADDR"];
    let user = &env["SHAREBENCH_USER"];
    let password = &env["SHAREBENCH_PASSWORD"];
    assert_eq!(
        env["SHAREBENCH_SMB_URL"],
        format!("smb://{user}@{addr}:445/bench")
    );
    assert!(env["SHAREBENCH_NFS_URL"].contains("version=4.1"));
    assert!(password.len() >= 16);

    let work = tempfile::tempdir().unwrap();
    let w = |name: &str| work.path().join(name).to_str().unwrap().to_string();
    let original = random_file(work.path(), "original.bin", 3_000_001);
    let original_bytes = fs::read(&original).unwrap();
    let same = |name: &str| {
        assert!(
            fs::read(w(name)).unwrap() == original_bytes,
            "{name} differs from what was written"
        );
    };
    let smb_auth = [("PASSWD", password.as_str())];
    let smb = |commands: &str| {
        lab.client(
            &[
                "smbclient",
                &format!("//{addr}/bench"),
                "-U",
                user,
                "-m",
                "SMB3_11",
                "-c",
                commands,
            ],
            &smb_auth,
        )
    };

    // SMB: put, get back
    smb(&format!(
        "put {} via-smb.bin; get via-smb.bin {}",
        original.display(),
        w("smb.back")
    ));
    same("smb.back");
    // FTP: put, get back, and read what SMB wrote
    let ftp = &env["SHAREBENCH_FTP_URL"];
    lab.curl(
        &env,
        &[
            "-T",
            original.to_str().unwrap(),
            &format!("{ftp}via-ftp.bin"),
        ],
    );
    lab.curl(&env, &["-o", &w("ftp.back"), &format!("{ftp}via-ftp.bin")]);
    same("ftp.back");
    lab.curl(
        &env,
        &["-o", &w("ftp-of-smb.back"), &format!("{ftp}via-smb.bin")],
    );
    same("ftp-of-smb.back");
    // NFSv3: write, and read what FTP wrote; NFSv4.1: read what NFSv3 wrote
    let nfs3 =
        |file: &str| format!("nfs://{addr}/data/{file}?version=3&nfsport=2049&mountport=20048");
    lab.client(
        &["nfs-cp", original.to_str().unwrap(), &nfs3("via-nfs3.bin")],
        &[],
    );
    lab.client(&["nfs-cp", &nfs3("via-ftp.bin"), &w("nfs3.back")], &[]);
    same("nfs3.back");
    let nfs41 = format!("nfs://{addr}/data/via-nfs3.bin?version=4.1&nfsport=2049");
    lab.client(&["nfs-cp", &nfs41, &w("nfs41.back")], &[]);
    same("nfs41.back");
    // and SMB reads what NFS wrote
    smb(&format!("get via-nfs3.bin {}", w("smb-of-nfs.back")));
    same("smb-of-nfs.back");
    // everything landed in the data directory, owned by the lab user
    let data = Path::new(&env["SHAREBENCH_DATA_DIR"]);
    for name in ["via-smb.bin", "via-ftp.bin", "via-nfs3.bin"] {
        assert!(
            fs::read(data.join(name)).unwrap() == original_bytes,
            "{name} on the server"
        );
    }

    // a client's own exit code comes back through lab exec
    let failing = lab.run("exec", &["--", "sh", "-c", "exit 7"]);
    assert_eq!(failing.status.code(), Some(7));

    let status = lab.run("status", &[]);
    assert!(status.status.success(), "{}", text(&status.stderr));
    assert!(
        text(&status.stdout).contains("measured"),
        "{}",
        text(&status.stdout)
    );

    // a crashed server is reported
    let vsftpd = pids.iter().find(|(n, _)| n == "vsftpd").unwrap().1;
    // SAFETY: kill() of a pid the lab started.
    unsafe { libc::kill(vsftpd, libc::SIGKILL) };
    while alive(vsftpd) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let status = lab.run("status", &[]);
    assert_eq!(status.status.code(), Some(1));
    assert!(
        text(&status.stderr).contains("vsftpd is not running"),
        "{}",
        text(&status.stderr)
    );

    let namespaces = lab.namespaces();
    let down = lab.run("down", &[]);
    assert!(down.status.success(), "{}", text(&down.stderr));
    for (name, pid) in &pids {
        assert!(!alive(*pid), "{name} (pid {pid}) still runs after down");
    }
    for ns in &namespaces {
        assert!(
            !Path::new("/run/netns").join(ns).exists(),
            "namespace {ns} is left"
        );
    }
    let links = Command::new("ip").args(["-o", "link"]).output().unwrap();
    let veth = format!("sb{}", &namespaces[0][3..9]);
    assert!(
        !text(&links.stdout).contains(&veth),
        "a veth is left on the host"
    );
    assert!(!lab.dir.exists(), "the lab directory is removed");

    let again = lab.run("down", &[]);
    assert!(again.status.success());
    assert!(text(&again.stdout).contains("nothing to do"));
}

#[test]
fn a_shaped_link_carries_its_rate() {
    let Some((_one, lab, env)) = lab_up(&["--link", "100mbit"]) else {
        return;
    };
    let work = tempfile::tempdir().unwrap();
    // 16 MB: over a second at 100 Mb/s, so the token bucket's burst is a small share
    let file = random_file(work.path(), "big.bin", 16_000_000);
    let url = format!("{}big.bin", env["SHAREBENCH_FTP_URL"]);
    lab.curl(&env, &["-T", file.to_str().unwrap(), &url]);
    let out = lab.curl(&env, &["-o", "/dev/null", "-w", "%{speed_download}", &url]);
    let bits = text(&out.stdout).trim().parse::<f64>().unwrap() * 8.0;
    assert!(
        (85e6..=115e6).contains(&bits),
        "a 100mbit link carried {:.1} Mb/s",
        bits / 1e6
    );
    let status = lab.run("status", &[]);
    assert!(
        text(&status.stdout).contains("configured 100mbit"),
        "{}",
        text(&status.stdout)
    );
    assert!(lab.run("down", &[]).status.success());
}

#[test]
fn lab_bad_input_is_one_sentence_and_changes_nothing() {
    if !ready() {
        return;
    }
    let _one = one_lab();
    let lab = Lab::new();
    let cases: [(&str, Vec<&str>, &str); 3] = [
        (
            "up",
            vec!["--no-netns", "--link", "1gbit"],
            "cannot go with --no-netns",
        ),
        ("env", vec![], "no lab is up in"),
        ("up", vec!["--link", "fast"], "is not a rate"),
    ];
    for (command, extra, says) in cases {
        let out = lab.run(command, &extra);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{command} {extra:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stderr).lines().count(),
            1,
            "{}",
            text(&out.stderr)
        );
        assert!(text(&out.stderr).contains(says), "{}", text(&out.stderr));
        assert!(
            !lab.dir.exists(),
            "{command} {extra:?} created the lab directory"
        );
    }
    fs::create_dir(&lab.dir).unwrap();
    fs::write(lab.dir.join("precious.txt"), "mine").unwrap();
    let out = lab.run("up", &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("is not a lab directory"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(lab.dir.join("precious.txt")).unwrap(),
        "mine"
    );
}
