//! The stat stage of a list of files: every file's metadata, through a descriptor of its
//! directory, the rules, and the page prepared, on threads of its own; and what a stat makes
//! of a file, for the walk too.

use crate::error::Access;
use crate::report::shown_path;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;

use anyhow::anyhow;
use globset::Candidate;

use super::find::DIR_SYMLINK;
use super::rules::{Skip, split_name};
use super::{Batches, Event, Listed, Page, PageFile, Prepare, Settings, Walked, excluded};
use crate::io::native::{self, Dir, Kind, Meta};
use crate::report::{Reason, Warning};

/// The stat stage: every listed file looked at through a descriptor of its directory, left
/// out as the walk would leave it out (a directory, the rules), or a page prepared. The
/// stage's threads take the batches in turn, numbered as they are taken; the first that
/// finds the consumer gone drops the receiver, which stops the finder.
pub(super) fn stat_pages<P: Prepare>(
    receiver: &Batches,
    sender: SyncSender<(u64, Vec<Walked<P::Prepared>>)>,
    settings: &Settings,
    prepare: &P,
) {
    let mut stats = Stats::default();
    let mut scratch = P::Scratch::default();
    while let Some((number, batch)) = take(receiver) {
        let mut out = Vec::with_capacity(batch.len() + 8);
        for listed in batch {
            let mut to = Stat {
                stats: &mut stats,
                scratch: &mut scratch,
                out: &mut out,
            };
            to.file(listed, settings, prepare);
        }
        // A closed channel means the consumer failed; its error is the one to report.
        if sender.send((number, out)).is_err() {
            if let Ok(mut receiver) = receiver.lock() {
                *receiver = None;
            }
            return;
        }
    }
}

/// The next batch, numbered in the order the threads take them; None once there is none.
fn take(receiver: &Batches) -> Option<(u64, Vec<Listed>)> {
    let mut receiver = receiver.lock().ok()?;
    let (receiver, taken) = receiver.as_mut()?;
    let batch = receiver.recv().ok()?;
    *taken += 1;
    Some((*taken - 1, batch))
}

/// One thread's looking at the files of a batch.
struct Stat<'a, P: Prepare> {
    stats: &'a mut Stats,
    scratch: &'a mut P::Scratch,
    out: &'a mut Vec<Walked<P::Prepared>>,
}

impl<P: Prepare> Stat<'_, P> {
    /// One listed file: an event, or a page prepared.
    fn file(&mut self, listed: Listed, settings: &Settings, prepare: &P) {
        let verbose = settings.verbose;
        let Listed {
            rel,
            path,
            inside_skipped,
        } = listed;
        let name = native::os_str(split_name(&path).1).to_os_string();
        // What the file is (not following a symlink): a listed file that cannot be looked
        // at is an error, whatever the rules say of it.
        let looked = self.stats.dir(&path).and_then(|dir| {
            let lstat = dir.stat(&name, false)?;
            Ok((dir, lstat))
        });
        let (dir, lstat) = match looked {
            Ok(looked) => looked,
            Err(err) => {
                let err = anyhow!("listed file {} cannot be read: {err}", shown_path(&path));
                self.out.push(Walked::Event(Event::Failed(err)));
                return;
            }
        };
        let out = &mut *self.out;
        let mut event = |event| out.push(Walked::Event(event));
        if let Some((reason, why)) = inside_skipped {
            return event(excluded(verbose, &rel, reason, why));
        }
        let skipped = |rel, why: &str| Event::Skipped(rel, why.to_string());
        let stat = match lstat.kind {
            Kind::Dir => {
                if verbose {
                    event(skipped(rel, "a directory"));
                }
                return;
            }
            Kind::Symlink => {
                let stat = dir.stat(&name, true);
                if let Ok(target) = &stat
                    && target.kind == Kind::Dir
                {
                    if verbose {
                        event(skipped(rel, DIR_SYMLINK));
                    }
                    return;
                }
                stat
            }
            _ => Ok(lstat),
        };
        match settings.rules.skip_file(&rel, &Candidate::new(&rel)) {
            None => {}
            Some(Skip::OwnOutput) => {
                if verbose {
                    event(skipped(rel, Skip::OwnOutput.to_string().as_str()));
                }
                return;
            }
            Some(why) => return event(excluded(verbose, &rel, why.reason(), why)),
        }
        if let Some(page) = judge(stat, rel, path, verbose, &mut event) {
            let file = PageFile { dir, name: &name };
            let page = prepare.prepare(self.scratch, page, file);
            self.out.push(Walked::Page(page));
        }
    }
}

/// What a file's stat (its target's, for a symlink) makes of it: a page, or events.
pub(super) fn judge(
    stat: io::Result<Meta>,
    rel: PathBuf,
    path: PathBuf,
    verbose: bool,
    event: &mut impl FnMut(Event),
) -> Option<Page> {
    let meta = match stat {
        Ok(meta) => meta,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            event(excluded(verbose, &rel, Reason::Unusable, "gone"));
            let what = match fs::symlink_metadata(&path) {
                Ok(_) => "is a dangling symlink",
                Err(_) => "vanished while the site was being read",
            };
            event(Event::Warning(
                Warning::Unusable,
                format!("{} {what}", shown_path(&rel)),
                "not listed",
            ));
            return None;
        }
        Err(err) if native::symlink_loop(&err) => {
            event(excluded(verbose, &rel, Reason::Unusable, "a symlink loop"));
            event(Event::Warning(
                Warning::Loop,
                format!("{} is a symlink loop", shown_path(&rel)),
                "not listed",
            ));
            return None;
        }
        Err(err) => {
            let context = Access::ReadSite(shown_path(&path));
            event(Event::Failed(anyhow::Error::from(err).context(context)));
            return None;
        }
    };
    if meta.kind != Kind::File {
        event(excluded(
            verbose,
            &rel,
            Reason::Unusable,
            "not a regular file",
        ));
        return None;
    }
    Some(Page {
        rel,
        path,
        mtime: meta.mtime,
        stamp: meta.stamp,
    })
}

/// A handle of the directory the files being looked at lie in, so that each is looked
/// at as find does: one short lookup instead of a lookup of every component of its path.
#[derive(Default)]
struct Stats {
    dir: Option<(PathBuf, Dir)>,
}

impl Stats {
    /// A descriptor of the directory `path` lies in, opened once for the files in it.
    fn dir(&mut self, path: &Path) -> io::Result<&Dir> {
        let (dir, _) = split_name(path);
        let dir = match dir {
            b"" if path.has_root() => b"/".as_slice(),
            b"" => b".",
            dir => dir,
        };
        if self
            .dir
            .as_ref()
            .is_none_or(|(cached, _)| cached.as_os_str().as_encoded_bytes() != dir)
        {
            let dir = Path::new(native::os_str(dir));
            self.dir = Some((dir.to_path_buf(), Dir::open_for_stat(dir)?));
        }
        let (_, dir) = self.dir.as_ref().expect("opened above");
        Ok(dir)
    }
}
