//! The state file behind `--state`: per URL, a digest of the page's content and the lastmod
//! last published, so that a page whose content did not change keeps its date.
//!
//! Plain text, sorted by key, diffable:
//!
//! ```text
//! sitemapgen-state 1
//! digest blake3 ignore=<fingerprint of the --digest-ignore rules, or ->
//! <key> <lastmod or -> <digest> <size> <mtime>
//! end <number of records>
//! ```
//!
//! The end line makes a file cut short at a line boundary detectable.
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
const VERSION: &str = "1";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub lastmod: Option<String>,
    pub digest: blake3::Hash,
    pub size: u64,
    pub mtime: i64,
}

/// What `--digest-ignore` removes before hashing.
#[derive(Debug)]
pub struct DigestRules {
    ignore: Vec<Regex>,
}

impl DigestRules {
    pub fn new(patterns: &[String]) -> Result<Self> {
        let ignore = patterns
            .iter()
            .map(|p| {
                Regex::new(p).with_context(|| format!("--digest-ignore {p:?} is not a valid regex"))
            })
            .collect::<Result<_>>()?;
        Ok(DigestRules { ignore })
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

    /// The digest of a file's content with every ignored match removed. `buffer` is reused
    /// from file to file.
    pub fn digest(&self, path: &Path, buffer: &mut Vec<u8>) -> io::Result<blake3::Hash> {
        read_whole(path, buffer)?;
        Ok(self.digest_bytes(buffer))
    }

    /// The same for content already read.
    pub fn digest_bytes(&self, content: &[u8]) -> blake3::Hash {
        if self.ignore.is_empty() {
            return blake3::hash(content);
        }
        let mut content = std::borrow::Cow::Borrowed(content);
        for regex in &self.ignore {
            if let std::borrow::Cow::Owned(replaced) = regex.replace_all(&content, &b""[..]) {
                content = std::borrow::Cow::Owned(replaced);
            }
        }
        blake3::hash(&content)
    }
}

/// Reads a whole file into `buffer` (cleared first, reused from file to file).
pub fn read_whole(path: &Path, buffer: &mut Vec<u8>) -> io::Result<()> {
    buffer.clear();
    File::open(path)?.read_to_end(buffer)?;
    Ok(())
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
    match header.strip_prefix(MAGIC).map(str::trim) {
        Some(VERSION) => {}
        Some(other) => bail!("it has version {other:?}; this sitemapgen reads version {VERSION}"),
        None => bail!("line 1 is not a sitemapgen-state header"),
    }
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
        let (key, record) =
            parse_record(&line).with_context(|| format!("line {number} is malformed"))?;
        if state.records.insert(key, record).is_some() {
            bail!("line {number} repeats a URL");
        }
    }
    bail!("it is cut short (no end line)")
}

fn parse_record(line: &str) -> Result<(String, Record)> {
    let fields: Vec<&str> = line.split(' ').collect();
    let [key, lastmod, digest, size, mtime] = fields[..] else {
        bail!("expected 5 fields, found {}", fields.len());
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
            size: size.parse().context("bad size")?,
            mtime: mtime.parse().context("bad mtime")?,
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
        writeln!(
            out,
            "/{url_path} {} {} {} {}",
            record.lastmod.as_deref().unwrap_or("-"),
            record.digest.to_hex(),
            record.size,
            record.mtime
        )?;
    }
    writeln!(out, "end {}", records.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(patterns: &[&str]) -> DigestRules {
        DigestRules::new(&patterns.iter().map(|p| p.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn a_written_state_reads_back() {
        let rules = rules(&["<!-- built .* -->"]);
        let record = |lastmod: Option<&str>, n: u8| Record {
            lastmod: lastmod.map(String::from),
            digest: blake3::hash(&[n]),
            size: n as u64,
            mtime: -(n as i64),
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
            text.starts_with("sitemapgen-state 1\ndigest blake3 ignore="),
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
            "sitemapgen-state 2\ndigest blake3 ignore=-\n".to_string(),
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
        let mut buffer = Vec::new();
        assert_eq!(
            rules.digest(&a, &mut buffer).unwrap(),
            rules.digest(&b, &mut buffer).unwrap()
        );
        let plain = super::tests::rules(&[]);
        assert_ne!(
            plain.digest(&a, &mut buffer).unwrap(),
            plain.digest(&b, &mut buffer).unwrap()
        );
    }
}
