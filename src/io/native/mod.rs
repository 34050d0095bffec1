//! What differs between Unix and Windows, behind one interface: a directory read and its
//! entries looked at through a handle of it (the walk's), a file's identity and stamp, an
//! input opened only if it is a regular file, paths as bytes, and the lock a publishing
//! run holds on its output directory. Unix keeps its descriptor-based fast path (rustix:
//! `openat`, `statat`, `getdents`); Windows is std-based, with the file's identity asked of
//! the system through its handle.
//!
//! Paths are bytes on both: a Unix name is any bytes, and a Windows name is admitted only if
//! it is valid Unicode (`unusable_name`), so that its bytes are its UTF-8, which is what a URL
//! encodes. The walk's relative paths are joined with `/` on both (`join_rel`); Windows
//! takes `/` as a separator wherever it takes `\`.
//!
//! On Windows a name is also refused where opening it would not reach the file the folder
//! lists: a device's name (`nul.html`), a name whose final dots or spaces Win32 trims, names
//! that differ only in case where the file system takes them for one (`Dir::clashes`).
//! Outputs are named and compared as the file system does (`device`, `case_key`). Unix
//! opens every name as it is listed and compares names as bytes.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
pub use unix::*;

#[cfg(any(windows, test))]
mod names;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
pub use windows::*;

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};

use crate::known::Stamp;

/// What a directory entry is, as far as the walk cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dir,
    /// A symlink (on Windows, a junction too: a reparse point that names another place).
    Symlink,
    File,
    /// A FIFO, a device, a socket; on Windows a reparse point that is no link (a cloud
    /// placeholder, an app alias): never read.
    Other,
    /// The directory did not say (some file systems on Unix): a stat will. Windows always
    /// says.
    #[cfg(unix)]
    Unknown,
}

/// What opening an input found (`open_regular`).
pub enum Opened {
    File(File),
    Missing,
    /// A symlink (on Windows, a junction too), where it was not to be followed.
    Symlink,
    /// A FIFO, a device, a socket or a directory; on Windows a reparse point that is no
    /// link: not read.
    NotRegular,
}

/// What a stat says of a file.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    pub kind: Kind,
    /// Its device (volume) and inode (file index): one file has one, however it is reached.
    pub id: (u64, u64),
    /// Modification time in seconds since the epoch.
    pub mtime: i64,
    pub stamp: Stamp,
}

/// `rel` joined with `name`, with `/` (the walk's relative paths, on every platform),
/// allocated once.
pub fn join_rel(rel: &Path, name: &OsStr) -> PathBuf {
    if rel.as_os_str().is_empty() {
        return PathBuf::from(name);
    }
    let mut joined = Vec::with_capacity(rel.as_os_str().len() + 1 + name.len());
    joined.extend_from_slice(rel.as_os_str().as_encoded_bytes());
    joined.push(b'/');
    joined.extend_from_slice(name.as_encoded_bytes());
    PathBuf::from(os_string(joined))
}

/// What names one file however it is reached (its device or volume, and its inode or file
/// index), and when it last changed (its metadata too: a file replaced in place changes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub dev: u64,
    pub ino: u64,
    /// Nanoseconds since the epoch.
    pub ctime: i128,
}

impl Identity {
    /// Whether both name one file.
    pub fn same_file(&self, other: &Identity) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }
}
