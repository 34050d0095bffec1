//! The stat stage of a list of files: every page's metadata, through a descriptor of its
//! directory (mostly kernel time, on a thread of its own); and what a stat makes of a file,
//! for the walk too.

use std::ffi::OsStr;
use std::fs;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::rules::split_name;
use super::{Event, Found, Stamp, Statted, excluded};
use crate::report::{Reason, Warning};

/// The stat stage: every page's metadata, through a descriptor of its directory.
pub(super) fn stat_pages(
    receiver: Receiver<Vec<Found>>,
    sender: SyncSender<Vec<Statted>>,
    verbose: bool,
) {
    let mut stats = Stats::default();
    for batch in receiver {
        let mut out = Vec::with_capacity(batch.len() + 8);
        for found in batch {
            match found {
                Found::Candidate { rel, path } => {
                    stat_page(&mut stats, rel, path, verbose, &mut out)
                }
                Found::Event(event) => out.push(Statted::Event(event)),
            }
        }
        // A closed channel means the consumer failed; its error is the one to report.
        if sender.send(out).is_err() {
            return;
        }
    }
}

fn stat_page(
    stats: &mut Stats,
    rel: PathBuf,
    path: PathBuf,
    verbose: bool,
    out: &mut Vec<Statted>,
) {
    let stat = stats.stat(&path);
    judge(stat, rel, path, verbose, &mut |statted| out.push(statted));
}

/// What a candidate's stat (following a symlink) makes of it: a page, or events.
pub(super) fn judge(
    stat: io::Result<rustix::fs::Stat>,
    rel: PathBuf,
    path: PathBuf,
    verbose: bool,
    out: &mut impl FnMut(Statted),
) {
    let mut event = |event| out(Statted::Event(event));
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
                format!("{} {what}", rel.display()),
                "not listed",
            ));
            return;
        }
        Err(err) if err.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            event(excluded(verbose, &rel, Reason::Unusable, "a symlink loop"));
            event(Event::Warning(
                Warning::Loop,
                format!("{} is a symlink loop", rel.display()),
                "not listed",
            ));
            return;
        }
        Err(err) => {
            let context = format!("cannot read {}", path.display());
            event(Event::Failed(anyhow::Error::from(err).context(context)));
            return;
        }
    };
    if FileType::from_raw_mode(meta.st_mode) != FileType::RegularFile {
        event(excluded(
            verbose,
            &rel,
            Reason::Unusable,
            "not a regular file",
        ));
        return;
    }
    let nanos = |seconds: i64, nanoseconds: u64| {
        i128::from(seconds) * 1_000_000_000 + i128::from(nanoseconds)
    };
    out(Statted::Page {
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
