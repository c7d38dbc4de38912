//! `sharebench advise` as an admin runs it: the 1999 guide's smb.conf, messy real-world files of
//! every kind at once, exit codes for scripts, findings inside a run's result, and `--local` on
//! the lab's own servers with each profile; `sweep` changing the lab's smbd between points.

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// The "recommended" smb.conf of the 1999 tuning guide, as the issue quotes it.
const CLASSIC: &str = "[global]
    log level = 1
    socket options = TCP_NODELAY IPTOS_LOWDELAY
    read raw = yes
    write raw = yes
    oplocks = yes
    max xmit = 65535
    dead time = 15
    getwd cache = yes
    lpq cache = 30

[okplace]
    veto oplock files = /*.mdb/*.MDB/*.dbf/*.DBF/

[badplace]
    oplocks = no
";

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// Runs advise with `args` and --json; the exit code and the JSON.
fn advise_json(args: &[&str]) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("advice.json");
    let mut all = vec!["advise"];
    all.extend(args);
    all.extend(["--json", json.to_str().unwrap()]);
    let out = sharebench(&all);
    let code = out.status.code().unwrap();
    assert!(code != 2, "bad input: {}", text(&out.stderr));
    (
        code,
        serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap(),
    )
}

/// (id, severity, line) of every finding.
fn findings(advice: &Value) -> Vec<(String, String, Option<u64>)> {
    advice["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["id"].as_str().unwrap().to_string(),
                f["severity"].as_str().unwrap().to_string(),
                f["at"]["line"].as_u64(),
            )
        })
        .collect()
}

fn has(found: &[(String, String, Option<u64>)], id: &str, severity: &str, line: u64) -> bool {
    found
        .iter()
        .any(|(i, s, l)| i == id && s == severity && *l == Some(line))
}

#[test]
fn the_classic_1999_smb_conf_is_recognised_for_what_it_is_today() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(dir.path(), "classic.conf", CLASSIC);
    let (code, advice) = advise_json(&["--smb-conf", &conf]);
    assert_eq!(code, 0, "no --fail-on, no failure");
    let found = findings(&advice);
    assert!(has(&found, "S04", "obsolete", 4), "read raw: {found:?}");
    assert!(has(&found, "S04", "obsolete", 5), "write raw: {found:?}");
    assert!(has(&found, "S05", "obsolete", 7), "max xmit: {found:?}");
    assert!(has(&found, "S24", "obsolete", 9), "getwd cache: {found:?}");
    assert!(
        has(&found, "S03", "obsolete", 3),
        "redundant socket options: {found:?}"
    );
    assert!(
        has(&found, "S17", "perf-critical", 16),
        "oplocks = no: {found:?}"
    );
    assert!(
        !found
            .iter()
            .any(|(id, _, line)| id == "S17" && *line == Some(6)),
        "oplocks = yes is fine"
    );
    assert!(
        !found.iter().any(|(_, s, _)| s == "data-safety"),
        "nothing in it risks data: {found:?}"
    );
    let notes = advice["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n["line"] == 10
        && n["message"]
            .as_str()
            .unwrap()
            .contains("\"lpq cache\" is not a Samba parameter")));
}

#[test]
fn fail_on_turns_findings_into_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let behind = write(
        dir.path(),
        "behind.conf",
        "[data]\n path = /srv\n aio write behind = /*.tmp/\n",
    );
    let unsafe_sync = write(dir.path(), "sync.conf", "[global]\nstrict sync = no\n");
    let classic = write(dir.path(), "classic.conf", CLASSIC);
    let code = |args: &[&str]| {
        let mut all = vec!["advise"];
        all.extend(args);
        sharebench(&all).status.code().unwrap()
    };
    assert_eq!(
        code(&["--smb-conf", &behind, "--fail-on", "data-safety"]),
        1
    );
    assert_eq!(
        code(&["--smb-conf", &unsafe_sync, "--fail-on", "data-safety"]),
        1
    );
    assert_eq!(
        code(&["--smb-conf", &classic, "--fail-on", "data-safety"]),
        0
    );
    assert_eq!(
        code(&["--smb-conf", &classic, "--fail-on", "perf-critical"]),
        1
    );
    assert_eq!(
        code(&["--smb-conf", &unsafe_sync, "--fail-on", "perf-minor"]),
        1,
        "graver counts"
    );
    let missing = sharebench(&["advise", "--smb-conf", "/nonexistent/smb.conf"]);
    assert_eq!(missing.status.code(), Some(2));
    let said = text(&missing.stderr);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(said.contains("/nonexistent/smb.conf"), "{said}");
    assert_eq!(
        sharebench(&["advise"]).status.code(),
        Some(2),
        "nothing to judge"
    );
    let version = sharebench(&["advise", "--smb-conf", &classic, "--samba-version", "new"]);
    assert_eq!(version.status.code(), Some(2));
}

#[test]
fn messy_real_world_files_of_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let smb = write(
        d,
        "smb.conf",
        "#======= Global Settings =======\n; comment\n[Global]\n   WorkGroup = LAB\n\
         \tSocket Options = TCP_NODELAY \\\n\t   SO_RCVBUF=65536 SO_SNDBUF=65536\n   debuglevel = 2\n\
         log level = 5\n   strict  sync = No\n   min protocol = NT1\n   cache size = 1\n\
         [projects]\n   path = /srv/projects\n   writeable = yes\n   fake oplocks = Yes\n\
         [homes]\n   browsable = no\n",
    );
    let fstab = write(
        d,
        "fstab",
        "# <fs> <mount> <type> <options>\nUUID=1 / ext4 errors=remount-ro 0 1\n\
         filer:/home  /home  nfs  rw,hard,intr,rsize=8192,wsize=8192,timeo=14  0 0\n\
         filer:/scratch /scratch nfs4 rw,soft,proto=udp 0 0\n",
    );
    let exports = write(
        d,
        "exports",
        "# exports\n/srv/a 10.0.0.0/8(rw,async,no_subtree_check) \\\n  *(ro)\n",
    );
    let ganesha = write(
        d,
        "ganesha.conf",
        "NFS_CORE_PARAM\n{\n  Nb_Worker = 256;\n  Enable_UDP = false;\n}\nEXPORT {\n  Export_Id = 1;\n  \
         Path = /srv;\n  NFS_Commit = TRUE;  # always\n  FSAL { Name = VFS; }\n}\n",
    );
    let vsftpd = write(
        d,
        "vsftpd.conf",
        "# vsftpd\nlisten=YES\nuse_sendfile=NO\nlocal_max_rate = 500000\nisolate_network=NO\n",
    );
    let sysctl = write(
        d,
        "sysctl.conf",
        "net.core.rmem_max = 16777216\n; old tuning\nnet/ipv4/tcp_timestamps=0\n\
         net.ipv4.tcp_tw_recycle = 1\nnet.ipv4.tcp_timestamps = 0\n",
    );
    let nics = d.join("nics");
    fs::create_dir(&nics).unwrap();
    write(
        &nics,
        "eth0.txt",
        "Settings for eth0:\n\tSupports auto-negotiation: Yes\n\tSpeed: 1000Mb/s\n\tAuto-negotiation: off\n\
         Features for eth0:\ntcp-segmentation-offload: off\n",
    );
    let (code, advice) = advise_json(&[
        "--smb-conf",
        &smb,
        "--mounts",
        &fstab,
        "--exports",
        &exports,
        "--ganesha-conf",
        &ganesha,
        "--vsftpd-conf",
        &vsftpd,
        "--sysctl",
        &sysctl,
        "--ethtool",
        nics.to_str().unwrap(),
        "--fail-on",
        "data-safety",
    ]);
    assert_eq!(code, 1, "data-safety findings exist");
    let found = findings(&advice);
    let expected = [
        ("S02", "perf-critical", 5), // continuation line joined, the line it starts on
        ("S01", "perf-minor", 8),    // log level given twice (debuglevel): the last wins
        ("S15", "data-safety", 9),   // case and spacing
        ("S07", "data-safety", 10),  // a synonym
        ("S20", "data-safety", 15),  // writeable = yes is read only = no
        ("N01", "perf-critical", 3),
        ("N10", "obsolete", 3),
        ("N04", "perf-minor", 3),
        ("N02", "data-safety", 4),
        ("N03", "data-safety", 4),
        ("K02", "data-safety", 2),
        ("G01", "obsolete", 3),
        ("G02", "perf-critical", 9),
        ("F01", "perf-minor", 3),
        ("F02", "perf-critical", 4),
        ("K05", "obsolete", 1), // raised buffers on an NFS server (it exports)
        ("L04", "perf-critical", 5), // set twice: the last line counts
        ("L05", "obsolete", 4),
        ("X02", "perf-critical", 6),
        ("X06", "perf-critical", 4),
    ];
    for (id, severity, line) in expected {
        assert!(
            has(&found, id, severity, line),
            "{id} {severity} line {line}: {found:?}"
        );
    }
    assert!(
        !found.iter().any(|(id, _, _)| id == "F03" || id == "G04"),
        "{found:?}"
    );
    let notes: Vec<String> = advice["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            format!(
                "{}:{} {}",
                n["file"].as_str().unwrap(),
                n["line"],
                n["message"].as_str().unwrap()
            )
        })
        .collect();
    let noted = |file: &str, line: u64, says: &str| {
        notes
            .iter()
            .any(|n| n.starts_with(&format!("{file}:{line} ")) && n.contains(says))
    };
    assert!(
        noted(
            &smb,
            8,
            "set again in [global] (first at line 7): the last one wins"
        ),
        "{notes:?}"
    );
    assert!(
        noted(&smb, 11, "\"cache size\" is not a Samba parameter"),
        "{notes:?}"
    );
    assert!(noted(&vsftpd, 4, "spaces around '='"), "{notes:?}");
    assert!(
        noted(&sysctl, 5, "set again (first at line 3)"),
        "{notes:?}"
    );
}

#[test]
fn a_run_carries_the_advice_on_its_servers_smb_conf() {
    let dir = tempfile::tempdir().unwrap();
    let conf = write(dir.path(), "smb.conf", CLASSIC);
    let json = dir.path().join("run.json");
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let out = sharebench(&[
        "run",
        work.to_str().unwrap(),
        "--tests",
        "write",
        "--file-size",
        "1M",
        "--runs",
        "1",
        "--warmup",
        "0",
        "--advise-smb-conf",
        &conf,
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let document: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let ids: Vec<&str> = document["advice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["S17", "S03", "S04", "S04", "S05", "S24", "S28"]);
    let report = text(&out.stdout);
    assert!(
        report.contains("advice (7 finding(s) on the server's smb.conf)"),
        "{report}"
    );
    let bad = sharebench(&[
        "run",
        work.to_str().unwrap(),
        "--advise-smb-conf",
        "/nonexistent",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

/// The Samba findings of `advise --local` on a lab started with `profile`.
fn local_samba_findings(profile: &str) -> Option<Vec<(String, String, Option<u64>)>> {
    let (_one, lab, _env) = lab_up(&["--no-netns", "--profile", profile])?;
    let (_, advice) = advise_json(&["--local"]);
    let conf = lab.dir.join("samba/smb.conf");
    let read: Vec<&str> = advice["read"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert!(
        read.iter()
            .any(|r| *r == format!("smb.conf: {}", conf.display())),
        "the running smbd's own configuration: {read:?}"
    );
    assert!(
        advice["samba_version"]
            .as_str()
            .unwrap()
            .starts_with("judged as 4."),
        "{advice}"
    );
    let samba = findings(&advice)
        .into_iter()
        .filter(|(id, _, _)| id.starts_with('S'))
        .collect();
    Some(samba)
}

#[test]
fn local_reads_the_labs_generated_configuration_for_each_profile() {
    let Some(classic) = local_samba_findings("classic") else {
        return;
    };
    let ids: Vec<&str> = classic.iter().map(|(id, _, _)| id.as_str()).collect();
    for id in ["S03", "S04", "S05", "S17", "S24", "S28"] {
        assert!(ids.contains(&id), "{id} in the classic lab: {classic:?}");
    }
    let tuned = local_samba_findings("tuned").unwrap();
    assert!(
        tuned.is_empty(),
        "the advisor has nothing left to say: {tuned:?}"
    );
    let untuned = local_samba_findings("untuned").unwrap();
    assert!(
        untuned.is_empty(),
        "Samba's defaults break no rule: {untuned:?}"
    );
}

#[test]
fn sweep_changes_the_labs_smbd_between_points_and_puts_it_back() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let before = fs::read_to_string(lab.dir.join("samba/smb.conf")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("sweep.json");
    let out = sharebench(&[
        "sweep",
        "--lab",
        "--lab-dir",
        lab.dir(),
        "--vary",
        "smb:server signing=disabled,mandatory",
        "--tests",
        "write",
        "--file-size",
        "4M",
        "--runs",
        "2",
        "--warmup",
        "0",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let sweep: Value = serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap();
    let signing: Vec<&str> = sweep["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            p["document"]["target"]["parameters"]["signing"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert_eq!(signing[0], "off", "{signing:?}");
    assert_ne!(
        signing[1], "off",
        "mandatory signing reached the second point: {signing:?}"
    );
    let report = text(&out.stdout);
    assert!(
        report.contains("sweep of server signing (2 values)"),
        "{report}"
    );
    assert_eq!(
        fs::read_to_string(lab.dir.join("samba/smb.conf")).unwrap(),
        before
    );
    assert!(!text(&out.stdout).contains(&env["SHAREBENCH_PASSWORD"]));
}
