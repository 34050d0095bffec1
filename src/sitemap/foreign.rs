//! The sitemaps of others that the index lists after ours, each dated by the newest
//! `<lastmod>` in it: the sub-builds' (`--sub-builds`) and those `--index-add` names.
//!
//! A sub-build's sitemap is vouched for: one that cannot be read whole, lists a URL outside
//! its folder or a date that is not W3C, or whose start page says noindex or names a
//! canonical URL outside the folder, is reported and left out (its pages are not listed
//! either: they are that build's). One of `--index-add` is the user's choice: it is always
//! listed, without a date when it cannot be read. Either is read within the bounds the
//! previous-sitemap reader has: `MAX_SITEMAP` a file, `MAX_SITEMAPS` a sitemap with its
//! index's sitemaps, `--http-timeout` for the whole of one fetched.

use std::fmt::Display;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use time::OffsetDateTime;
use url::Url;

use crate::entry::{Entry, SubBuild};
use crate::io::http::{Client, Got};
use crate::io::input::{self, Deadline, MAX_SITEMAP, MAX_SITEMAPS};
use crate::io::native;
use crate::outputs::{begins_sitemap, read};
use crate::report::{Report, Warning};
use crate::url::{BaseUrl, encode_path};
use crate::w3c;

/// What the foreign sitemaps are, and where to find them.
#[derive(Debug)]
pub struct Settings {
    /// DIR.
    pub root: PathBuf,
    /// DIR's public URL.
    pub base: BaseUrl,
    pub sub_builds: Vec<SubBuild>,
    /// What finding them found wrong (`walk::builds::Found::problems`), to be reported.
    pub problems: Vec<String>,
    /// `--index-add`'s URLs.
    pub index_add: Vec<String>,
    pub timeout: Duration,
}

/// What a sub-build's start page says in its head that decides whether the build is listed.
pub struct StartPage {
    pub noindex: bool,
    /// The canonical URLs it names, as written.
    pub canonicals: Vec<String>,
}

/// Reads a start page's head from its file, as a page's head is read (the run hands in the
/// scan's reader).
pub type ReadHead = dyn Fn(File) -> io::Result<StartPage>;

/// The index's entries for the foreign sitemaps: each sub-build's that holds, in folder
/// order, then each of `--index-add`. `head` reads a sub-build's start page.
pub fn entries(settings: &Settings, head: &ReadHead, report: &mut Report) -> Result<Vec<Entry>> {
    let mut entries = Vec::new();
    for problem in &settings.problems {
        report.warn(Warning::Run, problem, "see doc/outputs.md: \"Sub-builds\"")?;
    }
    let base = &settings.base;
    for build in &settings.sub_builds {
        let folder = base.join(&format!("{}/", encode_path(&build.rel)));
        let loc = format!("{folder}{}", build.sitemap);
        let dir = settings.root.join(&build.rel);
        match sub_build(&dir, build.sitemap, &folder, head) {
            Ok(lastmod) => entries.push(Entry {
                loc,
                lastmod,
                ..Entry::default()
            }),
            Err(err) => report.warn(
                Warning::Run,
                format_args!("sub-build {}/: {err:#}", build.rel.display()),
                "left out of the index, and its pages with it",
            )?,
        }
    }
    let client = Client::new(settings.timeout);
    for loc in &settings.index_add {
        let lastmod = match added(settings, base, loc, &client) {
            Ok(newest) => newest,
            Err(err) => {
                report.warn(
                    Warning::Run,
                    format_args!("cannot date --index-add {loc}: {err:#}"),
                    "listed without a <lastmod>",
                )?;
                None
            }
        };
        entries.push(Entry {
            loc: loc.clone(),
            lastmod,
            ..Entry::default()
        });
    }
    Ok(entries)
}

/// The newest date of the sub-build in `dir` (public URL `folder`) whose sitemap is `name`.
fn sub_build(dir: &Path, name: &str, folder: &str, head: &ReadHead) -> Result<Option<String>> {
    let path = dir.join(name);
    let mut reading = Reading::new(None);
    let bytes = file(&path)?.with_context(|| format!("{} is gone", path.display()))?;
    let newest = reading.newest(bytes, &path.display(), Some(folder), |loc| {
        let rel = under(loc, folder).with_context(|| {
            format!(
                "the index {} lists {loc}, outside the folder",
                path.display()
            )
        })?;
        let child = dir.join(&rel);
        file(&child)?.with_context(|| {
            format!(
                "the index {} lists {loc}, and there is no {}",
                path.display(),
                child.display()
            )
        })
    })?;
    if reading.urls == 0 {
        bail!("{} lists no URL", path.display());
    }
    start_page(dir, folder, head)?;
    Ok(newest)
}

/// A build that its own start page (`index.html`) keeps out of search engines, or points
/// to another's pages, is not one to list.
fn start_page(dir: &Path, folder: &str, head: &ReadHead) -> Result<()> {
    let path = dir.join("index.html");
    let read = || format!("cannot read {}", path.display());
    let Some(file) = input::open(&path).with_context(read)? else {
        return Ok(());
    };
    let head = head(file).with_context(read)?;
    if head.noindex {
        bail!("its start page {} says noindex", path.display());
    }
    let at = Url::parse(folder).with_context(|| format!("{folder} is not a URL"))?;
    for canonical in &head.canonicals {
        let points = at.join(canonical).map(String::from);
        if !points.as_deref().is_ok_and(|url| url.starts_with(folder)) {
            bail!(
                "its start page {} names the canonical URL {canonical}, outside {folder}",
                path.display()
            );
        }
    }
    Ok(())
}

/// The newest date of the sitemap `--index-add` names at `loc`: the file at its place in
/// DIR when there is one, else fetched.
fn added(
    settings: &Settings,
    base: &BaseUrl,
    loc: &str,
    client: &Client,
) -> Result<Option<String>> {
    let deadline = Deadline::after(settings.timeout, "--http-timeout");
    let mut reading = Reading::new(Some(&deadline));
    if let Some(rel) = under(loc, &base.join(""))
        && let Some(bytes) = file(&settings.root.join(&rel))?
    {
        let path = settings.root.join(&rel);
        let dir = crate::io::atomic::dir_of(&path).to_path_buf();
        let index_dir = loc.rsplit_once('/').map_or(loc, |(dir, _)| dir).to_string() + "/";
        return reading.newest(bytes, &path.display(), None, |shard| {
            let rel = under(shard, &index_dir).with_context(|| {
                format!(
                    "the index {} lists {shard}, outside its directory",
                    path.display()
                )
            })?;
            file(&dir.join(&rel))?.with_context(|| {
                format!(
                    "the index {} lists {shard}, which is missing",
                    path.display()
                )
            })
        });
    }
    let url = Url::parse(loc).with_context(|| format!("{loc} is not a URL"))?;
    let first = fetch(client, &url, Some(&deadline))?;
    reading.newest(first, &url, None, |shard| {
        let shard =
            Url::parse(shard).with_context(|| format!("the index {url} lists {shard:?}"))?;
        if shard.origin() != url.origin() {
            bail!("the index {url} lists {shard}, on another origin");
        }
        fetch(client, &shard, Some(&deadline))
    })
}

fn fetch(client: &Client, url: &Url, deadline: Option<&Deadline>) -> Result<Vec<u8>> {
    match client.get(url, MAX_SITEMAP, deadline)? {
        Got::Found(mut body, _) => {
            let mut bytes = Vec::new();
            body.read_to_end(&mut bytes)
                .with_context(|| format!("cannot read {url}"))?;
            Ok(bytes)
        }
        Got::Missing(status) => bail!("there is none at {url} ({status})"),
    }
}

/// The file at `path` if it is a regular file, within `MAX_SITEMAP`.
fn file(path: &Path) -> Result<Option<Vec<u8>>> {
    input::read_file(path, MAX_SITEMAP).with_context(|| format!("cannot read {}", path.display()))
}

/// The path below `dir_url` that `loc` names, decoded; None when it lies outside, names the
/// directory itself, or has a query or a `..`.
fn under(loc: &str, dir_url: &str) -> Option<PathBuf> {
    let rest = loc.strip_prefix(dir_url)?;
    if rest.is_empty() || rest.contains(['?', '#']) {
        return None;
    }
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(rest).collect();
    let rel = PathBuf::from(native::os_string(bytes));
    rel.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then_some(rel)
}

/// One foreign sitemap read: its URLs counted, the bytes left.
struct Reading<'d> {
    deadline: Option<&'d Deadline>,
    left: u64,
    urls: u64,
}

impl<'d> Reading<'d> {
    fn new(deadline: Option<&'d Deadline>) -> Reading<'d> {
        Reading {
            deadline,
            left: MAX_SITEMAPS,
            urls: 0,
        }
    }

    /// The newest `<lastmod>` of the sitemap in `first` (`what`), an index followed through
    /// `shard` to its sitemaps; every URL under `inside` when it is given.
    fn newest(
        &mut self,
        first: Vec<u8>,
        what: &dyn Display,
        inside: Option<&str>,
        mut shard: impl FnMut(&str) -> Result<Vec<u8>>,
    ) -> Result<Option<String>> {
        let mut newest: Option<(OffsetDateTime, String)> = None;
        let shards = self.urls(first, what, inside, &mut newest)?;
        for loc in shards {
            let bytes = shard(&loc)?;
            if !self.urls(bytes, &loc, inside, &mut newest)?.is_empty() {
                bail!("the index {what} lists {loc}, another index: an index lists only sitemaps");
            }
        }
        Ok(newest.map(|(_, date)| date))
    }

    /// Reads the URLs of one document into `newest`; the locs of an index's sitemaps.
    fn urls(
        &mut self,
        bytes: Vec<u8>,
        what: &dyn Display,
        inside: Option<&str>,
        newest: &mut Option<(OffsetDateTime, String)>,
    ) -> Result<Vec<String>> {
        self.left = self.left.checked_sub(bytes.len() as u64).with_context(|| {
            format!(
                "{what} and its sitemaps hold more than {}",
                input::size(MAX_SITEMAPS)
            )
        })?;
        let bytes = read::plain(bytes, what)?;
        if !begins_sitemap(&bytes) || !bytes.trim_ascii_start().starts_with(b"<") {
            bail!("{what} is not an XML sitemap (a urlset or an index)");
        }
        let mut wrong = None;
        let shards = read::each_url(&bytes, what, self.deadline, |loc, lastmod| {
            self.urls += 1;
            if wrong.is_some() {
                return;
            }
            if let Some(folder) = inside
                && !loc.starts_with(folder)
            {
                wrong = Some(format!("{what} lists {loc}, outside {folder}"));
                return;
            }
            let Some(date) = lastmod else { return };
            match w3c::instant(&date).filter(|_| w3c::is_w3c_date(&date)) {
                Some(instant) if newest.as_ref().is_none_or(|(n, _)| instant > *n) => {
                    *newest = Some((instant, date));
                }
                Some(_) => {}
                None => {
                    wrong = Some(format!(
                        "{what} gives {loc} the date {date:?}, not a W3C date"
                    ))
                }
            }
        })?;
        if let Some(wrong) = wrong {
            bail!("{wrong}");
        }
        if let Some(folder) = inside
            && let Some(loc) = shards.iter().find(|loc| !loc.starts_with(folder))
        {
            bail!("{what} lists {loc}, outside {folder}");
        }
        Ok(shards)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_loc_names_a_file_below_a_directory_or_nothing() {
        let dir = "https://example.com/1.0/";
        assert_eq!(
            under("https://example.com/1.0/a/s.xml", dir),
            Some("a/s.xml".into())
        );
        assert_eq!(
            under("https://example.com/1.0/a%20b.xml", dir),
            Some("a b.xml".into())
        );
        for outside in [
            "https://example.com/1.0/",
            "https://example.com/2.0/s.xml",
            "https://example.com/1.0/../2.0/s.xml",
            "https://example.com/1.0/%2e%2e/s.xml",
            "https://example.com/1.0/s.xml?x=1",
        ] {
            assert_eq!(under(outside, dir), None, "{outside}");
        }
    }
}
