//! Sizing from measurement: the components of the real server, built from what sharebench
//! measured on it. The disk is the serve agent's local-disk baseline, the network its raw TCP
//! baseline, and a CPU core does what the serving processes did per core-second while the
//! judged test ran. Whatever was not measured is said to be missing, never filled in.

use super::{Group, Server, Unit, Workload};
use crate::analysis::verdict::{judged_test, SERVERS};
use crate::monitor::sampler::{RunWindow, Timeline};
use crate::result::Document;
use serde::Serialize;

/// A server as measured, and what could not be.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Calibration {
    pub server: Server,
    pub workload: Workload,
    /// The test the figures come from, e.g. "read".
    pub test: String,
    /// One sentence per component that was not measured.
    pub missing: Vec<String>,
}

pub fn from_document(doc: &Document) -> Result<Calibration, String> {
    let test = judged_test(&doc.tests)
        .ok_or("the results hold no data test with finished runs to size from")?;
    let summary = test.summary.as_ref().expect("judged tests have a summary");
    let writes = test.key.test.writes();
    let workload = Workload {
        io_size: test.key.record_size,
        read_pct: if writes { 0.0 } else { 100.0 },
        random: test.key.test.is_random(),
    };
    let baseline = |kind: &str, direction: &str| {
        doc.baselines
            .iter()
            .find(|b| b.kind == kind && b.direction == direction)?
            .summary
            .as_ref()
            .map(|s| s.median)
    };
    let mut missing = Vec::new();
    // one unit of what a baseline measured (read and write rates), or the sentence saying why not
    let mut measured = |kind: &str, name: &str, source: &str, absent: &str| {
        let (read, write) = match kind {
            "tcp" => (baseline(kind, "download"), baseline(kind, "upload")),
            _ => (baseline(kind, "read"), baseline(kind, "write")),
        };
        let Some(any) = read.or(write) else {
            missing.push(absent.to_string());
            return None;
        };
        Some(Group {
            count: 1,
            unit: Unit {
                name: name.into(),
                ops_per_s: None,
                random_ops_per_s: None,
                bytes_per_s: Some(read.unwrap_or(any)),
                write_bytes_per_s: Some(write.unwrap_or(any)),
                half_duplex: false,
                source: source.into(),
            },
        })
    };
    let disks = measured(
        "local_disk",
        "the share's disk (measured)",
        "the serve agent's local-disk baseline: durable writes and uncached reads",
        "disk: no local-disk baseline (run 'sharebench serve --disk DIR' on the server)",
    );
    let nics = measured(
        "tcp",
        "the link (measured)",
        "the raw TCP baseline between this client and the server",
        "network: no raw TCP baseline (no serve agent answered)",
    );
    let cpus = server_cores(doc, &test.key).map(|(cores, used)| {
        let ops = test.runs.iter().filter(|r| !r.warmup).map(|r| r.ops_per_s);
        let ops = ops.clone().sum::<f64>() / ops.count().max(1) as f64;
        Group {
            count: cores,
            unit: Unit {
                name: "server core (measured)".into(),
                ops_per_s: Some(ops / used),
                random_ops_per_s: None,
                bytes_per_s: Some(summary.median / used),
                write_bytes_per_s: None,
                half_duplex: false,
                source: format!(
                    "the serving processes used {used:.2} cores for {} at {:.1} MB/s",
                    test.key.test,
                    summary.median / 1e6
                ),
            },
        }
    });
    if cpus.is_none() {
        missing
            .push("CPU: no server metrics with a serving process at work (no serve agent)".into());
    }
    Ok(Calibration {
        server: Server { cpus, disks, nics },
        workload,
        test: test.key.test.name().into(),
        missing,
    })
}

/// The server's core count, and the cores its serving processes used (the median over the
/// judged test's counted runs).
fn server_cores(doc: &Document, key: &crate::result::TestKey) -> Option<(u32, f64)> {
    let timeline: Timeline = serde_json::from_value(doc.metrics.get("server")?.clone()).ok()?;
    let windows: Vec<RunWindow> =
        serde_json::from_value(doc.metrics.get("runs")?.clone()).unwrap_or_default();
    let samples = timeline.within(&RunWindow::counted(&windows, key));
    let cores = samples.first()?.cpu.len() as u32;
    let mut used: Vec<f64> = samples
        .iter()
        .map(|s| {
            SERVERS
                .iter()
                .filter_map(|name| s.processes.get(*name))
                .sum()
        })
        .collect();
    used.sort_by(f64::total_cmp);
    let median = *used.get(used.len() / 2)?;
    (median > 0.0 && cores > 0).then_some((cores, median))
}
