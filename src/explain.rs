//! --explain: why one page is or is not in the sitemap. The run's own stages decide that page
//! alone, as a one-file --files-from list: the walk's rules on it and on its directories, its
//! head, robots.txt, its date against the state. The report keeps what -v would print of it
//! and where its date came from (`Report::explaining`); nothing is written. What depends on
//! the other pages is said to be unknown: whether another file has its URL (the first in the
//! walk's order is listed), and whether its alternates name it back.

use std::ffi::OsStr;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::decide::Decider;
use crate::entry::Entry;
use crate::error::reader_gone;
use crate::io::native;
use crate::report::Report;
use crate::run::Settings;
use crate::url::{BaseUrl, Mapping};
use crate::walk::{self, Walked};
use crate::{html, state};

/// The page asked about.
#[derive(Debug)]
pub struct Asked {
    /// The URL, when the page was asked for by its URL.
    pub url: Option<String>,
    /// Its file, relative to DIR.
    pub rel: PathBuf,
}

impl Asked {
    /// The page `given`: a file (from the current directory, or from DIR) or an http(s) URL
    /// under the base URL, whose file is found as the walk maps files to URLs.
    pub fn resolve(given: &OsStr, dir: &Path, base: &BaseUrl, mapping: &Mapping) -> Result<Asked> {
        let url = given
            .to_str()
            .filter(|text| text.starts_with("http://") || text.starts_with("https://"));
        Ok(match url {
            Some(url) => Asked {
                rel: by_url(url, dir, base, mapping)?,
                url: Some(url.to_string()),
            },
            None => match by_path(Path::new(given), dir) {
                Ok(rel) => Asked { rel, url: None },
                // `/about/`: no file there, but the path of a URL on the base URL's host.
                Err(err) => match given.to_str().and_then(|text| on_host(text, base)) {
                    Some(url) => Asked {
                        rel: by_url(&url, dir, base, mapping)?,
                        url: Some(url),
                    },
                    None => return Err(err),
                },
            },
        })
    }
}

/// The URL whose path on the base URL's host `text` is (`/about/`), if it is one.
fn on_host(text: &str, base: &BaseUrl) -> Option<String> {
    if !text.starts_with('/') || text.starts_with("//") {
        return None;
    }
    let url = url::Url::parse(&base.join("")).ok()?.join(text).ok()?;
    Some(url.into())
}

/// Whether DIR holds a file (or a symlink) at `rel`, not a directory.
fn is_file(dir: &Path, rel: &Path) -> bool {
    !rel.as_os_str().is_empty()
        && fs::symlink_metadata(dir.join(rel)).is_ok_and(|meta| !meta.is_dir())
}

fn by_path(path: &Path, dir: &Path) -> Result<PathBuf> {
    // public/a.html from the current directory, or a.html from DIR.
    if fs::symlink_metadata(path).is_ok()
        && let Ok(rel) = walk::inside(dir, &std::path::absolute(path)?)
        && is_file(dir, &rel)
    {
        return Ok(rel);
    }
    match walk::inside(dir, path) {
        Ok(rel) if is_file(dir, &rel) => Ok(rel),
        _ => bail!(
            "--explain {}: no such file in DIR {}",
            path.display(),
            dir.display()
        ),
    }
}

/// The file of DIR that the URL's path names: the one that maps to it, or else the first
/// the URL could be (`a` for `a`, `a.html`, `a/index.html`, …), as the walk orders them.
fn by_url(url: &str, dir: &Path, base: &BaseUrl, mapping: &Mapping) -> Result<PathBuf> {
    let url = url.split(['?', '#']).next().unwrap_or(url);
    let Some(path) = url.strip_prefix(base.join("").as_str()) else {
        bail!(
            "--explain {url} is not under the base URL {}",
            base.join("")
        );
    };
    let decoded: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    let mut names = Vec::new();
    let folder = match decoded.is_empty() || decoded.ends_with(b"/") {
        true => decoded,
        false => {
            names.push(decoded.clone());
            for extension in [&b".html"[..], b".htm"] {
                names.push([&decoded[..], extension].concat());
            }
            [&decoded[..], b"/"].concat()
        }
    };
    names.extend(html::INDEX_NAMES.map(|index| [&folder[..], index].concat()));
    let files: Vec<PathBuf> = names
        .iter()
        .filter_map(|name| walk::inside(dir, Path::new(native::os_str(name))).ok())
        .filter(|rel| is_file(dir, rel))
        .collect();
    let maps_to_url = |rel: &&PathBuf| base.join(&mapping.page_path(rel).path) == url;
    match files.iter().find(maps_to_url).or(files.first()) {
        Some(rel) => Ok(rel.clone()),
        None => {
            let tried: Vec<String> = names
                .iter()
                .map(|name| String::from_utf8_lossy(name).into_owned())
                .collect();
            bail!(
                "--explain {url}: no file in DIR {} maps to it (looked for {})",
                dir.display(),
                tried.join(", ")
            )
        }
    }
}

/// Tells on standard output why the page is or is not listed; writes nothing else.
pub fn explain(settings: &Settings, asked: &Asked) -> Result<()> {
    let mut report = Report::explaining(settings.strict);
    let found = match &settings.state {
        Some(state) => Some(state::load(state, &settings.decide.base, &mut report)?),
        None => None,
    };
    let mut decider = Decider::new(&settings.decide, found.as_ref(), &mut report)?;
    let planner = decider.planner();
    let mut listed = None;
    walk::visit(
        &settings.walk,
        1,
        &planner,
        &mut report,
        |walked, report| match walked {
            Walked::Page(prepared) => {
                listed = decider
                    .decide(prepared, report)?
                    .map(|decided| decided.entry);
                Ok(())
            }
            Walked::Event(event) => event.report(report),
        },
    )?;
    decider.finish(&mut report)?;
    let told = told(settings, asked, listed.as_ref(), report.take_trail());
    match io::stdout().lock().write_all(told.as_bytes()) {
        Err(err) if !reader_gone(&err) => Err(err.into()),
        _ => Ok(()),
    }
}

/// The explanation: the page, whether and where it is listed, then why (the trail).
fn told(settings: &Settings, asked: &Asked, listed: Option<&Entry>, trail: Vec<String>) -> String {
    let rel = asked.rel.display();
    let mut told = String::new();
    if let Some(url) = &asked.url {
        told += &format!("{url}: the file {rel}\n");
    }
    match listed {
        Some(entry) => told += &format!("{rel}: listed at {}\n", entry.loc),
        None => {
            let computed = settings.decide.mapping.page_path(&asked.rel);
            told += &format!(
                "{rel}: not listed (its URL would be {})\n",
                settings.decide.base.join(&computed.path)
            );
        }
    }
    for line in trail {
        told += &format!("  {line}\n");
    }
    if let Some(entry) = listed {
        let alternates: Vec<String> = entry
            .alternates
            .iter()
            .map(|alternate| format!("{} {}", alternate.lang, alternate.href))
            .collect();
        if !alternates.is_empty() {
            told += &format!("  alternates: {}\n", alternates.join(", "));
        }
        told += "  not known from this page alone: whether another file has its URL (the \
                 first in the walk's order is listed), and whether its alternates name it \
                 back; a whole run with -v tells\n";
    }
    told
}
