//! The run's own directory on the target, `.sharebench-<id>/`: the only place the tool writes.
//!
//! Removal deletes only the files the engine named, then the directory, so nothing a user put
//! there by accident is ever deleted, and a target that cannot list directories works the same.

use crate::target::Target;
use std::io;

pub struct WorkDir<'t> {
    target: &'t dyn Target,
    name: String,
    files: Vec<String>,
    keep: bool,
    removed: bool,
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

    /// Removes the files and the directory; the first failure is returned, the rest still tried.
    pub fn remove(&mut self) -> io::Result<()> {
        let mut outcome = Ok(());
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
