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
//! the page. The fingerprint (15 hex digits) is that of the page's bytes (`scan::Fingerprint`):
//! a page whose stamp changed but whose bytes did not keeps its digest untokenized; `-` for
//! a page too large to be read whole. A version 2 state (no streak, no fingerprints) is read
//! with streaks of 0 and no fingerprints. A version 1 state
//! (`<size> <mtime>` for the stamp, which pinned mtimes fool) is read with no stamps, so its
//! pages are read once more.
//!
//! The key is the URL's path under the base URL (`/`, `/docs/`, `/about.html`), so moving
//! the site to another host or scheme keeps every date.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, anyhow, bail};
use hashbrown::HashTable;

use crate::input;
use crate::scan::digest::DigestRules;
use crate::scan::{Fingerprint, Known};
pub use crate::walk::Stamp;

const MAGIC: &str = "sitemapgen-state";
const VERSION: &str = "3";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub lastmod: Option<String>,
    pub digest: blake3::Hash,
    /// None when the file might still change within its timestamps' resolution, as git
    /// does for "racily clean" files: it is read again next time.
    pub stamp: Option<Stamp>,
    /// How many runs in a row, the one that wrote it included, re-dated the page.
    pub streak: u32,
    /// The fingerprint of the page's bytes, when it was read whole.
    pub fingerprint: Option<Fingerprint>,
}

impl Stamp {
    fn parse(text: &str) -> Result<Stamp> {
        let ([size, mtime, ctime, inode], 4) = fields(text, ':') else {
            bail!("bad stamp {text:?}");
        };
        Ok(Stamp {
            size: size.parse().context("bad size")?,
            mtime: nanoseconds(mtime).context("bad mtime")?,
            ctime: nanoseconds(ctime).context("bad ctime")?,
            inode: inode.parse().context("bad inode")?,
        })
    }
}

/// The state read at the start of a run, compact (a first run at a million URLs keeps it
/// in memory with the pages' dates being made): its records sorted by a hash of their key,
/// the keys in one buffer, each date once.
#[derive(Debug, Default)]
pub struct OldState {
    records: Vec<Old>,
    /// For each value of a hash's top bits (`64 - shift` of them, about as many values as
    /// records), where its records begin in `records`, and then where the last ends: a
    /// lookup reads a record or two, not the twenty of a binary search (each a cache miss
    /// in a large state). Empty until `finish`.
    starts: Vec<u32>,
    shift: u32,
    keys: String,
    dates: Vec<Box<str>>,
    /// Whether the digests were made with today's rules and so can be compared.
    pub comparable: bool,
}

#[derive(Debug)]
struct Old {
    hash: u64,
    key_at: usize,
    key_len: u32,
    /// In `dates`; `NO_DATE` for none.
    lastmod: u32,
    /// Taken by a page of this run (`OldState::take`): atomic, so that the state can be
    /// read on the threads that prepare pages while the run takes its records.
    taken: AtomicBool,
    stamped: bool,
    /// Meaningful when `stamped`.
    stamp: Stamp,
    streak: u32,
    /// Meaningful when `fingerprinted`.
    fingerprint: Fingerprint,
    fingerprinted: bool,
    digest: [u8; 32],
}

impl Old {
    fn taken(&self) -> bool {
        self.taken.load(Ordering::Relaxed)
    }
}

const NO_DATE: u32 = u32::MAX;

/// What `OldState::take` finds for a key.
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// The state has no record of it.
    Unknown,
    /// Another page of this run took its record.
    Again,
    Record(Record),
}

fn key_hash(key: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    key.hash(&mut hasher);
    hasher.finish()
}

impl OldState {
    /// A state with no records, comparable: a first run's.
    pub fn empty() -> OldState {
        OldState {
            comparable: true,
            ..OldState::default()
        }
    }

    fn find(&self, key: &str) -> Option<usize> {
        let hash = key_hash(key);
        let bucket = usize::try_from(hash >> self.shift).ok()?;
        let (&from, &to) = (self.starts.get(bucket)?, self.starts.get(bucket + 1)?);
        (from as usize..to as usize).find(|&i| {
            let old = &self.records[i];
            old.hash == hash && self.key(old) == key
        })
    }

    fn key(&self, old: &Old) -> &str {
        &self.keys[old.key_at..old.key_at + old.key_len as usize]
    }

    fn record(&self, old: &Old) -> Record {
        Record {
            lastmod: self.dates.get(old.lastmod as usize).map(|d| d.to_string()),
            digest: blake3::Hash::from_bytes(old.digest),
            stamp: old.stamped.then_some(old.stamp),
            streak: old.streak,
            fingerprint: old.fingerprinted.then_some(old.fingerprint),
        }
    }

    /// None if the state has no record of `key`; else the stamp recorded for it, if any,
    /// and its fingerprint with its digest, if it has one.
    pub fn seen(&self, key: &str) -> Option<(Option<Stamp>, Option<Known>)> {
        let old = &self.records[self.find(key)?];
        let known = old.fingerprinted.then(|| Known {
            fingerprint: old.fingerprint,
            digest: blake3::Hash::from_bytes(old.digest),
        });
        Some((old.stamped.then_some(old.stamp), known))
    }

    /// The record of `key`, once: a page of this run takes it.
    pub fn take(&self, key: &str) -> Take {
        let Some(i) = self.find(key) else {
            return Take::Unknown;
        };
        let old = &self.records[i];
        if old.taken.swap(true, Ordering::Relaxed) {
            return Take::Again;
        }
        Take::Record(self.record(old))
    }

    /// The records no page of this run took: the removed pages.
    pub fn untaken(&self) -> usize {
        self.records.iter().filter(|old| !old.taken()).count()
    }

    /// The keys of the records no page took (the removed pages), in their order.
    pub fn untaken_keys(&self) -> Vec<String> {
        let mut keys: Vec<String> = self
            .records
            .iter()
            .filter(|old| !old.taken())
            .map(|old| self.key(old).to_string())
            .collect();
        keys.sort_unstable();
        keys
    }

    /// A state of a published sitemap's URLs (key → lastmod) and no digests: every date is
    /// kept once (it is not `comparable`), and the digests recorded anew.
    pub fn adopted(urls: std::collections::BTreeMap<String, Option<String>>) -> Result<OldState> {
        let mut state = OldState::default();
        let mut seen = Seen::default();
        for (key, lastmod) in urls {
            let record = Parsed {
                lastmod: lastmod.as_deref(),
                digest: blake3::Hash::from_bytes([0; 32]),
                stamp: None,
                streak: 0,
                fingerprint: None,
            };
            state.push(&key, record, &mut seen)?;
        }
        state.finish();
        Ok(state)
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Every record, in no particular order.
    pub fn records(&self) -> impl Iterator<Item = (&str, Record)> {
        self.records
            .iter()
            .map(|old| (self.key(old), self.record(old)))
    }

    /// Adds a record while the state is read, refusing a key given before (as it is read,
    /// so that a state repeating one record is not held whole first): `finish` must follow.
    /// `seen` holds the records pushed, `dates` the dates in `self.dates` and where.
    fn push(&mut self, key: &str, record: Parsed, seen: &mut Seen) -> Result<()> {
        let hash = key_hash(key);
        let OldState { records, keys, .. } = &*self;
        let entry = seen.keys.entry(
            hash,
            |&i| {
                let old = &records[i as usize];
                &keys[old.key_at..old.key_at + old.key_len as usize] == key
            },
            |&i| records[i as usize].hash,
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(_) => bail!("it repeats the URL /{key}"),
            hashbrown::hash_table::Entry::Vacant(place) => {
                place.insert(records.len() as u32);
            }
        }
        let dates = &mut seen.dates;
        let lastmod = match record.lastmod {
            None => NO_DATE,
            Some(date) => match dates.get(date) {
                Some(&at) => at,
                None => {
                    let at = self.dates.len() as u32;
                    self.dates.push(date.into());
                    dates.insert(date.into(), at);
                    at
                }
            },
        };
        self.records.push(Old {
            hash,
            key_at: self.keys.len(),
            key_len: key.len() as u32,
            lastmod,
            taken: AtomicBool::new(false),
            stamped: record.stamp.is_some(),
            stamp: record.stamp.unwrap_or(Stamp {
                size: 0,
                mtime: 0,
                ctime: 0,
                inode: 0,
            }),
            streak: record.streak,
            fingerprint: record.fingerprint.unwrap_or(0),
            fingerprinted: record.fingerprint.is_some(),
            digest: *record.digest.as_bytes(),
        });
        self.keys.push_str(key);
        Ok(())
    }

    /// Sorts the records for `find`.
    fn finish(&mut self) {
        let OldState { records, keys, .. } = self;
        let key = |old: &Old| &keys[old.key_at..old.key_at + old.key_len as usize];
        records.sort_unstable_by(|a, b| a.hash.cmp(&b.hash).then_with(|| key(a).cmp(key(b))));
        records.shrink_to_fit();
        keys.shrink_to_fit();
        // At least one bit, so that the shift stays below 64.
        let bits = records.len().max(2).next_power_of_two().trailing_zeros();
        let shift = u64::BITS - bits;
        let mut starts = Vec::with_capacity((1 << bits) + 1);
        let mut at = 0;
        for bucket in 0..=1u64 << bits {
            while records
                .get(at)
                .is_some_and(|old| old.hash >> shift < bucket)
            {
                at += 1;
            }
            starts.push(at as u32);
        }
        self.starts = starts;
        self.shift = shift;
    }
}

/// What `OldState::push` remembers while a state is read.
#[derive(Default)]
struct Seen {
    /// The records pushed, by the hash of their key.
    keys: HashTable<u32>,
    /// Each date and where it is in `OldState::dates`.
    dates: HashMap<Box<str>, u32>,
}

/// Bytes read from a state file at a time (it is some 170 bytes a URL).
const READ_BUFFER: usize = 64 << 10;

/// Reads the state; `None` when the file does not exist yet (a first run). Anything else
/// that is wrong with it is an error: a silent reset would re-date every page.
pub fn read(path: &Path, rules: &DigestRules) -> Result<Option<OldState>> {
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
pub fn parse(reader: impl BufRead, rules: &DigestRules) -> Result<OldState> {
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
            bail!("it has version {other:?}; this sitemapgen reads versions 1 to {VERSION}")
        }
        None => bail!("line 1 is not a sitemapgen-state header"),
    };
    let (_, rules_line) = lines
        .next("the rules")?
        .ok_or_else(|| anyhow!("it ends after line 1"))?;
    let Some(described) = rules_line.strip_prefix("digest ") else {
        bail!("line 2 is not a digest line");
    };
    let mut state = OldState {
        comparable: described == rules.describe(),
        ..OldState::default()
    };
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

/// A record as read, its date in the line.
struct Parsed<'l> {
    lastmod: Option<&'l str>,
    digest: blake3::Hash,
    stamp: Option<Stamp>,
    streak: u32,
    fingerprint: Option<Fingerprint>,
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
        bail!("the key {key:?} does not start with /");
    };
    // A key flows into the changes file and to IndexNow: only one this tool writes.
    if !crate::url::is_page_path(url_path) {
        bail!("the key {key:?} is not a URL path sitemapgen writes");
    }
    Ok((
        url_path,
        Parsed {
            lastmod: match lastmod {
                "-" => None,
                date if dates.contains_key(date) || crate::w3c::is_w3c_date(date) => Some(date),
                _ => bail!("bad lastmod {lastmod:?}"),
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
    pub fn new(mut out: W, rules: &DigestRules) -> io::Result<Writer<W>> {
        writeln!(out, "{MAGIC} {VERSION}")?;
        writeln!(out, "digest {}", rules.describe())?;
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

    use std::io::Read;

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
    fn every_key_of_a_state_of_any_size_is_found() {
        for size in [0, 1, 2, 3, 5, 1000, 4097] {
            let urls = (0..size)
                .map(|n| (format!("p{n}.html"), None))
                .collect::<std::collections::BTreeMap<_, _>>();
            let state = OldState::adopted(urls).unwrap();
            for n in 0..size {
                let key = format!("p{n}.html");
                assert!(
                    matches!(state.take(&key), Take::Record(_)),
                    "{key} of {size}"
                );
            }
            for absent in ["", "p.html", "p-1.html", &format!("p{size}.html")] {
                assert_eq!(state.take(absent), Take::Unknown, "{absent} of {size}");
            }
            assert_eq!(state.untaken(), 0);
        }
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
