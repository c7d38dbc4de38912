//! The run's own directory on the target, `.sharebench-<id>/`: the only place the tool writes.
//!
//! Removal deletes only the files the engine named, then the directory, so nothing a user put
//! there by accident is ever deleted, and a target that cannot list directories works the same.

use super::EntryKind;
use crate::target::Target;
use std::io;

pub struct WorkDir<'t> {
    target: &'t dyn Target,
    name: String,
    files: Vec<String>,
    big_dir: Option<BigDir>,
    keep: bool,
    removed: bool,
}

/// The metadata tests' directory. It always holds entries `0..population`, so removal knows
/// every name without listing.
pub struct BigDir {
    pub path: String,
    pub kind: EntryKind,
    pub population: u64,
}

impl BigDir {
    pub fn entry(&self, index: u64) -> String {
        let prefix = match self.kind {
            EntryKind::File => 'f',
            EntryKind::Dir => 'd',
        };
        format!("{}/{prefix}{index:08}", self.path)
    }

    /// Adds entry `population`.
    pub fn add(&mut self, target: &dyn Target) -> io::Result<()> {
        let path = self.entry(self.population);
        match self.kind {
            EntryKind::File => target.create_file(&path)?,
            EntryKind::Dir => target.make_dir(&path)?,
        }
        self.population += 1;
        Ok(())
    }

    /// Removes the last entry.
    pub fn take(&mut self, target: &dyn Target) -> io::Result<()> {
        let path = self.entry(self.population - 1);
        match self.kind {
            EntryKind::File => target.remove_file(&path)?,
            EntryKind::Dir => target.remove_dir(&path)?,
        }
        self.population -= 1;
        Ok(())
    }
}

impl<'t> WorkDir<'t> {
    /// Creates `.sharebench-<run_id>` at the target's root.
    pub fn create(target: &'t dyn Target, run_id: &str, keep: bool) -> io::Result<WorkDir<'t>> {
        let name = format!(".sharebench-{run_id}");
        target.make_dir(&name)?;
        Ok(WorkDir {
            target,
            name,
            files: Vec::new(),
            big_dir: None,
            keep,
            removed: false,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The path of worker `k`'s benchmark file, remembered for removal.
    pub fn worker_file(&mut self, worker: usize) -> String {
        let path = format!("{}/worker-{worker}.dat", self.name);
        if !self.files.contains(&path) {
            self.files.push(path.clone());
        }
        path
    }

    /// The metadata tests' directory, made on first use.
    pub fn big_dir(&mut self, kind: EntryKind) -> io::Result<&mut BigDir> {
        if self.big_dir.is_none() {
            let path = format!("{}/bigdir", self.name);
            self.target.make_dir(&path)?;
            self.big_dir = Some(BigDir {
                path,
                kind,
                population: 0,
            });
        }
        Ok(self.big_dir.as_mut().expect("made above"))
    }

    /// Removes the files and the directory; the first failure is returned, the rest still tried.
    pub fn remove(&mut self) -> io::Result<()> {
        let mut outcome = Ok(());
        if let Some(mut big_dir) = self.big_dir.take() {
            while big_dir.population > 0 {
                if let Err(e) = big_dir.take(self.target) {
                    outcome = Err(e);
                    break;
                }
            }
            if outcome.is_ok() {
                outcome = self.target.remove_dir(&big_dir.path);
            }
        }
        for file in self.files.drain(..) {
            match self.target.remove_file(&file) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => outcome = outcome.and(Err(e)),
                _ => {}
            }
        }
        self.removed = true;
        outcome.and(self.target.remove_dir(&self.name))
    }

    /// True when `--keep` asked to leave the files for inspection.
    pub fn kept(&self) -> bool {
        self.keep
    }
}

impl Drop for WorkDir<'_> {
    fn drop(&mut self) {
        if !self.keep && !self.removed {
            // Errors were reported by an explicit remove(); on unwinding there is nobody to tell.
            let _ = self.remove();
        }
    }
}
