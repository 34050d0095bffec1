//! `--source-dates FILE` and `--sources FILE`: the date of each page's source, the first
//! date of a page the state does not know yet (every page, without --state), so that a page
//! new to sitemapgen is dated by its source's last change, not by the build.
//!
//! `--source-dates` gives the dates; `--sources` names each page's source file, dated by
//! its last commit (`git.rs`, which `--lastmod git` reads with), in the work tree holding
//! it (the nearest folder above it with a `.git`): one `git log` a work tree, stopped once
//! every source in it is dated. A source that is missing, outside any work tree or not in
//! its history gives no date; pages may share a source (a translation falling back to it).
//!
//! FILE holds a page a line: the page's file relative to DIR (`guide/index.html`), or its
//! URL under the base URL, then a tab, then a date (a W3C date, or an ISO date as git
//! prints it) or the source's path (relative to the current directory, or absolute); blank
//! lines and lines starting with `#` are skipped. A line that names no page of the site is
//! left unused (a draft has a source and no page). Anything else is a usage error naming the
//! file and line; a page given twice (in one file or across both) too.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fs;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use url::Url;

use super::added;
use super::lastmod::git::{GitDates, Tree};
use crate::error::UsageError;
use crate::io::input::{self, Capped, MAX_ADDED_URLS};
use crate::io::native;
use crate::report::{Report, Warning, shown_path};
use crate::url::BaseUrl;
use crate::w3c::w3c_form;

/// The dates of `--source-dates` and the sources of `--sources`, by page file and by URL
/// path.
#[derive(Default)]
pub struct SourceDates {
    by_file: HashMap<Vec<u8>, Given>,
    by_path: HashMap<String, Given>,
    /// Each source of --sources: the tree git reads its history in and its name there, or
    /// None where git cannot date it.
    sources: Vec<Option<(usize, Vec<u8>)>>,
    git: Option<GitDates>,
}

/// What a line gives a page.
enum Given {
    Date(String),
    /// The source at this index of `sources`.
    Source(usize),
}

/// The flags, in the order they are read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Flag {
    SourceDates,
    Sources,
}

impl Flag {
    fn name(self) -> &'static str {
        match self {
            Flag::SourceDates => "--source-dates",
            Flag::Sources => "--sources",
        }
    }
}

impl SourceDates {
    /// The dates `dates` gives, and the sources `sources` names, whose histories git starts
    /// reading; nothing without the flags.
    pub fn read(
        dates: Option<&Path>,
        sources: Option<&Path>,
        base: &BaseUrl,
        report: &mut Report,
    ) -> Result<SourceDates> {
        let mut read = SourceDates::default();
        let base_url = Url::parse(&base.join("")).context("the base URL")?;
        // Each page given, by where: its flag's file and line.
        let mut seen: HashMap<(bool, Vec<u8>), (Flag, usize)> = HashMap::new();
        let mut paths: Vec<PathBuf> = Vec::new();
        let mut numbers: HashMap<PathBuf, usize> = HashMap::new();
        for (flag, file) in [(Flag::SourceDates, dates), (Flag::Sources, sources)] {
            let Some(file) = file else {
                continue;
            };
            let usage = |message: String| -> anyhow::Error {
                UsageError(format!("{message} ({})", flag.name())).into()
            };
            let bytes = read_file(file, flag)?;
            for (n, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
                let at = format!("{}:{}", file.display(), n + 1);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                if line.trim_ascii().is_empty() || line.starts_with(b"#") {
                    continue;
                }
                let fields = line.split(|&byte| byte == b'\t').collect::<Vec<_>>();
                let [page, value] = fields[..] else {
                    return Err(usage(format!(
                        "{at}: not a page's file or URL, a tab and {}",
                        match flag {
                            Flag::SourceDates => "a date",
                            Flag::Sources => "a source file",
                        }
                    )));
                };
                let given = match flag {
                    Flag::SourceDates => Given::Date(date(&at, value).map_err(usage)?),
                    Flag::Sources => {
                        let Some(path) = native::os_str_checked(value)
                            .filter(|path| !path.is_empty())
                            .map(PathBuf::from)
                        else {
                            return Err(usage(format!("{at}: the source is not a file's path")));
                        };
                        let number = *numbers.entry(path.clone()).or_insert_with(|| {
                            paths.push(path);
                            paths.len() - 1
                        });
                        Given::Source(number)
                    }
                };
                let is_url = page.windows(3).any(|w| w == b"://");
                let key = if is_url {
                    let Ok(loc) = std::str::from_utf8(page) else {
                        return Err(usage(format!("{at}: the URL is not UTF-8")));
                    };
                    added::check(&at, loc, None, base, &base_url)?
                        .path
                        .into_bytes()
                } else {
                    let page = page.strip_prefix(b"./").unwrap_or(page);
                    if page.is_empty() || page.starts_with(b"/") {
                        return Err(usage(format!(
                            "{at}: a page's file is named by its path relative to DIR"
                        )));
                    }
                    page.to_vec()
                };
                if let Some((first, line)) = seen.insert((is_url, key.clone()), (flag, n + 1)) {
                    let page = String::from_utf8_lossy(page);
                    return Err(usage(match first == flag {
                        true => format!("{at}: {page} is given a date already on line {line}"),
                        false => format!(
                            "{at}: {page} is given a date already by {}, line {line}",
                            first.name()
                        ),
                    }));
                }
                match is_url {
                    true => read.by_path.insert(String::from_utf8(key)?, given),
                    false => read.by_file.insert(key, given),
                };
            }
        }
        if !paths.is_empty() {
            (read.sources, read.git) = histories(&paths, report)?;
        }
        Ok(read)
    }

    /// The date given for the page in file `rel` (relative to DIR) listed at one of the URL
    /// paths `paths` (under the base URL): its file's first, else its URLs', in order; and
    /// the flag that gave it. A source's waits for git.
    pub fn get(
        &mut self,
        rel: &Path,
        paths: [&str; 2],
        report: &mut Report,
    ) -> Result<Option<(&str, &'static str)>> {
        let SourceDates {
            by_file,
            by_path,
            sources,
            git,
        } = self;
        let given = by_file
            .get(OsStr::as_encoded_bytes(rel.as_os_str()))
            .or_else(|| paths.iter().find_map(|path| by_path.get(*path)));
        let (tree, name) = match given {
            None => return Ok(None),
            Some(Given::Date(date)) => return Ok(Some((date, Flag::SourceDates.name()))),
            Some(Given::Source(number)) => match &sources[*number] {
                None => return Ok(None),
                Some((tree, name)) => (*tree, name),
            },
        };
        wait(git, report)?;
        let Some(git) = git else {
            return Ok(None);
        };
        let date = git.date(tree, name)?;
        Ok(date.map(|date| (date, Flag::Sources.name())))
    }

    /// Waits until git has read the sources' histories.
    pub fn wait(&mut self, report: &mut Report) -> Result<()> {
        wait(&mut self.git, report)
    }
}

/// Waits for `git`: when it failed, warns and drops it, leaving the pages to be dated as if
/// they had no source. A repository git cannot read must not stop a generator's build.
fn wait(git: &mut Option<GitDates>, report: &mut Report) -> Result<()> {
    if let Some(dates) = git
        && let Err(e) = dates.wait()
    {
        *git = None;
        report.warn(
            Warning::Run,
            format_args!("cannot date the sources: {e:#}"),
            "their pages are dated as others are (--sources)",
        )?;
    }
    Ok(())
}

fn read_file(file: &Path, flag: Flag) -> Result<Vec<u8>> {
    let cannot = || format!("cannot read {} ({})", file.display(), flag.name());
    let Some(opened) = input::open(file).with_context(cannot)? else {
        bail!("there is no file {} ({})", file.display(), flag.name());
    };
    let mut bytes = Vec::new();
    Capped::new(BufReader::new(opened), MAX_ADDED_URLS)
        .read_to_end(&mut bytes)
        .with_context(cannot)?;
    Ok(bytes)
}

/// The date of a line of --source-dates, in a W3C form.
fn date(at: &str, date: &[u8]) -> Result<String, String> {
    let date = String::from_utf8_lossy(date);
    w3c_form(date.trim()).ok_or_else(|| {
        format!(
            "{at}: {date:?} is not a W3C date (2024-05-01) or datetime with seconds and zone \
             (2024-05-01T10:00:00+02:00)"
        )
    })
}

/// Where git dates each of `paths` (as `SourceDates::sources` holds them), and the reading
/// of their histories started, a `Tree` for each work tree: the folder of its sources
/// nearest its top. A work tree git cannot read is warned about, a shallow one noted.
type Histories = (Vec<Option<(usize, Vec<u8>)>>, Option<GitDates>);

fn histories(paths: &[PathBuf], report: &mut Report) -> Result<Histories> {
    let mut tops: Vec<PathBuf> = Vec::new();
    let mut found = HashMap::new();
    // Each source's real path and its work tree's top.
    let located = paths
        .iter()
        .map(|path| {
            let Ok(real) = native::real_path(path) else {
                report.detail(format_args!(
                    "{}: no such source, its pages are dated as others are (--sources)",
                    shown_path(path)
                ));
                return None;
            };
            let top = (real.parent()).and_then(|dir| work_tree(dir, &mut found, &mut tops));
            if top.is_none() {
                report.detail(format_args!(
                    "{}: not in a git work tree, its pages are dated as others are (--sources)",
                    shown_path(path)
                ));
            }
            Some((top?, real))
        })
        .collect::<Vec<_>>();
    let mut sources = vec![None; paths.len()];
    let mut trees = Vec::new();
    for (at, top) in tops.iter().enumerate() {
        let members = (located.iter().enumerate())
            .filter_map(|(number, located)| match located {
                Some((tree, real)) if *tree == at => Some((number, real)),
                _ => None,
            })
            .collect::<Vec<_>>();
        // The folder holding them all, where git reads the history of fewer files.
        let mut dir = top.clone();
        if let Some((_, first)) = members.first()
            && let Some(parent) = first.parent()
        {
            dir = parent.to_path_buf();
            for (_, real) in &members {
                while !real.starts_with(&dir) && dir.pop() {}
            }
        }
        let tree = match Tree::open(&dir) {
            Ok(tree) => tree,
            Err(e) => {
                report.warn(
                    Warning::Run,
                    format_args!("cannot read the git history of {}: {e:#}", shown_path(top)),
                    "its sources are not dated by it (--sources)",
                )?;
                continue;
            }
        };
        if tree.shallow {
            report.note(format_args!(
                "{} is a shallow clone: a source whose last commit is older than its history \
                 is not dated by git (fetch the full history: git fetch --unshallow)",
                shown_path(top)
            ));
        }
        let mut wanted = HashSet::new();
        for (number, real) in members {
            let Ok(rel) = real.strip_prefix(&dir) else {
                continue;
            };
            let name = rel
                .iter()
                .map(OsStr::as_encoded_bytes)
                .collect::<Vec<_>>()
                .join(&b'/');
            sources[number] = Some((trees.len(), name.clone()));
            wanted.insert(name);
        }
        trees.push(tree.only(wanted));
    }
    let git = match trees.is_empty() {
        true => None,
        false => Some(GitDates::start(trees)?),
    };
    Ok((sources, git))
}

/// The index in `tops` of the top of the work tree holding `dir`, the nearest folder at or
/// above it with a `.git` (a folder, or a file in a linked work tree or a submodule): added
/// to `tops` when it is new. `found` keeps the answer for each folder looked at.
fn work_tree(
    dir: &Path,
    found: &mut HashMap<PathBuf, Option<usize>>,
    tops: &mut Vec<PathBuf>,
) -> Option<usize> {
    let mut walked = Vec::new();
    let mut top = None;
    for folder in dir.ancestors() {
        if let Some(&known) = found.get(folder) {
            top = known;
            break;
        }
        walked.push(folder.to_path_buf());
        if fs::symlink_metadata(folder.join(".git")).is_ok() {
            tops.push(folder.to_path_buf());
            top = Some(tops.len() - 1);
            break;
        }
    }
    for folder in walked {
        found.insert(folder, top);
    }
    top
}
