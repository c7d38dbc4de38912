//! `sharebench size` as a user runs it: the classic worked examples figure for figure, a server
//! file, bad input, and a calibration from a real result file of the lab.

mod common;

use common::*;
use serde_json::Value;
use std::fs;

fn size(args: &[&str]) -> std::process::Output {
    let mut all = vec!["size"];
    all.extend(args);
    sharebench(&all)
}

fn size_json(args: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("size.json");
    let mut all = args.to_vec();
    all.extend(["--json", json.to_str().unwrap()]);
    let out = size(&all);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&fs::read_to_string(&json).unwrap()).unwrap()
}

fn kb(value: &Value) -> f64 {
    value.as_f64().unwrap() / 1000.0
}

#[test]
fn the_dual_sparc_progression_reproduces_the_classic_table() {
    let doc = size_json(&[
        "--catalog",
        "classic",
        "--cpus",
        "2xsparc10",
        "--disks",
        "1x7200rpm",
        "--nics",
        "1x10mbit",
        "--what-if",
        "disks=6",
        "nics=4",
        "disks=20",
        "nics=2x100mbit",
    ]);
    let rows: Vec<(f64, &str)> = doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (kb(&s["throughput"]), s["limiting"].as_str().unwrap()))
        .collect();
    assert_eq!(
        rows,
        [
            (560.0, "disk"),
            (1113.0, "network"),
            (3360.0, "disk"),
            (4452.0, "network"),
            (11200.0, "disk"),
        ]
    );
    assert!(doc["steps"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| kb(&s["cpu"]) == 12_000.0));
    assert_eq!(doc["catalog"], "classic");
    assert_eq!(doc["workload"]["io_size"], 8192);
}

#[test]
fn the_classic_client_examples_come_out_as_printed() {
    // a Linux Pentium 133, one 7200 rpm disk, 10 Mb/s Ethernet: disk-bound at 560 KB/s
    let classic = [
        "--catalog",
        "classic",
        "--cpus",
        "pentium133",
        "--disks",
        "1x7200rpm",
        "--nics",
        "1x10mbit",
    ];
    let out = size(&classic);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let row = stdout.lines().find(|l| l.contains("as given")).unwrap();
    assert!(
        row.contains("560 KB/s") && row.trim_end().ends_with("disk"),
        "{row}"
    );

    // 75 clients at 15 KB/s: at least three 7200 rpm disks, more than one 10 Mb/s Ethernet
    let mut args = classic.to_vec();
    args.extend(["--clients", "75", "--per-client", "15KB/s"]);
    let doc = size_json(&args);
    assert_eq!(kb(&doc["clients"]["total"]), 1125.0);
    let need = |kind: &str| {
        doc["clients"]["needs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["kind"] == kind)
            .unwrap()
            .clone()
    };
    assert_eq!(need("disk")["count"], 3);
    assert_eq!(need("network")["count"], 2);
    assert!(need("disk")["headroom"].as_f64().unwrap() > 0.0);

    // 375 KB/s shared by 25 clients is 15 KB/s each
    let mut args = classic.to_vec();
    args.extend(["--clients", "25", "--capacity", "375KB/s"]);
    let doc = size_json(&args);
    assert_eq!(kb(&doc["clients"]["per_client"]), 15.0);

    // 36 clients × 2.3 transfers/s × 12 KB ≈ 1 MB/s
    let mut args = classic.to_vec();
    args.extend(["--clients", "36", "--per-client", "2.3x12KB"]);
    let doc = size_json(&args);
    assert!((kb(&doc["clients"]["total"]) - 993.6).abs() < 1e-6);
}

#[test]
fn a_server_file_and_the_flags_describe_the_same_server() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("sparc.toml");
    fs::write(
        &file,
        "# the dual SPARC of the classic table\ncatalog = \"classic\"\n\
         [cpus]\ncount = 2\nmodel = \"sparc10\"\n\
         [disks]\ncount = 1\nrate = \"560KB/s\"\nops = 70\n\
         [nics]\nmodel = \"10mbit\"\n",
    )
    .unwrap();
    let from_file = size_json(&["--server", file.to_str().unwrap(), "--what-if", "disks=6"]);
    let from_flags = size_json(&[
        "--catalog",
        "classic",
        "--cpus",
        "2xsparc10",
        "--disks",
        "1",
        "--disk-rate",
        "560KB/s",
        "--disk-ops",
        "70/s",
        "--nics",
        "10mbit",
        "--what-if",
        "disks=6",
    ]);
    assert_eq!(from_file["steps"], from_flags["steps"]);
    // a flag given as well wins over the file
    let wider = size_json(&["--server", file.to_str().unwrap(), "--nics", "2x10mbit"]);
    assert_eq!(kb(&wider["steps"][0]["network"]), 2226.0);
}

#[test]
fn bad_input_is_one_sentence() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("junk.json");
    fs::write(&junk, "{\"schema\": \"sharebench/1\", \"tests\": [").unwrap();
    let toml = dir.path().join("bad.toml");
    fs::write(&toml, "[disks]\ncolour = \"blue\"\n").unwrap();
    let json = dir.path().join("out.json");
    for (args, says) in [
        (vec![], "nothing to size"),
        (vec!["--disks", "3x5400rpm"], "no disk called '5400rpm'"),
        (
            vec![
                "--catalog",
                "classic",
                "--disks",
                "7200rpm",
                "--what-if",
                "ram+4",
            ],
            "not a change",
        ),
        (
            vec!["--disks", "7200rpm", "--what-if", "nics+1"],
            "was not given",
        ),
        (vec!["--disks", "0x7200rpm"], "count from 1"),
        (vec!["--disk-rate", "fast"], "not a rate"),
        (
            vec!["--clients", "10", "--per-client", "lots", "--disks", "hdd"],
            "not a rate",
        ),
        (
            vec!["--from", junk.to_str().unwrap()],
            "not a sharebench result document",
        ),
        (vec!["--server", toml.to_str().unwrap()], "unknown field"),
    ] {
        let mut args = args;
        args.extend(["--json", json.to_str().unwrap()]);
        let out = size(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(!json.exists(), "{args:?} wrote output");
    }
}

#[test]
fn a_lab_result_calibrates_the_model_of_the_real_server() {
    let Some((_one, lab, env)) = lab_up(&[]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (out, run) = smb_read_run(&lab, &env, "256M", "3", &[], true);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let run = run.unwrap();
    let results = dir.path().join("run.json");
    fs::write(&results, run.to_string()).unwrap();
    let sized = dir.path().join("sized.json");
    let markdown = dir.path().join("sized.md");
    let out = size(&[
        "--from",
        results.to_str().unwrap(),
        "--clients",
        "10",
        "--per-client",
        "20MB/s",
        "--json",
        sized.to_str().unwrap(),
        "--markdown",
        markdown.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let doc: Value = serde_json::from_str(&fs::read_to_string(&sized).unwrap()).unwrap();
    assert_eq!(
        doc["tests"], run["tests"],
        "the result document is kept whole"
    );
    let sizing = &doc["sizing"];
    assert_eq!(sizing["calibrated_from"], "read");
    assert_eq!(sizing["workload"]["io_size"], 1 << 20);
    let median = |kind: &str, direction: &str| {
        run["baselines"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["kind"] == kind && b["direction"] == direction)
            .unwrap()["summary"]["median"]
            .clone()
    };
    let server = &sizing["server"];
    assert_eq!(
        server["disks"]["unit"]["bytes_per_s"],
        median("local_disk", "read")
    );
    assert_eq!(
        server["disks"]["unit"]["write_bytes_per_s"],
        median("local_disk", "write")
    );
    assert_eq!(
        server["nics"]["unit"]["bytes_per_s"],
        median("tcp", "download")
    );
    // a core does what smbd did per core-second while the reads ran
    let cores = run["metrics"]["server"]["samples"][0]["cpu"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(server["cpus"]["count"], cores);
    let per_core = server["cpus"]["unit"]["bytes_per_s"].as_f64().unwrap();
    let rate = run["tests"][0]["summary"]["median"].as_f64().unwrap();
    assert!(
        per_core >= rate,
        "smbd used at most a core: {per_core} < {rate}"
    );
    assert!(sizing["missing"].is_null(), "{}", sizing["missing"]);
    let step = &sizing["steps"][0];
    let smallest = ["cpu", "disk", "network"]
        .iter()
        .map(|k| step[k].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(step["throughput"].as_f64().unwrap(), smallest);
    assert_eq!(sizing["clients"]["needs"].as_array().unwrap().len(), 3);
    assert!(fs::read_to_string(&markdown)
        .unwrap()
        .contains("| component |"));

    // without the serve agent nothing of the server was measured, and the model says so
    let (out, bare_run) = smb_read_run(&lab, &env, "1M", "1", &[], false);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bare = dir.path().join("bare.json");
    fs::write(&bare, bare_run.unwrap().to_string()).unwrap();
    let out = size(&["--from", bare.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("nothing to size from"), "{stderr}");
    assert!(stderr.contains("no local-disk baseline"), "{stderr}");
}
