//! A sitemap read back, for `--check` (the one on disk or the one just made) or for
//! `--previous-sitemap` (one published before): its URLs and their lastmods.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

use anyhow::{Context, Result, bail};
use xml::common::Position;
use xml::reader::{EventReader, XmlEvent};

use crate::io::input::{self, Deadline, MAX_INDEX_ENTRIES, MAX_SITEMAP, MAX_XML_DEPTH};
use crate::outputs::{Files, SITEMAP_NS};

/// loc → lastmod.
pub type Urls = BTreeMap<String, Option<String>>;

/// How many URLs of each kind a difference names.
const SHOWN: usize = 5;

/// The URLs of the sitemap at the output (following an index to its shards, or a text
/// sitemap's shards when there is no output file); None when there is none.
pub fn read(files: &Files) -> Result<Option<Urls>> {
    let mut urls = Urls::new();
    match document(&files.target)? {
        Some(Document::Index(shards)) => {
            // Only shards of ours: a damaged index may name anything, even the directory.
            for loc in shards {
                let name = loc.rsplit('/').next().unwrap_or_default();
                if name.is_empty() || name.contains('%') || !files.is_ours(name.as_ref()) {
                    continue;
                }
                if let Some(Document::Urls(shard)) = document(&files.dir().join(name))? {
                    urls.extend(shard);
                }
            }
        }
        Some(Document::Urls(found)) => urls = found,
        None => {
            for n in 1.. {
                match document(&files.shard_path(n))? {
                    Some(Document::Urls(shard)) => urls.extend(shard),
                    _ => break,
                }
            }
            if urls.is_empty() {
                return Ok(None);
            }
        }
    }
    Ok(Some(urls))
}

pub enum Document {
    Urls(Urls),
    /// The locs of a sitemap index's shards.
    Index(Vec<String>),
}

fn document(path: &Path) -> Result<Option<Document>> {
    let bytes = input::read_file(path, MAX_SITEMAP)
        .with_context(|| format!("cannot read {}", path.display()))?;
    bytes
        .map(|bytes| parse(bytes, &path.display(), None))
        .transpose()
}

/// The document in `bytes` (gzipped or not), the content of `what`, read by `deadline` if
/// one is given. A DTD, elements nested deeper than a sitemap's, or an index of more
/// sitemaps than the protocol allows is refused; any other damage ends the reading.
pub fn parse(
    bytes: Vec<u8>,
    what: &dyn std::fmt::Display,
    deadline: Option<&Deadline>,
) -> Result<Document> {
    let bytes = plain(bytes, what)?;
    if !bytes.trim_ascii_start().starts_with(b"<") {
        let text = String::from_utf8_lossy(&bytes);
        return Ok(Document::Urls(
            text.lines()
                .filter(|l| !l.is_empty())
                .map(|l| (l.to_string(), None))
                .collect(),
        ));
    }
    // A damaged old sitemap is simply one that differs: read what parses.
    let mut urls = Urls::new();
    let shards = read_xml(&bytes, what, deadline, false, |loc, lastmod, _| {
        urls.insert(loc, lastmod);
    })?;
    Ok(if shards.is_empty() {
        Document::Urls(urls)
    } else {
        Document::Index(shards)
    })
}

/// `bytes` decompressed if they are gzip, within `MAX_SITEMAP`.
pub fn plain(bytes: Vec<u8>, what: &dyn std::fmt::Display) -> Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    // A sitemap's own limit is 50 MiB; past MAX_SITEMAP it is a bomb, not a sitemap.
    let mut plain = Vec::new();
    flate2::read::GzDecoder::new(bytes.as_slice())
        .take(MAX_SITEMAP + 1)
        .read_to_end(&mut plain)
        .with_context(|| format!("cannot decompress {what}"))?;
    if plain.len() as u64 > MAX_SITEMAP {
        bail!(
            "{what} is over {} decompressed: no sitemap is",
            input::size(MAX_SITEMAP)
        );
    }
    Ok(plain)
}

/// Each `<url>`'s loc and lastmod of the sitemap XML in `bytes` (plain), given to `url` in
/// their order, read by `deadline` if one is given; returns the locs of an index's
/// sitemaps. Damage is an error: a sitemap read to be vouched for must be whole.
pub fn each_url(
    bytes: &[u8],
    what: &dyn std::fmt::Display,
    deadline: Option<&Deadline>,
    mut url: impl FnMut(String, Option<String>),
) -> Result<Vec<String>> {
    read_xml(bytes, what, deadline, true, |loc, lastmod, _| {
        url(loc, lastmod)
    })
}

/// A `<url>` as a sitemap writes it, and the line its element starts on.
pub struct Listed {
    pub loc: String,
    pub lastmod: Option<String>,
    pub line: u64,
}

/// The `<url>` entries of the urlset in `bytes` (plain XML), in their order, repeats
/// included, for `--add-urls`. Unlike `parse`, damage is an error: a URL lost after it
/// would be missing from the sitemap with no word said. An index is refused.
pub fn parse_listed(bytes: &[u8], what: &dyn std::fmt::Display) -> Result<Vec<Listed>> {
    let mut listed = Vec::new();
    let shards = read_xml(bytes, what, None, true, |loc, lastmod, line| {
        listed.push(Listed { loc, lastmod, line });
    })?;
    if !shards.is_empty() {
        bail!("{what} is a sitemap index, not a urlset of URLs");
    }
    Ok(listed)
}

/// Reads the sitemap XML in `bytes`, giving each `<url>`'s loc, lastmod and line to `url`;
/// returns the locs of an index's `<sitemap>` entries. Damage ends the reading, or with
/// `strict` is an error naming its line.
fn read_xml(
    bytes: &[u8],
    what: &dyn std::fmt::Display,
    deadline: Option<&Deadline>,
    strict: bool,
    mut url: impl FnMut(String, Option<String>, u64),
) -> Result<Vec<String>> {
    let mut shards = Vec::new();
    let (mut element, mut loc, mut lastmod) = (String::new(), None::<String>, None);
    let (mut depth, mut line) = (0, 0);
    let mut reader = EventReader::new(bytes);
    for n in 0usize.. {
        if n % 4096 == 0
            && let Some(deadline) = deadline
        {
            deadline
                .left()
                .with_context(|| format!("cannot read the sitemap {what}"))?;
        }
        match reader.next() {
            Ok(XmlEvent::EndDocument) => break,
            // Its entities could stand for anything (a file, another site), and no sitemap
            // has one.
            Ok(XmlEvent::Doctype { .. }) => {
                bail!("{what} has a DTD (<!DOCTYPE …>), which no sitemap has: refused")
            }
            // An extension's elements (`image:loc`) are not the sitemap's.
            Ok(XmlEvent::StartElement { name, .. }) => {
                depth += 1;
                if depth > MAX_XML_DEPTH {
                    bail!("{what} nests elements more than {MAX_XML_DEPTH} deep: no sitemap does");
                }
                match name.namespace.as_deref() {
                    Some(SITEMAP_NS) | None => element = name.local_name,
                    _ => element.clear(),
                }
                if element == "url" {
                    line = reader.position().row + 1;
                }
            }
            Ok(XmlEvent::Characters(text)) => match element.as_str() {
                "loc" => loc = Some(text),
                "lastmod" => lastmod = Some(text),
                _ => {}
            },
            Ok(XmlEvent::EndElement { name }) => {
                depth = depth.saturating_sub(1);
                element.clear();
                match name.local_name.as_str() {
                    "url" => {
                        if let Some(loc) = loc.take() {
                            url(loc, lastmod.take(), line);
                        }
                    }
                    "sitemap" => {
                        shards.extend(loc.take());
                        if shards.len() > MAX_INDEX_ENTRIES {
                            bail!(
                                "{what} lists more than {} sitemaps, the protocol's limit",
                                crate::report::thousands(MAX_INDEX_ENTRIES as u64)
                            );
                        }
                    }
                    _ => {}
                }
            }
            Ok(_) => {}
            Err(err) if strict => bail!(
                "{what} is not well-formed XML: {}",
                crate::report::shown(&err.to_string())
            ),
            Err(_) => break,
        }
    }
    Ok(shards)
}

/// `2 added, 1 removed, 3 re-dated` with the first few of each, or what else differs.
pub fn difference(old: Option<&Urls>, new: &Urls) -> String {
    let Some(old) = old else {
        return "there is no sitemap yet".to_string();
    };
    let added: Vec<&String> = new.keys().filter(|loc| !old.contains_key(*loc)).collect();
    let removed: Vec<&String> = old.keys().filter(|loc| !new.contains_key(*loc)).collect();
    let redated: Vec<String> = new
        .iter()
        .filter_map(|(loc, date)| {
            let before = old.get(loc)?;
            (before != date).then(|| {
                let show = |d: &Option<String>| d.clone().unwrap_or_else(|| "none".into());
                format!("{loc} ({} -> {})", show(before), show(date))
            })
        })
        .collect();
    if added.is_empty() && removed.is_empty() && redated.is_empty() {
        return "the same URLs and dates, other changes (changefreq, priority, alternates, \
                images, layout or files of an earlier run)"
            .to_string();
    }
    let mut text = format!(
        "{} added, {} removed, {} re-dated",
        added.len(),
        removed.len(),
        redated.len()
    );
    let lists: [(&str, Vec<String>); 3] = [
        ("+", added.iter().map(|s| s.to_string()).collect()),
        ("-", removed.iter().map(|s| s.to_string()).collect()),
        ("~", redated),
    ];
    for (sign, urls) in lists {
        for url in urls.iter().take(SHOWN) {
            text.push_str(&format!("\n  {sign} {url}"));
        }
        if urls.len() > SHOWN {
            text.push_str(&format!("\n  {sign} … and {} more", urls.len() - SHOWN));
        }
    }
    text
}
