//! What goes into `<lastmod>`: a date by `--lastmod` mode, frozen by `--state` for pages
//! whose content did not change.

use std::path::Path;

use anyhow::{Context, Result, bail};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use crate::config::{Config, UsageError};
use crate::entries::Page;
use crate::git::GitDates;
use crate::report::Report;
use crate::state::{DigestRules, OldState, Record};

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
}

impl LastmodMode {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "mtime" => Ok(LastmodMode::Mtime),
            "none" => Ok(LastmodMode::Omit),
            "git" => Ok(LastmodMode::Git),
            _ if is_w3c_date(text) => Ok(LastmodMode::Fixed(text.to_string())),
            _ => bail!(
                "--lastmod {text:?} is not mtime, git, none, a date (2024-05-01) or a datetime \
                 with seconds and zone (2024-05-01T10:00:00+02:00)"
            ),
        }
    }
}

/// `YYYY-MM-DD`, or `YYYY-MM-DDThh:mm:ss[.s]TZD` with TZD `Z` or `±hh:mm`: the two W3C
/// Datetime forms that every search engine accepts (a time without a zone is not one), within
/// what the XSD's types allow: a year from 0001, a zone offset of at most 14 hours.
pub fn is_w3c_date(text: &str) -> bool {
    let date = format_description!("[year]-[month]-[day]");
    if text.len() == 10 {
        return Date::parse(text, date).is_ok_and(|date| date.year() >= 1);
    }
    // RFC 3339 also allows a lower-case `t`/`z` and a space separator; W3C does not.
    text.len() > 10
        && text.as_bytes()[10] == b'T'
        && !text.bytes().any(|b| b.is_ascii_lowercase())
        && OffsetDateTime::parse(text, &Rfc3339).is_ok_and(|when| {
            when.year() >= 1 && when.offset().whole_minutes().unsigned_abs() <= 14 * 60
        })
}

/// The instant a W3C date names, to compare dates written in different zones; a date alone
/// counts as its midnight in UTC.
pub fn instant(text: &str) -> Option<OffsetDateTime> {
    if text.len() == 10 {
        let date = Date::parse(text, format_description!("[year]-[month]-[day]")).ok()?;
        return Some(date.midnight().assume_utc());
    }
    OffsetDateTime::parse(text, &Rfc3339).ok()
}

/// A date from elsewhere (git) in a W3C form the schema takes: as it is if it is one; an
/// offset beyond the schema's 14 hours (git takes up to 99) moved to UTC; None otherwise.
pub fn w3c_form(text: &str) -> Option<String> {
    if is_w3c_date(text) {
        return Some(text.to_string());
    }
    let utc = OffsetDateTime::parse(text, &Rfc3339)
        .ok()?
        .to_offset(time::UtcOffset::UTC);
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]+00:00");
    utc.format(format).ok().filter(|date| is_w3c_date(date))
}

/// An mtime (seconds since the epoch) as `YYYY-MM-DDThh:mm:ss+00:00`, or None outside
/// 1970..=9999: a page cannot have changed before the epoch, and W3C years have four digits.
pub fn format_mtime(seconds: i64) -> Option<String> {
    let format = format_description!("[year]-[month]-[day]T[hour]:[minute]:[second]+00:00");
    let when = OffsetDateTime::from_unix_timestamp(seconds).ok()?;
    if seconds < 0 || when.year() > 9999 {
        return None;
    }
    when.format(format).ok()
}

/// Bytes read from a page at a time for its digest.
pub const READ_CHUNK: usize = 64 * 1024;

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
    old: OldState,
    new: Vec<(String, Record)>,
    buffer: Vec<u8>,
    churn: Churn,
}

/// How this run's dates compare with the state's.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Churn {
    pub added: u64,
    pub removed: u64,
    pub redated: u64,
    pub kept: u64,
}

impl<'c> Dater<'c> {
    pub fn new(config: &'c Config, report: &mut Report) -> Result<Dater<'c>> {
        let git = match config.lastmod {
            LastmodMode::Git => {
                let git = GitDates::load(&config.root).map_err(|e| UsageError(format!("{e:#}")))?;
                if git.shallow {
                    report.warn(
                        "the git history is shallow, so the dates of files not changed in it are \
                         the oldest commit's",
                        "writing them anyway (fetch the full history: git fetch --unshallow)",
                    )?;
                }
                Some(git)
            }
            _ => None,
        };
        let frozen = match &config.state {
            None => None,
            Some(path) => {
                let rules = &config.digest;
                let old = match crate::state::read(path, rules)? {
                    Some(old) => old,
                    None => {
                        report.note(format!(
                            "state file {} does not exist yet: a first run, every page is new",
                            path.display()
                        ));
                        OldState {
                            comparable: true,
                            ..OldState::default()
                        }
                    }
                };
                if !old.comparable {
                    report.warn(
                        "--digest-ignore differs from the rules the state was written with",
                        "digests are made anew and every recorded date is kept",
                    )?;
                }
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |since| since.as_nanos() as i128);
                Some(Frozen {
                    settled_before: now - SETTLING as i128,
                    rules,
                    old,
                    new: Vec::new(),
                    buffer: vec![0; READ_CHUNK],
                    churn: Churn::default(),
                })
            }
        };
        Ok(Dater {
            mode: &config.lastmod,
            clamp: config.source_date_epoch,
            git,
            frozen,
        })
    }

    /// The rules to digest `page` with when `date` will need its digest: with --state, for a
    /// page that is new or whose stamp changed. (The caller may read it once for every use.)
    pub fn digest_rules(&self, page: &Page, url_path: &str) -> Option<&DigestRules> {
        let frozen = self.frozen.as_ref()?;
        let unchanged = frozen.old.comparable
            && frozen
                .old
                .records
                .get(url_path)
                .is_some_and(|o| o.stamp == Some(page.stamp));
        (!unchanged).then_some(frozen.rules)
    }

    /// The lastmod of `page`, whose URL path under the base is `url_path`; `digest` is the
    /// page's digest if the caller has read it.
    pub fn date(
        &mut self,
        page: &Page,
        url_path: &str,
        digest: Option<blake3::Hash>,
        report: &mut Report,
    ) -> Result<Option<String>> {
        let Dater {
            mode,
            clamp,
            git,
            frozen,
        } = self;
        let fresh = |report: &mut Report| fresh_date(mode, *clamp, git.as_ref(), page, report);
        match frozen {
            None => fresh(report),
            Some(frozen) => frozen.date(page, url_path, digest, report, fresh),
        }
    }

    /// The churn against the state, once every page is dated; None without --state.
    pub fn churn(&mut self) -> Option<Churn> {
        let frozen = self.frozen.as_mut()?;
        frozen.churn.removed = frozen.old.records.len() as u64;
        Some(frozen.churn)
    }

    /// The state to record: every page's record; None without --state.
    pub fn into_records(self) -> Option<Vec<(String, Record)>> {
        self.frozen.map(|frozen| frozen.new)
    }
}

impl Frozen<'_> {
    fn date(
        &mut self,
        page: &Page,
        key: &str,
        digest: Option<blake3::Hash>,
        report: &mut Report,
        fresh: impl FnOnce(&mut Report) -> Result<Option<String>>,
    ) -> Result<Option<String>> {
        // What is left in `old` at the end are the removed pages.
        let old = self.old.records.remove(key);
        let unchanged_file = old
            .as_ref()
            .is_some_and(|o| self.old.comparable && o.stamp == Some(page.stamp));
        let digest = match (&old, digest) {
            (Some(o), _) if unchanged_file => o.digest,
            (_, Some(digest)) => digest,
            (_, None) => self
                .rules
                .read(page.path, &mut Vec::new(), 0, &mut self.buffer)
                .with_context(|| format!("cannot read {}", page.path.display()))?,
        };
        let lastmod = match old {
            Some(o) if o.digest == digest || !self.old.comparable => {
                self.churn.kept += 1;
                o.lastmod
            }
            Some(_) => {
                self.churn.redated += 1;
                fresh(report)?
            }
            None => {
                self.churn.added += 1;
                fresh(report)?
            }
        };
        self.new.push((
            key.to_string(),
            Record {
                lastmod: lastmod.clone(),
                digest,
                // A file changed in the last moments may change again within the same
                // timestamps: such a stamp proves nothing next time.
                stamp: (page.stamp.ctime < self.settled_before).then_some(page.stamp),
            },
        ));
        Ok(lastmod)
    }
}

/// The date `mode` gives a page that is new or changed.
fn fresh_date(
    mode: &LastmodMode,
    clamp: Option<i64>,
    git: Option<&GitDates>,
    page: &Page,
    report: &mut Report,
) -> Result<Option<String>> {
    match mode {
        LastmodMode::Omit => Ok(None),
        LastmodMode::Fixed(date) => Ok(Some(date.clone())),
        LastmodMode::Git => match git.and_then(|git| git.date(page.rel)) {
            Some(date) => Ok(Some(date.to_string())),
            None => {
                report.detail(format_args!(
                    "{}: not in the git history, dated by its mtime",
                    page.rel.display()
                ));
                mtime_date(page.rel, page.mtime, clamp, report)
            }
        },
        LastmodMode::Mtime => mtime_date(page.rel, page.mtime, clamp, report),
    }
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

    #[test]
    fn mtimes_are_utc_with_an_explicit_zone() {
        assert_eq!(format_mtime(0).unwrap(), "1970-01-01T00:00:00+00:00");
        assert_eq!(
            format_mtime(1_714_557_600).unwrap(),
            "2024-05-01T10:00:00+00:00"
        );
        assert_eq!(format_mtime(-1), None);
        assert_eq!(format_mtime(253_402_300_800), None, "year 10000");
    }

    #[test]
    fn dates_from_git_are_made_valid_and_compared_as_instants() {
        let ok = "2024-05-01T10:00:00+02:00";
        assert_eq!(w3c_form(ok).as_deref(), Some(ok));
        assert_eq!(
            w3c_form("2024-05-01T10:00:00+15:00").as_deref(),
            Some("2024-04-30T19:00:00+00:00")
        );
        assert_eq!(w3c_form("0000-01-01T00:00:00+00:00"), None);
        assert_eq!(w3c_form("yesterday"), None);
        assert!(
            instant("2024-05-01T05:00:00-05:00")
                < instant("2024-05-01T10:00:00+09:00").map(|t| t + time::Duration::hours(24))
        );
        assert!(instant("2024-05-01T05:00:00-05:00") > instant("2024-05-01T10:00:00+09:00"));
        assert!(instant("2024-05-02") > instant("2024-05-01T23:00:00Z"));
    }
}
