//! `--robots`: name the sitemap in DIR/robots.txt, where search engines look for it.
//!
//! robots.txt is read before anything is published, so a robots.txt that cannot be taken
//! stops the run with nothing changed; the new one is published last.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use percent_encoding::percent_decode_str;

use crate::io::atomic::{Beside, Sink, Written};
use crate::io::native;
use crate::outputs::Files;
use crate::outputs::robots::{self, Use};

/// What robots.txt must become for the sitemap's public URLs.
pub struct Plan {
    pub path: PathBuf,
    /// The new content, when it differs from the file's.
    pub new: Option<Vec<u8>>,
}

impl Plan {
    /// Puts a `Sitemap:` line for each of `urls` in DIR/robots.txt: replacing lines that name
    /// a file of ours (the output or a shard of it, in the same place at any host or scheme),
    /// never duplicating one, leaving every other byte as it was. An absent robots.txt is
    /// created allowing everything.
    pub fn new(root: &Path, urls: &[String], files: &Files) -> Result<Plan> {
        let path = root.join("robots.txt");
        let old = robots::read(&path, Use::Rewrite)?;
        let new = rewrite(old.as_deref(), urls, files);
        let new = (old.as_deref() != Some(new.as_slice())).then_some(new);
        Ok(Plan { path, new })
    }

    /// The new robots.txt in a temp file beside it, to be published once the sitemap is.
    pub fn write(&self) -> Result<Option<Written<Beside>>> {
        let Some(new) = &self.new else {
            return Ok(None);
        };
        let context = || format!("cannot write {}", self.path.display());
        let mut sink = Sink::new(Beside::of(&self.path).with_context(context)?, false);
        sink.write_all(new).with_context(context)?;
        Ok(Some(sink.finish().with_context(context)?))
    }
}

fn rewrite(old: Option<&[u8]>, urls: &[String], files: &Files) -> Vec<u8> {
    let Some(old) = old else {
        let mut new = b"User-agent: *\nAllow: /\n\n".to_vec();
        for url in urls {
            new.extend_from_slice(format!("Sitemap: {url}\n").as_bytes());
        }
        return new;
    };
    let newline: &[u8] = if old.windows(2).any(|w| w == b"\r\n") {
        b"\r\n"
    } else {
        b"\n"
    };
    // Our place: the path of the sitemap's directory in the public URLs.
    let place = urls
        .first()
        .and_then(|url| url::Url::parse(url).ok())
        .map(|url| {
            url.path()
                .rsplit_once('/')
                .map_or("", |(dir, _)| dir)
                .to_string()
        })
        .unwrap_or_default();
    let ours = |line: &[u8]| {
        let Some(url) = sitemap_url(line).and_then(|url| url::Url::parse(url).ok()) else {
            return false;
        };
        url.path().rsplit_once('/').is_some_and(|(dir, name)| {
            let name = percent_decode_str(name).collect::<Vec<u8>>();
            dir == place && url.query().is_none() && files.is_ours(native::os_str(name.as_slice()))
        })
    };
    let mut new = Vec::with_capacity(old.len() + 100);
    let mut placed = false;
    for line in old.split_inclusive(|&b| b == b'\n') {
        if !ours(line) {
            new.extend_from_slice(line);
            continue;
        }
        // Our lines go where the first of the old ones stood.
        if !placed {
            for url in urls {
                new.extend_from_slice(format!("Sitemap: {url}").as_bytes());
                new.extend_from_slice(newline);
            }
            placed = true;
        }
    }
    if !placed {
        if !new.is_empty() && !new.ends_with(b"\n") {
            new.extend_from_slice(newline);
        }
        for url in urls {
            new.extend_from_slice(format!("Sitemap: {url}").as_bytes());
            new.extend_from_slice(newline);
        }
    }
    new
}

/// The URL of a `Sitemap:` line (the field name in any case).
fn sitemap_url(line: &[u8]) -> Option<&str> {
    let line = std::str::from_utf8(line).ok()?.trim();
    let (field, value) = line.split_once(':')?;
    field
        .trim()
        .eq_ignore_ascii_case("sitemap")
        .then(|| value.trim())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn rewrite_str(old: Option<&str>, urls: &[&str]) -> String {
        let path = PathBuf::from("site/sitemap.xml");
        let files = Files::new(
            path.clone(),
            path,
            (crate::outputs::Format::Xml, false),
            &[],
            false,
        );
        let urls: Vec<String> = urls.iter().map(|u| u.to_string()).collect();
        String::from_utf8(rewrite(old.map(str::as_bytes), &urls, &files)).unwrap()
    }

    const URL: &str = "https://example.com/sitemap.xml";

    #[test]
    fn robots_txt_cases() {
        assert_eq!(
            rewrite_str(None, &[URL]),
            "User-agent: *\nAllow: /\n\nSitemap: https://example.com/sitemap.xml\n"
        );
        assert_eq!(
            rewrite_str(Some("User-agent: *\nDisallow: /x"), &[URL]),
            "User-agent: *\nDisallow: /x\nSitemap: https://example.com/sitemap.xml\n"
        );
        let old = "sitemap: http://old.example.com/sitemap.xml\r\nUser-agent: *\r\nSitemap: https://example.com/news.xml\r\nSitemap: https://example.com/sitemap-2.xml\r\n";
        assert_eq!(
            rewrite_str(Some(old), &[URL]),
            "Sitemap: https://example.com/sitemap.xml\r\nUser-agent: *\r\nSitemap: https://example.com/news.xml\r\n"
        );
        let current = "User-agent: *\nSitemap: https://example.com/sitemap.xml\n";
        assert_eq!(rewrite_str(Some(current), &[URL]), current);
        // Another sitemap whose URL only ends like ours is someone else's.
        let foreign = "Sitemap: https://example.com/blog/sitemap.xml\n";
        assert_eq!(
            rewrite_str(Some(foreign), &[URL]),
            format!("{foreign}Sitemap: {URL}\n")
        );
    }
}
