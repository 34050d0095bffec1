//! The validated settings of one run. Every usage error is found here, before any work.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::cli::Cli;
use crate::lastmod::LastmodMode;
use crate::output::{Destination, Files};
use crate::report::Verbosity;
use crate::rules::{RuleSpec, Rules};
use crate::state::DigestRules;
use crate::url::{BaseUrl, Mapping, encode_path};

/// An error in what the user asked for that shows only once the run is under way (a split
/// the output cannot hold, DIR outside git for `--lastmod git`): exit 2 all the same.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

#[derive(Debug)]
pub struct Config {
    pub root: PathBuf,
    pub base: BaseUrl,
    pub destination: Destination,
    /// The encoded URL path of the output's directory relative to the base URL (`""` or
    /// `"sub/"`), when the output lies inside DIR: what shards' URLs are made of.
    pub output_url_dir: Option<String>,
    pub gzip: bool,
    /// --format txt: a URL per line.
    pub text: bool,
    /// --check: compare with the files on disk, write nothing.
    pub check: bool,
    /// --robots: name the sitemap in DIR/robots.txt.
    pub robots: bool,
    pub max_urls: usize,
    pub rules: Rules,
    pub mapping: Mapping,
    pub lastmod: LastmodMode,
    /// SOURCE_DATE_EPOCH, which clamps later mtimes.
    pub source_date_epoch: Option<i64>,
    pub state: Option<PathBuf>,
    /// --digest-ignore, for --state.
    pub digest: DigestRules,
    /// --max-churn, a percentage.
    pub max_churn: Option<f64>,
    pub source: Source,
    /// Read HTML pages' heads (noindex, redirects, canonical, hreflang).
    pub read_html: bool,
    pub verbosity: Verbosity,
    pub strict: bool,
}

/// Where the candidate files come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Walk { follow: bool },
    List { from: ListFrom, separator: u8 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListFrom {
    Stdin,
    File(PathBuf),
}

impl Config {
    pub fn from_cli(cli: Cli) -> Result<Self> {
        let hint = "(on the command line, or in sitemapgen.toml)";
        let Some(base_url) = &cli.base_url else {
            bail!("--base-url is required {hint}");
        };
        let Some(dir) = cli.dir.clone() else {
            bail!("DIR is required {hint}");
        };
        let base = BaseUrl::parse(base_url)?;
        let lastmod = LastmodMode::parse(&cli.lastmod)?;
        if lastmod == LastmodMode::Omit && cli.state.is_some() {
            bail!("--state keeps dates, and --lastmod none writes none: drop one of them");
        }
        let source_date_epoch = match std::env::var("SOURCE_DATE_EPOCH") {
            Ok(text) if !text.is_empty() => Some(text.parse::<i64>().map_err(|_| {
                anyhow::anyhow!("SOURCE_DATE_EPOCH {text:?} is not a number of seconds")
            })?),
            _ => None,
        };
        if let Some(percent) = cli.max_churn
            && !(0.0..=100.0).contains(&percent)
        {
            bail!("--max-churn {percent} is not a percentage from 0 to 100");
        }
        let digest = DigestRules::new(&cli.digest_ignore)?;
        match fs::metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => bail!("DIR {} is not a directory", dir.display()),
            Err(err) => bail!("DIR {}: {err}", dir.display()),
        }
        let text = match cli.format.as_str() {
            "xml" => false,
            "txt" => true,
            other => bail!("--format {other:?} is not xml or txt"),
        };
        let default_name = format!(
            "sitemap.{}{}",
            if text { "txt" } else { "xml" },
            if cli.gzip { ".gz" } else { "" }
        );
        let destination = match cli.output {
            Some(path) if path.as_os_str() == "-" => Destination::Stdout,
            Some(path) => Destination::File(Files::new(output_file(path)?, text, cli.gzip)),
            None => Destination::File(Files::new(
                output_file(dir.join(default_name))?,
                text,
                cli.gzip,
            )),
        };
        let own_output = match &destination {
            Destination::File(files) => path_inside(&dir, files.dir()).map(|dir| (dir, files)),
            Destination::Stdout => None,
        };
        let output_url_dir = own_output.as_ref().map(|(dir, _)| {
            let path = encode_path(dir);
            if path.is_empty() { path } else { path + "/" }
        });
        if cli.check && destination == Destination::Stdout {
            bail!("--check compares with the files on disk, and -o - names none");
        }
        if cli.robots && output_url_dir.is_none() {
            bail!("--robots needs the output inside DIR, where it has a public URL");
        }
        let rules = Rules::new(&RuleSpec {
            includes: &cli.include,
            excludes: &cli.exclude,
            default_excludes: !cli.no_default_excludes,
            hidden: cli.hidden,
            changefreq: &cli.changefreq,
            priority: &cli.priority,
            own_output: own_output
                .as_ref()
                .map(|(dir, files)| (dir.as_path(), *files)),
        })?;
        let source = match cli.files_from {
            None => Source::Walk { follow: cli.follow },
            Some(from) => Source::List {
                from: list_from(from),
                separator: if cli.null { b'\0' } else { b'\n' },
            },
        };
        let verbosity = match (cli.quiet, cli.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        };
        Ok(Config {
            root: dir,
            base,
            destination,
            output_url_dir,
            gzip: cli.gzip,
            text,
            check: cli.check,
            robots: cli.robots,
            max_urls: cli.max_urls as usize,
            rules,
            mapping: Mapping {
                clean_urls: cli.clean_urls,
                trailing_slash: !cli.no_trailing_slash,
            },
            lastmod,
            source_date_epoch,
            state: cli.state,
            digest,
            max_churn: cli.max_churn,
            source,
            read_html: !cli.no_html,
            verbosity,
            strict: cli.strict,
        })
    }
}

fn list_from(arg: OsString) -> ListFrom {
    if arg == "-" {
        ListFrom::Stdin
    } else {
        ListFrom::File(arg.into())
    }
}

/// The file the output replaces by a rename: a symlink's target (the link stays), never a
/// device, pipe or directory.
fn output_file(path: PathBuf) -> Result<PathBuf> {
    let not_regular = || format!("-o {} is not a regular file", path.display());
    match fs::symlink_metadata(&path) {
        Err(_) => Ok(path),
        Ok(meta) if meta.is_file() => Ok(path),
        Ok(meta) if meta.is_symlink() => match fs::canonicalize(&path) {
            Ok(target) if target.is_file() => Ok(target),
            Ok(_) => bail!(not_regular()),
            Err(err) => bail!(
                "-o {} is a symlink that cannot be followed: {err}",
                path.display()
            ),
        },
        Ok(_) => bail!(not_regular()),
    }
}

/// `path`'s location relative to `dir` when it lies inside it (or is it).
fn path_inside(dir: &Path, path: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    Some(
        path.canonicalize()
            .ok()?
            .strip_prefix(&dir)
            .ok()?
            .to_path_buf(),
    )
}
