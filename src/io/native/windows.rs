//! Windows: std's files and directories, the identity and change time of a file asked of
//! the system through its handle (std keeps them unstable), and a named mutex for the lock
//! on a directory (Windows locks no directory). A link (a symlink or a junction) is looked
//! at without being followed, as on Unix; any other reparse point is no regular file.

use std::borrow::Cow;
use std::ffi::{OsStr, OsString, c_void};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::mem::MaybeUninit;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::{Path, PathBuf};

use windows_sys::Win32::Foundation::{
    ERROR_CANT_RESOLVE_FILENAME, ERROR_FILENAME_EXCED_RANGE, WAIT_ABANDONED, WAIT_OBJECT_0,
};
use windows_sys::Win32::Storage::FileSystem::{
    BY_HANDLE_FILE_INFORMATION, FILE_ATTRIBUTE_REPARSE_POINT, FILE_BASIC_INFO,
    FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_READ_ATTRIBUTES,
    FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE, FileBasicInfo,
    GetFileInformationByHandle, GetFileInformationByHandleEx,
};
use windows_sys::Win32::System::Threading::{
    CreateMutexW, INFINITE, ReleaseMutex, WaitForSingleObject,
};

use super::{Identity, Kind, Meta, Opened, names};
use crate::known::Stamp;

/// `bytes` as a name or path. Every path the run holds on Windows is valid Unicode (names
/// are checked as they are read, lists and arguments as they are taken), and these bytes
/// are one, or a part of one cut at a `/`: valid UTF-8. Bytes that are not name no file
/// here, and are given as the empty path, which names none either.
pub fn os_str(bytes: &[u8]) -> &OsStr {
    os_str_checked(bytes).unwrap_or_default()
}

/// `bytes` as a name or path, from outside (a list, a URL decoded): only valid UTF-8.
pub fn os_str_checked(bytes: &[u8]) -> Option<&OsStr> {
    std::str::from_utf8(bytes).ok().map(OsStr::new)
}

/// `bytes` as a name or path (see `os_str`).
pub fn os_string(bytes: Vec<u8>) -> OsString {
    OsString::from(String::from_utf8(bytes).unwrap_or_default())
}

/// `path` absolute, `.` and `..` resolved, if it exists. Not canonicalized: that writes it
/// as a verbatim `\\?\` path, a form git does not work with (links on Windows are rare in
/// a work tree).
pub fn real_path(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    fs::metadata(&absolute)?;
    Ok(absolute)
}

/// Why the walk cannot use a name a directory lists: a URL is made only of valid Unicode,
/// whose UTF-8 it percent-encodes (a name holding a lone UTF-16 surrogate has no such bytes;
/// guessed, it would be listed under a URL that names no file); and opening the name must
/// reach the file listed, which Win32 does not for a device's name nor for a name ending in
/// a dot or a space (`names`).
pub fn unusable_name(name: &OsStr) -> Option<String> {
    let Some(name) = name.to_str() else {
        return Some("the name is not valid Unicode, which no URL can name".to_string());
    };
    if let Some(device) = names::device(name) {
        return Some(format!(
            "the name is that of the device {device} on Windows, which opening it would reach \
             instead of the file"
        ));
    }
    if names::trimmed(name) {
        return Some(
            "the name ends in a dot or a space, which Windows drops when it opens a file, \
             reaching another"
                .to_string(),
        );
    }
    None
}

/// The device that opening `path` would reach instead of a file or folder, for its last
/// name (`names::device`; Win32 maps no other): no output is written there.
pub fn device(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    names::device(name).map(str::to_string)
}

/// `name` as the file system compares names: ignoring case (`names::key`).
pub fn case_key(name: &[u8]) -> Cow<'_, [u8]> {
    // Most names are ASCII in lower case: their key is themselves, and no copy is made for
    // each of the walk's entries.
    if name.iter().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
        return Cow::Borrowed(name);
    }
    match std::str::from_utf8(name) {
        Ok(name) => Cow::Owned(names::key(name).into_bytes()),
        Err(_) => Cow::Borrowed(name),
    }
}

/// A directory: its entries are read and looked at by their paths.
pub struct Dir(PathBuf);

impl Dir {
    /// The directory at `path`, to read its names.
    pub fn open(path: &Path) -> io::Result<Dir> {
        if !fs::metadata(path)?.is_dir() {
            return Err(io::Error::from(io::ErrorKind::NotADirectory));
        }
        Ok(Dir(path.to_path_buf()))
    }

    /// The directory at `path`, to look at the files in it.
    pub fn open_for_stat(path: &Path) -> io::Result<Dir> {
        Dir::open(path)
    }

    /// Its volume and file index.
    pub fn id(&self) -> io::Result<(u64, u64)> {
        let identity = identity_of(&handle(&self.0, true)?)?;
        Ok((identity.dev, identity.ino))
    }

    /// Its names, with their types as the directory gives them, unordered.
    pub fn names(&self, _buf: &mut [MaybeUninit<u8>]) -> io::Result<Vec<(OsString, Kind)>> {
        let mut names = Vec::new();
        for entry in fs::read_dir(&self.0)? {
            let entry = entry?;
            // The directory's own record: no file is opened for it.
            let meta = entry.metadata()?;
            names.push((entry.file_name(), kind(&meta)));
        }
        Ok(names)
    }

    /// The groups of `names` (by index) that differ only in case (`names::clashes`) and that
    /// opening by name cannot tell apart: a case-sensitive folder lists them apart, and a
    /// case-insensitive lookup may reach one file for them all. A group is kept when each
    /// of its names reaches a file of its own (were any lookup to fold case, two names would
    /// reach the one file it finds first); names the walk refuses anyway are not opened.
    pub fn clashes(&self, names: &[(OsString, Kind)]) -> Vec<Vec<usize>> {
        let mut groups = names::clashes(names.iter().map(|(name, _)| name.to_string_lossy()));
        for group in &mut groups {
            group.retain(|&n| unusable_name(&names[n].0).is_none());
        }
        groups.retain(|group| {
            if group.len() < 2 {
                return false;
            }
            let mut ids = Vec::with_capacity(group.len());
            for &n in group {
                match self.stat(&names[n].0, false) {
                    Ok(meta) if !ids.contains(&meta.id) => ids.push(meta.id),
                    _ => return true,
                }
            }
            false
        });
        groups
    }

    /// The stat of `name` in it, of its target if `follow` and it is a link.
    pub fn stat(&self, name: &OsStr, follow: bool) -> io::Result<Meta> {
        let file = handle(&self.0.join(name), follow)?;
        let meta = file.metadata()?;
        let identity = identity_of(&file)?;
        let mtime = nanos(meta.last_write_time() as i64);
        Ok(Meta {
            kind: kind(&meta),
            id: (identity.dev, identity.ino),
            mtime: mtime.div_euclid(1_000_000_000) as i64,
            stamp: Stamp {
                size: meta.len(),
                mtime,
                ctime: identity.ctime,
                inode: identity.ino,
            },
        })
    }

    /// Opens `name` in it for reading (following a link, as its stat did).
    pub fn open_file(&self, name: &OsStr) -> io::Result<File> {
        File::open(self.0.join(name))
    }
}

/// A handle to the file or directory at `path` for its metadata, of the link itself
/// unless `follow`.
fn handle(path: &Path, follow: bool) -> io::Result<File> {
    let mut flags = FILE_FLAG_BACKUP_SEMANTICS;
    if !follow {
        flags |= FILE_FLAG_OPEN_REPARSE_POINT;
    }
    OpenOptions::new()
        .access_mode(FILE_READ_ATTRIBUTES)
        .custom_flags(flags)
        .open(path)
}

fn kind(meta: &fs::Metadata) -> Kind {
    let file_type = meta.file_type();
    if file_type.is_symlink() {
        Kind::Symlink
    } else if meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        Kind::Other
    } else if file_type.is_dir() {
        Kind::Dir
    } else if file_type.is_file() {
        Kind::File
    } else {
        Kind::Other
    }
}

/// A Windows time (100 ns since 1601) in nanoseconds since the Unix epoch.
fn nanos(ticks: i64) -> i128 {
    const UNIX_EPOCH: i128 = 11_644_473_600 * 10_000_000;
    (i128::from(ticks) - UNIX_EPOCH) * 100
}

/// Whether `err` says a path is too long to be looked up.
pub fn too_long(err: &io::Error) -> bool {
    err.raw_os_error() == Some(ERROR_FILENAME_EXCED_RANGE as i32)
}

/// Whether `err` says a link leads to itself (or too deep).
pub fn symlink_loop(err: &io::Error) -> bool {
    err.raw_os_error() == Some(ERROR_CANT_RESOLVE_FILENAME as i32)
}

/// Opens the file at `path` for reading if it is a regular file (not following a link
/// unless `follow`).
pub fn open_regular(path: &Path, follow: bool) -> io::Result<Opened> {
    let mut flags = FILE_FLAG_BACKUP_SEMANTICS;
    if !follow {
        flags |= FILE_FLAG_OPEN_REPARSE_POINT;
    }
    let file = match OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Opened::Missing),
        Err(err) => return Err(err),
    };
    Ok(match kind(&file.metadata()?) {
        Kind::File => Opened::File(file),
        Kind::Symlink => Opened::Symlink,
        _ => Opened::NotRegular,
    })
}

/// The identity of the file at `path`: for a link, its target's if `follow`, else its own.
pub fn identity(path: &Path, follow: bool) -> io::Result<Identity> {
    identity_of(&handle(path, follow)?)
}

/// The identity of the open file `file`: its volume's serial number and its file index
/// (`GetFileInformationByHandle`), and its change time (`FILE_BASIC_INFO`).
pub fn identity_of(file: &File) -> io::Result<Identity> {
    let mut info = MaybeUninit::<BY_HANDLE_FILE_INFORMATION>::zeroed();
    let mut basic = MaybeUninit::<FILE_BASIC_INFO>::zeroed();
    // SAFETY: the handle is open for the call; each structure is written by the call that
    // is given its size, and read only when the call succeeded.
    let (info, basic) = unsafe {
        if GetFileInformationByHandle(file.as_raw_handle(), info.as_mut_ptr()) == 0 {
            return Err(io::Error::last_os_error());
        }
        let size = size_of::<FILE_BASIC_INFO>() as u32;
        let out = basic.as_mut_ptr().cast::<c_void>();
        if GetFileInformationByHandleEx(file.as_raw_handle(), FileBasicInfo, out, size) == 0 {
            return Err(io::Error::last_os_error());
        }
        (info.assume_init(), basic.assume_init())
    };
    Ok(Identity {
        dev: u64::from(info.dwVolumeSerialNumber),
        ino: (u64::from(info.nFileIndexHigh) << 32) | u64::from(info.nFileIndexLow),
        ctime: nanos(basic.ChangeTime),
    })
}

/// Nothing to do: a new file takes its folder's permissions, which web servers read.
pub fn readable_by_all(_builder: &mut tempfile::Builder) {}

/// Keeps the file at `target` at `aside` (a new name), to be replaced with a way back:
/// copied there. Not linked, as on Unix: Windows does not replace a file that is open by any
/// of its names, and the one kept stays open (locked) until the replacement is kept. Not
/// moved: the file stays at `target` until its replacement takes its place, so a run that
/// dies between the two leaves it whole. Returns the copy opened.
pub fn set_aside(target: &Path, aside: &Path) -> io::Result<File> {
    // The name is taken first (failing if another file has it), as a link would be.
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(aside)?;
    fs::copy(target, aside)?;
    OpenOptions::new()
        .read(true)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .open(aside)
}

/// Held while a run publishes into a directory. Windows locks no directory (and a lock file
/// would be written into the site), so two runs take turns on a mutex named after the
/// directory's real path, which the system releases if the run holding it dies.
pub struct DirLock {
    mutex: OwnedHandle,
}

impl DirLock {
    /// Waits for the lock on directory `dir`.
    pub fn lock(dir: &Path) -> io::Result<DirLock> {
        let real = dir.canonicalize()?;
        let key = real.to_string_lossy().to_lowercase();
        let name: Vec<u16> = OsStr::new(&format!(
            "Local\\sitemapgen-publish-{}",
            blake3::hash(key.as_bytes()).to_hex()
        ))
        .encode_wide()
        .chain([0])
        .collect();
        // SAFETY: the name is NUL-terminated and outlives the call; a handle the call
        // returns is owned here alone.
        let mutex = unsafe {
            let raw = CreateMutexW(std::ptr::null(), 0, name.as_ptr());
            if raw.is_null() {
                return Err(io::Error::last_os_error());
            }
            OwnedHandle::from_raw_handle(raw)
        };
        // SAFETY: the handle is open; a mutex abandoned by a dead run is ours too.
        match unsafe { WaitForSingleObject(mutex.as_raw_handle(), INFINITE) } {
            WAIT_OBJECT_0 | WAIT_ABANDONED => Ok(DirLock { mutex }),
            _ => Err(io::Error::last_os_error()),
        }
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // SAFETY: the handle is open, and this thread owns the mutex (a run publishes on
        // one thread); closing the handle after would release it anyway.
        unsafe { ReleaseMutex(self.mutex.as_raw_handle()) };
    }
}
