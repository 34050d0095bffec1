//! The candidate files: a walk of DIR or a given list, both in the same order, filtered by the
//! rules into pages. The order is depth first, each directory's names ordered by `sort_key`.
//!
//! The finding runs ahead of the caller's work on each page, in two threads of its own: one
//! reads directories and applies the rules, the next stats the pages (mostly kernel time).
//! What they find is handed on in batches, in order.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Read};
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use anyhow::{Context, Result, anyhow, bail};
use globset::Candidate;
use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use walkdir::WalkDir;

use crate::config::{Config, ListFrom, Source};
use crate::report::{Report, Verbosity};
use crate::rules::{Skip, split_name};
use crate::state::Stamp;

/// A file that the rules made a page.
pub struct Page<'a> {
    /// Relative to DIR, made only of normal components.
    pub rel: &'a Path,
    /// To open it: DIR joined with `rel`.
    pub path: &'a Path,
    pub candidate: &'a Candidate<'a>,
    /// Modification time in seconds since the epoch (of the target, for a symlink).
    pub mtime: i64,
    /// What the stat said, for `--state` to tell an unchanged file.
    pub stamp: Stamp,
}

/// Calls `on_page` for every page, in order.
pub fn visit(
    config: &Config,
    report: &mut Report,
    mut on_page: impl FnMut(&Page, &mut Report) -> Result<()>,
) -> Result<()> {
    thread::scope(|scope| {
        let (sender, unstatted) = sync_channel(BATCHES_AHEAD);
        let (statted, receiver) = sync_channel(BATCHES_AHEAD);
        let verbose = config.verbosity == Verbosity::Verbose;
        let stat_stage = scope.spawn(move || stat_pages(unstatted, statted, verbose));
        let finder = scope.spawn(move || {
            let mut finder = Finder {
                config,
                verbose,
                batch: Vec::with_capacity(BATCH),
                sender,
            };
            let found = match &config.source {
                Source::Walk { follow } => finder.walk(*follow),
                Source::List { from, separator } => finder.list(from, *separator),
            };
            found.and_then(|()| finder.flush())
        });
        // The receiver goes with `consume`: a failed consumer stops the finder at its next send.
        let consumed = consume(receiver, report, &mut on_page);
        let found = finder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        stat_stage
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        consumed.and(found)
    })
}

const BATCH: usize = 512;
const BATCHES_AHEAD: usize = 8;

/// What the finder found, in order.
enum Found {
    /// A file the rules made a page, for the stat stage to turn into a `Page` or not.
    Unstatted {
        rel: PathBuf,
        path: PathBuf,
    },
    Page {
        rel: PathBuf,
        path: PathBuf,
        mtime: i64,
        stamp: Stamp,
    },
    /// A file that is not a page; named (with the reason) only when -v will print it.
    Excluded(Option<(PathBuf, String)>),
    /// A directory or file passed over uncounted; sent only for -v.
    Skipped(PathBuf, String),
    Warning(String, &'static str),
    /// A failure, in its place in the order.
    Failed(anyhow::Error),
}

fn excluded(verbose: bool, rel: &Path, why: impl std::fmt::Display) -> Found {
    Found::Excluded(verbose.then(|| (rel.to_path_buf(), why.to_string())))
}

/// The stat stage: every page's metadata, through a descriptor of its directory.
fn stat_pages(receiver: Receiver<Vec<Found>>, sender: SyncSender<Vec<Found>>, verbose: bool) {
    let mut stats = Stats::default();
    for batch in receiver {
        let mut out = Vec::with_capacity(batch.len() + 8);
        for found in batch {
            match found {
                Found::Unstatted { rel, path } => {
                    stat_page(&mut stats, rel, path, verbose, &mut out)
                }
                other => out.push(other),
            }
        }
        // A closed channel means the consumer failed; its error is the one to report.
        if sender.send(out).is_err() {
            return;
        }
    }
}

fn stat_page(stats: &mut Stats, rel: PathBuf, path: PathBuf, verbose: bool, out: &mut Vec<Found>) {
    let meta = match stats.stat(&path) {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            out.push(excluded(verbose, &rel, "gone"));
            let what = match fs::symlink_metadata(&path) {
                Ok(_) => "is a dangling symlink",
                Err(_) => "vanished while the site was being read",
            };
            out.push(Found::Warning(
                format!("{} {what}", rel.display()),
                "not listed",
            ));
            return;
        }
        Err(err) if err.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            out.push(excluded(verbose, &rel, "a symlink loop"));
            out.push(Found::Warning(
                format!("{} is a symlink loop", rel.display()),
                "not listed",
            ));
            return;
        }
        Err(err) => {
            let context = format!("cannot read {}", path.display());
            out.push(Found::Failed(anyhow::Error::from(err).context(context)));
            return;
        }
    };
    if FileType::from_raw_mode(meta.st_mode) != FileType::RegularFile {
        out.push(excluded(verbose, &rel, "not a regular file"));
        return;
    }
    let nanos = |seconds: i64, nanoseconds: u64| {
        i128::from(seconds) * 1_000_000_000 + i128::from(nanoseconds)
    };
    out.push(Found::Page {
        rel,
        path,
        mtime: meta.st_mtime,
        stamp: Stamp {
            size: meta.st_size as u64,
            mtime: nanos(meta.st_mtime, meta.st_mtime_nsec as u64),
            ctime: nanos(meta.st_ctime, meta.st_ctime_nsec as u64),
            inode: meta.st_ino,
        },
    });
}

fn consume(
    receiver: Receiver<Vec<Found>>,
    report: &mut Report,
    on_page: &mut impl FnMut(&Page, &mut Report) -> Result<()>,
) -> Result<()> {
    for batch in receiver {
        for found in batch {
            match found {
                Found::Page {
                    rel,
                    path,
                    mtime,
                    stamp,
                } => {
                    let candidate = Candidate::new(&rel);
                    let page = Page {
                        rel: &rel,
                        path: &path,
                        candidate: &candidate,
                        mtime,
                        stamp,
                    };
                    on_page(&page, report)?;
                }
                Found::Excluded(Some((rel, why))) => report.excluded(&rel, why),
                Found::Excluded(None) => report.excluded_unnamed(),
                Found::Skipped(rel, why) => report.skipped(&rel, why),
                Found::Warning(problem, consequence) => report.warn(problem, consequence)?,
                Found::Failed(err) => return Err(err),
                Found::Unstatted { .. } => unreachable!("the stat stage handles these"),
            }
        }
    }
    Ok(())
}

/// The finding side: walks or reads the list, applies the rules, stats the pages.
struct Finder<'c> {
    config: &'c Config,
    verbose: bool,
    batch: Vec<Found>,
    sender: SyncSender<Vec<Found>>,
}

impl Finder<'_> {
    fn send(&mut self, found: Found) -> Result<()> {
        self.batch.push(found);
        if self.batch.len() == BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        // A closed channel means the consumer failed; its error is the one to report.
        self.sender
            .send(batch)
            .map_err(|_| anyhow!("the walk was stopped"))
    }

    fn excluded(&mut self, rel: &Path, why: impl std::fmt::Display) -> Result<()> {
        self.send(excluded(self.verbose, rel, why))
    }

    fn skipped(&mut self, rel: &Path, why: impl std::fmt::Display) -> Result<()> {
        if self.verbose {
            self.send(Found::Skipped(rel.to_path_buf(), why.to_string()))?;
        }
        Ok(())
    }

    fn warn(&mut self, problem: String, consequence: &'static str) -> Result<()> {
        self.send(Found::Warning(problem, consequence))
    }

    fn walk(&mut self, follow: bool) -> Result<()> {
        let root = &self.config.root;
        let mut entries = WalkDir::new(root)
            .follow_links(follow)
            .sort_by(|a, b| sort_key(a.file_name()).cmp(&sort_key(b.file_name())))
            .min_depth(1)
            .into_iter();
        while let Some(next) = entries.next() {
            let entry = match next {
                Ok(entry) => entry,
                Err(err) => {
                    self.walk_error(err)?;
                    continue;
                }
            };
            let rel = relative(root, entry.path());
            if entry.file_type().is_dir() {
                if let Some(why) = self.config.rules.skip_dir(rel) {
                    self.skipped(rel, why)?;
                    entries.skip_current_dir();
                }
                continue;
            }
            if entry.path_is_symlink() && is_dir_symlink(entry.path()) {
                self.skipped(rel, DIR_SYMLINK)?;
                continue;
            }
            self.consider_file(rel, entry.path())?;
        }
        Ok(())
    }

    /// A symlink loop or a dangling symlink costs one entry (a warning); anything else the
    /// walk cannot read is an error: a silently missing subtree is worse than no new sitemap.
    fn walk_error(&mut self, err: walkdir::Error) -> Result<()> {
        let root = &self.config.root;
        let path = err.path().unwrap_or(root).to_path_buf();
        if let Some(ancestor) = err.loop_ancestor() {
            let problem = format!(
                "symlink loop: {} leads back to {}",
                path.display(),
                ancestor.display()
            );
            return self.warn(problem, "not followed");
        }
        // Past PATH_MAX no URL can be short enough either: the subtree is passed over.
        if err.io_error().and_then(io::Error::raw_os_error)
            == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error())
        {
            let problem = format!(
                "{}: the path is too long to read (and its URLs would be)",
                path.display()
            );
            return self.warn(problem, "not listed");
        }
        let is_symlink = fs::symlink_metadata(&path).is_ok_and(|meta| meta.is_symlink());
        let dangling = err.io_error().map(io::Error::kind) == Some(io::ErrorKind::NotFound);
        if is_symlink && dangling {
            // Under -L the walk stats link targets itself; judge the link like any other file.
            return self.consider_file(relative(root, &path), &path);
        }
        let source = err
            .into_io_error()
            .map_or_else(|| anyhow!("cannot be walked"), anyhow::Error::from);
        Err(source.context(format!("cannot read {}", path.display())))
    }

    fn consider_file(&mut self, rel: &Path, path: &Path) -> Result<()> {
        let candidate = Candidate::new(rel);
        match self.config.rules.skip_file(rel, &candidate) {
            None => {}
            Some(Skip::OwnOutput) => return self.skipped(rel, Skip::OwnOutput),
            Some(why) => return self.excluded(rel, why),
        }
        self.send(Found::Unstatted {
            rel: rel.to_path_buf(),
            path: path.to_path_buf(),
        })
    }

    fn list(&mut self, from: &ListFrom, separator: u8) -> Result<()> {
        let data = match from {
            ListFrom::Stdin => {
                let mut data = Vec::new();
                io::stdin()
                    .read_to_end(&mut data)
                    .context("cannot read the file list from standard input")?;
                data
            }
            ListFrom::File(path) => fs::read(path)
                .with_context(|| format!("cannot read the file list {}", path.display()))?,
        };
        let root = &self.config.root;
        let roots = [root.canonicalize()?, std::path::absolute(root)?];
        let mut rels = data
            .split(|&byte| byte == separator)
            // A list written on Windows ends its lines in CRLF.
            .map(|item| match separator {
                b'\n' => item.strip_suffix(b"\r").unwrap_or(item),
                _ => item,
            })
            .filter(|item| !item.is_empty())
            .map(|item| inside_root(Path::new(OsStr::from_bytes(item)), &roots))
            .collect::<Result<Vec<_>>>()?;
        // DIR itself (`find .` lists `.`) is a directory, not a page.
        rels.retain(|rel| !rel.as_os_str().is_empty());
        rels.sort_by(|a, b| a.iter().map(sort_key).cmp(b.iter().map(sort_key)));
        rels.dedup();

        let mut dir_skip: Option<(PathBuf, Option<String>)> = None;
        for rel in &rels {
            let path = root.join(rel);
            let meta = match fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(err) => bail!("listed file {} cannot be read: {err}", path.display()),
            };
            let dir = rel.parent().unwrap_or(Path::new(""));
            if dir_skip.as_ref().is_none_or(|(cached, _)| cached != dir) {
                dir_skip = Some((dir.to_path_buf(), skipped_ancestor(self.config, dir)));
            }
            if let Some((_, Some(why))) = &dir_skip {
                let why = why.clone();
                self.excluded(rel, why)?;
                continue;
            }
            if meta.is_dir() {
                self.skipped(rel, "a directory")?;
                continue;
            }
            if meta.is_symlink() && is_dir_symlink(&path) {
                self.skipped(rel, DIR_SYMLINK)?;
                continue;
            }
            self.consider_file(rel, &path)?;
        }
        Ok(())
    }
}

const DIR_SYMLINK: &str = "a symlink to a directory (use -L to enter it)";

fn is_dir_symlink(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// Stats files (following symlinks) through a descriptor of their directory, as find does:
/// one short lookup per file instead of a lookup of every component of its path.
#[derive(Default)]
struct Stats {
    dir: Option<(PathBuf, OwnedFd)>,
}

impl Stats {
    fn stat(&mut self, path: &Path) -> io::Result<rustix::fs::Stat> {
        let (dir, name) = split_name(path);
        let dir = match dir {
            b"" if path.has_root() => b"/".as_slice(),
            b"" => b".",
            dir => dir,
        };
        if self
            .dir
            .as_ref()
            .is_none_or(|(cached, _)| cached.as_os_str().as_bytes() != dir)
        {
            let dir = Path::new(OsStr::from_bytes(dir));
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            self.dir = Some((
                dir.to_path_buf(),
                rustix::fs::open(dir, flags, Mode::empty())?,
            ));
        }
        let name = OsStr::from_bytes(name);
        let (_, fd) = self.dir.as_ref().expect("opened above");
        Ok(rustix::fs::statat(fd, name, AtFlags::empty())?)
    }
}

/// Orders the names of one directory: index.html, index.htm, then the rest byte-wise. So a
/// section's URL precedes its pages, and index.html wins when both index files exist.
fn sort_key(name: &OsStr) -> (u8, &[u8]) {
    let name = name.as_bytes();
    let rank = match name {
        b"index.html" => 0,
        b"index.htm" => 1,
        _ => 2,
    };
    (rank, name)
}

/// `path` relative to `root`: the walk's paths are `root` joined with names.
fn relative<'a>(root: &Path, path: &'a Path) -> &'a Path {
    let rest = &path.as_os_str().as_bytes()[root.as_os_str().len()..];
    Path::new(OsStr::from_bytes(rest.strip_prefix(b"/").unwrap_or(rest)))
}

/// Why the walk would not have entered a directory above a listed file, if it would not.
fn skipped_ancestor(config: &Config, dir: &Path) -> Option<String> {
    let mut ancestor = PathBuf::new();
    for component in dir.components() {
        ancestor.push(component);
        if let Some(why) = config.rules.skip_dir(&ancestor) {
            return Some(format!("inside {}: {why}", ancestor.display()));
        }
    }
    None
}

/// A listed path made relative to DIR (empty for DIR itself), `.` and `..` resolved; an error
/// if it leaves DIR.
fn inside_root(listed: &Path, roots: &[PathBuf]) -> Result<PathBuf> {
    let outside = || anyhow!("listed file {} is outside DIR", listed.display());
    let rel = if listed.is_absolute() {
        roots
            .iter()
            .find_map(|root| listed.strip_prefix(root).ok())
            .ok_or_else(outside)?
    } else {
        listed
    };
    let mut clean = PathBuf::new();
    for component in rel.components() {
        match component {
            Component::Normal(name) => clean.push(name),
            Component::CurDir => {}
            Component::ParentDir if clean.pop() => {}
            _ => return Err(outside()),
        }
    }
    Ok(clean)
}
