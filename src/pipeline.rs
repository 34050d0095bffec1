//! One run, in two passes. The first walks the site: pages → URLs → what their heads say →
//! lastmod, each URL spooled as it is decided. The second writes the spooled URLs, with their
//! hreflang alternates checked against the whole sitemap, through the serializer into shards
//! and the atomic output.
//!
//! URLs go into one document until it would pass `--max-urls` or the byte limit; then it is
//! closed as a shard and the next begins. Shard k holds the k-th run of URLs in walk order, so
//! a page added near the end rewrites only the last shards. One document is the sitemap
//! itself; more become `STEM-1.xml`, `STEM-2.xml`, … with the output as their index.

use std::ffi::OsStr;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::alternates::Links;
use crate::config::{Config, UsageError};
use crate::entries::{self, Page};
use crate::head::{self, HEAD_CAP, Verdict};
use crate::lastmod::{self, Churn, Dater};
use crate::output::{self, Destination, Files, Publishing, Replaced, Sink, Written};
use crate::report::{self, LeftOut, Report};
use crate::serialize::{Document, Entry, Kind, MAX_ENTRIES};
use crate::spool::{Record, Spool};
use crate::state::{self, Record as StateRecord};
use crate::url::{Dedup, MAX_LOC_LEN, encode_path};
use crate::{previous, robots};

/// The document being filled.
struct Shard {
    doc: Document<Sink>,
    urls: usize,
    /// The newest lastmod among its URLs (compared as instants: git dates carry each
    /// commit's zone): the index entry's lastmod.
    newest: Option<String>,
}

struct Done {
    written: Written,
    newest: Option<String>,
}

impl Shard {
    fn open(config: &Config, xhtml: bool) -> Result<Shard> {
        let sink = Sink::open(&config.destination, config.gzip, config.check)?;
        let kind = if config.text {
            Kind::Text
        } else {
            Kind::Urlset
        };
        Ok(Shard {
            doc: Document::new(kind, sink, xhtml)?,
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
    if !config.check {
        remove_leftovers(config, &mut report)?;
    }
    let mut dater = Dater::new(config, &mut report)?;
    // Without heads there are no alternates to check, so the URLs can go straight into the
    // sitemap; --check needs them afterwards for its summary.
    let mut sitemap = if config.read_html || config.check {
        Pass::Spooled(Spool::new()?, Links::default())
    } else {
        Pass::Direct(Box::new(Writer::new(config, false)?))
    };
    let mut dedup = Dedup::default();
    let mut head_buffer = vec![0; 16 * 1024];
    // Under --state a page is read whole once, for its digest and (its start) its head.
    let mut chunk = vec![0; lastmod::READ_CHUNK];
    let mut head_bytes = Vec::new();
    let mut collected: u64 = 0;

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
        // A page --state must digest is read once, whole, for its head as well.
        let digest = match dater.digest_rules(page, &page_path.path) {
            None => None,
            Some(rules) => match rules.read(page.path, &mut head_bytes, HEAD_CAP, &mut chunk) {
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    return vanished(page, report);
                }
                read => Some(read.with_context(|| format!("cannot read {}", page.path.display()))?),
            },
        };
        let alternates = if config.read_html && is_html(page.rel) {
            let head = if digest.is_some() {
                head::parse(&head_bytes)
            } else {
                match head::read(page.path, &mut head_buffer) {
                    Err(err) if err.kind() == io::ErrorKind::NotFound => {
                        return vanished(page, report);
                    }
                    read => read.with_context(|| format!("cannot read {}", page.path.display()))?,
                }
            };
            match judge_head(page, &loc, head, report)? {
                Some(alternates) => alternates,
                None => return Ok(()),
            }
        } else {
            Vec::new()
        };
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
        let record = Record {
            lastmod: dater.date(page, &page_path.path, digest, report)?,
            changefreq: config.rules.changefreq(page.candidate).map(String::from),
            priority: config.rules.priority(page.candidate).map(String::from),
            alternates,
            loc,
        };
        match &mut sitemap {
            Pass::Direct(writer) => writer.push(record)?,
            Pass::Spooled(spool, links) => {
                links.add(&record);
                spool.push(&record).context("cannot spool the URLs")?;
            }
        }
        collected += 1;
        report.progress(collected);
        Ok(())
    })?;

    if collected == 0 {
        bail!(
            "no pages in {} ({} excluded); an empty sitemap is not valid\n\
             hint: check DIR and --include, or run with -v to see what was left out",
            config.root.display(),
            report::count(report.excluded_count(), "file")
        );
    }
    let churn = dater.churn();
    let churn_stop = match (config.max_churn, churn) {
        (Some(limit), Some(churn)) => check_churn(limit, churn).err(),
        _ => None,
    };
    // --check shows the differences, with the churn stop among them.
    if let (Some(stop), false) = (&churn_stop, config.check) {
        bail!("{stop}");
    }
    let (done, spool) = match sitemap {
        Pass::Direct(writer) => (writer.finish()?, None),
        Pass::Spooled(mut spool, links) => (
            write_spooled(config, &mut spool, links, &mut report)?,
            Some(spool),
        ),
    };
    let shards = done.len();
    let outputs = arrange(config, done)?;
    let Destination::File(files) = &config.destination else {
        // A preview on standard output: no state, no robots.txt.
        for (path, written) in outputs {
            written.publish_at(&path)?;
        }
        report.summary(collected, "to standard output", churn);
        return Ok(());
    };
    // robots.txt is read now, so that one that cannot be taken stops the run unchanged.
    let robots = match config.robots {
        true => Some(plan_robots(config, files, shards, &mut report)?),
        false => None,
    };
    if let (true, Some(mut spool)) = (config.check, spool) {
        return check(
            files,
            outputs,
            shards,
            &mut spool,
            robots,
            churn_stop,
            &mut report,
        );
    }
    // Renames cannot fail together; find what would stop one before the first is done.
    for (path, _) in &outputs {
        if std::fs::symlink_metadata(path).is_ok_and(|meta| !meta.is_file()) {
            bail!("cannot write {}: it is not a regular file", path.display());
        }
        if !output::looks_like_sitemap(path)? {
            return Err(UsageError(format!(
                "{} exists and is not a sitemap: a shard of the sitemap would replace it\n\
                 hint: name the output otherwise with -o, or remove that file",
                path.display()
            ))
            .into());
        }
    }
    let robots = match &robots {
        Some(plan) => plan.write()?.map(|written| (written, &plan.path)),
        None => None,
    };
    let _turn = Publishing::lock(files.dir())?;
    publish(config, dater.into_records(), outputs)?;
    if let Some((written, path)) = robots {
        written.publish_at(path)?;
    }
    remove_stale(config, files, shards, &mut report)?;
    let place = if shards == 1 {
        format!("to {}", files.path.display())
    } else if config.text {
        if !config.robots {
            report.note("a text sitemap has no index: list each file in robots.txt (--robots)");
        }
        format!(
            "in {shards} text sitemaps {} … {}",
            files.shard_path(1).display(),
            files.shard_path(shards).display()
        )
    } else {
        format!("in {shards} sitemaps indexed by {}", files.path.display())
    };
    report.summary(collected, &place, churn);
    Ok(())
}

/// What DIR/robots.txt must become; a warning when crawlers will not read it.
fn plan_robots(
    config: &Config,
    files: &Files,
    shards: usize,
    report: &mut Report,
) -> Result<robots::Plan> {
    if !config.base.is_host_root() {
        report.warn(
            format!(
                "crawlers read robots.txt only at the root of a host, and DIR/robots.txt is \
                 served at {}robots.txt",
                config.base.join("")
            ),
            "writing it anyway (add the Sitemap line to the host's own robots.txt)",
        )?;
    }
    robots::Plan::new(&config.root, &public_urls(config, files, shards), files)
}

/// A page gone between its stat and its read: the site changed under the run. Like a page
/// gone before its stat (`entries.rs`), a warning, and the page is not listed.
fn vanished(page: &Page, report: &mut Report) -> Result<()> {
    report.excluded(page.rel, "gone");
    report.warn(
        format!(
            "{} vanished while the site was being read",
            page.rel.display()
        ),
        "not listed",
    )
}

/// Temp files of killed runs, where ours are made: beside the output, the state, robots.txt.
fn remove_leftovers(config: &Config, report: &mut Report) -> Result<()> {
    let mut dirs = vec![config.root.clone()];
    if let Destination::File(files) = &config.destination {
        dirs.push(files.dir().to_path_buf());
    }
    if let Some(state) = &config.state {
        dirs.push(output::dir_of(state).to_path_buf());
    }
    dirs.sort();
    dirs.dedup();
    for dir in dirs {
        for path in output::remove_leftovers(&dir)? {
            report.detail(format_args!(
                "removed {}, left by a run that was killed",
                path.display()
            ));
        }
    }
    Ok(())
}

/// Every file to publish with its target, the index last: the output alone, or the shards
/// and the index over them (a text sitemap has no index: its shards stand alone).
fn arrange(config: &Config, mut done: Vec<Done>) -> Result<Vec<(PathBuf, Written)>> {
    let files = match &config.destination {
        Destination::Stdout => return Ok(vec![(PathBuf::from("-"), done.remove(0).written)]),
        Destination::File(files) => files,
    };
    if done.len() == 1 {
        return Ok(vec![(files.target.clone(), done.remove(0).written)]);
    }
    let index = if config.text {
        None
    } else {
        Some(index(config, files, &done)?)
    };
    let mut outputs: Vec<_> = done
        .into_iter()
        .enumerate()
        .map(|(i, shard)| (files.shard_path(i + 1), shard.written))
        .collect();
    outputs.extend(index.map(|index| (files.target.clone(), index)));
    Ok(outputs)
}

/// The public URLs of what a search engine is given: the output, or a text sitemap's shards.
fn public_urls(config: &Config, files: &Files, shards: usize) -> Vec<String> {
    let url_dir = config.output_url_dir.as_deref().unwrap_or_default();
    let url = |path: &Path| {
        let name = path.file_name().expect("a file");
        config
            .base
            .join(&format!("{url_dir}{}", encode_path(Path::new(name))))
    };
    if config.text && shards > 1 {
        (1..=shards).map(|n| url(&files.shard_path(n))).collect()
    } else {
        vec![url(&files.path)]
    }
}

/// Removes what an earlier run left that this one does not replace: shards past the new
/// count (all of them when the sitemap is not split), and for a split text sitemap the
/// unsplit output.
fn remove_stale(config: &Config, files: &Files, shards: usize, report: &mut Report) -> Result<()> {
    let mut stale = files.stale_shards(if shards == 1 { 0 } else { shards })?;
    // The unsplit text sitemap of an earlier run; through a symlink it may be anyone's file.
    if config.text && shards > 1 {
        match std::fs::symlink_metadata(&files.path) {
            Ok(meta) if meta.is_symlink() => report.warn(
                format!(
                    "{} is a symlink, and a split text sitemap has no file of that name",
                    files.path.display()
                ),
                "left as it is (remove it if it holds an earlier sitemap)",
            )?,
            Ok(meta) if meta.is_file() && output::looks_like_sitemap(&files.path)? => {
                stale.push(files.path.clone());
            }
            _ => {}
        }
    }
    for path in stale {
        if let Err(err) = std::fs::remove_file(&path) {
            report.warn(
                format!("cannot remove {}: {err}", path.display()),
                "an unused sitemap file of an earlier run stays",
            )?;
        }
    }
    Ok(())
}

/// --check: the new files against those on disk, byte for byte; a difference fails the run
/// with a summary of the URLs added, removed and re-dated.
fn check(
    files: &Files,
    outputs: Vec<(PathBuf, Written)>,
    shards: usize,
    spool: &mut Spool,
    robots: Option<robots::Plan>,
    churn_stop: Option<anyhow::Error>,
    report: &mut Report,
) -> Result<()> {
    let mut same = files
        .stale_shards(if shards == 1 { 0 } else { shards })?
        .is_empty();
    for (path, written) in outputs {
        same &= std::fs::read(&path).ok() == Some(written.contents()?);
    }
    let robots = robots.filter(|plan| plan.new.is_some()).map(|plan| {
        format!(
            "\n{} does not name the sitemap as --robots would",
            plan.path.display()
        )
    });
    if same && robots.is_none() && churn_stop.is_none() {
        report.note(format!("{} is up to date", files.path.display()));
        return Ok(());
    }
    let mut problems = String::new();
    if !same {
        let mut new = previous::Urls::new();
        for record in spool.replay()? {
            let record = record?;
            new.insert(record.loc, record.lastmod);
        }
        let old = previous::read(files)?;
        problems = format!(
            "{} is out of date: {}",
            files.path.display(),
            previous::difference(old.as_ref(), &new)
        );
    }
    problems.extend(robots);
    if let Some(stop) = churn_stop {
        problems.push_str(&format!("\n{stop}"));
    }
    bail!(
        "{}\nhint: run sitemapgen without --check to update it",
        problems.trim_start()
    )
}

/// `.html` and `.htm` files, in any case: the pages whose heads are read.
fn is_html(rel: &Path) -> bool {
    rel.extension()
        .map(OsStr::as_bytes)
        .is_some_and(|ext| ext.eq_ignore_ascii_case(b"html") || ext.eq_ignore_ascii_case(b"htm"))
}

/// The page's alternates if its head lets it be listed; None (reported) if not.
fn judge_head(
    page: &Page,
    loc: &str,
    head: head::Head,
    report: &mut Report,
) -> Result<Option<Vec<(String, String)>>> {
    let url = url::Url::parse(loc).expect("a loc is a URL");
    let (verdict, ignored) = head.verdict(&url);
    for what in ignored {
        report.warn(format!("{}: {what}", page.rel.display()), "ignored")?;
    }
    match verdict {
        Verdict::Noindex => report.left_out(page.rel, LeftOut::Noindex, "marked noindex"),
        Verdict::Redirect(to) => report.left_out(
            page.rel,
            LeftOut::Redirect,
            format_args!("a redirect to {to}"),
        ),
        Verdict::Canonical(to) => report.left_out(
            page.rel,
            LeftOut::Canonical,
            format_args!("its canonical URL is {to}"),
        ),
        Verdict::Keep {
            alternates,
            canonical_form,
        } => {
            if let Some(canonical) = canonical_form {
                report.warn(
                    format!(
                        "{}: its canonical URL {canonical} differs from {loc} only in form \
                         (the base URL or the slash options disagree with the site)",
                        page.rel.display()
                    ),
                    "listed as computed",
                )?;
            }
            return Ok(Some(alternates));
        }
    }
    Ok(None)
}

/// Where the first pass puts each URL.
enum Pass<'c> {
    /// Straight into the sitemap.
    Direct(Box<Writer<'c>>),
    /// Into the spool, for a second pass once every URL and alternate is known.
    Spooled(Spool, Links),
}

/// URLs into one document, or shards at the limits.
struct Writer<'c> {
    config: &'c Config,
    xhtml: bool,
    shard: Shard,
    done: Vec<Done>,
}

impl<'c> Writer<'c> {
    fn new(config: &'c Config, xhtml: bool) -> Result<Self> {
        Ok(Writer {
            config,
            xhtml,
            shard: Shard::open(config, xhtml)?,
            done: Vec::new(),
        })
    }

    fn push(&mut self, record: Record) -> Result<()> {
        let context = || format!("cannot write {}", self.config.destination.describe());
        let entry = Entry {
            loc: &record.loc,
            lastmod: record.lastmod.as_deref(),
            changefreq: record.changefreq.as_deref(),
            priority: record.priority.as_deref(),
            alternates: &record.alternates,
        };
        let shard = &mut self.shard;
        if shard.urls == self.config.max_urls || !shard.doc.fits(shard.doc.entry_len(&entry)) {
            can_split(self.config)?;
            let next = Shard::open(self.config, self.xhtml)?;
            let full = std::mem::replace(shard, next);
            self.done.push(full.finish().with_context(context)?);
        }
        let shard = &mut self.shard;
        shard.doc.write(&entry).with_context(context)?;
        shard.urls += 1;
        let instant = |date: &Option<String>| date.as_deref().and_then(lastmod::instant);
        if shard.newest.is_none() || instant(&record.lastmod) > instant(&shard.newest) {
            shard.newest = record.lastmod;
        }
        Ok(())
    }

    fn finish(mut self) -> Result<Vec<Done>> {
        let context = || format!("cannot write {}", self.config.destination.describe());
        self.done.push(self.shard.finish().with_context(context)?);
        Ok(self.done)
    }
}

/// The second pass: the spooled URLs, their alternates checked, into the sitemap.
fn write_spooled(
    config: &Config,
    spool: &mut Spool,
    mut links: Links,
    report: &mut Report,
) -> Result<Vec<Done>> {
    let xhtml = links.any();
    if xhtml {
        for record in spool.replay()? {
            links.list(&record?.loc);
        }
    }
    let mut writer = Writer::new(config, xhtml)?;
    for record in spool.replay()? {
        let mut record = record?;
        links.check(&mut record, report)?;
        writer.push(record)?;
    }
    writer.finish()
}

/// Makes the new sitemap visible, the index last. The state goes first and is put back if
/// the sitemap cannot follow: never one without the other. (A crash between the two leaves
/// the new state with the old sitemap, which the next run publishes as it should have been.)
fn publish(
    config: &Config,
    records: Option<Vec<(String, StateRecord)>>,
    outputs: Vec<(PathBuf, Written)>,
) -> Result<()> {
    let publish_sitemap = || -> Result<()> {
        for (path, written) in outputs {
            written.publish_at(&path)?;
        }
        Ok(())
    };
    match (records, &config.state) {
        (Some(records), Some(path)) => {
            let replaced = write_state(config, path, records)?;
            match publish_sitemap() {
                Ok(()) => {
                    replaced.keep();
                    Ok(())
                }
                Err(err) => {
                    replaced.undo()?;
                    Err(err)
                }
            }
        }
        _ => publish_sitemap(),
    }
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
    mut records: Vec<(String, StateRecord)>,
) -> Result<Replaced> {
    let context = || format!("cannot write state file {}", path.display());
    let mut sink = Sink::beside(path).with_context(context)?;
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

/// The sitemap index over `shards`, not yet published.
fn index(config: &Config, files: &Files, shards: &[Done]) -> Result<Written> {
    let url_dir = config
        .output_url_dir
        .as_deref()
        .expect("can_split allowed the split");
    if shards.len() > MAX_ENTRIES {
        bail!(
            "{} shards are more than a sitemap index may list ({MAX_ENTRIES})",
            shards.len()
        );
    }
    let index_context = || format!("cannot write {}", files.path.display());
    let sink = Sink::open(&config.destination, config.gzip, config.check)?;
    let mut index = Document::new(Kind::Index, sink, false).with_context(index_context)?;
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
            alternates: &[],
        };
        if !index.fits(index.entry_len(&entry)) {
            bail!("the sitemap index would pass the protocol's 50 MiB limit");
        }
        index.write(&entry).with_context(index_context)?;
    }
    let (sink, _) = index.finish().with_context(index_context)?;
    sink.finish().with_context(index_context)
}
