//! `sharebench compare` on result documents of real runs: B made from A with known changes, so
//! the verdicts are known whatever the machine's speed; mismatches and broken files.

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// A real result document: write and read of 4 MiB, 8 counted runs (enough that a flagged
/// outlier or two leave a testable sample).
fn measured(dir: &Path) -> Value {
    let work = dir.join("work");
    fs::create_dir_all(&work).unwrap();
    let json = dir.join("a.json");
    let out = sharebench(&[
        "run",
        work.to_str().unwrap(),
        "--tests",
        "write,read",
        "--file-size",
        "4M",
        "--runs",
        "8",
        "--warmup",
        "0",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_str(&fs::read_to_string(json).unwrap()).unwrap()
}

/// The document with every run of `test` `factor` times as fast.
fn scaled(document: &Value, test: &str, factor: f64) -> Value {
    let mut b = document.clone();
    for t in b["tests"].as_array_mut().unwrap() {
        if t["test"] != test {
            continue;
        }
        for run in t["runs"].as_array_mut().unwrap() {
            let rate = run["bytes_per_s"].as_f64().unwrap();
            run["bytes_per_s"] = Value::from(rate * factor);
        }
    }
    b
}

fn compare_json(dir: &Path, a: &Value, b: &Value) -> Value {
    let (pa, pb, out) = (dir.join("A.json"), dir.join("B.json"), dir.join("c.json"));
    fs::write(&pa, a.to_string()).unwrap();
    fs::write(&pb, b.to_string()).unwrap();
    let run = sharebench(&[
        "compare",
        pa.to_str().unwrap(),
        pb.to_str().unwrap(),
        "--json",
        out.to_str().unwrap(),
    ]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    serde_json::from_str(&fs::read_to_string(out).unwrap()).unwrap()
}

#[test]
fn verdicts_follow_the_runs() {
    let dir = tempfile::tempdir().unwrap();
    let a = measured(dir.path());
    // reads three times as fast, writes unchanged
    let c = compare_json(dir.path(), &a, &scaled(&a, "read", 3.0));
    let cells = c["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 2);
    let cell = |test: &str| cells.iter().find(|c| c["test"] == test).unwrap();
    let read = cell("read");
    assert!(
        (read["ratio"].as_f64().unwrap() - 3.0).abs() < 1e-9,
        "{read}"
    );
    assert_eq!(read["verdict"], "faster", "{read}");
    let write = cell("write");
    assert_eq!(write["ratio"].as_f64().unwrap(), 1.0);
    assert_eq!(write["verdict"], "no-significant-difference", "{write}");
    assert!(
        write["significance"]["p"].as_f64().unwrap() > 0.9,
        "{write}"
    );
    let summary = &c["summary"];
    assert_eq!(
        (summary["faster"].as_u64(), summary["slower"].as_u64()),
        (Some(1), Some(0))
    );
    let g = summary["geometric_mean"].as_f64().unwrap();
    assert!((g - 3f64.sqrt()).abs() < 1e-9, "{g}");
    // and the other way round
    let back = compare_json(dir.path(), &scaled(&a, "read", 3.0), &a);
    let read = back["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["test"] == "read")
        .unwrap();
    assert_eq!(read["verdict"], "slower");
}

#[test]
fn mismatches_are_named_and_broken_files_refused() {
    let dir = tempfile::tempdir().unwrap();
    let a = measured(dir.path());
    let mut only_write = a.clone();
    only_write["tests"]
        .as_array_mut()
        .unwrap()
        .retain(|t| t["test"] == "write");
    let c = compare_json(dir.path(), &a, &only_write);
    assert_eq!(c["cells"].as_array().unwrap().len(), 1);
    assert_eq!(c["unmatched"][0], "only in A: read 4 MiB × 1 MiB, 1 worker");

    let truncated = dir.path().join("truncated.json");
    let whole = a.to_string();
    fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    let a_path = dir.path().join("A.json");
    let out = sharebench(&[
        "compare",
        a_path.to_str().unwrap(),
        truncated.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let said = text(&out.stderr);
    assert_eq!(said.lines().count(), 1, "{said}");
    assert!(
        said.contains("truncated.json is not a sharebench result document"),
        "{said}"
    );

    let mut other = a.clone();
    for t in other["tests"].as_array_mut().unwrap() {
        t["file_size"] = Value::from(1u64 << 30);
    }
    let other_path = dir.path().join("other.json");
    fs::write(&other_path, other.to_string()).unwrap();
    let out = sharebench(&[
        "compare",
        a_path.to_str().unwrap(),
        other_path.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("have no test in common"),
        "{}",
        text(&out.stderr)
    );
    let alpha = sharebench(&[
        "compare",
        a_path.to_str().unwrap(),
        a_path.to_str().unwrap(),
        "--alpha",
        "2",
    ]);
    assert_eq!(alpha.status.code(), Some(2));
}
