//! What a failed run exits with: 2 for what the user asked for, 1 for what happened while
//! doing it, 0 when only a reader of standard output went away.

use std::fmt;
use std::io;

pub const EXIT_RUNTIME: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

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

/// What a run was doing with a path when it failed: the context of that failure, worded as
/// any other (`cannot read PATH`), from which `hint` tells which permission a refused path
/// lacks. The path as messages show it.
#[derive(Debug)]
pub enum Access {
    /// Reading a file, or listing a folder.
    Read(String),
    /// Reading a page, or listing a folder, of the site: one `--exclude` can leave out.
    ReadSite(String),
    /// Making a file (an output's temp file) in a folder.
    CreateIn(String),
}

impl fmt::Display for Access {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Access::Read(path) | Access::ReadSite(path) => write!(f, "cannot read {path}"),
            Access::CreateIn(dir) => write!(f, "cannot create a temp file in {dir}"),
        }
    }
}

/// The `hint:` line of a failure the system refused for want of permission, where the run
/// knows which path and what it needed (`Access`), unless the message has a hint already.
pub fn hint(err: &anyhow::Error) -> Option<String> {
    let denied = err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|err| err.kind() == io::ErrorKind::PermissionDenied)
    });
    if !denied || format!("{err:#}").contains("\nhint: ") {
        return None;
    }
    let read = |path| {
        format!(
            "hint: this user needs read permission on {path} (on a folder, execute too), and \
             execute on each folder above it"
        )
    };
    Some(match err.downcast_ref::<Access>()? {
        Access::Read(path) => read(path),
        Access::ReadSite(path) => format!("{}; or leave it out with --exclude", read(path)),
        Access::CreateIn(dir) => format!(
            "hint: this user needs write permission on the folder {dir}; or name an output \
             in a folder it may write to"
        ),
    })
}

/// Whether a write failed because its reader has gone (`sitemapgen -o - … | head`): a
/// closed pipe, which Windows reports as ERROR_NO_DATA (Rust's BrokenPipe) and Wine as
/// ERROR_PIPE_NOT_CONNECTED (233).
pub fn reader_gone(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe || (cfg!(windows) && err.raw_os_error() == Some(233))
}

/// The exit status of a run that failed with `err`: 0 when a reader closed the pipe early
/// (`sitemapgen -o - … | head`), which is no failure.
pub fn exit_code(err: &anyhow::Error) -> u8 {
    let broken_pipe = err
        .chain()
        .any(|cause| cause.downcast_ref::<io::Error>().is_some_and(reader_gone));
    if broken_pipe {
        0
    } else if err.is::<UsageError>() {
        EXIT_USAGE
    } else {
        EXIT_RUNTIME
    }
}
