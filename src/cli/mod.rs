//! The command line and the config file, read into the run's settings: the one module that
//! knows clap.

mod args;
mod config_file;
mod place;
mod settings;
mod submit;

use std::ffi::OsString;

use anyhow::Result;
use clap::FromArgMatches;

pub use args::{command, value_error};

use crate::explain::Asked;
use crate::run;

/// What a command line asks for.
#[derive(Debug)]
pub enum Request {
    /// Print a shell's completion script (answered before any config file is read).
    Completions(clap_complete::Shell),
    Run(Box<run::Settings>),
    /// `--explain PAGE`: the run's stages on that page alone, told instead of written.
    Explain(Box<run::Settings>, Box<Asked>),
    /// `--indexnow-submit`.
    Submit(Box<crate::submit::indexnow::Settings>),
    /// `--google-submit`.
    GoogleSubmit(Box<crate::submit::google::Settings>),
}

/// Reads a command line (program name first), with the config file's settings merged under
/// it, into what to do. Every error is a usage error; a `clap::Error` among them carries its
/// own rendering, and stands for `--help` and `--version` too.
pub fn request(args: Vec<OsString>) -> Result<Request> {
    let (args, off) = args::flag_values(args)?;
    let matches = command().try_get_matches_from(&args)?;
    let cli = args::Cli::from_arg_matches(&matches)?;
    if let Some(shell) = cli.completions {
        return Ok(Request::Completions(shell));
    }
    let (cli, given) = config_file::merge(&matches, cli, &off)?;
    let blame = |err| match &given {
        Some(given) => given.blame(err),
        None => err,
    };
    if cli.google_submit {
        let settings = submit::google_settings(cli).map_err(blame)?;
        return Ok(Request::GoogleSubmit(Box::new(settings)));
    }
    if cli.indexnow_submit {
        let settings = submit::submit_settings(cli).map_err(blame)?;
        return Ok(Request::Submit(Box::new(settings)));
    }
    Ok(match settings::settings(cli).map_err(blame)? {
        (settings, None) => Request::Run(Box::new(settings)),
        (settings, Some(asked)) => Request::Explain(Box::new(settings), Box::new(asked)),
    })
}
