//! Reading a page: the one place a page's bytes are read and its HTML tokenized. What is read
//! depends on what the decision about the page needs: its head (noindex, redirects,
//! canonical URLs, alternates), the digest of its whole content (for `--state`), or both in
//! one read.

pub mod digest;
pub mod head;
mod tokens;

use std::io;
use std::path::Path;

use digest::DigestRules;
use head::{HEAD_CAP, Head};

/// Bytes read from a page at a time for its digest.
pub const READ_CHUNK: usize = 64 * 1024;

/// What to read of a page.
pub struct Want<'r> {
    pub head: bool,
    /// The digest of the whole page, made with these rules.
    pub digest: Option<&'r DigestRules>,
}

/// What was read.
#[derive(Debug, Default)]
pub struct Scanned {
    pub head: Option<Head>,
    pub digest: Option<blake3::Hash>,
}

/// Reads pages, its buffers reused from page to page.
pub struct Scanner {
    /// For html5gum, reading a head alone.
    head_buffer: Vec<u8>,
    /// For a whole page, read in pieces.
    chunk: Vec<u8>,
    /// A whole page's first `HEAD_CAP` bytes, for its head.
    start: Vec<u8>,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            head_buffer: vec![0; 16 * 1024],
            chunk: vec![0; READ_CHUNK],
            start: Vec::new(),
        }
    }
}

impl Scanner {
    /// Reads the page at `path` for what `want` asks, once. An error is the read's (a page
    /// that vanished is `NotFound`).
    pub fn scan(&mut self, path: &Path, want: Want) -> io::Result<Scanned> {
        match want.digest {
            Some(rules) => {
                let keep = if want.head { HEAD_CAP } else { 0 };
                let digest = rules.read(path, &mut self.start, keep, &mut self.chunk)?;
                Ok(Scanned {
                    head: want.head.then(|| head::parse(&self.start)),
                    digest: Some(digest),
                })
            }
            None if want.head => Ok(Scanned {
                head: Some(head::read(path, &mut self.head_buffer)?),
                digest: None,
            }),
            None => Ok(Scanned::default()),
        }
    }
}
