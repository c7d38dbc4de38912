//! `run --ftp-baseline URL`: the classic baseline. After the tests, sharebench's own FTP client
//! uploads and downloads a file of the judged test's sizes on the engine that ran the tests, so
//! the protocol is held against FTP on the same server ("if Samba is much slower than FTP, it's
//! time to tune it").

use super::args::MethodArgs;
use super::targets;
use super::Failure;
use crate::engine::workdir::WorkDir;
use crate::engine::{self, Cell, Observer, Plan, Stop};
use crate::result::{Baseline, RunRecord, TestKey, Warning};
use crate::target::credentials::Secret;
use crate::target::ftp::FtpTarget;
use crate::target::url::Url;
use crate::workload::TestKind;
use std::io;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// An FTP server that answered, to measure once the tests are done.
pub struct FtpBaseline {
    url: Url,
    password: Secret,
    timeout: Duration,
}

/// Checks `--ftp-baseline` before anything is measured: a URL that is not FTP, a wrong password
/// or a server that does not answer is one sentence now rather than a gap later.
pub fn prepare(method: &MethodArgs) -> Result<Option<FtpBaseline>, Failure> {
    let Some(spec) = &method.ftp_baseline else {
        return Ok(None);
    };
    let url = Url::parse(spec).map_err(|e| Failure::bad_input(format!("--ftp-baseline: {e}.")))?;
    if url.scheme != "ftp" {
        return Err(Failure::bad_input(format!(
            "--ftp-baseline takes an ftp:// URL, not {}.",
            url.redacted()
        )));
    }
    let (_, password) = targets::open_ftp(url.clone(), method)?;
    Ok(Some(FtpBaseline {
        url,
        password,
        timeout: Duration::from_secs(method.timeout),
    }))
}

/// Listens to nothing: the baseline's runs are kept whole in its result.
struct Unobserved;

impl Observer for Unobserved {
    fn run_starting(&mut self, _: &Cell, _: usize, _: bool) {}
    fn run_finished(&mut self, _: &TestKey, _: &RunRecord) -> io::Result<()> {
        Ok(())
    }
}

impl FtpBaseline {
    /// Uploads then downloads the judged test's file with its record size and workers (one
    /// warm-up, `runs` counted runs each) in a work directory of its own; `ftp_upload` and
    /// `ftp_download`, or a warning saying why they are missing.
    pub fn measure(
        &self,
        run_id: &str,
        judged: &TestKey,
        runs: usize,
        stop: &AtomicBool,
    ) -> Result<Vec<Baseline>, Warning> {
        let missing = |e: String| Warning {
            kind: "no_ftp_baseline".into(),
            test: None,
            message: format!("the FTP baseline to {} failed: {e}", self.url.redacted()),
        };
        let target = FtpTarget::connect(self.url.clone(), self.password.clone(), self.timeout)
            .map_err(|e| missing(e.to_string()))?;
        let mut workdir = WorkDir::create(&target, &format!("{run_id}-ftp"), false)
            .map_err(|e| missing(e.to_string()))?;
        let cell = |test| Cell {
            test,
            file_size: judged.file_size,
            record_size: judged.record_size,
            entries: None,
        };
        let plan = Plan {
            cells: vec![cell(TestKind::Write), cell(TestKind::Read)],
            warmup: 1,
            runs,
            workers: judged.workers,
            direct: false,
            queue_depth: 1,
            fsync: false,
            drop_caches: false,
            verify: false,
            params: Default::default(),
            metadata: Default::default(),
        };
        let measured = engine::execute(&target, &plan, &mut workdir, &mut Unobserved, stop);
        let removed = workdir.remove();
        match measured.stop {
            Some(Stop::Interrupted) => return Err(missing("interrupted".into())),
            Some(Stop::Failed(e)) => return Err(missing(e.to_string())),
            None => {}
        }
        removed.map_err(|e| missing(format!("cannot remove its work directory: {e}")))?;
        Ok(measured
            .tests
            .into_iter()
            .zip(["upload", "download"])
            .map(|(test, direction)| {
                let counted = test.runs.into_iter().filter(|r| !r.warmup).collect();
                Baseline::of("ftp", direction, counted)
            })
            .collect())
    }
}
