//! `--add-urls FILE`: URLs the build folder does not hold (an app's routes, a search page
//! served by another service), listed with the pages. FILE is a text file, a URL a line with
//! an optional W3C date after a space (blank lines and lines starting with `#` are skipped),
//! or a sitemap (XML, gzipped or not) whose `<url>` entries are taken with their `<lastmod>`:
//! told apart by content, a sitemap starting with `<` (after a byte order mark and
//! whitespace).
//!
//! Each URL is checked as a page's is: under the base URL, in the one form sitemapgen writes
//! paths in, shorter than the protocol's limit. Anything else is a usage error naming the
//! file and line; a file that cannot be read is a runtime failure. The URLs are listed after
//! the pages, ordered by their path as the walk orders a site (depth first, names byte-wise),
//! so that the order depends neither on the files nor on their lines.

use std::cmp::Ordering;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use url::Url;

use crate::error::UsageError;
use crate::io::input::{self, Capped, MAX_ADDED_URLS};
use crate::outputs::read;
use crate::report::{Report, Warning, shown};
use crate::url::{BaseUrl, Given, MAX_LOC_LEN, given_url, is_page_path, normal_path, strict_url};
use crate::w3c::is_w3c_date;

/// One added URL, checked: kept small, as a file may add millions (benches/added.sh).
#[derive(Debug)]
pub struct AddedUrl {
    /// Its path under the base URL, in normal form: what a page listed at it would have.
    pub path: Box<str>,
    /// The date given with it.
    pub lastmod: Option<Box<str>>,
    /// Where it was given: its file's place among the `--add-urls` files, and the line.
    file: u32,
    line: u32,
    /// The page of the site listed at the same URL, which wins.
    pub page: Option<Box<Path>>,
}

impl AddedUrl {
    /// The URL it is listed at.
    pub fn loc(&self, base: &BaseUrl) -> String {
        base.join(&self.path)
    }
}

/// A URL as `check` takes it: its path under the base URL and the date given with it.
#[derive(Debug)]
pub struct Checked {
    pub path: String,
    pub lastmod: Option<String>,
}

/// The URLs of every `--add-urls` file, each once, in the order the walk orders a site.
#[derive(Debug, Default)]
pub struct Added {
    files: Vec<PathBuf>,
    urls: Vec<AddedUrl>,
}

/// Depth first, as the walk orders a site: a directory's URL, then what lies below it.
fn walk_order(a: &str, b: &str) -> Ordering {
    a.split('/').cmp(b.split('/'))
}

impl Added {
    /// Reads and checks the URLs of `files`, a line at a time; a URL given again is warned
    /// of and listed once, with its first date.
    pub fn read(files: &[PathBuf], base: &BaseUrl, report: &mut Report) -> Result<Added> {
        let base_url = Url::parse(&base.join("")).context("the base URL")?;
        let mut urls: Vec<AddedUrl> = Vec::new();
        for (i, file) in files.iter().enumerate() {
            each_line(file, |line, loc, date| {
                let at = format!("{}:{line}", file.display());
                let url = check(&at, loc, date, base, &base_url)?;
                urls.push(AddedUrl {
                    path: url.path.into(),
                    lastmod: url.lastmod.map(Into::into),
                    // Both fit: the files are a command line's, each line at least a byte
                    // of a file capped at MAX_ADDED_URLS.
                    file: u32::try_from(i).context("too many --add-urls files")?,
                    line: u32::try_from(line).context("too many lines")?,
                    page: None,
                });
                Ok(())
            })?;
        }
        // A stable sort: of the same URL given twice, the one given first comes first.
        urls.sort_by(|a, b| walk_order(&a.path, &b.path));
        let mut added = Added {
            files: files.to_vec(),
            urls,
        };
        let mut first = 0;
        for (i, url) in added.urls.iter().enumerate().skip(1) {
            if url.path != added.urls[first].path {
                first = i;
                continue;
            }
            report.warn(
                Warning::Duplicate,
                format_args!(
                    "{}: {} is added again (first at {})",
                    added.at(url),
                    url.loc(base),
                    added.at(&added.urls[first])
                ),
                "listing it once, with the first one's date",
            )?;
        }
        added.urls.dedup_by(|later, first| later.path == first.path);
        Ok(added)
    }

    /// Notes that the page at `rel` is listed at URL path `path`, which wins over an added
    /// URL of the same path.
    pub fn listed(&mut self, path: &str, rel: &Path) {
        if let Ok(i) = self
            .urls
            .binary_search_by(|url| walk_order(&url.path, path))
        {
            self.urls[i].page.get_or_insert_with(|| rel.into());
        }
    }

    /// `FILE:LINE` where `url` was given, for messages.
    pub fn at(&self, url: &AddedUrl) -> String {
        format!("{}:{}", self.files[url.file as usize].display(), url.line)
    }

    /// Each URL, in order, with the list it came from (which names where it was given).
    pub fn for_each(mut self, mut each: impl FnMut(&Added, AddedUrl) -> Result<()>) -> Result<()> {
        for url in std::mem::take(&mut self.urls) {
            each(&self, url)?;
        }
        Ok(())
    }
}

/// Calls `each` with every URL of `file`, its line number and its date, as written. A text
/// file is read a line at a time; a sitemap is read whole (its cap, `MAX_ADDED_URLS`).
fn each_line(
    file: &Path,
    mut each: impl FnMut(u64, &str, Option<String>) -> Result<()>,
) -> Result<()> {
    let cannot = || format!("cannot read {} (--add-urls)", file.display());
    let Some(opened) = input::open(file).with_context(cannot)? else {
        bail!("there is no file {} (--add-urls)", file.display());
    };
    let mut reader = input::decoded(
        BufReader::new(Capped::new(opened, MAX_ADDED_URLS)),
        MAX_ADDED_URLS,
    )
    .with_context(cannot)?;
    let mut line = Vec::new();
    let mut n = 0;
    let mut blank = true;
    while {
        line.clear();
        reader.read_until(b'\n', &mut line).with_context(cannot)? > 0
    } {
        n += 1;
        let at = || format!("{}:{n}", file.display());
        let bytes = match n {
            1 => line.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&line),
            _ => &line[..],
        };
        let start = bytes.trim_ascii_start();
        if blank && start.starts_with(b"<") {
            // A sitemap: it starts with `<` after blank lines only.
            let mut xml = start.to_vec();
            reader.read_to_end(&mut xml).with_context(cannot)?;
            let listed =
                read::parse_listed(&xml, &file.display()).map_err(|err| usage(err.to_string()))?;
            for url in listed {
                each(url.line + n - 1, url.loc.trim(), url.lastmod)?;
            }
            return Ok(());
        }
        blank &= start.is_empty();
        let Ok(text) = std::str::from_utf8(bytes) else {
            return Err(usage(format!("{}: the line is not UTF-8", at())));
        };
        let text = text.trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let mut fields = text.split_ascii_whitespace();
        let (Some(loc), date, None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(usage(format!("{}: {}", at(), not_a_url(text))));
        };
        each(n, loc, date.map(String::from))?;
    }
    Ok(())
}

/// Whether a line of an input file starts as an http(s) URL does: only such a line is
/// shown in a message (cut, see `report::shown`). Any other may be anything a file holds (a
/// password, a hash) and is only described.
fn starts_like_a_url(line: &str) -> bool {
    let start = line.get(..8).unwrap_or(line).to_ascii_lowercase();
    start.starts_with("http://") || start.starts_with("https://")
}

/// What a message says of `line`, a line of an input file that is not a URL.
fn not_a_url(line: &str) -> String {
    let length = crate::report::count(line.chars().count() as u64, "character");
    if starts_like_a_url(line) {
        format!(
            "\"{}\" is not a URL, optionally with a date after a space",
            shown(line)
        )
    } else {
        format!("the line is not a URL: {length}, no http:// or https:// scheme")
    }
}

/// The URL `loc`, given at `at` with `date`, checked and in the form sitemapgen writes.
pub(super) fn check(
    at: &str,
    loc: &str,
    date: Option<String>,
    base: &BaseUrl,
    base_url: &Url,
) -> Result<Checked> {
    if !starts_like_a_url(loc) {
        return Err(usage(format!("{at}: {}", not_a_url(loc))));
    }
    let url = given_url(loc, at, Given::Resource).map_err(|err| usage(err.to_string()))?;
    let date = date.map(|date| date.trim().to_string());
    if let Some(date) = date.as_deref().filter(|date| !is_w3c_date(date)) {
        return Err(usage(format!(
            "{at}: \"{}\" is not a W3C date (2024-05-01) or datetime with seconds and zone \
             (2024-05-01T10:00:00+02:00)",
            shown(date)
        )));
    }
    // Only a URL refused is shown.
    let loc = || shown(loc);
    if url.query().is_some() || url.fragment().is_some() {
        return Err(usage(format!(
            "{at}: {} has a query or a fragment; a sitemap lists pages by their path",
            loc()
        )));
    }
    let strict = strict_url(&url);
    let path = normal_path(&strict[url[..url::Position::BeforePath].len()..]);
    let under =
        url.origin() == base_url.origin() && url.username().is_empty() && url.password().is_none();
    let Some(rel) = path.strip_prefix(base.path()).filter(|_| under) else {
        return Err(usage(format!(
            "{at}: {} is outside the base URL {}\nhint: a sitemap lists only URLs under \
             its base URL (--base-url)",
            loc(),
            base.join("")
        )));
    };
    if !is_page_path(rel) {
        return Err(usage(format!("{at}: {} has an empty path segment", loc())));
    }
    let listed = base.join(rel);
    if listed.len() >= MAX_LOC_LEN {
        return Err(usage(format!(
            "{at}: the URL has {} characters, the limit is {}",
            listed.len(),
            MAX_LOC_LEN - 1
        )));
    }
    Ok(Checked {
        path: rel.to_string(),
        lastmod: date,
    })
}

fn usage(message: String) -> anyhow::Error {
    UsageError(message).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Verbosity;

    fn read(text: &str) -> Result<Vec<(String, Option<String>)>> {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("urls.txt");
        std::fs::write(&file, text).unwrap();
        let base = BaseUrl::parse("https://example.com/docs/").unwrap();
        let mut report = Report::new(Verbosity::Quiet, false);
        let added = Added::read(&[file], &base, &mut report)?;
        let mut urls = Vec::new();
        added.for_each(|_, url| {
            urls.push((url.loc(&base), url.lastmod.map(String::from)));
            Ok(())
        })?;
        Ok(urls)
    }

    #[test]
    fn urls_are_normalised_like_pages_and_ordered_depth_first() {
        let urls = read(
            "\u{feff}# routes\n\nhttps://EXAMPLE.com:443/docs/app/x%7e  2024-05-01\r\n\
             https://example.com/docs/app-x\n  https://example.com/docs/app/\n\
             https://example.com/docs/caf\u{e9}/../app/%c3%a9 2024-05-01T10:00:00Z\n",
        )
        .unwrap();
        assert_eq!(
            urls,
            [
                ("https://example.com/docs/app/".into(), None),
                (
                    "https://example.com/docs/app/%C3%A9".into(),
                    Some("2024-05-01T10:00:00Z".into())
                ),
                (
                    "https://example.com/docs/app/x~".into(),
                    Some("2024-05-01".into())
                ),
                ("https://example.com/docs/app-x".into(), None),
            ]
        );
    }

    #[test]
    fn what_is_no_url_under_the_base_is_refused_naming_its_line() {
        for (text, error) in [
            (
                "https://example.com/docs/a\nnot a url\n",
                "urls.txt:2: the line is not a URL: 9 characters, no http:// or https://",
            ),
            (
                "https://example.com/docs/a 2024-13-01",
                "urls.txt:1: \"2024-13-01\" is not a W3C",
            ),
            (
                "https://example.com/docs",
                "urls.txt:1: https://example.com/docs is outside",
            ),
            ("http://example.com/docs/a", "is outside the base URL"),
            ("https://example.com:8443/docs/a", "is outside the base URL"),
            ("https://u@example.com/docs/a", "is outside the base URL"),
            (
                "https://example.com/docs/a?q=1",
                "has a query or a fragment",
            ),
            (
                "https://example.com/docs/a#top",
                "has a query or a fragment",
            ),
            ("https://example.com/docs/a//b", "has an empty path segment"),
            (
                "/docs/a",
                "urls.txt:1: the line is not a URL: 7 characters, no http",
            ),
            (
                "root:*:20228:0:99999:7:::",
                "the line is not a URL: 25 characters",
            ),
            (
                "https://example.com/docs/\u{1b}[2J",
                "holds whitespace, a control character",
            ),
        ] {
            let err = read(text).unwrap_err();
            assert!(err.is::<UsageError>(), "{text}: {err}");
            assert!(err.to_string().contains(error), "{text}: {err}");
        }
    }

    proptest::proptest! {
        /// Whatever a line holds, it is refused or listed as a URL under the base URL in
        /// normal form, and nothing panics.
        #[test]
        fn any_line_is_refused_or_a_normal_url_under_the_base(
            loc in "(https?://|//|/|[Ee]xample\\.com|:443|:8|docs|/\\.\\.|%|%2F|%c3%a9|\u{e9}|[a?#@ \t]|\u{0})*",
            date in proptest::option::of("[0-9T:+Z-]{0,25}"),
        ) {
            let base = BaseUrl::parse("https://example.com/docs/").unwrap();
            let base_url = Url::parse(&base.join("")).unwrap();
            if let Ok(url) = check("f:1", &loc, date, &base, &base_url) {
                proptest::prop_assert!(is_page_path(&url.path), "{:?}", url.path);
                proptest::prop_assert!(base.join(&url.path).len() < MAX_LOC_LEN);
            }
        }
    }
}
