//! The JSON Lines journal: one line per event, written and synced the moment it happens, so a
//! crash or a kill loses nothing already measured.
//!
//! Lines: `{"kind":"start", …}` with everything that identifies the run, one `{"kind":"run", …}`
//! per finished run (warm-ups included, flagged), and `{"kind":"end", …}` unless the process died.

use crate::result::{RunRecord, TestKey};
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

pub struct Journal {
    file: File,
    path: PathBuf,
}

#[derive(Serialize)]
struct RunLine<'a> {
    kind: &'static str,
    #[serde(flatten)]
    key: &'a TestKey,
    run: &'a RunRecord,
}

impl Journal {
    /// Opens `path` for appending (one journal may hold several runs, each from its start line).
    pub fn open(path: &Path) -> io::Result<Journal> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Journal {
            file,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one event object (already carrying its `kind`) and syncs it to disk.
    pub fn append<T: Serialize>(&mut self, event: &T) -> io::Result<()> {
        let mut line = serde_json::to_vec(event).map_err(io::Error::other)?;
        line.push(b'\n');
        self.file.write_all(&line)?;
        self.file.sync_data()
    }

    pub fn append_run(&mut self, key: &TestKey, run: &RunRecord) -> io::Result<()> {
        self.append(&RunLine {
            kind: "run",
            key,
            run,
        })
    }
}
