//! The command line, as clap reads it.

use crate::engine::EntryKind;
use crate::target::local::LocalEngine;
use crate::target::smb::ops::Caching;
use crate::units;
use crate::workload::TestKind;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "sharebench",
    version,
    about = "How fast is this file server, what limits it, and what should change?",
    long_about = "Benchmarks local and mounted filesystems the way storage admins do: warm-up \
                  runs, repeated counted runs, every run journaled, averages with deviation and \
                  confidence intervals, odd runs flagged.\n\nUnits: MB/s = 10^6 bytes/s, \
                  Mb/s = 10^6 bits/s; sizes take binary suffixes (4K = 4096 bytes)."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the tests on a directory (default: the current directory's filesystem).
    Run(RunArgs),
    /// Run the tests over a grid of file sizes and record sizes, like iozone -a.
    Matrix(MatrixArgs),
    /// Measure metadata in one directory as it grows: create, stat, list and remove rates at
    /// each size, to show where a big directory starts to crawl.
    Bigdir(BigdirArgs),
    /// Measure a ceiling to hold a file server against: raw TCP to a serve agent, or the
    /// server's own disk.
    Baseline {
        #[command(subcommand)]
        command: BaselineCommand,
    },
    /// Run on the server host: the far end of the baselines and the source of server metrics.
    Serve(ServeArgs),
    /// Size a server: each component's ceiling, the smallest is the capacity; what-if steps,
    /// clients it carries, or figures calibrated from a result file.
    Size(SizeArgs),
    /// Judge a server's configuration with the tuning fact base: what to change, what to leave
    /// alone, what is obsolete, and why (smb.conf, NFS mounts and exports, ganesha, vsftpd,
    /// sysctl, ethtool, or the running machine)
    Advise(super::advise::AdviseArgs),
    /// Change one setting, measure again: a whole run for each value (an smb.conf parameter or
    /// a sysctl on the lab's server, an NFS mount option, a run option), then the comparison
    Sweep(super::sweep::SweepArgs),
    /// Compare two result documents cell by cell: B/A with its 95 % interval, a significance
    /// test on the recorded runs, a verdict, and where one side wins
    Compare(super::compare::CompareArgs),
    /// One self-contained HTML report of result documents: the verdict and warnings, the
    /// measurement forms, throughput, heatmap, run, latency and metric charts (--png: PNGs too)
    Report(super::report::ReportArgs),
    /// Real Samba, NFS-Ganesha and vsftpd in network namespaces, to experiment and to test.
    Lab {
        #[command(subcommand)]
        command: super::lab::LabCommand,
    },
}

#[derive(Subcommand, Debug)]
pub enum BaselineCommand {
    /// Raw TCP to a `sharebench serve` agent: one stream, or --streams N at once
    Tcp(TcpArgs),
    /// The server's local disk, written (with fsync) and read back uncached by its serve agent
    /// in the directory it was started with (`serve --disk DIR`)
    Disk(DiskArgs),
}

#[derive(Args, Debug)]
pub struct TcpArgs {
    /// The serve agent: HOST or HOST:PORT [default port: 5202]
    pub target: String,

    /// Streams at once, each from a worker of its own on its own connection, started together
    /// (N clients to one server)
    #[arg(
        long,
        visible_alias = "workers",
        default_value_t = 1,
        value_parser = clap::value_parser!(u64).range(1..=256)
    )]
    pub streams: u64,

    /// Bytes each stream moves in a run
    #[arg(long, default_value = "256M", value_parser = size)]
    pub size: u64,

    /// Download (the agent sends) instead of upload
    #[arg(long)]
    pub reverse: bool,

    #[command(flatten)]
    pub method: BaselineMethod,
}

#[derive(Args, Debug)]
pub struct DiskArgs {
    /// The serve agent: HOST or HOST:PORT [default port: 5202]
    pub target: String,

    /// Bytes written and read back in a run
    #[arg(long, default_value = "1G", value_parser = size)]
    pub size: u64,

    #[command(flatten)]
    pub method: BaselineMethod,
}

/// How a baseline is measured and kept, whichever it is.
#[derive(Args, Debug)]
pub struct BaselineMethod {
    /// Uncounted warm-up runs before the counted ones
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,

    /// Counted runs
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,

    /// Write the result document (schema sharebench/1) here
    #[arg(long)]
    pub json: Option<PathBuf>,

    /// JSON Lines journal, appended as each run ends [default: next to --json, or
    /// sharebench-<id>.jsonl in the working directory]
    #[arg(long)]
    pub journal: Option<PathBuf>,

    /// File holding the agent's token (must not be readable by others); else SHAREBENCH_TOKEN
    #[arg(long)]
    pub token_file: Option<PathBuf>,

    /// Seconds the agent may stay silent before a run fails
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address and port to listen on
    #[arg(long, default_value = "0.0.0.0:5202")]
    pub listen: std::net::SocketAddr,

    /// File holding the token clients must give (must not be readable by others); without one
    /// the agent serves only if it listens on loopback
    #[arg(long)]
    pub token_file: Option<PathBuf>,

    /// Directory on the server's disk (under the share, say) where clients may measure the disk;
    /// each measurement writes only in a .sharebench-<id> directory of its own there
    #[arg(long)]
    pub disk: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// Where to measure: a directory (its filesystem is measured),
    /// nfs://host/export?version=3|4|4.1&nfsport=…&mountport=…&uid=…&gid=…&rsize=…&wsize=…&timeo=…&retrans=…&hard|soft,
    /// or ftp://user@host[:port]/path [default: current directory]
    pub target: Option<String>,

    /// Size of each worker's file [default: 1G, reduced to fit the free space]
    #[arg(long, value_parser = size)]
    pub file_size: Option<u64>,

    /// Size of each request [default: 1M for sequential tests, 4K for random ones]
    #[arg(long, value_parser = size)]
    pub record_size: Option<u64>,

    #[command(flatten)]
    pub method: MethodArgs,
}

#[derive(Args, Debug)]
pub struct MatrixArgs {
    /// Where to measure: a directory or a URL, as for run [default: current directory]
    pub target: Option<String>,

    /// File sizes, a power-of-two range FROM..TO or one size
    #[arg(long, default_value = "64K..512M", value_parser = size_range)]
    pub file_sizes: SizeList,

    /// Record sizes, a power-of-two range FROM..TO or one size; only records up to the file size run
    #[arg(long, default_value = "4K..16M", value_parser = size_range)]
    pub record_sizes: SizeList,

    #[command(flatten)]
    pub method: MethodArgs,
}

#[derive(Args, Debug)]
pub struct BigdirArgs {
    /// Where to measure: a directory or a URL, as for run [default: current directory]
    pub target: Option<String>,

    /// Entries in the directory at its largest
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub count: u64,

    /// Entries added between two measured sizes, and created or removed per create or remove
    /// run [default: a tenth of --count]
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub step: Option<u64>,

    /// What the directory holds
    #[arg(long, value_enum, default_value_t = EntryKind::File)]
    pub kind: EntryKind,

    /// Entries looked up (at random) per stat run
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: u64,

    #[command(flatten)]
    pub method: MethodArgs,
}

/// Settings shared by every measuring command.
#[derive(Args, Debug)]
pub struct MethodArgs {
    /// Tests to run, comma-separated: write, rewrite, read, reread, random-read, random-write,
    /// backward-read, record-rewrite, stride-read, mixed; for bigdir: create, stat, list, remove
    /// [bigdir default: all four]
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "write,read,random-read,random-write"
    )]
    pub tests: Vec<TestKind>,

    /// Concurrent workers, each with its own file, started together
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub workers: u64,

    /// Bypass the page cache (O_DIRECT); records must be multiples of 512 bytes
    #[arg(long)]
    pub direct: bool,

    /// How requests are issued
    #[arg(long, value_enum, default_value_t = LocalEngine::Psync)]
    pub engine: LocalEngine,

    /// Requests in flight per worker (local io_uring, NFS)
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub qd: u64,

    /// Count flushing (fsync) in the timing of writing tests, like iozone -e
    #[arg(long)]
    pub fsync: bool,

    /// Link speed for the "% link" column, e.g. 1gbit, 100mbit, 125MB/s
    #[arg(long, value_parser = rate)]
    pub link_speed: Option<f64>,

    /// Uncounted warm-up runs before the counted ones
    #[arg(long, default_value_t = 1)]
    pub warmup: usize,

    /// Counted runs per test
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,

    /// JSON Lines journal, appended as each run ends [default: next to --json, or
    /// sharebench-<id>.jsonl in the working directory]
    #[arg(long)]
    pub journal: Option<PathBuf>,

    /// Write the result document (schema sharebench/1) here
    #[arg(long)]
    pub json: Option<PathBuf>,

    /// Write the measurement forms as CSV here
    #[arg(long)]
    pub csv: Option<PathBuf>,

    /// Write the measurement forms as Markdown here
    #[arg(long)]
    pub markdown: Option<PathBuf>,

    /// Drop the client's page cache before each run, except cache tests (root only)
    #[arg(long)]
    pub drop_caches: bool,

    /// Check every block read against what sharebench wrote, like iozone -V (costs client CPU,
    /// counted in the timing)
    #[arg(long)]
    pub verify: bool,

    /// Keep the benchmark files in .sharebench-<id>/ after the run
    #[arg(long)]
    pub keep: bool,

    /// File holding the password of a network target (must not be readable by others);
    /// otherwise the URL's, SHAREBENCH_PASSWORD, or a prompt on a terminal
    #[arg(long)]
    pub password_file: Option<PathBuf>,

    /// Seconds a network target may stay silent before an operation fails
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,

    /// Records between two requests of stride-read
    #[arg(long, default_value_t = 17, value_parser = clap::value_parser!(u64).range(1..))]
    pub stride: u64,

    /// Share of reads in the mixed test, percent
    #[arg(long, default_value_t = 70, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: u8,

    /// The serve agent on the server host, for its metrics and the raw TCP and disk baselines:
    /// HOST:PORT, or none [default: the target's host, port 5202, when an agent answers there]
    #[arg(long, env = "SHAREBENCH_SERVE")]
    pub serve: Option<String>,

    /// File holding the serve agent's token (must not be readable by others); else
    /// SHAREBENCH_TOKEN
    #[arg(long)]
    pub token_file: Option<PathBuf>,

    /// Also measure FTP to this URL (on the same server, say) after the tests, with the judged
    /// test's sizes: the classic baseline a file-sharing protocol is held against
    #[arg(long, value_name = "URL")]
    pub ftp_baseline: Option<String>,

    /// Judge the server's smb.conf with the tuning advisor and put its findings in the result
    /// (advice[]) and the report, next to what they cost
    #[arg(long, value_name = "FILE")]
    pub advise_smb_conf: Option<PathBuf>,

    /// Bytes each run of the raw TCP baseline moves [default: what raw TCP moves in about
    /// half a second, found by the warm-up]
    #[arg(long, value_parser = size)]
    pub tcp_baseline_size: Option<u64>,

    /// SMB: offer only this dialect: 2.0.2, 2.1, 3.0, 3.0.2 or 3.1.1 [default: all; the newest
    /// both sides speak wins]
    #[arg(long, value_parser = crate::target::smb::parse_dialect, help_heading = "SMB")]
    pub smb_dialect: Option<u16>,

    /// SMB: encrypt every message, even when the server does not ask for it (SMB 3)
    #[arg(long, help_heading = "SMB")]
    pub smb_encrypt: bool,

    /// SMB: largest READ or WRITE request, e.g. 64K [default: the server's maximum, up to 8M]
    #[arg(long, value_parser = size, help_heading = "SMB")]
    pub smb_io_size: Option<u64>,

    /// SMB: what each open asks the server to let it cache: none, read (a read lease or level
    /// II oplock) or rw (a read-write-handle lease or exclusive oplock)
    #[arg(long, value_enum, default_value_t = Caching::None, help_heading = "SMB")]
    pub smb_lease: Caching,
}

#[derive(Args, Debug)]
pub struct SizeArgs {
    /// The figures that model names stand for [default: modern, or the --server file's]
    #[arg(long, value_enum)]
    pub catalog: Option<crate::analysis::sizing::catalog::Catalog>,

    /// A whole server in TOML (catalog, io_size, read_pct, random, [cpus] [disks] [nics] with
    /// count, model, rate, ops); flags given as well win
    #[arg(long, value_name = "FILE")]
    pub server: Option<PathBuf>,

    /// CPUs: COUNTxMODEL (2xsparc10, 8xcore), MODEL, or a COUNT with --cpu-ops/--cpu-rate
    #[arg(long, value_name = "SPEC")]
    pub cpus: Option<String>,

    /// Disks: COUNTxMODEL (6x7200rpm, 4xnvme), MODEL, or a COUNT with --disk-ops/--disk-rate
    #[arg(long, value_name = "SPEC")]
    pub disks: Option<String>,

    /// Network cards: COUNTxMODEL (4x10mbit, 2x10gbit), MODEL, or a COUNT with --nic-rate
    #[arg(long, value_name = "SPEC")]
    pub nics: Option<String>,

    /// Bytes per second one CPU carries, e.g. 6000KB/s
    #[arg(long, value_parser = sizing_rate)]
    pub cpu_rate: Option<f64>,

    /// File-serving operations per second one CPU carries, e.g. 750/s
    #[arg(long, value_parser = sizing_ops)]
    pub cpu_ops: Option<f64>,

    /// Bytes per second one disk carries, e.g. 560KB/s
    #[arg(long, value_parser = sizing_rate)]
    pub disk_rate: Option<f64>,

    /// Operations per second one disk carries, e.g. 70/s
    #[arg(long, value_parser = sizing_ops)]
    pub disk_ops: Option<f64>,

    /// Bytes per second one network card carries, e.g. 1113KB/s or 100mbit
    #[arg(long, value_parser = sizing_rate)]
    pub nic_rate: Option<f64>,

    /// Packets or operations per second one network card carries
    #[arg(long, value_parser = sizing_ops)]
    pub nic_ops: Option<f64>,

    /// Bytes per operation [default: the catalog's, 8K classic, 64K modern]
    #[arg(long, value_parser = size)]
    pub io_size: Option<u64>,

    /// Share of the bytes that are reads [default: 100]
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: Option<u8>,

    /// Random access: disks are held by their random operations
    #[arg(long, conflicts_with = "sequential")]
    pub random: bool,

    /// Sequential access (the default): disks are held by their byte rate
    #[arg(long)]
    pub sequential: bool,

    /// Changes applied one after another, one table row each: disks+5, nics=4, disks=20,
    /// nics=2x100mbit
    #[arg(long, num_args = 1.., value_name = "STEP")]
    pub what_if: Vec<String>,

    /// Clients the server must carry
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub clients: Option<u32>,

    /// What each client asks for: 15KB/s, or transfers per second times a file size, 2.3x12KB
    #[arg(long, value_parser = sizing_per_client, requires = "clients")]
    pub per_client: Option<f64>,

    /// A capacity to share among --clients [default: the model's], e.g. 375KB/s
    #[arg(long, value_parser = sizing_rate, requires = "clients", conflicts_with = "per_client")]
    pub capacity: Option<f64>,

    /// Build the components from what a sharebench run measured (its result document)
    #[arg(long, value_name = "RESULTS.json", conflicts_with_all = ["server", "cpus", "disks", "nics"])]
    pub from: Option<PathBuf>,

    /// Write the sizing as JSON here (with --from: the result document with its sizing added)
    #[arg(long)]
    pub json: Option<PathBuf>,

    /// Write the tables as Markdown here
    #[arg(long)]
    pub markdown: Option<PathBuf>,
}

fn sizing_rate(text: &str) -> Result<f64, String> {
    crate::analysis::sizing::spec::rate(text)
}

fn sizing_ops(text: &str) -> Result<f64, String> {
    crate::analysis::sizing::spec::ops(text)
}

fn sizing_per_client(text: &str) -> Result<f64, String> {
    crate::analysis::sizing::spec::per_client(text)
}

/// A list of sizes given as one argument.
#[derive(Debug, Clone)]
pub struct SizeList(pub Vec<u64>);

fn size(text: &str) -> Result<u64, String> {
    units::parse_size(text).map_err(|e| e.to_string())
}

fn size_range(text: &str) -> Result<SizeList, String> {
    units::parse_size_range(text)
        .map(SizeList)
        .map_err(|e| e.to_string())
}

fn rate(text: &str) -> Result<f64, String> {
    units::parse_rate_bits(text).map_err(|e| e.to_string())
}
