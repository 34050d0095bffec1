//! sitemapgen: write sitemap.xml for a static site's build folder.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;

use sitemapgen::config::UsageError;
use sitemapgen::{Request, cli, pipeline, to_stderr};

const EXIT_RUNTIME: u8 = 1;
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let config = match sitemapgen::request(std::env::args_os().collect()) {
        Ok(Request::Run(config)) => config,
        Ok(Request::Completions(shell)) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cli::command(), "sitemapgen", &mut script);
            // A reader that stops early (`| head`) is no failure.
            return match io::stdout().lock().write_all(&script) {
                Err(err) if err.kind() != io::ErrorKind::BrokenPipe => {
                    fail(&err.into(), EXIT_RUNTIME)
                }
                _ => ExitCode::SUCCESS,
            };
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
    // A value our own parser refused: its message names the flag and the value.
    if let Some(ours) = cli::value_error(&err) {
        to_stderr(format_args!("sitemapgen: error: {ours}"));
        return ExitCode::from(EXIT_USAGE);
    }
    // clap renders "error: …"; prefix the program name as every other message does.
    to_stderr(format_args!(
        "sitemapgen: {}",
        err.render().to_string().trim_end()
    ));
    ExitCode::from(EXIT_USAGE)
}

fn fail(err: &anyhow::Error, code: u8) -> ExitCode {
    to_stderr(format_args!("sitemapgen: error: {err:#}"));
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
