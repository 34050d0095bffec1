//! hreflang alternates across the whole sitemap: an alternate must be a page the sitemap
//! lists, and should name its page back. Only hashes of URLs are kept, not the URLs.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use anyhow::Result;

use crate::entry::{Alternate, Entry};
use crate::report::Report;

/// Filled in two steps: `add` sees every URL as it is decided and keeps only the pages that
/// name alternates; `list` is given every URL once they are all known, and only if some page
/// named alternates, so a site without any pays nothing.
#[derive(Debug, Default)]
pub struct Links {
    listed: HashSet<u64>,
    /// (page, alternate) for every alternate a page names.
    named: HashSet<(u64, u64)>,
}

/// A 64-bit key: a false match needs a collision among a site's URLs (odds around 1 in 10^7
/// at ten million pages), and would only let a dead alternate through.
fn key(url: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    url.hash(&mut hasher);
    hasher.finish()
}

impl Links {
    /// Records the alternates a page names.
    pub fn add(&mut self, record: &Entry) {
        if record.alternates.is_empty() {
            return;
        }
        let page = key(&record.loc);
        for Alternate { href, .. } in &record.alternates {
            self.named.insert((page, key(href)));
        }
    }

    /// Records a URL of the sitemap.
    pub fn list(&mut self, loc: &str) {
        self.listed.insert(key(loc));
    }

    /// Whether any page names alternates (and so the XHTML namespace is needed).
    pub fn any(&self) -> bool {
        !self.named.is_empty()
    }

    /// Drops the alternates of `record` that are not pages of the sitemap, and warns about
    /// those that do not name the page back.
    pub fn check(&self, record: &mut Entry, report: &mut Report) -> Result<()> {
        let page = key(&record.loc);
        let mut kept = Vec::with_capacity(record.alternates.len());
        for Alternate { lang, href } in std::mem::take(&mut record.alternates) {
            let target = key(&href);
            if target != page && !self.listed.contains(&target) {
                report.warn(
                    format!(
                        "{}: its {lang} alternate {href} is not a page of this sitemap (left out, or not in the site)",
                        record.loc
                    ),
                    "dropped",
                )?;
                continue;
            }
            if target != page && !self.named.contains(&(target, page)) {
                report.warn(
                    format!(
                        "{}: its {lang} alternate {href} does not name it back (a one-way alternate)",
                        record.loc
                    ),
                    "kept",
                )?;
            }
            kept.push(Alternate { lang, href });
        }
        record.alternates = kept;
        Ok(())
    }
}
