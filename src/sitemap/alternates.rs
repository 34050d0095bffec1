//! hreflang alternates across the whole sitemap: an alternate must be a page the sitemap
//! lists, and should name its page back. Pages are matched as canonical URLs are: after
//! RFC 3986 normalisation, and by their substance, so that an alternate written `/fr/` finds
//! the page listed as `/fr` (and is written as listed). Only hashes of URLs are kept.
//!
//! With `--locale LANG=PATH`, the page at the same path under each locale's folder is an
//! alternate of a page too, where its head names none in that language: the pages of each
//! path are known by a hash of the path less the locale's folder.
//!
//! A page whose alternates name others but not itself names itself too, in the language
//! another page names it by (its `<html lang>` came first, in `decide`).
//!
//! With `--hreflang-default LANG`, a page whose cluster (the page and the alternates it
//! names) declares no `x-default` gets one: its LANG alternate, as listed.
//!
//! A language switcher (Material for MkDocs' `extra.alternate`) writes the same alternates,
//! the languages' home pages, into every page's head: alternates that several pages name
//! besides themselves, all of them language roots, are ignored on those pages, and what
//! they would have recorded waits until that is known (`settle`).

use std::collections::hash_map::Entry as Slot;
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
    /// The first language another page names each page by, by substance.
    named_as: HashMap<u64, String>,
    /// (page, language in lower case) for every language a page names an alternate in, by
    /// substance (only with `locales`).
    names_lang: HashSet<u64>,
    /// --locale: each language and its folder, in the order given.
    locales: Vec<Locale>,
    /// With `locales`: how many listed pages each path has (a page's locale's folder taken
    /// off its substance), by that path's key.
    translations: HashMap<u64, u32>,
    /// The base URL's path, normalised, with no final `/`: a language root.
    base: String,
    /// The pages whose alternates could be a language switcher's, in the walk's order, until
    /// `settle` knows which are.
    candidates: Vec<Candidate>,
    /// How many pages name each set of root alternates (by `switcher_key`), and the first
    /// such page's, for the note.
    shared: HashMap<u64, Shared>,
    /// The sets of root alternates that several pages name: language switchers.
    switchers: HashSet<u64>,
}

/// A page whose alternates besides itself all point at language roots.
#[derive(Debug)]
struct Candidate {
    page: u64,
    set: u64,
    named: Vec<Named>,
}

#[derive(Debug)]
struct Shared {
    pages: u32,
    alternates: String,
}

/// An alternate a page names, as `add` records it: its language, and its page's key (none
/// for a URL that does not parse).
#[derive(Debug)]
struct Named {
    lang: String,
    target: Option<u64>,
}

/// `--locale LANG=PATH`: the pages of a language, in a folder under the base URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locale {
    pub lang: String,
    /// The folder's URL path from the host's root, normalised, with no final `/` (so the
    /// empty string for a base URL of `/`).
    pub folder: String,
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
        self.page_at(self.substance())
    }

    /// The key of the page at `substance` on the same origin, with the same query.
    fn page_at(&self, substance: &str) -> u64 {
        key(&(&self.origin, substance, &self.query))
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
        self.at_in_form(self.substance(), form)
    }

    /// The URL of the page at `substance` (same origin and query) in form `form`.
    fn at_in_form(&self, substance: &str, form: usize) -> String {
        let query = self
            .query
            .as_ref()
            .map_or(String::new(), |q| format!("?{q}"));
        format!("{}{substance}{}{query}", self.origin, FORMS[form])
    }

    /// The locale whose folder holds the page (the deepest), and the page's substance less
    /// that folder.
    fn locale<'l>(&self, locales: &'l [Locale]) -> Option<(&'l Locale, &str)> {
        let inside = |locale: &&Locale| {
            self.path
                .strip_prefix(&locale.folder)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
        };
        let locale = locales
            .iter()
            .filter(inside)
            .max_by_key(|locale| locale.folder.len())?;
        // The folder's own page has the folder as its substance, or less (`/` for a folder
        // of ``): what is left of it is the empty path.
        let rest = self.substance().get(locale.folder.len()..).unwrap_or("");
        Some((locale, rest))
    }

    /// The key of the page's path in every locale: `rest` (from `locale`) on its origin.
    fn translation(&self, rest: &str) -> u64 {
        key(&(&self.origin, rest, &self.query, "locale"))
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
    /// `default` is --hreflang-default's language, `locales` --locale's, `base` the base
    /// URL's path.
    pub fn new(default: Option<String>, locales: Vec<Locale>, base: &str) -> Links {
        Links {
            default,
            locales,
            base: normal_path(base).trim_end_matches('/').to_string(),
            ..Links::default()
        }
    }

    /// Records the alternates a page names; those that may be a language switcher's wait
    /// for `settle`.
    pub fn add(&mut self, entry: &Entry) {
        if entry.alternates.is_empty() {
            return;
        }
        let Some(page) = Parts::of(&entry.loc) else {
            return;
        };
        let named: Vec<Named> = entry
            .alternates
            .iter()
            .map(|Alternate { lang, href }| Named {
                lang: lang.clone(),
                target: Parts::of(href).map(|target| target.page()),
            })
            .collect();
        let Some(set) = self.switcher_key(&page, &entry.alternates) else {
            self.record(page.page(), &named);
            return;
        };
        let shared = self.shared.entry(set).or_insert_with(|| Shared {
            pages: 0,
            alternates: entry
                .alternates
                .iter()
                .map(|Alternate { lang, href }| format!("{lang} {href}"))
                .collect::<Vec<_>>()
                .join(", "),
        });
        shared.pages += 1;
        self.candidates.push(Candidate {
            page: page.page(),
            set,
            named,
        });
    }

    /// Records the alternates the page `page` names.
    fn record(&mut self, page: u64, named: &[Named]) {
        for Named { lang, target } in named {
            if let Some(target) = *target {
                self.named.insert((page, target));
                if target != page && !lang.eq_ignore_ascii_case(X_DEFAULT) {
                    self.named_as.entry(target).or_insert_with(|| lang.clone());
                }
            }
            if !self.locales.is_empty() {
                self.names_lang
                    .insert(key(&(page, lang.to_ascii_lowercase())));
            }
            if self.default.is_some() && lang.eq_ignore_ascii_case(X_DEFAULT) {
                self.declares_default.insert(page);
            }
        }
    }

    /// Once every page is added: the sets of root alternates several pages name are a
    /// language switcher's, said once in a note; the others are the pages' own, recorded.
    pub fn settle(&mut self, report: &Report) {
        for Candidate { page, set, named } in std::mem::take(&mut self.candidates) {
            let Some(shared) = self.shared.get(&set).filter(|shared| shared.pages > 1) else {
                self.record(page, &named);
                continue;
            };
            if self.switchers.insert(set) {
                report.note(format_args!(
                    "{} pages name the same alternates, each a language's home page ({}): a \
                     language switcher, not each page's translations; ignored on those pages",
                    shared.pages, shared.alternates
                ));
            }
        }
    }

    /// The key of the alternates `alternates` of the page `page` besides itself, when there
    /// are some and each points at a language root (see `is_root`); an `x-default` may also
    /// point where another of them does.
    fn switcher_key(&self, page: &Parts, alternates: &[Alternate]) -> Option<u64> {
        let mut targets = Vec::with_capacity(alternates.len());
        for Alternate { lang, href } in alternates {
            targets.push((lang.to_ascii_lowercase(), Parts::of(href)?));
        }
        let mut others: Vec<(&str, u64)> = Vec::with_capacity(targets.len());
        for (lang, target) in &targets {
            if target.page() == page.page() {
                continue;
            }
            let root = if lang == X_DEFAULT {
                targets
                    .iter()
                    .any(|(other, named)| other != X_DEFAULT && named.page() == target.page())
                    || self.is_root(target, None)
            } else {
                self.is_root(target, Some(lang))
            };
            if !root {
                return None;
            }
            others.push((lang, target.page()));
        }
        others.sort_unstable();
        others.dedup();
        (!others.is_empty()).then(|| key(&others))
    }

    /// Whether `target` is a language root: the home page of a host, of the base URL, of a
    /// --locale folder, or of a folder named for `lang` (`/fr/` for `fr`, `/pt/` for `pt-BR`,
    /// `/zh_CN/` for `zh-CN`, in any case).
    fn is_root(&self, target: &Parts, lang: Option<&str>) -> bool {
        // `/fr`, `/fr/`, `/fr/index.html`: not `/fr.html`, a page.
        let form = target.form().map(|form| FORMS[form]);
        if !matches!(form, Some("" | "/" | "/index.html" | "/index.htm")) {
            return false;
        }
        let folder = target.substance();
        if folder.is_empty()
            || folder == self.base
            || self.locales.iter().any(|locale| locale.folder == folder)
        {
            return true;
        }
        let name = folder
            .rsplit('/')
            .next()
            .unwrap_or(folder)
            .replace('_', "-");
        lang.is_some_and(|lang| {
            let primary = lang.split('-').next().unwrap_or(lang);
            name.eq_ignore_ascii_case(lang) || name.eq_ignore_ascii_case(primary)
        })
    }

    /// Records a URL of the sitemap.
    pub fn list(&mut self, loc: &str) {
        let Some(parts) = Parts::of(loc) else {
            return;
        };
        self.listed.insert(parts.exact());
        let Some(form) = parts.form() else {
            return;
        };
        match self.pages.entry(parts.page()) {
            Slot::Occupied(_) => return,
            Slot::Vacant(vacant) => vacant.insert(form),
        };
        if let Some((_, rest)) = parts.locale(&self.locales) {
            *self
                .translations
                .entry(parts.translation(rest))
                .or_default() += 1;
        }
    }

    /// Whether every URL must be listed (`list`) before the first is checked.
    pub fn wants_list(&self) -> bool {
        !self.named.is_empty() || !self.locales.is_empty()
    }

    /// Whether any page names alternates or has a translation (and so the XHTML namespace is
    /// needed), once every URL is listed.
    pub fn any(&self) -> bool {
        !self.named.is_empty() || self.translations.values().any(|pages| *pages > 1)
    }

    /// Writes each alternate of `entry` as the sitemap lists its page, drops those that are
    /// not pages of the sitemap, and warns about those that do not name the page back; adds
    /// its translations (--locale) in the languages it names none in, and itself.
    pub fn check(&self, entry: &mut Entry, report: &mut Report) -> Result<()> {
        // Most pages name none: their URL is not worth parsing.
        if entry.alternates.is_empty() && self.locales.is_empty() {
            return Ok(());
        }
        let Some(page) = Parts::of(&entry.loc) else {
            return Ok(());
        };
        if !self.switchers.is_empty()
            && self
                .switcher_key(&page, &entry.alternates)
                .is_some_and(|set| self.switchers.contains(&set))
        {
            entry.alternates.clear();
        }
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
            if target.page() != page.page()
                && !self.named.contains(&(target.page(), page.page()))
                && !self.translates(&target, &page)
            {
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
        self.add_translations(&page, &entry.loc, &mut kept);
        self.add_itself(&page, &entry.loc, &mut kept);
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

    /// Whether `a` and `b` are one page in two locales (so that each names the other).
    fn translates(&self, a: &Parts, b: &Parts) -> bool {
        match (a.locale(&self.locales), b.locale(&self.locales)) {
            (Some((one, a_rest)), Some((other, b_rest))) => one != other && a_rest == b_rest,
            _ => false,
        }
    }

    /// Adds to `kept`, the alternates of the page `page` listed at `loc`, its page in each
    /// locale (itself in its own), when it has any besides itself: for each language it names
    /// no alternate in, and each page it does not name already, unless that page's head
    /// names another in `page`'s language.
    fn add_translations(&self, page: &Parts, loc: &str, kept: &mut Vec<Alternate>) {
        let Some((own, rest)) = page.locale(&self.locales) else {
            return;
        };
        if self
            .translations
            .get(&page.translation(rest))
            .is_none_or(|n| *n < 2)
        {
            return;
        }
        let entry_had_none = kept.is_empty();
        for locale in &self.locales {
            let substance = format!("{}{rest}", locale.folder);
            let target = page.page_at(&substance);
            let Some(form) = self.pages.get(&target) else {
                continue;
            };
            let href = if target == page.page() {
                loc.to_string()
            } else if self
                .names_lang
                .contains(&key(&(target, own.lang.to_ascii_lowercase())))
            {
                continue;
            } else {
                page.at_in_form(&substance, *form)
            };
            let named = kept.iter().any(|alternate| {
                alternate.lang.eq_ignore_ascii_case(&locale.lang)
                    || Parts::of(&alternate.href).is_some_and(|named| named.page() == target)
            });
            if !named {
                kept.push(Alternate {
                    lang: locale.lang.clone(),
                    href,
                });
            }
        }
        // Itself alone (its translations name others in its language): no alternates.
        if let [only] = kept.as_slice()
            && only.href == loc
            && entry_had_none
        {
            kept.clear();
        }
    }

    /// Adds the page `page` listed at `loc` to `kept`, its alternates, when they name others
    /// but not it, in the language another page names it by (unless one of them has it).
    fn add_itself(&self, page: &Parts, loc: &str, kept: &mut Vec<Alternate>) {
        let other = |alternate: &Alternate| {
            alternate.lang.eq_ignore_ascii_case(X_DEFAULT)
                || Parts::of(&alternate.href).is_none_or(|named| named.page() != page.page())
        };
        if kept.is_empty() || !kept.iter().all(other) {
            return;
        }
        let Some(lang) = self.named_as.get(&page.page()) else {
            return;
        };
        if !kept
            .iter()
            .any(|alternate| alternate.lang.eq_ignore_ascii_case(lang))
        {
            kept.push(Alternate {
                lang: lang.clone(),
                href: loc.to_string(),
            });
        }
    }
}
