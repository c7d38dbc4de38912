//! The progress bar on stderr. It draws only on a terminal, so pipes and CI logs stay clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    pub fn new(total_runs: usize) -> Progress {
        let bar =
            ProgressBar::with_draw_target(Some(total_runs as u64), ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} runs · {msg}",
            )
            .expect("static template is valid"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar }
    }

    /// Names the run now under way; counts the previous one as done.
    pub fn starting(&self, what: String) {
        self.bar.set_message(what);
    }

    pub fn finished_one(&self) {
        self.bar.inc(1);
    }

    /// Prints a line above the bar (or plainly when there is no bar).
    pub fn say(&self, line: &str) {
        if self.bar.is_hidden() {
            eprintln!("{line}");
        } else {
            self.bar.println(line);
        }
    }

    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }
}
