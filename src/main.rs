//! sitemapgen: write sitemap.xml for a static site's build folder.

mod alternates;
mod cli;
mod config;
mod config_file;
mod entries;
mod git;
mod head;
mod lastmod;
mod output;
mod pipeline;
mod previous;
mod report;
mod robots;
mod rules;
mod serialize;
mod spool;
mod state;
mod url;

use std::io;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

use crate::cli::Cli;
use crate::config::Config;

const EXIT_RUNTIME: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let args: Vec<_> = std::env::args_os().collect();
    let parsed = Cli::command()
        .try_get_matches_from(&args)
        .and_then(|matches| Ok((Cli::from_arg_matches(&matches)?, matches)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => return clap_failure(err),
    };
    if let Some(shell) = cli.completions {
        clap_complete::generate(shell, &mut Cli::command(), "sitemapgen", &mut io::stdout());
        return ExitCode::SUCCESS;
    }
    let cli = match config_file::merge(args, &matches, cli) {
        Ok(cli) => cli,
        Err(err) => match err.downcast::<clap::Error>() {
            Ok(err) => return clap_failure(err),
            Err(err) => return fail(&err, EXIT_USAGE),
        },
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

fn clap_failure(err: clap::Error) -> ExitCode {
    if matches!(
        err.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        err.exit()
    }
    // clap renders "error: …"; prefix the program name as every other message does.
    eprint!("sitemapgen: {}", err.render());
    ExitCode::from(EXIT_USAGE)
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
