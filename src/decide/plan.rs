//! What is known of each page before it is decided, found on the thread that walked it:
//! its URL, the values its rules give, what to read of it, what was read, and what its head
//! means.

use std::io;

use anyhow::{Context, Result};
use globset::Candidate;
use url::Url;

use super::Settings;
use super::lastmod::Digests;
use super::verdict::{self, Verdict};
use crate::entry::Entry;
use crate::error::Access;
use crate::html;
use crate::known::Fingerprint;
use crate::scan::head::Head;
use crate::scan::{self, Scanned, Scanner, Want};
use crate::url::{MAX_LOC_LEN, PagePath, encode_path};
use crate::walk::{self, Page, PageFile};

/// A page, and what is known of it before it is read.
pub struct Planned {
    pub(super) page: Page,
    pub(super) computed: PagePath,
    /// Its URL, as computed from its path.
    pub(super) loc: String,
    /// The entry its rules give (its values and group), its URL and date to come.
    pub(super) given: Entry,
}

/// What is known of each page before it is decided, found on the thread that walked it:
/// its URL, the values its rules give, and what was read of it.
pub struct Planner<'s> {
    pub(super) settings: &'s Settings,
    pub(super) base: Url,
    pub(super) digests: Digests,
}

/// A page prepared for `Decider::decide`.
pub struct Prepared {
    pub(super) planned: Planned,
    /// What was read of the page; its head is in `judged`.
    pub(super) scanned: io::Result<Scanned>,
    /// What its head means, when it was read.
    pub(super) judged: Result<Option<Judged>>,
}

/// What a page's head means, judged on the thread that read it.
pub(super) struct Judged {
    /// Whether the head names a canonical URL.
    pub(super) canonical: bool,
    pub(super) verdict: Verdict,
    /// What in the head was unusable and ignored.
    pub(super) ignored: Vec<String>,
}

impl<'s> walk::Prepare for Planner<'s> {
    type Scratch = Scanner;
    type Prepared = Prepared;

    fn prepare(&self, scanner: &mut Scanner, page: Page, file: PageFile) -> Prepared {
        let size = page.stamp.size;
        let (planned, want, deferred) = self.plan(page);
        let scan = &self.settings.scan;
        let mut scanned = match want {
            Some(want) => scanner.scan(scan, || file.open(), size, want),
            None => Ok(Scanned::default()),
        };
        let head = scanned
            .as_mut()
            .ok()
            .and_then(|scanned| scanned.head.take());
        let judged = head.map(|head| self.judge(&planned, head)).transpose();
        if let (true, Ok(Some(judged)), Ok(read)) = (deferred, &judged, &mut scanned)
            && matches!(judged.verdict, Verdict::Keep { .. })
        {
            let want = Want {
                html: true,
                head: false,
                digest: true,
                dates: false,
                images: None,
                known: None,
            };
            match scanner.scan(scan, || file.open(), size, want) {
                Ok(whole) => read.digest = whole.digest,
                Err(err) => scanned = Err(err),
            }
        }
        Prepared {
            planned,
            scanned,
            judged,
        }
    }
}

impl<'s> Planner<'s> {
    /// What the head of the page `planned` means: what `verdict::judge` says of it, but that
    /// a page it keeps is left out as an error page or an app shell.
    fn judge(&self, planned: &Planned, head: Head) -> Result<Judged> {
        let canonical = !head.canonicals.is_empty();
        let shell = head.is_shell();
        let (mut verdict, ignored) =
            verdict::judge(head, &planned.loc, &self.base).context("a loc is a URL")?;
        if let Verdict::Keep { .. } = verdict
            && self.settings.error_pages
        {
            // Kept with a canonical URL: it names itself.
            if html::is_error_page(&planned.page.rel) && !canonical {
                verdict = Verdict::ErrorPage;
            } else if shell {
                verdict = Verdict::Shell;
            }
        }
        Ok(Judged {
            canonical,
            verdict,
            ignored,
        })
    }

    /// What is known of `page` before it is read, what to read of it, and whether its
    /// digest is to be made only once its head says it is listed (read again, whole).
    fn plan(&self, page: Page) -> (Planned, Option<Want>, bool) {
        let settings = self.settings;
        let computed = settings.mapping.page_path(&page.rel);
        let loc = settings.base.join(&computed.path);
        let candidate = (!settings.rules.is_empty()).then(|| Candidate::new(&page.rel));
        let html = html::is_page(&page.rel);
        let head = settings.read_html && html;
        let dates = settings.lastmod.mode.reads_pages();
        // A page --state must digest is read once, whole, for its head as well; unless the
        // state does not know it and only its head is read otherwise.
        let images = settings.scan.images.is_some() && html;
        let (digest, deferred, known) = match self.digests.needed(&page, &computed.path) {
            Some((true, _)) if head && !dates && settings.scan.images.is_none() => {
                (false, true, None)
            }
            Some((_, known)) => (true, false, known),
            None => (false, false, None),
        };
        let want = Want {
            html,
            head,
            digest,
            dates,
            images: images.then(|| settings.base.join(&encode_path(&page.rel))),
            known,
        };
        // A page whose URL is too long is left out unread.
        let want = (loc.len() < MAX_LOC_LEN).then_some(want);
        let deferred = deferred && want.is_some();
        let planned = Planned {
            given: settings.rules.entry(candidate.as_ref()),
            page,
            computed,
            loc,
        };
        (planned, want, deferred)
    }
}

/// The digest of `page`, and the fingerprint of its bytes, read by `scan`'s rules: for
/// `--state`, when the thread that walked the page did not make it.
pub(super) fn digest(
    scanner: &mut Scanner,
    scan: &scan::Settings,
    page: &Page,
) -> Result<(blake3::Hash, Option<Fingerprint>)> {
    let want = Want {
        html: html::is_page(&page.rel),
        head: false,
        digest: true,
        dates: false,
        images: None,
        known: None,
    };
    let open = || std::fs::File::open(&page.path);
    let scanned = scanner.scan(scan, open, page.stamp.size, want);
    let scanned = scanned.with_context(|| Access::ReadSite(page.path.display().to_string()))?;
    let digest = scanned.digest.context("a digest was asked for")?;
    Ok((digest, scanned.fingerprint))
}
