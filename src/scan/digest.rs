//! The digest of a page for `--state`: BLAKE3 of its bytes, less what `--digest-ignore`
//! removes, taken as the page is read so that memory does not grow with its size.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use regex::bytes::Regex;

/// What `--digest-ignore` removes before hashing.
#[derive(Debug)]
pub struct DigestRules {
    ignore: Vec<Regex>,
}

impl DigestRules {
    pub fn new(ignore: Vec<Regex>) -> Self {
        DigestRules { ignore }
    }

    /// Names the rules in the state, so a change of rules is noticed (`-` for none).
    pub fn fingerprint(&self) -> String {
        if self.ignore.is_empty() {
            return "-".to_string();
        }
        let mut hasher = blake3::Hasher::new();
        for regex in &self.ignore {
            hasher.update(regex.as_str().as_bytes());
            hasher.update(b"\0");
        }
        hasher.finalize().to_hex()[..16].to_string()
    }

    /// Reads the file at `path` once, to its end, and gives the digest of its content with
    /// every ignored match removed; its first `head_cap` bytes are kept in `head` (for the
    /// page's head). Memory stays bounded whatever the file's size: the content is hashed as
    /// it is read, and ignored matches are found within a line (a line longer than 1 MiB is
    /// taken in 1 MiB pieces).
    pub fn read(
        &self,
        path: &Path,
        head: &mut Vec<u8>,
        head_cap: usize,
        chunk: &mut [u8],
    ) -> io::Result<blake3::Hash> {
        head.clear();
        let mut file = File::open(path)?;
        let mut digest = Digest {
            rules: self,
            hasher: blake3::Hasher::new(),
            line: Vec::new(),
        };
        loop {
            let n = match file.read(chunk) {
                Ok(0) => break,
                Ok(n) => n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            let bytes = &chunk[..n];
            let room = head_cap.saturating_sub(head.len());
            head.extend_from_slice(&bytes[..room.min(n)]);
            digest.update(bytes);
        }
        Ok(digest.finish())
    }
}

/// A line longer than this is matched against `--digest-ignore` in pieces of this size.
const MAX_LINE: usize = 1024 * 1024;

/// A digest being made, fed as the file is read.
struct Digest<'r> {
    rules: &'r DigestRules,
    hasher: blake3::Hasher,
    /// Without ignore rules, unused; with them, the start of a line not yet complete.
    line: Vec<u8>,
}

impl Digest<'_> {
    fn update(&mut self, mut bytes: &[u8]) {
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
        let mut line = std::borrow::Cow::Borrowed(self.line.as_slice());
        for regex in &self.rules.ignore {
            if let std::borrow::Cow::Owned(replaced) = regex.replace_all(&line, &b""[..]) {
                line = std::borrow::Cow::Owned(replaced);
            }
        }
        self.hasher.update(&line);
        self.line.clear();
    }

    fn finish(mut self) -> blake3::Hash {
        if !self.line.is_empty() {
            self.hash_line();
        }
        self.hasher.finalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str]) -> DigestRules {
        DigestRules::new(patterns.iter().map(|p| Regex::new(p).unwrap()).collect())
    }

    #[test]
    fn ignored_matches_do_not_change_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(
            &a,
            "<p>x</p><!-- built 10:00 --><link href=app.3f9a1c2e.css>",
        )
        .unwrap();
        std::fs::write(
            &b,
            "<p>x</p><!-- built 11:30 --><link href=app.0b1d2e3f.css>",
        )
        .unwrap();
        let rules = rules(&["<!-- built [^>]* -->", r"\.[0-9a-f]{8}\.css"]);
        let digest = |rules: &DigestRules, path: &Path| {
            rules.read(path, &mut Vec::new(), 0, &mut [0; 7]).unwrap()
        };
        assert_eq!(digest(&rules, &a), digest(&rules, &b));
        let plain = super::tests::rules(&[]);
        assert_ne!(digest(&plain, &a), digest(&plain, &b));
        assert_eq!(
            digest(&plain, &a),
            blake3::hash(&std::fs::read(&a).unwrap()),
            "without rules, the digest of the bytes"
        );
    }

    #[test]
    fn the_digest_is_the_same_whatever_the_chunks_and_the_head_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        let line = "<p>text <!-- built 10:00 --> more</p>\n";
        let page = format!("{}{}", line.repeat(100), "x".repeat(3 * MAX_LINE + 17));
        std::fs::write(&path, &page).unwrap();
        let rules = rules(&["<!-- built [^>]* -->"]);
        let mut head = Vec::new();
        let whole = rules
            .read(&path, &mut head, 50, &mut vec![0; 1 << 20])
            .unwrap();
        assert_eq!(head, page.as_bytes()[..50]);
        for chunk in [1, 7, 4096, 65536] {
            assert_eq!(
                rules
                    .read(&path, &mut head, 0, &mut vec![0; chunk])
                    .unwrap(),
                whole,
                "chunk {chunk}"
            );
        }
    }
}
