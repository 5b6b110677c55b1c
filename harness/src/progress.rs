//! The progress bar of `run` on a terminal: another consumer of the
//! runner's events, beside the per-scenario lines. Hidden when stderr is
//! not a terminal (CI logs, pipes), so output there is unchanged.

use std::io::IsTerminal as _;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::output;
use crate::runner::RunEvent;

/// A bar counting finished scenarios, naming the last one started.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    /// Whether cases are named with their version.
    named: bool,
}

impl Progress {
    /// A bar for `total` cases, drawn only on a terminal; `named`: see
    /// [`output::case_name`].
    pub fn new(total: usize, named: bool) -> Progress {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(total as u64), target);
        if let Ok(style) = ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {wide_msg}") {
            bar.set_style(style);
        }
        Progress { bar, named }
    }

    /// Moves the bar, printing a finished scenario's line above it.
    pub fn on_event(&self, event: &RunEvent) {
        match event {
            RunEvent::Started { id, .. } => self.bar.set_message(id.clone()),
            RunEvent::Finished { outcome, .. } => {
                self.bar
                    .suspend(|| anstream::println!("{}", output::case_line(outcome, self.named)));
                self.bar.inc(1);
            }
        }
    }

    /// Removes the bar before the summary is printed.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
