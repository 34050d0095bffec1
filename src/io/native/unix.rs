//! Unix: descriptors (rustix), names as the bytes they are.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::mem::MaybeUninit;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RawDir, Stat};

use super::{Identity, Kind, Meta, Opened};
use crate::known::Stamp;

/// The bytes of `bytes` as a name or path (any bytes are one on Unix).
pub fn os_str(bytes: &[u8]) -> &OsStr {
    OsStr::from_bytes(bytes)
}

/// `bytes` as a name or path, from outside (a list, a URL decoded): any bytes on Unix.
pub fn os_str_checked(bytes: &[u8]) -> Option<&OsStr> {
    Some(OsStr::from_bytes(bytes))
}

/// `bytes` as a name or path.
pub fn os_string(bytes: Vec<u8>) -> OsString {
    OsString::from_vec(bytes)
}

/// `path` absolute, its symlinks resolved: the path git knows a file of a work tree by.
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    std::fs::canonicalize(path)
}

/// Why the walk cannot use a name a directory lists: never on Unix, where a name is bytes
/// (which a URL percent-encodes) and opening it reaches the file listed.
pub fn unusable_name(_name: &OsStr) -> Option<String> {
    None
}

/// The device that opening `path` would reach instead of a file or folder: none on Unix,
/// where a device is a file of its own (which the outputs' checks refuse).
pub fn device(_path: &Path) -> Option<String> {
    None
}

/// `name` as the file system compares names: its bytes on Unix.
pub fn case_key(name: &[u8]) -> Cow<'_, [u8]> {
    Cow::Borrowed(name)
}

/// A directory, open: its entries are read and looked at through its descriptor, one short
/// lookup each instead of one of every component of their paths.
pub struct Dir(OwnedFd);

impl Dir {
    /// Opens the directory at `path` to read its names.
    pub fn open(path: &Path) -> io::Result<Dir> {
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(Dir(rustix::fs::open(path, flags, Mode::empty())?))
    }

    /// Opens the directory at `path` only to look at the files in it.
    pub fn open_for_stat(path: &Path) -> io::Result<Dir> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        Ok(Dir(rustix::fs::open(path, flags, Mode::empty())?))
    }

    /// Its device and inode.
    pub fn id(&self) -> io::Result<(u64, u64)> {
        let stat = rustix::fs::fstat(&self.0)?;
        Ok((stat.st_dev, stat.st_ino))
    }

    /// The names among `names` that opening by name cannot tell apart: none on Unix, where a
    /// name opens the file it lists.
    pub fn clashes(&self, _names: &[(OsString, Kind)]) -> Vec<Vec<usize>> {
        Vec::new()
    }

    /// Its names but `.` and `..`, with their types as the directory gives them, unordered;
    /// `buf` is room for the entries read at once.
    pub fn names(&self, buf: &mut [MaybeUninit<u8>]) -> io::Result<Vec<(OsString, Kind)>> {
        let mut names = Vec::new();
        let mut dir = RawDir::new(&self.0, buf);
        while let Some(entry) = dir.next() {
            let entry = match entry {
                Ok(entry) => entry,
                // Removed while it was read: it ends here (as readdir would say).
                Err(rustix::io::Errno::NOENT) => break,
                Err(err) => return Err(err.into()),
            };
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push((OsString::from_vec(name.to_vec()), kind(entry.file_type())));
            }
        }
        Ok(names)
    }

    /// The stat of `name` in it, of its target if `follow` and it is a symlink.
    pub fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Meta> {
        let flags = match follow {
            true => AtFlags::empty(),
            false => AtFlags::SYMLINK_NOFOLLOW,
        };
        Ok(meta(&rustix::fs::statat(&self.0, name, flags)?))
    }

    /// Opens `name` in it for reading (following a symlink, as its stat did).
    pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
        let flags = OFlags::RDONLY | OFlags::CLOEXEC | OFlags::NOCTTY;
        Ok(File::from(rustix::fs::openat(
            &self.0,
            name,
            flags,
            Mode::empty(),
        )?))
    }
}

fn kind(file_type: FileType) -> Kind {
    match file_type {
        FileType::Directory => Kind::Dir,
        FileType::Symlink => Kind::Symlink,
        FileType::RegularFile => Kind::File,
        FileType::Unknown => Kind::Unknown,
        _ => Kind::Other,
    }
}

fn meta(stat: &Stat) -> Meta {
    // The nanoseconds are unsigned on some Unixes, signed on others.
    let nanos = |seconds: i64, nanoseconds: i128| i128::from(seconds) * 1_000_000_000 + nanoseconds;
    Meta {
        kind: kind(FileType::from_raw_mode(stat.st_mode)),
        id: (stat.st_dev, stat.st_ino),
        mtime: stat.st_mtime,
        stamp: Stamp {
            size: stat.st_size as u64,
            mtime: nanos(stat.st_mtime, i128::from(stat.st_mtime_nsec)),
            ctime: nanos(stat.st_ctime, i128::from(stat.st_ctime_nsec)),
            inode: stat.st_ino,
        },
    }
}

/// Whether `err` says a path is too long to be looked up.
pub fn too_long(err: &io::Error) -> bool {
    err.raw_os_error() == Some(rustix::io::Errno::NAMETOOLONG.raw_os_error())
}

/// Whether `err` says a symlink leads to itself (or too deep).
pub fn symlink_loop(err: &io::Error) -> bool {
    err.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error())
}

/// Opens the file at `path` for reading if it is a regular file (not following a symlink
/// unless `follow`). Opened non-blocking, so that a FIFO with no writer cannot hang the run
/// before it is seen for what it is.
pub fn open_regular(path: &Path, follow: bool) -> io::Result<Opened> {
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    if !follow {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = match rustix::fs::open(path, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(rustix::io::Errno::NOENT) => return Ok(Opened::Missing),
        Err(rustix::io::Errno::LOOP) if !follow => return Ok(Opened::Symlink),
        Err(err) => return Err(err.into()),
    };
    let stat = rustix::fs::fstat(&fd)?;
    if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
        return Ok(Opened::NotRegular);
    }
    Ok(Opened::File(File::from(fd)))
}

/// The identity of the file at `path`: for a symlink, its target's if `follow`, else its own.
pub fn identity(path: &Path, follow: bool) -> io::Result<Identity> {
    let meta = match follow {
        true => std::fs::metadata(path)?,
        false => std::fs::symlink_metadata(path)?,
    };
    Ok(identity_of_meta(&meta))
}

/// The identity of the open file `file`.
pub fn identity_of(file: &File) -> io::Result<Identity> {
    Ok(identity_of_meta(&file.metadata()?))
}

fn identity_of_meta(meta: &std::fs::Metadata) -> Identity {
    use std::os::unix::fs::MetadataExt;
    Identity {
        dev: meta.dev(),
        ino: meta.ino(),
        ctime: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
    }
}

/// Keeps the file at `target` also at `aside` (a new name), to be replaced with a way back:
/// a hard link, so that there is no moment without a file at `target`. Returns it opened.
pub fn set_aside(target: &Path, aside: &Path) -> io::Result<File> {
    std::fs::hard_link(target, aside)?;
    File::open(aside)
}

/// A temp file of ours is made readable by all, less the umask, as any new file: web
/// servers must read what it becomes.
pub fn readable_by_all(builder: &mut tempfile::Builder) {
    use std::fs::Permissions;
    use std::os::unix::fs::PermissionsExt;
    builder.permissions(Permissions::from_mode(0o666));
}

/// Held while a run publishes into a directory: a lock on the directory itself.
pub struct DirLock {
    /// The lock lasts as long as the descriptor.
    _locked: File,
}

impl DirLock {
    /// Waits for the lock on directory `dir`.
    pub fn lock(dir: &Path) -> io::Result<DirLock> {
        let file = File::open(dir)?;
        file.lock()?;
        Ok(DirLock { _locked: file })
    }
}
