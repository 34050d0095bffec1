//! Files that appear whole or not at all: each is written to a temp file beside its target
//! and renamed over it only when complete; a run that fails leaves every target as it was.
//! Temp files of killed runs are removed by the next run, never those of a live one.

use std::fs::{self, File, TryLockError};
use std::io::{self, BufRead, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use flate2::write::GzEncoder;
use flate2::{Compression, GzBuilder};
use tempfile::NamedTempFile;

use super::native;
use crate::error::Access;

/// Temp files of ours: hidden, and never taken for pages (see `walk::rules`).
pub const TEMP_PREFIX: &str = ".sitemapgen-";
pub const TEMP_SUFFIX: &str = ".tmp";

const BUFFER: usize = 256 * 1024;

/// Whether `name` is the name of a temp file of ours.
pub fn is_temp_name(name: &[u8]) -> bool {
    name.starts_with(TEMP_PREFIX.as_bytes()) && name.ends_with(TEMP_SUFFIX.as_bytes())
}

/// The directory a file is in (`.` for a bare name).
pub fn dir_of(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

/// A temp file of ours beside its target, locked while the run lives, to be renamed over it.
pub struct Beside(NamedTempFile);

impl Beside {
    pub fn in_dir(dir: &Path) -> Result<Beside> {
        let made = || -> io::Result<Beside> {
            for _ in 0..TRIES {
                let mut builder = tempfile::Builder::new();
                builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
                native::readable_by_all(&mut builder);
                let temp = builder.tempfile_in(dir)?;
                if lock_new(temp.as_file(), temp.path())? {
                    return Ok(Beside(temp));
                }
                // Taken for a leftover: the run that took it removes it, if it is not gone.
                let _ = temp.keep();
            }
            Err(io::Error::other(
                "another run removed each one as it was made",
            ))
        };
        // tempfile's error names the temp file's random name, which tells nothing.
        let without_name = |err: io::Error| match err.to_string().split_once(" at path ") {
            Some((why, _)) => io::Error::new(err.kind(), why.to_string()),
            None => err,
        };
        made()
            .map_err(without_name)
            .with_context(|| Access::CreateIn(dir.display().to_string()))
    }

    /// A temp file to be renamed over `path`.
    pub fn of(path: &Path) -> Result<Beside> {
        Beside::in_dir(dir_of(path))
    }
}

/// An unnamed temp file: never visible, and gone whatever happens (for standard output, which
/// gets the document only once it is complete, and for --check, which publishes nothing).
pub struct Scratch(File);

impl Scratch {
    pub fn new() -> Result<Scratch> {
        Ok(Scratch(
            tempfile::tempfile().context("cannot create a temp file")?,
        ))
    }
}

/// A sitemap's file: published beside its target, or kept unnamed.
pub enum Temp {
    Beside(Beside),
    Scratch(Scratch),
}

/// What a temp file must do before it is handed over complete.
pub trait TempFile: Write {
    /// Makes the content durable before a rename can make it visible.
    fn sync(&self) -> io::Result<()>;
}

impl Write for Beside {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TempFile for Beside {
    fn sync(&self) -> io::Result<()> {
        self.0.as_file().sync_all()
    }
}

impl Write for Scratch {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl TempFile for Scratch {
    fn sync(&self) -> io::Result<()> {
        Ok(())
    }
}

impl Write for Temp {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Temp::Beside(file) => file.write(buf),
            Temp::Scratch(file) => file.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Temp::Beside(file) => file.flush(),
            Temp::Scratch(file) => file.flush(),
        }
    }
}

impl TempFile for Temp {
    fn sync(&self) -> io::Result<()> {
        match self {
            Temp::Beside(file) => file.sync(),
            Temp::Scratch(file) => file.sync(),
        }
    }
}

/// One file being written, buffered and compressed if asked. Dropping it removes its temp
/// file.
pub struct Sink<T: TempFile> {
    writer: Compress<T>,
}

enum Compress<T: Write> {
    Plain(BufWriter<T>),
    /// The encoder is slow on small writes: a buffer in front of it (it writes its output
    /// in large pieces itself). Boxed: it is ten times the plain writer's size, and a
    /// sink is made once per file.
    Gzip(Box<BufWriter<GzEncoder<T>>>),
}

impl<T: TempFile> Sink<T> {
    pub fn new(temp: T, gzip: bool) -> Sink<T> {
        let writer = if gzip {
            // No name and mtime 0 in the header: the same sitemap gives the same bytes.
            let encoder = GzBuilder::new().write(temp, Compression::default());
            Compress::Gzip(Box::new(BufWriter::with_capacity(BUFFER, encoder)))
        } else {
            Compress::Plain(BufWriter::with_capacity(BUFFER, temp))
        };
        Sink { writer }
    }

    /// Completes the file (compression trailer, flush, fsync) without publishing it.
    pub fn finish(self) -> Result<Written<T>> {
        let temp = match self.writer {
            Compress::Plain(buffered) => buffered.into_inner().map_err(|e| e.into_error())?,
            Compress::Gzip(buffered) => {
                let encoder = (*buffered).into_inner().map_err(|e| e.into_error())?;
                encoder.finish()?
            }
        };
        temp.sync()?;
        Ok(Written(temp))
    }
}

impl<T: TempFile> Write for Sink<T> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.writer {
            Compress::Plain(out) => out.write(buf),
            Compress::Gzip(out) => out.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.writer {
            Compress::Plain(out) => out.flush(),
            Compress::Gzip(out) => out.flush(),
        }
    }
}

/// A complete file, not yet visible. Dropping it removes its temp file.
pub struct Written<T>(T);

impl Written<Beside> {
    /// Makes it visible: renamed over `path`, which keeps its mode if it exists.
    pub fn publish(self, path: &Path) -> Result<()> {
        rename(self.0.0, path)
    }
}

impl Written<Temp> {
    /// Makes it visible: renamed over `path`, or (kept unnamed) copied to standard output.
    pub fn publish_at(self, path: &Path) -> Result<()> {
        match self.0 {
            Temp::Beside(beside) => rename(beside.0, path),
            Temp::Scratch(Scratch(mut temp)) => {
                temp.seek(SeekFrom::Start(0))?;
                let mut stdout = io::stdout().lock();
                io::copy(&mut temp, &mut stdout)?;
                Ok(stdout.flush()?)
            }
        }
    }

    /// Whether the file at `path`, a regular file and not a link to one, already holds
    /// exactly these bytes.
    pub fn same_as(&mut self, path: &Path) -> Result<bool> {
        let unreadable = || format!("cannot read {}", path.display());
        let other = match fs::symlink_metadata(path) {
            Ok(meta) if meta.is_file() => meta,
            Ok(_) => return Ok(false),
            Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(false),
            Err(err) => return Err(err).with_context(unreadable),
        };
        let ours = match &mut self.0 {
            Temp::Beside(Beside(temp)) => temp.as_file_mut(),
            Temp::Scratch(Scratch(file)) => file,
        };
        if ours.metadata()?.len() != other.len() {
            return Ok(false);
        }
        let Some(theirs) = crate::io::input::open(path).with_context(unreadable)? else {
            return Ok(false);
        };
        ours.seek(SeekFrom::Start(0))?;
        let (mut ours, mut theirs) = (io::BufReader::new(&*ours), io::BufReader::new(theirs));
        loop {
            let (a, b) = (
                ours.fill_buf()?,
                theirs.fill_buf().with_context(unreadable)?,
            );
            let n = a.len().min(b.len());
            if n == 0 {
                return Ok(a.is_empty() && b.is_empty());
            }
            if a[..n] != b[..n] {
                return Ok(false);
            }
            ours.consume(n);
            theirs.consume(n);
        }
    }

    /// The complete content, for --check.
    pub fn contents(self) -> Result<Vec<u8>> {
        let mut contents = Vec::new();
        let file = match self.0 {
            Temp::Beside(Beside(temp)) => temp.into_file(),
            Temp::Scratch(Scratch(temp)) => temp,
        };
        let mut file = file;
        file.seek(SeekFrom::Start(0))?;
        file.read_to_end(&mut contents)?;
        Ok(contents)
    }
}

/// A file replaced with a way back: the previous version stays under a temp name until
/// `keep` (or `undo` puts it back), linked on Unix and copied on Windows
/// (`native::set_aside`), so that there is no moment without the file.
pub struct Replaced {
    target: PathBuf,
    previous: Option<NamedTempFile<File>>,
}

impl Replaced {
    pub fn new(written: Written<Beside>, target: &Path) -> Result<Replaced> {
        let previous = if target.exists() {
            let linked = || -> io::Result<NamedTempFile<File>> {
                for _ in 0..TRIES {
                    let link = tempfile::Builder::new()
                        .prefix(TEMP_PREFIX)
                        .suffix(TEMP_SUFFIX)
                        .make_in(dir_of(target), |path| native::set_aside(target, path))?;
                    if lock_new(link.as_file(), link.path())? {
                        return Ok(link);
                    }
                    let _ = link.keep();
                }
                Err(io::Error::other(
                    "another run removed each link as it was made",
                ))
            };
            Some(linked().with_context(|| format!("cannot keep a copy of {}", target.display()))?)
        } else {
            None
        };
        written.publish(target)?;
        Ok(Replaced {
            target: target.to_path_buf(),
            previous,
        })
    }

    /// The new version stays; the link to the previous one goes.
    pub fn keep(self) {}

    /// Puts the previous version back (or removes the file if there was none).
    pub fn undo(self) -> Result<()> {
        let context = || format!("cannot restore {}", self.target.display());
        match self.previous {
            Some(previous) => {
                previous
                    .persist(&self.target)
                    .map_err(|e| e.error)
                    .with_context(context)?;
            }
            None => fs::remove_file(&self.target).with_context(context)?,
        }
        Ok(())
    }
}

/// Every temp file of ours is locked (`File::lock`: flock on Unix, LockFileEx on Windows)
/// while its run lives: a leftover that can be locked belongs to a run that was killed, or
/// to one that made it a moment ago and has not locked it yet. So a run locks the file it
/// made, then checks that it is still there: if another run took it for a leftover
/// meanwhile, it makes another. Returns whether `file`,
/// made at `path`, is locked and still there.
fn lock_new(file: &File, path: &Path) -> io::Result<bool> {
    match file.try_lock() {
        Ok(()) => {}
        // Another run holds it, to remove it.
        Err(TryLockError::WouldBlock) => return Ok(false),
        Err(TryLockError::Error(err)) => return Err(err),
    }
    let made = native::identity_of(file)?;
    // What is at `path` itself: a symlink put there to our file is not our file.
    Ok(native::identity(path, false).is_ok_and(|there| there.same_file(&made)))
}

/// Tries to make a temp file of ours that another run does not take for a leftover.
const TRIES: usize = 8;

/// Removes the temp files that killed runs left in `dir`, never those of a run still going
/// (locked; one not locked yet is made again by its run); returns their paths.
pub fn remove_leftovers(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut removed = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(removed),
        Err(err) => return Err(err).with_context(|| Access::Read(dir.display().to_string())),
    };
    for entry in entries {
        let name = entry?.file_name();
        if !is_temp_name(name.as_encoded_bytes()) {
            continue;
        }
        let path = dir.join(&name);
        // Opened for the lock only; a file that vanished meanwhile was someone else's.
        let Ok(file) = File::open(&path) else {
            continue;
        };
        if file.try_lock().is_ok() {
            fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
            removed.push(path);
        }
    }
    Ok(removed)
}

/// Held while a run publishes into a directory: two runs on one output take turns, so an
/// index never lands over another run's shards.
pub struct Publishing {
    _locked: native::DirLock,
}

impl Publishing {
    pub fn lock(dir: &Path) -> Result<Publishing> {
        let locked =
            native::DirLock::lock(dir).with_context(|| format!("cannot lock {}", dir.display()))?;
        Ok(Publishing { _locked: locked })
    }
}

/// Renames `temp` over `target`, which keeps its mode if it exists.
fn rename(temp: NamedTempFile, target: &Path) -> Result<()> {
    let context = || format!("cannot write {}", target.display());
    if let Ok(old) = fs::metadata(target) {
        temp.as_file()
            .set_permissions(old.permissions())
            .with_context(context)?;
    }
    temp.persist(target)
        .map_err(|e| e.error)
        .with_context(context)?;
    Ok(())
}
