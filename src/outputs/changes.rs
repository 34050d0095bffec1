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

use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};

use crate::io::input;

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

    /// Whether `word` begins a line of a changes file: the word of a kind.
    pub fn is_word(word: &[u8]) -> bool {
        [Kind::Added, Kind::Redated, Kind::Removed]
            .iter()
            .any(|kind| kind.word().as_bytes() == word)
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

/// The URLs of a changes file's `contents`, in its order, each line checked for its kind
/// and its URL one that a run with the base URL `prefix` writes; `path` names the file in
/// messages. A URL outside the base URL is a usage error (another site's changes).
pub fn urls(mut contents: &[u8], path: &Path, prefix: &str) -> Result<Vec<String>> {
    let mut line = Vec::new();
    let mut urls = Vec::new();
    let mut number = 0;
    while input::read_line(&mut contents, &mut line, input::MAX_CHANGES_LINE)
        .with_context(|| format!("cannot read the changes file {}", path.display()))?
    {
        number += 1;
        let at = || format!("line {number} of the changes file {}", path.display());
        // Bytes that are not UTF-8 would be submitted as U+FFFD, another URL.
        let Ok(text) = std::str::from_utf8(&line) else {
            bail!("{} is not UTF-8", at());
        };
        let url = match text.split_once(' ') {
            Some((kind, url)) if Kind::is_word(kind.as_bytes()) => url,
            _ => bail!(
                "{} is not `added URL`, `redated URL` or `removed URL`",
                at()
            ),
        };
        match url.strip_prefix(prefix) {
            None => {
                return Err(crate::error::UsageError(format!(
                    "\"{}\" on {} is not under --base-url {prefix}",
                    crate::report::shown(url),
                    at()
                ))
                .into());
            }
            Some(rest) if !crate::url::is_page_path(rest) => {
                bail!(
                    "{} holds \"{}\", not a URL sitemapgen writes",
                    at(),
                    crate::report::shown(url)
                )
            }
            Some(_) => urls.push(url.to_string()),
        }
    }
    Ok(urls)
}
