//! sitemapgen: write sitemap.xml for a static site's build folder.

use std::io;
use std::process::ExitCode;

use clap::CommandFactory;
use clap::error::ErrorKind;

use sitemapgen::cli::Cli;
use sitemapgen::config::UsageError;
use sitemapgen::{Request, pipeline};

const EXIT_RUNTIME: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let config = match sitemapgen::request(std::env::args_os().collect()) {
        Ok(Request::Run(config)) => config,
        Ok(Request::Completions(shell)) => {
            clap_complete::generate(shell, &mut Cli::command(), "sitemapgen", &mut io::stdout());
            return ExitCode::SUCCESS;
        }
        Err(err) => match err.downcast::<clap::Error>() {
            Ok(err) => return clap_failure(err),
            Err(err) => return fail(&err, EXIT_USAGE),
        },
    };
    match pipeline::run(&config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) if err.is::<UsageError>() => fail(&err, EXIT_USAGE),
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
