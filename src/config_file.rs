//! `sitemapgen.toml`: settings for a project's runs, merged under the command line.
//!
//! Keys are the long options without dashes (`base-url`, `include`, …) plus `dir`. A flag
//! takes a boolean, a repeatable option an array of strings, any other option a string (or a
//! number where it takes one). A key the command line also gives is ignored: flags win.

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use clap::parser::ValueSource;
use clap::{ArgAction, ArgMatches, CommandFactory, FromArgMatches};
use toml::Value;

use crate::cli::Cli;

pub const DEFAULT_FILE: &str = "sitemapgen.toml";

/// Options that only make sense on the command line.
const COMMAND_LINE_ONLY: &[&str] = &["config", "no-config", "completions", "help", "version"];

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
    merged.extend(arguments(&table, matches, &path)?);
    let matches = Cli::command().try_get_matches_from(merged)?;
    Ok(Cli::from_arg_matches(&matches)?)
}

/// The file's settings as command-line arguments, for the keys the command line leaves open.
fn arguments(table: &toml::Table, matches: &ArgMatches, path: &Path) -> Result<Vec<OsString>> {
    let command = Cli::command();
    let mut args = Vec::new();
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
        let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        let overridden = OVERRIDES
            .iter()
            .any(|(flag, other)| *other == key && given(&flag.replace('-', "_")));
        if given(arg.get_id().as_str()) || overridden {
            continue;
        }
        let flag = OsString::from(format!("--{key}"));
        match arg.get_action() {
            ArgAction::SetTrue => {
                if value.as_bool().ok_or_else(|| wrong("true or false"))? {
                    args.push(flag);
                }
            }
            ArgAction::Append => {
                let items = value
                    .as_array()
                    .ok_or_else(|| wrong("an array of strings"))?;
                for item in items {
                    let item = item.as_str().ok_or_else(|| wrong("an array of strings"))?;
                    args.extend([flag.clone(), item.into()]);
                }
            }
            _ => {
                let text = match value {
                    Value::String(text) => text.clone(),
                    Value::Integer(n) => n.to_string(),
                    Value::Float(n) => n.to_string(),
                    _ => return Err(wrong("a string")),
                };
                if arg.is_positional() {
                    args.push(text.into());
                } else {
                    args.extend([flag, text.into()]);
                }
            }
        }
    }
    Ok(args)
}
