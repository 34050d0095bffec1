//! What goes into `<lastmod>`: a date by `--lastmod` mode, frozen by `--state` for pages
//! whose content did not change.

mod churn;
mod frozen;
pub mod git;

use crate::report::shown_path;
pub use churn::Churn;
pub use frozen::Digests;
use frozen::{Frozen, RESTLESS};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};

use super::sources::SourceDates;
use crate::error::UsageError;
use crate::known::Fingerprint;
use crate::report::{Report, Warning};
use crate::state::{Found, Recorded};
use crate::w3c::{format_mtime, is_w3c_date};
use crate::walk::Page;
use git::{GitDates, Tree};

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

/// How `--state` dates pages (by the digest the scan's settings make).
#[derive(Debug)]
pub struct StateSettings {
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

/// Decides each page's lastmod.
pub struct Dater<'c> {
    mode: &'c LastmodMode,
    /// SOURCE_DATE_EPOCH: later mtimes are clamped to it.
    clamp: Option<i64>,
    git: Option<GitDates>,
    frozen: Option<Frozen>,
    /// --source-dates and --sources: the first date of a page the state does not know.
    sources: SourceDates,
}

impl<'c> Dater<'c> {
    /// `found` is the state of the last run, with --state.
    pub fn new(
        settings: &'c Settings,
        found: Option<&Found>,
        sources: SourceDates,
        report: &mut Report,
    ) -> Result<Dater<'c>> {
        let git = match settings.mode.uses_git() {
            true => {
                // git runs beside the walk; the first page it dates waits for it.
                let tree = Tree::open(&settings.root)
                    .with_context(|| {
                        format!(
                            "--lastmod git: {} is not inside a git work tree",
                            shown_path(&settings.root)
                        )
                    })
                    .map_err(git_failed)?;
                if tree.shallow {
                    report.warn(
                        Warning::Run,
                        "the git history is shallow, so the dates of files not changed in it are \
                         the oldest commit's",
                        "writing them anyway (fetch the full history: git fetch --unshallow)",
                    )?;
                }
                Some(GitDates::start(vec![tree]).map_err(git_failed)?)
            }
            false => None,
        };
        let frozen = settings.state.as_ref().zip(found).map(Frozen::new);
        Ok(Dater {
            mode: &settings.mode,
            clamp: settings.source_date_epoch,
            git,
            frozen,
            sources,
        })
    }

    /// What tells which pages `date` will need the digest of, for the threads that read
    /// the pages.
    pub fn digests(&self) -> Digests {
        Digests(self.frozen.as_ref().map(|frozen| Arc::clone(&frozen.old)))
    }

    /// The lastmod of `page`, listed as `url`, and what --state records of it; `digested`
    /// gives the page's digest and the fingerprint of its bytes (what the caller read, or
    /// read then), called only when --state needs them; `declared` is the date the page
    /// declares, if dates come from the pages.
    pub fn date(
        &mut self,
        page: &Page,
        url: &Listed,
        digested: impl FnOnce() -> Result<(blake3::Hash, Option<Fingerprint>)>,
        declared: Option<String>,
        report: &mut Report,
    ) -> Result<(Option<String>, Option<Recorded>)> {
        let Dater {
            mode,
            clamp,
            git,
            frozen,
            sources,
        } = self;
        let declared = declared.as_deref();
        let mut fresh =
            |report: &mut Report| fresh_date(mode, declared, *clamp, git.as_mut(), page, report);
        // A new page's date: the one it declares, else its source's, else the mode's.
        let mut source = |report: &mut Report| -> Result<Option<String>> {
            if declared.is_some() {
                return Ok(None);
            }
            let source = sources.get(&page.rel, [url.path, url.key], report)?;
            Ok(source.map(|(date, flag)| {
                report.why(|| format!("lastmod {date}: the date of its source ({flag})"));
                date.to_string()
            }))
        };
        match frozen {
            None => match source(report)? {
                Some(date) => Ok((Some(date), None)),
                None => Ok((fresh(report)?, None)),
            },
            Some(frozen) => frozen.date(page, url, digested, (declared, source), report, fresh),
        }
    }

    /// The lastmod of a URL of `--add-urls`, listed as `url` (its key the same as its path),
    /// given with the date `given` or none: that date; else, with --state, the date the
    /// state has for it; else the run's (the date `--lastmod` gives every URL, or the run's
    /// time). With --lastmod none, no date at all. With it, what --state records of it.
    pub fn date_added(
        &mut self,
        url: &Listed,
        given: Option<&str>,
    ) -> (Option<String>, Option<Recorded>) {
        let given = given.filter(|_| *self.mode != LastmodMode::Omit);
        let run = || run_date(self.mode, self.clamp);
        match &mut self.frozen {
            None => (given.map(String::from).or_else(run), None),
            Some(frozen) => frozen.date_added(url, given, run),
        }
    }

    /// Once every page is dated: waits for git if no page did, so that its failure is told
    /// whatever the pages needed; warns of the pages re-dated on every run of late.
    pub fn finish(&mut self, report: &mut Report) -> Result<()> {
        if let Some(git) = &mut self.git {
            git.wait().map_err(git_failed)?;
        }
        self.sources.wait(report)?;
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

/// How a page is listed.
pub struct Listed<'a> {
    /// The URL path its file maps to, under the base URL: the state knows the page by it.
    pub key: &'a str,
    /// The URL path it is listed at (the form its canonical URL declares, or `key`).
    pub path: &'a str,
    pub loc: &'a str,
}

/// The date of a URL with no date of its own and none recorded: the one `--lastmod` gives
/// every URL, or else the run's time (clamped by SOURCE_DATE_EPOCH, as an mtime is).
fn run_date(mode: &LastmodMode, clamp: Option<i64>) -> Option<String> {
    match mode {
        LastmodMode::Omit => None,
        LastmodMode::Fixed(date) => Some(date.clone()),
        LastmodMode::Page(fallback) => run_date(fallback, clamp),
        LastmodMode::Mtime | LastmodMode::Git => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| since.as_secs() as i64);
            format_mtime(clamp.map_or(now, |epoch| now.min(epoch)))
        }
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
            Some(date) => {
                report.why(|| format!("lastmod {date}: the date the page declares"));
                Ok(Some(date.to_string()))
            }
            None => {
                report.detail(format_args!(
                    "{}: declares no date, dated by the fallback",
                    shown_path(&page.rel)
                ));
                fresh_date(fallback, None, clamp, git, page, report)
            }
        },
        LastmodMode::Omit => {
            report.why(|| "no lastmod (--lastmod none)".to_string());
            Ok(None)
        }
        LastmodMode::Fixed(date) => {
            report.why(|| format!("lastmod {date}: the date --lastmod gives every page"));
            Ok(Some(date.clone()))
        }
        LastmodMode::Git => match git
            .map(|git| git.date(0, page.rel.as_os_str().as_encoded_bytes()))
            .transpose()
        {
            Err(e) => Err(git_failed(e).into()),
            Ok(Some(Some(date))) => {
                report.why(|| format!("lastmod {date}: the last commit that changed it (git)"));
                Ok(Some(date.to_string()))
            }
            Ok(_) => {
                report.detail(format_args!(
                    "{}: not in the git history, dated by its mtime",
                    shown_path(&page.rel)
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
    if let Some(date) = &date {
        let clamped = match seconds < mtime {
            true => ", clamped to SOURCE_DATE_EPOCH",
            false => "",
        };
        report.why(|| format!("lastmod {date}: the file's mtime{clamped}"));
    }
    if date.is_none() {
        report.warn(
            Warning::Mtime,
            format!(
                "{}: mtime {seconds} is before 1970 or after 9999",
                shown_path(rel)
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
