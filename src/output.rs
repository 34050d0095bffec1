//! Where the sitemap goes: a temp file beside the target, renamed over it only when complete,
//! or standard output.

use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use tempfile::NamedTempFile;

use crate::rules::{TEMP_PREFIX, TEMP_SUFFIX};

const BUFFER: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    Stdout,
    File(PathBuf),
}

impl Destination {
    pub fn describe(&self) -> String {
        match self {
            Destination::Stdout => "standard output".to_string(),
            Destination::File(path) => path.display().to_string(),
        }
    }
}

/// An open output. Dropping it without `commit` removes the temp file, so a failed run leaves
/// the previous sitemap as it was.
pub enum Sink {
    /// Standard output gets the document only once it is complete: until then it sits in an
    /// unnamed temp file, so a failed run prints nothing.
    Stdout(BufWriter<File>),
    File {
        temp: BufWriter<NamedTempFile>,
        target: PathBuf,
    },
}

impl Sink {
    pub fn open(destination: &Destination) -> Result<Self> {
        match destination {
            Destination::Stdout => {
                let temp = tempfile::tempfile().context("cannot create a temp file")?;
                Ok(Sink::Stdout(BufWriter::with_capacity(BUFFER, temp)))
            }
            Destination::File(target) => {
                let dir = match target.parent() {
                    Some(dir) if !dir.as_os_str().is_empty() => dir,
                    _ => Path::new("."),
                };
                let context = || format!("cannot create a temp file in {}", dir.display());
                // 0o666 less the umask, as any newly created file: web servers must read it.
                let temp = tempfile::Builder::new()
                    .prefix(TEMP_PREFIX)
                    .suffix(TEMP_SUFFIX)
                    .permissions(Permissions::from_mode(0o666))
                    .tempfile_in(dir)
                    .with_context(context)?;
                // A sitemap being replaced keeps its mode.
                if let Ok(old) = fs::metadata(target) {
                    temp.as_file()
                        .set_permissions(old.permissions())
                        .with_context(context)?;
                }
                Ok(Sink::File {
                    temp: BufWriter::with_capacity(BUFFER, temp),
                    target: target.clone(),
                })
            }
        }
    }

    /// Makes the output visible: for a file, sync and rename over the target; for standard
    /// output, copy the finished document out.
    pub fn commit(self) -> Result<()> {
        match self {
            Sink::Stdout(temp) => {
                let mut temp = temp.into_inner().map_err(|e| e.into_error())?;
                temp.seek(SeekFrom::Start(0))?;
                let mut stdout = io::stdout().lock();
                io::copy(&mut temp, &mut stdout)?;
                Ok(stdout.flush()?)
            }
            Sink::File { temp, target } => {
                let context = || format!("cannot write {}", target.display());
                let temp = temp
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(context)?;
                temp.as_file().sync_all().with_context(context)?;
                temp.persist(&target)
                    .map_err(|e| e.error)
                    .with_context(context)?;
                Ok(())
            }
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(out) => out.write(buf),
            Sink::File { temp, .. } => temp.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File { temp, .. } => temp.flush(),
        }
    }
}
