//! `--source-dates FILE`: the date of each page's source (its last commit, as a generator's
//! plugin finds it), the first date of a page the state does not know yet (every page,
//! without --state), so that a page new to sitemapgen is dated by its source's last change,
//! not by the build.
//!
//! FILE holds a page a line: the page's file relative to DIR (`guide/index.html`), or its
//! URL under the base URL, then a tab, then a W3C date or datetime; blank lines and lines
//! starting with `#` are skipped. A line that names no page of the site is left unused (a
//! draft has a source and no page). Anything else is a usage error naming the file and line.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::io::{BufReader, Read};
use std::path::Path;

use anyhow::{Context, Result, bail};
use url::Url;

use super::added;
use crate::error::UsageError;
use crate::io::input::{self, Capped, MAX_ADDED_URLS};
use crate::url::BaseUrl;
use crate::w3c::is_w3c_date;

/// The dates of `--source-dates`, by page file and by URL path.
#[derive(Debug, Default)]
pub struct SourceDates {
    by_file: HashMap<Vec<u8>, String>,
    by_path: HashMap<String, String>,
}

impl SourceDates {
    /// The dates `file` gives; none without the flag.
    pub fn read(file: Option<&Path>, base: &BaseUrl) -> Result<SourceDates> {
        let mut dates = SourceDates::default();
        let Some(file) = file else {
            return Ok(dates);
        };
        let cannot = || format!("cannot read {} (--source-dates)", file.display());
        let Some(opened) = input::open(file).with_context(cannot)? else {
            bail!("there is no file {} (--source-dates)", file.display());
        };
        let mut bytes = Vec::new();
        Capped::new(BufReader::new(opened), MAX_ADDED_URLS)
            .read_to_end(&mut bytes)
            .with_context(cannot)?;
        let base_url = Url::parse(&base.join("")).context("the base URL")?;
        let mut seen: HashMap<(bool, Vec<u8>), usize> = HashMap::new();
        for (n, line) in bytes.split(|&byte| byte == b'\n').enumerate() {
            let at = format!("{}:{}", file.display(), n + 1);
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.trim_ascii().is_empty() || line.starts_with(b"#") {
                continue;
            }
            let fields = line.split(|&byte| byte == b'\t').collect::<Vec<_>>();
            let [page, date] = fields[..] else {
                return Err(usage(format!(
                    "{at}: not a page's file or URL, a tab and a date"
                )));
            };
            let Some(date) = std::str::from_utf8(date)
                .ok()
                .map(str::trim)
                .filter(|date| is_w3c_date(date))
            else {
                return Err(usage(format!(
                    "{at}: {:?} is not a W3C date (2024-05-01) or datetime with seconds and \
                     zone (2024-05-01T10:00:00+02:00)",
                    String::from_utf8_lossy(date)
                )));
            };
            let is_url = page.windows(3).any(|w| w == b"://");
            let key = if is_url {
                let Ok(loc) = std::str::from_utf8(page) else {
                    return Err(usage(format!("{at}: the URL is not UTF-8")));
                };
                added::check(&at, loc, None, base, &base_url)?
                    .path
                    .into_bytes()
            } else {
                let page = page.strip_prefix(b"./").unwrap_or(page);
                if page.is_empty() || page.starts_with(b"/") {
                    return Err(usage(format!(
                        "{at}: a page's file is named by its path relative to DIR"
                    )));
                }
                page.to_vec()
            };
            if let Some(first) = seen.insert((is_url, key.clone()), n + 1) {
                return Err(usage(format!(
                    "{at}: {} is given a date already on line {first}",
                    String::from_utf8_lossy(page)
                )));
            }
            let date = date.to_string();
            match is_url {
                true => dates.by_path.insert(String::from_utf8(key)?, date),
                false => dates.by_file.insert(key, date),
            };
        }
        Ok(dates)
    }

    /// The date given for the page in file `rel` (relative to DIR) listed at URL path
    /// `path` (under the base URL): its file's first, else its URL's.
    pub fn get(&self, rel: &Path, path: &str) -> Option<&str> {
        self.by_file
            .get(OsStr::as_encoded_bytes(rel.as_os_str()))
            .or_else(|| self.by_path.get(path))
            .map(String::as_str)
    }
}

fn usage(message: String) -> anyhow::Error {
    UsageError(format!("{message} (--source-dates)")).into()
}
