//! The result document, `"schema": "sharebench/1"`: the contract between measuring and every
//! reader (terminal, JSON, reports, comparisons). Sizes are bytes, times seconds, rates bytes
//! per second. Fields are only ever added.

use crate::monitor::host::HostInfo;
use crate::stats::Summary;
use crate::target::TargetInfo;
use crate::workload::TestKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub const SCHEMA: &str = "sharebench/1";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Document {
    pub schema: String,
    pub run_id: String,
    /// complete | interrupted | failed
    pub status: String,
    /// Why the run ended early, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub started: String,
    pub finished: String,
    pub tool: ToolInfo,
    pub host: HostInfo,
    pub target: TargetInfo,
    pub config: serde_json::Value,
    pub tests: Vec<TestResult>,
    pub baselines: Vec<Baseline>,
    /// Timelines per host; filled once monitoring runs alongside (empty until then).
    pub metrics: BTreeMap<String, serde_json::Value>,
    pub warnings: Vec<Warning>,
    /// The bottleneck verdict, once baselines and metrics make one possible.
    pub verdict: Option<serde_json::Value>,
    /// The sizing model calibrated from these results (`sharebench size --from`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizing: Option<serde_json::Value>,
    /// The tuning advisor's findings on the server's configuration (`--advise-smb-conf`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advice: Vec<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ToolInfo {
    pub name: String,
    pub version: String,
    pub git_rev: String,
}

impl ToolInfo {
    pub fn current() -> ToolInfo {
        ToolInfo {
            name: "sharebench".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            git_rev: env!("SHAREBENCH_GIT_REV").into(),
        }
    }
}

/// Which cell of the plan a result belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestKey {
    pub test: TestKind,
    pub file_size: u64,
    pub record_size: u64,
    pub workers: usize,
    pub direct: bool,
    /// Metadata tests: the entries in the directory while the test ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entries: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestResult {
    #[serde(flatten)]
    pub key: TestKey,
    /// True for tests that measure the page cache by design (reread, record-rewrite).
    pub cache_test: bool,
    pub runs: Vec<RunRecord>,
    /// Statistics of the runs' `bytes_per_s`.
    pub summary: Option<Summary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Run number, from 1; warm-up runs count separately.
    pub n: usize,
    pub warmup: bool,
    pub bytes: u64,
    /// From the first worker's start to the last worker's end.
    pub seconds: f64,
    pub ops: u64,
    pub bytes_per_s: f64,
    pub ops_per_s: f64,
    pub latency_us: Latency,
    pub outlier: bool,
    /// Time between the first and the last worker's start.
    pub start_skew_s: f64,
    /// CPU seconds (user + system) this client process used during the run's timed pass and
    /// the untimed flush after it: what the client itself cost.
    #[serde(default)]
    pub client_cpu_s: f64,
    pub workers: Vec<WorkerRecord>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkerRecord {
    pub worker: usize,
    pub bytes: u64,
    pub ops: u64,
    pub seconds: f64,
    pub bytes_per_s: f64,
}

/// Percentiles of single-request latency, microseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
    pub p99_9: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Baseline {
    /// tcp | local_disk | memcpy | ftp
    pub kind: String,
    /// upload or download (tcp, ftp), write or read (local_disk)
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub direction: String,
    pub runs: Vec<RunRecord>,
    pub summary: Option<Summary>,
}

impl Baseline {
    /// Counted runs of one kind and direction, with their summary.
    pub fn of(kind: &str, direction: &str, mut runs: Vec<RunRecord>) -> Baseline {
        let summary =
            crate::stats::summary::summarise_runs(&mut runs, "bytes/s", |r| r.bytes_per_s);
        Baseline {
            kind: kind.into(),
            direction: direction.into(),
            runs,
            summary,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Warning {
    /// cache | noisy | start_skew | …
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<TestKind>,
    pub message: String,
}
