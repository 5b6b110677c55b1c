//! `mcp-conform init`: reads a server's tools, prompts, resources and
//! templates and writes a commented profile binding every trigger it can
//! (see [`triggers`]) — without calling any tool.

pub mod inventory;
mod render;
mod skeleton;
pub mod triggers;

use std::path::PathBuf;
use std::time::Duration;

use mcp_conform_core::version::ProtocolVersion;
use mcp_conform_report::ExitCode;

use crate::cli::{CliError, ServerArgs, at_least_one};
use inventory::Inventory;

/// The profile file `init` writes unless told otherwise.
pub const DEFAULT_PROFILE_FILE: &str = "mcp-conform.profile.yaml";

#[derive(Debug, clap::Args)]
pub struct InitArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// Where to write the profile (refuses to overwrite without --force).
    #[arg(long, short = 'o', value_name = "FILE", default_value = DEFAULT_PROFILE_FILE)]
    pub output: PathBuf,
    /// Overwrite the file if it exists.
    #[arg(long)]
    pub force: bool,
    /// The protocol version to speak while reading the server's lists.
    #[arg(long, default_value = "2025-11-25", value_name = "VERSION")]
    pub protocol: ProtocolVersion,
    /// Seconds the server has to answer `initialize`.
    #[arg(long, default_value_t = 10, value_parser = at_least_one::<u64>)]
    pub startup_timeout: u64,
}

pub fn init(args: InitArgs) -> Result<ExitCode, CliError> {
    if args.output.exists() && !args.force {
        return Err(CliError::Usage(format!(
            "{} already exists (--force overwrites it, -o FILE writes another)",
            args.output.display()
        )));
    }
    let inventory = Inventory::read(
        &args.server,
        args.protocol,
        Duration::from_secs(args.startup_timeout),
    )?;
    let text = render::profile(&inventory, &args.server.describe());
    std::fs::write(&args.output, &text)
        .map_err(|e| CliError::Infrastructure(format!("{}: {e}", args.output.display())))?;
    let bound = triggers::TRIGGERS
        .iter()
        .filter(|t| matches!(triggers::choose(t, &inventory), triggers::Choice::Bound { .. }))
        .count();
    println!(
        "wrote {}: {bound} of {} triggers bound from {} tools, {} prompts, {} resources, {} templates (no tool called)",
        args.output.display(),
        triggers::TRIGGERS.len(),
        inventory.tools.len(),
        inventory.prompts.len(),
        inventory.resources.len(),
        inventory.templates.len(),
    );
    println!(
        "next: review it, then `mcp-conform profile check {0}` and `mcp-conform run --profile {0}`, \
         each with {1}",
        args.output.display(),
        args.server.describe()
    );
    Ok(ExitCode::Ok)
}
