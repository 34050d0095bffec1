//! Reading a page: the one place a page's bytes are read and its HTML tokenized, once, for
//! everything the decision about it needs: its head (noindex, redirects, canonical URLs,
//! alternates), its digest for `--state`, the dates it declares for `--lastmod page`.

mod content;
mod dates;
pub mod digest;
pub mod head;
mod page;
pub mod select;
mod tokens;

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use html5gum::IoReader;

use content::Content;
use digest::{DigestRules, Hashing, Mode};
use head::{HEAD_CAP, Head};
use page::PageReader;

/// Bytes read from a page at a time.
pub const READ_CHUNK: usize = 64 * 1024;

/// What to read of a page.
pub struct Want<'r> {
    /// Whether the page is HTML (only HTML is tokenized; another file has a digest of its
    /// bytes).
    pub html: bool,
    pub head: bool,
    /// The digest of the page, made with these rules.
    pub digest: Option<&'r DigestRules>,
    /// The dates the page declares.
    pub dates: bool,
}

/// What was read.
#[derive(Debug, Default)]
pub struct Scanned {
    pub head: Option<Head>,
    pub digest: Option<blake3::Hash>,
    /// The date the page declares, in a W3C form.
    pub declared: Option<String>,
}

/// Reads pages, its buffers reused from page to page.
pub struct Scanner {
    /// For html5gum, reading a head alone.
    head_buffer: Vec<u8>,
    /// For a whole page.
    chunk: Vec<u8>,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            head_buffer: vec![0; 16 * 1024],
            chunk: vec![0; READ_CHUNK],
        }
    }
}

impl Scanner {
    /// Reads the page at `path` for what `want` asks, once. An error is the read's (a page
    /// that vanished is `NotFound`).
    pub fn scan(&mut self, path: &Path, want: Want) -> io::Result<Scanned> {
        let dates = want.html && want.dates;
        match want.digest {
            Some(rules) => {
                let (mut scanned, digest) =
                    self.with_digest(path, rules, want.html, want.head, dates)?;
                scanned.digest = Some(digest);
                Ok(scanned)
            }
            None if dates => {
                let mut reader = PageReader::new(None, true);
                let file = File::open(path)?;
                tokens::read(
                    IoReader::new_with_buffer(file, &mut self.chunk),
                    &mut reader,
                )?;
                Ok(finish(reader, want.head))
            }
            None if want.html && want.head => {
                let mut reader = PageReader::new(None, false);
                let file = File::open(path)?.take(HEAD_CAP as u64);
                tokens::read(
                    IoReader::new_with_buffer(file, &mut self.head_buffer),
                    &mut reader,
                )?;
                Ok(finish(reader, true))
            }
            None => Ok(Scanned::default()),
        }
    }
}

impl Scanner {
    /// The digest of the page at `path` (HTML or not), made with `rules`.
    pub fn digest(
        &mut self,
        path: &Path,
        rules: &DigestRules,
        html: bool,
    ) -> io::Result<blake3::Hash> {
        Ok(self.with_digest(path, rules, html, false, false)?.1)
    }

    /// Reads a page for its digest, and for its head and dates if asked.
    fn with_digest(
        &mut self,
        path: &Path,
        rules: &DigestRules,
        html: bool,
        head: bool,
        dates: bool,
    ) -> io::Result<(Scanned, blake3::Hash)> {
        // A file that is not HTML, or the bytes asked for: every byte counts.
        if !html || rules.mode == Mode::Bytes {
            let mut hashing = Hashing::new(File::open(path)?, rules);
            let mut scanned = Scanned::default();
            if html && (head || dates) {
                let mut reader = PageReader::new(None, dates);
                let input = IoReader::new_with_buffer(&mut hashing, &mut self.chunk);
                tokens::read(input, &mut reader)?;
                scanned = finish(reader, head);
            }
            return Ok((scanned, hashing.finish()?));
        }
        let mut content = Content::new(rules);
        let mut reader = PageReader::new(Some(&mut content), dates);
        let file = File::open(path)?;
        tokens::read(
            IoReader::new_with_buffer(file, &mut self.chunk),
            &mut reader,
        )?;
        let scanned = finish(reader, head);
        Ok((scanned, content.finish()))
    }
}

/// What a page reader found, the head only if it was asked for.
fn finish(reader: PageReader, head: bool) -> Scanned {
    Scanned {
        declared: reader
            .dates
            .as_ref()
            .and_then(|d| d.date())
            .map(String::from),
        head: head.then_some(reader.facts.head),
        digest: None,
    }
}
