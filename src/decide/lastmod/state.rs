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
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};

use crate::scan::digest::DigestRules;
pub use crate::walk::Stamp;

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
    let Some(described) = rules_line.strip_prefix("digest ") else {
        bail!("line 2 is not a digest line");
    };
    let mut state = OldState {
        records: HashMap::new(),
        comparable: described == rules.describe(),
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
                date if crate::w3c::is_w3c_date(date) => Some(date.to_string()),
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
    writeln!(out, "digest {}", rules.describe())?;
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

    use regex::bytes::Regex;

    fn rules(patterns: &[&str]) -> DigestRules {
        let ignore = patterns.iter().map(|p| Regex::new(p).unwrap()).collect();
        DigestRules::new(crate::scan::digest::Mode::Bytes, None, ignore)
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
}
