//! The files a run writes, by name: the sitemap (or standard output), the shards or the
//! groups' sitemaps beside it; and the one rule every file a run writes goes through
//! (`claim`).

pub mod changes;
pub mod claim;
pub mod key;
pub mod read;
pub mod robots;

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::io::atomic::dir_of;
use crate::io::native;

/// The namespaces of the protocol and of the extensions we write (and read back).
pub const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
pub const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";
pub const IMAGE_NS: &str = "http://www.google.com/schemas/sitemap-image/1.1";

/// The group of the pages that no `--group` takes.
pub const DEFAULT_GROUP: &str = "pages";

/// The comment that opens a group's sitemap: what tells a group's file that a later run no
/// longer writes from a sitemap another tool wrote beside ours, which stays.
pub const GROUP_MARK: &str = "<!-- sitemapgen group sitemap -->";

/// The sitemap's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Xml,
    /// One URL per line.
    Txt,
}

/// Where the sitemap goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Destination {
    /// A preview: the document on standard output, and no other file written.
    Stdout,
    File(Files),
}

impl Destination {
    pub fn describe(&self) -> String {
        match self {
            Destination::Stdout => "standard output".to_string(),
            Destination::File(files) => files.path.display().to_string(),
        }
    }
}

/// The files a run may write: the output itself and, when the sitemap is split, the shards
/// `STEM-1.xml`, `STEM-2.xml`, … beside it (`.txt` for text sitemaps, `.gz` added with
/// --gzip), STEM being the output's name without those extensions. With groups the output
/// is an index over each group's sitemap, `STEM-NAME.xml`, split into `STEM-NAME-1.xml`,
/// `STEM-NAME-2.xml`, … past the limits. Each file an index lists has a second name,
/// `.b` before the extension (`STEM-1.b.xml`): a run that replaces a file the index on disk
/// lists with other bytes writes it under the name that index does not list, so that the
/// index, renamed last, is the one point where the new set replaces the old.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Files {
    /// The output as named: its directory holds the shards, its name gives their names and
    /// its place in DIR their URLs.
    pub path: PathBuf,
    /// The file the output replaces: `path`, or the file a symlink there points to.
    pub target: PathBuf,
    dir: PathBuf,
    stem: Vec<u8>,
    extension: &'static str,
    /// The groups' names, the default group last; empty when the sitemap is not grouped.
    groups: Vec<String>,
    /// Names in the output's directory that `--index-add` lists: never stale.
    kept: Vec<PathBuf>,
}

/// Every extension our shards may have, from this run or an earlier one.
const EXTENSIONS: &[&str] = &[".xml.gz", ".xml", ".txt.gz", ".txt"];

impl Files {
    /// `groups` names the groups of `--group`, in order, without the default group; `grouped`
    /// makes the output an index over the groups' sitemaps even when there are none (for
    /// `--index-add`).
    pub fn new(
        path: PathBuf,
        target: PathBuf,
        (format, gzip): (Format, bool),
        groups: &[String],
        grouped: bool,
    ) -> Files {
        let dir = dir_of(&path).to_path_buf();
        let name = path.file_name().unwrap_or_default().as_encoded_bytes();
        let stem = EXTENSIONS
            .iter()
            .find_map(|ext| name.strip_suffix(ext.as_bytes()))
            .unwrap_or(name)
            .to_vec();
        let extension = match (format, gzip) {
            (Format::Xml, false) => ".xml",
            (Format::Xml, true) => ".xml.gz",
            (Format::Txt, false) => ".txt",
            (Format::Txt, true) => ".txt.gz",
        };
        let mut groups = groups.to_vec();
        if grouped || !groups.is_empty() {
            groups.push(DEFAULT_GROUP.to_string());
        }
        Files {
            path,
            target,
            dir,
            stem,
            extension,
            groups,
            kept: Vec::new(),
        }
    }

    /// Keeps the files that `added`, URLs under `dir_url` (the output directory's), name
    /// beside the output: another tool's sitemaps, which no run of ours removes.
    pub fn keep(&mut self, added: &[String], dir_url: &str) {
        for url in added {
            if let Some(name) = name_beside(url, dir_url) {
                self.kept.push(self.dir.join(name));
            }
        }
    }

    /// The groups' names, the default group last; empty when the sitemap is not grouped.
    pub fn groups(&self) -> &[String] {
        &self.groups
    }

    /// Whether the output is an index over the groups' sitemaps (`--group`, `--index-add`,
    /// `--sub-builds`), however many URLs there are.
    pub fn indexed(&self) -> bool {
        !self.groups.is_empty()
    }

    /// Whether the output's name ends in one of the extensions of sitemaps.
    pub fn has_sitemap_extension(&self) -> bool {
        let name = self.path.file_name().unwrap_or_default().as_encoded_bytes();
        EXTENSIONS.iter().any(|ext| name.ends_with(ext.as_bytes()))
    }

    /// The file name of shard `n` (from 1).
    pub fn shard_name(&self, n: usize) -> OsString {
        let mut name = self.stem.clone();
        name.extend_from_slice(format!("-{n}{}", self.extension).as_bytes());
        native::os_string(name)
    }

    /// The file name of a group's sitemap, or of its part `n` (from 1) when it is split.
    pub fn group_name(&self, group: &str, part: Option<usize>) -> OsString {
        let mut name = self.stem.clone();
        name.push(b'-');
        name.extend_from_slice(group.as_bytes());
        if let Some(n) = part {
            name.extend_from_slice(format!("-{n}").as_bytes());
        }
        name.extend_from_slice(self.extension.as_bytes());
        native::os_string(name)
    }

    /// The other name of a file an index lists: `STEM-1.b.xml` for `STEM-1.xml`, and back.
    pub fn second_name(&self, name: &OsStr) -> OsString {
        let name = name.as_encoded_bytes();
        let Some(rest) = name.strip_suffix(self.extension.as_bytes()) else {
            return name_with(name, b"");
        };
        let mut other = match rest.strip_suffix(SECOND) {
            Some(first) => first.to_vec(),
            None => name_with(rest, SECOND).into_encoded_bytes(),
        };
        other.extend_from_slice(self.extension.as_bytes());
        native::os_string(other)
    }

    /// Whether `name`, in the output's directory, is the output, a shard of it or a sitemap
    /// of this run's groups, in any of our formats (plain or gzipped, XML or text, from this
    /// run or an earlier one). Names are compared as the file system compares them
    /// (`native::case_key`: ignoring case on Windows, where `Sitemap.xml` is `sitemap.xml`).
    pub fn is_ours(&self, name: &OsStr) -> bool {
        let key = native::case_key;
        let (name, stem) = (key(name.as_encoded_bytes()), key(&self.stem));
        let (name, stem) = (name.as_ref(), stem.as_ref());
        self.path
            .file_name()
            .is_some_and(|own| key(own.as_encoded_bytes()).as_ref() == name)
            || EXTENSIONS.iter().any(|ext| {
                name.strip_prefix(stem) == Some(ext.as_bytes())
                    || shard_number(name, stem, ext).is_some()
                    || self.groups.iter().any(|group| {
                        group_part(name, stem, ext)
                            .is_some_and(|(named, _)| named == key(group.as_bytes()).as_ref())
                    })
            })
    }

    /// Whether `name`, in the output's directory, is named like a file a run of ours with
    /// this output writes, whatever its groups: the output, a shard, a group's sitemap
    /// (compared as `is_ours` compares).
    pub fn named_like_ours(&self, name: &OsStr) -> bool {
        let (key, stem) = (
            native::case_key(name.as_encoded_bytes()),
            native::case_key(&self.stem),
        );
        self.is_ours(name)
            || EXTENSIONS
                .iter()
                .any(|ext| group_part(&key, &stem, ext).is_some())
    }

    /// What an earlier run left that this one, which writes `written`, does not replace:
    /// shards of this run's format (gzipped or not, as this run: of the other compression,
    /// a run before --gzip was switched, only those that are sitemaps), and groups'
    /// sitemaps of this format that begin with our mark (a group since renamed or dropped,
    /// or an earlier grouped run's), unless `--index-add` lists them.
    pub fn stale(&self, written: &[PathBuf]) -> Result<Vec<PathBuf>> {
        let mut stale = Vec::new();
        let entries = fs::read_dir(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?;
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let path = self.dir.join(&name);
            if written.contains(&path) || self.kept.contains(&path) {
                continue;
            }
            let name = name.as_encoded_bytes();
            for extension in [self.extension, self.other_compression()] {
                let shard = shard_number(name, &self.stem, extension).is_some();
                if shard && extension == self.extension {
                    stale.push(path);
                    break;
                }
                // Read only when it is a file, not through a link: a group's file for our
                // mark, the other compression's shard for a sitemap.
                if (shard || group_part(name, &self.stem, extension).is_some())
                    && entry.file_type()?.is_file()
                    && sniff(&path)?.is_some_and(|start| {
                        if shard {
                            begins_sitemap(&start)
                        } else {
                            begins_group(&start)
                        }
                    })
                {
                    stale.push(path);
                    break;
                }
            }
        }
        stale.sort();
        Ok(stale)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// This run's extension with gzip's added or taken away.
    fn other_compression(&self) -> &'static str {
        match self.extension {
            ".xml" => ".xml.gz",
            ".xml.gz" => ".xml",
            ".txt" => ".txt.gz",
            _ => ".txt",
        }
    }

    /// The output under its name in the other compression (`sitemap.xml` beside
    /// `sitemap.xml.gz`): an earlier run's, before --gzip was switched.
    pub fn other_output(&self) -> PathBuf {
        let mut name = self.stem.clone();
        name.extend_from_slice(self.other_compression().as_bytes());
        self.dir.join(native::os_string(name))
    }

    /// The path of shard `n` (from 1).
    pub fn shard_path(&self, n: usize) -> PathBuf {
        self.dir.join(self.shard_name(n))
    }
}

/// The name of the file `url` names directly in the directory whose URL is `dir_url`
/// (decoded), if it names one there: not below it, and without a query.
pub fn name_beside(url: &str, dir_url: &str) -> Option<OsString> {
    let name = url.strip_prefix(dir_url)?;
    if name.is_empty() || name.contains(['/', '?']) {
        return None;
    }
    let name = percent_encoding::percent_decode_str(name).collect::<Vec<u8>>();
    Some(native::os_string(name))
}

/// What the second name of a file an index lists adds before the extension.
const SECOND: &[u8] = b".b";

fn name_with(name: &[u8], tail: &[u8]) -> OsString {
    native::os_string([name, tail].concat())
}

/// What lies between `STEM-` and `.EXT` (or the second name's `.b.EXT`) in `name`.
fn between<'n>(name: &'n [u8], stem: &[u8], extension: &str) -> Option<&'n [u8]> {
    let rest = name
        .strip_prefix(stem)?
        .strip_prefix(b"-")?
        .strip_suffix(extension.as_bytes())?;
    Some(rest.strip_suffix(SECOND).unwrap_or(rest))
}

/// `n` for `STEM-n.EXT` and `STEM-n.b.EXT` (n a decimal without leading zeros).
fn shard_number(name: &[u8], stem: &[u8], extension: &str) -> Option<usize> {
    let digits = between(name, stem, extension)?;
    number(digits)
}

/// `digits` as a number: a decimal without leading zeros.
fn number(digits: &[u8]) -> Option<usize> {
    if digits.is_empty() || digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The group's name and the part's number for `STEM-NAME.EXT` and `STEM-NAME-n.EXT` (and
/// their second names), NAME being a name `--group` takes.
fn group_part<'n>(
    name: &'n [u8],
    stem: &[u8],
    extension: &str,
) -> Option<(&'n [u8], Option<usize>)> {
    let rest = between(name, stem, extension)?;
    let (group, part) = match rest.iter().rposition(|&b| b == b'-') {
        Some(dash) if rest[dash + 1..].iter().all(u8::is_ascii_digit) => {
            let part = number(&rest[dash + 1..])?;
            (&rest[..dash], Some(part))
        }
        _ => (rest, None),
    };
    is_group_name(group).then_some((group, part))
}

/// A group's name: a letter, then letters, digits, `_` and `-`, at most 64 bytes, not
/// ending in `-` and digits (which would read as a part's number).
pub fn is_group_name(name: &[u8]) -> bool {
    let ends_in_number = name
        .iter()
        .rposition(|&b| b == b'-')
        .is_some_and(|dash| name[dash + 1..].iter().all(u8::is_ascii_digit));
    name.len() <= 64
        && name.first().is_some_and(u8::is_ascii_alphabetic)
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !ends_in_number
}

/// The first bytes of the file at `path`, decompressed if it is gzip; None if there is none.
fn sniff(path: &Path) -> Result<Option<Vec<u8>>> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let mut start = Vec::with_capacity(SNIFF);
    let read = || format!("cannot read {}", path.display());
    file.take(SNIFF as u64)
        .read_to_end(&mut start)
        .with_context(read)?;
    if start.starts_with(&[0x1f, 0x8b]) {
        let mut plain = Vec::with_capacity(SNIFF);
        // A gzip stream cut at SNIFF bytes reads as far as it goes, then fails: keep that.
        let _ = flate2::read::GzDecoder::new(start.as_slice())
            .take(SNIFF as u64)
            .read_to_end(&mut plain);
        start = plain;
    }
    Ok(Some(start))
}

/// Whether `start`, the first bytes of a document (uncompressed), begin a group's sitemap
/// of ours: our mark before the urlset.
fn begins_group(start: &[u8]) -> bool {
    let text = String::from_utf8_lossy(start);
    text.find(GROUP_MARK)
        .is_some_and(|mark| text.find("<urlset").is_some_and(|root| mark < root))
}

/// Whether `start`, the first bytes of a document (uncompressed), begin a sitemap: an XML
/// urlset or index, or a text sitemap.
pub fn begins_sitemap(start: &[u8]) -> bool {
    let start = &start[..start.len().min(SNIFF)];
    let text = String::from_utf8_lossy(start);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    (text.starts_with('<') && (text.contains("<urlset") || text.contains("<sitemapindex")))
        || text.starts_with("http://")
        || text.starts_with("https://")
}

/// Bytes read to tell a sitemap from another file.
const SNIFF: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_named_after_the_output() {
        let path = PathBuf::from("public/sitemap.xml");
        let files = Files::new(path.clone(), path, (Format::Xml, false), &[], false);
        assert_eq!(files.shard_name(2), "sitemap-2.xml");
        assert_eq!(files.dir(), Path::new("public"));
        let gz = Files::new(
            PathBuf::from("map.xml.gz"),
            PathBuf::from("x"),
            (Format::Xml, true),
            &[],
            false,
        );
        let text = PathBuf::from("s.txt");
        assert_eq!(
            Files::new(text.clone(), text, (Format::Txt, false), &[], false).shard_name(1),
            "s-1.txt"
        );
        assert_eq!(gz.shard_name(10), "map-10.xml.gz");
        assert_eq!(gz.dir(), Path::new("."));
        for ours in [
            "sitemap.xml",
            "sitemap.txt.gz",
            "sitemap-1.xml",
            "sitemap-12.xml.gz",
        ] {
            assert!(files.is_ours(OsStr::new(ours)), "{ours}");
        }
        assert_eq!(
            files.second_name(OsStr::new("sitemap-2.xml")),
            "sitemap-2.b.xml"
        );
        assert_eq!(
            files.second_name(OsStr::new("sitemap-2.b.xml")),
            "sitemap-2.xml"
        );
        assert_eq!(gz.second_name(OsStr::new("map-1.xml.gz")), "map-1.b.xml.gz");
        assert!(files.is_ours(OsStr::new("sitemap-3.b.xml")));
        for theirs in [
            "sitemap-0.xml",
            "sitemap-1.c.xml",
            "sitemap-1.b.b.xml",
            "sitemap-01.xml",
            "sitemap-x.xml",
            "sitemap-1.html",
            "news-1.xml",
            "sitemap-blog.xml",
        ] {
            assert!(!files.is_ours(OsStr::new(theirs)), "{theirs}");
        }
    }

    #[test]
    fn groups_sitemaps_are_named_after_the_output_and_the_group() {
        let path = PathBuf::from("public/sitemap.xml.gz");
        let groups = ["blog".to_string(), "api-v2".to_string()];
        let files = Files::new(path.clone(), path, (Format::Xml, true), &groups, false);
        assert_eq!(files.groups(), ["blog", "api-v2", DEFAULT_GROUP]);
        assert_eq!(files.group_name("blog", None), "sitemap-blog.xml.gz");
        assert_eq!(
            files.group_name("api-v2", Some(3)),
            "sitemap-api-v2-3.xml.gz"
        );
        for ours in [
            "sitemap-blog.xml.gz",
            "sitemap-blog-2.xml",
            "sitemap-api-v2.xml",
            "sitemap-pages-12.xml.gz",
        ] {
            assert!(files.is_ours(OsStr::new(ours)), "{ours}");
        }
        assert_eq!(
            files.second_name(OsStr::new("sitemap-blog.xml.gz")),
            "sitemap-blog.b.xml.gz"
        );
        for ours in ["sitemap-blog.b.xml.gz", "sitemap-api-v2-3.b.xml"] {
            assert!(files.is_ours(OsStr::new(ours)), "{ours}");
        }
        for theirs in [
            "sitemap-news.b.xml",
            "sitemap-news.xml",
            "sitemap-blog-02.xml",
            "sitemap-blog-.xml",
        ] {
            assert!(!files.is_ours(OsStr::new(theirs)), "{theirs}");
        }
        let path = PathBuf::from("sitemap.xml");
        let added_only = Files::new(path.clone(), path, (Format::Xml, false), &[], true);
        assert_eq!(added_only.groups(), [DEFAULT_GROUP]);
        assert_eq!(
            group_part(b"sitemap-a-b-7.xml", b"sitemap", ".xml"),
            Some((&b"a-b"[..], Some(7)))
        );
        assert_eq!(group_part(b"sitemap-7.xml", b"sitemap", ".xml"), None);
    }

    #[test]
    fn group_names_make_plain_file_names() {
        for good in ["blog", "API_docs", "v2-beta", "a"] {
            assert!(is_group_name(good.as_bytes()), "{good}");
        }
        let long = "a".repeat(65);
        for bad in [
            "", "2024", "-blog", "blog-2", "blog-", "blog.old", "bl/og", "bl og", "é", &long,
        ] {
            assert!(!is_group_name(bad.as_bytes()), "{bad}");
        }
    }
}
