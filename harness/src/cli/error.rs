//! Why a command stopped before it could judge anything: errors as data,
//! each with its exit code, printed once by [`super::main`].

use std::fmt::Write as _;

use mcp_conform_core::diag::Diagnostic;
use mcp_conform_report::ExitCode;

/// A command's failure to do its job (as opposed to a peer's failure to
/// conform, which is a verdict and ends in [`ExitCode::Failures`]).
#[derive(Debug)]
pub enum CliError {
    /// A bad invocation: an option that does not parse or nothing to run.
    Usage(String),
    /// Located problems in a file the user wrote (scenarios, a baseline).
    Diagnostics {
        diagnostics: Vec<Diagnostic>,
        /// The files, in words (`scenario files`, `the baseline`).
        what: &'static str,
    },
    /// The run could not be done: a peer or a runtime would not start, a
    /// report could not be written.
    Infrastructure(String),
    /// A bundled peer (`reference server`, …) failed while it served.
    Peer { peer: &'static str, error: String },
}

impl CliError {
    /// Problems in scenario files.
    pub fn scenarios(diagnostics: Vec<Diagnostic>) -> CliError {
        CliError::Diagnostics {
            diagnostics,
            what: "scenario files",
        }
    }

    /// The documented exit code of this error.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) | CliError::Diagnostics { .. } => ExitCode::Usage,
            CliError::Infrastructure(_) | CliError::Peer { .. } => ExitCode::Error,
        }
    }

    /// What stderr shows: the diagnostics with their count, or one line.
    pub fn render(&self, color: bool) -> String {
        match self {
            CliError::Usage(message) | CliError::Infrastructure(message) => format!("error: {message}\n"),
            CliError::Diagnostics { diagnostics, what } => {
                let mut out = String::new();
                for diagnostic in diagnostics {
                    writeln!(out, "{}", diagnostic.render(color)).expect("writing to a String");
                }
                writeln!(out, "{} error(s) in {what}", diagnostics.len()).expect("writing to a String");
                out
            }
            CliError::Peer { peer, error } => format!("{peer}: {error}\n"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_and_file_errors_exit_2_the_rest_3() {
        assert_eq!(CliError::Usage("x".into()).exit_code(), ExitCode::Usage);
        assert_eq!(CliError::scenarios(Vec::new()).exit_code(), ExitCode::Usage);
        assert_eq!(CliError::Infrastructure("x".into()).exit_code(), ExitCode::Error);
        let peer = CliError::Peer {
            peer: "reference server",
            error: "gone".into(),
        };
        assert_eq!(peer.exit_code(), ExitCode::Error);
        assert_eq!(peer.render(false), "reference server: gone\n");
        assert_eq!(CliError::Usage("bad".into()).render(false), "error: bad\n");
    }
}
