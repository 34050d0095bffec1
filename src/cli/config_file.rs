//! `sitemapgen.toml`: settings for a project's runs, merged under the command line.
//!
//! Keys are the long options without dashes (`base-url`, `include`, …) plus `dir`. A flag
//! takes a boolean, a repeatable option an array of strings, any other option a string (or a
//! number where it takes one). A key the command line also gives is ignored, its type
//! checked all the same: flags win.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use clap::error::{ContextKind, ContextValue};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, FromArgMatches};
use toml::Value;

use super::args::{self, Cli};

pub const DEFAULT_FILE: &str = "sitemapgen.toml";

/// Options that only make sense on the command line.
const COMMAND_LINE_ONLY: &[&str] = &[
    "config",
    "no-config",
    "completions",
    "indexnow-submit",
    "help",
    "version",
];

/// Pairs where giving one on the command line silences the other in the file.
const OVERRIDES: &[(&str, &str)] = &[("quiet", "verbose"), ("verbose", "quiet")];

/// The command line with the config file's settings added under it.
pub fn merge(args: Vec<OsString>, matches: &ArgMatches, cli: Cli) -> Result<Cli> {
    let path = match (&cli.config, cli.no_config) {
        (_, true) => return Ok(cli),
        (Some(path), _) => path.clone(),
        (None, false) => PathBuf::from(DEFAULT_FILE),
    };
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == io::ErrorKind::NotFound && cli.config.is_none() => {
            return Ok(cli);
        }
        Err(err) => bail!("cannot read config file {}: {err}", path.display()),
    };
    let table: toml::Table = text
        .parse()
        .with_context(|| format!("config file {} is not valid TOML", path.display()))?;
    let mut merged = args;
    let (from_file, keys) = arguments(&table, matches, &path)?;
    merged.extend(from_file);
    // The command line parsed alone, so an error now is in a value the file gave.
    let matches = args::command()
        .try_get_matches_from(merged)
        .map_err(|err| blame(err, &keys, &path))?;
    Ok(Cli::from_arg_matches(&matches)?)
}

/// A value of the file that the command refused, named by its key and the file.
fn blame(err: clap::Error, keys: &[String], path: &Path) -> anyhow::Error {
    let arg = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.clone(),
        _ => String::new(),
    };
    let key = keys.iter().find(|key| {
        arg.strip_prefix("--")
            .and_then(|rest| rest.strip_prefix(key.as_str()))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '=', '[']))
            || (key.as_str() == "dir" && arg.starts_with("[DIR]"))
    });
    let message = match args::value_error(&err) {
        Some(ours) => ours.to_string(),
        None => {
            let rendered = err.render().to_string();
            let first = rendered.lines().next().unwrap_or_default();
            first.strip_prefix("error: ").unwrap_or(first).to_string()
        }
    };
    match key {
        Some(key) => anyhow!("config file {}: key {key:?}: {message}", path.display()),
        None => anyhow!("config file {}: {message}", path.display()),
    }
}

/// Whether `arg` takes a number (`max-urls = 100`, `max-churn = 2.5`): its value is named
/// as one.
fn takes_number(arg: &clap::Arg) -> bool {
    arg.get_value_names().is_some_and(
        |names| matches!(names, [name] if ["N", "SECONDS", "PERCENT"].contains(&name.as_str())),
    )
}

/// The file's settings as command-line arguments, for the keys the command line leaves open,
/// and those keys.
fn arguments(
    table: &toml::Table,
    matches: &ArgMatches,
    path: &Path,
) -> Result<(Vec<OsString>, Vec<String>)> {
    let command = args::command();
    let mut args = Vec::new();
    let mut keys = Vec::new();
    let preview = matches
        .get_one::<std::path::PathBuf>("output")
        .is_some_and(|output| output.as_os_str() == "-");
    for (key, value) in table {
        let wrong = |expected: &str| {
            anyhow::anyhow!(
                "config file {}: key {key:?} must be {expected}",
                path.display()
            )
        };
        let arg = command
            .get_arguments()
            .find(|arg| arg.get_long() == Some(key) || (key == "dir" && arg.is_positional()))
            .filter(|_| !COMMAND_LINE_ONLY.contains(&key.as_str()));
        let Some(arg) = arg else {
            bail!("config file {}: unknown key {key:?}", path.display());
        };
        // The value's type is checked even where the command line gives the setting: a
        // mistake in the file shows on the first run, not the first without that flag.
        let is_flag = args::is_flag(arg);
        let values = match arg.get_action() {
            ArgAction::Set if is_flag => {
                vec![
                    value
                        .as_bool()
                        .ok_or_else(|| wrong("true or false"))?
                        .to_string(),
                ]
            }
            ArgAction::Append => value
                .as_array()
                .ok_or_else(|| wrong("an array of strings"))?
                .iter()
                .map(|item| item.as_str().map(String::from))
                .collect::<Option<Vec<String>>>()
                .ok_or_else(|| wrong("an array of strings"))?,
            _ => vec![match value {
                Value::String(text) => text.clone(),
                Value::Integer(n) if takes_number(arg) => n.to_string(),
                Value::Float(n) if takes_number(arg) => n.to_string(),
                _ if takes_number(arg) => return Err(wrong("a number")),
                _ => return Err(wrong("a string")),
            }],
        };
        let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        let overridden = OVERRIDES
            .iter()
            .any(|(flag, other)| *other == key && given(&flag.replace('-', "_")));
        // A preview on standard output (-o -) writes no robots.txt.
        if given(arg.get_id().as_str()) || overridden || (preview && key == "robots") {
            continue;
        }
        keys.push(key.clone());
        for value in values {
            args.push(match arg.is_positional() {
                true => value.into(),
                // Joined to its flag, so a value that starts with `-` is not read as a flag.
                false => format!("--{key}={value}").into(),
            });
        }
    }
    Ok((args, keys))
}
