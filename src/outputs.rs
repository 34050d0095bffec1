//! The files a run writes, by name: the sitemap (or standard output), the shards beside it,
//! and what a file must be for an output to replace it.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Read};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::atomic::dir_of;

/// The namespaces of the protocol and of the extensions we write (and read back).
pub const SITEMAP_NS: &str = "http://www.sitemaps.org/schemas/sitemap/0.9";
pub const XHTML_NS: &str = "http://www.w3.org/1999/xhtml";
pub const IMAGE_NS: &str = "http://www.google.com/schemas/sitemap-image/1.1";

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
/// --gzip), STEM being the output's name without those extensions.
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
}

/// Every extension our shards may have, from this run or an earlier one.
const EXTENSIONS: &[&str] = &[".xml.gz", ".xml", ".txt.gz", ".txt"];

impl Files {
    pub fn new(path: PathBuf, target: PathBuf, format: Format, gzip: bool) -> Files {
        let dir = dir_of(&path).to_path_buf();
        let name = path.file_name().unwrap_or_default().as_bytes();
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
        Files {
            path,
            target,
            dir,
            stem,
            extension,
        }
    }

    /// Whether the output's name ends in one of the extensions of sitemaps.
    pub fn has_sitemap_extension(&self) -> bool {
        let name = self.path.file_name().unwrap_or_default().as_bytes();
        EXTENSIONS.iter().any(|ext| name.ends_with(ext.as_bytes()))
    }

    /// The file name of shard `n` (from 1).
    pub fn shard_name(&self, n: usize) -> OsString {
        let mut name = self.stem.clone();
        name.extend_from_slice(format!("-{n}{}", self.extension).as_bytes());
        OsString::from_vec(name)
    }

    /// Whether `name`, in the output's directory, is the output or a shard of it, in any of
    /// our formats (plain or gzipped, XML or text, from this run or an earlier one).
    pub fn is_ours(&self, name: &OsStr) -> bool {
        let name = name.as_bytes();
        Some(name) == self.path.file_name().map(OsStrExt::as_bytes)
            || EXTENSIONS
                .iter()
                .any(|ext| name.strip_prefix(self.stem.as_slice()) == Some(ext.as_bytes()))
            || EXTENSIONS
                .iter()
                .any(|ext| shard_number(name, &self.stem, ext).is_some())
    }

    /// Shards of this run's format numbered above `count`: left from an earlier, larger run.
    pub fn stale_shards(&self, count: usize) -> Result<Vec<PathBuf>> {
        let mut stale = Vec::new();
        let entries = fs::read_dir(&self.dir)
            .with_context(|| format!("cannot read {}", self.dir.display()))?;
        for entry in entries {
            let name = entry?.file_name();
            if shard_number(name.as_bytes(), &self.stem, self.extension).is_some_and(|n| n > count)
            {
                stale.push(self.dir.join(name));
            }
        }
        stale.sort();
        Ok(stale)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The path of shard `n` (from 1).
    pub fn shard_path(&self, n: usize) -> PathBuf {
        self.dir.join(self.shard_name(n))
    }
}

/// `n` for `STEM-n.EXT` (n a decimal without leading zeros).
fn shard_number(name: &[u8], stem: &[u8], extension: &str) -> Option<usize> {
    let digits = name
        .strip_prefix(stem)?
        .strip_prefix(b"-")?
        .strip_suffix(extension.as_bytes())?;
    if digits.is_empty() || digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// Whether the file at `path` may be replaced by a sitemap: it does not exist, is empty, or
/// is a sitemap (an XML urlset or index, gzipped or not, or a text sitemap). Anything else
/// is someone's file that a sitemap must not overwrite.
pub fn looks_like_sitemap(path: &Path) -> Result<bool> {
    let file = match File::open(path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(true),
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
    Ok(String::from_utf8_lossy(&start).trim().is_empty() || begins_sitemap(&start))
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
        let files = Files::new(path.clone(), path, Format::Xml, false);
        assert_eq!(files.shard_name(2), "sitemap-2.xml");
        assert_eq!(files.dir(), Path::new("public"));
        let gz = Files::new(
            PathBuf::from("map.xml.gz"),
            PathBuf::from("x"),
            Format::Xml,
            true,
        );
        let text = PathBuf::from("s.txt");
        assert_eq!(
            Files::new(text.clone(), text, Format::Txt, false).shard_name(1),
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
        for theirs in [
            "sitemap-0.xml",
            "sitemap-01.xml",
            "sitemap-x.xml",
            "sitemap-1.html",
            "news-1.xml",
        ] {
            assert!(!files.is_ours(OsStr::new(theirs)), "{theirs}");
        }
    }
}
