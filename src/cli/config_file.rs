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
    "google-submit",
    "explain",
    "help",
    "version",
];

/// Pairs where giving one on the command line silences the other in the file.
const OVERRIDES: &[(&str, &str)] = &[("quiet", "verbose"), ("verbose", "quiet")];

/// The keys a config file gave (those the command line left open), to name the one at fault
/// when the settings built from them are refused.
pub struct Given {
    path: PathBuf,
    keys: Vec<String>,
}

impl Given {
    /// `err` with the file and the first of its keys whose flag (`--state`, `-o`, DIR) the
    /// message names, if any.
    pub fn blame(&self, err: anyhow::Error) -> anyhow::Error {
        // A setting missing (`settings::missing`) is in no key of the file.
        if err.is::<clap::Error>() {
            return err;
        }
        let message = format!("{err:#}");
        let names = |flag: &str| {
            message.match_indices(flag).any(|(at, _)| {
                let next = message[at + flag.len()..].chars().next();
                !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            })
        };
        let key = self.keys.iter().find(|key| match key.as_str() {
            "dir" => names("DIR"),
            "output" => names("-o") || names("--output"),
            key => names(&format!("--{key}")),
        });
        let Some(key) = key else {
            return err;
        };
        let path = self.path.display();
        match hint_for_file(&message, &self.path) {
            Some(message) => anyhow!("config file {path}: key {key:?}: {message}"),
            None => err.context(format!("config file {path}: key {key:?}")),
        }
    }
}

/// The command line with the config file's settings added under it, checked as a whole
/// against the rules of how flags combine, and the keys the file gave. The flags `off`
/// (`--robots=false`) keep the file's setting out, as any flag given does.
pub fn merge(matches: &ArgMatches, cli: Cli, off: &[clap::Id]) -> Result<(Cli, Option<Given>)> {
    let file = match (&cli.config, cli.no_config) {
        (_, true) => None,
        (Some(path), _) => read(path, true)?,
        (None, false) => read(Path::new(DEFAULT_FILE), false)?,
    };
    let (mut argv, mut dir) = given(matches);
    let mut keys = Vec::new();
    if let Some((path, table)) = &file {
        let from_file = arguments(table, matches, off, path)?;
        argv.extend(from_file.args);
        dir = dir.or(from_file.dir);
        keys = from_file.keys;
    }
    argv.extend(dir.map(|dir| ["--".into(), dir]).into_iter().flatten());
    let path = file.as_ref().map(|(path, _)| path.as_path());
    // Parsed first without the rules: an error now is in a value the file gave.
    let loose = args::command()
        .try_get_matches_from(&argv)
        .map_err(|err| blame(err, &keys, path))?;
    let run = !cli.indexnow_submit;
    if let Err(err) = args::command_with_rules(run).try_get_matches_from(&argv) {
        let Some(broken) = args::broken_rule(&loose, run) else {
            return Err(err.into());
        };
        let key = broken.flags.iter().find_map(|flag| {
            let command = args::command();
            let arg = command.get_arguments().find(|arg| arg.get_id() == flag)?;
            keys.iter().find(|key| arg.get_long() == Some(key.as_str()))
        });
        return Err(match (key, path) {
            (Some(key), Some(path)) => {
                let command = args::command();
                let needed: Vec<String> = broken
                    .needs
                    .iter()
                    .filter_map(|id| command.get_arguments().find(|arg| arg.get_id() == id))
                    .map(|arg| setting_line(arg, None))
                    .collect();
                let hint = match needed.is_empty() {
                    true => String::new(),
                    false => format!("\nhint: add {} to {}", needed.join(" or "), path.display()),
                };
                anyhow!(
                    "config file {}: key {key:?}: {}{hint}",
                    path.display(),
                    broken.message
                )
            }
            _ => anyhow!("{}", broken.message),
        });
    }
    let given = file.map(|(path, _)| Given { path, keys });
    Ok((Cli::from_arg_matches(&loose)?, given))
}

/// The config file at `path` as a table; a missing file is none, unless it was `named`.
fn read(path: &Path, named: bool) -> Result<Option<(PathBuf, toml::Table)>> {
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == io::ErrorKind::NotFound && !named => return Ok(None),
        Err(err) => bail!("cannot read config file {}: {err}", path.display()),
    };
    let table = text
        .parse()
        .with_context(|| format!("config file {} is not valid TOML", path.display()))?;
    Ok(Some((path.to_path_buf(), table)))
}

/// The command line as it was given, each option as `--long=value`, and DIR apart (to go
/// last, after `--`). A flag given as false is not there (`args::flag_values`): absent to
/// the rules, as it is to the run.
fn given(matches: &ArgMatches) -> (Vec<OsString>, Option<OsString>) {
    let mut argv = vec![OsString::from("sitemapgen")];
    let mut dir = None;
    for arg in args::command().get_arguments() {
        let id = arg.get_id().as_str();
        if matches.value_source(id) != Some(ValueSource::CommandLine) {
            continue;
        }
        let Some(long) = arg.get_long() else {
            dir = matches
                .get_raw(id)
                .and_then(|mut values| values.next())
                .map(OsString::from);
            continue;
        };
        // A flag given is true: `args::flag_values` drops a false one.
        if matches.try_get_one::<bool>(id).is_ok() {
            argv.push(format!("--{long}").into());
            continue;
        }
        for value in matches.get_raw(id).into_iter().flatten() {
            let mut option = OsString::from(format!("--{long}="));
            option.push(value);
            argv.push(option);
        }
    }
    (argv, dir)
}

/// A value of the file that the command refused, named by its key and the file.
fn blame(err: clap::Error, keys: &[String], path: Option<&Path>) -> anyhow::Error {
    let Some(path) = path else {
        return err.into();
    };
    let arg = match err.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) => arg.clone(),
        _ => String::new(),
    };
    let key = keys.iter().find(|key| {
        arg.strip_prefix("--")
            .and_then(|rest| rest.strip_prefix(key.as_str()))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '=']))
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
    let message = hint_for_file(&message, path).unwrap_or(message);
    match key {
        Some(key) => anyhow!("config file {}: key {key:?}: {message}", path.display()),
        None => anyhow!("config file {}: {message}", path.display()),
    }
}

/// `message` with the flags its hint names (`-b URL`, `add --gzip`) made the lines to write
/// in the config file at `path` (`base-url = "URL"`, `gzip = true`), where a setting at fault
/// is fixed; `None` when its hint names no flag.
fn hint_for_file(message: &str, path: &Path) -> Option<String> {
    let (text, hint) = message.split_once("\nhint: ")?;
    let command = args::command();
    let flag = |word: &str| {
        command.get_arguments().find(|arg| {
            let long = arg
                .get_long()
                .filter(|long| !COMMAND_LINE_ONLY.contains(long));
            long.is_some_and(|long| word.strip_prefix("--") == Some(long))
                || long.is_some()
                    && arg
                        .get_short()
                        .is_some_and(|short| word == format!("-{short}"))
        })
    };
    let (mut words, mut lines) = (hint.split(' '), Vec::new());
    let mut named = false;
    while let Some(word) = words.next() {
        match flag(word) {
            Some(arg) => {
                named = true;
                let value = match arg.get_action() {
                    ArgAction::SetTrue => None,
                    _ => words.next(),
                };
                lines.push(setting_line(arg, value));
            }
            None => lines.push(word.to_string()),
        }
    }
    named.then(|| format!("{text}\nhint: {} (in {})", lines.join(" "), path.display()))
}

/// The config file's line for `arg` set to `value` (its value name when none is given): `gzip
/// = true`, `base-url = "URL"`, `max-urls = N`, `exclude = ["GLOB"]`.
fn setting_line(arg: &clap::Arg, value: Option<&str>) -> String {
    let key = arg.get_long().unwrap_or_default();
    let named = arg.get_value_names().and_then(|names| names.first());
    let value = value
        .or(named.map(|name| name.as_str()))
        .unwrap_or_default();
    let value = match arg.get_action() {
        ArgAction::SetTrue => Value::Boolean(true),
        _ if takes_number(arg) => match value.parse() {
            Ok(number) => Value::Integer(number),
            Err(_) => Value::String(value.to_string()),
        },
        ArgAction::Append => Value::Array(vec![Value::String(value.to_string())]),
        _ => Value::String(value.to_string()),
    };
    format!("{key} = {value}")
}

/// Whether `arg` takes a number (`max-urls = 100`, `max-churn = 2.5`): its value is named
/// as one.
fn takes_number(arg: &clap::Arg) -> bool {
    arg.get_value_names().is_some_and(
        |names| matches!(names, [name] if ["N", "SECONDS", "PERCENT"].contains(&name.as_str())),
    )
}

/// The file's settings for the keys the command line leaves open.
struct FromFile {
    /// Each as `--key=value`, a flag only when true (as `given` writes the command line).
    args: Vec<OsString>,
    dir: Option<OsString>,
    keys: Vec<String>,
}

/// The key meant by an unknown `key`, as clap suggests a flag: the flag's name written in
/// snake_case (`base_url`, TOML's usual style), or a key a typo away (`exlude`).
fn suggested_key(command: &clap::Command, key: &str) -> Option<String> {
    let keys = command
        .get_arguments()
        .filter_map(|arg| arg.get_long())
        .filter(|long| !COMMAND_LINE_ONLY.contains(long))
        .chain(["dir"]);
    let kebab = key.replace('_', "-");
    keys.map(|known| (strsim::jaro(&kebab, known), known))
        // clap's threshold for its own suggestions.
        .filter(|(similarity, _)| *similarity > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, known)| known.to_string())
}

fn arguments(
    table: &toml::Table,
    matches: &ArgMatches,
    off: &[clap::Id],
    path: &Path,
) -> Result<FromFile> {
    let command = args::command();
    let (mut args, mut dir, mut keys) = (Vec::new(), None, Vec::new());
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
            let hint = match suggested_key(&command, key) {
                Some(known) => format!("; did you mean {known:?}? (the keys are the flags' names)"),
                None => String::new(),
            };
            bail!("config file {}: unknown key {key:?}{hint}", path.display());
        };
        // The value's type is checked even where the command line gives the setting: a
        // mistake in the file shows on the first run, not the first without that flag.
        let is_flag = matches!(arg.get_action(), ArgAction::SetTrue);
        let values = match arg.get_action() {
            ArgAction::SetTrue => {
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
        let turned_off = off.contains(arg.get_id());
        if given(arg.get_id().as_str()) || turned_off || overridden || (preview && key == "robots")
        {
            continue;
        }
        keys.push(key.clone());
        for value in values {
            match value.as_str() {
                _ if arg.is_positional() => dir = Some(value.into()),
                "true" if is_flag => args.push(format!("--{key}").into()),
                _ if is_flag => {}
                // Joined to its flag, so a value that starts with `-` is not read as a flag.
                _ => args.push(format!("--{key}={value}").into()),
            }
        }
    }
    Ok(FromFile { args, dir, keys })
}
