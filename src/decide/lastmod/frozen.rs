//! `--state` dating a page: its record in the last run's state, found by its key (or by
//! the URL a published sitemap listed it at), keeps its date while its content digest is
//! the same; what this run records of it goes back to publish.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use anyhow::Result;

use super::churn::{Churn, SHOWN_REDATED};
use super::{Listed, StateSettings};
use crate::html;
use crate::known::{Fingerprint, Known};
use crate::outputs::changes::Kind;
use crate::report::Report;
use crate::state::{Found, OldState, Record, Recorded, Take};
use crate::w3c;
use crate::walk::Page;

/// Nanoseconds within which a file written just before the run may still be written again
/// with the same timestamps (file systems update them at a coarse clock tick).
const SETTLING: u64 = 2_000_000_000;

/// `--state`: the recorded dates, and what this run will record.
pub(super) struct Frozen {
    /// Files whose ctime is before this (nanoseconds since the epoch) were not being written
    /// when the run began.
    settled_before: i128,
    /// Shared with `Digests`, on the threads that prepare pages.
    pub(super) old: Arc<OldState>,
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
    pub(super) churn: Churn,
    /// The URLs re-dated on `RESTLESS` runs in a row or more, this one included.
    pub(super) restless: Vec<String>,
}

/// Runs in a row that re-date a page before a warning says its content may change on every
/// build (shuffled tiles, a build stamp): no digest tells that from an edit.
pub(super) const RESTLESS: u32 = 3;

/// Which pages `Dater::date` will need the digest of: with --state, those new or whose
/// stamp changed.
pub struct Digests(pub(super) Option<Arc<OldState>>);

impl Digests {
    /// Whether `date` will need the digest of `page` (the caller may read it once for every
    /// use): if so, whether the state of an earlier run knows nothing of the page: most such
    /// pages are never listed (redirects, noindex pages, duplicates of a canonical page), so
    /// their digest is best made once the head says they are. With it, what the state knows
    /// of the page's bytes and digest (when its digests are comparable): a page whose bytes
    /// are the same keeps that digest untokenized.
    pub fn needed(&self, page: &Page, url_path: &str) -> Option<(bool, Option<Known>)> {
        let old = self.0.as_ref()?;
        let seen = old.seen(url_path);
        let unchanged = old.comparable && seen.is_some_and(|(stamp, _)| stamp == Some(page.stamp));
        let unknown = seen.is_none() && !old.is_empty();
        let known = seen.and_then(|(_, known)| known).filter(|_| old.comparable);
        (!unchanged).then_some((unknown, known))
    }
}

impl Frozen {
    pub(super) fn new((settings, found): (&StateSettings, &Found)) -> Frozen {
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
            old: Arc::clone(&found.state),
            adopted: found.adopted,
            aliases,
            record: settings.record,
            added: HashSet::new(),
            churn: Churn::default(),
            restless: Vec::new(),
        }
    }

    /// The date of `page`, listed as `url`: the recorded one while its content is the same;
    /// else, for a page new to the state, its `source`'s (--source-dates, --sources) or
    /// `fresh`; for a changed one, `fresh`. `declared` is the date the page declares.
    pub(super) fn date(
        &mut self,
        page: &Page,
        url: &Listed,
        digested: impl FnOnce() -> Result<(blake3::Hash, Option<Fingerprint>)>,
        (declared, source): (
            Option<&str>,
            impl FnOnce(&mut Report) -> Result<Option<String>>,
        ),
        report: &mut Report,
        fresh: impl FnOnce(&mut Report) -> Result<Option<String>>,
    ) -> Result<(Option<String>, Option<Recorded>)> {
        let key = url.key;
        let taken = self.take(url);
        let (known, again) = (taken != Take::Unknown, taken == Take::Again);
        let old = match taken {
            Take::Record(record) => Some(record),
            Take::Unknown | Take::Again => None,
        };
        let unchanged_file = old
            .as_ref()
            .is_some_and(|o| self.old.comparable && o.stamp == Some(page.stamp));
        let (digest, fingerprint) = match &old {
            Some(o) if unchanged_file => (o.digest, o.fingerprint),
            _ => digested()?,
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
                report.why(|| match &o.lastmod {
                    Some(date) => format!(
                        "lastmod {date}: kept from the state, the date its content last \
                         changed (the same since)"
                    ),
                    None => "no lastmod: the state recorded none, and its content is the \
                             same"
                        .to_string(),
                });
                (o.lastmod, None, 0)
            }
            Some(o) => {
                report.why(|| {
                    let recorded = o.lastmod.as_deref().unwrap_or("no date");
                    let why = match newer(&o.lastmod) {
                        true => "the page declares a newer date",
                        false => "its content changed",
                    };
                    format!("re-dated: {why} since the state's record ({recorded})")
                });
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
                report.why(|| "new to the state: dated as a new page".to_string());
                self.churn.added += 1;
                let lastmod = match source(report)? {
                    Some(date) => Some(date),
                    None => fresh(report)?,
                };
                (lastmod, Some(Kind::Added), 0)
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

    /// The record of the page listed as `url`, taken: what no page takes of `old` are the
    /// removed pages. A published sitemap knows a page by the URL it listed.
    fn take(&self, url: &Listed) -> Take {
        let key = url.key;
        let mut taken = self.old.take(key);
        if taken == Take::Unknown && self.adopted && url.path != key {
            taken = self.old.take(url.path);
        }
        if taken == Take::Unknown
            && let Some(Some(alias)) = self.aliases.get(html::url_substance(key))
        {
            taken = self.old.take(alias);
        }
        taken
    }
}

/// What the state records as an added URL's digest: it has no content of its own, and its
/// date changes only with the date given.
const ADDED_DIGEST: [u8; 32] = [0; 32];

impl Frozen {
    /// `Dater::date_added` with --state.
    pub(super) fn date_added(
        &mut self,
        url: &Listed,
        given: Option<&str>,
        run: impl FnOnce() -> Option<String>,
    ) -> (Option<String>, Option<Recorded>) {
        let taken = self.old.take(url.key);
        let again = taken == Take::Again;
        let (lastmod, change) = match taken {
            Take::Record(old) => match given {
                Some(date) if old.lastmod.as_deref() != Some(date) => {
                    self.churn.redated += 1;
                    if self.churn.redated_urls.len() < SHOWN_REDATED {
                        self.churn.redated_urls.push(url.loc.to_string());
                    }
                    (Some(date.to_string()), Some(Kind::Redated))
                }
                _ => {
                    self.churn.kept += 1;
                    (old.lastmod.or_else(run), None)
                }
            },
            Take::Unknown | Take::Again => {
                self.churn.added += 1;
                (given.map(String::from).or_else(run), Some(Kind::Added))
            }
        };
        if !self.record {
            return (lastmod, None);
        }
        // A page listed in another form may have taken the key (its canonical URL declares
        // `a`, its file maps to `a/`): a state holds a key once.
        let repeated = again || !self.added.insert(url.key.into());
        let record = Record {
            lastmod: lastmod.clone(),
            digest: blake3::Hash::from_bytes(ADDED_DIGEST),
            stamp: None,
            streak: 0,
            fingerprint: None,
        };
        let recorded = Recorded {
            change,
            record: (!repeated).then(|| (url.key.to_string(), record)),
        };
        (lastmod, Some(recorded))
    }
}
