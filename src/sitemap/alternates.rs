//! hreflang alternates across the whole sitemap: an alternate must be a page the sitemap
//! lists, and should name its page back. Pages are matched as canonical URLs are: after
//! RFC 3986 normalisation, and by their substance, so that an alternate written `/fr/` finds
//! the page listed as `/fr` (and is written as listed). Only hashes of URLs are kept.
//!
//! With `--hreflang-default LANG`, a page whose cluster (the page and the alternates it
//! names) declares no `x-default` gets one: its LANG alternate, as listed.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use anyhow::Result;
use url::Url;

use crate::entry::{Alternate, Entry};
use crate::html;
use crate::report::{Report, Warning};
use crate::url::normal_path;

/// Filled in two steps: `add` sees every URL as it is decided and keeps only the pages that
/// name alternates; `list` is given every URL once they are all known, and only if some page
/// named alternates, so a site without any pays nothing.
#[derive(Debug, Default)]
pub struct Links {
    /// Every listed URL, normalised.
    listed: HashSet<u64>,
    /// Every listed page by its substance, with the form it is listed in (an index into
    /// `FORMS`).
    pages: HashMap<u64, usize>,
    /// (page, alternate), by substance, for every alternate a page names.
    named: HashSet<(u64, u64)>,
    /// --hreflang-default: the language whose page a cluster without an `x-default` gets
    /// as one.
    default: Option<String>,
    /// Every page, by substance, that declares an `x-default` (only with `default`).
    declares_default: HashSet<u64>,
}

/// The hreflang value of the page for users whose language no alternate matches.
const X_DEFAULT: &str = "x-default";

/// What a URL path may add to its substance (see `html::url_substance`).
const FORMS: [&str; 6] = ["", "/", ".html", ".htm", "/index.html", "/index.htm"];

/// A URL split for matching: normalised, and the same less its form.
struct Parts {
    /// Scheme, host and port, as `https://example.com`.
    origin: String,
    path: String,
    query: Option<String>,
}

impl Parts {
    fn of(url: &str) -> Option<Parts> {
        let url = Url::parse(url).ok()?;
        Some(Parts {
            origin: url.origin().ascii_serialization(),
            path: normal_path(url.path()),
            query: url.query().map(String::from),
        })
    }

    fn substance(&self) -> &str {
        html::url_substance(&self.path)
    }

    /// The page's key, whatever its form.
    fn page(&self) -> u64 {
        key(&(&self.origin, self.substance(), &self.query))
    }

    /// The URL's key, as it is.
    fn exact(&self) -> u64 {
        key(&(&self.origin, &self.path, &self.query))
    }

    /// The index in `FORMS` of what the path adds to its substance.
    fn form(&self) -> Option<usize> {
        let form = &self.path[self.substance().len()..];
        FORMS.iter().position(|known| *known == form)
    }

    /// The URL in form `form`.
    fn in_form(&self, form: usize) -> String {
        let query = self
            .query
            .as_ref()
            .map_or(String::new(), |q| format!("?{q}"));
        format!("{}{}{}{query}", self.origin, self.substance(), FORMS[form])
    }
}

/// A 64-bit key: a false match needs a collision among a site's URLs (odds around 1 in 10^7
/// at ten million pages), and would only let a dead alternate through.
fn key(value: &impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

impl Links {
    /// `default` is --hreflang-default's language.
    pub fn new(default: Option<String>) -> Links {
        Links {
            default,
            ..Links::default()
        }
    }

    /// Records the alternates a page names.
    pub fn add(&mut self, entry: &Entry) {
        if entry.alternates.is_empty() {
            return;
        }
        let Some(page) = Parts::of(&entry.loc) else {
            return;
        };
        for Alternate { lang, href } in &entry.alternates {
            if let Some(alternate) = Parts::of(href) {
                self.named.insert((page.page(), alternate.page()));
            }
            if self.default.is_some() && lang.eq_ignore_ascii_case(X_DEFAULT) {
                self.declares_default.insert(page.page());
            }
        }
    }

    /// Records a URL of the sitemap.
    pub fn list(&mut self, loc: &str) {
        if let Some(parts) = Parts::of(loc) {
            self.listed.insert(parts.exact());
            if let Some(form) = parts.form() {
                self.pages.entry(parts.page()).or_insert(form);
            }
        }
    }

    /// Whether any page names alternates (and so the XHTML namespace is needed).
    pub fn any(&self) -> bool {
        !self.named.is_empty()
    }

    /// Writes each alternate of `entry` as the sitemap lists its page, drops those that are
    /// not pages of the sitemap, and warns about those that do not name the page back.
    pub fn check(&self, entry: &mut Entry, report: &mut Report) -> Result<()> {
        // Most pages name none: their URL is not worth parsing.
        if entry.alternates.is_empty() {
            return Ok(());
        }
        let Some(page) = Parts::of(&entry.loc) else {
            return Ok(());
        };
        // A cluster with an x-default of its own keeps it, even one dropped below: the
        // pages' word on it is not overruled.
        let add_default = self.default.as_ref().filter(|_| {
            !self.declares_default.contains(&page.page())
                && !entry.alternates.iter().any(|Alternate { href, .. }| {
                    Parts::of(href)
                        .is_some_and(|target| self.declares_default.contains(&target.page()))
                })
        });
        let mut kept = Vec::with_capacity(entry.alternates.len() + 1);
        for Alternate { lang, href } in std::mem::take(&mut entry.alternates) {
            let target = Parts::of(&href);
            let listed = target.as_ref().and_then(|target| {
                if target.page() == page.page() {
                    return Some(entry.loc.clone());
                }
                if self.listed.contains(&target.exact()) {
                    return Some(href.clone());
                }
                let form = *self.pages.get(&target.page())?;
                Some(target.in_form(form))
            });
            let (Some(target), Some(listed)) = (target, listed) else {
                report.warn(
                    Warning::AlternateNotListed,
                    format_args!(
                        "{}: its {lang} alternate {href} is not a page of this sitemap (left \
                         out, or not in the site)",
                        entry.loc
                    ),
                    "dropped",
                )?;
                continue;
            };
            if target.page() != page.page() && !self.named.contains(&(target.page(), page.page())) {
                report.warn(
                    Warning::AlternateOneWay,
                    format_args!(
                        "{}: its {lang} alternate {listed} does not name it back (a one-way \
                         alternate)",
                        entry.loc
                    ),
                    "kept",
                )?;
            }
            kept.push(Alternate { lang, href: listed });
        }
        let default = add_default.and_then(|default| {
            kept.iter()
                .find(|alternate| alternate.lang.eq_ignore_ascii_case(default))
        });
        if let Some(Alternate { href, .. }) = default {
            let href = href.clone();
            kept.push(Alternate {
                lang: X_DEFAULT.into(),
                href,
            });
        }
        entry.alternates = kept;
        Ok(())
    }
}
