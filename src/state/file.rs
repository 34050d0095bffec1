//! The state file behind `--state`: per URL, a digest of the page's content and the lastmod
//! last published, so that a page whose content did not change keeps its date.
//!
//! Plain text, one line per URL in the order of the walk (so the same from run to run),
//! diffable:
//!
//! ```text
//! sitemapgen-state 3
//! digest blake3 ignore=<fingerprint of the --digest-ignore rules, or ->
//! <key> <lastmod or -> <digest> <stamp or -> <streak> <fingerprint or ->
//! end <number of records>
//! ```
//!
//! The end line makes a file cut short at a line boundary detectable. The stamp is what a
//! stat says of the file (`SIZE:MTIME:CTIME:INODE`, the times in nanoseconds): a page whose
//! stamp is unchanged is not read again. The streak counts the runs in a row that re-dated
//! the page. The fingerprint (15 hex digits) is that of the page's bytes (`old::Fingerprint`):
//! a page whose stamp changed but whose bytes did not keeps its digest untokenized; `-` for
//! a page too large to be read whole. A version 2 state (no streak, no fingerprints) is read
//! with streaks of 0 and no fingerprints. A version 1 state
//! (`<size> <mtime>` for the stamp, which pinned mtimes fool) is read with no stamps, so its
//! pages are read once more.
//!
//! The key is the URL's path under the base URL (`/`, `/docs/`, `/about.html`), so moving
//! the site to another host or scheme keeps every date.

use std::collections::HashMap;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};

use super::old::{OldState, Parsed, Record, Seen};
use crate::io::input;
use crate::known::Stamp;
use crate::report::shown;

const MAGIC: &str = "sitemapgen-state";
const VERSION: &str = "3";

impl Stamp {
    fn parse(text: &str) -> Result<Stamp> {
        let ([size, mtime, ctime, inode], 4) = fields(text, ':') else {
            bail!("bad stamp \"{}\"", shown(text));
        };
        Ok(Stamp {
            size: size.parse().context("bad size")?,
            mtime: nanoseconds(mtime).context("bad mtime")?,
            ctime: nanoseconds(ctime).context("bad ctime")?,
            inode: inode.parse().context("bad inode")?,
        })
    }
}

/// Bytes read from a state file at a time (it is some 170 bytes a URL).
const READ_BUFFER: usize = 64 << 10;

/// Reads the state; `None` when the file does not exist yet (a first run). Anything else
/// that is wrong with it is an error: a silent reset would re-date every page.
pub fn read(path: &Path, rules: &str) -> Result<Option<OldState>> {
    let file = match input::open(path) {
        Ok(Some(file)) => file,
        Ok(None) => return Ok(None),
        Err(err) => {
            return Err(err).with_context(|| format!("cannot read state file {}", path.display()));
        }
    };
    // Compressed or not, the file itself is held to the limit of the state it holds.
    let file = input::Capped::new(file, input::MAX_STATE);
    parse(BufReader::with_capacity(READ_BUFFER, file), rules)
        .map(Some)
        .with_context(|| format!("state file {} is not usable", path.display()))
}

/// Reads a state from `reader`, gzip-compressed or not (see `read`).
pub fn parse(reader: impl BufRead, rules: &str) -> Result<OldState> {
    let mut lines = Lines {
        reader: input::decoded(reader, input::MAX_STATE)?,
        line: Vec::new(),
        number: 0,
    };
    let (_, header) = lines
        .next("the header")?
        .ok_or_else(|| anyhow!("it is empty"))?;
    let version = match header.strip_prefix(MAGIC).map(str::trim) {
        Some(VERSION) => Version::Streaks,
        Some("2") => Version::Stamps,
        Some("1") => Version::First,
        Some(other) => {
            bail!(
                "it has version \"{}\"; this sitemapgen reads versions 1 to {VERSION}",
                shown(other)
            )
        }
        None => bail!("line 1 is not a sitemapgen-state header"),
    };
    let (_, rules_line) = lines
        .next("the rules")?
        .ok_or_else(|| anyhow!("it ends after line 1"))?;
    let Some(described) = rules_line.strip_prefix("digest ") else {
        bail!("line 2 is not a digest line");
    };
    let mut state = OldState::reading(described == rules);
    let mut seen = Seen::default();
    while let Some((number, line)) = lines.next("a record")? {
        if let Some(count) = line.strip_prefix("end ") {
            if count != state.len().to_string() {
                bail!(
                    "line {number} counts {count} URLs, the file holds {}",
                    state.len()
                );
            }
            if lines.next("the end")?.is_some() {
                bail!("line {number} is not the last");
            }
            state.finish();
            return Ok(state);
        }
        let (key, record) = parse_record(line, version, &seen.dates)
            .with_context(|| format!("line {number} is malformed"))?;
        state
            .push(key, record, &mut seen)
            .with_context(|| format!("line {number}"))?;
    }
    bail!("it is cut short (no end line)")
}

/// A state's lines, each read into the same buffer, with their numbers.
struct Lines<R> {
    reader: R,
    line: Vec<u8>,
    number: usize,
}

impl<R: BufRead> Lines<R> {
    fn next(&mut self, what: &str) -> Result<Option<(usize, &str)>> {
        if !input::read_line(&mut self.reader, &mut self.line, input::MAX_STATE_LINE)
            .with_context(|| format!("reading {what}"))?
        {
            return Ok(None);
        }
        self.number += 1;
        let number = self.number;
        let text = std::str::from_utf8(&self.line)
            .with_context(|| format!("line {number} is not UTF-8"))?;
        Ok(Some((number, text)))
    }
}

/// The versions of the format a state may have, by what their records hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    /// Size and mtime, no stamp.
    First,
    Stamps,
    Streaks,
}

/// A time in nanoseconds: 64 bits hold them until 2262, and parse several times faster than
/// the 128 a stamp keeps.
fn nanoseconds(text: &str) -> Result<i128, std::num::ParseIntError> {
    text.parse::<i64>()
        .map(i128::from)
        .or_else(|_| text.parse::<i128>())
}

/// The first `N` fields of `text` split at `separator`, and how many it has.
fn fields<const N: usize>(text: &str, separator: char) -> ([&str; N], usize) {
    let mut fields = [""; N];
    let mut count = 0;
    for field in text.split(separator) {
        if let Some(slot) = fields.get_mut(count) {
            *slot = field;
        }
        count += 1;
    }
    (fields, count)
}

/// A record's line; `dates` holds the dates already read, so checked already.
fn parse_record<'l>(
    line: &'l str,
    version: Version,
    dates: &HashMap<Box<str>, u32>,
) -> Result<(&'l str, Parsed<'l>)> {
    let stamp = |stamp| match stamp {
        "-" => Ok(None),
        stamp => Stamp::parse(stamp).map(Some),
    };
    let fingerprint = |text: &str| match text {
        "-" => Ok(None),
        hex if hex.len() == 15 => u64::from_str_radix(hex, 16)
            .map(Some)
            .ok()
            .context("bad fingerprint"),
        _ => bail!("bad fingerprint"),
    };
    let (fields, count) = fields::<6>(line, ' ');
    let (key, lastmod, digest, stamp, streak, fingerprint) = match (version, count, fields) {
        (Version::Streaks, 6, [key, lastmod, digest, stamped, streak, printed]) => (
            key,
            lastmod,
            digest,
            stamp(stamped)?,
            streak.parse().context("bad streak")?,
            fingerprint(printed)?,
        ),
        (Version::Stamps, 4, [key, lastmod, digest, stamped, ..]) => {
            (key, lastmod, digest, stamp(stamped)?, 0, None)
        }
        (Version::First, 5, [key, lastmod, digest, size, mtime, _]) => {
            size.parse::<u64>().context("bad size")?;
            mtime.parse::<i64>().context("bad mtime")?;
            (key, lastmod, digest, None, 0, None)
        }
        _ => bail!(
            "expected {} fields, found {count}",
            match version {
                Version::Stamps => 4,
                Version::First => 5,
                Version::Streaks => 6,
            }
        ),
    };
    let Some(url_path) = key.strip_prefix('/') else {
        bail!("the key \"{}\" does not start with /", shown(key));
    };
    // A key flows into the changes file and to IndexNow: only one this tool writes.
    if !crate::url::is_page_path(url_path) {
        bail!(
            "the key \"{}\" is not a URL path sitemapgen writes",
            shown(key)
        );
    }
    Ok((
        url_path,
        Parsed {
            lastmod: match lastmod {
                "-" => None,
                date if dates.contains_key(date) || crate::w3c::is_w3c_date(date) => Some(date),
                _ => bail!("bad lastmod \"{}\"", shown(lastmod)),
            },
            digest: digest_from_hex(digest)?,
            stamp,
            streak,
            fingerprint,
        },
    ))
}

/// A digest as the state writes it, 64 hex digits: decoded with SIMD, as blake3's own
/// decoder took a quarter of reading a state.
fn digest_from_hex(text: &str) -> Result<blake3::Hash> {
    // The length first: const_hex would take a `0x` before the digits.
    match text.len() == 2 * blake3::OUT_LEN {
        true => const_hex::decode_to_array(text)
            .map(blake3::Hash::from_bytes)
            .ok()
            .context("bad digest"),
        false => bail!("bad digest"),
    }
}

/// Writes a state, record by record. In memory a record is keyed by its URL path as the
/// pipeline has it (`""`, `docs/`); in the file by that path after a `/`.
pub struct Writer<W: Write> {
    out: W,
    count: u64,
}

impl<W: Write> Writer<W> {
    pub fn new(mut out: W, rules: &str) -> io::Result<Writer<W>> {
        writeln!(out, "{MAGIC} {VERSION}")?;
        writeln!(out, "digest {rules}")?;
        Ok(Writer { out, count: 0 })
    }

    pub fn record(&mut self, url_path: &str, record: &Record) -> io::Result<()> {
        write!(
            self.out,
            "/{url_path} {} {} ",
            record.lastmod.as_deref().unwrap_or("-"),
            record.digest.to_hex(),
        )?;
        match &record.stamp {
            Some(s) => write!(self.out, "{}:{}:{}:{}", s.size, s.mtime, s.ctime, s.inode)?,
            None => write!(self.out, "-")?,
        }
        match record.fingerprint {
            Some(fingerprint) => writeln!(self.out, " {} {fingerprint:015x}", record.streak)?,
            None => writeln!(self.out, " {} -", record.streak)?,
        }
        self.count += 1;
        Ok(())
    }

    /// Writes the end line; the output is complete.
    pub fn finish(mut self) -> io::Result<W> {
        writeln!(self.out, "end {}", self.count)?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scan::digest::DigestRules;
    use crate::state::Take;

    use std::io::Read;

    use regex::bytes::Regex;

    /// The rules as a state names them.
    fn rules(patterns: &[&str]) -> String {
        let ignore = patterns.iter().map(|p| Regex::new(p).unwrap()).collect();
        DigestRules::new(crate::scan::digest::Mode::Bytes, ignore).describe(None)
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
            streak: u32::from(n) - 1,
            fingerprint: (n != 2).then_some(u64::from(n) << 56 | 7),
        };
        let records = [
            ("b.html", record(Some("2024-05-01T10:00:00+00:00"), 2)),
            ("", record(None, 1)),
            ("c.html", record(Some("2024-05-01T10:00:00+00:00"), 3)),
        ];
        let mut writer = Writer::new(Vec::new(), &rules).unwrap();
        for (key, record) in &records {
            writer.record(key, record).unwrap();
        }
        let out = writer.finish().unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            text.starts_with("sitemapgen-state 3\ndigest blake3 ignore="),
            "{text}"
        );
        assert!(
            text.lines()
                .nth(2)
                .unwrap()
                .starts_with("/b.html 2024-05-01"),
            "in the order written: {text}"
        );
        assert!(text.ends_with("\nend 3\n"), "{text}");
        let state = parse(out.as_slice(), &rules).unwrap();
        assert!(state.comparable);
        assert_eq!(state.len(), 3);
        assert_eq!(state.dates.len(), 1, "a date is kept once");
        for (key, record) in &records {
            let known = state.seen(key).unwrap().1;
            assert_eq!(known.map(|known| known.fingerprint), record.fingerprint);
            assert_eq!(state.seen(key).unwrap().0, record.stamp);
            assert_eq!(state.take(key), Take::Record(record.clone()));
            assert_eq!(state.take(key), Take::Again, "taken once");
        }
        assert_eq!(state.take("a.html"), Take::Unknown);
        assert_eq!(state.untaken(), 0);
        assert!(
            !parse(out.as_slice(), &super::tests::rules(&[]))
                .unwrap()
                .comparable
        );
    }

    #[test]
    fn a_compressed_state_reads_as_the_plain_one() {
        let rules = rules(&[]);
        let record = Record {
            lastmod: Some("2024-05-01".into()),
            digest: blake3::hash(b"x"),
            stamp: None,
            streak: 0,
            fingerprint: None,
        };
        let gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        let mut writer = Writer::new(gzip, &rules).unwrap();
        writer.record("a/", &record).unwrap();
        let compressed = writer.finish().unwrap().finish().unwrap();
        assert!(compressed.starts_with(&[0x1f, 0x8b]));
        let state = parse(compressed.as_slice(), &rules).unwrap();
        assert_eq!(state.take("a/"), Take::Record(record));
        // Cut short, it is refused like a plain state cut short.
        assert!(parse(&compressed[..compressed.len() - 12], &rules).is_err());
    }

    #[test]
    fn a_corrupt_or_foreign_state_is_an_error() {
        let rules = rules(&[]);
        let good = format!("/ - {} 1 2", blake3::hash(b"x").to_hex());
        for bad in [
            String::new(),
            "sitemapgen-state 4\ndigest blake3 ignore=-\n".to_string(),
            format!("sitemapgen-state 2\ndigest blake3 ignore=-\n{good}\nend 1\n"),
            format!(
                "sitemapgen-state 2\ndigest blake3 ignore=-\n/ - {} 1:2:3\nend 1\n",
                blake3::hash(b"x").to_hex()
            ),
            format!(
                "sitemapgen-state 2\ndigest blake3 ignore=-\n/ - {} 1:2:3:4:5\nend 1\n",
                blake3::hash(b"x").to_hex()
            ),
            format!(
                "sitemapgen-state 2\ndigest blake3 ignore=-\n/ - {} 1:2:3:4 x\nend 1\n",
                blake3::hash(b"x").to_hex()
            ),
            format!(
                "sitemapgen-state 3\ndigest blake3 ignore=-\n/ - {} 1:2:3:4\nend 1\n",
                blake3::hash(b"x").to_hex()
            ),
            format!(
                "sitemapgen-state 3\ndigest blake3 ignore=-\n/ - {} - -1\nend 1\n",
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
    fn a_repeated_record_is_refused_where_it_is_read() {
        let record = format!("/a.html - {} -\n", blake3::hash(b"x").to_hex());
        let header = "sitemapgen-state 2\ndigest blake3 ignore=-\n";
        // Reading stops at the repeat: the rest, many more repeats and no end, is not read.
        let repeats = record.repeat(100_000);
        let mut input = io::Cursor::new(header.as_bytes()).chain(repeats.as_bytes());
        let err = parse(BufReader::new(&mut input), &rules(&[])).unwrap_err();
        assert_eq!(format!("{err:#}"), "line 4: it repeats the URL /a.html");
        let mut rest = Vec::new();
        input.read_to_end(&mut rest).unwrap();
        assert!(
            rest.len() > repeats.len() - (64 << 10),
            "read on past the repeat: {} bytes of {} left",
            rest.len(),
            repeats.len()
        );
    }

    #[test]
    fn a_key_is_only_one_sitemapgen_writes() {
        let rules = rules(&[]);
        let digest = blake3::hash(b"x").to_hex();
        let state = |key: &[u8]| {
            let mut text = b"sitemapgen-state 2\ndigest blake3 ignore=-\n".to_vec();
            text.extend_from_slice(key);
            text.extend_from_slice(format!(" - {digest} -\nend 1\n").as_bytes());
            parse(text.as_slice(), &rules)
        };
        for good in [&b"/"[..], b"/docs/", b"/caf%C3%A9.html"] {
            assert!(state(good).is_ok(), "{}", String::from_utf8_lossy(good));
        }
        for bad in [
            &b"/\x1b[31mred.html"[..],
            b"/<x>&\"'.html",
            b"/../../etc/passwd",
            b"//a",
            b"/a b",
            b"/caf\xc3\xa9",
            b"/caf\xff",
        ] {
            let err = state(bad).unwrap_err();
            assert!(
                format!("{err:#}").contains("line 3"),
                "{}: {err:#}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn a_digest_is_64_hex_digits_of_either_case() {
        let rules = rules(&[]);
        let hex = blake3::hash(b"x").to_hex().to_string();
        let state = |digest: &str| {
            let text =
                format!("sitemapgen-state 2\ndigest blake3 ignore=-\n/ - {digest} -\nend 1\n");
            parse(text.as_bytes(), &rules).map(|state| state.take(""))
        };
        let read = Take::Record(Record {
            lastmod: None,
            digest: blake3::hash(b"x"),
            stamp: None,
            streak: 0,
            fingerprint: None,
        });
        assert_eq!(state(&hex).unwrap(), read);
        assert_eq!(state(&hex.to_uppercase()).unwrap(), read);
        for bad in [
            format!("{}g", &hex[..63]),
            format!("g{}", &hex[1..]),
            format!("{}é", &hex[..62]),
            hex[..62].to_string(),
            format!("{hex}0"),
            format!("{hex}00"),
            format!("0x{}", &hex[..62]),
            String::new(),
        ] {
            assert!(state(&bad).is_err(), "accepted the digest {bad:?}");
        }
    }

    #[test]
    fn a_stamp_takes_times_of_any_size_it_was_written_with() {
        let rules = rules(&[]);
        for (mtime, ctime) in [
            (i128::from(i64::MAX) + 1, i128::from(i64::MIN) - 1),
            (i128::MAX, i128::MIN),
            (0, -1),
        ] {
            let record = Record {
                lastmod: None,
                digest: blake3::hash(b"x"),
                stamp: Some(Stamp {
                    size: u64::MAX,
                    mtime,
                    ctime,
                    inode: u64::MAX,
                }),
                streak: u32::MAX,
                fingerprint: None,
            };
            let mut writer = Writer::new(Vec::new(), &rules).unwrap();
            writer.record("a", &record).unwrap();
            let state = parse(writer.finish().unwrap().as_slice(), &rules).unwrap();
            assert_eq!(state.take("a"), Take::Record(record));
        }
        let text = "sitemapgen-state 2\ndigest blake3 ignore=-\n/ - {} 1:170141183460469231731687303715884105728:0:0\nend 1\n"
            .replace("{}", &blake3::hash(b"x").to_hex());
        assert!(
            parse(text.as_bytes(), &rules).is_err(),
            "a time past 128 bits"
        );
    }
}
