//! The progress bar of `run` on a terminal, driven by the terminal
//! reporter (`crate::output`). Hidden when stderr is not a terminal (CI
//! logs, pipes), so output there is unchanged.

use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar counting finished cases, naming the last one started.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar for `total` cases, drawn only on a terminal.
    pub fn new(total: usize) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}") {
            bar.set_style(style);
        }
        Progress { bar }
    }

    /// Names the case that just started.
    pub fn started(&self, name: &str) {
        self.bar.set_message(name.to_owned());
    }

    /// Counts a finished case, printing its line (if it has one) above the bar.
    pub fn finished(&self, line: Option<&str>) {
        if let Some(line) = line {
            self.bar.suspend(|| anstream::println!("{line}"));
        }
        self.bar.inc(1);
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
