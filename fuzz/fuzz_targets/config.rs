#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use sitemapgen_fuzz::checks;
use tempfile::TempDir;

/// Where the config file is written, once per process.
static DIR: LazyLock<TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

// The config file's text, and the rest of the command line as an argument a line (text, so
// that the dictionary's option names combine).
fuzz_target!(|input: (String, String)| {
    let (toml, command_line) = input;
    let args: Vec<String> = command_line
        .split_terminator('\n')
        .map(String::from)
        .collect();
    checks::config(&toml, &args, DIR.path());
});
