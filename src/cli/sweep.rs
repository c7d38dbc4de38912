//! `sharebench sweep`: change ONE setting, measure again, for each of its values. Each point is
//! a whole `sharebench run` (its own warm-up, runs and journal) in a child process, so a sweep
//! measures exactly what `run` measures; the lab's smbd or server network namespace is changed
//! between points and put back afterwards.

use super::args::RunArgs;
use super::measure::{install_stop_signals, new_run_id};
use super::Failure;
use crate::lab::{self, state::LabState};
use crate::report::table::Table;
use crate::result::Document;
use crate::units::mb_per_s;
use clap::Args;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::atomic::Ordering;

#[derive(Args, Debug)]
pub struct SweepArgs {
    /// The setting and its values: smb:PARAMETER=V1,V2 (the lab's smbd), sysctl:KEY=V1,V2 (the
    /// lab's server namespace), nfs:OPTION=V1,V2 (the NFS URL's option), run:OPTION=V1,V2 (a run
    /// option, such as run:record-size=64K,1M)
    #[arg(long, value_name = "KIND:NAME=V1,V2,…", value_parser = Vary::parse)]
    pub vary: Vary,

    /// Sweep on the running lab: its SMB share is the default target (its NFS export for nfs:)
    #[arg(long)]
    pub lab: bool,

    /// The lab directory [default: $SHAREBENCH_LAB_DIR, else <tmp>/sharebench-lab]
    #[arg(long)]
    pub lab_dir: Option<PathBuf>,

    /// Everything `run` takes; --json writes the sweep (every point's result document)
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Smb,
    Sysctl,
    Nfs,
    Run,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vary {
    pub kind: Kind,
    pub name: String,
    pub values: Vec<String>,
}

impl Vary {
    pub fn parse(text: &str) -> Result<Vary, String> {
        let form = "expected KIND:NAME=V1,V2 with KIND smb, sysctl, nfs or run";
        let (kind, rest) = text.split_once(':').ok_or(form)?;
        let kind = match kind {
            "smb" => Kind::Smb,
            "sysctl" => Kind::Sysctl,
            "nfs" => Kind::Nfs,
            "run" => Kind::Run,
            _ => return Err(format!("unknown kind \"{kind}\": {form}")),
        };
        let (name, values) = rest.split_once('=').ok_or(form)?;
        let values: Vec<String> = values
            .split(',')
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
            .collect();
        if name.trim().is_empty() || values.len() < 2 {
            return Err("a sweep needs a name and at least two values".into());
        }
        Ok(Vary {
            kind,
            name: name.trim().to_string(),
            values,
        })
    }

    fn label(&self, value: &str) -> String {
        format!("{} = {value}", self.name)
    }
}

/// Options of sweep itself, which a point's `run` must not see: (flag, takes a value).
const OWN_FLAGS: [(&str, bool); 5] = [
    ("--vary", true),
    ("--lab", false),
    ("--lab-dir", true),
    ("--json", true),
    ("--journal", true),
];

/// The command line after `sweep`, without sweep's own options and the target.
fn passed_through(raw: &[String], target: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut target_left = target;
    let mut args = raw.iter();
    while let Some(arg) = args.next() {
        let flag = arg.split('=').next().unwrap_or(arg);
        if let Some(&(_, takes_value)) = OWN_FLAGS.iter().find(|(f, _)| *f == flag) {
            if takes_value && !arg.contains('=') {
                args.next();
            }
            continue;
        }
        if target_left == Some(arg.as_str()) {
            target_left = None;
            continue;
        }
        out.push(arg.clone());
    }
    out
}

pub fn run(args: SweepArgs) -> Result<(), Failure> {
    let vary = &args.vary;
    let lab_state = if args.lab {
        let dir = args.lab_dir.clone().unwrap_or_else(lab::default_dir);
        Some(lab::running(&dir).map_err(|e| Failure::bad_input(e.message))?)
    } else {
        None
    };
    if matches!(vary.kind, Kind::Smb | Kind::Sysctl) && lab_state.is_none() {
        return Err(Failure::bad_input(
            "smb: and sysctl: settings are changed on the lab's servers: add --lab.",
        ));
    }
    let target = match (&args.run.target, &lab_state) {
        (Some(t), _) => Some(t.clone()),
        (None, Some(state)) => Some(lab_url(state, vary.kind)),
        (None, None) if vary.kind == Kind::Nfs => {
            return Err(Failure::bad_input("nfs: options need an nfs:// target."));
        }
        (None, None) => None,
    };
    if vary.kind == Kind::Nfs && !target.as_deref().is_some_and(|t| t.starts_with("nfs://")) {
        return Err(Failure::bad_input("nfs: options need an nfs:// target."));
    }
    let raw: Vec<String> = std::env::args()
        .skip_while(|a| a != "sweep")
        .skip(1)
        .collect();
    let common = passed_through(&raw, args.run.target.as_deref());
    let restore = Restore::capture(vary, lab_state.as_ref())?;
    let stop = install_stop_signals()?;
    let id = new_run_id();
    let scratch = std::env::temp_dir().join(format!(".sharebench-{id}"));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| Failure::failed(format!("cannot create {}: {e}.", scratch.display())))?;
    let journals = args
        .run
        .method
        .json
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_default();

    let mut points: Vec<(String, Document)> = Vec::new();
    let mut failure = None;
    for (n, value) in vary.values.iter().enumerate() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        println!(
            "\n── sweep point {}/{}: {} ──",
            n + 1,
            vary.values.len(),
            vary.label(value)
        );
        let json_path = scratch.join(format!("point-{n}.json"));
        let journal = journals.join(format!("sharebench-sweep-{id}-{}.jsonl", n + 1));
        let outcome = apply(vary, value, lab_state.as_ref()).and_then(|()| {
            let mut child = vec!["run".to_string()];
            child.extend(point_target(vary, value, target.as_deref()));
            child.extend(common.iter().cloned());
            if vary.kind == Kind::Run {
                child.push(format!("--{}", vary.name));
                child.push(value.clone());
            }
            child.extend(["--json".into(), json_path.display().to_string()]);
            child.extend(["--journal".into(), journal.display().to_string()]);
            run_point(&child, lab_state.as_ref())
        });
        match outcome {
            Ok(status) if status.success() => match read_document(&json_path) {
                Ok(document) => points.push((value.clone(), document)),
                Err(e) => failure = Some(e),
            },
            Ok(status) => {
                failure = Some(Failure::quiet(status.code().unwrap_or(super::EXIT_FAILED)))
            }
            Err(e) => failure = Some(e),
        }
        if failure.is_some() {
            break;
        }
    }
    let restored = restore.put_back(lab_state.as_ref());
    let _ = std::fs::remove_dir_all(&scratch);
    if !points.is_empty() {
        print!("\n{}", summary(vary, &points).terminal());
    }
    if let Some(path) = &args.run.method.json {
        let documents: Vec<_> = points
            .iter()
            .map(|(value, document)| json!({"value": value, "document": document}))
            .collect();
        let out = json!({
            "schema": "sharebench-sweep/1",
            "vary": {"kind": format!("{:?}", vary.kind).to_lowercase(), "name": vary.name, "values": vary.values},
            "points": documents,
        });
        let text = serde_json::to_string_pretty(&out).expect("a sweep serialises");
        std::fs::write(path, text + "\n")
            .map_err(|e| Failure::failed(format!("cannot write {}: {e}.", path.display())))?;
    }
    restored?;
    match failure {
        Some(f) => Err(f),
        None if stop.load(Ordering::SeqCst) => Err(Failure::quiet(super::EXIT_INTERRUPTED)),
        None => Ok(()),
    }
}

/// The lab's URL for what is swept.
fn lab_url(state: &LabState, kind: Kind) -> String {
    let wanted = if kind == Kind::Nfs {
        "SHAREBENCH_NFS_URL"
    } else {
        "SHAREBENCH_SMB_URL"
    };
    lab::env(state)
        .into_iter()
        .find(|(k, _)| k == wanted)
        .map(|(_, v)| v)
        .unwrap_or_default()
}

/// The target of one point: an nfs: option is added to the URL's query.
fn point_target(vary: &Vary, value: &str, target: Option<&str>) -> Option<String> {
    let target = target?;
    if vary.kind != Kind::Nfs {
        return Some(target.to_string());
    }
    let joint = if target.contains('?') { '&' } else { '?' };
    Some(format!("{target}{joint}{}={value}", vary.name))
}

fn apply(vary: &Vary, value: &str, state: Option<&LabState>) -> Result<(), Failure> {
    let lab_failure = |e: lab::LabError| Failure::failed(e.message);
    match (vary.kind, state) {
        (Kind::Smb, Some(state)) => {
            let settings = [(vary.name.clone(), value.to_string())];
            lab::set_smb_parameters(&state.dir, &settings).map_err(lab_failure)
        }
        (Kind::Sysctl, Some(state)) => lab::set_server_sysctl(state, &vary.name, value)
            .map_err(|e| Failure::bad_input(e.message)),
        _ => Ok(()),
    }
}

/// What the lab had before the sweep, to put back.
enum Restore {
    Nothing,
    SmbParameters(Vec<(String, String)>),
    Sysctl(String, String),
}

impl Restore {
    fn capture(vary: &Vary, state: Option<&LabState>) -> Result<Restore, Failure> {
        Ok(match (vary.kind, state) {
            (Kind::Smb, Some(state)) => Restore::SmbParameters(state.smb_settings.clone()),
            (Kind::Sysctl, Some(state)) => {
                let old = lab::server_sysctl(state, &vary.name)
                    .map_err(|e| Failure::bad_input(e.message))?;
                Restore::Sysctl(vary.name.clone(), old)
            }
            _ => Restore::Nothing,
        })
    }

    fn put_back(self, state: Option<&LabState>) -> Result<(), Failure> {
        let failed =
            |e: lab::LabError| Failure::failed(format!("the lab was not restored: {}", e.message));
        match (self, state) {
            (Restore::SmbParameters(old), Some(state)) => {
                lab::set_smb_parameters(&state.dir, &old).map_err(failed)
            }
            (Restore::Sysctl(key, old), Some(state)) => {
                lab::set_server_sysctl(state, &key, &old).map_err(failed)
            }
            _ => Ok(()),
        }
    }
}

/// Runs one point's `sharebench run`, in the lab's client namespace when sweeping the lab.
fn run_point(args: &[String], state: Option<&LabState>) -> Result<ExitStatus, Failure> {
    let exe = std::env::current_exe()
        .map_err(|e| Failure::failed(format!("cannot find this program: {e}.")))?;
    let started = match state {
        Some(state) => {
            let mut command = vec![exe.display().to_string()];
            command.extend(args.iter().cloned());
            lab::exec(state, &command)
        }
        None => Command::new(exe).args(args).status(),
    };
    started.map_err(|e| Failure::failed(format!("cannot start a sweep point: {e}.")))
}

fn read_document(path: &Path) -> Result<Document, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::failed(format!("a sweep point left no result: {e}.")))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::failed(format!("a sweep point's result is unreadable: {e}.")))
}

/// One row per value and test: the mean, its 95 % interval, and the ratio to the first value.
fn summary(vary: &Vary, points: &[(String, Document)]) -> Table {
    let mut rows = Vec::new();
    let first = &points[0].1;
    for (value, document) in points {
        for test in &document.tests {
            let Some(s) = &test.summary else { continue };
            let base = first
                .tests
                .iter()
                .find(|t| t.key == test.key)
                .and_then(|t| t.summary.as_ref())
                .map(|b| b.mean);
            let data = s.unit == "bytes/s";
            let show = |v: f64| {
                if data {
                    format!("{:.1}", mb_per_s(v))
                } else {
                    format!("{v:.0}")
                }
            };
            rows.push(vec![
                value.clone(),
                test.key.test.to_string(),
                format!("{} {}", show(s.mean), if data { "MB/s" } else { "ops/s" }),
                s.ci95.map_or("–".into(), |[lo, hi]| {
                    format!("{} – {}", show(lo), show(hi))
                }),
                base.filter(|b| *b > 0.0)
                    .map_or("–".into(), |b| format!("{:.2}", s.mean / b)),
            ]);
        }
    }
    Table {
        caption: format!("sweep of {} ({} values)", vary.name, points.len()),
        key: Vec::new(),
        headers: ["value", "test", "mean", "95 % CI", "× first"]
            .map(String::from)
            .to_vec(),
        rows,
        notes: vec![format!(
            "each value is a whole run (warm-up, counted runs, journal); × first compares with {}",
            vary.label(&points[0].0)
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vary_specs_parse_and_refuse() {
        let v = Vary::parse("smb:use sendfile=no, yes").unwrap();
        assert_eq!((v.kind, v.name.as_str()), (Kind::Smb, "use sendfile"));
        assert_eq!(v.values, ["no", "yes"]);
        let v = Vary::parse("sysctl:net.ipv4.tcp_rmem=4096 131072 1048576,4096 131072 6291456")
            .unwrap();
        assert_eq!(v.values[1], "4096 131072 6291456");
        assert!(Vary::parse("smb:x=1").is_err(), "one value is no sweep");
        assert!(Vary::parse("disk:x=1,2")
            .unwrap_err()
            .contains("unknown kind"));
        assert!(Vary::parse("nonsense").is_err());
    }

    #[test]
    fn a_point_gets_run_options_without_the_sweeps_own() {
        let raw: Vec<String> = [
            "--vary",
            "smb:log level=0,1",
            "--lab",
            "smb://u@h/s",
            "--tests",
            "read",
            "--json=out.json",
            "--journal",
            "j.jsonl",
            "--file-size",
            "1G",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            passed_through(&raw, Some("smb://u@h/s")),
            ["--tests", "read", "--file-size", "1G"]
        );
    }

    /// The words of a command line, double quotes grouping.
    fn words(line: &str) -> Vec<String> {
        let mut words = vec![String::new()];
        let mut quoted = false;
        for c in line.chars() {
            match c {
                '"' => quoted = !quoted,
                ' ' if !quoted => words.push(String::new()),
                c => words.last_mut().unwrap().push(c),
            }
        }
        words.retain(|w| !w.is_empty());
        words
    }

    #[test]
    fn every_sweep_line_the_advisor_prints_is_a_valid_command() {
        use crate::analysis::advisor::rules;
        use clap::Parser;
        let lines: Vec<&String> = rules().iter().filter_map(|r| r.sweep.as_ref()).collect();
        assert!(lines.len() >= 10);
        for line in lines {
            let line = line.replace("{nfs}", "nfs://filer/export?version=3");
            let parsed = super::super::args::Cli::try_parse_from(words(&line));
            assert!(parsed.is_ok(), "{line}: {}", parsed.unwrap_err());
            let Ok(super::super::args::Cli {
                command: super::super::args::Command::Sweep(sweep),
                ..
            }) = parsed
            else {
                panic!("{line} is not a sweep");
            };
            assert!(
                sweep.lab || sweep.run.target.is_some(),
                "{line} names what it sweeps"
            );
        }
    }

    #[test]
    fn nfs_options_go_into_the_url() {
        let v = Vary::parse("nfs:rsize=65536,1048576").unwrap();
        assert_eq!(
            point_target(&v, "65536", Some("nfs://h/e")).unwrap(),
            "nfs://h/e?rsize=65536"
        );
        assert_eq!(
            point_target(&v, "65536", Some("nfs://h/e?version=3")).unwrap(),
            "nfs://h/e?version=3&rsize=65536"
        );
    }
}
