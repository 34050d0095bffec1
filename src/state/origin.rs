//! Where a run finds what the last one recorded: the state file; when there is none, the
//! state the last deploy published (`--state-url`); when there is none either, the dates
//! of the sitemap published before (`--previous-sitemap`), so that a site adopting
//! sitemapgen, or one that lost its state, keeps its dates; else nothing, a first run.
//!
//! Only "there is none" (no file, 404 or 410) moves on to the next place. Anything else
//! (a refused connection, a timeout, a 5xx, a body that is not what it should be, a
//! redirect to another host) stops the run: a silent first run would re-date every page.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use url::Url;

use super::file as state;
use super::old::OldState;
use super::{Found, Settings};
use crate::io::http::{Client, Got, Unreachable};
use crate::io::input::{self, Capped, Deadline, MAX_SITEMAP, MAX_SITEMAPS, MAX_STATE_BODY};
use crate::outputs;
use crate::outputs::read::{self, Document};
use crate::report::Report;
use crate::url::{BaseUrl, Given, given_url};

/// A sitemap published before: on the live site, or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Published {
    Url(Url),
    File(PathBuf),
}

impl Published {
    /// An http(s) URL, or else a path; a URL of another scheme is refused, not taken for a
    /// path that does not exist (which would be a silent first run).
    pub fn parse(text: &str) -> Result<Published> {
        if !text.contains("://") {
            return Ok(Published::File(text.into()));
        }
        match Url::parse(text) {
            Ok(url) if !matches!(url.scheme(), "http" | "https") => bail!(
                "--previous-sitemap {text:?} is a {}: URL, which sitemapgen does not fetch (an \
                 http or https URL, or a file by its path)",
                url.scheme()
            ),
            _ => given_url(text, "--previous-sitemap", Given::Resource).map(Published::Url),
        }
    }
}

impl fmt::Display for Published {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Published::Url(url) => write!(f, "{url}"),
            Published::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The state of the last run, from the first place that has one, told in one note.
pub fn find(settings: &Settings, base: &BaseUrl, report: &mut Report) -> Result<Found> {
    let rules = &settings.rules;
    let found = |state| Found {
        state: Arc::new(state),
        adopted: false,
    };
    let path = settings.path.display();
    if let Some(state) = state::read(&settings.path, rules).map_err(|err| {
        hinted(
            err,
            &format!("remove {path} to start anew, or drop --state to go without a state"),
        )
    })? {
        return Ok(found(state));
    }
    let client = Client::new(settings.timeout);
    // Where there was nothing, for the note of a first run.
    let mut none = Vec::new();
    if let Some(url) = &settings.url {
        match fetch_state(url, &client, rules) {
            Ok(Fetched::Got(state)) => {
                report.note(format!(
                    "state file {path} does not exist: read the state published at {url}"
                ));
                return Ok(found(state));
            }
            Ok(Fetched::Absent(why)) => none.push(format!("no state at {url} ({why})")),
            Err(err) => return unreachable(err, settings.ci, "--state-url", report),
        }
    } else {
        none.push(format!("state file {path} does not exist yet"));
    }
    if let Some(published) = &settings.previous_sitemap {
        match adopt(published, &client, base, settings.timeout) {
            Ok(Fetched::Got(urls)) => {
                let count = urls.len();
                let state = OldState::adopted(urls)?;
                report.note(format!(
                    "{}: the {} URLs listed in {published} keep the dates it gives them \
                     until their content changes",
                    none.join(", "),
                    crate::report::thousands(count as u64)
                ));
                return Ok(Found {
                    state: Arc::new(state),
                    adopted: true,
                });
            }
            Ok(Fetched::Absent(why)) => none.push(format!("no sitemap at {published} ({why})")),
            Err(err) => return unreachable(err, settings.ci, "--previous-sitemap", report),
        }
    }
    report.note(format!(
        "{}: a first run, every page is new",
        none.join(", ")
    ));
    Ok(found(OldState::empty()))
}

/// What a place held: what was sought, or why there is none (a 404, an HTML page).
enum Fetched<T> {
    Got(T),
    Absent(String),
}

/// The state published at `url`. An HTML page is no state: a single-page app's host
/// answers every path with its page.
fn fetch_state(url: &Url, client: &Client, rules: &str) -> Result<Fetched<OldState>> {
    match client.get(url, MAX_STATE_BODY, None)? {
        Got::Found(body, at) => {
            let mut body = BufReader::new(body);
            let start = body
                .fill_buf()
                .with_context(|| format!("cannot fetch {at}"))?;
            if is_html(start) {
                return Ok(Fetched::Absent(HTML_PAGE.into()));
            }
            let state = state::parse(body, rules)
                .with_context(|| format!("the state published at {at} is not usable"))?;
            Ok(Fetched::Got(state))
        }
        Got::Missing(status) => Ok(Fetched::Absent(status.to_string())),
    }
}

/// Why an HTML page is taken for nothing published.
const HTML_PAGE: &str = "an HTML page, a single-page app's answer to any path";

/// Whether `start` begins an HTML page.
fn is_html(start: &[u8]) -> bool {
    let start = &start[..start.len().min(1024)];
    let text = String::from_utf8_lossy(start).to_ascii_lowercase();
    let text = text.trim_start_matches('\u{feff}').trim_start();
    text.starts_with('<') && (text.contains("<html") || text.contains("<!doctype html"))
}

/// A failure to read what was published, reading it with `flag`: a site out of this
/// machine's reach is a first run, told once, but in CI (`CI` set), where the next deploy
/// would publish every page re-dated: there, as any other failure, it stops the run, with
/// the flag that turns the reading off.
fn unreachable(err: anyhow::Error, ci: bool, flag: &str, report: &mut Report) -> Result<Found> {
    match err.downcast_ref::<Unreachable>() {
        Some(Unreachable(url, _)) if !ci => {
            report.note(format!(
                "{url} unreachable: dated from the files; drop {flag} to stop asking"
            ));
            Ok(Found {
                state: Arc::new(OldState::empty()),
                adopted: false,
            })
        }
        Some(_) => Err(hinted(
            err,
            &format!(
                "CI is set, and a first run there would re-date every page: run the job again \
                 once the site answers, or drop {flag}"
            ),
        )),
        None => Err(hinted(
            err,
            &format!("drop {flag} to go without it (every page is then dated anew)"),
        )),
    }
}

/// `err` with a hint line after its message.
fn hinted(err: anyhow::Error, hint: &str) -> anyhow::Error {
    anyhow::anyhow!("{err:#}\nhint: {hint}")
}

/// The URL paths under the base URL, with their dates, of the sitemap published at
/// `published` (its shards, if it is an index); why there is none when nothing is
/// published at its URL (a 404, or an HTML page).
/// The whole, index and shards, is read within `timeout` and `MAX_SITEMAPS` bytes.
fn adopt(
    published: &Published,
    client: &Client,
    base: &BaseUrl,
    timeout: Duration,
) -> Result<Fetched<BTreeMap<String, Option<String>>>> {
    let mut reading = Reading {
        deadline: Deadline::after(timeout, "--http-timeout"),
        left: MAX_SITEMAPS,
        published,
    };
    let (first, from) = match published {
        Published::Url(url) => match client.get(url, MAX_SITEMAP, Some(&reading.deadline))? {
            Got::Found(body, at) => {
                let bytes = reading.bytes(body, url)?;
                if is_html(&bytes) {
                    return Ok(Fetched::Absent(HTML_PAGE.into()));
                }
                (reading.parse(bytes, url)?, From::Url(at))
            }
            Got::Missing(status) => return Ok(Fetched::Absent(status.to_string())),
        },
        // A path mistyped is no first run: that would re-date every page.
        Published::File(path) => match reading.file(path)? {
            Some(document) => (document, From::File(path)),
            None => bail!("there is no file {} (--previous-sitemap)", path.display()),
        },
    };
    let mut locs = BTreeMap::new();
    match first {
        Document::Urls(urls) => locs = urls,
        Document::Index(shards) => {
            for shard in shards {
                let document = match &from {
                    From::Url(at) => reading.shard_url(&shard, at, client)?,
                    From::File(path) => reading.shard_file(&shard, path)?,
                };
                match document {
                    Document::Urls(urls) => {
                        for (loc, lastmod) in urls {
                            locs.entry(loc).or_insert(lastmod);
                        }
                    }
                    Document::Index(_) => bail!(
                        "the sitemap index {published} lists {shard}, another index: an index \
                         lists only sitemaps"
                    ),
                }
            }
        }
    }
    let base_path = base.path();
    let mut keys = BTreeMap::new();
    for (loc, lastmod) in locs {
        // A date that is not one cannot be kept: the page is dated as a new one.
        if lastmod
            .as_deref()
            .is_some_and(|date| !crate::w3c::is_w3c_date(date))
        {
            continue;
        }
        // In the one form sitemapgen writes paths in (`%7e` is `~`), and only a path it
        // could write: a key flows into the changes file and to IndexNow.
        if let Some(key) = key_of(&loc, base_path).map(crate::url::normal_path)
            && crate::url::is_page_path(&key)
        {
            keys.entry(key).or_insert(lastmod);
        }
    }
    Ok(Fetched::Got(keys))
}

/// Where a sitemap index came from, and so where its shards are.
enum From<'p> {
    /// The URL it was fetched from, after redirects.
    Url(Url),
    File(&'p Path),
}

/// The state key of a published loc: its path under the base URL's path, whatever its
/// scheme and host (a site that moved keeps its dates); None for a loc outside it or with
/// a query.
fn key_of<'l>(loc: &'l str, base_path: &str) -> Option<&'l str> {
    let (_, rest) = loc.split_once("://")?;
    let path = &rest[rest.find('/')?..];
    let path = path.split_once('#').map_or(path, |(path, _)| path);
    if path.contains('?') {
        return None;
    }
    path.strip_prefix(base_path)
}

/// The reading of a published sitemap, index and shards: the time and bytes left.
struct Reading<'p> {
    deadline: Deadline,
    left: u64,
    published: &'p Published,
}

impl Reading<'_> {
    /// The shard an index fetched from `at` lists at `loc`, fetched from where the index
    /// came from: the index names the live site, which a CI job may reach at another
    /// address.
    fn shard_url(&mut self, loc: &str, at: &Url, client: &Client) -> Result<Document> {
        let named = Url::parse(loc).with_context(|| format!("the index {at} lists {loc:?}"))?;
        let mut url = at.clone();
        url.set_path(named.path());
        url.set_query(named.query());
        match client.get(&url, MAX_SITEMAP, Some(&self.deadline))? {
            Got::Found(body, _) => self.document(body, &url),
            Got::Missing(status) => {
                bail!("the index {at} lists {loc}, which is missing ({status})")
            }
        }
    }

    /// The shard a sitemap index file lists at `loc`: the file of that name beside the
    /// index.
    fn shard_file(&mut self, loc: &str, index: &Path) -> Result<Document> {
        let name = loc.rsplit('/').next().unwrap_or_default();
        let path = crate::io::atomic::dir_of(index).join(name);
        if name.is_empty() || name == "." || name == ".." {
            bail!("the index {} lists {loc}, not a file", index.display());
        }
        self.file(&path)?.with_context(|| {
            format!(
                "the index {} lists {loc}, and there is no {}",
                index.display(),
                path.display()
            )
        })
    }

    /// The sitemap in a regular file; None when there is no such file.
    fn file(&mut self, path: &Path) -> Result<Option<Document>> {
        match input::open(path) {
            Ok(Some(file)) => self.document(file, &path.display()).map(Some),
            Ok(None) => Ok(None),
            Err(err) => Err(err).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// The sitemap `reader` holds, decompressed if need be, within the limits.
    fn document(&mut self, reader: impl Read, what: &dyn fmt::Display) -> Result<Document> {
        let bytes = self.bytes(reader, what)?;
        self.parse(bytes, what)
    }

    /// The bytes `reader` holds, decompressed if need be, within the limits.
    fn bytes(&mut self, reader: impl Read, what: &dyn fmt::Display) -> Result<Vec<u8>> {
        let mut bytes = Vec::new();
        input::decoded(
            BufReader::new(Capped::new(reader, MAX_SITEMAP)),
            MAX_SITEMAP,
        )
        .and_then(|mut plain| plain.read_to_end(&mut bytes))
        // A body cut by the time of the whole says so.
        .map_err(|err| self.deadline.left().err().unwrap_or(err))
        .with_context(|| format!("cannot read the sitemap {what}"))?;
        self.left = match self.left.checked_sub(bytes.len() as u64) {
            Some(left) => left,
            None => bail!(
                "the sitemaps of {} hold more than {} together",
                self.published,
                input::size(MAX_SITEMAPS)
            ),
        };
        Ok(bytes)
    }

    /// The sitemap `bytes` hold.
    fn parse(&self, bytes: Vec<u8>, what: &dyn fmt::Display) -> Result<Document> {
        // An HTML page served for any path (a single-page app's fallback) is no sitemap
        // with no URLs: taking it for one would re-date every page.
        if !outputs::begins_sitemap(&bytes) {
            bail!("{what} is not a sitemap (an XML urlset or index, or a text sitemap)");
        }
        read::parse(bytes, what, Some(&self.deadline))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_loc_is_known_by_its_path_under_the_base() {
        assert_eq!(
            key_of("https://example.com/a/b.html", "/"),
            Some("a/b.html")
        );
        assert_eq!(key_of("http://www.example.com/", "/"), Some(""));
        assert_eq!(key_of("https://example.com/docs/a/", "/docs/"), Some("a/"));
        assert_eq!(key_of("https://example.com/a#top", "/"), Some("a"));
        assert_eq!(key_of("https://example.com/blog/a", "/docs/"), None);
        assert_eq!(key_of("https://example.com/a?page=2", "/"), None);
        assert_eq!(key_of("https://example.com", "/"), None);
        assert_eq!(key_of("not a URL", "/"), None);
        let base = |text: &str| BaseUrl::parse(text).unwrap().path().to_string();
        assert_eq!(base("https://example.com"), "/");
        assert_eq!(base("https://example.com/docs/"), "/docs/");
        assert_eq!(base("http://127.0.0.1:8080/v1/docs/"), "/v1/docs/");
    }

    #[test]
    fn a_published_sitemap_is_an_http_url_or_a_file_and_no_other_url() {
        assert!(matches!(
            Published::parse("https://example.com/sitemap.xml"),
            Ok(Published::Url(_))
        ));
        assert!(matches!(
            Published::parse("http://[::1]:80/s.xml"),
            Ok(Published::Url(_))
        ));
        for path in ["old/sitemap.xml", "./a:b.xml", "/tmp/s.xml"] {
            assert_eq!(
                Published::parse(path).unwrap(),
                Published::File(path.into())
            );
        }
        for (url, error) in [
            ("file:///etc/shadow", "is a file: URL"),
            ("ftp://example.com/sitemap.xml", "is a ftp: URL"),
            ("http://", "is not an absolute URL"),
        ] {
            let err = Published::parse(url).unwrap_err().to_string();
            assert!(err.contains(error), "{url}: {err}");
        }
    }
}
