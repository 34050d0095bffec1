//! The rules of a page's digest for `--state`, and the digest of its bytes (`--digest bytes`,
//! and every file that is not HTML). The digest of an HTML page's content is `content/`'s.

use std::borrow::Cow;
use std::io::{self, Read};

use regex::bytes::Regex;

use super::select::Selector;

/// What a page's digest is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// What a reader cares about: the main region's text, links and media, the structured
    /// data, the robots directives (see `content/`).
    Content,
    /// Every byte.
    Bytes,
}

/// The rules a digest is made by: the mode, and what `--digest-ignore` removes (the region
/// a user named is the scan's `Settings`', the images' too).
#[derive(Debug)]
pub struct DigestRules {
    pub mode: Mode,
    ignore: Vec<Regex>,
}

/// The version of the content digest's rules: a state made with other rules keeps its
/// dates and is made anew.
const CONTENT_VERSION: &str = "content-2";

impl DigestRules {
    pub fn new(mode: Mode, ignore: Vec<Regex>) -> Self {
        DigestRules { mode, ignore }
    }

    /// Names the rules in the state, so a change of rules is noticed: the mode (`blake3` for
    /// bytes, as states of version 1 wrote it), `ignore=` a fingerprint of the
    /// `--digest-ignore` patterns (`-` for none), and for content a fingerprint of the
    /// `region`.
    pub fn describe(&self, region: Option<&Selector>) -> String {
        let fingerprint = |parts: &mut dyn Iterator<Item = &str>| {
            let mut hasher = blake3::Hasher::new();
            let mut any = false;
            for part in parts {
                hasher.update(part.as_bytes());
                hasher.update(b"\0");
                any = true;
            }
            if any {
                hasher.finalize().to_hex()[..16].to_string()
            } else {
                "-".to_string()
            }
        };
        let ignore = fingerprint(&mut self.ignore.iter().map(Regex::as_str));
        match self.mode {
            Mode::Bytes => format!("blake3 ignore={ignore}"),
            Mode::Content => format!(
                "{CONTENT_VERSION} ignore={ignore} region={}",
                fingerprint(&mut region.into_iter().map(Selector::as_str))
            ),
        }
    }

    /// `text` less every match of the `--digest-ignore` patterns.
    pub fn strip<'t>(&self, text: &'t [u8]) -> Cow<'t, [u8]> {
        let mut text = Cow::Borrowed(text);
        for regex in &self.ignore {
            if let Cow::Owned(replaced) = regex.replace_all(&text, &b""[..]) {
                text = Cow::Owned(replaced);
            }
        }
        text
    }
}

/// A line longer than this is matched against `--digest-ignore` in pieces of this size.
const MAX_LINE: usize = 1024 * 1024;

/// The digest of bytes as they are read: BLAKE3 of the bytes less what `--digest-ignore`
/// removes, the patterns matched within a line (a line longer than 1 MiB in 1 MiB pieces), so
/// that memory stays bounded whatever a file's size.
pub struct ByteDigest<'r> {
    rules: &'r DigestRules,
    hasher: blake3::Hasher,
    /// Without ignore rules, unused; with them, the start of a line not yet complete.
    line: Vec<u8>,
}

impl<'r> ByteDigest<'r> {
    pub fn new(rules: &'r DigestRules) -> Self {
        ByteDigest {
            rules,
            hasher: blake3::Hasher::new(),
            line: Vec::new(),
        }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        if self.rules.ignore.is_empty() {
            self.hasher.update(bytes);
            return;
        }
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            self.line.extend_from_slice(&bytes[..=end]);
            self.hash_line();
            bytes = &bytes[end + 1..];
        }
        while self.line.len() + bytes.len() >= MAX_LINE {
            let take = MAX_LINE - self.line.len();
            self.line.extend_from_slice(&bytes[..take]);
            self.hash_line();
            bytes = &bytes[take..];
        }
        self.line.extend_from_slice(bytes);
    }

    fn hash_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        self.hasher.update(&self.rules.strip(&line));
        self.line = line;
        self.line.clear();
    }

    pub fn finish(mut self) -> blake3::Hash {
        if !self.line.is_empty() {
            self.hash_line();
        }
        self.hasher.finalize()
    }
}

/// A reader that hashes what passes through it.
pub struct Hashing<'r, R> {
    inner: R,
    pub digest: ByteDigest<'r>,
}

impl<'r, R: Read> Hashing<'r, R> {
    pub fn new(inner: R, rules: &'r DigestRules) -> Self {
        Hashing {
            inner,
            digest: ByteDigest::new(rules),
        }
    }

    /// Reads the rest, hashing it, and gives the digest of everything read.
    pub fn finish(mut self) -> io::Result<blake3::Hash> {
        io::copy(&mut self, &mut io::sink())?;
        Ok(self.digest.finish())
    }
}

impl<R: Read> Read for Hashing<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.digest.update(&buf[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str]) -> DigestRules {
        DigestRules::new(
            Mode::Bytes,
            patterns.iter().map(|p| Regex::new(p).unwrap()).collect(),
        )
    }

    fn digest(rules: &DigestRules, bytes: &[u8], chunk: usize) -> blake3::Hash {
        let mut reader = Hashing::new(bytes, rules);
        let mut buffer = vec![0; chunk];
        while reader.read(&mut buffer).unwrap() > 0 {}
        reader.finish().unwrap()
    }

    #[test]
    fn ignored_matches_do_not_change_the_digest() {
        let a = b"<p>x</p><!-- built 10:00 --><link href=app.3f9a1c2e.css>";
        let b = b"<p>x</p><!-- built 11:30 --><link href=app.0b1d2e3f.css>";
        let rules = rules(&["<!-- built [^>]* -->", r"\.[0-9a-f]{8}\.css"]);
        assert_eq!(digest(&rules, a, 7), digest(&rules, b, 7));
        let plain = super::tests::rules(&[]);
        assert_ne!(digest(&plain, a, 7), digest(&plain, b, 7));
        assert_eq!(
            digest(&plain, a, 7),
            blake3::hash(a),
            "without rules, the bytes'"
        );
    }

    #[test]
    fn the_digest_is_the_same_whatever_the_chunks() {
        let line = "<p>text <!-- built 10:00 --> more</p>\n";
        let page = format!("{}{}", line.repeat(100), "x".repeat(3 * MAX_LINE + 17));
        let rules = rules(&["<!-- built [^>]* -->"]);
        let whole = digest(&rules, page.as_bytes(), 1 << 20);
        for chunk in [1, 7, 4096, 65536] {
            assert_eq!(
                digest(&rules, page.as_bytes(), chunk),
                whole,
                "chunk {chunk}"
            );
        }
    }

    #[test]
    fn the_rules_are_named_in_the_state() {
        assert_eq!(rules(&[]).describe(None), "blake3 ignore=-");
        let content = DigestRules::new(Mode::Content, Vec::new());
        assert_eq!(content.describe(None), "content-2 ignore=- region=-");
        let region = Selector::parse("article").unwrap();
        assert_ne!(content.describe(Some(&region)), content.describe(None));
    }
}
