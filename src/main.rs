//! sitemapgen: write sitemap.xml for a static site's build folder.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;

use sitemapgen::error::{self, EXIT_RUNTIME, EXIT_USAGE, exit_code, reader_gone};
use sitemapgen::{Request, cli, run, to_stderr};

fn main() -> ExitCode {
    let outcome = match sitemapgen::request(std::env::args_os().collect()) {
        Ok(Request::Run(settings)) => run::run(&settings),
        Ok(Request::Explain(settings, asked)) => sitemapgen::explain(&settings, &asked),
        Ok(Request::Submit(settings)) => {
            return match sitemapgen::submit::indexnow::submit(&settings) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(&err, exit_code(&err)),
            };
        }
        Ok(Request::GoogleSubmit(settings)) => {
            return match sitemapgen::submit::google::submit(&settings) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(&err, exit_code(&err)),
            };
        }
        Ok(Request::Completions(shell)) => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cli::command(), "sitemapgen", &mut script);
            // A reader that stops early (`| head`) is no failure.
            return match io::stdout().lock().write_all(&script) {
                Err(err) if !reader_gone(&err) => fail(&err.into(), EXIT_RUNTIME),
                _ => ExitCode::SUCCESS,
            };
        }
        Err(err) => match err.downcast::<clap::Error>() {
            Ok(err) => return clap_failure(err),
            Err(err) => return fail(&err, EXIT_USAGE),
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => match exit_code(&err) {
            0 => ExitCode::SUCCESS,
            code => fail(&err, code),
        },
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
    match error::hint(err) {
        Some(hint) => to_stderr(format_args!("sitemapgen: error: {err:#}\n{hint}")),
        None => to_stderr(format_args!("sitemapgen: error: {err:#}")),
    }
    ExitCode::from(code)
}
