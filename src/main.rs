//! sitemapgen: write sitemap.xml for a static site's build folder.

mod alternates;
mod cli;
mod config;
mod entries;
mod git;
mod head;
mod lastmod;
mod output;
mod pipeline;
mod report;
mod rules;
mod serialize;
mod spool;
mod state;
mod url;

use std::io;
use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::cli::Cli;
use crate::config::Config;

const EXIT_RUNTIME: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            err.exit()
        }
        Err(err) => {
            // clap renders "error: …"; prefix the program name as every other message does.
            eprint!("sitemapgen: {}", err.render());
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let config = match Config::from_cli(cli) {
        Ok(config) => config,
        Err(err) => return fail(&err, EXIT_USAGE),
    };
    match pipeline::run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.is::<config::UsageError>() => fail(&err, EXIT_USAGE),
        Err(err) => fail(&err, EXIT_RUNTIME),
    }
}

fn fail(err: &anyhow::Error, code: u8) -> ExitCode {
    eprintln!("sitemapgen: error: {err:#}");
    ExitCode::from(code)
}

/// A reader that closed the pipe early (`sitemapgen -o - … | head`) is not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}
