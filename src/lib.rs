//! sitemapgen: write sitemap.xml for a static site's build folder.
//!
//! The binary (`src/main.rs`) is a thin shell over this library. The library makes public
//! only what the binary runs and what the property tests (`tests/properties`) and the fuzz
//! targets (`fuzz/`) drive directly: the URL mapping, the serializer, the state file and
//! page-head readers, and the command line with its config file.

mod alternates;
pub mod cli;
pub mod config;
mod config_file;
mod entries;
mod git;
pub mod head;
mod lastmod;
mod output;
pub mod pipeline;
mod previous;
mod report;
mod robots;
mod rules;
pub mod serialize;
mod spool;
pub mod state;
pub mod url;

use std::ffi::OsString;

use anyhow::Result;
use clap::FromArgMatches;

use crate::cli::Cli;
use crate::config::Config;
pub use crate::report::to_stderr;

/// What a command line asks for.
#[derive(Debug)]
pub enum Request {
    /// Print a shell's completion script (answered before any config file is read).
    Completions(clap_complete::Shell),
    Run(Box<Config>),
}

/// Reads a command line (program name first), with the config file's settings merged under
/// it, into what to do. Every error is a usage error; a `clap::Error` among them carries its
/// own rendering, and stands for `--help` and `--version` too.
pub fn request(args: Vec<OsString>) -> Result<Request> {
    let matches = cli::command().try_get_matches_from(&args)?;
    let cli = Cli::from_arg_matches(&matches)?;
    if let Some(shell) = cli.completions {
        return Ok(Request::Completions(shell));
    }
    let cli = config_file::merge(args, &matches, cli)?;
    Ok(Request::Run(Box::new(Config::from_cli(cli)?)))
}
