//! How an `mcp-conform` command ends: the documented exit codes (docs/servers.md,
//! "Exit codes"), defined once for the command line and the report's gate.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A process exit status with its documented meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum ExitCode {
    /// No failure: pass, non-strict, not-applicable or not-observed.
    Ok = 0,
    /// A conformance failure no baseline entry accepts (non-strict ones too
    /// under `--strict`), or a stale baseline entry.
    Failures = 1,
    /// A bad invocation, a bad scenario or baseline file, or no scenario
    /// selected.
    Usage = 2,
    /// An infrastructure error: the peer could not be started, a run was
    /// interrupted, a report could not be written. It outranks failures: a
    /// run that broke cannot be trusted.
    Error = 3,
}

impl ExitCode {
    /// The number the process exits with.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<ExitCode> for u8 {
    fn from(exit: ExitCode) -> u8 {
        exit.code()
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(exit: ExitCode) -> std::process::ExitCode {
        std::process::ExitCode::from(exit.code())
    }
}

impl TryFrom<u8> for ExitCode {
    type Error = String;

    fn try_from(code: u8) -> Result<ExitCode, String> {
        match code {
            0 => Ok(ExitCode::Ok),
            1 => Ok(ExitCode::Failures),
            2 => Ok(ExitCode::Usage),
            3 => Ok(ExitCode::Error),
            other => Err(format!("{other} is not an mcp-conform exit code (0 to 3)")),
        }
    }
}

/// Lets readers of a report compare the gate's code with a plain number.
impl PartialEq<u8> for ExitCode {
    fn eq(&self, code: &u8) -> bool {
        self.code() == *code
    }
}

impl fmt::Display for ExitCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_through_json_as_numbers() {
        for exit in [ExitCode::Ok, ExitCode::Failures, ExitCode::Usage, ExitCode::Error] {
            let json = serde_json::to_string(&exit).unwrap();
            assert_eq!(json, exit.code().to_string());
            assert_eq!(serde_json::from_str::<ExitCode>(&json).unwrap(), exit);
        }
        assert!(serde_json::from_str::<ExitCode>("4").is_err());
    }
}
