//! The state file behind `--state`: per URL, a digest of the page's content and the lastmod
//! last published, so that a page whose content did not change keeps its date.
//!
//! Plain text, sorted by key, diffable:
//!
//! ```text
//! sitemapgen-state 2
//! digest blake3 ignore=<fingerprint of the --digest-ignore rules, or ->
//! <key> <lastmod or -> <digest> <stamp or ->
//! end <number of records>
//! ```
//!
//! The end line makes a file cut short at a line boundary detectable. The stamp is what a
//! stat says of the file (`SIZE:MTIME:CTIME:INODE`, the times in nanoseconds): a page whose
//! stamp is unchanged is not read again. A version 1 state (`<size> <mtime>` for the stamp,
//! which pinned mtimes fool) is read with no stamps, so its pages are read once more.
//!
//! The key is the URL's path under the base URL (`/`, `/docs/`, `/about.html`), so moving
//! the site to another host or scheme keeps every date.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use regex::bytes::Regex;

const MAGIC: &str = "sitemapgen-state";
const VERSION: &str = "2";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub lastmod: Option<String>,
    pub digest: blake3::Hash,
    /// None when the file might still change within its timestamps' resolution, as git
    /// does for "racily clean" files: it is read again next time.
    pub stamp: Option<Stamp>,
}

/// What a stat says of a page, as git's index keeps it: an edit that keeps the size and sets
/// the mtime back (`touch -d`, `SOURCE_DATE_EPOCH`, Nix) still changes the ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    /// Nanoseconds since the epoch.
    pub mtime: i128,
    pub ctime: i128,
    pub inode: u64,
}

impl Stamp {
    fn parse(text: &str) -> Result<Stamp> {
        let fields: Vec<&str> = text.split(':').collect();
        let [size, mtime, ctime, inode] = fields[..] else {
            bail!("bad stamp {text:?}");
        };
        Ok(Stamp {
            size: size.parse().context("bad size")?,
            mtime: mtime.parse().context("bad mtime")?,
            ctime: ctime.parse().context("bad ctime")?,
            inode: inode.parse().context("bad inode")?,
        })
    }
}

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
    fn fingerprint(&self) -> String {
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

/// The state read at the start of a run.
#[derive(Debug, Default)]
pub struct OldState {
    pub records: HashMap<String, Record>,
    /// Whether the digests were made with today's rules and so can be compared.
    pub comparable: bool,
}

/// Reads the state; `None` when the file does not exist yet (a first run). Anything else
/// that is wrong with it is an error: a silent reset would re-date every page.
pub fn read(path: &Path, rules: &DigestRules) -> Result<Option<OldState>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => {
            return Err(err).with_context(|| format!("cannot read state file {}", path.display()));
        }
    };
    parse(BufReader::new(file), rules)
        .map(Some)
        .with_context(|| format!("state file {} is not usable", path.display()))
}

/// Reads a state from `reader` (see `read`).
pub fn parse(reader: impl BufRead, rules: &DigestRules) -> Result<OldState> {
    let mut lines = reader.lines().enumerate();
    let mut next = |what: &str| -> Result<Option<(usize, String)>> {
        match lines.next() {
            None => Ok(None),
            Some((i, line)) => Ok(Some((
                i + 1,
                line.with_context(|| format!("reading {what}"))?,
            ))),
        }
    };
    let header = next("the header")?.ok_or_else(|| anyhow!("it is empty"))?.1;
    let version_1 = match header.strip_prefix(MAGIC).map(str::trim) {
        Some(VERSION) => false,
        Some("1") => true,
        Some(other) => {
            bail!("it has version {other:?}; this sitemapgen reads versions 1 and {VERSION}")
        }
        None => bail!("line 1 is not a sitemapgen-state header"),
    };
    let rules_line = next("the rules")?
        .ok_or_else(|| anyhow!("it ends after line 1"))?
        .1;
    let Some(fingerprint) = rules_line.strip_prefix("digest blake3 ignore=") else {
        bail!("line 2 is not a digest line");
    };
    let mut state = OldState {
        records: HashMap::new(),
        comparable: fingerprint == rules.fingerprint(),
    };
    while let Some((number, line)) = next("a record")? {
        if let Some(count) = line.strip_prefix("end ") {
            if count != state.records.len().to_string() {
                bail!(
                    "line {number} counts {count} URLs, the file holds {}",
                    state.records.len()
                );
            }
            if next("the end")?.is_some() {
                bail!("line {number} is not the last");
            }
            return Ok(state);
        }
        let (key, record) = parse_record(&line, version_1)
            .with_context(|| format!("line {number} is malformed"))?;
        if state.records.insert(key, record).is_some() {
            bail!("line {number} repeats a URL");
        }
    }
    bail!("it is cut short (no end line)")
}

fn parse_record(line: &str, version_1: bool) -> Result<(String, Record)> {
    let fields: Vec<&str> = line.split(' ').collect();
    let (key, lastmod, digest, stamp) = match (version_1, fields.as_slice()) {
        (false, &[key, lastmod, digest, stamp]) => match stamp {
            "-" => (key, lastmod, digest, None),
            stamp => (key, lastmod, digest, Some(Stamp::parse(stamp)?)),
        },
        (true, &[key, lastmod, digest, size, mtime]) => {
            size.parse::<u64>().context("bad size")?;
            mtime.parse::<i64>().context("bad mtime")?;
            (key, lastmod, digest, None)
        }
        _ => bail!(
            "expected {} fields, found {}",
            if version_1 { 5 } else { 4 },
            fields.len()
        ),
    };
    let Some(url_path) = key.strip_prefix('/') else {
        bail!("the key {key:?} does not start with /");
    };
    Ok((
        url_path.to_string(),
        Record {
            lastmod: match lastmod {
                "-" => None,
                date if crate::lastmod::is_w3c_date(date) => Some(date.to_string()),
                _ => bail!("bad lastmod {lastmod:?}"),
            },
            digest: blake3::Hash::from_hex(digest).context("bad digest")?,
            stamp,
        },
    ))
}

/// Writes the new state, sorted by key, to `out`. In memory a record is keyed by its URL
/// path as the pipeline has it (`""`, `docs/`); in the file by that path after a `/`.
pub fn write(
    out: &mut impl Write,
    rules: &DigestRules,
    records: &mut [(String, Record)],
) -> io::Result<()> {
    records.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    writeln!(out, "{MAGIC} {VERSION}")?;
    writeln!(out, "digest blake3 ignore={}", rules.fingerprint())?;
    for (url_path, record) in records.iter() {
        write!(
            out,
            "/{url_path} {} {} ",
            record.lastmod.as_deref().unwrap_or("-"),
            record.digest.to_hex(),
        )?;
        match &record.stamp {
            Some(s) => writeln!(out, "{}:{}:{}:{}", s.size, s.mtime, s.ctime, s.inode)?,
            None => writeln!(out, "-")?,
        }
    }
    writeln!(out, "end {}", records.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str]) -> DigestRules {
        DigestRules::new(patterns.iter().map(|p| Regex::new(p).unwrap()).collect())
    }

    #[test]
    fn a_written_state_reads_back() {
        let rules = rules(&["<!-- built .* -->"]);
        let record = |lastmod: Option<&str>, n: u8| Record {
            lastmod: lastmod.map(String::from),
            digest: blake3::hash(&[n]),
            stamp: (n > 1).then_some(Stamp {
                size: n as u64,
                mtime: -(n as i128),
                ctime: 1_700_000_000_123_456_789,
                inode: 42,
            }),
        };
        let mut records = vec![
            (
                "b.html".to_string(),
                record(Some("2024-05-01T10:00:00+00:00"), 2),
            ),
            ("".to_string(), record(None, 1)),
        ];
        let mut out = Vec::new();
        write(&mut out, &rules, &mut records).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            text.starts_with("sitemapgen-state 2\ndigest blake3 ignore="),
            "{text}"
        );
        assert!(
            text.lines().nth(2).unwrap().starts_with("/ - "),
            "sorted by key: {text}"
        );
        let state = parse(out.as_slice(), &rules).unwrap();
        assert!(state.comparable);
        assert_eq!(state.records.len(), 2);
        assert_eq!(state.records["b.html"], records[1].1);
        assert!(
            !parse(out.as_slice(), &super::tests::rules(&[]))
                .unwrap()
                .comparable
        );
    }

    #[test]
    fn a_corrupt_or_foreign_state_is_an_error() {
        let rules = rules(&[]);
        let good = format!("/ - {} 1 2", blake3::hash(b"x").to_hex());
        for bad in [
            String::new(),
            "sitemapgen-state 3\ndigest blake3 ignore=-\n".to_string(),
            format!("sitemapgen-state 2\ndigest blake3 ignore=-\n{good}\nend 1\n"),
            format!(
                "sitemapgen-state 2\ndigest blake3 ignore=-\n/ - {} 1:2:3\nend 1\n",
                blake3::hash(b"x").to_hex()
            ),
            "something else\n".to_string(),
            "sitemapgen-state 1\n".to_string(),
            format!("sitemapgen-state 1\ndigest blake3 ignore=-\n{good}\n{good}\nend 2\n"),
            format!("sitemapgen-state 1\ndigest blake3 ignore=-\n{good}\n"),
            format!("sitemapgen-state 1\ndigest blake3 ignore=-\n{good}\nend 2\n"),
            format!("sitemapgen-state 1\ndigest blake3 ignore=-\nend 0\n{good}\n"),
            "sitemapgen-state 1\ndigest blake3 ignore=-\n/ yesterday 00 1 2\nend 1\n".to_string(),
            "sitemapgen-state 1\ndigest blake3 ignore=-\n/ - nothex 1 2\n".to_string(),
            format!("sitemapgen-state 1\ndigest blake3 ignore=-\n{good} extra\n"),
        ] {
            assert!(parse(bad.as_bytes(), &rules).is_err(), "accepted {bad:?}");
        }
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
