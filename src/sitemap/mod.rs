//! The sitemap documents: URLs into one urlset until it would pass `--max-urls` or the byte
//! limit, then into the next. Shard k holds the k-th run of URLs in walk order, so a page
//! added near the end rewrites only the last shards. One document is the sitemap itself;
//! more become `STEM-1.xml`, `STEM-2.xml`, … with the output as their index.
//!
//! With groups (`--group`, `--index-add`, `--sub-builds`), each group's URLs go into
//! documents of their own, `STEM-NAME.xml` (or `STEM-NAME-1.xml`, … past the limits), and
//! the output is always the index over them, and over the sitemaps of others (`foreign`).
//!
//! When heads are read, hreflang alternates can only be checked once every URL is known:
//! the URLs then wait in a spool for a second pass, which also knows by then which
//! extensions' namespaces (alternates, images) the documents must declare. Until a URL
//! names an alternate or an image, they are written straight away as well; the spool is
//! read back only when one does.

pub mod alternates;
pub mod foreign;
pub mod spool;
pub mod xml;

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use time::OffsetDateTime;

use crate::entry::Entry;

use crate::error::UsageError;
use crate::io::atomic::{Beside, Scratch, Sink, Temp, Written};
use crate::io::input::MAX_SITEMAP;
use crate::outputs::read;
use crate::outputs::{Destination, Files, Format, name_beside};
use crate::report::Report;
use crate::url::encode_path;
use crate::w3c;
use alternates::{Links, Locale};
use spool::Spool;
use xml::{Document, Extensions, Kind, MAX_ENTRIES};

/// How the sitemap is written.
#[derive(Debug)]
pub struct Settings {
    pub format: Format,
    pub gzip: bool,
    pub max_urls: usize,
    pub destination: Destination,
    /// The public URL of the output's directory, when it lies inside DIR: what shards' URLs
    /// are made of.
    pub dir_url: Option<String>,
    /// --check: every file is written unnamed, to be compared, never published.
    pub scratch: bool,
    /// --xsl (or --write-xsl's stylesheet): the href of every XML file's stylesheet.
    pub stylesheet: Option<String>,
    /// The sitemaps of others (sub-builds', --index-add's), which the index lists after the
    /// groups'.
    pub foreign: foreign::Settings,
    /// --hreflang-default: the language whose page is a cluster's `x-default`.
    pub hreflang_default: Option<String>,
    /// --lastmod-format date: each lastmod's date alone (`2026-11-27`).
    pub date_only: bool,
    /// --locale: each language's folder, whose pages are alternates of each other.
    pub locales: Vec<Locale>,
    /// The base URL's path: a language root, for telling a language switcher's alternates.
    pub base_path: String,
}

impl Settings {
    /// The groups' names, the default group last; empty when the sitemap is not grouped.
    fn groups(&self) -> &[String] {
        match &self.destination {
            Destination::File(files) => files.groups(),
            Destination::Stdout => &[],
        }
    }
}

/// A complete document, not yet published, and the newest lastmod among its URLs (compared
/// as instants: git dates carry each commit's zone), for its index entry.
pub struct Done {
    pub written: Written<Temp>,
    newest: Option<String>,
}

/// Where the URLs go as they are decided.
pub enum Collector<'s> {
    /// Straight into the sitemap.
    Direct(Writers<'s>),
    /// Into the spool, for a second pass once every URL and alternate is known.
    Spooled {
        spool: Spool,
        /// Boxed, so that a direct collector is not the size of these hash sets.
        links: Box<Links>,
        /// Whether any URL has images.
        images: bool,
        /// Until a URL has alternates or images, straight into the sitemap as well: without
        /// either, the second pass would write the same, and most sites have neither.
        direct: Option<Writers<'s>>,
    },
}

impl<'s> Collector<'s> {
    /// `heads` when the pages' heads are read (and so may name alternates).
    pub fn new(settings: &'s Settings, heads: bool) -> Result<Collector<'s>> {
        let direct = Writers::new(settings, Extensions::default());
        // With locales, any page may have alternates.
        let locales = !settings.locales.is_empty();
        Ok(if heads || locales {
            Collector::Spooled {
                spool: Spool::new()?,
                links: Box::new(Links::new(
                    settings.hreflang_default.clone(),
                    settings.locales.clone(),
                    &settings.base_path,
                )),
                images: false,
                direct: (!locales).then_some(direct),
            }
        } else {
            Collector::Direct(direct)
        })
    }

    pub fn push(&mut self, entry: Entry) -> Result<()> {
        match self {
            Collector::Direct(writer) => writer.push(entry),
            Collector::Spooled {
                spool,
                links,
                images,
                direct,
            } => {
                links.add(&entry);
                *images |= !entry.images.is_empty();
                spool.push(&entry).context("cannot spool the URLs")?;
                if !(entry.alternates.is_empty() && entry.images.is_empty()) {
                    // Its temp files are removed.
                    *direct = None;
                }
                match direct {
                    Some(writers) => writers.push(entry),
                    None => Ok(()),
                }
            }
        }
    }

    /// The documents of each group (of the one group when there are none). `settings` are
    /// those the collector was made with.
    pub fn finish(self, settings: &'s Settings, report: &mut Report) -> Result<Vec<Vec<Done>>> {
        match self {
            Collector::Direct(writers)
            | Collector::Spooled {
                direct: Some(writers),
                ..
            } => writers.finish(),
            Collector::Spooled {
                mut spool,
                links,
                images,
                direct: None,
            } => write_spooled(settings, &mut spool, *links, images, report),
        }
    }
}

/// The second pass: the spooled URLs, their alternates checked, into the sitemap.
fn write_spooled(
    settings: &Settings,
    spool: &mut Spool,
    mut links: Links,
    image: bool,
    report: &mut Report,
) -> Result<Vec<Vec<Done>>> {
    links.settle(report);
    if links.wants_list() {
        for entry in spool.replay()? {
            links.list(&entry?.loc);
        }
    }
    let xhtml = links.any();
    // Every file of the sitemap declares the namespaces some URL of it uses.
    let mut writers = Writers::new(settings, Extensions { xhtml, image });
    for entry in spool.replay()? {
        let mut entry = entry?;
        links.check(&mut entry, report)?;
        writers.push(entry)?;
    }
    writers.finish()
}

/// A writer for each group, opened at the group's first URL.
pub struct Writers<'s> {
    settings: &'s Settings,
    extensions: Extensions,
    groups: Vec<Option<Writer<'s>>>,
}

impl<'s> Writers<'s> {
    fn new(settings: &'s Settings, extensions: Extensions) -> Self {
        let count = settings.groups().len().max(1);
        Writers {
            settings,
            extensions,
            groups: (0..count).map(|_| None).collect(),
        }
    }

    fn push(&mut self, entry: Entry) -> Result<()> {
        let count = self.groups.len();
        let Some(slot) = (entry.group.place(count)).and_then(|i| self.groups.get_mut(i)) else {
            bail!("{} belongs to no group", entry.loc);
        };
        let writer = match slot {
            Some(writer) => writer,
            None => slot.insert(Writer::new(self.settings, self.extensions)?),
        };
        writer.push(entry)
    }

    /// Each group's documents, in the groups' order (none for a group without URLs).
    fn finish(self) -> Result<Vec<Vec<Done>>> {
        self.groups
            .into_iter()
            .map(|writer| writer.map_or(Ok(Vec::new()), Writer::finish))
            .collect()
    }
}

/// URLs into one document, or shards at the limits.
struct Writer<'s> {
    settings: &'s Settings,
    extensions: Extensions,
    shard: Shard,
    done: Vec<Done>,
    /// The entry being written, rendered.
    rendered: Vec<u8>,
}

/// The document being filled.
struct Shard {
    doc: Document<Sink<Temp>>,
    urls: usize,
    newest: Option<String>,
    /// `newest`'s instant, so that each URL's date is compared without parsing it again.
    newest_instant: Option<OffsetDateTime>,
}

impl Shard {
    fn open(settings: &Settings, extensions: Extensions) -> Result<Shard> {
        let kind = match settings.format {
            Format::Xml => Kind::Urlset,
            Format::Txt => Kind::Text,
        };
        Ok(Shard {
            doc: Document::new(
                kind,
                open(settings)?,
                extensions,
                settings.stylesheet.as_deref(),
                !settings.groups().is_empty(),
            )?,
            urls: 0,
            newest: None,
            newest_instant: None,
        })
    }

    fn finish(self) -> Result<Done> {
        let (sink, _) = self.doc.finish()?;
        Ok(Done {
            written: sink.finish()?,
            newest: self.newest,
        })
    }
}

/// A new file of the sitemap: beside the output, or unnamed for standard output and --check.
fn open(settings: &Settings) -> Result<Sink<Temp>> {
    let temp = match &settings.destination {
        Destination::File(files) if !settings.scratch => Temp::Beside(
            Beside::in_dir(files.dir())
                .with_context(|| format!("cannot write the sitemap {}", files.path.display()))?,
        ),
        _ => Temp::Scratch(Scratch::new()?),
    };
    Ok(Sink::new(temp, settings.gzip))
}

impl<'s> Writer<'s> {
    fn new(settings: &'s Settings, extensions: Extensions) -> Result<Self> {
        Ok(Writer {
            settings,
            extensions,
            shard: Shard::open(settings, extensions)?,
            done: Vec::new(),
            rendered: Vec::new(),
        })
    }

    fn push(&mut self, mut entry: Entry) -> Result<()> {
        if self.settings.date_only
            && let Some(lastmod) = &mut entry.lastmod
        {
            // W3C dates begin with YYYY-MM-DD, the date in the time's own zone.
            lastmod.truncate(10);
        }
        let context = || format!("cannot write {}", self.settings.destination.describe());
        let shard = &mut self.shard;
        xml::render(shard.doc.kind(), &entry, &mut self.rendered).with_context(context)?;
        if shard.urls == self.settings.max_urls || !shard.doc.fits(self.rendered.len()) {
            can_split(self.settings)?;
            let next = Shard::open(self.settings, self.extensions)?;
            let full = std::mem::replace(shard, next);
            self.done.push(full.finish().with_context(context)?);
        }
        let shard = &mut self.shard;
        shard.doc.write(&self.rendered).with_context(context)?;
        shard.urls += 1;
        let instant = entry.lastmod.as_deref().and_then(w3c::instant);
        if shard.newest.is_none() || instant > shard.newest_instant {
            shard.newest = entry.lastmod;
            shard.newest_instant = instant;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<Done>> {
        let context = || format!("cannot write {}", self.settings.destination.describe());
        self.done.push(self.shard.finish().with_context(context)?);
        Ok(self.done)
    }
}

/// Shards need public URLs: the output must lie inside DIR, and be a file. The public URL
/// of its directory.
fn can_split(settings: &Settings) -> Result<&str> {
    let why = match (&settings.destination, &settings.dir_url) {
        (Destination::Stdout, _) => "standard output can carry only one file",
        (Destination::File(_), None) => {
            "the output lies outside DIR, so the shards' URLs are unknown"
        }
        (Destination::File(_), Some(dir_url)) => return Ok(dir_url),
    };
    Err(UsageError(format!(
        "the sitemap must be split into an index and shards past {} URLs or 50 MiB, but {why}\n\
         hint: write the output inside DIR (-o DIR/sitemap.xml)",
        settings.max_urls
    ))
    .into())
}

/// Every file to publish with its target, the index last: the output alone, or the shards
/// or the groups' documents and the index over them (a text sitemap has no index: its
/// shards stand alone), which lists `foreign` after them. Standard output's target is `-`.
pub fn arrange(
    settings: &Settings,
    done: Vec<Vec<Done>>,
    foreign: &[Entry],
) -> Result<Vec<(PathBuf, Written<Temp>)>> {
    let files = match &settings.destination {
        Destination::Stdout => {
            let only = done.into_iter().flatten().next();
            let only = only.context("standard output has no sitemap to show")?;
            return Ok(vec![(PathBuf::from("-"), only.written)]);
        }
        Destination::File(files) => files,
    };
    let mut named: Vec<(OsString, Done)> = if !files.indexed() {
        let mut shards: Vec<Done> = done.into_iter().flatten().collect();
        if shards.len() == 1 {
            return Ok(vec![(files.target.clone(), shards.remove(0).written)]);
        }
        let numbered = (1..).map(|n| files.shard_name(n));
        numbered.zip(shards).collect()
    } else {
        let mut named = Vec::new();
        for (group, documents) in files.groups().iter().zip(done) {
            let split = documents.len() > 1;
            for (i, document) in documents.into_iter().enumerate() {
                named.push((files.group_name(group, split.then_some(i + 1)), document));
            }
        }
        named
    };
    let dir_url = can_split(settings)?;
    let index = match settings.format {
        Format::Txt => None,
        Format::Xml => {
            second_names(files, dir_url, &mut named)?;
            Some(index(settings, (files, dir_url), &named, foreign)?)
        }
    };
    let mut outputs: Vec<_> = named
        .into_iter()
        .map(|(name, document)| (files.dir().join(name), document.written))
        .collect();
    outputs.extend(index.map(|index| (files.target.clone(), index)));
    Ok(outputs)
}

/// Gives each document the name under which the index on disk lists the same bytes, or
/// else the one of its two names that index does not list: until the new index replaces
/// it, the old one lists only its own files, however far a killed run got.
fn second_names(files: &Files, dir_url: &str, named: &mut [(OsString, Done)]) -> Result<()> {
    let listed = listed(files, dir_url)?;
    for (name, document) in named {
        let second = files.second_name(name);
        let names = [name.clone(), second];
        let mut kept = None;
        for candidate in &names {
            if listed.contains(candidate)
                && document.written.same_as(&files.dir().join(candidate))?
            {
                kept = Some(candidate);
                break;
            }
        }
        let free = names.iter().find(|candidate| !listed.contains(*candidate));
        if let Some(chosen) = kept.or(free) {
            *name = chosen.clone();
        }
    }
    Ok(())
}

/// The names of the files beside the output that the index now at the output lists; none
/// when there is no index there (or one that cannot be read as one).
fn listed(files: &Files, dir_url: &str) -> Result<HashSet<OsString>> {
    let bytes = crate::io::input::read_file(&files.target, MAX_SITEMAP)
        .with_context(|| format!("cannot read {}", files.target.display()))?;
    let Some(bytes) = bytes else {
        return Ok(HashSet::new());
    };
    Ok(match read::parse(bytes, &files.target.display(), None) {
        Ok(read::Document::Index(locs)) => locs
            .iter()
            .filter_map(|loc| name_beside(loc, dir_url))
            .collect(),
        _ => HashSet::new(),
    })
}

/// The sitemap index over `documents`, then the sitemaps of others, not yet published.
fn index(
    settings: &Settings,
    (files, dir_url): (&Files, &str),
    documents: &[(OsString, Done)],
    foreign: &[Entry],
) -> Result<Written<Temp>> {
    let count = documents.len() + foreign.len();
    if count > MAX_ENTRIES {
        bail!("{count} sitemaps are more than a sitemap index may list ({MAX_ENTRIES})");
    }
    let index_context = || format!("cannot write {}", files.path.display());
    let mut index = Document::new(
        Kind::Index,
        open(settings)?,
        Extensions::default(),
        settings.stylesheet.as_deref(),
        false,
    )
    .with_context(index_context)?;
    let ours = documents.iter().map(|(name, document)| Entry {
        loc: format!("{dir_url}{}", encode_path(Path::new(name))),
        lastmod: document.newest.clone(),
        ..Entry::default()
    });
    let mut rendered = Vec::new();
    for entry in ours.chain(foreign.iter().cloned()) {
        xml::render(Kind::Index, &entry, &mut rendered).with_context(index_context)?;
        if !index.fits(rendered.len()) {
            bail!("the sitemap index would pass the protocol's 50 MiB limit");
        }
        index.write(&rendered).with_context(index_context)?;
    }
    let (sink, _) = index.finish().with_context(index_context)?;
    sink.finish().with_context(index_context)
}
