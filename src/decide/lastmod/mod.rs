//! What goes into `<lastmod>`: a date by `--lastmod` mode, frozen by `--state` for pages
//! whose content did not change.

pub mod git;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use crate::changes::Kind;
use crate::error::UsageError;
use crate::html;
use crate::report::{Report, Warning};
use crate::scan::digest::DigestRules;
use crate::scan::{Scanner, Want};
use crate::state::{Fingerprint, Found, Known, OldState, Record, Take};
use crate::w3c;
use crate::w3c::{format_mtime, is_w3c_date};
use crate::walk::Page;
use git::GitDates;

/// How dates are made.
#[derive(Debug)]
pub struct Settings {
    pub mode: LastmodMode,
    /// SOURCE_DATE_EPOCH, which clamps later mtimes.
    pub source_date_epoch: Option<i64>,
    /// DIR, whose git history `--lastmod git` reads.
    pub root: PathBuf,
    pub state: Option<StateSettings>,
}

/// How `--state` dates pages.
#[derive(Debug)]
pub struct StateSettings {
    /// --digest, --digest-region, --digest-ignore.
    pub digest: DigestRules,
    /// Whether the run records the pages for the new state (it writes one: not under
    /// --check, nor for a preview on standard output).
    pub record: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LastmodMode {
    /// The file's modification time, in UTC.
    Mtime,
    /// No `<lastmod>` at all.
    Omit,
    /// The same W3C date or datetime on every URL, written exactly as given.
    Fixed(String),
    /// The committer date of the last commit that touched the file.
    Git,
    /// The date the page declares in its markup; for a page that declares none, the date
    /// of the mode after it (`page,git`; `page` alone is `page,mtime`).
    Page(Box<LastmodMode>),
}

impl LastmodMode {
    pub fn parse(text: &str) -> Result<Self> {
        if let Some(rest) = text.strip_prefix("page") {
            let fallback = match rest.strip_prefix(',') {
                None if rest.is_empty() => LastmodMode::Mtime,
                Some(fallback) if !fallback.starts_with("page") => {
                    Self::parse(fallback).map_err(|_| {
                        anyhow::anyhow!(
                            "--lastmod {text:?}: after page, comes mtime, git, none or a date"
                        )
                    })?
                }
                _ => bail!("--lastmod {text:?}: after page, comes mtime, git, none or a date"),
            };
            return Ok(LastmodMode::Page(Box::new(fallback)));
        }
        match text {
            "mtime" => Ok(LastmodMode::Mtime),
            "none" => Ok(LastmodMode::Omit),
            "git" => Ok(LastmodMode::Git),
            _ if is_w3c_date(text) => Ok(LastmodMode::Fixed(text.to_string())),
            _ => bail!(
                "--lastmod {text:?} is not mtime, git, none, page (with a fallback: page,git), \
                 a date (2024-05-01) or a datetime with seconds and zone \
                 (2024-05-01T10:00:00+02:00)"
            ),
        }
    }

    /// Whether dates come from the pages' markup.
    pub fn reads_pages(&self) -> bool {
        matches!(self, LastmodMode::Page(_))
    }

    /// Whether dates come from git, first or as a fallback.
    fn uses_git(&self) -> bool {
        match self {
            LastmodMode::Git => true,
            LastmodMode::Page(fallback) => fallback.uses_git(),
            _ => false,
        }
    }
}

/// Nanoseconds within which a file written just before the run may still be written again
/// with the same timestamps (file systems update them at a coarse clock tick).
const SETTLING: u64 = 2_000_000_000;

/// Decides each page's lastmod.
pub struct Dater<'c> {
    mode: &'c LastmodMode,
    /// SOURCE_DATE_EPOCH: later mtimes are clamped to it.
    clamp: Option<i64>,
    git: Option<GitDates>,
    frozen: Option<Frozen<'c>>,
}

/// `--state`: the recorded dates, and what this run will record.
struct Frozen<'c> {
    /// Files whose ctime is before this (nanoseconds since the epoch) were not being written
    /// when the run began.
    settled_before: i128,
    rules: &'c DigestRules,
    /// Shared with `Digests`, on the threads that prepare pages.
    old: Arc<OldState>,
    /// Whether `old` holds a published sitemap's dates rather than a state.
    adopted: bool,
    /// When it does, the key it lists for each URL substance (`html::url_substance`), None
    /// for a substance it lists in two forms: a page is found by its URL in another form
    /// (`guide/page-3` for `guide/page-3/`), as a canonical URL is.
    aliases: HashMap<String, Option<String>>,
    /// Whether the pages are recorded for the new state.
    record: bool,
    /// The keys recorded that the old state does not know: a key is recorded once.
    added: HashSet<Box<str>>,
    /// To read a page whose digest the caller did not make.
    scanner: Scanner,
    churn: Churn,
    /// The URLs re-dated on `RESTLESS` runs in a row or more, this one included.
    restless: Vec<String>,
}

/// Runs in a row that re-date a page before a warning says its content may change on every
/// build (shuffled tiles, a build stamp): no digest tells that from an edit.
const RESTLESS: u32 = 3;

/// How this run's dates compare with the state's.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Churn {
    pub added: u64,
    pub removed: u64,
    pub redated: u64,
    pub kept: u64,
    /// The first `SHOWN_REDATED` URLs re-dated, in the sitemap's order: what --max-churn's
    /// stop names, for a text sitemap or a fixed --lastmod does not show them re-dated.
    pub redated_urls: Vec<String>,
}

/// How many re-dated URLs the churn stop names.
const SHOWN_REDATED: usize = 5;

impl fmt::Display for Churn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::report::thousands;
        write!(
            f,
            "{} added, {} removed, {} re-dated, {} kept",
            thousands(self.added),
            thousands(self.removed),
            thousands(self.redated),
            thousands(self.kept)
        )
    }
}

impl Churn {
    /// Refuses a run that would re-date more than `limit` percent of the URLs the state
    /// knows.
    pub fn check(&self, limit: f64) -> Result<()> {
        let known = self.kept + self.redated;
        if known == 0 {
            return Ok(());
        }
        let percent = self.redated as f64 * 100.0 / known as f64;
        if percent > limit {
            let mut urls: String = self
                .redated_urls
                .iter()
                .map(|url| format!("\n  ~ {url}"))
                .collect();
            let unnamed = self.redated - self.redated_urls.len() as u64;
            if unnamed > 0 {
                urls.push_str(&format!(
                    "\n  ~ … and {} more",
                    crate::report::thousands(unnamed)
                ));
            }
            bail!(
                "{} of {known} known URLs ({percent:.1}%) would get a new lastmod, more than \
                 --max-churn {limit}%; nothing written{urls}\n\
                 hint: if every page really changed, run once with a higher --max-churn",
                self.redated
            );
        }
        Ok(())
    }
}

impl<'c> Dater<'c> {
    /// `found` is the state of the last run, with --state.
    pub fn new(
        settings: &'c Settings,
        found: Option<&Found>,
        report: &mut Report,
    ) -> Result<Dater<'c>> {
        let git = match settings.mode.uses_git() {
            true => {
                // git runs beside the walk; the first page it dates waits for it.
                let git = GitDates::start(&settings.root).map_err(git_failed)?;
                if git.shallow {
                    report.warn(
                        Warning::Run,
                        "the git history is shallow, so the dates of files not changed in it are \
                         the oldest commit's",
                        "writing them anyway (fetch the full history: git fetch --unshallow)",
                    )?;
                }
                Some(git)
            }
            false => None,
        };
        let frozen = settings.state.as_ref().zip(found).map(Frozen::new);
        Ok(Dater {
            mode: &settings.mode,
            clamp: settings.source_date_epoch,
            git,
            frozen,
        })
    }

    /// What tells which pages `date` will need the digest of, for the threads that read
    /// the pages.
    pub fn digests(&self) -> Digests<'c> {
        Digests(
            self.frozen
                .as_ref()
                .map(|frozen| (Arc::clone(&frozen.old), frozen.rules)),
        )
    }

    /// The lastmod of `page`, listed as `url`, and what --state records of it; `read` is
    /// the page's digest and the fingerprint of its bytes if the caller has read it;
    /// `declared` the date the page declares, if dates come from the pages.
    pub fn date(
        &mut self,
        page: &Page,
        url: &Listed,
        read: Option<(blake3::Hash, Option<Fingerprint>)>,
        declared: Option<String>,
        report: &mut Report,
    ) -> Result<(Option<String>, Option<Recorded>)> {
        let Dater {
            mode,
            clamp,
            git,
            frozen,
        } = self;
        let declared = declared.as_deref();
        let mut fresh =
            |report: &mut Report| fresh_date(mode, declared, *clamp, git.as_mut(), page, report);
        match frozen {
            None => Ok((fresh(report)?, None)),
            Some(frozen) => frozen.date(page, url, read, declared, report, fresh),
        }
    }

    /// Once every page is dated: waits for git if no page did, so that its failure is told
    /// whatever the pages needed; warns of the pages re-dated on every run of late.
    pub fn finish(&mut self, report: &mut Report) -> Result<()> {
        if let Some(git) = &mut self.git {
            git.wait().map_err(git_failed)?;
        }
        let Some(frozen) = self.frozen.as_ref().filter(|f| !f.restless.is_empty()) else {
            return Ok(());
        };
        for loc in &frozen.restless {
            report.detail(format_args!(
                "re-dated on {RESTLESS} runs in a row or more: {loc}"
            ));
        }
        report.warn(
            Warning::Run,
            format_args!(
                "{} re-dated on each of the last {RESTLESS} runs or more: their content may \
                 change on every build (shuffled, or stamped with the build)",
                crate::report::count(frozen.restless.len() as u64, "page")
            ),
            "see --digest-ignore and --digest-region (-v lists them)",
        )
    }

    /// The churn against the state, once every page is dated; None without --state.
    pub fn churn(&mut self) -> Option<Churn> {
        let frozen = self.frozen.as_mut()?;
        frozen.churn.removed = frozen.old.untaken() as u64;
        Some(frozen.churn.clone())
    }
}

/// Which pages `Dater::date` will need the digest of: with --state, those new or whose
/// stamp changed.
pub struct Digests<'c>(Option<(Arc<OldState>, &'c DigestRules)>);

impl<'c> Digests<'c> {
    /// The rules to digest `page` with when `date` will need its digest (the caller may
    /// read it once for every use), and whether the state of an earlier run knows nothing
    /// of the page: most such pages are never listed (redirects, noindex pages, duplicates
    /// of a canonical page), so their digest is best made once the head says they are.
    /// With them, what the state knows of the page's bytes and digest (when its digests
    /// are comparable): a page whose bytes are the same keeps that digest untokenized.
    pub fn rules(
        &self,
        page: &Page,
        url_path: &str,
    ) -> Option<(&'c DigestRules, bool, Option<Known>)> {
        let (old, rules) = self.0.as_ref()?;
        let seen = old.seen(url_path);
        let unchanged = old.comparable && seen.is_some_and(|(stamp, _)| stamp == Some(page.stamp));
        let unknown = seen.is_none() && !old.is_empty();
        let known = seen.and_then(|(_, known)| known).filter(|_| old.comparable);
        (!unchanged).then_some((*rules, unknown, known))
    }
}

/// What --state records of a dated page, for the new state and the changes file.
pub struct Recorded {
    /// Added or re-dated; None for a page that kept its date.
    pub change: Option<Kind>,
    /// The page's record under its key; None when a page before it had the key, as a
    /// state holds a key once.
    pub record: Option<(String, Record)>,
}

/// How a page is listed.
pub struct Listed<'a> {
    /// The URL path its file maps to, under the base URL: the state knows the page by it.
    pub key: &'a str,
    /// The URL path it is listed at (the form its canonical URL declares, or `key`).
    pub path: &'a str,
    pub loc: &'a str,
}

impl<'c> Frozen<'c> {
    fn new((settings, found): (&'c StateSettings, &Found)) -> Frozen<'c> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos() as i128);
        let mut aliases = HashMap::new();
        if found.adopted {
            for (key, _) in found.state.records() {
                aliases
                    .entry(html::url_substance(key).to_string())
                    .and_modify(|alias| *alias = None)
                    .or_insert_with(|| Some(key.to_string()));
            }
        }
        Frozen {
            settled_before: now - SETTLING as i128,
            rules: &settings.digest,
            old: Arc::clone(&found.state),
            adopted: found.adopted,
            aliases,
            record: settings.record,
            added: HashSet::new(),
            scanner: Scanner::default(),
            churn: Churn::default(),
            restless: Vec::new(),
        }
    }

    fn date(
        &mut self,
        page: &Page,
        url: &Listed,
        read: Option<(blake3::Hash, Option<Fingerprint>)>,
        declared: Option<&str>,
        report: &mut Report,
        fresh: impl FnOnce(&mut Report) -> Result<Option<String>>,
    ) -> Result<(Option<String>, Option<Recorded>)> {
        let key = url.key;
        // What no page takes of `old` are the removed pages. A published sitemap knows a
        // page by the URL it listed.
        let mut taken = self.old.take(key);
        if taken == Take::Unknown && self.adopted && url.path != key {
            taken = self.old.take(url.path);
        }
        if taken == Take::Unknown
            && let Some(Some(alias)) = self.aliases.get(html::url_substance(key))
        {
            taken = self.old.take(alias);
        }
        let (known, again) = (taken != Take::Unknown, taken == Take::Again);
        let old = match taken {
            Take::Record(record) => Some(record),
            Take::Unknown | Take::Again => None,
        };
        let unchanged_file = old
            .as_ref()
            .is_some_and(|o| self.old.comparable && o.stamp == Some(page.stamp));
        let (digest, fingerprint) = match (&old, read) {
            (Some(o), _) if unchanged_file => (o.digest, o.fingerprint),
            (_, Some(read)) => read,
            (_, None) => {
                let want = Want {
                    html: html::is_page(&page.rel),
                    head: false,
                    digest: Some(self.rules),
                    dates: false,
                    images: None,
                    known: None,
                };
                let open = || std::fs::File::open(&page.path);
                let scanned = self.scanner.scan(open, page.stamp.size, want);
                let scanned =
                    scanned.with_context(|| format!("cannot read {}", page.path.display()))?;
                let digest = scanned.digest.context("a digest was asked for")?;
                (digest, scanned.fingerprint)
            }
        };
        // A date the page declares moves its lastmod forward, whatever its content did. (No
        // date is newer than none: the recorded one is parsed only against a declared one.)
        let newer = |recorded: &Option<String>| match declared.and_then(w3c::instant) {
            Some(declared) => Some(declared) > recorded.as_deref().and_then(w3c::instant),
            None => false,
        };
        let (lastmod, change, streak) = match old {
            Some(o) if (o.digest == digest || !self.old.comparable) && !newer(&o.lastmod) => {
                self.churn.kept += 1;
                (o.lastmod, None, 0)
            }
            Some(o) => {
                self.churn.redated += 1;
                if self.churn.redated_urls.len() < SHOWN_REDATED {
                    self.churn.redated_urls.push(url.loc.to_string());
                }
                (
                    fresh(report)?,
                    Some(Kind::Redated),
                    o.streak.saturating_add(1),
                )
            }
            None => {
                self.churn.added += 1;
                (fresh(report)?, Some(Kind::Added), 0)
            }
        };
        if streak >= RESTLESS {
            self.restless.push(url.loc.to_string());
        }
        if !self.record {
            return Ok((lastmod, None));
        }
        // Two listed pages with one key (a/index.html in the form its canonical URL
        // declares, a/index.htm as a/): the first is recorded, as a state holds a key once.
        let repeated = again || (!known && !self.added.insert(key.into()));
        let record = Record {
            lastmod,
            digest,
            // A file changed in the last moments may change again within the same
            // timestamps: such a stamp proves nothing next time.
            stamp: (page.stamp.ctime < self.settled_before).then_some(page.stamp),
            streak,
            fingerprint,
        };
        let lastmod = record.lastmod.clone();
        let recorded = Recorded {
            change,
            record: (!repeated).then(|| (key.to_string(), record)),
        };
        Ok((lastmod, Some(recorded)))
    }
}

/// The date `mode` gives a page that is new or changed; `declared`, the date it declares.
fn fresh_date(
    mode: &LastmodMode,
    declared: Option<&str>,
    clamp: Option<i64>,
    git: Option<&mut GitDates>,
    page: &Page,
    report: &mut Report,
) -> Result<Option<String>> {
    match mode {
        LastmodMode::Page(fallback) => match declared {
            Some(date) => Ok(Some(date.to_string())),
            None => {
                report.detail(format_args!(
                    "{}: declares no date, dated by the fallback",
                    page.rel.display()
                ));
                fresh_date(fallback, None, clamp, git, page, report)
            }
        },
        LastmodMode::Omit => Ok(None),
        LastmodMode::Fixed(date) => Ok(Some(date.clone())),
        LastmodMode::Git => match git.map(|git| git.date(&page.rel)).transpose() {
            Err(e) => Err(git_failed(e).into()),
            Ok(Some(Some(date))) => Ok(Some(date.to_string())),
            Ok(_) => {
                report.detail(format_args!(
                    "{}: not in the git history, dated by its mtime",
                    page.rel.display()
                ));
                mtime_date(&page.rel, page.mtime, clamp, report)
            }
        },
        LastmodMode::Mtime => mtime_date(&page.rel, page.mtime, clamp, report),
    }
}

/// git failing is a usage error, as DIR outside a work tree is.
fn git_failed(e: anyhow::Error) -> UsageError {
    UsageError(format!("{e:#}"))
}

fn mtime_date(
    rel: &Path,
    mtime: i64,
    clamp: Option<i64>,
    report: &mut Report,
) -> Result<Option<String>> {
    let seconds = clamp.map_or(mtime, |epoch| mtime.min(epoch));
    let date = format_mtime(seconds);
    if date.is_none() {
        report.warn(
            Warning::Mtime,
            format!(
                "{}: mtime {seconds} is before 1970 or after 9999",
                rel.display()
            ),
            "written without lastmod",
        )?;
    }
    Ok(date)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_dates_must_be_w3c_with_a_zone() {
        for good in [
            "2024-05-01",
            "2024-05-01T10:00:00+02:00",
            "2024-05-01T10:00:00Z",
            "2024-05-01T10:00:00.25-05:30",
            "2024-05-01T10:00:00+14:00",
        ] {
            assert_eq!(
                LastmodMode::parse(good).unwrap(),
                LastmodMode::Fixed(good.into())
            );
        }
        for bad in [
            "2024-02-30",
            "2024-05",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00Z",
            "2024-05-01t10:00:00z",
            "2024-05-01 10:00:00Z",
            "0000-01-01",
            "0000-01-01T10:00:00Z",
            "2024-05-01T10:00:00+14:01",
            "yesterday",
            "",
        ] {
            assert!(LastmodMode::parse(bad).is_err(), "{bad} accepted");
        }
    }
}
