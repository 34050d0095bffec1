//! How one thread reads what it takes from the walk's queue: a directory (its names
//! ordered, split into parts past `PART`) or a part of one; the rules applied to each
//! entry, symlinks judged, pages stat'ed through the directory's descriptor and prepared.

use crate::error::Access;
use crate::report::shown_path;
use std::ffi::{OsStr, OsString};
use std::io;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::anyhow;
use globset::Candidate;

use super::{Ancestor, Item, Job};
use crate::io::atomic::is_temp_name;
use crate::io::native::{self, Dir, Kind, Meta};
use crate::report::Warning;
use crate::walk::find::{DIR_SYMLINK, sort_key};
use crate::walk::rules::Skip;
use crate::walk::stat::judge;
use crate::walk::{Event, PageFile, Prepare, Settings, excluded};

/// Entries of a directory prepared by one thread at most: a larger directory's names are
/// split into parts of this many, so that a directory of pages read whole (for `--state`,
/// `--images`, `--lastmod page`) keeps every thread busy to its end. With parts of 1,024, a
/// first `--state` run on Debian's python3.11-doc, whose `library/` holds 317 of its 530
/// pages, left that directory to one thread; in parts of 8, a walk of 100,000 small pages
/// costs a quarter more in hand-overs. Parts of 32 cost neither.
pub(super) const PART: usize = 32;

/// Bytes of directory entries read at once: a few hundred entries, so that most directories
/// take one read (and one more that finds the end).
pub(super) const ENTRIES_BUF: usize = 32 * 1024;

/// Reads directories, and prepares their pages.
pub(super) struct Reader<'s, P> {
    pub(super) settings: &'s Settings,
    pub(super) follow: bool,
    pub(super) prepare: &'s P,
}

/// An open directory being read, and where it is.
pub(super) struct Open {
    /// Relative to DIR.
    rel: PathBuf,
    path: PathBuf,
    dir: Dir,
    /// Under -L, this directory and those it lies in.
    ancestors: Option<Arc<Ancestor>>,
}

impl<P: Prepare> Reader<'_, P> {
    /// What `job` gives, in order, added to `items`; the jobs it makes (subdirectories to
    /// enter, parts of a large directory) are added to `jobs`, in order.
    pub(super) fn read(
        &self,
        job: Job,
        jobs: &mut Vec<Job>,
        items: &mut Vec<Item<P::Prepared>>,
        scratch: &mut P::Scratch,
        entries_buf: &mut [MaybeUninit<u8>],
    ) {
        let (open, names) = match job {
            Job::Part { open, names } => (open, names),
            Job::Dir { rel, ancestors } => {
                let path = match rel.as_os_str().is_empty() {
                    true => self.settings.root.clone(),
                    false => self.settings.root.join(&rel),
                };
                let open = match self.open(rel, ancestors, path) {
                    Ok(open) => open,
                    Err((path, err)) => return items.push(event(unreadable(&path, err))),
                };
                let names = match names(&open.dir, entries_buf) {
                    Ok(names) => without_clashes(&open, names, items),
                    Err(err) => return items.push(event(unreadable(&open.path, err))),
                };
                let open = Arc::new(open);
                if names.len() > PART {
                    let mut names = names.into_iter().peekable();
                    while names.peek().is_some() {
                        items.push(Item::Job(jobs.len() as u32));
                        let part = names.by_ref().take(PART).collect();
                        let open = open.clone();
                        jobs.push(Job::Part { open, names: part });
                    }
                    return;
                }
                (open, names)
            }
        };
        self.entries(&open, names, jobs, items, scratch);
    }

    fn open(
        &self,
        rel: PathBuf,
        ancestors: Option<Arc<Ancestor>>,
        path: PathBuf,
    ) -> Result<Open, (PathBuf, io::Error)> {
        let dir = match Dir::open(&path) {
            Ok(dir) => dir,
            Err(err) => return Err((path, err)),
        };
        let ancestors = match self.follow {
            false => None,
            true => match dir.id() {
                Ok(id) => Some(Arc::new(Ancestor {
                    id,
                    path: path.clone(),
                    parent: ancestors,
                })),
                Err(err) => return Err((path, err)),
            },
        };
        Ok(Open {
            rel,
            path,
            dir,
            ancestors,
        })
    }

    /// The entries `names` of `open`, in order.
    fn entries(
        &self,
        open: &Open,
        names: Vec<(OsString, Kind)>,
        jobs: &mut Vec<Job>,
        items: &mut Vec<Item<P::Prepared>>,
        scratch: &mut P::Scratch,
    ) {
        items.reserve(names.len());
        for (name, kind) in names {
            let entry = Entry {
                open,
                rel: native::join_rel(&open.rel, &name),
                name: &name,
            };
            if let Some(why) = native::unusable_name(&name) {
                let problem = format!("{}: {why}", shown_path(&entry.path()));
                items.push(event(Event::Warning(
                    Warning::Unusable,
                    problem,
                    "not listed",
                )));
                continue;
            }
            let kind = match kind {
                #[cfg(unix)]
                Kind::Unknown => match entry.stat(false) {
                    Ok(stat) => stat.kind,
                    Err(err) => {
                        items.push(event(unreadable(&entry.path(), err)));
                        continue;
                    }
                },
                kind => kind,
            };
            let enter = match kind {
                Kind::Dir => Some(entry.rel),
                Kind::Symlink => self.symlink(entry, items, scratch),
                _ => {
                    self.file(entry, None, items, scratch);
                    None
                }
            };
            if let Some(rel) = enter {
                self.subdir(open, rel, jobs, items);
            }
        }
    }

    /// A subdirectory: entered (its results go here) or passed over by the rules.
    fn subdir(
        &self,
        open: &Open,
        rel: PathBuf,
        jobs: &mut Vec<Job>,
        items: &mut Vec<Item<P::Prepared>>,
    ) {
        if let Some(why) = self.settings.rules.skip_dir(&rel) {
            if self.settings.verbose {
                items.push(event(Event::Skipped(rel, why.to_string())));
            }
            return;
        }
        items.push(Item::Job(jobs.len() as u32));
        jobs.push(Job::Dir {
            rel,
            ancestors: open.ancestors.clone(),
        });
    }

    /// A symlink: a directory to enter (under -L), or a file, or passed over. Returns the
    /// path of a directory to enter.
    fn symlink(
        &self,
        entry: Entry,
        items: &mut Vec<Item<P::Prepared>>,
        scratch: &mut P::Scratch,
    ) -> Option<PathBuf> {
        let stat = entry.stat(true);
        let dir = match &stat {
            Ok(stat) if stat.kind == Kind::Dir => Some(stat.id),
            _ => None,
        };
        match (dir, self.follow, stat) {
            (Some(_), false, _) => {
                if self.settings.verbose {
                    items.push(event(Event::Skipped(entry.rel, DIR_SYMLINK.to_string())));
                }
                None
            }
            (Some(id), true, _) => {
                let mut ancestor = entry.open.ancestors.as_ref();
                while let Some(dir) = ancestor {
                    if dir.id == id {
                        let problem = format!(
                            "symlink loop: {} leads back to {}",
                            shown_path(&entry.path()),
                            shown_path(&dir.path)
                        );
                        items.push(event(Event::Warning(
                            Warning::Loop,
                            problem,
                            "not followed",
                        )));
                        return None;
                    }
                    ancestor = dir.parent.as_ref();
                }
                Some(entry.rel)
            }
            // Under -L, a symlink whose target cannot be looked at (but is not missing) is an
            // error, as is any other entry the walk cannot read.
            (None, true, Err(err)) if err.kind() != io::ErrorKind::NotFound => {
                items.push(event(unreadable(&entry.path(), err)));
                None
            }
            (None, _, stat) => {
                self.file(entry, Some(stat), items, scratch);
                None
            }
        }
    }

    /// A file: a page, unless the rules or its stat (`stat`, or made now) say otherwise.
    fn file(
        &self,
        entry: Entry,
        stat: Option<io::Result<Meta>>,
        items: &mut Vec<Item<P::Prepared>>,
        scratch: &mut P::Scratch,
    ) {
        let verbose = self.settings.verbose;
        let candidate = Candidate::new(&entry.rel);
        match self.settings.rules.skip_file(&entry.rel, &candidate) {
            None => {}
            Some(Skip::OwnOutput) => {
                // The sitemap's temp files come and go as it is written beside the walk:
                // naming them would make -v's lines depend on timing (and random names).
                if verbose && !is_temp_name(entry.name.as_encoded_bytes()) {
                    let why = Skip::OwnOutput.to_string();
                    items.push(event(Event::Skipped(entry.rel, why)));
                }
                return;
            }
            Some(why) => {
                items.push(event(excluded(verbose, &entry.rel, why.reason(), why)));
                return;
            }
        }
        let stat = stat.unwrap_or_else(|| entry.stat(true));
        let path = entry.path();
        let Some(page) = judge(stat, entry.rel, path, verbose, &mut |e| {
            items.push(event(e))
        }) else {
            return;
        };
        let file = PageFile {
            dir: &entry.open.dir,
            name: entry.name,
        };
        items.push(Item::Page(self.prepare.prepare(scratch, page, file)));
    }
}

fn event<T>(event: Event) -> Item<T> {
    Item::Event(event)
}

/// An entry of an open directory.
struct Entry<'o> {
    open: &'o Open,
    name: &'o OsStr,
    /// Its path relative to DIR.
    rel: PathBuf,
}

impl Entry<'_> {
    /// To open it: DIR joined with its path relative to DIR.
    fn path(&self) -> PathBuf {
        native::join_rel(&self.open.path, self.name)
    }

    /// Its stat, through the directory's handle (of its target if `follow`).
    fn stat(&self, follow: bool) -> io::Result<Meta> {
        self.open.dir.stat(self.name, follow)
    }
}

/// The names in a directory with their types as it gives them, in the walk's order.
fn names(dir: &Dir, buf: &mut [MaybeUninit<u8>]) -> io::Result<Vec<(OsString, Kind)>> {
    let mut names = dir.names(buf)?;
    names.sort_by(|(a, _), (b, _)| sort_key(a).cmp(&sort_key(b)));
    Ok(names)
}

/// `names` of `open` but those that opening by name cannot tell apart (`Dir::clashes`, on
/// Windows), each group of them named in a warning: none is guessed.
fn without_clashes<T>(
    open: &Open,
    mut names: Vec<(OsString, Kind)>,
    items: &mut Vec<Item<T>>,
) -> Vec<(OsString, Kind)> {
    let clashes = open.dir.clashes(&names);
    if clashes.is_empty() {
        return names;
    }
    let mut left_out = vec![false; names.len()];
    for group in clashes {
        let paths: Vec<String> = group
            .iter()
            .map(|&n| shown_path(&native::join_rel(&open.path, &names[n].0)))
            .collect();
        let problem = format!(
            "{}: the names differ only in case, and Windows does not open a file of its own for each \
             here",
            paths.join(", ")
        );
        items.push(event(Event::Warning(
            Warning::Unusable,
            problem,
            "none listed",
        )));
        for n in group {
            left_out[n] = true;
        }
    }
    let mut n = 0;
    names.retain(|_| {
        n += 1;
        !left_out[n - 1]
    });
    names
}

/// A directory or entry the walk cannot read: past PATH_MAX (where no URL can be short
/// enough either) the subtree is passed over with a warning; anything else is an error, a
/// silently missing subtree being worse than no new sitemap.
fn unreadable(path: &Path, err: io::Error) -> Event {
    if native::too_long(&err) {
        let problem = format!(
            "{}: the path is too long to read (and its URLs would be)",
            shown_path(path)
        );
        return Event::Warning(Warning::TooLong, problem, "not listed");
    }
    Event::Failed(anyhow!(err).context(Access::ReadSite(shown_path(path))))
}
