//! Deciding each page, in order: its URL, what its head says, whether another file already
//! has its URL, its lastmod. A page becomes an `Entry`, or is left out with the reason
//! reported.

pub mod lastmod;
pub mod verdict;

use std::io;

use anyhow::{Context, Result};

use crate::entry::{Alternate, Entry};
use crate::html;
use crate::report::{LeftOut, Report};
use crate::scan::head::Head;
use crate::scan::{Scanner, Want};
use crate::url::{BaseUrl, Dedup, MAX_LOC_LEN, Mapping};
use crate::walk::Page;
use crate::walk::rules::ValueRules;
use lastmod::{Churn, Dater, state::Record};
use verdict::Verdict;

/// How pages are decided.
#[derive(Debug)]
pub struct Settings {
    pub base: BaseUrl,
    pub mapping: Mapping,
    /// Read HTML pages' heads (noindex, redirects, canonical, hreflang).
    pub read_html: bool,
    pub changefreq: ValueRules,
    pub priority: ValueRules,
    pub lastmod: lastmod::Settings,
}

pub struct Decider<'s> {
    settings: &'s Settings,
    dater: Dater<'s>,
    dedup: Dedup,
    scanner: Scanner,
}

impl<'s> Decider<'s> {
    pub fn new(settings: &'s Settings, report: &mut Report) -> Result<Decider<'s>> {
        Ok(Decider {
            settings,
            dater: Dater::new(&settings.lastmod, report)?,
            dedup: Dedup::default(),
            scanner: Scanner::default(),
        })
    }

    /// The page's entry, or None when it is left out (and reported).
    pub fn decide(&mut self, page: &Page, report: &mut Report) -> Result<Option<Entry>> {
        let settings = self.settings;
        let page_path = settings.mapping.page_path(page.rel);
        let loc = settings.base.join(&page_path.path);
        if loc.len() >= MAX_LOC_LEN {
            report.excluded(page.rel, "URL too long");
            report.warn(
                format!(
                    "{}: its URL has {} characters, the limit is {}",
                    page.rel.display(),
                    loc.len(),
                    MAX_LOC_LEN - 1
                ),
                "not listed",
            )?;
            return Ok(None);
        }
        // A page --state must digest is read once, whole, for its head as well.
        let want = Want {
            head: settings.read_html && html::is_page(page.rel),
            digest: self.dater.digest_rules(page, &page_path.path),
        };
        let scanned = match self.scanner.scan(page.path, want) {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                vanished(page, report)?;
                return Ok(None);
            }
            scanned => scanned.with_context(|| format!("cannot read {}", page.path.display()))?,
        };
        let alternates = match scanned.head {
            None => Vec::new(),
            Some(head) => match judge_head(page, &loc, head, report)? {
                Some(alternates) => alternates,
                None => return Ok(None),
            },
        };
        if let Some(first) = self.dedup.claim(page.rel, &page_path) {
            report.excluded(page.rel, "duplicate URL");
            report.warn(
                format!(
                    "{} and {} both map to {loc}",
                    first.display(),
                    page.rel.display()
                ),
                "listing only the first",
            )?;
            return Ok(None);
        }
        Ok(Some(Entry {
            lastmod: self
                .dater
                .date(page, &page_path.path, scanned.digest, report)?,
            changefreq: settings.changefreq.value(page.candidate).map(String::from),
            priority: settings.priority.value(page.candidate).map(String::from),
            alternates,
            loc,
        }))
    }

    /// The churn against the state, once every page is decided; None without --state.
    pub fn churn(&mut self) -> Option<Churn> {
        self.dater.churn()
    }

    /// The state to record: every page's record; None without --state.
    pub fn into_records(self) -> Option<Vec<(String, Record)>> {
        self.dater.into_records()
    }
}

/// A page gone between its stat and its read: the site changed under the run. Like a page
/// gone before its stat (`walk`), a warning, and the page is not listed.
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

/// The page's alternates if its head lets it be listed; None (reported) if not.
fn judge_head(
    page: &Page,
    loc: &str,
    head: Head,
    report: &mut Report,
) -> Result<Option<Vec<Alternate>>> {
    let url = url::Url::parse(loc).expect("a loc is a URL");
    let (verdict, ignored) = verdict::judge(head, &url);
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
