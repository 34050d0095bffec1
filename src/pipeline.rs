//! One run: pages → URLs → lastmod → serializer → shards → atomic output.
//!
//! URLs go into one document until it would pass `--max-urls` or the byte limit; then it is
//! closed as a shard and the next begins. Shard k holds the k-th run of URLs in walk order, so
//! a page added near the end rewrites only the last shards. One document is the sitemap
//! itself; more become `STEM-1.xml`, `STEM-2.xml`, … with the output as their index.

use anyhow::{Context, Result, bail};

use std::io::Write;

use crate::config::{Config, UsageError};
use crate::entries::{self, Page};
use crate::lastmod::{Churn, Dater};
use crate::output::{Destination, Files, Replaced, Sink, Written};
use crate::report::Report;
use crate::serialize::{Document, Entry, Kind, MAX_ENTRIES};
use crate::state::{self, Record};
use crate::url::{Dedup, MAX_LOC_LEN, encode_path};

/// The document being filled.
struct Shard {
    doc: Document<Sink>,
    urls: usize,
    /// The newest lastmod among its URLs: the index entry's lastmod. Every lastmod of a run
    /// has the same form, so the greatest string is the newest date.
    newest: Option<String>,
}

struct Done {
    written: Written,
    newest: Option<String>,
}

impl Shard {
    fn open(config: &Config) -> Result<Shard> {
        let sink = Sink::open(&config.destination, config.gzip)?;
        Ok(Shard {
            doc: Document::new(Kind::Urlset, sink)?,
            urls: 0,
            newest: None,
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

pub fn run(config: &Config) -> Result<()> {
    let mut report = Report::new(config.verbosity, config.strict);
    let mut dater = Dater::new(config, &mut report)?;
    let destination = config.destination.describe();
    let write_context = || format!("cannot write {destination}");
    let mut done: Vec<Done> = Vec::new();
    let mut shard = Shard::open(config)?;
    let mut dedup = Dedup::default();
    let mut written: u64 = 0;

    entries::visit(config, &mut report, |page: &Page, report: &mut Report| {
        let page_path = config.mapping.page_path(page.rel);
        let loc = config.base.join(&page_path.path);
        if loc.len() >= MAX_LOC_LEN {
            report.excluded(page.rel, "URL too long");
            return report.warn(
                format!(
                    "{}: its URL has {} characters, the limit is {}",
                    page.rel.display(),
                    loc.len(),
                    MAX_LOC_LEN - 1
                ),
                "not listed",
            );
        }
        if let Some(first) = dedup.claim(page.rel, &page_path) {
            report.excluded(page.rel, "duplicate URL");
            return report.warn(
                format!(
                    "{} and {} both map to {loc}",
                    first.display(),
                    page.rel.display()
                ),
                "listing only the first",
            );
        }
        let lastmod = dater.date(page, &format!("/{}", page_path.path), report)?;
        let entry = Entry {
            loc: &loc,
            lastmod: lastmod.as_deref(),
            changefreq: config.rules.changefreq(page.candidate),
            priority: config.rules.priority(page.candidate),
        };
        if shard.urls == config.max_urls || !shard.doc.fits(shard.doc.entry_len(&entry)) {
            can_split(config)?;
            let next = Shard::open(config)?;
            done.push(
                std::mem::replace(&mut shard, next)
                    .finish()
                    .with_context(write_context)?,
            );
        }
        shard.doc.write(&entry).with_context(write_context)?;
        shard.urls += 1;
        if lastmod > shard.newest {
            shard.newest = lastmod;
        }
        written += 1;
        Ok(())
    })?;

    if written == 0 {
        bail!(
            "no pages in {} ({} files excluded); an empty sitemap is not valid\n\
             hint: check DIR and --include, or run with -v to see what was left out",
            config.root.display(),
            report.excluded_count()
        );
    }
    done.push(shard.finish().with_context(write_context)?);
    let churn = dater.churn();
    if let (Some(limit), Some(churn)) = (config.max_churn, churn) {
        check_churn(limit, churn)?;
    }
    let shards = done.len();
    let publish = || -> Result<()> {
        if shards == 1 {
            done.pop()
                .expect("one document")
                .written
                .publish(&config.destination)
        } else {
            publish_split(config, done)
        }
    };
    // The state goes first and is put back if the sitemap cannot follow: never one without
    // the other. (A crash between the two leaves the new state with the old sitemap, which
    // the next run publishes as it should have been.)
    match (dater.into_records(), &config.state) {
        (Some(records), Some(path)) => {
            let replaced = write_state(config, path, records)?;
            match publish() {
                Ok(()) => replaced.keep(),
                Err(err) => {
                    replaced.undo()?;
                    return Err(err);
                }
            }
        }
        _ => publish()?,
    }
    if let Destination::File(files) = &config.destination {
        let kept = if shards == 1 { 0 } else { shards };
        for stale in files.stale_shards(kept)? {
            if let Err(err) = std::fs::remove_file(&stale) {
                report.warn(
                    format!("cannot remove {}: {err}", stale.display()),
                    "an unused shard of an earlier run stays",
                )?;
            }
        }
    }
    report.summary(written, shards, &destination, churn);
    Ok(())
}

/// Refuses a run that would re-date more than `limit` percent of the URLs the state knows.
fn check_churn(limit: f64, churn: Churn) -> Result<()> {
    let known = churn.kept + churn.redated;
    if known == 0 {
        return Ok(());
    }
    let percent = churn.redated as f64 * 100.0 / known as f64;
    if percent > limit {
        bail!(
            "{} of {known} known URLs ({percent:.1}%) would get a new lastmod, more than \
             --max-churn {limit}%; nothing written\n\
             hint: if every page really changed, run once with a higher --max-churn",
            churn.redated
        );
    }
    Ok(())
}

fn write_state(
    config: &Config,
    path: &std::path::Path,
    mut records: Vec<(String, Record)>,
) -> Result<Replaced> {
    let context = || format!("cannot write state file {}", path.display());
    let destination = Destination::File(Files::new(path.to_path_buf(), false));
    let mut sink = Sink::open(&destination, false).with_context(context)?;
    state::write(&mut sink, &config.digest, &mut records).with_context(context)?;
    sink.flush().with_context(context)?;
    Replaced::new(sink.finish().with_context(context)?, path)
}

/// Shards need public URLs: the output must lie inside DIR, and be a file.
fn can_split(config: &Config) -> Result<()> {
    let why = match (&config.destination, &config.output_url_dir) {
        (Destination::Stdout, _) => "standard output can carry only one file",
        (Destination::File(_), None) => {
            "the output lies outside DIR, so the shards' URLs are unknown"
        }
        (Destination::File(_), Some(_)) => return Ok(()),
    };
    Err(UsageError(format!(
        "the sitemap must be split into an index and shards past {} URLs or 50 MiB, but {why}\n\
         hint: write the output inside DIR (-o DIR/sitemap.xml)",
        config.max_urls
    ))
    .into())
}

/// Writes the index over the output, after the shards it lists are in place.
fn publish_split(config: &Config, shards: Vec<Done>) -> Result<()> {
    let (Destination::File(files), Some(url_dir)) = (&config.destination, &config.output_url_dir)
    else {
        unreachable!("can_split allowed the split");
    };
    if shards.len() > MAX_ENTRIES {
        bail!(
            "{} shards are more than a sitemap index may list ({MAX_ENTRIES})",
            shards.len()
        );
    }
    let index_context = || format!("cannot write {}", files.target.display());
    let mut index = Document::new(Kind::Index, Sink::open(&config.destination, config.gzip)?)
        .with_context(index_context)?;
    for (i, shard) in shards.iter().enumerate() {
        let name = files.shard_name(i + 1);
        let loc = config
            .base
            .join(&format!("{url_dir}{}", encode_path(name.as_ref())));
        let entry = Entry {
            loc: &loc,
            lastmod: shard.newest.as_deref(),
            changefreq: None,
            priority: None,
        };
        if !index.fits(index.entry_len(&entry)) {
            bail!("the sitemap index would pass the protocol's 50 MiB limit");
        }
        index.write(&entry).with_context(index_context)?;
    }
    let (sink, _) = index.finish().with_context(index_context)?;
    let index = sink.finish().with_context(index_context)?;
    // Renames cannot fail together; find what would stop one before the first is done.
    for i in 1..=shards.len() {
        let path = files.dir().join(files.shard_name(i));
        if std::fs::symlink_metadata(&path).is_ok_and(|meta| !meta.is_file()) {
            bail!("cannot write {}: it is not a regular file", path.display());
        }
    }
    for (i, shard) in shards.into_iter().enumerate() {
        shard
            .written
            .publish_shard(files, &files.shard_name(i + 1))?;
    }
    index.publish(&config.destination)
}
