//! `--robots`: name the sitemap in DIR/robots.txt, where search engines look for it.

use std::fs;
use std::io::{self, Write};

use anyhow::{Context, Result};

use crate::config::Config;
use crate::output::{Destination, Files, Sink};

/// Puts a `Sitemap:` line for each of `urls` in DIR/robots.txt: replacing lines that name a
/// file of ours (the output or a shard of it, at any host), never duplicating one, leaving
/// every other byte as it was. An absent robots.txt is created allowing everything.
pub fn update(config: &Config, urls: &[String]) -> Result<()> {
    let path = config.root.join("robots.txt");
    let old = match fs::read(&path) {
        Ok(old) => Some(old),
        Err(err) if err.kind() == io::ErrorKind::NotFound => None,
        Err(err) => return Err(err).with_context(|| format!("cannot read {}", path.display())),
    };
    let Destination::File(files) = &config.destination else {
        unreachable!("--robots needs a file output");
    };
    let new = rewrite(old.as_deref(), urls, files);
    if old.as_deref() == Some(new.as_slice()) {
        return Ok(());
    }
    let context = || format!("cannot write {}", path.display());
    let target = Destination::File(Files::new(path.clone(), false, false));
    let mut sink = Sink::open(&target, false, false).with_context(context)?;
    sink.write_all(&new).with_context(context)?;
    sink.finish().with_context(context)?.publish_at(&path)
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
    let ours = |line: &[u8]| {
        sitemap_url(line).is_some_and(|url| {
            let name = url.rsplit('/').next().unwrap_or_default();
            files.is_ours(std::ffi::OsStr::new(name))
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
        let files = Files::new(PathBuf::from("site/sitemap.xml"), false, false);
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
    }
}
