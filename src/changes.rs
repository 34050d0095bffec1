//! The changes of a run (`--changes FILE`): the URLs added, re-dated and removed since the
//! state, each on a line after its kind, for a shell loop (`while read -r kind url`), a CDN
//! purge (`cut -d' ' -f2`) and `--indexnow-submit` alike:
//!
//! ```text
//! added https://example.com/new/
//! redated https://example.com/a.html
//! removed https://example.com/old/
//! ```
//!
//! The added and re-dated in the order of the walk, then the removed in the order of their
//! paths. A URL never holds a space (it is percent-encoded), so the line splits at the first.

use std::fs::File;
use std::io::{self, BufReader, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::input;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Added,
    Redated,
    Removed,
}

impl Kind {
    fn word(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Redated => "redated",
            Kind::Removed => "removed",
        }
    }
}

/// Writes the changes, line by line.
pub struct Writer<W: Write>(W);

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Writer<W> {
        Writer(out)
    }

    pub fn change(&mut self, kind: Kind, url: &str) -> io::Result<()> {
        writeln!(self.0, "{} {url}", kind.word())
    }

    pub fn finish(self) -> W {
        self.0
    }
}

/// A URL is under 2,048 characters; a line is its kind and it.
const MAX_LINE: usize = 4096;

/// The URLs of a changes file, with their kinds, in its order.
pub fn read(path: &Path) -> Result<Vec<(Kind, String)>> {
    let what = || format!("cannot read the changes file {}", path.display());
    let mut reader = BufReader::new(File::open(path).with_context(what)?);
    let mut line = Vec::new();
    let mut changes = Vec::new();
    let mut number = 0;
    while input::read_line(&mut reader, &mut line, MAX_LINE).with_context(what)? {
        number += 1;
        let text = String::from_utf8_lossy(&line);
        let kind = match text.split_once(' ') {
            Some(("added", url)) => (Kind::Added, url),
            Some(("redated", url)) => (Kind::Redated, url),
            Some(("removed", url)) => (Kind::Removed, url),
            _ => bail!(
                "line {number} of the changes file {} is not `added URL`, `redated URL` or \
                 `removed URL`",
                path.display()
            ),
        };
        changes.push((kind.0, kind.1.to_string()));
    }
    Ok(changes)
}
