//! Deciding each page, in order: its URL, what its head says (and so the URL the site
//! declares for it), whether robots.txt disallows it, whether another file already has its
//! URL, its lastmod. A page becomes an `Entry`, or is left out with the reason reported.
//! Once the pages are decided, the URLs of `--add-urls` (`added`) follow, with a page's
//! checks.

pub mod added;
pub mod lastmod;
mod plan;
pub mod rules;
mod sources;
pub mod verdict;

use crate::report::shown_path;
use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use globset::Candidate;
use url::Url;

use crate::entry::{Alternate, Entry};
use crate::error::Access;
use crate::outputs::robots::Disallow;
use crate::report::{self, Reason, Report, Warning};
use crate::scan;
use crate::scan::Scanner;
use crate::scan::images::MAX_IMAGES;
use crate::state::Found;
use crate::state::Recorded;
use crate::url::{BaseUrl, Dedup, MAX_LOC_LEN, Mapping};
use crate::walk::Page;
use added::Added;
use lastmod::{Churn, Dater, Listed};
use plan::Judged;
pub use plan::{Planned, Planner, Prepared};
use rules::PathRules;
use sources::SourceDates;
use verdict::{Form, Verdict, suggested_base};

/// How pages are decided.
#[derive(Debug)]
pub struct Settings {
    pub base: BaseUrl,
    pub mapping: Mapping,
    /// Read HTML pages' heads (noindex, redirects, canonical, hreflang).
    pub read_html: bool,
    /// Leave out error pages and app shells (the default excludes' rule for what the globs
    /// cannot tell by name alone).
    pub error_pages: bool,
    /// --computed-urls: list every page at the URL computed from its path, even when its
    /// canonical URL declares another form of it.
    pub computed_urls: bool,
    /// DIR/robots.txt, whose disallowed URLs are left out (None with --ignore-disallow, or
    /// when DIR is not the root of its host, so that crawlers never read it).
    pub robots_txt: Option<std::path::PathBuf>,
    /// --changefreq, --priority, --group: what the globs give each page.
    pub rules: PathRules,
    pub lastmod: lastmod::Settings,
    /// How the pages are read: `--digest-region`, `--state`'s digest, `--images`.
    pub scan: scan::Settings,
    /// --add-urls: files of URLs to list besides the pages.
    pub add_urls: Vec<PathBuf>,
    /// --source-dates and --sources: the first date of each page the state does not know.
    pub source_dates: Option<PathBuf>,
    pub sources: Option<PathBuf>,
}

/// A page decided: its entry in the sitemap, and what --state recorded of it.
pub struct Decided {
    pub entry: Entry,
    pub recorded: Option<Recorded>,
}

/// Where a page is listed: at `loc`, in the form its canonical URL declares when that is
/// another form of its own URL path, with its alternates.
struct ListedAt {
    alternates: Vec<Alternate>,
    declared: Option<String>,
    loc: String,
}

pub struct Decider<'s> {
    settings: &'s Settings,
    base: Url,
    disallow: Option<Disallow>,
    dater: Dater<'s>,
    dedup: Dedup,
    /// Pages with a canonical URL, and for those on another host or outside the base URL,
    /// the base URL each suggests: many of them mean the base URL is wrong.
    canonicals: u64,
    elsewhere: HashMap<String, u64>,
    /// The URLs of --add-urls, listed once the pages are.
    added: Added,
    /// To read a page whose digest --state needs and the walk's thread did not make.
    scanner: Scanner,
}

impl<'s> Decider<'s> {
    /// `found` is the state of the last run, with --state.
    pub fn new(
        settings: &'s Settings,
        found: Option<&Found>,
        report: &mut Report,
    ) -> Result<Decider<'s>> {
        // First: a mistake in them is the user's, told before the site is read.
        let added = Added::read(&settings.add_urls, &settings.base, report)?;
        let sources = SourceDates::read(
            settings.source_dates.as_deref(),
            settings.sources.as_deref(),
            &settings.base,
            report,
        )?;
        let disallow = match &settings.robots_txt {
            Some(path) => Disallow::read(path)?,
            None => None,
        };
        Ok(Decider {
            settings,
            base: Url::parse(&settings.base.join("")).context("the base URL")?,
            disallow,
            dater: Dater::new(&settings.lastmod, found, sources, report)?,
            scanner: Scanner::default(),
            dedup: Dedup::default(),
            canonicals: 0,
            elsewhere: HashMap::new(),
            added,
        })
    }

    /// What prepares the pages for `decide`, on the threads that walk the site.
    pub fn planner(&self) -> Planner<'s> {
        Planner {
            settings: self.settings,
            base: self.base.clone(),
            digests: self.dater.digests(),
        }
    }

    /// The page's entry, given what was read of it, or None when it is left out (and
    /// reported).
    pub fn decide(&mut self, prepared: Prepared, report: &mut Report) -> Result<Option<Decided>> {
        let Prepared {
            planned,
            scanned,
            judged,
        } = prepared;
        let Planned {
            page,
            computed,
            loc,
            given,
        } = planned;
        if too_long(&page, &loc, report)? {
            return Ok(None);
        }
        let scanned = match scanned {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                vanished(&page, report)?;
                return Ok(None);
            }
            scanned => scanned.with_context(|| Access::ReadSite(shown_path(&page.path)))?,
        };
        let Some(ListedAt {
            alternates,
            declared,
            loc,
        }) = self.listed_at(&page, loc, &computed.path, judged?, report)?
        else {
            return Ok(None);
        };
        let path = declared.as_deref().unwrap_or(&computed.path);
        if self.excluded(&page, path, &loc, report)? {
            return Ok(None);
        }
        if scanned.images.more {
            too_many_images(&page, report)?;
        }
        // The state knows a page by its computed path, whatever form is listed.
        let (lastmod, recorded) = self.dater.date(
            &page,
            &Listed {
                key: &computed.path,
                path,
                loc: &loc,
            },
            || match scanned.digest {
                Some(digest) => Ok((digest, scanned.fingerprint)),
                None => plan::digest(&mut self.scanner, &self.settings.scan, &page),
            },
            scanned.declared,
            report,
        )?;
        let entry = Entry {
            lastmod,
            alternates,
            images: scanned.images.urls,
            loc,
            ..given
        };
        Ok(Some(Decided { entry, recorded }))
    }

    /// The page's alternates, the URL path its canonical URL declares (if another form of
    /// its own) and the URL it is listed at, given its URL `loc` computed from its path and
    /// what its head means; None when it is not listed (reported).
    fn listed_at(
        &mut self,
        page: &Page,
        loc: String,
        path: &str,
        judged: Option<Judged>,
        report: &mut Report,
    ) -> Result<Option<ListedAt>> {
        let Some(judged) = judged else {
            return Ok(Some(ListedAt {
                alternates: Vec::new(),
                declared: None,
                loc,
            }));
        };
        Ok(match self.judge_head(page, &loc, path, judged, report)? {
            Some((alternates, None)) => Some(ListedAt {
                alternates,
                declared: None,
                loc,
            }),
            Some((alternates, Some(declared))) => {
                let loc = self.settings.base.join(&declared);
                // The declared form may be longer than the computed one.
                if too_long(page, &loc, report)? {
                    return Ok(None);
                }
                Some(ListedAt {
                    alternates,
                    declared: Some(declared),
                    loc,
                })
            }
            None => None,
        })
    }

    /// Whether the page listed at URL path `path` (`loc`) is left out (and reported):
    /// robots.txt disallows it, or another page has its URL.
    fn excluded(
        &mut self,
        page: &Page,
        path: &str,
        loc: &str,
        report: &mut Report,
    ) -> Result<bool> {
        if let Some(disallow) = &self.disallow {
            let from_root = format!("{}{path}", self.base.path());
            if disallow.blocks(&from_root) {
                report.strict(format_args!("robots.txt disallows {loc}"))?;
                // Which line, only for --explain: each rule is tried on the file without it.
                let rule = match report.explains() {
                    true => disallow.rule(&from_root).map(|rule| format!(" ({rule})")),
                    false => None,
                };
                report.left_out(
                    &page.rel,
                    Reason::Robots,
                    format_args!("robots.txt disallows its URL{}", rule.unwrap_or_default()),
                );
                return Ok(true);
            }
        }
        let Some(first) = self.dedup.claim(&page.rel, path) else {
            self.added.listed(path, &page.rel);
            return Ok(false);
        };
        report.left_out(&page.rel, Reason::Duplicate, "duplicate URL");
        report.warn(
            Warning::Duplicate,
            format_args!(
                "{} and {} both map to {loc}",
                shown_path(&first),
                shown_path(&page.rel)
            ),
            "listing only the first",
        )?;
        Ok(true)
    }

    /// What the page's head lets it be: listed (with its alternates and the URL path its
    /// canonical URL declares, if another form of its own) or not (None, reported).
    fn judge_head(
        &mut self,
        page: &Page,
        loc: &str,
        path: &str,
        judged: Judged,
        report: &mut Report,
    ) -> Result<Option<(Vec<Alternate>, Option<String>)>> {
        let Judged {
            canonical,
            verdict,
            ignored,
        } = judged;
        self.canonicals += u64::from(canonical);
        for what in ignored {
            report.warn(
                Warning::HeadIgnored,
                format_args!("{}: {what}", shown_path(&page.rel)),
                "ignored",
            )?;
        }
        let Some((alternates, form)) = self.kept(page, path, verdict, report)? else {
            return Ok(None);
        };
        match form {
            Form::Computed => Ok(Some((alternates, None))),
            Form::Declared(_) if self.settings.computed_urls => Ok(Some((alternates, None))),
            Form::Declared(declared) => {
                report.detail(format_args!(
                    "{}: listed as {}, the form its canonical URL declares",
                    shown_path(&page.rel),
                    self.settings.base.join(&declared)
                ));
                Ok(Some((alternates, Some(declared))))
            }
            Form::OtherHost(canonical) => {
                if let Some(base) = suggested_base(&canonical, path) {
                    *self.elsewhere.entry(base).or_default() += 1;
                }
                report.warn(
                    Warning::CanonicalHost,
                    format_args!(
                        "{}: its canonical URL {canonical} has another host or scheme than \
                         {loc} (the base URL disagrees with the site)",
                        shown_path(&page.rel)
                    ),
                    "listed as computed",
                )?;
                Ok(Some((alternates, None)))
            }
        }
    }

    /// The alternates and the form of its URL of a page whose head lets it be listed; None
    /// for one left out (reported) for what its head says, at URL path `path`.
    fn kept(
        &mut self,
        page: &Page,
        path: &str,
        verdict: Verdict,
        report: &mut Report,
    ) -> Result<Option<(Vec<Alternate>, Form)>> {
        match verdict {
            Verdict::Keep { alternates, form } => return Ok(Some((alternates, form))),
            Verdict::Noindex => {
                report.left_out(&page.rel, Reason::Noindex, "marked noindex");
            }
            Verdict::ErrorPage => report.left_out(
                &page.rel,
                Reason::DefaultExcluded,
                "an error page that does not name itself canonical (use --no-default-excludes)",
            ),
            Verdict::Shell => report.left_out(
                &page.rel,
                Reason::DefaultExcluded,
                "an app shell: no title and no text (use --no-default-excludes)",
            ),
            Verdict::Redirect(to) => {
                report.left_out(
                    &page.rel,
                    Reason::Redirect,
                    format_args!("a redirect to {to}"),
                );
            }
            Verdict::Canonical(to) => {
                report.left_out(
                    &page.rel,
                    Reason::Canonical,
                    format_args!("its canonical URL is {to}"),
                );
            }
            Verdict::Elsewhere(to) => {
                if let Some(base) = suggested_base(&to, path) {
                    *self.elsewhere.entry(base).or_default() += 1;
                }
                report.left_out(
                    &page.rel,
                    Reason::Elsewhere,
                    format_args!("its canonical URL {to} is outside the base URL"),
                );
                report.warn(
                    Warning::CanonicalElsewhere,
                    format_args!(
                        "{}: its canonical URL {to} is outside the base URL {}",
                        shown_path(&page.rel),
                        self.base
                    ),
                    "not listed",
                )?;
            }
        }
        Ok(None)
    }

    /// The --add-urls URLs decided, once every page is, each handed to `each`: each left
    /// out when a page has its URL (warned of) or robots.txt disallows it, as a page would be.
    pub fn added_entries(
        &mut self,
        report: &mut Report,
        mut each: impl FnMut(Decided, &mut Report) -> Result<()>,
    ) -> Result<()> {
        let settings = self.settings;
        std::mem::take(&mut self.added).for_each(|added, url| {
            let at = added.at(&url);
            let loc = url.loc(&settings.base);
            if let Some(page) = &url.page {
                report.left_out(Path::new(&at), Reason::Duplicate, "a page has its URL");
                return report.warn(
                    Warning::Duplicate,
                    format_args!("{at}: {loc} is the URL of the page {}", shown_path(page)),
                    "listing the page",
                );
            }
            if let Some(disallow) = &self.disallow
                && disallow.blocks(&format!("{}{}", self.base.path(), url.path))
            {
                report.strict(format_args!("robots.txt disallows {loc}"))?;
                report.left_out(
                    Path::new(&at),
                    Reason::Robots,
                    "robots.txt disallows its URL",
                );
                return Ok(());
            }
            // The rules' globs match a page's path under DIR: an added URL's path, decoded.
            let decoded: Vec<u8> = percent_encoding::percent_decode_str(&url.path).collect();
            let candidate = Candidate::from_bytes(&decoded);
            let (lastmod, recorded) = self.dater.date_added(
                &Listed {
                    key: &url.path,
                    path: &url.path,
                    loc: &loc,
                },
                url.lastmod.as_deref(),
            );
            let entry = Entry {
                lastmod,
                loc,
                ..settings.rules.entry(Some(&candidate))
            };
            each(Decided { entry, recorded }, report)
        })
    }

    /// Says, when most pages name canonical URLs outside the base URL, that the base URL is
    /// probably wrong, and which one the pages suggest; fails if `--lastmod git`'s git did.
    pub fn finish(&mut self, report: &mut Report) -> Result<()> {
        self.dater.finish(report)?;
        let elsewhere: u64 = self.elsewhere.values().sum();
        let most = self
            .elsewhere
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)));
        let Some((suggested, _)) =
            most.filter(|_| elsewhere >= 2 && elsewhere * 2 > self.canonicals)
        else {
            return Ok(());
        };
        report.warn(
            Warning::Run,
            format_args!(
                "{elsewhere} of the {} pages with a canonical URL name one on another host or \
                 outside the base URL {}, most under {suggested}: the base URL is probably \
                 wrong",
                self.canonicals, self.base
            ),
            &format!("check the pages' canonical URLs\nhint: -b {suggested}"),
        )
    }

    /// The churn against the state, once every page is decided; None without --state.
    pub fn churn(&mut self) -> Option<Churn> {
        self.dater.churn()
    }
}

/// A page with more images than a URL may list.
fn too_many_images(page: &Page, report: &mut Report) -> Result<()> {
    report.warn(
        Warning::Images,
        format_args!(
            "{}: more than {} images (its og:image and its main region's)",
            shown_path(&page.rel),
            report::thousands(MAX_IMAGES as u64)
        ),
        &format!(
            "listing the first {} (the most a URL may list)",
            report::thousands(MAX_IMAGES as u64)
        ),
    )
}

/// Whether `loc` is over the protocol's limit (then reported).
fn too_long(page: &Page, loc: &str, report: &mut Report) -> Result<bool> {
    if loc.len() < MAX_LOC_LEN {
        return Ok(false);
    }
    report.left_out(&page.rel, Reason::TooLong, "URL too long");
    report.warn(
        Warning::TooLong,
        format_args!(
            "{}: its URL has {} characters, the limit is {}",
            shown_path(&page.rel),
            loc.len(),
            MAX_LOC_LEN - 1
        ),
        "not listed",
    )?;
    Ok(true)
}

/// A page gone between its stat and its read: the site changed under the run. Like a page
/// gone before its stat (`walk`), a warning, and the page is not listed.
fn vanished(page: &Page, report: &mut Report) -> Result<()> {
    report.left_out(&page.rel, Reason::Unusable, "gone");
    report.warn(
        Warning::Unusable,
        format_args!(
            "{} vanished while the site was being read",
            shown_path(&page.rel)
        ),
        "not listed",
    )
}
